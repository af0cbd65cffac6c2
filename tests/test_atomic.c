/*
 * test_atomic.c - the atomics of <duo/atomic.h>, every operation on every
 * type, hammered by every index of a launch on one address, against
 * references computed here in plain sequential C.
 *
 *  - Final values of add, sub (wrapping), min, max (negative values
 *    included), and, or, xor are exact and so the same on every backend.
 *  - The returned old values: n increments by 1 return each of
 *    0 .. n-1 exactly once; n exchanges return, with the final value, the
 *    initial value and the n values given; exactly one of n
 *    compare-and-swaps from the initial value succeeds, and a CAS retry
 *    loop incrementing by 1 ends at n.
 *  - Float and double add of small integers (every partial sum exact),
 *    min and max of negative and positive values; -0 below +0 and NaNs
 *    ordered by their sign (the documented total order).
 *  - Atomics on DUO_SHARED memory inside a block kernel.
 * Sizes 1, a prime, and 2^20 (many indices per GPU thread in the
 * grid-stride loop).  The openmp build runs it again with 3 threads.
 */
#include <math.h>
#include <stdlib.h>

#include "test_util.h"

static test_rng rng;

DUO_DEVICE uint64_t at_hash(uint64_t seed, size_t i)
{
    uint64_t z = seed + (uint64_t)i * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Indices that take part in the compare-and-swap loop: every one of
 * them retries until it wins, so on a GPU n contenders cost about n^2
 * attempts in all; a few thousand still contend hard. */
#define AT_CAS_LOOP_MAX 4096

/* Cells of the integer kernel. */
enum {
    C_ADD, C_SUB, C_MIN, C_MAX, C_AND, C_OR, C_XOR, C_TICKET, C_CAS_ONCE,
    C_CAS_LOOP, C_EXCH, C_COUNT
};

/* Operand of index i for op c (the same function on host and device). */
#define AT_OPERAND_(T, seed, i, c)                                        \
    ((c) == C_AND                                                        \
         ? (T) ~((uint64_t)1 << (at_hash(seed, i) % (sizeof(T) * 4)))    \
     : (c) == C_OR ? (T)((uint64_t)1 << (at_hash(seed, i) % (sizeof(T) * 8))) \
                   : (T)at_hash((seed) + (uint64_t)(c), i))

#define AT_INT_KERNEL_(sfx, T)                                                \
    DUO_KERNEL(hammer_##sfx, size_t n, uint64_t seed, T *cell, T *ticket,    \
               T *cas_old, T *exch_old)                                       \
    {                                                                         \
        DUO_FOR(i, n)                                                         \
        {                                                                     \
            duo_atomic_add_##sfx(&cell[C_ADD], AT_OPERAND_(T, seed, i, C_ADD)); \
            duo_atomic_sub_##sfx(&cell[C_SUB], AT_OPERAND_(T, seed, i, C_SUB)); \
            duo_atomic_min_##sfx(&cell[C_MIN], AT_OPERAND_(T, seed, i, C_MIN)); \
            duo_atomic_max_##sfx(&cell[C_MAX], AT_OPERAND_(T, seed, i, C_MAX)); \
            duo_atomic_and_##sfx(&cell[C_AND], AT_OPERAND_(T, seed, i, C_AND)); \
            duo_atomic_or_##sfx(&cell[C_OR], AT_OPERAND_(T, seed, i, C_OR));    \
            duo_atomic_xor_##sfx(&cell[C_XOR], AT_OPERAND_(T, seed, i, C_XOR)); \
            ticket[i] = duo_atomic_add_##sfx(&cell[C_TICKET], (T)1);         \
            cas_old[i] = duo_atomic_cas_##sfx(&cell[C_CAS_ONCE], (T)7,       \
                                              (T)(i + 100));                  \
            T seen = 0, before; /* a guess; each failure returns the truth */ \
            while (i < AT_CAS_LOOP_MAX &&                                     \
                   (before = duo_atomic_cas_##sfx(&cell[C_CAS_LOOP], seen,   \
                                                  (T)(seen + 1))) != seen)    \
                seen = before;                                                \
            exch_old[i] = duo_atomic_exch_##sfx(&cell[C_EXCH], (T)(i + 1));  \
        }                                                                     \
    }

AT_INT_KERNEL_(i32, int32_t)
AT_INT_KERNEL_(u32, uint32_t)
AT_INT_KERNEL_(i64, int64_t)
AT_INT_KERNEL_(u64, uint64_t)

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Initial cell values: min and max start from 0 so that both signs of
 * operand matter; and, cas-once start from recognisable values. */
#define AT_INT_TEST_(sfx, T, U)                                               \
    static void test_int_##sfx(size_t n)                                      \
    {                                                                         \
        test_set_context("%s n=%zu", #sfx, n);                               \
        const uint64_t seed = test_rng_u64(&rng);                            \
        T init[C_COUNT];                                                      \
        for (int c = 0; c < C_COUNT; ++c)                                     \
            init[c] = (T)test_rng_u64(&rng);                                  \
        init[C_MIN] = init[C_MAX] = 0;                                        \
        init[C_AND] = (T)~(T)0;                                               \
        init[C_OR] = 0;                                                       \
        init[C_TICKET] = init[C_CAS_LOOP] = 0;                                \
        init[C_CAS_ONCE] = 7;                                                 \
        T *cell = (T *)test_device_alloc(sizeof init);                        \
        T *ticket = (T *)test_device_alloc(n * sizeof(T));                   \
        T *cas_old = (T *)test_device_alloc(n * sizeof(T));                  \
        T *exch_old = (T *)test_device_alloc(n * sizeof(T));                 \
        test_to_device(cell, init, sizeof init);                              \
        CHECK_OK(duo_memset(ticket, 0xA5, n * sizeof(T)));                    \
        CHECK_OK(DUO_LAUNCH(hammer_##sfx, n, n, seed, cell, ticket, cas_old, \
                            exch_old));                                       \
        T got[C_COUNT];                                                       \
        test_to_host(got, cell, sizeof got);                                  \
        T *h_ticket = (T *)test_xmalloc(n * sizeof(T));                       \
        T *h_cas = (T *)test_xmalloc(n * sizeof(T));                          \
        T *h_exch = (T *)test_xmalloc(n * sizeof(T));                         \
        test_to_host(h_ticket, ticket, n * sizeof(T));                        \
        test_to_host(h_cas, cas_old, n * sizeof(T));                          \
        test_to_host(h_exch, exch_old, n * sizeof(T));                        \
        /* The sequential reference (add/sub wrap through U). */              \
        T want[C_COUNT];                                                      \
        memcpy(want, init, sizeof want);                                      \
        for (size_t i = 0; i < n; ++i) {                                      \
            want[C_ADD] = (T)((U)want[C_ADD] +                                \
                              (U)AT_OPERAND_(T, seed, i, C_ADD));             \
            want[C_SUB] = (T)((U)want[C_SUB] -                                \
                              (U)AT_OPERAND_(T, seed, i, C_SUB));             \
            T v = AT_OPERAND_(T, seed, i, C_MIN);                             \
            want[C_MIN] = v < want[C_MIN] ? v : want[C_MIN];                  \
            v = AT_OPERAND_(T, seed, i, C_MAX);                               \
            want[C_MAX] = v > want[C_MAX] ? v : want[C_MAX];                  \
            want[C_AND] &= AT_OPERAND_(T, seed, i, C_AND);                    \
            want[C_OR] |= AT_OPERAND_(T, seed, i, C_OR);                      \
            want[C_XOR] ^= AT_OPERAND_(T, seed, i, C_XOR);                    \
        }                                                                     \
        want[C_TICKET] = (T)n;                                                \
        want[C_CAS_LOOP] = (T)(n < AT_CAS_LOOP_MAX ? n : AT_CAS_LOOP_MAX);    \
        for (int c = C_ADD; c <= C_CAS_LOOP; ++c)                             \
            if (c != C_CAS_ONCE)                                              \
                CHECK_MSG(got[c] == want[c], "%s cell %d: got %llu, want "    \
                          "%llu", #sfx, c, (unsigned long long)got[c],        \
                          (unsigned long long)want[c]);                       \
        /* Tickets: each of 0 .. n-1 once. */                                 \
        uint64_t *sorted = (uint64_t *)test_xmalloc((n + 1) * 8);            \
        for (size_t i = 0; i < n; ++i)                                        \
            sorted[i] = (uint64_t)(U)h_ticket[i];                             \
        qsort(sorted, n, 8, cmp_u64);                                         \
        size_t bad = 0;                                                       \
        for (size_t i = 0; i < n; ++i)                                        \
            bad += sorted[i] != i;                                            \
        CHECK_MSG(bad == 0, "%s: %zu tickets are not 0..n-1", #sfx, bad);     \
        /* CAS once: exactly one index saw 7 and its value is stored. */      \
        size_t wins = 0, winner = 0;                                          \
        for (size_t i = 0; i < n; ++i)                                        \
            if (h_cas[i] == (T)7) {                                           \
                ++wins;                                                       \
                winner = i;                                                   \
            } else                                                            \
                bad += h_cas[i] != got[C_CAS_ONCE];                           \
        CHECK_EQ_U64(wins, 1);                                                \
        CHECK_MSG(got[C_CAS_ONCE] == (T)(winner + 100) && bad == 0,          \
                  "%s: cas once stored %llu, winner %zu, %zu losers saw "     \
                  "another value", #sfx,                                      \
                  (unsigned long long)got[C_CAS_ONCE], winner, bad);          \
        /* Exchange: returned values and the final one are the initial     \
         * value and 1 .. n, each once. */                                    \
        for (size_t i = 0; i < n; ++i)                                        \
            sorted[i] = (uint64_t)(U)h_exch[i];                               \
        sorted[n] = (uint64_t)(U)got[C_EXCH];                                 \
        qsort(sorted, n + 1, 8, cmp_u64);                                     \
        uint64_t *expect = (uint64_t *)test_xmalloc((n + 1) * 8);            \
        for (size_t i = 0; i < n; ++i)                                        \
            expect[i] = (uint64_t)(U)(T)(i + 1);                              \
        expect[n] = (uint64_t)(U)init[C_EXCH];                                \
        qsort(expect, n + 1, 8, cmp_u64);                                     \
        CHECK_MSG(memcmp(sorted, expect, (n + 1) * 8) == 0,                   \
                  "%s: exchanged values are not the initial and 1..n", #sfx); \
        free(sorted);                                                         \
        free(expect);                                                         \
        free(h_ticket);                                                       \
        free(h_cas);                                                          \
        free(h_exch);                                                         \
        CHECK_OK(duo_free(cell));                                             \
        CHECK_OK(duo_free(ticket));                                           \
        CHECK_OK(duo_free(cas_old));                                          \
        CHECK_OK(duo_free(exch_old));                                         \
    }

AT_INT_TEST_(i32, int32_t, uint32_t)
AT_INT_TEST_(u32, uint32_t, uint32_t)
AT_INT_TEST_(i64, int64_t, uint64_t)
AT_INT_TEST_(u64, uint64_t, uint64_t)

/* ------------------------------------------------------------------ */
/* Floating point                                                      */

/* Small integers from -10 to 10: partial sums of up to 2^20 of them stay
 * below 2^24 in magnitude, so every order of adding gives the same
 * float.  Min/max operands: quarters from -250 to 250. */
#define AT_ADD_OPERAND_(seed, i) ((double)(int)(at_hash(seed, i) % 21) - 10.0)
#define AT_EXT_OPERAND_(seed, i) \
    (((double)(int)(at_hash((seed) + 1, i) % 2001) - 1000.0) * 0.25)

#define AT_FLOAT_KERNEL_(sfx, T)                                              \
    DUO_KERNEL(hammer_##sfx, size_t n, uint64_t seed, T *cell, T *ticket)    \
    {                                                                         \
        DUO_FOR(i, n)                                                         \
        {                                                                     \
            duo_atomic_add_##sfx(&cell[0], (T)AT_ADD_OPERAND_(seed, i));     \
            duo_atomic_min_##sfx(&cell[1], (T)AT_EXT_OPERAND_(seed, i));     \
            duo_atomic_max_##sfx(&cell[2], (T)AT_EXT_OPERAND_(seed, i));     \
            ticket[i] = duo_atomic_add_##sfx(&cell[3], (T)1);                \
        }                                                                     \
    }                                                                         \
    /* Index i offers special[i % count] to min and max. */                   \
    DUO_KERNEL(specials_##sfx, size_t n, const T *special, size_t count,     \
               T *cell)                                                       \
    {                                                                         \
        DUO_FOR(i, n)                                                         \
        {                                                                     \
            duo_atomic_min_##sfx(&cell[0], special[i % count]);              \
            duo_atomic_max_##sfx(&cell[1], special[i % count]);              \
        }                                                                     \
    }

AT_FLOAT_KERNEL_(f32, float)
AT_FLOAT_KERNEL_(f64, double)

static void test_f32(size_t n)
{
    test_set_context("f32 n=%zu", n);
    const uint64_t seed = test_rng_u64(&rng);
    float init[4] = {0.0f, 1e30f, -1e30f, 0.0f}, got[4];
    float *cell = (float *)test_device_alloc(sizeof init);
    float *ticket = (float *)test_device_alloc(n * sizeof(float));
    test_to_device(cell, init, sizeof init);
    CHECK_OK(DUO_LAUNCH(hammer_f32, n, n, seed, cell, ticket));
    test_to_host(got, cell, sizeof got);
    float want[4] = {0.0f, 1e30f, -1e30f, (float)n};
    for (size_t i = 0; i < n; ++i) {
        want[0] += (float)AT_ADD_OPERAND_(seed, i);
        want[1] = fminf(want[1], (float)AT_EXT_OPERAND_(seed, i));
        want[2] = fmaxf(want[2], (float)AT_EXT_OPERAND_(seed, i));
    }
    for (int c = 0; c < 4; ++c)
        CHECK_BITS_F32(got[c], want[c]);
    float *h = (float *)test_xmalloc(n * sizeof(float));
    test_to_host(h, ticket, n * sizeof(float));
    char *seen = (char *)calloc(n, 1);
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        const float t = h[i];
        if (!(t >= 0.0f && t < (float)n && t == floorf(t)) || seen[(size_t)t])
            ++bad;
        else
            seen[(size_t)t] = 1;
    }
    CHECK_MSG(bad == 0, "f32: %zu returned olds are not 0..n-1 once", bad);
    free(seen);
    free(h);
    CHECK_OK(duo_free(cell));
    CHECK_OK(duo_free(ticket));
}

static void test_f64(size_t n)
{
    test_set_context("f64 n=%zu", n);
    const uint64_t seed = test_rng_u64(&rng);
    double init[4] = {0.0, 1e300, -1e300, 0.0}, got[4];
    double *cell = (double *)test_device_alloc(sizeof init);
    double *ticket = (double *)test_device_alloc(n * sizeof(double));
    test_to_device(cell, init, sizeof init);
    CHECK_OK(DUO_LAUNCH(hammer_f64, n, n, seed, cell, ticket));
    test_to_host(got, cell, sizeof got);
    double want[4] = {0.0, 1e300, -1e300, (double)n};
    for (size_t i = 0; i < n; ++i) {
        want[0] += AT_ADD_OPERAND_(seed, i);
        want[1] = fmin(want[1], AT_EXT_OPERAND_(seed, i));
        want[2] = fmax(want[2], AT_EXT_OPERAND_(seed, i));
    }
    for (int c = 0; c < 4; ++c)
        CHECK_BITS_F64(got[c], want[c]);
    double *h = (double *)test_xmalloc(n * sizeof(double));
    test_to_host(h, ticket, n * sizeof(double));
    char *seen = (char *)calloc(n, 1);
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        const double t = h[i];
        if (!(t >= 0.0 && t < (double)n && t == floor(t)) || seen[(size_t)t])
            ++bad;
        else
            seen[(size_t)t] = 1;
    }
    CHECK_MSG(bad == 0, "f64: %zu returned olds are not 0..n-1 once", bad);
    free(seen);
    free(h);
    CHECK_OK(duo_free(cell));
    CHECK_OK(duo_free(ticket));
}

/* Min and max of specials in the total order, from a start value. */
static void check_specials_f32(const char *what, const float *special,
                         size_t count, float start, float want_min,
                         float want_max)
{
    test_set_context("f32 specials: %s", what);
    const size_t n = 100003;
    float *d = (float *)test_device_alloc(count * sizeof(float));
    float *cell = (float *)test_device_alloc(2 * sizeof(float));
    float init[2] = {start, start}, got[2];
    test_to_device(d, special, count * sizeof(float));
    test_to_device(cell, init, sizeof init);
    CHECK_OK(DUO_LAUNCH(specials_f32, n, n, d, count, cell));
    test_to_host(got, cell, sizeof got);
    CHECK_BITS_F32(got[0], want_min);
    CHECK_BITS_F32(got[1], want_max);
    CHECK_OK(duo_free(d));
    CHECK_OK(duo_free(cell));
}

static void check_specials_f64(const char *what, const double *special,
                         size_t count, double start, double want_min,
                         double want_max)
{
    test_set_context("f64 specials: %s", what);
    const size_t n = 100003;
    double *d = (double *)test_device_alloc(count * sizeof(double));
    double *cell = (double *)test_device_alloc(2 * sizeof(double));
    double init[2] = {start, start}, got[2];
    test_to_device(d, special, count * sizeof(double));
    test_to_device(cell, init, sizeof init);
    CHECK_OK(DUO_LAUNCH(specials_f64, n, n, d, count, cell));
    test_to_host(got, cell, sizeof got);
    CHECK_BITS_F64(got[0], want_min);
    CHECK_BITS_F64(got[1], want_max);
    CHECK_OK(duo_free(d));
    CHECK_OK(duo_free(cell));
}

static void test_specials(void)
{
    const float pnan = test_f32_from_bits(0x7FC00001u);
    const float nnan = test_f32_from_bits(0xFFC00002u);
    const float zeros[2] = {0.0f, -0.0f};
    check_specials_f32("zeros from +0", zeros, 2, 0.0f, -0.0f, 0.0f);
    check_specials_f32("zeros from -0", zeros, 2, -0.0f, -0.0f, 0.0f);
    const float mixed[4] = {3.0f, -INFINITY, pnan, -2.0f};
    check_specials_f32("+NaN above +inf", mixed, 4, 0.0f, -INFINITY, pnan);
    const float neg[4] = {nnan, INFINITY, 5.0f, -0.0f};
    check_specials_f32("-NaN below -inf", neg, 4, 1.0f, nnan, INFINITY);

    const double dpnan = test_f64_from_bits(0x7FF8000000000003ull);
    const double dnnan = test_f64_from_bits(0xFFF8000000000004ull);
    const double dzeros[2] = {-0.0, 0.0};
    check_specials_f64("zeros from +0", dzeros, 2, 0.0, -0.0, 0.0);
    check_specials_f64("zeros from -0", dzeros, 2, -0.0, -0.0, 0.0);
    const double dmixed[4] = {3.0, -INFINITY, dpnan, -2.0};
    check_specials_f64("+NaN above +inf", dmixed, 4, 0.0, -INFINITY, dpnan);
    const double dneg[4] = {dnnan, INFINITY, 5.0, -0.0};
    check_specials_f64("-NaN below -inf", dneg, 4, 1.0, dnnan, INFINITY);
}

/* ------------------------------------------------------------------ */
/* Shared memory: each block counts its live threads in a DUO_SHARED
 * counter, then one thread adds the count to the global total and keeps
 * the largest block count seen. */

#define AT_BLOCK 128
DUO_BLOCK_KERNEL(block_count, AT_BLOCK, 1, size_t n, uint32_t *total,
                 int32_t *largest)
{
    DUO_SHARED(uint32_t, count, 1);
    const size_t block = DUO_BX;
    DUO_THREADS {
        if (DUO_TID == 0)
            count[0] = 0;
    }
    DUO_BARRIER;
    DUO_THREADS {
        if (block * AT_BLOCK + DUO_TID < n)
            duo_atomic_add_u32(&count[0], 1u);
    }
    DUO_BARRIER;
    DUO_THREADS {
        if (DUO_TID == 0) {
            duo_atomic_add_u32(total, count[0]);
            duo_atomic_max_i32(largest, (int32_t)count[0]);
        }
    }
}
DUO_BLOCK_KERNEL_END

static void test_shared(size_t n)
{
    test_set_context("shared n=%zu", n);
    uint32_t *total = (uint32_t *)test_device_alloc(sizeof(uint32_t));
    int32_t *largest = (int32_t *)test_device_alloc(sizeof(int32_t));
    CHECK_OK(duo_memset(total, 0, sizeof(uint32_t)));
    CHECK_OK(duo_memset(largest, 0xFF, sizeof(int32_t))); /* -1 */
    CHECK_OK(DUO_LAUNCH_BLOCKS(block_count, duo_ceil_div(n, AT_BLOCK), 1, n,
                               total, largest));
    uint32_t t = 0;
    int32_t l = 0;
    test_to_host(&t, total, sizeof t);
    test_to_host(&l, largest, sizeof l);
    CHECK_EQ_U64(t, n);
    CHECK_EQ_I64(l, n == 0 ? -1 : (n < AT_BLOCK ? (int32_t)n : AT_BLOCK));
    CHECK_OK(duo_free(total));
    CHECK_OK(duo_free(largest));
}

int main(void)
{
    test_rng_seed(&rng, 0x61746F6D6963ULL);
    test_init_or_skip();
    const size_t sizes[] = {1, 2, 1000003, (size_t)1 << 20};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        test_int_i32(sizes[s]);
        test_int_u32(sizes[s]);
        test_int_i64(sizes[s]);
        test_int_u64(sizes[s]);
        test_f32(sizes[s]);
        test_f64(sizes[s]);
        test_shared(sizes[s]);
    }
    test_shared(0);
    test_specials();
    CHECK_OK(duo_finalize());
    return test_summary("atomic");
}
