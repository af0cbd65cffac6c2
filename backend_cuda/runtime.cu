/*
 * runtime.cu (CUDA) - start-up on the chosen (else first) GPU, device info, synchronize,
 * and the translation of CUDA errors into duo statuses and messages.
 */
#include <stdio.h>
#include <string.h>

#include "cuda_check.h"

int duo_cuda_sm_count;

const char *duo_be_name(void) { return "cuda"; }

duo_status duo_cuda_fail(cudaError_t err, const char *file, int line,
                         const char *where, const char *what)
{
    (void)cudaGetLastError();
    duo_status status = DUO_ERROR_BACKEND;
    const char *advice = "";
    switch (err) {
    case cudaErrorMemoryAllocation:
        status = DUO_ERROR_OUT_OF_MEMORY;
        advice = "; free device buffers or use a smaller problem";
        break;
    case cudaErrorLaunchFailure: case cudaErrorIllegalAddress:
    case cudaErrorMisalignedAddress: case cudaErrorLaunchTimeout:
    case cudaErrorIllegalInstruction: case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError: case cudaErrorAssert:
        status = DUO_ERROR_LAUNCH;
        advice = "; a kernel faulted and the GPU context is now unusable: "
                 "run with DUO_SYNC_LAUNCHES=1 or under compute-sanitizer "
                 "to find the kernel";
        break;
    case cudaErrorInvalidConfiguration: case cudaErrorLaunchOutOfResources:
    case cudaErrorInvalidDeviceFunction: case cudaErrorNoKernelImageForDevice:
        status = DUO_ERROR_LAUNCH;
        advice = "; check the launch size and that the build targets this "
                 "GPU (CMAKE_CUDA_ARCHITECTURES)";
        break;
    default:
        break;
    }
    return duo_fail_at(status, file, line, where, "%s failed: %s: %s%s",
                       what, cudaGetErrorName(err), cudaGetErrorString(err),
                       advice);
}

/* Why the last duo_be_init found no GPU, for dispatch/runtime.c. */
static char no_device_reason[160] = "no GPU was probed";

extern "C" const char *duo_cuda_no_device_reason(void)
{
    return no_device_reason;
}

duo_status duo_be_init(void)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        (void)cudaGetLastError();
        snprintf(no_device_reason, sizeof no_device_reason, "%s",
                 err != cudaSuccess ? cudaGetErrorString(err)
                                    : "no CUDA devices");
        return duo_fail(DUO_ERROR_NO_DEVICE, "duo_init",
                        "DUO_DEVICE=gpu, but no usable GPU was found (%s). "
                        "Unset DUO_DEVICE (or set it to cpu) to run this "
                        "CUDA build on the host, or build and run the CPU "
                        "backends instead: make serial or make openmp",
                        no_device_reason);
    }
    /* The GPU chosen before duo_init (duo_dist_init picks one per
     * rank), else the first. */
    int device = 0;
    DUO_CUDA_TRY(cudaGetDevice(&device), "duo_init");
    DUO_CUDA_TRY(cudaSetDevice(device), "duo_init");
    DUO_CUDA_TRY(cudaFree(0), "duo_init"); /* create the context now */
    DUO_CUDA_TRY(cudaDeviceGetAttribute(&duo_cuda_sm_count,
                                        cudaDevAttrMultiProcessorCount,
                                        device),
                 "duo_init");
    return duo_cuda_launch_setup();
}

duo_status duo_be_finalize(void)
{
    DUO_CUDA_TRY(cudaDeviceSynchronize(), "duo_finalize");
    duo_status graphs = duo_cuda_graph_release();
    duo_status launch = duo_cuda_launch_release();
    duo_status prims = duo_cuda_prim_release();
    return graphs != DUO_SUCCESS   ? graphs
           : launch != DUO_SUCCESS ? launch
                                   : prims;
}

duo_status duo_be_device_info(duo_device_info *info)
{
    int device = 0;
    cudaDeviceProp prop;
    DUO_CUDA_TRY(cudaGetDevice(&device), "duo_device_info_get");
    DUO_CUDA_TRY(cudaGetDeviceProperties(&prop, device),
                 "duo_device_info_get");
    size_t free_bytes = 0, total_bytes = 0;
    DUO_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes),
                 "duo_device_info_get");
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    info->total_memory = total_bytes;
    info->free_memory = free_bytes;
    info->multiprocessors = prop.multiProcessorCount;
    info->compute_major = prop.major;
    info->compute_minor = prop.minor;
    info->cpu_threads = 0;
    return DUO_SUCCESS;
}

duo_status duo_be_synchronize(void)
{
    DUO_CUDA_TRY(cudaDeviceSynchronize(), "duo_synchronize");
    return DUO_SUCCESS;
}
