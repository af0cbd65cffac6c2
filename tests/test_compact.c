/*
 * test_compact.c - duo_compact and duo_compact_async against a plain
 * sequential filter: 4- and 8-byte elements, flags random (other
 * non-zero values than 1 included), none set, all set, sizes 0, 1,
 * primes and non-multiples of block sizes.  Outputs poisoned first; the
 * part past the count must stay poisoned; the device count of the async
 * form is checked too.  Bad arguments fail and write nothing.
 */
#include <stdlib.h>

#include "test_util.h"

static test_rng rng;

typedef enum { F_RANDOM, F_NONE, F_ALL, F_SPARSE } flag_mix;

static void run_case(size_t esize, size_t n, flag_mix mix, int async)
{
    test_set_context("elem %zu n=%zu mix %d%s", esize, n, (int)mix,
                     async ? " async" : "");
    unsigned char *hin = (unsigned char *)test_xmalloc(n * esize + 1);
    uint8_t *hf = (uint8_t *)test_xmalloc(n + 1);
    test_rng_bytes(&rng, hin, n * esize);
    for (size_t i = 0; i < n; ++i) {
        const uint64_t r = test_rng_u64(&rng);
        hf[i] = mix == F_NONE ? 0
                : mix == F_ALL ? (uint8_t)(1 + r % 255)
                : mix == F_SPARSE ? (r % 97 == 0)
                                  : (r % 2 ? (uint8_t)(1 + (r >> 8) % 255)
                                           : 0);
    }
    unsigned char *in = (unsigned char *)test_device_alloc(n * esize + 1);
    uint8_t *flags = (uint8_t *)test_device_alloc(n + 1);
    unsigned char *out = (unsigned char *)test_device_alloc(n * esize + 1);
    uint64_t *dcount = (uint64_t *)test_device_alloc(8);
    test_to_device(in, hin, n * esize);
    test_to_device(flags, hf, n);
    CHECK_OK(duo_memset(out, TEST_POISON_BYTE, n * esize + 1));
    size_t count = TEST_POISON_SIZE;
    if (async) {
        CHECK_OK(duo_memset(dcount, 0x5A, 8));
        CHECK_OK(duo_compact_async(esize, n, in, flags, out, dcount, NULL));
        uint64_t c = 0;
        test_to_host(&c, dcount, 8);
        count = (size_t)c;
    } else {
        CHECK_OK(duo_compact(esize, n, in, flags, out, &count));
    }
    size_t want = 0;
    unsigned char *ref = (unsigned char *)test_xmalloc(n * esize + 1);
    for (size_t i = 0; i < n; ++i)
        if (hf[i] != 0)
            memcpy(ref + want++ * esize, hin + i * esize, esize);
    CHECK_EQ_U64(count, want);
    unsigned char *got = (unsigned char *)test_xmalloc(n * esize + 1);
    test_to_host(got, out, n * esize + 1);
    if (count == want) {
        CHECK_MSG(memcmp(got, ref, want * esize) == 0,
                  "kept elements differ from the sequential filter");
        size_t touched = 0;
        for (size_t i = want * esize; i < n * esize + 1; ++i)
            touched += got[i] != TEST_POISON_BYTE;
        CHECK_MSG(touched == 0, "%zu bytes past the count were written",
                  touched);
    }
    free(hin);
    free(hf);
    free(ref);
    free(got);
    CHECK_OK(duo_free(in));
    CHECK_OK(duo_free(flags));
    CHECK_OK(duo_free(out));
    CHECK_OK(duo_free(dcount));
}

static void test_errors(void)
{
    test_set_context("errors");
    const size_t n = 32;
    uint32_t *buf = (uint32_t *)test_device_alloc(3 * n * 4);
    uint8_t *flags = (uint8_t *)test_device_alloc(n);
    CHECK_OK(duo_memset(flags, 1, n));
    CHECK_OK(duo_memset(buf, TEST_POISON_BYTE, 3 * n * 4));
    size_t count = TEST_POISON_SIZE;
    CHECK_STATUS(duo_compact(3, n, buf, flags, buf + n, &count),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "elem_size");
    CHECK_STATUS(duo_compact(4, n, NULL, flags, buf + n, &count),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "in");
    CHECK_STATUS(duo_compact(4, n, buf, NULL, buf + n, &count),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "flags");
    CHECK_STATUS(duo_compact(4, n, buf, flags, NULL, &count),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "out");
    CHECK_STATUS(duo_compact(4, n, buf, flags, buf + n, NULL),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "count");
    CHECK_STATUS(duo_compact_async(4, n, buf, flags, buf + n, NULL, NULL),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "count");
    /* In place is not allowed: out overlaps in. */
    CHECK_STATUS(duo_compact(4, n, buf, flags, buf + 1, &count),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "out");
    CHECK_EQ_U64(count, TEST_POISON_SIZE);
    uint32_t h[3 * 32];
    test_to_host(h, buf, sizeof h);
    size_t touched = 0;
    for (size_t i = 0; i < 3 * n; ++i)
        touched += h[i] != 0xFFFFFFFFu;
    CHECK_EQ_U64(touched, 0);
    CHECK_OK(duo_compact(8, 0, NULL, NULL, NULL, &count));
    CHECK_EQ_U64(count, 0);
    CHECK_OK(duo_free(buf));
    CHECK_OK(duo_free(flags));
}

int main(void)
{
    test_rng_seed(&rng, 0x636F6D70ULL);
    test_init_or_skip();
    test_errors();
    const size_t sizes[] = {0, 1, 2, 31, 257, 4099, 65537, 1000003};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s)
        for (int mix = F_RANDOM; mix <= F_SPARSE; ++mix) {
            run_case(4, sizes[s], (flag_mix)mix, (int)(s + mix) % 2);
            run_case(8, sizes[s], (flag_mix)mix, (int)(s + mix + 1) % 2);
        }
    CHECK_OK(duo_finalize());
    return test_summary("compact");
}
