/*
 * sort.cu (CUDA) - duo_sort: CUB's DeviceRadixSort over the mapped keys
 * of src/sort_keys.h.
 *
 * The keys are mapped into keys_out (descending included), so CUB only
 * ever sorts unsigned integers in ascending order over all their bits:
 * its stable LSD radix sort then gives exactly the CPU's output, and its
 * own handling of float keys (-0, NaN) never comes into play.  CUB sorts
 * keys_out (and values_out) against temporary buffers of the same size,
 * taken with cudaMallocAsync on the stream; the inverse map writes the
 * sorted keys back to keys_out from whichever buffer holds them.
 */
#include <cub/device/device_radix_sort.cuh>

#include "cuda_check.h"
#include "sort_keys.h"

enum { kThreads = 256, kMaxBlocks = 65536 };

static unsigned blocks_for(size_t n)
{
    const size_t b = (n + kThreads - 1) / kThreads;
    return (unsigned)(b < kMaxBlocks ? b : kMaxBlocks);
}

template <class K>
__global__ void map_kernel(duo_key_kind kind, int descending, size_t n,
                           const K *in, K *out, int inverse)
{
    const int bits = (int)sizeof(K) * 8;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = (K)(inverse ? duo_sort_key_unmap(kind, bits, in[i],
                                                  descending)
                             : duo_sort_key_map(kind, bits, in[i],
                                                descending));
}

__global__ void iota_kernel(size_t n, uint64_t *out)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = i;
}

static size_t round_up(size_t bytes) { return (bytes + 255) / 256 * 256; }

/* CUB's sort of keys (and values unless NULL) against one temporary
 * block: scratch keys, scratch values, CUB's own storage.  On success
 * *sorted_k and *sorted_v say where the result is and *block is the
 * block, which the caller frees (stream-ordered) once it has read them. */
template <class K, class V>
static duo_status radix(const char *where, size_t n, K *keys, V *values,
                        cudaStream_t s, K **sorted_k, V **sorted_v,
                        void **block)
{
    cub::DoubleBuffer<K> dk(keys, NULL);
    cub::DoubleBuffer<V> dv(values, NULL);
    const int bits = (int)sizeof(K) * 8;
    size_t cub_bytes = 0;
    if (values == NULL)
        DUO_CUDA_TRY(cub::DeviceRadixSort::SortKeys(NULL, cub_bytes, dk, n, 0,
                                                    bits, s),
                     where);
    else
        DUO_CUDA_TRY(cub::DeviceRadixSort::SortPairs(NULL, cub_bytes, dk, dv,
                                                     n, 0, bits, s),
                     where);
    const size_t kbytes = round_up(n * sizeof(K));
    const size_t vbytes = values == NULL ? 0 : round_up(n * sizeof(V));
    char *tmp = NULL;
    DUO_CUDA_TRY(cudaMallocAsync((void **)&tmp, kbytes + vbytes + cub_bytes,
                                 s),
                 where);
    dk = cub::DoubleBuffer<K>(keys, (K *)tmp);
    dv = cub::DoubleBuffer<V>(values, values == NULL ? NULL
                                                     : (V *)(tmp + kbytes));
    const cudaError_t err =
        values == NULL
            ? cub::DeviceRadixSort::SortKeys(tmp + kbytes + vbytes,
                                             cub_bytes, dk, n, 0, bits, s)
            : cub::DeviceRadixSort::SortPairs(tmp + kbytes + vbytes,
                                              cub_bytes, dk, dv, n, 0, bits,
                                              s);
    if (err != cudaSuccess) {
        (void)cudaFreeAsync(tmp, s);
        return duo_cuda_fail(err, __FILE__, __LINE__, where,
                             "cub::DeviceRadixSort");
    }
    *sorted_k = dk.Current();
    *sorted_v = dv.Current();
    *block = tmp;
    return DUO_SUCCESS;
}

/* Map, sort, unmap (into keys_out from wherever CUB left the keys). */
template <class K, class V>
static duo_status sort_typed(const char *where, duo_key_type type,
                             int descending, size_t n, const K *keys_in,
                             K *keys_out, const V *values_in, V *values_out,
                             int permutation, cudaStream_t s)
{
    const duo_key_kind kind = duo_sort_key_kind(type);
    const unsigned grid = blocks_for(n);
    map_kernel<K><<<grid, kThreads, 0, s>>>(kind, descending, n, keys_in,
                                            keys_out, 0);
    DUO_CUDA_TRY(cudaGetLastError(), where);
    if (permutation) {
        iota_kernel<<<grid, kThreads, 0, s>>>(n, (uint64_t *)values_out);
        DUO_CUDA_TRY(cudaGetLastError(), where);
    } else if (values_out != NULL && values_in != values_out) {
        DUO_CUDA_TRY(cudaMemcpyAsync(values_out, values_in, n * sizeof(V),
                                     cudaMemcpyDeviceToDevice, s),
                     where);
    }
    K *sorted_k = NULL;
    V *sorted_v = NULL;
    void *block = NULL;
    duo_status status = radix<K, V>(where, n, keys_out, values_out, s,
                                    &sorted_k, &sorted_v, &block);
    if (status != DUO_SUCCESS)
        return status;
    map_kernel<K><<<grid, kThreads, 0, s>>>(kind, descending, n, sorted_k,
                                            keys_out, 1);
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess && sorted_v != values_out)
        err = cudaMemcpyAsync(values_out, sorted_v, n * sizeof(V),
                              cudaMemcpyDeviceToDevice, s);
    const cudaError_t freed = cudaFreeAsync(block, s);
    DUO_CUDA_TRY(err, where);
    DUO_CUDA_TRY(freed, where);
    return DUO_SUCCESS;
}

template <class K>
static duo_status sort_keyed(const char *where, duo_key_type type,
                             int descending, size_t n, const void *keys_in,
                             void *keys_out, const void *values_in,
                             void *values_out, size_t value_size,
                             int permutation, cudaStream_t s)
{
    if (value_size == 0)
        return sort_typed<K, uint32_t>(where, type, descending, n,
                                       (const K *)keys_in, (K *)keys_out,
                                       NULL, NULL, 0, s);
    if (value_size == 4)
        return sort_typed<K, uint32_t>(where, type, descending, n,
                                       (const K *)keys_in, (K *)keys_out,
                                       (const uint32_t *)values_in,
                                       (uint32_t *)values_out, 0, s);
    return sort_typed<K, uint64_t>(where, type, descending, n,
                                   (const K *)keys_in, (K *)keys_out,
                                   (const uint64_t *)values_in,
                                   (uint64_t *)values_out, permutation, s);
}

duo_status duo_be_sort(duo_key_type type, duo_sort_order order, size_t n,
                       const void *keys_in, void *keys_out,
                       const void *values_in, void *values_out,
                       size_t value_size, int permutation,
                       duo_stream stream)
{
    const char *where = permutation ? "duo_sort_permutation" : "duo_sort";
    const int descending = order == DUO_DESCENDING;
    const cudaStream_t s = duo_cuda_stream(stream);
    if (duo_sort_key_bits(type) == 32)
        return sort_keyed<uint32_t>(where, type, descending, n, keys_in,
                                    keys_out, values_in, values_out,
                                    value_size, permutation, s);
    return sort_keyed<uint64_t>(where, type, descending, n, keys_in,
                                keys_out, values_in, values_out, value_size,
                                permutation, s);
}
