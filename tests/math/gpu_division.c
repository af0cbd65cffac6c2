/*
 * gpu_division.c - math-gpu-division: the functions of <duo/math.h> with
 * the GPU's division steps run on the host, against the host's own
 * division, bit for bit; no GPU needed.
 *
 *   math-gpu-division [--step N] [FUNC...]
 *
 * On the GPU, duo_m_div_rn_ (math_core.h) divides by a correctly rounded
 * reciprocal and two fma corrections, which by Markstein's theorem is
 * the IEEE quotient wherever its operands are normal doubles; host code
 * divides.  The functions that use it rely on that for the same bits
 * everywhere, and only a comparison on every argument shows that their
 * operands do stay in range.  This tool links two copies of the
 * functions (gpu_division_eval.c, once built with
 * DUO_MATH_GPU_DIVISION) and runs both on every float bit pattern (every
 * N-th one with --step N; atan2f and hypotf on 2^32 pairs of
 * math_pairs.h's pair_of, powf of powf_pair_of), and the double
 * functions on 2^24 arguments (2^32 / N with --step N, if fewer): random
 * bit patterns, half of x uniform in [-1, 1), and for pow half of them x
 * within 2^-9 of 1 with |y| up to 2^10.  math-gpu-sweep compares the GPU
 * itself with the host, on a CUDA build with a GPU.
 *
 * One line per function: arguments, results that differ (NaN payloads
 * and the sign of zero included), and the first ones.  Exit status 1 if
 * any result differs, 2 on a bad command line.  With no FUNC, every
 * function, float and double.  OpenMP threads share the work.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "math_funcs.h"
#include "math_pairs.h"

#define SHOW_MAX 4
#define DOUBLE_MAX ((int64_t)1 << 24)

float eval_f_native(int f, float x, float y);
float eval_f_gpu_division(int f, float x, float y);
double eval_d_native(int f, double x, double y);
double eval_d_gpu_division(int f, double x, double y);

/* The arguments of float function f for pattern i. */
static void float_args(int f, uint64_t i, float *x, float *y)
{
    *y = 0.0f;
    if (f == MF_POWF)
        powf_pair_of(i, x, y);
    else if (f >= MF_FIRST_BINARY)
        pair_of(i, x, y);
    else
        *x = duo_f32_from_bits_((uint32_t)i);
}

/* The arguments of double function f for draw i (splitmix64). */
static void double_args(int f, uint64_t i, double *x, double *y)
{
    const uint64_t z = mp_draw_(i);
    uint64_t w = z * 0xD1B54A32D192ED03ull;
    w ^= w >> 29;
    *x = duo_f64_from_bits_(z);
    *y = duo_f64_from_bits_(w);
    if (f == MD_POW && (i & 1)) {
        *x = 1.0 + (double)((int64_t)z >> 20) * 0x1p-52;
        *y = (double)((int64_t)w >> 10) * 0x1p-43;
    } else if (i & 2) {
        *x = (double)((int64_t)z >> 11) * 0x1p-52; /* in [-1, 1) */
    }
}

static uint64_t run_float(int f, uint64_t step)
{
    const int64_t count = (int64_t)(0xffffffffull / step) + 1;
    uint64_t differ = 0;
    int shown = 0;
#pragma omp parallel for schedule(dynamic, 65536) reduction(+ : differ)
    for (int64_t k = 0; k < count; ++k) {
        float x, y;
        float_args(f, (uint64_t)k * step, &x, &y);
        float a = eval_f_native(f, x, y), b = eval_f_gpu_division(f, x, y);
        if (duo_bits_from_f32_(a) == duo_bits_from_f32_(b))
            continue;
        ++differ;
#pragma omp critical(show)
        if (shown < SHOW_MAX) {
            ++shown;
            printf("  %s(%a, %a): divided %a, GPU's steps %a\n", mf_names[f],
                   (double)x, (double)y, (double)a, (double)b);
        }
    }
    printf("%-12s %" PRIu64 " of %" PRId64 " differ\n", mf_names[f], differ,
           count);
    return differ;
}

static uint64_t run_double(int f, uint64_t step)
{
    int64_t count = (int64_t)(0xffffffffull / step) + 1;
    if (count > DOUBLE_MAX)
        count = DOUBLE_MAX;
    uint64_t differ = 0;
    int shown = 0;
#pragma omp parallel for schedule(dynamic, 65536) reduction(+ : differ)
    for (int64_t k = 0; k < count; ++k) {
        double x, y;
        double_args(f, (uint64_t)k, &x, &y);
        double a = eval_d_native(f, x, y), b = eval_d_gpu_division(f, x, y);
        if (duo_bits_from_f64_(a) == duo_bits_from_f64_(b))
            continue;
        ++differ;
#pragma omp critical(show)
        if (shown < SHOW_MAX) {
            ++shown;
            printf("  %s(%a, %a): divided %a, GPU's steps %a\n", md_names[f],
                   x, y, a, b);
        }
    }
    printf("%-12s %" PRIu64 " of %" PRId64 " differ\n", md_names[f], differ,
           count);
    return differ;
}

static int usage(const char *msg)
{
    fprintf(stderr, "math-gpu-division: %s\nusage: math-gpu-division "
                    "[--step N] [FUNC...]\nfunctions:", msg);
    for (int f = 0; f < MF_COUNT; ++f)
        fprintf(stderr, " %s", mf_names[f]);
    for (int f = 0; f < MD_COUNT; ++f)
        fprintf(stderr, " %s", md_names[f]);
    fprintf(stderr, "\n");
    return 2;
}

int main(int argc, char **argv)
{
    uint64_t step = 1;
    int pick_f[MF_COUNT] = {0}, pick_d[MD_COUNT] = {0}, picked = 0;
    for (int a = 1; a < argc; ++a) {
        if (!strcmp(argv[a], "--step")) {
            char *end = NULL;
            if (a + 1 >= argc)
                return usage("--step needs a count");
            unsigned long long v = strtoull(argv[++a], &end, 10);
            if (*argv[a] == '\0' || *end != '\0' || v == 0 ||
                v > 0xffffffffull)
                return usage("--step takes a count from 1 to 2^32 - 1");
            step = v;
            continue;
        }
        int found = 0;
        for (int f = 0; f < MF_COUNT; ++f)
            if (!strcmp(argv[a], mf_names[f]))
                pick_f[f] = found = 1;
        for (int f = 0; f < MD_COUNT; ++f)
            if (!strcmp(argv[a], md_names[f]))
                pick_d[f] = found = 1;
        if (!found)
            return usage("unknown function");
        picked = 1;
    }
    printf("math-gpu-division: step %" PRIu64 "\n", step);
    fflush(stdout);
    uint64_t differ = 0;
    for (int f = 0; f < MF_COUNT; ++f)
        if (!picked || pick_f[f]) {
            differ += run_float(f, step);
            fflush(stdout);
        }
    for (int f = 0; f < MD_COUNT; ++f)
        if (!picked || pick_d[f]) {
            differ += run_double(f, step);
            fflush(stdout);
        }
    return differ ? 1 : 0;
}
