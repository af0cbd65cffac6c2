/*
 * duo/math_hyp.h - sinhf, coshf, tanhf of duo/math.h and the double
 * sinh, cosh, tanh.  Included by <duo/math.h>, after duo/math_exp.h.
 *
 * Float: from e^|x| as a pair of doubles (duo/math_exp.h), e^-|x| as its
 * reciprocal with the division's remainder, or e^(2|x|) - 1; rounded
 * once to float.  But first a fast path (duo_m_hypf_fast_): the same
 * forms from m = e^|x| - 1 or e^(2|x|) - 1 in plain double
 * (duo_m_expm1_fast_), sinh|x| = (m + m / (m + 1)) / 2, cosh|x| = (w +
 * 1/w) / 2 with w = m + 1, tanh|x| = m / (m + 2): no sum cancels, the
 * result is within 17.4 units of its last place, and when its bits below
 * float precision are more than 64 units from a float midpoint
 * (duo_m_round_ok_, math_core.h) it rounds to the correctly rounded
 * float.  Otherwise, and for NaN, |x| > 88.5 (tanhf: 10) and, for sinhf
 * and tanhf, |x| < 2^-126, the careful path decides: duo_m_sinhf_cr_
 * and its siblings, the functions as they were before, so the bits are
 * theirs (math-fast-vs-cr, tests/math/fast_vs_cr.c, on all 2^32
 * floats).
 *
 * Double: the forms that never subtract nearly equal numbers, with
 * E = e^|x| - 1 as a pair (duo_m_expm1_pair_d_, relative error below
 * 2^-60): sinh|x| = (E + E / (1 + E)) / 2, tanh|x| = E2 / (E2 + 2) with
 * E2 = e^(2|x|) - 1; both terms of each sum are positive, so the
 * relative error stays below about 2^-60 before the last rounding:
 * within 0.51 ulp.  cosh|x| = (e^|x| + e^-|x|) / 2 with both in plain
 * double from one reduction (duo_cosh): within 0.56 ulp.  For
 * |x| >= 40, e^-|x| is below 2^-115 of the result: sinh|x| = cosh|x| =
 * e^|x| / 2 in plain double, within 0.53 ulp, scaled by 2^-1 before it
 * is rounded, so that it overflows only where the result does (|x| >
 * 710.47), not at e^|x|'s own limit (709.78).
 * Tiny arguments by their series: sinh x = x + x^3/6, tanh x = x - x^3/3
 * (|x| < 2^-26, next term below 2^-104 relative).
 */
#ifndef DUO_MATH_HYP_H
#define DUO_MATH_HYP_H

#include <duo/math_core.h>
#include <duo/math_exp.h>

/* (e^|x| / 2) = *ah + *al and (e^-|x| / 2) = *bh + *bl, |x| <= 95. */
DUO_DEVICE void duo_m_exp_halves_(double ax, double *ah, double *al,
                                  double *bh, double *bl)
{
    double h, l;
    duo_m_exp_dd_(ax, &h, &l);
    *ah = duo_m_mul_(h, 0.5);
    *al = duo_m_mul_(l, 0.5);
    /* 1/4 / (ah + al), with the remainder of the division.  0.5 <= ah <
     * 2^129: 1/ah is a normal double, and 0.25 / ah = 0.25 RN(1/ah)
     * exactly, which the GPU computes so, without CUDA's division and its
     * registers (duo_m_div_rn_, math_core.h). */
#ifdef __CUDA_ARCH__
    double q = duo_m_mul_(__drcp_rn(*ah), 0.25);
#else
    double q = 0.25 / *ah;
#endif
    *bh = q;
    *bl = duo_m_div_rn_(duo_m_fma_(-q, *ah, 0.25) - duo_m_mul_(q, *al), *ah);
}

DUO_DEVICE float duo_m_sinhf_cr_(float x)
{
    if (duo_m_isnan_(x))
        return duo_m_qnan_(x);
    double ax = fabs((double)x);
    float sign = x < 0.0f ? -1.0f : 1.0f;
    if (ax > 90.0)
        return sign * duo_f32_from_bits_(0x7f800000u);
    if (ax == 0.0)
        return x;
    double hi, lo;
    if (ax < 0.125) {
        /* Taylor to x^13: truncation below 2^-68 relative. */
        double s = duo_m_mul_(ax, ax);
        double q = duo_m_fma_(s, 1.0 / 6227020800.0, 1.0 / 39916800.0);
        q = duo_m_fma_(q, s, 1.0 / 362880);
        q = duo_m_fma_(q, s, 1.0 / 5040);
        q = duo_m_fma_(q, s, 1.0 / 120);
        q = duo_m_fma_(q, s, 1.0 / 6);
        hi = ax;
        lo = duo_m_mul_(duo_m_mul_(ax, s), q);
    } else {
        double ah, al, bh, bl, e;
        duo_m_exp_halves_(ax, &ah, &al, &bh, &bl);
        hi = duo_m_two_sum_(ah, -bh, &e);
        lo = e + (al - bl);
    }
    return sign * duo_m_dd_to_float_(hi, lo);
}

DUO_DEVICE float duo_m_coshf_cr_(float x)
{
    if (duo_m_isnan_(x))
        return duo_m_qnan_(x);
    double ax = fabs((double)x);
    if (ax > 90.0)
        return duo_f32_from_bits_(0x7f800000u);
    double ah, al, bh, bl, e;
    duo_m_exp_halves_(ax, &ah, &al, &bh, &bl);
    double hi = duo_m_two_sum_(ah, bh, &e);
    return duo_m_dd_to_float_(hi, e + (al + bl));
}

DUO_DEVICE float duo_m_tanhf_cr_(float x)
{
    if (duo_m_isnan_(x))
        return duo_m_qnan_(x);
    float sign = x < 0.0f ? -1.0f : 1.0f;
    double ax = fabs((double)x);
    if (ax > 10.0)
        return sign; /* 1 - tanh(10) < 2^-28: rounds to 1 */
    if (ax == 0.0)
        return x;
    /* tanh|x| = m / (m + 2), m = e^(2|x|) - 1. */
    double mh, ml, e;
    duo_m_expm1_dd_(2.0 * ax, &mh, &ml);
    double dh = duo_m_two_sum_(mh, 2.0, &e);
    double dl = e + ml;
    double ql;
    double q = duo_m_dd_div_f_(mh, ml, dh, dl, &ql);
    return sign * duo_m_dd_to_float_(q, ql);
}

/* The fast paths of sinhf (which 0), coshf (1) and tanhf (2): 1 and
 * the correctly rounded *out, 0 when the rounding test fails, -1 where
 * the careful path decides outright (NaN, |x| > 88.5, for tanhf |x| >
 * 10; for sinhf and tanhf |x| < 2^-126).  eps = 2^-53.
 *
 * m = e^z - 1 by duo_m_expm1_fast_ (math_exp.h), within 7.2 eps |m|,
 * z = |x| (sinh, cosh) or 2 |x| (tanh); m > 0, so below no sum
 * cancels: w = m + 1 is within (7.2 + 1) eps w.  The quotients are
 * products by a correctly rounded reciprocal (duo_m_rcp_rn_: on the GPU
 * without the division's subroutine; sinhf's kernel 0.76 -> 0.79 of
 * CUDA's, tanhf's 0.75 -> 0.77 on an H200): 1 / w within (8.2 + 1)
 * eps.  sinh|x| = (m + m / w) / 2: m / w within (7.2 + 9.2 + 1) eps,
 * the sum of two positive terms within (17.4 + 1) eps, halving exact:
 * 18.4 eps.  cosh|x| = (w + 1 / w) / 2: the sum within 10.2 eps.
 * tanh|x| = m / (m + 2): m + 2 within 8.2 eps, its reciprocal 9.2, the
 * product 17.4 eps.  So the result y is within 18.4 units of its last
 * place; the rounding test allows 64 (duo_m_round_ok_, math_core.h).
 * y is a normal float's value: sinh|x| >= |x|, tanh|x| >= 0.76
 * min(|x|, 1), and for |x| < 2^-125 m rounds to z, m + 2 to 2, and y to
 * |x|; cosh|x| >= 1; and below 2^128 (sinh 88.5 < 2^127.7). */
DUO_DEVICE int duo_m_hypf_fast_(float x, int which, float *out)
{
    uint32_t bx = duo_bits_from_f32_(x), ax = bx & 0x7fffffffu;
    uint32_t hi = which == 2 ? 0x41200000u : 0x42b10000u; /* 10, 88.5 */
    uint32_t lo = which == 1 ? 0u : 0x00800000u;
    if (ax - lo > hi - lo)
        return -1;
    double z = fabs((double)x), y;
    if (which == 2)
        z = duo_m_mul_(z, 2.0);
    double m = duo_m_expm1_fast_(z);
    if (which == 0) {
        y = duo_m_mul_(m + duo_m_mul_(m, duo_m_rcp_rn_(m + 1.0)), 0.5);
    } else if (which == 1) {
        double w = m + 1.0;
        y = duo_m_mul_(w + duo_m_rcp_rn_(w), 0.5);
    } else {
        y = duo_m_mul_(m, duo_m_rcp_rn_(m + 2.0));
    }
    if (!duo_m_round_ok_(y, 64))
        return 0;
    float f = (float)y;
    *out = which != 1 && bx >> 31 ? -f : f;
    return 1;
}

DUO_DEVICE float duo_sinhf(float x)
{
    float y;
    return duo_m_hypf_fast_(x, 0, &y) > 0 ? y : duo_m_sinhf_cr_(x);
}

DUO_DEVICE float duo_coshf(float x)
{
    float y;
    return duo_m_hypf_fast_(x, 1, &y) > 0 ? y : duo_m_coshf_cr_(x);
}

DUO_DEVICE float duo_tanhf(float x)
{
    float y;
    return duo_m_hypf_fast_(x, 2, &y) > 0 ? y : duo_m_tanhf_cr_(x);
}

/* sinh|x| = cosh|x| = e^|x| / 2 for 40 <= |x| (e^-|x| is below 2^-115
 * of it): in plain double (duo_m_exp_plain_d_, math_exp.h), within 0.53
 * ulp; the result is normal or overflows. */
DUO_DEVICE double duo_m_exp_half_big_d_(double ax)
{
    if (ax > 710.5)
        return (double)INFINITY;
    return duo_m_exp_plain_d_(ax, 0.0, -1);
}

/* The double sinh and tanh divide by duo_m_dd_div_rcp_ (one correctly
 * rounded reciprocal, no division): past their first branches the
 * divisors, e^|x| and e^2|x| + 1, lie in [1, e^40 + 1], the numerators
 * e^|x| - 1 and e^2|x| - 1 are at least 2^-26, and the remainders zero
 * or normal.  cosh does not divide. */
DUO_DEVICE double duo_sinh(double x)
{
    if (duo_m_isnan_d_(x))
        return duo_m_qnan_d_(x);
    double ax = fabs(x), y;
    if (ax < 0x1p-26) {
        /* x + x^3/6, rounded once (+-0 and subnormals come back). */
        y = duo_m_fma_(duo_m_mul_(duo_m_mul_(ax, ax), 1.0 / 6), ax, ax);
    } else if (ax >= 40.0) {
        y = duo_m_exp_half_big_d_(ax);
    } else {
        double eh, el, dh, dl, ql, e, sl;
        int E = duo_m_expm1_pair_d_(ax, &eh, &el);
        double s = duo_m_pow2_(E);
        eh = duo_m_mul_(eh, s);
        el = duo_m_mul_(el, s);
        dh = duo_m_two_sum_(1.0, eh, &e); /* 1 + E */
        dl = e + el;
        double q = duo_m_dd_div_rcp_(eh, el, dh, dl, &ql);
        double sh = duo_m_two_sum_(eh, q, &sl);
        y = duo_m_mul_(sh + (sl + (el + ql)), 0.5);
    }
    return duo_bits_from_f64_(x) >> 63 ? -y : y;
}

/* cosh|x| = (e^|x| + e^-|x|) / 2 for |x| < 40 in plain double: both
 * exponentials from one reduction, |x| = k log(2)/64 + r as in duo_exp
 * (t exact, r rounded once: below 2^-60.5, |r| < 2^-7.5), e^+-r - 1 =
 * +-r + r^2 (q_e +- q_o), q_e = 1/2 + r^2/24 + r^4/720 and q_o = r/6 +
 * r^3/120 shared (truncation below r^7/5040 < 2^-64.8, the terms of r^2
 * within 2^-66, each result's rounding 2^-60.5), times 2^(+-k/64) from
 * the table as th + fma(th, p, tl) (the fma rounded: below 2^-59.5 th).
 * Each half is within 2^-58.1 of its value, relatively; they are
 * positive, so their sum is too, and the low parts' two sums add below
 * 2^-59 of it: below 0.56 ulp in all.  sinh and tanh subtract where
 * cosh adds and keep their pairs. */
DUO_DEVICE double duo_cosh(double x)
{
    if (duo_m_isnan_d_(x))
        return duo_m_qnan_d_(x);
    double ax = fabs(x);
    if (ax >= 40.0)
        return duo_m_exp_half_big_d_(ax);
    const double shift = 0x1.8p52; /* rounds to an integer */
    double kd = duo_m_fma_(ax, DUO_M_64_LN2, shift) - shift;
    double t = duo_m_fma_(-kd, DUO_M_LN2_64_D_HI, ax);
    double r = duo_m_fma_(-kd, DUO_M_LN2_64_D_LO, t);
    double s = duo_m_mul_(r, r);
    double qe = duo_m_fma_(s, duo_m_fma_(s, 1.0 / 720, 1.0 / 24), 0.5);
    double qo = duo_m_mul_(r, duo_m_fma_(s, 1.0 / 120, 1.0 / 6));
    double pp = duo_m_fma_(s, qe + qo, r);  /* e^r - 1 */
    double pm = duo_m_fma_(s, qe - qo, -r); /* e^-r - 1 */
    int k = (int)kd; /* 0 <= k < 3700 */
    int j = k & 63, jm = (-k) & 63;
    double sa = duo_m_pow2_((k - j) / 64 - 1);   /* the halves: exact */
    double sb = duo_m_pow2_((-k - jm) / 64 - 1);
    double th = DUO_MATH_T(duo_m_exp2_64_)[2 * j];
    double uh = DUO_MATH_T(duo_m_exp2_64_)[2 * jm];
    double ah = duo_m_mul_(th, sa);
    double al = duo_m_mul_(
        duo_m_fma_(th, pp, DUO_MATH_T(duo_m_exp2_64_)[2 * j + 1]), sa);
    double bh = duo_m_mul_(uh, sb);
    double bl = duo_m_mul_(
        duo_m_fma_(uh, pm, DUO_MATH_T(duo_m_exp2_64_)[2 * jm + 1]), sb);
    double e;
    double h = duo_m_fast_two_sum_(ah, bh, &e); /* ah >= bh */
    return h + (e + (al + bl));
}

DUO_DEVICE double duo_tanh(double x)
{
    if (duo_m_isnan_d_(x))
        return duo_m_qnan_d_(x);
    double ax = fabs(x), y;
    if (ax > 20.0) {
        y = 1.0; /* 1 - tanh(20) < 2^-56: rounds to 1 (and +-inf) */
    } else if (ax < 0x1p-26) {
        y = duo_m_fma_(duo_m_mul_(duo_m_mul_(ax, ax), -1.0 / 3), ax, ax);
    } else {
        double mh, ml, e, ql;
        int E = duo_m_expm1_pair_d_(2.0 * ax, &mh, &ml);
        double s = duo_m_pow2_(E);
        mh = duo_m_mul_(mh, s);
        ml = duo_m_mul_(ml, s);
        double dh = duo_m_two_sum_(mh, 2.0, &e);
        double dl = e + ml;
        double q = duo_m_dd_div_rcp_(mh, ml, dh, dl, &ql);
        y = q + ql;
    }
    return duo_bits_from_f64_(x) >> 63 ? -y : y;
}

#endif /* DUO_MATH_HYP_H */
