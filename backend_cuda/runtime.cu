/*
 * runtime.cu (CUDA) - start-up on the chosen (else first) GPU, device info, synchronize,
 * and the translation of CUDA errors into duo statuses and messages.
 */
#include <stdio.h>
#include <stdlib.h>
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
    /* A fault: which kernels may have made it (what ran since each
     * stream's last successful wait). */
    static char faulted[900];
    switch (err) {
    case cudaErrorMemoryAllocation:
        status = DUO_ERROR_OUT_OF_MEMORY;
        advice = "; free device buffers or use a smaller problem";
        break;
    case cudaErrorLaunchFailure: case cudaErrorIllegalAddress:
    case cudaErrorMisalignedAddress: case cudaErrorLaunchTimeout:
    case cudaErrorIllegalInstruction: case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError: case cudaErrorAssert:
    {
        status = DUO_ERROR_LAUNCH;
        char launched[640];
        duo_cuda_recent_describe(launched, sizeof launched);
        snprintf(faulted, sizeof faulted,
                 "; a kernel faulted and the GPU context is now unusable. "
                 "Launched since the last successful wait: %s. To tell "
                 "which one faulted, run with DUO_SYNC_LAUNCHES=1 or under "
                 "compute-sanitizer", launched);
        advice = faulted;
        break;
    }
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
static char no_device_reason[256] = "no GPU was probed";

extern "C" const char *duo_cuda_no_device_reason(void)
{
    return no_device_reason;
}

/* Why no GPU can be used, in plain words rather than cudart's ("CUDA
 * driver version is insufficient for CUDA runtime version" is what a
 * machine without any NVIDIA driver gets), from cudaGetDeviceCount's
 * error and count, the driver's CUDA version (cudaDriverGetVersion: 0
 * when no driver is installed), the runtime's, and CUDA_VISIBLE_DEVICES
 * (NULL when unset).  Given its inputs so that tests can pose each case. */
extern "C" void duo_cuda_describe_no_gpu(int err, int count,
                                         int driver_version,
                                         int runtime_version,
                                         const char *visible, char *out,
                                         size_t size)
{
    const cudaError_t e = (cudaError_t)err;
    if ((e == cudaErrorInsufficientDriver && driver_version <= 0) ||
        e == cudaErrorStubLibrary)
        snprintf(out, size, "no NVIDIA driver was found on this machine "
                 "(libcuda.so.1, which the driver installs, %s)",
                 e == cudaErrorStubLibrary
                     ? "is only the CUDA toolkit's stub"
                     : "could not be loaded");
    else if (e == cudaErrorInsufficientDriver)
        snprintf(out, size, "the NVIDIA driver is too old for this build: "
                 "it supports CUDA %d.%d, this build's runtime is CUDA "
                 "%d.%d (a driver for CUDA %d.0 or newer is needed)",
                 driver_version / 1000, driver_version % 1000 / 10,
                 runtime_version / 1000, runtime_version % 1000 / 10,
                 runtime_version / 1000);
    else if (e == cudaErrorNoDevice || (e == cudaSuccess && count == 0))
        snprintf(out, size, "%s%s%s",
                 visible != NULL ? "no GPU is visible (CUDA_VISIBLE_DEVICES="
                                 : "the NVIDIA driver found no GPU",
                 visible != NULL ? visible : "", visible != NULL ? ")" : "");
    else
        snprintf(out, size, "%s: %s", cudaGetErrorName(e),
                 cudaGetErrorString(e));
}

duo_status duo_be_init(void)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        (void)cudaGetLastError();
        int driver_version = 0, runtime_version = 0;
        if (cudaDriverGetVersion(&driver_version) != cudaSuccess)
            driver_version = 0;
        if (cudaRuntimeGetVersion(&runtime_version) != cudaSuccess)
            runtime_version = CUDART_VERSION;
        (void)cudaGetLastError();
        duo_cuda_describe_no_gpu((int)err, count, driver_version,
                                 runtime_version,
                                 getenv("CUDA_VISIBLE_DEVICES"),
                                 no_device_reason, sizeof no_device_reason);
        return duo_fail(DUO_ERROR_NO_DEVICE, "duo_init",
                        "DUO_DEVICE=gpu, but no usable GPU: %s. To run on "
                        "the CPU instead: set DUO_DEVICE=cpu (or unset it) "
                        "and this CUDA build takes its host path, or build "
                        "the CPU backends: make serial or make openmp",
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
    duo_cuda_waited_all();
    duo_status graphs = duo_cuda_graph_release();
    duo_status launch = duo_cuda_launch_release();
    duo_status scans = duo_cuda_scan_release();
    duo_status prims = duo_cuda_prim_release();
    return graphs != DUO_SUCCESS   ? graphs
           : launch != DUO_SUCCESS ? launch
           : scans != DUO_SUCCESS  ? scans
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
    duo_cuda_waited_all();
    return duo_cuda_offsets_checked("duo_synchronize");
}
