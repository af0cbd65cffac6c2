/*
 * fp_kernel.h - the consumer's kernel outputs and its host reference
 * (reference.c), shared by main.c (a kernel source, CUDA C++ in a CUDA
 * build) and reference.c (plain C).
 */
#ifndef FP_KERNEL_H
#define FP_KERNEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Floats fp_kernel writes per element: p, q, r and the fmaf mix. */
#define FP_OUTPUTS 4

/* fp_kernel's outputs, every product rounded before its sum. */
void fp_reference(size_t n, float a0, const float *x, const float *y,
                  float *out);

/* The user reduction's terms, x[i] * y[i] + 0.1f, the product rounded
 * before the sum. */
void fp_terms(size_t n, const float *x, const float *y, float *out);

/* How many of the kernel's first steps, a0 * x[i] + y[i], round
 * differently when fused: > 0, or the data could not show contraction. */
size_t fp_fused_differs(size_t n, float a0, const float *x, const float *y);

#ifdef __cplusplus
}
#endif

#endif
