/*
 * bicgstab_solver.h - unpreconditioned BiCGStab for a 2-D convection-
 * diffusion problem, kept on the device the way cg_solver.h keeps CG:
 * the scalars live in device memory, dot products are duo_dot_async
 * (fused in pairs where two share a pass), and a batch of iterations is
 * one duo_graph replay.  Used by duo-bicgstab.
 *
 * A is nonsymmetric: -Laplace(u) + (cx, cy) . grad(u) on an ny x nx
 * interior grid (grid spacing 1, zero Dirichlet boundary), the
 * convection by first-order upwind differences (cx, cy >= 0):
 *
 *   (A u)_c = d u_c - aw u_west - u_east - an u_north - u_south,
 *   d = 4 + cx + cy,  aw = 1 + cx,  an = 1 + cy   (each rounded to
 *   double once, by bicgstab_coefficients; A is the matrix of those)
 *
 * never stored.  From x = 0, r = r0hat = p = b, rho = r0hat.r:
 *
 *   v = A p;  alpha = rho / (r0hat.v);  s = r - alpha v;  t = A s;
 *   omega = (t.s) / (t.t)  (0 when t = 0, i.e. s = 0);
 *   x += alpha p + omega s;  r = s - omega t;
 *   rho' = r0hat.r;  residual = ||r|| / ||b||;
 *   beta = (rho' / rho) (alpha / omega);  p = r + beta (p - omega v)
 *
 * It stops when residual < tol, on breakdown (alpha or omega not finite:
 * x and r then keep the previous iterate; or rho' = 0, omega = 0 or beta
 * not finite after the update) or after maxit iterations.  A device
 * status flag freezes every kernel once the solve stops, so a replay
 * that overruns the last iteration changes nothing: the host looks only
 * after each batch, and the iteration count and every iterate are those
 * of an iteration-by-iteration loop, on every backend.
 *
 * Several ranks (bicgstab_solver_create_rows, MPI, more than one rank):
 * each rank holds its rows of the grid (duo/dist.h); p and s carry a
 * halo row above and below, refreshed from the neighbours before v = A p
 * and t = A s (the halo above is the north neighbour, weighted an; the
 * one below the south, weighted 1).  The dot products are
 * duo_dist_dots_async (one pair, or fused pairs), which have the bits of
 * duo_dot_async on the whole vectors, so every rank computes the same
 * scalars and every value is the single-process value, bit for bit, for
 * any number of ranks.  MPI calls cannot be captured in a graph, so that
 * build runs the same kernels as plain calls, BICGSTAB_BATCH iterations
 * per batch as well.
 */
#ifndef DUO_BICGSTAB_SOLVER_H
#define DUO_BICGSTAB_SOLVER_H

#include <stddef.h>
#include <stdint.h>

#include <duo.h>
#include <duo/dist.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Iterations per graph replay (even: slots alternate by parity).  An
 * iteration does twice CG's work (two products with A), so half of
 * CG_BATCH gives replays of about the same length and half the wasted
 * (frozen) work after convergence. */
#define BICGSTAB_BATCH 16

enum bicgstab_state {
    BICGSTAB_RUNNING,
    BICGSTAB_CONVERGED,
    BICGSTAB_BREAKDOWN,
    BICGSTAB_MAXIT
};

/* Device scalars.  Values a kernel writes while others read the previous
 * ones are kept in two slots, by iteration parity; the dot products are
 * written only by duo_dot_async, between the kernels that read them. */
typedef struct bicgstab_scalars {
    double rho[2];     /* r0hat.r entering the iteration                 */
    double rv;         /* r0hat.v of this iteration                      */
    double ts_tt[2];   /* t.s, t.t                                       */
    double rho_rr[2];  /* r0hat.r, r.r after this iteration's update     */
    double bnorm, tol;
    uint64_t it[2];    /* iterations done                                */
    uint64_t state[2]; /* enum bicgstab_state                            */
    uint64_t maxit;
} bicgstab_scalars;

/* The stencil's coefficients, as both the device and a host reference
 * must use them (each rounded once, from cx, cy >= 0). */
typedef struct bicgstab_coefficients {
    double d, aw, an;
} bicgstab_coefficients;

void bicgstab_coefficients_set(bicgstab_coefficients *k, double cx,
                               double cy);

typedef struct bicgstab_solver {
    size_t nx, ny;        /* grid: ny rows of nx points                 */
    size_t count;         /* points held here: nx ny, or nx rows.count  */
    int dist;             /* rows split among ranks (no graph)          */
    duo_dist_rows rows;   /* this rank's rows (all of them on one)      */
    duo_dist_range range; /* its elements of the flattened grid         */
    bicgstab_coefficients k;
    double tol;
    size_t maxit;
    const double *b;      /* device, not owned; also r0hat (= r_0 = b)  */
    double *x, *r, *p, *v, *s, *t; /* device; p, s: row 1 of the halos  */
    double *p_halo, *s_halo;       /* device: (rows.count + 2) x nx, or
                                      NULL on one rank                  */
    bicgstab_scalars *sc;          /* device                            */
    double *history;      /* device: residual after iteration k+1       */
    duo_graph batch;      /* BICGSTAB_BATCH iterations                  */
} bicgstab_solver;

/* Allocate and capture; exits with a message on failure (DUO_CHECK). */
void bicgstab_solver_create(bicgstab_solver *c, size_t nx, size_t ny,
                            double cx, double cy, double tol, size_t maxit,
                            const double *b);
/* The same for this rank's rows of the grid (duo_dist_rows_make; b
 * holds those rows): split among the ranks when there are several, the
 * whole grid and bicgstab_solver_create's graph on one. */
void bicgstab_solver_create_rows(bicgstab_solver *c,
                                 const duo_dist_rows *rows, double cx,
                                 double cy, double tol, size_t maxit,
                                 const double *b);
void bicgstab_solver_destroy(bicgstab_solver *c);

/* Queue x = 0, r = p = b and the scalars (||b|| from b.b). */
void bicgstab_solver_start(bicgstab_solver *c);
/* Queue `batches` replays of BICGSTAB_BATCH iterations. */
void bicgstab_solver_run(bicgstab_solver *c, size_t batches);
/* The state after the queued work: waits for it. */
void bicgstab_solver_status(const bicgstab_solver *c, size_t *iterations,
                            double *residual, int *state);
/* start, then batches until the solve stops; with progress, report
 * every 10% of maxit to stderr once the solve has taken over 1 s. */
void bicgstab_solver_solve(bicgstab_solver *c, const char *prog,
                           int progress);
/* Copy the residual history (iterations values) to the host. */
void bicgstab_solver_history(const bicgstab_solver *c, double *host,
                             size_t iterations);

#ifdef __cplusplus
}
#endif

#endif /* DUO_BICGSTAB_SOLVER_H */
