/*
 * bench_gemm.c - the gemm group: duo_gemm_f32/f64 against cuBLAS
 * (pedantic fp32) or OpenBLAS, square, odd and tall-skinny shapes and
 * the transposes.  On the GPU each f64 shape is timed twice, both
 * against cuBLAS DGEMM: duo's default kernel (the FP64 tensor cores on
 * compute capability 9.x, else the FP64 units; the CPU's bits either
 * way), and, in the row "f64 NN fma" (NT, ...), DUO_GEMM_F64=fma (the
 * FP64 units); DUO_GEMM_F64 set beforehand times only the kernel it
 * names ("f64 NN tensor" for tensor).
 *
 * DUO_BENCH_GEMM_SHAPES="[f32:|f64:]MxNxK[NT],..." limits the group to
 * those shapes (both precisions or the one named), for tuning.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "stream_kernels.h"

typedef struct gemm_shape {
    size_t m, n, k;
    duo_transpose ta, tb;
} gemm_shape;

typedef struct gemm_ctx {
    int f64;
    gemm_shape s;
    size_t lda, ldb, ldc;
    const void *a, *b;
    void *c_duo, *c_ys;
} gemm_ctx;

static void run_duo_gemm(void *p)
{
    const gemm_ctx *c = (const gemm_ctx *)p;
    if (c->f64)
        DUO_CHECK(duo_gemm_f64(c->s.ta, c->s.tb, c->s.m, c->s.n, c->s.k, 1.0,
                               (const double *)c->a, c->lda,
                               (const double *)c->b, c->ldb, 0.0,
                               (double *)c->c_duo, c->ldc));
    else
        DUO_CHECK(duo_gemm_f32(c->s.ta, c->s.tb, c->s.m, c->s.n, c->s.k, 1.0f,
                               (const float *)c->a, c->lda,
                               (const float *)c->b, c->ldb, 0.0f,
                               (float *)c->c_duo, c->ldc));
}

static void run_ys_gemm(void *p)
{
    const gemm_ctx *c = (const gemm_ctx *)p;
    if (c->f64)
        ys_gemm_f64(c->s.ta, c->s.tb, c->s.m, c->s.n, c->s.k, 1.0,
                    (const double *)c->a, c->lda, (const double *)c->b,
                    c->ldb, 0.0, (double *)c->c_ys, c->ldc);
    else
        ys_gemm_f32(c->s.ta, c->s.tb, c->s.m, c->s.n, c->s.k, 1.0f,
                    (const float *)c->a, c->lda, (const float *)c->b,
                    c->ldb, 0.0f, (float *)c->c_ys, c->ldc);
}

static double input_value(int f64, uint64_t seed, size_t index)
{
    return f64 ? bench_value_f64(seed, index)
               : (double)bench_value_f32(seed, index);
}

static double fetch_value(int f64, const void *c, size_t index)
{
    if (f64) {
        double v = 0.0;
        DUO_CHECK(duo_memcpy(&v, (const double *)c + index, sizeof v,
                             DUO_DEVICE_TO_HOST));
        return v;
    }
    float v = 0.0f;
    DUO_CHECK(duo_memcpy(&v, (const float *)c + index, sizeof v,
                         DUO_DEVICE_TO_HOST));
    return v;
}

/* GEMM_SAMPLES elements of C (the four corners, then random ones)
 * recomputed on the host in double from the inputs' generator; duo and
 * the yardstick each within gamma_K sum_p |A_ip| |B_pj|, gamma_K =
 * (K + 2) u, plus K u_f64 of the same for the reference's rounding. */
static void check_gemm(const gemm_ctx *c, uint64_t seed_a, uint64_t seed_b,
                       uint64_t seed_pick, int has_ys, row *r)
{
    const gemm_shape *s = &c->s;
    const double u = c->f64 ? 0x1p-53 : 0x1p-24;
    const double gamma = (double)(s->k + 2) * u + (double)s->k * 0x1p-53;
    double worst_duo = 0.0, worst_ys = 0.0; /* |error| / bound */
    int ok = 1;
    for (size_t t = 0; t < GEMM_SAMPLES; ++t) {
        size_t i, j;
        if (t < 4) {
            i = t & 1 ? s->m - 1 : 0;
            j = t & 2 ? s->n - 1 : 0;
        } else {
            const uint64_t h = bench_hash(seed_pick, t);
            i = (size_t)((h >> 32) % s->m);
            j = (size_t)((h & 0xffffffffu) % s->n);
        }
        double ref = 0.0, abs_ref = 0.0;
        for (size_t p = 0; p < s->k; ++p) {
            const size_t ia = s->ta == DUO_NO_TRANS ? i * c->lda + p
                                                    : p * c->lda + i;
            const size_t ib = s->tb == DUO_NO_TRANS ? p * c->ldb + j
                                                    : j * c->ldb + p;
            const double prod = input_value(c->f64, seed_a, ia) *
                                input_value(c->f64, seed_b, ib);
            ref += prod;
            abs_ref += fabs(prod);
        }
        const double bound = gamma * abs_ref;
        const double got = fetch_value(c->f64, c->c_duo, i * c->ldc + j);
        const double err = fabs(got - ref);
        if (!(err <= bound))
            ok = 0;
        if (!(err / bound <= worst_duo))
            worst_duo = err / bound;
        if (has_ys) {
            const double yv = fetch_value(c->f64, c->c_ys, i * c->ldc + j);
            const double yerr = fabs(yv - ref);
            if (!(yerr <= bound))
                ok = 0;
            if (!(yerr / bound <= worst_ys))
                worst_ys = yerr / bound;
        }
    }
    r->check_ok = ok;
    if (has_ys)
        snprintf(r->check, sizeof r->check,
                 "%d sampled C: worst |err|/bound duo %.3g, %s %.3g "
                 "(pass <= 1)", GEMM_SAMPLES, worst_duo, r->ys_name,
                 worst_ys);
    else
        snprintf(r->check, sizeof r->check,
                 "%d sampled C: worst |err|/bound duo %.3g (pass <= 1)",
                 GEMM_SAMPLES, worst_duo);
}

/* One row: s in f32 or f64, `suffix` appended to the row's name. */
static void bench_gemm_one(bench *b, int f64, gemm_shape s,
                           const char *suffix)
{
    const size_t elem = f64 ? sizeof(double) : sizeof(float);
    gemm_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.f64 = f64;
    ctx.s = s;
    ctx.lda = s.ta == DUO_NO_TRANS ? s.k : s.m;
    ctx.ldb = s.tb == DUO_NO_TRANS ? s.n : s.k;
    ctx.ldc = s.n;
    const size_t a_count = s.m * s.k, b_count = s.k * s.n, c_count = s.m * s.n;
    const int has_ys = b->ys.gemm != NULL;

    char what[32], size[32];
    snprintf(what, sizeof what, "%s %c%c%s", f64 ? "f64" : "f32",
             s.ta == DUO_TRANS ? 'T' : 'N', s.tb == DUO_TRANS ? 'T' : 'N',
             suffix);
    snprintf(size, sizeof size, "%zux%zux%zu", s.m, s.n, s.k);
    row *r = bench_new_row(b, what, size);
    r->region = "compute";
    r->ys_name = has_ys ? b->ys.gemm : NULL;
    r->amount = 2.0 * (double)s.m * (double)s.n * (double)s.k;
    r->unit = b->gpu ? "TFLOP/s" : "GFLOP/s";
    r->unit_scale = b->gpu ? 1e12 : 1e9;

    void *a = bench_device_alloc(a_count * elem);
    void *bm = bench_device_alloc(b_count * elem);
    ctx.c_duo = bench_device_alloc(c_count * elem);
    ctx.c_ys = has_ys ? bench_device_alloc(c_count * elem) : NULL;
    ctx.a = a;
    ctx.b = bm;
    const uint64_t seed_a = bench_new_seed(b), seed_b = bench_new_seed(b);
    const uint64_t seed_pick = bench_new_seed(b);
    if (f64) {
        DUO_CHECK(bench_fill_f64((double *)a, a_count, seed_a));
        DUO_CHECK(bench_fill_f64((double *)bm, b_count, seed_b));
    } else {
        DUO_CHECK(bench_fill_f32((float *)a, a_count, seed_a));
        DUO_CHECK(bench_fill_f32((float *)bm, b_count, seed_b));
    }
    /* C starts as NaN: beta = 0 must not read it. */
    DUO_CHECK(duo_memset(ctx.c_duo, 0xff, c_count * elem));
    if (has_ys)
        DUO_CHECK(duo_memset(ctx.c_ys, 0xff, c_count * elem));

    run_duo_gemm(&ctx);
    if (has_ys)
        run_ys_gemm(&ctx);
    DUO_CHECK(duo_synchronize());
    check_gemm(&ctx, seed_a, seed_b, seed_pick, has_ys, r);
    if (b->ys.settle_seconds > 0)
        bench_measure_blocked(b, run_duo_gemm, has_ys ? run_ys_gemm : NULL,
                              &ctx, r);
    else
        bench_measure(b, run_duo_gemm, has_ys ? run_ys_gemm : NULL, &ctx, r);
    bench_finish_row(b, r);

    DUO_CHECK(duo_free(a));
    DUO_CHECK(duo_free(bm));
    DUO_CHECK(duo_free(ctx.c_duo));
    DUO_CHECK(duo_free(ctx.c_ys));
}

/* The row of s.  On the GPU an f64 shape has two when DUO_GEMM_F64 is
 * unset: duo's default kernel, then "f64 NN fma" (NT, ...) with
 * DUO_GEMM_F64=fma (unset again after it).  When it is set, only that
 * kernel's row, named for it. */
static void bench_gemm_row(bench *b, int f64, gemm_shape s)
{
    const char *env = getenv("DUO_GEMM_F64");
    const int chosen = env != NULL && env[0] != '\0';
    if (!f64 || !b->gpu || chosen) {
        const char *name = "";
        if (f64 && b->gpu && chosen && strcmp(env, "auto") != 0)
            name = strcmp(env, "tensor") == 0 ? " tensor" : " fma";
        bench_gemm_one(b, f64, s, name);
        return;
    }
    bench_gemm_one(b, f64, s, "");
    setenv("DUO_GEMM_F64", "fma", 1);
    bench_gemm_one(b, f64, s, " fma");
    unsetenv("DUO_GEMM_F64");
}

static gemm_shape shape(size_t m, size_t n, size_t k, duo_transpose ta,
                        duo_transpose tb)
{
    gemm_shape s;
    s.m = m;
    s.n = n;
    s.k = k;
    s.ta = ta;
    s.tb = tb;
    return s;
}

/* DUO_BENCH_GEMM_SHAPES="[f32:|f64:]MxNxK[NN|NT|TN|TT],...": only these
 * shapes, in both precisions or the one named (for tuning; e.g.
 * "f64:1024x1024x1024,4096x4096x4096NT").  1 if the variable was set
 * (and used), 0 if not; exit 2 if malformed. */
static int bench_gemm_env_shapes(bench *b)
{
    const char *env = getenv("DUO_BENCH_GEMM_SHAPES");
    if (env == NULL || env[0] == '\0')
        return 0;
    int first = 0, last = 1;
    if (strncmp(env, "f32:", 4) == 0 || strncmp(env, "f64:", 4) == 0) {
        first = last = env[1] == '6';
        env += 4;
    }
    for (int f64 = first; f64 <= last; ++f64)
        for (const char *p = env; *p;) {
            size_t m, n, k;
            int used = 0;
            char t[3] = "NN";
            if (sscanf(p, "%zux%zux%zu%n", &m, &n, &k, &used) != 3 ||
                m == 0 || n == 0 || k == 0) {
                fprintf(stderr, "%s: DUO_BENCH_GEMM_SHAPES: expected "
                        "MxNxK[NN|NT|TN|TT],... at \"%s\"\n", PROG, p);
                exit(2);
            }
            p += used;
            if ((*p == 'N' || *p == 'T') && (p[1] == 'N' || p[1] == 'T')) {
                t[0] = p[0];
                t[1] = p[1];
                p += 2;
            }
            if (*p == ',')
                ++p;
            else if (*p != '\0') {
                fprintf(stderr, "%s: DUO_BENCH_GEMM_SHAPES: unexpected "
                        "\"%s\"\n", PROG, p);
                exit(2);
            }
            bench_gemm_row(b, f64,
                           shape(m, n, k, t[0] == 'T' ? DUO_TRANS : DUO_NO_TRANS,
                                 t[1] == 'T' ? DUO_TRANS : DUO_NO_TRANS));
        }
    return 1;
}

static void bench_gemm(bench *b)
{
    const duo_transpose N = DUO_NO_TRANS, T = DUO_TRANS;
    if (b->ys.gemm == NULL)
        fprintf(stderr, "%s: %s\n", PROG, b->ys.gemm_missing);
    if (bench_gemm_env_shapes(b)) {
        bench_settle(b->ys.settle_seconds);
        return;
    }
    const size_t max_square = b->gpu ? 8192 : 2048;
    const size_t big = b->gpu ? 4096 : 1024;     /* NT / TN size */
    for (int f64 = 0; f64 <= 1; ++f64) {
        if (b->quick) {
            if (!f64) {
                bench_gemm_row(b, 0, shape(256, 256, 256, N, N));
                bench_gemm_row(b, 0, shape(513, 257, 129, N, N));
            }
            bench_gemm_row(b, f64, shape(big, big, big, N, N));
            continue;
        }
        for (size_t n = 64; n <= max_square; n *= 2)
            bench_gemm_row(b, f64, shape(n, n, n, N, N));
        bench_gemm_row(b, f64, shape(1000, 1000, 1000, N, N));
        bench_gemm_row(b, f64, shape(1023, 1023, 1023, N, N));
        bench_gemm_row(b, f64, shape(513, 257, 129, N, N));
        if (b->gpu) {
            bench_gemm_row(b, f64, shape(4096, 4096, 64, N, N));
            /* tall and skinny: C with 64 columns or 64 rows */
            bench_gemm_row(b, f64, shape(8192, 64, 8192, N, N));
            bench_gemm_row(b, f64, shape(64, 8192, 8192, N, N));
            bench_gemm_row(b, f64, shape(1023, 1023, 1023, N, T));
            bench_gemm_row(b, f64, shape(1023, 1023, 1023, T, N));
        } else {
            bench_gemm_row(b, f64, shape(2048, 2048, 64, N, N));
        }
        bench_gemm_row(b, f64, shape(big, big, big, N, T));
        bench_gemm_row(b, f64, shape(big, big, big, T, N));
    }
    bench_settle(b->ys.settle_seconds); /* before the next group */
}

static void write_gemm_method(const bench *b, FILE *f)
{
    if (b->gpu)
        fprintf(f, "- gemm: cuBLAS in CUBLAS_PEDANTIC_MATH (strict fp32, no "
                "TF32), row-major via C^T = op(B)^T op(A)^T.  f64 rows: "
                "duo's default kernel (FP64 tensor cores on compute "
                "capability 9.x, else FP64 units; the CPU's bits either "
                "way); rows marked fma: DUO_GEMM_F64=fma (FP64 units), "
                "tensor: DUO_GEMM_F64=tensor.\n");
    else
        fprintf(f, "- gemm: OpenBLAS cblas_?gemm (CblasRowMajor) with duo's "
                "thread count, when found.  With more than one thread "
                "OpenBLAS's worker threads spin for a while after each "
                "call, on the cores duo's threads need, so the two sides "
                "are then not alternated: duo's runs come first, after a "
                "pause for those threads to go to sleep (here %.2f s), then "
                "OpenBLAS's.\n", b->ys.settle_seconds);
}

/* Without a yardstick, the table says why and how to get one. */
static const char *gemm_table_note(const bench *b)
{
    return b->ys.gemm == NULL ? b->ys.gemm_missing : NULL;
}

const bench_group bench_group_gemm = {
    .name = "gemm",
    .run = bench_gemm,
    .write_method = write_gemm_method,
    .table_note = gemm_table_note,
};
