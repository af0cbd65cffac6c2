/*
 * graph.c - duo_graph_*: capture a body's work and replay it.  What a
 * capture may hold, and the state behind it, is capture.c's.
 *
 * Under DUO_VALIDATE a GPU build replays by calling the body again, as
 * the CPU builds always do, instead of launching its CUDA graph: the
 * graph's kernels would run past the checks, while each operation the
 * body queues is checked against the host path like any other.
 */
#include <stdlib.h>

#include "profile.h"
#include "validate.h"

struct duo_graph_opaque {
    duo_graph_body body; /* CPU replays call it again */
    void *ctx;
    duo_stream stream;   /* the stream it was captured on */
    void *be;            /* the backend's graph (CUDA: a cudaGraphExec_t) */
};

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
    if (duo_capture_active())
        return duo_fail(DUO_ERROR_NOT_CAPTURABLE, where,
                        "a capture is already open; captures do not nest");
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
    duo_capture_open(stream, !duo_be_capture_queues_work());
    const duo_status body_status = body(ctx);
    const duo_status failure = duo_capture_close();
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

/* A replay that calls the body again, marked so that the profiler
 * counts its work as the replay's. */
static duo_status replay_by_body(duo_graph graph)
{
    duo_replay_mark(1);
    const duo_status status = graph->body(graph->ctx);
    duo_replay_mark(0);
    return status;
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
    if (graph->be != NULL && !duo_validating()) {
        status = duo_be_graph_launch(graph->be, stream);
    } else if (graph->be != NULL) {
        /* A validated GPU replay: the body queues its work on the
         * captured stream, so waits for the whole device before and
         * after keep it in order with the work on `stream`, as a replay
         * queued there would be. */
        status = duo_be_synchronize();
        if (status == DUO_SUCCESS)
            status = replay_by_body(graph);
        const duo_status waited = duo_be_synchronize();
        if (status == DUO_SUCCESS)
            status = waited;
    } else {
        /* The CPU replays by running the body again.  Its work runs at
         * once on every stream, so the stream a replay is queued on needs
         * no mapping. */
        status = replay_by_body(graph);
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
