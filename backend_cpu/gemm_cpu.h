/*
 * gemm_cpu.h - what the CPU gemm (gemm.c) shares with the rest of the
 * CPU backend.
 */
#ifndef DUO_GEMM_CPU_H
#define DUO_GEMM_CPU_H

/* Free the buffers gemm keeps between products (duo_finalize). */
void duo_cpu_gemm_release(void);

#endif /* DUO_GEMM_CPU_H */
