/*
 * timer.c - duo_timer_*: argument checks shared by every backend.
 */
#include "backend.h"

static duo_status null_timer(const char *where)
{
    return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                    "timer is NULL; create one with duo_timer_create");
}

duo_status duo_timer_create(duo_timer *timer)
{
    if (timer == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_timer_create",
                        "timer is NULL; pass the address of a duo_timer");
    duo_status status = duo_require_sync_call("duo_timer_create");
    if (status != DUO_SUCCESS)
        return status;
    duo_timer t = NULL;
    status = duo_be_timer_create(&t);
    if (status == DUO_SUCCESS)
        *timer = t;
    return status;
}

duo_status duo_timer_destroy(duo_timer timer)
{
    if (timer == NULL)
        return DUO_SUCCESS;
    duo_status status = duo_require_sync_call("duo_timer_destroy");
    return status != DUO_SUCCESS ? status : duo_be_timer_destroy(timer);
}

static duo_status record(const char *where, duo_timer timer, int stop,
                         duo_stream stream)
{
    if (timer == NULL)
        return null_timer(where);
    duo_status status = duo_require_sync_call(where);
    return status != DUO_SUCCESS ? status
                                 : duo_be_timer_record(timer, stop, stream);
}

duo_status duo_timer_start(duo_timer timer, duo_stream stream)
{
    return record("duo_timer_start", timer, 0, stream);
}

duo_status duo_timer_stop(duo_timer timer, duo_stream stream)
{
    return record("duo_timer_stop", timer, 1, stream);
}

duo_status duo_timer_elapsed_ms(duo_timer timer, double *ms)
{
    if (timer == NULL)
        return null_timer("duo_timer_elapsed_ms");
    if (ms == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_timer_elapsed_ms",
                        "ms is NULL; pass the address of a double");
    duo_status status = duo_require_sync_call("duo_timer_elapsed_ms");
    double value = 0.0;
    if (status == DUO_SUCCESS)
        status = duo_be_timer_elapsed_ms(timer, &value);
    if (status == DUO_SUCCESS)
        *ms = value;
    return status;
}
