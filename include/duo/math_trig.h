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
 * later (so both line up). */
DUO_DEVICE int duo_m_rem_pio64_big_d_(double ax, double *rh, double *rl)
{
    uint64_t b = duo_bits_from_f64_(ax);
    uint64_t m = (b & 0x000fffffffffffffull) | 0x0010000000000000ull;
    uint64_t m0 = m & 0xffffffffu, m1 = m >> 32;
    int ex = (int)(b >> 52) - 1075 + 5;
    int k0 = (ex + 57) / 32;
    int s = ex - 32 * (k0 - 1); /* -25 <= s <= 6 */
    const uint32_t *w = DUO_MATH_T(duo_m_2opi_) + k0;
    /* Term j = m0 w[j] + m1 w[j + 1], weight 2^(s - 32 j), j = 0..5; its
     * high half goes to chunk j, low half to chunk j + 1 (chunk 0 holds
     * only multiples of 128 and is left out). */
    uint64_t c[7] = {0, 0, 0, 0, 0, 0, 0};
    for (int j = 0; j < 6; ++j) {
        uint64_t a = m0 * w[j], t = m1 * w[j + 1];
        c[j] += (a >> 32) + (t >> 32);
        c[j + 1] += (a & 0xffffffffu) + (t & 0xffffffffu);
    }
    for (int t = 6; t > 1; --t) {
        c[t - 1] += c[t] >> 32;
        c[t] &= 0xffffffffu;
    }
    /* The last bit weighs 2^(s - 160): the 2^6 bit is bit 166 - s of
     * chunks 1..6. */
    return duo_m_ph_finish_((c[1] << 32) | (c[2] & 0xffffffffu),
                            (c[3] << 32) | c[4], (c[5] << 32) | c[6],
                            25 + s, rh, rl);
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

DUO_DEVICE float duo_sinf(float x)
{
    float ax = fabsf(x);
    if (!(ax < duo_f32_from_bits_(0x7f800000u)))
        return duo_m_isnan_(x) ? duo_m_qnan_(x) : duo_m_nan_();
    double rh, rl, sl, cm, hi, lo;
    int k = duo_m_rem_pio64_(ax, &rh, &rl);
    duo_m_sincos_small_(rh, rl, &sl, &cm);
    duo_m_sincos_eval_(k, rh, sl, cm, 1, &hi, &lo);
    float y = duo_m_dd_to_float_(hi, lo);
    return duo_bits_from_f32_(x) >> 31 ? -y : y;
}

DUO_DEVICE float duo_cosf(float x)
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

DUO_DEVICE void duo_sincosf(float x, float *s, float *c)
{
    float ax = fabsf(x);
    if (!(ax < duo_f32_from_bits_(0x7f800000u))) {
        *s = *c = duo_m_isnan_(x) ? duo_m_qnan_(x) : duo_m_nan_();
        return;
    }
    double rh, rl, sl, cm, hi, lo;
    int k = duo_m_rem_pio64_(ax, &rh, &rl);
    duo_m_sincos_small_(rh, rl, &sl, &cm);
    duo_m_sincos_eval_(k, rh, sl, cm, 1, &hi, &lo);
    float y = duo_m_dd_to_float_(hi, lo);
    *s = duo_bits_from_f32_(x) >> 31 ? -y : y;
    duo_m_sincos_eval_(k, rh, sl, cm, 0, &hi, &lo);
    *c = duo_m_dd_to_float_(hi, lo);
}

DUO_DEVICE float duo_tanf(float x)
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
    double q = duo_m_dd_div_(sh, slo, ch, clo, &ql);
    float y = duo_m_dd_to_float_(q, ql);
    return duo_bits_from_f32_(x) >> 31 ? -y : y;
}

/* |x| = k pi/64 + (*rh + *rl), |r| <= pi/128 (and a hair), for a finite
 * double ax = |x|; returns k mod 128.  Below 2^15 Cody-Waite with pi/64
 * in four parts (x - k Q1 is exact by Sterbenz, k Q2 and k Q3 exact). */
DUO_DEVICE int duo_m_rem_pio64_d_(double ax, double *rh, double *rl)
{
    if (ax >= 0x1p15)
        return duo_m_rem_pio64_big_d_(ax, rh, rl);
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

/* sin or cos (want_sin) of a double as a pair; 0 for NaN and infinity,
 * which the callers handle first. */
DUO_DEVICE void duo_m_sincos_d_(double x, int want_sin, double *hi,
                                double *lo)
{
    double rh, rl, sl, cm;
    int k = duo_m_rem_pio64_d_(fabs(x), &rh, &rl);
    duo_m_sincos_small_d_(rh, rl, &sl, &cm);
    duo_m_sincos_eval_(k, rh, sl, cm, want_sin, hi, lo);
}

DUO_DEVICE double duo_sin(double x)
{
    if (!(fabs(x) < (double)INFINITY))
        return duo_m_isnan_d_(x) ? duo_m_qnan_d_(x) : duo_m_nan_d_();
    double hi, lo;
    duo_m_sincos_d_(x, 1, &hi, &lo);
    double y = hi + lo;
    return duo_bits_from_f64_(x) >> 63 ? -y : y;
}

DUO_DEVICE double duo_cos(double x)
{
    if (!(fabs(x) < (double)INFINITY))
        return duo_m_isnan_d_(x) ? duo_m_qnan_d_(x) : duo_m_nan_d_();
    double hi, lo;
    duo_m_sincos_d_(x, 0, &hi, &lo);
    return hi + lo;
}

/* Both at once: one reduction, the same bits as duo_sin and duo_cos. */
DUO_DEVICE void duo_sincos(double x, double *s, double *c)
{
    if (!(fabs(x) < (double)INFINITY)) {
        *s = *c = duo_m_isnan_d_(x) ? duo_m_qnan_d_(x) : duo_m_nan_d_();
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

DUO_DEVICE double duo_tan(double x)
{
    if (!(fabs(x) < (double)INFINITY))
        return duo_m_isnan_d_(x) ? duo_m_qnan_d_(x) : duo_m_nan_d_();
    double rh, rl, sl, cm, sh, slo, ch, clo, ql;
    int k = duo_m_rem_pio64_d_(fabs(x), &rh, &rl);
    duo_m_sincos_small_d_(rh, rl, &sl, &cm);
    duo_m_sincos_eval_(k, rh, sl, cm, 1, &sh, &slo);
    duo_m_sincos_eval_(k, rh, sl, cm, 0, &ch, &clo);
    double q = duo_m_dd_div_(sh, slo, ch, clo, &ql);
    double y = q + ql;
    return duo_bits_from_f64_(x) >> 63 ? -y : y;
}

#endif /* DUO_MATH_TRIG_H */
