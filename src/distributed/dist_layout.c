/*
 * dist_layout.c - block decompositions (local arithmetic, no messages)
 * and duo_dist_range_make (a prefix sum over the ranks).
 */
#include <stdint.h>

#include "comm.h"
#include "dist_internal.h"

duo_status duo_dist_block_1d(size_t n, int parts, int part,
                             duo_dist_range *out)
{
    static const char *const where = "duo_dist_block_1d";
    if (parts < 1)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "parts = %d; expected at least 1", parts);
    if (part < 0 || part >= parts)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "part = %d; expected 0 <= part < parts = %d", part,
                        parts);
    if (out == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "out is NULL; pass the address of a duo_dist_range");
    const size_t p = (size_t)parts, i = (size_t)part;
    const size_t base = n / p, extra = n % p;
    out->n = n;
    out->count = base + (i < extra ? 1 : 0);
    out->begin = i * base + (i < extra ? i : extra);
    return DUO_SUCCESS;
}

duo_status duo_dist_grid_2d(int parts, size_t rows, size_t cols,
                            int dims[2])
{
    static const char *const where = "duo_dist_grid_2d";
    if (parts < 1)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "parts = %d; expected at least 1", parts);
    if (dims == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "dims is NULL; pass an array of 2 ints");
    /* Of the factorizations pr x pc = parts that fit, the one whose
     * blocks' sides (rows / pr, cols / pc) are closest in ratio to 1:
     * compare max(a, b) / min(a, b) as cross products, no rounding. */
    int best = 0;
    double best_ratio = 0.0;
    for (int pr = 1; pr <= parts; ++pr) {
        if (parts % pr != 0)
            continue;
        const int pc = parts / pr;
        if ((size_t)pr > rows || (size_t)pc > cols)
            continue;
        const double a = (double)rows / pr, b = (double)cols / pc;
        const double ratio = a > b ? a / b : b / a;
        if (best == 0 || ratio < best_ratio) {
            best = pr;
            best_ratio = ratio;
        }
    }
    if (best == 0)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "%d ranks cannot be arranged in a grid over %zu x "
                        "%zu elements with every block non-empty: no "
                        "factorization pr x pc = %d has pr <= %zu and pc <= "
                        "%zu; use fewer ranks", parts, rows, cols, parts,
                        rows, cols);
    dims[0] = best;
    dims[1] = parts / best;
    return DUO_SUCCESS;
}

duo_status duo_dist_block_2d(size_t rows, size_t cols, const int dims[2],
                             int part, duo_dist_range *row_block,
                             duo_dist_range *col_block)
{
    static const char *const where = "duo_dist_block_2d";
    if (dims == NULL || dims[0] < 1 || dims[1] < 1 ||
        dims[0] > INT32_MAX / dims[1])
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "dims must point to two positive ints whose product "
                        "fits an int");
    if ((size_t)dims[0] > rows || (size_t)dims[1] > cols)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "grid %d x %d over %zu x %zu elements leaves a "
                        "block empty; expected dims[0] <= rows and dims[1] "
                        "<= cols", dims[0], dims[1], rows, cols);
    if (part < 0 || part >= dims[0] * dims[1])
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "part = %d; expected 0 <= part < %d", part,
                        dims[0] * dims[1]);
    if (row_block == NULL || col_block == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "row_block and col_block must not be NULL");
    duo_dist_range r, c;
    duo_status st = duo_dist_block_1d(rows, dims[0], part / dims[1], &r);
    if (st == DUO_SUCCESS)
        st = duo_dist_block_1d(cols, dims[1], part % dims[1], &c);
    if (st != DUO_SUCCESS)
        return st;
    *row_block = r;
    *col_block = c;
    return DUO_SUCCESS;
}

duo_status duo_dist_rows_make(size_t rows, size_t cols, duo_dist_rows *out)
{
    static const char *const where = "duo_dist_rows_make";
    duo_status st = dist_require_init(where);
    if (st != DUO_SUCCESS)
        return st;
    const int size = duo_dist_state.size;
    if (out == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "out is NULL; pass the address of a duo_dist_rows");
    if (cols == 0)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "cols = 0; a field needs at least one column");
    if (rows < (size_t)size)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "%d ranks but only %zu rows: every rank needs at "
                        "least one row; run with at most %zu ranks", size,
                        rows, rows);
    if (rows > SIZE_MAX / cols)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "rows x cols = %zu x %zu overflows size_t", rows,
                        cols);
    duo_dist_range r = {0, 0, 0};
    st = duo_dist_block_1d(rows, size, duo_dist_state.rank, &r);
    if (st != DUO_SUCCESS)
        return st;
    out->rows = rows;
    out->cols = cols;
    out->begin = r.begin;
    out->count = r.count;
    return DUO_SUCCESS;
}

duo_dist_range duo_dist_rows_range(const duo_dist_rows *rows)
{
    duo_dist_range r = {0, 0, 0};
    if (rows != NULL) {
        r.n = rows->rows * rows->cols;
        r.begin = rows->begin * rows->cols;
        r.count = rows->count * rows->cols;
    }
    return r;
}

duo_status duo_dist_range_make(size_t count, duo_dist_range *out)
{
    static const char *const where = "duo_dist_range_make";
    duo_status st = dist_require_init(where);
    if (st == DUO_SUCCESS && out == NULL)
        st = duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                      "out is NULL; pass the address of a duo_dist_range");
    if (st != DUO_SUCCESS)
        return dist_collective_failed(st);
    uint64_t before = 0, total = 0;
    st = dist_comm_scan_u64(where, (uint64_t)count, &before, &total);
    if (st != DUO_SUCCESS)
        return dist_collective_failed(st);
    if (total < before || (uint64_t)(size_t)total != total)
        return dist_collective_failed(duo_fail(
            DUO_ERROR_INVALID_ARGUMENT, where,
            "the counts of all ranks add up past size_t"));
    out->n = (size_t)total;
    out->begin = (size_t)before;
    out->count = count;
    return DUO_SUCCESS;
}
