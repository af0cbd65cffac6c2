/*
 * lens_png.h - the --png FILE spot diagram of duo-lens, written with
 * libpng.
 *
 * lens_png.c is a HOST_SOURCE (always plain C: libpng's error handling
 * uses setjmp/longjmp, which stays out of the nvcc-compiled app source);
 * tools/png_rgb.c writes the file.  Without libpng, lens_png_available()
 * is 0 and lens_write_png() fails with a message naming the library.
 */
#ifndef DUO_APPS_LENS_PNG_H
#define DUO_APPS_LENS_PNG_H

#include <stddef.h>
#include <stdint.h>

#include "lens_design.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when this build can write PNG files, 0 when libpng was missing. */
int lens_png_available(void);

/* What to say when it cannot: names libpng and how to get it. */
const char *lens_png_missing_message(void);

/* Draw the image-plane points of the n rays whose status is
 * LENS_REACHED, centred on the centroid (merit->cx, cy), the view a
 * little wider than the largest radius (merit->max_r2): LENS_PNG_SIZE
 * pixels square, +y up, white where no ray lands and darker blue where
 * more do (log scale), the circle of the RMS radius (merit->rms) in red.
 * 0 on success; -1 on failure, with "<prog>: --png <path>: <why>" on
 * stderr and no file left behind. */
#define LENS_PNG_SIZE 512
int lens_write_png(const char *path, size_t n, const float *image_x,
                   const float *image_y, const int32_t *status,
                   const lens_merit *merit, const char *prog);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DUO_APPS_LENS_PNG_H */
