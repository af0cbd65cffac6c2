/*
 * gemm_variant.h - the CPU gemm's hot part (packing and micro-kernel) as
 * a set of functions per instruction set, so that gemm.c can pick one at
 * run time: a build for x86-64-v3 (AVX2) runs AVX-512 kernels on CPUs
 * that have it.  Vector width changes neither the fma chain of any
 * element nor its order (each lane is one element of C), so every
 * variant gives the same bits.
 *
 * The variants: the build's own target (gemm_kernel.c, always there)
 * and, in a GCC or clang build for x86-64 with AVX2 and FMA but not
 * AVX-512, one compiled for AVX-512 (gemm_kernel_avx512.c), taken where
 * the CPU has it.  DUO_CPU_GEMM forces one (gemm_variant.c).
 */
#ifndef DUO_GEMM_VARIANT_H
#define DUO_GEMM_VARIANT_H

#include <stddef.h>

#include "backend.h"

#if (defined(__x86_64__) || defined(_M_X64)) &&                            \
    (defined(__GNUC__) || defined(__clang__)) && defined(__AVX2__) &&      \
    defined(__FMA__) && !defined(__AVX512F__)
#define DUO_CPU_GEMM_HAS_AVX512 1
#endif

/* Cache block sizes, for a 32 KiB L1 and 1 MiB L2 per core (AVX-512 f32
 * and f64: A sliver 12 or 16 KiB, B block 720 KiB, A block 3 MiB).  KC
 * divides the order's k blocks (DUO_GEMM_ORDER_KBLOCK_*: 384 = KC_F32,
 * 2048 = 8 KC_F64); the loops cut a cache block short at an order
 * block's end in any case.  NC is a multiple of every variant's NR
 * (checked where each is defined): the workspace of chains holds whole
 * tiles. */
#define DUO_CPU_GEMM_KC_F32 384
#define DUO_CPU_GEMM_NC_F32 480
#define DUO_CPU_GEMM_MC_F32 1920
#define DUO_CPU_GEMM_KC_F64 256
#define DUO_CPU_GEMM_NC_F64 352
#define DUO_CPU_GEMM_MC_F64 1536

/* A kernel call goes on with the chains of its tile from where the cache
 * block before left them (CHAIN_LOAD; else they start from 0), then ends
 * them (CHAIN_END: alpha and beta applied) or keeps them, unscaled, for
 * the next cache block. */
enum { DUO_CPU_GEMM_CHAIN_LOAD = 1, DUO_CPU_GEMM_CHAIN_END = 2 };

/* One variant's functions for element type T (gemm_kernel.h says what
 * each does): tiles of mr x nr elements of C. */
#define DUO_CPU_GEMM_KERNELS(T, S)                                         \
    struct duo_cpu_gemm_kernels_##S {                                      \
        size_t mr, nr;                                                     \
        void (*pack_a)(size_t mc, size_t kc, const T *a, size_t rs,        \
                       size_t cs, T *ap);                                  \
        void (*pack_b)(size_t kc, size_t nc, const T *b, size_t rs,        \
                       size_t cs, T *bp);                                  \
        void (*kernel)(size_t kc, const T *ap, const T *bp, T *c,          \
                       size_t ldc, size_t mr, size_t nr, T alpha, T beta,  \
                       T *s, int how);                                     \
    };
DUO_CPU_GEMM_KERNELS(float, f32)
DUO_CPU_GEMM_KERNELS(double, f64)
#undef DUO_CPU_GEMM_KERNELS

typedef struct duo_cpu_gemm_variant {
    const char *name; /* DUO_CPU_GEMM's value for it */
    struct duo_cpu_gemm_kernels_f32 f32;
    struct duo_cpu_gemm_kernels_f64 f64;
} duo_cpu_gemm_variant;

/* The build's own target: "avx512", "avx2", "avx", "sse2", "neon" or
 * "generic", after the widest vectors it was compiled for. */
extern const duo_cpu_gemm_variant duo_cpu_gemm_own;
#ifdef DUO_CPU_GEMM_HAS_AVX512
extern const duo_cpu_gemm_variant duo_cpu_gemm_avx512;
#endif

/* The variant to run (*v): DUO_CPU_GEMM's if set, else the fastest this
 * CPU runs.  DUO_ERROR_INVALID_ARGUMENT, naming the variable, for a value
 * this build does not have or a variant this CPU cannot run. */
duo_status duo_cpu_gemm_choose(const duo_cpu_gemm_variant **v,
                               const char *where);

#endif /* DUO_GEMM_VARIANT_H */
