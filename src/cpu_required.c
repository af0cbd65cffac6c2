/*
 * cpu_required.c - the x86 extensions this library was compiled to use
 * (cpu_check.h), read from the macros the compiler defines for its
 * target: compiled with the same flags as the rest of duo, so the set
 * follows them (x86-64-v3, -march=native, or none).  Data only: nothing
 * here runs.
 */
#include "cpu_check.h"

#ifndef DUO_CPU_TARGET /* set by src/CMakeLists.txt */
#define DUO_CPU_TARGET "the compiler's default"
#endif

const char *const duo_cpu_target = DUO_CPU_TARGET;

const duo_cpu_features duo_cpu_required = 0
#if defined(__x86_64__)
#ifdef __SSE3__
    | DUO_CPU_BIT(SSE3)
#endif
#ifdef __SSSE3__
    | DUO_CPU_BIT(SSSE3)
#endif
#ifdef __SSE4_1__
    | DUO_CPU_BIT(SSE4_1)
#endif
#ifdef __SSE4_2__
    | DUO_CPU_BIT(SSE4_2)
#endif
#ifdef __POPCNT__
    | DUO_CPU_BIT(POPCNT)
#endif
#ifdef __AVX__
    | DUO_CPU_BIT(AVX)
#endif
#ifdef __AVX2__
    | DUO_CPU_BIT(AVX2)
#endif
#ifdef __FMA__
    | DUO_CPU_BIT(FMA)
#endif
#ifdef __BMI__
    | DUO_CPU_BIT(BMI)
#endif
#ifdef __BMI2__
    | DUO_CPU_BIT(BMI2)
#endif
#ifdef __AVX512F__
    | DUO_CPU_BIT(AVX512F)
#endif
#ifdef __AVX512CD__
    | DUO_CPU_BIT(AVX512CD)
#endif
#ifdef __AVX512DQ__
    | DUO_CPU_BIT(AVX512DQ)
#endif
#ifdef __AVX512BW__
    | DUO_CPU_BIT(AVX512BW)
#endif
#ifdef __AVX512VL__
    | DUO_CPU_BIT(AVX512VL)
#endif
#ifdef __AVX512IFMA__
    | DUO_CPU_BIT(AVX512IFMA)
#endif
#ifdef __AVX512VBMI__
    | DUO_CPU_BIT(AVX512VBMI)
#endif
#ifdef __AVX512VBMI2__
    | DUO_CPU_BIT(AVX512VBMI2)
#endif
#ifdef __AVX512VNNI__
    | DUO_CPU_BIT(AVX512VNNI)
#endif
#ifdef __AVX512BITALG__
    | DUO_CPU_BIT(AVX512BITALG)
#endif
#ifdef __AVX512VPOPCNTDQ__
    | DUO_CPU_BIT(AVX512VPOPCNTDQ)
#endif
#ifdef __GFNI__
    | DUO_CPU_BIT(GFNI)
#endif
#ifdef __VPCLMULQDQ__
    | DUO_CPU_BIT(VPCLMULQDQ)
#endif
#ifdef __F16C__
    | DUO_CPU_BIT(F16C)
#endif
#ifdef __MOVBE__
    | DUO_CPU_BIT(MOVBE)
#endif
#ifdef __LZCNT__
    | DUO_CPU_BIT(LZCNT)
#endif
#endif
    ;
