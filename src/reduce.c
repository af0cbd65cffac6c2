/*
 * reduce.c - duo_reduce / duo_reduce_arg: argument checks shared by every
 * backend.
 */
#include <stdint.h>

#include "profile.h"
#include "validate.h"

/* Region names, by [op][type] in enum order. */
static const char *const reduce_regions[3][5] = {
    {"duo_reduce sum f32", "duo_reduce sum f64", "duo_reduce sum i32",
     "duo_reduce sum i64", "duo_reduce sum u64"},
    {"duo_reduce min f32", "duo_reduce min f64", "duo_reduce min i32",
     "duo_reduce min i64", "duo_reduce min u64"},
    {"duo_reduce max f32", "duo_reduce max f64", "duo_reduce max i32",
     "duo_reduce max i64", "duo_reduce max u64"}};
static const char *const reduce_arg_regions[3][5] = {
    {"", "", "", "", ""},
    {"duo_reduce_arg min f32", "duo_reduce_arg min f64",
     "duo_reduce_arg min i32", "duo_reduce_arg min i64",
     "duo_reduce_arg min u64"},
    {"duo_reduce_arg max f32", "duo_reduce_arg max f64",
     "duo_reduce_arg max i32", "duo_reduce_arg max i64",
     "duo_reduce_arg max u64"}};

static duo_status check(const char *where, duo_reduce_op op, duo_dtype type,
                        const void *x, size_t n, const void *out,
                        const char *out_name, const char *out_kind)
{
    if (op != DUO_SUM && op != DUO_MIN && op != DUO_MAX)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "op = %d is not a duo_reduce_op; use DUO_SUM, "
                        "DUO_MIN or DUO_MAX", (int)op);
    size_t size = duo_dtype_size(type);
    if (size == 0)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "type = %d is not a duo_dtype; use DUO_F32, DUO_F64, "
                        "DUO_I32, DUO_I64 or DUO_U64", (int)type);
    if (n > SIZE_MAX / size)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "n = %zu elements of %zu bytes overflow size_t", n,
                        size);
    if (n > 0 && x == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "x is NULL but n = %zu; pass device memory holding "
                        "n elements", n);
    if (out == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "%s is NULL; pass the address of a %s", out_name,
                        out_kind);
    if (n == 0 && op != DUO_SUM)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "n = 0: the %s of no elements is undefined; only "
                        "DUO_SUM accepts n = 0",
                        op == DUO_MIN ? "minimum" : "maximum");
    return duo_require_init(where);
}

duo_status duo_reduce(duo_reduce_op op, duo_dtype type, const void *x,
                      size_t n, void *result)
{
    duo_status status = check("duo_reduce", op, type, x, n, result,
                              "result", "host variable");
    if (status == DUO_SUCCESS)
        status = duo_capture_refuse("duo_reduce");
    if (status != DUO_SUCCESS)
        return status;
    int region = duo_profile_open(reduce_regions[op][type],
                                  DUO_REGION_REDUCE, NULL);
    status = duo_validating() ? duo_vd_reduce(op, type, x, n, result)
                               : duo_be_reduce(op, type, x, n, result);
    duo_profile_close(region, NULL, (double)(n * duo_dtype_size(type)),
                      (double)n);
    return status;
}

duo_status duo_reduce_arg(duo_reduce_op op, duo_dtype type, const void *x,
                          size_t n, size_t *index, void *value)
{
    if (op == DUO_SUM)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_reduce_arg",
                        "op = DUO_SUM has no index; use DUO_MIN or DUO_MAX");
    if (n == 0)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_reduce_arg",
                        "n = 0: an empty array has no smallest or largest "
                        "element");
    duo_status status = check("duo_reduce_arg", op, type, x, n, index,
                              "index", "host variable");
    if (status == DUO_SUCCESS)
        status = duo_capture_refuse("duo_reduce_arg");
    if (status != DUO_SUCCESS)
        return status;
    int region = duo_profile_open(reduce_arg_regions[op][type],
                                  DUO_REGION_REDUCE, NULL);
    status = duo_validating()
                 ? duo_vd_reduce_arg(op, type, x, n, index, value)
                 : duo_be_reduce_arg(op, type, x, n, index, value);
    duo_profile_close(region, NULL, (double)(n * duo_dtype_size(type)),
                      (double)n);
    return status;
}

duo_status duo_reduce_async(duo_reduce_op op, duo_dtype type, const void *x,
                            size_t n, void *result, duo_stream stream)
{
    duo_status status = check("duo_reduce_async", op, type, x, n, result,
                              "result", "device variable (duo_malloc)");
    const size_t align = op == DUO_SUM ? 8 : duo_dtype_size(type);
    if (status == DUO_SUCCESS && (uintptr_t)result % align != 0)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_reduce_async",
                        "result = %p is not aligned to its type's %zu "
                        "bytes", result, align);
    if (status == DUO_SUCCESS)
        status = duo_capture_check_stream("duo_reduce_async", stream);
    if (status != DUO_SUCCESS || duo_capture_skips_work())
        return status;
    int region = duo_profile_open(reduce_regions[op][type],
                                  DUO_REGION_REDUCE, stream);
    status = duo_validating()
                 ? duo_vd_reduce_async(op, type, x, n, result, stream)
                 : duo_be_reduce_async(op, type, x, n, result, stream);
    duo_profile_close(region, stream, (double)(n * duo_dtype_size(type)),
                      (double)n);
    return status;
}

duo_status duo_dot_async(duo_dtype type, size_t n, int count,
                         const void *const *x, const void *const *y,
                         double *result, duo_stream stream)
{
    const char *where = "duo_dot_async";
    if (type != DUO_F32 && type != DUO_F64)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "type = %d: dot products take DUO_F32 or DUO_F64",
                        (int)type);
    if (count < 1 || count > DUO_DOT_MAX)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "count = %d: expected 1 to DUO_DOT_MAX = %d dot "
                        "products", count, DUO_DOT_MAX);
    if (x == NULL || y == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "%s is NULL; pass an array of %d device pointers",
                        x == NULL ? "x" : "y", count);
    const size_t size = duo_dtype_size(type);
    if (n > SIZE_MAX / size)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "n = %zu elements of %zu bytes overflow size_t", n,
                        size);
    for (int k = 0; k < count && n > 0; ++k)
        if (x[k] == NULL || y[k] == NULL)
            return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                            "%s[%d] is NULL but n = %zu; pass device memory "
                            "holding n elements", x[k] == NULL ? "x" : "y", k,
                            n);
    if (result == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "result is NULL; pass device memory (duo_malloc) for "
                        "%d doubles", count);
    if ((uintptr_t)result % sizeof(double) != 0)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "result = %p is not aligned to 8 bytes (a double)",
                        (void *)result);
    duo_status status = duo_require_init(where);
    if (status == DUO_SUCCESS)
        status = duo_capture_check_stream(where, stream);
    if (status != DUO_SUCCESS || duo_capture_skips_work())
        return status;
    static const char *const regions[2][DUO_DOT_MAX] = {
        {"duo_dot_async f32 x1", "duo_dot_async f32 x2",
         "duo_dot_async f32 x3", "duo_dot_async f32 x4"},
        {"duo_dot_async f64 x1", "duo_dot_async f64 x2",
         "duo_dot_async f64 x3", "duo_dot_async f64 x4"}};
    int region = duo_profile_open(regions[type == DUO_F64][count - 1],
                                  DUO_REGION_REDUCE, stream);
    status = duo_validating()
                 ? duo_vd_dot_async(type, n, count, x, y, result, stream)
                 : duo_be_dot_async(type, n, count, x, y, result, stream);
    duo_profile_close(region, stream, (double)(2 * (size_t)count * n * size),
                      2.0 * (double)count * (double)n);
    return status;
}
