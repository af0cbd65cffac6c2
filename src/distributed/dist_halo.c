/*
 * dist_halo.c - duo_dist_halo_exchange and its stream-ordered form:
 * checks, neighbours, then the backend's path (device.h) moves the rows.
 */
#include <stdint.h>

#include "device.h"
#include "dist_internal.h"

/* The checks both forms make; on success *up / *down are the neighbours'
 * ranks (-1: none on that side). */
static duo_status halo_check(const char *where, duo_dtype type,
                             const void *field, const duo_dist_rows *rows,
                             int *up, int *down)
{
    duo_status st = dist_require_init(where);
    const size_t esz = duo_dtype_size(type);
    if (st == DUO_SUCCESS && esz == 0)
        st = duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                      "type = %d is not a duo_dtype; use DUO_F32 or DUO_F64 "
                      "(any duo type is accepted)", (int)type);
    if (st == DUO_SUCCESS && rows == NULL)
        st = duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                      "rows is NULL; pass the decomposition from "
                      "duo_dist_rows_make");
    if (st == DUO_SUCCESS &&
        (rows->count == 0 || rows->cols == 0 || rows->begin >= rows->rows ||
         rows->count > rows->rows - rows->begin))
        st = duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                      "rows describes %zu rows from %zu of a %zu x %zu "
                      "field; expected at least one row inside it (use "
                      "duo_dist_rows_make)", rows->count, rows->begin,
                      rows->rows, rows->cols);
    if (st == DUO_SUCCESS && rows->cols > SIZE_MAX / esz / (rows->count + 2))
        st = duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                      "(count + 2) x cols elements overflow size_t");
    if (st == DUO_SUCCESS && field == NULL)
        st = duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                      "field is NULL; pass device memory of (count + 2) x "
                      "cols = %zu x %zu elements", rows->count + 2,
                      rows->cols);
    if (st != DUO_SUCCESS)
        return st;
    *up = rows->begin > 0 ? duo_dist_state.rank - 1 : -1;
    *down =
        rows->begin + rows->count < rows->rows ? duo_dist_state.rank + 1 : -1;
    if (*up >= duo_dist_state.size || *down >= duo_dist_state.size ||
        (*up < 0 && duo_dist_state.rank > 0) ||
        (*down < 0 && duo_dist_state.rank + 1 < duo_dist_state.size))
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "rows (%zu from %zu of %zu) is not this rank's block "
                        "of %d ranks; use duo_dist_rows_make", rows->count,
                        rows->begin, rows->rows, duo_dist_state.size);
    return DUO_SUCCESS;
}

/* Storage row 1 goes up and row count goes down; rows 0 and count + 1
 * come in. */
static duo_status halo_move(duo_dtype type, void *field,
                            const duo_dist_rows *rows, int up, int down,
                            duo_stream stream, int wait)
{
    const size_t row = rows->cols * duo_dtype_size(type);
    char *f = (char *)field;
    return dist_dev_halo(f + row, f, up, f + rows->count * row,
                         f + (rows->count + 1) * row, down, row, stream,
                         wait);
}

/* Both forms: with `wait` the rows are read after all work queued
 * before (every stream) and the call returns when the halos are
 * written; else the exchange is ordered on `stream`.  How much waiting
 * that takes is the path's business (device.h): NCCL queues the
 * transfer behind that work without waiting for it. */
static duo_status halo_exchange(const char *where, duo_dtype type,
                                void *field, const duo_dist_rows *rows,
                                duo_stream stream, int wait)
{
    int up = -1, down = -1;
    duo_status st = halo_check(where, type, field, rows, &up, &down);
    if (st == DUO_SUCCESS)
        st = duo_capture_refuse(where);
    if (st != DUO_SUCCESS)
        return dist_collective_failed(st);
    if (up < 0 && down < 0)
        return DUO_SUCCESS;
    st = halo_move(type, field, rows, up, down, stream, wait);
    return st == DUO_SUCCESS ? st : dist_collective_failed(st);
}

duo_status duo_dist_halo_exchange(duo_dtype type, void *field,
                                  const duo_dist_rows *rows)
{
    return halo_exchange("duo_dist_halo_exchange", type, field, rows, NULL,
                         1);
}

duo_status duo_dist_halo_exchange_async(duo_dtype type, void *field,
                                        const duo_dist_rows *rows,
                                        duo_stream stream)
{
    return halo_exchange("duo_dist_halo_exchange_async", type, field, rows,
                         stream, 0);
}
