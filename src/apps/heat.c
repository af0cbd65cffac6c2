/*
 * heat.c - duo-heat: 2-D heat diffusion on a W x H grid of doubles with
 * the explicit 5-point Jacobi stencil
 *
 *     u'[i][j] = u[i][j] + k (u[i-1][j] + u[i+1][j] + u[i][j-1]
 *                             + u[i][j+1] - 4 u[i][j])
 *
 * for S steps, double buffered: two device grids, each step reads one and
 * writes the other, then the pointers swap.  The outer ring of points is
 * the boundary and keeps its values (top row 1, left column 1/2, the rest
 * 0); the interior starts random in [0, 1) from --seed.  Reports the
 * median time of R runs of S steps and the rate in interior cell updates
 * per second.
 *
 *   build/<backend>/bin/duo-heat [W [H]] [--steps S] [--k K] [--reps R]
 *       [--seed S] [--check] [--dump FILE]
 *
 * Exactness: --check runs the same S steps on the host and demands that
 * every value be equal, bit for bit.  The expression is written so that
 * IEEE 754 alone fixes each result, with no choice left to a compiler:
 *  - The neighbour sum is (up + down) + (left + right): additions only, in
 *    an order the parentheses fix (neither nvcc nor a C compiler
 *    reassociates without fast-math flags).
 *  - u + k * (sum - 4u) holds two multiply-add patterns, which nvcc
 *    contracts into fused multiply-adds by default (one rounding instead
 *    of two) and a C compiler may or may not (GCC does in GNU C mode, not
 *    in ISO C mode).  The update is therefore written with explicit fused
 *    operations, identically in the kernel and the host reference:
 *        lap = fma(-4, u, sum);   u' = fma(k, lap, u)
 *    fma() is correctly rounded everywhere (the GPU's DFMA instruction,
 *    glibc's fma() in hardware or software), so each value is the single
 *    IEEE result.  (-4u is exact, so the first fma only documents the
 *    intent; the second is what makes the bits agree.)
 *  - Double precision is never flushed to zero on the GPU, and x86-64
 *    has no excess precision (SSE2), so nothing else differs.
 * Only the warm-up run starts from the initial grid and is checked (and
 * dumped); the timed runs continue the simulation, S more steps each.
 *
 * A run longer than a second prints its progress to stderr every 10% of
 * the steps (on the GPU, the steps the host has queued).  --dump FILE
 * writes the final grid of the warm-up run ("u", f64, H x W).
 *
 * Several ranks (a build with -DDUO_MPI=ON, under mpirun): the rows are
 * split among the ranks (duo/dist.h), each rank keeps its rows plus one
 * halo row above and below, and before each step the halos are refreshed
 * from the neighbours (duo_dist_halo_exchange_async: with NCCL the
 * exchange is queued on the stream between two steps' kernels, with no
 * host wait).  Every value is computed by the same expression from the
 * same neighbours as on one rank, so the grid is the same, bit for bit,
 * for any number of ranks and any backend; rank 0 gathers it for --check
 * and --dump.  More ranks than rows is refused.  Without MPI the same
 * code runs as rank 0 of 1.
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
#include <duo/dist.h>

#include "app_common.h"
#include "dump.h"

static const char *const PROG = "duo-heat";
static const char *const USAGE =
    "usage: duo-heat [W [H]] [--steps S] [--k K] [--reps R] [--seed S]\n"
    "                [--check] [--dump FILE] [--help]\n"
    "  2-D heat diffusion, 5-point Jacobi stencil, double precision, on a\n"
    "  W x H grid whose outer ring is a fixed boundary (default 512 x 512,\n"
    "  200 steps; H defaults to W when only W is given).\n"
    "  W, H       grid columns and rows (boundary included), positive\n"
    "             integers\n"
    "  --steps S  time steps per run, 0 or more (default 200)\n"
    "  --k K      diffusion number alpha dt / dx^2, 0 < K <= 0.25 (the\n"
    "             stability limit; default 0.2)\n"
    "  --reps R   timed runs after one warm-up run (default 5); the median\n"
    "             is reported\n"
    "  --seed S   seed of the random initial interior (default 1)\n"
    "  --check    compare the warm-up run with a host reference (bitwise\n"
    "             equality of every value); exit 1 on a mismatch\n"
    "  --dump FILE  write the final grid (\"u\", f64, H x W) to FILE\n";

#define DEFAULT_W 512
#define DEFAULT_STEPS 200
#define DEFAULT_K 0.2
#define MAX_STEPS 1000000000u

/* One step over the interior: rows 1..h-2, columns 1..w-2 (the index
 * space is (h - 2) x (w - 2), offset by one).  Boundary values are never
 * written: both grids hold them from the start. */
DUO_KERNEL(heat_step, size_t h, size_t w, double k,
           const double *DUO_RESTRICT in, double *DUO_RESTRICT out)
{
    DUO_FOR_2D(i, j, h - 2, w - 2) {
        const size_t c = (i + 1) * w + (j + 1);
        const double u = in[c];
        const double sum = (in[c - w] + in[c + w]) + (in[c - 1] + in[c + 1]);
        const double lap = fma(-4.0, u, sum);
        out[c] = fma(k, lap, u);
    }
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct heat_run {
    size_t w, h, steps;
    double k;
    duo_dist_rows rows; /* this rank's rows of the h x w grid           */
    double *cur, *next; /* device: (rows.count + 2) x w, halo row above
                           and below; the latest grid, and the other one */
    int run;            /* runs started so far (1 = the warm-up)      */
    int runs;           /* 1 + reps                                    */
} heat_run;

/* S steps; progress on stderr every 10% once the run has taken longer
 * than a second. */
static void run_heat(void *ctx)
{
    heat_run *r = (heat_run *)ctx;
    const double t0 = seconds_now();
    const int several = duo_dist_size() > 1;
    /* The global interior rows lo..hi-1 that this rank updates; its
     * storage row i is global row rows.begin - 1 + i.  The kernel's grid
     * starts one row above lo (h_local rows, the first and last read
     * only). */
    const size_t first = r->rows.begin, end = first + r->rows.count;
    const size_t lo = first > 1 ? first : 1;
    const size_t hi = end < r->h - 1 ? end : r->h - 1;
    const int interior = r->h >= 3 && r->w >= 3 && hi > lo;
    const size_t h_local = interior ? hi - lo + 2 : 0;
    const size_t offset = (lo - first) * r->w;
    if (several)
        DUO_DIST_CHECK(duo_dist_barrier());
    ++r->run;
    size_t done = 0;
    for (int tenth = 1; tenth <= 10; ++tenth) {
        /* tenth / 10 of the steps, exactly (all of them at tenth 10) */
        const size_t until = r->steps / 10 * (size_t)tenth +
                             r->steps % 10 * (size_t)tenth / 10;
        for (; done < until; ++done) {
            /* Queued behind the last step's kernel (no host wait on
             * the GPU with NCCL). */
            if (several)
                DUO_DIST_CHECK(duo_dist_halo_exchange_async(
                    DUO_F64, r->cur, &r->rows, NULL));
            if (interior)
                DUO_DIST_CHECK(DUO_LAUNCH_2D(heat_step, h_local - 2,
                                             r->w - 2, h_local, r->w, r->k,
                                             r->cur + offset,
                                             r->next + offset));
            double *t = r->cur;
            r->cur = r->next;
            r->next = t;
        }
        const double elapsed = seconds_now() - t0;
        if (elapsed > 1.0 && tenth < 10 && duo_dist_rank() == 0)
            fprintf(stderr, "%s: %s run %d of %d: step %zu of %zu (%d%%), "
                    "%.1f s\n", PROG, r->run == 1 ? "warm-up" : "timed",
                    r->run, r->runs, done, r->steps, 10 * tenth, elapsed);
    }
}

/* The initial grid: boundary values, random interior in [0, 1). */
static void initial_grid(double *u, size_t w, size_t h, uint64_t seed)
{
    app_rng rng;
    app_rng_seed(&rng, seed);
    for (size_t i = 0; i < h; ++i)
        for (size_t j = 0; j < w; ++j) {
            double v;
            if (i == 0)
                v = 1.0;
            else if (j == 0)
                v = 0.5;
            else if (i + 1 == h || j + 1 == w)
                v = 0.0;
            else
                v = 0.5 * (app_rng_real(&rng) + 1.0);
            u[i * w + j] = v;
        }
}

/* The host reference: the same update, restated, double buffered. */
static void host_heat(double *u, double *tmp, size_t w, size_t h,
                      size_t steps, double k)
{
    memcpy(tmp, u, w * h * sizeof(double)); /* the boundary, in both */
    double *a = u, *b = tmp;
    for (size_t s = 0; s < steps; ++s) {
        for (size_t i = 1; i + 1 < h; ++i)
            for (size_t j = 1; j + 1 < w; ++j) {
                const double *p = a + i * w + j;
                const double up_down = p[-(ptrdiff_t)w] + p[w];
                const double left_right = p[-1] + p[1];
                const double lap = fma(-4.0, *p, up_down + left_right);
                b[i * w + j] = fma(k, lap, *p);
            }
        double *t = a;
        a = b;
        b = t;
    }
    if (a != u)
        memcpy(u, a, w * h * sizeof(double));
}

static uint64_t bits_of(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static int check_heat(size_t w, size_t h, size_t steps, double k,
                      uint64_t seed, const double *got)
{
    const size_t n = w * h;
    double *want = (double *)app_host_alloc(PROG, n * sizeof(double));
    double *tmp = (double *)app_host_alloc(PROG, n * sizeof(double));
    initial_grid(want, w, h, seed);
    host_heat(want, tmp, w, h, steps, k);
    size_t bad = 0, first = 0;
    for (size_t c = 0; c < n; ++c)
        if (bits_of(got[c]) != bits_of(want[c]) && bad++ == 0)
            first = c;
    char detail[256] = "";
    if (bad)
        snprintf(detail, sizeof detail, "u[%zu][%zu] = %.17g (%a), "
                 "expected %.17g (%a)", first / w, first % w, got[first],
                 got[first], want[first], want[first]);
    free(want);
    free(tmp);
    return app_report_check(bad, n, "values", detail);
}

int main(int argc, char **argv)
{
    static const char *const size_names[] = {"W", "H"};
    uint64_t steps_arg = DEFAULT_STEPS;
    double k = DEFAULT_K;
    app_option options[2];
    options[0].name = "--k";
    options[0].kind = APP_OPT_REAL;
    options[0].value = &k;
    options[0].choices = NULL;
    options[1].name = "--steps";
    options[1].kind = APP_OPT_COUNT;
    options[1].value = &steps_arg;
    options[1].choices = NULL;
    app_args args;
    app_parse(argc, argv, PROG, USAGE, 2, size_names, options, 2, &args);
    const char *dump_path = args.dump_path;
    if (steps_arg > MAX_STEPS)
        app_usage_error(PROG, USAGE, "--steps %llu: too large; at most %u",
                        (unsigned long long)steps_arg, MAX_STEPS);
    const size_t steps = (size_t)steps_arg;
    if (!(k > 0.0 && k <= 0.25))
        app_usage_error(PROG, USAGE, "--k %g: expected 0 < K <= 0.25 (the "
                        "explicit scheme is unstable above 0.25)", k);
    const size_t w = args.nsizes > 0 ? args.sizes[0] : DEFAULT_W;
    const size_t h = args.nsizes > 1 ? args.sizes[1] : w;
    const size_t n = app_count(PROG, "W x H", h, w);
    const size_t bytes = app_bytes(PROG, "W x H", n, sizeof(double));

    duo_status st = duo_dist_init(&argc, &argv);
    if (st != DUO_SUCCESS) {
        fprintf(stderr, "%s: %s\n", PROG, duo_last_error());
        exit(st == DUO_ERROR_NO_DEVICE ? APP_EXIT_NO_DEVICE : 1);
    }
    const int rank = duo_dist_rank();
    if (rank == 0)
        app_say_path(PROG);

    heat_run run;
    if (duo_dist_rows_make(h, w, &run.rows) != DUO_SUCCESS) {
        /* Every rank decides the same (e.g. more ranks than rows). */
        if (rank == 0)
            fprintf(stderr, "%s: %s\n", PROG, duo_last_error());
        duo_dist_finalize();
        return 2;
    }
    double *u = (double *)app_host_alloc(PROG, bytes);
    initial_grid(u, w, h, args.seed);

    run.w = w;
    run.h = h;
    run.steps = steps;
    run.k = k;
    run.cur = run.next = NULL;
    run.run = 0;
    run.runs = 1 + (int)args.reps; /* reps <= 1000000 (app_parse) */
    /* This rank's rows and the rows next to them that exist. */
    const size_t local = (run.rows.count + 2) * w;
    const size_t above = run.rows.begin > 0 ? 1 : 0;
    const size_t below = run.rows.begin + run.rows.count < h ? 1 : 0;
    const size_t copy_rows = run.rows.count + above + below;
    double *src = u + (run.rows.begin - above) * w;
    DUO_DIST_CHECK(duo_malloc((void **)&run.cur, local * sizeof(double)));
    DUO_DIST_CHECK(duo_malloc((void **)&run.next, local * sizeof(double)));
    DUO_DIST_CHECK(duo_memset(run.cur, 0, local * sizeof(double)));
    DUO_DIST_CHECK(duo_memset(run.next, 0, local * sizeof(double)));
    DUO_DIST_CHECK(duo_memcpy(run.cur + (1 - above) * w, src,
                              copy_rows * w * sizeof(double),
                              DUO_HOST_TO_DEVICE));
    DUO_DIST_CHECK(duo_memcpy(run.next + (1 - above) * w, src,
                              copy_rows * w * sizeof(double),
                              DUO_HOST_TO_DEVICE));

    /* Warm-up, which is also the checked and dumped run. */
    run_heat(&run);
    memset(u, 0xff, bytes);
    const duo_dist_range mine = duo_dist_rows_range(&run.rows);
    DUO_DIST_CHECK(duo_dist_gather(DUO_F64, run.cur + w, &mine, u, 0));

    const double ms = app_time_median_ms(run_heat, &run, args.reps);
    const size_t updates = (h >= 3 && w >= 3) ? (h - 2) * (w - 2) : 0;
    char size[64], extra[96];
    snprintf(size, sizeof size, "%zux%zu", w, h);
    if (duo_dist_size() > 1)
        snprintf(extra, sizeof extra, "steps=%zu k=%g ranks=%d", steps, k,
                 duo_dist_size());
    else
        snprintf(extra, sizeof extra, "steps=%zu k=%g", steps, k);
    if (rank == 0)
        app_print_result(PROG, size, extra, args.reps, ms, "Gcell/s",
                         (double)updates * (double)steps);

    int failed = 0;
    if (args.check && rank == 0)
        failed = check_heat(w, h, steps, k, args.seed, u);

    if (dump_path != NULL && rank == 0) {
        dump_writer *d = dump_open(dump_path, PROG, argc, argv);
        const size_t dims[2] = {h, w};
        dump_array(d, "u", DUO_F64, 2, dims, u);
        if (dump_close(d) != 0)
            failed = 1;
    }

    DUO_DIST_CHECK(duo_free(run.cur));
    DUO_DIST_CHECK(duo_free(run.next));
    free(u);
    DUO_DIST_CHECK(duo_dist_finalize());
    return failed;
}
