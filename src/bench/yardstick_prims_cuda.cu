/*
 * yardstick_prims_cuda.cu - the prims group's yardsticks in CUDA builds:
 * CUB's device-wide algorithms as a CUDA programmer calls them.
 *
 *   scan       cub::DeviceScan::InclusiveSum (f32, summed in f32) and
 *              ExclusiveSum (u32)
 *   sort       cub::DeviceRadixSort::SortKeys / SortPairs, out of place
 *   compact    cub::DeviceSelect::Flagged, the count in device memory
 *   histogram  cub::DeviceHistogram::HistogramEven, int counters
 *
 * Sizes are passed as int, as most callers do (n < 2^31 here).  The
 * temporary storage of each algorithm is sized once per n and kept, so
 * timed calls do no allocation: the first call of a size (the checked
 * run, before any timing) allocates it.  Everything is queued on the
 * legacy default stream, where duo_timer records its events.  A failed
 * call prints the call, file:line and the error, and exits 1.
 */
#include <climits>
#include <cstdio>
#include <cstdlib>

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include "yardstick.h"

static void ysp_check(cudaError_t err, const char *call, const char *file,
                      int line)
{
    if (err == cudaSuccess)
        return;
    fprintf(stderr, "duo-bench: yardstick: %s failed at %s:%d: %s (%s)\n",
            call, file, line, cudaGetErrorName(err), cudaGetErrorString(err));
    exit(1);
}
#define YSP_CUDA(call) ysp_check((call), #call, __FILE__, __LINE__)

static int ysp_int(size_t n)
{
    if (n > (size_t)INT_MAX) {
        fprintf(stderr, "duo-bench: yardstick: n = %zu does not fit the int "
                "size passed to CUB here\n", n);
        exit(1);
    }
    return (int)n;
}

/* One algorithm's temporary storage: queried once per n, grown when a
 * larger size needs more, never shrunk. */
typedef struct ysp_temp {
    size_t n;      /* the size of the last query, 0: none yet */
    size_t bytes;  /* what CUB asked for at that size */
    void *p;
    size_t capacity;
} ysp_temp;

/* The storage for n, querying CUB (through `query`, which sets bytes)
 * only when n changed. */
template <class Query>
static void *ysp_storage(ysp_temp *t, size_t n, Query query)
{
    if (t->n != n || t->p == NULL) {
        size_t bytes = 0;
        YSP_CUDA(query(bytes));
        if (bytes > t->capacity || t->p == NULL) {
            if (t->p != NULL)
                YSP_CUDA(cudaFree(t->p));
            t->p = NULL;
            YSP_CUDA(cudaMalloc(&t->p, bytes > 0 ? bytes : 1));
            t->capacity = bytes;
        }
        t->n = n;
        t->bytes = bytes;
    }
    return t->p;
}

const char *ys_prim_name(ys_prim p)
{
    switch (p) {
    case YS_PRIM_SCAN: return "CUB DeviceScan";
    case YS_PRIM_SORT: return "CUB DeviceRadixSort";
    case YS_PRIM_COMPACT: return "CUB DeviceSelect";
    case YS_PRIM_HISTOGRAM: return "CUB HistogramEven";
    }
    return NULL;
}

const char *ys_prim_missing(ys_prim p)
{
    (void)p;
    return "";
}

/* ------------------------------------------------------------------ */
/* Scan                                                                */

int ys_scan_sum_f32(const float *x, float *y, size_t n)
{
    static ysp_temp t;
    const int m = ysp_int(n);
    void *s = ysp_storage(&t, n, [&](size_t &bytes) {
        return cub::DeviceScan::InclusiveSum(NULL, bytes, x, y, m);
    });
    YSP_CUDA(cub::DeviceScan::InclusiveSum(s, t.bytes, x, y, m));
    return 1;
}

int ys_scan_exclusive_u32(const uint32_t *x, uint32_t *y, size_t n)
{
    static ysp_temp t;
    const int m = ysp_int(n);
    void *s = ysp_storage(&t, n, [&](size_t &bytes) {
        return cub::DeviceScan::ExclusiveSum(NULL, bytes, x, y, m);
    });
    YSP_CUDA(cub::DeviceScan::ExclusiveSum(s, t.bytes, x, y, m));
    return 1;
}

__global__ void ysp_widen(const float *x, double *y, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        y[i] = (double)x[i];
}

void ys_scan_reference_f64(const float *x, double *y, size_t n)
{
    static ysp_temp t;
    const int m = ysp_int(n);
    ysp_widen<<<1024, 256>>>(x, y, n);
    YSP_CUDA(cudaGetLastError());
    void *s = ysp_storage(&t, n, [&](size_t &bytes) {
        return cub::DeviceScan::InclusiveSum(NULL, bytes, y, m);
    });
    YSP_CUDA(cub::DeviceScan::InclusiveSum(s, t.bytes, y, m));
}

/* ------------------------------------------------------------------ */
/* Sort                                                                */

int ys_sort_u32(const uint32_t *in, uint32_t *out, size_t n)
{
    static ysp_temp t;
    const int m = ysp_int(n);
    void *s = ysp_storage(&t, n, [&](size_t &bytes) {
        return cub::DeviceRadixSort::SortKeys(NULL, bytes, in, out, m);
    });
    YSP_CUDA(cub::DeviceRadixSort::SortKeys(s, t.bytes, in, out, m));
    return 1;
}

int ys_sort_f32(const float *in, float *out, size_t n)
{
    static ysp_temp t;
    const int m = ysp_int(n);
    void *s = ysp_storage(&t, n, [&](size_t &bytes) {
        return cub::DeviceRadixSort::SortKeys(NULL, bytes, in, out, m);
    });
    YSP_CUDA(cub::DeviceRadixSort::SortKeys(s, t.bytes, in, out, m));
    return 1;
}

int ys_sort_pairs_u32(const uint32_t *keys_in, uint32_t *keys_out,
                      const uint32_t *values_in, uint32_t *values_out,
                      size_t n)
{
    static ysp_temp t;
    const int m = ysp_int(n);
    void *s = ysp_storage(&t, n, [&](size_t &bytes) {
        return cub::DeviceRadixSort::SortPairs(NULL, bytes, keys_in,
                                               keys_out, values_in,
                                               values_out, m);
    });
    YSP_CUDA(cub::DeviceRadixSort::SortPairs(s, t.bytes, keys_in, keys_out,
                                             values_in, values_out, m));
    return 1;
}

/* ------------------------------------------------------------------ */
/* Compaction and histogram                                            */

int ys_compact_f32(const float *in, const uint8_t *flags, float *out,
                   uint64_t *count, size_t n)
{
    static ysp_temp t;
    const int m = ysp_int(n);
    void *s = ysp_storage(&t, n, [&](size_t &bytes) {
        return cub::DeviceSelect::Flagged(NULL, bytes, in, flags, out, count,
                                          m);
    });
    YSP_CUDA(cub::DeviceSelect::Flagged(s, t.bytes, in, flags, out, count,
                                        m));
    return 1;
}

int ys_histogram_f32(const float *x, size_t n, float lo, float hi, int bins,
                     int32_t *counts)
{
    static ysp_temp t;
    const int m = ysp_int(n);
    int *c = (int *)counts;
    void *s = ysp_storage(&t, n, [&](size_t &bytes) {
        return cub::DeviceHistogram::HistogramEven(NULL, bytes, x, c,
                                                   bins + 1, lo, hi, m);
    });
    YSP_CUDA(cub::DeviceHistogram::HistogramEven(s, t.bytes, x, c, bins + 1,
                                                 lo, hi, m));
    return 1;
}

int ys_histogram_i32(const int32_t *x, size_t n, int32_t lo, int32_t hi,
                     int bins, int32_t *counts)
{
    static ysp_temp t;
    const int m = ysp_int(n);
    int *c = (int *)counts;
    const int *v = (const int *)x;
    void *s = ysp_storage(&t, n, [&](size_t &bytes) {
        return cub::DeviceHistogram::HistogramEven(NULL, bytes, v, c,
                                                   bins + 1, (int)lo,
                                                   (int)hi, m);
    });
    YSP_CUDA(cub::DeviceHistogram::HistogramEven(s, t.bytes, v, c, bins + 1,
                                                 (int)lo, (int)hi, m));
    return 1;
}
