/*
 * test_cpu_check.c - duo_init's CPU check (src/cpu_check.h).
 *
 *  - duo_cpu_check on posed CPUs: an x86-64-v2 CPU against the v3
 *    baseline, one feature short, random sets: the status, and a message
 *    whose list of missing features is exactly need & ~have, by names
 *    this test keeps on its own;
 *  - nothing missing: success, and the last error is left alone;
 *  - this machine: duo_cpu_detect agrees with /proc/cpuinfo (Linux,
 *    x86-64) on what it finds and what duo needs, the library's required
 *    set matches the macros this file was compiled with (consumers get
 *    duo's CPU target), and duo_init passes the check.
 */
#include <stdlib.h>

#include "cpu_check.h"
#include "test_util.h"

/* The features, by their names in duo's message and in /proc/cpuinfo. */
typedef struct feature {
    duo_cpu_features bit;
    const char *name, *cpuinfo;
} feature;

static const feature FEATURES[] = {
    {DUO_CPU_BIT(SSE3), "sse3", "pni"},
    {DUO_CPU_BIT(SSSE3), "ssse3", "ssse3"},
    {DUO_CPU_BIT(SSE4_1), "sse4.1", "sse4_1"},
    {DUO_CPU_BIT(SSE4_2), "sse4.2", "sse4_2"},
    {DUO_CPU_BIT(POPCNT), "popcnt", "popcnt"},
    {DUO_CPU_BIT(AVX), "avx", "avx"},
    {DUO_CPU_BIT(AVX2), "avx2", "avx2"},
    {DUO_CPU_BIT(FMA), "fma", "fma"},
    {DUO_CPU_BIT(BMI), "bmi", "bmi1"},
    {DUO_CPU_BIT(BMI2), "bmi2", "bmi2"},
    {DUO_CPU_BIT(F16C), "f16c", "f16c"},
    {DUO_CPU_BIT(LZCNT), "lzcnt", "abm"},
    {DUO_CPU_BIT(MOVBE), "movbe", "movbe"},
    {DUO_CPU_BIT(AVX512F), "avx512f", "avx512f"},
    {DUO_CPU_BIT(AVX512CD), "avx512cd", "avx512cd"},
    {DUO_CPU_BIT(AVX512DQ), "avx512dq", "avx512dq"},
    {DUO_CPU_BIT(AVX512BW), "avx512bw", "avx512bw"},
    {DUO_CPU_BIT(AVX512VL), "avx512vl", "avx512vl"},
    {DUO_CPU_BIT(AVX512IFMA), "avx512ifma", "avx512ifma"},
    {DUO_CPU_BIT(AVX512VBMI), "avx512vbmi", "avx512vbmi"},
    {DUO_CPU_BIT(AVX512VBMI2), "avx512vbmi2", "avx512_vbmi2"},
    {DUO_CPU_BIT(AVX512VNNI), "avx512vnni", "avx512_vnni"},
    {DUO_CPU_BIT(AVX512BITALG), "avx512bitalg", "avx512_bitalg"},
    {DUO_CPU_BIT(AVX512VPOPCNTDQ), "avx512vpopcntdq", "avx512_vpopcntdq"},
    {DUO_CPU_BIT(GFNI), "gfni", "gfni"},
    {DUO_CPU_BIT(VPCLMULQDQ), "vpclmulqdq", "vpclmulqdq"},
};
enum { NFEATURES = sizeof FEATURES / sizeof FEATURES[0] };

static duo_cpu_features all_features(void)
{
    duo_cpu_features all = 0;
    for (int f = 0; f < NFEATURES; ++f)
        all |= FEATURES[f].bit;
    return all;
}

static duo_cpu_features x86_64_v2(void)
{
    return DUO_CPU_BIT(SSE3) | DUO_CPU_BIT(SSSE3) | DUO_CPU_BIT(SSE4_1) |
           DUO_CPU_BIT(SSE4_2) | DUO_CPU_BIT(POPCNT);
}

static duo_cpu_features x86_64_v3(void)
{
    return x86_64_v2() | DUO_CPU_BIT(AVX) | DUO_CPU_BIT(AVX2) |
           DUO_CPU_BIT(FMA) | DUO_CPU_BIT(BMI) | DUO_CPU_BIT(BMI2) |
           DUO_CPU_BIT(F16C) | DUO_CPU_BIT(LZCNT) | DUO_CPU_BIT(MOVBE);
}

/* The features named in the message's list "lacks a, b, c, which ...",
 * as a set; all ones when the list cannot be found. */
static duo_cpu_features named_missing(const char *msg)
{
    const char *start = strstr(msg, "this CPU lacks ");
    const char *end = start ? strstr(start, ", which duo") : NULL;
    if (start == NULL || end == NULL)
        return ~(duo_cpu_features)0;
    start += strlen("this CPU lacks ");
    duo_cpu_features named = 0;
    while (start < end) {
        const char *comma = strstr(start, ", ");
        size_t len = (size_t)((comma && comma < end ? comma : end) - start);
        int found = 0;
        for (int f = 0; f < NFEATURES; ++f)
            if (strlen(FEATURES[f].name) == len &&
                strncmp(start, FEATURES[f].name, len) == 0) {
                CHECK_MSG(!(named & FEATURES[f].bit), "%s named twice in "
                          "\"%s\"", FEATURES[f].name, msg);
                named |= FEATURES[f].bit;
                found = 1;
            }
        if (!found)
            return ~(duo_cpu_features)0;
        start += len + (start + len < end ? 2 : 0);
    }
    return named;
}

static void check_refused(duo_cpu_features have, duo_cpu_features need)
{
    CHECK_STATUS(duo_cpu_check(have, need, "TEST-TARGET (-mtest)"),
                 DUO_ERROR_BACKEND);
    const char *msg = duo_last_error();
    CHECK_CONTAINS_WORD(msg, "duo_init");
    CHECK_CONTAINS(msg, "(CPU target TEST-TARGET (-mtest))");
    CHECK_CONTAINS(msg, "-DDUO_CPU_BASELINE=OFF");
    const duo_cpu_features named = named_missing(msg);
    CHECK_MSG(named == (need & ~have), "need 0x%llx, have 0x%llx: the "
              "message names 0x%llx, want 0x%llx: \"%s\"",
              (unsigned long long)need, (unsigned long long)have,
              (unsigned long long)named,
              (unsigned long long)(need & ~have), msg);
}

static void test_posed_cpus(void)
{
    test_set_context("x86-64-v2 CPU, x86-64-v3 build");
    check_refused(x86_64_v2(), x86_64_v3());
    const char *msg = duo_last_error();
    printf("v2 CPU, v3 build: %s\n", msg);
    const char *v3_only[] = {"avx", "avx2", "fma", "bmi", "bmi2",
                             "f16c", "lzcnt", "movbe"};
    for (size_t i = 0; i < sizeof v3_only / sizeof v3_only[0]; ++i)
        CHECK_CONTAINS_WORD(msg, v3_only[i]);

    test_set_context("a v3 CPU without FMA");
    check_refused(x86_64_v3() & ~DUO_CPU_BIT(FMA), x86_64_v3());
    CHECK_CONTAINS(duo_last_error(), "lacks fma, which");

    test_set_context("nothing at all, every feature needed");
    check_refused(0, all_features());

    test_rng rng;
    test_rng_seed(&rng, 31);
    for (int trial = 0; trial < 500; ++trial) {
        const duo_cpu_features have = test_rng_u64(&rng) & all_features();
        duo_cpu_features need = test_rng_u64(&rng) & all_features();
        test_set_context("random sets, trial %d", trial);
        if ((need & ~have) == 0)
            need |= ~have & all_features(); /* at least one missing */
        if ((need & ~have) != 0)
            check_refused(have, need);
    }
}

static void test_nothing_missing(void)
{
    test_set_context("nothing missing");
    /* A failure on record (duo_init has not run), which a passing check
     * must leave alone. */
    void *p = TEST_POISON_PTR;
    CHECK_STATUS(duo_malloc(&p, 16), DUO_ERROR_NOT_INITIALIZED);
    char before[1024];
    snprintf(before, sizeof before, "%s", duo_last_error());
    CHECK_OK(duo_cpu_check(x86_64_v3(), x86_64_v3(), "x"));
    CHECK_OK(duo_cpu_check(all_features(), x86_64_v2(), "x"));
    CHECK_OK(duo_cpu_check(0, 0, "x"));
    CHECK_OK(duo_cpu_check(x86_64_v2(), 0, "x"));
    CHECK(strcmp(before, duo_last_error()) == 0);
}

#if defined(__x86_64__) && defined(__linux__)
/* Whether /proc/cpuinfo's first "flags" line lists `flag`; -1 when it
 * cannot be read. */
static int cpuinfo_has(const char *flag)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL)
        return -1;
    static char line[8192];
    int has = -1;
    while (fgets(line, sizeof line, f) != NULL) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "flags", 5) != 0 || colon == NULL)
            continue;
        has = 0;
        for (char *tok = strtok(colon + 1, " \n"); tok != NULL;
             tok = strtok(NULL, " \n"))
            if (strcmp(tok, flag) == 0)
                has = 1;
        break;
    }
    fclose(f);
    return has;
}
#endif

static void test_this_machine(void)
{
    test_set_context("this machine");
    const duo_cpu_features have = duo_cpu_detect();
    printf("this CPU: 0x%llx; duo compiled for %s: 0x%llx\n",
           (unsigned long long)have, duo_cpu_target,
           (unsigned long long)duo_cpu_required);
#if defined(__x86_64__) && defined(__linux__)
    /* What duo finds, the kernel lists; and what duo needs and the
     * kernel lists, duo finds (else it would refuse a CPU that has it).
     * Not every listed feature: an emulator (valgrind) shows programs a
     * CPU with less than /proc/cpuinfo says. */
    for (int f = 0; f < NFEATURES; ++f) {
        const int listed = cpuinfo_has(FEATURES[f].cpuinfo);
        if (listed < 0)
            break; /* no /proc: nothing to compare with */
        const int found = (have & FEATURES[f].bit) != 0;
        const int needed = (duo_cpu_required & FEATURES[f].bit) != 0;
        CHECK_MSG(!found || listed, "%s: duo_cpu_detect finds it, "
                  "/proc/cpuinfo does not list %s", FEATURES[f].name,
                  FEATURES[f].cpuinfo);
        CHECK_MSG(!needed || !listed || found, "%s: needed and listed in "
                  "/proc/cpuinfo (%s), but duo_cpu_detect does not find it",
                  FEATURES[f].name, FEATURES[f].cpuinfo);
    }
    /* This file is compiled with the CPU target duo gives whatever links
     * it, which must be the one the library was compiled for. */
    const duo_cpu_features mine = 0
#ifdef __AVX__
        | DUO_CPU_BIT(AVX)
#endif
#ifdef __AVX2__
        | DUO_CPU_BIT(AVX2)
#endif
#ifdef __FMA__
        | DUO_CPU_BIT(FMA)
#endif
#ifdef __BMI2__
        | DUO_CPU_BIT(BMI2)
#endif
#ifdef __AVX512F__
        | DUO_CPU_BIT(AVX512F)
#endif
        ;
    const duo_cpu_features probe = DUO_CPU_BIT(AVX) | DUO_CPU_BIT(AVX2) |
                                   DUO_CPU_BIT(FMA) | DUO_CPU_BIT(BMI2) |
                                   DUO_CPU_BIT(AVX512F);
    CHECK_EQ_U64(duo_cpu_required & probe, mine);
#else
    CHECK_EQ_U64(duo_cpu_required, 0);
#endif
    CHECK_OK(duo_cpu_check(have, duo_cpu_required, duo_cpu_target));
    /* duo_init checks the CPU before it looks for a GPU: "no usable GPU"
     * (a CUDA build with DUO_DEVICE=gpu on a machine without one) means
     * the check passed too. */
    const duo_status status = duo_init();
    CHECK_MSG(status == DUO_SUCCESS || status == DUO_ERROR_NO_DEVICE,
              "duo_init: %s: %s", duo_status_string(status),
              duo_last_error());
    if (status == DUO_SUCCESS)
        CHECK_OK(duo_finalize());
}

int main(void)
{
    CHECK_EQ_I64(NFEATURES, DUO_CPU_NFEATURES);
    CHECK(DUO_CPU_NFEATURES <= 64);
    test_posed_cpus();
    test_nothing_missing();
    test_this_machine();
    return test_summary("cpu_check");
}
