/*
 * ulp.h - distance in units in the last place between two floats: each
 * float's bits mapped to an integer that orders like its value (+0 and
 * -0 one apart), then the difference.  Shared by validation's reports
 * (validate.c) and duo-compare's statistics and --png picture (tools/).
 */
#ifndef DUO_ULP_H
#define DUO_ULP_H

#include <stdint.h>

static inline uint64_t ulp_ordered32(uint32_t u)
{
    return (u & 0x80000000u) ? 0x80000000ull - (u & 0x7fffffffu)
                             : 0x80000000ull + u;
}

static inline uint64_t ulp_ordered64(uint64_t u)
{
    const uint64_t sign = 0x8000000000000000ull;
    return (u & sign) ? sign - (u & ~sign) : sign + u;
}

static inline uint64_t ulp_distance(uint64_t a, uint64_t b)
{
    return a > b ? a - b : b - a;
}

#endif /* DUO_ULP_H */
