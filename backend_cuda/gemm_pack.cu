/*
 * gemm_pack.cu - f32 products with B stored transposed that copy B to
 * [k][n] once (pack it) and multiply the copy: the transposing kernel,
 * the rule for when to pack, and the product that does.  gemm.cu asks
 * pack_b() of every unsplit f32 product.
 *
 * The f32 kernels hold both slabs k-major, so B stored transposed ([n][k],
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
 * block rows.  Split products (gemm_split.cu) do not pack: with B packed, NT
 * 8192 x 64 x 8192 ran within 1% of its time unpacked and 2048 x 64 x
 * 4096 5% slower.  When the device has no memory left for the copy, B
 * is multiplied as stored: packing is never the reason a product fails.
 */
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#include "backend.h"
#include "cuda_check.h"
#include "gemm_common.cuh"

using namespace duo_cuda_gemm;

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
duo_status duo_cuda_gemm::pack_mode(const char *where, int *mode)
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
bool duo_cuda_gemm::pack_b(int mode, const GemmParams<float> &p,
                           duo_transpose tb)
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
duo_status duo_cuda_gemm::gemm_packed_f32(const char *where, int shape,
                                         GemmParams<float> p,
                                         duo_transpose ta, bool vec)
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
