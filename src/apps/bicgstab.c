/*
 * bicgstab.c - duo-bicgstab: unpreconditioned BiCGStab for a
 * nonsymmetric 2-D convection-diffusion problem on an ny x nx interior
 * grid, in double:
 *
 *   -Laplace(u) + (cx, cy) . grad(u) = b,  zero Dirichlet boundary,
 *
 * grid spacing 1, the convection by first-order upwind differences
 * (cx, cy >= 0), so that
 *
 *   (A u)_c = (4 + cx + cy) u_c - (1 + cx) u_west - u_east
 *             - (1 + cy) u_north - u_south,
 *
 * with a random right-hand side b from the seed.  The solver is
 * src/solvers/bicgstab_solver.c, built like duo-cg's: matrix-free, its
 * scalars in device memory, dot products by duo_dot_async (two fused
 * pairs per iteration), BICGSTAB_BATCH iterations per duo_graph replay
 * and one host check per replay.
 *
 * Reproducibility: duo's sums add in one order fixed by n on every
 * backend and the kernels' arithmetic is written as explicit fma()
 * calls (bicgstab_solver.c), so the iterates, the residual history, the
 * iteration count and x have the same bits on serial, openmp (any thread
 * count) and cuda.
 *
 *   build/<backend>/bin/duo-bicgstab [nx [ny]] [--cx C] [--cy C] [--tol T]
 *       [--maxit M] [--reps R] [--seed S] [--check] [--dump FILE]
 *
 * Defaults: nx = 256, ny = nx, cx = 0.5, cy = 0.25, tol = 1e-8,
 * maxit = 10 max(nx, ny) + 100, as duo-cg's: with this mild convection
 * (cell Peclet numbers below 1) A is close to the Laplacian, and
 * BiCGStab, with two products by A per iteration, needs fewer
 * iterations than CG does there (measured, seed 1: 190 at 128 x 96, 828
 * at 512 x 512, against maxit 1380 and 5220).  Prints the result line
 * (median of R solves, each from x = 0; GFLOP/s at a nominal 36 flops
 * per unknown and iteration) with the iteration count and the final
 * relative residual; when a solve takes more than 1 s, the warm-up solve
 * prints its progress every 10% of maxit to stderr.
 *
 * --check (on the warm-up solve) runs the same BiCGStab in plain C on
 * the host, in double, with the same fma stencil and updates but its dot
 * products summed left to right.  That order is not duo's, so the two
 * runs' iterates differ by rounding and cannot be compared bit for bit.
 * Checked instead:
 *  1. the device solve converged (its recursive residual < tol);
 *  2. its true residual ||b - A x|| / ||b||, computed on the host from
 *     the device's x, is < 10 tol plus the rounding bound of that
 *     computation (true_residual): the recursive residual r drifts from
 *     b - A x by the rounding of the updates, and more than CG's does,
 *     since BiCGStab's intermediate vectors (s, and r at its peaks) can
 *     be larger than the final residual; a factor of 10 is still ample
 *     for this well-conditioned problem (measured: the true residual
 *     stays below tol, within 1% of the recursive one);
 *  3. the host solve converged too, and its true residual meets the same;
 *  4. ||x - x_host||_2 <= (||b - A x||_2 + ||b - A x_host||_2 + errors)
 *     / lambda_min(H), H = (A + A^T) / 2: x - x_host = A^-1 ((b - A x_host)
 *     - (b - A x)), and ||A y|| ||y|| >= y^T A y = y^T H y >= lambda_min(H)
 *     ||y||^2, so ||A^-1||_2 <= 1 / lambda_min(H) (H is positive definite;
 *     see lambda_min_sym);
 *  5. the iteration counts differ by at most max(10, 40%).  Both runs
 *     are the same algorithm perturbed only at the rounding level, but
 *     unlike CG's, BiCGStab's residual is not minimised in any norm: it
 *     falls unevenly, with plateaus where it hardly moves for tens of
 *     iterations, and the two runs' rounding differences grow over the
 *     iterations (the short recurrences lose biorthogonality), so the
 *     rounding decides when a plateau ends and where the residual first
 *     dips below tol.  Measured over 1600 runs (sizes 3 to 300 x 200
 *     and 512 x 512, seeds 1-20, cx, cy from 0 to 1e6): at most 7% apart
 *     with the default convection, but up to 21.5% on nearly symmetric
 *     problems (cx, cy <= 0.2; 14 of 65 iterations at 20 x 20, 48 of
 *     234 at 97 x 97); 40% leaves about twice that.  A wrong scalar
 *     costs more: alpha 10% off took 84% more iterations at 128 x 96
 *     (alpha 1% off, 30%, passes this check), beta halved diverged; and
 *     an x update that does not match r's fails check 2 (omega 1e-6 off
 *     in x left a true residual of 6e-7 at 40 x 40).
 * --dump FILE writes x ("x", f64, ny x nx) and the relative residual
 * after each iteration ("residual", f64).
 *
 * Several ranks (a build with -DDUO_MPI=ON, under mpirun), as duo-cg:
 * the grid's rows are split among the ranks (duo/dist.h), p's and s's
 * halo rows come from the neighbours before v = A p and t = A s, and the
 * dot products are duo_dist_dots_async (one pair, or fused pairs),
 * which have the bits of the single-process duo_dot_async.  So x, the
 * residual history and the iteration count are the same, bit for bit,
 * for any number of ranks and as in the build without MPI; rank 0
 * gathers x for --check and --dump.  More ranks than rows is refused.
 * Without MPI the same code runs as rank 0 of 1.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <duo.h>
#include <duo/dist.h>

#include "app_common.h"
#include "bicgstab_solver.h"
#include "dump.h"
#include "solver_app.h"

static const char *const PROG = "duo-bicgstab";
static const char *const USAGE =
    "usage: duo-bicgstab [nx [ny]] [--cx C] [--cy C] [--tol T] [--maxit M]\n"
    "                    [--reps R] [--seed S] [--check] [--dump FILE]\n"
    "                    [--help]\n"
    "  BiCGStab for the 2-D convection-diffusion problem\n"
    "  -Laplace(u) + (cx, cy) . grad(u) = b (5-point Laplacian, upwind\n"
    "  convection, grid spacing 1, zero Dirichlet boundary) on an ny x nx\n"
    "  grid in double, with a random right-hand side (default 256 x 256).\n"
    "  nx, ny       grid points per row and per column, positive integers\n"
    "               (ny defaults to nx)\n"
    "  --cx C       convection velocity along a row (default 0.5;\n"
    "               0 <= C <= 1e6)\n"
    "  --cy C       convection velocity along a column (default 0.25;\n"
    "               0 <= C <= 1e6)\n"
    "  --tol T      stop when ||r|| / ||b|| < T (default 1e-8; 0 < T < 1)\n"
    "  --maxit M    at most M iterations, M <= 1e8 (default\n"
    "               10 max(nx, ny) + 100)\n"
    "  --reps R     timed solves after one warm-up solve (default 5); the\n"
    "               median is reported\n"
    "  --seed S     seed of the right-hand side (default 1)\n"
    "  --check      compare the warm-up solve with a host BiCGStab and\n"
    "               check its true residual; exit 1 on a failure\n"
    "  --dump FILE  write the solution x and the residual history to FILE\n";

#define DEFAULT_N 256
#define DEFAULT_CX 0.5
#define DEFAULT_CY 0.25
#define MAX_C 1e6            /* keeps every product and square finite */
#define DEFAULT_TOL 1e-8
#define FLOPS_PER_POINT 36.0 /* nominal, per unknown and iteration */

/* ------------------------------------------------------------------ */
/* Host side: plain C                                                  */

/* A solve of the app: the device solver, and what the last one gave. */
typedef struct bicgstab_run {
    bicgstab_solver solver;
    int progress;      /* may report progress to stderr */
    size_t iterations;
    double residual;   /* recursive: ||r|| / ||b|| */
    int state;         /* enum bicgstab_state */
} bicgstab_run;

static void run_bicgstab(void *ctx)
{
    bicgstab_run *c = (bicgstab_run *)ctx;
    bicgstab_solver_solve(&c->solver, PROG, c->progress);
    bicgstab_solver_status(&c->solver, &c->iterations, &c->residual,
                           &c->state);
}

/* out = A v on the ny x nx grid, in the device's arithmetic. */
static void apply_host(size_t nx, size_t ny, const bicgstab_coefficients *k,
                       const double *v, double *out)
{
    for (size_t i = 0; i < ny; ++i)
        for (size_t j = 0; j < nx; ++j) {
            const size_t c = i * nx + j;
            const double west = j > 0 ? v[c - 1] : 0.0;
            const double east = j + 1 < nx ? v[c + 1] : 0.0;
            const double north = i > 0 ? v[c - nx] : 0.0;
            const double south = i + 1 < ny ? v[c + nx] : 0.0;
            const double t1 = fma(k->aw, west, east);
            const double t2 = fma(k->an, north, south);
            out[c] = fma(k->d, v[c], -(t1 + t2));
        }
}

/* out = |A| |v| (every term added, all of them non-negative). */
static void apply_abs_host(size_t nx, size_t ny,
                           const bicgstab_coefficients *k, const double *v,
                           double *out)
{
    for (size_t i = 0; i < ny; ++i)
        for (size_t j = 0; j < nx; ++j) {
            const size_t c = i * nx + j;
            double m = k->d * fabs(v[c]);
            if (j > 0)
                m += k->aw * fabs(v[c - 1]);
            if (j + 1 < nx)
                m += fabs(v[c + 1]);
            if (i > 0)
                m += k->an * fabs(v[c - nx]);
            if (i + 1 < ny)
                m += fabs(v[c + nx]);
            out[c] = m;
        }
}

static double dot_host(size_t count, const double *a, const double *b)
{
    double s = 0.0;
    for (size_t i = 0; i < count; ++i)
        s += a[i] * b[i];
    return s;
}

static int finite_host(double a)
{
    return fabs(a) <= DBL_MAX;
}

/* The same BiCGStab (bicgstab_solver.h), sums left to right.  Returns
 * the iteration count; *state is an enum bicgstab_state. */
static size_t bicgstab_host(size_t nx, size_t ny,
                            const bicgstab_coefficients *k, const double *b,
                            double tol, size_t maxit, double *x,
                            double *residual, int *state)
{
    const size_t count = nx * ny, bytes = count * sizeof(double);
    double *r = (double *)app_host_alloc(PROG, bytes);
    double *p = (double *)app_host_alloc(PROG, bytes);
    double *v = (double *)app_host_alloc(PROG, bytes);
    double *s = (double *)app_host_alloc(PROG, bytes);
    double *t = (double *)app_host_alloc(PROG, bytes);
    const double *r0hat = b;
    memset(x, 0, bytes);
    memcpy(r, b, bytes);
    memcpy(p, b, bytes);
    double rho = dot_host(count, b, b);
    const double bnorm = sqrt(rho);
    size_t it = 0;
    *state = bnorm > 0 ? BICGSTAB_RUNNING : BICGSTAB_CONVERGED;
    *residual = bnorm > 0 ? 1.0 : 0.0;
    while (*state == BICGSTAB_RUNNING) {
        apply_host(nx, ny, k, p, v);
        const double alpha = rho / dot_host(count, r0hat, v);
        double omega = 0.0;
        const int alpha_ok = finite_host(alpha);
        if (alpha_ok) {
            for (size_t i = 0; i < count; ++i)
                s[i] = fma(-alpha, v[i], r[i]);
            apply_host(nx, ny, k, s, t);
            const double tt = dot_host(count, t, t);
            omega = tt == 0 ? 0.0 : dot_host(count, t, s) / tt;
        }
        const int stepped = alpha_ok && finite_host(omega);
        if (stepped)
            for (size_t i = 0; i < count; ++i) {
                x[i] = fma(omega, s[i], fma(alpha, p[i], x[i]));
                r[i] = fma(-omega, t[i], s[i]);
            }
        const double rho_new = dot_host(count, r0hat, r);
        ++it;
        *residual = sqrt(dot_host(count, r, r)) / bnorm;
        const double beta = (rho_new / rho) * (alpha / omega);
        *state = !stepped             ? BICGSTAB_BREAKDOWN
                 : *residual < tol    ? BICGSTAB_CONVERGED
                 : !(rho_new != 0 && omega != 0 && finite_host(beta))
                     ? BICGSTAB_BREAKDOWN
                 : it >= maxit ? BICGSTAB_MAXIT
                               : BICGSTAB_RUNNING;
        if (*state == BICGSTAB_RUNNING)
            for (size_t i = 0; i < count; ++i)
                p[i] = fma(beta, fma(-omega, v[i], p[i]), r[i]);
        rho = rho_new;
    }
    free(r);
    free(p);
    free(v);
    free(s);
    free(t);
    return it;
}

/* ||b - A x||_2, and in *err a bound on that norm's rounding error.  A
 * component is b - fma(d, x_c, -(fma(aw, x_w, x_e) + fma(an, x_n, x_s))):
 * each term passes at most 4 roundings (the neighbours' t1 or t2, their
 * sum, the outer fma, the subtraction from b), so its error is at most
 * gamma_4 (|b| + |A| |x|); the norm's, at most the norm of those (the
 * rest is second order, covered by the slack of the callers). */
static double true_residual(size_t nx, size_t ny,
                            const bicgstab_coefficients *k, const double *b,
                            const double *x, double *err)
{
    const size_t count = nx * ny;
    double *ax = (double *)app_host_alloc(PROG, count * sizeof(double));
    double *absx = (double *)app_host_alloc(PROG, count * sizeof(double));
    double *aabs = (double *)app_host_alloc(PROG, count * sizeof(double));
    apply_host(nx, ny, k, x, ax);
    for (size_t i = 0; i < count; ++i)
        absx[i] = fabs(x[i]);
    apply_abs_host(nx, ny, k, absx, aabs);
    const double u = 0x1p-53, g4 = 4 * u / (1 - 4 * u);
    double s = 0.0, e = 0.0;
    for (size_t i = 0; i < count; ++i) {
        const double ri = b[i] - ax[i];
        const double mag = fabs(b[i]) + aabs[i];
        s += ri * ri;
        e += (g4 * mag) * (g4 * mag);
    }
    free(ax);
    free(absx);
    free(aabs);
    *err = sqrt(e) * (1 + 1e-6);
    return sqrt(s);
}

/* A lower bound on lambda_min(H), H = (A + A^T) / 2: H has d on the
 * diagonal and -(aw + 1) / 2, -(an + 1) / 2 between row and column
 * neighbours, i.e. H = d I - (aw + 1) / 2 Tx - (an + 1) / 2 Ty with Tx, Ty
 * the 0/1 adjacency of a row and a column (eigenvalues 2 cos(pi m /
 * (n + 1))), so lambda_min(H) = d - (aw + 1) cos(theta_x) - (an + 1)
 * cos(theta_y), theta = pi / (n + 1), written without cancellation as
 * (d - aw - an - 2) + 2 (aw + 1) sin^2(theta_x / 2) + 2 (an + 1)
 * sin^2(theta_y / 2).  d - aw - an - 2 is 0 up to the rounding of the
 * coefficients; 16 u d bounds it and this formula's own rounding. */
static double lambda_min_sym(size_t nx, size_t ny,
                             const bicgstab_coefficients *k)
{
    const double pi = 3.14159265358979323846, u = 0x1p-53;
    const double sx = sin(pi / (2.0 * (double)(nx + 1)));
    const double sy = sin(pi / (2.0 * (double)(ny + 1)));
    const double gap = ((k->d - 2.0) - k->aw) - k->an;
    return gap + 2.0 * (k->aw + 1.0) * sx * sx +
           2.0 * (k->an + 1.0) * sy * sy - 16.0 * u * k->d;
}

static int check_bicgstab(const bicgstab_run *c, const double *b,
                          const double *x)
{
    const bicgstab_solver *sv = &c->solver;
    const size_t nx = sv->nx, ny = sv->ny, count = nx * ny;
    const double tol = sv->tol, u = 0x1p-53;
    const double bnorm = sqrt(dot_host(count, b, b));
    double *xh = (double *)app_host_alloc(PROG, count * sizeof(double));
    double host_residual = 0.0;
    int host_state = BICGSTAB_RUNNING;
    const size_t host_it = bicgstab_host(nx, ny, &sv->k, b, tol, sv->maxit,
                                         xh, &host_residual, &host_state);

    double err_dev = 0.0, err_host = 0.0;
    const double res_dev = true_residual(nx, ny, &sv->k, b, x, &err_dev);
    const double res_host = true_residual(nx, ny, &sv->k, b, xh, &err_host);
    /* Norms summed left to right are within (count + 2) u of exact,
     * relatively: the slack covers the bound's and diff's. */
    const double slack = 1 + 4 * ((double)count + 8) * u;
    const double bound = (res_dev + res_host + err_dev + err_host) /
                         lambda_min_sym(nx, ny, &sv->k) * slack;
    double d2 = 0.0, x2 = 0.0;
    for (size_t i = 0; i < count; ++i) {
        d2 += (x[i] - xh[i]) * (x[i] - xh[i]);
        x2 += xh[i] * xh[i];
    }
    const double diff = sqrt(d2);
    const double rel_dev = bnorm > 0 ? res_dev / bnorm : res_dev;
    const double rel_host = bnorm > 0 ? res_host / bnorm : res_host;
    const size_t it_diff = c->iterations > host_it ? c->iterations - host_it
                                                   : host_it - c->iterations;
    size_t it_allowed = host_it * 2 / 5;
    if (it_allowed < 10)
        it_allowed = 10;

    printf("device: %zu iterations, recursive residual %.3e, true "
           "residual %.3e\n", c->iterations, c->residual, rel_dev);
    printf("host:   %zu iterations, recursive residual %.3e, true "
           "residual %.3e\n", host_it, host_residual, rel_host);
    printf("||x - x_host|| = %.3e (relative %.3e), bound %.3e\n", diff,
           x2 > 0 ? diff / sqrt(x2) : diff, bound);

    size_t bad = 0;
    char detail[320] = "";
#define BICGSTAB_FAIL(...)                                    \
    do {                                                      \
        if (bad++ == 0)                                       \
            snprintf(detail, sizeof detail, __VA_ARGS__);     \
    } while (0)
    if (c->state != BICGSTAB_CONVERGED)
        BICGSTAB_FAIL("device BiCGStab did not converge: residual %.3e "
                      ">= tol %.3g after %zu iterations%s", c->residual,
                      tol, c->iterations,
                      c->state == BICGSTAB_BREAKDOWN ? " (breakdown)" : "");
    if (!(res_dev <= 10 * tol * bnorm + err_dev))
        BICGSTAB_FAIL("true residual ||b - A x|| / ||b|| = %.3e of the "
                      "device solution is not < 10 tol = %.3g", rel_dev,
                      10 * tol);
    if (host_state != BICGSTAB_CONVERGED)
        BICGSTAB_FAIL("host BiCGStab did not converge: residual %.3e after "
                      "%zu iterations", host_residual, host_it);
    if (!(res_host <= 10 * tol * bnorm + err_host))
        BICGSTAB_FAIL("true residual %.3e of the host solution is not "
                      "< 10 tol = %.3g", rel_host, 10 * tol);
    if (!(diff <= bound))
        BICGSTAB_FAIL("||x - x_host|| = %.3e > bound %.3e", diff, bound);
    if (it_diff > it_allowed)
        BICGSTAB_FAIL("device took %zu iterations, host %zu: more than %zu "
                      "apart", c->iterations, host_it, it_allowed);
#undef BICGSTAB_FAIL
    free(xh);
    return app_report_check(bad, 6, "checks", detail);
}

static double velocity(double c, const char *name)
{
    if (!(c >= 0 && c <= MAX_C))
        app_usage_error(PROG, USAGE, "%s %g: expected a number from 0 to "
                        "%.0e", name, c, MAX_C);
    return c;
}

int main(int argc, char **argv)
{
    static const char *const size_names[] = {"nx", "ny"};
    double cx = DEFAULT_CX, cy = DEFAULT_CY;
    double tol = DEFAULT_TOL, maxit_arg = NAN; /* NAN: not given */
    app_option options[4];
    options[0].name = "--cx";
    options[0].value = &cx;
    options[1].name = "--cy";
    options[1].value = &cy;
    options[2].name = "--tol";
    options[2].value = &tol;
    options[3].name = "--maxit";
    options[3].value = &maxit_arg;
    for (int i = 0; i < 4; ++i) {
        options[i].kind = APP_OPT_REAL;
        options[i].choices = NULL;
    }
    app_args args;
    app_parse(argc, argv, PROG, USAGE, 2, size_names, options, 4, &args);
    const char *dump_path = args.dump_path;
    const size_t nx = args.nsizes > 0 ? args.sizes[0] : DEFAULT_N;
    const size_t ny = args.nsizes > 1 ? args.sizes[1] : nx;
    velocity(cx, "--cx");
    velocity(cy, "--cy");
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

    bicgstab_run run;
    memset(&run, 0, sizeof run);
    bicgstab_solver_create_rows(&run.solver, &prob.rows, cx, cy, tol,
                                maxit, prob.db);

    /* Warm-up, which is also the checked and dumped solve. */
    run.progress = rank == 0;
    run_bicgstab(&run);
    run.progress = 0;
    const size_t iterations = run.iterations;
    const double residual = run.residual;
    const int converged = run.state == BICGSTAB_CONVERGED;
    double *x = (double *)app_host_alloc(PROG, bytes);
    memset(x, 0xff, bytes);
    DUO_DIST_CHECK(
        duo_dist_gather(DUO_F64, run.solver.x, &prob.mine, x, 0));
    double *history = (double *)app_host_alloc(
        PROG, (iterations > 0 ? iterations : 1) * sizeof(double));
    bicgstab_solver_history(&run.solver, history, iterations);

    const double ms = app_time_median_ms(run_bicgstab, &run, args.reps);
    char size[64], extra[192];
    snprintf(size, sizeof size, "%zux%zu", nx, ny);
    snprintf(extra, sizeof extra, "iterations=%zu residual=%.3e tol=%g "
             "cx=%g cy=%g%s", iterations, residual, tol, cx, cy,
             converged ? "" : " converged=no");
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
                iterations, run.state == BICGSTAB_BREAKDOWN
                                ? " (breakdown: rho, omega or r0hat.v "
                                  "became 0)"
                                : " (raise --maxit)");

    int failed = 0;
    if (args.check && rank == 0)
        failed = check_bicgstab(&run, b, x);

    if (dump_path != NULL && rank == 0) {
        dump_writer *d = dump_open(dump_path, PROG, argc, argv);
        const size_t dims[2] = {ny, nx};
        dump_array(d, "x", DUO_F64, 2, dims, x);
        dump_array(d, "residual", DUO_F64, 1, &iterations, history);
        if (dump_close(d) != 0)
            failed = 1;
    }

    bicgstab_solver_destroy(&run.solver);
    solver_problem_free(&prob);
    free(x);
    free(history);
    DUO_DIST_CHECK(duo_dist_finalize());
    return failed;
}
