/*
 * registry_cost.h - what the allocation registry (src/registry.c) costs
 * per call, for duo-bench (registry_cost.c).
 */
#ifndef DUO_BENCH_REGISTRY_COST_H
#define DUO_BENCH_REGISTRY_COST_H

#include <stddef.h>

typedef struct registry_cost_row {
    const char *what;   /* the operation timed */
    size_t live;        /* allocations registered while it ran */
    double ns_per_call; /* median over the repetitions */
    int calls;          /* registry calls in one: 2 for add + remove */
} registry_cost_row;

/* Times the registry's own work, apart from any allocator, with 1, 64,
 * 4096 and 65536 allocations live: an allocation added and removed
 * (duo_malloc + duo_free), the check duo_free makes, and the range check
 * duo_memcpy / duo_memset make for a pointer inside an allocation and
 * for one outside all.  Each figure is the median of `reps` runs of
 * 2^16 calls, an add + remove pair counting as one (calls: 2).  Writes at most max_rows rows and returns how many (16
 * make the full table), or -1 when it cannot allocate its scratch.
 * Needs no duo_init, and leaves the registry as it found it. */
int registry_cost(registry_cost_row *rows, int max_rows, int reps);

#endif /* DUO_BENCH_REGISTRY_COST_H */
