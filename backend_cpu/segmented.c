/*
 * segmented.c (CPU) - segmented reductions: each segment by the
 * reductions of reduce.c (reduce_cpu.h), so it has the bits of
 * duo_reduce of that segment.  OpenMP threads share the segments; a
 * segment that holds a large part of the work (there are then few) is
 * instead reduced by all threads, its chunks shared, after the others.
 * The offsets are checked before anything is written.
 */
#include <stdint.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend.h"
#include "reduce_cpu.h"

/* A segment with more than 1 / (BIG_SHARE * threads) of the elements is
 * reduced by all threads: fewer than BIG_SHARE * threads segments are,
 * one after another. */
enum { BIG_SHARE = 2 };
/* Tasks per thread when threads share segments on demand. */
enum { TASKS_PER_THREAD = 16 };

static duo_status check_offsets(const char *where, const size_t *offsets,
                                size_t nseg, size_t n)
{
    for (size_t s = 0; s < nseg; ++s)
        if (offsets[s] > offsets[s + 1])
            return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                            "offsets[%zu] = %zu > offsets[%zu] = %zu: "
                            "segment offsets must be non-decreasing; no "
                            "result was written", s, offsets[s], s + 1,
                            offsets[s + 1]);
    if (offsets[nseg] > n)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "offsets[%zu] = %zu > n = %zu: the last segment runs "
                        "past the end of x; no result was written", nseg,
                        offsets[nseg], n);
    return DUO_SUCCESS;
}

/* What one call reduces, and into where. */
typedef struct segments {
    const char *x;
    size_t size;            /* bytes per element */
    const size_t *offsets;  /* NULL: equal segments of seg_len */
    size_t seg_len;
    char *result;           /* NULL: no values (index forms) */
    size_t result_size;
    size_t *index;          /* NULL: value forms */
    duo_cpu_reducer values;
    duo_cpu_arg_reducer args;
} segments;

static size_t segment_first(const segments *g, size_t s)
{
    return g->offsets != NULL ? g->offsets[s] : s * g->seg_len;
}

static size_t segment_length(const segments *g, size_t s)
{
    return g->offsets != NULL ? g->offsets[s + 1] - g->offsets[s]
                              : g->seg_len;
}

/* Segment s, by this thread (all = 0) or by all threads (all = 1). */
static void reduce_one(const segments *g, size_t s, int all)
{
    const void *x = g->x + segment_first(g, s) * g->size;
    const size_t len = segment_length(g, s);
    void *value = g->result != NULL ? g->result + s * g->result_size : NULL;
    if (g->index != NULL)
        (all ? g->args.all : g->args.seq)(x, len, g->index + s, value);
    else
        (all ? g->values.all : g->values.seq)(x, len, value);
}

duo_status duo_be_segmented_reduce(duo_reduce_op op, duo_dtype type,
                                   const void *x, size_t n,
                                   const size_t *offsets, size_t seg_len,
                                   size_t nseg, void *result, size_t *index,
                                   duo_stream stream)
{
    (void)stream;
    if (offsets != NULL) {
        const duo_status status = check_offsets(
            index != NULL ? "duo_segmented_reduce_arg"
                          : "duo_segmented_reduce",
            offsets, nseg, n);
        if (status != DUO_SUCCESS)
            return status;
    }
    segments g;
    g.x = (const char *)x;
    g.size = duo_dtype_size(type);
    g.offsets = offsets;
    g.seg_len = seg_len;
    g.result = (char *)result;
    g.result_size = op == DUO_SUM && index == NULL ? 8 : g.size;
    g.index = index;
    if (index != NULL)
        g.args = duo_cpu_arg_reducer_for(op, type);
    else
        g.values = duo_cpu_reducer_for(op, type);

    const size_t total =
        offsets != NULL ? offsets[nseg] - offsets[0] : seg_len * nseg;
#ifdef _OPENMP
    const int threads = omp_get_max_threads();
#else
    const int threads = 1;
#endif
    /* Segments of at least `big` elements go to all threads (none do
     * with one thread). */
    const size_t big =
        threads > 1 ? total / ((size_t)BIG_SHARE * (size_t)threads) + 1
                    : SIZE_MAX;
#ifdef _OPENMP
    const size_t grain = nseg / ((size_t)threads * TASKS_PER_THREAD) + 1;
#pragma omp parallel for schedule(dynamic, grain) if (threads > 1 && nseg > 1)
#endif
    for (size_t s = 0; s < nseg; ++s)
        if (segment_length(&g, s) < big)
            reduce_one(&g, s, 0);
    for (size_t s = 0; s < nseg; ++s)
        if (segment_length(&g, s) >= big)
            reduce_one(&g, s, 1);
    return DUO_SUCCESS;
}
