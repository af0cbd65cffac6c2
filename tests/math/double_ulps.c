/*
 * double_ulps.c - math-double-ulps: the largest error of each double
 * function of <duo/math.h>, in ulps of the exact value, over a sample.
 *
 *   math-double-ulps [-n N] [--seed S] [--libm] [FUNC...]
 *
 * For each function (all of them without FUNC; names as md_names in
 * math_funcs.h) N arguments (default 2^20), a fifth each: uniform bit
 * patterns; uniform over the range where the function is used; |x|
 * spread over the exponents 2^-70..2^70; |x| over all exponents; and
 * values near the function's own edges (around 1 for log, log2, log10;
 * around -1 for log1p; the method boundaries and thresholds otherwise).
 * The second argument of atan2 and hypot: a third uniform bit patterns,
 * a third x times 2^-[0, 40), a third over all exponents; pow's as
 * pow_y says.  MPFR computes each exact value at 200 bits (exponent
 * range wide enough that nothing over- or underflows before the
 * comparison); the error is
 * |result - exact| / ulp(exact), ulp in double's format (2^-1074 at
 * least).  Results past DBL_MAX count as right when they are inf (or
 * DBL_MAX: one of the two neighbours); NaN must be NaN.
 *
 * One line per function: arguments, the largest error over normal
 * results and its argument, the largest over subnormal results, and how
 * many results were 1 ulp or more off (the contract: none).  Exit status
 * 1 if any was.  --libm measures the C library's double functions
 * instead (sin and cos for sincos), on the same arguments.  OpenMP
 * threads share the arguments.  Not a CTest test; the record is
 * profiles/math/double.md.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sincos in glibc */
#endif
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpfr.h>

#include "math_funcs.h"
#include "math_libm.h"
#include "math_ref.h"

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t next(rng *r)
{
    return mix(r->s += 0x9E3779B97F4A7C15ull);
}

static double u01(rng *r)
{
    return (double)(next(r) >> 11) * 0x1p-53;
}

static double from_bits(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

/* 2^e (1 + u) with e uniform in [emin, emax], random sign. */
static double spread(rng *r, int emin, int emax)
{
    const uint64_t span = (uint64_t)(emax - emin + 1);
    double v = ldexp(1.0 + u01(r), emin + (int)(next(r) % span));
    return next(r) & 1 ? -v : v;
}

/* Where each function is used, and its edges. */
static void range_of(int f, double *lo, double *hi)
{
    switch (f) {
    case MD_EXP: case MD_EXPM1: *lo = -746; *hi = 710; return;
    case MD_EXP2: *lo = -1076; *hi = 1025; return;
    case MD_LOG: case MD_LOG2: case MD_LOG10: case MD_CBRT:
        *lo = 0; *hi = 1e6; return;
    case MD_LOG1P: *lo = -1; *hi = 1e3; return;
    case MD_ASIN: case MD_ACOS: *lo = -1; *hi = 1; return;
    case MD_SINH: case MD_COSH: *lo = -711; *hi = 711; return;
    case MD_TANH: *lo = -21; *hi = 21; return;
    case MD_ERF: *lo = -6; *hi = 6; return;
    default: *lo = -100; *hi = 100; return;
    }
}

static const double edges[] = {
    0x1p-54, 0x1p-28, 0x1p-26, 0x1p-7, 0x1p-6, 0.0625, 0.125, 0.5, 1.0,
    2.0, 5.9215871957945073, 5.9375, 20.0, 38.0, 40.0, 709.78, 710.47,
    1024.0, 1075.0};

static double edge_arg(rng *r, int f)
{
    if (f == MD_LOG || f == MD_LOG2 || f == MD_LOG10)
        return 1.0 + ldexp(u01(r) - 0.5, -(int)(next(r) % 60));
    if (f == MD_LOG1P && next(r) & 1)
        return -1.0 + ldexp(u01(r), -(int)(next(r) % 60));
    const double e = edges[next(r) % (sizeof edges / sizeof edges[0])];
    const double v = e * (1.0 + ldexp(u01(r) - 0.5, -(int)(next(r) % 50)));
    return next(r) & 1 ? -v : v;
}

static double arg_x(rng *r, int f, uint64_t i)
{
    double lo, hi;
    switch (i % 5) {
    case 0: return from_bits(next(r));
    case 1: range_of(f, &lo, &hi); return lo + (hi - lo) * u01(r);
    case 2: return spread(r, -70, 70);
    case 3: return spread(r, -1074, 1023);
    default: return edge_arg(r, f);
    }
}

/* pow's y: a third uniform in [-8, 8], a third integers in [-64, 64],
 * a third t / log2|x| with t uniform in [-1100, 1030], so that x^y lands
 * anywhere in double's range, subnormals and overflow included. */
static double pow_y(rng *r, double x)
{
    switch (next(r) % 3) {
    case 0: return 16.0 * u01(r) - 8.0;
    case 1: return (double)((int)(next(r) % 129) - 64);
    default: {
        const double l = log2(fabs(x));
        return l != 0.0 && isfinite(l) ? (2130.0 * u01(r) - 1100.0) / l
                                       : 16.0 * u01(r) - 8.0;
    }
    }
}

static double arg_y(rng *r, double x)
{
    switch (next(r) % 3) {
    case 0: return from_bits(next(r));
    case 1: return x * ldexp(u01(r), -(int)(next(r) % 40));
    default: return spread(r, -1074, 1023);
    }
}

typedef struct worst {
    double err, x, y;
} worst;

/* The error of got against the exact e, in ulps; -1 when got is right
 * by the special rules (NaN, beyond DBL_MAX, exact zero), 1e9 when it is
 * wrong there. */
static double error_ulps(double got, mpfr_ptr e, mpfr_ptr d, int *sub)
{
    *sub = 0;
    if (mpfr_nan_p(e))
        return isnan(got) ? -1.0 : 1e9;
    if (isnan(got))
        return 1e9;
    if (mpfr_zero_p(e))
        return got == 0.0 ? -1.0 : 1e9;
    mpfr_abs(d, e, MPFR_RNDN);
    if (mpfr_inf_p(e) || mpfr_cmp_d(d, DBL_MAX) > 0) {
        const int pos = mpfr_sgn(e) > 0;
        return fabs(got) >= DBL_MAX && (got > 0) == pos ? -1.0 : 1e9;
    }
    if (isinf(got))
        return 1e9;
    long ex = mpfr_get_exp(e); /* |e| in [2^(ex-1), 2^ex) */
    long ue = ex - 53 < -1074 ? -1074 : ex - 53;
    *sub = ex - 1 < -1022;
    mpfr_set_d(d, got, MPFR_RNDN);
    mpfr_sub(d, d, e, MPFR_RNDN);
    mpfr_mul_2si(d, d, -ue, MPFR_RNDN);
    return fabs(mpfr_get_d(d, MPFR_RNDN));
}

static int run(int f, uint64_t n, uint64_t seed, int libm)
{
    worst wn = {0, 0, 0}, ws = {0, 0, 0};
    long bad = 0;
    const int binary = f >= MD_FIRST_BINARY;
#pragma omp parallel
    {
        worst tn = {0, 0, 0}, ts = {0, 0, 0};
        mpfr_set_emin(mpfr_get_emin_min());
        mpfr_set_emax(mpfr_get_emax_max());
        mpfr_t a, b, e, d;
        mpfr_inits2(200, a, b, e, d, (mpfr_ptr)0);
#pragma omp for schedule(dynamic, 4096) reduction(+ : bad)
        for (long i = 0; i < (long)n; ++i) {
            rng r = {mix(seed * 0x100000001B3ull + (uint64_t)f) ^
                     mix((uint64_t)i)};
            const double x = arg_x(&r, f, (uint64_t)i);
            const double y = f == MD_POW ? pow_y(&r, x)
                             : binary   ? arg_y(&r, x)
                                        : 0.0;
            const double got =
                libm ? mf_libm_d(f, x, y) : duo_math_eval_d(f, x, y);
            mpfr_set_d(a, x, MPFR_RNDN);
            mpfr_set_d(b, y, MPFR_RNDN);
            mref_exact_d(f, e, a, b);
            int sub;
            const double err = error_ulps(got, e, d, &sub);
            if (err >= 1.0) {
#pragma omp critical
                if (bad < 8)
                    printf("  %s(%a, %a) = %a: %.4g ulps\n", md_names[f], x,
                           y, got, err);
                ++bad;
            }
            worst *w = sub ? &ts : &tn;
            if (err > w->err) {
                w->err = err;
                w->x = x;
                w->y = y;
            }
        }
#pragma omp critical
        {
            if (tn.err > wn.err)
                wn = tn;
            if (ts.err > ws.err)
                ws = ts;
        }
        mpfr_clears(a, b, e, d, (mpfr_ptr)0);
    }
    printf("%-10s %9llu  max %.4f ulp (normal results, at %a", md_names[f],
           (unsigned long long)n, wn.err, wn.x);
    if (binary)
        printf(", %a", wn.y);
    printf("), %.4f (subnormal results), %ld at 1 ulp or more\n", ws.err,
           bad);
    fflush(stdout);
    return bad != 0;
}

int main(int argc, char **argv)
{
    uint64_t n = (uint64_t)1 << 20, seed = 1;
    int chosen[MD_COUNT] = {0}, any = 0, libm = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
            n = strtoull(argv[++i], NULL, 0);
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 0);
        } else if (strcmp(argv[i], "--libm") == 0) {
            libm = 1;
        } else {
            int f = 0;
            while (f < MD_COUNT && strcmp(md_names[f], argv[i]) != 0)
                ++f;
            if (f == MD_COUNT) {
                fprintf(stderr, "math-double-ulps: no function %s\n",
                        argv[i]);
                return 2;
            }
            chosen[f] = any = 1;
        }
    }
    int failed = 0;
    for (int f = 0; f < MD_COUNT; ++f)
        if (!any || chosen[f])
            failed |= run(f, n, seed, libm);
    return failed;
}
