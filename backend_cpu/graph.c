/*
 * graph.c (CPU) - graphs without a driver to record them: work runs when
 * it is queued, so a capture must run nothing (src/graph.c skips the
 * body's work while it is open) and a replay calls the body again, which
 * queues the same work, and so runs it.
 */
#include "backend.h"

int duo_be_capture_queues_work(void) { return 0; }

duo_status duo_be_graph_begin(duo_stream stream)
{
    (void)stream;
    return DUO_SUCCESS;
}

duo_status duo_be_graph_end(duo_stream stream, int keep, void **graph)
{
    (void)stream;
    (void)keep;
    *graph = NULL; /* replays call the body */
    return DUO_SUCCESS;
}

duo_status duo_be_graph_launch(void *graph, duo_stream stream)
{
    (void)graph;
    (void)stream;
    return duo_fail(DUO_ERROR_BACKEND, "duo_graph_launch",
                    "the CPU backend has no recorded graphs to launch");
}

duo_status duo_be_graph_destroy(void *graph)
{
    (void)graph;
    return DUO_SUCCESS;
}
