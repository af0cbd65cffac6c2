/*
 * graph.cu (CUDA) - duo graphs are CUDA graphs captured from a private
 * non-blocking stream: the default stream cannot be captured, and a
 * blocking user stream would tie the capture to it.  Each graph owns the
 * scratch its reductions use, so a replay never shares partials with
 * reductions on any stream (replays of one graph are ordered by CUDA).
 */
#include <stdlib.h>

#include "cuda_check.h"

typedef struct cuda_graph {
    cudaGraphExec_t exec;
    void *reduce_scratch;
} cuda_graph;

static cudaStream_t capture_stream; /* created on the first capture */
static void *capture_scratch;       /* the open capture's scratch */

cudaStream_t duo_cuda_capture_stream(void) { return capture_stream; }
void *duo_cuda_capture_scratch(void) { return capture_scratch; }

int duo_be_capture_queues_work(void) { return 1; }

duo_status duo_be_graph_begin(duo_stream stream)
{
    (void)stream;
    const char *where = "duo_graph_capture";
    if (capture_stream == NULL)
        DUO_CUDA_TRY(cudaStreamCreateWithFlags(&capture_stream,
                                               cudaStreamNonBlocking),
                     where);
    duo_status status = duo_cuda_reduce_scratch_new(&capture_scratch, where);
    if (status != DUO_SUCCESS)
        return status;
    cudaError_t err = cudaStreamBeginCapture(capture_stream,
                                             cudaStreamCaptureModeThreadLocal);
    if (err != cudaSuccess) {
        (void)cudaFree(capture_scratch); /* already failing */
        capture_scratch = NULL;
        return duo_cuda_fail(err, __FILE__, __LINE__, where,
                             "cudaStreamBeginCapture");
    }
    return DUO_SUCCESS;
}

duo_status duo_be_graph_end(duo_stream stream, int keep, void **graph)
{
    (void)stream;
    const char *where = "duo_graph_capture";
    void *scratch = capture_scratch;
    capture_scratch = NULL;
    cudaGraph_t captured = NULL;
    cudaError_t err = cudaStreamEndCapture(capture_stream, &captured);
    cuda_graph *g = NULL;
    if (err == cudaSuccess && keep) {
        g = (cuda_graph *)calloc(1, sizeof *g);
        if (g == NULL) {
            (void)cudaGraphDestroy(captured);
            (void)cudaFree(scratch);
            return duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                            "could not allocate a graph; free some memory");
        }
        err = cudaGraphInstantiate(&g->exec, captured, 0);
    }
    if (captured != NULL) {
        cudaError_t destroyed = cudaGraphDestroy(captured);
        if (err == cudaSuccess)
            err = destroyed;
    }
    if (err != cudaSuccess || !keep) {
        if (g != NULL && g->exec != NULL)
            (void)cudaGraphExecDestroy(g->exec);
        free(g);
        cudaError_t freed = cudaFree(scratch);
        if (err == cudaSuccess)
            err = freed;
        DUO_CUDA_TRY(err, where);
        return DUO_SUCCESS; /* discarded as asked; src/ reports why */
    }
    g->reduce_scratch = scratch;
    *graph = g;
    return DUO_SUCCESS;
}

duo_status duo_be_graph_launch(void *graph, duo_stream stream)
{
    const cuda_graph *g = (const cuda_graph *)graph;
    duo_cuda_note_launch(stream, "duo_graph_launch", NULL, 0);
    DUO_CUDA_TRY(cudaGraphLaunch(g->exec, duo_cuda_stream(stream)),
                 "duo_graph_launch");
    return DUO_SUCCESS;
}

duo_status duo_be_graph_destroy(void *graph)
{
    cuda_graph *g = (cuda_graph *)graph;
    cudaError_t err = cudaGraphExecDestroy(g->exec);
    cudaError_t freed = cudaFree(g->reduce_scratch); /* waits for replays */
    free(g);
    DUO_CUDA_TRY(err, "duo_graph_destroy");
    DUO_CUDA_TRY(freed, "duo_graph_destroy");
    return DUO_SUCCESS;
}

duo_status duo_cuda_graph_release(void)
{
    cudaStream_t s = capture_stream;
    capture_stream = NULL;
    if (s != NULL)
        DUO_CUDA_TRY(cudaStreamDestroy(s), "duo_finalize");
    return DUO_SUCCESS;
}
