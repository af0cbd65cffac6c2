/*
 * duo/math_pow.h - powf and pow of duo/math.h.
 * Included by <duo/math.h>.
 *
 * Method: |x|^y = e^z, z = y log|x|.
 *
 * log|x| as a pair of doubles: the reduction of math_log.h (|x| = 2^e m,
 * c ~ 1/m from its table, r = m c - 1, |r| < 2^-7), but log1p(r) carried
 * further: r - r^2/2 + r^3/3 with r^2 and r^3 as pairs (two_prod), the
 * rest r^4 (-1/4 + r/5 - ... + r^7/11) in double (truncation below
 * 2^-87, rounding below 2^-80); for a double x the rounding error of
 * m c joins as pe (1 - r + r^2).  Relative error below about 2^-75.
 *
 * z = y (hi + lo) as a pair (y hi exact by two_prod), so z's absolute
 * error is |z| 2^-75: below 2^-68 for |z| <= 104 (powf), 2^-65 for
 * |z| <= 746 (pow).  Beyond those |z| the result overflows or
 * underflows to 0 for certain and e^z is not evaluated.
 *
 * e^z of the pair: z = k log(2)/64 + r (log(2)/64 in three parts as in
 * duo_exp, z's low part joins r's), e^r - 1 = r + r^2/2 (a pair) +
 * r^3 (1/6 + ... + r^5/8!) (truncation below 2^-86), times 2^(j/64) from
 * the table as a pair: the result hi + lo has relative error below
 * about 2^-68 for powf, 2^-65 for pow.
 *
 * pow: for results above 2^-1020, e^z in plain double from the pair z
 * (duo_m_exp_plain_d_, math_exp.h), below 0.53 ulp; smaller results
 * round hi + lo once to a multiple of 2^-1074 (at most about 0.5 ulp +
 * 2^-12 ulp).
 *
 * powf: rounding hi + lo once to float is right unless the exact value
 * lies within the error bound of a rounding boundary, i.e. of the
 * midpoint of two adjacent floats.  Nearly always hi + lo rounded to
 * double is clearly away from a midpoint (its bits say so, see below).
 * Otherwise, and for subnormal results, it is rounded twice, with the
 * error bound (taken as 2^-62 relative, 64 times the estimate) added
 * and subtracted; when both agree that is the correctly rounded float.
 * When they differ, the exact value may be the midpoint itself: an exact
 * case, which no precision resolves (x = 4097, y = 2 gives a 25-bit
 * odd square; x = 2^-75, y = 2 gives 2^-150, half the least subnormal).
 * duo_m_powf_is_ decides it exactly with integers and returns the
 * midpoint, which the conversion to float rounds to even.  A value that
 * is not a midpoint but lies within 2^-62 of one keeps the nearest float
 * of hi + lo, right unless hi + lo's actual error (about 2^-68) exceeds
 * its distance to the midpoint; none was seen in the tests
 * (profiles/math/pow.md), but unlike the one-argument functions no
 * search over all 2^64 pairs proves there is none that close.  Exactly
 * representable results (powf(2, 10), pow(10, 22)) lie half an ulp from
 * any boundary, so they come out exact.
 *
 * powf first tries a fast path (duo_m_powf_fast_) for x > 0 finite, y
 * finite and nonzero, x != 1: the same reduction with log1p(r) = r +
 * r^2 q(r), q of degree 5, E log 2 + (the table's -log c) and that sum
 * in plain double, z = y log x rounded once, and e^z reduced as in
 * duo_exp with a degree 5 polynomial; the result within 2^11.1 units
 * of its last place (bound at duo_m_powf_fast_), and the rounding test
 * (duo_m_round_ok_, math_core.h) allows 2^12.  Where the test fails
 * (about 2^-16 of the arguments: exact and midpoint cases among them,
 * which lie on a float or a midpoint), for results outside float's
 * normal range, and for every other argument, the careful path below
 * (duo_m_powf_cr_) decides.  math-fast-vs-cr compares the two on 2^32
 * pairs of math-exhaustive's sample.
 *
 * Special values as C11 Annex F (F.10.4.4): pow(x, +-0) = 1 and
 * pow(1, y) = 1 even for NaN, pow(-1, +-inf) = 1, a NaN argument gives
 * its payload quieted (x's first), x < 0 with y finite and not an
 * integer gives the default NaN, odd integer y keeps x's sign.
 */
#ifndef DUO_MATH_POW_H
#define DUO_MATH_POW_H

#include <duo/math_core.h>
#include <duo/math_exp.h>

/* log(u 2^ex) = *hi + *lo for a positive normal double u. */
DUO_DEVICE void duo_m_pow_log_(double u, int ex, double *hi, double *lo)
{
    uint64_t b = duo_bits_from_f64_(u);
    int e = (int)(b >> 52) - 1023 + ex;
    int i = (int)((b >> 45) & 127u);
    double m = duo_f64_from_bits_((b & 0x000fffffffffffffull) |
                                  0x3ff0000000000000ull);
    double pe;
    double p = duo_m_two_prod_(m, DUO_MATH_T(duo_m_log_c_)[i], &pe);
    double r = p - 1.0; /* exact: p is within 2^-7 of 1 */
    /* r^2 = s + se and r^3 = c3 + ce exactly enough (2^-106 relative). */
    double se, ce;
    double s = duo_m_two_prod_(r, r, &se);
    double c3 = duo_m_two_prod_(s, r, &ce);
    ce = duo_m_fma_(se, r, ce);
    /* r^3 / 3 as a pair: (c3 + ce) times 1/3 as a pair (relative error
     * 2^-107), the product's rounding error by fma. */
    double t3 = duo_m_mul_(c3, DUO_M_THIRD_HI);
    double t3l = duo_m_fma_(c3, DUO_M_THIRD_HI, -t3) +
                 duo_m_fma_(c3, DUO_M_THIRD_LO,
                            duo_m_mul_(ce, DUO_M_THIRD_HI));
    /* -1/4 + r/5 - ... + r^7/11 in Estrin's form: a chain of 4
     * operations instead of Horner's 7. */
    double s4 = duo_m_mul_(s, s);
    double q01 = duo_m_fma_(r, 1.0 / 5, -1.0 / 4);
    double q23 = duo_m_fma_(r, 1.0 / 7, -1.0 / 6);
    double q45 = duo_m_fma_(r, 1.0 / 9, -1.0 / 8);
    double q67 = duo_m_fma_(r, 1.0 / 11, -1.0 / 10);
    double q = duo_m_fma_(s4, duo_m_fma_(s, q67, q45),
                          duo_m_fma_(s, q23, q01));
    double tail = duo_m_mul_(s4, q);
    /* log1p(r) = a2 + (its low terms): |r| >= r^2/2 >= |r^3|/3. */
    double ae, ae2;
    double a = duo_m_fast_two_sum_(r, duo_m_mul_(-0.5, s), &ae);
    double a2 = duo_m_fast_two_sum_(a, t3, &ae2);
    /* log1p(r + pe) - log1p(r) = pe (1 - r + r^2) + O(pe r^3). */
    double pc = duo_m_mul_(pe, (1.0 - r) + s);
    double low = (ae + ae2) + ((t3l - duo_m_mul_(0.5, se)) + (tail + pc));
    double E = (double)(e + (i >= 64));
    double ee;
    double ah = duo_m_two_prod_(E, DUO_M_LN2_HI, &ee);
    ee = duo_m_fma_(E, DUO_M_LN2_LO, ee);
    double e1, e2;
    double s1 = duo_m_two_sum_(ah, DUO_MATH_T(duo_m_log_l_)[2 * i], &e1);
    double s2 = duo_m_two_sum_(s1, a2, &e2);
    double l = (e1 + e2) + (ee + DUO_MATH_T(duo_m_log_l_)[2 * i + 1]) + low;
    *hi = duo_m_fast_two_sum_(s2, l, lo);
}

/* e^(zh + zl) = (*hi + *lo) 2^E, E returned, for |zh| <= 746 and
 * |zl| <= 2^-40; *hi in [1, 2) give or take a rounding. */
DUO_DEVICE int duo_m_pow_exp_(double zh, double zl, double *hi, double *lo)
{
    const double shift = 0x1.8p52; /* rounds to an integer */
    double kd = duo_m_fma_(zh, DUO_M_64_LN2, shift) - shift;
    /* zh - k hi is exact: |k| < 2^17 and hi has 36 bits (duo_exp). */
    double t = duo_m_fma_(-kd, DUO_M_LN2_64_D_HI, zh);
    double pe, re;
    double p = duo_m_two_prod_(kd, DUO_M_LN2_64_D_LO, &pe);
    double r = duo_m_two_sum_(t, -p, &re);
    double rl = (re - pe) + (zl - duo_m_mul_(kd, DUO_M_LN2_64_D_LO2));
    /* e^r - 1 = ph + pl: r + r^2/2 as a pair, r^3 (1/6 + ... r^5/8!). */
    double se, pe2;
    double s = duo_m_two_prod_(r, r, &se);
    double ph = duo_m_fast_two_sum_(r, duo_m_mul_(0.5, s), &pe2);
    double q01 = duo_m_fma_(r, 1.0 / 24, 1.0 / 6);
    double q23 = duo_m_fma_(r, 1.0 / 720, 1.0 / 120);
    double q45 = duo_m_fma_(r, 1.0 / 40320, 1.0 / 5040);
    double q = duo_m_fma_(s, duo_m_fma_(s, q45, q23), q01);
    double pl = (pe2 + duo_m_mul_(0.5, se)) + duo_m_mul_(duo_m_mul_(s, r), q);
    /* e^(r + rl) - 1 = e^r - 1 + rl e^r, rl below 2^-40. */
    pl += duo_m_mul_(rl, 1.0 + ph);
    int k = (int)kd;
    int j = k & 63;
    double th = DUO_MATH_T(duo_m_exp2_64_)[2 * j];
    double tl = DUO_MATH_T(duo_m_exp2_64_)[2 * j + 1];
    /* (th + tl)(1 + ph + pl) = th + th ph + [th pl + tl + tl ph] */
    double qe, e1;
    double qh = duo_m_two_prod_(th, ph, &qe);
    double h = duo_m_fast_two_sum_(th, qh, &e1);
    double l = (e1 + qe) + (duo_m_fma_(th, pl, tl) + duo_m_mul_(tl, ph));
    *hi = duo_m_fast_two_sum_(h, l, lo);
    return (k - j) / 64;
}

/* y finite and nonzero: 0 when y is not an integer, 1 when it is an odd
 * integer, 2 an even one (the bits of a float's or a double's
 * significand: mbits 23 or 52, bias 127 or 1023). */
DUO_DEVICE int duo_m_pow_yclass_(uint64_t sig, int exp, int mbits)
{
    /* y = sig 2^(exp - mbits), sig with its leading bit. */
    if (exp < 0)
        return 0;
    if (exp > mbits)
        return 2;
    uint64_t frac = sig & ((1ull << (mbits - exp)) - 1u);
    if (frac)
        return 0;
    return ((sig >> (mbits - exp)) & 1u) ? 1 : 2;
}

/* v = a 2^*f with a odd, for a positive finite double v. */
DUO_DEVICE uint64_t duo_m_pow_odd_(double v, int *f)
{
    uint64_t b = duo_bits_from_f64_(v);
    int be = (int)(b >> 52);
    uint64_t a = b & 0x000fffffffffffffull;
    if (be)
        a |= 1ull << 52;
    *f = (be ? be : 1) - 1075;
    while (!(a & 1u)) {
        a >>= 1;
        ++*f;
    }
    return a;
}

/* Whether |x|^y = m exactly, m > 0 with at most 25 significant bits (a
 * midpoint between two floats).  Write |x| = A 2^ex and m = B 2^f with A,
 * B odd, y = n / 2^k with n odd (k = 0 for an integer y).  Then
 * A^n 2^(ex n) = B^(2^k) 2^(f 2^k) means, odd parts and powers of 2
 * apart: A^(n/2^k) = B and ex y = f.  If A or B is 1 both are (a power
 * of a fraction 1/A^|n| or of A >= 3 is not 1).  Otherwise y > 0 (an odd
 * A^-|n| is not a dyadic B), A is a perfect 2^k-th power (so k <= 3:
 * 3^16 > 2^24) and B = root^n <= 2^25 bounds n by 25. */
DUO_DEVICE int duo_m_powf_is_(float x, float y, double m)
{
    int ex, f;
    uint64_t A = duo_m_pow_odd_(fabs((double)x), &ex);
    uint64_t B = duo_m_pow_odd_(m, &f);
    double yd = (double)y;
    /* ex y is exact: |ex| < 2^8 and y has 24 bits. */
    if (duo_m_mul_((double)ex, yd) != (double)f)
        return 0;
    if (A == 1u || B == 1u)
        return A == 1u && B == 1u;
    if (!(yd > 0.0 && yd <= 25.0))
        return 0;
    int k = 0;
    while (yd != (double)(int)yd && k < 4) {
        yd = yd + yd;
        ++k;
    }
    if (yd != (double)(int)yd)
        return 0;
    for (int i = 0; i < k; ++i) { /* A's square root, if exact */
        uint64_t s = (uint64_t)sqrt((double)A);
        if (s * s != A)
            return 0;
        A = s;
    }
    uint64_t P = 1u;
    for (int i = 0; i < (int)yd; ++i) {
        P *= A;
        if (P > B)
            return 0;
    }
    return P == B;
}

DUO_DEVICE float duo_m_powf_cr_(float x, float y)
{
    const uint32_t bx = duo_bits_from_f32_(x), by = duo_bits_from_f32_(y);
    const uint32_t ax = bx & 0x7fffffffu, ay = by & 0x7fffffffu;
    const float inf = duo_f32_from_bits_(0x7f800000u);
    if (ay == 0u || bx == 0x3f800000u)
        return 1.0f; /* even for a NaN x or y */
    if (ax > 0x7f800000u)
        return duo_m_qnan_(x);
    if (ay > 0x7f800000u)
        return duo_m_qnan_(y);
    if (ay == 0x7f800000u) {
        if (ax == 0x3f800000u)
            return 1.0f; /* (-1)^+-inf */
        return ((ax > 0x3f800000u) == !(by >> 31)) ? inf : 0.0f;
    }
    int yc = duo_m_pow_yclass_((by & 0x007fffffu) | 0x00800000u,
                               (int)(ay >> 23) - 127, 23);
    int neg = (bx >> 31) && yc == 1;
    if (ax == 0u || ax == 0x7f800000u) {
        /* 0^y: +inf for y < 0; inf^y: +inf for y > 0; signed by x for
         * odd integer y. */
        float r = ((ax == 0u) == (int)(by >> 31)) ? inf : 0.0f;
        return neg ? -r : r;
    }
    if ((bx >> 31) && yc == 0)
        return duo_m_nan_(); /* negative x, y not an integer */
    double hi, lo, zl;
    duo_m_pow_log_(fabs((double)x), 0, &hi, &lo);
    double zh = duo_m_two_prod_((double)y, hi, &zl);
    float r;
    if (zh > 89.0) { /* e^89 > FLT_MAX */
        r = inf;
    } else if (zh < -104.0) { /* e^-104 < 2^-150: rounds to 0 */
        r = 0.0f;
    } else {
        zl = duo_m_fma_((double)y, lo, zl);
        double h, l;
        double s = duo_m_pow2_(duo_m_pow_exp_(zh, zl, &h, &l));
        h = duo_m_mul_(h, s); /* exact: 2^-151 < h < 2^129 */
        l = duo_m_mul_(l, s);
        /* Fast test: v = h + l rounded to double is within 0.5 + 2^-9
         * of its ulps from the exact value, so unless its 29 bits below
         * float's 24 are within 2 units of the midpoint pattern 2^28, it
         * rounds to float as the exact value does.  (Normal floats only;
         * the branch is taken nearly always.) */
        double v = h + l;
        uint32_t t = (uint32_t)(duo_bits_from_f64_(v) & 0x1fffffffu);
        if (fabs(v) >= 0x1p-126 && t - 0x0ffffffeu > 4u) {
            r = (float)v;
        } else {
            double err = duo_m_mul_(h, 0x1p-62);
            float up = duo_m_dd_to_float_(h, l + err);
            float dn = duo_m_dd_to_float_(h, l - err);
            r = up;
            if (up != dn) {
                double mid = duo_m_mul_(0.5, (double)up + (double)dn);
                r = duo_m_powf_is_(x, y, mid) ? (float)mid
                                              : duo_m_dd_to_float_(h, l);
            }
        }
    }
    return neg ? -r : r;
}

/* The fast path of powf: 1 and the correctly rounded *out, 0 when the
 * rounding test fails, -1 for arguments left to the careful path.  It is
 * short rather than tight: no pairs, both polynomials in Estrin's form
 * (on one CPU thread a loop of powf is bound by the latency of one
 * call's chain of operations), an error bound of 2^11.1 units of the
 * result's last place and a rounding test that allows 2^12, so about
 * 2^-16 of the arguments fall back.
 *
 * u = (double)x = 2^e m (normal, also for subnormal x), i, c, E and T
 * (the table's -log c, - log 2 for i >= 64; its high part only) as in
 * duo_m_pow_log_; r = fma(m, c, -1) exact (m has at most 24 bits, c 12),
 * |r| < 2^-7.  The table keeps |E log 2|, |T| and |r| below 3.6 L, L =
 * |log x| (duo_m_logf_fast_).  Relative to L, the errors of lg = A + B,
 * A = fma(E, LN2, T), B = fma(r^2, q, r), q = -1/2 + r/3 - ... + r^5/7:
 * E (log 2 - LN2) below 2^-52.9 (|E| < 5.2 L, |log 2 - LN2| < 2^-55.2);
 * T's rounding 2^-51.2 (half an ulp, |T| < 3.6 L); A's rounding 2^-50.8
 * (|A| <= L + |B| < 4.7 L); log1p's truncation r^8/8 (1 + 2^-6) <
 * 2^-52 |r|, 2^-50.1; q's evaluation 2^-57; B's rounding 2^-51.1; lg's
 * 2^-53: all told below 2^-48.5 L.  z = y lg rounded is then within
 * 2^-48.4 |z| of y log x, 2^-41.9 for |z| < 87 (beyond, the result may
 * not be a normal float: careful path).  e^z: k = z 64/log 2 rounded
 * (|k| < 2^13), t = z - k H exact (H = log(2)/64's high part, 36 bits;
 * duo_exp), rho = t - k L64 with one rounding (below 2^-60.5; |rho| <
 * 2^-7.5), e^rho - 1 by rho + rho^2 (1/2 + rho/6 + rho^2 (1/24 +
 * rho/120)) (truncation below 2^-54.4, evaluation below 2^-60), times
 * 2^(j/64) from the table (high part: 2^-53) by one fma (2^-53).  So
 * the result v, in (0.99, 2), is within 2^-41.9 v of e^(y log x):
 * below 2^11.1 units of its last place.  math-fast-vs-cr
 * compares this path with the careful one on 2^32 pairs. */
DUO_DEVICE int duo_m_powf_fast_(float x, float y, float *out)
{
    const uint32_t bx = duo_bits_from_f32_(x), by = duo_bits_from_f32_(y);
    const uint32_t ay = by & 0x7fffffffu;
    if (bx - 1u >= 0x7f7fffffu || bx == 0x3f800000u || ay == 0u ||
        ay >= 0x7f800000u)
        return -1; /* x <= 0, inf, NaN, x = 1; y = 0, inf, NaN */
    const uint64_t b = duo_bits_from_f64_((double)x);
    const int i = (int)((b >> 45) & 127u);
    const double E = (double)((int)(b >> 52) - 1023 + (i >= 64));
    const double m = duo_f64_from_bits_((b & 0x000fffffffffffffull) |
                                        0x3ff0000000000000ull);
    const double r = duo_m_fma_(m, DUO_MATH_T(duo_m_log_c_)[i], -1.0);
    const double r2 = duo_m_mul_(r, r);
    const double q01 = duo_m_fma_(r, 1.0 / 3, -0.5);
    const double q23 = duo_m_fma_(r, 1.0 / 5, -0.25);
    const double q45 = duo_m_fma_(r, 1.0 / 7, -1.0 / 6);
    const double q = duo_m_fma_(r2, q23, q01) +
                     duo_m_mul_(duo_m_mul_(r2, r2), q45);
    const double lg =
        duo_m_fma_(E, DUO_M_LN2_HI, DUO_MATH_T(duo_m_log_l_)[2 * i]) +
        duo_m_fma_(r2, q, r);
    const double z = duo_m_mul_((double)y, lg);
    if (!(fabs(z) < 87.0))
        return -1; /* the result may not be a normal float */
    const double shift = 0x1.8p52; /* rounds to an integer */
    const double kb = duo_m_fma_(z, DUO_M_64_LN2, shift);
    const double kd = kb - shift;
    const double t = duo_m_fma_(-kd, DUO_M_LN2_64_D_HI, z);
    const double rho = duo_m_fma_(-kd, DUO_M_LN2_64_D_LO, t);
    const double s = duo_m_mul_(rho, rho);
    const double p01 = duo_m_fma_(rho, 1.0 / 6, 0.5);
    const double p23 = duo_m_fma_(rho, 1.0 / 120, 1.0 / 24);
    const double p = duo_m_fma_(s, duo_m_fma_(s, p23, p01), rho);
    /* k = kb's low bits (|k| < 2^14); (kb - j) << 46 is E2 << 52 mod
     * 2^64. */
    const uint64_t kbits = duo_bits_from_f64_(kb);
    const uint64_t j = kbits & 63u;
    const double T2 = DUO_MATH_T(duo_m_exp2_64_)[2 * j];
    const double v = duo_m_fma_(T2, p, T2);
    if (!duo_m_round_ok_(v, 4096))
        return 0;
    *out = (float)duo_f64_from_bits_(duo_bits_from_f64_(v) +
                                     ((kbits - j) << 46));
    return 1;
}

DUO_DEVICE float duo_powf(float x, float y)
{
    float r;
    return duo_m_powf_fast_(x, y, &r) > 0 ? r : duo_m_powf_cr_(x, y);
}

/* (h + l) 2^E rounded once to a multiple of 2^-1074, for a result below
 * 2^-1022 (h + l rounded to double, then scaled, would round twice).
 * In units of 2^-1074 it is hs + ls, hs < 2^52; n = hs rounded to an
 * integer (ties to even), d = hs - n exactly, |d| <= 1/2.  |ls| is at
 * most half an ulp of hs, so ls changes n only when d is exactly +-1/2,
 * where it breaks the tie. */
DUO_DEVICE double duo_m_pow_subnormal_(double h, double l, int E)
{
    double sc = duo_m_pow2_(E + 1074); /* E >= -1077: sc >= 2^-3 */
    double hs = duo_m_mul_(h, sc), ls = duo_m_mul_(l, sc);
    double n = (hs + 0x1p52) - 0x1p52;
    double d = hs - n;
    if (d == 0.5 && ls > 0.0)
        n += 1.0;
    else if (d == -0.5 && ls < 0.0)
        n -= 1.0;
    return duo_m_mul_(n, 0x1p-1074);
}

/* |x|^y for |x| = u 2^ex, u a positive normal double, y finite and
 * nonzero (the sign is the caller's).  z = y log|x| = zh + zl, log|x|
 * by duo_m_pow_log_ (relative error below 2^-75, so z's below 2^-65 for
 * |z| <= 746).  Results above 2^-1020 take duo_m_exp_plain_d_: error below
 * 0.53 ulp; smaller ones the pair (duo_m_pow_exp_) and one rounding into
 * the subnormals. */
DUO_DEVICE double duo_m_pow_pos_(double u, int ex, double y)
{
    double hi, lo, zl;
    duo_m_pow_log_(u, ex, &hi, &lo);
    double zh = duo_m_two_prod_(y, hi, &zl);
    if (zh > 709.8) /* e^709.8 > DBL_MAX (zh may be inf) */
        return (double)INFINITY;
    if (zh < -745.2) /* e^-745.2 < 2^-1075: rounds to 0 */
        return 0.0;
    zl = duo_m_fma_(y, lo, zl);
    if (zh > -707.0) /* e^-707 > 2^-1020: k >= -65279, E >= -1020 */
        return duo_m_exp_plain_d_(zh, zl, 0);
    double h, l;
    int E = duo_m_pow_exp_(zh, zl, &h, &l);
    if (E > -1022 || (E == -1022 && h >= 1.0))
        return duo_m_ldexp_(h + l, E); /* normal: exact scaling */
    return duo_m_pow_subnormal_(h, l, E);
}

DUO_DEVICE double duo_pow(double x, double y)
{
    const uint64_t bx = duo_bits_from_f64_(x), by = duo_bits_from_f64_(y);
    const uint64_t ax = bx & 0x7fffffffffffffffull;
    const uint64_t ay = by & 0x7fffffffffffffffull;
    const uint64_t one = 0x3ff0000000000000ull, infb = 0x7ff0000000000000ull;
    const uint64_t min_normal = 0x0010000000000000ull;
    /* The common case first, without the tests below: x positive,
     * normal and not 1, y finite and nonzero. */
    if (bx - min_normal < infb - min_normal && bx != one &&
        ay - 1u < infb - 1u)
        return duo_m_pow_pos_(x, 0, y);
    const double inf = duo_f64_from_bits_(infb);
    if (ay == 0u || bx == one)
        return 1.0;
    if (ax > infb)
        return duo_m_qnan_d_(x);
    if (ay > infb)
        return duo_m_qnan_d_(y);
    if (ay == infb) {
        if (ax == one)
            return 1.0;
        return ((ax > one) == !(by >> 63)) ? inf : 0.0;
    }
    int yc = duo_m_pow_yclass_((by & 0x000fffffffffffffull) | (1ull << 52),
                               (int)(ay >> 52) - 1023, 52);
    int neg = (bx >> 63) && yc == 1;
    if (ax == 0u || ax == infb) {
        double r = ((ax == 0u) == (int)(by >> 63)) ? inf : 0.0;
        return neg ? -r : r;
    }
    if ((bx >> 63) && yc == 0)
        return duo_m_nan_d_();
    double u = fabs(x);
    int ex = 0;
    if (ax < min_normal) { /* subnormal: u 2^64 is normal */
        u = duo_m_mul_(u, 0x1p64);
        ex = -64;
    }
    double r = duo_m_pow_pos_(u, ex, y);
    return neg ? -r : r;
}

#endif /* DUO_MATH_POW_H */
