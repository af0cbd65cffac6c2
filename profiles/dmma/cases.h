/*
 * cases.h - the inputs of the FP64 tensor-core probe, generated the same
 * way by probe.cu (on the GPU machine) and models.c (anywhere), so that
 * only the GPU's outputs need to travel.
 *
 * A case is one mma: A (M x K, row-major), B (K x N, column-major: the
 * column n is B[n K .. n K + K)), C (M x N, row-major).  Shapes: m8n8k4
 * (the PTX instruction of sm_80) and m16n8k8 (one DMMA.16x8x8 on sm_90,
 * the one backend_cuda/gemm_f64.cu issues).
 *
 * Kinds of case, cycled by case index, each meant to tell the candidate
 * arithmetics apart:
 *   0 uniform     every entry uniform in [-1, 1): ordinary data.
 *   1 spread      random sign and 53-bit mantissa, exponent in [-40, 40]:
 *                 products of very different size, so the order and the
 *                 width of the sum matter.
 *   2 cancel      as 1, then C = -(sum of the products, rounded): the
 *                 result is what is left after cancellation, where one
 *                 rounding more or less shows.
 *   3 short       mantissas of 8 bits, exponents in [-60, 60]: every exact
 *                 sum is known, and a sum that drops bits far below the
 *                 largest term (a fixed-width aligner) shows.
 *   4 subnormal   A and B near 2^-520, C below 2^-1000: products and sums
 *                 in the subnormal range, where a flush to zero shows.
 *   5 zeros       half the entries +0 or -0, the rest small integers, C
 *                 +-0 or small: how the sign of a zero sum is decided.
 */
#ifndef DUO_DMMA_CASES_H
#define DUO_DMMA_CASES_H

#include <math.h>
#include <stdint.h>
#include <string.h>

enum { DMMA_KINDS = 6 };

typedef struct dmma_shape {
    const char *name;
    int m, n, k;
} dmma_shape;

static const dmma_shape dmma_shapes[2] = {{"m8n8k4", 8, 8, 4},
                                          {"m16n8k8", 16, 8, 8}};

static const char *const dmma_kind_names[DMMA_KINDS] = {"uniform", "spread",
                                                        "cancel", "short",
                                                        "subnormal", "zeros"};

static inline uint64_t dmma_next(uint64_t *s)
{
    /* splitmix64 */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* An entry of A or B (`of_c` 0) or of C (1) for a case of `kind`. */
static inline double dmma_value(uint64_t *s, int kind, int of_c)
{
    const uint64_t r = dmma_next(s);
    if (kind == 5) {
        if (r & 2)
            return (r & 1) ? -0.0 : 0.0;
        return (double)((int)(r >> 8 & 7) - 3) + (of_c ? 0.5 : 0.0);
    }
    if (kind == 4) {
        const int e = of_c ? -1000 - (int)(r >> 40 & 63)
                           : -540 + (int)(r >> 40 & 31);
        const double v = ldexp((double)((r >> 11) | (1ull << 52)), e - 52);
        return (r & 1) ? -v : v;
    }
    if (kind == 0)
        return (double)(r >> 11) * 0x1p-52 - 1.0; /* exact */
    const int bits = kind == 3 ? 8 : 53;
    const int range = kind == 3 ? 60 : 40;
    const uint64_t mant = (r >> (64 - bits)) | (1ull << (bits - 1));
    const int e = (int)(dmma_next(s) % (uint64_t)(2 * range + 1)) - range;
    const double v = ldexp((double)mant, e - (bits - 1));
    return (r & 1) ? -v : v;
}

/* Fills a (m k), b (k n) and c (m n) of case `index` of `shape`. */
static inline void dmma_case(const dmma_shape *sh, uint64_t index,
                             double *a, double *b, double *c)
{
    uint64_t s = 0x5eed0000ull + index * 0x10001ull + (uint64_t)sh->k;
    const int kind = (int)(index % DMMA_KINDS);
    for (int i = 0; i < sh->m * sh->k; ++i)
        a[i] = dmma_value(&s, kind, 0);
    for (int i = 0; i < sh->k * sh->n; ++i)
        b[i] = dmma_value(&s, kind, 0);
    for (int i = 0; i < sh->m * sh->n; ++i)
        c[i] = dmma_value(&s, kind, 1);
    if (kind == 2)
        for (int i = 0; i < sh->m; ++i)
            for (int j = 0; j < sh->n; ++j) {
                /* fma, not a * b + sum: a compiler may or may not fuse
                 * the latter, and both sides must build the same C. */
                double sum = 0.0;
                for (int q = 0; q < sh->k; ++q)
                    sum = fma(a[i * sh->k + q], b[j * sh->k + q], sum);
                c[i * sh->n + j] = -sum;
            }
}

#endif /* DUO_DMMA_CASES_H */
