/*
 * capture.c - the state of a graph capture, and the refusals it implies.
 *
 * A capture is open while duo_graph_capture runs its body.  Then every
 * public call that would wait for the device, hand a value to the host
 * or use another stream is refused (duo_capture_refuse,
 * duo_capture_check_stream) before any backend sees it, so the CPU and
 * CUDA builds refuse the same calls with the same status.  The first
 * failure of any duo call inside the body (error.c's failure watch) fails
 * the whole capture, even if the body ignored it.
 *
 * duo is called from one host thread at a time (README), so one capture
 * at a time is kept in plain statics.
 */
#include "capture.h"

static struct {
    int open;
    int skips_work;
    duo_stream stream;
} capture;
static int replaying; /* a CPU replay is calling a body */

int duo_capture_active(void) { return capture.open; }
duo_stream duo_capture_stream(void) { return capture.stream; }
int duo_graph_replaying(void) { return replaying; }
int duo_capture_skips_work(void) { return capture.open && capture.skips_work; }

void duo_capture_open(duo_stream stream, int skips_work)
{
    capture.open = 1;
    capture.skips_work = skips_work;
    capture.stream = stream;
    duo_error_watch_start();
}

duo_status duo_capture_close(void)
{
    capture.open = 0;
    return duo_error_watch_stop();
}

void duo_replay_mark(int on) { replaying = on; }

duo_status duo_capture_refuse(const char *where)
{
    if (!capture.open)
        return DUO_SUCCESS;
    return duo_fail(DUO_ERROR_NOT_CAPTURABLE, where,
                    "called inside duo_graph_capture: a graph can hold only "
                    "work queued on the captured stream (launches, "
                    "duo_memcpy_async, duo_reduce_async, duo_dot_async); "
                    "call %s before or after the capture", where);
}

duo_status duo_capture_check_stream(const char *where, duo_stream stream)
{
    if (!capture.open || stream == capture.stream)
        return DUO_SUCCESS;
    return duo_fail(DUO_ERROR_NOT_CAPTURABLE, where,
                    "work queued on stream %p inside a capture of stream %p; "
                    "a graph holds the work of the captured stream only",
                    (void *)stream, (void *)capture.stream);
}
