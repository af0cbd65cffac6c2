/*
 * gemm.c - duo_gemm_f32 / duo_gemm_f64: argument checks shared by every
 * backend, and the cases that need no multiply.
 */
#include <stdint.h>

#include "profile.h"
#include "validate.h"

/* Rows and columns of a row-major operand as stored, given its op. */
static void stored_shape(duo_transpose t, size_t rows, size_t cols,
                         size_t *srows, size_t *scols)
{
    *srows = t == DUO_NO_TRANS ? rows : cols;
    *scols = t == DUO_NO_TRANS ? cols : rows;
}

/* An operand of srows x scols with leading dimension ld: ld must cover a
 * row and the last element's offset must fit in size_t.  The pointer
 * must be set only if the operand is going to be read or written. */
static duo_status check_operand(const char *where, const char *name,
                                const char *ld_name, duo_transpose t,
                                const void *p, int used, size_t srows,
                                size_t scols, size_t ld, size_t elem)
{
    if (t != DUO_NO_TRANS && t != DUO_TRANS)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "trans_%s = %d is not a duo_transpose; use "
                        "DUO_NO_TRANS or DUO_TRANS", name, (int)t);
    if (ld < scols || ld == 0)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "%s = %zu is too small: %s is stored as %zu x %zu "
                        "(row-major), so %s must be >= %zu (and >= 1)",
                        ld_name, ld, name, srows, scols, ld_name, scols);
    if (srows > 0 && (srows - 1 > (SIZE_MAX / elem) / ld))
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "%s: %zu rows of leading dimension %zu overflow "
                        "size_t", name, srows, ld);
    if (used && srows > 0 && scols > 0 && p == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "%s is NULL but is %zu x %zu; pass device memory",
                        name, srows, scols);
    return DUO_SUCCESS;
}

static duo_status check_gemm(const char *where, duo_transpose ta,
                             duo_transpose tb, size_t m, size_t n, size_t k,
                             int reads_ab, const void *a, size_t lda,
                             const void *b, size_t ldb, const void *c,
                             size_t ldc, size_t elem)
{
    size_t ar, ac, br, bc;
    stored_shape(ta, m, k, &ar, &ac);
    stored_shape(tb, k, n, &br, &bc);
    duo_status status;
    if ((status = check_operand(where, "a", "lda", ta, a, reads_ab, ar, ac,
                                lda, elem)) != DUO_SUCCESS ||
        (status = check_operand(where, "b", "ldb", tb, b, reads_ab, br, bc,
                                ldb, elem)) != DUO_SUCCESS ||
        (status = check_operand(where, "c", "ldc", DUO_NO_TRANS, c, 1, m, n,
                                ldc, elem)) != DUO_SUCCESS)
        return status;
    return duo_require_sync_call(where);
}

/* Bytes a gemm must move at least (A, B, C written, C read if beta != 0)
 * and its flops, for the profiler. */
static double gemm_bytes(size_t m, size_t n, size_t k, int reads_c,
                         size_t elem)
{
    return ((double)m * k + (double)k * n + (double)m * n * (reads_c ? 2 : 1)) *
           (double)elem;
}

duo_status duo_gemm_f32(duo_transpose ta, duo_transpose tb, size_t m,
                        size_t n, size_t k, float alpha, const float *a,
                        size_t lda, const float *b, size_t ldb, float beta,
                        float *c, size_t ldc)
{
    duo_status status =
        check_gemm("duo_gemm_f32", ta, tb, m, n, k, k > 0 && alpha != 0.0f,
                   a, lda, b, ldb, c, ldc, sizeof(float));
    if (status != DUO_SUCCESS || m == 0 || n == 0)
        return status;
    int region = duo_profile_open("duo_gemm_f32", DUO_REGION_GEMM, NULL);
    status = duo_validating()
                 ? duo_vd_gemm_f32(ta, tb, m, n, k, alpha, a, lda, b, ldb,
                                   beta, c, ldc)
                 : duo_be_gemm_f32(ta, tb, m, n, k, alpha, a, lda, b, ldb,
                                   beta, c, ldc);
    duo_profile_close(region, NULL,
                      gemm_bytes(m, n, k, beta != 0.0f, sizeof(float)),
                      2.0 * (double)m * n * k);
    return status;
}

duo_status duo_gemm_f64(duo_transpose ta, duo_transpose tb, size_t m,
                        size_t n, size_t k, double alpha, const double *a,
                        size_t lda, const double *b, size_t ldb, double beta,
                        double *c, size_t ldc)
{
    duo_status status =
        check_gemm("duo_gemm_f64", ta, tb, m, n, k, k > 0 && alpha != 0.0,
                   a, lda, b, ldb, c, ldc, sizeof(double));
    if (status != DUO_SUCCESS || m == 0 || n == 0)
        return status;
    int region = duo_profile_open("duo_gemm_f64", DUO_REGION_GEMM, NULL);
    status = duo_validating()
                 ? duo_vd_gemm_f64(ta, tb, m, n, k, alpha, a, lda, b, ldb,
                                   beta, c, ldc)
                 : duo_be_gemm_f64(ta, tb, m, n, k, alpha, a, lda, b, ldb,
                                   beta, c, ldc);
    duo_profile_close(region, NULL,
                      gemm_bytes(m, n, k, beta != 0.0, sizeof(double)),
                      2.0 * (double)m * n * k);
    return status;
}
