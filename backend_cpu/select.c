/*
 * select.c (CPU) - duo_compact: each thread counts the flags of its
 * contiguous share, the shares' start offsets follow in thread order,
 * and each thread copies its kept elements there.  The output (kept
 * elements in input order) is unique, so it does not depend on the
 * number of threads.
 */
#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend.h"

/* Fewer elements than this per thread are not worth another thread. */
#define MIN_PER_THREAD 65536

#define DEFINE_COMPACT(name, T)                                               \
    static size_t name(size_t n, const T *in, const uint8_t *flags, T *out,  \
                       size_t *starts, int team)                              \
    {                                                                         \
        (void)team;                                                           \
        size_t total = 0;                                                     \
        DUO_COMPACT_PARALLEL_(team)                                           \
        {                                                                     \
            const int t = DUO_COMPACT_THREAD_, nt = DUO_COMPACT_THREADS_;    \
            const size_t lo = n * (size_t)t / (size_t)nt;                     \
            const size_t hi = n * (size_t)(t + 1) / (size_t)nt;               \
            size_t kept = 0;                                                  \
            for (size_t i = lo; i < hi; ++i)                                  \
                kept += flags[i] != 0;                                        \
            starts[t + 1] = kept;                                             \
            DUO_COMPACT_BARRIER_                                              \
            DUO_COMPACT_SINGLE_                                               \
            {                                                                 \
                starts[0] = 0;                                                \
                for (int u = 0; u < nt; ++u)                                  \
                    starts[u + 1] += starts[u];                               \
                total = starts[nt];                                           \
            }                                                                 \
            size_t at = starts[t];                                            \
            for (size_t i = lo; i < hi; ++i)                                  \
                if (flags[i] != 0)                                            \
                    out[at++] = in[i];                                        \
        }                                                                     \
        return total;                                                         \
    }

#ifdef _OPENMP
#define DUO_COMPACT_PARALLEL_(team) _Pragma("omp parallel num_threads(team)")
#define DUO_COMPACT_BARRIER_ _Pragma("omp barrier")
#define DUO_COMPACT_SINGLE_ _Pragma("omp single")
#define DUO_COMPACT_THREAD_ omp_get_thread_num()
#define DUO_COMPACT_THREADS_ omp_get_num_threads()
#else
#define DUO_COMPACT_PARALLEL_(team)
#define DUO_COMPACT_BARRIER_
#define DUO_COMPACT_SINGLE_
#define DUO_COMPACT_THREAD_ 0
#define DUO_COMPACT_THREADS_ 1
#endif

DEFINE_COMPACT(compact_4, uint32_t)
DEFINE_COMPACT(compact_8, uint64_t)

duo_status duo_be_compact(size_t elem_size, size_t n, const void *in,
                          const uint8_t *flags, void *out,
                          uint64_t *count_device, size_t *count_host,
                          duo_stream stream)
{
    (void)stream;
#ifdef _OPENMP
    const size_t most = n / MIN_PER_THREAD + 1;
    const int threads = omp_get_max_threads();
    const int team = (size_t)threads < most ? threads : (int)most;
#else
    const int team = 1;
#endif
    size_t *starts = (size_t *)malloc(((size_t)team + 1) * sizeof(size_t));
    if (starts == NULL)
        return duo_fail(DUO_ERROR_OUT_OF_MEMORY, "duo_compact",
                        "no host memory for %d thread offsets", team);
    const size_t total =
        elem_size == 4
            ? compact_4(n, (const uint32_t *)in, flags, (uint32_t *)out,
                        starts, team)
            : compact_8(n, (const uint64_t *)in, flags, (uint64_t *)out,
                        starts, team);
    free(starts);
    if (count_device != NULL)
        *count_device = total;
    else
        *count_host = total;
    return DUO_SUCCESS;
}
