/*
 * validate.c - validation mode's settings, counts, report and the
 * element comparison shared by every check (validate.h).
 */
#define _POSIX_C_SOURCE 200809L

#include "validate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend.h"
#include "registry.h"
#include "ulp.h"

enum { MAX_REASONS = 16 };

static struct {
    int on, abort_on_diff, gpu;
    uint64_t ulps;
    char report_path[4096];
    FILE *report;
    uint64_t checked, skipped, diverged, bytes;
    double seconds, copy_seconds, started;
    struct { const char *reason; uint64_t count; } reasons[MAX_REASONS];
    int nreasons;
} mode;

double duo_vd_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

duo_status duo_validate_init(int gpu)
{
    memset(&mode, 0, sizeof mode);
    const char *v = getenv("DUO_VALIDATE");
    if (v == NULL || v[0] == '\0' || strcmp(v, "0") == 0)
        return DUO_SUCCESS;
    if (strcmp(v, "1") != 0 && strcmp(v, "abort") != 0)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_init",
                        "DUO_VALIDATE=%s: expected 1 (check every operation "
                        "and report), abort (stop at the first "
                        "divergence), or 0 or unset (off)", v);
    const char *u = getenv("DUO_VALIDATE_ULPS");
    uint64_t ulps = 0;
    if (u != NULL && u[0] != '\0') {
        char *end = NULL;
        errno = 0;
        unsigned long long x = strtoull(u, &end, 10);
        if (u[0] < '0' || u[0] > '9' || *end != '\0' || errno != 0)
            return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_init",
                            "DUO_VALIDATE_ULPS=%s: expected a whole number "
                            ">= 0 (units in the last place a float may "
                            "differ by; 0, the default, demands equal bits)",
                            u);
        ulps = x;
    }
    const char *r = getenv("DUO_VALIDATE_REPORT");
    FILE *report = NULL;
    if (r != NULL && r[0] != '\0') {
        report = fopen(r, "w");
        if (report == NULL)
            return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_init",
                            "DUO_VALIDATE_REPORT=%s: cannot create the "
                            "file: %s", r, strerror(errno));
        snprintf(mode.report_path, sizeof mode.report_path, "%s", r);
    }
    mode.on = 1;
    mode.abort_on_diff = strcmp(v, "abort") == 0;
    mode.gpu = gpu;
    mode.ulps = ulps;
    mode.report = report;
    mode.started = duo_vd_now();
    return DUO_SUCCESS;
}

int duo_validating(void)
{
    return mode.on && !duo_capture_active();
}

int duo_vd_gpu(void) { return mode.gpu; }
uint64_t duo_vd_ulps(void) { return mode.ulps; }

void duo_vd_count_checked(uint64_t bytes)
{
    ++mode.checked;
    mode.bytes += bytes;
}

void duo_vd_count_skipped(const char *reason)
{
    ++mode.skipped;
    for (int i = 0; i < mode.nreasons; ++i)
        if (strcmp(mode.reasons[i].reason, reason) == 0) {
            ++mode.reasons[i].count;
            return;
        }
    if (mode.nreasons < MAX_REASONS) {
        mode.reasons[mode.nreasons].reason = reason;
        mode.reasons[mode.nreasons].count = 1;
        ++mode.nreasons;
    }
}

void duo_vd_add_seconds(double seconds) { mode.seconds += seconds; }
void duo_vd_add_copy_seconds(double seconds)
{
    mode.copy_seconds += seconds;
}

static void emit(const char *text)
{
    fputs(text, stderr);
    if (mode.report != NULL) {
        fputs(text, mode.report);
        fflush(mode.report);
    }
}

/* Live allocations, gathered before any is freed (freeing changes the
 * registry being walked); room for cap of them. */
typedef struct live_list {
    duo_alloc_view *v;
    size_t count, cap;
} live_list;

static void gather(const duo_alloc_view *a, void *ctx)
{
    live_list *l = (live_list *)ctx;
    if (l->count < l->cap)
        l->v[l->count++] = *a;
}

/* DUO_VALIDATE=abort: the program ends at its first divergence with
 * status 3.  Its duo allocations and duo's own resources are released
 * first, as at a clean exit, so that tools that watch the exit (a leak
 * checker, compute-sanitizer's) report only what the program itself
 * leaked before. */
static void stop_program(void)
{
    emit("duo validate: stopping at the first divergence "
         "(DUO_VALIDATE=abort)\n");
    if (mode.report != NULL)
        fclose(mode.report);
    mode.report = NULL;
    size_t count[2], bytes[2];
    duo_registry_usage(count, bytes);
    live_list live = {NULL, 0, count[0] + count[1]};
    live.v = (duo_alloc_view *)malloc((live.cap + 1) * sizeof *live.v);
    if (live.v == NULL)
        live.cap = 0; /* then they are left to the exit */
    duo_registry_each(gather, &live);
    for (size_t k = 0; k < live.count; ++k) {
        void *p = (void *)live.v[k].base;
        duo_registry_remove(p);
        (void)(live.v[k].kind == DUO_ALLOC_DEVICE ? duo_be_free(p)
                                                   : duo_be_free_host(p));
    }
    free(live.v);
    duo_vd_launch_free();
    duo_vd_ops_free();
    (void)duo_be_finalize();
    exit(3);
}

void duo_vd_report(const char *operation, const char *details)
{
    ++mode.diverged;
    char head[1024];
    snprintf(head, sizeof head, "duo validate: DIFFERS: %s (%s)\n",
             operation, mode.gpu ? "GPU against the host path"
                                 : "every thread against one thread");
    emit(head);
    emit(details);
    if (mode.abort_on_diff)
        stop_program();
}

void duo_validate_finalize(void)
{
    if (!mode.on)
        return;
    const double total = duo_vd_now() - mode.started;
    char line[4096];
    int at = snprintf(line, sizeof line,
                      "duo validate: summary (%s): %llu operation(s) "
                      "checked, %llu differ, %llu skipped",
                      mode.gpu ? "GPU against the host path"
                               : "every thread against one thread",
                      (unsigned long long)mode.checked,
                      (unsigned long long)mode.diverged,
                      (unsigned long long)mode.skipped);
    for (int i = 0; i < mode.nreasons && at < (int)sizeof line; ++i)
        at += snprintf(line + at, sizeof line - (size_t)at, "%s%llu: %s",
                       i == 0 ? " (" : "; ",
                       (unsigned long long)mode.reasons[i].count,
                       mode.reasons[i].reason);
    if (mode.nreasons > 0 && at < (int)sizeof line)
        at += snprintf(line + at, sizeof line - (size_t)at, ")");
    if (at < (int)sizeof line)
        snprintf(line + at, sizeof line - (size_t)at,
                 "; %.1f MB compared; %.3f s of the %.3f s since duo_init "
                 "in checked operations (both runs, copies, comparisons), "
                 "%.3f s of them in copies\n",
                 (double)mode.bytes / 1e6, mode.seconds, total,
                 mode.copy_seconds);
    emit(line);
    if (mode.report != NULL)
        fclose(mode.report);
    memset(&mode, 0, sizeof mode);
    duo_vd_launch_free();
    duo_vd_ops_free();
}

/* ------------------------------------------------------------------ */
/* Elements                                                            */

size_t duo_vd_elem_size(int kind)
{
    switch (kind) {
    case DUO_VD_F32: case DUO_VD_I32: case DUO_VD_U32: return 4;
    case DUO_VD_F64: case DUO_VD_I64: case DUO_VD_U64: return 8;
    default: return 1;
    }
}

const char *duo_vd_kind_name(int kind)
{
    switch (kind) {
    case DUO_VD_F32: return "f32";
    case DUO_VD_F64: return "f64";
    case DUO_VD_I32: return "i32";
    case DUO_VD_I64: return "i64";
    case DUO_VD_U32: return "u32";
    case DUO_VD_U64: return "u64";
    default: return "bytes";
    }
}

/* Distance of two differing floats in ulps; UINT64_MAX where a NaN meets
 * a number.  Two NaNs are 0 apart (any payload). */
static uint64_t float_distance(int kind, const void *a, const void *b,
                               size_t i)
{
    if (kind == DUO_VD_F32) {
        float x = ((const float *)a)[i], y = ((const float *)b)[i];
        if (isnan(x) || isnan(y))
            return isnan(x) && isnan(y) ? 0 : UINT64_MAX;
        uint32_t ux, uy;
        memcpy(&ux, &x, 4);
        memcpy(&uy, &y, 4);
        return ulp_distance(ulp_ordered32(ux), ulp_ordered32(uy));
    }
    double x = ((const double *)a)[i], y = ((const double *)b)[i];
    if (isnan(x) || isnan(y))
        return isnan(x) && isnan(y) ? 0 : UINT64_MAX;
    uint64_t ux, uy;
    memcpy(&ux, &x, 8);
    memcpy(&uy, &y, 8);
    return ulp_distance(ulp_ordered64(ux), ulp_ordered64(uy));
}

/* Copies and comparisons of at least SHARE_MIN bytes are shared among
 * the OpenMP threads, SHARE_BLOCK bytes at a time: one core does not
 * draw all of the memory's bandwidth (on a 2-core machine two threads
 * took duo-cg 512^2's validated run from 12.7 to 9.1 s, its copies from
 * 3.5 to 1.8 s), and below a megabyte the parallel region would cost
 * more than it saves.  (The one-thread run's setting is undone before
 * each of them.) */
enum { SHARE_MIN = 1 << 20, SHARE_BLOCK = 1 << 16 };

#ifdef _OPENMP
/* The SHARE_BLOCK blocks of `bytes`, and the length of block k. */
static size_t share_blocks(size_t bytes)
{
    return (bytes + SHARE_BLOCK - 1) / SHARE_BLOCK;
}
static size_t share_block_bytes(size_t bytes, size_t k)
{
    const size_t left = bytes - k * SHARE_BLOCK;
    return left < SHARE_BLOCK ? left : SHARE_BLOCK;
}
#endif

void duo_vd_copy(void *dst, const void *src, size_t bytes)
{
#ifdef _OPENMP
    if (bytes >= SHARE_MIN) {
        const size_t blocks = share_blocks(bytes);
#pragma omp parallel for schedule(static)
        for (size_t k = 0; k < blocks; ++k)
            memcpy((char *)dst + k * SHARE_BLOCK,
                   (const char *)src + k * SHARE_BLOCK,
                   share_block_bytes(bytes, k));
        return;
    }
#endif
    memcpy(dst, src, bytes);
}

/* Whether a and b's bytes are all equal, the common case, read by all
 * threads (duo_vd_copy says when); 0 also where it is not known. */
static int all_equal(const void *a, const void *b, size_t bytes)
{
#ifdef _OPENMP
    if (bytes >= SHARE_MIN) {
        const size_t blocks = share_blocks(bytes);
        int differ = 0;
#pragma omp parallel for schedule(static) reduction(| : differ)
        for (size_t k = 0; k < blocks; ++k)
            differ |= memcmp((const char *)a + k * SHARE_BLOCK,
                             (const char *)b + k * SHARE_BLOCK,
                             share_block_bytes(bytes, k)) != 0;
        return !differ;
    }
#endif
    (void)a;
    (void)b;
    (void)bytes;
    return 0;
}

void duo_vd_compare(int kind, const void *a, const void *b, size_t n,
                    duo_vd_diff *d)
{
    memset(d, 0, sizeof *d);
    d->identical = 1;
    const size_t size = duo_vd_elem_size(kind);
    const int is_float = kind == DUO_VD_F32 || kind == DUO_VD_F64;
    const unsigned char *pa = (const unsigned char *)a;
    const unsigned char *pb = (const unsigned char *)b;
    if (all_equal(a, b, n * size))
        return;
    /* Equal bits everywhere is the common case: one memcmp per block. */
    const size_t block = 4096 / size;
    for (size_t start = 0; start < n; start += block) {
        const size_t end = start + block < n ? start + block : n;
        if (memcmp(pa + start * size, pb + start * size,
                   (end - start) * size) == 0)
            continue;
        d->identical = 0;
        for (size_t i = start; i < end; ++i) {
            if (memcmp(pa + i * size, pb + i * size, size) == 0)
                continue;
            uint64_t dist = 0;
            if (is_float) {
                dist = float_distance(kind, a, b, i);
                if (dist > d->max_ulps && dist != UINT64_MAX)
                    d->max_ulps = dist;
                if (mode.ulps > 0 && dist <= mode.ulps)
                    continue;
            }
            if (d->count++ == 0) {
                d->first = i;
                d->first_ulps = dist;
            }
        }
    }
}

void duo_vd_format(int kind, const void *p, size_t i, char *buf,
                   size_t size)
{
    switch (kind) {
    case DUO_VD_F32: {
        float v = ((const float *)p)[i];
        uint32_t u;
        memcpy(&u, &v, 4);
        snprintf(buf, size, "%.9g (0x%08x)", (double)v, (unsigned)u);
        return;
    }
    case DUO_VD_F64: {
        double v = ((const double *)p)[i];
        uint64_t u;
        memcpy(&u, &v, 8);
        snprintf(buf, size, "%.17g (0x%016llx)", v, (unsigned long long)u);
        return;
    }
    case DUO_VD_I32:
        snprintf(buf, size, "%d", (int)((const int32_t *)p)[i]);
        return;
    case DUO_VD_I64:
        snprintf(buf, size, "%lld", (long long)((const int64_t *)p)[i]);
        return;
    case DUO_VD_U32:
        snprintf(buf, size, "%u", (unsigned)((const uint32_t *)p)[i]);
        return;
    case DUO_VD_U64:
        snprintf(buf, size, "%llu",
                 (unsigned long long)((const uint64_t *)p)[i]);
        return;
    default:
        snprintf(buf, size, "0x%02x", (unsigned)((const unsigned char *)p)[i]);
        return;
    }
}
