/*
 * cg_solver.h - conjugate gradients for the 2-D Poisson problem, kept on
 * the device: the scalars live in device memory, dot products are
 * duo_dot_async, and a batch of iterations is one duo_graph replay.  Used
 * by duo-cg and by duo-bench's solver group.
 *
 * A is the 5-point Laplacian on an ny x nx interior grid (4 on the
 * diagonal, -1 for each neighbour, zero Dirichlet boundary), never
 * stored.  From x = 0, r = p = b:
 *
 *   q = A p;  alpha = rr / (p.q);  x += alpha p;  r -= alpha q;
 *   rr' = r.r;  stop when sqrt(rr') / ||b|| < tol, on breakdown
 *   (p.q <= 0) or after maxit iterations;  p = r + (rr' / rr) p
 *
 * A device status flag freezes x, r, p, rr, the count and the history
 * once the solve stops (q = A p and p.q are recomputed from the frozen p,
 * to the same values, and nothing uses them), so a replay that overruns
 * the last iteration changes nothing: the host looks only after each
 * batch, and the iteration count and every iterate are those of an
 * iteration-by-iteration loop, on every backend.
 *
 * Several ranks (cg_solver_create_rows, MPI, more than one rank): each rank
 * holds its rows of the grid (duo/dist.h), p with a halo row above and
 * below, refreshed from the neighbours before each A p; the dot products
 * are duo_dist_dot_async, which has the bits of duo_dot_async on the whole
 * vectors, so every rank computes the same scalars and every value is
 * the single-process value, bit for bit, for any number of ranks.  MPI
 * calls cannot be captured in a graph, so that build runs the same
 * kernels as plain calls, CG_BATCH iterations per batch as well.
 */
#ifndef DUO_CG_SOLVER_H
#define DUO_CG_SOLVER_H

#include <stddef.h>
#include <stdint.h>

#include <duo.h>
#include <duo/dist.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Iterations per graph replay (even: slots alternate by parity). */
#define CG_BATCH 32

enum cg_state { CG_RUNNING, CG_CONVERGED, CG_BREAKDOWN, CG_MAXIT };

/* Device scalars.  Values a kernel writes while others read the previous
 * ones are kept in two slots, by iteration parity. */
typedef struct cg_scalars {
    double rr[2];      /* r.r entering the iteration                     */
    double pq;         /* p.q of this iteration                          */
    double rr_new;     /* r.r after this iteration's update              */
    double bnorm, tol;
    uint64_t it[2];    /* iterations done                                */
    uint64_t state[2]; /* enum cg_state                                  */
    uint64_t maxit;
} cg_scalars;

typedef struct cg_solver {
    size_t nx, ny;        /* grid: ny rows of nx points                 */
    size_t count;         /* points held here: nx ny, or nx rows.count  */
    int dist;             /* rows split among ranks (no graph)          */
    duo_dist_rows rows;   /* this rank's rows (all of them on one)      */
    duo_dist_range range; /* its elements of the flattened grid         */
    double tol;
    size_t maxit;
    const double *b;              /* device, not owned                  */
    double *x, *r, *p, *q;        /* device; p is row 1 of p_halo       */
    double *p_halo;               /* device: (rows.count + 2) x nx      */
    cg_scalars *s;                /* device                             */
    double *history;              /* device: residual after iteration k+1 */
    duo_graph batch;              /* CG_BATCH iterations                */
} cg_solver;

/* Allocate and capture; exits with a message on failure (DUO_CHECK). */
void cg_solver_create(cg_solver *c, size_t nx, size_t ny, double tol,
                      size_t maxit, const double *b);
/* The same for this rank's rows of the grid (duo_dist_rows_make; b
 * holds those rows): split among the ranks when there are several, the
 * whole grid and cg_solver_create's graph on one. */
void cg_solver_create_rows(cg_solver *c, const duo_dist_rows *rows,
                           double tol, size_t maxit, const double *b);
void cg_solver_destroy(cg_solver *c);

/* Queue x = 0, r = p = b and the scalars (||b|| from b.b). */
void cg_solver_start(cg_solver *c);
/* Queue `batches` replays of CG_BATCH iterations. */
void cg_solver_run(cg_solver *c, size_t batches);
/* The same iterations as plain calls, without the graph: what the graph
 * saves (duo-bench compares the two). */
void cg_solver_run_uncaptured(cg_solver *c, size_t batches);
/* The state after the queued work: waits for it. */
void cg_solver_status(const cg_solver *c, size_t *iterations,
                      double *residual, int *state);
/* start, then batches until the solve stops; with progress, report
 * every 10% of maxit to stderr once the solve has taken over 1 s. */
void cg_solver_solve(cg_solver *c, const char *prog, int progress);
/* Copy the residual history (iterations values) to the host. */
void cg_solver_history(const cg_solver *c, double *host, size_t iterations);

#ifdef __cplusplus
}
#endif

#endif /* DUO_CG_SOLVER_H */
