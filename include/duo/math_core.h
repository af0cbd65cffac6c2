/*
 * duo/math_core.h - the arithmetic that duo/math.h is written in.
 * Included by <duo/math.h>; not for direct use.
 *
 * The functions of duo/math.h return the same bits on the GPU, on the
 * CUDA host path and in the serial and OpenMP builds because they use
 * only operations that IEEE 754 defines exactly (+, -, *, /, sqrt, fma,
 * conversions) and integer operations.  What could still differ is a
 * compiler fusing a product and a sum into one fma on one side only:
 * every product here goes through duo_m_mul_ (duo_m_mulf_ in float),
 * which on the GPU is __dmul_rn (__fmul_rn; never fused, whatever
 * --fmad says) and on the host a plain product (duo's host compiles run
 * with -ffp-contract=off, and C11 mode does not contract;
 * tests/math/test_math.c fails if something does).  Fused multiply-adds
 * are written as duo_m_fma_ (duo_m_fmaf_).
 *
 * Not supported: --use_fast_math or -ffast-math (they flush subnormals or
 * reorder sums), and x87 arithmetic (FLT_EVAL_METHOD != 0).
 */
#ifndef DUO_MATH_CORE_H
#define DUO_MATH_CORE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <duo.h>

/* A table that kernels and host code both read: on the GPU a copy in
 * device memory, on the host an ordinary array.  DUO_MATH_T(name) is the
 * one the current compilation pass may read.  The GPU's copy is aligned
 * to 16 bytes, so that nvcc loads neighbouring entries (a hi, lo pair;
 * erff's four doubles) in one 64- or 128-bit load: erff's kernel went
 * from 0.60 to 0.70 of CUDA's on an H200 with it (and fewer terms),
 * coshf's from 0.78 to 0.79.  DUO_MATH_TABLE_NATURAL leaves a table at
 * its type's alignment: asinf's and acosf's table, whose kernels ran at
 * 0.58 instead of 0.67 of CUDA's with it aligned (cause not established;
 * profiles/math/bench-h200-atan.md). */
#if defined(__GNUC__) || defined(__clang__)
#define DUO_MATH_UNUSED_ __attribute__((unused))
#else
#define DUO_MATH_UNUSED_
#endif
#if defined(__CUDACC__)
#define DUO_MATH_TABLE_AS_(align, type, name, ...)                       \
    static __device__ align const type name##dev_[] = {__VA_ARGS__};     \
    static const type name##host_[] DUO_MATH_UNUSED_ = {__VA_ARGS__};
#define DUO_MATH_TABLE(type, name, ...)                                  \
    DUO_MATH_TABLE_AS_(__align__(16), type, name, __VA_ARGS__)
#define DUO_MATH_TABLE_NATURAL(type, name, ...)                          \
    DUO_MATH_TABLE_AS_(, type, name, __VA_ARGS__)
#else
#define DUO_MATH_TABLE(type, name, ...)                                  \
    static const type name##host_[] DUO_MATH_UNUSED_ = {__VA_ARGS__};
#define DUO_MATH_TABLE_NATURAL(type, name, ...)                          \
    DUO_MATH_TABLE(type, name, __VA_ARGS__)
#endif
#if defined(__CUDA_ARCH__)
#define DUO_MATH_T(name) name##dev_
#else
#define DUO_MATH_T(name) name##host_
#endif

#include <duo/math_tables.h>

/* ------------------------------------------------------------------ */
/* Bits                                                                */

#include <duo/bits.h>

/* 2^e for -1022 <= e <= 1023, exactly. */
DUO_DEVICE double duo_m_pow2_(int e)
{
    return duo_f64_from_bits_((uint64_t)(e + 1023) << 52);
}

/* Leading zeros of a nonzero 64-bit word. */
DUO_DEVICE int duo_m_clz64_(uint64_t v)
{
#if defined(__CUDA_ARCH__)
    return __clzll((long long)v);
#elif defined(__GNUC__) || defined(__clang__)
    return __builtin_clzll(v);
#else
    int n = 0;
    while (!(v >> 63)) {
        v <<= 1;
        ++n;
    }
    return n;
#endif
}

/* NaN results, the same bits everywhere (the hardware's default NaNs
 * differ: x86 gives 0xffc00000, the GPU 0x7fffffff): a NaN argument
 * comes back quieted, a domain error gives the positive quiet NaN. */
DUO_DEVICE float duo_m_qnan_(float x)
{
    return duo_f32_from_bits_(duo_bits_from_f32_(x) | 0x00400000u);
}

DUO_DEVICE float duo_m_nan_(void)
{
    return duo_f32_from_bits_(0x7fc00000u);
}

DUO_DEVICE int duo_m_isnan_(float x)
{
    return (duo_bits_from_f32_(x) & 0x7fffffffu) > 0x7f800000u;
}

DUO_DEVICE int duo_m_isnan_d_(double x)
{
    return (duo_bits_from_f64_(x) & 0x7fffffffffffffffull) >
           0x7ff0000000000000ull;
}

DUO_DEVICE double duo_m_qnan_d_(double x)
{
    return duo_f64_from_bits_(duo_bits_from_f64_(x) | 0x0008000000000000ull);
}

DUO_DEVICE double duo_m_nan_d_(void)
{
    return duo_f64_from_bits_(0x7ff8000000000000ull);
}

/* ------------------------------------------------------------------ */
/* Arithmetic that no compiler fuses                                   */

DUO_DEVICE double duo_m_mul_(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}

DUO_DEVICE double duo_m_fma_(double a, double b, double c)
{
    return fma(a, b, c);
}

/* Float arithmetic for the fast paths that work in float (atanf,
 * atan2f): the same rules.  The GPU's reciprocal is its IEEE one
 * (__frcp_rn), whatever -prec-div says. */
DUO_DEVICE float duo_m_mulf_(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}

DUO_DEVICE float duo_m_fmaf_(float a, float b, float c)
{
    return fmaf(a, b, c);
}

/* 1 / a, correctly rounded. */
DUO_DEVICE float duo_m_rcpf_(float a)
{
#ifdef __CUDA_ARCH__
    return __frcp_rn(a);
#else
    return 1.0f / a;
#endif
}

/* p + e = a * b exactly (a * b far from float's underflow). */
DUO_DEVICE float duo_m_two_prodf_(float a, float b, float *e)
{
    float p = duo_m_mulf_(a, b);
    *e = duo_m_fmaf_(a, b, -p);
    return p;
}

/* s + e = a + b exactly, s = RN(a + b), when |a| >= |b| or a == 0 (the
 * float duo_m_fast_two_sum_). */
DUO_DEVICE float duo_m_fast_two_sumf_(float a, float b, float *e)
{
    float s = a + b;
    *e = b - (s - a);
    return s;
}

/* x 2^e for any int e, rounded once (into the subnormals if need be). */
DUO_DEVICE double duo_m_ldexp_(double x, int e)
{
    if (e > 1023)
        return duo_m_mul_(duo_m_mul_(x, 0x1p1023), duo_m_pow2_(e - 1023));
    if (e < -1022)
        return duo_m_mul_(duo_m_mul_(x, duo_m_pow2_(e + 200)), 0x1p-200);
    return duo_m_mul_(x, duo_m_pow2_(e));
}

/* s + e = a + b exactly, s = RN(a + b) (Knuth's TwoSum). */
DUO_DEVICE double duo_m_two_sum_(double a, double b, double *e)
{
    double s = a + b;
    double bb = s - a;
    *e = (a - (s - bb)) + (b - bb);
    return s;
}

/* The same when |a| >= |b| or a == 0 (Dekker's Fast2Sum). */
DUO_DEVICE double duo_m_fast_two_sum_(double a, double b, double *e)
{
    double s = a + b;
    *e = b - (s - a);
    return s;
}

/* p + e = a * b exactly. */
DUO_DEVICE double duo_m_two_prod_(double a, double b, double *e)
{
    double p = duo_m_mul_(a, b);
    *e = duo_m_fma_(a, b, -p);
    return p;
}

/* A function for a rarely taken path, out of line on the GPU: ptxas gives
 * a kernel the registers of its busiest point, inlined paths included,
 * while a call keeps a path's registers to itself (duo_sin's kernel
 * with the reduction of huge arguments out of line: 38 -> 32 registers,
 * ptxas, sm_90, so 64 warps per SM instead of 48). */
#ifdef __CUDACC__
#define DUO_MATH_COLD static inline __host__ __device__ __noinline__
#else
#define DUO_MATH_COLD static inline
#endif

/* n / d, CUDA's IEEE division out of line (DUO_MATH_COLD): for rare
 * operands that may be subnormal. */
DUO_MATH_COLD double duo_m_div_cold_(double n, double d)
{
    return n / d;
}

/* 1/d correctly rounded: the same bits on every side (__drcp_rn on the
 * GPU, which holds fewer registers than CUDA's division). */
DUO_DEVICE double duo_m_rcp_rn_(double d)
{
#ifdef __CUDA_ARCH__
    return __drcp_rn(d);
#else
    return 1.0 / d;
#endif
}

/* n / d correctly rounded, for the float functions' careful paths, whose
 * operands lie far inside double's range: d, 1/d and n/d normal doubles
 * (or n = 0; the sign of a zero quotient may differ from n / d's).  On
 * the GPU without CUDA's division, whose subroutine for operands out of
 * range holds registers that the whole kernel then pays for (ptxas: 25
 * for a kernel that divides two doubles, 12 for one that multiplies
 * them): with y = RN(1/d), q0 = RN(n y) is within 1.5 units of n/d, one
 * correction RN(q0 + y RN(n - d q0)) brings it within a unit (faithful),
 * and by Markstein's theorem (y correctly rounded, q faithful, so n - d
 * q is exact in one fma) RN(q + y (n - d q)) is RN(n/d).  math-gpu-sweep
 * compares the GPU with the host, which divides, on every float argument
 * of the functions that use it.  Host code built with
 * DUO_MATH_GPU_DIVISION takes the GPU's steps (y = 1/d divided, the
 * correctly rounded reciprocal that __drcp_rn returns), so that
 * math-gpu-division (tests/math) can compare them with the division on
 * every float argument without a GPU. */
DUO_DEVICE double duo_m_div_rn_(double n, double d)
{
#if defined(__CUDA_ARCH__) || defined(DUO_MATH_GPU_DIVISION)
    double y = duo_m_rcp_rn_(d);
    double q = duo_m_mul_(n, y);
    q = duo_m_fma_(duo_m_fma_(-d, q, n), y, q);
    return duo_m_fma_(duo_m_fma_(-d, q, n), y, q);
#else
    return n / d;
#endif
}

/* 1/d within 2^-17.2 relatively, for a positive double d with d and 1/d
 * normal: an integer subtraction and four fma, the same bits on every
 * side, with no reciprocal instruction and so no subroutine for operands
 * out of range (whose registers the whole kernel pays for: the double
 * atan's 34 -> 32, atan2's 38 -> 32; ptxas, sm_90).  The seed M -
 * bits(d) is within 2^-4.3 of 1/d (its relative error depends only on
 * d's significand: checked at 2^22 points of [1, 2), the largest at 1);
 * each Newton step y + y (1 - d y) squares the error, plus roundings. */
DUO_DEVICE double duo_m_rcp_approx_(double d)
{
    double y = duo_f64_from_bits_(0x7fde623822fc16e6ull -
                                  duo_bits_from_f64_(d));
    y = duo_m_fma_(y, duo_m_fma_(-d, y, 1.0), y);
    return duo_m_fma_(y, duo_m_fma_(-d, y, 1.0), y);
}

/* (nh + nl) / (dh + dl) = q + *ql: the quotient of the high parts and
 * the remainder's share (the remainder nh - q dh is exact with fma),
 * each an IEEE quotient by duo_m_div_rn_, for operands as it wants them
 * (the float functions' careful paths). */
DUO_DEVICE double duo_m_dd_div_f_(double nh, double nl, double dh,
                                  double dl, double *ql)
{
    double q = duo_m_div_rn_(nh, dh);
    *ql = duo_m_div_rn_(duo_m_fma_(-q, dh, nh) + nl - duo_m_mul_(q, dl),
                        dh + dl);
    return q;
}

/* (nh + nl) / (dh + dl) = q + *ql with one reciprocal y = RN(1/dh) and
 * no division, for the double atan, atan2, asin, acos, tan, sinh and
 * tanh: dh, y, the quotients and the remainder normal doubles (or zero),
 * |dl| <= 2^-51 |dh|.  As in duo_m_div_rn_, q0 = RN(nh y) and one
 * correction make q a faithful quotient of nh / dh, so r = nh - q dh is
 * exact in one fma and |r| < 2^-52 |q dh|.  Then n / d - q = (r + nl -
 * q dl) / (dh + dl), taken as that numerator (two roundings) times y:
 * four roundings (u (5 |r| + 5 |nl| + 4 |q dl|) / |dh|, u = 2^-53) and
 * dl left out of the divisor (|dl / dh| |*ql|), so q + *ql is within
 * 2^-100 |q| + 2^-50 |nl / dh| of n / d. */
DUO_DEVICE double duo_m_dd_div_rcp_(double nh, double nl, double dh,
                                    double dl, double *ql)
{
    double y = duo_m_rcp_rn_(dh);
    double q = duo_m_mul_(nh, y);
    q = duo_m_fma_(duo_m_fma_(-dh, q, nh), y, q);
    double r = duo_m_fma_(-dh, q, nh);
    *ql = duo_m_mul_(duo_m_fma_(-q, dl, r + nl), y);
    return q;
}

/* hi + lo rounded to the nearest float, correctly: hi + lo is first
 * rounded to odd in double (the nearest double, moved one unit toward
 * the exact sum when that is even and inexact), which then rounds to
 * nearest float as the exact sum would, 53 >= 24 + 2 bits. */
DUO_DEVICE float duo_m_dd_to_float_(double hi, double lo)
{
    double e;
    double s = duo_m_two_sum_(hi, lo, &e);
    if (e != 0.0) {
        uint64_t b = duo_bits_from_f64_(s);
        if (!(b & 1u))
            b = ((e > 0.0) == (s > 0.0)) ? b + 1u : b - 1u;
        s = duo_f64_from_bits_(b);
    }
    return (float)s;
}

/* The fast paths' rounding test.  y is a double within err units of its
 * own last place (err < 2^27) of the exact value v of a float function,
 * and |y| lies in float's normal range (or y = 0 exactly).  Round to
 * nearest float changes value only at the midpoints between floats; in
 * y's binade these are the doubles whose 29 bits below float precision
 * read 2^28.  When those bits of y are more than err away from 2^28, no
 * midpoint lies between y and v (a neighbouring binade's midpoints are
 * farther still: at least 2^27 of y's units from its ends), so v rounds
 * to the float that y rounds to: returns 1, and (float)y is correctly
 * rounded.  Returns 0 otherwise (the caller takes its careful path):
 * 2 err + 1 of the 2^29 patterns, so rarely. */
DUO_DEVICE int duo_m_round_ok_(double y, uint32_t err)
{
    /* Only y's low 29 bits matter, so 32-bit sums do: on the GPU one
     * compare instead of a 64-bit pair. */
    uint32_t b = (uint32_t)duo_bits_from_f64_(y);
    return ((b + err - 0x10000000u) & 0x1fffffffu) > 2 * err;
}

/* The rounding test of the fast paths that work in float.  h + l is a
 * fast two-sum's result (h = RN(h + l), so |l| <= half a unit of h's
 * last place), |h| >= 2^-100, and the exact value v of the function
 * lies within 2^-11 units of h's last place of h + l.  Round to nearest
 * moves v away from h only across a midpoint, half a unit from h (a
 * quarter below a power of 2); when |l| is more than 2^-11 units short
 * of half a unit and h is not a power of 2, none lies between h + l and
 * v: returns 1, and h is the correctly rounded float.  Returns 0
 * otherwise (the caller takes its careful path): about 2^-10 of the
 * arguments.  The limit 2^(e - 24) (1 - 2^-10), for 2^e <= |h| <
 * 2^(e+1), is a product with a power of 2, exact for e >= -115. */
DUO_DEVICE int duo_m_round_okf_(float h, float l)
{
    uint32_t b = duo_bits_from_f32_(h);
    float p = duo_f32_from_bits_(b & 0x7f800000u);
    return (b & 0x007fffffu) != 0u &&
           fabsf(l) < duo_m_mulf_(p, 0x1p-24f - 0x1p-34f);
}

#endif /* DUO_MATH_CORE_H */
