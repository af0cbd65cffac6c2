/*
 * select.cu (CUDA) - duo_compact: CUB's DeviceSelect::Flagged, which
 * keeps the flagged elements in input order (exact, as the CPU's).  Its
 * temporary storage, and the count on its way to the host, are one
 * block taken with cudaMallocAsync on the stream.
 */
#include <cub/device/device_select.cuh>

#include "cuda_check.h"

template <class T>
static duo_status compact_typed(size_t n, const T *in, const uint8_t *flags,
                                T *out, uint64_t *count_device,
                                size_t *count_host, cudaStream_t s)
{
    const char *where = count_device != NULL ? "duo_compact_async"
                                             : "duo_compact";
    size_t cub_bytes = 0;
    DUO_CUDA_TRY(cub::DeviceSelect::Flagged(NULL, cub_bytes, in, flags, out,
                                            count_device, n, s),
                 where);
    /* The count first (8-byte aligned), then CUB's storage. */
    char *block = NULL;
    DUO_CUDA_TRY(cudaMallocAsync((void **)&block, 256 + cub_bytes, s), where);
    uint64_t *count = count_device != NULL ? count_device
                                           : (uint64_t *)block;
    cudaError_t err = cub::DeviceSelect::Flagged(block + 256, cub_bytes, in,
                                                 flags, out, count, n, s);
    uint64_t host_count = 0;
    if (err == cudaSuccess && count_host != NULL)
        err = cudaMemcpyAsync(&host_count, count, sizeof host_count,
                              cudaMemcpyDeviceToHost, s);
    const cudaError_t freed = cudaFreeAsync(block, s);
    if (err == cudaSuccess && count_host != NULL)
        err = cudaStreamSynchronize(s);
    DUO_CUDA_TRY(err, where);
    DUO_CUDA_TRY(freed, where);
    if (count_host != NULL)
        *count_host = (size_t)host_count;
    return DUO_SUCCESS;
}

duo_status duo_be_compact(size_t elem_size, size_t n, const void *in,
                          const uint8_t *flags, void *out,
                          uint64_t *count_device, size_t *count_host,
                          duo_stream stream)
{
    const cudaStream_t s = duo_cuda_stream(stream);
    if (elem_size == 4)
        return compact_typed<uint32_t>(n, (const uint32_t *)in, flags,
                                       (uint32_t *)out, count_device,
                                       count_host, s);
    return compact_typed<uint64_t>(n, (const uint64_t *)in, flags,
                                   (uint64_t *)out, count_device, count_host,
                                   s);
}
