/*
 * png_rgb.c - an 8-bit RGB PNG writer over libpng (png_rgb.h).
 */
#include "png_rgb.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef DUO_HAVE_PNG
#include <png.h>
#endif

const char *png_rgb_missing_message(void)
{
    return "this program was built without PNG support: CMake did not "
           "find libpng.  Install libpng's development files (e.g. "
           "apt-get install libpng-dev, or dnf install libpng-devel) and "
           "rebuild";
}

#ifdef DUO_HAVE_PNG

int png_rgb_available(void) { return 1; }

typedef struct png_context {
    const char *prog;
    const char *option;
    const char *path;
} png_context;

static void on_png_error(png_structp png, png_const_charp message)
{
    const png_context *ctx = (const png_context *)png_get_error_ptr(png);
    fprintf(stderr, "%s: %s %s: libpng: %s\n", ctx->prog, ctx->option, ctx->path,
            message);
    png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp message)
{
    const png_context *ctx = (const png_context *)png_get_error_ptr(png);
    fprintf(stderr, "%s: %s %s: libpng warning: %s\n", ctx->prog,
            ctx->option, ctx->path, message);
}

int png_rgb_write(const char *path, size_t width, size_t height,
                  png_rgb_row_fn fill, void *fill_ctx, const char *prog,
                  const char *option)
{
    /* PNG dimensions are at most 2^31 - 1, and at least 1. */
    if (width == 0 || height == 0 || width > 0x7fffffffu ||
        height > 0x7fffffffu || width > (size_t)-1 / 3) {
        fprintf(stderr, "%s: %s %s: a PNG image is 1 to 2147483647 "
                "pixels wide and high; this one is %zu x %zu\n", prog,
                option, path, width, height);
        return -1;
    }
    png_context ctx;
    ctx.prog = prog;
    ctx.option = option;
    ctx.path = path;

    /* Modified after setjmp and used after a longjmp: volatile. */
    FILE *volatile file = fopen(path, "wb");
    if (file == NULL) {
        fprintf(stderr, "%s: %s %s: cannot create the file: %s\n", prog,
                option, path, strerror(errno));
        return -1;
    }
    unsigned char *volatile row = (unsigned char *)malloc(3 * width);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &ctx,
                                              on_png_error, on_png_warning);
    png_infop info = png != NULL ? png_create_info_struct(png) : NULL;
    if (row == NULL || png == NULL || info == NULL) {
        fprintf(stderr, "%s: %s %s: out of memory\n", prog, option, path);
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
    for (size_t y = 0; y < height; ++y) {
        fill(fill_ctx, y, row);
        png_write_row(png, row);
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(row);
    if (fclose(file) != 0) {
        fprintf(stderr, "%s: %s %s: error writing the file: %s\n", prog,
                option, path, strerror(errno));
        remove(path);
        return -1;
    }
    return 0;
}

#else /* !DUO_HAVE_PNG */

int png_rgb_available(void) { return 0; }

int png_rgb_write(const char *path, size_t width, size_t height,
                  png_rgb_row_fn fill, void *fill_ctx, const char *prog,
                  const char *option)
{
    (void)width;
    (void)height;
    (void)fill;
    (void)fill_ctx;
    fprintf(stderr, "%s: %s %s: %s\n", prog, option, path,
            png_rgb_missing_message());
    return -1;
}

#endif /* DUO_HAVE_PNG */
