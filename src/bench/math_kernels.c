/*
 * math_kernels.c - duo-bench's math group's kernels (math_kernels.h).
 *
 * The kernels are written once with duo's macros, so in a CUDA build
 * nvcc compiles them for the GPU (where expf, sinf, ... are CUDA's own
 * functions, built without fast math) and for the host path; in CPU
 * builds the yardstick is glibc.
 *
 * A kernel source: nvcc compiles it in a CUDA build.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sincosf in glibc (g++ defines it already) */
#endif
#include "math_kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <duo.h>
#include <duo/math.h>

#include "math_funcs.h" /* tests/math: the functions by number */

/* The double pow row, after the float functions. */
#define BENCH_MATH_POW MF_COUNT

DUO_DEVICE float bench_math_native(int f, float x, float y)
{
    float s, c;
    switch (f) {
    case MF_EXPF: return expf(x);
    case MF_EXP2F: return exp2f(x);
    case MF_EXPM1F: return expm1f(x);
    case MF_LOGF: return logf(x);
    case MF_LOG2F: return log2f(x);
    case MF_LOG10F: return log10f(x);
    case MF_LOG1PF: return log1pf(x);
    case MF_SINF: return sinf(x);
    case MF_COSF: return cosf(x);
    case MF_TANF: return tanf(x);
    case MF_SINCOSF_SIN: sincosf(x, &s, &c); return s;
    case MF_SINCOSF_COS: sincosf(x, &s, &c); return c;
    case MF_ATANF: return atanf(x);
    case MF_ASINF: return asinf(x);
    case MF_ACOSF: return acosf(x);
    case MF_SINHF: return sinhf(x);
    case MF_COSHF: return coshf(x);
    case MF_TANHF: return tanhf(x);
    case MF_CBRTF: return cbrtf(x);
    case MF_ERFF: return erff(x);
    case MF_ATAN2F: return atan2f(x, y);
    case MF_HYPOTF: return hypotf(x, y);
    case MF_POWF: return powf(x, y);
    default: return 0.0f;
    }
}

DUO_KERNEL(bench_math_duo, size_t n, int f, const float *DUO_RESTRICT x,
           const float *DUO_RESTRICT y, float *DUO_RESTRICT out)
{
    DUO_FOR(i, n)
        out[i] = duo_math_eval(f, x[i], y[i]);
}

DUO_KERNEL(bench_math_ys, size_t n, int f, const float *DUO_RESTRICT x,
           const float *DUO_RESTRICT y, float *DUO_RESTRICT out)
{
    DUO_FOR(i, n)
        out[i] = bench_math_native(f, x[i], y[i]);
}

/* Double pow: the one double function in the group. */
DUO_KERNEL(bench_pow_duo, size_t n, const double *DUO_RESTRICT x,
           const double *DUO_RESTRICT y, double *DUO_RESTRICT out)
{
    DUO_FOR(i, n)
        out[i] = duo_pow(x[i], y[i]);
}

DUO_KERNEL(bench_pow_ys, size_t n, const double *DUO_RESTRICT x,
           const double *DUO_RESTRICT y, double *DUO_RESTRICT out)
{
    DUO_FOR(i, n)
        out[i] = pow(x[i], y[i]);
}

/* Argument i of function f: uniform in the range the function is used
 * on, from a splitmix64 hash of (f, i, k). */
static double bench_math_u(int f, size_t i, int k)
{
    uint64_t z = ((uint64_t)i << 8 | (uint64_t)(f * 2 + k)) *
                 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1p-53; /* [0, 1) */
}

/* pow's arguments (powf's and pow's): x in (0, 4], y in [-8, 8]. */
static double bench_pow_arg(double u, int k)
{
    return k == 0 ? 4.0 - 4.0 * u : 16.0 * u - 8.0;
}

static float bench_math_arg(int f, size_t i, int k)
{
    double u = bench_math_u(f, i, k);
    switch (f) {
    case MF_EXPF: case MF_EXPM1F: case MF_SINHF: case MF_COSHF:
        return (float)(160.0 * u - 80.0);
    case MF_EXP2F: return (float)(240.0 * u - 120.0);
    case MF_LOGF: case MF_LOG2F: case MF_LOG10F: case MF_CBRTF:
        return (float)(1e6 * u) + 0x1p-20f;
    case MF_LOG1PF: return (float)(1e3 * u - 0.999);
    case MF_ASINF: case MF_ACOSF: return (float)(2.0 * u - 1.0);
    case MF_ATANF: case MF_TANHF: return (float)(20.0 * u - 10.0);
    case MF_ERFF: return (float)(10.0 * u - 5.0);
    case MF_POWF: return (float)bench_pow_arg(u, k);
    default: return (float)(200.0 * u - 100.0);
    }
}

/* ------------------------------------------------------------------ */
/* The group's interface                                               */

int bench_math_count(void) { return BENCH_MATH_POW + 1; }

const char *bench_math_name(int f)
{
    return f == BENCH_MATH_POW ? "pow" : mf_names[f];
}

static duo_status bench_pow_setup(bench_math *m)
{
    const size_t n = m->n, bytes = n * sizeof(double);
    m->xd = (double *)malloc(bytes);
    m->yd = (double *)malloc(bytes);
    m->duod = (double *)malloc(bytes);
    m->ysd = (double *)malloc(bytes);
    duo_status status = DUO_ERROR_OUT_OF_MEMORY;
    if (m->xd != NULL && m->yd != NULL && m->duod != NULL &&
        m->ysd != NULL) {
        for (size_t i = 0; i < n; ++i) {
            m->xd[i] = bench_pow_arg(bench_math_u(m->f, i, 0), 0);
            m->yd[i] = bench_pow_arg(bench_math_u(m->f, i, 1), 1);
        }
        status = duo_malloc((void **)&m->dxd, bytes);
    }
    if (status == DUO_SUCCESS)
        status = duo_malloc((void **)&m->dyd, bytes);
    if (status == DUO_SUCCESS)
        status = duo_malloc((void **)&m->doutd, bytes);
    if (status == DUO_SUCCESS)
        status = duo_memcpy(m->dxd, m->xd, bytes, DUO_HOST_TO_DEVICE);
    if (status == DUO_SUCCESS)
        status = duo_memcpy(m->dyd, m->yd, bytes, DUO_HOST_TO_DEVICE);
    if (status != DUO_SUCCESS)
        bench_math_teardown(m);
    return status;
}

duo_status bench_math_setup(bench_math *m, int f, size_t n, size_t host_n)
{
    memset(m, 0, sizeof *m);
    m->f = f;
    m->n = n;
    m->host_n = host_n;
    if (f == BENCH_MATH_POW)
        return bench_pow_setup(m);
    const size_t bytes = n * sizeof(float);
    m->x = (float *)malloc(bytes);
    m->y = (float *)malloc(bytes);
    m->duo = (float *)malloc(bytes);
    m->ys = (float *)malloc(bytes);
    duo_status status = DUO_ERROR_OUT_OF_MEMORY;
    if (m->x != NULL && m->y != NULL && m->duo != NULL && m->ys != NULL) {
        for (size_t i = 0; i < n; ++i) {
            m->x[i] = bench_math_arg(f, i, 0);
            m->y[i] = bench_math_arg(f, i, 1);
        }
        status = duo_malloc((void **)&m->dx, bytes);
    }
    if (status == DUO_SUCCESS)
        status = duo_malloc((void **)&m->dy, bytes);
    if (status == DUO_SUCCESS)
        status = duo_malloc((void **)&m->dout, bytes);
    if (status == DUO_SUCCESS)
        status = duo_memcpy(m->dx, m->x, bytes, DUO_HOST_TO_DEVICE);
    if (status == DUO_SUCCESS)
        status = duo_memcpy(m->dy, m->y, bytes, DUO_HOST_TO_DEVICE);
    if (status != DUO_SUCCESS)
        bench_math_teardown(m);
    return status;
}

void bench_math_teardown(bench_math *m)
{
    DUO_CHECK(duo_free(m->dx));
    DUO_CHECK(duo_free(m->dy));
    DUO_CHECK(duo_free(m->dout));
    DUO_CHECK(duo_free(m->dxd));
    DUO_CHECK(duo_free(m->dyd));
    DUO_CHECK(duo_free(m->doutd));
    free(m->x);
    free(m->y);
    free(m->duo);
    free(m->ys);
    free(m->xd);
    free(m->yd);
    free(m->duod);
    free(m->ysd);
    memset(m, 0, sizeof *m);
}

void bench_math_kernel_duo(void *ctx)
{
    const bench_math *m = (const bench_math *)ctx;
    if (m->f == BENCH_MATH_POW)
        DUO_CHECK(DUO_LAUNCH(bench_pow_duo, m->n, m->n, m->dxd, m->dyd,
                             m->doutd));
    else
        DUO_CHECK(DUO_LAUNCH(bench_math_duo, m->n, m->n, m->f, m->dx,
                             m->dy, m->dout));
}

void bench_math_kernel_ys(void *ctx)
{
    const bench_math *m = (const bench_math *)ctx;
    if (m->f == BENCH_MATH_POW)
        DUO_CHECK(DUO_LAUNCH(bench_pow_ys, m->n, m->n, m->dxd, m->dyd,
                             m->doutd));
    else
        DUO_CHECK(DUO_LAUNCH(bench_math_ys, m->n, m->n, m->f, m->dx, m->dy,
                             m->dout));
}

void bench_math_host_duo(void *ctx)
{
    bench_math *m = (bench_math *)ctx;
    if (m->f == BENCH_MATH_POW) {
        for (size_t i = 0; i < m->host_n; ++i)
            m->duod[i] = duo_pow(m->xd[i], m->yd[i]);
        return;
    }
    for (size_t i = 0; i < m->host_n; ++i)
        m->duo[i] = duo_math_eval(m->f, m->x[i], m->y[i]);
}

void bench_math_host_ys(void *ctx)
{
    bench_math *m = (bench_math *)ctx;
    if (m->f == BENCH_MATH_POW) {
        for (size_t i = 0; i < m->host_n; ++i)
            m->ysd[i] = pow(m->xd[i], m->yd[i]);
        return;
    }
    for (size_t i = 0; i < m->host_n; ++i)
        m->ys[i] = bench_math_native(m->f, m->x[i], m->y[i]);
}

static uint32_t bits(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

static uint64_t bits_d(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

/* bench_math_check for double pow. */
static int bench_pow_check(bench_math *m, int kernels, char *check,
                           size_t size)
{
    if (kernels) {
        const size_t bytes = m->host_n * sizeof(double);
        bench_math_kernel_duo(m);
        DUO_CHECK(duo_memcpy(m->duod, m->doutd, bytes, DUO_DEVICE_TO_HOST));
        bench_math_kernel_ys(m);
        DUO_CHECK(duo_memcpy(m->ysd, m->doutd, bytes, DUO_DEVICE_TO_HOST));
    }
    for (size_t i = 0; i < m->host_n; ++i) {
        const double h = duo_pow(m->xd[i], m->yd[i]);
        const double d = m->duod[i], y = m->ysd[i];
        const int64_t ulps = (int64_t)(bits_d(d) - bits_d(y));
        if (bits_d(d) != bits_d(h) || ulps < -4 || ulps > 4) {
            snprintf(check, size, "pow(%a, %a): duo %a, host %a, "
                     "yardstick %a", m->xd[i], m->yd[i], d, h, y);
            return 0;
        }
    }
    snprintf(check, size, "%zu outputs: duo = duo on the host bit for "
             "bit; yardstick within 4 ulps", m->host_n);
    return 1;
}

int bench_math_check(bench_math *m, int kernels, char *check, size_t size)
{
    const int f = m->f;
    if (f == BENCH_MATH_POW)
        return bench_pow_check(m, kernels, check, size);
    if (kernels) {
        /* The kernels' outputs: run duo's again, fetch it, then the
         * yardstick's (each run writes dout). */
        const size_t bytes = m->host_n * sizeof(float);
        bench_math_kernel_duo(m);
        DUO_CHECK(duo_memcpy(m->duo, m->dout, bytes, DUO_DEVICE_TO_HOST));
        bench_math_kernel_ys(m);
        DUO_CHECK(duo_memcpy(m->ys, m->dout, bytes, DUO_DEVICE_TO_HOST));
    }
    for (size_t i = 0; i < m->host_n; ++i) {
        const float h = duo_math_eval(f, m->x[i], m->y[i]);
        const float d = m->duo[i], y = m->ys[i];
        const int64_t ulps = (int64_t)bits(d) - (int64_t)bits(y);
        const int ys_ok = (isnan(h) && isnan(y)) ||
                          ((bits(h) ^ bits(y)) >> 31 == 0 && ulps >= -4 &&
                           ulps <= 4);
        if (bits(d) != bits(h) || !ys_ok) {
            snprintf(check, size, "%s(%a, %a): duo %a, host %a, "
                     "yardstick %a", mf_names[f], (double)m->x[i],
                     (double)m->y[i], (double)d, (double)h, (double)y);
            return 0;
        }
    }
    snprintf(check, size, "%zu outputs: duo = duo on the host bit for "
             "bit; yardstick within 4 ulps", m->host_n);
    return 1;
}
