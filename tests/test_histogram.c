/*
 * test_histogram.c - duo_histogram and duo_histogram_async against
 * counts computed here with the formula of duo/primitives.h written out
 * afresh, and against its promises: values on bin edges, at lo (bin 0),
 * just below hi (the last bin), at hi and outside (dropped), NaN and
 * infinities (dropped), -0; f32, f64 and i32; 1, 7, 256 and 10000 bins
 * (the GPU's shared and global paths); sizes 0, 1 and primes.  The
 * counts plus the dropped add up to n.  Counts are poisoned first; bad
 * arguments fail and leave them untouched.
 */
#include <math.h>
#include <stdlib.h>

#include "test_util.h"

static test_rng rng;

/* The documented bin, or `bins` for a dropped value. */
static size_t ref_bin(double v, double lo, double hi, size_t bins)
{
    if (isnan(v) || v < lo || v >= hi)
        return bins;
    const double scale = (double)bins / (hi - lo);
    const volatile double d = v - lo; /* rounded, never fused */
    size_t b = (size_t)(d * scale);
    return b >= bins ? bins - 1 : b;
}

static double make_value(duo_dtype t, double lo, double hi, size_t bins)
{
    const uint64_t r = test_rng_u64(&rng);
    const double w = (hi - lo) / (double)bins;
    double v;
    switch (r % 8) {
    case 0: v = lo + w * (double)((r >> 8) % (bins + 1)); break; /* edges */
    case 1: v = (r >> 8) % 2 ? NAN : ((r >> 9) % 2 ? INFINITY : -INFINITY);
        break;
    case 2: v = (r >> 8) % 2 ? hi : nextafter(hi, lo); break;
    case 3: v = lo - 1.0 - (double)((r >> 8) % 5); break;
    case 4: v = (r >> 8) % 2 ? -0.0 : lo; break;
    default: v = lo + (hi - lo) * (test_rng_uniform(&rng) + 1.0) * 0.55 - 0.05 * (hi - lo);
    }
    if (t == DUO_F32)
        return (double)(float)v;
    if (t == DUO_I32)
        return isfinite(v) ? (double)(int32_t)floor(v) : 3.0;
    return v;
}

static void run_case(duo_dtype t, size_t n, double lo, double hi,
                     size_t bins, int async)
{
    test_set_context("type %d n=%zu [%g, %g) bins=%zu%s", (int)t, n, lo, hi,
                     bins, async ? " async" : "");
    const size_t size = duo_dtype_size(t);
    void *hx = test_xmalloc(n * size + 1);
    uint64_t *want = (uint64_t *)calloc(bins + 1, 8);
    for (size_t i = 0; i < n; ++i) {
        const double v = make_value(t, lo, hi, bins);
        if (t == DUO_F32)
            ((float *)hx)[i] = (float)v;
        else if (t == DUO_F64)
            ((double *)hx)[i] = v;
        else
            ((int32_t *)hx)[i] = (int32_t)v;
        want[ref_bin(v, lo, hi, bins)] += 1;
    }
    void *x = test_device_alloc(n * size + 1);
    uint64_t *counts = (uint64_t *)test_device_alloc(bins * 8 + 64);
    test_to_device(x, hx, n * size);
    CHECK_OK(duo_memset(counts, TEST_POISON_BYTE, bins * 8 + 64));
    if (async) {
        CHECK_OK(duo_histogram_async(t, n, x, lo, hi, bins, counts, NULL));
        CHECK_OK(duo_synchronize());
    } else {
        CHECK_OK(duo_histogram(t, n, x, lo, hi, bins, counts));
    }
    uint64_t *got = (uint64_t *)test_xmalloc(bins * 8 + 64);
    test_to_host(got, counts, bins * 8 + 64);
    size_t bad = 0, first = bins;
    uint64_t total = 0;
    for (size_t b = 0; b < bins; ++b) {
        total += got[b];
        if (got[b] != want[b]) {
            ++bad;
            if (first == bins)
                first = b;
        }
    }
    CHECK_MSG(bad == 0, "%zu bins differ, first bin %zu: got %llu, want "
              "%llu", bad, first,
              first < bins ? (unsigned long long)got[first] : 0ull,
              first < bins ? (unsigned long long)want[first] : 0ull);
    CHECK_EQ_U64(total + want[bins], n);
    size_t touched = 0;
    for (size_t i = bins * 8; i < bins * 8 + 64; ++i)
        touched += ((unsigned char *)got)[i] != TEST_POISON_BYTE;
    CHECK_MSG(touched == 0, "past the last bin written");
    free(hx);
    free(want);
    free(got);
    CHECK_OK(duo_free(x));
    CHECK_OK(duo_free(counts));
}

static void test_errors(void)
{
    test_set_context("errors");
    float *x = (float *)test_device_alloc(64 * 4);
    uint64_t *counts = (uint64_t *)test_device_alloc(16 * 8);
    CHECK_OK(duo_memset(x, 0, 64 * 4));
    CHECK_OK(duo_memset(counts, TEST_POISON_BYTE, 16 * 8));
    CHECK_STATUS(duo_histogram(DUO_I64, 64, x, 0, 1, 16, counts),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "type");
    CHECK_STATUS(duo_histogram(DUO_F32, 64, x, 1, 1, 16, counts),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "lo");
    CHECK_STATUS(duo_histogram(DUO_F32, 64, x, 0, INFINITY, 16, counts),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "hi");
    CHECK_STATUS(duo_histogram(DUO_F32, 64, x, -1e308, 1e308, 16, counts),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(duo_histogram(DUO_F32, 64, x, 0, 1, 0, counts),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "bins");
    CHECK_STATUS(duo_histogram(DUO_F32, 64, NULL, 0, 1, 16, counts),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "x");
    CHECK_STATUS(duo_histogram(DUO_F32, 64, x, 0, 1, 16, NULL),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "counts");
    CHECK_STATUS(duo_histogram(DUO_F32, 64, x, 0, 1, 16,
                               (uint64_t *)(void *)(x + 8)),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "counts");
    uint64_t h[16];
    test_to_host(h, counts, sizeof h);
    size_t touched = 0;
    for (int i = 0; i < 16; ++i)
        touched += h[i] != ~(uint64_t)0;
    CHECK_EQ_U64(touched, 0);
    CHECK_OK(duo_free(x));
    CHECK_OK(duo_free(counts));
}

int main(void)
{
    test_rng_seed(&rng, 0x6869737447ULL);
    test_init_or_skip();
    test_errors();
    const size_t sizes[] = {0, 1, 1009, 65537, 1000003};
    const size_t bin_counts[] = {1, 7, 256, 10000};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s)
        for (size_t b = 0; b < 4; ++b) {
            run_case(DUO_F32, sizes[s], -3.5, 11.25, bin_counts[b], 0);
            run_case(DUO_F64, sizes[s], 0.1, 0.7, bin_counts[b], 1);
            run_case(DUO_I32, sizes[s], -100.0, 1000.0, bin_counts[b],
                     (int)s % 2);
        }
    CHECK_OK(duo_finalize());
    return test_summary("histogram");
}
