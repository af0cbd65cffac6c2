/*
 * test_segmented.c - duo_segmented_reduce and its forms (_equal, _arg,
 * _arg_equal) for every operation and element type: each segment's
 * result must have the bits of duo_reduce (duo_reduce_arg) called on
 * that segment alone, which every backend computes in the same fixed
 * order (test_reduce checks duo_reduce itself against an independent
 * restatement of the order).
 *
 *  - Segments: empty, 1 element, primes, chunk boundaries +-1 for 4- and
 *    8-byte elements, starts that are and are not 16-byte aligned, long
 *    segments of several steps, few segments (whose blocks share a
 *    segment on the GPU), a long one among short ones (one block each
 *    on the GPU) and many (more than blocks in a grid), offsets and
 *    equal segments.  Empty segments give the identity and index
 *    SIZE_MAX.  Data over a wide range of magnitudes, with ties.
 *  - Outputs are poisoned before each call, with a guard zone after them
 *    that must stay poisoned; calls go to the default stream and to a
 *    stream of their own, and one through a captured graph.
 *  - OpenMP: the same calls with 1, 2 and 3 threads.
 *  - DUO_TEST_QUICK=1 (the sanitizer sweep's slow tools): layouts of
 *    more than 64 segments check every 31st segment and the first and
 *    last four against duo_reduce, not every one; each reference is a
 *    launch of its own, and racecheck took minutes over them all.
 *  - Bad arguments: an error naming the argument and nothing written;
 *    bad offsets fail the call (CPU) or the next wait (GPU), nothing
 *    written, and the error is reported once; on the GPU, both ways of
 *    checking them (in the reduction's blocks, up to 2047 segments, and
 *    in a kernel of their own) and the blocks that share a segment.
 */
#include <math.h>
#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "test_util.h"

static test_rng rng;

/* Results poisoned after the nseg used, to catch writes past the end. */
#define GUARD 8

typedef struct type_info {
    duo_dtype type;
    const char *name;
    size_t size;
    int is_float;
} type_info;

static const type_info types[] = {{DUO_F32, "f32", 4, 1},
                                  {DUO_F64, "f64", 8, 1},
                                  {DUO_I32, "i32", 4, 0},
                                  {DUO_I64, "i64", 8, 0},
                                  {DUO_U64, "u64", 8, 0}};
#define NTYPES (sizeof types / sizeof types[0])

static const char *op_name(duo_reduce_op op, int arg)
{
    if (op == DUO_SUM)
        return "sum";
    if (arg)
        return op == DUO_MIN ? "argmin" : "argmax";
    return op == DUO_MIN ? "min" : "max";
}

/* Random elements of every type, over a wide range of magnitudes; every
 * seventh one a repeat of an earlier one, so that extremes tie. */
static void fill(const type_info *t, void *x, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        char *at = (char *)x + i * t->size;
        if (i >= 7 && i % 7 == 0) {
            memcpy(at, (char *)x + (i / 7) * t->size, t->size);
            continue;
        }
        switch (t->type) {
        case DUO_F32: {
            const float v = test_rng_wide_f(&rng, -20, 20);
            memcpy(at, &v, 4);
            break;
        }
        case DUO_F64: {
            const double v = test_rng_wide(&rng, -40, 40);
            memcpy(at, &v, 8);
            break;
        }
        case DUO_I32: {
            const uint32_t v = test_rng_u32(&rng);
            memcpy(at, &v, 4);
            break;
        }
        default: {
            const uint64_t v = test_rng_u64(&rng);
            memcpy(at, &v, 8);
            break;
        }
        }
    }
}

/* Bytes of one result of (op, type): duo_reduce's result type. */
static size_t result_size(const type_info *t, duo_reduce_op op)
{
    return op == DUO_SUM ? 8 : t->size;
}

/* The identity an empty segment gives. */
static void identity(const type_info *t, duo_reduce_op op, void *out)
{
    memset(out, 0, 8);
    if (op == DUO_SUM)
        return;
    const int lo = op == DUO_MAX;
    switch (t->type) {
    case DUO_F32: {
        const float v = lo ? -INFINITY : INFINITY;
        memcpy(out, &v, 4);
        break;
    }
    case DUO_F64: {
        const double v = lo ? -INFINITY : INFINITY;
        memcpy(out, &v, 8);
        break;
    }
    case DUO_I32: {
        const int32_t v = lo ? INT32_MIN : INT32_MAX;
        memcpy(out, &v, 4);
        break;
    }
    case DUO_I64: {
        const int64_t v = lo ? INT64_MIN : INT64_MAX;
        memcpy(out, &v, 8);
        break;
    }
    case DUO_U64: {
        const uint64_t v = lo ? 0 : UINT64_MAX;
        memcpy(out, &v, 8);
        break;
    }
    }
}

static void show(const type_info *t, size_t bytes, const void *v, char *buf,
                 size_t size)
{
    uint64_t bits = 0;
    memcpy(&bits, v, bytes);
    if (t->is_float && bytes == 4) {
        float f;
        memcpy(&f, v, 4);
        snprintf(buf, size, "%a (0x%08llx)", (double)f,
                 (unsigned long long)bits);
    } else if (t->is_float && bytes == 8) {
        double d;
        memcpy(&d, v, 8);
        snprintf(buf, size, "%a (0x%016llx)", d, (unsigned long long)bits);
    } else {
        snprintf(buf, size, "0x%llx", (unsigned long long)bits);
    }
}

/* ------------------------------------------------------------------ */
/* One call and its check                                              */

/* A layout of segments: nseg + 1 offsets (host), or equal ones. */
typedef struct layout {
    const char *name;
    size_t nseg;
    size_t *offsets; /* host copy; for equal layouts, s * seg_len */
    int equal;
    size_t seg_len;
    /* Check every segment against duo_reduce, or every `sample`-th (and
     * the first and last few): for layouts of very many segments. */
    size_t sample;
} layout;

typedef struct arrays {
    void *dx;          /* device elements */
    size_t n;
    size_t *doffsets;  /* device offsets */
    void *dresult;     /* device results (values), nseg + GUARD */
    size_t *dindex;    /* device indices, nseg + GUARD */
    unsigned char *got, *got_index;
} arrays;

static int checked(const layout *l, size_t s)
{
    return l->sample <= 1 || s % l->sample == 0 || s < 4 || s + 4 >= l->nseg;
}

/* The first byte in [from, to) that is not poison, or SIZE_MAX. */
static size_t first_written(const unsigned char *p, size_t from, size_t to)
{
    for (size_t b = from; b < to; ++b)
        if (p[b] != TEST_POISON_BYTE)
            return b;
    return SIZE_MAX;
}

/* The reference for segment s: duo_reduce / duo_reduce_arg on it alone,
 * or the identity. */
static void reference(const type_info *t, duo_reduce_op op, int arg,
                      const void *dx, size_t first, size_t len,
                      void *value, size_t *index)
{
    identity(t, op, value);
    *index = SIZE_MAX;
    if (len == 0)
        return;
    const void *seg = (const char *)dx + first * t->size;
    if (arg)
        CHECK_OK(duo_reduce_arg(op, t->type, seg, len, index, value));
    else
        CHECK_OK(duo_reduce(op, t->type, seg, len, value));
}

static duo_status call(const type_info *t, duo_reduce_op op, int arg,
                       const layout *l, const arrays *a, int with_value,
                       duo_stream stream)
{
    void *value = arg && !with_value ? NULL : a->dresult;
    if (l->equal)
        return arg ? duo_segmented_reduce_arg_equal(op, t->type, a->dx,
                                                    l->seg_len, l->nseg,
                                                    a->dindex, value, stream)
                   : duo_segmented_reduce_equal(op, t->type, a->dx,
                                                l->seg_len, l->nseg, value,
                                                stream);
    return arg ? duo_segmented_reduce_arg(op, t->type, a->dx, a->n,
                                          a->doffsets, l->nseg, a->dindex,
                                          value, stream)
               : duo_segmented_reduce(op, t->type, a->dx, a->n, a->doffsets,
                                      l->nseg, value, stream);
}

static void poison_outputs(const arrays *a, size_t nseg)
{
    CHECK_OK(duo_memset(a->dresult, TEST_POISON_BYTE, (nseg + GUARD) * 8));
    CHECK_OK(duo_memset(a->dindex, TEST_POISON_BYTE,
                        (nseg + GUARD) * sizeof(size_t)));
}

/* Segmented (op, type[, arg]) over layout l: results against the
 * references, the guard untouched. */
static void check_case(const type_info *t, duo_reduce_op op, int arg,
                       const layout *l, const arrays *a, duo_stream stream)
{
    const size_t rsize = arg ? t->size : result_size(t, op);
    const int with_value = !arg || l->nseg % 2 == 0;
    test_set_context("%s %s %s (%zu segments)%s", op_name(op, arg), t->name,
                     l->name, l->nseg,
                     stream != NULL ? " on a stream" : "");
    poison_outputs(a, l->nseg);
    CHECK_OK(call(t, op, arg, l, a, with_value, stream));
    CHECK_OK(stream != NULL ? duo_stream_synchronize(stream)
                            : duo_synchronize());
    test_to_host(a->got, a->dresult, (l->nseg + GUARD) * rsize);
    test_to_host(a->got_index, a->dindex, (l->nseg + GUARD) * sizeof(size_t));
    size_t bad = 0;
    for (size_t s = 0; s < l->nseg && bad < 5; ++s) {
        if (!checked(l, s))
            continue;
        const size_t first = l->offsets[s];
        const size_t len = l->offsets[s + 1] - first;
        unsigned char want[8];
        size_t want_index;
        reference(t, op, arg, a->dx, first, len, want, &want_index);
        size_t got_index;
        memcpy(&got_index, a->got_index + s * sizeof(size_t),
               sizeof got_index);
        const unsigned char *got = a->got + s * rsize;
        const int value_ok = (arg && !with_value) ||
                             memcmp(got, want, rsize) == 0;
        const int index_ok = !arg || got_index == want_index;
        if (!value_ok || !index_ok) {
            char g[64], w[64];
            show(t, rsize, got, g, sizeof g);
            show(t, rsize, want, w, sizeof w);
            CHECK_MSG(0, "segment %zu [%zu, +%zu): got %s index %zu, want %s "
                      "index %zu", s, first, len, g,
                      arg ? got_index : 0, w, arg ? want_index : 0);
            ++bad;
        }
    }
    CHECK(bad == 0);
    /* Nothing past the results, no index in the value forms, no value
     * when value is NULL. */
    const size_t values_end = arg && !with_value ? 0 : l->nseg * rsize;
    const size_t index_end = arg ? l->nseg * sizeof(size_t) : 0;
    size_t at = first_written(a->got, values_end, (l->nseg + GUARD) * rsize);
    CHECK_MSG(at == SIZE_MAX, "result byte %zu written (nseg = %zu)", at,
              l->nseg);
    at = first_written(a->got_index, index_end,
                       (l->nseg + GUARD) * sizeof(size_t));
    CHECK_MSG(at == SIZE_MAX, "index byte %zu written (nseg = %zu)", at,
              l->nseg);
}

/* Every (op, type) on layout l over elements of each type. */
static void check_layout(const layout *l, arrays *a, duo_stream stream)
{
    const size_t end = l->offsets[l->nseg];
    CHECK(end <= a->n);
    if (!l->equal)
        test_to_device(a->doffsets, l->offsets,
                       (l->nseg + 1) * sizeof(size_t));
    for (size_t k = 0; k < NTYPES; ++k) {
        const type_info *t = &types[k];
        void *hx = test_xmalloc(end * t->size + 1);
        fill(t, hx, end);
        test_to_device(a->dx, hx, end * t->size);
        free(hx);
        const duo_reduce_op ops[] = {DUO_SUM, DUO_MIN, DUO_MAX};
        for (int o = 0; o < 3; ++o)
            check_case(t, ops[o], 0, l, a, stream);
        check_case(t, DUO_MIN, 1, l, a, stream);
        check_case(t, DUO_MAX, 1, l, a, stream);
    }
}

/* ------------------------------------------------------------------ */
/* Layouts                                                             */

static layout make_layout(const char *name, const size_t *lengths,
                          size_t nseg, size_t start)
{
    layout l;
    memset(&l, 0, sizeof l);
    l.name = name;
    l.nseg = nseg;
    l.offsets = (size_t *)test_xmalloc((nseg + 1) * sizeof(size_t));
    l.offsets[0] = start;
    for (size_t s = 0; s < nseg; ++s)
        l.offsets[s + 1] = l.offsets[s] + lengths[s];
    l.sample = 1;
    return l;
}

static layout make_equal(const char *name, size_t seg_len, size_t nseg)
{
    layout l;
    memset(&l, 0, sizeof l);
    l.name = name;
    l.nseg = nseg;
    l.equal = 1;
    l.seg_len = seg_len;
    l.offsets = (size_t *)test_xmalloc((nseg + 1) * sizeof(size_t));
    for (size_t s = 0; s <= nseg; ++s)
        l.offsets[s] = s * seg_len;
    l.sample = 1;
    return l;
}

static void run_layouts(arrays *a, duo_stream stream)
{
    /* Chunk boundaries: 1024 elements (4-byte) and 512 (8-byte) per
     * chunk of one step; 4 chunks; 2^20 and 2^19 (1024 chunks); steps
     * grow past 2^21 (4-byte) and 2^20 (8-byte). */
    static const size_t mixed[] = {
        0,    1,    2,    3,    31,    97,   511,  512,  513,  0,
        1021, 1023, 1024, 1025, 2047,  2048, 2049, 4095, 4096, 4097,
        8191, 0,    0,    7,    65537, 1,    1000003};
    static const size_t few[] = {((size_t)1 << 21) + 5, 0, (size_t)1 << 20,
                                 ((size_t)1 << 20) + 1025};
    static const size_t one[] = {((size_t)1 << 22) + 3};
    /* More than 32 segments (one block per group on the GPU), one of
     * them long enough for chunks of several steps, its last chunk
     * partial. */
    size_t long_among_short[40];
    for (size_t s = 0; s < 40; ++s)
        long_among_short[s] = (size_t)test_rng_range(&rng, 0, 3000);
    long_among_short[17] = ((size_t)1 << 21) + 517;
    layout layouts[10];
    size_t count = 0;
    layouts[count++] = make_layout("mixed lengths, aligned start", mixed,
                                   sizeof mixed / sizeof mixed[0], 0);
    layouts[count++] = make_layout("mixed lengths, start 3", mixed,
                                   sizeof mixed / sizeof mixed[0], 3);
    layouts[count++] =
        make_layout("few long segments", few, sizeof few / sizeof few[0], 1);
    layouts[count++] = make_layout("one segment of 2^22 + 3", one, 1, 0);
    layouts[count++] =
        make_layout("40 segments, one of 2^21 + 517", long_among_short, 40, 0);
    layouts[count++] = make_layout("40 segments, one of 2^21 + 517, start 3",
                                   long_among_short, 40, 3);
    /* Many short segments of random lengths 0 .. 300. */
    {
        const size_t nseg = 3001;
        size_t *len = (size_t *)test_xmalloc(nseg * sizeof(size_t));
        for (size_t s = 0; s < nseg; ++s)
            len[s] = (size_t)test_rng_range(&rng, 0, 300);
        layouts[count++] = make_layout("3001 random lengths", len, nseg, 5);
        free(len);
    }
    layouts[count++] = make_equal("equal 1025 x 33", 1025, 33);
    layouts[count++] = make_equal("equal 4096 x 7", 4096, 7);
    layouts[count++] = make_equal("equal 0 x 5", 0, 5);
    for (size_t k = 0; k < count; ++k) {
        if (test_quick() && layouts[k].nseg > 64)
            layouts[k].sample = 31;
        check_layout(&layouts[k], a, stream);
        free(layouts[k].offsets);
    }
}

/* More segments than one grid takes (2^16 blocks of up to 8 segments
 * each on the GPU), so that blocks take several groups: lengths 0 to
 * 2, the sum of f64 and the argmax of i32, every 4099th segment checked
 * against duo_reduce (and the first and last few). */
static void run_very_many(arrays *big)
{
    const size_t nseg = ((size_t)1 << 20) + 77;
    size_t *len = (size_t *)test_xmalloc(nseg * sizeof(size_t));
    for (size_t s = 0; s < nseg; ++s)
        len[s] = (size_t)test_rng_range(&rng, 0, 2);
    layout l = make_layout("2^20 + 77 segments", len, nseg, 0);
    l.sample = 4099;
    free(len);
    test_to_device(big->doffsets, l.offsets, (nseg + 1) * sizeof(size_t));
    const size_t end = l.offsets[nseg];
    for (int k = 0; k < 2; ++k) {
        const type_info *t = &types[k == 0 ? 1 : 2];
        void *hx = test_xmalloc(end * t->size);
        fill(t, hx, end);
        test_to_device(big->dx, hx, end * t->size);
        free(hx);
        if (k == 0)
            check_case(t, DUO_SUM, 0, &l, big, NULL);
        else
            check_case(t, DUO_MAX, 1, &l, big, NULL);
    }
    free(l.offsets);
}

static arrays alloc_arrays(size_t n, size_t nseg)
{
    arrays a;
    a.n = n;
    a.dx = test_device_alloc(n * 8 + 16);
    a.doffsets = (size_t *)test_device_alloc((nseg + 1) * sizeof(size_t));
    a.dresult = test_device_alloc((nseg + GUARD) * 8);
    a.dindex = (size_t *)test_device_alloc((nseg + GUARD) * sizeof(size_t));
    a.got = (unsigned char *)test_xmalloc((nseg + GUARD) * 8);
    a.got_index =
        (unsigned char *)test_xmalloc((nseg + GUARD) * sizeof(size_t));
    return a;
}

static void free_arrays(arrays *a)
{
    CHECK_OK(duo_free(a->dx));
    CHECK_OK(duo_free(a->doffsets));
    CHECK_OK(duo_free(a->dresult));
    CHECK_OK(duo_free(a->dindex));
    free(a->got);
    free(a->got_index);
}

/* ------------------------------------------------------------------ */
/* A captured graph replays the call                                   */

typedef struct graph_ctx {
    const arrays *a;
    size_t nseg;
    duo_stream stream;
} graph_ctx;

static duo_status graph_body(void *p)
{
    const graph_ctx *g = (const graph_ctx *)p;
    return duo_segmented_reduce(DUO_SUM, DUO_F32, g->a->dx, g->a->n,
                                g->a->doffsets, g->nseg, g->a->dresult,
                                g->stream);
}

static void test_graph(arrays *a, duo_stream stream)
{
    test_set_context("segmented sum f32 in a captured graph");
    static const size_t lengths[] = {5, 0, 4097, 1, 1024};
    layout l = make_layout("graph", lengths, 5, 2);
    test_to_device(a->doffsets, l.offsets, 6 * sizeof(size_t));
    const size_t end = l.offsets[5];
    float *hx = (float *)test_xmalloc(end * sizeof(float));
    fill(&types[0], hx, end);
    test_to_device(a->dx, hx, end * sizeof(float));
    free(hx);
    graph_ctx ctx = {a, 5, stream};
    duo_graph graph = NULL;
    CHECK_OK(duo_graph_capture(stream, graph_body, &ctx, &graph));
    for (int replay = 0; replay < 2; ++replay) {
        poison_outputs(a, 5);
        CHECK_OK(duo_graph_launch(graph, stream));
        CHECK_OK(duo_stream_synchronize(stream));
        test_to_host(a->got, a->dresult, 5 * 8);
        for (size_t s = 0; s < 5; ++s) {
            double want;
            size_t unused;
            reference(&types[0], DUO_SUM, 0, a->dx, l.offsets[s],
                      l.offsets[s + 1] - l.offsets[s], &want, &unused);
            double got;
            memcpy(&got, a->got + s * 8, 8);
            CHECK_BITS_F64(got, want);
        }
    }
    CHECK_OK(duo_graph_destroy(graph));
    free(l.offsets);
}

/* ------------------------------------------------------------------ */
/* Bad arguments                                                       */

/* All results still poisoned. */
static void check_untouched(const arrays *a, size_t nseg)
{
    test_to_host(a->got, a->dresult, (nseg + GUARD) * 8);
    test_to_host(a->got_index, a->dindex, (nseg + GUARD) * sizeof(size_t));
    for (size_t b = 0; b < (nseg + GUARD) * 8; ++b)
        if (a->got[b] != TEST_POISON_BYTE) {
            CHECK_MSG(0, "result byte %zu written by a refused call", b);
            return;
        }
    for (size_t b = 0; b < (nseg + GUARD) * sizeof(size_t); ++b)
        if (a->got_index[b] != TEST_POISON_BYTE) {
            CHECK_MSG(0, "index byte %zu written by a refused call", b);
            return;
        }
}

#define CHECK_REFUSED(call_, word)                                         \
    do {                                                                   \
        poison_outputs(a, nseg);                                           \
        CHECK_STATUS(call_, DUO_ERROR_INVALID_ARGUMENT);                   \
        CHECK_CONTAINS_WORD(duo_last_error(), word);                       \
        check_untouched(a, nseg);                                          \
    } while (0)

/* Bad offsets: the call fails (CPU) or succeeds and the next wait fails
 * (GPU); either way the message names the function and the offset, and
 * nothing is written.  The next wait after that succeeds. */
static void check_bad_offsets(arrays *a, const size_t *offsets, size_t nseg,
                              size_t n, int arg, const char *needle,
                              duo_stream stream)
{
    test_to_device(a->doffsets, offsets, (nseg + 1) * sizeof(size_t));
    poison_outputs(a, nseg);
    const duo_status called =
        arg ? duo_segmented_reduce_arg(DUO_MIN, DUO_F64, a->dx, n,
                                       a->doffsets, nseg, a->dindex,
                                       a->dresult, stream)
            : duo_segmented_reduce(DUO_SUM, DUO_F64, a->dx, n, a->doffsets,
                                   nseg, a->dresult, stream);
    if (test_on_gpu()) {
        CHECK_OK(called);
        CHECK_STATUS(stream != NULL ? duo_stream_synchronize(stream)
                                    : duo_synchronize(),
                     DUO_ERROR_INVALID_ARGUMENT);
    } else {
        CHECK_STATUS(called, DUO_ERROR_INVALID_ARGUMENT);
    }
    CHECK_CONTAINS(duo_last_error(), "duo_segmented_reduce");
    CHECK_CONTAINS(duo_last_error(), needle);
    CHECK_OK(stream != NULL ? duo_stream_synchronize(stream)
                            : duo_synchronize());
    check_untouched(a, nseg);
}

/* Bad offsets over many segments, or few long ones: nseg segments of
 * one element each (offsets[s] = s, n = nseg), then one entry made bad,
 * twice: offsets[nseg - 1] past the next (decreasing), then offsets[nseg]
 * past n.  With long = 1, segments of len elements instead.  The GPU
 * checks up to 2047 segments in the reduction's own blocks and more in a
 * kernel of its own; 2047 and 2048 fall on either side, and 4 long
 * segments take several blocks each. */
static void check_bad_offsets_at(arrays *a, size_t nseg, size_t len,
                                 duo_stream stream)
{
    size_t *offsets = (size_t *)test_xmalloc((nseg + 1) * sizeof(size_t));
    const size_t n = nseg * len;
    char needle[96];
    for (size_t s = 0; s <= nseg; ++s)
        offsets[s] = s * len;
    offsets[nseg - 1] = n + 5;
    snprintf(needle, sizeof needle, "offsets[%zu] = %zu > offsets[%zu] = %zu",
             nseg - 1, n + 5, nseg, n);
    check_bad_offsets(a, offsets, nseg, n, 0, needle, stream);
    offsets[nseg - 1] = (nseg - 1) * len;
    offsets[nseg] = n + 1;
    snprintf(needle, sizeof needle, "offsets[%zu] = %zu > n = %zu", nseg,
             n + 1, n);
    check_bad_offsets(a, offsets, nseg, n, 1, needle, NULL);
    free(offsets);
}

static void test_errors(arrays *a, duo_stream stream)
{
    const size_t nseg = 6;
    static const size_t good[] = {0, 3, 3, 10, 200, 201, 300};
    const size_t n = 300;
    test_set_context("segmented reduce errors");
    test_to_device(a->doffsets, good, sizeof good);
    const duo_reduce_op bad_op = (duo_reduce_op)7;
    const duo_dtype bad_type = (duo_dtype)9;
    CHECK_REFUSED(duo_segmented_reduce(bad_op, DUO_F32, a->dx, n, a->doffsets,
                                       nseg, a->dresult, NULL),
                  "op");
    CHECK_REFUSED(duo_segmented_reduce(DUO_SUM, bad_type, a->dx, n,
                                       a->doffsets, nseg, a->dresult, NULL),
                  "type");
    CHECK_REFUSED(duo_segmented_reduce_arg(DUO_SUM, DUO_F32, a->dx, n,
                                           a->doffsets, nseg, a->dindex,
                                           a->dresult, NULL),
                  "op");
    CHECK_REFUSED(duo_segmented_reduce(DUO_SUM, DUO_F32, NULL, n, a->doffsets,
                                       nseg, a->dresult, NULL),
                  "x");
    CHECK_REFUSED(duo_segmented_reduce(DUO_SUM, DUO_F32, a->dx, n, NULL, nseg,
                                       a->dresult, NULL),
                  "offsets");
    CHECK_REFUSED(duo_segmented_reduce(DUO_SUM, DUO_F32, a->dx, n,
                                       (const size_t *)((char *)a->doffsets +
                                                        4),
                                       nseg, a->dresult, NULL),
                  "offsets");
    CHECK_REFUSED(duo_segmented_reduce(DUO_SUM, DUO_F32, a->dx, n,
                                       a->doffsets, nseg, NULL, NULL),
                  "result");
    CHECK_REFUSED(duo_segmented_reduce(DUO_SUM, DUO_F32, a->dx, n,
                                       a->doffsets, nseg,
                                       (char *)a->dresult + 4, NULL),
                  "result");
    CHECK_REFUSED(duo_segmented_reduce_arg(DUO_MAX, DUO_F32, a->dx, n,
                                           a->doffsets, nseg, NULL,
                                           a->dresult, NULL),
                  "index");
    CHECK_REFUSED(duo_segmented_reduce_arg(DUO_MAX, DUO_F64, a->dx, n,
                                           a->doffsets, nseg, a->dindex,
                                           (char *)a->dresult + 4, NULL),
                  "value");
    CHECK_REFUSED(duo_segmented_reduce(DUO_SUM, DUO_F64, a->dx, SIZE_MAX / 4,
                                       a->doffsets, nseg, a->dresult, NULL),
                  "n");
    CHECK_REFUSED(duo_segmented_reduce(DUO_SUM, DUO_F64, a->dx, n,
                                       a->doffsets, SIZE_MAX / 4, a->dresult,
                                       NULL),
                  "nseg");
    CHECK_REFUSED(duo_segmented_reduce_equal(DUO_MIN, DUO_F32, a->dx,
                                             SIZE_MAX / 8, 3, a->dresult,
                                             NULL),
                  "seg_len");
    CHECK_REFUSED(duo_segmented_reduce_arg_equal(DUO_MIN, DUO_I64, NULL, 4,
                                                 3, a->dindex, NULL, NULL),
                  "x");

    /* No segments: nothing to do, nothing written (x may be NULL). */
    poison_outputs(a, nseg);
    CHECK_OK(duo_segmented_reduce(DUO_SUM, DUO_F32, NULL, 0, a->doffsets, 0,
                                  NULL, NULL));
    CHECK_OK(duo_segmented_reduce_equal(DUO_MAX, DUO_I32, NULL, 0, 0, NULL,
                                        NULL));
    CHECK_OK(duo_synchronize());
    check_untouched(a, nseg);

    /* Offsets that decrease, or run past n: refused as a whole. */
    static const size_t down[] = {0, 3, 3, 10, 9, 201, 300};
    static const size_t past[] = {0, 3, 3, 10, 200, 201, 301};
    static const size_t first_past[] = {301, 302, 303, 304, 305, 306, 307};
    check_bad_offsets(a, down, nseg, n, 0, "offsets[3] = 10 > offsets[4] = 9",
                      NULL);
    check_bad_offsets(a, down, nseg, n, 1, "offsets[3] = 10 > offsets[4] = 9",
                      stream);
    check_bad_offsets(a, past, nseg, n, 0, "offsets[6] = 301 > n = 300",
                      stream);
    check_bad_offsets(a, first_past, nseg, n, 1,
                      "offsets[6] = 307 > n = 300", NULL);
    check_bad_offsets_at(a, 2047, 1, stream);
    check_bad_offsets_at(a, 2048, 1, stream);
    check_bad_offsets_at(a, 4, (size_t)1 << 20, stream);

    /* A good call right after a bad one writes its results.  The good
     * offsets follow the bad call on its stream: a duo_memcpy would be a
     * wait of its own, which reports the bad call when it happens to
     * have finished by then. */
    test_to_device(a->doffsets, down, sizeof down);
    (void)duo_segmented_reduce(DUO_SUM, DUO_F64, a->dx, n, a->doffsets, nseg,
                               a->dresult, stream);
    CHECK_OK(duo_memcpy_async(a->doffsets, good, sizeof good,
                              DUO_HOST_TO_DEVICE, stream));
    CHECK_OK(duo_segmented_reduce(DUO_MAX, DUO_F64, a->dx, n, a->doffsets,
                                  nseg, a->dresult, stream));
    CHECK_STATUS(duo_stream_synchronize(stream),
                 test_on_gpu() ? DUO_ERROR_INVALID_ARGUMENT : DUO_SUCCESS);
    test_to_host(a->got, a->dresult, nseg * 8);
    for (size_t s = 0; s < nseg; ++s) {
        unsigned char want[8];
        size_t unused;
        reference(&types[1], DUO_MAX, 0, a->dx, good[s], good[s + 1] - good[s],
                  want, &unused);
        CHECK_MSG(memcmp(a->got + s * 8, want, 8) == 0,
                  "segment %zu after a refused call", s);
    }
    test_set_context("%s", "");
}

int main(void)
{
    test_rng_seed(&rng, 0x5365676D656E74ULL);
    test_init_or_skip();
    const double t0 = test_seconds();
    duo_stream stream;
    CHECK_OK(duo_stream_create(&stream));

    /* Room for the longest layout (few long segments: 2^22 + 1031). */
    arrays a = alloc_arrays(((size_t)1 << 22) + 4096, 4096);
#ifdef _OPENMP
    const int thread_counts[] = {1, 2, 3};
    for (int k = 0; k < 3; ++k) {
        omp_set_num_threads(thread_counts[k]);
        printf("segmented: %d OpenMP thread(s)\n", thread_counts[k]);
        run_layouts(&a, k == 1 ? stream : NULL);
    }
#else
    run_layouts(&a, NULL);
    run_layouts(&a, stream);
#endif
    test_graph(&a, stream);
    test_errors(&a, stream);
    free_arrays(&a);

    const size_t many = ((size_t)1 << 20) + 77;
    arrays big = alloc_arrays(2 * many + 16, many);
    run_very_many(&big);
    free_arrays(&big);

    CHECK_OK(duo_stream_destroy(stream));
    CHECK_OK(duo_finalize());
    printf("segmented: %.2f s\n", test_seconds() - t0);
    return test_summary("segmented");
}
