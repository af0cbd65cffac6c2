/*
 * fma_kernels.c - duo-bench's fma group (fma_kernels.h): the same
 * compute-bound kernel with bare a*b+c, as duo compiles it (a product
 * rounded before its sum), and with fmaf (one rounding: what nvcc's
 * default fusion, DUO_FAST_FMA=ON, gives).  Each element runs CHAINS
 * independent Horner chains of STEPS steps at its x, so that the work is
 * arithmetic throughput rather than the latency of one chain or memory.
 *
 * The checks are exact: the fmaf kernel must equal fmaf on the host, the
 * bare kernel a host evaluation in which every product is rounded on its
 * own (through a volatile, so that no flag can fuse it) - except on the
 * GPU of a DUO_FAST_FMA build, where nvcc fuses it into the fmaf result.
 *
 * A kernel source: nvcc compiles it in a CUDA build.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fma_kernels.h"
#include "stream_kernels.h"

enum { CHAINS = 4, ROUNDS = 8, STEPS = 8 * ROUNDS };

/* ------------------------------------------------------------------ */
/* The kernel, twice                                                   */

/* Eight Horner steps t = t x + c, c alternating in sign so that t stays
 * within a few units for |x| < 1. */
DUO_DEVICE float horner8_bare(float t, float x)
{
    t = t * x + 0.1f;
    t = t * x - 0.3f;
    t = t * x + 0.7f;
    t = t * x - 0.2f;
    t = t * x + 0.5f;
    t = t * x - 0.6f;
    t = t * x + 0.9f;
    t = t * x - 0.4f;
    return t;
}

DUO_DEVICE float horner8_fused(float t, float x)
{
    t = fmaf(t, x, 0.1f);
    t = fmaf(t, x, -0.3f);
    t = fmaf(t, x, 0.7f);
    t = fmaf(t, x, -0.2f);
    t = fmaf(t, x, 0.5f);
    t = fmaf(t, x, -0.6f);
    t = fmaf(t, x, 0.9f);
    t = fmaf(t, x, -0.4f);
    return t;
}

/* The chains' starting values, and how their ends are combined (sums
 * only: the same in both kernels). */
#define FMA_CHAINS(step, x, out)                                          \
    do {                                                                  \
        float t0 = 1.0f, t1 = (x), t2 = -(x), t3 = 0.25f;                 \
        for (int r = 0; r < ROUNDS; ++r) {                                \
            t0 = step(t0, (x));                                           \
            t1 = step(t1, (x));                                           \
            t2 = step(t2, (x));                                           \
            t3 = step(t3, (x));                                           \
        }                                                                 \
        (out) = (t0 + t1) + (t2 + t3);                                    \
    } while (0)

DUO_KERNEL(fma_bare_kernel, size_t n, const float *x, float *y)
{
    DUO_FOR(i, n)
        FMA_CHAINS(horner8_bare, x[i], y[i]);
}

DUO_KERNEL(fma_fused_kernel, size_t n, const float *x, float *y)
{
    DUO_FOR(i, n)
        FMA_CHAINS(horner8_fused, x[i], y[i]);
}

/* ------------------------------------------------------------------ */
/* Host references                                                     */

static float rounded_product(float a, float b)
{
    volatile float p = a * b;
    return p;
}

static float host_bare(float t, float x)
{
    static const float c[8] = {0.1f, -0.3f, 0.7f, -0.2f,
                               0.5f, -0.6f, 0.9f, -0.4f};
    for (int k = 0; k < 8; ++k)
        t = rounded_product(t, x) + c[k];
    return t;
}

/* ------------------------------------------------------------------ */
/* The group's interface                                               */

duo_status bench_fma_setup(bench_fma *f, size_t n, uint64_t seed)
{
    memset(f, 0, sizeof *f);
    f->n = n;
    f->seed = seed;
    duo_status s = duo_malloc((void **)&f->x, n * sizeof(float));
    if (s == DUO_SUCCESS)
        s = duo_malloc((void **)&f->bare, n * sizeof(float));
    if (s == DUO_SUCCESS)
        s = duo_malloc((void **)&f->fused, n * sizeof(float));
    if (s == DUO_SUCCESS)
        s = bench_fill_f32(f->x, n, seed);
    if (s != DUO_SUCCESS)
        bench_fma_teardown(f);
    return s;
}

void bench_fma_bare(void *ctx)
{
    bench_fma *f = (bench_fma *)ctx;
    DUO_CHECK(DUO_LAUNCH(fma_bare_kernel, f->n, f->n, f->x, f->bare));
}

void bench_fma_fused(void *ctx)
{
    bench_fma *f = (bench_fma *)ctx;
    DUO_CHECK(DUO_LAUNCH(fma_fused_kernel, f->n, f->n, f->x, f->fused));
}

int bench_fma_check(const bench_fma *f, char *check, size_t size)
{
    float *bare = (float *)malloc(f->n * sizeof(float));
    float *fused = (float *)malloc(f->n * sizeof(float));
    if (bare == NULL || fused == NULL) {
        free(bare);
        free(fused);
        snprintf(check, size, "out of host memory for the check");
        return 0;
    }
    DUO_CHECK(duo_memcpy(bare, f->bare, f->n * sizeof(float),
                         DUO_DEVICE_TO_HOST));
    DUO_CHECK(duo_memcpy(fused, f->fused, f->n * sizeof(float),
                         DUO_DEVICE_TO_HOST));
#if defined(DUO_FAST_FMA)
    const int bare_is_fused = strcmp(duo_backend_name(), "cuda") == 0;
#else
    const int bare_is_fused = 0;
#endif
    size_t rounds_differ = 0;
    int ok = 1;
    for (size_t i = 0; i < f->n && ok; ++i) {
        const float x = bench_value_f32(f->seed, i);
        float want_bare, want_fused;
        FMA_CHAINS(host_bare, x, want_bare);
        FMA_CHAINS(horner8_fused, x, want_fused);
        rounds_differ += memcmp(&want_bare, &want_fused, sizeof(float)) != 0;
        const float expect_bare = bare_is_fused ? want_fused : want_bare;
        if (memcmp(&bare[i], &expect_bare, sizeof(float)) != 0) {
            snprintf(check, size, "bare [%zu] = %a, want %a (%s)", i,
                     (double)bare[i], (double)expect_bare,
                     bare_is_fused ? "fused: DUO_FAST_FMA" : "no fusion");
            ok = 0;
        } else if (memcmp(&fused[i], &want_fused, sizeof(float)) != 0) {
            snprintf(check, size, "fmaf [%zu] = %a, want %a", i,
                     (double)fused[i], (double)want_fused);
            ok = 0;
        }
    }
    if (ok)
        snprintf(check, size, "both exact; %.0f%% of elements differ "
                 "between them", 100.0 * (double)rounds_differ /
                 (double)f->n);
    free(bare);
    free(fused);
    return ok;
}

double bench_fma_flops(const bench_fma *f)
{
    return 2.0 * CHAINS * STEPS * (double)f->n;
}

void bench_fma_teardown(bench_fma *f)
{
    DUO_CHECK(duo_free(f->x));
    DUO_CHECK(duo_free(f->bare));
    DUO_CHECK(duo_free(f->fused));
    f->x = f->bare = f->fused = NULL;
}
