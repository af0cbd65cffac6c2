/*
 * dispatch/segmented.c (CUDA build) - segmented reductions: the GPU's or
 * the host's, as duo_init chose (dispatch.h).
 */
#include "dispatch.h"

DUO_BE_FN(duo_status, segmented_reduce,
          (duo_reduce_op op, duo_dtype type, const void *x, size_t n,
           const size_t *offsets, size_t seg_len, size_t nseg, void *result,
           size_t *index, duo_stream stream),
          (op, type, x, n, offsets, seg_len, nseg, result, index, stream))
