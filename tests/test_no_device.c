/*
 * test_no_device.c - the CUDA build on a machine where no GPU is visible.
 *
 * CTest runs this with CUDA_VISIBLE_DEVICES set to the empty string, which
 * hides every GPU, so it needs none:
 *  - DUO_DEVICE=gpu: duo_init() fails with DUO_ERROR_NO_DEVICE and a
 *    message that names the other choices (DUO_DEVICE, the CPU builds),
 *    and the library then refuses work with DUO_ERROR_NOT_INITIALIZED;
 *  - DUO_DEVICE=auto (or unset): duo_init() takes the host path and says
 *    why; work runs there;
 *  - DUO_DEVICE=cpu: the host path, whatever the machine has.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdlib.h>

#include "test_util.h"

DUO_KERNEL(iota_kernel, size_t n, double *out)
{
    DUO_FOR(i, n)
        out[i] = (double)i;
}

static void test_gpu_refused(void)
{
    test_set_context("DUO_DEVICE=gpu");
    setenv("DUO_DEVICE", "gpu", 1);
    CHECK(strcmp(duo_backend_name(), "cuda") == 0);

    CHECK_STATUS(duo_init(), DUO_ERROR_NO_DEVICE);
    const char *msg = duo_last_error();
    printf("duo_last_error: %s\n", msg);
    CHECK_CONTAINS_WORD(msg, "duo_init");
    CHECK_CONTAINS(msg, "DUO_DEVICE");
    CHECK_CONTAINS(msg, "make serial");
    CHECK_CONTAINS(msg, "make openmp");

    /* Trying again gives the same answer; nothing is half-initialized. */
    CHECK_STATUS(duo_init(), DUO_ERROR_NO_DEVICE);

    void *p = TEST_POISON_PTR;
    CHECK_STATUS(duo_malloc(&p, 16), DUO_ERROR_NOT_INITIALIZED);
    CHECK(p == TEST_POISON_PTR);
    CHECK_CONTAINS(duo_last_error(), "duo_init");

    double sum = test_f64_from_bits(0xFFFFFFFFFFFFFFFFULL);
    float x[2] = {1.0f, 2.0f};
    CHECK_STATUS(duo_reduce(DUO_SUM, DUO_F32, x, 2, &sum),
                 DUO_ERROR_NOT_INITIALIZED);
    CHECK(test_is_poison_f64(sum));

    duo_device_info info;
    memset(&info, 0x5A, sizeof info);
    CHECK_STATUS(duo_device_info_get(&info), DUO_ERROR_NOT_INITIALIZED);
}

/* The host path runs a kernel and a reduction, and names itself. */
static void test_host_path(const char *want, const char *why)
{
    test_set_context("DUO_DEVICE=%s", want);
    setenv("DUO_DEVICE", want, 1);
    if (!CHECK_OK(duo_init()))
        return;
    CHECK(strcmp(duo_backend_name(), "cuda-host-fallback") == 0);
    printf("DUO_DEVICE=%s: %s: %s\n", want, duo_backend_name(),
           duo_backend_reason());
    CHECK_CONTAINS(duo_backend_reason(), "host path");
    CHECK_CONTAINS(duo_backend_reason(), why);
    CHECK_MSG(duo_last_error()[0] == '\0', "duo_last_error after a "
              "successful duo_init: \"%s\"", duo_last_error());

    const size_t n = 1001; /* sum 0..1000 = 500500, exact in double */
    double *x = NULL;
    double sum = test_f64_from_bits(0xFFFFFFFFFFFFFFFFULL);
    if (CHECK_OK(duo_malloc((void **)&x, n * sizeof *x))) {
        CHECK_OK(DUO_LAUNCH(iota_kernel, n, n, x));
        CHECK_OK(duo_reduce(DUO_SUM, DUO_F64, x, n, &sum));
        CHECK_MSG(sum == 500500.0, "sum of 0..1000 = %.17g", sum);
        CHECK_OK(duo_free(x));
    }
    CHECK_OK(duo_finalize());
}

int main(void)
{
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    CHECK_MSG(visible != NULL && visible[0] == '\0',
              "run with CUDA_VISIBLE_DEVICES= (empty); got %s",
              visible ? visible : "(unset)");

    test_gpu_refused();
    test_host_path("auto", "no usable GPU");
    test_host_path("", "no usable GPU");
    test_host_path("cpu", "DUO_DEVICE=cpu");
    /* After the host path, a refused GPU start leaves nothing behind. */
    test_gpu_refused();
    return test_summary("cuda_no_device");
}
