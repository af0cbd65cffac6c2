/*
 * lens_check.c - duo-lens's host reference (lens_check.h): one ray at a
 * time through the doublet, in plain C, then the device's results
 * compared with it.  The arithmetic is the kernels', restated operation
 * for operation (fmaf where they fuse, bare operations elsewhere), with
 * duo_sinf and duo_cosf where the kernel calls duo_sincosf.
 */
#include "lens_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <duo/math.h>

#include "app_common.h"

/* A ray: position in the current surface's frame, direction cosines. */
typedef struct ray {
    float x, y, z, k, l, m;
} ray;

static ray pupil_ray(size_t i, size_t n)
{
    const float radius =
        LENS_PUPIL_RADIUS * sqrtf(((float)i + 0.5f) / (float)n);
    const uint64_t step = ((uint64_t)i * LENS_GOLDEN) >> 40;
    const float angle = (float)step * LENS_TURN_PER_STEP;
    ray r;
    r.x = radius * duo_cosf(angle);
    r.y = radius * duo_sinf(angle);
    r.z = 0.0f;
    r.k = 0.0f;
    r.l = 0.0f;
    r.m = 1.0f;
    return r;
}

/* Onto the sphere of curvature c whose vertex is `t` beyond the current
 * one; 0 if the ray misses it or meets it outside sd2 (squared). */
static int meet_sphere(ray *r, float c, float t, float sd2)
{
    const float z = r->z - t;
    const float p2 = fmaf(r->x, r->x, fmaf(r->y, r->y, z * z));
    const float f = fmaf(c, p2, -2.0f * z);
    const float pd = fmaf(r->x, r->k, fmaf(r->y, r->l, z * r->m));
    const float g = fmaf(-c, pd, r->m);
    const float disc = fmaf(g, g, -(c * f));
    if (!(disc >= 0.0f))
        return 0;
    const float den = g + sqrtf(disc);
    const float s = f / den;
    r->x = fmaf(s, r->k, r->x);
    r->y = fmaf(s, r->l, r->y);
    r->z = fmaf(s, r->m, z);
    return den > 0.0f && fmaf(r->x, r->x, r->y * r->y) <= sd2;
}

/* Snell's law at that sphere, index ratio mu; 0 on total internal
 * reflection. */
static int refract(ray *r, float c, float mu)
{
    const float nx = -c * r->x, ny = -c * r->y, nz = fmaf(-c, r->z, 1.0f);
    const float cosi = fmaf(r->k, nx, fmaf(r->l, ny, r->m * nz));
    const float sin2 = fmaf(-cosi, cosi, 1.0f);
    const float root = fmaf(-(mu * mu), sin2, 1.0f);
    if (!(root >= 0.0f))
        return 0;
    const float g = fmaf(-mu, cosi, sqrtf(root));
    const float k = fmaf(mu, r->k, g * nx);
    const float l = fmaf(mu, r->l, g * ny);
    const float m = fmaf(mu, r->m, g * nz);
    r->k = k;
    r->l = l;
    r->m = m;
    return 1;
}

/* Ray i's image point and status (lens_design.h). */
static int32_t trace(size_t i, size_t n, const float *curvature, float *ix,
                     float *iy)
{
    ray r = pupil_ray(i, n);
    float before = LENS_INDEX_BEFORE;
    *ix = *iy = 0.0f;
    for (int s = 0; s < LENS_SURFACES; ++s) {
        const lens_surface *surf = &LENS_PRESCRIPTION[s];
        const float sd = surf->semi_diameter;
        if (!meet_sphere(&r, curvature[s], surf->thickness, sd * sd) ||
            !refract(&r, curvature[s], before / surf->index))
            return s + 1;
        before = surf->index;
    }
    if (!(r.m > 0.0f))
        return LENS_TALLIES;
    const float s = (LENS_IMAGE_DISTANCE - r.z) / r.m;
    *ix = fmaf(s, r.k, r.x);
    *iy = fmaf(s, r.l, r.y);
    return LENS_REACHED;
}

static uint32_t bits(float v)
{
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

static int same_bits(const void *a, const void *b, size_t size)
{
    return memcmp(a, b, size) == 0;
}

/* Every result of two evaluations, bit for bit. */
static int same_merit(const lens_merit *a, const lens_merit *b)
{
    return same_bits(&a->rms, &b->rms, sizeof a->rms) &&
           same_bits(&a->sum_x, &b->sum_x, sizeof a->sum_x) &&
           same_bits(&a->sum_y, &b->sum_y, sizeof a->sum_y) &&
           same_bits(&a->cx, &b->cx, sizeof a->cx) &&
           same_bits(&a->cy, &b->cy, sizeof a->cy) &&
           same_bits(&a->sum_r2, &b->sum_r2, sizeof a->sum_r2) &&
           same_bits(&a->max_r2, &b->max_r2, sizeof a->max_r2) &&
           same_bits(a->lost, b->lost, sizeof a->lost);
}

int lens_check(size_t n, const float curvature[LENS_SURFACES],
               const lens_merit *got, const lens_merit *again,
               size_t nagain, const float *image_x, const float *image_y,
               const int32_t *status)
{
    size_t bad = 0;
    char detail[320] = "";
#define EXPECT(ok, ...)                                                       \
    do {                                                                      \
        if (!(ok) && bad++ == 0)                                              \
            snprintf(detail, sizeof detail, __VA_ARGS__);                     \
    } while (0)

    /* The rays, and the host's counts and sums over the device's image
     * coordinates (which must equal the host's own). */
    uint64_t lost[LENS_TALLIES] = {0};
    double sum_x = 0.0, sum_y = 0.0, abs_x = 0.0, abs_y = 0.0;
    for (size_t i = 0; i < n; ++i) {
        float ix, iy;
        const int32_t st = trace(i, n, curvature, &ix, &iy);
        EXPECT(st == status[i] && bits(ix) == bits(image_x[i]) &&
                   bits(iy) == bits(image_y[i]),
               "ray %zu: image (%.9g, %.9g) status %d, host (%.9g, %.9g) "
               "status %d", i, (double)image_x[i], (double)image_y[i],
               (int)status[i], (double)ix, (double)iy, (int)st);
        if (st != LENS_REACHED)
            ++lost[st - 1];
        sum_x += (double)image_x[i];
        sum_y += (double)image_y[i];
        abs_x += fabs((double)image_x[i]);
        abs_y += fabs((double)image_y[i]);
    }
    uint64_t vignetted = 0;
    for (int s = 0; s < LENS_TALLIES; ++s) {
        EXPECT(got->lost[s] == lost[s],
               "rays lost at %s %d: %llu counted, %llu on the host",
               s < LENS_SURFACES ? "surface" : "the image plane", s + 1,
               (unsigned long long)got->lost[s],
               (unsigned long long)lost[s]);
        vignetted += lost[s];
    }
    const uint64_t live = n - vignetted;
    EXPECT(got->vignetted == vignetted && got->live == live,
           "vignetted %llu, live %llu; host %llu, %llu",
           (unsigned long long)got->vignetted,
           (unsigned long long)got->live, (unsigned long long)vignetted,
           (unsigned long long)live);

    const double u = 0x1p-53;
    EXPECT(fabs(got->sum_x - sum_x) <= 2.0 * (double)n * u * abs_x &&
               fabs(got->sum_y - sum_y) <= 2.0 * (double)n * u * abs_y,
           "sums of the image coordinates %.17g, %.17g; host %.17g, %.17g",
           got->sum_x, got->sum_y, sum_x, sum_y);
    const float cx = live ? (float)(got->sum_x / (double)live) : 0.0f;
    const float cy = live ? (float)(got->sum_y / (double)live) : 0.0f;
    EXPECT(bits(got->cx) == bits(cx) && bits(got->cy) == bits(cy),
           "centroid (%.9g, %.9g), from the sums (%.9g, %.9g)",
           (double)got->cx, (double)got->cy, (double)cx, (double)cy);

    /* The spot about the device's centroid. */
    double sum_r2 = 0.0;
    float max_r2 = 0.0f;
    for (size_t i = 0; i < n; ++i) {
        if (status[i] != LENS_REACHED)
            continue;
        const float dx = image_x[i] - got->cx, dy = image_y[i] - got->cy;
        const float r2 = fmaf(dx, dx, dy * dy);
        sum_r2 += (double)r2;
        max_r2 = r2 > max_r2 ? r2 : max_r2;
    }
    EXPECT(fabs(got->sum_r2 - sum_r2) <= 2.0 * (double)n * u * sum_r2,
           "sum of the squared spot radii %.17g, host %.17g", got->sum_r2,
           sum_r2);
    EXPECT(bits(got->max_r2) == bits(max_r2),
           "largest squared spot radius %.9g, host %.9g",
           (double)got->max_r2, (double)max_r2);
    const double rms = live ? sqrt(got->sum_r2 / (double)live) : INFINITY;
    EXPECT(same_bits(&got->rms, &rms, sizeof rms),
           "merit %.17g, from its sum %.17g", got->rms, rms);

    for (size_t a = 0; a < nagain; ++a)
        EXPECT(same_merit(got, &again[a]),
               "another evaluation of the same design: merit %.17g, "
               "sums %.17g %.17g %.17g, vignetted %llu; this one %.17g, "
               "%.17g %.17g %.17g, %llu", again[a].rms, again[a].sum_x,
               again[a].sum_y, again[a].sum_r2,
               (unsigned long long)again[a].vignetted, got->rms,
               got->sum_x, got->sum_y, got->sum_r2,
               (unsigned long long)got->vignetted);
#undef EXPECT
    return app_report_check(bad, n + LENS_TALLIES + 6 + nagain, "values",
                            detail);
}
