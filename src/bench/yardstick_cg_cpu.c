/*
 * yardstick_cg_cpu.c - duo-bench's solver yardstick in CPU builds: the
 * CG of src/solvers/cg_solver.h as hand-written OpenMP loops (plain loops
 * in the serial build), each dot product fused into the loop that makes
 * its vector, with OpenMP's reduction clause.  A run does a fixed number
 * of iterations, no convergence test.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yardstick.h"

static struct {
    size_t nx, ny, n, iterations;
    const double *b;
    double *x, *r, *p, *q;
} cg;

static double *cg_alloc(size_t bytes)
{
    double *v = (double *)malloc(bytes);
    if (v == NULL) {
        fprintf(stderr, "duo-bench: yardstick cg: out of memory\n");
        exit(1);
    }
    return v;
}

int ys_cg_setup(size_t nx, size_t ny, const double *b, size_t iterations)
{
    cg.nx = nx;
    cg.ny = ny;
    cg.n = nx * ny;
    cg.iterations = iterations;
    cg.b = b;
    cg.x = cg_alloc(cg.n * sizeof(double));
    cg.r = cg_alloc(cg.n * sizeof(double));
    cg.p = cg_alloc(cg.n * sizeof(double));
    cg.q = cg_alloc(cg.n * sizeof(double));
    return 1;
}

void ys_cg_run(void)
{
    const size_t nx = cg.nx, ny = cg.ny, n = cg.n;
    double *x = cg.x, *r = cg.r, *p = cg.p, *q = cg.q;
    const double *b = cg.b;
    double rr = 0.0;
#pragma omp parallel for reduction(+ : rr)
    for (size_t i = 0; i < n; ++i) {
        x[i] = 0.0;
        r[i] = b[i];
        p[i] = b[i];
        rr += b[i] * b[i];
    }
    for (size_t it = 0; it < cg.iterations; ++it) {
        double pq = 0.0;
#pragma omp parallel for reduction(+ : pq)
        for (size_t i = 0; i < ny; ++i)
            for (size_t j = 0; j < nx; ++j) {
                const size_t c = i * nx + j;
                const double west = j > 0 ? p[c - 1] : 0.0;
                const double east = j + 1 < nx ? p[c + 1] : 0.0;
                const double north = i > 0 ? p[c - nx] : 0.0;
                const double south = i + 1 < ny ? p[c + nx] : 0.0;
                const double v = 4.0 * p[c] - ((west + east) + (north + south));
                q[c] = v;
                pq += p[c] * v;
            }
        const double alpha = rr / pq;
        double rr_new = 0.0;
#pragma omp parallel for reduction(+ : rr_new)
        for (size_t i = 0; i < n; ++i) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
            rr_new += r[i] * r[i];
        }
        const double beta = rr_new / rr;
#pragma omp parallel for
        for (size_t i = 0; i < n; ++i)
            p[i] = r[i] + beta * p[i];
        rr = rr_new;
    }
}

const double *ys_cg_x(void) { return cg.x; }

void ys_cg_free(void)
{
    free(cg.x);
    free(cg.r);
    free(cg.p);
    free(cg.q);
    memset(&cg, 0, sizeof cg);
}
