/*
 * lens_png.c - duo-lens's --png spot diagram (see lens_png.h): the rays
 * binned into pixels, shaded by count; tools/png_rgb.c writes the file.
 */
#include "lens_png.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "png_rgb.h"

int lens_png_available(void) { return png_rgb_available(); }

const char *lens_png_missing_message(void)
{
    return "this duo-lens was built without PNG support: CMake did not "
           "find libpng.  Install libpng's development files (e.g. "
           "apt-get install libpng-dev, or dnf install libpng-devel) and "
           "rebuild, or run without --png (--dump FILE writes the image "
           "coordinates)";
}

typedef struct spot_image {
    uint32_t *hits;     /* LENS_PNG_SIZE^2 ray counts, row 0 at the top */
    double log_max;     /* log1p of the largest count */
    double half;        /* mm from the centre to an edge */
    double rms_pixels;  /* the RMS radius in pixels */
} spot_image;

static void fill_row(void *ctx, size_t row, unsigned char *rgb)
{
    const spot_image *im = (const spot_image *)ctx;
    const double centre = 0.5 * LENS_PNG_SIZE;
    for (size_t col = 0; col < LENS_PNG_SIZE; ++col) {
        unsigned char *p = rgb + 3 * col;
        const uint32_t hits = im->hits[row * LENS_PNG_SIZE + col];
        const double r = hypot((double)col + 0.5 - centre,
                               (double)row + 0.5 - centre);
        if (fabs(r - im->rms_pixels) < 0.75) {
            p[0] = 220;
            p[1] = 30;
            p[2] = 30;
        } else if (hits == 0) {
            p[0] = p[1] = p[2] = 255;
        } else {
            /* From light blue (one ray) to dark navy (the most). */
            const double t = im->log_max > 0.0
                                 ? log1p((double)hits) / im->log_max
                                 : 1.0;
            p[0] = (unsigned char)(170.0 - 160.0 * t);
            p[1] = (unsigned char)(200.0 - 170.0 * t);
            p[2] = (unsigned char)(255.0 - 135.0 * t);
        }
    }
}

int lens_write_png(const char *path, size_t n, const float *image_x,
                   const float *image_y, const int32_t *status,
                   const lens_merit *merit, const char *prog)
{
    if (!png_rgb_available()) {
        fprintf(stderr, "%s: --png %s: %s\n", prog, path,
                lens_png_missing_message());
        return -1;
    }
    const size_t side = LENS_PNG_SIZE;
    spot_image im;
    im.hits = (uint32_t *)calloc(side * side, sizeof *im.hits);
    if (im.hits == NULL) {
        fprintf(stderr, "%s: --png %s: out of host memory\n", prog, path);
        return -1;
    }
    /* A spot of one point (or none) still gets a view: 1 um across. */
    const double radius = sqrt((double)merit->max_r2);
    im.half = radius > 0.0 ? 1.05 * radius : 5e-4;
    const double scale = (double)side / (2.0 * im.half); /* pixels / mm */
    uint32_t most = 0;
    for (size_t i = 0; i < n; ++i) {
        if (status[i] != LENS_REACHED)
            continue;
        const double u = ((double)image_x[i] - merit->cx + im.half) * scale;
        const double v = (im.half - ((double)image_y[i] - merit->cy)) * scale;
        if (!(u >= 0.0 && u < (double)side && v >= 0.0 && v < (double)side))
            continue;
        uint32_t *h = &im.hits[(size_t)v * side + (size_t)u];
        if (*h < UINT32_MAX)
            ++*h;
        most = *h > most ? *h : most;
    }
    im.log_max = log1p((double)most);
    im.rms_pixels = isfinite(merit->rms) ? merit->rms * scale : -1.0;
    const int rc =
        png_rgb_write(path, side, side, fill_row, &im, prog, "--png");
    free(im.hits);
    return rc;
}
