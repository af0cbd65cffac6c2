/*
 * pi.c - duo-pi: a Monte Carlo estimate of pi from N random points in the
 * unit square, drawn with Philox4x32-10 (<duo/philox.h>): the fraction
 * inside the quarter circle x^2 + y^2 <= 1 is pi / 4.  The count is a
 * user reduction (DUO_REDUCE_DEFINE, DUO_SUM into int64).  Reports the
 * median time of R runs, the rate in samples per second, the estimate and
 * its error.
 *
 *   build/<backend>/bin/duo-pi [N] [--reps R] [--seed S] [--check]
 *       [--dump FILE]
 *
 * Sample i uses the Philox counter (i, 0, 0, 0) -- (i mod 2^32, i / 2^32,
 * 0, 0) past 2^32 samples -- and the key (seed mod 2^32, seed / 2^32);
 * words 0 and 1 of the output are u and v, and the point is
 * (u / 2^32, v / 2^32), a corner of one cell of a 2^32 x 2^32 grid.
 *
 * Exactness: the test is done in integer arithmetic on the raw draws,
 * (u/2^32)^2 + (v/2^32)^2 <= 1  <=>  u^2 + v^2 <= 2^64, with u^2 and v^2
 * exact in 64 bits (u, v < 2^32) and the sum compared without overflow:
 * v^2 <= 2^64 - u^2, where 2^64 - u^2 is (uint64_t)(0 - u^2) for u > 0 and
 * every v qualifies for u = 0.  No floating point, so every backend counts
 * exactly the same points.  --check recounts on the host (the same Philox
 * calls, the test written out separately) and demands the same count.
 * --dump FILE writes "inside" (i64, one element).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <duo.h>
#include <duo/philox.h>

#include "app_common.h"
#include "dump.h"

static const char *const PROG = "duo-pi";
static const char *const USAGE =
    "usage: duo-pi [N] [--reps R] [--seed S] [--check] [--dump FILE]\n"
    "              [--help]\n"
    "  Estimate pi from N random points (Philox4x32-10) in the unit square\n"
    "  (default N = 33554432 = 2^25).\n"
    "  N          samples, a positive integer\n"
    "  --reps R   timed runs after one warm-up run (default 5); the median\n"
    "             is reported\n"
    "  --seed S   the Philox key (default 1)\n"
    "  --check    recount on the host; exit 1 unless the counts are equal\n"
    "  --dump FILE  write the count (\"inside\", i64) to FILE\n";

#define DEFAULT_N ((size_t)1 << 25)

typedef struct pi_args {
    uint32_t k0, k1; /* Philox key */
} pi_args;

DUO_DEVICE int64_t inside_quarter_circle(size_t i, pi_args a)
{
    const uint64_t j = (uint64_t)i;
    const duo_philox4x32_ctr r = duo_philox4x32_10(
        duo_philox4x32_ctr_make((uint32_t)j, (uint32_t)(j >> 32), 0u, 0u),
        duo_philox4x32_key_make(a.k0, a.k1));
    const uint64_t u2 = (uint64_t)r.v[0] * r.v[0];
    const uint64_t v2 = (uint64_t)r.v[1] * r.v[1];
    return (u2 == 0 || v2 <= (uint64_t)0 - u2) ? 1 : 0;
}

DUO_REDUCE_DEFINE(count_inside, int64_t, DUO_SUM, inside_quarter_circle,
                  pi_args)

typedef struct pi_run {
    size_t n;
    pi_args key;
    int64_t inside; /* host */
} pi_run;

static void run_pi(void *ctx)
{
    pi_run *r = (pi_run *)ctx;
    DUO_CHECK(count_inside(r->n, r->key, &r->inside));
}

/* Host recount: the same draws, and the test in 128-bit terms written
 * out with explicit carries: u^2 + v^2 <= 2^64. */
static int check_pi(size_t n, pi_args key, int64_t got)
{
    int64_t want = 0;
    const duo_philox4x32_key k = duo_philox4x32_key_make(key.k0, key.k1);
    for (size_t i = 0; i < n; ++i) {
        const uint64_t j = (uint64_t)i;
        const duo_philox4x32_ctr r = duo_philox4x32_10(
            duo_philox4x32_ctr_make((uint32_t)j, (uint32_t)(j >> 32), 0u,
                                    0u), k);
        const uint64_t u2 = (uint64_t)r.v[0] * r.v[0];
        const uint64_t v2 = (uint64_t)r.v[1] * r.v[1];
        const uint64_t low = u2 + v2;
        const uint64_t carry = low < u2; /* the 2^64 bit of the sum */
        /* sum <= 2^64  <=>  no carry, or carry with low == 0 */
        want += (!carry || low == 0) ? 1 : 0;
    }
    char detail[160] = "";
    if (got != want)
        snprintf(detail, sizeof detail, "%zu samples: %lld inside, "
                 "expected %lld", n, (long long)got, (long long)want);
    return app_report_check(got != want, 1, "counts", detail);
}

int main(int argc, char **argv)
{
    static const char *const size_names[] = {"N"};
    app_args args;
    app_parse(argc, argv, PROG, USAGE, 1, size_names, NULL, 0, &args);
    const char *dump_path = args.dump_path;
    const size_t n = args.nsizes ? args.sizes[0] : DEFAULT_N;

    app_init(PROG);

    pi_run run;
    run.n = n;
    run.key.k0 = (uint32_t)args.seed;
    run.key.k1 = (uint32_t)(args.seed >> 32);
    run.inside = -1;
    run_pi(&run); /* warm-up, which is also the checked run */
    const int64_t inside = run.inside;

    const double ms = app_time_median_ms(run_pi, &run, args.reps);
    /* The estimate, its error against pi, and its standard error
     * 4 sqrt(p (1 - p) / N) with p the fraction inside. */
    const double p = (double)inside / (double)n;
    const double estimate = 4.0 * p;
    const double pi = 3.14159265358979323846;
    const double std_error = 4.0 * sqrt(p * (1.0 - p) / (double)n);
    char size[32], extra[160];
    snprintf(size, sizeof size, "%zu", n);
    snprintf(extra, sizeof extra, "inside=%lld estimate=%.9f error=%+.3e "
             "std_error=%.3e", (long long)inside, estimate, estimate - pi,
             std_error);
    app_print_result(PROG, size, extra, args.reps, ms, "Gsample/s",
                     (double)n);

    int failed = 0;
    if (args.check)
        failed = check_pi(n, run.key, inside);

    if (dump_path != NULL) {
        dump_writer *d = dump_open(dump_path, PROG, argc, argv);
        const size_t dims[1] = {1};
        dump_array(d, "inside", DUO_I64, 1, dims, &inside);
        if (dump_close(d) != 0)
            failed = 1;
    }

    DUO_CHECK(duo_finalize());
    return failed;
}
