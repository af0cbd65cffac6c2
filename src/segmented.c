/*
 * segmented.c - duo_segmented_reduce and its forms: argument checks
 * shared by every backend (the offsets themselves are in device memory;
 * the backends check them, see duo.h), then one backend call.
 */
#include <stdint.h>

#include "profile.h"

/* Region names, by [op][type] in enum order. */
static const char *const regions[3][5] = {
    {"duo_segmented_reduce sum f32", "duo_segmented_reduce sum f64",
     "duo_segmented_reduce sum i32", "duo_segmented_reduce sum i64",
     "duo_segmented_reduce sum u64"},
    {"duo_segmented_reduce min f32", "duo_segmented_reduce min f64",
     "duo_segmented_reduce min i32", "duo_segmented_reduce min i64",
     "duo_segmented_reduce min u64"},
    {"duo_segmented_reduce max f32", "duo_segmented_reduce max f64",
     "duo_segmented_reduce max i32", "duo_segmented_reduce max i64",
     "duo_segmented_reduce max u64"}};
static const char *const arg_regions[3][5] = {
    {"", "", "", "", ""},
    {"duo_segmented_reduce_arg min f32", "duo_segmented_reduce_arg min f64",
     "duo_segmented_reduce_arg min i32", "duo_segmented_reduce_arg min i64",
     "duo_segmented_reduce_arg min u64"},
    {"duo_segmented_reduce_arg max f32", "duo_segmented_reduce_arg max f64",
     "duo_segmented_reduce_arg max i32", "duo_segmented_reduce_arg max i64",
     "duo_segmented_reduce_arg max u64"}};

/* What one call was given; offsets NULL for the _equal forms, index NULL
 * for the value forms. */
typedef struct seg_call {
    const char *where;
    duo_reduce_op op;
    duo_dtype type;
    const void *x;
    size_t n;
    const size_t *offsets;
    size_t seg_len, nseg;
    void *result;
    size_t *index;
    int equal, arg;
} seg_call;

static duo_status misaligned(const char *where, const char *name,
                             const void *p, size_t align)
{
    return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                    "%s = %p is not aligned to its type's %zu bytes", name, p,
                    align);
}

static duo_status check(seg_call *c)
{
    const char *where = c->where;
    if (c->arg ? c->op != DUO_MIN && c->op != DUO_MAX
               : c->op != DUO_SUM && c->op != DUO_MIN && c->op != DUO_MAX)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "op = %d is not %s", (int)c->op,
                        c->arg ? "DUO_MIN or DUO_MAX (an index has no sum)"
                               : "a duo_reduce_op; use DUO_SUM, DUO_MIN or "
                                 "DUO_MAX");
    const size_t size = duo_dtype_size(c->type);
    if (size == 0)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "type = %d is not a duo_dtype; use DUO_F32, DUO_F64, "
                        "DUO_I32, DUO_I64 or DUO_U64", (int)c->type);
    if (c->equal) {
        if (c->nseg != 0 && c->seg_len > SIZE_MAX / size / c->nseg)
            return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                            "seg_len = %zu times nseg = %zu elements of %zu "
                            "bytes overflow size_t", c->seg_len, c->nseg,
                            size);
        c->n = c->seg_len * c->nseg;
    } else if (c->n > SIZE_MAX / size) {
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "n = %zu elements of %zu bytes overflow size_t", c->n,
                        size);
    }
    if (c->n > 0 && c->x == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "x is NULL but holds %zu elements; pass device "
                        "memory", c->n);
    if (!c->equal) {
        if (c->nseg >= SIZE_MAX / sizeof(size_t))
            return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                            "nseg = %zu: its nseg + 1 offsets overflow "
                            "size_t", c->nseg);
        if (c->offsets == NULL)
            return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                            "offsets is NULL; pass device memory holding "
                            "nseg + 1 = %zu non-decreasing offsets",
                            c->nseg + 1);
        if ((uintptr_t)c->offsets % sizeof(size_t) != 0)
            return misaligned(where, "offsets", c->offsets, sizeof(size_t));
    }
    if (c->nseg == 0)
        return DUO_SUCCESS;
    if (c->arg) {
        if (c->index == NULL)
            return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                            "index is NULL; pass device memory for nseg = "
                            "%zu indices (size_t)", c->nseg);
        if ((uintptr_t)c->index % sizeof(size_t) != 0)
            return misaligned(where, "index", c->index, sizeof(size_t));
        if ((uintptr_t)c->result % size != 0)
            return misaligned(where, "value", c->result, size);
        return DUO_SUCCESS;
    }
    if (c->result == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "result is NULL; pass device memory for nseg = %zu "
                        "results", c->nseg);
    const size_t align = c->op == DUO_SUM ? 8 : size;
    if ((uintptr_t)c->result % align != 0)
        return misaligned(where, "result", c->result, align);
    return DUO_SUCCESS;
}

static duo_status run(seg_call *c, duo_stream stream)
{
    duo_status status = check(c);
    if (status == DUO_SUCCESS)
        status = duo_require_init(c->where);
    if (status == DUO_SUCCESS)
        status = duo_capture_check_stream(c->where, stream);
    if (status != DUO_SUCCESS || c->nseg == 0 || duo_capture_skips_work())
        return status;
    const char *name =
        c->arg ? arg_regions[c->op][c->type] : regions[c->op][c->type];
    const int region = duo_profile_open(name, DUO_REGION_REDUCE, stream);
    status = duo_be_segmented_reduce(c->op, c->type, c->x, c->n, c->offsets,
                                     c->seg_len, c->nseg, c->result,
                                     c->index, stream);
    duo_profile_close(region, stream,
                      (double)(c->n * duo_dtype_size(c->type)),
                      (double)c->n);
    return status;
}

static seg_call call_of(const char *where, duo_reduce_op op, duo_dtype type,
                        const void *x, size_t nseg, void *result,
                        size_t *index, int arg)
{
    seg_call c;
    c.where = where;
    c.op = op;
    c.type = type;
    c.x = x;
    c.n = 0;
    c.offsets = NULL;
    c.seg_len = 0;
    c.nseg = nseg;
    c.result = result;
    c.index = index;
    c.equal = 0;
    c.arg = arg;
    return c;
}

duo_status duo_segmented_reduce(duo_reduce_op op, duo_dtype type,
                                const void *x, size_t n,
                                const size_t *offsets, size_t nseg,
                                void *result, duo_stream stream)
{
    seg_call c = call_of("duo_segmented_reduce", op, type, x, nseg, result,
                         NULL, 0);
    c.n = n;
    c.offsets = offsets;
    return run(&c, stream);
}

duo_status duo_segmented_reduce_equal(duo_reduce_op op, duo_dtype type,
                                      const void *x, size_t seg_len,
                                      size_t nseg, void *result,
                                      duo_stream stream)
{
    seg_call c = call_of("duo_segmented_reduce_equal", op, type, x, nseg,
                         result, NULL, 0);
    c.equal = 1;
    c.seg_len = seg_len;
    return run(&c, stream);
}

duo_status duo_segmented_reduce_arg(duo_reduce_op op, duo_dtype type,
                                    const void *x, size_t n,
                                    const size_t *offsets, size_t nseg,
                                    size_t *index, void *value,
                                    duo_stream stream)
{
    seg_call c = call_of("duo_segmented_reduce_arg", op, type, x, nseg, value,
                         index, 1);
    c.n = n;
    c.offsets = offsets;
    return run(&c, stream);
}

duo_status duo_segmented_reduce_arg_equal(duo_reduce_op op, duo_dtype type,
                                          const void *x, size_t seg_len,
                                          size_t nseg, size_t *index,
                                          void *value, duo_stream stream)
{
    seg_call c = call_of("duo_segmented_reduce_arg_equal", op, type, x, nseg,
                         value, index, 1);
    c.equal = 1;
    c.seg_len = seg_len;
    return run(&c, stream);
}
