/*
 * validate.h - validation mode (DUO_VALIDATE): every launch, reduction
 * and gemm checked against a second run on the same inputs -- the host
 * path against the GPU in a CUDA build on a GPU, one thread against all
 * threads on the host.  The launch macros' side is in
 * include/duo/kernel_validate.h; the library calls' side in
 * validate_ops.c; docs/checking.md#validation-mode says what users see.
 *
 * Below: the mode and the report (validate.c), used by the checks
 * (validate_launch.c, validate_ops.c) and by duo_init / duo_finalize.
 */
#ifndef DUO_VALIDATE_H
#define DUO_VALIDATE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <duo.h>
#include <duo/kernel_validate.h>

#include "registry.h"

#ifdef __cplusplus
extern "C" {
#endif

/* duo_init: read DUO_VALIDATE ("", "0", "1", "abort"),
 * DUO_VALIDATE_ULPS (an integer >= 0) and DUO_VALIDATE_REPORT (a file);
 * a bad value fails with DUO_ERROR_INVALID_ARGUMENT naming the valid
 * ones.  `gpu`: the work runs on a GPU. */
duo_status duo_validate_init(int gpu);
/* duo_finalize: the summary, if the mode was on; then off. */
void duo_validate_finalize(void);
/* The buffers the launches' checks keep (validate_launch.c), and those
 * of the checks of duo's own operations (validate_ops.c). */
void duo_vd_launch_free(void);
void duo_vd_ops_free(void);
/* A host buffer kept from check to check: *buf holds at least `bytes`
 * (kept if it does already; contents not kept otherwise), pinned on the
 * GPU where it can be; 0 when no memory is left.  Free it with
 * duo_vd_buffer_free. */
int duo_vd_buffer_reserve(unsigned char **buf, size_t *cap, int *pinned,
                          size_t bytes);
void duo_vd_buffer_free(unsigned char **buf, size_t *cap, int *pinned);
/* The 8-byte word at byte `at` of an argument's bytes, where a struct
 * keeps its pointers. */
static inline uint64_t duo_vd_word_at(const void *bytes, size_t at)
{
    uint64_t w;
    memcpy(&w, (const unsigned char *)bytes + at, sizeof w);
    return w;
}
/* What such a word w points into: a duo allocation (its view in *v),
 * device memory duo did not allocate, or neither (plain data, a host
 * address, NULL). */
typedef enum duo_vd_target {
    DUO_VD_TARGET_NONE,
    DUO_VD_TARGET_DUO,
    DUO_VD_TARGET_FOREIGN_DEVICE
} duo_vd_target;
duo_vd_target duo_vd_word_target(uint64_t w, duo_alloc_view *v);
/* Whether any 8-byte word of n bytes (a struct's, where it keeps its
 * pointers) is an address in a duo allocation or in device memory. */
int duo_vd_holds_device_address(const void *bytes, size_t n);
/* Whether any 8-byte word of n bytes (an array reached through a
 * pointer) is an address in a duo device allocation, or one from 2^32
 * to 2^47 in other device memory: a test cheap enough for whole arrays,
 * since most words are neither. */
int duo_vd_array_holds_device_pointer(const void *bytes, size_t n);

/* 1 on the GPU (host path against GPU), 0 on the host (one thread
 * against all threads). */
int duo_vd_gpu(void);
/* Units in the last place tolerated (DUO_VALIDATE_ULPS; 0: equal bits). */
uint64_t duo_vd_ulps(void);

/* Counting: an operation checked (bytes compared), or skipped. */
void duo_vd_count_checked(uint64_t bytes);
void duo_vd_count_skipped(const char *reason);
/* Seconds spent in checks, added by each. */
void duo_vd_add_seconds(double seconds);
/* Of those, seconds spent copying the operations' memory (device to
 * host on the GPU; host copies on CPU builds), which the summary shows
 * apart: beside the reruns, they are what a check costs. */
void duo_vd_add_copy_seconds(double seconds);
double duo_vd_now(void);

/* One divergence: the operation's line ("launch #12 of `update` at
 * heat.c:88"), then the detail lines; printed to stderr and to the
 * report file.  With DUO_VALIDATE=abort, exits with status 3. */
void duo_vd_report(const char *operation, const char *details);

/* The first difference between a (the run checked: the GPU, or every
 * thread) and b (the reference: the host path, or one thread), n
 * elements of `kind` (DUO_VD_*). */
typedef struct duo_vd_diff {
    uint64_t count;     /* elements that differ                       */
    uint64_t first;     /* the first of them                          */
    uint64_t first_ulps; /* its distance (floats; UINT64_MAX: NaN
                            against a number)                           */
    uint64_t max_ulps;  /* largest distance of numbers (floats)       */
    int identical;      /* the n elements' bits are all equal         */
} duo_vd_diff;
void duo_vd_compare(int kind, const void *a, const void *b, size_t n,
                    duo_vd_diff *d);
/* memcpy of host memory, shared among the OpenMP threads for large
 * sizes (the host check's copies of an allocation). */
void duo_vd_copy(void *dst, const void *src, size_t bytes);
/* "0.1234567 (0x3dfcd6e9)" for element i of a `kind` array. */
void duo_vd_format(int kind, const void *p, size_t i, char *buf,
                   size_t size);
/* Element size of a kind (DUO_VD_BYTES: 1). */
size_t duo_vd_elem_size(int kind);
const char *duo_vd_kind_name(int kind);

/* The library's operations, checked (validate_ops.c): each does what
 * duo_be_* does, then the reference run and the comparison.  The front
 * ends (reduce.c, gemm.c) call them when duo_validating(). */
duo_status duo_vd_reduce(duo_reduce_op op, duo_dtype type, const void *x,
                         size_t n, void *result);
duo_status duo_vd_reduce_arg(duo_reduce_op op, duo_dtype type,
                             const void *x, size_t n, size_t *index,
                             void *value);
duo_status duo_vd_reduce_async(duo_reduce_op op, duo_dtype type,
                               const void *x, size_t n, void *result,
                               duo_stream stream);
duo_status duo_vd_dot_async(duo_dtype type, size_t n, int count,
                            const void *const *x, const void *const *y,
                            double *result, duo_stream stream);
duo_status duo_vd_gemm_f32(duo_transpose ta, duo_transpose tb, size_t m,
                           size_t n, size_t k, float alpha, const float *a,
                           size_t lda, const float *b, size_t ldb,
                           float beta, float *c, size_t ldc);
duo_status duo_vd_gemm_f64(duo_transpose ta, duo_transpose tb, size_t m,
                           size_t n, size_t k, double alpha,
                           const double *a, size_t lda, const double *b,
                           size_t ldb, double beta, double *c, size_t ldc);

#ifdef __cplusplus
}
#endif

#endif /* DUO_VALIDATE_H */
