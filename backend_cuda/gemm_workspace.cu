/*
 * gemm_workspace.cu - the device memory that the CUDA gemm borrows for
 * one call: the parts of a split product (gemm_split.cu) and a packed
 * copy of B (gemm_pack.cu).  Its own file because both use it.
 */
#include <cstdint>
#include <cstring>

#include <cuda_runtime.h>

#include "backend.h"
#include "cuda_check.h"
#include "gemm_common.cuh"

using namespace duo_cuda_gemm;

/* gemm's workspace (split products' parts, packed B): a pool of the
 * current device that keeps up to kPackMaxBytes between calls (the
 * default pool would hand memory back at every synchronization and map
 * it again on the next call).
 * Allocations are stream-ordered on the default stream, like the
 * kernels, so calls never share a workspace.  `optional`: a caller that
 * can do without it gets *w = nullptr and success when the device is out
 * of memory.  Each precision has a pool of its own (the static of its
 * instance). */
template <typename T>
duo_status duo_cuda_gemm::workspace_alloc(const char *where, T **w,
                                          size_t bytes, bool optional)
{
    static cudaMemPool_t pool = nullptr;
    static const cudaError_t made = [] {
        int dev = 0;
        cudaError_t err = cudaGetDevice(&dev);
        cudaMemPoolProps props;
        memset(&props, 0, sizeof props);
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = dev;
        if (err == cudaSuccess)
            err = cudaMemPoolCreate(&pool, &props);
        uint64_t keep = kPackMaxBytes;
        if (err == cudaSuccess)
            err = cudaMemPoolSetAttribute(
                pool, cudaMemPoolAttrReleaseThreshold, &keep);
        return err;
    }();
    if (made != cudaSuccess)
        return duo_cuda_fail(made, __FILE__, __LINE__, where,
                             "cudaMemPoolCreate (gemm workspace)");
    void *p = nullptr;
    const cudaError_t err = cudaMallocFromPoolAsync(&p, bytes, pool, 0);
    if (err == cudaErrorMemoryAllocation && optional) {
        cudaGetLastError(); /* or the next launch check would see it */
        *w = nullptr;
        return DUO_SUCCESS;
    }
    if (err != cudaSuccess)
        return duo_cuda_fail(err, __FILE__, __LINE__, where,
                             "cudaMallocFromPoolAsync (gemm workspace)");
    *w = static_cast<T *>(p);
    return DUO_SUCCESS;
}

template duo_status duo_cuda_gemm::workspace_alloc<float>(const char *,
                                                          float **, size_t,
                                                          bool);
template duo_status duo_cuda_gemm::workspace_alloc<double>(const char *,
                                                           double **, size_t,
                                                           bool);
