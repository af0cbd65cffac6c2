/*
 * scan.c (CPU) - duo_scan in the order of src/scan_order.h: run totals
 * level by level up, carries level by level down, then each run of the
 * input scanned once more with its carry.  Runs are shared among OpenMP
 * threads; each run's arithmetic is fixed by the order, so the bits do
 * not depend on the number of threads.
 */
#include <math.h>
#include <stdlib.h>

#include "backend.h"
#include "scan_order.h"

#define RUN DUO_SCAN_RUN

/* One element type T, accumulated in A, combined by COMBINE; ID is the
 * identity of the exclusive scan's first element. */
#define DEFINE_SCAN(sfx, T, A, COMBINE, ID)                                   \
    /* Totals of the runs of a[0..m) (IN: T or A) into t. */                 \
    static void totals_##sfx##_x(const T *a, size_t m, A *t)                 \
    {                                                                         \
        const size_t runs = (m + RUN - 1) / RUN;                              \
        DUO_PRAGMA_PARALLEL_FOR                                               \
        for (size_t j = 0; j < runs; ++j) {                                   \
            const size_t end = (j + 1) * RUN < m ? (j + 1) * RUN : m;         \
            A acc = (A)a[j * RUN];                                            \
            for (size_t i = j * RUN + 1; i < end; ++i)                        \
                acc = COMBINE(acc, (A)a[i]);                                  \
            t[j] = acc;                                                       \
        }                                                                     \
    }                                                                         \
    static void totals_##sfx##_a(const A *a, size_t m, A *t)                 \
    {                                                                         \
        const size_t runs = (m + RUN - 1) / RUN;                              \
        DUO_PRAGMA_PARALLEL_FOR                                               \
        for (size_t j = 0; j < runs; ++j) {                                   \
            const size_t end = (j + 1) * RUN < m ? (j + 1) * RUN : m;         \
            A acc = a[j * RUN];                                               \
            for (size_t i = j * RUN + 1; i < end; ++i)                        \
                acc = COMBINE(acc, a[i]);                                     \
            t[j] = acc;                                                       \
        }                                                                     \
    }                                                                         \
    /* Carries of the elements of a[0..m) (a level of totals) into e;     \
     * e[0] is "none" and never read.  Returns 0 on allocation failure. */ \
    static int carries_##sfx(const A *a, size_t m, A *e)                     \
    {                                                                         \
        const size_t runs = (m + RUN - 1) / RUN;                              \
        A *t = NULL, *up = NULL;                                              \
        if (runs > 1) {                                                       \
            t = (A *)malloc(runs * sizeof(A));                                \
            up = (A *)malloc(runs * sizeof(A));                               \
            if (t == NULL || up == NULL) {                                    \
                free(t);                                                      \
                free(up);                                                     \
                return 0;                                                     \
            }                                                                 \
            totals_##sfx##_a(a, m, t);                                        \
            if (!carries_##sfx(t, runs, up)) {                                \
                free(t);                                                      \
                free(up);                                                     \
                return 0;                                                     \
            }                                                                 \
        }                                                                     \
        DUO_PRAGMA_PARALLEL_FOR                                               \
        for (size_t j = 0; j < runs; ++j) {                                   \
            const size_t end = (j + 1) * RUN < m ? (j + 1) * RUN : m;         \
            A loc = a[j * RUN];                                               \
            if (j > 0)                                                        \
                e[j * RUN] = up[j];                                           \
            for (size_t i = j * RUN + 1; i < end; ++i) {                      \
                e[i] = j > 0 ? COMBINE(up[j], loc) : loc;                     \
                loc = COMBINE(loc, a[i]);                                     \
            }                                                                 \
        }                                                                     \
        free(t);                                                              \
        free(up);                                                             \
        return 1;                                                             \
    }                                                                         \
    /* The result: each run of x scanned with its carry c[j] (none for    \
     * j = 0).  x may be y: each element is read before it is written. */  \
    static void apply_##sfx(const T *x, size_t n, const A *c, T *y,          \
                            int inclusive)                                    \
    {                                                                         \
        const size_t runs = (n + RUN - 1) / RUN;                              \
        DUO_PRAGMA_PARALLEL_FOR                                               \
        for (size_t j = 0; j < runs; ++j) {                                   \
            const size_t end = (j + 1) * RUN < n ? (j + 1) * RUN : n;         \
            A loc = (A)x[j * RUN];                                            \
            if (inclusive)                                                    \
                y[j * RUN] = (T)(j > 0 ? COMBINE(c[j], loc) : loc);           \
            else                                                              \
                y[j * RUN] = j > 0 ? (T)c[j] : (T)(ID);                       \
            for (size_t i = j * RUN + 1; i < end; ++i) {                      \
                const A v = (A)x[i];                                          \
                if (!inclusive)                                               \
                    y[i] = (T)(j > 0 ? COMBINE(c[j], loc) : loc);             \
                loc = COMBINE(loc, v);                                        \
                if (inclusive)                                                \
                    y[i] = (T)(j > 0 ? COMBINE(c[j], loc) : loc);             \
            }                                                                 \
        }                                                                     \
    }                                                                         \
    static int scan_##sfx(const void *x, void *y, size_t n, int inclusive)   \
    {                                                                         \
        const size_t runs = (n + RUN - 1) / RUN;                              \
        A *t = NULL, *c = NULL;                                               \
        if (runs > 1) {                                                       \
            t = (A *)malloc(runs * sizeof(A));                                \
            c = (A *)malloc(runs * sizeof(A));                                \
            int ok = t != NULL && c != NULL;                                  \
            if (ok) {                                                         \
                totals_##sfx##_x((const T *)x, n, t);                         \
                ok = carries_##sfx(t, runs, c);                               \
            }                                                                 \
            if (!ok) {                                                        \
                free(t);                                                      \
                free(c);                                                      \
                return 0;                                                     \
            }                                                                 \
        }                                                                     \
        apply_##sfx((const T *)x, n, c, (T *)y, inclusive);                   \
        free(t);                                                              \
        free(c);                                                              \
        return 1;                                                             \
    }

#define SUM_(a, b) ((a) + (b))
#define MIN_(a, b) DUO_COMBINE_DUO_MIN(a, b)
#define MAX_(a, b) DUO_COMBINE_DUO_MAX(a, b)

DEFINE_SCAN(f32_sum, float, double, SUM_, 0.0)
DEFINE_SCAN(f32_min, float, double, MIN_, INFINITY)
DEFINE_SCAN(f32_max, float, double, MAX_, -INFINITY)
DEFINE_SCAN(f64_sum, double, double, SUM_, 0.0)
DEFINE_SCAN(f64_min, double, double, MIN_, INFINITY)
DEFINE_SCAN(f64_max, double, double, MAX_, -INFINITY)
DEFINE_SCAN(i32_sum, int32_t, uint32_t, SUM_, 0)
DEFINE_SCAN(i32_min, int32_t, int32_t, MIN_, INT32_MAX)
DEFINE_SCAN(i32_max, int32_t, int32_t, MAX_, INT32_MIN)
DEFINE_SCAN(i64_sum, int64_t, uint64_t, SUM_, 0)
DEFINE_SCAN(i64_min, int64_t, int64_t, MIN_, INT64_MAX)
DEFINE_SCAN(i64_max, int64_t, int64_t, MAX_, INT64_MIN)
DEFINE_SCAN(u64_sum, uint64_t, uint64_t, SUM_, 0)
DEFINE_SCAN(u64_min, uint64_t, uint64_t, MIN_, UINT64_MAX)
DEFINE_SCAN(u64_max, uint64_t, uint64_t, MAX_, 0)

typedef int (*scan_fn)(const void *, void *, size_t, int);

duo_status duo_be_scan(duo_scan_kind kind, duo_reduce_op op, duo_dtype type,
                       const void *x, void *y, size_t n, duo_stream stream)
{
    (void)stream;
    /* By [type][op], in enum order. */
    static const scan_fn fns[5][3] = {
        {scan_f32_sum, scan_f32_min, scan_f32_max},
        {scan_f64_sum, scan_f64_min, scan_f64_max},
        {scan_i32_sum, scan_i32_min, scan_i32_max},
        {scan_i64_sum, scan_i64_min, scan_i64_max},
        {scan_u64_sum, scan_u64_min, scan_u64_max}};
    if (!fns[type][op](x, y, n, kind == DUO_INCLUSIVE))
        return duo_fail(DUO_ERROR_OUT_OF_MEMORY, "duo_scan",
                        "no host memory for the run totals of %zu elements",
                        n);
    return DUO_SUCCESS;
}
