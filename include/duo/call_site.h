/*
 * duo/call_site.h - error messages that name the caller's line.
 * Included by <duo.h>; do not include directly.
 *
 * Each call of the API below is a macro of the function's own name that
 * notes the caller's __FILE__ and __LINE__ for the calling thread, makes
 * the call, and forgets them, so that a failure's duo_last_error() begins
 * with the line of the program that made the call:
 *
 *   heat.c:7: duo_reduce: invalid argument (reduce.c:45): x is NULL ...
 *
 * (duo's own place follows in parentheses).  The functions keep their
 * names: taking one's address, calling it through a pointer or from
 * another language works as before, with no caller's line in its
 * messages.  Define DUO_NO_CALL_SITES before including <duo.h> to call
 * the functions directly (duo's own sources do).
 *
 * A call made inside another's arguments, duo_f(..., duo_g(...)), forgets
 * the line when duo_g returns: duo_f's message then names duo's place
 * only.
 */
#ifndef DUO_CALL_SITE_H
#define DUO_CALL_SITE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Note file:line as the calling thread's current call site; the next
 * duo_call_site_done_ forgets it and returns `status`. */
void duo_call_site_begin_(const char *file, int line);
duo_status duo_call_site_done_(duo_status status);

#ifdef __cplusplus
}
#endif

#if !defined(DUO_NO_CALL_SITES)

#define DUO_AT_CALLER_(call) \
    (duo_call_site_begin_(__FILE__, __LINE__), duo_call_site_done_(call))

/* duo.h */
#define duo_init(...) DUO_AT_CALLER_(duo_init(__VA_ARGS__))
#define duo_finalize(...) DUO_AT_CALLER_(duo_finalize(__VA_ARGS__))
#define duo_device_info_get(...) \
    DUO_AT_CALLER_(duo_device_info_get(__VA_ARGS__))
#define duo_synchronize(...) DUO_AT_CALLER_(duo_synchronize(__VA_ARGS__))
#undef duo_malloc
#undef duo_malloc_host
#define duo_malloc(ptr, bytes) \
    DUO_AT_CALLER_(duo_malloc_at(ptr, bytes, __FILE__, __LINE__))
#define duo_malloc_host(ptr, bytes) \
    DUO_AT_CALLER_(duo_malloc_host_at(ptr, bytes, __FILE__, __LINE__))
#define duo_free(...) DUO_AT_CALLER_(duo_free(__VA_ARGS__))
#define duo_free_host(...) DUO_AT_CALLER_(duo_free_host(__VA_ARGS__))
#define duo_memory_usage_get(...) \
    DUO_AT_CALLER_(duo_memory_usage_get(__VA_ARGS__))
#define duo_memcpy(...) DUO_AT_CALLER_(duo_memcpy(__VA_ARGS__))
#define duo_memset(...) DUO_AT_CALLER_(duo_memset(__VA_ARGS__))
#define duo_stream_create(...) DUO_AT_CALLER_(duo_stream_create(__VA_ARGS__))
#define duo_stream_destroy(...) \
    DUO_AT_CALLER_(duo_stream_destroy(__VA_ARGS__))
#define duo_stream_synchronize(...) \
    DUO_AT_CALLER_(duo_stream_synchronize(__VA_ARGS__))
#define duo_memcpy_async(...) DUO_AT_CALLER_(duo_memcpy_async(__VA_ARGS__))
#define duo_timer_create(...) DUO_AT_CALLER_(duo_timer_create(__VA_ARGS__))
#define duo_timer_destroy(...) DUO_AT_CALLER_(duo_timer_destroy(__VA_ARGS__))
#define duo_timer_start(...) DUO_AT_CALLER_(duo_timer_start(__VA_ARGS__))
#define duo_timer_stop(...) DUO_AT_CALLER_(duo_timer_stop(__VA_ARGS__))
#define duo_timer_elapsed_ms(...) \
    DUO_AT_CALLER_(duo_timer_elapsed_ms(__VA_ARGS__))
#define duo_reduce(...) DUO_AT_CALLER_(duo_reduce(__VA_ARGS__))
#define duo_reduce_async(...) DUO_AT_CALLER_(duo_reduce_async(__VA_ARGS__))
#define duo_dot_async(...) DUO_AT_CALLER_(duo_dot_async(__VA_ARGS__))
#define duo_reduce_arg(...) DUO_AT_CALLER_(duo_reduce_arg(__VA_ARGS__))
#define duo_segmented_reduce(...) \
    DUO_AT_CALLER_(duo_segmented_reduce(__VA_ARGS__))
#define duo_segmented_reduce_equal(...) \
    DUO_AT_CALLER_(duo_segmented_reduce_equal(__VA_ARGS__))
#define duo_segmented_reduce_arg(...) \
    DUO_AT_CALLER_(duo_segmented_reduce_arg(__VA_ARGS__))
#define duo_segmented_reduce_arg_equal(...) \
    DUO_AT_CALLER_(duo_segmented_reduce_arg_equal(__VA_ARGS__))
#define duo_gemm_f32(...) DUO_AT_CALLER_(duo_gemm_f32(__VA_ARGS__))
#define duo_gemm_f64(...) DUO_AT_CALLER_(duo_gemm_f64(__VA_ARGS__))
#define duo_graph_capture(...) DUO_AT_CALLER_(duo_graph_capture(__VA_ARGS__))
#define duo_graph_launch(...) DUO_AT_CALLER_(duo_graph_launch(__VA_ARGS__))
#define duo_graph_destroy(...) DUO_AT_CALLER_(duo_graph_destroy(__VA_ARGS__))
#define duo_profile_start(...) DUO_AT_CALLER_(duo_profile_start(__VA_ARGS__))
#define duo_profile_report(...) \
    DUO_AT_CALLER_(duo_profile_report(__VA_ARGS__))
#define duo_profile_reset(...) DUO_AT_CALLER_(duo_profile_reset(__VA_ARGS__))
#define duo_region_begin(...) DUO_AT_CALLER_(duo_region_begin(__VA_ARGS__))
#define duo_region_end(...) DUO_AT_CALLER_(duo_region_end(__VA_ARGS__))
#define duo_profile_get(...) DUO_AT_CALLER_(duo_profile_get(__VA_ARGS__))

/* duo/primitives.h */
#define duo_sort(...) DUO_AT_CALLER_(duo_sort(__VA_ARGS__))
#define duo_sort_async(...) DUO_AT_CALLER_(duo_sort_async(__VA_ARGS__))
#define duo_sort_permutation(...) \
    DUO_AT_CALLER_(duo_sort_permutation(__VA_ARGS__))
#define duo_sort_permutation_async(...) \
    DUO_AT_CALLER_(duo_sort_permutation_async(__VA_ARGS__))
#define duo_scan(...) DUO_AT_CALLER_(duo_scan(__VA_ARGS__))
#define duo_scan_async(...) DUO_AT_CALLER_(duo_scan_async(__VA_ARGS__))
#define duo_compact(...) DUO_AT_CALLER_(duo_compact(__VA_ARGS__))
#define duo_compact_async(...) DUO_AT_CALLER_(duo_compact_async(__VA_ARGS__))
#define duo_histogram(...) DUO_AT_CALLER_(duo_histogram(__VA_ARGS__))
#define duo_histogram_async(...) \
    DUO_AT_CALLER_(duo_histogram_async(__VA_ARGS__))

/* duo/check.h */
#define duo_check_dir(...) DUO_AT_CALLER_(duo_check_dir(__VA_ARGS__))
#define duo_check_device(...) DUO_AT_CALLER_(duo_check_device(__VA_ARGS__))
#define duo_check_host(...) DUO_AT_CALLER_(duo_check_host(__VA_ARGS__))

/* duo/dist.h */
#define duo_dist_init(...) DUO_AT_CALLER_(duo_dist_init(__VA_ARGS__))
#define duo_dist_finalize(...) DUO_AT_CALLER_(duo_dist_finalize(__VA_ARGS__))
#define duo_dist_barrier(...) DUO_AT_CALLER_(duo_dist_barrier(__VA_ARGS__))
#define duo_dist_block_1d(...) DUO_AT_CALLER_(duo_dist_block_1d(__VA_ARGS__))
#define duo_dist_grid_2d(...) DUO_AT_CALLER_(duo_dist_grid_2d(__VA_ARGS__))
#define duo_dist_block_2d(...) DUO_AT_CALLER_(duo_dist_block_2d(__VA_ARGS__))
#define duo_dist_rows_make(...) \
    DUO_AT_CALLER_(duo_dist_rows_make(__VA_ARGS__))
#define duo_dist_range_make(...) \
    DUO_AT_CALLER_(duo_dist_range_make(__VA_ARGS__))
#define duo_dist_halo_exchange(...) \
    DUO_AT_CALLER_(duo_dist_halo_exchange(__VA_ARGS__))
#define duo_dist_halo_exchange_async(...) \
    DUO_AT_CALLER_(duo_dist_halo_exchange_async(__VA_ARGS__))
#define duo_dist_reduce(...) DUO_AT_CALLER_(duo_dist_reduce(__VA_ARGS__))
#define duo_dist_reduce_arg(...) \
    DUO_AT_CALLER_(duo_dist_reduce_arg(__VA_ARGS__))
#define duo_dist_dot(...) DUO_AT_CALLER_(duo_dist_dot(__VA_ARGS__))
#define duo_dist_dots(...) DUO_AT_CALLER_(duo_dist_dots(__VA_ARGS__))
#define duo_dist_dot_async(...) \
    DUO_AT_CALLER_(duo_dist_dot_async(__VA_ARGS__))
#define duo_dist_dots_async(...) \
    DUO_AT_CALLER_(duo_dist_dots_async(__VA_ARGS__))
#define duo_dist_gather(...) DUO_AT_CALLER_(duo_dist_gather(__VA_ARGS__))

#endif /* !DUO_NO_CALL_SITES */

#endif /* DUO_CALL_SITE_H */
