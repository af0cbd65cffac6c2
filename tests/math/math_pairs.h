/*
 * math_pairs.h - the pseudo-random argument pairs of the two-argument
 * float functions, shared by exhaustive.c and fast_vs_cr.c.
 */
#ifndef DUO_TESTS_MATH_PAIRS_H
#define DUO_TESTS_MATH_PAIRS_H

#include <stdint.h>
#include <string.h>

static inline float mp_float_of_(uint32_t u)
{
    float v;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* Pair number i: a splitmix64 draw; every other pair takes y's exponent
 * near x's, where atan2 and hypot do their most delicate work. */
static inline void pair_of(uint64_t i, float *x, float *y)
{
    uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
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

#endif /* DUO_TESTS_MATH_PAIRS_H */
