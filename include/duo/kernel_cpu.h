/*
 * duo/kernel_cpu.h - the CPU (serial and OpenMP) meaning of the kernel
 * macros.  Included by <duo/kernel.h>; do not include directly.
 *
 * A kernel is a plain function and DUO_FOR a loop over its index space.
 * With OpenMP the outer loop is shared among threads with a static
 * schedule; the innermost loop carries `omp simd`, which is sound because
 * kernel indices are independent by contract.  The serial build compiles
 * with -fopenmp-simd so the simd hints stay without a threading runtime.
 */
#ifndef DUO_KERNEL_CPU_H
#define DUO_KERNEL_CPU_H

#include <math.h>

#define DUO_RESTRICT restrict
#define DUO_DEVICE static inline
#define DUO_KERNEL(name, ...) void name(__VA_ARGS__)

#ifdef _OPENMP
#define DUO_PRAGMA_PARALLEL_FOR _Pragma("omp parallel for schedule(static)")
#define DUO_PRAGMA_PARALLEL_FOR_DYNAMIC \
    _Pragma("omp parallel for schedule(dynamic)")
#define DUO_PRAGMA_PARALLEL_FOR_SIMD \
    _Pragma("omp parallel for simd schedule(static)")
#else
#define DUO_PRAGMA_PARALLEL_FOR
#define DUO_PRAGMA_PARALLEL_FOR_DYNAMIC
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

/* The stream is accepted for symmetry with CUDA; CPU work runs at once. */
#define DUO_CPU_LAUNCH_(stream, kernel, ...)                          \
    (duo_launch_begin(#kernel, stream, __FILE__, __LINE__)            \
         ? (kernel(__VA_ARGS__),                                      \
            duo_launch_end(#kernel, stream, __FILE__, __LINE__))      \
         : duo_launch_refused())

#define DUO_LAUNCH_ON(stream, kernel, n, ...) \
    ((void)(n), DUO_CPU_LAUNCH_(stream, kernel, __VA_ARGS__))
#define DUO_LAUNCH_2D_ON(stream, kernel, ni, nj, ...) \
    ((void)(ni), (void)(nj), DUO_CPU_LAUNCH_(stream, kernel, __VA_ARGS__))
#define DUO_LAUNCH_3D_ON(stream, kernel, ni, nj, nk, ...)  \
    ((void)(ni), (void)(nj), (void)(nk),                    \
     DUO_CPU_LAUNCH_(stream, kernel, __VA_ARGS__))

/* ------------------------------------------------------------------ */
/* Block-level kernels: the kernel loops over the grid's blocks (shared
 * among OpenMP threads); each DUO_THREADS phase loops over the block's
 * threads, so a barrier is simply the end of a phase.  Shared and private
 * arrays are locals of the block's iteration, so each OpenMP thread has
 * its own. */

#define DUO_BLOCK_KERNEL(name, BX, BY, ...)                                 \
    enum { name##_duo_block_x = (BX), name##_duo_block_y = (BY) };          \
    void name(duo_grid duo_grid_, __VA_ARGS__)                              \
    {                                                                       \
        enum { duo_bdx_ = (BX), duo_bdy_ = (BY) };                          \
        const size_t duo_blocks_ = duo_grid_.x * duo_grid_.y;               \
        DUO_PRAGMA_PARALLEL_FOR                                             \
        for (size_t duo_block_ = 0; duo_block_ < duo_blocks_; ++duo_block_) { \
            const size_t duo_bx_ = duo_block_ % duo_grid_.x;                \
            const size_t duo_by_ = duo_block_ / duo_grid_.x;                \
            (void)duo_bx_;                                                  \
            (void)duo_by_;
#define DUO_BLOCK_KERNEL_END \
        }                    \
    }

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

#define DUO_LAUNCH_BLOCKS_ON(stream, kernel, gx, gy, ...) \
    DUO_CPU_LAUNCH_(stream, kernel, duo_grid_make(gx, gy), __VA_ARGS__)

/* ------------------------------------------------------------------ */
/* User reductions.  The index space is cut into at most
 * DUO_CPU_REDUCE_PARTS contiguous parts whose size depends only on n;
 * each part is reduced in index order and the parts are combined in
 * order, so the bits do not depend on the number of threads.  Parts are
 * handed out dynamically: element costs often vary with the index. */

#define DUO_CPU_REDUCE_PARTS 512
#define DUO_CPU_REDUCE_MIN_PART 2048

static inline size_t duo_cpu_reduce_part_size(size_t n)
{
    size_t part = (n + DUO_CPU_REDUCE_PARTS - 1) / DUO_CPU_REDUCE_PARTS;
    return part < DUO_CPU_REDUCE_MIN_PART ? DUO_CPU_REDUCE_MIN_PART : part;
}

#define DUO_IDENTITY_DUO_SUM(T) ((T)0)
#define DUO_IDENTITY_DUO_MIN(T) duo_cpu_highest_(T)
#define DUO_IDENTITY_DUO_MAX(T) duo_cpu_lowest_(T)

#define duo_cpu_highest_(T)                                           \
    _Generic((T)0, float: (T)INFINITY, double: (T)INFINITY,           \
             int: (T)INT32_MAX, long: (T)INT64_MAX,                   \
             long long: (T)INT64_MAX, unsigned long: (T)UINT64_MAX,   \
             unsigned long long: (T)UINT64_MAX)
#define duo_cpu_lowest_(T)                                            \
    _Generic((T)0, float: (T)-INFINITY, double: (T)-INFINITY,         \
             int: (T)INT32_MIN, long: (T)INT64_MIN,                   \
             long long: (T)INT64_MIN, unsigned long: (T)0,            \
             unsigned long long: (T)0)

#define DUO_REDUCE_DEFINE(name, T, op, fn, Args)                             \
    duo_status name(size_t n, Args args, T *result)                          \
    {                                                                        \
        if (result == NULL)                                                  \
            return duo_reduce_result_missing(#name, __FILE__, __LINE__);     \
        if (!duo_host_result_begin(#name, __FILE__, __LINE__))              \
            return duo_launch_refused();                                     \
        const size_t part = duo_cpu_reduce_part_size(n);                     \
        const size_t nparts = (n + part - 1) / part;                         \
        T parts[DUO_CPU_REDUCE_PARTS];                                       \
        DUO_PRAGMA_PARALLEL_FOR_DYNAMIC                                      \
        for (size_t p = 0; p < nparts; ++p) {                                \
            const size_t end = (p + 1) * part < n ? (p + 1) * part : n;      \
            T acc = DUO_IDENTITY_##op(T);                                    \
            for (size_t i = p * part; i < end; ++i) {                        \
                const T v = (T)(fn(i, args));                                \
                acc = DUO_COMBINE_##op(acc, v);                              \
            }                                                                \
            parts[p] = acc;                                                  \
        }                                                                    \
        T acc = DUO_IDENTITY_##op(T);                                        \
        for (size_t p = 0; p < nparts; ++p)                                  \
            acc = DUO_COMBINE_##op(acc, parts[p]);                           \
        *result = acc;                                                       \
        return duo_launch_end(#name, NULL, __FILE__, __LINE__);              \
    }

#endif /* DUO_KERNEL_CPU_H */
