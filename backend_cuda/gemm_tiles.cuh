/*
 * gemm_tiles.cuh - the device building blocks that both tile kernels
 * (gemm_f32.cu, gemm_f64.cu) are made of: which tile of C a block
 * computes, and the cp.async copies that bring slabs of A and B into
 * shared memory.  All of it is force-inlined into the kernels, so a
 * kernel's code does not depend on the file it sits in.
 *
 * Both kernels give each block one tile of C and stream op(A) (its rows)
 * and op(B) (its columns) through shared memory one k-slab at a time.
 * Slabs are copied with cp.async (global -> shared, no registers) into a
 * ring of 4 stages (3 for the f32 128 x 128 and 128 x 256 shapes and
 * for f64 NT): the others are in flight while one is multiplied, with
 * one barrier per slab.  (The f32 128 x 256 and 128 x 64 shapes read the
 * operands they must transpose into registers instead, see gemm_f32.cu.)
 * The four transpose combinations are template parameters; however an
 * operand is stored, its slab is read along the stored matrix's
 * contiguous dimension, so the reads coalesce.
 * Edge tiles get zeros past the matrix (cp.async zero fill) and skip the
 * stores.  16-byte copies need 16-byte-aligned pointers and leading
 * dimensions; when A or B does not allow them, the same kernel is
 * instantiated with element copies.  Blocks are numbered down groups of
 * 8 tile rows (tile_of_block) so the blocks running at once share A and B
 * panels in L2.
 */
#ifndef DUO_CUDA_GEMM_TILES_CUH
#define DUO_CUDA_GEMM_TILES_CUH

#include <cstdint>

#include <cuda_runtime.h>

static constexpr int kGroupRows = 8; /* tile rows per rasterization group */

/* Block -> first row and column of its BM x BN C tile.  Blocks start
 * roughly in blockIdx order; numbering tiles down a group of kGroupRows
 * tile rows before moving right keeps the A and B panels that the
 * resident blocks read few enough to stay in L2. */
template <int BM, int BN>
static __device__ __forceinline__ void tile_of_block(int tiles_m,
                                                     int tiles_n, int &m0,
                                                     int &n0)
{
    const int per_group = kGroupRows * tiles_n;
    const int group = (int)blockIdx.x / per_group;
    const int first = group * kGroupRows;
    const int rows = min(tiles_m - first, kGroupRows);
    const int r = (int)blockIdx.x - group * per_group;
    m0 = (first + r % rows) * BM;
    n0 = (r / rows) * BN;
}

/* Asynchronous copies global -> shared memory that bypass registers.
 * Only `bytes` are read from src and the rest is zero-filled: that is how
 * slabs get zeros past the edges of the matrices, where src is never read
 * (0 bytes) and so may point anywhere. */
static __device__ __forceinline__ void cp_async16(uint32_t dst,
                                                  const void *src, int bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst),
                 "l"(src), "r"(bytes)
                 : "memory");
}

static __device__ __forceinline__ void cp_async8(uint32_t dst,
                                                 const void *src, int bytes)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(dst),
                 "l"(src), "r"(bytes)
                 : "memory");
}

static __device__ __forceinline__ void cp_async4(uint32_t dst,
                                                 const void *src, int bytes)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst),
                 "l"(src), "r"(bytes)
                 : "memory");
}

/* One element: 4 or 8 bytes, `bytes` of them read. */
template <typename T>
static __device__ __forceinline__ void cp_async_elem(uint32_t dst,
                                                     const T *src, int bytes)
{
    if (sizeof(T) == 8)
        cp_async8(dst, src, bytes);
    else
        cp_async4(dst, src, bytes);
}

/* A 16-byte chunk of which the first `valid` elements exist (<= 0: none).
 * A whole or empty chunk is one copy; a partial one, at the edge of a
 * matrix, goes element by element (a partial 16-byte copy costs more
 * address arithmetic even where it is not taken). */
template <typename T>
static __device__ __forceinline__ void cp_async_chunk(uint32_t dst,
                                                      const T *src, int valid)
{
    constexpr int kElems = 16 / (int)sizeof(T);
    if (valid >= kElems || valid <= 0) {
        cp_async16(dst, src, valid > 0 ? 16 : 0);
    } else {
#pragma unroll
        for (int e = 0; e < kElems; ++e)
            cp_async_elem(dst + e * (uint32_t)sizeof(T), src + e,
                          e < valid ? (int)sizeof(T) : 0);
    }
}

static __device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* Wait until at most `pending` of this thread's groups are in flight. */
template <int pending> static __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(pending) : "memory");
}

#endif /* DUO_CUDA_GEMM_TILES_CUH */
