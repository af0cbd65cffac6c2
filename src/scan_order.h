/*
 * scan_order.h - the one order in which duo_scan combines elements.
 *
 * Every backend follows it exactly, so a floating-point prefix sum has
 * the same bits on the GPU, with OpenMP at any thread count and
 * serially.  It depends on n alone.  "+" is the operation (a sum, or the
 * min/max of duo/kernel.h's DUO_COMBINE_*); f32 sums are combined in
 * double and each output rounded to float once; integer sums wrap.
 * (Integer sums, and min and max of every type, are exact in any order:
 * the CUDA backend computes those with CUB and gets these bits anyway.)
 *
 * For the input a[0 .. n):
 *
 *  1. Runs.  Cut a into runs of RUN = 16 consecutive elements (the last
 *     one shorter).  Within run j the local inclusive values are
 *     loc[0] = a[16j], loc[k] = loc[k-1] + a[16j + k], left to right,
 *     and the local exclusive values lx[0] = none, lx[k] = loc[k-1].
 *     The run's total t[j] is its last loc.
 *  2. Blocks.  The runs form a binary tree: the block of 2^k runs that
 *     starts at run 2^k b has the sum
 *       S(0, b) = t[b],   S(k, b) = S(k-1, 2b) + S(k-1, 2b+1).
 *  3. Carries.  Write j in binary, j = 2^k1 + 2^k2 + ... + 2^kr with
 *     k1 > k2 > ... > kr.  The runs before run j are the blocks
 *     [0, 2^k1), [2^k1, 2^k1 + 2^k2), ..., each complete, and the carry
 *     of run j is their sums added from the left:
 *       C[j] = (...((S(k1, b1) + S(k2, b2)) + S(k3, b3)) ...) + S(kr, br)
 *     where b_i = (j >> k_i) - 1 is the block's index at its level.
 *     Equivalently C[j] = C[j - 2^kr] + S(kr, br), with C[0] = none.
 *  4. Element 16j + k of the result is C[j] + loc[k] (inclusive scan)
 *     or C[j] + lx[k] (exclusive scan), where none + v = v, v + none = v
 *     (no operation at all: adding an identity could turn -0 into +0),
 *     and the exclusive result of element 0 (none + none) is the
 *     identity: 0, or +inf / the largest integer for min, -inf / the
 *     smallest for max.
 *
 * So every output costs two operations beyond its run, each carry one
 * operation per set bit of its run's index, and the sums combine in a
 * tree: the rounding error of a prefix is at most about
 * (RUN + 2 log2(n / RUN)) u sum |a|, not n u sum |a| as in a left-to-
 * right sum.
 *
 * Why this order: any part of it can be computed wherever the inputs
 * it needs are.  The CPU cuts the runs into tiles of 2^8 runs, computes
 * each tile's total (a block sum) in parallel, the carries of the tiles
 * from the block sums above them, then each tile with its carry.  The
 * GPU gives each thread block a tile: its threads scan their runs and
 * the block sums within the tile in shared memory, and each block
 * publishes its tile's total, and any large block sum its tile
 * completes, for the blocks after it, which need nothing but block sums
 * of tiles before theirs -- a single pass over the input
 * (backend_cuda/scan.cu).
 */
#ifndef DUO_SCAN_ORDER_H
#define DUO_SCAN_ORDER_H

#define DUO_SCAN_RUN 16

#endif /* DUO_SCAN_ORDER_H */
