/*
 * duo/kernel.h - write a kernel once, run it on the GPU or the CPU.
 *
 * A kernel source is an ordinary .c file in the common subset of C11 and
 * C++17 (cast malloc results, no designated initializers, no compound
 * literals, no VLAs).  A CUDA build compiles it with nvcc, a CPU build with the C
 * compiler; duo_add_executable() in CMake arranges this.  nvcc compiles
 * each kernel twice, for the GPU and as the OpenMP host code of the
 * openmp build, which a CUDA build runs where there is no GPU (or with
 * DUO_DEVICE=cpu); so a kernel body must be valid host code too (no
 * CUDA intrinsics outside #ifdef __CUDA_ARCH__).
 *
 *   DUO_KERNEL(saxpy, size_t n, float a, const float *x, float *y)
 *   {
 *       DUO_FOR(i, n)
 *           y[i] = a * x[i] + y[i];
 *   }
 *   ...
 *   DUO_CHECK(DUO_LAUNCH(saxpy, n, n, 2.0f, x, y));
 *
 * Index spaces: DUO_FOR(i, n) covers 0 <= i < n.  DUO_FOR_2D(i, j, ni, nj)
 * covers rows i and columns j, j varying fastest; DUO_FOR_3D(i, j, k, ni,
 * nj, nk) likewise with k fastest.  A kernel holds one DUO_FOR of the shape
 * it is launched with: DUO_LAUNCH / DUO_LAUNCH_2D / DUO_LAUNCH_3D.  Every
 * index must be independent of every other (as GPU threads are): no index
 * may read what another index writes in the same launch.
 *
 * Launches return a duo_status.  The kernel's name and the caller's
 * file:line appear in any error.  A launch is asynchronous on the GPU
 * (queued on the stream, or the default stream); on CPU backends and a
 * CUDA build's host path it has finished when DUO_LAUNCH returns.  A
 * kernel that faults on the GPU (an illegal address, say) is seen by a
 * later call; its error lists, for each stream, the kernels launched on
 * it since its last successful wait (synchronize, a copy to or from the
 * host, a reduction's result), with their file:line: the last 4, and
 * how many.  Set DUO_SYNC_LAUNCHES=1 to have a CUDA build wait after
 * each launch, so that a fault is reported against the one kernel that
 * caused it.
 *
 * DUO_DEVICE marks helpers that kernels call; DUO_RESTRICT is C99's
 * restrict in a spelling that nvcc accepts too.
 *
 * Block-level kernels: blocks of BX x BY threads that share scratch
 * memory and meet at barriers (CUDA's __shared__ and __syncthreads):
 *
 *   #define T 16
 *   DUO_BLOCK_KERNEL(tile_sum, T, T, size_t n, const float *x, float *out)
 *   {
 *       DUO_SHARED(float, tile, T * T);
 *       DUO_THREADS {
 *           size_t i = (DUO_BY * DUO_GRID_X + DUO_BX) * T * T + DUO_TID;
 *           tile[DUO_TID] = i < n ? x[i] : 0.0f;
 *       }
 *       DUO_BARRIER;
 *       DUO_THREADS {
 *           if (DUO_TID == 0) { ... read all of tile[] ... }
 *       }
 *   }
 *   DUO_BLOCK_KERNEL_END
 *   ...
 *   DUO_CHECK(DUO_LAUNCH_BLOCKS(tile_sum, gx, gy, n, x, out));
 *
 * On the GPU each thread runs the whole body.  On the CPU a block runs as
 * a sequence of phases: each DUO_THREADS { } runs for every thread of the
 * block before the next phase starts (blocks are shared among OpenMP
 * threads), so no CPU thread per GPU thread is needed.  Hence the rules:
 *  - Code outside DUO_THREADS runs once per block on the CPU and once per
 *    thread on the GPU: it must be the same for every thread (block
 *    indices, loop bounds, DUO_SHARED / DUO_PRIVATE declarations) and must
 *    not write memory.  Phases may sit inside such block-uniform loops.
 *  - Thread indices (DUO_TX, DUO_TY, DUO_TID) exist only inside
 *    DUO_THREADS.  Variables declared in a phase end with it; a value a
 *    thread keeps across a barrier lives in DUO_PRIVATE(type, name) or
 *    DUO_PRIVATE_ARRAY(type, name, len) and is used as DUO_MY(name).
 *  - Put DUO_BARRIER between a phase that writes shared memory and a
 *    phase that reads what another thread wrote, exactly as in CUDA.  A
 *    missing barrier shows only on the GPU; compute-sanitizer --tool
 *    racecheck finds it.
 *  - No return, break or continue that leaves a DUO_THREADS phase.
 * DUO_BX, DUO_BY are the block's indices, DUO_GRID_X, DUO_GRID_Y the
 * grid's size in blocks, DUO_BLOCK_X, DUO_BLOCK_Y the block's size.  A
 * grid with 0 blocks launches nothing.  On CUDA the grid's y size is at
 * most 65535.
 *
 * Atomics (duo_atomic_add_u64 and friends, returning the old value) are
 * in <duo/atomic.h>, included below, with what their bits depend on.
 *
 * User reductions: reduce an element function over 0 <= i < n.
 *
 *   typedef struct { uint64_t lo; } prime_args;
 *   DUO_DEVICE int64_t prime_or_zero(size_t i, prime_args a) { ... }
 *   DUO_REDUCE_DEFINE(largest_prime, int64_t, DUO_MAX, prime_or_zero,
 *                     prime_args)
 *   ...
 *   prime_args args = {2};
 *   int64_t p;
 *   DUO_CHECK(largest_prime(n, args, &p));
 *
 * defines  duo_status largest_prime(size_t n, prime_args args, int64_t *out)
 * which writes the result to host memory.  Operations: DUO_SUM, DUO_MIN,
 * DUO_MAX; T is one of float, double, int32_t, int64_t, uint64_t (the
 * element function's value is converted to T).
 *
 * The result is duo_reduce's over the n values v[i] = (T)fn(i, args),
 * bit for bit, on every backend, at every OpenMP thread count and on the
 * GPU: the values are combined in the one fixed order of
 * <duo/reduce_order.h>, which depends only on n and sizeof(T), as if v
 * were an array of the duo_dtype of T.  So, as in duo_reduce: a float sum
 * accumulates in double and is rounded to float once at the end (it is
 * (float) of duo_reduce(DUO_SUM, DUO_F32, v)); a double sum is
 * duo_reduce(DUO_SUM, DUO_F64, v); integer sums wrap (modulo 2^64, then
 * converted to T: modulo 2^32 for int32_t); min and max propagate NaN and
 * are duo_reduce(DUO_MIN / DUO_MAX, ...) of v.  This needs v[i] itself to
 * be the same bits on each backend, and each value to be rounded before
 * it is added: kernel sources compiled without floating-point contraction
 * on the host (as duo's build does); the GPU adds with round-to-nearest
 * adds that are never fused with a product in fn.  n = 0 gives the
 * identity: 0 for a sum, the largest value of T (+inf for floating point)
 * for DUO_MIN, the smallest (-inf) for DUO_MAX.
 */
#ifndef DUO_KERNEL_H
#define DUO_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include <duo/reduce_order.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Called by the launch macros; not for direct use.  begin checks that
 * duo_init() succeeded, end checks the launch (and on CUDA, with
 * DUO_SYNC_LAUNCHES=1, its execution). */
int duo_launch_begin(const char *kernel, duo_stream stream, const char *file,
                     int line);
duo_status duo_launch_end(const char *kernel, duo_stream stream,
                          const char *file, int line);
duo_status duo_launch_refused(void);
/* duo_launch_begin for a user reduction, which returns its value to the
 * host and so is refused inside a graph capture. */
int duo_host_result_begin(const char *kernel, const char *file, int line);
duo_status duo_reduce_result_missing(const char *kernel, const char *file,
                                     int line);

#ifdef __cplusplus
}
#endif

/* Combining rule shared by both backends: b replaces a when it is smaller
 * (larger), or when it is NaN, so NaN propagates.  For integers the NaN
 * test folds away. */
#define DUO_COMBINE_DUO_SUM(a, b) ((a) + (b))
#define DUO_COMBINE_DUO_MIN(a, b) (((b) < (a) || (b) != (b)) ? (b) : (a))
#define DUO_COMBINE_DUO_MAX(a, b) (((b) > (a) || (b) != (b)) ? (b) : (a))

/* Blocks in a block-level launch, and a helper to size grids. */
typedef struct duo_grid {
    size_t x, y;
} duo_grid;

static inline duo_grid duo_grid_make(size_t x, size_t y)
{
    duo_grid g;
    g.x = x;
    g.y = y;
    return g;
}

static inline size_t duo_ceil_div(size_t a, size_t b)
{
    return (a + b - 1) / b;
}

/* User reductions on the host (CPU builds and the host path of a CUDA
 * build), over Acc values (Acc)(T)fn(i, args).  Floating-point values
 * are combined in the order of <duo/reduce_order.h>, the chunks taken by
 * OpenMP threads on demand in shrinking blocks (element costs often vary
 * with the index).  Integer values give the same bits in any order (sums
 * wrap modulo 2^64, min and max are exact), so they are reduced in at
 * most DUO_HOST_REDUCE_PARTS_ parts of contiguous indices, taken on
 * demand one at a time, each in index order without lanes, where the
 * compiler vectorizes the loop as a reduction.  Defines
 *   static duo_status name_duo_host(size_t n, Args args, T *result),
 * which kernel_cpu.h and kernel_cuda.h call. */
#define DUO_HOST_REDUCE_PARTS_ 512
#define DUO_HOST_REDUCE_MIN_PART_ 2048
#define DUO_HOST_REDUCE_DEFINE_(name, T, Acc, OP, IDENTITY, fn, Args)        \
    static inline Acc name##_duo_lift(Args args, size_t i)                   \
    {                                                                        \
        return (Acc)(T)(fn(i, args));                                        \
    }                                                                        \
    DUO_ORDER_DEFINE_CHUNK(name##_duo_chunk, Acc, DUO_REDUCE_VEC(sizeof(T)), \
                           OP, IDENTITY, Args, name##_duo_lift,               \
                           DUO_ORDER_NO_HINT)                                 \
    DUO_ORDER_DEFINE_ALL(name##_duo_all, name##_duo_chunk, Acc,              \
                         DUO_REDUCE_VEC(sizeof(T)), OP, IDENTITY, Args,      \
                         guided)                                             \
    static Acc name##_duo_parts(Args args, size_t n)                         \
    {                                                                        \
        size_t part = (n + DUO_HOST_REDUCE_PARTS_ - 1) /                     \
                      DUO_HOST_REDUCE_PARTS_;                                \
        part = part < DUO_HOST_REDUCE_MIN_PART_ ? DUO_HOST_REDUCE_MIN_PART_  \
                                                : part;                      \
        const size_t tasks = (n + part - 1) / part;                          \
        Acc parts[DUO_HOST_REDUCE_PARTS_];                                   \
        DUO_ORDER_SHARE_dynamic                                              \
        for (size_t p = 0; p < tasks; ++p) {                                 \
            const size_t end = (p + 1) * part < n ? (p + 1) * part : n;      \
            Acc acc = IDENTITY;                                              \
            for (size_t i = p * part; i < end; ++i) {                        \
                const Acc v = name##_duo_lift(args, i);                      \
                acc = OP(acc, v);                                            \
            }                                                                \
            parts[p] = acc;                                                  \
        }                                                                    \
        Acc acc = IDENTITY;                                                  \
        for (size_t p = 0; p < tasks; ++p)                                   \
            acc = OP(acc, parts[p]);                                         \
        return acc;                                                          \
    }                                                                        \
    static duo_status name##_duo_host(size_t n, Args args, T *result)        \
    {                                                                        \
        if (result == NULL)                                                  \
            return duo_reduce_result_missing(#name, __FILE__, __LINE__);     \
        if (!duo_host_result_begin(#name, __FILE__, __LINE__))              \
            return duo_launch_refused();                                     \
        const int integer = (T)0.5 == (T)0;                                  \
        *result = (T)(integer ? name##_duo_parts(args, n)                    \
                              : name##_duo_all(args, n));                    \
        return duo_launch_end(#name, NULL, __FILE__, __LINE__);              \
    }

#include <duo/kernel_validate.h>

#if defined(__CUDACC__)
#include <duo/kernel_cuda.h>
#else
#include <duo/kernel_cpu.h>
#endif

/* Atomics for kernel bodies (they need DUO_DEVICE). */
#include <duo/atomic.h>

#define DUO_LAUNCH(kernel, n, ...) \
    DUO_LAUNCH_ON(NULL, kernel, n, __VA_ARGS__)
#define DUO_LAUNCH_2D(kernel, ni, nj, ...) \
    DUO_LAUNCH_2D_ON(NULL, kernel, ni, nj, __VA_ARGS__)
#define DUO_LAUNCH_3D(kernel, ni, nj, nk, ...) \
    DUO_LAUNCH_3D_ON(NULL, kernel, ni, nj, nk, __VA_ARGS__)
#define DUO_LAUNCH_BLOCKS(kernel, gx, gy, ...) \
    DUO_LAUNCH_BLOCKS_ON(NULL, kernel, gx, gy, __VA_ARGS__)

#endif /* DUO_KERNEL_H */
