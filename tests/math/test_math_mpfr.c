/*
 * test_math_mpfr.c - every function of <duo/math.h> returns the
 * correctly rounded float, bit for bit, against MPFR (every reference
 * from MPFR, none from libm): on all pairs of special values, 2^20
 * pseudo-random arguments per function (math_sample.h) and 64 hard cases
 * per function (arguments whose exact result lies within 2^-41 relative
 * of a rounding boundary, found by searching with glibc's double
 * functions); powf also on 2^20 pairs of pow's own sample (thresholds,
 * x near 1, exact and halfway cases: mf_sample_pow).  The double
 * functions: 2^20 arguments each (pow: mf_sample_pow_d), every result
 * one of the two doubles next to the exact value (at most 1 ulp); the
 * count of results not correctly rounded and the largest error in ulps
 * are printed.
 * Host only.  Without MPFR at configure time it says so and
 * exits 77 (skipped).  tests/math/exhaustive.c is the full check.
 */
#include <stdio.h>

#ifndef DUO_HAVE_MPFR
int main(void)
{
    printf("SKIP: MPFR was not found when this build was configured "
           "(install libmpfr-dev and reconfigure)\n");
    return 77;
}
#else

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "math_funcs.h"
#include "math_libm.h"
#include "math_ref.h"
#include "math_sample.h"
#include "test_util.h"

#define NSAMPLE ((size_t)1 << 20)
#define NHARD 64

/* Arguments whose result, by glibc's double function, lies within 2^12
 * double ulps of a float rounding boundary. */
static size_t find_hard(int f, float *x, float *y, size_t max)
{
    test_rng rng;
    test_rng_seed(&rng, 1000 + (uint64_t)f);
    size_t n = 0;
    for (long tries = 0; n < max && tries < 40000000L; ++tries) {
        float a = test_f32_from_bits(test_rng_u32(&rng));
        float b = test_rng_wide_f(&rng, -20, 20);
        if (f < MF_FIRST_BINARY && tries % 2)
            a = test_rng_wide_f(&rng, -20, 8);
        if (f == MF_POWF) { /* x in (0, 16), y in [-20, 20] */
            a = 8.0f + 8.0f * test_rng_uniform_f(&rng);
            b = 20.0f * test_rng_uniform_f(&rng);
        }
        float got = duo_math_eval(f, a, b); /* only to skip NaN, inf, 0 */
        if (!isfinite(got) || got == 0.0f)
            continue;
        const double d = mf_libm(f, a, b);
        if (!(fabs(d) >= 0x1p-125))
            continue;
        uint64_t bits = test_bits_f64(d);
        int64_t low = (int64_t)(bits & 0x1fffffffu) - 0x10000000;
        if (low > -(1 << 12) && low < (1 << 12)) {
            x[n] = a;
            y[n] = b;
            ++n;
        }
    }
    return n;
}

static void check_range(int f, const float *x, const float *y, size_t n,
                        const char *what)
{
    long bad = 0;
    test_set_context("%s, %s", mf_names[f], what);
#pragma omp parallel
    {
        mref_ctx c;
        mref_init(&c);
#pragma omp for schedule(dynamic, 4096) reduction(+ : bad)
        for (long i = 0; i < (long)n; ++i) {
            float got = duo_math_eval(f, x[i], y[i]);
            float want = mref_eval(&c, f, x[i], y[i], 1);
            int ok = isnan(want) ? isnan(got)
                                 : test_bits_f32(got) == test_bits_f32(want);
            if (!ok && bad++ < 5) {
#pragma omp critical
                CHECK_MSG(0, "%s(%a, %a) = %a (0x%08x), correctly rounded "
                          "%a (0x%08x)", mf_names[f], (double)x[i],
                          (double)y[i], (double)got,
                          (unsigned)test_bits_f32(got), (double)want,
                          (unsigned)test_bits_f32(want));
            }
        }
        mref_free(&c);
    }
    CHECK_MSG(bad == 0, "%ld of %zu results not correctly rounded", bad, n);
    test_set_context("%s", "");
}

/* Each double result is RD or RU of the exact value (MPFR at 160 bits
 * down to 2^-1300, then rounded down and up to 53 bits with
 * double's exponent range). */
static void check_doubles(void)
{
    const size_t n = (size_t)1 << 20;
    double *x = (double *)test_xmalloc(n * sizeof(double));
    double *y = (double *)test_xmalloc(n * sizeof(double));
    for (int f = 0; f < MD_COUNT; ++f) {
        long bad = 0, wrong = 0;
        double max_ulps = 0.0;
        if (f == MD_POW) {
            mf_sample_pow_d(x, y, n, 4127);
        } else {
            mf_sample_d(x, n, 4099);
            mf_sample_d(y, n, 4111);
        }
        test_set_context("%s vs MPFR", md_names[f]);
#pragma omp parallel
        {
            mpfr_t a, b, e, r;
            mpfr_inits2(160, a, b, e, (mpfr_ptr)0);
            mpfr_init2(r, 53);
            double my_max = 0.0;
#pragma omp for schedule(dynamic, 4096) reduction(+ : bad, wrong)
            for (long i = 0; i < (long)n; ++i) {
                double got = duo_math_eval_d(f, x[i], y[i]);
                /* The exact value down to 2^-1300 (far below the
                 * subnormals), then rounded with double's range. */
                mpfr_set_emin(-1300);
                mpfr_set_emax(1024);
                mpfr_set_d(a, x[i], MPFR_RNDN);
                mpfr_set_d(b, y[i], MPFR_RNDN);
                mref_exact_d(f, e, a, b);
                int ok;
                if (mpfr_nan_p(e)) {
                    ok = isnan(got);
                } else {
                    mpfr_set_emin(-1073);
                    int t = mpfr_set(r, e, MPFR_RNDD);
                    t = mpfr_check_range(r, t, MPFR_RNDD);
                    t = mpfr_subnormalize(r, t, MPFR_RNDD);
                    double lo = mpfr_get_d(r, MPFR_RNDD);
                    t = mpfr_set(r, e, MPFR_RNDU);
                    t = mpfr_check_range(r, t, MPFR_RNDU);
                    t = mpfr_subnormalize(r, t, MPFR_RNDU);
                    double hi = mpfr_get_d(r, MPFR_RNDU);
                    ok = test_bits_f64(got) == test_bits_f64(lo) ||
                         test_bits_f64(got) == test_bits_f64(hi);
                    t = mpfr_set(r, e, MPFR_RNDN);
                    t = mpfr_check_range(r, t, MPFR_RNDN);
                    t = mpfr_subnormalize(r, t, MPFR_RNDN);
                    wrong += test_bits_f64(got) !=
                             test_bits_f64(mpfr_get_d(r, MPFR_RNDN));
                    /* |got - exact| in ulps, for normal results. */
                    if (isfinite(got) && isfinite(hi) &&
                        fabs(lo) >= 0x1p-1022 && lo != hi) {
                        mpfr_set_emin(-1300);
                        mpfr_sub_d(b, e, got, MPFR_RNDN);
                        double u = fabs(mpfr_get_d(b, MPFR_RNDN)) /
                                   (fabs(hi - lo));
                        if (u > my_max)
                            my_max = u;
                    }
                }
                if (!ok && bad++ < 5) {
#pragma omp critical
                    CHECK_MSG(0, "%s(%a, %a) = %a is more than 1 ulp from "
                              "the exact value", md_names[f], x[i], y[i],
                              got);
                }
            }
            mpfr_clears(a, b, e, (mpfr_ptr)0);
            mpfr_clear(r);
#pragma omp critical
            if (my_max > max_ulps)
                max_ulps = my_max;
        }
        CHECK_MSG(bad == 0, "%ld of %zu results more than 1 ulp off", bad, n);
        printf("%s: %zu arguments, %ld not correctly rounded, largest "
               "error %.4f ulp (normal results)\n", md_names[f], n, wrong, max_ulps);
    }
    test_set_context("%s", "");
    free(x);
    free(y);
}

int main(void)
{
    double t0 = test_seconds();
    float *x = (float *)test_xmalloc(NSAMPLE * sizeof(float));
    float *y = (float *)test_xmalloc(NSAMPLE * sizeof(float));
    float hx[NHARD], hy[NHARD];
    mf_sample(x, y, NSAMPLE, 2029);
    for (int f = 0; f < MF_COUNT; ++f) {
        check_range(f, x, y, NSAMPLE, "special and random arguments");
        size_t nh = find_hard(f, hx, hy, NHARD);
        test_set_context("%s, hard cases", mf_names[f]);
        CHECK_MSG(nh == NHARD, "found only %zu hard cases", nh);
        check_range(f, hx, hy, nh, "hard cases");
    }
    mf_sample_pow(x, y, NSAMPLE, 2039);
    check_range(MF_POWF, x, y, NSAMPLE, "pow's sample (math_sample.h)");
    free(x);
    free(y);
    check_doubles();
    printf("math_mpfr: %.2f s\n", test_seconds() - t0);
    return test_summary("math_mpfr");
}
#endif
