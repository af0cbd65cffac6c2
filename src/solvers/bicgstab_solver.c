/*
 * bicgstab_solver.c - the device-resident BiCGStab of bicgstab_solver.h.
 *
 * Reproducibility, as in cg_solver.c: the dot products add in duo's
 * fixed order, alpha, omega, beta and the residual are computed on the
 * device from those sums with correctly rounded division and sqrt, and
 * every kernel writes its arithmetic as explicit fma() calls, so that no
 * compiler can contract it differently (nvcc would fuse a * p + x on its
 * own, GCC in ISO C mode would not).  The stencil is
 *
 *   t1 = fma(aw, west, east);  t2 = fma(an, north, south);
 *   (A u)_c = fma(d, u_c, -(t1 + t2))
 *
 * and the updates are fma(-alpha, v, r), fma(omega, s, fma(alpha, p, x)),
 * fma(-omega, t, s) and fma(beta, fma(-omega, v, p), r).  So iterates,
 * residuals and iteration counts have the same bits on serial, openmp
 * (any thread count) and cuda.
 *
 * Per iteration: bicgstab_apply (v = A p), duo_dot_async (r0hat.v),
 * bicgstab_half (s), bicgstab_apply (t = A s), duo_dot_async (t.s, t.t
 * in one pass), bicgstab_update (x, r), duo_dot_async (r0hat.r, r.r in
 * one pass), bicgstab_direct (decide, p) -- eight operations, no host
 * wait.  Split among ranks: a halo exchange of p before v = A p and of s
 * before t = A s, queued on the same stream, and duo_dist_dots_async
 * into the same device scalars (no host wait either, where it can:
 * duo/dist.h).
 */
#include <float.h>
#include <math.h>

#include "bicgstab_solver.h"
#include "solver_progress.h"

void bicgstab_coefficients_set(bicgstab_coefficients *k, double cx,
                               double cy)
{
    k->d = 4.0 + cx + cy;
    k->aw = 1.0 + cx;
    k->an = 1.0 + cy;
}

/* Finite: not infinite and not NaN. */
DUO_DEVICE int bicgstab_finite(double a)
{
    return fabs(a) <= DBL_MAX;
}

/* alpha of iteration slot o, once r0hat.v is known. */
DUO_DEVICE double bicgstab_alpha(const bicgstab_scalars *s, int o)
{
    return s->rho[o] / s->rv;
}

/* omega once t.s and t.t are known: t = A s = 0 only where s = 0 (A is
 * nonsingular), and then r = s is already the new residual: omega = 0
 * takes x += alpha p alone (the solve then converges, or breaks down). */
DUO_DEVICE double bicgstab_omega(const bicgstab_scalars *s)
{
    return s->ts_tt[1] == 0 ? 0.0 : s->ts_tt[0] / s->ts_tt[1];
}

/* out = A in on `rows` rows from global row row0 of the ny-row grid
 * (in's rows above and below them, where they exist, are the halo: the
 * one above is the north neighbour); nothing once the solve has
 * stopped. */
DUO_KERNEL(bicgstab_apply, size_t rows, size_t nx, size_t row0, size_t ny,
           double d, double aw, double an, const uint64_t *state,
           const double *DUO_RESTRICT in, double *DUO_RESTRICT out)
{
    if (*state != BICGSTAB_RUNNING)
        return;
    DUO_FOR_2D(i, j, rows, nx) {
        const size_t c = i * nx + j;
        const double west = j > 0 ? in[c - 1] : 0.0;
        const double east = j + 1 < nx ? in[c + 1] : 0.0;
        const double north = row0 + i > 0 ? in[c - nx] : 0.0;
        const double south = row0 + i + 1 < ny ? in[c + nx] : 0.0;
        const double t1 = fma(aw, west, east);
        const double t2 = fma(an, north, south);
        out[c] = fma(d, in[c], -(t1 + t2));
    }
}

/* alpha = rho / r0hat.v;  s = r - alpha v.  A non-finite alpha (r0hat.v
 * = 0) is a breakdown: s is left alone, and so are x and r. */
DUO_KERNEL(bicgstab_half, size_t count, const bicgstab_scalars *sc, int o,
           const double *DUO_RESTRICT r, const double *DUO_RESTRICT v,
           double *DUO_RESTRICT s)
{
    const double alpha = bicgstab_alpha(sc, o);
    if (sc->state[o] != BICGSTAB_RUNNING || !bicgstab_finite(alpha))
        return;
    DUO_FOR(i, count)
        s[i] = fma(-alpha, v[i], r[i]);
}

/* x += alpha p + omega s;  r = s - omega t; nothing on a breakdown
 * (alpha or omega not finite), so x and r stay consistent. */
DUO_KERNEL(bicgstab_update, size_t count, const bicgstab_scalars *sc, int o,
           const double *DUO_RESTRICT p, const double *DUO_RESTRICT s,
           const double *DUO_RESTRICT t, double *DUO_RESTRICT x,
           double *DUO_RESTRICT r)
{
    const double alpha = bicgstab_alpha(sc, o), omega = bicgstab_omega(sc);
    if (sc->state[o] != BICGSTAB_RUNNING || !bicgstab_finite(alpha) ||
        !bicgstab_finite(omega))
        return;
    DUO_FOR(i, count) {
        x[i] = fma(omega, s[i], fma(alpha, p[i], x[i]));
        r[i] = fma(-omega, t[i], s[i]);
    }
}

/* Decide whether to go on, p = r + beta (p - omega v), and (index 0) the
 * scalars of the next iteration into the other slot, which nothing reads
 * here. */
DUO_KERNEL(bicgstab_direct, size_t count, bicgstab_scalars *sc, int o,
           const double *DUO_RESTRICT r, const double *DUO_RESTRICT v,
           double *DUO_RESTRICT p, double *DUO_RESTRICT history)
{
    const uint64_t was = sc->state[o];
    const double rho = sc->rho[o];
    const double rho_new = sc->rho_rr[0], rr_new = sc->rho_rr[1];
    const double alpha = bicgstab_alpha(sc, o), omega = bicgstab_omega(sc);
    const int stepped = bicgstab_finite(alpha) && bicgstab_finite(omega);
    const uint64_t it = was == BICGSTAB_RUNNING ? sc->it[o] + 1 : sc->it[o];
    const double residual = sqrt(rr_new) / sc->bnorm;
    const double beta = (rho_new / rho) * (alpha / omega);
    uint64_t state = was;
    if (was == BICGSTAB_RUNNING)
        state = !stepped                ? BICGSTAB_BREAKDOWN
                : residual < sc->tol    ? BICGSTAB_CONVERGED
                : !(rho_new != 0 && omega != 0 && bicgstab_finite(beta))
                    ? BICGSTAB_BREAKDOWN
                : it >= sc->maxit ? BICGSTAB_MAXIT
                                  : BICGSTAB_RUNNING;
    DUO_FOR(i, count) {
        if (state == BICGSTAB_RUNNING)
            p[i] = fma(beta, fma(-omega, v[i], p[i]), r[i]);
        if (i == 0) {
            const int w = 1 - o;
            sc->rho[w] = was == BICGSTAB_RUNNING ? rho_new : rho;
            sc->it[w] = it;
            sc->state[w] = state;
            if (was == BICGSTAB_RUNNING)
                history[it - 1] = residual;
        }
    }
}

/* Slot 0 from rho[0] = b.b (r0hat = r = b). */
DUO_KERNEL(bicgstab_init, size_t one, bicgstab_scalars *sc, double tol,
           uint64_t maxit)
{
    DUO_FOR(i, one) {
        const double bb = sc->rho[0];
        sc->bnorm = sqrt(bb);
        sc->tol = tol;
        sc->maxit = maxit;
        sc->rv = 0.0;
        sc->ts_tt[0] = sc->ts_tt[1] = 0.0;
        sc->rho_rr[0] = sc->rho_rr[1] = bb;
        sc->it[0] = 0;
        /* b = 0: x = 0 is the solution. */
        sc->state[0] = bb > 0 ? BICGSTAB_RUNNING : BICGSTAB_CONVERGED;
    }
}

/* result[0..count) (device) = x[k].y[k] over the whole grid, fused,
 * queued on the stream: with ranks, duo_dist_dots_async (which waits on
 * the host only where it must, dist.h). */
static duo_status dots(const bicgstab_solver *c, int count,
                       const void *const *x, const void *const *y,
                       double *result)
{
    if (!c->dist)
        return duo_dot_async(DUO_F64, c->count, count, x, y, result, NULL);
    return duo_dist_dots_async(DUO_F64, count, x, y, &c->range, result,
                               NULL);
}

/* out = A in on this rank's rows; in is row 1 of its halo field, whose
 * halo rows come from the neighbouring ranks first. */
static duo_status apply(const bicgstab_solver *c, const uint64_t *state,
                        double *in_halo, const double *in, double *out)
{
    const bicgstab_coefficients k = c->k;
    duo_status st = DUO_SUCCESS;
    if (c->dist) /* on the stream of the kernels: no wait with NCCL */
        st = duo_dist_halo_exchange_async(DUO_F64, in_halo, &c->rows, NULL);
    if (st == DUO_SUCCESS)
        st = DUO_LAUNCH_2D(bicgstab_apply, c->rows.count, c->nx,
                           c->rows.count, c->nx, c->rows.begin, c->ny, k.d,
                           k.aw, k.an, state, in, out);
    return st;
}

/* One iteration reading slot o; returns the first failure. */
static duo_status iteration(const bicgstab_solver *c, int o)
{
    const uint64_t *state = &c->sc->state[o];
    const void *rv_x[1] = {c->b}, *rv_y[1] = {c->v};
    const void *ts_x[2] = {c->t, c->t}, *ts_y[2] = {c->s, c->t};
    const void *rr_x[2] = {c->b, c->r}, *rr_y[2] = {c->r, c->r};
    duo_status st = apply(c, state, c->p_halo, c->p, c->v);
    if (st == DUO_SUCCESS)
        st = dots(c, 1, rv_x, rv_y, &c->sc->rv);
    if (st == DUO_SUCCESS)
        st = DUO_LAUNCH(bicgstab_half, c->count, c->count, c->sc, o, c->r,
                        c->v, c->s);
    if (st == DUO_SUCCESS)
        st = apply(c, state, c->s_halo, c->s, c->t);
    if (st == DUO_SUCCESS)
        st = dots(c, 2, ts_x, ts_y, c->sc->ts_tt);
    if (st == DUO_SUCCESS)
        st = DUO_LAUNCH(bicgstab_update, c->count, c->count, c->sc, o, c->p,
                        c->s, c->t, c->x, c->r);
    if (st == DUO_SUCCESS)
        st = dots(c, 2, rr_x, rr_y, c->sc->rho_rr);
    if (st == DUO_SUCCESS)
        st = DUO_LAUNCH(bicgstab_direct, c->count, c->count, c->sc, o, c->r,
                        c->v, c->p, c->history);
    return st;
}

static duo_status batch_body(void *ctx)
{
    const bicgstab_solver *c = (const bicgstab_solver *)ctx;
    duo_status st = DUO_SUCCESS;
    for (int k = 0; k < BICGSTAB_BATCH && st == DUO_SUCCESS; ++k)
        st = iteration(c, k & 1);
    return st;
}

/* A device field of the rank's rows: with a halo row above and below
 * (zeroed: the halo rows beyond the grid's edges are never read, and
 * must be defined all the same) when split among ranks. */
static double *field(const bicgstab_solver *c, double **halo)
{
    const size_t bytes = c->count * sizeof(double);
    double *f = NULL;
    *halo = NULL;
    if (!c->dist) {
        DUO_CHECK(duo_malloc((void **)&f, bytes));
        return f;
    }
    const size_t halo_bytes = bytes + 2 * c->nx * sizeof(double);
    DUO_CHECK(duo_malloc((void **)halo, halo_bytes));
    DUO_CHECK(duo_memset(*halo, 0, halo_bytes));
    return *halo + c->nx;
}

/* Allocate for rows->count rows; capture unless split among ranks. */
static void create(bicgstab_solver *c, const duo_dist_rows *rows, int dist,
                   double cx, double cy, double tol, size_t maxit,
                   const double *b)
{
    const size_t nx = rows->cols;
    const size_t bytes = nx * rows->count * sizeof(double);
    c->nx = nx;
    c->ny = rows->rows;
    c->count = nx * rows->count;
    c->dist = dist;
    c->rows = *rows;
    c->range = duo_dist_rows_range(rows);
    bicgstab_coefficients_set(&c->k, cx, cy);
    c->tol = tol;
    c->maxit = maxit;
    c->b = b;
    c->batch = NULL;
    DUO_CHECK(duo_malloc((void **)&c->x, bytes));
    DUO_CHECK(duo_malloc((void **)&c->r, bytes));
    c->p = field(c, &c->p_halo);
    DUO_CHECK(duo_malloc((void **)&c->v, bytes));
    c->s = field(c, &c->s_halo);
    DUO_CHECK(duo_malloc((void **)&c->t, bytes));
    DUO_CHECK(duo_malloc((void **)&c->sc, sizeof(bicgstab_scalars)));
    /* Slots a solve has not reached yet are copied to the host with the
     * rest of the scalars: give them a value. */
    DUO_CHECK(duo_memset(c->sc, 0, sizeof(bicgstab_scalars)));
    DUO_CHECK(duo_malloc((void **)&c->history, maxit * sizeof(double)));
    /* s and t are read (never used) by a first iteration that breaks down
     * at once: give them defined contents. */
    DUO_CHECK(duo_memset(c->s, 0, bytes));
    DUO_CHECK(duo_memset(c->t, 0, bytes));
    if (!dist)
        DUO_CHECK(duo_graph_capture(NULL, batch_body, c, &c->batch));
}

void bicgstab_solver_create(bicgstab_solver *c, size_t nx, size_t ny,
                            double cx, double cy, double tol, size_t maxit,
                            const double *b)
{
    duo_dist_rows whole;
    whole.rows = ny;
    whole.cols = nx;
    whole.begin = 0;
    whole.count = ny;
    create(c, &whole, 0, cx, cy, tol, maxit, b);
}

void bicgstab_solver_create_rows(bicgstab_solver *c,
                                 const duo_dist_rows *rows, double cx,
                                 double cy, double tol, size_t maxit,
                                 const double *b)
{
    /* One rank needs no MPI call: it keeps the graph. */
    create(c, rows, duo_dist_size() > 1, cx, cy, tol, maxit, b);
}

void bicgstab_solver_destroy(bicgstab_solver *c)
{
    DUO_CHECK(duo_graph_destroy(c->batch));
    DUO_CHECK(duo_free(c->x));
    DUO_CHECK(duo_free(c->r));
    DUO_CHECK(duo_free(c->p_halo != NULL ? c->p_halo : c->p));
    DUO_CHECK(duo_free(c->v));
    DUO_CHECK(duo_free(c->s_halo != NULL ? c->s_halo : c->s));
    DUO_CHECK(duo_free(c->t));
    DUO_CHECK(duo_free(c->sc));
    DUO_CHECK(duo_free(c->history));
}

void bicgstab_solver_start(bicgstab_solver *c)
{
    const size_t bytes = c->count * sizeof(double);
    const void *b[1] = {c->b};
    DUO_CHECK(duo_memset(c->x, 0, bytes));
    DUO_CHECK(duo_memcpy(c->r, c->b, bytes, DUO_DEVICE_TO_DEVICE));
    DUO_CHECK(duo_memcpy(c->p, c->b, bytes, DUO_DEVICE_TO_DEVICE));
    DUO_CHECK(dots(c, 1, b, b, &c->sc->rho[0]));
    DUO_CHECK(DUO_LAUNCH(bicgstab_init, 1, 1, c->sc, c->tol,
                         (uint64_t)c->maxit));
}

void bicgstab_solver_run(bicgstab_solver *c, size_t batches)
{
    for (size_t k = 0; k < batches; ++k) {
        if (c->dist)
            DUO_CHECK(batch_body(c));
        else
            DUO_CHECK(duo_graph_launch(c->batch, NULL));
    }
}

void bicgstab_solver_status(const bicgstab_solver *c, size_t *iterations,
                            double *residual, int *state)
{
    /* A batch has an even number of iterations: slot 0 is the latest. */
    bicgstab_scalars s;
    DUO_CHECK(duo_memcpy(&s, c->sc, sizeof s, DUO_DEVICE_TO_HOST));
    *iterations = (size_t)s.it[0];
    *state = (int)s.state[0];
    *residual = s.bnorm > 0 ? 1.0 : 0.0;
    if (s.it[0] > 0)
        DUO_CHECK(duo_memcpy(residual, c->history + (s.it[0] - 1),
                             sizeof(double), DUO_DEVICE_TO_HOST));
}

void bicgstab_solver_solve(bicgstab_solver *c, const char *prog,
                           int progress)
{
    solver_progress report;
    size_t it = 0;
    double residual = 0.0;
    int state = BICGSTAB_RUNNING;
    solver_progress_begin(&report, prog, c->maxit, progress);
    bicgstab_solver_start(c);
    bicgstab_solver_status(c, &it, &residual, &state);
    while (state == BICGSTAB_RUNNING) {
        bicgstab_solver_run(c, 1);
        bicgstab_solver_status(c, &it, &residual, &state);
        if (state == BICGSTAB_RUNNING)
            solver_progress_update(&report, it, residual);
    }
}

void bicgstab_solver_history(const bicgstab_solver *c, double *host,
                             size_t iterations)
{
    if (iterations > 0)
        DUO_CHECK(duo_memcpy(host, c->history, iterations * sizeof(double),
                             DUO_DEVICE_TO_HOST));
}
