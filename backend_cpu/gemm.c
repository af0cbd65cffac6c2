/*
 * gemm.c - CPU matrix multiply for the serial and OpenMP backends:
 * C = alpha * op(A) * op(B) + beta * C, all matrices row-major.
 *
 * The GotoBLAS/BLIS scheme, with the loops arranged so that each level
 * of cache holds the operand that is reused from it:
 *
 *   for ic over m by <= MC              A block, MC x KC: stays in L3
 *     for pc over k by KC
 *       pack A block into MR-row slivers
 *       for jc over n by NC             B block, KC x NC: stays in L2
 *         pack B block into NR-column slivers
 *         for ir over MC by MR          A sliver, MR x KC: stays in L1
 *           for jr over NC by NR        B sliver streams from L2
 *             micro-kernel: the MR x NR tile of C, held in registers
 *
 * Packing absorbs the transposes and leading dimensions (the kernel sees
 * one layout) and pads edge slivers with zeros, so the kernel always
 * computes a full tile; only the valid part is written back, where alpha
 * and beta are applied.  Each k block adds its own product into C, so
 * the blocks after the first use beta = 1.
 *
 * Threads split C into bands of whole tiles (rows, or columns when C is
 * wide) and each runs the scheme above on its band with its own packing
 * buffers.  No sum is split across threads and tile edges do not change
 * any element's arithmetic, so the result is the same bits whatever the
 * number of threads.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend.h"

/* GCC turns off floating-point contraction in ISO C mode (-std=c11); the
 * kernel needs fused multiply-add to reach the machine's peak. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=fast")
#endif

/* A vector is one register.  A tile row is two vectors (NR elements);
 * MR = 8 rows give 16 independent accumulators, enough to cover the FMA
 * latency on AVX-512 (12 or 14 rows measured no faster, and waste more on
 * edge tiles).  With 16 registers the other ISAs hold 6 rows. */
#if defined(__AVX512F__)
#define VEC_BYTES 64
#define MR 8
#elif defined(__AVX__)
#define VEC_BYTES 32
#define MR 6
#else
#define VEC_BYTES 16
#define MR 6
#endif

typedef float vec_f32 __attribute__((vector_size(VEC_BYTES)));
typedef double vec_f64 __attribute__((vector_size(VEC_BYTES)));

/* C = fma(beta, C, alpha * acc): the GPU's rounding of the update. */
#define FMA_f32 fmaf
#define FMA_f64 fma

#define NR_F32 (2 * VEC_BYTES / 4)
#define NR_F64 (2 * VEC_BYTES / 8)

/* Block sizes, for a 32 KiB L1 and 1 MiB L2 per core (AVX-512 f32 and
 * f64: A sliver 12 or 16 KiB, B block 720 KiB, A block 3 MiB). */
#define KC_F32 DUO_GEMM_KBLOCK_F32 /* CUDA's split-K blocks too */
#define NC_F32 480
#define MC_F32 1920
#define KC_F64 DUO_GEMM_KBLOCK_F64
#define NC_F64 352
#define MC_F64 1536

/* Below this many multiply-adds per thread, starting a thread costs more
 * than it saves. */
#define MIN_WORK_PER_THREAD 131072.0

#define ALIGN 64

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }
static size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

static int max_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

static int thread_num(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* op(X)(i, j) of an operand stored row-major with leading dimension ld
 * is x[i * row_stride + j * col_stride]. */
static size_t row_stride(duo_transpose t, size_t ld)
{
    return t == DUO_NO_TRANS ? ld : 1;
}

static size_t col_stride(duo_transpose t, size_t ld)
{
    return t == DUO_NO_TRANS ? 1 : ld;
}

/* Everything per element type T, with vector type V and NR = 2 vectors. */
#define DEFINE_GEMM(T, V, S, NR, KC, MC, NC)                                 \
    struct gemm_##S {                                                        \
        size_t m, n, k;                                                      \
        T alpha, beta;                                                       \
        const T *a, *b;                                                      \
        size_t a_rs, a_cs, b_rs, b_cs;                                       \
        T *c;                                                                \
        size_t ldc;                                                          \
    };                                                                       \
                                                                             \
    static V load_##S(const T *p)                                            \
    {                                                                        \
        V v;                                                                 \
        memcpy(&v, p, sizeof v);                                             \
        return v;                                                            \
    }                                                                        \
                                                                             \
    static void store_##S(T *p, V v) { memcpy(p, &v, sizeof v); }            \
                                                                             \
    /* C = beta * C; beta == 0 must not read C, which may hold NaN. */       \
    static void scale_##S(size_t m, size_t n, T beta, T *c, size_t ldc)      \
    {                                                                        \
        for (size_t i = 0; i < m; i++, c += ldc)                             \
            for (size_t j = 0; j < n; j++)                                   \
                c[j] = beta == 0 ? 0 : beta * c[j];                          \
    }                                                                        \
                                                                             \
    /* MR-row slivers of the mc x kc block of op(A) at a, each stored       \
     * p-major so that the kernel reads MR consecutive values per step. */  \
    static void pack_a_##S(size_t mc, size_t kc, const T *a, size_t rs,      \
                           size_t cs, T *restrict ap)                        \
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
    /* NR-column slivers of the kc x nc block of op(B) at b, p-major. */    \
    static void pack_b_##S(size_t kc, size_t nc, const T *b, size_t rs,      \
                           size_t cs, T *restrict bp)                        \
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
    /* The mr x nr tile at c (mr <= MR, nr <= NR) becomes alpha times the   \
     * product of an A sliver and a B sliver plus beta times itself. */     \
    static void kernel_##S(size_t kc, const T *restrict ap,                  \
                           const T *restrict bp, T *restrict c, size_t ldc,  \
                           size_t mr, size_t nr, T alpha, T beta)            \
    {                                                                        \
        V acc[MR][2] = {{{0}}};                                              \
        for (size_t p = 0; p < kc; p++, ap += MR, bp += NR) {                \
            V b0 = load_##S(bp), b1 = load_##S(bp + NR / 2);                 \
            _Pragma("GCC unroll 16")                                         \
            for (int i = 0; i < MR; i++) {                                   \
                acc[i][0] += ap[i] * b0;                                     \
                acc[i][1] += ap[i] * b1;                                     \
            }                                                                \
        }                                                                    \
        if (mr == MR && nr == NR && beta == 0) {                             \
            _Pragma("GCC unroll 16")                                         \
            for (int i = 0; i < MR; i++)                                     \
                for (int h = 0; h < 2; h++)                                  \
                    store_##S(c + i * ldc + h * (NR / 2), alpha * acc[i][h]);\
            return;                                                          \
        }                                                                    \
        /* fma(beta, C, alpha * acc), spelled out: left to contraction,    \
         * the compiler may round beta * C instead. */                       \
        T tile[MR][NR];                                                      \
        memcpy(tile, acc, sizeof tile);                                      \
        if (mr == MR && nr == NR) { /* constant bounds: vectorized */        \
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
    }                                                                        \
                                                                             \
    /* C rows [m0, m1) x columns [n0, n1), with an A block at ap and a B    \
     * block at bp.  The rows are cut into even blocks of at most MC, as    \
     * each block packs all of B again. */                                   \
    static void band_##S(const struct gemm_##S *g, size_t m0, size_t m1,     \
                         size_t n0, size_t n1, T *ap, T *bp)                 \
    {                                                                        \
        size_t blocks = (m1 - m0 + MC - 1) / MC;                             \
        size_t mc_step = round_up((m1 - m0 + blocks - 1) / blocks, MR);      \
        for (size_t ic = m0; ic < m1; ic += mc_step) {                       \
            size_t mc = min_size(mc_step, m1 - ic);                          \
            for (size_t pc = 0; pc < g->k; pc += KC) {                       \
                size_t kc = min_size(KC, g->k - pc);                         \
                T beta = pc == 0 ? g->beta : 1;                              \
                pack_a_##S(mc, kc, g->a + ic * g->a_rs + pc * g->a_cs,       \
                           g->a_rs, g->a_cs, ap);                            \
                for (size_t jc = n0; jc < n1; jc += NC) {                    \
                    size_t nc = min_size(NC, n1 - jc);                       \
                    pack_b_##S(kc, nc, g->b + pc * g->b_rs + jc * g->b_cs,   \
                               g->b_rs, g->b_cs, bp);                        \
                    for (size_t ir = 0; ir < mc; ir += MR)                   \
                        for (size_t jr = 0; jr < nc; jr += NR)               \
                            kernel_##S(kc, ap + ir * kc, bp + jr * kc,       \
                                       g->c + (ic + ir) * g->ldc + jc + jr,  \
                                       g->ldc, min_size(MR, mc - ir),        \
                                       min_size(NR, nc - jr), g->alpha,      \
                                       beta);                                \
                }                                                            \
            }                                                                \
        }                                                                    \
    }                                                                        \
                                                                             \
    static duo_status gemm_##S(const struct gemm_##S *g, const char *where)  \
    {                                                                        \
        /* Bands of whole tiles along the longer side of C, one per         \
         * thread, as many threads as the work keeps busy. */               \
        size_t m_tiles = (g->m + MR - 1) / MR;                               \
        size_t n_tiles = (g->n + NR - 1) / NR;                               \
        int by_rows = m_tiles >= n_tiles;                                    \
        size_t tiles = by_rows ? m_tiles : n_tiles;                          \
        size_t bands = min_size((size_t)max_threads(), tiles);               \
        double busy = (double)g->m * g->n * g->k / MIN_WORK_PER_THREAD;      \
        if (busy < bands)                                                    \
            bands = busy < 1 ? 1 : (size_t)busy;                             \
        size_t band_tiles = (tiles + bands - 1) / bands;                     \
        size_t band = band_tiles * (by_rows ? MR : NR);                      \
        bands = (tiles + band_tiles - 1) / band_tiles;                       \
                                                                             \
        size_t kc = min_size(KC, g->k);                                      \
        size_t a_len = round_up(                                             \
            round_up(min_size(MC, by_rows ? band : g->m), MR) * kc,          \
            ALIGN / sizeof(T));                                              \
        size_t b_len = round_up(                                             \
            round_up(min_size(NC, by_rows ? g->n : band), NR) * kc,          \
            ALIGN / sizeof(T));                                              \
        size_t bytes = bands * (a_len + b_len) * sizeof(T);                  \
        T *buf = aligned_alloc(ALIGN, bytes);                                \
        if (buf == NULL)                                                     \
            return duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,                  \
                            "cannot allocate %zu bytes of packing buffers; " \
                            "free memory or multiply in smaller pieces",     \
                            bytes);                                          \
                                                                             \
        _Pragma("omp parallel for num_threads(bands) schedule(static, 1)")   \
        for (size_t t = 0; t < bands; t++) {                                 \
            T *ap = buf + (size_t)thread_num() * (a_len + b_len);            \
            T *bp = ap + a_len;                                              \
            size_t lo = t * band;                                            \
            if (by_rows)                                                     \
                band_##S(g, lo, min_size(lo + band, g->m), 0, g->n, ap, bp); \
            else                                                             \
                band_##S(g, 0, g->m, lo, min_size(lo + band, g->n), ap, bp); \
        }                                                                    \
        free(buf);                                                           \
        return DUO_SUCCESS;                                                  \
    }                                                                        \
                                                                             \
    static duo_status run_##S(duo_transpose ta, duo_transpose tb, size_t m,  \
                              size_t n, size_t k, T alpha, const T *a,       \
                              size_t lda, const T *b, size_t ldb, T beta,    \
                              T *c, size_t ldc, const char *where)           \
    {                                                                        \
        if (k == 0 || alpha == 0) {                                          \
            scale_##S(m, n, beta, c, ldc);                                   \
            return DUO_SUCCESS;                                              \
        }                                                                    \
        struct gemm_##S g = {                                                \
            .m = m, .n = n, .k = k, .alpha = alpha, .beta = beta,            \
            .a = a, .a_rs = row_stride(ta, lda), .a_cs = col_stride(ta, lda),\
            .b = b, .b_rs = row_stride(tb, ldb), .b_cs = col_stride(tb, ldb),\
            .c = c, .ldc = ldc};                                             \
        return gemm_##S(&g, where);                                          \
    }

DEFINE_GEMM(float, vec_f32, f32, NR_F32, KC_F32, MC_F32, NC_F32)
DEFINE_GEMM(double, vec_f64, f64, NR_F64, KC_F64, MC_F64, NC_F64)

duo_status duo_be_gemm_f32(duo_transpose ta, duo_transpose tb, size_t m,
                           size_t n, size_t k, float alpha, const float *a,
                           size_t lda, const float *b, size_t ldb,
                           float beta, float *c, size_t ldc)
{
    return run_f32(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                   "duo_gemm_f32");
}

duo_status duo_be_gemm_f64(duo_transpose ta, duo_transpose tb, size_t m,
                           size_t n, size_t k, double alpha,
                           const double *a, size_t lda, const double *b,
                           size_t ldb, double beta, double *c, size_t ldc)
{
    return run_f64(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                   "duo_gemm_f64");
}
