/*
 * scan.cu (CUDA) - duo_scan.
 *
 * Integer sums, and min and max of every type, are exact in any order:
 * CUB's DeviceScan computes them and returns the bits of the order of
 * src/scan_order.h, which the CPU follows (ExclusiveScan's initial value
 * is the identity, which changes no bits for these operations).
 *
 * Floating-point sums follow the order itself, in one pass over the
 * input.  A thread block takes the next tile of kTileRuns runs (tiles
 * are handed out in launch order by a counter, so every tile before a
 * running one has started).  Its threads stage the tile in shared memory
 * (coalesced), each scans its run in registers, and the block sums of
 * the order within the tile are formed by warp shuffles and in shared
 * memory.  Above the tiles, the block of 2^k tiles b has its sum in a
 * slot (level k, index b) that the block completing it publishes (value,
 * then a ready flag with release order): a tile whose index ends in k
 * one bits completes the block of 2^k tiles ending with it, whose sum is
 * its left sibling's plus its own.  A tile's carry is the block sums of
 * its index's binary digits, added from the highest digit, all published
 * by tiles before it; so each tile waits only for tiles that are already
 * running, and the whole scan reads the input once and writes it once.
 * Only even block indices are ever read (a block of the carries and a
 * left sibling both end where an odd index starts), so each tile
 * publishes one slot.  The temporary block (the tile counter, the
 * flags, the values) comes from duo_cuda_prim_alloc.
 */
#include <math.h>
#include <stdint.h>

#include <cub/device/device_scan.cuh>
#include <cuda/atomic>

#include "cuda_check.h"
#include "scan_order.h"

#define RUN DUO_SCAN_RUN

enum {
    kThreads = 256,         /* one run per thread                        */
    kTileRuns = kThreads,   /* a tile: 2^kTileLevels runs                */
    kTileLevels = 8,
    kTile = kTileRuns * RUN /* elements                                  */
};
static_assert((1 << kTileLevels) == kTileRuns, "a tile is 2^8 runs");
static_assert(RUN == 16, "the staging layout pads one element per run");

/* Block sum at (level k, index b) within a tile, k = 0..kTileLevels: the
 * levels one after another in one array (level 0: the run totals). */
__device__ __forceinline__ int tile_level_at(int k, int b)
{
    return 2 * kTileRuns - (2 * kTileRuns >> k) + b;
}

/* The published block sums above the tiles.  Level k has a slot for each
 * complete block of 2^k tiles (full_tiles >> k of them), levels one
 * after another. */
struct Slots {
    double *value;
    unsigned *ready;
    unsigned long long *next_tile;
    size_t full_tiles;
};

__device__ __forceinline__ size_t slot_of(const Slots &st, int k, size_t b)
{
    size_t at = 0;
    for (int i = 0; i < k; ++i)
        at += st.full_tiles >> i;
    return at + b;
}

__device__ __forceinline__ double wait_slot(const Slots &st, int k, size_t b)
{
    const size_t at = slot_of(st, k, b);
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> ready(st.ready[at]);
    while (ready.load(cuda::memory_order_acquire) == 0)
        __nanosleep(64);
    return __ldcg(&st.value[at]);
}

__device__ __forceinline__ void publish_slot(const Slots &st, int k,
                                             size_t b, double v)
{
    const size_t at = slot_of(st, k, b);
    st.value[at] = v;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> ready(st.ready[at]);
    ready.store(1u, cuda::memory_order_release);
}

/* The floating-point sum scan of x into y (T = float or double, summed
 * in double).  y may be x: a tile is read whole before it is written. */
template <class T>
__global__ void __launch_bounds__(kThreads)
    scan_sum_kernel(const T *x, T *y, size_t n, int inclusive, Slots st)
{
    /* Element e of the tile at e + e / RUN: a thread's run is then 17
     * apart from its neighbour's, so its reads miss each other's banks. */
    __shared__ T stage[kTile + kTileRuns];
    __shared__ double lev[2 * kTileRuns];
    __shared__ size_t tile_s;
    __shared__ double carry_s;

    if (threadIdx.x == 0)
        tile_s = (size_t)atomicAdd(st.next_tile, 1ull);
    __syncthreads();
    const size_t tile = tile_s;
    const size_t base = tile * kTile;
    const int count = n - base < (size_t)kTile ? (int)(n - base) : kTile;

    for (int e = threadIdx.x; e < count; e += kThreads)
        stage[e + e / RUN] = x[base + e];
    __syncthreads();

    /* My run: its local inclusive values and its total. */
    const int r = threadIdx.x, lane = r & 31;
    const int len = count - r * RUN < RUN ? count - r * RUN : RUN;
    double loc[RUN];
    double acc = 0.0;
#pragma unroll
    for (int k = 0; k < RUN; ++k) {
        if (k < len) {
            const double v = (double)stage[r * (RUN + 1) + k];
            acc = k == 0 ? v : acc + v;
        }
        loc[k] = acc;
    }

    /* Block sums within the tile: levels 1-5 within each warp, 6-8 over
     * the warps' sums.  S(k, b) = S(k-1, 2b) + S(k-1, 2b+1), held by the
     * lane that ends the block. */
    lev[r] = acc;
    double v = acc;
#pragma unroll
    for (int k = 1; k <= 5; ++k) {
        const double left = __shfl_up_sync(0xffffffffu, v, 1 << (k - 1));
        if (((lane + 1) & ((1 << k) - 1)) == 0) {
            v = left + v;
            lev[tile_level_at(k, r >> k)] = v;
        }
    }
    __syncthreads();

    if (r < 32) {
        double w = r < kThreads / 32 ? lev[tile_level_at(5, r)] : 0.0;
#pragma unroll
        for (int k = 6; k <= kTileLevels; ++k) {
            const int q = k - 5;
            const double left = __shfl_up_sync(0xffffffffu, w, 1 << (q - 1));
            if (r < kThreads / 32 && ((r + 1) & ((1 << q) - 1)) == 0) {
                w = left + w;
                lev[tile_level_at(k, r >> q)] = w;
            }
        }
        __syncwarp();

        /* Publish: a complete tile whose index ends in `up` one bits
         * completes the block of 2^up tiles ending with it.  Its sum is
         * the left siblings' sums (lane k fetches level k - 1) added, in
         * turn, before the tile's own. */
        if (tile < st.full_tiles) {
            int up = 0;
            while ((tile >> up) & 1)
                ++up;
            const double left = r >= 1 && r <= up
                                    ? wait_slot(st, r - 1,
                                                (tile >> (r - 1)) - 1)
                                    : 0.0;
            double sum = lev[tile_level_at(kTileLevels, 0)];
            for (int k = 1; k <= up; ++k)
                sum = __shfl_sync(0xffffffffu, left, k) + sum;
            if (r == 0)
                publish_slot(st, up, tile >> up, sum);
        }

        /* The tile's carry: lane k fetches the block of digit k (tile
         * counts stay below 2^31, host-checked), then the sums are added
         * from the highest digit. */
        const double block = (tile >> r) & 1
                                 ? wait_slot(st, r, (tile >> r) - 1)
                                 : 0.0;
        double carry = 0.0;
        int none = 1;
        for (int k = 31; k >= 0; --k) {
            const double b = __shfl_sync(0xffffffffu, block, k);
            if ((tile >> k) & 1) {
                carry = none ? b : carry + b;
                none = 0;
            }
        }
        if (r == 0)
            carry_s = carry;
    }
    __syncthreads();

    /* My run's carry: the tile's, then the block sums of my index's
     * digits within the tile, highest first.  Only run 0 of tile 0 has
     * none. */
    double c = carry_s;
    int none = tile == 0;
#pragma unroll
    for (int k = kTileLevels - 1; k >= 0; --k)
        if ((r >> k) & 1) {
            const double s = lev[tile_level_at(k, (r >> k) - 1)];
            c = none ? s : c + s;
            none = 0;
        }

    /* The outputs, staged over my own inputs (all read above). */
#pragma unroll
    for (int k = 0; k < RUN; ++k)
        if (k < len) {
            double out;
            if (inclusive)
                out = none ? loc[k] : c + loc[k];
            else if (k == 0)
                out = none ? 0.0 : c;
            else
                out = none ? loc[k - 1] : c + loc[k - 1];
            stage[r * (RUN + 1) + k] = (T)out;
        }
    __syncthreads();
    for (int e = threadIdx.x; e < count; e += kThreads)
        y[base + e] = stage[e + e / RUN];
}

template <class T>
static duo_status scan_sum(const T *x, T *y, size_t n, int inclusive,
                           cudaStream_t s)
{
    const char *where = "duo_scan";
    const size_t tiles = (n + kTile - 1) / kTile;
    if (tiles > (size_t)INT32_MAX)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "n = %zu: a floating-point sum scan on the GPU "
                        "takes at most %zu elements", n,
                        (size_t)INT32_MAX * kTile);
    Slots st;
    st.full_tiles = n / kTile;
    size_t slots = 0;
    for (size_t m = st.full_tiles; m > 0; m >>= 1)
        slots += m;
    /* The counter, the flags, then the values (each 256-byte aligned). */
    const size_t flags_at = 256;
    const size_t values_at = flags_at + (slots * sizeof(unsigned) + 255) /
                                            256 * 256;
    char *block = NULL;
    duo_status status = duo_cuda_prim_alloc(
        (void **)&block, values_at + slots * sizeof(double), s, where);
    if (status != DUO_SUCCESS)
        return status;
    st.next_tile = (unsigned long long *)block;
    st.ready = (unsigned *)(block + flags_at);
    st.value = (double *)(block + values_at);
    cudaError_t err = cudaMemsetAsync(block, 0, values_at, s);
    if (err == cudaSuccess) {
        scan_sum_kernel<T><<<(unsigned)tiles, kThreads, 0, s>>>(
            x, y, n, inclusive, st);
        err = cudaGetLastError();
    }
    const cudaError_t freed = cudaFreeAsync(block, s);
    DUO_CUDA_TRY(err, where);
    DUO_CUDA_TRY(freed, where);
    return DUO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* The exact scans: CUB                                                */

struct MinOp {
    template <class A> __device__ A operator()(A a, A b) const
    { return DUO_COMBINE_DUO_MIN(a, b); }
};
struct MaxOp {
    template <class A> __device__ A operator()(A a, A b) const
    { return DUO_COMBINE_DUO_MAX(a, b); }
};

/* One CUB scan: `call(storage, bytes)` with NULL storage sizes it.
 * Sizes go to CUB as int where they fit (its 32-bit offsets are the
 * faster path). */
template <class Call>
static duo_status cub_run(Call call, cudaStream_t s)
{
    const char *where = "duo_scan";
    size_t bytes = 0;
    DUO_CUDA_TRY(call(NULL, bytes), where);
    void *storage = NULL;
    duo_status status = duo_cuda_prim_alloc(&storage, bytes, s, where);
    if (status != DUO_SUCCESS)
        return status;
    const cudaError_t err = call(storage, bytes);
    const cudaError_t freed = cudaFreeAsync(storage, s);
    DUO_CUDA_TRY(err, where);
    DUO_CUDA_TRY(freed, where);
    return DUO_SUCCESS;
}

/* Sums of the unsigned type U (signed sums wrap through it). */
template <class U, class N>
static duo_status cub_sum(const U *x, U *y, N n, int inclusive,
                          cudaStream_t s)
{
    return cub_run(
        [&](void *storage, size_t &bytes) {
            return inclusive
                       ? cub::DeviceScan::InclusiveSum(storage, bytes, x, y,
                                                       n, s)
                       : cub::DeviceScan::ExclusiveSum(storage, bytes, x, y,
                                                       n, s);
        },
        s);
}

template <class T, class Op, class N>
static duo_status cub_pick(const T *x, T *y, N n, int inclusive, T identity,
                           cudaStream_t s)
{
    return cub_run(
        [&](void *storage, size_t &bytes) {
            return inclusive
                       ? cub::DeviceScan::InclusiveScan(storage, bytes, x, y,
                                                        Op(), n, s)
                       : cub::DeviceScan::ExclusiveScan(storage, bytes, x, y,
                                                        Op(), identity, n, s);
        },
        s);
}

/* Min, max, or (for integer T through unsigned U) a sum. */
template <class T, class U>
static duo_status cub_scan(duo_reduce_op op, const void *x, void *y,
                           size_t n, int inclusive, T lowest, T highest,
                           cudaStream_t s)
{
    const int small = n <= (size_t)INT32_MAX;
    if (op == DUO_SUM)
        return small ? cub_sum((const U *)x, (U *)y, (int)n, inclusive, s)
                     : cub_sum((const U *)x, (U *)y, n, inclusive, s);
    if (op == DUO_MIN)
        return small ? cub_pick<T, MinOp>((const T *)x, (T *)y, (int)n,
                                          inclusive, highest, s)
                     : cub_pick<T, MinOp>((const T *)x, (T *)y, n, inclusive,
                                          highest, s);
    return small ? cub_pick<T, MaxOp>((const T *)x, (T *)y, (int)n,
                                      inclusive, lowest, s)
                 : cub_pick<T, MaxOp>((const T *)x, (T *)y, n, inclusive,
                                      lowest, s);
}

duo_status duo_be_scan(duo_scan_kind kind, duo_reduce_op op, duo_dtype type,
                       const void *x, void *y, size_t n, duo_stream stream)
{
    const cudaStream_t s = duo_cuda_stream(stream);
    const int inc = kind == DUO_INCLUSIVE;
    switch (type) {
    case DUO_F32:
        if (op == DUO_SUM)
            return scan_sum((const float *)x, (float *)y, n, inc, s);
        return cub_scan<float, float>(op, x, y, n, inc, -INFINITY, INFINITY,
                                      s);
    case DUO_F64:
        if (op == DUO_SUM)
            return scan_sum((const double *)x, (double *)y, n, inc, s);
        return cub_scan<double, double>(op, x, y, n, inc, -INFINITY,
                                        INFINITY, s);
    case DUO_I32:
        return cub_scan<int32_t, uint32_t>(op, x, y, n, inc, INT32_MIN,
                                           INT32_MAX, s);
    case DUO_I64:
        return cub_scan<int64_t, uint64_t>(op, x, y, n, inc, INT64_MIN,
                                           INT64_MAX, s);
    case DUO_U64:
        return cub_scan<uint64_t, uint64_t>(op, x, y, n, inc, 0, UINT64_MAX,
                                            s);
    }
    return DUO_ERROR_INVALID_ARGUMENT;
}
