/*
 * solver_app.h - what duo-cg and duo-bicgstab share around their solvers:
 * the --tol / --maxit rules, and the problem every rank sets up (the
 * ranks' row split of an ny x nx grid, and a right-hand side drawn whole
 * from the seed on every rank, whose rows each rank keeps on its device).
 */
#ifndef DUO_SOLVER_APP_H
#define DUO_SOLVER_APP_H

#include <stddef.h>
#include <stdint.h>

#include <duo.h>
#include <duo/dist.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The residual history is kept on the device: at most this many
 * iterations. */
#define SOLVER_MAX_MAXIT 1e8

/* Exits 2 with a usage error unless 0 < tol < 1; returns --maxit, or
 * 10 max(nx, ny) + 100 when maxit_arg is NaN (not given). */
size_t solver_app_maxit(const char *prog, const char *usage, double tol,
                        double maxit_arg, size_t nx, size_t ny);

typedef struct solver_problem {
    size_t nx, ny, count, bytes; /* the whole grid; bytes of one f64 field */
    int rank;
    duo_dist_rows rows;
    duo_dist_range mine;         /* this rank's elements                  */
    double *b;                   /* host: the whole right-hand side       */
    double *db;                  /* device: this rank's rows of b         */
} solver_problem;

/* duo_dist_init, the row split and b.  Returns 0, or the status the app
 * exits with: 2 when the grid cannot be split (more ranks than rows; rank
 * 0 has said why and duo_dist_finalize has run).  Other failures exit. */
int solver_problem_setup(solver_problem *p, const char *prog, int *argc,
                         char ***argv, size_t nx, size_t ny, uint64_t seed);
void solver_problem_free(solver_problem *p);

#ifdef __cplusplus
}
#endif

#endif /* DUO_SOLVER_APP_H */
