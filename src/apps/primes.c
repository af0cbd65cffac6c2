/*
 * primes.c - duo-primes: the largest prime <= N and the number of primes
 * <= N, each a user reduction (DUO_REDUCE_DEFINE) over the candidates
 * 0..N: DUO_MAX of "the candidate if it is prime, else 0", and DUO_SUM of
 * "1 if it is prime, else 0".  Every candidate is tested by trial division
 * up to its square root (deterministic, no probabilistic test).  Reports
 * the median time of R runs (both reductions) and the rate in millions
 * of candidates per second.
 *
 *   build/<backend>/bin/duo-primes [N] [--reps R] [--seed S] [--check]
 *       [--dump FILE]
 *
 * Exactness: integers only, so every backend gives the same answers.
 * --check compares both with a host sieve of Eratosthenes.  --dump FILE
 * writes "largest_prime" and "prime_count" (i64, one element each; the
 * largest prime is 0 when there is none, N < 2).  The answers do not
 * depend on --seed (accepted for uniformity with the other apps).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <duo.h>

#include "app_common.h"
#include "dump.h"

static const char *const PROG = "duo-primes";
static const char *const USAGE =
    "usage: duo-primes [N] [--reps R] [--seed S] [--check] [--dump FILE]\n"
    "                  [--help]\n"
    "  The largest prime <= N and the count of primes <= N, by trial\n"
    "  division of every candidate (default N = 1000000).\n"
    "  N          a positive integer, at most 4294967295 (2^32 - 1)\n"
    "  --reps R   timed runs after one warm-up run (default 5); the median\n"
    "             is reported\n"
    "  --seed S   accepted for uniformity; the answers do not depend on it\n"
    "  --check    compare the warm-up run with a host sieve; exit 1 on a\n"
    "             mismatch\n"
    "  --dump FILE  write \"largest_prime\" and \"prime_count\" (i64)\n";

#define DEFAULT_N 1000000u
#define MAX_N 4294967295u

/* The candidates are 0..N; no per-reduction parameters are needed, but a
 * user reduction takes an argument struct. */
typedef struct prime_args {
    uint32_t unused;
} prime_args;

/* Trial division by 2, 3 and then 6k - 1, 6k + 1 up to sqrt(n).  32-bit
 * division (n < 2^32), which is much cheaper than 64-bit on both CPU and
 * GPU; d * d is formed in 64 bits so it cannot overflow. */
DUO_DEVICE int is_prime_u32(uint32_t n)
{
    if (n < 4)
        return n >= 2;
    if (n % 2 == 0 || n % 3 == 0)
        return 0;
    for (uint32_t d = 5; (uint64_t)d * d <= n; d += 6)
        if (n % d == 0 || n % (d + 2) == 0)
            return 0;
    return 1;
}

DUO_DEVICE int64_t prime_or_zero(size_t i, prime_args a)
{
    (void)a;
    return is_prime_u32((uint32_t)i) ? (int64_t)i : 0;
}

DUO_DEVICE int64_t prime_indicator(size_t i, prime_args a)
{
    (void)a;
    return is_prime_u32((uint32_t)i) ? 1 : 0;
}

DUO_REDUCE_DEFINE(largest_prime, int64_t, DUO_MAX, prime_or_zero,
                  prime_args)
DUO_REDUCE_DEFINE(count_primes, int64_t, DUO_SUM, prime_indicator,
                  prime_args)

typedef struct primes_run {
    size_t n;        /* candidates: 0..N, so N + 1 */
    int64_t largest; /* host results */
    int64_t count;
} primes_run;

static void run_primes(void *ctx)
{
    primes_run *r = (primes_run *)ctx;
    prime_args a;
    a.unused = 0;
    DUO_CHECK(largest_prime(r->n, a, &r->largest));
    DUO_CHECK(count_primes(r->n, a, &r->count));
}

/* Host reference: a sieve of Eratosthenes over the odd numbers 3..N (one
 * bit each), so N = 2^32 - 1 needs 256 MiB. */
static int check_primes(uint64_t n, int64_t largest, int64_t count)
{
    const uint64_t nodd = n >= 3 ? (n - 1) / 2 : 0; /* 3, 5, ..., <= n */
    const size_t bytes = (size_t)(nodd / 8 + 1);
    uint8_t *composite = (uint8_t *)app_host_alloc(PROG, bytes);
    memset(composite, 0, bytes);
    /* Bit k stands for 2k + 3. */
    for (uint64_t k = 0; k < nodd; ++k) {
        if (composite[k >> 3] >> (k & 7) & 1)
            continue;
        const uint64_t p = 2 * k + 3;
        if (p * p > n)
            break;
        for (uint64_t m = p * p; m <= n; m += 2 * p) {
            const uint64_t b = (m - 3) / 2;
            composite[b >> 3] = (uint8_t)(composite[b >> 3] | 1u << (b & 7));
        }
    }
    int64_t want_count = n >= 2 ? 1 : 0; /* 2 */
    int64_t want_largest = n >= 2 ? 2 : 0;
    for (uint64_t k = 0; k < nodd; ++k)
        if (!(composite[k >> 3] >> (k & 7) & 1)) {
            ++want_count;
            want_largest = (int64_t)(2 * k + 3);
        }
    free(composite);

    size_t bad = 0;
    char detail[256] = "";
    if (largest != want_largest) {
        ++bad;
        snprintf(detail, sizeof detail, "largest prime <= %llu: got %lld, "
                 "expected %lld", (unsigned long long)n, (long long)largest,
                 (long long)want_largest);
    }
    if (count != want_count) {
        if (bad++ == 0)
            snprintf(detail, sizeof detail, "count of primes <= %llu: got "
                     "%lld, expected %lld", (unsigned long long)n,
                     (long long)count, (long long)want_count);
    }
    return app_report_check(bad, 2, "answers", detail);
}

int main(int argc, char **argv)
{
    static const char *const size_names[] = {"N"};
    app_args args;
    app_parse(argc, argv, PROG, USAGE, 1, size_names, NULL, 0, &args);
    const char *dump_path = args.dump_path;
    const size_t n = args.nsizes ? args.sizes[0] : (size_t)DEFAULT_N;
    if ((uint64_t)n > MAX_N)
        app_usage_error(PROG, USAGE, "size N = %zu: at most 4294967295 "
                        "(candidates are tested in 32-bit arithmetic)", n);

    app_init(PROG);

    primes_run run;
    run.n = n + 1;
    run.largest = -1;
    run.count = -1;
    run_primes(&run); /* warm-up, which is also the checked run */
    const int64_t largest = run.largest, count = run.count;

    const double ms = app_time_median_ms(run_primes, &run, args.reps);
    char size[32], extra[96];
    snprintf(size, sizeof size, "%zu", n);
    snprintf(extra, sizeof extra, "largest=%lld count=%lld",
             (long long)largest, (long long)count);
    /* amount / (ms * 1e6) per second; times 1e3 for millions. */
    app_print_result(PROG, size, extra, args.reps, ms, "Mcand/s",
                     1e3 * (double)run.n);

    int failed = 0;
    if (args.check)
        failed = check_primes((uint64_t)n, largest, count);

    if (dump_path != NULL) {
        dump_writer *d = dump_open(dump_path, PROG, argc, argv);
        const size_t dims[1] = {1};
        dump_array(d, "largest_prime", DUO_I64, 1, dims, &largest);
        dump_array(d, "prime_count", DUO_I64, 1, dims, &count);
        if (dump_close(d) != 0)
            failed = 1;
    }

    DUO_CHECK(duo_finalize());
    return failed;
}
