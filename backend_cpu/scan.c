/*
 * scan.c (CPU) - duo_scan.
 *
 * Floating-point sums follow the order of src/scan_order.h, over tiles
 * of TILE_RUNS runs shared among OpenMP threads:
 *
 *   1. every run's total, and each complete tile's total (the block sum
 *      of its runs), in parallel;
 *   2. the block sums above the tiles and each tile's carry (the carry
 *      of its first run), on one thread: a few operations per tile;
 *   3. each tile again, in parallel: the block sums within it from the
 *      run totals, each run's carry, then each element.
 *
 * Every value is computed by the one expression the order gives it, so
 * the bits depend neither on the number of threads nor on the tile
 * size.  Runs are scanned GROUP at a time, element k of each in turn:
 * each run is a chain of dependent additions, and interleaving the
 * chains of several runs lets the processor overlap them.
 *
 * Integer sums, and min and max of every type, are exact in any order
 * (min and max pick an element: the first of equal ones, the last NaN),
 * so they are scanned in two passes over the same tiles: each tile's
 * total, then each tile from the total of those before it -- the bits of
 * the order at the cost of a plain scan.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "scan_order.h"

#define RUN DUO_SCAN_RUN
/* Runs per tile: a power of two (the block sums within a tile are then
 * complete blocks of the order); 256 runs of f32 are 16 KiB. */
#define TILE_RUNS 256
#define TILE ((size_t)TILE_RUNS * RUN)
/* Runs scanned together. */
#define GROUP 8

/* Block sums within a tile: level k (k = 0 .. 8, level 0 the run
 * totals) starts at LEVEL_AT(k) of an array of 2 TILE_RUNS. */
#define LEVEL_AT(k) (2 * TILE_RUNS - (2 * TILE_RUNS >> (k)))

/* Lowest set bit's position (v > 0). */
static int low_bit(size_t v)
{
    int k = 0;
    while (!(v & 1)) {
        v >>= 1;
        ++k;
    }
    return k;
}

/* The ordered scan: element type T, accumulated in A, combined by
 * COMBINE; ID is the identity of the exclusive scan's first element. */
#define DEFINE_SCAN(sfx, T, A, COMBINE, ID)                                   \
    /* t[r] = the total of run first + r, for r < count. */                  \
    static void totals_##sfx(const T *x, size_t n, size_t first,             \
                             size_t count, A *t)                              \
    {                                                                         \
        size_t r = 0;                                                         \
        for (; r + GROUP <= count && (first + r + GROUP) * RUN <= n;          \
             r += GROUP) {                                                    \
            const T *xr = x + (first + r) * RUN;                              \
            A acc[GROUP];                                                     \
            for (int q = 0; q < GROUP; ++q)                                   \
                acc[q] = (A)xr[q * RUN];                                      \
            for (int k = 1; k < RUN; ++k)                                     \
                for (int q = 0; q < GROUP; ++q)                               \
                    acc[q] = COMBINE(acc[q], (A)xr[q * RUN + k]);             \
            for (int q = 0; q < GROUP; ++q)                                   \
                t[r + q] = acc[q];                                            \
        }                                                                     \
        for (; r < count; ++r) {                                              \
            const size_t lo = (first + r) * RUN;                              \
            const size_t hi = lo + RUN < n ? lo + RUN : n;                    \
            A acc = (A)x[lo];                                                 \
            for (size_t i = lo + 1; i < hi; ++i)                              \
                acc = COMBINE(acc, (A)x[i]);                                  \
            t[r] = acc;                                                       \
        }                                                                     \
    }                                                                         \
    /* lev: a tile's `runs` run totals; add the block sums above them     \
     * (complete blocks only). */                                          \
    static void blocks_##sfx(const A *totals, size_t runs, A *lev)           \
    {                                                                         \
        memcpy(lev, totals, runs * sizeof(A));                                \
        for (int k = 1; (runs >>= 1) > 0; ++k) {                              \
            const A *below = lev + LEVEL_AT(k - 1);                           \
            A *above = lev + LEVEL_AT(k);                                     \
            for (size_t b = 0; b < runs; ++b)                                 \
                above[b] = COMBINE(below[2 * b], below[2 * b + 1]);           \
        }                                                                     \
    }                                                                         \
    /* Runs [first, first + count) of x into y, run r with carry c[r];    \
     * none: run `first` has no carry (the array's first run).  x may be  \
     * y: each element is read before it is written. */                    \
    static void emit_##sfx(const T *x, T *y, size_t n, size_t first,        \
                           size_t count, const A *c, int none,               \
                           int inclusive)                                     \
    {                                                                         \
        size_t r = 0;                                                         \
        if (none) {                                                           \
            const size_t hi = RUN < n ? RUN : n;                              \
            A loc = (A)x[0];                                                  \
            y[0] = inclusive ? (T)loc : (T)(ID);                              \
            for (size_t i = 1; i < hi; ++i) {                                 \
                const A v = (A)x[i];                                          \
                if (!inclusive)                                               \
                    y[i] = (T)loc;                                            \
                loc = COMBINE(loc, v);                                        \
                if (inclusive)                                                \
                    y[i] = (T)loc;                                            \
            }                                                                 \
            r = 1;                                                            \
        }                                                                     \
        for (; r + GROUP <= count && (first + r + GROUP) * RUN <= n;          \
             r += GROUP) {                                                    \
            const T *xr = x + (first + r) * RUN;                              \
            T *yr = y + (first + r) * RUN;                                    \
            A loc[GROUP];                                                     \
            if (inclusive) {                                                  \
                for (int q = 0; q < GROUP; ++q) {                             \
                    loc[q] = (A)xr[q * RUN];                                  \
                    yr[q * RUN] = (T)COMBINE(c[r + q], loc[q]);               \
                }                                                             \
                for (int k = 1; k < RUN; ++k)                                 \
                    for (int q = 0; q < GROUP; ++q) {                         \
                        loc[q] = COMBINE(loc[q], (A)xr[q * RUN + k]);         \
                        yr[q * RUN + k] = (T)COMBINE(c[r + q], loc[q]);       \
                    }                                                         \
            } else {                                                          \
                for (int q = 0; q < GROUP; ++q) {                             \
                    loc[q] = (A)xr[q * RUN];                                  \
                    yr[q * RUN] = (T)c[r + q];                                \
                }                                                             \
                for (int k = 1; k < RUN; ++k)                                 \
                    for (int q = 0; q < GROUP; ++q) {                         \
                        const A v = (A)xr[q * RUN + k];                       \
                        yr[q * RUN + k] = (T)COMBINE(c[r + q], loc[q]);       \
                        loc[q] = COMBINE(loc[q], v);                          \
                    }                                                         \
            }                                                                 \
        }                                                                     \
        for (; r < count; ++r) {                                              \
            const size_t lo = (first + r) * RUN;                              \
            const size_t hi = lo + RUN < n ? lo + RUN : n;                    \
            A loc = (A)x[lo];                                                 \
            y[lo] = inclusive ? (T)COMBINE(c[r], loc) : (T)c[r];              \
            for (size_t i = lo + 1; i < hi; ++i) {                            \
                const A v = (A)x[i];                                          \
                if (!inclusive)                                               \
                    y[i] = (T)COMBINE(c[r], loc);                             \
                loc = COMBINE(loc, v);                                        \
                if (inclusive)                                                \
                    y[i] = (T)COMBINE(c[r], loc);                             \
            }                                                                 \
        }                                                                     \
    }                                                                         \
    static int scan_##sfx(const void *xv, void *yv, size_t n, int inclusive) \
    {                                                                         \
        const T *x = (const T *)xv;                                           \
        T *y = (T *)yv;                                                       \
        const size_t runs = (n + RUN - 1) / RUN;                              \
        const size_t tiles = (runs + TILE_RUNS - 1) / TILE_RUNS;              \
        const size_t full = n / TILE;                                         \
        /* Run totals; block sums over the complete tiles, level by level \
         * (fewer than 2 full); each tile's carry (carry[0]: none). */     \
        A *t = (A *)malloc(runs * sizeof(A));                                 \
        A *sums = (A *)malloc((2 * full + 1) * sizeof(A));                    \
        A *carry = (A *)malloc(tiles * sizeof(A));                            \
        if (t == NULL || sums == NULL || carry == NULL) {                     \
            free(t);                                                          \
            free(sums);                                                       \
            free(carry);                                                      \
            return 0;                                                         \
        }                                                                     \
        DUO_PRAGMA_PARALLEL_FOR                                               \
        for (size_t tile = 0; tile < tiles; ++tile) {                         \
            const size_t first = tile * TILE_RUNS;                            \
            const size_t in = runs - first < TILE_RUNS ? runs - first         \
                                                       : TILE_RUNS;           \
            totals_##sfx(x, n, first, in, t + first);                         \
            if (tile < full) {                                                \
                A lev[2 * TILE_RUNS];                                         \
                blocks_##sfx(t + first, TILE_RUNS, lev);                      \
                sums[tile] = lev[LEVEL_AT(8)];                                \
            }                                                                 \
        }                                                                     \
        /* Levels above the tiles: level k starts at level_at[k]. */         \
        size_t level_at[64];                                                  \
        level_at[0] = 0;                                                      \
        int levels = 1;                                                       \
        for (size_t m = full; m > 1; m >>= 1, ++levels) {                     \
            A *below = sums + level_at[levels - 1];                           \
            A *above = below + m;                                             \
            level_at[levels] = level_at[levels - 1] + m;                      \
            for (size_t b = 0; b < m / 2; ++b)                                \
                above[b] = COMBINE(below[2 * b], below[2 * b + 1]);           \
        }                                                                     \
        /* carry[i]: carry[i without its lowest bit] + that bit's block;  \
         * tiles whose index is a power of two start from none. */        \
        carry[0] = (A)0; /* none: never read */                              \
        for (size_t i = 1; i < tiles; ++i) {                                  \
            const int k = low_bit(i);                                         \
            const A block = sums[level_at[k] + (i >> k) - 1];                 \
            const size_t rest = i & (i - 1);                                  \
            carry[i] = rest == 0 ? block : COMBINE(carry[rest], block);       \
        }                                                                     \
        DUO_PRAGMA_PARALLEL_FOR                                               \
        for (size_t tile = 0; tile < tiles; ++tile) {                         \
            const size_t first = tile * TILE_RUNS;                            \
            const size_t in = runs - first < TILE_RUNS ? runs - first         \
                                                       : TILE_RUNS;           \
            A lev[2 * TILE_RUNS], c[TILE_RUNS];                               \
            blocks_##sfx(t + first, in, lev);                                 \
            /* c[r]: the carry of run first + r, as carry[] above; only   \
             * run 0 of tile 0 has none. */                                \
            c[0] = carry[tile];                                               \
            for (size_t r = 1; r < in; ++r) {                                 \
                const int k = low_bit(r);                                     \
                const A block = lev[LEVEL_AT(k) + (r >> k) - 1];              \
                const size_t rest = r & (r - 1);                              \
                c[r] = tile == 0 && rest == 0 ? block                         \
                                              : COMBINE(c[rest], block);      \
            }                                                                 \
            emit_##sfx(x, y, n, first, in, c, tile == 0, inclusive);          \
        }                                                                     \
        free(t);                                                              \
        free(sums);                                                           \
        free(carry);                                                          \
        return 1;                                                             \
    }

/* The exact scans: T combined in A (integer sums wrap through the
 * unsigned type). */
#define DEFINE_EXACT_SCAN(sfx, T, A, COMBINE, ID)                             \
    static int scan_##sfx(const void *xv, void *yv, size_t n, int inclusive) \
    {                                                                         \
        const T *x = (const T *)xv;                                           \
        T *y = (T *)yv;                                                       \
        const size_t tiles = (n + TILE - 1) / TILE;                           \
        A *carry = (A *)malloc(tiles * sizeof(A));                            \
        if (carry == NULL)                                                    \
            return 0;                                                         \
        /* carry[i]: tile i - 1's total, then the tiles' prefixes. */     \
        DUO_PRAGMA_PARALLEL_FOR                                               \
        for (size_t tile = 1; tile < tiles; ++tile) {                         \
            const T *xt = x + (tile - 1) * TILE;                              \
            A acc = (A)xt[0];                                                 \
            for (size_t i = 1; i < TILE; ++i)                                 \
                acc = COMBINE(acc, (A)xt[i]);                                 \
            carry[tile] = acc;                                                \
        }                                                                     \
        carry[0] = (A)0; /* none: never read */                              \
        for (size_t tile = 2; tile < tiles; ++tile)                           \
            carry[tile] = COMBINE(carry[tile - 1], carry[tile]);              \
        DUO_PRAGMA_PARALLEL_FOR                                               \
        for (size_t tile = 0; tile < tiles; ++tile) {                         \
            const size_t lo = tile * TILE;                                    \
            const size_t hi = lo + TILE < n ? lo + TILE : n;                  \
            size_t i = lo;                                                    \
            A acc = carry[tile];                                              \
            if (tile == 0) {                                                  \
                acc = (A)x[0];                                                \
                y[0] = inclusive ? (T)acc : (T)(ID);                          \
                i = 1;                                                        \
            }                                                                 \
            if (inclusive)                                                    \
                for (; i < hi; ++i) {                                         \
                    acc = COMBINE(acc, (A)x[i]);                              \
                    y[i] = (T)acc;                                            \
                }                                                             \
            else                                                              \
                for (; i < hi; ++i) {                                         \
                    const A v = (A)x[i];                                      \
                    y[i] = (T)acc;                                            \
                    acc = COMBINE(acc, v);                                    \
                }                                                             \
        }                                                                     \
        free(carry);                                                          \
        return 1;                                                             \
    }

#define SUM_(a, b) ((a) + (b))
#define MIN_(a, b) DUO_COMBINE_DUO_MIN(a, b)
#define MAX_(a, b) DUO_COMBINE_DUO_MAX(a, b)

/* f32 sums accumulate in double, in the order; min and max pick an
 * element, so they stay in the element type (a NaN's bits pass through
 * unchanged). */
DEFINE_SCAN(f32_sum, float, double, SUM_, 0.0)
DEFINE_SCAN(f64_sum, double, double, SUM_, 0.0)
DEFINE_EXACT_SCAN(f32_min, float, float, MIN_, INFINITY)
DEFINE_EXACT_SCAN(f32_max, float, float, MAX_, -INFINITY)
DEFINE_EXACT_SCAN(f64_min, double, double, MIN_, INFINITY)
DEFINE_EXACT_SCAN(f64_max, double, double, MAX_, -INFINITY)
DEFINE_EXACT_SCAN(i32_sum, int32_t, uint32_t, SUM_, 0)
DEFINE_EXACT_SCAN(i32_min, int32_t, int32_t, MIN_, INT32_MAX)
DEFINE_EXACT_SCAN(i32_max, int32_t, int32_t, MAX_, INT32_MIN)
DEFINE_EXACT_SCAN(i64_sum, int64_t, uint64_t, SUM_, 0)
DEFINE_EXACT_SCAN(i64_min, int64_t, int64_t, MIN_, INT64_MAX)
DEFINE_EXACT_SCAN(i64_max, int64_t, int64_t, MAX_, INT64_MIN)
DEFINE_EXACT_SCAN(u64_sum, uint64_t, uint64_t, SUM_, 0)
DEFINE_EXACT_SCAN(u64_min, uint64_t, uint64_t, MIN_, UINT64_MAX)
DEFINE_EXACT_SCAN(u64_max, uint64_t, uint64_t, MAX_, 0)

typedef int (*scan_fn)(const void *, void *, size_t, int);

duo_status duo_be_scan(duo_scan_kind kind, duo_reduce_op op, duo_dtype type,
                       const void *x, void *y, size_t n, duo_stream stream)
{
    (void)stream;
    /* By [type][op], in enum order. */
    static const scan_fn fns[5][3] = {
        {scan_f32_sum, scan_f32_min, scan_f32_max},
        {scan_f64_sum, scan_f64_min, scan_f64_max},
        {scan_i32_sum, scan_i32_min, scan_i32_max},
        {scan_i64_sum, scan_i64_min, scan_i64_max},
        {scan_u64_sum, scan_u64_min, scan_u64_max}};
    if (!fns[type][op](x, y, n, kind == DUO_INCLUSIVE))
        return duo_fail(DUO_ERROR_OUT_OF_MEMORY, "duo_scan",
                        "no host memory for the run totals of %zu elements",
                        n);
    return DUO_SUCCESS;
}
