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
 * and beta are applied.
 *
 * The sums follow the order of duo.h, one rule for every backend
 * (src/gemm_order.h): each element of C is one fma chain over all of k,
 * or, for a small C and a long k, one chain per k block of the order
 * (384 for f32, 2048 for f64) whose products alpha * acc_j are added to C
 * in turn.  The cache blocks over k (KC) never straddle an order block,
 * and a chain runs on across them: the kernel of a later cache block
 * starts from the stored, unscaled accumulator instead of 0, and only the
 * cache block that ends the chain applies alpha and beta (or adds
 * alpha * acc_j to C).  Between cache blocks the accumulator lives in C
 * itself when C is not otherwise needed (one chain, beta == 0: C is not
 * read before the first block has written it), else in a workspace per
 * thread of one row block of its band, in whole tiles: at most
 * round_up(min(MC, band rows), MR) x round_up(band columns, NR) elements,
 * so all threads together take about min(M, threads x MC) x N elements
 * (one chain, beta != 0), or about M N <= 2^19 (f64 in order blocks of
 * 2048).  f32 order blocks are the cache blocks (KC = 384), so those
 * chains need no storage.
 *
 * Threads split C into bands of whole tiles (rows, or columns when C is
 * wide) and each runs the scheme above on its band with its own packing
 * buffers and workspace (one allocation, kept for the next product).
 * No sum is split across threads and tile edges do not change any
 * element's arithmetic, so the result is the same bits whatever the
 * number of threads.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend.h"
#include "gemm_cpu.h"
#include "gemm_order.h"

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

/* Cache block sizes, for a 32 KiB L1 and 1 MiB L2 per core (AVX-512 f32
 * and f64: A sliver 12 or 16 KiB, B block 720 KiB, A block 3 MiB).  KC
 * divides the order's k blocks (DUO_GEMM_ORDER_KBLOCK_*: 384 = KC_F32,
 * 2048 = 8 KC_F64); the loops cut a cache block short at an order block's
 * end in any case. */
#define KC_F32 384
#define NC_F32 480
#define MC_F32 1920
#define KC_F64 256
#define NC_F64 352
#define MC_F64 1536

/* Below this many multiply-adds per thread, starting a thread costs more
 * than it saves. */
#define MIN_WORK_PER_THREAD 131072.0

#define ALIGN 64

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }
static size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

/* The buffers of a product (packing and workspace) are kept for the next
 * one, up to KEEP_BYTES, until duo_finalize: fresh pages cost a fault
 * each on first touch (a 2048^3 f32 product with beta != 0 took 5000
 * faults, 8% of its time, for its 21 MB).  One buffer is kept, taken
 * whole by a product and put back after (a product in another thread
 * meanwhile allocates its own); ALIGN bytes before the buffer hold its
 * size. */
#define KEEP_BYTES ((size_t)64 << 20)
static _Atomic(unsigned char *) kept;

/* At least `bytes` (a multiple of ALIGN), ALIGN-aligned, or NULL. */
static void *buffer_take(size_t bytes)
{
    unsigned char *p = atomic_exchange(&kept, NULL);
    if (p != NULL && *(size_t *)p >= bytes)
        return p + ALIGN;
    free(p);
    p = aligned_alloc(ALIGN, ALIGN + bytes);
    if (p == NULL)
        return NULL;
    *(size_t *)p = bytes;
    return p + ALIGN;
}

static void buffer_put(void *buf)
{
    unsigned char *p = (unsigned char *)buf - ALIGN;
    if (*(size_t *)p > KEEP_BYTES)
        free(p);
    else
        free(atomic_exchange(&kept, p));
}

void duo_cpu_gemm_release(void) { free(atomic_exchange(&kept, NULL)); }

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

/* A kernel call goes on with the chains of its tile from where the cache
 * block before left them (CHAIN_LOAD; else they start from 0), then ends
 * them (CHAIN_END: alpha and beta applied) or keeps them, unscaled, for
 * the next cache block. */
enum { CHAIN_LOAD = 1, CHAIN_END = 2 };

/* Everything per element type T, with vector type V and NR = 2 vectors. */
#define DEFINE_GEMM(T, V, S, NR, KC, MC, NC)                                 \
    struct gemm_##S {                                                        \
        size_t m, n, k;                                                      \
        T alpha, beta;                                                       \
        const T *a, *b;                                                      \
        size_t a_rs, a_cs, b_rs, b_cs;                                       \
        T *c;                                                                \
        size_t ldc;                                                          \
        size_t kb;      /* k per order block; k: one chain */                \
        int ws;         /* chains kept between cache blocks in a workspace */\
    };                                                                       \
    /* The workspace of chains holds whole tiles of the band's columns. */   \
    _Static_assert(NC % NR == 0, "B blocks of whole slivers");               \
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
    /* The chains of the mr x nr tile at c (mr <= MR, nr <= NR) over the     \
     * product of an A sliver and a B sliver.  Between calls they are kept,  \
     * unscaled, at s (a whole tile, row-major) or, where s is NULL, in the  \
     * tile of C.  A chain that ends becomes C = alpha * acc (rounded) when  \
     * beta is 0, else fma(beta, C, alpha * acc); beta = 1 adds an order     \
     * block's alpha * acc_j to C. */                                        \
    static void kernel_##S(size_t kc, const T *restrict ap,                  \
                           const T *restrict bp, T *restrict c, size_t ldc,  \
                           size_t mr, size_t nr, T alpha, T beta,            \
                           T *restrict s, int how)                           \
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
                    store_##S(c + i * ldc + h * (NR / 2), alpha * acc[i][h]);\
            return;                                                          \
        }                                                                    \
        /* fma(beta, C, alpha * acc), spelled out: left to contraction,    \
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
    }                                                                        \
                                                                             \
    /* C rows [m0, m1) x columns [n0, n1), with an A block at ap, a B block  \
     * at bp and, where g->ws, a workspace at ws for the chains of one row   \
     * block of the band.  The rows are cut into even blocks of at most      \
     * MC, as each block packs all of B again. */                            \
    static void band_##S(const struct gemm_##S *g, size_t m0, size_t m1,     \
                         size_t n0, size_t n1, T *ap, T *bp, T *ws)          \
    {                                                                        \
        size_t blocks = (m1 - m0 + MC - 1) / MC;                             \
        size_t mc_step = round_up((m1 - m0 + blocks - 1) / blocks, MR);      \
        size_t n_tiles = (n1 - n0 + NR - 1) / NR;                            \
        for (size_t ic = m0; ic < m1; ic += mc_step) {                       \
            size_t mc = min_size(mc_step, m1 - ic);                          \
            for (size_t pc = 0, kc; pc < g->k; pc += kc) {                   \
                /* The cache block [pc, pc + kc) of the order block          \
                 * [pc0, end): its chains go on from the blocks before it    \
                 * in [pc0, end) and end with the block that reaches end;    \
                 * the order blocks after the first add to C. */             \
                size_t pc0 = pc / g->kb * g->kb;                             \
                size_t end = min_size(pc0 + g->kb, g->k);                    \
                kc = min_size(KC, end - pc);                                 \
                int how = (pc > pc0 ? CHAIN_LOAD : 0) |                      \
                          (pc + kc == end ? CHAIN_END : 0);                  \
                T beta = pc0 == 0 ? g->beta : 1;                             \
                pack_a_##S(mc, kc, g->a + ic * g->a_rs + pc * g->a_cs,       \
                           g->a_rs, g->a_cs, ap);                            \
                for (size_t jc = n0; jc < n1; jc += NC) {                    \
                    size_t nc = min_size(NC, n1 - jc);                       \
                    pack_b_##S(kc, nc, g->b + pc * g->b_rs + jc * g->b_cs,   \
                               g->b_rs, g->b_cs, bp);                        \
                    for (size_t ir = 0; ir < mc; ir += MR)                   \
                        for (size_t jr = 0; jr < nc; jr += NR) {             \
                            T *s = NULL;                                     \
                            if (g->ws)                                       \
                                s = ws + (ir / MR * n_tiles +                \
                                          (jc - n0 + jr) / NR) * (MR * NR);  \
                            kernel_##S(kc, ap + ir * kc, bp + jr * kc,       \
                                       g->c + (ic + ir) * g->ldc + jc + jr,  \
                                       g->ldc, min_size(MR, mc - ir),        \
                                       min_size(NR, nc - jr), g->alpha,      \
                                       beta, s, how);                        \
                        }                                                    \
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
        /* Per thread: an A block, a B block and the chains of one row       \
         * block of its band (whole tiles). */                               \
        size_t kc = min_size(KC, g->k);                                      \
        size_t rows = round_up(min_size(MC, by_rows ? band : g->m), MR);     \
        size_t cols = round_up(by_rows ? g->n : band, NR);                   \
        size_t a_len = round_up(rows * kc, ALIGN / sizeof(T));               \
        size_t b_len = round_up(round_up(min_size(NC, cols), NR) * kc,       \
                                ALIGN / sizeof(T));                          \
        size_t w_len = g->ws ? round_up(rows * cols, ALIGN / sizeof(T)) : 0; \
        size_t len = a_len + b_len + w_len;                                  \
        size_t bytes = bands * len * sizeof(T);                              \
        T *buf = buffer_take(bytes);                                         \
        if (buf == NULL)                                                     \
            return duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,                  \
                            "cannot allocate %zu bytes of packing buffers%s; "\
                            "free memory or multiply in smaller pieces",     \
                            bytes, g->ws ? " and workspace" : "");           \
                                                                             \
        _Pragma("omp parallel for num_threads(bands) schedule(static, 1)")   \
        for (size_t t = 0; t < bands; t++) {                                 \
            T *ap = buf + (size_t)thread_num() * len;                        \
            T *bp = ap + a_len;                                              \
            T *ws = bp + b_len;                                              \
            size_t lo = t * band;                                            \
            if (by_rows)                                                     \
                band_##S(g, lo, min_size(lo + band, g->m), 0, g->n, ap, bp,  \
                         ws);                                                \
            else                                                             \
                band_##S(g, 0, g->m, lo, min_size(lo + band, g->n), ap, bp,  \
                         ws);                                                \
        }                                                                    \
        buffer_put(buf);                                                     \
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
        /* One chain over all of k, or chains over the order's blocks. */    \
        size_t kb = duo_gemm_order_kblock(sizeof(T), m, n, k);               \
        if (kb == 0 || kb > k)                                               \
            kb = k;                                                          \
        struct gemm_##S g = {                                                \
            .m = m, .n = n, .k = k, .alpha = alpha, .beta = beta,            \
            .a = a, .a_rs = row_stride(ta, lda), .a_cs = col_stride(ta, lda),\
            .b = b, .b_rs = row_stride(tb, ldb), .b_cs = col_stride(tb, ldb),\
            .c = c, .ldc = ldc, .kb = kb,                                    \
            /* Chains that span cache blocks are kept in C where it holds    \
             * nothing else (one chain, beta == 0), else in a workspace. */  \
            .ws = kb > KC && (beta != 0 || kb < k)};                         \
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
