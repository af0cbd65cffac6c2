/*
 * math_ref.h - the correctly rounded float result of each function in
 * math_funcs.h, for exhaustive.c and test_math_mpfr.c; and MPFR's value
 * of each double function, for test_math_mpfr.c and double_ulps.c.
 *
 * The value comes from glibc's double function (error at most a few
 * double ulps) rounded to float, unless that double lies within 2^20
 * double ulps of a float rounding boundary, or the result is near the
 * subnormal or overflow range: then MPFR computes it, rounded to float
 * with subnormals as IEEE 754 has them.  The window is 2^20 times wider
 * than glibc's error, so the result is the correctly rounded one either
 * way; with force_mpfr every value comes from MPFR.
 */
#ifndef DUO_TESTS_MATH_REF_H
#define DUO_TESTS_MATH_REF_H

#include <mpfr.h>

typedef struct mref_ctx {
    mpfr_t x, y, r;
    long mpfr_calls;
} mref_ctx;

/* Per thread: MPFR's exponent range is per thread. */
void mref_init(mref_ctx *c);
void mref_free(mref_ctx *c);
/* The correctly rounded f(x) (f(x, y) for the two-argument ones). */
float mref_eval(mref_ctx *c, int f, float x, float y, int force_mpfr);

/* e = double function f (an MD_ number) of a (and b for the two-argument
 * ones), rounded to nearest at e's precision. */
void mref_exact_d(int f, mpfr_ptr e, mpfr_srcptr a, mpfr_srcptr b);

#endif /* DUO_TESTS_MATH_REF_H */
