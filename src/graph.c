/*
 * graph.c - duo_graph_*: the capture state every backend shares, and the
 * rules for what a capture may hold.
 *
 * A capture is open while duo_graph_capture runs its body.  Then every
 * public call that would wait for the device, hand a value to the host
 * or use another stream is refused here, before any backend sees it, so
 * the CPU and CUDA builds refuse the same calls with the same status.
 * The first failure of any duo call inside the body (duo_fail_at reports
 * it through duo_capture_note_failure) fails the whole capture, even if
 * the body ignored it.
 *
 * duo is single-host-thread (docs/api.md), so one capture at a time is
 * kept in plain statics.
 */
#include <stdlib.h>

#include "profile.h"

struct duo_graph_opaque {
    duo_graph_body body; /* CPU replays call it again */
    void *ctx;
    duo_stream stream;   /* the stream it was captured on */
    void *be;            /* the backend's graph (CUDA: a cudaGraphExec_t) */
};

static struct {
    int open;
    duo_stream stream;
    duo_status first_failure;
} capture;
static int replaying; /* a CPU replay is calling a body */

int duo_capture_active(void) { return capture.open; }
duo_stream duo_capture_stream(void) { return capture.stream; }
int duo_graph_replaying(void) { return replaying; }

void duo_capture_note_failure(duo_status status)
{
    if (capture.open && capture.first_failure == DUO_SUCCESS)
        capture.first_failure = status;
}

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

int duo_capture_skips_work(void)
{
    return capture.open && !duo_be_capture_queues_work();
}

duo_status duo_graph_capture(duo_stream stream, duo_graph_body body,
                             void *ctx, duo_graph *graph)
{
    const char *where = "duo_graph_capture";
    if (body == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "body is NULL; pass the function that queues the "
                        "work to record");
    if (graph == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "graph is NULL; pass the address of a duo_graph");
    duo_status status = duo_require_init(where);
    if (status != DUO_SUCCESS)
        return status;
    if (capture.open) {
        status = duo_fail(DUO_ERROR_NOT_CAPTURABLE, where,
                          "a capture is already open; captures do not nest");
        duo_capture_note_failure(status);
        return status;
    }
    duo_graph g = (duo_graph)calloc(1, sizeof *g);
    if (g == NULL)
        return duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                        "could not allocate a graph; free some memory");
    g->body = body;
    g->ctx = ctx;
    g->stream = stream;
    status = duo_be_graph_begin(stream);
    if (status != DUO_SUCCESS) {
        free(g);
        return status;
    }
    capture.open = 1;
    capture.stream = stream;
    capture.first_failure = DUO_SUCCESS;
    const duo_status body_status = body(ctx);
    const duo_status failure = capture.first_failure;
    capture.open = 0;
    /* The first refused or failed call is the one to report; its message
     * is duo_last_error() unless the backend's end adds a later one. */
    int keep = failure == DUO_SUCCESS && body_status == DUO_SUCCESS;
    status = duo_be_graph_end(stream, keep, &g->be);
    if (!keep) {
        if (failure != DUO_SUCCESS)
            status = failure;
        else {
            status = body_status;
            duo_fail(body_status, where,
                     "the body returned %s: nothing was captured",
                     duo_status_string(body_status));
        }
    }
    if (status != DUO_SUCCESS) {
        free(g);
        return status;
    }
    *graph = g;
    return DUO_SUCCESS;
}

duo_status duo_graph_launch(duo_graph graph, duo_stream stream)
{
    const char *where = "duo_graph_launch";
    if (graph == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "graph is NULL; capture one with duo_graph_capture");
    duo_status status = duo_require_init(where);
    if (status == DUO_SUCCESS)
        status = duo_capture_refuse(where);
    if (status != DUO_SUCCESS)
        return status;
    int region = duo_profile_open("duo_graph_launch", DUO_REGION_GRAPH,
                                  stream);
    if (graph->be != NULL) {
        status = duo_be_graph_launch(graph->be, stream);
    } else {
        /* The CPU replays by running the body again.  Its work runs at
         * once on every stream, so the stream a replay is queued on needs
         * no mapping. */
        replaying = 1;
        status = graph->body(graph->ctx);
        replaying = 0;
    }
    duo_profile_close(region, stream, 0.0, 0.0);
    return status;
}

duo_status duo_graph_destroy(duo_graph graph)
{
    if (graph == NULL)
        return DUO_SUCCESS;
    duo_status status = duo_require_init("duo_graph_destroy");
    if (status == DUO_SUCCESS)
        status = duo_capture_refuse("duo_graph_destroy");
    if (status != DUO_SUCCESS)
        return status;
    if (graph->be != NULL)
        status = duo_be_graph_destroy(graph->be);
    free(graph);
    return status;
}
