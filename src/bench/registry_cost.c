/*
 * registry_cost.c - the cost per call of the allocation registry
 * (src/registry.c), apart from the allocator behind it: see
 * registry_cost.h.
 *
 * The allocations timed are stand-ins: 64-byte slots of one malloc'd
 * arena (not duo's, so they cannot meet a real duo allocation), the even
 * slots registered as 32-byte allocations, in shuffled order.  The odd
 * slots are where allocations come and go, and where a pointer outside
 * every allocation points.  Pointers are drawn at random from those
 * sets, so a lookup finds no node already in cache.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "registry_cost.h"
#include "registry.h"

enum {
    SLOT = 64,
    MAX_LIVE = 65536,
    CALLS = 1 << 16
};

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int compare_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef enum { ADD_REMOVE, FREE_CHECK, RANGE_INSIDE, RANGE_OUTSIDE } op;

static const char *const op_names[] = {
    "add + remove (malloc + free)", "free check", "range check, inside",
    "range check, outside"};

/* One run: CALLS calls of `o` on the slots picked[0..CALLS); ns/call.
 * An add + remove pair counts as one call. */
static double run(op o, unsigned char *arena, const uint32_t *picked)
{
    const double t0 = now_ns();
    for (int c = 0; c < CALLS; ++c) {
        unsigned char *p = arena + (size_t)picked[c] * SLOT;
        switch (o) {
        case ADD_REMOVE:
            if (duo_registry_add("bench", DUO_ALLOC_DEVICE, p, SLOT / 2,
                                 __FILE__, __LINE__) == DUO_SUCCESS)
                duo_registry_remove(p);
            break;
        case FREE_CHECK:
            (void)duo_registry_check_free("bench", DUO_ALLOC_DEVICE, p);
            break;
        case RANGE_INSIDE: case RANGE_OUTSIDE:
            (void)duo_registry_check_range("bench", "dst", p + 8, 16);
            break;
        }
    }
    return (now_ns() - t0) / CALLS;
}

/* The table for each number of live allocations, into rows. */
static int measure(registry_cost_row *rows, int max_rows, int reps,
                   unsigned char *arena, uint32_t *order, uint32_t *picked,
                   double *ns)
{
    static const size_t lives[] = {1, 64, 4096, MAX_LIVE};
    uint64_t seed = 0x7265676973747279ull;
    int count = 0;
    for (size_t li = 0; li < sizeof lives / sizeof lives[0]; ++li) {
        const size_t live = lives[li];
        /* Register even slots 0, 2, ..., 2 (live - 1) in random order. */
        for (uint32_t i = 0; i < live; ++i)
            order[i] = 2 * i;
        for (size_t i = live; i > 1; --i) {
            const size_t j = (size_t)(splitmix(&seed) % i);
            const uint32_t t = order[i - 1];
            order[i - 1] = order[j];
            order[j] = t;
        }
        size_t added = 0;
        while (added < live &&
               duo_registry_add("bench", DUO_ALLOC_DEVICE,
                                arena + (size_t)order[added] * SLOT,
                                SLOT / 2, __FILE__, __LINE__) == DUO_SUCCESS)
            ++added;
        for (int o = ADD_REMOVE; o <= RANGE_OUTSIDE && added == live; ++o) {
            /* Registered slots for the checks that find one, odd slots
             * among them for the rest. */
            const int odd = o == ADD_REMOVE || o == RANGE_OUTSIDE;
            for (int c = 0; c < CALLS; ++c)
                picked[c] = 2 * (uint32_t)(splitmix(&seed) % live) +
                            (uint32_t)odd;
            for (int r = 0; r < reps; ++r)
                ns[r] = run((op)o, arena, picked);
            qsort(ns, (size_t)reps, sizeof *ns, compare_double);
            if (count < max_rows) {
                rows[count].what = op_names[o];
                rows[count].live = live;
                rows[count].ns_per_call = ns[reps / 2];
                rows[count].calls = o == ADD_REMOVE ? 2 : 1;
                ++count;
            }
        }
        for (size_t i = 0; i < added; ++i)
            duo_registry_remove(arena + (size_t)order[i] * SLOT);
        if (added < live)
            return -1;
    }
    return count;
}

int registry_cost(registry_cost_row *rows, int max_rows, int reps)
{
    if (reps < 1)
        reps = 1;
    unsigned char *arena = (unsigned char *)malloc((size_t)2 * MAX_LIVE *
                                                   SLOT);
    uint32_t *order = (uint32_t *)malloc(MAX_LIVE * sizeof *order);
    uint32_t *picked = (uint32_t *)malloc(CALLS * sizeof *picked);
    double *ns = (double *)malloc((size_t)reps * sizeof *ns);
    const int count = arena && order && picked && ns
                          ? measure(rows, max_rows, reps, arena, order,
                                    picked, ns)
                          : -1;
    free(arena);
    free(order);
    free(picked);
    free(ns);
    return count;
}
