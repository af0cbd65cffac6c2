/*
 * duo/math_atan.h - atanf, atan2f, asinf, acosf of duo/math.h.
 * Included by <duo/math.h>.
 *
 * Method: every one is the first-quadrant angle of a point (d, n) with
 * n, d >= 0, given as pairs of doubles: t = min/max of the two (a
 * division with its remainder, so t is exact to ~2^-100), atan t for
 * t in [0, 1] as atan(c) + atan(u) with c = i/16 the nearest sixteenth,
 * atan(i/16) from a table (pairs of doubles) and
 * u = (t - c)/(1 + t c), |u| <= 1/32, by its Taylor series (to u^11,
 * truncation below 2^-63 relative); then pi/2 - a or pi - a as needed.
 * Sums as pairs of doubles, error below 2^-58 relative, rounded once to
 * float.
 */
#ifndef DUO_MATH_ATAN_H
#define DUO_MATH_ATAN_H

#include <duo/math_core.h>

/* atan(th + tl) = *hi + *lo for 0 <= th + tl <= 1. */
DUO_DEVICE void duo_m_atan01_(double th, double tl, double *hi, double *lo)
{
    int i = (int)duo_m_fma_(th, 16.0, 0.5);
    double c = (double)i * 0.0625;
    double nh = th - c; /* exact: c/2 <= th <= 2c, or c = 0 */
    double dpe, de;
    double dp = duo_m_two_prod_(th, c, &dpe);
    double dh = duo_m_two_sum_(1.0, dp, &de);
    double dl = de + duo_m_fma_(tl, c, dpe);
    double ul;
    double uh = duo_m_dd_div_(nh, tl, dh, dl, &ul);
    double s = duo_m_mul_(uh, uh);
    double q = duo_m_fma_(s, -1.0 / 11, 1.0 / 9);
    q = duo_m_fma_(q, s, -1.0 / 7);
    q = duo_m_fma_(q, s, 1.0 / 5);
    q = duo_m_fma_(q, s, -1.0 / 3);
    double tail = duo_m_mul_(duo_m_mul_(uh, s), q);
    double e;
    *hi = duo_m_two_sum_(DUO_MATH_T(duo_m_atan_16_)[2 * i], uh, &e);
    /* atan(uh + ul) = atan(uh) + ul / (1 + uh^2) + O(ul^2) */
    *lo = e + (DUO_MATH_T(duo_m_atan_16_)[2 * i + 1] +
               duo_m_fma_(-ul, s, ul) + tail);
}

/* (ch + cl) - (ah + al), for constants c >= 2 a (no cancellation). */
DUO_DEVICE void duo_m_dd_sub_from_(double ch, double cl, double *ah,
                                   double *al)
{
    double e;
    double h = duo_m_two_sum_(ch, -*ah, &e);
    *al = e + (cl - *al);
    *ah = h;
}

/* The angle of (d, n) in [0, pi/2] = *hi + *lo, for n = nh + nl >= 0 and
 * d = dh + dl >= 0 not both 0, finite. */
DUO_DEVICE void duo_m_angle_(double nh, double nl, double dh, double dl,
                             double *hi, double *lo)
{
    int swap = nh > dh;
    if (swap) {
        double t = nh;
        nh = dh;
        dh = t;
        t = nl;
        nl = dl;
        dl = t;
    }
    double tl;
    double th = duo_m_dd_div_(nh, nl, dh, dl, &tl);
    duo_m_atan01_(th, tl, hi, lo);
    if (swap)
        duo_m_dd_sub_from_(DUO_M_PIO2_HI, DUO_M_PIO2_LO, hi, lo);
}

/* sign * (hi + lo) rounded to float. */
DUO_DEVICE float duo_m_signed_(int negative, double hi, double lo)
{
    float y = duo_m_dd_to_float_(hi, lo);
    return negative ? -y : y;
}

DUO_DEVICE float duo_atanf(float x)
{
    if (duo_m_isnan_(x))
        return duo_m_qnan_(x);
    double ax = fabs((double)x), hi, lo;
    if (ax > 0x1p60) {
        /* also infinity; pi/2 - 1/x rounds as pi/2 does */
        hi = DUO_M_PIO2_HI;
        lo = DUO_M_PIO2_LO;
    } else {
        duo_m_angle_(ax, 0.0, 1.0, 0.0, &hi, &lo);
    }
    return duo_m_signed_(duo_bits_from_f32_(x) >> 31, hi, lo);
}

DUO_DEVICE float duo_atan2f(float y, float x)
{
    if (duo_m_isnan_(y))
        return duo_m_qnan_(y);
    if (duo_m_isnan_(x))
        return duo_m_qnan_(x);
    int ny = duo_bits_from_f32_(y) >> 31, nx = duo_bits_from_f32_(x) >> 31;
    double ay = fabs((double)y), ax = fabs((double)x), hi, lo;
    const double inf = (double)INFINITY;
    if (ay == 0.0 || ax == inf) {
        /* y = 0 or x infinite: 0 or pi (3pi/4 and pi/4 when y is too) */
        if (ay == inf) {
            hi = nx ? DUO_M_3PIO4_HI : DUO_M_PIO4_HI;
            lo = nx ? DUO_M_3PIO4_LO : DUO_M_PIO4_LO;
        } else {
            hi = nx ? DUO_M_PI_HI : 0.0;
            lo = nx ? DUO_M_PI_LO : 0.0;
        }
    } else if (ax == 0.0 || ay == inf) {
        hi = DUO_M_PIO2_HI;
        lo = DUO_M_PIO2_LO;
    } else {
        duo_m_angle_(ay, 0.0, ax, 0.0, &hi, &lo);
        if (nx)
            duo_m_dd_sub_from_(DUO_M_PI_HI, DUO_M_PI_LO, &hi, &lo);
    }
    return duo_m_signed_(ny, hi, lo);
}

/* sqrt(1 - x^2) = *sh + *sl for 0 <= ax < 1. */
DUO_DEVICE void duo_m_sqrt_1mx2_(double ax, double *sh, double *sl)
{
    double pe, de;
    double p = duo_m_two_prod_(ax, ax, &pe);
    double dh = duo_m_two_sum_(1.0, -p, &de);
    double dl = de - pe;
    double s = sqrt(dh);
    *sh = s;
    *sl = (duo_m_fma_(-s, s, dh) + dl) / (2.0 * s);
}

DUO_DEVICE float duo_asinf(float x)
{
    if (duo_m_isnan_(x))
        return duo_m_qnan_(x);
    double ax = fabs((double)x), hi, lo;
    if (ax > 1.0)
        return duo_m_nan_();
    if (ax == 1.0) {
        hi = DUO_M_PIO2_HI;
        lo = DUO_M_PIO2_LO;
    } else {
        double sh, sl;
        duo_m_sqrt_1mx2_(ax, &sh, &sl);
        duo_m_angle_(ax, 0.0, sh, sl, &hi, &lo);
    }
    return duo_m_signed_(duo_bits_from_f32_(x) >> 31, hi, lo);
}

DUO_DEVICE float duo_acosf(float x)
{
    if (duo_m_isnan_(x))
        return duo_m_qnan_(x);
    double ax = fabs((double)x), hi, lo;
    if (ax > 1.0)
        return duo_m_nan_();
    if (ax == 1.0) {
        hi = 0.0;
        lo = 0.0;
    } else {
        double sh, sl;
        duo_m_sqrt_1mx2_(ax, &sh, &sl);
        duo_m_angle_(sh, sl, ax, 0.0, &hi, &lo);
    }
    if (x < 0.0f)
        duo_m_dd_sub_from_(DUO_M_PI_HI, DUO_M_PI_LO, &hi, &lo);
    return duo_m_dd_to_float_(hi, lo);
}

/* The double functions: the same method; the pairs keep the error near
 * 2^-60 relative, so one rounding to double stays below 0.51 ulp. */
DUO_DEVICE double duo_m_signed_d_(int negative, double hi, double lo)
{
    double y = hi + lo;
    return negative ? -y : y;
}

DUO_DEVICE double duo_atan(double x)
{
    if (duo_m_isnan_d_(x))
        return duo_m_qnan_d_(x);
    double ax = fabs(x), hi, lo;
    if (ax > 0x1p60) {
        /* also infinity; pi/2 - 1/x rounds as pi/2 does */
        hi = DUO_M_PIO2_HI;
        lo = DUO_M_PIO2_LO;
    } else {
        duo_m_angle_(ax, 0.0, 1.0, 0.0, &hi, &lo);
    }
    return duo_m_signed_d_(duo_bits_from_f64_(x) >> 63, hi, lo);
}

DUO_DEVICE double duo_atan2(double y, double x)
{
    if (duo_m_isnan_d_(y))
        return duo_m_qnan_d_(y);
    if (duo_m_isnan_d_(x))
        return duo_m_qnan_d_(x);
    int ny = duo_bits_from_f64_(y) >> 63, nx = duo_bits_from_f64_(x) >> 63;
    double ay = fabs(y), ax = fabs(x), hi, lo;
    const double inf = (double)INFINITY;
    if (ay == 0.0 || ax == inf) {
        if (ay == inf) {
            hi = nx ? DUO_M_3PIO4_HI : DUO_M_PIO4_HI;
            lo = nx ? DUO_M_3PIO4_LO : DUO_M_PIO4_LO;
        } else {
            hi = nx ? DUO_M_PI_HI : 0.0;
            lo = nx ? DUO_M_PI_LO : 0.0;
        }
    } else if (ax == 0.0 || ay == inf) {
        hi = DUO_M_PIO2_HI;
        lo = DUO_M_PIO2_LO;
    } else {
        /* A tiny argument: both scaled up (exactly), so that the
         * remainder of their division is exact. */
        if ((ay < 0x1p-900 || ax < 0x1p-900) && ay < 0x1p400 &&
            ax < 0x1p400) {
            ay = duo_m_mul_(ay, 0x1p600);
            ax = duo_m_mul_(ax, 0x1p600);
        }
        duo_m_angle_(ay, 0.0, ax, 0.0, &hi, &lo);
        if (nx)
            duo_m_dd_sub_from_(DUO_M_PI_HI, DUO_M_PI_LO, &hi, &lo);
    }
    return duo_m_signed_d_(ny, hi, lo);
}

DUO_DEVICE double duo_asin(double x)
{
    if (duo_m_isnan_d_(x))
        return duo_m_qnan_d_(x);
    double ax = fabs(x), hi, lo;
    if (ax > 1.0)
        return duo_m_nan_d_();
    if (ax == 1.0) {
        hi = DUO_M_PIO2_HI;
        lo = DUO_M_PIO2_LO;
    } else {
        double sh, sl;
        duo_m_sqrt_1mx2_(ax, &sh, &sl);
        duo_m_angle_(ax, 0.0, sh, sl, &hi, &lo);
    }
    return duo_m_signed_d_(duo_bits_from_f64_(x) >> 63, hi, lo);
}

DUO_DEVICE double duo_acos(double x)
{
    if (duo_m_isnan_d_(x))
        return duo_m_qnan_d_(x);
    double ax = fabs(x), hi, lo;
    if (ax > 1.0)
        return duo_m_nan_d_();
    if (ax == 1.0) {
        hi = 0.0;
        lo = 0.0;
    } else {
        double sh, sl;
        duo_m_sqrt_1mx2_(ax, &sh, &sl);
        duo_m_angle_(sh, sl, ax, 0.0, &hi, &lo);
    }
    if (x < 0.0)
        duo_m_dd_sub_from_(DUO_M_PI_HI, DUO_M_PI_LO, &hi, &lo);
    return hi + lo;
}

#endif /* DUO_MATH_ATAN_H */
