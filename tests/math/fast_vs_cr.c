/*
 * fast_vs_cr.c - math-fast-vs-cr: the float functions of <duo/math.h>
 * that have a fast path, against their careful path, bit for bit.
 *
 *   math-fast-vs-cr [--from HEX] [--to HEX] [--step N] [FUNC...]
 *
 * Each function with a fast path (math_log.h, math_exp.h, ...) first
 * evaluates in plain double and rounds only when a rounding test says
 * the result is the correctly rounded float; otherwise it returns what
 * its careful path (duo_m_<name>_cr_, the function as it was before the
 * fast path: pairs of doubles, then one rounding) returns.  This tool
 * runs both over the argument bit patterns --from..--to (all 2^32 by
 * default; every N-th one with --step N) and counts the arguments whose
 * results differ in any bit (NaN payloads and the sign of zero
 * included); for atan2f and hypotf, whose 2^64 argument pairs are out
 * of reach, the numbers --from..--to pick pairs of math-exhaustive's
 * sample (math_pairs.h: pseudo-random, half with nearby exponents)
 * instead, so a full run compares 2^32 pairs; for powf, pairs of its own
 * (powf_pair_of, math_pairs.h: most with results across float's normal
 * range).  It also counts how often
 * the fast path's rounding test failed (the fallback rate) among the
 * arguments the fast path evaluated, and how many arguments it leaves
 * to the careful path outright (NaN, infinities, domain errors, ...).
 * The first differences are listed.  Exit status 1 if any result
 * differs.
 *
 * With no FUNC, all of them.  OpenMP threads share the work.  CTest runs
 * it with a --step (test math_fast); the record of full runs is in
 * profiles/math/README.md.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <duo/math.h>

#include "math_pairs.h"

#define SHOW_MAX 8

typedef struct stats {
    uint64_t n, differ, fallback, outside;
} stats;

static uint32_t bits_of(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

static float float_of(uint32_t u)
{
    float v;
    memcpy(&v, &u, sizeof v);
    return v;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One function's loop, with the three calls inlined: NEW(x) is the
 * function, CR(x) its careful path, FAST(x, &y) its fast path (1:
 * decided, 0: rounding test failed, -1: not for the fast path). */
#define FV_DEFINE(name, NEW, CR, FAST) FV_DEFINE_(name, NEW, CR, FAST, 0)
#define FV_DEFINE2(name, NEW, CR, FAST) FV_DEFINE_(name, NEW, CR, FAST, 1)
#define FV_DEFINE_POW(name, NEW, CR, FAST) FV_DEFINE_(name, NEW, CR, FAST, 2)
#define FV_DEFINE_(name, NEW, CR, FAST, TWO)                               \
    static stats fv_##name(uint64_t from, uint64_t to, uint64_t step)      \
    {                                                                      \
        stats t = {0, 0, 0, 0};                                            \
        int64_t count = (int64_t)((to - from) / step) + 1;                 \
        int shown = 0;                                                     \
        _Pragma("omp parallel")                                            \
        {                                                                  \
            stats s = {0, 0, 0, 0};                                        \
            _Pragma("omp for schedule(dynamic, 65536)")                    \
            for (int64_t k = 0; k < count; ++k) {                          \
                uint64_t i = from + (uint64_t)k * step;                    \
                float x = float_of((uint32_t)i), x2 = 0.0f, y;             \
                if (TWO == 1)                                              \
                    pair_of(i, &x, &x2);                                   \
                else if (TWO == 2)                                         \
                    powf_pair_of(i, &x, &x2);                              \
                int f = FAST(x, x2, &y); /* for the counts */              \
                float got = NEW(x, x2), want = CR(x, x2);                  \
                ++s.n;                                                     \
                s.fallback += f == 0;                                      \
                s.outside += f < 0;                                        \
                if (bits_of(got) != bits_of(want)) {                       \
                    ++s.differ;                                            \
                    _Pragma("omp critical(show)")                          \
                    if (shown < SHOW_MAX) {                                \
                        ++shown;                                           \
                        printf("  %s(%a, %a) [0x%08" PRIx32 ", 0x%08"   \
                               PRIx32 "]: fast path %a [0x%08" PRIx32      \
                               "], careful path %a [0x%08" PRIx32 "]\n",   \
                               #name, x, x2, bits_of(x), bits_of(x2), got, \
                               bits_of(got), want, bits_of(want));         \
                    }                                                      \
                }                                                          \
            }                                                              \
            _Pragma("omp critical(total)")                                 \
            {                                                              \
                t.n += s.n;                                                \
                t.differ += s.differ;                                      \
                t.fallback += s.fallback;                                  \
                t.outside += s.outside;                                    \
            }                                                              \
        }                                                                  \
        return t;                                                          \
    }

/* Every function as f(x, x2), x2 unused by the one-argument ones. */
#define FV_1(name, expr)                                                   \
    static float name(float x, float x2)                                   \
    {                                                                      \
        (void)x2;                                                          \
        return expr;                                                       \
    }
#define FV_FAST1(name, expr)                                               \
    static int name(float x, float x2, float *y)                           \
    {                                                                      \
        (void)x2;                                                          \
        return expr;                                                       \
    }
FV_1(new_expf, duo_expf(x))
FV_1(cr_expf, duo_m_expf_cr_(x))
FV_FAST1(fast_expf, duo_m_expf_fast_(x, 0, y))
FV_1(new_exp2f, duo_exp2f(x))
FV_1(cr_exp2f, duo_m_exp2f_cr_(x))
FV_FAST1(fast_exp2f, duo_m_expf_fast_(x, 2, y))
FV_1(new_logf, duo_logf(x))
FV_1(cr_logf, duo_m_logf_cr_(x))
FV_FAST1(fast_logf, duo_m_logf_fast_(x, 0, y))
FV_1(new_log2f, duo_log2f(x))
FV_1(cr_log2f, duo_m_log2f_cr_(x))
FV_FAST1(fast_log2f, duo_m_logf_fast_(x, 2, y))
FV_1(new_log10f, duo_log10f(x))
FV_1(cr_log10f, duo_m_log10f_cr_(x))
FV_FAST1(fast_log10f, duo_m_logf_fast_(x, 10, y))

FV_1(new_cbrtf, duo_cbrtf(x))
FV_1(cr_cbrtf, duo_m_cbrtf_cr_(x))
FV_FAST1(fast_cbrtf, duo_m_cbrtf_fast_(x, y))

FV_1(new_sinf, duo_sinf(x))
FV_1(cr_sinf, duo_m_sinf_cr_(x))
FV_FAST1(fast_sinf, duo_m_trigf_fast_(x, 0, y))
FV_1(new_cosf, duo_cosf(x))
FV_1(cr_cosf, duo_m_cosf_cr_(x))
FV_FAST1(fast_cosf, duo_m_trigf_fast_(x, 1, y))
FV_1(new_tanf, duo_tanf(x))
FV_1(cr_tanf, duo_m_tanf_cr_(x))
FV_FAST1(fast_tanf, duo_m_trigf_fast_(x, 2, y))
/* sincosf: each part on its own (the fast path decides both or neither) */
static float new_sincosf_sin(float x, float x2)
{
    float s, c;
    (void)x2;
    duo_sincosf(x, &s, &c);
    return s;
}
static float new_sincosf_cos(float x, float x2)
{
    float s, c;
    (void)x2;
    duo_sincosf(x, &s, &c);
    return c;
}
static float cr_sincosf_sin(float x, float x2)
{
    float s, c;
    (void)x2;
    duo_m_sincosf_cr_(x, &s, &c);
    return s;
}
static float cr_sincosf_cos(float x, float x2)
{
    float s, c;
    (void)x2;
    duo_m_sincosf_cr_(x, &s, &c);
    return c;
}
static int fast_sincosf(float x, float x2, float *y)
{
    float c;
    (void)x2;
    return duo_m_sincosf_fast_(x, y, &c);
}

FV_1(new_atanf, duo_atanf(x))
FV_1(cr_atanf, duo_m_atanf_cr_(x))
FV_FAST1(fast_atanf, duo_m_atanf_fast_(x, y))
FV_1(new_asinf, duo_asinf(x))
FV_1(cr_asinf, duo_m_asinf_cr_(x))
FV_FAST1(fast_asinf, duo_m_asinf_fast_(x, 0, y))
FV_1(new_acosf, duo_acosf(x))
FV_1(cr_acosf, duo_m_acosf_cr_(x))
FV_FAST1(fast_acosf, duo_m_asinf_fast_(x, 1, y))

FV_1(new_expm1f, duo_expm1f(x))
FV_1(cr_expm1f, duo_m_expm1f_cr_(x))
FV_FAST1(fast_expm1f, duo_m_expm1f_fast_(x, y))
FV_1(new_log1pf, duo_log1pf(x))
FV_1(cr_log1pf, duo_m_log1pf_cr_(x))
FV_FAST1(fast_log1pf, duo_m_log1pf_fast_(x, y))
FV_1(new_sinhf, duo_sinhf(x))
FV_1(cr_sinhf, duo_m_sinhf_cr_(x))
FV_FAST1(fast_sinhf, duo_m_hypf_fast_(x, 0, y))
FV_1(new_coshf, duo_coshf(x))
FV_1(cr_coshf, duo_m_coshf_cr_(x))
FV_FAST1(fast_coshf, duo_m_hypf_fast_(x, 1, y))
FV_1(new_erff, duo_erff(x))
FV_1(cr_erff, duo_m_erff_cr_(x))
FV_FAST1(fast_erff, duo_m_erff_fast_(x, y))
FV_1(new_tanhf, duo_tanhf(x))
FV_1(cr_tanhf, duo_m_tanhf_cr_(x))
FV_FAST1(fast_tanhf, duo_m_hypf_fast_(x, 2, y))

FV_DEFINE(expf, new_expf, cr_expf, fast_expf)
FV_DEFINE(exp2f, new_exp2f, cr_exp2f, fast_exp2f)
FV_DEFINE(logf, new_logf, cr_logf, fast_logf)
FV_DEFINE(log2f, new_log2f, cr_log2f, fast_log2f)
FV_DEFINE(log10f, new_log10f, cr_log10f, fast_log10f)
FV_DEFINE(cbrtf, new_cbrtf, cr_cbrtf, fast_cbrtf)
FV_DEFINE(sinf, new_sinf, cr_sinf, fast_sinf)
FV_DEFINE(cosf, new_cosf, cr_cosf, fast_cosf)
FV_DEFINE(sincosf_sin, new_sincosf_sin, cr_sincosf_sin, fast_sincosf)
FV_DEFINE(sincosf_cos, new_sincosf_cos, cr_sincosf_cos, fast_sincosf)
FV_DEFINE(tanf, new_tanf, cr_tanf, fast_tanf)
FV_DEFINE(atanf, new_atanf, cr_atanf, fast_atanf)
FV_DEFINE(asinf, new_asinf, cr_asinf, fast_asinf)
FV_DEFINE(acosf, new_acosf, cr_acosf, fast_acosf)
FV_DEFINE(expm1f, new_expm1f, cr_expm1f, fast_expm1f)
FV_DEFINE(log1pf, new_log1pf, cr_log1pf, fast_log1pf)
FV_DEFINE(sinhf, new_sinhf, cr_sinhf, fast_sinhf)
FV_DEFINE(coshf, new_coshf, cr_coshf, fast_coshf)
FV_DEFINE(tanhf, new_tanhf, cr_tanhf, fast_tanhf)
FV_DEFINE(erff, new_erff, cr_erff, fast_erff)
FV_DEFINE2(atan2f, duo_atan2f, duo_m_atan2f_cr_, duo_m_atan2f_fast_)
FV_DEFINE2(hypotf, duo_hypotf, duo_m_hypotf_cr_, duo_m_hypotf_fast_)
FV_DEFINE_POW(powf, duo_powf, duo_m_powf_cr_, duo_m_powf_fast_)

typedef struct fv_func {
    const char *name;
    stats (*run)(uint64_t from, uint64_t to, uint64_t step);
} fv_func;

static const fv_func fv_funcs[] = {
    {"expf", fv_expf},
    {"exp2f", fv_exp2f},
    {"logf", fv_logf},
    {"log2f", fv_log2f},
    {"log10f", fv_log10f},
    {"cbrtf", fv_cbrtf},
    {"sinf", fv_sinf},
    {"cosf", fv_cosf},
    {"sincosf.sin", fv_sincosf_sin},
    {"sincosf.cos", fv_sincosf_cos},
    {"tanf", fv_tanf},
    {"atanf", fv_atanf},
    {"asinf", fv_asinf},
    {"acosf", fv_acosf},
    {"expm1f", fv_expm1f},
    {"log1pf", fv_log1pf},
    {"sinhf", fv_sinhf},
    {"coshf", fv_coshf},
    {"tanhf", fv_tanhf},
    {"erff", fv_erff},
    {"atan2f", fv_atan2f},
    {"hypotf", fv_hypotf},
    {"powf", fv_powf},
};
#define FV_COUNT (int)(sizeof fv_funcs / sizeof fv_funcs[0])

static int usage(const char *msg)
{
    fprintf(stderr, "math-fast-vs-cr: %s\nusage: math-fast-vs-cr [--from "
                    "HEX] [--to HEX] [--step N] [FUNC...]\nfunctions:",
            msg);
    for (int f = 0; f < FV_COUNT; ++f)
        fprintf(stderr, " %s", fv_funcs[f].name);
    fprintf(stderr, "\n");
    return 2;
}

int main(int argc, char **argv)
{
    uint64_t from = 0, to = 0xffffffffu, step = 1;
    int want[FV_COUNT], any = 0;
    memset(want, 0, sizeof want);
    for (int a = 1; a < argc; ++a) {
        if (!strcmp(argv[a], "--from") || !strcmp(argv[a], "--to") ||
            !strcmp(argv[a], "--step")) {
            if (a + 1 >= argc)
                return usage("an option needs a value");
            int base = strcmp(argv[a], "--step") ? 16 : 0;
            char *end;
            unsigned long long v = strtoull(argv[a + 1], &end, base);
            if (*end || end == argv[a + 1] || v > 0xffffffffu ||
                (base == 0 && v == 0))
                return usage("--from/--to take a 32-bit hex pattern, "
                             "--step a count from 1");
            if (!strcmp(argv[a], "--from"))
                from = v;
            else if (!strcmp(argv[a], "--to"))
                to = v;
            else
                step = v;
            ++a;
        } else {
            int f = 0;
            while (f < FV_COUNT && strcmp(argv[a], fv_funcs[f].name))
                ++f;
            if (f == FV_COUNT)
                return usage("unknown function");
            want[f] = any = 1;
        }
    }
    if (from > to)
        return usage("--from is above --to");
    printf("math-fast-vs-cr: arguments 0x%08" PRIx64 "..0x%08" PRIx64
           " step %" PRIu64 "\n", from, to, step);
    int failed = 0;
    for (int f = 0; f < FV_COUNT; ++f) {
        if (any && !want[f])
            continue;
        double t0 = now();
        stats s = fv_funcs[f].run(from, to, step);
        uint64_t evaluated = s.n - s.outside;
        printf("%-12s %11" PRIu64 " arguments  %6" PRIu64 " differ  "
               "fallback %" PRIu64 " of %" PRIu64 " evaluated (%.3g)  "
               "%" PRIu64 " outside  %7.1f s\n", fv_funcs[f].name, s.n,
               s.differ, s.fallback, evaluated,
               evaluated ? (double)s.fallback / (double)evaluated : 0.0,
               s.outside, now() - t0);
        fflush(stdout);
        failed |= s.differ != 0;
    }
    return failed;
}
