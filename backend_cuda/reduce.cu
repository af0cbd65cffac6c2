/*
 * reduce.cu (CUDA) - duo_reduce and duo_reduce_arg in the order fixed by
 * src/reduce_order.h: pass 1 gives each chunk to one block (16-byte
 * loads, STEPS of them in flight per thread, a shuffle tree), pass 2
 * folds the per-chunk partials in one block.  No atomics, so the bits
 * depend only on n; they match the CPU backends'.
 */
#include <stdint.h>

#include "cuda_check.h"
#include "reduce_order.h"

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

/* Operations: identity, combine, and how an element enters (lift). */
template <class Acc> struct SumOp {
    typedef Acc acc;
    __device__ static Acc identity() { return (Acc)0; }
    __device__ static Acc apply(Acc a, Acc b) { return a + b; }
    template <class In> __device__ static Acc lift(In x, size_t)
    { return (Acc)x; }
};
template <class T, bool Max> struct ExtremeOp {
    typedef T acc;
    __device__ static T identity()
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
    __device__ static acc identity()
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

/* Pass 1: steps 1-4 for chunks blockIdx.x, blockIdx.x + gridDim.x, ... */
template <class Op, class In>
__global__ void __launch_bounds__(DUO_REDUCE_THREADS)
    reduce_chunks(const In *__restrict__ x, size_t n, size_t chunks,
                  unsigned steps, bool aligned,
                  typename Op::acc *__restrict__ partials)
{
    typedef typename Op::acc Acc;
    constexpr int VEC = DUO_REDUCE_VEC(sizeof(In));
    constexpr int LANES = DUO_REDUCE_LANES(sizeof(In));
    constexpr unsigned BATCH = 8; /* 16-byte loads in flight per thread */
    const size_t chunk = (size_t)steps * LANES;

    for (size_t c = blockIdx.x; c < chunks; c += gridDim.x) {
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
        Acc mine = VEC == 4 ? Op::apply(Op::apply(lane[0], lane[1]),
                                        Op::apply(lane[VEC / 2], lane[VEC - 1]))
                            : Op::apply(lane[0], lane[1]);
        mine = block_fold<Op, DUO_REDUCE_THREADS>(mine);
        if (threadIdx.x == 0)
            partials[c] = mine;
    }
}

/* Pass 2 (step 5): one block folds the partials; out = partials[chunks]. */
template <class Op>
__global__ void __launch_bounds__(DUO_REDUCE_FINAL_THREADS)
    reduce_partials(typename Op::acc *partials, size_t chunks)
{
    typename Op::acc mine = Op::identity();
    for (size_t p = threadIdx.x; p < chunks; p += DUO_REDUCE_FINAL_THREADS)
        mine = Op::apply(mine, partials[p]);
    mine = block_fold<Op, DUO_REDUCE_FINAL_THREADS>(mine);
    if (threadIdx.x == 0)
        partials[chunks] = mine;
}

/* Both passes; the reduced value is copied into *out (host). */
template <class Op, class In>
static duo_status run(const char *where, const In *x, size_t n,
                      typename Op::acc *out)
{
    typedef typename Op::acc Acc;
    const size_t steps = duo_reduce_steps(n, DUO_REDUCE_LANES(sizeof(In)));
    const size_t chunk = steps * DUO_REDUCE_LANES(sizeof(In));
    const size_t chunks = (n + chunk - 1) / chunk;
    Acc *partials = (Acc *)duo_cuda_scratch((chunks + 1) * sizeof(Acc),
                                            where, __FILE__, __LINE__);
    if (partials == NULL)
        return DUO_ERROR_OUT_OF_MEMORY;
    if (chunks > 0) {
        /* At most one resident wave of blocks, each given the same number
         * of chunks, so no block runs one chunk longer than the rest. */
        const size_t wave = (size_t)duo_cuda_sm_count *
                            (2048 / DUO_REDUCE_THREADS);
        const size_t per_block = (chunks + wave - 1) / wave;
        const unsigned grid = (unsigned)((chunks + per_block - 1) / per_block);
        const bool aligned = (uintptr_t)x % 16 == 0;
        reduce_chunks<Op, In><<<grid, DUO_REDUCE_THREADS>>>(
            x, n, chunks, (unsigned)steps, aligned, partials);
        DUO_CUDA_TRY(cudaGetLastError(), where);
    }
    reduce_partials<Op><<<1, DUO_REDUCE_FINAL_THREADS>>>(partials, chunks);
    DUO_CUDA_TRY(cudaGetLastError(), where);
    return duo_cuda_fetch_result(out, partials + chunks, sizeof(Acc), where,
                                 __FILE__, __LINE__);
}

/* Integer sums wrap modulo 2^64: accumulate unsigned, reinterpret. */
template <class In>
static duo_status signed_sum(const In *x, size_t n, void *result)
{
    unsigned long long wrapped;
    duo_status status =
        run<SumOp<unsigned long long>, In>("duo_reduce", x, n, &wrapped);
    if (status == DUO_SUCCESS)
        *(int64_t *)result = (int64_t)wrapped;
    return status;
}

template <class T>
static duo_status extreme(duo_reduce_op op, const void *x, size_t n,
                          void *result)
{
    if (op == DUO_MIN)
        return run<ExtremeOp<T, false>, T>("duo_reduce", (const T *)x, n,
                                           (T *)result);
    return run<ExtremeOp<T, true>, T>("duo_reduce", (const T *)x, n,
                                      (T *)result);
}

duo_status duo_be_reduce(duo_reduce_op op, duo_dtype type, const void *x,
                         size_t n, void *result)
{
    if (op == DUO_SUM) {
        switch (type) {
        case DUO_F32:
            return run<SumOp<double>, float>("duo_reduce", (const float *)x,
                                             n, (double *)result);
        case DUO_F64:
            return run<SumOp<double>, double>("duo_reduce",
                                              (const double *)x, n,
                                              (double *)result);
        case DUO_I32: return signed_sum((const int32_t *)x, n, result);
        case DUO_I64: return signed_sum((const long long *)x, n, result);
        case DUO_U64:
            return run<SumOp<unsigned long long>, unsigned long long>(
                "duo_reduce", (const unsigned long long *)x, n,
                (unsigned long long *)result);
        }
    } else {
        switch (type) {
        case DUO_F32: return extreme<float>(op, x, n, result);
        case DUO_F64: return extreme<double>(op, x, n, result);
        case DUO_I32: return extreme<int>(op, x, n, result);
        case DUO_I64: return extreme<long long>(op, x, n, result);
        case DUO_U64: return extreme<unsigned long long>(op, x, n, result);
        }
    }
    return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_reduce",
                    "no reduction for op %d on type %d", (int)op, (int)type);
}

template <class T>
static duo_status arg(duo_reduce_op op, const void *x, size_t n,
                      size_t *index, void *value)
{
    ArgPair<T> best;
    duo_status status =
        op == DUO_MIN
            ? run<ArgOp<T, false>, T>("duo_reduce_arg", (const T *)x, n, &best)
            : run<ArgOp<T, true>, T>("duo_reduce_arg", (const T *)x, n, &best);
    if (status != DUO_SUCCESS)
        return status;
    *index = (size_t)best.i;
    if (value != NULL)
        *(T *)value = best.v;
    return DUO_SUCCESS;
}

duo_status duo_be_reduce_arg(duo_reduce_op op, duo_dtype type,
                             const void *x, size_t n, size_t *index,
                             void *value)
{
    switch (type) {
    case DUO_F32: return arg<float>(op, x, n, index, value);
    case DUO_F64: return arg<double>(op, x, n, index, value);
    case DUO_I32: return arg<int>(op, x, n, index, value);
    case DUO_I64: return arg<long long>(op, x, n, index, value);
    case DUO_U64: return arg<unsigned long long>(op, x, n, index, value);
    }
    return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_reduce_arg",
                    "no index reduction for op %d on type %d", (int)op,
                    (int)type);
}
