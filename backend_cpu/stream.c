/*
 * stream.c (CPU) - streams exist so that code written for the GPU runs
 * unchanged; work on them runs at once, in order, so there is nothing to
 * wait for.  Each stream is a small allocation so handles are distinct.
 */
#include <stdlib.h>

#include "backend.h"

struct duo_stream_opaque {
    int unused;
};

duo_status duo_be_stream_create(duo_stream *stream)
{
    duo_stream s = (duo_stream)calloc(1, sizeof *s);
    if (s == NULL)
        return duo_fail(DUO_ERROR_OUT_OF_MEMORY, "duo_stream_create",
                        "could not allocate a stream; free some memory");
    *stream = s;
    return DUO_SUCCESS;
}

duo_status duo_be_stream_destroy(duo_stream stream)
{
    free(stream);
    return DUO_SUCCESS;
}

duo_status duo_be_stream_synchronize(duo_stream stream)
{
    (void)stream;
    return DUO_SUCCESS;
}
