/*
 * capture.h - the graph capture state every backend shares, and the rules
 * for what a capture may hold (src/capture.c; it calls error.c only).
 * graph.c opens and closes captures and marks CPU replays; the public
 * functions and the backends ask here what the current call may do.
 */
#ifndef DUO_CAPTURE_H
#define DUO_CAPTURE_H

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 while duo_graph_capture runs its body. */
int duo_capture_active(void);
/* The stream being captured (valid while a capture is open). */
duo_stream duo_capture_stream(void);
/* 1 while a CPU graph replay runs a body. */
int duo_graph_replaying(void);
/* DUO_SUCCESS when no capture is open; else DUO_ERROR_NOT_CAPTURABLE for
 * a call that cannot be recorded (a host wait, a host result). */
duo_status duo_capture_refuse(const char *where);
/* DUO_SUCCESS unless a capture is open on another stream. */
duo_status duo_capture_check_stream(const char *where, duo_stream stream);
/* 1 when queued work must be skipped: a capture on a backend that records
 * by replaying the body (the CPU), so nothing may run at capture time. */
int duo_capture_skips_work(void);

/* graph.c: open a capture of `stream` (skips_work: the backend records by
 * replaying the body, duo_be_capture_queues_work() == 0), and close it,
 * returning the first failure of any duo call made while it was open. */
void duo_capture_open(duo_stream stream, int skips_work);
duo_status duo_capture_close(void);
/* graph.c: around a CPU replay's call of the body. */
void duo_replay_mark(int on);

#ifdef __cplusplus
}
#endif

#endif /* DUO_CAPTURE_H */
