/*
 * yardstick_cpu.c - duo-bench's yardsticks in CPU builds (serial and
 * OpenMP): what a C programmer writes without duo.
 *
 *   reduce  double s = 0; #pragma omp parallel for reduction(+:s) over
 *           the elements: the same double accumulation as duo_reduce.
 *   gemm    OpenBLAS cblas_sgemm / cblas_dgemm (CblasRowMajor) with as
 *           many threads as duo uses, when CMake found OpenBLAS
 *           (DUO_BENCH_HAVE_OPENBLAS); otherwise no gemm yardstick.
 *   stream  BabelStream's OpenMP loops (#pragma omp parallel for, dot
 *           with reduction(+:sum)).
 *
 * In the serial build the pragmas are ignored and the loops run on one
 * thread, as duo does there.  Plain C11, no kernels.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yardstick.h"

#ifdef DUO_BENCH_HAVE_OPENBLAS
#include <cblas.h>
#endif

#ifdef _OPENMP
#define YS_LOOP "OpenMP loop"
#else
#define YS_LOOP "serial loop"
#endif

#ifdef DUO_BENCH_HAVE_OPENBLAS
/* How long OpenBLAS's worker threads spin (calling sched_yield) after a
 * call before they sleep: 2^t time-stamp-counter cycles, t from
 * OPENBLAS_THREAD_TIMEOUT (4..30; default 28, OpenBLAS's build default),
 * at the clock rate in /proc/cpuinfo (or 1 GHz), plus a margin. */
static double openblas_spin_seconds(void)
{
    int t = 28;
    const char *env = getenv("OPENBLAS_THREAD_TIMEOUT");
    if (env != NULL && atoi(env) > 0)
        t = atoi(env) < 4 ? 4 : atoi(env) > 30 ? 30 : atoi(env);
    double hz = 1e9;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f != NULL) {
        char line[256];
        while (fgets(line, sizeof line, f) != NULL) {
            const char *colon = strchr(line, ':');
            if (strncmp(line, "cpu MHz", 7) == 0 && colon != NULL) {
                const double mhz = atof(colon + 1);
                if (mhz > 100.0)
                    hz = mhz * 1e6;
                break;
            }
        }
        fclose(f);
    }
    return 1.25 * (double)(1ull << t) / hz + 0.01;
}
#endif

void ys_init(int threads, ys_info *info)
{
    memset(info, 0, sizeof *info);
    info->reduce = YS_LOOP " (f64 acc)";
    info->stream = YS_LOOP "s";
    info->cache_bytes = (size_t)64 << 20;
    info->sum_unit_f32 = 0x1p-53; /* accumulated in double */
    info->sum_unit_f64 = 0x1p-53;
    info->gpu = 0;
#ifdef DUO_BENCH_HAVE_OPENBLAS
    info->gemm = "OpenBLAS";
#ifdef DUO_BENCH_HAVE_OPENBLAS_THREADS
    openblas_set_num_threads(threads > 0 ? threads : 1);
    if (openblas_get_num_threads() > 1)
        info->settle_seconds = openblas_spin_seconds();
    snprintf(info->versions, sizeof info->versions,
             "OpenBLAS (%s), %d thread%s", openblas_get_config(),
             openblas_get_num_threads(),
             openblas_get_num_threads() == 1 ? "" : "s");
#else
    (void)threads;
    info->settle_seconds = openblas_spin_seconds();
    snprintf(info->versions, sizeof info->versions,
             "a CBLAS without openblas_set_num_threads: its thread count "
             "comes from OPENBLAS_NUM_THREADS / OMP_NUM_THREADS");
#endif
#else
    (void)threads;
    info->gemm = NULL;
    snprintf(info->gemm_missing, sizeof info->gemm_missing,
             "OpenBLAS not found: gemm yardstick skipped (install "
             "libopenblas-dev: see .ci/run or `make bench-deps`)");
    snprintf(info->versions, sizeof info->versions, "no OpenBLAS");
#endif
}

void ys_finalize(void) {}

/* ------------------------------------------------------------------ */
/* Reduce                                                              */

int ys_reduce(duo_reduce_op op, duo_dtype type, const void *x, size_t n,
              double *result)
{
    if (op != DUO_SUM)
        return 0;
    double s = 0.0;
    if (type == DUO_F32) {
        const float *v = (const float *)x;
#pragma omp parallel for reduction(+ : s)
        for (size_t i = 0; i < n; ++i)
            s += v[i];
    } else if (type == DUO_F64) {
        const double *v = (const double *)x;
#pragma omp parallel for reduction(+ : s)
        for (size_t i = 0; i < n; ++i)
            s += v[i];
    } else {
        return 0;
    }
    *result = s;
    return 1;
}

int ys_reduce_device(duo_reduce_op op, duo_dtype type, const void *x,
                     size_t n, void *result)
{
    /* "Device" memory is host memory: the loop's result is stored. */
    double s = 0.0;
    if (!ys_reduce(op, type, x, n, &s))
        return 0;
    *(double *)result = s;
    return 1;
}

/* ------------------------------------------------------------------ */
/* Gemm                                                                */

#ifdef DUO_BENCH_HAVE_OPENBLAS
static int blas_int(size_t v, const char *what)
{
    if (v > INT_MAX) {
        fprintf(stderr, "duo-bench: %s = %zu does not fit CBLAS's int\n",
                what, v);
        exit(1);
    }
    return (int)v;
}

static enum CBLAS_TRANSPOSE blas_trans(duo_transpose t)
{
    return t == DUO_TRANS ? CblasTrans : CblasNoTrans;
}
#endif

void ys_gemm_f32(duo_transpose ta, duo_transpose tb, size_t m, size_t n,
                 size_t k, float alpha, const float *a, size_t lda,
                 const float *b, size_t ldb, float beta, float *c,
                 size_t ldc)
{
#ifdef DUO_BENCH_HAVE_OPENBLAS
    cblas_sgemm(CblasRowMajor, blas_trans(ta), blas_trans(tb),
                blas_int(m, "m"), blas_int(n, "n"), blas_int(k, "k"), alpha,
                a, blas_int(lda, "lda"), b, blas_int(ldb, "ldb"), beta, c,
                blas_int(ldc, "ldc"));
#else
    (void)ta, (void)tb, (void)m, (void)n, (void)k, (void)alpha, (void)a;
    (void)lda, (void)b, (void)ldb, (void)beta, (void)c, (void)ldc;
    fprintf(stderr, "duo-bench: ys_gemm_f32 called without OpenBLAS\n");
    exit(1);
#endif
}

void ys_gemm_f64(duo_transpose ta, duo_transpose tb, size_t m, size_t n,
                 size_t k, double alpha, const double *a, size_t lda,
                 const double *b, size_t ldb, double beta, double *c,
                 size_t ldc)
{
#ifdef DUO_BENCH_HAVE_OPENBLAS
    cblas_dgemm(CblasRowMajor, blas_trans(ta), blas_trans(tb),
                blas_int(m, "m"), blas_int(n, "n"), blas_int(k, "k"), alpha,
                a, blas_int(lda, "lda"), b, blas_int(ldb, "ldb"), beta, c,
                blas_int(ldc, "ldc"));
#else
    (void)ta, (void)tb, (void)m, (void)n, (void)k, (void)alpha, (void)a;
    (void)lda, (void)b, (void)ldb, (void)beta, (void)c, (void)ldc;
    fprintf(stderr, "duo-bench: ys_gemm_f64 called without OpenBLAS\n");
    exit(1);
#endif
}

/* ------------------------------------------------------------------ */
/* BabelStream (its OpenMP implementation's loops, restrict pointers)  */

void ys_stream_copy(const double *restrict a, double *restrict c, size_t n)
{
#pragma omp parallel for
    for (size_t i = 0; i < n; ++i)
        c[i] = a[i];
}

void ys_stream_mul(double *restrict b, const double *restrict c, double s,
                   size_t n)
{
#pragma omp parallel for
    for (size_t i = 0; i < n; ++i)
        b[i] = s * c[i];
}

void ys_stream_add(const double *restrict a, const double *restrict b,
                   double *restrict c, size_t n)
{
#pragma omp parallel for
    for (size_t i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
}

void ys_stream_triad(double *restrict a, const double *restrict b,
                     const double *restrict c, double s, size_t n)
{
#pragma omp parallel for
    for (size_t i = 0; i < n; ++i)
        a[i] = b[i] + s * c[i];
}

double ys_stream_dot(const double *a, const double *b, size_t n)
{
    double sum = 0.0;
#pragma omp parallel for reduction(+ : sum)
    for (size_t i = 0; i < n; ++i)
        sum += a[i] * b[i];
    return sum;
}
