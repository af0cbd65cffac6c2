/*
 * launch.c (CPU) - the check after a kernel launch.  A CPU kernel is a
 * function call that has already returned, so there is nothing to check.
 */
#include "backend.h"

duo_status duo_be_launch_check(const char *kernel, duo_stream stream,
                               const char *file, int line)
{
    (void)kernel;
    (void)stream;
    (void)file;
    (void)line;
    return DUO_SUCCESS;
}
