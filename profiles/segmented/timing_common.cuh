// timing_common.cuh - what the segmented timing programs (ab_vs_cub.cu,
// argmax_times.cu) share: a CUDA error check that names the program and
// the call, and the fill of their inputs.
#ifndef DUO_PROFILES_SEGMENTED_TIMING_COMMON_CUH
#define DUO_PROFILES_SEGMENTED_TIMING_COMMON_CUH

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

// Exits with "PROGRAM: what: CUDA's message" unless e is cudaSuccess.
static void check_as(const char *program, cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s: %s: %s\n", program, what,
                     cudaGetErrorString(e));
        std::exit(1);
    }
}

// Values in (-1, 1), never 0, from a hash of the index.
template <class T> __global__ void fill(T *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        x[i] = (T)((h >> 8) * (1.0 / 16777216.0) * 2.0 - 1.0 + 1e-9);
    }
}

#endif
