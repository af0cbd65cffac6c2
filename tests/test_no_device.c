/*
 * test_no_device.c - the CUDA build on a machine where no GPU is visible.
 *
 * CTest runs this with CUDA_VISIBLE_DEVICES set to the empty string, which
 * hides every GPU, so it needs none: duo_init() must fail with
 * DUO_ERROR_NO_DEVICE and a message that points at the CPU builds, and
 * the library must then refuse work with DUO_ERROR_NOT_INITIALIZED.
 */
#include <stdlib.h>

#include "test_util.h"

int main(void)
{
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    CHECK_MSG(visible != NULL && visible[0] == '\0',
              "run with CUDA_VISIBLE_DEVICES= (empty); got %s",
              visible ? visible : "(unset)");

    CHECK(strcmp(duo_backend_name(), "cuda") == 0);

    CHECK_STATUS(duo_init(), DUO_ERROR_NO_DEVICE);
    const char *msg = duo_last_error();
    printf("duo_last_error: %s\n", msg);
    CHECK_CONTAINS_WORD(msg, "duo_init");
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

    return test_summary("cuda_no_device");
}
