/*
 * select.c - duo_compact: argument checks shared by every backend.
 */
#include "prim_check.h"
#include "profile.h"

static duo_status compact_run(const char *where, size_t elem_size, size_t n,
                              const void *in, const uint8_t *flags,
                              void *out, uint64_t *count_device,
                              size_t *count_host, duo_stream stream)
{
    if (elem_size != 4 && elem_size != 8)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "elem_size = %zu: elements of 4 or 8 bytes",
                        elem_size);
    duo_status status = duo_prim_check_count(where, n, elem_size);
    if (status == DUO_SUCCESS)
        status = duo_prim_check_ptr(where, "in", in, n);
    if (status == DUO_SUCCESS)
        status = duo_prim_check_ptr(where, "flags", flags, n);
    if (status == DUO_SUCCESS)
        status = duo_prim_check_ptr(where, "out", out, n);
    if (status == DUO_SUCCESS)
        status = duo_prim_check_alias(where, "in", in, "out", out,
                                      n * elem_size, 0);
    if (status == DUO_SUCCESS && duo_prim_overlap(flags, n, out,
                                                  n * elem_size))
        status = duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                          "flags = %p and out = %p overlap; pass arrays "
                          "that do not overlap", (const void *)flags, out);
    if (status == DUO_SUCCESS)
        status = duo_prim_ready(where);
    if (status == DUO_SUCCESS)
        status = duo_capture_check_stream(where, stream);
    if (status != DUO_SUCCESS)
        return status;
    int region = duo_profile_open(where, DUO_REGION_KERNEL, stream);
    status = duo_be_compact(elem_size, n, in, flags, out, count_device,
                            count_host, stream);
    duo_profile_close(region, stream, (double)n * (double)(elem_size + 1),
                      0.0);
    return status;
}

duo_status duo_compact(size_t elem_size, size_t n, const void *in,
                       const uint8_t *flags, void *out, size_t *count)
{
    if (count == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_compact",
                        "count is NULL; pass the address of a host size_t");
    size_t got = 0;
    const duo_status status = compact_run("duo_compact", elem_size, n, in,
                                          flags, out, NULL, &got, NULL);
    if (status == DUO_SUCCESS)
        *count = got;
    return status;
}

duo_status duo_compact_async(size_t elem_size, size_t n, const void *in,
                             const uint8_t *flags, void *out,
                             uint64_t *count, duo_stream stream)
{
    if (count == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_compact_async",
                        "count is NULL; pass a device uint64_t "
                        "(duo_malloc)");
    return compact_run("duo_compact_async", elem_size, n, in, flags, out,
                       count, NULL, stream);
}
