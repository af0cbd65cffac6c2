/*
 * bench_stream.c - the stream group: BabelStream's copy, mul, add,
 * triad and dot written with duo (stream_kernels.c) against hand-written
 * kernels (GPU) or OpenMP loops (CPU).
 */
#include <math.h>
#include <string.h>

#include "bench.h"
#include "stream_kernels.h"

enum { ST_COPY, ST_MUL, ST_ADD, ST_TRIAD, ST_DOT, ST_COUNT };
static const char *const STREAM_NAMES[] = {"copy", "mul", "add", "triad",
                                           "dot"};
/* Arrays each kernel moves, by BabelStream's count. */
static const int STREAM_ARRAYS[] = {2, 2, 3, 3, 2};

#define STREAM_SCALAR 0.4
#define STREAM_N ((size_t)1 << 25) /* doubles in each array */

typedef struct stream_ctx {
    int kernel;
    double *a, *b, *c;
    size_t n;
    double dot;
} stream_ctx;

static void run_duo_stream(void *p)
{
    stream_ctx *s = (stream_ctx *)p;
    switch (s->kernel) {
    case ST_COPY: DUO_CHECK(bench_duo_copy(s->a, s->c, s->n)); break;
    case ST_MUL:
        DUO_CHECK(bench_duo_mul(s->b, s->c, STREAM_SCALAR, s->n));
        break;
    case ST_ADD: DUO_CHECK(bench_duo_add(s->a, s->b, s->c, s->n)); break;
    case ST_TRIAD:
        DUO_CHECK(bench_duo_triad(s->a, s->b, s->c, STREAM_SCALAR, s->n));
        break;
    default: DUO_CHECK(bench_duo_dot(s->a, s->b, s->n, &s->dot)); break;
    }
}

static void run_ys_stream(void *p)
{
    stream_ctx *s = (stream_ctx *)p;
    switch (s->kernel) {
    case ST_COPY: ys_stream_copy(s->a, s->c, s->n); break;
    case ST_MUL: ys_stream_mul(s->b, s->c, STREAM_SCALAR, s->n); break;
    case ST_ADD: ys_stream_add(s->a, s->b, s->c, s->n); break;
    case ST_TRIAD:
        ys_stream_triad(s->a, s->b, s->c, STREAM_SCALAR, s->n);
        break;
    default: s->dot = ys_stream_dot(s->a, s->b, s->n); break;
    }
}

/* The array a kernel writes (NULL for dot). */
static double *stream_output(const stream_ctx *s)
{
    switch (s->kernel) {
    case ST_COPY: case ST_ADD: return s->c;
    case ST_MUL: return s->b;
    case ST_TRIAD: return s->a;
    default: return NULL;
    }
}

static void bench_stream(bench *b)
{
    const size_t n = STREAM_N;
    stream_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.n = n;
    ctx.a = (double *)bench_device_alloc(n * sizeof(double));
    ctx.b = (double *)bench_device_alloc(n * sizeof(double));
    ctx.c = (double *)bench_device_alloc(n * sizeof(double));
    double *ref = (double *)bench_device_alloc(n * sizeof(double));
    char size[32];
    bench_size_label(size, sizeof size, n);

    for (int k = 0; k < ST_COUNT; ++k) {
        row *r = bench_new_row(b, STREAM_NAMES[k], size);
        const double bytes = (double)STREAM_ARRAYS[k] * (double)n * 8.0;
        r->region = bytes >= (double)b->ys.cache_bytes ? "bandwidth"
                                                       : "latency";
        r->ys_name = b->ys.stream;
        r->amount = bytes;
        r->unit = "GB/s";
        r->unit_scale = 1e9;
        ctx.kernel = k;
        /* Fresh inputs in (-1, 1) for every kernel. */
        DUO_CHECK(bench_fill_f64(ctx.a, n, bench_new_seed(b)));
        DUO_CHECK(bench_fill_f64(ctx.b, n, bench_new_seed(b)));
        DUO_CHECK(bench_fill_f64(ctx.c, n, bench_new_seed(b)));

        double *out = stream_output(&ctx);
        if (out != NULL) {
            /* duo's output kept in ref, then the yardstick's compared:
             * copy, mul and add exactly; triad within 4 u (|b + s c| <
             * 1.4, so fused or not, the two differ by less). */
            run_duo_stream(&ctx);
            DUO_CHECK(duo_memcpy(ref, out, n * sizeof(double),
                                 DUO_DEVICE_TO_DEVICE));
            DUO_CHECK(duo_memset(out, 0xff, n * sizeof(double)));
            run_ys_stream(&ctx);
            double diff = 0.0;
            DUO_CHECK(bench_max_abs_diff(out, ref, n, &diff));
            const double bound = k == ST_TRIAD ? 4.0 * 0x1p-53 : 0.0;
            r->check_ok = diff <= bound;
            snprintf(r->check, sizeof r->check,
                     "max |duo - %s| = %.3g <= %.3g", r->ys_name, diff,
                     bound);
        } else {
            run_duo_stream(&ctx);
            const double duo_dot = ctx.dot;
            run_ys_stream(&ctx);
            double abs_dot = 0.0;
            DUO_CHECK(bench_abs_dot(ctx.a, ctx.b, n, &abs_dot));
            const double bound = 2.0 * (double)n * 0x1p-53 * abs_dot;
            const double diff = fabs(duo_dot - ctx.dot);
            r->check_ok = isfinite(duo_dot) && diff <= bound;
            snprintf(r->check, sizeof r->check,
                     "|duo - %s| = %.3g <= %.3g", r->ys_name, diff, bound);
        }
        bench_measure(b, run_duo_stream, run_ys_stream, &ctx, r);
        bench_finish_row(b, r);
    }
    DUO_CHECK(duo_free(ctx.a));
    DUO_CHECK(duo_free(ctx.b));
    DUO_CHECK(duo_free(ctx.c));
    DUO_CHECK(duo_free(ref));
}

static void write_stream_method(const bench *b, FILE *f)
{
    char n[32];
    bench_size_label(n, sizeof n, STREAM_N);
    if (b->gpu)
        fprintf(f, "- stream: BabelStream kernels, n = %s doubles, bytes as "
                "BabelStream counts them (copy/mul/dot 2 arrays, add/triad "
                "3); the raw kernels are grid-stride loops (256 threads, 32 "
                "blocks per SM), dot a shuffle reduction per block plus a "
                "second pass and the result copied to the host.\n", n);
    else
        fprintf(f, "- stream: BabelStream kernels, n = %s doubles, bytes as "
                "BabelStream counts them; the yardstick is BabelStream's "
                "OpenMP loops.\n", n);
}

const bench_group bench_group_stream = {
    .name = "stream",
    .run = bench_stream,
    .write_method = write_stream_method,
};
