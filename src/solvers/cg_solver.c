/*
 * cg_solver.c - the device-resident CG of cg_solver.h.
 *
 * Reproducibility: the dot products add in duo's fixed order, alpha,
 * beta and the residual are computed on the device from those sums with
 * correctly rounded division and sqrt, and every kernel writes its
 * arithmetic so that no compiler can contract it differently: the axpys
 * are explicit fma() calls (nvcc would otherwise fuse alpha * p + x, and
 * GCC in ISO C mode would not), the stencil is
 * fma(4, c, -((w + e) + (s + n))) -- the bits of 4 c - (...), since 4 c
 * is exact.  So iterates, residuals and iteration counts have the same
 * bits on serial, openmp (any thread count) and cuda.
 *
 * Per iteration: cg_apply, duo_dot_async (p.q), cg_update,
 * duo_dot_async (r.r), cg_direct -- five launches, no host wait.  Split
 * among ranks: a halo exchange of p first, queued on the same stream,
 * and duo_dist_dot_async into the same device scalars (no host wait
 * either, where it can: duo/dist.h).
 */
#include <math.h>

#include "cg_solver.h"
#include "solver_progress.h"

/* q = A p on `rows` rows from global row row0 of the ny-row grid (p's
 * rows above and below them, where they exist, are the halo).  It runs
 * on once the solve has stopped: q then feeds only p.q, which nothing
 * reads after the stop (cg_update and cg_direct look at the state).
 * Reading the state first cost 1 to 2% of an iteration at 128^2 and
 * 512^2 on an H100 (a dependent load before the stencil's). */
DUO_KERNEL(cg_apply, size_t rows, size_t nx, size_t row0, size_t ny,
           const double *DUO_RESTRICT p, double *DUO_RESTRICT q)
{
    DUO_FOR_2D(i, j, rows, nx) {
        const size_t c = i * nx + j;
        const double west = j > 0 ? p[c - 1] : 0.0;
        const double east = j + 1 < nx ? p[c + 1] : 0.0;
        const double north = row0 + i > 0 ? p[c - nx] : 0.0;
        const double south = row0 + i + 1 < ny ? p[c + nx] : 0.0;
        q[c] = fma(4.0, p[c], -((west + east) + (north + south)));
    }
}

/* alpha = rr / p.q;  x += alpha p;  r -= alpha q. */
DUO_KERNEL(cg_update, size_t count, const cg_scalars *s, int o,
           const double *DUO_RESTRICT p, const double *DUO_RESTRICT q,
           double *DUO_RESTRICT x, double *DUO_RESTRICT r)
{
    if (s->state[o] != CG_RUNNING)
        return;
    const double alpha = s->rr[o] / s->pq;
    DUO_FOR(i, count) {
        x[i] = fma(alpha, p[i], x[i]);
        r[i] = fma(-alpha, q[i], r[i]);
    }
}

/* Decide whether to go on, p = r + beta p, and (index 0) the scalars of
 * the next iteration into the other slot, which nothing reads here. */
DUO_KERNEL(cg_direct, size_t count, cg_scalars *s, int o,
           const double *DUO_RESTRICT r, double *DUO_RESTRICT p,
           double *DUO_RESTRICT history)
{
    const uint64_t was = s->state[o];
    const double rr = s->rr[o], rr_new = s->rr_new, pq = s->pq;
    const uint64_t it = was == CG_RUNNING ? s->it[o] + 1 : s->it[o];
    const double residual = sqrt(rr_new) / s->bnorm;
    uint64_t state = was;
    if (was == CG_RUNNING)
        state = residual < s->tol ? CG_CONVERGED
                : !(pq > 0)       ? CG_BREAKDOWN /* A p = 0 or worse */
                : it >= s->maxit  ? CG_MAXIT
                                  : CG_RUNNING;
    const double beta = rr_new / rr;
    DUO_FOR(i, count) {
        if (state == CG_RUNNING)
            p[i] = fma(beta, p[i], r[i]);
        if (i == 0) {
            const int w = 1 - o;
            s->rr[w] = was == CG_RUNNING ? rr_new : rr;
            s->it[w] = it;
            s->state[w] = state;
            if (was == CG_RUNNING)
                history[it - 1] = residual;
        }
    }
}

/* Slot 0 from rr[0] = b.b. */
DUO_KERNEL(cg_init, size_t one, cg_scalars *s, double tol, uint64_t maxit)
{
    DUO_FOR(i, one) {
        const double bb = s->rr[0];
        s->bnorm = sqrt(bb);
        s->tol = tol;
        s->maxit = maxit;
        s->rr_new = bb;
        s->pq = 0.0;
        s->it[0] = 0;
        s->state[0] = bb > 0 ? CG_RUNNING : CG_CONVERGED; /* b = 0: x = 0 */
    }
}

/* *result (device) = x.y over the whole grid, queued on the stream:
 * with ranks, duo_dist_dot_async (which waits on the host only where it
 * must, dist.h). */
static duo_status dot(const cg_solver *c, const double *x, const double *y,
                      double *result)
{
    if (!c->dist) {
        const void *xs[1] = {x}, *ys[1] = {y};
        return duo_dot_async(DUO_F64, c->count, 1, xs, ys, result, NULL);
    }
    return duo_dist_dot_async(DUO_F64, x, y, &c->range, result, NULL);
}

/* One iteration reading slot o; returns the first failure. */
static duo_status iteration(const cg_solver *c, int o)
{
    duo_status st = DUO_SUCCESS;
    if (c->dist) /* on the stream of the kernels: no wait with NCCL */
        st = duo_dist_halo_exchange_async(DUO_F64, c->p_halo, &c->rows,
                                          NULL);
    if (st == DUO_SUCCESS)
        st = DUO_LAUNCH_2D(cg_apply, c->rows.count, c->nx, c->rows.count,
                           c->nx, c->rows.begin, c->ny, c->p, c->q);
    if (st == DUO_SUCCESS)
        st = dot(c, c->p, c->q, &c->s->pq);
    if (st == DUO_SUCCESS)
        st = DUO_LAUNCH(cg_update, c->count, c->count, c->s, o, c->p, c->q,
                        c->x, c->r);
    if (st == DUO_SUCCESS)
        st = dot(c, c->r, c->r, &c->s->rr_new);
    if (st == DUO_SUCCESS)
        st = DUO_LAUNCH(cg_direct, c->count, c->count, c->s, o, c->r, c->p,
                        c->history);
    return st;
}

static duo_status batch_body(void *ctx)
{
    const cg_solver *c = (const cg_solver *)ctx;
    duo_status st = DUO_SUCCESS;
    for (int k = 0; k < CG_BATCH && st == DUO_SUCCESS; ++k)
        st = iteration(c, k & 1);
    return st;
}

/* Allocate for rows->count rows; capture unless split among ranks. */
static void create(cg_solver *c, const duo_dist_rows *rows, int dist,
                   double tol, size_t maxit, const double *b)
{
    const size_t nx = rows->cols;
    const size_t bytes = nx * rows->count * sizeof(double);
    c->nx = nx;
    c->ny = rows->rows;
    c->count = nx * rows->count;
    c->dist = dist;
    c->rows = *rows;
    c->range = duo_dist_rows_range(rows);
    c->tol = tol;
    c->maxit = maxit;
    c->b = b;
    c->batch = NULL;
    DUO_CHECK(duo_malloc((void **)&c->x, bytes));
    DUO_CHECK(duo_malloc((void **)&c->r, bytes));
    DUO_CHECK(duo_malloc((void **)&c->q, bytes));
    DUO_CHECK(duo_malloc((void **)&c->s, sizeof(cg_scalars)));
    /* The slot a solve has not reached yet is copied to the host with
     * the rest of the scalars (cg_solver_status): give it a value. */
    DUO_CHECK(duo_memset(c->s, 0, sizeof(cg_scalars)));
    DUO_CHECK(duo_malloc((void **)&c->history, maxit * sizeof(double)));
    if (dist) {
        /* The halo rows beyond the grid's edges are never read. */
        const size_t halo_bytes = bytes + 2 * nx * sizeof(double);
        DUO_CHECK(duo_malloc((void **)&c->p_halo, halo_bytes));
        DUO_CHECK(duo_memset(c->p_halo, 0, halo_bytes));
        c->p = c->p_halo + nx;
        return;
    }
    DUO_CHECK(duo_malloc((void **)&c->p, bytes));
    c->p_halo = NULL;
    DUO_CHECK(duo_graph_capture(NULL, batch_body, c, &c->batch));
}

void cg_solver_create(cg_solver *c, size_t nx, size_t ny, double tol,
                      size_t maxit, const double *b)
{
    duo_dist_rows whole;
    whole.rows = ny;
    whole.cols = nx;
    whole.begin = 0;
    whole.count = ny;
    create(c, &whole, 0, tol, maxit, b);
}

void cg_solver_create_rows(cg_solver *c, const duo_dist_rows *rows,
                           double tol, size_t maxit, const double *b)
{
    /* One rank needs no MPI call: it keeps the graph. */
    create(c, rows, duo_dist_size() > 1, tol, maxit, b);
}

void cg_solver_destroy(cg_solver *c)
{
    DUO_CHECK(duo_graph_destroy(c->batch));
    DUO_CHECK(duo_free(c->x));
    DUO_CHECK(duo_free(c->r));
    DUO_CHECK(duo_free(c->p_halo != NULL ? c->p_halo : c->p));
    DUO_CHECK(duo_free(c->q));
    DUO_CHECK(duo_free(c->s));
    DUO_CHECK(duo_free(c->history));
}

void cg_solver_start(cg_solver *c)
{
    const size_t bytes = c->count * sizeof(double);
    DUO_CHECK(duo_memset(c->x, 0, bytes));
    DUO_CHECK(duo_memcpy(c->r, c->b, bytes, DUO_DEVICE_TO_DEVICE));
    DUO_CHECK(duo_memcpy(c->p, c->b, bytes, DUO_DEVICE_TO_DEVICE));
    DUO_CHECK(dot(c, c->b, c->b, &c->s->rr[0]));
    DUO_CHECK(DUO_LAUNCH(cg_init, 1, 1, c->s, c->tol, (uint64_t)c->maxit));
}

void cg_solver_run(cg_solver *c, size_t batches)
{
    for (size_t k = 0; k < batches; ++k) {
        if (c->dist)
            DUO_CHECK(batch_body(c));
        else
            DUO_CHECK(duo_graph_launch(c->batch, NULL));
    }
}

void cg_solver_run_uncaptured(cg_solver *c, size_t batches)
{
    for (size_t k = 0; k < batches; ++k)
        DUO_CHECK(batch_body(c));
}

void cg_solver_status(const cg_solver *c, size_t *iterations,
                      double *residual, int *state)
{
    /* A batch has an even number of iterations: slot 0 is the latest. */
    cg_scalars s;
    DUO_CHECK(duo_memcpy(&s, c->s, sizeof s, DUO_DEVICE_TO_HOST));
    *iterations = (size_t)s.it[0];
    *state = (int)s.state[0];
    *residual = s.bnorm > 0 ? 1.0 : 0.0;
    if (s.it[0] > 0)
        DUO_CHECK(duo_memcpy(residual, c->history + (s.it[0] - 1),
                             sizeof(double), DUO_DEVICE_TO_HOST));
}

void cg_solver_solve(cg_solver *c, const char *prog, int progress)
{
    solver_progress report;
    size_t it = 0;
    double residual = 0.0;
    int state = CG_RUNNING;
    solver_progress_begin(&report, prog, c->maxit, progress);
    cg_solver_start(c);
    cg_solver_status(c, &it, &residual, &state);
    while (state == CG_RUNNING) {
        cg_solver_run(c, 1);
        cg_solver_status(c, &it, &residual, &state);
        if (state == CG_RUNNING)
            solver_progress_update(&report, it, residual);
    }
}

void cg_solver_history(const cg_solver *c, double *host, size_t iterations)
{
    if (iterations > 0)
        DUO_CHECK(duo_memcpy(host, c->history, iterations * sizeof(double),
                             DUO_DEVICE_TO_HOST));
}
