/*
 * dispatch/memory.c (CUDA build) - allocation, copies and memset: the GPU's
 * or the host's, as duo_init chose (dispatch.h).
 */
#include "dispatch.h"

DUO_BE_FN(duo_status, malloc, (void **ptr, size_t bytes), (ptr, bytes))
DUO_BE_FN(duo_status, free, (void *ptr), (ptr))
DUO_BE_FN(duo_status, malloc_host, (void **ptr, size_t bytes), (ptr, bytes))
DUO_BE_FN(duo_status, free_host, (void *ptr), (ptr))
DUO_BE_FN(duo_status, memcpy,
          (void *dst, const void *src, size_t bytes, duo_copy_kind kind),
          (dst, src, bytes, kind))
DUO_BE_FN(duo_status, memcpy_async,
          (void *dst, const void *src, size_t bytes, duo_copy_kind kind,
           duo_stream stream),
          (dst, src, bytes, kind, stream))
DUO_BE_FN(duo_status, memset, (void *dst, int value, size_t bytes),
          (dst, value, bytes))
DUO_BE_FN(int, is_device_address, (const void *p), (p))
