/*
 * scan.cu (CUDA) - duo_scan in the order of src/scan_order.h, as the
 * CPU computes it: run totals level by level up, carries level by level
 * down, one thread per run of 16, then each run of the input scanned
 * once more with its carry.  The level arrays live in one temporary
 * block taken with cudaMallocAsync on the stream.
 *
 * This is the order's plain form, three passes over the input and one
 * thread per run; it is exact but not yet as fast as CUB's single-pass
 * scan (a block-wide form of the same order is the way there).
 */
#include <math.h>
#include <stdint.h>

#include "cuda_check.h"
#include "scan_order.h"

#define RUN DUO_SCAN_RUN

enum { kThreads = 256, kMaxBlocks = 65536 };

struct Sum {
    template <class A> __device__ static A apply(A a, A b) { return a + b; }
};
struct Min {
    template <class A> __device__ static A apply(A a, A b)
    { return DUO_COMBINE_DUO_MIN(a, b); }
};
struct Max {
    template <class A> __device__ static A apply(A a, A b)
    { return DUO_COMBINE_DUO_MAX(a, b); }
};

static unsigned blocks_for(size_t runs)
{
    const size_t b = (runs + kThreads - 1) / kThreads;
    return (unsigned)(b < kMaxBlocks ? b : kMaxBlocks);
}

#define FOR_RUNS(j, runs)                                                   \
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;          \
         j < (runs); j += (size_t)gridDim.x * blockDim.x)

template <class Op, class In, class A>
__global__ void totals_kernel(const In *a, size_t m, A *t)
{
    const size_t runs = (m + RUN - 1) / RUN;
    FOR_RUNS(j, runs)
    {
        const size_t end = (j + 1) * RUN < m ? (j + 1) * RUN : m;
        A acc = (A)a[j * RUN];
        for (size_t i = j * RUN + 1; i < end; ++i)
            acc = Op::apply(acc, (A)a[i]);
        t[j] = acc;
    }
}

/* Carries of a level's elements from the carries `up` of its runs. */
template <class Op, class A>
__global__ void carries_kernel(const A *a, size_t m, const A *up, A *e)
{
    const size_t runs = (m + RUN - 1) / RUN;
    FOR_RUNS(j, runs)
    {
        const size_t end = (j + 1) * RUN < m ? (j + 1) * RUN : m;
        A loc = a[j * RUN];
        if (j > 0)
            e[j * RUN] = up[j];
        for (size_t i = j * RUN + 1; i < end; ++i) {
            e[i] = j > 0 ? Op::apply(up[j], loc) : loc;
            loc = Op::apply(loc, a[i]);
        }
    }
}

template <class Op, class T, class A>
__global__ void apply_kernel(const T *x, size_t n, const A *c, T *y,
                             int inclusive, T identity)
{
    const size_t runs = (n + RUN - 1) / RUN;
    FOR_RUNS(j, runs)
    {
        const size_t end = (j + 1) * RUN < n ? (j + 1) * RUN : n;
        A loc = (A)x[j * RUN];
        if (inclusive)
            y[j * RUN] = (T)(j > 0 ? Op::apply(c[j], loc) : loc);
        else
            y[j * RUN] = j > 0 ? (T)c[j] : identity;
        for (size_t i = j * RUN + 1; i < end; ++i) {
            const A v = (A)x[i];
            if (!inclusive)
                y[i] = (T)(j > 0 ? Op::apply(c[j], loc) : loc);
            loc = Op::apply(loc, v);
            if (inclusive)
                y[i] = (T)(j > 0 ? Op::apply(c[j], loc) : loc);
        }
    }
}

static size_t runs_of(size_t m) { return (m + RUN - 1) / RUN; }

template <class Op, class T, class A>
static duo_status scan_typed(const T *x, T *y, size_t n, int inclusive,
                             T identity, cudaStream_t s)
{
    const char *where = "duo_scan";
    /* Level sizes: m[0] = n, m[l+1] = runs of m[l], until one run. */
    size_t m[24];
    int levels = 0;
    size_t total = 0;
    m[0] = n;
    while (runs_of(m[levels]) > 1) {
        m[levels + 1] = runs_of(m[levels]);
        total += m[levels + 1];
        ++levels;
    }
    A *block = NULL;
    if (levels > 0)
        DUO_CUDA_TRY(cudaMallocAsync((void **)&block,
                                     2 * total * sizeof(A), s),
                     where);
    /* Level l >= 1: totals t[l] (m[l] values) and carries c[l]. */
    A *t[24], *c[24];
    size_t at = 0;
    for (int l = 1; l <= levels; ++l) {
        t[l] = block + at;
        c[l] = block + total + at;
        at += m[l];
    }
    cudaError_t err = cudaSuccess;
    if (levels > 0) {
        totals_kernel<Op, T, A><<<blocks_for(m[1]), kThreads, 0, s>>>(
            x, n, t[1]);
        for (int l = 1; l < levels; ++l)
            totals_kernel<Op, A, A><<<blocks_for(m[l + 1]), kThreads, 0, s>>>(
                t[l], m[l], t[l + 1]);
        /* The top level is one run: its carries need no level above. */
        for (int l = levels; l >= 1; --l)
            carries_kernel<Op, A><<<blocks_for(runs_of(m[l])), kThreads, 0,
                                    s>>>(t[l], m[l],
                                         l < levels ? c[l + 1] : NULL, c[l]);
        err = cudaGetLastError();
    }
    if (err == cudaSuccess) {
        apply_kernel<Op, T, A><<<blocks_for(runs_of(n)), kThreads, 0, s>>>(
            x, n, levels > 0 ? c[1] : NULL, y, inclusive, identity);
        err = cudaGetLastError();
    }
    const cudaError_t freed = levels > 0 ? cudaFreeAsync(block, s)
                                         : cudaSuccess;
    DUO_CUDA_TRY(err, where);
    DUO_CUDA_TRY(freed, where);
    return DUO_SUCCESS;
}

template <class T, class SumA, class A>
static duo_status scan_op(duo_reduce_op op, const void *x, void *y,
                          size_t n, int inclusive, T lowest, T highest,
                          cudaStream_t s)
{
    if (op == DUO_SUM)
        return scan_typed<Sum, T, SumA>((const T *)x, (T *)y, n, inclusive,
                                        (T)0, s);
    if (op == DUO_MIN)
        return scan_typed<Min, T, A>((const T *)x, (T *)y, n, inclusive,
                                     highest, s);
    return scan_typed<Max, T, A>((const T *)x, (T *)y, n, inclusive, lowest,
                                 s);
}

duo_status duo_be_scan(duo_scan_kind kind, duo_reduce_op op, duo_dtype type,
                       const void *x, void *y, size_t n, duo_stream stream)
{
    const cudaStream_t s = duo_cuda_stream(stream);
    const int inc = kind == DUO_INCLUSIVE;
    switch (type) {
    case DUO_F32:
        return scan_op<float, double, double>(op, x, y, n, inc, -INFINITY,
                                              INFINITY, s);
    case DUO_F64:
        return scan_op<double, double, double>(op, x, y, n, inc, -INFINITY,
                                               INFINITY, s);
    case DUO_I32:
        return scan_op<int32_t, uint32_t, int32_t>(op, x, y, n, inc,
                                                   INT32_MIN, INT32_MAX, s);
    case DUO_I64:
        return scan_op<int64_t, uint64_t, int64_t>(op, x, y, n, inc,
                                                   INT64_MIN, INT64_MAX, s);
    case DUO_U64:
        return scan_op<uint64_t, uint64_t, uint64_t>(op, x, y, n, inc, 0,
                                                     UINT64_MAX, s);
    }
    return DUO_ERROR_INVALID_ARGUMENT;
}
