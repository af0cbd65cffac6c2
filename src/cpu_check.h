/*
 * cpu_check.h - does this CPU have the instruction-set extensions duo
 * was compiled to use?  Asked first thing in duo_init, so that a binary
 * built for x86-64-v3 (or -march=native) and started on an older CPU
 * stops with a message that names what is missing instead of dying of
 * SIGILL somewhere later.
 *
 * cpu_required.c records what the library was compiled for, from the
 * compiler's own macros (__AVX2__, __FMA__, ...), so the list follows
 * whatever flags were used.  cpu_check.c, which asks the CPU, and
 * runtime.c and error.c, which run before and after it, are compiled
 * for plain x86-64 (src/CMakeLists.txt): the check must not need what
 * it checks.  Only x86-64 is checked; elsewhere both sets are empty.
 */
#ifndef DUO_CPU_CHECK_H
#define DUO_CPU_CHECK_H

#include <stdint.h>

#include <duo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* X(NAME, "name"): the x86 extensions checked, by their names in
 * __builtin_cpu_supports and /proc/cpuinfo.  x86-64-v2: SSE3 to POPCNT;
 * v3: AVX to BMI2 and the three below; v4 and later: the AVX-512 family
 * and its companions. */
#define DUO_CPU_FEATURES_BUILTIN(X)                                        \
    X(SSE3, "sse3") X(SSSE3, "ssse3") X(SSE4_1, "sse4.1")                  \
    X(SSE4_2, "sse4.2") X(POPCNT, "popcnt") X(AVX, "avx") X(AVX2, "avx2")  \
    X(FMA, "fma") X(BMI, "bmi") X(BMI2, "bmi2") X(AVX512F, "avx512f")      \
    X(AVX512CD, "avx512cd") X(AVX512DQ, "avx512dq")                        \
    X(AVX512BW, "avx512bw") X(AVX512VL, "avx512vl")                        \
    X(AVX512IFMA, "avx512ifma") X(AVX512VBMI, "avx512vbmi")                \
    X(AVX512VBMI2, "avx512vbmi2") X(AVX512VNNI, "avx512vnni")              \
    X(AVX512BITALG, "avx512bitalg") X(AVX512VPOPCNTDQ, "avx512vpopcntdq")  \
    X(GFNI, "gfni") X(VPCLMULQDQ, "vpclmulqdq")
/* Y(NAME, "name", leaf, ecx_bit): the rest of x86-64-v3, which clang's
 * __builtin_cpu_supports does not know: asked of CPUID directly. */
#define DUO_CPU_FEATURES_CPUID(Y)                                          \
    Y(F16C, "f16c", 0x1u, 29) Y(MOVBE, "movbe", 0x1u, 22)                  \
    Y(LZCNT, "lzcnt", 0x80000001u, 5)

#define DUO_CPU_ENUM_(name, ...) DUO_CPU_INDEX_##name,
enum {
    DUO_CPU_FEATURES_BUILTIN(DUO_CPU_ENUM_)
    DUO_CPU_FEATURES_CPUID(DUO_CPU_ENUM_) DUO_CPU_NFEATURES
};
#undef DUO_CPU_ENUM_

/* A set of the features above: bit DUO_CPU_INDEX_<NAME>. */
typedef uint64_t duo_cpu_features;
#define DUO_CPU_BIT(name) ((duo_cpu_features)1 << DUO_CPU_INDEX_##name)

/* What the library was compiled to use, and the compile flags that chose
 * it in words, e.g. "x86-64-v3 (-march=x86-64-v3)" (cpu_required.c). */
extern const duo_cpu_features duo_cpu_required;
extern const char *const duo_cpu_target;

/* The features of the CPU this runs on. */
duo_cpu_features duo_cpu_detect(void);

/* DUO_SUCCESS when `have` holds every feature of `need`; else records
 * DUO_ERROR_BACKEND for duo_init with a message that names the missing
 * features, what the program was compiled for (`target`) and what to do.
 * Takes the sets as arguments so that tests can pose any CPU. */
duo_status duo_cpu_check(duo_cpu_features have, duo_cpu_features need,
                         const char *target);

#ifdef __cplusplus
}
#endif

#endif
