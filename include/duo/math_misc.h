/*
 * duo/math_misc.h - cbrtf and hypotf of duo/math.h and the double cbrt
 * and hypot.
 * Included by <duo/math.h>.
 *
 * cbrtf: |x| = 2^(3k) m, m in [1, 8); an estimate of cbrt(m) from the bits
 * (exponent and significand divided by 3, within 7%), three Halley steps
 * (to ~2^-52), then one Newton step whose residual m - y^3 is computed
 * exactly with fma, giving y + dy with error below 2^-90.
 * hypotf: x^2 and y^2 are exact in double; their sum as a pair of
 * doubles, its square root with the remainder (sqrt(s) + (s - r^2)/(2r)).
 * Both rounded once to float; exact results (cbrt(27), hypot(3, 4)) come
 * out exact.
 *
 * cbrtf first tries a fast path (duo_m_cbrtf_fast_): a polynomial
 * estimate of cbrt(m) (relative error 2^-16.7) and one Halley step
 * with an exact residual, within 2^-50.4 of the result, 6.1 units of
 * its last place (bound there); the same rounding test as hypotf's
 * below, allowing 64 units, sends about 2^-22 of the arguments (and 0,
 * inf, NaN) to the careful path above, duo_m_cbrtf_cr_ (cbrtf as it
 * was).
 *
 * hypotf first tries a fast path (duo_m_hypotf_fast_): r = sqrt(x^2 +
 * y^2) in double, within 1.51 units of its last place of the exact
 * value (bound there).  When r's bits below float precision are more
 * than 4 units from a float midpoint (duo_m_round_ok_, math_core.h), r
 * rounds to the correctly rounded float.  Otherwise (about 2^-26 of the
 * arguments), and for infinite or NaN arguments and results below
 * float's normal range, the careful path above decides:
 * duo_m_hypotf_cr_, which was hypotf before the fast path, so the bits
 * are its.  math-fast-vs-cr (tests/math/fast_vs_cr.c) compares the two
 * on 2^32 pairs.
 */
#ifndef DUO_MATH_MISC_H
#define DUO_MATH_MISC_H

#include <duo/math_core.h>

/* The careful path of cbrtf: cbrt(|x|) as y + dy with error below
 * 2^-90, rounded once to float.  Its divisions are duo_m_div_rn_'s, the
 * IEEE quotient on every side: m lies in [1, 8), so every operand is a
 * normal double (or a zero residue), and on the GPU the kernel holds
 * fewer registers (cbrtf's 36 -> 30, ptxas, sm_90). */
DUO_DEVICE float duo_m_cbrtf_cr_(float x)
{
    float ax = fabsf(x);
    if (duo_m_isnan_(x))
        return duo_m_qnan_(x);
    if (ax == 0.0f || ax == duo_f32_from_bits_(0x7f800000u))
        return x;
    uint64_t b = duo_bits_from_f64_((double)ax);
    int e = (int)(b >> 52) - 1023;
    int k = (e + 300) / 3 - 100; /* floor(e / 3) */
    int j = e - 3 * k;
    double m = duo_f64_from_bits_((b & 0x000fffffffffffffull) |
                          ((uint64_t)(1023 + j) << 52));
    /* Estimate: a third of the bits above 1.0, as an integer. */
    const uint64_t one = 0x3ff0000000000000ull;
    double y = duo_f64_from_bits_(one + (duo_bits_from_f64_(m) - one) / 3);
    for (int it = 0; it < 3; ++it) {
        double y3 = duo_m_mul_(duo_m_mul_(y, y), y);
        y = duo_m_mul_(y, duo_m_div_rn_(y3 + 2.0 * m, 2.0 * y3 + m));
    }
    double ae, be;
    double a = duo_m_two_prod_(y, y, &ae);
    double c = duo_m_two_prod_(a, y, &be);
    /* m - y^3 exactly enough: m - c is exact (c ~ m). */
    double res = (m - c) - duo_m_fma_(ae, y, be);
    double dy = duo_m_div_rn_(res, 3.0 * a);
    double s = duo_m_pow2_(k);
    float r = duo_m_dd_to_float_(duo_m_mul_(y, s), duo_m_mul_(dy, s));
    return x < 0.0f ? -r : r;
}

/* The fast path of cbrtf: 1 and the correctly rounded *out, 0 when the
 * rounding test fails, -1 for 0, inf and NaN; on 0 and -1 the careful
 * path decides.
 *
 * |x| = 2^(3k) a (a double: subnormal floats are normal doubles), a =
 * 2^j m with j in {0, 1, 2}, m in [1, 2).  y0 = cbrt(2^j) P(m - 3/2),
 * P of degree 4 fitted to cbrt on [1, 2] for relative error (at most
 * 2^-16.72 over the 2^23 float significands, measured in double; the
 * constant cbrt(2^j) and the evaluation add below 2^-51): |e0| <
 * 2^-16.7 for y0 = cbrt(a) (1 + e0).  One Halley step, y1 = y0 - y0 res
 * / (2 y0^3 + a) with res = y0^3 - a (y0^2 as an exact pair, the rest
 * by fma: within 2^-105 a + 2^-53 |res|; res / (2 y0^3 + a) as res
 * times the correctly rounded reciprocal, no division), leaves (2/3)
 * e0^3 < 2^-50.7 plus the last fma's rounding (2^-53) plus the
 * correction's roundings (below 7 2^-53 of it, itself below 2^-16.6
 * y1: under 2^-67): y1 is
 * within 2^-50.4 |y1| of cbrt(a), 6.1 units of its last place; the test
 * allows 64.  The result +-2^k y1 is a normal float (2^-49.7 < |cbrt x|
 * < 2^42.7): the scaling by 2^k is exact and changes no bit the test
 * reads. */
DUO_DEVICE int duo_m_cbrtf_fast_(float x, float *out)
{
    uint32_t ax = duo_bits_from_f32_(x) & 0x7fffffffu;
    if (ax - 1u >= 0x7f7fffffu)
        return -1; /* +-0, inf, NaN */
    uint64_t b = duo_bits_from_f64_((double)duo_f32_from_bits_(ax));
    int e = (int)(b >> 52) - 1023;
    int k = (e + 300) / 3 - 100; /* floor(e / 3) */
    int j = e - 3 * k;
    uint64_t frac = b & 0x000fffffffffffffull;
    double m = duo_f64_from_bits_(frac | 0x3ff0000000000000ull);
    double a = duo_f64_from_bits_(frac | ((uint64_t)(1023 + j) << 52));
    double t = m - 1.5;
    double t2 = duo_m_mul_(t, t);
    double p = duo_m_fma_(t, -0x1.5b74be61ba2c4p-7, 0x1.701901c566080p-6);
    p = duo_m_fma_(t2, p, duo_m_fma_(t, -0x1.cda558fe6ef73p-5,
                                     0x1.0462dd5227e76p-2));
    p = duo_m_fma_(t, p, 0x1.250bbcdfe923dp+0);
    /* cbrt(2^j): 1, 2^(1/3), 2^(2/3) rounded */
    double c = j == 0 ? 1.0 : j == 1 ? 0x1.428a2f98d728bp+0
                                     : 0x1.965fea53d6e3dp+0;
    double y = duo_m_mul_(c, p);
    double y2l;
    double y2 = duo_m_two_prod_(y, y, &y2l);
    double res = duo_m_fma_(y2l, y, duo_m_fma_(y2, y, -a));
    double d = duo_m_fma_(duo_m_mul_(2.0, y2), y, a);
    y = duo_m_fma_(-y, duo_m_mul_(res, duo_m_rcp_rn_(d)), y);
    if (!duo_m_round_ok_(y, 64))
        return 0;
    float r = (float)duo_m_mul_(y, duo_m_pow2_(k));
    *out = ax == duo_bits_from_f32_(x) ? r : -r;
    return 1;
}

DUO_DEVICE float duo_cbrtf(float x)
{
    float r;
    return duo_m_cbrtf_fast_(x, &r) > 0 ? r : duo_m_cbrtf_cr_(x);
}

/* The careful path of hypotf: the sum of squares as a pair, its square
 * root with the remainder's correction, rounded once to float. */
DUO_DEVICE float duo_m_hypotf_cr_(float x, float y)
{
    float ax = fabsf(x), ay = fabsf(y);
    const float inf = duo_f32_from_bits_(0x7f800000u);
    if (ax == inf || ay == inf)
        return inf; /* even when the other is NaN (C Annex F) */
    if (duo_m_isnan_(x))
        return duo_m_qnan_(x);
    if (duo_m_isnan_(y))
        return duo_m_qnan_(y);
    double X = (double)ax, Y = (double)ay, e;
    double s = duo_m_two_sum_(duo_m_mul_(X, X), duo_m_mul_(Y, Y), &e);
    if (s == 0.0)
        return 0.0f;
    double r = sqrt(s);
    double rl = (duo_m_fma_(-r, r, s) + e) / (2.0 * r);
    return duo_m_dd_to_float_(r, rl);
}

/* The fast path of hypotf: 1 and the correctly rounded *out, 0 when the
 * rounding test fails, -1 when x or y is infinite or NaN or the result
 * is below 2^-126; on 0 and -1 the careful path decides.
 *
 * x^2 and y^2 are exact in double (48 bits each, no overflow or
 * underflow for floats); s = x^2 + y^2 rounds once (relative error
 * below u = 2^-53), sqrt(s) is then within u/2 of sqrt(x^2 + y^2)
 * relatively, and r = sqrt(s) rounds once more: |r - hypot| < 1.501 u
 * |r| < 1.51 units of r's last place (|r| < 2^53 of them); the test
 * allows 4.  A result above FLT_MAX needs no care: float's overflow
 * threshold, FLT_MAX + 2^103, is a midpoint like the others, and beyond
 * it everything rounds to inf. */
DUO_DEVICE int duo_m_hypotf_fast_(float x, float y, float *out)
{
    uint32_t ax = duo_bits_from_f32_(x) & 0x7fffffffu;
    uint32_t ay = duo_bits_from_f32_(y) & 0x7fffffffu;
    if (ax >= 0x7f800000u || ay >= 0x7f800000u)
        return -1; /* inf or NaN */
    double X = (double)x, Y = (double)y;
    double r = sqrt(duo_m_mul_(X, X) + duo_m_mul_(Y, Y));
    if (r < 0x1p-126)
        return -1; /* not a normal float (or 0) */
    if (!duo_m_round_ok_(r, 4))
        return 0;
    *out = (float)r;
    return 1;
}

DUO_DEVICE float duo_hypotf(float x, float y)
{
    float r;
    return duo_m_hypotf_fast_(x, y, &r) > 0 ? r : duo_m_hypotf_cr_(x, y);
}

/* cbrt x for a double, with no division: |x| = 2^(3k) m (subnormals
 * first scaled by 2^54), m in [1, 8).  z = m^(-1/3) by Newton's steps z
 * + z (1 - m z^3) / 3, which take a relative error e to 2 e^2 + e^3:
 * the bit estimate one - (bits(m) - one) / 3 is within 2^-3.6 of it
 * (its error depends only on where m lies in [1, 8); checked at 2^20
 * points), four steps bring that to 2^-42.3 (or rounding's few ulps).
 * Then y = m z^2 (within 2^-42) and the Newton step with the exact
 * residual, dy = (m - y^3) z^2 / 3: its relative error, from z's and
 * from the step's truncation (dy^2 / y), leaves y + dy within 2^-82
 * of cbrt(m); rounded once and scaled by 2^k (exact: the result is
 * normal).  Error below 0.501 ulp; exact cubes come out exact. */
DUO_DEVICE double duo_cbrt(double x)
{
    double ax = fabs(x);
    if (duo_m_isnan_d_(x))
        return duo_m_qnan_d_(x);
    if (ax == 0.0 || ax == (double)INFINITY)
        return x;
    uint64_t b = duo_bits_from_f64_(ax);
    int e = (int)(b >> 52) - 1023;
    if (e == -1023) { /* subnormal */
        b = duo_bits_from_f64_(duo_m_mul_(ax, 0x1p54));
        e = (int)(b >> 52) - 1023 - 54;
    }
    int k = (e + 1200) / 3 - 400; /* floor(e / 3) */
    int j = e - 3 * k;
    double m = duo_f64_from_bits_((b & 0x000fffffffffffffull) |
                                  ((uint64_t)(1023 + j) << 52));
    const uint64_t one = 0x3ff0000000000000ull;
    double z = duo_f64_from_bits_(one - (duo_bits_from_f64_(m) - one) / 3);
    for (int it = 0; it < 4; ++it) {
        double t = duo_m_fma_(-m, duo_m_mul_(duo_m_mul_(z, z), z), 1.0);
        z = duo_m_fma_(duo_m_mul_(z, t), 1.0 / 3, z);
    }
    double z2 = duo_m_mul_(z, z);
    double y = duo_m_mul_(m, z2);
    double ae, be;
    double a = duo_m_two_prod_(y, y, &ae);
    double c = duo_m_two_prod_(a, y, &be);
    /* m - y^3 = (m - c) - be - ae y; m - c is exact (Sterbenz). */
    double res = (m - c) - duo_m_fma_(ae, y, be);
    double dy = duo_m_mul_(res, duo_m_mul_(z2, 1.0 / 3));
    double r = duo_m_mul_(y + dy, duo_m_pow2_(k));
    return x < 0.0 ? -r : r;
}

/* hypot(x, y) for doubles: with |x| >= |y| and |x| = 2^ex X, X in [1, 2)
 * (subnormal |x| first scaled by 2^600), Y = |y| 2^-ex; when Y < 2^-28
 * the result rounds to |x| ((Y/X)^2/2 < 2^-57 relative); otherwise
 * X^2 + Y^2 as a pair (both squares exact as pairs), its square root
 * with the remainder's correction (s - r^2)/(2r), rounded once and
 * scaled back by 2^ex: no spurious overflow or underflow, error below
 * 0.51 ulp (subnormal results: rounded twice, below 1 ulp). */
DUO_DEVICE double duo_hypot(double x, double y)
{
    double ax = fabs(x), ay = fabs(y);
    const double inf = (double)INFINITY;
    if (ax == inf || ay == inf)
        return inf; /* even when the other is NaN (C Annex F) */
    if (duo_m_isnan_d_(x))
        return duo_m_qnan_d_(x);
    if (duo_m_isnan_d_(y))
        return duo_m_qnan_d_(y);
    if (ax < ay) {
        double t = ax;
        ax = ay;
        ay = t;
    }
    if (ay == 0.0)
        return ax;
    int sc = 0;
    if (ax < 0x1p-1022) {
        ax = duo_m_mul_(ax, 0x1p600);
        ay = duo_m_mul_(ay, 0x1p600);
        sc = -600;
    }
    int ex = (int)(duo_bits_from_f64_(ax) >> 52) - 1023;
    double X = duo_m_ldexp_(ax, -ex), Y = duo_m_ldexp_(ay, -ex);
    if (Y < 0x1p-28)
        return duo_m_ldexp_(ax, sc);
    double xl, yl, e, sl;
    double xh = duo_m_two_prod_(X, X, &xl);
    double yh = duo_m_two_prod_(Y, Y, &yl);
    double sh = duo_m_fast_two_sum_(xh, yh, &e);
    sh = duo_m_fast_two_sum_(sh, e + (xl + yl), &sl);
    double r = sqrt(sh);
    double rl = (duo_m_fma_(-r, r, sh) + sl) / (2.0 * r);
    return duo_m_ldexp_(r + rl, ex + sc);
}

#endif /* DUO_MATH_MISC_H */
