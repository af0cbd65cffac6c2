/*
 * duo/reduce_cuda.h - the order of <duo/reduce_order.h> on the GPU: the
 * operations, fold trees and chunk loop that duo's reduction kernels
 * (backend_cuda/reduce.cu, backend_cuda/segmented.cu) and user
 * reductions (DUO_REDUCE_DEFINE, at the end of this file) share, so that
 * the order is written once.  Included by kernel_cuda.h; not for direct
 * use.
 *
 * Everything is in namespace duo_order.  A reduction is described by an
 * operation Op: Op::acc is the accumulator type, Op::identity() its
 * identity, Op::apply(a, b) the combining "+" of the order, Op::lift(x, i)
 * element x at index i as an acc.
 */
#ifndef DUO_REDUCE_CUDA_H
#define DUO_REDUCE_CUDA_H

#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include <duo/reduce_order.h>

/* Largest and smallest values of the element types (min/max
 * identities). */
template <class T> struct duo_cuda_limits;
#define DUO_CUDA_LIMITS_(T, lo, hi)                                     \
    template <> struct duo_cuda_limits<T> {                             \
        __host__ __device__ static T lowest() { return (T)(lo); }       \
        __host__ __device__ static T highest() { return (T)(hi); }      \
    };
DUO_CUDA_LIMITS_(float, -INFINITY, INFINITY)
DUO_CUDA_LIMITS_(double, -INFINITY, INFINITY)
DUO_CUDA_LIMITS_(int, INT32_MIN, INT32_MAX)
DUO_CUDA_LIMITS_(long, INT64_MIN, INT64_MAX)
DUO_CUDA_LIMITS_(long long, INT64_MIN, INT64_MAX)
DUO_CUDA_LIMITS_(unsigned long, 0, UINT64_MAX)
DUO_CUDA_LIMITS_(unsigned long long, 0, UINT64_MAX)
#undef DUO_CUDA_LIMITS_

namespace duo_order {

/* (value, index) for argmin/argmax. */
template <class T> struct ArgPair {
    T v;
    unsigned long long i;
};

template <class T> __device__ T shfl_down(T v, int h)
{
    return __shfl_down_sync(0xffffffffu, v, h);
}
template <class T> __device__ ArgPair<T> shfl_down(ArgPair<T> p, int h)
{
    p.v = __shfl_down_sync(0xffffffffu, p.v, h);
    p.i = __shfl_down_sync(0xffffffffu, p.i, h);
    return p;
}
template <class T> __device__ T shfl_xor(T v, int mask)
{
    return __shfl_xor_sync(0xffffffffu, v, mask);
}
template <class T> __device__ ArgPair<T> shfl_xor(ArgPair<T> p, int mask)
{
    p.v = __shfl_xor_sync(0xffffffffu, p.v, mask);
    p.i = __shfl_xor_sync(0xffffffffu, p.i, mask);
    return p;
}
template <class T> __device__ T shfl_from(T v, int src)
{
    return __shfl_sync(0xffffffffu, v, src);
}
template <class T> __device__ ArgPair<T> shfl_from(ArgPair<T> p, int src)
{
    p.v = __shfl_sync(0xffffffffu, p.v, src);
    p.i = __shfl_sync(0xffffffffu, p.i, src);
    return p;
}

/* Sums add with round-to-nearest instructions, which nvcc never fuses
 * with a multiply (a user's element function may end in one); integer
 * sums wrap. */
__device__ inline double add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ inline unsigned long long add_rn(unsigned long long a,
                                            unsigned long long b)
{
    return a + b;
}

template <class Acc> struct SumOp {
    typedef Acc acc;
    __host__ __device__ static Acc identity() { return (Acc)0; }
    __device__ static Acc apply(Acc a, Acc b) { return add_rn(a, b); }
    template <class In> __device__ static Acc lift(In x, size_t)
    { return (Acc)x; }
};

template <class T, bool Max> struct ExtremeOp {
    typedef T acc;
    __host__ __device__ static T identity()
    {
        return Max ? duo_cuda_limits<T>::lowest()
                   : duo_cuda_limits<T>::highest();
    }
    __device__ static T apply(T a, T b)
    {
        return Max ? DUO_COMBINE_DUO_MAX(a, b) : DUO_COMBINE_DUO_MIN(a, b);
    }
    __device__ static T lift(T x, size_t) { return x; }
};

template <class T, bool Max> struct ArgOp {
    typedef ArgPair<T> acc;
    __host__ __device__ static acc identity()
    {
        acc p = {ExtremeOp<T, Max>::identity(), ~0ull};
        return p;
    }
    /* Total order: NaN first, then better value, then lower index. */
    __device__ static acc apply(acc a, acc b)
    {
        const bool a_nan = a.v != a.v, b_nan = b.v != b.v;
        const bool better = Max ? b.v > a.v : b.v < a.v;
        const bool take = b_nan ? (!a_nan || b.i < a.i)
                                : (!a_nan && (better || (b.v == a.v &&
                                                          b.i < a.i)));
        return take ? b : a;
    }
    __device__ static acc lift(T x, size_t i)
    {
        acc p = {x, (unsigned long long)i};
        return p;
    }
};

/* Reads of slots other blocks wrote: through L2, past this SM's L1. */
template <class T> __device__ T load_cg(const T *p) { return __ldcg(p); }
template <class T> __device__ ArgPair<T> load_cg(const ArgPair<T> *p)
{
    ArgPair<T> v = {__ldcg(&p->v), __ldcg(&p->i)};
    return v;
}

/* Step 4: shuffle-down fold within each warp, then across the warps.
 * Valid in thread 0. */
template <class Op, int Threads>
__device__ typename Op::acc block_fold(typename Op::acc v)
{
    typedef typename Op::acc Acc;
    __shared__ Acc warps[Threads / DUO_REDUCE_WARP];
    for (int h = DUO_REDUCE_WARP / 2; h > 0; h /= 2)
        v = Op::apply(v, shfl_down(v, h));
    const int lane = threadIdx.x % DUO_REDUCE_WARP;
    const int warp = threadIdx.x / DUO_REDUCE_WARP;
    if (lane == 0)
        warps[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < Threads / DUO_REDUCE_WARP ? warps[lane] : Op::identity();
        for (int h = Threads / DUO_REDUCE_WARP / 2; h > 0; h /= 2)
            v = Op::apply(v, shfl_down(v, h));
    }
    __syncthreads(); /* warps[] is reused by the caller's next fold */
    return v;
}

/* Step 5 over slots[0..used) (the rest are the identity), by a block of
 * THREADS threads that each play FINAL / THREADS of the fold's
 * FINAL_THREADS threads: thread t plays t, t + THREADS, ..., so warp w
 * plays the fold's warps w, w + THREADS/32, ...; a warp of the fold with
 * no slot below `used` is the identity.  load(p) reads a slot.  Valid in
 * thread 0. */
template <class Op, class Load>
__device__ typename Op::acc final_fold_with(const typename Op::acc *slots,
                                            unsigned used, Load load)
{
    typedef typename Op::acc Acc;
    constexpr int PLAYS = DUO_REDUCE_FINAL_THREADS / DUO_REDUCE_THREADS;
    constexpr int WARPS = DUO_REDUCE_FINAL_THREADS / DUO_REDUCE_WARP;
    constexpr int BLOCK_WARPS = DUO_REDUCE_THREADS / DUO_REDUCE_WARP;
    static_assert(WARPS == DUO_REDUCE_WARP, "one warp folds the warp sums");
    __shared__ Acc warps[WARPS];
    const int lane = threadIdx.x % DUO_REDUCE_WARP;
    const int warp = threadIdx.x / DUO_REDUCE_WARP;
#pragma unroll
    for (int j = 0; j < PLAYS; ++j) {
        const unsigned t = threadIdx.x + j * DUO_REDUCE_THREADS;
        Acc v = Op::identity();
        if (t - lane < used) { /* the same for the whole warp */
            if (t < used)
                v = load(slots + t);
            for (int h = DUO_REDUCE_WARP / 2; h > 0; h /= 2)
                v = Op::apply(v, shfl_down(v, h));
        }
        if (lane == 0)
            warps[warp + j * BLOCK_WARPS] = v;
    }
    __syncthreads();
    Acc v = Op::identity();
    if (warp == 0) {
        v = warps[lane];
        for (int h = DUO_REDUCE_WARP / 2; h > 0; h /= 2)
            v = Op::apply(v, shfl_down(v, h));
    }
    __syncthreads(); /* warps[] is reused by the caller's next fold */
    return v;
}

/* Slots that other blocks wrote. */
struct LoadCG {
    template <class T> __device__ T operator()(const T *p) const
    {
        return load_cg(p);
    }
};

template <class Op>
__device__ typename Op::acc final_fold(const typename Op::acc *slots,
                                       unsigned used)
{
    return final_fold_with<Op>(slots, used, LoadCG());
}

/* Thread 0 has written this block's slots; take a ticket.  True in every
 * thread of the block that finishes last, which then sees every slot. */
__device__ inline bool finished_last(unsigned *counter)
{
    __shared__ bool last;
    if (threadIdx.x == 0) {
        __threadfence(); /* the slots, before the ticket */
        last = atomicAdd(counter, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    return last;
}

/* Lanes of one 16-byte load in (chunk c, step s) for this thread. */
template <class Op, class In>
__device__ void combine_vector(typename Op::acc *lane, uint4 raw,
                               size_t first)
{
    const In *v = reinterpret_cast<const In *>(&raw);
#pragma unroll
    for (int k = 0; k < DUO_REDUCE_VEC(sizeof(In)); ++k)
        lane[k] = Op::apply(lane[k], Op::lift(v[k], first + k));
}

/* Step 3: a thread's lanes as a balanced pair tree. */
template <class Op, int VEC>
__device__ typename Op::acc pair_tree(const typename Op::acc *lane)
{
    return VEC == 4 ? Op::apply(Op::apply(lane[0], lane[1]),
                                Op::apply(lane[VEC / 2], lane[VEC - 1]))
                    : Op::apply(lane[0], lane[1]);
}

/* Steps 2 to 4 for the chunk of STEPS * LANES elements that starts at
 * element `base` (of n), element i being get(i), an Op::acc; valid in
 * thread 0.  The lanes are held lane-major -- thread r holds lanes r,
 * r + THREADS, ... -- so that each load of a warp reads consecutive
 * elements, whatever get reads and however it is aligned; step 3's pair
 * tree then runs across neighbouring threads (shuffles), and the pair
 * trees meet in shared memory in the order of step 4. */
template <class Op, int VEC, class Get>
__device__ typename Op::acc chunk_lane_major(const Get &get, size_t n,
                                             size_t base, unsigned steps)
{
    typedef typename Op::acc Acc;
    constexpr int LANES = DUO_REDUCE_THREADS * VEC;
    __shared__ Acc trees[DUO_REDUCE_THREADS];
    Acc lane[VEC];
#pragma unroll
    for (int k = 0; k < VEC; ++k)
        lane[k] = Op::identity();
    const size_t first = base + threadIdx.x;
    if (n - base >= (size_t)steps * LANES) {
#pragma unroll 4
        for (unsigned s = 0; s < steps; ++s)
#pragma unroll
            for (int k = 0; k < VEC; ++k)
                lane[k] = Op::apply(
                    lane[k],
                    get(first + (size_t)s * LANES + k * DUO_REDUCE_THREADS));
    } else {
        for (unsigned s = 0; s < steps; ++s)
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                const size_t i =
                    first + (size_t)s * LANES + k * DUO_REDUCE_THREADS;
                if (i < n)
                    lane[k] = Op::apply(lane[k], get(i));
            }
    }
    /* Lanes VEC t .. VEC t + VEC-1 (step 3's thread t) are lanes k of
     * threads VEC t' .. VEC t' + VEC-1 of one warp. */
#pragma unroll
    for (int k = 0; k < VEC; ++k) {
        Acc v = Op::apply(lane[k], shfl_down(lane[k], 1));
        if (VEC == 4)
            v = Op::apply(v, shfl_down(v, 2));
        if (threadIdx.x % VEC == 0)
            trees[(k * DUO_REDUCE_THREADS + threadIdx.x) / VEC] = v;
    }
    __syncthreads();
    /* block_fold's barriers keep trees[] until every thread has read it. */
    return block_fold<Op, DUO_REDUCE_THREADS>(trees[threadIdx.x]);
}

/* ------------------------------------------------------------------ */
/* User reductions: the operation of DUO_SUM / DUO_MIN / DUO_MAX on T.
 * Sums of float and double accumulate in double, integer sums in
 * unsigned 64 bits, as duo_reduce's do. */

template <class T> struct sum_acc {
    typedef unsigned long long type;
};
template <> struct sum_acc<float> {
    typedef double type;
};
template <> struct sum_acc<double> {
    typedef double type;
};

template <duo_reduce_op O, class T> struct user_op;
template <class T> struct user_op<DUO_SUM, T> {
    typedef SumOp<typename sum_acc<T>::type> type;
};
template <class T> struct user_op<DUO_MIN, T> {
    typedef ExtremeOp<T, false> type;
};
template <class T> struct user_op<DUO_MAX, T> {
    typedef ExtremeOp<T, true> type;
};

/* Element i of a user reduction: F(i, args), already of type T. */
template <class Op, class T, class A, T (*F)(size_t, A)> struct UserElem {
    A args;
    __device__ typename Op::acc operator()(size_t i) const
    {
        return Op::lift(F(i, args), i);
    }
};

/* Steps 2 to 5 over F(i, args), i < n: block b takes chunks b, b + G,
 * ... of a grid of G = min(chunks, FINAL_THREADS) blocks, so chunk c
 * lands in step 5's thread c % FINAL_THREADS, as in duo_reduce; the last
 * block to finish folds the slots and writes *out. */
template <class Op, class T, class A, T (*F)(size_t, A)>
__global__ void __launch_bounds__(DUO_REDUCE_THREADS)
    user_reduce_kernel(size_t n, A args, size_t chunks, unsigned steps,
                       typename Op::acc *__restrict__ slots,
                       unsigned *counter, typename Op::acc *out)
{
    typedef typename Op::acc Acc;
    constexpr int VEC = DUO_REDUCE_VEC(sizeof(T));
    const size_t chunk = (size_t)steps * DUO_REDUCE_LANES(sizeof(T));
    duo_cuda_wait_previous_(); /* launched early: see kernel_cuda.h */
    const UserElem<Op, T, A, F> get = {args};
    Acc slot = Op::identity(); /* step 5's thread blockIdx.x; thread 0 */
    for (size_t c = blockIdx.x; c < chunks; c += gridDim.x) {
        const Acc mine = chunk_lane_major<Op, VEC>(get, n, c * chunk, steps);
        if (threadIdx.x == 0)
            slot = Op::apply(slot, mine);
    }
    if (threadIdx.x == 0)
        slots[blockIdx.x] = slot;
    if (finished_last(counter)) {
        const Acc v = final_fold<Op>(slots, gridDim.x);
        if (threadIdx.x == 0) {
            *out = v;
            *counter = 0; /* ready for the next reduction on this scratch */
        }
    }
}

} /* namespace duo_order */

/* From backend_cuda/launch.cu: the default stream's reduction scratch
 * (slots for FINAL_THREADS values of up to 16 bytes, and the last-block
 * counter); where a kernel on the default stream writes a host-bound
 * result (64 bytes of mapped pinned memory), and the wait that hands
 * `bytes` of it to the caller. */
void *duo_cuda_default_reduce_slots(unsigned **counter);
void *duo_cuda_host_result_slot(void);
duo_status duo_cuda_wait_host_result(void *result, size_t bytes,
                                     const char *where, const char *file,
                                     int line);

/* A user reduction on the GPU: one launch on the default stream, the
 * value written to mapped host memory, then the wait.  Every path after
 * duo_host_result_begin goes through duo_launch_end. */
template <class Op, class T, class A, T (*F)(size_t, A)>
duo_status duo_cuda_user_reduce(size_t n, A args, T *result,
                                const char *name, const char *file, int line)
{
    typedef typename Op::acc Acc;
    if (result == NULL)
        return duo_reduce_result_missing(name, file, line);
    if (!duo_host_result_begin(name, file, line))
        return duo_launch_refused();
    const size_t steps = duo_reduce_steps(n, DUO_REDUCE_LANES(sizeof(T)));
    const size_t chunk = steps * DUO_REDUCE_LANES(sizeof(T));
    const size_t chunks = (n + chunk - 1) / chunk;
    const unsigned grid =
        chunks == 0 ? 1u /* the empty reduction still writes its identity */
        : chunks < DUO_REDUCE_FINAL_THREADS ? (unsigned)chunks
                                            : DUO_REDUCE_FINAL_THREADS;
    unsigned *counter = NULL;
    Acc *slots = (Acc *)duo_cuda_default_reduce_slots(&counter);
    duo_cuda_launch_(duo_order::user_reduce_kernel<Op, T, A, F>, grid,
                     DUO_REDUCE_THREADS, 0, 0, n, args, chunks,
                     (unsigned)steps, slots, counter,
                     (Acc *)duo_cuda_host_result_slot());
    duo_status status = duo_cuda_launch_check(name, file, line);
    Acc value = Op::identity();
    if (status == DUO_SUCCESS)
        status = duo_cuda_wait_host_result(&value, sizeof value, name, file,
                                           line);
    if (status == DUO_SUCCESS)
        *result = (T)value;
    const duo_status end = duo_launch_end(name, NULL, file, line);
    return status != DUO_SUCCESS ? status : end;
}

#endif /* DUO_REDUCE_CUDA_H */
