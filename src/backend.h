/*
 * backend.h - what each backend (backend_cpu/, backend_cuda/) implements.
 *
 * The public functions in src/ check their arguments and the runtime state
 * once, for every backend, then call these.  A backend function may assume
 * valid arguments; it reports its own failures through duo_fail().
 *
 * The library's layers, bottom to top.  A module calls only modules of
 * the layers below its own (and of its own layer, where a layer is a
 * group), never one above; tests/check_layers.py checks this on the
 * object files (ctest -R layers).
 *
 *   1. error.c       status names, the last error, duo_fail_at, the
 *                    failure watch.  Calls nothing of duo.
 *      dtype.c       duo_dtype_size.  Calls nothing of duo.
 *      cpu_required.c  what the build needs of the CPU.  Calls nothing.
 *   2. cpu_check.c   duo_init's check of the CPU.  Calls error.
 *      capture.c     graph capture state and refusals.  Calls error.
 *      registry.c    the live allocations of duo_malloc and
 *                    duo_malloc_host.  Calls error.
 *   3. init_state.c  whether duo_init succeeded, DUO_DEVICE, the backend
 *                    reason; duo_require_init, duo_require_sync_call.
 *                    Calls capture, error.
 *   4. the backend   backend_cpu/, backend_cuda/ (but dist.cu) and, in a
 *                    CUDA build, src/dispatch/: the duo_be_* below.
 *                    Calls init_state, capture, error.
 *   5. shared checks validate*.c (DUO_VALIDATE) and prim_check.c (the
 *                    primitives' argument checks), used by the calls.
 *                    Calls layers 1-4 and each other.
 *   6. profile.c     the built-in profiler.  Calls layers 1-5.
 *   7. the calls     graph.c, memory.c, timer.c, reduce.c, segmented.c,
 *                    gemm.c, sort.c, select.c, histogram.c, scan.c: the
 *                    public functions of their names.  Calls layers 1-6, not
 *                    each other.
 *   8. runtime.c     duo_init, duo_finalize, duo_synchronize, device
 *                    info and the launch hooks of the kernel macros:
 *                    sets what init_state.c holds, starts and finishes
 *                    the profiler, validation and the backend, reports
 *                    leaks.  Calls layers 1-7.
 *   9. on top        check.c (duo/check.h) and distributed/ (and
 *                    backend_cuda/dist.cu): call any of the above.
 */
#ifndef DUO_BACKEND_H
#define DUO_BACKEND_H

#include <stdint.h>

#include <duo.h>

#include "gemm_order.h"
#include "init_state.h"

/* The CUDA build compiles both backend folders into one library, each
 * with its own prefix (backend_rename.h); see src/dispatch/dispatch.h. */
#if defined(DUO_BE_PREFIX)
#include "backend_rename.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* CUDA build: 1 when duo_init chose the host path (dispatch/runtime.c). */
int duo_host_path(void);

const char *duo_be_name(void);
duo_status duo_be_init(void);
duo_status duo_be_finalize(void);
duo_status duo_be_device_info(duo_device_info *info);
duo_status duo_be_synchronize(void);

duo_status duo_be_malloc(void **ptr, size_t bytes);
duo_status duo_be_free(void *ptr);
duo_status duo_be_malloc_host(void **ptr, size_t bytes);
duo_status duo_be_free_host(void *ptr);
duo_status duo_be_memcpy(void *dst, const void *src, size_t bytes,
                         duo_copy_kind kind);
duo_status duo_be_memcpy_async(void *dst, const void *src, size_t bytes,
                               duo_copy_kind kind, duo_stream stream);
duo_status duo_be_memset(void *dst, int value, size_t bytes);
/* 1 when p, taken as an address, lies in memory of the device (or
 * managed memory), wherever it was allocated; 0 on the CPU backends,
 * which have none.  DUO_VALIDATE asks it of the words of a struct before
 * a host run may read the struct (validate_launch.c). */
int duo_be_is_device_address(const void *p);

duo_status duo_be_stream_create(duo_stream *stream);
duo_status duo_be_stream_destroy(duo_stream stream);
duo_status duo_be_stream_synchronize(duo_stream stream);

/* After a kernel launch on `stream`: did it launch (and, when launches
 * are made synchronous for debugging, run)?  The CUDA backend also notes
 * the launch, so that the error after a fault, which a later call sees,
 * can name it. */
duo_status duo_be_launch_check(const char *kernel, duo_stream stream,
                               const char *file, int line);

/* Named ranges for external profilers (NVTX on CUDA; no-ops on CPU). */
void duo_be_range_push(const char *name);
void duo_be_range_pop(void);

/* Device activity tracing, the profiler's source of device times where
 * the backend has one (CUPTI on CUDA): timestamps the driver takes
 * around each kernel, copy and memset, at a fraction of the cost of a
 * timer pair per operation.  The CPU backend has none: its work is done
 * when a call returns, so the host clock times it.
 *
 * trace_start returns 1 when tracing is on, 0 when the backend has none
 * or it could not be started (after saying why on stderr).  Device work
 * queued between trace_push(call) and trace_pop() is attributed to
 * `call`.  trace_drain waits for the device and hands `sink` one span per
 * traced activity, in nanoseconds of one device clock, and counts in
 * *lost the records the trace had to drop. */
typedef void (*duo_trace_sink)(uint64_t call, uint64_t start_ns,
                               uint64_t end_ns);
int duo_be_trace_start(void);
void duo_be_trace_stop(void);
void duo_be_trace_push(uint64_t call);
void duo_be_trace_pop(void);
duo_status duo_be_trace_drain(duo_trace_sink sink, unsigned long *lost);

duo_status duo_be_timer_create(duo_timer *timer);
duo_status duo_be_timer_destroy(duo_timer timer);
duo_status duo_be_timer_record(duo_timer timer, int stop, duo_stream stream);
/* Fails with DUO_ERROR_INVALID_ARGUMENT if start or stop was not
 * recorded. */
duo_status duo_be_timer_elapsed_ms(duo_timer timer, double *ms);

/* n > 0 for every op but DUO_SUM; result as documented in duo.h. */
duo_status duo_be_reduce(duo_reduce_op op, duo_dtype type, const void *x,
                         size_t n, void *result);
/* n > 0; value may be NULL. */
duo_status duo_be_reduce_arg(duo_reduce_op op, duo_dtype type,
                             const void *x, size_t n, size_t *index,
                             void *value);

/* Stream-ordered forms: result in device memory.  n may be 0 for sums;
 * 1 <= count <= DUO_DOT_MAX; type DUO_F32 or DUO_F64. */
duo_status duo_be_reduce_async(duo_reduce_op op, duo_dtype type,
                               const void *x, size_t n, void *result,
                               duo_stream stream);
duo_status duo_be_dot_async(duo_dtype type, size_t n, int count,
                            const void *const *x, const void *const *y,
                            double *result, duo_stream stream);

/* Segmented reductions, nseg > 0 (src/segmented.c).  Segment s is
 * x[offsets[s] .. offsets[s + 1]) or, when offsets is NULL,
 * x[s * seg_len .. (s + 1) * seg_len); offsets (device memory) are not
 * yet checked: a bad one fails the call, or on the GPU the next wait
 * (duo.h), with nothing written.  index NULL: result[s] as
 * duo_reduce_async writes it; else (op DUO_MIN or DUO_MAX) index[s] and,
 * when result is not NULL, result[s] as duo_reduce_arg writes them.  An
 * empty segment gives the identity and index SIZE_MAX. */
duo_status duo_be_segmented_reduce(duo_reduce_op op, duo_dtype type,
                                   const void *x, size_t n,
                                   const size_t *offsets, size_t seg_len,
                                   size_t nseg, void *result, size_t *index,
                                   duo_stream stream);

/* Sort (src/sort.c checked the arguments; n > 0).  value_size 0: keys
 * only; permutation: values_in is NULL and values_out receives the
 * permutation as uint64_t (value_size 8). */
duo_status duo_be_sort(duo_key_type type, duo_sort_order order, size_t n,
                       const void *keys_in, void *keys_out,
                       const void *values_in, void *values_out,
                       size_t value_size, int permutation,
                       duo_stream stream);

/* Scan (src/scan.c; n > 0), in the order of src/scan_order.h. */
duo_status duo_be_scan(duo_scan_kind kind, duo_reduce_op op, duo_dtype type,
                       const void *x, void *y, size_t n, duo_stream stream);

/* Compaction (src/select.c; n > 0, elem_size 4 or 8): the count to
 * device memory (count_device) or, when that is NULL, to the host
 * variable *count_host after waiting. */
duo_status duo_be_compact(size_t elem_size, size_t n, const void *in,
                          const uint8_t *flags, void *out,
                          uint64_t *count_device, size_t *count_host,
                          duo_stream stream);

/* Histogram (src/histogram.c; n >= 0, bins >= 1): counts overwritten,
 * scale = bins / (hi - lo), as duo/primitives.h says. */
duo_status duo_be_histogram(duo_dtype type, size_t n, const void *x,
                            double lo, double hi, double scale,
                            size_t bins, uint64_t *counts,
                            duo_stream stream);

/* The distributed layer's chunks (src/distributed/dist_reduce.c): count
 * >= 1 segments of len >= 1 elements, segment s at element s len of x,
 * each reduced exactly as duo_be_reduce reduces it alone, queued on
 * `stream`.  The results go to words[s] (device or pinned host memory) as
 * 64-bit words, the value in the low bytes and zero above.  scratch:
 * device memory of duo_be_reduce_segments_scratch(type, len, count) bytes
 * (NULL for 0), not shared with work that may run at the same time. */
duo_status duo_be_reduce_segments(duo_reduce_op op, duo_dtype type,
                                  const void *x, size_t len, size_t count,
                                  uint64_t *words, void *scratch,
                                  duo_stream stream);
size_t duo_be_reduce_segments_scratch(duo_dtype type, size_t len,
                                      size_t count);

/* ------------------------------------------------------------------ */
/* Graphs (src/graph.c; the capture state and its refusals are
 * capture.c's). */

/* CUDA: work queued during a capture is recorded by the driver (1); CPU:
 * the body is called again on each replay, so nothing is queued (0). */
int duo_be_capture_queues_work(void);
duo_status duo_be_graph_begin(duo_stream stream);
/* Close the capture; with keep, hand back the replayable graph in *graph
 * (NULL where replays call the body again), else discard it. */
duo_status duo_be_graph_end(duo_stream stream, int keep, void **graph);
duo_status duo_be_graph_launch(void *graph, duo_stream stream);
duo_status duo_be_graph_destroy(void *graph);

/* m, n > 0; k == 0 or alpha == 0 mean C = beta * C. */
/* The order of the sums is gemm_order.h's, one rule for every backend.
 * DUO_GEMM_KBLOCK_F32: the name CUDA's split-K uses for the f32 k
 * block. */
#define DUO_GEMM_KBLOCK_F32 DUO_GEMM_ORDER_KBLOCK_F32
duo_status duo_be_gemm_f32(duo_transpose ta, duo_transpose tb, size_t m,
                           size_t n, size_t k, float alpha, const float *a,
                           size_t lda, const float *b, size_t ldb,
                           float beta, float *c, size_t ldc);
duo_status duo_be_gemm_f64(duo_transpose ta, duo_transpose tb, size_t m,
                           size_t n, size_t k, double alpha,
                           const double *a, size_t lda, const double *b,
                           size_t ldb, double beta, double *c, size_t ldc);

#ifdef __cplusplus
}
#endif

#endif /* DUO_BACKEND_H */
