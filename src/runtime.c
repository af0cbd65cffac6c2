/*
 * runtime.c - init/finalize, device info, synchronize, and the checks the
 * kernel-launch macros make before a launch.  The layer above all the
 * others of the core library (backend.h): the state it sets lives in
 * init_state.c, where everything below reads it.
 *
 * Compiled for plain x86-64, like cpu_check.c (src/CMakeLists.txt):
 * duo_init asks whether the CPU has what the rest of duo was compiled
 * for before it calls any of it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_check.h"
#include "profile.h"
#include "registry.h"
#include "validate.h"

const char *duo_backend_name(void) { return duo_be_name(); }

#if !defined(DUO_TWO_PATHS)
/* The serial and OpenMP builds have the host path only. */
static duo_status cpu_build_init(void)
{
    duo_device_want want;
    duo_status status = duo_device_wanted(&want);
    if (status != DUO_SUCCESS)
        return status;
    if (want == DUO_WANT_GPU)
        return duo_fail(DUO_ERROR_NO_DEVICE, "duo_init",
                        "DUO_DEVICE=gpu, but this is the %s build of duo, "
                        "which has no GPU path: build it with make cuda, or "
                        "unset DUO_DEVICE", duo_be_name());
    status = duo_be_init();
    if (status != DUO_SUCCESS)
        return status;
    duo_device_info info;
    info.cpu_threads = 0;
    (void)duo_be_device_info(&info);
    duo_set_backend_reason("%s build, %d thread(s) (DUO_DEVICE=%s)",
                           duo_be_name(), info.cpu_threads,
                           duo_device_want_name(want));
    return DUO_SUCCESS;
}
#endif

#define DUO_STR_(x) #x
#define DUO_STR(x) DUO_STR_(x)
const char *duo_version(void)
{
    return DUO_STR(DUO_VERSION_MAJOR) "." DUO_STR(DUO_VERSION_MINOR) "."
        DUO_STR(DUO_VERSION_PATCH);
}

duo_status duo_init(void)
{
    if (duo_is_initialized())
        return DUO_SUCCESS;
    duo_status status = duo_cpu_check(duo_cpu_detect(), duo_cpu_required,
                                      duo_cpu_target);
    if (status != DUO_SUCCESS)
        return status;
#if defined(DUO_TWO_PATHS)
    /* The CUDA build chooses its path here (src/dispatch/runtime.c). */
    status = duo_be_init();
#else
    status = cpu_build_init();
#endif
    if (status != DUO_SUCCESS)
        return status;
    duo_set_initialized(1);
    status = duo_profile_init_from_env();
    if (status == DUO_SUCCESS)
#if defined(DUO_TWO_PATHS)
        status = duo_validate_init(!duo_host_path());
#else
        status = duo_validate_init(0);
#endif
    if (status != DUO_SUCCESS) {
        duo_set_initialized(0);
        duo_profile_finish();
        (void)duo_be_finalize(); /* the first error is the one to report */
    }
    return status;
}

duo_status duo_finalize(void)
{
    if (!duo_is_initialized())
        return DUO_SUCCESS;
    if (duo_capture_active())
        return duo_capture_refuse("duo_finalize");
    duo_validate_finalize();
    duo_status profile = duo_profile_finish();
    duo_set_initialized(0);
    duo_status backend = duo_be_finalize();
    duo_set_backend_reason("duo_init() has not run");
    const char *leaks = getenv("DUO_LEAKS");
    duo_registry_finalize(stderr, leaks != NULL && leaks[0] != '\0' &&
                                      strcmp(leaks, "0") != 0);
    return backend != DUO_SUCCESS ? backend : profile;
}

duo_status duo_device_info_get(duo_device_info *info)
{
    if (info == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_device_info_get",
                        "info is NULL; pass the address of a "
                        "duo_device_info");
    duo_status status = duo_require_init("duo_device_info_get");
    if (status != DUO_SUCCESS)
        return status;
    duo_device_info tmp;
    memset(&tmp, 0, sizeof tmp);
    status = duo_be_device_info(&tmp);
    if (status == DUO_SUCCESS)
        *info = tmp;
    return status;
}

duo_status duo_synchronize(void)
{
    duo_status status = duo_require_sync_call("duo_synchronize");
    if (status != DUO_SUCCESS)
        return status;
    int region = duo_profile_open("duo_synchronize", DUO_REGION_SYNC, NULL);
    status = duo_be_synchronize();
    duo_profile_close(region, NULL, 0.0, 0.0);
    return status;
}

/* The profiler record of the launch in flight (launches do not nest). */
static _Thread_local int launch_region = -1;
/* What the launch macros return when duo_launch_begin says not to launch:
 * the failure, or success for a launch a CPU capture only records. */
static _Thread_local duo_status launch_refusal = DUO_ERROR_NOT_INITIALIZED;
/* The call in flight is a user reduction: it checked its own launches
 * and waited for them (kernel_cuda.h), so its end has nothing to check,
 * and the backend nothing to note as launched since the last wait. */
static _Thread_local int host_result_call;

int duo_launch_begin(const char *kernel, duo_stream stream, const char *file,
                     int line)
{
    if (!duo_is_initialized()) {
        launch_refusal = duo_fail_at(
            DUO_ERROR_NOT_INITIALIZED, file, line, kernel,
            "kernel not launched: call duo_init() first (and check that it "
            "succeeded)");
        return 0;
    }
    if (duo_capture_active()) {
        launch_refusal = duo_capture_check_stream(kernel, stream);
        if (launch_refusal != DUO_SUCCESS || duo_capture_skips_work())
            return 0;
    }
    launch_region = duo_profile_open(kernel, DUO_REGION_KERNEL, stream);
    return 1;
}

int duo_host_result_begin(const char *kernel, const char *file, int line)
{
    if (duo_is_initialized() && duo_capture_active()) {
        launch_refusal = duo_fail_at(
            DUO_ERROR_NOT_CAPTURABLE, file, line, kernel,
            "a user reduction returns its value to the host, so it cannot "
            "be part of a graph capture; call it outside the capture");
        return 0;
    }
    host_result_call = duo_launch_begin(kernel, NULL, file, line);
    return host_result_call;
}

duo_status duo_launch_end(const char *kernel, duo_stream stream,
                          const char *file, int line)
{
    duo_status status = host_result_call
                            ? DUO_SUCCESS
                            : duo_be_launch_check(kernel, stream, file, line);
    duo_profile_close(launch_region, stream, 0.0, 0.0);
    launch_region = -1;
    host_result_call = 0;
    return status;
}

duo_status duo_launch_refused(void) { return launch_refusal; }

duo_status duo_reduce_result_missing(const char *kernel, const char *file,
                                     int line)
{
    return duo_fail_at(DUO_ERROR_INVALID_ARGUMENT, file, line, kernel,
                       "result is NULL; pass the address of a host "
                       "variable for the reduced value");
}
