/*
 * dispatch/runtime.c (CUDA build) - the choice between the GPU and the
 * host path, made once by duo_init, and the runtime functions of both.
 *
 * duo_init takes the GPU when DUO_DEVICE is gpu, or auto and a GPU is
 * usable; the host path when DUO_DEVICE is cpu, or auto and no GPU is
 * usable (DUO_ERROR_NO_DEVICE from the GPU's start-up: no driver, no
 * device, or none visible).  Any other GPU failure is reported as it is:
 * a broken GPU is not hidden by a quiet switch to the host.  The choice
 * holds until duo_finalize; the other files of src/dispatch/ route every
 * duo_be_* call by it, and the kernel-launch macros by duo_host_path().
 */
#include <stdio.h>

#include "dispatch.h"

duo_status duo_gpu_be_init(void);
duo_status duo_host_be_init(void);
duo_status duo_gpu_be_finalize(void);
duo_status duo_host_be_finalize(void);
const char *duo_gpu_be_name(void);

DUO_BE_FN(duo_status, device_info, (duo_device_info *info), (info))
DUO_BE_FN(duo_status, synchronize, (void), ())

/* From backend_cuda/runtime.cu: what the GPU start-up reported. */
const char *duo_cuda_no_device_reason(void);

static int host_path;

int duo_host_path(void) { return host_path; }

const char *duo_be_name(void)
{
    return host_path ? "cuda-host-fallback" : duo_gpu_be_name();
}

static void note_gpu(duo_device_want want)
{
    duo_device_info info;
    if (duo_gpu_be_device_info(&info) != DUO_SUCCESS) {
        duo_error_clear();
        snprintf(info.name, sizeof info.name, "(name unknown)");
    }
    duo_set_backend_reason("GPU %s (DUO_DEVICE=%s)", info.name,
                           duo_device_want_name(want));
}

static void note_host(duo_device_want want)
{
    duo_device_info info;
    info.cpu_threads = 0;
    (void)duo_host_be_device_info(&info);
    if (want == DUO_WANT_CPU)
        duo_set_backend_reason("host path, %d OpenMP thread(s): "
                               "DUO_DEVICE=cpu", info.cpu_threads);
    else
        duo_set_backend_reason("host path, %d OpenMP thread(s): no usable "
                               "GPU (%s; DUO_DEVICE=auto)",
                               info.cpu_threads,
                               duo_cuda_no_device_reason());
}

duo_status duo_be_init(void)
{
    duo_device_want want;
    duo_status status = duo_device_wanted(&want);
    if (status != DUO_SUCCESS)
        return status;
    if (want != DUO_WANT_CPU) {
        host_path = 0;
        status = duo_gpu_be_init();
        if (status == DUO_SUCCESS) {
            note_gpu(want);
            return DUO_SUCCESS;
        }
        if (want == DUO_WANT_GPU || status != DUO_ERROR_NO_DEVICE)
            return status;
        duo_error_clear(); /* handled: the host path runs instead */
    }
    status = duo_host_be_init();
    if (status != DUO_SUCCESS)
        return status;
    host_path = 1;
    note_host(want);
    return DUO_SUCCESS;
}

duo_status duo_be_finalize(void)
{
    duo_status status = host_path ? duo_host_be_finalize()
                                  : duo_gpu_be_finalize();
    host_path = 0; /* the next duo_init chooses again */
    return status;
}
