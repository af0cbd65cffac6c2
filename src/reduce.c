/*
 * reduce.c - duo_reduce / duo_reduce_arg: argument checks shared by every
 * backend.
 */
#include <stdint.h>

#include "profile.h"

size_t duo_dtype_size(duo_dtype type)
{
    switch (type) {
    case DUO_F32: case DUO_I32: return 4;
    case DUO_F64: case DUO_I64: case DUO_U64: return 8;
    }
    return 0;
}

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
                        const char *out_name)
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
                        "%s is NULL; pass the address of a host variable",
                        out_name);
    return duo_require_init(where);
}

duo_status duo_reduce(duo_reduce_op op, duo_dtype type, const void *x,
                      size_t n, void *result)
{
    duo_status status = check("duo_reduce", op, type, x, n, result, "result");
    if (status != DUO_SUCCESS)
        return status;
    if (n == 0 && op != DUO_SUM)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_reduce",
                        "n = 0: the %s of no elements is undefined; only "
                        "DUO_SUM accepts n = 0",
                        op == DUO_MIN ? "minimum" : "maximum");
    int region = duo_profile_open(reduce_regions[op][type],
                                  DUO_REGION_REDUCE, NULL);
    status = duo_be_reduce(op, type, x, n, result);
    duo_profile_close(region, NULL, (double)(n * duo_dtype_size(type)),
                      (double)n);
    return status;
}

duo_status duo_reduce_arg(duo_reduce_op op, duo_dtype type, const void *x,
                          size_t n, size_t *index, void *value)
{
    duo_status status =
        check("duo_reduce_arg", op, type, x, n, index, "index");
    if (status != DUO_SUCCESS)
        return status;
    if (op == DUO_SUM)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_reduce_arg",
                        "op = DUO_SUM has no index; use DUO_MIN or DUO_MAX");
    if (n == 0)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_reduce_arg",
                        "n = 0: an empty array has no smallest or largest "
                        "element");
    int region = duo_profile_open(reduce_arg_regions[op][type],
                                  DUO_REGION_REDUCE, NULL);
    status = duo_be_reduce_arg(op, type, x, n, index, value);
    duo_profile_close(region, NULL, (double)(n * duo_dtype_size(type)),
                      (double)n);
    return status;
}
