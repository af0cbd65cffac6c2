/*
 * prim_check.c - argument checks shared by the primitives (prim_check.h).
 */
#include <stdint.h>

#include "prim_check.h"

int duo_prim_overlap(const void *a, size_t a_bytes, const void *b,
                     size_t b_bytes)
{
    if (a == NULL || b == NULL || a_bytes == 0 || b_bytes == 0)
        return 0;
    const uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
    return pa < pb + b_bytes && pb < pa + a_bytes;
}

duo_status duo_prim_check_count(const char *where, size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / size)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "n = %zu elements of %zu bytes overflow size_t", n,
                        size);
    return DUO_SUCCESS;
}

duo_status duo_prim_check_ptr(const char *where, const char *name,
                              const void *p, size_t n)
{
    if (p == NULL && n > 0)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "%s is NULL but n = %zu; pass device memory (from "
                        "duo_malloc) holding n elements", name, n);
    return DUO_SUCCESS;
}

duo_status duo_prim_check_alias(const char *where, const char *in_name,
                                const void *in, const char *out_name,
                                const void *out, size_t bytes,
                                int in_place_ok)
{
    if (in == out && in_place_ok)
        return DUO_SUCCESS;
    if (duo_prim_overlap(in, bytes, out, bytes))
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "%s = %p and %s = %p overlap; %s", in_name, in,
                        out_name, out,
                        in_place_ok ? "pass the same pointer to work in "
                                      "place, or arrays that do not overlap"
                                    : "pass arrays that do not overlap");
    return DUO_SUCCESS;
}

duo_status duo_prim_ready(const char *where)
{
    duo_status status = duo_require_init(where);
    if (status == DUO_SUCCESS && duo_capture_active())
        status = duo_fail(DUO_ERROR_NOT_CAPTURABLE, where,
                          "%s allocates temporary device memory and cannot "
                          "be captured into a duo_graph; call it outside "
                          "duo_graph_capture", where);
    return status;
}
