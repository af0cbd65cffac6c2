/*
 * sort.c - duo-sort: sort N random keys, or key-value pairs, with
 * duo_sort.  Reports the median time of R sorts and the rate in millions
 * of keys per second.
 *
 *   build/<backend>/bin/duo-sort [N] [--type u32|i32|u64|i64|f32|f64]
 *       [--order asc|desc] [--pairs] [--reps R] [--seed S] [--check]
 *       [--dump FILE]
 *
 * Keys: integers over a range of about N / 16 values (so about 16
 * duplicates of each, which --pairs's stability check needs); floats in
 * (-1, 1) on a grid of N / 16 values, with one key in 64 replaced by a
 * value whose place duo/primitives.h states: -0, +0, -inf, +inf, and
 * NaNs with and without the sign bit and of two payloads.  --pairs sorts
 * with each key its input index (u64), so equal keys must come out in
 * input order, in either direction.
 *
 * --check compares the first sort with a host reference: qsort with a
 * comparator written from duo/primitives.h's order (class of NaN, value,
 * the sign of zero, payload), ties broken by input index -- keys bit for
 * bit, and the values.  The output is the same on every backend; --dump
 * writes "keys" (u32 keys as i32, the same bits) and with --pairs
 * "values" (u64).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <duo.h>

#include "app_common.h"
#include "dump.h"

static const char *const PROG = "duo-sort";
static const char *const USAGE =
    "usage: duo-sort [N] [--type u32|i32|u64|i64|f32|f64] [--order asc|desc]\n"
    "                [--pairs] [--reps R] [--seed S] [--check]\n"
    "                [--dump FILE] [--help]\n"
    "  Sort N random keys (default N = 16777216 = 2^24) with duo_sort;\n"
    "  floats include -0, infinities and NaNs.\n"
    "  N          keys, a positive integer\n"
    "  --type T   key type (default u32)\n"
    "  --order O  asc or desc (default asc)\n"
    "  --pairs    sort each key's input index (u64) with it\n"
    "  --reps R   timed sorts after one warm-up sort (default 5); the\n"
    "             median is reported\n"
    "  --seed S   seed of the random keys (default 1)\n"
    "  --check    compare the warm-up sort with a host sort; exit 1 on a\n"
    "             mismatch\n"
    "  --dump FILE  write \"keys\" (u32 as i32) and, with --pairs,\n"
    "             \"values\" (u64) to FILE\n";

#define DEFAULT_N ((size_t)1 << 24)

static const char *const TYPE_NAMES[] = {"u32", "i32", "u64", "i64", "f32",
                                         "f64", NULL};
static const duo_key_type TYPES[] = {DUO_KEY_U32, DUO_KEY_I32, DUO_KEY_U64,
                                     DUO_KEY_I64, DUO_KEY_F32, DUO_KEY_F64};
/* The dump type with each key type's bits. */
static const duo_dtype DUMP_TYPES[] = {DUO_I32, DUO_I32, DUO_U64, DUO_I64,
                                       DUO_F32, DUO_F64};
static const char *const ORDER_NAMES[] = {"asc", "desc", NULL};

static size_t key_size(duo_key_type t)
{
    return t == DUO_KEY_U32 || t == DUO_KEY_I32 || t == DUO_KEY_F32 ? 4 : 8;
}

/* ------------------------------------------------------------------ */
/* Keys                                                                */

/* The special floats, in the bits of f32 and f64. */
static const uint32_t SPECIAL_F32[] = {
    0x80000000u, 0x00000000u, 0xff800000u, 0x7f800000u, /* -0 +0 -inf +inf */
    0x7fc00000u, 0x7fc00001u, 0xffc00000u, 0xffc00001u}; /* NaNs */
static const uint64_t SPECIAL_F64[] = {
    0x8000000000000000ull, 0x0000000000000000ull, 0xfff0000000000000ull,
    0x7ff0000000000000ull, 0x7ff8000000000000ull, 0x7ff8000000000001ull,
    0xfff8000000000000ull, 0xfff8000000000001ull};

static void fill_keys(duo_key_type type, void *keys, size_t n, app_rng *rng)
{
    /* About 16 keys per value. */
    const uint64_t values = n / 16 + 1;
    for (size_t i = 0; i < n; ++i) {
        const uint64_t r = app_rng_u64(rng);
        const uint64_t v = (r >> 8) % values;
        const int special = (r & 63) == 0;
        /* A grid value in (-1, 1), never 0. */
        const double g = ((double)v + 0.5) / (double)values * 2.0 - 1.0;
        switch (type) {
        case DUO_KEY_U32: ((uint32_t *)keys)[i] = (uint32_t)(v * 65537u); break;
        case DUO_KEY_I32:
            ((int32_t *)keys)[i] = (int32_t)(v * 65537u) - (int32_t)values;
            break;
        case DUO_KEY_U64: ((uint64_t *)keys)[i] = v * 0x9E3779B97F4Aull; break;
        case DUO_KEY_I64:
            ((int64_t *)keys)[i] = (int64_t)(v * 0x9E3779B97F4Aull) -
                                   (int64_t)(values * 0x4F1BBCDCBFA5ull);
            break;
        case DUO_KEY_F32: {
            const float f = (float)g;
            if (special)
                memcpy((uint32_t *)keys + i, &SPECIAL_F32[(r >> 6) & 7], 4);
            else
                memcpy((float *)keys + i, &f, 4);
            break;
        }
        case DUO_KEY_F64:
            if (special)
                memcpy((uint64_t *)keys + i, &SPECIAL_F64[(r >> 6) & 7], 8);
            else
                memcpy((double *)keys + i, &g, 8);
            break;
        }
    }
}

/* ------------------------------------------------------------------ */
/* The host reference                                                  */

/* Float classes of the order: NaN with the sign bit, numbers, NaN
 * without it. */
static int float_class(int nan, int sign)
{
    return nan ? (sign ? 0 : 2) : 1;
}

/* -1, 0, 1 as the order of duo/primitives.h puts a before b (ascending):
 * -NaN (larger payload first) < numbers (-0 before +0) < +NaN (larger
 * payload last). */
static int compare_f64_bits(uint64_t a, uint64_t b, double x, double y)
{
    const int ca = float_class(isnan(x), (int)(a >> 63));
    const int cb = float_class(isnan(y), (int)(b >> 63));
    if (ca != cb)
        return ca < cb ? -1 : 1;
    if (ca == 0) /* the larger payload first */
        return a > b ? -1 : a < b;
    if (ca == 2)
        return a < b ? -1 : a > b;
    if (x < y)
        return -1;
    if (x > y)
        return 1;
    if (x == 0.0 && signbit(x) != signbit(y))
        return signbit(x) ? -1 : 1;
    return 0;
}

static int compare_keys(duo_key_type type, const void *keys, size_t i,
                        size_t j)
{
    switch (type) {
    case DUO_KEY_U32: {
        const uint32_t a = ((const uint32_t *)keys)[i];
        const uint32_t b = ((const uint32_t *)keys)[j];
        return (a > b) - (a < b);
    }
    case DUO_KEY_I32: {
        const int32_t a = ((const int32_t *)keys)[i];
        const int32_t b = ((const int32_t *)keys)[j];
        return (a > b) - (a < b);
    }
    case DUO_KEY_U64: {
        const uint64_t a = ((const uint64_t *)keys)[i];
        const uint64_t b = ((const uint64_t *)keys)[j];
        return (a > b) - (a < b);
    }
    case DUO_KEY_I64: {
        const int64_t a = ((const int64_t *)keys)[i];
        const int64_t b = ((const int64_t *)keys)[j];
        return (a > b) - (a < b);
    }
    case DUO_KEY_F32: {
        uint32_t a, b;
        float x, y;
        memcpy(&a, (const uint32_t *)keys + i, 4);
        memcpy(&b, (const uint32_t *)keys + j, 4);
        memcpy(&x, &a, 4);
        memcpy(&y, &b, 4);
        /* A float's class, order and payload order carry over to its
         * double; the payload bits shift up together. */
        return compare_f64_bits((uint64_t)a << 32, (uint64_t)b << 32,
                                (double)x, (double)y);
    }
    case DUO_KEY_F64: {
        uint64_t a, b;
        double x, y;
        memcpy(&a, (const uint64_t *)keys + i, 8);
        memcpy(&b, (const uint64_t *)keys + j, 8);
        memcpy(&x, &a, 8);
        memcpy(&y, &b, 8);
        return compare_f64_bits(a, b, x, y);
    }
    }
    return 0;
}

/* qsort's comparator over input indices: the key order (reversed for
 * descending), then the index, which makes the sort stable. */
static struct {
    duo_key_type type;
    const void *keys;
    int descending;
} ref;

static int compare_index(const void *pa, const void *pb)
{
    const uint64_t i = *(const uint64_t *)pa, j = *(const uint64_t *)pb;
    const int c = compare_keys(ref.type, ref.keys, (size_t)i, (size_t)j);
    if (c != 0)
        return ref.descending ? -c : c;
    return (i > j) - (i < j);
}

static int check_sort(duo_key_type type, int descending, int pairs,
                      const void *keys, size_t n, const void *got_keys,
                      const uint64_t *got_values)
{
    uint64_t *order = (uint64_t *)app_host_alloc(PROG, n * sizeof *order);
    for (size_t i = 0; i < n; ++i)
        order[i] = i;
    ref.type = type;
    ref.keys = keys;
    ref.descending = descending;
    qsort(order, n, sizeof *order, compare_index);
    const size_t ks = key_size(type);
    size_t bad = 0, first = n;
    for (size_t i = 0; i < n; ++i) {
        const int key_ok = memcmp((const char *)got_keys + i * ks,
                                  (const char *)keys + order[i] * ks,
                                  ks) == 0;
        const int value_ok = !pairs || got_values[i] == order[i];
        if (!key_ok || !value_ok) {
            if (first == n)
                first = i;
            ++bad;
        }
    }
    char detail[160] = "";
    if (bad)
        snprintf(detail, sizeof detail,
                 "position %zu holds the key of input %llu, expected the key "
                 "of input %llu", first,
                 pairs ? (unsigned long long)got_values[first] : 0ull,
                 (unsigned long long)order[first]);
    free(order);
    return app_report_check(bad, n, pairs ? "pairs" : "keys", detail);
}

/* ------------------------------------------------------------------ */

typedef struct sort_run {
    duo_key_type type;
    duo_sort_order order;
    size_t n;
    const void *keys_in;     /* device */
    void *keys_out;
    const uint64_t *values_in;
    uint64_t *values_out;    /* NULL: keys alone */
} sort_run;

static void run_sort(void *ctx)
{
    const sort_run *r = (const sort_run *)ctx;
    DUO_CHECK(duo_sort(r->type, r->order, r->n, r->keys_in, r->keys_out,
                       r->values_in, r->values_out,
                       r->values_out != NULL ? sizeof(uint64_t) : 0));
}

int main(int argc, char **argv)
{
    static const char *const size_names[] = {"N"};
    int type_choice = 0, order_choice = 0, pairs = 0;
    app_option options[3];
    options[0].name = "--type";
    options[0].kind = APP_OPT_CHOICE;
    options[0].value = &type_choice;
    options[0].choices = TYPE_NAMES;
    options[1].name = "--order";
    options[1].kind = APP_OPT_CHOICE;
    options[1].value = &order_choice;
    options[1].choices = ORDER_NAMES;
    options[2].name = "--pairs";
    options[2].kind = APP_OPT_FLAG;
    options[2].value = &pairs;
    options[2].choices = NULL;
    app_args args;
    app_parse(argc, argv, PROG, USAGE, 1, size_names, options, 3, &args);

    const duo_key_type type = TYPES[type_choice];
    const int descending = order_choice == 1;
    const size_t n = args.nsizes ? args.sizes[0] : DEFAULT_N;
    const size_t kbytes = app_bytes(PROG, "N", n, key_size(type));
    const size_t vbytes = app_bytes(PROG, "N", n, sizeof(uint64_t));

    app_init(PROG);

    app_rng rng;
    app_rng_seed(&rng, args.seed);
    void *keys = app_host_alloc(PROG, kbytes);
    fill_keys(type, keys, n, &rng);
    uint64_t *index = NULL;
    if (pairs) {
        index = (uint64_t *)app_host_alloc(PROG, vbytes);
        for (size_t i = 0; i < n; ++i)
            index[i] = i;
    }

    sort_run run;
    memset(&run, 0, sizeof run);
    run.type = type;
    run.order = descending ? DUO_DESCENDING : DUO_ASCENDING;
    run.n = n;
    void *d = NULL;
    DUO_CHECK(duo_malloc(&d, kbytes));
    DUO_CHECK(duo_memcpy(d, keys, kbytes, DUO_HOST_TO_DEVICE));
    run.keys_in = d;
    DUO_CHECK(duo_malloc(&run.keys_out, kbytes));
    /* Poisoned outputs: whatever the sort does not write stays wrong. */
    DUO_CHECK(duo_memset(run.keys_out, 0xff, kbytes));
    if (pairs) {
        DUO_CHECK(duo_malloc(&d, vbytes));
        DUO_CHECK(duo_memcpy(d, index, vbytes, DUO_HOST_TO_DEVICE));
        run.values_in = (const uint64_t *)d;
        DUO_CHECK(duo_malloc(&d, vbytes));
        run.values_out = (uint64_t *)d;
        DUO_CHECK(duo_memset(run.values_out, 0xff, vbytes));
    }

    /* Warm-up, which is also the checked sort. */
    run_sort(&run);
    void *got_keys = app_host_alloc(PROG, kbytes);
    DUO_CHECK(duo_memcpy(got_keys, run.keys_out, kbytes,
                         DUO_DEVICE_TO_HOST));
    uint64_t *got_values = NULL;
    if (pairs) {
        got_values = (uint64_t *)app_host_alloc(PROG, vbytes);
        DUO_CHECK(duo_memcpy(got_values, run.values_out, vbytes,
                             DUO_DEVICE_TO_HOST));
    }

    const double ms = app_time_median_ms(run_sort, &run, args.reps);
    char size[32], extra[96];
    snprintf(size, sizeof size, "%zu", n);
    snprintf(extra, sizeof extra, "type=%s order=%s%s",
             TYPE_NAMES[type_choice], ORDER_NAMES[order_choice],
             pairs ? " pairs" : "");
    /* amount / (ms * 1e6) per second; times 1e3 for millions. */
    app_print_result(PROG, size, extra, args.reps, ms, "Mkeys/s",
                     1e3 * (double)n);

    int failed = 0;
    if (args.check)
        failed = check_sort(type, descending, pairs, keys, n, got_keys,
                            got_values);
    if (args.dump_path != NULL) {
        dump_writer *w = dump_open(args.dump_path, PROG, argc, argv);
        const size_t dims[1] = {n};
        dump_array(w, "keys", DUMP_TYPES[type_choice], 1, dims, got_keys);
        if (pairs)
            dump_array(w, "values", DUO_U64, 1, dims, got_values);
        if (dump_close(w) != 0)
            failed = 1;
    }

    DUO_CHECK(duo_free((void *)run.keys_in));
    DUO_CHECK(duo_free(run.keys_out));
    DUO_CHECK(duo_free((void *)run.values_in));
    DUO_CHECK(duo_free(run.values_out));
    free(keys);
    free(index);
    free(got_keys);
    free(got_values);
    DUO_CHECK(duo_finalize());
    return failed;
}
