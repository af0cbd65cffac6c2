/*
 * yardstick_segmented.h - what duo-bench's segmented group measures
 * duo_segmented_reduce against, on the same device buffers, one
 * implementation per build:
 *
 *   yardstick_segmented_cuda.cu  CUB's DeviceSegmentedReduce (Sum, Max)
 *                                over begin / end offsets (offsets,
 *                                offsets + 1), its temporary storage
 *                                kept between calls: what a CUDA
 *                                programmer writes.
 *   yardstick_segmented_cpu.c    an OpenMP loop over the segments
 *                                (plain loops in the serial build), each
 *                                segment a plain loop, sums in double.
 *
 * Enqueued on the default stream, results in device memory.  Any failure
 * prints what failed and exits 1.
 */
#ifndef DUO_BENCH_YARDSTICK_SEGMENTED_H
#define DUO_BENCH_YARDSTICK_SEGMENTED_H

#include <stddef.h>

#include <duo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* For the table: "CUB DeviceSegmentedReduce" or "OpenMP loop over
 * segments" ("serial loop ..." in the serial build). */
const char *ys_segmented_name(void);

/* Unit roundoff of the yardstick's sums of f32 (CUB adds floats in
 * float; the CPU loop in double). */
double ys_segmented_sum_unit_f32(void);

/* Segment s is x[offsets[s] .. offsets[s+1]) (device memory, as duo).
 * result[s], device memory: for DUO_MAX the element type; for DUO_SUM a
 * double on the CPU, the element type with CUB.  DUO_SUM and DUO_MAX of
 * DUO_F32 and DUO_F64 only: returns 0, doing nothing, otherwise. */
int ys_segmented_reduce(duo_reduce_op op, duo_dtype type, const void *x,
                        const size_t *offsets, size_t nseg, void *result);

/* Frees what the yardstick kept (CUB's temporary storage). */
void ys_segmented_release(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DUO_BENCH_YARDSTICK_SEGMENTED_H */
