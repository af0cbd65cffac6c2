/*
 * yardstick_prims_cpu.c - the prims group's yardsticks in CPU builds
 * (serial and OpenMP): what a C programmer writes without duo.
 *
 *   scan       two passes over contiguous shares, one per thread: each
 *              thread sums its share, one thread adds up the shares'
 *              totals, each thread scans its share from its offset
 *              (f32 summed in float, u32 wrapping)
 *   sort       std::sort / std::stable_sort on one thread
 *              (yardstick_sort.cpp; absent without a C++ compiler)
 *   compact    a plain filter loop
 *   histogram  per-thread private bins (float arithmetic for the bin),
 *              merged under #pragma omp critical
 *
 * In the serial build the pragmas are ignored and everything runs on
 * one thread, as duo does there.  Plain C11.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "yardstick.h"

#ifdef _OPENMP
#define YSP_SCAN "OpenMP two-pass scan"
#define YSP_HIST "OpenMP private bins"
#else
#define YSP_SCAN "serial scan loop"
#define YSP_HIST "serial bins loop"
#endif

const char *ys_prim_name(ys_prim p)
{
    switch (p) {
    case YS_PRIM_SCAN: return YSP_SCAN;
#ifdef DUO_BENCH_HAVE_CXX_SORT
    case YS_PRIM_SORT: return "std::sort (1 thread)";
#else
    case YS_PRIM_SORT: return NULL;
#endif
    case YS_PRIM_COMPACT: return "filter loop";
    case YS_PRIM_HISTOGRAM: return YSP_HIST;
    }
    return NULL;
}

const char *ys_prim_missing(ys_prim p)
{
#ifndef DUO_BENCH_HAVE_CXX_SORT
    if (p == YS_PRIM_SORT)
        return "no C++ compiler: the std::sort yardstick was not built";
#else
    (void)p;
#endif
    return "";
}

static void *ysp_alloc(size_t bytes)
{
    void *p = malloc(bytes > 0 ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "duo-bench: yardstick: out of host memory (%zu "
                "bytes)\n", bytes);
        exit(1);
    }
    return p;
}

static int ysp_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* ------------------------------------------------------------------ */
/* Scan: two passes                                                    */

int ys_scan_sum_f32(const float *x, float *y, size_t n)
{
    const int team = ysp_threads();
    float *part = (float *)ysp_alloc(((size_t)team + 1) * sizeof(float));
    part[0] = 0.0f;
#pragma omp parallel num_threads(team)
    {
#ifdef _OPENMP
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
#else
        const int t = 0, nt = 1;
#endif
        const size_t lo = n * (size_t)t / (size_t)nt;
        const size_t hi = n * (size_t)(t + 1) / (size_t)nt;
        float s = 0.0f;
        for (size_t i = lo; i < hi; ++i)
            s += x[i];
        part[t + 1] = s;
#pragma omp barrier
#pragma omp single
        for (int u = 1; u <= nt; ++u)
            part[u] += part[u - 1];
        s = part[t];
        for (size_t i = lo; i < hi; ++i) {
            s += x[i];
            y[i] = s;
        }
    }
    free(part);
    return 1;
}

int ys_scan_exclusive_u32(const uint32_t *x, uint32_t *y, size_t n)
{
    const int team = ysp_threads();
    uint32_t *part =
        (uint32_t *)ysp_alloc(((size_t)team + 1) * sizeof(uint32_t));
    part[0] = 0;
#pragma omp parallel num_threads(team)
    {
#ifdef _OPENMP
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
#else
        const int t = 0, nt = 1;
#endif
        const size_t lo = n * (size_t)t / (size_t)nt;
        const size_t hi = n * (size_t)(t + 1) / (size_t)nt;
        uint32_t s = 0;
        for (size_t i = lo; i < hi; ++i)
            s += x[i];
        part[t + 1] = s;
#pragma omp barrier
#pragma omp single
        for (int u = 1; u <= nt; ++u)
            part[u] += part[u - 1];
        s = part[t];
        for (size_t i = lo; i < hi; ++i) {
            const uint32_t v = x[i];
            y[i] = s;
            s += v;
        }
    }
    free(part);
    return 1;
}

void ys_scan_reference_f64(const float *x, double *y, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; ++i) {
        s += (double)x[i];
        y[i] = s;
    }
}

/* ------------------------------------------------------------------ */
/* Sort: yardstick_sort.cpp, or none                                   */

#ifndef DUO_BENCH_HAVE_CXX_SORT
int ys_sort_u32(const uint32_t *in, uint32_t *out, size_t n)
{
    (void)in, (void)out, (void)n;
    return 0;
}

int ys_sort_f32(const float *in, float *out, size_t n)
{
    (void)in, (void)out, (void)n;
    return 0;
}

int ys_sort_pairs_u32(const uint32_t *keys_in, uint32_t *keys_out,
                      const uint32_t *values_in, uint32_t *values_out,
                      size_t n)
{
    (void)keys_in, (void)keys_out, (void)values_in, (void)values_out;
    (void)n;
    return 0;
}
#endif

/* ------------------------------------------------------------------ */
/* Compaction and histogram                                            */

int ys_compact_f32(const float *in, const uint8_t *flags, float *out,
                   uint64_t *count, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; ++i)
        if (flags[i] != 0)
            out[m++] = in[i];
    *count = m;
    return 1;
}

/* Private bins per thread, merged: T the element type, the bin computed
 * in float (f32) or int arithmetic. */
#define YSP_HISTOGRAM(T, BIN)                                                 \
    const int team = ysp_threads();                                           \
    (void)team;                                                               \
    memset(counts, 0, (size_t)bins * sizeof *counts);                        \
    _Pragma("omp parallel num_threads(team)")                                 \
    {                                                                         \
        int32_t *mine = (int32_t *)calloc((size_t)bins, sizeof(int32_t));    \
        if (mine == NULL) {                                                   \
            fprintf(stderr, "duo-bench: yardstick: out of host memory\n");   \
            exit(1);                                                          \
        }                                                                     \
        _Pragma("omp for nowait")                                             \
        for (size_t i = 0; i < n; ++i) {                                      \
            const T v = x[i];                                                 \
            if (v >= lo && v < hi) {                                          \
                const int b = (BIN);                                          \
                ++mine[b < bins ? b : bins - 1];                              \
            }                                                                 \
        }                                                                     \
        _Pragma("omp critical")                                               \
        for (int b = 0; b < bins; ++b)                                        \
            counts[b] += mine[b];                                             \
        free(mine);                                                           \
    }                                                                         \
    return 1;

int ys_histogram_f32(const float *x, size_t n, float lo, float hi, int bins,
                     int32_t *counts)
{
    const float scale = (float)bins / (hi - lo);
    YSP_HISTOGRAM(float, (int)((v - lo) * scale))
}

int ys_histogram_i32(const int32_t *x, size_t n, int32_t lo, int32_t hi,
                     int bins, int32_t *counts)
{
    const int64_t width = (int64_t)hi - lo;
    YSP_HISTOGRAM(int32_t, (int)(((int64_t)v - lo) * bins / width))
}
