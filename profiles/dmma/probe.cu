/*
 * probe.cu - runs the cases of cases.h through the FP64 tensor cores
 * (mma.sync m8n8k4 and m16n8k8, f64) and writes what they return, for
 * models.c to hold against candidate arithmetics.
 *
 *   probe CASES OUTDIR      writes OUTDIR/m8n8k4.bin and OUTDIR/m16n8k8.bin:
 *                           for each case, D (M x N, row-major) as doubles
 *
 * One warp per case; the fragment layouts are PTX's (g = lane / 4,
 * t = lane % 4):
 *   m8n8k4:  a = A(g,t); b = B(t,g); d = D(g,2t), D(g,2t+1)
 *   m16n8k8: a = A(g,t) A(g+8,t) A(g,t+4) A(g+8,t+4); b = B(t,g) B(t+4,g);
 *            d = D(g,2t) D(g,2t+1) D(g+8,2t) D(g+8,2t+1)
 * Needs sm_90 (m16n8k8 f64 is sm_90's).
 */
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#include "cases.h"

#define CK(call)                                                           \
    do {                                                                   \
        cudaError_t e_ = (call);                                           \
        if (e_ != cudaSuccess) {                                           \
            fprintf(stderr, "probe: %s: %s\n", #call, cudaGetErrorString(e_)); \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

/* a: m k row-major, b: column-major (column j at j k), c and d: m n. */
__global__ void mma_m8n8k4(const double *a, const double *b, const double *c,
                           double *d, int cases)
{
    const int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if (w >= cases)
        return;
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    a += (size_t)w * 32;
    b += (size_t)w * 32;
    c += (size_t)w * 64;
    d += (size_t)w * 64;
    double fa = a[g * 4 + t], fb = b[g * 4 + t];
    double d0 = c[g * 8 + 2 * t], d1 = c[g * 8 + 2 * t + 1];
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, "
                 "{%2}, {%3}, {%0,%1};\n"
                 : "+d"(d0), "+d"(d1)
                 : "d"(fa), "d"(fb));
    d[g * 8 + 2 * t] = d0;
    d[g * 8 + 2 * t + 1] = d1;
}

__global__ void mma_m16n8k8(const double *a, const double *b, const double *c,
                            double *d, int cases)
{
    const int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if (w >= cases)
        return;
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    a += (size_t)w * 128;
    b += (size_t)w * 64;
    c += (size_t)w * 128;
    d += (size_t)w * 128;
    double fa0 = a[g * 8 + t], fa1 = a[(g + 8) * 8 + t];
    double fa2 = a[g * 8 + t + 4], fa3 = a[(g + 8) * 8 + t + 4];
    double fb0 = b[g * 8 + t], fb1 = b[g * 8 + t + 4];
    double d0 = c[g * 8 + 2 * t], d1 = c[g * 8 + 2 * t + 1];
    double d2 = c[(g + 8) * 8 + 2 * t], d3 = c[(g + 8) * 8 + 2 * t + 1];
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+d"(d0), "+d"(d1), "+d"(d2), "+d"(d3)
                 : "d"(fa0), "d"(fa1), "d"(fa2), "d"(fa3), "d"(fb0),
                   "d"(fb1));
    d[g * 8 + 2 * t] = d0;
    d[g * 8 + 2 * t + 1] = d1;
    d[(g + 8) * 8 + 2 * t] = d2;
    d[(g + 8) * 8 + 2 * t + 1] = d3;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: probe CASES OUTDIR\n");
        return 2;
    }
    const int cases = atoi(argv[1]);
    if (cases <= 0) {
        fprintf(stderr, "probe: CASES must be a positive number\n");
        return 2;
    }
    for (int s = 0; s < 2; ++s) {
        const dmma_shape *sh = &dmma_shapes[s];
        const size_t na = (size_t)sh->m * sh->k, nb = (size_t)sh->k * sh->n,
                     nc = (size_t)sh->m * sh->n;
        std::vector<double> a(na * cases), b(nb * cases), c(nc * cases),
            d(nc * cases);
        for (int i = 0; i < cases; ++i)
            dmma_case(sh, (uint64_t)i, &a[na * i], &b[nb * i], &c[nc * i]);
        double *da, *db, *dc, *dd;
        CK(cudaMalloc(&da, a.size() * 8));
        CK(cudaMalloc(&db, b.size() * 8));
        CK(cudaMalloc(&dc, c.size() * 8));
        CK(cudaMalloc(&dd, d.size() * 8));
        CK(cudaMemcpy(da, a.data(), a.size() * 8, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(db, b.data(), b.size() * 8, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dc, c.data(), c.size() * 8, cudaMemcpyHostToDevice));
        CK(cudaMemset(dd, 0xff, d.size() * 8)); /* NaN: an unwritten D shows */
        const int blocks = (cases * 32 + 255) / 256;
        if (s == 0)
            mma_m8n8k4<<<blocks, 256>>>(da, db, dc, dd, cases);
        else
            mma_m16n8k8<<<blocks, 256>>>(da, db, dc, dd, cases);
        CK(cudaGetLastError());
        CK(cudaMemcpy(d.data(), dd, d.size() * 8, cudaMemcpyDeviceToHost));
        CK(cudaFree(da));
        CK(cudaFree(db));
        CK(cudaFree(dc));
        CK(cudaFree(dd));
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.bin", argv[2], sh->name);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(d.data(), 8, d.size(), f) != d.size() || fclose(f)) {
            fprintf(stderr, "probe: cannot write %s\n", path);
            return 1;
        }
        printf("probe: %s: %d cases -> %s\n", sh->name, cases, path);
    }
    return 0;
}
