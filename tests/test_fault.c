/*
 * test_fault.c - after a kernel faults on the GPU (an illegal address,
 * which only a later call sees), the error names the kernels launched on
 * each stream since its last successful wait, with their file:line,
 * without DUO_SYNC_LAUNCHES: the last few of each stream, and how many
 * there were.  Kernels that a successful wait already covered are not
 * named.
 *
 * The fault leaves the CUDA context unusable, so this is a program of its
 * own that ends with it (CTest label "fault", which the sanitizer sweep
 * leaves out: the write is deliberate).  On the host path there is no
 * fault to see -- the same write would crash the process -- so it skips
 * (exit 77).
 */
#include <stdint.h>

#include "test_util.h"

DUO_KERNEL(fill_before_wait, size_t n, float v, float *x)
{
    DUO_FOR(i, n)
        x[i] = v;
}

DUO_KERNEL(fill_value, size_t n, float v, float *x)
{
    DUO_FOR(i, n)
        x[i] = v;
}

DUO_KERNEL(fill_on_stream, size_t n, float v, float *x)
{
    DUO_FOR(i, n)
        x[i] = v;
}

/* Writes n floats from `bad`, which no allocation holds. */
DUO_KERNEL(write_out_of_bounds, size_t n, float *bad)
{
    DUO_FOR(i, n)
        bad[i] = 1.0f;
}

/* "name (test_fault.c:line)" is in the message. */
static void check_names(const char *msg, const char *kernel, int line)
{
    char want[128];
    snprintf(want, sizeof want, "%s (test_fault.c:%d)", kernel, line);
    CHECK_CONTAINS(msg, want);
}

int main(void)
{
    test_init_or_skip();
    if (!test_on_gpu()) {
        printf("SKIP: the %s path runs kernels on the host, where a write "
               "through a bad pointer would crash this test instead of "
               "faulting a GPU\n", duo_backend_name());
        CHECK_OK(duo_finalize());
        return test_failures == 0 ? TEST_SKIP : 1;
    }
    const size_t n = 1000; /* not a multiple of the 256-thread block */
    float *x = (float *)test_device_alloc(n * sizeof *x);
    float *y = (float *)test_device_alloc(n * sizeof *y);
    duo_stream s = NULL;
    if (!CHECK_OK(duo_stream_create(&s)))
        return test_summary("fault");

    /* Covered by successful waits: never named.  The device-wide wait
     * covers both streams; the stream's own wait covers its second. */
    CHECK_OK(DUO_LAUNCH(fill_before_wait, n, n, 1.0f, x));
    CHECK_OK(DUO_LAUNCH_ON(s, fill_before_wait, n, n, 1.0f, y));
    CHECK_OK(duo_synchronize());
    CHECK_OK(DUO_LAUNCH_ON(s, fill_before_wait, n, n, 2.0f, y));
    CHECK_OK(duo_stream_synchronize(s));

    /* Since the last waits: one kernel on s, six on the default stream,
     * the last of which writes through a bad pointer. */
    const int line_s = __LINE__ + 1;
    CHECK_OK(DUO_LAUNCH_ON(s, fill_on_stream, n, n, 3.0f, y));
    const int line_fill = __LINE__ + 2;
    for (int k = 0; k < 5; ++k)
        CHECK_OK(DUO_LAUNCH(fill_value, n, n, (float)k, x));
    float *bad = (float *)(uintptr_t)0x10;
    const int line_bad = __LINE__ + 1;
    const duo_status launched = DUO_LAUNCH(write_out_of_bounds, n, n, bad);
    /* The launch is queued; the fault shows at the next call that looks
     * (at the launch's own check, if the kernel was that quick). */
    const duo_status st = launched != DUO_SUCCESS ? launched
                                                  : duo_synchronize();
    CHECK_EQ_I64(st, DUO_ERROR_LAUNCH);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", duo_last_error());
    printf("the error after the fault:\n  %s\n", msg);
    CHECK_CONTAINS(msg, "cudaErrorIllegalAddress");
    CHECK_CONTAINS(msg, "Launched since the last successful wait");
    CHECK_CONTAINS(msg, "on the default stream 6 launches, the last 4: ");
    check_names(msg, "fill_value", line_fill);
    check_names(msg, "write_out_of_bounds", line_bad);
    char want[256];
    snprintf(want, sizeof want, "on stream %p 1 launch: fill_on_stream "
             "(test_fault.c:%d)", (void *)s, line_s);
    CHECK_CONTAINS(msg, want);
    CHECK_MSG(strstr(msg, "fill_before_wait") == NULL,
              "a kernel a successful wait covered is not named: got "
              "\"%s\"", msg);

    /* The error is sticky: the next call sees it too, and says the
     * same. */
    CHECK_STATUS(duo_stream_synchronize(s), DUO_ERROR_LAUNCH);
    check_names(duo_last_error(), "write_out_of_bounds", line_bad);

    /* Nothing more can run: the context is lost, so duo_finalize fails
     * the same way, and the buffers stay allocated (and reported).  The
     * stream's host side is released whatever CUDA says. */
    (void)duo_stream_destroy(s);
    CHECK_STATUS(duo_finalize(), DUO_ERROR_LAUNCH);
    return test_summary("fault");
}
