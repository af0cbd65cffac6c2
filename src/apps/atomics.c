/*
 * atomics.c - duo-atomics: sums, minima and maxima of N values by atomic
 * updates in a kernel (every element updates one shared location, as a
 * port of a CUDA code that reduces with atomicAdd, atomicMin and
 * atomicMax does), beside duo_reduce's results for the same values.
 * Reports the median time of R runs of the atomic kernel and the rate
 * in millions of elements per second.
 *
 *   build/<backend>/bin/duo-atomics [N] [--reps R] [--seed S] [--check]
 *       [--dump FILE]
 *
 * Inputs: N integers k[i] in [-2^20, 2^20) and N floats x[i] in (-1, 1),
 * never 0.  The kernel updates, for each i:
 *   int_sum += k[i]  (duo_atomic_add_i64)   int_min, int_max (i32)
 *   f32_sum += x[i]  (duo_atomic_add_f32)   f64_sum += x[i] (..._f64)
 *   f32_min, f32_max (duo_atomic_min_f32 / max_f32)
 *
 * What is exact: integer atomics, and float min and max (they pick an
 * element), give the same bits in every run and on every backend; they
 * must equal duo_reduce's results.  Floating-point atomic add rounds in
 * the order the threads arrive, which changes from run to run (on the
 * GPU, with OpenMP) and between backends: the app counts the distinct
 * f32 and f64 atomic sums over its runs and holds each within the error
 * bound of any order of the sum, n u sum|x| (u = 2^-24 for the f32
 * accumulator, 2^-53 for f64), of duo_reduce's sum, which is added in a
 * fixed order and so has the same bits everywhere.
 *
 * --check: the above, and the integer results and float min and max
 * against a host loop.  --dump FILE writes only what has the same bits
 * on every backend: the atomic "int_sum" (i64), "int_min", "int_max"
 * (i32), and duo_reduce's "reduce_int_sum" (i64), "reduce_int_min",
 * "reduce_int_max" (i32), "reduce_sum" (f64), "reduce_min", "reduce_max"
 * (f32).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <duo.h>

#include "app_common.h"
#include "dump.h"

static const char *const PROG = "duo-atomics";
static const char *const USAGE =
    "usage: duo-atomics [N] [--reps R] [--seed S] [--check] [--dump FILE]\n"
    "                   [--help]\n"
    "  Sum, min and max of N random integers and floats by atomics in a\n"
    "  kernel, beside duo_reduce (default N = 1048576 = 2^20).\n"
    "  N          elements, a positive integer\n"
    "  --reps R   timed runs after one warm-up run (default 5); the median\n"
    "             is reported, and the distinct float atomic sums counted\n"
    "  --seed S   seed of the random inputs (default 1)\n"
    "  --check    compare with duo_reduce and a host loop; exit 1 on a\n"
    "             mismatch\n"
    "  --dump FILE  write the integer atomic results and duo_reduce's\n"
    "             results (the values with the same bits everywhere)\n";

#define DEFAULT_N ((size_t)1 << 20)
#define INT_RANGE (1 << 20)

/* What the kernel updates, in device memory. */
typedef struct atomic_totals {
    double f64_sum;
    int64_t int_sum;
    int32_t int_min, int_max;
    float f32_sum, f32_min, f32_max;
} atomic_totals;

DUO_KERNEL(atomic_stats, size_t n, const int32_t *DUO_RESTRICT k,
           const float *DUO_RESTRICT x, atomic_totals *t)
{
    DUO_FOR(i, n)
    {
        duo_atomic_add_i64(&t->int_sum, (int64_t)k[i]);
        duo_atomic_min_i32(&t->int_min, k[i]);
        duo_atomic_max_i32(&t->int_max, k[i]);
        duo_atomic_add_f32(&t->f32_sum, x[i]);
        duo_atomic_add_f64(&t->f64_sum, (double)x[i]);
        duo_atomic_min_f32(&t->f32_min, x[i]);
        duo_atomic_max_f32(&t->f32_max, x[i]);
    }
}

/* Each run: the totals reset, the kernel, the totals back to the host
 * (runs[count++]). */
typedef struct atomics_run {
    size_t n;
    const int32_t *k; /* device */
    const float *x;
    atomic_totals *t;
    atomic_totals *runs; /* host, one per run */
    size_t count, capacity;
} atomics_run;

static void run_atomics(void *ctx)
{
    atomics_run *r = (atomics_run *)ctx;
    atomic_totals start;
    memset(&start, 0, sizeof start);
    start.int_min = INT32_MAX;
    start.int_max = INT32_MIN;
    start.f32_min = INFINITY;
    start.f32_max = -INFINITY;
    DUO_CHECK(duo_memcpy(r->t, &start, sizeof start, DUO_HOST_TO_DEVICE));
    DUO_CHECK(DUO_LAUNCH(atomic_stats, r->n, r->n, r->k, r->x, r->t));
    if (r->count < r->capacity) {
        DUO_CHECK(duo_memcpy(&r->runs[r->count], r->t, sizeof start,
                             DUO_DEVICE_TO_HOST));
        ++r->count;
    }
}

/* duo_reduce's results. */
typedef struct reduced {
    int64_t int_sum;
    int32_t int_min, int_max;
    double sum;
    float min, max;
} reduced;

static void reduce_all(const int32_t *k, const float *x, size_t n,
                       reduced *r)
{
    DUO_CHECK(duo_reduce(DUO_SUM, DUO_I32, k, n, &r->int_sum));
    DUO_CHECK(duo_reduce(DUO_MIN, DUO_I32, k, n, &r->int_min));
    DUO_CHECK(duo_reduce(DUO_MAX, DUO_I32, k, n, &r->int_max));
    DUO_CHECK(duo_reduce(DUO_SUM, DUO_F32, x, n, &r->sum));
    DUO_CHECK(duo_reduce(DUO_MIN, DUO_F32, x, n, &r->min));
    DUO_CHECK(duo_reduce(DUO_MAX, DUO_F32, x, n, &r->max));
}

/* How many different bit patterns the runs' float sums took. */
static size_t distinct(const atomic_totals *runs, size_t count, int f64)
{
    size_t d = 0;
    for (size_t i = 0; i < count; ++i) {
        int seen = 0;
        for (size_t j = 0; j < i && !seen; ++j)
            seen = f64 ? memcmp(&runs[i].f64_sum, &runs[j].f64_sum, 8) == 0
                       : memcmp(&runs[i].f32_sum, &runs[j].f32_sum, 4) == 0;
        d += !seen;
    }
    return d;
}

/* Every run against duo_reduce, and both against a host loop. */
static int check_all(const int32_t *k, const float *x, size_t n,
                     const atomic_totals *runs, size_t count,
                     const reduced *red)
{
    int64_t sum = 0;
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    float flo = INFINITY, fhi = -INFINITY;
    double abs_sum = 0.0;
    for (size_t i = 0; i < n; ++i) {
        sum += k[i];
        lo = k[i] < lo ? k[i] : lo;
        hi = k[i] > hi ? k[i] : hi;
        flo = x[i] < flo ? x[i] : flo;
        fhi = x[i] > fhi ? x[i] : fhi;
        abs_sum += fabs((double)x[i]);
    }
    const double bound32 = (double)n * 0x1p-24 * abs_sum;
    const double bound64 = 2.0 * (double)n * 0x1p-53 * abs_sum;
    size_t bad = 0;
    char detail[256] = "";
#define EXPECT(ok, ...)                                                       \
    do {                                                                      \
        if (!(ok) && bad++ == 0)                                              \
            snprintf(detail, sizeof detail, __VA_ARGS__);                     \
    } while (0)
    EXPECT(red->int_sum == sum && red->int_min == lo && red->int_max == hi,
           "duo_reduce on the integers: sum %lld min %d max %d, host %lld "
           "%d %d", (long long)red->int_sum, (int)red->int_min,
           (int)red->int_max, (long long)sum, (int)lo, (int)hi);
    EXPECT(red->min == flo && red->max == fhi,
           "duo_reduce on the floats: min %.9g max %.9g, host %.9g %.9g",
           (double)red->min, (double)red->max, (double)flo, (double)fhi);
    for (size_t r = 0; r < count; ++r) {
        const atomic_totals *t = &runs[r];
        EXPECT(t->int_sum == sum && t->int_min == lo && t->int_max == hi,
               "run %zu: integer atomics sum %lld min %d max %d, expected "
               "%lld %d %d", r, (long long)t->int_sum, (int)t->int_min,
               (int)t->int_max, (long long)sum, (int)lo, (int)hi);
        EXPECT(t->f32_min == red->min && t->f32_max == red->max,
               "run %zu: float atomics min %.9g max %.9g, duo_reduce %.9g "
               "%.9g", r, (double)t->f32_min, (double)t->f32_max,
               (double)red->min, (double)red->max);
        EXPECT(fabs((double)t->f32_sum - red->sum) <= bound32,
               "run %zu: f32 atomic sum %.9g, duo_reduce %.17g, |difference| "
               "> %.3g", r, (double)t->f32_sum, red->sum, bound32);
        EXPECT(fabs(t->f64_sum - red->sum) <= bound64,
               "run %zu: f64 atomic sum %.17g, duo_reduce %.17g, "
               "|difference| > %.3g", r, t->f64_sum, red->sum, bound64);
    }
#undef EXPECT
    return app_report_check(bad, 4 + 4 * count, "results", detail);
}

int main(int argc, char **argv)
{
    static const char *const size_names[] = {"N"};
    app_args args;
    app_parse(argc, argv, PROG, USAGE, 1, size_names, NULL, 0, &args);
    const size_t n = args.nsizes ? args.sizes[0] : DEFAULT_N;
    const size_t kbytes = app_bytes(PROG, "N", n, sizeof(int32_t));
    const size_t xbytes = app_bytes(PROG, "N", n, sizeof(float));

    app_init(PROG);

    app_rng rng;
    app_rng_seed(&rng, args.seed);
    int32_t *k = (int32_t *)app_host_alloc(PROG, kbytes);
    float *x = (float *)app_host_alloc(PROG, xbytes);
    for (size_t i = 0; i < n; ++i)
        k[i] = (int32_t)(app_rng_u64(&rng) % (2 * INT_RANGE)) - INT_RANGE;
    app_fill_f32(x, n, &rng);

    atomics_run run;
    memset(&run, 0, sizeof run);
    run.n = n;
    void *d = NULL;
    DUO_CHECK(duo_malloc(&d, kbytes));
    DUO_CHECK(duo_memcpy(d, k, kbytes, DUO_HOST_TO_DEVICE));
    run.k = (const int32_t *)d;
    DUO_CHECK(duo_malloc(&d, xbytes));
    DUO_CHECK(duo_memcpy(d, x, xbytes, DUO_HOST_TO_DEVICE));
    run.x = (const float *)d;
    DUO_CHECK(duo_malloc(&d, sizeof(atomic_totals)));
    run.t = (atomic_totals *)d;
    run.capacity = args.reps + 1;
    run.runs = (atomic_totals *)app_host_alloc(
        PROG, run.capacity * sizeof(atomic_totals));

    run_atomics(&run); /* warm-up, also checked */
    const double ms = app_time_median_ms(run_atomics, &run, args.reps);

    reduced red;
    memset(&red, 0xff, sizeof red);
    reduce_all(run.k, run.x, n, &red);

    const atomic_totals *first = &run.runs[0];
    char size[32], extra[320];
    snprintf(size, sizeof size, "%zu", n);
    snprintf(extra, sizeof extra,
             "int_sum=%lld reduce_sum=%.17g f32_atomic_sum=%.9g "
             "f64_atomic_sum=%.17g distinct_f32_sums=%zu/%zu "
             "distinct_f64_sums=%zu/%zu",
             (long long)first->int_sum, red.sum, (double)first->f32_sum,
             first->f64_sum, distinct(run.runs, run.count, 0), run.count,
             distinct(run.runs, run.count, 1), run.count);
    /* amount / (ms * 1e6) per second; times 1e3 for millions. */
    app_print_result(PROG, size, extra, args.reps, ms, "Melem/s",
                     1e3 * (double)n);

    int failed = 0;
    if (args.check)
        failed = check_all(k, x, n, run.runs, run.count, &red);
    if (args.dump_path != NULL) {
        dump_writer *w = dump_open(args.dump_path, PROG, argc, argv);
        const size_t one[1] = {1};
        dump_array(w, "int_sum", DUO_I64, 1, one, &first->int_sum);
        dump_array(w, "int_min", DUO_I32, 1, one, &first->int_min);
        dump_array(w, "int_max", DUO_I32, 1, one, &first->int_max);
        dump_array(w, "reduce_int_sum", DUO_I64, 1, one, &red.int_sum);
        dump_array(w, "reduce_int_min", DUO_I32, 1, one, &red.int_min);
        dump_array(w, "reduce_int_max", DUO_I32, 1, one, &red.int_max);
        dump_array(w, "reduce_sum", DUO_F64, 1, one, &red.sum);
        dump_array(w, "reduce_min", DUO_F32, 1, one, &red.min);
        dump_array(w, "reduce_max", DUO_F32, 1, one, &red.max);
        if (dump_close(w) != 0)
            failed = 1;
    }

    DUO_CHECK(duo_free((void *)run.k));
    DUO_CHECK(duo_free((void *)run.x));
    DUO_CHECK(duo_free(run.t));
    free(run.runs);
    free(k);
    free(x);
    DUO_CHECK(duo_finalize());
    return failed;
}
