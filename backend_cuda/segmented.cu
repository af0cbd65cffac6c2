/*
 * segmented.cu (CUDA) - segmented reductions: every segment in the order
 * of <duo/reduce_order.h> (the operations and fold trees of
 * <duo/reduce_cuda.h>), so that each result has the bits of duo_reduce
 * of that segment alone.
 *
 * Block j of the S blocks of a segment takes the segment's chunks j,
 * j + S, ... (S divides FINAL_THREADS, so chunk c's partial lands in a
 * slot of step 5's thread c % FINAL_THREADS that only this block
 * touches, and in chunk order).  group_kernel (S = 1) gives each block
 * groups of segments; it folds the slots and writes the results.
 * split_kernel (S > 1: few segments, so that long ones still spread over
 * the GPU) leaves each block's slots in the stream's scratch, and the
 * last block of a segment folds them.  A chunk is one warp's, with no
 * barrier until the partials are folded (a chunk of one step, as in
 * segments below 2^21 f32 elements, has all its loads in flight
 * together); the chunks of several short segments are shared among a
 * block's warps.
 *
 * Segments from an offsets array need the offsets checked (non-
 * decreasing, the last <= n) before any result is written; they are in
 * device memory, and on bad offsets a report in mapped host memory is
 * what the next wait turns into an error (launch.cu).  Up to
 * SELF_CHECK_MAX segments, every block checks all the offsets itself (at
 * most 2048 words, from L2, their loads in flight together), so no block
 * writes unless all are good, and no kernel of its own is launched and
 * waited for.  For more segments, check_kernel does it in a pass of its
 * own and leaves its verdict in the stream's scratch.  It lets the
 * reduction start at once (griddepcontrol.launch_dependents, when
 * launched early): the reduction runs while the check does, and only the
 * writing thread waits for the check (griddepcontrol.wait) before it
 * reads the verdict.  The reduction's reads before that wait are safe
 * because the check itself waited for the kernel before it.
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
/* Offsets per thread, and most segments, that each block checks itself
 * (entries 0 .. nseg of the offsets: SELF_CHECK_PER per thread). */
constexpr unsigned SELF_CHECK_PER = 8;
constexpr size_t SELF_CHECK_MAX = (size_t)SELF_CHECK_PER * THREADS - 1;
/* How the reduction kernels know the offsets are good. */
enum OffsetsCheck : unsigned {
    NO_OFFSETS = 0,     /* equal segments */
    CHECKED_BEFORE = 1, /* check_kernel's verdict, in the scratch */
    CHECKED_HERE = 2    /* each block checks them all itself */
};
/* Most segments that share their blocks' slots through the scratch
 * (S > 1): their slots and counters fit the scratch (cuda_check.h). */
constexpr size_t SPLIT_SEGMENTS = DUO_CUDA_SEGMENT_SPLIT_MAX;
/* Blocks of group_kernel that a multiprocessor holds at once: four (64
 * registers a thread) for one-word accumulators, so that 2^10 segments
 * of 2^12 f32 elements (512 blocks) run in one wave and longer ones keep
 * twice as many loads in flight as at two; three for index pairs, which
 * would spill at 64. */
template <class Acc> constexpr int group_blocks_per_sm()
{
    return sizeof(Acc) <= 8 ? 4 : 3;
}

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

/* Bad entry i into the report for the next wait, unless one is pending. */
__device__ void report_bad_offset(const size_t *offsets, size_t nseg,
                                  size_t n, size_t i,
                                  duo_cuda_offsets_report *report)
{
    if (report->pending != 0)
        return;
    report->index = i;
    report->value = offsets[i];
    report->next = i < nseg ? offsets[i + 1] : n;
    report->nseg = nseg;
    __threadfence_system(); /* the fields, then the flag */
    report->pending = 1;
}

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
    if (found != 0)
        report_bad_offset(offsets, nseg, n, (size_t)~found, report);
}

/* CHECKED_HERE: whether offsets[i] <= offsets[i + 1] for every i < nseg
 * and offsets[nseg] <= n (nseg <= SELF_CHECK_MAX), in every thread of
 * the block; block 0 reports the first bad i.  Thread t takes entries
 * t, t + THREADS, ..., so that each warp's loads are of consecutive
 * words (a thread taking PER consecutive entries made each load touch
 * 32 sectors for 8 words, and every block of a call repeats the check),
 * all of them in flight together.  Only the nseg / THREADS + 1 rounds
 * that hold entries run, in 32-bit indices (nseg < 2^11): every warp of
 * every block makes the check, so its instructions count. */
__device__ bool offsets_good_here(const size_t *__restrict__ offsets,
                                  size_t nseg, size_t n,
                                  duo_cuda_offsets_report *report)
{
    __shared__ unsigned block_bad; /* the lowest bad entry, or ~0u */
    if (threadIdx.x == 0)
        block_bad = ~0u;
    const unsigned last = (unsigned)nseg;
    const unsigned rounds = last / THREADS + 1;
    size_t at[SELF_CHECK_PER], next[SELF_CHECK_PER]; /* entries i, i + 1 */
#pragma unroll
    for (unsigned k = 0; k < SELF_CHECK_PER; ++k)
        if (k < rounds) {
            /* Past the last entry, the last again (a repeat is harmless). */
            const unsigned i = min(threadIdx.x + k * THREADS, last);
            at[k] = offsets[i];
            const size_t after = offsets[i < last ? i + 1 : i];
            next[k] = i < last ? after : n;
        }
    unsigned bad = ~0u;
#pragma unroll
    for (int k = SELF_CHECK_PER - 1; k >= 0; --k) /* the lowest bad i */
        if ((unsigned)k < rounds && at[k] > next[k])
            bad = min(threadIdx.x + k * THREADS, last);
    __syncthreads();
    if (bad != ~0u)
        atomicMin(&block_bad, bad);
    __syncthreads();
    const unsigned found = block_bad;
    if (found != ~0u && blockIdx.x == 0 && threadIdx.x == 0)
        report_bad_offset(offsets, nseg, n, found, report);
    return found == ~0u;
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

/* Step 4 of a chunk for the WARPS thread-warps that one warp plays
 * (w[v]: this lane's value of thread-warp v): each v's shuffle-down
 * tree over the lanes, then the fold in halves across the v.  Played v
 * by v, that is 5 WARPS shuffles.  Here the first LOG_WARPS levels
 * (distances h = 16, 8, 4) exchange instead: in each group of 2h lanes
 * the lower h keep the first half of the values still in play and the
 * upper h the second half, and each lane sends the half it gives up to
 * its partner, lane ^ h, so that each level shuffles half as many values
 * as the one before.  Every value still meets the partner the tree gives
 * it, the lower lane's operand on the left: the bits are the tree's.
 * Then each lane holds one v (its lane bits 16, 8, 4 are v's bits 2, 1,
 * 0), whose last levels (2, 1) shuffle down as the tree does; v's result
 * is in lane L(v) and v + WARPS/2's in L(v) + 16 (v + WARPS/4's in
 * L(v) + 8, ...), so the fold across the v is a shuffle down by 16, 8,
 * 4.  For 8 thread-warps, 12 shuffles instead of 40.  Valid in lane 0. */
constexpr int log2_of(int x) { return x <= 1 ? 0 : 1 + log2_of(x / 2); }
constexpr int LOG_WARPS = log2_of(WARPS);
static_assert((1 << LOG_WARPS) == WARPS && WARPS <= DUO_REDUCE_WARP,
              "a warp's lanes spread the thread-warps' values");

/* c ? a : b, field by field for index pairs: a select of whole structs
 * took their addresses, and put argmin/argmax's w[] in local memory. */
template <class T> __device__ T pick(bool c, T a, T b) { return c ? a : b; }
template <class T>
__device__ ArgPair<T> pick(bool c, ArgPair<T> a, ArgPair<T> b)
{
    ArgPair<T> r;
    r.v = c ? a.v : b.v;
    r.i = c ? a.i : b.i;
    return r;
}

template <class Op>
__device__ typename Op::acc fold_played_warps(typename Op::acc (&w)[WARPS])
{
    typedef typename Op::acc Acc;
    constexpr int HALF_WARP = DUO_REDUCE_WARP / 2;
    const unsigned lane = threadIdx.x % DUO_REDUCE_WARP;
#pragma unroll
    for (int k = 0; k < LOG_WARPS; ++k) {
        const int h = HALF_WARP >> k;
        const int half = WARPS >> (k + 1);
        const bool upper = (lane & h) != 0;
#pragma unroll
        for (int i = 0; i < half; ++i) {
            const Acc mine = pick(upper, w[i + half], w[i]);
            const Acc theirs = shfl_xor(pick(upper, w[i], w[i + half]), h);
            w[i] = Op::apply(pick(upper, theirs, mine),
                             pick(upper, mine, theirs));
        }
    }
    Acc v = w[0];
#pragma unroll
    for (int h = HALF_WARP >> LOG_WARPS; h > 0; h /= 2)
        v = Op::apply(v, shfl_down(v, h));
#pragma unroll
    for (int k = 0; k < LOG_WARPS; ++k)
        v = Op::apply(v, shfl_down(v, HALF_WARP >> k));
    return v;
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
    return fold_played_warps<Op>(w);
}

/* A whole run of `steps` steps (a multiple of B) of one thread's lanes,
 * B 16-byte loads in flight at a time.  The loop over batches is not
 * unrolled and has no bounds test: unrolled with a test on each load,
 * it spilled group_kernel at its 64 registers. */
template <class Op, class In, unsigned B>
__device__ void whole_steps(typename Op::acc *lanes, const uint4 *p,
                            size_t first, unsigned steps)
{
    constexpr int LANES = DUO_REDUCE_LANES(sizeof(In));
#pragma unroll 1
    for (unsigned s0 = 0; s0 < steps; s0 += B) {
        uint4 raw[B];
#pragma unroll
        for (unsigned b = 0; b < B; ++b)
            raw[b] = __ldg(p + (size_t)(s0 + b) * THREADS);
#pragma unroll
        for (unsigned b = 0; b < B; ++b)
            combine_vector<Op, In>(lanes, raw[b],
                                   first + (size_t)(s0 + b) * LANES);
    }
}

/* Steps 2 to 4 for chunk c of `steps` (> 1) steps by one warp, as
 * warp_chunk plays the chunk's threads: one thread-warp v at a time, its
 * steps up to STEP_BATCH loads at a time (a chunk has 2, 4, 8 or 16
 * steps), and its folded value kept by lane v
 * (so that no array is indexed by v: that would put warp_chunk's arrays
 * in local memory too).  Lanes 0 .. WARPS - 1 then fold in halves as
 * warp_chunk's w[] does.  Valid in lane 0. */
template <class Op, class In>
__device__ typename Op::acc warp_chunk_steps(const Segment<In> &g, size_t c,
                                             unsigned steps)
{
    typedef typename Op::acc Acc;
    constexpr int VEC = DUO_REDUCE_VEC(sizeof(In));
    constexpr int LANES = DUO_REDUCE_LANES(sizeof(In));
    const unsigned lane = threadIdx.x % DUO_REDUCE_WARP;
    const size_t base = c * steps * LANES;
    const bool whole = g.aligned && g.n - base >= (size_t)steps * LANES;
    Acc mine = Op::identity();
#pragma unroll 1
    for (unsigned v = 0; v < (unsigned)WARPS; ++v) {
        const size_t first = base + (size_t)(v * DUO_REDUCE_WARP + lane) * VEC;
        Acc lanes[VEC];
#pragma unroll
        for (int k = 0; k < VEC; ++k)
            lanes[k] = Op::identity();
        if (whole) {
            const uint4 *p = reinterpret_cast<const uint4 *>(g.x + first);
            if (steps % STEP_BATCH == 0)
                whole_steps<Op, In, STEP_BATCH>(lanes, p, first, steps);
            else if (steps % 4 == 0)
                whole_steps<Op, In, 4>(lanes, p, first, steps);
            else
                whole_steps<Op, In, 2>(lanes, p, first, steps);
        } else {
            for (unsigned k = 0; k < steps; ++k)
                if (first + (size_t)k * LANES < g.n)
                    combine_step<Op, In>(lanes, g, first + (size_t)k * LANES);
        }
        Acc t = pair_tree<Op, VEC>(lanes);
        for (int h = DUO_REDUCE_WARP / 2; h > 0; h /= 2)
            t = Op::apply(t, shfl_down(t, h));
        t = shfl_from(t, 0);
        if (lane == v)
            mine = t;
    }
    for (int h = WARPS / 2; h > 0; h /= 2)
        mine = Op::apply(mine, shfl_down(mine, h));
    return mine;
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
 * below `used` = min(chunks, FINAL) start at the identity.  Split: S may
 * be > 1 (split_kernel); else S = 1 (group_kernel).
 *
 * Chunks go to the block's warps in turn (of one step, or of any number
 * with S = 1): W = min(WARPS, P) warps, warp w taking m = w, w + W, ...;
 * as W divides P, every chunk of a slot is one warp's, which adds them
 * in order with no barrier.  Longer chunks with S > 1 take the whole
 * block each, so that all its warps work when P < WARPS; group_kernel
 * has no such path, which lets it fit in 64 registers (see
 * group_blocks_per_sm). */
template <class Op, class In, bool Split>
__device__ void share_chunks(const Segment<In> &g, unsigned j, unsigned S,
                             typename Op::acc *slots, size_t chunks,
                             unsigned steps, unsigned used)
{
    typedef typename Op::acc Acc;
    for (unsigned q = threadIdx.x; j + q * S < used; q += THREADS)
        slots[q] = Op::identity();
    __syncthreads();
    const unsigned P = FINAL / S;
    if (!Split || steps == 1) {
        const unsigned W = P < (unsigned)WARPS ? P : (unsigned)WARPS;
        const unsigned warp = threadIdx.x / DUO_REDUCE_WARP;
        if (warp < W)
            for (size_t m = warp; j + m * S < chunks; m += W) {
                const Acc p =
                    steps == 1 ? warp_chunk<Op, In>(g, j + m * S)
                               : warp_chunk_steps<Op, In>(g, j + m * S, steps);
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

/* A group's segments s0 .. s0 + count - 1 (count <= WARPS) as each warp
 * holds them: lane w the group's segment w (lanes from count on, none),
 * all read side by side once.  A chunk's segment is then found by a
 * ballot and its fields by shuffles: an array indexed by segment would
 * be in local memory, and reading each segment again per chunk cost
 * more instructions than the chunk's own sums. */
template <class In> struct GroupSegments {
    const In *x;        /* this lane's segment */
    unsigned n;         /* its length if short (below 2^32), else 0 */
    unsigned chunks;    /* its chunks if short (short_chunks), else 0 */
    unsigned end;       /* short chunks of the group up to this lane's */
    unsigned total;     /* short chunks of the whole group */
    unsigned long_lanes; /* lanes whose segment is long */
};

template <class In>
__device__ GroupSegments<In> group_segments(const In *x, size_t n,
                                            const size_t *offsets,
                                            size_t seg_len, size_t s0,
                                            unsigned count)
{
    constexpr size_t LANES = DUO_REDUCE_LANES(sizeof(In));
    const unsigned lane = threadIdx.x % DUO_REDUCE_WARP;
    Segment<In> g = {x, 0, false};
    if (lane < count)
        g = segment_at(x, n, offsets, seg_len, s0 + lane);
    GroupSegments<In> gs;
    gs.x = g.x;
    gs.chunks = short_chunks(g);
    gs.n = gs.chunks != 0 ? (unsigned)g.n : 0u;
    gs.long_lanes = __ballot_sync(0xffffffffu, g.n > SHORT_CHUNKS * LANES);
    unsigned end = gs.chunks; /* inclusive scan over lanes 0 .. WARPS-1 */
#pragma unroll
    for (int d = 1; d < WARPS; d *= 2) {
        const unsigned below = __shfl_up_sync(0xffffffffu, end, d);
        if (lane >= (unsigned)d)
            end += below;
    }
    gs.end = end;
    gs.total = __shfl_sync(0xffffffffu, end, WARPS - 1);
    return gs;
}

/* Short chunk p of the group (p < total, the same in every lane): its
 * segment w, and the segment as lane w holds it. */
template <class In>
__device__ Segment<In> short_chunk_segment(const GroupSegments<In> &gs,
                                           unsigned p, unsigned *w)
{
    const unsigned lane = threadIdx.x % DUO_REDUCE_WARP;
    /* Segments that end at or before p come before it. */
    *w = __popc(__ballot_sync(0xffffffffu, lane < WARPS && gs.end <= p));
    Segment<In> g;
    g.x = (const In *)shfl_from((unsigned long long)(uintptr_t)gs.x, *w);
    g.n = shfl_from(gs.n, *w);
    g.aligned = (uintptr_t)g.x % 16 == 0;
    return g;
}

/* Segment s's result v, by one thread: not if this block found the
 * offsets bad (good), and with CHECKED_BEFORE only once check_kernel has
 * found them good. */
template <class Acc, class Out>
__device__ void write_result(const Out &out, size_t s, Acc v, bool good,
                             bool checked_before, const char *scratch)
{
    if (!good)
        return;
    if (checked_before) {
        duo_cuda_wait_previous_(); /* check_kernel has finished */
        if (*(const volatile unsigned long long *)(scratch +
                                                   DUO_CUDA_SCRATCH_VERDICT))
            return;
    }
    out.write(s, v);
}

/* What every segmented kernel does first.  offsets NULL: equal segments
 * of seg_len (check NO_OFFSETS).  check CHECKED_BEFORE: check_kernel
 * checks the offsets (its verdict will be in scratch); else the kernel
 * waits for the one before it at once, and with CHECKED_HERE every
 * block checks the offsets itself.  Whether this block may write. */
__device__ bool start_segments(unsigned check, const size_t *offsets,
                               size_t nseg, size_t n,
                               duo_cuda_offsets_report *report)
{
    if (check != CHECKED_BEFORE)
        duo_cuda_wait_previous_(); /* launched early: see kernel_cuda.h */
    return check != CHECKED_HERE ||
           offsets_good_here(offsets, nseg, n, report);
}

/* One block per group of segments (S = 1): block b takes segments in
 * groups of K (1 to WARPS), groups b, b + gridDim.x, ...  The chunks of
 * the group's short segments (at most SHORT_CHUNKS chunks each) are
 * shared among the block's warps, a chunk per warp, and each segment's
 * partials folded by one warp; the group's longer segments then take
 * the whole block, one after the other, their chunks shared among the
 * warps and folded in the slots. */
template <class Op, class In, class Out>
__global__ void __launch_bounds__(THREADS, group_blocks_per_sm<typename Op::acc>())
    group_kernel(const In *__restrict__ x, size_t n,
                 const size_t *__restrict__ offsets, size_t seg_len,
                 size_t nseg, unsigned K, unsigned check, char *scratch,
                 duo_cuda_offsets_report *report, Out out)
{
    typedef typename Op::acc Acc;
    constexpr int LANES = DUO_REDUCE_LANES(sizeof(In));
    __shared__ Acc slots[FINAL];
    __shared__ Acc part[WARPS][SHORT_CHUNKS]; /* [segment][chunk] */
    const bool good = start_segments(check, offsets, nseg, n, report);
    const bool checked = check == CHECKED_BEFORE;
    const unsigned warp = threadIdx.x / DUO_REDUCE_WARP;
    const bool lane0 = threadIdx.x % DUO_REDUCE_WARP == 0;
    for (size_t s0 = (size_t)blockIdx.x * K; s0 < nseg;
         s0 += (size_t)gridDim.x * K) {
        const unsigned count = nseg - s0 < K ? (unsigned)(nseg - s0) : K;
        const GroupSegments<In> gs =
            group_segments(x, n, offsets, seg_len, s0, count);
        /* The group's short chunks, numbered in segment order: segment
         * w's are gs.end - gs.chunks .. gs.end - 1 of lane w. */
        for (unsigned p = warp; p < gs.total; p += WARPS) {
            unsigned w;
            const Segment<In> g = short_chunk_segment(gs, p, &w);
            const unsigned c = p - shfl_from(gs.end - gs.chunks, w);
            const Acc v = warp_chunk<Op, In>(g, c);
            if (lane0)
                part[w][c] = v;
        }
        __syncthreads();
        const unsigned mine = shfl_from(gs.chunks, warp);
        if (warp < count && (gs.long_lanes >> warp & 1u) == 0) {
            /* Step 5 with one partial per thread: the fold of the final
             * fold's first warp (the others hold only the identity). */
            const unsigned lane = threadIdx.x % DUO_REDUCE_WARP;
            Acc v = lane < mine ? part[warp][lane] : Op::identity();
            for (int h = DUO_REDUCE_WARP / 2; h > 0; h /= 2)
                v = Op::apply(v, shfl_down(v, h));
            if (lane0)
                write_result(out, s0 + warp, v, good, checked, scratch);
        }
        __syncthreads(); /* part[] is the next group's */
        /* The long ones (a loop over w: one over the set bits spilled
         * the i64 and u64 sums at 64 registers). */
        for (unsigned w = 0; gs.long_lanes >> w != 0; ++w) {
            if ((gs.long_lanes >> w & 1u) == 0)
                continue;
            const size_t s = s0 + w;
            const Segment<In> g = segment_at(x, n, offsets, seg_len, s);
            const size_t steps = duo_reduce_steps(g.n, LANES);
            const size_t chunks = (g.n + steps * LANES - 1) / (steps * LANES);
            const unsigned used =
                chunks < FINAL ? (unsigned)chunks : (unsigned)FINAL;
            share_chunks<Op, In, false>(g, 0, 1, slots, chunks,
                                        (unsigned)steps, used);
            const Acc v = final_fold_with<Op>(slots, used, LoadPlain());
            if (threadIdx.x == 0)
                write_result(out, s, v, good, checked, scratch);
        }
    }
}

/* S > 1 blocks per segment (few segments, so that long ones still
 * spread over the GPU): block b is block j = b % S of segments b / S,
 * b / S + G, ... (G = gridDim.x / S); each block folds its slots and
 * leaves them in the stream's scratch, and the last of a segment's S
 * blocks folds them all. */
template <class Op, class In, class Out>
__global__ void __launch_bounds__(THREADS)
    split_kernel(const In *__restrict__ x, size_t n,
                 const size_t *__restrict__ offsets, size_t seg_len,
                 size_t nseg, unsigned S, unsigned check, char *scratch,
                 duo_cuda_offsets_report *report, Out out)
{
    typedef typename Op::acc Acc;
    constexpr int LANES = DUO_REDUCE_LANES(sizeof(In));
    __shared__ Acc slots[FINAL];
    const bool good = start_segments(check, offsets, nseg, n, report);
    const bool checked = check == CHECKED_BEFORE;
    const unsigned j = blockIdx.x % S;
    const size_t G = gridDim.x / S;
    for (size_t s = blockIdx.x / S; s < nseg; s += G) {
        const Segment<In> g = segment_at(x, n, offsets, seg_len, s);
        const size_t steps = duo_reduce_steps(g.n, LANES);
        const size_t chunks = (g.n + steps * LANES - 1) / (steps * LANES);
        const unsigned used =
            chunks < FINAL ? (unsigned)chunks : (unsigned)FINAL;
        share_chunks<Op, In, true>(g, j, S, slots, chunks, (unsigned)steps,
                                   used);
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
            write_result(out, s, v, good, checked, scratch);
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
    const unsigned check = offsets == NULL          ? NO_OFFSETS
                           : nseg <= SELF_CHECK_MAX ? CHECKED_HERE
                                                    : CHECKED_BEFORE;
    if (check == CHECKED_BEFORE) {
        const size_t blocks = (nseg + 1 + THREADS - 1) / THREADS;
        duo_cuda_launch_(check_kernel,
                         blocks < 1024 ? (unsigned)blocks : 1024u, THREADS, 0,
                         stream, offsets, nseg, n, scratch,
                         duo_cuda_offsets_report_slot());
        DUO_CUDA_TRY(cudaGetLastError(), where);
    }
    duo_cuda_offsets_report *report = duo_cuda_offsets_report_slot();
    const unsigned S = blocks_per_segment<In>(n, nseg);
    if (S > 1) {
        duo_cuda_launch_(split_kernel<Op, In, Out>, (unsigned)(S * nseg),
                         THREADS, 0, stream, (const In *)x, n, offsets,
                         seg_len, nseg, S, check, scratch, report, out);
        DUO_CUDA_TRY(cudaGetLastError(), where);
        return DUO_SUCCESS;
    }
    /* Segments per group, so that a group has about one chunk of an
     * average segment per warp. */
    const size_t lanes = DUO_REDUCE_LANES(sizeof(In));
    const size_t avg_chunks = (n / nseg + lanes - 1) / lanes;
    unsigned K = WARPS;
    while (K > 1 && K * avg_chunks > (size_t)WARPS)
        K /= 2;
    const size_t groups = (nseg + K - 1) / K;
    const size_t G = groups < MAX_GRID ? groups : MAX_GRID;
    duo_cuda_launch_(group_kernel<Op, In, Out>, (unsigned)G, THREADS, 0,
                     stream, (const In *)x, n, offsets, seg_len, nseg, K,
                     check, scratch, report, out);
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
