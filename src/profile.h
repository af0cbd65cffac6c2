/*
 * profile.h - how library code marks an operation as a profiled region.
 *
 *   int r = duo_profile_open("duo_memset", DUO_REGION_MEMSET, NULL);
 *   ... the operation ...
 *   duo_profile_close(r, NULL, bytes, flops);
 *
 * With the profiler off, open is one predictable branch and returns -1,
 * and close with -1 does nothing.
 */
#ifndef DUO_PROFILE_H
#define DUO_PROFILE_H

#include "backend.h"

typedef enum duo_region_kind {
    DUO_REGION_KERNEL,
    DUO_REGION_REDUCE,
    DUO_REGION_GEMM,
    DUO_REGION_MEMCPY,
    DUO_REGION_MEMSET,
    DUO_REGION_SYNC,   /* a host wait: timed with the host clock */
    DUO_REGION_USER,
    DUO_REGION_GRAPH   /* one replay of a captured graph */
} duo_region_kind;

extern duo_profile_mode duo_profile_mode_now;

int duo_profile_open_slow(const char *name, duo_region_kind kind,
                          duo_stream stream);
void duo_profile_close_slow(int record, duo_stream stream, double bytes,
                            double flops);

/* -DDUO_PROFILER=OFF (DUO_NO_PROFILER) compiles the hooks out, to
 * measure what they cost when the profiler is off. */
static inline int duo_profile_open(const char *name, duo_region_kind kind,
                                   duo_stream stream)
{
#ifdef DUO_NO_PROFILER
    (void)name;
    (void)kind;
    (void)stream;
    return -1;
#else
    if (duo_profile_mode_now == DUO_PROFILE_OFF)
        return -1;
    return duo_profile_open_slow(name, kind, stream);
#endif
}

static inline void duo_profile_close(int record, duo_stream stream,
                                     double bytes, double flops)
{
    if (record >= 0)
        duo_profile_close_slow(record, stream, bytes, flops);
}

/* duo_init: read DUO_PROFILE / DUO_PROFILE_FILE.  duo_finalize: resolve
 * timings, write the report if one is due, release timers. */
duo_status duo_profile_init_from_env(void);
duo_status duo_profile_finish(void);

#endif /* DUO_PROFILE_H */
