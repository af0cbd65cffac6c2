/*
 * gemm_f32.cu - the f32 tile kernel of duo_gemm_f32, its block shapes
 * (with the speeds that gemm.cu's model times them by) and their
 * launches.  The tile scheme that both precisions share is described in
 * gemm_tiles.cuh; here is what is particular to f32.
 *
 * Plain FFMA on the CUDA cores (strict IEEE single, no TF32).  Each
 * thread computes an 8 x 8 sub-tile of C as outer products: per k it
 * reads 8 values of op(A) and 8 of op(B) with four 128-bit shared loads
 * and issues 64 FFMAs (8 x 16 in the 128 x 256 shape: six loads, 128
 * FFMAs).  For that both slabs are held k-major ([k][m] and [k][n]); an
 * operand stored with k contiguous (A not transposed, B transposed) is
 * transposed on its way in, by 4-byte copies, or in the 128 x 256 and
 * 128 x 64 shapes (when its rows allow 16-byte loads) through registers:
 * 16-byte loads issued before a slab's multiply, 4-byte shared stores
 * after it.  4-byte cp.async keeps the load units four times as busy;
 * staging costs registers, which only these shapes have to spare (NN
 * 4096^3 and 8192^3: 2 to 4% faster on an H100; 8192 x 64 x 8192 4%).
 * In split products (gemm_split.cu) the 128 x 64 shape keeps op(A) as
 * stored instead, [m][k], and reads it 4 k per 128-bit load
 * (KeptSlabF32).  128 x 256 also multiplies half a slab per unrolled
 * loop body rather than all of it, and when both operands are staged
 * (NT) they are staged in two halves of the slab (see the kernel).  A
 * warp covers 32 x 64 of C: its lanes read 4 (A) and 8 (B) distinct
 * 16-byte words per load, one shared-memory wavefront each.  (The small
 * shapes give each thread 4 x 4, a warp 16 x 32.)
 * Slab rows are padded by 4 floats so the transposing writes hit 32
 * different banks.  k-slab of 16, or 32 in the 128 x 128 and 128 x 256
 * shapes (half the barriers; 128 x 128's ring of 3 keeps two blocks per
 * SM).  With no registers staging the copies, 64 accumulators fit the
 * kernel in 128 registers, so two blocks (16 warps) share an SM and hide
 * each other's barriers and latencies.  The 128 x 256 shape's 128
 * accumulators take the SM's registers for one block; its 8 warps hide
 * latency with the longer runs of independent FFMAs.
 * Blocks and slabs away from the edges copy without bounds checks: the
 * main loop is about 88% FFMA.
 */
#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "backend.h"
#include "gemm_common.cuh"
#include "gemm_tiles.cuh"

using namespace duo_cuda_gemm;

/* ------------------------------------------------------------------ */
/* The kernel                                                          */

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

/* The k tail of B's last slab ([k][n] rows rem..BK-1) set to -0.  The
 * copies filled it (and A's) with +0, and the slab loop still runs those
 * k: a step fmaf(+0, +0, acc) would turn an acc of -0 (a chain of
 * products that underflowed to -0) into +0, where the order stops at K.
 * With B -0 each such product is -0, and acc + -0 is acc for every acc,
 * -0 included. */
template <class CFG>
static __device__ __forceinline__ void neg_zero_k_tail(float *slab, int rem)
{
    for (int e = (int)threadIdx.x; e < (CFG::BK - rem) * CFG::BN;
         e += CFG::THREADS)
        slab[(rem + e / CFG::BN) * CFG::LDB + e % CFG::BN] = -0.0f;
}

/* Every shape computes each element of C the same way: acc = 0, then
 * acc = fmaf(op(A)(i,p), op(B)(p,j), acc) for p = 0, 1, ..., K - 1 in
 * order (past K the last slab holds +0 in A and -0 in B, whose products
 * leave acc as it is: see neg_zero_k_tail), then
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
        if (s == slabs - 1 && k % CFG::BK != 0) {
            neg_zero_k_tail<CFG>(sb + (s % CFG::STAGES) * CFG::SLAB_B,
                                 k % CFG::BK);
            __syncthreads();
        }

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
/* Block shapes                                                        */

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

template <class C> static int resident_f32()
{
    static const int blocks = resident_blocks(
        gemm_f32_kernel<C, false, false, true>, C::THREADS, C::SMEM);
    return blocks;
}

template <class C>
static constexpr ShapeInfo info_f32(const char *name, double peak,
                                    double half)
{
    return {name, C::BM, C::BN, C::WM * C::WN, resident_f32<C>, peak, half};
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
static const ShapeInfo kShapeTableF32[] = {
    info_f32<F32Shape0>("128x256", 480, 1.98),
    info_f32<F32Shape1>("128x128", 401, 1.98),
    info_f32<F32Shape2>("128x64", 383, 1.98),
    info_f32<F32Shape3>("64x128", 383, 1.98),
    info_f32<F32Shape4>("64x64", 260, 1.98),
    info_f32<F32Shape5>("32x64", 247, 1.98),
    info_f32<F32Shape6>("32x32", 233, 1.98)};
const ShapeSet duo_cuda_gemm::kShapesF32 = {
    kShapeTableF32, (int)(sizeof kShapeTableF32 / sizeof *kShapeTableF32),
    {74.3, 0.0}};
const int duo_cuda_gemm::kShapeF32Tall = 3; /* "64x128" above */

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

/* One shape: its tile counts into p, then the kernel for the transposes
 * and alignment. */
template <class CFG>
static duo_status launch_shape(GemmParams<float> p, duo_transpose ta,
                               duo_transpose tb, bool vec, unsigned splits)
{
    p.tiles_m = (p.m + CFG::BM - 1) / CFG::BM;
    p.tiles_n = (p.n + CFG::BN - 1) / CFG::BN;
    const dim3 blocks((unsigned)p.tiles_m * (unsigned)p.tiles_n, splits);
    return with_layout(ta, tb, vec, [&](auto TA, auto TB, auto VEC) {
        return launch<CFG, decltype(TA)::value, decltype(TB)::value,
                      decltype(VEC)::value>(p, blocks);
    });
}

duo_status duo_cuda_gemm::launch_index(int shape, const GemmParams<float> &p,
                                      duo_transpose ta, duo_transpose tb,
                                      bool vec, unsigned splits)
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
