/*
 * bench_math.h - duo-bench's math group (bench_math.c): the throughput
 * of <duo/math.h>'s float functions against the backend's own math
 * library.
 */
#ifndef DUO_BENCH_MATH_H
#define DUO_BENCH_MATH_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* After duo_init().  For every function: n arguments (2^26; 2^22 with
 * quick) in device memory, one call per element in a kernel, duo's
 * function against the backend's own (CUDA's sinf, expf, ... without
 * fast math in a CUDA build; glibc's in CPU builds), median of reps
 * launches each; then the host side: one thread, a plain loop over 2^22
 * arguments, duo's function against glibc's.  Writes a Markdown table,
 * one row per function and side, to out; returns the worst ratio of
 * duo's throughput to the yardstick's. */
double bench_math_run(FILE *out, int quick);

#ifdef __cplusplus
}
#endif

#endif /* DUO_BENCH_MATH_H */
