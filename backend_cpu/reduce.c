/*
 * reduce.c (CPU) - duo_reduce, duo_reduce_arg and duo_dot_async in the
 * order fixed by <duo/reduce_order.h> (its host form, which user
 * reductions share), so the CPU returns the GPU's bits.  Chunks are
 * independent and shared among OpenMP threads; within a chunk the lanes
 * form a vector loop the compiler maps onto SIMD registers.  The same
 * reductions on one thread serve the segmented reductions
 * (reduce_cpu.h, segmented.c).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "backend.h"
#include "reduce_cpu.h"
#include "reduce_order.h"

/* OpenMP directives that mean nothing in the serial build. */
#ifdef _OPENMP
#define OMP_(text) _Pragma(#text)
#define OMP(directive) OMP_(omp directive)
#else
#define OMP(directive)
#endif

/* A read of the line at p soon (GCC and Clang; elsewhere nothing). */
#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
#endif

#define SUM(a, b) ((a) + (b))
#define MIN(a, b) DUO_COMBINE_DUO_MIN(a, b)
#define MAX(a, b) DUO_COMBINE_DUO_MAX(a, b)

/*
 * name_all(x, n, out): the reduction of x[0..n) into *out (an Acc), the
 * chunks shared among OpenMP threads; name_seq: the same on the calling
 * thread.  In is the element type, Acc the accumulator.
 */
#define DEFINE_REDUCE(name, In, Acc, OP, IDENTITY)                           \
    static inline Acc name##_elem(const In *x, size_t i) { return (Acc)x[i]; } \
    static inline void name##_hint(const In *x, size_t i)                    \
    {                                                                        \
        PREFETCH(x + i);                                                     \
    }                                                                        \
    DUO_ORDER_DEFINE_CHUNK(name##_chunk, Acc, DUO_REDUCE_VEC(sizeof(In)), OP, \
                           IDENTITY, const In *, name##_elem, name##_hint)    \
    DUO_ORDER_DEFINE_ALL(name##_shared, name##_chunk, Acc,                   \
                         DUO_REDUCE_VEC(sizeof(In)), OP, IDENTITY,           \
                         const In *, static)                                 \
    DUO_ORDER_DEFINE_ALL(name##_alone, name##_chunk, Acc,                    \
                         DUO_REDUCE_VEC(sizeof(In)), OP, IDENTITY,           \
                         const In *, none)                                   \
    static void name##_all(const void *x, size_t n, void *out)               \
    {                                                                        \
        *(Acc *)out = name##_shared((const In *)x, n);                       \
    }                                                                        \
    static void name##_seq(const void *x, size_t n, void *out)               \
    {                                                                        \
        *(Acc *)out = name##_alone((const In *)x, n);                        \
    }

/* Integer sums wrap modulo 2^64: accumulate unsigned, where C defines
 * overflow; the int64_t result has the same bits. */
DEFINE_REDUCE(sum_f32, float, double, SUM, 0.0)
DEFINE_REDUCE(sum_f64, double, double, SUM, 0.0)
DEFINE_REDUCE(sum_i32, int32_t, uint64_t, SUM, 0)
DEFINE_REDUCE(sum_i64, int64_t, uint64_t, SUM, 0)
DEFINE_REDUCE(sum_u64, uint64_t, uint64_t, SUM, 0)
DEFINE_REDUCE(min_f32, float, float, MIN, INFINITY)
DEFINE_REDUCE(min_f64, double, double, MIN, INFINITY)
DEFINE_REDUCE(min_i32, int32_t, int32_t, MIN, INT32_MAX)
DEFINE_REDUCE(min_i64, int64_t, int64_t, MIN, INT64_MAX)
DEFINE_REDUCE(min_u64, uint64_t, uint64_t, MIN, UINT64_MAX)
DEFINE_REDUCE(max_f32, float, float, MAX, -INFINITY)
DEFINE_REDUCE(max_f64, double, double, MAX, -INFINITY)
DEFINE_REDUCE(max_i32, int32_t, int32_t, MAX, INT32_MIN)
DEFINE_REDUCE(max_i64, int64_t, int64_t, MAX, INT64_MIN)
DEFINE_REDUCE(max_u64, uint64_t, uint64_t, MAX, 0)

/* By [op][type], in enum order. */
#define ROW(op) {{op##_f32_all, op##_f32_seq}, {op##_f64_all, op##_f64_seq}, \
                 {op##_i32_all, op##_i32_seq}, {op##_i64_all, op##_i64_seq}, \
                 {op##_u64_all, op##_u64_seq}}
static const duo_cpu_reducer reducers[3][5] = {ROW(sum), ROW(min),
                                               ROW(max)};
#undef ROW

duo_cpu_reducer duo_cpu_reducer_for(duo_reduce_op op, duo_dtype type)
{
    return reducers[op][type];
}

duo_status duo_be_reduce(duo_reduce_op op, duo_dtype type, const void *x,
                         size_t n, void *result)
{
    reducers[op][type].all(x, n, result);
    return DUO_SUCCESS;
}

/* Stream-ordered forms: "device" memory is host memory and work on any
 * stream runs at once, so they are the plain reductions. */
duo_status duo_be_reduce_async(duo_reduce_op op, duo_dtype type,
                               const void *x, size_t n, void *result,
                               duo_stream stream)
{
    (void)stream;
    return duo_be_reduce(op, type, x, n, result);
}

/*
 * Dot products: a sum in the order of DEFINE_REDUCE for elements of In,
 * over products formed in double.  The product is its own statement, so
 * it is rounded before the sum (the library builds as ISO C, where GCC
 * does not contract across statements; clang contracts only within one).
 */
#define DEFINE_DOT(name, In)                                                 \
    typedef struct name##_pair { const In *x, *y; } name##_pair;             \
    static inline double name##_elem(const name##_pair *p, size_t i)         \
    {                                                                        \
        const double prod = (double)p->x[i] * (double)p->y[i];               \
        return prod;                                                         \
    }                                                                        \
    static inline void name##_hint(const name##_pair *p, size_t i)           \
    {                                                                        \
        PREFETCH(p->x + i);                                                  \
        PREFETCH(p->y + i);                                                  \
    }                                                                        \
    DUO_ORDER_DEFINE_CHUNK(name##_chunk, double, DUO_REDUCE_VEC(sizeof(In)), \
                           SUM, 0.0, const name##_pair *, name##_elem,        \
                           name##_hint)                                       \
    DUO_ORDER_DEFINE_ALL(name##_all, name##_chunk, double,                   \
                         DUO_REDUCE_VEC(sizeof(In)), SUM, 0.0,               \
                         const name##_pair *, static)                        \
    static double name(const void *x, const void *y, size_t n)               \
    {                                                                        \
        name##_pair p;                                                       \
        p.x = (const In *)x;                                                 \
        p.y = (const In *)y;                                                 \
        return name##_all(&p, n);                                            \
    }

DEFINE_DOT(dot_f32, float)
DEFINE_DOT(dot_f64, double)

duo_status duo_be_dot_async(duo_dtype type, size_t n, int count,
                            const void *const *x, const void *const *y,
                            double *result, duo_stream stream)
{
    (void)stream;
    for (int k = 0; k < count; ++k)
        result[k] = type == DUO_F32 ? dot_f32(x[k], y[k], n)
                                    : dot_f64(x[k], y[k], n);
    return DUO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Index reductions: (value, index) pairs under a total order (NaN first,
 * then by value, then by lower index), so any grouping gives the same
 * answer and each thread simply scans its share of the chunks. */

#define DEFINE_ARG(name, In, BETTER, IDENTITY)                               \
    typedef struct { In v; uint64_t i; } name##_pair;                        \
    static inline name##_pair name##_op(name##_pair a, name##_pair b)        \
    {                                                                        \
        const int a_nan = a.v != a.v, b_nan = b.v != b.v;                    \
        const int take = b_nan ? (!a_nan || b.i < a.i)                       \
                               : (!a_nan && (BETTER(b.v, a.v) ||             \
                                             (b.v == a.v && b.i < a.i)));    \
        return take ? b : a;                                                 \
    }                                                                        \
    static name##_pair name##_scan(const In *x, size_t from, size_t to,      \
                                   name##_pair best)                         \
    {                                                                        \
        for (size_t i = from; i < to; ++i) {                                 \
            const name##_pair e = {x[i], i};                                 \
            best = name##_op(best, e);                                       \
        }                                                                    \
        return best;                                                         \
    }                                                                        \
    static void name##_write(name##_pair best, size_t *index, void *value)   \
    {                                                                        \
        *index = best.i == UINT64_MAX ? SIZE_MAX : (size_t)best.i;           \
        if (value != NULL)                                                   \
            *(In *)value = best.v;                                           \
    }                                                                        \
    static void name##_all(const void *xv, size_t n, size_t *index,          \
                           void *value)                                      \
    {                                                                        \
        const In *x = (const In *)xv;                                        \
        const size_t CHUNK = duo_reduce_steps(n, DUO_REDUCE_LANES(sizeof(In))) * \
                             DUO_REDUCE_LANES(sizeof(In));                   \
        const name##_pair none = {IDENTITY, UINT64_MAX};                     \
        const size_t chunks = (n + CHUNK - 1) / CHUNK;                       \
        name##_pair best = none;                                             \
        OMP(parallel if (chunks > 1))                                        \
        {                                                                    \
            name##_pair mine = none;                                         \
            OMP(for schedule(static) nowait)                                 \
            for (size_t c = 0; c < chunks; ++c) {                            \
                const size_t end = n - c * CHUNK < CHUNK ? n : (c + 1) * CHUNK; \
                mine = name##_scan(x, c * CHUNK, end, mine);                 \
            }                                                                \
            OMP(critical(duo_reduce_arg))                                    \
            best = name##_op(best, mine);                                    \
        }                                                                    \
        name##_write(best, index, value);                                    \
    }                                                                        \
    static void name##_seq(const void *xv, size_t n, size_t *index,          \
                           void *value)                                      \
    {                                                                        \
        const name##_pair none = {IDENTITY, UINT64_MAX};                     \
        name##_write(name##_scan((const In *)xv, 0, n, none), index, value); \
    }

#define LESS(a, b) ((a) < (b))
#define GREATER(a, b) ((a) > (b))
DEFINE_ARG(argmin_f32, float, LESS, INFINITY)
DEFINE_ARG(argmin_f64, double, LESS, INFINITY)
DEFINE_ARG(argmin_i32, int32_t, LESS, INT32_MAX)
DEFINE_ARG(argmin_i64, int64_t, LESS, INT64_MAX)
DEFINE_ARG(argmin_u64, uint64_t, LESS, UINT64_MAX)
DEFINE_ARG(argmax_f32, float, GREATER, -INFINITY)
DEFINE_ARG(argmax_f64, double, GREATER, -INFINITY)
DEFINE_ARG(argmax_i32, int32_t, GREATER, INT32_MIN)
DEFINE_ARG(argmax_i64, int64_t, GREATER, INT64_MIN)
DEFINE_ARG(argmax_u64, uint64_t, GREATER, 0)

/* By [op - DUO_MIN][type], in enum order. */
#define ROW(op) {{op##_f32_all, op##_f32_seq}, {op##_f64_all, op##_f64_seq}, \
                 {op##_i32_all, op##_i32_seq}, {op##_i64_all, op##_i64_seq}, \
                 {op##_u64_all, op##_u64_seq}}
static const duo_cpu_arg_reducer arg_reducers[2][5] = {ROW(argmin),
                                                       ROW(argmax)};
#undef ROW

duo_cpu_arg_reducer duo_cpu_arg_reducer_for(duo_reduce_op op,
                                            duo_dtype type)
{
    return arg_reducers[op == DUO_MAX][type];
}

duo_status duo_be_reduce_arg(duo_reduce_op op, duo_dtype type,
                             const void *x, size_t n, size_t *index,
                             void *value)
{
    arg_reducers[op == DUO_MAX][type].all(x, n, index, value);
    return DUO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Segments (the distributed layer's chunks)                           */

duo_status duo_be_reduce_segments(duo_reduce_op op, duo_dtype type,
                                  const void *x, size_t len, size_t count,
                                  uint64_t *words, void *scratch,
                                  duo_stream stream)
{
    (void)scratch;
    (void)stream;
    const size_t bytes = len * duo_dtype_size(type);
    const char *base = (const char *)x;
    /* The segments shared among the threads; one alone shares its chunks
     * instead.  Each result's bits go to the low bytes of zeroed words. */
    const duo_cpu_reducer r = duo_cpu_reducer_for(op, type);
    OMP(parallel for schedule(static) if (count > 1))
    for (size_t s = 0; s < count; ++s) {
        words[s] = 0;
        (count == 1 ? r.all : r.seq)(base + s * bytes, len, &words[s]);
    }
    return DUO_SUCCESS;
}

/* Host memory: the work needs no device scratch. */
size_t duo_be_reduce_segments_scratch(duo_dtype type, size_t len,
                                      size_t count)
{
    (void)type;
    (void)len;
    (void)count;
    return 0;
}
