/*
 * gemm_kernel.h - the hot part of the CPU gemm (gemm.c): packing and the
 * micro-kernel, written once for any vector width.  A file that includes
 * it defines one variant (gemm_variant.h) after its macros:
 *
 *   GEMM_VEC_BYTES      bytes per vector register (16, 32 or 64)
 *   GEMM_MR             rows of a tile (NR: two vectors per row)
 *   GEMM_TARGET         attributes of every function here: the
 *                       instruction set, where it is not the build's
 *   GEMM_VARIANT        the variable to define, GEMM_VARIANT_NAME its name
 *
 * gemm_kernel.c is the build's own target, gemm_kernel_avx512.c AVX-512.
 * Each element of C is one lane of a vector from the first product to
 * the last, so the width changes no element's fma chain: every variant
 * gives the same bits.
 */
#include <math.h>
#include <string.h>

#include "gemm_variant.h"

/* GCC turns off floating-point contraction in ISO C mode (-std=c11); the
 * kernel needs fused multiply-add to reach the machine's peak, and its
 * acc += a * b is then exactly the fma chain of duo.h.  Nothing else in
 * this file may be contracted differently: the other sums are written as
 * explicit fma calls, never as a bare a * b + c. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=fast")
#endif
/* Clang takes -ffp-contract=off from the build and no GCC pragma: the
 * kernel's k loop turns contraction on for itself. */
#if defined(__clang__)
#define KERNEL_FUSES _Pragma("clang fp contract(fast)")
#else
#define KERNEL_FUSES
#endif

#define MR GEMM_MR
#define CHAIN_LOAD DUO_CPU_GEMM_CHAIN_LOAD
#define CHAIN_END DUO_CPU_GEMM_CHAIN_END

typedef float vec_f32 __attribute__((vector_size(GEMM_VEC_BYTES)));
typedef double vec_f64 __attribute__((vector_size(GEMM_VEC_BYTES)));

/* C = fma(beta, C, alpha * acc): the GPU's rounding of the update. */
#define FMA_f32 fmaf
#define FMA_f64 fma

#define NR_F32 (2 * GEMM_VEC_BYTES / 4)
#define NR_F64 (2 * GEMM_VEC_BYTES / 8)

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/* Everything per element type T, with vector type V and NR = 2 vectors. */
#define DEFINE_GEMM_KERNELS(T, V, S, NR, NC)                                 \
    /* The workspace of chains holds whole tiles of the band's columns. */   \
    _Static_assert(NC % NR == 0, "B blocks of whole slivers");               \
                                                                             \
    GEMM_TARGET static inline V load_##S(const T *p)                         \
    {                                                                        \
        V v;                                                                 \
        memcpy(&v, p, sizeof v);                                             \
        return v;                                                            \
    }                                                                        \
                                                                             \
    GEMM_TARGET static inline void store_##S(T *p, V v)                      \
    {                                                                        \
        memcpy(p, &v, sizeof v);                                             \
    }                                                                        \
                                                                             \
    /* MR-row slivers of the mc x kc block of op(A) at a, each stored        \
     * p-major so that the kernel reads MR consecutive values per step. */   \
    GEMM_TARGET static void pack_a_##S(size_t mc, size_t kc, const T *a,     \
                                       size_t rs, size_t cs,                 \
                                       T *restrict ap)                       \
    {                                                                        \
        for (size_t i0 = 0; i0 < mc; i0 += MR, a += MR * rs) {               \
            size_t mr = min_size(MR, mc - i0);                               \
            for (size_t p = 0; p < kc; p++, ap += MR) {                      \
                for (size_t i = 0; i < mr; i++)                              \
                    ap[i] = a[i * rs + p * cs];                              \
                for (size_t i = mr; i < MR; i++)                             \
                    ap[i] = 0;                                               \
            }                                                                \
        }                                                                    \
    }                                                                        \
                                                                             \
    /* NR-column slivers of the kc x nc block of op(B) at b, p-major. */     \
    GEMM_TARGET static void pack_b_##S(size_t kc, size_t nc, const T *b,     \
                                       size_t rs, size_t cs,                 \
                                       T *restrict bp)                       \
    {                                                                        \
        for (size_t j0 = 0; j0 < nc; j0 += NR, b += NR * cs) {               \
            size_t nr = min_size(NR, nc - j0);                               \
            for (size_t p = 0; p < kc; p++, bp += NR) {                      \
                for (size_t j = 0; j < nr; j++)                              \
                    bp[j] = b[p * rs + j * cs];                              \
                for (size_t j = nr; j < NR; j++)                             \
                    bp[j] = 0;                                               \
            }                                                                \
        }                                                                    \
    }                                                                        \
                                                                             \
    /* The chains of the mr x nr tile at c (mr <= MR, nr <= NR) over the     \
     * product of an A sliver and a B sliver.  Between calls they are kept,  \
     * unscaled, at s (a whole tile, row-major) or, where s is NULL, in the  \
     * tile of C.  A chain that ends becomes C = alpha * acc (rounded) when  \
     * beta is 0, else fma(beta, C, alpha * acc); beta = 1 adds an order     \
     * block's alpha * acc_j to C. */                                        \
    GEMM_TARGET static void kernel_##S(size_t kc, const T *restrict ap,      \
                                       const T *restrict bp, T *restrict c,  \
                                       size_t ldc, size_t mr, size_t nr,     \
                                       T alpha, T beta, T *restrict s,       \
                                       int how)                              \
    {                                                                        \
        /* Vector by vector, never through memcpy: acc must stay in          \
         * registers (an acc in memory made the f64 kernel 5% slower). */    \
        const int full = mr == MR && nr == NR;                               \
        const V zero = {0};                                                  \
        V acc[MR][2];                                                        \
        _Pragma("GCC unroll 16")                                             \
        for (int i = 0; i < MR; i++)                                         \
            for (int h = 0; h < 2; h++)                                      \
                acc[i][h] = zero;                                            \
        if (!(how & CHAIN_LOAD)) {                                           \
            /* a chain starts from 0 */                                      \
        } else if (s != NULL) {                                              \
            _Pragma("GCC unroll 16")                                         \
            for (int i = 0; i < MR; i++)                                     \
                for (int h = 0; h < 2; h++)                                  \
                    acc[i][h] = load_##S(s + i * NR + h * (NR / 2));         \
        } else if (full) {                                                   \
            _Pragma("GCC unroll 16")                                         \
            for (int i = 0; i < MR; i++)                                     \
                for (int h = 0; h < 2; h++)                                  \
                    acc[i][h] = load_##S(c + i * ldc + h * (NR / 2));        \
        } else {                                                             \
            T part[MR][NR] = {{0}};                                          \
            for (size_t i = 0; i < mr; i++)                                  \
                memcpy(part[i], c + i * ldc, nr * sizeof(T));                \
            _Pragma("GCC unroll 16")                                         \
            for (int i = 0; i < MR; i++)                                     \
                for (int h = 0; h < 2; h++)                                  \
                    acc[i][h] = load_##S(part[i] + h * (NR / 2));            \
        }                                                                    \
        for (size_t p = 0; p < kc; p++, ap += MR, bp += NR) {                \
            KERNEL_FUSES                                                     \
            V b0 = load_##S(bp), b1 = load_##S(bp + NR / 2);                 \
            _Pragma("GCC unroll 16")                                         \
            for (int i = 0; i < MR; i++) {                                   \
                acc[i][0] += ap[i] * b0;                                     \
                acc[i][1] += ap[i] * b1;                                     \
            }                                                                \
        }                                                                    \
        if (!(how & CHAIN_END)) { /* kept for the next cache block */        \
            if (s != NULL) {                                                 \
                _Pragma("GCC unroll 16")                                     \
                for (int i = 0; i < MR; i++)                                 \
                    for (int h = 0; h < 2; h++)                              \
                        store_##S(s + i * NR + h * (NR / 2), acc[i][h]);     \
            } else if (full) {                                               \
                _Pragma("GCC unroll 16")                                     \
                for (int i = 0; i < MR; i++)                                 \
                    for (int h = 0; h < 2; h++)                              \
                        store_##S(c + i * ldc + h * (NR / 2), acc[i][h]);    \
            } else {                                                         \
                T part[MR][NR];                                              \
                memcpy(part, acc, sizeof part);                              \
                for (size_t i = 0; i < mr; i++)                              \
                    memcpy(c + i * ldc, part[i], nr * sizeof(T));            \
            }                                                                \
            return;                                                          \
        }                                                                    \
        if (full && beta == 0) {                                             \
            _Pragma("GCC unroll 16")                                         \
            for (int i = 0; i < MR; i++)                                     \
                for (int h = 0; h < 2; h++)                                  \
                    store_##S(c + i * ldc + h * (NR / 2), alpha * acc[i][h]); \
            return;                                                          \
        }                                                                    \
        /* fma(beta, C, alpha * acc), spelled out: left to contraction,      \
         * the compiler may round beta * C instead, or fuse alpha * acc      \
         * into the sum. */                                                  \
        T tile[MR][NR];                                                      \
        memcpy(tile, acc, sizeof tile);                                      \
        if (full) { /* constant bounds: vectorized */                        \
            for (int i = 0; i < MR; i++)                                     \
                for (int j = 0; j < NR; j++)                                 \
                    c[i * ldc + j] =                                         \
                        FMA_##S(beta, c[i * ldc + j], alpha * tile[i][j]);   \
            return;                                                          \
        }                                                                    \
        for (size_t i = 0; i < mr; i++)                                      \
            for (size_t j = 0; j < nr; j++) {                                \
                T r = alpha * tile[i][j];                                    \
                c[i * ldc + j] =                                             \
                    beta == 0 ? r : FMA_##S(beta, c[i * ldc + j], r);        \
            }                                                                \
    }

DEFINE_GEMM_KERNELS(float, vec_f32, f32, NR_F32, DUO_CPU_GEMM_NC_F32)
DEFINE_GEMM_KERNELS(double, vec_f64, f64, NR_F64, DUO_CPU_GEMM_NC_F64)

const duo_cpu_gemm_variant GEMM_VARIANT = {
    .name = GEMM_VARIANT_NAME,
    .f32 = {MR, NR_F32, pack_a_f32, pack_b_f32, kernel_f32},
    .f64 = {MR, NR_F64, pack_a_f64, pack_b_f64, kernel_f64},
};
