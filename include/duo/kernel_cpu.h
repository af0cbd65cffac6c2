/*
 * duo/kernel_cpu.h - the CPU (serial and OpenMP) meaning of the kernel
 * macros.  Included by <duo/kernel.h>; do not include directly.
 *
 * A kernel is a plain function and DUO_FOR a loop over its index space
 * (kernel_host.h, which the host path of a CUDA build shares).
 */
#ifndef DUO_KERNEL_CPU_H
#define DUO_KERNEL_CPU_H

#include <math.h>

#define DUO_RESTRICT restrict
#define DUO_DEVICE static inline
#define DUO_KERNEL(name, ...) void name(__VA_ARGS__)

#include <duo/kernel_host.h>

/* The stream is accepted for symmetry with CUDA; CPU work runs at once.
 * `call` is the kernel call; under DUO_VALIDATE it runs with every
 * thread, and `moved_call` (its pointers moved onto the check's copies)
 * with one (kernel_validate.h): the arguments are evaluated each time. */
#define DUO_CPU_LAUNCH_(stream, kernel, dims, ni, nj, nk, call, moved_call, \
                        ...)                                                \
    (duo_launch_begin(#kernel, stream, __FILE__, __LINE__)                  \
         ? ((duo_validating()                                               \
                 ? DUO_VD_HOST_LAUNCH_(kernel, dims, ni, nj, nk, call,      \
                                       moved_call, __VA_ARGS__)             \
                 : (void)(call)),                                           \
            duo_launch_end(#kernel, stream, __FILE__, __LINE__))            \
         : duo_launch_refused())

#define DUO_LAUNCH_ON(stream, kernel, n, ...)                               \
    DUO_CPU_LAUNCH_(stream, kernel, 1, n, 1, 1, kernel(__VA_ARGS__),        \
                    kernel(DUO_VD_SHADOWS_(__VA_ARGS__)), __VA_ARGS__)
#define DUO_LAUNCH_2D_ON(stream, kernel, ni, nj, ...)                       \
    DUO_CPU_LAUNCH_(stream, kernel, 2, ni, nj, 1, kernel(__VA_ARGS__),      \
                    kernel(DUO_VD_SHADOWS_(__VA_ARGS__)), __VA_ARGS__)
#define DUO_LAUNCH_3D_ON(stream, kernel, ni, nj, nk, ...)                   \
    DUO_CPU_LAUNCH_(stream, kernel, 3, ni, nj, nk, kernel(__VA_ARGS__),     \
                    kernel(DUO_VD_SHADOWS_(__VA_ARGS__)), __VA_ARGS__)

/* ------------------------------------------------------------------ */
/* Block-level kernels: a function of the grid and the arguments whose
 * body loops over the blocks (kernel_host.h). */

#define DUO_BLOCK_KERNEL(name, BX, BY, ...)                                 \
    enum { name##_duo_block_x = (BX), name##_duo_block_y = (BY) };          \
    void name(duo_grid duo_grid_, __VA_ARGS__)                              \
    {                                                                       \
        DUO_HOST_BLOCKS_BEGIN_(BX, BY)
#define DUO_BLOCK_KERNEL_END \
        DUO_HOST_BLOCKS_END_ \
    }

#define DUO_LAUNCH_BLOCKS_ON(stream, kernel, gx, gy, ...)                  \
    DUO_CPU_LAUNCH_(stream, kernel, 0, gx, gy, 1,                           \
                    kernel(duo_grid_make(gx, gy), __VA_ARGS__),             \
                    kernel(duo_grid_make(gx, gy),                           \
                           DUO_VD_SHADOWS_(__VA_ARGS__)),                   \
                    __VA_ARGS__)

/* ------------------------------------------------------------------ */
/* User reductions: the host order of kernel.h, with the accumulator and
 * identity of each operation. */

#define DUO_IDENTITY_DUO_SUM(T) ((T)0)
#define DUO_IDENTITY_DUO_MIN(T) duo_cpu_highest_(T)
#define DUO_IDENTITY_DUO_MAX(T) duo_cpu_lowest_(T)

/* Sums of float or double accumulate in double, integer sums in uint64_t
 * (wrapping, as C defines for unsigned types); min and max in T. */
#define duo_cpu_sum_acc_(x)                                               \
    _Generic((x), float: (double)(x), double: (double)(x),                \
             default: (uint64_t)(x))
#define DUO_ACC_DUO_SUM(T) __typeof__(duo_cpu_sum_acc_((T)0))
#define DUO_ACC_DUO_MIN(T) T
#define DUO_ACC_DUO_MAX(T) T

#define duo_cpu_highest_(T)                                           \
    _Generic((T)0, float: (T)INFINITY, double: (T)INFINITY,           \
             int: (T)INT32_MAX, long: (T)INT64_MAX,                   \
             long long: (T)INT64_MAX, unsigned long: (T)UINT64_MAX,   \
             unsigned long long: (T)UINT64_MAX)
#define duo_cpu_lowest_(T)                                            \
    _Generic((T)0, float: (T)-INFINITY, double: (T)-INFINITY,         \
             int: (T)INT32_MIN, long: (T)INT64_MIN,                   \
             long long: (T)INT64_MIN, unsigned long: (T)0,            \
             unsigned long long: (T)0)

#define DUO_REDUCE_DEFINE(name, T, op, fn, Args)                             \
    DUO_HOST_REDUCE_DEFINE_(name, T, DUO_ACC_##op(T), DUO_COMBINE_##op,      \
                            DUO_IDENTITY_##op(T), fn, Args)                  \
    DUO_VD_USER_REDUCE_(name, T, Args, name##_duo_host, name##_duo_host,     \
                        DUO_VD_KIND_((T *)0))

#endif /* DUO_KERNEL_CPU_H */
