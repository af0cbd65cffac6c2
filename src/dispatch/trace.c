/*
 * dispatch/trace.c (CUDA build) - device activity tracing: the GPU's or the
 * host's, as duo_init chose (dispatch.h).
 */
#include "dispatch.h"

DUO_BE_FN(int, trace_start, (void), ())
DUO_BE_VOID(trace_stop, (void), ())
DUO_BE_VOID(trace_push, (uint64_t call), (call))
DUO_BE_VOID(trace_pop, (void), ())
DUO_BE_FN(duo_status, trace_drain, (duo_trace_sink sink, unsigned long *lost),
          (sink, lost))
