/*
 * lens_check.h - duo-lens's --check: the design traced again on the
 * host, in plain C, and compared with the device's results.
 *
 * lens_check.c is a HOST_SOURCE (always plain C11); lens.c, which a CUDA
 * build compiles as CUDA C++, calls it, hence the extern "C".
 */
#ifndef DUO_APPS_LENS_CHECK_H
#define DUO_APPS_LENS_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "lens_design.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Trace the n rays of the design `curvature` (the rest as in
 * lens_design.h) on the host, with the arithmetic of duo-lens's kernels
 * restated, and compare:
 *  - every ray's image_x, image_y and status (the device's, copied to
 *    the host): the same bits;
 *  - got->lost (the atomic counts) against the host's counts of each
 *    status, got->vignetted and got->live: equal;
 *  - got->sum_x, got->sum_y (duo's fixed-order sums) against left-to-
 *    right double sums of the same image coordinates: within
 *    2 n 2^-53 sum |x_i|, the bound on two double sums of the same
 *    terms in any two orders;
 *  - got->cx, got->cy: (float)(sum / live) of got's own sums, exactly;
 *  - got->sum_r2 against the host's sum of the squared radii about
 *    got's centroid (terms with the same bits): within the same bound;
 *    got->max_r2 equal to their largest; got->rms = sqrt(sum_r2 / live);
 *  - each of again[0 .. nagain), other evaluations of the same design:
 *    the same bits as *got in every result.
 * Prints the "check:" line (app_report_check); returns 0 on PASS, 1 on
 * FAIL.
 */
int lens_check(size_t n, const float curvature[LENS_SURFACES],
               const lens_merit *got, const lens_merit *again,
               size_t nagain, const float *image_x, const float *image_y,
               const int32_t *status);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DUO_APPS_LENS_CHECK_H */
