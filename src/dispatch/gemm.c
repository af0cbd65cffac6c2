/*
 * dispatch/gemm.c (CUDA build) - gemm: the GPU's or the host's, as
 * duo_init chose (dispatch.h).  One object per backend file, as here,
 * keeps static linking selective: only programs that call duo_gemm link
 * the GPU's gemm kernels (4 MB of them).
 */
#include "dispatch.h"

DUO_BE_FN(duo_status, gemm_f32,
          (duo_transpose ta, duo_transpose tb, size_t m, size_t n, size_t k,
           float alpha, const float *a, size_t lda, const float *b,
           size_t ldb, float beta, float *c, size_t ldc),
          (ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc))
DUO_BE_FN(duo_status, gemm_f64,
          (duo_transpose ta, duo_transpose tb, size_t m, size_t n, size_t k,
           double alpha, const double *a, size_t lda, const double *b,
           size_t ldb, double beta, double *c, size_t ldc),
          (ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc))
