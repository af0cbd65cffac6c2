/*
 * lens.c - duo-lens: the merit function of a lens-design code, and a
 * small optimizer over it.  N rays from an on-axis point at infinity,
 * filling a circular pupil, are traced through the four spherical
 * surfaces of an air-spaced doublet (lens_design.h) to a fixed image
 * plane; the merit is the RMS radius of their spot about its centroid.
 * Coordinate descent over the four curvatures, --iters K sweeps, lowers
 * it.  Reports the merit before and after, the median time of a merit
 * evaluation during the optimization, and the median of R more
 * evaluations of the final design (the result line's median_ms).
 *
 *   build/<backend>/bin/duo-lens [N] [--iters K] [--reps R] [--seed S]
 *       [--check] [--png FILE] [--dump FILE]
 *
 * One merit evaluation, as a GPU port of such a code does it (16
 * operations, all on the default stream; the host waits only at the two
 * user reductions and the two copies at the end):
 *   clear_tallies              lost-ray counters to 0
 *   start_rays                 every ray at its pupil point, along +z
 *   4 x transfer_to_surface    to the sphere (Spencer & Murty's form),
 *                              lost if it misses it or meets it outside
 *                              the clear aperture
 *   4 x refract_at_surface     Snell's law in vector form, lost on total
 *                              internal reflection
 *   transfer_to_image          to the image plane
 *   2 x duo_reduce_async       sums of the image x and y, into device
 *                              memory
 *   spot_centroid              the centroid, on the device, from those
 *                              sums and the lost-ray counts
 *   spot_r2_sum, spot_r2_max   user reductions (DUO_REDUCE_DEFINE) of the
 *                              squared radii about the centroid
 * and the counters and sums copied back.  Lost rays are counted with
 * duo_atomic_add_u64, one counter per surface.  The pupil sample itself
 * (duo_sincosf per ray) is computed once, before the first evaluation.
 *
 * The same bits on every backend.  Everything is float, as such codes
 * are.  Each product that meets a sum is an explicit fmaf, every other
 * operation bare (duo builds kernels without contraction, so a bare
 * a*b + c is two roundings everywhere); sqrtf and division are correctly
 * rounded on the GPU and the CPU alike; the pupil's sines and cosines
 * come from <duo/math.h>, correctly rounded.  So every ray has the same
 * bits on the GPU, with OpenMP at any thread count, and serially.  The
 * sums are duo's (one fixed order, double accumulators), the counts
 * integers.  Hence every merit has the same bits, the optimizer takes
 * the same steps, and the final curvatures too are the same everywhere.
 *
 * The optimizer: from the prescription's curvatures and a step of
 * 1e-3 / mm, each sweep tries, for each surface in turn, its curvature
 * plus and minus the step (float arithmetic on the host), and keeps the
 * better of the two when its merit is lower and it loses no more rays
 * than the starting design; a sweep that keeps nothing halves the step.
 * 8 evaluations a sweep, 8 K + 1 in all.  Runs longer than a second
 * print a progress line per sweep to stderr.
 *
 * --check traces the final design again on the host (lens_check.c, the
 * same arithmetic restated in plain C) and requires every ray's image
 * coordinates and fate to be equal bit for bit, the counts to be equal,
 * the centroid to be the one the sums give, and the sums within the
 * error bound of any summation order.  --dump FILE writes what has the
 * same bits on every backend: "curvatures" (f32, 4, the final design),
 * "merit_history" (f64, K + 1: the merit at the start and after each
 * sweep), "merit" (f64), "centroid" (f32, 2), "sums" (f64, 3: x, y and
 * the squared radii), "max_r2" (f32), "lost" (u64, per surface and at the
 * image), "vignetted" (u64), and per ray "image_x", "image_y" (f32) and
 * "status" (i32, lens_design.h).  --png FILE draws the spot diagram
 * (lens_png.c, libpng).  The rays do not depend on --seed (accepted for
 * uniformity with the other apps).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <duo.h>
#include <duo/math.h>

#include "app_common.h"
#include "dump.h"
#include "lens_check.h"
#include "lens_design.h"
#include "lens_png.h"

static const char *const PROG = "duo-lens";
static const char *const USAGE =
    "usage: duo-lens [N] [--iters K] [--reps R] [--seed S] [--check]\n"
    "                [--png FILE] [--dump FILE] [--help]\n"
    "  Trace N rays (default 1000000) from an on-axis point at infinity\n"
    "  through an air-spaced doublet (4 spherical surfaces) in float, and\n"
    "  lower the RMS spot radius at a fixed image plane by coordinate\n"
    "  descent over the 4 curvatures.\n"
    "  N          rays, a positive integer\n"
    "  --iters K  optimizer sweeps, 0 to 100000 (default 20), 8 merit\n"
    "             evaluations each\n"
    "  --reps R   timed evaluations of the final design (default 5); the\n"
    "             median is reported\n"
    "  --seed S   accepted for uniformity; the rays do not depend on it\n"
    "  --check    trace the final design on the host too and compare\n"
    "             (every ray bit for bit); exit 1 on a mismatch\n"
    "  --png FILE write the spot diagram to FILE (PNG, needs libpng)\n"
    "  --dump FILE  write the final curvatures, the merits, the counts and\n"
    "             the image-plane coordinates of every ray to FILE\n";

#define DEFAULT_N 1000000
#define DEFAULT_ITERS 20
#define MAX_ITERS 100000
#define EVALS_PER_SWEEP (2 * LENS_SURFACES)
#define START_STEP 1e-3f /* 1/mm */

/* moments[]: what the reductions and the centroid kernel leave on the
 * device. */
enum { SUM_X, SUM_Y, CENTROID_X, CENTROID_Y, MOMENTS };

/* ------------------------------------------------------------------ */
/* Kernels                                                             */

DUO_KERNEL(clear_tallies, size_t count, uint64_t *DUO_RESTRICT lost)
{
    DUO_FOR(s, count)
        lost[s] = 0;
}

/* Once per run: the pupil point of every ray (lens_design.h). */
DUO_KERNEL(sample_pupil, size_t n, float *DUO_RESTRICT px,
           float *DUO_RESTRICT py)
{
    DUO_FOR(i, n) {
        const float radius =
            LENS_PUPIL_RADIUS * sqrtf(((float)i + 0.5f) / (float)n);
        const uint64_t a = ((uint64_t)i * LENS_GOLDEN) >> 40;
        float s, c;
        duo_sincosf((float)a * LENS_TURN_PER_STEP, &s, &c);
        px[i] = radius * c;
        py[i] = radius * s;
    }
}

/* Every ray at its pupil point, in the plane of the first vertex,
 * travelling along +z. */
DUO_KERNEL(start_rays, size_t n, const float *DUO_RESTRICT px,
           const float *DUO_RESTRICT py, float *DUO_RESTRICT x,
           float *DUO_RESTRICT y, float *DUO_RESTRICT z,
           float *DUO_RESTRICT k, float *DUO_RESTRICT l,
           float *DUO_RESTRICT m, int32_t *DUO_RESTRICT status)
{
    DUO_FOR(i, n) {
        x[i] = px[i];
        y[i] = py[i];
        z[i] = 0.0f;
        k[i] = 0.0f;
        l[i] = 0.0f;
        m[i] = 1.0f;
        status[i] = LENS_REACHED;
    }
}

/* Move each ray from the previous vertex's frame to this surface's
 * (vertex at the origin, `thickness` further on) and on to the sphere
 * c (x^2 + y^2 + z^2) - 2 z = 0.  Along the direction (k, l, m) the ray
 * meets it after
 *   s = F / (G + sqrt(G^2 - c F)),  F = c |p|^2 - 2 z,
 *                                   G = m - c (p . (k, l, m)),
 * a form that loses no digits near the vertex and is finite for c = 0.
 * A ray with G^2 < c F misses the sphere; one that meets it outside the
 * clear aperture (x^2 + y^2 > sd2) is lost there too. */
DUO_KERNEL(transfer_to_surface, size_t n, int32_t surface, float c,
           float thickness, float sd2, float *DUO_RESTRICT x,
           float *DUO_RESTRICT y, float *DUO_RESTRICT z,
           const float *DUO_RESTRICT k, const float *DUO_RESTRICT l,
           const float *DUO_RESTRICT m, int32_t *DUO_RESTRICT status,
           uint64_t *DUO_RESTRICT lost)
{
    DUO_FOR(i, n) {
        if (status[i] == LENS_REACHED) {
            const float xi = x[i], yi = y[i], zi = z[i] - thickness;
            const float ki = k[i], li = l[i], mi = m[i];
            const float f =
                fmaf(c, fmaf(xi, xi, fmaf(yi, yi, zi * zi)), -2.0f * zi);
            const float g = fmaf(-c, fmaf(xi, ki, fmaf(yi, li, zi * mi)), mi);
            const float disc = fmaf(g, g, -(c * f));
            int on_surface = disc >= 0.0f;
            if (on_surface) {
                const float den = g + sqrtf(disc);
                const float s = f / den;
                const float xn = fmaf(s, ki, xi), yn = fmaf(s, li, yi);
                on_surface = den > 0.0f && fmaf(xn, xn, yn * yn) <= sd2;
                x[i] = xn;
                y[i] = yn;
                z[i] = fmaf(s, mi, zi);
            }
            if (!on_surface) {
                status[i] = surface + 1;
                duo_atomic_add_u64(&lost[surface], 1);
            }
        }
    }
}

/* Snell's law in vector form at the sphere: with the unit normal
 * N = (-c x, -c y, 1 - c z) (along +z at the vertex), cos I = D . N and
 * mu = n / n', the refracted direction is
 *   D' = mu D + (sqrt(1 - mu^2 (1 - cos^2 I)) - mu cos I) N,
 * and a negative radicand is total internal reflection: the ray is lost
 * there. */
DUO_KERNEL(refract_at_surface, size_t n, int32_t surface, float c, float mu,
           const float *DUO_RESTRICT x, const float *DUO_RESTRICT y,
           const float *DUO_RESTRICT z, float *DUO_RESTRICT k,
           float *DUO_RESTRICT l, float *DUO_RESTRICT m,
           int32_t *DUO_RESTRICT status, uint64_t *DUO_RESTRICT lost)
{
    DUO_FOR(i, n) {
        if (status[i] == LENS_REACHED) {
            const float nx = -c * x[i], ny = -c * y[i];
            const float nz = fmaf(-c, z[i], 1.0f);
            const float ki = k[i], li = l[i], mi = m[i];
            const float cosi = fmaf(ki, nx, fmaf(li, ny, mi * nz));
            const float root = fmaf(-(mu * mu), fmaf(-cosi, cosi, 1.0f), 1.0f);
            if (root >= 0.0f) {
                const float g = fmaf(-mu, cosi, sqrtf(root));
                k[i] = fmaf(mu, ki, g * nx);
                l[i] = fmaf(mu, li, g * ny);
                m[i] = fmaf(mu, mi, g * nz);
            } else {
                status[i] = surface + 1;
                duo_atomic_add_u64(&lost[surface], 1);
            }
        }
    }
}

/* From the last vertex's frame to the image plane `distance` beyond it.
 * A ray travelling backwards (m <= 0) never gets there: lost, counted in
 * the last tally.  Lost rays' image coordinates are 0, so plain sums of
 * image_x and image_y are sums over the rays that arrived. */
DUO_KERNEL(transfer_to_image, size_t n, float distance,
           const float *DUO_RESTRICT x, const float *DUO_RESTRICT y,
           const float *DUO_RESTRICT z, const float *DUO_RESTRICT k,
           const float *DUO_RESTRICT l, const float *DUO_RESTRICT m,
           int32_t *DUO_RESTRICT status, uint64_t *DUO_RESTRICT lost,
           float *DUO_RESTRICT image_x, float *DUO_RESTRICT image_y)
{
    DUO_FOR(i, n) {
        float ix = 0.0f, iy = 0.0f;
        if (status[i] == LENS_REACHED) {
            if (m[i] > 0.0f) {
                const float s = (distance - z[i]) / m[i];
                ix = fmaf(s, k[i], x[i]);
                iy = fmaf(s, l[i], y[i]);
            } else {
                status[i] = LENS_TALLIES;
                duo_atomic_add_u64(&lost[LENS_SURFACES], 1);
            }
        }
        image_x[i] = ix;
        image_y[i] = iy;
    }
}

/* One thread: the centroid from the sums (moments[SUM_X], [SUM_Y], left
 * by duo_reduce_async) and the rays that arrived, rounded to float and
 * kept in moments[CENTROID_X], [CENTROID_Y] (as doubles, exactly) for
 * the spot reductions. */
DUO_KERNEL(spot_centroid, size_t one, size_t n,
           const uint64_t *DUO_RESTRICT lost, double *DUO_RESTRICT moments)
{
    DUO_FOR(t, one) {
        uint64_t gone = 0;
        for (int s = 0; s < LENS_TALLIES; ++s)
            gone += lost[s];
        const double live = (double)(n - gone);
        float cx = 0.0f, cy = 0.0f;
        if (gone < n) {
            cx = (float)(moments[SUM_X] / live);
            cy = (float)(moments[SUM_Y] / live);
        }
        moments[CENTROID_X] = cx;
        moments[CENTROID_Y] = cy;
    }
}

/* The spot reductions: the squared distance of each arrived ray from the
 * centroid, 0 for lost rays. */
typedef struct spot_args {
    const float *x, *y;
    const int32_t *status;
    const double *moments;
} spot_args;

DUO_DEVICE float spot_r2(size_t i, spot_args a)
{
    if (a.status[i] != LENS_REACHED)
        return 0.0f;
    const float dx = a.x[i] - (float)a.moments[CENTROID_X];
    const float dy = a.y[i] - (float)a.moments[CENTROID_Y];
    return fmaf(dx, dx, dy * dy);
}

DUO_DEVICE double spot_r2_term(size_t i, spot_args a)
{
    return (double)spot_r2(i, a);
}

DUO_REDUCE_DEFINE(spot_r2_sum, double, DUO_SUM, spot_r2_term, spot_args)
DUO_REDUCE_DEFINE(spot_r2_max, float, DUO_MAX, spot_r2, spot_args)

/* ------------------------------------------------------------------ */
/* One merit evaluation                                                */

typedef struct lens_run {
    size_t n;
    float *px, *py;               /* device: the pupil sample           */
    float *x, *y, *z, *k, *l, *m; /* device: positions, directions      */
    int32_t *status;              /* device: where each ray ended       */
    float *image_x, *image_y;     /* device: at the image plane         */
    uint64_t *lost;               /* device: LENS_TALLIES counters      */
    double *moments;              /* device: MOMENTS values             */
    float curvature[LENS_SURFACES]; /* the design to evaluate           */
    lens_merit merit;               /* its merit                        */
} lens_run;

/* Trace r->curvature and fill r->merit (an app_run_fn). */
static void evaluate(void *ctx)
{
    lens_run *r = (lens_run *)ctx;
    const size_t n = r->n;
    DUO_CHECK(DUO_LAUNCH(clear_tallies, LENS_TALLIES, LENS_TALLIES,
                         r->lost));
    DUO_CHECK(DUO_LAUNCH(start_rays, n, n, r->px, r->py, r->x, r->y, r->z,
                         r->k, r->l, r->m, r->status));
    float index = LENS_INDEX_BEFORE;
    for (int s = 0; s < LENS_SURFACES; ++s) {
        const lens_surface *surf = &LENS_PRESCRIPTION[s];
        const float c = r->curvature[s];
        const float sd2 = surf->semi_diameter * surf->semi_diameter;
        const float mu = index / surf->index;
        DUO_CHECK(DUO_LAUNCH(transfer_to_surface, n, n, (int32_t)s, c,
                             surf->thickness, sd2, r->x, r->y, r->z, r->k,
                             r->l, r->m, r->status, r->lost));
        DUO_CHECK(DUO_LAUNCH(refract_at_surface, n, n, (int32_t)s, c, mu,
                             r->x, r->y, r->z, r->k, r->l, r->m, r->status,
                             r->lost));
        index = surf->index;
    }
    DUO_CHECK(DUO_LAUNCH(transfer_to_image, n, n, LENS_IMAGE_DISTANCE, r->x,
                         r->y, r->z, r->k, r->l, r->m, r->status, r->lost,
                         r->image_x, r->image_y));
    DUO_CHECK(duo_reduce_async(DUO_SUM, DUO_F32, r->image_x, n,
                               &r->moments[SUM_X], NULL));
    DUO_CHECK(duo_reduce_async(DUO_SUM, DUO_F32, r->image_y, n,
                               &r->moments[SUM_Y], NULL));
    DUO_CHECK(DUO_LAUNCH(spot_centroid, 1, 1, n, r->lost, r->moments));

    lens_merit *mr = &r->merit;
    spot_args a;
    a.x = r->image_x;
    a.y = r->image_y;
    a.status = r->status;
    a.moments = r->moments;
    DUO_CHECK(spot_r2_sum(n, a, &mr->sum_r2));
    DUO_CHECK(spot_r2_max(n, a, &mr->max_r2));
    double moments[MOMENTS];
    DUO_CHECK(duo_memcpy(moments, r->moments, sizeof moments,
                         DUO_DEVICE_TO_HOST));
    DUO_CHECK(duo_memcpy(mr->lost, r->lost, sizeof mr->lost,
                         DUO_DEVICE_TO_HOST));
    mr->sum_x = moments[SUM_X];
    mr->sum_y = moments[SUM_Y];
    mr->cx = (float)moments[CENTROID_X];
    mr->cy = (float)moments[CENTROID_Y];
    mr->vignetted = 0;
    for (int s = 0; s < LENS_TALLIES; ++s)
        mr->vignetted += mr->lost[s];
    mr->live = n - mr->vignetted;
    mr->rms = mr->live ? sqrt(mr->sum_r2 / (double)mr->live) : INFINITY;
}

/* ------------------------------------------------------------------ */
/* The optimizer                                                       */

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct lens_optimizer {
    duo_timer timer;
    double *eval_ms;     /* the time of each evaluation */
    size_t evals;
    double *history;     /* the merit at the start and after each sweep */
} lens_optimizer;

/* evaluate(), timed. */
static void timed_evaluate(lens_run *r, lens_optimizer *o)
{
    DUO_CHECK(duo_timer_start(o->timer, NULL));
    evaluate(r);
    DUO_CHECK(duo_timer_stop(o->timer, NULL));
    DUO_CHECK(duo_timer_elapsed_ms(o->timer, &o->eval_ms[o->evals++]));
}

/* Coordinate descent (top of the file) from r->curvature; leaves the
 * best design in r->curvature and its merit in r->merit. */
static void optimize(lens_run *r, uint64_t sweeps, lens_optimizer *o)
{
    const double t0 = seconds_now();
    timed_evaluate(r, o);
    lens_merit best = r->merit;
    const uint64_t lost_limit = best.vignetted;
    float design[LENS_SURFACES];
    memcpy(design, r->curvature, sizeof design);
    float step = START_STEP;
    o->history[0] = best.rms;
    for (uint64_t sweep = 0; sweep < sweeps; ++sweep) {
        int kept = 0;
        for (int s = 0; s < LENS_SURFACES; ++s) {
            int better = 0;
            float better_c = 0.0f;
            for (int sign = 1; sign >= -1; sign -= 2) {
                memcpy(r->curvature, design, sizeof design);
                r->curvature[s] = design[s] + (float)sign * step;
                timed_evaluate(r, o);
                if (r->merit.vignetted <= lost_limit &&
                    r->merit.rms < best.rms) {
                    best = r->merit;
                    better = 1;
                    better_c = r->curvature[s];
                }
            }
            if (better) {
                design[s] = better_c;
                kept = 1;
            }
        }
        if (!kept)
            step *= 0.5f;
        o->history[sweep + 1] = best.rms;
        const double elapsed = seconds_now() - t0;
        if (elapsed > 1.0) {
            fprintf(stderr, "%s: sweep %llu/%llu: merit %.9g mm, step "
                    "%.3g /mm, %zu evaluations, %.1f s\n", PROG,
                    (unsigned long long)(sweep + 1),
                    (unsigned long long)sweeps, best.rms, (double)step,
                    o->evals, elapsed);
            fflush(stderr);
        }
    }
    memcpy(r->curvature, design, sizeof design);
    r->merit = best;
}

static int compare_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t count)
{
    qsort(v, count, sizeof *v, compare_double);
    return count % 2 ? v[count / 2]
                     : 0.5 * (v[count / 2 - 1] + v[count / 2]);
}

/* ------------------------------------------------------------------ */
/* Output                                                              */

static void print_design(const char *what, const float *c,
                         const lens_merit *m, size_t n)
{
    printf("%s: %s: radii", PROG, what);
    for (int s = 0; s < LENS_SURFACES; ++s)
        printf(" %.4f", 1.0 / (double)c[s]);
    printf(" mm; RMS spot radius %.6g mm, geometric %.6g mm; %llu of %zu "
           "rays vignetted\n", m->rms, sqrt((double)m->max_r2),
           (unsigned long long)m->vignetted, n);
}

static int write_dump(const char *path, int argc, char **argv,
                      const lens_run *r, const lens_merit *m,
                      const double *history, size_t nhistory,
                      const float *image_x, const float *image_y,
                      const int32_t *status)
{
    dump_writer *d = dump_open(path, PROG, argc, argv);
    const size_t one[1] = {1}, two[1] = {2}, three[1] = {3};
    const size_t surfaces[1] = {LENS_SURFACES}, tallies[1] = {LENS_TALLIES};
    const size_t steps[1] = {nhistory}, rays[1] = {r->n};
    const float centroid[2] = {m->cx, m->cy};
    const double sums[3] = {m->sum_x, m->sum_y, m->sum_r2};
    dump_array(d, "curvatures", DUO_F32, 1, surfaces, r->curvature);
    dump_array(d, "merit_history", DUO_F64, 1, steps, history);
    dump_array(d, "merit", DUO_F64, 1, one, &m->rms);
    dump_array(d, "centroid", DUO_F32, 1, two, centroid);
    dump_array(d, "sums", DUO_F64, 1, three, sums);
    dump_array(d, "max_r2", DUO_F32, 1, one, &m->max_r2);
    dump_array(d, "lost", DUO_U64, 1, tallies, m->lost);
    dump_array(d, "vignetted", DUO_U64, 1, one, &m->vignetted);
    dump_array(d, "image_x", DUO_F32, 1, rays, image_x);
    dump_array(d, "image_y", DUO_F32, 1, rays, image_y);
    dump_array(d, "status", DUO_I32, 1, rays, status);
    return dump_close(d) != 0;
}

/* ------------------------------------------------------------------ */

static void *device_alloc(size_t bytes)
{
    void *p = NULL;
    DUO_CHECK(duo_malloc(&p, bytes));
    return p;
}

int main(int argc, char **argv)
{
    static const char *const size_names[] = {"N"};
    const char *png_path = NULL;
    uint64_t iters = DEFAULT_ITERS;
    app_option options[2];
    options[0].name = "--iters";
    options[0].kind = APP_OPT_COUNT;
    options[0].value = &iters;
    options[0].choices = NULL;
    options[1].name = "--png";
    options[1].kind = APP_OPT_STRING;
    options[1].value = (void *)&png_path;
    options[1].choices = NULL;
    app_args args;
    app_parse(argc, argv, PROG, USAGE, 1, size_names, options, 2, &args);
    const size_t n = args.nsizes ? args.sizes[0] : DEFAULT_N;
    if (iters > MAX_ITERS)
        app_usage_error(PROG, USAGE, "--iters %llu: expected 0 to %d sweeps",
                        (unsigned long long)iters, MAX_ITERS);
    if (png_path != NULL && !lens_png_available())
        app_usage_error(PROG, USAGE, "--png %s: %s", png_path,
                        lens_png_missing_message());
    const size_t fbytes = app_bytes(PROG, "N", n, sizeof(float));
    const size_t sbytes = app_bytes(PROG, "N", n, sizeof(int32_t));

    app_init(PROG);

    lens_run run;
    memset(&run, 0, sizeof run);
    run.n = n;
    float **arrays[] = {&run.px, &run.py, &run.x, &run.y, &run.z,
                        &run.k, &run.l, &run.m, &run.image_x,
                        &run.image_y};
    for (size_t a = 0; a < sizeof arrays / sizeof arrays[0]; ++a)
        *arrays[a] = (float *)device_alloc(fbytes);
    run.status = (int32_t *)device_alloc(sbytes);
    run.lost = (uint64_t *)device_alloc(LENS_TALLIES * sizeof(uint64_t));
    run.moments = (double *)device_alloc(MOMENTS * sizeof(double));
    for (int s = 0; s < LENS_SURFACES; ++s)
        run.curvature[s] = LENS_PRESCRIPTION[s].curvature;
    DUO_CHECK(DUO_LAUNCH(sample_pupil, n, n, run.px, run.py));

    lens_optimizer opt;
    memset(&opt, 0, sizeof opt);
    DUO_CHECK(duo_timer_create(&opt.timer));
    const size_t nevals = 1 + EVALS_PER_SWEEP * (size_t)iters;
    opt.eval_ms = (double *)app_host_alloc(PROG, nevals * sizeof(double));
    opt.history = (double *)app_host_alloc(
        PROG, (1 + (size_t)iters) * sizeof(double));

    /* The start, then the optimizer (whose first evaluation is the
     * start's again: the first evaluation warms up). */
    evaluate(&run);
    const lens_merit start = run.merit;
    print_design("start", run.curvature, &start, n);
    optimize(&run, iters, &opt);
    const lens_merit kept = run.merit;
    const double eval_median = median(opt.eval_ms, opt.evals);
    printf("%s: optimizer: %llu sweeps, %zu merit evaluations, median "
           "%.5g ms each; merit %.9g -> %.9g mm\n", PROG,
           (unsigned long long)iters, opt.evals, eval_median, start.rms,
           run.merit.rms);
    print_design("final", run.curvature, &run.merit, n);
    fflush(stdout);

    /* The final design once more (its merit, bit for bit the one the
     * optimizer kept), then timed. */
    evaluate(&run);
    float *image_x = NULL, *image_y = NULL;
    int32_t *status = NULL;
    if (args.check || args.dump_path != NULL || png_path != NULL) {
        image_x = (float *)app_host_alloc(PROG, fbytes);
        image_y = (float *)app_host_alloc(PROG, fbytes);
        status = (int32_t *)app_host_alloc(PROG, sbytes);
        DUO_CHECK(duo_memcpy(image_x, run.image_x, fbytes,
                             DUO_DEVICE_TO_HOST));
        DUO_CHECK(duo_memcpy(image_y, run.image_y, fbytes,
                             DUO_DEVICE_TO_HOST));
        DUO_CHECK(duo_memcpy(status, run.status, sbytes,
                             DUO_DEVICE_TO_HOST));
    }
    const lens_merit final_merit = run.merit;
    const double ms = app_time_median_ms(evaluate, &run, args.reps);

    char size[32], extra[256];
    snprintf(size, sizeof size, "%zu", n);
    snprintf(extra, sizeof extra,
             "iters=%llu evals=%zu merit_start=%.9g merit=%.9g "
             "vignetted=%llu", (unsigned long long)iters, opt.evals,
             start.rms, final_merit.rms,
             (unsigned long long)final_merit.vignetted);
    /* amount / (ms * 1e6) per second; times 1e3 for millions. */
    app_print_result(PROG, size, extra, args.reps, ms, "Mray/s",
                     1e3 * (double)n);

    int failed = 0;
    if (args.check) {
        /* The optimizer's and the last timed evaluation of the final
         * design, which must equal this one. */
        const lens_merit again[2] = {kept, run.merit};
        failed = lens_check(n, run.curvature, &final_merit, again, 2,
                            image_x, image_y, status);
    }
    if (png_path != NULL &&
        lens_write_png(png_path, n, image_x, image_y, status, &final_merit,
                       PROG) != 0)
        failed = 1;
    if (args.dump_path != NULL &&
        write_dump(args.dump_path, argc, argv, &run, &final_merit,
                   opt.history, 1 + (size_t)iters, image_x, image_y,
                   status) != 0)
        failed = 1;

    for (size_t a = 0; a < sizeof arrays / sizeof arrays[0]; ++a)
        DUO_CHECK(duo_free(*arrays[a]));
    DUO_CHECK(duo_free(run.status));
    DUO_CHECK(duo_free(run.lost));
    DUO_CHECK(duo_free(run.moments));
    DUO_CHECK(duo_timer_destroy(opt.timer));
    free(opt.eval_ms);
    free(opt.history);
    free(image_x);
    free(image_y);
    free(status);
    DUO_CHECK(duo_finalize());
    return failed;
}
