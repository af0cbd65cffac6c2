/*
 * png_rgb.h - write an 8-bit RGB PNG with libpng, one row at a time, for
 * the pictures duo draws (duo-julia's --png, duo-compare's --png).
 *
 * Plain C (libpng's error handling uses setjmp/longjmp, which stays out
 * of nvcc-compiled sources).  Compiled with DUO_HAVE_PNG where CMake
 * found libpng; without it png_rgb_available() is 0 and png_rgb_write()
 * fails with png_rgb_missing_message().
 */
#ifndef DUO_TOOLS_PNG_RGB_H
#define DUO_TOOLS_PNG_RGB_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fill row `y` (0 at the top) of `width` RGB pixels: 3 * width bytes. */
typedef void (*png_rgb_row_fn)(void *ctx, size_t y, unsigned char *rgb);

/* 1 when this build can write PNG files, 0 when libpng was missing. */
int png_rgb_available(void);

/* What to say when it cannot: names libpng and how to get it. */
const char *png_rgb_missing_message(void);

/* Write a width x height image whose rows come from row(ctx, y, ...).
 * 0 on success; -1 on failure with "<prog>: <option> <path>: <why>" on
 * stderr and no file left behind. */
int png_rgb_write(const char *path, size_t width, size_t height,
                  png_rgb_row_fn row, void *ctx, const char *prog,
                  const char *option);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DUO_TOOLS_PNG_RGB_H */
