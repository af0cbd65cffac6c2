/*
 * stream.cu (CUDA) - a duo_stream is a CUDA stream plus the device
 * scratch its reductions use, so reductions queued on different streams
 * never share partials, and the memory its scans keep (scan.cu).
 * Streams are created blocking, so they order themselves with the
 * default stream on which duo_reduce and duo_gemm run.  While a graph is
 * captured, the captured stream's work goes to the capture stream of
 * graph.cu instead.
 */
#include <stdlib.h>

#include "cuda_check.h"

struct duo_stream_opaque {
    cudaStream_t stream;
    void *reduce_scratch;
    duo_cuda_scan_keep scan_keep; /* the scan's published sums (scan.cu) */
    duo_cuda_recent recent; /* launches since its last wait (launch.cu) */
};

cudaStream_t duo_cuda_stream(duo_stream stream)
{
    if (duo_capture_active() && stream == duo_capture_stream())
        return duo_cuda_capture_stream();
    return stream == NULL ? (cudaStream_t)0 : stream->stream;
}

static duo_cuda_scan_keep default_scan_keep; /* the default stream's */

duo_cuda_scan_keep *duo_cuda_stream_scan_keep(duo_stream stream)
{
    return stream == NULL ? &default_scan_keep : &stream->scan_keep;
}

duo_cuda_recent *duo_cuda_stream_recent(duo_stream stream)
{
    return &stream->recent;
}

void *duo_cuda_reduce_scratch(duo_stream stream)
{
    if (duo_capture_active()) /* src/ let only the captured stream in */
        return duo_cuda_capture_scratch();
    return stream == NULL ? duo_cuda_default_reduce_scratch()
                          : stream->reduce_scratch;
}

duo_status duo_be_stream_create(duo_stream *stream)
{
    duo_stream s = (duo_stream)calloc(1, sizeof *s);
    if (s == NULL)
        return duo_fail(DUO_ERROR_OUT_OF_MEMORY, "duo_stream_create",
                        "could not allocate a stream; free some memory");
    duo_status status =
        duo_cuda_reduce_scratch_new(&s->reduce_scratch, "duo_stream_create");
    if (status != DUO_SUCCESS) {
        free(s);
        return status;
    }
    cudaError_t err = cudaStreamCreate(&s->stream);
    if (err != cudaSuccess) {
        (void)cudaFree(s->reduce_scratch); /* already failing */
        free(s);
        return duo_cuda_fail(err, __FILE__, __LINE__, "duo_stream_create",
                             "cudaStreamCreate");
    }
    duo_cuda_recent_attach(&s->recent, s);
    *stream = s;
    return DUO_SUCCESS;
}

duo_status duo_be_stream_destroy(duo_stream stream)
{
    /* The scan's memory goes back on the stream, after its work.
     * cudaStreamDestroy returns at once; the scratch may still be in use
     * by work queued on the stream, and cudaFree waits for that. */
    const duo_status kept = duo_cuda_scan_keep_free(
        &stream->scan_keep, stream->stream, "duo_stream_destroy");
    cudaError_t err = cudaStreamDestroy(stream->stream);
    cudaError_t err_free = cudaFree(stream->reduce_scratch);
    duo_cuda_recent_detach(&stream->recent);
    free(stream);
    DUO_CUDA_TRY(err, "duo_stream_destroy");
    DUO_CUDA_TRY(err_free, "duo_stream_destroy");
    return kept;
}

duo_status duo_be_stream_synchronize(duo_stream stream)
{
    DUO_CUDA_TRY(cudaStreamSynchronize(duo_cuda_stream(stream)),
                 "duo_stream_synchronize");
    duo_cuda_waited(stream);
    return duo_cuda_offsets_checked("duo_stream_synchronize");
}
