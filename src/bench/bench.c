/*
 * bench.c - duo-bench: duo measured against the yardstick of its backend
 * (yardstick.h) in the same process, on the same buffers, in one run.
 *
 *   build/<backend>/bin/duo-bench [--out DIR] [--quick]
 *       [--only GROUP[,GROUP...]] [--help]
 *
 * Groups: the table in bench_groups.def, each described at the top of
 * its bench_<group>.c; bench.h says how to add one.
 *
 * Method: inputs are fresh random values (never 0) generated on the
 * device, new ones for every row; each row's results are checked before
 * it is timed; then one warm-up run of each side, and timed runs that
 * alternate duo and the yardstick (ABBA order) until each side has at
 * least 5 runs and one side has run 0.2 s, or 50 runs; the median of
 * each side is reported (measure.c).  Both sides are timed by the same
 * duo_timer calls on the default stream (CUDA events on the GPU, a
 * monotonic clock on the CPU).  On the GPU each row is followed by a
 * rest as long as its timed runs (at most 1 s).
 *
 * Writes a table to stdout, progress to stderr, and DIR/bench-<backend>.csv
 * and DIR/bench-<backend>.md (default DIR: profiles; report.c).  Exit
 * status: 0, or 1 if a result check failed (or duo or a yardstick
 * failed), 2 on a bad command line.  Environment: DUO_BENCH_GEMM_SHAPES
 * (bench_gemm.c).
 *
 * This file: the options, the choice of groups, and the run.
 */
#define _POSIX_C_SOURCE 200809L /* mkdir, gmtime_r */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define BENCH_GROUP(name) &bench_group_##name,
const bench_group *const bench_groups[] = {
#include "bench_groups.def"
};
#undef BENCH_GROUP
#define NGROUPS (sizeof bench_groups / sizeof bench_groups[0])
const size_t bench_group_count = NGROUPS;
_Static_assert(NGROUPS <= 32, "bench.groups: a bit per group, in 32 bits");

/* ------------------------------------------------------------------ */
/* Options                                                             */

static const char *const USAGE_HEAD =
    "usage: duo-bench [--out DIR] [--quick] [--only GROUPS] [--help]\n"
    "  Measure duo against the yardstick of its backend (CUDA: CUB,\n"
    "  cuBLAS, raw kernels; CPU: OpenMP loops, OpenBLAS) in one run, and\n"
    "  write DIR/bench-<backend>.csv and DIR/bench-<backend>.md.\n"
    "  --out DIR      where the reports go (default: profiles)\n"
    "  --quick        fewer sizes and runs, for a smoke test\n";
static const char *const USAGE_TAIL =
    "  --help         this text\n"
    "  The table's ratio is yardstick time / duo time: above 1, duo is\n"
    "  faster.  Exit status 1 if any result check failed.\n";

/* The usage text, with the groups of the table in --only's line. */
static void print_usage(FILE *f)
{
    enum { WIDTH = 72, INDENT = 17 };
    static const char tail[] = "separated by commas (default: all)";
    fputs(USAGE_HEAD, f);
    int col = fprintf(f, "  --only GROUPS  one or more of");
    /* Words: each group with its comma, then the tail. */
    for (size_t g = 0; g <= NGROUPS; ++g) {
        const int last = g == NGROUPS;
        const char *word = last ? tail : bench_groups[g]->name;
        if (col + 1 + (int)strlen(word) + !last > WIDTH) {
            col = INDENT;
            fprintf(f, "\n%*s", INDENT, "");
        } else {
            ++col;
            fputc(' ', f);
        }
        col += fprintf(f, "%s%s", word, last ? "" : ",");
    }
    fputc('\n', f);
    fputs(USAGE_TAIL, f);
}

void bench_fatal(const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", PROG);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    exit(1);
}

static void usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "%s: %s '%s'\n\n", PROG, what, arg);
    print_usage(stderr);
    exit(2);
}

/* The group names in "--only: expected a, b or c, got 'name'". */
static void unknown_group(const char *name)
{
    char what[512];
    size_t used = (size_t)snprintf(what, sizeof what, "--only: expected");
    for (size_t g = 0; g < NGROUPS && used < sizeof what; ++g) {
        const char *sep = g == 0 ? " " : g + 1 < NGROUPS ? ", " : " or ";
        used += (size_t)snprintf(what + used, sizeof what - used, "%s%s",
                                 sep, bench_groups[g]->name);
    }
    if (used < sizeof what)
        snprintf(what + used, sizeof what - used, ", got");
    usage_error(what, name);
}

static unsigned long parse_groups(const char *text)
{
    unsigned long groups = 0;
    char buf[128];
    if (snprintf(buf, sizeof buf, "%s", text) >= (int)sizeof buf)
        usage_error("--only: value too long:", text);
    for (char *tok = buf; tok != NULL;) {
        char *comma = strchr(tok, ',');
        if (comma != NULL)
            *comma = '\0';
        unsigned long g = 0;
        for (size_t i = 0; i < NGROUPS; ++i)
            if (strcmp(tok, bench_groups[i]->name) == 0)
                g = 1ul << i;
        if (g == 0)
            unknown_group(tok);
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
            print_usage(stdout);
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

/* ------------------------------------------------------------------ */
/* The run                                                             */

/* mkdir -p */
static void make_dirs(const char *path)
{
    char buf[1024];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        bench_fatal("--out path too long: %s", path);
    for (char *p = buf + 1; *p; ++p) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            bench_fatal("cannot create directory %s", buf);
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        bench_fatal("cannot create directory %s", buf);
    struct stat st;
    if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
        bench_fatal("--out %s is not a directory", path);
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
    b.groups = ~0ul; /* all */
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

    for (size_t g = 0; g < NGROUPS; ++g)
        if (b.groups & 1ul << g) {
            b.group = bench_groups[g];
            b.group->run(&b);
        }

    read_load(b.load_end, sizeof b.load_end);
    bench_print_table(&b, stdout);
    fflush(stdout);
    bench_write_csv(&b, csv);
    bench_write_md(&b, md);
    fprintf(stderr, "%s: wrote %s and %s; %d check%s failed\n", PROG, csv, md,
            b.failed_checks, b.failed_checks == 1 ? "" : "s");

    DUO_CHECK(duo_timer_destroy(b.timer));
    ys_finalize();
    free(b.rows);
    DUO_CHECK(duo_finalize());
    return b.failed_checks ? 1 : 0;
}
