/*
 * cuda_check.h - how the CUDA backend turns a failed CUDA call into a
 * duo_status and a message, and the little state the backend shares.
 */
#ifndef DUO_CUDA_CHECK_H
#define DUO_CUDA_CHECK_H

#include <cuda_runtime.h>

#include "backend.h"

/* Map err to a duo_status (allocation failure -> out of memory, launch
 * and execution faults -> launch, the rest -> backend), record "what
 * failed: cudaErrorX: text" plus advice, and return the status.  Clears
 * CUDA's last error so it is not reported twice. */
duo_status duo_cuda_fail(cudaError_t err, const char *file, int line,
                         const char *where, const char *what);

#define DUO_CUDA_TRY(call, where)                                         \
    do {                                                                  \
        cudaError_t duo_err_ = (call);                                    \
        if (duo_err_ != cudaSuccess)                                      \
            return duo_cuda_fail(duo_err_, __FILE__, __LINE__, where,     \
                                 #call);                                  \
    } while (0)

/* Multiprocessors of the current GPU, set by duo_be_init(). */
extern int duo_cuda_sm_count;

/* Release the launch module's scratch buffers (duo_be_finalize). */
duo_status duo_cuda_launch_release(void);
/* Read DUO_SYNC_LAUNCHES and allocate what launches need (duo_be_init). */
duo_status duo_cuda_launch_setup(void);

#endif /* DUO_CUDA_CHECK_H */
