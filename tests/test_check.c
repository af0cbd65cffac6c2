/*
 * test_check.c - <duo/check.h>: the .npy files and manifest a run writes,
 * read back here independently of duo's readers, and every bad argument.
 *
 *   test_check              the checks below, in a fresh temporary folder
 *   test_check --runs DIR   write the runs test_check_compare.sh compares:
 *                           DIR/a, DIR/same (a again), DIR/b (a with one
 *                           element of the second dump of "u" 3 ulps off,
 *                           and every later dump changed too)
 */
#define _POSIX_C_SOURCE 200809L

#include <duo/check.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

/* The call fails with `want` and duo_last_error() contains `needle`. */
#define CHECK_STATUS_MSG(call, want, needle)                              \
    do {                                                                  \
        if (CHECK_STATUS(call, want))                                     \
            CHECK_CONTAINS(duo_last_error(), needle);                     \
    } while (0)

enum { NY = 37, NX = 53, NE = 101 };

static char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = (char *)malloc((size_t)n + 1);
    if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf != NULL) {
        buf[n] = '\0';
        *size = (size_t)n;
    }
    return buf;
}

/* The file holds the .npy header `dict` (written out here by hand from
 * the format's description) and then exactly `bytes` bytes of `data`. */
static void expect_npy(const char *dir, const char *file, const char *dict,
                       const void *data, size_t bytes)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    size_t size = 0;
    char *buf = slurp(path, &size);
    CHECK_MSG(buf != NULL, "%s was not written", path);
    if (buf == NULL)
        return;
    CHECK_MSG(size >= 10 && memcmp(buf, "\x93NUMPY\x01\x00", 8) == 0,
              "%s: no .npy 1.0 magic", path);
    size_t hlen = (size_t)(unsigned char)buf[8] |
                  ((size_t)(unsigned char)buf[9] << 8);
    CHECK_MSG((10 + hlen) % 64 == 0, "%s: header of %zu bytes is not "
              "padded to 64", path, hlen);
    CHECK_MSG(strncmp(buf + 10, dict, strlen(dict)) == 0 &&
                  buf[10 + hlen - 1] == '\n',
              "%s: header is not %s", path, dict);
    CHECK_MSG(size == 10 + hlen + bytes, "%s: %zu bytes, expected %zu",
              path, size, 10 + hlen + bytes);
    if (size == 10 + hlen + bytes && bytes > 0)
        CHECK_MSG(memcmp(buf + 10 + hlen, data, bytes) == 0,
                  "%s: data differ from what was dumped", path);
    free(buf);
}

static int count_lines(const char *dir)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/manifest.txt", dir);
    size_t size = 0;
    char *buf = slurp(path, &size);
    int n = 0;
    for (size_t i = 0; buf != NULL && i < size; ++i)
        n += buf[i] == '\n';
    free(buf);
    return n;
}

/* The values of run "a": random, never all zero. */
typedef struct run_data {
    float u[NY][NX];
    double e[NE];
    int32_t k[2][3][5];
} run_data;

static void fill(run_data *r, uint64_t seed)
{
    test_rng rng;
    test_rng_seed(&rng, seed);
    for (int i = 0; i < NY; ++i)
        for (int j = 0; j < NX; ++j)
            r->u[i][j] = 8.0f * test_rng_uniform_f(&rng) - 4.0f;
    for (int i = 0; i < NE; ++i)
        r->e[i] = 2e6 * test_rng_uniform(&rng) - 1e6;
    for (int i = 0; i < 30; ++i)
        (&r->k[0][0][0])[i] = (int32_t)test_rng_range(&rng, -1000, 1000);
}

/* One run: "u" from device memory at two steps, then "e", "k" and an
 * empty "z" from host memory.  variant 1 moves u@1[2][3] by 3 ulps and
 * changes e, k after it. */
static void write_run(const char *dir, int variant)
{
    run_data r;
    fill(&r, 7);
    float *d_u = NULL;
    CHECK_OK(duo_malloc((void **)&d_u, sizeof r.u));
    CHECK_OK(duo_check_dir(dir));
    const size_t du[2] = {NY, NX}, de[1] = {NE}, dk[3] = {2, 3, 5},
                 dz[2] = {4, 0};
    for (int step = 0; step < 2; ++step) {
        if (step == 1) {
            for (int i = 0; i < NY; ++i)
                for (int j = 0; j < NX; ++j)
                    r.u[i][j] = 0.5f * r.u[i][j] + 1.0f;
            if (variant == 1)
                for (int t = 0; t < 3; ++t)
                    r.u[2][3] = nextafterf(r.u[2][3], INFINITY);
        }
        CHECK_OK(duo_memcpy(d_u, r.u, sizeof r.u, DUO_HOST_TO_DEVICE));
        CHECK_OK(duo_check_device("u", DUO_F32, 2, du, d_u));
    }
    if (variant == 1) {
        r.e[5] = -r.e[5];
        r.k[1][2][4] += 1;
    }
    CHECK_OK(duo_check_host("e", DUO_F64, 1, de, r.e));
    CHECK_OK(duo_check_host("k", DUO_I32, 3, dk, r.k));
    CHECK_OK(duo_check_host("z", DUO_U64, 2, dz, NULL));
    CHECK_OK(duo_check_dir(NULL));
    CHECK_OK(duo_free(d_u));
}

static void check_files(const char *dir)
{
    run_data r;
    fill(&r, 7);
    write_run(dir, 0);
    CHECK_MSG(count_lines(dir) == 3 + 5, "manifest of %s: %d lines, "
              "expected 3 + 5", dir, count_lines(dir));
    expect_npy(dir, "u.npy", "{'descr': '<f4', 'fortran_order': False, "
               "'shape': (37, 53), }", r.u, sizeof r.u);
    for (int i = 0; i < NY; ++i)
        for (int j = 0; j < NX; ++j)
            r.u[i][j] = 0.5f * r.u[i][j] + 1.0f;
    expect_npy(dir, "u@1.npy", "{'descr': '<f4', 'fortran_order': False, "
               "'shape': (37, 53), }", r.u, sizeof r.u);
    expect_npy(dir, "e.npy", "{'descr': '<f8', 'fortran_order': False, "
               "'shape': (101,), }", r.e, sizeof r.e);
    expect_npy(dir, "k.npy", "{'descr': '<i4', 'fortran_order': False, "
               "'shape': (2, 3, 5), }", r.k, sizeof r.k);
    expect_npy(dir, "z.npy", "{'descr': '<u8', 'fortran_order': False, "
               "'shape': (4, 0), }", NULL, 0);

    char path[2048];
    snprintf(path, sizeof path, "%s/manifest.txt", dir);
    size_t size = 0;
    char *m = slurp(path, &size);
    CHECK_MSG(m != NULL && strncmp(m, "duo-check 1\nbackend=", 20) == 0,
              "%s does not start with the duo-check 1 header", path);
    CHECK_MSG(m != NULL && strstr(m, "\narray u@1 u@1.npy f32 37x53 ") &&
                  strstr(m, "\narray z z.npy u64 4x0 "),
              "%s lacks the lines of u@1 and z", path);
    free(m);
}

static void check_bad_arguments(const char *dir)
{
    CHECK_OK(duo_check_dir(dir));
    const float x[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    const size_t n4[1] = {4};
    CHECK_OK(duo_check_host("x", DUO_F32, 1, n4, x));
    const int before = count_lines(dir);
    char long_name[80];
    memset(long_name, 'a', 65);
    long_name[65] = '\0';
    const char *bad_names[] = {"", "a b", "../x", "x/y", long_name};
    for (size_t i = 0; i < sizeof bad_names / sizeof bad_names[0]; ++i)
        CHECK_STATUS_MSG(duo_check_host(bad_names[i], DUO_F32, 1, n4, x),
                         DUO_ERROR_INVALID_ARGUMENT, "name must be");
    CHECK_STATUS_MSG(duo_check_host(NULL, DUO_F32, 1, n4, x),
                     DUO_ERROR_INVALID_ARGUMENT, "got NULL");
    CHECK_STATUS_MSG(duo_check_host("x", (duo_dtype)99, 1, n4, x),
                     DUO_ERROR_INVALID_ARGUMENT, "type = 99");
    CHECK_STATUS_MSG(duo_check_host("x", DUO_F32, 0, n4, x),
                     DUO_ERROR_INVALID_ARGUMENT, "rank = 0");
    CHECK_STATUS_MSG(duo_check_device("x", DUO_F32, 4, n4, x),
                     DUO_ERROR_INVALID_ARGUMENT, "rank = 4");
    CHECK_STATUS_MSG(duo_check_host("x", DUO_F32, 1, NULL, x),
                     DUO_ERROR_INVALID_ARGUMENT, "dims is NULL");
    CHECK_STATUS_MSG(duo_check_device("x", DUO_F32, 1, n4, NULL),
                     DUO_ERROR_INVALID_ARGUMENT, "data is NULL");
    CHECK_MSG(count_lines(dir) == before, "a refused dump changed the "
              "manifest (%d lines, was %d)", count_lines(dir), before);
    CHECK_STATUS_MSG(duo_check_dir(""), DUO_ERROR_INVALID_ARGUMENT,
                     "dir must be");

    /* A folder that is a file. */
    char file[2048];
    snprintf(file, sizeof file, "%s/x.npy", dir);
    CHECK_OK(duo_check_dir(file));
    CHECK_STATUS_MSG(duo_check_host("x", DUO_F32, 1, n4, x),
                     DUO_ERROR_INVALID_ARGUMENT, "is not a folder");
    CHECK_OK(duo_check_dir(NULL));
}

static void check_off_without_folder(const char *dir)
{
    unsetenv("DUO_CHECK_DIR");
    CHECK_OK(duo_check_dir(NULL));
    const float x[2] = {1.0f, 2.0f};
    const size_t n2[1] = {2};
    /* Off: success, even for arguments that would be refused, and no
     * file anywhere. */
    CHECK_OK(duo_check_host("off", DUO_F32, 1, n2, x));
    CHECK_OK(duo_check_host("bad name", DUO_F32, 9, NULL, NULL));
    char sub[1024];
    snprintf(sub, sizeof sub, "%s/from-env", dir);
    setenv("DUO_CHECK_DIR", sub, 1);
    CHECK_OK(duo_check_host("x", DUO_F32, 1, n2, x));
    unsetenv("DUO_CHECK_DIR");
    expect_npy(sub, "x.npy", "{'descr': '<f4', 'fortran_order': False, "
               "'shape': (2,), }", x, sizeof x);
}

int main(int argc, char **argv)
{
    test_init_or_skip();
    if (argc == 3 && strcmp(argv[1], "--runs") == 0) {
        char path[2048];
        mkdir(argv[2], 0777);
        const char *names[3] = {"a", "same", "b"};
        for (int v = 0; v < 3; ++v) {
            snprintf(path, sizeof path, "%s/%s", argv[2], names[v]);
            write_run(path, v == 2);
        }
        return test_summary("test_check --runs");
    }
    char tmpl[] = "/tmp/duo-test-check.XXXXXX";
    const char *dir = mkdtemp(tmpl);
    if (dir == NULL) {
        fprintf(stderr, "test_check: mkdtemp failed\n");
        return 1;
    }
    char sub[1024];
    snprintf(sub, sizeof sub, "%s/run", dir);
    check_files(sub);
    snprintf(sub, sizeof sub, "%s/bad", dir);
    check_bad_arguments(sub);
    check_off_without_folder(dir);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "test_check: could not remove %s\n", dir);
    CHECK_OK(duo_finalize());
    return test_summary("test_check");
}
