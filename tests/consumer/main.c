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
 * the host reference (reference.c) bit for bit.  Then a user reduction
 * of bare x*y + 0.1f terms, which must equal duo_reduce over the
 * reference's terms, and a segmented sum of the outputs over segments of
 * uneven lengths, each equal to duo_reduce over its segment.  The
 * outputs, their duo_reduce sum, the user reduction and the segment sums
 * are written raw to DUMP for the script to compare across backends,
 * thread counts and the GPU.
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

/* The user reduction: a double sum of float terms, bare products plus a
 * constant (in double, one fused term would change the sum's bits). */
typedef struct term_args {
    const float *x, *y;
} term_args;

DUO_DEVICE float term(size_t i, term_args a)
{
    return a.x[i] * a.y[i] + 0.1f;
}

DUO_REDUCE_DEFINE(sum_terms, double, DUO_SUM, term, term_args)

/* Segments of the outputs for the segmented sum: lengths growing with
 * the index, from 42 outputs to 12940. */
enum { NSEG = 97 };

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

    /* The user reduction: duo_reduce over the same terms (computed by
     * the reference, each product rounded) as doubles, bit for bit. */
    term_args args = {x, y};
    double user = 0.0;
    if (sum_terms(N, args, &user) != DUO_SUCCESS)
        return fail("sum_terms");
    fp_terms(N, hx, hy, want);
    double *terms = (double *)malloc(N * sizeof(double));
    if (terms == NULL)
        return fail("malloc");
    for (size_t i = 0; i < N; ++i)
        terms[i] = want[i];
    double user_want = 0.0;
    if (duo_memcpy(out, terms, N * sizeof(double), DUO_HOST_TO_DEVICE) ||
        duo_reduce(DUO_SUM, DUO_F64, out, N, &user_want))
        return fail("duo_reduce of the terms");
    free(terms);
    if (memcmp(&user, &user_want, sizeof user) != 0) {
        printf("fp_consumer: FAIL: %s: the user reduction gave %a, "
               "duo_reduce over the same terms %a\n", duo_backend_name(),
               user, user_want);
        return 1;
    }

    /* The segmented sum of the kernel's outputs, each segment against
     * duo_reduce over it alone. */
    size_t offsets[NSEG + 1];
    for (size_t s = 0; s <= NSEG; ++s)
        offsets[s] = values / (NSEG * NSEG) * s * s +
                     (s == NSEG ? values % (NSEG * NSEG) : 0);
    size_t *doffsets = NULL;
    double *dseg = NULL, seg[NSEG];
    if (duo_memcpy(out, hout, values * sizeof(float), DUO_HOST_TO_DEVICE) ||
        duo_malloc((void **)&doffsets, sizeof offsets) ||
        duo_malloc((void **)&dseg, sizeof seg) ||
        duo_memcpy(doffsets, offsets, sizeof offsets, DUO_HOST_TO_DEVICE) ||
        duo_segmented_reduce(DUO_SUM, DUO_F32, out, values, doffsets, NSEG,
                             dseg, NULL) ||
        duo_memcpy(seg, dseg, sizeof seg, DUO_DEVICE_TO_HOST))
        return fail("duo_segmented_reduce");
    for (size_t s = 0; s < NSEG; ++s) {
        double alone = 0.0;
        if (duo_reduce(DUO_SUM, DUO_F32, out + offsets[s],
                       offsets[s + 1] - offsets[s], &alone))
            return fail("duo_reduce of a segment");
        if (memcmp(&seg[s], &alone, sizeof alone) != 0) {
            printf("fp_consumer: FAIL: %s: segment %zu sums to %a, "
                   "duo_reduce over it alone to %a\n", duo_backend_name(),
                   s, seg[s], alone);
            return 1;
        }
    }

    /* The dump: the kernel's outputs, their sum, the user reduction and
     * the segment sums. */
    FILE *f = fopen(argv[1], "wb");
    if (f == NULL) {
        printf("fp_consumer: FAIL: cannot write %s\n", argv[1]);
        return 1;
    }
    int written = dump_append(f, hout, values * sizeof(float)) &&
                  dump_append(f, &sum, sizeof sum) &&
                  dump_append(f, &user, sizeof user) &&
                  dump_append(f, seg, sizeof seg);
    written = fclose(f) == 0 && written;
    if (!written) {
        printf("fp_consumer: FAIL: writing %s\n", argv[1]);
        return 1;
    }

    printf("fp_consumer: %s (%s): %zu values equal the reference, bit for "
           "bit (fused, %zu of the %d first steps would round "
           "differently); sum %.17g; user reduction %.17g and %d segment "
           "sums equal duo_reduce's\n", duo_backend_name(),
           duo_backend_reason(), values, fused, (int)N, sum, user,
           (int)NSEG);
    if (duo_free(x) || duo_free(y) || duo_free(out) ||
        duo_free(doffsets) || duo_free(dseg) || duo_finalize())
        return fail("duo_free/duo_finalize");
    free(hx);
    free(hy);
    free(hout);
    free(want);
    return 0;
}
