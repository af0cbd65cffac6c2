/*
 * gemm_order.h - the order in which duo_gemm sums each element of C,
 * one rule for every backend (include/duo.h states it), so that the CPU
 * backends and CUDA give the same bits for every shape.
 *
 * The rule depends on (elem_size, m, n, k) only, never on the machine,
 * the thread count or the tile shape: a product with a small C and a
 * long k (M N <= 2^19, at least DUO_GEMM_SPLIT_MIN_PARTS blocks of k)
 * is summed in k blocks, each its own chain, added to C in turn (on the
 * GPU, the parts of a split over k that fill the machine); every other
 * product is one fma chain over all of k.
 */
#ifndef DUO_GEMM_ORDER_H
#define DUO_GEMM_ORDER_H

#include <stddef.h>

/* k per block of the blocked order. */
#define DUO_GEMM_ORDER_KBLOCK_F32 384
#define DUO_GEMM_ORDER_KBLOCK_F64 2048
/* The largest M N that is summed in blocks, and the fewest blocks. */
#define DUO_GEMM_SPLIT_MAX_ELEMS ((size_t)1 << 19)
#define DUO_GEMM_SPLIT_MIN_PARTS_F32 4
#define DUO_GEMM_SPLIT_MIN_PARTS_F64 2

/* k per block for an m x n x k product of elem_size-byte elements (4 or
 * 8), or 0: one chain over all of k. */
static inline size_t duo_gemm_order_kblock(size_t elem_size, size_t m,
                                           size_t n, size_t k)
{
    const size_t kb = elem_size == 4 ? DUO_GEMM_ORDER_KBLOCK_F32
                                     : DUO_GEMM_ORDER_KBLOCK_F64;
    const size_t min_parts = elem_size == 4 ? DUO_GEMM_SPLIT_MIN_PARTS_F32
                                            : DUO_GEMM_SPLIT_MIN_PARTS_F64;
    const int small_c = m != 0 && n <= DUO_GEMM_SPLIT_MAX_ELEMS / m;
    return small_c && (k + kb - 1) / kb >= min_parts ? kb : 0;
}

#endif /* DUO_GEMM_ORDER_H */
