/*
 * stream.cu (CUDA) - a duo_stream is a cudaStream_t.  Streams are
 * created blocking, so they order themselves with the default stream on
 * which duo_reduce and duo_gemm run.
 */
#include "cuda_check.h"

cudaStream_t duo_cuda_stream(duo_stream stream)
{
    return (cudaStream_t)stream;
}

duo_status duo_be_stream_create(duo_stream *stream)
{
    cudaStream_t s;
    DUO_CUDA_TRY(cudaStreamCreate(&s), "duo_stream_create");
    *stream = (duo_stream)s;
    return DUO_SUCCESS;
}

duo_status duo_be_stream_destroy(duo_stream stream)
{
    DUO_CUDA_TRY(cudaStreamDestroy(duo_cuda_stream(stream)),
                 "duo_stream_destroy");
    return DUO_SUCCESS;
}

duo_status duo_be_stream_synchronize(duo_stream stream)
{
    DUO_CUDA_TRY(cudaStreamSynchronize(duo_cuda_stream(stream)),
                 "duo_stream_synchronize");
    return DUO_SUCCESS;
}
