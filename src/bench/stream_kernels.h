/*
 * stream_kernels.h - duo-bench's own kernels, written once with duo's
 * kernel macros (stream_kernels.c): the random fills, the BabelStream
 * kernels on duo, the launch-overhead pair, and the device-side checks.
 *
 * The rest of duo-bench is plain C11; stream_kernels.c is compiled by
 * nvcc in a CUDA build, hence the extern "C".  Every function that
 * returns a duo_status may be wrapped in DUO_CHECK.  Launches are
 * asynchronous on the GPU; the user reductions (bench_*sum*,
 * bench_*dot*, bench_max_abs_diff) write their result to host memory
 * and so wait for the device.
 */
#ifndef DUO_BENCH_STREAM_KERNELS_H
#define DUO_BENCH_STREAM_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <duo.h>

/* ------------------------------------------------------------------ */
/* Random inputs: element i of a buffer filled with `seed` is a pure
 * function of (seed, i), so the device fills a buffer in one launch and
 * the host recomputes any element of it bit for bit (the gemm check does
 * so instead of copying A and B back).  Values are uniform in (-1, 1)
 * and never 0: an odd integer times a power of two, exact in float
 * (24 bits) and double (53 bits). */

DUO_DEVICE uint64_t bench_hash(uint64_t seed, uint64_t i)
{
    /* splitmix64 finalizer over a per-seed, per-index Weyl step. */
    uint64_t z = seed * 0x9E3779B97F4A7C15ull + (i + 1) * 0xD1B54A32D192ED03ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

DUO_DEVICE float bench_value_f32(uint64_t seed, uint64_t i)
{
    /* 2k + 1 - 2^24 for k in [0, 2^24): odd, |.| < 2^24. */
    const int32_t odd = (int32_t)((bench_hash(seed, i) >> 40) * 2u + 1u) -
                        (int32_t)16777216;
    return (float)odd * (1.0f / 16777216.0f);
}

DUO_DEVICE double bench_value_f64(uint64_t seed, uint64_t i)
{
    /* 2k + 1 - 2^53 for k in [0, 2^53): odd, |.| < 2^53. */
    const int64_t odd = (int64_t)((bench_hash(seed, i) >> 11) * 2u + 1u) -
                        (int64_t)9007199254740992ll;
    return (double)odd * (1.0 / 9007199254740992.0);
}

#ifdef __cplusplus
extern "C" {
#endif

/* x[i] = bench_value_*(seed, i) for 0 <= i < n (device memory). */
duo_status bench_fill_f32(float *x, size_t n, uint64_t seed);
duo_status bench_fill_f64(double *x, size_t n, uint64_t seed);

/* Sums for the reduce checks, accumulated in double by a duo user
 * reduction (an order independent of duo_reduce's). */
duo_status bench_sum_f32(const float *x, size_t n, double *out);
duo_status bench_abs_sum_f32(const float *x, size_t n, double *out);
duo_status bench_sum_f64(const double *x, size_t n, double *out);
duo_status bench_abs_sum_f64(const double *x, size_t n, double *out);
/* sum |a[i] b[i]|, the scale of the dot product's error bound. */
duo_status bench_abs_dot(const double *a, const double *b, size_t n,
                         double *out);
/* max |x[i] - y[i]| (NaN if any difference is NaN). */
duo_status bench_max_abs_diff(const double *x, const double *y, size_t n,
                              double *out);

/* BabelStream on duo (DUO_KERNEL + DUO_LAUNCH; dot a DUO_REDUCE_DEFINE
 * sum in double, result on the host):
 *   copy  c = a          mul  b = s c
 *   add   c = a + b      triad a = b + s c       dot  a . b */
duo_status bench_duo_copy(const double *a, double *c, size_t n);
duo_status bench_duo_mul(double *b, const double *c, double s, size_t n);
duo_status bench_duo_add(const double *a, const double *b, double *c,
                         size_t n);
duo_status bench_duo_triad(double *a, const double *b, const double *c,
                           double s, size_t n);
duo_status bench_duo_dot(const double *a, const double *b, size_t n,
                         double *out);

/* Launch overhead: `count` back-to-back launches of the same triad
 * kernel (stream_triad), by DUO_LAUNCH or the way a user without duo
 * would launch it: on CUDA stream_triad<<<ceil(n/256), 256>>> on the
 * default stream, checking cudaGetLastError after each launch (exit 1
 * on failure); on the CPU a direct call of the kernel function. */
duo_status bench_duo_triad_launches(double *a, const double *b,
                                    const double *c, double s, size_t n,
                                    size_t count);
void bench_raw_triad_launches(double *a, const double *b, const double *c,
                              double s, size_t n, size_t count);
/* What bench_raw_triad_launches does, for the table. */
const char *bench_raw_launch_name(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DUO_BENCH_STREAM_KERNELS_H */
