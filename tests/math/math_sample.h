/*
 * math_sample.h - arguments for the tests of <duo/math.h>: every pair of
 * special values (zeros, infinities, NaNs with payloads, subnormals, the
 * overflow and underflow thresholds, the edges between each function's
 * methods), then pseudo-random ones: uniform bit patterns, moderate
 * values and values spread over all exponents.
 */
#ifndef DUO_TESTS_MATH_SAMPLE_H
#define DUO_TESTS_MATH_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Number of special values; the sample starts with all their pairs
 * (x = special[i], y = special[j]). */
size_t mf_special_count(void);
uint32_t mf_special_bits(size_t i);

/* Fills x[0..n) and y[0..n). */
void mf_sample(float *x, float *y, size_t n, uint64_t seed);

/* Doubles for the double functions: special values (zeros, infinities,
 * NaNs, subnormals, overflow and underflow thresholds, around 1), then
 * uniform bit patterns, moderate values and values over all exponents. */
void mf_sample_d(double *x, size_t n, uint64_t seed);

/* Pairs (x, y) for powf and pow: every pair of pow's special values
 * (zeros, infinities, NaNs, +-1, odd and even integers, halves,
 * subnormals, the thresholds), then bit patterns, x in (0, 4] with y in
 * [-8, 8], x near 1 with y large, results near the overflow and
 * underflow thresholds, negative x with integer y, exact and halfway
 * results (b^(n/d) for a perfect d-th power x), subnormal x, and y over
 * all exponents. */
void mf_sample_pow(float *x, float *y, size_t n, uint64_t seed);
void mf_sample_pow_d(double *x, double *y, size_t n, uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif /* DUO_TESTS_MATH_SAMPLE_H */
