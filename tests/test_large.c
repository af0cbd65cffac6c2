/*
 * test_large.c - the primitives past 2^31 elements on the GPU, where
 * 32-bit counts and offsets would wrap: n = 2^31 + 4099 (not a multiple
 * of any tile or block size).
 *
 *  - Floating-point sum scan (inclusive, f32): every output bit for bit
 *    against the order of src/scan_order.h, restated here as a stream
 *    (run totals, the block sums of every level, each run's carry as
 *    C[j] = C[j - 2^k] + S(k, j / 2^k - 1) for the lowest set bit k of
 *    j), so that carries from 23 levels above the runs are checked.
 *  - Integer sum scan (exclusive, i32): every output against a running
 *    sum, wrapping as duo_scan does.
 *  - Compaction of f32 elements by a flag pattern: the count, and every
 *    kept element in order.
 *  - Sort of u32 keys: non-decreasing, and the same multiset as far as
 *    the sum and the sum of squares of the keys (modulo 2^64) and the
 *    count per top byte can tell.
 *  - Histogram of the f32 data over [-1, 1) in 256 bins: every count
 *    against the formula of duo/primitives.h computed here.
 *
 * GPU only (exit 77 on the host path, where the same code is the suite's
 * smaller tests at a cost of minutes); about 30 GB of device memory and
 * 20 GB of host memory.  CTest label "large", which the sanitizer sweep
 * leaves out.  Outputs are poisoned before each call.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#define RUN 16

static const size_t N = ((size_t)1 << 31) + 4099;

/* A cheap hash of i: the data, flags and keys, reproducible. */
static uint64_t mix(uint64_t i)
{
    i += 0x9E3779B97F4A7C15ULL;
    i = (i ^ (i >> 30)) * 0xBF58476D1CE4E5B9ULL;
    i = (i ^ (i >> 27)) * 0x94D049BB133111EBULL;
    return i ^ (i >> 31);
}

/* f32 over many magnitudes, both signs, so that orders differ in bits. */
static float value(size_t i)
{
    const uint64_t h = mix(i);
    const float m = (float)(h >> 40) / (float)(1 << 24); /* [0, 1) */
    const int e = (int)((h >> 8) % 24) - 12;
    const float v = ldexpf(m, e);
    return (h & 1) ? -v : v;
}

static void progress(const char *what)
{
    printf("large: %s\n", what);
    fflush(stdout);
}

/* Device buffer, or exit 77 where the GPU lacks the memory. */
static void *device_or_skip(size_t bytes)
{
    void *p = NULL;
    const duo_status s = duo_malloc(&p, bytes);
    if (s == DUO_ERROR_OUT_OF_MEMORY) {
        printf("SKIP: the GPU has no room for %zu bytes\n", bytes);
        exit(TEST_SKIP);
    }
    CHECK_OK(s);
    return p;
}

/* The f32 inclusive sum scan of x, element by element against y. */
static void check_scan_f32(const float *x, const float *y, size_t n)
{
    const size_t m = (n + RUN - 1) / RUN;
    /* S[k]: the complete blocks of 2^k runs; C: each run's carry. */
    double *S[64];
    size_t len[64];
    int levels = 1;
    S[0] = (double *)test_xmalloc(m * sizeof(double));
    len[0] = m;
    for (size_t j = 0; j < m; ++j) {
        double s = x[j * RUN];
        for (size_t k = 1; k < RUN && j * RUN + k < n; ++k)
            s += x[j * RUN + k];
        S[0][j] = s;
    }
    while (len[levels - 1] >= 2) {
        const int k = levels++;
        len[k] = len[k - 1] / 2;
        S[k] = (double *)test_xmalloc(len[k] * sizeof(double));
        for (size_t b = 0; b < len[k]; ++b)
            S[k][b] = S[k - 1][2 * b] + S[k - 1][2 * b + 1];
    }
    double *C = (double *)test_xmalloc(m * sizeof(double));
    size_t bad = 0, first = 0;
    for (size_t j = 0; j < m; ++j) {
        int k = 0;
        if (j > 0) {
            while (!((j >> k) & 1))
                ++k;
            const double s = S[k][(j >> k) - 1];
            C[j] = j == ((size_t)1 << k) ? s : C[j - ((size_t)1 << k)] + s;
        }
        double loc = 0.0;
        for (size_t e = 0; e < RUN && j * RUN + e < n; ++e) {
            const size_t i = j * RUN + e;
            loc = e == 0 ? (double)x[i] : loc + (double)x[i];
            const float want = (float)(j == 0 ? loc : C[j] + loc);
            if (memcmp(&want, &y[i], sizeof want) != 0 && bad++ == 0)
                first = i;
        }
    }
    CHECK_MSG(bad == 0, "f32 sum scan: %zu of %zu outputs differ, first at "
              "%zu: got %a, want the order's bits", bad, n, first,
              bad ? (double)y[first] : 0.0);
    for (int k = 0; k < levels; ++k)
        free(S[k]);
    free(C);
}

static void test_scans(float *hx, float *hy, void *dx, void *dy)
{
    progress("f32 inclusive sum scan");
    CHECK_OK(duo_memcpy(dx, hx, N * sizeof(float), DUO_HOST_TO_DEVICE));
    CHECK_OK(duo_memset(dy, 0xff, N * sizeof(float)));
    CHECK_OK(duo_scan(DUO_INCLUSIVE, DUO_SUM, DUO_F32, dx, dy, N));
    CHECK_OK(duo_memcpy(hy, dy, N * sizeof(float), DUO_DEVICE_TO_HOST));
    check_scan_f32(hx, hy, N);

    progress("i32 exclusive sum scan");
    int32_t *xi = (int32_t *)hx, *yi = (int32_t *)hy;
    for (size_t i = 0; i < N; ++i)
        xi[i] = (int32_t)(uint32_t)mix(i ^ 0x5ca9);
    CHECK_OK(duo_memcpy(dx, xi, N * sizeof(int32_t), DUO_HOST_TO_DEVICE));
    CHECK_OK(duo_memset(dy, 0xff, N * sizeof(int32_t)));
    CHECK_OK(duo_scan(DUO_EXCLUSIVE, DUO_SUM, DUO_I32, dx, dy, N));
    CHECK_OK(duo_memcpy(yi, dy, N * sizeof(int32_t), DUO_DEVICE_TO_HOST));
    uint32_t run = 0;
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < N; ++i) {
        if ((uint32_t)yi[i] != run && bad++ == 0)
            first = i;
        run += (uint32_t)xi[i];
    }
    CHECK_MSG(bad == 0, "i32 exclusive sum scan: %zu of %zu differ, first "
              "at %zu", bad, N, first);
}

static void test_compact(float *hx, float *hy, void *dx, void *dy)
{
    progress("compaction of f32 elements");
    for (size_t i = 0; i < N; ++i)
        hx[i] = value(i);
    uint8_t *flags = (uint8_t *)test_xmalloc(N);
    size_t want = 0;
    for (size_t i = 0; i < N; ++i) {
        flags[i] = (mix(i ^ 0xf1a9) & 3) != 0;
        want += flags[i];
    }
    uint8_t *dflags = (uint8_t *)device_or_skip(N);
    CHECK_OK(duo_memcpy(dx, hx, N * sizeof(float), DUO_HOST_TO_DEVICE));
    CHECK_OK(duo_memcpy(dflags, flags, N, DUO_HOST_TO_DEVICE));
    CHECK_OK(duo_memset(dy, 0xff, N * sizeof(float)));
    size_t count = 0;
    CHECK_OK(duo_compact(sizeof(float), N, dx, dflags, dy, &count));
    CHECK_EQ_U64(count, want);
    CHECK_OK(duo_memcpy(hy, dy, N * sizeof(float), DUO_DEVICE_TO_HOST));
    size_t o = 0, bad = 0;
    for (size_t i = 0; i < N && o < count; ++i)
        if (flags[i] && memcmp(&hx[i], &hy[o++], sizeof(float)) != 0)
            ++bad;
    CHECK_MSG(bad == 0, "compaction: %zu of %zu kept elements differ", bad,
              count);
    CHECK_OK(duo_free(dflags));
    free(flags);
}

typedef struct {
    uint64_t sum, squares;
    uint64_t top[256];
} fingerprint;

static void take_print(const uint32_t *k, size_t n, fingerprint *f)
{
    memset(f, 0, sizeof *f);
    for (size_t i = 0; i < n; ++i) {
        f->sum += k[i];
        f->squares += (uint64_t)k[i] * k[i];
        f->top[k[i] >> 24]++;
    }
}

static void test_sort(float *hx, float *hy, void *dx)
{
    progress("sort of u32 keys");
    uint32_t *keys = (uint32_t *)hx, *out = (uint32_t *)hy;
    for (size_t i = 0; i < N; ++i)
        keys[i] = (uint32_t)mix(i ^ 0x5047);
    fingerprint in, got;
    take_print(keys, N, &in);
    CHECK_OK(duo_memcpy(dx, keys, N * sizeof(uint32_t), DUO_HOST_TO_DEVICE));
    CHECK_OK(duo_sort(DUO_KEY_U32, DUO_ASCENDING, N, dx, dx, NULL, NULL, 0));
    memset(out, 0xff, N * sizeof(uint32_t));
    CHECK_OK(duo_memcpy(out, dx, N * sizeof(uint32_t), DUO_DEVICE_TO_HOST));
    size_t descents = 0;
    for (size_t i = 1; i < N; ++i)
        descents += out[i] < out[i - 1];
    CHECK_EQ_U64(descents, 0);
    take_print(out, N, &got);
    CHECK_EQ_U64(got.sum, in.sum);
    CHECK_EQ_U64(got.squares, in.squares);
    CHECK(memcmp(got.top, in.top, sizeof in.top) == 0);
}

static void test_histogram(float *hx, void *dx)
{
    progress("histogram of f32 over [-1, 1), 256 bins");
    enum { BINS = 256 };
    for (size_t i = 0; i < N; ++i)
        hx[i] = value(i);
    uint64_t want[BINS] = {0}, got[BINS];
    for (size_t i = 0; i < N; ++i) {
        const double v = (double)hx[i];
        if (!(v >= -1.0 && v < 1.0))
            continue;
        size_t b = (size_t)((v - -1.0) * ((double)BINS / 2.0));
        want[b == BINS ? BINS - 1 : b]++;
    }
    uint64_t *dcounts = (uint64_t *)device_or_skip(sizeof got);
    CHECK_OK(duo_memcpy(dx, hx, N * sizeof(float), DUO_HOST_TO_DEVICE));
    CHECK_OK(duo_memset(dcounts, 0xff, sizeof got));
    CHECK_OK(duo_histogram(DUO_F32, N, dx, -1.0, 1.0, BINS, dcounts));
    CHECK_OK(duo_memcpy(got, dcounts, sizeof got, DUO_DEVICE_TO_HOST));
    size_t bad = 0;
    for (int b = 0; b < BINS; ++b)
        bad += got[b] != want[b];
    CHECK_MSG(bad == 0, "histogram: %zu of %d bins differ", bad, BINS);
    CHECK_OK(duo_free(dcounts));
}

int main(void)
{
    test_init_or_skip();
    if (!test_on_gpu()) {
        printf("SKIP: GPU only (the host path runs the smaller tests)\n");
        duo_finalize();
        return TEST_SKIP;
    }
    float *hx = (float *)test_xmalloc(N * sizeof(float));
    float *hy = (float *)test_xmalloc(N * sizeof(float));
    progress("data");
    for (size_t i = 0; i < N; ++i)
        hx[i] = value(i);
    void *dx = device_or_skip(N * sizeof(float));
    void *dy = device_or_skip(N * sizeof(float));

    test_scans(hx, hy, dx, dy);
    test_compact(hx, hy, dx, dy);
    test_sort(hx, hy, dx);
    test_histogram(hx, dx);

    CHECK_OK(duo_free(dx));
    CHECK_OK(duo_free(dy));
    free(hx);
    free(hy);
    CHECK_OK(duo_finalize());
    return test_summary("large");
}
