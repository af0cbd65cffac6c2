/*
 * exhaustive.c - math-exhaustive: every float argument of the functions
 * of <duo/math.h> against the correctly rounded result (math_ref.h).
 *
 *   math-exhaustive [--mpfr] [--from HEX] [--to HEX] [--pairs N] [FUNC...]
 *
 * One-argument functions run over the argument bit patterns --from..--to
 * (all 2^32 by default); atan2f, hypotf and powf over N pseudo-random
 * pairs (--pairs, default 2^28: 2^64 pairs are out of reach), half of
 * them with arguments of nearby magnitudes (powf: three in four with the
 * result inside float's range, pow_pair_of).  --mpfr takes every reference from
 * MPFR (slow; checks math_ref.c's shortcut).  With no FUNC, all of them.
 * OpenMP threads share the work; progress goes to stderr.  For each
 * function one line: arguments, results not correctly rounded (bits
 * differ from the reference, or NaN where it is not), the largest
 * distance from the correctly rounded result in float ulps, and how many
 * references MPFR computed.  The first mismatches are listed.  Exit
 * status 1 if any result was wrong.
 *
 * Not a CTest test (minutes per function on a few cores); the record of
 * its runs is in profiles/math/.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "math_funcs.h"
#include "math_pairs.h"
#include "math_ref.h"

#define SHOW_MAX 8

typedef struct result {
    uint64_t n, wrong, mpfr_calls;
    uint32_t max_ulps;
    int shown;
} result;

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

/* Distance in ulps between two non-NaN floats (the integers that order
 * floats like their values). */
static uint32_t ulps_between(float a, float b)
{
    int64_t ia = bits_of(a), ib = bits_of(b);
    if (ia >> 31)
        ia = -(ia & 0x7fffffff);
    if (ib >> 31)
        ib = -(ib & 0x7fffffff);
    int64_t d = ia > ib ? ia - ib : ib - ia;
    return d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
}

/* powf's pair i: bit patterns make mostly NaN, inf and 0, so three in
 * four pairs take y = t / log2|x| with t uniform in [-151, 129] (the
 * result anywhere in float's range, subnormals and both thresholds
 * included), half of those with x within 2^-7 of 1, or an integer or
 * half-integer y with either sign of x. */
static void pow_pair_of(uint64_t i, float *x, float *y)
{
    pair_of(i, x, y);
    if (i % 4 == 0)
        return;
    uint64_t z = (i + 7) * 0xD1B54A32D192ED03ull;
    z = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9ull;
    z ^= z >> 29;
    double t = -151.0 + 280.0 * (double)(z >> 11) * 0x1p-53;
    uint32_t a = bits_of(*x) & 0x7fffffffu;
    if (a >= 0x7f800000u || a == 0u)
        a = 0x40400000u;
    if (i % 4 == 1) {
        *x = float_of(a);
    } else if (i % 4 == 2) {
        *x = 1.0f + (float)((int32_t)(a % 131073u) - 65536) * 0x1p-23f;
    } else {
        *x = float_of(a | (bits_of(*y) & 0x80000000u));
        *y = (float)((int32_t)(z % 257u) - 128) * ((z >> 9) & 1 ? 0.5f : 1.0f);
        return;
    }
    if (*x == 1.0f)
        *x = 0x1.000002p0f;
    *y = (float)(t / log2((double)*x));
}

static void check_one(mref_ctx *c, int f, float x, float y, int force,
                      result *r)
{
    float got = duo_math_eval(f, x, y);
    float want = mref_eval(c, f, x, y, force);
    ++r->n;
    int ok;
    if (isnan(want))
        ok = isnan(got);
    else
        ok = bits_of(got) == bits_of(want);
    if (ok)
        return;
    ++r->wrong;
    uint32_t u = isnan(got) ? UINT32_MAX : ulps_between(got, want);
    if (u > r->max_ulps)
        r->max_ulps = u;
    if (r->shown < SHOW_MAX) {
#pragma omp critical(show)
        {
            if (f >= MF_FIRST_BINARY)
                printf("  %s(%a, %a) [0x%08" PRIx32 ", 0x%08" PRIx32
                       "]: got %a, want %a\n", mf_names[f], x, y,
                       bits_of(x), bits_of(y), got, want);
            else
                printf("  %s(%a) [0x%08" PRIx32 "]: got %a [0x%08" PRIx32
                       "], want %a [0x%08" PRIx32 "]\n", mf_names[f], x,
                       bits_of(x), got, bits_of(got), want, bits_of(want));
            fflush(stdout);
        }
        ++r->shown;
    }
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static result run(int f, uint64_t from, uint64_t to, uint64_t pairs,
                  int force)
{
    result total;
    memset(&total, 0, sizeof total);
    const uint64_t chunk = 1u << 16;
    uint64_t count = f >= MF_FIRST_BINARY ? pairs : to - from + 1;
    uint64_t chunks = (count + chunk - 1) / chunk, done = 0;
#pragma omp parallel
    {
        mref_ctx c;
        result r;
        memset(&r, 0, sizeof r);
        mref_init(&c);
#pragma omp for schedule(dynamic, 1)
        for (uint64_t k = 0; k < chunks; ++k) {
            uint64_t end = (k + 1) * chunk < count ? (k + 1) * chunk : count;
            for (uint64_t i = k * chunk; i < end; ++i) {
                float x, y = 0.0f;
                if (f == MF_POWF)
                    pow_pair_of(i, &x, &y);
                else if (f >= MF_FIRST_BINARY)
                    pair_of(i, &x, &y);
                else
                    x = float_of((uint32_t)(from + i));
                check_one(&c, f, x, y, force, &r);
            }
            uint64_t d;
#pragma omp atomic capture
            d = ++done;
            if (d % (chunks / 16 + 1) == 0) {
                fprintf(stderr, "\r%s: %3.0f%%", mf_names[f],
                        100.0 * (double)d / (double)chunks);
                fflush(stderr);
            }
        }
        r.mpfr_calls = (uint64_t)c.mpfr_calls;
        mref_free(&c);
#pragma omp critical(total)
        {
            total.n += r.n;
            total.wrong += r.wrong;
            total.mpfr_calls += r.mpfr_calls;
            if (r.max_ulps > total.max_ulps)
                total.max_ulps = r.max_ulps;
        }
    }
    fprintf(stderr, "\r");
    return total;
}

static int usage(const char *msg)
{
    fprintf(stderr, "math-exhaustive: %s\nusage: math-exhaustive [--mpfr] "
                    "[--from HEX] [--to HEX] [--pairs N] [FUNC...]\n"
                    "functions:", msg);
    for (int f = 0; f < MF_COUNT; ++f)
        fprintf(stderr, " %s", mf_names[f]);
    fprintf(stderr, "\n");
    return 2;
}

int main(int argc, char **argv)
{
    uint64_t from = 0, to = 0xffffffffu, pairs = (uint64_t)1 << 28;
    int force = 0, want[MF_COUNT], any = 0;
    memset(want, 0, sizeof want);
    for (int a = 1; a < argc; ++a) {
        char *end;
        if (!strcmp(argv[a], "--mpfr")) {
            force = 1;
        } else if (!strcmp(argv[a], "--from") || !strcmp(argv[a], "--to") ||
                   !strcmp(argv[a], "--pairs")) {
            if (a + 1 >= argc)
                return usage("an option needs a value");
            int base = strcmp(argv[a], "--pairs") ? 16 : 0;
            unsigned long long v = strtoull(argv[a + 1], &end, base);
            if (*end || end == argv[a + 1] || (base == 16 && v > 0xffffffffu))
                return usage("--from/--to take a 32-bit hex pattern, "
                             "--pairs a count");
            if (!strcmp(argv[a], "--from"))
                from = v;
            else if (!strcmp(argv[a], "--to"))
                to = v;
            else
                pairs = v;
            ++a;
        } else {
            int f = 0;
            while (f < MF_COUNT && strcmp(argv[a], mf_names[f]))
                ++f;
            if (f == MF_COUNT)
                return usage("unknown function");
            want[f] = any = 1;
        }
    }
    if (from > to)
        return usage("--from is above --to");
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    printf("math-exhaustive: arguments 0x%08" PRIx64 "..0x%08" PRIx64
           ", %" PRIu64 " pairs, reference %s, %d thread(s)\n", from, to,
           pairs, force ? "MPFR" : "glibc double + MPFR near boundaries",
           threads);
    int failed = 0;
    for (int f = 0; f < MF_COUNT; ++f) {
        if (any && !want[f])
            continue;
        double t0 = now();
        result r = run(f, from, to, pairs, force);
        printf("%-12s %11" PRIu64 " arguments  %6" PRIu64 " wrong  max %u "
               "ulp  %9" PRIu64 " from MPFR  %7.1f s\n", mf_names[f], r.n,
               r.wrong, r.max_ulps, r.mpfr_calls, now() - t0);
        fflush(stdout);
        failed |= r.wrong != 0;
    }
    return failed;
}
