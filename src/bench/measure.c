/*
 * measure.c - how duo-bench times a row: one warm-up run of each side,
 * then timed runs until enough runs and time, their medians and fastest
 * runs; on the GPU, a rest after each row.  Both sides are timed by the
 * same duo_timer calls on the default stream (CUDA events on the GPU, a
 * monotonic clock on the CPU).
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "bench.h"

/* On the GPU, each measured row is followed by a rest as long as its
 * timed runs, at most GPU_REST_MAX_S.  A few seconds of back-to-back
 * large products hold an H100 at its power cap (700 W, "SW power cap"
 * in nvidia-smi) with the SM clock down to 1.4 GHz, and the lowered
 * clock carried into the rows after them: f64 1023^3 NN took 70 us on
 * its own and 91 us right after the 8192^3 rows (cuBLAS: 65 and 76
 * us).  With the rest, every row starts from the same idle GPU; the
 * large rows themselves still run at whatever clock their load holds. */
#define GPU_REST_MAX_S 1.0

static int compare_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double time_once(bench *b, bench_op op, void *ctx)
{
    double ms = 0.0;
    DUO_CHECK(duo_timer_start(b->timer, NULL));
    op(ctx);
    DUO_CHECK(duo_timer_stop(b->timer, NULL));
    DUO_CHECK(duo_timer_elapsed_ms(b->timer, &ms));
    return ms;
}

static void store_times(double *ms, size_t reps, double *median_ms,
                        double *min_ms)
{
    *median_ms = median(ms, reps); /* sorts */
    *min_ms = ms[0];
}

void bench_settle(double seconds)
{
    if (seconds <= 0)
        return;
    struct timespec t;
    t.tv_sec = (time_t)seconds;
    t.tv_nsec = (long)((seconds - (double)t.tv_sec) * 1e9);
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
}

void bench_measure(bench *b, bench_op duo, bench_op ys, void *ctx, row *r)
{
    double duo_ms[MAX_REPS], ys_ms[MAX_REPS];
    double duo_total = 0.0, ys_total = 0.0;
    size_t reps = 0;

    duo(ctx);
    if (ys != NULL)
        ys(ctx);
    DUO_CHECK(duo_synchronize());
    while (reps < b->max_reps) {
        if (reps % 2 == 0 || ys == NULL) {
            duo_ms[reps] = time_once(b, duo, ctx);
            if (ys != NULL)
                ys_ms[reps] = time_once(b, ys, ctx);
        } else {
            ys_ms[reps] = time_once(b, ys, ctx);
            duo_ms[reps] = time_once(b, duo, ctx);
        }
        duo_total += duo_ms[reps];
        if (ys != NULL)
            ys_total += ys_ms[reps];
        ++reps;
        if (reps >= b->min_reps &&
            (duo_total >= b->budget_ms || ys_total >= b->budget_ms))
            break;
    }
    store_times(duo_ms, reps, &r->duo_ms, &r->duo_min_ms);
    r->duo_reps = reps;
    if (ys != NULL) {
        store_times(ys_ms, reps, &r->ys_ms, &r->ys_min_ms);
        r->ys_reps = reps;
    }
    if (b->gpu)
        bench_settle(fmin((duo_total + ys_total) * 1e-3, GPU_REST_MAX_S));
}

/* One side: a warm-up run, then timed runs until min_reps and the time
 * budget, or max_reps. */
static void measure_side(bench *b, bench_op op, void *ctx, double *median_ms,
                         double *min_ms, size_t *reps_out)
{
    double ms[MAX_REPS], total = 0.0;
    size_t reps = 0;
    op(ctx);
    DUO_CHECK(duo_synchronize());
    while (reps < b->max_reps) {
        ms[reps] = time_once(b, op, ctx);
        total += ms[reps++];
        if (reps >= b->min_reps && total >= b->budget_ms)
            break;
    }
    store_times(ms, reps, median_ms, min_ms);
    *reps_out = reps;
}

/* Waiting for the yardstick's threads to stop first: alternating would
 * time duo while those threads spin on the cores duo's threads need. */
void bench_measure_blocked(bench *b, bench_op duo, bench_op ys, void *ctx,
                           row *r)
{
    bench_settle(b->ys.settle_seconds);
    measure_side(b, duo, ctx, &r->duo_ms, &r->duo_min_ms, &r->duo_reps);
    if (ys != NULL)
        measure_side(b, ys, ctx, &r->ys_ms, &r->ys_min_ms, &r->ys_reps);
}
