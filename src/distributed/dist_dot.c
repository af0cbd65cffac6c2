/*
 * dist_dot.c - duo_dist_dot, duo_dist_dots: dot products over arrays
 * split among the ranks, in the bits of duo_dot_async on the whole
 * arrays (duo/dist.h).
 *
 * duo's order for n elements (src/reduce_order.h) is fixed by n: chunks
 * of CHUNK = steps * LANES elements, each reduced to a partial, then a
 * final pass over the partials.  So:
 *
 *  1. the ranks check that they make the same call (dist_agree) and
 *     learn each other's ranges (dist_pieces);
 *  2. chunk c belongs to the rank holding its first element.  A rank
 *     whose piece does not begin on a chunk boundary sends the elements
 *     of x and y before its first boundary to the owner of the chunk they
 *     belong to; an owner whose last chunk runs past its piece assembles
 *     it from its own tail and the pieces received;
 *  3. each rank computes the partials of its chunks (dot_chunks.c, one
 *     launch for all of them and all pairs) straight into pinned host
 *     memory; each rank's chunks being consecutive, one all-gather
 *     hands every rank every partial bit for bit;
 *  4. every rank runs the final pass on the host: slot t of
 *     FINAL_THREADS adds partials t, t + FINAL_THREADS, ... in order from
 *     0.0, then the slots fold as a block does.
 * With one rank, step 2 sends nothing and the result is duo_dot_async's.
 *
 * duo_dist_dots does `count` dot products with the messages of one: a
 * piece sent holds each pair's x then y elements, pair after pair, and
 * the partial of chunk c of pair k is slot c count + k of the one
 * all-gather.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "device.h"
#include "dist_internal.h"
#include "dot_chunks.h"
#include "reduce_order.h"

enum { DOT_TAG = 12, DOT_KIND = 4, DOT_ASYNC_KIND = 5 };

/* Kept between calls (freed by dist_dot_release): the assembled last
 * chunk (x then y) on the device, and every partial in pinned host
 * memory, which the GPU writes this rank's into (no copy to queue after
 * the kernel) and MPI gathers. */
static dist_buffer tail;
static dist_buffer host_words = {NULL, 0, 1};
/* Every partial in device memory, for the stream-ordered form. */
static dist_buffer dev_slots;

void dist_dot_release(void)
{
    dist_buffer_release(&tail);
    dist_buffer_release(&host_words);
    dist_buffer_release(&dev_slots);
}

static duo_status check_args(const char *where, duo_dtype type, int count,
                             const void *const *x, const void *const *y,
                             const duo_dist_range *range,
                             const double *result, int on_device)
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
    if (count < 1 || count > DUO_DOT_MAX)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "count = %d: expected 1 to DUO_DOT_MAX = %d dot "
                        "products", count, DUO_DOT_MAX);
    if (x == NULL || y == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "%s is NULL; pass a host array of %d device pointers",
                        x == NULL ? "x" : "y", count);
    for (int k = 0; k < count && range->count > 0; ++k) {
        const char *which = x[k] == NULL ? "x" : y[k] == NULL ? "y" : NULL;
        if (which != NULL && count == 1)
            return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                            "%s is NULL but this rank's count is %zu; pass "
                            "device memory holding its piece", which,
                            range->count);
        if (which != NULL)
            return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                            "%s[%d] is NULL but this rank's count is %zu; "
                            "pass device memory holding its piece", which, k,
                            range->count);
    }
    if (result == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "result is NULL; pass the address of %d %s "
                        "double%s", count, on_device ? "device" : "host",
                        count > 1 ? "s" : "");
    return DUO_SUCCESS;
}

/* Rank whose non-empty piece holds global element i. */
static int owner_of(const dist_piece *all, int size, size_t i)
{
    for (int r = 0; r < size; ++r)
        if (all[r].count > 0 && i >= all[r].begin &&
            i < all[r].begin + all[r].count)
            return r;
    return -1;
}

/* Host copy of elements [lo, hi) of this rank's x[0], y[0], x[1], ...
 * into buf. */
static duo_status pack(int count, const void *const *x, const void *const *y,
                       size_t b, size_t lo, size_t hi, size_t esz,
                       unsigned char *buf)
{
    const size_t len = (hi - lo) * esz;
    duo_status st = DUO_SUCCESS;
    for (int k = 0; k < count && st == DUO_SUCCESS; ++k) {
        st = duo_memcpy(buf + 2 * (size_t)k * len,
                        (const char *)x[k] + (lo - b) * esz, len,
                        DUO_DEVICE_TO_HOST);
        if (st == DUO_SUCCESS)
            st = duo_memcpy(buf + (2 * (size_t)k + 1) * len,
                            (const char *)y[k] + (lo - b) * esz, len,
                            DUO_DEVICE_TO_HOST);
    }
    return st;
}

/* Chunks owned by a rank holding [b, e): those whose first element it
 * holds, first_owned(b) .. first_owned(e) - 1 (consecutive, in rank
 * order, together every chunk once). */
static size_t first_owned(size_t b, size_t chunk)
{
    return (b + chunk - 1) / chunk;
}

/* Steps 2 and 3: this rank's partials into slots[c count + k] for its
 * chunks c and pairs k (pinned host memory, written by the device), in
 * one launch for the chunks that lie in its piece (one more for a split
 * last chunk), then one wait. */
static duo_status local_partials(const char *where, duo_dtype type, int count,
                                 const void *const *x, const void *const *y,
                                 const dist_piece *all, size_t steps,
                                 uint64_t *slots)
{
    const int size = duo_dist_state.size, me = duo_dist_state.rank;
    const size_t esz = duo_dtype_size(type);
    const size_t pairs = (size_t)count;
    const size_t n = (size_t)all[me].n, b = (size_t)all[me].begin;
    const size_t e = b + (size_t)all[me].count;
    const size_t chunk = steps * DUO_REDUCE_LANES(esz);
    if (e == b)
        return DUO_SUCCESS;
    /* Chunks c_lo .. c_end-1 begin in this piece; the last of them may
     * run past it. */
    const size_t c_lo = first_owned(b, chunk);
    const size_t c_end = first_owned(e, chunk);
    const size_t t_begin = (c_end - 1) * chunk;
    const size_t t_end = t_begin + chunk < n ? t_begin + chunk : n;
    const int split_tail = c_end > c_lo && t_end > e;
    const size_t whole_end = split_tail ? c_end - 1 : c_end;
    /* Bytes of `len` elements of every pair's x and y. */
    const size_t span = 2 * pairs * esz;
    duo_status st = DUO_SUCCESS;

    /* The head, sent to the owner of the chunk it continues. */
    dist_msg send;
    int nsends = 0;
    unsigned char *send_buf = NULL;
    if (b % chunk != 0) {
        const size_t hi = c_lo * chunk < e ? c_lo * chunk : e;
        send_buf = (unsigned char *)malloc((hi - b) * span);
        if (send_buf == NULL)
            return duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                            "no host memory for %zu bytes", (hi - b) * span);
        st = pack(count, x, y, b, b, hi, esz, send_buf);
        send.buf = send_buf;
        send.bytes = (hi - b) * span;
        send.peer = owner_of(all, size, b / chunk * chunk);
        send.tag = DOT_TAG;
        nsends = 1;
    }

    /* The split last chunk: the rest of it from the following ranks,
     * each piece as its pairs' x and y elements (pack's layout), at
     * 2 count times its offset in the chunk (so the pieces do not
     * overlap); this rank's own part packed at offset 0. */
    dist_msg *recvs = NULL;
    int nrecvs = 0;
    unsigned char *chunk_buf = NULL;
    if (st == DUO_SUCCESS && split_tail) {
        chunk_buf = (unsigned char *)malloc(chunk * span);
        recvs = (dist_msg *)malloc((size_t)size * sizeof(dist_msg));
        if (chunk_buf == NULL || recvs == NULL)
            st = duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                          "no host memory for a chunk of %zu bytes",
                          chunk * span);
        if (st == DUO_SUCCESS)
            st = pack(count, x, y, b, t_begin, e, esz, chunk_buf);
        for (int r = me + 1; r < size && st == DUO_SUCCESS; ++r) {
            const size_t rb = (size_t)all[r].begin;
            const size_t re = rb + (size_t)all[r].count;
            if (re == rb || rb >= t_end)
                continue;
            recvs[nrecvs].buf = chunk_buf + (rb - t_begin) * span;
            recvs[nrecvs].bytes = ((re < t_end ? re : t_end) - rb) * span;
            recvs[nrecvs].peer = r;
            recvs[nrecvs++].tag = DOT_TAG;
        }
    }

    /* The chunks that lie in this piece, on the device, while MPI moves
     * the pieces of split ones. */
    const size_t mine = c_end - c_lo;
    double *out = (double *)(void *)(slots + c_lo * pairs);
    dist_dot_pairs p;
    memset(&p, 0, sizeof p);
    for (int k = 0; k < count; ++k) {
        p.x[k] = x[k];
        p.y[k] = y[k];
    }
    if (st == DUO_SUCCESS)
        st = dist_dot_chunks(type, &p, count, b, n, steps, c_lo,
                             whole_end - c_lo, out, NULL);
    if (st == DUO_SUCCESS && (nsends > 0 || nrecvs > 0))
        st = dist_comm_exchange(where, &send, nsends, recvs, nrecvs);

    /* The split one: each pair's x and y elements in order (pair k's x at
     * 2 k len elements, its y after it), then on the device. */
    if (st == DUO_SUCCESS && split_tail) {
        const size_t len = t_end - t_begin;
        unsigned char *hx = (unsigned char *)malloc(len * span);
        if (hx == NULL)
            st = duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                          "no host memory for %zu bytes", len * span);
        for (int m = -1; m < nrecvs && st == DUO_SUCCESS; ++m) {
            const unsigned char *src =
                m < 0 ? chunk_buf : (const unsigned char *)recvs[m].buf;
            const size_t off = (size_t)(src - chunk_buf) / span;
            const size_t plen = m < 0 ? e - t_begin : recvs[m].bytes / span;
            for (size_t a = 0; a < 2 * pairs; ++a)
                memcpy(hx + (a * len + off) * esz, src + a * plen * esz,
                       plen * esz);
        }
        if (st == DUO_SUCCESS)
            st = dist_buffer_reserve(&tail, chunk * span);
        if (st == DUO_SUCCESS)
            st = duo_be_memcpy(tail.p, hx, len * span, DUO_HOST_TO_DEVICE);
        const unsigned char *t = (const unsigned char *)tail.p;
        for (int k = 0; k < count; ++k) {
            p.x[k] = t + 2 * (size_t)k * len * esz;
            p.y[k] = t + (2 * (size_t)k + 1) * len * esz;
        }
        if (st == DUO_SUCCESS)
            st = dist_dot_chunks(type, &p, count, t_begin, n, steps,
                                 c_end - 1, 1,
                                 out + (c_end - 1 - c_lo) * pairs, NULL);
        free(hx);
    }
    if (st == DUO_SUCCESS && mine > 0)
        st = duo_be_stream_synchronize(NULL);
    free(send_buf);
    free(chunk_buf);
    free(recvs);
    return st;
}

/* Step 3's exchange: every rank's partials to every rank (each rank's
 * own are in place). */
static duo_status share_partials(const char *where, const dist_piece *all,
                                 size_t chunk, size_t pairs, uint64_t *slots)
{
    const int size = duo_dist_state.size;
    size_t *counts = (size_t *)malloc(2 * (size_t)size * sizeof(size_t));
    if (counts == NULL)
        return duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                        "no host memory for %d counts", size);
    size_t *displs = counts + size;
    for (int r = 0; r < size; ++r) {
        const size_t lo = first_owned((size_t)all[r].begin, chunk);
        const size_t hi =
            first_owned((size_t)(all[r].begin + all[r].count), chunk);
        counts[r] = (hi - lo) * pairs;
        displs[r] = lo * pairs;
    }
    const duo_status st =
        dist_comm_allgatherv_u64(where, slots, counts, displs);
    free(counts);
    return st;
}

/* Step 4 of reduce_order.h: fold v[0..size) in halves. */
static void fold(double *v, size_t size)
{
    for (size_t h = size / 2; h > 0; h /= 2)
        for (size_t i = 0; i < h; ++i)
            v[i] = v[i] + v[i + h];
}

/* Step 5 over the partials (held as 64-bit words, chunk c's at
 * slots[c stride]). */
static double final_pass(const uint64_t *slots, size_t chunks, size_t stride)
{
    double final[DUO_REDUCE_FINAL_THREADS];
    for (size_t t = 0; t < DUO_REDUCE_FINAL_THREADS; ++t)
        final[t] = 0.0;
    for (size_t c = 0; c < chunks; ++c) {
        double p;
        memcpy(&p, &slots[c * stride], sizeof p);
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

/* Steps 2 to 4 for the checked pieces `all`: result[k] on the host. */
static duo_status dots_on_host(const char *where, duo_dtype type, int count,
                               const void *const *x, const void *const *y,
                               const dist_piece *all, double *result)
{
    const size_t n = (size_t)all[0].n, esz = duo_dtype_size(type);
    const size_t steps = duo_reduce_steps(n, DUO_REDUCE_LANES(esz));
    const size_t chunk = steps * DUO_REDUCE_LANES(esz);
    const size_t chunks = (n + chunk - 1) / chunk;
    const size_t words = chunks * (size_t)count;
    duo_status st = dist_buffer_reserve(&host_words,
                                        words * sizeof(uint64_t));
    uint64_t *slots = (uint64_t *)host_words.p;
    if (st == DUO_SUCCESS)
        st = local_partials(where, type, count, x, y, all, steps, slots);
    if (st == DUO_SUCCESS && duo_dist_state.size > 1 && words > 0)
        st = share_partials(where, all, chunk, (size_t)count, slots);
    if (st == DUO_SUCCESS)
        for (int k = 0; k < count; ++k)
            result[k] = final_pass(slots + k, chunks, (size_t)count);
    return st;
}

/* Step 1: the call's arguments and every rank's piece into *all
 * (malloc'ed), or a failure every rank shares. */
static duo_status agree_pieces(const char *where, int kind, duo_dtype type,
                               int count, const void *const *x,
                               const void *const *y,
                               const duo_dist_range *range,
                               const double *result, int on_device,
                               dist_piece **all)
{
    *all = NULL;
    duo_status st =
        check_args(where, type, count, x, y, range, result, on_device);
    if (st != DUO_SUCCESS)
        return st;
    *all = (dist_piece *)malloc((size_t)duo_dist_state.size *
                                sizeof(dist_piece));
    if (*all == NULL)
        return duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                        "no host memory for %d records",
                        duo_dist_state.size);
    /* The count travels as the call's op: ranks passing different counts
     * disagree. */
    st = dist_agree(where, kind, count, type, NULL, range, NULL);
    if (st == DUO_SUCCESS)
        st = dist_pieces(where, range, *all);
    return st;
}

/* Both host-result entry points: count pairs, named `where` in
 * messages. */
static duo_status dist_dots(const char *where, duo_dtype type, int count,
                            const void *const *x, const void *const *y,
                            const duo_dist_range *range, double *result)
{
    dist_piece *all = NULL;
    duo_status st = agree_pieces(where, DOT_KIND, type, count, x, y, range,
                                 result, 0, &all);
    if (st == DUO_SUCCESS)
        st = dots_on_host(where, type, count, x, y, all, result);
    free(all);
    return st == DUO_SUCCESS ? st : dist_collective_failed(st);
}

/* The stream-ordered form, where every rank's piece begins on a chunk
 * boundary (so no chunk is split) and the backend can exchange device
 * memory on a stream: the partials of each rank's chunks go straight
 * into their slots of a device array, every rank's slots reach every
 * rank there, and the final pass runs on the device -- no host wait.
 * Calls on other streams are ordered after each other, as they share
 * the slots. */
static duo_status dots_on_stream(const char *where, duo_dtype type,
                                 int count, const void *const *x,
                                 const void *const *y, const dist_piece *all,
                                 double *result, duo_stream stream)
{
    const int size = duo_dist_state.size, me = duo_dist_state.rank;
    const size_t n = (size_t)all[0].n, esz = duo_dtype_size(type);
    const size_t steps = duo_reduce_steps(n, DUO_REDUCE_LANES(esz));
    const size_t chunk = steps * DUO_REDUCE_LANES(esz);
    const size_t chunks = (n + chunk - 1) / chunk;
    const size_t pairs = (size_t)count;
    size_t *offset = (size_t *)malloc(2 * (size_t)size * sizeof(size_t));
    if (offset == NULL)
        return duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                        "no host memory for %d counts", size);
    size_t *bytes = offset + size;
    for (int r = 0; r < size; ++r) {
        const size_t lo = first_owned((size_t)all[r].begin, chunk);
        const size_t hi =
            first_owned((size_t)(all[r].begin + all[r].count), chunk);
        offset[r] = lo * pairs * sizeof(double);
        bytes[r] = (hi - lo) * pairs * sizeof(double);
    }
    duo_status st = dist_buffer_reserve(&dev_slots,
                                        chunks * pairs * sizeof(double));
    double *slots = (double *)dev_slots.p;
    if (st == DUO_SUCCESS)
        st = dist_dev_order_begin(where, stream);
    dist_dot_pairs p;
    memset(&p, 0, sizeof p);
    for (int k = 0; k < count; ++k) {
        p.x[k] = x[k];
        p.y[k] = y[k];
    }
    const size_t b = (size_t)all[me].begin;
    if (st == DUO_SUCCESS)
        st = dist_dot_chunks(type, &p, count, b, n, steps, b / chunk,
                             bytes[me] / (pairs * sizeof(double)),
                             (double *)((char *)slots + offset[me]),
                             stream);
    if (st == DUO_SUCCESS)
        st = dist_dev_share(where, slots, offset, bytes, stream);
    if (st == DUO_SUCCESS)
        st = dist_dot_final(count, chunks, slots, result, stream);
    if (st == DUO_SUCCESS)
        st = dist_dev_order_end(where, stream);
    free(offset);
    return st;
}

/* 1 when every non-empty piece begins on a chunk boundary of duo's order
 * for dot products of n elements of `type`. */
static int chunk_aligned(duo_dtype type, const dist_piece *all)
{
    const size_t n = (size_t)all[0].n, esz = duo_dtype_size(type);
    const size_t chunk =
        duo_reduce_steps(n, DUO_REDUCE_LANES(esz)) * DUO_REDUCE_LANES(esz);
    for (int r = 0; r < duo_dist_state.size; ++r)
        if (all[r].count > 0 && all[r].begin % chunk != 0)
            return 0;
    return 1;
}

/* Both device-result entry points.  One rank: duo_dot_async itself.
 * Otherwise stream-ordered where dots_on_stream can be; elsewhere the
 * host form after the stream's work, its values copied into result. */
static duo_status dist_dots_async(const char *where, duo_dtype type,
                                  int count, const void *const *x,
                                  const void *const *y,
                                  const duo_dist_range *range,
                                  double *result, duo_stream stream)
{
    dist_piece *all = NULL;
    duo_status st = agree_pieces(where, DOT_ASYNC_KIND, type, count, x, y,
                                 range, result, 1, &all);
    if (st == DUO_SUCCESS && duo_dist_state.size == 1)
        st = duo_dot_async(type, range->n, count, x, y, result, stream);
    else if (st == DUO_SUCCESS && dist_dev_share_possible() &&
             chunk_aligned(type, all))
        st = dots_on_stream(where, type, count, x, y, all, result, stream);
    else if (st == DUO_SUCCESS) {
        double host[DUO_DOT_MAX];
        st = duo_be_stream_synchronize(stream);
        if (st == DUO_SUCCESS)
            st = dots_on_host(where, type, count, x, y, all, host);
        if (st == DUO_SUCCESS)
            st = duo_be_memcpy(result, host, (size_t)count * sizeof(double),
                               DUO_HOST_TO_DEVICE);
    }
    free(all);
    return st == DUO_SUCCESS ? st : dist_collective_failed(st);
}

duo_status duo_dist_dot(duo_dtype type, const void *x, const void *y,
                        const duo_dist_range *range, double *result)
{
    const void *xs[1] = {x}, *ys[1] = {y};
    return dist_dots("duo_dist_dot", type, 1, xs, ys, range, result);
}

duo_status duo_dist_dots(duo_dtype type, int count, const void *const *x,
                         const void *const *y, const duo_dist_range *range,
                         double *result)
{
    return dist_dots("duo_dist_dots", type, count, x, y, range, result);
}

duo_status duo_dist_dot_async(duo_dtype type, const void *x, const void *y,
                              const duo_dist_range *range, double *result,
                              duo_stream stream)
{
    const void *xs[1] = {x}, *ys[1] = {y};
    return dist_dots_async("duo_dist_dot_async", type, 1, xs, ys, range,
                           result, stream);
}

duo_status duo_dist_dots_async(duo_dtype type, int count,
                               const void *const *x, const void *const *y,
                               const duo_dist_range *range, double *result,
                               duo_stream stream)
{
    return dist_dots_async("duo_dist_dots_async", type, count, x, y, range,
                           result, stream);
}
