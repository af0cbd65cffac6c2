/*
 * segmented.cu (CUDA) - segmented reductions: every segment in the order
 * of <duo/reduce_order.h> (the operations and fold trees of
 * <duo/reduce_cuda.h>), so that each result has the bits of duo_reduce
 * of that segment alone.
 *
 * segment_kernel: block j of the S blocks of a segment takes the
 * segment's chunks j, j + S, ... (S divides FINAL_THREADS, so chunk c's
 * partial lands in a slot of step 5's thread c % FINAL_THREADS that only
 * this block touches, and in chunk order); with S = 1 the block folds its
 * slots and writes the result; with S > 1 (few segments, so that long
 * ones still spread over the GPU) the blocks leave their slots in the
 * stream's scratch and the last to finish folds them.  A chunk of one
 * step (segments below 2^21 f32 elements) is one warp's, all its loads
 * in flight together and no barrier until the partials are folded; the
 * chunks of several short segments are shared among a block's warps.
 *
 * Segments from an offsets array need the offsets checked (non-
 * decreasing, the last <= n) before any result is written; they are in
 * device memory.  check_kernel does it in a pass of its own and leaves
 * its verdict in the stream's scratch, and on bad offsets a report in
 * mapped host memory that the next wait turns into an error (launch.cu).
 * It lets segment_kernel start at once (griddepcontrol.launch_dependents,
 * when launched early): the reduction runs while the check does, and
 * only the writing thread waits for the check (griddepcontrol.wait)
 * before it reads the verdict.  segment_kernel's reads before that wait
 * are safe because the check itself waited for the kernel before it.
 */
#include <stdint.h>

#include "cuda_check.h"
#include "reduce_order.h"

using namespace duo_order;

namespace {

constexpr int THREADS = DUO_REDUCE_THREADS;
constexpr int WARPS = DUO_REDUCE_THREADS / DUO_REDUCE_WARP;
constexpr int FINAL = DUO_REDUCE_FINAL_THREADS;
/* Most chunks of a short segment: one warp folds their partials. */
constexpr unsigned SHORT_CHUNKS = DUO_REDUCE_WARP;
/* 16-byte loads in flight per thread in a chunk of several steps. */
constexpr unsigned STEP_BATCH = 8;
/* Most segments that share their blocks' slots through the scratch
 * (S > 1): their slots and counters fit the scratch (cuda_check.h). */
constexpr size_t SPLIT_SEGMENTS = DUO_CUDA_SEGMENT_SPLIT_MAX;

/* griddepcontrol.launch_dependents: the next kernel on the stream, if
 * launched early, may start now. */
__device__ __forceinline__ void let_next_start(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* ------------------------------------------------------------------ */
/* The offsets check                                                   */

/* offsets[i] <= offsets[i + 1] for i < nseg, offsets[nseg] <= n.  The
 * first bad i is kept as ~i in scratch's BAD word (atomicMax keeps the
 * lowest i); the last block moves it to VERDICT (0: good, else ~i) and
 * clears BAD and its counter for the next check on this scratch. */
__global__ void __launch_bounds__(THREADS)
    check_kernel(const size_t *__restrict__ offsets, size_t nseg, size_t n,
                 char *scratch, duo_cuda_offsets_report *report)
{
    duo_cuda_wait_previous_(); /* the offsets may be the last kernel's */
    let_next_start();
    unsigned long long *bad =
        (unsigned long long *)(scratch + DUO_CUDA_SCRATCH_BAD);
    __shared__ unsigned long long block_bad;
    if (threadIdx.x == 0)
        block_bad = 0;
    __syncthreads();
    for (size_t i = (size_t)blockIdx.x * THREADS + threadIdx.x; i <= nseg;
         i += (size_t)gridDim.x * THREADS) {
        const size_t next = i < nseg ? offsets[i + 1] : n;
        if (offsets[i] > next)
            atomicMax(&block_bad, ~(unsigned long long)i);
    }
    __syncthreads();
    if (threadIdx.x == 0 && block_bad != 0)
        atomicMax(bad, block_bad);
    if (!finished_last(
            (unsigned *)(scratch + DUO_CUDA_SCRATCH_CHECK_COUNTER)) ||
        threadIdx.x != 0)
        return;
    const unsigned long long found = atomicExch(bad, 0ull);
    *(unsigned long long *)(scratch + DUO_CUDA_SCRATCH_VERDICT) = found;
    *(unsigned *)(scratch + DUO_CUDA_SCRATCH_CHECK_COUNTER) = 0;
    if (found != 0 && report->pending == 0) {
        const size_t i = (size_t)~found;
        report->index = i;
        report->value = offsets[i];
        report->next = i < nseg ? offsets[i + 1] : n;
        report->nseg = nseg;
        __threadfence_system(); /* the fields, then the flag */
        report->pending = 1;
    }
}

/* ------------------------------------------------------------------ */
/* The reduction                                                       */

/* Where results go: segment s's value, or its index and value (value
 * may be NULL). */
template <class Acc> struct ValueOut {
    Acc *value;
    __device__ void write(size_t s, Acc v) const { value[s] = v; }
};
template <class T> struct ArgOut {
    unsigned long long *index;
    T *value;
    __device__ void write(size_t s, ArgPair<T> v) const
    {
        index[s] = v.i;
        if (value != NULL)
            value[s] = v.v;
    }
};

/* One segment: its elements, and whether they may be read 16 bytes at a
 * time.  Indices are within the segment. */
template <class In> struct Segment {
    const In *x;
    size_t n;
    bool aligned;
};

/* This thread's VEC lanes at element `first` of one step, into lane[]:
 * one 16-byte load where it may, else element by element. */
template <class Op, class In>
__device__ void combine_step(typename Op::acc *lane, const Segment<In> &g,
                             size_t first)
{
    constexpr int VEC = DUO_REDUCE_VEC(sizeof(In));
    if (g.aligned && first + VEC <= g.n) {
        combine_vector<Op, In>(
            lane, __ldg(reinterpret_cast<const uint4 *>(g.x + first)), first);
        return;
    }
#pragma unroll
    for (int k = 0; k < VEC; ++k)
        if (first + k < g.n)
            lane[k] = Op::apply(lane[k], Op::lift(g.x[first + k], first + k));
}

/* Steps 2 to 4 for chunk c of one step (LANES elements from c * LANES)
 * by one warp, which plays the chunk's THREADS threads: lane l plays
 * threads l, l + 32, ..., so that step 4's warp v of the chunk is played
 * by the whole warp, and each of its 16-byte loads is consecutive with
 * its neighbours'.  All the chunk's loads are in flight together, and no
 * other warp is waited for.  Valid in lane 0. */
template <class Op, class In>
__device__ typename Op::acc warp_chunk(const Segment<In> &g, size_t c)
{
    typedef typename Op::acc Acc;
    constexpr int VEC = DUO_REDUCE_VEC(sizeof(In));
    constexpr int LANES = DUO_REDUCE_LANES(sizeof(In));
    const unsigned lane = threadIdx.x % DUO_REDUCE_WARP;
    const size_t base = c * LANES;
    Acc w[WARPS];
    if (g.aligned && g.n - base >= (size_t)LANES) {
        /* A whole chunk: eight loads at fixed offsets from one address. */
        const uint4 *p = reinterpret_cast<const uint4 *>(g.x + base) + lane;
        uint4 raw[WARPS];
#pragma unroll
        for (int v = 0; v < WARPS; ++v)
            raw[v] = __ldg(p + v * DUO_REDUCE_WARP);
#pragma unroll
        for (int v = 0; v < WARPS; ++v) {
            Acc lanes[VEC];
#pragma unroll
            for (int k = 0; k < VEC; ++k)
                lanes[k] = Op::identity();
            const size_t first =
                base + (size_t)(v * DUO_REDUCE_WARP + lane) * VEC;
            combine_vector<Op, In>(lanes, raw[v], first);
            w[v] = pair_tree<Op, VEC>(lanes);
        }
    } else {
#pragma unroll
        for (int v = 0; v < WARPS; ++v) {
            const size_t first =
                base + (size_t)(v * DUO_REDUCE_WARP + lane) * VEC;
            Acc lanes[VEC];
#pragma unroll
            for (int k = 0; k < VEC; ++k)
                lanes[k] = Op::identity();
            if (first < g.n)
                combine_step<Op, In>(lanes, g, first);
            w[v] = pair_tree<Op, VEC>(lanes);
        }
    }
    for (int h = DUO_REDUCE_WARP / 2; h > 0; h /= 2)
#pragma unroll
        for (int v = 0; v < WARPS; ++v)
            w[v] = Op::apply(w[v], shfl_down(w[v], h));
#pragma unroll
    for (int h = WARPS / 2; h > 0; h /= 2)
#pragma unroll
        for (int v = 0; v < h; ++v)
            w[v] = Op::apply(w[v], w[v + h]);
    return w[0];
}

/* Steps 2 to 4 for chunk c of `steps` (> 1) steps; valid in thread 0. */
template <class Op, class In>
__device__ typename Op::acc long_chunk_partial(const Segment<In> &g,
                                               size_t c, unsigned steps)
{
    typedef typename Op::acc Acc;
    constexpr int VEC = DUO_REDUCE_VEC(sizeof(In));
    constexpr int LANES = DUO_REDUCE_LANES(sizeof(In));
    const size_t chunk = (size_t)steps * LANES;
    const size_t first = c * chunk + (size_t)threadIdx.x * VEC;
    Acc lane[VEC];
#pragma unroll
    for (int k = 0; k < VEC; ++k)
        lane[k] = Op::identity();
    if (g.aligned && g.n - c * chunk >= chunk) {
        const uint4 *p = reinterpret_cast<const uint4 *>(g.x + first);
        for (unsigned s0 = 0; s0 < steps; s0 += STEP_BATCH) {
            uint4 raw[STEP_BATCH];
#pragma unroll
            for (unsigned b = 0; b < STEP_BATCH; ++b)
                if (s0 + b < steps)
                    raw[b] = __ldg(p + (size_t)(s0 + b) * THREADS);
#pragma unroll
            for (unsigned b = 0; b < STEP_BATCH; ++b)
                if (s0 + b < steps)
                    combine_vector<Op, In>(lane, raw[b],
                                           first + (size_t)(s0 + b) * LANES);
        }
    } else {
        for (unsigned s = 0; s < steps; ++s)
            combine_step<Op, In>(lane, g, first + (size_t)s * LANES);
    }
    return block_fold<Op, THREADS>(pair_tree<Op, VEC>(lane));
}

/* Steps 2 to 5 for the chunks of g that fall to block j of S: chunks
 * c = j + m S for m = 0, 1, ..., each partial added, in chunk order, to
 * slot c % FINAL, kept in slots[m % P] (shared), P = FINAL / S.  Slots
 * below `used` = min(chunks, FINAL) start at the identity.
 *
 * Chunks of one step go to the block's warps in turn: W = min(WARPS, P)
 * warps, warp w taking m = w, w + W, ...; as W divides P, every chunk of
 * a slot is one warp's, which adds them in order with no barrier. */
template <class Op, class In>
__device__ void share_chunks(const Segment<In> &g, unsigned j, unsigned S,
                             typename Op::acc *slots, size_t chunks,
                             unsigned steps, unsigned used)
{
    typedef typename Op::acc Acc;
    for (unsigned q = threadIdx.x; j + q * S < used; q += THREADS)
        slots[q] = Op::identity();
    __syncthreads();
    const unsigned P = FINAL / S;
    if (steps == 1) {
        const unsigned W = P < (unsigned)WARPS ? P : (unsigned)WARPS;
        const unsigned warp = threadIdx.x / DUO_REDUCE_WARP;
        if (warp < W)
            for (size_t m = warp; j + m * S < chunks; m += W) {
                const Acc p = warp_chunk<Op, In>(g, j + m * S);
                if (threadIdx.x % DUO_REDUCE_WARP == 0)
                    slots[m % P] = Op::apply(slots[m % P], p);
            }
    } else {
        for (size_t m = 0; j + m * S < chunks; ++m) {
            const Acc p = long_chunk_partial<Op, In>(g, j + m * S, steps);
            if (threadIdx.x == 0)
                slots[m % P] = Op::apply(slots[m % P], p);
        }
    }
    __syncthreads();
}

/* Slots in this block's shared memory. */
struct LoadPlain {
    template <class T> __device__ T operator()(const T *p) const
    {
        return *p;
    }
};

/* Segment s: from the offsets (the elements of none if they are bad;
 * check_kernel reports them and nothing is written) or of seg_len. */
template <class In>
__device__ Segment<In> segment_at(const In *x, size_t n,
                                  const size_t *offsets, size_t seg_len,
                                  size_t s)
{
    size_t first = s * seg_len, last = first + seg_len;
    if (offsets != NULL) {
        first = offsets[s];
        last = offsets[s + 1];
        if (first > last || last > n)
            first = last = 0;
    }
    Segment<In> g;
    g.x = x + first;
    g.n = last - first;
    g.aligned = (uintptr_t)g.x % 16 == 0;
    return g;
}

/* Chunks of a short segment: of one step each, and at most
 * SHORT_CHUNKS (the partials of one warp of step 5); 0 for a longer
 * segment. */
template <class In> __device__ unsigned short_chunks(const Segment<In> &g)
{
    constexpr size_t LANES = DUO_REDUCE_LANES(sizeof(In));
    return g.n <= SHORT_CHUNKS * LANES ? (unsigned)((g.n + LANES - 1) / LANES)
                                       : 0u;
}

/* Segment s's result v, by one thread; with checked offsets only once
 * check_kernel has found them good. */
template <class Acc, class Out>
__device__ void write_result(const Out &out, size_t s, Acc v, bool checked,
                             const char *scratch)
{
    if (checked) {
        duo_cuda_wait_previous_(); /* check_kernel has finished */
        if (*(const volatile unsigned long long *)(scratch +
                                                   DUO_CUDA_SCRATCH_VERDICT))
            return;
    }
    out.write(s, v);
}

/* offsets NULL: equal segments of seg_len.  checked: the offsets were
 * checked by check_kernel (its verdict is in scratch); else nothing is
 * checked and the kernel waits for the one before it at once.
 *
 * S = 1: block b takes segments in groups of K (1 to WARPS), groups b,
 * b + gridDim.x, ...  The chunks of the group's short segments (at most
 * SHORT_CHUNKS chunks each) are shared among the block's warps, a chunk
 * per warp, and each segment's partials folded by one warp; the group's
 * longer segments then take the whole block, one after the other, their
 * chunks folded in the slots.
 * S > 1: block b is block j = b % S of segments b / S, b / S + G, ...
 * (G = gridDim.x / S); each block folds its slots and leaves them in the
 * stream's scratch, and the last of a segment's S blocks folds them all. */
template <class Op, class In, class Out>
__global__ void __launch_bounds__(THREADS)
    segment_kernel(const In *__restrict__ x, size_t n,
                   const size_t *__restrict__ offsets, size_t seg_len,
                   size_t nseg, unsigned S, unsigned K, char *scratch,
                   Out out)
{
    typedef typename Op::acc Acc;
    constexpr int LANES = DUO_REDUCE_LANES(sizeof(In));
    __shared__ Acc slots[FINAL];
    const bool checked = offsets != NULL;
    if (!checked)
        duo_cuda_wait_previous_(); /* launched early: see kernel_cuda.h */
    if (S == 1) {
        const unsigned warp = threadIdx.x / DUO_REDUCE_WARP;
        const bool lane0 = threadIdx.x % DUO_REDUCE_WARP == 0;
        __shared__ Acc part[WARPS][SHORT_CHUNKS]; /* [segment][chunk] */
        for (size_t s0 = (size_t)blockIdx.x * K; s0 < nseg;
             s0 += (size_t)gridDim.x * K) {
            const unsigned count =
                nseg - s0 < K ? (unsigned)(nseg - s0) : K;
            /* The group's short segments' chunks, numbered in segment
             * order: segment w's are first[w] .. first[w + 1] - 1. */
            unsigned first[WARPS + 1];
            first[0] = 0;
#pragma unroll
            for (unsigned w = 0; w < WARPS; ++w)
                first[w + 1] =
                    first[w] +
                    (w < count
                         ? short_chunks(
                               segment_at(x, n, offsets, seg_len, s0 + w))
                         : 0);
            for (unsigned p = warp; p < first[count]; p += WARPS) {
                unsigned w = 0;
                while (p >= first[w + 1])
                    ++w;
                const Acc v = warp_chunk<Op, In>(
                    segment_at(x, n, offsets, seg_len, s0 + w), p - first[w]);
                if (lane0)
                    part[w][p - first[w]] = v;
            }
            __syncthreads();
            if (warp < count) {
                const Segment<In> g =
                    segment_at(x, n, offsets, seg_len, s0 + warp);
                if (g.n <= (size_t)SHORT_CHUNKS * LANES) {
                    /* Step 5 with one partial per thread: the fold of
                     * the final fold's first warp (the others hold only
                     * the identity). */
                    const unsigned lane = threadIdx.x % DUO_REDUCE_WARP;
                    Acc v = lane < first[warp + 1] - first[warp]
                                ? part[warp][lane]
                                : Op::identity();
                    for (int h = DUO_REDUCE_WARP / 2; h > 0; h /= 2)
                        v = Op::apply(v, shfl_down(v, h));
                    if (lane0)
                        write_result(out, s0 + warp, v, checked, scratch);
                }
            }
            __syncthreads(); /* part[] is the next group's */
            for (size_t s = s0; s < s0 + count; ++s) {
                const Segment<In> g = segment_at(x, n, offsets, seg_len, s);
                if (g.n <= (size_t)SHORT_CHUNKS * LANES)
                    continue;
                const size_t steps = duo_reduce_steps(g.n, LANES);
                const size_t chunks =
                    (g.n + steps * LANES - 1) / (steps * LANES);
                const unsigned used =
                    chunks < FINAL ? (unsigned)chunks : (unsigned)FINAL;
                share_chunks<Op, In>(g, 0, 1, slots, chunks,
                                     (unsigned)steps, used);
                const Acc v = final_fold_with<Op>(slots, used, LoadPlain());
                if (threadIdx.x == 0)
                    write_result(out, s, v, checked, scratch);
            }
        }
        return;
    }
    const unsigned j = blockIdx.x % S;
    const size_t G = gridDim.x / S;
    for (size_t s = blockIdx.x / S; s < nseg; s += G) {
        const Segment<In> g = segment_at(x, n, offsets, seg_len, s);
        const size_t steps = duo_reduce_steps(g.n, LANES);
        const size_t chunks = (g.n + steps * LANES - 1) / (steps * LANES);
        const unsigned used =
            chunks < FINAL ? (unsigned)chunks : (unsigned)FINAL;
        share_chunks<Op, In>(g, j, S, slots, chunks, (unsigned)steps, used);
        /* Segment s's slots in the scratch (cuda_check.h). */
        Acc *shared_slots =
            (Acc *)(scratch + DUO_CUDA_SCRATCH_SLOTS) + s * FINAL;
        for (unsigned q = threadIdx.x; j + q * S < used; q += THREADS)
            shared_slots[j + q * S] = slots[q];
        __threadfence(); /* each thread's slots, before the ticket */
        __syncthreads();
        unsigned *counter =
            (unsigned *)(scratch + DUO_CUDA_SCRATCH_SEGMENT_COUNTERS) + s;
        __shared__ bool last_block;
        if (threadIdx.x == 0)
            last_block = atomicAdd(counter, 1u) == S - 1;
        __syncthreads();
        if (!last_block)
            continue;
        const Acc v = final_fold<Op>(shared_slots, used);
        if (threadIdx.x == 0) {
            *counter = 0;
            write_result(out, s, v, checked, scratch);
        }
    }
}

/* Blocks per segment: a power of two up to FINAL_THREADS that gives the
 * GPU about 4 blocks per multiprocessor, but no more blocks than an
 * average segment has chunks; 1 for more than SPLIT_SEGMENTS segments. */
template <class In> unsigned blocks_per_segment(size_t n, size_t nseg)
{
    if (nseg > SPLIT_SEGMENTS)
        return 1;
    const size_t lanes = DUO_REDUCE_LANES(sizeof(In));
    const size_t avg = n / nseg;
    const size_t chunks = avg / (duo_reduce_steps(avg, lanes) * lanes);
    const size_t want = (4 * (size_t)duo_cuda_sm_count + nseg - 1) / nseg;
    unsigned S = 1;
    while (S < FINAL && 2 * S <= want && 2 * S <= chunks)
        S *= 2;
    return S;
}

/* Most blocks for S = 1 (far more than a GPU holds at once); more
 * groups are taken in turn. */
constexpr size_t MAX_GRID = (size_t)1 << 16;

template <class Op, class In, class Out>
duo_status queue_segments(const char *where, const void *x, size_t n,
                          const size_t *offsets, size_t seg_len,
                          size_t nseg, Out out, duo_stream handle)
{
    const cudaStream_t stream = duo_cuda_stream(handle);
    char *scratch = (char *)duo_cuda_reduce_scratch(handle);
    if (offsets != NULL) {
        const size_t blocks = (nseg + 1 + THREADS - 1) / THREADS;
        duo_cuda_launch_(check_kernel, blocks < 1024 ? (unsigned)blocks : 1024u,
                         THREADS, 0, stream, offsets, nseg, n, scratch,
                         duo_cuda_offsets_report_slot());
        DUO_CUDA_TRY(cudaGetLastError(), where);
    }
    const unsigned S = blocks_per_segment<In>(n, nseg);
    /* S = 1: segments per group, so that a group has about one chunk of
     * an average segment per warp. */
    const size_t lanes = DUO_REDUCE_LANES(sizeof(In));
    const size_t avg_chunks = (n / nseg + lanes - 1) / lanes;
    unsigned K = S == 1 ? WARPS : 1;
    while (K > 1 && K * avg_chunks > (size_t)WARPS)
        K /= 2;
    const size_t groups = (nseg + K - 1) / K;
    const size_t G = groups < MAX_GRID ? groups : MAX_GRID;
    duo_cuda_launch_(segment_kernel<Op, In, Out>, (unsigned)(S * G), THREADS,
                     0, stream, (const In *)x, n, offsets, seg_len, nseg, S,
                     K, scratch, out);
    DUO_CUDA_TRY(cudaGetLastError(), where);
    return DUO_SUCCESS;
}

template <class Op, class In>
duo_status queue_values(const char *where, const void *x, size_t n,
                        const size_t *offsets, size_t seg_len, size_t nseg,
                        void *result, duo_stream handle)
{
    ValueOut<typename Op::acc> out = {(typename Op::acc *)result};
    return queue_segments<Op, In>(where, x, n, offsets, seg_len, nseg, out,
                                  handle);
}

template <class T>
duo_status queue_by_op(const char *where, duo_reduce_op op, const void *x,
                       size_t n, const size_t *offsets, size_t seg_len,
                       size_t nseg, void *result, size_t *index,
                       duo_stream handle)
{
    typedef unsigned long long u64;
    if (index != NULL) {
        if (op == DUO_MIN) {
            ArgOut<T> out = {(u64 *)index, (T *)result};
            return queue_segments<ArgOp<T, false>, T>(
                where, x, n, offsets, seg_len, nseg, out, handle);
        }
        ArgOut<T> out = {(u64 *)index, (T *)result};
        return queue_segments<ArgOp<T, true>, T>(where, x, n, offsets,
                                                 seg_len, nseg, out, handle);
    }
    switch (op) {
    case DUO_SUM: /* as duo_reduce: f32 and f64 in double, integers wrap */
        return queue_values<SumOp<typename sum_acc<T>::type>, T>(
            where, x, n, offsets, seg_len, nseg, result, handle);
    case DUO_MIN:
        return queue_values<ExtremeOp<T, false>, T>(
            where, x, n, offsets, seg_len, nseg, result, handle);
    case DUO_MAX:
        return queue_values<ExtremeOp<T, true>, T>(
            where, x, n, offsets, seg_len, nseg, result, handle);
    }
    return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                    "no segmented reduction for op %d", (int)op);
}

} /* namespace */

duo_status duo_be_segmented_reduce(duo_reduce_op op, duo_dtype type,
                                   const void *x, size_t n,
                                   const size_t *offsets, size_t seg_len,
                                   size_t nseg, void *result, size_t *index,
                                   duo_stream stream)
{
    const char *where =
        index != NULL ? "duo_segmented_reduce_arg" : "duo_segmented_reduce";
    switch (type) {
    case DUO_F32: return queue_by_op<float>(where, op, x, n, offsets, seg_len,
                                            nseg, result, index, stream);
    case DUO_F64: return queue_by_op<double>(where, op, x, n, offsets,
                                             seg_len, nseg, result, index,
                                             stream);
    case DUO_I32: return queue_by_op<int>(where, op, x, n, offsets, seg_len,
                                          nseg, result, index, stream);
    case DUO_I64: return queue_by_op<long long>(where, op, x, n, offsets,
                                                seg_len, nseg, result, index,
                                                stream);
    case DUO_U64: return queue_by_op<unsigned long long>(
        where, op, x, n, offsets, seg_len, nseg, result, index, stream);
    }
    return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                    "no segmented reduction for type %d", (int)type);
}
