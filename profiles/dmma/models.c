/*
 * models.c - holds what the FP64 tensor cores returned (probe.cu) against
 * candidate arithmetics, computed here from the same cases (cases.h).
 *
 *   models DIR [CASES]   reads DIR/m8n8k4.bin and DIR/m16n8k8.bin
 *
 * For every element d = c + sum_k a_k b_k of every case it counts, per
 * kind of case, how often the GPU's bits equal each model's:
 *   chain       fma(a_K-1, b_K-1, ... fma(a_0, b_0, c)): duo's order, the
 *               CPU's and the DFMA kernel's
 *   chain-rev   the same chain from k = K-1 down to 0
 *   round-once  c + sum_k a_k b_k computed exactly, rounded once to double
 *   dot-then-c  sum_k a_k b_k exactly, rounded; then + c, rounded
 *   halves      (K = 8) round-once over k 0-3 onto c, then round-once over
 *               k 4-7 onto that: two m8n8k4 steps
 * Exact sums come from MPFR at 4096 bits, more than the whole exponent
 * range of the cases' terms needs.  Needs MPFR and GMP.
 */
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"

enum { CHAIN, CHAIN_REV, ROUND_ONCE, DOT_THEN_C, HALVES, MODELS };
static const char *const model_names[MODELS] = {
    "chain", "chain-rev", "round-once", "dot-then-c", "halves"};

static mpfr_t acc, prod;

/* c + sum_{k in [k0, k1)} a_k b_k, exact, rounded once to double. */
static double round_once(const double *a, const double *b, int k0, int k1,
                         double c)
{
    mpfr_set_d(acc, c, MPFR_RNDN);
    for (int k = k0; k < k1; ++k) {
        mpfr_set_d(prod, a[k], MPFR_RNDN);
        mpfr_mul_d(prod, prod, b[k], MPFR_RNDN); /* exact at 4096 bits */
        mpfr_add(acc, acc, prod, MPFR_RNDN);     /* exact at 4096 bits */
    }
    return mpfr_get_d(acc, MPFR_RNDN);
}

static int same(double x, double y)
{
    return memcmp(&x, &y, sizeof x) == 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: models DIR [CASES]\n");
        return 2;
    }
    mpfr_init2(acc, 4096);
    mpfr_init2(prod, 4096);
    for (int s = 0; s < 2; ++s) {
        const dmma_shape *sh = &dmma_shapes[s];
        const int M = sh->m, N = sh->n, K = sh->k;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.bin", argv[1], sh->name);
        FILE *f = fopen(path, "rb");
        if (!f) {
            fprintf(stderr, "models: cannot open %s\n", path);
            return 1;
        }
        fseek(f, 0, SEEK_END);
        const long bytes = ftell(f);
        fseek(f, 0, SEEK_SET);
        long cases = bytes / (8L * M * N);
        if (argc == 3 && atol(argv[2]) < cases)
            cases = atol(argv[2]);
        double *a = malloc(sizeof(double) * M * K);
        double *b = malloc(sizeof(double) * K * N);
        double *c = malloc(sizeof(double) * M * N);
        double *d = malloc(sizeof(double) * M * N);
        long total[DMMA_KINDS] = {0}, match[DMMA_KINDS][MODELS] = {{0}};
        double col[8], row[8];
        for (long i = 0; i < cases; ++i) {
            if (fread(d, sizeof(double), (size_t)M * N, f) != (size_t)M * N) {
                fprintf(stderr, "models: %s is short\n", path);
                return 1;
            }
            dmma_case(sh, (uint64_t)i, a, b, c);
            const int kind = (int)(i % DMMA_KINDS);
            for (int r = 0; r < M; ++r)
                for (int j = 0; j < N; ++j) {
                    for (int k = 0; k < K; ++k) {
                        row[k] = a[r * K + k];
                        col[k] = b[j * K + k];
                    }
                    const double cij = c[r * N + j], g = d[r * N + j];
                    double m[MODELS];
                    double x = cij;
                    for (int k = 0; k < K; ++k)
                        x = fma(row[k], col[k], x);
                    m[CHAIN] = x;
                    x = cij;
                    for (int k = K - 1; k >= 0; --k)
                        x = fma(row[k], col[k], x);
                    m[CHAIN_REV] = x;
                    m[ROUND_ONCE] = round_once(row, col, 0, K, cij);
                    m[DOT_THEN_C] = round_once(row, col, 0, K, 0.0) + cij;
                    m[HALVES] = K == 8 ? round_once(row, col, 4, 8,
                                                    round_once(row, col, 0,
                                                               4, cij))
                                       : m[ROUND_ONCE];
                    ++total[kind];
                    for (int q = 0; q < MODELS; ++q)
                        match[kind][q] += same(g, m[q]);
                }
        }
        fclose(f);
        printf("%s, %ld cases (%d elements each): elements whose bits "
               "equal the model's\n", sh->name, cases, M * N);
        printf("  %-9s %9s", "kind", "elements");
        for (int q = 0; q < MODELS; ++q)
            printf(" %11s", model_names[q]);
        printf("\n");
        for (int kd = 0; kd < DMMA_KINDS; ++kd) {
            printf("  %-9s %9ld", dmma_kind_names[kd], total[kd]);
            for (int q = 0; q < MODELS; ++q)
                printf(" %10.4f%%",
                       total[kd] ? 100.0 * match[kd][q] / total[kd] : 0.0);
            printf("\n");
        }
        free(a);
        free(b);
        free(c);
        free(d);
    }
    mpfr_clear(acc);
    mpfr_clear(prod);
    return 0;
}
