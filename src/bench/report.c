/*
 * report.c - what duo-bench reports: each row's line on stderr as it
 * completes, the table on stdout, DIR/bench-<backend>.csv (a row per
 * line) and DIR/bench-<backend>.md (the run, the targets, the rows by
 * group, the method).  A row's numbers are printed alike in all three.
 */
#include <stdlib.h>

#include "bench.h"
#include "stream_kernels.h"

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
void bench_finish_row(bench *b, row *r)
{
    char dt[32], yt[32], dr[32];
    format_time(dt, sizeof dt, r->duo_ms);
    format_time(yt, sizeof yt, r->ys_ms);
    format_rate(dr, sizeof dr, r, r->duo_ms);
    const double ratio = speed_ratio(r);
    fprintf(stderr, "%s: [%s] %s %s: duo %s (%s)", PROG, r->group->name,
            r->what, r->size, dt, dr);
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

void bench_print_table(const bench *b, FILE *f)
{
    const bench_group *group = NULL;
    fprintf(f, "\nduo-bench: backend %s on %s; ratio = yardstick time / duo "
            "time (>1: duo faster), medians; best: the same for the fastest "
            "runs\n", duo_backend_name(), b->dev.name);
    for (size_t i = 0; i < b->nrows; ++i) {
        const row *r = &b->rows[i];
        if (r->group != group) {
            group = r->group;
            fprintf(f, "\n== %s ==\n", group->name);
            const char *note =
                group->table_note ? group->table_note(b) : NULL;
            if (note != NULL)
                fprintf(f, "%s\n", note);
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

void bench_write_csv(const bench *b, const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        bench_fatal("cannot write %s", path);
    fprintf(f, "backend,group,what,size,region,duo_ms,duo_rate,rate_unit,"
            "duo_reps,yardstick,ys_ms,ys_rate,ys_reps,ratio,target,met,"
            "check_ok,check,duo_min_ms,ys_min_ms\n");
    for (size_t i = 0; i < b->nrows; ++i) {
        const row *r = &b->rows[i];
        char target[16];
        format_target(target, sizeof target, r);
        /* Names such as "range check, inside" hold commas. */
        fprintf(f, "%s,%s,", duo_backend_name(), r->group->name);
        csv_field(f, r->what);
        fputc(',', f);
        csv_field(f, r->size);
        fputc(',', f);
        csv_field(f, r->region);
        fputc(',', f);
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
        bench_fatal("error writing %s", path);
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

void bench_write_md(const bench *b, const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        bench_fatal("cannot write %s", path);
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
    for (size_t t = 0; t < bench_target_count; ++t) {
        const target_def *tg = &bench_targets[t];
        if (tg->gpu != b->gpu)
            continue;
        const row *found = NULL;
        for (size_t i = 0; i < b->nrows; ++i)
            if (bench_row_answers(&b->rows[i], tg))
                found = &b->rows[i];
        double measured = -1.0;
        const int state = found ? target_state_for(found, tg, &measured) : -1;
        fprintf(f, "| %s | ", tg->text);
        if (measured > 0)
            fprintf(f, "%.3fx%s", measured, tg->time_form ? " (time)" : "");
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
    const bench_group *group = NULL;
    for (size_t i = 0; i < b->nrows; ++i) {
        const row *r = &b->rows[i];
        if (r->group != group) {
            group = r->group;
            fprintf(f, "\n### %s\n\n| what | size | region | duo time | "
                    "duo rate | yardstick | time | rate | ratio | best | "
                    "target | met? | runs | check |\n|---|---|---|---|---|---|"
                    "---|---|---|---|---|---|---|---|\n", group->name);
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
    for (size_t g = 0; g < bench_group_count; ++g)
        if (bench_groups[g]->write_method != NULL)
            bench_groups[g]->write_method(b, f);
    if (fclose(f) != 0)
        bench_fatal("error writing %s", path);
}
