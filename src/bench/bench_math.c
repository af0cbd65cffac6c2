/*
 * bench_math.c - the math group: each float and double function of
 * <duo/math.h> against the backend's own (math_kernels.h), one call per
 * element.
 *
 * Two rows per function: "expf" (the kernel over 2^26 arguments, 2^22
 * with --quick: CUDA's function on the GPU, glibc's on the OpenMP
 * threads in CPU builds) and "expf host" (one thread, a plain loop over
 * 2^22 arguments, 2^20 with --quick, against glibc); the double
 * functions' rows, "exp" and "exp host", after the float ones.  The
 * issue's bar is 0.8x the yardstick's throughput for every float
 * function; the Method section names the worst ratio of each side.
 */
#include <string.h>

#include "bench.h"
#include "math_kernels.h"

static void math_row(bench *b, bench_math *m, int kernels)
{
    char what[32], size[32];
    snprintf(what, sizeof what, "%s%s", bench_math_name(m->index),
             kernels ? "" : " host");
    const size_t n = kernels ? m->n : m->host_n;
    bench_size_label(size, sizeof size, n);
    row *r = bench_new_row(b, what, size);
    r->region = "compute";
    r->ys_name = kernels ? (b->gpu ? "CUDA's" : "glibc's")
                         : "glibc's, 1 thread";
    r->amount = (double)n; /* calls */
    r->unit = "Gcalls/s";
    r->unit_scale = 1e9;
    bench_op duo = kernels ? bench_math_kernel_duo : bench_math_host_duo;
    bench_op ys = kernels ? bench_math_kernel_ys : bench_math_host_ys;
    if (!kernels) {
        duo(m);
        ys(m);
    }
    r->check_ok = bench_math_check(m, kernels, r->check, sizeof r->check);
    bench_measure(b, duo, ys, m, r);
    bench_finish_row(b, r);
}

static void run_math_group(bench *b)
{
    const size_t n = b->quick ? (size_t)1 << 22 : (size_t)1 << 26;
    const size_t host_n = b->quick ? (size_t)1 << 20 : (size_t)1 << 22;
    for (int f = 0; f < bench_math_count(); ++f) {
        bench_math m;
        DUO_CHECK(bench_math_setup(&m, f, n, host_n));
        math_row(b, &m, 1);
        math_row(b, &m, 0);
        bench_math_teardown(&m);
    }
}

/* The worst ratio among the group's rows of one side. */
static void worst_row(const bench *b, int host, FILE *f)
{
    const row *worst = NULL;
    for (size_t i = 0; i < b->nrows; ++i) {
        const row *r = &b->rows[i];
        const size_t len = strlen(r->what);
        const int is_host = len > 5 && strcmp(r->what + len - 5, " host") == 0;
        if (r->group != &bench_group_math || is_host != host ||
            r->ys_ms <= 0 || r->duo_ms <= 0)
            continue;
        if (worst == NULL ||
            r->ys_ms / r->duo_ms < worst->ys_ms / worst->duo_ms)
            worst = r;
    }
    if (worst != NULL)
        fprintf(f, "  Worst %s ratio: %.3f (%s).\n",
                host ? "host (1 thread)" : "kernel",
                worst->ys_ms / worst->duo_ms, worst->what);
}

static void write_math_method(const bench *b, FILE *f)
{
    fprintf(f, "- math: each function of duo/math.h (the float ones "
               "correctly rounded, the double ones, rows exp to pow, "
               "within 1 ulp; the same bits everywhere) against the "
               "backend's own, one call per element: in a kernel (CUDA's "
               "functions without fast math on the GPU; glibc's on the "
               "OpenMP threads in CPU builds) and, rows \"... host\", in "
               "a plain loop on one thread against glibc's; arguments "
               "where each function is used; duo's outputs checked bit for "
               "bit against duo's function on the host, the yardstick's "
               "within 4 ulps of them.\n");
    worst_row(b, 0, f);
    worst_row(b, 1, f);
}

const bench_group bench_group_math = {
    .name = "math",
    .run = run_math_group,
    .write_method = write_math_method,
};
