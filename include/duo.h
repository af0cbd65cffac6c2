/*
 * duo.h - one C API for code that must run on NVIDIA GPUs and on CPUs.
 *
 * The same application source is built against one of three backends,
 * chosen at build time: cuda, openmp or serial.  Every function returns a
 * duo_status; on failure duo_last_error() says what failed, where, and what
 * to do about it.  Functions that fail because of a bad argument write
 * nothing to their outputs.
 *
 * "Device memory" is memory from duo_malloc(): GPU memory in a CUDA build,
 * ordinary host memory in a CPU build.  Code that treats it as device
 * memory (copies with duo_memcpy, touches it only in kernels) runs
 * unchanged on every backend.
 *
 * Kernel-writing macros (DUO_KERNEL, DUO_FOR, DUO_LAUNCH, ...) are in
 * <duo/kernel.h>, included below.
 *
 * This header is C11 and also compiles as CUDA C++.
 */
#ifndef DUO_H
#define DUO_H

#include <stddef.h>
#include <stdint.h>

#include <duo/version.h>

#ifdef __cplusplus
#define DUO_EXTERN_C extern "C"
extern "C" {
#else
#define DUO_EXTERN_C
#endif

/* ------------------------------------------------------------------ */
/* Status and errors                                                   */

typedef enum duo_status {
    DUO_SUCCESS = 0,
    DUO_ERROR_INVALID_ARGUMENT, /* bad argument; nothing was written    */
    DUO_ERROR_OUT_OF_MEMORY,    /* device or host allocation failed     */
    DUO_ERROR_NO_DEVICE,        /* CUDA build, but no usable GPU        */
    DUO_ERROR_NOT_INITIALIZED,  /* duo_init() was not called (or failed) */
    DUO_ERROR_LAUNCH,           /* a kernel failed to launch or to run  */
    DUO_ERROR_BACKEND,          /* any other CUDA or library failure    */
    DUO_ERROR_NOT_CAPTURABLE    /* not allowed while a graph is being
                                   captured (a host wait, another stream) */
} duo_status;

/* Short fixed name of a status, e.g. "invalid argument". */
const char *duo_status_string(duo_status status);

/* Message of the most recent failure in this thread: the caller's
 * file:line (duo/call_site.h), what failed, where in duo (file:line and
 * function or kernel), and what to do.  "" when none. */
const char *duo_last_error(void);

/* For simple programs: on failure print duo_last_error() to stderr and
 * exit(1). */
#define DUO_CHECK(call)                                                    \
    do {                                                                   \
        duo_status duo_check_status_ = (call);                            \
        if (duo_check_status_ != DUO_SUCCESS)                              \
            duo_check_failed(duo_check_status_, #call, __FILE__, __LINE__); \
    } while (0)

#if defined(__cplusplus)
#define DUO_NORETURN [[noreturn]]
#else
#define DUO_NORETURN _Noreturn
#endif
DUO_NORETURN void duo_check_failed(duo_status status, const char *call,
                                   const char *file, int line);

/* ------------------------------------------------------------------ */
/* Runtime                                                             */

/* Start the backend.  Calling duo_init() again after success is a no-op.
 *
 * A CUDA build carries two paths: the GPU, and the host path, which is
 * the OpenMP backend compiled into the same library (every kernel is
 * compiled for both).  The environment variable DUO_DEVICE chooses:
 *   auto (or unset)  the GPU where one is usable, else the host path;
 *   gpu              the GPU; with no usable GPU duo_init fails with
 *                    DUO_ERROR_NO_DEVICE and a message naming the other
 *                    choices;
 *   cpu              the host path.
 * The host path gives the same bits as the openmp build.  Serial and
 * OpenMP builds have the host path only (DUO_DEVICE=gpu fails there).
 * The choice holds until duo_finalize(). */
duo_status duo_init(void);
duo_status duo_finalize(void);

/* "cuda" (a CUDA build on the GPU), "cuda-host-fallback" (a CUDA build on
 * the host path), "openmp" or "serial". */
const char *duo_backend_name(void);
/* After duo_init(): which path runs and why, in a line for people, e.g.
 * "GPU NVIDIA H100 80GB HBM3 (DUO_DEVICE=auto)" or "host path, 16 OpenMP
 * thread(s): no usable GPU (...; DUO_DEVICE=auto)". */
const char *duo_backend_reason(void);

typedef struct duo_device_info {
    char name[256];          /* GPU or CPU model name                   */
    size_t total_memory;     /* bytes (host RAM on CPU backends)        */
    size_t free_memory;      /* bytes, at the time of the call          */
    int multiprocessors;     /* GPU SMs; CPU backends: 0                */
    int compute_major;       /* compute capability; CPU backends: 0     */
    int compute_minor;
    int cpu_threads;         /* threads the CPU backend uses (openmp:
                                OMP_NUM_THREADS or all cores; serial: 1) */
} duo_device_info;

duo_status duo_device_info_get(duo_device_info *info);

/* Wait until all work on the device (every stream) is finished. */
duo_status duo_synchronize(void);

/* ------------------------------------------------------------------ */
/* Memory                                                              */

/* duo keeps a registry of its live allocations, so that:
 *  - duo_free and duo_free_host free only what duo_malloc and
 *    duo_malloc_host returned and have not freed yet: any other pointer
 *    (a stack or heap pointer, one inside an allocation, one freed
 *    already, one of the other kind) fails with
 *    DUO_ERROR_INVALID_ARGUMENT and a message that names it and says
 *    which it is, and nothing is freed;
 *  - duo_memcpy, duo_memcpy_async and duo_memset refuse, the same way
 *    and writing nothing, a range that overlaps an allocation without
 *    lying wholly inside it (one that runs past its end, or into it from
 *    below).  Ranges wholly outside every allocation (the caller's own
 *    buffers) are passed on as before;
 *  - duo_finalize writes to stderr how many allocations, and bytes, are
 *    still live; with DUO_LEAKS=1 (any value but 0 or empty) one line
 *    each, with the file:line that allocated it.  They stay allocated
 *    (and registered) after duo_finalize.
 * duo_malloc and duo_malloc_host are macros that pass the caller's
 * file:line to the _at functions; the functions of the same names (to
 * take their address, or from other languages) record no file:line. */
duo_status duo_malloc_at(void **ptr, size_t bytes, const char *file,
                         int line);
duo_status duo_malloc_host_at(void **ptr, size_t bytes, const char *file,
                              int line);
duo_status (duo_malloc)(void **ptr, size_t bytes);      /* device memory */
duo_status (duo_malloc_host)(void **ptr, size_t bytes); /* pinned host   */
#define duo_malloc(ptr, bytes) duo_malloc_at(ptr, bytes, __FILE__, __LINE__)
#define duo_malloc_host(ptr, bytes) \
    duo_malloc_host_at(ptr, bytes, __FILE__, __LINE__)
duo_status duo_free(void *ptr);                         /* NULL: a no-op */
duo_status duo_free_host(void *ptr);                    /* NULL: a no-op */

/* Allocations not yet freed, and their bytes (as requested).  Callable
 * at any time, before duo_init and after duo_finalize too. */
typedef struct duo_memory_usage {
    size_t device_allocations, device_bytes; /* duo_malloc      */
    size_t host_allocations, host_bytes;     /* duo_malloc_host */
} duo_memory_usage;
duo_status duo_memory_usage_get(duo_memory_usage *usage);

typedef enum duo_copy_kind {
    DUO_HOST_TO_DEVICE,
    DUO_DEVICE_TO_HOST,
    DUO_DEVICE_TO_DEVICE,
    DUO_HOST_TO_HOST
} duo_copy_kind;

/* Blocking copy; source and destination must not overlap. */
duo_status duo_memcpy(void *dst, const void *src, size_t bytes,
                      duo_copy_kind kind);

/* Set `bytes` bytes of device memory to (unsigned char)value. */
duo_status duo_memset(void *dst, int value, size_t bytes);

/* ------------------------------------------------------------------ */
/* Streams: ordered queues of copies and launches.  NULL is the default
 * stream.  On CPU backends work on a stream runs at once, in order. */

typedef struct duo_stream_opaque *duo_stream;

duo_status duo_stream_create(duo_stream *stream);
duo_status duo_stream_destroy(duo_stream stream);     /* NULL is a no-op */
duo_status duo_stream_synchronize(duo_stream stream);

/* For DUO_HOST_TO_DEVICE / DUO_DEVICE_TO_HOST the host side should be
 * pinned (duo_malloc_host) for the copy to overlap other work. */
duo_status duo_memcpy_async(void *dst, const void *src, size_t bytes,
                            duo_copy_kind kind, duo_stream stream);

/* ------------------------------------------------------------------ */
/* Timers: elapsed time of device work between two points on a stream
 * (CUDA events on the GPU, a monotonic clock on the CPU), so a program
 * times GPU work correctly without knowing which backend it runs on. */

typedef struct duo_timer_opaque *duo_timer;

duo_status duo_timer_create(duo_timer *timer);
duo_status duo_timer_destroy(duo_timer timer);        /* NULL is a no-op */
duo_status duo_timer_start(duo_timer timer, duo_stream stream);
duo_status duo_timer_stop(duo_timer timer, duo_stream stream);
/* Waits for the stop point, then gives start-to-stop in milliseconds. */
duo_status duo_timer_elapsed_ms(duo_timer timer, double *ms);

/* ------------------------------------------------------------------ */
/* Reduce                                                              */

typedef enum duo_dtype {
    DUO_F32, /* float    */
    DUO_F64, /* double   */
    DUO_I32, /* int32_t  */
    DUO_I64, /* int64_t  */
    DUO_U64  /* uint64_t */
} duo_dtype;

typedef enum duo_reduce_op { DUO_SUM, DUO_MIN, DUO_MAX } duo_reduce_op;

/* Size in bytes of one element of `type`; 0 for an unknown type. */
size_t duo_dtype_size(duo_dtype type);

/*
 * Reduce n elements of device array x to one value, written to the host
 * variable *result, whose type depends on the operation:
 *
 *   DUO_SUM  f32, f64 -> double   (f32 elements are accumulated in double)
 *            i32, i64 -> int64_t  (two's-complement, wraps modulo 2^64)
 *            u64      -> uint64_t (wraps modulo 2^64)
 *   DUO_MIN, DUO_MAX  -> the element type
 *
 * Order and determinism: floating-point sums are added in one fixed order
 * that depends only on n (not on the backend, thread count or GPU), so
 * every backend returns the same bits for the same input.  Min and max
 * propagate NaN: if any element is NaN the result is NaN.
 *
 * The sum of n = 0 elements is 0; min and max need n > 0.
 */
duo_status duo_reduce(duo_reduce_op op, duo_dtype type, const void *x,
                      size_t n, void *result);

/*
 * Stream-ordered reduce: the same reduction as duo_reduce, with the same
 * result type and the same bits, written to *device* memory (`result`
 * from duo_malloc) when the work queued before it on `stream` is done.
 * The host does not wait, so a solver can keep its scalars on the device:
 * a kernel launched after it on the same stream reads the value through
 * an ordinary pointer argument (alpha = *rr / *pq inside the kernel).
 * CPU backends compute it at once.  May be captured into a duo_graph.
 */
duo_status duo_reduce_async(duo_reduce_op op, duo_dtype type, const void *x,
                            size_t n, void *result, duo_stream stream);

/* Most dot products one duo_dot_async call computes in its one pass. */
#define DUO_DOT_MAX 4

/*
 * Fused dot products: result[k] = sum_i x[k][i] * y[k][i] for
 * k = 0 .. count-1 (1 <= count <= DUO_DOT_MAX), all over n elements of
 * `type` (DUO_F32 or DUO_F64), in one pass over the inputs, stream-
 * ordered into device memory (`result`: count doubles), as
 * duo_reduce_async.  x and y are host arrays of `count` device pointers;
 * the same array may appear more than once (x[k] == y[k] gives a squared
 * norm).
 *
 * Bits: the products are added in duo_reduce's fixed order for n
 * elements of `type`.  For DUO_F64 each product is rounded to double
 * first (never fused into the sum), so result[k] has exactly the bits of
 * duo_reduce(DUO_SUM, DUO_F64, w) with w[i] = x[k][i] * y[k][i].  For
 * DUO_F32 the products are formed exactly in double.  Every backend
 * returns the same bits.
 */
duo_status duo_dot_async(duo_dtype type, size_t n, int count,
                         const void *const *x, const void *const *y,
                         double *result, duo_stream stream);

/* Index of the smallest (DUO_MIN) or largest (DUO_MAX) element; the first
 * one on ties; the first NaN if there is one.  n > 0.  If value is not
 * NULL, the element itself is written there (element type). */
duo_status duo_reduce_arg(duo_reduce_op op, duo_dtype type, const void *x,
                          size_t n, size_t *index, void *value);

/*
 * Segmented reductions: one reduction per segment of x, for nseg
 * segments in one call, stream-ordered into device memory as
 * duo_reduce_async (the host does not wait; CPU backends compute at
 * once; may be captured into a duo_graph).
 *
 * Segments: segment s is x[offsets[s] .. offsets[s+1]), where offsets
 * holds nseg + 1 size_t in device memory, non-decreasing, with
 * offsets[nseg] <= n (n: the elements of x); or, for the _equal forms,
 * x[s * seg_len .. (s+1) * seg_len).  Segments may be empty, and need
 * not cover x.
 *
 * duo_segmented_reduce writes result[s] (device memory, nseg values of
 * duo_reduce's result type for (op, type): double for f32 and f64 sums,
 * int64_t for i32 and i64 sums, uint64_t for u64 sums, the element type
 * for DUO_MIN and DUO_MAX).  duo_segmented_reduce_arg (DUO_MIN or
 * DUO_MAX) writes index[s], the index within segment s of its smallest
 * or largest element as duo_reduce_arg picks it, and, when value is not
 * NULL, value[s], that element.
 *
 * Bits: each segment is combined in duo_reduce's fixed order for its
 * length, so result[s] has the bits of duo_reduce (index[s] and value[s]
 * those of duo_reduce_arg) over that segment alone, on every backend.
 * An empty segment gives 0 for a sum, the largest value of the type
 * (+inf for floating point) for DUO_MIN, the smallest (-inf) for DUO_MAX,
 * and index SIZE_MAX.
 *
 * Bad arguments -- an unknown op or type, NULL x (with elements), NULL
 * offsets, result or index (with segments), sizes that overflow, outputs
 * not aligned to their type -- return DUO_ERROR_INVALID_ARGUMENT naming
 * the argument, and nothing is queued.  Offsets that decrease or run past
 * n are refused too, and no result is written; as the offsets are in
 * device memory, the GPU checks them in a pass of its own (before any
 * result is written; it overlaps the reduction where kernels are
 * launched early), after this call has returned: the error is then
 * returned by the next duo call that waits for the GPU --
 * duo_synchronize, duo_stream_synchronize, duo_memcpy, or one that
 * returns a value to the host (duo_reduce, duo_reduce_arg, user
 * reductions) -- after that call has done its own work, with a message
 * naming duo_segmented_reduce and the offset.  CPU backends check the
 * offsets before they write and return the error from the call itself.
 * The _equal forms have no offsets to check.
 */
duo_status duo_segmented_reduce(duo_reduce_op op, duo_dtype type,
                                const void *x, size_t n,
                                const size_t *offsets, size_t nseg,
                                void *result, duo_stream stream);
duo_status duo_segmented_reduce_equal(duo_reduce_op op, duo_dtype type,
                                      const void *x, size_t seg_len,
                                      size_t nseg, void *result,
                                      duo_stream stream);
duo_status duo_segmented_reduce_arg(duo_reduce_op op, duo_dtype type,
                                    const void *x, size_t n,
                                    const size_t *offsets, size_t nseg,
                                    size_t *index, void *value,
                                    duo_stream stream);
duo_status duo_segmented_reduce_arg_equal(duo_reduce_op op, duo_dtype type,
                                          const void *x, size_t seg_len,
                                          size_t nseg, size_t *index,
                                          void *value, duo_stream stream);

/* ------------------------------------------------------------------ */
/* Graphs: record a sequence of launches, async copies and async
 * reductions once and replay it many times (CUDA Graphs on the GPU,
 * where a replay costs one launch; on the CPU a replay calls the body
 * again).
 *
 * duo_graph_capture calls body(ctx) once, recording instead of running
 * the work it queues on `stream` (NULL: the default stream); nothing
 * runs and no output is written until duo_graph_launch.  The body may
 * use, on that stream only: DUO_LAUNCH*_ON(stream, ...) (DUO_LAUNCH* when
 * `stream` is NULL), duo_memcpy_async, duo_reduce_async, duo_dot_async
 * and the segmented reductions.  Anything that waits for the device or
 * returns a value to the host (duo_synchronize, duo_memcpy, duo_memset,
 * duo_reduce, duo_gemm_*, user reductions, timers, allocation) or that
 * names another stream fails with DUO_ERROR_NOT_CAPTURABLE, as does a
 * capture inside a capture; the capture then fails with the first such
 * status, or with the body's own non-success return, and *graph is
 * untouched.
 *
 * Replays use the arguments as they were at capture: pointers and sizes
 * are fixed, so values that change from one replay to the next (a
 * step length, a residual) belong in device memory, written by kernels
 * or async reductions.  The body must therefore queue the same work
 * whenever it is called (the CPU calls it on every replay), and should
 * do nothing but queue work.
 *
 * The body is typically a batch of solver iterations; a device flag
 * that kernels test lets iterations past convergence do nothing, so the
 * host checks only after each replay.  Replays of one graph run one
 * after another even on different streams.
 */

typedef struct duo_graph_opaque *duo_graph;
typedef duo_status (*duo_graph_body)(void *ctx);

duo_status duo_graph_capture(duo_stream stream, duo_graph_body body,
                             void *ctx, duo_graph *graph);
/* Queue one replay on `stream` (NULL: the default stream). */
duo_status duo_graph_launch(duo_graph graph, duo_stream stream);
duo_status duo_graph_destroy(duo_graph graph);    /* NULL is a no-op */

/* ------------------------------------------------------------------ */
/* Matrix multiply: C = alpha * op(A) * op(B) + beta * C, row-major.
 *
 * op(A) is M x K, op(B) is K x N, C is M x N; all device memory.
 * With DUO_NO_TRANS A is stored M x K (lda >= K); with DUO_TRANS it is
 * stored K x M (lda >= M).  Likewise B: K x N (ldb >= N) or N x K
 * (ldb >= K).  ldc >= N.  When beta is 0, C is not read (NaN in C does not
 * propagate); when alpha is 0 or K is 0, A and B are not read.
 * Arithmetic is strict IEEE single or double precision (no TF32).
 *
 * Order: each element is acc = 0, acc = fma(op(A)(i,p), op(B)(p,j), acc)
 * for p = 0..K-1 in order, then C = alpha * acc (rounded) when beta is 0,
 * else fma(beta, C, alpha * acc).  A small C with a long k takes the
 * "blocked" order instead: f32 when M * N <= 2^19 and K > 3 * 384 = 1152
 * (at least 4 k blocks of 384, the last possibly partial), f64 when
 * M * N <= 2^19 and K > 2048 (k blocks of 2048, the last possibly
 * partial).  Block j is a chain of its own from 0, giving P_j = alpha *
 * acc_j (rounded); C = P_0 (beta 0) or fma(beta, C, P_0), then C = C +
 * P_j for j = 1, 2, ... in order.  The order depends on M, N and K only,
 * never on the machine, the thread count or the tile shape, so the CPU
 * backends (built with FMA instructions: x86-64-v3, the default, or
 * aarch64) and CUDA give the same bits for every shape, f32 and f64
 * (sign of a zero result aside).  CUDA splits blocked products over k
 * (too few tiles of C to fill the GPU) and sums f64 in this order on the
 * FP64 tensor cores of compute capability 9.x GPUs (whose steps are fma
 * chains), on the FP64 units of others; DUO_GEMM_F64=fma or =tensor
 * forces one (tensor cores on other GPUs: bits not promised).
 * The CPU backends cut k into cache blocks and carry each chain across
 * them: in C when it is one chain with beta 0, else in a workspace of at
 * most min(M, 1920 T) x N floats or min(M, 1536 T) x N doubles for T
 * threads (rounded up to whole tiles; blocked f64: about M * N),
 * allocated with their packing buffers; up to 64 MiB of these are kept
 * for the next product until duo_finalize.  DUO_GEMM_TILE (CUDA; e.g.
 * "64x64", "auto") forces a tile shape, for tuning, and never changes
 * the bits; an unknown shape is refused.
 * CUDA f32 with B stored transposed, M and K >= 2048, A and lda 16-byte
 * aligned and no split over k first copies B, transposed, into a device
 * workspace (K x N rounded up to 32 floats, at most 256 MiB: 8192 x
 * 8192; kept for the next products), then multiplies the copy: faster,
 * same bits (with no device memory left for the copy, it multiplies B
 * as stored).  DUO_GEMM_PACK (CUDA) = "0" never does so, "1" does so
 * whatever M and K, "auto" (or unset) as above; other values are
 * refused. */

typedef enum duo_transpose { DUO_NO_TRANS, DUO_TRANS } duo_transpose;

duo_status duo_gemm_f32(duo_transpose trans_a, duo_transpose trans_b,
                        size_t m, size_t n, size_t k, float alpha,
                        const float *a, size_t lda, const float *b,
                        size_t ldb, float beta, float *c, size_t ldc);

duo_status duo_gemm_f64(duo_transpose trans_a, duo_transpose trans_b,
                        size_t m, size_t n, size_t k, double alpha,
                        const double *a, size_t lda, const double *b,
                        size_t ldb, double beta, double *c, size_t ldc);

/* ------------------------------------------------------------------ */
/* Profiler: every duo operation is a named region -- each kernel (by
 * name), "duo_reduce sum f32" (op and type), "duo_gemm_f32",
 * "duo_memcpy H2D" (each direction), "duo_memset", "duo_synchronize" --
 * plus user regions.
 * On the GPU, device operations are timed where they run, from the
 * driver's timestamps of each kernel, copy and memset (CUPTI's activity
 * trace, loaded when profiling starts): an operation's time is the span
 * from its first device activity's start to its last one's end.  With
 * DUO_PROFILE_TIMING=events, or where CUPTI cannot be used (another
 * tool holds it), a pair of CUDA events per operation times it instead,
 * at about 3 us more per operation and with the host's time to queue it
 * included.  User regions are timed with CUDA events, waits
 * (synchronize) and all CPU work with the host clock.  The same names
 * and format on every backend, so two builds' reports join on the region
 * name.
 *
 * Off by default.  DUO_PROFILE=summary|csv|json turns it on at duo_init
 * (DUO_PROFILE_FILE=path to write there instead of stderr), and the
 * report is written at duo_finalize or program exit.  DUO_PROFILE=nvtx
 * only emits NVTX ranges (CUDA builds emit them in every mode), for
 * Nsight Systems. */

typedef enum duo_profile_mode {
    DUO_PROFILE_OFF,
    DUO_PROFILE_SUMMARY, /* table sorted by total time */
    DUO_PROFILE_CSV,
    DUO_PROFILE_JSON,
    DUO_PROFILE_NVTX     /* NVTX ranges only, no report */
} duo_profile_mode;

/* Start (or switch) profiling; path NULL writes the report to stderr.
 * Regions recorded so far are kept. */
duo_status duo_profile_start(duo_profile_mode mode, const char *path);
/* Write the report now (waits for timed device work). */
duo_status duo_profile_report(void);
/* Forget every recorded region. */
duo_status duo_profile_reset(void);

/* User regions nest; duo_region_end must name the innermost open one. */
duo_status duo_region_begin(const char *name);
duo_status duo_region_end(const char *name);

typedef struct duo_profile_region {
    char name[64];
    char kind[16];     /* kernel, reduce, gemm, memcpy, memset, sync,
                          region */
    uint64_t calls;
    double total_ms, min_ms, max_ms;
    double bytes;      /* moved, where known; 0 otherwise */
    double flops;      /* where known; 0 otherwise */
} duo_profile_region;

/* Statistics of one region by name (waits for timed device work);
 * DUO_ERROR_INVALID_ARGUMENT if it was never recorded. */
duo_status duo_profile_get(const char *name, duo_profile_region *out);

#ifdef __cplusplus
} /* extern "C" */
#endif

/* Sort, scan, compaction, histogram. */
#include <duo/primitives.h>
#include <duo/kernel.h>
/* Calls that note the caller's file:line for error messages. */
#include <duo/call_site.h>

#endif /* DUO_H */
