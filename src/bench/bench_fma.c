/*
 * bench_fma.c - the fma group: one compute-bound kernel (fma_kernels.h)
 * with its multiply-adds written as a bare a*b+c, which duo compiles as a
 * product rounded before its sum on every backend, against the same
 * kernel written with fmaf (what DUO_FAST_FMA=ON lets nvcc make of the
 * bare form on the GPU).  The ratio is what the same bits everywhere cost
 * a kernel that does not write its fma out.
 */
#include "bench.h"
#include "fma_kernels.h"

static void run_fma_group(bench *b)
{
    const size_t gpu_sizes[] = {(size_t)1 << 20, (size_t)1 << 24};
    const size_t cpu_sizes[] = {(size_t)1 << 16, (size_t)1 << 20};
    const size_t *sizes = b->gpu ? gpu_sizes : cpu_sizes;
    for (int s = 0; s < 2; ++s) {
        bench_fma f;
        DUO_CHECK(bench_fma_setup(&f, sizes[s], bench_new_seed(b)));
        char size[32];
        bench_size_label(size, sizeof size, sizes[s]);
        row *r = bench_new_row(b, "horner f32", size);
        r->region = "compute";
        r->ys_name = "fmaf";
        r->amount = bench_fma_flops(&f);
        r->unit = "GFLOP/s";
        r->unit_scale = 1e9;
        bench_fma_bare(&f);
        bench_fma_fused(&f);
        r->check_ok = bench_fma_check(&f, r->check, sizeof r->check);
        bench_measure(b, bench_fma_bare, bench_fma_fused, &f, r);
        bench_finish_row(b, r);
        bench_fma_teardown(&f);
    }
}

static void write_fma_method(const bench *b, FILE *f)
{
    (void)b;
    fprintf(f, "- fma: 4 independent Horner chains of 64 steps per f32 "
            "element, written as bare a*b+c (duo's arithmetic: a rounded "
            "product, then the sum, on every backend) against the same "
            "kernel with fmaf (one rounding; what DUO_FAST_FMA=ON makes of "
            "the bare form on the GPU); both outputs checked bit for bit "
            "against host references.\n");
}

const bench_group bench_group_fma = {
    .name = "fma",
    .run = run_fma_group,
    .write_method = write_fma_method,
};
