/*
 * test_philox.c - <duo/philox.h>: Philox4x32-10 against Random123's
 * published known-answer vectors, on the host and inside a kernel; the
 * generator run in a DUO_KERNEL over many counters compared bit for bit
 * with the same calls on the host; the uniform helpers at their edges.
 */
#include <math.h>
#include <stdlib.h>

#include <duo/philox.h>

#include "test_util.h"

/* Guard elements after every output array. */
#define GUARD 64

/*
 * Known answers: the three "philox4x32 10" rows of Random123's
 * tests/kat_vectors (D. E. Shaw Research; format: counter[4] key[2] then
 * the expected output[4], 32-bit words in hexadecimal):
 *
 *   philox4x32 10 00000000 00000000 00000000 00000000 00000000 00000000
 *                 6627e8d5 e169c58d bc57ac4c 9b00dbd8
 *   philox4x32 10 ffffffff ffffffff ffffffff ffffffff ffffffff ffffffff
 *                 408f276d 41c83b0e a20bc7c6 6d5451fd
 *   philox4x32 10 243f6a88 85a308d3 13198a2e 03707344 a4093822 299f31d0
 *                 d16cfe09 94fdcceb 5001e420 24126ea1
 *
 * (the third uses the hexadecimal digits of pi as counter and key).
 */
#define NKAT 3
static const uint32_t kat_ctr[NKAT][4] = {
    {0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u},
    {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
    {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
};
static const uint32_t kat_key[NKAT][2] = {
    {0x00000000u, 0x00000000u},
    {0xffffffffu, 0xffffffffu},
    {0xa4093822u, 0x299f31d0u},
};
static const uint32_t kat_out[NKAT][4] = {
    {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u},
    {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu},
    {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u},
};

/* ------------------------------------------------------------------ */
/* Kernels                                                             */

/* Philox of given counters and keys (4 and 2 words per element). */
DUO_KERNEL(philox_given, size_t n, const uint32_t *DUO_RESTRICT ctr,
           const uint32_t *DUO_RESTRICT key, uint32_t *DUO_RESTRICT out)
{
    DUO_FOR(i, n) {
        duo_philox4x32_ctr c = duo_philox4x32_ctr_make(
            ctr[4 * i], ctr[4 * i + 1], ctr[4 * i + 2], ctr[4 * i + 3]);
        duo_philox4x32_key k = duo_philox4x32_key_make(key[2 * i],
                                                       key[2 * i + 1]);
        duo_philox4x32_ctr r = duo_philox4x32_10(c, k);
        for (int w = 0; w < 4; ++w)
            out[4 * i + w] = r.v[w];
    }
}

/* The counter of element i: the index in the low word, its high half and
 * two words derived from `stream` and i, so that all four words vary. */
DUO_DEVICE duo_philox4x32_ctr counter_of(size_t i, uint32_t stream)
{
    const uint64_t j = (uint64_t)i;
    return duo_philox4x32_ctr_make((uint32_t)j, (uint32_t)(j >> 32),
                                   stream ^ (uint32_t)(j * 2654435761u),
                                   ~stream + (uint32_t)(j >> 3));
}

/* A stream of draws as an app would make them: words, a float and a
 * double per counter. */
DUO_KERNEL(philox_stream, size_t n, uint32_t stream, uint32_t k0,
           uint32_t k1, uint32_t *DUO_RESTRICT words,
           float *DUO_RESTRICT uf, double *DUO_RESTRICT ud)
{
    DUO_FOR(i, n) {
        duo_philox4x32_ctr r = duo_philox4x32_10(
            counter_of(i, stream), duo_philox4x32_key_make(k0, k1));
        for (int w = 0; w < 4; ++w)
            words[4 * i + w] = r.v[w];
        uf[i] = duo_philox_uniform_f32(r.v[0]);
        ud[i] = duo_philox_uniform_f64(r.v[2], r.v[3]);
    }
}

/* ------------------------------------------------------------------ */

static void test_kat_host(void)
{
    for (int t = 0; t < NKAT; ++t) {
        test_set_context("known-answer vector %d on the host", t);
        duo_philox4x32_ctr r = duo_philox4x32_10(
            duo_philox4x32_ctr_make(kat_ctr[t][0], kat_ctr[t][1],
                                    kat_ctr[t][2], kat_ctr[t][3]),
            duo_philox4x32_key_make(kat_key[t][0], kat_key[t][1]));
        for (int w = 0; w < 4; ++w)
            CHECK_EQ_U64(r.v[w], kat_out[t][w]);
    }
    test_set_context("%s", "");
}

static void test_kat_device(void)
{
    test_set_context("known-answer vectors in a kernel");
    uint32_t *dctr = (uint32_t *)test_device_alloc(sizeof kat_ctr);
    uint32_t *dkey = (uint32_t *)test_device_alloc(sizeof kat_key);
    uint32_t *dout = (uint32_t *)test_device_alloc(sizeof kat_out);
    uint32_t out[NKAT][4];
    test_to_device(dctr, kat_ctr, sizeof kat_ctr);
    test_to_device(dkey, kat_key, sizeof kat_key);
    CHECK_OK(duo_memset(dout, 0x5A, sizeof kat_out));
    CHECK_OK(DUO_LAUNCH(philox_given, NKAT, (size_t)NKAT, dctr, dkey, dout));
    memset(out, 0, sizeof out);
    test_to_host(out, dout, sizeof out);
    for (int t = 0; t < NKAT; ++t)
        for (int w = 0; w < 4; ++w)
            CHECK_MSG(out[t][w] == kat_out[t][w], "vector %d word %d: got "
                      "0x%08x, want 0x%08x", t, w, (unsigned)out[t][w],
                      (unsigned)kat_out[t][w]);
    CHECK_OK(duo_free(dctr));
    CHECK_OK(duo_free(dkey));
    CHECK_OK(duo_free(dout));
    test_set_context("%s", "");
}

/* Every output of the kernel, for several n, keys and streams, equals
 * the host's call bit for bit; nothing past n is written. */
static void test_stream_matches_host(void)
{
    const size_t ns[] = {0, 1, 2, 31, 33, 255, 257, 65537,
                         ((size_t)1 << 20) + 3};
    const uint32_t keys[][2] = {{0u, 0u}, {1u, 0u}, {0xdeadbeefu, 0x12345678u},
                                {0xffffffffu, 0xffffffffu}};
    const size_t max = ns[sizeof ns / sizeof ns[0] - 1];
    uint32_t *words = (uint32_t *)test_xmalloc((4 * max + GUARD) * 4);
    float *uf = (float *)test_xmalloc((max + GUARD) * sizeof(float));
    double *ud = (double *)test_xmalloc((max + GUARD) * sizeof(double));
    uint32_t *dwords = (uint32_t *)test_device_alloc((4 * max + GUARD) * 4);
    float *duf = (float *)test_device_alloc((max + GUARD) * sizeof(float));
    double *dud = (double *)test_device_alloc((max + GUARD) * sizeof(double));

    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; ++t) {
        const size_t n = ns[t];
        const uint32_t *key = keys[t % (sizeof keys / sizeof keys[0])];
        const uint32_t stream = (uint32_t)(t * 0x01000193u);
        test_set_context("stream n=%zu key=%08x:%08x stream=%u", n,
                         (unsigned)key[0], (unsigned)key[1],
                         (unsigned)stream);
        CHECK_OK(duo_memset(dwords, 0xFF, (4 * n + GUARD) * 4));
        CHECK_OK(duo_memset(duf, 0xFF, (n + GUARD) * sizeof(float)));
        CHECK_OK(duo_memset(dud, 0xFF, (n + GUARD) * sizeof(double)));
        CHECK_OK(DUO_LAUNCH(philox_stream, n, n, stream, key[0], key[1],
                            dwords, duf, dud));
        memset(words, 0, (4 * n + GUARD) * 4);
        memset(uf, 0, (n + GUARD) * sizeof(float));
        memset(ud, 0, (n + GUARD) * sizeof(double));
        test_to_host(words, dwords, (4 * n + GUARD) * 4);
        test_to_host(uf, duf, (n + GUARD) * sizeof(float));
        test_to_host(ud, dud, (n + GUARD) * sizeof(double));

        size_t bad = 0;
        double sum = 0.0;
        for (size_t i = 0; i < n; ++i) {
            duo_philox4x32_ctr r = duo_philox4x32_10(
                counter_of(i, stream),
                duo_philox4x32_key_make(key[0], key[1]));
            const float f = duo_philox_uniform_f32(r.v[0]);
            const double d = duo_philox_uniform_f64(r.v[2], r.v[3]);
            int ok = test_bits_f32(uf[i]) == test_bits_f32(f) &&
                     test_bits_f64(ud[i]) == test_bits_f64(d);
            for (int w = 0; w < 4; ++w)
                ok = ok && words[4 * i + w] == r.v[w];
            if (!ok && bad++ < 5)
                CHECK_MSG(0, "element %zu: kernel %08x %08x %08x %08x "
                          "f32 %a f64 %a, host %08x %08x %08x %08x f32 %a "
                          "f64 %a", i, (unsigned)words[4 * i],
                          (unsigned)words[4 * i + 1],
                          (unsigned)words[4 * i + 2],
                          (unsigned)words[4 * i + 3], (double)uf[i], ud[i],
                          (unsigned)r.v[0], (unsigned)r.v[1],
                          (unsigned)r.v[2], (unsigned)r.v[3], (double)f, d);
            sum += d;
        }
        CHECK_MSG(bad == 0, "%zu of %zu elements differ from the host", bad,
                  n);
        for (size_t i = 4 * n; i < 4 * n + GUARD; ++i)
            CHECK_MSG(words[i] == 0xFFFFFFFFu, "wrote words[%zu], past 4n",
                      i);
        for (size_t i = n; i < n + GUARD; ++i) {
            CHECK_MSG(test_is_poison_f32(uf[i]), "wrote uf[%zu], past n", i);
            CHECK_MSG(test_is_poison_f64(ud[i]), "wrote ud[%zu], past n", i);
        }
        /* A smoke test of uniformity: the mean of n uniforms is within 6
         * standard deviations (sqrt(1/(12 n))) of 1/2. */
        if (n >= 65536)
            CHECK_NEAR(sum / (double)n, 0.5, 6.0 * sqrt(1.0 / (12.0 * n)));
    }
    CHECK_OK(duo_free(dwords));
    CHECK_OK(duo_free(duf));
    CHECK_OK(duo_free(dud));
    free(words);
    free(uf);
    free(ud);
    test_set_context("%s", "");
}

/* Distinct counters and keys give distinct blocks (a sanity check that
 * every word of counter and key reaches the output). */
static void test_every_word_matters(void)
{
    test_set_context("every counter and key word matters");
    const duo_philox4x32_ctr c0 = duo_philox4x32_ctr_make(1, 2, 3, 4);
    const duo_philox4x32_key k0 = duo_philox4x32_key_make(5, 6);
    const duo_philox4x32_ctr base = duo_philox4x32_10(c0, k0);
    for (int w = 0; w < 6; ++w) {
        duo_philox4x32_ctr c = c0;
        duo_philox4x32_key k = k0;
        if (w < 4)
            c.v[w] ^= 1u;
        else
            k.v[w - 4] ^= 1u;
        const duo_philox4x32_ctr r = duo_philox4x32_10(c, k);
        int same = 0;
        for (int o = 0; o < 4; ++o)
            same += r.v[o] == base.v[o];
        CHECK_MSG(same == 0, "flipping bit 0 of %s word %d left %d of 4 "
                  "output words unchanged", w < 4 ? "counter" : "key",
                  w < 4 ? w : w - 4, same);
    }
    test_set_context("%s", "");
}

static void test_uniform_edges(void)
{
    test_set_context("uniform helpers");
    CHECK_BITS_F32(duo_philox_uniform_f32(0u), 0.0f);
    /* the low 8 bits are dropped */
    CHECK_BITS_F32(duo_philox_uniform_f32(0xFFu), 0.0f);
    CHECK_BITS_F32(duo_philox_uniform_f32(0x100u), ldexpf(1.0f, -24));
    CHECK_BITS_F32(duo_philox_uniform_f32(0x80000000u), 0.5f);
    CHECK_BITS_F32(duo_philox_uniform_f32(0xFFFFFFFFu),
                   1.0f - ldexpf(1.0f, -24));
    CHECK(duo_philox_uniform_f32(0xFFFFFFFFu) < 1.0f);

    CHECK_BITS_F64(duo_philox_uniform_f64(0u, 0u), 0.0);
    CHECK_BITS_F64(duo_philox_uniform_f64(0u, 0x7FFu), 0.0);
    CHECK_BITS_F64(duo_philox_uniform_f64(0u, 0x800u), ldexp(1.0, -53));
    CHECK_BITS_F64(duo_philox_uniform_f64(1u, 0u), ldexp(1.0, -32));
    CHECK_BITS_F64(duo_philox_uniform_f64(0x80000000u, 0u), 0.5);
    CHECK_BITS_F64(duo_philox_uniform_f64(0xFFFFFFFFu, 0xFFFFFFFFu),
                   1.0 - ldexp(1.0, -53));
    CHECK(duo_philox_uniform_f64(0xFFFFFFFFu, 0xFFFFFFFFu) < 1.0);
    test_set_context("%s", "");
}

int main(void)
{
    test_kat_host();
    test_every_word_matters();
    test_uniform_edges();
    test_init_or_skip();
    double t0 = test_seconds();
    test_kat_device();
    test_stream_matches_host();
    CHECK_OK(duo_synchronize());
    CHECK_OK(duo_finalize());
    printf("philox: %.2f s\n", test_seconds() - t0);
    return test_summary("philox");
}
