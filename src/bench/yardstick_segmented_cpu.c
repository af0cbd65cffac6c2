/*
 * yardstick_segmented_cpu.c - the segmented group's yardstick in CPU
 * builds (yardstick_segmented.h): #pragma omp parallel for over the
 * segments, each a plain loop; sums accumulate in double, as
 * duo_segmented_reduce's do.  Max propagates NaN as duo's does.  Plain
 * C11, no kernels.
 */
#include <math.h>

#include "yardstick_segmented.h"

#ifdef _OPENMP
#define YS_SEG_NAME "OpenMP loop over segments"
#else
#define YS_SEG_NAME "serial loop over segments"
#endif

const char *ys_segmented_name(void) { return YS_SEG_NAME; }

double ys_segmented_sum_unit_f32(void) { return 0x1p-53; }

#define YS_SUM(In, x, offsets, nseg, out)                                  \
    do {                                                                   \
        const In *v_ = (const In *)(x);                                    \
        _Pragma("omp parallel for")                                        \
        for (size_t s = 0; s < (nseg); ++s) {                              \
            double acc = 0.0;                                              \
            for (size_t i = (offsets)[s]; i < (offsets)[s + 1]; ++i)       \
                acc += v_[i];                                              \
            ((double *)(out))[s] = acc;                                    \
        }                                                                  \
    } while (0)

#define YS_MAX(In, x, offsets, nseg, out, lowest)                          \
    do {                                                                   \
        const In *v_ = (const In *)(x);                                    \
        _Pragma("omp parallel for")                                        \
        for (size_t s = 0; s < (nseg); ++s) {                              \
            In m = (lowest);                                               \
            for (size_t i = (offsets)[s]; i < (offsets)[s + 1]; ++i)       \
                if (v_[i] > m || v_[i] != v_[i])                           \
                    m = v_[i];                                             \
            ((In *)(out))[s] = m;                                          \
        }                                                                  \
    } while (0)

int ys_segmented_reduce(duo_reduce_op op, duo_dtype type, const void *x,
                        const size_t *offsets, size_t nseg, void *result)
{
    if (op == DUO_SUM && type == DUO_F32)
        YS_SUM(float, x, offsets, nseg, result);
    else if (op == DUO_SUM && type == DUO_F64)
        YS_SUM(double, x, offsets, nseg, result);
    else if (op == DUO_MAX && type == DUO_F32)
        YS_MAX(float, x, offsets, nseg, result, -INFINITY);
    else if (op == DUO_MAX && type == DUO_F64)
        YS_MAX(double, x, offsets, nseg, result, -INFINITY);
    else
        return 0;
    return 1;
}

void ys_segmented_release(void) {}
