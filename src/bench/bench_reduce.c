/*
 * bench_reduce.c - the reduce group: duo_reduce against CUB (+ the
 * result to the host) on the GPU, an OpenMP loop accumulating in double
 * on the CPU; rows "dev": duo_reduce_async against CUB, both results
 * left in device memory (CPU: the loop's result stored).
 */
#include <math.h>
#include <string.h>

#include "bench.h"
#include "stream_kernels.h"

typedef struct reduce_ctx {
    duo_reduce_op op;
    duo_dtype type;
    const void *x;
    size_t n;
    double duo_value, ys_value;
} reduce_ctx;

static void run_duo_reduce(void *p)
{
    reduce_ctx *c = (reduce_ctx *)p;
    if (c->op == DUO_SUM) {
        DUO_CHECK(duo_reduce(c->op, c->type, c->x, c->n, &c->duo_value));
    } else if (c->type == DUO_F32) {
        float v = 0.0f;
        DUO_CHECK(duo_reduce(c->op, c->type, c->x, c->n, &v));
        c->duo_value = v;
    } else {
        DUO_CHECK(duo_reduce(c->op, c->type, c->x, c->n, &c->duo_value));
    }
}

static void run_ys_reduce(void *p)
{
    reduce_ctx *c = (reduce_ctx *)p;
    (void)ys_reduce(c->op, c->type, c->x, c->n, &c->ys_value);
}

static const char *op_name(duo_reduce_op op)
{
    return op == DUO_SUM ? "sum" : op == DUO_MIN ? "min" : "max";
}

/* Check the first results (made on fresh inputs): a sum against the
 * yardstick within n (u_ys + u_f64) sum|x| -- CUB sums f32 in f32 with
 * error up to (n-1) u_f32 sum|x|, duo in double -- and against an
 * independent double sum (a duo user reduction in another order) within
 * 2 n u_f64 sum|x|; min and max exactly. */
static void check_reduce(bench *b, reduce_ctx *c, int has_ys, row *r)
{
    const double u64 = 0x1p-53;
    const double n = (double)c->n;
    const int f32 = c->type == DUO_F32;
    if (c->op != DUO_SUM) {
        r->check_ok = has_ys ? c->duo_value == c->ys_value : 1;
        snprintf(r->check, sizeof r->check, "duo %.9g, %s %.9g (exact)",
                 c->duo_value, has_ys ? r->ys_name : "no yardstick",
                 c->ys_value);
        return;
    }
    double abs_sum = 0.0, other = 0.0;
    if (f32) {
        DUO_CHECK(bench_abs_sum_f32((const float *)c->x, c->n, &abs_sum));
        DUO_CHECK(bench_sum_f32((const float *)c->x, c->n, &other));
    } else {
        DUO_CHECK(bench_abs_sum_f64((const double *)c->x, c->n, &abs_sum));
        DUO_CHECK(bench_sum_f64((const double *)c->x, c->n, &other));
    }
    const double u_ys = f32 ? b->ys.sum_unit_f32 : b->ys.sum_unit_f64;
    const double ys_bound = n * (u_ys + u64) * abs_sum;
    const double own_bound = 2.0 * n * u64 * abs_sum;
    const double ys_diff = fabs(c->duo_value - c->ys_value);
    const double own_diff = fabs(c->duo_value - other);
    r->check_ok = isfinite(c->duo_value) && own_diff <= own_bound &&
                  (!has_ys || ys_diff <= ys_bound);
    if (has_ys)
        snprintf(r->check, sizeof r->check,
                 "|duo-%s| %.3g <= %.3g; |duo-f64 sum| %.3g <= %.3g",
                 r->ys_name, ys_diff, ys_bound, own_diff, own_bound);
    else
        snprintf(r->check, sizeof r->check, "|duo-f64 sum| %.3g <= %.3g",
                 own_diff, own_bound);
}

/* A reduce row over n elements of `type`, with fresh inputs in x. */
static row *new_reduce_row(bench *b, const char *what, duo_dtype type,
                           void *x, size_t n)
{
    const size_t elem = duo_dtype_size(type);
    char size[32];
    bench_size_label(size, sizeof size, n);
    row *r = bench_new_row(b, what, size);
    r->region = n * elem >= b->ys.cache_bytes ? "bandwidth" : "latency";
    r->amount = (double)(n * elem);
    r->unit = "GB/s";
    r->unit_scale = 1e9;
    if (type == DUO_F32)
        DUO_CHECK(bench_fill_f32((float *)x, n, bench_new_seed(b)));
    else
        DUO_CHECK(bench_fill_f64((double *)x, n, bench_new_seed(b)));
    return r;
}

static void bench_reduce_sizes(bench *b, duo_reduce_op op, duo_dtype type,
                               const size_t *sizes, size_t count)
{
    size_t max_n = 0;
    for (size_t s = 0; s < count; ++s)
        max_n = sizes[s] > max_n ? sizes[s] : max_n;
    const size_t elem = duo_dtype_size(type);
    void *x = bench_device_alloc(max_n * elem);
    char what[32];
    snprintf(what, sizeof what, "%s %s", op_name(op),
             type == DUO_F32 ? "f32" : "f64");

    for (size_t s = 0; s < count; ++s) {
        const size_t n = sizes[s];
        row *r = new_reduce_row(b, what, type, x, n);
        reduce_ctx ctx;
        memset(&ctx, 0, sizeof ctx);
        ctx.op = op;
        ctx.type = type;
        ctx.x = x;
        ctx.n = n;
        run_duo_reduce(&ctx);
        const int has_ys = ys_reduce(op, type, x, n, &ctx.ys_value);
        r->ys_name = has_ys ? b->ys.reduce : NULL;
        check_reduce(b, &ctx, has_ys, r);
        bench_measure(b, run_duo_reduce, has_ys ? run_ys_reduce : NULL, &ctx,
                      r);
        bench_finish_row(b, r);
    }
    DUO_CHECK(duo_free(x));
}

/* ------------------------------------------------------------------ */
/* reduce, results left in device memory                               */

typedef struct reduce_dev_ctx {
    reduce_ctx r;
    double *duo_out; /* device: duo's result (double for sums)        */
    void *ys_out;    /* device: the yardstick's (the element type)    */
} reduce_dev_ctx;

static void run_duo_reduce_dev(void *p)
{
    reduce_dev_ctx *c = (reduce_dev_ctx *)p;
    DUO_CHECK(duo_reduce_async(c->r.op, c->r.type, c->r.x, c->r.n,
                               c->duo_out, NULL));
}

static void run_ys_reduce_dev(void *p)
{
    reduce_dev_ctx *c = (reduce_dev_ctx *)p;
    (void)ys_reduce_device(c->r.op, c->r.type, c->r.x, c->r.n, c->ys_out);
}

/* Sums only: the rows that compare with CUB's device-result form. */
static void bench_reduce_dev_sizes(bench *b, duo_dtype type,
                                   const size_t *sizes, size_t count)
{
    size_t max_n = 0;
    for (size_t s = 0; s < count; ++s)
        max_n = sizes[s] > max_n ? sizes[s] : max_n;
    const size_t elem = duo_dtype_size(type);
    reduce_dev_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    void *x = bench_device_alloc(max_n * elem);
    ctx.duo_out = (double *)bench_device_alloc(sizeof(double));
    ctx.ys_out = bench_device_alloc(sizeof(double));
    const char *what = type == DUO_F32 ? "sum f32 dev" : "sum f64 dev";
    for (size_t s = 0; s < count; ++s) {
        const size_t n = sizes[s];
        row *r = new_reduce_row(b, what, type, x, n);
        ctx.r.op = DUO_SUM;
        ctx.r.type = type;
        ctx.r.x = x;
        ctx.r.n = n;
        run_duo_reduce_dev(&ctx);
        const int has_ys = ys_reduce_device(DUO_SUM, type, x, n, ctx.ys_out);
        DUO_CHECK(duo_memcpy(&ctx.r.duo_value, ctx.duo_out, sizeof(double),
                             DUO_DEVICE_TO_HOST));
        if (has_ys) {
            if (type == DUO_F32 && b->gpu) { /* CUB's sum is a float */
                float v = 0.0f;
                DUO_CHECK(duo_memcpy(&v, ctx.ys_out, sizeof v,
                                     DUO_DEVICE_TO_HOST));
                ctx.r.ys_value = v;
            } else {
                DUO_CHECK(duo_memcpy(&ctx.r.ys_value, ctx.ys_out,
                                     sizeof(double), DUO_DEVICE_TO_HOST));
            }
        }
        r->ys_name = !has_ys ? NULL : b->gpu ? "CUB (device result)"
                                             : b->ys.reduce;
        check_reduce(b, &ctx.r, has_ys, r);
        bench_measure(b, run_duo_reduce_dev,
                      has_ys ? run_ys_reduce_dev : NULL, &ctx, r);
        bench_finish_row(b, r);
    }
    DUO_CHECK(duo_free(x));
    DUO_CHECK(duo_free(ctx.duo_out));
    DUO_CHECK(duo_free(ctx.ys_out));
}

static void bench_reduce(bench *b)
{
    static const size_t gpu_f32[] = {
        (size_t)1 << 10, (size_t)1 << 12, (size_t)1 << 14, (size_t)1 << 16,
        (size_t)1 << 18, (size_t)1 << 20, (size_t)1 << 22, (size_t)1 << 24,
        (size_t)1 << 26, (size_t)1 << 28};
    static const size_t gpu_f64[] = {
        (size_t)1 << 10, (size_t)1 << 12, (size_t)1 << 14, (size_t)1 << 16,
        (size_t)1 << 18, (size_t)1 << 20, (size_t)1 << 22, (size_t)1 << 24,
        (size_t)1 << 26, (size_t)1 << 27};
    static const size_t cpu_f32[] = {
        (size_t)1 << 10, (size_t)1 << 12, (size_t)1 << 14, (size_t)1 << 16,
        (size_t)1 << 18, (size_t)1 << 20, (size_t)1 << 22, (size_t)1 << 24,
        (size_t)1 << 26};
    static const size_t quick_gpu_f32[] = {(size_t)1 << 10, (size_t)1 << 16,
                                           (size_t)1 << 28};
    static const size_t quick_cpu_f32[] = {(size_t)1 << 10, (size_t)1 << 16,
                                           (size_t)1 << 26};
    static const size_t quick_gpu_f64[] = {(size_t)1 << 27};
    static const size_t big_f32[] = {(size_t)1 << 28};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
    if (b->gpu) {
        if (b->quick) {
            bench_reduce_sizes(b, DUO_SUM, DUO_F32, quick_gpu_f32,
                               COUNT(quick_gpu_f32));
            bench_reduce_sizes(b, DUO_SUM, DUO_F64, quick_gpu_f64,
                               COUNT(quick_gpu_f64));
        } else {
            bench_reduce_sizes(b, DUO_SUM, DUO_F32, gpu_f32, COUNT(gpu_f32));
            bench_reduce_sizes(b, DUO_SUM, DUO_F64, gpu_f64, COUNT(gpu_f64));
        }
        bench_reduce_sizes(b, DUO_MIN, DUO_F32, big_f32, COUNT(big_f32));
        bench_reduce_sizes(b, DUO_MAX, DUO_F32, big_f32, COUNT(big_f32));
        if (b->quick) {
            bench_reduce_dev_sizes(b, DUO_F32, quick_gpu_f32,
                                   COUNT(quick_gpu_f32));
        } else {
            static const size_t dev_f32[] = {
                (size_t)1 << 10, (size_t)1 << 12, (size_t)1 << 14,
                (size_t)1 << 16, (size_t)1 << 18, (size_t)1 << 20,
                (size_t)1 << 22, (size_t)1 << 28};
            bench_reduce_dev_sizes(b, DUO_F32, dev_f32, COUNT(dev_f32));
            bench_reduce_dev_sizes(b, DUO_F64, quick_gpu_f64,
                                   COUNT(quick_gpu_f64));
        }
    } else if (b->quick) {
        bench_reduce_sizes(b, DUO_SUM, DUO_F32, quick_cpu_f32,
                           COUNT(quick_cpu_f32));
        bench_reduce_dev_sizes(b, DUO_F32, quick_cpu_f32,
                               COUNT(quick_cpu_f32));
    } else {
        bench_reduce_sizes(b, DUO_SUM, DUO_F32, cpu_f32, COUNT(cpu_f32));
        bench_reduce_dev_sizes(b, DUO_F32, cpu_f32, COUNT(cpu_f32));
    }
}

static void write_reduce_method(const bench *b, FILE *f)
{
    if (b->gpu)
        fprintf(f, "- reduce: duo_reduce returns its result in host memory, "
                "so the CUB yardstick is cub::DeviceReduce plus a "
                "cudaMemcpy of the result to pinned host memory (temporary "
                "storage allocated outside the timed calls).  CUB sums f32 "
                "in f32, duo in f64.\n");
    else
        fprintf(f, "- reduce: the yardstick is `double s = 0; #pragma omp "
                "parallel for reduction(+:s)` over the floats (duo also "
                "accumulates in double).\n");
}

const bench_group bench_group_reduce = {
    .name = "reduce",
    .run = bench_reduce,
    .write_method = write_reduce_method,
};
