/*
 * duo/math_log.h - logf, log2f, log10f, log1pf of duo/math.h and the
 * double log, log2, log10, log1p.
 * Included by <duo/math.h>.
 *
 * Method: u = 2^e m, m in [1, 2); the top 7 bits of m pick c ~ 1/m from a
 * table (12 bits, so m c is exact for a float m), r = m c - 1 with
 * |r| < 2^-7, and log u = e log 2 - log c + log1p(r), log1p(r) by its
 * Taylor series (degree 9, truncation below 2^-66 relative).  For
 * m >= 3/2 the table holds -log c - log 2 and e counts one more, so that
 * no sum cancels by more than a factor of 2; around u = 1 the table value
 * is 0 (c = 1 or 1/2).  The sum is carried as a pair of doubles, error
 * below 2^-60 relative, and rounded once to float.
 *
 * logf, log2f and log10f first try a fast path (duo_m_logf_fast_): the
 * same reduction in plain double, log1p(r) by its Taylor polynomial of
 * degree 6, and the sum E log 2 + T + p in three roundings.  Its error
 * is below 2^-42.7 of the result (bound below, duo_m_logf_fast_), so
 * below 2^10.3 units in the last place of the double result y; when y's
 * bits below float precision are more than 2^12 units from a float
 * midpoint, y rounds to the correctly rounded float (duo_m_round_ok_,
 * math_core.h).  Otherwise (about 2^-16 of the arguments), and for
 * zero, negative, infinite and NaN arguments, the careful path above
 * decides: duo_m_logf_cr_ and its siblings, which were logf, log2f and
 * log10f before the fast path, so the bits are theirs.  math-fast-vs-cr
 * (tests/math/fast_vs_cr.c) compares the two on all 2^32 floats.
 *
 * log1pf likewise (duo_m_log1pf_fast_): below 2^-6 the series to x^8
 * in one fma (within 4.8 units, the test allows 64), above it logf's
 * fast path applied to u = 1 + x (exact in double below 2^53); the
 * careful path is duo_m_log1pf_cr_.
 */
#ifndef DUO_MATH_LOG_H
#define DUO_MATH_LOG_H

#include <duo/math_core.h>

/* log u = *hi + *lo for a positive finite normal double u. */
DUO_DEVICE void duo_m_log_dd_(double u, double *hi, double *lo)
{
    uint64_t b = duo_bits_from_f64_(u);
    int e = (int)(b >> 52) - 1023;
    int i = (int)((b >> 45) & 127u);
    double m = duo_f64_from_bits_((b & 0x000fffffffffffffull) |
                                  0x3ff0000000000000ull);
    double c = DUO_MATH_T(duo_m_log_c_)[i];
    double pe;
    double p = duo_m_two_prod_(m, c, &pe);
    double r = p - 1.0; /* exact: p is within 2^-7 of 1 */
    double q = duo_m_fma_(r, 1.0 / 9, -1.0 / 8);
    q = duo_m_fma_(q, r, 1.0 / 7);
    q = duo_m_fma_(q, r, -1.0 / 6);
    q = duo_m_fma_(q, r, 1.0 / 5);
    q = duo_m_fma_(q, r, -1.0 / 4);
    q = duo_m_fma_(q, r, 1.0 / 3);
    q = duo_m_fma_(q, r, -0.5);
    double tail = duo_m_mul_(duo_m_mul_(r, r), q);
    double E = (double)(e + (i >= 64));
    double ae;
    double ah = duo_m_two_prod_(E, DUO_M_LN2_HI, &ae);
    ae = duo_m_fma_(E, DUO_M_LN2_LO, ae);
    double e1, e2;
    double s1 = duo_m_two_sum_(ah, DUO_MATH_T(duo_m_log_l_)[2 * i], &e1);
    double s2 = duo_m_two_sum_(s1, r, &e2);
    *hi = s2;
    /* log1p(r + pe) = log1p(r) + pe (1 - r) + O(pe r^2) */
    *lo = (e1 + e2) + (ae + DUO_MATH_T(duo_m_log_l_)[2 * i + 1]) +
          (duo_m_fma_(-pe, r, pe) + tail);
}

/* The special values shared by logf, log2f and log10f; 1 when *out is
 * the result. */
DUO_DEVICE int duo_m_log_special_(float x, float *out)
{
    uint32_t b = duo_bits_from_f32_(x);
    if (duo_m_isnan_(x)) {
        *out = duo_m_qnan_(x);
        return 1;
    }
    if ((b & 0x7fffffffu) == 0) {
        *out = duo_f32_from_bits_(0xff800000u); /* log(+-0) = -inf */
        return 1;
    }
    if (b >> 31) {
        *out = duo_m_nan_(); /* log of a negative number */
        return 1;
    }
    if (b == 0x7f800000u) {
        *out = x;
        return 1;
    }
    return 0;
}

/* (hi + lo) (ch + cl), the low part of the product kept. */
DUO_DEVICE float duo_m_dd_mul_to_float_(double hi, double lo, double ch,
                                         double cl)
{
    double pe;
    double p = duo_m_two_prod_(hi, ch, &pe);
    pe += duo_m_fma_(hi, cl, duo_m_mul_(lo, ch));
    return duo_m_dd_to_float_(p, pe);
}

/* The careful paths: log x, log2 x and log10 x as pairs of doubles
 * (relative error below 2^-58), rounded once to float.  The fast paths
 * below fall back on them. */
DUO_DEVICE float duo_m_logf_cr_(float x)
{
    float out;
    if (duo_m_log_special_(x, &out))
        return out;
    double hi, lo;
    duo_m_log_dd_((double)x, &hi, &lo);
    return duo_m_dd_to_float_(hi, lo);
}

DUO_DEVICE float duo_m_log2f_cr_(float x)
{
    float out;
    if (duo_m_log_special_(x, &out))
        return out;
    double hi, lo;
    duo_m_log_dd_((double)x, &hi, &lo);
    return duo_m_dd_mul_to_float_(hi, lo, DUO_M_INVLN2_HI, DUO_M_INVLN2_LO);
}

DUO_DEVICE float duo_m_log10f_cr_(float x)
{
    float out;
    if (duo_m_log_special_(x, &out))
        return out;
    double hi, lo;
    duo_m_log_dd_((double)x, &hi, &lo);
    return duo_m_dd_mul_to_float_(hi, lo, DUO_M_INVLN10_HI,
                                   DUO_M_INVLN10_LO);
}

/* log10(2), rounded to double */
#define DUO_M_LOG10_2 0x1.34413509f79ffp-2

/* The fast path of logf (base 0), log2f (base 2) and log10f (base 10):
 * 1 and the correctly rounded *out, 0 when the rounding test fails,
 * -1 when x is not for the fast path (x <= 0, inf, NaN); on 0 and -1
 * the careful path decides.
 *
 * x > 0 finite = 2^e m (a subnormal x is first scaled by 2^23, exactly),
 * i = the top 7 bits of m's fraction and c = c_i as in duo_m_log_dd_,
 * E = e (+1 for i >= 64: adding 2^22 to the bits carries into the
 * exponent just then), T = the table's -log c (- log 2 for i >= 64),
 * r = m c - 1 exact by one fma (m c is a multiple of 2^-35 within 2^-7
 * of 1).  p = r + r^2 (a2 + a3 r + ... + a6 r^4), a_k = (-1)^(k+1)/k
 * rounded: truncation below |r|^7/7 < 2^-44.8 |r| (|r| < 2^-7), the
 * coefficients' and the evaluation's roundings below 2^-52 |r|:
 * |p - log1p(r)| < 2^-44.7 |p|.  s = T + p and y = E log 2 + s (one fma
 * with log 2 rounded, |E| 2^-55.3 off) each round once (2^-53), and T
 * is rounded (2^-53).  Over the 128 table entries and all E, |T|, |p|
 * and |s| stay below 3.6 |y| (the table is built so that nothing
 * cancels; y = p exactly where E = T = 0) and |E| 2^-55.3 < 2^-53.5 |y|,
 * so the error is below 3.6 * 2^-44.7 |y| + (1 + 2 * 3.6 + 0.7) 2^-53 |y|
 * < 2^-42.8 |y|.  log2f takes y = E + s / log 2 in one fma, log10f
 * y = E log10(2) + s / log(10) (a product and an fma): two or three
 * roundings more, the same ratios, still below 2^-42.7 |y|.  So
 * |y - exact| < 2^10.3 units of y's last place; the test allows 2^12. */
DUO_DEVICE int duo_m_logf_fast_(float x, int base, float *out)
{
    uint32_t bx = duo_bits_from_f32_(x);
    int adj = -127;
    if (bx - 0x00800000u >= 0x7f000000u) {
        if (bx - 1u >= 0x007fffffu)
            return -1; /* +-0, negative, inf, NaN */
        /* subnormal: x 2^23 is a normal float, exactly */
        bx = duo_bits_from_f32_((float)duo_m_mul_((double)x, 0x1p23));
        adj = -150;
    }
    int i = (int)((bx >> 16) & 127u);
    double E = (double)((int)((bx + 0x00400000u) >> 23) + adj);
    double m = (double)duo_f32_from_bits_((bx & 0x007fffffu) | 0x3f800000u);
    double r = duo_m_fma_(m, DUO_MATH_T(duo_m_log_c_)[i], -1.0);
    double T = DUO_MATH_T(duo_m_log_l_)[2 * i];
    double r2 = duo_m_mul_(r, r);
    double q56 = duo_m_fma_(r, -1.0 / 6, 1.0 / 5);
    double q34 = duo_m_fma_(r, -1.0 / 4, 1.0 / 3);
    double q = duo_m_fma_(r2, q56, q34);
    q = duo_m_fma_(r, q, -0.5);
    double s = T + duo_m_fma_(r2, q, r);
    double y;
    if (base == 0)
        y = duo_m_fma_(E, DUO_M_LN2_HI, s);
    else if (base == 2)
        y = duo_m_fma_(s, DUO_M_INVLN2_HI, E);
    else
        y = duo_m_fma_(E, DUO_M_LOG10_2, duo_m_mul_(s, DUO_M_INVLN10_HI));
    if (!duo_m_round_ok_(y, 4096))
        return 0;
    *out = (float)y;
    return 1;
}

DUO_DEVICE float duo_logf(float x)
{
    float y;
    return duo_m_logf_fast_(x, 0, &y) > 0 ? y : duo_m_logf_cr_(x);
}

DUO_DEVICE float duo_log2f(float x)
{
    float y;
    return duo_m_logf_fast_(x, 2, &y) > 0 ? y : duo_m_log2f_cr_(x);
}

DUO_DEVICE float duo_log10f(float x)
{
    float y;
    return duo_m_logf_fast_(x, 10, &y) > 0 ? y : duo_m_log10f_cr_(x);
}

/* log1pf's careful path: log(1 + x) as a pair of doubles, rounded
 * once. */
DUO_DEVICE float duo_m_log1pf_cr_(float x)
{
    if (duo_m_isnan_(x))
        return duo_m_qnan_(x);
    if (x == -1.0f)
        return duo_f32_from_bits_(0xff800000u);
    if (x < -1.0f)
        return duo_m_nan_();
    if (duo_bits_from_f32_(x) == 0x7f800000u)
        return x;
    double xd = (double)x;
    double hi, lo;
    if (fabs(xd) < 0x1p-6) {
        /* Taylor to x^10: truncation below 2^-63 relative. */
        double q = duo_m_fma_(xd, -1.0 / 10, 1.0 / 9);
        q = duo_m_fma_(q, xd, -1.0 / 8);
        q = duo_m_fma_(q, xd, 1.0 / 7);
        q = duo_m_fma_(q, xd, -1.0 / 6);
        q = duo_m_fma_(q, xd, 1.0 / 5);
        q = duo_m_fma_(q, xd, -1.0 / 4);
        q = duo_m_fma_(q, xd, 1.0 / 3);
        q = duo_m_fma_(q, xd, -0.5);
        hi = xd;
        lo = duo_m_mul_(duo_m_mul_(xd, xd), q);
    } else {
        /* 1 + x = uh + ul exactly; log(uh + ul) = log uh + ul/uh. */
        double ul;
        double uh = duo_m_two_sum_(1.0, xd, &ul);
        duo_m_log_dd_(uh, &hi, &lo);
        lo += ul / uh;
    }
    return duo_m_dd_to_float_(hi, lo);
}

/* log1pf's fast path: 1 and the correctly rounded *out, 0 when the
 * rounding test fails, -1 where the careful path decides outright (NaN,
 * x <= -1, +inf, |x| < 2^-126).  eps = 2^-53.
 *
 * |x| < 2^-6: y = x + x^2 q, q = -1/2 + x/3 - ... - x^6/8 by Horner,
 * x^2 exact, one fma: truncation below |x|^9 / 9 (1 + 2^-5) < 2^-51.1
 * |x|, the correction x^2 q (below 2^-6.9 |x|) within 3 eps of it, the
 * fma's rounding eps |y|, and |y| > |x| (1 - 2^-6.9): below 4.8 eps |y|,
 * 4.8 units of y's last place; the test allows 64.  (y is a normal
 * float's value: for |x| < 2^-125 the correction is below half a unit
 * of x's last place and y = x.)
 *
 * Otherwise u = 1 + x in double: exact for x < 2^53 (x's last place is
 * at least 2^-29, u below 2^53), else within eps u, which moves log u
 * (> 36) by less than 2^-58 of it.  u has at most 30 significant bits,
 * so logf's fast path (duo_m_logf_fast_) carries over to u: E, i =
 * u's top 7 fraction bits, r = m c_i - 1 exact (m c_i is a multiple of
 * 2^-41 within 2^-7 of 1), T, the degree 6 polynomial and the same two
 * sums, error below 2^-42.7 |y|, 2^10.3 units of y's last place; the
 * test allows 2^12.  |y| >= log1p(2^-6) (1 - 2^-40) > 2^-6.1. */
DUO_DEVICE int duo_m_log1pf_fast_(float x, float *out)
{
    uint32_t bx = duo_bits_from_f32_(x), ax = bx & 0x7fffffffu;
    if (ax < 0x00800000u || !(x > -1.0f && ax < 0x7f800000u))
        return -1;
    double xd = (double)x, y;
    uint32_t err;
    if (ax < 0x3c800000u) { /* 2^-6 */
        double q = duo_m_fma_(xd, -1.0 / 8, 1.0 / 7);
        q = duo_m_fma_(q, xd, -1.0 / 6);
        q = duo_m_fma_(q, xd, 1.0 / 5);
        q = duo_m_fma_(q, xd, -1.0 / 4);
        q = duo_m_fma_(q, xd, 1.0 / 3);
        q = duo_m_fma_(q, xd, -0.5);
        y = duo_m_fma_(duo_m_mul_(xd, xd), q, xd);
        err = 64;
    } else {
        double u = 1.0 + xd;
        uint64_t b = duo_bits_from_f64_(u);
        int i = (int)((b >> 45) & 127u);
        /* adding half the fraction range carries into the exponent
         * just where i >= 64 */
        double E = (double)((int)((b + 0x0008000000000000ull) >> 52) - 1023);
        double m = duo_f64_from_bits_((b & 0x000fffffffffffffull) |
                                      0x3ff0000000000000ull);
        double r = duo_m_fma_(m, DUO_MATH_T(duo_m_log_c_)[i], -1.0);
        double T = DUO_MATH_T(duo_m_log_l_)[2 * i];
        double r2 = duo_m_mul_(r, r);
        double q56 = duo_m_fma_(r, -1.0 / 6, 1.0 / 5);
        double q34 = duo_m_fma_(r, -1.0 / 4, 1.0 / 3);
        double q = duo_m_fma_(r2, q56, q34);
        q = duo_m_fma_(r, q, -0.5);
        y = duo_m_fma_(E, DUO_M_LN2_HI, T + duo_m_fma_(r2, q, r));
        err = 4096;
    }
    if (!duo_m_round_ok_(y, err))
        return 0;
    *out = (float)y;
    return 1;
}

DUO_DEVICE float duo_log1pf(float x)
{
    float y;
    return duo_m_log1pf_fast_(x, &y) > 0 ? y : duo_m_log1pf_cr_(x);
}

/* log u = *hi + *lo for a positive finite normal double u, the same
 * method with the series' second term -r^2/2 exact as a pair and added
 * to the high part: in duo_m_log_dd_ the whole tail, up to 2^-8 of the
 * result, is rounded in the low part (relative error about 2^-61, up to
 * 0.506 ulp in the result); here what is rounded is r^3 q', below 2^-15
 * of the result (relative error below 2^-66). */
DUO_DEVICE void duo_m_log_dd_acc_(double u, double *hi, double *lo)
{
    uint64_t b = duo_bits_from_f64_(u);
    int e = (int)(b >> 52) - 1023;
    int i = (int)((b >> 45) & 127u);
    double m = duo_f64_from_bits_((b & 0x000fffffffffffffull) |
                                  0x3ff0000000000000ull);
    double c = DUO_MATH_T(duo_m_log_c_)[i];
    double pe;
    double p = duo_m_two_prod_(m, c, &pe);
    double r = p - 1.0; /* exact: p is within 2^-7 of 1 */
    /* log1p(r) = r - r^2/2 + r^3 (1/3 - r/4 + ... + r^6/9). */
    double q = duo_m_fma_(r, 1.0 / 9, -1.0 / 8);
    q = duo_m_fma_(q, r, 1.0 / 7);
    q = duo_m_fma_(q, r, -1.0 / 6);
    q = duo_m_fma_(q, r, 1.0 / 5);
    q = duo_m_fma_(q, r, -1.0 / 4);
    q = duo_m_fma_(q, r, 1.0 / 3);
    double sl;
    double sq = duo_m_two_prod_(r, r, &sl);
    double tail = duo_m_mul_(duo_m_mul_(sq, r), q);
    double E = (double)(e + (i >= 64));
    double ae;
    double ah = duo_m_two_prod_(E, DUO_M_LN2_HI, &ae);
    ae = duo_m_fma_(E, DUO_M_LN2_LO, ae);
    double e1, e2, e3;
    double s1 = duo_m_two_sum_(ah, DUO_MATH_T(duo_m_log_l_)[2 * i], &e1);
    double s2 = duo_m_two_sum_(s1, r, &e2);
    double s3 = duo_m_two_sum_(s2, -0.5 * sq, &e3);
    *hi = s3;
    *lo = ((e1 + e2) + e3) + (ae + DUO_MATH_T(duo_m_log_l_)[2 * i + 1]) +
          (duo_m_fma_(-pe, r, pe) + (tail - 0.5 * sl));
}

/* log x = *hi + *lo for a positive finite double x (subnormals too:
 * log(x 2^64) - 64 log 2); acc picks duo_m_log_dd_acc_ over
 * duo_m_log_dd_ (duo_log keeps the latter, and its bits). */
DUO_DEVICE void duo_m_log_d_dd_(double x, int acc, double *hi, double *lo)
{
    if (duo_bits_from_f64_(x) < 0x0010000000000000ull) {
        double e;
        if (acc)
            duo_m_log_dd_acc_(duo_m_mul_(x, 0x1p64), hi, lo);
        else
            duo_m_log_dd_(duo_m_mul_(x, 0x1p64), hi, lo);
        *hi = duo_m_two_sum_(*hi, -64.0 * DUO_M_LN2_HI, &e);
        *lo = e + (*lo - 64.0 * DUO_M_LN2_LO);
    } else if (acc) {
        duo_m_log_dd_acc_(x, hi, lo);
    } else {
        duo_m_log_dd_(x, hi, lo);
    }
}

/* The special values shared by log, log2 and log10 for a double; 1 when
 * *out is the result. */
DUO_DEVICE int duo_m_log_special_d_(double x, double *out)
{
    uint64_t b = duo_bits_from_f64_(x);
    if (duo_m_isnan_d_(x))
        *out = duo_m_qnan_d_(x);
    else if ((b << 1) == 0)
        *out = -(double)INFINITY; /* log(+-0) */
    else if (b >> 63)
        *out = duo_m_nan_d_();
    else if (b == 0x7ff0000000000000ull)
        *out = x;
    else
        return 0;
    return 1;
}

/* log x for a double: the same method (the product m c is no longer
 * exact; its rounding error joins the low part), error below 0.51 ulp. */
DUO_DEVICE double duo_log(double x)
{
    double hi, lo;
    if (duo_m_log_special_d_(x, &hi))
        return hi;
    duo_m_log_d_dd_(x, 0, &hi, &lo);
    return hi + lo;
}

/* log2 x and log10 x for a double: log x as a pair (duo_m_log_dd_acc_,
 * relative error below 2^-66) times 1/log(2) or 1/log(10) as a pair, the
 * product's low part kept; error below 0.501 ulp.  Exact powers of 2
 * come out exact in log2 (k log 2 / log 2 is k within 2^-100). */
DUO_DEVICE double duo_m_log_scaled_d_(double x, double ch, double cl)
{
    double hi, lo, pe;
    if (duo_m_log_special_d_(x, &hi))
        return hi;
    duo_m_log_d_dd_(x, 1, &hi, &lo);
    double p = duo_m_two_prod_(hi, ch, &pe);
    return p + (pe + duo_m_fma_(hi, cl, duo_m_mul_(lo, ch)));
}

DUO_DEVICE double duo_log2(double x)
{
    return duo_m_log_scaled_d_(x, DUO_M_INVLN2_HI, DUO_M_INVLN2_LO);
}

DUO_DEVICE double duo_log10(double x)
{
    return duo_m_log_scaled_d_(x, DUO_M_INVLN10_HI, DUO_M_INVLN10_LO);
}

/* log(1 + x) for a double, error below 0.51 ulp.  For |x| < 2^-7 the
 * Taylor series x - x^2/2 + x^3 (1/3 - x/4 + ... - x^7/10) (truncation
 * below 2^-73 relative), x^2 exact as a pair; above, 1 + x = uh + ul
 * exactly and log(uh + ul) = log uh + ul/uh (the next term, (ul/uh)^2/2,
 * is below 2^-107), ul/uh as ul times 1/uh correctly rounded (within
 * 2^-52 of it: |ul/uh| <= 2^-53, so below 2^-105): the GPU's IEEE
 * division, a subroutine, had cost the kernel a fifth of its time; with
 * the reciprocal, and log uh by duo_m_log_dd_acc_ directly (uh is a
 * normal double), 0.55 -> 0.72 of CUDA's log1p on an H200. */
DUO_DEVICE double duo_log1p(double x)
{
    if (duo_m_isnan_d_(x))
        return duo_m_qnan_d_(x);
    if (x == -1.0)
        return -(double)INFINITY;
    if (x < -1.0)
        return duo_m_nan_d_();
    if (x == (double)INFINITY)
        return x;
    double ax = fabs(x);
    if (ax < 0x1p-54)
        return x; /* x - x^2/2 rounds to x (+-0 kept) */
    double hi, lo;
    if (ax < 0x1p-7) {
        double q = duo_m_fma_(x, -1.0 / 10, 1.0 / 9);
        q = duo_m_fma_(q, x, -1.0 / 8);
        q = duo_m_fma_(q, x, 1.0 / 7);
        q = duo_m_fma_(q, x, -1.0 / 6);
        q = duo_m_fma_(q, x, 1.0 / 5);
        q = duo_m_fma_(q, x, -1.0 / 4);
        q = duo_m_fma_(q, x, 1.0 / 3);
        double pl, e;
        double ph = duo_m_two_prod_(x, x, &pl);
        double tail = duo_m_mul_(duo_m_mul_(ph, x), q);
        hi = duo_m_fast_two_sum_(x, -0.5 * ph, &e);
        lo = e + (tail - 0.5 * pl);
    } else {
        double ul;
        double uh = duo_m_two_sum_(1.0, x, &ul);
        duo_m_log_dd_acc_(uh, &hi, &lo);
        lo += duo_m_mul_(ul, duo_m_rcp_rn_(uh));
    }
    return hi + lo;
}

#endif /* DUO_MATH_LOG_H */
