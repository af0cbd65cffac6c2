/*
 * reduce_cpu.h (CPU) - the reductions of reduce.c, for segmented.c: each
 * (op, type) as a function over the whole array with its chunks shared
 * among OpenMP threads (all) and the same on the calling thread (seq).
 * Arguments are valid (src/ checked them); results are written as
 * duo_be_reduce and duo_be_reduce_arg write them, except that an empty
 * array is allowed: its sum is 0, its min / max the identity (the
 * largest / smallest value of the type), its index SIZE_MAX.
 */
#ifndef DUO_REDUCE_CPU_H
#define DUO_REDUCE_CPU_H

#include <stddef.h>

#include "backend.h"

typedef void (*duo_cpu_reduce_fn)(const void *x, size_t n, void *result);
typedef struct duo_cpu_reducer {
    duo_cpu_reduce_fn all, seq;
} duo_cpu_reducer;

typedef void (*duo_cpu_arg_fn)(const void *x, size_t n, size_t *index,
                               void *value);
typedef struct duo_cpu_arg_reducer {
    duo_cpu_arg_fn all, seq;
} duo_cpu_arg_reducer;

duo_cpu_reducer duo_cpu_reducer_for(duo_reduce_op op, duo_dtype type);
/* op: DUO_MIN or DUO_MAX; value may be NULL. */
duo_cpu_arg_reducer duo_cpu_arg_reducer_for(duo_reduce_op op,
                                            duo_dtype type);

#endif /* DUO_REDUCE_CPU_H */
