/*
 * make_dump.c - test_make_dump: writes the small dump files with known
 * contents that test_compare.sh runs duo-compare on, and checks the
 * writer's own failure behaviour.
 *
 *   test_make_dump DIR      write DIR/<case>.dump (list below); exit 0
 *   test_make_dump --writer DIR
 *                           check dump_open / dump_array / dump_close
 *                           failures (messages go to stderr); exit 0 if
 *                           they behave as dump.h says
 *
 * Every file is from app "test-app" with args "8 --seed=1" (the argv it
 * passes also holds "--dump <file>", which must not be recorded), and
 * holds five arrays:
 *   x f32 [8]        1.5, -2.25, 3, 0.1, 1e30, -7, 0.5, 2 * FLT_TRUE_MIN
 *   m f64 [3 x 4]    m[i][j] = (i + 1) + (j + 1) / 8 + 1/3
 *   n i32 [2 x 3]    -3 .. 2
 *   l i64 [4]        INT64_MIN, -1, 0, INT64_MAX
 *   u u64 [2 x 2 x 2] 0, 1, ..., 6, UINT64_MAX
 * The variants change that base as their names say.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tools/dump.h"

typedef struct data {
    float x[8];
    double m[3][4];
    int32_t n[2][3];
    int64_t l[4];
    uint64_t u[2][2][2];
} data;

static void base_data(data *d)
{
    const float x[8] = {1.5f, -2.25f, 3.0f, 0.1f, 1e30f, -7.0f, 0.5f,
                        2 * FLT_TRUE_MIN};
    memcpy(d->x, x, sizeof x);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j)
            d->m[i][j] = (i + 1) + (j + 1) / 8.0 + 1.0 / 3.0;
    for (int i = 0; i < 6; ++i)
        d->n[i / 3][i % 3] = i - 3;
    d->l[0] = INT64_MIN;
    d->l[1] = -1;
    d->l[2] = 0;
    d->l[3] = INT64_MAX;
    for (int i = 0; i < 8; ++i)
        d->u[i / 4][(i / 2) % 2][i % 2] = (uint64_t)i;
    d->u[1][1][1] = UINT64_MAX;
}

static char dir[4096];

static const char *path_of(const char *name)
{
    static char path[4200];
    snprintf(path, sizeof path, "%s/%s.dump", dir, name);
    return path;
}

/* Arrays left out or changed in shape/type for the structure cases. */
enum { ALL = 0, NO_U = 1, M_4X3 = 2, M_AS_F32 = 4 };

static int write_file(const char *name, const char *app, const char *seed,
                      const data *d, int variant)
{
    const char *path = path_of(name);
    char seed_arg[64];
    snprintf(seed_arg, sizeof seed_arg, "--seed=%s", seed);
    char *argv[] = {(char *)"./test-app", (char *)"8", (char *)"--dump",
                    (char *)path, seed_arg, NULL};
    dump_writer *w = dump_open(path, app, 5, argv);

    size_t dx[1] = {8}, dm[2] = {3, 4}, dm43[2] = {4, 3}, dn[2] = {2, 3},
           dl[1] = {4}, du[3] = {2, 2, 2};
    dump_array(w, "x", DUO_F32, 1, dx, d->x);
    if (variant & M_AS_F32) {
        float mf[12];
        for (int i = 0; i < 12; ++i)
            mf[i] = (float)d->m[i / 4][i % 4];
        dump_array(w, "m", DUO_F32, 2, dm, mf);
    } else {
        dump_array(w, "m", DUO_F64, 2, (variant & M_4X3) ? dm43 : dm, d->m);
    }
    dump_array(w, "n", DUO_I32, 2, dn, d->n);
    dump_array(w, "l", DUO_I64, 1, dl, d->l);
    if (!(variant & NO_U))
        dump_array(w, "u", DUO_U64, 3, du, d->u);
    if (dump_close(w) != 0) {
        fprintf(stderr, "make_dump: writing %s failed\n", path);
        return -1;
    }
    return 0;
}

/* The bytes of DIR/<name>.dump. */
static unsigned char *slurp(const char *name, size_t *size)
{
    FILE *f = fopen(path_of(name), "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    unsigned char *p = (unsigned char *)malloc(cap);
    size_t k;
    while (p != NULL && (k = fread(p + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            unsigned char *q = (unsigned char *)realloc(p, cap *= 2);
            if (q == NULL)
                free(p);
            p = q;
        }
    }
    fclose(f);
    *size = n;
    return p;
}

static int spit(const char *name, const unsigned char *p, size_t n)
{
    FILE *f = fopen(path_of(name), "wb");
    if (f == NULL || fwrite(p, 1, n, f) != n) {
        fprintf(stderr, "make_dump: cannot write %s\n", path_of(name));
        if (f)
            fclose(f);
        return -1;
    }
    return fclose(f) == 0 ? 0 : -1;
}

static void set_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

/* Byte-level corruptions of base.dump. */
static int corrupt_variants(void)
{
    size_t n = 0;
    unsigned char *base = slurp("base", &n);
    if (base == NULL || n < 64)
        return -1;
    unsigned char *p = (unsigned char *)malloc(n + 3);
    if (p == NULL)
        return -1;
    /* The first array, "x" (f32, rank 1): name length, name, type, rank,
     * one dim, byte count, then data. */
    size_t first = 20 + get_u32(base + 16);
    size_t x_type = first + 4 + 1;
    size_t x_bytes = x_type + 4 + 4 + 8;
    size_t x_data = x_bytes + 8;
    int rc = 0;

    rc |= spit("trunc", base, n - 5);              /* inside the last hash */
    rc |= spit("trunc_header", base, 10);          /* inside the version */
    memcpy(p, base, n);
    p[0] = 'X';
    rc |= spit("magic", p, n);
    memcpy(p, base, n);
    set_u32(p + 8, 2);
    rc |= spit("version", p, n);
    memcpy(p, base, n);
    p[x_data + 5] ^= 0x01;                         /* flip one data bit */
    rc |= spit("hash", p, n);
    memcpy(p, base, n);
    set_u32(p + 12, 0xFFFFFFFFu);
    rc |= spit("unclosed", p, n);
    memcpy(p, base, n);
    set_u32(p + 12, 1000000);
    rc |= spit("absurd_count", p, n);
    memcpy(p, base, n);
    set_u32(p + x_type, 9);
    rc |= spit("unknown_type", p, n);
    memcpy(p, base, n);
    set_u32(p + x_bytes, 36);                      /* 8 floats are 32 */
    rc |= spit("sizes", p, n);
    memcpy(p, base, n);
    memcpy(p + n, "abc", 3);
    rc |= spit("trailing", p, n + 3);
    free(p);
    free(base);
    return rc;
}

static int write_all(void)
{
    data base, d;
    base_data(&base);
    int rc = 0;
    rc |= write_file("base", "test-app", "1", &base, ALL);
    rc |= write_file("same", "test-app", "1", &base, ALL);

    /* Within the default tolerances: x[3] off by 3e-6 relative (f32 tol
     * 1e-5), x[7] = 2 * FLT_TRUE_MIN vs 0 (2 ulps, relative error 1),
     * m[1][2] 2 ulps off. */
    d = base;
    d.x[3] = base.x[3] * (1.0f + 3e-6f);
    d.x[7] = 0.0f;
    d.m[1][2] = nextafter(nextafter(base.m[1][2], 10.0), 10.0);
    rc |= write_file("within", "test-app", "1", &d, ALL);

    /* Beyond: m[2][1] and m[2][3] off by 1e-9 relative. */
    d = base;
    d.m[2][1] *= 1.0 + 1e-9;
    d.m[2][3] *= 1.0 - 1e-9;
    rc |= write_file("beyond", "test-app", "1", &d, ALL);

    /* One ulp: passes by default, fails --exact. */
    d = base;
    d.x[5] = nextafterf(base.x[5], 0.0f);
    rc |= write_file("ulp1", "test-app", "1", &d, ALL);

    /* +0 vs -0 at x[2]: equal by default, different bits for --exact. */
    d = base;
    d.x[2] = 0.0f;
    rc |= write_file("pzero", "test-app", "1", &d, ALL);
    d.x[2] = -0.0f;
    rc |= write_file("nzero", "test-app", "1", &d, ALL);

    /* NaNs: nan1 and nan2 have NaN (different payloads) at x[2]; nan3
     * has NaN at x[2] and x[4]. */
    uint32_t q1 = 0x7fc00000u, q2 = 0x7fc00001u;
    d = base;
    memcpy(&d.x[2], &q1, 4);
    rc |= write_file("nan1", "test-app", "1", &d, ALL);
    memcpy(&d.x[2], &q2, 4);
    rc |= write_file("nan2", "test-app", "1", &d, ALL);
    memcpy(&d.x[4], &q1, 4);
    rc |= write_file("nan3", "test-app", "1", &d, ALL);

    /* Integers: n[1][2] off by one; l[0] INT64_MIN vs INT64_MAX. */
    d = base;
    d.n[1][2] += 1;
    rc |= write_file("int_diff", "test-app", "1", &d, ALL);
    d = base;
    d.l[0] = INT64_MAX;
    rc |= write_file("int_big", "test-app", "1", &d, ALL);

    /* Structure. */
    rc |= write_file("shape", "test-app", "1", &base, M_4X3);
    rc |= write_file("type", "test-app", "1", &base, M_AS_F32);
    rc |= write_file("missing_array", "test-app", "1", &base, NO_U);
    rc |= write_file("other_app", "other-app", "1", &base, ALL);
    rc |= write_file("other_args", "test-app", "2", &base, ALL);

    rc |= corrupt_variants();
    return rc;
}

/* ------------------------------------------------------------------ */
/* Writer failure behaviour                                            */

static int exists(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

#define EXPECT(cond)                                                       \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "make_dump: FAILED at line %d: %s\n",          \
                    __LINE__, #cond);                                      \
            failures++;                                                    \
        }                                                                  \
    } while (0)

static int writer_checks(void)
{
    int failures = 0;
    char *argv[] = {(char *)"prog", NULL};
    float v[4] = {1, 2, 3, 4};
    size_t dims[1] = {4};
    char path[4200];

    /* dump_open on a folder that does not exist: NULL; the NULL is
     * accepted by dump_array and dump_close, which return -1. */
    snprintf(path, sizeof path, "%s/no-such-dir/x.dump", dir);
    dump_writer *w = dump_open(path, "prog", 1, argv);
    EXPECT(w == NULL);
    EXPECT(dump_array(w, "v", DUO_F32, 1, dims, v) == -1);
    EXPECT(dump_close(w) == -1);

    /* A bad call kills the writer: later calls fail, the file is
     * removed. */
    const char *bad_cases[] = {"bad name", "rank", "type", "dup", NULL};
    for (int c = 0; bad_cases[c] != NULL; ++c) {
        snprintf(path, sizeof path, "%s/writer_%d.dump", dir, c);
        w = dump_open(path, "prog", 1, argv);
        EXPECT(w != NULL);
        EXPECT(exists(path));
        EXPECT(dump_array(w, "ok", DUO_F32, 1, dims, v) == 0);
        int r = 0;
        if (c == 0)
            r = dump_array(w, "bad name", DUO_F32, 1, dims, v);
        else if (c == 1)
            r = dump_array(w, "r", DUO_F32, 4, dims, v);
        else if (c == 2)
            r = dump_array(w, "t", (duo_dtype)7, 1, dims, v);
        else
            r = dump_array(w, "ok", DUO_F32, 1, dims, v);
        EXPECT(r == -1);
        EXPECT(dump_array(w, "later", DUO_F32, 1, dims, v) == -1);
        EXPECT(dump_close(w) == -1);
        EXPECT(!exists(path));
    }

    /* A good file reads back with the same values and metadata. */
    snprintf(path, sizeof path, "%s/writer_ok.dump", dir);
    char *argv2[] = {(char *)"prog", (char *)"a\nb", (char *)"--dump",
                     path, (char *)"--dump=elsewhere", (char *)"c", NULL};
    w = dump_open(path, "prog", 6, argv2);
    size_t empty[2] = {3, 0};
    EXPECT(dump_array(w, "v", DUO_F32, 1, dims, v) == 0);
    EXPECT(dump_array(w, "empty", DUO_F64, 2, empty, NULL) == 0);
    EXPECT(dump_close(w) == 0);
    dump_file f;
    char err[512];
    EXPECT(dump_read(path, &f, err, sizeof err) == 0);
    if (f.narrays == 2) {
        EXPECT(strcmp(f.app, "prog") == 0);
        EXPECT(strcmp(f.args, "a?b c") == 0);
        EXPECT(strcmp(f.backend, duo_backend_name()) == 0);
        EXPECT(strcmp(f.arrays[0].name, "v") == 0);
        EXPECT(f.arrays[0].type == DUO_F32 && f.arrays[0].count == 4);
        EXPECT(memcmp(f.arrays[0].data, v, sizeof v) == 0);
        EXPECT(f.arrays[1].count == 0 && f.arrays[1].rank == 2 &&
               f.arrays[1].dims[1] == 0);
        EXPECT(dump_find(&f, "empty") == &f.arrays[1]);
    } else {
        fprintf(stderr, "make_dump: read back %u arrays: %s\n", f.narrays,
                err);
        failures++;
    }
    dump_file_free(&f);
    if (failures == 0)
        printf("writer checks: PASS\n");
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    int writer = argc == 3 && strcmp(argv[1], "--writer") == 0;
    if (!(argc == 2 || writer)) {
        fprintf(stderr, "usage: test_make_dump [--writer] DIR\n");
        return 2;
    }
    snprintf(dir, sizeof dir, "%s", argv[writer ? 2 : 1]);
    if (writer)
        return writer_checks();
    return write_all() == 0 ? 0 : 1;
}
