/*
 * early_launch_old.c - kernels compiled for an older GPU target than
 * compute capability 9.0 (tests/CMakeLists.txt builds this file for
 * compute_80 PTX only, which the driver compiles on a newer GPU): they
 * have no wait for the kernel before them, so launches must not ask for
 * early launch for them.  Used by test_early_launch.c.
 */
#include <duo.h>

#include "early_launch_old.h"

DUO_KERNEL(old_fill, size_t n, double base, double *out)
{
    DUO_FOR(i, n)
        out[i] = base + (double)i;
}

DUO_KERNEL(old_scale, size_t n, const double *in, double *out)
{
    DUO_FOR(i, n)
        out[i] = 3.0 * in[i];
}

duo_status old_target_fill(size_t n, double base, double *out,
                           duo_stream stream)
{
    return DUO_LAUNCH_ON(stream, old_fill, n, n, base, out);
}

duo_status old_target_scale(size_t n, const double *in, double *out,
                            duo_stream stream)
{
    return DUO_LAUNCH_ON(stream, old_scale, n, n, in, out);
}
