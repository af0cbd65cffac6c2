/*
 * saxpy.c - duo-saxpy: y = a * x + y on N floats with one DUO_KERNEL,
 * launched by DUO_LAUNCH and timed on the device.  Reports the median
 * time of R runs and GB/s at 12 bytes per element (read x and y, write y).
 *
 *   build/<backend>/bin/duo-saxpy [N] [--reps R] [--seed S] [--check]
 *                                 [--dump FILE]
 *
 * The kernel computes fmaf(a, x, y): one rounding, on every backend.
 * Written as a * x + y, nvcc would fuse it and a strict C compiler would
 * not, and the backends would differ in the last bit wherever a * x and y
 * nearly cancel.  --check compares the first (warm-up) run, made on fresh
 * inputs, with fmaf on the host, bit for bit.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <duo.h>

#include "app_common.h"
#include "dump.h"

static const char *const PROG = "duo-saxpy";
static const char *const USAGE =
    "usage: duo-saxpy [N] [--reps R] [--seed S] [--check] [--dump FILE]\n"
    "                 [--help]\n"
    "  y = a * x + y on N floats (default N = 16777216 = 2^24).\n"
    "  N          elements, a positive integer\n"
    "  --reps R   timed runs after one warm-up run (default 5); the median\n"
    "             is reported\n"
    "  --seed S   seed of the random inputs (default 1)\n"
    "  --dump FILE  write y after the warm-up run (\"y\", f32) to FILE\n"
    "  --check    compare the warm-up run with a host reference; exit 1 on\n"
    "             a mismatch\n";

#define DEFAULT_N ((size_t)1 << 24)

DUO_KERNEL(saxpy_kernel, size_t n, float a, const float *DUO_RESTRICT x,
           float *DUO_RESTRICT y)
{
    DUO_FOR(i, n)
        y[i] = fmaf(a, x[i], y[i]);
}

typedef struct saxpy_run {
    size_t n;
    float a;
    const float *x; /* device */
    float *y;       /* device */
} saxpy_run;

static void run_saxpy(void *ctx)
{
    const saxpy_run *r = (const saxpy_run *)ctx;
    DUO_CHECK(DUO_LAUNCH(saxpy_kernel, r->n, r->n, r->a, r->x, r->y));
}

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Elements of out that differ from fmaf(a, x, y) in any bit. */
static int check_saxpy(size_t n, float a, const float *x, const float *y0,
                       const float *out)
{
    size_t bad = 0, first = 0;
    float want_first = 0.0f;
    for (size_t i = 0; i < n; ++i) {
        const float fused = fmaf(a, x[i], y0[i]);
        if (float_bits(out[i]) != float_bits(fused)) {
            if (bad++ == 0) {
                first = i;
                want_first = fused;
            }
        }
    }
    char detail[256] = "";
    if (bad)
        snprintf(detail, sizeof detail,
                 "y[%zu] = %.9g, expected %.9g (a = %.9g, x = %.9g, y = %.9g)",
                 first, (double)out[first], (double)want_first, (double)a,
                 (double)x[first], (double)y0[first]);
    return app_report_check(bad, n, "elements", detail);
}

int main(int argc, char **argv)
{
    static const char *const size_names[] = {"N"};
    app_args args;
    app_parse(argc, argv, PROG, USAGE, 1, size_names, NULL, 0, &args);
    const char *dump_path = args.dump_path;
    const size_t n = args.nsizes ? args.sizes[0] : DEFAULT_N;
    const size_t bytes = app_bytes(PROG, "N", n, sizeof(float));

    app_init(PROG);

    /* Fresh inputs from the seed. */
    app_rng rng;
    app_rng_seed(&rng, args.seed);
    const float a = (float)(2.0 * app_rng_real(&rng));
    float *x = (float *)app_host_alloc(PROG, bytes);
    float *y0 = (float *)app_host_alloc(PROG, bytes);
    app_fill_f32(x, n, &rng);
    app_fill_f32(y0, n, &rng);

    float *dx = NULL, *dy = NULL;
    DUO_CHECK(duo_malloc((void **)&dx, bytes));
    DUO_CHECK(duo_malloc((void **)&dy, bytes));
    DUO_CHECK(duo_memcpy(dx, x, bytes, DUO_HOST_TO_DEVICE));
    DUO_CHECK(duo_memcpy(dy, y0, bytes, DUO_HOST_TO_DEVICE));

    saxpy_run run;
    run.n = n;
    run.a = a;
    run.x = dx;
    run.y = dy;

    /* Warm-up, which is also the checked run: y is read, so it holds the
     * inputs; the host copy of the result starts as NaN. */
    float *out = NULL;
    run_saxpy(&run);
    if (args.check || dump_path != NULL) {
        out = (float *)app_host_alloc(PROG, bytes);
        memset(out, 0xff, bytes);
        DUO_CHECK(duo_memcpy(out, dy, bytes, DUO_DEVICE_TO_HOST));
    }

    const double ms = app_time_median_ms(run_saxpy, &run, args.reps);
    char size[32];
    snprintf(size, sizeof size, "%zu", n);
    app_print_result(PROG, size, "type=f32", args.reps, ms, "GB/s",
                     12.0 * (double)n);

    int failed = 0;
    if (args.check)
        failed = check_saxpy(n, a, x, y0, out);
    if (dump_path != NULL) {
        dump_writer *d = dump_open(dump_path, PROG, argc, argv);
        const size_t dims[1] = {n};
        dump_array(d, "y", DUO_F32, 1, dims, out);
        if (dump_close(d) != 0)
            failed = 1;
    }

    DUO_CHECK(duo_free(dx));
    DUO_CHECK(duo_free(dy));
    free(out);
    free(x);
    free(y0);
    DUO_CHECK(duo_finalize());
    return failed;
}
