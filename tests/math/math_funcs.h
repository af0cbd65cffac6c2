/*
 * math_funcs.h - the functions of <duo/math.h> by number, for the tests
 * and tools that run each of them over many arguments (test_math.c,
 * test_math_mpfr.c, exhaustive.c, gpu_sweep.c).
 *
 * duo_math_eval(f, x, y) is callable in kernels; y is read only by the
 * two-argument functions.  sincosf appears twice: its sine and its
 * cosine.  duo_math_eval_d(f, x, y) likewise for the double functions.
 */
#ifndef DUO_TESTS_MATH_FUNCS_H
#define DUO_TESTS_MATH_FUNCS_H

#include <duo/math.h>

enum {
    MF_EXPF, MF_EXP2F, MF_EXPM1F, MF_LOGF, MF_LOG2F, MF_LOG10F, MF_LOG1PF,
    MF_SINF, MF_COSF, MF_TANF, MF_SINCOSF_SIN, MF_SINCOSF_COS, MF_ATANF,
    MF_ASINF, MF_ACOSF, MF_SINHF, MF_COSHF, MF_TANHF, MF_CBRTF, MF_ERFF,
    MF_ATAN2F, MF_HYPOTF, MF_POWF,
    MF_COUNT
};

/* Functions before MF_ATAN2F take one argument; from it on, two. */
#define MF_FIRST_BINARY MF_ATAN2F

static const char *const mf_names[MF_COUNT] = {
    "expf", "exp2f", "expm1f", "logf", "log2f", "log10f", "log1pf",
    "sinf", "cosf", "tanf", "sincosf.sin", "sincosf.cos", "atanf",
    "asinf", "acosf", "sinhf", "coshf", "tanhf", "cbrtf", "erff",
    "atan2f", "hypotf", "powf"};

DUO_DEVICE float duo_math_eval(int f, float x, float y)
{
    float s, c;
    switch (f) {
    case MF_EXPF: return duo_expf(x);
    case MF_EXP2F: return duo_exp2f(x);
    case MF_EXPM1F: return duo_expm1f(x);
    case MF_LOGF: return duo_logf(x);
    case MF_LOG2F: return duo_log2f(x);
    case MF_LOG10F: return duo_log10f(x);
    case MF_LOG1PF: return duo_log1pf(x);
    case MF_SINF: return duo_sinf(x);
    case MF_COSF: return duo_cosf(x);
    case MF_TANF: return duo_tanf(x);
    case MF_SINCOSF_SIN: duo_sincosf(x, &s, &c); return s;
    case MF_SINCOSF_COS: duo_sincosf(x, &s, &c); return c;
    case MF_ATANF: return duo_atanf(x);
    case MF_ASINF: return duo_asinf(x);
    case MF_ACOSF: return duo_acosf(x);
    case MF_SINHF: return duo_sinhf(x);
    case MF_COSHF: return duo_coshf(x);
    case MF_TANHF: return duo_tanhf(x);
    case MF_CBRTF: return duo_cbrtf(x);
    case MF_ERFF: return duo_erff(x);
    case MF_ATAN2F: return duo_atan2f(x, y);
    case MF_HYPOTF: return duo_hypotf(x, y);
    case MF_POWF: return duo_powf(x, y);
    default: return 0.0f;
    }
}

/* The double functions, by number (at most 1 ulp, the same bits
 * everywhere); sincos appears twice, as for the floats. */
enum {
    MD_EXP, MD_EXP2, MD_EXPM1, MD_LOG, MD_LOG2, MD_LOG10, MD_LOG1P, MD_SIN,
    MD_COS, MD_TAN, MD_SINCOS_SIN, MD_SINCOS_COS, MD_ATAN, MD_ASIN, MD_ACOS,
    MD_SINH, MD_COSH, MD_TANH, MD_CBRT, MD_ERF,
    MD_ATAN2, MD_HYPOT, MD_POW,
    MD_COUNT
};

/* Functions before MD_ATAN2 take one argument. */
#define MD_FIRST_BINARY MD_ATAN2

static const char *const md_names[MD_COUNT] = {
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos",
    "tan", "sincos.sin", "sincos.cos", "atan", "asin", "acos", "sinh",
    "cosh", "tanh", "cbrt", "erf", "atan2", "hypot", "pow"};

DUO_DEVICE double duo_math_eval_d(int f, double x, double y)
{
    double s, c;
    switch (f) {
    case MD_EXP: return duo_exp(x);
    case MD_EXP2: return duo_exp2(x);
    case MD_EXPM1: return duo_expm1(x);
    case MD_LOG: return duo_log(x);
    case MD_LOG2: return duo_log2(x);
    case MD_LOG10: return duo_log10(x);
    case MD_LOG1P: return duo_log1p(x);
    case MD_SIN: return duo_sin(x);
    case MD_COS: return duo_cos(x);
    case MD_TAN: return duo_tan(x);
    case MD_SINCOS_SIN: duo_sincos(x, &s, &c); return s;
    case MD_SINCOS_COS: duo_sincos(x, &s, &c); return c;
    case MD_ATAN: return duo_atan(x);
    case MD_ASIN: return duo_asin(x);
    case MD_ACOS: return duo_acos(x);
    case MD_SINH: return duo_sinh(x);
    case MD_COSH: return duo_cosh(x);
    case MD_TANH: return duo_tanh(x);
    case MD_CBRT: return duo_cbrt(x);
    case MD_ERF: return duo_erf(x);
    case MD_ATAN2: return duo_atan2(x, y);
    case MD_HYPOT: return duo_hypot(x, y);
    case MD_POW: return duo_pow(x, y);
    default: return 0.0;
    }
}

#endif /* DUO_TESTS_MATH_FUNCS_H */
