/*
 * memory.cu (CUDA) - device memory from cudaMalloc, pinned host memory
 * from cudaMallocHost, copies and memset on the default stream.
 */
#include "cuda_check.h"

static cudaMemcpyKind cuda_kind(duo_copy_kind kind)
{
    switch (kind) {
    case DUO_HOST_TO_DEVICE: return cudaMemcpyHostToDevice;
    case DUO_DEVICE_TO_HOST: return cudaMemcpyDeviceToHost;
    case DUO_DEVICE_TO_DEVICE: return cudaMemcpyDeviceToDevice;
    case DUO_HOST_TO_HOST: return cudaMemcpyHostToHost;
    }
    return cudaMemcpyDefault;
}

static duo_status out_of_memory(cudaError_t err, const char *where,
                                const char *what, size_t bytes)
{
    (void)cudaGetLastError();
    size_t free_bytes = 0, total_bytes = 0;
    if (err == cudaErrorMemoryAllocation &&
        cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess)
        return duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                        "could not allocate %zu bytes of %s memory (%zu of "
                        "%zu bytes free on the GPU); free buffers or use a "
                        "smaller problem", bytes, what, free_bytes,
                        total_bytes);
    return duo_cuda_fail(err, __FILE__, __LINE__, where, what);
}

duo_status duo_be_malloc(void **ptr, size_t bytes)
{
    cudaError_t err = cudaMalloc(ptr, bytes);
    return err == cudaSuccess ? DUO_SUCCESS
                              : out_of_memory(err, "duo_malloc", "device",
                                              bytes);
}

duo_status duo_be_malloc_host(void **ptr, size_t bytes)
{
    cudaError_t err = cudaMallocHost(ptr, bytes);
    return err == cudaSuccess ? DUO_SUCCESS
                              : out_of_memory(err, "duo_malloc_host",
                                              "pinned host", bytes);
}

duo_status duo_be_free(void *ptr)
{
    DUO_CUDA_TRY(cudaFree(ptr), "duo_free");
    return DUO_SUCCESS;
}

duo_status duo_be_free_host(void *ptr)
{
    DUO_CUDA_TRY(cudaFreeHost(ptr), "duo_free_host");
    return DUO_SUCCESS;
}

duo_status duo_be_memcpy(void *dst, const void *src, size_t bytes,
                         duo_copy_kind kind)
{
    DUO_CUDA_TRY(cudaMemcpy(dst, src, bytes, cuda_kind(kind)), "duo_memcpy");
    /* A copy to or from the host waits for the default stream's earlier
     * work (a device-to-device copy need not). */
    if (kind == DUO_HOST_TO_DEVICE || kind == DUO_DEVICE_TO_HOST)
        duo_cuda_waited(NULL);
    return duo_cuda_offsets_checked("duo_memcpy");
}

duo_status duo_be_memcpy_async(void *dst, const void *src, size_t bytes,
                               duo_copy_kind kind, duo_stream stream)
{
    DUO_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cuda_kind(kind),
                                 duo_cuda_stream(stream)),
                 "duo_memcpy_async");
    return DUO_SUCCESS;
}

duo_status duo_be_memset(void *dst, int value, size_t bytes)
{
    DUO_CUDA_TRY(cudaMemset(dst, value, bytes), "duo_memset");
    return DUO_SUCCESS;
}

int duo_be_is_device_address(const void *p)
{
    cudaPointerAttributes attr;
    const cudaError_t err = cudaPointerGetAttributes(&attr, p);
    if (err != cudaSuccess) {
        /* Not expected for any value since CUDA 11 (unknown addresses
         * are cudaMemoryTypeUnregistered); answer as if it were device
         * memory, the side on which the caller skips, and clear the
         * error so that no later check reports it. */
        (void)cudaGetLastError();
        return 1;
    }
    return attr.type == cudaMemoryTypeDevice ||
           attr.type == cudaMemoryTypeManaged;
}
