/*
 * sort.cu (CUDA) - duo_sort: CUB's DeviceRadixSort, in the key order of
 * src/sort_keys.h.
 *
 * Integer keys go to CUB as they are: its radix passes flip the sign bit
 * of signed keys and, in its Descending forms, every bit -- the map of
 * sort_keys.h, applied inside CUB's first and last passes -- and its LSD
 * sort is stable in both directions, so the output is the CPU's.  Float
 * keys are mapped into unsigned integers first (CUB would sort -0 and +0
 * as equal, keeping their input order), sorted ascending, and mapped
 * back on the way out.
 *
 * Out of place (no output is its input) CUB reads the inputs and writes
 * the outputs itself.  Otherwise (in place, a permutation, float keys)
 * the outputs are filled first and sorted against temporary buffers of
 * the same size; the result is copied (or mapped) back from wherever
 * CUB left it.  Temporary memory comes from duo_cuda_prim_alloc.
 * Sizes go to CUB as int where they fit (its 32-bit offsets are the
 * faster path).
 */
#include <climits>

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

/* ------------------------------------------------------------------ */
/* CUB's calls                                                         */

/* Out of place: keys (and values unless vin is NULL) from in to out. */
template <class K, class V, class N>
static cudaError_t cub_out_of_place(void *storage, size_t &bytes,
                                    const K *kin, K *kout, const V *vin,
                                    V *vout, N n, int descending,
                                    cudaStream_t s)
{
    const int bits = (int)sizeof(K) * 8;
    typedef cub::DeviceRadixSort R;
    if (vin == NULL)
        return descending ? R::SortKeysDescending(storage, bytes, kin, kout,
                                                  n, 0, bits, s)
                          : R::SortKeys(storage, bytes, kin, kout, n, 0,
                                        bits, s);
    return descending ? R::SortPairsDescending(storage, bytes, kin, kout,
                                               vin, vout, n, 0, bits, s)
                      : R::SortPairs(storage, bytes, kin, kout, vin, vout, n,
                                     0, bits, s);
}

/* Against a second buffer of each: the result is where Current() says. */
template <class K, class V, class N>
static cudaError_t cub_buffers(void *storage, size_t &bytes,
                               cub::DoubleBuffer<K> &k,
                               cub::DoubleBuffer<V> &v, int values, N n,
                               int descending, cudaStream_t s)
{
    const int bits = (int)sizeof(K) * 8;
    typedef cub::DeviceRadixSort R;
    if (!values)
        return descending
                   ? R::SortKeysDescending(storage, bytes, k, n, 0, bits, s)
                   : R::SortKeys(storage, bytes, k, n, 0, bits, s);
    return descending
               ? R::SortPairsDescending(storage, bytes, k, v, n, 0, bits, s)
               : R::SortPairs(storage, bytes, k, v, n, 0, bits, s);
}

template <class K, class V, class N>
static duo_status sort_out_of_place(const char *where, int descending,
                                    N n, const K *kin, K *kout,
                                    const V *vin, V *vout, cudaStream_t s)
{
    size_t bytes = 0;
    DUO_CUDA_TRY((cub_out_of_place<K, V, N>(NULL, bytes, kin, kout, vin,
                                             vout, n, descending, s)),
                 where);
    void *storage = NULL;
    const duo_status status = duo_cuda_prim_alloc(&storage, bytes, s, where);
    if (status != DUO_SUCCESS)
        return status;
    const cudaError_t err = cub_out_of_place<K, V, N>(
        storage, bytes, kin, kout, vin, vout, n, descending, s);
    const cudaError_t freed = cudaFreeAsync(storage, s);
    DUO_CUDA_TRY(err, where);
    DUO_CUDA_TRY(freed, where);
    return DUO_SUCCESS;
}

/* keys (and values unless NULL) sorted against one temporary block:
 * scratch keys, scratch values, CUB's own storage.  On success *sorted_k
 * and *sorted_v say where the result is and *block is the block, which
 * the caller frees (stream-ordered) once it has read them. */
template <class K, class V, class N>
static duo_status sort_buffers(const char *where, int descending, N n,
                               K *keys, V *values, cudaStream_t s,
                               K **sorted_k, V **sorted_v, void **block)
{
    const int has_values = values != NULL;
    cub::DoubleBuffer<K> dk(keys, NULL);
    cub::DoubleBuffer<V> dv(values, NULL);
    size_t cub_bytes = 0;
    DUO_CUDA_TRY((cub_buffers<K, V, N>(NULL, cub_bytes, dk, dv, has_values,
                                        n, descending, s)),
                 where);
    const size_t kbytes = round_up((size_t)n * sizeof(K));
    const size_t vbytes = has_values ? round_up((size_t)n * sizeof(V)) : 0;
    char *tmp = NULL;
    const duo_status status = duo_cuda_prim_alloc(
        (void **)&tmp, kbytes + vbytes + cub_bytes, s, where);
    if (status != DUO_SUCCESS)
        return status;
    dk = cub::DoubleBuffer<K>(keys, (K *)tmp);
    dv = cub::DoubleBuffer<V>(values, has_values ? (V *)(tmp + kbytes)
                                                 : NULL);
    const cudaError_t err = cub_buffers<K, V, N>(
        tmp + kbytes + vbytes, cub_bytes, dk, dv, has_values, n, descending,
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

/* ------------------------------------------------------------------ */

/* K: the key type CUB sorts (the integer type itself, or the unsigned
 * type of a float's mapped bits); V: the values' (uint64_t for the
 * permutation).  values_out NULL: keys alone. */
template <class K, class V, class N>
static duo_status sort_typed(const char *where, duo_key_type type,
                             int descending, N n, const K *keys_in,
                             K *keys_out, const V *values_in, V *values_out,
                             int permutation, cudaStream_t s)
{
    const duo_key_kind kind = duo_sort_key_kind(type);
    const int mapped = kind == DUO_KEY_KIND_FLOAT;
    const int has_values = values_out != NULL;
    if (!mapped && !permutation && keys_in != keys_out &&
        (!has_values || values_in != values_out))
        return sort_out_of_place<K, V, N>(where, descending, n, keys_in,
                                          keys_out,
                                          has_values ? values_in : NULL,
                                          values_out, s);

    const size_t count = (size_t)n;
    const unsigned grid = blocks_for(count);
    if (mapped) {
        map_kernel<K><<<grid, kThreads, 0, s>>>(kind, descending, count,
                                                keys_in, keys_out, 0);
        DUO_CUDA_TRY(cudaGetLastError(), where);
    } else if (keys_in != keys_out) {
        DUO_CUDA_TRY(cudaMemcpyAsync(keys_out, keys_in, count * sizeof(K),
                                     cudaMemcpyDeviceToDevice, s),
                     where);
    }
    if (permutation) {
        iota_kernel<<<grid, kThreads, 0, s>>>(count, (uint64_t *)values_out);
        DUO_CUDA_TRY(cudaGetLastError(), where);
    } else if (has_values && values_in != values_out) {
        DUO_CUDA_TRY(cudaMemcpyAsync(values_out, values_in, count * sizeof(V),
                                     cudaMemcpyDeviceToDevice, s),
                     where);
    }
    K *sorted_k = NULL;
    V *sorted_v = NULL;
    void *block = NULL;
    /* Mapped keys already carry the descending order. */
    const duo_status status = sort_buffers<K, V, N>(
        where, mapped ? 0 : descending, n, keys_out,
        has_values ? values_out : NULL, s, &sorted_k, &sorted_v, &block);
    if (status != DUO_SUCCESS)
        return status;
    cudaError_t err = cudaSuccess;
    if (mapped) {
        map_kernel<K><<<grid, kThreads, 0, s>>>(kind, descending, count,
                                                sorted_k, keys_out, 1);
        err = cudaGetLastError();
    } else if (sorted_k != keys_out) {
        err = cudaMemcpyAsync(keys_out, sorted_k, count * sizeof(K),
                              cudaMemcpyDeviceToDevice, s);
    }
    if (err == cudaSuccess && has_values && sorted_v != values_out)
        err = cudaMemcpyAsync(values_out, sorted_v, count * sizeof(V),
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
    const K *kin = (const K *)keys_in;
    K *kout = (K *)keys_out;
#define DUO_SORT_SIZED_(V, vin, vout)                                        \
    (n <= (size_t)INT_MAX                                                    \
         ? sort_typed<K, V, int>(where, type, descending, (int)n, kin, kout, \
                                 vin, vout, permutation, s)                  \
         : sort_typed<K, V, size_t>(where, type, descending, n, kin, kout,   \
                                    vin, vout, permutation, s))
    if (value_size == 0)
        return DUO_SORT_SIZED_(uint32_t, (const uint32_t *)NULL,
                               (uint32_t *)NULL);
    if (value_size == 4)
        return DUO_SORT_SIZED_(uint32_t, (const uint32_t *)values_in,
                               (uint32_t *)values_out);
    return DUO_SORT_SIZED_(uint64_t, (const uint64_t *)values_in,
                           (uint64_t *)values_out);
#undef DUO_SORT_SIZED_
}

duo_status duo_be_sort(duo_key_type type, duo_sort_order order, size_t n,
                       const void *keys_in, void *keys_out,
                       const void *values_in, void *values_out,
                       size_t value_size, int permutation,
                       duo_stream stream)
{
    const char *where = permutation ? "duo_sort_permutation" : "duo_sort";
    const int desc = order == DUO_DESCENDING;
    const cudaStream_t s = duo_cuda_stream(stream);
#define DUO_SORT_AS_(K)                                                      \
    sort_keyed<K>(where, type, desc, n, keys_in, keys_out, values_in,        \
                  values_out, value_size, permutation, s)
    switch (type) {
    case DUO_KEY_I32: return DUO_SORT_AS_(int32_t);
    case DUO_KEY_U32: return DUO_SORT_AS_(uint32_t);
    case DUO_KEY_I64: return DUO_SORT_AS_(int64_t);
    case DUO_KEY_U64: return DUO_SORT_AS_(uint64_t);
    case DUO_KEY_F32: return DUO_SORT_AS_(uint32_t); /* mapped bits */
    case DUO_KEY_F64: return DUO_SORT_AS_(uint64_t);
    }
#undef DUO_SORT_AS_
    return DUO_ERROR_INVALID_ARGUMENT;
}
