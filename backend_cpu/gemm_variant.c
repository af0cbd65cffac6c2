/*
 * gemm_variant.c - which of the CPU gemm's variants (gemm_variant.h) a
 * product runs: DUO_CPU_GEMM names one (avx2 or avx512 in an x86-64-v3
 * build; the build's only one elsewhere), unset or empty takes the
 * fastest this CPU runs.  Read on every call, like the CUDA gemm's
 * DUO_GEMM_* variables, so that a program (a test) can compare the
 * variants; the CPU is asked once.  All variants give the same bits.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_check.h"
#include "gemm_variant.h"

#ifdef DUO_CPU_GEMM_HAS_AVX512
/* What gemm_kernel_avx512.c was compiled to use (its target attribute). */
#define AVX512_NEEDS                                                       \
    (DUO_CPU_BIT(AVX512F) | DUO_CPU_BIT(AVX512CD) | DUO_CPU_BIT(AVX512DQ) | \
     DUO_CPU_BIT(AVX512BW) | DUO_CPU_BIT(AVX512VL))

/* 1 if this CPU runs the AVX-512 variant (the OS saving its registers
 * included: __builtin_cpu_supports checks that), 0 if not. */
static int cpu_has_avx512(void)
{
    static atomic_int known; /* 0: not asked yet, 1: no, 2: yes */
    int k = atomic_load_explicit(&known, memory_order_relaxed);
    if (k == 0) {
        k = (duo_cpu_detect() & AVX512_NEEDS) == AVX512_NEEDS ? 2 : 1;
        atomic_store_explicit(&known, k, memory_order_relaxed);
    }
    return k == 2;
}
#endif

duo_status duo_cpu_gemm_choose(const duo_cpu_gemm_variant **v,
                               const char *where)
{
    const char *env = getenv("DUO_CPU_GEMM");
    const int chosen = env != NULL && env[0] != '\0';
    *v = &duo_cpu_gemm_own;
#ifdef DUO_CPU_GEMM_HAS_AVX512
    if (!chosen || strcmp(env, duo_cpu_gemm_avx512.name) == 0) {
        if (cpu_has_avx512())
            *v = &duo_cpu_gemm_avx512;
        else if (chosen)
            return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                            "DUO_CPU_GEMM = \"%s\", but this CPU lacks "
                            "AVX-512 (avx512f, avx512cd, avx512dq, avx512bw "
                            "and avx512vl); unset DUO_CPU_GEMM, or set it "
                            "to %s",
                            env, duo_cpu_gemm_own.name);
        return DUO_SUCCESS;
    }
    if (strcmp(env, duo_cpu_gemm_own.name) == 0)
        return DUO_SUCCESS;
    return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                    "DUO_CPU_GEMM = \"%s\"; expected %s or %s (the CPU "
                    "gemm's variants in this build), or unset for the "
                    "fastest this CPU runs",
                    env, duo_cpu_gemm_own.name, duo_cpu_gemm_avx512.name);
#else
    if (!chosen || strcmp(env, duo_cpu_gemm_own.name) == 0)
        return DUO_SUCCESS;
    return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                    "DUO_CPU_GEMM = \"%s\"; this build has one CPU gemm "
                    "variant, %s (avx2 and avx512 are chosen between only "
                    "in GCC or clang builds for x86-64-v3): set it to %s "
                    "or unset it",
                    env, duo_cpu_gemm_own.name, duo_cpu_gemm_own.name);
#endif
}
