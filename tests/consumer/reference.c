/*
 * reference.c - what fp_kernel (main.c) must give, computed another way:
 * each float product and sum in double, rounded to float on its own.  A
 * product of two floats is exact in double and a sum of two floats
 * rounds to float correctly this way, so the result is the float
 * arithmetic of the kernel with every product rounded before its sum.
 * Each rounded value passes through a volatile, whatever flags this file
 * is compiled with: gcc narrows (float)((double)a * b) to a float
 * product, which it may then fuse with the sum that follows.
 *
 * Plain C, no duo: compiled by the C compiler on every route.
 */
#include <math.h>
#include <stddef.h>

#include "fp_kernel.h"

static float mul(float a, float b)
{
    volatile float p = (float)((double)a * (double)b);
    return p;
}

static float add(float a, float b)
{
    volatile float s = (float)((double)a + (double)b);
    return s;
}

void fp_reference(size_t n, float a0, const float *x, const float *y,
                  float *out)
{
    for (size_t i = 0; i < n; ++i) {
        const float a = x[i], b = y[i];
        float p = add(mul(a0, a), b);
        p = add(mul(p, a), 0.7f);
        p = add(mul(p, a), -0.3f);
        float q = add(mul(p, b), mul(0.2f, a));
        q = add(q, -mul(a, 0.9f));
        const float r = add(mul(add(a, 0.5f), add(b, -0.25f)), mul(q, q));
        out[FP_OUTPUTS * i] = p;
        out[FP_OUTPUTS * i + 1] = q;
        out[FP_OUTPUTS * i + 2] = r;
        out[FP_OUTPUTS * i + 3] =
            add(mul(fmaf(a, b, 0.1f), 0.3f), fmaf(p, 0.7f, q));
    }
}

size_t fp_fused_differs(size_t n, float a0, const float *x, const float *y)
{
    size_t differs = 0;
    for (size_t i = 0; i < n; ++i)
        differs += fmaf(a0, x[i], y[i]) != add(mul(a0, x[i]), y[i]);
    return differs;
}

void fp_terms(size_t n, const float *x, const float *y, float *out)
{
    for (size_t i = 0; i < n; ++i)
        out[i] = add(mul(x[i], y[i]), 0.1f);
}
