/*
 * dist_order.c - duo_reduce's order (src/reduce_order.h) on the host, for
 * the few elements of a reduction small enough to travel inside the
 * ranks' first message (n <= DUO_DIST_INLINE).  Every rank then finishes
 * the reduction itself, with no device round trip, in the same bits as
 * duo_reduce.
 *
 * With n <= LANES there is one chunk of one step: lane l holds element l
 * (the identity beyond n), each thread pairs its VEC lanes, the block
 * folds in warps and then across warps; the final pass puts the one
 * partial in thread 0 of FINAL_THREADS and folds again.
 *
 * With n <= DUO_DIST_INLINE at most 4 threads of the first warp hold
 * data; every other value is the identity, so it is not stored: a fold
 * step reads the identity constant where the full array would hold it.
 * This is on the path of every small reduction, whose cost should be
 * MPI's.
 */
#include <math.h>
#include <stdint.h>

#include "dist_internal.h"
#include "reduce_order.h"

#define SUM(a, b) ((a) + (b))
#define MIN(a, b) DUO_COMBINE_DUO_MIN(a, b)
#define MAX(a, b) DUO_COMBINE_DUO_MAX(a, b)

/* Combining a value with the identity is idempotent for every operation
 * here: x + 0 is x except that -0 becomes +0, and then stays +0; min and
 * max with the identity are x, NaN included.  So a run of such steps
 * gives the bits of one, and one is all that is computed (a chain of
 * dependent adds of zero would be most of a small reduction's time). */

/* Step 4 of reduce_order.h, v[i] = v[i] + v[i + h] for h = size/2 .. 1,
 * on an array of `size` values of which only v[0..active) may differ
 * from the identity and only those are stored.  A step combines
 * i < min(active, h) -- an entry next to the identity still gets
 * combined with it (for sums that turns -0 into +0, as on the GPU) --
 * after which only v[0..min(active, h)) is read again.  Once v[0] alone
 * is left, the remaining steps combine it with the identity: once. */
#define FOLD(v, size, OP, IDENTITY, active)                               \
    do {                                                                  \
        size_t m_ = (active);                                             \
        for (size_t h_ = (size) / 2; h_ > 0; h_ /= 2) {                   \
            const size_t lim_ = m_ < h_ ? m_ : h_;                        \
            for (size_t i_ = 0; i_ < lim_; ++i_)                          \
                (v)[i_] = OP((v)[i_], i_ + h_ < m_ ? (v)[i_ + h_]         \
                                                   : (IDENTITY));         \
            m_ = lim_;                                                    \
            if (m_ <= 1 && h_ > 1) { /* steps h_/2 .. 1 remain */         \
                if (m_ == 1)                                              \
                    (v)[0] = OP((v)[0], (IDENTITY));                      \
                break;                                                    \
            }                                                             \
        }                                                                 \
    } while (0)

/* FOLD of one stored value (live: 1, or 0 for none): each of its
 * log2(size) steps combines it with the identity, so one does. */
#define FOLD_ONE(x, size, OP, IDENTITY, live)                             \
    do {                                                                  \
        if ((live) && (size) >= 2)                                        \
            (x) = OP((x), (IDENTITY));                                    \
    } while (0)

/* Threads holding data: at most DUO_DIST_INLINE / 2 (VEC >= 2). */
#define SMALL_THREADS (DUO_DIST_INLINE / 2)

#define DEFINE_SMALL(name, In, Acc, OP, IDENTITY)                        \
    static Acc name(const In *x, size_t n)                               \
    {                                                                    \
        enum { VEC = DUO_REDUCE_VEC(sizeof(In)) };                       \
        const size_t active = (n + VEC - 1) / VEC; /* threads with data */ \
        Acc thread[SMALL_THREADS];                                       \
        for (size_t t = 0; t < active; ++t) {                            \
            Acc lane[VEC];                                               \
            for (size_t v = 0; v < VEC; ++v) {                           \
                const size_t i = t * VEC + v;                            \
                lane[v] = IDENTITY;                                      \
                if (i < n)                                               \
                    lane[v] = OP(lane[v], (Acc)x[i]);                    \
            }                                                            \
            thread[t] = VEC == 4 ? OP(OP(lane[0], lane[1]),              \
                                      OP(lane[VEC / 2], lane[VEC - 1]))  \
                                 : OP(lane[0], lane[1]);                 \
        }                                                                \
        /* The block: warp 0 folds; then the warps, only warp 0's value  \
         * not the identity (none with no data).  (A variable, so that   \
         * max_u64's x > 0 is not a constant comparison.) */              \
        const Acc identity = IDENTITY;                                   \
        FOLD(thread, DUO_REDUCE_WARP, OP, identity, active);             \
        Acc part = active > 0 ? thread[0] : identity;                    \
        FOLD_ONE(part, DUO_REDUCE_THREADS / DUO_REDUCE_WARP, OP,         \
                 identity, active > 0);                                  \
        /* Step 5 with one partial: thread 0 of FINAL_THREADS holds it,  \
         * the rest the identity; warp 0 folds, then the warps. */       \
        Acc out = OP(identity, part);                                    \
        FOLD_ONE(out, DUO_REDUCE_WARP, OP, identity, 1);                 \
        FOLD_ONE(out, DUO_REDUCE_FINAL_THREADS / DUO_REDUCE_WARP, OP,    \
                 identity, 1);                                           \
        return out;                                                      \
    }

DEFINE_SMALL(sum_f32, float, double, SUM, 0.0)
DEFINE_SMALL(sum_f64, double, double, SUM, 0.0)
DEFINE_SMALL(sum_i32, int32_t, uint64_t, SUM, 0)
DEFINE_SMALL(sum_i64, int64_t, uint64_t, SUM, 0)
DEFINE_SMALL(sum_u64, uint64_t, uint64_t, SUM, 0)
DEFINE_SMALL(min_f32, float, float, MIN, INFINITY)
DEFINE_SMALL(min_f64, double, double, MIN, INFINITY)
DEFINE_SMALL(min_i32, int32_t, int32_t, MIN, INT32_MAX)
DEFINE_SMALL(min_i64, int64_t, int64_t, MIN, INT64_MAX)
DEFINE_SMALL(min_u64, uint64_t, uint64_t, MIN, UINT64_MAX)
DEFINE_SMALL(max_f32, float, float, MAX, -INFINITY)
DEFINE_SMALL(max_f64, double, double, MAX, -INFINITY)
DEFINE_SMALL(max_i32, int32_t, int32_t, MAX, INT32_MIN)
DEFINE_SMALL(max_i64, int64_t, int64_t, MAX, INT64_MIN)
DEFINE_SMALL(max_u64, uint64_t, uint64_t, MAX, 0)

void dist_small_reduce(duo_reduce_op op, duo_dtype type, const void *x,
                       size_t n, void *result)
{
#define SMALL_CASE(opname, name, In, Out)                                  \
    if (op == opname && type == DUO_##In) {                                \
        *(Out *)result = (Out)name((const void *)x, n);                    \
        return;                                                            \
    }
    SMALL_CASE(DUO_SUM, sum_f32, F32, double)
    SMALL_CASE(DUO_SUM, sum_f64, F64, double)
    SMALL_CASE(DUO_SUM, sum_i32, I32, int64_t)
    SMALL_CASE(DUO_SUM, sum_i64, I64, int64_t)
    SMALL_CASE(DUO_SUM, sum_u64, U64, uint64_t)
    SMALL_CASE(DUO_MIN, min_f32, F32, float)
    SMALL_CASE(DUO_MIN, min_f64, F64, double)
    SMALL_CASE(DUO_MIN, min_i32, I32, int32_t)
    SMALL_CASE(DUO_MIN, min_i64, I64, int64_t)
    SMALL_CASE(DUO_MIN, min_u64, U64, uint64_t)
    SMALL_CASE(DUO_MAX, max_f32, F32, float)
    SMALL_CASE(DUO_MAX, max_f64, F64, double)
    SMALL_CASE(DUO_MAX, max_i32, I32, int32_t)
    SMALL_CASE(DUO_MAX, max_i64, I64, int64_t)
    SMALL_CASE(DUO_MAX, max_u64, U64, uint64_t)
#undef SMALL_CASE
}
