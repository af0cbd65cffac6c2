/*
 * solver_progress.h - the progress lines of a long iterative solve, the
 * same for every solver: one line to stderr every 10% of maxit, once the
 * solve has run for more than a second.
 */
#ifndef DUO_SOLVER_PROGRESS_H
#define DUO_SOLVER_PROGRESS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct solver_progress {
    const char *prog;
    size_t maxit;
    size_t next;  /* the next tenth of maxit to report at */
    double start; /* seconds */
    int on;
} solver_progress;

void solver_progress_begin(solver_progress *p, const char *prog,
                           size_t maxit, int on);
/* After each batch: `it` iterations done, relative residual. */
void solver_progress_update(solver_progress *p, size_t it, double residual);

#ifdef __cplusplus
}
#endif

#endif /* DUO_SOLVER_PROGRESS_H */
