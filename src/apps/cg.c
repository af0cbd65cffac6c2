/*
 * cg.c - duo-cg: conjugate gradients for the 2-D Poisson problem on an
 * n x n interior grid, in double: A u = b with A the 5-point Laplacian
 * (4 on the diagonal, -1 for each of the four neighbours; Dirichlet zero
 * boundary, i.e. neighbours outside the grid are 0) and a random right-
 * hand side b from the seed.  A is never stored: a DUO_FOR_2D stencil
 * kernel applies it.  Dot products are duo_reduce(DUO_SUM, DUO_F64, ...)
 * over a product vector that the kernels write as they go.
 *
 *   x = 0, r = b, p = r, rr = r.r
 *   repeat:  q = A p;  alpha = rr / p.q
 *            x += alpha p;  r -= alpha q;  rr' = r.r
 *            stop when sqrt(rr') / ||b|| < tol, or after maxit iterations
 *            p = r + (rr' / rr) p;  rr = rr'
 *
 * Kernels (each fused with the product the next dot product needs):
 *   cg_apply   q = A p,  w = p * q            (DUO_FOR_2D)
 *   cg_update  x += alpha p,  r -= alpha q,  w = r * r
 *   cg_direct  p = r + beta p
 *
 * Reproducibility: duo_reduce adds in one order fixed by n on every
 * backend, and every kernel writes its arithmetic so that no compiler can
 * contract it differently: the axpys are explicit fma() calls (nvcc would
 * otherwise fuse alpha * p + x and gcc in ISO C mode would not), the
 * stencil is fma(4, c, -((w + e) + (s + n))) -- the same bits as
 * 4 c - (...), since 4 c is exact -- and the products are single
 * multiplications.  So the iterates, the iteration count and x have the
 * same bits on serial, openmp (any thread count) and cuda.
 *
 *   build/<backend>/bin/duo-cg [n] [--tol T] [--maxit M] [--reps R]
 *       [--seed S] [--check] [--dump FILE]
 *
 * Defaults: n = 256, tol = 1e-8, maxit = 10 n + 100 (CG needs about
 * sqrt(cond(A))/2 ln(2/tol) iterations, cond(A) ~ 0.4 (n+1)^2, i.e. about
 * 6 n for tol = 1e-8).  Prints the result line (median of R solves, each
 * from x = 0; GFLOP/s at a nominal 16 flops per unknown and iteration)
 * with the iteration count and the final relative residual; when a solve
 * takes more than 1 s, the warm-up solve prints its progress every 10%
 * of maxit to stderr.
 *
 * --check (on the warm-up solve) runs the same CG in plain C on the host,
 * in double, with its dot products summed left to right.  That order is
 * not duo_reduce's, so the two runs' iterates differ by rounding and
 * cannot be compared bit for bit.  Checked instead:
 *  1. the device solve converged (its recursive residual < tol);
 *  2. its true residual ||b - A x|| / ||b||, computed on the host from
 *     the device's x, is < 10 tol (the recursive residual r drifts from
 *     b - A x by rounding, slowly: a factor of 10 is ample);
 *  3. the host solve converged too, and ||x - x_host||_2 <=
 *     (||b - A x||_2 + ||b - A x_host||_2 + 2 e) / lambda_min(A): since
 *     x - x_host = A^-1 ((b - A x_host) - (b - A x)) exactly and A is
 *     symmetric positive definite, ||A^-1||_2 = 1 / lambda_min(A) with
 *     lambda_min = 8 sin^2(pi / (2 (n + 1))); e bounds the rounding of
 *     the two computed residual norms (gamma_6 ||(|b| + |A| |x|)||_2);
 *  4. the iteration counts differ by at most max(3, 10%): both runs are
 *     the same algorithm, perturbed only at the rounding level, so they
 *     stop at about the same iteration; a larger difference means the
 *     device computed something else (a wrong alpha or beta converges
 *     much more slowly, or not at all).
 * --dump FILE writes x ("x", f64, n x n).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <duo.h>

#include "app_common.h"
#include "dump.h"

static const char *const PROG = "duo-cg";
static const char *const USAGE =
    "usage: duo-cg [n] [--tol T] [--maxit M] [--reps R] [--seed S]\n"
    "              [--check] [--dump FILE] [--help]\n"
    "  Conjugate gradients for the 2-D Poisson problem (5-point Laplacian,\n"
    "  zero Dirichlet boundary) on an n x n grid in double, with a random\n"
    "  right-hand side (default n = 256).\n"
    "  n            grid points per side, a positive integer\n"
    "  --tol T      stop when ||r|| / ||b|| < T (default 1e-8; 0 < T < 1)\n"
    "  --maxit M    at most M iterations (default 10 n + 100)\n"
    "  --reps R     timed solves after one warm-up solve (default 5); the\n"
    "               median is reported\n"
    "  --seed S     seed of the right-hand side (default 1)\n"
    "  --check      compare the warm-up solve with a host CG and check its\n"
    "               true residual; exit 1 on a failure\n"
    "  --dump FILE  write the solution x to FILE\n";

#define DEFAULT_N 256
#define DEFAULT_TOL 1e-8
#define FLOPS_PER_POINT 16.0 /* nominal, per unknown and iteration */

/* q = A p on the n x n grid (row i, column j), and w = p * q. */
DUO_KERNEL(cg_apply, size_t n, const double *DUO_RESTRICT p,
           double *DUO_RESTRICT q, double *DUO_RESTRICT w)
{
    DUO_FOR_2D(i, j, n, n) {
        const size_t c = i * n + j;
        const double west = j > 0 ? p[c - 1] : 0.0;
        const double east = j + 1 < n ? p[c + 1] : 0.0;
        const double north = i > 0 ? p[c - n] : 0.0;
        const double south = i + 1 < n ? p[c + n] : 0.0;
        const double v = fma(4.0, p[c], -((west + east) + (north + south)));
        q[c] = v;
        w[c] = p[c] * v;
    }
}

/* x += alpha p, r -= alpha q, w = r * r. */
DUO_KERNEL(cg_update, size_t count, double alpha,
           const double *DUO_RESTRICT p, const double *DUO_RESTRICT q,
           double *DUO_RESTRICT x, double *DUO_RESTRICT r,
           double *DUO_RESTRICT w)
{
    DUO_FOR(i, count) {
        x[i] = fma(alpha, p[i], x[i]);
        const double ri = fma(-alpha, q[i], r[i]);
        r[i] = ri;
        w[i] = ri * ri;
    }
}

/* p = r + beta p. */
DUO_KERNEL(cg_direct, size_t count, double beta,
           const double *DUO_RESTRICT r, double *DUO_RESTRICT p)
{
    DUO_FOR(i, count)
        p[i] = fma(beta, p[i], r[i]);
}

/* w = b * b (for ||b||). */
DUO_KERNEL(cg_square, size_t count, const double *DUO_RESTRICT b,
           double *DUO_RESTRICT w)
{
    DUO_FOR(i, count)
        w[i] = b[i] * b[i];
}

typedef struct cg_run {
    size_t n, count;   /* grid side, unknowns = n * n */
    double tol;
    size_t maxit;
    int progress;      /* may report progress to stderr */
    const double *b;   /* device */
    double *x, *r, *p, *q, *w; /* device */
    /* Results of the last solve. */
    size_t iterations;
    double residual;   /* recursive: ||r|| / ||b|| */
    int converged;
} cg_run;

static double seconds_now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double dot_w(const cg_run *c)
{
    double s = 0.0;
    DUO_CHECK(duo_reduce(DUO_SUM, DUO_F64, c->w, c->count, &s));
    return s;
}

static void run_cg(void *ctx)
{
    cg_run *c = (cg_run *)ctx;
    const size_t bytes = c->count * sizeof(double);
    const double start = seconds_now();
    DUO_CHECK(duo_memset(c->x, 0, bytes));
    DUO_CHECK(duo_memcpy(c->r, c->b, bytes, DUO_DEVICE_TO_DEVICE));
    DUO_CHECK(duo_memcpy(c->p, c->b, bytes, DUO_DEVICE_TO_DEVICE));
    DUO_CHECK(DUO_LAUNCH(cg_square, c->count, c->count, c->b, c->w));
    const double bnorm = sqrt(dot_w(c));
    double rr = bnorm * bnorm;
    size_t it = 0, next_report = 1;
    int converged = !(bnorm > 0); /* b = 0: x = 0 is the solution */
    double residual = converged ? 0.0 : 1.0;
    while (!converged && it < c->maxit) {
        DUO_CHECK(DUO_LAUNCH_2D(cg_apply, c->n, c->n, c->n, c->p, c->q,
                                c->w));
        const double pq = dot_w(c);
        const double alpha = rr / pq;
        DUO_CHECK(DUO_LAUNCH(cg_update, c->count, c->count, alpha, c->p,
                             c->q, c->x, c->r, c->w));
        const double rr_new = dot_w(c);
        ++it;
        residual = sqrt(rr_new) / bnorm;
        if (residual < c->tol || !(pq > 0)) { /* !(pq > 0): breakdown */
            converged = residual < c->tol;
            break;
        }
        DUO_CHECK(DUO_LAUNCH(cg_direct, c->count, c->count, rr_new / rr,
                             c->r, c->p));
        rr = rr_new;
        /* Every 10% of maxit, once the solve has taken over 1 s. */
        if (c->progress && it >= next_report * c->maxit / 10) {
            while (it >= next_report * c->maxit / 10)
                ++next_report;
            if (seconds_now() - start > 1.0) {
                fprintf(stderr, "%s: iteration %zu of at most %zu: "
                        "relative residual %.3e\n", PROG, it, c->maxit,
                        residual);
                fflush(stderr);
            }
        }
    }
    c->iterations = it;
    c->residual = residual;
    c->converged = converged;
}

/* ------------------------------------------------------------------ */
/* Host side: plain C                                                  */

/* out = A v on the n x n grid. */
static void apply_host(size_t n, const double *v, double *out)
{
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j) {
            const size_t c = i * n + j;
            const double west = j > 0 ? v[c - 1] : 0.0;
            const double east = j + 1 < n ? v[c + 1] : 0.0;
            const double north = i > 0 ? v[c - n] : 0.0;
            const double south = i + 1 < n ? v[c + n] : 0.0;
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
static size_t cg_host(size_t n, const double *b, double tol, size_t maxit,
                      double *x, double *residual, int *converged)
{
    const size_t count = n * n, bytes = count * sizeof(double);
    double *r = (double *)app_host_alloc(PROG, bytes);
    double *p = (double *)app_host_alloc(PROG, bytes);
    double *q = (double *)app_host_alloc(PROG, bytes);
    memset(x, 0, bytes);
    memcpy(r, b, bytes);
    memcpy(p, b, bytes);
    const double bnorm = sqrt(dot_host(count, b, b));
    double rr = bnorm * bnorm;
    size_t it = 0;
    *converged = !(bnorm > 0);
    *residual = *converged ? 0.0 : 1.0;
    while (!*converged && it < maxit) {
        apply_host(n, p, q);
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
static double true_residual(size_t n, const double *b, const double *x,
                            double *err)
{
    const size_t count = n * n;
    double *ax = (double *)app_host_alloc(PROG, count * sizeof(double));
    double *absx = (double *)app_host_alloc(PROG, count * sizeof(double));
    double *aabs = (double *)app_host_alloc(PROG, count * sizeof(double));
    apply_host(n, x, ax);
    /* |A| |x| = 8 |x| - A |x| */
    for (size_t i = 0; i < count; ++i)
        absx[i] = fabs(x[i]);
    apply_host(n, absx, aabs);
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
    const size_t n = c->n, count = c->count;
    const double bnorm = sqrt(dot_host(count, b, b));
    double *xh = (double *)app_host_alloc(PROG, count * sizeof(double));
    double host_residual = 0.0;
    int host_converged = 0;
    const size_t host_it = cg_host(n, b, c->tol, c->maxit, xh,
                                   &host_residual, &host_converged);

    double err_dev = 0.0, err_host = 0.0;
    const double res_dev = true_residual(n, b, x, &err_dev);
    const double res_host = true_residual(n, b, xh, &err_host);
    const double pi = 3.14159265358979323846;
    const double sn = sin(pi / (2.0 * (double)(n + 1)));
    const double lambda_min = 8.0 * sn * sn;
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
    if (!c->converged)
        CG_FAIL("device CG did not converge: residual %.3e >= tol %.3g "
                "after %zu iterations", c->residual, c->tol, c->iterations);
    if (!(true_rel < 10 * c->tol))
        CG_FAIL("true residual ||b - A x|| / ||b|| = %.3e of the device "
                "solution is not < 10 tol = %.3g", true_rel, 10 * c->tol);
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
    static const char *const size_names[] = {"n"};
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
    app_parse(argc, argv, PROG, USAGE, 1, size_names, options, 2, &args);
    const char *dump_path = args.dump_path;
    const size_t n = args.nsizes ? args.sizes[0] : DEFAULT_N;
    if (!(tol > 0 && tol < 1))
        app_usage_error(PROG, USAGE, "--tol %g: expected a number between 0 "
                        "and 1 (exclusive)", tol);
    size_t maxit = 0;
    if (isnan(maxit_arg)) {
        if (n > ((size_t)-1 - 100) / 10)
            app_usage_error(PROG, USAGE, "size n = %zu is too large", n);
        maxit = 10 * n + 100;
    } else {
        if (!(maxit_arg >= 1 && maxit_arg <= 1e15) ||
            maxit_arg != floor(maxit_arg))
            app_usage_error(PROG, USAGE, "--maxit %g: expected a positive "
                            "integer", maxit_arg);
        maxit = (size_t)maxit_arg;
    }
    const size_t count = app_count(PROG, "n", n, n);
    const size_t bytes = app_bytes(PROG, "n", count, sizeof(double));

    app_init(PROG);

    app_rng rng;
    app_rng_seed(&rng, args.seed);
    double *b = (double *)app_host_alloc(PROG, bytes);
    app_fill_f64(b, count, &rng);

    cg_run run;
    memset(&run, 0, sizeof run);
    run.n = n;
    run.count = count;
    run.tol = tol;
    run.maxit = maxit;
    double *db = NULL;
    DUO_CHECK(duo_malloc((void **)&db, bytes));
    DUO_CHECK(duo_malloc((void **)&run.x, bytes));
    DUO_CHECK(duo_malloc((void **)&run.r, bytes));
    DUO_CHECK(duo_malloc((void **)&run.p, bytes));
    DUO_CHECK(duo_malloc((void **)&run.q, bytes));
    DUO_CHECK(duo_malloc((void **)&run.w, bytes));
    DUO_CHECK(duo_memcpy(db, b, bytes, DUO_HOST_TO_DEVICE));
    run.b = db;

    /* Warm-up, which is also the checked and dumped solve. */
    run.progress = 1;
    run_cg(&run);
    run.progress = 0;
    const size_t iterations = run.iterations;
    const double residual = run.residual;
    const int converged = run.converged;
    double *x = (double *)app_host_alloc(PROG, bytes);
    memset(x, 0xff, bytes);
    DUO_CHECK(duo_memcpy(x, run.x, bytes, DUO_DEVICE_TO_HOST));

    const double ms = app_time_median_ms(run_cg, &run, args.reps);
    char size[64], extra[160];
    snprintf(size, sizeof size, "%zux%zu", n, n);
    snprintf(extra, sizeof extra, "iterations=%zu residual=%.3e tol=%g%s",
             iterations, residual, tol, converged ? "" : " converged=no");
    app_print_result(PROG, size, extra, args.reps, ms, "GFLOP/s",
                     FLOPS_PER_POINT * (double)count * (double)iterations);
    if (!converged)
        fprintf(stderr, "%s: not converged: relative residual %.3e >= tol "
                "%g after %zu iterations (raise --maxit)\n", PROG, residual,
                tol, iterations);

    int failed = 0;
    if (args.check)
        failed = check_cg(&run, b, x);

    if (dump_path != NULL) {
        dump_writer *d = dump_open(dump_path, PROG, argc, argv);
        const size_t dims[2] = {n, n};
        dump_array(d, "x", DUO_F64, 2, dims, x);
        if (dump_close(d) != 0)
            failed = 1;
    }

    DUO_CHECK(duo_free(db));
    DUO_CHECK(duo_free(run.x));
    DUO_CHECK(duo_free(run.r));
    DUO_CHECK(duo_free(run.p));
    DUO_CHECK(duo_free(run.q));
    DUO_CHECK(duo_free(run.w));
    free(b);
    free(x);
    DUO_CHECK(duo_finalize());
    return failed;
}
