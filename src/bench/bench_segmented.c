/*
 * bench_segmented.c - the segmented group: duo_segmented_reduce over
 * NSEG segments given by an offsets array in device memory, results in
 * device memory, against CUB's DeviceSegmentedReduce on the GPU and an
 * OpenMP loop over the segments on the CPU (yardstick_segmented.h), on
 * the same buffers.
 *
 * Rows "sum f32", "sum f64", "max f32": 2^10 segments of 2^10, 2^12,
 * 2^14 and 2^16 elements (size "2^10x2^16": segments x length); "sum f32
 * equal": duo's duo_segmented_reduce_equal (no offsets to check) against
 * the same yardstick; and sum f32 over 2^16 segments of 2^6, where the
 * work per segment is small.  The amount is the bytes of x read.
 *
 * Check, on the first results of fresh inputs: a sample of segments
 * against duo_reduce of that segment (the same bits) and against the
 * yardstick (within len (u_ys + u_f64) sum|x| for sums, exactly for max).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "stream_kernels.h"
#include "yardstick_segmented.h"

enum { SAMPLES = 16 }; /* segments checked per row */

typedef struct seg_ctx {
    duo_reduce_op op;
    duo_dtype type;
    int equal;           /* duo's _equal form */
    const void *x;
    size_t n, nseg, seg_len;
    const size_t *offsets; /* device */
    void *duo_out, *ys_out; /* device, nseg results each */
} seg_ctx;

static void run_duo(void *p)
{
    const seg_ctx *c = (const seg_ctx *)p;
    if (c->equal)
        DUO_CHECK(duo_segmented_reduce_equal(c->op, c->type, c->x,
                                             c->seg_len, c->nseg, c->duo_out,
                                             NULL));
    else
        DUO_CHECK(duo_segmented_reduce(c->op, c->type, c->x, c->n,
                                       c->offsets, c->nseg, c->duo_out,
                                       NULL));
}

static void run_ys(void *p)
{
    const seg_ctx *c = (const seg_ctx *)p;
    (void)ys_segmented_reduce(c->op, c->type, c->x, c->offsets, c->nseg,
                              c->ys_out);
}

/* Result s of an output array of `size`-byte values, as a double. */
static double value_at(const unsigned char *host, size_t s, size_t size)
{
    if (size == 4) {
        float f;
        memcpy(&f, host + s * 4, 4);
        return f;
    }
    double d;
    memcpy(&d, host + s * 8, 8);
    return d;
}

static void check_row(bench *b, const seg_ctx *c, row *r)
{
    const size_t elem = duo_dtype_size(c->type);
    const size_t duo_size = c->op == DUO_SUM ? 8 : elem;
    /* CUB's sums are of the element type; the CPU loop's are doubles. */
    const size_t ys_size = c->op == DUO_SUM && !b->gpu ? 8 : elem;
    unsigned char *duo = (unsigned char *)malloc(c->nseg * 8);
    unsigned char *ys = (unsigned char *)malloc(c->nseg * 8);
    if (duo == NULL || ys == NULL)
        bench_fatal("out of host memory (%s)", "segmented check");
    DUO_CHECK(duo_memcpy(duo, c->duo_out, c->nseg * duo_size,
                         DUO_DEVICE_TO_HOST));
    DUO_CHECK(duo_memcpy(ys, c->ys_out, c->nseg * ys_size,
                         DUO_DEVICE_TO_HOST));
    const double u_ys = c->type == DUO_F32 ? ys_segmented_sum_unit_f32()
                                           : 0x1p-53;
    double worst = 0.0, worst_bound = 0.0;
    int ok = 1;
    for (size_t k = 0; k < SAMPLES; ++k) {
        const size_t s = k * (c->nseg - 1) / (SAMPLES - 1);
        const void *seg = (const char *)c->x + s * c->seg_len * elem;
        const double got = value_at(duo, s, duo_size);
        const double other = value_at(ys, s, ys_size);
        unsigned char want[8];
        DUO_CHECK(duo_reduce(c->op, c->type, seg, c->seg_len, want));
        ok = ok && memcmp(duo + s * duo_size, want, duo_size) == 0;
        double bound = 0.0;
        if (c->op == DUO_SUM) {
            double abs_sum = 0.0;
            if (c->type == DUO_F32)
                DUO_CHECK(bench_abs_sum_f32((const float *)seg, c->seg_len,
                                            &abs_sum));
            else
                DUO_CHECK(bench_abs_sum_f64((const double *)seg, c->seg_len,
                                            &abs_sum));
            bound = (double)c->seg_len * (u_ys + 0x1p-53) * abs_sum;
        }
        const double diff = fabs(got - other);
        ok = ok && isfinite(got) && diff <= bound;
        if (diff - bound > worst - worst_bound) {
            worst = diff;
            worst_bound = bound;
        }
    }
    r->check_ok = ok;
    snprintf(r->check, sizeof r->check,
             "%d segments: bits of duo_reduce; |duo-%s| %.3g <= %.3g",
             SAMPLES, r->ys_name, worst, worst_bound);
    free(duo);
    free(ys);
}

static const char *op_name(duo_reduce_op op)
{
    return op == DUO_SUM ? "sum" : op == DUO_MIN ? "min" : "max";
}

/* One row: nseg segments of seg_len elements of `type` in x. */
static void bench_row(bench *b, duo_reduce_op op, duo_dtype type, int equal,
                      void *x, size_t *offsets, void *duo_out, void *ys_out,
                      size_t nseg, size_t seg_len)
{
    const size_t elem = duo_dtype_size(type);
    char what[32], size[32], a[16], l[16];
    snprintf(what, sizeof what, "%s %s%s", op_name(op),
             type == DUO_F32 ? "f32" : "f64", equal ? " equal" : "");
    bench_size_label(a, sizeof a, nseg);
    bench_size_label(l, sizeof l, seg_len);
    snprintf(size, sizeof size, "%sx%s", a, l);
    row *r = bench_new_row(b, what, size);
    const size_t n = nseg * seg_len;
    r->region = n * elem >= b->ys.cache_bytes ? "bandwidth" : "latency";
    r->amount = (double)(n * elem);
    r->unit = "GB/s";
    r->unit_scale = 1e9;
    r->ys_name = ys_segmented_name();
    if (type == DUO_F32)
        DUO_CHECK(bench_fill_f32((float *)x, n, bench_new_seed(b)));
    else
        DUO_CHECK(bench_fill_f64((double *)x, n, bench_new_seed(b)));
    size_t *host = (size_t *)malloc((nseg + 1) * sizeof(size_t));
    if (host == NULL)
        bench_fatal("out of host memory (%s)", "segment offsets");
    for (size_t s = 0; s <= nseg; ++s)
        host[s] = s * seg_len;
    DUO_CHECK(duo_memcpy(offsets, host, (nseg + 1) * sizeof(size_t),
                         DUO_HOST_TO_DEVICE));
    free(host);
    seg_ctx c;
    c.op = op;
    c.type = type;
    c.equal = equal;
    c.x = x;
    c.n = n;
    c.nseg = nseg;
    c.seg_len = seg_len;
    c.offsets = offsets;
    c.duo_out = duo_out;
    c.ys_out = ys_out;
    run_duo(&c);
    run_ys(&c);
    check_row(b, &c, r);
    bench_measure(b, run_duo, run_ys, &c, r);
    bench_finish_row(b, r);
}

static void bench_segmented(bench *b)
{
    const size_t nseg = (size_t)1 << 10;
    static const size_t lengths[] = {(size_t)1 << 10, (size_t)1 << 12,
                                     (size_t)1 << 14, (size_t)1 << 16};
    static const size_t quick_lengths[] = {(size_t)1 << 10, (size_t)1 << 16};
    const size_t *lens = b->quick ? quick_lengths : lengths;
    const size_t count = b->quick ? 2 : 4;
    const size_t small_nseg = (size_t)1 << 16, small_len = (size_t)1 << 6;
    const size_t max_n = nseg * ((size_t)1 << 16);
    const size_t max_nseg = small_nseg;
    void *x = bench_device_alloc(max_n * sizeof(double));
    size_t *offsets =
        (size_t *)bench_device_alloc((max_nseg + 1) * sizeof(size_t));
    void *duo_out = bench_device_alloc(max_nseg * sizeof(double));
    void *ys_out = bench_device_alloc(max_nseg * sizeof(double));

    static const struct {
        duo_reduce_op op;
        duo_dtype type;
        int equal;
    } forms[] = {{DUO_SUM, DUO_F32, 0},
                 {DUO_SUM, DUO_F64, 0},
                 {DUO_MAX, DUO_F32, 0},
                 {DUO_SUM, DUO_F32, 1}};
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; ++f)
        for (size_t k = 0; k < count; ++k)
            bench_row(b, forms[f].op, forms[f].type, forms[f].equal, x,
                      offsets, duo_out, ys_out, nseg, lens[k]);
    bench_row(b, DUO_SUM, DUO_F32, 0, x, offsets, duo_out, ys_out,
              small_nseg, small_len);

    ys_segmented_release();
    DUO_CHECK(duo_free(x));
    DUO_CHECK(duo_free(offsets));
    DUO_CHECK(duo_free(duo_out));
    DUO_CHECK(duo_free(ys_out));
}

static void write_segmented_method(const bench *b, FILE *f)
{
    (void)b;
    fprintf(f, "- segmented: duo_segmented_reduce over segments given by an "
               "offsets array in device memory (\"equal\": "
               "duo_segmented_reduce_equal), results in device memory, "
               "against CUB DeviceSegmentedReduce (GPU; CUB sums f32 in "
               "f32) or an OpenMP loop over the segments accumulating in "
               "double (CPU); size is segments x elements per segment; "
               "checked on %d segments against duo_reduce (bits) and the "
               "yardstick.\n", SAMPLES);
}

const bench_group bench_group_segmented = {
    .name = "segmented",
    .run = bench_segmented,
    .write_method = write_segmented_method,
};
