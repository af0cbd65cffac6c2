/*
 * dot_chunks.h - the chunk partials of duo's dot-product order
 * (src/reduce_order.h) for a piece of a longer array, on the device.
 * dot_chunks.c is compiled as CUDA in CUDA builds, as C otherwise.
 */
#ifndef DUO_DIST_DOT_CHUNKS_H
#define DUO_DIST_DOT_CHUNKS_H

#include <stddef.h>

#include <duo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The arrays of up to DUO_DOT_MAX dot products: x[k] . y[k]. */
typedef struct dist_dot_pairs {
    const void *x[DUO_DOT_MAX], *y[DUO_DOT_MAX];
} dist_dot_pairs;

/*
 * out[j count + k] = the partial of chunk c0 + j (j < chunks) of pair k
 * (k < count) of duo's order for dot products of n elements of `type` cut
 * into chunks of `steps` steps: exactly what duo_dot_async computes for
 * that chunk before its final pass.  One launch for all of them.  The
 * pairs' x[k][0] and y[k][0] are global element `first`; every element
 * of those chunks below n must lie in the arrays.  out is device memory
 * or pinned host memory (duo_malloc_host), which the GPU writes too.
 * Queued on `stream`.
 */
duo_status dist_dot_chunks(duo_dtype type, const dist_dot_pairs *pairs,
                           int count, size_t first, size_t n, size_t steps,
                           size_t c0, size_t chunks, double *out,
                           duo_stream stream);

/*
 * result[k] (device memory) = duo's final pass over the partials of
 * pair k, slots[c count + k] for c < chunks (device memory): the value
 * duo_dot_async gives from those partials.  Queued on `stream`.
 */
duo_status dist_dot_final(int count, size_t chunks, const double *slots,
                          double *result, duo_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* DUO_DIST_DOT_CHUNKS_H */
