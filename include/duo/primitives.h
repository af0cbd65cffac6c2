/*
 * duo/primitives.h - sort, scan, compaction and histogram over device
 * arrays, with the same output bits on every backend.  Included by
 * <duo.h>; do not include directly.
 *
 * Common rules.  Arrays are device memory (duo_malloc).  Each function
 * has a stream-ordered form (..._async) that queues the work on `stream`
 * (NULL: the default stream) and returns without waiting; the plain form
 * is the same work on the default stream, waited for.  CPU backends do
 * the work at once.  Bad arguments fail with DUO_ERROR_INVALID_ARGUMENT
 * naming the argument, and write nothing.  These calls allocate their
 * own temporary device memory, so they may not be captured into a
 * duo_graph (DUO_ERROR_NOT_CAPTURABLE).
 */
#ifndef DUO_PRIMITIVES_H
#define DUO_PRIMITIVES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Sort                                                                */

/* Key types.  Floating-point keys sort in the total order of their bits:
 *   -NaN < -inf < ... < -1 < ... < -0 < +0 < ... < 1 < ... < +inf < +NaN
 * where -NaN is any NaN with the sign bit set (ordered among themselves
 * by payload, larger payload first) and +NaN any NaN without it (larger
 * payload last).  So -0 sorts before +0 and every key, NaNs included, has
 * one place: the output is the same on every backend. */
typedef enum duo_key_type {
    DUO_KEY_I32, /* int32_t  */
    DUO_KEY_U32, /* uint32_t */
    DUO_KEY_I64, /* int64_t  */
    DUO_KEY_U64, /* uint64_t */
    DUO_KEY_F32, /* float    */
    DUO_KEY_F64  /* double   */
} duo_key_type;

typedef enum duo_sort_order { DUO_ASCENDING, DUO_DESCENDING } duo_sort_order;

/*
 * Sort n keys of `type`, and with them n values of value_size bytes (4 or
 * 8; 0 and both value pointers NULL to sort keys alone).  The sort is
 * stable in both orders: equal keys keep their input order (descending
 * reverses the order of keys, not of ties).  keys_out may be keys_in
 * (sorting in place), values_out may be values_in; otherwise no two of
 * the arrays may overlap.  Values are moved as raw bytes.
 */
duo_status duo_sort(duo_key_type type, duo_sort_order order, size_t n,
                    const void *keys_in, void *keys_out,
                    const void *values_in, void *values_out,
                    size_t value_size);
duo_status duo_sort_async(duo_key_type type, duo_sort_order order, size_t n,
                          const void *keys_in, void *keys_out,
                          const void *values_in, void *values_out,
                          size_t value_size, duo_stream stream);

/* The same stable sort of the keys, and in perm[] the permutation:
 * perm[i] is the input index of the key that lands at position i.
 * perm must not overlap the keys. */
duo_status duo_sort_permutation(duo_key_type type, duo_sort_order order,
                                size_t n, const void *keys_in,
                                void *keys_out, uint64_t *perm);
duo_status duo_sort_permutation_async(duo_key_type type,
                                      duo_sort_order order, size_t n,
                                      const void *keys_in, void *keys_out,
                                      uint64_t *perm, duo_stream stream);

/* ------------------------------------------------------------------ */
/* Scan                                                                */

typedef enum duo_scan_kind { DUO_INCLUSIVE, DUO_EXCLUSIVE } duo_scan_kind;

/*
 * Prefix scan of n elements of `type` (any duo_dtype) with `op`
 * (DUO_SUM, DUO_MIN, DUO_MAX) into y, of the same type:
 *   inclusive  y[i] = x[0] op x[1] op ... op x[i]
 *   exclusive  y[0] = identity, y[i] = x[0] op ... op x[i-1]
 * (identity: 0 for sums, +inf or the largest value for min, -inf or the
 * smallest for max).  y may be x (in place); otherwise they must not
 * overlap.  Integer sums wrap modulo 2^32 or 2^64; f32 sums are
 * combined in double and each output rounded to float once; min and max
 * propagate NaN as duo_reduce does (the last NaN so far), and return the
 * first of equal elements.
 *
 * Order and determinism: the elements are combined in one fixed order
 * that depends only on n, so every backend, thread count and GPU returns
 * the same bits: runs of 16 added left to right, the runs' totals in a
 * binary tree, and each run's carry the tree's block sums for the binary
 * digits of its index (written down in src/scan_order.h).  Its rounding
 * error grows with log n, not n.  Integer sums and every min and max are
 * exact in any order.  On the GPU a floating-point sum is one pass over
 * x; the other scans are CUB's.
 */
duo_status duo_scan(duo_scan_kind kind, duo_reduce_op op, duo_dtype type,
                    const void *x, void *y, size_t n);
duo_status duo_scan_async(duo_scan_kind kind, duo_reduce_op op,
                          duo_dtype type, const void *x, void *y, size_t n,
                          duo_stream stream);

/* ------------------------------------------------------------------ */
/* Compaction                                                          */

/*
 * Stream compaction: copy, in order, the elements in[i] whose flags[i] is
 * non-zero to out[0 .. count-1]; elements are elem_size bytes (4 or 8),
 * moved as raw bytes.  out needs room for n elements in the worst case
 * and must not overlap in or flags; out[count ..] is left untouched.
 * duo_compact writes the count to the host variable *count;
 * duo_compact_async writes it to *device* memory (one uint64_t from
 * duo_malloc), stream-ordered like the output.
 */
duo_status duo_compact(size_t elem_size, size_t n, const void *in,
                       const uint8_t *flags, void *out, size_t *count);
duo_status duo_compact_async(size_t elem_size, size_t n, const void *in,
                             const uint8_t *flags, void *out,
                             uint64_t *count, duo_stream stream);

/* ------------------------------------------------------------------ */
/* Histogram                                                           */

/*
 * Histogram of n elements of `type` (DUO_F32, DUO_F64 or DUO_I32) into
 * `bins` equal bins over [lo, hi): counts[0 .. bins-1] (device memory) is
 * overwritten with the number of elements in each bin.  lo < hi, both
 * finite, hi - lo finite, bins >= 1.
 *
 * An element v goes to bin
 *     b = (size_t)(((double)v - lo) * ((double)bins / (hi - lo)))
 * (each operation rounded in double, no fused multiply-add), then
 * b = bins - 1 where rounding gives b = bins.  Elements outside [lo, hi)
 * and NaNs are dropped: they are in no bin (n minus the sum of the counts
 * is their number).  Every backend computes this same formula, so the
 * counts are the same everywhere.
 */
duo_status duo_histogram(duo_dtype type, size_t n, const void *x, double lo,
                         double hi, size_t bins, uint64_t *counts);
duo_status duo_histogram_async(duo_dtype type, size_t n, const void *x,
                               double lo, double hi, size_t bins,
                               uint64_t *counts, duo_stream stream);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DUO_PRIMITIVES_H */
