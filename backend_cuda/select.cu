/*
 * select.cu (CUDA) - duo_compact: CUB's DeviceSelect::Flagged, which
 * keeps the flagged elements in input order (exact, as the CPU's).  Its
 * temporary storage, and the count on its way to the host, are one
 * block from duo_cuda_prim_alloc.  Sizes go to CUB as int where they fit
 * (its 32-bit offsets are the faster path).
 */
#include <climits>

#include <cub/device/device_select.cuh>

#include "cuda_check.h"

template <class T, class N>
static duo_status compact_typed(N n, const T *in, const uint8_t *flags,
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
    const duo_status status =
        duo_cuda_prim_alloc((void **)&block, 256 + cub_bytes, s, where);
    if (status != DUO_SUCCESS)
        return status;
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
    const int small = n <= (size_t)INT_MAX;
    if (elem_size == 4) {
        const uint32_t *x = (const uint32_t *)in;
        uint32_t *y = (uint32_t *)out;
        return small ? compact_typed((int)n, x, flags, y, count_device,
                                     count_host, s)
                     : compact_typed(n, x, flags, y, count_device,
                                     count_host, s);
    }
    const uint64_t *x = (const uint64_t *)in;
    uint64_t *y = (uint64_t *)out;
    return small ? compact_typed((int)n, x, flags, y, count_device,
                                 count_host, s)
                 : compact_typed(n, x, flags, y, count_device, count_host, s);
}
