/*
 * gemm_kernel.c - the CPU gemm's packing and micro-kernel for the
 * instruction set the build targets (gemm_kernel.h): the variant every
 * CPU that runs this build can run.
 *
 * A tile row is two vectors (NR elements).  With 32 vector registers
 * (AVX-512) MR = 8 rows give 16 independent accumulators, enough to cover
 * the FMA latency (12 or 14 rows measured no faster, and waste more on
 * edge tiles); with 16 registers the other ISAs hold 6 rows.
 */
#if defined(__AVX512F__)
#define GEMM_VEC_BYTES 64
#define GEMM_MR 8
#define GEMM_VARIANT_NAME "avx512"
#elif defined(__AVX__)
#define GEMM_VEC_BYTES 32
#define GEMM_MR 6
#if defined(__AVX2__) && defined(__FMA__)
#define GEMM_VARIANT_NAME "avx2"
#else
#define GEMM_VARIANT_NAME "avx"
#endif
#else
#define GEMM_VEC_BYTES 16
#define GEMM_MR 6
#if defined(__x86_64__) || defined(_M_X64)
#define GEMM_VARIANT_NAME "sse2"
#elif defined(__aarch64__)
#define GEMM_VARIANT_NAME "neon"
#else
#define GEMM_VARIANT_NAME "generic"
#endif
#endif

#define GEMM_TARGET
#define GEMM_VARIANT duo_cpu_gemm_own

#include "gemm_kernel.h"
