/*
 * matmul.c - duo-matmul: C = A B in float (row-major, A is M x K, B is
 * K x N), three ways side by side, each timed and each checked:
 *
 *   naive    a DUO_KERNEL with DUO_FOR_2D: one index per element of C,
 *            which reads a row of A and a column of B from device memory;
 *   tiled    a DUO_BLOCK_KERNEL of 16 x 16 threads, one per element of a
 *            16 x 16 tile of C: the block walks K in steps of 16, staging
 *            a 16 x 16 tile of A and one of B in DUO_SHARED memory (load
 *            phase, DUO_BARRIER, multiply phase, DUO_BARRIER), so each
 *            element of A and B is read from device memory once per
 *            tile of C instead of once per element; the running sum lives
 *            in DUO_PRIVATE across the barriers.  Out-of-range elements
 *            of the edge tiles are loaded as 0, so M, N and K need not be
 *            multiples of 16;
 *   library  duo_gemm_f32.
 *
 * Reports, per version, the median time of R runs and GFLOP/s at 2 M N K
 * flops.
 *
 *   build/<backend>/bin/duo-matmul [M [N [K]]] [--reps R] [--seed S]
 *       [--check] [--dump FILE]
 *
 * One size means a square problem; N defaults to M and K to N (default
 * 512).
 *
 * --check compares each version's warm-up run with a host reference
 * accumulated in double, element by element within
 *   gamma * sum_p |A_ip| |B_pj|,  gamma = gamma_{K+2}(2^-24) + gamma_{K+2}(2^-53)
 * (gamma_m(u) = m u / (1 - m u)): a dot product of length K evaluated in
 * float in any order, with or without fused multiply-adds, is within
 * gamma_K(2^-24) sum |A||B| of the exact result (Higham, Accuracy and
 * Stability of Numerical Algorithms, 2nd ed., section 3.1); K + 2 is the
 * bound duo-gemm uses, which leaves room for a library that scales by
 * alpha or splits K into blocks, and the second term covers the double
 * reference's own error.  Each version starts from a C of NaN, so an
 * element it fails to write fails the check.
 * --dump FILE writes C of the library version ("C", f32, M x N).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <duo.h>

#include "app_common.h"
#include "dump.h"

static const char *const PROG = "duo-matmul";
static const char *const USAGE =
    "usage: duo-matmul [M [N [K]]] [--reps R] [--seed S] [--check]\n"
    "                  [--dump FILE] [--help]\n"
    "  C = A B in float, A is M x K, B is K x N, row-major, three ways:\n"
    "  naive (DUO_FOR_2D), tiled (16 x 16 shared-memory tiles) and\n"
    "  library (duo_gemm_f32).  One size means square; N defaults to M,\n"
    "  K to N.  Default 512.\n"
    "  --reps R     timed runs of each version after one warm-up run\n"
    "               (default 5); the median is reported\n"
    "  --seed S     seed of the random inputs (default 1)\n"
    "  --check      compare each warm-up run with a double-precision host\n"
    "               reference; exit 1 on a mismatch\n"
    "  --dump FILE  write C of the library version to FILE\n";

#define DEFAULT_SIZE 512
#define MT 16 /* tile edge of the tiled kernel */

enum { V_NAIVE, V_TILED, V_LIBRARY, NVERSIONS };
static const char *const VERSION_NAMES[] = {"naive", "tiled", "library"};

DUO_KERNEL(matmul_naive, size_t m, size_t n, size_t k,
           const float *DUO_RESTRICT a, const float *DUO_RESTRICT b,
           float *DUO_RESTRICT c)
{
    DUO_FOR_2D(i, j, m, n) {
        float acc = 0.0f;
        for (size_t p = 0; p < k; ++p)
            acc += a[i * k + p] * b[p * n + j];
        c[i * n + j] = acc;
    }
}

/* Block (bx, by) computes C[by*16 .. by*16+15][bx*16 .. bx*16+15]; thread
 * (tx, ty) the element in row ty, column tx of that tile. */
DUO_BLOCK_KERNEL(matmul_tiled, MT, MT, size_t m, size_t n, size_t k,
                 const float *DUO_RESTRICT a, const float *DUO_RESTRICT b,
                 float *DUO_RESTRICT c)
{
    DUO_SHARED(float, as, MT * MT); /* as[ty][q] = A[row0 + ty][p0 + q] */
    DUO_SHARED(float, bs, MT * MT); /* bs[q][tx] = B[p0 + q][col0 + tx] */
    DUO_PRIVATE(float, acc);
    const size_t row0 = DUO_BY * MT, col0 = DUO_BX * MT;

    DUO_THREADS {
        DUO_MY(acc) = 0.0f;
    }
    for (size_t p0 = 0; p0 < k; p0 += MT) {
        DUO_THREADS {
            const size_t r = row0 + DUO_TY, col = col0 + DUO_TX;
            const size_t pa = p0 + DUO_TX, pb = p0 + DUO_TY;
            as[DUO_TY * MT + DUO_TX] =
                r < m && pa < k ? a[r * k + pa] : 0.0f;
            bs[DUO_TY * MT + DUO_TX] =
                pb < k && col < n ? b[pb * n + col] : 0.0f;
        }
        DUO_BARRIER;
        DUO_THREADS {
            float s = DUO_MY(acc);
            for (size_t q = 0; q < MT; ++q)
                s += as[DUO_TY * MT + q] * bs[q * MT + DUO_TX];
            DUO_MY(acc) = s;
        }
        DUO_BARRIER; /* the next load overwrites the tiles */
    }
    DUO_THREADS {
        const size_t r = row0 + DUO_TY, col = col0 + DUO_TX;
        if (r < m && col < n)
            c[r * n + col] = DUO_MY(acc);
    }
}
DUO_BLOCK_KERNEL_END

typedef struct matmul_run {
    int version;
    size_t m, n, k;
    const float *a, *b; /* device */
    float *c;           /* device */
} matmul_run;

static void run_matmul(void *ctx)
{
    const matmul_run *r = (const matmul_run *)ctx;
    switch (r->version) {
    case V_NAIVE:
        DUO_CHECK(DUO_LAUNCH_2D(matmul_naive, r->m, r->n, r->m, r->n, r->k,
                                r->a, r->b, r->c));
        break;
    case V_TILED:
        DUO_CHECK(DUO_LAUNCH_BLOCKS(matmul_tiled, duo_ceil_div(r->n, MT),
                                    duo_ceil_div(r->m, MT), r->m, r->n, r->k,
                                    r->a, r->b, r->c));
        break;
    default:
        DUO_CHECK(duo_gemm_f32(DUO_NO_TRANS, DUO_NO_TRANS, r->m, r->n, r->k,
                               1.0f, r->a, r->k, r->b, r->n, 0.0f, r->c,
                               r->n));
        break;
    }
}

/* (count) u / (1 - count u), the usual gamma. */
static double gamma_n(double count, double u)
{
    return count * u / (1.0 - count * u);
}

/* Rows of C the reference computes together, so that each row of B is
 * read from memory once per block rather than once per row. */
#define REF_ROWS 8

/* ref = A B and mag = |A| |B|, both M x N, in double. */
static void reference(size_t m, size_t n, size_t k, const float *a,
                      const float *b, double *ref, double *mag)
{
    for (size_t i0 = 0; i0 < m; i0 += REF_ROWS) {
        const size_t rows = m - i0 < REF_ROWS ? m - i0 : REF_ROWS;
        double *acc = ref + i0 * n, *abs_acc = mag + i0 * n;
        for (size_t j = 0; j < rows * n; ++j)
            acc[j] = abs_acc[j] = 0.0;
        for (size_t p = 0; p < k; ++p) {
            const float *brow = b + p * n;
            for (size_t ii = 0; ii < rows; ++ii) {
                const double av = a[(i0 + ii) * k + p], aa = fabs(av);
                double *arow = acc + ii * n, *mrow = abs_acc + ii * n;
                for (size_t j = 0; j < n; ++j) {
                    arow[j] += av * (double)brow[j];
                    mrow[j] += aa * fabs((double)brow[j]);
                }
            }
        }
    }
}

/* Mismatches of out against the reference; details of the first into
 * detail (when it is not NULL). */
static size_t compare_c(const char *version, size_t m, size_t n, size_t k,
                        const double *ref, const double *mag,
                        const float *out, double *worst, char *detail,
                        size_t size)
{
    const double gamma = gamma_n((double)k + 2, 0x1p-24) +
                         gamma_n((double)k + 2, 0x1p-53);
    size_t bad = 0;
    *worst = 0.0;
    for (size_t i = 0; i < m; ++i)
        for (size_t j = 0; j < n; ++j) {
            const double bound = gamma * mag[i * n + j];
            const double got = out[i * n + j];
            const double diff = fabs(got - ref[i * n + j]);
            if (bound > 0 && diff / bound > *worst)
                *worst = diff / bound;
            if (!(diff <= bound) && bad++ == 0 && detail != NULL) /* NaN */
                snprintf(detail, size,
                         "%s: C[%zu][%zu] = %.9g, expected %.17g "
                         "(|difference| %.3g > bound %.3g)",
                         version, i, j, got, ref[i * n + j], diff, bound);
        }
    return bad;
}

int main(int argc, char **argv)
{
    static const char *const size_names[] = {"M", "N", "K"};
    app_args args;
    app_parse(argc, argv, PROG, USAGE, 3, size_names, NULL, 0, &args);
    const char *dump_path = args.dump_path;
    const size_t m = args.nsizes > 0 ? args.sizes[0] : DEFAULT_SIZE;
    const size_t n = args.nsizes > 1 ? args.sizes[1] : m;
    const size_t k = args.nsizes > 2 ? args.sizes[2] : n;

    const size_t a_bytes =
        app_bytes(PROG, "A", app_count(PROG, "A", m, k), sizeof(float));
    const size_t b_bytes =
        app_bytes(PROG, "B", app_count(PROG, "B", k, n), sizeof(float));
    const size_t c_bytes =
        app_bytes(PROG, "C", app_count(PROG, "C", m, n), sizeof(float));
    if (args.check) /* the reference's two double arrays */
        (void)app_bytes(PROG, "reference", app_count(PROG, "C", m, n),
                        2 * sizeof(double));

    app_init(PROG);

    app_rng rng;
    app_rng_seed(&rng, args.seed);
    float *a = (float *)app_host_alloc(PROG, a_bytes);
    float *b = (float *)app_host_alloc(PROG, b_bytes);
    app_fill_f32(a, m * k, &rng);
    app_fill_f32(b, k * n, &rng);

    float *da = NULL, *db = NULL, *dc = NULL;
    DUO_CHECK(duo_malloc((void **)&da, a_bytes));
    DUO_CHECK(duo_malloc((void **)&db, b_bytes));
    DUO_CHECK(duo_malloc((void **)&dc, c_bytes));
    DUO_CHECK(duo_memcpy(da, a, a_bytes, DUO_HOST_TO_DEVICE));
    DUO_CHECK(duo_memcpy(db, b, b_bytes, DUO_HOST_TO_DEVICE));

    char size[96];
    snprintf(size, sizeof size, "%zux%zux%zu", m, n, k);
    float *out[NVERSIONS];
    for (int v = 0; v < NVERSIONS; ++v) {
        matmul_run run;
        run.version = v;
        run.m = m;
        run.n = n;
        run.k = k;
        run.a = da;
        run.b = db;
        run.c = dc;
        /* Warm-up, which is also the checked run, on a C of NaN (all bits
         * set); the host copy starts as NaN too. */
        DUO_CHECK(duo_memset(dc, 0xff, c_bytes));
        run_matmul(&run);
        out[v] = (float *)app_host_alloc(PROG, c_bytes);
        memset(out[v], 0xff, c_bytes);
        DUO_CHECK(duo_memcpy(out[v], dc, c_bytes, DUO_DEVICE_TO_HOST));

        const double ms = app_time_median_ms(run_matmul, &run, args.reps);
        char extra[32];
        snprintf(extra, sizeof extra, "version=%s", VERSION_NAMES[v]);
        app_print_result(PROG, size, extra, args.reps, ms, "GFLOP/s",
                         2.0 * (double)m * (double)n * (double)k);
    }

    int failed = 0;
    if (args.check) {
        double *ref = (double *)app_host_alloc(PROG, m * n * sizeof(double));
        double *mag = (double *)app_host_alloc(PROG, m * n * sizeof(double));
        reference(m, n, k, a, b, ref, mag);
        size_t bad = 0;
        char detail[320] = "";
        for (int v = 0; v < NVERSIONS; ++v) {
            double worst = 0.0;
            const size_t vbad = compare_c(VERSION_NAMES[v], m, n, k, ref, mag,
                                          out[v], &worst,
                                          bad ? NULL : detail,
                                          sizeof detail);
            printf("%-8s %zu of %zu elements outside the bound; largest "
                   "|error| / bound %.3g\n", VERSION_NAMES[v], vbad, m * n,
                   worst);
            bad += vbad;
        }
        failed = app_report_check(bad, NVERSIONS * m * n, "elements",
                                  detail);
        free(ref);
        free(mag);
    }

    if (dump_path != NULL) {
        dump_writer *d = dump_open(dump_path, PROG, argc, argv);
        const size_t dims[2] = {m, n};
        dump_array(d, "C", DUO_F32, 2, dims, out[V_LIBRARY]);
        if (dump_close(d) != 0)
            failed = 1;
    }

    DUO_CHECK(duo_free(da));
    DUO_CHECK(duo_free(db));
    DUO_CHECK(duo_free(dc));
    for (int v = 0; v < NVERSIONS; ++v)
        free(out[v]);
    free(a);
    free(b);
    DUO_CHECK(duo_finalize());
    return failed;
}
