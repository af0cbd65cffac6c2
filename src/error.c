/*
 * error.c - status names, the per-thread last-error message, and the
 * failure watch that graph captures use.  The bottom layer (backend.h):
 * it calls no other part of duo.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

static _Thread_local char last_error[DUO_ERROR_TEXT_MAX];
/* The caller's line of the API call in progress (duo/call_site.h). */
static _Thread_local const char *site_file;
static _Thread_local int site_line;
/* duo is called from one host thread at a time, and a capture is open
 * in one of them: plain statics. */
static int watching;
static duo_status first_watched;

const char *duo_status_string(duo_status status)
{
    switch (status) {
    case DUO_SUCCESS: return "success";
    case DUO_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case DUO_ERROR_OUT_OF_MEMORY: return "out of memory";
    case DUO_ERROR_NO_DEVICE: return "no usable GPU";
    case DUO_ERROR_NOT_INITIALIZED: return "not initialized";
    case DUO_ERROR_LAUNCH: return "kernel launch failed";
    case DUO_ERROR_BACKEND: return "backend failure";
    case DUO_ERROR_NOT_CAPTURABLE: return "not capturable";
    }
    return "unknown status";
}

const char *duo_last_error(void) { return last_error; }

void duo_error_clear(void) { last_error[0] = '\0'; }

void duo_error_save(duo_error_saved *saved)
{
    memcpy(saved->text, last_error, sizeof last_error);
}

void duo_error_restore(const duo_error_saved *saved)
{
    memcpy(last_error, saved->text, sizeof last_error);
}

void duo_error_watch_start(void)
{
    watching = 1;
    first_watched = DUO_SUCCESS;
}

duo_status duo_error_watch_stop(void)
{
    watching = 0;
    return first_watched;
}

void duo_call_site_begin_(const char *file, int line)
{
    site_file = file;
    site_line = line;
}

duo_status duo_call_site_done_(duo_status status)
{
    site_file = NULL;
    return status;
}

/* A file's name, not the build machine's path to it. */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

const char *duo_call_site(int *line)
{
    if (site_file == NULL)
        return NULL;
    *line = site_line;
    return base_name(site_file);
}

duo_status duo_fail_at(duo_status status, const char *file, int line,
                       const char *where, const char *fmt, ...)
{
    int used = 0;
    if (site_file != NULL)
        used = snprintf(last_error, sizeof last_error, "%s:%d: ",
                        base_name(site_file), site_line);
    if (used >= 0 && (size_t)used < sizeof last_error)
        used += snprintf(last_error + used, sizeof last_error - (size_t)used,
                         "%s: %s (%s:%d): ", where, duo_status_string(status),
                         base_name(file), line);
    if (watching && first_watched == DUO_SUCCESS)
        first_watched = status;
    if (used < 0 || (size_t)used >= sizeof last_error)
        return status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error + used, sizeof last_error - (size_t)used, fmt, ap);
    va_end(ap);
    return status;
}

DUO_NORETURN void duo_check_failed(duo_status status, const char *call,
                                   const char *file, int line)
{
    fprintf(stderr, "%s:%d: %s failed: %s\n  %s\n", file, line, call,
            duo_status_string(status), duo_last_error());
    exit(1);
}
