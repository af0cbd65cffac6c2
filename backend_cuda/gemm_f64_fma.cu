/*
 * gemm_f64_fma.cu - the default f64 tile kernel of duo_gemm_f64, its
 * block shapes (with the speeds that gemm.cu's model times them by) and
 * their launches.
 *
 * Why: the FP64 tensor cores (gemm_f64.cu, DMMA) are twice as fast as
 * the FP64 units on Hopper, but an mma sums its k in a way no CPU
 * reproduces, so their results never match the CPU backends' bits.  This
 * kernel runs on the ordinary FP64 units (DFMA) and computes each element
 * of C exactly in the order of src/gemm_order.h: acc = 0, then acc =
 * fma(op(A)(i,p), op(B)(p,j), acc) for p = 0..K-1 in order, one chain,
 * then C = alpha * acc (rounded) or fma(beta, C, alpha * acc); split
 * products (gemm_split.cu) run each k part so, from zero, and the fold
 * adds the parts to C in order.  CPU and CUDA then give the same bits.
 * The tensor-core kernel stays behind DUO_GEMM_F64=tensor (gemm.cu).
 *
 * What: SIMT tiles like the f32 kernel's.  A warp's lanes are 4 (m) x 8
 * (n); each lane holds RI x RJ blocks of 2 x 2 elements of C, rows 2 lm
 * + {0,1} + 8 i and columns 2 ln + {0,1} + 16 j (lm = lane / 8, ln =
 * lane % 8): 8 x 8 elements, 64 accumulators, in the 128 x 128 and
 * 128 x 64 shapes, 4 x 4 in 64 x 64, 64 x 32 and 32 x 32.  Per k a lane
 * reads its 2 RI values of op(A) and 2 RJ of op(B) with 16-byte shared
 * loads and issues 4 RI RJ DFMAs (64 per 16 loads of 2 k in the large
 * shapes).
 * k-slabs of 16 come in a ring of 4 by cp.async (16-byte copies where A
 * or B allows them, else 8-byte ones), one barrier per slab, and are kept
 * in the stored layout, so the copies read and write along the stored
 * rows: an operand stored with k across ([k][mn]: A transposed, B not)
 * is read at one k per load, 2 elements of mn; one stored with k along
 * its rows ([mn][k], 16 doubles a row) at one row per load, 2 k.  The
 * [mn][k] rows keep their 8 pairs of k in the order pair ^ ((row / 2) %
 * 8) (fma_at): the rows that a warp reads with one load (4 of A, 8 of B,
 * two apart) then fall in different banks, and so do the chunks its
 * copies write.  In [k][mn] a load's lanes read 64 (A) or 128 (B)
 * consecutive bytes.  Both are one shared-memory wavefront per load.
 *
 * Exactness: the only arithmetic on an accumulator is __fma_rn in p
 * order; k is never split across threads or warps of a part.  Zeros
 * past the matrix fill the slabs: past m and n they only feed elements
 * that are not stored; past k they are never used, since the last,
 * partial slab runs exactly its k (a padded fma(0, 0, acc) would turn an
 * acc of -0 into +0).  The epilogue rounds alpha * acc on its own
 * (__dmul_rn) before __fma_rn(beta, C, .), so no contraction can merge
 * them.  Every shape therefore gives the same bits.
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "backend.h"
#include "gemm_common.cuh"
#include "gemm_tiles.cuh"

using namespace duo_cuda_gemm;

/* ------------------------------------------------------------------ */
/* The kernel                                                          */

static constexpr int kBkFma = 16;    /* k per slab (8 pairs)          */
static constexpr int kStagesFma = 4; /* slabs in the cp.async ring    */

namespace {
/* A block shape: WM x WN warps, each lane RI x RJ blocks of 2 x 2 of C
 * (see the top): a warp covers 8 RI x 16 RJ.  REGS: registers per thread
 * at most. */
template <int WM_, int WN_, int RI_, int RJ_, int REGS_> struct CfgFma {
    static constexpr int WM = WM_, WN = WN_, RI = RI_, RJ = RJ_;
    static constexpr int BM = WM * 8 * RI, BN = WN * 16 * RJ;
    static constexpr int THREADS = 32 * WM * WN;
    static constexpr int REGS = REGS_;
    static constexpr int MIN_BLOCKS =
        65536 / THREADS / REGS > 0 ? 65536 / THREADS / REGS : 1;
    static constexpr int SLAB_A = kBkFma * BM, SLAB_B = kBkFma * BN;
    static constexpr int SMEM =
        kStagesFma * (SLAB_A + SLAB_B) * (int)sizeof(double);
};
} // namespace

/* A [mn][k] slab has rows of 16 doubles, 8 pairs of k, which row `row`
 * keeps in the order pair ^ fma_swz(row) (see the top); fma_at is the
 * offset (doubles) of pair `pair` (0..7) of row `row`. */
static __device__ __forceinline__ int fma_swz(int row)
{
    return (row >> 1) & 7;
}

static __device__ __forceinline__ int fma_at(int row, int pair)
{
    return row * kBkFma + 2 * (pair ^ fma_swz(row));
}

namespace {
/* One operand's slab of 16 k by MN (rows or columns of the C tile), in
 * the stored layout: KCONTIG (A not transposed, B transposed) MN rows of
 * 16 k ([mn][k], pairs permuted by fma_at), else 16 rows of MN ([k][mn]).
 * Copied by NT threads in chunks of 2 doubles along the stored rows: a
 * thread copies chunk `chunk` of rows row, row + RS, ... (COPIES of
 * them). */
template <bool KCONTIG, bool VEC, int MN, int NT> struct SlabFma {
    static constexpr int CPR = KCONTIG ? kBkFma / 2 : MN / 2; /* per row */
    static constexpr int ROWS = KCONTIG ? MN : kBkFma;
    static constexpr int RS = NT / CPR; /* rows per pass */
    static constexpr int COPIES = ROWS / RS;
    static_assert(NT % CPR == 0 && RS >= 1 && ROWS % RS == 0,
                  "slab shape and thread count do not fit");

    const double *ptr; /* this thread's first chunk of the next slab    */
    size_t next;       /* pointer distance between the thread's chunks  */
    size_t step;       /* pointer advance per slab                      */
    int lim_mn;        /* valid elements from ptr along mn              */
    int lim_k;         /* valid elements from ptr along k               */
    int row, chunk;    /* slab row of the first chunk, chunk in the row */
    uint32_t base;     /* shared address of the slab, stage 0           */

    __device__ __forceinline__ SlabFma(const double *matrix, size_t ld,
                                       int mn0, int mn, int k, uint32_t s)
    {
        const int t = (int)threadIdx.x;
        row = t / CPR;
        chunk = t % CPR;
        base = s;
        next = RS * ld;
        if (KCONTIG) { /* row: mn; chunk: k pair */
            ptr = matrix + (size_t)(mn0 + row) * ld + 2 * chunk;
            step = kBkFma;
            lim_mn = mn - (mn0 + row);
            lim_k = k - 2 * chunk;
        } else {       /* row: k; chunk: mn pair */
            ptr = matrix + (size_t)row * ld + mn0 + 2 * chunk;
            step = (size_t)kBkFma * ld;
            lim_mn = mn - (mn0 + 2 * chunk);
            lim_k = k - row;
        }
    }

    /* Start copying the next slab into ring stage `stage`; elements past
     * the matrix are zero-filled (and their source never read). */
    __device__ __forceinline__ void issue(int stage)
    {
        const uint32_t s = base + (uint32_t)(stage * MN * kBkFma *
                                             (int)sizeof(double));
#pragma unroll
        for (int i = 0; i < COPIES; ++i) {
            const int r = row + RS * i;
            /* Doubles of the chunk inside the matrix (<= 0: none; 2 or
             * more: all). */
            const int n = KCONTIG ? (lim_mn > RS * i ? lim_k : 0)
                                  : (lim_k > RS * i ? lim_mn : 0);
            const uint32_t d =
                s + (uint32_t)((KCONTIG ? fma_at(r, chunk)
                                        : r * MN + 2 * chunk) *
                               (int)sizeof(double));
            const double *src = ptr + i * next;
            if (VEC) {
                cp_async_chunk(d, src, n);
            } else {
                cp_async8(d, src, n > 0 ? 8 : 0);
                cp_async8(d + 8, src + 1, n > 1 ? 8 : 0);
            }
        }
        ptr += step;
        lim_k -= kBkFma;
    }
};
} // namespace

/* The lane's 2 G values of one operand at k = kk (f[0]) and kk + 1
 * (f[1]), kk even: value 2 g + e is that of row (A) or column (B)
 * first + GAP g + e of the tile, `first` even.  [mn][k]: one 16-byte load
 * per row, both k; [k][mn]: one per k and pair of rows. */
template <bool KCONTIG, int MN, int G, int GAP>
static __device__ __forceinline__ void load_pair(double (&f)[2][2 * G],
                                                 const double *x, int first,
                                                 int kk)
{
    /* fma_at(first + GAP g + e, pair), with the permutation of row first
     * + GAP g taken from row first's: (first + GAP g + e) / 2 = first / 2
     * + (GAP / 2) g, and adding a multiple of 4 to a number changes its
     * value mod 8 by 0 or 4, which is an xor with 0 or 4.  So the rows
     * share fma_swz(first), one register, and each address is a constant
     * from x + first * 16 but for one xor. */
    static_assert(GAP % 8 == 0, "rows 2 g apart must keep one permutation");
    const int swz = fma_swz(first);
#pragma unroll
    for (int g = 0; g < G; ++g)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
            double2 v;
            if (KCONTIG) {
                const int pair = (kk >> 1) ^ ((GAP / 2 * g) & 7) ^ swz;
                v = *reinterpret_cast<const double2 *>(
                    x + (first + GAP * g + e) * kBkFma + 2 * pair);
                f[0][2 * g + e] = v.x;
                f[1][2 * g + e] = v.y;
            } else {
                v = *reinterpret_cast<const double2 *>(
                    x + (kk + e) * MN + first + GAP * g);
                f[e][2 * g] = v.x;
                f[e][2 * g + 1] = v.y;
            }
        }
}

/* acc(i, j) = fma(a_i, b_j, acc(i, j)): one step p of every chain. */
template <int RA, int RB>
static __device__ __forceinline__ void fma_step(double (&acc)[RA][RB],
                                                const double (&a)[RA],
                                                const double (&b)[RB])
{
#pragma unroll
    for (int i = 0; i < RA; ++i)
#pragma unroll
        for (int j = 0; j < RB; ++j)
            acc[i][j] = __fma_rn(a[i], b[j], acc[i][j]);
}

/* The slab's k = 0, 1, ... in order into acc: all 16 (TAIL false), or
 * the first `left` (TAIL: the last slab of a k not a multiple of 16; the
 * bound is the same for the whole block). */
template <class CFG, bool KA, bool KB, bool TAIL>
static __device__ __forceinline__ void multiply_slab(
    double (&acc)[2 * CFG::RI][2 * CFG::RJ], const double *xa,
    const double *xb, int am, int bn, int left)
{
#pragma unroll
    for (int kk = 0; kk < kBkFma; kk += 2) {
        if (TAIL && kk >= left)
            break;
        double fa[2][2 * CFG::RI], fb[2][2 * CFG::RJ];
        load_pair<KA, CFG::BM, CFG::RI, 8>(fa, xa, am, kk);
        load_pair<KB, CFG::BN, CFG::RJ, 16>(fb, xb, bn, kk);
        fma_step(acc, fa[0], fb[0]);
        if (TAIL && kk + 1 >= left)
            break;
        fma_step(acc, fa[1], fb[1]);
    }
}

/* c[0..left) = alpha acc (rounded), or fma(beta, c, alpha acc) when beta
 * != 0 (C read only then); at most 2 elements. */
static __device__ __forceinline__ void store_c2_fma(double *c, double acc0,
                                                    double acc1, int left,
                                                    double alpha,
                                                    double beta, bool vec)
{
    const double v0 = __dmul_rn(alpha, acc0), v1 = __dmul_rn(alpha, acc1);
    if (vec && left >= 2) {
        double2 out = make_double2(v0, v1);
        if (beta != 0.0) {
            const double2 old = *reinterpret_cast<const double2 *>(c);
            out.x = __fma_rn(beta, old.x, v0);
            out.y = __fma_rn(beta, old.y, v1);
        }
        *reinterpret_cast<double2 *>(c) = out;
    } else {
        if (left > 0)
            c[0] = beta != 0.0 ? __fma_rn(beta, c[0], v0) : v0;
        if (left > 1)
            c[1] = beta != 0.0 ? __fma_rn(beta, c[1], v1) : v1;
    }
}

template <class CFG, bool TA, bool TB, bool VEC>
static __global__ void __launch_bounds__(CFG::THREADS, CFG::MIN_BLOCKS)
    gemm_f64_fma_kernel(const GemmParams<double> p)
{
    constexpr bool KA = !TA, KB = TB; /* stored with k along the rows */
    constexpr int BM = CFG::BM, BN = CFG::BN;
    constexpr int RA = 2 * CFG::RI, RB = 2 * CFG::RJ;
    extern __shared__ __align__(16) unsigned char gemm_smem[];
    double *sa = reinterpret_cast<double *>(gemm_smem); /* ring of A slabs */
    double *sb = sa + kStagesFma * CFG::SLAB_A;

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
    SlabFma<KA, VEC, BM, CFG::THREADS> la(
        a, p.lda, m0, p.m, k, (uint32_t)__cvta_generic_to_shared(sa));
    SlabFma<KB, VEC, BN, CFG::THREADS> lb(
        b, p.ldb, n0, p.n, k, (uint32_t)__cvta_generic_to_shared(sb));

    const int slabs = (k + kBkFma - 1) / kBkFma;
#pragma unroll
    for (int s = 0; s < kStagesFma - 1; ++s) {
        if (s < slabs) {
            la.issue(s);
            lb.issue(s);
        }
        cp_async_commit(); /* empty groups keep the count uniform */
    }

    /* The lane's first row and column in the tile (see the top). */
    const int warp = (int)threadIdx.x >> 5, lane = (int)threadIdx.x & 31;
    const int am = (warp / CFG::WN) * 8 * CFG::RI + (lane >> 3) * 2;
    const int bn = (warp % CFG::WN) * 16 * CFG::RJ + (lane & 7) * 2;

    double acc[RA][RB];
#pragma unroll
    for (int i = 0; i < RA; ++i)
#pragma unroll
        for (int j = 0; j < RB; ++j)
            acc[i][j] = 0.0;

#pragma unroll 1
    for (int s = 0; s < slabs; ++s) {
        /* Slab s has landed for this thread; the barrier makes it so for
         * all and frees the stage read in iteration s - 1 for refilling. */
        cp_async_wait<kStagesFma - 2>();
        __syncthreads();
        const int ahead = s + kStagesFma - 1;
        if (ahead < slabs) {
            la.issue(ahead % kStagesFma);
            lb.issue(ahead % kStagesFma);
        }
        cp_async_commit();

        const double *xa = sa + (s % kStagesFma) * CFG::SLAB_A;
        const double *xb = sb + (s % kStagesFma) * CFG::SLAB_B;
        const int left = k - s * kBkFma; /* k of this slab and after */
        if (left >= kBkFma)
            multiply_slab<CFG, KA, KB, false>(acc, xa, xb, am, bn, kBkFma);
        else
            multiply_slab<CFG, KA, KB, true>(acc, xa, xb, am, bn, left);
    }

#pragma unroll
    for (int i = 0; i < RA; ++i) {
        const int row = m0 + am + 8 * (i >> 1) + (i & 1);
        if (row >= p.m)
            continue;
        double *crow = c + (size_t)row * p.ldc;
#pragma unroll
        for (int g = 0; g < CFG::RJ; ++g) {
            const int col = n0 + bn + 16 * g;
            store_c2_fma(crow + col, acc[i][2 * g], acc[i][2 * g + 1],
                         p.n - col, p.alpha, p.beta, p.vec_c);
        }
    }
}

/* ------------------------------------------------------------------ */
/* Block shapes                                                        */

/* Largest first; the smaller ones give more blocks where C has too few
 * large tiles to fill the GPU.  The tensor-core kernel's shape names
 * (128x128, 64x64, 64x32, 32x32) are all among them, so DUO_GEMM_TILE
 * forces any of those whichever f64 kernel runs. */
/* Registers (sm_90, ptxas, CUDA 13.0), none spilled: 8 x 8 holds 64
 * accumulators (128 registers) and the values of op(A) and op(B) at 2 k
 * (64 more): 214 to 254 by layout, one block of 256 threads or two of
 * 128 per SM.  4 x 4 takes 116 to 148, with the loads of the next 2 k in
 * flight: 64 x 64 fits 128 (two blocks of 256 threads per SM); 64 x 32
 * and 32 x 32 spilled at 128 (NT) and may take 168 (three blocks of 128
 * threads, six of 64). */
using FmaShape0 = CfgFma<4, 2, 4, 4, 255>; /* 128 x 128, 256 threads, 8 x 8 */
using FmaShape1 = CfgFma<4, 1, 4, 4, 255>; /* 128 x 64, 128 threads, 8 x 8  */
using FmaShape2 = CfgFma<4, 2, 2, 2, 128>; /* 64 x 64, 256 threads, 4 x 4   */
using FmaShape3 = CfgFma<4, 1, 2, 2, 168>; /* 64 x 32, 128 threads, 4 x 4   */
using FmaShape4 = CfgFma<2, 1, 2, 2, 168>; /* 32 x 32, 64 threads, 4 x 4    */

template <class C> static int resident_fma()
{
    static const int blocks =
        resident_blocks(gemm_f64_fma_kernel<C, false, false, true>,
                        C::THREADS, C::SMEM);
    return blocks;
}

template <class C>
static constexpr ShapeInfo info_fma(const char *name, double peak,
                                    double half)
{
    return {name, C::BM, C::BN, C::WM * C::WN, resident_fma<C>, peak, half};
}

/* Not yet fitted to measurements (profiles/gemm_tune.sh, as for the
 * other kernels): an SM's DFMA peak is 64 fma a clock, 253 GFLOP/s at
 * 1.98 GHz; the 8 x 8 shapes are set at 85% of it, the 4 x 4 ones
 * (twice the shared loads per DFMA) lower, and each wave of blocks costs
 * a few us.  The model then keeps 128 x 128 for products with enough of
 * its tiles and goes down to 32 x 32 where C has few of them. */
static const ShapeInfo kShapeTableFma[] = {
    info_fma<FmaShape0>("128x128", 215, 1.0),
    info_fma<FmaShape1>("128x64", 210, 1.0),
    info_fma<FmaShape2>("64x64", 180, 2.0),
    info_fma<FmaShape3>("64x32", 170, 2.0),
    info_fma<FmaShape4>("32x32", 150, 1.0)};
const ShapeSet duo_cuda_gemm::kShapesF64Fma = {
    kShapeTableFma, (int)(sizeof kShapeTableFma / sizeof *kShapeTableFma),
    {32.0, 5.0}};

/* ------------------------------------------------------------------ */
/* Launches                                                            */

template <class CFG, bool TA, bool TB, bool VEC>
static duo_status launch(const GemmParams<double> &p, dim3 blocks)
{
    constexpr int bytes = CFG::SMEM;
    static const cudaError_t smem =
        allow_smem(gemm_f64_fma_kernel<CFG, TA, TB, VEC>, bytes);
    if (smem != cudaSuccess)
        return smem_failed("duo_gemm_f64", "gemm_f64_fma_kernel", bytes,
                           smem);
    gemm_f64_fma_kernel<CFG, TA, TB, VEC><<<blocks, CFG::THREADS, bytes>>>(
        p);
    return check_launch("duo_gemm_f64", "gemm_f64_fma_kernel");
}

/* One shape: its tile counts into p, then the kernel for the transposes
 * and alignment. */
template <class CFG>
static duo_status launch_shape(GemmParams<double> p, duo_transpose ta,
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

duo_status duo_cuda_gemm::launch_index_fma(int shape,
                                           const GemmParams<double> &p,
                                           duo_transpose ta,
                                           duo_transpose tb, bool vec,
                                           unsigned splits)
{
    switch (shape) {
    case 1: return launch_shape<FmaShape1>(p, ta, tb, vec, splits);
    case 2: return launch_shape<FmaShape2>(p, ta, tb, vec, splits);
    case 3: return launch_shape<FmaShape3>(p, ta, tb, vec, splits);
    case 4: return launch_shape<FmaShape4>(p, ta, tb, vec, splits);
    default: return launch_shape<FmaShape0>(p, ta, tb, vec, splits);
    }
}
