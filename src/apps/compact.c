/*
 * compact.c - duo-compact: stream compaction, as in the factor-finding
 * example of the Thrust books: test every candidate d = 1 .. N as a
 * divisor of a number M in a kernel (flags[d - 1] = M mod d == 0), then
 * keep the divisors found with duo_compact, in increasing order.
 * Reports the median time of R runs (kernel and compaction) and the
 * rate in millions of candidates per second.
 *
 *   build/<backend>/bin/duo-compact [N] [--number M] [--reps R]
 *       [--seed S] [--check] [--dump FILE]
 *
 * M defaults to 963761198400 = 2^6 3^4 5^2 7 11 13 17 19 23, which has
 * 6720 divisors (3360 of them up to 981713, about its square root).
 * Integers only: the divisors are the same on every backend.  --check
 * compares them with a host loop over the candidates; --dump FILE
 * writes "divisors" (u64, in increasing order) and "divisor_count"
 * (u64).  The answers do not depend on --seed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <duo.h>

#include "app_common.h"
#include "dump.h"

static const char *const PROG = "duo-compact";
static const char *const USAGE =
    "usage: duo-compact [N] [--number M] [--reps R] [--seed S] [--check]\n"
    "                   [--dump FILE] [--help]\n"
    "  Keep the divisors of M among the candidates 1 .. N (default\n"
    "  N = 16777216 = 2^24) with duo_compact.\n"
    "  N           candidates, a positive integer\n"
    "  --number M  the number to divide (default 963761198400)\n"
    "  --reps R    timed runs after one warm-up run (default 5); the\n"
    "              median is reported\n"
    "  --seed S    accepted for uniformity; the answers do not depend on it\n"
    "  --check     compare the warm-up run with a host loop; exit 1 on a\n"
    "              mismatch\n"
    "  --dump FILE write \"divisors\" and \"divisor_count\" (u64)\n";

#define DEFAULT_N ((size_t)1 << 24)
#define DEFAULT_M 963761198400ull

/* candidates[i] = i + 1, flags[i] = whether it divides m (m > 0). */
DUO_KERNEL(test_divisors, size_t n, uint64_t m,
           uint64_t *DUO_RESTRICT candidates, uint8_t *DUO_RESTRICT flags)
{
    DUO_FOR(i, n)
    {
        const uint64_t d = (uint64_t)i + 1;
        candidates[i] = d;
        flags[i] = (uint8_t)(m % d == 0);
    }
}

typedef struct compact_run {
    size_t n;
    uint64_t m;
    uint64_t *candidates; /* device */
    uint8_t *flags;
    uint64_t *divisors;
    size_t count; /* host */
} compact_run;

static void run_compact(void *ctx)
{
    compact_run *r = (compact_run *)ctx;
    DUO_CHECK(DUO_LAUNCH(test_divisors, r->n, r->n, r->m, r->candidates,
                         r->flags));
    DUO_CHECK(duo_compact(sizeof(uint64_t), r->n, r->candidates, r->flags,
                          r->divisors, &r->count));
}

static int check_divisors(uint64_t m, size_t n, const uint64_t *got,
                          size_t count)
{
    size_t bad = 0, found = 0;
    char detail[160] = "";
    for (uint64_t d = 1; d <= n; ++d) {
        if (m % d != 0)
            continue;
        if (found >= count || got[found] != d) {
            if (bad++ == 0)
                snprintf(detail, sizeof detail,
                         "divisor %zu: got %llu, expected %llu", found,
                         found < count ? (unsigned long long)got[found] : 0ull,
                         (unsigned long long)d);
        }
        ++found;
    }
    if (found != count && bad++ == 0)
        snprintf(detail, sizeof detail, "%zu divisors, expected %zu", count,
                 found);
    return app_report_check(bad, found, "divisors", detail);
}

int main(int argc, char **argv)
{
    static const char *const size_names[] = {"N"};
    uint64_t m = DEFAULT_M;
    app_option options[1];
    options[0].name = "--number";
    options[0].kind = APP_OPT_COUNT;
    options[0].value = &m;
    options[0].choices = NULL;
    app_args args;
    app_parse(argc, argv, PROG, USAGE, 1, size_names, options, 1, &args);
    if (m == 0)
        app_usage_error(PROG, USAGE, "--number 0: expected a positive "
                        "integer (every candidate divides 0)");
    const size_t n = args.nsizes ? args.sizes[0] : DEFAULT_N;
    const size_t vbytes = app_bytes(PROG, "N", n, sizeof(uint64_t));

    app_init(PROG);

    compact_run run;
    memset(&run, 0, sizeof run);
    run.n = n;
    run.m = m;
    void *d = NULL;
    DUO_CHECK(duo_malloc(&d, vbytes));
    run.candidates = (uint64_t *)d;
    DUO_CHECK(duo_malloc(&d, n));
    run.flags = (uint8_t *)d;
    DUO_CHECK(duo_malloc(&d, vbytes));
    run.divisors = (uint64_t *)d;
    /* Poisoned output: whatever the compaction does not write is wrong. */
    DUO_CHECK(duo_memset(run.divisors, 0xff, vbytes));
    run.count = (size_t)-1;

    run_compact(&run); /* warm-up, also the checked run */
    const size_t count = run.count;
    uint64_t *got = (uint64_t *)app_host_alloc(
        PROG, (count < n ? count : n) * sizeof(uint64_t));
    DUO_CHECK(duo_memcpy(got, run.divisors,
                         (count < n ? count : n) * sizeof(uint64_t),
                         DUO_DEVICE_TO_HOST));

    const double ms = app_time_median_ms(run_compact, &run, args.reps);
    char size[32], extra[96];
    snprintf(size, sizeof size, "%zu", n);
    snprintf(extra, sizeof extra, "number=%llu divisors=%zu",
             (unsigned long long)m, count);
    /* amount / (ms * 1e6) per second; times 1e3 for millions. */
    app_print_result(PROG, size, extra, args.reps, ms, "Mcand/s",
                     1e3 * (double)n);

    int failed = 0;
    if (args.check)
        failed = check_divisors(m, n, got, count);
    if (args.dump_path != NULL) {
        dump_writer *w = dump_open(args.dump_path, PROG, argc, argv);
        const size_t dims[1] = {count};
        const size_t one[1] = {1};
        const uint64_t count64 = count;
        dump_array(w, "divisors", DUO_U64, 1, dims, got);
        dump_array(w, "divisor_count", DUO_U64, 1, one, &count64);
        if (dump_close(w) != 0)
            failed = 1;
    }

    DUO_CHECK(duo_free(run.candidates));
    DUO_CHECK(duo_free(run.flags));
    DUO_CHECK(duo_free(run.divisors));
    free(got);
    DUO_CHECK(duo_finalize());
    return failed;
}
