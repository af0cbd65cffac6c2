/*
 * math_kernels.c - duo-bench's math group's kernels (math_kernels.h).
 *
 * The kernels are written once with duo's macros, so in a CUDA build
 * nvcc compiles them for the GPU (where expf, sinf, exp, sin, ... are
 * CUDA's own functions, built without fast math) and for the host path;
 * in CPU builds the yardstick is glibc.
 *
 * A kernel source: nvcc compiles it in a CUDA build.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sincosf, sincos in glibc (g++ defines it already) */
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

DUO_DEVICE double bench_math_native_d(int f, double x, double y)
{
    double s, c;
    switch (f) {
    case MD_EXP: return exp(x);
    case MD_EXP2: return exp2(x);
    case MD_EXPM1: return expm1(x);
    case MD_LOG: return log(x);
    case MD_LOG2: return log2(x);
    case MD_LOG10: return log10(x);
    case MD_LOG1P: return log1p(x);
    case MD_SIN: return sin(x);
    case MD_COS: return cos(x);
    case MD_TAN: return tan(x);
    case MD_SINCOS_SIN: sincos(x, &s, &c); return s;
    case MD_SINCOS_COS: sincos(x, &s, &c); return c;
    case MD_ATAN: return atan(x);
    case MD_ASIN: return asin(x);
    case MD_ACOS: return acos(x);
    case MD_SINH: return sinh(x);
    case MD_COSH: return cosh(x);
    case MD_TANH: return tanh(x);
    case MD_CBRT: return cbrt(x);
    case MD_ERF: return erf(x);
    case MD_ATAN2: return atan2(x, y);
    case MD_HYPOT: return hypot(x, y);
    case MD_POW: return pow(x, y);
    default: return 0.0;
    }
}

/* One kernel per function and side, the function number a constant: so
 * each kernel holds one function (the switches above fold away), and
 * its registers and occupancy are that function's own, as in a user's
 * kernel; one kernel with a switch over every function would take the
 * registers of the largest for all. */
#define BENCH_MATH_F32(X)                                                   \
    X(MF_EXPF) X(MF_EXP2F) X(MF_EXPM1F) X(MF_LOGF) X(MF_LOG2F) X(MF_LOG10F) \
    X(MF_LOG1PF) X(MF_SINF) X(MF_COSF) X(MF_TANF) X(MF_SINCOSF_SIN)         \
    X(MF_SINCOSF_COS) X(MF_ATANF) X(MF_ASINF) X(MF_ACOSF) X(MF_SINHF)       \
    X(MF_COSHF) X(MF_TANHF) X(MF_CBRTF) X(MF_ERFF) X(MF_ATAN2F)             \
    X(MF_HYPOTF) X(MF_POWF)
#define BENCH_MATH_F64(X)                                                   \
    X(MD_EXP) X(MD_EXP2) X(MD_EXPM1) X(MD_LOG) X(MD_LOG2) X(MD_LOG10)       \
    X(MD_LOG1P) X(MD_SIN) X(MD_COS) X(MD_TAN) X(MD_SINCOS_SIN)              \
    X(MD_SINCOS_COS) X(MD_ATAN) X(MD_ASIN) X(MD_ACOS) X(MD_SINH) X(MD_COSH) \
    X(MD_TANH) X(MD_CBRT) X(MD_ERF) X(MD_ATAN2) X(MD_HYPOT) X(MD_POW)

#define BENCH_MATH_KERNELS(F, T, duo_eval, native_eval)                     \
    DUO_KERNEL(bench_math_duo_##F, size_t n, const T *DUO_RESTRICT x,       \
               const T *DUO_RESTRICT y, T *DUO_RESTRICT out)                \
    {                                                                       \
        DUO_FOR(i, n)                                                       \
            out[i] = duo_eval(F, x[i], y[i]);                               \
    }                                                                       \
    DUO_KERNEL(bench_math_ys_##F, size_t n, const T *DUO_RESTRICT x,        \
               const T *DUO_RESTRICT y, T *DUO_RESTRICT out)                \
    {                                                                       \
        DUO_FOR(i, n)                                                       \
            out[i] = native_eval(F, x[i], y[i]);                            \
    }
#define BENCH_MATH_KERNELS_F32(F)                                           \
    BENCH_MATH_KERNELS(F, float, duo_math_eval, bench_math_native)
#define BENCH_MATH_KERNELS_F64(F)                                           \
    BENCH_MATH_KERNELS(F, double, duo_math_eval_d, bench_math_native_d)
BENCH_MATH_F32(BENCH_MATH_KERNELS_F32)
BENCH_MATH_F64(BENCH_MATH_KERNELS_F64)

/* Uniform in [0, 1) from a splitmix64 hash of (salt, i). */
static double bench_math_u(size_t i, int salt)
{
    uint64_t z = ((uint64_t)i << 8 | (uint64_t)salt) *
                 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1p-53;
}

/* pow's arguments (powf's and pow's): x in (0, 4], y in [-8, 8]. */
static double bench_pow_arg(double u, int k)
{
    return k == 0 ? 4.0 - 4.0 * u : 16.0 * u - 8.0;
}

/* Argument i of double function f: as its float sibling's, in double
 * (the salt 128 + ... keeps the two samples apart). */
static double bench_math_arg_d(int f, size_t i, int k)
{
    double u = bench_math_u(i, 128 + f * 2 + k);
    switch (f) {
    case MD_EXP: case MD_EXPM1: case MD_SINH: case MD_COSH:
        return 160.0 * u - 80.0;
    case MD_EXP2: return 240.0 * u - 120.0;
    case MD_LOG: case MD_LOG2: case MD_LOG10: case MD_CBRT:
        return 1e6 * u + 0x1p-20;
    case MD_LOG1P: return 1e3 * u - 0.999;
    case MD_ASIN: case MD_ACOS: return 2.0 * u - 1.0;
    case MD_ATAN: case MD_TANH: return 20.0 * u - 10.0;
    case MD_ERF: return 10.0 * u - 5.0;
    case MD_POW: return bench_pow_arg(u, k);
    default: return 200.0 * u - 100.0;
    }
}

/* Argument i of function f: uniform in the range the function is used
 * on, from a splitmix64 hash of (f, i, k). */
static float bench_math_arg(int f, size_t i, int k)
{
    double u = bench_math_u(i, f * 2 + k); /* [0, 1) */
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

int bench_math_count(void) { return MF_COUNT + MD_COUNT; }

const char *bench_math_name(int i)
{
    return i < MF_COUNT ? mf_names[i] : md_names[i - MF_COUNT];
}

duo_status bench_math_setup(bench_math *m, int i, size_t n, size_t host_n)
{
    memset(m, 0, sizeof *m);
    m->dbl = i >= MF_COUNT;
    m->index = i;
    m->f = m->dbl ? i - MF_COUNT : i;
    m->n = n;
    m->host_n = host_n;
    const int f = m->f;
    const size_t bytes = n * (m->dbl ? sizeof(double) : sizeof(float));
    void *x = malloc(bytes), *y = malloc(bytes);
    void *duo = malloc(bytes), *ys = malloc(bytes);
    void **dx = m->dbl ? (void **)&m->dxd : (void **)&m->dx;
    void **dy = m->dbl ? (void **)&m->dyd : (void **)&m->dy;
    void **dout = m->dbl ? (void **)&m->doutd : (void **)&m->dout;
    if (m->dbl) {
        m->xd = (double *)x;
        m->yd = (double *)y;
        m->duod = (double *)duo;
        m->ysd = (double *)ys;
    } else {
        m->x = (float *)x;
        m->y = (float *)y;
        m->duo = (float *)duo;
        m->ys = (float *)ys;
    }
    duo_status status = DUO_ERROR_OUT_OF_MEMORY;
    if (x != NULL && y != NULL && duo != NULL && ys != NULL) {
        for (size_t j = 0; j < n; ++j) {
            if (m->dbl) {
                m->xd[j] = bench_math_arg_d(f, j, 0);
                m->yd[j] = bench_math_arg_d(f, j, 1);
            } else {
                m->x[j] = bench_math_arg(f, j, 0);
                m->y[j] = bench_math_arg(f, j, 1);
            }
        }
        status = duo_malloc(dx, bytes);
    }
    if (status == DUO_SUCCESS)
        status = duo_malloc(dy, bytes);
    if (status == DUO_SUCCESS)
        status = duo_malloc(dout, bytes);
    if (status == DUO_SUCCESS)
        status = duo_memcpy(*dx, x, bytes, DUO_HOST_TO_DEVICE);
    if (status == DUO_SUCCESS)
        status = duo_memcpy(*dy, y, bytes, DUO_HOST_TO_DEVICE);
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

/* Launch side's (duo or ys) kernel of function f over m's arrays. */
#define BENCH_MATH_CASE_F32(F, side)                                        \
    case F:                                                                 \
        return DUO_LAUNCH(bench_math_##side##_##F, m->n, m->n, m->dx,       \
                          m->dy, m->dout);
#define BENCH_MATH_CASE_F64(F, side)                                        \
    case F:                                                                 \
        return DUO_LAUNCH(bench_math_##side##_##F, m->n, m->n, m->dxd,      \
                          m->dyd, m->doutd);
#define BENCH_MATH_DUO_F32(F) BENCH_MATH_CASE_F32(F, duo)
#define BENCH_MATH_YS_F32(F) BENCH_MATH_CASE_F32(F, ys)
#define BENCH_MATH_DUO_F64(F) BENCH_MATH_CASE_F64(F, duo)
#define BENCH_MATH_YS_F64(F) BENCH_MATH_CASE_F64(F, ys)

static duo_status launch_duo(const bench_math *m)
{
    if (m->dbl)
        switch (m->f) { BENCH_MATH_F64(BENCH_MATH_DUO_F64) }
    else
        switch (m->f) { BENCH_MATH_F32(BENCH_MATH_DUO_F32) }
    return DUO_ERROR_INVALID_ARGUMENT;
}

static duo_status launch_ys(const bench_math *m)
{
    if (m->dbl)
        switch (m->f) { BENCH_MATH_F64(BENCH_MATH_YS_F64) }
    else
        switch (m->f) { BENCH_MATH_F32(BENCH_MATH_YS_F32) }
    return DUO_ERROR_INVALID_ARGUMENT;
}

void bench_math_kernel_duo(void *ctx)
{
    DUO_CHECK(launch_duo((const bench_math *)ctx));
}

void bench_math_kernel_ys(void *ctx)
{
    DUO_CHECK(launch_ys((const bench_math *)ctx));
}

void bench_math_host_duo(void *ctx)
{
    bench_math *m = (bench_math *)ctx;
    if (m->dbl)
        for (size_t i = 0; i < m->host_n; ++i)
            m->duod[i] = duo_math_eval_d(m->f, m->xd[i], m->yd[i]);
    else
        for (size_t i = 0; i < m->host_n; ++i)
            m->duo[i] = duo_math_eval(m->f, m->x[i], m->y[i]);
}

void bench_math_host_ys(void *ctx)
{
    bench_math *m = (bench_math *)ctx;
    if (m->dbl)
        for (size_t i = 0; i < m->host_n; ++i)
            m->ysd[i] = bench_math_native_d(m->f, m->xd[i], m->yd[i]);
    else
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

/* bench_math_check for a double function. */
static int bench_math_check_d(bench_math *m, int kernels, char *check,
                              size_t size)
{
    const int f = m->f;
    if (kernels) {
        const size_t bytes = m->host_n * sizeof(double);
        bench_math_kernel_duo(m);
        DUO_CHECK(duo_memcpy(m->duod, m->doutd, bytes, DUO_DEVICE_TO_HOST));
        bench_math_kernel_ys(m);
        DUO_CHECK(duo_memcpy(m->ysd, m->doutd, bytes, DUO_DEVICE_TO_HOST));
    }
    for (size_t i = 0; i < m->host_n; ++i) {
        const double h = duo_math_eval_d(f, m->xd[i], m->yd[i]);
        const double d = m->duod[i], y = m->ysd[i];
        const int64_t ulps = (int64_t)(bits_d(d) - bits_d(y));
        const int ys_ok = (isnan(h) && isnan(y)) ||
                          ((bits_d(h) ^ bits_d(y)) >> 63 == 0 && ulps >= -4 &&
                           ulps <= 4);
        if (bits_d(d) != bits_d(h) || !ys_ok) {
            snprintf(check, size, "%s(%a, %a): duo %a, host %a, "
                     "yardstick %a", md_names[f], m->xd[i], m->yd[i], d, h,
                     y);
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
    if (m->dbl)
        return bench_math_check_d(m, kernels, check, size);
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
