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
 *  - DUO_DEVICE=cpu: the host path, whatever the machine has;
 *  - the reason in plain words (backend_cuda/runtime.cu,
 *    duo_cuda_describe_no_gpu) for each case posed: no driver, the
 *    toolkit's stub driver, a driver too old, no GPU, none visible.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdlib.h>

#include "test_util.h"

DUO_EXTERN_C void duo_cuda_describe_no_gpu(int err, int count,
                                           int driver_version,
                                           int runtime_version,
                                           const char *visible, char *out,
                                           size_t size);

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
    CHECK_CONTAINS(msg, "host path");
    /* Plain words, not cudart's: on a machine without a driver that is
     * "no NVIDIA driver", on one with GPUs all hidden "no GPU is
     * visible". */
    CHECK_MSG(strstr(msg, "driver version is insufficient") == NULL,
              "cudart's words in \"%s\"", msg);
    CHECK_MSG(strstr(msg, "no NVIDIA driver was found") != NULL ||
                  strstr(msg, "no GPU is visible (CUDA_VISIBLE_DEVICES=)") !=
                      NULL,
              "the reason in \"%s\"", msg);

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

/* The reason for each case posed, as duo_init and duo_backend_reason
 * give it. */
static void test_reasons(void)
{
    char out[256];
    test_set_context("reasons");
    duo_cuda_describe_no_gpu(cudaErrorInsufficientDriver, 0, 0, 13000, NULL,
                             out, sizeof out);
    CHECK_CONTAINS(out, "no NVIDIA driver was found on this machine");
    duo_cuda_describe_no_gpu(cudaErrorStubLibrary, 0, 0, 13000, NULL, out,
                             sizeof out);
    CHECK_CONTAINS(out, "no NVIDIA driver was found on this machine");
    CHECK_CONTAINS(out, "stub");
    duo_cuda_describe_no_gpu(cudaErrorInsufficientDriver, 0, 12040, 13000,
                             NULL, out, sizeof out);
    CHECK_CONTAINS(out, "the NVIDIA driver is too old for this build: it "
                        "supports CUDA 12.4, this build's runtime is CUDA "
                        "13.0 (a driver for CUDA 13.0 or newer is needed)");
    duo_cuda_describe_no_gpu(cudaErrorNoDevice, 0, 13000, 13000, NULL, out,
                             sizeof out);
    CHECK(strcmp(out, "the NVIDIA driver found no GPU") == 0);
    duo_cuda_describe_no_gpu(cudaSuccess, 0, 13000, 13000, NULL, out,
                             sizeof out);
    CHECK(strcmp(out, "the NVIDIA driver found no GPU") == 0);
    duo_cuda_describe_no_gpu(cudaErrorNoDevice, 0, 13000, 13000, "7", out,
                             sizeof out);
    CHECK(strcmp(out, "no GPU is visible (CUDA_VISIBLE_DEVICES=7)") == 0);
    duo_cuda_describe_no_gpu(cudaErrorDevicesUnavailable, 0, 13000, 13000,
                             NULL, out, sizeof out);
    CHECK_CONTAINS(out, "cudaErrorDevicesUnavailable");
}

int main(void)
{
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    CHECK_MSG(visible != NULL && visible[0] == '\0',
              "run with CUDA_VISIBLE_DEVICES= (empty); got %s",
              visible ? visible : "(unset)");

    test_reasons();
    test_gpu_refused();
    test_host_path("auto", "no usable GPU");
    test_host_path("", "no usable GPU");
    test_host_path("cpu", "DUO_DEVICE=cpu");
    /* After the host path, a refused GPU start leaves nothing behind. */
    test_gpu_refused();
    return test_summary("cuda_no_device");
}
