/*
 * dispatch/launch.c (CUDA build) - the check after a kernel launch: the
 * GPU's or the host's, as duo_init chose (dispatch.h).
 */
#include "dispatch.h"

DUO_BE_FN(duo_status, launch_check,
          (const char *kernel, duo_stream stream, const char *file,
           int line),
          (kernel, stream, file, line))
