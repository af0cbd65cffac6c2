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
 *
 * atanf, atan2f, asinf and acosf first try a fast path: the same
 * decomposition in plain double (duo_m_angle_fast_), with u = (a - c b)
 * / (b + c a) for the angle of (b, a) so that its error does not depend
 * on how a / b, which only picks c, was rounded; atan u to u^9; the
 * table's high parts.  The result y is within 8 units of its last place
 * (asinf, acosf: 10; bounds at each function); when y's bits below
 * float precision are more than 64 units from a float midpoint
 * (duo_m_round_ok_, math_core.h), y rounds to the correctly rounded
 * float.  Otherwise (under 1e-7 of the arguments), and for NaN,
 * infinities, zeros and results that are not normal floats, the careful
 * path above decides: duo_m_atanf_cr_ and its siblings, which were the
 * functions before the fast path, so the bits are theirs.  math-fast-vs-cr (tests/math/fast_vs_cr.c) compares the two
 * on all 2^32 floats (atan2f: 2^32 pairs of math-exhaustive's sample).
 */
#ifndef DUO_MATH_ATAN_H
#define DUO_MATH_ATAN_H

#include <duo/math_core.h>

/* n / d as a pair (duo_m_dd_div_).  in_range: the operands lie far
 * inside double's range, as in the float functions' careful paths
 * (their arguments are floats; every quotient, divisor and remainder
 * here is then a normal double or zero), so the GPU may take
 * duo_m_dd_div_f_: the same bits with fewer registers held (atanf's
 * kernel 42 -> 34, asinf's and acosf's 40 -> 32; ptxas, sm_90).  The
 * double atan, asin and acos pass 1 too, having answered their smallest
 * arguments first; the double atan2 passes 0: its quotients reach the
 * subnormals. */
DUO_DEVICE double duo_m_atan_div_(int in_range, double nh, double nl,
                                  double dh, double dl, double *ql)
{
    return in_range ? duo_m_dd_div_f_(nh, nl, dh, dl, ql)
                    : duo_m_dd_div_(nh, nl, dh, dl, ql);
}

/* atan(th + tl) = *hi + *lo for 0 <= th + tl <= 1; in_range as for
 * duo_m_atan_div_. */
DUO_DEVICE void duo_m_atan01_(int in_range, double th, double tl,
                              double *hi, double *lo)
{
    int i = (int)duo_m_fma_(th, 16.0, 0.5);
    double c = (double)i * 0.0625;
    double nh = th - c; /* exact: c/2 <= th <= 2c, or c = 0 */
    double dpe, de;
    double dp = duo_m_two_prod_(th, c, &dpe);
    double dh = duo_m_two_sum_(1.0, dp, &de);
    double dl = de + duo_m_fma_(tl, c, dpe);
    double ul;
    double uh = duo_m_atan_div_(in_range, nh, tl, dh, dl, &ul);
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
 * d = dh + dl >= 0 not both 0, finite; in_range as for duo_m_atan_div_. */
DUO_DEVICE void duo_m_angle_(int in_range, double nh, double nl, double dh,
                             double dl, double *hi, double *lo)
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
    double th = duo_m_atan_div_(in_range, nh, nl, dh, dl, &tl);
    duo_m_atan01_(in_range, th, tl, hi, lo);
    if (swap)
        duo_m_dd_sub_from_(DUO_M_PIO2_HI, DUO_M_PIO2_LO, hi, lo);
}

/* sign * (hi + lo) rounded to float. */
DUO_DEVICE float duo_m_signed_(int negative, double hi, double lo)
{
    float y = duo_m_dd_to_float_(hi, lo);
    return negative ? -y : y;
}

DUO_DEVICE float duo_m_atanf_cr_(float x)
{
    if (duo_m_isnan_(x))
        return duo_m_qnan_(x);
    double ax = fabs((double)x), hi, lo;
    if (ax > 0x1p60) {
        /* also infinity; pi/2 - 1/x rounds as pi/2 does */
        hi = DUO_M_PIO2_HI;
        lo = DUO_M_PIO2_LO;
    } else {
        duo_m_angle_(1, ax, 0.0, 1.0, 0.0, &hi, &lo);
    }
    return duo_m_signed_(duo_bits_from_f32_(x) >> 31, hi, lo);
}

DUO_DEVICE float duo_m_atan2f_cr_(float y, float x)
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
        duo_m_angle_(1, ay, 0.0, ax, 0.0, &hi, &lo);
        if (nx)
            duo_m_dd_sub_from_(DUO_M_PI_HI, DUO_M_PI_LO, &hi, &lo);
    }
    return duo_m_signed_(ny, hi, lo);
}

/* sqrt(1 - x^2) = *sh + *sl for 0 <= ax < 1; in_range as for
 * duo_m_atan_div_ (for a float ax, *sh >= 2^-12.5). */
DUO_DEVICE void duo_m_sqrt_1mx2_(int in_range, double ax, double *sh,
                                 double *sl)
{
    double pe, de;
    double p = duo_m_two_prod_(ax, ax, &pe);
    double dh = duo_m_two_sum_(1.0, -p, &de);
    double dl = de - pe;
    double s = sqrt(dh);
    *sh = s;
    double r = duo_m_fma_(-s, s, dh) + dl;
    *sl = in_range ? duo_m_div_rn_(r, 2.0 * s) : r / (2.0 * s);
}

DUO_DEVICE float duo_m_asinf_cr_(float x)
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
        duo_m_sqrt_1mx2_(1, ax, &sh, &sl);
        duo_m_angle_(1, ax, 0.0, sh, sl, &hi, &lo);
    }
    return duo_m_signed_(duo_bits_from_f32_(x) >> 31, hi, lo);
}

DUO_DEVICE float duo_m_acosf_cr_(float x)
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
        duo_m_sqrt_1mx2_(1, ax, &sh, &sl);
        duo_m_angle_(1, sh, sl, ax, 0.0, &hi, &lo);
    }
    if (x < 0.0f)
        duo_m_dd_sub_from_(DUO_M_PI_HI, DUO_M_PI_LO, &hi, &lo);
    return duo_m_dd_to_float_(hi, lo);
}

/* The fast paths of atanf, atan2f, asinf and acosf (see the top of the
 * file): the same method in plain double, eps = 2^-53 below.
 *
 * duo_m_angle_fast_ returns atan(a / b) (0 <= a <= b, b > 0, both
 * exact, or see asinf) or, with swap, pi/2 - atan(a / b), by way of
 * duo_m_angle_from_ (u, its polynomial and the last sums, for a c and
 * A = atan(c) from any table; asinf's has its own).  t is a / b
 * rounded (any value within 2^-52 of it will do), i = round(16 t) by
 * the shift, c = i / 16, so |a/b - c| <= 1/32 + 2^-52 and c <= 2 a/b
 * where i > 0.  u = (a - c b) / (b + c a) = (a/b - c) / (1 + c a/b)
 * (so that atan(a/b) = atan(c) + atan(u) exactly) in two fma and a
 * division, each rounded once: |u| <= 2^-5 (1 + 2^-47), within 3.01 eps
 * |u| of its exact value, whatever t's own rounding.  atan u = u + u s
 * (-1/3 + s/5 - s^2/7 + s^3/9), s = u^2: truncation below u^11/11 <
 * 2^-53.4 |u|, the roundings of the correction (below 2^-11.6 |u|)
 * below 2^-9 eps |u|, the last fma's eps |p|: p is within 4.8 eps |u|
 * of atan(u).  A = atan(c) (the table's high part, within eps |A|).
 *
 * Without swap, y = A + p: for i = 0, y = p; otherwise atan(a/b) >=
 * atan(1/32 - 2^-52) > 0.99968 / 32 >= |u| (1 - 2^-11) and |A| <= 2
 * atan(a/b) (c <= 2 a/b), so the error is below (2 + 4.81 + 1) eps |y|
 * < 7.9 units of y's last place.  With swap, y = (pi/2 - A) - p, pi/2
 * rounded (0.55 eps off) and two more roundings: below (0.55 + 0.79 +
 * 1.58 + 0.16 + 1.58) eps = 4.7 eps absolute, and y >= pi/4, so below
 * 6 eps |y|.  (Where the callers subtract from pi, or a and b carry
 * errors of their own, their comments add to these.)  The rounding
 * test allows 64 units of y's last place (duo_m_round_ok_, math_core.h)
 * in every one of them.  The divisions are duo_m_div_rn_'s, the IEEE
 * quotient on every side, which on the GPU holds fewer registers: a and
 * b are floats (or, in asinf and acosf, sqrt(1 - x^2) >= 2^-12.5), so
 * every operand and quotient is a normal double or a zero numerator
 * (math-gpu-division checks every float argument). */
DUO_DEVICE double duo_m_angle_from_(double a, double b, double c, double A,
                                    int swap)
{
    double u = duo_m_div_rn_(duo_m_fma_(-c, b, a), duo_m_fma_(c, a, b));
    double s = duo_m_mul_(u, u);
    double q = duo_m_fma_(s, 1.0 / 9, -1.0 / 7);
    q = duo_m_fma_(q, s, 1.0 / 5);
    q = duo_m_fma_(q, s, -1.0 / 3);
    double p = duo_m_fma_(duo_m_mul_(u, s), q, u);
    return swap ? (DUO_M_PIO2_HI - A) - p : A + p;
}

DUO_DEVICE double duo_m_angle_fast_(double a, double b, double t, int swap)
{
    const double shift = 0x1.8p52;
    double z = duo_m_fma_(t, 16.0, shift);
    double c = duo_m_mul_(z - shift, 0.0625);
    int i = (int)(duo_bits_from_f64_(z) & 31u);
    return duo_m_angle_from_(a, b, c, DUO_MATH_T(duo_m_atan_16_)[2 * i],
                             swap);
}

/* The angle of (d, n) for doubles d, n >= 0, d + n > 0. */
DUO_DEVICE double duo_m_angle2_fast_(double n, double d)
{
    int swap = n > d;
    double a = swap ? d : n, b = swap ? n : d;
    return duo_m_angle_fast_(a, b, duo_m_div_rn_(a, b), swap);
}

/* y rounded to float, with the sign of negative, when the rounding test
 * passes: 1; else 0. */
DUO_DEVICE int duo_m_atanf_fast_out_(double y, int negative, float *out)
{
    if (!duo_m_round_ok_(y, 64))
        return 0;
    float f = (float)y;
    *out = negative ? -f : f;
    return 1;
}

/* atanf's fast path: 1 and the correctly rounded *out, 0 when the
 * rounding test fails, -1 for |x| < 2^-126 (0 and subnormal results),
 * inf and NaN, which the careful path decides.  For |x| <= 1, (a, b) =
 * (|x|, 1), t = |x|; above, (1, |x|) with swap and t = 1 / |x|: u =
 * (1 - c |x|) / (|x| + c).  The bounds are duo_m_angle_fast_'s.  y is
 * at least 2^-126: atan|x| >= (pi/4) min(|x|, 1), and for |x| < 2^-125
 * the correction u^3/3 is below half a unit of |x|'s last place, so y =
 * |x|. */
DUO_DEVICE int duo_m_atanf_fast_(float x, float *out)
{
    uint32_t bx = duo_bits_from_f32_(x);
    if ((bx & 0x7fffffffu) - 0x00800000u >= 0x7f800000u - 0x00800000u)
        return -1;
    double ax = fabs((double)x), y;
    if (ax <= 1.0)
        y = duo_m_angle_fast_(ax, 1.0, ax, 0);
    else
        y = duo_m_angle_fast_(1.0, ax, duo_m_div_rn_(1.0, ax), 1);
    return duo_m_atanf_fast_out_(y, bx >> 31, out);
}

/* atan2f's fast path, for finite nonzero y and x (-1 otherwise, and
 * where the result lies below 2^-126: the careful path decides those).
 * The angle of (|x|, |y|) as above; for x < 0, pi - it, pi rounded
 * (1.1 eps off) and the difference rounded once: the angle is at most
 * pi/2 and its error below 7.9 eps pi/4 (no swap) or 4.7 eps (swap),
 * so the error is below (7.9 pi/4 + 1.1 + pi) eps < 10.5 eps, and the
 * result is at least pi/2: below 6.7 eps of it. */
DUO_DEVICE int duo_m_atan2f_fast_(float y, float x, float *out)
{
    uint32_t by = duo_bits_from_f32_(y), bx = duo_bits_from_f32_(x);
    if ((by & 0x7fffffffu) - 1u >= 0x7f7fffffu ||
        (bx & 0x7fffffffu) - 1u >= 0x7f7fffffu)
        return -1; /* zero, inf or NaN */
    double r = duo_m_angle2_fast_(fabs((double)y), fabs((double)x));
    if (bx >> 31)
        r = DUO_M_PI_HI - r;
    else if (r < 0x1p-126)
        return -1;
    return duo_m_atanf_fast_out_(r, by >> 31, out);
}

/* asinf's and acosf's fast paths, for |x| < 1 (and asinf: |x| >=
 * 2^-126); -1 otherwise.  d = sqrt(1 - x^2): 1 - x^2 in one fma, its
 * square root rounded: within (1/2 + 1) eps (1 + eps) of the exact d.
 * asin |x| = atan(|x| / d) and acos |x| = atan(d / |x|), by
 * duo_m_angle_from_ on a = v = min(|x|, d) <= 2^-0.5 and b = max(|x|,
 * d), with swap where the ratio is upside down.  The ratio a / b is
 * (within d's error) t(v) = v / sqrt(1 - v^2), so c need not come from
 * a division: j = round(32 v) and c = c_j = tan(asin(j/32)) rounded,
 * with A = atan(c_j) rounded from the table duo_m_asin_32_.  Over each
 * j's interval (the ends moved out by 2^-40), evaluated at 201 points
 * per interval in 200-bit arithmetic, |u| = |t - c| / (1 + t c) <=
 * 0.0223 (where j = 0: c = A = 0, u = a/b < 2^-5.9), A <= 2.0003 atan t
 * and |u| <= 1.0004 atan t for j > 0: duo_m_angle_fast_'s argument
 * goes through (truncation now below 2^-58 |u|), below (2.0003 + 4.81 *
 * 1.0004 + 1) eps |y| < 7.9 eps |y| without swap, 6 eps |y| with.  d's
 * error moves atan t by at most t / (1 + t^2) <= 1/2 times d's relative
 * error, while atan t >= (pi/4) t: at most 1.91 eps relative, 2 units
 * of the result's last place more (with swap, at most 0.76 eps
 * absolute).  acosf of x < 0 is pi - acos |x|, as atan2f: below ((7.9 +
 * 1.91) pi/4 + 1.1 + pi) eps < 12 eps absolute, the result >= pi/2: 7.7
 * eps relative. */
DUO_DEVICE int duo_m_asinf_fast_(float x, int is_acos, float *out)
{
    uint32_t bx = duo_bits_from_f32_(x);
    uint32_t lo = is_acos ? 0u : 0x00800000u;
    if ((bx & 0x7fffffffu) - lo >= 0x3f800000u - lo)
        return -1;
    const double shift = 0x1.8p52;
    double ax = fabs((double)x);
    double d = sqrt(duo_m_fma_(-ax, ax, 1.0));
    /* v = min(|x|, d) <= 2^-0.5 picks c = c_j, j = round(32 v) */
    int big = ax > d;
    double v = big ? d : ax, w = big ? ax : d;
    double z = duo_m_fma_(v, 32.0, shift);
    int j = (int)(duo_bits_from_f64_(z) & 31u);
    double c = DUO_MATH_T(duo_m_asin_32_)[2 * j];
    double A = DUO_MATH_T(duo_m_asin_32_)[2 * j + 1];
    /* asin |x| = atan(|x| / d), acos |x| = atan(d / |x|) */
    double r = duo_m_angle_from_(v, w, c, A, big != is_acos);
    if (is_acos && bx >> 31)
        r = DUO_M_PI_HI - r;
    return duo_m_atanf_fast_out_(r, is_acos ? 0 : bx >> 31, out);
}

DUO_DEVICE float duo_atanf(float x)
{
    float y;
    return duo_m_atanf_fast_(x, &y) > 0 ? y : duo_m_atanf_cr_(x);
}

DUO_DEVICE float duo_atan2f(float y, float x)
{
    float r;
    return duo_m_atan2f_fast_(y, x, &r) > 0 ? r : duo_m_atan2f_cr_(y, x);
}

DUO_DEVICE float duo_asinf(float x)
{
    float y;
    return duo_m_asinf_fast_(x, 0, &y) > 0 ? y : duo_m_asinf_cr_(x);
}

DUO_DEVICE float duo_acosf(float x)
{
    float y;
    return duo_m_asinf_fast_(x, 1, &y) > 0 ? y : duo_m_acosf_cr_(x);
}

/* The double functions: the same method; the pairs keep the error near
 * 2^-60 relative, so one rounding to double stays below 0.51 ulp.  atan,
 * asin and acos answer the smallest arguments first (x for |x| < 2^-27:
 * atan and asin differ from x by under x^3/3 < 2^-54 |x|, so x is their
 * correctly rounded value; pi/2 rounded for acos of |x| < 2^-60, within
 * 2^-54 + 2^-60 of pi/2), so that every quotient, divisor and remainder
 * left is a normal double and they divide as the float functions do
 * (in_range 1: on the GPU 42 -> 32 registers, ptxas, sm_90).  atan2's
 * quotients reach the subnormals: it keeps the division. */
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
    if (ax < 0x1p-27)
        return x;
    if (ax > 0x1p60) {
        /* also infinity; pi/2 - 1/x rounds as pi/2 does */
        hi = DUO_M_PIO2_HI;
        lo = DUO_M_PIO2_LO;
    } else {
        duo_m_angle_(1, ax, 0.0, 1.0, 0.0, &hi, &lo);
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
        duo_m_angle_(0, ay, 0.0, ax, 0.0, &hi, &lo);
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
    if (ax < 0x1p-27)
        return x;
    if (ax == 1.0) {
        hi = DUO_M_PIO2_HI;
        lo = DUO_M_PIO2_LO;
    } else {
        double sh, sl;
        duo_m_sqrt_1mx2_(1, ax, &sh, &sl);
        duo_m_angle_(1, ax, 0.0, sh, sl, &hi, &lo);
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
    if (ax < 0x1p-60)
        return DUO_M_PIO2_HI;
    if (ax == 1.0) {
        hi = 0.0;
        lo = 0.0;
    } else {
        double sh, sl;
        duo_m_sqrt_1mx2_(1, ax, &sh, &sl);
        duo_m_angle_(1, sh, sl, ax, 0.0, &hi, &lo);
    }
    if (x < 0.0)
        duo_m_dd_sub_from_(DUO_M_PI_HI, DUO_M_PI_LO, &hi, &lo);
    return hi + lo;
}

#endif /* DUO_MATH_ATAN_H */
