/*
 * math_kernels.h - the kernels of duo-bench's math group (bench_math.c):
 * <duo/math.h>'s float and double functions against the backend's own
 * math library, one call per element.
 *
 * Device side: a kernel over n arguments in device memory, duo's
 * function against the backend's own (CUDA's expf, sinf, ... built
 * without fast math in a CUDA build; glibc's, on the OpenMP threads, in
 * CPU builds).  Host side: one thread, a plain loop over host_n
 * arguments, duo's function against glibc's.  Arguments lie where each
 * function is used (exp: [-80, 80], log: (0, 1e6], sin: [-100, 100],
 * asin: [-1, 1], powf and pow: x in (0, 4], y in [-8, 8], ...; the
 * double functions over the same ranges), from a
 * hash of the index.
 *
 * math_kernels.c holds kernels: nvcc compiles it in a CUDA build (hence
 * the extern "C").
 */
#ifndef DUO_BENCH_MATH_KERNELS_H
#define DUO_BENCH_MATH_KERNELS_H

#include <stddef.h>

#include <duo.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bench_math {
    int f;                   /* the function: an MF_ number, or an MD_
                                number when dbl */
    int dbl;                 /* 1 for a double function */
    int index;               /* as bench_math_name numbers it */
    size_t n, host_n;        /* arguments: device side, host side */
    float *x, *y;            /* host: the arguments (y: second argument) */
    float *duo, *ys;         /* host: each side's last outputs */
    float *dx, *dy, *dout;   /* device: arguments, outputs */
    double *xd, *yd, *duod, *ysd;  /* the same for a double function */
    double *dxd, *dyd, *doutd;
} bench_math;

/* The functions: how many, and the name of function i ("expf",
 * "sincosf.sin", ..., then the double ones, "exp", "sincos.sin", ...):
 * i < MF_COUNT is float function i, then double function i - MF_COUNT. */
int bench_math_count(void);
const char *bench_math_name(int i);

/* Buffers for function i (numbered as bench_math_name's) over
 * n >= host_n >= 1 arguments, filled and copied to the device.  On
 * failure nothing is left allocated. */
duo_status bench_math_setup(bench_math *m, int i, size_t n, size_t host_n);
void bench_math_teardown(bench_math *m);

/* One run of a side (bench_op's form: ctx is a bench_math *).  The
 * kernels are asynchronous on the GPU; a failed launch exits through
 * DUO_CHECK.  The host loops write m->duo and m->ys. */
void bench_math_kernel_duo(void *ctx);
void bench_math_kernel_ys(void *ctx);
void bench_math_host_duo(void *ctx);
void bench_math_host_ys(void *ctx);

/* After one run of each kernel (kernels = 1) or host loop (0): their
 * outputs over the first host_n arguments.  duo's must be the bits of
 * duo's function on the host; the yardstick's within 4 ulps of them (or
 * both NaN).  `check` says what was compared, or the first difference;
 * 1 when both hold. */
int bench_math_check(bench_math *m, int kernels, char *check, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* DUO_BENCH_MATH_KERNELS_H */
