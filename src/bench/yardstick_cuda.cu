/*
 * yardstick_cuda.cu - duo-bench's yardsticks in CUDA builds: what a CUDA
 * programmer uses without duo.
 *
 *   reduce  cub::DeviceReduce::Sum / Min / Max, then cudaMemcpy of the
 *           one result to pinned host memory: duo_reduce returns its
 *           result on the host, so the yardstick does the same work.  The
 *           temporary storage is allocated once per size, outside the
 *           timed calls (the warm-up call allocates it).
 *   gemm    cublasSgemm / cublasDgemm in CUBLAS_PEDANTIC_MATH (strict
 *           fp32, no TF32), row-major through the transpose trick:
 *           C^T = op(B)^T op(A)^T, i.e. cuBLAS is called with (n, m, k)
 *           and B before A.
 *   stream  hand-written BabelStream kernels: grid-stride loops over
 *           256-thread blocks, 32 blocks per SM; dot with a warp-shuffle
 *           reduction per block, a second one-block pass, and the result
 *           copied to the host.
 *
 * Everything runs on the legacy default stream, where duo_timer records
 * its events.  Every CUDA and cuBLAS call is checked; a failure prints
 * the call, file:line and the error, and exits 1.
 */
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cublas_v2.h>
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include "yardstick.h"

/* ------------------------------------------------------------------ */
/* Checks                                                              */

static void ys_cuda_check(cudaError_t err, const char *call, const char *file,
                          int line)
{
    if (err == cudaSuccess)
        return;
    fprintf(stderr, "duo-bench: yardstick: %s failed at %s:%d: %s (%s)\n",
            call, file, line, cudaGetErrorName(err), cudaGetErrorString(err));
    exit(1);
}
#define YS_CUDA(call) ys_cuda_check((call), #call, __FILE__, __LINE__)

static void ys_cublas_check(cublasStatus_t status, const char *call,
                            const char *file, int line)
{
    if (status == CUBLAS_STATUS_SUCCESS)
        return;
    fprintf(stderr, "duo-bench: yardstick: %s failed at %s:%d: %s (%s)\n",
            call, file, line, cublasGetStatusName(status),
            cublasGetStatusString(status));
    exit(1);
}
#define YS_CUBLAS(call) ys_cublas_check((call), #call, __FILE__, __LINE__)

/* After a raw <<<>>> launch. */
#define YS_LAUNCHED(kernel) \
    ys_cuda_check(cudaGetLastError(), kernel " launch", __FILE__, __LINE__)

static int ys_int(size_t v, const char *what)
{
    if (v > (size_t)INT_MAX) {
        fprintf(stderr, "duo-bench: yardstick: %s = %zu does not fit the "
                "int that CUB/cuBLAS take here\n", what, v);
        exit(1);
    }
    return (int)v;
}

/* ------------------------------------------------------------------ */
/* State                                                               */

enum { YS_THREADS = 256, YS_BLOCKS_PER_SM = 32 };

static cublasHandle_t ys_blas;
static int ys_sms;
static void *ys_temp;            /* CUB temporary storage */
static size_t ys_temp_bytes;
static void *ys_dev_out;         /* one reduced value, on the device */
static void *ys_host_out;        /* ... and its pinned host copy */
static double *ys_dot_partials;  /* dot: one per block, then the total */
static unsigned ys_dot_grid;

/* The last size query, so timed calls skip it. */
static struct {
    int valid;
    duo_reduce_op op;
    duo_dtype type;
    size_t n;
} ys_query;

void ys_init(int threads, ys_info *info)
{
    (void)threads;
    memset(info, 0, sizeof *info);
    int device = 0;
    cudaDeviceProp prop;
    YS_CUDA(cudaGetDevice(&device));
    YS_CUDA(cudaGetDeviceProperties(&prop, device));
    ys_sms = prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;

    YS_CUBLAS(cublasCreate(&ys_blas));
    YS_CUBLAS(cublasSetMathMode(ys_blas, CUBLAS_PEDANTIC_MATH));
    YS_CUBLAS(cublasSetStream(ys_blas, 0));

    YS_CUDA(cudaMalloc(&ys_dev_out, 16));
    YS_CUDA(cudaMallocHost(&ys_host_out, 16));
    ys_dot_grid = (unsigned)ys_sms * (2048 / YS_THREADS);
    YS_CUDA(cudaMalloc((void **)&ys_dot_partials,
                       (ys_dot_grid + 1) * sizeof(double)));

    int runtime = 0, driver = 0, blas = 0;
    YS_CUDA(cudaRuntimeGetVersion(&runtime));
    YS_CUDA(cudaDriverGetVersion(&driver));
    YS_CUBLAS(cublasGetVersion(ys_blas, &blas));
    snprintf(info->versions, sizeof info->versions,
             "CUDA runtime %d.%d, driver %d.%d, cuBLAS %d.%d.%d, CUB %d.%d.%d",
             runtime / 1000, runtime % 1000 / 10, driver / 1000,
             driver % 1000 / 10, blas / 10000, blas % 10000 / 100,
             blas % 100, CUB_VERSION / 100000, CUB_VERSION / 100 % 1000,
             CUB_VERSION % 100);
    snprintf(info->machine, sizeof info->machine,
             "%d SMs, L2 %d MB, compute capability %d.%d, %.1f GiB",
             prop.multiProcessorCount, prop.l2CacheSize >> 20, prop.major,
             prop.minor, (double)prop.totalGlobalMem / (1024.0 * 1024 * 1024));
    info->reduce = "CUB+D2H";
    info->gemm = "cuBLAS pedantic";
    info->stream = "raw CUDA";
    info->cache_bytes = (size_t)prop.l2CacheSize;
    info->sum_unit_f32 = 0x1p-24; /* CUB sums f32 in f32 */
    info->sum_unit_f64 = 0x1p-53;
    info->gpu = 1;
}

void ys_finalize(void)
{
    YS_CUDA(cudaDeviceSynchronize());
    YS_CUBLAS(cublasDestroy(ys_blas));
    YS_CUDA(cudaFree(ys_temp));
    YS_CUDA(cudaFree(ys_dev_out));
    YS_CUDA(cudaFreeHost(ys_host_out));
    YS_CUDA(cudaFree(ys_dot_partials));
    ys_temp = NULL;
    ys_temp_bytes = 0;
    ys_dev_out = ys_host_out = NULL;
    ys_dot_partials = NULL;
    ys_query.valid = 0;
}

/* ------------------------------------------------------------------ */
/* Reduce: CUB + the result to the host                                */

template <class T>
static void cub_call(duo_reduce_op op, void *temp, size_t &bytes, const T *x,
                     T *out, int n)
{
    switch (op) {
    case DUO_SUM:
        YS_CUDA(cub::DeviceReduce::Sum(temp, bytes, x, out, n));
        break;
    case DUO_MIN:
        YS_CUDA(cub::DeviceReduce::Min(temp, bytes, x, out, n));
        break;
    case DUO_MAX:
        YS_CUDA(cub::DeviceReduce::Max(temp, bytes, x, out, n));
        break;
    }
}

/* Into device memory at out (ys_dev_out when NULL). */
template <class T>
static void cub_reduce_on_device(duo_reduce_op op, duo_dtype type,
                                 const T *x, size_t n, T *out)
{
    const int items = ys_int(n, "n");
    if (!ys_query.valid || ys_query.op != op || ys_query.type != type ||
        ys_query.n != n) {
        size_t need = 0;
        cub_call<T>(op, NULL, need, x, out, items);
        if (need > ys_temp_bytes) {
            YS_CUDA(cudaFree(ys_temp));
            ys_temp = NULL;
            ys_temp_bytes = 0;
            YS_CUDA(cudaMalloc(&ys_temp, need));
            ys_temp_bytes = need;
        }
        ys_query.valid = 1;
        ys_query.op = op;
        ys_query.type = type;
        ys_query.n = n;
    }
    size_t bytes = ys_temp_bytes;
    cub_call<T>(op, ys_temp, bytes, x, out, items);
}

template <class T>
static void cub_reduce(duo_reduce_op op, duo_dtype type, const T *x,
                       size_t n, double *result)
{
    T *out = (T *)ys_dev_out;
    cub_reduce_on_device<T>(op, type, x, n, out);
    YS_CUDA(cudaMemcpy(ys_host_out, out, sizeof(T), cudaMemcpyDeviceToHost));
    *result = (double)*(const T *)ys_host_out;
}

int ys_reduce_device(duo_reduce_op op, duo_dtype type, const void *x,
                     size_t n, void *result)
{
    if (op != DUO_SUM && op != DUO_MIN && op != DUO_MAX)
        return 0;
    if (type == DUO_F32)
        cub_reduce_on_device<float>(op, type, (const float *)x, n,
                                    (float *)result);
    else if (type == DUO_F64)
        cub_reduce_on_device<double>(op, type, (const double *)x, n,
                                     (double *)result);
    else
        return 0;
    return 1;
}

int ys_reduce(duo_reduce_op op, duo_dtype type, const void *x, size_t n,
              double *result)
{
    if (op != DUO_SUM && op != DUO_MIN && op != DUO_MAX)
        return 0;
    if (type == DUO_F32)
        cub_reduce<float>(op, type, (const float *)x, n, result);
    else if (type == DUO_F64)
        cub_reduce<double>(op, type, (const double *)x, n, result);
    else
        return 0;
    return 1;
}

/* ------------------------------------------------------------------ */
/* Gemm: cuBLAS, row-major through C^T = op(B)^T op(A)^T               */

static cublasOperation_t ys_op(duo_transpose t)
{
    return t == DUO_TRANS ? CUBLAS_OP_T : CUBLAS_OP_N;
}

void ys_gemm_f32(duo_transpose ta, duo_transpose tb, size_t m, size_t n,
                 size_t k, float alpha, const float *a, size_t lda,
                 const float *b, size_t ldb, float beta, float *c,
                 size_t ldc)
{
    YS_CUBLAS(cublasSgemm(ys_blas, ys_op(tb), ys_op(ta), ys_int(n, "n"),
                          ys_int(m, "m"), ys_int(k, "k"), &alpha, b,
                          ys_int(ldb, "ldb"), a, ys_int(lda, "lda"), &beta,
                          c, ys_int(ldc, "ldc")));
}

void ys_gemm_f64(duo_transpose ta, duo_transpose tb, size_t m, size_t n,
                 size_t k, double alpha, const double *a, size_t lda,
                 const double *b, size_t ldb, double beta, double *c,
                 size_t ldc)
{
    YS_CUBLAS(cublasDgemm(ys_blas, ys_op(tb), ys_op(ta), ys_int(n, "n"),
                          ys_int(m, "m"), ys_int(k, "k"), &alpha, b,
                          ys_int(ldb, "ldb"), a, ys_int(lda, "lda"), &beta,
                          c, ys_int(ldc, "ldc")));
}

/* ------------------------------------------------------------------ */
/* BabelStream, hand-written                                           */

#define YS_GRID_STRIDE(i, n)                                             \
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n); \
         i += (size_t)gridDim.x * blockDim.x)

__global__ void ys_copy_kernel(const double *__restrict__ a,
                               double *__restrict__ c, size_t n)
{
    YS_GRID_STRIDE(i, n)
        c[i] = a[i];
}

__global__ void ys_mul_kernel(double *__restrict__ b,
                              const double *__restrict__ c, double s,
                              size_t n)
{
    YS_GRID_STRIDE(i, n)
        b[i] = s * c[i];
}

__global__ void ys_add_kernel(const double *__restrict__ a,
                              const double *__restrict__ b,
                              double *__restrict__ c, size_t n)
{
    YS_GRID_STRIDE(i, n)
        c[i] = a[i] + b[i];
}

__global__ void ys_triad_kernel(double *__restrict__ a,
                                const double *__restrict__ b,
                                const double *__restrict__ c, double s,
                                size_t n)
{
    YS_GRID_STRIDE(i, n)
        a[i] = b[i] + s * c[i];
}

/* Sum of v over a block of YS_THREADS threads; valid in thread 0. */
__device__ double ys_block_sum(double v)
{
    __shared__ double warp_sums[YS_THREADS / 32];
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if ((threadIdx.x & 31) == 0)
        warp_sums[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < YS_THREADS / 32 ? warp_sums[threadIdx.x] : 0.0;
        for (int offset = 16; offset > 0; offset >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    return v;
}

__global__ void __launch_bounds__(YS_THREADS)
    ys_dot_kernel(const double *__restrict__ a, const double *__restrict__ b,
                  size_t n, double *__restrict__ partials)
{
    double sum = 0.0;
    YS_GRID_STRIDE(i, n)
        sum += a[i] * b[i];
    sum = ys_block_sum(sum);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = sum;
}

__global__ void __launch_bounds__(YS_THREADS)
    ys_sum_partials_kernel(const double *__restrict__ partials,
                           unsigned count, double *__restrict__ out)
{
    double sum = 0.0;
    for (unsigned p = threadIdx.x; p < count; p += blockDim.x)
        sum += partials[p];
    sum = ys_block_sum(sum);
    if (threadIdx.x == 0)
        *out = sum;
}

static unsigned ys_stream_grid(size_t n)
{
    const size_t cap = (size_t)ys_sms * YS_BLOCKS_PER_SM;
    const size_t need = (n + YS_THREADS - 1) / YS_THREADS;
    return (unsigned)(need == 0 ? 1 : need < cap ? need : cap);
}

void ys_stream_copy(const double *a, double *c, size_t n)
{
    ys_copy_kernel<<<ys_stream_grid(n), YS_THREADS>>>(a, c, n);
    YS_LAUNCHED("ys_copy_kernel");
}

void ys_stream_mul(double *b, const double *c, double s, size_t n)
{
    ys_mul_kernel<<<ys_stream_grid(n), YS_THREADS>>>(b, c, s, n);
    YS_LAUNCHED("ys_mul_kernel");
}

void ys_stream_add(const double *a, const double *b, double *c, size_t n)
{
    ys_add_kernel<<<ys_stream_grid(n), YS_THREADS>>>(a, b, c, n);
    YS_LAUNCHED("ys_add_kernel");
}

void ys_stream_triad(double *a, const double *b, const double *c, double s,
                     size_t n)
{
    ys_triad_kernel<<<ys_stream_grid(n), YS_THREADS>>>(a, b, c, s, n);
    YS_LAUNCHED("ys_triad_kernel");
}

double ys_stream_dot(const double *a, const double *b, size_t n)
{
    ys_dot_kernel<<<ys_dot_grid, YS_THREADS>>>(a, b, n, ys_dot_partials);
    YS_LAUNCHED("ys_dot_kernel");
    ys_sum_partials_kernel<<<1, YS_THREADS>>>(ys_dot_partials, ys_dot_grid,
                                               ys_dot_partials + ys_dot_grid);
    YS_LAUNCHED("ys_sum_partials_kernel");
    YS_CUDA(cudaMemcpy(ys_host_out, ys_dot_partials + ys_dot_grid,
                       sizeof(double), cudaMemcpyDeviceToHost));
    return *(const double *)ys_host_out;
}
