/*
 * diff_png.h - duo-compare --png: a picture of where, and by how many
 * units in the last place, two runs' 2-D arrays differ.
 */
#ifndef DUO_TOOLS_DIFF_PNG_H
#define DUO_TOOLS_DIFF_PNG_H

#include "dump.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest side of the picture: larger arrays are shown in blocks, each
 * pixel the largest difference of its block. */
#define DIFF_PNG_MAX_SIDE 2048

/* Draw a (run A) against b (the reference), both rank 2 of one type and
 * shape, into `path`: equal bits white; differing elements from yellow
 * (1 ulp; integers: a difference of 1) to dark red (the largest
 * difference), on a log scale; a NaN or infinity against anything else
 * blue.  Prints the scale on stdout.  0 on success; -1 with the reason
 * on stderr. */
int diff_png_write(const char *path, const dump_entry *a,
                   const dump_entry *b, const char *prog);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DUO_TOOLS_DIFF_PNG_H */
