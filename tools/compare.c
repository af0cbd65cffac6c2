/*
 * compare.c - duo-compare: compare two runs value by value (e.g. one of
 * the openmp build and one of the cuda build): two --dump files of a duo
 * app, or two folders of a program's own arrays written through
 * <duo/check.h>.
 *
 *   duo-compare A B [--tol T] [--atol A] [--ulps U] [--exact] [--quiet]
 *                   [--png FILE [--array NAME]]
 *
 * Plain C11, no kernels, no duo_init: it only reads files.  The usage
 * text below is the documentation; the formats are in dump.h and
 * include/duo/check.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_dir.h"
#include "diff_png.h"
#include "dump.h"
#include "ulp.h"

static const char *const PROG = "duo-compare";
static const char *const USAGE =
    "usage: duo-compare A B [--tol T] [--atol A] [--ulps U] [--exact] [--quiet]\n"
    "                   [--png FILE [--array NAME]] [--help]\n"
    "\n"
    "Compare two runs (e.g. one of the openmp build and one of the cuda\n"
    "build) array by array.  B is the reference.  A run is a --dump file of\n"
    "a duo app, or a folder of a program's own arrays written through\n"
    "<duo/check.h> (DUO_CHECK_DIR=folder); A and B are both files or both\n"
    "folders.  A folder's arrays are compared in the order they were\n"
    "dumped, and the first one that fails is named at the end: where the\n"
    "two runs part ways.  Two --dump files must come from the same app run\n"
    "with the same args (the --dump option itself is not recorded).  Both\n"
    "runs must hold the same arrays: the same names, element types and\n"
    "shapes.  Backends and devices may differ.\n"
    "\n"
    "For each array it prints\n"
    "  max_abs     max |a - b|\n"
    "  max_rel     max |a - b| / |b|  (inf where b = 0 and a != 0)\n"
    "  max_ulp     max distance in units in the last place: floats are\n"
    "              mapped to integers ordered like their values (+0 and -0\n"
    "              are one value); integers: |a - b|\n"
    "  nmse        sum (a - b)^2 / sum b^2\n"
    "  mismatches  elements that mismatch (below), of all; for the first\n"
    "              one its index (row-major, [i,j,k] for rank 3) and both\n"
    "              values\n"
    "and PASS, or FAIL if any element mismatches.  Pairs with a NaN are\n"
    "left out of these statistics; nmse also leaves out infinities.\n"
    "\n"
    "A mismatch is\n"
    "  floats    |a - b| > A + T * max(|a|, |b|) AND more than U ulps apart,\n"
    "            so an element passes if it is within either bound; a NaN\n"
    "            vs a number mismatches, NaN vs NaN matches; an infinity\n"
    "            vs anything but the same infinity mismatches\n"
    "  integers  any difference (--tol and --ulps do not apply)\n"
    "  --exact   any difference in the bits, for every type (so -0 vs +0\n"
    "            and NaNs with different payloads mismatch too)\n"
    "\n"
    "Options\n"
    "  --tol T   relative tolerance of f32 and f64 elements, a number >= 0\n"
    "            (default: f32 1e-5, f64 1e-12)\n"
    "  --atol A  absolute tolerance of f32 and f64 elements, a number >= 0\n"
    "            (default 0); use the error bound of the computation, e.g.\n"
    "            2 (K+2) u sum|A||B| for two independently summed dot\n"
    "            products of length K, where values near 0 from\n"
    "            cancellation make any relative bound meaningless\n"
    "  --ulps U  ULP tolerance of f32 and f64 elements, an integer >= 0\n"
    "            (default: f32 4, f64 16)\n"
    "  --exact   bitwise equality for every type (not with --tol, --atol,\n"
    "            --ulps)\n"
    "  --quiet   print only the lines of failing arrays and the verdict\n"
    "  --png FILE  draw a picture of a 2-D array: equal bits white, other\n"
    "            elements yellow (1 ulp) to dark red (the largest distance,\n"
    "            log scale), NaN or infinity against another value blue;\n"
    "            arrays larger than 2048 on a side in blocks (the largest\n"
    "            distance of each); needs libpng at build time\n"
    "  --array NAME  the array --png draws (default: the first failing\n"
    "            2-D array, else the first whose bits differ, else the\n"
    "            first 2-D array)\n"
    "  --help    print this text and exit 0\n"
    "\n"
    "How the defaults were chosen: two builds round their results\n"
    "independently (another summation order, a fused multiply-add or not,\n"
    "another libm), so results that agree differ by a few units of\n"
    "rounding, accumulated over the computation.  4 ulps (f32) and 16 ulps\n"
    "(f64) allow a few roundings of one result, and are what admits tiny\n"
    "and subnormal values, where a relative bound means little; the\n"
    "relative bounds 1e-5 (about 84 f32 epsilons) and 1e-12 (about 4500\n"
    "f64 epsilons) allow the rounding accumulated by sums and dot products\n"
    "of moderate length.  There is no default absolute tolerance: a value that\n"
    "should be 0 but carries rounding noise from cancellation can fail.\n"
    "\n"
    "Output: a header line (app, args, and each run's backend and\n"
    "device), one line per array, \"first array that differs: NAME\" if\n"
    "any fails, a line on the picture with --png, then \"verdict: PASS\"\n"
    "or \"verdict: FAIL\".\n"
    "Exit status: 0 PASS; 1 FAIL; 2 usage error, a file that cannot be\n"
    "read or is invalid (truncated, wrong magic, unsupported version, hash\n"
    "mismatch, inconsistent sizes, ...), files of different apps or args,\n"
    "arrays that differ in name, element type or shape, or a --png that\n"
    "could not be drawn.\n";

/* ------------------------------------------------------------------ */
/* Command line                                                        */

typedef struct options {
    const char *path_a, *path_b;
    double tol;   /* < 0: per-type default */
    double atol;  /* absolute tolerance, default 0 */
    long long ulps; /* < 0: per-type default */
    int exact;
    int quiet;
    const char *png;   /* --png FILE, or NULL */
    const char *array; /* --array NAME, or NULL */
} options;

static void usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", PROG);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(%s --help documents the options)\n", PROG);
    exit(2);
}

/* "--name" or "--name=value": does arg name this option? */
static int is_option(const char *arg, const char *name, const char **value)
{
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0)
        return 0;
    if (arg[n] == '\0') {
        *value = NULL;
        return 1;
    }
    if (arg[n] == '=') {
        *value = arg + n + 1;
        return 1;
    }
    return 0;
}

static const char *take_value(int argc, char **argv, int *i,
                              const char *attached, const char *name)
{
    if (attached != NULL)
        return attached;
    if (*i + 1 >= argc)
        usage_error("%s expects a value, but none follows it", name);
    return argv[++*i];
}

static void parse_options(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->tol = -1.0;
    o->atol = -1.0;
    o->ulps = -1;
    int npaths = 0;
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i], *value = NULL;
        if (arg[0] != '-' || arg[1] == '\0') {
            if (npaths == 2)
                usage_error("unexpected argument '%s': give exactly two "
                            "runs, A and B", arg);
            if (npaths++ == 0)
                o->path_a = arg;
            else
                o->path_b = arg;
        } else if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(USAGE, stdout);
            exit(0);
        } else if (is_option(arg, "--tol", &value)) {
            const char *text = take_value(argc, argv, &i, value, "--tol");
            char *end = NULL;
            errno = 0;
            double t = strtod(text, &end);
            if (text[0] == '\0' || *end != '\0' || errno == ERANGE ||
                !isfinite(t) || t < 0)
                usage_error("--tol '%s': expected a finite number >= 0",
                            text);
            o->tol = t;
        } else if (is_option(arg, "--atol", &value)) {
            const char *text = take_value(argc, argv, &i, value, "--atol");
            char *end = NULL;
            errno = 0;
            double t = strtod(text, &end);
            if (text[0] == '\0' || *end != '\0' || errno == ERANGE ||
                !isfinite(t) || t < 0)
                usage_error("--atol '%s': expected a finite number >= 0",
                            text);
            o->atol = t;
        } else if (is_option(arg, "--ulps", &value)) {
            const char *text = take_value(argc, argv, &i, value, "--ulps");
            char *end = NULL;
            errno = 0;
            long long u = strtoll(text, &end, 10);
            if (text[0] < '0' || text[0] > '9' || *end != '\0' ||
                errno == ERANGE)
                usage_error("--ulps '%s': expected an integer >= 0", text);
            o->ulps = u;
        } else if (strcmp(arg, "--exact") == 0) {
            o->exact = 1;
        } else if (strcmp(arg, "--quiet") == 0) {
            o->quiet = 1;
        } else if (is_option(arg, "--png", &value)) {
            o->png = take_value(argc, argv, &i, value, "--png");
            if (o->png[0] == '\0')
                usage_error("%s", "--png expects a file name");
        } else if (is_option(arg, "--array", &value)) {
            o->array = take_value(argc, argv, &i, value, "--array");
        } else {
            usage_error("unknown option '%s'", arg);
        }
    }
    if (npaths != 2)
        usage_error("%s", npaths == 0 ? "give two runs, A and B"
                                      : "give a second run, B");
    if (o->array != NULL && o->png == NULL)
        usage_error("%s", "--array picks the array that --png draws; give "
                    "--png FILE too");
    if (o->exact && (o->tol >= 0 || o->atol >= 0 || o->ulps >= 0))
        usage_error("%s", "--exact requires bitwise equality; it cannot be "
                    "combined with --tol, --atol or --ulps");
}

/* ------------------------------------------------------------------ */
/* Comparison                                                          */

typedef struct stats {
    double max_abs, max_rel;
    uint64_t max_ulp;
    long double sum_d2, sum_b2;
    uint64_t mismatches, nan_mismatches;
    uint64_t first;       /* index of the first mismatch */
} stats;

static void note_mismatch(stats *s, uint64_t i)
{
    if (s->mismatches++ == 0)
        s->first = i;
}

static void note_error(stats *s, double diff, double b, uint64_t ulp)
{
    double rel = b != 0 ? diff / fabs(b) : (diff == 0 ? 0.0 : INFINITY);
    if (diff > s->max_abs)
        s->max_abs = diff;
    if (rel > s->max_rel)
        s->max_rel = rel;
    if (ulp > s->max_ulp)
        s->max_ulp = ulp;
}

static void compare_floats(const dump_entry *ea, const dump_entry *eb,
                           double tol, double atol, uint64_t ulps, int exact,
                           stats *s)
{
    const int f32 = ea->type == DUO_F32;
    for (uint64_t i = 0; i < ea->count; ++i) {
        double a, b;
        uint64_t bits_a, bits_b, ulp;
        if (f32) {
            float fa = ((const float *)ea->data)[i];
            float fb = ((const float *)eb->data)[i];
            uint32_t ua, ub;
            memcpy(&ua, &fa, 4);
            memcpy(&ub, &fb, 4);
            a = fa;
            b = fb;
            bits_a = ua;
            bits_b = ub;
            ulp = ulp_distance(ulp_ordered32(ua), ulp_ordered32(ub));
        } else {
            a = ((const double *)ea->data)[i];
            b = ((const double *)eb->data)[i];
            memcpy(&bits_a, &a, 8);
            memcpy(&bits_b, &b, 8);
            ulp = ulp_distance(ulp_ordered64(bits_a), ulp_ordered64(bits_b));
        }

        if (isnan(a) || isnan(b)) {
            int both = isnan(a) && isnan(b);
            if (exact ? bits_a != bits_b : !both) {
                note_mismatch(s, i);
                if (!both)
                    s->nan_mismatches++;
            }
            continue;
        }
        double diff = a == b ? 0.0 : fabs(a - b);
        note_error(s, diff, b, ulp);
        if (isfinite(a) && isfinite(b)) {
            s->sum_d2 += (long double)diff * diff;
            s->sum_b2 += (long double)b * b;
        }

        int bad;
        if (exact)
            bad = bits_a != bits_b;
        else if (a == b)
            bad = 0;
        else if (isinf(a) || isinf(b))
            bad = 1;
        else
            bad = diff > atol + tol * fmax(fabs(a), fabs(b)) && ulp > ulps;
        if (bad)
            note_mismatch(s, i);
    }
}

/* Element i of an integer array: its bits as a key that orders like the
 * values (i32 and i64 sign-extended with the sign bit flipped), and its
 * value as a double. */
static uint64_t int_element(const dump_entry *e, uint64_t i, double *value)
{
    const uint64_t sign = 0x8000000000000000ull;
    switch (e->type) {
    case DUO_I32: {
        int32_t v = ((const int32_t *)e->data)[i];
        *value = (double)v;
        return (uint64_t)(int64_t)v ^ sign;
    }
    case DUO_I64: {
        int64_t v = ((const int64_t *)e->data)[i];
        *value = (double)v;
        return (uint64_t)v ^ sign;
    }
    default: {
        uint64_t v = ((const uint64_t *)e->data)[i];
        *value = (double)v;
        return v;
    }
    }
}

static void compare_ints(const dump_entry *ea, const dump_entry *eb,
                         stats *s)
{
    for (uint64_t i = 0; i < ea->count; ++i) {
        double a, b;
        uint64_t ka = int_element(ea, i, &a);
        uint64_t kb = int_element(eb, i, &b);
        uint64_t diff = ulp_distance(ka, kb); /* |a - b|, exactly */
        note_error(s, (double)diff, b, diff);
        s->sum_d2 += (long double)diff * diff;
        s->sum_b2 += (long double)b * b;
        if (diff != 0)
            note_mismatch(s, i);
    }
}

/* "v" of element i, e.g. "1.5", "-3", "nan (0x7fc00001)". */
static void format_value(const dump_entry *e, uint64_t i, char *buf,
                         size_t size)
{
    switch (e->type) {
    case DUO_F32:
        snprintf(buf, size, "%.9g", (double)((const float *)e->data)[i]);
        break;
    case DUO_F64:
        snprintf(buf, size, "%.17g", ((const double *)e->data)[i]);
        break;
    case DUO_I32:
        snprintf(buf, size, "%ld", (long)((const int32_t *)e->data)[i]);
        break;
    case DUO_I64:
        snprintf(buf, size, "%lld",
                 (long long)((const int64_t *)e->data)[i]);
        break;
    case DUO_U64:
        snprintf(buf, size, "%llu",
                 (unsigned long long)((const uint64_t *)e->data)[i]);
        break;
    }
}

static void append_bits(const dump_entry *e, uint64_t i, char *buf,
                        size_t size)
{
    size_t n = strlen(buf);
    if (e->type == DUO_F32) {
        uint32_t u;
        memcpy(&u, (const float *)e->data + i, 4);
        snprintf(buf + n, size - n, " (0x%08lx)", (unsigned long)u);
    } else if (e->type == DUO_F64) {
        uint64_t u;
        memcpy(&u, (const double *)e->data + i, 8);
        snprintf(buf + n, size - n, " (0x%016llx)", (unsigned long long)u);
    }
}

/* Flat row-major index -> "[i,j,k]". */
static void format_index(const dump_entry *e, uint64_t flat, char *buf,
                         size_t size)
{
    uint64_t idx[DUMP_MAX_RANK];
    for (int d = e->rank - 1; d >= 0; --d) {
        idx[d] = flat % e->dims[d];
        flat /= e->dims[d];
    }
    size_t used = 0;
    buf[0] = '\0';
    for (int d = 0; d < e->rank && used < size; ++d) {
        int w = snprintf(buf + used, size - used, "%s%llu",
                         d ? "," : "[", (unsigned long long)idx[d]);
        if (w < 0)
            return;
        used += (size_t)w;
    }
    if (used < size)
        snprintf(buf + used, size - used, "]");
}

static void format_shape(const dump_entry *e, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int d = 0; d < e->rank && used < size; ++d) {
        int w = snprintf(buf + used, size - used, "%s%llu", d ? "x" : "",
                         (unsigned long long)e->dims[d]);
        if (w < 0)
            return;
        used += (size_t)w;
    }
}

/* Compare one array pair and print its line; returns 1 if it fails. */
static int compare_array(const dump_entry *ea, const dump_entry *eb,
                         const options *o)
{
    stats s;
    memset(&s, 0, sizeof s);
    const int is_float = ea->type == DUO_F32 || ea->type == DUO_F64;
    double tol = 0, atol = 0;
    uint64_t ulps = 0;
    char criteria[96];
    if (o->exact) {
        snprintf(criteria, sizeof criteria, "exact");
    } else if (is_float) {
        tol = o->tol >= 0 ? o->tol : (ea->type == DUO_F32 ? 1e-5 : 1e-12);
        ulps = o->ulps >= 0 ? (uint64_t)o->ulps
                            : (ea->type == DUO_F32 ? 4u : 16u);
        atol = o->atol >= 0 ? o->atol : 0.0;
        if (atol > 0)
            snprintf(criteria, sizeof criteria, "tol %g, atol %g, %llu ulps",
                     tol, atol, (unsigned long long)ulps);
        else
            snprintf(criteria, sizeof criteria, "tol %g, %llu ulps", tol,
                     (unsigned long long)ulps);
    } else {
        snprintf(criteria, sizeof criteria, "integers: exact");
    }

    if (is_float)
        compare_floats(ea, eb, tol, atol, ulps, o->exact, &s);
    else
        compare_ints(ea, eb, &s);

    double nmse;
    if (s.sum_b2 > 0)
        nmse = (double)(s.sum_d2 / s.sum_b2);
    else
        nmse = s.sum_d2 == 0 ? 0.0 : INFINITY;

    int fail = s.mismatches > 0;
    if (o->quiet && !fail)
        return 0;

    char shape[96];
    format_shape(ea, shape, sizeof shape);
    printf("%s %s[%s]: %s max_abs=%.3g max_rel=%.3g max_ulp=%llu "
           "nmse=%.3g mismatches=%llu/%llu", ea->name,
           dump_type_name(ea->type), shape, fail ? "FAIL" : "PASS",
           s.max_abs, s.max_rel, (unsigned long long)s.max_ulp, nmse,
           (unsigned long long)s.mismatches,
           (unsigned long long)ea->count);
    if (fail) {
        char index[96], va[96], vb[96];
        format_index(ea, s.first, index, sizeof index);
        format_value(ea, s.first, va, sizeof va);
        format_value(eb, s.first, vb, sizeof vb);
        if (strcmp(va, vb) == 0) { /* e.g. NaN payloads under --exact */
            append_bits(ea, s.first, va, sizeof va);
            append_bits(eb, s.first, vb, sizeof vb);
        }
        printf(" first=%s A=%s B=%s", index, va, vb);
        if (s.nan_mismatches > 0)
            printf(" nan_mismatches=%llu",
                   (unsigned long long)s.nan_mismatches);
    }
    printf(" (%s)\n", criteria);
    return fail;
}

/* ------------------------------------------------------------------ */
/* Structure checks: exit 2 on any disagreement.                       */

static void structure_error(const char *fmt, const char *x, const char *y,
                            const char *z)
{
    fprintf(stderr, "%s: ", PROG);
    fprintf(stderr, fmt, x, y, z);
    fputc('\n', stderr);
}

static int check_structure(const options *o, const dump_file *a,
                           const dump_file *b)
{
    if (strcmp(a->app, b->app) != 0) {
        fprintf(stderr, "%s: the files come from different apps: %s has "
                "app=%s, %s has app=%s; compare dumps of the same app\n",
                PROG, o->path_a, a->app, o->path_b, b->app);
        return -1;
    }
    if (strcmp(a->args, b->args) != 0) {
        fprintf(stderr, "%s: the runs had different args: %s has "
                "args=\"%s\", %s has args=\"%s\"; compare dumps of runs "
                "with the same arguments\n", PROG, o->path_a, a->args,
                o->path_b, b->args);
        return -1;
    }
    int bad = 0;
    for (uint32_t i = 0; i < a->narrays; ++i)
        if (dump_find(b, a->arrays[i].name) == NULL) {
            structure_error("array '%s' is in %s but not in %s",
                            a->arrays[i].name, o->path_a, o->path_b);
            bad = 1;
        }
    for (uint32_t i = 0; i < b->narrays; ++i)
        if (dump_find(a, b->arrays[i].name) == NULL) {
            structure_error("array '%s' is in %s but not in %s",
                            b->arrays[i].name, o->path_b, o->path_a);
            bad = 1;
        }
    for (uint32_t i = 0; i < a->narrays; ++i) {
        const dump_entry *ea = &a->arrays[i];
        const dump_entry *eb = dump_find(b, ea->name);
        if (eb == NULL)
            continue;
        if (ea->type != eb->type) {
            fprintf(stderr, "%s: array '%s' has element type %s in %s but "
                    "%s in %s\n", PROG, ea->name, dump_type_name(ea->type),
                    o->path_a, dump_type_name(eb->type), o->path_b);
            bad = 1;
        }
        int same_shape = ea->rank == eb->rank;
        for (int d = 0; same_shape && d < ea->rank; ++d)
            same_shape = ea->dims[d] == eb->dims[d];
        if (!same_shape) {
            char sa[96], sb[96];
            format_shape(ea, sa, sizeof sa);
            format_shape(eb, sb, sizeof sb);
            fprintf(stderr, "%s: array '%s' has shape [%s] in %s but [%s] "
                    "in %s\n", PROG, ea->name, sa, o->path_a, sb, o->path_b);
            bad = 1;
        }
    }
    return bad ? -1 : 0;
}

/* A run: a --dump file, or a folder written through <duo/check.h>. */
static int read_run(const char *path, dump_file *f)
{
    char err[1024];
    int rc = check_dir_is_folder(path)
                 ? check_dir_read(path, f, err, sizeof err)
                 : dump_read(path, f, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "%s: %s\n", PROG, err);
    return rc;
}

/* The array --png draws: --array NAME, else the first 2-D array that
 * fails, else the first whose bits differ, else the first 2-D array. */
static const dump_entry *png_array(const options *o, const dump_file *a,
                                   const dump_file *b, const int *failed)
{
    if (o->array != NULL) {
        const dump_entry *e = dump_find(a, o->array);
        if (e == NULL)
            fprintf(stderr, "%s: --array %s: no array of that name in the "
                    "runs\n", PROG, o->array);
        return e;
    }
    for (uint32_t i = 0; i < a->narrays; ++i)
        if (failed[i] && a->arrays[i].rank == 2)
            return &a->arrays[i];
    for (uint32_t i = 0; i < a->narrays; ++i) {
        const dump_entry *ea = &a->arrays[i], *eb = dump_find(b, ea->name);
        if (ea->rank == 2 && ea->count > 0 &&
            memcmp(ea->data, eb->data, ea->count * dump_type_size(ea->type)))
            return ea;
    }
    for (uint32_t i = 0; i < a->narrays; ++i)
        if (a->arrays[i].rank == 2)
            return &a->arrays[i];
    fprintf(stderr, "%s: --png %s: the runs hold no 2-D array to draw\n",
            PROG, o->png);
    return NULL;
}

int main(int argc, char **argv)
{
    options o;
    parse_options(argc, argv, &o);

    if (check_dir_is_folder(o.path_a) != check_dir_is_folder(o.path_b)) {
        fprintf(stderr, "%s: %s is a %s but %s is a %s; compare two --dump "
                "files or two <duo/check.h> run folders\n", PROG, o.path_a,
                check_dir_is_folder(o.path_a) ? "folder" : "file", o.path_b,
                check_dir_is_folder(o.path_b) ? "folder" : "file");
        return 2;
    }
    dump_file a, b;
    if (read_run(o.path_a, &a) != 0)
        return 2;
    if (read_run(o.path_b, &b) != 0) {
        dump_file_free(&a);
        return 2;
    }
    int *failed = calloc(a.narrays + 1, sizeof *failed);
    if (failed == NULL || check_structure(&o, &a, &b) != 0) {
        if (failed == NULL)
            fprintf(stderr, "%s: out of memory\n", PROG);
        free(failed);
        dump_file_free(&a);
        dump_file_free(&b);
        return 2;
    }

    if (!o.quiet && a.app[0] == '\0') /* run folders: no app, no args */
        printf("duo-compare: A=%s (backend=%s device=\"%s\") B=%s "
               "(backend=%s device=\"%s\")\n", o.path_a, a.backend,
               a.device, o.path_b, b.backend, b.device);
    else if (!o.quiet)
        printf("duo-compare: app=%s args=\"%s\" A=%s (backend=%s "
               "device=\"%s\") B=%s (backend=%s device=\"%s\")\n", a.app,
               a.args, o.path_a, a.backend, a.device, o.path_b, b.backend,
               b.device);
    int any = 0;
    const char *first = NULL;
    for (uint32_t i = 0; i < a.narrays; ++i) {
        failed[i] = compare_array(&a.arrays[i],
                                  dump_find(&b, a.arrays[i].name), &o);
        if (failed[i] && first == NULL)
            first = a.arrays[i].name;
        any |= failed[i];
    }
    /* Arrays are in the order they were written: for a run folder the
     * order of the program's dumps, so the first failure is where the
     * runs part ways. */
    if (first != NULL)
        printf("first array that differs: %s\n", first);
    int status = any ? 1 : 0;
    if (o.png != NULL) {
        const dump_entry *e = png_array(&o, &a, &b, failed);
        if (e == NULL ||
            diff_png_write(o.png, e, dump_find(&b, e->name), PROG) != 0)
            status = 2;
    }
    printf("verdict: %s\n", any ? "FAIL" : "PASS");
    free(failed);
    dump_file_free(&a);
    dump_file_free(&b);
    return status;
}
