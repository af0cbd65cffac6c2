/*
 * math_pairs.h - the pseudo-random argument pairs of the two-argument
 * float functions, shared by exhaustive.c, fast_vs_cr.c and
 * gpu_division.c.
 */
#ifndef DUO_TESTS_MATH_PAIRS_H
#define DUO_TESTS_MATH_PAIRS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline float mp_float_of_(uint32_t u)
{
    float v;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* Draw number i of splitmix64 (the pairs below, and gpu_division.c's
 * double arguments). */
static inline uint64_t mp_draw_(uint64_t i)
{
    uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Pair number i: a splitmix64 draw; every other pair takes y's exponent
 * near x's, where atan2 and hypot do their most delicate work. */
static inline void pair_of(uint64_t i, float *x, float *y)
{
    const uint64_t z = mp_draw_(i);
    uint32_t a = (uint32_t)z, b = (uint32_t)(z >> 32);
    if (i & 1) {
        uint32_t ea = (a >> 23) & 0xff;
        int eb = (int)ea + (int)((b >> 23) & 31) - 16;
        eb = eb < 0 ? 0 : eb > 254 ? 254 : eb;
        b = (b & 0x807fffffu) | ((uint32_t)eb << 23);
    }
    *x = mp_float_of_(a);
    *y = mp_float_of_(b);
}

/* Pair i for powf: mostly x a float of any exponent (a quarter of them
 * negative) and y = t / log|x| with t uniform in [-92, 92], so that the
 * result lies around float's whole normal range; one in eight y a small
 * integer, one in eight x and y random bit patterns. */
static inline void powf_pair_of(uint64_t i, float *x, float *y)
{
    const uint64_t z = mp_draw_(i);
    const uint32_t a = (uint32_t)z, b = (uint32_t)(z >> 32);
    *x = mp_float_of_(a & ((i & 3) == 3 ? 0xffffffffu : 0x7fffffffu));
    switch ((i >> 2) & 7) {
    case 0:
        *y = (float)((int)(b % 65) - 32);
        return;
    case 1:
        *y = mp_float_of_(b);
        return;
    default: {
        const double t = ((double)b / 4294967296.0 - 0.5) * 184.0;
        const double lx = log(fabs((double)*x));
        *y = lx != 0.0 && isfinite(lx) ? (float)(t / lx) : mp_float_of_(b);
        return;
    }
    }
}

#endif /* DUO_TESTS_MATH_PAIRS_H */
