/*
 * profile.c - the built-in profiler: a table of named regions, device
 * timings resolved lazily (so timing never forces a wait in the middle
 * of queued work, except when a pending list is full), and the
 * summary / CSV / JSON reports.  One host thread at a time, like the rest
 * of duo.
 *
 * Where the backend traces device activity (CUPTI on CUDA), a device
 * operation is a traced call: its calls, bytes and flops count when it
 * returns, its time when the trace is drained.  Elsewhere, and for user
 * regions, a record holds a timer pair (CUDA events on the GPU, the
 * monotonic clock on the CPU).  Host waits are timed with the host clock.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "profile.h"

enum {
    MAX_REGIONS = 256,
    MAX_PENDING = 1024,     /* timer records not yet read */
    MAX_TRACED = 1 << 16,   /* traced calls between drains */
    MAX_USER_DEPTH = 64,
    RECORD_NONE = MAX_PENDING,       /* open returned: nothing to time */
    RECORD_TRACED = MAX_PENDING + 1  /* + slot: a traced call */
};

static const char *const kind_names[] = {"kernel", "reduce", "gemm",
                                         "memcpy", "memset", "sync",
                                         "region", "graph"};

typedef struct {
    int busy;          /* holds a measurement not yet added */
    int region;        /* index into regions */
    int closed;        /* stop recorded, elapsed not yet read */
    int host_timed;
    double t0_ms;      /* host-timed records: start, from now_ms() */
    duo_timer timer;   /* created on first use, reused */
    double bytes, flops;
} record;

duo_profile_mode duo_profile_mode_now = DUO_PROFILE_OFF;
static char report_path[512]; /* "" = stderr */
static duo_profile_region regions[MAX_REGIONS];
static unsigned long long timed[MAX_REGIONS]; /* calls with a time so far */
static int region_count;
static record records[MAX_PENDING];
static int user_stack[MAX_USER_DEPTH]; /* open records */
static char user_names[MAX_USER_DEPTH][64];
static int user_depth;
static unsigned long lost;     /* measurements dropped: full tables, a
                                  timer failure or dropped trace records */
static int report_due;         /* something recorded since the last report */
static int atexit_registered;

/* Traced calls since the last drain: call traced_base + i is slot i. */
static int tracing;
static uint64_t traced_base;
static int traced_count;
static unsigned short traced_region[MAX_TRACED];
static uint64_t traced_start[MAX_TRACED], traced_end[MAX_TRACED];

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int find_region(const char *name, duo_region_kind kind)
{
    for (int i = 0; i < region_count; ++i)
        if (strcmp(regions[i].name, name) == 0)
            return i;
    if (region_count == MAX_REGIONS)
        return -1;
    duo_profile_region *s = &regions[region_count];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    snprintf(s->kind, sizeof s->kind, "%s", kind_names[kind]);
    timed[region_count] = 0;
    return region_count++;
}

static void add_call(int r, double bytes, double flops)
{
    regions[r].calls++;
    regions[r].bytes += bytes;
    regions[r].flops += flops;
}

static void add_time(int r, double ms)
{
    duo_profile_region *s = &regions[r];
    if (timed[r] == 0 || ms < s->min_ms)
        s->min_ms = ms;
    if (timed[r] == 0 || ms > s->max_ms)
        s->max_ms = ms;
    timed[r]++;
    s->total_ms += ms;
}

/* A traced activity: widen its call's span. */
static void take_span(uint64_t call, uint64_t start_ns, uint64_t end_ns)
{
    if (call < traced_base || call - traced_base >= (uint64_t)traced_count)
        return; /* not a call of this batch */
    const size_t i = (size_t)(call - traced_base);
    if (start_ns < traced_start[i])
        traced_start[i] = start_ns;
    if (end_ns > traced_end[i])
        traced_end[i] = end_ns;
}

/* Wait for the device and give every traced call its time: the span
 * from its first activity's start to its last one's end; 0 for a call
 * that queued no device work. */
static void drain_trace(void)
{
    if (traced_count == 0)
        return;
    unsigned long dropped = 0;
    if (duo_be_trace_drain(take_span, &dropped) != DUO_SUCCESS) {
        lost += (unsigned long)traced_count;
    } else {
        lost += dropped;
        for (int i = 0; i < traced_count; ++i)
            add_time(traced_region[i],
                     traced_end[i] > traced_start[i]
                         ? (double)(traced_end[i] - traced_start[i]) * 1e-6
                         : 0.0);
    }
    traced_base += (uint64_t)traced_count;
    traced_count = 0;
}

/* Read every closed timer (waits for its stop point) and drain the
 * trace. */
static void resolve_pending(void)
{
    drain_trace();
    for (int i = 0; i < MAX_PENDING; ++i) {
        record *rec = &records[i];
        if (!rec->busy || !rec->closed)
            continue;
        double ms = 0.0;
        if (duo_be_timer_elapsed_ms(rec->timer, &ms) == DUO_SUCCESS) {
            add_call(rec->region, rec->bytes, rec->flops);
            add_time(rec->region, ms);
        } else
            lost++;
        rec->busy = 0;
    }
}

/* Records are handed out round the ring, so finding a free one costs
 * O(1) until the ring is full; then every closed one is resolved at once.
 * (A linear search for a free slot cost 5% of a run of many small
 * operations.) */
static int free_record(void)
{
    static int next;
    for (int pass = 0; pass < 2; ++pass) {
        for (int tries = 0; tries < MAX_PENDING; ++tries) {
            const int i = next;
            next = (next + 1) % MAX_PENDING;
            if (!records[i].busy)
                return i;
        }
        resolve_pending();
    }
    return -1;
}

/* Operations do not nest, so the slot stays the call's until it closes;
 * a full batch is drained first, a wait once every MAX_TRACED calls. */
static int open_traced(int r)
{
    if (traced_count == MAX_TRACED)
        drain_trace();
    const int slot = traced_count;
    duo_be_trace_push(traced_base + (uint64_t)slot);
    traced_region[slot] = (unsigned short)r;
    traced_start[slot] = UINT64_MAX;
    traced_end[slot] = 0;
    traced_count++;
    report_due = 1;
    return RECORD_TRACED + slot;
}

int duo_profile_open_slow(const char *name, duo_region_kind kind,
                          duo_stream stream)
{
    /* Work inside a graph is timed as the graph's replay: a capture runs
     * nothing, and a GPU replay's kernels are not separate calls. */
    if (duo_capture_active() || duo_graph_replaying())
        return -1;
    duo_be_range_push(name);
    if (duo_profile_mode_now == DUO_PROFILE_NVTX)
        return RECORD_NONE; /* a range to pop, nothing to time */
    int r = find_region(name, kind);
    if (r >= 0 && tracing && kind != DUO_REGION_SYNC &&
        kind != DUO_REGION_USER)
        return open_traced(r);
    int i = r < 0 ? -1 : free_record();
    if (i < 0) {
        lost++;
        return RECORD_NONE;
    }
    record *rec = &records[i];
    rec->host_timed = kind == DUO_REGION_SYNC;
    if (rec->host_timed) {
        rec->t0_ms = now_ms();
    } else if ((rec->timer == NULL &&
                duo_be_timer_create(&rec->timer) != DUO_SUCCESS) ||
               duo_be_timer_record(rec->timer, 0, stream) != DUO_SUCCESS) {
        lost++;
        return RECORD_NONE;
    }
    rec->busy = 1;
    rec->region = r;
    rec->closed = 0;
    report_due = 1;
    return i;
}

void duo_profile_close_slow(int i, duo_stream stream, double bytes,
                            double flops)
{
    duo_be_range_pop();
    if (i >= RECORD_TRACED) {
        duo_be_trace_pop();
        add_call(traced_region[i - RECORD_TRACED], bytes, flops);
        return;
    }
    if (i == RECORD_NONE)
        return;
    record *rec = &records[i];
    rec->bytes = bytes;
    rec->flops = flops;
    if (rec->host_timed) {
        add_call(rec->region, bytes, flops);
        add_time(rec->region, now_ms() - rec->t0_ms);
        rec->busy = 0;
    } else if (duo_be_timer_record(rec->timer, 1, stream) == DUO_SUCCESS) {
        rec->closed = 1;
    } else {
        lost++;
        rec->busy = 0;
    }
}

/* ------------------------------------------------------------------ */
/* Reports                                                             */

static int by_total_desc(const void *a, const void *b)
{
    double ta = ((const duo_profile_region *)a)->total_ms;
    double tb = ((const duo_profile_region *)b)->total_ms;
    return (ta < tb) - (ta > tb);
}

/* Program name and arguments from /proc/self/cmdline where there is one. */
static void program_line(char *out, size_t size)
{
    snprintf(out, size, "unknown");
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (f == NULL)
        return;
    size_t n = fread(out, 1, size - 1, f);
    fclose(f);
    out[n] = '\0';
    for (size_t i = 0; i + 1 < n; ++i)
        if (out[i] == '\0')
            out[i] = ' ';
    const char *slash = strrchr(out, '/');
    const char *space = strchr(out, ' ');
    if (slash != NULL && (space == NULL || slash < space))
        memmove(out, slash + 1, strlen(slash + 1) + 1);
}

static double rate(double amount, double ms, double unit)
{
    return ms > 0.0 ? amount / (ms * 1e-3) / unit : 0.0;
}

/* CSV field: quoted if it holds a comma, quote or newline. */
static void csv_field(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\n") == NULL) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned)(unsigned char)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void write_report(FILE *f, const duo_profile_region *sorted, int count,
                         const char *device, const char *program)
{
    const char *backend = duo_be_name();
    if (duo_profile_mode_now == DUO_PROFILE_CSV) {
        fprintf(f, "# duo-profile 1\n# backend,%s\n# path,", backend);
        csv_field(f, duo_backend_reason());
        fprintf(f, "\n# device,");
        csv_field(f, device);
        fprintf(f, "\n# program,");
        csv_field(f, program);
        fprintf(f, "\n# lost,%lu\n", lost);
        fprintf(f, "region,kind,calls,total_ms,mean_ms,min_ms,max_ms,bytes,"
                   "flops,gb_per_s,gflop_per_s\n");
        for (int i = 0; i < count; ++i) {
            const duo_profile_region *s = &sorted[i];
            csv_field(f, s->name);
            fprintf(f, ",%s,%llu,%.6f,%.6f,%.6f,%.6f,%.0f,%.0f,%.3f,%.3f\n",
                    s->kind, (unsigned long long)s->calls, s->total_ms,
                    s->total_ms / (double)s->calls, s->min_ms, s->max_ms,
                    s->bytes, s->flops, rate(s->bytes, s->total_ms, 1e9),
                    rate(s->flops, s->total_ms, 1e9));
        }
        return;
    }
    if (duo_profile_mode_now == DUO_PROFILE_JSON) {
        fprintf(f, "{\"duo_profile\": 1, \"backend\": ");
        json_string(f, backend);
        fprintf(f, ", \"path\": ");
        json_string(f, duo_backend_reason());
        fprintf(f, ", \"device\": ");
        json_string(f, device);
        fprintf(f, ", \"program\": ");
        json_string(f, program);
        fprintf(f, ", \"lost\": %lu, \"regions\": [", lost);
        for (int i = 0; i < count; ++i) {
            const duo_profile_region *s = &sorted[i];
            fprintf(f, "%s\n  {\"region\": ", i ? "," : "");
            json_string(f, s->name);
            fprintf(f, ", \"kind\": \"%s\", \"calls\": %llu, \"total_ms\": "
                       "%.6f, \"mean_ms\": %.6f, \"min_ms\": %.6f, "
                       "\"max_ms\": %.6f, \"bytes\": %.0f, \"flops\": %.0f, "
                       "\"gb_per_s\": %.3f, \"gflop_per_s\": %.3f}",
                    s->kind, (unsigned long long)s->calls, s->total_ms,
                    s->total_ms / (double)s->calls, s->min_ms, s->max_ms,
                    s->bytes, s->flops, rate(s->bytes, s->total_ms, 1e9),
                    rate(s->flops, s->total_ms, 1e9));
        }
        fprintf(f, "\n]}\n");
        return;
    }
    fprintf(f, "duo profile: %s on %s [%s]: %s\n", backend, device,
            duo_backend_reason(), program);
    fprintf(f, "%-32s %-7s %8s %11s %10s %10s %10s %9s %9s\n", "region",
            "kind", "calls", "total ms", "mean ms", "min ms", "max ms",
            "GB/s", "GFLOP/s");
    for (int i = 0; i < count; ++i) {
        const duo_profile_region *s = &sorted[i];
        fprintf(f, "%-32.32s %-7s %8llu %11.4f %10.4f %10.4f %10.4f %9.2f "
                   "%9.2f\n", s->name, s->kind, (unsigned long long)s->calls,
                s->total_ms, s->total_ms / (double)s->calls, s->min_ms,
                s->max_ms, rate(s->bytes, s->total_ms, 1e9),
                rate(s->flops, s->total_ms, 1e9));
    }
    if (lost > 0)
        fprintf(f, "(%lu measurements lost: too many regions, a timer "
                   "failure or trace records dropped)\n", lost);
}

duo_status duo_profile_report(void)
{
    duo_status status = duo_require_sync_call("duo_profile_report");
    if (status != DUO_SUCCESS)
        return status;
    if (duo_profile_mode_now == DUO_PROFILE_OFF ||
        duo_profile_mode_now == DUO_PROFILE_NVTX)
        return DUO_SUCCESS;
    resolve_pending();
    static duo_profile_region sorted[MAX_REGIONS];
    int count = 0;
    for (int i = 0; i < region_count; ++i)
        if (regions[i].calls > 0)
            sorted[count++] = regions[i];
    qsort(sorted, (size_t)count, sizeof *sorted, by_total_desc);
    duo_device_info info;
    char program[512];
    program_line(program, sizeof program);
    if (duo_be_device_info(&info) != DUO_SUCCESS)
        snprintf(info.name, sizeof info.name, "unknown");
    FILE *f = report_path[0] ? fopen(report_path, "w") : stderr;
    if (f == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_profile_report",
                        "cannot open '%s' for writing; set DUO_PROFILE_FILE "
                        "(or the path given to duo_profile_start) to a "
                        "writable file", report_path);
    write_report(f, sorted, count, info.name, program);
    report_due = 0;
    if (f != stderr && fclose(f) != 0)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_profile_report",
                        "writing '%s' failed", report_path);
    return DUO_SUCCESS;
}

static void report_at_exit(void)
{
    if (report_due && duo_is_initialized())
        (void)duo_profile_finish();
}

/* Trace device work while a timing mode is on, unless
 * DUO_PROFILE_TIMING=events asks for a timer pair per operation. */
static void set_tracing(duo_profile_mode mode, int want_events)
{
    const int want = mode != DUO_PROFILE_OFF && mode != DUO_PROFILE_NVTX &&
                     !want_events;
    if (tracing && !want) {
        drain_trace();
        duo_be_trace_stop();
        tracing = 0;
    } else if (!tracing && want) {
        tracing = duo_be_trace_start();
    }
}

duo_status duo_profile_start(duo_profile_mode mode, const char *path)
{
    if ((int)mode < DUO_PROFILE_OFF || mode > DUO_PROFILE_NVTX)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_profile_start",
                        "mode = %d is not a duo_profile_mode", (int)mode);
    if (path != NULL && strlen(path) >= sizeof report_path)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_profile_start",
                        "path is longer than %zu characters",
                        sizeof report_path - 1);
    const char *timing = getenv("DUO_PROFILE_TIMING");
    if (timing != NULL && timing[0] != '\0' && strcmp(timing, "trace") != 0 &&
        strcmp(timing, "events") != 0)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_profile_start",
                        "DUO_PROFILE_TIMING='%s' is not a timing source; "
                        "expected trace (the default) or events", timing);
    duo_status status = duo_require_sync_call("duo_profile_start");
    if (status != DUO_SUCCESS)
        return status;
#ifdef DUO_NO_PROFILER
    if (mode != DUO_PROFILE_OFF)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_profile_start",
                        "this build has the profiler compiled out "
                        "(-DDUO_PROFILER=OFF); reconfigure with "
                        "-DDUO_PROFILER=ON to profile");
#endif
    snprintf(report_path, sizeof report_path, "%s", path ? path : "");
    set_tracing(mode, timing != NULL && strcmp(timing, "events") == 0);
    duo_profile_mode_now = mode;
    if (!atexit_registered && atexit(report_at_exit) == 0)
        atexit_registered = 1;
    return DUO_SUCCESS;
}

duo_status duo_profile_reset(void)
{
    duo_status status = duo_require_sync_call("duo_profile_reset");
    if (status != DUO_SUCCESS)
        return status;
    resolve_pending();
    region_count = 0;
    user_depth = 0;
    lost = 0;
    report_due = 0;
    return DUO_SUCCESS;
}

duo_status duo_profile_get(const char *name, duo_profile_region *out)
{
    if (name == NULL || out == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_profile_get",
                        "%s is NULL", name == NULL ? "name" : "out");
    duo_status status = duo_require_sync_call("duo_profile_get");
    if (status != DUO_SUCCESS)
        return status;
    resolve_pending();
    for (int i = 0; i < region_count; ++i)
        if (strcmp(regions[i].name, name) == 0) {
            *out = regions[i];
            return DUO_SUCCESS;
        }
    return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_profile_get",
                    "no region named '%s' was recorded", name);
}

duo_status duo_region_begin(const char *name)
{
    if (name == NULL || name[0] == '\0')
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_region_begin",
                        "name is %s; give the region a name",
                        name == NULL ? "NULL" : "empty");
    duo_status status = duo_require_sync_call("duo_region_begin");
    if (status != DUO_SUCCESS)
        return status;
    if (user_depth == MAX_USER_DEPTH)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_region_begin",
                        "more than %d regions open at once; is a "
                        "duo_region_end missing?", MAX_USER_DEPTH);
    snprintf(user_names[user_depth], sizeof user_names[user_depth], "%s",
             name);
    user_stack[user_depth++] = duo_profile_open(name, DUO_REGION_USER, NULL);
    return DUO_SUCCESS;
}

duo_status duo_region_end(const char *name)
{
    if (name == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_region_end",
                        "name is NULL; pass the name given to "
                        "duo_region_begin");
    duo_status status = duo_require_sync_call("duo_region_end");
    if (status != DUO_SUCCESS)
        return status;
    if (user_depth == 0)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_region_end",
                        "no region is open (ending '%s')", name);
    int top = user_stack[user_depth - 1];
    if (strcmp(user_names[user_depth - 1], name) != 0)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_region_end",
                        "'%s' is not the innermost open region ('%s' is)",
                        name, user_names[user_depth - 1]);
    user_depth--;
    duo_profile_close(top, NULL, 0.0, 0.0);
    return DUO_SUCCESS;
}

duo_status duo_profile_init_from_env(void)
{
    static const char *const names[] = {"off", "summary", "csv", "json",
                                        "nvtx"};
    const char *mode = getenv("DUO_PROFILE");
    if (mode == NULL || mode[0] == '\0')
        return DUO_SUCCESS;
    for (int m = 0; m < (int)(sizeof names / sizeof *names); ++m)
        if (strcmp(mode, names[m]) == 0)
            return duo_profile_start((duo_profile_mode)m,
                                     getenv("DUO_PROFILE_FILE"));
    return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_init",
                    "DUO_PROFILE='%s' is not a profile mode; expected "
                    "summary, csv, json, nvtx or off", mode);
}

duo_status duo_profile_finish(void)
{
    duo_status status = DUO_SUCCESS;
    if (report_due)
        status = duo_profile_report();
    set_tracing(DUO_PROFILE_OFF, 0);
    for (int i = 0; i < MAX_PENDING; ++i) {
        duo_status destroyed = records[i].timer != NULL
                                   ? duo_be_timer_destroy(records[i].timer)
                                   : DUO_SUCCESS;
        if (status == DUO_SUCCESS)
            status = destroyed;
        records[i].timer = NULL;
        records[i].busy = 0;
    }
    duo_profile_mode_now = DUO_PROFILE_OFF;
    user_depth = 0;
    return status;
}
