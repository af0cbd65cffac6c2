/*
 * diff_png.c - duo-compare --png (diff_png.h).  The differences are
 * measured once into a grid of at most DIFF_PNG_MAX_SIDE^2 cells, then
 * coloured row by row into png_rgb_write.
 */
#include "diff_png.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "png_rgb.h"
#include "ulp.h"

/* A cell's difference: 0 equal bits, UINT64_MAX a NaN or infinity
 * against something else, otherwise the distance (ulps, or |a - b| of
 * integers; at least 1 when the bits differ, as +0 and -0 do). */
#define NOT_FINITE UINT64_MAX

static int finite_bits(const dump_entry *e, uint64_t i)
{
    if (e->type == DUO_F32)
        return isfinite(((const float *)e->data)[i]);
    if (e->type == DUO_F64)
        return isfinite(((const double *)e->data)[i]);
    return 1;
}

/* The key that orders element i like its value (ulp.h; integers with
 * the sign bit flipped). */
static uint64_t ordered(const dump_entry *e, uint64_t i)
{
    switch (e->type) {
    case DUO_F32: {
        uint32_t u;
        memcpy(&u, (const float *)e->data + i, 4);
        return ulp_ordered32(u);
    }
    case DUO_F64: {
        uint64_t u;
        memcpy(&u, (const double *)e->data + i, 8);
        return ulp_ordered64(u);
    }
    case DUO_I32:
        return (uint64_t)(int64_t)((const int32_t *)e->data)[i] ^
               0x8000000000000000ull;
    case DUO_I64:
        return (uint64_t)((const int64_t *)e->data)[i] ^
               0x8000000000000000ull;
    case DUO_U64:
        return ((const uint64_t *)e->data)[i];
    }
    return 0;
}

static uint64_t element_difference(const dump_entry *a, const dump_entry *b,
                                   uint64_t i)
{
    const size_t size = dump_type_size(a->type);
    const char *pa = (const char *)a->data + i * size;
    const char *pb = (const char *)b->data + i * size;
    if (memcmp(pa, pb, size) == 0)
        return 0;
    if (!finite_bits(a, i) || !finite_bits(b, i))
        return NOT_FINITE;
    uint64_t d = ulp_distance(ordered(a, i), ordered(b, i));
    return d > 0 ? d : 1;
}

typedef struct grid {
    size_t width, height;   /* cells */
    uint64_t *cell;         /* largest difference in each */
    uint64_t largest;       /* largest finite difference, for the scale */
} grid;

static void colour(const grid *g, uint64_t d, unsigned char rgb[3])
{
    if (d == 0) {
        rgb[0] = rgb[1] = rgb[2] = 255;
        return;
    }
    if (d == NOT_FINITE) {
        rgb[0] = 40;
        rgb[1] = 80;
        rgb[2] = 230;
        return;
    }
    /* t = 0 at one unit, 1 at the largest: yellow to dark red. */
    double t = g->largest > 1 ? log2((double)d) / log2((double)g->largest)
                              : 0.0;
    rgb[0] = (unsigned char)(255.0 - 115.0 * t);
    rgb[1] = (unsigned char)(220.0 * (1.0 - t));
    rgb[2] = (unsigned char)(60.0 * (1.0 - t));
}

static void fill_row(void *ctx, size_t y, unsigned char *rgb)
{
    const grid *g = (const grid *)ctx;
    for (size_t x = 0; x < g->width; ++x)
        colour(g, g->cell[y * g->width + x], rgb + 3 * x);
}

int diff_png_write(const char *path, const dump_entry *a,
                   const dump_entry *b, const char *prog)
{
    if (a->rank != 2 || a->dims[0] == 0 || a->dims[1] == 0) {
        fprintf(stderr, "%s: --png %s: array '%s' has rank %d and %llu "
                "element(s); --png draws a non-empty 2-D array (pick one "
                "with --array NAME)\n", prog, path, a->name, a->rank,
                (unsigned long long)a->count);
        return -1;
    }
    if (!png_rgb_available()) {
        fprintf(stderr, "%s: --png %s: %s\n", prog, path,
                png_rgb_missing_message());
        return -1;
    }
    const uint64_t rows = a->dims[0], cols = a->dims[1];
    /* Cells of step x step elements, so that no side passes the limit. */
    uint64_t step = 1;
    while ((rows + step - 1) / step > DIFF_PNG_MAX_SIDE ||
           (cols + step - 1) / step > DIFF_PNG_MAX_SIDE)
        ++step;
    grid g;
    g.height = (size_t)((rows + step - 1) / step);
    g.width = (size_t)((cols + step - 1) / step);
    g.largest = 0;
    g.cell = calloc(g.width * g.height, sizeof *g.cell);
    if (g.cell == NULL) {
        fprintf(stderr, "%s: --png %s: out of memory\n", prog, path);
        return -1;
    }
    uint64_t differ = 0, not_finite = 0;
    for (uint64_t i = 0; i < rows; ++i)
        for (uint64_t j = 0; j < cols; ++j) {
            uint64_t d = element_difference(a, b, i * cols + j);
            uint64_t *c = &g.cell[(i / step) * g.width + j / step];
            if (d == 0)
                continue;
            ++differ;
            if (d == NOT_FINITE)
                ++not_finite;
            else if (d > g.largest)
                g.largest = d;
            if (d > *c)
                *c = d;
        }
    int rc = png_rgb_write(path, g.width, g.height, fill_row, &g, prog,
                           "--png");
    free(g.cell);
    if (rc != 0)
        return -1;
    const int is_float = a->type == DUO_F32 || a->type == DUO_F64;
    printf("png: %s: array '%s', %llu x %llu", path, a->name,
           (unsigned long long)rows, (unsigned long long)cols);
    if (step > 1)
        printf(" in %llu x %llu blocks (each pixel the largest difference "
               "in its block)", (unsigned long long)step,
               (unsigned long long)step);
    if (differ == 0)
        printf("; all bits equal (white)");
    else if (g.largest > 0)
        printf("; %llu element(s) differ: white equal bits, yellow 1 %s to "
               "dark red %llu %s (log scale)", (unsigned long long)differ,
               is_float ? "ulp" : "unit", (unsigned long long)g.largest,
               is_float ? "ulps" : "units");
    else
        printf("; %llu element(s) differ", (unsigned long long)differ);
    if (not_finite > 0)
        printf(", blue %llu NaN or infinity against another value",
               (unsigned long long)not_finite);
    printf("\n");
    return 0;
}
