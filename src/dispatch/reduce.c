/*
 * dispatch/reduce.c (CUDA build) - reductions: the GPU's or the host's, as
 * duo_init chose (dispatch.h).
 */
#include "dispatch.h"

DUO_BE_FN(duo_status, reduce,
          (duo_reduce_op op, duo_dtype type, const void *x, size_t n,
           void *result),
          (op, type, x, n, result))
DUO_BE_FN(duo_status, reduce_arg,
          (duo_reduce_op op, duo_dtype type, const void *x, size_t n,
           size_t *index, void *value),
          (op, type, x, n, index, value))
DUO_BE_FN(duo_status, reduce_async,
          (duo_reduce_op op, duo_dtype type, const void *x, size_t n,
           void *result, duo_stream stream),
          (op, type, x, n, result, stream))
DUO_BE_FN(duo_status, dot_async,
          (duo_dtype type, size_t n, int count, const void *const *x,
           const void *const *y, double *result, duo_stream stream),
          (type, n, count, x, y, result, stream))
DUO_BE_FN(duo_status, reduce_segments,
          (duo_reduce_op op, duo_dtype type, const void *x, size_t len,
           size_t count, uint64_t *words, void *scratch, duo_stream stream),
          (op, type, x, len, count, words, scratch, stream))
DUO_BE_FN(size_t, reduce_segments_scratch,
          (duo_dtype type, size_t len, size_t count), (type, len, count))
