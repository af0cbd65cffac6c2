/*
 * histogram.cu (CUDA) - duo_histogram with the bin formula of
 * src/histogram_bin.h (not CUB's DeviceHistogram, whose own float
 * arithmetic for the bin need not match the CPU's).  Up to kSharedBins
 * bins each block counts in shared memory, kUnroll loads in flight per
 * thread, and adds its counts to the global ones at the end; more bins
 * are counted in global memory directly.  Integer counts: the result
 * does not depend on the order.
 */
#include "cuda_check.h"
#include "histogram_bin.h"

enum {
    kThreads = 256,
    kSharedBins = 8192,
    kBlocksPerSM = 8, /* 2048 threads: a full H100 SM               */
    kUnroll = 4       /* loads in flight per thread                 */
};

template <class T>
__device__ __forceinline__ void count_one(T v, double lo, double hi,
                                          double scale, unsigned bins,
                                          unsigned *smem_bins)
{
    const size_t b = duo_histogram_bin((double)v, lo, hi, scale, bins);
    if (b < bins)
        atomicAdd(&smem_bins[b], 1u);
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    histogram_shared(size_t n, const T *x, double lo, double hi,
                     double scale, unsigned bins, uint64_t *counts)
{
    extern __shared__ unsigned smem_bins[];
    for (unsigned b = threadIdx.x; b < bins; b += blockDim.x)
        smem_bins[b] = 0;
    __syncthreads();
    /* Grid-stride, kUnroll elements a step: their loads are issued
     * before any of them is counted. */
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + (kUnroll - 1) * stride < n; i += kUnroll * stride) {
        T v[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
            v[u] = x[i + u * stride];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
            count_one(v[u], lo, hi, scale, bins, smem_bins);
    }
    for (; i < n; i += stride)
        count_one(x[i], lo, hi, scale, bins, smem_bins);
    __syncthreads();
    for (unsigned b = threadIdx.x; b < bins; b += blockDim.x)
        if (smem_bins[b] != 0)
            atomicAdd((unsigned long long *)&counts[b],
                      (unsigned long long)smem_bins[b]);
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    histogram_global(size_t n, const T *x, double lo, double hi,
                     double scale, size_t bins, uint64_t *counts)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const size_t b = duo_histogram_bin((double)x[i], lo, hi, scale, bins);
        if (b < bins)
            atomicAdd((unsigned long long *)&counts[b], 1ull);
    }
}

template <class T>
static void launch(size_t n, const T *x, double lo, double hi, double scale,
                   size_t bins, uint64_t *counts, cudaStream_t s)
{
    /* A full GPU of blocks; each block's shared counts stay below 2^32
     * because no block sees more than 2^31 elements. */
    size_t grid = (size_t)duo_cuda_sm_count * kBlocksPerSM;
    const size_t per_block_cap = (size_t)1 << 31;
    if (grid * per_block_cap < n)
        grid = (n + per_block_cap - 1) / per_block_cap;
    const size_t useful = (n + kThreads - 1) / kThreads;
    if (grid > useful)
        grid = useful;
    if (grid == 0)
        return;
    if (bins <= kSharedBins)
        histogram_shared<T><<<(unsigned)grid, kThreads,
                              bins * sizeof(unsigned), s>>>(
            n, x, lo, hi, scale, (unsigned)bins, counts);
    else
        histogram_global<T><<<(unsigned)grid, kThreads, 0, s>>>(
            n, x, lo, hi, scale, bins, counts);
}

duo_status duo_be_histogram(duo_dtype type, size_t n, const void *x,
                            double lo, double hi, double scale,
                            size_t bins, uint64_t *counts,
                            duo_stream stream)
{
    const char *where = "duo_histogram";
    const cudaStream_t s = duo_cuda_stream(stream);
    DUO_CUDA_TRY(cudaMemsetAsync(counts, 0, bins * sizeof(uint64_t), s),
                 where);
    if (type == DUO_F32)
        launch(n, (const float *)x, lo, hi, scale, bins, counts, s);
    else if (type == DUO_F64)
        launch(n, (const double *)x, lo, hi, scale, bins, counts, s);
    else
        launch(n, (const int32_t *)x, lo, hi, scale, bins, counts, s);
    DUO_CUDA_TRY(cudaGetLastError(), where);
    return DUO_SUCCESS;
}
