/*
 * yardstick.h - what duo-bench measures duo against: the tool a user of
 * the backend would otherwise pick, called on the same device buffers in
 * the same process.  One implementation per build:
 *
 *   yardstick_cuda.cu  CUDA builds: CUB DeviceReduce (+ the result copied
 *                      to the host, as duo_reduce does), cuBLAS in
 *                      pedantic (strict fp32, no TF32) math mode,
 *                      hand-written grid-stride BabelStream kernels.
 *   yardstick_cpu.c    CPU builds: OpenMP loops (plain loops in the
 *                      serial build) and OpenBLAS's cblas_?gemm, when
 *                      OpenBLAS was found at configure time.
 *   yardstick_prims_cuda.cu, yardstick_prims_cpu.c, yardstick_sort.cpp
 *                      the primitives' (prims group): CUB's device-wide
 *                      algorithms; a two-pass OpenMP scan, std::sort and
 *                      per-thread private bins.
 *
 * Every function enqueues its work on the default stream (the legacy one
 * on CUDA, where duo's timers record their events) and returns; those
 * that return a value to the host wait for it.  measure.c times both
 * sides with the same duo_timer calls.  Any failure prints what failed
 * and exits 1.
 */
#ifndef DUO_BENCH_YARDSTICK_H
#define DUO_BENCH_YARDSTICK_H

#include <stddef.h>
#include <stdint.h>

#include <duo.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ys_info {
    /* Names for the table; gemm is NULL when there is no gemm yardstick
     * (then gemm_missing says why and what to do). */
    const char *reduce;
    const char *gemm;
    const char *stream;
    char gemm_missing[192];
    /* Versions of the tools, for the report. */
    char versions[256];
    /* Extra machine facts for the report ("" when none). */
    char machine[256];
    /* Last-level cache in bytes: buffers smaller than this are labelled
     * "latency" rather than "bandwidth" (GPU: L2; CPU: assumed 64 MB). */
    size_t cache_bytes;
    /* Unit roundoff of the yardstick's accumulation in a sum of the
     * given type (CUB sums f32 in f32; the OpenMP loop in double). */
    double sum_unit_f32, sum_unit_f64;
    /* Seconds the yardstick's worker threads keep spinning after a gemm
     * call (OpenBLAS's pthreads spin about 2^28 cycles, holding cores
     * that duo's threads need); 0 when none.  bench_gemm.c then times
     * the two sides of a gemm one after the other, waiting this long
     * before duo's, instead of alternating them. */
    double settle_seconds;
    int gpu;   /* 1 in a CUDA build */
} ys_info;

/* After duo_init().  threads: the CPU threads duo uses (the gemm
 * yardstick is given the same number). */
void ys_init(int threads, ys_info *info);
void ys_finalize(void);

/* Reduce n elements of device array x like duo_reduce, the result on the
 * host as a double (exact for min/max, and for a sum the yardstick's
 * value converted).  Returns 0, doing nothing, when the yardstick has no
 * such reduction. */
int ys_reduce(duo_reduce_op op, duo_dtype type, const void *x, size_t n,
              double *result);

/* The same reduction with its result left in device memory (*result:
 * the element type, double for f32 sums as duo_reduce_async writes them
 * or f32 for CUB); nothing is copied to the host.  Returns 0 where the
 * yardstick has no such form. */
int ys_reduce_device(duo_reduce_op op, duo_dtype type, const void *x,
                     size_t n, void *result);

/* CG for the 2-D Poisson problem on an ny x nx grid (cg_solver.h's
 * problem), written the way a programmer of the backend would without
 * duo: CUDA -- raw kernels, CUB reductions into device memory, the
 * scalars on the device, iterations captured in one CUDA graph; CPU --
 * OpenMP loops.  ys_cg_setup(b) prepares the buffers for device array
 * b; ys_cg_run queues x = 0, r = p = b and `iterations` iterations
 * (a multiple of 2) with no convergence test; ys_cg_x gives x (device
 * memory).  Returns 0 from setup when there is no such yardstick. */
int ys_cg_setup(size_t nx, size_t ny, const double *b, size_t iterations);
void ys_cg_run(void);
const double *ys_cg_x(void);
void ys_cg_free(void);

/* C = alpha op(A) op(B) + beta C, row-major, as duo_gemm_*.  Only when
 * ys_info.gemm is not NULL. */
void ys_gemm_f32(duo_transpose ta, duo_transpose tb, size_t m, size_t n,
                 size_t k, float alpha, const float *a, size_t lda,
                 const float *b, size_t ldb, float beta, float *c,
                 size_t ldc);
void ys_gemm_f64(duo_transpose ta, duo_transpose tb, size_t m, size_t n,
                 size_t k, double alpha, const double *a, size_t lda,
                 const double *b, size_t ldb, double beta, double *c,
                 size_t ldc);

/* BabelStream, hand-written (same meaning as bench_duo_* in
 * stream_kernels.h); dot returns its result on the host. */
void ys_stream_copy(const double *a, double *c, size_t n);
void ys_stream_mul(double *b, const double *c, double s, size_t n);
void ys_stream_add(const double *a, const double *b, double *c, size_t n);
void ys_stream_triad(double *a, const double *b, const double *c, double s,
                     size_t n);
double ys_stream_dot(const double *a, const double *b, size_t n);

/* ------------------------------------------------------------------ */
/* Primitives (the prims group).  CUDA: CUB's DeviceScan, DeviceRadixSort,
 * DeviceSelect and DeviceHistogram, called with int sizes (n < 2^31) and
 * their temporary storage allocated outside the timed calls (the first
 * call of a size allocates it).  CPU: a two-pass OpenMP scan, std::sort
 * (yardstick_sort.cpp, where CMake found a C++ compiler), a plain filter
 * loop, per-thread private bins merged.  Each function returns 0, doing
 * nothing, where the yardstick has no such operation; ys_prim_name then
 * says NULL and ys_prim_missing why. */

typedef enum ys_prim {
    YS_PRIM_SCAN,
    YS_PRIM_SORT,
    YS_PRIM_COMPACT,
    YS_PRIM_HISTOGRAM
} ys_prim;

/* The yardstick of a kind of primitive, for the table; NULL when none. */
const char *ys_prim_name(ys_prim p);
/* Why there is none ("" when there is one). */
const char *ys_prim_missing(ys_prim p);

/* Inclusive sum of f32 in f32 (CUB InclusiveSum; CPU: float partial
 * sums, two passes).  y may not be x. */
int ys_scan_sum_f32(const float *x, float *y, size_t n);
/* Exclusive sum of u32, wrapping modulo 2^32. */
int ys_scan_exclusive_u32(const uint32_t *x, uint32_t *y, size_t n);
/* Not timed, for checks: the inclusive sum of x in double, computed
 * independently of duo (CUB InclusiveSum over x converted to double;
 * CPU: a plain loop). */
void ys_scan_reference_f64(const float *x, double *y, size_t n);

/* Ascending sorts, out of place, input untouched. */
int ys_sort_u32(const uint32_t *in, uint32_t *out, size_t n);
int ys_sort_f32(const float *in, float *out, size_t n);
/* Stable by key. */
int ys_sort_pairs_u32(const uint32_t *keys_in, uint32_t *keys_out,
                      const uint32_t *values_in, uint32_t *values_out,
                      size_t n);

/* out[0 .. *count) = the in[i] with flags[i] != 0, in order; *count in
 * device memory. */
int ys_compact_f32(const float *in, const uint8_t *flags, float *out,
                   uint64_t *count, size_t n);

/* `bins` even bins over [lo, hi): counts[0 .. bins) (device memory)
 * overwritten; values outside dropped. */
int ys_histogram_f32(const float *x, size_t n, float lo, float hi, int bins,
                     int32_t *counts);
int ys_histogram_i32(const int32_t *x, size_t n, int32_t lo, int32_t hi,
                     int bins, int32_t *counts);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DUO_BENCH_YARDSTICK_H */
