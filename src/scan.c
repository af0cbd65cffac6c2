/*
 * scan.c - duo_scan: argument checks shared by every backend.
 */
#include "prim_check.h"
#include "profile.h"

static duo_status scan_run(const char *where, duo_scan_kind kind,
                           duo_reduce_op op, duo_dtype type, const void *x,
                           void *y, size_t n, duo_stream stream)
{
    if (kind != DUO_INCLUSIVE && kind != DUO_EXCLUSIVE)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "kind = %d is not a duo_scan_kind; use "
                        "DUO_INCLUSIVE or DUO_EXCLUSIVE", (int)kind);
    if (op != DUO_SUM && op != DUO_MIN && op != DUO_MAX)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "op = %d is not a duo_reduce_op; use DUO_SUM, "
                        "DUO_MIN or DUO_MAX", (int)op);
    const size_t size = duo_dtype_size(type);
    if (size == 0)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "type = %d is not a duo_dtype; use DUO_F32, DUO_F64, "
                        "DUO_I32, DUO_I64 or DUO_U64", (int)type);
    duo_status status = duo_prim_check_count(where, n, size);
    if (status == DUO_SUCCESS)
        status = duo_prim_check_ptr(where, "x", x, n);
    if (status == DUO_SUCCESS)
        status = duo_prim_check_ptr(where, "y", y, n);
    if (status == DUO_SUCCESS)
        status = duo_prim_check_alias(where, "x", x, "y", y, n * size, 1);
    if (status == DUO_SUCCESS)
        status = duo_prim_ready(where);
    if (status == DUO_SUCCESS)
        status = duo_capture_check_stream(where, stream);
    if (status != DUO_SUCCESS || n == 0)
        return status;
    int region = duo_profile_open(where, DUO_REGION_KERNEL, stream);
    status = duo_be_scan(kind, op, type, x, y, n, stream);
    duo_profile_close(region, stream, (double)(2 * n * size), (double)n);
    return status;
}

duo_status duo_scan_async(duo_scan_kind kind, duo_reduce_op op,
                          duo_dtype type, const void *x, void *y, size_t n,
                          duo_stream stream)
{
    return scan_run("duo_scan_async", kind, op, type, x, y, n, stream);
}

duo_status duo_scan(duo_scan_kind kind, duo_reduce_op op, duo_dtype type,
                    const void *x, void *y, size_t n)
{
    duo_status status = scan_run("duo_scan", kind, op, type, x, y, n, NULL);
    return status == DUO_SUCCESS ? duo_be_stream_synchronize(NULL) : status;
}
