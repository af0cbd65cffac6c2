/*
 * test_runtime.c - duo_init / duo_finalize, the backend name, device
 * info, synchronize, status strings, duo_last_error, and timers.
 *
 * Also checks that every entry point refuses to run before duo_init()
 * and after duo_finalize() (DUO_ERROR_NOT_INITIALIZED, outputs untouched,
 * a message naming the function), and that duo_init() works again after
 * duo_finalize().  DUO_DEVICE: bad values, and the paths a build has.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */
#include <math.h>
#include <stdlib.h>

#include "test_util.h"

#if defined(DUO_BACKEND_SERIAL)
#define EXPECTED_BACKEND "serial"
#elif defined(DUO_BACKEND_OPENMP)
#define EXPECTED_BACKEND "openmp"
#elif defined(DUO_BACKEND_CUDA)
#define EXPECTED_BACKEND "cuda"
#else
#error "none of DUO_BACKEND_SERIAL/OPENMP/CUDA is defined: the duo target must export it"
#endif

DUO_KERNEL(fill_kernel, size_t n, int32_t base, int32_t *out)
{
    DUO_FOR(i, n)
        out[i] = base + (int32_t)i;
}

typedef struct count_args {
    int64_t base;
} count_args;

DUO_DEVICE int64_t count_elem(size_t i, count_args a)
{
    return a.base + (int64_t)i;
}

DUO_REDUCE_DEFINE(runtime_sum, int64_t, DUO_SUM, count_elem, count_args)

/* ------------------------------------------------------------------ */

static void test_status_strings(void)
{
    const duo_status all[] = {DUO_SUCCESS,
                              DUO_ERROR_INVALID_ARGUMENT,
                              DUO_ERROR_OUT_OF_MEMORY,
                              DUO_ERROR_NO_DEVICE,
                              DUO_ERROR_NOT_INITIALIZED,
                              DUO_ERROR_LAUNCH,
                              DUO_ERROR_BACKEND};
    const size_t count = sizeof all / sizeof all[0];
    test_set_context("duo_status_string");
    for (size_t i = 0; i < count; ++i) {
        const char *s = duo_status_string(all[i]);
        CHECK_MSG(s != NULL && s[0] != '\0',
                  "duo_status_string(%d) is NULL or empty", (int)all[i]);
        for (size_t j = 0; j < i; ++j) {
            const char *t = duo_status_string(all[j]);
            CHECK_MSG(s == NULL || t == NULL || strcmp(s, t) != 0,
                      "statuses %d and %d share the name \"%s\"",
                      (int)all[i], (int)all[j], s ? s : "");
        }
    }
    /* The one name duo.h spells out. */
    CHECK(strcmp(duo_status_string(DUO_ERROR_INVALID_ARGUMENT),
                 "invalid argument") == 0);
    /* A value outside the enum still gets a printable string. */
    const char *unknown = duo_status_string((duo_status)99);
    CHECK(unknown != NULL && unknown[0] != '\0');
    test_set_context("%s", "");
}

/* duo_version() needs no duo_init and matches the headers' macros, which
 * are numbers (compared independently of the string) in a sane range. */
static void test_version(void)
{
    test_set_context("duo_version");
    const char *v = duo_version();
    CHECK(v != NULL);
    unsigned major = 1000, minor = 1000, patch = 1000;
    char rest = 0;
    int fields = v ? sscanf(v, "%u.%u.%u%c", &major, &minor, &patch, &rest)
                   : 0;
    CHECK_MSG(fields == 3, "duo_version() = \"%s\": expected exactly "
              "MAJOR.MINOR.PATCH", v ? v : "(null)");
    CHECK_EQ_U64(major, DUO_VERSION_MAJOR);
    CHECK_EQ_U64(minor, DUO_VERSION_MINOR);
    CHECK_EQ_U64(patch, DUO_VERSION_PATCH);
    CHECK_EQ_I64(DUO_VERSION, DUO_VERSION_MAJOR * 10000 +
                 DUO_VERSION_MINOR * 100 + DUO_VERSION_PATCH);
    CHECK(DUO_VERSION_MINOR < 100 && DUO_VERSION_PATCH < 100);
    test_set_context("%s", "");
}

/* Before duo_init(): everything refuses, writes nothing, and says why. */
static void test_before_init(void)
{
    test_set_context("before duo_init");
    CHECK_MSG(duo_last_error() != NULL && duo_last_error()[0] == '\0',
              "duo_last_error() is \"\" before any failure: got \"%s\"",
              duo_last_error() ? duo_last_error() : "(null)");

    void *p = TEST_POISON_PTR;
    CHECK_STATUS(duo_malloc(&p, 64), DUO_ERROR_NOT_INITIALIZED);
    CHECK(p == TEST_POISON_PTR);
    CHECK_CONTAINS_WORD(duo_last_error(), "duo_malloc");
    CHECK_CONTAINS(duo_last_error(), "duo_init");

    int32_t host[8];
    for (int i = 0; i < 8; ++i)
        host[i] = TEST_POISON_I32;
    CHECK_STATUS(DUO_LAUNCH(fill_kernel, 8, (size_t)8, 5, host),
                 DUO_ERROR_NOT_INITIALIZED);
    for (int i = 0; i < 8; ++i)
        CHECK_EQ_I64(host[i], TEST_POISON_I32);
    CHECK_CONTAINS_WORD(duo_last_error(), "fill_kernel");
    CHECK_CONTAINS(duo_last_error(), "test_runtime.c:");

    duo_device_info info;
    memset(&info, 0x5A, sizeof info);
    CHECK_STATUS(duo_device_info_get(&info), DUO_ERROR_NOT_INITIALIZED);
    CHECK(info.total_memory == (size_t)0x5A5A5A5A5A5A5A5AULL);
    CHECK_CONTAINS_WORD(duo_last_error(), "duo_device_info_get");

    CHECK_STATUS(duo_synchronize(), DUO_ERROR_NOT_INITIALIZED);
    CHECK_CONTAINS_WORD(duo_last_error(), "duo_synchronize");

    duo_timer t = (duo_timer)TEST_POISON_PTR;
    CHECK_STATUS(duo_timer_create(&t), DUO_ERROR_NOT_INITIALIZED);
    CHECK(t == (duo_timer)TEST_POISON_PTR);
    test_set_context("%s", "");
}

/* DUO_DEVICE is read by duo_init: a value that is not auto, gpu or cpu
 * fails naming the variable, and in a CPU build gpu fails with the build
 * to use instead; either leaves duo uninitialized.  (A CUDA build without
 * a GPU is test_no_device.c.) */
static void test_device_env(void)
{
    test_set_context("DUO_DEVICE");
    const char *saved = getenv("DUO_DEVICE");
    char keep[32] = "";
    if (saved != NULL)
        snprintf(keep, sizeof keep, "%s", saved);

    setenv("DUO_DEVICE", "GPU0", 1);
    CHECK_STATUS(duo_init(), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "DUO_DEVICE=GPU0");
    CHECK_CONTAINS(duo_last_error(), "auto");
    CHECK_CONTAINS(duo_last_error(), "gpu or cpu");
    void *p = TEST_POISON_PTR;
    CHECK_STATUS(duo_malloc(&p, 16), DUO_ERROR_NOT_INITIALIZED);
    CHECK(p == TEST_POISON_PTR);
#if !defined(DUO_BACKEND_CUDA)
    setenv("DUO_DEVICE", "gpu", 1);
    CHECK_STATUS(duo_init(), DUO_ERROR_NO_DEVICE);
    CHECK_CONTAINS(duo_last_error(), "DUO_DEVICE=gpu");
    CHECK_CONTAINS(duo_last_error(), "make cuda");
    CHECK_STATUS(duo_malloc(&p, 16), DUO_ERROR_NOT_INITIALIZED);
    setenv("DUO_DEVICE", "cpu", 1);
    if (CHECK_OK(duo_init())) {
        CHECK_CONTAINS(duo_backend_reason(), "DUO_DEVICE=cpu");
        CHECK_OK(duo_finalize());
    }
#endif
    if (saved != NULL)
        setenv("DUO_DEVICE", keep, 1);
    else
        unsetenv("DUO_DEVICE");
    test_set_context("%s", "");
}

static void test_init_and_info(void)
{
    test_init_or_skip();
    test_set_context("init and device info");
    CHECK_OK(duo_init()); /* again: a no-op */

    /* A CUDA build names its path: the GPU, or the host path where
     * DUO_DEVICE=cpu or no GPU is usable (DUO_DEVICE=auto). */
    const char *name = duo_backend_name();
    const char *want = getenv("DUO_DEVICE");
    const char *expected = EXPECTED_BACKEND;
#if defined(DUO_BACKEND_CUDA)
    if ((want != NULL && strcmp(want, "cpu") == 0) ||
        (strcmp(name, "cuda") != 0 && (want == NULL || want[0] == '\0' ||
                                       strcmp(want, "auto") == 0)))
        expected = "cuda-host-fallback";
#endif
    CHECK_MSG(name != NULL && strcmp(name, expected) == 0,
              "duo_backend_name() = \"%s\", expected \"%s\" (DUO_DEVICE=%s)",
              name ? name : "(null)", expected, want ? want : "(unset)");
    const char *reason = duo_backend_reason();
    printf("path: %s: %s\n", name, reason);
    if (test_on_gpu())
        CHECK_CONTAINS(reason, "GPU ");
    else if (strcmp(expected, "cuda-host-fallback") == 0)
        CHECK_CONTAINS(reason, want != NULL && strcmp(want, "cpu") == 0
                                   ? "DUO_DEVICE=cpu"
                                   : "no usable GPU");
    else
        CHECK_CONTAINS(reason, "build");

    duo_device_info info;
    memset(&info, 0x5A, sizeof info);
    if (CHECK_OK(duo_device_info_get(&info))) {
        CHECK(memchr(info.name, '\0', sizeof info.name) != NULL);
        CHECK_MSG(info.name[0] != '\0', "device name is empty");
        CHECK(info.total_memory > 0);
        CHECK(info.total_memory != (size_t)0x5A5A5A5A5A5A5A5AULL);
        CHECK_MSG(info.free_memory <= info.total_memory,
                  "free_memory %zu > total_memory %zu", info.free_memory,
                  info.total_memory);
        printf("device: %s, %zu MiB total, %zu MiB free, %d SMs, cc %d.%d, "
               "%d CPU threads\n", info.name, info.total_memory >> 20,
               info.free_memory >> 20, info.multiprocessors,
               info.compute_major, info.compute_minor, info.cpu_threads);
        if (test_on_gpu()) {
            CHECK(info.multiprocessors > 0);
            CHECK(info.compute_major >= 1);
            CHECK(info.compute_minor >= 0);
            CHECK(info.cpu_threads == 0);
        } else {
            CHECK_EQ_I64(info.multiprocessors, 0);
            CHECK_EQ_I64(info.compute_major, 0);
            CHECK_EQ_I64(info.compute_minor, 0);
#if defined(DUO_BACKEND_SERIAL)
            CHECK_EQ_I64(info.cpu_threads, 1);
#else
            /* openmp, and a CUDA build's host path (OpenMP) */
            CHECK(info.cpu_threads >= 1);
            /* With a plain OMP_NUM_THREADS=<n>, the backend uses n
             * threads. */
            const char *env = getenv("OMP_NUM_THREADS");
            if (env != NULL && env[0] != '\0') {
                char *end = NULL;
                long want_threads = strtol(env, &end, 10);
                if (end != NULL && *end == '\0' && want_threads > 0)
                    CHECK_EQ_I64(info.cpu_threads, want_threads);
            }
#endif
        }
    }
    CHECK_STATUS(duo_device_info_get(NULL), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "duo_device_info_get");
    CHECK_CONTAINS_WORD(duo_last_error(), "info");

    CHECK_OK(duo_synchronize());
    test_set_context("%s", "");
}

static void test_last_error(void)
{
    test_set_context("duo_last_error");
    CHECK_STATUS(duo_malloc(NULL, 16), DUO_ERROR_INVALID_ARGUMENT);
    const char *msg = duo_last_error();
    CHECK(msg != NULL && msg[0] != '\0');
    CHECK_CONTAINS_WORD(msg, "duo_malloc");
    CHECK_CONTAINS_WORD(msg, "ptr");

    CHECK_STATUS(duo_memset(NULL, 0, 4), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "duo_memset");
    CHECK_CONTAINS_WORD(duo_last_error(), "dst");

    /* The user reduction names itself and the caller's file. */
    count_args args = {1};
    CHECK_STATUS(runtime_sum(10, args, NULL), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "runtime_sum");
    CHECK_CONTAINS(duo_last_error(), "test_runtime.c:");
    test_set_context("%s", "");
}

static void test_timers(void)
{
    test_set_context("timers");
    double ms = -12345.0;
    duo_timer t = NULL;

    CHECK_STATUS(duo_timer_create(NULL), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "duo_timer_create");
    CHECK_STATUS(duo_timer_start(NULL, NULL), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "duo_timer_start");
    CHECK_STATUS(duo_timer_stop(NULL, NULL), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "duo_timer_stop");
    CHECK_STATUS(duo_timer_elapsed_ms(NULL, &ms), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "duo_timer_elapsed_ms");
    CHECK(ms == -12345.0);
    CHECK_OK(duo_timer_destroy(NULL));

    if (!CHECK_OK(duo_timer_create(&t)) || t == NULL) {
        test_set_context("%s", "");
        return;
    }
    CHECK_STATUS(duo_timer_elapsed_ms(t, NULL), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "ms");

    /* Neither point recorded, then only the start. */
    CHECK_STATUS(duo_timer_elapsed_ms(t, &ms), DUO_ERROR_INVALID_ARGUMENT);
    CHECK(ms == -12345.0);
    CHECK_OK(duo_timer_start(t, NULL));
    CHECK_STATUS(duo_timer_elapsed_ms(t, &ms), DUO_ERROR_INVALID_ARGUMENT);
    CHECK(ms == -12345.0);
    CHECK_CONTAINS_WORD(duo_last_error(), "duo_timer_elapsed_ms");

    /* Time some real work on the default stream. */
    const size_t n = (size_t)1 << 22;
    int32_t *d = (int32_t *)test_device_alloc(n * sizeof(int32_t));
    CHECK_OK(DUO_LAUNCH(fill_kernel, n, n, 3, d));
    CHECK_OK(duo_timer_stop(t, NULL));
    if (CHECK_OK(duo_timer_elapsed_ms(t, &ms))) {
        CHECK_MSG(ms >= 0.0 && ms < 60000.0, "elapsed %g ms", ms);
        CHECK_MSG(ms > 0.0, "elapsed %g ms for a 4M-element kernel", ms);
    }

    /* The same on a created stream; restarting the timer reuses it. */
    duo_stream s = NULL;
    if (CHECK_OK(duo_stream_create(&s))) {
        ms = -12345.0;
        CHECK_OK(duo_timer_start(t, s));
        CHECK_OK(DUO_LAUNCH_ON(s, fill_kernel, n, n, 7, d));
        CHECK_OK(duo_timer_stop(t, s));
        if (CHECK_OK(duo_timer_elapsed_ms(t, &ms)))
            CHECK_MSG(ms >= 0.0 && ms < 60000.0, "elapsed %g ms", ms);
        CHECK_OK(duo_stream_synchronize(s));
        CHECK_OK(duo_stream_destroy(s));
        int32_t last = TEST_POISON_I32;
        test_to_host(&last, d + n - 1, sizeof last);
        CHECK_EQ_I64(last, 7 + (int32_t)(n - 1));
    }
    CHECK_OK(duo_free(d));
    CHECK_OK(duo_timer_destroy(t));
    test_set_context("%s", "");
}

/* After duo_finalize(): every entry point refuses again. */
static void test_after_finalize(void)
{
    test_set_context("after duo_finalize");
    CHECK_OK(duo_finalize());

    void *p = TEST_POISON_PTR;
    CHECK_STATUS(duo_malloc(&p, 64), DUO_ERROR_NOT_INITIALIZED);
    CHECK(p == TEST_POISON_PTR);
    CHECK_CONTAINS_WORD(duo_last_error(), "duo_malloc");
    CHECK_CONTAINS(duo_last_error(), "duo_init");

    p = TEST_POISON_PTR;
    CHECK_STATUS(duo_malloc_host(&p, 64), DUO_ERROR_NOT_INITIALIZED);
    CHECK(p == TEST_POISON_PTR);
    CHECK_CONTAINS_WORD(duo_last_error(), "duo_malloc_host");

    /* Host buffers only: nothing may touch them. */
    int32_t host[8];
    for (int i = 0; i < 8; ++i)
        host[i] = TEST_POISON_I32;
    CHECK_STATUS(DUO_LAUNCH(fill_kernel, 8, (size_t)8, 5, host),
                 DUO_ERROR_NOT_INITIALIZED);
    for (int i = 0; i < 8; ++i)
        CHECK_EQ_I64(host[i], TEST_POISON_I32);
    CHECK_CONTAINS_WORD(duo_last_error(), "fill_kernel");

    int32_t src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    CHECK_STATUS(duo_memcpy(host, src, sizeof src, DUO_HOST_TO_HOST),
                 DUO_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(duo_memset(host, 0, sizeof host), DUO_ERROR_NOT_INITIALIZED);
    for (int i = 0; i < 8; ++i)
        CHECK_EQ_I64(host[i], TEST_POISON_I32);

    float xf[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    double sum = test_f64_from_bits(0xFFFFFFFFFFFFFFFFULL);
    CHECK_STATUS(duo_reduce(DUO_SUM, DUO_F32, xf, 4, &sum),
                 DUO_ERROR_NOT_INITIALIZED);
    CHECK(test_is_poison_f64(sum));
    CHECK_CONTAINS_WORD(duo_last_error(), "duo_reduce");

    size_t index = TEST_POISON_SIZE;
    CHECK_STATUS(duo_reduce_arg(DUO_MAX, DUO_F32, xf, 4, &index, NULL),
                 DUO_ERROR_NOT_INITIALIZED);
    CHECK(index == TEST_POISON_SIZE);
    CHECK_CONTAINS_WORD(duo_last_error(), "duo_reduce_arg");

    float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4];
    test_poison_f32(c, 4);
    CHECK_STATUS(duo_gemm_f32(DUO_NO_TRANS, DUO_NO_TRANS, 2, 2, 2, 1.0f, a, 2,
                              b, 2, 0.0f, c, 2),
                 DUO_ERROR_NOT_INITIALIZED);
    for (int i = 0; i < 4; ++i)
        CHECK(test_is_poison_f32(c[i]));
    CHECK_CONTAINS_WORD(duo_last_error(), "duo_gemm_f32");

    double ad[4] = {1, 2, 3, 4}, bd[4] = {5, 6, 7, 8}, cd[4];
    test_poison_f64(cd, 4);
    CHECK_STATUS(duo_gemm_f64(DUO_NO_TRANS, DUO_TRANS, 2, 2, 2, 1.0, ad, 2,
                              bd, 2, 0.0, cd, 2),
                 DUO_ERROR_NOT_INITIALIZED);
    for (int i = 0; i < 4; ++i)
        CHECK(test_is_poison_f64(cd[i]));
    CHECK_CONTAINS_WORD(duo_last_error(), "duo_gemm_f64");

    count_args args = {1};
    int64_t total = TEST_POISON_I64;
    CHECK_STATUS(runtime_sum(100, args, &total), DUO_ERROR_NOT_INITIALIZED);
    CHECK_EQ_I64(total, TEST_POISON_I64);
    CHECK_CONTAINS_WORD(duo_last_error(), "runtime_sum");

    CHECK_STATUS(duo_synchronize(), DUO_ERROR_NOT_INITIALIZED);
    duo_stream s = (duo_stream)TEST_POISON_PTR;
    CHECK_STATUS(duo_stream_create(&s), DUO_ERROR_NOT_INITIALIZED);
    CHECK(s == (duo_stream)TEST_POISON_PTR);
    duo_device_info info;
    memset(&info, 0x5A, sizeof info);
    CHECK_STATUS(duo_device_info_get(&info), DUO_ERROR_NOT_INITIALIZED);
    CHECK(info.total_memory == (size_t)0x5A5A5A5A5A5A5A5AULL);
    test_set_context("%s", "");
}

/* duo_init() after duo_finalize() brings everything back. */
static void test_reinit(void)
{
    test_set_context("init after finalize");
    if (!CHECK_OK(duo_init()))
        return;
    const size_t n = 1000;
    int32_t *d = (int32_t *)test_device_alloc(n * sizeof(int32_t));
    CHECK_OK(DUO_LAUNCH(fill_kernel, n, n, -400, d));
    int32_t *h = (int32_t *)test_xmalloc(n * sizeof(int32_t));
    for (size_t i = 0; i < n; ++i)
        h[i] = TEST_POISON_I32;
    test_to_host(h, d, n * sizeof(int32_t));
    for (size_t i = 0; i < n; ++i)
        CHECK_EQ_I64(h[i], -400 + (int64_t)i);

    int32_t mn = TEST_POISON_I32;
    CHECK_OK(duo_reduce(DUO_MIN, DUO_I32, d, n, &mn));
    CHECK_EQ_I64(mn, -400);
    int64_t sum = TEST_POISON_I64;
    CHECK_OK(duo_reduce(DUO_SUM, DUO_I32, d, n, &sum));
    CHECK_EQ_I64(sum, -400 * 1000 + 999 * 1000 / 2);

    count_args args = {-400};
    int64_t total = TEST_POISON_I64;
    CHECK_OK(runtime_sum(n, args, &total));
    CHECK_EQ_I64(total, -400 * 1000 + 999 * 1000 / 2);

    /* [1 2; 3 4] * [5 6; 7 8] = [19 22; 43 50] */
    const float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
    float *dm = (float *)test_device_alloc(12 * sizeof(float));
    float c[4];
    test_to_device(dm, a, sizeof a);
    test_to_device(dm + 4, b, sizeof b);
    CHECK_OK(duo_memset(dm + 8, 0xFF, 4 * sizeof(float)));
    CHECK_OK(duo_gemm_f32(DUO_NO_TRANS, DUO_NO_TRANS, 2, 2, 2, 1.0f, dm, 2,
                          dm + 4, 2, 0.0f, dm + 8, 2));
    test_poison_f32(c, 4);
    test_to_host(c, dm + 8, sizeof c);
    CHECK(c[0] == 19.0f && c[1] == 22.0f && c[2] == 43.0f && c[3] == 50.0f);

    CHECK_OK(duo_synchronize());
    CHECK_OK(duo_free(dm));
    CHECK_OK(duo_free(d));
    free(h);
    CHECK_OK(duo_finalize());
    CHECK_OK(duo_init()); /* and once more */
    CHECK_OK(duo_finalize());
    test_set_context("%s", "");
}

int main(void)
{
    test_status_strings();
    test_version();
    test_before_init();
    test_device_env();
    test_init_and_info();
    test_last_error();
    test_timers();
    test_after_finalize();
    test_reinit();
    return test_summary("runtime");
}
