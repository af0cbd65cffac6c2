/*
 * test_memory.c - duo_malloc / duo_free / duo_malloc_host /
 * duo_free_host, duo_memcpy of every kind, duo_memset, streams with
 * duo_memcpy_async, and the error paths (bad arguments write nothing,
 * allocation failure leaves the pointer alone and the library usable).
 */
#include <stdlib.h>

#include "test_util.h"

static test_rng rng;

/* Odd sizes, powers of two and their neighbours, and a prime. */
static const size_t sizes[] = {1, 2, 3, 7, 17, 255, 256, 257, 4099, 65537,
                               1000003};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* Index of the first byte where a and b differ, or `bytes`. */
static size_t first_diff(const unsigned char *a, const unsigned char *b,
                         size_t bytes)
{
    for (size_t i = 0; i < bytes; ++i)
        if (a[i] != b[i])
            return i;
    return bytes;
}

#define CHECK_SAME_BYTES(got, want, bytes)                                    \
    do {                                                                      \
        size_t at_ = first_diff((const unsigned char *)(got),                 \
                                (const unsigned char *)(want), (bytes));      \
        CHECK_MSG(at_ == (bytes), "%s == %s over %zu bytes: first "           \
                  "difference at byte %zu (got 0x%02x, want 0x%02x)", #got,   \
                  #want, (size_t)(bytes), at_,                                \
                  at_ < (bytes) ? ((const unsigned char *)(got))[at_] : 0u,   \
                  at_ < (bytes) ? ((const unsigned char *)(want))[at_] : 0u); \
    } while (0)

static void test_zero_and_null(void)
{
    test_set_context("zero sizes and NULL");
    void *p = TEST_POISON_PTR;
    CHECK_OK(duo_malloc(&p, 0));
    CHECK_MSG(p == NULL, "duo_malloc of 0 bytes gives NULL: got %p", p);
    p = TEST_POISON_PTR;
    CHECK_OK(duo_malloc_host(&p, 0));
    CHECK_MSG(p == NULL, "duo_malloc_host of 0 bytes gives NULL: got %p", p);
    CHECK_OK(duo_free(NULL));
    CHECK_OK(duo_free_host(NULL));
    CHECK_OK(duo_stream_destroy(NULL));

    const duo_copy_kind kinds[] = {DUO_HOST_TO_DEVICE, DUO_DEVICE_TO_HOST,
                                   DUO_DEVICE_TO_DEVICE, DUO_HOST_TO_HOST};
    for (int k = 0; k < 4; ++k) {
        CHECK_OK(duo_memcpy(NULL, NULL, 0, kinds[k]));
        CHECK_OK(duo_memcpy_async(NULL, NULL, 0, kinds[k], NULL));
    }
    CHECK_OK(duo_memset(NULL, 0xAB, 0));

    /* One byte, device and pinned. */
    unsigned char one = 0x3C, back = 0;
    unsigned char *d = NULL, *h = NULL;
    if (CHECK_OK(duo_malloc((void **)&d, 1)) && d != NULL) {
        test_to_device(d, &one, 1);
        test_to_host(&back, d, 1);
        CHECK_EQ_U64(back, 0x3C);
        CHECK_OK(duo_free(d));
    }
    if (CHECK_OK(duo_malloc_host((void **)&h, 1)) && h != NULL) {
        h[0] = 0x5D;
        CHECK_EQ_U64(h[0], 0x5D);
        CHECK_OK(duo_free_host(h));
    }
    test_set_context("%s", "");
}

/* src -> device -> device -> pinned -> plain host, every copy into
 * poisoned memory, for every size and some odd offsets.  The device and
 * pinned buffers are allocated for each case at exactly the (odd) size
 * the copies need. */
static void test_copies(void)
{
    const size_t max = sizes[NSIZES - 1] + 64;
    unsigned char *src = (unsigned char *)test_xmalloc(max);
    unsigned char *out = (unsigned char *)test_xmalloc(max);
    const size_t offsets[] = {0, 1, 3, 13};
    for (size_t si = 0; si < NSIZES; ++si) {
        for (size_t oi = 0; oi < 4; ++oi) {
            const size_t n = sizes[si], off = offsets[oi];
            /* d1: [off, off + n); d2: [2 off, 2 off + n); pinned: like d1. */
            const size_t n1 = off + n, n2 = 2 * off + n;
            unsigned char *d1 = NULL, *d2 = NULL, *pinned = NULL;
            test_set_context("memcpy size %zu offset %zu", n, off);
            if (!CHECK_OK(duo_malloc((void **)&d1, n1)) ||
                !CHECK_OK(duo_malloc((void **)&d2, n2)) ||
                !CHECK_OK(duo_malloc_host((void **)&pinned, n1)) ||
                d1 == NULL || d2 == NULL || pinned == NULL)
                break;
            test_rng_bytes(&rng, src, max);
            /* Destinations are poisoned (0xFF) before every copy. */
            CHECK_OK(duo_memset(d1, 0xFF, n1));
            CHECK_OK(duo_memset(d2, 0xFF, n2));
            test_poison_bytes(pinned, n1);
            test_poison_bytes(out, max);

            CHECK_OK(duo_memcpy(d1 + off, src + off, n, DUO_HOST_TO_DEVICE));
            CHECK_OK(duo_memcpy(d2 + 2 * off, d1 + off, n,
                                DUO_DEVICE_TO_DEVICE));
            CHECK_OK(duo_memcpy(pinned + off, d2 + 2 * off, n,
                                DUO_DEVICE_TO_HOST));
            CHECK_SAME_BYTES(pinned + off, src + off, n);
            CHECK_OK(duo_memcpy(out, pinned + off, n, DUO_HOST_TO_HOST));
            CHECK_SAME_BYTES(out, src + off, n);
            /* Nothing beyond the copy was written. */
            for (size_t i = n; i < max; ++i)
                if (out[i] != 0xFF) {
                    CHECK_MSG(0, "H2H wrote byte %zu beyond %zu", i, n);
                    break;
                }
            for (size_t i = 0; i < off; ++i)
                CHECK_MSG(pinned[i] == 0xFF, "D2H wrote byte %zu before "
                          "offset %zu", i, off);
            /* And the device copy has nothing outside [2off, 2off + n). */
            test_poison_bytes(out, max);
            test_to_host(out, d2, n2);
            for (size_t i = 0; i < n2; ++i) {
                int inside = i >= 2 * off;
                unsigned want = inside ? src[i - off] : 0xFFu;
                if (out[i] != want) {
                    CHECK_MSG(0, "device byte %zu is 0x%02x, want 0x%02x", i,
                              out[i], want);
                    break;
                }
            }
            ++test_checks;
            CHECK_OK(duo_free(d1));
            CHECK_OK(duo_free(d2));
            CHECK_OK(duo_free_host(pinned));
        }
    }
    free(src);
    free(out);
    test_set_context("%s", "");
}

static void test_memset(void)
{
    const size_t max = 65537 + 64;
    unsigned char *pattern = (unsigned char *)test_xmalloc(max);
    unsigned char *out = (unsigned char *)test_xmalloc(max);
    unsigned char *d = (unsigned char *)test_device_alloc(max);
    const int values[] = {0, 0xAB, -1, 0x1CD, 0x7F};
    const size_t lens[] = {1, 2, 3, 31, 33, 255, 4099, 65537};
    const size_t offsets[] = {0, 1, 3, 7, 17};
    for (size_t vi = 0; vi < sizeof values / sizeof values[0]; ++vi)
        for (size_t li = 0; li < sizeof lens / sizeof lens[0]; ++li)
            for (size_t oi = 0; oi < sizeof offsets / sizeof offsets[0];
                 ++oi) {
                const int v = values[vi];
                const size_t len = lens[li], off = offsets[oi];
                const unsigned char want = (unsigned char)v;
                test_set_context("memset value %d length %zu offset %zu", v,
                                 len, off);
                test_rng_bytes(&rng, pattern, max);
                test_to_device(d, pattern, max);
                CHECK_OK(duo_memset(d + off, v, len));
                test_poison_bytes(out, max);
                test_to_host(out, d, max);
                size_t bad = max;
                for (size_t i = 0; i < max && bad == max; ++i) {
                    int inside = i >= off && i < off + len;
                    if (out[i] != (inside ? want : pattern[i]))
                        bad = i;
                }
                CHECK_MSG(bad == max, "byte %zu is 0x%02x, want 0x%02x", bad,
                          bad < max ? out[bad] : 0,
                          bad < max ? (bad >= off && bad < off + len
                                           ? want
                                           : pattern[bad])
                                    : 0);
            }
    CHECK_OK(duo_free(d));
    free(pattern);
    free(out);
    test_set_context("%s", "");
}

static void test_streams(void)
{
    test_set_context("streams");
    duo_stream s[2] = {NULL, NULL};
    CHECK_STATUS(duo_stream_create(NULL), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "duo_stream_create");
    CHECK_CONTAINS_WORD(duo_last_error(), "stream");
    if (!CHECK_OK(duo_stream_create(&s[0])) ||
        !CHECK_OK(duo_stream_create(&s[1]))) {
        duo_stream_destroy(s[0]);
        return;
    }
    CHECK(s[0] != NULL && s[1] != NULL && s[0] != s[1]);

    const size_t n = ((size_t)1 << 20) + 13;
    unsigned char *src[3], *dst[3], *dev[3], *dev2[3];
    for (int k = 0; k < 3; ++k) {
        src[k] = dst[k] = NULL;
        CHECK_OK(duo_malloc_host((void **)&src[k], n));
        CHECK_OK(duo_malloc_host((void **)&dst[k], n));
        dev[k] = (unsigned char *)test_device_alloc(n);
        dev2[k] = (unsigned char *)test_device_alloc(n);
        if (src[k] == NULL || dst[k] == NULL)
            return;
        test_rng_bytes(&rng, src[k], n);
        test_poison_bytes(dst[k], n);
    }
    /* Queue everything first, on streams 0, 1 and the NULL stream, then
     * wait; each stream's copies run in order. */
    for (int k = 0; k < 3; ++k) {
        duo_stream st = k < 2 ? s[k] : NULL;
        CHECK_OK(duo_memcpy_async(dev[k], src[k], n, DUO_HOST_TO_DEVICE, st));
        CHECK_OK(duo_memcpy_async(dev2[k], dev[k], n, DUO_DEVICE_TO_DEVICE,
                                  st));
        CHECK_OK(duo_memcpy_async(dst[k], dev2[k], n, DUO_DEVICE_TO_HOST, st));
    }
    for (int k = 0; k < 3; ++k) {
        CHECK_OK(duo_stream_synchronize(k < 2 ? s[k] : NULL));
        test_set_context("stream %d", k);
        CHECK_SAME_BYTES(dst[k], src[k], n);
    }
    /* Host to host on a stream. */
    test_poison_bytes(dst[0], n);
    CHECK_OK(duo_memcpy_async(dst[0], src[1], n, DUO_HOST_TO_HOST, s[1]));
    CHECK_OK(duo_stream_synchronize(s[1]));
    CHECK_SAME_BYTES(dst[0], src[1], n);
    CHECK_OK(duo_synchronize());

    test_set_context("streams");
    CHECK_OK(duo_stream_destroy(s[0]));
    CHECK_OK(duo_stream_destroy(s[1]));
    for (int k = 0; k < 3; ++k) {
        CHECK_OK(duo_free_host(src[k]));
        CHECK_OK(duo_free_host(dst[k]));
        CHECK_OK(duo_free(dev[k]));
        CHECK_OK(duo_free(dev2[k]));
    }
    test_set_context("%s", "");
}

/* Device buffer's bytes equal `want` (after an operation that must not
 * have written it). */
static void check_device_bytes(const unsigned char *d,
                               const unsigned char *want, size_t n,
                               const char *what)
{
    unsigned char *h = (unsigned char *)test_xmalloc(n);
    test_poison_bytes(h, n);
    test_to_host(h, d, n);
    size_t at = first_diff(h, want, n);
    CHECK_MSG(at == n, "%s: device byte %zu changed", what, at);
    free(h);
}

/* Allocation failure: the pointer is left alone, the status is
 * out-of-memory and the message names the function.  These requests are
 * meant to fail, and compute-sanitizer reports each failed cudaMalloc:
 * tests/gpu_sanitize.sh recognises those reports by this function's name
 * in their backtrace, so it must stay a function of its own (not static,
 * never inlined) with this name. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
void test_memory_deliberate_oom(void);
void test_memory_deliberate_oom(void)
{
    test_set_context("error paths, out of memory");
    const size_t huge[] = {(size_t)1 << 62, SIZE_MAX, SIZE_MAX - 63};
    for (int h = 0; h < 3; ++h) {
        void *p = TEST_POISON_PTR;
        CHECK_STATUS(duo_malloc(&p, huge[h]), DUO_ERROR_OUT_OF_MEMORY);
        CHECK_MSG(p == TEST_POISON_PTR, "duo_malloc(%zu) changed the "
                  "pointer to %p", huge[h], p);
        CHECK_CONTAINS_WORD(duo_last_error(), "duo_malloc");
        p = TEST_POISON_PTR;
        CHECK_STATUS(duo_malloc_host(&p, huge[h]), DUO_ERROR_OUT_OF_MEMORY);
        CHECK_MSG(p == TEST_POISON_PTR, "duo_malloc_host(%zu) changed the "
                  "pointer to %p", huge[h], p);
        CHECK_CONTAINS_WORD(duo_last_error(), "duo_malloc_host");
    }
}

static void test_errors(void)
{
    test_set_context("error paths");
    const size_t n = 64;
    unsigned char host[64], orig[64], src[64];
    unsigned char *d = (unsigned char *)test_device_alloc(n);
    test_rng_bytes(&rng, orig, n);
    test_rng_bytes(&rng, src, n);
    test_to_device(d, orig, n);
    memcpy(host, orig, n);

    CHECK_STATUS(duo_malloc(NULL, 8), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "duo_malloc");
    CHECK_CONTAINS_WORD(duo_last_error(), "ptr");
    CHECK_STATUS(duo_malloc_host(NULL, 8), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "duo_malloc_host");
    CHECK_STATUS(duo_malloc(NULL, 0), DUO_ERROR_INVALID_ARGUMENT);

    /* NULL destination / source with bytes > 0, both calls. */
    const duo_copy_kind kinds[] = {DUO_HOST_TO_DEVICE, DUO_DEVICE_TO_HOST,
                                   DUO_DEVICE_TO_DEVICE, DUO_HOST_TO_HOST};
    for (int k = 0; k < 4; ++k) {
        const duo_copy_kind kind = kinds[k];
        const int dst_dev = kind == DUO_HOST_TO_DEVICE ||
                            kind == DUO_DEVICE_TO_DEVICE;
        const int src_dev = kind == DUO_DEVICE_TO_HOST ||
                            kind == DUO_DEVICE_TO_DEVICE;
        unsigned char *dst = dst_dev ? d : host;
        /* A device source must be device memory: use a second buffer. */
        unsigned char *ds = (unsigned char *)test_device_alloc(n);
        test_to_device(ds, src, n);
        const unsigned char *s = src_dev ? ds : src;
        test_set_context("error paths, copy kind %d", (int)kind);

        CHECK_STATUS(duo_memcpy(NULL, s, n, kind), DUO_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS_WORD(duo_last_error(), "duo_memcpy");
        CHECK_CONTAINS_WORD(duo_last_error(), "dst");
        CHECK_STATUS(duo_memcpy(dst, NULL, n, kind),
                     DUO_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS_WORD(duo_last_error(), "src");
        CHECK_STATUS(duo_memcpy_async(NULL, s, n, kind, NULL),
                     DUO_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS_WORD(duo_last_error(), "duo_memcpy_async");
        CHECK_STATUS(duo_memcpy_async(dst, NULL, 1, kind, NULL),
                     DUO_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS_WORD(duo_last_error(), "src");
        CHECK_OK(duo_synchronize());
        if (dst_dev)
            check_device_bytes(d, orig, n, "after a refused copy");
        else
            CHECK(memcmp(host, orig, n) == 0);
        CHECK_OK(duo_free(ds));
    }

    /* A copy kind that does not exist, with valid pointers. */
    test_set_context("error paths, unknown copy kind");
    const int bad_kinds[] = {99, 4};
    for (int b = 0; b < 2; ++b) {
        const duo_copy_kind kind = (duo_copy_kind)bad_kinds[b];
        CHECK_STATUS(duo_memcpy(host, src, n, kind),
                     DUO_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS_WORD(duo_last_error(), "duo_memcpy");
        CHECK_CONTAINS_WORD(duo_last_error(), "kind");
        CHECK_STATUS(duo_memcpy(d, src, n, kind), DUO_ERROR_INVALID_ARGUMENT);
        CHECK_STATUS(duo_memcpy_async(host, src, n, kind, NULL),
                     DUO_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS_WORD(duo_last_error(), "kind");
    }
    CHECK(memcmp(host, orig, n) == 0);
    check_device_bytes(d, orig, n, "after an unknown copy kind");

    test_set_context("error paths, memset");
    CHECK_STATUS(duo_memset(NULL, 0, 1), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "duo_memset");
    CHECK_CONTAINS_WORD(duo_last_error(), "dst");

    test_memory_deliberate_oom();

    /* ... and the library still works. */
    test_set_context("after out of memory");
    CHECK_OK(duo_synchronize());
    const size_t big = ((size_t)1 << 20) + 1;
    unsigned char *a = (unsigned char *)test_xmalloc(big);
    unsigned char *b = (unsigned char *)test_xmalloc(big);
    unsigned char *db = (unsigned char *)test_device_alloc(big);
    test_rng_bytes(&rng, a, big);
    test_poison_bytes(b, big);
    test_to_device(db, a, big);
    test_to_host(b, db, big);
    CHECK_SAME_BYTES(b, a, big);
    check_device_bytes(d, orig, n, "after out of memory");
    CHECK_OK(duo_free(db));
    CHECK_OK(duo_free(d));
    free(a);
    free(b);
    test_set_context("%s", "");
}

int main(void)
{
    test_rng_seed(&rng, 0x6D656D6F7279ULL);
    test_init_or_skip();
    test_zero_and_null();
    test_copies();
    test_memset();
    test_streams();
    test_errors();
    CHECK_OK(duo_finalize());
    return test_summary("memory");
}
