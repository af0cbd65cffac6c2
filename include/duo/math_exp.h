/*
 * duo/math_exp.h - expf, exp2f, expm1f of duo/math.h and the double exp,
 * exp2, expm1 (the hyperbolic functions: duo/math_hyp.h).
 * Included by <duo/math.h>.
 *
 * Method: x = (64 E + j) log(2)/64 + r with |r| <= log(2)/128, so
 * e^x = 2^E 2^(j/64) e^r; 2^(j/64) comes from a table as a pair of
 * doubles, e^r - 1 from its Taylor polynomial (degree 6, truncation below
 * 2^-65 relative).  The result is a pair hi + lo with relative error
 * below 2^-58, rounded once to float (duo_m_dd_to_float_); the
 * exhaustive check (tests/math/exhaustive.c) confirms every input.
 *
 * expf and exp2f first try a fast path (duo_m_expf_fast_): the same
 * reduction and table in plain double, e^r - 1 (2^r - 1) by its Taylor
 * polynomial of degree 4, and 2^(j/64) (1 + p) in one fma; error below
 * 2^-44.3 of the result (bound at duo_m_expf_fast_), so below 2^8.7
 * units in the last place of the double result y.  When y's bits below
 * float precision are more than 2^10 units from a float midpoint
 * (duo_m_round_ok_, math_core.h), y rounds to the correctly rounded
 * float.  Otherwise (about 2^-18 of the arguments), and for NaN and
 * |x| near or beyond where e^x leaves float's normal range, the careful
 * path above decides: duo_m_expf_cr_ and duo_m_exp2f_cr_, which were
 * expf and exp2f before the fast path, so the bits are theirs.  math-fast-vs-cr
 * (tests/math/fast_vs_cr.c) compares the two on all 2^32 floats.
 *
 * expm1f does the same with e^x - 1 = (2^E T - 1) + 2^E (T p + Tl) in
 * plain double (duo_m_expm1_fast_, which sinhf, coshf and tanhf share),
 * p = e^r - 1 to degree 6 so that the result stays within 7.2 units of
 * its last place where it is small; the test allows 64.  The careful
 * path is duo_m_expm1f_cr_.
 */
#ifndef DUO_MATH_EXP_H
#define DUO_MATH_EXP_H

#include <duo/math_core.h>

/* 2^E (*hi + *lo) = 2^(k/64) (1 + p) for p = e^r - 1, |p| < 2^-7. */
DUO_DEVICE void duo_m_exp_scale_(double kd, double p, double *hi,
                                 double *lo)
{
    int k = (int)kd;
    int j = k & 63;
    int E = (k - j) / 64;
    double th = DUO_MATH_T(duo_m_exp2_64_)[2 * j];
    double tl = DUO_MATH_T(duo_m_exp2_64_)[2 * j + 1];
    double s = duo_m_pow2_(E);
    double e;
    double h = duo_m_fast_two_sum_(th, duo_m_fma_(th, p, duo_m_fma_(tl, p, tl)),
                                   &e);
    *hi = duo_m_mul_(h, s);
    *lo = duo_m_mul_(e, s);
}

/* e^x = *hi + *lo for a double x holding a float (or twice a float)
 * with |x| <= 105. */
DUO_DEVICE void duo_m_exp_dd_(double x, double *hi, double *lo)
{
    const double shift = 0x1.8p52; /* rounds to an integer */
    double kd = duo_m_fma_(x, DUO_M_64_LN2, shift) - shift;
    /* x - k hi is exact: both are multiples of 2^-48 (or k = 0) and the
     * difference is below 2^-7. */
    double t = duo_m_fma_(-kd, DUO_M_LN2_64_HI, x);
    double r = duo_m_fma_(-kd, DUO_M_LN2_64_LO, t);
    double q = duo_m_fma_(r, 1.0 / 720, 1.0 / 120);
    q = duo_m_fma_(q, r, 1.0 / 24);
    q = duo_m_fma_(q, r, 1.0 / 6);
    q = duo_m_fma_(q, r, 0.5);
    double p = duo_m_fma_(duo_m_mul_(r, r), q, r);
    duo_m_exp_scale_(kd, p, hi, lo);
}

/* e^x - 1 = *hi + *lo for a double x holding a float (or twice a float)
 * with -104 <= x <= 105; the Taylor series of e^x - 1 for |x| < 1/16
 * (degree 10, truncation below 2^-65 relative). */
DUO_DEVICE void duo_m_expm1_dd_(double x, double *hi, double *lo)
{
    if (fabs(x) < 0.0625) {
        double q = duo_m_fma_(x, 1.0 / 3628800, 1.0 / 362880);
        q = duo_m_fma_(q, x, 1.0 / 40320);
        q = duo_m_fma_(q, x, 1.0 / 5040);
        q = duo_m_fma_(q, x, 1.0 / 720);
        q = duo_m_fma_(q, x, 1.0 / 120);
        q = duo_m_fma_(q, x, 1.0 / 24);
        q = duo_m_fma_(q, x, 1.0 / 6);
        q = duo_m_fma_(q, x, 0.5);
        *hi = x;
        *lo = duo_m_mul_(duo_m_mul_(x, x), q);
        return;
    }
    double h, l, e;
    duo_m_exp_dd_(x, &h, &l);
    *hi = duo_m_two_sum_(h, -1.0, &e);
    *lo = e + l;
}

/* The careful paths of expf and exp2f: e^x and 2^x as pairs of doubles
 * (relative error below 2^-58), rounded once to float. */
DUO_DEVICE float duo_m_expf_cr_(float x)
{
    if (duo_m_isnan_(x))
        return duo_m_qnan_(x);
    if (x > 89.0f)
        return duo_f32_from_bits_(0x7f800000u); /* e^89 > FLT_MAX: +inf */
    if (x < -104.0f)
        return 0.0f; /* e^-104 < 2^-150: rounds to +0 */
    double hi, lo;
    duo_m_exp_dd_((double)x, &hi, &lo);
    return duo_m_dd_to_float_(hi, lo);
}

DUO_DEVICE float duo_m_exp2f_cr_(float x)
{
    if (duo_m_isnan_(x))
        return duo_m_qnan_(x);
    if (x >= 128.0f)
        return duo_f32_from_bits_(0x7f800000u);
    if (x <= -151.0f)
        return 0.0f;
    /* x = k/64 + r exactly, |r| <= 1/128; 2^r - 1 by its Taylor series
     * (degree 7, truncation below 2^-70). */
    const double shift = 0x1.8p52;
    double xd = (double)x;
    double kd = duo_m_fma_(xd, 64.0, shift) - shift;
    double r = duo_m_fma_(kd, -1.0 / 64, xd);
    double q = duo_m_fma_(r, DUO_M_EXP2_C7, DUO_M_EXP2_C6);
    q = duo_m_fma_(q, r, DUO_M_EXP2_C5);
    q = duo_m_fma_(q, r, DUO_M_EXP2_C4);
    q = duo_m_fma_(q, r, DUO_M_EXP2_C3);
    q = duo_m_fma_(q, r, DUO_M_EXP2_C2);
    q = duo_m_fma_(q, r, DUO_M_EXP2_C1);
    double p = duo_m_mul_(r, q);
    double hi, lo;
    duo_m_exp_scale_(kd, p, &hi, &lo);
    return duo_m_dd_to_float_(hi, lo);
}

/* The fast path of expf (base 0) and exp2f (base 2): 1 and the correctly
 * rounded *out, 0 when the rounding test fails, -1 when x is not for
 * the fast path (NaN, or |x| above 87.33 / 126, which includes every
 * x whose e^x / 2^x is not a normal float); on 0 and -1 the careful
 * path decides.
 *
 * expf: k = round(64 x / log 2) (the shift rounds: the low bits of
 * z = 64 x / log 2 + 1.5 2^52 are k), r = x - k L in one fma, L =
 * log(2)/64 rounded (2^-61.3 off): r is within 2^-53 |r| + |k| 2^-61.3
 * < 2^-60.5 + 2^-48.3 of x - k log(2)/64 (|k| < 2^13), |r| < 2^-7.5.
 * exp2f: x = k/64 + r exactly, |r| <= 2^-7, and the polynomial takes
 * r log 2 (coefficients DUO_M_EXP2_C*).  With j = k mod 64, E =
 * (k - j)/64, T = 2^(j/64) rounded (2^-53 relative): p = r + r^2 (1/2 +
 * r/6 + r^2/24) (2^r - 1 likewise), truncation below 2^-44.5 (r^5/120
 * and what follows), the roundings of the evaluation below 2^-59; y =
 * fma(T, p, T), one more rounding (2^-53).  With r's error (e^r moves
 * by as much, relatively: 2^-48.2) y is within 2^-44.3 |y|
 * of 2^-E e^x (2^-E 2^x), 2^8.7 units of y's last place; the test
 * allows 2^10.  Then 2^E y (E added to y's exponent, exact: the result
 * is a normal float) rounds to float correctly. */
DUO_DEVICE int duo_m_expf_fast_(float x, int base, float *out)
{
    const double shift = 0x1.8p52; /* rounds to an integer */
    double xd = (double)x;
    uint32_t ax = duo_bits_from_f32_(x) & 0x7fffffffu;
    double z, kd, r, q;
    if (base == 0) {
        if (ax > 0x42aea8f6u) /* 87.33 */
            return -1; /* NaN, or not certainly a normal float */
        z = duo_m_fma_(xd, DUO_M_64_LN2, shift);
        kd = z - shift;
        r = duo_m_fma_(-kd, 0x1.62e42fefa39efp-7, xd); /* log(2)/64 */
        q = duo_m_fma_(duo_m_mul_(r, r), 1.0 / 24,
                       duo_m_fma_(r, 1.0 / 6, 0.5));
        q = duo_m_fma_(duo_m_mul_(r, r), q, r);
    } else {
        if (ax > 0x42fc0000u) /* 126 */
            return -1;
        z = duo_m_fma_(xd, 64.0, shift);
        kd = z - shift;
        r = duo_m_fma_(kd, -1.0 / 64, xd);
        q = duo_m_fma_(duo_m_mul_(r, r), DUO_M_EXP2_C4,
                       duo_m_fma_(r, DUO_M_EXP2_C3, DUO_M_EXP2_C2));
        q = duo_m_fma_(duo_m_mul_(r, r), q, duo_m_mul_(r, DUO_M_EXP2_C1));
    }
    /* k = kb mod 2^18 (|k| < 2^14); (k - j) / 64 is E, and (kb - j) << 46
     * is E << 52 modulo 2^64. */
    uint64_t kb = duo_bits_from_f64_(z);
    uint64_t j = kb & 63u;
    double T = DUO_MATH_T(duo_m_exp2_64_)[2 * j];
    double y = duo_m_fma_(T, q, T);
    if (!duo_m_round_ok_(y, 1024))
        return 0;
    *out = (float)duo_f64_from_bits_(duo_bits_from_f64_(y) + ((kb - j) << 46));
    return 1;
}

DUO_DEVICE float duo_expf(float x)
{
    float y;
    return duo_m_expf_fast_(x, 0, &y) > 0 ? y : duo_m_expf_cr_(x);
}

DUO_DEVICE float duo_exp2f(float x)
{
    float y;
    return duo_m_expf_fast_(x, 2, &y) > 0 ? y : duo_m_exp2f_cr_(x);
}

/* expm1f's careful path: e^x - 1 as a pair of doubles, rounded once. */
DUO_DEVICE float duo_m_expm1f_cr_(float x)
{
    if (duo_m_isnan_(x))
        return duo_m_qnan_(x);
    if (x > 89.0f)
        return duo_f32_from_bits_(0x7f800000u);
    if (x < -18.0f)
        return -1.0f; /* e^x < 2^-25: -1 + e^x rounds to -1 */
    if (x == 0.0f)
        return x; /* keeps the sign of zero */
    double hi, lo;
    duo_m_expm1_dd_((double)x, &hi, &lo);
    return duo_m_dd_to_float_(hi, lo);
}

/* e^z - 1 in plain double for the fast paths of expm1f, sinhf, coshf
 * and tanhf: z a float's value or twice it, -18 <= z <= 88.5 (eps =
 * 2^-53 below).  k = round(64 z / log 2) by the shift (|k| < 2^13.1; k
 * may be one off near a half-integer: |rho| <= log(2)/128 + 2^-40),
 * rho = z - k log(2)/64 by Cody-Waite: z - k L1 is exact (one fma; L1 =
 * DUO_M_LN2_64_D_HI, 36 bits, both multiples of 2^-42 where k != 0,
 * the difference below 2^-7), minus k L2 rounded once: r is within eps
 * |r| + 2^-86 of rho, |r| < 2^-7.5; r = z where k = 0.  p = r + r^2
 * (1/2 + r/6 + r^2/24 + r^3/120 + r^4/720): truncation below 2^-57.5
 * |r|, evaluation below eps |p| + 2^-8 eps |r|; so p is within 2.1 eps
 * |r| + 2^-85.9 of e^rho - 1.  With j = k mod 64, E = (k - j)/64 and T
 * + Tl = 2^(j/64) (the table's pair, |Tl| <= eps T): e^z - 1 = U +
 * 2^E V with U = 2^E T - 1 (exact for -1 <= E <= 52: Sterbenz, or both
 * multiples of 2^(E-52) below 2^(E+1); otherwise rounded once, and then
 * |m| >= 1/2, or |U| < |m| (1 + 2^-50)) and V = T p + Tl (one fma,
 * dropping Tl p <= eps T |p|), then one sum.  For k = 0 the result is p
 * itself (U = Tl = 0, T = 1): within 2.1 eps |m|, since |p| > |r| (1 -
 * 2^-8).  Otherwise |z| >= log(2)/128 - 2^-40 and 2^E T |r| <= 1.01 |m|
 * (e^|rho| |rho| e^z / |e^z - 1| is largest at the smallest |z|), so the
 * error is below eps |m| (the sum) + 2 eps |m| (U) + 1.01 (1 + 1 + 2.1)
 * eps |m| (V) + 2^E 2^-85.9 < 7.2 eps |m|: m = e^z - 1 within 7.2 units
 * of its last place. */
DUO_DEVICE double duo_m_expm1_fast_(double z)
{
    const double shift = 0x1.8p52;
    double kb = duo_m_fma_(z, DUO_M_64_LN2, shift);
    double kd = kb - shift;
    double t = duo_m_fma_(-kd, DUO_M_LN2_64_D_HI, z);
    double r = duo_m_fma_(-kd, DUO_M_LN2_64_D_LO, t);
    double q = duo_m_fma_(r, 1.0 / 720, 1.0 / 120);
    q = duo_m_fma_(q, r, 1.0 / 24);
    q = duo_m_fma_(q, r, 1.0 / 6);
    q = duo_m_fma_(q, r, 0.5);
    double p = duo_m_fma_(duo_m_mul_(r, r), q, r);
    /* k = kb's low bits (|k| < 2^14); (kb - j) << 46 is E << 52 mod 2^64 */
    uint64_t b = duo_bits_from_f64_(kb);
    uint64_t j = b & 63u;
    double T = DUO_MATH_T(duo_m_exp2_64_)[2 * j];
    double Tl = DUO_MATH_T(duo_m_exp2_64_)[2 * j + 1];
    double sc = duo_f64_from_bits_(0x3ff0000000000000ull + ((b - j) << 46));
    double V = duo_m_fma_(T, p, Tl);
    /* sc = 2^E, -29 <= E <= 128: both products exact */
    return (duo_m_mul_(T, sc) - 1.0) + duo_m_mul_(V, sc);
}

/* expm1f's fast path: 1 and the correctly rounded *out, 0 when the
 * rounding test fails, -1 where the careful path decides outright (NaN,
 * |x| < 2^-126 or x > 88.5).  For x < -17.5 (-inf included) the result
 * is -1: e^x < 2^-25, half the float spacing just above -1, so -1 + e^x
 * rounds to -1 (the careful path's answer too); deciding it here keeps
 * those lanes of a warp from taking the careful path's branches while
 * the others run this one.  Otherwise y = duo_m_expm1_fast_(x) is
 * within 7.2 units of its last place; the test allows 64
 * (duo_m_round_ok_, math_core.h).  |y| is a normal float's value:
 * |e^x - 1| >= (1 - 1/e) min(|x|, 1), and for |x| < 2^-125 (k = 0, y =
 * p) the correction r^2 q is below half a unit of x's last place, so y
 * = x; below 2^128 (e^88.5 < 2^127.7). */
DUO_DEVICE int duo_m_expm1f_fast_(float x, float *out)
{
    uint32_t ax = duo_bits_from_f32_(x) & 0x7fffffffu;
    if (x < -17.5f) {
        *out = -1.0f;
        return 1;
    }
    if (ax < 0x00800000u || !(x <= 88.5f))
        return -1;
    double y = duo_m_expm1_fast_((double)x);
    if (!duo_m_round_ok_(y, 64))
        return 0;
    *out = (float)y;
    return 1;
}

DUO_DEVICE float duo_expm1f(float x)
{
    float y;
    return duo_m_expm1f_fast_(x, &y) > 0 ? y : duo_m_expm1f_cr_(x);
}

/* 2^(k/64) e^(r + rl) for |r + rl| <= log(2)/128 (and a hair), |rl| <=
 * 2^-52 |r|, rounded to double once (before the scaling by 2^E): e^r -
 * 1 = er by the degree 6 Taylor polynomial in double, and 2^(j/64) (1 +
 * er)(1 + rl) = th + [th er + (th rl + tl (1 + er))], each product in
 * an fma of its own (summing er + rl first cost 0.003 ulp more).
 * duo_exp and duo_exp2 end here; error below 0.51 ulp (subnormal
 * results: rounded twice, below 1 ulp). */
DUO_DEVICE double duo_m_exp_tail_d_(double kd, double r, double rl)
{
    double q = duo_m_fma_(r, 1.0 / 720, 1.0 / 120);
    q = duo_m_fma_(q, r, 1.0 / 24);
    q = duo_m_fma_(q, r, 1.0 / 6);
    q = duo_m_fma_(q, r, 0.5);
    double er = duo_m_fma_(duo_m_mul_(r, r), q, r); /* e^r - 1 */
    int k = (int)kd;
    int j = k & 63;
    double th = DUO_MATH_T(duo_m_exp2_64_)[2 * j];
    double tl = DUO_MATH_T(duo_m_exp2_64_)[2 * j + 1];
    double lo = duo_m_fma_(th, er, duo_m_fma_(th, rl, duo_m_fma_(tl, er, tl)));
    return duo_m_ldexp_(th + lo, (k - j) / 64);
}

/* e^x for a double: the same method with x - k log(2)/64 as a pair of
 * doubles (log(2)/64 in three parts), error below 0.51 ulp (subnormal
 * results: below 1 ulp). */
DUO_DEVICE double duo_exp(double x)
{
    if (duo_m_isnan_d_(x))
        return duo_m_qnan_d_(x);
    if (x > 709.79)
        return (double)INFINITY; /* e^709.79 > DBL_MAX */
    if (x < -745.2)
        return 0.0; /* below 2^-1075: rounds to +0 */
    const double shift = 0x1.8p52;
    double kd = duo_m_fma_(x, DUO_M_64_LN2, shift) - shift;
    /* x - k hi is exact (Sterbenz; k hi has at most 53 bits). */
    double t = duo_m_fma_(-kd, DUO_M_LN2_64_D_HI, x);
    double pe, re;
    double p = duo_m_two_prod_(kd, DUO_M_LN2_64_D_LO, &pe);
    double r = duo_m_two_sum_(t, -p, &re);
    double rl = (re - pe) - duo_m_mul_(kd, DUO_M_LN2_64_D_LO2);
    return duo_m_exp_tail_d_(kd, r, rl);
}

/* ------------------------------------------------------------------ */
/* Doubles: exp2, expm1 and the pairs sinh, cosh and tanh share        */

/* 2^E (*h + *l) = 2^(k/64) e^(r + rl) for |r + rl| <= log(2)/128 (and a
 * hair), as a pair with relative error below 2^-64: e^r - 1 = r + s with
 * s = rl + r^2 q (the degree 6 Taylor polynomial of duo_exp, truncation
 * below 2^-65; the roundings add below 2^-67), and 2^(j/64) (1 + r + s)
 * = th + th r + [tl + th s + tl (r + s)], th r exact as a pair.
 * Returns E. */
DUO_DEVICE int duo_m_exp_parts_d_(double kd, double r, double rl,
                                  double *h, double *l)
{
    double q = duo_m_fma_(r, 1.0 / 720, 1.0 / 120);
    q = duo_m_fma_(q, r, 1.0 / 24);
    q = duo_m_fma_(q, r, 1.0 / 6);
    q = duo_m_fma_(q, r, 0.5);
    double s = duo_m_fma_(duo_m_mul_(r, r), q, rl);
    int k = (int)kd;
    int j = k & 63;
    double th = DUO_MATH_T(duo_m_exp2_64_)[2 * j];
    double tl = DUO_MATH_T(duo_m_exp2_64_)[2 * j + 1];
    double ae, be;
    double a = duo_m_two_prod_(th, r, &ae);
    double b = duo_m_fast_two_sum_(th, a, &be);
    double lo = be + (ae + duo_m_fma_(th, s, duo_m_fma_(tl, r + s, tl)));
    *h = duo_m_fast_two_sum_(b, lo, l);
    return (k - j) / 64;
}

/* e^x = 2^E (*h + *l) for a double |x| <= 746, relative error below
 * 2^-64; x - k log(2)/64 as in duo_exp.  Returns E. */
DUO_DEVICE int duo_m_exp_pair_d_(double x, double *h, double *l)
{
    const double shift = 0x1.8p52;
    double kd = duo_m_fma_(x, DUO_M_64_LN2, shift) - shift;
    double t = duo_m_fma_(-kd, DUO_M_LN2_64_D_HI, x);
    double pe, re;
    double p = duo_m_two_prod_(kd, DUO_M_LN2_64_D_LO, &pe);
    double r = duo_m_two_sum_(t, -p, &re);
    double rl = (re - pe) - duo_m_mul_(kd, DUO_M_LN2_64_D_LO2);
    return duo_m_exp_parts_d_(kd, r, rl, h, l);
}

/* e^x - 1 = 2^E (*h + *l) for a double -40 <= x <= 746 with |x| >=
 * 2^-54, relative error below 2^-60.  Below 1/16 the Taylor series
 * x + x^2/2 + x^3 (1/3! + ... + x^8/11!) (truncation below 2^-72
 * relative), x^2 exact as a pair, the rest (below 2^-10 of the result)
 * in double (E = 0); above, 2^E (h + l) - 1 = 2^E (h - 2^-E + l), h -
 * 2^-E exact as a pair (|e^x - 1| > e^x / 17 there: the cancellation
 * costs at most 5 of the 64 bits of e^x's pair). */
DUO_DEVICE int duo_m_expm1_pair_d_(double x, double *h, double *l)
{
    if (fabs(x) < 0.0625) {
        double q = duo_m_fma_(x, 1.0 / 39916800, 1.0 / 3628800);
        q = duo_m_fma_(q, x, 1.0 / 362880);
        q = duo_m_fma_(q, x, 1.0 / 40320);
        q = duo_m_fma_(q, x, 1.0 / 5040);
        q = duo_m_fma_(q, x, 1.0 / 720);
        q = duo_m_fma_(q, x, 1.0 / 120);
        q = duo_m_fma_(q, x, 1.0 / 24);
        q = duo_m_fma_(q, x, 1.0 / 6);
        double pl, e;
        double ph = duo_m_two_prod_(x, x, &pl);
        double tail = duo_m_mul_(duo_m_mul_(ph, x), q);
        double s = duo_m_fast_two_sum_(x, 0.5 * ph, &e);
        *h = duo_m_fast_two_sum_(s, e + (0.5 * pl + tail), l);
        return 0;
    }
    double bh, bl, e;
    int E = duo_m_exp_pair_d_(x, &bh, &bl);
    if (E < 1000) {
        bh = duo_m_two_sum_(bh, -duo_m_pow2_(-E), &e);
        bl += e;
    }
    *h = duo_m_fast_two_sum_(bh, bl, l);
    return E;
}

/* 2^x for a double: x = k/64 + t exactly (|t| <= 1/128), r + rl = t log
 * 2 as a pair (|rl| <= 2^-52 |r|), then duo_exp's last steps
 * (duo_m_exp_tail_d_); error below 0.51 ulp (subnormal results: rounded
 * twice, below 1 ulp). */
DUO_DEVICE double duo_exp2(double x)
{
    if (duo_m_isnan_d_(x))
        return duo_m_qnan_d_(x);
    if (x >= 1024.0)
        return (double)INFINITY;
    if (x < -1075.0)
        return 0.0; /* below 2^-1075: rounds to +0 */
    const double shift = 0x1.8p52;
    /* 64 x is exact; x - k/64 too: it is a multiple of x's ulp (or 0)
     * and no larger than |x|. */
    double kd = (duo_m_mul_(x, 64.0) + shift) - shift;
    double t = duo_m_fma_(kd, -1.0 / 64, x);
    double rl;
    double r = duo_m_two_prod_(t, DUO_M_LN2_HI, &rl);
    rl = duo_m_fma_(t, DUO_M_LN2_LO, rl);
    return duo_m_exp_tail_d_(kd, r, rl);
}

/* e^x - 1 for a double, error below 0.51 ulp. */
DUO_DEVICE double duo_expm1(double x)
{
    if (duo_m_isnan_d_(x))
        return duo_m_qnan_d_(x);
    if (x > 709.79)
        return (double)INFINITY; /* e^709.79 > DBL_MAX */
    if (x < -38.0)
        return -1.0; /* e^x < 2^-54: -1 + e^x rounds to -1 */
    if (fabs(x) < 0x1p-54)
        return x; /* x + x^2/2 rounds to x (+-0 kept) */
    double h, l;
    int E = duo_m_expm1_pair_d_(x, &h, &l);
    return duo_m_ldexp_(h + l, E);
}

/* e^(zh + zl) 2^eoff rounded to double, in plain double where
 * duo_m_exp_pair_d_ and pow's duo_m_pow_exp_ carry a pair: for -707 <
 * zh <= 710.5 and |zl| <= 2^-42, and results that are normal or
 * overflow (pow's for results above 2^-1020; sinh's and cosh's e^|x|/2
 * for |x| >= 40, whose 2^-1 scales the result, not e^|x|, so that it
 * overflows only past 710.47).  k, j and t = zh - k H exactly as in
 * duo_exp (|k| < 2^17); r = t - k L + zl in two roundings (each below
 * 2^-53 |r| <= 2^-60.5: |r| <= log(2)/128 + 2^-42 < 2^-7.5), the third
 * part of log(2)/64 left out (|k| L2 < 2^-83).  e^r - 1 = r + r^2 (1/2
 * + r/6 + ... + r^4/720) (truncation below r^7/5040 < 2^-64.8, the
 * terms of r^2 within 2^-66, p's own rounding 2^-60.5), times 2^(j/64)
 * = th + tl from the table: v = th + fma(th, p, tl), the fma rounded
 * (below 2^-53 |th p + tl| < 2^-59.5, th >= 1).  Before v's own rounding
 * the error, with 2^-65 for an error of z's own, is below (2^-59.5 +
 * 2^-60.5 + 2^-63.5 + 2^-59.5) th < 2^-58.1 v (v >= th (1 - 2^-7.4)):
 * 0.03 units of v's last place, 0.53 ulp in all.  The scaling by
 * 2^(E + eoff) is exact for these results. */
DUO_DEVICE double duo_m_exp_plain_d_(double zh, double zl, int eoff)
{
    const double shift = 0x1.8p52; /* rounds to an integer */
    double kd = duo_m_fma_(zh, DUO_M_64_LN2, shift) - shift;
    double t = duo_m_fma_(-kd, DUO_M_LN2_64_D_HI, zh);
    double r = duo_m_fma_(-kd, DUO_M_LN2_64_D_LO, t) + zl;
    double s = duo_m_mul_(r, r);
    double q = duo_m_fma_(s,
                          duo_m_fma_(s, 1.0 / 720,
                                     duo_m_fma_(r, 1.0 / 120, 1.0 / 24)),
                          duo_m_fma_(r, 1.0 / 6, 0.5));
    double p = duo_m_fma_(s, q, r);
    int k = (int)kd;
    int j = k & 63;
    double th = DUO_MATH_T(duo_m_exp2_64_)[2 * j];
    double tl = DUO_MATH_T(duo_m_exp2_64_)[2 * j + 1];
    return duo_m_ldexp_(th + duo_m_fma_(th, p, tl), (k - j) / 64 + eoff);
}

#endif /* DUO_MATH_EXP_H */
