/*
 * gemm_kernel_avx512.c - the CPU gemm's packing and micro-kernel for
 * AVX-512 (x86-64-v4: F, CD, DQ, BW, VL) in a build for an x86-64 below
 * it (gemm_variant.h): 512-bit vectors and 32 registers, so tiles of
 * 8 rows (16 accumulators) of 32 f32 or 16 f64, twice the AVX2 kernel's
 * work per instruction.  gemm_variant.c runs it only on CPUs that have
 * every extension named here.  Elsewhere this file is empty.
 */
#include "gemm_variant.h"

#ifdef DUO_CPU_GEMM_HAS_AVX512

#define GEMM_VEC_BYTES 64
#define GEMM_MR 8
#define GEMM_TARGET                                                        \
    __attribute__((target("avx512f,avx512cd,avx512dq,avx512bw,avx512vl")))
#define GEMM_VARIANT duo_cpu_gemm_avx512
#define GEMM_VARIANT_NAME "avx512"

#include "gemm_kernel.h"

#else
/* ISO C wants something in every file. */
typedef int duo_cpu_gemm_no_avx512;
#endif
