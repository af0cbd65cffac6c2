/*
 * app_common.h - what the duo apps (duo-saxpy, duo-reduce, duo-gemm)
 * share: strict command-line parsing, a seeded random generator, a
 * timing loop over the duo_timer API that reports the median, the one
 * result line, and the "check:" line.
 *
 * app_common.c has no kernels and is always compiled as plain C11
 * (HOST_SOURCES); this header is also included from app sources that a
 * CUDA build compiles as CUDA C++, hence the extern "C".
 */
#ifndef DUO_APP_COMMON_H
#define DUO_APP_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Command line                                                        */

typedef enum app_option_kind {
    APP_OPT_FLAG,   /* no value; sets *(int *)value to 1               */
    APP_OPT_REAL,   /* finite number; *(double *)value                  */
    APP_OPT_CHOICE, /* one of choices[]; *(int *)value = its index      */
    APP_OPT_STRING, /* non-empty text, once; *(const char **)value,
                       which the app sets to NULL first               */
    APP_OPT_COUNT   /* integer >= 0 (0 allowed, unlike sizes);
                       *(uint64_t *)value                              */
} app_option_kind;

/* An app-specific option.  --reps, --seed, --check, --dump and --help
 * are handled for every app and need no entry. */
typedef struct app_option {
    const char *name;            /* "--type"                             */
    app_option_kind kind;
    void *value;                 /* see app_option_kind                  */
    const char *const *choices;  /* APP_OPT_CHOICE: NULL-terminated      */
} app_option;

#define APP_MAX_SIZES 3

typedef struct app_args {
    size_t sizes[APP_MAX_SIZES]; /* positional sizes, each >= 1          */
    int nsizes;                  /* how many were given                  */
    size_t reps;                 /* --reps, default APP_DEFAULT_REPS     */
    uint64_t seed;               /* --seed, default APP_DEFAULT_SEED     */
    int check;                   /* --check                              */
    const char *dump_path;       /* --dump FILE, or NULL                 */
} app_args;

#define APP_DEFAULT_REPS 5
#define APP_DEFAULT_SEED 1

/* Exit status when a CUDA build is told to use the GPU (DUO_DEVICE=gpu)
 * and finds none: CTest's "skipped". */
#define APP_EXIT_NO_DEVICE 77

/* duo_init(), or exit: APP_EXIT_NO_DEVICE when there is no usable GPU,
 * 1 on any other failure, after printing duo's message.  On success the
 * first line of output says which path runs and why:
 *   duo-saxpy: path: cuda-host-fallback: host path, 16 OpenMP ... */
void app_init(const char *prog);
/* That line alone, for the apps that start duo with duo_dist_init (rank
 * 0 prints it). */
void app_say_path(const char *prog);

/*
 * Parse argv strictly.  Positional arguments are sizes (positive
 * integers), at most max_sizes of them, named size_names[i] in messages.
 * An option's value may follow it ("--reps 3") or be attached
 * ("--reps=3").  --help prints usage to stdout and exits 0; any error
 * prints "<prog>: <what was wrong>" and the usage to stderr and exits 2.
 * --dump FILE sets args->dump_path (the file for dump_open, dump.h).
 */
void app_parse(int argc, char **argv, const char *prog, const char *usage,
               int max_sizes, const char *const *size_names,
               const app_option *options, int noptions, app_args *args);

/* Print "<prog>: <message>" and the usage to stderr, exit 2. */
void app_usage_error(const char *prog, const char *usage, const char *fmt,
                     ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4), noreturn))
#endif
    ;

/* count * size in bytes, or exit 2 naming `what` if that overflows. */
size_t app_bytes(const char *prog, const char *what, size_t count,
                 size_t size);

/* rows * cols elements, or exit 2 naming `what` if that overflows. */
size_t app_count(const char *prog, const char *what, size_t rows,
                 size_t cols);

/* malloc that exits 1 with a message on failure (host memory only;
 * device memory comes from duo_malloc). */
void *app_host_alloc(const char *prog, size_t bytes);

/* ------------------------------------------------------------------ */
/* Random inputs: splitmix64, so a seed fixes every value.             */

typedef struct app_rng {
    uint64_t state;
} app_rng;

void app_rng_seed(app_rng *rng, uint64_t seed);
uint64_t app_rng_u64(app_rng *rng);
/* Uniform in (-1, 1), never 0 (also not after rounding to float). */
double app_rng_real(app_rng *rng);

void app_fill_f32(float *x, size_t n, app_rng *rng);   /* (-1, 1), != 0 */
void app_fill_f64(double *x, size_t n, app_rng *rng);  /* (-1, 1), != 0 */
void app_fill_u64(uint64_t *x, size_t n, app_rng *rng); /* all 64 bits  */

/* ------------------------------------------------------------------ */
/* Timing and results                                                  */

/* One timed operation: enqueue the device work (checking every duo
 * call); it need not wait for it. */
typedef void (*app_run_fn)(void *ctx);

/* Run `run` reps times, each between duo_timer_start and duo_timer_stop
 * on the default stream, and return the median in milliseconds.  The
 * caller does the warm-up run. */
double app_time_median_ms(app_run_fn run, void *ctx, size_t reps);

/* The one result line:
 *   <prog>: backend=<b> size=<size> <extra> reps=<r> median_ms=<t> <unit>=<rate>
 * `extra` may be "" (e.g. "type=f32 op=sum"); rate = amount / (ms * 1e6),
 * i.e. amount in bytes gives GB/s and in flops GFLOP/s.  The time is
 * printed with %.5g and the rate with %.4g. */
void app_print_result(const char *prog, const char *size, const char *extra,
                      size_t reps, double median_ms, const char *unit,
                      double amount);

/* Print "check: PASS" (mismatches == 0) or "check: FAIL (<mismatches> of
 * <total> <what> wrong; first: <first>)".  Returns 0 on PASS, 1 on
 * FAIL. */
int app_report_check(size_t mismatches, size_t total, const char *what,
                     const char *first);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DUO_APP_COMMON_H */
