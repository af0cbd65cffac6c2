/*
 * solver_progress.c - see solver_progress.h.
 */
#include <stdio.h>
#include <time.h>

#include "solver_progress.h"

static double seconds_now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void solver_progress_begin(solver_progress *p, const char *prog,
                           size_t maxit, int on)
{
    p->prog = prog;
    p->maxit = maxit;
    p->next = 1;
    p->start = seconds_now();
    p->on = on;
}

void solver_progress_update(solver_progress *p, size_t it, double residual)
{
    if (!p->on || it < p->next * p->maxit / 10)
        return;
    while (it >= p->next * p->maxit / 10)
        ++p->next;
    if (seconds_now() - p->start > 1.0) {
        fprintf(stderr, "%s: iteration %zu of at most %zu: relative "
                "residual %.3e\n", p->prog, it, p->maxit, residual);
        fflush(stderr);
    }
}
