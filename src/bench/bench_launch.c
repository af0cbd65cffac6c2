/*
 * bench_launch.c - the launch group: LAUNCHES back-to-back launches of
 * one triad kernel by DUO_LAUNCH against a raw <<<ceil(n/256), 256>>>
 * launch (CPU: a direct call of the kernel function); the rows show the
 * time per launch.
 */
#include "bench.h"
#include "stream_kernels.h"

enum { LAUNCHES = 100 };

typedef struct launch_ctx {
    double *a;
    const double *b, *c;
    double s;
    size_t n;
} launch_ctx;

static void run_duo_launches(void *p)
{
    const launch_ctx *c = (const launch_ctx *)p;
    DUO_CHECK(bench_duo_triad_launches(c->a, c->b, c->c, c->s, c->n,
                                       LAUNCHES));
}

static void run_raw_launches(void *p)
{
    const launch_ctx *c = (const launch_ctx *)p;
    bench_raw_triad_launches(c->a, c->b, c->c, c->s, c->n, LAUNCHES);
}

static void bench_launch(bench *b)
{
    /* GPU: launch-bound and large; CPU: small sizes (100 launches of a
     * large triad would take seconds there). */
    const size_t gpu_sizes[] = {(size_t)1 << 16, (size_t)1 << 25};
    const size_t cpu_sizes[] = {(size_t)1 << 10, (size_t)1 << 16};
    const size_t *sizes = b->gpu ? gpu_sizes : cpu_sizes;
    const size_t max_n = sizes[1];
    double *a = (double *)bench_device_alloc(max_n * sizeof(double));
    double *bv = (double *)bench_device_alloc(max_n * sizeof(double));
    double *c = (double *)bench_device_alloc(max_n * sizeof(double));
    double *ref = (double *)bench_device_alloc(max_n * sizeof(double));

    for (int s = 0; s < 2; ++s) {
        const size_t n = sizes[s];
        char size[32];
        bench_size_label(size, sizeof size, n);
        row *r = bench_new_row(b, "triad x100", size);
        r->region = "launch";
        r->ys_name = bench_raw_launch_name();
        DUO_CHECK(bench_fill_f64(bv, n, bench_new_seed(b)));
        DUO_CHECK(bench_fill_f64(c, n, bench_new_seed(b)));
        launch_ctx ctx;
        ctx.a = a;
        ctx.b = bv;
        ctx.c = c;
        ctx.s = 0.4;
        ctx.n = n;
        /* One launch each: the same kernel must give the same bits. */
        DUO_CHECK(bench_duo_triad_launches(a, bv, c, ctx.s, n, 1));
        DUO_CHECK(duo_memcpy(ref, a, n * sizeof(double),
                             DUO_DEVICE_TO_DEVICE));
        DUO_CHECK(duo_memset(a, 0xff, n * sizeof(double)));
        bench_raw_triad_launches(a, bv, c, ctx.s, n, 1);
        double diff = 0.0;
        DUO_CHECK(bench_max_abs_diff(a, ref, n, &diff));
        r->check_ok = diff == 0.0;
        snprintf(r->check, sizeof r->check,
                 "max |duo - raw| = %.3g (exact)", diff);
        bench_measure(b, run_duo_launches, run_raw_launches, &ctx, r);
        /* Per launch. */
        r->duo_ms /= LAUNCHES;
        r->duo_min_ms /= LAUNCHES;
        r->ys_ms /= LAUNCHES;
        r->ys_min_ms /= LAUNCHES;
        bench_finish_row(b, r);
    }
    DUO_CHECK(duo_free(a));
    DUO_CHECK(duo_free(bv));
    DUO_CHECK(duo_free(c));
    DUO_CHECK(duo_free(ref));
}

static void write_launch_method(const bench *b, FILE *f)
{
    if (b->gpu)
        fprintf(f, "- launch: %d back-to-back launches of the same "
                "DUO_KERNEL triad by DUO_LAUNCH and by "
                "stream_triad<<<ceil(n/256), 256>>> (cudaGetLastError after "
                "each), timed together; the table shows time per launch.\n",
                LAUNCHES);
    else
        fprintf(f, "- launch: %d calls of the same triad kernel by DUO_LAUNCH "
                "and as a direct function call; the table shows time per "
                "call.\n", LAUNCHES);
}

const bench_group bench_group_launch = {
    .name = "launch",
    .run = bench_launch,
    .write_method = write_launch_method,
};
