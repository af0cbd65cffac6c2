/*
 * launch.cu (CUDA) - launch geometry for DUO_LAUNCH, the check after each
 * launch, early launch, and the memory that reductions share: the
 * default stream's partials and the mapped slot for host-bound
 * results.
 *
 * Geometry: 256-thread blocks (32 x 8 in 2-D, 32 x 4 x 2 in 3-D, x always
 * 32 wide so a warp reads consecutive j or k).  The grid gives one thread
 * per index, as a hand-written launch would: capping it and letting the
 * grid-stride loop in DUO_FOR do the rest measured 4.7% slower for a
 * streaming kernel at 2^25 elements.  The loop still covers index spaces
 * beyond CUDA's grid limits.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"

enum { MAX_GRID_X = 0x7fffffff, MAX_GRID_YZ = 65535 };

static int sync_launches;   /* DUO_SYNC_LAUNCHES=1: wait after launches */
static int early_launch;    /* see duo_cuda_early_launch (kernel_cuda.h) */
static int early_paused;    /* the profiler's trace is on */
/* Pinned host memory mapped into the device's address space: duo_reduce's
 * last block writes its result straight to the host, so a host-bound
 * result costs a wait rather than a wait and a copy. */
static void *result_slot;
static void *result_slot_device;
static void *default_reduce_scratch; /* reductions on the default stream */

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

static unsigned clamp_blocks(size_t blocks, size_t cap)
{
    if (blocks == 0)
        return 1; /* an empty index space still launches, and does nothing */
    return (unsigned)(blocks < cap ? blocks : cap);
}

dim3 duo_cuda_block_1d(void) { return dim3(256); }
dim3 duo_cuda_block_2d(void) { return dim3(32, 8); }
dim3 duo_cuda_block_3d(void) { return dim3(32, 4, 2); }

dim3 duo_cuda_grid_1d(size_t n)
{
    return dim3(clamp_blocks(ceil_div(n, 256), MAX_GRID_X));
}

dim3 duo_cuda_grid_2d(size_t ni, size_t nj)
{
    unsigned gx = clamp_blocks(ceil_div(nj, 32), MAX_GRID_X);
    unsigned gy = clamp_blocks(ceil_div(ni, 8), MAX_GRID_YZ);
    return dim3(gx, gy);
}

dim3 duo_cuda_grid_3d(size_t ni, size_t nj, size_t nk)
{
    unsigned gx = clamp_blocks(ceil_div(nk, 32), MAX_GRID_X);
    unsigned gy = clamp_blocks(ceil_div(nj, 4), MAX_GRID_YZ);
    unsigned gz = clamp_blocks(ceil_div(ni, 2), MAX_GRID_YZ);
    return dim3(gx, gy, gz);
}

dim3 duo_cuda_grid_blocks(size_t gx, size_t gy)
{
    /* Beyond CUDA's limits the launch fails and reports the size; a
     * truncated dim3 would silently run fewer blocks. */
    if (gx > 0x7fffffffu || gy > MAX_GRID_YZ)
        return dim3(0, 0);
    return dim3((unsigned)gx, (unsigned)gy);
}

duo_status duo_cuda_launch_check(const char *kernel, const char *file,
                                 int line)
{
    cudaError_t err = cudaGetLastError();
    /* A capture runs nothing, and may not wait. */
    if (err == cudaSuccess && sync_launches && !duo_capture_active())
        err = cudaDeviceSynchronize();
    if (err == cudaSuccess)
        return DUO_SUCCESS;
    return duo_cuda_fail(err, file, line, kernel,
                         sync_launches ? "kernel launch or execution"
                                       : "kernel launch");
}

duo_status duo_be_launch_check(const char *kernel, const char *file,
                               int line)
{
    return duo_cuda_launch_check(kernel, file, line);
}

void *duo_cuda_host_result_slot(void) { return result_slot_device; }

duo_status duo_cuda_wait_host_result(void *result, size_t bytes,
                                     const char *where, const char *file,
                                     int line)
{
    /* The kernel was queued on the default stream; its writes to mapped
     * memory are visible once it has finished. */
    cudaError_t err = cudaStreamSynchronize(0);
    if (err != cudaSuccess)
        return duo_cuda_fail(err, file, line, where,
                             "waiting for the reduced value");
    memcpy(result, result_slot, bytes);
    return DUO_SUCCESS;
}

duo_status duo_cuda_reduce_scratch_new(void **scratch_out, const char *where)
{
    void *p = NULL;
    DUO_CUDA_TRY(cudaMalloc(&p, DUO_CUDA_REDUCE_SCRATCH_BYTES), where);
    /* The last-block counter must start at 0; wait, so that work on a
     * non-blocking stream cannot overtake the memset. */
    cudaError_t err = cudaMemset(p, 0, DUO_CUDA_REDUCE_SCRATCH_BYTES);
    if (err == cudaSuccess)
        err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        (void)cudaFree(p); /* already failing */
        return duo_cuda_fail(err, __FILE__, __LINE__, where,
                             "zeroing reduction scratch");
    }
    *scratch_out = p;
    return DUO_SUCCESS;
}

void *duo_cuda_default_reduce_scratch(void) { return default_reduce_scratch; }

void *duo_cuda_default_reduce_slots(unsigned **counter)
{
    char *base = (char *)default_reduce_scratch;
    *counter = (unsigned *)(base + DUO_CUDA_SCRATCH_COUNTER);
    return base + DUO_CUDA_SCRATCH_SLOTS;
}

int duo_cuda_early_launch(void) { return early_launch && !early_paused; }

void duo_cuda_pause_early_launch(int paused) { early_paused = paused; }

duo_status duo_cuda_launch_setup(void)
{
    const char *env = getenv("DUO_SYNC_LAUNCHES");
    sync_launches = env != NULL && strcmp(env, "0") != 0 && env[0] != '\0';
    /* Early launch needs compute capability 9.0; DUO_EARLY_LAUNCH=0
     * turns it off (to compare, or to rule it out). */
    int device = 0, major = 0;
    DUO_CUDA_TRY(cudaGetDevice(&device), "duo_init");
    DUO_CUDA_TRY(cudaDeviceGetAttribute(
                     &major, cudaDevAttrComputeCapabilityMajor, device),
                 "duo_init");
    env = getenv("DUO_EARLY_LAUNCH");
    early_launch = major >= 9 && !(env != NULL && strcmp(env, "0") == 0);
    if (result_slot == NULL) {
        DUO_CUDA_TRY(cudaHostAlloc(&result_slot, 64, cudaHostAllocMapped),
                     "duo_init");
        DUO_CUDA_TRY(cudaHostGetDevicePointer(&result_slot_device,
                                              result_slot, 0),
                     "duo_init");
    }
    if (default_reduce_scratch == NULL)
        return duo_cuda_reduce_scratch_new(&default_reduce_scratch,
                                           "duo_init");
    return DUO_SUCCESS;
}

duo_status duo_cuda_launch_release(void)
{
    void *pinned = result_slot;
    void *reduce = default_reduce_scratch;
    result_slot = NULL;
    result_slot_device = NULL;
    default_reduce_scratch = NULL;
    DUO_CUDA_TRY(cudaFree(reduce), "duo_finalize");
    DUO_CUDA_TRY(cudaFreeHost(pinned), "duo_finalize");
    return DUO_SUCCESS;
}
