/*
 * fma_kernels.h - the kernels of duo-bench's fma group (bench_fma.c):
 * what duo's one arithmetic costs in a compute-bound kernel.
 *
 * duo compiles a bare a*b+c as a product rounded before its sum on every
 * backend (-ffp-contract=off, nvcc --fmad=false), so that it gives the
 * same bits everywhere.  Fusing it into one fma is what nvcc does by
 * default and what DUO_FAST_FMA=ON lets it do on the GPU; writing fmaf()
 * gets the fused speed with the same bits everywhere.  The group times one
 * kernel written both ways: 4 independent Horner chains of 64 steps per
 * element (512 flops per 4-byte input), bare (duo's default) against
 * fmaf (the yardstick: what fusion gives).  A ratio below 1 is the cost.
 *
 * bench_fma.c makes the group's rows from these.
 *
 * fma_kernels.c holds kernels: nvcc compiles it in a CUDA build (hence the
 * extern "C").
 */
#ifndef DUO_BENCH_FMA_KERNELS_H
#define DUO_BENCH_FMA_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <duo.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bench_fma {
    size_t n;                 /* elements */
    uint64_t seed;            /* x[i] = bench_value_f32(seed, i) */
    float *x;                 /* device: inputs in (-1, 1) */
    float *bare, *fused;      /* device: each kernel's outputs */
} bench_fma;

/* Device buffers for n >= 1 elements, the inputs filled from `seed`.
 * On failure nothing is left allocated. */
duo_status bench_fma_setup(bench_fma *f, size_t n, uint64_t seed);

/* One launch of each kernel (bench_op's form: ctx is a bench_fma *);
 * asynchronous on the GPU, a failed launch exits through DUO_CHECK. */
void bench_fma_bare(void *ctx);
void bench_fma_fused(void *ctx);

/* Both kernels' last outputs against host references, bit for bit;
 * `check` says what was compared (or the first difference).  1 when
 * both match. */
int bench_fma_check(const bench_fma *f, char *check, size_t size);

/* Floating-point operations per launch (a fused step counts 2). */
double bench_fma_flops(const bench_fma *f);

void bench_fma_teardown(bench_fma *f);

#ifdef __cplusplus
}
#endif

#endif
