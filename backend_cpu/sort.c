/*
 * sort.c (CPU) - duo_sort: a radix sort of the mapped keys of
 * src/sort_keys.h, 11 bits a pass, stable, parallel with OpenMP: LSD,
 * or for many keys one MSD pass and then LSD within each bucket.
 *
 * One read of the keys counts the digits of every pass; a pass whose
 * digit is the same for every key moves nothing and is left out, and
 * the number of passes left says which buffer the first writes so that
 * the last writes keys_out (values_out).  The keys are mapped as the
 * first pass reads them and mapped back as the last writes them, and
 * the permutation's first pass takes each key's index as its value, so
 * neither takes a pass of its own.  A pass: every thread scatters its
 * contiguous share of the elements to start offsets computed from the
 * threads' digit counts (digit-major, then thread order, which keeps
 * the sort stable), and counts the next pass's digits as it goes.
 *
 * From SPLIT_MIN elements on, only the first pass goes over all of them,
 * by the top digit; the other passes then sort each of its buckets
 * alone (the threads take buckets in turn), within the cache where the
 * keys spread over the buckets.  That pass is an MSD step, the rest LSD
 * in each bucket, all stable, so the output is the same.  The largest
 * bucket is taken first; where it would hold more than a thread's
 * share, the threads could not share the work evenly, and all passes go
 * over all the keys.
 *
 * The output of a stable sort is unique, so the bits do not depend on
 * the number of threads or on either path.
 *
 * Why 11 bits: 32-bit keys take 3 passes instead of 8 bits' 4, 64-bit
 * keys 6 instead of 8; the 2048 buckets' counters and write positions
 * still fit the L2 cache.  Buffering the writes of each bucket (write-
 * combining) was measured slower here, at 8 and at 11 bits.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend.h"
#include "sort_cpu.h"
#include "sort_keys.h"

#define DIGIT_BITS 11
#define BUCKETS (1 << DIGIT_BITS)
/* Digits of a key of type K, and of the widest key. */
#define PASSES_OF(K) ((int)((sizeof(K) * 8 + DIGIT_BITS - 1) / DIGIT_BITS))
#define MAX_PASSES PASSES_OF(uint64_t)
/* From this many elements on, the passes after the first sort each bucket
 * of the top digit alone (see DEFINE_RADIX).  Below, the buckets' own
 * counts (2048 of them a pass, a bucket) cost more than the cache misses
 * they save: on one thread of a Xeon with 2 MiB of L2 a core, 2^20 u32
 * keys sorted in 8.1 ms unsplit and 8.6 split, 2 * 10^6 in 30 and 20. */
#define SPLIT_MIN ((size_t)1 << 21)
/* Fewer elements than this per thread are not worth another thread. */
#define MIN_PER_THREAD 65536
#define ALIGN 64

static int team_size(size_t n)
{
#ifdef _OPENMP
    const size_t most = n / MIN_PER_THREAD + 1;
    const int threads = omp_get_max_threads();
    return (size_t)threads < most ? threads : (int)most;
#else
    (void)n;
    return 1;
#endif
}

static int thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

static int threads_now(void)
{
#ifdef _OPENMP
    return omp_get_num_threads();
#else
    return 1;
#endif
}

/* ------------------------------------------------------------------ */
/* Scratch kept between sorts                                          */

/* The scratch of a sort (room for the keys and values, and the digit
 * counts) is kept for the next sort, up to KEEP_BYTES, until
 * duo_finalize: fresh pages cost a fault each on first touch, which was
 * a sixth of a 2^24 u32 sort's time.  As in gemm.c, one buffer is kept,
 * taken whole by a sort and put back after (a sort in another thread
 * meanwhile allocates its own); ALIGN bytes before it hold its size. */
#define KEEP_BYTES ((size_t)128 << 20)
static _Atomic(unsigned char *) kept;

static void *scratch_take(size_t bytes)
{
    unsigned char *p = atomic_exchange(&kept, NULL);
    if (p != NULL && *(size_t *)p >= bytes)
        return p + ALIGN;
    free(p);
    p = (unsigned char *)aligned_alloc(ALIGN, ALIGN + bytes);
    if (p == NULL)
        return NULL;
    *(size_t *)p = bytes;
    return p + ALIGN;
}

static void scratch_put(void *buf)
{
    unsigned char *p = (unsigned char *)buf - ALIGN;
    if (*(size_t *)p > KEEP_BYTES)
        free(p);
    else
        free(atomic_exchange(&kept, p));
}

void duo_cpu_sort_release(void) { free(atomic_exchange(&kept, NULL)); }

/* ------------------------------------------------------------------ */
/* The passes                                                          */

/* Each map of sort_keys.h, and its inverse, XORs a key with one of two
 * masks chosen by the key's top bit: x ^ c, or x ^ c ^ f where the top
 * bit is set.  So the passes map the keys as they first read them and
 * map them back as they last write them, with no passes of their own. */
typedef struct twist {
    uint64_t c, f;
} twist;

static twist key_twist(duo_key_type type, int descending, int inverse)
{
    const duo_key_kind kind = duo_sort_key_kind(type);
    const int bits = duo_sort_key_bits(type);
    const uint64_t top = (uint64_t)1 << (bits - 1);
    twist w;
    if (inverse) {
        w.c = duo_sort_key_unmap(kind, bits, 0, descending);
        w.f = duo_sort_key_unmap(kind, bits, top, descending) ^ top ^ w.c;
    } else {
        w.c = duo_sort_key_map(kind, bits, 0, descending);
        w.f = duo_sort_key_map(kind, bits, top, descending) ^ top ^ w.c;
    }
    return w;
}

#define TWIST(K, x, c, f)                                                     \
    ((K)((x) ^ (c) ^ ((f) & ((K)0 - ((x) >> (sizeof(K) * 8 - 1))))))
#define DIGIT(key, shift) ((int)(((key) >> (shift)) & (BUCKETS - 1)))

typedef struct radix_job {
    size_t n;
    twist map, unmap;
    size_t *counts; /* team x MAX_PASSES x BUCKETS */
    size_t *ahead;  /* team x team x BUCKETS */
    size_t *starts; /* BUCKETS + 1: the top digit's buckets (SPLIT_MIN) */
    int team;
} radix_job;

/* radix_K_V: sort the keys in[] (values vin[], or for the permutation
 * vin == NULL: each key's index) into k[0] (v[0]), through the scratch
 * k[1] (v[1]).  Returns the number of passes that moved the keys; 0
 * when every key is the same (in[] is then the result, unmoved).
 *
 * First every thread counts every digit of the mapped keys of its
 * contiguous share, in one read.  A pass whose digit is the same for
 * every key would move nothing and is left out; of the `moves` passes
 * left, the last writes k[0], so the first writes k[0] when `moves` is
 * odd (and reads a copy of in[] in k[1] where in[] is k[0]: in place).
 * A pass: one thread turns the threads' counts into start offsets
 * (digit-major, then thread order, which keeps the sort stable), and
 * every thread scatters its share.  While a thread scatters, it counts
 * the next pass's digits by the share of the thread that will read them
 * (ahead[writer][reader][digit]), so no pass after the first needs a
 * counting read of its own.  Split (n >= SPLIT_MIN): the first pass
 * goes by the top digit left, with k[(moves - 1) & 1] as ever, and each
 * of its buckets then takes the other passes alone, counted in one read
 * of the bucket, ending in k[0] as well.  V_MOVE(dst, vsrc, i) moves
 * value i (nothing for keys alone). */
#define DEFINE_RADIX(name, K, V, V_MOVE)                                      \
    static int name(const K *in, const V *vin, K *k[2], V *v[2],            \
                    const radix_job *job)                                     \
    {                                                                         \
        enum { PASSES = PASSES_OF(K) };                                       \
        const size_t n = job->n;                                              \
        size_t *const counts = job->counts, *const ahead = job->ahead;       \
        const int team = job->team;                                           \
        int order[PASSES], moves = 0, copy_k = 0, copy_v = 0, split = 0;      \
        int largest = 0;                                                      \
        (void)team;                                                           \
        (void)v;                                                              \
        DUO_RADIX_PARALLEL_(team)                                             \
        {                                                                     \
            const int t = thread_id(), nt = threads_now();                    \
            const size_t lo = n * (size_t)t / (size_t)nt;                     \
            const size_t hi = n * (size_t)(t + 1) / (size_t)nt;               \
            size_t *mine = counts + (size_t)t * MAX_PASSES * BUCKETS;         \
            size_t *my_ahead = ahead + (size_t)t * nt * BUCKETS;              \
            const K map_c = (K)job->map.c, map_f = (K)job->map.f;             \
            memset(mine, 0, PASSES * BUCKETS * sizeof *mine);                 \
            for (size_t i = lo; i < hi; ++i) {                                \
                const K key = TWIST(K, in[i], map_c, map_f);                  \
                for (int p = 0; p < PASSES; ++p)                              \
                    ++mine[p * BUCKETS + DIGIT(key, p * DIGIT_BITS)];         \
            }                                                                 \
            DUO_RADIX_BARRIER_                                                \
            DUO_RADIX_SINGLE_                                                 \
            {                                                                 \
                size_t top_most = 0;                                          \
                for (int p = 0; p < PASSES; ++p) {                            \
                    size_t most = 0;                                          \
                    for (int d = 0; d < BUCKETS; ++d) {                       \
                        size_t total = 0;                                     \
                        for (int u = 0; u < nt; ++u)                          \
                            total += counts[((size_t)u * MAX_PASSES + p) *    \
                                                BUCKETS + d];                 \
                        most = total > most ? total : most;                   \
                    }                                                         \
                    if (most < n)                                             \
                        order[moves++] = p;                                   \
                    top_most = most < n ? most : top_most;                    \
                }                                                             \
                /* Split where no bucket of the top digit is more than  \
                 * a thread's share (the largest is taken first). */       \
                split = moves >= 2 && n >= SPLIT_MIN &&                       \
                        top_most * (size_t)nt <= n;                           \
                if (split) {                                                  \
                    size_t sum = 0;                                           \
                    for (int d = 0; d < BUCKETS; ++d) {                       \
                        job->starts[d] = sum;                                 \
                        for (int u = 0; u < nt; ++u)                          \
                            sum += counts[((size_t)u * MAX_PASSES +           \
                                           order[moves - 1]) * BUCKETS + d];  \
                        if (sum - job->starts[d] == top_most)                 \
                            largest = d;                                      \
                    }                                                         \
                    job->starts[BUCKETS] = sum;                               \
                }                                                             \
                copy_k = (moves & 1) && (const void *)in == (void *)k[0];     \
                copy_v = (moves & 1) && vin != NULL &&                        \
                         (const void *)vin == (void *)v[0];                   \
            }                                                                 \
            const K *src = in;                                                \
            const V *vsrc = vin;                                              \
            (void)vsrc;                                                       \
            if (copy_k || copy_v) {                                           \
                if (copy_k) {                                                 \
                    memcpy(k[1] + lo, in + lo, (hi - lo) * sizeof(K));        \
                    src = k[1];                                               \
                }                                                             \
                if (copy_v) {                                                 \
                    memcpy(v[1] + lo, vin + lo, (hi - lo) * sizeof(V));       \
                    vsrc = v[1];                                              \
                }                                                             \
                DUO_RADIX_BARRIER_                                            \
            }                                                                 \
            /* Split: the first pass moves the keys by the top digit,  \
             * and the other passes follow each bucket of it alone. */   \
            const int shared_moves = split ? 1 : moves;                       \
            for (int j = 0; j < shared_moves; ++j) {                          \
                const int pass = split ? order[moves - 1] : order[j];         \
                const int shift = pass * DIGIT_BITS;                          \
                const int to = (moves - 1 - j) & 1;                           \
                K *dst = k[to];                                               \
                V *vdst = v[to];                                              \
                size_t *mine_now = mine + (size_t)pass * BUCKETS;             \
                (void)vdst;                                                   \
                if (j > 0) {                                                  \
                    for (int d = 0; d < BUCKETS; ++d) {                       \
                        size_t c = 0;                                         \
                        for (int u = 0; u < nt; ++u)                          \
                            c += ahead[((size_t)u * nt + t) * BUCKETS + d];   \
                        mine_now[d] = c;                                      \
                    }                                                         \
                    DUO_RADIX_BARRIER_                                        \
                }                                                             \
                DUO_RADIX_SINGLE_                                             \
                {                                                             \
                    size_t sum = 0;                                           \
                    for (int d = 0; d < BUCKETS; ++d)                         \
                        for (int u = 0; u < nt; ++u) {                        \
                            size_t *c = counts +                              \
                                        ((size_t)u * MAX_PASSES + pass) *     \
                                            BUCKETS + d;                      \
                            const size_t here = *c;                           \
                            *c = sum;                                         \
                            sum += here;                                      \
                        }                                                     \
                }                                                             \
                /* Map as the keys are first read, back as last written. */ \
                const K in_c = j == 0 ? map_c : 0, in_f = j == 0 ? map_f : 0; \
                const K out_c = j == moves - 1 ? (K)job->unmap.c : 0;         \
                const K out_f = j == moves - 1 ? (K)job->unmap.f : 0;         \
                if (j + 1 < shared_moves) {                                   \
                    const int next = order[j + 1] * DIGIT_BITS;               \
                    /* The reader of each bucket's next position, and     \
                     * where that reader's share ends. */                  \
                    int reader[BUCKETS];                                      \
                    size_t end[BUCKETS];                                      \
                    for (int d = 0; d < BUCKETS; ++d) {                       \
                        int u = 0;                                            \
                        while (u + 1 < nt && n * (size_t)(u + 1) /            \
                                                     (size_t)nt <=            \
                                                 mine_now[d])                 \
                            ++u;                                              \
                        reader[d] = u;                                        \
                        end[d] = n * (size_t)(u + 1) / (size_t)nt;            \
                    }                                                         \
                    memset(my_ahead, 0,                                       \
                           (size_t)nt * BUCKETS * sizeof *my_ahead);          \
                    for (size_t i = lo; i < hi; ++i) {                        \
                        const K key = TWIST(K, src[i], in_c, in_f);           \
                        const int d = DIGIT(key, shift);                      \
                        const size_t at = mine_now[d]++;                      \
                        while (at >= end[d]) {                                \
                            ++reader[d];                                      \
                            end[d] = n * (size_t)(reader[d] + 1) /            \
                                     (size_t)nt;                              \
                        }                                                     \
                        dst[at] = TWIST(K, key, out_c, out_f);                \
                        V_MOVE(vdst[at], vsrc, i);                            \
                        ++my_ahead[(size_t)reader[d] * BUCKETS +              \
                                   DIGIT(key, next)];                         \
                    }                                                         \
                } else {                                                      \
                    for (size_t i = lo; i < hi; ++i) {                        \
                        const K key = TWIST(K, src[i], in_c, in_f);           \
                        const size_t at = mine_now[DIGIT(key, shift)]++;      \
                        dst[at] = TWIST(K, key, out_c, out_f);                \
                        V_MOVE(vdst[at], vsrc, i);                            \
                    }                                                         \
                }                                                             \
                src = dst;                                                    \
                vsrc = vdst;                                                  \
                DUO_RADIX_BARRIER_                                            \
            }                                                                 \
            if (split) {                                                      \
                const K out_c = (K)job->unmap.c, out_f = (K)job->unmap.f;     \
                const int local = moves - 1;                                  \
                DUO_RADIX_FOR_DYNAMIC_                                        \
                for (int i = 0; i < BUCKETS; ++i) {                           \
                    const int b = i == 0 ? largest : i <= largest ? i - 1 : i; \
                    const size_t blo = job->starts[b];                        \
                    const size_t bhi = job->starts[b + 1];                    \
                    const K *bsrc = k[local & 1];                             \
                    const V *bvsrc = v[local & 1];                            \
                    (void)bvsrc;                                              \
                    memset(mine, 0, (size_t)local * BUCKETS * sizeof *mine);  \
                    for (size_t i = blo; i < bhi; ++i)                        \
                        for (int q = 0; q < local; ++q)                       \
                            ++mine[q * BUCKETS +                              \
                                   DIGIT(bsrc[i], order[q] * DIGIT_BITS)];    \
                    for (int q = 0; q < local; ++q) {                         \
                        size_t sum = blo;                                     \
                        for (int d = 0; d < BUCKETS; ++d) {                   \
                            const size_t here = mine[q * BUCKETS + d];        \
                            mine[q * BUCKETS + d] = sum;                      \
                            sum += here;                                      \
                        }                                                     \
                    }                                                         \
                    for (int q = 0; q < local; ++q) {                         \
                        const int shift = order[q] * DIGIT_BITS;              \
                        const int to = (local - 1 - q) & 1;                   \
                        const K c = q == local - 1 ? out_c : 0;               \
                        const K f = q == local - 1 ? out_f : 0;               \
                        size_t *at = mine + (size_t)q * BUCKETS;              \
                        K *dst = k[to];                                       \
                        V *vdst = v[to];                                      \
                        (void)vdst;                                           \
                        for (size_t i = blo; i < bhi; ++i) {                  \
                            const K key = bsrc[i];                            \
                            const size_t to_i = at[DIGIT(key, shift)]++;      \
                            dst[to_i] = TWIST(K, key, c, f);                  \
                            V_MOVE(vdst[to_i], bvsrc, i);                     \
                        }                                                     \
                        bsrc = dst;                                           \
                        bvsrc = vdst;                                         \
                    }                                                         \
                }                                                             \
            }                                                                 \
        }                                                                     \
        return moves;                                                         \
    }

#ifdef _OPENMP
#define DUO_RADIX_PARALLEL_(team) _Pragma("omp parallel num_threads(team)")
#define DUO_RADIX_BARRIER_ _Pragma("omp barrier")
#define DUO_RADIX_SINGLE_ _Pragma("omp single")
#define DUO_RADIX_FOR_DYNAMIC_ _Pragma("omp for schedule(dynamic, 1)")
#else
#define DUO_RADIX_FOR_DYNAMIC_
#define DUO_RADIX_PARALLEL_(team)
#define DUO_RADIX_BARRIER_
#define DUO_RADIX_SINGLE_
#endif

/* vsrc == NULL: the value is the index (the permutation's first pass). */
#define MOVE_VALUE(dst, vsrc, i) ((dst) = (vsrc) != NULL ? (vsrc)[i] : (i))
#define MOVE_NOTHING(dst, vsrc, i) ((void)0)

DEFINE_RADIX(radix_u32, uint32_t, char, MOVE_NOTHING)
DEFINE_RADIX(radix_u32_v32, uint32_t, uint32_t, MOVE_VALUE)
DEFINE_RADIX(radix_u32_v64, uint32_t, uint64_t, MOVE_VALUE)
DEFINE_RADIX(radix_u64, uint64_t, char, MOVE_NOTHING)
DEFINE_RADIX(radix_u64_v32, uint64_t, uint32_t, MOVE_VALUE)
DEFINE_RADIX(radix_u64_v64, uint64_t, uint64_t, MOVE_VALUE)

static size_t round_up(size_t x) { return (x + ALIGN - 1) / ALIGN * ALIGN; }

duo_status duo_be_sort(duo_key_type type, duo_sort_order order, size_t n,
                       const void *keys_in, void *keys_out,
                       const void *values_in, void *values_out,
                       size_t value_size, int permutation,
                       duo_stream stream)
{
    (void)stream;
    const char *where = permutation ? "duo_sort_permutation" : "duo_sort";
    const int bits = duo_sort_key_bits(type);
    const size_t ksize = (size_t)bits / 8;
    const int team = team_size(n);
    /* One scratch: keys, values, counts, ahead (see DEFINE_RADIX). */
    const size_t kbytes = round_up(n * ksize);
    const size_t vbytes = round_up(n * value_size);
    const size_t cbytes =
        round_up((size_t)team * MAX_PASSES * BUCKETS * sizeof(size_t));
    const size_t abytes =
        round_up((size_t)team * team * BUCKETS * sizeof(size_t));
    const size_t sbytes = round_up((BUCKETS + 1) * sizeof(size_t));
    unsigned char *scratch = (unsigned char *)scratch_take(
        kbytes + vbytes + cbytes + abytes + sbytes);
    if (scratch == NULL)
        return duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                        "no host memory for the sort's temporary copy of "
                        "%zu keys and values", n);
    const int descending = order == DUO_DESCENDING;
    radix_job job;
    job.n = n;
    job.map = key_twist(type, descending, 0);
    job.unmap = key_twist(type, descending, 1);
    job.counts = (size_t *)(void *)(scratch + kbytes + vbytes);
    job.ahead = (size_t *)(void *)(scratch + kbytes + vbytes + cbytes);
    job.starts =
        (size_t *)(void *)(scratch + kbytes + vbytes + cbytes + abytes);
    job.team = team;
    /* The permutation's first pass takes each key's index as its value. */
    const void *vin = permutation ? NULL : values_in;
#define RUN_RADIX(fn, K, V)                                                   \
    do {                                                                      \
        K *k[2] = {(K *)keys_out, (K *)(void *)scratch};                      \
        V *v[2] = {(V *)values_out, (V *)(void *)(scratch + kbytes)};         \
        moves = fn((const K *)keys_in, (const V *)vin, k, v, &job);           \
    } while (0)
    int moves = 0;
    if (bits == 32 && value_size == 0)
        RUN_RADIX(radix_u32, uint32_t, char);
    else if (bits == 32 && value_size == 4)
        RUN_RADIX(radix_u32_v32, uint32_t, uint32_t);
    else if (bits == 32)
        RUN_RADIX(radix_u32_v64, uint32_t, uint64_t);
    else if (value_size == 0)
        RUN_RADIX(radix_u64, uint64_t, char);
    else if (value_size == 4)
        RUN_RADIX(radix_u64_v32, uint64_t, uint32_t);
    else
        RUN_RADIX(radix_u64_v64, uint64_t, uint64_t);
#undef RUN_RADIX
    if (moves == 0) {
        /* Every key is the same: the input order is the sorted one. */
        if (keys_out != keys_in)
            memcpy(keys_out, keys_in, n * ksize);
        if (permutation) {
            uint64_t *perm = (uint64_t *)values_out;
            for (size_t i = 0; i < n; ++i)
                perm[i] = i;
        } else if (value_size != 0 && values_out != values_in) {
            memcpy(values_out, values_in, n * value_size);
        }
    }
    scratch_put(scratch);
    return DUO_SUCCESS;
}
