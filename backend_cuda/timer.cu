/*
 * timer.cu (CUDA) - a timer is a pair of CUDA events recorded on the
 * stream, so it measures GPU time, not the host's time to queue work;
 * profiler regions also become NVTX ranges for Nsight Systems.
 */
#include <nvtx3/nvToolsExt.h>
#include <stdlib.h>

#include "cuda_check.h"

/* NVTX calls cost a branch when no tool is attached. */
void duo_be_range_push(const char *name) { nvtxRangePushA(name); }
void duo_be_range_pop(void) { nvtxRangePop(); }

struct duo_timer_opaque {
    cudaEvent_t mark[2]; /* start, stop */
    int recorded[2];
};

duo_status duo_be_timer_create(duo_timer *timer)
{
    duo_timer t = (duo_timer)calloc(1, sizeof *t);
    if (t == NULL)
        return duo_fail(DUO_ERROR_OUT_OF_MEMORY, "duo_timer_create",
                        "could not allocate a timer; free some memory");
    cudaError_t err = cudaEventCreate(&t->mark[0]);
    if (err == cudaSuccess) {
        err = cudaEventCreate(&t->mark[1]);
        if (err != cudaSuccess)
            (void)cudaEventDestroy(t->mark[0]); /* already failing */
    }
    if (err != cudaSuccess) {
        free(t);
        return duo_cuda_fail(err, __FILE__, __LINE__, "duo_timer_create",
                             "cudaEventCreate");
    }
    *timer = t;
    return DUO_SUCCESS;
}

duo_status duo_be_timer_destroy(duo_timer timer)
{
    cudaError_t err0 = cudaEventDestroy(timer->mark[0]);
    cudaError_t err1 = cudaEventDestroy(timer->mark[1]);
    free(timer);
    DUO_CUDA_TRY(err0, "duo_timer_destroy");
    DUO_CUDA_TRY(err1, "duo_timer_destroy");
    return DUO_SUCCESS;
}

duo_status duo_be_timer_record(duo_timer timer, int stop, duo_stream stream)
{
    DUO_CUDA_TRY(cudaEventRecord(timer->mark[stop], duo_cuda_stream(stream)),
                 stop ? "duo_timer_stop" : "duo_timer_start");
    timer->recorded[stop] = 1;
    return DUO_SUCCESS;
}

duo_status duo_be_timer_elapsed_ms(duo_timer timer, double *ms)
{
    if (!timer->recorded[0] || !timer->recorded[1])
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_timer_elapsed_ms",
                        "the timer was not both started and stopped; call "
                        "duo_timer_start and duo_timer_stop first");
    float elapsed = 0.0f;
    DUO_CUDA_TRY(cudaEventSynchronize(timer->mark[1]),
                 "duo_timer_elapsed_ms");
    DUO_CUDA_TRY(cudaEventElapsedTime(&elapsed, timer->mark[0],
                                      timer->mark[1]),
                 "duo_timer_elapsed_ms");
    *ms = elapsed;
    return DUO_SUCCESS;
}
