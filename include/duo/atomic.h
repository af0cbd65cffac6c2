/*
 * duo/atomic.h - atomic read-modify-write of one memory location, for use
 * inside DUO_KERNEL and DUO_BLOCK_KERNEL bodies.  Included by
 * <duo/kernel.h>; do not include directly.
 *
 *   DUO_KERNEL(count_hits, size_t n, const float *x, float lo,
 *              uint64_t *hits)
 *   {
 *       DUO_FOR(i, n)
 *           if (x[i] >= lo)
 *               duo_atomic_add_u64(hits, 1);
 *   }
 *
 * One function per operation and type, each returning the value the
 * location held just before (the "old" value):
 *
 *   duo_atomic_{add,sub,min,max,and,or,xor,exch}_{i32,u32,i64,u64}(p, v)
 *   duo_atomic_cas_{i32,u32,i64,u64}(p, expected, desired)
 *       stores desired if *p == expected; returns the old *p either way,
 *       so the swap happened exactly when the return equals expected.
 *   duo_atomic_{add,min,max}_{f32,f64}(p, v)
 *
 * p points to device memory (duo_malloc), or to DUO_SHARED memory in a
 * block kernel, aligned to its type.  Integer add and sub wrap modulo
 * 2^32 or 2^64, signed types included (two's complement, never undefined
 * behaviour).  Atomics are relaxed: they order nothing but themselves, as
 * in CUDA; a kernel that publishes data through them needs the launch
 * boundary (or DUO_BARRIER within a block) to make the data visible.
 *
 * Where it runs: on the GPU each is one native instruction (atomicAdd,
 * atomicMin, atomicCAS, ...), except 64-bit sub, which is an atomicAdd of
 * the negated value.  On the host (the openmp build, a CUDA build's host
 * path, and the serial build) they are the __atomic builtins of gcc and
 * clang, or compare-and-swap loops built on them; the serial build uses
 * them too, because DUO_FOR and DUO_THREADS loops carry `omp simd`, which
 * would let the compiler vectorize a plain read-modify-write of one
 * address into lost updates.
 *
 * Bits.  Integer results are the same on every backend and every run:
 * the final value of a location depends only on the set of operations
 * applied to it (the old values each call returns depend on timing, as
 * on any machine: which call saw which old value is a race).
 *
 * Float and double min and max compare in the total order of the bit
 * patterns, the order duo_sort uses:
 *   -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN
 * (a NaN with its sign bit set is below everything, one without it above
 * everything).  So the final value does not depend on timing either:
 * min(-0, +0) is -0 in any order, and the largest NaN wins a max.  This
 * differs from duo_reduce, whose min and max return the first of equal
 * values and propagate any NaN.  On the GPU they are integer min/max
 * instructions on the bits (the sign decides which), no retry loop.
 *
 * Floating-point add is the one atomic whose bits depend on timing:
 * rounding makes (a + b) + c differ from (a + c) + b, and the order in
 * which threads arrive changes from run to run and from GPU to CPU.  Sums
 * of values that are all exactly representable and whose partial sums
 * stay exact (small integers, say) are the exception.  For a sum with the
 * same bits everywhere, do not accumulate with duo_atomic_add_f32/f64:
 *
 *   - duo_reduce(DUO_SUM, DUO_F64, x, n, &sum) over an array of the
 *     terms (or duo_reduce_async to keep the sum on the device), or
 *   - DUO_REDUCE_DEFINE(total, double, DUO_SUM, term, args) when the
 *     terms are computed, not stored: the element function returns term
 *     i and duo adds them in a fixed order, or
 *   - in a block kernel, one partial per block (the block's threads
 *     combined in a fixed order through DUO_SHARED memory) written to
 *     partials[block], then duo_reduce over the partials.
 *
 * Each of these gives the same bits on every backend and thread count.
 */
#ifndef DUO_ATOMIC_H
#define DUO_ATOMIC_H

#include <stdint.h>
#include <string.h>

#include <duo/bits.h>

#if defined(__CUDA_ARCH__)
/* ---- the GPU: native atomics ------------------------------------- */
/* G is the type CUDA's overloads take for T (int64_t is `long` on Linux,
 * CUDA's 64-bit atomics take long long / unsigned long long). */

#define DUO_ATOMIC_INT_(sfx, T, G, U)                                          \
    DUO_DEVICE T duo_atomic_add_##sfx(T *p, T v)                              \
    { return (T)atomicAdd((U *)p, (U)v); }                                    \
    DUO_DEVICE T duo_atomic_sub_##sfx(T *p, T v)                              \
    { return (T)atomicAdd((U *)p, (U)0 - (U)v); }                             \
    DUO_DEVICE T duo_atomic_min_##sfx(T *p, T v)                              \
    { return (T)atomicMin((G *)p, (G)v); }                                    \
    DUO_DEVICE T duo_atomic_max_##sfx(T *p, T v)                              \
    { return (T)atomicMax((G *)p, (G)v); }                                    \
    DUO_DEVICE T duo_atomic_and_##sfx(T *p, T v)                              \
    { return (T)atomicAnd((U *)p, (U)v); }                                    \
    DUO_DEVICE T duo_atomic_or_##sfx(T *p, T v)                               \
    { return (T)atomicOr((U *)p, (U)v); }                                     \
    DUO_DEVICE T duo_atomic_xor_##sfx(T *p, T v)                              \
    { return (T)atomicXor((U *)p, (U)v); }                                    \
    DUO_DEVICE T duo_atomic_exch_##sfx(T *p, T v)                             \
    { return (T)atomicExch((U *)p, (U)v); }                                   \
    DUO_DEVICE T duo_atomic_cas_##sfx(T *p, T expected, T desired)           \
    { return (T)atomicCAS((U *)p, (U)expected, (U)desired); }

DUO_ATOMIC_INT_(i32, int32_t, int, unsigned int)
DUO_ATOMIC_INT_(u32, uint32_t, unsigned int, unsigned int)
DUO_ATOMIC_INT_(i64, int64_t, long long, unsigned long long)
DUO_ATOMIC_INT_(u64, uint64_t, unsigned long long, unsigned long long)
#undef DUO_ATOMIC_INT_

DUO_DEVICE float duo_atomic_add_f32(float *p, float v)
{ return atomicAdd(p, v); }
DUO_DEVICE double duo_atomic_add_f64(double *p, double v)
{ return atomicAdd(p, v); }

/* Total order on the bits: among values with the sign bit clear, the
 * larger signed integer is the larger value; among values with it set,
 * the larger unsigned integer is the smaller value; and every value with
 * the sign clear is above every value with it set. */
DUO_DEVICE float duo_atomic_max_f32(float *p, float v)
{
    const uint32_t b = __float_as_uint(v);
    return __uint_as_float(
        (b >> 31) == 0 ? (uint32_t)atomicMax((int *)p, (int)b)
                       : atomicMin((unsigned int *)p, b));
}
DUO_DEVICE float duo_atomic_min_f32(float *p, float v)
{
    const uint32_t b = __float_as_uint(v);
    return __uint_as_float(
        (b >> 31) == 0 ? (uint32_t)atomicMin((int *)p, (int)b)
                       : atomicMax((unsigned int *)p, b));
}
DUO_DEVICE double duo_atomic_max_f64(double *p, double v)
{
    const unsigned long long b = (unsigned long long)__double_as_longlong(v);
    return __longlong_as_double(
        (b >> 63) == 0
            ? atomicMax((long long *)p, (long long)b)
            : (long long)atomicMin((unsigned long long *)p, b));
}
DUO_DEVICE double duo_atomic_min_f64(double *p, double v)
{
    const unsigned long long b = (unsigned long long)__double_as_longlong(v);
    return __longlong_as_double(
        (b >> 63) == 0
            ? atomicMin((long long *)p, (long long)b)
            : (long long)atomicMax((unsigned long long *)p, b));
}

#else
/* ---- the host: gcc / clang __atomic builtins ---------------------- */

/* Min and max as compare-and-swap loops: gcc has no fetch_min.  `better`
 * is an expression in v and old that is true when v must replace old.
 * A failed exchange reloads old. */
#define DUO_ATOMIC_CAS_LOOP_(T, p, v, better)                                 \
    T old = __atomic_load_n(p, __ATOMIC_RELAXED);                             \
    while ((better) && !__atomic_compare_exchange_n(                          \
                           p, &old, v, 1, __ATOMIC_RELAXED,                   \
                           __ATOMIC_RELAXED)) {                               \
    }                                                                         \
    return old;

/* Signed add and sub go through the unsigned type U, so that they wrap. */
#define DUO_ATOMIC_INT_(sfx, T, U)                                            \
    DUO_DEVICE T duo_atomic_add_##sfx(T *p, T v)                              \
    { return (T)__atomic_fetch_add((U *)p, (U)v, __ATOMIC_RELAXED); }        \
    DUO_DEVICE T duo_atomic_sub_##sfx(T *p, T v)                              \
    { return (T)__atomic_fetch_sub((U *)p, (U)v, __ATOMIC_RELAXED); }        \
    DUO_DEVICE T duo_atomic_min_##sfx(T *p, T v)                              \
    { DUO_ATOMIC_CAS_LOOP_(T, p, v, v < old) }                                \
    DUO_DEVICE T duo_atomic_max_##sfx(T *p, T v)                              \
    { DUO_ATOMIC_CAS_LOOP_(T, p, v, v > old) }                                \
    DUO_DEVICE T duo_atomic_and_##sfx(T *p, T v)                              \
    { return __atomic_fetch_and(p, v, __ATOMIC_RELAXED); }                    \
    DUO_DEVICE T duo_atomic_or_##sfx(T *p, T v)                               \
    { return __atomic_fetch_or(p, v, __ATOMIC_RELAXED); }                     \
    DUO_DEVICE T duo_atomic_xor_##sfx(T *p, T v)                              \
    { return __atomic_fetch_xor(p, v, __ATOMIC_RELAXED); }                    \
    DUO_DEVICE T duo_atomic_exch_##sfx(T *p, T v)                             \
    { return __atomic_exchange_n(p, v, __ATOMIC_RELAXED); }                   \
    DUO_DEVICE T duo_atomic_cas_##sfx(T *p, T expected, T desired)           \
    {                                                                         \
        __atomic_compare_exchange_n(p, &expected, desired, 0,                 \
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED);      \
        return expected; /* the old value, whether or not it swapped */       \
    }

DUO_ATOMIC_INT_(i32, int32_t, uint32_t)
DUO_ATOMIC_INT_(u32, uint32_t, uint32_t)
DUO_ATOMIC_INT_(i64, int64_t, uint64_t)
DUO_ATOMIC_INT_(u64, uint64_t, uint64_t)
#undef DUO_ATOMIC_INT_

/* The bit order of float and double as an unsigned key: flip every bit of
 * a value with the sign set, only the sign of one without; then unsigned
 * comparison of keys is the total order above. */
DUO_DEVICE uint32_t duo_atomic_key_f32_(uint32_t b)
{ return b ^ ((b >> 31) ? 0xFFFFFFFFu : 0x80000000u); }
DUO_DEVICE uint64_t duo_atomic_key_f64_(uint64_t b)
{ return b ^ ((b >> 63) ? ~(uint64_t)0 : (uint64_t)1 << 63); }

/* Floating point through the bits: add computes old + v in the type and
 * swaps the bits in; min and max compare keys. */
#define DUO_ATOMIC_FLOAT_(sfx, T, B)                                          \
    DUO_DEVICE T duo_atomic_add_##sfx(T *p, T v)                              \
    {                                                                         \
        B *q = (B *)p;                                                        \
        B old = __atomic_load_n(q, __ATOMIC_RELAXED);                         \
        while (!__atomic_compare_exchange_n(                                  \
            q, &old, duo_bits_from_##sfx##_(duo_##sfx##_from_bits_(old) + v), \
            1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {                         \
        }                                                                     \
        return duo_##sfx##_from_bits_(old);                                   \
    }                                                                         \
    DUO_DEVICE B duo_atomic_min_bits_##sfx##_(B *q, B b)                      \
    {                                                                         \
        DUO_ATOMIC_CAS_LOOP_(B, q, b, duo_atomic_key_##sfx##_(b) <            \
                                          duo_atomic_key_##sfx##_(old))       \
    }                                                                         \
    DUO_DEVICE B duo_atomic_max_bits_##sfx##_(B *q, B b)                      \
    {                                                                         \
        DUO_ATOMIC_CAS_LOOP_(B, q, b, duo_atomic_key_##sfx##_(b) >            \
                                          duo_atomic_key_##sfx##_(old))       \
    }                                                                         \
    DUO_DEVICE T duo_atomic_min_##sfx(T *p, T v)                              \
    {                                                                         \
        return duo_##sfx##_from_bits_(duo_atomic_min_bits_##sfx##_(          \
            (B *)p, duo_bits_from_##sfx##_(v)));                              \
    }                                                                         \
    DUO_DEVICE T duo_atomic_max_##sfx(T *p, T v)                              \
    {                                                                         \
        return duo_##sfx##_from_bits_(duo_atomic_max_bits_##sfx##_(          \
            (B *)p, duo_bits_from_##sfx##_(v)));                              \
    }

DUO_ATOMIC_FLOAT_(f32, float, uint32_t)
DUO_ATOMIC_FLOAT_(f64, double, uint64_t)
#undef DUO_ATOMIC_FLOAT_
#undef DUO_ATOMIC_CAS_LOOP_

#endif /* __CUDA_ARCH__ */

#endif /* DUO_ATOMIC_H */
