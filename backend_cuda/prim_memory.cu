/*
 * prim_memory.cu - the temporary device memory of sort, scan and
 * compaction (CUB's storage, the sort's second buffers, the scan's
 * published block sums): a memory pool of the current device that keeps
 * up to a sixteenth of the GPU's memory between calls.  The default
 * pool hands everything back at each synchronization, so every
 * duo_sort (which waits) would map its buffers -- twice the size of the
 * keys and values -- again.  Allocations are stream-ordered on the
 * caller's stream, so calls never share memory; duo_finalize trims the
 * pool.
 */
#include <cstring>

#include "cuda_check.h"

static cudaMemPool_t prim_pool = nullptr;

static cudaError_t prim_pool_make(void)
{
    int dev = 0;
    cudaError_t err = cudaGetDevice(&dev);
    size_t free_bytes = 0, total_bytes = 0;
    if (err == cudaSuccess)
        err = cudaMemGetInfo(&free_bytes, &total_bytes);
    cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    if (err == cudaSuccess)
        err = cudaMemPoolCreate(&prim_pool, &props);
    uint64_t keep = total_bytes / 16;
    if (err == cudaSuccess)
        err = cudaMemPoolSetAttribute(prim_pool,
                                      cudaMemPoolAttrReleaseThreshold, &keep);
    return err;
}

duo_status duo_cuda_prim_alloc(void **p, size_t bytes, cudaStream_t stream,
                               const char *where)
{
    if (prim_pool == nullptr)
        DUO_CUDA_TRY(prim_pool_make(), where);
    DUO_CUDA_TRY(cudaMallocFromPoolAsync(p, bytes > 0 ? bytes : 1, prim_pool,
                                         stream),
                 where);
    return DUO_SUCCESS;
}

duo_status duo_cuda_prim_release(void)
{
    if (prim_pool != nullptr)
        DUO_CUDA_TRY(cudaMemPoolTrimTo(prim_pool, 0), "duo_finalize");
    return DUO_SUCCESS;
}
