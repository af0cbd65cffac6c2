/*
 * init_state.c - whether duo_init has succeeded, the path it chose and
 * why (DUO_DEVICE, duo_backend_reason), and the checks every public call
 * makes before it runs.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "init_state.h"

static int initialized;
static char backend_reason[512] = "duo_init() has not run";

int duo_is_initialized(void) { return initialized; }

void duo_set_initialized(int on) { initialized = on; }

duo_status duo_require_init(const char *where)
{
    if (initialized)
        return DUO_SUCCESS;
    return duo_fail(DUO_ERROR_NOT_INITIALIZED, where,
                    "call duo_init() first (and check that it succeeded)");
}

duo_status duo_require_sync_call(const char *where)
{
    duo_status status = duo_require_init(where);
    return status != DUO_SUCCESS ? status : duo_capture_refuse(where);
}

const char *duo_backend_reason(void) { return backend_reason; }

void duo_set_backend_reason(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(backend_reason, sizeof backend_reason, fmt, ap);
    va_end(ap);
}

const char *duo_device_want_name(duo_device_want want)
{
    return want == DUO_WANT_GPU ? "gpu" : want == DUO_WANT_CPU ? "cpu"
                                                               : "auto";
}

duo_status duo_device_wanted(duo_device_want *want)
{
    const char *v = getenv("DUO_DEVICE");
    *want = DUO_WANT_AUTO;
    if (v == NULL || v[0] == '\0' || strcmp(v, "auto") == 0)
        return DUO_SUCCESS;
    if (strcmp(v, "gpu") == 0)
        *want = DUO_WANT_GPU;
    else if (strcmp(v, "cpu") == 0)
        *want = DUO_WANT_CPU;
    else
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_init",
                        "DUO_DEVICE=%s: expected auto (the default: the GPU "
                        "where one is usable, else the host), gpu or cpu",
                        v);
    return DUO_SUCCESS;
}
