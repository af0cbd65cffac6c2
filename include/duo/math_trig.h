/*
 * duo/math_trig.h - sinf, cosf, tanf, sincosf of duo/math.h, and the
 * double sin, cos, tan, sincos.
 * Included by <duo/math.h>.
 *
 * Range reduction: |x| = k pi/64 + r, |r| <= pi/128, with r as a pair of
 * doubles.  Below 2^15 by Cody-Waite (pi/64 in three parts, the first two
 * of 32 bits so that k times them is exact); above, by Payne-Hanek in
 * integer arithmetic: the float's 24-bit significand times 160 bits of
 * 2/pi taken from where its exponent points, so every float, up to
 * FLT_MAX, is reduced with at least 90 correct bits after the point.
 * Then sin(k pi/64 + r) = S cos r + C sin r (and cos likewise) with
 * S, C = sin, cos(k pi/64) from a table (pairs of doubles), sin r and
 * cos r - 1 by Taylor series (truncation below 2^-61 relative); sums as
 * pairs of doubles, error below 2^-58 relative, rounded once to float.
 *
 * sinf, cosf, sincosf and tanf first try a fast path
 * (duo_m_trigf_fast_, duo_m_sincosf_fast_) for 2^-126 <= |x| < 2^20:
 * the same k and table, rho = |x| - k pi/64 by Cody-Waite in plain
 * double (pi/64 in three parts, two fma rounded), sin r and cos r - 1
 * by short Taylor polynomials, S + (S cm + C sr) with the table's high
 * parts.  The result y is within 10.5 units of its last place (tanf:
 * 23; bound at duo_m_trigf_fast_reduce_); when y's bits below float
 * precision are more than 64 units from a float midpoint
 * (duo_m_round_ok_, math_core.h), y rounds to the correctly rounded
 * float.  Otherwise (at most 1e-7 of the arguments), where |r| < 2^-40
 * with k > 0, and for 0, subnormal, huge, infinite and NaN arguments,
 * the careful path above decides: duo_m_sinf_cr_ and its siblings, which
 * were sinf, cosf, sincosf and tanf before the fast path, so the bits
 * are theirs.  math-fast-vs-cr (tests/math/fast_vs_cr.c) compares the
 * two on all 2^32 floats.
 */
#ifndef DUO_MATH_TRIG_H
#define DUO_MATH_TRIG_H

#include <duo/math_core.h>

/* Payne-Hanek's last step: N = n0 n1 n2 (192 bits) holds |x| 64/pi with
 * its 2^6 bit at bit 191 - L (0 <= L < 64) and everything above it a
 * multiple of 128; returns k = |x| 64/pi rounded, mod 128, and
 * r = (|x| 64/pi - k) pi/64 = *rh + *rl. */
DUO_DEVICE int duo_m_ph_finish_(uint64_t n0, uint64_t n1, uint64_t n2,
                                int L, double *rh, double *rl)
{
    if (L) {
        n0 = (n0 << L) | (n1 >> (64 - L));
        n1 = (n1 << L) | (n2 >> (64 - L));
        n2 <<= L;
    }
    int k = (int)(n0 >> 57);
    uint64_t fh = (n0 << 7) | (n1 >> 57);
    uint64_t fl = (n1 << 7) | (n2 >> 57);
    double sign = 1.0;
    if (fh >> 63) { /* fraction >= 1/2: round k up, fraction - 1 */
        k = (k + 1) & 127;
        fl = ~fl + 1u;
        fh = ~fh + (fl == 0);
        sign = -1.0;
    }
    int shift = 0;
    if (fh == 0) {
        fh = fl;
        fl = 0;
        shift = 64;
    }
    int lz = duo_m_clz64_(fh);
    if (lz) {
        fh = (fh << lz) | (fl >> (64 - lz));
        fl <<= lz;
    }
    shift += lz;
    /* fraction = fh 2^(-64 - shift) + fl 2^(-128 - shift), as a pair. */
    double fhi = duo_m_mul_((double)(fh >> 11), duo_m_pow2_(-53 - shift));
    double flo = duo_m_mul_(
        (double)(((fh & 0x7ffu) << 42) | (fl >> 22)),
        duo_m_pow2_(-106 - shift));
    double pe;
    double p = duo_m_two_prod_(fhi, DUO_M_PIO64_HI, &pe);
    pe += duo_m_fma_(fhi, DUO_M_PIO64_LO, duo_m_mul_(flo, DUO_M_PIO64_HI));
    double e;
    p = duo_m_fast_two_sum_(p, pe, &e);
    *rh = sign * p;
    *rl = sign * e;
    return k;
}

/* |x| = k pi/64 + (*rh + *rl) for a finite float ax = |x| >= 2^15;
 * returns k mod 128. */
DUO_DEVICE int duo_m_rem_pio64_big_(float ax, double *rh, double *rl)
{
    uint32_t b = duo_bits_from_f32_(ax);
    uint64_t m = (b & 0x7fffffu) | 0x800000u;
    /* ax 64/pi = m 2^ex (2/pi): ex = exponent - 23 + 5. */
    int ex = (int)(b >> 23) - 150 + 5;
    /* Words of 2/pi before w give multiples of 128: dropped. */
    int k0 = (ex + 57) / 32;
    int s = ex - 32 * (k0 - 1); /* -25 <= s <= 6 */
    const uint32_t *w = DUO_MATH_T(duo_m_2opi_) + k0;
    uint64_t p0 = m * w[0], p1 = m * w[1], p2 = m * w[2], p3 = m * w[3],
             p4 = m * w[4];
    /* N = sum p_j 2^(32 (4 - j)), in 32-bit chunks c0 (top) .. c5. */
    uint64_t c5 = p4 & 0xffffffffu;
    uint64_t c4 = (p4 >> 32) + (p3 & 0xffffffffu);
    uint64_t c3 = (p3 >> 32) + (p2 & 0xffffffffu) + (c4 >> 32);
    uint64_t c2 = (p2 >> 32) + (p1 & 0xffffffffu) + (c3 >> 32);
    uint64_t c1 = (p1 >> 32) + (p0 & 0xffffffffu) + (c2 >> 32);
    uint64_t c0 = (p0 >> 32) + (c1 >> 32);
    /* N's last bit weighs 2^(s - 128): the 2^6 bit is bit 134 - s. */
    return duo_m_ph_finish_((c0 << 32) | (c1 & 0xffffffffu),
                            (c2 << 32) | (c3 & 0xffffffffu),
                            (c4 << 32) | c5, 57 + s, rh, rl);
}

/* The same for a finite double ax = |x| >= 2^15: its 53-bit significand
 * m = m1 2^32 + m0 times 2/pi, the m1 limb against the words one place
 * later (so both line up).  Term j = m0 w[j] + m1 w[j + 1] weighs
 * 2^(s - 32 j), j = 0..5: its low halves go to 32-bit chunk j + 1, its
 * high halves to chunk j (chunk 0 holds only multiples of 128 and is
 * left out).  The loop runs from the last term up, carrying, and shifts
 * each finished chunk into N = n0 n1 n2 from the top.  It stays a loop
 * on the GPU (unroll 1), so that fewer chunks are live at once:
 * unrolled, this path held 8 more registers than the rest of duo_sin's
 * kernel (38 against 30; rolled, 36; ptxas, sm_90), and a kernel is
 * given the registers of its busiest point; duo_m_trig_cold_d_ below
 * also takes it out of line. */
DUO_DEVICE int duo_m_rem_pio64_big_d_(double ax, double *rh, double *rl)
{
    uint64_t b = duo_bits_from_f64_(ax);
    uint64_t m = (b & 0x000fffffffffffffull) | 0x0010000000000000ull;
    uint64_t m0 = m & 0xffffffffu, m1 = m >> 32;
    int ex = (int)(b >> 52) - 1075 + 5;
    int k0 = (ex + 57) / 32;
    int s = ex - 32 * (k0 - 1); /* -25 <= s <= 6 */
    const uint32_t *w = DUO_MATH_T(duo_m_2opi_) + k0;
    uint64_t n0 = 0, n1 = 0, n2 = 0, carry = 0, high = 0;
#ifdef __CUDA_ARCH__
#pragma unroll 1
#endif
    for (int j = 5; j >= 0; --j) {
        uint64_t a = m0 * w[j], t = m1 * w[j + 1];
        /* chunk j + 1: below 2^34, so the sum cannot overflow */
        uint64_t c = (a & 0xffffffffu) + (t & 0xffffffffu) + high + carry;
        carry = c >> 32;
        high = (a >> 32) + (t >> 32);
        n2 = (n2 >> 32) | (n1 << 32);
        n1 = (n1 >> 32) | (n0 << 32);
        n0 = (n0 >> 32) | (c << 32);
    }
    /* The last bit weighs 2^(s - 160): the 2^6 bit is bit 166 - s of
     * chunks 1..6. */
    return duo_m_ph_finish_(n0, n1, n2, 25 + s, rh, rl);
}

/* |x| = k pi/64 + (*rh + *rl), |r| <= pi/128 (and a hair), for a finite
 * float ax = |x|; returns k mod 128. */
DUO_DEVICE int duo_m_rem_pio64_(float ax, double *rh, double *rl)
{
    if (ax >= 0x1p15f)
        return duo_m_rem_pio64_big_(ax, rh, rl);
    const double shift = 0x1.8p52;
    double xd = (double)ax;
    double kd = duo_m_fma_(xd, DUO_M_64_PI, shift) - shift;
    /* x - k P1 and k P2 are exact (k < 2^21, P1 and P2 of 32 bits). */
    double t1 = duo_m_fma_(-kd, DUO_M_PIO64_P1, xd);
    double kp2 = duo_m_mul_(kd, DUO_M_PIO64_P2);
    double e2;
    double t2 = duo_m_two_sum_(t1, -kp2, &e2);
    double lo = duo_m_fma_(-kd, DUO_M_PIO64_P3, e2);
    *rh = duo_m_two_sum_(t2, lo, rl);
    return (int)kd & 127;
}

/* sin r = rh + *sl and cos r - 1 = *cm for r = rh + rl, |r| <= pi/128. */
DUO_DEVICE void duo_m_sincos_small_(double rh, double rl, double *sl,
                                    double *cm)
{
    double s = duo_m_mul_(rh, rh);
    /* sin r - r = r s (-1/3! + s/5! - s^2/7! + s^3/9!), to r^9. */
    double q = duo_m_fma_(s, 1.0 / 362880, -1.0 / 5040);
    q = duo_m_fma_(q, s, 1.0 / 120);
    q = duo_m_fma_(q, s, -1.0 / 6);
    /* cos r - 1 = s (-1/2! + s/4! - s^2/6! + s^3/8! - s^4/10!), to r^10. */
    double c = duo_m_fma_(s, -1.0 / 3628800, 1.0 / 40320);
    c = duo_m_fma_(c, s, -1.0 / 720);
    c = duo_m_fma_(c, s, 1.0 / 24);
    c = duo_m_fma_(c, s, -0.5);
    *cm = duo_m_mul_(s, c);
    /* rl cos r ~ rl (1 - s/2). */
    *sl = duo_m_fma_(duo_m_mul_(rh, s), q, duo_m_fma_(-0.5 * rl, s, rl));
}

/* sin(k pi/64 + r) = *hi + *lo (want_sin) or cos(k pi/64 + r). */
DUO_DEVICE void duo_m_sincos_eval_(int k, double rh, double sl, double cm,
                                   int want_sin, double *hi, double *lo)
{
    /* sin(a + r) = S(1 + cm) + C sin r; cos(a + r) = C(1 + cm) - S sin r. */
    int js = want_sin ? k : (k + 32) & 127;
    int jc = want_sin ? (k + 32) & 127 : (k + 64) & 127;
    double sh = DUO_MATH_T(duo_m_sin_64_)[2 * js];
    double slo = DUO_MATH_T(duo_m_sin_64_)[2 * js + 1];
    double ch = DUO_MATH_T(duo_m_sin_64_)[2 * jc];
    double clo = DUO_MATH_T(duo_m_sin_64_)[2 * jc + 1];
    double pe, he;
    double p = duo_m_two_prod_(ch, rh, &pe);
    double h = duo_m_two_sum_(sh, p, &he);
    *hi = h;
    *lo = (he + pe) + duo_m_fma_(clo, rh, slo) +
          duo_m_fma_(sh, cm, duo_m_mul_(ch, sl));
}

DUO_DEVICE float duo_m_sinf_cr_(float x)
{
    float ax = fabsf(x);
    if (!(ax < duo_f32_from_bits_(0x7f800000u)))
        return duo_m_isnan_(x) ? duo_m_qnan_(x) : duo_m_nan_();
    if (ax == 0.0f)
        return x;
    double rh, rl, sl, cm, hi, lo;
    int k = duo_m_rem_pio64_(ax, &rh, &rl);
    /* sin(-a) = sin(a + pi): a negative x adds 64 to k, whose table
     * entries are those of k negated, so every step below is negated
     * exactly and the result is -sin|x|, as a final sign change would
     * give.  Carrying x's sign to the end instead kept one more value
     * live through the pairs below: on the GPU 38 registers instead of
     * 32, which cost sinf a quarter of its occupancy. */
    k = (k + (int)(duo_bits_from_f32_(x) >> 31) * 64) & 127;
    duo_m_sincos_small_(rh, rl, &sl, &cm);
    duo_m_sincos_eval_(k, rh, sl, cm, 1, &hi, &lo);
    return duo_m_dd_to_float_(hi, lo);
}

DUO_DEVICE float duo_m_cosf_cr_(float x)
{
    float ax = fabsf(x);
    if (!(ax < duo_f32_from_bits_(0x7f800000u)))
        return duo_m_isnan_(x) ? duo_m_qnan_(x) : duo_m_nan_();
    double rh, rl, sl, cm, hi, lo;
    int k = duo_m_rem_pio64_(ax, &rh, &rl);
    duo_m_sincos_small_(rh, rl, &sl, &cm);
    duo_m_sincos_eval_(k, rh, sl, cm, 0, &hi, &lo);
    return duo_m_dd_to_float_(hi, lo);
}

DUO_DEVICE void duo_m_sincosf_cr_(float x, float *s, float *c)
{
    float ax = fabsf(x);
    if (!(ax < duo_f32_from_bits_(0x7f800000u))) {
        *s = *c = duo_m_isnan_(x) ? duo_m_qnan_(x) : duo_m_nan_();
        return;
    }
    if (ax == 0.0f) {
        *s = x;
        *c = 1.0f;
        return;
    }
    double rh, rl, sl, cm, hi, lo;
    int k = duo_m_rem_pio64_(ax, &rh, &rl);
    duo_m_sincos_small_(rh, rl, &sl, &cm);
    /* The sine's sign as in duo_m_sinf_cr_. */
    duo_m_sincos_eval_((k + (int)(duo_bits_from_f32_(x) >> 31) * 64) & 127,
                       rh, sl, cm, 1, &hi, &lo);
    *s = duo_m_dd_to_float_(hi, lo);
    duo_m_sincos_eval_(k, rh, sl, cm, 0, &hi, &lo);
    *c = duo_m_dd_to_float_(hi, lo);
}

DUO_DEVICE float duo_m_tanf_cr_(float x)
{
    float ax = fabsf(x);
    if (!(ax < duo_f32_from_bits_(0x7f800000u)))
        return duo_m_isnan_(x) ? duo_m_qnan_(x) : duo_m_nan_();
    double rh, rl, sl, cm, sh, slo, ch, clo;
    int k = duo_m_rem_pio64_(ax, &rh, &rl);
    duo_m_sincos_small_(rh, rl, &sl, &cm);
    duo_m_sincos_eval_(k, rh, sl, cm, 1, &sh, &slo);
    duo_m_sincos_eval_(k, rh, sl, cm, 0, &ch, &clo);
    double ql;
    double q = duo_m_dd_div_f_(sh, slo, ch, clo, &ql);
    float y = duo_m_dd_to_float_(q, ql);
    return duo_bits_from_f32_(x) >> 31 ? -y : y;
}

/* The fast paths of sinf, cosf, sincosf and tanf (see the top of the
 * file): for 2^-126 <= |x| < 2^20, k = |x| 64/pi rounded (by the shift,
 * from a product with 64/pi rounded: k may be one off where |x| 64/pi
 * is within 2^-28.6 of a half-integer, so |rho| <= pi/128 + 2^-32)
 * and rho = |x| - k pi/64 by Cody-Waite in plain double, pi/64 = P1 +
 * P2 + P3 + (below 2^-127): t = |x| - k P1 is exact (one fma; k P1 and
 * |x| are multiples of P1's last place 2^-36, and |t| < 2^-4), then
 * t - k P2 and that minus k P3 are each rounded once (fma), so r is
 * within 2^-53 (|r| + k |P3|) + 2^-53 |r| + k 2^-127 of rho, k < 2^24.4:
 * below 2^-51.9 |r| + 2^-102 + 2^-102.6.  When k > 0 and |r| < 2^-40
 * the rounding test is counted as failed (return 0); otherwise the
 * reduction error is below 2^-51.9 |r| (1 + 2^-10).  |r| < 2^-5.35.
 *
 * With s = r^2: sin r = r + r s (-1/6 + s/120 - s^2/5040) (truncation
 * below 2^-61.3 |r|, evaluation below 2^-53 |sin r| + 2^-64 |r|) and
 * cos r - 1 = s (-1/2 + s/24 - s^2/720) (truncation below 2^-58,
 * evaluation below 2^-63).  sin(j pi/64 + rho) = S + (S cm + C sr)
 * with S, C = sin, cos(j pi/64) (the careful path's table, high parts
 * only: within 2^-53 of them, relatively; exactly 0 and +-1 at
 * j = 0 mod 32), one product, one fma and one sum; cos is the same at
 * j + 32.  Where S = 0 (j = 0 mod 64) this is C sr = +-sr exactly, and
 * the error is below 2^-53 + 2^-51.9 (1 + 2^-10) + 2^-63 relative, less
 * than 3.1 units in the last place of the result y.  Otherwise |y| >=
 * sin(pi/128 - 2^-32) > 0.02454 and |S| < 2 |y| (the worst case, j = 1
 * and rho = -pi/128, has S / y = 2 cos(pi/128)); the errors of S (2^-53
 * |S|), C (2^-53 |C| |r|), the reduction (2^-51.9 |r| times |C| <= 1),
 * sr (2^-53 |r|), the product (2^-53 |r|), the fma (2^-53 |S cm + C sr|
 * <= 2^-53 0.0249) and the sum (2^-53 |y|), with the truncations (below
 * 2^-57.9), add up to less than 2^-53 (|S| + |y| + 0.182): below
 * 2^-53 (3 + 0.182 / 0.02454) |y| < 10.5 units of y's last place.  tanf
 * multiplies the one by the other's correctly rounded reciprocal (no
 * division): below 2 * 10.5 + 2 = 23 units.  The rounding test
 * allows 64 (duo_m_round_ok_, math_core.h); |y| lies in float's normal
 * range: |y| >= min(|x| (1 - 2^-12), 2^-41, 0.02454) (for k = 0, |x| <
 * pi/128; for j = 0 mod 64, |r| >= 2^-40), and |tan| <= 2^41.
 *
 * Returns k mod 128 and sin r = *sr, cos r - 1 = *cm for a float ax =
 * |x| in the range, or -1 when |r| < 2^-40 and k > 0. */
DUO_DEVICE int duo_m_trigf_fast_reduce_(float ax, double *sr, double *cm)
{
    const double shift = 0x1.8p52;
    double xd = (double)ax;
    double z = duo_m_fma_(xd, DUO_M_64_PI, shift);
    double kd = z - shift;
    double t = duo_m_fma_(-kd, DUO_M_PIO64_P1, xd);
    t = duo_m_fma_(-kd, DUO_M_PIO64_P2, t);
    double r = duo_m_fma_(-kd, DUO_M_PIO64_P3, t);
    if (fabs(r) < 0x1p-40 && kd != 0.0)
        return -1;
    double s = duo_m_mul_(r, r);
    double q = duo_m_fma_(s, -1.0 / 5040, 1.0 / 120);
    q = duo_m_fma_(q, s, -1.0 / 6);
    *sr = duo_m_fma_(duo_m_mul_(r, s), q, r);
    double c = duo_m_fma_(s, -1.0 / 720, 1.0 / 24);
    c = duo_m_fma_(c, s, -0.5);
    *cm = duo_m_mul_(s, c);
    /* z = k + 1.5 2^52 exactly, so its low bits are k's */
    return (int)(duo_bits_from_f64_(z) & 127u);
}

/* sin(j pi/64 + rho) from sin r and cos r - 1, in plain double. */
DUO_DEVICE double duo_m_trigf_fast_at_(int j, double sr, double cm)
{
    double S = DUO_MATH_T(duo_m_sin_64_)[2 * (j & 127)];
    double C = DUO_MATH_T(duo_m_sin_64_)[2 * ((j + 32) & 127)];
    return S + duo_m_fma_(S, cm, duo_m_mul_(C, sr));
}

/* Whether |x| is for the fast paths: 2^-126 <= |x| < 2^20 (not 0,
 * subnormal, large, inf or NaN). */
DUO_DEVICE int duo_m_trigf_fast_arg_(float x)
{
    return (duo_bits_from_f32_(x) & 0x7fffffffu) - 0x00800000u <
           0x49800000u - 0x00800000u;
}

/* The fast path of sinf (which 0), cosf (1) and tanf (2): 1 and the
 * correctly rounded *out, 0 when the rounding test fails, -1 when x is
 * not for the fast path; on 0 and -1 the careful path decides. */
DUO_DEVICE int duo_m_trigf_fast_(float x, int which, float *out)
{
    if (!duo_m_trigf_fast_arg_(x))
        return -1;
    double sr, cm, y;
    int k = duo_m_trigf_fast_reduce_(fabsf(x), &sr, &cm);
    if (k < 0)
        return 0;
    if (which == 0)
        y = duo_m_trigf_fast_at_(k, sr, cm);
    else if (which == 1)
        y = duo_m_trigf_fast_at_(k + 32, sr, cm);
    else
        y = duo_m_mul_(duo_m_trigf_fast_at_(k, sr, cm),
                       duo_m_rcp_rn_(duo_m_trigf_fast_at_(k + 32, sr, cm)));
    if (!duo_m_round_ok_(y, 64))
        return 0;
    float f = (float)y;
    *out = which != 1 && duo_bits_from_f32_(x) >> 31 ? -f : f;
    return 1;
}

/* sincosf's: both parts from one reduction; 1 when both pass the test. */
DUO_DEVICE int duo_m_sincosf_fast_(float x, float *s, float *c)
{
    if (!duo_m_trigf_fast_arg_(x))
        return -1;
    double sr, cm;
    int k = duo_m_trigf_fast_reduce_(fabsf(x), &sr, &cm);
    if (k < 0)
        return 0;
    double ys = duo_m_trigf_fast_at_(k, sr, cm);
    double yc = duo_m_trigf_fast_at_(k + 32, sr, cm);
    if (!duo_m_round_ok_(ys, 64) || !duo_m_round_ok_(yc, 64))
        return 0;
    float f = (float)ys;
    *s = duo_bits_from_f32_(x) >> 31 ? -f : f;
    *c = (float)yc;
    return 1;
}

DUO_DEVICE float duo_sinf(float x)
{
    float y;
    return duo_m_trigf_fast_(x, 0, &y) > 0 ? y : duo_m_sinf_cr_(x);
}

DUO_DEVICE float duo_cosf(float x)
{
    float y;
    return duo_m_trigf_fast_(x, 1, &y) > 0 ? y : duo_m_cosf_cr_(x);
}

DUO_DEVICE void duo_sincosf(float x, float *s, float *c)
{
    if (duo_m_sincosf_fast_(x, s, c) <= 0)
        duo_m_sincosf_cr_(x, s, c);
}

DUO_DEVICE float duo_tanf(float x)
{
    float y;
    return duo_m_trigf_fast_(x, 2, &y) > 0 ? y : duo_m_tanf_cr_(x);
}

/* |x| = k pi/64 + (*rh + *rl), |r| <= pi/128 (and a hair), for a double
 * ax = |x| < 2^15 (above, duo_m_rem_pio64_big_d_); returns k mod 128.
 * Cody-Waite with pi/64 in four parts (x - k Q1 is exact by Sterbenz,
 * k Q2 and k Q3 exact). */
DUO_DEVICE int duo_m_rem_pio64_d_(double ax, double *rh, double *rl)
{
    const double shift = 0x1.8p52;
    double kd = duo_m_fma_(ax, DUO_M_64_PI, shift) - shift;
    double t1 = duo_m_fma_(-kd, DUO_M_PIO64_Q1, ax);
    double e2, e3;
    double t2 = duo_m_two_sum_(t1, -duo_m_mul_(kd, DUO_M_PIO64_Q2), &e2);
    double t3 = duo_m_two_sum_(t2, -duo_m_mul_(kd, DUO_M_PIO64_Q3), &e3);
    double lo = duo_m_fma_(-kd, DUO_M_PIO64_Q4, e2 + e3);
    *rh = duo_m_two_sum_(t3, lo, rl);
    return (int)kd & 127;
}

/* sin r = rh + *sl and cos r - 1 = *cm for a double r = rh + rl: the
 * series one term longer than the float one's (truncation below 2^-68). */
DUO_DEVICE void duo_m_sincos_small_d_(double rh, double rl, double *sl,
                                      double *cm)
{
    double s = duo_m_mul_(rh, rh);
    double q = duo_m_fma_(s, -1.0 / 39916800, 1.0 / 362880);
    q = duo_m_fma_(q, s, -1.0 / 5040);
    q = duo_m_fma_(q, s, 1.0 / 120);
    q = duo_m_fma_(q, s, -1.0 / 6);
    double c = duo_m_fma_(s, 1.0 / 479001600, -1.0 / 3628800);
    c = duo_m_fma_(c, s, 1.0 / 40320);
    c = duo_m_fma_(c, s, -1.0 / 720);
    c = duo_m_fma_(c, s, 1.0 / 24);
    c = duo_m_fma_(c, s, -0.5);
    *cm = duo_m_mul_(s, c);
    *sl = duo_m_fma_(duo_m_mul_(rh, s), q, duo_m_fma_(-0.5 * rl, s, rl));
}

/* sin (which 0), cos (1) or tan (2) of a finite double x, rounded; big:
 * |x| >= 2^15, reduced by Payne-Hanek.  sin r and cos r - 1 by
 * duo_m_sincos_small_d_, the angle sum by duo_m_sincos_eval_ (pairs),
 * tan (for |x| >= 2^-27) as the quotient of the two pairs, each first
 * renormalized (their low parts reach 2^-11 of the high ones), by
 * duo_m_dd_div_rcp_: |sin x| and |cos x| of such a double are at least
 * 2^-62 (no double lies within 2^-61 of a multiple of pi/2 but 0), so
 * its operands, reciprocal and quotient are normal doubles. */
DUO_DEVICE double duo_m_trig_d_(double x, int which, int big)
{
    double ax = fabs(x), rh, rl, sl, cm, hi, lo;
    int k = big ? duo_m_rem_pio64_big_d_(ax, &rh, &rl)
                : duo_m_rem_pio64_d_(ax, &rh, &rl);
    duo_m_sincos_small_d_(rh, rl, &sl, &cm);
    duo_m_sincos_eval_(k, rh, sl, cm, which != 1, &hi, &lo);
    if (which == 2) {
        double ch, clo;
        duo_m_sincos_eval_(k, rh, sl, cm, 0, &ch, &clo);
        hi = duo_m_two_sum_(hi, lo, &lo);
        ch = duo_m_two_sum_(ch, clo, &clo);
        hi = duo_m_dd_div_rcp_(hi, lo, ch, clo, &lo);
    }
    double y = hi + lo;
    return which != 1 && duo_bits_from_f64_(x) >> 63 ? -y : y;
}

/* The same for |x| >= 2^15, infinities and NaN, out of line
 * (DUO_MATH_COLD): inlined, the Payne-Hanek reduction set the registers
 * of every kernel that calls duo_sin (38 against 32; ptxas, sm_90).
 * (With only the reduction out of line, its results came back through
 * the stack on every call, and duo_sin's kernel ran slower than with
 * it inlined: 0.70 -> 0.65 of CUDA's on an H200.) */
DUO_MATH_COLD double duo_m_trig_cold_d_(double x, int which)
{
    if (!(fabs(x) < (double)INFINITY))
        return duo_m_isnan_d_(x) ? duo_m_qnan_d_(x) : duo_m_nan_d_();
    return duo_m_trig_d_(x, which, 1);
}

DUO_DEVICE double duo_sin(double x)
{
    return fabs(x) < 0x1p15 ? duo_m_trig_d_(x, 0, 0)
                            : duo_m_trig_cold_d_(x, 0);
}

DUO_DEVICE double duo_cos(double x)
{
    return fabs(x) < 0x1p15 ? duo_m_trig_d_(x, 1, 0)
                            : duo_m_trig_cold_d_(x, 1);
}

/* tan: x itself for |x| < 2^-27 (tan x - x < |x|^3/3 < 2^-54 |x|, so x
 * is the correctly rounded value, subnormals and -0 included). */
DUO_DEVICE double duo_tan(double x)
{
    if (fabs(x) < 0x1p-27)
        return x;
    return fabs(x) < 0x1p15 ? duo_m_trig_d_(x, 2, 0)
                            : duo_m_trig_cold_d_(x, 2);
}

/* Both at once: one reduction (two for |x| >= 2^15), the same bits as
 * duo_sin and duo_cos. */
DUO_DEVICE void duo_sincos(double x, double *s, double *c)
{
    if (!(fabs(x) < 0x1p15)) {
        *s = duo_m_trig_cold_d_(x, 0);
        *c = duo_m_trig_cold_d_(x, 1);
        return;
    }
    double rh, rl, sl, cm, hi, lo;
    int k = duo_m_rem_pio64_d_(fabs(x), &rh, &rl);
    duo_m_sincos_small_d_(rh, rl, &sl, &cm);
    duo_m_sincos_eval_(k, rh, sl, cm, 1, &hi, &lo);
    double y = hi + lo;
    *s = duo_bits_from_f64_(x) >> 63 ? -y : y;
    duo_m_sincos_eval_(k, rh, sl, cm, 0, &hi, &lo);
    *c = hi + lo;
}

#endif /* DUO_MATH_TRIG_H */
