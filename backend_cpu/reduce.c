/*
 * reduce.c (CPU) - duo_reduce and duo_reduce_arg in the order fixed by
 * src/reduce_order.h, so the CPU returns the GPU's bits.  Chunks are
 * independent and shared among OpenMP threads; within a chunk the lanes
 * form a vector loop the compiler maps onto SIMD registers.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "reduce_order.h"

/* OpenMP directives that mean nothing in the serial build. */
#ifdef _OPENMP
#define OMP_(text) _Pragma(#text)
#define OMP(directive) OMP_(omp directive)
#else
#define OMP(directive)
#endif

#define SUM(a, b) ((a) + (b))
#define MIN(a, b) DUO_COMBINE_DUO_MIN(a, b)
#define MAX(a, b) DUO_COMBINE_DUO_MAX(a, b)

/* Step 4: fold v[0..size) in halves, leaving the result in v[0]. */
#define FOLD(v, size, OP)                                   \
    for (size_t h_ = (size) / 2; h_ > 0; h_ /= 2)           \
        for (size_t i_ = 0; i_ < h_; ++i_)                  \
            v[i_] = OP(v[i_], v[i_ + h_])

/* Steps 4 over a block of `threads` values: each warp, then the warps. */
#define BLOCK_FOLD(Acc, v, threads, OP, out)                        \
    do {                                                            \
        Acc warps_[(threads) / DUO_REDUCE_WARP];                    \
        for (size_t w_ = 0; w_ < (threads) / DUO_REDUCE_WARP; ++w_) { \
            Acc *warp_ = (v) + w_ * DUO_REDUCE_WARP;                \
            FOLD(warp_, DUO_REDUCE_WARP, OP);                       \
            warps_[w_] = warp_[0];                                  \
        }                                                           \
        FOLD(warps_, (threads) / DUO_REDUCE_WARP, OP);              \
        (out) = warps_[0];                                          \
    } while (0)

/* Chunks of duo's order for n elements of `lanes` lanes (step 2). */
static size_t part_count(size_t n, size_t lanes)
{
    const size_t chunk = duo_reduce_steps(n, lanes) * lanes;
    return (n + chunk - 1) / chunk;
}

/*
 * name_chunk(x, n, c): steps 2-4 for chunk c.  name_fold(x, n, part,
 * parallel, &out): every chunk (OpenMP threads share them where
 * `parallel`), their partials in part[], then step 5.  name_all(x, n,
 * &out): name_fold with partials of its own.  name_segments: see
 * duo_be_reduce_segments.  In is the element type, Acc the accumulator.
 */
#define DEFINE_REDUCE(name, In, Acc, OP, IDENTITY)                           \
    enum {                                                                   \
        name##_VEC = DUO_REDUCE_VEC(sizeof(In)),                             \
        name##_LANES = DUO_REDUCE_LANES(sizeof(In))                          \
    };                                                                       \
    static Acc name##_chunk(const In *x, size_t n, size_t steps, size_t c)   \
    {                                                                        \
        const size_t chunk = steps * name##_LANES;                           \
        Acc lane[name##_LANES];                                              \
        for (size_t l = 0; l < name##_LANES; ++l)                            \
            lane[l] = IDENTITY;                                              \
        const size_t base = c * chunk;                                       \
        if (n - base >= chunk) {                                             \
            for (size_t s = 0; s < steps; ++s) {                             \
                const In *p = x + base + s * name##_LANES;                   \
                _Pragma("omp simd")                                          \
                for (size_t l = 0; l < name##_LANES; ++l)                    \
                    lane[l] = OP(lane[l], (Acc)p[l]);                        \
            }                                                                \
        } else {                                                             \
            for (size_t s = 0; s < steps; ++s)                               \
                for (size_t l = 0; l < name##_LANES; ++l) {                  \
                    const size_t i = base + s * name##_LANES + l;            \
                    if (i < n)                                               \
                        lane[l] = OP(lane[l], (Acc)x[i]);                    \
                }                                                            \
        }                                                                    \
        Acc thread[DUO_REDUCE_THREADS];                                      \
        for (size_t t = 0; t < DUO_REDUCE_THREADS; ++t) {                    \
            const Acc *v = lane + t * name##_VEC;                            \
            thread[t] = name##_VEC == 4                                      \
                            ? OP(OP(v[0], v[1]),                             \
                                 OP(v[name##_VEC / 2], v[name##_VEC - 1]))   \
                            : OP(v[0], v[1]);                                \
        }                                                                    \
        Acc out;                                                             \
        BLOCK_FOLD(Acc, thread, DUO_REDUCE_THREADS, OP, out);                \
        return out;                                                          \
    }                                                                        \
    static void name##_fold(const In *x, size_t n, Acc *part, int parallel,  \
                            Acc *out)                                        \
    {                                                                        \
        const size_t steps = duo_reduce_steps(n, name##_LANES);              \
        const size_t chunk = steps * name##_LANES;                           \
        const size_t chunks = (n + chunk - 1) / chunk;                       \
        (void)parallel; /* the serial build has no threads to share */      \
        OMP(parallel for schedule(static) if (parallel && chunks > 1))       \
        for (size_t c = 0; c < chunks; ++c)                                  \
            part[c] = name##_chunk(x, n, steps, c);                          \
        Acc final[DUO_REDUCE_FINAL_THREADS];                                 \
        for (size_t t = 0; t < DUO_REDUCE_FINAL_THREADS; ++t)                \
            final[t] = IDENTITY;                                             \
        for (size_t c = 0; c < chunks; ++c)                                  \
            final[c % DUO_REDUCE_FINAL_THREADS] =                            \
                OP(final[c % DUO_REDUCE_FINAL_THREADS], part[c]);            \
        BLOCK_FOLD(Acc, final, DUO_REDUCE_FINAL_THREADS, OP, *out);          \
    }                                                                        \
    static duo_status name##_all(const In *x, size_t n, Acc *out)            \
    {                                                                        \
        const size_t chunks = part_count(n, name##_LANES);                   \
        Acc small[64];                                                       \
        Acc *part = chunks <= 64 ? small                                     \
                                 : (Acc *)malloc(chunks * sizeof(Acc));      \
        if (part == NULL)                                                    \
            return duo_fail(DUO_ERROR_OUT_OF_MEMORY, "duo_reduce",           \
                            "no memory for %zu partial results", chunks);    \
        name##_fold(x, n, part, 1, out);                                     \
        if (part != small)                                                   \
            free(part);                                                      \
        return DUO_SUCCESS;                                                  \
    }                                                                        \
    static duo_status name##_segments(const In *x, size_t len, size_t count, \
                                      uint64_t *words)                       \
    {                                                                        \
        const size_t chunks = part_count(len, name##_LANES);                 \
        Acc *part = (Acc *)malloc(count * chunks * sizeof(Acc));             \
        if (part == NULL)                                                    \
            return duo_fail(DUO_ERROR_OUT_OF_MEMORY, "duo_reduce",           \
                            "no memory for %zu partial results",             \
                            count * chunks);                                 \
        /* The segments shared among the threads; one alone shares its  */ \
        /* chunks instead.                                               */ \
        OMP(parallel for schedule(static) if (count > 1))                    \
        for (size_t s = 0; s < count; ++s) {                                 \
            Acc v;                                                           \
            name##_fold(x + s * len, len, part + s * chunks, count == 1, &v); \
            words[s] = 0;                                                    \
            memcpy(&words[s], &v, sizeof v);                                 \
        }                                                                    \
        free(part);                                                          \
        return DUO_SUCCESS;                                                  \
    }

/* Integer sums wrap modulo 2^64: accumulate unsigned, where C defines
 * overflow, and reinterpret at the end. */
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

#define SIGNED_SUM(name, x, n, result)                                \
    do {                                                              \
        uint64_t wrapped;                                             \
        duo_status st_ = name##_all(x, n, &wrapped);                  \
        if (st_ == DUO_SUCCESS)                                       \
            *(int64_t *)(result) = (int64_t)wrapped;                  \
        return st_;                                                   \
    } while (0)

duo_status duo_be_reduce(duo_reduce_op op, duo_dtype type, const void *x,
                         size_t n, void *result)
{
#define CASE(opname, name, In, Acc)                                         \
    if (op == opname && type == DUO_##In)                                   \
        return name##_all((const void *)x, n, (Acc *)result)
    if (op == DUO_SUM && type == DUO_I32)
        SIGNED_SUM(sum_i32, (const int32_t *)x, n, result);
    if (op == DUO_SUM && type == DUO_I64)
        SIGNED_SUM(sum_i64, (const int64_t *)x, n, result);
    CASE(DUO_SUM, sum_f32, F32, double);
    CASE(DUO_SUM, sum_f64, F64, double);
    CASE(DUO_SUM, sum_u64, U64, uint64_t);
    CASE(DUO_MIN, min_f32, F32, float);
    CASE(DUO_MIN, min_f64, F64, double);
    CASE(DUO_MIN, min_i32, I32, int32_t);
    CASE(DUO_MIN, min_i64, I64, int64_t);
    CASE(DUO_MIN, min_u64, U64, uint64_t);
    CASE(DUO_MAX, max_f32, F32, float);
    CASE(DUO_MAX, max_f64, F64, double);
    CASE(DUO_MAX, max_i32, I32, int32_t);
    CASE(DUO_MAX, max_i64, I64, int64_t);
    CASE(DUO_MAX, max_u64, U64, uint64_t);
#undef CASE
    return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_reduce",
                    "no reduction for op %d on type %d", (int)op, (int)type);
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
    enum {                                                                   \
        name##_VEC = DUO_REDUCE_VEC(sizeof(In)),                             \
        name##_LANES = DUO_REDUCE_LANES(sizeof(In))                          \
    };                                                                       \
    static double name##_chunk(const In *x, const In *y, size_t n,           \
                               size_t steps, size_t c)                       \
    {                                                                        \
        const size_t chunk = steps * name##_LANES;                           \
        double lane[name##_LANES];                                           \
        for (size_t l = 0; l < name##_LANES; ++l)                            \
            lane[l] = 0.0;                                                   \
        const size_t base = c * chunk;                                       \
        if (n - base >= chunk) {                                             \
            for (size_t s = 0; s < steps; ++s) {                             \
                const In *p = x + base + s * name##_LANES;                   \
                const In *q = y + base + s * name##_LANES;                   \
                _Pragma("omp simd")                                          \
                for (size_t l = 0; l < name##_LANES; ++l) {                  \
                    const double prod = (double)p[l] * (double)q[l];         \
                    lane[l] = lane[l] + prod;                                \
                }                                                            \
            }                                                                \
        } else {                                                             \
            for (size_t s = 0; s < steps; ++s)                               \
                for (size_t l = 0; l < name##_LANES; ++l) {                  \
                    const size_t i = base + s * name##_LANES + l;            \
                    if (i < n) {                                             \
                        const double prod = (double)x[i] * (double)y[i];     \
                        lane[l] = lane[l] + prod;                            \
                    }                                                        \
                }                                                            \
        }                                                                    \
        double thread[DUO_REDUCE_THREADS];                                   \
        for (size_t t = 0; t < DUO_REDUCE_THREADS; ++t) {                    \
            const double *v = lane + t * name##_VEC;                         \
            thread[t] = name##_VEC == 4                                      \
                            ? SUM(SUM(v[0], v[1]),                           \
                                  SUM(v[name##_VEC / 2], v[name##_VEC - 1])) \
                            : SUM(v[0], v[1]);                               \
        }                                                                    \
        double out;                                                          \
        BLOCK_FOLD(double, thread, DUO_REDUCE_THREADS, SUM, out);            \
        return out;                                                          \
    }                                                                        \
    static duo_status name##_all(const In *x, const In *y, size_t n,         \
                                 double *out)                                \
    {                                                                        \
        const size_t steps = duo_reduce_steps(n, name##_LANES);              \
        const size_t chunk = steps * name##_LANES;                           \
        const size_t chunks = (n + chunk - 1) / chunk;                       \
        double final[DUO_REDUCE_FINAL_THREADS];                              \
        for (size_t t = 0; t < DUO_REDUCE_FINAL_THREADS; ++t)                \
            final[t] = 0.0;                                                  \
        /* Slot t adds chunks t, t + FINAL, ... in order (step 5) with no */ \
        /* table of partials; dealt round-robin so that few chunks still  */ \
        /* spread over every thread.                                      */ \
        OMP(parallel for schedule(static, 1) if (chunks > 1))                \
        for (size_t t = 0; t < DUO_REDUCE_FINAL_THREADS; ++t)                \
            for (size_t c = t; c < chunks; c += DUO_REDUCE_FINAL_THREADS)    \
                final[t] = SUM(final[t], name##_chunk(x, y, n, steps, c));   \
        BLOCK_FOLD(double, final, DUO_REDUCE_FINAL_THREADS, SUM, *out);      \
        return DUO_SUCCESS;                                                  \
    }

DEFINE_DOT(dot_f32, float)
DEFINE_DOT(dot_f64, double)

duo_status duo_be_dot_async(duo_dtype type, size_t n, int count,
                            const void *const *x, const void *const *y,
                            double *result, duo_stream stream)
{
    (void)stream;
    for (int k = 0; k < count; ++k) {
        double value = 0.0;
        if (type == DUO_F32)
            dot_f32_all((const float *)x[k], (const float *)y[k], n, &value);
        else
            dot_f64_all((const double *)x[k], (const double *)y[k], n,
                        &value);
        result[k] = value;
    }
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
    static name##_pair name##_all(const In *x, size_t n, int parallel)       \
    {                                                                        \
        const size_t CHUNK = duo_reduce_steps(n, DUO_REDUCE_LANES(sizeof(In))) * \
                             DUO_REDUCE_LANES(sizeof(In));                   \
        const name##_pair none = {IDENTITY, UINT64_MAX};                     \
        const size_t chunks = (n + CHUNK - 1) / CHUNK;                       \
        name##_pair best = none;                                             \
        (void)parallel; /* the serial build has no threads to share */      \
        OMP(parallel if (parallel && chunks > 1))                            \
        {                                                                    \
            name##_pair mine = none;                                         \
            OMP(for schedule(static) nowait)                                 \
            for (size_t c = 0; c < chunks; ++c) {                            \
                const size_t end = n - c * CHUNK < CHUNK ? n : (c + 1) * CHUNK; \
                for (size_t i = c * CHUNK; i < end; ++i) {                   \
                    const name##_pair e = {x[i], i};                         \
                    mine = name##_op(mine, e);                               \
                }                                                            \
            }                                                                \
            OMP(critical(duo_reduce_arg))                                    \
            best = name##_op(best, mine);                                    \
        }                                                                    \
        return best;                                                         \
    }                                                                        \
    static void name##_segments(const In *x, size_t len, size_t count,      \
                                uint64_t *words)                             \
    {                                                                        \
        OMP(parallel for schedule(static) if (count > 1))                    \
        for (size_t s = 0; s < count; ++s) {                                 \
            const name##_pair best =                                         \
                name##_all(x + s * len, len, count == 1);                    \
            words[2 * s] = best.i;                                           \
            words[2 * s + 1] = 0;                                            \
            memcpy(&words[2 * s + 1], &best.v, sizeof best.v);               \
        }                                                                    \
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

duo_status duo_be_reduce_arg(duo_reduce_op op, duo_dtype type,
                             const void *x, size_t n, size_t *index,
                             void *value)
{
#define CASE(opname, name, In, T)                                       \
    if (op == opname && type == DUO_##In) {                             \
        const name##_pair best = name##_all((const T *)x, n, 1);        \
        *index = (size_t)best.i;                                        \
        if (value != NULL)                                              \
            *(T *)value = best.v;                                       \
        return DUO_SUCCESS;                                             \
    }
    CASE(DUO_MIN, argmin_f32, F32, float)
    CASE(DUO_MIN, argmin_f64, F64, double)
    CASE(DUO_MIN, argmin_i32, I32, int32_t)
    CASE(DUO_MIN, argmin_i64, I64, int64_t)
    CASE(DUO_MIN, argmin_u64, U64, uint64_t)
    CASE(DUO_MAX, argmax_f32, F32, float)
    CASE(DUO_MAX, argmax_f64, F64, double)
    CASE(DUO_MAX, argmax_i32, I32, int32_t)
    CASE(DUO_MAX, argmax_i64, I64, int64_t)
    CASE(DUO_MAX, argmax_u64, U64, uint64_t)
#undef CASE
    return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_reduce_arg",
                    "no index reduction for op %d on type %d", (int)op,
                    (int)type);
}

/* ------------------------------------------------------------------ */
/* Segments (the distributed layer's chunks)                           */

duo_status duo_be_reduce_segments(duo_reduce_op op, duo_dtype type, int arg,
                                  const void *x, size_t len, size_t count,
                                  uint64_t *words, void *scratch,
                                  duo_stream stream)
{
    (void)scratch;
    (void)stream;
#define SEG(opname, name, In)                                               \
    if (op == opname && type == DUO_##In)                                   \
        return name##_segments((const void *)x, len, count, words)
#define ARG_SEG(opname, name, In)                                           \
    if (op == opname && type == DUO_##In) {                                 \
        name##_segments((const void *)x, len, count, words);                \
        return DUO_SUCCESS;                                                 \
    }
    if (arg) {
        ARG_SEG(DUO_MIN, argmin_f32, F32)
        ARG_SEG(DUO_MIN, argmin_f64, F64)
        ARG_SEG(DUO_MIN, argmin_i32, I32)
        ARG_SEG(DUO_MIN, argmin_i64, I64)
        ARG_SEG(DUO_MIN, argmin_u64, U64)
        ARG_SEG(DUO_MAX, argmax_f32, F32)
        ARG_SEG(DUO_MAX, argmax_f64, F64)
        ARG_SEG(DUO_MAX, argmax_i32, I32)
        ARG_SEG(DUO_MAX, argmax_i64, I64)
        ARG_SEG(DUO_MAX, argmax_u64, U64)
    } else {
        SEG(DUO_SUM, sum_f32, F32);
        SEG(DUO_SUM, sum_f64, F64);
        SEG(DUO_SUM, sum_i32, I32);
        SEG(DUO_SUM, sum_i64, I64);
        SEG(DUO_SUM, sum_u64, U64);
        SEG(DUO_MIN, min_f32, F32);
        SEG(DUO_MIN, min_f64, F64);
        SEG(DUO_MIN, min_i32, I32);
        SEG(DUO_MIN, min_i64, I64);
        SEG(DUO_MIN, min_u64, U64);
        SEG(DUO_MAX, max_f32, F32);
        SEG(DUO_MAX, max_f64, F64);
        SEG(DUO_MAX, max_i32, I32);
        SEG(DUO_MAX, max_i64, I64);
        SEG(DUO_MAX, max_u64, U64);
    }
#undef SEG
#undef ARG_SEG
    return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_reduce_segments",
                    "no %sreduction for op %d on type %d", arg ? "index " : "",
                    (int)op, (int)type);
}

/* Host memory: the work needs no device scratch. */
size_t duo_be_reduce_segments_scratch(duo_dtype type, int arg, size_t len,
                                      size_t count)
{
    (void)type;
    (void)arg;
    (void)len;
    (void)count;
    return 0;
}
