/*
 * gemm_common.cuh - what the files of the CUDA gemm share: the
 * parameter block of the tile kernels and the host-side calls between
 * the files.
 *
 *   gemm.cu            duo_be_gemm_f32 / duo_be_gemm_f64 (the twin of
 *                      backend_cpu/gemm.c): checks, C = beta * C, the
 *                      choice of tile shape, split or packed or neither
 *   gemm_f32.cu        the f32 tile kernel, its shapes and launches
 *   gemm_f64_fma.cu    the f64 tile kernel on the FP64 units (DFMA, the
 *                      CPU's order and bits; the default), its shapes
 *                      and launches
 *   gemm_f64.cu        the f64 tile kernel on the FP64 tensor cores
 *                      (DMMA; DUO_GEMM_F64=tensor), its shapes and
 *                      launches
 *   gemm_split.cu      products split over k: the driver and the fold
 *   gemm_pack.cu       f32 products with B transposed once (packed)
 *   gemm_workspace.cu  the device memory that splitting and packing use
 *   gemm_tiles.cuh     device building blocks of the tile kernels
 *
 * Only host code crosses between the files: each kernel is defined and
 * launched in one file, and everything it calls is force-inlined into
 * it, so no kernel depends on how the files are cut.  Names with linkage
 * are in namespace duo_cuda_gemm; a template used by several files is
 * defined here, or explicitly instantiated for float and double where it
 * is defined.
 */
#ifndef DUO_CUDA_GEMM_COMMON_CUH
#define DUO_CUDA_GEMM_COMMON_CUH

#include <climits>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "backend.h"
#include "gemm_order.h"

namespace duo_cuda_gemm {

static constexpr int kMaxTile = 256; /* largest C tile edge of a block */

/* Largest m, n or k of a multiply: a tile offset plus one tile and one
 * k-slab must stay within int. */
static constexpr size_t kMaxDim = (size_t)INT_MAX - 2 * kMaxTile;

template <typename T> struct GemmParams {
    const T *a;
    const T *b;
    T *c;
    size_t lda, ldb, ldc;
    int m, n, k;
    int tiles_m, tiles_n;
    T alpha, beta;
    bool vec_c; /* c and ldc allow 16-byte accesses to C */
    /* Split-K: > 0 when block row blockIdx.y multiplies only k in
     * [y split_k, (y + 1) split_k) and writes its C tile (alpha * acc,
     * beta 0) to c + y split_stride; 0: one block row over all k. */
    int split_k;
    size_t split_stride;
};

inline bool aligned16(const void *p) { return (uintptr_t)p % 16 == 0; }

/* ------------------------------------------------------------------ */
/* Launch checks                                                       */

inline duo_status check_launch(const char *where, const char *kernel)
{
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        return duo_fail(DUO_ERROR_LAUNCH, where,
                        "kernel %s launch failed: %s; the CUDA backend "
                        "needs a GPU of compute capability 8.0 or newer",
                        kernel, cudaGetErrorString(err));
    return DUO_SUCCESS;
}

/* Shared memory above the 48 KB default must be opted into per kernel.
 * The callers do it once per kernel (a thread-safe static). */
template <typename P>
cudaError_t allow_smem(void (*kernel)(P), int bytes)
{
    const cudaError_t err = cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    if (err != cudaSuccess)
        cudaGetLastError(); /* reported by the caller, not the next launch */
    return err;
}

inline duo_status smem_failed(const char *where, const char *kernel,
                              int bytes, cudaError_t err)
{
    return duo_fail(DUO_ERROR_LAUNCH, where,
                    "cudaFuncSetAttribute(%s, %d bytes of shared memory) "
                    "failed: %s; the CUDA backend needs a GPU of compute "
                    "capability 8.0 or newer",
                    kernel, bytes, cudaGetErrorString(err));
}

/* Blocks of a kernel that fit on one SM (registers, shared memory,
 * threads), as the CUDA runtime counts them for this GPU; 1 if it cannot
 * say. */
template <typename P>
int resident_blocks(void (*kernel)(P), int threads, int smem)
{
    int blocks = 0;
    if (allow_smem(kernel, smem) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads,
                                                      (size_t)smem) !=
            cudaSuccess) {
        cudaGetLastError();
        blocks = 1;
    }
    return blocks > 0 ? blocks : 1;
}

/* ------------------------------------------------------------------ */
/* Tile shapes (gemm_f32.cu, gemm_f64_fma.cu, gemm_f64.cu), chosen in   */
/* gemm.cu                                                             */

/* What the host knows of a shape: its name (as DUO_GEMM_TILE spells it),
 * tile and warps, how many blocks share an SM, and its speed.  Speed:
 * an SM running W warps of the shape multiplies at peak * W / (W + half)
 * (GFLOP/s): latency hidden by more warps, up to the peak that the
 * shape's ratio of FFMA or DMMA to shared-memory loads allows. */
struct ShapeInfo {
    const char *name;
    int bm, bn, warps;
    int (*resident)(void);
    double peak, half;
};

/* The rest of the time model, per precision: each block costs k + k_extra
 * iterations of k (its prologue and epilogue), each wave of blocks on an
 * SM wave_us more (the pipeline filling). */
struct TimeModel {
    double k_extra, wave_us;
};

/* A precision's shapes, largest first, and its time model. */
struct ShapeSet {
    const ShapeInfo *shapes;
    int count;
    TimeModel model;
};

/* f32; f64 by DFMA (the default) and by DMMA (DUO_GEMM_F64=tensor). */
extern const ShapeSet kShapesF32, kShapesF64Fma, kShapesF64;
extern const int kShapeF32Tall; /* 64 x 128 in kShapesF32 */

/* Shape `shape` of the set, on the product p, transposes ta and tb,
 * `vec`: A and B allow 16-byte copies; `splits` block rows (split-K,
 * p.split_k > 0) or 1: launch_index for kShapesF32 and kShapesF64,
 * launch_index_fma for kShapesF64Fma. */
duo_status launch_index(int shape, const GemmParams<float> &p,
                        duo_transpose ta, duo_transpose tb, bool vec,
                        unsigned splits);
duo_status launch_index(int shape, const GemmParams<double> &p,
                        duo_transpose ta, duo_transpose tb, bool vec,
                        unsigned splits);
duo_status launch_index_fma(int shape, const GemmParams<double> &p,
                            duo_transpose ta, duo_transpose tb, bool vec,
                            unsigned splits);

/* One of those: the kernel family that multiplies a product of T. */
template <typename T>
using LaunchIndex = duo_status (*)(int shape, const GemmParams<T> &p,
                                   duo_transpose ta, duo_transpose tb,
                                   bool vec, unsigned splits);

/* f(TA, TB, VEC), the run-time transposes and alignment passed as
 * std::bool_constant: each kernel has an instance for each of the 8
 * combinations, and this picks the one to launch. */
template <class F>
duo_status with_layout(duo_transpose ta, duo_transpose tb, bool vec, F &&f)
{
    using Y = std::true_type;
    using N = std::false_type;
    if (ta == DUO_TRANS) {
        if (tb == DUO_TRANS)
            return vec ? f(Y(), Y(), Y()) : f(Y(), Y(), N());
        return vec ? f(Y(), N(), Y()) : f(Y(), N(), N());
    }
    if (tb == DUO_TRANS)
        return vec ? f(N(), Y(), Y()) : f(N(), Y(), N());
    return vec ? f(N(), N(), Y()) : f(N(), N(), N());
}

/* ------------------------------------------------------------------ */
/* Split-K (gemm_split.cu)                                             */

/* Which products split, and where: the blocked order of gemm_order.h
 * (duo_gemm_order_kblock), a function of (m, n, k) alone, never of the
 * GPU, the tile shape or the f64 kernel; the parts are its k blocks.
 * f32: M N <= 2^19 and at least 4 blocks of 384 (K > 1152), f64: M N <=
 * 2^19 and K > 2048. */
/* k per part of a split f64 product.  On an H200, against the unsplit
 * product (three alternating runs each): 64 x 8192 x 8192 237-239 ->
 * 213-218 us, 2048 x 64 x 4096 81-83 -> 50-53 us, 1000 x 70 x 9000
 * 167-170 -> 65-68 us, 724 x 724 x 12772 502-508 -> 325-334 us; 8192 x
 * 64 x 8192 218-222 -> 216-219 us.  On an H100 the same gains but for
 * the two that stream 512 MB of one operand: 64 x 8192 x 8192 236-239
 * -> 251-253 us, 8192 x 64 x 8192 236-246 -> 271-274 us. */
static constexpr size_t kSplitKF64 = DUO_GEMM_ORDER_KBLOCK_F64;
static_assert(kSplitKF64 == 2048, "the parts timed above");
static_assert(DUO_GEMM_KBLOCK_F32 == DUO_GEMM_ORDER_KBLOCK_F32,
              "the CPU's f32 k block is the order's");

/* k per part of a split product of T (the order's k block). */
template <typename T> static constexpr size_t kSplitK =
    sizeof(T) == 4 ? DUO_GEMM_ORDER_KBLOCK_F32 : DUO_GEMM_ORDER_KBLOCK_F64;

/* Parts to split into, 1: no split. */
template <typename T> size_t splits_of(size_t m, size_t n, size_t k)
{
    const size_t kb = duo_gemm_order_kblock(sizeof(T), m, n, k);
    return kb == 0 ? 1 : (k + kb - 1) / kb;
}

/* The product p in `splits` parts over k, with tile shape `shape` of the
 * kernel family `launch` for each (float and double). */
template <typename T>
duo_status gemm_split(const char *where, int shape, const GemmParams<T> &p,
                      duo_transpose ta, duo_transpose tb, bool vec,
                      size_t splits, LaunchIndex<T> launch);

/* ------------------------------------------------------------------ */
/* Packing B (gemm_pack.cu)                                            */

/* DUO_GEMM_PACK as *mode: -1 by the size rule, 0 never, 1 always. */
duo_status pack_mode(const char *where, int *mode);
/* Whether an unsplit f32 product packs its B. */
bool pack_b(int mode, const GemmParams<float> &p, duo_transpose tb);
/* The product with B packed (or as stored, where there is no room). */
duo_status gemm_packed_f32(const char *where, int shape, GemmParams<float> p,
                           duo_transpose ta, bool vec);

/* ------------------------------------------------------------------ */
/* Workspace (gemm_workspace.cu)                                       */

/* The largest packed B (see gemm_pack.cu): 8192^2 floats; what the
 * workspace keeps between calls. */
static constexpr size_t kPackMaxBytes = (size_t)256 << 20;

/* *w = `bytes` of workspace, stream-ordered on the default stream (float
 * and double). */
template <typename T>
duo_status workspace_alloc(const char *where, T **w, size_t bytes,
                           bool optional = false);

} // namespace duo_cuda_gemm

#endif /* DUO_CUDA_GEMM_COMMON_CUH */
