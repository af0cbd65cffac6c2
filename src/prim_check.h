/*
 * prim_check.h - argument checks shared by sort, scan, compaction and
 * histogram (src/sort.c, src/scan.c, src/select.c, src/histogram.c).
 */
#ifndef DUO_PRIM_CHECK_H
#define DUO_PRIM_CHECK_H

#include "backend.h"

/* 1 when the byte ranges [a, a + a_bytes) and [b, b + b_bytes) share a
 * byte (empty ranges share none). */
int duo_prim_overlap(const void *a, size_t a_bytes, const void *b,
                     size_t b_bytes);

/* n elements of `size` bytes fit in size_t; else fails naming `where`. */
duo_status duo_prim_check_count(const char *where, size_t n, size_t size);

/* `p` is not NULL when n > 0; else fails naming the argument. */
duo_status duo_prim_check_ptr(const char *where, const char *name,
                              const void *p, size_t n);

/* Output `out` is either exactly `in` (in place, when allowed) or shares
 * no byte with it; else fails naming both arguments. */
duo_status duo_prim_check_alias(const char *where, const char *in_name,
                                const void *in, const char *out_name,
                                const void *out, size_t bytes,
                                int in_place_ok);

/* After the checks of the arguments: duo_init() was called, no capture is
 * open (these calls allocate temporary memory), and the stream is
 * usable. */
duo_status duo_prim_ready(const char *where);

#endif /* DUO_PRIM_CHECK_H */
