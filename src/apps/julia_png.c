/*
 * julia_png.c - duo-julia's --png writer (see julia_png.h).  Plain C11,
 * no kernels; uses libpng when built with DUO_HAVE_PNG.
 */
#include "julia_png.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef DUO_HAVE_PNG
#include <png.h>
#endif

const char *julia_png_missing_message(void)
{
    return "this duo-julia was built without PNG support: CMake did not "
           "find libpng.  Install libpng's development files (e.g. "
           "apt-get install libpng-dev, or dnf install libpng-devel) and "
           "rebuild, or run without --png (--dump FILE writes the counts)";
}

#ifdef DUO_HAVE_PNG

int julia_png_available(void) { return 1; }

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

typedef struct png_context {
    const char *prog;
    const char *path;
} png_context;

static void on_png_error(png_structp png, png_const_charp message)
{
    const png_context *ctx = (const png_context *)png_get_error_ptr(png);
    fprintf(stderr, "%s: --png %s: libpng: %s\n", ctx->prog, ctx->path,
            message);
    png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp message)
{
    const png_context *ctx = (const png_context *)png_get_error_ptr(png);
    fprintf(stderr, "%s: --png %s: libpng warning: %s\n", ctx->prog,
            ctx->path, message);
}

int julia_write_png(const char *path, size_t width, size_t height,
                    const int32_t *counts, int32_t max_iter,
                    const char *prog)
{
    /* PNG dimensions are at most 2^31 - 1, and at least 1. */
    if (width == 0 || height == 0 || width > 0x7fffffffu ||
        height > 0x7fffffffu || width > (size_t)-1 / 3) {
        fprintf(stderr, "%s: --png %s: a PNG image is 1 to 2147483647 "
                "pixels wide and high; this one is %zu x %zu\n", prog, path,
                width, height);
        return -1;
    }
    png_context ctx;
    ctx.prog = prog;
    ctx.path = path;

    /* Modified after setjmp and used after a longjmp: volatile. */
    FILE *volatile file = fopen(path, "wb");
    if (file == NULL) {
        fprintf(stderr, "%s: --png %s: cannot create the file: %s\n", prog,
                path, strerror(errno));
        return -1;
    }
    unsigned char *volatile row = (unsigned char *)malloc(3 * width);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &ctx,
                                              on_png_error, on_png_warning);
    png_infop info = png != NULL ? png_create_info_struct(png) : NULL;
    if (row == NULL || png == NULL || info == NULL) {
        fprintf(stderr, "%s: --png %s: out of memory\n", prog, path);
        png_destroy_write_struct(&png, &info);
        free(row);
        fclose(file);
        remove(path);
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        /* on_png_error has printed the message. */
        png_destroy_write_struct(&png, &info);
        free(row);
        fclose(file);
        remove(path);
        return -1;
    }
    png_init_io(png, file);
    png_set_user_limits(png, 0x7fffffffu, 0x7fffffffu);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8,
                 PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (size_t i = 0; i < height; ++i) {
        const int32_t *line = counts + i * width;
        for (size_t j = 0; j < width; ++j)
            colour(line[j], max_iter, row + 3 * j);
        png_write_row(png, row);
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(row);
    if (fclose(file) != 0) {
        fprintf(stderr, "%s: --png %s: error writing the file: %s\n", prog,
                path, strerror(errno));
        remove(path);
        return -1;
    }
    return 0;
}

#else /* !DUO_HAVE_PNG */

int julia_png_available(void) { return 0; }

int julia_write_png(const char *path, size_t width, size_t height,
                    const int32_t *counts, int32_t max_iter,
                    const char *prog)
{
    (void)width;
    (void)height;
    (void)counts;
    (void)max_iter;
    fprintf(stderr, "%s: --png %s: %s\n", prog, path,
            julia_png_missing_message());
    return -1;
}

#endif /* DUO_HAVE_PNG */
