/*
 * app_common.c - argument parsing, random inputs, the timing loop and the
 * result/check lines shared by the duo apps.  Plain C11, no kernels.
 */
#include "app_common.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <duo.h>

/* --reps above this is surely a typo. */
#define APP_MAX_REPS 1000000

/* ------------------------------------------------------------------ */
/* Command line                                                        */

void app_usage_error(const char *prog, const char *usage, const char *fmt,
                     ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n\n%s", usage);
    exit(2);
}

/* A whole string of decimal digits (no sign, no spaces) that fits in
 * uint64_t.  Returns 0 on success. */
static int parse_u64(const char *text, uint64_t *value)
{
    if (text[0] < '0' || text[0] > '9')
        return -1;
    for (const char *p = text; *p; ++p)
        if (*p < '0' || *p > '9')
            return -1;
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno == ERANGE || *end != '\0')
        return -1;
    *value = (uint64_t)v;
    return 0;
}

/* A whole string that strtod reads as a finite number. */
static int parse_real(const char *text, double *value)
{
    if (text[0] == '\0' || text[0] == ' ' || text[0] == '\t')
        return -1;
    errno = 0;
    char *end = NULL;
    double v = strtod(text, &end);
    if (*end != '\0' || errno == ERANGE || !isfinite(v))
        return -1;
    *value = v;
    return 0;
}

static int looks_negative_number(const char *s)
{
    return s[0] == '-' && ((s[1] >= '0' && s[1] <= '9') || s[1] == '.');
}

/* "--name" or "--name=value": the option name's length, and the attached
 * value (or NULL). */
static size_t split_option(const char *arg, const char **attached)
{
    const char *eq = strchr(arg, '=');
    *attached = eq ? eq + 1 : NULL;
    return eq ? (size_t)(eq - arg) : strlen(arg);
}

static int name_is(const char *arg, size_t len, const char *name)
{
    return strlen(name) == len && strncmp(arg, name, len) == 0;
}

/* The value of option `name`: attached, or the next argument. */
static const char *option_value(int argc, char **argv, int *i,
                                const char *attached, const char *name,
                                const char *expected, const char *prog,
                                const char *usage)
{
    if (attached != NULL)
        return attached;
    if (*i + 1 >= argc)
        app_usage_error(prog, usage, "%s expects %s, but no value follows it",
                        name, expected);
    return argv[++*i];
}

/* A text option: non-empty, and given at most once. */
static void set_string(const char **slot, const char *text,
                       const char *name, const char *prog, const char *usage)
{
    if (text[0] == '\0')
        app_usage_error(prog, usage, "%s: expected a value, got an empty "
                        "string", name);
    if (*slot != NULL)
        app_usage_error(prog, usage, "%s given twice ('%s' and '%s'); give "
                        "it once", name, *slot, text);
    *slot = text;
}

static void choices_text(const char *const *choices, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int c = 0; choices[c] != NULL && used < size; ++c) {
        int w = snprintf(buf + used, size - used, "%s%s", c ? "|" : "",
                         choices[c]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

void app_parse(int argc, char **argv, const char *prog, const char *usage,
               int max_sizes, const char *const *size_names,
               const app_option *options, int noptions, app_args *args)
{
    memset(args, 0, sizeof *args);
    args->reps = APP_DEFAULT_REPS;
    args->seed = APP_DEFAULT_SEED;
    if (max_sizes > APP_MAX_SIZES)
        max_sizes = APP_MAX_SIZES;

    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];

        if (arg[0] != '-' || looks_negative_number(arg)) {
            /* A positional size. */
            if (args->nsizes >= max_sizes)
                app_usage_error(prog, usage,
                                "unexpected argument '%s': at most %d size "
                                "argument%s", arg, max_sizes,
                                max_sizes == 1 ? "" : "s");
            const char *name = size_names[args->nsizes];
            uint64_t v = 0;
            if (looks_negative_number(arg))
                app_usage_error(prog, usage,
                                "size %s = '%s' is negative; expected a "
                                "positive integer", name, arg);
            if (parse_u64(arg, &v) != 0 || v > SIZE_MAX)
                app_usage_error(prog, usage,
                                "size %s = '%s': expected a positive integer "
                                "(decimal digits only)", name, arg);
            if (v == 0)
                app_usage_error(prog, usage,
                                "size %s = 0: expected a positive integer "
                                "(at least 1)", name);
            args->sizes[args->nsizes++] = (size_t)v;
            continue;
        }

        const char *attached = NULL;
        size_t len = split_option(arg, &attached);

        if (name_is(arg, len, "--help") || name_is(arg, len, "-h")) {
            if (attached != NULL)
                app_usage_error(prog, usage, "--help takes no value");
            fputs(usage, stdout);
            exit(0);
        }
        if (name_is(arg, len, "--check")) {
            if (attached != NULL)
                app_usage_error(prog, usage, "--check takes no value");
            args->check = 1;
            continue;
        }
        if (name_is(arg, len, "--reps")) {
            const char *expected = "a positive integer (number of timed runs)";
            const char *text = option_value(argc, argv, &i, attached,
                                            "--reps", expected, prog, usage);
            uint64_t v = 0;
            if (parse_u64(text, &v) != 0 || v == 0 || v > APP_MAX_REPS)
                app_usage_error(prog, usage, "--reps '%s': expected %s, "
                                "1 to %d", text, expected, APP_MAX_REPS);
            args->reps = (size_t)v;
            continue;
        }
        if (name_is(arg, len, "--dump")) {
            const char *path = option_value(argc, argv, &i, attached,
                                            "--dump", "a file name", prog,
                                            usage);
            set_string(&args->dump_path, path, "--dump", prog, usage);
            continue;
        }
        if (name_is(arg, len, "--seed")) {
            const char *expected = "a non-negative integer below 2^64";
            const char *text = option_value(argc, argv, &i, attached,
                                            "--seed", expected, prog, usage);
            if (parse_u64(text, &args->seed) != 0)
                app_usage_error(prog, usage, "--seed '%s': expected %s", text,
                                expected);
            continue;
        }

        int found = 0;
        for (int o = 0; o < noptions && !found; ++o) {
            const app_option *opt = &options[o];
            if (!name_is(arg, len, opt->name))
                continue;
            found = 1;
            if (opt->kind == APP_OPT_FLAG) {
                if (attached != NULL)
                    app_usage_error(prog, usage, "%s takes no value",
                                    opt->name);
                *(int *)opt->value = 1;
            } else if (opt->kind == APP_OPT_STRING) {
                const char *text = option_value(argc, argv, &i, attached,
                                                opt->name, "a value", prog,
                                                usage);
                set_string((const char **)opt->value, text, opt->name, prog,
                           usage);
            } else if (opt->kind == APP_OPT_COUNT) {
                const char *expected = "a non-negative integer";
                const char *text = option_value(argc, argv, &i, attached,
                                                opt->name, expected, prog,
                                                usage);
                if (parse_u64(text, (uint64_t *)opt->value) != 0)
                    app_usage_error(prog, usage, "%s '%s': expected %s "
                                    "below 2^64 (decimal digits only)",
                                    opt->name, text, expected);
            } else if (opt->kind == APP_OPT_REAL) {
                const char *expected = "a finite number";
                const char *text = option_value(argc, argv, &i, attached,
                                                opt->name, expected, prog,
                                                usage);
                if (parse_real(text, (double *)opt->value) != 0)
                    app_usage_error(prog, usage, "%s '%s': expected %s",
                                    opt->name, text, expected);
            } else {
                char expected[128];
                choices_text(opt->choices, expected, sizeof expected);
                const char *text = option_value(argc, argv, &i, attached,
                                                opt->name, expected, prog,
                                                usage);
                int c = 0;
                while (opt->choices[c] != NULL &&
                       strcmp(opt->choices[c], text) != 0)
                    ++c;
                if (opt->choices[c] == NULL)
                    app_usage_error(prog, usage, "%s '%s': expected one of "
                                    "%s", opt->name, text, expected);
                *(int *)opt->value = c;
            }
        }
        if (!found)
            app_usage_error(prog, usage, "unknown option '%s'", arg);
    }
}

size_t app_bytes(const char *prog, const char *what, size_t count,
                 size_t size)
{
    if (size != 0 && count > SIZE_MAX / size) {
        fprintf(stderr, "%s: %s: %zu elements of %zu bytes overflow size_t; "
                "use a smaller size\n", prog, what, count, size);
        exit(2);
    }
    return count * size;
}

size_t app_count(const char *prog, const char *what, size_t rows,
                 size_t cols)
{
    if (cols != 0 && rows > SIZE_MAX / cols) {
        fprintf(stderr, "%s: %s: %zu x %zu elements overflow size_t; use "
                "smaller sizes\n", prog, what, rows, cols);
        exit(2);
    }
    return rows * cols;
}

void *app_host_alloc(const char *prog, size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "%s: could not allocate %zu bytes of host memory; "
                "use a smaller size\n", prog, bytes);
        exit(1);
    }
    return p;
}

/* ------------------------------------------------------------------ */
/* Random inputs                                                       */

void app_rng_seed(app_rng *rng, uint64_t seed) { rng->state = seed; }

uint64_t app_rng_u64(app_rng *rng)
{
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double app_rng_real(app_rng *rng)
{
    /* (k + 1/2) / 2^52 - 1 for k in [0, 2^53): never exactly 0, and at
     * least 2^-53 in magnitude, which is a normal float. */
    uint64_t k = app_rng_u64(rng) >> 11;
    return ((double)k + 0.5) * 0x1p-52 - 1.0;
}

void app_fill_f32(float *x, size_t n, app_rng *rng)
{
    for (size_t i = 0; i < n; ++i)
        x[i] = (float)app_rng_real(rng);
}

void app_fill_f64(double *x, size_t n, app_rng *rng)
{
    for (size_t i = 0; i < n; ++i)
        x[i] = app_rng_real(rng);
}

void app_fill_u64(uint64_t *x, size_t n, app_rng *rng)
{
    for (size_t i = 0; i < n; ++i)
        x[i] = app_rng_u64(rng);
}

/* ------------------------------------------------------------------ */
/* Timing and results                                                  */

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double app_time_median_ms(app_run_fn run, void *ctx, size_t reps)
{
    double *ms = (double *)malloc(reps * sizeof *ms);
    if (ms == NULL) {
        fprintf(stderr, "app: could not allocate %zu timings\n", reps);
        exit(1);
    }
    duo_timer timer = NULL;
    DUO_CHECK(duo_timer_create(&timer));
    for (size_t r = 0; r < reps; ++r) {
        DUO_CHECK(duo_timer_start(timer, NULL));
        run(ctx);
        DUO_CHECK(duo_timer_stop(timer, NULL));
        DUO_CHECK(duo_timer_elapsed_ms(timer, &ms[r]));
    }
    DUO_CHECK(duo_timer_destroy(timer));
    qsort(ms, reps, sizeof *ms, compare_double);
    double median = reps % 2 ? ms[reps / 2]
                             : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
    free(ms);
    return median;
}

void app_print_result(const char *prog, const char *size, const char *extra,
                      size_t reps, double median_ms, const char *unit,
                      double amount)
{
    double rate = median_ms > 0 ? amount / (median_ms * 1e6) : 0.0;
    printf("%s: backend=%s size=%s%s%s reps=%zu median_ms=%.5g %s=%.4g\n",
           prog, duo_backend_name(), size, extra[0] ? " " : "", extra, reps,
           median_ms, unit, rate);
    fflush(stdout);
}

int app_report_check(size_t mismatches, size_t total, const char *what,
                     const char *first)
{
    if (mismatches == 0) {
        printf("check: PASS\n");
        fflush(stdout);
        return 0;
    }
    printf("check: FAIL (%zu of %zu %s wrong; first: %s)\n", mismatches,
           total, what, first);
    fflush(stdout);
    return 1;
}

void app_say_path(const char *prog)
{
    printf("%s: path: %s: %s\n", prog, duo_backend_name(),
           duo_backend_reason());
    fflush(stdout);
}

void app_init(const char *prog)
{
    duo_status status = duo_init();
    if (status != DUO_SUCCESS) {
        fprintf(stderr, "%s: %s\n", prog, duo_last_error());
        exit(status == DUO_ERROR_NO_DEVICE ? APP_EXIT_NO_DEVICE : 1);
    }
    app_say_path(prog);
}
