/*
 * backend_functions.h - every function of backend.h as one list, for the
 * CUDA build, which links both backends: backend_dispatch.c expands it
 * into the duo_be_* functions that call the path duo_init chose.
 *
 * DUO_BE_FN(return type, name, (parameters), (arguments)) for functions
 * that return a value, DUO_BE_VOID(name, (parameters), (arguments)) for
 * the rest.  duo_be_init, duo_be_finalize and duo_be_name are not here:
 * they choose the path, end it and name it (device_path.c).  A function added to backend.h and
 * not here fails the link with an undefined duo_be_* (backend_rename.h
 * renames it in both folders), so the list cannot fall behind quietly.
 */
DUO_BE_FN(duo_status, device_info, (duo_device_info *info), (info))
DUO_BE_FN(duo_status, synchronize, (void), ())
DUO_BE_FN(duo_status, malloc, (void **ptr, size_t bytes), (ptr, bytes))
DUO_BE_FN(duo_status, free, (void *ptr), (ptr))
DUO_BE_FN(duo_status, malloc_host, (void **ptr, size_t bytes), (ptr, bytes))
DUO_BE_FN(duo_status, free_host, (void *ptr), (ptr))
DUO_BE_FN(duo_status, memcpy,
          (void *dst, const void *src, size_t bytes, duo_copy_kind kind),
          (dst, src, bytes, kind))
DUO_BE_FN(duo_status, memcpy_async,
          (void *dst, const void *src, size_t bytes, duo_copy_kind kind,
           duo_stream stream),
          (dst, src, bytes, kind, stream))
DUO_BE_FN(duo_status, memset, (void *dst, int value, size_t bytes),
          (dst, value, bytes))
DUO_BE_FN(duo_status, stream_create, (duo_stream *stream), (stream))
DUO_BE_FN(duo_status, stream_destroy, (duo_stream stream), (stream))
DUO_BE_FN(duo_status, stream_synchronize, (duo_stream stream), (stream))
DUO_BE_FN(duo_status, launch_check,
          (const char *kernel, const char *file, int line),
          (kernel, file, line))
DUO_BE_VOID(range_push, (const char *name), (name))
DUO_BE_VOID(range_pop, (void), ())
DUO_BE_FN(int, trace_start, (void), ())
DUO_BE_VOID(trace_stop, (void), ())
DUO_BE_VOID(trace_push, (uint64_t call), (call))
DUO_BE_VOID(trace_pop, (void), ())
DUO_BE_FN(duo_status, trace_drain, (duo_trace_sink sink, unsigned long *lost),
          (sink, lost))
DUO_BE_FN(duo_status, timer_create, (duo_timer *timer), (timer))
DUO_BE_FN(duo_status, timer_destroy, (duo_timer timer), (timer))
DUO_BE_FN(duo_status, timer_record,
          (duo_timer timer, int stop, duo_stream stream),
          (timer, stop, stream))
DUO_BE_FN(duo_status, timer_elapsed_ms, (duo_timer timer, double *ms),
          (timer, ms))
DUO_BE_FN(duo_status, reduce,
          (duo_reduce_op op, duo_dtype type, const void *x, size_t n,
           void *result),
          (op, type, x, n, result))
DUO_BE_FN(duo_status, reduce_arg,
          (duo_reduce_op op, duo_dtype type, const void *x, size_t n,
           size_t *index, void *value),
          (op, type, x, n, index, value))
DUO_BE_FN(duo_status, reduce_async,
          (duo_reduce_op op, duo_dtype type, const void *x, size_t n,
           void *result, duo_stream stream),
          (op, type, x, n, result, stream))
DUO_BE_FN(duo_status, dot_async,
          (duo_dtype type, size_t n, int count, const void *const *x,
           const void *const *y, double *result, duo_stream stream),
          (type, n, count, x, y, result, stream))
DUO_BE_FN(int, capture_queues_work, (void), ())
DUO_BE_FN(duo_status, graph_begin, (duo_stream stream), (stream))
DUO_BE_FN(duo_status, graph_end, (duo_stream stream, int keep, void **graph),
          (stream, keep, graph))
DUO_BE_FN(duo_status, graph_launch, (void *graph, duo_stream stream),
          (graph, stream))
DUO_BE_FN(duo_status, graph_destroy, (void *graph), (graph))
DUO_BE_FN(duo_status, gemm_f32,
          (duo_transpose ta, duo_transpose tb, size_t m, size_t n, size_t k,
           float alpha, const float *a, size_t lda, const float *b,
           size_t ldb, float beta, float *c, size_t ldc),
          (ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc))
DUO_BE_FN(duo_status, gemm_f64,
          (duo_transpose ta, duo_transpose tb, size_t m, size_t n, size_t k,
           double alpha, const double *a, size_t lda, const double *b,
           size_t ldb, double beta, double *c, size_t ldc),
          (ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc))
