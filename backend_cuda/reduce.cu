/*
 * reduce.cu (CUDA) - duo_reduce, duo_reduce_arg, duo_reduce_async and
 * duo_dot_async in the order fixed by <duo/reduce_order.h> (operations
 * and fold trees from <duo/reduce_cuda.h>), in one launch:
 *
 *  - Block b takes chunks b, b + G, b + 2G, ... (16-byte loads, several
 *    in flight per thread, a shuffle tree per chunk).  The grid G is the
 *    number of chunks up to FINAL_THREADS (1024) and exactly 1024 beyond,
 *    so chunk c always lands in block c % 1024: the block's running sum
 *    of its chunks, in order, is step 5's fold thread c % 1024 -- the
 *    partials never need a table as long as n.
 *  - Each block writes that value to its slot and takes a ticket; the
 *    last block to finish folds the 1024 slots (step 5's tree) and writes
 *    the result: to device memory (the async forms) or, for duo_reduce,
 *    straight into mapped pinned host memory, so the host only waits --
 *    no copy is queued after the kernel.  n of up to four chunks (4096
 *    f32) goes instead to reduce_few_kernel, one block that loads every
 *    chunk at once and folds them side by side: no slot, fence or
 *    ticket.  (dot_kernel keeps the ticket: skipping it there made
 *    duo-cg's iterations 6% slower on an H100.)
 *
 * The atomic only decides which block folds; the order of every
 * operation depends on n alone, so the bits match the CPU backends'.
 * One launch per reduction matters at small n, where the launch is the
 * cost, and inside solver loops.
 */
#include <stdint.h>
#include <string.h>

#include "cuda_check.h"
#include "reduce_order.h"

using namespace duo_order;

/* Where the result goes: a value, or an (index, value) pair written as
 * two fields, so no padding byte is ever copied to the host. */
template <class Acc> struct ValueOut {
    Acc *p;
    __device__ void write(Acc v) const { *p = v; }
};
template <class T> struct ArgOut {
    unsigned long long *index;
    T *value;
    __device__ void write(ArgPair<T> v) const
    {
        *index = v.i;
        *value = v.v;
    }
};

/* Chunks that a grid of one block takes (n up to 4096 f32 or 2048 f64
 * elements): as many as let one warp hold a lane per (chunk, warp of
 * the block) in the fold across the warps below. */
static constexpr int FEW_CHUNKS =
    DUO_REDUCE_WARP / (DUO_REDUCE_THREADS / DUO_REDUCE_WARP);

/* Steps 2 and 3 for a chunk of one step: this thread's VEC lanes, from
 * `first` on in x[0..n) (raw holds them where `whole`), as one value. */
template <class Op, class In>
__device__ __forceinline__ typename Op::acc
thread_lanes(const In *__restrict__ x, size_t n, size_t first, bool whole,
             uint4 raw)
{
    typedef typename Op::acc Acc;
    constexpr int VEC = DUO_REDUCE_VEC(sizeof(In));
    Acc v[VEC];
#pragma unroll
    for (int k = 0; k < VEC; ++k)
        v[k] = Op::identity();
    if (whole)
        combine_vector<Op, In>(v, raw, first);
    else
#pragma unroll
        for (int k = 0; k < VEC; ++k)
            if (first + k < n)
                v[k] = Op::apply(v[k], Op::lift(x[first + k], first + k));
    return pair_tree<Op, VEC>(v);
}

/* Step 4 for FEW_CHUNKS chunks side by side (part[c]: this thread's value
 * of chunk c): within each warp, then across the warps, where lane
 * 8c + w of warp 0 holds chunk c's warp w.  Returns, in lane 8c of warp
 * 0, chunk c's partial.  Every thread of the block calls it. */
template <class Op>
__device__ __forceinline__ typename Op::acc
fold_side_by_side(typename Op::acc (&part)[FEW_CHUNKS], typename Op::acc *sums)
{
    typedef typename Op::acc Acc;
    constexpr int WARPS = DUO_REDUCE_THREADS / DUO_REDUCE_WARP;
    const int lane = threadIdx.x % DUO_REDUCE_WARP;
    const int warp = threadIdx.x / DUO_REDUCE_WARP;
    for (int h = DUO_REDUCE_WARP / 2; h > 0; h /= 2)
#pragma unroll
        for (int c = 0; c < FEW_CHUNKS; ++c)
            part[c] = Op::apply(part[c], shfl_down(part[c], h));
    if (lane == 0)
#pragma unroll
        for (int c = 0; c < FEW_CHUNKS; ++c)
            sums[c * WARPS + warp] = part[c];
    __syncthreads();
    Acc v = Op::identity();
    if (warp == 0) {
        v = sums[lane];
        for (int h = WARPS / 2; h > 0; h /= 2)
            v = Op::apply(v, shfl_down(v, h));
    }
    return v;
}

/* Steps 2 to 5 for n of at most FEW_CHUNKS chunks (of one step: STEPS is
 * 1 at such n), by a grid of one block.  Each thread issues its load of
 * every chunk before combining any, and the chunks are folded side by
 * side: a block per chunk would add a slot, a fence and a ticket, and
 * one block taking the chunks in turn would wait on each load and fold
 * in turn.  A kernel of its own: inside reduce_kernel, this code took
 * that kernel from 32 registers to 48 and its 2^28-element sums from
 * 356 to 381 us on an H100 (fewer blocks resident per SM). */
template <class Op, class In, class Out>
__global__ void __launch_bounds__(DUO_REDUCE_THREADS)
    reduce_few_kernel(const In *__restrict__ x, size_t n, unsigned chunks,
                      bool aligned, Out out)
{
    typedef typename Op::acc Acc;
    constexpr int VEC = DUO_REDUCE_VEC(sizeof(In));
    constexpr int LANES = DUO_REDUCE_LANES(sizeof(In));
    constexpr int WARPS = DUO_REDUCE_THREADS / DUO_REDUCE_WARP;
    __shared__ Acc sums[FEW_CHUNKS * WARPS]; /* [chunk][warp] */
    const int lane = threadIdx.x % DUO_REDUCE_WARP;
    const int warp = threadIdx.x / DUO_REDUCE_WARP;
    duo_cuda_wait_previous_(); /* launched early: see kernel_cuda.h */

    uint4 raw[FEW_CHUNKS];
    bool whole[FEW_CHUNKS];
#pragma unroll
    for (int c = 0; c < FEW_CHUNKS; ++c) {
        const size_t first = (size_t)c * LANES + (size_t)threadIdx.x * VEC;
        whole[c] = aligned && first + VEC <= n;
        if (whole[c])
            raw[c] = __ldg(reinterpret_cast<const uint4 *>(x + first));
    }
    Acc part[FEW_CHUNKS];
#pragma unroll
    for (int c = 0; c < FEW_CHUNKS; ++c)
        part[c] = thread_lanes<Op, In>(x, n,
                                       (size_t)c * LANES +
                                           (size_t)threadIdx.x * VEC,
                                       whole[c], raw[c]);
    Acc v = fold_side_by_side<Op>(part, sums);
    if (warp != 0)
        return;
    /* Step 5: its thread t starts from the identity and takes partial t
     * (in lane 8t now); its warps other than 0 fold identities only. */
    const Acc partial = shfl_from(v, (lane % FEW_CHUNKS) * WARPS);
    v = (unsigned)lane < chunks ? Op::apply(Op::identity(), partial)
                                : Op::identity();
    for (int h = DUO_REDUCE_WARP / 2; h > 0; h /= 2)
        v = Op::apply(v, shfl_down(v, h));
    v = lane == 0 ? v : Op::identity();
    for (int h = DUO_REDUCE_WARP / 2; h > 0; h /= 2)
        v = Op::apply(v, shfl_down(v, h));
    if (lane == 0)
        out.write(v);
}

/* Steps 2 to 4 for block `block` of a grid of `grid`: chunks block,
 * block + grid, ... of x[0..n), each folded and combined in order into
 * step 5's value of thread `block` (valid in thread 0).  reduce_kernel's
 * blocks and reduce_segments_kernel's run it. */
template <class Op, class In>
__device__ __forceinline__ typename Op::acc
block_slot(const In *__restrict__ x, size_t n, size_t chunks, unsigned steps,
           bool aligned, unsigned block, unsigned grid)
{
    typedef typename Op::acc Acc;
    constexpr int VEC = DUO_REDUCE_VEC(sizeof(In));
    constexpr int LANES = DUO_REDUCE_LANES(sizeof(In));
    constexpr unsigned BATCH = 8; /* 16-byte loads in flight per thread */
    const size_t chunk = (size_t)steps * LANES;

    Acc slot = Op::identity(); /* step 5's thread `block`; thread 0 */
    for (size_t c = block; c < chunks; c += grid) {
        const size_t first = c * chunk + (size_t)threadIdx.x * VEC;
        const uint4 *p = reinterpret_cast<const uint4 *>(x + first);
        Acc lane[VEC];
#pragma unroll
        for (int k = 0; k < VEC; ++k)
            lane[k] = Op::identity();
        if (aligned && n - c * chunk >= chunk && steps % BATCH == 0) {
            for (unsigned s0 = 0; s0 < steps; s0 += BATCH) {
                uint4 raw[BATCH];
#pragma unroll
                for (unsigned b = 0; b < BATCH; ++b)
                    raw[b] = __ldg(p + (size_t)(s0 + b) * DUO_REDUCE_THREADS);
#pragma unroll
                for (unsigned b = 0; b < BATCH; ++b)
                    combine_vector<Op, In>(lane, raw[b],
                                           first + (size_t)(s0 + b) * LANES);
            }
        } else if (aligned && n - c * chunk >= chunk) {
            for (unsigned s = 0; s < steps; ++s)
                combine_vector<Op, In>(lane,
                                       __ldg(p + (size_t)s * DUO_REDUCE_THREADS),
                                       first + (size_t)s * LANES);
        } else {
            for (unsigned s = 0; s < steps; ++s)
#pragma unroll
                for (int k = 0; k < VEC; ++k) {
                    const size_t i = first + (size_t)s * LANES + k;
                    if (i < n)
                        lane[k] = Op::apply(lane[k], Op::lift(x[i], i));
                }
        }
        const Acc mine = block_fold<Op, DUO_REDUCE_THREADS>(
            pair_tree<Op, VEC>(lane));
        if (threadIdx.x == 0)
            slot = Op::apply(slot, mine);
    }
    return slot;
}

template <class Op, class In, class Out>
__global__ void __launch_bounds__(DUO_REDUCE_THREADS)
    reduce_kernel(const In *__restrict__ x, size_t n, size_t chunks,
                  unsigned steps, bool aligned,
                  typename Op::acc *__restrict__ slots, unsigned *counter,
                  Out out)
{
    typedef typename Op::acc Acc;
    duo_cuda_wait_previous_(); /* launched early: see kernel_cuda.h */
    const Acc slot = block_slot<Op, In>(x, n, chunks, steps, aligned,
                                        blockIdx.x, gridDim.x);
    if (threadIdx.x == 0)
        slots[blockIdx.x] = slot;
    if (finished_last(counter)) {
        const Acc v = final_fold<Op>(slots, gridDim.x);
        if (threadIdx.x == 0) {
            out.write(v);
            *counter = 0; /* ready for the next reduction on this scratch */
        }
    }
}

/* Blocks for `chunks` chunks: see the header comment. */
static unsigned reduce_grid(size_t chunks)
{
    if (chunks == 0)
        return 1; /* the empty sum still writes its identity */
    return chunks < DUO_REDUCE_FINAL_THREADS ? (unsigned)chunks
                                             : DUO_REDUCE_FINAL_THREADS;
}

/* Queue the reduction of x[0..n) on `stream`, using `scratch`. */
template <class Op, class In, class Out>
static duo_status queue_reduce(const char *where, const In *x, size_t n,
                               Out out, void *scratch, cudaStream_t stream)
{
    typedef typename Op::acc Acc;
    const size_t steps = duo_reduce_steps(n, DUO_REDUCE_LANES(sizeof(In)));
    const size_t chunk = steps * DUO_REDUCE_LANES(sizeof(In));
    const size_t chunks = (n + chunk - 1) / chunk;
    const bool aligned = (uintptr_t)x % 16 == 0;
    char *base = (char *)scratch;
    if (chunks <= FEW_CHUNKS)
        duo_cuda_launch_(reduce_few_kernel<Op, In, Out>, 1,
                         DUO_REDUCE_THREADS, 0, stream, x, n,
                         (unsigned)chunks, aligned, out);
    else
        duo_cuda_launch_(reduce_kernel<Op, In, Out>, reduce_grid(chunks),
                         DUO_REDUCE_THREADS, 0, stream, x, n, chunks,
                         (unsigned)steps, aligned,
                         (Acc *)(base + DUO_CUDA_SCRATCH_SLOTS),
                         (unsigned *)(base + DUO_CUDA_SCRATCH_COUNTER), out);
    DUO_CUDA_TRY(cudaGetLastError(), where);
    return DUO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Values: one entry point for host and device results                 */

/* Queue op over x on `stream` into the device variable `out`.
 * stream_handle only picks the scratch. */
template <class Op, class In>
static duo_status queue_value(const char *where, const void *x, size_t n,
                              void *out, duo_stream stream_handle,
                              cudaStream_t stream)
{
    typedef typename Op::acc Acc;
    ValueOut<Acc> o = {(Acc *)out};
    return queue_reduce<Op, In>(where, (const In *)x, n, o,
                                duo_cuda_reduce_scratch(stream_handle),
                                stream);
}

template <class T>
static duo_status queue_extreme(const char *where, duo_reduce_op op,
                                const void *x, size_t n, void *out,
                                duo_stream handle, cudaStream_t s)
{
    if (op == DUO_MIN)
        return queue_value<ExtremeOp<T, false>, T>(where, x, n, out, handle,
                                                   s);
    return queue_value<ExtremeOp<T, true>, T>(where, x, n, out, handle, s);
}

/* The kernel instance for (op, type); signed integer sums wrap modulo
 * 2^64, so they accumulate unsigned and store the same bits. */
static duo_status queue_by_type(const char *where, duo_reduce_op op,
                                duo_dtype type, const void *x, size_t n,
                                void *out, duo_stream handle,
                                cudaStream_t s)
{
    typedef unsigned long long u64;
    if (op == DUO_SUM) {
        switch (type) {
        case DUO_F32:
            return queue_value<SumOp<double>, float>(where, x, n, out,
                                                     handle, s);
        case DUO_F64:
            return queue_value<SumOp<double>, double>(where, x, n, out,
                                                      handle, s);
        case DUO_I32:
            return queue_value<SumOp<u64>, int32_t>(where, x, n, out,
                                                    handle, s);
        case DUO_I64:
            return queue_value<SumOp<u64>, long long>(where, x, n, out,
                                                      handle, s);
        case DUO_U64:
            return queue_value<SumOp<u64>, u64>(where, x, n, out, handle, s);
        }
    } else {
        switch (type) {
        case DUO_F32: return queue_extreme<float>(where, op, x, n, out,
                                                  handle, s);
        case DUO_F64: return queue_extreme<double>(where, op, x, n, out,
                                                   handle, s);
        case DUO_I32: return queue_extreme<int>(where, op, x, n, out,
                                                handle, s);
        case DUO_I64: return queue_extreme<long long>(where, op, x, n, out,
                                                      handle, s);
        case DUO_U64: return queue_extreme<u64>(where, op, x, n, out,
                                                handle, s);
        }
    }
    return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                    "no reduction for op %d on type %d", (int)op, (int)type);
}

/* Bytes of the result of (op, type), as duo.h lists them. */
static size_t result_bytes(duo_reduce_op op, duo_dtype type)
{
    return op == DUO_SUM ? 8 : duo_dtype_size(type);
}

duo_status duo_be_reduce(duo_reduce_op op, duo_dtype type, const void *x,
                         size_t n, void *result)
{
    duo_cuda_note_launch(NULL, "duo_reduce", NULL, 0);
    duo_status status = queue_by_type("duo_reduce", op, type, x, n,
                                      duo_cuda_host_result_slot(), NULL, 0);
    if (status != DUO_SUCCESS)
        return status;
    return duo_cuda_wait_host_result(result, result_bytes(op, type),
                                     "duo_reduce", __FILE__, __LINE__);
}

duo_status duo_be_reduce_async(duo_reduce_op op, duo_dtype type,
                               const void *x, size_t n, void *result,
                               duo_stream stream)
{
    duo_cuda_note_launch(stream, "duo_reduce_async", NULL, 0);
    return queue_by_type("duo_reduce_async", op, type, x, n, result, stream,
                         duo_cuda_stream(stream));
}

/* ------------------------------------------------------------------ */
/* Index reductions: host results only                                 */

template <class T, bool Max>
static duo_status arg(const void *x, size_t n, size_t *index, void *value)
{
    const char *where = "duo_reduce_arg";
    char *res = (char *)duo_cuda_host_result_slot();
    ArgOut<T> out = {(unsigned long long *)res, (T *)(res + 8)};
    duo_status status = queue_reduce<ArgOp<T, Max>, T>(
        where, (const T *)x, n, out, duo_cuda_reduce_scratch(NULL), 0);
    unsigned char got[16];
    if (status == DUO_SUCCESS)
        status = duo_cuda_wait_host_result(got, 8 + sizeof(T), where,
                                           __FILE__, __LINE__);
    if (status != DUO_SUCCESS)
        return status;
    unsigned long long i;
    memcpy(&i, got, 8);
    *index = (size_t)i;
    if (value != NULL)
        memcpy(value, got + 8, sizeof(T));
    return DUO_SUCCESS;
}

template <class T>
static duo_status arg_by_op(duo_reduce_op op, const void *x, size_t n,
                            size_t *index, void *value)
{
    return op == DUO_MIN ? arg<T, false>(x, n, index, value)
                         : arg<T, true>(x, n, index, value);
}

duo_status duo_be_reduce_arg(duo_reduce_op op, duo_dtype type,
                             const void *x, size_t n, size_t *index,
                             void *value)
{
    duo_cuda_note_launch(NULL, "duo_reduce_arg", NULL, 0);
    switch (type) {
    case DUO_F32: return arg_by_op<float>(op, x, n, index, value);
    case DUO_F64: return arg_by_op<double>(op, x, n, index, value);
    case DUO_I32: return arg_by_op<int>(op, x, n, index, value);
    case DUO_I64: return arg_by_op<long long>(op, x, n, index, value);
    case DUO_U64: return arg_by_op<unsigned long long>(op, x, n, index, value);
    }
    return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_reduce_arg",
                    "no index reduction for op %d on type %d", (int)op,
                    (int)type);
}

/* ------------------------------------------------------------------ */
/* Segments: many reductions of one length, in two launches            */

/* Where duo_be_reduce_segments' results go: 64-bit words, the value in
 * the low bytes. */
template <class Acc> struct ValueWords {
    unsigned long long *words;
    __device__ void write(size_t s, Acc v) const
    {
        unsigned long long w = 0;
        memcpy(&w, &v, sizeof v);
        words[s] = w;
    }
};

/* Block b of segment s (blockIdx.x = s grid + b): what block b of
 * reduce_kernel's grid of `grid` blocks does on that segment alone, its
 * slot stored at slots[blockIdx.x]. */
template <class Op, class In>
__global__ void __launch_bounds__(DUO_REDUCE_THREADS)
    reduce_segments_kernel(const In *__restrict__ x, size_t len,
                           size_t chunks, unsigned steps, bool aligned,
                           unsigned grid, typename Op::acc *__restrict__ slots)
{
    duo_cuda_wait_previous_(); /* launched early: see kernel_cuda.h */
    const size_t s = blockIdx.x / grid;
    const typename Op::acc slot = block_slot<Op, In>(
        x + s * len, len, chunks, steps, aligned, blockIdx.x % grid, grid);
    if (threadIdx.x == 0)
        slots[blockIdx.x] = slot;
}

/* The same slots where a segment's chunks are of one step and number at
 * most FINAL_THREADS, so that each block of reduce_segments_kernel takes
 * one chunk (the distributed reductions' 65,536-element chunks are such):
 * there a block per chunk waits on its one load per thread, a fold and a
 * slot for 4 KB.  Here block b takes
 * chunks SEGMENT_ROUNDS * FEW_CHUNKS * b, ... of all the segments' chunks
 * counted in a row (`per_segment` to a segment, `total` in all), issues
 * every load before combining any, and folds them side by side, as
 * reduce_few_kernel does: the same tree, so the same slots. */
static constexpr int SEGMENT_ROUNDS = 2;

template <class Op, class In>
__global__ void __launch_bounds__(DUO_REDUCE_THREADS)
    reduce_segments_few_kernel(const In *__restrict__ x, size_t len,
                               unsigned per_segment, size_t total,
                               bool aligned,
                               typename Op::acc *__restrict__ slots)
{
    typedef typename Op::acc Acc;
    constexpr int VEC = DUO_REDUCE_VEC(sizeof(In));
    constexpr int LANES = DUO_REDUCE_LANES(sizeof(In));
    constexpr int WARPS = DUO_REDUCE_THREADS / DUO_REDUCE_WARP;
    constexpr int TAKES = SEGMENT_ROUNDS * FEW_CHUNKS;
    __shared__ Acc sums[FEW_CHUNKS * WARPS]; /* [chunk][warp] */
    const int lane = threadIdx.x % DUO_REDUCE_WARP;
    duo_cuda_wait_previous_(); /* launched early: see kernel_cuda.h */

    const size_t g0 = (size_t)blockIdx.x * TAKES;
    uint4 raw[TAKES];
    bool whole[TAKES];
#pragma unroll
    for (int c = 0; c < TAKES; ++c) {
        const size_t g = g0 + c;
        const size_t first = (size_t)(g % per_segment) * LANES +
                             (size_t)threadIdx.x * VEC;
        whole[c] = aligned && g < total && first + VEC <= len;
        if (whole[c])
            raw[c] = __ldg(reinterpret_cast<const uint4 *>(
                x + g / per_segment * len + first));
    }
#pragma unroll
    for (int r = 0; r < SEGMENT_ROUNDS; ++r) {
        Acc part[FEW_CHUNKS];
#pragma unroll
        for (int c = 0; c < FEW_CHUNKS; ++c) {
            const size_t g = g0 + r * FEW_CHUNKS + c;
            const size_t first = (size_t)(g % per_segment) * LANES +
                                 (size_t)threadIdx.x * VEC;
            part[c] = g < total
                          ? thread_lanes<Op, In>(x + g / per_segment * len,
                                                 len, first,
                                                 whole[r * FEW_CHUNKS + c],
                                                 raw[r * FEW_CHUNKS + c])
                          : Op::identity();
        }
        const Acc v = fold_side_by_side<Op>(part, sums);
        const size_t g = g0 + r * FEW_CHUNKS + lane / WARPS;
        if (threadIdx.x < DUO_REDUCE_WARP && lane % WARPS == 0 && g < total)
            slots[g] = Op::apply(Op::identity(), v); /* block_slot's slot */
        __syncthreads(); /* sums[] is refilled by the next round */
    }
}

/* Step 5 of segment blockIdx.x over its `grid` slots: what the last block
 * of reduce_kernel does. */
template <class Op, class Out>
__global__ void __launch_bounds__(DUO_REDUCE_THREADS)
    reduce_segments_fold_kernel(const typename Op::acc *slots, unsigned grid,
                                Out out)
{
    duo_cuda_wait_previous_(); /* launched early: see kernel_cuda.h */
    const typename Op::acc v =
        final_fold<Op>(slots + (size_t)blockIdx.x * grid, grid);
    if (threadIdx.x == 0)
        out.write(blockIdx.x, v);
}

/* Blocks of reduce_segments_kernel for segments of `len` elements of
 * `size` bytes, and how many segments one launch takes (a grid has at
 * most 2^31 - 1 blocks). */
static unsigned segment_grid(size_t len, size_t size)
{
    const size_t lanes = DUO_REDUCE_LANES(size);
    const size_t chunk = duo_reduce_steps(len, lanes) * lanes;
    return reduce_grid((len + chunk - 1) / chunk);
}
static size_t segments_per_launch(unsigned grid)
{
    return (size_t)0x7fffffff / grid;
}

template <class Op, class In, class Out>
static duo_status queue_segments(const void *x, size_t len, size_t count,
                                 uint64_t *words, void *scratch,
                                 cudaStream_t stream)
{
    typedef typename Op::acc Acc;
    const size_t steps = duo_reduce_steps(len, DUO_REDUCE_LANES(sizeof(In)));
    const size_t chunk = steps * DUO_REDUCE_LANES(sizeof(In));
    const unsigned grid = segment_grid(len, sizeof(In));
    const size_t per_launch = segments_per_launch(grid);
    /* Every segment starts on 16 bytes, or the loads are plain. */
    const bool aligned = (uintptr_t)x % 16 == 0 &&
                         (count == 1 || len * sizeof(In) % 16 == 0);
    const size_t chunks = (len + chunk - 1) / chunk;
    /* One chunk to a slot: grid == chunks. */
    const bool few = steps == 1 && chunks >= 1 &&
                     chunks <= DUO_REDUCE_FINAL_THREADS;
    const size_t takes = SEGMENT_ROUNDS * FEW_CHUNKS;
    for (size_t s0 = 0; s0 < count; s0 += per_launch) {
        const size_t k = count - s0 < per_launch ? count - s0 : per_launch;
        Out out = {(unsigned long long *)words + s0};
        if (few)
            duo_cuda_launch_(reduce_segments_few_kernel<Op, In>,
                             (unsigned)((k * grid + takes - 1) / takes),
                             DUO_REDUCE_THREADS, 0, stream,
                             (const In *)x + s0 * len, len, grid, k * grid,
                             aligned, (Acc *)scratch);
        else
            duo_cuda_launch_(reduce_segments_kernel<Op, In>,
                             (unsigned)(k * grid), DUO_REDUCE_THREADS, 0,
                             stream, (const In *)x + s0 * len, len, chunks,
                             (unsigned)steps, aligned, grid, (Acc *)scratch);
        duo_cuda_launch_(reduce_segments_fold_kernel<Op, Out>, (unsigned)k,
                         DUO_REDUCE_THREADS, 0, stream, (const Acc *)scratch,
                         grid, out);
        DUO_CUDA_TRY(cudaGetLastError(), "duo_reduce_segments");
    }
    return DUO_SUCCESS;
}

template <class T>
static duo_status segments_extreme(duo_reduce_op op, const void *x,
                                   size_t len, size_t count, uint64_t *words,
                                   void *scratch, cudaStream_t s)
{
    return op == DUO_MIN
               ? queue_segments<ExtremeOp<T, false>, T, ValueWords<T>>(
                     x, len, count, words, scratch, s)
               : queue_segments<ExtremeOp<T, true>, T, ValueWords<T>>(
                     x, len, count, words, scratch, s);
}

/* The kernel instances of queue_by_type and arg_by_op. */
duo_status duo_be_reduce_segments(duo_reduce_op op, duo_dtype type,
                                  const void *x, size_t len, size_t count,
                                  uint64_t *words, void *scratch,
                                  duo_stream stream)
{
    typedef unsigned long long u64;
    const cudaStream_t s = duo_cuda_stream(stream);
    if (op == DUO_SUM) {
        switch (type) {
        case DUO_F32:
            return queue_segments<SumOp<double>, float, ValueWords<double>>(
                x, len, count, words, scratch, s);
        case DUO_F64:
            return queue_segments<SumOp<double>, double, ValueWords<double>>(
                x, len, count, words, scratch, s);
        case DUO_I32:
            return queue_segments<SumOp<u64>, int32_t, ValueWords<u64>>(
                x, len, count, words, scratch, s);
        case DUO_I64:
            return queue_segments<SumOp<u64>, long long, ValueWords<u64>>(
                x, len, count, words, scratch, s);
        case DUO_U64:
            return queue_segments<SumOp<u64>, u64, ValueWords<u64>>(
                x, len, count, words, scratch, s);
        }
    } else if (op == DUO_MIN || op == DUO_MAX) {
        switch (type) {
        case DUO_F32: return segments_extreme<float>(op, x, len, count,
                                                     words, scratch, s);
        case DUO_F64: return segments_extreme<double>(op, x, len, count,
                                                      words, scratch, s);
        case DUO_I32: return segments_extreme<int>(op, x, len, count, words,
                                                   scratch, s);
        case DUO_I64: return segments_extreme<long long>(op, x, len, count,
                                                         words, scratch, s);
        case DUO_U64: return segments_extreme<u64>(op, x, len, count, words,
                                                   scratch, s);
        }
    }
    return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_reduce_segments",
                    "no reduction for op %d on type %d", (int)op, (int)type);
}

/* The slots of one launch's blocks, 8 bytes each (the largest
 * accumulator: a double or a 64-bit integer). */
size_t duo_be_reduce_segments_scratch(duo_dtype type, size_t len,
                                      size_t count)
{
    const unsigned grid = segment_grid(len, duo_dtype_size(type));
    const size_t per_launch = segments_per_launch(grid);
    return (count < per_launch ? count : per_launch) * grid * 8;
}

/* ------------------------------------------------------------------ */
/* Dot products                                                        */

template <class In> struct DotArgs {
    const In *x[DUO_DOT_MAX];
    const In *y[DUO_DOT_MAX];
};

/* Products of the lanes of one 16-byte load of x and of y, rounded to
 * double and then added: the intrinsics keep nvcc from fusing them into
 * one fma, which the CPU does not do. */
template <class In>
__device__ void add_products(double *lane, uint4 xr, uint4 yr)
{
    const In *xv = reinterpret_cast<const In *>(&xr);
    const In *yv = reinterpret_cast<const In *>(&yr);
#pragma unroll
    for (int v = 0; v < DUO_REDUCE_VEC(sizeof(In)); ++v)
        lane[v] = __dadd_rn(lane[v],
                            __dmul_rn((double)xv[v], (double)yv[v]));
}

template <class In, int K>
__global__ void __launch_bounds__(DUO_REDUCE_THREADS)
    dot_kernel(DotArgs<In> a, size_t n, size_t chunks, unsigned steps,
               bool aligned, double *__restrict__ slots, unsigned *counter,
               double *__restrict__ out)
{
    typedef SumOp<double> Op;
    constexpr int VEC = DUO_REDUCE_VEC(sizeof(In));
    constexpr int LANES = DUO_REDUCE_LANES(sizeof(In));
    /* About 8 16-byte loads in flight per thread, over the K pairs. */
    constexpr unsigned BATCH = K == 1 ? 4 : K == 2 ? 2 : 1;
    const size_t chunk = (size_t)steps * LANES;
    duo_cuda_wait_previous_(); /* launched early: see kernel_cuda.h */

    double slot[K];
#pragma unroll
    for (int k = 0; k < K; ++k)
        slot[k] = 0.0;
    for (size_t c = blockIdx.x; c < chunks; c += gridDim.x) {
        const size_t first = c * chunk + (size_t)threadIdx.x * VEC;
        double lane[K][VEC];
#pragma unroll
        for (int k = 0; k < K; ++k)
#pragma unroll
            for (int v = 0; v < VEC; ++v)
                lane[k][v] = 0.0;
        if (aligned && n - c * chunk >= chunk && steps % BATCH == 0) {
            for (unsigned s0 = 0; s0 < steps; s0 += BATCH) {
                uint4 xr[BATCH][K], yr[BATCH][K];
#pragma unroll
                for (unsigned b = 0; b < BATCH; ++b)
#pragma unroll
                    for (int k = 0; k < K; ++k) {
                        const size_t off = first + (size_t)(s0 + b) * LANES;
                        xr[b][k] = __ldg(reinterpret_cast<const uint4 *>(
                            a.x[k] + off));
                        yr[b][k] = __ldg(reinterpret_cast<const uint4 *>(
                            a.y[k] + off));
                    }
#pragma unroll
                for (unsigned b = 0; b < BATCH; ++b)
#pragma unroll
                    for (int k = 0; k < K; ++k)
                        add_products<In>(lane[k], xr[b][k], yr[b][k]);
            }
        } else {
            for (unsigned s = 0; s < steps; ++s)
#pragma unroll
                for (int k = 0; k < K; ++k)
#pragma unroll
                    for (int v = 0; v < VEC; ++v) {
                        const size_t i = first + (size_t)s * LANES + v;
                        if (i < n)
                            lane[k][v] = __dadd_rn(
                                lane[k][v], __dmul_rn((double)a.x[k][i],
                                                      (double)a.y[k][i]));
                    }
        }
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const double mine = block_fold<Op, DUO_REDUCE_THREADS>(
                pair_tree<Op, VEC>(lane[k]));
            if (threadIdx.x == 0)
                slot[k] = slot[k] + mine;
        }
    }
    if (threadIdx.x == 0)
#pragma unroll
        for (int k = 0; k < K; ++k)
            slots[k * DUO_REDUCE_FINAL_THREADS + blockIdx.x] = slot[k];
    if (finished_last(counter)) {
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const double v = final_fold<Op>(
                slots + k * DUO_REDUCE_FINAL_THREADS, gridDim.x);
            if (threadIdx.x == 0)
                out[k] = v;
        }
        if (threadIdx.x == 0)
            *counter = 0;
    }
}

template <class In, int K>
static duo_status queue_dot(size_t n, const void *const *x,
                            const void *const *y, double *result,
                            duo_stream stream)
{
    DotArgs<In> a;
    bool aligned = true;
    for (int k = 0; k < DUO_DOT_MAX; ++k) {
        a.x[k] = k < K ? (const In *)x[k] : NULL;
        a.y[k] = k < K ? (const In *)y[k] : NULL;
        if (k < K)
            aligned = aligned && (uintptr_t)x[k] % 16 == 0 &&
                      (uintptr_t)y[k] % 16 == 0;
    }
    const size_t steps = duo_reduce_steps(n, DUO_REDUCE_LANES(sizeof(In)));
    const size_t chunk = steps * DUO_REDUCE_LANES(sizeof(In));
    const size_t chunks = (n + chunk - 1) / chunk;
    char *base = (char *)duo_cuda_reduce_scratch(stream);
    duo_cuda_launch_(dot_kernel<In, K>, reduce_grid(chunks),
                     DUO_REDUCE_THREADS, 0, duo_cuda_stream(stream), a, n,
                     chunks, (unsigned)steps, aligned,
                     (double *)(base + DUO_CUDA_SCRATCH_SLOTS),
                     (unsigned *)(base + DUO_CUDA_SCRATCH_COUNTER), result);
    DUO_CUDA_TRY(cudaGetLastError(), "duo_dot_async");
    return DUO_SUCCESS;
}

template <class In>
static duo_status dot_by_count(size_t n, int count, const void *const *x,
                               const void *const *y, double *result,
                               duo_stream stream)
{
    switch (count) {
    case 1: return queue_dot<In, 1>(n, x, y, result, stream);
    case 2: return queue_dot<In, 2>(n, x, y, result, stream);
    case 3: return queue_dot<In, 3>(n, x, y, result, stream);
    default: return queue_dot<In, 4>(n, x, y, result, stream);
    }
}

duo_status duo_be_dot_async(duo_dtype type, size_t n, int count,
                            const void *const *x, const void *const *y,
                            double *result, duo_stream stream)
{
    duo_cuda_note_launch(stream, "duo_dot_async", NULL, 0);
    return type == DUO_F32
               ? dot_by_count<float>(n, count, x, y, result, stream)
               : dot_by_count<double>(n, count, x, y, result, stream);
}
