/*
 * test_sort.c - duo_sort and duo_sort_permutation for every key type,
 * both orders, keys alone, 4- and 8-byte values and the permutation,
 * against a reference built here on qsort: a comparator that states the
 * documented order in plain C (isnan, signbit, <), ties broken by the
 * input index, which makes it the one stable order.
 *
 * Inputs: random keys drawn from a small pool (many duplicates, and for
 * floats NaNs of both signs and payloads, -0 and +0, infinities,
 * subnormals), all keys equal, sorted, reversed.  Sizes 0, 1, 2, primes,
 * sizes around the radix passes' thread shares.  Out of place, in place,
 * and values alone in place.  Outputs are poisoned first; the guard past
 * the end must stay poisoned.  Bad arguments fail and leave outputs
 * untouched.  The openmp build runs it again with 3 threads: the bits
 * must not change.
 */
#include <math.h>
#include <stdlib.h>

#include "test_util.h"

static test_rng rng;

#define GUARD 16

static size_t key_bytes(duo_key_type t)
{
    return t == DUO_KEY_I32 || t == DUO_KEY_U32 || t == DUO_KEY_F32 ? 4 : 8;
}

static const char *key_name(duo_key_type t)
{
    static const char *const names[] = {"i32", "u32", "i64",
                                        "u64", "f32", "f64"};
    return names[t];
}

/* ------------------------------------------------------------------ */
/* The reference order                                                 */

static duo_key_type ref_type;
static int ref_descending;
static const unsigned char *ref_keys;

/* Floats: -1 for NaNs with the sign set, +1 for NaNs without, 0 else. */
static int nan_side(double v, int sign) { return isnan(v) ? (sign ? -1 : 1) : 0; }

/* Compare two floating values in the documented total order; payload
 * is the bit pattern, used only between NaNs of the same sign. */
static int cmp_float(double a, int sa, uint64_t pa, double b, int sb,
                     uint64_t pb)
{
    const int na = nan_side(a, sa), nb = nan_side(b, sb);
    if (na != nb)
        return na < nb ? -1 : 1;
    if (na != 0) /* same-side NaNs: by payload, mirrored for -NaN */
        return pa == pb ? 0 : ((pa < pb) == (na > 0) ? -1 : 1);
    if (a < b)
        return -1;
    if (a > b)
        return 1;
    if (sa != sb) /* -0 and +0 */
        return sa ? -1 : 1;
    return 0;
}

static int cmp_keys(size_t i, size_t j)
{
    const unsigned char *a = ref_keys + i * key_bytes(ref_type);
    const unsigned char *b = ref_keys + j * key_bytes(ref_type);
    switch (ref_type) {
    case DUO_KEY_I32: {
        int32_t x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return (x > y) - (x < y);
    }
    case DUO_KEY_U32: {
        uint32_t x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return (x > y) - (x < y);
    }
    case DUO_KEY_I64: {
        int64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return (x > y) - (x < y);
    }
    case DUO_KEY_U64: {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return (x > y) - (x < y);
    }
    case DUO_KEY_F32: {
        float x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        uint32_t px = test_bits_f32(x) & 0x7FFFFFFFu,
                 py = test_bits_f32(y) & 0x7FFFFFFFu;
        return cmp_float(x, signbit(x) != 0, px, y, signbit(y) != 0, py);
    }
    case DUO_KEY_F64: {
        double x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        uint64_t px = test_bits_f64(x) & 0x7FFFFFFFFFFFFFFFull,
                 py = test_bits_f64(y) & 0x7FFFFFFFFFFFFFFFull;
        return cmp_float(x, signbit(x) != 0, px, y, signbit(y) != 0, py);
    }
    }
    return 0;
}

static int cmp_index(const void *pa, const void *pb)
{
    const size_t i = *(const size_t *)pa, j = *(const size_t *)pb;
    int c = cmp_keys(i, j);
    if (ref_descending)
        c = -c;
    return c != 0 ? c : (i > j) - (i < j);
}

/* ------------------------------------------------------------------ */
/* Inputs                                                              */

typedef enum {
    D_RANDOM,
    D_EQUAL,
    D_SORTED,
    D_REVERSED,
    D_ZEROS, /* nine in ten keys zero, of both signs where floats */
    D_NARROW, /* some 11-bit groups of bits the same in every key */
    D_FULL,   /* every key drawn afresh, not from a pool */
    D_COUNT
} dist;
static const char *const dist_names[] = {"random", "equal",  "sorted",
                                         "reversed", "zeros", "narrow",
                                         "full"};

static int key_kind_float(duo_key_type t)
{
    return t == DUO_KEY_F32 || t == DUO_KEY_F64;
}

/* A random key: floats from a pool of specials and ordinary values. */
static void random_key(duo_key_type t, unsigned char *out)
{
    const uint64_t r = test_rng_u64(&rng);
    if (t == DUO_KEY_F32) {
        static const uint32_t specials[] = {
            0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u,
            0x7FC00000u, 0xFFC00000u, 0x7FC00001u, 0xFF800001u,
            0x00000001u, 0x80000001u, 0x7F7FFFFFu, 0xFF7FFFFFu};
        const uint32_t b = r % 4 == 0 ? specials[(r >> 8) % 12]
                                      : test_bits_f32(test_rng_wide_f(
                                            &rng, -30, 30));
        memcpy(out, &b, 4);
    } else if (t == DUO_KEY_F64) {
        static const uint64_t specials[] = {
            0x0ull, 0x8000000000000000ull, 0x7FF0000000000000ull,
            0xFFF0000000000000ull, 0x7FF8000000000000ull,
            0xFFF8000000000000ull, 0x7FF8000000000001ull,
            0xFFF0000000000001ull, 0x1ull, 0x8000000000000001ull};
        const uint64_t b = r % 4 == 0 ? specials[(r >> 8) % 10]
                                      : test_bits_f64(test_rng_wide(
                                            &rng, -300, 300));
        memcpy(out, &b, 8);
    } else {
        memcpy(out, &r, key_bytes(t));
    }
}

/* n keys of distribution d, drawn from a pool of `pool` distinct keys
 * (many duplicates when pool << n). */
static void make_keys(duo_key_type t, dist d, size_t n, unsigned char *k)
{
    const size_t kb = key_bytes(t);
    const size_t pool_n = 1 + (size_t)test_rng_range(&rng, 0, 300);
    unsigned char *pool = (unsigned char *)test_xmalloc(pool_n * 8);
    for (size_t p = 0; p < pool_n; ++p)
        random_key(t, pool + p * kb);
    for (size_t i = 0; i < n && d == D_FULL; ++i)
        random_key(t, k + i * kb);
    for (size_t i = 0; i < n && d != D_FULL; ++i) {
        const size_t p = d == D_EQUAL ? 0 : (size_t)test_rng_range(
                                                &rng, 0, (int64_t)pool_n - 1);
        memcpy(k + i * kb, pool + p * kb, kb);
        if (d == D_ZEROS && test_rng_range(&rng, 0, 9) != 0) {
            /* -0 or +0 (the sign bit alone, or nothing, set). */
            const uint64_t sign = (uint64_t)1 << (8 * kb - 1);
            const uint64_t z =
                key_kind_float(t) && test_rng_range(&rng, 0, 1) ? sign : 0;
            const uint32_t z32 = (uint32_t)z; /* kb == 4: the low bits */
            memcpy(k + i * kb, kb == 4 ? (const void *)&z32 : &z, kb);
        }
    }
    free(pool);
    if (d == D_NARROW) {
        /* The CPU sort's digits are 11-bit groups, and a pass whose digit
         * is the same in every key is left out: keep the bits of some
         * groups, set the others to one constant, a different choice of
         * groups each time (all but none, in turn), so that 1 to all of
         * the passes run, an odd or an even number of them. */
        static unsigned narrow_case;
        const int groups = (int)(8 * kb + 10) / 11;
        const unsigned keep = 1 + narrow_case++ % ((1u << groups) - 1);
        uint64_t mask = 0;
        for (int g = 0; g < groups; ++g)
            if (keep >> g & 1)
                mask |= (uint64_t)0x7FF << (11 * g);
        const uint64_t fill = test_rng_u64(&rng) & ~mask;
        for (size_t i = 0; i < n; ++i) {
            if (kb == 4) {
                uint32_t x;
                memcpy(&x, k + i * kb, 4);
                x = (uint32_t)((x & mask) | fill);
                memcpy(k + i * kb, &x, 4);
            } else {
                uint64_t x;
                memcpy(&x, k + i * kb, 8);
                x = (x & mask) | fill;
                memcpy(k + i * kb, &x, 8);
            }
        }
    }
    if (d == D_SORTED || d == D_REVERSED) {
        /* Sort with the reference order itself (ascending), reversing
         * for D_REVERSED: a ready-made run for the radix passes. */
        size_t *idx = (size_t *)test_xmalloc((n + 1) * sizeof(size_t));
        unsigned char *copy = (unsigned char *)test_xmalloc(n * kb + 1);
        memcpy(copy, k, n * kb);
        for (size_t i = 0; i < n; ++i)
            idx[i] = i;
        ref_type = t;
        ref_descending = d == D_REVERSED;
        ref_keys = copy;
        qsort(idx, n, sizeof(size_t), cmp_index);
        for (size_t i = 0; i < n; ++i)
            memcpy(k + i * kb, copy + idx[i] * kb, kb);
        free(copy);
        free(idx);
    }
}

/* ------------------------------------------------------------------ */
/* One case                                                            */

enum { V_NONE, V_4, V_8, V_PERM };
static const char *const value_names[] = {"keys", "values4", "values8",
                                          "perm"};

/* in_place: 0 out of place, 1 keys and values in place, 2 values alone
 * in place (keys out of place). */
static void run_case(duo_key_type t, duo_sort_order order, int vk, dist d,
                     size_t n, int in_place)
{
    static const char *const place_names[] = {"", " in place",
                                              " values in place"};
    test_set_context("%s %s %s %s n=%zu%s", key_name(t),
                     order == DUO_ASCENDING ? "asc" : "desc", value_names[vk],
                     dist_names[d], n, place_names[in_place]);
    const size_t kb = key_bytes(t);
    const size_t vb = vk == V_NONE ? 0 : vk == V_4 ? 4 : 8;
    const size_t kbytes = n * kb, vbytes = n * vb;
    unsigned char *hk = (unsigned char *)test_xmalloc(kbytes + 1);
    unsigned char *hv = (unsigned char *)test_xmalloc(vbytes + 1);
    make_keys(t, d, n, hk);
    test_rng_bytes(&rng, hv, vbytes);

    /* Reference: stable order of the indices. */
    size_t *idx = (size_t *)test_xmalloc((n + 1) * sizeof(size_t));
    for (size_t i = 0; i < n; ++i)
        idx[i] = i;
    ref_type = t;
    ref_descending = order == DUO_DESCENDING;
    ref_keys = hk;
    qsort(idx, n, sizeof(size_t), cmp_index);

    const size_t guard_k = GUARD * kb, guard_v = GUARD * 8;
    unsigned char *kin = (unsigned char *)test_device_alloc(kbytes + 1);
    unsigned char *kout = in_place == 1
                              ? kin
                              : (unsigned char *)test_device_alloc(
                                    kbytes + guard_k);
    unsigned char *vin = vb ? (unsigned char *)test_device_alloc(vbytes + 1)
                            : NULL;
    unsigned char *vout =
        vb == 0 ? NULL
        : (in_place && vk != V_PERM)
            ? vin
            : (unsigned char *)test_device_alloc(vbytes + guard_v);
    test_to_device(kin, hk, kbytes);
    if (vin)
        test_to_device(vin, hv, vbytes);
    if (kout != kin)
        CHECK_OK(duo_memset(kout, TEST_POISON_BYTE, kbytes + guard_k));
    if (vout && vout != vin)
        CHECK_OK(duo_memset(vout, TEST_POISON_BYTE, vbytes + guard_v));

    if (vk == V_PERM)
        CHECK_OK(duo_sort_permutation(t, order, n, kin, kout,
                                      (uint64_t *)vout));
    else if (n % 2 == 0)
        CHECK_OK(duo_sort(t, order, n, kin, kout, vin, vout, vb));
    else
        CHECK_OK(duo_sort_async(t, order, n, kin, kout, vin, vout, vb, NULL));
    CHECK_OK(duo_synchronize());

    unsigned char *gk = (unsigned char *)test_xmalloc(kbytes + guard_k);
    unsigned char *gv = (unsigned char *)test_xmalloc(vbytes + guard_v);
    test_to_host(gk, kout, kbytes + (kout == kin ? 0 : guard_k));
    if (vout)
        test_to_host(gv, vout, vbytes + (vout != vin ? guard_v : 0));
    size_t bad_k = 0, bad_v = 0, first = n;
    for (size_t i = 0; i < n; ++i) {
        const size_t src = idx[i];
        int kbad = memcmp(gk + i * kb, hk + src * kb, kb) != 0;
        int vbad = 0;
        if (vk == V_PERM) {
            uint64_t p;
            memcpy(&p, gv + i * 8, 8);
            vbad = p != src;
        } else if (vb) {
            vbad = memcmp(gv + i * vb, hv + src * vb, vb) != 0;
        }
        bad_k += kbad;
        bad_v += vbad;
        if ((kbad || vbad) && first == n)
            first = i;
    }
    CHECK_MSG(bad_k == 0 && bad_v == 0,
              "%zu keys and %zu values differ from the reference, first at "
              "%zu", bad_k, bad_v, first);
    if (kout != kin) {
        size_t g = 0;
        for (size_t i = 0; i < guard_k; ++i)
            g += gk[kbytes + i] != TEST_POISON_BYTE;
        CHECK_MSG(g == 0, "keys_out guard written (%zu bytes)", g);
    }
    if (vout && vout != vin) {
        size_t g = 0;
        for (size_t i = 0; i < guard_v; ++i)
            g += gv[vbytes + i] != TEST_POISON_BYTE;
        CHECK_MSG(g == 0, "values_out guard written (%zu bytes)", g);
    }
    /* Out of place leaves the input alone. */
    if (kout != kin && n > 0) {
        unsigned char *again = (unsigned char *)test_xmalloc(kbytes);
        test_to_host(again, kin, kbytes);
        CHECK_MSG(memcmp(again, hk, kbytes) == 0, "keys_in was modified");
        free(again);
    }
    free(gk);
    free(gv);
    free(idx);
    free(hk);
    free(hv);
    if (kout != kin)
        CHECK_OK(duo_free(kout));
    if (vout && vout != vin)
        CHECK_OK(duo_free(vout));
    CHECK_OK(duo_free(kin));
    CHECK_OK(duo_free(vin));
}

static void test_all_cases(void)
{
    const size_t small[] = {0, 1, 2, 3, 17, 257, 1009};
    for (int t = DUO_KEY_I32; t <= DUO_KEY_F64; ++t)
        for (int o = 0; o < 2; ++o)
            for (int vk = V_NONE; vk <= V_PERM; ++vk)
                for (int d = 0; d < D_COUNT; ++d)
                    for (size_t s = 0; s < sizeof small / sizeof *small; ++s)
                        run_case((duo_key_type)t, (duo_sort_order)o, vk,
                                 (dist)d, small[s], (int)(s + d) % 3 == 0);
    /* Large: several threads' shares, passes with mixed digits. */
    const size_t large[] = {65537, 300007};
    for (int t = DUO_KEY_I32; t <= DUO_KEY_F64; ++t)
        for (int o = 0; o < 2; ++o)
            for (size_t s = 0; s < 2; ++s)
                run_case((duo_key_type)t, (duo_sort_order)o,
                         (int)((t + o + (int)s) % 4), D_RANDOM, large[s],
                         o == 1);
    run_case(DUO_KEY_U32, DUO_ASCENDING, V_4, D_REVERSED, 300007, 0);
    /* A long run of zeros of both signs, which the GPU's radix sort ranks
     * as equal and duo puts in order afterwards: every value kind, both
     * orders, each placement. */
    for (int t = DUO_KEY_F32; t <= DUO_KEY_F64; ++t)
        for (int vk = V_NONE; vk <= V_PERM; ++vk)
            run_case((duo_key_type)t, (duo_sort_order)((t + vk) % 2), vk,
                     D_ZEROS, 1000003, vk % 3);
    run_case(DUO_KEY_F64, DUO_DESCENDING, V_PERM, D_SORTED, 300007, 1);
    /* Passes left out, on several threads' shares: every key and value
     * kind, each placement (in place, an odd number of passes left must
     * first copy the keys or the values that its first pass would
     * overwrite). */
    for (int t = DUO_KEY_I32; t <= DUO_KEY_F64; ++t)
        for (int vk = V_NONE; vk <= V_PERM; ++vk)
            for (int place = 0; place < 3; ++place)
                run_case((duo_key_type)t, (duo_sort_order)((t + vk) % 2), vk,
                         D_NARROW, 70001, place);
    /* Values in place, keys not: the CUDA backend's path for outputs
     * that are partly their inputs. */
    for (int t = DUO_KEY_I32; t <= DUO_KEY_F64; ++t)
        for (int vk = V_4; vk <= V_8; ++vk)
            run_case((duo_key_type)t, (duo_sort_order)(t % 2), vk, D_RANDOM,
                     4099, 2);
}

/* Enough keys (backend_cpu/sort.c: SPLIT_MIN, 2^21) that the CPU sort's
 * passes after the first sort each bucket of the top digit alone, with
 * keys over every digit and from a pool, an odd and an even number of
 * passes, each placement. */
static void test_split(void)
{
    const size_t n = ((size_t)1 << 21) + 3;
    run_case(DUO_KEY_U32, DUO_ASCENDING, V_4, D_FULL, n, 0);
    run_case(DUO_KEY_F32, DUO_DESCENDING, V_PERM, D_FULL, n, 1);
    run_case(DUO_KEY_I64, DUO_DESCENDING, V_8, D_FULL, n, 2);
    run_case(DUO_KEY_F64, DUO_ASCENDING, V_NONE, D_RANDOM, n, 1);
}

/* Fully random 32- and 64-bit keys over every digit. */
static void test_full_range(void)
{
    const size_t n = 1 << 20;
    test_set_context("u64 full range n=%zu", n);
    uint64_t *h = (uint64_t *)test_xmalloc(n * 8);
    for (size_t i = 0; i < n; ++i)
        h[i] = test_rng_u64(&rng);
    uint64_t *d = (uint64_t *)test_device_alloc(n * 8);
    test_to_device(d, h, n * 8);
    CHECK_OK(duo_sort(DUO_KEY_U64, DUO_ASCENDING, n, d, d, NULL, NULL, 0));
    uint64_t *g = (uint64_t *)test_xmalloc(n * 8);
    test_to_host(g, d, n * 8);
    ref_type = DUO_KEY_U64;
    ref_descending = 0;
    size_t *idx = (size_t *)test_xmalloc(n * sizeof(size_t));
    for (size_t i = 0; i < n; ++i)
        idx[i] = i;
    ref_keys = (const unsigned char *)h;
    qsort(idx, n, sizeof(size_t), cmp_index);
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i)
        bad += g[i] != h[idx[i]];
    CHECK_MSG(bad == 0, "%zu keys out of order", bad);
    free(idx);
    free(g);
    free(h);
    CHECK_OK(duo_free(d));
}

/* ------------------------------------------------------------------ */
/* Bad arguments: an error naming the argument, outputs untouched.     */

static void test_errors(void)
{
    test_set_context("errors");
    const size_t n = 64;
    uint32_t *k = (uint32_t *)test_device_alloc(3 * n * 4);
    uint32_t *out = k + n;
    uint32_t *vals = k + 2 * n;
    CHECK_OK(duo_memset(k, 0x11, n * 4));
    CHECK_OK(duo_memset(out, TEST_POISON_BYTE, 2 * n * 4));
    CHECK_STATUS(duo_sort((duo_key_type)9, DUO_ASCENDING, n, k, out, NULL,
                          NULL, 0),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "type");
    CHECK_STATUS(duo_sort(DUO_KEY_U32, (duo_sort_order)5, n, k, out, NULL,
                          NULL, 0),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "order");
    CHECK_STATUS(duo_sort(DUO_KEY_U32, DUO_ASCENDING, n, NULL, out, NULL,
                          NULL, 0),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "keys_in");
    CHECK_STATUS(duo_sort(DUO_KEY_U32, DUO_ASCENDING, n, k, NULL, NULL, NULL,
                          0),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "keys_out");
    CHECK_STATUS(duo_sort(DUO_KEY_U32, DUO_ASCENDING, n, k, out, k, vals, 3),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "value_size");
    CHECK_STATUS(duo_sort(DUO_KEY_U32, DUO_ASCENDING, n, k, out, NULL, vals,
                          4),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "values_in");
    CHECK_STATUS(duo_sort(DUO_KEY_U32, DUO_ASCENDING, n, k, out, NULL, vals,
                          0),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "values_out");
    /* Partial overlap of keys_in and keys_out. */
    CHECK_STATUS(duo_sort(DUO_KEY_U32, DUO_ASCENDING, n, k, k + 1, NULL,
                          NULL, 0),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "keys_out");
    /* Values overlapping keys. */
    CHECK_STATUS(duo_sort(DUO_KEY_U32, DUO_ASCENDING, n, k, out, vals,
                          out + n / 2, 4),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "values_out");
    CHECK_STATUS(duo_sort_permutation(DUO_KEY_U32, DUO_ASCENDING, n, k, out,
                                      (uint64_t *)(void *)k),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "perm");
    CHECK_STATUS(duo_sort_permutation(DUO_KEY_U32, DUO_ASCENDING, n, k, out,
                                      NULL),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "perm");
    /* Nothing was written. */
    uint32_t h[2 * 64];
    test_to_host(h, out, sizeof h);
    size_t touched = 0;
    for (size_t i = 0; i < 2 * n; ++i)
        touched += h[i] != 0xFFFFFFFFu;
    CHECK_EQ_U64(touched, 0);
    /* n = 0 with NULL pointers is nothing to do. */
    CHECK_OK(duo_sort(DUO_KEY_F64, DUO_DESCENDING, 0, NULL, NULL, NULL, NULL,
                      0));
    CHECK_OK(duo_sort_permutation(DUO_KEY_I64, DUO_ASCENDING, 0, NULL, NULL,
                                  NULL));
    CHECK_OK(duo_free(k));
}

int main(void)
{
    test_rng_seed(&rng, 0x736F7274ULL);
    test_init_or_skip();
    test_errors();
    test_all_cases();
    test_full_range();
    test_split();
    CHECK_OK(duo_finalize());
    return test_summary("sort");
}
