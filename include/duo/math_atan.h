/*
 * duo/math_atan.h - atanf, atan2f, asinf, acosf of duo/math.h, and the
 * double atan, atan2, asin, acos.
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
 * decomposition with u = (a - c b) / (b + c a) for the angle of (b, a),
 * so that its error does not depend on how a / b, which only picks c,
 * was rounded.  atanf's and atan2f's work in float arithmetic
 * (duo_m_anglef_), with pairs of floats where the careful path has
 * pairs of doubles, c = i/64 and atan u to u^5: the GPU issues float
 * arithmetic at twice double's rate, with shorter latencies (atanf's
 * kernel ran at 0.49 of CUDA's atanf with its fast path in double, 0.63
 * in float: profiles/math/bench-h200-atan.md).  When the pair's low part
 * is more than 2^-11 units of the last place short of a float midpoint
 * (duo_m_round_okf_, math_core.h), its high part is the correctly
 * rounded float.  asinf's and acosf's stay in plain double
 * (duo_m_angle_from_: in float they were slower), c from a table that
 * needs no division to pick, atan u to u^9, and the rounding test of
 * the double fast paths (duo_m_round_ok_).  Where the test fails (under
 * 1e-3 of the arguments), and for NaN, infinities, zeros and arguments
 * or results far from 1 (each fast path names its range), the careful
 * path above decides: duo_m_atanf_cr_ and its siblings, which were the
 * functions before the fast paths, so the bits are theirs.
 * math-fast-vs-cr (tests/math/fast_vs_cr.c) compares the two on all
 * 2^32 floats (atan2f: 2^32 pairs of math-exhaustive's sample).
 *
 * The double atan, atan2, asin and acos (at the end) take the fast
 * paths' decomposition in pairs of doubles, with one division instead
 * of the careful paths' two (duo_m_angle_d_).
 */
#ifndef DUO_MATH_ATAN_H
#define DUO_MATH_ATAN_H

#include <duo/math_core.h>

/* The float careful paths' quotients: their arguments are floats, so
 * every quotient, divisor and remainder is a normal double or zero, and
 * duo_m_dd_div_f_ gives the IEEE divisions' bits with fewer registers
 * held on the GPU (atanf's kernel 42 -> 34, asinf's and acosf's 40 ->
 * 32; ptxas, sm_90).
 *
 * atan(th + tl) = *hi + *lo for 0 <= th + tl <= 1. */
DUO_DEVICE void duo_m_atan01_(double th, double tl,
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
    double uh = duo_m_dd_div_f_(nh, tl, dh, dl, &ul);
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

/* The same in float: (ch + cl) - (*h + *l) as *h + *l (not renormed),
 * for constants ch >= |*h| (the difference of the high parts is a fast
 * two-sum). */
DUO_DEVICE void duo_m_ff_sub_from_(float ch, float cl, float *h, float *l)
{
    float d = ch - *h;
    *l = ((ch - d) - *h) + (cl - *l);
    *h = d;
}

/* The angle of (d, n) in [0, pi/2] = *hi + *lo, for n = nh + nl >= 0 and
 * d = dh + dl >= 0 not both 0, finite (from float arguments). */
DUO_DEVICE void duo_m_angle_(double nh, double nl, double dh,
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
    double th = duo_m_dd_div_f_(nh, nl, dh, dl, &tl);
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
        duo_m_angle_(ax, 0.0, 1.0, 0.0, &hi, &lo);
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
        duo_m_angle_(ay, 0.0, ax, 0.0, &hi, &lo);
        if (nx)
            duo_m_dd_sub_from_(DUO_M_PI_HI, DUO_M_PI_LO, &hi, &lo);
    }
    return duo_m_signed_(ny, hi, lo);
}

/* sqrt(1 - x^2) = *sh + *sl for 2^-60 <= ax < 1 (*sh >= 2^-26.5; for a
 * float ax, 2^-12.5): *sl the remainder's share correctly rounded
 * (exact_low 1, the float careful paths' bits) or, cheaper, times a
 * correctly rounded reciprocal (0: within 3 eps of that, and so of the
 * exact pair's low part to 2^-104 *sh). */
DUO_DEVICE void duo_m_sqrt_1mx2_(int exact_low, double ax, double *sh,
                                 double *sl)
{
    double pe, de;
    double p = duo_m_two_prod_(ax, ax, &pe);
    double dh = duo_m_two_sum_(1.0, -p, &de);
    double dl = de - pe;
    double s = sqrt(dh);
    *sh = s;
    double r = duo_m_fma_(-s, s, dh) + dl;
    *sl = exact_low ? duo_m_div_rn_(r, 2.0 * s)
                    : duo_m_mul_(r, duo_m_rcp_rn_(2.0 * s));
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
        duo_m_angle_(ax, 0.0, sh, sl, &hi, &lo);
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
        duo_m_angle_(sh, sl, ax, 0.0, &hi, &lo);
    }
    if (x < 0.0f)
        duo_m_dd_sub_from_(DUO_M_PI_HI, DUO_M_PI_LO, &hi, &lo);
    return duo_m_dd_to_float_(hi, lo);
}

/* The fast paths of atanf and atan2f, in float (u = 2^-24 below): the
 * careful path's method (the angle of (b, a) = atan(c) + atan((a - c b)
 * / (b + c a))) in float arithmetic, the quotient and the sums as pairs
 * of floats, and a finer table so that the series is short.
 *
 * duo_m_anglef_ returns h, and *l, with h + *l within 2^-36.6 relative
 * of atan(a/b) (swap 0) or pi/2 - atan(a/b) (swap 1), h = RN(h + *l),
 * for floats 0 <= a <= b with 1 <= b <= 2^60, given t with c = i/64, i
 * = round(64 t) (by the shift), such that |a/b - c| <= 2^-7 (1 +
 * 2^-10) and, where i >= 1, (a/b)/2 <= c <= 2 a/b (the callers show
 * theirs).  The numerator a - c b: c b = p + pe exactly (c b is 0 or at
 * least 2^-6), a - p exact by Sterbenz (1/2 <= p/a <= 2, or p = 0), and
 * the fast two-sum with -pe exact (a nonzero a - p is a multiple of the
 * smaller of a's and p's units, which is at least |pe|).  The
 * denominator b + c a >= 1 as dh + dl, within 2^-47 dh (b >= c a; only c
 * a's low part rounds into dl).  The quotient u = (a - c b) / (b + c a),
 * |u| <= 2^-7 (1 + 2^-10): uh = RN(nh RN(1/dh)) within 2.01 u |u|, its
 * remainder by fma and the correction ul, |ul| <= 2^-22.5 |u| within 7 u
 * of its own size: uh + ul is within 2^-43 |u| of u.
 *
 * atan(uh + ul) = uh - uh^3/3 + uh^5/5 + ul (1 - uh^2) + r, r for the
 * truncation (|uh|^7/7 <= 2^-44.8 |u|) and the neglected ul^2 and ul
 * uh^4 (below 2^-50 |u|).  The tail uh s (-1/3 + s/5), s = RN(uh^2),
 * has 4.4 u of its size <= 2^-15.57 |u| in roundings and in -1/3's
 * float: 2^-37.4 |u|.  The sums into lo round three times, each below u
 * |lo| <= 2^-39.5 |u| while lo holds the tail, and the table's atan(c)
 * = Ah + Al is within u^2 |atan c|.  Where i >= 1, atan c <= 2 atan(a/b)
 * and |u| <= 1.0002 atan(a/b); where i = 0 the angle is within 2^-14 of
 * u.  So h + l is within 2^-36.6 of the angle relative, and pi/2 - the
 * angle (>= pi/4) adds 2^-46. */
DUO_DEVICE float duo_m_anglef_(float a, float b, float t, int swap,
                               float *l)
{
    const float shift = 0x1.8p23f;
    float z = duo_m_fmaf_(t, 64.0f, shift);
    int i = (int)(duo_bits_from_f32_(z) & 127u);
    float c = duo_m_mulf_(z - shift, 0x1p-6f);
    /* a - c b = nh + nl, b + c a = dh + dl */
    float pe, p = duo_m_two_prodf_(c, b, &pe);
    float n0 = a - p;
    float nh = n0 - pe, nl = (n0 - nh) - pe;
    float qe, q = duo_m_two_prodf_(c, a, &qe);
    float dh = b + q, dl = ((b - dh) + q) + qe;
    /* u = uh + ul */
    float r = duo_m_rcpf_(dh);
    float uh = duo_m_mulf_(nh, r);
    float rem = duo_m_fmaf_(-uh, dh, nh);
    float ul = duo_m_mulf_(duo_m_fmaf_(-uh, dl, rem + nl), r);
    /* atan u - uh */
    float s = duo_m_mulf_(uh, uh);
    float poly = duo_m_fmaf_(s, 0x1.99999ap-3f, -0x1.555556p-2f);
    float lo = duo_m_fmaf_(-ul, s, ul) +
               duo_m_mulf_(duo_m_mulf_(uh, s), poly);
    /* atan c + uh + lo: |ah| >= |uh| or ah = 0 */
    float ah = DUO_MATH_T(duo_m_atan_64f_)[2 * i];
    float am = DUO_MATH_T(duo_m_atan_64f_)[2 * i + 1];
    float e, hi = duo_m_fast_two_sumf_(ah, uh, &e);
    lo = e + (am + lo);
    if (swap)
        duo_m_ff_sub_from_(DUO_M_PIO2F_HI, DUO_M_PIO2F_LO, &hi, &lo);
    return duo_m_fast_two_sumf_(hi, lo, l);
}

/* h (+ l) with the sign of negative, when the rounding test passes
 * (duo_m_round_okf_, math_core.h: h + l within 2^-11 units of h's last
 * place of the result): 1; else 0. */
DUO_DEVICE int duo_m_anglef_out_(float h, float l, int negative, float *out)
{
    if (!duo_m_round_okf_(h, l))
        return 0;
    *out = negative ? -h : h;
    return 1;
}

/* atanf's fast path: 1 and the correctly rounded *out, 0 when the
 * rounding test fails, -1 outside 2^-60 <= |x| < 2^60 (zeros,
 * subnormals, inf and NaN among them), which the careful path decides.
 * For |x| <= 1, (a, b) = (|x|, 1) and t = |x|; above, (1, |x|) and t =
 * RN(1/|x|), with swap.  i >= 1 needs t > 1/128 (ties go to i = 0), so
 * c <= t + 1/128 < 2t, and for |x| > 1 also |x| < 128, so c |x| =
 * |x|/64 < 2 where i = 1 and c |x| <= 2t |x| (1 - 2^-6) < 2 for i >= 2;
 * c >= t/2 - 2^-24 likewise.  The angle's 2^-36.6 makes 2^-12.6 units of
 * h's last place: the rounding test's 2^-11 holds.  math-fast-vs-cr
 * checks every float. */
DUO_DEVICE int duo_m_atanf_fast_(float x, float *out)
{
    uint32_t bx = duo_bits_from_f32_(x);
    uint32_t ab = bx & 0x7fffffffu;
    if (ab - 0x21800000u >= 0x5d800000u - 0x21800000u)
        return -1; /* outside 2^-60 <= |x| < 2^60 */
    float ax = duo_f32_from_bits_(ab);
    int swap = ax > 1.0f;
    float l, h = duo_m_anglef_(swap ? 1.0f : ax, swap ? ax : 1.0f,
                               swap ? duo_m_rcpf_(ax) : ax, swap, &l);
    return duo_m_anglef_out_(h, l, bx >> 31, out);
}

/* atan2f's fast path, for finite nonzero y and x with 2^-126 <=
 * max(|x|, |y|) < 2^127 and the ratio min/max at least 2^-60 (-1
 * otherwise: the careful path decides those).  a <= b are |x| and |y|
 * scaled by the power of 2 that brings b into [1, 2) (exact: a stays
 * above 2^-60).  t = RN(RN(a
 * RN(1/b)) (1 - 2^-20)) lies below a/b, by at most 2^-19 of it, so
 * where i >= 1, a/b > 1/128 and c <= t + 1/128 < 2 a/b, and c >= (a/b)/2
 * (i = 1: a/b < 1.5/64 (1 + 2^-18); i >= 2: a/b >= 3/128); |a/b - c| <=
 * 2^-7 + 2^-19.  For x < 0, pi - the angle: pi as a pair (within 2^-48
 * of it), the angle within 2^-36.6 pi/2, the result at least pi/2:
 * within 2^-36.5 of it relative, 2^-12.5 units of h's last place. */
DUO_DEVICE int duo_m_atan2f_fast_(float y, float x, float *out)
{
    uint32_t by = duo_bits_from_f32_(y) & 0x7fffffffu;
    uint32_t bx = duo_bits_from_f32_(x) & 0x7fffffffu;
    uint32_t bb = bx > by ? bx : by, ba = bx > by ? by : bx;
    if (ba - 1u >= 0x7f7fffffu || bb - 0x00800000u >= 0x7e800000u)
        return -1; /* a zero, inf or NaN, max < 2^-126 or >= 2^127 */
    /* 2^-e for 2^e <= b: bits (127 - e) << 23 */
    float scale = duo_f32_from_bits_(0x7f000000u - (bb & 0x7f800000u));
    float a = duo_m_mulf_(duo_f32_from_bits_(ba), scale);
    float b = duo_m_mulf_(duo_f32_from_bits_(bb), scale);
    if (!(a >= 0x1p-60f))
        return -1;
    float t = duo_m_mulf_(duo_m_mulf_(a, duo_m_rcpf_(b)), 1.0f - 0x1p-20f);
    float l, h = duo_m_anglef_(a, b, t, by > bx, &l);
    if (duo_bits_from_f32_(x) >> 31) { /* pi - the angle */
        duo_m_ff_sub_from_(2.0f * DUO_M_PIO2F_HI, 2.0f * DUO_M_PIO2F_LO, &h,
                           &l);
        h = duo_m_fast_two_sumf_(h, l, &l);
    }
    return duo_m_anglef_out_(h, l, duo_bits_from_f32_(y) >> 31, out);
}

/* asinf's and acosf's fast paths, in plain double (eps = 2^-53 below):
 * their kernels ran slower with pairs of floats (0.67 -> 0.56 of CUDA's
 * on an H200), the square root of 1 - x^2 as a pair costing more than
 * the double arithmetic it saved.
 *
 * duo_m_angle_from_ returns atan(a / b) (0 <= a <= b, b > 0) or, with
 * swap, pi/2 - atan(a / b), given c and A = atan(c) rounded (asinf's
 * comment below bounds |u| and A).  u = (a - c b) / (b + c a) = (a/b -
 * c) / (1 + c a/b) (so that atan(a/b) = atan(c) + atan(u) exactly) in
 * two fma, a reciprocal and a product, each rounded once: within 4.01
 * eps |u| of its exact value.  atan u = u + u s (-1/3 + s/5 - s^2/7 +
 * s^3/9), s = u^2: for |u| <= 1/32, truncation below u^11/11 < 2^-53.4
 * |u|, the roundings of the correction (below 2^-11.6 |u|) below 2^-9
 * eps |u|, the last fma's eps |p|: p is within 5.8 eps |u| of atan(u).
 * A is within eps |A|.  Without swap, y = A + p: where A <= alpha
 * atan(a/b) and |u| <= beta atan(a/b), the error is below (alpha + 5.81
 * beta + 1) eps |y|.  With swap, y = (pi/2 - A) - p, pi/2 rounded (0.55
 * eps off) and two more roundings: below (0.55 + 0.79 + 1.58 + 0.2 +
 * 1.58) eps < 4.8 eps absolute, and y >= pi/4, so below 6.2 eps |y|.
 * The rounding test allows 64 units of y's last place (duo_m_round_ok_,
 * math_core.h).  The reciprocal is duo_m_rcp_rn_'s, correctly rounded
 * on every side (the denominator is at least b >= 2^-0.5; with
 * duo_m_div_rn_'s division the kernels ran at 0.686 and 0.678 of
 * CUDA's on an H200, now 0.700 and 0.690). */
DUO_DEVICE double duo_m_angle_from_(double a, double b, double c, double A,
                                    int swap)
{
    double u = duo_m_mul_(duo_m_fma_(-c, b, a),
                          duo_m_rcp_rn_(duo_m_fma_(c, a, b)));
    double s = duo_m_mul_(u, u);
    double q = duo_m_fma_(s, 1.0 / 9, -1.0 / 7);
    q = duo_m_fma_(q, s, 1.0 / 5);
    q = duo_m_fma_(q, s, -1.0 / 3);
    double p = duo_m_fma_(duo_m_mul_(u, s), q, u);
    return swap ? (DUO_M_PIO2_HI - A) - p : A + p;
}

/* y rounded to float, with the sign of negative, when the rounding test
 * passes: 1; else 0. */
DUO_DEVICE int duo_m_angle_out_(double y, int negative, float *out)
{
    if (!duo_m_round_ok_(y, 64))
        return 0;
    float f = (float)y;
    *out = negative ? -f : f;
    return 1;
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
 * and |u| <= 1.0004 atan t for j > 0: duo_m_angle_from_'s bound with
 * alpha = 2.0003 and beta = 1.0004 (truncation below 2^-58 |u|) gives
 * (2.0003 + 5.81 * 1.0004 + 1) eps |y| < 8.9 eps |y| without swap,
 * 6.2 eps |y| with.  d's
 * error moves atan t by at most t / (1 + t^2) <= 1/2 times d's relative
 * error, while atan t >= (pi/4) t: at most 1.91 eps relative, 2 units
 * of the result's last place more (with swap, at most 0.76 eps
 * absolute).  acosf of x < 0 is pi - acos |x|, pi rounded (1.1 eps
 * off) and the difference rounded once: below ((8.9 + 1.91) pi/4 + 1.1
 * + pi) eps < 12.8 eps absolute, the result >= pi/2: 8.2 eps relative. */
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
    return duo_m_angle_out_(r, is_acos ? 0 : bx >> 31, out);
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

/* The double functions: the fast paths' decomposition in pairs of
 * doubles, with one division where the float careful paths above take
 * two (a/b, then u), and a table at steps of 1/64: atan(a/b) = A +
 * atan(u), u = (a - c b) / (b + c a), with c near a/b and A = atan(c).
 * duo_m_angle_d_ returns A + atan(u) as *hi + *lo for pairs 0 <= a <= b
 * (|al| <= eps ah, |bl| <= eps bh, eps = 2^-53), 0 <= c <= 1, |u| <=
 * 2^-6.5, and, where c > 0, A <= 2.004 atan(a/b) and |u| <= 1.004
 * atan(a/b) (each caller's comment says why).
 *   - a - c b: c bh = ph + pe and ah - ph = nh + ne exactly; the rest
 *     rounded three times: within 11 eps^2 a, and |nl| <= 6 eps a.
 *     b + c a (c a <= b): fast two-sums, within 15 eps^2 b.
 *   - u = uh + ul by duo_m_dd_div_rcp_ (math_core.h): with the two
 *     operands' errors, within 2^-99.5 |u| + 2^-100.1 a/b, below
 *     2^-98 of atan(a/b) (>= (pi/4) a/b).
 *   - atan u = u + u s (-1/3 + s/5 - s^2/7 + s^3/9), s = uh^2, and
 *     ul / (1 + s) for the low part: truncation below |u|^11 / 11 <=
 *     2^-68.6 |u|, the term's roundings below 5 eps |u|^3 / 3 < 2^-65.3
 *     |u|, the sums into *lo below 2^-65.5 |u| + 3 eps^2 A; A's pair is
 *     within eps^2 A.
 * So *hi + *lo is within 2^-64 of A + atan(u) relatively, and rounded
 * once (after pi/2 - or pi - it, whose two-sums add below 2^-66 of the
 * result, >= pi/4) the result is within 0.5 + 2^-11 ulp: 0.5005. */
DUO_DEVICE void duo_m_angle_d_(double ah, double al, double bh, double bl,
                               double c, double Ah, double Al, double *hi,
                               double *lo)
{
    double pe, ne, qe, de, ul, e;
    double ph = duo_m_two_prod_(c, bh, &pe);
    double nh = duo_m_two_sum_(ah, -ph, &ne);
    double nl = ne + duo_m_fma_(-c, bl, al - pe);
    double qh = duo_m_two_prod_(c, ah, &qe);
    double dh = duo_m_fast_two_sum_(bh, qh, &de);
    double dl = de + duo_m_fma_(c, al, bl + qe);
    double uh = duo_m_dd_div_rcp_(nh, nl, dh, dl, &ul);
    double s = duo_m_mul_(uh, uh);
    double q = duo_m_fma_(s, 1.0 / 9, -1.0 / 7);
    q = duo_m_fma_(q, s, 1.0 / 5);
    q = duo_m_fma_(q, s, -1.0 / 3);
    double tail = duo_m_fma_(-ul, s, ul) + duo_m_mul_(duo_m_mul_(uh, s), q);
    *hi = duo_m_fast_two_sum_(Ah, uh, &e);
    *lo = e + (Al + tail);
}

/* atan(a/b) for finite a <= b with 2^-60 b <= a, b in [2^-600, 2^500]:
 * c = i/64 for i = round(64 t) with t = a times 1/b from
 * duo_m_rcp_approx_ (within 2^-17.1 of a/b), so |a/b - c| <= 1/128 +
 * 2^-17.1: 200-bit evaluations of u over each i's interval (its ends
 * moved out by 2^-16) give |u| <= 2^-6.99, A <= 2.0038 atan(a/b) and
 * |u| <= 1.0038 atan(a/b) for i > 0 (duo_m_angle_d_ asks for 2.004 and
 * 1.004). */
DUO_DEVICE void duo_m_atan_ratio_d_(double a, double b, double *hi,
                                    double *lo)
{
    const double shift = 0x1.8p52;
    double t = duo_m_mul_(a, duo_m_rcp_approx_(b));
    int i = (int)(duo_bits_from_f64_(duo_m_fma_(t, 64.0, shift)) & 127u);
    duo_m_angle_d_(a, 0.0, b, 0.0, (double)i * 0x1p-6,
                   DUO_MATH_T(duo_m_atan_64_)[2 * i],
                   DUO_MATH_T(duo_m_atan_64_)[2 * i + 1], hi, lo);
}

DUO_DEVICE double duo_m_signed_d_(int negative, double hi, double lo)
{
    double y = hi + lo;
    return negative ? -y : y;
}

/* atan: x itself for |x| < 2^-27 (atan differs from x by under x^3/3 <
 * 2^-54 |x|, so x is its correctly rounded value), pi/2 rounded above
 * 2^60 (pi/2 - 1/x rounds as pi/2 does); else atan |x| or pi/2 -
 * atan(1/|x|) by duo_m_atan_ratio_d_. */
DUO_DEVICE double duo_atan(double x)
{
    if (duo_m_isnan_d_(x))
        return duo_m_qnan_d_(x);
    double ax = fabs(x), hi, lo;
    if (ax < 0x1p-27)
        return x;
    if (ax > 0x1p60) {
        hi = DUO_M_PIO2_HI;
        lo = DUO_M_PIO2_LO;
    } else {
        int big = ax > 1.0;
        duo_m_atan_ratio_d_(big ? 1.0 : ax, big ? ax : 1.0, &hi, &lo);
        if (big)
            duo_m_dd_sub_from_(DUO_M_PIO2_HI, DUO_M_PIO2_LO, &hi, &lo);
    }
    return duo_m_signed_d_(duo_bits_from_f64_(x) >> 63, hi, lo);
}

/* atan2: the angle of (|x|, |y|) in [0, pi/2] from a = min and b = max
 * of |x| and |y| (pi/2 - atan(a/b) when |y| is the larger), then pi
 * minus it for x < 0 (or -0), with y's sign.  Where a < 2^-60 b (a/b
 * may be subnormal) atan(a/b) is the quotient, correctly rounded by
 * the division (atan t differs from t by under t^3/3 < 2^-120 t), out
 * of line (duo_m_div_cold_), so that its subroutine's registers are not
 * the kernel's (with c's reciprocal from duo_m_rcp_approx_, atan2's
 * kernel 38 -> 32 registers, ptxas, sm_90);
 * otherwise a and b are scaled by 2^600 or 2^-600 (exactly) into
 * duo_m_atan_ratio_d_'s range. */
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
        int swap = ay > ax;
        double a = swap ? ax : ay, b = swap ? ay : ax;
        if (duo_m_mul_(a, 0x1p60) < b) {
            hi = duo_m_div_cold_(a, b);
            lo = 0.0;
        } else {
            double k = b > 0x1p500 ? 0x1p-600 : b < 0x1p-600 ? 0x1p600 : 1.0;
            duo_m_atan_ratio_d_(duo_m_mul_(a, k), duo_m_mul_(b, k), &hi, &lo);
        }
        if (swap)
            duo_m_dd_sub_from_(DUO_M_PIO2_HI, DUO_M_PIO2_LO, &hi, &lo);
        if (nx)
            duo_m_dd_sub_from_(DUO_M_PI_HI, DUO_M_PI_LO, &hi, &lo);
    }
    return duo_m_signed_d_(ny, hi, lo);
}

/* asin |x| = atan(|x| / d) and acos |x| = atan(d / |x|), d = sqrt(1 -
 * x^2) as a pair (duo_m_sqrt_1mx2_), as asinf's fast path does it: v =
 * min(|x|, d) <= 2^-0.5 picks c = c_j = tan(asin(j/64)) rounded, j =
 * round(64 v), with atan(c_j) as a pair from duo_m_asin_64_; the angle
 * of (max, v) is duo_m_angle_d_'s, pi/2 minus it where the ratio is
 * upside down.  Over each j's interval (its ends moved out by 2^-40),
 * 200-bit evaluations give |u| <= 0.01093 < 2^-6.5, A <= 2.0001
 * atan(a/b) and |u| <= 1.0001 atan(a/b) for j > 0.  d's relative error
 * (below 2^-100) moves the angle by less.  Returns the angle in [0,
 * pi/2] as *hi + *lo, for 2^-60 <= |x| < 1. */
DUO_DEVICE void duo_m_asin_angle_d_(double ax, int is_acos, double *hi,
                                    double *lo)
{
    const double shift = 0x1.8p52;
    double sh, sl;
    duo_m_sqrt_1mx2_(0, ax, &sh, &sl);
    int big = ax > sh;
    double v = big ? sh : ax;
    int j = (int)(duo_bits_from_f64_(duo_m_fma_(v, 64.0, shift)) & 63u);
    const double *e = &DUO_MATH_T(duo_m_asin_64_)[4 * j];
    /* selects, not branches: a warp whose lanes went both ways ran the
     * angle twice */
    double w = big ? ax : sh, vl = big ? sl : 0.0, wl = big ? 0.0 : sl;
    duo_m_angle_d_(v, vl, w, wl, e[2], e[0], e[1], hi, lo);
    if (big != is_acos)
        duo_m_dd_sub_from_(DUO_M_PIO2_HI, DUO_M_PIO2_LO, hi, lo);
}

/* asin: x itself for |x| < 2^-27 (as atan: asin differs from x by
 * under |x|^3 / 6). */
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
        duo_m_asin_angle_d_(ax, 0, &hi, &lo);
    }
    return duo_m_signed_d_(duo_bits_from_f64_(x) >> 63, hi, lo);
}

/* acos: pi/2 rounded for |x| < 2^-60 (within 2^-54 + 2^-60 of pi/2),
 * pi - acos |x| for x < 0. */
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
        duo_m_asin_angle_d_(ax, 1, &hi, &lo);
    }
    if (x < 0.0)
        duo_m_dd_sub_from_(DUO_M_PI_HI, DUO_M_PI_LO, &hi, &lo);
    return hi + lo;
}

#endif /* DUO_MATH_ATAN_H */
