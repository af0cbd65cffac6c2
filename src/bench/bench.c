/*
 * bench.c - duo-bench: duo measured against the yardstick of its backend
 * (yardstick.h) in the same process, on the same buffers, in one run.
 *
 *   build/<backend>/bin/duo-bench [--out DIR] [--quick]
 *       [--only reduce|gemm|launch|stream|solver[,...]] [--help]
 *
 * Groups:
 *   reduce  duo_reduce against CUB (+ the result to the host) on the GPU,
 *           an OpenMP loop accumulating in double on the CPU; rows "dev":
 *           duo_reduce_async against CUB, both results left in device
 *           memory (CPU: the loop's result stored).
 *   gemm    duo_gemm_f32/f64 against cuBLAS (pedantic fp32) or OpenBLAS.
 *   launch  100 back-to-back launches of one triad kernel by DUO_LAUNCH
 *           against a raw <<<ceil(n/256), 256>>> launch (CPU: a direct
 *           call of the kernel function).
 *   stream  BabelStream copy/mul/add/triad/dot written with duo against
 *           hand-written kernels (GPU) or OpenMP loops (CPU).
 *   solver  SOLVER_ITERATIONS iterations of duo's CG (src/solvers) from
 *           x = 0 against the same CG hand-written with raw kernels, CUB
 *           and one CUDA graph (GPU) or OpenMP loops (CPU).
 *
 * Method: inputs are fresh random values (never 0) generated on the
 * device, new ones for every row; each row's results are checked before
 * it is timed; then one warm-up run of each side, and timed runs that
 * alternate duo and the yardstick (ABBA order) until each side has at
 * least 5 runs and one side has run 0.2 s, or 50 runs; the median of
 * each side is reported.  Both sides are timed by the same duo_timer
 * calls on the default stream (CUDA events on the GPU, a monotonic clock
 * on the CPU).  On the GPU each row is followed by a rest as long as its
 * timed runs (at most 1 s; see GPU_REST_MAX_S).
 *
 * DUO_BENCH_GEMM_SHAPES="[f32:|f64:]MxNxK[NT],..." limits the gemm group
 * to those shapes (both precisions or the one named), for tuning.
 *
 * Writes a table to stdout, progress to stderr, and DIR/bench-<backend>.csv
 * and DIR/bench-<backend>.md (default DIR: profiles).  Exit status: 0, or
 * 1 if a result check failed (or duo or a yardstick failed), 2 on a bad
 * command line.
 */
#define _POSIX_C_SOURCE 200809L /* mkdir, gmtime_r */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <duo.h>

#include "cg_solver.h"
#include "stream_kernels.h"
#include "yardstick.h"

static const char *const PROG = "duo-bench";
static const char *const USAGE =
    "usage: duo-bench [--out DIR] [--quick] [--only GROUPS] [--help]\n"
    "  Measure duo against the yardstick of its backend (CUDA: CUB,\n"
    "  cuBLAS, raw kernels; CPU: OpenMP loops, OpenBLAS) in one run, and\n"
    "  write DIR/bench-<backend>.csv and DIR/bench-<backend>.md.\n"
    "  --out DIR      where the reports go (default: profiles)\n"
    "  --quick        fewer sizes and runs, for a smoke test\n"
    "  --only GROUPS  one or more of reduce, gemm, launch, stream, solver,\n"
    "                 separated by commas (default: all)\n"
    "  --help         this text\n"
    "  The table's ratio is yardstick time / duo time: above 1, duo is\n"
    "  faster.  Exit status 1 if any result check failed.\n";

/* ------------------------------------------------------------------ */
/* Configuration and results                                           */

enum {
    GROUP_REDUCE = 1,
    GROUP_GEMM = 2,
    GROUP_LAUNCH = 4,
    GROUP_STREAM = 8,
    GROUP_SOLVER = 16,
    GROUP_ALL = 31
};
#define NGROUPS 5
static const char *const GROUP_NAMES[NGROUPS] = {"reduce", "gemm", "launch",
                                                 "stream", "solver"};

enum { MAX_REPS = 50, LAUNCHES = 100, GEMM_SAMPLES = 64 };

/* On the GPU, each measured row is followed by a rest as long as its
 * timed runs, at most GPU_REST_MAX_S.  A few seconds of back-to-back
 * large products hold an H100 at its power cap (700 W, "SW power cap"
 * in nvidia-smi) with the SM clock down to 1.4 GHz, and the lowered
 * clock carried into the rows after them: f64 1023^3 NN took 70 us on
 * its own and 91 us right after the 8192^3 rows (cuBLAS: 65 and 76
 * us).  With the rest, every row starts from the same idle GPU; the
 * large rows themselves still run at whatever clock their load holds. */
#define GPU_REST_MAX_S 1.0

/* A target: a ratio that the row (group, what, size) should reach.
 * time_form 0: yardstick time / duo time >= value (rate ratio);
 * time_form 1: duo time / yardstick time <= value. */
typedef struct target_def {
    int gpu; /* applies to CUDA builds (1) or CPU builds (0) */
    const char *group, *what, *size;
    int time_form;
    double value;
    const char *text;
} target_def;

static const target_def TARGETS[] = {
    {1, "reduce", "sum f32", "2^28", 0, 0.97,
     "GPU reduce sum f32 2^28 >= 0.97x CUB bandwidth"},
    {1, "reduce", "sum f64", "2^27", 0, 0.97,
     "GPU reduce sum f64 2^27 >= 0.97x CUB bandwidth"},
    {1, "reduce", "sum f32", "2^10", 1, 1.00,
     "GPU reduce sum f32 2^10 time <= 1.0x CUB+D2H"},
    {1, "reduce", "sum f32", "2^12", 1, 1.00,
     "GPU reduce sum f32 2^12 time <= 1.0x CUB+D2H"},
    {1, "reduce", "sum f32", "2^14", 1, 1.00,
     "GPU reduce sum f32 2^14 time <= 1.0x CUB+D2H"},
    {1, "reduce", "sum f32", "2^16", 1, 1.00,
     "GPU reduce sum f32 2^16 time <= 1.0x CUB+D2H"},
    {1, "reduce", "sum f32", "2^18", 1, 1.00,
     "GPU reduce sum f32 2^18 time <= 1.0x CUB+D2H"},
    {1, "reduce", "sum f32", "2^20", 1, 1.00,
     "GPU reduce sum f32 2^20 time <= 1.0x CUB+D2H"},
    {1, "reduce", "sum f32", "2^22", 1, 1.00,
     "GPU reduce sum f32 2^22 time <= 1.0x CUB+D2H"},
    {1, "reduce", "sum f32", "2^24", 1, 1.00,
     "GPU reduce sum f32 2^24 time <= 1.0x CUB+D2H"},
    {1, "reduce", "sum f32", "2^26", 1, 1.00,
     "GPU reduce sum f32 2^26 time <= 1.0x CUB+D2H"},
    {1, "reduce", "sum f32", "2^28", 1, 1.00,
     "GPU reduce sum f32 2^28 time <= 1.0x CUB+D2H"},
    {1, "reduce", "sum f32 dev", "2^10", 1, 1.10,
     "GPU reduce_async f32 2^10 time <= 1.1x CUB (device result)"},
    {1, "reduce", "sum f32 dev", "2^12", 1, 1.10,
     "GPU reduce_async f32 2^12 time <= 1.1x CUB (device result)"},
    {1, "reduce", "sum f32 dev", "2^14", 1, 1.10,
     "GPU reduce_async f32 2^14 time <= 1.1x CUB (device result)"},
    {1, "reduce", "sum f32 dev", "2^16", 1, 1.10,
     "GPU reduce_async f32 2^16 time <= 1.1x CUB (device result)"},
    {1, "reduce", "sum f32 dev", "2^18", 1, 1.10,
     "GPU reduce_async f32 2^18 time <= 1.1x CUB (device result)"},
    {1, "reduce", "sum f32 dev", "2^20", 1, 1.10,
     "GPU reduce_async f32 2^20 time <= 1.1x CUB (device result)"},
    {1, "reduce", "sum f32 dev", "2^22", 1, 1.10,
     "GPU reduce_async f32 2^22 time <= 1.1x CUB (device result)"},
    {1, "reduce", "sum f32 dev", "2^28", 0, 0.97,
     "GPU reduce_async f32 2^28 >= 0.97x CUB bandwidth (device result)"},
    {1, "solver", "cg 256 it", "128x128", 0, 0.80,
     "GPU cg 128^2 >= 0.80x raw CUDA cg"},
    {1, "solver", "cg 256 it", "512x512", 0, 0.90,
     "GPU cg 512^2 >= 0.90x raw CUDA cg"},
    {1, "solver", "cg 256 it", "2048x2048", 0, 0.90,
     "GPU cg 2048^2 >= 0.90x raw CUDA cg"},
    {0, "solver", "cg 256 it graph", "128x128", 1, 1.02,
     "CPU cg 128^2 with the graph <= 1.02x the plain calls"},
    {0, "solver", "cg 256 it graph", "512x512", 1, 1.02,
     "CPU cg 512^2 with the graph <= 1.02x the plain calls"},
#define GPU_GEMM(what, size, v)                                              \
    {1, "gemm", what, size, 0, v, "GPU gemm " what " " size " >= " #v "x cuBLAS"}
    GPU_GEMM("f32 NN", "256x256x256", 0.85),
    GPU_GEMM("f32 NN", "512x512x512", 0.85),
    GPU_GEMM("f32 NN", "1000x1000x1000", 0.85),
    GPU_GEMM("f32 NN", "1023x1023x1023", 0.85),
    GPU_GEMM("f32 NN", "1024x1024x1024", 0.85),
    GPU_GEMM("f32 NN", "2048x2048x2048", 0.85),
    GPU_GEMM("f32 NN", "4096x4096x4096", 0.95),
    GPU_GEMM("f32 NN", "8192x8192x8192", 0.95),
    GPU_GEMM("f32 NN", "513x257x129", 0.85),
    GPU_GEMM("f32 NN", "4096x4096x64", 0.85),
    GPU_GEMM("f32 NN", "8192x64x8192", 0.85),
    GPU_GEMM("f32 NN", "64x8192x8192", 0.85),
    GPU_GEMM("f32 NT", "1023x1023x1023", 0.85),
    GPU_GEMM("f32 TN", "1023x1023x1023", 0.85),
    GPU_GEMM("f32 NT", "4096x4096x4096", 0.95),
    GPU_GEMM("f32 TN", "4096x4096x4096", 0.95),
    GPU_GEMM("f64 NN", "256x256x256", 0.85),
    GPU_GEMM("f64 NN", "512x512x512", 0.85),
    GPU_GEMM("f64 NN", "1000x1000x1000", 0.85),
    GPU_GEMM("f64 NN", "1023x1023x1023", 0.85),
    GPU_GEMM("f64 NN", "1024x1024x1024", 0.85),
    GPU_GEMM("f64 NN", "2048x2048x2048", 0.85),
    GPU_GEMM("f64 NN", "4096x4096x4096", 0.95),
    GPU_GEMM("f64 NN", "8192x8192x8192", 0.95),
    GPU_GEMM("f64 NN", "513x257x129", 0.85),
    GPU_GEMM("f64 NN", "4096x4096x64", 0.85),
    GPU_GEMM("f64 NN", "8192x64x8192", 0.85),
    GPU_GEMM("f64 NN", "64x8192x8192", 0.85),
    GPU_GEMM("f64 NT", "1023x1023x1023", 0.85),
    GPU_GEMM("f64 TN", "1023x1023x1023", 0.85),
    GPU_GEMM("f64 NT", "4096x4096x4096", 0.95),
    GPU_GEMM("f64 TN", "4096x4096x4096", 0.95),
#undef GPU_GEMM
    {1, "launch", "triad x100", "2^16", 1, 1.03,
     "GPU duo triad launch time <= 1.03x raw (n=2^16, launch-bound)"},
    {1, "launch", "triad x100", "2^25", 1, 1.03,
     "GPU duo triad launch time <= 1.03x raw (n=2^25)"},
    {1, "stream", "copy", "2^25", 0, 0.97, "GPU stream copy >= 0.97x raw"},
    {1, "stream", "mul", "2^25", 0, 0.97, "GPU stream mul >= 0.97x raw"},
    {1, "stream", "add", "2^25", 0, 0.97, "GPU stream add >= 0.97x raw"},
    {1, "stream", "triad", "2^25", 0, 0.97, "GPU stream triad >= 0.97x raw"},
    {1, "stream", "dot", "2^25", 0, 0.97, "GPU stream dot >= 0.97x raw"},
    {0, "gemm", "f32 NN", "1024x1024x1024", 0, 0.70,
     "CPU gemm f32 N=1024 >= 0.70x OpenBLAS (same threads)"},
    {0, "gemm", "f32 NN", "2048x2048x2048", 0, 0.70,
     "CPU gemm f32 N=2048 >= 0.70x OpenBLAS (same threads)"},
    {0, "gemm", "f64 NN", "1024x1024x1024", 0, 0.60,
     "CPU gemm f64 N=1024 >= 0.60x OpenBLAS (same threads)"},
    {0, "reduce", "sum f32", "2^26", 0, 0.95,
     "CPU reduce sum f32 2^26 >= 0.95x the OpenMP loop"},
    {0, "stream", "copy", "2^25", 0, 0.95, "CPU stream copy >= 0.95x OpenMP"},
    {0, "stream", "mul", "2^25", 0, 0.95, "CPU stream mul >= 0.95x OpenMP"},
    {0, "stream", "add", "2^25", 0, 0.95, "CPU stream add >= 0.95x OpenMP"},
    {0, "stream", "triad", "2^25", 0, 0.95,
     "CPU stream triad >= 0.95x OpenMP"},
    {0, "stream", "dot", "2^25", 0, 0.95, "CPU stream dot >= 0.95x OpenMP"},
};
#define NTARGETS (sizeof TARGETS / sizeof TARGETS[0])

typedef struct row {
    const char *group;
    char what[32];
    char size[32];
    const char *region;    /* bandwidth, latency, compute, launch */
    const char *ys_name;   /* NULL: no yardstick for this row */
    double duo_ms, ys_ms;  /* median per operation; ys_ms < 0: none */
    double duo_min_ms, ys_min_ms; /* fastest run */
    size_t duo_reps, ys_reps;
    double amount;         /* bytes or flops per operation; 0: no rate */
    double unit_scale;     /* rate = amount / seconds / unit_scale */
    const char *unit;      /* GB/s, GFLOP/s, TFLOP/s */
    int check_ok;
    char check[160];       /* what was compared, and how closely */
    const target_def *target;
} row;

typedef struct bench {
    int quick;
    unsigned groups;
    const char *out_dir;
    size_t min_reps, max_reps;
    double budget_ms;      /* per side */
    duo_timer timer;
    duo_device_info dev;
    ys_info ys;
    int gpu;
    uint64_t next_seed;
    row *rows;
    size_t nrows, cap;
    int failed_checks;
    char command[1024];
    char date[64];
    char cpu[256];
    char load_start[64], load_end[64]; /* /proc/loadavg, 1-minute */
    long cpus_online;
} bench;

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */

static void fatal(const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", PROG);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    exit(1);
}

static void usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "%s: %s '%s'\n\n%s", PROG, what, arg, USAGE);
    exit(2);
}

static uint64_t new_seed(bench *b)
{
    return b->next_seed++ * 0x2545F4914F6CDD1Dull + 0x1234567ull;
}

/* "2^k" for powers of two, else the decimal number. */
static void size_label(char *buf, size_t size, size_t n)
{
    if (n != 0 && (n & (n - 1)) == 0) {
        int k = 0;
        while (((size_t)1 << k) != n)
            ++k;
        snprintf(buf, size, "2^%d", k);
    } else {
        snprintf(buf, size, "%zu", n);
    }
}

static int compare_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void *device_alloc(size_t bytes)
{
    void *p = NULL;
    DUO_CHECK(duo_malloc(&p, bytes));
    return p;
}

/* ------------------------------------------------------------------ */
/* Timing                                                              */

typedef void (*bench_op)(void *ctx);

static double time_once(bench *b, bench_op op, void *ctx)
{
    double ms = 0.0;
    DUO_CHECK(duo_timer_start(b->timer, NULL));
    op(ctx);
    DUO_CHECK(duo_timer_stop(b->timer, NULL));
    DUO_CHECK(duo_timer_elapsed_ms(b->timer, &ms));
    return ms;
}

static void store_times(double *ms, size_t reps, double *median_ms,
                        double *min_ms)
{
    *median_ms = median(ms, reps); /* sorts */
    *min_ms = ms[0];
}

/* Sleep: until a yardstick's worker threads stop spinning (see
 * ys_info.settle_seconds), or a GPU's rest after a row. */
static void settle(double seconds)
{
    if (seconds <= 0)
        return;
    struct timespec t;
    t.tv_sec = (time_t)seconds;
    t.tv_nsec = (long)((seconds - (double)t.tv_sec) * 1e9);
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
}

/* One warm-up run of each side, then timed runs alternating duo and the
 * yardstick (ABBA), until both have min_reps and one side has used the
 * time budget, or max_reps; then, on the GPU, the rest.  ys may be
 * NULL. */
static void measure(bench *b, bench_op duo, bench_op ys, void *ctx, row *r)
{
    double duo_ms[MAX_REPS], ys_ms[MAX_REPS];
    double duo_total = 0.0, ys_total = 0.0;
    size_t reps = 0;

    duo(ctx);
    if (ys != NULL)
        ys(ctx);
    DUO_CHECK(duo_synchronize());
    while (reps < b->max_reps) {
        if (reps % 2 == 0 || ys == NULL) {
            duo_ms[reps] = time_once(b, duo, ctx);
            if (ys != NULL)
                ys_ms[reps] = time_once(b, ys, ctx);
        } else {
            ys_ms[reps] = time_once(b, ys, ctx);
            duo_ms[reps] = time_once(b, duo, ctx);
        }
        duo_total += duo_ms[reps];
        if (ys != NULL)
            ys_total += ys_ms[reps];
        ++reps;
        if (reps >= b->min_reps &&
            (duo_total >= b->budget_ms || ys_total >= b->budget_ms))
            break;
    }
    store_times(duo_ms, reps, &r->duo_ms, &r->duo_min_ms);
    r->duo_reps = reps;
    if (ys != NULL) {
        store_times(ys_ms, reps, &r->ys_ms, &r->ys_min_ms);
        r->ys_reps = reps;
    }
    if (b->gpu)
        settle(fmin((duo_total + ys_total) * 1e-3, GPU_REST_MAX_S));
}

/* One side: a warm-up run, then timed runs until min_reps and the time
 * budget, or max_reps. */
static void measure_side(bench *b, bench_op op, void *ctx, double *median_ms,
                         double *min_ms, size_t *reps_out)
{
    double ms[MAX_REPS], total = 0.0;
    size_t reps = 0;
    op(ctx);
    DUO_CHECK(duo_synchronize());
    while (reps < b->max_reps) {
        ms[reps] = time_once(b, op, ctx);
        total += ms[reps++];
        if (reps >= b->min_reps && total >= b->budget_ms)
            break;
    }
    store_times(ms, reps, median_ms, min_ms);
    *reps_out = reps;
}

/* For a yardstick whose threads keep spinning after each call (OpenBLAS
 * on the CPU): wait for them to stop, time duo's runs, then the
 * yardstick's.  Alternating would time duo while those threads spin on
 * the cores duo's threads need. */
static void measure_blocked(bench *b, bench_op duo, bench_op ys, void *ctx,
                            row *r)
{
    settle(b->ys.settle_seconds);
    measure_side(b, duo, ctx, &r->duo_ms, &r->duo_min_ms, &r->duo_reps);
    if (ys != NULL)
        measure_side(b, ys, ctx, &r->ys_ms, &r->ys_min_ms, &r->ys_reps);
}

/* ------------------------------------------------------------------ */
/* Rows                                                                */

/* Whether row r is the measurement target tg names. */
static int row_answers(const row *r, const target_def *tg)
{
    return strcmp(tg->group, r->group) == 0 &&
           strcmp(tg->what, r->what) == 0 && strcmp(tg->size, r->size) == 0;
}

static row *new_row(bench *b, const char *group, const char *what,
                    const char *size)
{
    if (b->nrows == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 64;
        row *rows = (row *)realloc(b->rows, cap * sizeof *rows);
        if (rows == NULL)
            fatal("out of host memory (%s)", "result rows");
        b->rows = rows;
        b->cap = cap;
    }
    row *r = &b->rows[b->nrows++];
    memset(r, 0, sizeof *r);
    r->group = group;
    snprintf(r->what, sizeof r->what, "%s", what);
    snprintf(r->size, sizeof r->size, "%s", size);
    r->region = "";
    r->ys_ms = -1.0;
    r->ys_min_ms = -1.0;
    r->check_ok = 1;
    r->unit = "";
    r->unit_scale = 1.0;
    for (size_t t = 0; t < NTARGETS; ++t)
        if (TARGETS[t].gpu == b->gpu && row_answers(r, &TARGETS[t]))
            r->target = &TARGETS[t];
    return r;
}

static double rate(const row *r, double ms)
{
    return r->amount > 0 && ms > 0 ? r->amount / (ms * 1e-3) / r->unit_scale
                                   : -1.0;
}

/* yardstick time / duo time; < 0 when there is no yardstick. */
static double speed_ratio(const row *r)
{
    return r->ys_ms > 0 && r->duo_ms > 0 ? r->ys_ms / r->duo_ms : -1.0;
}

/* The same ratio for the fastest runs: steadier than the medians when
 * other processes share the machine. */
static double best_ratio(const row *r)
{
    return r->ys_min_ms > 0 && r->duo_min_ms > 0
               ? r->ys_min_ms / r->duo_min_ms
               : -1.0;
}

static void format_ratio(char *buf, size_t size, double q)
{
    if (q > 0)
        snprintf(buf, size, "%.3f", q);
    else
        snprintf(buf, size, "-");
}

/* Target tg's measure on row r (in the target's own form) and whether
 * it is met: 1 met, 0 missed, -1 not measured.  A row may answer two
 * targets (bandwidth and time at 2^28); r->target is the one its table
 * row shows. */
static int target_state_for(const row *r, const target_def *tg,
                            double *measured)
{
    const double ratio = speed_ratio(r);
    *measured = -1.0;
    if (tg == NULL || ratio <= 0)
        return -1;
    if (!r->check_ok)
        return 0;
    if (tg->time_form) {
        *measured = 1.0 / ratio;
        return *measured <= tg->value;
    }
    *measured = ratio;
    return *measured >= tg->value;
}

static int target_state(const row *r, double *measured)
{
    return target_state_for(r, r->target, measured);
}

static void format_time(char *buf, size_t size, double ms)
{
    if (ms < 0)
        snprintf(buf, size, "-");
    else if (ms < 1.0)
        snprintf(buf, size, "%.2f us", ms * 1e3);
    else if (ms < 1e3)
        snprintf(buf, size, "%.3f ms", ms);
    else
        snprintf(buf, size, "%.3f s", ms * 1e-3);
}

static void format_rate(char *buf, size_t size, const row *r, double ms)
{
    const double v = rate(r, ms);
    if (v < 0)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.4g %s", v, r->unit);
}

static void format_target(char *buf, size_t size, const row *r)
{
    if (r->target == NULL)
        snprintf(buf, size, "-");
    else if (r->target->time_form)
        snprintf(buf, size, "t<=%.2fx", r->target->value);
    else
        snprintf(buf, size, ">=%.2f", r->target->value);
}

/* A row's times, rates and ratios as printed, the same in the table on
 * stdout and in the markdown report. */
typedef struct row_cells {
    char duo_time[32], duo_rate[32], ys_time[32], ys_rate[32];
    char ratio[16], best[16], target[16];
} row_cells;

static void format_cells(row_cells *c, const row *r)
{
    format_time(c->duo_time, sizeof c->duo_time, r->duo_ms);
    format_rate(c->duo_rate, sizeof c->duo_rate, r, r->duo_ms);
    format_time(c->ys_time, sizeof c->ys_time, r->ys_ms);
    format_rate(c->ys_rate, sizeof c->ys_rate, r, r->ys_ms);
    format_ratio(c->ratio, sizeof c->ratio, speed_ratio(r));
    format_ratio(c->best, sizeof c->best, best_ratio(r));
    format_target(c->target, sizeof c->target, r);
}

static const char *met_text(const row *r)
{
    double measured;
    if (!r->check_ok)
        return "CHECK FAILED";
    switch (target_state(r, &measured)) {
    case 1: return "MET";
    case 0: return "MISSED";
    default: return r->target != NULL ? "not measured" : "-";
    }
}

/* The row is complete: report it on stderr. */
static void finish_row(bench *b, row *r)
{
    char dt[32], yt[32], dr[32];
    format_time(dt, sizeof dt, r->duo_ms);
    format_time(yt, sizeof yt, r->ys_ms);
    format_rate(dr, sizeof dr, r, r->duo_ms);
    const double ratio = speed_ratio(r);
    fprintf(stderr, "%s: [%s] %s %s: duo %s (%s)", PROG, r->group, r->what,
            r->size, dt, dr);
    if (r->ys_name != NULL)
        fprintf(stderr, ", %s %s, ratio %.3f", r->ys_name, yt, ratio);
    fprintf(stderr, ", check %s%s", r->check_ok ? "ok" : "FAILED: ",
            r->check_ok ? "" : r->check);
    if (r->target != NULL)
        fprintf(stderr, " [target %s]", met_text(r));
    fputc('\n', stderr);
    if (!r->check_ok)
        ++b->failed_checks;
}

/* ------------------------------------------------------------------ */
/* reduce                                                              */

typedef struct reduce_ctx {
    duo_reduce_op op;
    duo_dtype type;
    const void *x;
    size_t n;
    double duo_value, ys_value;
} reduce_ctx;

static void run_duo_reduce(void *p)
{
    reduce_ctx *c = (reduce_ctx *)p;
    if (c->op == DUO_SUM) {
        DUO_CHECK(duo_reduce(c->op, c->type, c->x, c->n, &c->duo_value));
    } else if (c->type == DUO_F32) {
        float v = 0.0f;
        DUO_CHECK(duo_reduce(c->op, c->type, c->x, c->n, &v));
        c->duo_value = v;
    } else {
        DUO_CHECK(duo_reduce(c->op, c->type, c->x, c->n, &c->duo_value));
    }
}

static void run_ys_reduce(void *p)
{
    reduce_ctx *c = (reduce_ctx *)p;
    (void)ys_reduce(c->op, c->type, c->x, c->n, &c->ys_value);
}

static const char *op_name(duo_reduce_op op)
{
    return op == DUO_SUM ? "sum" : op == DUO_MIN ? "min" : "max";
}

/* Check the first results (made on fresh inputs): a sum against the
 * yardstick within n (u_ys + u_f64) sum|x| -- CUB sums f32 in f32 with
 * error up to (n-1) u_f32 sum|x|, duo in double -- and against an
 * independent double sum (a duo user reduction in another order) within
 * 2 n u_f64 sum|x|; min and max exactly. */
static void check_reduce(bench *b, reduce_ctx *c, int has_ys, row *r)
{
    const double u64 = 0x1p-53;
    const double n = (double)c->n;
    const int f32 = c->type == DUO_F32;
    if (c->op != DUO_SUM) {
        r->check_ok = has_ys ? c->duo_value == c->ys_value : 1;
        snprintf(r->check, sizeof r->check, "duo %.9g, %s %.9g (exact)",
                 c->duo_value, has_ys ? r->ys_name : "no yardstick",
                 c->ys_value);
        return;
    }
    double abs_sum = 0.0, other = 0.0;
    if (f32) {
        DUO_CHECK(bench_abs_sum_f32((const float *)c->x, c->n, &abs_sum));
        DUO_CHECK(bench_sum_f32((const float *)c->x, c->n, &other));
    } else {
        DUO_CHECK(bench_abs_sum_f64((const double *)c->x, c->n, &abs_sum));
        DUO_CHECK(bench_sum_f64((const double *)c->x, c->n, &other));
    }
    const double u_ys = f32 ? b->ys.sum_unit_f32 : b->ys.sum_unit_f64;
    const double ys_bound = n * (u_ys + u64) * abs_sum;
    const double own_bound = 2.0 * n * u64 * abs_sum;
    const double ys_diff = fabs(c->duo_value - c->ys_value);
    const double own_diff = fabs(c->duo_value - other);
    r->check_ok = isfinite(c->duo_value) && own_diff <= own_bound &&
                  (!has_ys || ys_diff <= ys_bound);
    if (has_ys)
        snprintf(r->check, sizeof r->check,
                 "|duo-%s| %.3g <= %.3g; |duo-f64 sum| %.3g <= %.3g",
                 r->ys_name, ys_diff, ys_bound, own_diff, own_bound);
    else
        snprintf(r->check, sizeof r->check, "|duo-f64 sum| %.3g <= %.3g",
                 own_diff, own_bound);
}

/* A reduce row over n elements of `type`, with fresh inputs in x. */
static row *new_reduce_row(bench *b, const char *what, duo_dtype type,
                           void *x, size_t n)
{
    const size_t elem = duo_dtype_size(type);
    char size[32];
    size_label(size, sizeof size, n);
    row *r = new_row(b, "reduce", what, size);
    r->region = n * elem >= b->ys.cache_bytes ? "bandwidth" : "latency";
    r->amount = (double)(n * elem);
    r->unit = "GB/s";
    r->unit_scale = 1e9;
    if (type == DUO_F32)
        DUO_CHECK(bench_fill_f32((float *)x, n, new_seed(b)));
    else
        DUO_CHECK(bench_fill_f64((double *)x, n, new_seed(b)));
    return r;
}

static void bench_reduce_sizes(bench *b, duo_reduce_op op, duo_dtype type,
                               const size_t *sizes, size_t count)
{
    size_t max_n = 0;
    for (size_t s = 0; s < count; ++s)
        max_n = sizes[s] > max_n ? sizes[s] : max_n;
    const size_t elem = duo_dtype_size(type);
    void *x = device_alloc(max_n * elem);
    char what[32];
    snprintf(what, sizeof what, "%s %s", op_name(op),
             type == DUO_F32 ? "f32" : "f64");

    for (size_t s = 0; s < count; ++s) {
        const size_t n = sizes[s];
        row *r = new_reduce_row(b, what, type, x, n);
        reduce_ctx ctx;
        memset(&ctx, 0, sizeof ctx);
        ctx.op = op;
        ctx.type = type;
        ctx.x = x;
        ctx.n = n;
        run_duo_reduce(&ctx);
        const int has_ys = ys_reduce(op, type, x, n, &ctx.ys_value);
        r->ys_name = has_ys ? b->ys.reduce : NULL;
        check_reduce(b, &ctx, has_ys, r);
        measure(b, run_duo_reduce, has_ys ? run_ys_reduce : NULL, &ctx, r);
        finish_row(b, r);
    }
    DUO_CHECK(duo_free(x));
}

/* ------------------------------------------------------------------ */
/* reduce, results left in device memory                               */

typedef struct reduce_dev_ctx {
    reduce_ctx r;
    double *duo_out; /* device: duo's result (double for sums)        */
    void *ys_out;    /* device: the yardstick's (the element type)    */
} reduce_dev_ctx;

static void run_duo_reduce_dev(void *p)
{
    reduce_dev_ctx *c = (reduce_dev_ctx *)p;
    DUO_CHECK(duo_reduce_async(c->r.op, c->r.type, c->r.x, c->r.n,
                               c->duo_out, NULL));
}

static void run_ys_reduce_dev(void *p)
{
    reduce_dev_ctx *c = (reduce_dev_ctx *)p;
    (void)ys_reduce_device(c->r.op, c->r.type, c->r.x, c->r.n, c->ys_out);
}

/* Sums only: the rows that compare with CUB's device-result form. */
static void bench_reduce_dev_sizes(bench *b, duo_dtype type,
                                   const size_t *sizes, size_t count)
{
    size_t max_n = 0;
    for (size_t s = 0; s < count; ++s)
        max_n = sizes[s] > max_n ? sizes[s] : max_n;
    const size_t elem = duo_dtype_size(type);
    reduce_dev_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    void *x = device_alloc(max_n * elem);
    ctx.duo_out = (double *)device_alloc(sizeof(double));
    ctx.ys_out = device_alloc(sizeof(double));
    const char *what = type == DUO_F32 ? "sum f32 dev" : "sum f64 dev";
    for (size_t s = 0; s < count; ++s) {
        const size_t n = sizes[s];
        row *r = new_reduce_row(b, what, type, x, n);
        ctx.r.op = DUO_SUM;
        ctx.r.type = type;
        ctx.r.x = x;
        ctx.r.n = n;
        run_duo_reduce_dev(&ctx);
        const int has_ys = ys_reduce_device(DUO_SUM, type, x, n, ctx.ys_out);
        DUO_CHECK(duo_memcpy(&ctx.r.duo_value, ctx.duo_out, sizeof(double),
                             DUO_DEVICE_TO_HOST));
        if (has_ys) {
            if (type == DUO_F32 && b->gpu) { /* CUB's sum is a float */
                float v = 0.0f;
                DUO_CHECK(duo_memcpy(&v, ctx.ys_out, sizeof v,
                                     DUO_DEVICE_TO_HOST));
                ctx.r.ys_value = v;
            } else {
                DUO_CHECK(duo_memcpy(&ctx.r.ys_value, ctx.ys_out,
                                     sizeof(double), DUO_DEVICE_TO_HOST));
            }
        }
        r->ys_name = !has_ys ? NULL : b->gpu ? "CUB (device result)"
                                             : b->ys.reduce;
        check_reduce(b, &ctx.r, has_ys, r);
        measure(b, run_duo_reduce_dev, has_ys ? run_ys_reduce_dev : NULL,
                &ctx, r);
        finish_row(b, r);
    }
    DUO_CHECK(duo_free(x));
    DUO_CHECK(duo_free(ctx.duo_out));
    DUO_CHECK(duo_free(ctx.ys_out));
}

static void bench_reduce(bench *b)
{
    static const size_t gpu_f32[] = {
        (size_t)1 << 10, (size_t)1 << 12, (size_t)1 << 14, (size_t)1 << 16,
        (size_t)1 << 18, (size_t)1 << 20, (size_t)1 << 22, (size_t)1 << 24,
        (size_t)1 << 26, (size_t)1 << 28};
    static const size_t gpu_f64[] = {
        (size_t)1 << 10, (size_t)1 << 12, (size_t)1 << 14, (size_t)1 << 16,
        (size_t)1 << 18, (size_t)1 << 20, (size_t)1 << 22, (size_t)1 << 24,
        (size_t)1 << 26, (size_t)1 << 27};
    static const size_t cpu_f32[] = {
        (size_t)1 << 10, (size_t)1 << 12, (size_t)1 << 14, (size_t)1 << 16,
        (size_t)1 << 18, (size_t)1 << 20, (size_t)1 << 22, (size_t)1 << 24,
        (size_t)1 << 26};
    static const size_t quick_gpu_f32[] = {(size_t)1 << 10, (size_t)1 << 16,
                                           (size_t)1 << 28};
    static const size_t quick_cpu_f32[] = {(size_t)1 << 10, (size_t)1 << 16,
                                           (size_t)1 << 26};
    static const size_t quick_gpu_f64[] = {(size_t)1 << 27};
    static const size_t big_f32[] = {(size_t)1 << 28};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
    if (b->gpu) {
        if (b->quick) {
            bench_reduce_sizes(b, DUO_SUM, DUO_F32, quick_gpu_f32,
                               COUNT(quick_gpu_f32));
            bench_reduce_sizes(b, DUO_SUM, DUO_F64, quick_gpu_f64,
                               COUNT(quick_gpu_f64));
        } else {
            bench_reduce_sizes(b, DUO_SUM, DUO_F32, gpu_f32, COUNT(gpu_f32));
            bench_reduce_sizes(b, DUO_SUM, DUO_F64, gpu_f64, COUNT(gpu_f64));
        }
        bench_reduce_sizes(b, DUO_MIN, DUO_F32, big_f32, COUNT(big_f32));
        bench_reduce_sizes(b, DUO_MAX, DUO_F32, big_f32, COUNT(big_f32));
        if (b->quick) {
            bench_reduce_dev_sizes(b, DUO_F32, quick_gpu_f32,
                                   COUNT(quick_gpu_f32));
        } else {
            static const size_t dev_f32[] = {
                (size_t)1 << 10, (size_t)1 << 12, (size_t)1 << 14,
                (size_t)1 << 16, (size_t)1 << 18, (size_t)1 << 20,
                (size_t)1 << 22, (size_t)1 << 28};
            bench_reduce_dev_sizes(b, DUO_F32, dev_f32, COUNT(dev_f32));
            bench_reduce_dev_sizes(b, DUO_F64, quick_gpu_f64,
                                   COUNT(quick_gpu_f64));
        }
    } else if (b->quick) {
        bench_reduce_sizes(b, DUO_SUM, DUO_F32, quick_cpu_f32,
                           COUNT(quick_cpu_f32));
        bench_reduce_dev_sizes(b, DUO_F32, quick_cpu_f32,
                               COUNT(quick_cpu_f32));
    } else {
        bench_reduce_sizes(b, DUO_SUM, DUO_F32, cpu_f32, COUNT(cpu_f32));
        bench_reduce_dev_sizes(b, DUO_F32, cpu_f32, COUNT(cpu_f32));
    }
}

/* ------------------------------------------------------------------ */
/* gemm                                                                */

typedef struct gemm_shape {
    size_t m, n, k;
    duo_transpose ta, tb;
} gemm_shape;

typedef struct gemm_ctx {
    int f64;
    gemm_shape s;
    size_t lda, ldb, ldc;
    const void *a, *b;
    void *c_duo, *c_ys;
} gemm_ctx;

static void run_duo_gemm(void *p)
{
    const gemm_ctx *c = (const gemm_ctx *)p;
    if (c->f64)
        DUO_CHECK(duo_gemm_f64(c->s.ta, c->s.tb, c->s.m, c->s.n, c->s.k, 1.0,
                               (const double *)c->a, c->lda,
                               (const double *)c->b, c->ldb, 0.0,
                               (double *)c->c_duo, c->ldc));
    else
        DUO_CHECK(duo_gemm_f32(c->s.ta, c->s.tb, c->s.m, c->s.n, c->s.k, 1.0f,
                               (const float *)c->a, c->lda,
                               (const float *)c->b, c->ldb, 0.0f,
                               (float *)c->c_duo, c->ldc));
}

static void run_ys_gemm(void *p)
{
    const gemm_ctx *c = (const gemm_ctx *)p;
    if (c->f64)
        ys_gemm_f64(c->s.ta, c->s.tb, c->s.m, c->s.n, c->s.k, 1.0,
                    (const double *)c->a, c->lda, (const double *)c->b,
                    c->ldb, 0.0, (double *)c->c_ys, c->ldc);
    else
        ys_gemm_f32(c->s.ta, c->s.tb, c->s.m, c->s.n, c->s.k, 1.0f,
                    (const float *)c->a, c->lda, (const float *)c->b,
                    c->ldb, 0.0f, (float *)c->c_ys, c->ldc);
}

static double input_value(int f64, uint64_t seed, size_t index)
{
    return f64 ? bench_value_f64(seed, index)
               : (double)bench_value_f32(seed, index);
}

static double fetch_value(int f64, const void *c, size_t index)
{
    if (f64) {
        double v = 0.0;
        DUO_CHECK(duo_memcpy(&v, (const double *)c + index, sizeof v,
                             DUO_DEVICE_TO_HOST));
        return v;
    }
    float v = 0.0f;
    DUO_CHECK(duo_memcpy(&v, (const float *)c + index, sizeof v,
                         DUO_DEVICE_TO_HOST));
    return v;
}

/* GEMM_SAMPLES elements of C (the four corners, then random ones)
 * recomputed on the host in double from the inputs' generator; duo and
 * the yardstick each within gamma_K sum_p |A_ip| |B_pj|, gamma_K =
 * (K + 2) u, plus K u_f64 of the same for the reference's rounding. */
static void check_gemm(const gemm_ctx *c, uint64_t seed_a, uint64_t seed_b,
                       uint64_t seed_pick, int has_ys, row *r)
{
    const gemm_shape *s = &c->s;
    const double u = c->f64 ? 0x1p-53 : 0x1p-24;
    const double gamma = (double)(s->k + 2) * u + (double)s->k * 0x1p-53;
    double worst_duo = 0.0, worst_ys = 0.0; /* |error| / bound */
    int ok = 1;
    for (size_t t = 0; t < GEMM_SAMPLES; ++t) {
        size_t i, j;
        if (t < 4) {
            i = t & 1 ? s->m - 1 : 0;
            j = t & 2 ? s->n - 1 : 0;
        } else {
            const uint64_t h = bench_hash(seed_pick, t);
            i = (size_t)((h >> 32) % s->m);
            j = (size_t)((h & 0xffffffffu) % s->n);
        }
        double ref = 0.0, abs_ref = 0.0;
        for (size_t p = 0; p < s->k; ++p) {
            const size_t ia = s->ta == DUO_NO_TRANS ? i * c->lda + p
                                                    : p * c->lda + i;
            const size_t ib = s->tb == DUO_NO_TRANS ? p * c->ldb + j
                                                    : j * c->ldb + p;
            const double prod = input_value(c->f64, seed_a, ia) *
                                input_value(c->f64, seed_b, ib);
            ref += prod;
            abs_ref += fabs(prod);
        }
        const double bound = gamma * abs_ref;
        const double got = fetch_value(c->f64, c->c_duo, i * c->ldc + j);
        const double err = fabs(got - ref);
        if (!(err <= bound))
            ok = 0;
        if (!(err / bound <= worst_duo))
            worst_duo = err / bound;
        if (has_ys) {
            const double yv = fetch_value(c->f64, c->c_ys, i * c->ldc + j);
            const double yerr = fabs(yv - ref);
            if (!(yerr <= bound))
                ok = 0;
            if (!(yerr / bound <= worst_ys))
                worst_ys = yerr / bound;
        }
    }
    r->check_ok = ok;
    if (has_ys)
        snprintf(r->check, sizeof r->check,
                 "%d sampled C: worst |err|/bound duo %.3g, %s %.3g "
                 "(pass <= 1)", GEMM_SAMPLES, worst_duo, r->ys_name,
                 worst_ys);
    else
        snprintf(r->check, sizeof r->check,
                 "%d sampled C: worst |err|/bound duo %.3g (pass <= 1)",
                 GEMM_SAMPLES, worst_duo);
}

static void bench_gemm_one(bench *b, int f64, gemm_shape s)
{
    const size_t elem = f64 ? sizeof(double) : sizeof(float);
    gemm_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.f64 = f64;
    ctx.s = s;
    ctx.lda = s.ta == DUO_NO_TRANS ? s.k : s.m;
    ctx.ldb = s.tb == DUO_NO_TRANS ? s.n : s.k;
    ctx.ldc = s.n;
    const size_t a_count = s.m * s.k, b_count = s.k * s.n, c_count = s.m * s.n;
    const int has_ys = b->ys.gemm != NULL;

    char what[32], size[32];
    snprintf(what, sizeof what, "%s %c%c", f64 ? "f64" : "f32",
             s.ta == DUO_TRANS ? 'T' : 'N', s.tb == DUO_TRANS ? 'T' : 'N');
    snprintf(size, sizeof size, "%zux%zux%zu", s.m, s.n, s.k);
    row *r = new_row(b, "gemm", what, size);
    r->region = "compute";
    r->ys_name = has_ys ? b->ys.gemm : NULL;
    r->amount = 2.0 * (double)s.m * (double)s.n * (double)s.k;
    r->unit = b->gpu ? "TFLOP/s" : "GFLOP/s";
    r->unit_scale = b->gpu ? 1e12 : 1e9;

    void *a = device_alloc(a_count * elem);
    void *bm = device_alloc(b_count * elem);
    ctx.c_duo = device_alloc(c_count * elem);
    ctx.c_ys = has_ys ? device_alloc(c_count * elem) : NULL;
    ctx.a = a;
    ctx.b = bm;
    const uint64_t seed_a = new_seed(b), seed_b = new_seed(b);
    const uint64_t seed_pick = new_seed(b);
    if (f64) {
        DUO_CHECK(bench_fill_f64((double *)a, a_count, seed_a));
        DUO_CHECK(bench_fill_f64((double *)bm, b_count, seed_b));
    } else {
        DUO_CHECK(bench_fill_f32((float *)a, a_count, seed_a));
        DUO_CHECK(bench_fill_f32((float *)bm, b_count, seed_b));
    }
    /* C starts as NaN: beta = 0 must not read it. */
    DUO_CHECK(duo_memset(ctx.c_duo, 0xff, c_count * elem));
    if (has_ys)
        DUO_CHECK(duo_memset(ctx.c_ys, 0xff, c_count * elem));

    run_duo_gemm(&ctx);
    if (has_ys)
        run_ys_gemm(&ctx);
    DUO_CHECK(duo_synchronize());
    check_gemm(&ctx, seed_a, seed_b, seed_pick, has_ys, r);
    if (b->ys.settle_seconds > 0)
        measure_blocked(b, run_duo_gemm, has_ys ? run_ys_gemm : NULL, &ctx,
                        r);
    else
        measure(b, run_duo_gemm, has_ys ? run_ys_gemm : NULL, &ctx, r);
    finish_row(b, r);

    DUO_CHECK(duo_free(a));
    DUO_CHECK(duo_free(bm));
    DUO_CHECK(duo_free(ctx.c_duo));
    DUO_CHECK(duo_free(ctx.c_ys));
}

static gemm_shape shape(size_t m, size_t n, size_t k, duo_transpose ta,
                        duo_transpose tb)
{
    gemm_shape s;
    s.m = m;
    s.n = n;
    s.k = k;
    s.ta = ta;
    s.tb = tb;
    return s;
}

/* DUO_BENCH_GEMM_SHAPES="[f32:|f64:]MxNxK[NN|NT|TN|TT],...": only these
 * shapes, in both precisions or the one named (for tuning; e.g.
 * "f64:1024x1024x1024,4096x4096x4096NT").  1 if the variable was set
 * (and used), 0 if not; exit 2 if malformed. */
static int bench_gemm_env_shapes(bench *b)
{
    const char *env = getenv("DUO_BENCH_GEMM_SHAPES");
    if (env == NULL || env[0] == '\0')
        return 0;
    int first = 0, last = 1;
    if (strncmp(env, "f32:", 4) == 0 || strncmp(env, "f64:", 4) == 0) {
        first = last = env[1] == '6';
        env += 4;
    }
    for (int f64 = first; f64 <= last; ++f64)
        for (const char *p = env; *p;) {
            size_t m, n, k;
            int used = 0;
            char t[3] = "NN";
            if (sscanf(p, "%zux%zux%zu%n", &m, &n, &k, &used) != 3 ||
                m == 0 || n == 0 || k == 0) {
                fprintf(stderr, "%s: DUO_BENCH_GEMM_SHAPES: expected "
                        "MxNxK[NN|NT|TN|TT],... at \"%s\"\n", PROG, p);
                exit(2);
            }
            p += used;
            if ((*p == 'N' || *p == 'T') && (p[1] == 'N' || p[1] == 'T')) {
                t[0] = p[0];
                t[1] = p[1];
                p += 2;
            }
            if (*p == ',')
                ++p;
            else if (*p != '\0') {
                fprintf(stderr, "%s: DUO_BENCH_GEMM_SHAPES: unexpected "
                        "\"%s\"\n", PROG, p);
                exit(2);
            }
            bench_gemm_one(b, f64,
                           shape(m, n, k, t[0] == 'T' ? DUO_TRANS : DUO_NO_TRANS,
                                 t[1] == 'T' ? DUO_TRANS : DUO_NO_TRANS));
        }
    return 1;
}

static void bench_gemm(bench *b)
{
    const duo_transpose N = DUO_NO_TRANS, T = DUO_TRANS;
    if (b->ys.gemm == NULL)
        fprintf(stderr, "%s: %s\n", PROG, b->ys.gemm_missing);
    if (bench_gemm_env_shapes(b)) {
        settle(b->ys.settle_seconds);
        return;
    }
    const size_t max_square = b->gpu ? 8192 : 2048;
    const size_t big = b->gpu ? 4096 : 1024;     /* NT / TN size */
    for (int f64 = 0; f64 <= 1; ++f64) {
        if (b->quick) {
            if (!f64) {
                bench_gemm_one(b, 0, shape(256, 256, 256, N, N));
                bench_gemm_one(b, 0, shape(513, 257, 129, N, N));
            }
            bench_gemm_one(b, f64, shape(big, big, big, N, N));
            continue;
        }
        for (size_t n = 64; n <= max_square; n *= 2)
            bench_gemm_one(b, f64, shape(n, n, n, N, N));
        bench_gemm_one(b, f64, shape(1000, 1000, 1000, N, N));
        bench_gemm_one(b, f64, shape(1023, 1023, 1023, N, N));
        bench_gemm_one(b, f64, shape(513, 257, 129, N, N));
        if (b->gpu) {
            bench_gemm_one(b, f64, shape(4096, 4096, 64, N, N));
            /* tall and skinny: C with 64 columns or 64 rows */
            bench_gemm_one(b, f64, shape(8192, 64, 8192, N, N));
            bench_gemm_one(b, f64, shape(64, 8192, 8192, N, N));
            bench_gemm_one(b, f64, shape(1023, 1023, 1023, N, T));
            bench_gemm_one(b, f64, shape(1023, 1023, 1023, T, N));
        } else {
            bench_gemm_one(b, f64, shape(2048, 2048, 64, N, N));
        }
        bench_gemm_one(b, f64, shape(big, big, big, N, T));
        bench_gemm_one(b, f64, shape(big, big, big, T, N));
    }
    settle(b->ys.settle_seconds); /* before the next group */
}

/* ------------------------------------------------------------------ */
/* launch                                                              */

typedef struct launch_ctx {
    double *a;
    const double *b, *c;
    double s;
    size_t n;
} launch_ctx;

static void run_duo_launches(void *p)
{
    const launch_ctx *c = (const launch_ctx *)p;
    DUO_CHECK(bench_duo_triad_launches(c->a, c->b, c->c, c->s, c->n,
                                       LAUNCHES));
}

static void run_raw_launches(void *p)
{
    const launch_ctx *c = (const launch_ctx *)p;
    bench_raw_triad_launches(c->a, c->b, c->c, c->s, c->n, LAUNCHES);
}

static void bench_launch(bench *b)
{
    /* GPU: launch-bound and large; CPU: small sizes (100 launches of a
     * large triad would take seconds there). */
    const size_t gpu_sizes[] = {(size_t)1 << 16, (size_t)1 << 25};
    const size_t cpu_sizes[] = {(size_t)1 << 10, (size_t)1 << 16};
    const size_t *sizes = b->gpu ? gpu_sizes : cpu_sizes;
    const size_t max_n = sizes[1];
    double *a = (double *)device_alloc(max_n * sizeof(double));
    double *bv = (double *)device_alloc(max_n * sizeof(double));
    double *c = (double *)device_alloc(max_n * sizeof(double));
    double *ref = (double *)device_alloc(max_n * sizeof(double));

    for (int s = 0; s < 2; ++s) {
        const size_t n = sizes[s];
        char size[32];
        size_label(size, sizeof size, n);
        row *r = new_row(b, "launch", "triad x100", size);
        r->region = "launch";
        r->ys_name = bench_raw_launch_name();
        DUO_CHECK(bench_fill_f64(bv, n, new_seed(b)));
        DUO_CHECK(bench_fill_f64(c, n, new_seed(b)));
        launch_ctx ctx;
        ctx.a = a;
        ctx.b = bv;
        ctx.c = c;
        ctx.s = 0.4;
        ctx.n = n;
        /* One launch each: the same kernel must give the same bits. */
        DUO_CHECK(bench_duo_triad_launches(a, bv, c, ctx.s, n, 1));
        DUO_CHECK(duo_memcpy(ref, a, n * sizeof(double),
                             DUO_DEVICE_TO_DEVICE));
        DUO_CHECK(duo_memset(a, 0xff, n * sizeof(double)));
        bench_raw_triad_launches(a, bv, c, ctx.s, n, 1);
        double diff = 0.0;
        DUO_CHECK(bench_max_abs_diff(a, ref, n, &diff));
        r->check_ok = diff == 0.0;
        snprintf(r->check, sizeof r->check,
                 "max |duo - raw| = %.3g (exact)", diff);
        measure(b, run_duo_launches, run_raw_launches, &ctx, r);
        /* Per launch. */
        r->duo_ms /= LAUNCHES;
        r->duo_min_ms /= LAUNCHES;
        r->ys_ms /= LAUNCHES;
        r->ys_min_ms /= LAUNCHES;
        finish_row(b, r);
    }
    DUO_CHECK(duo_free(a));
    DUO_CHECK(duo_free(bv));
    DUO_CHECK(duo_free(c));
    DUO_CHECK(duo_free(ref));
}

/* ------------------------------------------------------------------ */
/* stream (BabelStream)                                                */

enum { ST_COPY, ST_MUL, ST_ADD, ST_TRIAD, ST_DOT, ST_COUNT };
static const char *const STREAM_NAMES[] = {"copy", "mul", "add", "triad",
                                           "dot"};
/* Arrays each kernel moves, by BabelStream's count. */
static const int STREAM_ARRAYS[] = {2, 2, 3, 3, 2};

#define STREAM_SCALAR 0.4

typedef struct stream_ctx {
    int kernel;
    double *a, *b, *c;
    size_t n;
    double dot;
} stream_ctx;

static void run_duo_stream(void *p)
{
    stream_ctx *s = (stream_ctx *)p;
    switch (s->kernel) {
    case ST_COPY: DUO_CHECK(bench_duo_copy(s->a, s->c, s->n)); break;
    case ST_MUL:
        DUO_CHECK(bench_duo_mul(s->b, s->c, STREAM_SCALAR, s->n));
        break;
    case ST_ADD: DUO_CHECK(bench_duo_add(s->a, s->b, s->c, s->n)); break;
    case ST_TRIAD:
        DUO_CHECK(bench_duo_triad(s->a, s->b, s->c, STREAM_SCALAR, s->n));
        break;
    default: DUO_CHECK(bench_duo_dot(s->a, s->b, s->n, &s->dot)); break;
    }
}

static void run_ys_stream(void *p)
{
    stream_ctx *s = (stream_ctx *)p;
    switch (s->kernel) {
    case ST_COPY: ys_stream_copy(s->a, s->c, s->n); break;
    case ST_MUL: ys_stream_mul(s->b, s->c, STREAM_SCALAR, s->n); break;
    case ST_ADD: ys_stream_add(s->a, s->b, s->c, s->n); break;
    case ST_TRIAD:
        ys_stream_triad(s->a, s->b, s->c, STREAM_SCALAR, s->n);
        break;
    default: s->dot = ys_stream_dot(s->a, s->b, s->n); break;
    }
}

/* The array a kernel writes (NULL for dot). */
static double *stream_output(const stream_ctx *s)
{
    switch (s->kernel) {
    case ST_COPY: case ST_ADD: return s->c;
    case ST_MUL: return s->b;
    case ST_TRIAD: return s->a;
    default: return NULL;
    }
}

static void bench_stream(bench *b)
{
    const size_t n = (size_t)1 << 25;
    stream_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.n = n;
    ctx.a = (double *)device_alloc(n * sizeof(double));
    ctx.b = (double *)device_alloc(n * sizeof(double));
    ctx.c = (double *)device_alloc(n * sizeof(double));
    double *ref = (double *)device_alloc(n * sizeof(double));
    char size[32];
    size_label(size, sizeof size, n);

    for (int k = 0; k < ST_COUNT; ++k) {
        row *r = new_row(b, "stream", STREAM_NAMES[k], size);
        const double bytes = (double)STREAM_ARRAYS[k] * (double)n * 8.0;
        r->region = bytes >= (double)b->ys.cache_bytes ? "bandwidth"
                                                       : "latency";
        r->ys_name = b->ys.stream;
        r->amount = bytes;
        r->unit = "GB/s";
        r->unit_scale = 1e9;
        ctx.kernel = k;
        /* Fresh inputs in (-1, 1) for every kernel. */
        DUO_CHECK(bench_fill_f64(ctx.a, n, new_seed(b)));
        DUO_CHECK(bench_fill_f64(ctx.b, n, new_seed(b)));
        DUO_CHECK(bench_fill_f64(ctx.c, n, new_seed(b)));

        double *out = stream_output(&ctx);
        if (out != NULL) {
            /* duo's output kept in ref, then the yardstick's compared:
             * copy, mul and add exactly; triad within 4 u (|b + s c| <
             * 1.4, so fused or not, the two differ by less). */
            run_duo_stream(&ctx);
            DUO_CHECK(duo_memcpy(ref, out, n * sizeof(double),
                                 DUO_DEVICE_TO_DEVICE));
            DUO_CHECK(duo_memset(out, 0xff, n * sizeof(double)));
            run_ys_stream(&ctx);
            double diff = 0.0;
            DUO_CHECK(bench_max_abs_diff(out, ref, n, &diff));
            const double bound = k == ST_TRIAD ? 4.0 * 0x1p-53 : 0.0;
            r->check_ok = diff <= bound;
            snprintf(r->check, sizeof r->check,
                     "max |duo - %s| = %.3g <= %.3g", r->ys_name, diff,
                     bound);
        } else {
            run_duo_stream(&ctx);
            const double duo_dot = ctx.dot;
            run_ys_stream(&ctx);
            double abs_dot = 0.0;
            DUO_CHECK(bench_abs_dot(ctx.a, ctx.b, n, &abs_dot));
            const double bound = 2.0 * (double)n * 0x1p-53 * abs_dot;
            const double diff = fabs(duo_dot - ctx.dot);
            r->check_ok = isfinite(duo_dot) && diff <= bound;
            snprintf(r->check, sizeof r->check,
                     "|duo - %s| = %.3g <= %.3g", r->ys_name, diff, bound);
        }
        measure(b, run_duo_stream, run_ys_stream, &ctx, r);
        finish_row(b, r);
    }
    DUO_CHECK(duo_free(ctx.a));
    DUO_CHECK(duo_free(ctx.b));
    DUO_CHECK(duo_free(ctx.c));
    DUO_CHECK(duo_free(ref));
}

/* ------------------------------------------------------------------ */
/* Reports                                                             */

static void print_table(const bench *b, FILE *f)
{
    const char *group = "";
    fprintf(f, "\nduo-bench: backend %s on %s; ratio = yardstick time / duo "
            "time (>1: duo faster), medians; best: the same for the fastest "
            "runs\n", duo_backend_name(), b->dev.name);
    for (size_t i = 0; i < b->nrows; ++i) {
        const row *r = &b->rows[i];
        if (strcmp(group, r->group) != 0) {
            group = r->group;
            fprintf(f, "\n== %s ==\n", group);
            if (strcmp(group, "gemm") == 0 && b->ys.gemm == NULL)
                fprintf(f, "%s\n", b->ys.gemm_missing);
            fprintf(f, "%-12s %-15s %-9s %10s %14s  %-22s %10s %14s %7s "
                    "%6s %9s  %s\n", "what", "size", "region", "duo time",
                    "duo rate", "yardstick", "time", "rate", "ratio", "best",
                    "target", "met?");
        }
        row_cells c;
        format_cells(&c, r);
        fprintf(f, "%-12s %-15s %-9s %10s %14s  %-22s %10s %14s %7s %6s "
                "%9s  %s\n", r->what, r->size, r->region, c.duo_time,
                c.duo_rate, r->ys_name ? r->ys_name : "-", c.ys_time,
                c.ys_rate, c.ratio, c.best, c.target, met_text(r));
    }
    fputc('\n', f);
}

/* Quote a CSV field that could hold a comma or quote. */
static void csv_field(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* A number, or an empty field when it is missing (negative). */
static void csv_number(FILE *f, double v)
{
    if (v >= 0)
        fprintf(f, "%.6g", v);
}

static void write_csv(const bench *b, const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        fatal("cannot write %s", path);
    fprintf(f, "backend,group,what,size,region,duo_ms,duo_rate,rate_unit,"
            "duo_reps,yardstick,ys_ms,ys_rate,ys_reps,ratio,target,met,"
            "check_ok,check,duo_min_ms,ys_min_ms\n");
    for (size_t i = 0; i < b->nrows; ++i) {
        const row *r = &b->rows[i];
        char target[16];
        format_target(target, sizeof target, r);
        fprintf(f, "%s,%s,%s,%s,%s,", duo_backend_name(), r->group,
                r->what, r->size, r->region);
        csv_number(f, r->duo_ms);
        fputc(',', f);
        csv_number(f, rate(r, r->duo_ms));
        fprintf(f, ",%s,%zu,", r->unit, r->duo_reps);
        csv_field(f, r->ys_name ? r->ys_name : "");
        fputc(',', f);
        csv_number(f, r->ys_ms);
        fputc(',', f);
        csv_number(f, rate(r, r->ys_ms));
        fprintf(f, ",%zu,", r->ys_reps);
        csv_number(f, speed_ratio(r));
        fprintf(f, ",%s,%s,%d,", target, met_text(r), r->check_ok);
        csv_field(f, r->check);
        fputc(',', f);
        csv_number(f, r->duo_min_ms);
        fputc(',', f);
        csv_number(f, r->ys_min_ms);
        fputc('\n', f);
    }
    if (fclose(f) != 0)
        fatal("error writing %s", path);
}

/* Text for a markdown table cell: '|' escaped. */
static void md_cell(FILE *f, const char *s)
{
    for (; *s; ++s) {
        if (*s == '|')
            fputc('\\', f);
        fputc(*s, f);
    }
}

static void write_md(const bench *b, const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        fatal("cannot write %s", path);
    fprintf(f, "# duo-bench: %s backend\n\n", duo_backend_name());
    fprintf(f, "- Date: %s\n", b->date);
    fprintf(f, "- Command: `%s`\n", b->command);
    fprintf(f, "- Device: %s", b->dev.name);
    if (b->ys.machine[0])
        fprintf(f, " (%s)", b->ys.machine);
    if (b->gpu)
        fprintf(f, "\n- Host CPU: %s\n", b->cpu);
    else
        fprintf(f, "\n- CPU: %s; duo uses %d thread%s; OMP_PROC_BIND=%s\n",
                b->cpu, b->dev.cpu_threads,
                b->dev.cpu_threads == 1 ? "" : "s",
                getenv("OMP_PROC_BIND") ? getenv("OMP_PROC_BIND") : "(unset)");
    fprintf(f, "- Yardsticks: reduce: %s; gemm: %s; stream: %s; launch: "
            "%s\n", b->ys.reduce, b->ys.gemm ? b->ys.gemm : b->ys.gemm_missing,
            b->ys.stream, bench_raw_launch_name());
    fprintf(f, "- Tools: %s\n", b->ys.versions);
    fprintf(f, "- Mode: %s\n", b->quick ? "--quick (smoke run: fewer "
            "sizes and runs)" : "full");
    if (b->load_start[0])
        fprintf(f, "- Load average (1 min) at start / end: %s / %s on %ld "
                "CPUs online%s\n", b->load_start, b->load_end,
                b->cpus_online,
                atof(b->load_start) > 0.5 * (double)b->cpus_online ||
                        atof(b->load_end) > 0.5 * (double)b->cpus_online
                    ? " -- other processes were running: CPU timings are "
                      "noisy; the column best (fastest runs) is steadier"
                    : "");
    fputc('\n', f);

    fprintf(f, "## Targets\n\n| target | measured | result |\n|---|---|---|\n");
    for (size_t t = 0; t < NTARGETS; ++t) {
        if (TARGETS[t].gpu != b->gpu)
            continue;
        const row *found = NULL;
        for (size_t i = 0; i < b->nrows; ++i)
            if (row_answers(&b->rows[i], &TARGETS[t]))
                found = &b->rows[i];
        double measured = -1.0;
        const int state =
            found ? target_state_for(found, &TARGETS[t], &measured) : -1;
        fprintf(f, "| %s | ", TARGETS[t].text);
        if (measured > 0)
            fprintf(f, "%.3fx%s", measured,
                    TARGETS[t].time_form ? " (time)" : "");
        else
            fprintf(f, "-");
        fprintf(f, " | %s |\n",
                found == NULL ? "not measured (group or size not run)"
                : state == 1  ? "MET"
                : state == 0  ? (found->check_ok ? "MISSED"
                                                 : "MISSED (check failed)")
                              : "not measured (no yardstick)");
    }

    fprintf(f, "\n## Results\n\nratio = yardstick time / duo time (above 1: "
            "duo faster; for rates, duo rate / yardstick rate).  Times are "
            "medians per operation (launch: per launch); best = the ratio of "
            "the fastest runs.  target: \">=x\" "
            "is the ratio to reach; \"t<=x\" bounds duo time / yardstick "
            "time.\n");
    const char *group = "";
    for (size_t i = 0; i < b->nrows; ++i) {
        const row *r = &b->rows[i];
        if (strcmp(group, r->group) != 0) {
            group = r->group;
            fprintf(f, "\n### %s\n\n| what | size | region | duo time | "
                    "duo rate | yardstick | time | rate | ratio | best | "
                    "target | met? | runs | check |\n|---|---|---|---|---|---|"
                    "---|---|---|---|---|---|---|---|\n", group);
        }
        row_cells c;
        format_cells(&c, r);
        fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s "
                "| %s | %zu | %s", r->what, r->size, r->region, c.duo_time,
                c.duo_rate, r->ys_name ? r->ys_name : "-", c.ys_time,
                c.ys_rate, c.ratio, c.best, c.target, met_text(r),
                r->duo_reps, r->check_ok ? "ok: " : "FAILED: ");
        md_cell(f, r->check);
        fprintf(f, " |\n");
    }

    fprintf(f, "\n## Method\n\n"
            "- duo and the yardstick run in one process on the same device "
            "buffers; both are timed by the same `duo_timer` calls on the "
            "default stream (%s).\n"
            "- Inputs: fresh random values in (-1, 1), never 0, generated "
            "on the device by a hash of (seed, index), a new seed per "
            "buffer and row.  Results are checked before timing: reduce "
            "sums against the yardstick within n (u_yardstick + u_f64) "
            "sum|x| and against an independent double sum within "
            "2 n u_f64 sum|x|, min/max exactly; gemm on %d sampled "
            "elements of C recomputed on the host in double, duo and the "
            "yardstick each within (K+2) u sum|A||B|, with C starting as "
            "NaN (beta = 0); stream copy/mul/add exactly, triad within "
            "4 u_f64, dot within 2 n u_f64 sum|a b|; launch exactly.\n"
            "- Timing: one warm-up run of each side, then runs alternating "
            "duo and the yardstick (ABBA) until each has %zu and one side "
            "has run %.0f ms, or %zu runs; medians reported.%s\n"
            "- region: bandwidth = the data is larger than the %s "
            "%zu MB), latency = it fits there (timings are then set by "
            "launch and synchronization more than by memory).\n",
            b->gpu ? "CUDA events on the legacy default stream"
                   : "a monotonic clock",
            GEMM_SAMPLES, b->min_reps, b->budget_ms, b->max_reps,
            b->gpu ? "  After each row the GPU rests as long as that row's "
                     "timed runs took (at most 1 s), so that the power "
                     "cap reached under the large rows does not lower the "
                     "clock of the rows after them."
                   : "",
            b->gpu ? "GPU's L2 cache (" : "last-level cache (assumed at most",
            b->ys.cache_bytes >> 20);
    if (b->gpu)
        fprintf(f, "- reduce: duo_reduce returns its result in host memory, "
                "so the CUB yardstick is cub::DeviceReduce plus a "
                "cudaMemcpy of the result to pinned host memory (temporary "
                "storage allocated outside the timed calls).  CUB sums f32 "
                "in f32, duo in f64.\n"
                "- gemm: cuBLAS in CUBLAS_PEDANTIC_MATH (strict fp32, no "
                "TF32), row-major via C^T = op(B)^T op(A)^T.\n"
                "- launch: %d back-to-back launches of the same "
                "DUO_KERNEL triad by DUO_LAUNCH and by "
                "stream_triad<<<ceil(n/256), 256>>> (cudaGetLastError after "
                "each), timed together; the table shows time per launch.\n"
                "- stream: BabelStream kernels, n = 2^25 doubles, bytes as "
                "BabelStream counts them (copy/mul/dot 2 arrays, add/triad "
                "3); the raw kernels are grid-stride loops (256 threads, 32 "
                "blocks per SM), dot a shuffle reduction per block plus a "
                "second pass and the result copied to the host.\n",
                LAUNCHES);
    else
        fprintf(f, "- reduce: the yardstick is `double s = 0; #pragma omp "
                "parallel for reduction(+:s)` over the floats (duo also "
                "accumulates in double).\n"
                "- gemm: OpenBLAS cblas_?gemm (CblasRowMajor) with duo's "
                "thread count, when found.  With more than one thread "
                "OpenBLAS's worker threads spin for a while after each "
                "call, on the cores duo's threads need, so the two sides "
                "are then not alternated: duo's runs come first, after a "
                "pause for those threads to go to sleep (here %.2f s), then "
                "OpenBLAS's.\n"
                "- launch: %d calls of the same triad kernel by DUO_LAUNCH "
                "and as a direct function call; the table shows time per "
                "call.\n"
                "- stream: BabelStream kernels, n = 2^25 doubles, bytes as "
                "BabelStream counts them; the yardstick is BabelStream's "
                "OpenMP loops.\n", b->ys.settle_seconds, LAUNCHES);
    if (fclose(f) != 0)
        fatal("error writing %s", path);
}

/* mkdir -p */
static void make_dirs(const char *path)
{
    char buf[1024];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        fatal("--out path too long: %s", path);
    for (char *p = buf + 1; *p; ++p) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            fatal("cannot create directory %s", buf);
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        fatal("cannot create directory %s", buf);
    struct stat st;
    if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
        fatal("--out %s is not a directory", path);
}

/* The 1-minute load average ("" when unknown): other processes on the
 * machine make CPU timings noisy, so the report says how busy it was. */
static void read_load(char *buf, size_t size)
{
    buf[0] = '\0';
    FILE *f = fopen("/proc/loadavg", "r");
    if (f == NULL)
        return;
    double one = 0.0;
    if (fscanf(f, "%lf", &one) == 1)
        snprintf(buf, size, "%.2f", one);
    fclose(f);
}

static void read_cpu_model(char *buf, size_t size)
{
    snprintf(buf, size, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL)
        return;
    char line[512];
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        const char *colon = strchr(line, ':');
        if (colon == NULL)
            continue;
        ++colon;
        while (*colon == ' ' || *colon == '\t')
            ++colon;
        snprintf(buf, size, "%s", colon);
        buf[strcspn(buf, "\n")] = '\0';
        break;
    }
    fclose(f);
}

/* ------------------------------------------------------------------ */
/* solver                                                              */

/* Iterations per timed run: short of convergence at every size here
 * (CG needs about 390 at 128^2 for 1e-8), so every run does the same
 * work on data far from underflow. */
#define SOLVER_ITERATIONS (8 * CG_BATCH)

typedef struct solver_ctx {
    cg_solver cg;
} solver_ctx;

static void run_duo_cg(void *p)
{
    solver_ctx *c = (solver_ctx *)p;
    cg_solver_start(&c->cg);
    cg_solver_run(&c->cg, SOLVER_ITERATIONS / CG_BATCH);
}

static void run_duo_cg_uncaptured(void *p)
{
    solver_ctx *c = (solver_ctx *)p;
    cg_solver_start(&c->cg);
    cg_solver_run_uncaptured(&c->cg, SOLVER_ITERATIONS / CG_BATCH);
}

static void run_ys_cg(void *p)
{
    (void)p;
    ys_cg_run();
}

/* After one run of each: ||x_duo - x_ys|| <= 1e-6 ||x_ys||.  The two add
 * their dot products in different orders, so their iterates drift apart
 * from the rounding level u at a rate bounded by cond(A) (at most ~2e6
 * here); 1e-6 is far above that and far below the O(1) difference of a
 * wrong step. */
static void check_cg(solver_ctx *c, row *r)
{
    const size_t n = c->cg.count, bytes = n * sizeof(double);
    double *xd = (double *)malloc(bytes), *xy = (double *)malloc(bytes);
    if (xd == NULL || xy == NULL)
        fatal("out of host memory (%s)", "cg check");
    DUO_CHECK(duo_memcpy(xd, c->cg.x, bytes, DUO_DEVICE_TO_HOST));
    DUO_CHECK(duo_memcpy(xy, ys_cg_x(), bytes, DUO_DEVICE_TO_HOST));
    double d2 = 0.0, y2 = 0.0;
    for (size_t i = 0; i < n; ++i) {
        d2 += (xd[i] - xy[i]) * (xd[i] - xy[i]);
        y2 += xy[i] * xy[i];
    }
    const double rel = y2 > 0 ? sqrt(d2 / y2) : sqrt(d2);
    r->check_ok = rel <= 1e-6 && y2 > 0;
    snprintf(r->check, sizeof r->check, "||x-x_%s|| / ||x_%s|| = %.2g "
             "<= 1e-6", r->ys_name ? r->ys_name : "ys",
             r->ys_name ? r->ys_name : "ys", rel);
    free(xd);
    free(xy);
}

/* x after a graph run and after a plain run: the same bits. */
static void check_uncaptured(solver_ctx *c, row *r)
{
    const size_t bytes = c->cg.count * sizeof(double);
    double *xg = (double *)malloc(bytes), *xp = (double *)malloc(bytes);
    if (xg == NULL || xp == NULL)
        fatal("out of host memory (%s)", "cg check");
    run_duo_cg(c);
    DUO_CHECK(duo_memcpy(xg, c->cg.x, bytes, DUO_DEVICE_TO_HOST));
    run_duo_cg_uncaptured(c);
    DUO_CHECK(duo_memcpy(xp, c->cg.x, bytes, DUO_DEVICE_TO_HOST));
    r->check_ok = memcmp(xg, xp, bytes) == 0;
    snprintf(r->check, sizeof r->check, "x %s with and without the graph",
             r->check_ok ? "bit-identical" : "DIFFERS");
    free(xg);
    free(xp);
}

static void bench_solver(bench *b)
{
    static const size_t gpu_sides[] = {128, 512, 2048};
    static const size_t cpu_sides[] = {128, 512};
    const size_t *sides = b->gpu ? gpu_sides : cpu_sides;
    size_t count = b->gpu ? 3 : 2;
    if (b->quick)
        count = 1;
    for (size_t s = 0; s < count; ++s) {
        const size_t side = sides[s], n = side * side;
        char what[32], size[32];
        snprintf(what, sizeof what, "cg %d it", SOLVER_ITERATIONS);
        snprintf(size, sizeof size, "%zux%zu", side, side);
        row *r = new_row(b, "solver", what, size);
        r->region = n * 5 * sizeof(double) >= b->ys.cache_bytes ? "bandwidth"
                                                                : "latency";
        /* duo's traffic: 14 doubles per unknown and iteration. */
        r->amount = 14.0 * sizeof(double) * (double)n * SOLVER_ITERATIONS;
        r->unit = "GB/s";
        r->unit_scale = 1e9;
        double *rhs = (double *)device_alloc(n * sizeof(double));
        DUO_CHECK(bench_fill_f64(rhs, n, new_seed(b)));
        solver_ctx ctx;
        cg_solver_create(&ctx.cg, side, side, 0.0, SOLVER_ITERATIONS, rhs);
        const int has_ys = ys_cg_setup(side, side, rhs, SOLVER_ITERATIONS);
        r->ys_name = has_ys ? (b->gpu ? "raw CUDA cg" : "OpenMP cg") : NULL;
        run_duo_cg(&ctx);
        if (has_ys) {
            run_ys_cg(&ctx);
            DUO_CHECK(duo_synchronize());
            check_cg(&ctx, r);
        }
        measure(b, run_duo_cg, has_ys ? run_ys_cg : NULL, &ctx, r);
        finish_row(b, r);

        /* What the graph costs or saves: the same iterations as plain
         * calls.  The results are the same bits. */
        snprintf(what, sizeof what, "cg %d it graph", SOLVER_ITERATIONS);
        row *g = new_row(b, "solver", what, size);
        g->region = r->region;
        g->amount = r->amount;
        g->unit = r->unit;
        g->unit_scale = r->unit_scale;
        g->ys_name = "duo, no graph";
        check_uncaptured(&ctx, g);
        measure(b, run_duo_cg, run_duo_cg_uncaptured, &ctx, g);
        finish_row(b, g);
        if (has_ys)
            ys_cg_free();
        cg_solver_destroy(&ctx.cg);
        DUO_CHECK(duo_free(rhs));
    }
}

/* ------------------------------------------------------------------ */
/* main                                                                */

static unsigned parse_groups(const char *text)
{
    unsigned groups = 0;
    char buf[128];
    if (snprintf(buf, sizeof buf, "%s", text) >= (int)sizeof buf)
        usage_error("--only: value too long:", text);
    for (char *tok = buf; tok != NULL;) {
        char *comma = strchr(tok, ',');
        if (comma != NULL)
            *comma = '\0';
        unsigned g = 0;
        for (unsigned i = 0; i < NGROUPS; ++i)
            if (strcmp(tok, GROUP_NAMES[i]) == 0)
                g = 1u << i;
        if (g == 0)
            usage_error("--only: expected reduce, gemm, launch, stream or "
                        "solver, got", tok);
        groups |= g;
        tok = comma != NULL ? comma + 1 : NULL;
    }
    return groups;
}

static void parse_args(int argc, char **argv, bench *b)
{
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        const char *eq = strchr(arg, '=');
        const size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        if ((len == 6 && strncmp(arg, "--help", 6) == 0) ||
            strcmp(arg, "-h") == 0) {
            fputs(USAGE, stdout);
            exit(0);
        } else if (strcmp(arg, "--quick") == 0) {
            b->quick = 1;
        } else if (len == 5 && strncmp(arg, "--out", 5) == 0) {
            const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
            if (v == NULL || v[0] == '\0')
                usage_error("--out expects a directory, got", v ? v : "");
            b->out_dir = v;
        } else if (len == 6 && strncmp(arg, "--only", 6) == 0) {
            const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
            if (v == NULL)
                usage_error("--only expects a group, got", "");
            b->groups = parse_groups(v);
        } else {
            usage_error("unknown argument", arg);
        }
    }
}

static void describe_run(bench *b, int argc, char **argv)
{
    size_t used = 0;
    const char *omp = getenv("OMP_NUM_THREADS");
    b->command[0] = '\0';
    if (omp != NULL && !b->gpu)
        used += (size_t)snprintf(b->command, sizeof b->command,
                                 "OMP_NUM_THREADS=%s ", omp);
    for (int i = 0; i < argc && used < sizeof b->command; ++i)
        used += (size_t)snprintf(b->command + used, sizeof b->command - used,
                                 "%s%s", i ? " " : "", argv[i]);
    time_t now = time(NULL);
    struct tm utc;
    if (gmtime_r(&now, &utc) != NULL)
        strftime(b->date, sizeof b->date, "%Y-%m-%d %H:%M:%S UTC", &utc);
    else
        snprintf(b->date, sizeof b->date, "unknown");
    read_cpu_model(b->cpu, sizeof b->cpu);
    read_load(b->load_start, sizeof b->load_start);
    b->cpus_online = sysconf(_SC_NPROCESSORS_ONLN);
}

int main(int argc, char **argv)
{
    bench b;
    memset(&b, 0, sizeof b);
    b.groups = GROUP_ALL;
    b.out_dir = "profiles";
    b.next_seed = 1;
    parse_args(argc, argv, &b);
    b.min_reps = b.quick ? 3 : 5;
    b.max_reps = b.quick ? 10 : MAX_REPS;
    b.budget_ms = b.quick ? 50.0 : 200.0;

    DUO_CHECK(duo_init());
#if defined(DUO_BACKEND_CUDA)
    /* The yardsticks of a CUDA build are CUB and cuBLAS: its host path
     * has none here, and is the openmp build's code anyway. */
    if (strcmp(duo_backend_name(), "cuda") != 0) {
        fprintf(stderr, "%s: this CUDA build is on its host path (%s); "
                "duo-bench measures the GPU here. For the CPU, run the "
                "openmp build's duo-bench (make openmp), whose yardsticks "
                "are OpenMP and OpenBLAS\n", PROG, duo_backend_reason());
        return 77;
    }
#endif
    DUO_CHECK(duo_device_info_get(&b.dev));
    b.gpu = strcmp(duo_backend_name(), "cuda") == 0;
    ys_init(b.dev.cpu_threads, &b.ys);
    DUO_CHECK(duo_timer_create(&b.timer));
    describe_run(&b, argc, argv);
    make_dirs(b.out_dir);

    char csv[1200], md[1200];
    snprintf(csv, sizeof csv, "%s/bench-%s.csv", b.out_dir,
             duo_backend_name());
    snprintf(md, sizeof md, "%s/bench-%s.md", b.out_dir, duo_backend_name());
    fprintf(stderr, "%s: backend %s, device %s, %d CPU thread%s; %s; "
            "writing %s and %s\n", PROG, duo_backend_name(), b.dev.name,
            b.dev.cpu_threads, b.dev.cpu_threads == 1 ? "" : "s",
            b.ys.versions, csv, md);

    if (b.groups & GROUP_REDUCE)
        bench_reduce(&b);
    if (b.groups & GROUP_GEMM)
        bench_gemm(&b);
    if (b.groups & GROUP_LAUNCH)
        bench_launch(&b);
    if (b.groups & GROUP_STREAM)
        bench_stream(&b);
    if (b.groups & GROUP_SOLVER)
        bench_solver(&b);

    read_load(b.load_end, sizeof b.load_end);
    print_table(&b, stdout);
    fflush(stdout);
    write_csv(&b, csv);
    write_md(&b, md);
    fprintf(stderr, "%s: wrote %s and %s; %d check%s failed\n", PROG, csv, md,
            b.failed_checks, b.failed_checks == 1 ? "" : "s");

    DUO_CHECK(duo_timer_destroy(b.timer));
    ys_finalize();
    free(b.rows);
    DUO_CHECK(duo_finalize());
    return b.failed_checks ? 1 : 0;
}
