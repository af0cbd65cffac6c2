/*
 * cpu_check.c - the CPU check of duo_init (cpu_check.h).  Compiled for
 * plain x86-64 (src/CMakeLists.txt), as it runs on CPUs that lack what
 * the rest of duo was compiled for.
 */
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "cpu_check.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>

/* Bit `bit` of ECX from CPUID leaf `leaf` (0 where the leaf is absent). */
static int cpuid_ecx_bit(unsigned leaf, int bit)
{
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid(leaf, &eax, &ebx, &ecx, &edx))
        return 0;
    return (int)((ecx >> bit) & 1u);
}
#endif

duo_cpu_features duo_cpu_detect(void)
{
    duo_cpu_features have = 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
#define DUO_CPU_ASK_(name, text)                                           \
    if (__builtin_cpu_supports(text))                                      \
        have |= DUO_CPU_BIT(name);
    DUO_CPU_FEATURES_BUILTIN(DUO_CPU_ASK_)
#undef DUO_CPU_ASK_
#define DUO_CPU_ASK_(name, text, leaf, bit)                                \
    if (cpuid_ecx_bit(leaf, bit))                                          \
        have |= DUO_CPU_BIT(name);
    DUO_CPU_FEATURES_CPUID(DUO_CPU_ASK_)
#undef DUO_CPU_ASK_
#endif
    return have;
}

#define DUO_CPU_NAME_(name, text, ...) text,
static const char *const feature_names[DUO_CPU_NFEATURES] = {
    DUO_CPU_FEATURES_BUILTIN(DUO_CPU_NAME_)
    DUO_CPU_FEATURES_CPUID(DUO_CPU_NAME_)};
#undef DUO_CPU_NAME_

duo_status duo_cpu_check(duo_cpu_features have, duo_cpu_features need,
                         const char *target)
{
    const duo_cpu_features missing = need & ~have;
    if (missing == 0)
        return DUO_SUCCESS;
    char list[512] = "";
    size_t used = 0;
    for (int f = 0; f < DUO_CPU_NFEATURES; ++f) {
        if (!(missing & ((duo_cpu_features)1 << f)))
            continue;
        int n = snprintf(list + used, sizeof list - used, "%s%s",
                         used ? ", " : "", feature_names[f]);
        if (n < 0 || (size_t)n >= sizeof list - used)
            break;
        used += (size_t)n;
    }
    return duo_fail(
        DUO_ERROR_BACKEND, "duo_init",
        "this CPU lacks %s, which duo was compiled to use (CPU target %s): "
        "run the program on a CPU that has them (x86-64-v3: Intel since "
        "Haswell, 2013, AMD since Excavator, 2015), or rebuild duo and the "
        "program on this machine with -DDUO_CPU_BASELINE=OFF (any x86-64; "
        "fma() becomes a library call) or -DDUO_NATIVE=ON",
        list, target);
}
