/*
 * prims_kernels.c - the prims group's kernels, written once with duo's
 * kernel macros: nvcc compiles this file in a CUDA build, the C compiler
 * in a CPU build (prims_kernels.h says what each function does).  The
 * raw atomicAdd kernel of the atomic pair lives here too, under
 * __CUDACC__, beside the duo kernel it is measured against.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <duo.h>

#include "prims_kernels.h"
#include "stream_kernels.h" /* bench_hash */

/* ------------------------------------------------------------------ */
/* Inputs                                                              */

DUO_KERNEL(bench_fill_u32_kernel, size_t n, uint32_t *DUO_RESTRICT x,
           uint64_t seed)
{
    DUO_FOR(i, n)
        x[i] = (uint32_t)(bench_hash(seed, i) >> 32);
}

DUO_KERNEL(bench_fill_grid_f32_kernel, size_t n, float *DUO_RESTRICT x,
           uint64_t seed)
{
    DUO_FOR(i, n)
        x[i] = (float)(bench_hash(seed, i) >> 40) * (1.0f / 65536.0f);
}

DUO_KERNEL(bench_fill_grid_i32_kernel, size_t n, int32_t *DUO_RESTRICT x,
           uint64_t seed)
{
    DUO_FOR(i, n)
        x[i] = (int32_t)(bench_hash(seed, i) >> 48);
}

DUO_KERNEL(bench_fill_flags_kernel, size_t n, uint8_t *DUO_RESTRICT flags,
           uint64_t seed)
{
    DUO_FOR(i, n)
        flags[i] = (uint8_t)(bench_hash(seed, i) >> 63);
}

duo_status bench_fill_u32(uint32_t *x, size_t n, uint64_t seed)
{
    return DUO_LAUNCH(bench_fill_u32_kernel, n, n, x, seed);
}

duo_status bench_fill_grid_f32(float *x, size_t n, uint64_t seed)
{
    return DUO_LAUNCH(bench_fill_grid_f32_kernel, n, n, x, seed);
}

duo_status bench_fill_grid_i32(int32_t *x, size_t n, uint64_t seed)
{
    return DUO_LAUNCH(bench_fill_grid_i32_kernel, n, n, x, seed);
}

duo_status bench_fill_flags(uint8_t *flags, size_t n, uint64_t seed)
{
    return DUO_LAUNCH(bench_fill_flags_kernel, n, n, flags, seed);
}

/* ------------------------------------------------------------------ */
/* Comparisons                                                         */

typedef struct u32_pair_args {
    const uint32_t *a, *b;
} u32_pair_args;

typedef struct f32_pair_args {
    const float *a, *b;
} f32_pair_args;

typedef struct f32_f64_args {
    const float *a;
    const double *b;
} f32_f64_args;

typedef struct f64_one_args {
    const double *x;
} f64_one_args;

DUO_DEVICE uint64_t u32_differs(size_t i, u32_pair_args p)
{
    return p.a[i] != p.b[i] ? 1u : 0u;
}
DUO_DEVICE uint64_t u32_descends(size_t i, u32_pair_args p)
{
    return p.a[i] > p.a[i + 1] ? 1u : 0u;
}
DUO_DEVICE double f32_abs_diff(size_t i, f32_pair_args p)
{
    return fabs((double)p.a[i] - (double)p.b[i]);
}
DUO_DEVICE double f32_f64_abs_diff(size_t i, f32_f64_args p)
{
    return fabs((double)p.a[i] - p.b[i]);
}
DUO_DEVICE double f64_abs(size_t i, f64_one_args p)
{
    return fabs(p.x[i]);
}

DUO_REDUCE_DEFINE(bench_count_diff_u32_r, uint64_t, DUO_SUM, u32_differs,
                  u32_pair_args)
DUO_REDUCE_DEFINE(bench_count_descents_u32_r, uint64_t, DUO_SUM,
                  u32_descends, u32_pair_args)
DUO_REDUCE_DEFINE(bench_max_abs_diff_f32_r, double, DUO_MAX, f32_abs_diff,
                  f32_pair_args)
DUO_REDUCE_DEFINE(bench_max_abs_diff_f32_f64_r, double, DUO_MAX,
                  f32_f64_abs_diff, f32_f64_args)
DUO_REDUCE_DEFINE(bench_max_abs_f64_r, double, DUO_MAX, f64_abs,
                  f64_one_args)

duo_status bench_count_diff_u32(const uint32_t *a, const uint32_t *b,
                                size_t n, uint64_t *out)
{
    u32_pair_args p;
    p.a = a;
    p.b = b;
    return bench_count_diff_u32_r(n, p, out);
}

duo_status bench_count_descents_u32(const uint32_t *a, size_t n,
                                    uint64_t *out)
{
    u32_pair_args p;
    p.a = a;
    p.b = NULL;
    return bench_count_descents_u32_r(n > 0 ? n - 1 : 0, p, out);
}

duo_status bench_max_abs_diff_f32(const float *a, const float *b, size_t n,
                                  double *out)
{
    f32_pair_args p;
    p.a = a;
    p.b = b;
    return bench_max_abs_diff_f32_r(n, p, out);
}

duo_status bench_max_abs_diff_f32_f64(const float *a, const double *b,
                                      size_t n, double *out)
{
    f32_f64_args p;
    p.a = a;
    p.b = b;
    return bench_max_abs_diff_f32_f64_r(n, p, out);
}

duo_status bench_max_abs_f64(const double *x, size_t n, double *out)
{
    f64_one_args p;
    p.x = x;
    return bench_max_abs_f64_r(n, p, out);
}

/* ------------------------------------------------------------------ */
/* Atomic add: duo's, and the raw one                                  */

DUO_KERNEL(bench_atomic_bins_kernel, size_t n,
           const uint32_t *DUO_RESTRICT x, uint32_t *bins)
{
    DUO_FOR(i, n)
        duo_atomic_add_u32(&bins[x[i] % BENCH_ATOMIC_BINS], 1u);
}

duo_status bench_duo_atomic_bins(const uint32_t *x, size_t n,
                                 uint32_t *bins)
{
    return DUO_LAUNCH(bench_atomic_bins_kernel, n, n, x, bins);
}

#ifdef __CUDACC__

__global__ void bench_raw_atomic_bins_kernel(size_t n,
                                             const uint32_t *__restrict__ x,
                                             uint32_t *bins)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&bins[x[i] % BENCH_ATOMIC_BINS], 1u);
}

void bench_raw_atomic_bins(const uint32_t *x, size_t n, uint32_t *bins)
{
    if (n == 0)
        return;
    const size_t blocks = (n + 255) / 256;
    if (blocks > 0x7fffffffu) {
        fprintf(stderr, "duo-bench: raw atomic kernel: n = %zu needs more "
                "than 2^31-1 blocks of 256 threads\n", n);
        exit(1);
    }
    bench_raw_atomic_bins_kernel<<<(unsigned)blocks, 256>>>(n, x, bins);
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        fprintf(stderr, "duo-bench: bench_raw_atomic_bins_kernel<<<%zu, "
                "256>>> failed at %s:%d: %s (%s)\n", blocks, __FILE__,
                __LINE__, cudaGetErrorName(err), cudaGetErrorString(err));
        exit(1);
    }
}

const char *bench_raw_atomic_name(void)
{
    return "raw atomicAdd kernel";
}

#else

void bench_raw_atomic_bins(const uint32_t *x, size_t n, uint32_t *bins)
{
#pragma omp parallel for
    for (size_t i = 0; i < n; ++i) {
#pragma omp atomic
        bins[x[i] % BENCH_ATOMIC_BINS] += 1u;
    }
}

const char *bench_raw_atomic_name(void)
{
    return "omp atomic loop";
}

#endif
