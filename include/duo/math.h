/*
 * duo/math.h - float math functions that give the same bits on every
 * backend: serial, OpenMP, a CUDA build's host path and the GPU.
 *
 *   #include <duo/math.h>
 *
 *   DUO_KERNEL(wave, size_t n, const float *x, float *y)
 *   {
 *       DUO_FOR(i, n)
 *           y[i] = duo_expf(-x[i]) * duo_sinf(x[i]);
 *   }
 *
 * Every function is callable in kernels (DUO_DEVICE) and in host code,
 * and is correctly rounded (round to nearest, ties to even) for every
 * float argument: the result is the float nearest the exact value, so it
 * is the same on every machine and compiler.  tests/math/exhaustive.c
 * checks each one-argument function on all 2^32 inputs against MPFR
 * (profiles/math/ has the record); atan2f, hypotf and powf on large
 * samples (powf: exact and halfway cases decided exactly, math_pow.h
 * says what is and is not proven).
 *
 *   duo_expf  duo_exp2f  duo_expm1f  duo_logf  duo_log2f  duo_log10f
 *   duo_log1pf  duo_sinf  duo_cosf  duo_tanf  duo_sincosf  duo_atanf
 *   duo_atan2f  duo_asinf  duo_acosf  duo_sinhf  duo_coshf  duo_tanhf
 *   duo_cbrtf  duo_erff  duo_hypotf  duo_powf
 *
 * Double functions, at most 1 ulp from the exact value (below 0.51 ulp
 * for normal results, duo_pow and duo_sinh below 0.53, duo_cosh below
 * 0.56, duo_atan2 0.75 measured at a result near 2^-1021), the
 * same bits everywhere:
 *
 *   duo_exp  duo_exp2  duo_expm1  duo_log  duo_log2  duo_log10
 *   duo_log1p  duo_sin  duo_cos  duo_tan  duo_sincos  duo_atan
 *   duo_atan2  duo_asin  duo_acos  duo_sinh  duo_cosh  duo_tanh
 *   duo_cbrt  duo_erf  duo_hypot  duo_pow
 *
 * (sin, cos, tan and sincos reduce exactly up to DBL_MAX; sincos gives
 * the bits of duo_sin and duo_cos; profiles/math/double.md has the
 * measured errors.)
 *
 * Special values as C11 Annex F says: NaN in gives NaN out (the argument's
 * payload, quieted), +-0 and +-inf as specified (sinf(-0) = -0,
 * logf(+-0) = -inf, atan2f(+-0, -0) = +-pi, hypotf(inf, NaN) = +inf,
 * powf(NaN, 0) = powf(1, NaN) = 1, powf(-8, 1/3.f) = NaN, ...),
 * overflow gives +-inf and underflow rounds to subnormals or 0.  Domain
 * errors (logf(-1), asinf(2), sinf(inf)) return NaN (0x7fc00000; the
 * double functions 0x7ff8000000000000); nothing traps and errno is never
 * read or written.  sinf, cosf and tanf reduce
 * huge arguments exactly (Payne-Hanek): sinf(1e38f) is right too.
 *
 * How: each function evaluates in double precision, carrying a pair of
 * doubles where a sum would lose bits, to a relative error below about
 * 2^-58, then rounds once to float (math_core.h says why that gives the
 * same bits everywhere).  Every float function first
 * tries a fast path in plain double with a proven error bound, and
 * returns its result only when a rounding test on the bits below float
 * precision shows it rounds as the exact value does (duo_m_round_ok_);
 * otherwise, rarely, the careful path above decides, so the bits are the
 * same either way (tests/math/fast_vs_cr.c).  Written from the published
 * methods (Cody-Waite and Payne-Hanek reduction, Taylor series on small
 * intervals with tables, error-free transformations), as the CORE-MATH
 * project does.
 * The double functions use the same methods on pairs of doubles, to a
 * relative error below about 2^-60 before one last rounding (twice for
 * subnormal results, still within 1 ulp).
 *
 * Not supported: compiling with --use_fast_math / -ffast-math, or with
 * a floating-point contraction mode other than off on the host
 * (tests/test_math.c fails when the build contracts).
 *
 * This header is not included by <duo.h>; include it where it is used.
 */
#ifndef DUO_MATH_H
#define DUO_MATH_H

#include <duo/math_core.h>

#include <duo/math_atan.h>
#include <duo/math_erf.h>
#include <duo/math_exp.h>
#include <duo/math_hyp.h>
#include <duo/math_log.h>
#include <duo/math_misc.h>
#include <duo/math_pow.h>
#include <duo/math_trig.h>

#endif /* DUO_MATH_H */
