/*
 * math_sample.c - arguments for the tests of <duo/math.h>.
 */
#include "math_sample.h"

#include <math.h>

#include "test_util.h"

static const uint32_t special[] = {
    0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, /* +-0, +-inf */
    0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7fa12345u, /* NaNs */
    0xffd00001u,
    0x00000001u, 0x80000001u, 0x007fffffu, 0x807fffffu, /* subnormals */
    0x00800000u, 0x80800000u, 0x7f7fffffu, 0xff7fffffu, /* normal range */
    0x3f800000u, 0xbf800000u, 0x3f7fffffu, 0x3f800001u, /* 1, around 1 */
    0xbf7fffffu, 0xbf800001u, 0x3f000000u, 0xbf000000u,
    0x40000000u, 0xc0000000u, 0x40400000u, 0x41d80000u, /* 2, -2, 3, 27 */
    0x41000000u, 0x41200000u, 0x42c80000u, 0x501502f9u, /* 8, 10, 100, 1e10 */
    0x3dcccccdu, 0x34000000u, 0x33000000u, 0x32800000u, /* 0.1, 2^-23.. */
    0x42b17217u, 0x42b17218u, 0x42b17219u, 0x42b20000u, /* exp overflow */
    0xc2aeac50u, 0xc2cff1b4u, 0xc2cff1b5u, 0xc2d00000u, /* exp underflow */
    0x43000000u, 0x42ffffffu, 0xc3150000u, 0xc3160000u, /* exp2 edges */
    0xc3170000u, 0xc1900000u, 0xc18aa123u, 0x41200000u, /* -18, 10 */
    0x3d800000u, 0xbd800000u, 0x3e000000u, 0x3c800000u, /* 1/16, 1/8, 1/64 */
    0xbc800000u, 0x46ffffffu, 0x47000000u, 0x47800000u, /* 2^15 edge */
    0x7e967699u, 0x5d000000u, 0x4b000000u, 0x4b800000u, /* big for sin */
    0x3fc90fdbu, 0x40490fdbu, 0x4016cbe4u, 0x3c490fdbu, /* pi/2, pi */
    0x3f490fdbu, 0x40c90fdbu, 0x49742400u, 0x4e6e6b28u, /* 2pi, 1e6, 1e9 */
    0x42b2d4fcu, 0x42b2d4fdu, 0xc2b2d4fcu, 0x41102cb4u, /* sinh edges */
};

size_t mf_special_count(void)
{
    return sizeof special / sizeof special[0];
}

uint32_t mf_special_bits(size_t i)
{
    return special[i];
}

void mf_sample(float *x, float *y, size_t n, uint64_t seed)
{
    const size_t ns = mf_special_count();
    test_rng rng;
    test_rng_seed(&rng, seed);
    for (size_t i = 0; i < n; ++i) {
        if (i < ns * ns) {
            x[i] = test_f32_from_bits(special[i / ns]);
            y[i] = test_f32_from_bits(special[i % ns]);
            continue;
        }
        for (int k = 0; k < 2; ++k) {
            float *v = k ? &y[i] : &x[i];
            switch (test_rng_u32(&rng) % 3) {
            case 0:
                *v = test_f32_from_bits(test_rng_u32(&rng));
                break;
            case 1:
                *v = 8.0f * test_rng_uniform_f(&rng);
                break;
            default:
                *v = test_rng_wide_f(&rng, -40, 40);
                break;
            }
        }
    }
}

static const uint64_t special_d[] = {
    0x0000000000000000ull, 0x8000000000000000ull, 0x7ff0000000000000ull,
    0xfff0000000000000ull, 0x7ff8000000000000ull, 0xfff8000000000001ull,
    0x7ff0000000000001ull, 0x0000000000000001ull, 0x000fffffffffffffull,
    0x0010000000000000ull, 0x7fefffffffffffffull, 0xffefffffffffffffull,
    0x3ff0000000000000ull, 0xbff0000000000000ull, 0x3fefffffffffffffull,
    0x3ff0000000000001ull, 0x40862e42fefa39efull, 0x40862e42fefa39f0ull,
    0xc0874385446d71c3ull, 0xc0874910d52d3051ull, 0xc0874910d52d3052ull,
    0xc086232bdd7abcd2ull, 0x4024000000000000ull, 0x3fe0000000000000ull,
    0x4090000000000000ull, 0x408fffffffffffffull, 0xc090cc0000000000ull,
    0xc090c80000000000ull, 0xc08ff00000000000ull, /* exp2: 1024, -1075 */
    0x408633ce8fb9f87eull, 0x408633ce8fb9f87full, 0xc08633ce8fb9f87eull,
    0x4044000000000000ull, 0x4034000000000000ull, /* sinh, cosh: 40 */
    0xc043000000000000ull, 0x3e50000000000000ull, 0xbe50000000000000ull,
    0x3c90000000000000ull, 0x3fb0000000000000ull, 0xbfb0000000000000ull,
    0x3f80000000000000ull, 0xbf80000000000000ull, 0x3f90000000000000ull,
    0x4017c00000000000ull, 0x4017afb48dc96627ull, /* erf -> 1 */
    0xbfefffffffffffffull, 0x403b000000000000ull, 0xc03b000000000000ull,
    0xbfe0000000000000ull, 0x7e37e43c8800759cull, 0x4008000000000000ull,
    0x4010000000000000ull, 0x800fffffffffffffull, 0x8000000000000001ull,
};

void mf_sample_d(double *x, size_t n, uint64_t seed)
{
    const size_t ns = sizeof special_d / sizeof special_d[0];
    test_rng rng;
    test_rng_seed(&rng, seed);
    for (size_t i = 0; i < n; ++i) {
        if (i < ns) {
            x[i] = test_f64_from_bits(special_d[i]);
            continue;
        }
        switch (test_rng_u32(&rng) % 3) {
        case 0:
            x[i] = test_f64_from_bits(test_rng_u64(&rng));
            break;
        case 1:
            x[i] = 800.0 * test_rng_uniform(&rng);
            break;
        default:
            x[i] = test_rng_wide(&rng, -60, 60);
            break;
        }
    }
}

/* ------------------------------------------------------------------ */
/* pow                                                                 */

static const uint32_t pow_x[] = {
    0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fa12345u,
    0xffc00001u, 0x3f800000u, 0xbf800000u, 0x3f000000u, 0xbf000000u,
    0x40000000u, 0xc0000000u, 0x40400000u, 0xc0400000u, 0x41200000u,
    0x00000001u, 0x80000001u, 0x007fffffu, 0x00800000u, 0x7f7fffffu,
    0xff7fffffu, 0x3f7fffffu, 0x3f800001u, 0xbf7fffffu, 0xbf800001u,
    0x3eaaaaabu, 0x45800800u, /* 1/3, 4097 (4097^2 is a midpoint) */
};
static const uint32_t pow_y[] = {
    0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
    0xff812345u, 0x3f800000u, 0xbf800000u, 0x40000000u, 0xc0000000u,
    0x40400000u, 0xc0400000u, 0x3f000000u, 0xbf000000u, 0x3fc00000u,
    0xbfc00000u, 0x4b000001u, 0xcb000001u, 0x4b800000u, 0x4f000000u,
    0x42fe0000u, 0x43000000u, 0xc3150000u, 0xc3160000u, 0xc2fc0000u,
    0x3eaaaaabu, 0x00000001u, 0x7f7fffffu, 0xff7fffffu, 0x501502f9u,
};

#define NPOW_X (sizeof pow_x / sizeof pow_x[0])
#define NPOW_Y (sizeof pow_y / sizeof pow_y[0])

/* An odd b in [1, bmax] and a power d in {1, 2, 4} with b^d <= lim;
 * returns b^d (b = 1 when nothing larger fits). */
static double pow_perfect(test_rng *rng, int d, double bmax, double lim)
{
    double b = (double)(2 * test_rng_range(rng, 0, (int64_t)(bmax / 2)) + 1);
    double p = b;
    for (int i = 1; i < d; ++i)
        p *= b;
    return p <= lim ? p : 1.0;
}

void mf_sample_pow(float *x, float *y, size_t n, uint64_t seed)
{
    test_rng rng;
    test_rng_seed(&rng, seed);
    for (size_t i = 0; i < n; ++i) {
        if (i < NPOW_X * NPOW_Y) {
            x[i] = test_f32_from_bits(pow_x[i / NPOW_Y]);
            y[i] = test_f32_from_bits(pow_y[i % NPOW_Y]);
            continue;
        }
        double t = test_rng_uniform(&rng); /* [-1, 1) */
        switch (i % 8) {
        case 0:
            x[i] = test_f32_from_bits(test_rng_u32(&rng));
            y[i] = test_f32_from_bits(test_rng_u32(&rng));
            break;
        case 1:
            x[i] = 2.0f + 2.0f * test_rng_uniform_f(&rng);
            if (x[i] == 0.0f)
                x[i] = 0x1p-24f;
            y[i] = 8.0f * test_rng_uniform_f(&rng);
            break;
        case 2: /* near 1, y large: x^y anywhere in float's range */
            x[i] = 1.0f + (float)test_rng_range(&rng, -32768, 32768) *
                              0x1p-23f;
            if (x[i] == 1.0f)
                x[i] = 0x1.000002p0f;
            y[i] = (float)((t > 0 ? 90.0 : 104.0) * t / log((double)x[i]));
            break;
        case 3: /* near the overflow or underflow threshold */
            x[i] = test_f32_from_bits(test_rng_u32(&rng) % 0x7f800000u);
            if (x[i] == 0.0f || x[i] == 1.0f)
                x[i] = 3.0f;
            y[i] = (float)(((t > 0 ? 128.0 : -149.5) + 0.6 * t) /
                           log2((double)x[i]));
            break;
        case 4: /* negative x, integer y */
            x[i] = -fabsf(test_rng_wide_f(&rng, -12, 12));
            y[i] = (float)test_rng_range(&rng, -40, 40);
            break;
        case 5: { /* exact and halfway: x = b^d 2^(d s), y = m / d */
            int d = 1 << test_rng_range(&rng, 0, 2);
            double p = pow_perfect(&rng, d, d == 1 ? 16777215.0 : 4095.0,
                                   0x1p24);
            int s = (int)test_rng_range(&rng, -24, 24);
            x[i] = (float)ldexp(p, d * s);
            y[i] = (float)test_rng_range(&rng, -12, 12) / (float)d;
            if (d == 1 && (test_rng_u32(&rng) & 1u))
                x[i] = -x[i];
            break;
        }
        case 6: /* subnormal x */
            x[i] = test_f32_from_bits(test_rng_u32(&rng) % 0x00800000u);
            y[i] = (test_rng_u32(&rng) & 1u)
                       ? 1.2f * test_rng_uniform_f(&rng)
                       : (float)test_rng_range(&rng, -2, 2);
            break;
        default: /* y over all exponents */
            x[i] = fabsf(test_rng_wide_f(&rng, -10, 10));
            y[i] = test_rng_wide_f(&rng, -40, 40);
            break;
        }
    }
}

static const uint64_t pow_xd[] = {
    0x0000000000000000ull, 0x8000000000000000ull, 0x7ff0000000000000ull,
    0xfff0000000000000ull, 0x7ff4000000000001ull, 0xfff8000000000000ull,
    0x3ff0000000000000ull, 0xbff0000000000000ull, 0x3fe0000000000000ull,
    0xbfe0000000000000ull, 0x4000000000000000ull, 0xc000000000000000ull,
    0x4008000000000000ull, 0xc008000000000000ull, 0x4024000000000000ull,
    0x0000000000000001ull, 0x8000000000000001ull, 0x000fffffffffffffull,
    0x0010000000000000ull, 0x7fefffffffffffffull, 0xffefffffffffffffull,
    0x3fefffffffffffffull, 0x3ff0000000000001ull, 0xbfefffffffffffffull,
};
static const uint64_t pow_yd[] = {
    0x0000000000000000ull, 0x8000000000000000ull, 0x7ff0000000000000ull,
    0xfff0000000000000ull, 0x7ff8000000000000ull, 0xfff0000000000003ull,
    0x3ff0000000000000ull, 0xbff0000000000000ull, 0x4000000000000000ull,
    0xc000000000000000ull, 0x4008000000000000ull, 0xc008000000000000ull,
    0x3fe0000000000000ull, 0xbfe0000000000000ull, 0x4036000000000000ull,
    0x4330000000000001ull, 0xc330000000000001ull, 0x4340000000000000ull,
    0x408ff80000000000ull, 0x4090000000000000ull, 0xc090c80000000000ull,
    0xc090cc0000000000ull, 0x0000000000000001ull, 0x7fefffffffffffffull,
};

#define NPOW_XD (sizeof pow_xd / sizeof pow_xd[0])
#define NPOW_YD (sizeof pow_yd / sizeof pow_yd[0])

void mf_sample_pow_d(double *x, double *y, size_t n, uint64_t seed)
{
    test_rng rng;
    test_rng_seed(&rng, seed);
    for (size_t i = 0; i < n; ++i) {
        if (i < NPOW_XD * NPOW_YD) {
            x[i] = test_f64_from_bits(pow_xd[i / NPOW_YD]);
            y[i] = test_f64_from_bits(pow_yd[i % NPOW_YD]);
            continue;
        }
        double t = test_rng_uniform(&rng);
        switch (i % 8) {
        case 0:
            x[i] = test_f64_from_bits(test_rng_u64(&rng));
            y[i] = test_f64_from_bits(test_rng_u64(&rng));
            break;
        case 1:
            x[i] = 2.0 + 2.0 * test_rng_uniform(&rng);
            if (x[i] == 0.0)
                x[i] = 0x1p-53;
            y[i] = 8.0 * test_rng_uniform(&rng);
            break;
        case 2:
            x[i] = 1.0 + ldexp(test_rng_uniform(&rng),
                               -(int)test_rng_range(&rng, 1, 50));
            if (x[i] == 1.0)
                x[i] = 0x1.0000000000001p0;
            y[i] = (t > 0 ? 709.0 : 745.0) * t / log(x[i]);
            break;
        case 3:
            x[i] = test_f64_from_bits(test_rng_u64(&rng) %
                                      0x7ff0000000000000ull);
            if (x[i] == 0.0 || x[i] == 1.0)
                x[i] = 3.0;
            y[i] = ((t > 0 ? 1024.0 : -1074.5) + 0.6 * t) / log2(x[i]);
            break;
        case 4:
            x[i] = -fabs(test_rng_wide(&rng, -20, 20));
            y[i] = (double)test_rng_range(&rng, -200, 200);
            break;
        case 5: {
            int d = 1 << test_rng_range(&rng, 0, 2);
            double p = pow_perfect(&rng, d, d == 1 ? 0x1p53 - 1 : 0x1p26,
                                   0x1p53);
            int s = (int)test_rng_range(&rng, -100, 100);
            x[i] = ldexp(p, d * s);
            y[i] = (double)test_rng_range(&rng, -40, 40) / (double)d;
            if (d == 1 && (test_rng_u32(&rng) & 1u))
                x[i] = -x[i];
            break;
        }
        case 6:
            x[i] = test_f64_from_bits(test_rng_u64(&rng) %
                                      0x0010000000000000ull);
            y[i] = (test_rng_u32(&rng) & 1u)
                       ? 1.2 * test_rng_uniform(&rng)
                       : (double)test_rng_range(&rng, -2, 2);
            break;
        default:
            x[i] = fabs(test_rng_wide(&rng, -30, 30));
            y[i] = test_rng_wide(&rng, -60, 60);
            break;
        }
    }
}
