/*
 * init_state.h - what duo_init decided and whether it succeeded, and the
 * checks every public call makes against it (src/init_state.c; it calls
 * error.c and capture.c only).  runtime.c sets the state; every other
 * part of the library reads it here.
 */
#ifndef DUO_INIT_STATE_H
#define DUO_INIT_STATE_H

#include "capture.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 once duo_init() has succeeded (runtime.c sets it). */
int duo_is_initialized(void);
void duo_set_initialized(int on);

/* DUO_SUCCESS once duo_init() has succeeded, else records and returns
 * DUO_ERROR_NOT_INITIALIZED for `where`. */
duo_status duo_require_init(const char *where);
/* duo_require_init, and refuse (DUO_ERROR_NOT_CAPTURABLE) inside a graph
 * capture: for every call that waits for the device or returns a value to
 * the host. */
duo_status duo_require_sync_call(const char *where);

/* DUO_DEVICE, read by duo_init: unset, empty or "auto" (the GPU where
 * one is usable, else the host), "gpu" or "cpu".  Any other value fails
 * with DUO_ERROR_INVALID_ARGUMENT naming the variable. */
typedef enum duo_device_want {
    DUO_WANT_AUTO,
    DUO_WANT_GPU,
    DUO_WANT_CPU
} duo_device_want;
duo_status duo_device_wanted(duo_device_want *want);
const char *duo_device_want_name(duo_device_want want);
/* Record why duo_init took the path it took (duo_backend_reason()). */
void duo_set_backend_reason(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#ifdef __cplusplus
}
#endif

#endif /* DUO_INIT_STATE_H */
