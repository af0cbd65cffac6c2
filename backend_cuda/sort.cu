/*
 * sort.cu (CUDA) - duo_sort: CUB's DeviceRadixSort, in the key order of
 * src/sort_keys.h.
 *
 * CUB sorts every key type in that order, with one exception: it ranks
 * -0 and +0 as equal (keeping their input order), where duo puts every
 * -0 below every +0.  Its radix passes flip the sign bit of signed keys,
 * flip every bit of a negative float and the sign bit of a positive one,
 * and in its Descending forms flip every bit again -- the map of
 * sort_keys.h, applied inside CUB's first and last passes -- and its LSD
 * sort is stable in both directions.  So integer keys come out as the
 * CPU's, and float keys do once the block of zeros in the middle of the
 * output is put in order: see "Signed zeros" below.  (Mapping float keys
 * to integers before the sort and back after, as the CPU does, costs two
 * more passes over the keys: a quarter of the sort's time.)
 *
 * Out of place (no output is its input) CUB reads the inputs and writes
 * the outputs itself.  Otherwise (in place, a permutation) the outputs
 * are filled first and sorted against temporary buffers of the same
 * size; the result is copied back from wherever CUB left it.  Temporary
 * memory comes from duo_cuda_prim_alloc.  Sizes go to CUB as int where
 * they fit (its 32-bit offsets are the faster path).
 */
#include <climits>
#include <type_traits>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>

#include "cuda_check.h"
#include "sort_keys.h"

enum { kThreads = 256, kMaxBlocks = 65536 };

static unsigned blocks_for(size_t n)
{
    const size_t b = (n + kThreads - 1) / kThreads;
    return (unsigned)(b < kMaxBlocks ? b : kMaxBlocks);
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
/* Signed zeros                                                        */
/*
 * After CUB, the zeros of float keys form one block [lo, hi) of the
 * output, -0 and +0 in input order.  duo's order wants the zeros of one
 * sign first (-0 ascending, +0 descending), each sign in input order: a
 * stable partition of the block.  It runs on the device alone, so the
 * host never waits (stream order and graph capture hold):
 *   zero_find   one block finds lo and hi by a 1024-way search;
 *   zero_count  kZeroChunks blocks count the first sign in their chunk;
 *   zero_scan   one block turns the counts into offsets;
 *   zero_stash  copies the block's values aside;
 *   zero_place  moves each value to its place, stably, from the copy;
 *   zero_keys   rewrites the keys: the first sign, then the other.
 * The last three return at once where the block is empty or of one sign
 * (random data, data whose zeros are all +0): then the whole costs four
 * to six launches of a few microseconds. */

enum { kZeroChunks = 256, kZeroThreads = 256, kFindThreads = 1024 };

namespace {
struct ZeroRun {
    size_t lo, hi; /* the zeros in the sorted keys */
    size_t first;  /* how many of them have the sign that goes first */
    size_t before[kZeroChunks]; /* per chunk: that sign in earlier ones */
};

template <class F> struct BitsOf;
template <> struct BitsOf<float> { typedef uint32_t type; };
template <> struct BitsOf<double> { typedef uint64_t type; };
} // namespace

/* The key CUB sorts by: the sort_keys.h map with -0 taken as +0. */
template <class U>
static __device__ uint64_t cub_rank(U key, int descending)
{
    if ((U)(key << 1) == 0)
        key = 0;
    return duo_sort_key_map(DUO_KEY_KIND_FLOAT, (int)sizeof(U) * 8, key,
                            descending);
}

/* The first index of keys[0, n) whose rank is >= zero (upper: > zero);
 * the ranks ascend.  Every thread of the block gets it.  Each round
 * samples blockDim.x evenly spaced keys and keeps the gap between the
 * last one below and the first one not. */
template <class U>
static __device__ size_t rank_bound(const U *keys, size_t n, uint64_t zero,
                                    bool upper, int descending)
{
    size_t l = 0, r = n; /* below l: rank below; from r: not */
    while (r - l > blockDim.x) {
        const size_t step = (r - l + blockDim.x - 1) / blockDim.x;
        const size_t i = l + threadIdx.x * step;
        int below = 0;
        if (i < r) {
            const uint64_t k = cub_rank(keys[i], descending);
            below = upper ? k <= zero : k < zero;
        }
        const size_t c = (size_t)__syncthreads_count(below);
        if (l + c * step < r)
            r = l + c * step;
        if (c > 0)
            l += (c - 1) * step + 1;
    }
    const size_t i = l + threadIdx.x;
    int below = 0;
    if (i < r) {
        const uint64_t k = cub_rank(keys[i], descending);
        below = upper ? k <= zero : k < zero;
    }
    return l + (size_t)__syncthreads_count(below);
}

template <class U>
__global__ void zero_find(const U *keys, size_t n, int descending,
                          ZeroRun *z)
{
    const uint64_t zero = cub_rank<U>(0, descending);
    const size_t lo = rank_bound(keys, n, zero, false, descending);
    const size_t hi = rank_bound(keys, n, zero, true, descending);
    if (threadIdx.x == 0) {
        z->lo = lo;
        z->hi = hi;
    }
}

/* Chunk b of the run: [*from, *to). */
static __device__ void zero_chunk(const ZeroRun *z, size_t *from,
                                  size_t *to)
{
    const size_t len = z->hi - z->lo;
    const size_t chunk = (len + kZeroChunks - 1) / kZeroChunks;
    const size_t b = blockIdx.x;
    *from = z->lo + (b * chunk < len ? b * chunk : len);
    *to = z->lo + ((b + 1) * chunk < len ? (b + 1) * chunk : len);
}

/* Whether a zero key has the sign that goes first. */
template <class U>
static __device__ bool goes_first(U key, int descending)
{
    const bool negative = (key >> (sizeof(U) * 8 - 1)) != 0;
    return negative != (descending != 0);
}

template <class U>
__global__ void zero_count(const U *keys, int descending, ZeroRun *z)
{
    size_t from, to;
    zero_chunk(z, &from, &to);
    int mine = 0;
    for (size_t i = from + threadIdx.x; i < to; i += blockDim.x)
        mine += goes_first(keys[i], descending);
    typedef cub::BlockReduce<int, kZeroThreads> Reduce;
    __shared__ typename Reduce::TempStorage tmp;
    const int total = Reduce(tmp).Sum(mine);
    if (threadIdx.x == 0)
        z->before[blockIdx.x] = (size_t)total;
}

__global__ void zero_scan(ZeroRun *z)
{
    typedef cub::BlockScan<size_t, kZeroChunks> Scan;
    __shared__ typename Scan::TempStorage tmp;
    size_t before, total;
    Scan(tmp).ExclusiveSum(z->before[threadIdx.x], before, total);
    z->before[threadIdx.x] = before;
    if (threadIdx.x == 0)
        z->first = total;
}

static __device__ bool zero_mixed(const ZeroRun *z)
{
    return z->first != 0 && z->first != z->hi - z->lo;
}

template <class V>
__global__ void zero_stash(const V *values, const ZeroRun *z, V *stash)
{
    if (!zero_mixed(z))
        return;
    size_t from, to;
    zero_chunk(z, &from, &to);
    for (size_t i = from + threadIdx.x; i < to; i += blockDim.x)
        stash[i - z->lo] = values[i];
}

template <class U, class V>
__global__ void zero_place(const U *keys, int descending, const ZeroRun *z,
                           const V *stash, V *values)
{
    if (!zero_mixed(z))
        return;
    size_t from, to;
    zero_chunk(z, &from, &to);
    typedef cub::BlockScan<int, kZeroThreads> Scan;
    __shared__ typename Scan::TempStorage tmp;
    size_t firsts = z->before[blockIdx.x]; /* first-sign zeros before */
    for (size_t base = from; base < to; base += blockDim.x) {
        const size_t i = base + threadIdx.x;
        const int flag = i < to && goes_first(keys[i], descending);
        int rank, tile;
        Scan(tmp).ExclusiveSum(flag, rank, tile);
        __syncthreads(); /* tmp is used again next round */
        if (i < to) {
            const size_t f = firsts + (size_t)rank; /* before i */
            const size_t at = flag ? z->lo + f
                                   : z->lo + z->first + (i - z->lo - f);
            values[at] = stash[i - z->lo];
        }
        firsts += (size_t)tile;
    }
}

template <class U>
__global__ void zero_keys(U *keys, int descending, const ZeroRun *z)
{
    if (!zero_mixed(z))
        return;
    const U sign = (U)1 << (sizeof(U) * 8 - 1);
    const U first = descending ? 0 : sign;
    size_t from, to;
    zero_chunk(z, &from, &to);
    for (size_t i = from + threadIdx.x; i < to; i += blockDim.x)
        keys[i] = i - z->lo < z->first ? first : (U)(first ^ sign);
}

/* Put the zeros of the n sorted float keys (and their values, unless
 * NULL) in duo's order. */
template <class F, class V>
static duo_status order_zeros(const char *where, int descending, size_t n,
                              F *keys, V *values, cudaStream_t s)
{
    typedef typename BitsOf<F>::type U;
    U *k = (U *)keys;
    const size_t run_bytes = round_up(sizeof(ZeroRun));
    const size_t stash_bytes = values != NULL ? n * sizeof(V) : 0;
    char *tmp = NULL;
    const duo_status status =
        duo_cuda_prim_alloc((void **)&tmp, run_bytes + stash_bytes, s, where);
    if (status != DUO_SUCCESS)
        return status;
    ZeroRun *z = (ZeroRun *)tmp;
    V *stash = (V *)(tmp + run_bytes);
    zero_find<U><<<1, kFindThreads, 0, s>>>(k, n, descending, z);
    zero_count<U><<<kZeroChunks, kZeroThreads, 0, s>>>(k, descending, z);
    zero_scan<<<1, kZeroChunks, 0, s>>>(z);
    if (values != NULL) {
        zero_stash<V><<<kZeroChunks, kZeroThreads, 0, s>>>(values, z, stash);
        zero_place<U, V><<<kZeroChunks, kZeroThreads, 0, s>>>(
            k, descending, z, stash, values);
    }
    zero_keys<U><<<kZeroChunks, kZeroThreads, 0, s>>>(k, descending, z);
    const cudaError_t err = cudaGetLastError();
    const cudaError_t freed = cudaFreeAsync(tmp, s);
    DUO_CUDA_TRY(err, where);
    DUO_CUDA_TRY(freed, where);
    return DUO_SUCCESS;
}

/* ------------------------------------------------------------------ */

/* K: the key type (float and double as they are); V: the values'
 * (uint64_t for the permutation).  values_out NULL: keys alone. */
template <class K, class V, class N>
static duo_status sort_unordered_zeros(const char *where, int descending,
                                       N n, const K *keys_in, K *keys_out,
                                       const V *values_in, V *values_out,
                                       int permutation, cudaStream_t s)
{
    const int has_values = values_out != NULL;
    if (!permutation && keys_in != keys_out &&
        (!has_values || values_in != values_out))
        return sort_out_of_place<K, V, N>(where, descending, n, keys_in,
                                          keys_out,
                                          has_values ? values_in : NULL,
                                          values_out, s);

    const size_t count = (size_t)n;
    const unsigned grid = blocks_for(count);
    if (keys_in != keys_out)
        DUO_CUDA_TRY(cudaMemcpyAsync(keys_out, keys_in, count * sizeof(K),
                                     cudaMemcpyDeviceToDevice, s),
                     where);
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
    const duo_status status = sort_buffers<K, V, N>(
        where, descending, n, keys_out, has_values ? values_out : NULL, s,
        &sorted_k, &sorted_v, &block);
    if (status != DUO_SUCCESS)
        return status;
    cudaError_t err = cudaSuccess;
    if (sorted_k != keys_out)
        err = cudaMemcpyAsync(keys_out, sorted_k, count * sizeof(K),
                              cudaMemcpyDeviceToDevice, s);
    if (err == cudaSuccess && has_values && sorted_v != values_out)
        err = cudaMemcpyAsync(values_out, sorted_v, count * sizeof(V),
                              cudaMemcpyDeviceToDevice, s);
    const cudaError_t freed = cudaFreeAsync(block, s);
    DUO_CUDA_TRY(err, where);
    DUO_CUDA_TRY(freed, where);
    return DUO_SUCCESS;
}

template <class K, class V, class N>
static duo_status sort_typed(const char *where, int descending, N n,
                             const K *keys_in, K *keys_out,
                             const V *values_in, V *values_out,
                             int permutation, cudaStream_t s)
{
    const duo_status status = sort_unordered_zeros<K, V, N>(
        where, descending, n, keys_in, keys_out, values_in, values_out,
        permutation, s);
    if constexpr (std::is_floating_point<K>::value)
        if (status == DUO_SUCCESS && n != 0)
            return order_zeros(where, descending, (size_t)n, keys_out,
                               values_out, s);
    return status;
}

template <class K>
static duo_status sort_keyed(const char *where, int descending, size_t n,
                             const void *keys_in, void *keys_out, const void *values_in,
                             void *values_out, size_t value_size,
                             int permutation, cudaStream_t s)
{
    const K *kin = (const K *)keys_in;
    K *kout = (K *)keys_out;
#define DUO_SORT_SIZED_(V, vin, vout)                                        \
    (n <= (size_t)INT_MAX                                                    \
         ? sort_typed<K, V, int>(where, descending, (int)n, kin, kout,       \
                                 vin, vout, permutation, s)                  \
         : sort_typed<K, V, size_t>(where, descending, n, kin, kout, vin,    \
                                    vout, permutation, s))
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
    sort_keyed<K>(where, desc, n, keys_in, keys_out, values_in,        \
                  values_out, value_size, permutation, s)
    switch (type) {
    case DUO_KEY_I32: return DUO_SORT_AS_(int32_t);
    case DUO_KEY_U32: return DUO_SORT_AS_(uint32_t);
    case DUO_KEY_I64: return DUO_SORT_AS_(int64_t);
    case DUO_KEY_U64: return DUO_SORT_AS_(uint64_t);
    case DUO_KEY_F32: return DUO_SORT_AS_(float);
    case DUO_KEY_F64: return DUO_SORT_AS_(double);
    }
#undef DUO_SORT_AS_
    return DUO_ERROR_INVALID_ARGUMENT;
}
