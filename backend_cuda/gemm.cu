/*
 * gemm.cu - CUDA backend of duo_gemm_f32 / duo_gemm_f64 (the twin of
 * backend_cpu/gemm.c): C = alpha * op(A) * op(B) + beta * C, row-major,
 * device pointers, queued on the default stream.  This file checks the
 * call and chooses how to multiply; the files that multiply are listed
 * in gemm_common.cuh.
 *
 * The multiply kernels (gemm_f32.cu; for f64 gemm_f64.cu on the tensor
 * cores or gemm_f64_fma.cu on the FP64 units; their common scheme in
 * gemm_tiles.cuh) give each block one tile of C.  Large tiles are what
 * make a GEMM compute bound: with 128 x 128 tiles (256 threads) each
 * element brought into shared memory feeds 128 multiply-adds.  Where C
 * has too few such tiles to fill the GPU (64 at 1024^2 on 132 SMs)
 * smaller tiles give more blocks: f32 128 x 64, 64 x 128, 64 x 64,
 * 32 x 64, 32 x 32; f64 (DFMA) 128 x 64, 64 x 64, 64 x 32, 32 x 32;
 * f64 (DMMA) 64 x 64, 64 x 32, 32 x 32.  f32 also has 128 x 256 for the
 * largest products.
 * pick_shape times each shape with a model fitted to measurements (waves
 * of blocks per SM, speed by warps per SM; the DFMA kernel's constants
 * are estimates still to be fitted) and takes the fastest
 * (DUO_GEMM_TILE forces one; preferred_shape_f32 breaks one tie).  No
 * shape splits k: each element of C is summed over k in the same order
 * with the same operations in every shape, so the choice changes the
 * speed and never the bits (see the kernels).  Products with a small C
 * and a long k are split along k, in the k blocks of the order of
 * src/gemm_order.h (384 for f32, 2048 for f64), a function of (m, n, k)
 * only (gemm_split.cu and duo.h).  Large f32 products with B stored
 * transposed multiply a transposed copy of B instead (gemm_pack.cu).
 *
 * f64 has two kernels, each element one fma chain in the order of
 * gemm_order.h, split or not: the CPU backends' bits.  One runs on the
 * FP64 tensor cores (DMMA, gemm_f64.cu), whose steps are fma chains over
 * k on compute capability 9.x (profiles/dmma/), about twice as fast as
 * the other, on the FP64 units (DFMA, gemm_f64_fma.cu).  The default
 * takes the tensor cores on 9.x and the FP64 units elsewhere (other GPUs'
 * tensor cores were not probed); DUO_GEMM_F64=fma or tensor forces one,
 * other values are refused.
 *
 * k == 0 or alpha == 0 only scales C (A and B are not read); beta == 0
 * never reads C, so NaN in C does not propagate.
 */
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#include "backend.h"
#include "cuda_check.h"
#include "gemm_common.cuh"

using namespace duo_cuda_gemm;

/* ------------------------------------------------------------------ */
/* C = beta * C (k == 0 or alpha == 0)                                 */

template <typename T>
static __global__ void gemm_scale_kernel(size_t m, size_t n, T beta, T *c,
                                         size_t ldc)
{
    for (size_t row = blockIdx.y; row < m; row += gridDim.y) {
        T *crow = c + row * ldc;
        for (size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
             col < n; col += (size_t)gridDim.x * blockDim.x)
            crow[col] = beta == T(0) ? T(0) : beta * crow[col];
    }
}

template <typename T>
static duo_status scale_c(const char *where, size_t m, size_t n, T beta,
                          T *c, size_t ldc)
{
    if (beta == T(1))
        return DUO_SUCCESS; /* C = 1 * C */
    const unsigned threads = 256;
    const size_t col_blocks = (n + threads - 1) / threads;
    const dim3 grid((unsigned)(col_blocks < 1024 ? col_blocks : 1024),
                    (unsigned)(m < 65535 ? m : 65535));
    gemm_scale_kernel<T><<<grid, threads>>>(m, n, beta, c, ldc);
    return check_launch(where, "gemm_scale_kernel");
}

/* ------------------------------------------------------------------ */
/* The choice of tile shape                                            */

static size_t tiles_of(const ShapeInfo &s, size_t m, size_t n)
{
    return ((m + s.bm - 1) / s.bm) * ((n + s.bn - 1) / s.bn);
}

/* Streaming multiprocessors of the current device (132 if it cannot be
 * asked), once per process. */
static int sm_count()
{
    static const int sms = [] {
        int dev = 0, count = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount,
                                   dev) != cudaSuccess ||
            count <= 0) {
            cudaGetLastError();
            count = 132;
        }
        return count;
    }();
    return sms;
}

/* Modelled time (us) of `splits` products of m x n x k with shape s: the
 * blocks spread evenly over the SMs, the busiest SM gets q of them and
 * runs them `resident` at a time, then the rest. */
static double model_us(const ShapeInfo &s, const TimeModel &model, size_t m,
                       size_t n, size_t k, size_t splits)
{
    const double sms = (double)sm_count();
    const double q = ceil((double)tiles_of(s, m, n) * (double)splits / sms);
    const double resident = (double)s.resident();
    const double full = floor(q / resident), rest = q - full * resident;
    const double flops =
        2.0 * s.bm * s.bn * ((double)k + model.k_extra) * 1e-3; /* GFLOP*us */
    double us = 0.0;
    for (int part = 0; part < 2; ++part) {
        const double blocks = part == 0 ? resident : rest;
        const double waves = part == 0 ? full : rest > 0.0 ? 1.0 : 0.0;
        if (waves == 0.0)
            continue;
        const double warps = blocks * s.warps;
        const double rate = s.peak * warps / (warps + s.half);
        us += waves * (blocks * flops / rate + model.wave_us);
    }
    return us;
}

/* The shape the model times fastest; ties go to shape `prefer` (-1:
 * none), else to the larger tile, which reads A and B fewer times.  Every
 * shape gives the same bits, so this may depend on the GPU. */
static int pick_shape(const ShapeInfo *shapes, int count,
                      const TimeModel &model, size_t m, size_t n, size_t k,
                      size_t splits, int prefer)
{
    int best = 0;
    double best_us = 0.0;
    for (int i = 0; i < count; ++i) {
        const double us = model_us(shapes[i], model, m, n, k, splits);
        if (i == 0 || us < best_us || (us == best_us && i == prefer)) {
            best = i;
            best_us = us;
        }
    }
    return best;
}

/* 128 x 64 and 64 x 128 have the same warps and per-thread work, so the
 * model times them alike wherever their tiles are as many.  An unsplit
 * f32 NN product takes 64 x 128 then: its A (k contiguous) is the operand
 * transposed on the way in, and 64 x 128 transposes half as much of it
 * per block.  H100, same run, 128 x 64 -> 64 x 128: NN 1000^3 69.4 ->
 * 66.6 us, 1023^3 75.1 -> 71.6 us, 1536^3 251 -> 233 us, 1024^3 70.9 ->
 * 70.5 us; but NT 1023^3 (both operands transposed) 77.9 -> 81.5 us. */
static int preferred_shape_f32(duo_transpose ta, duo_transpose tb,
                               size_t splits)
{
    return splits == 1 && ta == DUO_NO_TRANS && tb == DUO_NO_TRANS
               ? kShapeF32Tall
               : -1;
}

/* DUO_GEMM_TILE, when set to one of the shape names, forces that shape
 * (for tuning and for tests: every shape must give the same bits); unset,
 * empty or "auto" leaves the choice to pick_shape.  -1: not set. */
static duo_status forced_shape(const char *where, const ShapeInfo *shapes,
                               int count, int *index)
{
    *index = -1;
    const char *env = getenv("DUO_GEMM_TILE");
    if (env == NULL || env[0] == '\0' || strcmp(env, "auto") == 0)
        return DUO_SUCCESS;
    char names[128] = "";
    for (int i = 0; i < count; ++i) {
        if (strcmp(env, shapes[i].name) == 0) {
            *index = i;
            return DUO_SUCCESS;
        }
        strncat(names, shapes[i].name, sizeof names - strlen(names) - 1);
        strncat(names, ", ", sizeof names - strlen(names) - 1);
    }
    return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                    "DUO_GEMM_TILE = \"%s\" is not a tile shape of this "
                    "precision's kernel; expected one of %sor auto",
                    env, names);
}

/* Whether this GPU's FP64 tensor-core steps are proven to be the fma
 * chains of the order: compute capability 9.x, where DMMA.8x8x4 and
 * DMMA.16x8x8 returned a chain's bits for all 3.1 million elements of
 * 32768 probe products, subnormal and signed-zero cases included
 * (profiles/dmma/).
 * Other GPUs were not probed.  The device is duo's one device, so the
 * answer is kept. */
static bool tensor_steps_are_chains()
{
    static const bool yes = [] {
        int device = 0, major = 0;
        return cudaGetDevice(&device) == cudaSuccess &&
               cudaDeviceGetAttribute(&major,
                                      cudaDevAttrComputeCapabilityMajor,
                                      device) == cudaSuccess &&
               major == 9;
    }();
    return yes;
}

/* DUO_GEMM_F64 picks the f64 kernel (*tensor: the FP64 tensor cores,
 * else the FP64 units).  Unset, empty or "auto": the tensor cores where
 * their steps are the order's chains (tensor_steps_are_chains), which
 * then gives the CPU's bits about twice as fast, else the FP64 units;
 * "fma" the FP64 units and "tensor" the tensor cores on every GPU.  Read
 * on every call, like DUO_GEMM_TILE and DUO_GEMM_PACK; f32 ignores it,
 * but a bad value is refused in both precisions, like theirs. */
static duo_status f64_kernel(const char *where, bool *tensor)
{
    const char *env = getenv("DUO_GEMM_F64");
    if (env == NULL || env[0] == '\0' || strcmp(env, "auto") == 0) {
        *tensor = tensor_steps_are_chains();
        return DUO_SUCCESS;
    }
    *tensor = strcmp(env, "tensor") == 0;
    if (*tensor || strcmp(env, "fma") == 0)
        return DUO_SUCCESS;
    return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                    "DUO_GEMM_F64 = \"%s\"; expected auto (the default: "
                    "the tensor cores on compute capability 9.x, else the "
                    "FP64 units), fma (the FP64 units) or tensor (the FP64 "
                    "tensor cores)",
                    env);
}

/* The shapes and launches of the kernel that multiplies T. */
template <typename T> struct Kernel {
    const ShapeSet *shapes;
    LaunchIndex<T> launch;
};

static Kernel<float> kernel_of(const float *, bool)
{
    return {&kShapesF32, launch_index};
}

static Kernel<double> kernel_of(const double *, bool tensor)
{
    if (tensor)
        return {&kShapesF64, launch_index};
    return {&kShapesF64Fma, launch_index_fma};
}

/* ------------------------------------------------------------------ */
/* The product                                                         */

/* A product that is not split over k: B packed or not (`pack`: the
 * DUO_GEMM_PACK mode). */
static duo_status gemm_unsplit(const char *where, int shape,
                               const GemmParams<float> &p, duo_transpose ta,
                               duo_transpose tb, bool vec, int pack,
                               LaunchIndex<float> launch)
{
    if (pack_b(pack, p, tb))
        return gemm_packed_f32(where, shape, p, ta, vec);
    return launch(shape, p, ta, tb, vec, 1);
}

static duo_status gemm_unsplit(const char *, int shape,
                               const GemmParams<double> &p, duo_transpose ta,
                               duo_transpose tb, bool vec, int,
                               LaunchIndex<double> launch)
{
    return launch(shape, p, ta, tb, vec, 1);
}

template <typename T>
static duo_status gemm(const char *where, duo_transpose ta, duo_transpose tb,
                       size_t m, size_t n, size_t k, T alpha, const T *a,
                       size_t lda, const T *b, size_t ldb, T beta, T *c,
                       size_t ldc)
{
    const bool f64 = sizeof(T) == 8;
    bool tensor;
    const duo_status which = f64_kernel(where, &tensor);
    if (which != DUO_SUCCESS)
        return which;
    const Kernel<T> kernel = kernel_of(a, tensor);
    const ShapeSet &set = *kernel.shapes;
    const ShapeInfo *shapes = set.shapes;
    const TimeModel &model = set.model;
    const int count = set.count;
    int shape;
    const duo_status forced = forced_shape(where, shapes, count, &shape);
    if (forced != DUO_SUCCESS)
        return forced;
    int pack;
    const duo_status packing = pack_mode(where, &pack);
    if (packing != DUO_SUCCESS)
        return packing;
    if (k == 0 || alpha == T(0))
        return scale_c(where, m, n, beta, c, ldc);
    if (m > kMaxDim || n > kMaxDim || k > kMaxDim)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "m = %zu, n = %zu, k = %zu: the CUDA backend "
                        "multiplies dimensions up to %zu; split the product "
                        "into smaller ones",
                        m, n, k, kMaxDim);
    const size_t splits = splits_of<T>(m, n, k);
    if (shape < 0) {
        const int prefer = f64 ? -1 : preferred_shape_f32(ta, tb, splits);
        shape = splits > 1 ? pick_shape(shapes, count, model, m, n,
                                        kSplitK<T>, splits, prefer)
                           : pick_shape(shapes, count, model, m, n, k, 1,
                                        prefer);
        if (tiles_of(shapes[shape], m, n) > (size_t)INT_MAX)
            shape = 0; /* the largest tile; refused below if still too many */
    }
    const size_t tiles = tiles_of(shapes[shape], m, n);
    if (tiles > (size_t)INT_MAX)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "m = %zu, n = %zu: C has %zu tiles of %d x %d, more "
                        "than the %d blocks of one launch; split C into "
                        "smaller products",
                        m, n, tiles, shapes[shape].bm, shapes[shape].bn,
                        INT_MAX);

    const size_t vw = 16 / sizeof(T); /* elements per 16 bytes */
    GemmParams<T> p;
    p.a = a;
    p.b = b;
    p.c = c;
    p.lda = lda;
    p.ldb = ldb;
    p.ldc = ldc;
    p.m = (int)m;
    p.n = (int)n;
    p.k = (int)k;
    p.tiles_m = 0; /* set by launch_shape */
    p.tiles_n = 0;
    p.alpha = alpha;
    p.beta = beta;
    p.vec_c = aligned16(c) && ldc % vw == 0;
    p.split_k = 0;
    p.split_stride = 0;
    const bool vec = aligned16(a) && lda % vw == 0 && aligned16(b) &&
                     ldb % vw == 0;
    if (splits > 1)
        return gemm_split(where, shape, p, ta, tb, vec, splits,
                          kernel.launch);
    return gemm_unsplit(where, shape, p, ta, tb, vec, pack, kernel.launch);
}

duo_status duo_be_gemm_f32(duo_transpose ta, duo_transpose tb, size_t m,
                           size_t n, size_t k, float alpha, const float *a,
                           size_t lda, const float *b, size_t ldb,
                           float beta, float *c, size_t ldc)
{
    duo_cuda_note_launch(NULL, "duo_gemm_f32", NULL, 0);
    return gemm("duo_gemm_f32", ta, tb, m, n, k, alpha, a, lda, b, ldb, beta,
                c, ldc);
}

duo_status duo_be_gemm_f64(duo_transpose ta, duo_transpose tb, size_t m,
                           size_t n, size_t k, double alpha,
                           const double *a, size_t lda, const double *b,
                           size_t ldb, double beta, double *c, size_t ldc)
{
    duo_cuda_note_launch(NULL, "duo_gemm_f64", NULL, 0);
    return gemm("duo_gemm_f64", ta, tb, m, n, k, alpha, a, lda, b, ldb, beta,
                c, ldc);
}
