/*
 * julia_png.h - the --png FILE image of duo-julia, written with libpng.
 *
 * julia_png.c is a HOST_SOURCE (always plain C: libpng's error handling
 * uses setjmp/longjmp, which stays out of the nvcc-compiled app source).
 * It is compiled with DUO_HAVE_PNG when CMake found libpng; without it
 * julia_png_available() is 0 and julia_write_png() fails with a message
 * naming the missing library.
 */
#ifndef DUO_APPS_JULIA_PNG_H
#define DUO_APPS_JULIA_PNG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when this build can write PNG files, 0 when libpng was missing. */
int julia_png_available(void);

/* What to say when it cannot: names libpng and how to get it. */
const char *julia_png_missing_message(void);

/* Write counts (height rows of width int32 iteration counts, row 0 at the
 * top) as an 8-bit RGB PNG: points that never escaped (count == max_iter)
 * black, the others coloured by log(1 + count) / log(1 + max_iter).
 * 0 on success; -1 on failure, with "<prog>: --png <path>: <why>" on
 * stderr and no file left behind. */
int julia_write_png(const char *path, size_t width, size_t height,
                    const int32_t *counts, int32_t max_iter,
                    const char *prog);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DUO_APPS_JULIA_PNG_H */
