/*
 * gemm_split.cu - products split over k (split-K), for f32 and f64: the
 * driver that multiplies the parts into the workspace and the kernel
 * that folds them into C.  Which products split, and where, is the rule
 * in gemm_common.cuh (splits_of, from src/gemm_order.h); gemm.cu
 * decides, and the tile kernels (gemm_f32.cu; gemm_f64_fma.cu, or
 * gemm_f64.cu with DUO_GEMM_F64=tensor) multiply one part per block row.
 *
 * Where C has few elements and k is long, the tiles of C alone leave
 * most of the GPU idle (8192 x 64 x 8192: 64 tiles of 128 x 64 for 132
 * SMs).  The product is then cut along k into parts, each a product of
 * its own from zero, alpha * acc rounded (P_j), added to C one after the
 * other in k order: C = fma(beta, C, P_0) (or P_0 when beta is 0), then
 * C = C + P_j.  The parts are the k blocks of the order duo.h calls
 * blocked (gemm_order.h): 384 for f32, 2048 for f64 (fewer and longer
 * parts: 64 x 8192 x 8192 would otherwise write and read 32 parts of C).
 * With each part one fma chain, as the f32 kernel and the default f64
 * kernel (DFMA) sum it, that is the CPU backends' order, so split
 * products are bit-identical on CPU and CUDA; the f64 tensor-core
 * kernel's parts are split the same way but summed its own way.  The
 * split is a function of (m, n, k) alone, never of the GPU or the tile
 * shape.  The block rows of one launch write P_j to a workspace and a
 * second kernel folds them into C in order; a product with more parts
 * than the workspace holds goes in groups, each folded onto C.
 */
#include <cstddef>

#include <cuda_runtime.h>

#include "backend.h"
#include "cuda_check.h"
#include "gemm_common.cuh"

using namespace duo_cuda_gemm;

/* The most workspace one split product takes; parts beyond it go in
 * further groups. */
static constexpr size_t kWorkspaceBytes = (size_t)64 << 20;

/* C = fma(beta, C, P_0) (beta != 0) or P_0 when `first`, then C = C + P_j
 * for the parts in order.  P_j is m x n (row stride n) at w + j m n.
 * With `quads` (f32, n % 4 == 0, C 16-byte aligned rows) each thread
 * takes 4 consecutive elements of a row, one 16-byte load per part
 * (fold_quads); launched early (see kernel_cuda.h), so this launch
 * overlaps the multiply's last blocks.  On an H100, against one element
 * per thread and a plain launch: 724 x 724 x 12772 TN 462 -> 451 us,
 * 2048 x 64 x 4096 58 -> 56 us, 8192 x 64 x 8192 261 -> 259 us (ncu: 19
 * us of the old fold against 290 of the multiply, at base clocks). */
static __device__ __forceinline__ void fold_quads(size_t mn, size_t n,
                                                  const float *w, int parts,
                                                  bool first, float beta,
                                                  float *c, size_t ldc,
                                                  size_t i, size_t step)
{
    for (i *= 4; i < mn; i += 4 * step) {
        const size_t row = i / n;
        float *at = c + row * ldc + (i - row * n);
        float4 r;
        int j = 0;
        if (first) {
            r = __ldg(reinterpret_cast<const float4 *>(w + i));
            if (beta != 0.0f) {
                const float4 old = *reinterpret_cast<const float4 *>(at);
                r.x = fmaf(beta, old.x, r.x);
                r.y = fmaf(beta, old.y, r.y);
                r.z = fmaf(beta, old.z, r.z);
                r.w = fmaf(beta, old.w, r.w);
            }
            j = 1;
        } else {
            r = *reinterpret_cast<const float4 *>(at);
        }
#pragma unroll 8
        for (; j < parts; ++j) { /* fma(1, C, P_j) */
            const float4 q = __ldg(
                reinterpret_cast<const float4 *>(w + (size_t)j * mn + i));
            r.x = __fadd_rn(r.x, q.x);
            r.y = __fadd_rn(r.y, q.y);
            r.z = __fadd_rn(r.z, q.z);
            r.w = __fadd_rn(r.w, q.w);
        }
        *reinterpret_cast<float4 *>(at) = r;
    }
}

/* x + y rounded, the fold's add (C + P_j, never contracted). */
static __device__ __forceinline__ float add_rn(float x, float y)
{
    return __fadd_rn(x, y);
}

static __device__ __forceinline__ double add_rn(double x, double y)
{
    return __dadd_rn(x, y);
}

template <typename T>
static __global__ void gemm_fold(size_t m, size_t n, const T *w, int parts,
                                 bool first, T beta, T *c, size_t ldc,
                                 bool quads)
{
    duo_cuda_wait_previous_();
    const size_t mn = m * n, step = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if constexpr (sizeof(T) == 4) {
        if (quads) {
            fold_quads(mn, n, w, parts, first, beta, c, ldc, i, step);
            return;
        }
    }
    for (; i < mn; i += step) {
        const size_t row = i / n;
        T *at = c + row * ldc + (i - row * n);
        T r;
        int j = 0;
        if (first) {
            r = w[i];
            if (beta != T(0))
                r = fma(beta, *at, r);
            j = 1;
        } else {
            r = *at;
        }
#pragma unroll 4
        for (; j < parts; ++j)
            r = add_rn(r, w[(size_t)j * mn + i]); /* fma(1, C, P_j) */
        *at = r;
    }
}

/* p: the whole product, shape (of the kernel family `launch`) chosen for
 * its parts; `splits` parts. */
template <typename T>
duo_status duo_cuda_gemm::gemm_split(const char *where, int shape,
                                     const GemmParams<T> &p, duo_transpose ta,
                                     duo_transpose tb, bool vec, size_t splits,
                                     LaunchIndex<T> launch)
{
    const size_t kb = kSplitK<T>;
    const size_t mn = (size_t)p.m * (size_t)p.n;
    size_t group = kWorkspaceBytes / (mn * sizeof(T));
    group = group < 1 ? 1 : group > splits ? splits : group;
    if (group > 65535)
        group = 65535; /* gridDim.y */
    T *w = nullptr;
    duo_status st = workspace_alloc(where, &w, group * mn * sizeof(T));
    if (st != DUO_SUCCESS)
        return st;
    for (size_t first = 0; first < splits && st == DUO_SUCCESS;
         first += group) {
        const size_t parts = splits - first < group ? splits - first : group;
        const size_t k0 = first * kb;
        GemmParams<T> q = p;
        q.a = p.a + (ta == DUO_TRANS ? k0 * p.lda : k0);
        q.b = p.b + (tb == DUO_TRANS ? k0 : k0 * p.ldb);
        q.k = (int)((size_t)p.k - k0 < parts * kb ? (size_t)p.k - k0
                                                  : parts * kb);
        q.split_k = (int)kb;
        q.split_stride = mn;
        q.c = w;
        q.ldc = (size_t)p.n;
        q.beta = T(0); /* P_j = alpha * acc; C is read by the fold */
        q.vec_c = p.n % (16 / sizeof(T)) == 0;
        st = launch(shape, q, ta, tb, vec, (unsigned)parts);
        if (st != DUO_SUCCESS)
            break;
        const bool quads = sizeof(T) == 4 && p.n % 4 == 0 && p.vec_c;
        const size_t threads = 256, per = quads ? 4 : 1;
        const size_t need = (mn / per + threads - 1) / threads;
        const unsigned grid = (unsigned)(need < 8192 ? need : 8192);
        duo_cuda_launch_(gemm_fold<T>, grid, (unsigned)threads, 0, 0,
                         (size_t)p.m, (size_t)p.n, w, (int)parts, first == 0,
                         p.beta, p.c, p.ldc, quads);
        st = check_launch(where, "gemm_fold");
    }
    const cudaError_t freed = cudaFreeAsync(w, 0);
    if (st == DUO_SUCCESS && freed != cudaSuccess)
        st = duo_cuda_fail(freed, __FILE__, __LINE__, where,
                           "cudaFreeAsync (split-K workspace)");
    return st;
}

template duo_status duo_cuda_gemm::gemm_split<float>(
    const char *, int, const GemmParams<float> &, duo_transpose,
    duo_transpose, bool, size_t, LaunchIndex<float>);
template duo_status duo_cuda_gemm::gemm_split<double>(
    const char *, int, const GemmParams<double> &, duo_transpose,
    duo_transpose, bool, size_t, LaunchIndex<double>);
