/*
 * test_util.h - shared helpers for duo's CTest suite.
 *
 * Every test source is built with duo_add_executable(), so in a CUDA build
 * nvcc compiles it (and this helper) as CUDA C++: everything here is in
 * the common subset of C11 and C++.
 *
 *  - a deterministic RNG (xoshiro256** seeded through splitmix64), so a
 *    failure reproduces exactly;
 *  - poison: fill outputs with a recognisable pattern before a call, to
 *    prove afterwards that the call wrote them (or left them alone);
 *  - CHECK macros that print file:line and the values, count failures and
 *    keep going;
 *  - test_init_or_skip(): duo_init(), or "SKIP: no GPU" and exit 77 in a
 *    CUDA build on a machine without a GPU;
 *  - test_summary(): the final line, and the exit status.
 */
#ifndef DUO_TEST_UTIL_H
#define DUO_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <duo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit status CTest treats as "skipped" (SKIP_RETURN_CODE in CMake). */
#define TEST_SKIP 77

/* ------------------------------------------------------------------ */
/* Deterministic random numbers                                        */

typedef struct test_rng {
    uint64_t s[4];
} test_rng;

/* splitmix64 step: also used to seed xoshiro (never an all-zero state). */
uint64_t test_splitmix64(uint64_t *state);
void test_rng_seed(test_rng *rng, uint64_t seed);
uint64_t test_rng_u64(test_rng *rng);
uint32_t test_rng_u32(test_rng *rng);
/* Uniform integer in [lo, hi] (inclusive), lo <= hi. */
int64_t test_rng_range(test_rng *rng, int64_t lo, int64_t hi);
/* Uniform in [-1, 1): a multiple of 2^-52 (double) or 2^-23 (float). */
double test_rng_uniform(test_rng *rng);
float test_rng_uniform_f(test_rng *rng);
/* Random sign, random mantissa in [1, 2) (never zero) and a random
 * exponent in [emin, emax]: values over a wide range of magnitudes, so
 * that sums round and their order matters. */
double test_rng_wide(test_rng *rng, int emin, int emax);
float test_rng_wide_f(test_rng *rng, int emin, int emax);
void test_rng_bytes(test_rng *rng, void *p, size_t bytes);

/* ------------------------------------------------------------------ */
/* Poison                                                              */

/* Floating point poison: every byte 0xFF, which is a NaN (negative,
 * quiet, all payload bits set); no arithmetic result produces it. */
#define TEST_POISON_BYTE 0xFF
/* Integer and index sentinels. */
#define TEST_POISON_I32 ((int32_t)0x5A5A5A5A)
#define TEST_POISON_I64 ((int64_t)0x5A5A5A5A5A5A5A5ALL)
#define TEST_POISON_U64 ((uint64_t)0xA5A5A5A5A5A5A5A5ULL)
#define TEST_POISON_SIZE ((size_t)0x5A5A5A5A5A5A5A5AULL)
#define TEST_POISON_PTR ((void *)(uintptr_t)0x5A5A5A5A5A5A5A50ULL)

void test_poison_bytes(void *p, size_t bytes);
void test_poison_f32(float *p, size_t n);
void test_poison_f64(double *p, size_t n);
int test_is_poison_f32(float v);
int test_is_poison_f64(double v);

/* Bits of a float / double, and NaNs with a chosen bit pattern. */
uint32_t test_bits_f32(float v);
uint64_t test_bits_f64(double v);
float test_f32_from_bits(uint32_t bits);
double test_f64_from_bits(uint64_t bits);
/* A quiet NaN distinct from the poison pattern. */
float test_nan_f32(void);
double test_nan_f64(void);
int test_isnan_f64(double v);
int test_isnan_f32(float v);

/* ------------------------------------------------------------------ */
/* Checks                                                              */

extern long test_checks;
extern long test_failures;

/* Prints "file:line: " and the message (printf format) for a failure,
 * counts it; after many failures stays quiet but still counts. */
void test_fail_at(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Context printed with each failure (e.g. the case being tested). */
void test_set_context(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
const char *test_context(void);

int test_check_status_at(const char *file, int line, const char *call,
                         duo_status got, duo_status want);
int test_contains_word(const char *haystack, const char *word);

#define CHECK(cond)                                                       \
    ((void)(++test_checks,                                                \
            (cond) ? 0                                                    \
                   : (test_fail_at(__FILE__, __LINE__, "CHECK(%s)", #cond), \
                      0)))

#define CHECK_MSG(cond, ...)                                              \
    ((void)(++test_checks,                                                \
            (cond) ? 0 : (test_fail_at(__FILE__, __LINE__, __VA_ARGS__), 0)))

/* The call's status must be `want`; on mismatch prints both and
 * duo_last_error().  Evaluates to 1 on match. */
#define CHECK_STATUS(call, want) \
    test_check_status_at(__FILE__, __LINE__, #call, (call), (want))
#define CHECK_OK(call) CHECK_STATUS(call, DUO_SUCCESS)

#define CHECK_EQ_I64(got, want)                                               \
    do {                                                                      \
        long long got_ = (long long)(got), want_ = (long long)(want);         \
        CHECK_MSG(got_ == want_, "%s == %s: got %lld, want %lld", #got,       \
                  #want, got_, want_);                                        \
    } while (0)

#define CHECK_EQ_U64(got, want)                                               \
    do {                                                                      \
        unsigned long long got_ = (unsigned long long)(got),                  \
                           want_ = (unsigned long long)(want);                \
        CHECK_MSG(got_ == want_, "%s == %s: got %llu (0x%llx), want %llu "    \
                  "(0x%llx)", #got, #want, got_, got_, want_, want_);         \
    } while (0)

/* Bitwise equality of floating-point values (prints %a and the bits). */
#define CHECK_BITS_F64(got, want)                                             \
    do {                                                                      \
        double got_ = (got), want_ = (want);                                  \
        CHECK_MSG(test_bits_f64(got_) == test_bits_f64(want_),                \
                  "%s == %s bitwise: got %.17g (%a, 0x%016llx), want %.17g "  \
                  "(%a, 0x%016llx)", #got, #want, got_, got_,                 \
                  (unsigned long long)test_bits_f64(got_), want_, want_,      \
                  (unsigned long long)test_bits_f64(want_));                  \
    } while (0)

#define CHECK_BITS_F32(got, want)                                             \
    do {                                                                      \
        float got_ = (got), want_ = (want);                                   \
        CHECK_MSG(test_bits_f32(got_) == test_bits_f32(want_),                \
                  "%s == %s bitwise: got %.9g (%a, 0x%08x), want %.9g (%a, "  \
                  "0x%08x)", #got, #want, (double)got_, (double)got_,         \
                  (unsigned)test_bits_f32(got_), (double)want_,               \
                  (double)want_, (unsigned)test_bits_f32(want_));             \
    } while (0)

/* |got - want| <= tol, with all three printed on failure. */
#define CHECK_NEAR(got, want, tol)                                            \
    do {                                                                      \
        double got_ = (double)(got), want_ = (double)(want),                  \
               tol_ = (double)(tol);                                          \
        double err_ = got_ > want_ ? got_ - want_ : want_ - got_;             \
        CHECK_MSG(err_ <= tol_, "|%s - %s| <= %s: got %.17g, want %.17g, "    \
                  "error %.3g > tolerance %.3g", #got, #want, #tol, got_,     \
                  want_, err_, tol_);                                         \
    } while (0)

/* The string contains `needle` as a substring. */
#define CHECK_CONTAINS(str, needle)                                           \
    do {                                                                      \
        const char *str_ = (str);                                             \
        CHECK_MSG(str_ != NULL && strstr(str_, (needle)) != NULL,             \
                  "%s contains \"%s\": got \"%s\"", #str, (needle),           \
                  str_ ? str_ : "(null)");                                    \
    } while (0)

/* The string contains `word` delimited by non-identifier characters. */
#define CHECK_CONTAINS_WORD(str, word)                                        \
    do {                                                                      \
        const char *str_ = (str);                                             \
        CHECK_MSG(test_contains_word(str_, (word)),                           \
                  "%s names \"%s\": got \"%s\"", #str, (word),                \
                  str_ ? str_ : "(null)");                                    \
    } while (0)

/* ------------------------------------------------------------------ */
/* Start and finish                                                    */

/* duo_init(); in a CUDA build without a usable GPU prints
 * "SKIP: no GPU: <message>" and exits TEST_SKIP; any other failure
 * prints the error and exits 1. */
void test_init_or_skip(void);
/* 1 when the work runs on a GPU: a CUDA build that did not take the host
 * path (duo_backend_name() is "cuda"). */
int test_on_gpu(void);
/* 1 under DUO_TEST_QUICK=1, which the sanitizer sweep sets for its slow
 * tools (tests/sanitize/gpu_sweep.py): tests shorten their longest loops. */
int test_quick(void);

/* Prints "<name>: N checks, M failures" and returns the exit status
 * (0 when nothing failed). */
int test_summary(const char *name);

/* malloc that exits on failure (host scratch for references). */
void *test_xmalloc(size_t bytes);

/* Device buffer of `bytes` (exits on failure, counted as a test failure),
 * and copies to / from it. */
void *test_device_alloc(size_t bytes);
void test_to_device(void *dst, const void *src, size_t bytes);
void test_to_host(void *dst, const void *src, size_t bytes);

/* ------------------------------------------------------------------ */
/* The summation order of src/reduce_order.h, restated from its prose:
 * an independent serial reference for the bits of every backend.      */

enum {
    ORD_THREADS = 256,        /* threads per chunk                       */
    ORD_MAX_STEPS = 16,       /* most vectors a lane adds per chunk      */
    ORD_MIN_CHUNKS = 1024,    /* chunks that more steps must still leave */
    ORD_FINAL_THREADS = 1024, /* threads folding the chunk partials      */
    ORD_WARP = 32
};

/* Step 2's STEPS for n elements of `lanes` lanes. */
size_t test_order_steps(size_t n, size_t lanes);

/* Sum of value(ctx, i), i < n, in the order duo_reduce uses for n
 * elements of elem_size bytes (4: f32, 8: f64). */
typedef double (*test_value_fn)(const void *ctx, size_t i);
double test_order_sum(size_t n, size_t elem_size, test_value_fn value,
                      const void *ctx);

/* Seconds from a monotonic clock (progress / timing reports). */
double test_seconds(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DUO_TEST_UTIL_H */
