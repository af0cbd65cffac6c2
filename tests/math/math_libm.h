/*
 * math_libm.h - the C library's double function that matches each float
 * and each double function of math_funcs.h (exp for expf, atan2 for atan2f, ...): the
 * comparison of test_math.c (rounded to float, within 1 ulp), the fast
 * first guess of math_ref.c (checked there before it is trusted) and the
 * search for hard cases of test_math_mpfr.c.
 */
#ifndef DUO_TESTS_MATH_LIBM_H
#define DUO_TESTS_MATH_LIBM_H

#ifdef __cplusplus
extern "C" {
#endif

/* f: an MF_ number; y is read only by the two-argument functions. */
double mf_libm(int f, double x, double y);

/* The C library's double function itself for each double function of
 * math_funcs.h (f: an MD_ number).  Here, in a C file that the C compiler
 * builds, rather than in test_math.c, which a CUDA build compiles as
 * CUDA C++: built that way with GCC 13 and glibc 2.39, a switch like this
 * one in test_math.c returned hypot's value for exp, exp2, expm1, log
 * and log2 (the same switch in a small program did not). */
double mf_libm_d(int f, double x, double y);

#ifdef __cplusplus
}
#endif

#endif /* DUO_TESTS_MATH_LIBM_H */
