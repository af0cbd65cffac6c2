/*
 * histogram_bin.h - the bin of one element, the formula of
 * duo/primitives.h, shared by backend_cpu/histogram.c and
 * backend_cuda/histogram.cu so that both count the same.  Both compile
 * it without contraction into fused multiply-adds (there is no a*b+c
 * here to fuse: a difference, then a product).
 */
#ifndef DUO_HISTOGRAM_BIN_H
#define DUO_HISTOGRAM_BIN_H

#include <stddef.h>

#if defined(__CUDACC__)
#define DUO_HISTOGRAM_FN static inline __host__ __device__
#else
#define DUO_HISTOGRAM_FN static inline
#endif

/* The bin of v, or `bins` when v is outside [lo, hi) or NaN (dropped). */
DUO_HISTOGRAM_FN size_t duo_histogram_bin(double v, double lo, double hi,
                                          double scale, size_t bins)
{
    if (!(v >= lo && v < hi))
        return bins;
    const size_t b = (size_t)((v - lo) * scale);
    return b < bins ? b : bins - 1;
}

#endif /* DUO_HISTOGRAM_BIN_H */
