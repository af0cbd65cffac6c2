/*
 * test_util.c - shared helpers for duo's CTest suite (see test_util.h).
 * Common subset of C11 and C++: nvcc compiles it in a CUDA build.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "test_util.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>

long test_checks;
long test_failures;

/* Print the first failures in full; after that only count them. */
#define TEST_MAX_PRINTED 60

static char context[512];

/* ------------------------------------------------------------------ */
/* RNG                                                                 */

uint64_t test_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

void test_rng_seed(test_rng *rng, uint64_t seed)
{
    uint64_t state = seed;
    for (int i = 0; i < 4; ++i)
        rng->s[i] = test_splitmix64(&state);
    /* splitmix64 is a bijection of distinct states, so the four words
     * cannot all be zero; keep the guarantee explicit anyway. */
    if ((rng->s[0] | rng->s[1] | rng->s[2] | rng->s[3]) == 0)
        rng->s[0] = 1;
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* xoshiro256** */
uint64_t test_rng_u64(test_rng *rng)
{
    uint64_t *s = rng->s;
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint32_t test_rng_u32(test_rng *rng) { return (uint32_t)(test_rng_u64(rng) >> 32); }

int64_t test_rng_range(test_rng *rng, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1; /* 0: the full range */
    uint64_t r = test_rng_u64(rng);
    if (span != 0)
        r %= span; /* the bias is irrelevant for tests */
    return (int64_t)((uint64_t)lo + r);
}

double test_rng_uniform(test_rng *rng)
{
    /* 53 random bits: k * 2^-52 - 1 for k in [0, 2^53), i.e. [-1, 1). */
    int64_t k = (int64_t)(test_rng_u64(rng) >> 11);
    return (double)k * (1.0 / 4503599627370496.0) - 1.0;
}

float test_rng_uniform_f(test_rng *rng)
{
    /* k * 2^-23 - 1 for k in [0, 2^24): every step exact in float. */
    int32_t k = (int32_t)(test_rng_u64(rng) >> 40);
    return (float)k * (1.0f / 8388608.0f) - 1.0f;
}

double test_rng_wide(test_rng *rng, int emin, int emax)
{
    uint64_t r = test_rng_u64(rng);
    double mant = 1.0 + (double)(r >> 12) * (1.0 / 4503599627370496.0);
    int e = (int)test_rng_range(rng, emin, emax);
    double v = ldexp(mant, e);
    return (r & 1) ? -v : v;
}

float test_rng_wide_f(test_rng *rng, int emin, int emax)
{
    uint64_t r = test_rng_u64(rng);
    float mant = 1.0f + (float)(r >> 41) * (1.0f / 8388608.0f); /* 23 bits */
    int e = (int)test_rng_range(rng, emin, emax);
    float v = ldexpf(mant, e);
    return (r & 1) ? -v : v;
}

void test_rng_bytes(test_rng *rng, void *p, size_t bytes)
{
    unsigned char *b = (unsigned char *)p;
    size_t i = 0;
    while (i < bytes) {
        uint64_t r = test_rng_u64(rng);
        for (int k = 0; k < 8 && i < bytes; ++k, ++i)
            b[i] = (unsigned char)(r >> (8 * k));
    }
}

/* ------------------------------------------------------------------ */
/* Poison and bits                                                     */

void test_poison_bytes(void *p, size_t bytes) { memset(p, TEST_POISON_BYTE, bytes); }
void test_poison_f32(float *p, size_t n) { memset(p, TEST_POISON_BYTE, n * sizeof *p); }
void test_poison_f64(double *p, size_t n) { memset(p, TEST_POISON_BYTE, n * sizeof *p); }

uint32_t test_bits_f32(float v)
{
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

uint64_t test_bits_f64(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

float test_f32_from_bits(uint32_t bits)
{
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

double test_f64_from_bits(uint64_t bits)
{
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

int test_is_poison_f32(float v) { return test_bits_f32(v) == 0xFFFFFFFFu; }
int test_is_poison_f64(double v) { return test_bits_f64(v) == 0xFFFFFFFFFFFFFFFFULL; }

float test_nan_f32(void) { return test_f32_from_bits(0x7FC00000u); }
double test_nan_f64(void) { return test_f64_from_bits(0x7FF8000000000000ULL); }

/* By bits, so no compiler option can fold it away. */
int test_isnan_f32(float v)
{
    uint32_t b = test_bits_f32(v);
    return (b & 0x7F800000u) == 0x7F800000u && (b & 0x007FFFFFu) != 0;
}

int test_isnan_f64(double v)
{
    uint64_t b = test_bits_f64(v);
    return (b & 0x7FF0000000000000ULL) == 0x7FF0000000000000ULL &&
           (b & 0x000FFFFFFFFFFFFFULL) != 0;
}

/* ------------------------------------------------------------------ */
/* Checks                                                              */

void test_set_context(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(context, sizeof context, fmt, ap);
    va_end(ap);
}

const char *test_context(void) { return context; }

void test_fail_at(const char *file, int line, const char *fmt, ...)
{
    ++test_failures;
    if (test_failures > TEST_MAX_PRINTED) {
        if (test_failures == TEST_MAX_PRINTED + 1)
            printf("... further failures are counted but not printed\n");
        return;
    }
    const char *slash = strrchr(file, '/');
    printf("%s:%d: FAIL", slash ? slash + 1 : file, line);
    if (context[0] != '\0')
        printf(" [%s]", context);
    printf(": ");
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

int test_check_status_at(const char *file, int line, const char *call,
                         duo_status got, duo_status want)
{
    ++test_checks;
    if (got == want)
        return 1;
    test_fail_at(file, line, "%s returned %d (%s), want %d (%s); "
                 "duo_last_error: \"%s\"", call, (int)got,
                 duo_status_string(got), (int)want, duo_status_string(want),
                 duo_last_error());
    return 0;
}

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

int test_contains_word(const char *haystack, const char *word)
{
    if (haystack == NULL || word == NULL || word[0] == '\0')
        return 0;
    size_t len = strlen(word);
    for (const char *p = strstr(haystack, word); p != NULL;
         p = strstr(p + 1, word)) {
        int left_ok = p == haystack || !ident_char(p[-1]);
        int right_ok = !ident_char(p[len]);
        if (left_ok && right_ok)
            return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Start and finish                                                    */

int test_on_gpu(void) { return strcmp(duo_backend_name(), "cuda") == 0; }

int test_quick(void)
{
    const char *quick = getenv("DUO_TEST_QUICK");
    return quick != NULL && strcmp(quick, "1") == 0;
}

void test_init_or_skip(void)
{
    duo_status status = duo_init();
    if (status == DUO_SUCCESS)
        return;
#if defined(DUO_BACKEND_CUDA)
    if (status == DUO_ERROR_NO_DEVICE) {
        printf("SKIP: no GPU: %s\n", duo_last_error());
        fflush(stdout);
        exit(TEST_SKIP);
    }
#endif
    printf("FAIL: duo_init() returned %d (%s): %s\n", (int)status,
           duo_status_string(status), duo_last_error());
    fflush(stdout);
    exit(1);
}

int test_summary(const char *name)
{
    printf("%s: %ld checks, %ld failures\n", name, test_checks,
           test_failures);
    printf("%s\n", test_failures == 0 ? "PASS" : "FAIL");
    fflush(stdout);
    return test_failures == 0 && test_checks > 0 ? 0 : 1;
}

void *test_xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL) {
        printf("FAIL: test could not allocate %zu bytes of host memory\n",
               bytes);
        exit(1);
    }
    return p;
}

void *test_device_alloc(size_t bytes)
{
    void *p = NULL;
    duo_status status = duo_malloc(&p, bytes);
    if (status != DUO_SUCCESS || (bytes > 0 && p == NULL)) {
        printf("FAIL: duo_malloc(%zu) returned %s: %s\n", bytes,
               duo_status_string(status), duo_last_error());
        exit(1);
    }
    return p;
}

void test_to_device(void *dst, const void *src, size_t bytes)
{
    duo_status status = duo_memcpy(dst, src, bytes, DUO_HOST_TO_DEVICE);
    if (status != DUO_SUCCESS) {
        printf("FAIL: duo_memcpy H2D of %zu bytes returned %s: %s\n", bytes,
               duo_status_string(status), duo_last_error());
        exit(1);
    }
}

void test_to_host(void *dst, const void *src, size_t bytes)
{
    duo_status status = duo_memcpy(dst, src, bytes, DUO_DEVICE_TO_HOST);
    if (status != DUO_SUCCESS) {
        printf("FAIL: duo_memcpy D2H of %zu bytes returned %s: %s\n", bytes,
               duo_status_string(status), duo_last_error());
        exit(1);
    }
}

double test_seconds(void)
{
    /* The profiler's clock: a wall-clock adjustment must not make the
     * wall time around a profiled region shorter than the region. */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------------ */
/* The order of src/reduce_order.h, restated from its prose.            */

/* Step 2's STEPS: the largest power of two <= MAX_STEPS that still leaves
 * at least 1024 (whole) chunks of STEPS * LANES elements, and at least 1.
 * Searched from the top, unlike the header's loop from the bottom. */
size_t test_order_steps(size_t n, size_t lanes)
{
    for (size_t steps = ORD_MAX_STEPS; steps > 1; steps /= 2)
        if (n / (steps * lanes) >= ORD_MIN_CHUNKS)
            return steps;
    return 1;
}

/* Step 4: v[i] = v[i] + v[i + h] for i < h, h = size/2 .. 1. */
static void fold_halves(double *v, size_t size)
{
    for (size_t h = size / 2; h >= 1; h /= 2)
        for (size_t i = 0; i < h; ++i)
            v[i] = v[i] + v[i + h];
}

/* Step 4 over a block: each warp of 32 threads, then the warp results. */
static double order_block_fold(double *thread, size_t threads)
{
    double warp[ORD_FINAL_THREADS / ORD_WARP];
    const size_t warps = threads / ORD_WARP;
    for (size_t w = 0; w < warps; ++w) {
        fold_halves(thread + w * ORD_WARP, ORD_WARP);
        warp[w] = thread[w * ORD_WARP];
    }
    fold_halves(warp, warps);
    return warp[0];
}

double test_order_sum(size_t n, size_t elem_size, test_value_fn value,
                      const void *ctx)
{
    const size_t vec = 16 / elem_size;            /* step 1 */
    const size_t lanes = ORD_THREADS * vec;
    const size_t steps = test_order_steps(n, lanes);   /* step 2 */
    const size_t chunk = steps * lanes;
    const size_t chunks = (n + chunk - 1) / chunk;
    double *partial = (double *)test_xmalloc((chunks + 1) * sizeof(double));
    double *lane = (double *)test_xmalloc(lanes * sizeof(double));
    double thread[ORD_FINAL_THREADS];

    for (size_t c = 0; c < chunks; ++c) {
        /* Step 2: lane l adds c*CHUNK + s*LANES + l for s = 0..STEPS-1. */
        for (size_t l = 0; l < lanes; ++l) {
            lane[l] = 0.0;
            for (size_t s = 0; s < steps; ++s) {
                const size_t i = c * chunk + s * lanes + l;
                if (i < n)
                    lane[l] = lane[l] + value(ctx, i);
            }
        }
        /* Step 3: thread t's lanes vec*t .. vec*t + vec-1, a pair tree. */
        for (size_t t = 0; t < ORD_THREADS; ++t) {
            const double *v = lane + t * vec;
            if (vec == 4)
                thread[t] = (v[0] + v[1]) + (v[2] + v[3]);
            else
                thread[t] = v[0] + v[1];
        }
        partial[c] = order_block_fold(thread, ORD_THREADS); /* step 4 */
    }
    /* Step 5: thread t adds partials t, t + 1024, ... in order. */
    for (size_t t = 0; t < ORD_FINAL_THREADS; ++t) {
        thread[t] = 0.0;
        for (size_t p = t; p < chunks; p += ORD_FINAL_THREADS)
            thread[t] = thread[t] + partial[p];
    }
    const double sum = order_block_fold(thread, ORD_FINAL_THREADS);
    free(partial);
    free(lane);
    return sum;
}

