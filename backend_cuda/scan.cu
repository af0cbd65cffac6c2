/*
 * scan.cu (CUDA) - duo_scan.
 *
 * Integer sums, and min and max of every type, are exact in any order:
 * CUB's DeviceScan computes them and returns the bits of the order of
 * src/scan_order.h, which the CPU follows (ExclusiveScan's initial value
 * is the identity, which changes no bits for these operations).
 *
 * Floating-point sums follow the order itself, in one pass over the
 * input.  A thread block takes the next tile of Tile<T>::kRuns runs
 * (tiles are handed out in launch order by a counter, so every tile
 * before a running one has started).  The block copies its tile into
 * shared memory (16-byte cp.async copies), each thread reads its own
 * runs from there, and the block sums of the order within the tile are
 * formed by warp shuffles and in shared memory.
 * Above the tiles, the block of 2^k tiles b has the sum S(k, b) of the
 * order, and a tile's carry is the block sums of its index's binary
 * digits, added from the highest digit.  Every complete tile publishes
 * its own sum S(0, t) in a slot as soon as it has it, waiting for
 * nothing.  The blocks of levels 1-4 lie within an aligned group of 32
 * tiles: a tile forms those it needs itself from the published sums of
 * its group's earlier tiles, in the order's pairs.  A block of level 5 or
 * more is published by the tile completing it, whose index ends in that
 * many one bits: its sum is its left siblings' (levels 0-4 from the
 * group, 5 and up from older tiles' slots) added before the tile's own.
 * The newest of those blocks a tile needs, the one ending where its group
 * starts, the tile forms itself the same way from the previous group's
 * own sums.  So a tile waits only for tiles before it, which are
 * already running, and mostly for their own sums, which no wait delays;
 * the whole scan reads the input once and writes it once.  Only even
 * block indices of level 5 and up are read (a block of the carries and
 * a left sibling both end where an odd index starts).
 * The tile counter and the slots live in memory the stream keeps
 * (duo_cuda_scan_keep): two areas used in turn, each scan's kernel
 * setting the one it does not use back to empty, which no tile of it
 * reads.  So a call queues one kernel and nothing else once the areas
 * are large enough: allocating and clearing a block per call, as
 * before, took 0.88x CUB at 2^24 floats on an H100 (profiles/prims).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cub/device/device_scan.cuh>
#include <cuda/atomic>
#include <type_traits>

#include "cuda_check.h"
#include "scan_order.h"

#define RUN DUO_SCAN_RUN

enum {
    kThreads = 256,          /* 2^8 threads a block                       */
    kThreadLevels = 8,
    kWindowLevels = 5,       /* block sums of levels 0-4 above the tiles  */
    kWindow = 1 << kWindowLevels /* are formed from the tiles' own sums   */
};
static_assert((1 << kThreadLevels) == kThreads, "a block is 2^8 threads");
static_assert(RUN * sizeof(float) % 16 == 0, "a run is whole vectors");
static_assert(RUN == 16, "Staged's rotation spreads runs of 16 over the banks");

/* A tile of T: kPerThread runs per thread, thread i taking runs i,
 * i + kThreads, ...  A float tile is 2^9 runs (32 KB), a double tile 2^8
 * (32 KB too).  What a tile costs is its wait for the sums of the tiles
 * before it, and a larger tile waits as often for more elements: on an
 * H100, tiles of 8192 floats ran 0.81x and 0.85x CUB at 2^24 and 2^28
 * elements, against 0.76x for tiles of 4096 (profiles/prims). */
template <class T> struct Tile {
    enum {
        kPerThread = sizeof(T) == 4 ? 2 : 1,
        kLevels = kThreadLevels + (kPerThread == 2),
        kRuns = kThreads * kPerThread, /* 2^kLevels */
        kElems = kRuns * RUN
    };
    static_assert((1 << kLevels) == kRuns, "a tile is 2^kLevels runs");

    /* Block sum at (level k, index b) within a tile, k = 0..kLevels: the
     * levels one after another in one array (level 0: the run totals). */
    static __device__ __forceinline__ int level_at(int k, int b)
    {
        return 2 * kRuns - (2 * kRuns >> k) + b;
    }
};

/* Block sum at (level k, index b) within a group of kWindow tiles, as
 * Tile<T>::level_at within a tile. */
__device__ __forceinline__ int group_level_at(int k, int b)
{
    return 2 * kWindow - (2 * kWindow >> k) + b;
}

/* The published block sums above the tiles.  Level k has a slot for each
 * complete block of 2^k tiles (full_tiles >> k of them), levels one
 * after another; levels 1-4 stay unused.  A slot is one 64-bit word, the
 * bits of the sum, and reads kEmpty until it is published: a waiting
 * tile needs one load per look, not a flag and then the value.  kEmpty
 * is a NaN that duo never publishes (a sum with those bits is published
 * as the next NaN below it), and all-ones so that one memset of 0xff
 * clears every slot. */
struct Slots {
    unsigned long long *word;
    unsigned long long *next_tile; /* starts at kEmpty: tiles count from 0 */
    size_t full_tiles;
    unsigned long long *clear; /* the other area: these words to kEmpty */
    size_t clear_words;
};

static const unsigned long long kEmpty = ~0ull;

__device__ __forceinline__ size_t slot_of(const Slots &st, int k, size_t b)
{
    size_t at = 0;
    for (int i = 0; i < k; ++i)
        at += st.full_tiles >> i;
    return at + b;
}

__device__ __forceinline__ double wait_slot(const Slots &st, int k, size_t b)
{
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> word(
        st.word[slot_of(st, k, b)]);
    unsigned long long bits;
    while ((bits = word.load(cuda::memory_order_relaxed)) == kEmpty)
        __nanosleep(32);
    return __longlong_as_double((long long)bits);
}

__device__ __forceinline__ void publish_slot(const Slots &st, int k,
                                             size_t b, double v)
{
    unsigned long long bits = (unsigned long long)__double_as_longlong(v);
    if (bits == kEmpty)
        --bits;
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> word(
        st.word[slot_of(st, k, b)]);
    word.store(bits, cuda::memory_order_relaxed);
}

/* The tile is staged in shared memory as 16-byte vectors, kVecs of them
 * per run.  Part i of run r sits in slot r kVecs + (i + rot(r)) mod
 * kVecs: a thread reads its own run, and the rotation puts the eight
 * threads of each 16-byte shared-memory access on different banks (a
 * float run is half a bank row, a double run a whole one). */
template <class T> struct Staged {
    enum {
        kPer = 16 / sizeof(T),  /* elements per vector  */
        kVecs = RUN / kPer,     /* vectors per run      */
        kTileVecs = Tile<T>::kElems / kPer
    };
    typedef typename std::conditional<sizeof(T) == 4, float4, double2>::type
        V;
    static __device__ __forceinline__ int slot(int run, int part)
    {
        return run * kVecs + ((part + run * kVecs / 8) & (kVecs - 1));
    }
};

/* Copy 16 bytes from global to shared memory without a register (sm_80
 * and later; a plain copy before). */
__device__ __forceinline__ void copy16_async(void *smem, const void *gmem)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned dst = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst),
                 "l"(gmem)
                 : "memory");
#else
    *(float4 *)smem = *(const float4 *)gmem;
#endif
}

__device__ __forceinline__ void copy16_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

/* How many of a tile's `count` elements run r holds: RUN, fewer in the
 * tile's last run, none past it. */
__device__ __forceinline__ int run_length(int count, int r)
{
    const int left = count - r * RUN;
    return left < 0 ? 0 : left < RUN ? left : RUN;
}

/* The floating-point sum scan of x into y (T = float or double, summed
 * in double).  The tile waits in shared memory, not in registers, while
 * its carry is fetched: so a thread needs few registers, and many tiles
 * are in flight at once on each multiprocessor, which is what hides the
 * waits for loads and carries.  The whole tile is read before any of it
 * is written, so y may be x.  Each run's local sums are formed twice,
 * for its total and again for its outputs once the carry is known. */
template <class T>
__global__ void __launch_bounds__(kThreads)
    scan_sum_kernel(const T *x, T *y, size_t n, int inclusive, Slots st)
{
    typedef Staged<T> S;
    typedef Tile<T> L;
    typedef typename S::V V;
    __shared__ V stage[S::kTileVecs];
    __shared__ double lev[2 * L::kRuns];
    __shared__ double win[2 * kWindow];
    __shared__ size_t tile_s;
    __shared__ double carry_s;

    if (threadIdx.x == 0)
        tile_s = (size_t)(atomicAdd(st.next_tile, 1ull) + 1ull);
    for (size_t i = (size_t)blockIdx.x * kThreads + threadIdx.x;
         i < st.clear_words; i += (size_t)gridDim.x * kThreads)
        st.clear[i] = kEmpty;
    __syncthreads();
    const size_t tile = tile_s;
    const size_t base = tile * L::kElems;
    const int count =
        n - base < (size_t)L::kElems ? (int)(n - base) : L::kElems;
    /* Whole vectors for a full tile of 16-byte aligned x and y. */
    const int whole = count == L::kElems &&
                      (((uintptr_t)x | (uintptr_t)y) & 15) == 0;

    if (whole) {
        const V *xv = reinterpret_cast<const V *>(x + base);
        for (int g = threadIdx.x; g < S::kTileVecs; g += kThreads)
            copy16_async(&stage[S::slot(g / S::kVecs, g % S::kVecs)],
                         &xv[g]);
        copy16_wait();
    } else {
        T *st_el = reinterpret_cast<T *>(stage);
        for (int e = threadIdx.x; e < count; e += kThreads) {
            const int run = e / RUN, k = e % RUN;
            st_el[S::slot(run, k / S::kPer) * S::kPer + k % S::kPer] =
                x[base + e];
        }
    }
    __syncthreads();

    /* My runs: their totals, and the block sums of levels 1-5 over them
     * within each warp.  S(k, b) = S(k-1, 2b) + S(k-1, 2b+1), held by the
     * lane that ends the block. */
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int p = 0; p < L::kPerThread; ++p) {
        const int r = p * kThreads + threadIdx.x;
        const int len = run_length(count, r);
        double acc = 0.0;
#pragma unroll
        for (int i = 0; i < S::kVecs; ++i) {
            const V v = stage[S::slot(r, i)];
            const T *e = reinterpret_cast<const T *>(&v);
#pragma unroll
            for (int j = 0; j < S::kPer; ++j) {
                const int k = i * S::kPer + j;
                if (k < len)
                    acc = k == 0 ? (double)e[j] : acc + (double)e[j];
            }
        }
        lev[r] = acc;
        double v = acc;
#pragma unroll
        for (int k = 1; k <= 5; ++k) {
            const double left = __shfl_up_sync(0xffffffffu, v, 1 << (k - 1));
            if (((lane + 1) & ((1 << k) - 1)) == 0) {
                v = left + v;
                lev[L::level_at(k, r >> k)] = v;
            }
        }
    }
    __syncthreads();

    if (threadIdx.x < 32) {
        /* Levels 6-8 over the warps' sums, for each kThreads runs; then
         * level 9 over those (a float tile). */
        const int r = threadIdx.x;
        enum { kWarps = kThreads / 32 };
#pragma unroll
        for (int p = 0; p < L::kPerThread; ++p) {
            double w = r < kWarps ? lev[L::level_at(5, p * kWarps + r)] : 0.0;
#pragma unroll
            for (int k = 6; k <= kThreadLevels; ++k) {
                const int q = k - 5;
                const double left =
                    __shfl_up_sync(0xffffffffu, w, 1 << (q - 1));
                if (r < kWarps && ((r + 1) & ((1 << q) - 1)) == 0) {
                    w = left + w;
                    lev[L::level_at(k, (p * kWarps + r) >> q)] = w;
                }
            }
        }
        __syncwarp();
        if (L::kLevels > kThreadLevels && r == 0)
            lev[L::level_at(L::kLevels, 0)] =
                lev[L::level_at(kThreadLevels, 0)] +
                lev[L::level_at(kThreadLevels, 1)];
        __syncwarp();

        /* Publish the tile's own sum at once: it waits for nothing. */
        const double own = lev[L::level_at(L::kLevels, 0)];
        const int full = tile < st.full_tiles;
        if (full && r == 0)
            publish_slot(st, 0, tile, own);

        /* The window: the tiles of this tile's aligned group of 32, up to
         * it.  Lane i takes tile A + i's sum, and the block sums of
         * levels 1-4 over them are formed here by the order's pairs, as
         * within a tile, rather than waited for from the tiles that
         * complete them: those wait in turn, and a chain of waits is what
         * the scan's time goes to.  They go to shared memory (win), like
         * the tile's own levels in lev. */
        const size_t A = tile & ~(size_t)(kWindow - 1);
        const int me = (int)(tile - A);
        double v = r < me ? wait_slot(st, 0, A + r) : r == me ? own : 0.0;
        win[group_level_at(0, r)] = v;
#pragma unroll
        for (int k = 1; k < kWindowLevels; ++k) {
            const double left = __shfl_up_sync(0xffffffffu, v, 1 << (k - 1));
            if (((r + 1) & ((1 << k) - 1)) == 0) {
                v = left + v;
                win[group_level_at(k, r >> k)] = v;
            }
        }
        __syncwarp();

        /* A complete tile whose index ends in `up` >= 5 one bits completes
         * the block of 2^up tiles ending with it, and publishes its sum:
         * the left siblings' sums (levels 5 and up from older tiles'
         * slots, lane k fetching level k) added, from level 0, before the
         * tile's own. */
        int up = 0;
        while ((tile >> up) & 1)
            ++up;
        if (full && up >= kWindowLevels) {
            const double high = r >= kWindowLevels && r < up
                                    ? wait_slot(st, r, (tile >> r) - 1)
                                    : 0.0;
            double sum = own;
            for (int k = 0; k < up; ++k) {
                const double left = __shfl_sync(0xffffffffu, high, k);
                sum = (k < kWindowLevels
                           ? win[group_level_at(k, (me >> k) - 1)]
                           : left) +
                      sum;
            }
            if (r == 0)
                publish_slot(st, up, tile >> up, sum);
        }

        /* The newest block above the group: that of the lowest digit
         * kf >= 5 of the tile's index, which ends where the group starts.
         * It is formed here as its completer forms it, rather than waited
         * for from that tile's slot: the previous group's own sums give its
         * last block of level 5 (pairs, as in the window), and the left
         * siblings of levels 5 to kf - 1 (older tiles' slots, lane j
         * fetching level j) are added before it, from level 5.  Waiting
         * for the completer's slot added one more publish-and-look between
         * a tile and the sums before it: 0.85x CUB at 2^28 floats on an
         * H100, against 0.95x this way (profiles/prims). */
        const size_t G = tile >> kWindowLevels;
        const int kf = G ? kWindowLevels + __ffsll((long long)G) - 1 : -1;
        double fresh = 0.0;
        if (G) {
            double p = wait_slot(st, 0, A - kWindow + r);
#pragma unroll
            for (int k = 1; k <= kWindowLevels; ++k) {
                const double left =
                    __shfl_up_sync(0xffffffffu, p, 1 << (k - 1));
                if (((r + 1) & ((1 << k) - 1)) == 0)
                    p = left + p;
            }
            fresh = __shfl_sync(0xffffffffu, p, 31);
        }

        /* The tile's carry: the block of each digit k of its index (tile
         * counts stay below 2^31, host-checked), from the window below
         * level 5, the newest block at kf, and slots above (lane k
         * fetching level k), added from the highest digit.  A lane below
         * kf fetches its level's left sibling instead. */
        const double high =
            r >= kWindowLevels && r != kf && ((tile >> r) & 1)
                ? wait_slot(st, r, (tile >> r) - 1)
            : r >= kWindowLevels && r < kf ? wait_slot(st, r, (A >> r) - 2)
                                           : 0.0;
        for (int j = kWindowLevels; j < kf; ++j)
            fresh = __shfl_sync(0xffffffffu, high, j) + fresh;
        double carry = 0.0;
        int none = 1;
#pragma unroll
        for (int k = 31; k >= 0; --k) {
            const double h = __shfl_sync(0xffffffffu, high, k);
            if ((tile >> k) & 1) {
                const double b =
                    k < kWindowLevels ? win[group_level_at(k, (me >> k) - 1)]
                    : k == kf         ? fresh
                                      : h;
                carry = none ? b : carry + b;
                none = 0;
            }
        }
        if (r == 0)
            carry_s = carry;
    }
    __syncthreads();

#pragma unroll
    for (int p = 0; p < L::kPerThread; ++p) {
        /* Run r's carry: the tile's, then the block sums of r's digits
         * within the tile, highest first.  Only run 0 of tile 0 has
         * none. */
        const int r = p * kThreads + threadIdx.x;
        const int len = run_length(count, r);
        double c = carry_s;
        int none = tile == 0;
#pragma unroll
        for (int k = L::kLevels - 1; k >= 0; --k)
            if ((r >> k) & 1) {
                const double s = lev[L::level_at(k, (r >> k) - 1)];
                c = none ? s : c + s;
                none = 0;
            }

        /* Run r's outputs, over its inputs in the stage. */
        double loc = 0.0, before = 0.0;
#pragma unroll
        for (int i = 0; i < S::kVecs; ++i) {
            V v = stage[S::slot(r, i)];
            T *e = reinterpret_cast<T *>(&v);
#pragma unroll
            for (int j = 0; j < S::kPer; ++j) {
                const int k = i * S::kPer + j;
                if (k < len) {
                    before = loc;
                    loc = k == 0 ? (double)e[j] : loc + (double)e[j];
                    double out;
                    if (inclusive)
                        out = none ? loc : c + loc;
                    else if (k == 0)
                        out = none ? 0.0 : c;
                    else
                        out = none ? before : c + before;
                    e[j] = (T)out;
                }
            }
            stage[S::slot(r, i)] = v;
        }
    }
    __syncthreads();

    if (whole) {
        V *yv = reinterpret_cast<V *>(y + base);
        for (int g = threadIdx.x; g < S::kTileVecs; g += kThreads)
            yv[g] = stage[S::slot(g / S::kVecs, g % S::kVecs)];
    } else {
        const T *st_el = reinterpret_cast<const T *>(stage);
        for (int e = threadIdx.x; e < count; e += kThreads) {
            const int run = e / RUN, k = e % RUN;
            y[base + e] =
                st_el[S::slot(run, k / S::kPer) * S::kPer + k % S::kPer];
        }
    }
}

/* Make area `a` of k hold `words`: one too small goes back to the pool
 * (stream-ordered) and a larger one, set to kEmpty, takes its place. */
static duo_status keep_grow(duo_cuda_scan_keep *k, int a, size_t words,
                            cudaStream_t s, const char *where)
{
    if (k->words[a] >= words)
        return DUO_SUCCESS;
    if (k->area[a] != NULL) {
        const cudaError_t freed = cudaFreeAsync(k->area[a], s);
        k->area[a] = NULL;
        k->words[a] = 0;
        DUO_CUDA_TRY(freed, where);
    }
    size_t cap = 64; /* grow by doubling: a sweep of sizes regrows rarely */
    while (cap < words)
        cap *= 2;
    void *p = NULL;
    duo_status status =
        duo_cuda_prim_alloc(&p, cap * sizeof(unsigned long long), s, where);
    if (status != DUO_SUCCESS)
        return status;
    const cudaError_t err =
        cudaMemsetAsync(p, 0xff, cap * sizeof(unsigned long long), s);
    if (err != cudaSuccess) {
        (void)cudaFreeAsync(p, s); /* already failing */
        DUO_CUDA_TRY(err, where);
    }
    k->area[a] = (unsigned long long *)p;
    k->words[a] = cap;
    k->dirty[a] = 0;
    return DUO_SUCCESS;
}

duo_status duo_cuda_scan_keep_free(duo_cuda_scan_keep *k,
                                   cudaStream_t stream, const char *where)
{
    cudaError_t err = cudaSuccess;
    for (int a = 0; a < 2; ++a)
        if (k->area[a] != NULL) {
            const cudaError_t freed = cudaFreeAsync(k->area[a], stream);
            if (err == cudaSuccess)
                err = freed;
        }
    memset(k, 0, sizeof *k);
    DUO_CUDA_TRY(err, where);
    return DUO_SUCCESS;
}

duo_status duo_cuda_scan_release(void)
{
    const duo_status status = duo_cuda_scan_keep_free(
        duo_cuda_stream_scan_keep(NULL), 0, "duo_finalize");
    if (status != DUO_SUCCESS)
        return status;
    DUO_CUDA_TRY(cudaStreamSynchronize(0), "duo_finalize");
    return DUO_SUCCESS;
}

template <class T>
static duo_status scan_sum(const T *x, T *y, size_t n, int inclusive,
                           duo_stream stream, cudaStream_t s)
{
    const char *where = "duo_scan";
    const size_t kTile = Tile<T>::kElems;
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
    /* The tile counter, then the slots. */
    const size_t words = 1 + slots;
    duo_cuda_scan_keep *k = duo_cuda_stream_scan_keep(stream);
    const int use = k->turn, other = 1 - use;
    duo_status status = keep_grow(k, use, words, s, where);
    if (status != DUO_SUCCESS)
        return status;
    st.next_tile = k->area[use];
    st.word = k->area[use] + 1;
    st.clear = k->area[other];
    st.clear_words = k->dirty[other];
    scan_sum_kernel<T><<<(unsigned)tiles, kThreads, 0, s>>>(x, y, n,
                                                            inclusive, st);
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        /* Which words the failed launch left set is unknown. */
        (void)duo_cuda_scan_keep_free(k, s, where); /* already failing */
        DUO_CUDA_TRY(err, where);
    }
    k->dirty[use] = words;
    k->dirty[other] = 0;
    k->turn = other;
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
            return scan_sum((const float *)x, (float *)y, n, inc, stream,
                            s);
        return cub_scan<float, float>(op, x, y, n, inc, -INFINITY, INFINITY,
                                      s);
    case DUO_F64:
        if (op == DUO_SUM)
            return scan_sum((const double *)x, (double *)y, n, inc, stream,
                            s);
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
