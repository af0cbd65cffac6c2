/*
 * julia_png.c - duo-julia's --png writer (see julia_png.h): colours the
 * iteration counts; tools/png_rgb.c writes the file.
 */
#include "julia_png.h"

#include <math.h>
#include <stdio.h>

#include "png_rgb.h"

int julia_png_available(void) { return png_rgb_available(); }

const char *julia_png_missing_message(void)
{
    return "this duo-julia was built without PNG support: CMake did not "
           "find libpng.  Install libpng's development files (e.g. "
           "apt-get install libpng-dev, or dnf install libpng-devel) and "
           "rebuild, or run without --png (--dump FILE writes the counts)";
}

/* A smooth palette over t in [0, 1): dark blue through orange to white-ish
 * (the usual cubic Bernstein polynomials). */
static void colour(int32_t count, int32_t max_iter, unsigned char rgb[3])
{
    if (count >= max_iter) {
        rgb[0] = rgb[1] = rgb[2] = 0;
        return;
    }
    const double t = log1p((double)count) / log1p((double)max_iter);
    const double s = 1.0 - t;
    const double c[3] = {9.0 * s * t * t * t, 15.0 * s * s * t * t,
                         8.5 * s * s * s * t};
    for (int k = 0; k < 3; ++k) {
        double v = c[k] * 255.0 + 0.5;
        rgb[k] = (unsigned char)(v < 0.0 ? 0.0 : v > 255.0 ? 255.0 : v);
    }
}

typedef struct counts_image {
    const int32_t *counts;
    size_t width;
    int32_t max_iter;
} counts_image;

static void fill_row(void *ctx, size_t y, unsigned char *rgb)
{
    const counts_image *im = (const counts_image *)ctx;
    const int32_t *line = im->counts + y * im->width;
    for (size_t j = 0; j < im->width; ++j)
        colour(line[j], im->max_iter, rgb + 3 * j);
}

int julia_write_png(const char *path, size_t width, size_t height,
                    const int32_t *counts, int32_t max_iter,
                    const char *prog)
{
    if (!png_rgb_available()) {
        fprintf(stderr, "%s: --png %s: %s\n", prog, path,
                julia_png_missing_message());
        return -1;
    }
    counts_image im = {counts, width, max_iter};
    return png_rgb_write(path, width, height, fill_row, &im, prog, "--png");
}
