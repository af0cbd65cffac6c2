/*
 * bench_solver.c - the solver group: SOLVER_ITERATIONS iterations of
 * duo's CG (src/solvers) from x = 0 against the same CG hand-written
 * with raw kernels, CUB and one CUDA graph (GPU) or OpenMP loops (CPU);
 * and duo's CG with its graph against the same iterations as plain
 * calls.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cg_solver.h"
#include "stream_kernels.h"

/* Iterations per timed run: short of convergence at every size here
 * (CG needs about 390 at 128^2 for 1e-8), so every run does the same
 * work on data far from underflow. */
#define SOLVER_ITERATIONS (8 * CG_BATCH)

typedef struct solver_ctx {
    cg_solver cg;
} solver_ctx;

static void run_duo_cg(void *p)
{
    solver_ctx *c = (solver_ctx *)p;
    cg_solver_start(&c->cg);
    cg_solver_run(&c->cg, SOLVER_ITERATIONS / CG_BATCH);
}

static void run_duo_cg_uncaptured(void *p)
{
    solver_ctx *c = (solver_ctx *)p;
    cg_solver_start(&c->cg);
    cg_solver_run_uncaptured(&c->cg, SOLVER_ITERATIONS / CG_BATCH);
}

static void run_ys_cg(void *p)
{
    (void)p;
    ys_cg_run();
}

/* After one run of each: ||x_duo - x_ys|| <= 1e-6 ||x_ys||.  The two add
 * their dot products in different orders, so their iterates drift apart
 * from the rounding level u at a rate bounded by cond(A) (at most ~2e6
 * here); 1e-6 is far above that and far below the O(1) difference of a
 * wrong step. */
static void check_cg(solver_ctx *c, row *r)
{
    const size_t n = c->cg.count, bytes = n * sizeof(double);
    double *xd = (double *)malloc(bytes), *xy = (double *)malloc(bytes);
    if (xd == NULL || xy == NULL)
        bench_fatal("out of host memory (%s)", "cg check");
    DUO_CHECK(duo_memcpy(xd, c->cg.x, bytes, DUO_DEVICE_TO_HOST));
    DUO_CHECK(duo_memcpy(xy, ys_cg_x(), bytes, DUO_DEVICE_TO_HOST));
    double d2 = 0.0, y2 = 0.0;
    for (size_t i = 0; i < n; ++i) {
        d2 += (xd[i] - xy[i]) * (xd[i] - xy[i]);
        y2 += xy[i] * xy[i];
    }
    const double rel = y2 > 0 ? sqrt(d2 / y2) : sqrt(d2);
    r->check_ok = rel <= 1e-6 && y2 > 0;
    snprintf(r->check, sizeof r->check, "||x-x_%s|| / ||x_%s|| = %.2g "
             "<= 1e-6", r->ys_name ? r->ys_name : "ys",
             r->ys_name ? r->ys_name : "ys", rel);
    free(xd);
    free(xy);
}

/* x after a graph run and after a plain run: the same bits. */
static void check_uncaptured(solver_ctx *c, row *r)
{
    const size_t bytes = c->cg.count * sizeof(double);
    double *xg = (double *)malloc(bytes), *xp = (double *)malloc(bytes);
    if (xg == NULL || xp == NULL)
        bench_fatal("out of host memory (%s)", "cg check");
    run_duo_cg(c);
    DUO_CHECK(duo_memcpy(xg, c->cg.x, bytes, DUO_DEVICE_TO_HOST));
    run_duo_cg_uncaptured(c);
    DUO_CHECK(duo_memcpy(xp, c->cg.x, bytes, DUO_DEVICE_TO_HOST));
    r->check_ok = memcmp(xg, xp, bytes) == 0;
    snprintf(r->check, sizeof r->check, "x %s with and without the graph",
             r->check_ok ? "bit-identical" : "DIFFERS");
    free(xg);
    free(xp);
}

static void bench_solver(bench *b)
{
    static const size_t gpu_sides[] = {128, 512, 2048};
    static const size_t cpu_sides[] = {128, 512};
    const size_t *sides = b->gpu ? gpu_sides : cpu_sides;
    size_t count = b->gpu ? 3 : 2;
    if (b->quick)
        count = 1;
    for (size_t s = 0; s < count; ++s) {
        const size_t side = sides[s], n = side * side;
        char what[32], size[32];
        snprintf(what, sizeof what, "cg %d it", SOLVER_ITERATIONS);
        snprintf(size, sizeof size, "%zux%zu", side, side);
        row *r = bench_new_row(b, what, size);
        r->region = n * 5 * sizeof(double) >= b->ys.cache_bytes ? "bandwidth"
                                                                : "latency";
        /* duo's traffic: 14 doubles per unknown and iteration. */
        r->amount = 14.0 * sizeof(double) * (double)n * SOLVER_ITERATIONS;
        r->unit = "GB/s";
        r->unit_scale = 1e9;
        double *rhs = (double *)bench_device_alloc(n * sizeof(double));
        DUO_CHECK(bench_fill_f64(rhs, n, bench_new_seed(b)));
        solver_ctx ctx;
        cg_solver_create(&ctx.cg, side, side, 0.0, SOLVER_ITERATIONS, rhs);
        const int has_ys = ys_cg_setup(side, side, rhs, SOLVER_ITERATIONS);
        r->ys_name = has_ys ? (b->gpu ? "raw CUDA cg" : "OpenMP cg") : NULL;
        run_duo_cg(&ctx);
        if (has_ys) {
            run_ys_cg(&ctx);
            DUO_CHECK(duo_synchronize());
            check_cg(&ctx, r);
        }
        bench_measure(b, run_duo_cg, has_ys ? run_ys_cg : NULL, &ctx, r);
        bench_finish_row(b, r);

        /* What the graph costs or saves: the same iterations as plain
         * calls.  The results are the same bits. */
        snprintf(what, sizeof what, "cg %d it graph", SOLVER_ITERATIONS);
        row *g = bench_new_row(b, what, size);
        g->region = r->region;
        g->amount = r->amount;
        g->unit = r->unit;
        g->unit_scale = r->unit_scale;
        g->ys_name = "duo, no graph";
        check_uncaptured(&ctx, g);
        bench_measure(b, run_duo_cg, run_duo_cg_uncaptured, &ctx, g);
        bench_finish_row(b, g);
        if (has_ys)
            ys_cg_free();
        cg_solver_destroy(&ctx.cg);
        DUO_CHECK(duo_free(rhs));
    }
}

const bench_group bench_group_solver = {
    .name = "solver",
    .run = bench_solver,
};
