/*
 * main.c - a user's program built against an installed duo with nothing
 * but what duo's package gives it (tests/consumer/test_consumer.sh builds
 * it with CMake and with pkg-config, for every backend):
 *
 *   fp_consumer DUMP
 *
 * A kernel full of bare a*b+c on float data with constants such as 0.1f,
 * which gives the same bits on every backend only if nothing contracts
 * them into fmas (duo's flags: -ffp-contract=off, nvcc --fmad=false), and
 * explicit fmaf, which must stay one rounding.  Its outputs must equal
 * the host reference (reference.c) bit for bit; then they, and their
 * duo_reduce sum, are written raw to DUMP for the script to compare
 * across backends, thread counts and the GPU.
 *
 * Exit status 0; 1 on a wrong result or a failed call; 77 in a CUDA build
 * with DUO_DEVICE=gpu and no usable GPU.  Kernel source: the common
 * subset of C11 and CUDA C++.
 */
#include <duo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp_kernel.h"

/* Every product rounded before its sum, unless written fmaf. */
DUO_KERNEL(fp_kernel, size_t n, float a0, const float *x, const float *y,
           float *out)
{
    DUO_FOR(i, n) {
        const float a = x[i], b = y[i];
        float p = a0 * a + b;
        p = p * a + 0.7f;
        p = p * a - 0.3f;
        float q = p * b + 0.2f * a;
        q = q - a * 0.9f;
        const float r = (a + 0.5f) * (b - 0.25f) + q * q;
        out[FP_OUTPUTS * i] = p;
        out[FP_OUTPUTS * i + 1] = q;
        out[FP_OUTPUTS * i + 2] = r;
        out[FP_OUTPUTS * i + 3] = fmaf(a, b, 0.1f) * 0.3f + fmaf(p, 0.7f, q);
    }
}

/* A prime: no launch shape or vector width divides it. */
enum { N = 100003 };

static int fail(const char *what)
{
    printf("fp_consumer: FAIL: %s: %s\n", what, duo_last_error());
    return 1;
}

/* Uniform in [-2, 2) with all 24 bits of the significand in play. */
static float next_value(unsigned long long *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (float)(*state >> 40) * 0x1p-22f - 2.0f;
}

/* Appends `bytes` of `p` to the dump; 1 on success. */
static int dump_append(FILE *f, const void *p, size_t bytes)
{
    return fwrite(p, 1, bytes, f) == bytes;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fp_consumer DUMP\n");
        return 2;
    }
    const duo_status status = duo_init();
    if (status == DUO_ERROR_NO_DEVICE) {
        printf("SKIP: no GPU: %s\n", duo_last_error());
        return 77;
    }
    if (status != DUO_SUCCESS)
        return fail("duo_init");

    const float a0 = 0.1f;
    const size_t values = (size_t)FP_OUTPUTS * N;
    float *hx = (float *)malloc(N * sizeof(float));
    float *hy = (float *)malloc(N * sizeof(float));
    float *hout = (float *)malloc(values * sizeof(float));
    float *want = (float *)malloc(values * sizeof(float));
    if (hx == NULL || hy == NULL || hout == NULL || want == NULL)
        return fail("malloc");
    unsigned long long state = 20240531ull;
    for (size_t i = 0; i < N; ++i) {
        hx[i] = next_value(&state);
        hy[i] = next_value(&state);
    }
    const size_t fused = fp_fused_differs(N, a0, hx, hy);
    if (fused == 0) {
        printf("fp_consumer: FAIL: no element rounds differently when "
               "fused: the data cannot show contraction\n");
        return 1;
    }

    float *x = NULL, *y = NULL, *out = NULL;
    if (duo_malloc((void **)&x, N * sizeof(float)) != DUO_SUCCESS ||
        duo_malloc((void **)&y, N * sizeof(float)) != DUO_SUCCESS ||
        duo_malloc((void **)&out, values * sizeof(float)) != DUO_SUCCESS)
        return fail("duo_malloc");
    if (duo_memcpy(x, hx, N * sizeof(float), DUO_HOST_TO_DEVICE) ||
        duo_memcpy(y, hy, N * sizeof(float), DUO_HOST_TO_DEVICE) ||
        duo_memset(out, 0xFF, values * sizeof(float)))
        return fail("duo_memcpy H2D");
    if (DUO_LAUNCH(fp_kernel, N, N, a0, x, y, out) != DUO_SUCCESS)
        return fail("DUO_LAUNCH");
    double sum = 0.0;
    if (duo_reduce(DUO_SUM, DUO_F32, out, values, &sum) != DUO_SUCCESS)
        return fail("duo_reduce");
    memset(hout, 0xFF, values * sizeof(float));
    if (duo_memcpy(hout, out, values * sizeof(float), DUO_DEVICE_TO_HOST))
        return fail("duo_memcpy D2H");

    fp_reference(N, a0, hx, hy, want);
    for (size_t k = 0; k < values; ++k) {
        if (memcmp(&hout[k], &want[k], sizeof(float)) != 0) {
            printf("fp_consumer: FAIL: %s: output %zu of element %zu is "
                   "%a, the reference (each product rounded before its "
                   "sum) %a: a*b+c was contracted, or fmaf was not one "
                   "rounding\n", duo_backend_name(), k % FP_OUTPUTS,
                   k / FP_OUTPUTS, (double)hout[k], (double)want[k]);
            return 1;
        }
    }

    /* The dump: the kernel's outputs, then their sum. */
    FILE *f = fopen(argv[1], "wb");
    if (f == NULL) {
        printf("fp_consumer: FAIL: cannot write %s\n", argv[1]);
        return 1;
    }
    int written = dump_append(f, hout, values * sizeof(float)) &&
                  dump_append(f, &sum, sizeof sum);
    /* Later results (a user reduction, a segmented reduction) go here:
     * compute each on the device, check it against a host reference,
     * then dump_append it, so that the script compares it across
     * backends, thread counts and the GPU bit for bit. */
    written = fclose(f) == 0 && written;
    if (!written) {
        printf("fp_consumer: FAIL: writing %s\n", argv[1]);
        return 1;
    }

    printf("fp_consumer: %s (%s): %zu values equal the reference, bit for "
           "bit (fused, %zu of the %d first steps would round "
           "differently); sum %.17g\n", duo_backend_name(),
           duo_backend_reason(), values, fused, (int)N, sum);
    if (duo_free(x) || duo_free(y) || duo_free(out) || duo_finalize())
        return fail("duo_free/duo_finalize");
    free(hx);
    free(hy);
    free(hout);
    free(want);
    return 0;
}
