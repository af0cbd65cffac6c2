/*
 * registry.h - the live allocations of duo_malloc and duo_malloc_host
 * (src/registry.c; it calls error.c only).  memory.c records each
 * allocation and asks here before it frees, copies or sets memory;
 * runtime.c reports what is left at duo_finalize.
 */
#ifndef DUO_REGISTRY_H
#define DUO_REGISTRY_H

#include <stdio.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum duo_alloc_kind {
    DUO_ALLOC_DEVICE, /* duo_malloc */
    DUO_ALLOC_HOST    /* duo_malloc_host */
} duo_alloc_kind;

/* Record a new allocation of `bytes` at `ptr`, made at file:line (file
 * NULL: not known).  Fails with DUO_ERROR_OUT_OF_MEMORY, recorded for
 * `where`, only when the registry cannot grow. */
duo_status duo_registry_add(const char *where, duo_alloc_kind kind,
                            void *ptr, size_t bytes, const char *file,
                            int line);

/* DUO_SUCCESS when ptr is the start of a live allocation of `kind`;
 * else DUO_ERROR_INVALID_ARGUMENT for `where`, with a message that names
 * ptr and says what it is: freed already, inside a live allocation (its
 * size and start), an allocation of the other kind, or never allocated
 * by duo. */
duo_status duo_registry_check_free(const char *where, duo_alloc_kind kind,
                                   const void *ptr);
/* Forget the allocation at ptr (which check_free accepted). */
void duo_registry_remove(const void *ptr);

/* DUO_SUCCESS when [ptr, ptr + bytes) lies wholly inside one live
 * allocation or wholly outside all of them (a user's own buffer); else
 * DUO_ERROR_INVALID_ARGUMENT for `where`, naming the argument `arg`, the
 * range and the allocation it runs past or into.  bytes > 0. */
duo_status duo_registry_check_range(const char *where, const char *arg,
                                    const void *ptr, size_t bytes);

/* One live allocation, as validation mode (validate_launch.c) sees it. */
typedef struct duo_alloc_view {
    const void *base;
    size_t bytes;
    duo_alloc_kind kind;
    const char *file; /* where it was made, or NULL */
    int line;
} duo_alloc_view;

/* 1, with *out filled, when p lies inside a live allocation; else 0. */
int duo_registry_find(const void *p, duo_alloc_view *out);

/* Call fn for every live allocation, in address order. */
void duo_registry_each(void (*fn)(const duo_alloc_view *, void *),
                       void *ctx);

/* Live allocations and their bytes, by kind. */
void duo_registry_usage(size_t count[2], size_t bytes[2]);

/* duo_finalize: write a line to f if allocations are still live (with
 * list, one more per allocation: size, address and file:line); release
 * the registry's own memory when none is. */
void duo_registry_finalize(FILE *f, int list);

#ifdef __cplusplus
}
#endif

#endif /* DUO_REGISTRY_H */
