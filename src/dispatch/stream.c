/*
 * dispatch/stream.c (CUDA build) - streams: the GPU's or the host's, as
 * duo_init chose (dispatch.h).
 */
#include "dispatch.h"

DUO_BE_FN(duo_status, stream_create, (duo_stream *stream), (stream))
DUO_BE_FN(duo_status, stream_destroy, (duo_stream stream), (stream))
DUO_BE_FN(duo_status, stream_synchronize, (duo_stream stream), (stream))
