/*
 * bench_math.c - duo-bench's math group (bench_math.h).
 *
 * The kernels are written once with duo's macros, so in a CUDA build
 * nvcc compiles them for the GPU (where expf, sinf, ... are CUDA's own
 * functions, built without fast math) and for the host path; in CPU
 * builds the yardstick is glibc.  Arguments lie where each function is
 * used (exp: [-80, 80], log: (0, 1e6], sin: [-100, 100], asin: [-1, 1],
 * ...), from a hash of the index.  Every timed output is compared with a
 * plain host loop before its time counts (duo's bits must equal the
 * host's; the yardstick within 4 ulps of duo's).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sincosf in glibc (g++ defines it already) */
#endif
#include "bench_math.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <duo.h>
#include <duo/math.h>

#include "math_funcs.h" /* tests/math: the functions by number */

#define REPS 5
#define HOST_N ((size_t)1 << 22)

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
    case MF_ATAN2F: return atan2f(x, y);
    case MF_HYPOTF: return hypotf(x, y);
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

/* Argument i of function f: uniform in the range the function is used
 * on, from a splitmix64 hash of (f, i, k). */
static float bench_math_arg(int f, size_t i, int k)
{
    uint64_t z = ((uint64_t)i << 8 | (uint64_t)(f * 2 + k)) *
                 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    double u = (double)((z ^ (z >> 31)) >> 11) * 0x1p-53; /* [0, 1) */
    switch (f) {
    case MF_EXPF: case MF_EXPM1F: case MF_SINHF: case MF_COSHF:
        return (float)(160.0 * u - 80.0);
    case MF_EXP2F: return (float)(240.0 * u - 120.0);
    case MF_LOGF: case MF_LOG2F: case MF_LOG10F: case MF_CBRTF:
        return (float)(1e6 * u) + 0x1p-20f;
    case MF_LOG1PF: return (float)(1e3 * u - 0.999);
    case MF_ASINF: case MF_ACOSF: return (float)(2.0 * u - 1.0);
    case MF_ATANF: case MF_TANHF: return (float)(20.0 * u - 10.0);
    default: return (float)(200.0 * u - 100.0);
    }
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_ms(double *ms, int n)
{
    qsort(ms, (size_t)n, sizeof *ms, cmp_double);
    return ms[n / 2];
}

static uint32_t bits(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

/* duo's results must be the host's bits; the yardstick's within 4 ulps
 * of them (or both NaN). */
static void check_outputs(int f, const float *x, const float *y,
                          const float *duo, const float *ys, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        float h = duo_math_eval(f, x[i], y[i]);
        int64_t d = (int64_t)bits(duo[i]) - (int64_t)bits(ys[i]);
        int ys_ok = (isnan(h) && isnan(ys[i])) ||
                    ((bits(h) ^ bits(ys[i])) >> 31 == 0 && d >= -4 && d <= 4);
        if (bits(duo[i]) != bits(h) || !ys_ok) {
            fprintf(stderr, "duo-bench: math %s(%a, %a): kernel %a, host "
                    "%a, yardstick %a\n", mf_names[f], (double)x[i],
                    (double)y[i], (double)duo[i], (double)h, (double)ys[i]);
            exit(1);
        }
    }
}

static double time_kernel(int duo_side, size_t n, int f, const float *dx,
                          const float *dy, float *dout)
{
    duo_timer t;
    double ms[REPS];
    DUO_CHECK(duo_timer_create(&t));
    for (int r = 0; r < REPS; ++r) {
        DUO_CHECK(duo_timer_start(t, NULL));
        if (duo_side)
            DUO_CHECK(DUO_LAUNCH(bench_math_duo, n, n, f, dx, dy, dout));
        else
            DUO_CHECK(DUO_LAUNCH(bench_math_ys, n, n, f, dx, dy, dout));
        DUO_CHECK(duo_timer_stop(t, NULL));
        DUO_CHECK(duo_timer_elapsed_ms(t, &ms[r]));
    }
    DUO_CHECK(duo_timer_destroy(t));
    return median_ms(ms, REPS);
}

static double time_host(int duo_side, size_t n, int f, const float *x,
                        const float *y, float *out)
{
    double ms[REPS];
    for (int r = 0; r < REPS; ++r) {
        double t0 = seconds();
        if (duo_side)
            for (size_t i = 0; i < n; ++i)
                out[i] = duo_math_eval(f, x[i], y[i]);
        else
            for (size_t i = 0; i < n; ++i)
                out[i] = bench_math_native(f, x[i], y[i]);
        ms[r] = 1e3 * (seconds() - t0);
    }
    return median_ms(ms, REPS);
}

static void print_row(FILE *out, const char *func, const char *where,
                      size_t n, double duo_ms, double ys_ms, double *worst)
{
    double ratio = ys_ms / duo_ms;
    if (ratio < *worst)
        *worst = ratio;
    fprintf(out, "| %s | %s | %zu | %.3f | %.3f | %.2f | %.2f |\n", func,
            where, n, duo_ms, ys_ms, 1e-6 * (double)n / duo_ms, ratio);
    fflush(out);
}

double bench_math_run(FILE *out, int quick)
{
    const size_t n = quick ? (size_t)1 << 22 : (size_t)1 << 26;
    const size_t hn = HOST_N < n ? HOST_N : n;
    const size_t bytes = n * sizeof(float);
    float *x = (float *)malloc(bytes), *y = (float *)malloc(bytes);
    float *duo = (float *)malloc(bytes), *ys = (float *)malloc(bytes);
    float *dx, *dy, *dout;
    if (!x || !y || !duo || !ys) {
        fprintf(stderr, "duo-bench: math: out of host memory\n");
        exit(1);
    }
    DUO_CHECK(duo_malloc((void **)&dx, bytes));
    DUO_CHECK(duo_malloc((void **)&dy, bytes));
    DUO_CHECK(duo_malloc((void **)&dout, bytes));
    const char *where = duo_backend_name();
    double worst = 1e300;
    fprintf(out, "| function | where | arguments | duo ms | yardstick ms "
                 "| duo Gcalls/s | duo/yardstick |\n"
                 "|---|---|---|---|---|---|---|\n");
    for (int f = 0; f < MF_COUNT; ++f) {
        for (size_t i = 0; i < n; ++i) {
            x[i] = bench_math_arg(f, i, 0);
            y[i] = bench_math_arg(f, i, 1);
        }
        DUO_CHECK(duo_memcpy(dx, x, bytes, DUO_HOST_TO_DEVICE));
        DUO_CHECK(duo_memcpy(dy, y, bytes, DUO_HOST_TO_DEVICE));
        double d_ms = time_kernel(1, n, f, dx, dy, dout);
        DUO_CHECK(duo_memcpy(duo, dout, bytes, DUO_DEVICE_TO_HOST));
        double y_ms = time_kernel(0, n, f, dx, dy, dout);
        DUO_CHECK(duo_memcpy(ys, dout, bytes, DUO_DEVICE_TO_HOST));
        check_outputs(f, x, y, duo, ys, hn);
        print_row(out, mf_names[f], where, n, d_ms, y_ms, &worst);
        d_ms = time_host(1, hn, f, x, y, duo);
        y_ms = time_host(0, hn, f, x, y, ys);
        check_outputs(f, x, y, duo, ys, hn);
        print_row(out, mf_names[f], "host, 1 thread, vs glibc", hn, d_ms,
                  y_ms, &worst);
    }
    DUO_CHECK(duo_free(dx));
    DUO_CHECK(duo_free(dy));
    DUO_CHECK(duo_free(dout));
    free(x);
    free(y);
    free(duo);
    free(ys);
    fprintf(out, "\nworst duo/yardstick throughput ratio: %.2f\n", worst);
    return worst;
}
