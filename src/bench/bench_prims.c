/*
 * bench_prims.c - the prims group: duo's scan, sort, compaction,
 * histogram and atomic add against the tools a programmer of the
 * backend would use instead (yardstick.h: CUB on the GPU; a two-pass
 * OpenMP scan, std::sort, a filter loop and private bins on the CPU; the
 * raw atomicAdd kernel or an omp atomic loop).  GPU: 2^24 and 2^28
 * elements; CPU: 2^24 (--quick: 2^20).  duo runs the stream-ordered
 * forms (..._async on the default stream), as CUB's calls are.
 *
 * Checks, on fresh inputs before timing: integer scans, sorts,
 * compaction, histograms and atomic counts equal the yardstick's bit for
 * bit; the f32 sum scan (duo sums in double in its own fixed order, CUB
 * and the OpenMP loop in float) is held within (u_f32 max|s| + 3 n u_f64
 * sum|x|) of an independent double scan and within (2 u_f32 max|s| +
 * n (u_f32 + u_f64) sum|x|) of the yardstick's.
 */
#include <math.h>
#include <string.h>

#include "bench.h"
#include "prims_kernels.h"
#include "stream_kernels.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The sizes of every row: GPU 2^24 and 2^28, CPU 2^24; --quick 2^20. */
static const size_t *prims_sizes(const bench *b, size_t *count)
{
    static const size_t gpu[] = {(size_t)1 << 24, (size_t)1 << 28};
    static const size_t cpu[] = {(size_t)1 << 24};
    static const size_t quick[] = {(size_t)1 << 20};
    if (b->quick) {
        *count = COUNT(quick);
        return quick;
    }
    *count = b->gpu ? COUNT(gpu) : COUNT(cpu);
    return b->gpu ? gpu : cpu;
}

static size_t max_size(const bench *b)
{
    size_t count = 0, most = 0;
    const size_t *sizes = prims_sizes(b, &count);
    for (size_t s = 0; s < count; ++s)
        most = sizes[s] > most ? sizes[s] : most;
    return most;
}

/* A row of n elements moving `bytes` bytes; rates in elements per
 * second (G on the GPU, M on the CPU, as in ANCHORS). */
static row *new_prims_row(bench *b, const char *what, size_t n,
                          size_t bytes, const char *ys_name)
{
    char size[32];
    bench_size_label(size, sizeof size, n);
    row *r = bench_new_row(b, what, size);
    r->region = bytes >= b->ys.cache_bytes ? "bandwidth" : "latency";
    r->amount = (double)n;
    r->unit = b->gpu ? "Gelem/s" : "Melem/s";
    r->unit_scale = b->gpu ? 1e9 : 1e6;
    r->ys_name = ys_name;
    return r;
}

/* ------------------------------------------------------------------ */
/* Scan                                                                */

typedef struct scan_ctx {
    duo_scan_kind kind;
    duo_dtype type;
    const void *x;
    void *y, *y_ys;
    size_t n;
} scan_ctx;

static void run_duo_scan(void *p)
{
    const scan_ctx *c = (const scan_ctx *)p;
    DUO_CHECK(duo_scan_async(c->kind, DUO_SUM, c->type, c->x, c->y, c->n,
                             NULL));
}

static void run_ys_scan(void *p)
{
    const scan_ctx *c = (const scan_ctx *)p;
    if (c->type == DUO_F32)
        (void)ys_scan_sum_f32((const float *)c->x, (float *)c->y_ys, c->n);
    else
        (void)ys_scan_exclusive_u32((const uint32_t *)c->x,
                                    (uint32_t *)c->y_ys, c->n);
}

/* The f32 inclusive sum: against the double reference and the
 * yardstick (see the file's header for the bounds). */
static void check_scan_f32(scan_ctx *c, int has_ys, row *r)
{
    const double u32 = 0x1p-24, u64 = 0x1p-53, n = (double)c->n;
    double *ref = (double *)bench_device_alloc(c->n * sizeof(double));
    ys_scan_reference_f64((const float *)c->x, ref, c->n);
    double abs_sum = 0.0, max_ref = 0.0, d_ref = 0.0, d_ys = 0.0;
    DUO_CHECK(bench_abs_sum_f32((const float *)c->x, c->n, &abs_sum));
    DUO_CHECK(bench_max_abs_f64(ref, c->n, &max_ref));
    DUO_CHECK(bench_max_abs_diff_f32_f64((const float *)c->y, ref, c->n,
                                         &d_ref));
    if (has_ys)
        DUO_CHECK(bench_max_abs_diff_f32((const float *)c->y,
                                         (const float *)c->y_ys, c->n,
                                         &d_ys));
    DUO_CHECK(duo_free(ref));
    const double bound_ref = u32 * max_ref * (1.0 + 0x1p-20) +
                             3.0 * n * u64 * abs_sum;
    const double bound_ys = 2.0 * u32 * max_ref * (1.0 + 0x1p-20) +
                            n * (u32 + u64) * abs_sum;
    r->check_ok = d_ref <= bound_ref && (!has_ys || d_ys <= bound_ys);
    snprintf(r->check, sizeof r->check,
             "|duo-f64 scan| %.3g <= %.3g; |duo-%s| %.3g <= %.3g", d_ref,
             bound_ref, has_ys ? r->ys_name : "(none)", d_ys, bound_ys);
}

static void bench_scan_rows(bench *b, duo_scan_kind kind, duo_dtype type)
{
    const size_t most = max_size(b);
    scan_ctx c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.type = type;
    void *x = bench_device_alloc(most * 4);
    c.x = x;
    c.y = bench_device_alloc(most * 4);
    c.y_ys = bench_device_alloc(most * 4);
    size_t count = 0;
    const size_t *sizes = prims_sizes(b, &count);
    for (size_t s = 0; s < count; ++s) {
        c.n = sizes[s];
        row *r = new_prims_row(b, type == DUO_F32 ? "scan f32" : "scan i32 ex",
                               c.n, 2 * c.n * 4, ys_prim_name(YS_PRIM_SCAN));
        if (type == DUO_F32)
            DUO_CHECK(bench_fill_f32((float *)x, c.n, bench_new_seed(b)));
        else
            DUO_CHECK(bench_fill_u32((uint32_t *)x, c.n, bench_new_seed(b)));
        DUO_CHECK(duo_memset(c.y, 0xff, c.n * 4));
        DUO_CHECK(duo_memset(c.y_ys, 0xff, c.n * 4));
        run_duo_scan(&c);
        const int has_ys = type == DUO_F32
                               ? ys_scan_sum_f32((const float *)x,
                                                 (float *)c.y_ys, c.n)
                               : ys_scan_exclusive_u32((const uint32_t *)x,
                                                       (uint32_t *)c.y_ys,
                                                       c.n);
        if (type == DUO_F32) {
            check_scan_f32(&c, has_ys, r);
        } else {
            uint64_t diff = 0;
            DUO_CHECK(bench_count_diff_u32((const uint32_t *)c.y,
                                           (const uint32_t *)c.y_ys, c.n,
                                           &diff));
            r->check_ok = diff == 0;
            snprintf(r->check, sizeof r->check,
                     "exclusive i32 sum vs %s's u32: %llu of %zu differ "
                     "(exact)", r->ys_name, (unsigned long long)diff, c.n);
        }
        bench_measure(b, run_duo_scan, has_ys ? run_ys_scan : NULL, &c, r);
        bench_finish_row(b, r);
    }
    DUO_CHECK(duo_free(x));
    DUO_CHECK(duo_free(c.y));
    DUO_CHECK(duo_free(c.y_ys));
}

/* ------------------------------------------------------------------ */
/* Sort                                                                */

typedef enum sort_kind { SORT_U32, SORT_F32, SORT_PAIRS } sort_kind;

typedef struct sort_ctx {
    sort_kind kind;
    const uint32_t *keys, *values;
    uint32_t *keys_out, *values_out, *keys_ys, *values_ys;
    size_t n;
} sort_ctx;

static void run_duo_sort(void *p)
{
    const sort_ctx *c = (const sort_ctx *)p;
    const duo_key_type type = c->kind == SORT_F32 ? DUO_KEY_F32
                                                  : DUO_KEY_U32;
    const int pairs = c->kind == SORT_PAIRS;
    DUO_CHECK(duo_sort_async(type, DUO_ASCENDING, c->n, c->keys,
                             c->keys_out, pairs ? c->values : NULL,
                             pairs ? c->values_out : NULL, pairs ? 4 : 0,
                             NULL));
}

static int ys_sort(const sort_ctx *c)
{
    switch (c->kind) {
    case SORT_U32: return ys_sort_u32(c->keys, c->keys_ys, c->n);
    case SORT_F32:
        return ys_sort_f32((const float *)c->keys, (float *)c->keys_ys,
                           c->n);
    case SORT_PAIRS:
        return ys_sort_pairs_u32(c->keys, c->keys_ys, c->values,
                                 c->values_ys, c->n);
    }
    return 0;
}

static void run_ys_sort(void *p)
{
    (void)ys_sort((const sort_ctx *)p);
}

static void bench_sort_rows(bench *b, sort_kind kind)
{
    static const char *const names[] = {"sort u32", "sort f32",
                                        "sort pairs"};
    const size_t most = max_size(b);
    const int pairs = kind == SORT_PAIRS;
    sort_ctx c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    uint32_t *keys = (uint32_t *)bench_device_alloc(most * 4);
    uint32_t *values = pairs ? (uint32_t *)bench_device_alloc(most * 4)
                             : NULL;
    c.keys = keys;
    c.values = values;
    c.keys_out = (uint32_t *)bench_device_alloc(most * 4);
    c.keys_ys = (uint32_t *)bench_device_alloc(most * 4);
    if (pairs) {
        c.values_out = (uint32_t *)bench_device_alloc(most * 4);
        c.values_ys = (uint32_t *)bench_device_alloc(most * 4);
    }
    size_t count = 0;
    const size_t *sizes = prims_sizes(b, &count);
    for (size_t s = 0; s < count; ++s) {
        c.n = sizes[s];
        row *r = new_prims_row(b, names[kind], c.n,
                               2 * c.n * (pairs ? 8 : 4),
                               ys_prim_name(YS_PRIM_SORT));
        if (kind == SORT_F32)
            DUO_CHECK(bench_fill_f32((float *)keys, c.n, bench_new_seed(b)));
        else
            DUO_CHECK(bench_fill_u32(keys, c.n, bench_new_seed(b)));
        if (pairs)
            DUO_CHECK(bench_fill_u32(values, c.n, bench_new_seed(b)));
        run_duo_sort(&c);
        const int has_ys = ys_sort(&c);
        uint64_t diff = 0, vdiff = 0;
        if (has_ys) {
            DUO_CHECK(bench_count_diff_u32(c.keys_out, c.keys_ys, c.n,
                                           &diff));
            if (pairs)
                DUO_CHECK(bench_count_diff_u32(c.values_out, c.values_ys,
                                               c.n, &vdiff));
            r->check_ok = diff == 0 && vdiff == 0;
            snprintf(r->check, sizeof r->check,
                     "vs %s: %llu keys, %llu values of %zu differ (exact)",
                     r->ys_name, (unsigned long long)diff,
                     (unsigned long long)vdiff, c.n);
        } else if (kind != SORT_F32) {
            /* No yardstick to compare with: the u32 keys in order. */
            DUO_CHECK(bench_count_descents_u32(c.keys_out, c.n, &diff));
            r->check_ok = diff == 0;
            snprintf(r->check, sizeof r->check, "%s; %llu keys out of order",
                     ys_prim_missing(YS_PRIM_SORT),
                     (unsigned long long)diff);
        } else {
            snprintf(r->check, sizeof r->check, "%s; not checked",
                     ys_prim_missing(YS_PRIM_SORT));
        }
        bench_measure(b, run_duo_sort, has_ys ? run_ys_sort : NULL, &c, r);
        bench_finish_row(b, r);
    }
    DUO_CHECK(duo_free(keys));
    DUO_CHECK(duo_free(values));
    DUO_CHECK(duo_free(c.keys_out));
    DUO_CHECK(duo_free(c.keys_ys));
    DUO_CHECK(duo_free(c.values_out));
    DUO_CHECK(duo_free(c.values_ys));
}

/* ------------------------------------------------------------------ */
/* Compaction                                                          */

typedef struct compact_ctx {
    const float *in;
    const uint8_t *flags;
    float *out, *out_ys;
    uint64_t *count, *count_ys; /* device */
    size_t n;
} compact_ctx;

static void run_duo_compact(void *p)
{
    const compact_ctx *c = (const compact_ctx *)p;
    DUO_CHECK(duo_compact_async(4, c->n, c->in, c->flags, c->out, c->count,
                                NULL));
}

static void run_ys_compact(void *p)
{
    const compact_ctx *c = (const compact_ctx *)p;
    (void)ys_compact_f32(c->in, c->flags, c->out_ys, c->count_ys, c->n);
}

static void bench_compact_rows(bench *b)
{
    const size_t most = max_size(b);
    compact_ctx c;
    memset(&c, 0, sizeof c);
    float *in = (float *)bench_device_alloc(most * 4);
    uint8_t *flags = (uint8_t *)bench_device_alloc(most);
    c.in = in;
    c.flags = flags;
    c.out = (float *)bench_device_alloc(most * 4);
    c.out_ys = (float *)bench_device_alloc(most * 4);
    c.count = (uint64_t *)bench_device_alloc(2 * sizeof(uint64_t));
    c.count_ys = c.count + 1;
    size_t count = 0;
    const size_t *sizes = prims_sizes(b, &count);
    for (size_t s = 0; s < count; ++s) {
        c.n = sizes[s];
        /* Read: elements and flags; written: about half the elements. */
        row *r = new_prims_row(b, "compact f32", c.n, c.n * 7,
                               ys_prim_name(YS_PRIM_COMPACT));
        DUO_CHECK(bench_fill_f32(in, c.n, bench_new_seed(b)));
        DUO_CHECK(bench_fill_flags(flags, c.n, bench_new_seed(b)));
        DUO_CHECK(duo_memset(c.count, 0xff, 2 * sizeof(uint64_t)));
        run_duo_compact(&c);
        const int has_ys = ys_compact_f32(in, flags, c.out_ys, c.count_ys,
                                          c.n);
        uint64_t counts[2];
        DUO_CHECK(duo_memcpy(counts, c.count, sizeof counts,
                             DUO_DEVICE_TO_HOST));
        uint64_t diff = 0;
        if (has_ys && counts[0] == counts[1] && counts[0] <= c.n)
            DUO_CHECK(bench_count_diff_u32((const uint32_t *)c.out,
                                           (const uint32_t *)c.out_ys,
                                           (size_t)counts[0], &diff));
        r->check_ok = counts[0] <= c.n && counts[0] > 0 &&
                      (!has_ys || (counts[0] == counts[1] && diff == 0));
        snprintf(r->check, sizeof r->check,
                 "kept %llu, %s %llu; %llu kept elements differ (exact)",
                 (unsigned long long)counts[0],
                 has_ys ? r->ys_name : "no yardstick",
                 (unsigned long long)counts[1], (unsigned long long)diff);
        bench_measure(b, run_duo_compact, has_ys ? run_ys_compact : NULL, &c,
                      r);
        bench_finish_row(b, r);
    }
    DUO_CHECK(duo_free(in));
    DUO_CHECK(duo_free(flags));
    DUO_CHECK(duo_free(c.out));
    DUO_CHECK(duo_free(c.out_ys));
    DUO_CHECK(duo_free(c.count));
}

/* ------------------------------------------------------------------ */
/* Histogram                                                           */

enum { HIST_BINS = 256 };

/* f32: values on the grid k / 2^16 in [0, 256); i32: integers in
 * [0, 2^16).  Both ranges are cut into HIST_BINS bins. */
typedef struct hist_ctx {
    duo_dtype type;
    const void *x;
    size_t n;
    uint64_t *counts;
    int32_t *counts_ys;
} hist_ctx;

static void run_duo_hist(void *p)
{
    const hist_ctx *c = (const hist_ctx *)p;
    const double hi = c->type == DUO_F32 ? 256.0 : 65536.0;
    DUO_CHECK(duo_histogram_async(c->type, c->n, c->x, 0.0, hi, HIST_BINS,
                                  c->counts, NULL));
}

static int ys_hist(const hist_ctx *c)
{
    if (c->type == DUO_F32)
        return ys_histogram_f32((const float *)c->x, c->n, 0.0f, 256.0f,
                                HIST_BINS, c->counts_ys);
    return ys_histogram_i32((const int32_t *)c->x, c->n, 0, 65536,
                            HIST_BINS, c->counts_ys);
}

static void run_ys_hist(void *p)
{
    (void)ys_hist((const hist_ctx *)p);
}

static void bench_hist_rows(bench *b, duo_dtype type)
{
    const size_t most = max_size(b);
    hist_ctx c;
    memset(&c, 0, sizeof c);
    c.type = type;
    void *x = bench_device_alloc(most * 4);
    c.x = x;
    c.counts = (uint64_t *)bench_device_alloc(HIST_BINS * sizeof(uint64_t));
    c.counts_ys = (int32_t *)bench_device_alloc(HIST_BINS * sizeof(int32_t));
    size_t count = 0;
    const size_t *sizes = prims_sizes(b, &count);
    for (size_t s = 0; s < count; ++s) {
        c.n = sizes[s];
        row *r = new_prims_row(b, type == DUO_F32 ? "hist f32" : "hist i32",
                               c.n, c.n * 4,
                               ys_prim_name(YS_PRIM_HISTOGRAM));
        if (type == DUO_F32)
            DUO_CHECK(bench_fill_grid_f32((float *)x, c.n,
                                          bench_new_seed(b)));
        else
            DUO_CHECK(bench_fill_grid_i32((int32_t *)x, c.n,
                                          bench_new_seed(b)));
        run_duo_hist(&c);
        const int has_ys = ys_hist(&c);
        uint64_t mine[HIST_BINS];
        int32_t theirs[HIST_BINS];
        DUO_CHECK(duo_memcpy(mine, c.counts, sizeof mine,
                             DUO_DEVICE_TO_HOST));
        if (has_ys)
            DUO_CHECK(duo_memcpy(theirs, c.counts_ys, sizeof theirs,
                                 DUO_DEVICE_TO_HOST));
        uint64_t total = 0;
        size_t differ = 0;
        for (int k = 0; k < HIST_BINS; ++k) {
            total += mine[k];
            differ += has_ys && mine[k] != (uint64_t)theirs[k];
        }
        r->check_ok = total == c.n && differ == 0;
        snprintf(r->check, sizeof r->check,
                 "%llu of %zu counted; %zu of %d bins differ from %s (exact)",
                 (unsigned long long)total, c.n, differ, HIST_BINS,
                 has_ys ? r->ys_name : "no yardstick");
        bench_measure(b, run_duo_hist, has_ys ? run_ys_hist : NULL, &c, r);
        bench_finish_row(b, r);
    }
    DUO_CHECK(duo_free(x));
    DUO_CHECK(duo_free(c.counts));
    DUO_CHECK(duo_free(c.counts_ys));
}

/* ------------------------------------------------------------------ */
/* Atomic add in a kernel                                              */

typedef struct atomic_ctx {
    const uint32_t *x;
    size_t n;
    uint32_t *bins, *bins_raw;
} atomic_ctx;

static void run_duo_atomic(void *p)
{
    const atomic_ctx *c = (const atomic_ctx *)p;
    DUO_CHECK(bench_duo_atomic_bins(c->x, c->n, c->bins));
}

static void run_raw_atomic(void *p)
{
    const atomic_ctx *c = (const atomic_ctx *)p;
    bench_raw_atomic_bins(c->x, c->n, c->bins_raw);
}

static void bench_atomic_rows(bench *b)
{
    const size_t most = max_size(b);
    atomic_ctx c;
    memset(&c, 0, sizeof c);
    uint32_t *x = (uint32_t *)bench_device_alloc(most * 4);
    c.x = x;
    c.bins = (uint32_t *)bench_device_alloc(2 * BENCH_ATOMIC_BINS * 4);
    c.bins_raw = c.bins + BENCH_ATOMIC_BINS;
    size_t count = 0;
    const size_t *sizes = prims_sizes(b, &count);
    for (size_t s = 0; s < count; ++s) {
        c.n = sizes[s];
        row *r = new_prims_row(b, "atomic u32", c.n, c.n * 4,
                               bench_raw_atomic_name());
        DUO_CHECK(bench_fill_u32(x, c.n, bench_new_seed(b)));
        DUO_CHECK(duo_memset(c.bins, 0, 2 * BENCH_ATOMIC_BINS * 4));
        run_duo_atomic(&c);
        run_raw_atomic(&c);
        uint32_t h[2 * BENCH_ATOMIC_BINS];
        DUO_CHECK(duo_memcpy(h, c.bins, sizeof h, DUO_DEVICE_TO_HOST));
        uint64_t total = 0;
        size_t differ = 0;
        for (int k = 0; k < BENCH_ATOMIC_BINS; ++k) {
            total += h[k];
            differ += h[k] != h[BENCH_ATOMIC_BINS + k];
        }
        r->check_ok = total == c.n && differ == 0;
        snprintf(r->check, sizeof r->check,
                 "%llu of %zu added; %zu of %d counters differ from the raw "
                 "kernel's (exact)", (unsigned long long)total, c.n, differ,
                 (int)BENCH_ATOMIC_BINS);
        bench_measure(b, run_duo_atomic, run_raw_atomic, &c, r);
        bench_finish_row(b, r);
    }
    DUO_CHECK(duo_free(x));
    DUO_CHECK(duo_free(c.bins));
}

/* ------------------------------------------------------------------ */

static void bench_prims(bench *b)
{
    bench_scan_rows(b, DUO_INCLUSIVE, DUO_F32);
    bench_scan_rows(b, DUO_EXCLUSIVE, DUO_I32);
    bench_sort_rows(b, SORT_U32);
    /* On the CPU std::sort takes about a second per 2^24 keys: only the
     * u32 row, the one with a target, runs there. */
    if (b->gpu) {
        bench_sort_rows(b, SORT_F32);
        bench_sort_rows(b, SORT_PAIRS);
    }
    bench_compact_rows(b);
    bench_hist_rows(b, DUO_F32);
    bench_hist_rows(b, DUO_I32);
    bench_atomic_rows(b);
}

static void write_prims_method(const bench *b, FILE *f)
{
    if (b->gpu)
        fprintf(f, "- prims: duo's stream-ordered calls (duo_scan_async, "
                "duo_sort_async, duo_compact_async, duo_histogram_async) "
                "against CUB's DeviceScan, DeviceRadixSort, "
                "DeviceSelect::Flagged and DeviceHistogram::HistogramEven "
                "(int sizes, int counters, temporary storage allocated "
                "outside the timed calls); duo allocates its own temporary "
                "memory in every call.  scan f32 is an inclusive sum (duo "
                "in double in its fixed order, CUB in float); scan i32 ex "
                "an exclusive sum (CUB on u32, the same bits).  Histogram "
                "inputs lie on a grid where every bin formula agrees "
                "(f32: k/2^16 in [0, 256); i32: [0, 2^16)), so the counts "
                "must be equal.  atomic u32: every element adds 1 to one "
                "of 256 counters, by duo_atomic_add_u32 in a DUO_KERNEL "
                "against atomicAdd in a raw kernel launched "
                "<<<ceil(n/256), 256>>>.\n");
    else
        fprintf(f, "- prims: duo's calls against a two-pass OpenMP scan "
                "(float partial sums for f32), std::sort on one thread "
                "(when a C++ compiler was found), a plain filter loop, "
                "OpenMP private bins merged, and an `omp atomic` loop.  "
                "duo sums f32 in double in its fixed order.\n");
}

const bench_group bench_group_prims = {
    .name = "prims",
    .run = bench_prims,
    .write_method = write_prims_method,
};
