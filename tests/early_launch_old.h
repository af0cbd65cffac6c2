/*
 * early_launch_old.h - launches of kernels built for an older GPU target
 * (early_launch_old.c), for test_early_launch.c.
 */
#ifndef DUO_TEST_EARLY_LAUNCH_OLD_H
#define DUO_TEST_EARLY_LAUNCH_OLD_H

#include <duo.h>

/* out[i] = base + i */
duo_status old_target_fill(size_t n, double base, double *out,
                           duo_stream stream);
/* out[i] = 3 in[i] */
duo_status old_target_scale(size_t n, const double *in, double *out,
                            duo_stream stream);

#endif /* DUO_TEST_EARLY_LAUNCH_OLD_H */
