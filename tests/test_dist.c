/*
 * test_dist.c - duo/dist.h on however many ranks it is started with
 * (mpirun -np 1..4 in the MPI builds; one process otherwise).
 *
 *  - decompositions: sizes that do not divide, empty and 1-row blocks,
 *    2-D grids, and the refusals (more ranks than rows, bad parts);
 *  - halo exchange of f32/f64 fields against the rows a serial program
 *    would see, edge halos left alone;
 *  - duo_dist_reduce / _arg for every type and op, on arrays split evenly
 *    and unevenly (empty pieces, pieces inside one chunk, chunks split
 *    three ways, pieces and arrays ending on chunk boundaries or one
 *    element off them), with NaN, -0 and ties: bit for bit equal to the
 *    contract computed on one rank from duo_reduce (so equal for every
 *    rank count), to duo_reduce on the whole array when n <=
 *    DUO_DIST_CHUNK, and close to an independent long double sum;
 *  - errors: every rank making the same bad call gets the same message;
 *    ranks that disagree are all told so (return mode);
 *  - duo_dist_gather to the first and the last rank.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <duo/dist.h>
#include <duo/reduce_order.h>

#include "test_util.h"

static int rank_, size_;

/* ------------------------------------------------------------------ */

static void test_block_1d(void)
{
    static const size_t ns[] = {0, 1, 2, 3, 5, 7, 10, 97, 65537};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; ++k)
        for (int parts = 1; parts <= 7; ++parts) {
            size_t next = 0, lo = (size_t)-1, hi = 0;
            for (int p = 0; p < parts; ++p) {
                duo_dist_range r;
                memset(&r, 0x5a, sizeof r);
                CHECK_OK(duo_dist_block_1d(ns[k], parts, p, &r));
                CHECK_EQ_U64(r.n, ns[k]);
                CHECK_EQ_U64(r.begin, next);
                next = r.begin + r.count;
                lo = r.count < lo ? r.count : lo;
                hi = r.count > hi ? r.count : hi;
                /* the larger blocks come first */
                CHECK(r.count == ns[k] / parts + (p < (int)(ns[k] % parts)));
            }
            CHECK_EQ_U64(next, ns[k]);
            CHECK(hi - lo <= 1);
        }
    duo_dist_range r = {7, 7, 7};
    CHECK_STATUS(duo_dist_block_1d(10, 0, 0, &r), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "parts = 0");
    CHECK_STATUS(duo_dist_block_1d(10, 3, 3, &r), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "part = 3");
    CHECK_STATUS(duo_dist_block_1d(10, 3, -1, &r), DUO_ERROR_INVALID_ARGUMENT);
    CHECK(r.n == 7 && r.begin == 7 && r.count == 7); /* untouched */
    CHECK_STATUS(duo_dist_block_1d(10, 3, 0, NULL),
                 DUO_ERROR_INVALID_ARGUMENT);
}

static void test_grid_2d(void)
{
    for (int parts = 1; parts <= 12; ++parts) {
        static const size_t shapes[][2] = {{100, 100}, {1000, 10}, {3, 64},
                                           {13, 1}};
        for (int s = 0; s < 4; ++s) {
            const size_t rows = shapes[s][0], cols = shapes[s][1];
            int dims[2] = {-1, -1};
            duo_status st = duo_dist_grid_2d(parts, rows, cols, dims);
            /* fits iff some factorization fits */
            int fits = 0;
            for (int pr = 1; pr <= parts; ++pr)
                if (parts % pr == 0 && (size_t)pr <= rows &&
                    (size_t)(parts / pr) <= cols)
                    fits = 1;
            CHECK(st == (fits ? DUO_SUCCESS : DUO_ERROR_INVALID_ARGUMENT));
            if (!fits) {
                CHECK(dims[0] == -1 && dims[1] == -1);
                CHECK_CONTAINS(duo_last_error(), "cannot be arranged");
                continue;
            }
            CHECK(dims[0] * dims[1] == parts);
            size_t covered = 0;
            for (int p = 0; p < parts; ++p) {
                duo_dist_range rb, cb;
                CHECK_OK(duo_dist_block_2d(rows, cols, dims, p, &rb, &cb));
                CHECK(rb.count >= 1 && cb.count >= 1);
                covered += rb.count * cb.count;
            }
            CHECK_EQ_U64(covered, rows * cols);
        }
    }
    int dims[2];
    CHECK_OK(duo_dist_grid_2d(4, 100, 100, dims));
    CHECK(dims[0] == 2 && dims[1] == 2);
    CHECK_OK(duo_dist_grid_2d(4, 1000, 10, dims));
    CHECK(dims[0] == 4 && dims[1] == 1);
    const int bad[2] = {4, 1};
    duo_dist_range rb, cb;
    CHECK_STATUS(duo_dist_block_2d(3, 10, bad, 0, &rb, &cb),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "leaves a block empty");
}

static void test_rows_make(void)
{
    duo_dist_rows d;
    /* One row per rank: the smallest split allowed. */
    CHECK_OK(duo_dist_rows_make((size_t)size_, 3, &d));
    CHECK_EQ_U64(d.count, 1);
    CHECK_EQ_U64(d.begin, (size_t)rank_);
    CHECK_OK(duo_dist_rows_make(10, 4, &d));
    duo_dist_range want;
    CHECK_OK(duo_dist_block_1d(10, size_, rank_, &want));
    CHECK(d.begin == want.begin && d.count == want.count);
    duo_dist_range r = duo_dist_rows_range(&d);
    CHECK(r.n == 40 && r.begin == 4 * d.begin && r.count == 4 * d.count);
    if (size_ > 1) {
        /* More ranks than rows: refused on every rank, same message. */
        memset(&d, 0x5a, sizeof d);
        CHECK_STATUS(duo_dist_rows_make((size_t)size_ - 1, 8, &d),
                     DUO_ERROR_INVALID_ARGUMENT);
        char want_msg[96];
        snprintf(want_msg, sizeof want_msg, "%d ranks but only %d rows",
                 size_, size_ - 1);
        CHECK_CONTAINS(duo_last_error(), want_msg);
        CHECK(d.count == 0x5a5a5a5a5a5a5a5aULL); /* untouched */
    }
    CHECK_STATUS(duo_dist_rows_make(0, 8, &d), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(duo_dist_rows_make(8, 0, &d), DUO_ERROR_INVALID_ARGUMENT);
}

/* ------------------------------------------------------------------ */
/* Halo exchange                                                       */

/* Value of global (row, col): distinct, never zero, exact in f32. */
static double cell(size_t row, size_t col)
{
    return (double)(row * 1000 + col + 1) * 0.25;
}

/* How test_halo_case moves the field: */
enum halo_form {
    HALO_SYNC,         /* duo_memcpy, duo_dist_halo_exchange, duo_memcpy */
    HALO_ASYNC,        /* the same on the default stream, async forms     */
    HALO_ASYNC_STREAM, /* async copies and exchange on a stream of its own,
                          one wait at the end: the exchange must read the
                          rows after the upload and finish before the
                          download */
    HALO_SYNC_STREAM   /* the field copied in from a device copy on a
                          stream of its own, not waited for, then
                          duo_dist_halo_exchange: it must read the rows
                          after work on every stream */
};

static void test_halo_case(duo_dtype type, size_t rows, size_t cols,
                           enum halo_form form)
{
    static const char *const forms[] = {"sync", "async", "async stream",
                                        "sync after stream"};
    test_set_context("rank %d/%d halo %s %s %zu x %zu", rank_, size_,
                     forms[form], type == DUO_F32 ? "f32" : "f64", rows,
                     cols);
    duo_dist_rows d;
    if (!CHECK_OK(duo_dist_rows_make(rows, cols, &d)))
        return;
    const size_t esz = duo_dtype_size(type), len = (d.count + 2) * cols;
    unsigned char *h = (unsigned char *)test_xmalloc(len * esz);
    test_poison_bytes(h, len * esz);
    for (size_t i = 0; i < d.count; ++i)
        for (size_t j = 0; j < cols; ++j) {
            const double v = cell(d.begin + i, j);
            const size_t at = (i + 1) * cols + j;
            if (type == DUO_F32)
                ((float *)h)[at] = (float)v;
            else
                ((double *)h)[at] = v;
        }
    void *dev = test_device_alloc(len * esz);
    unsigned char *got = (unsigned char *)test_xmalloc(len * esz);
    test_poison_bytes(got, len * esz);
    if (form == HALO_SYNC) {
        test_to_device(dev, h, len * esz);
        CHECK_OK(duo_dist_halo_exchange(type, dev, &d));
        test_to_host(got, dev, len * esz);
    } else if (form == HALO_SYNC_STREAM) {
        void *copy = test_device_alloc(len * esz);
        test_to_device(copy, h, len * esz);
        duo_stream st = NULL;
        CHECK_OK(duo_stream_create(&st));
        CHECK_OK(duo_memcpy_async(dev, copy, len * esz, DUO_DEVICE_TO_DEVICE,
                                  st));
        CHECK_OK(duo_dist_halo_exchange(type, dev, &d));
        test_to_host(got, dev, len * esz);
        CHECK_OK(duo_stream_destroy(st));
        CHECK_OK(duo_free(copy));
    } else {
        duo_stream st = NULL;
        if (form == HALO_ASYNC_STREAM)
            CHECK_OK(duo_stream_create(&st));
        CHECK_OK(duo_memcpy_async(dev, h, len * esz, DUO_HOST_TO_DEVICE, st));
        CHECK_OK(duo_dist_halo_exchange_async(type, dev, &d, st));
        CHECK_OK(duo_memcpy_async(got, dev, len * esz, DUO_DEVICE_TO_HOST,
                                  st));
        CHECK_OK(duo_stream_synchronize(st));
        CHECK_OK(duo_stream_destroy(st));
    }
    /* Owned rows unchanged; halos hold the neighbours' rows, or poison
     * beyond the global edge. */
    CHECK(memcmp(got + cols * esz, h + cols * esz, d.count * cols * esz) == 0);
    for (int side = 0; side < 2; ++side) {
        const size_t at = side == 0 ? 0 : (d.count + 1) * cols;
        const int edge = side == 0 ? d.begin == 0 : d.begin + d.count == rows;
        const size_t grow = side == 0 ? d.begin - 1 : d.begin + d.count;
        for (size_t j = 0; j < cols; ++j) {
            if (edge) {
                CHECK(memcmp(got + (at + j) * esz, h + (at + j) * esz, esz) ==
                      0);
            } else if (type == DUO_F32) {
                CHECK_BITS_F32(((float *)got)[at + j], (float)cell(grow, j));
            } else {
                CHECK_BITS_F64(((double *)got)[at + j], cell(grow, j));
            }
        }
    }
    CHECK_OK(duo_free(dev));
    free(h);
    free(got);
}

typedef struct halo_capture_ctx {
    void *field;
    const duo_dist_rows *rows;
} halo_capture_ctx;

static duo_status halo_capture_body(void *ctx)
{
    const halo_capture_ctx *c = (const halo_capture_ctx *)ctx;
    return duo_dist_halo_exchange_async(DUO_F64, c->field, c->rows, NULL);
}

static void test_halo(void)
{
    const size_t sizes[][2] = {{(size_t)size_, 1}, {(size_t)size_, 5},
                               {7, 3}, {13, 257}};
    for (int form = HALO_SYNC; form <= HALO_SYNC_STREAM; ++form)
        for (int t = 0; t < 2; ++t)
            for (int s = 0; s < 4; ++s)
                if (sizes[s][0] >= (size_t)size_)
                    test_halo_case(t == 0 ? DUO_F32 : DUO_F64, sizes[s][0],
                                   sizes[s][1], (enum halo_form)form);
    test_set_context("rank %d/%d halo errors", rank_, size_);
    duo_dist_set_abort_on_error(0); /* every rank makes the same bad call */
    duo_dist_rows d;
    CHECK_OK(duo_dist_rows_make(7, 3, &d));
    CHECK_STATUS(duo_dist_halo_exchange(DUO_F64, NULL, &d),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "field is NULL");
    CHECK_STATUS(duo_dist_halo_exchange((duo_dtype)9, &d, &d),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(duo_dist_halo_exchange(DUO_F64, &d, NULL),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(duo_dist_halo_exchange_async(DUO_F64, NULL, &d, NULL),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "duo_dist_halo_exchange_async");
    CHECK_CONTAINS(duo_last_error(), "field is NULL");
    CHECK_STATUS(duo_dist_halo_exchange_async((duo_dtype)9, &d, &d, NULL),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(duo_dist_halo_exchange_async(DUO_F64, &d, NULL, NULL),
                 DUO_ERROR_INVALID_ARGUMENT);
    /* Not inside a graph: the capture fails with the exchange's status
     * and hands back no graph. */
    void *field = test_device_alloc((d.count + 2) * 3 * sizeof(double));
    halo_capture_ctx ctx = {field, &d};
    duo_graph g = NULL;
    CHECK_STATUS(duo_graph_capture(NULL, halo_capture_body, &ctx, &g),
                 DUO_ERROR_NOT_CAPTURABLE);
    CHECK_CONTAINS(duo_last_error(), "duo_dist_halo_exchange_async");
    CHECK(g == NULL);
    CHECK_OK(duo_free(field));
    duo_dist_set_abort_on_error(1);
}

/* ------------------------------------------------------------------ */
/* Reductions                                                          */

/* The global array, the same on every rank: random values over a wide
 * range of magnitudes, with special values planted by `flavour`:
 *   0 plain;  1 NaN at 2/3 and 5/6 of the array (first one wins);
 *   2 zeros of both signs only;  3 ties: the extreme value at several
 *   places, the first one late;  4 -0 everywhere (duo's sum is +0: its
 *   fold meets the identity +0, min and max are -0). */
static void make_array(duo_dtype type, size_t n, int flavour, uint64_t seed,
                       void *out)
{
    test_rng rng;
    test_rng_seed(&rng, seed);
    for (size_t i = 0; i < n; ++i) {
        double v = test_rng_wide(&rng, -20, 20);
        uint64_t u = test_rng_u64(&rng);
        if (flavour == 2 || flavour == 4) {
            v = flavour == 4 || (u & 1) ? -0.0 : 0.0;
            u = 0;
        }
        switch (type) {
        case DUO_F32: ((float *)out)[i] = (float)v; break;
        case DUO_F64: ((double *)out)[i] = v; break;
        case DUO_I32: ((int32_t *)out)[i] = (int32_t)(uint32_t)u; break;
        case DUO_I64: ((int64_t *)out)[i] = (int64_t)u; break;
        case DUO_U64: ((uint64_t *)out)[i] = u; break;
        }
    }
    if (flavour == 1 && n >= 6 && (type == DUO_F32 || type == DUO_F64)) {
        const size_t at[2] = {2 * n / 3, 5 * n / 6};
        for (int k = 0; k < 2; ++k) {
            if (type == DUO_F32)
                ((float *)out)[at[k]] = test_nan_f32();
            else
                ((double *)out)[at[k]] = test_nan_f64();
        }
    }
    if (flavour == 3 && n >= 4) {
        const size_t at[3] = {n - 2, n - 1, n / 2 + 1};
        for (int k = 0; k < 3; ++k)
            switch (type) {
            case DUO_F32: ((float *)out)[at[k]] = -1e30f; break;
            case DUO_F64: ((double *)out)[at[k]] = -1e300; break;
            case DUO_I32: ((int32_t *)out)[at[k]] = INT32_MIN; break;
            case DUO_I64: ((int64_t *)out)[at[k]] = INT64_MIN; break;
            case DUO_U64: ((uint64_t *)out)[at[k]] = 0; break;
            }
    }
}

#define IS_NAN(v) test_isnan_f64((double)(v))
#define NO_NAN(v) 0

/* The contract, computed on this rank alone with duo_reduce on each
 * global chunk of a device copy of the whole array. */
static double pairwise(const double *v, size_t lo, size_t hi)
{
    if (hi - lo == 1)
        return v[lo];
    const size_t mid = lo + (hi - lo + 1) / 2;
    return pairwise(v, lo, mid) + pairwise(v, mid, hi);
}

static void contract_reduce(duo_reduce_op op, duo_dtype type,
                            const void *dev_all, size_t n, void *out)
{
    const size_t esz = duo_dtype_size(type);
    const size_t chunks = (n + DUO_DIST_CHUNK - 1) / DUO_DIST_CHUNK;
    if (n == 0) {
        memset(out, 0, 8);
        return;
    }
    double *part = (double *)test_xmalloc(chunks * sizeof(double));
    uint64_t acc_u = 0;
    unsigned char acc[8];
    for (size_t c = 0; c < chunks; ++c) {
        const size_t len =
            c + 1 < chunks ? DUO_DIST_CHUNK : n - c * DUO_DIST_CHUNK;
        unsigned char r[8];
        CHECK_OK(duo_reduce(op, type,
                            (const char *)dev_all + c * DUO_DIST_CHUNK * esz,
                            len, r));
        if (op == DUO_SUM && (type == DUO_F32 || type == DUO_F64)) {
            memcpy(&part[c], r, 8);
        } else if (op == DUO_SUM) {
            uint64_t w;
            memcpy(&w, r, 8);
            acc_u += w;
        } else if (c == 0) {
            memcpy(acc, r, 8);
        } else {
/* duo's combine: the later value if smaller (larger) or NaN. */
#define FOLD_T(T, NAN_OF)                                                  \
    do {                                                                   \
        T a, b;                                                            \
        memcpy(&a, acc, sizeof a);                                         \
        memcpy(&b, r, sizeof b);                                           \
        if ((op == DUO_MIN ? b < a : b > a) || NAN_OF(b))                  \
            a = b;                                                         \
        memcpy(acc, &a, sizeof a);                                         \
    } while (0)
            switch (type) {
            case DUO_F32: FOLD_T(float, IS_NAN); break;
            case DUO_F64: FOLD_T(double, IS_NAN); break;
            case DUO_I32: FOLD_T(int32_t, NO_NAN); break;
            case DUO_I64: FOLD_T(int64_t, NO_NAN); break;
            case DUO_U64: FOLD_T(uint64_t, NO_NAN); break;
            }
#undef FOLD_T
        }
    }
    if (op == DUO_SUM && (type == DUO_F32 || type == DUO_F64)) {
        const double s = pairwise(part, 0, chunks);
        memcpy(out, &s, 8);
    } else if (op == DUO_SUM) {
        memcpy(out, &acc_u, 8);
    } else {
        memcpy(out, acc, esz);
    }
    free(part);
}

/* Index of the first smallest / largest element, or the first NaN: a
 * plain host loop. */
static size_t host_arg(duo_reduce_op op, duo_dtype type, const void *x,
                       size_t n)
{
    size_t best = 0;
    for (size_t i = 1; i < n; ++i) {
        int better = 0;
#define ARG_T(T, NAN_OF)                                                   \
    do {                                                                   \
        const T a = ((const T *)x)[i], b = ((const T *)x)[best];           \
        better = NAN_OF(a) ? !NAN_OF(b) : (op == DUO_MIN ? a < b : a > b); \
    } while (0)
        switch (type) {
        case DUO_F32: ARG_T(float, IS_NAN); break;
        case DUO_F64: ARG_T(double, IS_NAN); break;
        case DUO_I32: ARG_T(int32_t, NO_NAN); break;
        case DUO_I64: ARG_T(int64_t, NO_NAN); break;
        case DUO_U64: ARG_T(uint64_t, NO_NAN); break;
        }
#undef ARG_T
        if (better)
            best = i;
    }
    return best;
}

static const char *type_name(duo_dtype t)
{
    static const char *const names[] = {"f32", "f64", "i32", "i64", "u64"};
    return names[t];
}

/* Compare 8-byte results bit for bit, but any NaN equals any NaN (the
 * payload of a NaN is not part of duo_reduce's contract either). */
static int same_result(duo_reduce_op op, duo_dtype type, const void *a,
                       const void *b)
{
    const size_t size = op == DUO_SUM ? 8 : duo_dtype_size(type);
    if (type == DUO_F32 && op != DUO_SUM) {
        float x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        if (x != x && y != y)
            return 1;
    } else if (type == DUO_F32 || type == DUO_F64) {
        double x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (x != x && y != y)
            return 1;
    }
    return memcmp(a, b, size) == 0;
}

/* Where split() mode 2 starts rank q's piece: one element before, at or
 * one element after (by q % 3) a chunk boundary, the chunks dealt out
 * evenly; clipped to n. */
static size_t near_boundary(size_t n, int q)
{
    if (q == 0)
        return 0;
    const size_t chunks = (n + DUO_DIST_CHUNK - 1) / DUO_DIST_CHUNK;
    const size_t per = (chunks + (size_t)size_ - 1) / (size_t)size_;
    const size_t at = (size_t)q * per * DUO_DIST_CHUNK + (size_t)(q % 3);
    return at < 1 ? 0 : at - 1 > n ? n : at - 1;
}

/* This rank's piece under split `how`: 0 even blocks; 1 uneven, rank r
 * getting a share growing with r, rank 0 nothing when size > 1 (so
 * pieces are empty, inside one chunk, or spanning several); 2 pieces
 * that begin and end on chunk boundaries or one element off them
 * (near_boundary). */
static duo_dist_range split(size_t n, int how)
{
    duo_dist_range r;
    if (how == 0) {
        CHECK_OK(duo_dist_block_1d(n, size_, rank_, &r));
        return r;
    }
    if (how == 2) {
        const size_t begin = near_boundary(n, rank_);
        const size_t end =
            rank_ + 1 == size_ ? n : near_boundary(n, rank_ + 1);
        CHECK_OK(duo_dist_range_make(end - begin, &r));
        CHECK_EQ_U64(r.n, n);
        CHECK_EQ_U64(r.begin, begin);
        return r;
    }
    size_t weight_all = 0, before = 0;
    for (int q = 0; q < size_; ++q) {
        const size_t w = size_ > 1 ? (size_t)(q * q) : 1;
        if (q < rank_)
            before += w;
        weight_all += w;
    }
    const size_t w = size_ > 1 ? (size_t)(rank_ * rank_) : 1;
    const size_t begin = n / weight_all * before;
    size_t count = n / weight_all * w;
    if (rank_ + 1 == size_)
        count = n - begin; /* the remainder goes last */
    CHECK_OK(duo_dist_range_make(count, &r));
    CHECK_EQ_U64(r.n, n);
    CHECK_EQ_U64(r.begin, begin);
    return r;
}

static void test_reduce_case(duo_dtype type, size_t n, int flavour, int how,
                             uint64_t seed)
{
    const size_t esz = duo_dtype_size(type);
    test_set_context("rank %d/%d reduce %s n=%zu flavour %d split %d",
                     rank_, size_, type_name(type), n, flavour, how);
    void *host = test_xmalloc(n * esz + 8);
    make_array(type, n, flavour, seed, host);
    const duo_dist_range r = split(n, how);
    void *dev_all = n ? test_device_alloc(n * esz) : NULL;
    void *dev_mine = r.count ? test_device_alloc(r.count * esz) : NULL;
    if (n)
        test_to_device(dev_all, host, n * esz);
    if (r.count)
        test_to_device(dev_mine, (char *)host + r.begin * esz, r.count * esz);

    for (int o = 0; o < 3; ++o) {
        const duo_reduce_op op = (duo_reduce_op)o;
        if (n == 0 && op != DUO_SUM)
            continue;
        uint64_t got = TEST_POISON_U64, want = 0;
        if (!CHECK_OK(duo_dist_reduce(op, type, dev_mine, &r, &got)))
            continue;
        contract_reduce(op, type, dev_all, n, &want);
        CHECK_MSG(same_result(op, type, &got, &want),
                  "op %d: got 0x%016llx, contract 0x%016llx", o,
                  (unsigned long long)got, (unsigned long long)want);
        if (n > 0 && n <= DUO_DIST_CHUNK) {
            uint64_t whole = 0;
            CHECK_OK(duo_reduce(op, type, dev_all, n, &whole));
            CHECK_MSG(same_result(op, type, &got, &whole),
                      "op %d: got 0x%016llx, duo_reduce 0x%016llx", o,
                      (unsigned long long)got, (unsigned long long)whole);
        }
        /* An independent check that it is the sum at all. */
        if (op == DUO_SUM && (type == DUO_F32 || type == DUO_F64) &&
            flavour != 1) {
            long double s = 0, a = 0;
            for (size_t i = 0; i < n; ++i) {
                const double v = type == DUO_F32 ? ((float *)host)[i]
                                                 : ((double *)host)[i];
                s += v;
                a += fabs(v);
            }
            double d;
            memcpy(&d, &got, 8);
            CHECK_NEAR(d, (double)s, (double)n * 2.3e-16 * (double)a);
        }
        if (op != DUO_SUM && n > 0) {
            size_t idx = TEST_POISON_SIZE;
            uint64_t val = TEST_POISON_U64, vwant = 0;
            if (!CHECK_OK(duo_dist_reduce_arg(op, type, dev_mine, &r, &idx,
                                              &val)))
                continue;
            const size_t iw = host_arg(op, type, host, n);
            CHECK_EQ_U64(idx, iw);
            memcpy(&vwant, (char *)host + iw * esz, esz);
            uint64_t vmask = 0;
            memcpy(&vmask, &val, esz);
            CHECK_MSG(same_result(op, type, &vmask, &vwant),
                      "arg value 0x%llx, want 0x%llx",
                      (unsigned long long)vmask, (unsigned long long)vwant);
            size_t idx_whole = 0;
            CHECK_OK(duo_reduce_arg(op, type, dev_all, n, &idx_whole, NULL));
            CHECK_EQ_U64(idx, idx_whole);
            size_t idx2 = TEST_POISON_SIZE;
            CHECK_OK(duo_dist_reduce_arg(op, type, dev_mine, &r, &idx2,
                                         NULL));
            CHECK_EQ_U64(idx2, iw);
        }
    }
    if (dev_all)
        CHECK_OK(duo_free(dev_all));
    if (dev_mine)
        CHECK_OK(duo_free(dev_mine));
    free(host);
}

/* The chunks' bits where they meet: the whole array and each rank's
 * piece one element either side of chunk boundaries, last chunks of 1
 * element, of the lengths where duo_reduce's one-block kernel takes over
 * (4096 f32 or 2048 f64 elements and below, backend_cuda/reduce.cu), and
 * of a whole chunk; every op and split.  Floating-point sums are the
 * results whose bits depend on the order; the integer types (sums wrap,
 * min and max pick) check on two lengths that their results travel
 * whole. */
static void test_reduce_chunk_edges(uint64_t *seed)
{
    const size_t C = DUO_DIST_CHUNK;
    const size_t ns[] = {C + 1,        2 * C + 4097, C - 1,     2 * C - 1,
                         2 * C,        2 * C + 1,    3 * C - 1, 3 * C + 1,
                         C + 2048,     C + 2049,     2 * C + 4096, 4 * C};
    for (int t = 0; t < 5; ++t)
        for (size_t k = 0; k < (t < 2 ? sizeof ns / sizeof ns[0] : 2); ++k)
            for (int how = 0; how < 3; ++how)
                test_reduce_case((duo_dtype)t, ns[k], how == 1 ? 3 : 0, how,
                                 ++*seed);
}

static void test_reduce(void)
{
    static const size_t ns[] = {0,     1,     2,     3,     7,
                                8,     9,     1000,  65536, 65537,
                                200003};
    uint64_t seed = 100;
    for (int t = 0; t < 5; ++t)
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; ++k)
            for (int how = 0; how < 2; ++how)
                test_reduce_case((duo_dtype)t, ns[k], 0, how, ++seed);
    /* Special values, f32 and f64, across chunk and rank boundaries; all
     * -0 also inline (n <= DUO_DIST_INLINE) with one element per rank. */
    static const size_t special[] = {6, 8, 9, 5000, 3 * 65536 + 17};
    for (int t = 0; t < 2; ++t) {
        for (size_t k = 0; k < sizeof special / sizeof special[0]; ++k)
            for (int flavour = 1; flavour <= 4; ++flavour)
                test_reduce_case((duo_dtype)t, special[k], flavour, 1,
                                 ++seed);
        for (size_t n = 1; n <= 3; ++n)
            for (int how = 0; how < 2; ++how)
                test_reduce_case((duo_dtype)t, n, 4, how, ++seed);
    }
    for (int t = 2; t < 5; ++t)
        test_reduce_case((duo_dtype)t, 3 * 65536 + 17, 3, 0, ++seed);
    test_reduce_chunk_edges(&seed);
}

/* duo_graph_capture's body for the capture refusal below: one reduce. */
typedef struct reduce_capture_ctx {
    const double *x;
    const duo_dist_range *range;
    double *out;
} reduce_capture_ctx;

static duo_status reduce_capture_body(void *ctx)
{
    const reduce_capture_ctx *c = (const reduce_capture_ctx *)ctx;
    return duo_dist_reduce(DUO_SUM, DUO_F64, c->x, c->range, c->out);
}

/* Every rank makes the same bad call, or ranks disagree: each gets the
 * status and a message, nobody waits (abort mode off). */
static void test_reduce_errors(void)
{
    test_set_context("rank %d/%d reduce errors", rank_, size_);
    duo_dist_set_abort_on_error(0);
    duo_dist_range r;
    CHECK_OK(duo_dist_block_1d(100, size_, rank_, &r));
    double *dev = (double *)test_device_alloc(100 * sizeof(double));
    double out = 42.0;
    size_t idx = 42;
    CHECK_STATUS(duo_dist_reduce(DUO_SUM, DUO_F64, dev, NULL, &out),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "range is NULL");
    CHECK_STATUS(duo_dist_reduce((duo_reduce_op)7, DUO_F64, dev, &r, &out),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "op = 7");
    CHECK_STATUS(duo_dist_reduce(DUO_SUM, (duo_dtype)9, dev, &r, &out),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(duo_dist_reduce(DUO_SUM, DUO_F64, dev, &r, NULL),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "result is NULL");
    duo_dist_range outside = r;
    outside.begin = 99;
    outside.count = 2;
    CHECK_STATUS(duo_dist_reduce(DUO_SUM, DUO_F64, dev, &outside, &out),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "outside the array");
    CHECK_STATUS(duo_dist_reduce_arg(DUO_SUM, DUO_F64, dev, &r, &idx, NULL),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "no index");
    duo_dist_range empty = {0, 0, 0};
    CHECK_STATUS(duo_dist_reduce(DUO_MIN, DUO_F64, dev, &empty, &out),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "n = 0");
    CHECK(out == 42.0 && idx == 42);
    /* Not inside a graph (MPI calls cannot be captured): refused on every
     * rank before any message, on ranks holding no element too (n = 1),
     * which would otherwise wait for the others. */
    duo_dist_range one;
    CHECK_OK(duo_dist_block_1d(1, size_, rank_, &one));
    reduce_capture_ctx cc = {dev, &one, &out};
    duo_graph g = NULL;
    CHECK_STATUS(duo_graph_capture(NULL, reduce_capture_body, &cc, &g),
                 DUO_ERROR_NOT_CAPTURABLE);
    CHECK_CONTAINS(duo_last_error(), "duo_dist_reduce");
    CHECK(g == NULL && out == 42.0);
    if (size_ > 1) {
        /* Collective disagreements, seen by every rank. */
        CHECK_STATUS(duo_dist_reduce(rank_ == 1 ? DUO_MAX : DUO_MIN, DUO_F64,
                                     dev, &r, &out),
                     DUO_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS(duo_last_error(), "ranks disagree");
        duo_dist_range longer = r;
        if (rank_ == size_ - 1)
            longer.n = 101;
        CHECK_STATUS(duo_dist_reduce(DUO_SUM, DUO_F64, dev, &longer, &out),
                     DUO_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS(duo_last_error(), "length");
        /* The same with one element per rank, an array small enough to
         * travel inside the first message. */
        duo_dist_range small;
        CHECK_OK(duo_dist_block_1d((size_t)size_, size_, rank_, &small));
        if (rank_ == size_ - 1)
            small.n += 1;
        CHECK_STATUS(duo_dist_reduce(DUO_SUM, DUO_F64, dev, &small, &out),
                     DUO_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS(duo_last_error(), "length");
        /* Rank 1 holds one element less: a gap after it. */
        duo_dist_range gap = r;
        if (rank_ == 1)
            gap.count -= 1;
        CHECK_STATUS(duo_dist_reduce(DUO_SUM, DUO_F64, dev, &gap, &out),
                     DUO_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS(duo_last_error(), "pieces");
        CHECK(out == 42.0);
        /* A checked layout is kept for the next call (dist_pieces.c):
         * pieces that then change on one rank only are checked again,
         * refused where they leave a gap, and reduced as they are where
         * a boundary moved.  Every rank holds 1, 2, ..., 100. */
        double h[100];
        for (int i = 0; i < 100; ++i)
            h[i] = (double)(i + 1);
        CHECK_OK(duo_memcpy(dev, h, sizeof h, DUO_HOST_TO_DEVICE));
        CHECK_OK(duo_dist_reduce(DUO_SUM, DUO_F64, dev + r.begin, &r, &out));
        CHECK(out == 5050.0);
        out = 42.0;
        CHECK_STATUS(duo_dist_reduce(DUO_SUM, DUO_F64, dev + gap.begin, &gap,
                                     &out),
                     DUO_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS(duo_last_error(), "pieces");
        CHECK(out == 42.0);
        CHECK_OK(duo_dist_reduce(DUO_SUM, DUO_F64, dev + r.begin, &r, &out));
        CHECK(out == 5050.0);
        duo_dist_range moved = r; /* rank 0's piece one element longer */
        if (rank_ == 0)
            moved.count += 1;
        if (rank_ == 1) {
            moved.begin += 1;
            moved.count -= 1;
        }
        double top = 0.0;
        for (int k = 0; k < 2; ++k) {
            out = 42.0;
            CHECK_OK(duo_dist_reduce(DUO_SUM, DUO_F64, dev + moved.begin,
                                     &moved, &out));
            CHECK(out == 5050.0);
            CHECK_OK(duo_dist_reduce_arg(DUO_MIN, DUO_F64, dev + moved.begin,
                                         &moved, &idx, &top));
            CHECK(idx == 0 && top == 1.0);
        }
        CHECK_OK(duo_dist_reduce(DUO_SUM, DUO_F64, dev + r.begin, &r, &out));
        CHECK(out == 5050.0);
    }
    CHECK_OK(duo_free(dev));
    duo_dist_set_abort_on_error(1);
}

/* duo_dist_dot against duo_dot_async on the whole arrays (every rank
 * holds a copy): the same bits, for any split; and against a long double
 * sum within the bound of a sum of n rounded products. */
static void test_dot_case(duo_dtype type, size_t n, int how, uint64_t seed)
{
    const size_t esz = duo_dtype_size(type);
    test_set_context("rank %d/%d dot %s n=%zu split %d", rank_, size_,
                     type_name(type), n, how);
    unsigned char *hx = (unsigned char *)test_xmalloc(n * esz + 8);
    unsigned char *hy = (unsigned char *)test_xmalloc(n * esz + 8);
    make_array(type, n, 0, seed, hx);
    make_array(type, n, 0, seed + 1000, hy);
    const duo_dist_range r = split(n, how);
    void *xall = n ? test_device_alloc(n * esz) : NULL;
    void *yall = n ? test_device_alloc(n * esz) : NULL;
    void *xm = r.count ? test_device_alloc(r.count * esz) : NULL;
    void *ym = r.count ? test_device_alloc(r.count * esz) : NULL;
    double *dres = (double *)test_device_alloc(sizeof(double));
    if (n) {
        test_to_device(xall, hx, n * esz);
        test_to_device(yall, hy, n * esz);
    }
    if (r.count) {
        test_to_device(xm, hx + r.begin * esz, r.count * esz);
        test_to_device(ym, hy + r.begin * esz, r.count * esz);
    }
    const void *xs[1] = {xall}, *ys[1] = {yall};
    double want = 0.0, got = test_nan_f64();
    CHECK_OK(duo_dot_async(type, n, 1, xs, ys, dres, NULL));
    CHECK_OK(duo_memcpy(&want, dres, sizeof want, DUO_DEVICE_TO_HOST));
    if (CHECK_OK(duo_dist_dot(type, xm, ym, &r, &got))) {
        CHECK_BITS_F64(got, want);
        long double s = 0, a = 0;
        for (size_t i = 0; i < n; ++i) {
            const double xi = type == DUO_F32 ? ((float *)hx)[i]
                                              : ((double *)hx)[i];
            const double yi = type == DUO_F32 ? ((float *)hy)[i]
                                              : ((double *)hy)[i];
            s += (long double)xi * yi;
            a += fabsl((long double)xi * yi);
        }
        /* n - 1 additions and a product each: gamma_n sum |x_i y_i|. */
        CHECK_NEAR(got, (double)s, ((double)n + 1) * 1.12e-16 * (double)a);
    }
    if (xall) {
        CHECK_OK(duo_free(xall));
        CHECK_OK(duo_free(yall));
    }
    if (xm) {
        CHECK_OK(duo_free(xm));
        CHECK_OK(duo_free(ym));
    }
    CHECK_OK(duo_free(dres));
    free(hx);
    free(hy);
}

static void test_dot(void)
{
    /* f64 chunks hold 512 elements (1024 from n = 2^20 on, 2048 from
     * 2^21), f32 chunks 1024 (2048 from 2^21). */
    static const size_t ns[] = {0,    1,    2,    3,      511,   512,
                                513,  1000, 1024, 4099,   65537, 262144,
                                262147};
    uint64_t seed = 500;
    for (int t = 0; t < 2; ++t)
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; ++k)
            for (int how = 0; how < 2; ++how)
                test_dot_case((duo_dtype)t, ns[k], how, ++seed);
    test_dot_case(DUO_F64, (size_t)1 << 20 | 3, 1, ++seed);
    test_dot_case(DUO_F64, ((size_t)1 << 21) + 7, 0, ++seed);
    test_dot_case(DUO_F32, ((size_t)1 << 21) + 5, 1, ++seed);

    /* Errors: every rank the same bad call, or ranks that disagree. */
    test_set_context("rank %d/%d dot errors", rank_, size_);
    duo_dist_set_abort_on_error(0);
    duo_dist_range r;
    CHECK_OK(duo_dist_block_1d(100, size_, rank_, &r));
    double *dev = (double *)test_device_alloc(100 * sizeof(double));
    double out = 42.0;
    CHECK_STATUS(duo_dist_dot(DUO_I32, dev, dev, &r, &out),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "DUO_F32 or DUO_F64");
    CHECK_STATUS(duo_dist_dot(DUO_F64, dev, dev, NULL, &out),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "range is NULL");
    CHECK_STATUS(duo_dist_dot(DUO_F64, dev, NULL, &r, &out),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "y is NULL");
    CHECK_STATUS(duo_dist_dot(DUO_F64, dev, dev, &r, NULL),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "result is NULL");
    if (size_ > 1) {
        duo_dist_range longer = r;
        if (rank_ == size_ - 1)
            longer.n = 101;
        CHECK_STATUS(duo_dist_dot(DUO_F64, dev, dev, &longer, &out),
                     DUO_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS(duo_last_error(), "length");
        duo_dist_range gap = r;
        if (rank_ == 1)
            gap.count -= 1;
        CHECK_STATUS(duo_dist_dot(DUO_F64, dev, dev, &gap, &out),
                     DUO_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS(duo_last_error(), "pieces");
        CHECK_STATUS(duo_dist_dot(rank_ == 1 ? DUO_F32 : DUO_F64, dev, dev,
                                  &r, &out),
                     DUO_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS(duo_last_error(), "ranks disagree");
    }
    CHECK(out == 42.0);
    CHECK_OK(duo_free(dev));
    duo_dist_set_abort_on_error(1);
}

/* duo_dist_dots (count pairs in one exchange) against duo_dot_async
 * with the same count on the whole arrays, bit for bit, for any split;
 * the pairs share arrays the way solvers do (t.s with t.t, a norm). */
static void test_dots_case(duo_dtype type, size_t n, int count, int how,
                           uint64_t seed)
{
    const size_t esz = duo_dtype_size(type);
    test_set_context("rank %d/%d dots %s n=%zu count %d split %d", rank_,
                     size_, type_name(type), n, count, how);
    enum { ARRAYS = 3 };
    unsigned char *h[ARRAYS];
    void *all[ARRAYS], *mine[ARRAYS];
    const duo_dist_range r = split(n, how);
    for (int a = 0; a < ARRAYS; ++a) {
        h[a] = (unsigned char *)test_xmalloc(n * esz + 8);
        make_array(type, n, 0, seed + 1000 * (uint64_t)a, h[a]);
        all[a] = n ? test_device_alloc(n * esz) : NULL;
        mine[a] = r.count ? test_device_alloc(r.count * esz) : NULL;
        if (n)
            test_to_device(all[a], h[a], n * esz);
        if (r.count)
            test_to_device(mine[a], h[a] + r.begin * esz, r.count * esz);
    }
    /* Pairs (0,1), (2,2), (1,2), (0,0): distinct arrays, a norm, shared
     * arrays. */
    static const int px[DUO_DOT_MAX] = {0, 2, 1, 0};
    static const int py[DUO_DOT_MAX] = {1, 2, 2, 0};
    const void *xs[DUO_DOT_MAX], *ys[DUO_DOT_MAX];
    const void *xm[DUO_DOT_MAX], *ym[DUO_DOT_MAX];
    for (int k = 0; k < count; ++k) {
        xs[k] = all[px[k]];
        ys[k] = all[py[k]];
        xm[k] = mine[px[k]];
        ym[k] = mine[py[k]];
    }
    double *dres = (double *)test_device_alloc(DUO_DOT_MAX * sizeof(double));
    double want[DUO_DOT_MAX], got[DUO_DOT_MAX + 1];
    for (int k = 0; k <= count; ++k)
        got[k] = test_nan_f64();
    const double poison = got[count];
    CHECK_OK(duo_dot_async(type, n, count, xs, ys, dres, NULL));
    CHECK_OK(duo_memcpy(want, dres, (size_t)count * sizeof(double),
                        DUO_DEVICE_TO_HOST));
    if (CHECK_OK(duo_dist_dots(type, count, xm, ym, &r, got))) {
        for (int k = 0; k < count; ++k) {
            CHECK_BITS_F64(got[k], want[k]);
            /* ... and each is duo_dist_dot's on its pair. */
            double one = test_nan_f64();
            if (CHECK_OK(duo_dist_dot(type, xm[k], ym[k], &r, &one)))
                CHECK_BITS_F64(one, want[k]);
        }
        CHECK_BITS_F64(got[count], poison); /* nothing past count */
    }
    for (int a = 0; a < ARRAYS; ++a) {
        if (all[a])
            CHECK_OK(duo_free(all[a]));
        if (mine[a])
            CHECK_OK(duo_free(mine[a]));
        free(h[a]);
    }
    CHECK_OK(duo_free(dres));
}

static void test_dots(void)
{
    static const size_t ns[] = {0, 1, 3, 511, 513, 1000, 4099, 65537};
    uint64_t seed = 900;
    for (int t = 0; t < 2; ++t)
        for (size_t i = 0; i < sizeof ns / sizeof ns[0]; ++i)
            for (int count = 1; count <= DUO_DOT_MAX; ++count)
                test_dots_case((duo_dtype)t, ns[i], count, (int)(i + count) & 1,
                               ++seed);
    test_dots_case(DUO_F64, (size_t)1 << 20 | 3, 2, 1, ++seed);

    test_set_context("rank %d/%d dots errors", rank_, size_);
    duo_dist_set_abort_on_error(0);
    duo_dist_range r;
    CHECK_OK(duo_dist_block_1d(100, size_, rank_, &r));
    double *dev = (double *)test_device_alloc(100 * sizeof(double));
    const void *xs[2] = {dev, dev}, *bad[2] = {dev, NULL};
    double out[2] = {42.0, 43.0};
    CHECK_STATUS(duo_dist_dots(DUO_F64, 0, xs, xs, &r, out),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "count = 0");
    CHECK_STATUS(duo_dist_dots(DUO_F64, DUO_DOT_MAX + 1, xs, xs, &r, out),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "DUO_DOT_MAX");
    CHECK_STATUS(duo_dist_dots(DUO_F64, 2, NULL, xs, &r, out),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "x is NULL");
    if (r.count > 0) {
        /* Every rank holds elements of 100 when size_ <= 4. */
        CHECK_STATUS(duo_dist_dots(DUO_F64, 2, xs, bad, &r, out),
                     DUO_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS(duo_last_error(), "y[1] is NULL");
    }
    CHECK_STATUS(duo_dist_dots(DUO_F64, 2, xs, xs, &r, NULL),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "result is NULL");
    if (size_ > 1) {
        CHECK_STATUS(duo_dist_dots(DUO_F64, rank_ == 1 ? 1 : 2, xs, xs, &r,
                                   out),
                     DUO_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS(duo_last_error(), "ranks disagree");
    }
    CHECK(out[0] == 42.0 && out[1] == 43.0);
    CHECK_OK(duo_free(dev));
    duo_dist_set_abort_on_error(1);
}

/* This rank's piece of n elements when every piece begins on a chunk
 * boundary of duo's dot-product order for `type` (the chunks dealt out
 * evenly, the last piece taking the rest): the pieces
 * duo_dist_dots_async serves without a host wait where it can. */
static duo_dist_range split_dot_chunks(duo_dtype type, size_t n)
{
    const size_t lanes = DUO_REDUCE_LANES(duo_dtype_size(type));
    const size_t chunk = duo_reduce_steps(n, lanes) * lanes;
    const size_t chunks = (n + chunk - 1) / chunk;
    const size_t per = (chunks + (size_t)size_ - 1) / (size_t)size_;
    size_t begin = (size_t)rank_ * per * chunk;
    size_t end = rank_ + 1 == size_ ? n : (size_t)(rank_ + 1) * per * chunk;
    begin = begin < n ? begin : n;
    end = end < n ? end : n;
    duo_dist_range r;
    CHECK_OK(duo_dist_range_make(end - begin, &r));
    CHECK_EQ_U64(r.n, n);
    CHECK_EQ_U64(r.begin, begin);
    return r;
}

/* duo_dist_dots_async against duo_dot_async with the same count on the
 * whole arrays, bit for bit, into poisoned device memory (nothing past
 * count written).  how: split() 0 or 1 (pieces off chunk boundaries:
 * through the host), or 3 (split_dot_chunks: on the stream where the
 * build can).  x's piece reaches it by a copy queued on the same stream
 * just before, so the call must read x after the stream's work. */
static void test_dots_async_case(duo_dtype type, size_t n, int count,
                                 int how, int on_stream, uint64_t seed)
{
    const size_t esz = duo_dtype_size(type);
    test_set_context("rank %d/%d dots_async %s n=%zu count %d split %d "
                     "stream %d", rank_, size_, type_name(type), n, count,
                     how, on_stream);
    const duo_dist_range r =
        how == 3 ? split_dot_chunks(type, n) : split(n, how);
    unsigned char *hx = (unsigned char *)test_xmalloc(n * esz + 8);
    unsigned char *hy = (unsigned char *)test_xmalloc(n * esz + 8);
    make_array(type, n, 0, seed, hx);
    make_array(type, n, 0, seed + 1000, hy);
    void *xall = n ? test_device_alloc(n * esz) : NULL;
    void *yall = n ? test_device_alloc(n * esz) : NULL;
    void *xm = r.count ? test_device_alloc(r.count * esz) : NULL;
    void *xstage = r.count ? test_device_alloc(r.count * esz) : NULL;
    void *ym = r.count ? test_device_alloc(r.count * esz) : NULL;
    if (n) {
        test_to_device(xall, hx, n * esz);
        test_to_device(yall, hy, n * esz);
    }
    if (r.count) {
        test_to_device(xstage, hx + r.begin * esz, r.count * esz);
        test_to_device(ym, hy + r.begin * esz, r.count * esz);
        CHECK_OK(duo_memset(xm, 0x7f, r.count * esz)); /* not x */
    }
    /* Pairs (x, y), (y, y), (x, x), (y, x). */
    const void *xs[DUO_DOT_MAX], *ys[DUO_DOT_MAX];
    const void *xp[DUO_DOT_MAX], *yp[DUO_DOT_MAX];
    for (int k = 0; k < count; ++k) {
        xs[k] = k == 1 || k == 3 ? yall : xall;
        ys[k] = k == 0 || k == 1 ? yall : xall;
        xp[k] = k == 1 || k == 3 ? ym : xm;
        yp[k] = k == 0 || k == 1 ? ym : xm;
    }
    double *dwant = (double *)test_device_alloc(DUO_DOT_MAX * sizeof(double));
    double *dres =
        (double *)test_device_alloc((DUO_DOT_MAX + 1) * sizeof(double));
    double want[DUO_DOT_MAX], got[DUO_DOT_MAX + 1], poison[DUO_DOT_MAX + 1];
    for (int k = 0; k <= DUO_DOT_MAX; ++k)
        poison[k] = test_nan_f64();
    test_to_device(dres, poison, sizeof poison);
    CHECK_OK(duo_dot_async(type, n, count, xs, ys, dwant, NULL));
    CHECK_OK(duo_memcpy(want, dwant, (size_t)count * sizeof(double),
                        DUO_DEVICE_TO_HOST));
    duo_stream st = NULL;
    if (on_stream)
        CHECK_OK(duo_stream_create(&st));
    if (r.count)
        CHECK_OK(duo_memcpy_async(xm, xstage, r.count * esz,
                                  DUO_DEVICE_TO_DEVICE, st));
    const duo_status called =
        count == 1 ? duo_dist_dot_async(type, xp[0], yp[0], &r, dres, st)
                   : duo_dist_dots_async(type, count, xp, yp, &r, dres, st);
    if (CHECK_OK(called)) {
        CHECK_OK(duo_stream_synchronize(st));
        CHECK_OK(duo_memcpy(got, dres, sizeof got, DUO_DEVICE_TO_HOST));
        for (int k = 0; k < count; ++k)
            CHECK_BITS_F64(got[k], want[k]);
        CHECK_BITS_F64(got[count], poison[count]);
    }
    CHECK_OK(duo_stream_destroy(st));
    void *bufs[] = {xall, yall, xm, xstage, ym, dwant, dres};
    for (size_t k = 0; k < sizeof bufs / sizeof bufs[0]; ++k)
        if (bufs[k] != NULL)
            CHECK_OK(duo_free(bufs[k]));
    free(hx);
    free(hy);
}

static void test_dots_async(void)
{
    /* Sizes around the f64 and f32 chunks (512 and 1024 elements below
     * 2^20) and past 2^20, where they grow. */
    static const size_t ns[] = {0,    1,    3,     511,   512,
                                1024, 4099, 65536, 65537, 262147};
    uint64_t seed = 1300;
    for (int t = 0; t < 2; ++t)
        for (size_t i = 0; i < sizeof ns / sizeof ns[0]; ++i)
            for (int count = 1; count <= DUO_DOT_MAX; ++count)
                test_dots_async_case((duo_dtype)t, ns[i], count,
                                     count == 2 ? (int)(i & 1) : 3,
                                     count == 3, ++seed);
    test_dots_async_case(DUO_F64, (size_t)1 << 21, 2, 3, 1, ++seed);
    test_dots_async_case(DUO_F32, ((size_t)1 << 21) + 5, 1, 3, 0, ++seed);
    test_dots_async_case(DUO_F64, ((size_t)1 << 20) + 3, 1, 1, 0, ++seed);

    test_set_context("rank %d/%d dots_async errors", rank_, size_);
    duo_dist_set_abort_on_error(0);
    duo_dist_range r;
    CHECK_OK(duo_dist_block_1d(100, size_, rank_, &r));
    double *dev = (double *)test_device_alloc(100 * sizeof(double));
    double *out = (double *)test_device_alloc(2 * sizeof(double));
    const double keep[2] = {42.0, 43.0};
    test_to_device(out, keep, sizeof keep);
    const void *xs[2] = {dev, dev};
    CHECK_STATUS(duo_dist_dot_async(DUO_I32, dev, dev, &r, out, NULL),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "DUO_F32 or DUO_F64");
    CHECK_STATUS(duo_dist_dot_async(DUO_F64, dev, dev, NULL, out, NULL),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "range is NULL");
    CHECK_STATUS(duo_dist_dots_async(DUO_F64, 2, xs, xs, &r, NULL, NULL),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "2 device doubles");
    CHECK_STATUS(duo_dist_dots_async(DUO_F64, DUO_DOT_MAX + 1, xs, xs, &r,
                                     out, NULL),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "DUO_DOT_MAX");
    if (size_ > 1) {
        /* One rank asks for the host form, the others the device form. */
        double host = 7.0;
        const duo_status mixed =
            rank_ == 1 ? duo_dist_dot(DUO_F64, dev, dev, &r, &host)
                       : duo_dist_dot_async(DUO_F64, dev, dev, &r, out,
                                            NULL);
        CHECK_STATUS(mixed, DUO_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS(duo_last_error(), "ranks disagree");
        CHECK(host == 7.0);
    }
    double after[2] = {0.0, 0.0};
    CHECK_OK(duo_memcpy(after, out, sizeof after, DUO_DEVICE_TO_HOST));
    CHECK(after[0] == 42.0 && after[1] == 43.0);
    CHECK_OK(duo_free(dev));
    CHECK_OK(duo_free(out));
    duo_dist_set_abort_on_error(1);
}

static void test_gather(void)
{
    test_set_context("rank %d/%d gather", rank_, size_);
    const size_t n = 1001;
    duo_dist_range r = split(n, 1);
    double *all = (double *)test_xmalloc(n * sizeof(double));
    make_array(DUO_F64, n, 0, 7, all);
    double *dev = r.count ? (double *)test_device_alloc(r.count * 8) : NULL;
    if (r.count)
        test_to_device(dev, all + r.begin, r.count * 8);
    for (int root = 0; root < size_; root += size_ > 1 ? size_ - 1 : 1) {
        double *got = (double *)test_xmalloc(n * sizeof(double));
        test_poison_f64(got, n);
        CHECK_OK(duo_dist_gather(DUO_F64, dev, &r, rank_ == root ? got : NULL,
                                 root));
        if (rank_ == root)
            CHECK(memcmp(got, all, n * sizeof(double)) == 0);
        free(got);
    }
    if (dev)
        CHECK_OK(duo_free(dev));
    free(all);
}

int main(int argc, char **argv)
{
    duo_status st = duo_dist_init(&argc, &argv);
    if (st == DUO_ERROR_NO_DEVICE) {
        printf("SKIP: no GPU: %s\n", duo_last_error());
        return TEST_SKIP;
    }
    if (st != DUO_SUCCESS) {
        printf("FAIL: duo_dist_init: %s\n", duo_last_error());
        return 1;
    }
    rank_ = duo_dist_rank();
    size_ = duo_dist_size();
    CHECK(size_ >= 1 && rank_ >= 0 && rank_ < size_);
    CHECK(duo_dist_has_mpi() || size_ == 1);
    const char *path = duo_dist_halo_path();
    if (size_ == 1)
        CHECK_CONTAINS(path, "none");
    else
        CHECK(strcmp(path, "host") == 0 || strcmp(path, "ipc") == 0 ||
              strcmp(path, "nccl") == 0 ||
              strcmp(path, "cuda-aware-mpi") == 0 ||
              strcmp(path, "staged") == 0);
    test_block_1d();
    test_grid_2d();
    test_rows_make();
    test_halo();
    test_reduce();
    test_reduce_errors();
    test_dot();
    test_dots();
    test_dots_async();
    test_gather();
    CHECK_OK(duo_dist_barrier());
    char name[64];
    snprintf(name, sizeof name, "test_dist rank %d of %d", rank_, size_);
    int rc = test_summary(name);
    CHECK_OK(duo_dist_finalize());
    return rc;
}
