/*
 * duo/math_hyp.h - sinhf, coshf, tanhf of duo/math.h.  Included by
 * <duo/math.h>, after duo/math_exp.h.
 *
 * From e^|x| as a pair of doubles (duo/math_exp.h), e^-|x| as its
 * reciprocal with the division's remainder, or e^(2|x|) - 1; rounded
 * once to float.
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
    /* 1/4 / (ah + al), with the remainder of the division. */
    double q = 0.25 / *ah;
    *bh = q;
    *bl = (duo_m_fma_(-q, *ah, 0.25) - duo_m_mul_(q, *al)) / *ah;
}

DUO_DEVICE float duo_sinhf(float x)
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

DUO_DEVICE float duo_coshf(float x)
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

DUO_DEVICE float duo_tanhf(float x)
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
    double q = duo_m_dd_div_(mh, ml, dh, dl, &ql);
    return sign * duo_m_dd_to_float_(q, ql);
}

#endif /* DUO_MATH_HYP_H */
