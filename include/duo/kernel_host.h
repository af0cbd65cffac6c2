/*
 * duo/kernel_host.h - the host meaning of the index loops and of block
 * phases: what a kernel body does on the CPU.  Shared by the serial and
 * OpenMP builds (kernel_cpu.h) and by the host pass of a CUDA build
 * (kernel_cuda.h), so that the host path of a CUDA build runs the very
 * loops of the openmp build.  Included by <duo/kernel.h>; do not include
 * directly.
 *
 * DUO_FOR is a loop over the index space.  With OpenMP the outer loop is
 * shared among threads with a static schedule; the innermost loop carries
 * `omp simd`, which is sound because kernel indices are independent by
 * contract.  The serial build compiles with -fopenmp-simd so the simd
 * hints stay without a threading runtime.
 */
#ifndef DUO_KERNEL_HOST_H
#define DUO_KERNEL_HOST_H

#ifdef _OPENMP
#define DUO_PRAGMA_PARALLEL_FOR _Pragma("omp parallel for schedule(static)")
#define DUO_PRAGMA_PARALLEL_FOR_SIMD \
    _Pragma("omp parallel for simd schedule(static)")
#else
#define DUO_PRAGMA_PARALLEL_FOR
#define DUO_PRAGMA_PARALLEL_FOR_SIMD _Pragma("omp simd")
#endif
#define DUO_PRAGMA_SIMD _Pragma("omp simd")

#define DUO_FOR(i, n)                  \
    DUO_PRAGMA_PARALLEL_FOR_SIMD       \
    for (size_t i = 0; i < (size_t)(n); ++i)

#define DUO_FOR_2D(i, j, ni, nj)                   \
    DUO_PRAGMA_PARALLEL_FOR                        \
    for (size_t i = 0; i < (size_t)(ni); ++i)      \
        DUO_PRAGMA_SIMD                            \
        for (size_t j = 0; j < (size_t)(nj); ++j)

#define DUO_FOR_3D(i, j, k, ni, nj, nk)                    \
    DUO_PRAGMA_PARALLEL_FOR                                \
    for (size_t i = 0; i < (size_t)(ni); ++i)              \
        for (size_t j = 0; j < (size_t)(nj); ++j)          \
            DUO_PRAGMA_SIMD                                \
            for (size_t k = 0; k < (size_t)(nk); ++k)

/* ------------------------------------------------------------------ */
/* Block-level kernels: the kernel's body loops over the grid's blocks
 * (shared among OpenMP threads); each DUO_THREADS phase loops over the
 * block's threads, so a barrier is simply the end of a phase.  Shared and
 * private arrays are locals of the block's iteration, so each OpenMP
 * thread has its own.  The kernel function takes the grid as its first
 * parameter, duo_grid_. */

#define DUO_HOST_BLOCKS_BEGIN_(BX, BY)                                      \
    enum { duo_bdx_ = (BX), duo_bdy_ = (BY) };                              \
    const size_t duo_blocks_ = duo_grid_.x * duo_grid_.y;                   \
    DUO_PRAGMA_PARALLEL_FOR                                                 \
    for (size_t duo_block_ = 0; duo_block_ < duo_blocks_; ++duo_block_) {   \
        const size_t duo_bx_ = duo_block_ % duo_grid_.x;                    \
        const size_t duo_by_ = duo_block_ / duo_grid_.x;                    \
        (void)duo_bx_;                                                      \
        (void)duo_by_;
#define DUO_HOST_BLOCKS_END_ }

#define DUO_THREADS                                                 \
    for (size_t duo_ty_ = 0; duo_ty_ < (size_t)duo_bdy_; ++duo_ty_) \
        DUO_PRAGMA_SIMD                                             \
        for (size_t duo_tx_ = 0; duo_tx_ < (size_t)duo_bdx_; ++duo_tx_)

#define DUO_BARRIER ((void)0)
#define DUO_TX duo_tx_
#define DUO_TY duo_ty_
#define DUO_TID (duo_ty_ * (size_t)duo_bdx_ + duo_tx_)
#define DUO_BX duo_bx_
#define DUO_BY duo_by_
#define DUO_GRID_X duo_grid_.x
#define DUO_GRID_Y duo_grid_.y
#define DUO_BLOCK_X ((size_t)duo_bdx_)
#define DUO_BLOCK_Y ((size_t)duo_bdy_)
#define DUO_SHARED(type, name, count) type name[count]
#define DUO_PRIVATE(type, name) type name[duo_bdx_ * duo_bdy_]
#define DUO_PRIVATE_ARRAY(type, name, len) type name[duo_bdx_ * duo_bdy_][len]
#define DUO_MY(name) name[DUO_TID]

#endif /* DUO_KERNEL_HOST_H */
