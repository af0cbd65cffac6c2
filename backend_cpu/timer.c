/*
 * timer.c (CPU) - CPU work has finished when its call returns, so a
 * monotonic clock read at start and stop measures it.  There is no
 * external range API to feed.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <stdlib.h>
#include <time.h>

#include "backend.h"

void duo_be_range_push(const char *name) { (void)name; }
void duo_be_range_pop(void) {}

struct duo_timer_opaque {
    struct timespec mark[2]; /* start, stop */
    int recorded[2];
};

duo_status duo_be_timer_create(duo_timer *timer)
{
    duo_timer t = (duo_timer)calloc(1, sizeof *t);
    if (t == NULL)
        return duo_fail(DUO_ERROR_OUT_OF_MEMORY, "duo_timer_create",
                        "could not allocate a timer; free some memory");
    *timer = t;
    return DUO_SUCCESS;
}

duo_status duo_be_timer_destroy(duo_timer timer)
{
    free(timer);
    return DUO_SUCCESS;
}

duo_status duo_be_timer_record(duo_timer timer, int stop, duo_stream stream)
{
    (void)stream;
    clock_gettime(CLOCK_MONOTONIC, &timer->mark[stop]);
    timer->recorded[stop] = 1;
    return DUO_SUCCESS;
}

duo_status duo_be_timer_elapsed_ms(duo_timer timer, double *ms)
{
    if (!timer->recorded[0] || !timer->recorded[1])
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_timer_elapsed_ms",
                        "the timer was not both started and stopped; call "
                        "duo_timer_start and duo_timer_stop first");
    *ms = (double)(timer->mark[1].tv_sec - timer->mark[0].tv_sec) * 1e3 +
          (double)(timer->mark[1].tv_nsec - timer->mark[0].tv_nsec) * 1e-6;
    return DUO_SUCCESS;
}
