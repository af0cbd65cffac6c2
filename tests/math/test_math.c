/*
 * test_math.c - <duo/math.h>: every function evaluated inside a kernel
 * equals, bit for bit, the same call in host code, on a sample of 2^20
 * arguments (math_sample.h) and at launch sizes 0, 1, a prime and a
 * non-multiple of the block size; on the GPU this is the GPU-vs-CPU
 * check.  On the host results: within 1 ulp of glibc's double function
 * rounded to float (an independent reference; test_math_mpfr.c requires
 * the correctly rounded bits), NaN bits as math.h promises, sincosf
 * equal to sinf and cosf, and C Annex F's special cases.
 *
 * The double functions likewise on 2^18 arguments (pairs for atan2 and
 * hypot, pow), and powf and pow again on 2^18 pairs of their own sample
 * (mf_sample_pow: thresholds, x near 1, exact and halfway cases):
 * kernel bits equal to the host's, within 1 ulp of glibc (both are within
 * 1 ulp of the exact value: one of its two neighbours; more where glibc's
 * own error is larger, libm_tol_d), sincos equal to sin and cos, NaNs,
 * Annex F.
 *
 * Also checks that this build does not contract a * b + c into an fma in
 * kernels: math.h is immune, but user kernels would part ways between
 * the GPU and the CPU (nvcc contracts unless --fmad=false).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "math_funcs.h"
#include "math_libm.h"
#include "math_sample.h"
#include "test_util.h"

#define NSAMPLE ((size_t)1 << 20)
#define NSAMPLE_D ((size_t)1 << 18)
#define GUARD 16

DUO_KERNEL(math_eval, size_t n, int f, const float *DUO_RESTRICT x,
           const float *DUO_RESTRICT y, float *DUO_RESTRICT out)
{
    DUO_FOR(i, n)
        out[i] = duo_math_eval(f, x[i], y[i]);
}

DUO_KERNEL(math_eval_d, size_t n, int f, const double *DUO_RESTRICT x,
           const double *DUO_RESTRICT y, double *DUO_RESTRICT out)
{
    DUO_FOR(i, n)
        out[i] = duo_math_eval_d(f, x[i], y[i]);
}

/* a * b + c as written: rounded twice unless the compiler contracts. */
DUO_KERNEL(mul_add, size_t n, const double *DUO_RESTRICT a,
           const double *DUO_RESTRICT b, const double *DUO_RESTRICT c,
           double *DUO_RESTRICT out, const float *DUO_RESTRICT af,
           const float *DUO_RESTRICT bf, const float *DUO_RESTRICT cf,
           float *DUO_RESTRICT outf)
{
    DUO_FOR(i, n) {
        out[i] = a[i] * b[i] + c[i];
        outf[i] = af[i] * bf[i] + cf[i];
    }
}

static void *to_device(const void *h, size_t bytes)
{
    void *d = test_device_alloc(bytes);
    test_to_device(d, h, bytes);
    return d;
}

/* (1 + 2^-27)(1 - 2^-27) - 1: the product 1 - 2^-54 rounds to 1, so
 * separately rounded it is 0 and fused -2^-54 (float: 2^-13, -2^-26). */
static void test_no_contraction(void)
{
    test_set_context("a * b + c in a kernel");
    double a = 1.0 + 0x1p-27, b = 1.0 - 0x1p-27, c = -1.0;
    float af = 1.0f + 0x1p-13f, bf = 1.0f - 0x1p-13f, cf = -1.0f;
    volatile double p = a * b;
    volatile float pf = af * bf;
    double want = p + c;
    float wantf = pf + cf;
    CHECK(fma(a, b, c) != want); /* the case tells the two apart */
    CHECK(fmaf(af, bf, cf) != wantf);
    double *da = (double *)to_device(&a, sizeof a);
    double *db = (double *)to_device(&b, sizeof b);
    double *dc = (double *)to_device(&c, sizeof c);
    float *daf = (float *)to_device(&af, sizeof af);
    float *dbf = (float *)to_device(&bf, sizeof bf);
    float *dcf = (float *)to_device(&cf, sizeof cf);
    double *dout = (double *)test_device_alloc(sizeof(double));
    float *doutf = (float *)test_device_alloc(sizeof(float));
    double out;
    float outf;
    CHECK_OK(duo_memset(dout, TEST_POISON_BYTE, sizeof out));
    CHECK_OK(duo_memset(doutf, TEST_POISON_BYTE, sizeof outf));
    CHECK_OK(DUO_LAUNCH(mul_add, 1, (size_t)1, da, db, dc, dout, daf, dbf,
                        dcf, doutf));
    test_to_host(&out, dout, sizeof out);
    test_to_host(&outf, doutf, sizeof outf);
    CHECK_MSG(test_bits_f64(out) == test_bits_f64(want),
              "double a * b + c in a kernel gave %a, separately rounded "
              "%a: this build contracts to fma (nvcc: add --fmad=false; "
              "host compilers: -ffp-contract=off)", out, want);
    CHECK_MSG(test_bits_f32(outf) == test_bits_f32(wantf),
              "float a * b + c in a kernel gave %a, separately rounded "
              "%a: this build contracts to fma", (double)outf,
              (double)wantf);
    void *bufs[] = {da, db, dc, daf, dbf, dcf, dout, doutf};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i)
        CHECK_OK(duo_free(bufs[i]));
    test_set_context("%s", "");
}

/* Every function in a kernel at several sizes equals the host's bits;
 * nothing past n is written.  Returns the host results (f-major). */
static float *test_kernel_matches_host(const float *x, const float *y)
{
    const size_t sizes[] = {0, 1, 1009, NSAMPLE - 3, NSAMPLE};
    float *host = (float *)test_xmalloc(MF_COUNT * NSAMPLE * sizeof(float));
    float *got = (float *)test_xmalloc((NSAMPLE + GUARD) * sizeof(float));
    float *dx = (float *)to_device(x, NSAMPLE * sizeof(float));
    float *dy = (float *)to_device(y, NSAMPLE * sizeof(float));
    float *dout = (float *)test_device_alloc((NSAMPLE + GUARD) *
                                             sizeof(float));
    for (int f = 0; f < MF_COUNT; ++f) {
        float *h = host + (size_t)f * NSAMPLE;
        for (size_t i = 0; i < NSAMPLE; ++i)
            h[i] = duo_math_eval(f, x[i], y[i]);
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
            const size_t n = sizes[s];
            test_set_context("%s in a kernel, n = %zu", mf_names[f], n);
            CHECK_OK(duo_memset(dout, TEST_POISON_BYTE,
                                (NSAMPLE + GUARD) * sizeof(float)));
            CHECK_OK(DUO_LAUNCH(math_eval, n, n, f, dx, dy, dout));
            test_poison_f32(got, NSAMPLE + GUARD);
            test_to_host(got, dout, (n + GUARD) * sizeof(float));
            size_t bad = 0, first = 0;
            for (size_t i = 0; i < n; ++i)
                if (test_bits_f32(got[i]) != test_bits_f32(h[i]) && !bad++)
                    first = i;
            CHECK_MSG(bad == 0, "%zu of %zu results differ from the host; "
                      "first %s(%a, %a): kernel %a (0x%08x), host %a "
                      "(0x%08x)", bad, n, mf_names[f], (double)x[first],
                      (double)y[first], (double)got[first],
                      (unsigned)test_bits_f32(got[first]), (double)h[first],
                      (unsigned)test_bits_f32(h[first]));
            for (size_t i = n; i < n + GUARD; ++i)
                CHECK_MSG(test_is_poison_f32(got[i]), "element %zu past n "
                          "was written", i);
        }
    }
    CHECK_OK(duo_free(dx));
    CHECK_OK(duo_free(dy));
    CHECK_OK(duo_free(dout));
    free(got);
    test_set_context("%s", "");
    return host;
}

static int32_t ordered(float v)
{
    uint32_t u = test_bits_f32(v);
    return u >> 31 ? -(int32_t)(u & 0x7fffffffu) : (int32_t)u;
}

/* The NaN a function must return: the first NaN argument quieted, or
 * 0x7fc00000 for a domain error; 0 when the result is not NaN. */
static uint32_t nan_wanted(int f, float x, float y)
{
    uint32_t bx = test_bits_f32(x), by = test_bits_f32(y);
    int binary = f >= MF_FIRST_BINARY;
    if (f == MF_HYPOTF && (isinf(x) || isinf(y)))
        return 0;
    if (isnan(x))
        return bx | 0x00400000u;
    if (binary && isnan(y))
        return by | 0x00400000u;
    return 0x7fc00000u;
}

static void test_against_libm(const float *x, const float *y,
                              const float *host)
{
    for (int f = 0; f < MF_COUNT; ++f) {
        test_set_context("%s on the host vs glibc's double function",
                         mf_names[f]);
        const float *h = host + (size_t)f * NSAMPLE;
        size_t bad = 0;
        for (size_t i = 0; i < NSAMPLE && bad < 5; ++i) {
            float want = (float)mf_libm(f, x[i], y[i]);
            int ok;
            if (isnan(want)) {
                ok = isnan(h[i]) &&
                     test_bits_f32(h[i]) == nan_wanted(f, x[i], y[i]);
            } else if (isinf(want) || want == 0.0f) {
                ok = test_bits_f32(h[i]) == test_bits_f32(want);
            } else {
                int64_t d = (int64_t)ordered(h[i]) - ordered(want);
                ok = !isnan(h[i]) && d >= -1 && d <= 1;
            }
            if (!ok)
                ++bad;
            CHECK_MSG(ok, "%s(%a, %a) = %a (0x%08x); glibc's double "
                      "rounded to float: %a (0x%08x)", mf_names[f],
                      (double)x[i], (double)y[i], (double)h[i],
                      (unsigned)test_bits_f32(h[i]), (double)want,
                      (unsigned)test_bits_f32(want));
        }
    }
    test_set_context("sincosf vs sinf and cosf");
    for (size_t i = 0; i < NSAMPLE; ++i) {
        if (test_bits_f32(host[MF_SINCOSF_SIN * NSAMPLE + i]) !=
                test_bits_f32(host[MF_SINF * NSAMPLE + i]) ||
            test_bits_f32(host[MF_SINCOSF_COS * NSAMPLE + i]) !=
                test_bits_f32(host[MF_COSF * NSAMPLE + i])) {
            CHECK_MSG(0, "sincosf(%a) differs from sinf, cosf",
                      (double)x[i]);
            break;
        }
    }
    test_set_context("%s", "");
}

/* C11 Annex F (F.10): results the standard fixes exactly.  Float
 * constants: pi = 0x40490fdb, pi/2 = 0x3fc90fdb, pi/4 = 0x3f490fdb,
 * 3pi/4 = 0x4016cbe4 (each the float nearest the real number). */
static void test_annex_f(void)
{
    const float inf = INFINITY, pi = 0x1.921fb6p1f, pio2 = 0x1.921fb6p0f,
                pio4 = 0x1.921fb6p-1f, tpio4 = 0x1.2d97c8p1f;
    const struct {
        int f;
        float x, y, want;
    } cases[] = {
        {MF_EXPF, -inf, 0, 0.0f}, {MF_EXPF, inf, 0, inf},
        {MF_EXPF, 0.0f, 0, 1.0f}, {MF_EXPF, -0.0f, 0, 1.0f},
        {MF_EXP2F, -inf, 0, 0.0f}, {MF_EXP2F, 3.0f, 0, 8.0f},
        {MF_EXPM1F, -0.0f, 0, -0.0f}, {MF_EXPM1F, -inf, 0, -1.0f},
        {MF_LOGF, 1.0f, 0, 0.0f}, {MF_LOGF, 0.0f, 0, -inf},
        {MF_LOGF, -0.0f, 0, -inf}, {MF_LOGF, inf, 0, inf},
        {MF_LOG2F, 1024.0f, 0, 10.0f}, {MF_LOG10F, 1e10f, 0, 10.0f},
        {MF_LOG1PF, -0.0f, 0, -0.0f}, {MF_LOG1PF, -1.0f, 0, -inf},
        {MF_SINF, -0.0f, 0, -0.0f}, {MF_COSF, -0.0f, 0, 1.0f},
        {MF_TANF, -0.0f, 0, -0.0f}, {MF_ATANF, -0.0f, 0, -0.0f},
        {MF_ATANF, inf, 0, pio2}, {MF_ATANF, -inf, 0, -pio2},
        {MF_ASINF, -0.0f, 0, -0.0f}, {MF_ASINF, 1.0f, 0, pio2},
        {MF_ACOSF, 1.0f, 0, 0.0f}, {MF_ACOSF, -1.0f, 0, pi},
        {MF_SINHF, -0.0f, 0, -0.0f}, {MF_SINHF, -inf, 0, -inf},
        {MF_COSHF, -inf, 0, inf}, {MF_TANHF, -0.0f, 0, -0.0f},
        {MF_TANHF, -inf, 0, -1.0f}, {MF_CBRTF, -27.0f, 0, -3.0f},
        {MF_CBRTF, -0.0f, 0, -0.0f}, {MF_CBRTF, -inf, 0, -inf},
        {MF_ERFF, -0.0f, 0, -0.0f}, {MF_ERFF, inf, 0, 1.0f},
        {MF_ERFF, -inf, 0, -1.0f}, {MF_ERFF, 4.0f, 0, 1.0f},
        {MF_ATAN2F, 0.0f, -0.0f, pi}, {MF_ATAN2F, -0.0f, -0.0f, -pi},
        {MF_ATAN2F, 0.0f, 0.0f, 0.0f}, {MF_ATAN2F, -0.0f, 0.0f, -0.0f},
        {MF_ATAN2F, -0.0f, -2.0f, -pi}, {MF_ATAN2F, 0.0f, 2.0f, 0.0f},
        {MF_ATAN2F, -2.0f, 0.0f, -pio2}, {MF_ATAN2F, 2.0f, -0.0f, pio2},
        {MF_ATAN2F, 2.0f, -inf, pi}, {MF_ATAN2F, -2.0f, inf, -0.0f},
        {MF_ATAN2F, -inf, 2.0f, -pio2}, {MF_ATAN2F, inf, -inf, tpio4},
        {MF_ATAN2F, -inf, inf, -pio4}, {MF_HYPOTF, inf, NAN, inf},
        {MF_HYPOTF, NAN, -inf, inf}, {MF_HYPOTF, -3.0f, 4.0f, 5.0f},
        {MF_HYPOTF, -0.0f, -0.0f, 0.0f},
        /* F.10.4.4 */
        {MF_POWF, NAN, 0.0f, 1.0f}, {MF_POWF, NAN, -0.0f, 1.0f},
        {MF_POWF, 1.0f, NAN, 1.0f}, {MF_POWF, -1.0f, inf, 1.0f},
        {MF_POWF, -1.0f, -inf, 1.0f}, {MF_POWF, -0.0f, -3.0f, -inf},
        {MF_POWF, 0.0f, -3.0f, inf}, {MF_POWF, -0.0f, -2.0f, inf},
        {MF_POWF, -0.0f, -0.5f, inf}, {MF_POWF, -0.0f, -inf, inf},
        {MF_POWF, -0.0f, 3.0f, -0.0f}, {MF_POWF, -0.0f, 2.0f, 0.0f},
        {MF_POWF, -0.0f, 0.5f, 0.0f}, {MF_POWF, 0.5f, -inf, inf},
        {MF_POWF, -2.0f, -inf, 0.0f}, {MF_POWF, -0.5f, inf, 0.0f},
        {MF_POWF, 2.0f, inf, inf}, {MF_POWF, -inf, -3.0f, -0.0f},
        {MF_POWF, -inf, -2.0f, 0.0f}, {MF_POWF, -inf, 3.0f, -inf},
        {MF_POWF, -inf, 2.5f, inf}, {MF_POWF, inf, -0.5f, 0.0f},
        {MF_POWF, inf, 0.5f, inf}, {MF_POWF, -8.0f, 1.0f / 3, NAN},
        {MF_POWF, -1.0f, 0.5f, NAN},
        /* exact, halfway (ties to even), overflow, underflow */
        {MF_POWF, 2.0f, 10.0f, 1024.0f}, {MF_POWF, -2.0f, 3.0f, -8.0f},
        {MF_POWF, 9.0f, 0.5f, 3.0f}, {MF_POWF, 0x1p-20f, -1.5f, 0x1p30f},
        {MF_POWF, 4097.0f, 2.0f, 16785408.0f},
        {MF_POWF, 4099.0f, 2.0f, 16801800.0f},
        {MF_POWF, 0x1p-75f, 2.0f, 0.0f}, {MF_POWF, -0x1p-75f, 3.0f, -0.0f},
        {MF_POWF, 2.0f, -149.0f, 0x1p-149f}, {MF_POWF, 2.0f, -150.0f, 0.0f},
        {MF_POWF, 0x1.8p-75f, 2.0f, 0x1p-149f},
        {MF_POWF, 2.0f, 128.0f, inf}, {MF_POWF, -2.0f, 127.0f, -0x1p127f},
        {MF_POWF, -2.0f, 129.0f, -inf},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        test_set_context("Annex F: %s(%a, %a)", mf_names[cases[i].f],
                         (double)cases[i].x, (double)cases[i].y);
        CHECK_BITS_F32(duo_math_eval(cases[i].f, cases[i].x, cases[i].y),
                       cases[i].want);
    }
    test_set_context("%s", "");
}

static int64_t ordered_d(double v)
{
    uint64_t u = test_bits_f64(v);
    return u >> 63 ? -(int64_t)(u & 0x7fffffffffffffffull) : (int64_t)u;
}

/* How far, in ulps, duo's result (at most 1 ulp from the exact value)
 * may lie from glibc's: 1 where glibc's function is within 1 ulp too;
 * below 1 + glibc's error where it is not (glibc 2.36 against MPFR,
 * profiles/math/double.md: log10 up to 1.57 ulps, erf 1.08, sinh 1.89,
 * cosh 1.90, tanh 2.04, cbrt 3.26).  The exact check is
 * test_math_mpfr.c's. */
static int64_t libm_tol_d(int f)
{
    switch (f) {
    case MD_LOG10: case MD_ERF: case MD_SINH: case MD_COSH: return 2;
    case MD_TANH: return 3;
    case MD_CBRT: return 4;
    default: return 1;
    }
}

/* The double functions: kernel vs host bits at several sizes, then the
 * host results against glibc, NaN bits and Annex F. */
static void test_double_functions(void)
{
    const size_t sizes[] = {0, 1, 1009, NSAMPLE_D};
    const size_t bytes = (NSAMPLE_D + GUARD) * sizeof(double);
    double *x = (double *)test_xmalloc(NSAMPLE_D * sizeof(double));
    double *y = (double *)test_xmalloc(NSAMPLE_D * sizeof(double));
    double *h = (double *)test_xmalloc(NSAMPLE_D * sizeof(double));
    double *hsc = (double *)test_xmalloc(2 * NSAMPLE_D * sizeof(double));
    double *got = (double *)test_xmalloc(bytes);
    mf_sample_d(x, NSAMPLE_D, 31);
    mf_sample_d(y, NSAMPLE_D, 37);
    double *dx = (double *)to_device(x, NSAMPLE_D * sizeof(double));
    double *dy = (double *)to_device(y, NSAMPLE_D * sizeof(double));
    double *dout = (double *)test_device_alloc(bytes);
    for (int f = 0; f < MD_COUNT; ++f) {
        for (size_t i = 0; i < NSAMPLE_D; ++i)
            h[i] = duo_math_eval_d(f, x[i], y[i]);
        if (f == MD_SIN || f == MD_COS)
            memcpy(hsc + (f == MD_COS) * NSAMPLE_D, h,
                   NSAMPLE_D * sizeof(double));
        if (f == MD_SINCOS_SIN || f == MD_SINCOS_COS) {
            test_set_context("%s vs %s", md_names[f],
                             f == MD_SINCOS_SIN ? "sin" : "cos");
            const double *want = hsc + (f == MD_SINCOS_COS) * NSAMPLE_D;
            size_t i = 0;
            while (i < NSAMPLE_D &&
                   test_bits_f64(h[i]) == test_bits_f64(want[i]))
                ++i;
            CHECK_MSG(i == NSAMPLE_D, "%s(%a) = %a, not the same bits as "
                      "%a", md_names[f], i < NSAMPLE_D ? x[i] : 0.0,
                      i < NSAMPLE_D ? h[i] : 0.0,
                      i < NSAMPLE_D ? want[i] : 0.0);
        }
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
            const size_t n = sizes[s];
            test_set_context("%s in a kernel, n = %zu", md_names[f], n);
            CHECK_OK(duo_memset(dout, TEST_POISON_BYTE, bytes));
            CHECK_OK(DUO_LAUNCH(math_eval_d, n, n, f, dx, dy, dout));
            test_poison_f64(got, NSAMPLE_D + GUARD);
            test_to_host(got, dout, (n + GUARD) * sizeof(double));
            size_t bad = 0, first = 0;
            for (size_t i = 0; i < n; ++i)
                if (test_bits_f64(got[i]) != test_bits_f64(h[i]) && !bad++)
                    first = i;
            CHECK_MSG(bad == 0, "%zu of %zu results differ from the host; "
                      "first %s(%a): kernel %a, host %a", bad, n,
                      md_names[f], x[first], got[first], h[first]);
            for (size_t i = n; i < n + GUARD; ++i)
                CHECK_MSG(test_is_poison_f64(got[i]), "element %zu past n "
                          "was written", i);
        }
        test_set_context("%s on the host vs glibc", md_names[f]);
        size_t bad = 0;
        for (size_t i = 0; i < NSAMPLE_D && bad < 5; ++i) {
            double want = mf_libm_d(f, x[i], y[i]);
            double nan_arg =
                isnan(x[i]) || f < MD_FIRST_BINARY ? x[i] : y[i];
            int ok;
            if (isnan(want))
                ok = test_bits_f64(h[i]) ==
                     (isnan(nan_arg)
                          ? test_bits_f64(nan_arg) | 0x0008000000000000ull
                          : 0x7ff8000000000000ull);
            else if (isinf(want) || want == 0.0)
                ok = test_bits_f64(h[i]) == test_bits_f64(want);
            else
                ok = !isnan(h[i]) &&
                     ordered_d(h[i]) - ordered_d(want) >= -libm_tol_d(f) &&
                     ordered_d(h[i]) - ordered_d(want) <= libm_tol_d(f);
            if (!ok)
                ++bad;
            CHECK_MSG(ok, "%s(%a) = %a; glibc: %a", md_names[f], x[i], h[i],
                      want);
        }
    }
    const double inf = INFINITY;
    const struct {
        int f;
        double x, want;
    } cases[] = {
        {MD_EXP, -inf, 0.0}, {MD_EXP, inf, inf}, {MD_EXP, 0.0, 1.0},
        {MD_EXP, -0.0, 1.0}, {MD_LOG, 1.0, 0.0}, {MD_LOG, 0.0, -inf},
        {MD_LOG, -0.0, -inf}, {MD_LOG, inf, inf}, {MD_SIN, -0.0, -0.0},
        {MD_COS, -0.0, 1.0}, {MD_TAN, -0.0, -0.0}, {MD_ATAN, -0.0, -0.0},
        {MD_ASIN, -0.0, -0.0}, {MD_ACOS, 1.0, 0.0},
        {MD_EXP2, -inf, 0.0}, {MD_EXP2, inf, inf}, {MD_EXP2, 3.0, 8.0},
        {MD_EXP2, -1074.0, 0x1p-1074}, {MD_EXP2, 1024.0, inf},
        {MD_EXPM1, -0.0, -0.0}, {MD_EXPM1, -inf, -1.0},
        {MD_EXPM1, inf, inf}, {MD_LOG2, 1.0, 0.0}, {MD_LOG2, 0.0, -inf},
        {MD_LOG2, -0.0, -inf}, {MD_LOG2, inf, inf},
        {MD_LOG2, 0x1p-1074, -1074.0}, {MD_LOG2, 0x1p1023, 1023.0},
        {MD_LOG10, 1.0, 0.0}, {MD_LOG10, -0.0, -inf},
        {MD_LOG10, 1e10, 10.0}, {MD_LOG1P, -0.0, -0.0},
        {MD_LOG1P, -1.0, -inf}, {MD_LOG1P, inf, inf},
        {MD_SINCOS_SIN, -0.0, -0.0}, {MD_SINCOS_COS, -0.0, 1.0},
        {MD_SINH, -0.0, -0.0}, {MD_SINH, -inf, -inf},
        {MD_COSH, -inf, inf}, {MD_COSH, -0.0, 1.0},
        {MD_TANH, -0.0, -0.0}, {MD_TANH, -inf, -1.0},
        {MD_TANH, inf, 1.0}, {MD_CBRT, -27.0, -3.0},
        {MD_CBRT, -0.0, -0.0}, {MD_CBRT, -inf, -inf},
        {MD_CBRT, 0x1p-1074, 0x1p-358}, {MD_ERF, -0.0, -0.0},
        {MD_ERF, inf, 1.0}, {MD_ERF, -inf, -1.0}, {MD_ERF, 6.0, 1.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        test_set_context("Annex F: %s(%a)", md_names[cases[i].f], cases[i].x);
        CHECK_BITS_F64(duo_math_eval_d(cases[i].f, cases[i].x, 0.0),
                       cases[i].want);
    }
    const struct {
        int f;
        double x, y, want;
    } cases2[] = {
        {MD_HYPOT, inf, NAN, inf}, {MD_HYPOT, NAN, -inf, inf},
        {MD_HYPOT, -3.0, 4.0, 5.0}, {MD_HYPOT, -0.0, -0.0, 0.0},
        {MD_HYPOT, 0x1p1023, 0x1p1023, 0x1.6a09e667f3bcdp+1023},
        {MD_HYPOT, 0x1p-1074, -0.0, 0x1p-1074},
        {MD_HYPOT, 0x1.fffffffffffffp1023, 0x1p1000, inf},
        {MD_HYPOT, 3e-320, 4e-320, 5e-320},
    };
    for (size_t i = 0; i < sizeof cases2 / sizeof cases2[0]; ++i) {
        test_set_context("Annex F: %s(%a, %a)", md_names[cases2[i].f],
                         cases2[i].x, cases2[i].y);
        CHECK_BITS_F64(duo_math_eval_d(cases2[i].f, cases2[i].x,
                                       cases2[i].y),
                       cases2[i].want);
    }
    const struct {
        double x, y, want;
    } pows[] = {
        {NAN, -0.0, 1.0}, {1.0, NAN, 1.0}, {-1.0, -inf, 1.0},
        {-0.0, -3.0, -inf}, {-0.0, -4.0, inf}, {-0.0, 3.0, -0.0},
        {-0.0, 0.5, 0.0}, {0.5, -inf, inf}, {2.0, -inf, 0.0},
        {-inf, -3.0, -0.0}, {-inf, 3.0, -inf}, {-inf, 0.5, inf},
        {inf, -1.0, 0.0}, {-8.0, 1.0 / 3, NAN}, {10.0, 22.0, 1e22},
        {-3.0, 3.0, -27.0}, {2.0, -1074.0, 0x1p-1074}, {2.0, -1075.0, 0.0},
        {2.0, 1024.0, inf}, {-2.0, 1023.0, -0x1p1023}, {81.0, 0.25, 3.0},
    };
    for (size_t i = 0; i < sizeof pows / sizeof pows[0]; ++i) {
        test_set_context("Annex F: pow(%a, %a)", pows[i].x, pows[i].y);
        CHECK_BITS_F64(duo_math_eval_d(MD_POW, pows[i].x, pows[i].y),
                       pows[i].want);
    }
    CHECK_OK(duo_free(dx));
    CHECK_OK(duo_free(dy));
    CHECK_OK(duo_free(dout));
    free(x);
    free(y);
    free(h);
    free(hsc);
    free(got);
    test_set_context("%s", "");
}

/* powf and pow on their own sample (mf_sample_pow: thresholds, x near
 * 1, negative x, exact and halfway cases, ...): kernel bits equal to the
 * host's, and the host within 1 ulp of glibc's pow (NaN bits as
 * nan_wanted says). */
static void test_pow_sample(void)
{
    const size_t n = NSAMPLE_D;
    float *x = (float *)test_xmalloc(n * sizeof(float));
    float *y = (float *)test_xmalloc(n * sizeof(float));
    float *got = (float *)test_xmalloc(n * sizeof(float));
    double *xd = (double *)test_xmalloc(n * sizeof(double));
    double *yd = (double *)test_xmalloc(n * sizeof(double));
    double *gotd = (double *)test_xmalloc(n * sizeof(double));
    mf_sample_pow(x, y, n, 41);
    mf_sample_pow_d(xd, yd, n, 43);
    float *dx = (float *)to_device(x, n * sizeof(float));
    float *dy = (float *)to_device(y, n * sizeof(float));
    float *dout = (float *)test_device_alloc(n * sizeof(float));
    double *dxd = (double *)to_device(xd, n * sizeof(double));
    double *dyd = (double *)to_device(yd, n * sizeof(double));
    double *doutd = (double *)test_device_alloc(n * sizeof(double));
    CHECK_OK(DUO_LAUNCH(math_eval, n, n, (int)MF_POWF, dx, dy, dout));
    CHECK_OK(DUO_LAUNCH(math_eval_d, n, n, (int)MD_POW, dxd, dyd, doutd));
    test_to_host(got, dout, n * sizeof(float));
    test_to_host(gotd, doutd, n * sizeof(double));
    size_t bad = 0, badd = 0;
    for (size_t i = 0; i < n && bad + badd < 5; ++i) {
        test_set_context("powf(%a, %a), pow's sample", (double)x[i],
                         (double)y[i]);
        float h = duo_powf(x[i], y[i]);
        float want = (float)pow((double)x[i], (double)y[i]);
        int ok = test_bits_f32(got[i]) == test_bits_f32(h);
        if (isnan(want))
            ok = ok && test_bits_f32(h) == nan_wanted(MF_POWF, x[i], y[i]);
        else if (isinf(want) || want == 0.0f)
            ok = ok && test_bits_f32(h) == test_bits_f32(want);
        else
            ok = ok && !isnan(h) && ordered(h) - ordered(want) >= -1 &&
                 ordered(h) - ordered(want) <= 1;
        bad += !ok;
        CHECK_MSG(ok, "kernel %a, host %a, glibc's pow rounded to float %a",
                  (double)got[i], (double)h, (double)want);
        test_set_context("pow(%a, %a), pow's sample", xd[i], yd[i]);
        double hd = duo_pow(xd[i], yd[i]);
        /* glibc's pow gives NaN for a signalling NaN even where Annex F
         * says 1 (pow(sNaN, 0), pow(1, sNaN)). */
        double wd = yd[i] == 0.0 || xd[i] == 1.0 ? 1.0 : pow(xd[i], yd[i]);
        double nan_arg = isnan(xd[i]) ? xd[i] : yd[i];
        ok = test_bits_f64(gotd[i]) == test_bits_f64(hd);
        if (isnan(wd))
            ok = ok && test_bits_f64(hd) ==
                           (isnan(nan_arg) ? test_bits_f64(nan_arg) |
                                                 0x0008000000000000ull
                                           : 0x7ff8000000000000ull);
        else if (isinf(wd) || wd == 0.0)
            ok = ok && test_bits_f64(hd) == test_bits_f64(wd);
        else
            ok = ok && !isnan(hd) && ordered_d(hd) - ordered_d(wd) >= -1 &&
                 ordered_d(hd) - ordered_d(wd) <= 1;
        badd += !ok;
        CHECK_MSG(ok, "kernel %a, host %a, glibc %a", gotd[i], hd, wd);
    }
    void *bufs[] = {dx, dy, dout, dxd, dyd, doutd};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i)
        CHECK_OK(duo_free(bufs[i]));
    free(x);
    free(y);
    free(got);
    free(xd);
    free(yd);
    free(gotd);
    test_set_context("%s", "");
}

int main(void)
{
    test_annex_f();
    test_init_or_skip();
    double t0 = test_seconds();
    float *x = (float *)test_xmalloc(NSAMPLE * sizeof(float));
    float *y = (float *)test_xmalloc(NSAMPLE * sizeof(float));
    mf_sample(x, y, NSAMPLE, 29);
    test_no_contraction();
    float *host = test_kernel_matches_host(x, y);
    test_against_libm(x, y, host);
    test_double_functions();
    test_pow_sample();
    free(host);
    free(x);
    free(y);
    CHECK_OK(duo_synchronize());
    CHECK_OK(duo_finalize());
    printf("math: %.2f s\n", test_seconds() - t0);
    return test_summary("math");
}
