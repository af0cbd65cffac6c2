/*
 * gemm.c - duo-gemm: C = alpha * op(A) * op(B) + beta * C, row-major,
 * with duo_gemm_f32 / duo_gemm_f64 (op(A) is M x K, op(B) K x N).
 * Reports the median time of R runs and GFLOP/s at 2 M N K flops.
 *
 *   build/<backend>/bin/duo-gemm [M [N [K]]] [--type f32|f64] [--ta] [--tb]
 *       [--alpha A] [--beta B] [--reps R] [--seed S] [--check]
 *
 * One size means a square problem; N defaults to M and K to N.  Default
 * 512 on the CPU backends, 2048 on CUDA.
 *
 * --check compares the first (warm-up) run, made on fresh inputs, with a
 * host reference accumulated in double, element by element within
 *   gamma * (|alpha| sum_p |A_ip| |B_pj| + |beta| |C0_ij|),
 *   gamma = (K + 2) u,  u = 2^-24 (f32) or 2^-53 (f64),
 * plus the same bound with u = 2^-53 for the reference's own rounding.
 * With beta = 0 the device C starts as NaN, which must not propagate.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <duo.h>

#include "app_common.h"
#include "dump.h"

static const char *const PROG = "duo-gemm";
static const char *const USAGE =
    "usage: duo-gemm [M [N [K]]] [--type f32|f64] [--ta] [--tb]\n"
    "                [--alpha A] [--beta B] [--reps R] [--seed S] [--check]\n"
    "                [--dump FILE] [--help]\n"
    "  C = alpha * op(A) * op(B) + beta * C, row-major; op(A) is M x K,\n"
    "  op(B) is K x N.  One size means square; N defaults to M, K to N.\n"
    "  Default 512 (CPU backends) or 2048 (CUDA).\n"
    "  --type T   f32 (default) or f64\n"
    "  --ta       A is stored transposed (K x M); --tb: B stored N x K\n"
    "  --alpha A  default 1\n"
    "  --beta B   default 0 (C is then not read)\n"
    "  --reps R   timed runs after one warm-up run (default 5); the median\n"
    "             is reported\n"
    "  --seed S   seed of the random inputs (default 1)\n"
    "  --check    compare the warm-up run with a host reference; exit 1 on\n"
    "             a mismatch\n"
    "  --dump FILE  write C after the warm-up run (\"C\", M x N) to FILE\n";

#define DEFAULT_SIZE_CPU 512
#define DEFAULT_SIZE_GPU 2048

static const char *const TYPE_NAMES[] = {"f32", "f64", NULL};

typedef struct gemm_run {
    int f64;
    duo_transpose ta, tb;
    size_t m, n, k;
    double alpha, beta;
    const void *a, *b; /* device */
    void *c;           /* device */
    size_t lda, ldb, ldc;
} gemm_run;

static void run_gemm(void *ctx)
{
    const gemm_run *r = (const gemm_run *)ctx;
    if (r->f64)
        DUO_CHECK(duo_gemm_f64(r->ta, r->tb, r->m, r->n, r->k, r->alpha,
                               (const double *)r->a, r->lda,
                               (const double *)r->b, r->ldb, r->beta,
                               (double *)r->c, r->ldc));
    else
        DUO_CHECK(duo_gemm_f32(r->ta, r->tb, r->m, r->n, r->k,
                               (float)r->alpha, (const float *)r->a, r->lda,
                               (const float *)r->b, r->ldb, (float)r->beta,
                               (float *)r->c, r->ldc));
}

static double element(const void *p, int f64, size_t i)
{
    return f64 ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

/* (count) u / (1 - count u), the usual gamma. */
static double gamma_n(double count, double u)
{
    return count * u / (1.0 - count * u);
}

/* Rows of C the reference computes together, so that each row of op(B)
 * is read from memory once per block rather than once per row. */
#define REF_ROWS 8

/* Compare out (M x N, ldc = N) with the reference from the stored
 * inputs a, b and c0 (c0 unused when beta = 0). */
static int check_gemm(const gemm_run *r, const void *a, const void *b,
                      const void *c0, const void *out)
{
    const size_t m = r->m, n = r->n, k = r->k;
    /* op(A) as M x K and op(B) as K x N in double; the sums of products
     * and of their magnitudes for REF_ROWS rows of C. */
    double *opa = (double *)app_host_alloc(PROG, m * k * sizeof(double));
    double *opb = (double *)app_host_alloc(PROG, k * n * sizeof(double));
    const size_t block_bytes = REF_ROWS * n * sizeof(double);
    double *acc = (double *)app_host_alloc(PROG, block_bytes);
    double *mag = (double *)app_host_alloc(PROG, block_bytes);
    for (size_t i = 0; i < m; ++i)
        for (size_t p = 0; p < k; ++p)
            opa[i * k + p] = element(a, r->f64, r->ta == DUO_TRANS
                                                    ? p * r->lda + i
                                                    : i * r->lda + p);
    for (size_t p = 0; p < k; ++p)
        for (size_t j = 0; j < n; ++j)
            opb[p * n + j] = element(b, r->f64, r->tb == DUO_TRANS
                                                    ? j * r->ldb + p
                                                    : p * r->ldb + j);

    const double u = r->f64 ? 0x1p-53 : 0x1p-24;
    const double gamma = gamma_n((double)k + 2, u) +
                         gamma_n((double)k + 2, 0x1p-53);
    size_t bad = 0;
    char detail[320] = "";
    for (size_t i0 = 0; i0 < m; i0 += REF_ROWS) {
        const size_t rows = m - i0 < REF_ROWS ? m - i0 : REF_ROWS;
        for (size_t j = 0; j < rows * n; ++j)
            acc[j] = mag[j] = 0.0;
        for (size_t p = 0; p < k; ++p) {
            const double *DUO_RESTRICT brow = opb + p * n;
            for (size_t ii = 0; ii < rows; ++ii) {
                const double av = opa[(i0 + ii) * k + p], aa = fabs(av);
                double *DUO_RESTRICT arow = acc + ii * n;
                double *DUO_RESTRICT mrow = mag + ii * n;
                for (size_t j = 0; j < n; ++j) {
                    arow[j] += av * brow[j];
                    mrow[j] += aa * fabs(brow[j]);
                }
            }
        }
        for (size_t ii = 0; ii < rows; ++ii) {
            const size_t i = i0 + ii;
            for (size_t j = 0; j < n; ++j) {
                double ref = r->alpha * acc[ii * n + j];
                double bound = fabs(r->alpha) * mag[ii * n + j];
                if (r->beta != 0.0) {
                    const double c = element(c0, r->f64, i * r->ldc + j);
                    ref += r->beta * c;
                    bound += fabs(r->beta) * fabs(c);
                }
                bound *= gamma;
                const double got = element(out, r->f64, i * r->ldc + j);
                const double diff = fabs(got - ref);
                if (!(diff <= bound) && bad++ == 0) /* NaN fails */
                    snprintf(detail, sizeof detail,
                             "C[%zu][%zu] = %.17g, expected %.17g "
                             "(|difference| %.3g > bound %.3g)",
                             i, j, got, ref, diff, bound);
            }
        }
    }
    free(opa);
    free(opb);
    free(acc);
    free(mag);
    return app_report_check(bad, m * n, "elements", detail);
}

static void fill(int f64, void *x, size_t count, app_rng *rng)
{
    if (f64)
        app_fill_f64((double *)x, count, rng);
    else
        app_fill_f32((float *)x, count, rng);
}

int main(int argc, char **argv)
{
    static const char *const size_names[] = {"M", "N", "K"};
    int type_choice = 0, ta = 0, tb = 0;
    double alpha = 1.0, beta = 0.0;
    app_option options[5];
    options[0].name = "--type";
    options[0].kind = APP_OPT_CHOICE;
    options[0].value = &type_choice;
    options[0].choices = TYPE_NAMES;
    options[1].name = "--ta";
    options[1].kind = APP_OPT_FLAG;
    options[1].value = &ta;
    options[1].choices = NULL;
    options[2].name = "--tb";
    options[2].kind = APP_OPT_FLAG;
    options[2].value = &tb;
    options[2].choices = NULL;
    options[3].name = "--alpha";
    options[3].kind = APP_OPT_REAL;
    options[3].value = &alpha;
    options[3].choices = NULL;
    options[4].name = "--beta";
    options[4].kind = APP_OPT_REAL;
    options[4].value = &beta;
    options[4].choices = NULL;
    app_args args;
    app_parse(argc, argv, PROG, USAGE, 3, size_names, options, 5, &args);
    const char *dump_path = args.dump_path;

    const int f64 = type_choice == 1;
    if (!f64 && fabs(alpha) > FLT_MAX)
        app_usage_error(PROG, USAGE, "--alpha %g: expected a number that "
                        "fits in a float for --type f32", alpha);
    if (!f64 && fabs(beta) > FLT_MAX)
        app_usage_error(PROG, USAGE, "--beta %g: expected a number that "
                        "fits in a float for --type f32", beta);

    app_init(PROG);

    gemm_run run;
    memset(&run, 0, sizeof run);
    const size_t dflt = strcmp(duo_backend_name(), "cuda") == 0
                            ? DEFAULT_SIZE_GPU
                            : DEFAULT_SIZE_CPU;
    run.m = args.nsizes > 0 ? args.sizes[0] : dflt;
    run.n = args.nsizes > 1 ? args.sizes[1] : run.m;
    run.k = args.nsizes > 2 ? args.sizes[2] : run.n;
    run.f64 = f64;
    run.ta = ta ? DUO_TRANS : DUO_NO_TRANS;
    run.tb = tb ? DUO_TRANS : DUO_NO_TRANS;
    /* f32 arithmetic sees alpha and beta as floats: so does the check. */
    run.alpha = f64 ? alpha : (double)(float)alpha;
    run.beta = f64 ? beta : (double)(float)beta;
    run.lda = ta ? run.m : run.k; /* stored K x M, or M x K */
    run.ldb = tb ? run.k : run.n; /* stored N x K, or K x N */
    run.ldc = run.n;

    const size_t elem = f64 ? sizeof(double) : sizeof(float);
    const size_t a_bytes =
        app_bytes(PROG, "A", app_count(PROG, "A", run.m, run.k), elem);
    const size_t b_bytes =
        app_bytes(PROG, "B", app_count(PROG, "B", run.k, run.n), elem);
    const size_t c_bytes =
        app_bytes(PROG, "C", app_count(PROG, "C", run.m, run.n), elem);
    if (args.check) /* the reference's double copies of op(A), op(B) */
        (void)app_bytes(PROG, "reference",
                        app_count(PROG, "reference", run.k, run.m + run.n),
                        sizeof(double));

    /* Fresh inputs from the seed; C0 only matters when beta != 0. */
    app_rng rng;
    app_rng_seed(&rng, args.seed);
    void *a = app_host_alloc(PROG, a_bytes);
    void *b = app_host_alloc(PROG, b_bytes);
    void *c0 = app_host_alloc(PROG, c_bytes);
    fill(f64, a, run.m * run.k, &rng);
    fill(f64, b, run.k * run.n, &rng);
    fill(f64, c0, run.m * run.n, &rng);

    void *da = NULL, *db = NULL, *dc = NULL;
    DUO_CHECK(duo_malloc(&da, a_bytes));
    DUO_CHECK(duo_malloc(&db, b_bytes));
    DUO_CHECK(duo_malloc(&dc, c_bytes));
    DUO_CHECK(duo_memcpy(da, a, a_bytes, DUO_HOST_TO_DEVICE));
    DUO_CHECK(duo_memcpy(db, b, b_bytes, DUO_HOST_TO_DEVICE));
    /* beta = 0: C is not to be read, so it starts as NaN (all bits set);
     * otherwise it holds C0. */
    if (run.beta == 0.0)
        DUO_CHECK(duo_memset(dc, 0xff, c_bytes));
    else
        DUO_CHECK(duo_memcpy(dc, c0, c_bytes, DUO_HOST_TO_DEVICE));
    run.a = da;
    run.b = db;
    run.c = dc;

    /* Warm-up, which is also the checked run; the host copy of the
     * result starts as NaN. */
    void *out = NULL;
    run_gemm(&run);
    if (args.check || dump_path != NULL) {
        out = app_host_alloc(PROG, c_bytes);
        memset(out, 0xff, c_bytes);
        DUO_CHECK(duo_memcpy(out, dc, c_bytes, DUO_DEVICE_TO_HOST));
    }

    const double ms = app_time_median_ms(run_gemm, &run, args.reps);
    char size[96], extra[128];
    snprintf(size, sizeof size, "%zux%zux%zu", run.m, run.n, run.k);
    snprintf(extra, sizeof extra, "type=%s trans=%c%c alpha=%g beta=%g",
             TYPE_NAMES[type_choice], ta ? 'T' : 'N', tb ? 'T' : 'N',
             run.alpha, run.beta);
    app_print_result(PROG, size, extra, args.reps, ms, "GFLOP/s",
                     2.0 * (double)run.m * (double)run.n * (double)run.k);

    int failed = 0;
    if (args.check)
        failed = check_gemm(&run, a, b, c0, out);
    if (dump_path != NULL) {
        const size_t dims[2] = {run.m, run.n};
        dump_writer *d = dump_open(dump_path, PROG, argc, argv);
        dump_array(d, "C", f64 ? DUO_F64 : DUO_F32, 2, dims, out);
        if (dump_close(d) != 0)
            failed = 1;
    }

    DUO_CHECK(duo_free(da));
    DUO_CHECK(duo_free(db));
    DUO_CHECK(duo_free(dc));
    free(out);
    free(a);
    free(b);
    free(c0);
    DUO_CHECK(duo_finalize());
    return failed;
}
