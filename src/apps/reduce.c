/*
 * reduce.c - duo-reduce: reduce N elements of one type to one value
 * (sum, min, max) or to the index of the smallest or largest element
 * (argmin, argmax) with duo_reduce / duo_reduce_arg.  Reports the median
 * time of R runs and GB/s of elements read.
 *
 *   build/<backend>/bin/duo-reduce [N] [--type f32|f64|i32|i64|u64]
 *       [--op sum|min|max|argmin|argmax] [--reps R] [--seed S] [--check]
 *
 * --check compares the first (warm-up) run, made on fresh inputs, with a
 * host reference: integer sums exactly (modulo 2^64); floating-point sums,
 * which duo accumulates in double (f32 too), within (n-1) u sum|x| with
 * u = 2^-53 (plus the compensated reference's own 3 u sum|x|); min and
 * max exactly; argmin and argmax exactly, first index on ties.
 * Inputs are random: integers over their whole range, floats in (-1, 1)
 * but in (0.5, 1.5) for sums (see fill()), never 0.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <duo.h>

#include "app_common.h"
#include "dump.h"

static const char *const PROG = "duo-reduce";
static const char *const USAGE =
    "usage: duo-reduce [N] [--type f32|f64|i32|i64|u64]\n"
    "                  [--op sum|min|max|argmin|argmax] [--reps R]\n"
    "                  [--seed S] [--check] [--dump FILE] [--help]\n"
    "  Reduce N random elements (default N = 16777216 = 2^24) with\n"
    "  duo_reduce (sum, min, max) or duo_reduce_arg (argmin, argmax).\n"
    "  --dump FILE  write the result (\"value\"; argmin/argmax also\n"
    "             \"index\", u64) to FILE\n"
    "  N          elements, a positive integer\n"
    "  --type T   element type (default f32)\n"
    "  --op OP    operation (default sum)\n"
    "  --reps R   timed runs after one warm-up run (default 5); the median\n"
    "             is reported\n"
    "  --seed S   seed of the random inputs (default 1)\n"
    "  --check    compare the warm-up run with a host reference; exit 1 on\n"
    "             a mismatch\n";

#define DEFAULT_N ((size_t)1 << 24)

static const char *const TYPE_NAMES[] = {"f32", "f64", "i32", "i64", "u64",
                                         NULL};
static const duo_dtype TYPES[] = {DUO_F32, DUO_F64, DUO_I32, DUO_I64,
                                  DUO_U64};
static const char *const OP_NAMES[] = {"sum", "min", "max", "argmin",
                                       "argmax", NULL};
enum { OP_SUM, OP_MIN, OP_MAX, OP_ARGMIN, OP_ARGMAX };

/* Every result type of duo_reduce / duo_reduce_arg. */
typedef union reduce_value {
    float f32;
    double f64;
    int32_t i32;
    int64_t i64;
    uint64_t u64;
} reduce_value;

typedef struct reduce_run {
    int op;               /* OP_* */
    duo_dtype type;
    const void *x;        /* device */
    size_t n;
    reduce_value *value;  /* host */
    size_t *index;        /* host; argmin/argmax */
} reduce_run;

static void run_reduce(void *ctx)
{
    const reduce_run *r = (const reduce_run *)ctx;
    switch (r->op) {
    case OP_SUM:
        DUO_CHECK(duo_reduce(DUO_SUM, r->type, r->x, r->n, r->value));
        break;
    case OP_MIN:
        DUO_CHECK(duo_reduce(DUO_MIN, r->type, r->x, r->n, r->value));
        break;
    case OP_MAX:
        DUO_CHECK(duo_reduce(DUO_MAX, r->type, r->x, r->n, r->value));
        break;
    case OP_ARGMIN:
        DUO_CHECK(duo_reduce_arg(DUO_MIN, r->type, r->x, r->n, r->index,
                                 r->value));
        break;
    default:
        DUO_CHECK(duo_reduce_arg(DUO_MAX, r->type, r->x, r->n, r->index,
                                 r->value));
        break;
    }
}

/* Random elements of `type`: integers over their whole range; floats in
 * (-1, 1) and never 0, except for a sum: there they are in (0.5, 1.5),
 * so that the error bound, (n-1) u sum|x|, stays below the smallest
 * element and the check notices even one element left out (with signs
 * mixed, the bound would be larger than the sum itself). */
static void fill(duo_dtype type, int op, void *x, size_t n, app_rng *rng)
{
    switch (type) {
    case DUO_F32:
        app_fill_f32((float *)x, n, rng);
        if (op == OP_SUM)
            for (size_t i = 0; i < n; ++i)
                ((float *)x)[i] = 1.0f + 0.5f * ((float *)x)[i];
        break;
    case DUO_F64:
        app_fill_f64((double *)x, n, rng);
        if (op == OP_SUM)
            for (size_t i = 0; i < n; ++i)
                ((double *)x)[i] = 1.0 + 0.5 * ((double *)x)[i];
        break;
    case DUO_I32:
        for (size_t i = 0; i < n; ++i)
            ((int32_t *)x)[i] = (int32_t)(uint32_t)(app_rng_u64(rng) >> 32);
        break;
    case DUO_I64: case DUO_U64:
        app_fill_u64((uint64_t *)x, n, rng);
        break;
    }
}

/* ------------------------------------------------------------------ */
/* Host references                                                     */

/* Floating-point sum: Neumaier's compensated sum (error about 2 u |sum|)
 * and the bound on duo's error. */
static int check_float_sum(duo_dtype type, const void *x, size_t n,
                           double got)
{
    double sum = 0.0, comp = 0.0, abs_sum = 0.0;
    for (size_t i = 0; i < n; ++i) {
        const double v = type == DUO_F32 ? (double)((const float *)x)[i]
                                         : ((const double *)x)[i];
        const double t = sum + v;
        comp += fabs(sum) >= fabs(v) ? (sum - t) + v : (v - t) + sum;
        sum = t;
        abs_sum += fabs(v);
    }
    const double ref = sum + comp;
    const double u = 0x1p-53;
    const double nu = (double)(n - 1) * u;
    const double bound = (nu / (1.0 - nu) + 3.0 * u) * abs_sum;
    const double diff = fabs(got - ref);
    char detail[256] = "";
    const int bad = !(diff <= bound); /* NaN fails */
    if (bad)
        snprintf(detail, sizeof detail,
                 "sum = %.17g, reference %.17g, |difference| %.3g > bound "
                 "%.3g", got, ref, diff, bound);
    return app_report_check(bad, 1, "results", detail);
}

/* Integer sums wrap modulo 2^64, so add in uint64_t. */
static int check_int_sum(duo_dtype type, const void *x, size_t n,
                         reduce_value got)
{
    uint64_t ref = 0;
    for (size_t i = 0; i < n; ++i)
        ref += type == DUO_I32 ? (uint64_t)(int64_t)((const int32_t *)x)[i]
                               : ((const uint64_t *)x)[i];
    uint64_t bits; /* int64_t or uint64_t result, as written */
    memcpy(&bits, &got, sizeof bits);
    char detail[256] = "";
    const int bad = bits != ref;
    if (bad) {
        if (type == DUO_U64)
            snprintf(detail, sizeof detail, "sum = %llu, expected %llu",
                     (unsigned long long)bits, (unsigned long long)ref);
        else
            snprintf(detail, sizeof detail, "sum = %lld, expected %lld",
                     (long long)(int64_t)bits, (long long)(int64_t)ref);
    }
    return app_report_check(bad, 1, "results", detail);
}

/* Element i of x as text. */
static void element_text(duo_dtype type, const void *x, size_t i, char *buf,
                         size_t size)
{
    switch (type) {
    case DUO_F32:
        snprintf(buf, size, "%.9g", (double)((const float *)x)[i]);
        break;
    case DUO_F64:
        snprintf(buf, size, "%.17g", ((const double *)x)[i]);
        break;
    case DUO_I32:
        snprintf(buf, size, "%d", (int)((const int32_t *)x)[i]);
        break;
    case DUO_I64:
        snprintf(buf, size, "%lld", (long long)((const int64_t *)x)[i]);
        break;
    case DUO_U64:
        snprintf(buf, size, "%llu",
                 (unsigned long long)((const uint64_t *)x)[i]);
        break;
    }
}

/* Whether element i is strictly better than element j: smaller for min,
 * larger for max. */
static int better(duo_dtype type, int max, const void *x, size_t i, size_t j)
{
#define BETTER_AS(T) \
    (max ? ((const T *)x)[i] > ((const T *)x)[j] \
         : ((const T *)x)[i] < ((const T *)x)[j])
    switch (type) {
    case DUO_F32: return BETTER_AS(float);
    case DUO_F64: return BETTER_AS(double);
    case DUO_I32: return BETTER_AS(int32_t);
    case DUO_I64: return BETTER_AS(int64_t);
    case DUO_U64: return BETTER_AS(uint64_t);
    }
#undef BETTER_AS
    return 0;
}

/* min, max, argmin, argmax: the first extreme element (the inputs hold
 * no NaN), compared exactly. */
static int check_extreme(int op, duo_dtype type, const void *x, size_t n,
                         reduce_value got, size_t got_index)
{
    const int max = op == OP_MAX || op == OP_ARGMAX;
    const int arg = op == OP_ARGMIN || op == OP_ARGMAX;
    size_t best = 0;
    for (size_t i = 1; i < n; ++i)
        if (better(type, max, x, i, best))
            best = i;
    const size_t elem = duo_dtype_size(type);
    const int value_ok =
        memcmp(&got, (const char *)x + best * elem, elem) == 0;
    const int bad = !value_ok || (arg && got_index != best);
    char detail[320] = "", want[64], have[64];
    if (bad) {
        element_text(type, x, best, want, sizeof want);
        element_text(type, &got, 0, have, sizeof have);
        if (arg)
            snprintf(detail, sizeof detail,
                     "index %zu value %s, expected index %zu value %s",
                     got_index, have, best, want);
        else
            snprintf(detail, sizeof detail, "%s = %s, expected %s",
                     OP_NAMES[op], have, want);
    }
    return app_report_check(bad, 1, "results", detail);
}

int main(int argc, char **argv)
{
    static const char *const size_names[] = {"N"};
    int type_choice = 0, op = OP_SUM;
    app_option options[2];
    options[0].name = "--type";
    options[0].kind = APP_OPT_CHOICE;
    options[0].value = &type_choice;
    options[0].choices = TYPE_NAMES;
    options[1].name = "--op";
    options[1].kind = APP_OPT_CHOICE;
    options[1].value = &op;
    options[1].choices = OP_NAMES;
    app_args args;
    app_parse(argc, argv, PROG, USAGE, 1, size_names, options, 2, &args);
    const char *dump_path = args.dump_path;

    const duo_dtype type = TYPES[type_choice];
    const size_t n = args.nsizes ? args.sizes[0] : DEFAULT_N;
    const size_t elem = duo_dtype_size(type);
    const size_t bytes = app_bytes(PROG, "N", n, elem);

    app_init(PROG);

    app_rng rng;
    app_rng_seed(&rng, args.seed);
    void *x = app_host_alloc(PROG, bytes);
    fill(type, op, x, n, &rng);

    void *dx = NULL;
    DUO_CHECK(duo_malloc(&dx, bytes));
    DUO_CHECK(duo_memcpy(dx, x, bytes, DUO_HOST_TO_DEVICE));

    /* Poisoned outputs: whatever the call does not write stays wrong. */
    reduce_value value;
    size_t index = SIZE_MAX;
    memset(&value, 0xff, sizeof value);

    reduce_run run;
    run.op = op;
    run.type = type;
    run.x = dx;
    run.n = n;
    run.value = &value;
    run.index = &index;

    /* Warm-up, which is also the checked run. */
    run_reduce(&run);
    const reduce_value got = value;
    const size_t got_index = index;

    const double ms = app_time_median_ms(run_reduce, &run, args.reps);
    char size[32], extra[64];
    snprintf(size, sizeof size, "%zu", n);
    snprintf(extra, sizeof extra, "type=%s op=%s", TYPE_NAMES[type_choice],
             OP_NAMES[op]);
    app_print_result(PROG, size, extra, args.reps, ms, "GB/s",
                     (double)bytes);

    int failed = 0;
    if (args.check) {
        if (op != OP_SUM)
            failed = check_extreme(op, type, x, n, got, got_index);
        else if (type == DUO_F32 || type == DUO_F64)
            failed = check_float_sum(type, x, n, got.f64);
        else
            failed = check_int_sum(type, x, n, got);
    }
    if (dump_path != NULL) {
        /* The value has the type duo.h gives the result of this op. */
        const duo_dtype value_type =
            op != OP_SUM ? type
            : (type == DUO_F32 || type == DUO_F64) ? DUO_F64
            : type == DUO_U64 ? DUO_U64 : DUO_I64;
        const uint64_t index64 = (uint64_t)got_index;
        const size_t one[1] = {1};
        dump_writer *d = dump_open(dump_path, PROG, argc, argv);
        dump_array(d, "value", value_type, 1, one, &got);
        if (op == OP_ARGMIN || op == OP_ARGMAX)
            dump_array(d, "index", DUO_U64, 1, one, &index64);
        if (dump_close(d) != 0)
            failed = 1;
    }

    DUO_CHECK(duo_free(dx));
    free(x);
    DUO_CHECK(duo_finalize());
    return failed;
}
