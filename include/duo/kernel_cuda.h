/*
 * duo/kernel_cuda.h - the kernel macros in a CUDA build.  Included by
 * <duo/kernel.h> when nvcc compiles a source; do not include directly.
 *
 * A CUDA build runs every kernel on the GPU or, where duo_init chose the
 * host path (no usable GPU, or DUO_DEVICE=cpu), on the CPU with OpenMP.
 * nvcc compiles a source twice: once for the GPU, with __CUDA_ARCH__
 * defined, and once for the host.  A kernel is a __host__ __device__
 * function, and its loop macros mean the grid-stride loops of the GPU in
 * the first pass and the OpenMP loops of the openmp build
 * (kernel_host.h) in the second; so one body gives both paths, and the
 * host path gives the openmp build's bits.
 *
 * A launch calls the kernel function directly on the host path, and on
 * the GPU launches duo_cuda_entry<kernel>, the one __global__ function
 * template that calls the kernel function with its arguments.  The
 * launch geometry (block shape and the cap on the grid) is chosen in
 * backend_cuda/launch.cu, in one place.
 */
#ifndef DUO_KERNEL_CUDA_H
#define DUO_KERNEL_CUDA_H

#include <cuda_runtime.h>
#include <math.h>

#include <type_traits>

#ifdef __cplusplus
extern "C" {
#endif
/* 1 when duo_init chose the host path (src/dispatch/runtime.c). */
int duo_host_path(void);
#ifdef __cplusplus
}
#endif

#define DUO_RESTRICT __restrict__
#define DUO_DEVICE static inline __host__ __device__
#define DUO_KERNEL(name, ...) static __host__ __device__ void name(__VA_ARGS__)

/* The GPU's grid-stride loops: a grid of any size covers any n. */
#define DUO_CUDA_FOR_(i, n)                                             \
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;      \
         i < (size_t)(n); i += (size_t)gridDim.x * blockDim.x)

#if defined(__CUDA_ARCH__)
/* ---- the GPU pass ------------------------------------------------- */

#define DUO_FOR(i, n) DUO_CUDA_FOR_(i, n)

#define DUO_FOR_2D(i, j, ni, nj)                                        \
    for (size_t i = (size_t)blockIdx.y * blockDim.y + threadIdx.y;      \
         i < (size_t)(ni); i += (size_t)gridDim.y * blockDim.y)         \
        for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;  \
             j < (size_t)(nj); j += (size_t)gridDim.x * blockDim.x)

#define DUO_FOR_3D(i, j, k, ni, nj, nk)                                     \
    for (size_t i = (size_t)blockIdx.z * blockDim.z + threadIdx.z;          \
         i < (size_t)(ni); i += (size_t)gridDim.z * blockDim.z)             \
        for (size_t j = (size_t)blockIdx.y * blockDim.y + threadIdx.y;      \
             j < (size_t)(nj); j += (size_t)gridDim.y * blockDim.y)         \
            for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;  \
                 k < (size_t)(nk); k += (size_t)gridDim.x * blockDim.x)

/* Block-level kernels: each thread runs the whole body. */
#define DUO_BLOCKS_BEGIN_(BX, BY)                                       \
    enum { duo_bdx_ = (BX), duo_bdy_ = (BY) };                          \
    (void)duo_grid_;                                                    \
    {
#define DUO_BLOCKS_END_ }

#define DUO_THREADS
#define DUO_BARRIER __syncthreads()
#define DUO_TX ((size_t)threadIdx.x)
#define DUO_TY ((size_t)threadIdx.y)
#define DUO_TID ((size_t)threadIdx.y * duo_bdx_ + threadIdx.x)
#define DUO_BX ((size_t)blockIdx.x)
#define DUO_BY ((size_t)blockIdx.y)
#define DUO_GRID_X ((size_t)gridDim.x)
#define DUO_GRID_Y ((size_t)gridDim.y)
#define DUO_BLOCK_X ((size_t)duo_bdx_)
#define DUO_BLOCK_Y ((size_t)duo_bdy_)
#define DUO_SHARED(type, name, count) __shared__ type name[count]
#define DUO_PRIVATE(type, name) type name[1]
#define DUO_PRIVATE_ARRAY(type, name, len) type name[1][len]
#define DUO_MY(name) name[0]

#else
/* ---- the host pass: the openmp build's loops ---------------------- */

#include <duo/kernel_host.h>
#define DUO_BLOCKS_BEGIN_(BX, BY) DUO_HOST_BLOCKS_BEGIN_(BX, BY)
#define DUO_BLOCKS_END_ DUO_HOST_BLOCKS_END_

#endif

/* ------------------------------------------------------------------ */
/* Launches. */

/* Early launch (programmatic dependent launch, compute capability 9.0
 * and up): duo's kernels are launched so that the GPU may schedule a
 * grid as soon as the blocks of the kernel before it on the stream have
 * run, before that kernel's completion is signalled; the blocks then
 * wait here, before touching memory, until its writes are visible -- the
 * order of a plain launch, with less of the gap between the two grids.
 * (Letting the next grid in earlier still, by
 * griddepcontrol.launch_dependents at the start of each block, made
 * BabelStream's copy and mul 14% slower on an H200, launched early or
 * not, and duo-cg's iterations slower than without it.)  Elsewhere, or
 * in a grid launched without the attribute, the wait is a no-op.  The
 * wait exists only in code compiled for compute capability 9.0 or later:
 * a kernel built for an older target (PTX that the driver compiles) has
 * none, so launches ask for early launch only for kernels whose code has
 * it (duo_cuda_early_launch_for). */
__device__ __forceinline__ void duo_cuda_wait_previous_(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* The __global__ functions behind every kernel: F is the kernel function
 * and P its parameter types, so arguments convert exactly as in a call.
 * Block kernels get their block size as launch bounds. */
template <auto F, class... P> __global__ void duo_cuda_entry(P... p)
{
    duo_cuda_wait_previous_();
    F(p...);
}
template <auto F, int THREADS, class... P>
__global__ void __launch_bounds__(THREADS) duo_cuda_block_entry(P... p)
{
    duo_cuda_wait_previous_();
    F(p...);
}

/* From backend_cuda/launch.cu: 1 when a launch of `entry` asks for early
 * launch: a GPU of compute capability 9.0 or more, DUO_EARLY_LAUNCH not
 * 0, no profiler trace, and entry's code built for compute capability
 * 9.0 or later (its attributes, read once per entry and kept). */
int duo_cuda_early_launch_for(const void *entry);
/* Whether the most recent launch asked for early launch (for tests). */
int duo_cuda_last_launch_early(void);

template <class T> struct duo_cuda_as_is_ {
    typedef T type;
};

/* Launch `entry` (a kernel that starts with duo_cuda_wait_previous_) on
 * `stream`, asking for early launch where duo_cuda_early_launch_for()
 * says so.  The arguments convert to the kernel's parameter types at the
 * call, as with <<<>>>.  A failure is left for cudaGetLastError. */
template <class... P>
void duo_cuda_launch_(void (*entry)(P...), dim3 grid, dim3 block,
                      size_t smem, cudaStream_t stream,
                      typename duo_cuda_as_is_<P>::type... args)
{
    cudaLaunchAttribute early;
    early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    early.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = smem;
    config.stream = stream;
    config.attrs = &early;
    config.numAttrs =
        duo_cuda_early_launch_for((const void *)entry) ? 1 : 0;
    void *argv[] = {(void *)&args..., NULL};
    (void)cudaLaunchKernelExC(&config, (const void *)entry, argv);
}

/* The __global__ function that a kernel's GPU launches run; the launch
 * passes the arguments to it as written, so they convert as in a call
 * (NULL included).  Also for code that launches a kernel with <<<>>>
 * itself (duo-bench's raw launches):
 *   DUO_CUDA_ENTRY(saxpy)<<<grid, block>>>(n, a, x, y); */
template <auto F, class... P>
constexpr auto duo_cuda_entry_of_(void (*)(P...))
{
    return &duo_cuda_entry<F, P...>;
}
template <auto F, int THREADS, class... P>
constexpr auto duo_cuda_block_entry_of_(void (*)(P...))
{
    return &duo_cuda_block_entry<F, THREADS, P...>;
}
#define DUO_CUDA_ENTRY(kernel) duo_cuda_entry_of_<kernel>(kernel)

/* Launch geometry, from backend_cuda/launch.cu. */
dim3 duo_cuda_block_1d(void);
dim3 duo_cuda_block_2d(void);
dim3 duo_cuda_block_3d(void);
dim3 duo_cuda_grid_1d(size_t n);
dim3 duo_cuda_grid_2d(size_t ni, size_t nj);
dim3 duo_cuda_grid_3d(size_t ni, size_t nj, size_t nk);
cudaStream_t duo_cuda_stream(duo_stream stream);

/* ------------------------------------------------------------------ */
/* DUO_VALIDATE (kernel_validate.h): what each parameter type is, and the
 * checked launch. */

template <class T> constexpr int duo_vd_pointee_kind_()
{
    typedef typename std::remove_cv<T>::type U;
    if (std::is_same<U, float>::value) return DUO_VD_F32;
    if (std::is_same<U, double>::value) return DUO_VD_F64;
    if (std::is_integral<U>::value && sizeof(U) == 4)
        return std::is_signed<U>::value ? DUO_VD_I32 : DUO_VD_U32;
    if (std::is_integral<U>::value && sizeof(U) == 8)
        return std::is_signed<U>::value ? DUO_VD_I64 : DUO_VD_U64;
    if (std::is_void<U>::value || sizeof(U) == 1) return DUO_VD_BYTES;
    return DUO_VD_OPAQUE;
}

/* A struct (or union) parameter: passed by value, it may hold pointers. */
template <class P> constexpr bool duo_vd_is_struct_()
{
    return !std::is_pointer<P>::value && !std::is_arithmetic<P>::value &&
           !std::is_enum<P>::value && !std::is_same<P, duo_grid>::value;
}

/* p is the launch's own argument: a struct's bytes are read through its
 * address while the check runs. */
template <class P> duo_vd_arg duo_vd_describe_(const P &p)
{
    duo_vd_arg a = {NULL, DUO_VD_SCALAR, 0, NULL, 0};
    if constexpr (std::is_pointer<P>::value) {
        typedef typename std::remove_pointer<P>::type T;
        a.ptr = (const void *)p;
        a.kind = duo_vd_pointee_kind_<T>();
        a.is_const = std::is_const<T>::value;
    } else if constexpr (duo_vd_is_struct_<P>()) {
        a.kind = DUO_VD_OPAQUE;
        a.value = (const void *)&p;
        a.value_bytes = sizeof(P);
    }
    (void)p;
    return a;
}

/* A pointer argument moved onto its host shadow, and a struct's pointers
 * into the allocations the check holds; others as they are. */
template <class P> P duo_vd_on_shadow_(P p)
{
    if constexpr (std::is_pointer<P>::value) {
        return (P)duo_vd_shadow((const void *)p);
    } else {
        if constexpr (duo_vd_is_struct_<P>())
            duo_vd_shadow_words((void *)&p, sizeof p);
        return p;
    }
}

/* One launch under DUO_VALIDATE: on the GPU, the launch and then the
 * kernel on the host path over the shadows; on the host path, the kernel
 * with every thread and then with one, over the shadows of what it may
 * write.  `skip` parameters lead the
 * kernel's list without being the caller's arguments (a block kernel's
 * grid). */
template <class... P>
void duo_cuda_validated_(void (*kernel)(P...), void (*entry)(P...),
                         dim3 grid, dim3 block, duo_stream stream,
                         const char *name, const char *file, int line,
                         const char *names, int dims, size_t ni, size_t nj,
                         size_t nk, int skip,
                         typename duo_cuda_as_is_<P>::type... args)
{
    const duo_vd_arg desc[] = {duo_vd_describe_<P>(args)..., {}};
    const int gpu = !duo_host_path();
    if (!duo_vd_begin(name, file, line, names, dims, ni, nj, nk,
                      desc + skip, (int)sizeof...(P) - skip, gpu)) {
        if (gpu)
            duo_cuda_launch_(entry, grid, block, 0, duo_cuda_stream(stream),
                             args...);
        else
            kernel(args...);
        return;
    }
    if (gpu) {
        duo_cuda_launch_(entry, grid, block, 0, duo_cuda_stream(stream),
                         args...);
        kernel(duo_vd_on_shadow_<P>(args)...);
    } else {
        kernel(args...);
        duo_vd_rerun();
        kernel(duo_vd_on_shadow_<P>(args)...);
    }
    duo_vd_end();
}

/* Host path: call the kernel (work on a CPU stream runs at once). */
#define DUO_CUDA_LAUNCH_(stream, kernel, grid, block, dims, ni, nj, nk, ...)  \
    (duo_launch_begin(#kernel, stream, __FILE__, __LINE__)                  \
         ? ((duo_validating()                                               \
                 ? duo_cuda_validated_(kernel, DUO_CUDA_ENTRY(kernel),      \
                                       (grid), (block), stream, #kernel,    \
                                       __FILE__, __LINE__, #__VA_ARGS__,    \
                                       dims, ni, nj, nk, 0, __VA_ARGS__)    \
             : duo_host_path()                                              \
                 ? kernel(__VA_ARGS__)                                      \
                 : duo_cuda_launch_(DUO_CUDA_ENTRY(kernel), (grid),         \
                                    (block), 0, duo_cuda_stream(stream),    \
                                    __VA_ARGS__)),                          \
            duo_launch_end(#kernel, stream, __FILE__, __LINE__))            \
         : duo_launch_refused())

#define DUO_LAUNCH_ON(stream, kernel, n, ...)                        \
    DUO_CUDA_LAUNCH_(stream, kernel, duo_cuda_grid_1d(n),            \
                     duo_cuda_block_1d(), 1, n, 1, 1, __VA_ARGS__)
#define DUO_LAUNCH_2D_ON(stream, kernel, ni, nj, ...)                \
    DUO_CUDA_LAUNCH_(stream, kernel, duo_cuda_grid_2d(ni, nj),       \
                     duo_cuda_block_2d(), 2, ni, nj, 1, __VA_ARGS__)
#define DUO_LAUNCH_3D_ON(stream, kernel, ni, nj, nk, ...)            \
    DUO_CUDA_LAUNCH_(stream, kernel, duo_cuda_grid_3d(ni, nj, nk),   \
                     duo_cuda_block_3d(), 3, ni, nj, nk, __VA_ARGS__)

/* ------------------------------------------------------------------ */
/* Block-level kernels: a function of the grid (duo_grid_) and the
 * arguments; on the GPU a block of BX x BY threads, on the host a loop
 * over the blocks. */

#define DUO_BLOCK_KERNEL(name, BX, BY, ...)                                 \
    enum { name##_duo_block_x = (BX), name##_duo_block_y = (BY) };          \
    static __host__ __device__ void name(duo_grid duo_grid_, __VA_ARGS__)  \
    {                                                                       \
        DUO_BLOCKS_BEGIN_(BX, BY)
#define DUO_BLOCK_KERNEL_END \
        DUO_BLOCKS_END_      \
    }

/* Checked grid size for a block launch (0 blocks launch nothing, on
 * either path). */
dim3 duo_cuda_grid_blocks(size_t gx, size_t gy);

#define DUO_LAUNCH_BLOCKS_ON(stream, kernel, gx, gy, ...)                   \
    (((gx) == 0 || (gy) == 0)                                               \
         ? DUO_SUCCESS                                                      \
         : DUO_CUDA_LAUNCH_BLOCKS_(stream, kernel, gx, gy, __VA_ARGS__))
#define DUO_CUDA_BLOCK_ENTRY_(kernel)                                       \
    duo_cuda_block_entry_of_<kernel, kernel##_duo_block_x *                 \
                                         kernel##_duo_block_y>(kernel)
#define DUO_CUDA_LAUNCH_BLOCKS_(stream, kernel, gx, gy, ...)                \
    (duo_launch_begin(#kernel, stream, __FILE__, __LINE__)                  \
         ? ((duo_validating()                                               \
                 ? duo_cuda_validated_(                                     \
                       kernel, DUO_CUDA_BLOCK_ENTRY_(kernel),               \
                       duo_cuda_grid_blocks(gx, gy),                        \
                       dim3(kernel##_duo_block_x, kernel##_duo_block_y),    \
                       stream, #kernel, __FILE__, __LINE__, #__VA_ARGS__,   \
                       0, gx, gy, 1, 1, duo_grid_make(gx, gy), __VA_ARGS__) \
             : duo_host_path()                                              \
                 ? kernel(duo_grid_make(gx, gy), __VA_ARGS__)               \
                 : duo_cuda_launch_(                                        \
                       DUO_CUDA_BLOCK_ENTRY_(kernel),                       \
                       duo_cuda_grid_blocks(gx, gy),                        \
                       dim3(kernel##_duo_block_x, kernel##_duo_block_y), 0, \
                       duo_cuda_stream(stream), duo_grid_make(gx, gy),      \
                       __VA_ARGS__)),                                       \
            duo_launch_end(#kernel, stream, __FILE__, __LINE__))            \
         : duo_launch_refused())

/* ------------------------------------------------------------------ */
/* User reductions: on the GPU the kernel of duo/reduce_cuda.h, on the
 * host path the host order of kernel.h; both follow
 * <duo/reduce_order.h>, so both give duo_reduce's bits. */

/* The check after one launch: cudaGetLastError, and with
 * DUO_SYNC_LAUNCHES=1 a wait for the kernel to finish (launch.cu). */
duo_status duo_cuda_launch_check(const char *kernel, const char *file,
                                 int line);

#include <duo/reduce_cuda.h>

/* The combining rule of kernel.h for the host path, as functions: on a
 * variable of an integer type, DUO_COMBINE_*'s NaN test would draw g++'s
 * self-comparison warning outside a template. */
template <class T> static inline T duo_cuda_host_DUO_SUM(T a, T b)
{
    return DUO_COMBINE_DUO_SUM(a, b);
}
template <class T> static inline T duo_cuda_host_DUO_MIN(T a, T b)
{
    return DUO_COMBINE_DUO_MIN(a, b);
}
template <class T> static inline T duo_cuda_host_DUO_MAX(T a, T b)
{
    return DUO_COMBINE_DUO_MAX(a, b);
}

#define DUO_REDUCE_DEFINE(name, T, op, fn, Args)                             \
    typedef duo_order::user_op<op, T>::type name##_duo_op;                   \
    static inline __host__ __device__ T name##_duo_element(size_t i,         \
                                                           Args args)        \
    {                                                                        \
        return (T)(fn(i, args));                                             \
    }                                                                        \
    DUO_HOST_REDUCE_DEFINE_(name, T, name##_duo_op::acc,                     \
                            duo_cuda_host_##op, name##_duo_op::identity(),   \
                            name##_duo_element, Args)                        \
    static duo_status name##_duo_run(size_t n, Args args, T *result)         \
    {                                                                        \
        if (duo_host_path())                                                 \
            return name##_duo_host(n, args, result);                         \
        return duo_cuda_user_reduce<name##_duo_op, T, Args,                  \
                                    name##_duo_element>(                     \
            n, args, result, #name, __FILE__, __LINE__);                     \
    }                                                                        \
    DUO_VD_USER_REDUCE_(name, T, Args, name##_duo_run, name##_duo_host,      \
                        duo_vd_pointee_kind_<T>())

#endif /* DUO_KERNEL_CUDA_H */
