/*
 * error.h - how library code records a failure (the bottom layer: see
 * backend.h; error.c calls no other part of duo).
 */
#ifndef DUO_ERROR_H
#define DUO_ERROR_H

#include <duo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Record a failure for duo_last_error() and return `status`.  `where` is
 * the API function or kernel; the message says what went wrong and what
 * to do. */
duo_status duo_fail_at(duo_status status, const char *file, int line,
                       const char *where, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
#define duo_fail(status, where, ...) \
    duo_fail_at(status, __FILE__, __LINE__, where, __VA_ARGS__)

/* The file (its name, no folders) and line of the API call in progress
 * in this thread, as duo/call_site.h noted them; NULL when the call came
 * through a pointer, from duo itself, or there is none. */
const char *duo_call_site(int *line);

/* Forget the last error: after a failure that was handled (the GPU probe
 * of a CUDA build that then runs on the host path). */
void duo_error_clear(void);

/* The last error, kept across a failure that duo handles itself in the
 * middle of the program's work (pinned memory refused, so pageable
 * memory serves), so that it does not replace or erase an error the
 * program has yet to read. */
enum { DUO_ERROR_TEXT_MAX = 1024 };
typedef struct duo_error_saved {
    char text[DUO_ERROR_TEXT_MAX];
} duo_error_saved;
void duo_error_save(duo_error_saved *saved);
void duo_error_restore(const duo_error_saved *saved);

/* A watch over every failure duo_fail_at records: a graph capture starts
 * one when it opens and fails if any call inside it failed, even one
 * whose status the body ignored.  stop returns the first failure since
 * start (DUO_SUCCESS if none) and ends the watch. */
void duo_error_watch_start(void);
duo_status duo_error_watch_stop(void);

#ifdef __cplusplus
}
#endif

#endif /* DUO_ERROR_H */
