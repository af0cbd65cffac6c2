/*
 * dispatch/timer.c (CUDA build) - timers and named ranges: the GPU's or the
 * host's, as duo_init chose (dispatch.h).
 */
#include "dispatch.h"

DUO_BE_VOID(range_push, (const char *name), (name))
DUO_BE_VOID(range_pop, (void), ())
DUO_BE_FN(duo_status, timer_create, (duo_timer *timer), (timer))
DUO_BE_FN(duo_status, timer_destroy, (duo_timer timer), (timer))
DUO_BE_FN(duo_status, timer_record,
          (duo_timer timer, int stop, duo_stream stream),
          (timer, stop, stream))
DUO_BE_FN(duo_status, timer_elapsed_ms, (duo_timer timer, double *ms),
          (timer, ms))
