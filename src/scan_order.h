/*
 * scan_order.h - the one order in which duo_scan combines elements.
 *
 * Every backend follows it exactly, so a floating-point prefix sum has
 * the same bits on the GPU, with OpenMP at any thread count and
 * serially.  It depends on n alone.  "+" is the operation (a sum, or the
 * min/max of duo/kernel.h's DUO_COMBINE_*); f32 elements are combined in
 * double and each output rounded to float once; integer sums wrap.
 *
 * For an array a[0 .. m) (at first the input, m = n):
 *
 *  1. Cut a into runs of RUN = 16 consecutive elements (the last one
 *     shorter).  Within run j, the local inclusive values are
 *     loc[0] = a[16j], loc[k] = loc[k-1] + a[16j + k], left to right,
 *     and the local exclusive values are lx[0] = none, lx[k] = loc[k-1].
 *     The run's total is its last loc.
 *  2. The carry C[j] of each run is the exclusive result, by this same
 *     definition, of the array of run totals: C[0] = none, and for
 *     j > 0, C[j] = carry of j's own run of totals + lx of j within it,
 *     recursively, until an array has a single run (whose carry is
 *     none).
 *  3. Element 16j + k of the result is C[j] + loc[k] (inclusive scan)
 *     or C[j] + lx[k] (exclusive scan), where none + v = v, v + none = v
 *     (no operation at all: adding an identity could turn -0 into +0),
 *     and the exclusive result of element 0 (none + none) is the
 *     identity: 0, or +inf / the largest integer for min, -inf / the
 *     smallest for max.
 *
 * So the carries at each level are exact functions of the level below,
 * and each output costs two operations beyond its run's totals.  The
 * GPU and the CPU both compute the levels as written: run totals level
 * by level up, carries level by level down.
 */
#ifndef DUO_SCAN_ORDER_H
#define DUO_SCAN_ORDER_H

#define DUO_SCAN_RUN 16

#endif /* DUO_SCAN_ORDER_H */
