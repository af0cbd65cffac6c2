/*
 * sort.c - duo_sort and duo_sort_permutation: argument checks shared by
 * every backend (duo/primitives.h documents the order).
 */
#include "prim_check.h"
#include "profile.h"

static size_t key_size(duo_key_type type)
{
    switch (type) {
    case DUO_KEY_I32: case DUO_KEY_U32: case DUO_KEY_F32: return 4;
    case DUO_KEY_I64: case DUO_KEY_U64: case DUO_KEY_F64: return 8;
    }
    return 0;
}

static duo_status sort_run(const char *where, duo_key_type type,
                           duo_sort_order order, size_t n,
                           const void *keys_in, void *keys_out,
                           const void *values_in, void *values_out,
                           size_t value_size, int permutation,
                           duo_stream stream)
{
    const size_t ksize = key_size(type);
    if (ksize == 0)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "type = %d is not a duo_key_type; use DUO_KEY_I32, "
                        "DUO_KEY_U32, DUO_KEY_I64, DUO_KEY_U64, DUO_KEY_F32 "
                        "or DUO_KEY_F64", (int)type);
    if (order != DUO_ASCENDING && order != DUO_DESCENDING)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "order = %d is not a duo_sort_order; use "
                        "DUO_ASCENDING or DUO_DESCENDING", (int)order);
    if (!permutation && value_size != 0 && value_size != 4 &&
        value_size != 8)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "value_size = %zu: values of 4 or 8 bytes, or 0 to "
                        "sort keys alone", value_size);
    if (!permutation && value_size == 0 &&
        (values_in != NULL || values_out != NULL))
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "value_size = 0 but %s is not NULL; give the "
                        "values' size (4 or 8) or pass NULL for both",
                        values_in != NULL ? "values_in" : "values_out");
    duo_status status = duo_prim_check_count(where, n, 8);
    if (status == DUO_SUCCESS)
        status = duo_prim_check_ptr(where, "keys_in", keys_in, n);
    if (status == DUO_SUCCESS)
        status = duo_prim_check_ptr(where, "keys_out", keys_out, n);
    if (status == DUO_SUCCESS && !permutation && value_size != 0)
        status = duo_prim_check_ptr(where, "values_in", values_in, n);
    if (status == DUO_SUCCESS && value_size != 0)
        status = duo_prim_check_ptr(where,
                                    permutation ? "perm" : "values_out",
                                    values_out, n);
    if (status != DUO_SUCCESS)
        return status;
    const size_t kbytes = n * ksize, vbytes = n * value_size;
    const char *vout = permutation ? "perm" : "values_out";
    status = duo_prim_check_alias(where, "keys_in", keys_in, "keys_out",
                                  keys_out, kbytes, 1);
    if (status == DUO_SUCCESS && value_size != 0 && !permutation)
        status = duo_prim_check_alias(where, "values_in", values_in,
                                      "values_out", values_out, vbytes, 1);
    /* Keys and values never share memory. */
    const void *const keys[2] = {keys_in, keys_out};
    const void *const values[2] = {values_in, values_out};
    const char *const key_names[2] = {"keys_in", "keys_out"};
    const char *const value_names[2] = {"values_in", vout};
    for (int k = 0; k < 2 && status == DUO_SUCCESS; ++k)
        for (int v = 0; v < 2 && status == DUO_SUCCESS; ++v)
            if (duo_prim_overlap(keys[k], kbytes, values[v], vbytes))
                status = duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                                  "%s = %p and %s = %p overlap; keys and "
                                  "values must be separate arrays",
                                  key_names[k], keys[k], value_names[v],
                                  values[v]);
    if (status == DUO_SUCCESS)
        status = duo_prim_ready(where);
    if (status == DUO_SUCCESS)
        status = duo_capture_check_stream(where, stream);
    if (status != DUO_SUCCESS || n == 0)
        return status;
    int region = duo_profile_open(where, DUO_REGION_KERNEL, stream);
    status = duo_be_sort(type, order, n, keys_in, keys_out, values_in,
                         values_out, value_size, permutation, stream);
    duo_profile_close(region, stream, (double)(kbytes + vbytes) * 2, 0.0);
    return status;
}

duo_status duo_sort_async(duo_key_type type, duo_sort_order order, size_t n,
                          const void *keys_in, void *keys_out,
                          const void *values_in, void *values_out,
                          size_t value_size, duo_stream stream)
{
    return sort_run("duo_sort_async", type, order, n, keys_in, keys_out,
                    values_in, values_out, value_size, 0, stream);
}

duo_status duo_sort(duo_key_type type, duo_sort_order order, size_t n,
                    const void *keys_in, void *keys_out,
                    const void *values_in, void *values_out,
                    size_t value_size)
{
    duo_status status = sort_run("duo_sort", type, order, n, keys_in,
                                 keys_out, values_in, values_out,
                                 value_size, 0, NULL);
    return status == DUO_SUCCESS ? duo_be_stream_synchronize(NULL) : status;
}

duo_status duo_sort_permutation_async(duo_key_type type,
                                      duo_sort_order order, size_t n,
                                      const void *keys_in, void *keys_out,
                                      uint64_t *perm, duo_stream stream)
{
    return sort_run("duo_sort_permutation_async", type, order, n, keys_in,
                    keys_out, NULL, perm, 8, 1, stream);
}

duo_status duo_sort_permutation(duo_key_type type, duo_sort_order order,
                                size_t n, const void *keys_in,
                                void *keys_out, uint64_t *perm)
{
    duo_status status = sort_run("duo_sort_permutation", type, order, n,
                                 keys_in, keys_out, NULL, perm, 8, 1, NULL);
    return status == DUO_SUCCESS ? duo_be_stream_synchronize(NULL) : status;
}
