/*
 * test_reduce.c - duo_reduce and duo_reduce_arg for every operation and
 * element type, against references computed here.
 *
 *  - Integer sums are exact (i32 and i64 wrap modulo 2^64 as unsigned, as
 *    duo.h documents); min, max, argmin and argmax are exact, with
 *    deliberately repeated extremes (the lowest index wins) and NaNs (min
 *    and max give NaN, argmin/argmax the index of the FIRST NaN).
 *  - Floating-point sums are checked two ways:
 *    (a) bit for bit against order_sum() (test_order_sum in test_util.c),
 *        an independent serial re-implementation of the order that
 *        src/reduce_order.h describes in prose.  Every backend must follow that order, so in the CUDA
 *        build this compares GPU bits with host bits;
 *    (b) within the error bound of any summation order,
 *        |s - exact| <= (n-1) u sum|x| with u = 2^-53, against a
 *        compensated long double sum, so that a mistake shared by the
 *        library and order_sum() still fails.
 *    The float data spans a wide range of magnitudes, so different orders
 *    give different bits (checked: the test would notice a changed order);
 *    a data set of +0, -0 and cancelling pairs checks the sign of zero
 *    sums, which the order also fixes.
 *  - The input is in device memory, at an aligned address and one element
 *    past it; results are poisoned before each call.
 *  - Bad arguments return DUO_ERROR_INVALID_ARGUMENT and leave the result
 *    untouched.
 */
#include <math.h>
#include <stdlib.h>

#include "test_util.h"

#include "reduce_order.h" /* only to check its numbers match the restatement */

static test_rng rng;

/* ------------------------------------------------------------------ */
/* The order of src/reduce_order.h (test_order_sum, restated from its
 * prose in test_util.c) over float and double arrays.                 */

typedef struct {
    const void *x;
    size_t elem_size;
} order_input;

/* Element i of a float or double array, as the double the sum adds. */
static double element(const void *x, size_t elem_size, size_t i)
{
    if (elem_size == 4)
        return (double)((const float *)x)[i];
    return ((const double *)x)[i];
}

static double element_of(const void *ctx, size_t i)
{
    const order_input *in = (const order_input *)ctx;
    return element(in->x, in->elem_size, i);
}

static double order_sum(const void *x, size_t elem_size, size_t n)
{
    order_input in = {x, elem_size};
    return test_order_sum(n, elem_size, element_of, &in);
}

/* Left to right: only to show that the data tells orders apart. */
static double sequential_sum(const void *x, size_t elem_size, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; ++i)
        s += element(x, elem_size, i);
    return s;
}

/* Neumaier-compensated sum in long double (64-bit mantissa on x86): its
 * error is below 2^-62 sum|x| for the sizes here. */
static long double exact_sum(const void *x, size_t elem_size, size_t n,
                             long double *abs_sum)
{
    long double s = 0.0L, c = 0.0L, a = 0.0L;
    for (size_t i = 0; i < n; ++i) {
        const long double v = (long double)element(x, elem_size, i);
        const long double t = s + v;
        if (fabsl(s) >= fabsl(v))
            c += (s - t) + v;
        else
            c += (v - t) + s;
        s = t;
        a += fabsl(v);
    }
    *abs_sum = a;
    return s + c;
}

/* ------------------------------------------------------------------ */
/* Exact references for integers and for min / max / arg.              */

/* Sum modulo 2^64 of the elements as signed (i32, i64) or unsigned. */
static uint64_t wrap_sum(duo_dtype type, const void *x, size_t n)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; ++i) {
        switch (type) {
        case DUO_I32: s += (uint64_t)(int64_t)((const int32_t *)x)[i]; break;
        case DUO_I64: s += (uint64_t)((const int64_t *)x)[i]; break;
        case DUO_U64: s += ((const uint64_t *)x)[i]; break;
        default: break;
        }
    }
    return s;
}

/* Index of the first NaN if any, else of the first smallest (largest). */
#define FLOAT_NAN(v) ((v) != (v))
#define INT_NAN(v) 0
#define DEFINE_REF_ARG(S, T, IS_NAN)                                      \
    static size_t ref_arg_##S(const T *x, size_t n, int want_max)         \
    {                                                                     \
        for (size_t i = 0; i < n; ++i)                                    \
            if (IS_NAN(x[i]))                                             \
                return i;                                                 \
        size_t best = 0;                                                  \
        for (size_t i = 1; i < n; ++i)                                    \
            if (want_max ? x[i] > x[best] : x[i] < x[best])               \
                best = i;                                                 \
        return best;                                                      \
    }
DEFINE_REF_ARG(f32, float, FLOAT_NAN)
DEFINE_REF_ARG(f64, double, FLOAT_NAN)
DEFINE_REF_ARG(i32, int32_t, INT_NAN)
DEFINE_REF_ARG(i64, int64_t, INT_NAN)
DEFINE_REF_ARG(u64, uint64_t, INT_NAN)

static size_t ref_arg(duo_dtype type, const void *x, size_t n, int want_max)
{
    switch (type) {
    case DUO_F32: return ref_arg_f32((const float *)x, n, want_max);
    case DUO_F64: return ref_arg_f64((const double *)x, n, want_max);
    case DUO_I32: return ref_arg_i32((const int32_t *)x, n, want_max);
    case DUO_I64: return ref_arg_i64((const int64_t *)x, n, want_max);
    case DUO_U64: return ref_arg_u64((const uint64_t *)x, n, want_max);
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Types and data                                                       */

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

typedef enum dataset {
    DATA_WIDE,   /* floats over 2^-30 .. 2^31, ints over the full range */
    DATA_TIES,   /* small integers, many repeats, planted extremes     */
    DATA_NAN,    /* floats: WIDE plus NaNs (and infinities before them) */
    DATA_INF,    /* floats: WIDE plus some +inf and -inf               */
    DATA_ALL_HI, /* every element the largest value of the type        */
    DATA_ALL_LO, /* every element the smallest value of the type       */
    DATA_ZEROS   /* floats: +0 and -0, and pairs v, -v: zero sums      */
} dataset;

static const char *const dataset_names[] = {"wide", "ties", "nan", "inf",
                                            "all-highest", "all-lowest",
                                            "zeros"};

/* Store v (given as both a double and an int64/uint64) at x[i]. */
static void put_int(const type_info *t, void *x, size_t i, int64_t v)
{
    switch (t->type) {
    case DUO_F32: ((float *)x)[i] = (float)v; break;
    case DUO_F64: ((double *)x)[i] = (double)v; break;
    case DUO_I32: ((int32_t *)x)[i] = (int32_t)v; break;
    case DUO_I64: ((int64_t *)x)[i] = v; break;
    case DUO_U64: ((uint64_t *)x)[i] = (uint64_t)v; break;
    }
}

static void put_float(const type_info *t, void *x, size_t i, double v)
{
    if (t->type == DUO_F32)
        ((float *)x)[i] = (float)v;
    else
        ((double *)x)[i] = v;
}

static void fill(const type_info *t, dataset d, void *x, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        switch (d) {
        case DATA_WIDE:
        case DATA_NAN:
        case DATA_INF:
            if (t->type == DUO_F32)
                ((float *)x)[i] = test_rng_wide_f(&rng, -30, 30);
            else if (t->type == DUO_F64)
                ((double *)x)[i] = test_rng_wide(&rng, -60, 60);
            else if (t->type == DUO_I32)
                ((int32_t *)x)[i] = (int32_t)test_rng_u32(&rng);
            else
                ((uint64_t *)x)[i] = test_rng_u64(&rng); /* i64 too */
            break;
        case DATA_TIES:
            /* u64 keeps to [1, 101] so the planted 0 is the minimum. */
            put_int(t, x, i, t->type == DUO_U64 ? test_rng_range(&rng, 1, 101)
                                                : test_rng_range(&rng, -50, 50));
            break;
        case DATA_ALL_HI:
        case DATA_ALL_LO: {
            const int hi = d == DATA_ALL_HI;
            switch (t->type) {
            case DUO_F32: ((float *)x)[i] = hi ? INFINITY : -INFINITY; break;
            case DUO_F64: ((double *)x)[i] = hi ? INFINITY : -INFINITY; break;
            case DUO_I32: ((int32_t *)x)[i] = hi ? INT32_MAX : INT32_MIN; break;
            case DUO_I64: ((int64_t *)x)[i] = hi ? INT64_MAX : INT64_MIN; break;
            case DUO_U64: ((uint64_t *)x)[i] = hi ? UINT64_MAX : 0; break;
            }
            break;
        }
        case DATA_ZEROS: {
            const uint32_t r = test_rng_u32(&rng);
            put_float(t, x, i, (r & 1) ? -0.0 : 0.0);
            if (r % 5 == 0 && i + 1 < n) {
                const double v = t->type == DUO_F32
                                     ? (double)test_rng_wide_f(&rng, -3, 3)
                                     : test_rng_wide(&rng, -3, 3);
                put_float(t, x, i, v);
                put_float(t, x, ++i, -v);
            }
            break;
        }
        }
    }
    if (n == 0)
        return;
    /* Repeated extremes at scattered positions (in different chunks for
     * large n); the reference finds the first one by scanning. */
    const size_t low_at[] = {n - 1, n / 2 + 1, n / 2, n / 3, n / 7 + 3};
    const size_t high_at[] = {n - 2, (3 * n) / 4, n / 4 + 1, n / 5};
    if (d == DATA_TIES) {
        for (size_t k = 0; k < sizeof high_at / sizeof high_at[0]; ++k)
            if (high_at[k] < n)
                put_int(t, x, high_at[k], t->type == DUO_U64 ? 200 : 60);
        for (size_t k = 0; k < sizeof low_at / sizeof low_at[0]; ++k)
            if (low_at[k] < n)
                put_int(t, x, low_at[k], t->type == DUO_U64 ? 0 : -60);
    }
    if (d == DATA_NAN) {
        /* Infinities early, so NaN has to beat them; then NaNs. */
        if (n > 4) {
            put_float(t, x, n / 9, -INFINITY);
            put_float(t, x, n / 9 + 1, INFINITY);
        }
        const size_t nan_at[] = {n - 1, n / 2, n / 3 + 2, (2 * n) / 3};
        for (size_t k = 0; k < sizeof nan_at / sizeof nan_at[0]; ++k)
            if (nan_at[k] < n && !(n > 4 && (nan_at[k] == n / 9 ||
                                             nan_at[k] == n / 9 + 1)))
                put_float(t, x, nan_at[k], t->type == DUO_F32
                                               ? (double)test_nan_f32()
                                               : test_nan_f64());
    }
    if (d == DATA_INF) {
        const size_t at[] = {n - 1, n / 2, n / 3, n / 5};
        for (size_t k = 0; k < 4; ++k)
            if (at[k] < n)
                put_float(t, x, at[k], (k & 1) ? INFINITY : -INFINITY);
    }
}

/* ------------------------------------------------------------------ */
/* Checks                                                              */

/* Poison for a result of the given kind: all-0xFF (a NaN) for floating
 * point, a sentinel pattern for integers. */
static void poison_result(void *r, int is_float)
{
    memset(r, is_float ? 0xFF : 0x5A, 8);
}

static int is_poisoned(const void *r, size_t size, int is_float)
{
    const unsigned char *b = (const unsigned char *)r;
    for (size_t i = 0; i < size; ++i)
        if (b[i] != (is_float ? 0xFF : 0x5A))
            return 0;
    return 1;
}

static int elem_isnan(const type_info *t, const void *v)
{
    if (t->type == DUO_F32) {
        float f;
        memcpy(&f, v, 4);
        return test_isnan_f32(f);
    }
    if (t->type == DUO_F64) {
        double d;
        memcpy(&d, v, 8);
        return test_isnan_f64(d);
    }
    return 0;
}

static void describe(const type_info *t, const void *v, char *buf,
                     size_t size)
{
    switch (t->type) {
    case DUO_F32: {
        float f;
        memcpy(&f, v, 4);
        snprintf(buf, size, "%.9g (%a)", (double)f, (double)f);
        break;
    }
    case DUO_F64: {
        double d;
        memcpy(&d, v, 8);
        snprintf(buf, size, "%.17g (%a)", d, d);
        break;
    }
    case DUO_I32: {
        int32_t i;
        memcpy(&i, v, 4);
        snprintf(buf, size, "%ld", (long)i);
        break;
    }
    case DUO_I64: {
        int64_t i;
        memcpy(&i, v, 8);
        snprintf(buf, size, "%lld", (long long)i);
        break;
    }
    case DUO_U64: {
        uint64_t u;
        memcpy(&u, v, 8);
        snprintf(buf, size, "%llu", (unsigned long long)u);
        break;
    }
    }
}

/* got (a value of the element type written by the library) must equal
 * want (an element of the host array): the same bits, or for NaN a NaN
 * that is not the poison. */
static void check_element_value(const type_info *t, const void *got,
                                const void *want, const char *what)
{
    char g[96], w[96];
    describe(t, got, g, sizeof g);
    describe(t, want, w, sizeof w);
    if (elem_isnan(t, want))
        CHECK_MSG(elem_isnan(t, got) && !is_poisoned(got, t->size, 1),
                  "%s: got %s, want NaN%s", what, g,
                  is_poisoned(got, t->size, 1) ? " (not written)" : "");
    else
        CHECK_MSG(memcmp(got, want, t->size) == 0, "%s: got %s, want %s%s",
                  what, g, w,
                  is_poisoned(got, t->size, t->is_float) ? " (not written)"
                                                         : "");
}

/* Counts for the "the data tells orders apart" check. */
static long order_sensitive_cases;

static void check_sum(const type_info *t, const void *hx, const void *dx,
                      size_t n)
{
    unsigned char r[8];
    poison_result(r, t->is_float);
    if (!CHECK_OK(duo_reduce(DUO_SUM, t->type, dx, n, r)))
        return;
    if (!t->is_float) {
        const uint64_t want = wrap_sum(t->type, hx, n);
        uint64_t got;
        memcpy(&got, r, 8);
        /* i32/i64 give the int64_t with the same bits as the wrapped
         * unsigned sum; u64 the unsigned sum itself. */
        CHECK_MSG(got == want, "sum: got %lld (0x%llx), want %lld (0x%llx)",
                  (long long)got, (unsigned long long)got, (long long)want,
                  (unsigned long long)want);
        return;
    }
    double got;
    memcpy(&got, r, 8);
    CHECK_MSG(!test_is_poison_f64(got), "sum not written");
    const double want = order_sum(hx, t->size, n);
    if (test_isnan_f64(want)) {
        /* NaN in the data, or +inf and -inf. */
        CHECK_MSG(test_isnan_f64(got), "sum: got %.17g, want NaN", got);
        return;
    }
    /* (a) the documented order, bit for bit. */
    CHECK_BITS_F64(got, want);
    if (isinf(want))
        return;
    /* (b) the error bound of any order: |s - exact| <= (n-1) u sum|x|,
     * plus 2^-62 sum|x| for the long double reference's own error. */
    long double abs_sum = 0.0L;
    const long double exact = exact_sum(hx, t->size, n, &abs_sum);
    const long double bound =
        ((long double)(n - 1) * ldexpl(1.0L, -53) + ldexpl(1.0L, -62)) *
        abs_sum;
    const long double err = fabsl((long double)got - exact);
    CHECK_MSG(err <= bound, "sum error bound: got %.17g, exact %.20Lg, "
              "error %.3Lg > (n-1) u sum|x| = %.3Lg", got, exact, err,
              bound);
    /* The re-implemented order meets the bound too. */
    CHECK_MSG(fabsl((long double)want - exact) <= bound,
              "order_sum itself is outside the error bound");
    if (test_bits_f64(sequential_sum(hx, t->size, n)) != test_bits_f64(want))
        ++order_sensitive_cases;
}

static void check_extreme(const type_info *t, const void *hx, const void *dx,
                          size_t n, duo_reduce_op op)
{
    const int want_max = op == DUO_MAX;
    const size_t want_index = ref_arg(t->type, hx, n, want_max);
    const unsigned char *want = (const unsigned char *)hx + want_index * t->size;

    unsigned char r[8];
    poison_result(r, t->is_float);
    if (CHECK_OK(duo_reduce(op, t->type, dx, n, r)))
        check_element_value(t, r, want, want_max ? "max" : "min");

    /* The index, with the value... */
    size_t index = TEST_POISON_SIZE;
    poison_result(r, t->is_float);
    if (CHECK_OK(duo_reduce_arg(op, t->type, dx, n, &index, r))) {
        CHECK_MSG(index == want_index, "arg%s: index %zu, want %zu%s",
                  want_max ? "max" : "min", index, want_index,
                  index == TEST_POISON_SIZE ? " (not written)" : "");
        check_element_value(t, r, want,
                            want_max ? "argmax value" : "argmin value");
    }
    /* ... and without (value = NULL). */
    index = TEST_POISON_SIZE;
    if (CHECK_OK(duo_reduce_arg(op, t->type, dx, n, &index, NULL)))
        CHECK_MSG(index == want_index, "arg%s (no value): index %zu, want "
                  "%zu", want_max ? "max" : "min", index, want_index);
}

/* Zeros: the sum only (which zero a min or max of +0 and -0 returns
 * depends on the order, not on the index, so the reference's first index
 * does not say). */
static void check_all(const type_info *t, dataset d, const void *hx,
                      const void *dx, size_t n, const char *where)
{
    test_set_context("%s %s n=%zu %s", t->name, dataset_names[d], n, where);
    check_sum(t, hx, dx, n);
    if (d == DATA_ZEROS)
        return;
    check_extreme(t, hx, dx, n, DUO_MIN);
    check_extreme(t, hx, dx, n, DUO_MAX);
}

static void test_type(const type_info *t)
{
    const size_t lanes = ORD_THREADS * (16 / t->size);
    /* Around one warp's lanes (64 and 128 for floats: the host's
     * one-warp tree) and one chunk of one step (LANES); four chunks, the
     * most that one block folds side by side, and one element more;
     * 8192 and 16384
     * (a chunk of MAX_STEPS, though at these n STEPS is 1); 1024 chunks
     * and one more (step 5 wraps: thread 0 adds partials 0 and 1024); the
     * last n with STEPS = 1 and the first with STEPS = 2; and a big n with
     * STEPS = MAX_STEPS and 1025 chunks. */
    const size_t big = (size_t)ORD_MAX_STEPS * ORD_MIN_CHUNKS * lanes +
                       (t->size == 4 ? 3 : 5);
    const size_t sizes[] = {1,
                            2,
                            31,
                            32,
                            33,
                            64,
                            65,
                            127,
                            128,
                            129,
                            1021,
                            4093,
                            lanes - 1,
                            lanes,
                            lanes + 1,
                            3 * lanes + 7,
                            4 * lanes,
                            4 * lanes + 1,
                            8192,
                            16384,
                            ORD_MIN_CHUNKS * lanes,
                            ORD_MIN_CHUNKS * lanes + 1,
                            2 * ORD_MIN_CHUNKS * lanes - 1,
                            2 * ORD_MIN_CHUNKS * lanes,
                            big};
    const size_t nsizes = sizeof sizes / sizeof sizes[0];
    unsigned char *hx = (unsigned char *)test_xmalloc((big + 1) * t->size);
    unsigned char *dx = (unsigned char *)test_device_alloc((big + 1) *
                                                           t->size);
    const double t0 = test_seconds();

    for (size_t si = 0; si < nsizes; ++si) {
        const size_t n = sizes[si];
        const int huge = n >= ORD_MIN_CHUNKS * lanes;
        for (int di = DATA_WIDE; di <= DATA_ZEROS; ++di) {
            const dataset d = (dataset)di;
            if ((d == DATA_NAN || d == DATA_INF || d == DATA_ZEROS) &&
                !t->is_float)
                continue;
            /* Keep the number of calls (and the run time) down: the
             * data sets of special values on a few sizes only. */
            const int special = d == DATA_INF || d == DATA_ALL_HI ||
                                d == DATA_ALL_LO;
            if (special && n != 1 && n != 2 && n != 33 && n != lanes + 1 &&
                n != 3 * lanes + 7)
                continue;
            if (huge && d != DATA_WIDE && d != DATA_TIES && d != DATA_NAN &&
                d != DATA_ZEROS)
                continue;
            fill(t, d, hx, n);
            test_to_device(dx, hx, n * t->size);
            check_all(t, d, hx, dx, n, "aligned");
            /* One element in: an address that is not 16-byte aligned
             * (the data sets whose results depend on every element). */
            if (n >= 2 && (d == DATA_WIDE ||
                           (!huge && (d == DATA_TIES || d == DATA_NAN))))
                check_all(t, d, hx + t->size, dx + t->size, n - 1,
                          "offset by one element");
        }
    }
    CHECK_OK(duo_free(dx));
    free(hx);
    printf("%s: %.2f s\n", t->name, test_seconds() - t0);
    test_set_context("%s", "");
}

/* The sum of nothing is 0, with or without an array. */
static void test_empty_sum(void)
{
    void *d = test_device_alloc(64);
    for (size_t k = 0; k < NTYPES; ++k) {
        const type_info *t = &types[k];
        test_set_context("%s sum of n=0", t->name);
        for (int with_array = 0; with_array < 2; ++with_array) {
            unsigned char r[8];
            poison_result(r, t->is_float);
            if (!CHECK_OK(duo_reduce(DUO_SUM, t->type, with_array ? d : NULL,
                                     0, r)))
                continue;
            if (t->is_float) {
                double got;
                memcpy(&got, r, 8);
                CHECK_MSG(got == 0.0 && !test_is_poison_f64(got),
                          "sum of nothing: got %g", got);
            } else {
                uint64_t got;
                memcpy(&got, r, 8);
                CHECK_EQ_U64(got, 0);
            }
        }
    }
    CHECK_OK(duo_free(d));
    test_set_context("%s", "");
}

/* Bad arguments: DUO_ERROR_INVALID_ARGUMENT, the result untouched, and a
 * message naming the function and the argument. */
static void test_errors(void)
{
    float *d = (float *)test_device_alloc(64 * sizeof(float));
    float h[64];
    for (int i = 0; i < 64; ++i)
        h[i] = (float)(i - 20);
    test_to_device(d, h, sizeof h);
    unsigned char r[8], v[8];
    size_t index;

#define EXPECT_REFUSED(call, word)                                          \
    do {                                                                    \
        poison_result(r, 1);                                                \
        poison_result(v, 1);                                                \
        index = TEST_POISON_SIZE;                                           \
        CHECK_STATUS(call, DUO_ERROR_INVALID_ARGUMENT);                     \
        CHECK_MSG(is_poisoned(r, 8, 1), "%s wrote the result", #call);      \
        CHECK_MSG(is_poisoned(v, 8, 1), "%s wrote the value", #call);       \
        CHECK_MSG(index == TEST_POISON_SIZE, "%s wrote the index", #call);  \
        CHECK_CONTAINS_WORD(duo_last_error(), word);                        \
    } while (0)

    test_set_context("duo_reduce errors");
    EXPECT_REFUSED(duo_reduce(DUO_SUM, DUO_F32, NULL, 10, r), "x");
    CHECK_CONTAINS_WORD(duo_last_error(), "duo_reduce");
    EXPECT_REFUSED(duo_reduce(DUO_MIN, DUO_F32, NULL, 1, r), "x");
    EXPECT_REFUSED(duo_reduce(DUO_SUM, DUO_F32, d, 10, NULL), "result");
    EXPECT_REFUSED(duo_reduce((duo_reduce_op)7, DUO_F32, d, 10, r), "op");
    EXPECT_REFUSED(duo_reduce((duo_reduce_op)3, DUO_I32, d, 10, r), "op");
    EXPECT_REFUSED(duo_reduce(DUO_SUM, (duo_dtype)9, d, 10, r), "type");
    EXPECT_REFUSED(duo_reduce(DUO_MAX, (duo_dtype)5, d, 10, r), "type");
    EXPECT_REFUSED(duo_reduce(DUO_MIN, DUO_F32, d, 0, r), "n");
    EXPECT_REFUSED(duo_reduce(DUO_MAX, DUO_I64, d, 0, r), "n");
    /* n * element size overflows size_t. */
    EXPECT_REFUSED(duo_reduce(DUO_SUM, DUO_F32, d, SIZE_MAX / 2, r), "n");
    EXPECT_REFUSED(duo_reduce(DUO_MAX, DUO_F64, d, SIZE_MAX / 8 + 1, r), "n");
    EXPECT_REFUSED(duo_reduce(DUO_SUM, DUO_U64, d, SIZE_MAX, r), "n");
    CHECK_CONTAINS_WORD(duo_last_error(), "duo_reduce");

    test_set_context("duo_reduce_arg errors");
    EXPECT_REFUSED(duo_reduce_arg(DUO_MIN, DUO_F32, NULL, 10, &index, v), "x");
    CHECK_CONTAINS_WORD(duo_last_error(), "duo_reduce_arg");
    EXPECT_REFUSED(duo_reduce_arg(DUO_MIN, DUO_F32, d, 10, NULL, v), "index");
    EXPECT_REFUSED(duo_reduce_arg(DUO_SUM, DUO_F32, d, 10, &index, v),
                   "DUO_SUM");
    EXPECT_REFUSED(duo_reduce_arg((duo_reduce_op)7, DUO_F32, d, 10, &index, v),
                   "op");
    EXPECT_REFUSED(duo_reduce_arg(DUO_MAX, (duo_dtype)9, d, 10, &index, v),
                   "type");
    EXPECT_REFUSED(duo_reduce_arg(DUO_MIN, DUO_F32, d, 0, &index, v), "n");
    EXPECT_REFUSED(duo_reduce_arg(DUO_MAX, DUO_U64, d, 0, &index, NULL), "n");
    EXPECT_REFUSED(duo_reduce_arg(DUO_MAX, DUO_F32, d, SIZE_MAX / 2, &index,
                                  v), "n");
    CHECK_CONTAINS_WORD(duo_last_error(), "duo_reduce_arg");
#undef EXPECT_REFUSED

    /* Still works afterwards. */
    test_set_context("after errors");
    size_t at = TEST_POISON_SIZE;
    float value = 0.0f;
    CHECK_OK(duo_reduce_arg(DUO_MAX, DUO_F32, d, 64, &at, &value));
    CHECK_EQ_U64(at, 63);
    CHECK(value == 43.0f);
    CHECK_OK(duo_free(d));
    test_set_context("%s", "");
}

static void test_constants(void)
{
    test_set_context("reduce_order.h and duo_dtype_size");
    /* The header's numbers are the ones its prose (restated above)
     * and the brief give. */
    CHECK_EQ_I64(DUO_REDUCE_THREADS, ORD_THREADS);
    CHECK_EQ_I64(DUO_REDUCE_MAX_STEPS, ORD_MAX_STEPS);
    CHECK_EQ_I64(DUO_REDUCE_FINAL_THREADS, ORD_FINAL_THREADS);
    CHECK_EQ_I64(DUO_REDUCE_WARP, ORD_WARP);
    CHECK_EQ_I64(DUO_REDUCE_LANES(4), 1024);
    CHECK_EQ_I64(DUO_REDUCE_LANES(8), 512);
    /* STEPS as restated here and as the header computes it. */
    for (size_t es = 4; es <= 8; es += 4) {
        const size_t lanes = ORD_THREADS * (16 / es);
        for (size_t steps = 1; steps <= 2 * ORD_MAX_STEPS; steps *= 2) {
            const size_t edge = steps * ORD_MIN_CHUNKS * lanes;
            const size_t probe[] = {0, 1, edge - 1, edge, edge + 1,
                                    3 * edge / 2, SIZE_MAX / 2, SIZE_MAX};
            for (size_t i = 0; i < sizeof probe / sizeof probe[0]; ++i)
                CHECK_MSG(test_order_steps(probe[i], lanes) ==
                              duo_reduce_steps(probe[i], lanes),
                          "STEPS for n=%zu, %zu lanes: restated %zu, "
                          "duo_reduce_steps %zu", probe[i], lanes,
                          test_order_steps(probe[i], lanes),
                          duo_reduce_steps(probe[i], lanes));
        }
    }
    CHECK_EQ_U64(test_order_steps(16384 * 1024 - 1, 1024), 8);
    CHECK_EQ_U64(test_order_steps(16384 * 1024, 1024), 16);
    CHECK_EQ_U64(test_order_steps(2048 * 1024 - 1, 1024), 1);
    CHECK_EQ_U64(test_order_steps(2048 * 1024, 1024), 2);
    CHECK_EQ_U64(duo_dtype_size(DUO_F32), 4);
    CHECK_EQ_U64(duo_dtype_size(DUO_F64), 8);
    CHECK_EQ_U64(duo_dtype_size(DUO_I32), 4);
    CHECK_EQ_U64(duo_dtype_size(DUO_I64), 8);
    CHECK_EQ_U64(duo_dtype_size(DUO_U64), 8);
    CHECK_EQ_U64(duo_dtype_size((duo_dtype)17), 0);

    /* order_sum on cases worked by hand, where the order decides.
     * f64, 4 elements: thread 0 holds lanes 0-1, thread 1 lanes 2-3:
     * (1 + 1e16) -> 1e16 and (-1e16 + 1) -> -1e16, folded: 0; left to
     * right gives 1. */
    const double x4[4] = {1.0, 1e16, -1e16, 1.0};
    CHECK_BITS_F64(order_sum(x4, 8, 4), 0.0);
    CHECK_BITS_F64(sequential_sum(x4, 8, 4), 1.0);
    /* f32, 4 elements: one thread's vector, (x0 + x1) + (x2 + x3) in
     * double: 2^60 + -2^60 = 0; left to right gives 1. */
    const float f4[4] = {1.0f, 1152921504606846976.0f,
                         -1152921504606846976.0f, 1.0f};
    CHECK_BITS_F64(order_sum(f4, 4, 4), 0.0);
    CHECK_BITS_F64(sequential_sum(f4, 4, 4), 1.0);
    /* f64, 33 elements, all 0 but x0 = 1e16 (thread 0), x2 = 1 (thread
     * 1), x32 = -1e16 (thread 16): the warp fold adds thread 16 into
     * thread 0 (h = 16) before thread 1 (h = 1): (1e16 - 1e16) + 1 = 1;
     * left to right gives 0. */
    double x33[33];
    for (int i = 0; i < 33; ++i)
        x33[i] = 0.0;
    x33[0] = 1e16;
    x33[2] = 1.0;
    x33[32] = -1e16;
    CHECK_BITS_F64(order_sum(x33, 8, 33), 1.0);
    CHECK_BITS_F64(sequential_sum(x33, 8, 33), 0.0);
    /* The library agrees on all three. */
    double *d = (double *)test_device_alloc(33 * sizeof(double));
    double got;
    test_to_device(d, x4, sizeof x4);
    test_poison_f64(&got, 1);
    CHECK_OK(duo_reduce(DUO_SUM, DUO_F64, d, 4, &got));
    CHECK_BITS_F64(got, 0.0);
    test_to_device(d, x33, sizeof x33);
    test_poison_f64(&got, 1);
    CHECK_OK(duo_reduce(DUO_SUM, DUO_F64, d, 33, &got));
    CHECK_BITS_F64(got, 1.0);
    test_to_device(d, f4, sizeof f4);
    test_poison_f64(&got, 1);
    CHECK_OK(duo_reduce(DUO_SUM, DUO_F32, d, 4, &got));
    CHECK_BITS_F64(got, 0.0);
    CHECK_OK(duo_free(d));
    test_set_context("%s", "");
}

int main(void)
{
    test_rng_seed(&rng, 0x726564756365ULL);
    test_init_or_skip();
    test_constants();
    test_empty_sum();
    test_errors();
    for (size_t k = 0; k < NTYPES; ++k)
        test_type(&types[k]);
    /* The wide-range data must tell summation orders apart, or (a)
     * would prove nothing. */
    test_set_context("test data");
    CHECK_MSG(order_sensitive_cases > 10, "only %ld float sums differ "
              "between the documented order and left-to-right",
              order_sensitive_cases);
    printf("float sums whose bits depend on the order: %ld\n",
           order_sensitive_cases);
    CHECK_OK(duo_finalize());
    return test_summary("reduce");
}
