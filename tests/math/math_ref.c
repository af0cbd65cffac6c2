/*
 * math_ref.c - correctly rounded float references (math_ref.h).
 */
#include "math_ref.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "math_funcs.h"
#include "math_libm.h"

typedef int (*mpfr_fn1)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);

static mpfr_fn1 mpfr_of(int f)
{
    switch (f) {
    case MF_EXPF: return mpfr_exp;
    case MF_EXP2F: return mpfr_exp2;
    case MF_EXPM1F: return mpfr_expm1;
    case MF_LOGF: return mpfr_log;
    case MF_LOG2F: return mpfr_log2;
    case MF_LOG10F: return mpfr_log10;
    case MF_LOG1PF: return mpfr_log1p;
    case MF_SINF: case MF_SINCOSF_SIN: return mpfr_sin;
    case MF_COSF: case MF_SINCOSF_COS: return mpfr_cos;
    case MF_TANF: return mpfr_tan;
    case MF_ATANF: return mpfr_atan;
    case MF_ASINF: return mpfr_asin;
    case MF_ACOSF: return mpfr_acos;
    case MF_SINHF: return mpfr_sinh;
    case MF_COSHF: return mpfr_cosh;
    case MF_TANHF: return mpfr_tanh;
    case MF_CBRTF: return mpfr_cbrt;
    case MF_ERFF: return mpfr_erf;
    }
    return NULL;
}

void mref_init(mref_ctx *c)
{
    /* Float's range in MPFR's convention (significand in [1/2, 1)):
     * subnormals down to 2^-149 = 2^-148 / 2, overflow from 2^128. */
    mpfr_set_emin(-148);
    mpfr_set_emax(128);
    mpfr_init2(c->x, 24);
    mpfr_init2(c->y, 24);
    mpfr_init2(c->r, 24);
    c->mpfr_calls = 0;
}

void mref_free(mref_ctx *c)
{
    mpfr_clear(c->x);
    mpfr_clear(c->y);
    mpfr_clear(c->r);
}

static float mpfr_eval(mref_ctx *c, int f, float x, float y)
{
    int t;
    ++c->mpfr_calls;
    mpfr_set_flt(c->x, x, MPFR_RNDN);
    mpfr_set_flt(c->y, y, MPFR_RNDN);
    if (f == MF_ATAN2F)
        t = mpfr_atan2(c->r, c->x, c->y, MPFR_RNDN);
    else if (f == MF_HYPOTF)
        t = mpfr_hypot(c->r, c->x, c->y, MPFR_RNDN);
    else if (f == MF_POWF)
        t = mpfr_pow(c->r, c->x, c->y, MPFR_RNDN);
    else
        t = mpfr_of(f)(c->r, c->x, MPFR_RNDN);
    t = mpfr_subnormalize(c->r, t, MPFR_RNDN);
    return mpfr_get_flt(c->r, MPFR_RNDN);
}

float mref_eval(mref_ctx *c, int f, float x, float y, int force_mpfr)
{
    if (force_mpfr)
        return mpfr_eval(c, f, x, y);
    double d = mf_libm(f, x, y);
    if (isnan(d) || isinf(d) || d == 0.0)
        return (float)d; /* special or exact cases */
    double a = fabs(d);
    if (a < 0x1p-125 || a > 0x1.fffffp127)
        return mpfr_eval(c, f, x, y);
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    /* Distance, in double ulps, to the float midpoint pattern. */
    int64_t low = (int64_t)(b & 0x1fffffffu) - 0x10000000;
    if (low > -(1 << 20) && low < (1 << 20))
        return mpfr_eval(c, f, x, y);
    return (float)d;
}

void mref_exact_d(int f, mpfr_ptr e, mpfr_srcptr a, mpfr_srcptr b)
{
    switch (f) {
    case MD_EXP: mpfr_exp(e, a, MPFR_RNDN); break;
    case MD_EXP2: mpfr_exp2(e, a, MPFR_RNDN); break;
    case MD_EXPM1: mpfr_expm1(e, a, MPFR_RNDN); break;
    case MD_LOG: mpfr_log(e, a, MPFR_RNDN); break;
    case MD_LOG2: mpfr_log2(e, a, MPFR_RNDN); break;
    case MD_LOG10: mpfr_log10(e, a, MPFR_RNDN); break;
    case MD_LOG1P: mpfr_log1p(e, a, MPFR_RNDN); break;
    case MD_SIN: case MD_SINCOS_SIN: mpfr_sin(e, a, MPFR_RNDN); break;
    case MD_COS: case MD_SINCOS_COS: mpfr_cos(e, a, MPFR_RNDN); break;
    case MD_TAN: mpfr_tan(e, a, MPFR_RNDN); break;
    case MD_ATAN: mpfr_atan(e, a, MPFR_RNDN); break;
    case MD_ASIN: mpfr_asin(e, a, MPFR_RNDN); break;
    case MD_ACOS: mpfr_acos(e, a, MPFR_RNDN); break;
    case MD_SINH: mpfr_sinh(e, a, MPFR_RNDN); break;
    case MD_COSH: mpfr_cosh(e, a, MPFR_RNDN); break;
    case MD_TANH: mpfr_tanh(e, a, MPFR_RNDN); break;
    case MD_CBRT: mpfr_cbrt(e, a, MPFR_RNDN); break;
    case MD_ERF: mpfr_erf(e, a, MPFR_RNDN); break;
    case MD_POW: mpfr_pow(e, a, b, MPFR_RNDN); break;
    case MD_ATAN2: mpfr_atan2(e, a, b, MPFR_RNDN); break;
    case MD_HYPOT: mpfr_hypot(e, a, b, MPFR_RNDN); break;
    default: mpfr_set_nan(e); break;
    }
}
