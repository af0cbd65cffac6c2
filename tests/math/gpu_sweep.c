/*
 * gpu_sweep.c - math-gpu-sweep: every function of <duo/math.h> on all
 * 2^32 float arguments, in a kernel and in host code, bits compared.
 *
 *   math-gpu-sweep [FUNC...]
 *
 * On a CUDA build with a GPU this is the full GPU-vs-CPU proof (the host
 * side runs on all OpenMP threads); on other builds and the host path
 * it compares the kernel loop with plain host calls.  Arguments go
 * through in slices of 2^28.  atan2f, hypotf and powf take y = the bits
 * of x scrambled (a bijection), so each of 2^32 x meets one y.  One line per
 * function: mismatches and the first one.  Exit status 1 on any
 * mismatch.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "math_funcs.h"

#define SLICE ((size_t)1 << 28)

/* The y that meets argument bits u (odd multiplier and xorshift: a
 * bijection of 32-bit words). */
DUO_DEVICE uint32_t sweep_partner(uint32_t u)
{
    u *= 0x9E3779B1u;
    return u ^ (u >> 15);
}

DUO_KERNEL(sweep_eval, size_t n, uint32_t base, int f, float *out)
{
    DUO_FOR(i, n) {
        uint32_t u = base + (uint32_t)i;
        out[i] = duo_math_eval(f, duo_f32_from_bits_(u),
                               duo_f32_from_bits_(sweep_partner(u)));
    }
}

int main(int argc, char **argv)
{
    int want[MF_COUNT], any = 0;
    memset(want, 0, sizeof want);
    for (int a = 1; a < argc; ++a) {
        int f = 0;
        while (f < MF_COUNT && strcmp(argv[a], mf_names[f]))
            ++f;
        if (f == MF_COUNT) {
            fprintf(stderr, "math-gpu-sweep: unknown function '%s'; "
                            "functions:", argv[a]);
            for (f = 0; f < MF_COUNT; ++f)
                fprintf(stderr, " %s", mf_names[f]);
            fprintf(stderr, "\n");
            return 2;
        }
        want[f] = any = 1;
    }
    DUO_CHECK(duo_init());
    printf("math-gpu-sweep: %s\n", duo_backend_name());
    float *dout, *got = (float *)malloc(SLICE * sizeof(float));
    if (!got) {
        fprintf(stderr, "math-gpu-sweep: out of host memory\n");
        return 1;
    }
    DUO_CHECK(duo_malloc((void **)&dout, SLICE * sizeof(float)));
    int failed = 0;
    for (int f = 0; f < MF_COUNT; ++f) {
        if (any && !want[f])
            continue;
        uint64_t bad = 0, first = 0;
        for (uint64_t base = 0; base < ((uint64_t)1 << 32); base += SLICE) {
            DUO_CHECK(DUO_LAUNCH(sweep_eval, SLICE, SLICE, (uint32_t)base, f,
                                 dout));
            DUO_CHECK(duo_memcpy(got, dout, SLICE * sizeof(float),
                                 DUO_DEVICE_TO_HOST));
            uint64_t slice_bad = 0, slice_first = UINT64_MAX;
#pragma omp parallel for schedule(static) reduction(+ : slice_bad) \
    reduction(min : slice_first)
            for (long long i = 0; i < (long long)SLICE; ++i) {
                uint32_t u = (uint32_t)(base + (uint64_t)i);
                float h = duo_math_eval(f, duo_f32_from_bits_(u),
                                        duo_f32_from_bits_(sweep_partner(u)));
                if (duo_bits_from_f32_(h) != duo_bits_from_f32_(got[i])) {
                    ++slice_bad;
                    if ((uint64_t)i < slice_first)
                        slice_first = (uint64_t)i;
                }
            }
            if (slice_bad && !bad)
                first = base + slice_first;
            bad += slice_bad;
        }
        printf("%-12s %" PRIu64 " of 4294967296 differ", mf_names[f], bad);
        if (bad) {
            uint32_t u = (uint32_t)first;
            float x = duo_f32_from_bits_(u);
            float y = duo_f32_from_bits_(sweep_partner(u));
            float h = duo_math_eval(f, x, y);
            DUO_CHECK(DUO_LAUNCH(sweep_eval, 1, (size_t)1, u, f, dout));
            float d;
            DUO_CHECK(duo_memcpy(&d, dout, sizeof d, DUO_DEVICE_TO_HOST));
            printf("; first at x = %a (0x%08" PRIx32 "), y = %a: kernel %a, "
                   "host %a", (double)x, u, (double)y, (double)d, (double)h);
            failed = 1;
        }
        printf("\n");
        fflush(stdout);
    }
    DUO_CHECK(duo_free(dout));
    free(got);
    DUO_CHECK(duo_finalize());
    return failed;
}
