/*
 * duo/bits.h - the bits of a float or double and back, in kernels and
 * host code alike (memcpy on the host, which every compiler turns into a
 * register move).  Shared by duo/atomic.h and duo/math_core.h, which
 * include it after DUO_DEVICE is defined; do not include directly.
 */
#ifndef DUO_BITS_H
#define DUO_BITS_H

#include <stdint.h>
#include <string.h>

DUO_DEVICE uint32_t duo_bits_from_f32_(float x)
{
#if defined(__CUDA_ARCH__)
    return __float_as_uint(x);
#else
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
#endif
}

DUO_DEVICE float duo_f32_from_bits_(uint32_t u)
{
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
#endif
}

DUO_DEVICE uint64_t duo_bits_from_f64_(double x)
{
#if defined(__CUDA_ARCH__)
    return (uint64_t)__double_as_longlong(x);
#else
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
#endif
}

DUO_DEVICE double duo_f64_from_bits_(uint64_t u)
{
#if defined(__CUDA_ARCH__)
    return __longlong_as_double((long long)u);
#else
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
#endif
}

#endif /* DUO_BITS_H */
