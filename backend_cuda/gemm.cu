/*
 * gemm.cu - CUDA backend of duo_gemm_f32 / duo_gemm_f64:
 * C = alpha * op(A) * op(B) + beta * C, row-major, device pointers, queued
 * on the default stream.
 *
 * Both multiply kernels give each block one tile of C and stream op(A)
 * (its rows) and op(B) (its columns) through shared memory one k-slab at
 * a time.  Large tiles are what make a GEMM compute bound: with 128 x 128
 * tiles (256 threads) each element brought into shared memory feeds 128
 * multiply-adds.  Where C has too few such tiles to fill the GPU (64 at
 * 1024^2 on 132 SMs) smaller tiles give more blocks: f32 128 x 64, 64 x
 * 128, 64 x 64, 32 x 64, 32 x 32; f64 64 x 64, 64 x 32, 32 x 32.  f32
 * also has 128 x 256 for the largest products.
 * pick_shape times each shape with a model fitted to measurements (waves
 * of blocks per SM, speed by warps per SM) and takes the fastest
 * (DUO_GEMM_TILE forces one; preferred_shape_f32 breaks one tie).  No
 * shape splits k: each element of C is summed over k in the same order
 * with the same operations in every shape, so the choice changes the
 * speed and never the bits (see the kernels).  Products with a small C
 * and a long k are split along k, f32 in the k blocks of the CPU
 * backends' order, f64 in parts of 2048, a function of (m, n, k) only
 * (see "Split-K" below and duo.h).  Large f32 products with B stored
 * transposed multiply a transposed copy of B instead (see "Packing B").
 * Slabs are copied with cp.async (global -> shared, no registers) into a
 * ring of 4 stages (3 for the f32 128 x 128 and 128 x 256 shapes and
 * for f64 NT): the others are in flight while one is multiplied, with
 * one barrier per slab.  (The f32 128 x 256 and 128 x 64 shapes read the
 * operands they must transpose into registers instead, see below.)  The
 * four transpose combinations are template parameters; however an
 * operand is stored, its slab is read along the stored matrix's
 * contiguous dimension, so the reads coalesce.
 * Edge tiles get zeros past the matrix (cp.async zero fill) and skip the
 * stores.  16-byte copies need 16-byte-aligned pointers and leading
 * dimensions; when A or B does not allow them, the same kernel is
 * instantiated with element copies.  Blocks are numbered down groups of
 * 8 tile rows (tile_of_block) so the blocks running at once share A and B
 * panels in L2.
 *
 * f32: plain FFMA on the CUDA cores (strict IEEE single, no TF32).
 *   Each thread computes an 8 x 8 sub-tile of C as outer products: per k
 *   it reads 8 values of op(A) and 8 of op(B) with four 128-bit shared
 *   loads and issues 64 FFMAs (8 x 16 in the 128 x 256 shape: six loads,
 *   128 FFMAs).  For that both slabs are held k-major
 *   ([k][m] and [k][n]); an operand stored with k contiguous (A not
 *   transposed, B transposed) is transposed on its way in, by 4-byte
 *   copies, or in the 128 x 256 and 128 x 64 shapes (when its rows allow
 *   16-byte loads) through registers: 16-byte loads issued before a
 *   slab's multiply, 4-byte shared stores after it.  4-byte cp.async
 *   keeps the load units four times as busy; staging costs registers,
 *   which only these shapes have to spare (NN 4096^3 and 8192^3: 2 to 4%
 *   faster on an H100; 8192 x 64 x 8192 4%).  In split products (below)
 *   the 128 x 64 shape keeps op(A) as stored instead, [m][k], and reads
 *   it 4 k per 128-bit load (KeptSlabF32).  128 x 256 also multiplies
 *   half a slab per unrolled loop body rather than all of it, and when
 *   both operands are staged (NT) they are staged in two halves of the
 *   slab (see the kernel).  A warp covers 32 x 64 of C: its lanes read 4
 *   (A) and 8 (B) distinct 16-byte words per load, one shared-memory
 *   wavefront each.  (The small shapes give each thread 4 x 4, a warp 16
 *   x 32.)
 *   Slab rows are padded by 4 floats so the transposing writes hit 32
 *   different banks.  k-slab of 16, or 32 in the 128 x 128 and 128 x 256
 *   shapes (half the barriers; 128 x 128's ring of 3 keeps two blocks
 *   per SM).  With no registers staging the copies, 64 accumulators fit
 *   the kernel in 128 registers, so two blocks (16 warps) share an SM and
 *   hide each other's barriers and latencies.  The 128 x 256 shape's 128
 *   accumulators take the SM's registers for one block; its 8 warps hide
 *   latency with the longer runs of independent FFMAs.
 *   Blocks and slabs away from the edges copy without bounds checks: the
 *   main loop is about 88% FFMA.
 *
 * f64: FP64 tensor cores (DMMA), whose products and sums are IEEE double
 *   (not a reduced precision), at twice the rate of DFMA on Hopper.
 *   mma.sync m16n8k8 (one DMMA.16x8x8 on sm_90; four m8n8k4 in the sm_80
 *   PTX).  k-slab of 16, in a ring of 4 (3 for NT, see kStagesF64).
 *   The slabs keep the stored layout ([m][k] or [k][m]), with rows
 *   padded by 4 doubles: then the 32 lanes' 8-byte fragment loads of
 *   mma's layout fill every bank exactly twice in every layout, the
 *   minimum for 256 bytes.  8 warps of 64 x 32 of C each: 16 mma per 8
 *   k for 24 fragment loads, 128 accumulator registers per thread, one
 *   block per SM (120 to 148 KB of shared memory).  The small shapes
 *   have warps of 32 x 32, 32 x 16 or 16 x 32; every shape starts warps
 *   at multiples of 16 rows and 8 columns, so an element sits in the
 *   same place of its mma tile whatever the shape.
 *
 * k == 0 or alpha == 0 only scales C (A and B are not read); beta == 0
 * never reads C, so NaN in C does not propagate.
 */
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include <cuda_runtime.h>

#include "backend.h"
#include "cuda_check.h"

/* ------------------------------------------------------------------ */
/* Shared by both kernels                                              */

static constexpr int kMaxTile = 256; /* largest C tile edge of a block   */
static constexpr int kGroupRows = 8;  /* tile rows per rasterization group */

/* Largest m, n or k of a multiply: a tile offset plus one tile and one
 * k-slab must stay within int. */
static constexpr size_t kMaxDim = (size_t)INT_MAX - 2 * kMaxTile;

/* Types are internal through unnamed namespaces (they cannot be static). */
namespace {
template <typename T> struct GemmParams {
    const T *a;
    const T *b;
    T *c;
    size_t lda, ldb, ldc;
    int m, n, k;
    int tiles_m, tiles_n;
    T alpha, beta;
    bool vec_c; /* c and ldc allow 16-byte accesses to C */
    /* Split-K (f32): > 0 when block row blockIdx.y multiplies only k in
     * [y split_k, (y + 1) split_k) and writes its C tile (alpha * acc,
     * beta 0) to c + y split_stride; 0: one block row over all k. */
    int split_k;
    size_t split_stride;
};
} // namespace

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

static bool aligned16(const void *p) { return (uintptr_t)p % 16 == 0; }

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

/* ------------------------------------------------------------------ */
/* f32: SIMT FFMA                                                      */

namespace {
/* A block shape: WM x WN warps; each warp's lanes are 4 (m) x 8 (n), and
 * each lane holds RM x RN groups of 4 x 4 elements of C, 16 rows and 32
 * columns apart (RM = 2, RN = 4: an 8 x 16 sub-tile, a warp covers
 * 32 x 128; RM = RN = 2: 8 x 8, 32 x 64; RM = RN = 1: 4 x 4, 16 x 32).
 * Per k a lane reads 4 RM values of op(A) and 4 RN of op(B) with RM + RN
 * 128-bit shared loads and issues 16 RM RN FFMAs. */
template <int WM_, int WN_, int RM_, int RN_, int BK_ = 16, int STAGES_ = 4,
          bool STAGED_ = false, bool KEEP_A_ = false>
struct CfgF32 {
    static constexpr int WM = WM_, WN = WN_, RM = RM_, RN = RN_;
    static constexpr int BK = BK_;         /* k per slab                 */
    static constexpr int STAGES = STAGES_; /* slabs in the ring          */
    /* k-contiguous operands in 16-byte-aligned rows are transposed
     * through registers (StagedSlabF32) rather than by cp.async. */
    static constexpr bool STAGED = STAGED_;
    /* op(A) stored with k contiguous (A not transposed) in 16-byte-aligned
     * rows is kept so in shared memory (KeptSlabF32) and read 4 k at a
     * time, rather than transposed. */
    static constexpr bool KEEP_A = KEEP_A_;
    static constexpr int BM = WM * 16 * RM, BN = WN * 32 * RN;
    static constexpr int THREADS = 32 * WM * WN;
    /* Registers: 8 x 16 (128 accumulators) gets all 255, one block of
     * 256 threads per SM; 8 x 8 (64) gets up to 128 (the 128 x 128
     * shape: two blocks of 256 threads per SM), or 168 when it stages
     * (128 x 64: three blocks of 128 threads); 4 x 4 (16) gets up to 85
     * (64 spill). */
    static constexpr int REGS =
        RM * RN >= 8 ? 255 : RM * RN >= 4 ? (STAGED ? 168 : 128) : 80;
    static constexpr int MIN_BLOCKS = 65536 / THREADS / REGS;
    static constexpr int LDA = BM + 4, LDB = BN + 4; /* padded slab rows */
    static constexpr int SLAB_A = BK * LDA, SLAB_B = BK * LDB;
    static constexpr int SMEM =
        STAGES * (SLAB_A + SLAB_B) * (int)sizeof(float);
};

/* One operand's BK x MN slab, held k-major ([k][mn], rows of MN + 4
 * floats) in shared memory, copied by NT threads.
 * KCONTIG (A not transposed, B transposed): the stored rows have k
 * contiguous, so the slab is transposed on the way in, one 4-byte copy per
 * element: 8 lanes read 8 k of a row (one 32-byte sector) and write 8 slab
 * rows, whose padding puts the warp's 32 writes in 32 banks.  Else the
 * stored rows are the slab's rows: 16-byte copies when aligned (VEC),
 * else 4-byte ones. */
template <bool KCONTIG, bool VEC, int MN, int NT, int BK> struct SlabF32 {
    static constexpr int LD = MN + 4;
    /* KCONTIG: a thread's copies are k, k + 8 by mn, mn + CS, ... */
    static constexpr int CS = NT / 8, CN = MN / CS;
    /* VEC: MN / 4 chunks per slab row, VR rows per pass, VN passes. */
    static constexpr int VC = MN / 4, VR = NT / VC, VN = BK / VR;
    /* Element copies: SR rows per pass, SN passes. */
    static constexpr int SR = NT / MN, SN = BK / SR;
    static_assert(KCONTIG ? (MN % CS == 0 && CN >= 1)
                  : VEC   ? (NT % VC == 0 && VR >= 1 && BK % VR == 0)
                          : (NT % MN == 0 && SR >= 1 && BK % SR == 0),
                  "slab shape and thread count do not fit");

    const float *ptr; /* this thread's first element of the next slab */
    size_t next;      /* pointer distance between the thread's copies */
    size_t step;      /* pointer advance per slab                      */
    int lim_mn;       /* valid elements from ptr along mn              */
    int lim_k;        /* valid elements from ptr along k               */
    uint32_t dst;     /* shared address of the first copy, stage 0     */

    __device__ __forceinline__ SlabF32(const float *matrix, size_t ld,
                                       int mn0, int mn, int k, uint32_t s)
    {
        const int t = (int)threadIdx.x;
        int row, col; /* slab position of the first copy: k, mn */
        if (KCONTIG) {
            row = t & 7;
            col = t >> 3;
            ptr = matrix + (size_t)(mn0 + col) * ld + row;
            next = CS * ld;
            step = BK;
        } else if (VEC) {
            row = t / VC;
            col = (t % VC) * 4;
            ptr = matrix + (size_t)row * ld + mn0 + col;
            next = VR * ld;
            step = (size_t)BK * ld;
        } else {
            row = t / MN;
            col = t % MN;
            ptr = matrix + (size_t)row * ld + mn0 + col;
            next = SR * ld;
            step = (size_t)BK * ld;
        }
        lim_mn = mn - (mn0 + col);
        lim_k = k - row;
        dst = s + (uint32_t)((row * LD + col) * sizeof(float));
    }

    /* Start copying the next slab into ring stage `stage`.  `whole`: the
     * slab lies inside the matrix (true but at the edges), so no copy
     * needs a bounds check.  The test is uniform over the block, and is
     * made once for all copies. */
    __device__ __forceinline__ void issue(int stage, bool whole)
    {
        const uint32_t d =
            dst + (uint32_t)(stage * BK * LD * sizeof(float));
        if (whole)
            copy<true>(d);
        else
            copy<false>(d);
        ptr += step;
        lim_k -= BK;
    }

    /* The copies land by themselves (cp.async); nothing to do here. */
    __device__ __forceinline__ void land(int, int) {}

    template <bool WHOLE> __device__ __forceinline__ void copy(uint32_t d)
    {
        constexpr int kRow = LD * (int)sizeof(float); /* bytes */
        if (KCONTIG) {
#pragma unroll
            for (int h = 0; h < BK / 8; ++h)
#pragma unroll
                for (int i = 0; i < CN; ++i) {
                    const bool ok =
                        WHOLE || (lim_mn > CS * i && lim_k > 8 * h);
                    cp_async4(d + 8 * h * kRow + CS * i * (int)sizeof(float),
                              ptr + i * next + 8 * h, ok ? 4 : 0);
                }
        } else if (VEC) {
#pragma unroll
            for (int h = 0; h < VN; ++h) {
                if (WHOLE)
                    cp_async16(d + VR * h * kRow, ptr + h * next, 16);
                else
                    cp_async_chunk(d + VR * h * kRow, ptr + h * next,
                                   lim_k > VR * h ? lim_mn : 0);
            }
        } else {
#pragma unroll
            for (int i = 0; i < SN; ++i) {
                const bool ok = WHOLE || (lim_mn > 0 && lim_k > SR * i);
                cp_async4(d + SR * i * kRow, ptr + i * next, ok ? 4 : 0);
            }
        }
    }
};

/* One operand's BK x MN slab, k-major like SlabF32's, for an operand
 * stored with k contiguous in 16-byte-aligned rows: transposed through
 * registers, in PARTS parts of BK / PARTS k.  issue() reads part 0 of the
 * next slab with 16-byte loads into registers; land(stage, q), called
 * after part q of the current slab has been multiplied (which hides the
 * loads' latency), writes part q into the ring with 4-byte stores and
 * reads part q + 1.  (4-byte cp.async copies, which transpose without
 * registers, keep the load units four times as busy; parts keep the
 * registers held to 1 / PARTS of the slab.)
 * Two lanes read the 8 k of one row's 32-byte sector, a warp 16 rows:
 * its stores of one k then cover 16 consecutive columns of two slab rows
 * 4 apart, which the padding of 4 floats puts in 32 different banks.
 * The (row, sector) pairs of a part are dealt round the NT / 2 lane
 * pairs; a thread holds PER of them. */
template <int MN, int NT, int BK, int PARTS> struct StagedSlabF32 {
    static constexpr int LD = MN + 4;
    static constexpr int D = BK / PARTS; /* k per part                */
    static constexpr int P = NT / 2;     /* lane pairs                */
    static constexpr int H = D / 8;      /* sectors along k per row   */
    static constexpr int PER = MN * H / P;
    static_assert(D % 8 == 0 && BK % PARTS == 0 && (MN * H) % P == 0 &&
                      (P % MN == 0 || MN % P == 0) && MN % 16 == 0,
                  "slab shape and thread count do not fit");
    /* Pair u's i-th (row, sector) is u + P i, taken as sector * MN + row:
     * rows u, u + P, ... then the next sector, or one row and sectors
     * P / MN apart. */
    static constexpr __host__ __device__ int row_of(int i)
    {
        return P % MN == 0 ? 0 : P * (i % (MN / P));
    }
    static constexpr __host__ __device__ int sector_of(int i)
    {
        return P % MN == 0 ? (P / MN) * i : i / (MN / P);
    }

    float4 held[PER];
    const float *ptr; /* the thread's first 16 bytes of the next slab */
    size_t ld;
    int lim_mn;       /* valid rows from ptr's                         */
    int lim_k;        /* valid elements from ptr along k               */
    uint32_t dst;     /* shared address of ptr's element, stage 0      */
    bool whole;       /* the slab being read lies inside the matrix    */

    __device__ __forceinline__ StagedSlabF32(const float *matrix, size_t ld_,
                                             int mn0, int mn, int k,
                                             uint32_t s)
    {
        const int t = (int)threadIdx.x, u = t >> 1;
        const int row = u % MN, kc = (u / MN) * 8 + (t & 1) * 4;
        ld = ld_;
        ptr = matrix + (size_t)(mn0 + row) * ld + kc;
        lim_mn = mn - (mn0 + row);
        lim_k = k - kc;
        dst = s + (uint32_t)((kc * LD + row) * sizeof(float));
    }

    /* Start reading the next slab: part 0 (`stage` is land()'s). */
    __device__ __forceinline__ void issue(int, bool whole_)
    {
        whole = whole_;
        load(0);
    }

    /* Write part q into ring stage `stage`, transposed; read part q + 1. */
    __device__ __forceinline__ void land(int stage, int q)
    {
        const uint32_t d = dst + (uint32_t)((stage * BK + q * D) * LD *
                                            sizeof(float));
#pragma unroll
        for (int i = 0; i < PER; ++i) {
            const uint32_t e =
                d + (uint32_t)((8 * sector_of(i) * LD + row_of(i)) *
                               sizeof(float));
            constexpr uint32_t kRow = LD * sizeof(float);
            asm volatile("st.shared.f32 [%0], %1;\n"
                         "st.shared.f32 [%0+%5], %2;\n"
                         "st.shared.f32 [%0+%6], %3;\n"
                         "st.shared.f32 [%0+%7], %4;\n" ::"r"(e),
                         "f"(held[i].x), "f"(held[i].y), "f"(held[i].z),
                         "f"(held[i].w), "n"(kRow), "n"(2 * kRow),
                         "n"(3 * kRow)
                         : "memory");
        }
        if (q + 1 < PARTS)
            load(q + 1);
    }

  private:
    /* Part q of the slab at ptr into the registers; after the last part,
     * move on to the next slab. */
    __device__ __forceinline__ void load(int q)
    {
#pragma unroll
        for (int i = 0; i < PER; ++i) {
            const int k_off = q * D + 8 * sector_of(i);
            const float *src = ptr + row_of(i) * ld + k_off;
            const int left = lim_k - k_off;
            if (whole || (lim_mn > row_of(i) && left >= 4)) {
                held[i] = *reinterpret_cast<const float4 *>(src);
            } else {
                const bool ok = lim_mn > row_of(i);
                held[i].x = ok && left > 0 ? src[0] : 0.0f;
                held[i].y = ok && left > 1 ? src[1] : 0.0f;
                held[i].z = ok && left > 2 ? src[2] : 0.0f;
                held[i].w = ok && left > 3 ? src[3] : 0.0f;
            }
        }
        if (q + 1 == PARTS) {
            ptr += BK;
            lim_k -= BK;
        }
    }
};

/* One operand's MN x BK slab kept as stored, [mn][k] (rows of BK floats,
 * stages BK (MN + 4) floats apart like SlabF32's), for an operand stored
 * with k contiguous in 16-byte-aligned rows: 16-byte cp.async copies, no
 * transposition.  The 16-byte chunk c of row r sits at chunk c ^ ((r >>
 * 2) & (BK / 4 - 1)) of its row (kept_chunk): the rows 4 apart that a
 * warp reads with one 128-bit load then fall in different banks, and so
 * do the chunks that its copies write. */
static __host__ __device__ constexpr int kept_chunk(int row, int c, int bk)
{
    return c ^ ((row >> 2) & (bk / 4 - 1));
}

template <int MN, int NT, int BK> struct KeptSlabF32 {
    static constexpr int CH = BK / 4;  /* 16-byte chunks per row */
    static constexpr int RP = NT / CH; /* rows per pass          */
    static constexpr int PASSES = MN / RP;
    /* RP a multiple of 4 CH: a thread's rows share one chunk order. */
    static_assert((CH & (CH - 1)) == 0 && NT % CH == 0 && MN % RP == 0 &&
                      RP % (4 * CH) == 0,
                  "slab shape and thread count do not fit");

    const float *ptr; /* this thread's first chunk of the next slab  */
    size_t next;      /* pointer distance between the thread's rows   */
    int lim_mn;       /* valid rows from ptr's                        */
    int lim_k;        /* valid elements from ptr along k              */
    uint32_t dst;     /* shared address of the first copy, stage 0    */

    __device__ __forceinline__ KeptSlabF32(const float *matrix, size_t ld,
                                           int mn0, int mn, int k,
                                           uint32_t s)
    {
        const int t = (int)threadIdx.x, row = t / CH, c = t % CH;
        ptr = matrix + (size_t)(mn0 + row) * ld + 4 * c;
        next = RP * ld;
        lim_mn = mn - (mn0 + row);
        lim_k = k - 4 * c;
        dst = s + (uint32_t)((row * BK + 4 * kept_chunk(row, c, BK)) *
                             sizeof(float));
    }

    __device__ __forceinline__ void issue(int stage, bool whole)
    {
        const uint32_t d =
            dst + (uint32_t)(stage * BK * (MN + 4) * sizeof(float));
#pragma unroll
        for (int i = 0; i < PASSES; ++i) {
            const uint32_t e = d + (uint32_t)(i * RP * BK * sizeof(float));
            if (whole)
                cp_async16(e, ptr + i * next, 16);
            else
                cp_async_chunk(e, ptr + i * next,
                               lim_mn > i * RP ? lim_k : 0);
        }
        ptr += BK;
        lim_k -= BK;
    }

    __device__ __forceinline__ void land(int, int) {}
};

/* The slab copier of one operand: op(A) kept [mn][k] where the shape
 * says so (KEEP, see KeptSlabF32); in shapes that stage, KCONTIG operands
 * with 16-byte-aligned rows go through registers (in PARTS parts); the
 * rest by cp.async. */
template <class CFG, bool KCONTIG, bool VEC, int MN, int PARTS,
          bool KEEP = false>
using SlabOfF32 = typename std::conditional<
    KEEP && KCONTIG && VEC, KeptSlabF32<MN, CFG::THREADS, CFG::BK>,
    typename std::conditional<
        CFG::STAGED && KCONTIG && VEC,
        StagedSlabF32<MN, CFG::THREADS, CFG::BK, PARTS>,
        SlabF32<KCONTIG, VEC, MN, CFG::THREADS, CFG::BK>>::type>::type;
} // namespace

/* v[4 r .. 4 r + 3] = the 4 floats at x + GAP r for r < G: one 128-bit
 * shared load each (a lane's groups of op(A) or op(B) at one k). */
template <int G, int GAP>
static __device__ __forceinline__ void load_groups(float (&v)[4 * G],
                                                   const float *x)
{
#pragma unroll
    for (int r = 0; r < G; ++r) {
        const float4 f = *reinterpret_cast<const float4 *>(x + GAP * r);
        v[4 * r] = f.x;
        v[4 * r + 1] = f.y;
        v[4 * r + 2] = f.z;
        v[4 * r + 3] = f.w;
    }
}

/* c[0..left) = v + beta * c (C read only when beta != 0), at most 4. */
static __device__ __forceinline__ void store_c4(float *c, const float (&v)[4],
                                                int left, float beta,
                                                bool vec)
{
    if (vec && left >= 4) {
        float4 out = make_float4(v[0], v[1], v[2], v[3]);
        if (beta != 0.0f) {
            const float4 old = *reinterpret_cast<const float4 *>(c);
            out.x = fmaf(beta, old.x, out.x);
            out.y = fmaf(beta, old.y, out.y);
            out.z = fmaf(beta, old.z, out.z);
            out.w = fmaf(beta, old.w, out.w);
        }
        *reinterpret_cast<float4 *>(c) = out;
    } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
            if (j < left)
                c[j] = beta != 0.0f ? fmaf(beta, c[j], v[j]) : v[j];
    }
}

/* Every shape computes each element of C the same way: acc = 0, then
 * acc = fmaf(op(A)(i,p), op(B)(p,j), acc) for p = 0, 1, ..., K - 1 in
 * order (the zeros past K in the last slab leave acc as it is), then
 * alpha * acc and, when beta != 0, fmaf(beta, C, alpha * acc).  So the
 * shape changes the speed, never the bits. */
template <class CFG, bool TA, bool TB, bool VEC>
static __global__ void __launch_bounds__(CFG::THREADS, CFG::MIN_BLOCKS)
    gemm_f32_kernel(const GemmParams<float> p)
{
    constexpr int RM = CFG::RM, RN = CFG::RN, BM = CFG::BM, BN = CFG::BN;
    extern __shared__ __align__(16) unsigned char gemm_smem[];
    float *sa = reinterpret_cast<float *>(gemm_smem); /* ring of A slabs */
    float *sb = sa + CFG::STAGES * CFG::SLAB_A;

    /* Split-K: this block row's k block, as a product of its own. */
    const float *a = p.a, *b = p.b;
    float *c = p.c;
    int k = p.k;
    if (p.split_k > 0) {
        const int k0 = (int)blockIdx.y * p.split_k;
        a += TA ? (size_t)k0 * p.lda : (size_t)k0;
        b += TB ? (size_t)k0 : (size_t)k0 * p.ldb;
        c += (size_t)blockIdx.y * p.split_stride;
        k = min(p.split_k, p.k - k0);
    }

    int m0, n0;
    tile_of_block<BM, BN>(p.tiles_m, p.tiles_n, m0, n0);
    /* A shape that stages multiplies 16 k per loop body: in 128 x 256
     * half a slab, half the code of the whole slab unrolled (H100: NN,
     * TN and TT 4096^3 2 to 4% faster, 2048^3 9%; 128 x 128 gains
     * nothing), in 128 x 64 the whole slab (8 k per body: 1000^3 2 to
     * 4% slower, 1024^3 5 to 7%, 8192 x 64 x 8192 1 to 3%).  When both
     * operands are staged (NT) their registers would crowd the FFMAs:
     * they are staged, and the slab multiplied, in two halves, landing in
     * between (128 x 256: NT 4096^3 and 8192^3 4% faster; the same halves
     * in NN cost 3%). */
    constexpr bool kKeptA = CFG::KEEP_A && !TA && VEC;
    static_assert(!kKeptA || CFG::BK <= 16,
                  "kept A: rows 16 apart must share one chunk order");
    constexpr bool kBothStaged = CFG::STAGED && VEC && !TA && TB && !kKeptA;
    constexpr int kParts = kBothStaged ? 2 : 1;
    constexpr int kRun = CFG::BK / kParts;
    constexpr int kUnroll = CFG::STAGED ? 16 : kRun;
    SlabOfF32<CFG, !TA, VEC, BM, kParts, CFG::KEEP_A> la(
        a, p.lda, m0, p.m, k, (uint32_t)__cvta_generic_to_shared(sa));
    SlabOfF32<CFG, TB, VEC, BN, kParts> lb(
        b, p.ldb, n0, p.n, k, (uint32_t)__cvta_generic_to_shared(sb));

    /* Blocks and slabs away from the edges copy without bounds checks. */
    const bool inside_a = m0 + BM <= p.m, inside_b = n0 + BN <= p.n;
    const int slabs = (k + CFG::BK - 1) / CFG::BK;
    const int whole_slabs = k / CFG::BK;
#pragma unroll
    for (int s = 0; s < CFG::STAGES - 1; ++s) {
        if (s < slabs) {
            la.issue(s, inside_a && s < whole_slabs);
            lb.issue(s, inside_b && s < whole_slabs);
#pragma unroll
            for (int q = 0; q < kParts; ++q) {
                la.land(s, q);
                lb.land(s, q);
            }
        }
        cp_async_commit(); /* empty groups keep the count uniform */
    }

    /* The lane's rows am + (i & 3) + 16 (i >> 2), columns bn + (j & 3) +
     * 32 (j >> 2). */
    const int warp = (int)threadIdx.x >> 5, lane = (int)threadIdx.x & 31;
    const int am = (warp / CFG::WN) * 16 * RM + (lane >> 3) * 4;
    const int bn = (warp % CFG::WN) * 32 * RN + (lane & 7) * 4;

    float acc[4 * RM][4 * RN];
#pragma unroll
    for (int i = 0; i < 4 * RM; ++i)
#pragma unroll
        for (int j = 0; j < 4 * RN; ++j)
            acc[i][j] = 0.0f;

#pragma unroll 1
    for (int s = 0; s < slabs; ++s) {
        /* Slab s has landed for this thread; the barrier makes it so for
         * all and frees the stage read in iteration s - 1 for refilling. */
        cp_async_wait<CFG::STAGES - 2>();
        __syncthreads();
        const int ahead = s + CFG::STAGES - 1;
        if (ahead < slabs) {
            la.issue(ahead % CFG::STAGES, inside_a && ahead < whole_slabs);
            lb.issue(ahead % CFG::STAGES, inside_b && ahead < whole_slabs);
        }
        cp_async_commit();

#pragma unroll 1
        for (int q = 0; q < kParts; ++q) {
            const float *xa =
                sa + (s % CFG::STAGES) * CFG::SLAB_A + q * kRun * CFG::LDA;
            const float *xb =
                sb + (s % CFG::STAGES) * CFG::SLAB_B + q * kRun * CFG::LDB;
            if (kKeptA) {
                /* A kept [m][k] (one part, so xa is the stage): per 4 k
                 * one 128-bit load per row.  The lane's rows, am + 0..3
                 * + 16 r with am a multiple of 4, all keep their chunks
                 * in row am's order, so one address per 4 k serves every
                 * row (a constant offset each).  Computed per row, the
                 * swizzle took 1334 instructions per slab instead of 1272
                 * (SASS), and 8192 x 64 x 8192 NN 258-265 us instead of
                 * 237-241 on an H100. */
                const float *ka = xa + am * CFG::BK;
#pragma unroll
                for (int kq = 0; kq < kRun / 4; ++kq) {
                    const float *kc = ka + 4 * kept_chunk(am, kq, CFG::BK);
                    float4 a4[4 * RM];
#pragma unroll
                    for (int i = 0; i < 4 * RM; ++i)
                        a4[i] = *reinterpret_cast<const float4 *>(
                            kc + ((i & 3) + (i >> 2) * 16) * CFG::BK);
#pragma unroll
                    for (int kk = 0; kk < 4; ++kk) {
                        float bv[4 * RN];
                        load_groups<RN, 32>(
                            bv, xb + (4 * kq + kk) * CFG::LDB + bn);
#pragma unroll
                        for (int i = 0; i < 4 * RM; ++i) {
                            const float av = kk == 0   ? a4[i].x
                                             : kk == 1 ? a4[i].y
                                             : kk == 2 ? a4[i].z
                                                       : a4[i].w;
#pragma unroll
                            for (int j = 0; j < 4 * RN; ++j)
                                acc[i][j] = fmaf(av, bv[j], acc[i][j]);
                        }
                    }
                }
            } else {
#pragma unroll(kUnroll)
                for (int kk = 0; kk < kRun; ++kk) {
                    float av[4 * RM], bv[4 * RN];
                    load_groups<RM, 16>(av, xa + kk * CFG::LDA + am);
                    load_groups<RN, 32>(bv, xb + kk * CFG::LDB + bn);
#pragma unroll
                    for (int i = 0; i < 4 * RM; ++i)
#pragma unroll
                        for (int j = 0; j < 4 * RN; ++j)
                            acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
                }
            }
            /* Staged parts go to their stage (the barrier of the next
             * iteration publishes them) and the next part is read. */
            if (ahead < slabs) {
                la.land(ahead % CFG::STAGES, q);
                lb.land(ahead % CFG::STAGES, q);
            }
        }
    }

#pragma unroll
    for (int i = 0; i < 4 * RM; ++i) {
        const int row = m0 + am + (i & 3) + (i >> 2) * 16;
        if (row >= p.m)
            continue;
        float *crow = c + (size_t)row * p.ldc;
#pragma unroll
        for (int h = 0; h < RN; ++h) {
            const int col = n0 + bn + h * 32;
            float v[4];
#pragma unroll
            for (int j = 0; j < 4; ++j)
                v[j] = p.alpha * acc[i][h * 4 + j];
            store_c4(crow + col, v, p.n - col, p.beta, p.vec_c);
        }
    }
}

/* ------------------------------------------------------------------ */
/* f64: DMMA tensor cores                                              */

static constexpr int kBkF64 = 16;          /* k per slab                 */
/* Slabs in the cp.async ring: 4, or 3 for NT with 16-byte copies.  NT's
 * slabs both have rows padded to 20 doubles; in a ring of 4 they leave
 * room for two blocks of the 64 x 64 shape per SM, in a ring of 3 for
 * three, as in NN, TN and TT (H100: NT 4096^3 3.17 -> 2.92 ms, 8192^3
 * 24.2 -> 21.8 ms).  Element copies (unaligned rows) need the deeper
 * ring: NT 1023^3 went from 72 to 81-86 us with 3. */
template <bool TA, bool TB, bool VEC>
static constexpr int kStagesF64 = !TA && TB && VEC ? 3 : 4;
static constexpr int kLdKF64 = kBkF64 + 4; /* padded [mn][k] slab row   */

namespace {
/* A block shape: WM x WN warps, each with MI x NJ mma tiles of 16 x 8. */
template <int WM_, int WN_, int MI_, int NJ_> struct CfgF64 {
    static constexpr int WM = WM_, WN = WN_, MI = MI_, NJ = NJ_;
    static constexpr int BM = WM * 16 * MI, BN = WN * 8 * NJ;
    static constexpr int THREADS = 32 * WM * WN;
    /* Accumulators take 8 MI NJ registers: 128 x 128 (128 of them) gets
     * up to 255 registers, one block per SM; 32 x 32 warps (64) up to
     * 170 (128 spill); smaller ones up to 128. */
    static constexpr int MIN_BLOCKS =
        MI * NJ >= 16 ? 1 : 65536 / THREADS / (MI * NJ >= 8 ? 168 : 128);
};

/* Doubles in one slab row ([mn][k] rows when KCONTIG, else [k][mn]) and
 * in one slab, for an operand with MN rows or columns. */
template <bool KCONTIG, int MN>
static constexpr int kLdF64 = KCONTIG ? kLdKF64 : MN + 4;
template <bool KCONTIG, int MN>
static constexpr int kSlabF64 = KCONTIG ? MN * kLdKF64 : kBkF64 * (MN + 4);
template <class CFG, bool TA, bool TB, bool VEC>
static constexpr int kSmemF64 =
    kStagesF64<TA, TB, VEC> *
    (kSlabF64<!TA, CFG::BM> + kSlabF64<TB, CFG::BN>) * (int)sizeof(double);
} // namespace

/* Element (mn, k) of a slab. */
template <bool KCONTIG, int MN>
static __device__ __forceinline__ int at_f64(int mn, int k)
{
    return KCONTIG ? mn * kLdKF64 + k : k * (MN + 4) + mn;
}

namespace {
/* One operand's 16 x MN slab, copied in the stored layout by NT threads,
 * in chunks of 2 doubles.  KCONTIG (A not transposed, B transposed): MN
 * rows of 8 chunks; a thread's chunks are RS rows apart.  Else 16 k rows
 * of MN / 2 chunks; a thread's chunks are RS k rows apart. */
template <bool KCONTIG, bool VEC, int MN, int NT> struct SlabF64 {
    static constexpr int CPR = KCONTIG ? kBkF64 / 2 : MN / 2; /* per row */
    static constexpr int RS = NT / CPR;                  /* row stride  */
    static constexpr int COPIES = (KCONTIG ? MN : kBkF64) / RS;
    static_assert(NT % CPR == 0 && RS >= 1 && COPIES >= 1 &&
                      (KCONTIG ? MN : kBkF64) % RS == 0,
                  "slab shape and thread count do not fit");

    const double *ptr;  /* this thread's first chunk of the next slab   */
    size_t next;        /* pointer distance between the thread's chunks */
    size_t step;        /* pointer advance per slab                     */
    int lim_mn;         /* valid elements from ptr along mn             */
    int lim_k;          /* valid elements from ptr along k              */
    uint32_t dst;       /* shared address of the first chunk, stage 0   */

    __device__ __forceinline__ SlabF64(const double *matrix, size_t ld,
                                       int mn0, int mn, int k, uint32_t s)
    {
        const int t = (int)threadIdx.x;
        if (KCONTIG) {
            const int row = t / CPR, kc = (t % CPR) * 2;
            lim_mn = mn - (mn0 + row);
            lim_k = k - kc;
            ptr = matrix + (size_t)(mn0 + row) * ld + kc;
            next = RS * ld;
            step = kBkF64;
            dst = s + (uint32_t)(at_f64<true, MN>(row, kc) * sizeof(double));
        } else {
            const int kr = t / CPR, col = (t % CPR) * 2;
            lim_mn = mn - (mn0 + col);
            lim_k = k - kr;
            ptr = matrix + (size_t)kr * ld + mn0 + col;
            next = RS * ld;
            step = (size_t)kBkF64 * ld;
            dst = s + (uint32_t)(at_f64<false, MN>(col, kr) * sizeof(double));
        }
    }

    /* Start copying the next slab into ring stage `stage`. */
    __device__ __forceinline__ void issue(int stage)
    {
        constexpr int kChunkStride = RS * kLdF64<KCONTIG, MN> *
                                     (int)sizeof(double);
        const uint32_t d = dst + (uint32_t)(stage * kSlabF64<KCONTIG, MN> *
                                            sizeof(double));
#pragma unroll
        for (int i = 0; i < COPIES; ++i) {
            /* Doubles of the chunk in the matrix (<= 0: none). */
            const int rows = KCONTIG ? lim_mn - RS * i : lim_k - RS * i;
            const int n = rows > 0 ? (KCONTIG ? lim_k : lim_mn) : 0;
            const double *src = ptr + i * next;
            const uint32_t di = d + i * kChunkStride;
            if (VEC) {
                cp_async_chunk(di, src, n);
            } else {
                /* Element copies: the CPR threads of a row copy its
                 * 2 CPR doubles as two runs of CPR (thread j: elements
                 * j and CPR + j), not as pairs (2j and 2j + 1), so that
                 * each copy instruction of a warp reads and writes
                 * consecutive doubles: two shared-memory wavefronts per
                 * 32 lanes instead of four, and half the sectors per
                 * global read (H100, same run: f64 NN 2047^3 465-471 ->
                 * 442-447 us, TN 4095^3 3.54-3.59 -> 3.31-3.32 ms, TN
                 * 1023^3 66-67 -> 64-66 us).  Of a row in the matrix,
                 * n + 2j doubles (from its first) are. */
                const int j = (int)threadIdx.x % CPR;
                const int in = rows > 0 ? n + 2 * j : 0;
                cp_async8(di - 8 * j, src - j, in > j ? 8 : 0);
                cp_async8(di + 8 * (CPR - j), src + (CPR - j),
                          in > CPR + j ? 8 : 0);
            }
        }
        ptr += step;
        lim_k -= kBkF64;
    }
};
} // namespace

/* d (16 x 8) += a (16 x 8) * b (8 x 8).  With g = lane / 4, t = lane % 4:
 * a = A(g,t) A(g+8,t) A(g,t+4) A(g+8,t+4); b = B(t,g) B(t+4,g);
 * d = C(g,2t) C(g,2t+1) C(g+8,2t) C(g+8,2t+1). */
static __device__ __forceinline__ void mma_16x8x8(double (&d)[4],
                                                  const double (&a)[4],
                                                  const double (&b)[2])
{
#if __CUDA_ARCH__ >= 900
    asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
        "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
#else
    /* sm_80 has only m8n8k4, whose fragments are the quarters of these:
     * a[q] holds rows g (+8 for odd q) and k t (+4 for q >= 2). */
#pragma unroll
    for (int q = 0; q < 4; ++q)
        asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, "
            "{%3}, {%0,%1};\n"
            : "+d"(d[(q & 1) * 2]), "+d"(d[(q & 1) * 2 + 1])
            : "d"(a[q]), "d"(b[q >> 1]));
#endif
}

/* c[0..left) = v + beta * c (C read only when beta != 0), at most 2. */
static __device__ __forceinline__ void store_c2(double *c, double v0,
                                                double v1, int left,
                                                double beta, bool vec)
{
    if (vec && left >= 2) {
        double2 out = make_double2(v0, v1);
        if (beta != 0.0) {
            const double2 old = *reinterpret_cast<const double2 *>(c);
            out.x = fma(beta, old.x, out.x);
            out.y = fma(beta, old.y, out.y);
        }
        *reinterpret_cast<double2 *>(c) = out;
    } else {
        if (left > 0)
            c[0] = beta != 0.0 ? fma(beta, c[0], v0) : v0;
        if (left > 1)
            c[1] = beta != 0.0 ? fma(beta, c[1], v1) : v1;
    }
}

/* Every shape computes each element of C the same way: the same mma
 * instruction over k = 0..7, 8..15, ... in order, with the element in the
 * same place of the 16 x 8 mma tile (block and warp tiles start at
 * multiples of 16 rows and 8 columns), then alpha * acc and fma(beta, C,
 * alpha * acc); split over k (see Split-K), each k part so from zero,
 * the parts then added to C in order.  So the shape changes the speed,
 * never the bits. */
template <class CFG, bool TA, bool TB, bool VEC>
static __global__ void __launch_bounds__(CFG::THREADS, CFG::MIN_BLOCKS)
    gemm_f64_kernel(const GemmParams<double> p)
{
    constexpr bool KA = !TA, KB = TB; /* stored with k contiguous */
    constexpr int kStages = kStagesF64<TA, TB, VEC>;
    constexpr int MI = CFG::MI, NJ = CFG::NJ, BM = CFG::BM, BN = CFG::BN;
    extern __shared__ __align__(16) unsigned char gemm_smem[];
    double *sa = reinterpret_cast<double *>(gemm_smem); /* ring of A slabs */
    double *sb = sa + kStages * kSlabF64<KA, BM>;

    /* Split-K: this block row's k part, as a product of its own. */
    const double *a = p.a, *b = p.b;
    double *c = p.c;
    int k = p.k;
    if (p.split_k > 0) {
        const int k0 = (int)blockIdx.y * p.split_k;
        a += TA ? (size_t)k0 * p.lda : (size_t)k0;
        b += TB ? (size_t)k0 : (size_t)k0 * p.ldb;
        c += (size_t)blockIdx.y * p.split_stride;
        k = min(p.split_k, p.k - k0);
    }

    int m0, n0;
    tile_of_block<BM, BN>(p.tiles_m, p.tiles_n, m0, n0);
    SlabF64<KA, VEC, BM, CFG::THREADS> la(
        a, p.lda, m0, p.m, k, (uint32_t)__cvta_generic_to_shared(sa));
    SlabF64<KB, VEC, BN, CFG::THREADS> lb(
        b, p.ldb, n0, p.n, k, (uint32_t)__cvta_generic_to_shared(sb));

    const int slabs = (k + kBkF64 - 1) / kBkF64;
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) {
        if (s < slabs) {
            la.issue(s);
            lb.issue(s);
        }
        cp_async_commit(); /* empty groups keep the count uniform */
    }

    /* Warps WM (m) x WN (n) of 16 MI x 8 NJ: MI x NJ mma tiles. */
    const int warp = (int)threadIdx.x >> 5, lane = (int)threadIdx.x & 31;
    const int g = lane >> 2, t = lane & 3;
    const int wm = (warp / CFG::WN) * 16 * MI, wn = (warp % CFG::WN) * 8 * NJ;

    double acc[MI][NJ][4];
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NJ; ++j)
#pragma unroll
            for (int v = 0; v < 4; ++v)
                acc[i][j][v] = 0.0;

#pragma unroll 1
    for (int s = 0; s < slabs; ++s) {
        /* Slab s has landed for this thread; the barrier makes it so for
         * all and frees the stage read in iteration s - 1 for refilling. */
        cp_async_wait<kStages - 2>();
        __syncthreads();
        const int ahead = s + kStages - 1;
        if (ahead < slabs) {
            la.issue(ahead % kStages);
            lb.issue(ahead % kStages);
        }
        cp_async_commit();

        const double *xa = sa + (s % kStages) * kSlabF64<KA, BM>;
        const double *xb = sb + (s % kStages) * kSlabF64<KB, BN>;
#pragma unroll
        for (int kk = 0; kk < kBkF64; kk += 8) {
            double af[MI][4], bf[NJ][2];
#pragma unroll
            for (int i = 0; i < MI; ++i) {
                const int m = wm + i * 16 + g;
                af[i][0] = xa[at_f64<KA, BM>(m, kk + t)];
                af[i][1] = xa[at_f64<KA, BM>(m + 8, kk + t)];
                af[i][2] = xa[at_f64<KA, BM>(m, kk + t + 4)];
                af[i][3] = xa[at_f64<KA, BM>(m + 8, kk + t + 4)];
            }
#pragma unroll
            for (int j = 0; j < NJ; ++j) {
                const int n = wn + j * 8 + g;
                bf[j][0] = xb[at_f64<KB, BN>(n, kk + t)];
                bf[j][1] = xb[at_f64<KB, BN>(n, kk + t + 4)];
            }
#pragma unroll
            for (int i = 0; i < MI; ++i)
#pragma unroll
                for (int j = 0; j < NJ; ++j)
                    mma_16x8x8(acc[i][j], af[i], bf[j]);
        }
    }

#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int row = m0 + wm + i * 16 + g + 8 * h;
            if (row >= p.m)
                continue;
            double *crow = c + (size_t)row * p.ldc;
#pragma unroll
            for (int j = 0; j < NJ; ++j) {
                const int col = n0 + wn + j * 8 + 2 * t;
                store_c2(crow + col, p.alpha * acc[i][j][2 * h],
                         p.alpha * acc[i][j][2 * h + 1], p.n - col, p.beta,
                         p.vec_c);
            }
        }
}

/* ------------------------------------------------------------------ */
/* C = beta * C (k == 0 or alpha == 0)                                 */

template <typename T>
static __global__ void gemm_scale_kernel(size_t m, size_t n, T beta, T *c,
                                         size_t ldc)
{
    for (size_t row = blockIdx.y; row < m; row += gridDim.y) {
        T *crow = c + row * ldc;
        for (size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
             col < n; col += (size_t)gridDim.x * blockDim.x)
            crow[col] = beta == T(0) ? T(0) : beta * crow[col];
    }
}

/* ------------------------------------------------------------------ */
/* Host side                                                           */

static duo_status check_launch(const char *where, const char *kernel)
{
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        return duo_fail(DUO_ERROR_LAUNCH, where,
                        "kernel %s launch failed: %s; the CUDA backend "
                        "needs a GPU of compute capability 8.0 or newer",
                        kernel, cudaGetErrorString(err));
    return DUO_SUCCESS;
}

template <typename T>
static duo_status scale_c(const char *where, size_t m, size_t n, T beta,
                          T *c, size_t ldc)
{
    if (beta == T(1))
        return DUO_SUCCESS; /* C = 1 * C */
    const unsigned threads = 256;
    const size_t col_blocks = (n + threads - 1) / threads;
    const dim3 grid((unsigned)(col_blocks < 1024 ? col_blocks : 1024),
                    (unsigned)(m < 65535 ? m : 65535));
    gemm_scale_kernel<T><<<grid, threads>>>(m, n, beta, c, ldc);
    return check_launch(where, "gemm_scale_kernel");
}

/* Shared memory above the 48 KB default must be opted into per kernel.
 * The callers do it once per kernel (a thread-safe static). */
template <typename P>
static cudaError_t allow_smem(void (*kernel)(P), int bytes)
{
    const cudaError_t err = cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    if (err != cudaSuccess)
        cudaGetLastError(); /* reported by the caller, not the next launch */
    return err;
}

static duo_status smem_failed(const char *where, const char *kernel,
                              int bytes, cudaError_t err)
{
    return duo_fail(DUO_ERROR_LAUNCH, where,
                    "cudaFuncSetAttribute(%s, %d bytes of shared memory) "
                    "failed: %s; the CUDA backend needs a GPU of compute "
                    "capability 8.0 or newer",
                    kernel, bytes, cudaGetErrorString(err));
}

/* ------------------------------------------------------------------ */
/* Block shapes and the choice among them                              */

/* Largest first.  128 x 256 and 128 x 128 are the shapes for large
 * products; the smaller ones give more blocks where C has too few large
 * tiles to fill the GPU (64 of 128 x 128 at 1024^2 on a GPU of 132 SMs).
 * 64 x 128 is 128 x 64 turned round, for C with few rows (64 x 8192
 * split over k). */
/* 128 x 256, 256 threads, 8 x 16 each, one block per SM: 21 FFMAs per
 * shared load instead of 16 (2 to 3% faster than 128 x 128 at 4096^3 and
 * 8192^3 on an H100, NN and NT, with both shapes copying by cp.async).
 * It transposes through registers: 232 to 254 of them, no spills.  (The
 * 128 x 128 shape, capped at 128 registers for two blocks per SM, was 4%
 * slower at 4096^3 when it did so.) */
using F32Shape0 = CfgF32<4, 2, 2, 4, 32, 3, true>;
/* 128 x 128, 256 threads, 8 x 8 each; k slabs of 32 in a ring of 3 (half
 * the barriers per FFMA: 3 to 6% faster from 2048^3 up on an H100; the
 * smaller shapes would lose a block per SM to the larger slabs). */
using F32Shape1 = CfgF32<4, 2, 2, 2, 32, 3>;
/* 128 x 64, 128 threads, 8 x 8 each.  It transposes through registers,
 * with up to 168 of them (three blocks per SM; at 128 it spilled).  When
 * split products such as 8192 x 64 x 8192, whose A (k contiguous) is the
 * whole of the traffic, used it, that took them from 302 to 288-291 us
 * on an H100; NT 1023^3 4% faster, the other sizes where it is chosen
 * unchanged.
 * 64 x 128 is not staged: its 64 x 8192 x 8192 was 11% slower so. */
using F32Shape2 = CfgF32<4, 1, 2, 2, 16, 4, true>;
/* 128 x 64 for split products keeps op(A) [m][k] (KeptSlabF32): 8192 x 64
 * x 8192 NN 6 to 7% faster on an H100 than staging, where three blocks
 * share an SM; with one block per SM (1000^3 NN) it was 10% slower, the
 * loads of 4 k of A exposed. */
using F32Shape2Split = CfgF32<4, 1, 2, 2, 16, 4, true, true>;
/* 128 x 64 with A stored transposed and B not (TN): neither operand is
 * staged nor kept, so the registers staging would need are not reserved
 * (up to 128: four blocks per SM instead of three).  On an H100 that took
 * TN 8192 x 64 x 8192 from 232-239 to 220-227 us; NN split products, which
 * keep A, spilled at 128 and slowed from 255-257 to 283-290 us. */
using F32Shape2Plain = CfgF32<4, 1, 2, 2, 16, 4>;
using F32Shape3 = CfgF32<2, 2, 2, 2>; /* 64 x 128, 128 threads, 8 x 8   */
using F32Shape4 = CfgF32<4, 2, 1, 1>; /* 64 x 64, 256 threads, 4 x 4    */
using F32Shape5 = CfgF32<2, 2, 1, 1>; /* 32 x 64, 128 threads, 4 x 4    */
using F32Shape6 = CfgF32<2, 1, 1, 1>; /* 32 x 32, 64 threads, 4 x 4     */
using F64Shape0 = CfgF64<2, 4, 4, 4>; /* 128 x 128, 8 warps of 64 x 32   */
using F64Shape1 = CfgF64<2, 2, 2, 4>; /* 64 x 64, 4 warps of 32 x 32     */
using F64Shape2 = CfgF64<2, 2, 2, 2>; /* 64 x 32, 4 warps of 32 x 16     */
using F64Shape3 = CfgF64<2, 1, 1, 4>; /* 32 x 32, 2 warps of 16 x 32     */

/* Blocks of a kernel that fit on one SM (registers, shared memory,
 * threads), as the CUDA runtime counts them for this GPU; 1 if it cannot
 * say. */
template <typename P>
static int resident_blocks(void (*kernel)(P), int threads, int smem)
{
    int blocks = 0;
    if (allow_smem(kernel, smem) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads,
                                                      (size_t)smem) !=
            cudaSuccess) {
        cudaGetLastError();
        blocks = 1;
    }
    return blocks > 0 ? blocks : 1;
}

template <class C> static int resident_f32()
{
    static const int blocks = resident_blocks(
        gemm_f32_kernel<C, false, false, true>, C::THREADS, C::SMEM);
    return blocks;
}

template <class C> static int resident_f64()
{
    static const int blocks =
        resident_blocks(gemm_f64_kernel<C, false, false, true>, C::THREADS,
                        kSmemF64<C, false, false, true>);
    return blocks;
}

namespace {
/* What the host knows of a shape: its name (as DUO_GEMM_TILE spells it),
 * tile and warps, how many blocks share an SM, and its speed.  Speed:
 * an SM running W warps of the shape multiplies at peak * W / (W + half)
 * (GFLOP/s): latency hidden by more warps, up to the peak that the
 * shape's ratio of FFMA or DMMA to shared-memory loads allows. */
struct ShapeInfo {
    const char *name;
    int bm, bn, warps;
    int (*resident)(void);
    double peak, half;
};

/* The rest of the time model, per precision: each block costs k + k_extra
 * iterations of k (its prologue and epilogue), each wave of blocks on an
 * SM wave_us more (the pipeline filling). */
struct TimeModel {
    double k_extra, wave_us;
};
} // namespace

template <class C>
static constexpr ShapeInfo info_f32(const char *name, double peak,
                                    double half)
{
    return {name, C::BM, C::BN, C::WM * C::WN, resident_f32<C>, peak, half};
}

template <class C>
static constexpr ShapeInfo info_f64(const char *name, double peak,
                                    double half)
{
    return {name, C::BM, C::BN, C::WM * C::WN, resident_f64<C>, peak, half};
}

/* The constants are fitted (least squares on log time) to one H100 SXM
 * (132 SMs, 1980 MHz) run of profiles/gemm_tune.sh: duo's time with each
 * shape forced (DUO_GEMM_TILE) at 256^3, 512^3, 1000^3, 1023^3, 1024^3,
 * 2048^3, 513x257x129, 8192x64x8192, 64x8192x8192 and 1023^3 NT and TN,
 * 99 times in all; rms error 7% (f32) and 10% (f64), about the noise
 * between runs.  With them, the model's choice is the fastest measured
 * shape in every row but three where the fastest was within 4.4% of it
 * (f32 513x257x129 and 64x8192x8192, f64 512^3), and it keeps the large
 * f32 tiles for 4096^3 and up (the old count of issue slots took 128 x 64
 * at 8192^3).  64 x 128 was not in that run: it has 128 x 64's warps and
 * per-thread work, so it gets its constants.  128 x 256 came later: its
 * peak is set from its times at 4096^3 and 8192^3 NN on an H100 (2977
 * and 23590 us; the model, other constants unchanged, gives 2991 and
 * 23713); transposing through registers and running slabs 16 k at a
 * time made those 2.84 ms and 22.56 ms, and the peak 480 (model: 2842
 * and 22527 us).  The model takes it over 128 x 128 from 2048^3 up.  On
 * other GPUs the SM count and residency are the GPU's own; the speeds
 * are only relative. */
static const ShapeInfo kShapesF32[] = {
    info_f32<F32Shape0>("128x256", 480, 1.98),
    info_f32<F32Shape1>("128x128", 401, 1.98),
    info_f32<F32Shape2>("128x64", 383, 1.98),
    info_f32<F32Shape3>("64x128", 383, 1.98),
    info_f32<F32Shape4>("64x64", 260, 1.98),
    info_f32<F32Shape5>("32x64", 247, 1.98),
    info_f32<F32Shape6>("32x32", 233, 1.98)};
static constexpr int kShapeF32Tall = 3; /* 64 x 128 in kShapesF32 */
static const TimeModel kModelF32 = {74.3, 0.0};
static const ShapeInfo kShapesF64[] = {
    info_f64<F64Shape0>("128x128", 342, 0.13),
    info_f64<F64Shape1>("64x64", 421, 2.14),
    info_f64<F64Shape2>("64x32", 323, 1.01),
    info_f64<F64Shape3>("32x32", 232, 0.0)};
static const TimeModel kModelF64 = {0.0, 9.36};

static size_t tiles_of(const ShapeInfo &s, size_t m, size_t n)
{
    return ((m + s.bm - 1) / s.bm) * ((n + s.bn - 1) / s.bn);
}

/* Streaming multiprocessors of the current device (132 if it cannot be
 * asked), once per process. */
static int sm_count()
{
    static const int sms = [] {
        int dev = 0, count = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount,
                                   dev) != cudaSuccess ||
            count <= 0) {
            cudaGetLastError();
            count = 132;
        }
        return count;
    }();
    return sms;
}

/* Modelled time (us) of `splits` products of m x n x k with shape s: the
 * blocks spread evenly over the SMs, the busiest SM gets q of them and
 * runs them `resident` at a time, then the rest. */
static double model_us(const ShapeInfo &s, const TimeModel &model, size_t m,
                       size_t n, size_t k, size_t splits)
{
    const double sms = (double)sm_count();
    const double q = ceil((double)tiles_of(s, m, n) * (double)splits / sms);
    const double resident = (double)s.resident();
    const double full = floor(q / resident), rest = q - full * resident;
    const double flops =
        2.0 * s.bm * s.bn * ((double)k + model.k_extra) * 1e-3; /* GFLOP*us */
    double us = 0.0;
    for (int part = 0; part < 2; ++part) {
        const double blocks = part == 0 ? resident : rest;
        const double waves = part == 0 ? full : rest > 0.0 ? 1.0 : 0.0;
        if (waves == 0.0)
            continue;
        const double warps = blocks * s.warps;
        const double rate = s.peak * warps / (warps + s.half);
        us += waves * (blocks * flops / rate + model.wave_us);
    }
    return us;
}

/* The shape the model times fastest; ties go to shape `prefer` (-1:
 * none), else to the larger tile, which reads A and B fewer times.  Every
 * shape gives the same bits, so this may depend on the GPU. */
static int pick_shape(const ShapeInfo *shapes, int count,
                      const TimeModel &model, size_t m, size_t n, size_t k,
                      size_t splits, int prefer)
{
    int best = 0;
    double best_us = 0.0;
    for (int i = 0; i < count; ++i) {
        const double us = model_us(shapes[i], model, m, n, k, splits);
        if (i == 0 || us < best_us || (us == best_us && i == prefer)) {
            best = i;
            best_us = us;
        }
    }
    return best;
}

/* 128 x 64 and 64 x 128 have the same warps and per-thread work, so the
 * model times them alike wherever their tiles are as many.  An unsplit
 * f32 NN product takes 64 x 128 then: its A (k contiguous) is the operand
 * transposed on the way in, and 64 x 128 transposes half as much of it
 * per block.  H100, same run, 128 x 64 -> 64 x 128: NN 1000^3 69.4 ->
 * 66.6 us, 1023^3 75.1 -> 71.6 us, 1536^3 251 -> 233 us, 1024^3 70.9 ->
 * 70.5 us; but NT 1023^3 (both operands transposed) 77.9 -> 81.5 us. */
static int preferred_shape_f32(duo_transpose ta, duo_transpose tb,
                               size_t splits)
{
    return splits == 1 && ta == DUO_NO_TRANS && tb == DUO_NO_TRANS
               ? kShapeF32Tall
               : -1;
}

/* DUO_GEMM_TILE, when set to one of the shape names, forces that shape
 * (for tuning and for tests: every shape must give the same bits); unset,
 * empty or "auto" leaves the choice to pick_shape.  -1: not set. */
static duo_status forced_shape(const char *where, const ShapeInfo *shapes,
                               int count, int *index)
{
    *index = -1;
    const char *env = getenv("DUO_GEMM_TILE");
    if (env == NULL || env[0] == '\0' || strcmp(env, "auto") == 0)
        return DUO_SUCCESS;
    char names[128] = "";
    for (int i = 0; i < count; ++i) {
        if (strcmp(env, shapes[i].name) == 0) {
            *index = i;
            return DUO_SUCCESS;
        }
        strncat(names, shapes[i].name, sizeof names - strlen(names) - 1);
        strncat(names, ", ", sizeof names - strlen(names) - 1);
    }
    return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                    "DUO_GEMM_TILE = \"%s\" is not a tile shape of this "
                    "precision; expected one of %sor auto",
                    env, names);
}

/* ------------------------------------------------------------------ */
/* Launches                                                            */

template <class CFG, bool TA, bool TB, bool VEC>
static duo_status launch(const GemmParams<float> &p, dim3 blocks)
{
    constexpr int bytes = CFG::SMEM;
    static const cudaError_t smem =
        allow_smem(gemm_f32_kernel<CFG, TA, TB, VEC>, bytes);
    if (smem != cudaSuccess)
        return smem_failed("duo_gemm_f32", "gemm_f32_kernel", bytes, smem);
    gemm_f32_kernel<CFG, TA, TB, VEC><<<blocks, CFG::THREADS, bytes>>>(p);
    return check_launch("duo_gemm_f32", "gemm_f32_kernel");
}

template <class CFG, bool TA, bool TB, bool VEC>
static duo_status launch(const GemmParams<double> &p, dim3 blocks)
{
    constexpr int bytes = kSmemF64<CFG, TA, TB, VEC>;
    static const cudaError_t smem =
        allow_smem(gemm_f64_kernel<CFG, TA, TB, VEC>, bytes);
    if (smem != cudaSuccess)
        return smem_failed("duo_gemm_f64", "gemm_f64_kernel", bytes, smem);
    gemm_f64_kernel<CFG, TA, TB, VEC><<<blocks, CFG::THREADS, bytes>>>(p);
    return check_launch("duo_gemm_f64", "gemm_f64_kernel");
}

/* One shape: its tile counts into p, then the kernel for the transposes
 * and alignment; `splits` block rows (split-K, p.split_k > 0) or 1. */
template <class CFG, typename T>
static duo_status launch_shape(GemmParams<T> p, duo_transpose ta,
                               duo_transpose tb, bool vec, unsigned splits)
{
    p.tiles_m = (p.m + CFG::BM - 1) / CFG::BM;
    p.tiles_n = (p.n + CFG::BN - 1) / CFG::BN;
    const dim3 blocks((unsigned)p.tiles_m * (unsigned)p.tiles_n, splits);
    if (ta == DUO_TRANS) {
        if (tb == DUO_TRANS)
            return vec ? launch<CFG, true, true, true>(p, blocks)
                       : launch<CFG, true, true, false>(p, blocks);
        return vec ? launch<CFG, true, false, true>(p, blocks)
                   : launch<CFG, true, false, false>(p, blocks);
    }
    if (tb == DUO_TRANS)
        return vec ? launch<CFG, false, true, true>(p, blocks)
                   : launch<CFG, false, true, false>(p, blocks);
    return vec ? launch<CFG, false, false, true>(p, blocks)
               : launch<CFG, false, false, false>(p, blocks);
}

static duo_status launch_index(int shape, const GemmParams<float> &p,
                               duo_transpose ta, duo_transpose tb, bool vec,
                               unsigned splits)
{
    switch (shape) {
    case 1: return launch_shape<F32Shape1>(p, ta, tb, vec, splits);
    case 2:
        if (ta == DUO_TRANS && tb == DUO_NO_TRANS)
            return launch_shape<F32Shape2Plain>(p, ta, tb, vec, splits);
        return splits > 1
                   ? launch_shape<F32Shape2Split>(p, ta, tb, vec, splits)
                   : launch_shape<F32Shape2>(p, ta, tb, vec, splits);
    case 3: return launch_shape<F32Shape3>(p, ta, tb, vec, splits);
    case 4: return launch_shape<F32Shape4>(p, ta, tb, vec, splits);
    case 5: return launch_shape<F32Shape5>(p, ta, tb, vec, splits);
    case 6: return launch_shape<F32Shape6>(p, ta, tb, vec, splits);
    default: return launch_shape<F32Shape0>(p, ta, tb, vec, splits);
    }
}

static duo_status launch_index(int shape, const GemmParams<double> &p,
                               duo_transpose ta, duo_transpose tb, bool vec,
                               unsigned splits)
{
    switch (shape) {
    case 1: return launch_shape<F64Shape1>(p, ta, tb, vec, splits);
    case 2: return launch_shape<F64Shape2>(p, ta, tb, vec, splits);
    case 3: return launch_shape<F64Shape3>(p, ta, tb, vec, splits);
    default: return launch_shape<F64Shape0>(p, ta, tb, vec, splits);
    }
}

/* ------------------------------------------------------------------ */
/* Split-K                                                             */

/* Where C has few elements and k is long, the tiles of C alone leave
 * most of the GPU idle (8192 x 64 x 8192: 64 tiles of 128 x 64 for 132
 * SMs).  The product is then cut along k into parts, each a product of
 * its own from zero, alpha * acc rounded (P_j), added to C one after the
 * other in k order: C = fma(beta, C, P_0) (or P_0 when beta is 0), then
 * C = C + P_j.  f32 cuts at the k blocks of the order duo.h calls
 * blocked, DUO_GEMM_KBLOCK_F32, each part an fma chain: that is the CPU
 * backends' order for any k, so split f32 products are bit-identical on
 * CPU and CUDA.  f64 (whose tensor-core sums never match the CPU's bits)
 * cuts at kSplitKF64, fewer and longer parts: 64 x 8192 x 8192 would
 * otherwise write and read 32 parts of C.  The split is a function of
 * (m, n, k) alone, never of the GPU or the tile shape: splits_of() and
 * duo.h say the same.  The block rows of one launch write P_j to a
 * workspace and a second kernel folds them into C in order; a product
 * with more parts than the workspace holds goes in groups, each folded
 * onto C. */
static constexpr size_t kSplitMaxElems = (size_t)1 << 19; /* m * n      */
/* k per part of a split f64 product.  On an H200, against the unsplit
 * product (three alternating runs each): 64 x 8192 x 8192 237-239 ->
 * 213-218 us, 2048 x 64 x 4096 81-83 -> 50-53 us, 1000 x 70 x 9000
 * 167-170 -> 65-68 us, 724 x 724 x 12772 502-508 -> 325-334 us; 8192 x
 * 64 x 8192 218-222 -> 216-219 us.  On an H100 the same gains but for
 * the two that stream 512 MB of one operand: 64 x 8192 x 8192 236-239
 * -> 251-253 us, 8192 x 64 x 8192 236-246 -> 271-274 us. */
static constexpr size_t kSplitKF64 = 2048;
static constexpr size_t kWorkspaceBytes = (size_t)64 << 20;
/* The largest packed B (see "Packing B"): 8192^2 floats. */
static constexpr size_t kPackMaxBytes = (size_t)256 << 20;

/* k per part of a split product of T, and the fewest parts it splits
 * into (f32: 4 k blocks, K >= 1536 as duo.h says; f64: 2, K > 2048). */
template <typename T> static constexpr size_t kSplitK =
    sizeof(T) == 4 ? DUO_GEMM_KBLOCK_F32 : kSplitKF64;
template <typename T> static constexpr size_t kSplitMinParts =
    sizeof(T) == 4 ? 4 : 2;

/* Parts to split into, 1: no split. */
template <typename T> static size_t splits_of(size_t m, size_t n, size_t k)
{
    const size_t parts = (k + kSplitK<T> - 1) / kSplitK<T>;
    return m * n <= kSplitMaxElems && parts >= kSplitMinParts<T> ? parts
                                                                  : 1;
}

/* C = fma(beta, C, P_0) (beta != 0) or P_0 when `first`, then C = C + P_j
 * for the parts in order.  P_j is m x n (row stride n) at w + j m n.
 * With `quads` (f32, n % 4 == 0, C 16-byte aligned rows) each thread
 * takes 4 consecutive elements of a row, one 16-byte load per part
 * (fold_quads); launched early (see kernel_cuda.h), so this launch
 * overlaps the multiply's last blocks.  On an H100, against one element
 * per thread and a plain launch: 724 x 724 x 12772 TN 462 -> 451 us,
 * 2048 x 64 x 4096 58 -> 56 us, 8192 x 64 x 8192 261 -> 259 us (ncu: 19
 * us of the old fold against 290 of the multiply, at base clocks). */
static __device__ __forceinline__ void fold_quads(size_t mn, size_t n,
                                                  const float *w, int parts,
                                                  bool first, float beta,
                                                  float *c, size_t ldc,
                                                  size_t i, size_t step)
{
    for (i *= 4; i < mn; i += 4 * step) {
        const size_t row = i / n;
        float *at = c + row * ldc + (i - row * n);
        float4 r;
        int j = 0;
        if (first) {
            r = __ldg(reinterpret_cast<const float4 *>(w + i));
            if (beta != 0.0f) {
                const float4 old = *reinterpret_cast<const float4 *>(at);
                r.x = fmaf(beta, old.x, r.x);
                r.y = fmaf(beta, old.y, r.y);
                r.z = fmaf(beta, old.z, r.z);
                r.w = fmaf(beta, old.w, r.w);
            }
            j = 1;
        } else {
            r = *reinterpret_cast<const float4 *>(at);
        }
#pragma unroll 8
        for (; j < parts; ++j) { /* fma(1, C, P_j) */
            const float4 q = __ldg(
                reinterpret_cast<const float4 *>(w + (size_t)j * mn + i));
            r.x = __fadd_rn(r.x, q.x);
            r.y = __fadd_rn(r.y, q.y);
            r.z = __fadd_rn(r.z, q.z);
            r.w = __fadd_rn(r.w, q.w);
        }
        *reinterpret_cast<float4 *>(at) = r;
    }
}

/* x + y rounded, the fold's add (C + P_j, never contracted). */
static __device__ __forceinline__ float add_rn(float x, float y)
{
    return __fadd_rn(x, y);
}

static __device__ __forceinline__ double add_rn(double x, double y)
{
    return __dadd_rn(x, y);
}

template <typename T>
static __global__ void gemm_fold(size_t m, size_t n, const T *w, int parts,
                                 bool first, T beta, T *c, size_t ldc,
                                 bool quads)
{
    duo_cuda_wait_previous_();
    const size_t mn = m * n, step = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if constexpr (sizeof(T) == 4) {
        if (quads) {
            fold_quads(mn, n, w, parts, first, beta, c, ldc, i, step);
            return;
        }
    }
    for (; i < mn; i += step) {
        const size_t row = i / n;
        T *at = c + row * ldc + (i - row * n);
        T r;
        int j = 0;
        if (first) {
            r = w[i];
            if (beta != T(0))
                r = fma(beta, *at, r);
            j = 1;
        } else {
            r = *at;
        }
#pragma unroll 4
        for (; j < parts; ++j)
            r = add_rn(r, w[(size_t)j * mn + i]); /* fma(1, C, P_j) */
        *at = r;
    }
}

/* gemm's workspace (split products' parts, packed B): a pool of the
 * current device that keeps up to kPackMaxBytes between calls (the
 * default pool would hand memory back at every synchronization and map
 * it again on the next call).
 * Allocations are stream-ordered on the default stream, like the
 * kernels, so calls never share a workspace.  `optional`: a caller that
 * can do without it gets *w = nullptr and success when the device is out
 * of memory. */
template <typename T>
static duo_status workspace_alloc(const char *where, T **w, size_t bytes,
                                  bool optional = false)
{
    static cudaMemPool_t pool = nullptr;
    static const cudaError_t made = [] {
        int dev = 0;
        cudaError_t err = cudaGetDevice(&dev);
        cudaMemPoolProps props;
        memset(&props, 0, sizeof props);
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = dev;
        if (err == cudaSuccess)
            err = cudaMemPoolCreate(&pool, &props);
        uint64_t keep = kPackMaxBytes;
        if (err == cudaSuccess)
            err = cudaMemPoolSetAttribute(
                pool, cudaMemPoolAttrReleaseThreshold, &keep);
        return err;
    }();
    if (made != cudaSuccess)
        return duo_cuda_fail(made, __FILE__, __LINE__, where,
                             "cudaMemPoolCreate (gemm workspace)");
    void *p = nullptr;
    const cudaError_t err = cudaMallocFromPoolAsync(&p, bytes, pool, 0);
    if (err == cudaErrorMemoryAllocation && optional) {
        cudaGetLastError(); /* or the next launch check would see it */
        *w = nullptr;
        return DUO_SUCCESS;
    }
    if (err != cudaSuccess)
        return duo_cuda_fail(err, __FILE__, __LINE__, where,
                             "cudaMallocFromPoolAsync (gemm workspace)");
    *w = static_cast<T *>(p);
    return DUO_SUCCESS;
}

/* p: the whole product, shape chosen for its parts; `splits` parts. */
template <typename T>
static duo_status gemm_split(const char *where, int shape,
                             const GemmParams<T> &p, duo_transpose ta,
                             duo_transpose tb, bool vec, size_t splits)
{
    const size_t kb = kSplitK<T>;
    const size_t mn = (size_t)p.m * (size_t)p.n;
    size_t group = kWorkspaceBytes / (mn * sizeof(T));
    group = group < 1 ? 1 : group > splits ? splits : group;
    if (group > 65535)
        group = 65535; /* gridDim.y */
    T *w = nullptr;
    duo_status st = workspace_alloc(where, &w, group * mn * sizeof(T));
    if (st != DUO_SUCCESS)
        return st;
    for (size_t first = 0; first < splits && st == DUO_SUCCESS;
         first += group) {
        const size_t parts = splits - first < group ? splits - first : group;
        const size_t k0 = first * kb;
        GemmParams<T> q = p;
        q.a = p.a + (ta == DUO_TRANS ? k0 * p.lda : k0);
        q.b = p.b + (tb == DUO_TRANS ? k0 : k0 * p.ldb);
        q.k = (int)((size_t)p.k - k0 < parts * kb ? (size_t)p.k - k0
                                                  : parts * kb);
        q.split_k = (int)kb;
        q.split_stride = mn;
        q.c = w;
        q.ldc = (size_t)p.n;
        q.beta = T(0); /* P_j = alpha * acc; C is read by the fold */
        q.vec_c = p.n % (16 / sizeof(T)) == 0;
        st = launch_index(shape, q, ta, tb, vec, (unsigned)parts);
        if (st != DUO_SUCCESS)
            break;
        const bool quads = sizeof(T) == 4 && p.n % 4 == 0 && p.vec_c;
        const size_t threads = 256, per = quads ? 4 : 1;
        const size_t need = (mn / per + threads - 1) / threads;
        const unsigned grid = (unsigned)(need < 8192 ? need : 8192);
        duo_cuda_launch_(gemm_fold<T>, grid, (unsigned)threads, 0, 0,
                         (size_t)p.m, (size_t)p.n, w, (int)parts, first == 0,
                         p.beta, p.c, p.ldc, quads);
        st = check_launch(where, "gemm_fold");
    }
    const cudaError_t freed = cudaFreeAsync(w, 0);
    if (st == DUO_SUCCESS && freed != cudaSuccess)
        st = duo_cuda_fail(freed, __FILE__, __LINE__, where,
                           "cudaFreeAsync (split-K workspace)");
    return st;
}

/* ------------------------------------------------------------------ */
/* Packing B (f32)                                                     */

/* The f32 kernels hold both slabs k-major, so B stored transposed ([n][k],
 * k contiguous) is transposed on its way into shared memory, by every
 * block row of C that reads it.  That costs most in the 128 x 256 shape,
 * whose B slab is twice A's: on an H100, NT and TT 4096^3 took 3.02 and
 * 2.99 ms against NN's 2.84 and TN's 2.77.  In large products B is
 * instead transposed once into the workspace ([k][n], rows rounded up to
 * 32 floats) and the copy multiplied as B not transposed: NT 4096^3 2.89
 * ms, TT 2.82, NT 8192^3 22.7 ms against 23.8, NT 3000^3 1.42 against
 * 1.55 (the copy of a 4096^2 B takes about 50 us).  A copy is exact and
 * the kernel sums every element over k in the same order whatever the
 * layout, so packing never changes the bits.  A is not packed: staging A
 * costs less than a pass over it (NN 2048^3 was slower with A packed,
 * 4096^3 no faster).  Small products lose more to the extra launch than
 * they gain (with A packed too: NT 1023^3 85 us against 80, NT 4096 x
 * 4096 x 64 89 to 95 against 87), so only products with m and k from
 * kPackMinDim up pack: each element of B is then read by at least 16
 * block rows.  Split products (below) do not pack: with B packed, NT
 * 8192 x 64 x 8192 ran within 1% of its time unpacked and 2048 x 64 x
 * 4096 5% slower.  When the device has no memory left for the copy, B
 * is multiplied as stored: packing is never the reason a product fails. */
static constexpr size_t kPackMinDim = 2048;
static constexpr int kPackTile = 32;

/* dst[c][r] = src[r][c] for r < rows, c < cols.  One 32 x 32 tile per
 * block of 32 x 8 threads at a time, through shared memory (rows padded by
 * one float, so the column reads hit 32 banks): reads and writes both run
 * along rows. */
static __global__ void gemm_transpose_f32(const float *__restrict__ src,
                                          size_t lds, int rows, int cols,
                                          float *__restrict__ dst, size_t ldd)
{
    __shared__ float tile[kPackTile][kPackTile + 1];
    const int c0 = (int)blockIdx.x * kPackTile;
    for (int r0 = (int)blockIdx.y * kPackTile; r0 < rows;
         r0 += (int)gridDim.y * kPackTile) {
        const int c = c0 + (int)threadIdx.x;
        for (int i = (int)threadIdx.y; i < kPackTile; i += 8)
            if (r0 + i < rows && c < cols)
                tile[i][threadIdx.x] = src[(size_t)(r0 + i) * lds + c];
        __syncthreads();
        const int r = r0 + (int)threadIdx.x;
        for (int i = (int)threadIdx.y; i < kPackTile; i += 8)
            if (c0 + i < cols && r < rows)
                dst[(size_t)(c0 + i) * ldd + r] = tile[threadIdx.x][i];
        __syncthreads(); /* the tile is refilled for the next r0 */
    }
}

static size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

/* DUO_GEMM_PACK: unset, empty or "auto" packs by the size rule (-1), "0"
 * never, "1" whenever B is stored transposed (for tuning and for tests:
 * packing must not change the bits).  f64 never packs, but a bad value is
 * refused in both precisions, like DUO_GEMM_TILE. */
static duo_status pack_mode(const char *where, int *mode)
{
    const char *env = getenv("DUO_GEMM_PACK");
    if (env == NULL || env[0] == '\0' || strcmp(env, "auto") == 0)
        *mode = -1;
    else if (strcmp(env, "0") == 0 || strcmp(env, "1") == 0)
        *mode = env[0] - '0';
    else
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "DUO_GEMM_PACK = \"%s\"; expected 0 (never pack B), "
                        "1 (pack B whenever it is stored transposed) or "
                        "auto",
                        env);
    return DUO_SUCCESS;
}

/* Whether to pack B of an unsplit f32 product: B stored transposed, the
 * copy within the workspace, A allowing 16-byte copies (the kernel must
 * then run with them) and, unless forced, the product large enough. */
static bool pack_b(int mode, const GemmParams<float> &p, duo_transpose tb)
{
    if (mode == 0 || tb != DUO_TRANS)
        return false;
    const size_t bytes =
        sizeof(float) * (size_t)p.k * round_up((size_t)p.n, kPackTile);
    if (bytes > kPackMaxBytes || !aligned16(p.a) || p.lda % 4 != 0)
        return false;
    return mode == 1 ||
           ((size_t)p.m >= kPackMinDim && (size_t)p.k >= kPackMinDim);
}

/* The product with B copied to [k][n] in the workspace, or as it is
 * stored (`vec`: 16-byte copies) when the device has no room for the
 * copy. */
static duo_status gemm_packed_f32(const char *where, int shape,
                                  GemmParams<float> p, duo_transpose ta,
                                  bool vec)
{
    const size_t n = (size_t)p.n, k = (size_t)p.k;
    const size_t ldb = round_up(n, kPackTile);
    float *w = nullptr;
    duo_status st =
        workspace_alloc(where, &w, sizeof(float) * k * ldb, true);
    if (st != DUO_SUCCESS)
        return st;
    if (w == nullptr)
        return launch_index(shape, p, ta, DUO_TRANS, vec, 1);
    const size_t tiles_r = (n + kPackTile - 1) / kPackTile;
    const dim3 grid((unsigned)((k + kPackTile - 1) / kPackTile),
                    (unsigned)(tiles_r < 65535 ? tiles_r : 65535));
    gemm_transpose_f32<<<grid, dim3(kPackTile, 8)>>>(p.b, p.ldb, p.n, p.k,
                                                      w, ldb);
    st = check_launch(where, "gemm_transpose_f32");
    if (st == DUO_SUCCESS) {
        p.b = w;
        p.ldb = ldb;
        st = launch_index(shape, p, ta, DUO_NO_TRANS, true, 1);
    }
    const cudaError_t freed = cudaFreeAsync(w, 0);
    if (st == DUO_SUCCESS && freed != cudaSuccess)
        st = duo_cuda_fail(freed, __FILE__, __LINE__, where,
                           "cudaFreeAsync (gemm workspace)");
    return st;
}

/* A product that is not split over k: B packed or not (`pack`: the
 * DUO_GEMM_PACK mode). */
static duo_status gemm_unsplit(const char *where, int shape,
                               const GemmParams<float> &p, duo_transpose ta,
                               duo_transpose tb, bool vec, int pack)
{
    if (pack_b(pack, p, tb))
        return gemm_packed_f32(where, shape, p, ta, vec);
    return launch_index(shape, p, ta, tb, vec, 1);
}

static duo_status gemm_unsplit(const char *, int shape,
                               const GemmParams<double> &p, duo_transpose ta,
                               duo_transpose tb, bool vec, int)
{
    return launch_index(shape, p, ta, tb, vec, 1);
}

template <typename T>
static duo_status gemm(const char *where, duo_transpose ta, duo_transpose tb,
                       size_t m, size_t n, size_t k, T alpha, const T *a,
                       size_t lda, const T *b, size_t ldb, T beta, T *c,
                       size_t ldc)
{
    const bool f64 = sizeof(T) == 8;
    const ShapeInfo *shapes = f64 ? kShapesF64 : kShapesF32;
    const TimeModel &model = f64 ? kModelF64 : kModelF32;
    const int count = f64 ? (int)(sizeof kShapesF64 / sizeof *kShapesF64)
                          : (int)(sizeof kShapesF32 / sizeof *kShapesF32);
    int shape;
    const duo_status forced = forced_shape(where, shapes, count, &shape);
    if (forced != DUO_SUCCESS)
        return forced;
    int pack;
    const duo_status packing = pack_mode(where, &pack);
    if (packing != DUO_SUCCESS)
        return packing;
    if (k == 0 || alpha == T(0))
        return scale_c(where, m, n, beta, c, ldc);
    if (m > kMaxDim || n > kMaxDim || k > kMaxDim)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "m = %zu, n = %zu, k = %zu: the CUDA backend "
                        "multiplies dimensions up to %zu; split the product "
                        "into smaller ones",
                        m, n, k, kMaxDim);
    const size_t splits = splits_of<T>(m, n, k);
    if (shape < 0) {
        const int prefer = f64 ? -1 : preferred_shape_f32(ta, tb, splits);
        shape = splits > 1 ? pick_shape(shapes, count, model, m, n,
                                        kSplitK<T>, splits, prefer)
                           : pick_shape(shapes, count, model, m, n, k, 1,
                                        prefer);
        if (tiles_of(shapes[shape], m, n) > (size_t)INT_MAX)
            shape = 0; /* the largest tile; refused below if still too many */
    }
    const size_t tiles = tiles_of(shapes[shape], m, n);
    if (tiles > (size_t)INT_MAX)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "m = %zu, n = %zu: C has %zu tiles of %d x %d, more "
                        "than the %d blocks of one launch; split C into "
                        "smaller products",
                        m, n, tiles, shapes[shape].bm, shapes[shape].bn,
                        INT_MAX);

    const size_t vw = 16 / sizeof(T); /* elements per 16 bytes */
    GemmParams<T> p;
    p.a = a;
    p.b = b;
    p.c = c;
    p.lda = lda;
    p.ldb = ldb;
    p.ldc = ldc;
    p.m = (int)m;
    p.n = (int)n;
    p.k = (int)k;
    p.tiles_m = 0; /* set by launch_shape */
    p.tiles_n = 0;
    p.alpha = alpha;
    p.beta = beta;
    p.vec_c = aligned16(c) && ldc % vw == 0;
    p.split_k = 0;
    p.split_stride = 0;
    const bool vec = aligned16(a) && lda % vw == 0 && aligned16(b) &&
                     ldb % vw == 0;
    if (splits > 1)
        return gemm_split(where, shape, p, ta, tb, vec, splits);
    return gemm_unsplit(where, shape, p, ta, tb, vec, pack);
}

duo_status duo_be_gemm_f32(duo_transpose ta, duo_transpose tb, size_t m,
                           size_t n, size_t k, float alpha, const float *a,
                           size_t lda, const float *b, size_t ldb,
                           float beta, float *c, size_t ldc)
{
    return gemm("duo_gemm_f32", ta, tb, m, n, k, alpha, a, lda, b, ldb, beta,
                c, ldc);
}

duo_status duo_be_gemm_f64(duo_transpose ta, duo_transpose tb, size_t m,
                           size_t n, size_t k, double alpha,
                           const double *a, size_t lda, const double *b,
                           size_t ldb, double beta, double *c, size_t ldc)
{
    return gemm("duo_gemm_f64", ta, tb, m, n, k, alpha, a, lda, b, ldb, beta,
                c, ldc);
}
