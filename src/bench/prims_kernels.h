/*
 * prims_kernels.h - the kernels of duo-bench's prims group, written once
 * with duo's kernel macros (prims_kernels.c, which nvcc compiles in a
 * CUDA build): inputs for sort, compaction and histogram, the atomic
 * add pair (duo_atomic_add_u32 against the raw atomicAdd), and the
 * device-side comparisons of the checks.
 *
 * Every function that returns a duo_status may be wrapped in DUO_CHECK.
 * Fills and launches are asynchronous on the GPU; the comparisons are
 * user reductions, which write their result to host memory and so wait.
 */
#ifndef DUO_BENCH_PRIMS_KERNELS_H
#define DUO_BENCH_PRIMS_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <duo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bins of the atomic rows: each element adds 1 to bins[x[i] % BINS]. */
enum { BENCH_ATOMIC_BINS = 256 };

/* x[i]: 32 random bits, a pure function of (seed, i). */
duo_status bench_fill_u32(uint32_t *x, size_t n, uint64_t seed);
/* x[i] = k / 2^16 for a random integer k in [0, 2^24): values in
 * [0, 256) on which every way of computing an even bin over [0, 256)
 * agrees (v - 0 and v * 256 / 256 are exact in float and double), so a
 * histogram of them is the same for duo and for CUB. */
duo_status bench_fill_grid_f32(float *x, size_t n, uint64_t seed);
/* x[i] = a random integer in [0, 2^16) (i32): integer bins over
 * [0, 2^16) are exact in any arithmetic wider than 24 bits. */
duo_status bench_fill_grid_i32(int32_t *x, size_t n, uint64_t seed);
/* flags[i] = 1 for about half of the i (random), else 0. */
duo_status bench_fill_flags(uint8_t *flags, size_t n, uint64_t seed);

/* How many of a[0..n) and b[0..n) differ in their bits. */
duo_status bench_count_diff_u32(const uint32_t *a, const uint32_t *b,
                                size_t n, uint64_t *out);
/* How many i < n - 1 have a[i] > a[i + 1]: 0 for a sorted array. */
duo_status bench_count_descents_u32(const uint32_t *a, size_t n,
                                    uint64_t *out);
/* max |a[i] - b[i]| in double, a in float (NaN if any is NaN). */
duo_status bench_max_abs_diff_f32(const float *a, const float *b, size_t n,
                                  double *out);
duo_status bench_max_abs_diff_f32_f64(const float *a, const double *b,
                                      size_t n, double *out);
/* max |x[i]|. */
duo_status bench_max_abs_f64(const double *x, size_t n, double *out);

/* bins[x[i] % BENCH_ATOMIC_BINS] += 1 for every i, by
 * duo_atomic_add_u32 in a DUO_KERNEL (DUO_LAUNCH), or the way a
 * programmer without duo writes it: on CUDA a kernel calling atomicAdd,
 * launched <<<ceil(n/256), 256>>> with one element per thread (exit 1
 * on a launch failure); on the CPU an OpenMP loop with #pragma omp
 * atomic.  bins is not cleared. */
duo_status bench_duo_atomic_bins(const uint32_t *x, size_t n,
                                 uint32_t *bins);
void bench_raw_atomic_bins(const uint32_t *x, size_t n, uint32_t *bins);
/* What bench_raw_atomic_bins is, for the table. */
const char *bench_raw_atomic_name(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DUO_BENCH_PRIMS_KERNELS_H */
