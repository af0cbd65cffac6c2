/*
 * duo/kernel.h - write a kernel once, run it on the GPU or the CPU.
 *
 * A kernel source is an ordinary .c file in the common subset of C11 and
 * C++17 (cast malloc results, no designated initializers, no compound
 * literals, no VLAs).  A CUDA build compiles it with nvcc, a CPU build with the C
 * compiler; duo_add_executable() in CMake arranges this.
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
 * (queued on the stream, or the default stream); on CPU backends it has
 * finished when DUO_LAUNCH returns.  Set DUO_SYNC_LAUNCHES=1 to have a
 * CUDA build wait after each launch, so that a fault is reported against
 * the kernel that caused it.
 *
 * DUO_DEVICE marks helpers that kernels call; DUO_RESTRICT is C99's
 * restrict in a spelling that nvcc accepts too.
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
 * DUO_MAX; T is one of float, double, int32_t, int64_t, uint64_t.  Sums
 * accumulate in T.  n = 0 gives the identity: 0 for a sum, the largest
 * value of T (+inf for floating point) for DUO_MIN, the smallest (-inf) for
 * DUO_MAX.  DUO_MIN and DUO_MAX propagate NaN.  The order of the combining
 * is fixed for a given n on a given backend and machine, so every run
 * returns the same bits.
 */
#ifndef DUO_KERNEL_H
#define DUO_KERNEL_H

#include <stddef.h>
#include <stdint.h>

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

#if defined(__CUDACC__)
#include <duo/kernel_cuda.h>
#else
#include <duo/kernel_cpu.h>
#endif

#define DUO_LAUNCH(kernel, n, ...) \
    DUO_LAUNCH_ON(NULL, kernel, n, __VA_ARGS__)
#define DUO_LAUNCH_2D(kernel, ni, nj, ...) \
    DUO_LAUNCH_2D_ON(NULL, kernel, ni, nj, __VA_ARGS__)
#define DUO_LAUNCH_3D(kernel, ni, nj, nk, ...) \
    DUO_LAUNCH_3D_ON(NULL, kernel, ni, nj, nk, __VA_ARGS__)

#endif /* DUO_KERNEL_H */
