/*
 * test_profile.c - the built-in profiler: a known sequence of operations
 * gives exactly the expected calls, bytes and flops per region; an off
 * profiler records nothing; the CSV and JSON reports carry the same
 * numbers as duo_profile_get; every device call gets a time (a graph
 * replay too), and the times fit inside the host's wall time around them
 * (with either device timing source: ctest runs this under
 * DUO_PROFILE_TIMING=events too); bad use of regions and of DUO_PROFILE
 * is refused.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv, mkstemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <duo.h>

#include "test_util.h"

DUO_KERNEL(profile_fill, size_t n, float v, float *y)
{
    DUO_FOR(i, n)
        y[i] = v + (float)i;
}

typedef struct { size_t unused; } count_args;
DUO_DEVICE int64_t one(size_t i, count_args a)
{
    (void)i;
    (void)a;
    return 1;
}
DUO_REDUCE_DEFINE(profile_count, int64_t, DUO_SUM, one, count_args)

/* Expected statistics of one region after the known sequence. */
typedef struct {
    const char *name, *kind;
    uint64_t calls;
    double bytes, flops;
} expected_region;

enum { N = 1000, M = 8, NN = 5, K = 3, FILLS = 5, SETS = 3, H2D = 2 };

static const expected_region expected[] = {
    {"duo_memset", "memset", SETS, SETS * 1000.0, 0},
    {"duo_memcpy H2D", "memcpy", H2D, H2D * 4096.0, 0},
    {"duo_memcpy D2H", "memcpy", 1, 100.0, 0},
    {"profile_fill", "kernel", FILLS, 0, 0},
    {"duo_reduce sum f32", "reduce", 2, 2 * N * 4.0, 2 * N},
    {"duo_reduce_arg max f32", "reduce", 1, N * 4.0, N},
    /* A, B read, C written (beta = 0: not read). */
    {"duo_gemm_f32", "gemm", 1, (M * K + K * NN + M * NN) * 4.0,
     2.0 * M * NN * K},
    {"duo_synchronize", "sync", 1, 0, 0},
    {"profile_count", "kernel", 1, 0, 0},
    {"outer", "region", 1, 0, 0},
    {"inner", "region", FILLS, 0, 0},
};
#define NEXPECTED (sizeof expected / sizeof expected[0])

static void run_sequence(float *d, float *d2)
{
    static float host[1024];
    for (int i = 0; i < 1024; ++i)
        host[i] = 0.5f + (float)i;
    CHECK_OK(duo_region_begin("outer"));
    for (int i = 0; i < SETS; ++i)
        CHECK_OK(duo_memset(d, 0, 1000));
    for (int i = 0; i < H2D; ++i)
        CHECK_OK(duo_memcpy(d, host, 4096, DUO_HOST_TO_DEVICE));
    for (int i = 0; i < FILLS; ++i) {
        CHECK_OK(duo_region_begin("inner"));
        CHECK_OK(DUO_LAUNCH(profile_fill, N, N, (float)i, d));
        CHECK_OK(duo_region_end("inner"));
    }
    CHECK_OK(duo_region_end("outer"));
    double sum;
    CHECK_OK(duo_reduce(DUO_SUM, DUO_F32, d, N, &sum));
    CHECK_OK(duo_reduce(DUO_SUM, DUO_F32, d, N, &sum));
    size_t index;
    CHECK_OK(duo_reduce_arg(DUO_MAX, DUO_F32, d, N, &index, NULL));
    CHECK_OK(duo_gemm_f32(DUO_NO_TRANS, DUO_NO_TRANS, M, NN, K, 1.0f, d, K,
                          d + 100, NN, 0.0f, d2, NN));
    CHECK_OK(duo_synchronize());
    CHECK_OK(duo_memcpy(host, d2, 100, DUO_DEVICE_TO_HOST));
    count_args args = {0};
    int64_t count = 0;
    CHECK_OK(profile_count(N, args, &count));
    CHECK_EQ_I64(count, N);
}

static void check_region(const expected_region *e)
{
    duo_profile_region r;
    test_set_context("region '%s'", e->name);
    if (!CHECK_OK(duo_profile_get(e->name, &r)))
        return;
    CHECK_EQ_U64(r.calls, e->calls);
    CHECK(strcmp(r.kind, e->kind) == 0);
    CHECK(r.bytes == e->bytes);
    CHECK(r.flops == e->flops);
    CHECK(r.min_ms >= 0.0);
    CHECK(r.min_ms <= r.max_ms);
    CHECK(r.total_ms >= r.max_ms);
    CHECK(r.total_ms <= r.max_ms * (double)r.calls * (1 + 1e-12));
    test_set_context("%s", "");
}

/* The CSV row of `name`: its fields compared with duo_profile_get. */
static void check_csv_row(const char *csv, const expected_region *e)
{
    duo_profile_region r;
    if (duo_profile_get(e->name, &r) != DUO_SUCCESS)
        return;
    char want[64];
    snprintf(want, sizeof want, "\n%s,%s,", e->name, e->kind);
    const char *row = strstr(csv, want);
    test_set_context("CSV row of '%s'", e->name);
    CHECK(row != NULL);
    if (row == NULL)
        return;
    unsigned long long calls = 0;
    double total = -1, mean, mn, mx, bytes = -1, flops = -1;
    int got = sscanf(row + strlen(want), "%llu,%lf,%lf,%lf,%lf,%lf,%lf",
                     &calls, &total, &mean, &mn, &mx, &bytes, &flops);
    CHECK(got == 7);
    CHECK_EQ_U64((uint64_t)calls, r.calls);
    /* Printed with 6 decimals: equal to 0.5e-6 ms. */
    CHECK_NEAR(total, r.total_ms, 0.51e-6);
    CHECK_NEAR(mn, r.min_ms, 0.51e-6);
    CHECK_NEAR(mx, r.max_ms, 0.51e-6);
    CHECK(bytes == r.bytes);
    CHECK(flops == r.flops);
    test_set_context("%s", "");
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return text;
}

static void temp_path(char *path, size_t size, const char *ext)
{
    snprintf(path, size, "duo-test-profile-%ld.%s", (long)getpid(), ext);
}

static void test_off_records_nothing(float *d)
{
    CHECK_OK(duo_profile_start(DUO_PROFILE_OFF, NULL));
    CHECK_OK(duo_memset(d, 0, 64));
    CHECK_OK(DUO_LAUNCH(profile_fill, 10, 10, 1.0f, d));
    duo_profile_region r;
    CHECK_STATUS(duo_profile_get("duo_memset", &r),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(duo_profile_get("profile_fill", &r),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "profile_fill");
}

static void test_known_sequence(float *d, float *d2)
{
    char csv_path[128], json_path[128];
    temp_path(csv_path, sizeof csv_path, "csv");
    temp_path(json_path, sizeof json_path, "json");

    CHECK_OK(duo_profile_reset());
    CHECK_OK(duo_profile_start(DUO_PROFILE_CSV, csv_path));
    run_sequence(d, d2);
    for (size_t i = 0; i < NEXPECTED; ++i)
        check_region(&expected[i]);

    CHECK_OK(duo_profile_report());
    char *csv = read_file(csv_path);
    CHECK(csv != NULL);
    if (csv != NULL) {
        CHECK(strncmp(csv, "# duo-profile 1\n", 16) == 0);
        char backend[64];
        snprintf(backend, sizeof backend, "# backend,%s\n",
                 duo_backend_name());
        CHECK_CONTAINS(csv, backend);
        CHECK_CONTAINS(csv, "\nregion,kind,calls,total_ms,mean_ms,min_ms,"
                            "max_ms,bytes,flops,gb_per_s,gflop_per_s\n");
        for (size_t i = 0; i < NEXPECTED; ++i)
            check_csv_row(csv, &expected[i]);
    }

    /* The same regions as JSON, with the same counts. */
    CHECK_OK(duo_profile_start(DUO_PROFILE_JSON, json_path));
    CHECK_OK(duo_profile_report());
    char *json = read_file(json_path);
    CHECK(json != NULL);
    if (json != NULL) {
        CHECK(strncmp(json, "{\"duo_profile\": 1, ", 19) == 0);
        CHECK_CONTAINS(json, "{\"region\": \"duo_memset\", \"kind\": "
                             "\"memset\", \"calls\": 3,");
        CHECK_CONTAINS(json, "{\"region\": \"duo_gemm_f32\", \"kind\": "
                             "\"gemm\", \"calls\": 1,");
        CHECK_CONTAINS(json, "\"bytes\": 316, \"flops\": 240,");
    }
    remove(csv_path);
    remove(json_path);

    /* Reset forgets everything. */
    CHECK_OK(duo_profile_reset());
    duo_profile_region r;
    CHECK_STATUS(duo_profile_get("duo_memset", &r),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_OK(duo_profile_start(DUO_PROFILE_OFF, NULL));
}

/* A run of real work: each call of each region has a time (on the GPU a
 * call whose trace was not joined to it would get 0), no call is faster
 * than the bytes it writes allow at 10 TB/s, and the regions' totals
 * add up to no more than the wall time around them (one stream runs them
 * one after another).  On the GPU, more calls than the profiler keeps
 * between drains of the trace (65536) check that the batches join up;
 * with DUO_TEST_QUICK=1 (the sanitizer sweep's slow tools, which take
 * milliseconds a launch) 1001 calls, and memcheck's full run keeps that
 * check.  The host path has no trace to drain (its calls are timed as
 * they return), so 1001 calls test it as fully: 70001 OpenMP regions of
 * 256 elements had taken over 300 s on two cores shared with another
 * test, as each region's fork and join waits for a descheduled thread. */
static void test_device_times(void)
{
    enum { BIG = 1 << 20, FILLS_BIG = 20 };
    const int small_calls = test_on_gpu() && !test_quick() ? 70001 : 1001;
    static float host_big[BIG];
    for (size_t i = 0; i < BIG; ++i)
        host_big[i] = (float)(i % 1000);
    float *big = (float *)test_device_alloc(BIG * sizeof(float));

    CHECK_OK(duo_profile_reset());
    CHECK_OK(duo_profile_start(DUO_PROFILE_CSV, "/dev/null"));
    CHECK_OK(duo_synchronize());
    const double t0 = test_seconds();
    for (int i = 0; i < FILLS_BIG; ++i)
        CHECK_OK(DUO_LAUNCH(profile_fill, BIG, BIG, (float)i, big));
    CHECK_OK(duo_memcpy(host_big, big, BIG * sizeof(float),
                        DUO_DEVICE_TO_HOST));
    CHECK_OK(duo_memcpy(big, host_big, BIG * sizeof(float),
                        DUO_HOST_TO_DEVICE));
    CHECK_OK(duo_memset(big, 0, BIG * sizeof(float)));
    double sum = 0;
    CHECK_OK(duo_reduce(DUO_SUM, DUO_F32, big, BIG, &sum));
    CHECK_OK(duo_synchronize());
    const double wall_ms = (test_seconds() - t0) * 1e3;

    static const char *const timed[] = {"profile_fill", "duo_memcpy D2H",
                                        "duo_memcpy H2D", "duo_memset",
                                        "duo_reduce sum f32"};
    const uint64_t calls[] = {FILLS_BIG, 1, 1, 1, 1};
    double device_ms = 0;
    for (int i = 0; i < 5; ++i) {
        duo_profile_region r;
        test_set_context("region '%s'", timed[i]);
        if (!CHECK_OK(duo_profile_get(timed[i], &r)))
            continue;
        CHECK_EQ_U64(r.calls, calls[i]);
        CHECK(r.min_ms > 0.0);
        CHECK(r.min_ms * 1e-3 * 10e12 >= (double)(BIG * sizeof(float)));
        device_ms += r.total_ms;
    }
    test_set_context("%s", "");
    CHECK_MSG(device_ms <= wall_ms, "device %.6f ms > wall %.6f ms",
              device_ms, wall_ms);

    CHECK_OK(duo_profile_reset());
    for (int i = 0; i < small_calls; ++i) {
        const duo_status st = DUO_LAUNCH(profile_fill, 256, 256, 1.0f, big);
        if (st != DUO_SUCCESS) {
            CHECK_OK(st);
            break;
        }
    }
    duo_profile_region r;
    if (CHECK_OK(duo_profile_get("profile_fill", &r))) {
        CHECK_EQ_U64(r.calls, small_calls);
        CHECK(r.total_ms > 0.0);
        if (test_on_gpu()) /* a GPU kernel takes at least a microsecond */
            CHECK(r.min_ms > 0.0);
    }
    CHECK_OK(duo_profile_start(DUO_PROFILE_OFF, NULL));
    CHECK_OK(duo_profile_reset());
    CHECK_OK(duo_free(big));
}

enum { GRAPH_N = 1 << 20, GRAPH_FILLS = 4, GRAPH_REPLAYS = 5 };

static duo_status graph_fills(void *ctx)
{
    float *y = (float *)ctx;
    for (int i = 0; i < GRAPH_FILLS; ++i) {
        const duo_status st =
            DUO_LAUNCH(profile_fill, GRAPH_N, GRAPH_N, (float)i, y);
        if (st != DUO_SUCCESS)
            return st;
    }
    return DUO_SUCCESS;
}

/* A graph replay is one region, duo_graph_launch, timed from its first
 * kernel's start to its last one's end (on the GPU the kernels inside are
 * queued by one cudaGraphLaunch, which the trace must follow too). */
static void test_graph_times(void)
{
    float *y = (float *)test_device_alloc(GRAPH_N * sizeof(float));
    duo_graph g = NULL;
    if (!CHECK_OK(duo_graph_capture(NULL, graph_fills, y, &g)))
        return;
    CHECK_OK(duo_profile_reset());
    CHECK_OK(duo_profile_start(DUO_PROFILE_CSV, "/dev/null"));
    CHECK_OK(duo_synchronize());
    const double t0 = test_seconds();
    for (int r = 0; r < GRAPH_REPLAYS; ++r)
        CHECK_OK(duo_graph_launch(g, NULL));
    CHECK_OK(duo_synchronize());
    const double wall_ms = (test_seconds() - t0) * 1e3;
    duo_profile_region r;
    test_set_context("%s", "region 'duo_graph_launch'");
    if (CHECK_OK(duo_profile_get("duo_graph_launch", &r))) {
        CHECK_EQ_U64(r.calls, GRAPH_REPLAYS);
        /* Each replay writes GRAPH_FILLS x 4 MB: at 10 TB/s, more than
         * any memory has, that takes 1.6 us. */
        CHECK_MSG(r.min_ms * 1e-3 * 10e12 >=
                      (double)GRAPH_FILLS * GRAPH_N * sizeof(float),
                  "fastest replay %.6f ms", r.min_ms);
        CHECK_MSG(r.total_ms <= wall_ms, "replays %.6f ms > wall %.6f ms",
                  r.total_ms, wall_ms);
    }
    test_set_context("%s", "");
    CHECK_OK(duo_profile_start(DUO_PROFILE_OFF, NULL));
    CHECK_OK(duo_profile_reset());
    CHECK_OK(duo_graph_destroy(g));
    CHECK_OK(duo_free(y));
}

static void test_region_errors(void)
{
    CHECK_STATUS(duo_region_begin(NULL), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(duo_region_begin(""), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(duo_region_end("nothing open"), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "no region is open");
    CHECK_OK(duo_region_begin("a"));
    CHECK_OK(duo_region_begin("b"));
    CHECK_STATUS(duo_region_end("a"), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "innermost");
    CHECK_OK(duo_region_end("b"));
    CHECK_OK(duo_region_end("a"));
    CHECK_STATUS(duo_region_end(NULL), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(duo_profile_start((duo_profile_mode)42, NULL),
                 DUO_ERROR_INVALID_ARGUMENT);
    duo_profile_region r;
    CHECK_STATUS(duo_profile_get(NULL, &r), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(duo_profile_get("x", NULL), DUO_ERROR_INVALID_ARGUMENT);
}

/* DUO_PROFILE is read by duo_init: a bad value fails it, naming the
 * variable; a good one starts the profiler.  A bad DUO_PROFILE_TIMING
 * fails duo_profile_start the same way and leaves the profiler off. */
static void test_environment(void)
{
    const char *timing = getenv("DUO_PROFILE_TIMING");
    char saved[32] = "";
    if (timing != NULL)
        snprintf(saved, sizeof saved, "%s", timing);
    setenv("DUO_PROFILE_TIMING", "sometimes", 1);
    CHECK_STATUS(duo_profile_start(DUO_PROFILE_CSV, "/dev/null"),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "DUO_PROFILE_TIMING='sometimes'");
    CHECK_OK(DUO_LAUNCH(profile_fill, 0, 0, 1.0f, NULL)); /* empty */
    duo_profile_region none;
    CHECK_STATUS(duo_profile_get("profile_fill", &none),
                 DUO_ERROR_INVALID_ARGUMENT);
    if (timing != NULL)
        setenv("DUO_PROFILE_TIMING", saved, 1);
    else
        unsetenv("DUO_PROFILE_TIMING");

    CHECK_OK(duo_finalize());
    setenv("DUO_PROFILE", "loud", 1);
    CHECK_STATUS(duo_init(), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "DUO_PROFILE='loud'");
    setenv("DUO_PROFILE", "csv", 1);
    setenv("DUO_PROFILE_FILE", "/dev/null", 1);
    CHECK_OK(duo_init());
    void *p = NULL;
    CHECK_OK(duo_malloc(&p, 64));
    CHECK_OK(duo_memset(p, 1, 64));
    duo_profile_region r;
    if (CHECK_OK(duo_profile_get("duo_memset", &r)))
        CHECK_EQ_U64(r.calls, 1);
    CHECK_OK(duo_free(p));
    unsetenv("DUO_PROFILE");
    unsetenv("DUO_PROFILE_FILE");
    CHECK_OK(duo_finalize());
    CHECK_OK(duo_init());
}

int main(void)
{
    unsetenv("DUO_PROFILE");
    test_init_or_skip();
    float *d = NULL, *d2 = NULL;
    CHECK_OK(duo_malloc((void **)&d, 4096));
    CHECK_OK(duo_malloc((void **)&d2, 4096));
    test_off_records_nothing(d);
    test_known_sequence(d, d2);
    test_device_times();
    test_graph_times();
    test_region_errors();
    CHECK_OK(duo_free(d));
    CHECK_OK(duo_free(d2));
    test_environment();
    CHECK_OK(duo_finalize());
    return test_summary("profile");
}
