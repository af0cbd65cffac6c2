/*
 * test_scan.c - duo_scan and duo_scan_async: inclusive and exclusive;
 * sum, min and max; every duo_dtype; in place and out of place.
 *
 *  - Integer scans and min/max scans are exact in any order: checked
 *    against a plain left-to-right scan.
 *  - Floating-point sums are checked (a) bit for bit against the order
 *    of src/scan_order.h restated here from its prose (run totals, the
 *    tree of block sums, each carry from the binary digits of its run's
 *    index; every backend must give these bits, so in a CUDA build this
 *    compares GPU bits with host bits), and (b) within
 *    the error bound of any order against a long double sum, so that a
 *    mistake shared by the library and the restatement still fails.
 *    The data spans many magnitudes, so orders differ in their bits.
 *  - NaN propagates through min and max; sums of -0 stay -0 (no identity
 *    is ever added).  Sizes 0, 1, around the run length 16 and its
 *    powers, primes.  Outputs poisoned; bad arguments fail and leave
 *    them untouched.  The openmp build runs it again with 3 threads.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

static test_rng rng;

#define RUN 16

/* ------------------------------------------------------------------ */
/* The order, restated from src/scan_order.h's prose: run totals, the
 * block sums level by level, each run's carry as the sums of the blocks
 * of its index's binary digits added from the left, then carry + local
 * value.  "none" is a flag. */

typedef struct {
    int none;
    double v;
} maybe;

static maybe plus(maybe a, maybe b)
{
    if (a.none)
        return b;
    if (b.none)
        return a;
    maybe r = {0, a.v + b.v};
    return r;
}

static void order_scan(const double *a, size_t n, int inclusive, double *y)
{
    const size_t m = (n + RUN - 1) / RUN;
    /* S[k][b]: the block of 2^k runs starting at run 2^k b. */
    double *S[64];
    size_t len[64];
    int levels = 1;
    S[0] = (double *)test_xmalloc((m + 1) * sizeof(double));
    len[0] = m;
    for (size_t j = 0; j < m; ++j) {
        double s = a[j * RUN];
        for (size_t i = j * RUN + 1; i < n && i < (j + 1) * RUN; ++i)
            s += a[i];
        S[0][j] = s;
    }
    while (len[levels - 1] >= 2) {
        const int k = levels++;
        len[k] = len[k - 1] / 2;
        S[k] = (double *)test_xmalloc(len[k] * sizeof(double));
        for (size_t b = 0; b < len[k]; ++b)
            S[k][b] = S[k - 1][2 * b] + S[k - 1][2 * b + 1];
    }
    for (size_t j = 0; j < m; ++j) {
        maybe c = {1, 0.0};
        for (int k = levels - 1; k >= 0; --k)
            if ((j >> k) & 1) {
                maybe blk = {0, S[k][(j >> k) - 1]};
                c = plus(c, blk);
            }
        maybe loc = {1, 0.0};
        for (size_t i = j * RUN; i < n && i < (j + 1) * RUN; ++i) {
            maybe v = {0, a[i]};
            if (!inclusive) {
                maybe r = plus(c, loc);
                y[i] = r.none ? 0.0 : r.v;
            }
            loc = plus(loc, v);
            if (inclusive)
                y[i] = plus(c, loc).v;
        }
    }
    for (int k = 0; k < levels; ++k)
        free(S[k]);
}

/* ------------------------------------------------------------------ */

static double get(duo_dtype t, const void *p, size_t i)
{
    switch (t) {
    case DUO_F32: return (double)((const float *)p)[i];
    case DUO_F64: return ((const double *)p)[i];
    default: return 0.0;
    }
}

static int64_t geti(duo_dtype t, const void *p, size_t i)
{
    switch (t) {
    case DUO_I32: return ((const int32_t *)p)[i];
    case DUO_I64: return ((const int64_t *)p)[i];
    default: return (int64_t)((const uint64_t *)p)[i];
    }
}

static const char *const type_names[] = {"f32", "f64", "i32", "i64", "u64"};
static const char *const op_names[] = {"sum", "min", "max"};

/* Plain left-to-right scan for the exact cases, in the result type; the
 * min/max rule is duo's (b replaces a when smaller/larger or NaN). */
static void plain_scan(duo_dtype t, duo_reduce_op op, const void *x,
                       size_t n, int inclusive, void *y)
{
    const size_t size = duo_dtype_size(t);
    unsigned char acc[8], id[8];
    for (size_t i = 0; i < n; ++i) {
        const unsigned char *xi = (const unsigned char *)x + i * size;
        if (i == 0) {
            memcpy(acc, xi, size);
            /* identity */
            if (t == DUO_F32) {
                float v = op == DUO_SUM ? 0.0f : op == DUO_MIN ? INFINITY : -INFINITY;
                memcpy(id, &v, 4);
            } else if (t == DUO_F64) {
                double v = op == DUO_SUM ? 0.0 : op == DUO_MIN ? INFINITY : -INFINITY;
                memcpy(id, &v, 8);
            } else if (t == DUO_I32) {
                int32_t v = op == DUO_SUM ? 0 : op == DUO_MIN ? INT32_MAX : INT32_MIN;
                memcpy(id, &v, 4);
            } else if (t == DUO_I64) {
                int64_t v = op == DUO_SUM ? 0 : op == DUO_MIN ? INT64_MAX : INT64_MIN;
                memcpy(id, &v, 8);
            } else {
                uint64_t v = op == DUO_MIN ? UINT64_MAX : 0;
                memcpy(id, &v, 8);
            }
            memcpy((unsigned char *)y, inclusive ? acc : id, size);
            continue;
        }
        if (!inclusive)
            memcpy((unsigned char *)y + i * size, acc, size);
#define COMBINE_T(T)                                                          \
    do {                                                                      \
        T a, b;                                                               \
        memcpy(&a, acc, sizeof a);                                            \
        memcpy(&b, xi, sizeof b);                                             \
        if (op == DUO_SUM)                                                    \
            a = (T)(a + b);                                                   \
        else if (op == DUO_MIN)                                               \
            a = (b < a || test_isnan_f64((double)b)) ? b : a;                 \
        else                                                                  \
            a = (b > a || test_isnan_f64((double)b)) ? b : a;                 \
        memcpy(acc, &a, sizeof a);                                            \
    } while (0)
        if (t == DUO_F32)
            COMBINE_T(float);
        else if (t == DUO_F64)
            COMBINE_T(double);
        else if (t == DUO_I32) {
            if (op == DUO_SUM) {
                uint32_t a, b;
                memcpy(&a, acc, 4);
                memcpy(&b, xi, 4);
                a += b;
                memcpy(acc, &a, 4);
            } else
                COMBINE_T(int32_t);
        } else if (t == DUO_I64) {
            if (op == DUO_SUM) {
                uint64_t a, b;
                memcpy(&a, acc, 8);
                memcpy(&b, xi, 8);
                a += b;
                memcpy(acc, &a, 8);
            } else
                COMBINE_T(int64_t);
        } else
            COMBINE_T(uint64_t);
#undef COMBINE_T
        if (inclusive)
            memcpy((unsigned char *)y + i * size, acc, size);
    }
}

static void fill(duo_dtype t, duo_reduce_op op, size_t n, void *x, int zeros)
{
    for (size_t i = 0; i < n; ++i) {
        const uint64_t r = test_rng_u64(&rng);
        switch (t) {
        case DUO_F32:
            ((float *)x)[i] = zeros ? -0.0f : (op != DUO_SUM && r % 997 == 0)
                                                  ? test_nan_f32()
                                                  : test_rng_wide_f(&rng, -20, 20);
            break;
        case DUO_F64:
            ((double *)x)[i] = zeros ? -0.0 : (op != DUO_SUM && r % 997 == 0)
                                                  ? test_nan_f64()
                                                  : test_rng_wide(&rng, -40, 40);
            break;
        case DUO_I32: ((int32_t *)x)[i] = (int32_t)(uint32_t)r; break;
        case DUO_I64: ((int64_t *)x)[i] = (int64_t)r; break;
        case DUO_U64: ((uint64_t *)x)[i] = r; break;
        }
    }
}

static void run_case(duo_dtype t, duo_reduce_op op, int inclusive, size_t n,
                     int in_place, int zeros)
{
    test_set_context("%s %s %s n=%zu%s%s", type_names[t], op_names[op],
                     inclusive ? "inclusive" : "exclusive", n,
                     in_place ? " in place" : "", zeros ? " -0" : "");
    const size_t size = duo_dtype_size(t), bytes = n * size;
    void *hx = test_xmalloc(bytes + 8);
    fill(t, op, n, hx, zeros);
    void *x = test_device_alloc(bytes + 8);
    void *y = in_place ? x : test_device_alloc(bytes + 64);
    test_to_device(x, hx, bytes);
    if (!in_place)
        CHECK_OK(duo_memset(y, TEST_POISON_BYTE, bytes + 64));
    const duo_scan_kind kind = inclusive ? DUO_INCLUSIVE : DUO_EXCLUSIVE;
    if (n % 3 == 0)
        CHECK_OK(duo_scan(kind, op, t, x, y, n));
    else {
        CHECK_OK(duo_scan_async(kind, op, t, x, y, n, NULL));
        CHECK_OK(duo_synchronize());
    }
    unsigned char *got = (unsigned char *)test_xmalloc(bytes + 64);
    test_to_host(got, y, bytes + (in_place ? 0 : 64));
    unsigned char *want = (unsigned char *)test_xmalloc(bytes + 8);
    const int float_sum = op == DUO_SUM && (t == DUO_F32 || t == DUO_F64);
    if (float_sum) {
        double *a = (double *)test_xmalloc((n + 1) * sizeof(double));
        double *r = (double *)test_xmalloc((n + 1) * sizeof(double));
        for (size_t i = 0; i < n; ++i)
            a[i] = get(t, hx, i);
        order_scan(a, n, inclusive, r);
        for (size_t i = 0; i < n; ++i) {
            if (t == DUO_F32) {
                float v = (float)r[i];
                memcpy(want + i * 4, &v, 4);
            } else
                memcpy(want + i * 8, &r[i], 8);
        }
        /* Error bound of any order: |y_i - s_i| <= n u sum|x| + |s_i| u_out. */
        long double s = 0.0L, abs_s = 0.0L;
        size_t bad = 0;
        const double u_out = t == DUO_F32 ? 0x1p-24 : 0x1p-53;
        for (size_t i = 0; i < n && !zeros; ++i) {
            const long double before = s, abs_before = abs_s;
            s += (long double)a[i];
            abs_s += fabsl((long double)a[i]);
            const long double ref = inclusive ? s : before;
            const long double abs_ref = inclusive ? abs_s : abs_before;
            const double g = get(t, got, i);
            const long double err = fabsl((long double)g - ref);
            if (err > (long double)n * 0x1p-53L * abs_ref +
                          fabsl(ref) * (long double)u_out * 2)
                ++bad;
        }
        CHECK_MSG(bad == 0, "%zu outputs outside the error bound", bad);
        free(a);
        free(r);
    } else {
        plain_scan(t, op, hx, n, inclusive, want);
    }
    size_t bad = 0, first = n;
    for (size_t i = 0; i < n; ++i)
        if (memcmp(got + i * size, want + i * size, size) != 0) {
            ++bad;
            if (first == n)
                first = i;
        }
    CHECK_MSG(bad == 0, "%zu outputs differ bitwise, first at %zu (got "
              "%.17g / %lld, want %.17g / %lld)", bad, first,
              first < n ? get(t, got, first) : 0.0,
              first < n ? (long long)geti(t, got, first) : 0,
              first < n ? get(t, want, first) : 0.0,
              first < n ? (long long)geti(t, want, first) : 0);
    if (!in_place) {
        size_t touched = 0;
        for (size_t i = bytes; i < bytes + 64; ++i)
            touched += got[i] != TEST_POISON_BYTE;
        CHECK_MSG(touched == 0, "y written past n");
    }
    free(hx);
    free(got);
    free(want);
    if (!in_place)
        CHECK_OK(duo_free(y));
    CHECK_OK(duo_free(x));
}

/* The restated order tells orders apart on this data: a left-to-right
 * sum differs from it somewhere (else the bit checks prove little). */
static void test_order_matters(void)
{
    test_set_context("order matters");
    const size_t n = 100003;
    double *a = (double *)test_xmalloc(n * sizeof(double));
    double *r = (double *)test_xmalloc(n * sizeof(double));
    for (size_t i = 0; i < n; ++i)
        a[i] = test_rng_wide(&rng, -40, 40);
    order_scan(a, n, 1, r);
    double s = 0.0;
    size_t differ = 0;
    for (size_t i = 0; i < n; ++i) {
        s += a[i];
        differ += s != r[i];
    }
    CHECK(differ > n / 10);
    free(a);
    free(r);
}

static void test_errors(void)
{
    test_set_context("errors");
    double *x = (double *)test_device_alloc(64 * 8);
    CHECK_OK(duo_memset(x, TEST_POISON_BYTE, 64 * 8));
    CHECK_STATUS(duo_scan((duo_scan_kind)7, DUO_SUM, DUO_F64, x, x + 32, 32),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "kind");
    CHECK_STATUS(duo_scan(DUO_INCLUSIVE, (duo_reduce_op)9, DUO_F64, x,
                          x + 32, 32),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "op");
    CHECK_STATUS(duo_scan(DUO_INCLUSIVE, DUO_SUM, (duo_dtype)11, x, x + 32,
                          32),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "type");
    CHECK_STATUS(duo_scan(DUO_INCLUSIVE, DUO_SUM, DUO_F64, NULL, x + 32, 32),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "x");
    CHECK_STATUS(duo_scan(DUO_INCLUSIVE, DUO_SUM, DUO_F64, x, NULL, 32),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "y");
    CHECK_STATUS(duo_scan(DUO_INCLUSIVE, DUO_SUM, DUO_F64, x, x + 1, 32),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "y");
    uint64_t h[64];
    test_to_host(h, x, sizeof h);
    size_t touched = 0;
    for (int i = 0; i < 64; ++i)
        touched += h[i] != ~(uint64_t)0;
    CHECK_EQ_U64(touched, 0);
    CHECK_OK(duo_scan(DUO_EXCLUSIVE, DUO_MIN, DUO_I32, NULL, NULL, 0));
    CHECK_OK(duo_free(x));
}

/* Float sums queued on two streams at once, three on each, without
 * waits between them: each stream's scans reuse the memory it keeps for
 * the published sums (on the GPU, two areas used in turn, each scan
 * clearing the one the scan before it used, so a stream's third scan
 * finds its first one's area cleared).  A scan longer than the one
 * before, which needs more of that memory, follows on each stream, and
 * a shorter one too.  Each result must be the order's. */
static void test_streams(void)
{
    test_set_context("float sums on two streams");
    const size_t n = 1048583, m = 300007;
    float *hx = (float *)test_xmalloc(n * sizeof(float));
    fill(DUO_F32, DUO_SUM, n, hx, 0);
    double *a = (double *)test_xmalloc(n * sizeof(double));
    double *want_n = (double *)test_xmalloc(n * sizeof(double));
    double *want_m = (double *)test_xmalloc(m * sizeof(double));
    for (size_t i = 0; i < n; ++i)
        a[i] = hx[i];
    order_scan(a, n, 1, want_n);
    order_scan(a, m, 1, want_m);
    float *x = (float *)test_device_alloc(n * sizeof(float));
    test_to_device(x, hx, n * sizeof(float));
    enum { kScans = 6 };
    float *y[kScans];
    for (int k = 0; k < kScans; ++k) {
        y[k] = (float *)test_device_alloc(n * sizeof(float));
        CHECK_OK(duo_memset(y[k], TEST_POISON_BYTE, n * sizeof(float)));
    }
    duo_stream sa = NULL, sb = NULL;
    CHECK_OK(duo_stream_create(&sa));
    CHECK_OK(duo_stream_create(&sb));
    /* Even k on a, odd k on b. */
    const size_t len[kScans] = {n, m, m, n, n, m};
    for (int k = 0; k < kScans; ++k)
        CHECK_OK(duo_scan_async(DUO_INCLUSIVE, DUO_SUM, DUO_F32, x, y[k],
                                len[k], k % 2 ? sb : sa));
    CHECK_OK(duo_stream_synchronize(sa));
    CHECK_OK(duo_stream_synchronize(sb));
    float *got = (float *)test_xmalloc(n * sizeof(float));
    for (int k = 0; k < kScans; ++k) {
        test_to_host(got, y[k], len[k] * sizeof(float));
        const double *want = len[k] == n ? want_n : want_m;
        size_t bad = 0;
        for (size_t i = 0; i < len[k]; ++i) {
            const float w = (float)want[i];
            bad += memcmp(&got[i], &w, sizeof w) != 0;
        }
        CHECK_EQ_U64(bad, 0);
    }
    CHECK_OK(duo_stream_destroy(sa));
    CHECK_OK(duo_stream_destroy(sb));
    for (int k = 0; k < kScans; ++k)
        CHECK_OK(duo_free(y[k]));
    CHECK_OK(duo_free(x));
    free(got);
    free(want_m);
    free(want_n);
    free(a);
    free(hx);
}

int main(void)
{
    test_rng_seed(&rng, 0x7363616EULL);
    test_init_or_skip();
    test_errors();
    test_order_matters();
    /* Around the tiles too: 2^8 runs (4096 elements) on the CPU and for
     * double on the GPU, 2^9 (8192) for float on the GPU. */
    const size_t sizes[] = {0,    1,    2,    15,   16,    17,    255,
                            256,  257,  4095, 4096, 4097,  8191,  8192,
                            8193, 16385, 65537, 300007};
    for (int t = DUO_F32; t <= DUO_U64; ++t)
        for (int op = DUO_SUM; op <= DUO_MAX; ++op)
            for (int inc = 0; inc < 2; ++inc)
                for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s)
                    run_case((duo_dtype)t, (duo_reduce_op)op, inc, sizes[s],
                             (int)(s + (size_t)op) % 3 == 1, 0);
    /* Floating-point sums over many tiles: 128 to 1024 of them, so that
     * carries take block sums of levels 5 and up above the tiles, which
     * the GPU publishes from the tiles that complete them. */
    run_case(DUO_F32, DUO_SUM, 1, 1048583, 0, 0);
    run_case(DUO_F32, DUO_SUM, 0, 4194319, 0, 0);
    run_case(DUO_F64, DUO_SUM, 0, 1048583, 1, 0);
    run_case(DUO_F32, DUO_SUM, 1, 1000, 0, 1);
    run_case(DUO_F64, DUO_SUM, 0, 70000, 1, 1);
    test_streams();
    CHECK_OK(duo_finalize());
    return test_summary("scan");
}
