/*
 * dispatch.h - the CUDA build's backend dispatch.
 *
 * A CUDA build compiles both backend folders into one library:
 * backend_cuda/ with DUO_BE_PREFIX=duo_gpu_be_ and backend_cpu/ (with
 * OpenMP) with DUO_BE_PREFIX=duo_host_be_ (backend_rename.h).  The files
 * of src/dispatch/, one per backend file, define the duo_be_* functions
 * that the rest of the library calls; each calls the GPU's or the host's,
 * as duo_init chose (dispatch/runtime.c).
 *
 * DUO_BE_FN(return type, name, (parameters), (arguments)) defines the
 * dispatcher of a function that returns a value, DUO_BE_VOID(name,
 * (parameters), (arguments)) of one that does not.  A function added to
 * backend.h needs a line in backend_rename.h and one here: without them
 * the link fails (a duplicate or an undefined duo_be_*), never quietly.
 */
#ifndef DUO_DISPATCH_H
#define DUO_DISPATCH_H

#include "backend.h"

#define DUO_BE_FN(ret, name, params, args)                               \
    ret duo_gpu_be_##name params;                                        \
    ret duo_host_be_##name params;                                       \
    ret duo_be_##name params                                             \
    {                                                                    \
        return duo_host_path() ? duo_host_be_##name args                 \
                               : duo_gpu_be_##name args;                 \
    }
#define DUO_BE_VOID(name, params, args)                                  \
    void duo_gpu_be_##name params;                                       \
    void duo_host_be_##name params;                                      \
    void duo_be_##name params                                            \
    {                                                                    \
        if (duo_host_path())                                             \
            duo_host_be_##name args;                                     \
        else                                                             \
            duo_gpu_be_##name args;                                      \
    }

#endif /* DUO_DISPATCH_H */
