/*
 * main.c - the consumer of an installed duo (tests/install/): one kernel,
 * a copy each way, a reduction, and the version and backend it was built
 * for, each checked.  Prints "consumer: <backend> <version> OK" and exits
 * 0; 1 on a wrong result; 77 in a CUDA build with DUO_DEVICE=gpu and no
 * usable GPU.  A CUDA build elsewhere without a GPU runs on its host
 * path, as "cuda-host-fallback".
 *
 * Also compiled by nvcc as CUDA C++, so written in the common subset.
 */
#include <duo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef EXPECTED_BACKEND
#error "compile with -DEXPECTED_BACKEND=\"serial\" (or openmp, cuda)"
#endif

DUO_KERNEL(consumer_axpy, size_t n, float a, const float *x, float *y)
{
    DUO_FOR(i, n)
        y[i] = a * x[i] + y[i];
}

static int fail(const char *what)
{
    printf("consumer: FAIL: %s: %s\n", what, duo_last_error());
    return 1;
}

int main(void)
{
    /* The headers compiled against and the library linked must agree. */
    char want[64];
    snprintf(want, sizeof want, "%d.%d.%d", DUO_VERSION_MAJOR,
             DUO_VERSION_MINOR, DUO_VERSION_PATCH);
    if (strcmp(duo_version(), want) != 0) {
        printf("consumer: FAIL: duo_version() = %s, headers say %s\n",
               duo_version(), want);
        return 1;
    }

    duo_status status = duo_init();
    if (status == DUO_ERROR_NO_DEVICE) {
        printf("SKIP: no GPU: %s\n", duo_last_error());
        return 77;
    }
    if (status != DUO_SUCCESS)
        return fail("duo_init");
    char host_path[64];
    snprintf(host_path, sizeof host_path, "%s-host-fallback",
             EXPECTED_BACKEND);
    if (strcmp(duo_backend_name(), EXPECTED_BACKEND) != 0 &&
        strcmp(duo_backend_name(), host_path) != 0) {
        printf("consumer: FAIL: backend %s, built for %s\n",
               duo_backend_name(), EXPECTED_BACKEND);
        return 1;
    }

    /* Small integers: every sum below is exact, so equality is required.
     * n is prime, so no launch shape divides it. */
    enum { N = 1009 };
    float *hx = (float *)malloc(N * sizeof(float));
    float *hy = (float *)malloc(N * sizeof(float));
    float *x = NULL, *y = NULL;
    if (hx == NULL || hy == NULL)
        return fail("malloc");
    double want_sum = 0.0;
    unsigned s = 12345u;
    for (int i = 0; i < N; ++i) {
        s = s * 1103515245u + 12345u;
        hx[i] = (float)((s >> 16) % 201) - 100.0f;
        hy[i] = (float)(i % 7) + 1.0f;
        want_sum += 3.0 * hx[i] + hy[i];
    }
    if (duo_malloc((void **)&x, N * sizeof(float)) != DUO_SUCCESS ||
        duo_malloc((void **)&y, N * sizeof(float)) != DUO_SUCCESS)
        return fail("duo_malloc");
    if (duo_memcpy(x, hx, N * sizeof(float), DUO_HOST_TO_DEVICE) ||
        duo_memcpy(y, hy, N * sizeof(float), DUO_HOST_TO_DEVICE))
        return fail("duo_memcpy H2D");
    if (DUO_LAUNCH(consumer_axpy, N, N, 3.0f, x, y) != DUO_SUCCESS)
        return fail("DUO_LAUNCH");
    double sum = -1.0;
    if (duo_reduce(DUO_SUM, DUO_F32, y, N, &sum) != DUO_SUCCESS)
        return fail("duo_reduce");
    memset(hy, 0xFF, N * sizeof(float));
    if (duo_memcpy(hy, y, N * sizeof(float), DUO_DEVICE_TO_HOST))
        return fail("duo_memcpy D2H");
    int bad = sum != want_sum;
    for (int i = 0; i < N; ++i)
        if (hy[i] != 3.0f * hx[i] + (float)(i % 7) + 1.0f)
            bad = 1;
    if (duo_free(x) || duo_free(y) || duo_finalize())
        return fail("duo_free/duo_finalize");
    free(hx);
    free(hy);
    if (bad) {
        printf("consumer: FAIL: sum %.17g, want %.17g (or an element "
               "differs)\n", sum, want_sum);
        return 1;
    }
    printf("consumer: %s %s OK\n", duo_backend_name(), duo_version());
    return 0;
}
