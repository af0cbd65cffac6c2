/*
 * bench.h - what the files of duo-bench share: the result row, the state
 * of a run, how a row is timed, and the table of groups.
 *
 *   bench.c            the program: options, group selection, the run
 *   bench_groups.def   the table of groups, one line each
 *   bench_<group>.c    one group: its sizes, inputs, checks and rows
 *   measure.c          timing: warm-up, timed runs, medians, rests
 *   rows.c             a new row (and its target), seeds, size labels,
 *                      device buffers
 *   targets.c          the ratios rows are held to
 *   report.c           a row's line on stderr, the table on stdout,
 *                      DIR/bench-<backend>.csv and DIR/bench-<backend>.md
 *   stream_kernels.c   duo-bench's kernels (stream_kernels.h)
 *   prims_kernels.c    the prims group's kernels (prims_kernels.h)
 *   yardstick_*        what duo is measured against (yardstick.h)
 *
 * A group is a function that adds rows to the run, each made alike:
 *
 *   row *r = bench_new_row(b, what, size);       e.g. "sum f32", "2^20"
 *   r->region = "bandwidth";                     or latency, compute...
 *   r->amount = bytes; r->unit = "GB/s"; r->unit_scale = 1e9;
 *   r->ys_name = b->ys.reduce;                   NULL: no yardstick
 *   DUO_CHECK(bench_fill_f32(x, n, bench_new_seed(b)));  fresh inputs
 *   run_duo(&ctx); run_ys(&ctx);                 one run of each side,
 *   r->check_ok = ...; snprintf(r->check, ...);  its results checked,
 *   bench_measure(b, run_duo, run_ys, &ctx, r);  then timed,
 *   bench_finish_row(b, r);                      and reported
 *
 * Adding a group "scan" is a file and a line:
 *   1. bench_scan.c, ending with the group's entry (the optional
 *      fields: see bench_group below):
 *        const bench_group bench_group_scan = {
 *            .name = "scan",
 *            .run = bench_scan,
 *            .write_method = write_scan_method,
 *        };
 *   2. BENCH_GROUP(scan) in bench_groups.def, where it is to run.
 * The build compiles bench_<name>.c for each line of bench_groups.def
 * (CMakeLists.txt reads it), and --only, --help, the table and both
 * reports take the group from there.  A group file is plain C11, built
 * by the C compiler in every build: kernels of its own go in a kernel
 * source (stream_kernels.c, which nvcc compiles in a CUDA build), its
 * yardstick beside the others (yardstick.h), and targets for its rows,
 * if any, in targets.c.
 */
#ifndef DUO_BENCH_BENCH_H
#define DUO_BENCH_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <duo.h>

#include "yardstick.h"

#define PROG "duo-bench"

/* The most timed runs of each side of a row. */
enum { MAX_REPS = 50 };

/* Elements of C the gemm check recomputes (bench_gemm.c); the report's
 * Method section quotes it. */
enum { GEMM_SAMPLES = 64 };

typedef struct bench bench;

/* A group of rows (bench_groups.def).  Optional fields may be NULL. */
typedef struct bench_group {
    const char *name; /* for --only, and the rows' group column */
    void (*run)(bench *b); /* adds the group's rows */
    /* Optional: its bullets in the Method section of the markdown
     * report, written whether the group ran or not. */
    void (*write_method)(const bench *b, FILE *f);
    /* Optional: a line under its heading in the table on stdout, or
     * NULL for none (e.g. why its yardstick is missing). */
    const char *(*table_note)(const bench *b);
} bench_group;

/* The groups, in the order they run and are reported (bench.c). */
#define BENCH_GROUP(name) extern const bench_group bench_group_##name;
#include "bench_groups.def"
#undef BENCH_GROUP
extern const bench_group *const bench_groups[];
extern const size_t bench_group_count;

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

typedef struct row {
    const bench_group *group;
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

/* targets.c: the targets, and whether row r is the one tg names. */
extern const target_def bench_targets[];
extern const size_t bench_target_count;
int bench_row_answers(const row *r, const target_def *tg);

struct bench {
    int quick;
    unsigned long groups;  /* bit i: bench_groups[i] is to run */
    const char *out_dir;
    size_t min_reps, max_reps;
    double budget_ms;      /* per side */
    duo_timer timer;
    duo_device_info dev;
    ys_info ys;
    int gpu;
    uint64_t next_seed;
    const bench_group *group; /* the group running: new rows are its */
    row *rows;
    size_t nrows, cap;
    int failed_checks;
    char command[1024];
    char date[64];
    char cpu[256];
    char load_start[64], load_end[64]; /* /proc/loadavg, 1-minute */
    long cpus_online;
};

/* bench.c: print PROG: fmt (with arg) on stderr and exit 1. */
void bench_fatal(const char *fmt, const char *arg);

/* rows.c */
/* A new row of the running group, with its target if it has one. */
row *bench_new_row(bench *b, const char *what, const char *size);
/* A seed for bench_fill_*: a new one for every buffer and row. */
uint64_t bench_new_seed(bench *b);
/* "2^k" for powers of two, else the decimal number. */
void bench_size_label(char *buf, size_t size, size_t n);
/* duo_malloc, exiting on failure. */
void *bench_device_alloc(size_t bytes);

/* measure.c: one side of a row, run on ctx. */
typedef void (*bench_op)(void *ctx);
/* One warm-up run of each side, then timed runs alternating duo and the
 * yardstick (ABBA), until both have min_reps and one side has used the
 * time budget, or max_reps; medians and fastest runs into r; then, on
 * the GPU, a rest.  ys may be NULL. */
void bench_measure(bench *b, bench_op duo, bench_op ys, void *ctx, row *r);
/* For a yardstick whose threads keep spinning after each call (OpenBLAS
 * on the CPU: ys_info.settle_seconds > 0): wait for them to stop, time
 * duo's runs, then the yardstick's. */
void bench_measure_blocked(bench *b, bench_op duo, bench_op ys, void *ctx,
                           row *r);
/* Sleep: until a yardstick's worker threads stop spinning (see
 * ys_info.settle_seconds), or a GPU's rest after a row. */
void bench_settle(double seconds);

/* report.c */
/* The row is complete: report it on stderr (and count a failed check). */
void bench_finish_row(bench *b, row *r);
void bench_print_table(const bench *b, FILE *f);
void bench_write_csv(const bench *b, const char *path);
void bench_write_md(const bench *b, const char *path);

#endif /* DUO_BENCH_BENCH_H */
