/*
 * dispatch/graph.c (CUDA build) - graph capture and replay: the GPU's or the
 * host's, as duo_init chose (dispatch.h).
 */
#include "dispatch.h"

DUO_BE_FN(int, capture_queues_work, (void), ())
DUO_BE_FN(duo_status, graph_begin, (duo_stream stream), (stream))
DUO_BE_FN(duo_status, graph_end, (duo_stream stream, int keep, void **graph),
          (stream, keep, graph))
DUO_BE_FN(duo_status, graph_launch, (void *graph, duo_stream stream),
          (graph, stream))
DUO_BE_FN(duo_status, graph_destroy, (void *graph), (graph))
