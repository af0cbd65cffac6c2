/*
 * test_async.c - duo_reduce_async and duo_dot_async.
 *
 *  - duo_reduce_async gives the bits of duo_reduce (test_reduce checks
 *    those against an independent reference) for every op and type, at
 *    sizes 0 (sums), 1, primes, around chunk and 1024-chunk boundaries,
 *    aligned and one element off, on the default stream and on streams
 *    of its own, two streams at a time.
 *  - duo_dot_async, 1 to DUO_DOT_MAX products, is checked bit for bit
 *    against test_order_sum over products formed on the host (the order
 *    restated from src/reduce_order.h's prose), and within the error
 *    bound n u sum|x_i y_i| of a compensated long double sum.  For f64 it
 *    must also equal duo_reduce of the product array, as duo.h promises.
 *  - Results land in poisoned device memory; bad arguments leave it
 *    poisoned and return DUO_ERROR_INVALID_ARGUMENT.
 */
#include <math.h>
#include <stdlib.h>

#include "test_util.h"

static test_rng rng;

static const duo_dtype TYPES[] = {DUO_F32, DUO_F64, DUO_I32, DUO_I64,
                                  DUO_U64};
static const char *const TYPE_NAMES[] = {"f32", "f64", "i32", "i64", "u64"};
static const char *const OP_NAMES[] = {"sum", "min", "max"};

/* Sizes: the empty sum, tiny, primes, a chunk (256 lanes x 2 or 4) and
 * one more, 1024 chunks and one more (the last block folds 1024 slots;
 * beyond, chunk c goes to slot c % 1024), and a size with 16 steps per
 * chunk. */
static const size_t SIZES[] = {0,    1,     2,      7,       31,     257,
                               511,  512,   513,    1021,    1025,   4093,
                               65537, 524289, 1048579, 4194319, 16777259};
#define NSIZES (sizeof SIZES / sizeof SIZES[0])
#define MAX_N 16777259

static void fill(duo_dtype type, void *x, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        switch (type) {
        case DUO_F32: ((float *)x)[i] = test_rng_wide_f(&rng, -20, 20); break;
        case DUO_F64: ((double *)x)[i] = test_rng_wide(&rng, -40, 40); break;
        case DUO_I32: ((int32_t *)x)[i] = (int32_t)test_rng_u32(&rng); break;
        case DUO_I64: ((int64_t *)x)[i] = (int64_t)test_rng_u64(&rng); break;
        case DUO_U64: ((uint64_t *)x)[i] = test_rng_u64(&rng); break;
        }
    }
}

static size_t result_size(duo_reduce_op op, duo_dtype type)
{
    return op == DUO_SUM ? 8 : duo_dtype_size(type);
}

/* One (op, type, n, offset) case: async on `stream` into device memory,
 * against duo_reduce. */
static void check_reduce(duo_reduce_op op, int ti, const unsigned char *dx,
                         size_t n, duo_stream stream, unsigned char *dres)
{
    const duo_dtype type = TYPES[ti];
    const size_t rs = result_size(op, type);
    unsigned char want[8], got[8];
    memset(want, 0, sizeof want);
    if (!CHECK_OK(duo_reduce(op, type, dx, n, want)))
        return;
    test_poison_bytes(got, sizeof got);
    test_to_device(dres, got, 8);
    if (!CHECK_OK(duo_reduce_async(op, type, dx, n, dres, stream)))
        return;
    CHECK_OK(duo_stream_synchronize(stream));
    test_to_host(got, dres, rs);
    CHECK_MSG(memcmp(got, want, rs) == 0,
              "%s %s n=%zu: async result differs from duo_reduce's "
              "(first bytes %02x%02x%02x%02x vs %02x%02x%02x%02x)",
              OP_NAMES[op], TYPE_NAMES[ti], n, got[0], got[1], got[2],
              got[3], want[0], want[1], want[2], want[3]);
}

static void test_reduce_async(duo_stream own)
{
    unsigned char *dres = (unsigned char *)test_device_alloc(8);
    for (int ti = 0; ti < 5; ++ti) {
        const size_t size = duo_dtype_size(TYPES[ti]);
        unsigned char *hx = (unsigned char *)test_xmalloc((MAX_N + 1) * size);
        unsigned char *dx =
            (unsigned char *)test_device_alloc((MAX_N + 1) * size);
        fill(TYPES[ti], hx, MAX_N + 1);
        test_to_device(dx, hx, (MAX_N + 1) * size);
        for (size_t si = 0; si < NSIZES; ++si) {
            const size_t n = SIZES[si];
            /* The biggest sizes on sums only: min / max share the code. */
            const int ops = n > 1048579 ? 1 : 3;
            for (int op = 0; op < ops; ++op) {
                if (n == 0 && op != DUO_SUM)
                    continue;
                for (int off = 0; off <= 1; ++off) {
                    test_set_context("reduce_async %s %s n=%zu offset=%d",
                                     OP_NAMES[op], TYPE_NAMES[ti], n, off);
                    check_reduce((duo_reduce_op)op, ti, dx + off * size, n,
                                 off ? own : NULL, dres);
                }
            }
        }
        CHECK_OK(duo_free(dx));
        free(hx);
    }
    CHECK_OK(duo_free(dres));
}

/* Two streams at once, each with reductions queued back to back: each
 * stream's scratch is its own, so no result takes another's partials. */
static void test_two_streams(void)
{
    test_set_context("two streams");
    const size_t n = 3000017;
    double *hx = (double *)test_xmalloc(2 * n * sizeof(double));
    for (size_t i = 0; i < 2 * n; ++i)
        hx[i] = test_rng_wide(&rng, -30, 30);
    double *dx = (double *)test_device_alloc(2 * n * sizeof(double));
    test_to_device(dx, hx, 2 * n * sizeof(double));
    double want[2];
    CHECK_OK(duo_reduce(DUO_SUM, DUO_F64, dx, n, &want[0]));
    CHECK_OK(duo_reduce(DUO_SUM, DUO_F64, dx + n, n, &want[1]));
    duo_stream s[2] = {NULL, NULL};
    CHECK_OK(duo_stream_create(&s[0]));
    CHECK_OK(duo_stream_create(&s[1]));
    enum { ROUNDS = 20 };
    double *dres = (double *)test_device_alloc(2 * ROUNDS * sizeof(double));
    double got[2 * ROUNDS];
    test_poison_f64(got, 2 * ROUNDS);
    test_to_device(dres, got, sizeof got);
    for (int r = 0; r < ROUNDS; ++r)
        for (int k = 0; k < 2; ++k)
            CHECK_OK(duo_reduce_async(DUO_SUM, DUO_F64, dx + k * n, n,
                                      dres + 2 * r + k, s[k]));
    CHECK_OK(duo_synchronize());
    test_to_host(got, dres, sizeof got);
    for (int r = 0; r < ROUNDS; ++r)
        for (int k = 0; k < 2; ++k)
            CHECK_BITS_F64(got[2 * r + k], want[k]);
    CHECK_OK(duo_stream_destroy(s[0]));
    CHECK_OK(duo_stream_destroy(s[1]));
    CHECK_OK(duo_free(dres));
    CHECK_OK(duo_free(dx));
    free(hx);
}

/* ------------------------------------------------------------------ */
/* Dot products                                                        */

typedef struct {
    const void *x, *y;
    size_t elem_size;
} product_input;

/* The product the library must form: exact for floats, rounded once for
 * doubles (a multiplication of its own, never fused with the sum). */
static double product(const void *ctx, size_t i)
{
    const product_input *in = (const product_input *)ctx;
    if (in->elem_size == 4)
        return (double)((const float *)in->x)[i] *
               (double)((const float *)in->y)[i];
    const double p = ((const double *)in->x)[i] * ((const double *)in->y)[i];
    return p;
}

/* |dot - exact| <= n u sum |x_i y_i| (the products' rounding included),
 * exact from a compensated long double sum of the exact products. */
static void check_dot_bound(const product_input *in, size_t n, double got)
{
    long double s = 0.0L, c = 0.0L, a = 0.0L;
    for (size_t i = 0; i < n; ++i) {
        long double v;
        if (in->elem_size == 4)
            v = (long double)((const float *)in->x)[i] *
                (long double)((const float *)in->y)[i];
        else
            v = (long double)((const double *)in->x)[i] *
                (long double)((const double *)in->y)[i];
        const long double t = s + v;
        c += fabsl(s) >= fabsl(v) ? (s - t) + v : (v - t) + s;
        s = t;
        a += fabsl(v);
    }
    const long double exact = s + c;
    const long double bound =
        ((long double)n * ldexpl(1.0L, -53) + ldexpl(1.0L, -62)) * a;
    CHECK_MSG(fabsl((long double)got - exact) <= bound,
              "dot error bound: got %.17g, exact %.20Lg, bound %.3Lg", got,
              exact, bound);
}

static void test_dot(duo_dtype type, duo_stream stream)
{
    const size_t size = duo_dtype_size(type);
    /* Four distinct vectors; products pair them as (a,b) (c,d) (a,a)
     * (b,c), so aliasing and a squared norm are covered. */
    enum { VECS = 4 };
    unsigned char *h[VECS], *d[VECS];
    for (int v = 0; v < VECS; ++v) {
        h[v] = (unsigned char *)test_xmalloc((MAX_N + 1) * size);
        d[v] = (unsigned char *)test_device_alloc((MAX_N + 1) * size);
        fill(type, h[v], MAX_N + 1);
        test_to_device(d[v], h[v], (MAX_N + 1) * size);
    }
    const int px[DUO_DOT_MAX] = {0, 2, 0, 1}, py[DUO_DOT_MAX] = {1, 3, 0, 2};
    double *dres = (double *)test_device_alloc(DUO_DOT_MAX * sizeof(double));
    double *dw = type == DUO_F64 ? (double *)test_device_alloc(
                                       (MAX_N + 1) * sizeof(double))
                                 : NULL;
    double *hw = type == DUO_F64 ? (double *)test_xmalloc(
                                       (MAX_N + 1) * sizeof(double))
                                 : NULL;
    for (size_t si = 0; si < NSIZES; ++si) {
        const size_t n = SIZES[si];
        for (int off = 0; off <= 1; ++off) {
            const int count = 1 + (int)((si + (size_t)off) % DUO_DOT_MAX);
            const void *xs[DUO_DOT_MAX], *ys[DUO_DOT_MAX];
            for (int k = 0; k < count; ++k) {
                xs[k] = d[px[k]] + off * size;
                ys[k] = d[py[k]] + off * size;
            }
            test_set_context("dot %s n=%zu offset=%d count=%d",
                             type == DUO_F32 ? "f32" : "f64", n, off, count);
            double got[DUO_DOT_MAX];
            test_poison_f64(got, DUO_DOT_MAX);
            test_to_device(dres, got, sizeof got);
            if (!CHECK_OK(duo_dot_async(type, n, count, xs, ys, dres,
                                        stream)))
                continue;
            CHECK_OK(duo_stream_synchronize(stream));
            test_to_host(got, dres, sizeof got);
            for (int k = count; k < DUO_DOT_MAX; ++k)
                CHECK_MSG(test_is_poison_f64(got[k]),
                          "result[%d] written past count %d", k, count);
            for (int k = 0; k < count; ++k) {
                product_input in = {h[px[k]] + off * size,
                                    h[py[k]] + off * size, size};
                CHECK_BITS_F64(got[k], test_order_sum(n, size, product, &in));
                if (n <= 1048579)
                    check_dot_bound(&in, n, got[k]);
                if (type == DUO_F64 && k == 0) {
                    /* duo.h: the bits of duo_reduce over the products. */
                    for (size_t i = 0; i < n; ++i)
                        hw[i] = product(&in, i);
                    test_to_device(dw, hw, n * sizeof(double));
                    double want = 0.0;
                    if (CHECK_OK(duo_reduce(DUO_SUM, DUO_F64, dw, n, &want)))
                        CHECK_BITS_F64(got[0], want);
                }
            }
        }
    }
    for (int v = 0; v < VECS; ++v) {
        CHECK_OK(duo_free(d[v]));
        free(h[v]);
    }
    CHECK_OK(duo_free(dres));
    CHECK_OK(duo_free(dw));
    free(hw);
}

/* ------------------------------------------------------------------ */
/* Bad arguments: clear statuses, device results left alone.           */

static void check_untouched(const double *dres)
{
    double got[DUO_DOT_MAX];
    test_to_host(got, dres, sizeof got);
    for (int k = 0; k < DUO_DOT_MAX; ++k)
        CHECK_MSG(test_is_poison_f64(got[k]), "result[%d] was written", k);
}

static void test_errors(void)
{
    test_set_context("errors");
    double *dx = (double *)test_device_alloc(16 * sizeof(double));
    double *dres = (double *)test_device_alloc(DUO_DOT_MAX * sizeof(double));
    double h[16];
    for (int i = 0; i < 16; ++i)
        h[i] = 1.0 + i;
    test_to_device(dx, h, sizeof h);
    double poison[DUO_DOT_MAX];
    test_poison_f64(poison, DUO_DOT_MAX);
    test_to_device(dres, poison, sizeof poison);

    const duo_status BAD = DUO_ERROR_INVALID_ARGUMENT;
    CHECK_STATUS(duo_reduce_async((duo_reduce_op)7, DUO_F64, dx, 16, dres,
                                  NULL), BAD);
    CHECK_CONTAINS_WORD(duo_last_error(), "op");
    CHECK_STATUS(duo_reduce_async(DUO_SUM, (duo_dtype)9, dx, 16, dres, NULL),
                 BAD);
    CHECK_CONTAINS_WORD(duo_last_error(), "type");
    CHECK_STATUS(duo_reduce_async(DUO_SUM, DUO_F64, NULL, 16, dres, NULL),
                 BAD);
    CHECK_CONTAINS_WORD(duo_last_error(), "x");
    CHECK_STATUS(duo_reduce_async(DUO_SUM, DUO_F64, dx, 16, NULL, NULL), BAD);
    CHECK_CONTAINS_WORD(duo_last_error(), "result");
    CHECK_STATUS(duo_reduce_async(DUO_MAX, DUO_F64, dx, 0, dres, NULL), BAD);
    CHECK_CONTAINS(duo_last_error(), "n = 0");
    CHECK_STATUS(duo_reduce_async(DUO_SUM, DUO_F64, dx, 16,
                                  (char *)dres + 1, NULL), BAD);
    CHECK_CONTAINS_WORD(duo_last_error(), "result");

    const void *xs[DUO_DOT_MAX] = {dx, dx, dx, dx};
    const void *nulls[DUO_DOT_MAX] = {dx, NULL, dx, dx};
    CHECK_STATUS(duo_dot_async(DUO_I32, 16, 1, xs, xs, dres, NULL), BAD);
    CHECK_CONTAINS_WORD(duo_last_error(), "type");
    CHECK_STATUS(duo_dot_async(DUO_F64, 16, 0, xs, xs, dres, NULL), BAD);
    CHECK_CONTAINS_WORD(duo_last_error(), "count");
    CHECK_STATUS(duo_dot_async(DUO_F64, 16, DUO_DOT_MAX + 1, xs, xs, dres,
                               NULL), BAD);
    CHECK_CONTAINS_WORD(duo_last_error(), "count");
    CHECK_STATUS(duo_dot_async(DUO_F64, 16, 2, NULL, xs, dres, NULL), BAD);
    CHECK_CONTAINS_WORD(duo_last_error(), "x");
    CHECK_STATUS(duo_dot_async(DUO_F64, 16, 2, xs, nulls, dres, NULL), BAD);
    CHECK_CONTAINS(duo_last_error(), "y[1]");
    CHECK_STATUS(duo_dot_async(DUO_F64, 16, 2, xs, xs, NULL, NULL), BAD);
    CHECK_CONTAINS_WORD(duo_last_error(), "result");
    CHECK_STATUS(duo_dot_async(DUO_F64, 16, 2, xs, xs,
                               (double *)((char *)dres + 4), NULL), BAD);
    CHECK_CONTAINS_WORD(duo_last_error(), "result");
    CHECK_OK(duo_synchronize());
    check_untouched(dres);

    /* n = 0 needs no arrays: the empty dot product is 0. */
    const void *none[1] = {NULL};
    if (CHECK_OK(duo_dot_async(DUO_F64, 0, 1, none, none, dres, NULL))) {
        double got = 1.0;
        CHECK_OK(duo_synchronize());
        test_to_host(&got, dres, sizeof got);
        CHECK_BITS_F64(got, 0.0);
    }
    CHECK_OK(duo_free(dx));
    CHECK_OK(duo_free(dres));
}

int main(void)
{
    test_init_or_skip();
    test_rng_seed(&rng, 0x9a5c);
    duo_stream own = NULL;
    CHECK_OK(duo_stream_create(&own));
    test_reduce_async(own);
    test_two_streams();
    test_dot(DUO_F64, NULL);
    test_dot(DUO_F32, own);
    test_errors();
    CHECK_OK(duo_stream_destroy(own));
    CHECK_OK(duo_finalize());
    return test_summary("async");
}
