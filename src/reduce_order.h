/*
 * reduce_order.h - the one order in which duo_reduce combines elements.
 *
 * Both backends follow it exactly, so a floating-point sum has the same
 * bits on the GPU, with OpenMP at any thread count, and serially.  The
 * shape is the one a GPU runs fastest, written down so a CPU can repeat
 * it:
 *
 *  1. Elements are read in vectors of VEC = 16 / sizeof(element) (one
 *     16-byte load).  A "lane" is one slot of such a vector in one of
 *     THREADS threads: LANES = THREADS * VEC lanes.
 *  2. The array is cut into chunks of CHUNK = STEPS * LANES elements,
 *     where STEPS = duo_reduce_steps(n, LANES) grows with n from 1 to
 *     MAX_STEPS (short arrays get many small chunks, so many blocks share
 *     them; long ones get long chunks, so per-chunk work is amortized).
 *     In chunk c, lane l combines elements c*CHUNK + s*LANES + l for
 *     s = 0 .. STEPS-1 in that order (skipping those >= n), starting from
 *     the identity, in the accumulator type.
 *  3. Thread t's VEC lanes are combined as a balanced pair tree:
 *     VEC=4: (l0 + l1) + (l2 + l3);  VEC=2: l0 + l1.
 *  4. Within each warp of 32 threads, and then across the THREADS/32 warp
 *     results, values are folded in halves: for h = size/2, size/4 .. 1,
 *     v[i] = v[i] + v[i + h] for i < h (what a shuffle-down tree does).
 *     The result is the chunk's partial.
 *  5. The partials are reduced the same way with FINAL_THREADS threads of
 *     one element each (VEC = 1): thread t combines partials
 *     t, t + FINAL_THREADS, ... in order, then steps 4.
 *
 * "+" stands for the operation: a sum, or the NaN-propagating min/max of
 * duo/kernel.h.  Index reductions (argmin/argmax) break ties by the lower
 * index, which makes them independent of order; they use the same shape.
 */
#ifndef DUO_REDUCE_ORDER_H
#define DUO_REDUCE_ORDER_H

#include <stddef.h>

#define DUO_REDUCE_THREADS 256
#define DUO_REDUCE_MAX_STEPS 16
#define DUO_REDUCE_FINAL_THREADS 1024
#define DUO_REDUCE_WARP 32

#define DUO_REDUCE_VEC(elem_size) (16 / (elem_size))
#define DUO_REDUCE_LANES(elem_size) \
    (DUO_REDUCE_THREADS * DUO_REDUCE_VEC(elem_size))

/* Steps per chunk: the largest power of two <= MAX_STEPS that still
 * leaves at least 1024 chunks (enough to spread over every multiprocessor
 * of a large GPU), and at least 1. */
static inline size_t duo_reduce_steps(size_t n, size_t lanes)
{
    size_t steps = 1;
    while (steps < DUO_REDUCE_MAX_STEPS && n / (lanes * steps * 2) >= 1024)
        steps *= 2;
    return steps;
}

#endif /* DUO_REDUCE_ORDER_H */
