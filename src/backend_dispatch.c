/*
 * backend_dispatch.c (CUDA build) - each duo_be_* function calls the
 * GPU's or the host's, as duo_init chose (device_path.c).  Generated from
 * the list in backend_functions.h.
 */
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
#include "backend_functions.h"
