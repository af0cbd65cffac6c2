/*
 * histogram.c (CPU) - duo_histogram: each thread counts its contiguous
 * share into private bins, then the private bins are added into counts.
 * The counts are integers, so the result does not depend on the number
 * of threads; the bin of each element is src/histogram_bin.h's.
 */
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend.h"
#include "histogram_bin.h"

#define MIN_PER_THREAD 65536

#define DEFINE_COUNT(name, T)                                                 \
    static void name(const T *x, size_t lo_i, size_t hi_i, double lo,        \
                     double hi, double scale, size_t bins, uint64_t *mine)    \
    {                                                                         \
        for (size_t i = lo_i; i < hi_i; ++i) {                                \
            const size_t b =                                                  \
                duo_histogram_bin((double)x[i], lo, hi, scale, bins);         \
            mine[b] += 1; /* mine[bins] collects the dropped */               \
        }                                                                     \
    }
DEFINE_COUNT(count_f32, float)
DEFINE_COUNT(count_f64, double)
DEFINE_COUNT(count_i32, int32_t)

duo_status duo_be_histogram(duo_dtype type, size_t n, const void *x,
                            double lo, double hi, double scale,
                            size_t bins, uint64_t *counts,
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
    /* One row of bins + 1 (the dropped) per thread. */
    const size_t row = bins + 1;
    uint64_t *priv = (uint64_t *)calloc((size_t)team * row, sizeof(uint64_t));
    if (priv == NULL)
        return duo_fail(DUO_ERROR_OUT_OF_MEMORY, "duo_histogram",
                        "no host memory for %d rows of %zu private bins",
                        team, bins);
#ifdef _OPENMP
#pragma omp parallel num_threads(team)
#endif
    {
#ifdef _OPENMP
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
#else
        const int t = 0, nt = 1;
#endif
        const size_t a = n * (size_t)t / (size_t)nt;
        const size_t b = n * (size_t)(t + 1) / (size_t)nt;
        uint64_t *mine = priv + (size_t)t * row;
        if (type == DUO_F32)
            count_f32((const float *)x, a, b, lo, hi, scale, bins, mine);
        else if (type == DUO_F64)
            count_f64((const double *)x, a, b, lo, hi, scale, bins, mine);
        else
            count_i32((const int32_t *)x, a, b, lo, hi, scale, bins, mine);
    }
    for (size_t k = 0; k < bins; ++k) {
        uint64_t sum = 0;
        for (int t = 0; t < team; ++t)
            sum += priv[(size_t)t * row + k];
        counts[k] = sum;
    }
    free(priv);
    return DUO_SUCCESS;
}
