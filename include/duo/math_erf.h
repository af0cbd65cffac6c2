/*
 * duo/math_erf.h - erff and the double erf of duo/math.h.  Included by
 * <duo/math.h>.
 *
 * erf is odd: for |x| >= 4, erf rounds to +-1 (1 - erf(4) = 1.5e-8 is
 * below half a float ulp under 1, 2^-25); below, a Taylor series about
 * the nearest c = k/32 (|x - c| <= 1/64, exact in double):
 *
 *   erf(c + h) = erf(c) + sum_{n >= 0} b_n h^(n+1) / (n + 1),
 *
 * where b_n are the Taylor coefficients of erf' = 2/sqrt(pi) exp(-x^2)
 * at c: b_0 = erf'(c), b_1 = -2 c b_0, b_(n+1) = (-2 c b_n - 2 b_(n-1)) /
 * (n + 1) (from g' = -2 x g).  erf(c) and b_0 come from a table as pairs
 * of doubles (math_tables.h); erf(c) + b_0 h is formed as a pair, the
 * rest (at most 2^-9 of the result; terms fall by at least 8 (n + 1) at
 * each step) in double, 11 terms summed from the largest, then the pair
 * is rounded once to float: duo_m_erff_cr_, the careful path.
 *
 * duo_erff first tries a fast path (duo_m_erff_fast_): the same series
 * in plain double, 5 terms, with the divisions by n + 1 made products by
 * 1/(n + 1), and erf(c) + its low part + b_0 h + tail summed without a
 * pair.  Its error is below 2^-41.3 of the result: the dropped terms
 * below 2^-41.4 of it (their sum from n = 6 at |h| = 1/64, where it is
 * largest, over erf(c + h), in 200-bit arithmetic for every k: the worst
 * is 2^-41.4, and 2^-51.7 with 6 terms, 2^-70.4 with the 9 of an
 * earlier version), the roundings of the recurrence and of the terms'
 * sum from the largest below 2^-44 of the tail, itself below 2^-9 of the
 * result, and three roundings of the sums below 2^-51.  That is 2^11.7
 * units of y's last place; the rounding test (duo_m_round_ok_,
 * math_core.h) allows 2^13 and passes y's float rounding only where
 * that is the correctly rounded result.  Otherwise, and for
 * NaN, |x| >= 4 and |x| < 2^-120 (results near float's subnormals, where
 * the test's rounding position is not float's), the careful path
 * decides.  math-fast-vs-cr compares the two on all 2^32 floats.
 */
#ifndef DUO_MATH_ERF_H
#define DUO_MATH_ERF_H

#include <duo/math_core.h>

DUO_DEVICE float duo_m_erff_cr_(float x)
{
    if (duo_m_isnan_(x))
        return duo_m_qnan_(x);
    const float ax = fabsf(x);
    if (ax >= 4.0f) /* and +-inf */
        return x < 0.0f ? -1.0f : 1.0f;
    const int k = (int)(ax * 32.0f + 0.5f);
    const double c = (double)k * 0x1p-5;
    const double h = (double)ax - c; /* exact, |h| <= 1/64 */
    const double *t = DUO_MATH_T(duo_m_erf_32_) + 4 * k;
    /* The tail sum_{n=1..11} b_n h^(n+1) / (n + 1), each b_n from the
     * recurrence and its term added as it comes: the terms fall by at
     * least 8 (n + 1) at each step, so summed from the largest their
     * roundings stay below 2^-50 of the tail (2^-59 of the result), and
     * no array of coefficients is kept (with the fast path's likewise,
     * erff's kernel 56 -> 32 registers on the GPU, ptxas, sm_90; Horner's
     * rule from the last term needed them all).
     * The divisions are duo_m_div_rn_'s, the IEEE quotient (b_n and the
     * terms are zero or normal). */
    enum { TERMS = 11 };
    const double m2c = -2.0 * c;
    double b_prev = t[2], b = duo_m_mul_(m2c, b_prev); /* b_0, b_1 */
    double hp = duo_m_mul_(h, h);                        /* h^2 */
    double tail = duo_m_mul_(duo_m_div_rn_(b, 2.0), hp);
    for (int n = 1; n < TERMS; ++n) {
        const double next = duo_m_div_rn_(
            duo_m_mul_(m2c, b) - 2.0 * b_prev, (double)(n + 1));
        b_prev = b;
        b = next;
        hp = duo_m_mul_(hp, h);
        tail += duo_m_mul_(duo_m_div_rn_(b, (double)(n + 2)), hp);
    }
    /* erf(c) + (b0_hi + b0_lo) h + tail, as a pair. */
    double pl;
    const double ph = duo_m_two_prod_(t[2], h, &pl);
    pl += duo_m_mul_(t[3], h);
    double sl;
    const double sh = duo_m_two_sum_(t[0], ph, &sl);
    const double lo = sl + (t[1] + pl + tail);
    const float r = duo_m_dd_to_float_(sh, lo);
    return duo_bits_from_f32_(x) >> 31 ? -r : r; /* -0 for -0 */
}

/* The fast path of the header comment: 1 with *out the correctly
 * rounded erf x, 0 where the rounding test failed, -1 for arguments left
 * to the careful path. */
DUO_DEVICE int duo_m_erff_fast_(float x, float *out)
{
    const float ax = fabsf(x);
    if (!(ax < 4.0f) || ax < 0x1p-120f) /* NaN too */
        return -1;
    const int k = (int)(ax * 32.0f + 0.5f);
    const double c = (double)k * 0x1p-5;
    const double h = (double)ax - c; /* exact, |h| <= 1/64 */
    const double *t = DUO_MATH_T(duo_m_erf_32_) + 4 * k;
    /* a_n = b_n / (n + 1) for n = 1..TERMS, b_(n+1) by the recurrence;
     * inv[m] = 1/m, folded by the compiler. */
    enum { TERMS = 5 };
    const double inv[TERMS + 2] = {0.0,       1.0,       1.0 / 2.0,
                                   1.0 / 3.0, 1.0 / 4.0, 1.0 / 5.0,
                                   1.0 / 6.0};
    const double m2c = -2.0 * c;
    double b_prev = t[2];
    double b = duo_m_mul_(m2c, b_prev);
    /* Each term a_n h^(n+1) added as it comes, from the largest, in one
     * fma (the careful path's order; no array of a_n kept). */
    double hp = duo_m_mul_(h, h);
    double tail = duo_m_mul_(duo_m_mul_(b, 0.5), hp);
    for (int n = 1; n < TERMS; ++n) {
        const double next =
            duo_m_mul_(duo_m_fma_(m2c, b, -2.0 * b_prev), inv[n + 1]);
        b_prev = b;
        b = next;
        hp = duo_m_mul_(hp, h);
        tail = duo_m_fma_(duo_m_mul_(b, inv[n + 2]), hp, tail);
    }
    const double y = t[0] + (duo_m_fma_(t[2], h, tail) + t[1]);
    if (!duo_m_round_ok_(y, 8192))
        return 0;
    const float r = (float)y;
    *out = x < 0.0f ? -r : r;
    return 1;
}

DUO_DEVICE float duo_erff(float x)
{
    float y;
    return duo_m_erff_fast_(x, &y) > 0 ? y : duo_m_erff_cr_(x);
}

/* erf x for a double: the same series about c = k/32, 9 terms (the
 * first ones left out are below 2^-70 of the result for |h| <= 1/64,
 * largest at k = 1; 12 terms gave 2^-95 for nothing), on the
 * table's k = 0..190; |x| >= 5.9375 rounds to +-1 (1 - erf(x) < 2^-54
 * from x = 5.9216).  erf(c) + (b0_hi + b0_lo) h is a pair whose sum
 * cancels at most one bit (k = 1, h = -1/64); the rest, below 2^-10 of
 * the result, in double.  Error below 0.51 ulp; for subnormal results
 * (|x| < 2^-1022) rounded twice, within 1 ulp. */
DUO_DEVICE double duo_erf(double x)
{
    if (duo_m_isnan_d_(x))
        return duo_m_qnan_d_(x);
    const double ax = fabs(x);
    double r;
    if (ax >= 5.9375) { /* and +-inf */
        r = 1.0;
    } else if (ax < 0x1p-28) {
        /* (2/sqrt(pi)) x (1 - x^2/3), next term below 2^-110 relative;
         * x scaled by 2^64 so that the pair's low part is not lost to
         * underflow, then scaled back (+-0 come back). */
        const double *t = DUO_MATH_T(duo_m_erf_32_);
        const double z = duo_m_mul_(ax, 0x1p64), a2 = duo_m_mul_(ax, ax);
        double pl;
        const double ph = duo_m_two_prod_(t[2], z, &pl);
        const double c = duo_m_fma_(duo_m_mul_(t[2], a2), -1.0 / 3, t[3]);
        r = duo_m_mul_(ph + duo_m_fma_(z, c, pl), 0x1p-64);
    } else {
        const int k = (int)(ax * 32.0 + 0.5);
        const double c = (double)k * 0x1p-5;
        const double h = ax - c; /* exact, |h| <= 1/64 */
        const double *t = DUO_MATH_T(duo_m_erf_32_) + 4 * k;
        enum { TERMS = 9 }; /* duo_m_recip_ holds 1/n up to TERMS + 1 */
        /* 1/(n + 1) as rounded products, not 17 divisions: each term of
         * the tail gains at most two units of its last place, and the
         * tail is below 2^-10 of the result. */
        const double *inv = DUO_MATH_T(duo_m_recip_);
        /* The terms added as they come, from the largest, as in
         * duo_m_erff_cr_: no array of coefficients (40 -> 32 registers on
         * the GPU, ptxas, sm_90). */
        const double m2c = -2.0 * c;
        double b_prev = t[2], b = duo_m_mul_(m2c, b_prev);
        double hp = duo_m_mul_(h, h);
        double tail = duo_m_mul_(duo_m_mul_(b, inv[2]), hp);
        for (int n = 1; n < TERMS; ++n) {
            const double next = duo_m_mul_(
                duo_m_mul_(m2c, b) - 2.0 * b_prev, inv[n + 1]);
            b_prev = b;
            b = next;
            hp = duo_m_mul_(hp, h);
            tail += duo_m_mul_(duo_m_mul_(b, inv[n + 2]), hp);
        }
        double pl;
        const double ph = duo_m_two_prod_(t[2], h, &pl);
        pl += duo_m_mul_(t[3], h);
        double sl;
        const double sh = duo_m_two_sum_(t[0], ph, &sl);
        r = sh + (sl + (t[1] + pl + tail));
    }
    return duo_bits_from_f64_(x) >> 63 ? -r : r; /* -0 for -0 */
}

#endif /* DUO_MATH_ERF_H */
