/*
 * bench_registry.c - the registry group: what duo's allocation registry
 * (src/registry.c) adds to each duo_malloc, duo_free, duo_memcpy and
 * duo_memset, with 1 to 65536 allocations live (registry_cost.c).  The
 * rows have no yardstick: the registry is duo's own; the target is
 * 50 ns per call.
 */
#include "bench.h"
#include "registry_cost.h"

static void run_registry_group(bench *b)
{
    registry_cost_row rows[16];
    const int n = registry_cost(rows, 16, b->quick ? 3 : 11);
    if (n < 0) {
        fprintf(stderr, "%s: registry: no memory for its scratch\n", PROG);
        ++b->failed_checks;
        return;
    }
    for (int i = 0; i < n; ++i) {
        char size[32];
        snprintf(size, sizeof size, "%zu live", rows[i].live);
        row *r = bench_new_row(b, rows[i].what, size);
        r->region = "latency";
        r->ys_name = NULL;
        r->duo_ms = r->duo_min_ms = rows[i].ns_per_call * 1e-6;
        r->duo_reps = 1;
        r->ys_ms = r->ys_min_ms = -1.0;
        r->amount = 0.0;
        r->check_ok = 1;
        if (rows[i].calls == 2)
            snprintf(r->check, sizeof r->check,
                     "%.1f ns per add + remove pair, %.1f ns per call "
                     "(median of the runs of 2^16 pairs)",
                     rows[i].ns_per_call, rows[i].ns_per_call / 2);
        else
            snprintf(r->check, sizeof r->check,
                     "%.1f ns per call (median of the runs of 2^16 calls)",
                     rows[i].ns_per_call);
        bench_finish_row(b, r);
    }
}

static void write_registry_method(const bench *b, FILE *f)
{
    (void)b;
    fprintf(f, "- registry: the allocation registry's own work per call "
            "(an allocation added and removed, duo_free's check, the range "
            "check of a copy), with 1, 64, 4096 and 65536 allocations "
            "live; the median of runs of 2^16 calls, in wall-clock time.  "
            "The add + remove row times the pair (two calls: "
            "duo_malloc's and duo_free's), so its time is twice the cost "
            "per call; its check column gives both.\n");
}

const bench_group bench_group_registry = {
    .name = "registry",
    .run = run_registry_group,
    .write_method = write_registry_method,
};
