/*
 * dispatch/sort.c (CUDA build) - sorts: the GPU's or the host's, as
 * duo_init chose (dispatch.h).
 */
#include "dispatch.h"

DUO_BE_FN(duo_status, sort,
          (duo_key_type type, duo_sort_order order, size_t n,
           const void *keys_in, void *keys_out, const void *values_in,
           void *values_out, size_t value_size, int permutation,
           duo_stream stream),
          (type, order, n, keys_in, keys_out, values_in, values_out,
           value_size, permutation, stream))
