/*
 * duo/reduce_order.h - the one order in which duo combines the elements
 * of a reduction: duo_reduce, duo_reduce_async and duo_dot_async over
 * their n elements, the segmented reductions over each segment, and user
 * reductions (DUO_REDUCE_DEFINE) over their n element values.
 *
 * Every backend follows it exactly, so a floating-point sum has the same
 * bits on the GPU, with OpenMP at any thread count, and serially.  The
 * shape is the one a GPU runs fastest, written down so a CPU can repeat
 * it:
 *
 *  1. Elements are read in vectors of VEC = 16 / sizeof(element) (one
 *     16-byte load).  A "lane" is one slot of such a vector in one of
 *     THREADS threads: LANES = THREADS * VEC lanes.
 *  2. The array is cut into chunks of CHUNK = STEPS * LANES elements,
 *     where STEPS = duo_reduce_steps(n, LANES) grows with n from 1 to
 *     MAX_STEPS (short arrays get many small chunks, so many blocks share
 *     them; long ones get long chunks, so per-chunk work is amortized).
 *     In chunk c, lane l combines elements c*CHUNK + s*LANES + l for
 *     s = 0 .. STEPS-1 in that order (skipping those >= n), starting from
 *     the identity, in the accumulator type.
 *  3. Thread t's VEC lanes are combined as a balanced pair tree:
 *     VEC=4: (l0 + l1) + (l2 + l3);  VEC=2: l0 + l1.
 *  4. Within each warp of 32 threads, and then across the THREADS/32 warp
 *     results, values are folded in halves: for h = size/2, size/4 .. 1,
 *     v[i] = v[i] + v[i + h] for i < h (what a shuffle-down tree does).
 *     The result is the chunk's partial.
 *  5. The partials are reduced the same way with FINAL_THREADS threads of
 *     one element each (VEC = 1): thread t combines partials
 *     t, t + FINAL_THREADS, ... in order, starting from the identity,
 *     then steps 4.
 *
 * "+" stands for the operation: a sum, or the NaN-propagating min/max of
 * duo/kernel.h.  Index reductions (argmin/argmax) break ties by the lower
 * index, which makes them independent of order; they use the same shape.
 *
 * The identity changes nothing it is combined with, after step 2's first
 * combination: min and max never change a value by taking the identity,
 * and a sum's lanes start as 0 + x, which is never -0 (0 + -0 = +0), so
 * no value of the tree is -0 and adding 0 leaves every one unchanged.
 * Implementations may therefore skip the combinations with lanes,
 * threads, warps and slots that hold only the identity.
 *
 * Below the constants, the host form of steps 2 to 5 (macros that define
 * functions, for the CPU backends and the host code of user reductions);
 * the GPU form is in duo/reduce_cuda.h.
 */
#ifndef DUO_REDUCE_ORDER_H
#define DUO_REDUCE_ORDER_H

#include <stddef.h>

#define DUO_REDUCE_THREADS 256
#define DUO_REDUCE_MAX_STEPS 16
#define DUO_REDUCE_FINAL_THREADS 1024
#define DUO_REDUCE_WARP 32

#define DUO_REDUCE_VEC(elem_size) (16 / (elem_size))
#define DUO_REDUCE_LANES(elem_size) \
    (DUO_REDUCE_THREADS * DUO_REDUCE_VEC(elem_size))

#if defined(__CUDACC__)
#define DUO_ORDER_FN_ static inline __host__ __device__
#else
#define DUO_ORDER_FN_ static inline
#endif

/* Steps per chunk: the largest power of two <= MAX_STEPS that still
 * leaves at least 1024 chunks (enough to spread over every multiprocessor
 * of a large GPU), and at least 1. */
DUO_ORDER_FN_ size_t duo_reduce_steps(size_t n, size_t lanes)
{
    size_t steps = 1;
    while (steps < DUO_REDUCE_MAX_STEPS && n / (lanes * steps * 2) >= 1024)
        steps *= 2;
    return steps;
}

/* ------------------------------------------------------------------ */
/* The host form.  OP(a, b) combines two values of the accumulator type
 * Acc (a macro may name its operands more than once: they are always
 * variables here), IDENTITY is its identity, ELEM(ctx, i) gives element i
 * as an Acc.  Nothing here depends on the number of OpenMP threads. */

/* Loop hints, and the ways DUO_ORDER_DEFINE_ALL shares its chunks among
 * OpenMP threads, by name: guided (on demand, in blocks that shrink, for
 * elements whose cost varies), dynamic (on demand, one at a time),
 * static (contiguous blocks of equal chunks), none.  They mean
 * nothing where there is no OpenMP, and while nvcc compiles for the GPU,
 * where host functions are parsed but not compiled. */
#if defined(__CUDA_ARCH__)
#define DUO_ORDER_SIMD_
#else
#define DUO_ORDER_SIMD_ _Pragma("omp simd")
#endif
#if defined(_OPENMP) && !defined(__CUDA_ARCH__)
#define DUO_ORDER_SHARE_guided \
    _Pragma("omp parallel for schedule(guided) if (tasks > 1)")
#define DUO_ORDER_SHARE_dynamic \
    _Pragma("omp parallel for schedule(dynamic) if (tasks > 1)")
#define DUO_ORDER_SHARE_static \
    _Pragma("omp parallel for schedule(static) if (tasks > 1)")
#else
#define DUO_ORDER_SHARE_guided
#define DUO_ORDER_SHARE_dynamic
#define DUO_ORDER_SHARE_static
#endif
#define DUO_ORDER_SHARE_none

/* Step 4: fold v[0..size) in halves, leaving the result in v[0], where
 * v[count..size) hold the identity: those combinations are skipped. */
#define DUO_ORDER_FOLD(v, size, count, OP)                                 \
    do {                                                                   \
        size_t duo_c_ = (count);                                           \
        for (size_t duo_h_ = (size) / 2; duo_h_ > 0; duo_h_ /= 2) {        \
            const size_t duo_m_ =                                          \
                duo_c_ <= duo_h_ ? 0                                       \
                : duo_c_ - duo_h_ < duo_h_ ? duo_c_ - duo_h_ : duo_h_;     \
            for (size_t duo_i_ = 0; duo_i_ < duo_m_; ++duo_i_)             \
                (v)[duo_i_] = OP((v)[duo_i_], (v)[duo_i_ + duo_h_]);       \
            duo_c_ = duo_c_ < duo_h_ ? duo_c_ : duo_h_;                    \
        }                                                                  \
    } while (0)

/* Step 4 over v[0..threads), into out: each warp, then the warp results;
 * v[used..) are the identity and are not read. */
#define DUO_ORDER_BLOCK_FOLD(Acc, v, threads, used, OP, IDENTITY, out)     \
    do {                                                                   \
        const size_t duo_used_ = (used);                                   \
        const size_t duo_nw_ =                                             \
            (duo_used_ + DUO_REDUCE_WARP - 1) / DUO_REDUCE_WARP;           \
        Acc duo_warps_[(threads) / DUO_REDUCE_WARP];                       \
        for (size_t duo_w_ = 0; duo_w_ < duo_nw_; ++duo_w_) {              \
            Acc *duo_warp_ = (v) + duo_w_ * DUO_REDUCE_WARP;               \
            const size_t duo_left_ = duo_used_ - duo_w_ * DUO_REDUCE_WARP; \
            DUO_ORDER_FOLD(duo_warp_, DUO_REDUCE_WARP,                     \
                           duo_left_ < DUO_REDUCE_WARP ? duo_left_         \
                                                       : DUO_REDUCE_WARP,  \
                           OP);                                            \
            duo_warps_[duo_w_] = duo_warp_[0];                             \
        }                                                                  \
        DUO_ORDER_FOLD(duo_warps_, (threads) / DUO_REDUCE_WARP, duo_nw_,   \
                       OP);                                                \
        (out) = duo_nw_ > 0 ? duo_warps_[0] : (IDENTITY);                  \
    } while (0)

/* Steps 2 to 4 for the lanes of P threads of one warp, of which the
 * first `count` hold elements base, base + 1, ...; P a power of two (a
 * constant, so that the fold has fixed bounds), into out.  Each thread
 * reads its own VEC elements where its pair tree needs them: a vector of
 * threads reads them with a stride, which compilers make of shuffles of
 * the elements, cheaper than shuffles of the accumulators after step 2
 * (64 floats summed in double took 19 ns instead of 26, serially).
 * Lanes past the elements hold the identity: where DUO_ORDER_FOLD skips
 * a combination with it, this one makes it, which changes nothing (see
 * the top of this file). */
#define DUO_ORDER_WARP_TREE_(Acc, VEC, OP, IDENTITY, ELEM, ctx, base, count, \
                             P, out)                                       \
    do {                                                                   \
        Acc duo_t_[P];                                                     \
        const size_t duo_full_ = (count) / (VEC);                          \
        for (size_t duo_i_ = 0; duo_i_ < duo_full_; ++duo_i_) {            \
            Acc duo_v_[VEC];                                               \
            for (size_t duo_j_ = 0; duo_j_ < (VEC); ++duo_j_) {            \
                const Acc duo_x_ =                                         \
                    ELEM(ctx, (base) + duo_i_ * (VEC) + duo_j_);           \
                duo_v_[duo_j_] = OP((Acc)(IDENTITY), duo_x_);              \
            }                                                              \
            duo_t_[duo_i_] = DUO_ORDER_PAIRS_(VEC, OP, duo_v_);            \
        }                                                                  \
        for (size_t duo_i_ = duo_full_; duo_i_ < (P); ++duo_i_) {          \
            Acc duo_v_[VEC];                                               \
            for (size_t duo_j_ = 0; duo_j_ < (VEC); ++duo_j_) {            \
                const size_t duo_l_ = duo_i_ * (VEC) + duo_j_;             \
                duo_v_[duo_j_] = IDENTITY;                                 \
                if (duo_l_ < (count)) {                                    \
                    const Acc duo_x_ = ELEM(ctx, (base) + duo_l_);         \
                    duo_v_[duo_j_] = OP((Acc)(IDENTITY), duo_x_);          \
                }                                                          \
            }                                                              \
            duo_t_[duo_i_] = DUO_ORDER_PAIRS_(VEC, OP, duo_v_);            \
        }                                                                  \
        DUO_ORDER_HALVE_(duo_t_, P, 16, OP);                               \
        DUO_ORDER_HALVE_(duo_t_, P, 8, OP);                                \
        DUO_ORDER_HALVE_(duo_t_, P, 4, OP);                                \
        DUO_ORDER_HALVE_(duo_t_, P, 2, OP);                                \
        DUO_ORDER_HALVE_(duo_t_, P, 1, OP);                                \
        (out) = duo_t_[0];                                                 \
    } while (0)

/* Step 3: a thread's VEC lanes v as a balanced pair tree. */
#define DUO_ORDER_PAIRS_(VEC, OP, v)                                       \
    ((VEC) == 4 ? OP(OP((v)[0], (v)[1]), OP((v)[(VEC) / 2], (v)[(VEC) - 1])) \
                : OP((v)[0], (v)[1]))

/* The cases of a switch on P = 1 .. 32, each putting
 * DUO_ORDER_WARP_TREE_ of P threads in out. */
#define DUO_ORDER_WARP_CASE_(Acc, VEC, OP, IDENTITY, ELEM, ctx, base, count, \
                             P, out)                                       \
    case P:                                                                \
        DUO_ORDER_WARP_TREE_(Acc, VEC, OP, IDENTITY, ELEM, ctx, base,       \
                             count, P, out);                               \
        break;
#define DUO_ORDER_WARP_CASES_(Acc, VEC, OP, IDENTITY, ELEM, ctx, base,      \
                              count, out)                                  \
    DUO_ORDER_WARP_CASE_(Acc, VEC, OP, IDENTITY, ELEM, ctx, base, count, 1, \
                         out)                                              \
    DUO_ORDER_WARP_CASE_(Acc, VEC, OP, IDENTITY, ELEM, ctx, base, count, 2, \
                         out)                                              \
    DUO_ORDER_WARP_CASE_(Acc, VEC, OP, IDENTITY, ELEM, ctx, base, count, 4, \
                         out)                                              \
    DUO_ORDER_WARP_CASE_(Acc, VEC, OP, IDENTITY, ELEM, ctx, base, count, 8, \
                         out)                                              \
    DUO_ORDER_WARP_CASE_(Acc, VEC, OP, IDENTITY, ELEM, ctx, base, count,    \
                         16, out)                                          \
    DUO_ORDER_WARP_CASE_(Acc, VEC, OP, IDENTITY, ELEM, ctx, base, count,    \
                         32, out)

/* One level of the fold, v[i] = v[i] + v[i + h] for i < h, where P > h. */
#define DUO_ORDER_HALVE_(v, P, h, OP)                                      \
    do {                                                                   \
        if ((P) > (h))                                                     \
            for (size_t duo_i_ = 0; duo_i_ < (h); ++duo_i_)                \
                (v)[duo_i_] = OP((v)[duo_i_], (v)[duo_i_ + (h)]);          \
    } while (0)

/* HINT for ELEMs that read no array (see below). */
#define DUO_ORDER_NO_HINT(ctx, i) ((void)0)

/* Defines  static Acc fname(Ctx ctx, size_t n, size_t steps, size_t c):
 * steps 2 to 4 for chunk c of n elements with VEC lanes per thread.
 * Each step's lanes form a vector loop, the first step's starting each
 * lane from the identity as it goes (a separate loop of stores became a
 * memset call, most of the time of a short reduction); a short last
 * chunk sets up and reads only the lanes that have elements (to the end
 * of their thread) and combines only the threads and warps they reach.
 * A chunk of at most one warp's lanes (a short reduction, a short
 * segment) takes DUO_ORDER_WARP_TREE_ over the next power of two of its
 * threads instead: the same value, each thread reading its own
 * elements, and a fold of fixed bounds.
 *
 * HINT(ctx, i) prefetches element i (DUO_ORDER_NO_HINT: nothing).  A
 * whole chunk hints each 64-byte line of the next step (or of the next
 * chunk's first) while it reads the same line of this one, never past n:
 * a step's reads come in a burst and the tree that follows reads
 * nothing, so a prefetcher that waits for misses falls behind at every
 * 4 KiB page. */
#define DUO_ORDER_DEFINE_CHUNK(fname, Acc, VEC, OP, IDENTITY, Ctx, ELEM,     \
                               HINT)                                         \
    static Acc fname(Ctx ctx, size_t n, size_t steps, size_t c)              \
    {                                                                        \
        enum { duo_lanes_ = DUO_REDUCE_THREADS * (VEC) };                    \
        const size_t chunk = steps * duo_lanes_;                             \
        const size_t base = c * chunk;                                       \
        const size_t count = n - base < chunk ? n - base : chunk;            \
        const size_t filled =                                                \
            count < (size_t)duo_lanes_ ? count : (size_t)duo_lanes_;         \
        const size_t used = (filled + (VEC) - 1) / (VEC); /* threads */      \
        if (count <= (size_t)DUO_REDUCE_WARP * (VEC)) {                      \
            size_t p = 1;                                                    \
            while (p < used)                                                 \
                p *= 2;                                                      \
            Acc out = IDENTITY; /* the cases cover every p */              \
            switch (p) {                                                     \
            DUO_ORDER_WARP_CASES_(Acc, VEC, OP, IDENTITY, ELEM, ctx, base,   \
                                  count, out)                                \
            }                                                                \
            return out;                                                      \
        }                                                                    \
        Acc lane[duo_lanes_];                                                \
        if (count == chunk) {                                                \
            for (size_t s = 0; s < steps; ++s) {                             \
                const size_t first = base + s * duo_lanes_;                  \
                for (size_t b = 0; b < (size_t)duo_lanes_; b += 4 * (VEC)) { \
                    if (first + duo_lanes_ + b < n)                          \
                        HINT(ctx, first + duo_lanes_ + b);                   \
                    if (s == 0) {                                            \
                        DUO_ORDER_SIMD_                                      \
                        for (size_t l = b; l < b + 4 * (VEC); ++l) {         \
                            const Acc v = ELEM(ctx, first + l);              \
                            lane[l] = OP((Acc)(IDENTITY), v);                \
                        }                                                    \
                    } else {                                                 \
                        DUO_ORDER_SIMD_                                      \
                        for (size_t l = b; l < b + 4 * (VEC); ++l) {         \
                            const Acc v = ELEM(ctx, first + l);              \
                            lane[l] = OP(lane[l], v);                        \
                        }                                                    \
                    }                                                        \
                }                                                            \
            }                                                                \
        } else {                                                             \
            for (size_t s = 0; s * duo_lanes_ < count; ++s) {                \
                const size_t first = base + s * duo_lanes_;                  \
                const size_t left = count - s * duo_lanes_;                  \
                const size_t m =                                             \
                    left < (size_t)duo_lanes_ ? left : (size_t)duo_lanes_;   \
                if (s == 0) {                                                \
                    DUO_ORDER_SIMD_                                          \
                    for (size_t l = 0; l < m; ++l) {                         \
                        const Acc v = ELEM(ctx, first + l);                  \
                        lane[l] = OP((Acc)(IDENTITY), v);                    \
                    }                                                        \
                    for (size_t l = m; l < used * (VEC); ++l)                \
                        lane[l] = IDENTITY; /* the last thread's rest */     \
                } else {                                                     \
                    DUO_ORDER_SIMD_                                          \
                    for (size_t l = 0; l < m; ++l) {                         \
                        const Acc v = ELEM(ctx, first + l);                  \
                        lane[l] = OP(lane[l], v);                            \
                    }                                                        \
                }                                                            \
            }                                                                \
        }                                                                    \
        Acc thread[DUO_REDUCE_THREADS];                                      \
        for (size_t t = 0; t < used; ++t) {                                  \
            const Acc *v = lane + t * (VEC);                                 \
            thread[t] = (VEC) == 4 ? OP(OP(v[0], v[1]),                      \
                                        OP(v[(VEC) / 2], v[(VEC) - 1]))      \
                                   : OP(v[0], v[1]);                         \
        }                                                                    \
        Acc out;                                                             \
        DUO_ORDER_BLOCK_FOLD(Acc, thread, DUO_REDUCE_THREADS, used, OP,      \
                             IDENTITY, out);                                 \
        return out;                                                          \
    }

/* Defines  static Acc fname(Ctx ctx, size_t n): steps 2 to 5 over n
 * elements, chunk_fn being a function from DUO_ORDER_DEFINE_CHUNK with
 * the same Acc, VEC, OP and IDENTITY.  A single chunk's partial is the
 * result (step 5 would only combine it with the identity).  Otherwise
 * the chunks' partials are made DUO_ORDER_ROUND at a time, shared among
 * OpenMP threads as SHARE (guided, dynamic, static or none) says, then
 * added to step 5's slots in chunk order. */
#define DUO_ORDER_ROUND 4096
#define DUO_ORDER_DEFINE_ALL(fname, chunk_fn, Acc, VEC, OP, IDENTITY, Ctx,  \
                             SHARE)                                          \
    static Acc fname(Ctx ctx, size_t n)                                      \
    {                                                                        \
        const size_t steps =                                                 \
            duo_reduce_steps(n, DUO_REDUCE_THREADS * (VEC));                 \
        const size_t chunk = steps * DUO_REDUCE_THREADS * (VEC);             \
        const size_t chunks = (n + chunk - 1) / chunk;                       \
        if (chunks == 1) /* step 5 over one partial: the partial itself */  \
            return chunk_fn(ctx, n, steps, 0);                               \
        const size_t used = chunks < DUO_REDUCE_FINAL_THREADS                \
                                ? chunks                                     \
                                : DUO_REDUCE_FINAL_THREADS;                  \
        Acc final[DUO_REDUCE_FINAL_THREADS];                                 \
        for (size_t t = 0; t < used; ++t)                                    \
            final[t] = IDENTITY;                                             \
        for (size_t first = 0; first < chunks; first += DUO_ORDER_ROUND) {   \
            const size_t tasks = chunks - first < DUO_ORDER_ROUND            \
                                     ? chunks - first                        \
                                     : DUO_ORDER_ROUND;                      \
            Acc part[DUO_ORDER_ROUND];                                       \
            DUO_ORDER_SHARE_##SHARE                                          \
            for (size_t k = 0; k < tasks; ++k)                               \
                part[k] = chunk_fn(ctx, n, steps, first + k);                \
            for (size_t k = 0; k < tasks; ++k) {                             \
                Acc *slot = final + (first + k) % DUO_REDUCE_FINAL_THREADS;  \
                *slot = OP(*slot, part[k]);                                  \
            }                                                                \
        }                                                                    \
        Acc out;                                                             \
        DUO_ORDER_BLOCK_FOLD(Acc, final, DUO_REDUCE_FINAL_THREADS, used, OP, \
                             IDENTITY, out);                                 \
        return out;                                                          \
    }

#endif /* DUO_REDUCE_ORDER_H */
