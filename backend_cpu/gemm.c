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
 *
 * The packing and the micro-kernel, and so MR and NR, are those of the
 * variant chosen for the CPU at run time (gemm_variant.h: AVX-512 where
 * the build targets AVX2 and the CPU has it); this file, which only
 * loops and allocates, is compiled once for the build's target.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend.h"
#include "gemm_cpu.h"
#include "gemm_order.h"
#include "gemm_variant.h"

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

/* Everything per element type T.  The tiles (MR x NR) are the chosen
 * variant's (gemm_variant.h), known at run time here: only the kernel
 * and the packing, in their own files, loop over them. */
#define DEFINE_GEMM(T, S, KC, MC, NC)                                        \
    struct gemm_##S {                                                        \
        size_t m, n, k;                                                      \
        T alpha, beta;                                                       \
        const T *a, *b;                                                      \
        size_t a_rs, a_cs, b_rs, b_cs;                                       \
        T *c;                                                                \
        size_t ldc;                                                          \
        size_t kb;      /* k per order block; k: one chain */                \
        int ws;         /* chains kept between cache blocks in a workspace */\
        const struct duo_cpu_gemm_kernels_##S *kr; /* the variant's */       \
    };                                                                       \
                                                                             \
    /* C = beta * C; beta == 0 must not read C, which may hold NaN. */       \
    static void scale_##S(size_t m, size_t n, T beta, T *c, size_t ldc)      \
    {                                                                        \
        for (size_t i = 0; i < m; i++, c += ldc)                             \
            for (size_t j = 0; j < n; j++)                                   \
                c[j] = beta == 0 ? 0 : beta * c[j];                          \
    }                                                                        \
                                                                             \
    /* C rows [m0, m1) x columns [n0, n1), with an A block at ap, a B block  \
     * at bp and, where g->ws, a workspace at ws for the chains of one row   \
     * block of the band.  The rows are cut into even blocks of at most      \
     * MC, as each block packs all of B again. */                            \
    static void band_##S(const struct gemm_##S *g, size_t m0, size_t m1,     \
                         size_t n0, size_t n1, T *ap, T *bp, T *ws)          \
    {                                                                        \
        const struct duo_cpu_gemm_kernels_##S *kr = g->kr;                   \
        const size_t mr = kr->mr, nr = kr->nr;                               \
        size_t blocks = (m1 - m0 + MC - 1) / MC;                             \
        size_t mc_step = round_up((m1 - m0 + blocks - 1) / blocks, mr);      \
        size_t n_tiles = (n1 - n0 + nr - 1) / nr;                            \
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
                int how = (pc > pc0 ? DUO_CPU_GEMM_CHAIN_LOAD : 0) |         \
                          (pc + kc == end ? DUO_CPU_GEMM_CHAIN_END : 0);     \
                T beta = pc0 == 0 ? g->beta : 1;                             \
                kr->pack_a(mc, kc, g->a + ic * g->a_rs + pc * g->a_cs,       \
                           g->a_rs, g->a_cs, ap);                            \
                for (size_t jc = n0; jc < n1; jc += NC) {                    \
                    size_t nc = min_size(NC, n1 - jc);                       \
                    kr->pack_b(kc, nc, g->b + pc * g->b_rs + jc * g->b_cs,   \
                               g->b_rs, g->b_cs, bp);                        \
                    for (size_t ir = 0; ir < mc; ir += mr)                   \
                        for (size_t jr = 0; jr < nc; jr += nr) {             \
                            T *s = NULL;                                     \
                            if (g->ws)                                       \
                                s = ws + (ir / mr * n_tiles +                \
                                          (jc - n0 + jr) / nr) * (mr * nr);  \
                            kr->kernel(kc, ap + ir * kc, bp + jr * kc,       \
                                       g->c + (ic + ir) * g->ldc + jc + jr,  \
                                       g->ldc, min_size(mr, mc - ir),        \
                                       min_size(nr, nc - jr), g->alpha,      \
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
        const size_t mr = g->kr->mr, nr = g->kr->nr;                         \
        size_t m_tiles = (g->m + mr - 1) / mr;                               \
        size_t n_tiles = (g->n + nr - 1) / nr;                               \
        int by_rows = m_tiles >= n_tiles;                                    \
        size_t tiles = by_rows ? m_tiles : n_tiles;                          \
        size_t bands = min_size((size_t)max_threads(), tiles);               \
        double busy = (double)g->m * g->n * g->k / MIN_WORK_PER_THREAD;      \
        if (busy < bands)                                                    \
            bands = busy < 1 ? 1 : (size_t)busy;                             \
        size_t band_tiles = (tiles + bands - 1) / bands;                     \
        size_t band = band_tiles * (by_rows ? mr : nr);                      \
        bands = (tiles + band_tiles - 1) / band_tiles;                       \
                                                                             \
        /* Per thread: an A block, a B block and the chains of one row       \
         * block of its band (whole tiles). */                               \
        size_t kc = min_size(KC, g->k);                                      \
        size_t rows = round_up(min_size(MC, by_rows ? band : g->m), mr);     \
        size_t cols = round_up(by_rows ? g->n : band, nr);                   \
        size_t a_len = round_up(rows * kc, ALIGN / sizeof(T));               \
        size_t b_len = round_up(round_up(min_size(NC, cols), nr) * kc,       \
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
        /* A bad DUO_CPU_GEMM is refused before C is touched. */             \
        const duo_cpu_gemm_variant *v;                                       \
        duo_status st = duo_cpu_gemm_choose(&v, where);                      \
        if (st != DUO_SUCCESS)                                               \
            return st;                                                       \
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
            .ws = kb > KC && (beta != 0 || kb < k), .kr = &v->S};            \
        return gemm_##S(&g, where);                                          \
    }

DEFINE_GEMM(float, f32, DUO_CPU_GEMM_KC_F32, DUO_CPU_GEMM_MC_F32,
            DUO_CPU_GEMM_NC_F32)
DEFINE_GEMM(double, f64, DUO_CPU_GEMM_KC_F64, DUO_CPU_GEMM_MC_F64,
            DUO_CPU_GEMM_NC_F64)

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
