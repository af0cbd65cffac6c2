/*
 * backend_rename.h - in the CUDA build both backend folders are compiled
 * into one library: backend_cuda/ with DUO_BE_PREFIX=duo_gpu_be_ and
 * backend_cpu/ with DUO_BE_PREFIX=duo_host_be_.  Through these names
 * backend.h then declares, and each folder defines, its own prefixed
 * set; src/dispatch/ defines the duo_be_* that the rest of the library
 * calls.
 */
#ifndef DUO_BACKEND_RENAME_H
#define DUO_BACKEND_RENAME_H

#define DUO_BE_CAT2_(a, b) a##b
#define DUO_BE_CAT_(a, b) DUO_BE_CAT2_(a, b)
#define DUO_BE_RENAMED_(f) DUO_BE_CAT_(DUO_BE_PREFIX, f)

#define duo_be_name DUO_BE_RENAMED_(name)
#define duo_be_init DUO_BE_RENAMED_(init)
#define duo_be_finalize DUO_BE_RENAMED_(finalize)
#define duo_be_device_info DUO_BE_RENAMED_(device_info)
#define duo_be_synchronize DUO_BE_RENAMED_(synchronize)
#define duo_be_malloc DUO_BE_RENAMED_(malloc)
#define duo_be_free DUO_BE_RENAMED_(free)
#define duo_be_malloc_host DUO_BE_RENAMED_(malloc_host)
#define duo_be_free_host DUO_BE_RENAMED_(free_host)
#define duo_be_memcpy DUO_BE_RENAMED_(memcpy)
#define duo_be_memcpy_async DUO_BE_RENAMED_(memcpy_async)
#define duo_be_memset DUO_BE_RENAMED_(memset)
#define duo_be_is_device_address DUO_BE_RENAMED_(is_device_address)
#define duo_be_stream_create DUO_BE_RENAMED_(stream_create)
#define duo_be_stream_destroy DUO_BE_RENAMED_(stream_destroy)
#define duo_be_stream_synchronize DUO_BE_RENAMED_(stream_synchronize)
#define duo_be_launch_check DUO_BE_RENAMED_(launch_check)
#define duo_be_range_push DUO_BE_RENAMED_(range_push)
#define duo_be_range_pop DUO_BE_RENAMED_(range_pop)
#define duo_be_trace_start DUO_BE_RENAMED_(trace_start)
#define duo_be_trace_stop DUO_BE_RENAMED_(trace_stop)
#define duo_be_trace_push DUO_BE_RENAMED_(trace_push)
#define duo_be_trace_pop DUO_BE_RENAMED_(trace_pop)
#define duo_be_trace_drain DUO_BE_RENAMED_(trace_drain)
#define duo_be_timer_create DUO_BE_RENAMED_(timer_create)
#define duo_be_timer_destroy DUO_BE_RENAMED_(timer_destroy)
#define duo_be_timer_record DUO_BE_RENAMED_(timer_record)
#define duo_be_timer_elapsed_ms DUO_BE_RENAMED_(timer_elapsed_ms)
#define duo_be_reduce DUO_BE_RENAMED_(reduce)
#define duo_be_reduce_arg DUO_BE_RENAMED_(reduce_arg)
#define duo_be_reduce_async DUO_BE_RENAMED_(reduce_async)
#define duo_be_dot_async DUO_BE_RENAMED_(dot_async)
#define duo_be_segmented_reduce DUO_BE_RENAMED_(segmented_reduce)
#define duo_be_sort DUO_BE_RENAMED_(sort)
#define duo_be_compact DUO_BE_RENAMED_(compact)
#define duo_be_scan DUO_BE_RENAMED_(scan)
#define duo_be_histogram DUO_BE_RENAMED_(histogram)
#define duo_be_reduce_segments DUO_BE_RENAMED_(reduce_segments)
#define duo_be_reduce_segments_scratch \
    DUO_BE_RENAMED_(reduce_segments_scratch)
#define duo_be_capture_queues_work DUO_BE_RENAMED_(capture_queues_work)
#define duo_be_graph_begin DUO_BE_RENAMED_(graph_begin)
#define duo_be_graph_end DUO_BE_RENAMED_(graph_end)
#define duo_be_graph_launch DUO_BE_RENAMED_(graph_launch)
#define duo_be_graph_destroy DUO_BE_RENAMED_(graph_destroy)
#define duo_be_gemm_f32 DUO_BE_RENAMED_(gemm_f32)
#define duo_be_gemm_f64 DUO_BE_RENAMED_(gemm_f64)

#endif /* DUO_BACKEND_RENAME_H */
