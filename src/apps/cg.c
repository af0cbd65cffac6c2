/*
 * cg.c - duo-cg: conjugate gradients for the 2-D Poisson problem on an
 * ny x nx interior grid, in double: A u = b with A the 5-point Laplacian
 * (4 on the diagonal, -1 for each of the four neighbours; Dirichlet zero
 * boundary) and a random right-hand side b from the seed.  The solver is
 * src/solvers/cg_solver.c: matrix-free, its scalars in device memory,
 * dot products by duo_dot_async, CG_BATCH iterations per duo_graph
 * replay and one host check per replay.
 *
 * Reproducibility: duo's sums add in one order fixed by n on every
 * backend and the kernels' arithmetic is written so no compiler can
 * contract it differently (cg_solver.c), so the iterates, the residual
 * history, the iteration count and x have the same bits on serial,
 * openmp (any thread count) and cuda.
 *
 *   build/<backend>/bin/duo-cg [nx [ny]] [--tol T] [--maxit M] [--reps R]
 *       [--seed S] [--check] [--dump FILE]
 *
 * Defaults: nx = 256, ny = nx, tol = 1e-8, maxit = 10 max(nx, ny) + 100
 * (CG needs about sqrt(cond(A))/2 ln(2/tol) iterations, cond(A) ~
 * 0.4 (n+1)^2, i.e. about 6 n for tol = 1e-8).  Prints the result line
 * (median of R solves, each from x = 0; GFLOP/s at a nominal 16 flops per
 * unknown and iteration) with the iteration count and the final relative
 * residual; when a solve takes more than 1 s, the warm-up solve prints
 * its progress every 10% of maxit to stderr.
 *
 * --check (on the warm-up solve) runs the same CG in plain C on the host,
 * in double, with its dot products summed left to right.  That order is
 * not duo's, so the two runs' iterates differ by rounding and cannot be
 * compared bit for bit.  Checked instead:
 *  1. the device solve converged (its recursive residual < tol);
 *  2. its true residual ||b - A x|| / ||b||, computed on the host from
 *     the device's x, is < 10 tol (the recursive residual r drifts from
 *     b - A x by rounding, slowly: a factor of 10 is ample);
 *  3. the host solve converged too, and ||x - x_host||_2 <=
 *     (||b - A x||_2 + ||b - A x_host||_2 + 2 e) / lambda_min(A): since
 *     x - x_host = A^-1 ((b - A x_host) - (b - A x)) exactly and A is
 *     symmetric positive definite, ||A^-1||_2 = 1 / lambda_min(A) with
 *     lambda_min = 4 sin^2(pi / (2 (nx + 1))) + 4 sin^2(pi / (2 (ny + 1)));
 *     e bounds the rounding of the two computed residual norms
 *     (gamma_6 ||(|b| + |A| |x|)||_2);
 *  4. the iteration counts differ by at most max(3, 10%): both runs are
 *     the same algorithm, perturbed only at the rounding level, so they
 *     stop at about the same iteration; a larger difference means the
 *     device computed something else (a wrong alpha or beta converges
 *     much more slowly, or not at all).
 * --dump FILE writes x ("x", f64, ny x nx) and the relative residual
 * after each iteration ("residual", f64).
 *
 * Several ranks (a build with -DDUO_MPI=ON, under mpirun): the grid's
 * rows are split among the ranks (duo/dist.h), p's halo rows come from
 * the neighbours before each A p, and the dot products are
 * duo_dist_dot_async, which has the bits of the single-process
 * duo_dot_async.  So x, the
 * residual history and the iteration count are the same, bit for bit,
 * for any number of ranks and as in the build without MPI; rank 0
 * gathers x for --check and --dump.  More ranks than rows is refused.
 * Without MPI the same code runs as rank 0 of 1.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <duo.h>
#include <duo/dist.h>

#include "app_common.h"
#include "cg_solver.h"
#include "dump.h"
#include "solver_app.h"

static const char *const PROG = "duo-cg";
static const char *const USAGE =
    "usage: duo-cg [nx [ny]] [--tol T] [--maxit M] [--reps R] [--seed S]\n"
    "              [--check] [--dump FILE] [--help]\n"
    "  Conjugate gradients for the 2-D Poisson problem (5-point Laplacian,\n"
    "  zero Dirichlet boundary) on an ny x nx grid in double, with a random\n"
    "  right-hand side (default 256 x 256).\n"
    "  nx, ny       grid points per row and per column, positive integers\n"
    "               (ny defaults to nx)\n"
    "  --tol T      stop when ||r|| / ||b|| < T (default 1e-8; 0 < T < 1)\n"
    "  --maxit M    at most M iterations, M <= 1e8 (default\n"
    "               10 max(nx, ny) + 100)\n"
    "  --reps R     timed solves after one warm-up solve (default 5); the\n"
    "               median is reported\n"
    "  --seed S     seed of the right-hand side (default 1)\n"
    "  --check      compare the warm-up solve with a host CG and check its\n"
    "               true residual; exit 1 on a failure\n"
    "  --dump FILE  write the solution x to FILE\n";

#define DEFAULT_N 256
#define DEFAULT_TOL 1e-8
#define FLOPS_PER_POINT 16.0 /* nominal, per unknown and iteration */

/* ------------------------------------------------------------------ */
/* Host side: plain C                                                  */

/* A solve of the app: the device solver, and what the last one gave. */
typedef struct cg_run {
    cg_solver solver;
    int progress;      /* may report progress to stderr */
    size_t iterations;
    double residual;   /* recursive: ||r|| / ||b|| */
    int state;         /* enum cg_state */
} cg_run;

static void run_cg(void *ctx)
{
    cg_run *c = (cg_run *)ctx;
    cg_solver_solve(&c->solver, PROG, c->progress);
    cg_solver_status(&c->solver, &c->iterations, &c->residual, &c->state);
}

/* out = A v on the ny x nx grid. */
static void apply_host(size_t nx, size_t ny, const double *v, double *out)
{
    for (size_t i = 0; i < ny; ++i)
        for (size_t j = 0; j < nx; ++j) {
            const size_t c = i * nx + j;
            const double west = j > 0 ? v[c - 1] : 0.0;
            const double east = j + 1 < nx ? v[c + 1] : 0.0;
            const double north = i > 0 ? v[c - nx] : 0.0;
            const double south = i + 1 < ny ? v[c + nx] : 0.0;
            out[c] = 4.0 * v[c] - ((west + east) + (north + south));
        }
}

static double dot_host(size_t count, const double *a, const double *b)
{
    double s = 0.0;
    for (size_t i = 0; i < count; ++i)
        s += a[i] * b[i];
    return s;
}

/* The same CG, sums left to right.  Returns the iteration count. */
static size_t cg_host(size_t nx, size_t ny, const double *b, double tol,
                      size_t maxit, double *x, double *residual,
                      int *converged)
{
    const size_t count = nx * ny, bytes = count * sizeof(double);
    double *r = (double *)app_host_alloc(PROG, bytes);
    double *p = (double *)app_host_alloc(PROG, bytes);
    double *q = (double *)app_host_alloc(PROG, bytes);
    memset(x, 0, bytes);
    memcpy(r, b, bytes);
    memcpy(p, b, bytes);
    double rr = dot_host(count, b, b);
    const double bnorm = sqrt(rr);
    size_t it = 0;
    *converged = !(bnorm > 0);
    *residual = *converged ? 0.0 : 1.0;
    while (!*converged && it < maxit) {
        apply_host(nx, ny, p, q);
        const double pq = dot_host(count, p, q);
        const double alpha = rr / pq;
        for (size_t i = 0; i < count; ++i) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
        }
        const double rr_new = dot_host(count, r, r);
        ++it;
        *residual = sqrt(rr_new) / bnorm;
        if (*residual < tol || !(pq > 0)) {
            *converged = *residual < tol;
            break;
        }
        const double beta = rr_new / rr;
        for (size_t i = 0; i < count; ++i)
            p[i] = r[i] + beta * p[i];
        rr = rr_new;
    }
    free(r);
    free(p);
    free(q);
    return it;
}

/* ||b - A x||_2, and in *err a bound on that norm's rounding error:
 * each component is b - (4 x - (four neighbours)) in 6 roundings, so
 * its error is at most gamma_6 (|b| + |A| |x|); the norm's, at most the
 * norm of those (the rest is second order). */
static double true_residual(size_t nx, size_t ny, const double *b,
                            const double *x, double *err)
{
    const size_t count = nx * ny;
    double *ax = (double *)app_host_alloc(PROG, count * sizeof(double));
    double *absx = (double *)app_host_alloc(PROG, count * sizeof(double));
    double *aabs = (double *)app_host_alloc(PROG, count * sizeof(double));
    apply_host(nx, ny, x, ax);
    /* |A| |x| = 8 |x| - A |x| */
    for (size_t i = 0; i < count; ++i)
        absx[i] = fabs(x[i]);
    apply_host(nx, ny, absx, aabs);
    const double u = 0x1p-53, g6 = 6 * u / (1 - 6 * u);
    double s = 0.0, e = 0.0;
    for (size_t i = 0; i < count; ++i) {
        const double ri = b[i] - ax[i];
        const double mag = fabs(b[i]) + (8.0 * absx[i] - aabs[i]);
        s += ri * ri;
        e += (g6 * mag) * (g6 * mag);
    }
    free(ax);
    free(absx);
    free(aabs);
    *err = sqrt(e) * (1 + 1e-6);
    return sqrt(s);
}

static int check_cg(const cg_run *c, const double *b, const double *x)
{
    const size_t nx = c->solver.nx, ny = c->solver.ny;
    const size_t count = nx * ny;
    const double tol = c->solver.tol;
    const double bnorm = sqrt(dot_host(count, b, b));
    double *xh = (double *)app_host_alloc(PROG, count * sizeof(double));
    double host_residual = 0.0;
    int host_converged = 0;
    const size_t host_it = cg_host(nx, ny, b, tol, c->solver.maxit, xh,
                                   &host_residual, &host_converged);

    double err_dev = 0.0, err_host = 0.0;
    const double res_dev = true_residual(nx, ny, b, x, &err_dev);
    const double res_host = true_residual(nx, ny, b, xh, &err_host);
    const double pi = 3.14159265358979323846;
    const double sx = sin(pi / (2.0 * (double)(nx + 1)));
    const double sy = sin(pi / (2.0 * (double)(ny + 1)));
    const double lambda_min = 4.0 * sx * sx + 4.0 * sy * sy;
    const double bound =
        (res_dev + res_host + err_dev + err_host) / lambda_min * (1 + 1e-9);
    double d2 = 0.0, x2 = 0.0;
    for (size_t i = 0; i < count; ++i) {
        d2 += (x[i] - xh[i]) * (x[i] - xh[i]);
        x2 += xh[i] * xh[i];
    }
    const double diff = sqrt(d2);
    const double true_rel = bnorm > 0 ? res_dev / bnorm : res_dev;
    const size_t it_diff = c->iterations > host_it ? c->iterations - host_it
                                                   : host_it - c->iterations;
    size_t it_allowed = host_it / 10;
    if (it_allowed < 3)
        it_allowed = 3;

    printf("device: %zu iterations, recursive residual %.3e, true "
           "residual %.3e\n", c->iterations, c->residual, true_rel);
    printf("host:   %zu iterations, recursive residual %.3e, true "
           "residual %.3e\n", host_it, host_residual,
           bnorm > 0 ? res_host / bnorm : res_host);
    printf("||x - x_host|| = %.3e (relative %.3e), bound %.3e\n", diff,
           x2 > 0 ? diff / sqrt(x2) : diff, bound);

    size_t bad = 0;
    char detail[320] = "";
#define CG_FAIL(...)                                          \
    do {                                                      \
        if (bad++ == 0)                                       \
            snprintf(detail, sizeof detail, __VA_ARGS__);     \
    } while (0)
    if (c->state != CG_CONVERGED)
        CG_FAIL("device CG did not converge: residual %.3e >= tol %.3g "
                "after %zu iterations", c->residual, tol, c->iterations);
    if (!(true_rel < 10 * tol))
        CG_FAIL("true residual ||b - A x|| / ||b|| = %.3e of the device "
                "solution is not < 10 tol = %.3g", true_rel, 10 * tol);
    if (!host_converged)
        CG_FAIL("host CG did not converge: residual %.3e after %zu "
                "iterations", host_residual, host_it);
    if (!(diff <= bound))
        CG_FAIL("||x - x_host|| = %.3e > bound %.3e", diff, bound);
    if (it_diff > it_allowed)
        CG_FAIL("device took %zu iterations, host %zu: more than %zu apart",
                c->iterations, host_it, it_allowed);
#undef CG_FAIL
    free(xh);
    return app_report_check(bad, 5, "checks", detail);
}

int main(int argc, char **argv)
{
    static const char *const size_names[] = {"nx", "ny"};
    double tol = DEFAULT_TOL, maxit_arg = NAN; /* NAN: not given */
    app_option options[2];
    options[0].name = "--tol";
    options[0].kind = APP_OPT_REAL;
    options[0].value = &tol;
    options[0].choices = NULL;
    options[1].name = "--maxit";
    options[1].kind = APP_OPT_REAL;
    options[1].value = &maxit_arg;
    options[1].choices = NULL;
    app_args args;
    app_parse(argc, argv, PROG, USAGE, 2, size_names, options, 2, &args);
    const char *dump_path = args.dump_path;
    const size_t nx = args.nsizes > 0 ? args.sizes[0] : DEFAULT_N;
    const size_t ny = args.nsizes > 1 ? args.sizes[1] : nx;
    const size_t maxit =
        solver_app_maxit(PROG, USAGE, tol, maxit_arg, nx, ny);
    solver_problem prob;
    const int refused = solver_problem_setup(&prob, PROG, &argc, &argv, nx,
                                             ny, args.seed);
    if (refused)
        return refused;
    const size_t count = prob.count, bytes = prob.bytes;
    const int rank = prob.rank;
    const double *b = prob.b;

    cg_run run;
    memset(&run, 0, sizeof run);
    cg_solver_create_rows(&run.solver, &prob.rows, tol, maxit, prob.db);

    /* Warm-up, which is also the checked and dumped solve. */
    run.progress = rank == 0;
    run_cg(&run);
    run.progress = 0;
    const size_t iterations = run.iterations;
    const double residual = run.residual;
    const int converged = run.state == CG_CONVERGED;
    double *x = (double *)app_host_alloc(PROG, bytes);
    memset(x, 0xff, bytes);
    DUO_DIST_CHECK(
        duo_dist_gather(DUO_F64, run.solver.x, &prob.mine, x, 0));
    double *history = (double *)app_host_alloc(
        PROG, (iterations > 0 ? iterations : 1) * sizeof(double));
    cg_solver_history(&run.solver, history, iterations);

    const double ms = app_time_median_ms(run_cg, &run, args.reps);
    char size[64], extra[160];
    snprintf(size, sizeof size, "%zux%zu", nx, ny);
    snprintf(extra, sizeof extra, "iterations=%zu residual=%.3e tol=%g%s",
             iterations, residual, tol, converged ? "" : " converged=no");
    if (duo_dist_size() > 1)
        snprintf(extra + strlen(extra), sizeof extra - strlen(extra),
                 " ranks=%d", duo_dist_size());
    if (rank == 0)
        app_print_result(PROG, size, extra, args.reps, ms, "GFLOP/s",
                         FLOPS_PER_POINT * (double)count *
                             (double)iterations);
    if (!converged && rank == 0)
        fprintf(stderr, "%s: not converged: relative residual %.3e >= tol "
                "%g after %zu iterations%s\n", PROG, residual, tol,
                iterations, run.state == CG_BREAKDOWN
                                ? " (breakdown: p.Ap <= 0)"
                                : " (raise --maxit)");

    int failed = 0;
    if (args.check && rank == 0)
        failed = check_cg(&run, b, x);

    if (dump_path != NULL && rank == 0) {
        dump_writer *d = dump_open(dump_path, PROG, argc, argv);
        const size_t dims[2] = {ny, nx};
        dump_array(d, "x", DUO_F64, 2, dims, x);
        dump_array(d, "residual", DUO_F64, 1, &iterations, history);
        if (dump_close(d) != 0)
            failed = 1;
    }

    cg_solver_destroy(&run.solver);
    solver_problem_free(&prob);
    free(x);
    free(history);
    DUO_DIST_CHECK(duo_dist_finalize());
    return failed;
}
