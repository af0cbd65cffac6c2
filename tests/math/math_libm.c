/*
 * math_libm.c - the C library's double functions by MF_ and MD_ number
 * (math_libm.h).
 */
#include "math_libm.h"

#include <math.h>

#include "math_funcs.h"

double mf_libm(int f, double x, double y)
{
    switch (f) {
    case MF_EXPF: return exp(x);
    case MF_EXP2F: return exp2(x);
    case MF_EXPM1F: return expm1(x);
    case MF_LOGF: return log(x);
    case MF_LOG2F: return log2(x);
    case MF_LOG10F: return log10(x);
    case MF_LOG1PF: return log1p(x);
    case MF_SINF: case MF_SINCOSF_SIN: return sin(x);
    case MF_COSF: case MF_SINCOSF_COS: return cos(x);
    case MF_TANF: return tan(x);
    case MF_ATANF: return atan(x);
    case MF_ASINF: return asin(x);
    case MF_ACOSF: return acos(x);
    case MF_SINHF: return sinh(x);
    case MF_COSHF: return cosh(x);
    case MF_TANHF: return tanh(x);
    case MF_CBRTF: return cbrt(x);
    case MF_ERFF: return erf(x);
    case MF_ATAN2F: return atan2(x, y);
    case MF_HYPOTF: return hypot(x, y);
    case MF_POWF: return pow(x, y);
    }
    return NAN;
}

double mf_libm_d(int f, double x, double y)
{
    switch (f) {
    case MD_EXP: return exp(x);
    case MD_EXP2: return exp2(x);
    case MD_EXPM1: return expm1(x);
    case MD_LOG: return log(x);
    case MD_LOG2: return log2(x);
    case MD_LOG10: return log10(x);
    case MD_LOG1P: return log1p(x);
    case MD_SIN: case MD_SINCOS_SIN: return sin(x);
    case MD_COS: case MD_SINCOS_COS: return cos(x);
    case MD_TAN: return tan(x);
    case MD_ATAN: return atan(x);
    case MD_ASIN: return asin(x);
    case MD_ACOS: return acos(x);
    case MD_SINH: return sinh(x);
    case MD_COSH: return cosh(x);
    case MD_TANH: return tanh(x);
    case MD_CBRT: return cbrt(x);
    case MD_ERF: return erf(x);
    case MD_POW: return pow(x, y);
    case MD_ATAN2: return atan2(x, y);
    case MD_HYPOT: return hypot(x, y);
    default: return NAN;
    }
}
