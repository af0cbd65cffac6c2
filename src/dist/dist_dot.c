/*
 * dist_dot.c - duo_dist_dot: a dot product over an array split among the
 * ranks, in the bits of duo_dot_async on the whole array (duo/dist.h).
 *
 * duo's order for n elements (src/reduce_order.h) is fixed by n: chunks
 * of CHUNK = steps * LANES elements, each reduced to a partial, then a
 * final pass over the partials.  So:
 *
 *  1. the ranks check that they make the same call (dist_agree) and
 *     all-gather their ranges;
 *  2. chunk c belongs to the rank holding its first element.  A rank
 *     whose piece does not begin on a chunk boundary sends the elements
 *     of x and y before its first boundary to the owner of the chunk they
 *     belong to; an owner whose last chunk runs past its piece assembles
 *     it from its own tail and the pieces received;
 *  3. each rank computes the partials of its chunks (dot_chunks.c), in
 *     one slot per chunk of a vector of zeros elsewhere; an all-reduce
 *     taking the largest 64-bit word per slot hands every rank every
 *     partial bit for bit (the owner's word is the only non-zero one);
 *  4. every rank runs the final pass on the host: slot t of
 *     FINAL_THREADS adds partials t, t + FINAL_THREADS, ... in order from
 *     0.0, then the slots fold as a block does.
 * With one rank, step 2 sends nothing and the result is duo_dot_async's.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "dist_internal.h"
#include "dot_chunks.h"
#include "reduce_order.h"

enum { DOT_TAG = 12, DOT_KIND = 4 };

/* Device scratch, kept between calls (freed by dist_dot_release): the
 * partials of this rank's chunks, and the assembled last chunk (x then
 * y).  Grown as needed. */
static double *partials;
static size_t partials_cap;
static unsigned char *tail;
static size_t tail_cap;

void dist_dot_release(void)
{
    if (partials != NULL)
        (void)duo_free(partials);
    if (tail != NULL)
        (void)duo_free(tail);
    partials = NULL;
    tail = NULL;
    partials_cap = tail_cap = 0;
}

static duo_status grow(void **buf, size_t *cap, size_t bytes)
{
    if (bytes <= *cap)
        return DUO_SUCCESS;
    if (*buf != NULL)
        (void)duo_free(*buf);
    *buf = NULL;
    *cap = 0;
    duo_status st = duo_malloc(buf, bytes);
    if (st == DUO_SUCCESS)
        *cap = bytes;
    return st;
}

/* What each rank sends first: 64-bit words, the same layout everywhere. */
typedef struct dot_record {
    uint64_t tag, n, begin, count;
} dot_record;

static duo_status check_args(const char *where, duo_dtype type,
                             const void *x, const void *y,
                             const duo_dist_range *range,
                             const double *result)
{
    duo_status st = dist_require_init(where);
    if (st != DUO_SUCCESS)
        return st;
    if (type != DUO_F32 && type != DUO_F64)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "type = %d: dot products take DUO_F32 or DUO_F64",
                        (int)type);
    if (range == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "range is NULL; pass this rank's piece of the arrays "
                        "(duo_dist_block_1d, duo_dist_rows_range)");
    if (range->begin > range->n || range->count > range->n - range->begin)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "range [%zu, %zu + %zu) lies outside the arrays of n "
                        "= %zu elements", range->begin, range->begin,
                        range->count, range->n);
    if (range->n > SIZE_MAX / 16)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "n = %zu elements overflow size_t", range->n);
    if (range->count > 0 && (x == NULL || y == NULL))
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "%s is NULL but this rank's count is %zu; pass device "
                        "memory holding its piece", x == NULL ? "x" : "y",
                        range->count);
    if (result == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "result is NULL; pass the address of a host double");
    return DUO_SUCCESS;
}

/* Step 1: every rank's record; every rank reaches the same verdict. */
static duo_status gather_ranges(const char *where, duo_dtype type,
                                const duo_dist_range *range,
                                dot_record *all)
{
    const int size = duo_dist_state.size;
    dot_record mine;
    mine.tag = ((uint64_t)DOT_KIND << 8) | (uint64_t)type;
    mine.n = range->n;
    mine.begin = range->begin;
    mine.count = range->count;
    duo_status st = dist_comm_allgather(where, &mine, sizeof mine, all);
    if (st != DUO_SUCCESS)
        return st;
    uint64_t next = 0;
    for (int r = 0; r < size; ++r) {
        const dot_record *a = &all[r];
        if (a->tag != all[0].tag)
            return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                            "ranks disagree: rank 0 passed type %d, rank %d "
                            "type %d (or called another collective); every "
                            "rank must make the same call",
                            (int)(all[0].tag & 0xff), r, (int)(a->tag & 0xff));
        if (a->n != all[0].n)
            return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                            "ranks disagree on the arrays' length: rank 0 "
                            "passed n = %llu, rank %d n = %llu",
                            (unsigned long long)all[0].n, r,
                            (unsigned long long)a->n);
        if (a->begin != next)
            return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                            "rank %d's piece begins at %llu but the pieces "
                            "before it end at %llu; pieces must follow each "
                            "other in rank order", r,
                            (unsigned long long)a->begin,
                            (unsigned long long)next);
        next = a->begin + a->count;
    }
    if (next != all[0].n)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "the pieces cover %llu of n = %llu elements",
                        (unsigned long long)next,
                        (unsigned long long)all[0].n);
    return DUO_SUCCESS;
}

/* Rank whose non-empty piece holds global element i. */
static int owner_of(const dot_record *all, int size, size_t i)
{
    for (int r = 0; r < size; ++r)
        if (all[r].count > 0 && i >= all[r].begin &&
            i < all[r].begin + all[r].count)
            return r;
    return -1;
}

/* Host copy of elements [lo, hi) of this rank's x then y into buf. */
static duo_status pack(const void *x, const void *y, size_t b, size_t lo,
                       size_t hi, size_t esz, unsigned char *buf)
{
    const size_t len = (hi - lo) * esz;
    duo_status st = duo_memcpy(buf, (const char *)x + (lo - b) * esz, len,
                               DUO_DEVICE_TO_HOST);
    if (st == DUO_SUCCESS)
        st = duo_memcpy(buf + len, (const char *)y + (lo - b) * esz, len,
                        DUO_DEVICE_TO_HOST);
    return st;
}

/* Steps 2 and 3: this rank's partials into slots[] (chunks words). */
static duo_status local_partials(const char *where, duo_dtype type,
                                 const void *x, const void *y,
                                 const dot_record *all, size_t steps,
                                 uint64_t *slots)
{
    const int size = duo_dist_state.size, me = duo_dist_state.rank;
    const size_t esz = duo_dtype_size(type);
    const size_t n = (size_t)all[me].n, b = (size_t)all[me].begin;
    const size_t e = b + (size_t)all[me].count;
    const size_t chunk = steps * DUO_REDUCE_LANES(esz);
    if (e == b)
        return DUO_SUCCESS;
    /* Chunks c_lo .. c_end-1 begin in this piece; the last of them may
     * run past it. */
    const size_t c_lo = (b + chunk - 1) / chunk;
    const size_t c_end = c_lo * chunk < e ? (e - 1) / chunk + 1 : c_lo;
    const size_t t_begin = (c_end - 1) * chunk;
    const size_t t_end = t_begin + chunk < n ? t_begin + chunk : n;
    const int split_tail = c_end > c_lo && t_end > e;
    const size_t whole_end = split_tail ? c_end - 1 : c_end;
    duo_status st = DUO_SUCCESS;

    /* The head, sent to the owner of the chunk it continues. */
    dist_msg send;
    int nsends = 0;
    unsigned char *send_buf = NULL;
    if (b % chunk != 0) {
        const size_t hi = c_lo * chunk < e ? c_lo * chunk : e;
        send_buf = (unsigned char *)malloc(2 * (hi - b) * esz);
        if (send_buf == NULL)
            return duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                            "no host memory for %zu bytes",
                            2 * (hi - b) * esz);
        st = pack(x, y, b, b, hi, esz, send_buf);
        send.buf = send_buf;
        send.bytes = 2 * (hi - b) * esz;
        send.peer = owner_of(all, size, b / chunk * chunk);
        send.tag = DOT_TAG;
        nsends = 1;
    }

    /* The split last chunk: the rest of it from the following ranks,
     * each piece as its x elements then its y elements, at twice its
     * offset in the chunk (so the pieces do not overlap). */
    dist_msg *recvs = NULL;
    int nrecvs = 0;
    unsigned char *chunk_buf = NULL;
    if (st == DUO_SUCCESS && split_tail) {
        chunk_buf = (unsigned char *)malloc(2 * chunk * esz);
        recvs = (dist_msg *)malloc((size_t)size * sizeof(dist_msg));
        if (chunk_buf == NULL || recvs == NULL)
            st = duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                          "no host memory for a chunk of %zu bytes",
                          2 * chunk * esz);
        for (int r = me + 1; r < size && st == DUO_SUCCESS; ++r) {
            const size_t rb = (size_t)all[r].begin;
            const size_t re = rb + (size_t)all[r].count;
            if (re == rb || rb >= t_end)
                continue;
            recvs[nrecvs].buf = chunk_buf + 2 * (rb - t_begin) * esz;
            recvs[nrecvs].bytes = 2 * ((re < t_end ? re : t_end) - rb) * esz;
            recvs[nrecvs].peer = r;
            recvs[nrecvs++].tag = DOT_TAG;
        }
    }
    if (st == DUO_SUCCESS && (nsends > 0 || nrecvs > 0))
        st = dist_comm_exchange(where, &send, nsends, recvs, nrecvs);

    /* The chunks that lie in this piece, on the device. */
    const size_t mine = c_end - c_lo;
    if (st == DUO_SUCCESS)
        st = grow((void **)&partials, &partials_cap, mine * sizeof(double));
    if (st == DUO_SUCCESS)
        st = dist_dot_chunks(type, x, y, b, n, steps, c_lo, whole_end - c_lo,
                             partials);

    /* The split one: its x and y elements in order, then on the device. */
    if (st == DUO_SUCCESS && split_tail) {
        const size_t len = t_end - t_begin;
        unsigned char *hx = (unsigned char *)malloc(2 * len * esz);
        if (hx == NULL)
            st = duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                          "no host memory for %zu bytes", 2 * len * esz);
        if (st == DUO_SUCCESS)
            st = pack(x, y, b, t_begin, e, esz, chunk_buf);
        if (st == DUO_SUCCESS) {
            unsigned char *hy = hx + len * esz;
            /* Own part [t_begin, e) packed at offset 0; the others at
             * twice their offset. */
            const size_t own = e - t_begin;
            memcpy(hx, chunk_buf, own * esz);
            memcpy(hy, chunk_buf + own * esz, own * esz);
            for (int k = 0; k < nrecvs; ++k) {
                const size_t off =
                    (size_t)((unsigned char *)recvs[k].buf - chunk_buf) /
                    (2 * esz);
                const size_t plen = recvs[k].bytes / (2 * esz);
                memcpy(hx + off * esz, recvs[k].buf, plen * esz);
                memcpy(hy + off * esz,
                       (unsigned char *)recvs[k].buf + plen * esz,
                       plen * esz);
            }
            st = grow((void **)&tail, &tail_cap, 2 * chunk * esz);
            if (st == DUO_SUCCESS)
                st = duo_memcpy(tail, hx, 2 * len * esz, DUO_HOST_TO_DEVICE);
            if (st == DUO_SUCCESS)
                st = dist_dot_chunks(type, tail, tail + len * esz, t_begin, n,
                                     steps, c_end - 1, 1,
                                     partials + (c_end - 1 - c_lo));
        }
        free(hx);
    }
    if (st == DUO_SUCCESS && mine > 0)
        st = duo_memcpy(slots + c_lo, partials, mine * sizeof(double),
                        DUO_DEVICE_TO_HOST);
    free(send_buf);
    free(chunk_buf);
    free(recvs);
    return st;
}

/* Step 4 of reduce_order.h: fold v[0..size) in halves. */
static void fold(double *v, size_t size)
{
    for (size_t h = size / 2; h > 0; h /= 2)
        for (size_t i = 0; i < h; ++i)
            v[i] = v[i] + v[i + h];
}

/* Step 5 over the partials (held as 64-bit words). */
static double final_pass(const uint64_t *slots, size_t chunks)
{
    double final[DUO_REDUCE_FINAL_THREADS];
    for (size_t t = 0; t < DUO_REDUCE_FINAL_THREADS; ++t)
        final[t] = 0.0;
    for (size_t c = 0; c < chunks; ++c) {
        double p;
        memcpy(&p, &slots[c], sizeof p);
        final[c % DUO_REDUCE_FINAL_THREADS] =
            final[c % DUO_REDUCE_FINAL_THREADS] + p;
    }
    double warps[DUO_REDUCE_FINAL_THREADS / DUO_REDUCE_WARP];
    for (size_t w = 0; w < DUO_REDUCE_FINAL_THREADS / DUO_REDUCE_WARP; ++w) {
        fold(final + w * DUO_REDUCE_WARP, DUO_REDUCE_WARP);
        warps[w] = final[w * DUO_REDUCE_WARP];
    }
    fold(warps, DUO_REDUCE_FINAL_THREADS / DUO_REDUCE_WARP);
    return warps[0];
}

duo_status duo_dist_dot(duo_dtype type, const void *x, const void *y,
                        const duo_dist_range *range, double *result)
{
    static const char *const where = "duo_dist_dot";
    duo_status st = check_args(where, type, x, y, range, result);
    if (st != DUO_SUCCESS)
        return dist_collective_failed(st);
    dot_record *all = (dot_record *)malloc((size_t)duo_dist_state.size *
                                           sizeof(dot_record));
    if (all == NULL)
        return dist_collective_failed(duo_fail(
            DUO_ERROR_OUT_OF_MEMORY, where, "no host memory for %d records",
            duo_dist_state.size));
    st = dist_agree(where, DOT_KIND, 0, type, x, range, NULL);
    if (st == DUO_SUCCESS)
        st = gather_ranges(where, type, range, all);
    const size_t n = range->n, esz = duo_dtype_size(type);
    const size_t steps = duo_reduce_steps(n, DUO_REDUCE_LANES(esz));
    const size_t chunk = steps * DUO_REDUCE_LANES(esz);
    const size_t chunks = (n + chunk - 1) / chunk;
    uint64_t *slots = NULL;
    if (st == DUO_SUCCESS) {
        slots = (uint64_t *)calloc(chunks + 1, sizeof(uint64_t));
        if (slots == NULL)
            st = duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                          "no host memory for %zu chunk partials", chunks);
    }
    if (st == DUO_SUCCESS)
        st = local_partials(where, type, x, y, all, steps, slots);
    if (st == DUO_SUCCESS && duo_dist_state.size > 1 && chunks > 0)
        st = dist_comm_allreduce_max_u64(where, slots, chunks);
    if (st == DUO_SUCCESS)
        *result = final_pass(slots, chunks);
    free(all);
    free(slots);
    return st == DUO_SUCCESS ? st : dist_collective_failed(st);
}
