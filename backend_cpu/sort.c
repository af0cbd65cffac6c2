/*
 * sort.c (CPU) - duo_sort: an LSD radix sort of the mapped keys of
 * src/sort_keys.h, 8 bits a pass, stable, parallel with OpenMP.
 *
 * The keys are mapped into keys_out (unsigned ascending keys map to
 * themselves and are read where they are), the permutation is written
 * into values_out as 0 .. n-1; the first pass that moves anything reads
 * them (and the values) there and writes a temporary pair, and each
 * later pass moves them from one pair to the other.  A pass: every
 * thread counts the digits of its contiguous share of the elements, one
 * thread turns the counts into start offsets (digit-major, then thread
 * order, which keeps the sort stable), and every thread scatters its
 * share.  A pass whose digit is the same for every key moves nothing and
 * is skipped.  The output of a stable sort is unique, so the bits do not
 * depend on the number of threads.
 */
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend.h"
#include "sort_keys.h"

#define DIGIT_BITS 8
#define BUCKETS (1 << DIGIT_BITS)
/* Fewer elements than this per thread are not worth another thread. */
#define MIN_PER_THREAD 65536

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

/* radix_K_V: sort the mapped keys in[] (values vin[]) through the buffer
 * pairs k[] and v[]: the first pass that moves anything reads in[] and
 * writes k[1], each later one moves them from one buffer of the pair to
 * the other (so an even number of passes ends in k[0]).  counts holds
 * BUCKETS counters per thread, ahead team x team x BUCKETS: while a
 * thread scatters, it counts the next pass's digits by the share of the
 * thread that will read them (ahead[writer][reader][digit]), so a pass
 * after one that moved the keys needs no counting read of its own.
 * Returns which buffer (0 or 1) holds the result, or -1 when no pass
 * moved anything (the keys were in order already: in[] is the result).
 * V_MOVE(dst, src) moves one value (nothing for keys alone). */
#define DEFINE_RADIX(name, K, V, V_MOVE)                                      \
    static int name(const K *in, const V *vin, K *k[2], V *v[2], size_t n,  \
                    int bits, size_t *counts, size_t *ahead, int team)        \
    {                                                                         \
        int cur = 0, skip = 0;                                                \
        (void)team;                                                           \
        (void)v;                                                              \
        (void)vin;                                                            \
        DUO_RADIX_PARALLEL_(team)                                             \
        {                                                                     \
            const int t = thread_id(), nt = threads_now();                    \
            const size_t lo = n * (size_t)t / (size_t)nt;                     \
            const size_t hi = n * (size_t)(t + 1) / (size_t)nt;               \
            size_t *mine = counts + (size_t)t * BUCKETS;                      \
            size_t *my_ahead = ahead + (size_t)t * nt * BUCKETS;              \
            int from = 0, moved = 0, counted = 0;                             \
            for (int shift = 0; shift < bits; shift += DIGIT_BITS) {          \
                const K *src = moved ? k[from] : in;                          \
                const V *vsrc = moved ? v[from] : vin;                        \
                K *dst = k[from ^ 1];                                         \
                (void)vsrc;                                                   \
                if (counted) {                                                \
                    for (int d = 0; d < BUCKETS; ++d) {                       \
                        size_t c = 0;                                         \
                        for (int u = 0; u < nt; ++u)                          \
                            c += ahead[((size_t)u * nt + t) * BUCKETS + d];   \
                        mine[d] = c;                                          \
                    }                                                         \
                } else {                                                      \
                    memset(mine, 0, BUCKETS * sizeof *mine);                  \
                    for (size_t i = lo; i < hi; ++i)                          \
                        ++mine[(src[i] >> shift) & (BUCKETS - 1)];            \
                }                                                             \
                DUO_RADIX_BARRIER_                                            \
                DUO_RADIX_SINGLE_                                             \
                {                                                             \
                    size_t sum = 0;                                           \
                    skip = 0;                                                 \
                    for (int d = 0; d < BUCKETS; ++d) {                       \
                        size_t digit_total = 0;                               \
                        for (int u = 0; u < nt; ++u) {                        \
                            size_t c = counts[(size_t)u * BUCKETS + d];       \
                            counts[(size_t)u * BUCKETS + d] = sum;            \
                            sum += c;                                         \
                            digit_total += c;                                 \
                        }                                                     \
                        skip |= digit_total == n;                             \
                    }                                                         \
                }                                                             \
                const int next = shift + DIGIT_BITS < bits;                   \
                counted = 0;                                                  \
                if (!skip && next) {                                          \
                    /* The reader of each bucket's next position, and     \
                     * where that reader's share ends. */                  \
                    int reader[BUCKETS];                                      \
                    size_t end[BUCKETS];                                      \
                    for (int d = 0; d < BUCKETS; ++d) {                       \
                        int u = 0;                                            \
                        while (u + 1 < nt &&                                  \
                               n * (size_t)(u + 1) / (size_t)nt <= mine[d])   \
                            ++u;                                              \
                        reader[d] = u;                                        \
                        end[d] = n * (size_t)(u + 1) / (size_t)nt;            \
                    }                                                         \
                    memset(my_ahead, 0,                                       \
                           (size_t)nt * BUCKETS * sizeof *my_ahead);          \
                    for (size_t i = lo; i < hi; ++i) {                        \
                        const K key = src[i];                                 \
                        const int d = (int)((key >> shift) & (BUCKETS - 1));  \
                        const size_t at = mine[d]++;                          \
                        while (at >= end[d]) {                                \
                            ++reader[d];                                      \
                            end[d] = n * (size_t)(reader[d] + 1) / (size_t)nt; \
                        }                                                     \
                        dst[at] = key;                                        \
                        V_MOVE(v[from ^ 1][at], vsrc[i]);                     \
                        ++my_ahead[(size_t)reader[d] * BUCKETS +              \
                                   ((key >> (shift + DIGIT_BITS)) &           \
                                    (BUCKETS - 1))];                          \
                    }                                                         \
                    counted = 1;                                              \
                } else if (!skip) {                                           \
                    for (size_t i = lo; i < hi; ++i) {                        \
                        const K key = src[i];                                 \
                        const size_t at =                                     \
                            mine[(key >> shift) & (BUCKETS - 1)]++;           \
                        dst[at] = key;                                        \
                        V_MOVE(v[from ^ 1][at], vsrc[i]);                     \
                    }                                                         \
                }                                                             \
                if (!skip) {                                                  \
                    from ^= 1;                                                \
                    moved = 1;                                                \
                }                                                             \
                DUO_RADIX_BARRIER_                                            \
            }                                                                 \
            if (t == 0)                                                       \
                cur = moved ? from : -1;                                      \
        }                                                                     \
        return cur;                                                           \
    }

#ifdef _OPENMP
#define DUO_RADIX_PARALLEL_(team) _Pragma("omp parallel num_threads(team)")
#define DUO_RADIX_BARRIER_ _Pragma("omp barrier")
#define DUO_RADIX_SINGLE_ _Pragma("omp single")
#else
#define DUO_RADIX_PARALLEL_(team)
#define DUO_RADIX_BARRIER_
#define DUO_RADIX_SINGLE_
#endif

#define MOVE_VALUE(dst, src) ((dst) = (src))
#define MOVE_NOTHING(dst, src) ((void)0)

DEFINE_RADIX(radix_u32, uint32_t, char, MOVE_NOTHING)
DEFINE_RADIX(radix_u32_v32, uint32_t, uint32_t, MOVE_VALUE)
DEFINE_RADIX(radix_u32_v64, uint32_t, uint64_t, MOVE_VALUE)
DEFINE_RADIX(radix_u64, uint64_t, char, MOVE_NOTHING)
DEFINE_RADIX(radix_u64_v32, uint64_t, uint32_t, MOVE_VALUE)
DEFINE_RADIX(radix_u64_v64, uint64_t, uint64_t, MOVE_VALUE)

/* Map keys_in into out (elementwise, so out may be keys_in), or back. */
static void map_keys(duo_key_type type, int descending, size_t n,
                     const void *in, void *out, int inverse)
{
    const duo_key_kind kind = duo_sort_key_kind(type);
    const int bits = duo_sort_key_bits(type);
    if (bits == 32) {
        const uint32_t *src = (const uint32_t *)in;
        uint32_t *dst = (uint32_t *)out;
        DUO_PRAGMA_PARALLEL_FOR_SIMD
        for (size_t i = 0; i < n; ++i)
            dst[i] = (uint32_t)(inverse
                                    ? duo_sort_key_unmap(kind, 32, src[i],
                                                         descending)
                                    : duo_sort_key_map(kind, 32, src[i],
                                                       descending));
    } else {
        const uint64_t *src = (const uint64_t *)in;
        uint64_t *dst = (uint64_t *)out;
        DUO_PRAGMA_PARALLEL_FOR_SIMD
        for (size_t i = 0; i < n; ++i)
            dst[i] = inverse ? duo_sort_key_unmap(kind, 64, src[i],
                                                  descending)
                             : duo_sort_key_map(kind, 64, src[i],
                                                descending);
    }
}

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
    void *k_tmp = malloc(n * ksize);
    void *v_tmp = value_size != 0 ? malloc(n * value_size) : NULL;
    size_t *counts = (size_t *)malloc((size_t)team * BUCKETS *
                                      sizeof(size_t));
    size_t *ahead = (size_t *)malloc((size_t)team * team * BUCKETS *
                                     sizeof(size_t));
    if (k_tmp == NULL || (value_size != 0 && v_tmp == NULL) ||
        counts == NULL || ahead == NULL) {
        free(k_tmp);
        free(v_tmp);
        free(counts);
        free(ahead);
        return duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                        "no host memory for the sort's temporary copy of "
                        "%zu keys and values", n);
    }
    const int descending = order == DUO_DESCENDING;
    /* Unsigned keys in ascending order are their own mapped keys: the
     * passes read them (and the values) where they are, and there is
     * nothing to map back.  Other keys are mapped into keys_out first. */
    const int identity = duo_sort_key_kind(type) == DUO_KEY_KIND_UNSIGNED &&
                         !descending;
    const void *kin = identity ? keys_in : keys_out;
    if (!identity)
        map_keys(type, descending, n, keys_in, keys_out, 0);
    const void *vin = values_in;
    if (permutation) {
        uint64_t *perm = (uint64_t *)values_out;
        DUO_PRAGMA_PARALLEL_FOR_SIMD
        for (size_t i = 0; i < n; ++i)
            perm[i] = i;
        vin = perm;
    }
    /* The passes over typed buffers: [0] the output, [1] scratch. */
#define RUN_RADIX(fn, K, V)                                                   \
    do {                                                                      \
        K *k[2] = {(K *)keys_out, (K *)k_tmp};                                \
        V *v[2] = {(V *)values_out, (V *)v_tmp};                              \
        cur = fn((const K *)kin, (const V *)vin, k, v, n, bits, counts,       \
                 ahead, team);                                                \
        sorted = cur < 0 ? kin : k[cur];                                      \
        sorted_v = cur < 0 ? vin : v[cur];                                    \
    } while (0)
    int cur = 0;
    const void *sorted = keys_out, *sorted_v = values_out;
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
    if (!identity)
        map_keys(type, descending, n, sorted, keys_out, 1);
    else if (sorted != keys_out)
        memcpy(keys_out, sorted, n * ksize);
    if (value_size != 0 && sorted_v != values_out)
        memcpy(values_out, sorted_v, n * value_size);
    free(k_tmp);
    free(v_tmp);
    free(counts);
    free(ahead);
    return DUO_SUCCESS;
}
