/*
 * test_early_launch.c - launches ask for early launch (programmatic
 * dependent launch) only for kernels whose code waits for the kernel
 * before them (CUDA builds only):
 *
 *  - a kernel of this file (built for compute capability 9.0, as duo's
 *    build does) is launched early on a GPU of 9.0 or more with early
 *    launch on (DUO_EARLY_LAUNCH not 0), and not elsewhere;
 *  - a kernel built for compute_80 PTX only (early_launch_old.c, which
 *    the driver compiles for this GPU, without the wait) is never
 *    launched early: on its first launch, when its attributes are read,
 *    and on later ones, from the cache;
 *  - chains in which each kernel reads what the one before it wrote, old
 *    kernel then new and new then old, give the right values every time.
 *
 * duo_cuda_last_launch_early() (duo/kernel_cuda.h) says whether the most
 * recent launch asked for early launch.  On the host path only the
 * chains are checked.
 */
#include <stdlib.h>

#include "early_launch_old.h"
#include "test_util.h"

DUO_KERNEL(new_fill, size_t n, double base, double *out)
{
    DUO_FOR(i, n)
        out[i] = base + (double)i;
}

DUO_KERNEL(new_scale, size_t n, const double *in, double *out)
{
    DUO_FOR(i, n)
        out[i] = 3.0 * in[i];
}

/* Early launch is asked for where the GPU has it and it is on. */
static int early_expected(void)
{
    duo_device_info info;
    CHECK_OK(duo_device_info_get(&info));
    const char *env = getenv("DUO_EARLY_LAUNCH");
    return test_on_gpu() && info.compute_major >= 9 &&
           !(env != NULL && strcmp(env, "0") == 0);
}

/* Every out[i] == 3 (base + i). */
static void check_scaled(const double *dout, double *host, size_t n,
                         double base, const char *what)
{
    test_poison_f64(host, n);
    test_to_host(host, dout, n * sizeof(double));
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i)
        if (host[i] != 3.0 * (base + (double)i) && bad++ < 3)
            CHECK_MSG(0, "%s: out[%zu] = %.17g, want %.17g", what, i, host[i],
                      3.0 * (base + (double)i));
    CHECK_MSG(bad == 0, "%s: %zu of %zu values wrong", what, bad, n);
}

int main(void)
{
    test_init_or_skip();
    const double t0 = test_seconds();
    const int early = early_expected();
    printf("early_launch: %s\n", test_on_gpu() ? (early ? "GPU with early "
                                                          "launch"
                                                        : "GPU without early "
                                                          "launch")
                                               : "host path");
    /* Long enough that the second kernel of a pair could start before the
     * first has finished, if it were allowed to. */
    const size_t n = ((size_t)1 << 22) + 3;
    double *a = (double *)test_device_alloc(n * sizeof(double));
    double *b = (double *)test_device_alloc(n * sizeof(double));
    double *host = (double *)test_xmalloc(n * sizeof(double));
    duo_stream stream;
    CHECK_OK(duo_stream_create(&stream));

    for (int rep = 0; rep < 40; ++rep) {
        const double base = 1000.0 * rep + 0.5;
        const duo_stream s = rep % 2 ? stream : NULL;
        test_set_context("rep %d: old kernel, then new", rep);
        CHECK_OK(old_target_fill(n, base, a, s));
        if (test_on_gpu())
            CHECK_EQ_I64(duo_cuda_last_launch_early(), 0);
        CHECK_OK(DUO_LAUNCH_ON(s, new_scale, n, n, a, b));
        if (test_on_gpu())
            CHECK_EQ_I64(duo_cuda_last_launch_early(), early);
        check_scaled(b, host, n, base, "old fill, new scale");

        test_set_context("rep %d: new kernel, then old", rep);
        CHECK_OK(DUO_LAUNCH_ON(s, new_fill, n, n, base + 7.0, a));
        if (test_on_gpu())
            CHECK_EQ_I64(duo_cuda_last_launch_early(), early);
        CHECK_OK(old_target_scale(n, a, b, s));
        if (test_on_gpu())
            CHECK_EQ_I64(duo_cuda_last_launch_early(), 0);
        check_scaled(b, host, n, base + 7.0, "new fill, old scale");
    }
    test_set_context("%s", "");
    CHECK_OK(duo_stream_destroy(stream));
    CHECK_OK(duo_free(a));
    CHECK_OK(duo_free(b));
    free(host);
    CHECK_OK(duo_finalize());
    printf("early_launch: %.2f s\n", test_seconds() - t0);
    return test_summary("early_launch");
}
