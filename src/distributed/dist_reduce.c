/*
 * dist_reduce.c - duo_dist_reduce, duo_dist_reduce_arg and
 * duo_dist_gather: the contract is in duo/dist.h.
 *
 * Every call starts by combining a small fixed-size record over the
 * ranks, in rank order (dist_agree_combine): the call (kind, op, type)
 * and n up to DUO_DIST_INLINE + 1, so every rank sees whether all agree;
 * and, when the whole array has at most DUO_DIST_INLINE elements, the
 * elements themselves, each at its global position, with the positions
 * each rank holds, so the pieces' order is checked too.  On up to 64
 * ranks that is one all-gather of 10 bytes per rank (agree_exchange;
 * a second exchange only where a rank holds several inline elements),
 * beyond one all-reduce of the record.  A small reduction is thus one
 * collective, finished on the host.  Larger arrays (and gathers, and
 * duo_dist_dot) then need every rank's range (dist_pieces: checked for
 * agreement again, now with the whole n, and all-gathered unless it is
 * the layout of the last such call).  Index reductions then take each
 * rank's whole piece at once (arg_by_rank: their pick does not depend on
 * any grouping); sums, min and max go through global chunks of
 * DUO_DIST_CHUNK elements:
 *
 *  1. the chunks lying inside one rank's piece are reduced there, each
 *     in the bits duo_reduce gives it alone, all in one pass of the
 *     backend (duo_be_reduce_segments) that writes its results straight
 *     into pinned host memory;
 *  2. a chunk split between ranks is sent, piece by piece, to the rank
 *     holding its first element, which assembles it and reduces it the
 *     same way (into the same memory);
 *  3. each chunk's result (8 bytes) now sits on the rank holding its
 *     first element, each rank's chunks consecutive: one all-gather
 *     hands every rank every result, bit for bit;
 *  4. every rank combines the chunk results the same way (pairwise sums,
 *     in-order min/max), so all ranks return the same bits.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "dist_internal.h"
#include "profile.h"

enum { KIND_REDUCE = 1, KIND_ARG = 2, KIND_GATHER = 3 };

/* ------------------------------------------------------------------ */
/* The first step: one all-reduce of DIST_AGREE_WORDS words             */

/* Word 0: bits 0-7 the positions held (n <= DUO_DIST_INLINE), then
 * flags, the call and n clipped to DUO_DIST_INLINE + 1; words 1.. the
 * elements at their positions (zero elsewhere), each in a word's low
 * bytes. */
#define AG_MASK 0xffull
#define AG_BAD_CALL (1ull << 8)  /* kind, op or type differ          */
#define AG_BAD_N (1ull << 9)     /* n differs                        */
#define AG_BAD_ORDER (1ull << 10) /* a position held twice, or pieces
                                     out of rank order               */
#define AG_FLAGS (AG_BAD_CALL | AG_BAD_N | AG_BAD_ORDER)
#define AG_CALL(w) (((w) >> 16) & 0xffffull)
#define AG_N(w) (((w) >> 32) & 0xffull)

typedef char agree_fits[DUO_DIST_INLINE <= 8 &&
                                DIST_AGREE_WORDS == 1 + DUO_DIST_INLINE
                            ? 1
                            : -1];

/* Bit positions in a nonzero mask (of at most DUO_DIST_INLINE bits). */
static int lowest_bit(uint64_t m)
{
#if defined(__GNUC__)
    return __builtin_ctzll(m);
#else
    int b = 0;
    while (!(m & 1)) {
        m >>= 1;
        ++b;
    }
    return b;
#endif
}

static int highest_bit(uint64_t m)
{
#if defined(__GNUC__)
    return 63 - __builtin_clzll(m);
#else
    int b = -1;
    while (m) {
        m >>= 1;
        ++b;
    }
    return b;
#endif
}

/* Word 0 of two records combined.  Associative: the flags say whether
 * any two neighbours differ, or any position of a lower rank is not below
 * every position of a higher one; the call and n kept are the lowest
 * rank's. */
static uint64_t combine_word0(uint64_t a, uint64_t b)
{
    const uint64_t ma = a & AG_MASK, mb = b & AG_MASK;
    uint64_t flags = (a | b) & AG_FLAGS;
    if (AG_CALL(a) != AG_CALL(b))
        flags |= AG_BAD_CALL;
    if (AG_N(a) != AG_N(b))
        flags |= AG_BAD_N;
    if (ma != 0 && mb != 0 && highest_bit(ma) >= lowest_bit(mb))
        flags |= AG_BAD_ORDER;
    return (a & ~(AG_MASK | AG_FLAGS)) | flags | ma | mb;
}

void dist_agree_combine(const uint64_t *lower, uint64_t *higher)
{
    higher[0] = combine_word0(lower[0], higher[0]);
    for (int k = 1; k < DIST_AGREE_WORDS; ++k)
        higher[k] |= lower[k];
}

/* ------------------------------------------------------------------ */
/* The compact first exchange: 10 bytes per rank                        */

/* Most small reductions hold one element per rank (a local partial per
 * rank), and the 72-byte record costs MPI more than those few bytes.  Up
 * to DIST_AGREE_COMPACT_RANKS ranks every rank first all-gathers its word
 * 0, squeezed into 16 bits, and its first element (8 bytes): 10 bytes,
 * which Open MPI's shared-memory path moves as fast as the 8 bytes of an
 * MPI_Allreduce of one double (12 or 16 bytes took 10 to 20% longer on a
 * 2-core machine).  Combined here in rank order, they are the whole
 * verdict and every element, unless some rank holds more than one inline
 * element: then (seen alike by every rank, from the same gathered bytes)
 * the full records are combined too, by MPI.
 *
 * The 16 bits: 0-3 the position held plus one (0: none, COMPACT_SEVERAL:
 * two or more), 4-7 n clipped to DUO_DIST_INLINE + 1, 8-10 the kind
 * (1 to 5), 11-12 the op, 13-15 the type (check_local has checked op and
 * type). */
#define COMPACT_BYTES 10
#define COMPACT_SEVERAL 15u

typedef char compact_fits[DUO_DIST_INLINE + 1 < COMPACT_SEVERAL &&
                                  DUO_DIST_INLINE + 1 < 16 &&
                                  DUO_MAX < 4 && DUO_U64 < 8
                              ? 1
                              : -1];

static uint16_t compact_header(uint64_t word0)
{
    const uint64_t m = word0 & AG_MASK, call = AG_CALL(word0);
    const unsigned pos = m == 0                ? 0u
                         : (m & (m - 1)) != 0 ? COMPACT_SEVERAL
                                              : (unsigned)lowest_bit(m) + 1u;
    const unsigned code = (unsigned)(call & 0x7) |
                          (unsigned)((call >> 4) & 0x3) << 3 |
                          (unsigned)((call >> 8) & 0x7) << 5;
    return (uint16_t)(pos | (unsigned)AG_N(word0) << 4 | code << 8);
}

/* Word 0 of a rank that holds at most one inline element. */
static uint64_t expand_header(uint16_t h)
{
    const unsigned pos = h & 0xfu, code = h >> 8;
    const uint64_t call = (uint64_t)(code & 0x7) |
                          (uint64_t)((code >> 3) & 0x3) << 4 |
                          (uint64_t)((code >> 5) & 0x7) << 8;
    const uint64_t mask = pos >= 1 && pos <= DUO_DIST_INLINE
                              ? 1ull << (pos - 1)
                              : 0;
    return mask | call << 16 | (uint64_t)((h >> 4) & 0xfu) << 32;
}

/* The whole record combined by MPI, whose operation ORs words 1..: those
 * of positions this rank does not hold must be zero. */
static duo_status agree_full(const char *where, uint64_t *rec)
{
    dist_pieces_agreed(NULL);
    const uint64_t mask = rec[0] & AG_MASK;
    for (int k = 0; k < DUO_DIST_INLINE; ++k)
        if (!((mask >> k) & 1))
            rec[1 + k] = 0;
    return dist_comm_agree(where, rec);
}

/* The record combined over all ranks, in rank order, in place.  Words
 * 1.. of positions no rank holds are left unset: the verdict refuses the
 * call before they could be read.  A rank that holds no inline element
 * sends its word on the kept layout (dist_pieces.c) instead. */
static duo_status agree_exchange(const char *where, uint64_t *rec,
                                 const duo_dist_range *range)
{
    if (!duo_dist_state.agree_compact)
        return agree_full(where, rec);
    const uint64_t mask = rec[0] & AG_MASK;
    const uint16_t header = compact_header(rec[0]);
    const uint64_t first = mask != 0 ? rec[1 + lowest_bit(mask)]
                                     : dist_pieces_word(range);
    unsigned char mine[COMPACT_BYTES];
    unsigned char all[DIST_AGREE_COMPACT_RANKS][COMPACT_BYTES];
    memcpy(mine, &header, 2);
    memcpy(mine + 2, &first, 8);
    duo_status st = dist_comm_allgather(where, mine, sizeof mine, all);
    if (st != DUO_SUCCESS)
        return st;
    uint64_t w = 0;
    uint64_t words[DIST_AGREE_COMPACT_RANKS];
    int words_only = 1; /* no rank holds an inline element */
    for (int r = 0; r < duo_dist_state.size; ++r) {
        uint16_t h;
        memcpy(&h, all[r], 2);
        if ((h & 0xfu) == COMPACT_SEVERAL)
            return agree_full(where, rec); /* every rank sees it */
        w = r == 0 ? expand_header(h) : combine_word0(w, expand_header(h));
        words_only &= (h & 0xfu) == 0;
        memcpy(&words[r], all[r] + 2, 8);
    }
    dist_pieces_agreed(words_only ? words : NULL);
    /* Each position's element from the rank holding it. */
    rec[0] = w;
    for (int r = 0; r < duo_dist_state.size; ++r) {
        uint16_t h;
        memcpy(&h, all[r], 2);
        if ((h & 0xfu) != 0)
            memcpy(&rec[h & 0xfu], all[r] + 2, 8);
    }
    return DUO_SUCCESS;
}

/* The first step of every call here and of the dot products (kinds 4
 * and 5, dist_dot.c): every
 * rank reaches the same verdict.  With inline (n <= DUO_DIST_INLINE
 * elements of a reduction), elems receives the whole array (n elements
 * of esz bytes, host memory). */
duo_status dist_agree(const char *where, int kind, int op, duo_dtype type,
                      const void *x, const duo_dist_range *range,
                      void *elems)
{
    /* Not in a graph: MPI calls cannot be captured.  Refused here, before
     * any message, on every rank alike. */
    duo_status st = duo_capture_refuse(where);
    if (st != DUO_SUCCESS)
        return st;
    /* Word 0 and the words of the positions held; no clearing of the
     * rest (see agree_exchange): each word is written once, whole, so
     * that the reads of the message's bytes right after find it in one
     * store. */
    uint64_t rec[DIST_AGREE_WORDS];
    const size_t n = range->n;
    const size_t esz = duo_dtype_size(type);
    const int inl = elems != NULL && n <= DUO_DIST_INLINE;
    const uint64_t call = (uint64_t)kind | ((uint64_t)op << 4) |
                          ((uint64_t)type << 8);
    const uint64_t nclip = n <= DUO_DIST_INLINE ? n : DUO_DIST_INLINE + 1;
    rec[0] = (call << 16) | (nclip << 32);
    if (inl && range->count > 0) {
        /* The backend's copy: the arguments are checked, and a profile
         * region would count this internal copy as the caller's. */
        unsigned char tmp[DUO_DIST_INLINE * 8];
        st = duo_be_memcpy(tmp, x, range->count * esz, DUO_DEVICE_TO_HOST);
        if (st != DUO_SUCCESS)
            return st;
        for (size_t i = 0; i < range->count; ++i) {
            uint64_t word; /* a 4-byte element in the low 32 bits */
            if (esz == 8) {
                memcpy(&word, tmp + 8 * i, 8);
            } else {
                uint32_t half;
                memcpy(&half, tmp + 4 * i, 4);
                word = half;
            }
            rec[0] |= 1ull << (range->begin + i);
            rec[1 + range->begin + i] = word;
        }
    }
    st = agree_exchange(where, rec, range);
    if (st != DUO_SUCCESS)
        return st;
    const uint64_t w = rec[0];
    if (w & AG_BAD_CALL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "ranks disagree: this rank (%d) passed op %d, type "
                        "%d, rank 0 op %d, type %d, or another rank made "
                        "another call (or called another collective); "
                        "every rank must make the same call",
                        duo_dist_state.rank, op, (int)type,
                        (int)((AG_CALL(w) >> 4) & 0xf),
                        (int)((AG_CALL(w) >> 8) & 0xff));
    if (w & AG_BAD_N)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "ranks disagree on the array's length: this rank "
                        "(%d) passed n = %zu, another rank n %s %d",
                        duo_dist_state.rank, n,
                        AG_N(w) > DUO_DIST_INLINE ? ">" : "=",
                        (int)(AG_N(w) > DUO_DIST_INLINE ? DUO_DIST_INLINE
                                                        : AG_N(w)));
    if (inl && ((w & AG_BAD_ORDER) || (w & AG_MASK) != (1ull << n) - 1))
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "the pieces do not cover the n = %zu elements once "
                        "each, in rank order (held: 0x%02llx); pieces must "
                        "follow each other in rank order",
                        n, (unsigned long long)(w & AG_MASK));
    for (size_t i = 0; inl && i < n; ++i) {
        unsigned char *to = (unsigned char *)elems + i * esz;
        if (esz == 8) {
            memcpy(to, &rec[1 + i], 8);
        } else {
            const uint32_t half = (uint32_t)rec[1 + i];
            memcpy(to, &half, 4);
        }
    }
    return DUO_SUCCESS;
}

/* Checks that need no other rank. */
static duo_status check_local(const char *where, int kind, duo_reduce_op op,
                              duo_dtype type, const void *x,
                              const duo_dist_range *range, const void *out,
                              const char *out_name)
{
    duo_status st = dist_require_init(where);
    if (st != DUO_SUCCESS)
        return st;
    if (kind != KIND_GATHER && op != DUO_SUM && op != DUO_MIN &&
        op != DUO_MAX)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "op = %d is not a duo_reduce_op; use DUO_SUM, "
                        "DUO_MIN or DUO_MAX", (int)op);
    if (kind == KIND_ARG && op == DUO_SUM)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "op = DUO_SUM has no index; use DUO_MIN or DUO_MAX");
    const size_t size = duo_dtype_size(type);
    if (size == 0)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "type = %d is not a duo_dtype; use DUO_F32, DUO_F64, "
                        "DUO_I32, DUO_I64 or DUO_U64", (int)type);
    if (range == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "range is NULL; pass this rank's piece of the array "
                        "(duo_dist_block_1d, duo_dist_range_make)");
    if (range->begin > range->n || range->count > range->n - range->begin)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "range [%zu, %zu + %zu) lies outside the array of n "
                        "= %zu elements", range->begin, range->begin,
                        range->count, range->n);
    if (range->n > SIZE_MAX / size)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "n = %zu elements of %zu bytes overflow size_t",
                        range->n, size);
    if (range->count > 0 && x == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "x is NULL but this rank's count is %zu; pass device "
                        "memory holding its piece", range->count);
    if (out == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "%s is NULL; pass the address of a host variable",
                        out_name);
    return DUO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Results as 64-bit words, and their combination                      */

/* Size of duo_reduce's result for (op, type). */
static size_t result_size(duo_reduce_op op, duo_dtype type)
{
    return op == DUO_SUM ? 8 : duo_dtype_size(type);
}

static double word_f64(uint64_t w)
{
    double d;
    memcpy(&d, &w, sizeof d);
    return d;
}

/* Pairwise sum of w[lo..hi) (hi > lo), as the header states. */
static double pairwise_f64(const uint64_t *w, size_t lo, size_t hi)
{
    if (hi - lo == 1)
        return word_f64(w[lo]);
    const size_t mid = lo + (hi - lo + 1) / 2;
    return pairwise_f64(w, lo, mid) + pairwise_f64(w, mid, hi);
}

/* Element of `type` held in the low bytes of a word. */
#define WORD_AS(T, w, out)                 \
    do {                                   \
        memcpy(&(out), &(w), sizeof(T));   \
    } while (0)

/* Min or max of the chunk results, in chunk order, with duo's combine. */
#define FOLD_MINMAX(T, words, count, stride, op, out)                      \
    do {                                                                   \
        T acc_, v_;                                                        \
        WORD_AS(T, (words)[0], acc_);                                      \
        for (size_t c_ = 1; c_ < (count); ++c_) {                          \
            WORD_AS(T, (words)[c_ * (stride)], v_);                        \
            acc_ = (op) == DUO_MIN ? DUO_COMBINE_DUO_MIN(acc_, v_)         \
                                   : DUO_COMBINE_DUO_MAX(acc_, v_);        \
        }                                                                  \
        memcpy((out), &acc_, sizeof acc_);                                 \
    } while (0)

static void combine(duo_reduce_op op, duo_dtype type, const uint64_t *w,
                    size_t chunks, void *result)
{
    if (op == DUO_SUM) {
        if (type == DUO_F32 || type == DUO_F64) {
            const double s = pairwise_f64(w, 0, chunks);
            memcpy(result, &s, sizeof s);
        } else {
            uint64_t s = 0; /* wraps modulo 2^64, in any order */
            for (size_t c = 0; c < chunks; ++c)
                s += w[c];
            memcpy(result, &s, sizeof s);
        }
        return;
    }
    switch (type) {
    case DUO_F32: FOLD_MINMAX(float, w, chunks, 1, op, result); break;
    case DUO_F64: FOLD_MINMAX(double, w, chunks, 1, op, result); break;
    case DUO_I32: FOLD_MINMAX(int32_t, w, chunks, 1, op, result); break;
    case DUO_I64: FOLD_MINMAX(int64_t, w, chunks, 1, op, result); break;
    case DUO_U64: FOLD_MINMAX(uint64_t, w, chunks, 1, op, result); break;
    }
}

/* Is candidate a better than the best so far, b?  Strictly smaller
 * (larger), or the first NaN: ties keep the earlier index. */
#define BETTER(T, op, a, b)                                               \
    ((a) != (a) ? (b) == (b)                                              \
                : ((op) == DUO_MIN ? (a) < (b) : (a) > (b)))

/* Candidates of an index reduction, in index order: words (index,
 * value) each. */
#define FOLD_ARG(T, w, count, op, index, value)                           \
    do {                                                                  \
        size_t best_ = 0;                                                 \
        T bv_, v_;                                                        \
        WORD_AS(T, (w)[1], bv_);                                          \
        for (size_t c_ = 1; c_ < (count); ++c_) {                         \
            WORD_AS(T, (w)[2 * c_ + 1], v_);                              \
            if (BETTER(T, op, v_, bv_)) {                                 \
                best_ = c_;                                               \
                bv_ = v_;                                                 \
            }                                                             \
        }                                                                 \
        *(index) = (size_t)(w)[2 * best_];                                \
        if ((value) != NULL)                                              \
            memcpy((value), &bv_, sizeof bv_);                            \
    } while (0)

static void combine_arg(duo_reduce_op op, duo_dtype type, const uint64_t *w,
                        size_t count, size_t *index, void *value)
{
    switch (type) {
    case DUO_F32: FOLD_ARG(float, w, count, op, index, value); break;
    case DUO_F64: FOLD_ARG(double, w, count, op, index, value); break;
    case DUO_I32: FOLD_ARG(int32_t, w, count, op, index, value); break;
    case DUO_I64: FOLD_ARG(int64_t, w, count, op, index, value); break;
    case DUO_U64: FOLD_ARG(uint64_t, w, count, op, index, value); break;
    }
}

/* Arg reduction of n <= DUO_DIST_INLINE host elements: every element is
 * a candidate. */
static void small_arg(duo_reduce_op op, duo_dtype type, const void *x,
                      size_t n, size_t *index, void *value)
{
    const size_t size = duo_dtype_size(type);
    uint64_t w[2 * DUO_DIST_INLINE];
    memset(w, 0, sizeof w);
    for (size_t i = 0; i < n; ++i) {
        w[2 * i] = i;
        memcpy(&w[2 * i + 1], (const char *)x + i * size, size);
    }
    combine_arg(op, type, w, n, index, value);
}

/* ------------------------------------------------------------------ */
/* Chunks                                                              */

/* Kept between calls (dist_reduce_release frees them): the backend's
 * scratch for the chunk results, a split chunk assembled on the device
 * (CUDA builds; on the CPU the host buffer is device memory already), and
 * every chunk's words in pinned host memory, which the GPU writes this
 * rank's into (no copy to queue after the kernels) and MPI gathers. */
static dist_buffer seg_scratch, chunk_dev;
static dist_buffer host_words = {NULL, 0, 1};

void dist_reduce_release(void)
{
    dist_buffer_release(&seg_scratch);
    dist_buffer_release(&chunk_dev);
    dist_buffer_release(&host_words);
}

/* The chunks a rank owns -- those whose first element it holds -- are
 * first_owned(begin) .. first_owned(begin + count) - 1: consecutive, in
 * rank order, together every chunk once. */
static size_t first_owned(size_t begin)
{
    return (begin + DUO_DIST_CHUNK - 1) / DUO_DIST_CHUNK;
}

/* Rank holding global element i (whose piece is non-empty). */
static int owner_of(const dist_piece *all, int size, uint64_t i)
{
    for (int r = 0; r < size; ++r)
        if (all[r].count > 0 && i >= all[r].begin &&
            i < all[r].begin + all[r].count)
            return r;
    return -1;
}

/* Queue the results of `count` chunks of `len` elements at device x into
 * words (pinned host memory; duo_be_reduce_segments: one pass over all of
 * them, the bits of duo_reduce on each). */
static duo_status queue_chunks(duo_reduce_op op, duo_dtype type,
                               const void *x, size_t len, size_t count,
                               uint64_t *words)
{
    if (count == 0)
        return DUO_SUCCESS;
    duo_status st = dist_buffer_reserve(
        &seg_scratch, duo_be_reduce_segments_scratch(type, len, count));
    if (st != DUO_SUCCESS)
        return st;
    const int region = duo_profile_open("duo_dist_reduce chunks",
                                        DUO_REGION_REDUCE, NULL);
    st = duo_be_reduce_segments(op, type, x, len, count, words,
                                seg_scratch.p, NULL);
    duo_profile_close(region, NULL,
                      (double)(len * count * duo_dtype_size(type)),
                      (double)(len * count));
    return st;
}

/* Steps 1 and 2 of the file comment: the words of the chunks this rank
 * owns, in chunk order, at words + first_owned(begin).  Host
 * copies of split chunks' pieces come first, so that the device reduces
 * the whole chunks while MPI moves those pieces; then one wait for the
 * device's writes into words. */
static duo_status local_chunks(const char *where, duo_reduce_op op,
                               duo_dtype type, const void *x,
                               const dist_piece *all, uint64_t *words)
{
    const size_t C = DUO_DIST_CHUNK;
    const int size = duo_dist_state.size, me = duo_dist_state.rank;
    const size_t esz = duo_dtype_size(type);
    const size_t n = (size_t)all[me].n, b = (size_t)all[me].begin;
    const size_t e = b + (size_t)all[me].count;
    if (e == b)
        return DUO_SUCCESS;
    const char *xb = (const char *)x;
    /* Owned: c_lo .. c_hi - 1, of which c_lo .. c_full - 1 are whole
     * chunks of C elements; a last one (c_full < c_hi) ends at n inside
     * the piece, or runs past it (a split chunk, completed from the
     * following ranks). */
    const size_t c_lo = first_owned(b), c_hi = first_owned(e);
    const size_t c_full = e / C > c_lo ? e / C : c_lo;
    const size_t t_b = c_full * C, t_e = t_b + C < n ? t_b + C : n;
    const int tail = c_full < c_hi, tail_split = tail && t_e > e;
    uint64_t *mine = words + c_lo;
    duo_status st = DUO_SUCCESS;

    /* The head (elements before the first chunk boundary) goes to the
     * owner of the chunk it continues; a split tail is assembled here. */
    dist_msg send, *recvs = NULL;
    int nsends = 0, nrecvs = 0;
    unsigned char *send_buf = NULL, *chunk_buf = NULL;
    if (st == DUO_SUCCESS && b % C != 0) {
        const size_t he = c_lo * C < e ? c_lo * C : e;
        send_buf = (unsigned char *)malloc((he - b) * esz);
        if (send_buf == NULL)
            st = duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                          "no host memory for %zu bytes", (he - b) * esz);
        else
            st = duo_be_memcpy(send_buf, xb, (he - b) * esz,
                               DUO_DEVICE_TO_HOST);
        send.buf = send_buf;
        send.bytes = (he - b) * esz;
        send.peer = owner_of(all, size, b / C * C);
        send.tag = 11;
        nsends = 1;
    }
    if (st == DUO_SUCCESS && tail_split) {
        chunk_buf = (unsigned char *)malloc((t_e - t_b) * esz);
        recvs = (dist_msg *)malloc((size_t)size * sizeof(dist_msg));
        if (chunk_buf == NULL || recvs == NULL)
            st = duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                          "no host memory for a chunk of %zu bytes",
                          (t_e - t_b) * esz);
        else
            st = duo_be_memcpy(chunk_buf, xb + (t_b - b) * esz,
                               (e - t_b) * esz, DUO_DEVICE_TO_HOST);
        for (int r = me + 1; r < size && st == DUO_SUCCESS; ++r) {
            const size_t rb = (size_t)all[r].begin;
            const size_t re = rb + (size_t)all[r].count;
            if (re == rb || rb >= t_e)
                continue;
            recvs[nrecvs].buf = chunk_buf + (rb - t_b) * esz;
            recvs[nrecvs].bytes = ((re < t_e ? re : t_e) - rb) * esz;
            recvs[nrecvs].peer = r;
            recvs[nrecvs++].tag = 11;
        }
    }

    /* Whole chunks, and a last one that ends inside the piece. */
    if (st == DUO_SUCCESS)
        st = queue_chunks(op, type, xb + (c_lo * C - b) * esz, C,
                          c_full - c_lo, mine);
    if (st == DUO_SUCCESS && tail && !tail_split)
        st = queue_chunks(op, type, xb + (t_b - b) * esz, t_e - t_b, 1,
                          mine + (c_full - c_lo));
    if (st == DUO_SUCCESS)
        st = dist_comm_exchange(where, &send, nsends, recvs, nrecvs);
    if (st == DUO_SUCCESS && tail_split) {
        const void *dev = chunk_buf;
#ifdef DUO_BACKEND_CUDA
        st = dist_buffer_reserve(&chunk_dev, C * 8);
        if (st == DUO_SUCCESS)
            st = duo_be_memcpy(chunk_dev.p, chunk_buf, (t_e - t_b) * esz,
                               DUO_HOST_TO_DEVICE);
        dev = chunk_dev.p;
#endif
        if (st == DUO_SUCCESS)
            st = queue_chunks(op, type, dev, t_e - t_b, 1,
                              mine + (c_full - c_lo));
    }
    if (st == DUO_SUCCESS && c_hi > c_lo)
        st = duo_be_stream_synchronize(NULL);
    free(send_buf);
    free(chunk_buf);
    free(recvs);
    return st;
}

/* Step 3: every rank's words to every rank (each rank's own are in
 * place). */
static duo_status share_chunks(const char *where, const dist_piece *all,
                               uint64_t *words)
{
    const int size = duo_dist_state.size;
    size_t *counts = (size_t *)malloc(2 * (size_t)size * sizeof(size_t));
    if (counts == NULL)
        return duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                        "no host memory for %d counts", size);
    size_t *displs = counts + size;
    for (int r = 0; r < size; ++r) {
        const size_t lo = first_owned((size_t)all[r].begin);
        const size_t hi = first_owned((size_t)(all[r].begin + all[r].count));
        counts[r] = hi - lo;
        displs[r] = lo;
    }
    const duo_status st =
        dist_comm_allgatherv_u64(where, words, counts, displs);
    free(counts);
    return st;
}

/* duo_dist_reduce_arg of n > DUO_DIST_INLINE.  The pick is one element
 * in a total order (NaN first, then the better value, then the lower
 * index), which no grouping changes: so each rank takes its whole piece
 * in one duo_reduce_arg, and the ranks' picks (words index, value, in
 * rank order, none from an empty piece) are combined as chunk results
 * are -- the same element as through chunks, at the cost of one pass. */
static duo_status arg_by_rank(const char *where, duo_reduce_op op,
                              duo_dtype type, const void *x,
                              const dist_piece *all, size_t *index,
                              void *value)
{
    const int size = duo_dist_state.size, me = duo_dist_state.rank;
    duo_status st = dist_buffer_reserve(&host_words, 2 * (size_t)size * 8);
    size_t *counts = (size_t *)malloc(2 * (size_t)size * sizeof(size_t));
    if (st == DUO_SUCCESS && counts == NULL)
        st = duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                      "no host memory for %d counts", size);
    if (st != DUO_SUCCESS) {
        free(counts);
        return st;
    }
    size_t *displs = counts + size, picks = 0;
    for (int r = 0; r < size; ++r) {
        counts[r] = all[r].count > 0 ? 2 : 0;
        displs[r] = 2 * picks;
        picks += all[r].count > 0;
    }
    uint64_t *words = (uint64_t *)host_words.p;
    if (all[me].count > 0) {
        size_t i = 0;
        uint64_t v = 0; /* the element in the low bytes */
        const size_t count = (size_t)all[me].count;
        const int region = duo_profile_open("duo_dist_reduce_arg piece",
                                            DUO_REGION_REDUCE, NULL);
        st = duo_be_reduce_arg(op, type, x, count, &i, &v);
        duo_profile_close(region, NULL,
                          (double)(count * duo_dtype_size(type)),
                          (double)count);
        words[displs[me]] = all[me].begin + i;
        words[displs[me] + 1] = v;
    }
    if (st == DUO_SUCCESS)
        st = dist_comm_allgatherv_u64(where, words, counts, displs);
    if (st == DUO_SUCCESS)
        combine_arg(op, type, words, picks, index, value);
    free(counts);
    return st;
}

/* duo_dist_reduce and duo_dist_reduce_arg. */
static duo_status reduce_any(const char *where, int kind, duo_reduce_op op,
                             duo_dtype type, const void *x,
                             const duo_dist_range *range, void *result,
                             size_t *index, void *value)
{
    duo_status st = check_local(where, kind, op, type, x, range,
                                kind == KIND_ARG ? (const void *)index
                                                 : result,
                                kind == KIND_ARG ? "index" : "result");
    if (st != DUO_SUCCESS)
        return dist_collective_failed(st);
    const size_t n = range->n;
    unsigned char host[DUO_DIST_INLINE * 8];
    st = dist_agree(where, kind, (int)op, type, x, range, host);
    if (st != DUO_SUCCESS)
        return dist_collective_failed(st);
    if (n == 0) {
        if (kind == KIND_REDUCE && op == DUO_SUM) {
            memset(result, 0, 8); /* 0.0, and integer 0 */
            return DUO_SUCCESS;
        }
        return dist_collective_failed(duo_fail(
            DUO_ERROR_INVALID_ARGUMENT, where,
            "n = 0: an empty array has no %s", op == DUO_MIN ? "minimum"
                                                             : "maximum"));
    }
    if (n <= DUO_DIST_INLINE) {
        if (kind == KIND_REDUCE)
            dist_small_reduce(op, type, host, n, result);
        else
            small_arg(op, type, host, n, index, value);
        return DUO_SUCCESS;
    }
    dist_piece *all = (dist_piece *)malloc((size_t)duo_dist_state.size *
                                           sizeof(dist_piece));
    st = all != NULL ? dist_pieces(where, range, all)
                     : duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                                "no host memory for %d pieces",
                                duo_dist_state.size);
    if (st != DUO_SUCCESS) {
        free(all);
        return dist_collective_failed(st);
    }
    if (kind == KIND_ARG) {
        st = arg_by_rank(where, op, type, x, all, index, value);
        free(all);
        return st == DUO_SUCCESS ? st : dist_collective_failed(st);
    }
    const size_t chunks = first_owned(n);
    st = dist_buffer_reserve(&host_words, chunks * 8);
    uint64_t *words = (uint64_t *)host_words.p;
    if (st == DUO_SUCCESS)
        st = local_chunks(where, op, type, x, all, words);
    if (st == DUO_SUCCESS)
        st = share_chunks(where, all, words);
    free(all);
    if (st == DUO_SUCCESS) {
        uint64_t out = 0;
        combine(op, type, words, chunks, &out);
        memcpy(result, &out, result_size(op, type));
    }
    return st == DUO_SUCCESS ? st : dist_collective_failed(st);
}

duo_status duo_dist_reduce(duo_reduce_op op, duo_dtype type, const void *x,
                           const duo_dist_range *range, void *result)
{
    return reduce_any("duo_dist_reduce", KIND_REDUCE, op, type, x, range,
                      result, NULL, NULL);
}

duo_status duo_dist_reduce_arg(duo_reduce_op op, duo_dtype type,
                               const void *x, const duo_dist_range *range,
                               size_t *index, void *value)
{
    return reduce_any("duo_dist_reduce_arg", KIND_ARG, op, type, x, range,
                      NULL, index, value);
}

duo_status duo_dist_gather(duo_dtype type, const void *x,
                           const duo_dist_range *range, void *out, int root)
{
    static const char *const where = "duo_dist_gather";
    const int size = duo_dist_state.size, me = duo_dist_state.rank;
    duo_status st = check_local(where, KIND_GATHER, DUO_SUM, type, x, range,
                                me == root ? out : (const void *)"", "out");
    if (st == DUO_SUCCESS && (root < 0 || root >= size))
        st = duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                      "root = %d; expected 0 <= root < %d ranks", root, size);
    if (st != DUO_SUCCESS)
        return dist_collective_failed(st);
    dist_piece *all = (dist_piece *)malloc((size_t)size * sizeof(dist_piece));
    st = all != NULL ? dist_agree(where, KIND_GATHER, 0, type, x, range, NULL)
                     : duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                                "no host memory for %d pieces", size);
    if (st == DUO_SUCCESS)
        st = dist_pieces(where, range, all);
    if (st != DUO_SUCCESS) {
        free(all);
        return dist_collective_failed(st);
    }
    const size_t esz = duo_dtype_size(type);
    size_t *bytes = (size_t *)malloc(2 * (size_t)size * sizeof(size_t));
    void *host = malloc(range->count * esz + 1);
    if (bytes == NULL || host == NULL)
        st = duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                      "no host memory for %zu bytes", range->count * esz);
    if (st == DUO_SUCCESS && range->count > 0)
        st = duo_memcpy(host, x, range->count * esz, DUO_DEVICE_TO_HOST);
    if (st == DUO_SUCCESS) {
        for (int r = 0; r < size; ++r) {
            bytes[r] = (size_t)all[r].count * esz;
            bytes[size + r] = (size_t)all[r].begin * esz;
        }
        st = dist_comm_gatherv(where, host, range->count * esz, out, bytes,
                               bytes + size, root);
    }
    free(all);
    free(bytes);
    free(host);
    return st == DUO_SUCCESS ? st : dist_collective_failed(st);
}
