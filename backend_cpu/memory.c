/*
 * memory.c (CPU) - "device" and pinned memory are both ordinary host
 * memory, aligned for the widest vector loads; copies are memcpy.
 */
#include <stdlib.h>
#include <string.h>

#include "backend.h"

/* One cache line: also the widest vector (AVX-512) on current CPUs. */
#define DUO_CPU_ALIGNMENT 64

static duo_status aligned(const char *where, void **ptr, size_t bytes)
{
    size_t rounded = (bytes + DUO_CPU_ALIGNMENT - 1) &
                     ~(size_t)(DUO_CPU_ALIGNMENT - 1);
    void *p = rounded < bytes ? NULL
                              : aligned_alloc(DUO_CPU_ALIGNMENT, rounded);
    if (p == NULL)
        return duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                        "could not allocate %zu bytes of host memory; free "
                        "some memory or use a smaller problem", bytes);
    *ptr = p;
    return DUO_SUCCESS;
}

duo_status duo_be_malloc(void **ptr, size_t bytes)
{
    return aligned("duo_malloc", ptr, bytes);
}

duo_status duo_be_malloc_host(void **ptr, size_t bytes)
{
    return aligned("duo_malloc_host", ptr, bytes);
}

duo_status duo_be_free(void *ptr)
{
    free(ptr);
    return DUO_SUCCESS;
}

duo_status duo_be_free_host(void *ptr)
{
    free(ptr);
    return DUO_SUCCESS;
}

duo_status duo_be_memcpy(void *dst, const void *src, size_t bytes,
                         duo_copy_kind kind)
{
    (void)kind;
    memcpy(dst, src, bytes);
    return DUO_SUCCESS;
}

duo_status duo_be_memcpy_async(void *dst, const void *src, size_t bytes,
                               duo_copy_kind kind, duo_stream stream)
{
    (void)stream;
    return duo_be_memcpy(dst, src, bytes, kind);
}

duo_status duo_be_memset(void *dst, int value, size_t bytes)
{
    memset(dst, value, bytes);
    return DUO_SUCCESS;
}

int duo_be_is_device_address(const void *p)
{
    (void)p; /* the CPU backends have no device memory */
    return 0;
}
