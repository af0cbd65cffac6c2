/*
 * stream_kernels.c - duo-bench's kernels, written once with duo's kernel
 * macros: nvcc compiles this file in a CUDA build, the C compiler in a
 * CPU build (see stream_kernels.h for what each function does).
 *
 * The BabelStream kernels are what a duo user would write: one DUO_FOR
 * per kernel, DUO_RESTRICT pointers, and dot as a user reduction in
 * double.  The raw triad launch of the launch-overhead pair lives here
 * too, under __CUDACC__, because it must launch the very kernel that
 * DUO_LAUNCH launches (DUO_CUDA_ENTRY(stream_triad)).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <duo.h>

#include "stream_kernels.h"

/* ------------------------------------------------------------------ */
/* Random fills                                                        */

DUO_KERNEL(bench_fill_f32_kernel, size_t n, float *DUO_RESTRICT x,
           uint64_t seed)
{
    DUO_FOR(i, n)
        x[i] = bench_value_f32(seed, i);
}

DUO_KERNEL(bench_fill_f64_kernel, size_t n, double *DUO_RESTRICT x,
           uint64_t seed)
{
    DUO_FOR(i, n)
        x[i] = bench_value_f64(seed, i);
}

duo_status bench_fill_f32(float *x, size_t n, uint64_t seed)
{
    return DUO_LAUNCH(bench_fill_f32_kernel, n, n, x, seed);
}

duo_status bench_fill_f64(double *x, size_t n, uint64_t seed)
{
    return DUO_LAUNCH(bench_fill_f64_kernel, n, n, x, seed);
}

/* ------------------------------------------------------------------ */
/* Check reductions (double accumulation)                              */

typedef struct bench_f32_args {
    const float *x;
} bench_f32_args;

typedef struct bench_f64_args {
    const double *x;
} bench_f64_args;

typedef struct bench_pair_args {
    const double *x;
    const double *y;
} bench_pair_args;

DUO_DEVICE double bench_f32_elem(size_t i, bench_f32_args a)
{
    return (double)a.x[i];
}
DUO_DEVICE double bench_f32_abs_elem(size_t i, bench_f32_args a)
{
    return fabs((double)a.x[i]);
}
DUO_DEVICE double bench_f64_elem(size_t i, bench_f64_args a)
{
    return a.x[i];
}
DUO_DEVICE double bench_f64_abs_elem(size_t i, bench_f64_args a)
{
    return fabs(a.x[i]);
}
DUO_DEVICE double bench_dot_elem(size_t i, bench_pair_args a)
{
    return a.x[i] * a.y[i];
}
DUO_DEVICE double bench_abs_dot_elem(size_t i, bench_pair_args a)
{
    return fabs(a.x[i] * a.y[i]);
}
DUO_DEVICE double bench_diff_elem(size_t i, bench_pair_args a)
{
    return fabs(a.x[i] - a.y[i]);
}

DUO_REDUCE_DEFINE(bench_sum_f32_r, double, DUO_SUM, bench_f32_elem,
                  bench_f32_args)
DUO_REDUCE_DEFINE(bench_abs_sum_f32_r, double, DUO_SUM, bench_f32_abs_elem,
                  bench_f32_args)
DUO_REDUCE_DEFINE(bench_sum_f64_r, double, DUO_SUM, bench_f64_elem,
                  bench_f64_args)
DUO_REDUCE_DEFINE(bench_abs_sum_f64_r, double, DUO_SUM, bench_f64_abs_elem,
                  bench_f64_args)
DUO_REDUCE_DEFINE(bench_abs_dot_r, double, DUO_SUM, bench_abs_dot_elem,
                  bench_pair_args)
DUO_REDUCE_DEFINE(bench_max_abs_diff_r, double, DUO_MAX, bench_diff_elem,
                  bench_pair_args)
/* BabelStream's dot, as a duo user writes it. */
DUO_REDUCE_DEFINE(stream_dot, double, DUO_SUM, bench_dot_elem,
                  bench_pair_args)

duo_status bench_sum_f32(const float *x, size_t n, double *out)
{
    bench_f32_args args;
    args.x = x;
    return bench_sum_f32_r(n, args, out);
}

duo_status bench_abs_sum_f32(const float *x, size_t n, double *out)
{
    bench_f32_args args;
    args.x = x;
    return bench_abs_sum_f32_r(n, args, out);
}

duo_status bench_sum_f64(const double *x, size_t n, double *out)
{
    bench_f64_args args;
    args.x = x;
    return bench_sum_f64_r(n, args, out);
}

duo_status bench_abs_sum_f64(const double *x, size_t n, double *out)
{
    bench_f64_args args;
    args.x = x;
    return bench_abs_sum_f64_r(n, args, out);
}

duo_status bench_abs_dot(const double *a, const double *b, size_t n,
                         double *out)
{
    bench_pair_args args;
    args.x = a;
    args.y = b;
    return bench_abs_dot_r(n, args, out);
}

duo_status bench_max_abs_diff(const double *x, const double *y, size_t n,
                              double *out)
{
    bench_pair_args args;
    args.x = x;
    args.y = y;
    return bench_max_abs_diff_r(n, args, out);
}

/* ------------------------------------------------------------------ */
/* BabelStream on duo                                                  */

DUO_KERNEL(stream_copy, size_t n, const double *DUO_RESTRICT a,
           double *DUO_RESTRICT c)
{
    DUO_FOR(i, n)
        c[i] = a[i];
}

DUO_KERNEL(stream_mul, size_t n, double *DUO_RESTRICT b,
           const double *DUO_RESTRICT c, double s)
{
    DUO_FOR(i, n)
        b[i] = s * c[i];
}

DUO_KERNEL(stream_add, size_t n, const double *DUO_RESTRICT a,
           const double *DUO_RESTRICT b, double *DUO_RESTRICT c)
{
    DUO_FOR(i, n)
        c[i] = a[i] + b[i];
}

DUO_KERNEL(stream_triad, size_t n, double *DUO_RESTRICT a,
           const double *DUO_RESTRICT b, const double *DUO_RESTRICT c,
           double s)
{
    DUO_FOR(i, n)
        a[i] = b[i] + s * c[i];
}

duo_status bench_duo_copy(const double *a, double *c, size_t n)
{
    return DUO_LAUNCH(stream_copy, n, n, a, c);
}

duo_status bench_duo_mul(double *b, const double *c, double s, size_t n)
{
    return DUO_LAUNCH(stream_mul, n, n, b, c, s);
}

duo_status bench_duo_add(const double *a, const double *b, double *c,
                         size_t n)
{
    return DUO_LAUNCH(stream_add, n, n, a, b, c);
}

duo_status bench_duo_triad(double *a, const double *b, const double *c,
                           double s, size_t n)
{
    return DUO_LAUNCH(stream_triad, n, n, a, b, c, s);
}

duo_status bench_duo_dot(const double *a, const double *b, size_t n,
                         double *out)
{
    bench_pair_args args;
    args.x = a;
    args.y = b;
    return stream_dot(n, args, out);
}

/* ------------------------------------------------------------------ */
/* Launch overhead                                                     */

duo_status bench_duo_triad_launches(double *a, const double *b,
                                    const double *c, double s, size_t n,
                                    size_t count)
{
    for (size_t r = 0; r < count; ++r) {
        const duo_status status = DUO_LAUNCH(stream_triad, n, n, a, b, c, s);
        if (status != DUO_SUCCESS)
            return status;
    }
    return DUO_SUCCESS;
}

#ifdef __CUDACC__

void bench_raw_triad_launches(double *a, const double *b, const double *c,
                              double s, size_t n, size_t count)
{
    if (n == 0)
        return;
    const size_t blocks = (n + 255) / 256;
    if (blocks > 0x7fffffffu) {
        fprintf(stderr, "duo-bench: raw triad launch: n = %zu needs more "
                "than 2^31-1 blocks of 256 threads\n", n);
        exit(1);
    }
    const unsigned grid = (unsigned)blocks;
    for (size_t r = 0; r < count; ++r) {
        DUO_CUDA_ENTRY(stream_triad)<<<grid, 256>>>(n, a, b, c, s);
        const cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess) {
            fprintf(stderr, "duo-bench: stream_triad<<<%u, 256>>> (raw "
                    "launch) failed at %s:%d: %s (%s)\n", grid, __FILE__,
                    __LINE__, cudaGetErrorName(err), cudaGetErrorString(err));
            exit(1);
        }
    }
}

const char *bench_raw_launch_name(void)
{
    return "raw <<<n/256,256>>>";
}

#else

void bench_raw_triad_launches(double *a, const double *b, const double *c,
                              double s, size_t n, size_t count)
{
    for (size_t r = 0; r < count; ++r)
        stream_triad(n, a, b, c, s);
}

const char *bench_raw_launch_name(void)
{
    return "direct call";
}

#endif
