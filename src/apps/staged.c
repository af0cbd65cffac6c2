/*
 * staged.c - duo-staged: process a host array that is copied to the
 * device in chunks, so that on a GPU the copy in (H2D), the kernel and
 * the copy out (D2H) of one chunk overlap those of the next ones.
 *
 *   unstaged  one duo_memcpy of all N inputs to the device, one kernel,
 *             one duo_memcpy of all N outputs back: the copy engines and
 *             the GPU take turns, each idle while another works;
 *   staged    chunk k (C elements; the last may be shorter) goes to
 *             stream k mod S: duo_memcpy_async H2D into that stream's
 *             device buffers, DUO_LAUNCH_ON(stream, ...), duo_memcpy_async
 *             D2H, all queued at once, then every stream is synchronized.
 *             Work on one stream runs in order (so a stream's buffers can
 *             be reused by its next chunk), work on different streams may
 *             overlap: the H2D of chunk k+1 with the kernel of chunk k and
 *             the D2H of chunk k-1.  The host arrays are pinned
 *             (duo_malloc_host), without which a GPU copy cannot run
 *             asynchronously.
 *
 * The kernel: y = f(x), f = ROUNDS times v -> fmaf(sqrtf(|v|), a, c), some
 * arithmetic per element.  On CPU backends work on a stream runs at once,
 * in order, so there is nothing to overlap and the gain is ~1x (chunks
 * that fit in cache can make staging a little faster there); the app
 * says so rather than pretending otherwise.
 *
 *   build/<backend>/bin/duo-staged [N] [--chunk C] [--streams S]
 *       [--reps R] [--seed S] [--check] [--dump FILE]
 *
 * Defaults: N = 8388608 (2^23 floats, 32 MiB each way; about 1 s for the
 * whole serial run), C = 524288 (16 chunks), S = 3 (so that a copy in, a kernel and a copy out can all be in flight).
 * Prints one result line per version (median of R runs, GB/s of host
 * data moved: 8 bytes per element, 4 in and 4 out) and the gain.
 *
 * Exactness: f is computed with sqrtf, fabsf and fmaf only, each correctly
 * rounded by IEEE 754 on the GPU (nvcc's default -prec-sqrt=true; the
 * multiply-add is fused explicitly, so contraction cannot differ) and in
 * C's libm, so --check requires every output of both versions to equal
 * the host's f(x) bit for bit.
 * --dump FILE writes the staged version's output ("y", f32, N).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <duo.h>

#include "app_common.h"
#include "dump.h"

static const char *const PROG = "duo-staged";
static const char *const USAGE =
    "usage: duo-staged [N] [--chunk C] [--streams S] [--reps R] [--seed S]\n"
    "                  [--check] [--dump FILE] [--help]\n"
    "  y = f(x) on N floats of pinned host memory, unstaged (copy all in,\n"
    "  one kernel, copy all out) and staged (chunks on S streams, so that\n"
    "  copies and kernels of different chunks overlap on a GPU).\n"
    "  N            elements (default 8388608 = 2^23)\n"
    "  --chunk C    elements per chunk (default 524288 = 2^19)\n"
    "  --streams S  streams, at least 1 (default 3)\n"
    "  --reps R     timed runs of each version after one warm-up run\n"
    "               (default 5); the median is reported\n"
    "  --seed S     seed of the random inputs (default 1)\n"
    "  --check      compare both versions' outputs with a host reference,\n"
    "               bit for bit; exit 1 on a mismatch\n"
    "  --dump FILE  write the staged output to FILE\n";

#define DEFAULT_N ((size_t)1 << 23)
#define DEFAULT_CHUNK ((size_t)1 << 19)
#define DEFAULT_STREAMS 3
#define MAX_STREAMS 64
#define ROUNDS 4
#define COEF_A 0.75f
#define COEF_C 0.125f

/* Correctly rounded operations only: the same bits everywhere. */
DUO_DEVICE float staged_f(float v, float a, float c)
{
    for (int r = 0; r < ROUNDS; ++r)
        v = fmaf(sqrtf(fabsf(v)), a, c);
    return v;
}

DUO_KERNEL(staged_kernel, size_t count, float a, float c,
           const float *DUO_RESTRICT x, float *DUO_RESTRICT y)
{
    DUO_FOR(i, count)
        y[i] = staged_f(x[i], a, c);
}

typedef struct staged_run {
    int staged;
    size_t n, chunk;
    int nstreams;
    const float *x;       /* pinned host input                          */
    float *y;             /* pinned host output                         */
    float *dx, *dy;       /* unstaged: N elements each                  */
    duo_stream streams[MAX_STREAMS];
    float *sx[MAX_STREAMS], *sy[MAX_STREAMS]; /* staged: C each, per stream */
} staged_run;

static void run_staged(void *ctx)
{
    const staged_run *r = (const staged_run *)ctx;
    if (!r->staged) {
        const size_t bytes = r->n * sizeof(float);
        DUO_CHECK(duo_memcpy(r->dx, r->x, bytes, DUO_HOST_TO_DEVICE));
        DUO_CHECK(DUO_LAUNCH(staged_kernel, r->n, r->n, COEF_A, COEF_C,
                             r->dx, r->dy));
        DUO_CHECK(duo_memcpy(r->y, r->dy, bytes, DUO_DEVICE_TO_HOST));
        return;
    }
    size_t k = 0;
    for (size_t off = 0; off < r->n; off += r->chunk, ++k) {
        const int s = (int)(k % (size_t)r->nstreams);
        const duo_stream st = r->streams[s];
        const size_t len = r->n - off < r->chunk ? r->n - off : r->chunk;
        const size_t bytes = len * sizeof(float);
        DUO_CHECK(duo_memcpy_async(r->sx[s], r->x + off, bytes,
                                   DUO_HOST_TO_DEVICE, st));
        DUO_CHECK(DUO_LAUNCH_ON(st, staged_kernel, len, len, COEF_A, COEF_C,
                                r->sx[s], r->sy[s]));
        DUO_CHECK(duo_memcpy_async(r->y + off, r->sy[s], bytes,
                                   DUO_DEVICE_TO_HOST, st));
    }
    for (int s = 0; s < r->nstreams; ++s)
        DUO_CHECK(duo_stream_synchronize(r->streams[s]));
}

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Mismatches of got against want, bit for bit. */
static size_t compare_out(const char *version, size_t n, const float *x,
                          const float *got, const float *want, char *detail,
                          size_t size)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i)
        if (float_bits(got[i]) != float_bits(want[i]) && bad++ == 0 &&
            detail != NULL)
            snprintf(detail, size, "%s: y[%zu] = %.9g, expected %.9g "
                     "(x = %.9g)", version, i, (double)got[i],
                     (double)want[i], (double)x[i]);
    return bad;
}

/* A positive integer option given as a real (app_parse has no integer
 * options), at most max. */
static size_t int_option(const char *name, double v, double max)
{
    if (!(v >= 1 && v <= max) || v != floor(v))
        app_usage_error(PROG, USAGE, "%s %g: expected an integer from 1 to "
                        "%.0f", name, v, max);
    return (size_t)v;
}

int main(int argc, char **argv)
{
    static const char *const size_names[] = {"N"};
    double chunk_arg = (double)DEFAULT_CHUNK, streams_arg = DEFAULT_STREAMS;
    app_option options[2];
    options[0].name = "--chunk";
    options[0].kind = APP_OPT_REAL;
    options[0].value = &chunk_arg;
    options[0].choices = NULL;
    options[1].name = "--streams";
    options[1].kind = APP_OPT_REAL;
    options[1].value = &streams_arg;
    options[1].choices = NULL;
    app_args args;
    app_parse(argc, argv, PROG, USAGE, 1, size_names, options, 2, &args);
    const char *dump_path = args.dump_path;
    const size_t n = args.nsizes ? args.sizes[0] : DEFAULT_N;
    const size_t chunk = int_option("--chunk", chunk_arg, 0x1p52);
    const int nstreams = (int)int_option("--streams", streams_arg,
                                         MAX_STREAMS);
    const size_t bytes = app_bytes(PROG, "N", n, sizeof(float));
    /* Device buffers of a staged run: no more than the data needs. */
    const size_t buf_elems = chunk < n ? chunk : n;
    const size_t buf_bytes = app_bytes(PROG, "--chunk", buf_elems,
                                       sizeof(float));

    app_init(PROG);

    staged_run run;
    memset(&run, 0, sizeof run);
    run.n = n;
    run.chunk = chunk;
    run.nstreams = nstreams;
    float *x = NULL, *y = NULL;
    DUO_CHECK(duo_malloc_host((void **)&x, bytes));
    DUO_CHECK(duo_malloc_host((void **)&y, bytes));
    app_rng rng;
    app_rng_seed(&rng, args.seed);
    app_fill_f32(x, n, &rng);
    run.x = x;
    run.y = y;
    DUO_CHECK(duo_malloc((void **)&run.dx, bytes));
    DUO_CHECK(duo_malloc((void **)&run.dy, bytes));
    for (int s = 0; s < nstreams; ++s) {
        DUO_CHECK(duo_stream_create(&run.streams[s]));
        DUO_CHECK(duo_malloc((void **)&run.sx[s], buf_bytes));
        DUO_CHECK(duo_malloc((void **)&run.sy[s], buf_bytes));
    }

    static const char *const names[2] = {"unstaged", "staged"};
    float *out[2] = {NULL, NULL};
    double ms[2];
    char size[32];
    snprintf(size, sizeof size, "%zu", n);
    for (int v = 0; v < 2; ++v) {
        run.staged = v;
        /* Warm-up, which is also the checked run, into an output of NaN. */
        memset(y, 0xff, bytes);
        run_staged(&run);
        out[v] = (float *)app_host_alloc(PROG, bytes);
        memcpy(out[v], y, bytes);

        ms[v] = app_time_median_ms(run_staged, &run, args.reps);
        char extra[128];
        if (v)
            snprintf(extra, sizeof extra,
                     "version=staged chunk=%zu streams=%d chunks=%zu", chunk,
                     nstreams, duo_ceil_div(n, chunk));
        else
            snprintf(extra, sizeof extra, "version=unstaged");
        app_print_result(PROG, size, extra, args.reps, ms[v], "GB/s",
                         8.0 * (double)n);
    }
    const int cpu = strcmp(duo_backend_name(), "cuda") != 0;
    printf("gain: staged is %.2fx the speed of unstaged%s\n",
           ms[1] > 0 ? ms[0] / ms[1] : 0.0,
           cpu ? " (CPU backend: work on a stream runs at once, so "
                 "nothing overlaps; expect ~1x: any difference is the "
                 "per-chunk overhead, cache reuse of the smaller chunks, "
                 "or noise)" : "");
    fflush(stdout);

    int failed = 0;
    if (args.check) {
        float *want = (float *)app_host_alloc(PROG, bytes);
        for (size_t i = 0; i < n; ++i)
            want[i] = staged_f(x[i], COEF_A, COEF_C);
        size_t bad = 0;
        char detail[256] = "";
        for (int v = 0; v < 2; ++v)
            bad += compare_out(names[v], n, x, out[v], want,
                               bad ? NULL : detail, sizeof detail);
        failed = app_report_check(bad, 2 * n, "elements", detail);
        free(want);
    }

    if (dump_path != NULL) {
        dump_writer *d = dump_open(dump_path, PROG, argc, argv);
        const size_t dims[1] = {n};
        dump_array(d, "y", DUO_F32, 1, dims, out[1]);
        if (dump_close(d) != 0)
            failed = 1;
    }

    for (int s = 0; s < nstreams; ++s) {
        DUO_CHECK(duo_free(run.sx[s]));
        DUO_CHECK(duo_free(run.sy[s]));
        DUO_CHECK(duo_stream_destroy(run.streams[s]));
    }
    DUO_CHECK(duo_free(run.dx));
    DUO_CHECK(duo_free(run.dy));
    DUO_CHECK(duo_free_host(x));
    DUO_CHECK(duo_free_host(y));
    free(out[0]);
    free(out[1]);
    DUO_CHECK(duo_finalize());
    return failed;
}
