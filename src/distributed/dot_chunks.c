/*
 * dot_chunks.c - chunk partials of duo's dot-product order, one block of
 * DUO_REDUCE_THREADS threads per chunk and pair (block (j, k): chunk j of
 * pair k), written with duo's block kernels
 * so the same source runs on the GPU (nvcc compiles this file in CUDA
 * builds) and on the CPU.
 *
 * dist_dot_final_pass is step 5 on the device, for the stream-ordered
 * duo_dist_dots_async.
 *
 * Each step restates src/reduce_order.h for one chunk: thread t's VEC
 * lanes add the products of elements base + s LANES + t VEC + v, s = 0
 * .. steps-1, from 0.0; the lanes are paired; each warp folds in halves,
 * then the warp results fold in halves.  The product is rounded before
 * it is added: its own statement in C (ISO C does not contract across
 * statements), __dmul_rn on the GPU (nvcc would fuse it into the add).
 */
#include <duo.h>
#include <duo/kernel.h>

#include "dot_chunks.h"
#include "reduce_order.h"

#if defined(__CUDA_ARCH__)
#define DOT_MUL(a, b) __dmul_rn((a), (b))
#else
#define DOT_MUL(a, b) ((a) * (b))
#endif

#define DOT_WARPS (DUO_REDUCE_THREADS / DUO_REDUCE_WARP)

#define DEFINE_DOT_CHUNKS(name, In)                                          \
    DUO_BLOCK_KERNEL(name, DUO_REDUCE_THREADS, 1, dist_dot_pairs pairs,     \
                     size_t first, size_t n, size_t steps, size_t c0,        \
                     double *out)                                            \
    {                                                                        \
        const In *x = (const In *)pairs.x[DUO_BY];                           \
        const In *y = (const In *)pairs.y[DUO_BY];                           \
        DUO_SHARED(double, v, DUO_REDUCE_THREADS);                           \
        DUO_SHARED(double, warp, DOT_WARPS);                                 \
        const size_t vec = DUO_REDUCE_VEC(sizeof(In));                       \
        const size_t lanes = DUO_REDUCE_LANES(sizeof(In));                   \
        const size_t base = (c0 + DUO_BX) * steps * lanes;                   \
        DUO_THREADS {                                                        \
            double lane[DUO_REDUCE_VEC(sizeof(In))];                         \
            for (size_t k = 0; k < vec; ++k)                                 \
                lane[k] = 0.0;                                               \
            for (size_t s = 0; s < steps; ++s)                               \
                for (size_t k = 0; k < vec; ++k) {                           \
                    const size_t i = base + s * lanes + DUO_TID * vec + k;   \
                    if (i < n) {                                             \
                        const double prod = DOT_MUL((double)x[i - first],    \
                                                    (double)y[i - first]);   \
                        lane[k] = lane[k] + prod;                            \
                    }                                                        \
                }                                                            \
            v[DUO_TID] = vec == 4 ? (lane[0] + lane[1]) +                    \
                                        (lane[vec / 2] + lane[vec - 1])      \
                                  : lane[0] + lane[1];                       \
        }                                                                    \
        DUO_BARRIER;                                                         \
        for (size_t h = DUO_REDUCE_WARP / 2; h > 0; h /= 2) {                \
            DUO_THREADS {                                                    \
                if (DUO_TID % DUO_REDUCE_WARP < h)                           \
                    v[DUO_TID] = v[DUO_TID] + v[DUO_TID + h];                \
            }                                                                \
            DUO_BARRIER;                                                     \
        }                                                                    \
        DUO_THREADS {                                                        \
            if (DUO_TID % DUO_REDUCE_WARP == 0)                              \
                warp[DUO_TID / DUO_REDUCE_WARP] = v[DUO_TID];                \
        }                                                                    \
        DUO_BARRIER;                                                         \
        for (size_t h = DOT_WARPS / 2; h > 0; h /= 2) {                      \
            DUO_THREADS {                                                    \
                if (DUO_TID < h)                                             \
                    warp[DUO_TID] = warp[DUO_TID] + warp[DUO_TID + h];       \
            }                                                                \
            DUO_BARRIER;                                                     \
        }                                                                    \
        DUO_THREADS {                                                        \
            if (DUO_TID == 0)                                                \
                out[DUO_BX * DUO_GRID_Y + DUO_BY] = warp[0];                 \
        }                                                                    \
    }                                                                        \
    DUO_BLOCK_KERNEL_END

DEFINE_DOT_CHUNKS(dist_dot_chunks_f32, float)
DEFINE_DOT_CHUNKS(dist_dot_chunks_f64, double)

#define FINAL_WARPS (DUO_REDUCE_FINAL_THREADS / DUO_REDUCE_WARP)

/* Step 5 for pair DUO_BY: thread t adds partials t, t + FINAL_THREADS,
 * ... in order from 0.0, each warp folds in halves, then the warp
 * results do -- dist_dot.c's final_pass, one block per pair. */
DUO_BLOCK_KERNEL(dist_dot_final_pass, DUO_REDUCE_FINAL_THREADS, 1,
                 size_t chunks, size_t count, const double *slots,
                 double *result)
{
    DUO_SHARED(double, v, DUO_REDUCE_FINAL_THREADS);
    DUO_SHARED(double, warp, FINAL_WARPS);
    DUO_THREADS {
        double sum = 0.0;
        for (size_t c = DUO_TID; c < chunks; c += DUO_REDUCE_FINAL_THREADS)
            sum = sum + slots[c * count + DUO_BY];
        v[DUO_TID] = sum;
    }
    DUO_BARRIER;
    for (size_t h = DUO_REDUCE_WARP / 2; h > 0; h /= 2) {
        DUO_THREADS {
            if (DUO_TID % DUO_REDUCE_WARP < h)
                v[DUO_TID] = v[DUO_TID] + v[DUO_TID + h];
        }
        DUO_BARRIER;
    }
    DUO_THREADS {
        if (DUO_TID % DUO_REDUCE_WARP == 0)
            warp[DUO_TID / DUO_REDUCE_WARP] = v[DUO_TID];
    }
    DUO_BARRIER;
    for (size_t h = FINAL_WARPS / 2; h > 0; h /= 2) {
        DUO_THREADS {
            if (DUO_TID < h)
                warp[DUO_TID] = warp[DUO_TID] + warp[DUO_TID + h];
        }
        DUO_BARRIER;
    }
    DUO_THREADS {
        if (DUO_TID == 0)
            result[DUO_BY] = warp[0];
    }
}
DUO_BLOCK_KERNEL_END

duo_status dist_dot_chunks(duo_dtype type, const dist_dot_pairs *pairs,
                           int count, size_t first, size_t n, size_t steps,
                           size_t c0, size_t chunks, double *out,
                           duo_stream stream)
{
    if (chunks == 0)
        return DUO_SUCCESS;
    if (type == DUO_F32)
        return DUO_LAUNCH_BLOCKS_ON(stream, dist_dot_chunks_f32, chunks,
                                    (size_t)count, *pairs, first, n, steps,
                                    c0, out);
    return DUO_LAUNCH_BLOCKS_ON(stream, dist_dot_chunks_f64, chunks,
                                (size_t)count, *pairs, first, n, steps, c0,
                                out);
}

duo_status dist_dot_final(int count, size_t chunks, const double *slots,
                          double *result, duo_stream stream)
{
    return DUO_LAUNCH_BLOCKS_ON(stream, dist_dot_final_pass, 1,
                                (size_t)count, chunks, (size_t)count, slots,
                                result);
}
