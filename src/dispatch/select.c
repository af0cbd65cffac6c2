/*
 * dispatch/select.c (CUDA build) - compaction: the GPU's or the host's,
 * as duo_init chose (dispatch.h).
 */
#include "dispatch.h"

DUO_BE_FN(duo_status, compact,
          (size_t elem_size, size_t n, const void *in, const uint8_t *flags,
           void *out, uint64_t *count_device, size_t *count_host,
           duo_stream stream),
          (elem_size, n, in, flags, out, count_device, count_host, stream))
