/*
 * test_user_reduce.c - user reductions (DUO_REDUCE_DEFINE) follow
 * duo_reduce's fixed order: their results must have the bits of
 * duo_reduce over the array of their element values, on every backend
 * and, where there is OpenMP, with 1, 2 and 3 threads.
 *
 *  - a float sum (accumulated in double, rounded once: (float) of
 *    duo_reduce's f32 sum), a double sum of a transform (x*x of floats,
 *    exact in double) against duo_reduce of the transformed array, a
 *    double sum, an int32 sum (wraps: the low 32 bits of duo_reduce's i32
 *    sum), a float max and a double min (with signed zeros) against
 *    duo_reduce's, and
 *    an argmax built as the max of a (value, reversed index) key against
 *    duo_reduce_arg's index and value;
 *  - sizes 0, 1, primes and the boundaries of the order +-1 for 4- and
 *    8-byte values: a chunk of one step (1024 and 512 values), four
 *    chunks, 1024 chunks (2^20 and 2^19), more than 1024 chunks of one
 *    step, two and four steps per chunk;
 *  - data over a wide range of magnitudes, so that another order would
 *    give other bits (test_reduce shows this for duo_reduce), and ties
 *    for the argmax.
 */
#include <math.h>
#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "test_util.h"

static test_rng rng;

/* ------------------------------------------------------------------ */
/* User reductions over device arrays                                  */

typedef struct farr {
    const float *x;
} farr;
typedef struct darr {
    const double *x;
} darr;
typedef struct iarr {
    const int32_t *x;
} iarr;

DUO_DEVICE float elem_f32(size_t i, farr a) { return a.x[i]; }
DUO_DEVICE double elem_square(size_t i, farr a)
{
    const double v = (double)a.x[i];
    return v * v;
}
DUO_DEVICE double elem_f64(size_t i, darr a) { return a.x[i]; }
DUO_DEVICE int32_t elem_i32(size_t i, iarr a) { return a.x[i]; }

/* Float bits mapped to an unsigned order (not NaN): the larger key is
 * the larger float. */
DUO_DEVICE uint32_t ordered_bits(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

/* Value in the high half, reversed index in the low: the max is the
 * largest value at its lowest index, as duo_reduce_arg(DUO_MAX) picks. */
DUO_DEVICE uint64_t key_of(float v, size_t i)
{
    return ((uint64_t)ordered_bits(v) << 32) |
           (uint64_t)(0xFFFFFFFFu - (uint32_t)i);
}
DUO_DEVICE uint64_t argmax_key(size_t i, farr a) { return key_of(a.x[i], i); }

DUO_REDUCE_DEFINE(user_sum_f32, float, DUO_SUM, elem_f32, farr)
DUO_REDUCE_DEFINE(user_sum_square, double, DUO_SUM, elem_square, farr)
DUO_REDUCE_DEFINE(user_sum_i32, int32_t, DUO_SUM, elem_i32, iarr)
DUO_REDUCE_DEFINE(user_max_f32, float, DUO_MAX, elem_f32, farr)
DUO_REDUCE_DEFINE(user_sum_f64, double, DUO_SUM, elem_f64, darr)
DUO_REDUCE_DEFINE(user_min_f64, double, DUO_MIN, elem_f64, darr)
DUO_REDUCE_DEFINE(user_argmax, uint64_t, DUO_MAX, argmax_key, farr)

/* ------------------------------------------------------------------ */

static float float_of_key(uint64_t key)
{
    uint32_t u = (uint32_t)(key >> 32);
    u = (u & 0x80000000u) ? (u & 0x7FFFFFFFu) : ~u;
    float v;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* Device inputs, and the transformed array for the sum of squares. */
typedef struct inputs {
    float *x;
    double *squares;
    double *d;
    int32_t *i32;
} inputs;

/* Fresh data for n elements.  Floats: small values over a wide range,
 * some repeated, and every tenth value in the first half huge (+-2^70 or
 * +-1.5 * 2^70: ties for the argmax) with its negation at the mirror
 * position, so that the float sum -- rounded from double -- is small and
 * made of the double sum's rounding errors: its bits tell orders apart.
 * Doubles over a wide range with signed zeros; full-range int32. */
static void fill(const inputs *in, size_t n)
{
    float *hx = (float *)test_xmalloc((n + 1) * sizeof(float));
    double *hs = (double *)test_xmalloc((n + 1) * sizeof(double));
    double *hd = (double *)test_xmalloc((n + 1) * sizeof(double));
    int32_t *hi = (int32_t *)test_xmalloc((n + 1) * sizeof(int32_t));
    for (size_t i = 0; i < n; ++i)
        hx[i] = i > 8 && i % 9 == 0 ? hx[i / 3]
                                    : test_rng_wide_f(&rng, -20, 20);
    for (size_t i = 1; i < n / 2; i += 10) {
        const uint32_t r = test_rng_u32(&rng);
        hx[i] = ldexpf(r & 1 ? 1.0f : 1.5f, 70) * (r & 2 ? -1.0f : 1.0f);
        hx[n - 1 - i] = -hx[i];
    }
    for (size_t i = 0; i < n; ++i) {
        hs[i] = (double)hx[i] * (double)hx[i];
        const uint64_t r = test_rng_u64(&rng);
        hd[i] = r % 17 == 0 ? (r & 32 ? -0.0 : 0.0)
                            : test_rng_wide(&rng, -60, 60);
        hi[i] = (int32_t)(uint32_t)(r >> 20);
    }
    test_to_device(in->x, hx, n * sizeof(float));
    test_to_device(in->squares, hs, n * sizeof(double));
    test_to_device(in->d, hd, n * sizeof(double));
    test_to_device(in->i32, hi, n * sizeof(int32_t));
    free(hx);
    free(hs);
    free(hd);
    free(hi);
}

/* The results of one size, as bits. */
typedef struct results {
    float sum_f32, max_f32;
    double sum_square, sum_f64, min_f64;
    int32_t sum_i32;
    uint64_t argmax;
} results;

static void run_user(const inputs *in, size_t n, results *r)
{
    farr fa = {in->x};
    darr da = {in->d};
    iarr ia = {in->i32};
    test_poison_f32(&r->sum_f32, 1);
    test_poison_f32(&r->max_f32, 1);
    test_poison_f64(&r->sum_square, 1);
    test_poison_f64(&r->sum_f64, 1);
    test_poison_f64(&r->min_f64, 1);
    r->sum_i32 = TEST_POISON_I32;
    r->argmax = TEST_POISON_U64;
    CHECK_OK(user_sum_f32(n, fa, &r->sum_f32));
    CHECK_OK(user_sum_square(n, fa, &r->sum_square));
    CHECK_OK(user_sum_f64(n, da, &r->sum_f64));
    CHECK_OK(user_sum_i32(n, ia, &r->sum_i32));
    CHECK_OK(user_max_f32(n, fa, &r->max_f32));
    CHECK_OK(user_min_f64(n, da, &r->min_f64));
    CHECK_OK(user_argmax(n, fa, &r->argmax));
}

/* The same from duo_reduce and duo_reduce_arg over the arrays. */
static void run_library(const inputs *in, size_t n, results *r)
{
    double sum_f32;
    int64_t sum_i32;
    CHECK_OK(duo_reduce(DUO_SUM, DUO_F32, in->x, n, &sum_f32));
    r->sum_f32 = (float)sum_f32;
    CHECK_OK(duo_reduce(DUO_SUM, DUO_F64, in->squares, n, &r->sum_square));
    CHECK_OK(duo_reduce(DUO_SUM, DUO_F64, in->d, n, &r->sum_f64));
    CHECK_OK(duo_reduce(DUO_SUM, DUO_I32, in->i32, n, &sum_i32));
    r->sum_i32 = (int32_t)(uint32_t)(uint64_t)sum_i32;
    if (n == 0) { /* duo_reduce has no min or max of nothing */
        r->max_f32 = -INFINITY;
        r->min_f64 = INFINITY;
        r->argmax = 0;
        return;
    }
    CHECK_OK(duo_reduce(DUO_MAX, DUO_F32, in->x, n, &r->max_f32));
    CHECK_OK(duo_reduce(DUO_MIN, DUO_F64, in->d, n, &r->min_f64));
    size_t index;
    float value;
    CHECK_OK(duo_reduce_arg(DUO_MAX, DUO_F32, in->x, n, &index, &value));
    r->argmax = key_of(value, index);
}

static void check_same(const results *got, const results *want,
                       const char *what)
{
    test_set_context("%s", what);
    CHECK_BITS_F32(got->sum_f32, want->sum_f32);
    CHECK_BITS_F64(got->sum_square, want->sum_square);
    CHECK_BITS_F64(got->sum_f64, want->sum_f64);
    CHECK_EQ_I64(got->sum_i32, want->sum_i32);
    CHECK_BITS_F32(got->max_f32, want->max_f32);
    CHECK_BITS_F64(got->min_f64, want->min_f64);
    CHECK_MSG(got->argmax == want->argmax,
              "argmax: got index %u value %a, want index %u value %a",
              0xFFFFFFFFu - (uint32_t)got->argmax,
              (double)float_of_key(got->argmax),
              0xFFFFFFFFu - (uint32_t)want->argmax,
              (double)float_of_key(want->argmax));
}

static void test_sizes(void)
{
    static const size_t sizes[] = {
        0,       1,       2,       3,       31,      97,      511,
        512,     513,     1021,    1023,    1024,    1025,    2047,
        2048,    2049,    4095,    4096,    4097,    65537,   1000003,
        (1u << 19) - 1, 1u << 19, (1u << 19) + 1, (1u << 20) - 1,
        1u << 20, (1u << 20) + 1, (1u << 20) + 1025, (1u << 21) - 1,
        1u << 21, (1u << 21) + 1, (1u << 22) + 3};
    const size_t count = sizeof sizes / sizeof sizes[0];
    const size_t max = sizes[count - 1];
    inputs in;
    in.x = (float *)test_device_alloc(max * sizeof(float));
    in.squares = (double *)test_device_alloc(max * sizeof(double));
    in.d = (double *)test_device_alloc(max * sizeof(double));
    in.i32 = (int32_t *)test_device_alloc(max * sizeof(int32_t));
    for (size_t k = 0; k < count; ++k) {
        const size_t n = sizes[k];
        char what[96];
        fill(&in, n);
        results want, first;
        run_library(&in, n, &want);
#ifdef _OPENMP
        const int threads[] = {1, 2, 3};
        for (int t = 0; t < 3; ++t) {
            omp_set_num_threads(threads[t]);
            results got;
            run_user(&in, n, &got);
            snprintf(what, sizeof what, "n = %zu, %d OpenMP thread(s)", n,
                     threads[t]);
            check_same(&got, &want, what);
            if (t == 0)
                first = got;
            else
                check_same(&got, &first, what);
        }
#else
        run_user(&in, n, &first);
        snprintf(what, sizeof what, "n = %zu", n);
        check_same(&first, &want, what);
#endif
    }
    CHECK_OK(duo_free(in.x));
    CHECK_OK(duo_free(in.squares));
    CHECK_OK(duo_free(in.d));
    CHECK_OK(duo_free(in.i32));
    test_set_context("%s", "");
}

/* Zeros: a sum of -0.0 is +0.0 (the identity +0.0 comes first), and the
 * min of mixed -0.0 and +0.0 is whichever zero the order meets first;
 * both as duo_reduce has them. */
static void test_signed_zeros(void)
{
    const size_t n = 3000;
    double *h = (double *)test_xmalloc(n * sizeof(double));
    double *d = (double *)test_device_alloc(n * sizeof(double));
    darr a = {d};
    for (int mixed = 0; mixed < 2; ++mixed) {
        test_set_context("%s zeros", mixed ? "mixed" : "negative");
        for (size_t i = 0; i < n; ++i)
            h[i] = mixed && test_rng_u32(&rng) % 2 ? 0.0 : -0.0;
        test_to_device(d, h, n * sizeof(double));
        double got, want;
        test_poison_f64(&got, 1);
        CHECK_OK(user_sum_f64(n, a, &got));
        CHECK_OK(duo_reduce(DUO_SUM, DUO_F64, d, n, &want));
        CHECK_BITS_F64(got, want);
        test_poison_f64(&got, 1);
        CHECK_OK(user_min_f64(n, a, &got));
        CHECK_OK(duo_reduce(DUO_MIN, DUO_F64, d, n, &want));
        CHECK_BITS_F64(got, want);
    }
    CHECK_OK(duo_free(d));
    free(h);
    test_set_context("%s", "");
}

int main(void)
{
    test_rng_seed(&rng, 0x55736572526564ULL);
    test_init_or_skip();
    const double t0 = test_seconds();
    test_sizes();
    test_signed_zeros();
    CHECK_OK(duo_finalize());
    printf("user_reduce: %.2f s\n", test_seconds() - t0);
    return test_summary("user_reduce");
}
