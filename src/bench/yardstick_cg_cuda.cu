/*
 * yardstick_cg_cuda.cu - duo-bench's solver yardstick in CUDA builds: the
 * CG of src/solvers/cg_solver.h as a CUDA programmer writes it by hand.
 *
 * Same matrix-free stencil and the same iteration; each kernel also
 * writes the product its dot product needs (w = p q, w = r r), which
 * cub::DeviceReduce::Sum adds into device memory; alpha and beta are
 * computed in the kernels from those device scalars; the scalars a
 * kernel writes while others read alternate between two slots by
 * iteration parity; all iterations of a run are captured once into a
 * CUDA graph, and a run is one graph launch.  No convergence test: a run
 * does a fixed number of iterations.
 */
#include <cstdio>
#include <cstdlib>

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include "yardstick.h"

static void cg_check(cudaError_t err, const char *call, int line)
{
    if (err == cudaSuccess)
        return;
    fprintf(stderr, "duo-bench: yardstick cg: %s failed at line %d: %s\n",
            call, line, cudaGetErrorString(err));
    exit(1);
}
#define CG_CUDA(call) cg_check((call), #call, __LINE__)

/* rr[2]: r.r entering an iteration, by parity; pq; rr_new. */
struct cg_scal {
    double rr[2], pq, rr_new;
};

__global__ void ys_apply(int nx, int ny, const double *__restrict__ p,
                         double *__restrict__ q, double *__restrict__ w)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= ny || j >= nx)
        return;
    const size_t c = (size_t)i * nx + j;
    const double west = j > 0 ? p[c - 1] : 0.0;
    const double east = j + 1 < nx ? p[c + 1] : 0.0;
    const double north = i > 0 ? p[c - nx] : 0.0;
    const double south = i + 1 < ny ? p[c + nx] : 0.0;
    const double v = fma(4.0, p[c], -((west + east) + (north + south)));
    q[c] = v;
    w[c] = p[c] * v;
}

__global__ void ys_update(size_t n, const cg_scal *s, int o,
                          const double *__restrict__ p,
                          const double *__restrict__ q,
                          double *__restrict__ x, double *__restrict__ r,
                          double *__restrict__ w)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const double alpha = s->rr[o] / s->pq;
    x[i] = fma(alpha, p[i], x[i]);
    const double ri = fma(-alpha, q[i], r[i]);
    r[i] = ri;
    w[i] = ri * ri;
}

__global__ void ys_direct(size_t n, cg_scal *s, int o,
                          const double *__restrict__ r,
                          double *__restrict__ p)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const double rr_new = s->rr_new;
    p[i] = fma(rr_new / s->rr[o], p[i], r[i]);
    if (i == 0)
        s->rr[1 - o] = rr_new;
}

static struct {
    int nx, ny;
    size_t n, iterations;
    const double *b;
    double *x, *r, *p, *q, *w;
    cg_scal *s;
    void *temp;
    size_t temp_bytes;
    cudaStream_t stream;
    cudaGraphExec_t exec;
} cg;

/* r.r into s->rr[0] from w = b b, computed by ys_start_kernel. */
__global__ void ys_square(size_t n, const double *__restrict__ b,
                          double *__restrict__ w)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        w[i] = b[i] * b[i];
}

static unsigned blocks(size_t n) { return (unsigned)((n + 255) / 256); }

static void sum_into(double *out)
{
    size_t bytes = cg.temp_bytes;
    CG_CUDA(cub::DeviceReduce::Sum(cg.temp, bytes, cg.w, out, (int)cg.n,
                                   cg.stream));
}

static void capture_run(void)
{
    const size_t bytes = cg.n * sizeof(double);
    const dim3 block2(32, 8), grid2((cg.nx + 31) / 32, (cg.ny + 7) / 8);
    CG_CUDA(cudaStreamBeginCapture(cg.stream, cudaStreamCaptureModeThreadLocal));
    CG_CUDA(cudaMemsetAsync(cg.x, 0, bytes, cg.stream));
    CG_CUDA(cudaMemcpyAsync(cg.r, cg.b, bytes, cudaMemcpyDeviceToDevice,
                            cg.stream));
    CG_CUDA(cudaMemcpyAsync(cg.p, cg.b, bytes, cudaMemcpyDeviceToDevice,
                            cg.stream));
    ys_square<<<blocks(cg.n), 256, 0, cg.stream>>>(cg.n, cg.b, cg.w);
    CG_CUDA(cudaGetLastError());
    sum_into(&cg.s->rr[0]);
    for (size_t k = 0; k < cg.iterations; ++k) {
        const int o = (int)(k & 1);
        ys_apply<<<grid2, block2, 0, cg.stream>>>(cg.nx, cg.ny, cg.p, cg.q,
                                                  cg.w);
        CG_CUDA(cudaGetLastError());
        sum_into(&cg.s->pq);
        ys_update<<<blocks(cg.n), 256, 0, cg.stream>>>(cg.n, cg.s, o, cg.p,
                                                       cg.q, cg.x, cg.r,
                                                       cg.w);
        CG_CUDA(cudaGetLastError());
        sum_into(&cg.s->rr_new);
        ys_direct<<<blocks(cg.n), 256, 0, cg.stream>>>(cg.n, cg.s, o, cg.r,
                                                       cg.p);
        CG_CUDA(cudaGetLastError());
    }
    cudaGraph_t graph;
    CG_CUDA(cudaStreamEndCapture(cg.stream, &graph));
    CG_CUDA(cudaGraphInstantiate(&cg.exec, graph, 0));
    CG_CUDA(cudaGraphDestroy(graph));
}

int ys_cg_setup(size_t nx, size_t ny, const double *b, size_t iterations)
{
    cg.nx = (int)nx;
    cg.ny = (int)ny;
    cg.n = nx * ny;
    cg.iterations = iterations;
    cg.b = b;
    const size_t bytes = cg.n * sizeof(double);
    CG_CUDA(cudaMalloc(&cg.x, bytes));
    CG_CUDA(cudaMalloc(&cg.r, bytes));
    CG_CUDA(cudaMalloc(&cg.p, bytes));
    CG_CUDA(cudaMalloc(&cg.q, bytes));
    CG_CUDA(cudaMalloc(&cg.w, bytes));
    CG_CUDA(cudaMalloc(&cg.s, sizeof(cg_scal)));
    cg.temp_bytes = 0;
    CG_CUDA(cub::DeviceReduce::Sum(NULL, cg.temp_bytes, cg.w, &cg.s->pq,
                                   (int)cg.n));
    CG_CUDA(cudaMalloc(&cg.temp, cg.temp_bytes));
    CG_CUDA(cudaStreamCreateWithFlags(&cg.stream, cudaStreamNonBlocking));
    capture_run();
    return 1;
}

void ys_cg_run(void)
{
    /* Launched on the legacy default stream, where the timer's events
     * are recorded. */
    CG_CUDA(cudaGraphLaunch(cg.exec, 0));
}

const double *ys_cg_x(void) { return cg.x; }

void ys_cg_free(void)
{
    CG_CUDA(cudaDeviceSynchronize());
    CG_CUDA(cudaGraphExecDestroy(cg.exec));
    CG_CUDA(cudaStreamDestroy(cg.stream));
    CG_CUDA(cudaFree(cg.x));
    CG_CUDA(cudaFree(cg.r));
    CG_CUDA(cudaFree(cg.p));
    CG_CUDA(cudaFree(cg.q));
    CG_CUDA(cudaFree(cg.w));
    CG_CUDA(cudaFree(cg.s));
    CG_CUDA(cudaFree(cg.temp));
}
