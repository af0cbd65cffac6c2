/* The README's example: one kernel, written once, run on any backend. */
#include <duo.h>
#include <stdio.h>

DUO_KERNEL(scale_add, size_t n, float a, const float *x, float *y)
{
    DUO_FOR(i, n)
        y[i] = a * x[i] + y[i];
}

int main(void)
{
    enum { N = 1000 };
    float hx[N], hy[N];
    for (int i = 0; i < N; ++i) {
        hx[i] = (float)i;
        hy[i] = 1.0f;
    }
    float *x, *y;
    double sum;
    DUO_CHECK(duo_init());
    DUO_CHECK(duo_malloc((void **)&x, sizeof hx));
    DUO_CHECK(duo_malloc((void **)&y, sizeof hy));
    DUO_CHECK(duo_memcpy(x, hx, sizeof hx, DUO_HOST_TO_DEVICE));
    DUO_CHECK(duo_memcpy(y, hy, sizeof hy, DUO_HOST_TO_DEVICE));
    DUO_CHECK(DUO_LAUNCH(scale_add, N, N, 2.0f, x, y));
    DUO_CHECK(duo_reduce(DUO_SUM, DUO_F32, y, N, &sum));
    printf("%s: sum = %.1f\n", duo_backend_name(), sum); /* 1000000.0 */
    DUO_CHECK(duo_free(x));
    DUO_CHECK(duo_free(y));
    DUO_CHECK(duo_finalize());
    return 0;
}
