/*
 * launch.c (CPU) - the end of a kernel launch.  A CPU kernel is a function
 * call that has already returned, so there is nothing left to check.
 */
#include "backend.h"

duo_status duo_launch_end(const char *kernel, duo_stream stream,
                          const char *file, int line)
{
    (void)kernel;
    (void)stream;
    (void)file;
    (void)line;
    return DUO_SUCCESS;
}
