/*
 * dispatch/histogram.c (CUDA build) - histograms: the GPU's or the
 * host's, as duo_init chose (dispatch.h).
 */
#include "dispatch.h"

DUO_BE_FN(duo_status, histogram,
          (duo_dtype type, size_t n, const void *x, double lo, double hi,
           double scale, size_t bins, uint64_t *counts, duo_stream stream),
          (type, n, x, lo, hi, scale, bins, counts, stream))
