/*
 * yardstick_segmented_cuda.cu - the segmented group's yardstick in CUDA
 * builds (yardstick_segmented.h): CUB's DeviceSegmentedReduce::Sum and
 * ::Max (CUB from the toolkit's CCCL headers) on the default stream,
 * with begin / end offsets (offsets, offsets + 1) and the temporary
 * storage kept (grown when a call needs more), as a CUDA programmer
 * would call it.  CUB sums floats in float.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cub/device/device_segmented_reduce.cuh>

#include "yardstick_segmented.h"

static void *temp;
static size_t temp_bytes;

static void check(cudaError_t err, const char *what)
{
    if (err != cudaSuccess) {
        fprintf(stderr, "duo-bench: segmented yardstick: %s: %s\n", what,
                cudaGetErrorString(err));
        exit(1);
    }
}

/* Query the storage op needs, grow it, run op. */
template <class Op> static void with_temp(Op op)
{
    size_t need = 0;
    check(op((void *)NULL, need), "CUB size query");
    if (need > temp_bytes) {
        check(cudaFree(temp), "cudaFree");
        temp = NULL;
        check(cudaMalloc(&temp, need), "cudaMalloc (CUB temporary storage)");
        temp_bytes = need;
    }
    check(op(temp, need), "CUB DeviceSegmentedReduce");
}

template <class T>
static void segmented(duo_reduce_op op, const void *x, const size_t *offsets,
                      size_t nseg, void *result)
{
    const T *in = (const T *)x;
    T *out = (T *)result;
    const int segments = (int)nseg;
    if (op == DUO_SUM)
        with_temp([&](void *t, size_t &bytes) {
            return cub::DeviceSegmentedReduce::Sum(t, bytes, in, out, segments,
                                                   offsets, offsets + 1, 0);
        });
    else
        with_temp([&](void *t, size_t &bytes) {
            return cub::DeviceSegmentedReduce::Max(t, bytes, in, out, segments,
                                                   offsets, offsets + 1, 0);
        });
}

extern "C" const char *ys_segmented_name(void)
{
    return "CUB DeviceSegmentedReduce";
}

extern "C" double ys_segmented_sum_unit_f32(void) { return 0x1p-24; }

extern "C" int ys_segmented_reduce(duo_reduce_op op, duo_dtype type,
                                   const void *x, const size_t *offsets,
                                   size_t nseg, void *result)
{
    if ((op != DUO_SUM && op != DUO_MAX) ||
        (type != DUO_F32 && type != DUO_F64))
        return 0;
    if (type == DUO_F32)
        segmented<float>(op, x, offsets, nseg, result);
    else
        segmented<double>(op, x, offsets, nseg, result);
    check(cudaGetLastError(), "CUB DeviceSegmentedReduce launch");
    return 1;
}

extern "C" void ys_segmented_release(void)
{
    check(cudaFree(temp), "cudaFree");
    temp = NULL;
    temp_bytes = 0;
}
