/*
 * gemm_f64.cu - the f64 tile kernel of duo_gemm_f64 on the FP64 tensor
 * cores, its block shapes (with the speeds that gemm.cu's model times
 * them by) and their launches: the default f64 kernel on compute
 * capability 9.x (and wherever DUO_GEMM_F64=tensor), about twice as fast
 * on Hopper as gemm_f64_fma.cu (DFMA), the default elsewhere.  Both sum
 * in the CPU backends' order (see below).  The tile scheme that the
 * kernels share is described in gemm_tiles.cuh; here is what is
 * particular to this one.
 *
 * FP64 tensor cores (DMMA), at twice the rate of DFMA on Hopper.  On
 * sm_90 an mma's steps are fma chains: each element of D is
 * fma(a_7, b_7, ... fma(a_0, b_0, c)), k in order, each step rounded,
 * for every input probed (profiles/dmma/: 3.1 million elements, with
 * cancellation, subnormals and signed zeros).  mma.sync
 * m16n8k8 (one DMMA.16x8x8 on sm_90; four m8n8k4 in the sm_80 PTX).
 * k-slab of 16, in a ring of 4 (3 for NT, see kStagesF64).  The slabs
 * keep the stored layout ([m][k] or [k][m]), with rows padded by 4
 * doubles: then the 32 lanes' 8-byte fragment loads of mma's layout fill
 * every bank exactly twice in every layout, the minimum for 256 bytes.
 * 8 warps of 64 x 32 of C each: 16 mma per 8 k for 24 fragment loads,
 * 128 accumulator registers per thread, one block per SM (120 to 148 KB
 * of shared memory).  The small shapes have warps of 32 x 32, 32 x 16 or
 * 16 x 32; every shape starts warps at multiples of 16 rows and 8
 * columns, so an element sits in the same place of its mma tile whatever
 * the shape.
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "backend.h"
#include "gemm_common.cuh"
#include "gemm_tiles.cuh"

using namespace duo_cuda_gemm;

/* ------------------------------------------------------------------ */
/* The kernel                                                          */

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
            out.x = __fma_rn(beta, old.x, out.x);
            out.y = __fma_rn(beta, old.y, out.y);
        }
        *reinterpret_cast<double2 *>(c) = out;
    } else {
        if (left > 0)
            c[0] = beta != 0.0 ? __fma_rn(beta, c[0], v0) : v0;
        if (left > 1)
            c[1] = beta != 0.0 ? __fma_rn(beta, c[1], v1) : v1;
    }
}

/* The k tail of B's last slab, k = rem..15 of every column, set to -0.
 * The copies filled it (and A's) with +0, and the mma still runs those
 * k: a step fma(+0, +0, acc) would turn an acc of -0 into +0, where the
 * order stops at k.  With B -0 each such product is -0, and acc + -0 is
 * acc for every acc, -0 included: the padded steps change nothing. */
template <bool KCONTIG, int MN, int NT>
static __device__ __forceinline__ void neg_zero_k_tail(double *slab, int rem)
{
    for (int e = (int)threadIdx.x; e < (kBkF64 - rem) * MN; e += NT)
        slab[at_f64<KCONTIG, MN>(e % MN, rem + e / MN)] = -0.0;
}

/* Every shape computes each element of C the same way: the same mma
 * instruction over k = 0..7, 8..15, ... in order, with the element in the
 * same place of the 16 x 8 mma tile (block and warp tiles start at
 * multiples of 16 rows and 8 columns), then alpha * acc and fma(beta, C,
 * alpha * acc); split over k (gemm_split.cu), each k part so from zero,
 * the parts then added to C in order.  So the shape changes the speed,
 * never the bits; and since an mma on sm_90 is a chain of fmas over its
 * k, acc is the chain of src/gemm_order.h from acc = 0 (the k tail
 * padded so that it changes nothing: neg_zero_k_tail), and C has the CPU
 * backends' bits (test_gemm holds it to them).  Other GPUs' mma was not
 * probed. */
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
        double *xb = sb + (s % kStages) * kSlabF64<KB, BN>;
        if (s == slabs - 1 && k % kBkF64 != 0) {
            neg_zero_k_tail<KB, BN, CFG::THREADS>(xb, k % kBkF64);
            __syncthreads();
        }
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
                store_c2(crow + col, __dmul_rn(p.alpha, acc[i][j][2 * h]),
                         __dmul_rn(p.alpha, acc[i][j][2 * h + 1]), p.n - col,
                         p.beta, p.vec_c);
            }
        }
}

/* ------------------------------------------------------------------ */
/* Block shapes                                                        */

/* Largest first; the smaller ones give more blocks where C has too few
 * large tiles to fill the GPU. */
using F64Shape0 = CfgF64<2, 4, 4, 4>; /* 128 x 128, 8 warps of 64 x 32   */
using F64Shape1 = CfgF64<2, 2, 2, 4>; /* 64 x 64, 4 warps of 32 x 32     */
using F64Shape2 = CfgF64<2, 2, 2, 2>; /* 64 x 32, 4 warps of 32 x 16     */
using F64Shape3 = CfgF64<2, 1, 1, 4>; /* 32 x 32, 2 warps of 16 x 32     */

template <class C> static int resident_f64()
{
    static const int blocks =
        resident_blocks(gemm_f64_kernel<C, false, false, true>, C::THREADS,
                        kSmemF64<C, false, false, true>);
    return blocks;
}

template <class C>
static constexpr ShapeInfo info_f64(const char *name, double peak,
                                    double half)
{
    return {name, C::BM, C::BN, C::WM * C::WN, resident_f64<C>, peak, half};
}

/* Fitted with f32's, in the same run (see kShapeTableF32 in
 * gemm_f32.cu). */
static const ShapeInfo kShapeTableF64[] = {
    info_f64<F64Shape0>("128x128", 342, 0.13),
    info_f64<F64Shape1>("64x64", 421, 2.14),
    info_f64<F64Shape2>("64x32", 323, 1.01),
    info_f64<F64Shape3>("32x32", 232, 0.0)};
const ShapeSet duo_cuda_gemm::kShapesF64 = {
    kShapeTableF64, (int)(sizeof kShapeTableF64 / sizeof *kShapeTableF64),
    {0.0, 9.36}};

/* ------------------------------------------------------------------ */
/* Launches                                                            */

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

duo_status duo_cuda_gemm::launch_index(int shape, const GemmParams<double> &p,
                                      duo_transpose ta, duo_transpose tb,
                                      bool vec, unsigned splits)
{
    switch (shape) {
    case 1: return launch_shape<F64Shape1>(p, ta, tb, vec, splits);
    case 2: return launch_shape<F64Shape2>(p, ta, tb, vec, splits);
    case 3: return launch_shape<F64Shape3>(p, ta, tb, vec, splits);
    default: return launch_shape<F64Shape0>(p, ta, tb, vec, splits);
    }
}
