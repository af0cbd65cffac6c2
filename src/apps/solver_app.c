/*
 * solver_app.c - see solver_app.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "app_common.h"
#include "solver_app.h"

size_t solver_app_maxit(const char *prog, const char *usage, double tol,
                        double maxit_arg, size_t nx, size_t ny)
{
    if (!(tol > 0 && tol < 1))
        app_usage_error(prog, usage, "--tol %g: expected a number between 0 "
                        "and 1 (exclusive)", tol);
    if (isnan(maxit_arg)) {
        const size_t n = nx > ny ? nx : ny;
        if (n > (size_t)((SOLVER_MAX_MAXIT - 100) / 10))
            app_usage_error(prog, usage, "grid %zu x %zu is too large for "
                            "the default --maxit; give one", nx, ny);
        return 10 * n + 100;
    }
    if (!(maxit_arg >= 1 && maxit_arg <= SOLVER_MAX_MAXIT) ||
        maxit_arg != floor(maxit_arg))
        app_usage_error(prog, usage, "--maxit %g: expected an integer from "
                        "1 to %.0e", maxit_arg, SOLVER_MAX_MAXIT);
    return (size_t)maxit_arg;
}

int solver_problem_setup(solver_problem *p, const char *prog, int *argc,
                         char ***argv, size_t nx, size_t ny, uint64_t seed)
{
    p->nx = nx;
    p->ny = ny;
    p->count = app_count(prog, "nx", nx, ny);
    p->bytes = app_bytes(prog, "nx", p->count, sizeof(double));

    duo_status st = duo_dist_init(argc, argv);
    if (st != DUO_SUCCESS) {
        fprintf(stderr, "%s: %s\n", prog, duo_last_error());
        exit(st == DUO_ERROR_NO_DEVICE ? APP_EXIT_NO_DEVICE : 1);
    }
    p->rank = duo_dist_rank();
    if (p->rank == 0)
        app_say_path(prog);
    if (duo_dist_rows_make(ny, nx, &p->rows) != DUO_SUCCESS) {
        /* Every rank decides the same (e.g. more ranks than rows). */
        if (p->rank == 0)
            fprintf(stderr, "%s: %s\n", prog, duo_last_error());
        duo_dist_finalize();
        return 2;
    }
    p->mine = duo_dist_rows_range(&p->rows);

    app_rng rng;
    app_rng_seed(&rng, seed);
    p->b = (double *)app_host_alloc(prog, p->bytes);
    app_fill_f64(p->b, p->count, &rng);
    p->db = NULL;
    DUO_DIST_CHECK(duo_malloc((void **)&p->db,
                              p->mine.count * sizeof(double)));
    DUO_DIST_CHECK(duo_memcpy(p->db, p->b + p->mine.begin,
                              p->mine.count * sizeof(double),
                              DUO_HOST_TO_DEVICE));
    return 0;
}

void solver_problem_free(solver_problem *p)
{
    DUO_DIST_CHECK(duo_free(p->db));
    free(p->b);
    p->db = NULL;
    p->b = NULL;
}
