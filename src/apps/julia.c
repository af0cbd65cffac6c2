/*
 * julia.c - duo-julia: the Julia set of z -> z^2 + c over a W x H grid of
 * points, one kernel over a 2-D index space (DUO_FOR_2D, launched with
 * DUO_LAUNCH_2D).  Each point gets the number of iterations before
 * |z|^2 > 4 (int32), MAXITER if it never escapes.  Reports the median
 * time of R runs and the rate in iterations per second.
 *
 *   build/<backend>/bin/duo-julia [W [H [MAXITER]]] [--cre X] [--cim Y]
 *       [--reps R] [--seed S] [--check] [--png FILE] [--dump FILE]
 *
 * The view: square pixels, the imaginary axis from -1.2 (bottom row) to
 * 1.2 (top row), centred on 0; pixel (i, j) (row i from the top, column j)
 * is its centre, x = x_min + (j + 1/2) step, y = y_max - (i + 1/2) step.
 *
 * Exactness.  The counts are integers, and they are identical on every
 * backend and equal to the host reference, bit for bit -- --check demands
 * exact equality.  That needs every floating-point operation to be
 * defined by IEEE 754 alone, with no choice left to the compiler:
 *  - The one such choice is contraction: nvcc fuses a*b + c into one
 *    fused multiply-add (one rounding instead of two) by default, even
 *    across statements; a C compiler may too (GCC does in GNU C and C++
 *    modes, not in ISO C; with -march=native the hardware has FMA).  A
 *    point near the boundary of the set is chaotic: one different
 *    rounding and its count differs.  So the iteration is written with
 *    explicit fma() wherever a product meets a sum, and nowhere else does
 *    a rounded product feed an addition:
 *        x' = fma(x, x, fma(-y, y, cr))        x^2 - y^2 + cr
 *        y' = fma(x + x, y, ci)                2xy + ci  (x + x is exact)
 *        escape when fma(x, x, y * y) > 4      (y * y feeds an fma, not
 *                                               an addition: no fusing)
 *    and the pixel coordinates likewise are fma(step, j + 0.5, x_min).
 *    fma() is correctly rounded on every backend (the CUDA DFMA
 *    instruction, glibc's fma() in hardware or software), so each value
 *    is the one IEEE result.  Nothing else is left: no reassociation
 *    (neither compiler does it without fast-math flags), no excess
 *    precision (SSE2 on x86-64, IEEE double on the GPU).
 *  - Double rather than float: the fma discipline would make float exact
 *    too, but double is never flushed to zero on the GPU (nvcc's -ftz
 *    and --use_fast_math flush only single precision subnormals), so a
 *    build with such flags still agrees with the CPU; and the picture is
 *    a finer approximation of the true set.
 *
 * --check compares the warm-up run's counts with a host loop written
 * independently in plain C with the same arithmetic: every count must be
 * equal.  --png FILE writes an image (libpng); --dump FILE writes the
 * counts ("counts", i32, H x W) for duo-compare.  The inputs do not
 * depend on --seed (accepted for uniformity with the other apps).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <duo.h>

#include "app_common.h"
#include "dump.h"
#include "julia_png.h"

static const char *const PROG = "duo-julia";
static const char *const USAGE =
    "usage: duo-julia [W [H [MAXITER]]] [--cre X] [--cim Y] [--reps R]\n"
    "                 [--seed S] [--check] [--png FILE] [--dump FILE]\n"
    "                 [--help]\n"
    "  Iteration counts of the Julia set of z^2 + c on a W x H grid\n"
    "  (default 1024 x 768, MAXITER 256; H defaults to 3W/4 when only W is\n"
    "  given), imaginary axis from -1.2 to 1.2, square pixels.\n"
    "  W, H       grid columns and rows, positive integers\n"
    "  MAXITER    iterations at most, 1 to 2147483647\n"
    "  --cre X    real part of c (default -0.8)\n"
    "  --cim Y    imaginary part of c (default 0.156)\n"
    "  --reps R   timed runs after one warm-up run (default 5); the median\n"
    "             is reported\n"
    "  --seed S   accepted for uniformity; the grid does not depend on it\n"
    "  --check    compare the warm-up run with a host reference (exact\n"
    "             equality of every count); exit 1 on a mismatch\n"
    "  --png FILE write the image to FILE (PNG, needs libpng)\n"
    "  --dump FILE  write the counts (\"counts\", i32, H x W) to FILE\n";

#define DEFAULT_W 1024
#define DEFAULT_H 768
#define DEFAULT_MAXITER 256
#define HALF_HEIGHT 1.2

/* Everything a point needs besides its indices. */
typedef struct julia_params {
    double x_min;  /* left edge of the view */
    double y_max;  /* top edge */
    double step;   /* pixel size */
    double cr, ci; /* c */
    int32_t max_iter;
} julia_params;

/* Iterations of z -> z^2 + c from z = (x, y) before |z|^2 > 4, at most
 * max_iter.  Every operation is exact or one correctly rounded fma (see
 * the top of the file). */
DUO_DEVICE int32_t julia_iterations(double x, double y, double cr,
                                    double ci, int32_t max_iter)
{
    int32_t k = 0;
    while (k < max_iter) {
        const double y2 = y * y;
        if (fma(x, x, y2) > 4.0)
            break;
        const double xn = fma(x, x, fma(-y, y, cr));
        y = fma(x + x, y, ci);
        x = xn;
        ++k;
    }
    return k;
}

DUO_KERNEL(julia_kernel, size_t h, size_t w, julia_params p,
           int32_t *DUO_RESTRICT counts)
{
    DUO_FOR_2D(i, j, h, w) {
        const double x = fma(p.step, (double)j + 0.5, p.x_min);
        const double y = fma(-p.step, (double)i + 0.5, p.y_max);
        counts[i * w + j] = julia_iterations(x, y, p.cr, p.ci, p.max_iter);
    }
}

typedef struct julia_run {
    size_t w, h;
    julia_params p;
    int32_t *counts; /* device */
} julia_run;

static void run_julia(void *ctx)
{
    const julia_run *r = (const julia_run *)ctx;
    DUO_CHECK(DUO_LAUNCH_2D(julia_kernel, r->h, r->w, r->h, r->w, r->p,
                            r->counts));
}

/* The host reference: the same arithmetic as the kernel, restated. */
static int32_t host_count(size_t i, size_t j, const julia_params *p)
{
    double x = fma(p->step, (double)j + 0.5, p->x_min);
    double y = fma(-p->step, (double)i + 0.5, p->y_max);
    int32_t k = 0;
    for (; k < p->max_iter; ++k) {
        const double yy = y * y;
        const double r2 = fma(x, x, yy);
        if (r2 > 4.0)
            break;
        const double re = fma(x, x, fma(-y, y, p->cr));
        const double im = fma(2.0 * x, y, p->ci);
        x = re;
        y = im;
    }
    return k;
}

static int check_julia(size_t w, size_t h, const julia_params *p,
                       const int32_t *got)
{
    size_t bad = 0, first_i = 0, first_j = 0;
    int32_t want_first = 0;
    for (size_t i = 0; i < h; ++i)
        for (size_t j = 0; j < w; ++j) {
            const int32_t want = host_count(i, j, p);
            if (got[i * w + j] != want && bad++ == 0) {
                first_i = i;
                first_j = j;
                want_first = want;
            }
        }
    char detail[256] = "";
    if (bad)
        snprintf(detail, sizeof detail,
                 "row %zu column %zu: count %ld, expected %ld (z0 = %.17g "
                 "%+.17gi)", first_i, first_j,
                 (long)got[first_i * w + first_j], (long)want_first,
                 fma(p->step, (double)first_j + 0.5, p->x_min),
                 fma(-p->step, (double)first_i + 0.5, p->y_max));
    return app_report_check(bad, w * h, "counts", detail);
}

int main(int argc, char **argv)
{
    static const char *const size_names[] = {"W", "H", "MAXITER"};
    const char *png_path = NULL;
    double cr = -0.8, ci = 0.156;
    app_option options[3];
    options[0].name = "--cre";
    options[0].kind = APP_OPT_REAL;
    options[0].value = &cr;
    options[0].choices = NULL;
    options[1].name = "--cim";
    options[1].kind = APP_OPT_REAL;
    options[1].value = &ci;
    options[1].choices = NULL;
    options[2].name = "--png";
    options[2].kind = APP_OPT_STRING;
    options[2].value = (void *)&png_path;
    options[2].choices = NULL;
    app_args args;
    app_parse(argc, argv, PROG, USAGE, 3, size_names, options, 3, &args);
    const char *dump_path = args.dump_path;

    const size_t w = args.nsizes > 0 ? args.sizes[0] : DEFAULT_W;
    size_t h = DEFAULT_H;
    if (args.nsizes > 1)
        h = args.sizes[1];
    else if (args.nsizes == 1) /* 3W/4 rounded down, at least 1 */
        h = w / 4 * 3 + (w % 4) * 3 / 4 + (w < 2);
    const size_t max_iter = args.nsizes > 2 ? args.sizes[2]
                                            : DEFAULT_MAXITER;
    if (max_iter > (size_t)INT32_MAX)
        app_usage_error(PROG, USAGE, "size MAXITER = %zu: at most "
                        "2147483647 (counts are int32)", max_iter);
    if (png_path != NULL && !julia_png_available())
        app_usage_error(PROG, USAGE, "--png %s: %s", png_path,
                        julia_png_missing_message());
    const size_t npoints = app_count(PROG, "W x H", h, w);
    const size_t bytes = app_bytes(PROG, "W x H", npoints, sizeof(int32_t));

    app_init(PROG);

    julia_run run;
    run.w = w;
    run.h = h;
    run.p.step = 2.0 * HALF_HEIGHT / (double)h;
    run.p.x_min = -0.5 * (double)w * run.p.step;
    run.p.y_max = HALF_HEIGHT;
    run.p.cr = cr;
    run.p.ci = ci;
    run.p.max_iter = (int32_t)max_iter;
    run.counts = NULL;
    DUO_CHECK(duo_malloc((void **)&run.counts, bytes));

    /* Warm-up, which is also the checked, dumped and drawn run: the
     * device array starts as -1 in every element (all bytes 0xff), which
     * no count is. */
    DUO_CHECK(duo_memset(run.counts, 0xff, bytes));
    run_julia(&run);
    int32_t *counts = (int32_t *)app_host_alloc(PROG, bytes);
    DUO_CHECK(duo_memcpy(counts, run.counts, bytes, DUO_DEVICE_TO_HOST));
    int64_t total_iters = 0;
    DUO_CHECK(duo_reduce(DUO_SUM, DUO_I32, run.counts, npoints,
                         &total_iters));

    const double ms = app_time_median_ms(run_julia, &run, args.reps);
    char size[64], extra[128];
    snprintf(size, sizeof size, "%zux%zu", w, h);
    snprintf(extra, sizeof extra, "max_iter=%zu c=%.9g%+.9gi iters=%lld",
             max_iter, cr, ci, (long long)total_iters);
    app_print_result(PROG, size, extra, args.reps, ms, "Giter/s",
                     (double)total_iters);

    int failed = 0;
    if (args.check)
        failed = check_julia(w, h, &run.p, counts);

    if (png_path != NULL &&
        julia_write_png(png_path, w, h, counts, run.p.max_iter, PROG) != 0)
        failed = 1;
    if (dump_path != NULL) {
        /* rest: the arguments without --dump and --png, so that runs
         * that differ only in where they write compare equal. */
        dump_writer *d = dump_open(dump_path, PROG, argc, argv);
        const size_t dims[2] = {h, w};
        dump_array(d, "counts", DUO_I32, 2, dims, counts);
        if (dump_close(d) != 0)
            failed = 1;
    }

    DUO_CHECK(duo_free(run.counts));
    free(counts);
    DUO_CHECK(duo_finalize());
    return failed;
}
