/*
 * lens_design.h - what duo-lens's files share: the fixed lens (an
 * air-spaced doublet), the pupil it is traced from, the codes that say
 * where a ray was lost, and what one merit evaluation returns.
 *
 * Included by lens.c (a kernel source: CUDA C++ in a CUDA build) and by
 * the plain C helpers lens_check.c and lens_png.c, hence the extern "C".
 */
#ifndef DUO_APPS_LENS_DESIGN_H
#define DUO_APPS_LENS_DESIGN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The lens, in millimetres, light travelling along +z.  Each surface is
 * a sphere through its vertex on the axis, of curvature c = 1/R (c > 0:
 * centre of curvature to the right); `thickness` is the distance from the
 * previous vertex (from the pupil plane for the first surface), `index`
 * the refractive index after the surface, `semi_diameter` its clear
 * aperture: a ray that meets it farther from the axis is lost.
 *
 *   1  R  +61.5   N-BK7 (n_d 1.5168), 6.0 thick, the aperture stop
 *   2  R  -44.0   air gap 1.0
 *   3  R  -43.0   F2 (n_d 1.6200), 2.5 thick
 *   4  R -130.0   then 95.0 to the image plane
 *
 * The curvatures are the start of the optimization; thicknesses, glasses
 * and the image plane stay fixed.  The pupil is slightly wider than the
 * stop (radius 12.75 against 12.5), so the stop clips the outermost
 * rays: those are the vignetted rays of every evaluation.
 */
#define LENS_SURFACES 4
/* Lost-ray tallies: one per surface, and one for rays that cannot reach
 * the image plane (travelling backwards after the last surface). */
#define LENS_TALLIES (LENS_SURFACES + 1)

typedef struct lens_surface {
    float curvature;     /* 1/mm, the starting value */
    float thickness;     /* mm from the previous vertex */
    float index;         /* refractive index after the surface */
    float semi_diameter; /* mm */
} lens_surface;

static const lens_surface LENS_PRESCRIPTION[LENS_SURFACES] = {
    {1.0f / 61.5f, 0.0f, 1.5168f, 12.5f},
    {-1.0f / 44.0f, 6.0f, 1.0f, 13.5f},
    {-1.0f / 43.0f, 1.0f, 1.62f, 13.5f},
    {-1.0f / 130.0f, 2.5f, 1.0f, 13.5f}};

#define LENS_IMAGE_DISTANCE 95.0f /* mm from the last vertex */
#define LENS_PUPIL_RADIUS 12.75f  /* mm */
#define LENS_INDEX_BEFORE 1.0f    /* air in front of the lens */

/*
 * The pupil sample (rays parallel to the axis, from an on-axis point at
 * infinity): ray i of n starts in the plane of the first vertex at
 *   radius  LENS_PUPIL_RADIUS * sqrtf(((float)i + 0.5f) / (float)n)
 *   angle   (float)a * LENS_TURN_PER_STEP,  a = (i * LENS_GOLDEN) >> 40
 *           (64-bit unsigned product, wrapping: the fractional part of
 *           i times the golden ratio, in 24 bits)
 * x = radius * cos(angle), y = radius * sin(angle) (duo_sincosf): the
 * golden-angle spiral (Vogel's method), every ray standing for an equal
 * share of the pupil's area, for any n.
 */
#define LENS_GOLDEN 0x9E3779B97F4A7C15ull
/* 2 pi / 2^24: one step of the 24-bit angle (a power of two times the
 * float nearest 2 pi, so the same float everywhere). */
#define LENS_TURN_PER_STEP (6.28318530717958647692f / 16777216.0f)

/* Where a ray ended, per ray (int32): 0 at the image plane; s + 1 lost at
 * surface s (0-based: it misses the sphere, meets it outside the clear
 * aperture, or is totally internally reflected there); LENS_TALLIES lost
 * before the image plane (travelling backwards).  A lost ray's image
 * coordinates are 0. */
#define LENS_REACHED 0

/* One merit evaluation of a design. */
typedef struct lens_merit {
    double rms;      /* RMS spot radius (mm) about the centroid over the
                        rays that reach the image: sqrt(sum_r2 / live);
                        +inf when none does */
    double sum_x;    /* duo_reduce sums of the image coordinates */
    double sum_y;
    float cx, cy;    /* centroid: (float)(sum / live), 0 when live is 0 */
    double sum_r2;   /* sum of the squared radii about the centroid */
    float max_r2;    /* the largest squared radius */
    uint64_t lost[LENS_TALLIES]; /* lost rays per surface, and at the
                                    image (atomic counts) */
    uint64_t vignetted;          /* all lost rays */
    uint64_t live;               /* rays at the image: n - vignetted */
} lens_merit;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DUO_APPS_LENS_DESIGN_H */
