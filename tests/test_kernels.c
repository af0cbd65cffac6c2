/*
 * test_kernels.c - kernels written once with DUO_KERNEL / DUO_FOR /
 * DUO_FOR_2D / DUO_FOR_3D, launched with DUO_LAUNCH / DUO_LAUNCH_ON, a
 * chain of launches and a stream-ordered reduction that each read what
 * the one before wrote, a block-level kernel (DUO_BLOCK_KERNEL, shared
 * memory and barriers), and user reductions from DUO_REDUCE_DEFINE,
 * checked against host references computed here.  Every output is
 * poisoned first, and the elements past the end (a guard zone) must stay
 * poisoned.
 */
#include <math.h>
#include <stdlib.h>

#include "test_util.h"

static test_rng rng;

/* Guard elements after every output array. */
#define GUARD 64

/* ------------------------------------------------------------------ */
/* Kernels                                                             */

DUO_KERNEL(saxpy, size_t n, float a, const float *x, const float *y,
           float *z)
{
    DUO_FOR(i, n)
        z[i] = a * x[i] + y[i];
}

DUO_KERNEL(fill2d, size_t ni, size_t nj, uint64_t *out)
{
    DUO_FOR_2D(i, j, ni, nj)
        out[i * nj + j] = ((uint64_t)i << 32) | (uint64_t)j;
}

DUO_KERNEL(fill3d, size_t ni, size_t nj, size_t nk, uint64_t *out)
{
    DUO_FOR_3D(i, j, k, ni, nj, nk)
        out[(i * nj + j) * nk + k] =
            ((uint64_t)i << 42) | ((uint64_t)j << 21) | (uint64_t)k;
}

/* A device helper called from a kernel with restrict-qualified pointers. */
DUO_DEVICE uint32_t mix32(uint32_t a, uint32_t b, size_t i)
{
    uint32_t h = (a * 2654435761u) ^ (b + (uint32_t)i * 40503u);
    return h ^ (h >> 15);
}

DUO_KERNEL(mix_kernel, size_t n, const uint32_t *DUO_RESTRICT a,
           const uint32_t *DUO_RESTRICT b, uint32_t *DUO_RESTRICT out)
{
    DUO_FOR(i, n)
        out[i] = mix32(a[i], b[i], i);
}

/* Two kernels queued on one stream: the second reads what the first
 * wrote, so it is right only if the stream runs them in order. */
DUO_KERNEL(iota3, size_t n, int64_t *out)
{
    DUO_FOR(i, n)
        out[i] = 3 * (int64_t)i - 7;
}

DUO_KERNEL(square_plus, size_t n, const int64_t *in, int64_t *out)
{
    DUO_FOR(i, n)
        out[i] = in[i] * in[i] + 1;
}

/* Each element comes from the opposite end of `in`, which the last
 * blocks of the launch before wrote: a launch that ran ahead of its
 * predecessor (the CUDA backend's early launch, kernel_cuda.h) would read
 * stale values.  Unsigned arithmetic wraps, on every backend alike. */
DUO_KERNEL(mirror_step, size_t n, uint64_t k, const uint64_t *in,
           uint64_t *out)
{
    DUO_FOR(i, n)
        out[i] = in[n - 1 - i] * 3u + k;
}

/* out = x + *sum, a device scalar that a reduction wrote just before. */
DUO_KERNEL(add_device_scalar, size_t n, const uint64_t *sum,
           const uint64_t *x, uint64_t *out)
{
    DUO_FOR(i, n)
        out[i] = x[i] + *sum;
}

/* A block-level kernel: blocks of BT_X x BT_Y threads share a tile in
 * DUO_SHARED memory.  Phase 1 loads the tile and keeps a per-thread value
 * in DUO_PRIVATE; after the barrier, phase 2 reads the tile in reverse
 * (what OTHER threads wrote) and phase 3 has thread 0 sum the whole tile. */
#define BT_X 16
#define BT_Y 8
#define BT_N (BT_X * BT_Y)

DUO_BLOCK_KERNEL(block_tiles, BT_X, BT_Y, size_t n, const int64_t *x,
                 int64_t *out, int64_t *sums)
{
    DUO_SHARED(int64_t, tile, BT_N);
    DUO_PRIVATE(int64_t, mine);
    const size_t block = DUO_BY * DUO_GRID_X + DUO_BX;
    DUO_THREADS {
        const size_t i = block * BT_N + DUO_TID;
        tile[DUO_TID] = i < n ? x[i] : 0;
        DUO_MY(mine) = (int64_t)(DUO_TY * 1000 + DUO_TX) +
                       (int64_t)(DUO_BLOCK_X * 1000000 + DUO_BLOCK_Y);
    }
    DUO_BARRIER;
    DUO_THREADS {
        const size_t i = block * BT_N + DUO_TID;
        if (i < n)
            out[i] = 3 * tile[BT_N - 1 - DUO_TID] + DUO_MY(mine);
    }
    DUO_THREADS {
        if (DUO_TID == 0) {
            int64_t sum = 0;
            for (size_t t = 0; t < BT_N; ++t)
                sum += tile[t];
            sums[block] = sum;
        }
    }
}
DUO_BLOCK_KERNEL_END

/* ------------------------------------------------------------------ */
/* User reductions: element functions of the index                      */

typedef struct red_args {
    uint64_t seed;
    uint64_t nan_at; /* index that yields NaN (float); n or more: none */
} red_args;

DUO_DEVICE uint64_t red_hash(uint64_t seed, size_t i)
{
    uint64_t z = seed + (uint64_t)i * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Integers in [-2^39, 2^39). */
DUO_DEVICE int64_t elem_i64(size_t i, red_args a)
{
    return (int64_t)(red_hash(a.seed, i) >> 24) - ((int64_t)1 << 39);
}

/* Full-range unsigned: the sum wraps modulo 2^64. */
DUO_DEVICE uint64_t elem_u64(size_t i, red_args a)
{
    return red_hash(a.seed, i);
}

DUO_DEVICE int32_t elem_i32(size_t i, red_args a)
{
    return (int32_t)(uint32_t)(red_hash(a.seed, i) >> 32);
}

/* Random sign, 53-bit mantissa, exponent in [-32, 31]: sums round. */
DUO_DEVICE double elem_f64(size_t i, red_args a)
{
    uint64_t h = red_hash(a.seed, i);
    double mant = 1.0 + (double)(h >> 12) * (1.0 / 4503599627370496.0);
    double v = ldexp(mant, (int)((h >> 1) & 63) - 32);
    return (h & 1) ? -v : v;
}

DUO_DEVICE float elem_f32(size_t i, red_args a)
{
    if ((uint64_t)i == a.nan_at)
        return NAN;
    uint64_t h = red_hash(a.seed, i);
    float mant = 1.0f + (float)(h >> 41) * (1.0f / 8388608.0f);
    float v = ldexpf(mant, (int)((h >> 1) & 31) - 16);
    return (h & 1) ? -v : v;
}

DUO_REDUCE_DEFINE(user_sum_i64, int64_t, DUO_SUM, elem_i64, red_args)
DUO_REDUCE_DEFINE(user_max_i64, int64_t, DUO_MAX, elem_i64, red_args)
DUO_REDUCE_DEFINE(user_sum_u64, uint64_t, DUO_SUM, elem_u64, red_args)
DUO_REDUCE_DEFINE(user_min_i32, int32_t, DUO_MIN, elem_i32, red_args)
DUO_REDUCE_DEFINE(user_sum_f64, double, DUO_SUM, elem_f64, red_args)
DUO_REDUCE_DEFINE(user_min_f32, float, DUO_MIN, elem_f32, red_args)
DUO_REDUCE_DEFINE(user_max_f32, float, DUO_MAX, elem_f32, red_args)

/* ------------------------------------------------------------------ */
/* Host references, written independently of the kernels above.         */

/* The same hash as red_hash, restated for the host. */
static uint64_t host_hash(uint64_t seed, size_t i)
{
    uint64_t state = seed + (uint64_t)i * 0x9E3779B97F4A7C15ULL -
                     0x9E3779B97F4A7C15ULL;
    return test_splitmix64(&state);
}

static uint32_t host_mix(uint32_t a, uint32_t b, size_t i)
{
    uint32_t h = (uint32_t)(a * 2654435761u);
    h ^= (uint32_t)(b + (uint32_t)((uint32_t)i * 40503u));
    return h ^ (h >> 15);
}

/* ------------------------------------------------------------------ */

static void test_saxpy(void)
{
    const size_t ns[] = {0, 1, 2, 31, 32, 33, 255, 256, 257, 1000003,
                         ((size_t)1 << 24) | 1};
    const size_t max = ns[sizeof ns / sizeof ns[0] - 1];
    float *x = (float *)test_xmalloc(max * sizeof(float));
    float *y = (float *)test_xmalloc(max * sizeof(float));
    float *z = (float *)test_xmalloc((max + GUARD) * sizeof(float));
    float *dx = (float *)test_device_alloc(max * sizeof(float));
    float *dy = (float *)test_device_alloc(max * sizeof(float));
    float *dz = (float *)test_device_alloc((max + GUARD) * sizeof(float));
    const float a = 1.7f;
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; ++t) {
        const size_t n = ns[t];
        test_set_context("saxpy n=%zu", n);
        for (size_t i = 0; i < n; ++i) {
            x[i] = test_rng_uniform_f(&rng);
            y[i] = test_rng_uniform_f(&rng);
        }
        test_to_device(dx, x, n * sizeof(float));
        test_to_device(dy, y, n * sizeof(float));
        CHECK_OK(duo_memset(dz, 0xFF, (n + GUARD) * sizeof(float)));
        CHECK_OK(DUO_LAUNCH(saxpy, n, n, a, dx, dy, dz));
        test_poison_f32(z, n + GUARD);
        test_to_host(z, dz, (n + GUARD) * sizeof(float));
        /*
         * a*x + y in float may be evaluated as one fused multiply-add
         * (one rounding: nvcc contracts by default, and so may a C
         * compiler) or as a rounded product plus a rounded sum (two
         * roundings: GCC in ISO C mode does not contract).  Both are
         * correct IEEE evaluations of the expression, so each element
         * must equal exactly one of the two; anything else is wrong.  The
         * product goes through a volatile so the host cannot fuse it.
         */
        size_t bad = 0;
        for (size_t i = 0; i < n; ++i) {
            const float fused = fmaf(a, x[i], y[i]);
            volatile float product = a * x[i];
            const float separate = product + y[i];
            const uint32_t got = test_bits_f32(z[i]);
            if (got != test_bits_f32(fused) && got != test_bits_f32(separate)) {
                if (bad++ < 5)
                    CHECK_MSG(0, "z[%zu] = %a, want %a (fma) or %a "
                              "(separate) for x=%a y=%a", i, (double)z[i],
                              (double)fused, (double)separate, (double)x[i],
                              (double)y[i]);
            }
        }
        CHECK_MSG(bad == 0, "%zu of %zu elements wrong", bad, n);
        for (size_t i = n; i < n + GUARD; ++i)
            CHECK_MSG(test_is_poison_f32(z[i]), "saxpy wrote z[%zu], past "
                      "n=%zu", i, n);
    }
    CHECK_OK(duo_free(dx));
    CHECK_OK(duo_free(dy));
    CHECK_OK(duo_free(dz));
    free(x);
    free(y);
    free(z);
    test_set_context("%s", "");
}

static void check_filled(const uint64_t *out, size_t ni, size_t nj,
                         size_t nk, int dims)
{
    size_t bad = 0;
    const size_t total = ni * nj * nk;
    for (size_t i = 0; i < ni; ++i)
        for (size_t j = 0; j < nj; ++j)
            for (size_t k = 0; k < nk; ++k) {
                const size_t at = (i * nj + j) * nk + k;
                const uint64_t want =
                    dims == 2 ? (((uint64_t)i << 32) | (uint64_t)j)
                              : (((uint64_t)i << 42) | ((uint64_t)j << 21) |
                                 (uint64_t)k);
                if (out[at] != want && bad++ < 5)
                    CHECK_MSG(0, "element (%zu,%zu,%zu) = 0x%llx, want "
                              "0x%llx%s", i, j, k,
                              (unsigned long long)out[at],
                              (unsigned long long)want,
                              out[at] == TEST_POISON_U64 ? " (not written)"
                                                         : "");
            }
    CHECK_MSG(bad == 0, "%zu of %zu elements wrong", bad, total);
    for (size_t g = total; g < total + GUARD; ++g)
        CHECK_MSG(out[g] == TEST_POISON_U64, "wrote element %zu past the "
                  "end (%zu elements)", g, total);
}

static void test_fill_2d_3d(void)
{
    /* Odd shapes, degenerate ones, and shapes long enough in y (2-D) or
     * z (3-D) that a GPU grid cannot cover them in one pass. */
    const size_t shapes2[][2] = {{1, 1},      {7, 33},     {33, 7},
                                 {1, 100000}, {100000, 1}, {1000, 1001},
                                 {600001, 3}, {0, 5},      {5, 0}};
    const size_t shapes3[][3] = {{3, 5, 7},      {1, 1, 100000},
                                 {65, 1, 3},     {1, 100000, 1},
                                 {100000, 1, 1}, {17, 19, 23},
                                 {140001, 1, 2}, {1, 270001, 1},
                                 {0, 3, 3},      {3, 0, 3},
                                 {3, 3, 0}};
    size_t max = 0;
    for (size_t s = 0; s < sizeof shapes2 / sizeof shapes2[0]; ++s)
        if (shapes2[s][0] * shapes2[s][1] > max)
            max = shapes2[s][0] * shapes2[s][1];
    for (size_t s = 0; s < sizeof shapes3 / sizeof shapes3[0]; ++s)
        if (shapes3[s][0] * shapes3[s][1] * shapes3[s][2] > max)
            max = shapes3[s][0] * shapes3[s][1] * shapes3[s][2];
    uint64_t *h = (uint64_t *)test_xmalloc((max + GUARD) * sizeof(uint64_t));
    uint64_t *d = (uint64_t *)test_device_alloc((max + GUARD) *
                                                sizeof(uint64_t));
    for (size_t s = 0; s < sizeof shapes2 / sizeof shapes2[0]; ++s) {
        const size_t ni = shapes2[s][0], nj = shapes2[s][1];
        const size_t bytes = (ni * nj + GUARD) * sizeof(uint64_t);
        test_set_context("DUO_FOR_2D %zu x %zu", ni, nj);
        for (size_t i = 0; i < ni * nj + GUARD; ++i)
            h[i] = TEST_POISON_U64;
        test_to_device(d, h, bytes);
        CHECK_OK(DUO_LAUNCH_2D(fill2d, ni, nj, ni, nj, d));
        for (size_t i = 0; i < ni * nj + GUARD; ++i)
            h[i] = 0; /* overwritten by the copy */
        test_to_host(h, d, bytes);
        check_filled(h, ni, nj, 1, 2);
    }
    for (size_t s = 0; s < sizeof shapes3 / sizeof shapes3[0]; ++s) {
        const size_t ni = shapes3[s][0], nj = shapes3[s][1],
                     nk = shapes3[s][2];
        const size_t bytes = (ni * nj * nk + GUARD) * sizeof(uint64_t);
        test_set_context("DUO_FOR_3D %zu x %zu x %zu", ni, nj, nk);
        for (size_t i = 0; i < ni * nj * nk + GUARD; ++i)
            h[i] = TEST_POISON_U64;
        test_to_device(d, h, bytes);
        CHECK_OK(DUO_LAUNCH_3D(fill3d, ni, nj, nk, ni, nj, nk, d));
        for (size_t i = 0; i < ni * nj * nk + GUARD; ++i)
            h[i] = 0;
        test_to_host(h, d, bytes);
        check_filled(h, ni, nj, nk, 3);
    }
    CHECK_OK(duo_free(d));
    free(h);
    test_set_context("%s", "");
}

static void test_restrict_helper(void)
{
    const size_t n = 100003;
    uint32_t *a = (uint32_t *)test_xmalloc(n * sizeof(uint32_t));
    uint32_t *b = (uint32_t *)test_xmalloc(n * sizeof(uint32_t));
    uint32_t *out = (uint32_t *)test_xmalloc((n + GUARD) * sizeof(uint32_t));
    uint32_t *da = (uint32_t *)test_device_alloc(n * sizeof(uint32_t));
    uint32_t *db = (uint32_t *)test_device_alloc(n * sizeof(uint32_t));
    uint32_t *dout = (uint32_t *)test_device_alloc((n + GUARD) *
                                                   sizeof(uint32_t));
    test_set_context("restrict kernel with a DUO_DEVICE helper");
    for (size_t i = 0; i < n; ++i) {
        a[i] = test_rng_u32(&rng);
        b[i] = test_rng_u32(&rng);
    }
    test_to_device(da, a, n * sizeof(uint32_t));
    test_to_device(db, b, n * sizeof(uint32_t));
    CHECK_OK(duo_memset(dout, 0xA5, (n + GUARD) * sizeof(uint32_t)));
    CHECK_OK(DUO_LAUNCH(mix_kernel, n, n, da, db, dout));
    memset(out, 0, (n + GUARD) * sizeof(uint32_t));
    test_to_host(out, dout, (n + GUARD) * sizeof(uint32_t));
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i)
        if (out[i] != host_mix(a[i], b[i], i) && bad++ < 5)
            CHECK_MSG(0, "out[%zu] = 0x%08x, want 0x%08x", i,
                      (unsigned)out[i], (unsigned)host_mix(a[i], b[i], i));
    CHECK_MSG(bad == 0, "%zu of %zu elements wrong", bad, n);
    for (size_t i = n; i < n + GUARD; ++i)
        CHECK(out[i] == 0xA5A5A5A5u);
    /* The helper is callable from host code too. */
    CHECK(mix32(a[0], b[0], 0) == host_mix(a[0], b[0], 0));
    CHECK_OK(duo_free(da));
    CHECK_OK(duo_free(db));
    CHECK_OK(duo_free(dout));
    free(a);
    free(b);
    free(out);
    test_set_context("%s", "");
}

static void test_launch_on_stream(void)
{
    test_set_context("DUO_LAUNCH_ON a created stream");
    duo_stream s = NULL;
    if (!CHECK_OK(duo_stream_create(&s)))
        return;
    const size_t n = 300007;
    int64_t *d1 = (int64_t *)test_device_alloc(n * sizeof(int64_t));
    int64_t *d2 = (int64_t *)test_device_alloc(n * sizeof(int64_t));
    int64_t *h = NULL;
    if (!CHECK_OK(duo_malloc_host((void **)&h, n * sizeof(int64_t))))
        return;
    for (size_t i = 0; i < n; ++i)
        h[i] = TEST_POISON_I64;
    CHECK_OK(DUO_LAUNCH_ON(s, iota3, n, n, d1));
    CHECK_OK(DUO_LAUNCH_ON(s, square_plus, n, n, d1, d2));
    CHECK_OK(duo_memcpy_async(h, d2, n * sizeof(int64_t), DUO_DEVICE_TO_HOST,
                              s));
    CHECK_OK(duo_stream_synchronize(s));
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        const int64_t v = 3 * (int64_t)i - 7;
        if (h[i] != v * v + 1 && bad++ < 5)
            CHECK_MSG(0, "h[%zu] = %lld, want %lld", i, (long long)h[i],
                      (long long)(v * v + 1));
    }
    CHECK_MSG(bad == 0, "%zu of %zu elements wrong", bad, n);

    /* n = 0 on a stream: a valid, empty launch. */
    CHECK_OK(DUO_LAUNCH_ON(s, iota3, 0, (size_t)0, d1));
    CHECK_OK(duo_stream_synchronize(s));
    CHECK_OK(duo_stream_destroy(s));
    CHECK_OK(duo_free(d1));
    CHECK_OK(duo_free(d2));
    CHECK_OK(duo_free_host(h));
    test_set_context("%s", "");
}

/* A chain of launches and stream-ordered reductions, each reading what
 * the one before wrote across the whole array (several waves of blocks
 * on a GPU), against the same chain on the host. */
static void test_dependent_launches(void)
{
    enum { STEPS = 40 };
    const size_t n = 4194319; /* prime; 16384 blocks of 256 and more */
    test_set_context("chain of %d dependent launches, n = %zu", STEPS + 2, n);
    uint64_t *h = (uint64_t *)test_xmalloc(n * sizeof(uint64_t));
    uint64_t *ref = (uint64_t *)test_xmalloc(n * sizeof(uint64_t));
    uint64_t *tmp = (uint64_t *)test_xmalloc(n * sizeof(uint64_t));
    uint64_t *d[2];
    d[0] = (uint64_t *)test_device_alloc(n * sizeof(uint64_t));
    d[1] = (uint64_t *)test_device_alloc(n * sizeof(uint64_t));
    uint64_t *sum = (uint64_t *)test_device_alloc(sizeof(uint64_t));
    for (size_t i = 0; i < n; ++i)
        ref[i] = test_rng_u64(&rng);
    CHECK_OK(duo_memcpy(d[0], ref, n * sizeof(uint64_t),
                        DUO_HOST_TO_DEVICE));
    CHECK_OK(duo_memset(d[1], TEST_POISON_BYTE, n * sizeof(uint64_t)));

    /* Device: d[1] = mirror(d[0]), d[0] = mirror(d[1]), ..., then the sum
     * of the last into *sum, d = last + *sum, and one more mirror. */
    int cur = 0;
    for (uint64_t k = 1; k <= STEPS; ++k, cur ^= 1)
        CHECK_OK(DUO_LAUNCH(mirror_step, n, n, k, d[cur], d[cur ^ 1]));
    CHECK_OK(duo_reduce_async(DUO_SUM, DUO_U64, d[cur], n, sum, NULL));
    CHECK_OK(DUO_LAUNCH(add_device_scalar, n, n, sum, d[cur], d[cur ^ 1]));
    CHECK_OK(DUO_LAUNCH(mirror_step, n, n, (uint64_t)STEPS + 1, d[cur ^ 1],
                        d[cur]));

    /* Host reference. */
    for (uint64_t k = 1; k <= STEPS; ++k) {
        for (size_t i = 0; i < n; ++i)
            tmp[i] = ref[n - 1 - i] * 3u + k;
        memcpy(ref, tmp, n * sizeof(uint64_t));
    }
    uint64_t total = 0;
    for (size_t i = 0; i < n; ++i)
        total += ref[i];
    for (size_t i = 0; i < n; ++i)
        tmp[i] = ref[n - 1 - i] + total;
    for (size_t i = 0; i < n; ++i)
        ref[i] = tmp[i] * 3u + ((uint64_t)STEPS + 1);

    for (size_t i = 0; i < n; ++i)
        h[i] = TEST_POISON_U64;
    CHECK_OK(duo_memcpy(h, d[cur], n * sizeof(uint64_t),
                        DUO_DEVICE_TO_HOST));
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i)
        if (h[i] != ref[i] && bad++ < 5)
            CHECK_MSG(0, "element %zu = %llu, want %llu", i,
                      (unsigned long long)h[i], (unsigned long long)ref[i]);
    CHECK_MSG(bad == 0, "%zu of %zu elements wrong", bad, n);
    CHECK_OK(duo_free(d[0]));
    CHECK_OK(duo_free(d[1]));
    CHECK_OK(duo_free(sum));
    free(h);
    free(ref);
    free(tmp);
    test_set_context("%s", "");
}

static void test_block_kernel(void)
{
    const size_t grids[][2] = {{1, 1}, {7, 5}, {3, 1}, {1, 9}, {0, 4},
                               {4, 0}};
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; ++g) {
        const size_t gx = grids[g][0], gy = grids[g][1];
        const size_t blocks = gx * gy;
        /* The last tile is partial (when there is one). */
        const size_t n = blocks > 0 ? blocks * BT_N - 37 : 0;
        const size_t cap = (blocks > 0 ? blocks : 1) * BT_N + GUARD;
        test_set_context("DUO_BLOCK_KERNEL grid %zu x %zu", gx, gy);
        int64_t *x = (int64_t *)test_xmalloc(cap * sizeof(int64_t));
        int64_t *out = (int64_t *)test_xmalloc(cap * sizeof(int64_t));
        int64_t *sums = (int64_t *)test_xmalloc(cap * sizeof(int64_t));
        for (size_t i = 0; i < cap; ++i)
            x[i] = test_rng_range(&rng, -1000000, 1000000);
        int64_t *dx = (int64_t *)test_device_alloc(cap * sizeof(int64_t));
        int64_t *dout = (int64_t *)test_device_alloc(cap * sizeof(int64_t));
        int64_t *dsums = (int64_t *)test_device_alloc(cap * sizeof(int64_t));
        test_to_device(dx, x, cap * sizeof(int64_t));
        CHECK_OK(duo_memset(dout, 0x5A, cap * sizeof(int64_t)));
        CHECK_OK(duo_memset(dsums, 0x5A, cap * sizeof(int64_t)));
        duo_stream s = NULL;
        if (g % 2 == 1)
            CHECK_OK(duo_stream_create(&s));
        CHECK_OK(DUO_LAUNCH_BLOCKS_ON(s, block_tiles, gx, gy, n, dx, dout,
                                      dsums));
        CHECK_OK(duo_stream_synchronize(s));
        test_to_host(out, dout, cap * sizeof(int64_t));
        test_to_host(sums, dsums, cap * sizeof(int64_t));
        size_t bad = 0;
        for (size_t b = 0; b < blocks; ++b) {
            int64_t sum = 0;
            for (size_t t = 0; t < BT_N; ++t) {
                const size_t i = b * BT_N + t;
                sum += i < n ? x[i] : 0;
                if (i >= n)
                    continue;
                const size_t r = b * BT_N + (BT_N - 1 - t);
                const int64_t want = 3 * (r < n ? x[r] : 0) +
                                     (int64_t)((t / BT_X) * 1000 + t % BT_X) +
                                     (int64_t)(BT_X * 1000000 + BT_Y);
                if (out[i] != want && bad++ < 3)
                    CHECK_MSG(0, "block %zu thread %zu: out[%zu] = %lld, "
                              "want %lld", b, t, i, (long long)out[i],
                              (long long)want);
            }
            if (sums[b] != sum && bad++ < 3)
                CHECK_MSG(0, "block %zu: sum %lld, want %lld", b,
                          (long long)sums[b], (long long)sum);
        }
        CHECK_MSG(bad == 0, "%zu wrong values", bad);
        for (size_t i = n; i < cap; ++i)
            CHECK_MSG(out[i] == TEST_POISON_I64, "out[%zu] written, n = %zu",
                      i, n);
        for (size_t b = blocks; b < cap; ++b)
            CHECK_MSG(sums[b] == TEST_POISON_I64, "sums[%zu] written, %zu "
                      "blocks", b, blocks);
        CHECK_OK(duo_stream_destroy(s));
        CHECK_OK(duo_free(dx));
        CHECK_OK(duo_free(dout));
        CHECK_OK(duo_free(dsums));
        free(x);
        free(out);
        free(sums);
    }
    /* The default stream, and the launch refusing before duo_init is
     * covered by test_runtime; here just DUO_LAUNCH_BLOCKS itself. */
    test_set_context("DUO_LAUNCH_BLOCKS");
    int64_t *d = (int64_t *)test_device_alloc(2 * BT_N * sizeof(int64_t));
    CHECK_OK(DUO_LAUNCH_BLOCKS(block_tiles, 1, 1, (size_t)0, d, d + BT_N,
                               d + BT_N));
    int64_t first = TEST_POISON_I64;
    test_to_host(&first, d + BT_N, sizeof first);
    CHECK_EQ_I64(first, 0); /* empty tile: sum 0 */
    CHECK_OK(duo_free(d));
    test_set_context("%s", "");
}

/* Neumaier-compensated sum in long double: within a few units of 2^-64
 * relative of the exact sum. */
static long double exact_sum(const double *x, size_t n, long double *abs_sum)
{
    long double s = 0.0L, c = 0.0L, a = 0.0L;
    for (size_t i = 0; i < n; ++i) {
        const long double v = (long double)x[i];
        const long double t = s + v;
        if (fabsl(s) >= fabsl(v))
            c += (s - t) + v;
        else
            c += (v - t) + s;
        s = t;
        a += fabsl(v);
    }
    *abs_sum = a;
    return s + c;
}

static void test_user_reductions(void)
{
    const size_t ns[] = {0, 1, 2, 33, 1000003, 5000011};
    const size_t max = ns[sizeof ns / sizeof ns[0] - 1];
    double *xs = (double *)test_xmalloc(max * sizeof(double));
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; ++t) {
        const size_t n = ns[t];
        red_args args;
        args.seed = test_rng_u64(&rng);
        args.nan_at = UINT64_MAX;
        test_set_context("user reductions n=%zu", n);

        /* Host references from host_hash, not from the device helpers. */
        int64_t sum_i64 = 0, max_i64 = INT64_MIN;
        uint64_t sum_u64 = 0;
        int32_t min_i32 = INT32_MAX;
        float min_f32 = INFINITY, max_f32 = -INFINITY;
        for (size_t i = 0; i < n; ++i) {
            const uint64_t h = host_hash(args.seed, i);
            const int64_t vi = (int64_t)(h >> 24) - ((int64_t)1 << 39);
            sum_i64 += vi;
            if (vi > max_i64)
                max_i64 = vi;
            sum_u64 += h;
            const int32_t v32 = (int32_t)(uint32_t)(h >> 32);
            if (v32 < min_i32)
                min_i32 = v32;
            const double md = 1.0 + (double)(h >> 12) / 4503599627370496.0;
            const double vd = ldexp(md, (int)((h >> 1) & 63) - 32);
            xs[i] = (h & 1) ? -vd : vd;
            const float mf = 1.0f + (float)(h >> 41) / 8388608.0f;
            float vf = ldexpf(mf, (int)((h >> 1) & 31) - 16);
            vf = (h & 1) ? -vf : vf;
            if (vf < min_f32)
                min_f32 = vf;
            if (vf > max_f32)
                max_f32 = vf;
        }
        long double abs_sum = 0.0L;
        const long double exact = exact_sum(xs, n, &abs_sum);

        for (int run = 0; run < 2; ++run) {
            static int64_t prev_sum_i64, prev_max_i64;
            static uint64_t prev_sum_u64;
            static int32_t prev_min_i32;
            static double prev_sum_f64;
            static float prev_min_f32;
            int64_t r_sum_i64 = TEST_POISON_I64, r_max_i64 = TEST_POISON_I64;
            uint64_t r_sum_u64 = TEST_POISON_U64;
            int32_t r_min_i32 = TEST_POISON_I32;
            double r_sum_f64;
            float r_min_f32;
            test_poison_f64(&r_sum_f64, 1);
            test_poison_f32(&r_min_f32, 1);
            test_set_context("user reductions n=%zu run %d", n, run);

            CHECK_OK(user_sum_i64(n, args, &r_sum_i64));
            CHECK_EQ_I64(r_sum_i64, sum_i64);
            CHECK_OK(user_max_i64(n, args, &r_max_i64));
            CHECK_EQ_I64(r_max_i64, max_i64); /* n = 0: INT64_MIN */
            CHECK_OK(user_sum_u64(n, args, &r_sum_u64));
            CHECK_EQ_U64(r_sum_u64, sum_u64);
            CHECK_OK(user_min_i32(n, args, &r_min_i32));
            CHECK_EQ_I64(r_min_i32, min_i32); /* n = 0: INT32_MAX */
            CHECK_OK(user_min_f32(n, args, &r_min_f32));
            CHECK_BITS_F32(r_min_f32, min_f32); /* n = 0: +inf */

            CHECK_OK(user_sum_f64(n, args, &r_sum_f64));
            CHECK(!test_is_poison_f64(r_sum_f64));
            if (n == 0)
                CHECK_BITS_F64(r_sum_f64, 0.0);
            /* Any order of n - 1 additions: |error| <= (n-1) u sum|x|,
             * u = 2^-53; plus the reference's own error (long double,
             * compensated: far below 2^-60 relative to sum|x|). */
            const double tol = (double)((long double)(n > 0 ? n - 1 : 0) *
                                            ldexpl(1.0L, -53) * abs_sum +
                                        ldexpl(1.0L, -60) * abs_sum);
            CHECK_NEAR(r_sum_f64, (double)exact, tol);

            if (run == 1) {
                CHECK_EQ_I64(r_sum_i64, prev_sum_i64);
                CHECK_EQ_I64(r_max_i64, prev_max_i64);
                CHECK_EQ_U64(r_sum_u64, prev_sum_u64);
                CHECK_EQ_I64(r_min_i32, prev_min_i32);
                CHECK_BITS_F64(r_sum_f64, prev_sum_f64);
                CHECK_BITS_F32(r_min_f32, prev_min_f32);
            }
            prev_sum_i64 = r_sum_i64;
            prev_max_i64 = r_max_i64;
            prev_sum_u64 = r_sum_u64;
            prev_min_i32 = r_min_i32;
            prev_sum_f64 = r_sum_f64;
            prev_min_f32 = r_min_f32;
        }

        float r_max_f32;
        test_poison_f32(&r_max_f32, 1);
        CHECK_OK(user_max_f32(n, args, &r_max_f32));
        CHECK_BITS_F32(r_max_f32, max_f32); /* n = 0: -inf */

        /* NaN propagates through min and max, wherever it is. */
        if (n > 0) {
            const size_t at[] = {0, n / 2, n - 1};
            for (int k = 0; k < 3; ++k) {
                red_args with_nan = args;
                with_nan.nan_at = at[k];
                test_set_context("user min/max n=%zu NaN at %zu", n, at[k]);
                float r;
                test_poison_f32(&r, 1);
                CHECK_OK(user_min_f32(n, with_nan, &r));
                CHECK(test_isnan_f32(r) && !test_is_poison_f32(r));
                test_poison_f32(&r, 1);
                CHECK_OK(user_max_f32(n, with_nan, &r));
                CHECK(test_isnan_f32(r) && !test_is_poison_f32(r));
            }
        }
    }
    free(xs);

    /* A NULL result is refused, naming the reduction. */
    test_set_context("user reduction errors");
    red_args args;
    args.seed = 1;
    args.nan_at = UINT64_MAX;
    CHECK_STATUS(user_sum_i64(10, args, NULL), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "user_sum_i64");
    CHECK_STATUS(user_min_f32(10, args, NULL), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "user_min_f32");
    test_set_context("%s", "");
}

int main(void)
{
    test_rng_seed(&rng, 0x6B65726E656CULL);
    test_init_or_skip();
    double t0 = test_seconds();
    test_saxpy();
    test_fill_2d_3d();
    test_restrict_helper();
    test_launch_on_stream();
    test_dependent_launches();
    test_block_kernel();
    test_user_reductions();
    CHECK_OK(duo_synchronize());
    CHECK_OK(duo_finalize());
    printf("kernels: %.2f s\n", test_seconds() - t0);
    return test_summary("kernels");
}
