/*
 * trace.c (CPU) - there is no device to trace: CPU work is done when its
 * call returns, so the profiler times it with the host clock (timer.c).
 */
#include "backend.h"

int duo_be_trace_start(void) { return 0; }
void duo_be_trace_stop(void) {}
void duo_be_trace_push(uint64_t call) { (void)call; }
void duo_be_trace_pop(void) {}

duo_status duo_be_trace_drain(duo_trace_sink sink, unsigned long *lost)
{
    (void)sink;
    *lost = 0;
    return DUO_SUCCESS;
}
