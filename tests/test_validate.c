/*
 * test_validate.c - DUO_VALIDATE: planted divergences are found and
 * named (kernel, file:line, array, first index), kernels that agree are
 * not reported, what cannot be checked is skipped with its reason, the
 * settings' bad values fail duo_init, and a validated run leaves the
 * same results as a plain one.
 *
 *   test_validate            all of it (runs itself for the abort case)
 *   test_validate --planted  one planted divergence under the caller's
 *                            DUO_VALIDATE (the abort case's child)
 *
 * Planted: `shifted` computes x + 1 on the GPU and x on the host, so
 * only a GPU run differs; `by_thread` adds the number of the OpenMP
 * thread that ran each index, as a kernel that keeps per-thread state
 * would, so only a run of several threads differs from a run of one, and
 * it does so on every run.  `races` is a data race: each index reads
 * the next one, which another thread may have overwritten already; run
 * by one thread in index order it reads only values not yet written.
 * Whether a run of several threads shows it depends on their timing (a
 * thread started late on a busy machine hides it), so each element
 * carries enough work that the second thread must start some
 * milliseconds late to hide it, and the race is launched up to RACE_TRIES
 * times: it must be reported at least once, and every report of it must
 * name it, its line, its array and the index where the threads' shares
 * meet.
 * `through_struct` reaches its array through a struct passed by value:
 * checked everywhere (on the host the array it reaches is put back in
 * place for the one-thread run; on the GPU the struct's pointer is
 * followed to the array, and the host run gets a copy of the struct
 * that points to its shadow).  `through_rows`
 * reaches its array through an array of pointers in a struct: checked
 * on the host, skipped on the GPU with that reason.  `scale` over the
 * two halves of one allocation (read the first, write the second
 * through a pointer into its middle) checks that the host's second run,
 * which works on a copy of what a launch may write, finds both pointers
 * in that copy.  On the host, `through_struct` reaching an allocation
 * above 64 KiB must have that allocation alone put back, not every live
 * one (the summary's bytes compared tell).
 * A graph of `scale` and the build's plant, replayed twice, must have
 * both launches of each replay checked and the plant named in each.
 * Pointers to structs in duo memory: `set_coeffs` writes a struct of
 * plain data (one field differently on the GPU) and `affine` reads it,
 * both checked on the GPU too; `doubled` follows a device pointer held
 * in a struct, skipped on the GPU with that reason.  On the host the
 * struct is put back in place for the one-thread run (its pointer is not
 * moved), and `last_thread`, a host plant, writes into it the number of
 * the thread that ran the last index.
 * User reductions: `planted_sum` adds 1 per term on the GPU only;
 * `read_sum` reads an array through a pointer in its arguments, checked
 * on the GPU too (over a host copy of the array); `nested_sum` reads
 * through an array of pointers, skipped on the GPU with that reason,
 * checked on the host.
 */
#define _POSIX_C_SOURCE 200809L

#include <duo.h>
#include <duo/kernel.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

enum { N = 100003, NI = 61, NJ = 129, HALF = 4099, RACE_TRIES = 10 };

DUO_KERNEL(scale, size_t n, float a, const float *x, float *y)
{
    DUO_FOR(i, n)
        y[i] = a * x[i];
}

DUO_KERNEL(shifted, size_t n, const float *x, float *y)
{
    DUO_FOR(i, n)
    {
#if defined(__CUDA_ARCH__)
        y[i] = x[i] + 1.0f;
#else
        y[i] = x[i];
#endif
    }
}

/* The host threads' numbers; 0 in the serial build and on the GPU. */
#if defined(_OPENMP) && !defined(__CUDA_ARCH__)
#include <omp.h>
#define THREAD_NUMBER() omp_get_thread_num()
#else
#define THREAD_NUMBER() 0
#endif

DUO_KERNEL(by_thread, size_t n, const double *x, double *y)
{
    DUO_FOR(i, n)
        y[i] = x[i] + (double)THREAD_NUMBER();
}

DUO_KERNEL(races, size_t n, const double *x, double *y)
{
    DUO_FOR(i, n)
    {
        double v = x[i];
        for (int k = 0; k < 200; ++k) /* work, so that the shares overlap */
            v = v * 0.999 + 0.001;
        y[i] = (i + 1 < n ? y[i + 1] : 0.0) + v;
    }
}

DUO_KERNEL(stencil, size_t ni, size_t nj, const float *u, float *v)
{
    DUO_FOR_2D(i, j, ni, nj)
    {
        const size_t k = i * nj + j;
        v[k] = (i == 0 ? 0.0f : u[k - nj]) + u[k];
    }
}

typedef struct pair {
    float *x;
    size_t n;
} pair;

DUO_KERNEL(through_struct, pair p)
{
    DUO_FOR(i, p.n)
        p.x[i] = 2.0f * p.x[i];
}

typedef struct rows_arg {
    float *const *rows; /* rows[0] is the array */
    size_t n;
} rows_arg;

DUO_KERNEL(through_rows, rows_arg r)
{
    DUO_FOR(i, r.n)
        r.rows[0][i] = r.rows[0][i] + 1.0f;
}

/* Plain data: no pointers. */
typedef struct coeffs {
    double a;
    float b;
    int32_t n; /* at byte 12 */
} coeffs;

DUO_KERNEL(set_coeffs, size_t one, coeffs *c, double a, float b)
{
    DUO_FOR(i, one)
    {
        c->a = a;
        c->b = b;
#if defined(__CUDA_ARCH__)
        c->n = 8;
#else
        c->n = 7;
#endif
    }
}

DUO_KERNEL(affine, size_t n, const coeffs *c, const float *x, float *y)
{
    DUO_FOR(i, n)
        y[i] = c->b * x[i] + (float)c->a;
}

DUO_KERNEL(doubled, size_t n, const pair *h)
{
    DUO_FOR(i, n)
        h->x[i] = 2.0f * h->x[i];
}

/* Host plant: the number of the thread that ran the last index. */
DUO_KERNEL(last_thread, size_t n, coeffs *c)
{
    DUO_FOR(i, n)
    {
        if (i + 1 == n)
            c->n = THREAD_NUMBER();
    }
}

typedef struct term_args {
    double scale;
} term_args;

DUO_DEVICE double planted_term(size_t i, term_args a)
{
#if defined(__CUDA_ARCH__)
    return a.scale * (double)i + 1.0;
#else
    return a.scale * (double)i;
#endif
}
DUO_REDUCE_DEFINE(planted_sum, double, DUO_SUM, planted_term, term_args)

typedef struct read_args {
    const float *x;
} read_args;

DUO_DEVICE float read_term(size_t i, read_args a)
{
    return a.x[i];
}
DUO_REDUCE_DEFINE(read_sum, float, DUO_SUM, read_term, read_args)

typedef struct nested_args {
    const float *const *rows; /* rows[0] is the array */
} nested_args;

DUO_DEVICE float nested_term(size_t i, nested_args a)
{
    return a.rows[0][i];
}
DUO_REDUCE_DEFINE(nested_sum, float, DUO_SUM, nested_term, nested_args)

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = (char *)malloc((size_t)n + 1);
    if (buf != NULL) {
        size_t got = fread(buf, 1, (size_t)n, f);
        buf[got] = '\0';
    }
    fclose(f);
    return buf;
}

/* DUO_VALIDATE=1 for the next duo_init, its report to a new temporary
 * file made from the mkstemp template `report`. */
static void report_open(char *report)
{
    const int fd = mkstemp(report);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    setenv("DUO_VALIDATE", "1", 1);
    setenv("DUO_VALIDATE_REPORT", report, 1);
}

/* After duo_finalize: the report's text (never NULL; free it), printed
 * under `title`; the file is removed and DUO_VALIDATE_REPORT unset. */
static char *report_take(const char *report, const char *title, int gpu)
{
    unsetenv("DUO_VALIDATE_REPORT");
    char *text = slurp(report);
    CHECK(text != NULL);
    if (text == NULL)
        text = (char *)calloc(1, 1);
    printf("--- %s (%s) ---\n%s---\n", title, gpu ? "GPU" : "host", text);
    remove(report);
    return text;
}

/* The kernels on random inputs; their results in *out (host copies). */
typedef struct results {
    float y[N];
    double p[N];
    float v[NI * NJ];
    float w[2 * HALF];
} results;

static void run_kernels(results *out, int gpu)
{
    test_rng rng;
    test_rng_seed(&rng, 2029);
    float *hx = (float *)test_xmalloc(N * sizeof(float));
    double *hd = (double *)test_xmalloc(N * sizeof(double));
    for (size_t i = 0; i < N; ++i) {
        hx[i] = test_rng_uniform_f(&rng) - 0.5f;
        hd[i] = test_rng_uniform(&rng);
    }
    float *x = NULL, *y = NULL, *u = NULL, *v = NULL, *w = NULL;
    double *d = NULL, *p = NULL;
    CHECK_OK(duo_malloc((void **)&x, N * sizeof(float)));
    CHECK_OK(duo_malloc((void **)&y, N * sizeof(float)));
    CHECK_OK(duo_malloc((void **)&d, N * sizeof(double)));
    CHECK_OK(duo_malloc((void **)&p, N * sizeof(double)));
    CHECK_OK(duo_malloc((void **)&u, NI * NJ * sizeof(float)));
    CHECK_OK(duo_malloc((void **)&v, NI * NJ * sizeof(float)));
    CHECK_OK(duo_malloc((void **)&w, 2 * HALF * sizeof(float)));
    CHECK_OK(duo_memcpy(x, hx, N * sizeof(float), DUO_HOST_TO_DEVICE));
    CHECK_OK(duo_memcpy(w, hx + HALF, 2 * HALF * sizeof(float),
                        DUO_HOST_TO_DEVICE));
    CHECK_OK(duo_memcpy(d, hd, N * sizeof(double), DUO_HOST_TO_DEVICE));
    CHECK_OK(duo_memcpy(u, hx, NI * NJ * sizeof(float), DUO_HOST_TO_DEVICE));
    CHECK_OK(duo_memset(p, 0, N * sizeof(double)));
    /* Validation copies an output's state before each launch, written or
     * not: clear y and v first, so that compute-sanitizer's initcheck
     * finds no read of memory never written. */
    CHECK_OK(duo_memset(y, 0, N * sizeof(float)));
    CHECK_OK(duo_memset(v, 0, NI * NJ * sizeof(float)));

    CHECK_OK(DUO_LAUNCH(scale, N, (size_t)N, 0.1f, x, y));
    CHECK_OK(DUO_LAUNCH(shifted, N, (size_t)N, y, y));
    /* by_thread is a host plant: the GPU has no OpenMP threads. */
    if (!gpu)
        CHECK_OK(DUO_LAUNCH(by_thread, N, (size_t)N, d, p));
    CHECK_OK(DUO_LAUNCH_2D(stencil, NI, NJ, (size_t)NI, (size_t)NJ, u, v));
    pair s = {v, NI * NJ};
    CHECK_OK(DUO_LAUNCH(through_struct, NI * NJ, s));
    float **rows = NULL; /* one pointer, to v */
    CHECK_OK(duo_malloc((void **)&rows, sizeof *rows));
    CHECK_OK(duo_memcpy(rows, &v, sizeof v, DUO_HOST_TO_DEVICE));
    rows_arg r = {rows, NI * NJ};
    CHECK_OK(DUO_LAUNCH(through_rows, NI * NJ, r));
    CHECK_OK(DUO_LAUNCH(scale, HALF, (size_t)HALF, 0.5f, (const float *)w,
                        w + HALF));
    CHECK_OK(duo_memcpy(out->y, y, sizeof out->y, DUO_DEVICE_TO_HOST));
    CHECK_OK(duo_memcpy(out->p, p, sizeof out->p, DUO_DEVICE_TO_HOST));
    CHECK_OK(duo_memcpy(out->v, v, sizeof out->v, DUO_DEVICE_TO_HOST));
    CHECK_OK(duo_memcpy(out->w, w, sizeof out->w, DUO_DEVICE_TO_HOST));
    size_t bad = 0; /* x 0.5 is exact */
    for (size_t i = 0; i < HALF; ++i)
        bad += out->w[HALF + i] != 0.5f * hx[HALF + i];
    CHECK_EQ_U64(bad, 0);
    duo_free(x);
    duo_free(y);
    duo_free(d);
    duo_free(p);
    duo_free(u);
    duo_free(v);
    duo_free(rows);
    duo_free(w);
    free(hx);
    free(hd);
}

/* `races` under DUO_VALIDATE=1, up to RACE_TRIES launches, until a
 * launch is reported; each report names the kernel, the array and the
 * first index of the second thread's share. */
static void check_race(int threads)
{
    char report[] = "/tmp/duo-test-validate-race.XXXXXX";
    const int fd = mkstemp(report);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    setenv("DUO_VALIDATE", "1", 1);
    setenv("DUO_VALIDATE_REPORT", report, 1);
    CHECK_OK(duo_init());
    test_rng rng;
    test_rng_seed(&rng, 2033);
    double *hx = (double *)test_xmalloc(N * sizeof(double));
    for (size_t i = 0; i < N; ++i)
        hx[i] = test_rng_uniform(&rng);
    double *x = NULL, *y = NULL;
    CHECK_OK(duo_malloc((void **)&x, N * sizeof(double)));
    CHECK_OK(duo_malloc((void **)&y, N * sizeof(double)));
    CHECK_OK(duo_memcpy(x, hx, N * sizeof(double), DUO_HOST_TO_DEVICE));
    int tries = 0, seen = 0;
    char *text = NULL;
    while (tries < RACE_TRIES && !seen) {
        ++tries;
        CHECK_OK(duo_memcpy(y, hx, N * sizeof(double), DUO_HOST_TO_DEVICE));
        CHECK_OK(DUO_LAUNCH(races, N, (size_t)N, x, y));
        free(text);
        text = slurp(report);
        seen = text != NULL && strstr(text, "kernel races") != NULL;
    }
    printf("race: reported after %d launch(es) of %d allowed\n", tries,
           RACE_TRIES);
    CHECK_MSG(seen, "a data race with %d threads was not reported in %d "
              "validated launches", threads, RACE_TRIES);
    if (seen) {
        /* OpenMP's static schedule gives thread t the t-th of `threads`
         * contiguous shares, the first N % threads of them one index
         * longer: the last index before a share reads the share's first,
         * which may have been written already. */
        const size_t q = (size_t)N / (size_t)threads;
        const size_t r = (size_t)N % (size_t)threads;
        int at_boundary = 0;
        for (size_t t = 1; t < (size_t)threads; ++t) {
            char first[64];
            snprintf(first, sizeof first, "first difference at [%zu]",
                     t * q + (t < r ? t : r) - 1);
            at_boundary |= strstr(text, first) != NULL;
        }
        CHECK_CONTAINS(text, "kernel races at test_validate.c:");
        CHECK_CONTAINS(text, "array: argument 3 `y` (f64");
        CHECK_MSG(at_boundary, "the race was reported away from the "
                  "threads' shares' boundaries:\n%s", text);
    }
    free(text);
    duo_free(x);
    duo_free(y);
    free(hx);
    CHECK_OK(duo_finalize());
    remove(report);
    unsetenv("DUO_VALIDATE_REPORT"); /* DUO_VALIDATE stays 1 */
}

/* The graph's work: scale, then the plant of the build (shifted on the
 * GPU, by_thread on the host). */
typedef struct graph_work {
    size_t n;
    const float *x;
    float *y;
    const double *d;
    double *p;
    int gpu;
} graph_work;

static duo_status graph_body(void *ctx)
{
    const graph_work *w = (const graph_work *)ctx;
    duo_status status = DUO_LAUNCH(scale, w->n, w->n, 0.1f, w->x, w->y);
    if (status == DUO_SUCCESS)
        status = w->gpu ? DUO_LAUNCH(shifted, w->n, w->n, w->y, w->y)
                        : DUO_LAUNCH(by_thread, w->n, w->n, w->d, w->p);
    return status;
}

/* The graph captured and replayed twice; its results in y and p. */
static void run_graph(int gpu, float *y_out, double *p_out)
{
    test_rng rng;
    test_rng_seed(&rng, 2039);
    float *hx = (float *)test_xmalloc(N * sizeof(float));
    double *hd = (double *)test_xmalloc(N * sizeof(double));
    for (size_t i = 0; i < N; ++i) {
        hx[i] = test_rng_uniform_f(&rng) - 0.5f;
        hd[i] = test_rng_uniform(&rng);
    }
    graph_work w = {N, NULL, NULL, NULL, NULL, gpu};
    float *x = NULL, *y = NULL;
    double *d = NULL, *p = NULL;
    CHECK_OK(duo_malloc((void **)&x, N * sizeof(float)));
    CHECK_OK(duo_malloc((void **)&y, N * sizeof(float)));
    CHECK_OK(duo_malloc((void **)&d, N * sizeof(double)));
    CHECK_OK(duo_malloc((void **)&p, N * sizeof(double)));
    CHECK_OK(duo_memcpy(x, hx, N * sizeof(float), DUO_HOST_TO_DEVICE));
    CHECK_OK(duo_memcpy(d, hd, N * sizeof(double), DUO_HOST_TO_DEVICE));
    CHECK_OK(duo_memset(y, 0, N * sizeof(float)));
    CHECK_OK(duo_memset(p, 0, N * sizeof(double)));
    w.x = x;
    w.y = y;
    w.d = d;
    w.p = p;
    duo_graph g = NULL;
    CHECK_OK(duo_graph_capture(NULL, graph_body, &w, &g));
    for (int replay = 0; replay < 2; ++replay)
        CHECK_OK(duo_graph_launch(g, NULL));
    CHECK_OK(duo_synchronize());
    CHECK_OK(duo_graph_destroy(g));
    CHECK_OK(duo_memcpy(y_out, y, N * sizeof(float), DUO_DEVICE_TO_HOST));
    CHECK_OK(duo_memcpy(p_out, p, N * sizeof(double), DUO_DEVICE_TO_HOST));
    duo_free(x);
    duo_free(y);
    duo_free(d);
    duo_free(p);
    free(hx);
    free(hd);
}

/* A graph replayed plainly and under DUO_VALIDATE=1: the validated
 * replays check each launch in them (a GPU build calls the body again
 * rather than launching the CUDA graph, whose kernels would pass the
 * checks by), name the plant in each replay, and leave the results of
 * the plain replays. */
static void check_graph(int gpu, int threads)
{
    static float y_plain[N], y_checked[N];
    static double p_plain[N], p_checked[N];
    unsetenv("DUO_VALIDATE");
    CHECK_OK(duo_init());
    run_graph(gpu, y_plain, p_plain);
    CHECK_OK(duo_finalize());

    char report[] = "/tmp/duo-test-validate-graph.XXXXXX";
    report_open(report);
    CHECK_OK(duo_init());
    run_graph(gpu, y_checked, p_checked);
    CHECK_OK(duo_finalize());
    CHECK_MSG(memcmp(y_plain, y_checked, sizeof y_plain) == 0 &&
                  memcmp(p_plain, p_checked, sizeof p_plain) == 0,
              "validated graph replays left other results than plain ones");
    char *text = report_take(report, "graph report", gpu);
    CHECK_MSG(strstr(text, "kernel scale") == NULL,
              "a kernel that agrees was reported");
    if (gpu) {
        CHECK_CONTAINS(text, "launch #2, kernel shifted at test_validate.c:");
        CHECK_CONTAINS(text, "launch #4, kernel shifted at test_validate.c:");
        CHECK_CONTAINS(text, "4 operation(s) checked, 2 differ");
    } else if (threads >= 2) {
        CHECK_CONTAINS(text, "launch #2, kernel by_thread at "
                             "test_validate.c:");
        CHECK_CONTAINS(text, "launch #4, kernel by_thread at "
                             "test_validate.c:");
        CHECK_CONTAINS(text, "4 operation(s) checked, 2 differ");
    } else {
        CHECK_CONTAINS(text, "4 operation(s) checked, 0 differ");
    }
    free(text);
}

/* Kernels that take pointers to structs in duo memory, under
 * DUO_VALIDATE=1: plain data is checked as bytes on every backend (the
 * GPU's plant named at the byte where it differs), a struct holding a
 * device pointer is skipped on the GPU with that reason. */
static void check_struct_pointers(int gpu, int threads)
{
    char report[] = "/tmp/duo-test-validate-struct.XXXXXX";
    report_open(report);
    CHECK_OK(duo_init());
    test_rng rng;
    test_rng_seed(&rng, 2053);
    float hx[NI];
    for (int i = 0; i < NI; ++i)
        hx[i] = test_rng_uniform_f(&rng) - 0.5f;
    coeffs *c = NULL;
    pair *h = NULL;
    float *x = NULL, *y = NULL;
    CHECK_OK(duo_malloc((void **)&c, sizeof *c));
    CHECK_OK(duo_malloc((void **)&h, sizeof *h));
    CHECK_OK(duo_malloc((void **)&x, NI * sizeof(float)));
    CHECK_OK(duo_malloc((void **)&y, NI * sizeof(float)));
    CHECK_OK(duo_memset(c, 0, sizeof *c));
    CHECK_OK(duo_memset(y, 0, NI * sizeof(float)));
    CHECK_OK(duo_memcpy(x, hx, sizeof hx, DUO_HOST_TO_DEVICE));
    const pair hp = {x, NI};
    CHECK_OK(duo_memcpy(h, &hp, sizeof hp, DUO_HOST_TO_DEVICE));
    CHECK_OK(DUO_LAUNCH(set_coeffs, 1, (size_t)1, c, 0.25, 3.0f));
    CHECK_OK(DUO_LAUNCH(affine, NI, (size_t)NI, (const coeffs *)c,
                        (const float *)x, y));
    CHECK_OK(DUO_LAUNCH(doubled, NI, (size_t)NI, (const pair *)h));
    if (!gpu)
        CHECK_OK(DUO_LAUNCH(last_thread, NI, (size_t)NI, c));
    float got[NI];
    CHECK_OK(duo_memcpy(got, y, sizeof got, DUO_DEVICE_TO_HOST));
    size_t bad = 0;
    for (int i = 0; i < NI; ++i)
        bad += got[i] != 3.0f * hx[i] + 0.25f;
    CHECK_EQ_U64(bad, 0);
    CHECK_OK(duo_memcpy(got, x, sizeof got, DUO_DEVICE_TO_HOST));
    bad = 0;
    for (int i = 0; i < NI; ++i)
        bad += got[i] != 2.0f * hx[i];
    CHECK_EQ_U64(bad, 0);
    duo_free(c);
    duo_free(h);
    duo_free(x);
    duo_free(y);
    CHECK_OK(duo_finalize());
    char *text = report_take(report, "struct report", gpu);
    CHECK_MSG(strstr(text, "kernel affine") == NULL,
              "a kernel that agrees was reported");
    if (gpu) {
        CHECK_CONTAINS(text, "launch #1, kernel set_coeffs at "
                             "test_validate.c:");
        CHECK_CONTAINS(text, "array: argument 2 `c` (");
        CHECK_CONTAINS(text, "first difference at [12]");
        CHECK_CONTAINS(text, "2 operation(s) checked, 1 differ, 1 skipped "
                             "(1: a struct that an argument points to "
                             "holds a device pointer)");
    } else if (threads >= 2) {
        CHECK_CONTAINS(text, "launch #4, kernel last_thread at "
                             "test_validate.c:");
        CHECK_CONTAINS(text, "array: argument 2 `c` (bytes, 16 bytes");
        CHECK_CONTAINS(text, "first difference at [12]");
        CHECK_CONTAINS(text, "4 operation(s) checked, 1 differ");
    } else {
        CHECK_CONTAINS(text, "4 operation(s) checked, 0 differ");
    }
    free(text);
}

/* Host: a struct whose pointer reaches an allocation of more than 64
 * KiB that holds no address of duo memory makes the check put back that
 * allocation alone, not every live one: with another allocation of 1 MB
 * alive, the check compares the 0.16 MB that `through_struct` writes. */
static void check_large_reach(void)
{
    enum { BIG = 40009, OTHER = 250000 };
    float *hx = (float *)malloc(BIG * sizeof(float));
    float *got = (float *)malloc(BIG * sizeof(float));
    CHECK(hx != NULL && got != NULL);
    if (hx == NULL || got == NULL) {
        free(hx);
        free(got);
        return;
    }
    char report[] = "/tmp/duo-test-validate-reach.XXXXXX";
    report_open(report);
    CHECK_OK(duo_init());
    test_rng rng;
    test_rng_seed(&rng, 3001);
    for (int i = 0; i < BIG; ++i)
        hx[i] = test_rng_uniform_f(&rng) - 0.5f;
    float *big = NULL, *other = NULL;
    CHECK_OK(duo_malloc((void **)&big, BIG * sizeof(float)));
    CHECK_OK(duo_malloc((void **)&other, OTHER * sizeof(float)));
    CHECK_OK(duo_memset(other, 0, OTHER * sizeof(float)));
    CHECK_OK(duo_memcpy(big, hx, BIG * sizeof(float), DUO_HOST_TO_DEVICE));
    pair s = {big, BIG};
    CHECK_OK(DUO_LAUNCH(through_struct, BIG, s));
    memset(got, 0xff, BIG * sizeof(float));
    CHECK_OK(duo_memcpy(got, big, BIG * sizeof(float), DUO_DEVICE_TO_HOST));
    size_t bad = 0;
    for (int i = 0; i < BIG; ++i)
        bad += got[i] != 2.0f * hx[i];
    CHECK_EQ_U64(bad, 0);
    duo_free(big);
    duo_free(other);
    CHECK_OK(duo_finalize());
    char *text = report_take(report, "large reach report", 0);
    CHECK_CONTAINS(text, "1 operation(s) checked, 0 differ, 0 skipped; "
                         "0.2 MB compared");
    free(text);
    free(hx);
    free(got);
}

/* User reductions under DUO_VALIDATE=1: each is run again as the
 * reference (the host path on the GPU, one thread on the host) and the
 * results compared; the GPU's plant is named; a pointer in the
 * arguments is followed into a host copy on the GPU, an array of
 * pointers is skipped there.  The program keeps the run's result. */
static void check_user_reductions(int gpu)
{
    char report[] = "/tmp/duo-test-validate-user.XXXXXX";
    report_open(report);
    CHECK_OK(duo_init());
    enum { TERMS = 1000 };
    term_args ta = {0.5};
    double total = -1.0;
    CHECK_OK(planted_sum(TERMS, ta, &total));
    /* 0.5 (0 + 1 + ... + 999), exact; the GPU adds 1 per term. */
    CHECK(total == (gpu ? 249750.0 + TERMS : 249750.0));
    float hx[NI];
    double want = 0.0;
    for (int i = 0; i < NI; ++i) {
        hx[i] = (float)(i % 7) - 3.0f; /* small integers: any order exact */
        want += hx[i];
    }
    float *x = NULL;
    CHECK_OK(duo_malloc((void **)&x, sizeof hx));
    CHECK_OK(duo_memcpy(x, hx, sizeof hx, DUO_HOST_TO_DEVICE));
    read_args ra = {x};
    float sum = -1.0f;
    CHECK_OK(read_sum(NI, ra, &sum));
    CHECK(sum == (float)want);
    const float **rows = NULL; /* one pointer, to x */
    CHECK_OK(duo_malloc((void **)&rows, sizeof *rows));
    CHECK_OK(duo_memcpy(rows, &x, sizeof x, DUO_HOST_TO_DEVICE));
    nested_args na = {rows};
    float nested = -1.0f;
    CHECK_OK(nested_sum(NI, na, &nested));
    CHECK(nested == (float)want);
    duo_free(rows);
    duo_free(x);
    CHECK_OK(duo_finalize());
    char *text = report_take(report, "user reduction report", gpu);
    CHECK_MSG(strstr(text, "read_sum") == NULL &&
                  strstr(text, "nested_sum") == NULL,
              "a reduction that agrees was reported");
    if (gpu) {
        CHECK_CONTAINS(text, "reduction #1, user reduction planted_sum at "
                             "test_validate.c:");
        CHECK_CONTAINS(text, "2 operation(s) checked, 1 differ, 1 skipped "
                             "(1: a user reduction's arguments point to "
                             "device pointers)");
    } else {
        CHECK_CONTAINS(text, "3 operation(s) checked, 0 differ");
    }
    free(text);
}

/* Bad settings: duo_init fails and names the valid values. */
static void check_bad_settings(void)
{
    setenv("DUO_VALIDATE", "yes", 1);
    CHECK_STATUS(duo_init(), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "DUO_VALIDATE=yes");
    CHECK_CONTAINS(duo_last_error(), "abort");
    setenv("DUO_VALIDATE", "1", 1);
    setenv("DUO_VALIDATE_ULPS", "2x", 1);
    CHECK_STATUS(duo_init(), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "DUO_VALIDATE_ULPS=2x");
    unsetenv("DUO_VALIDATE_ULPS");
    setenv("DUO_VALIDATE_REPORT", "/no-such-dir/report.txt", 1);
    CHECK_STATUS(duo_init(), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(duo_last_error(), "DUO_VALIDATE_REPORT");
    unsetenv("DUO_VALIDATE_REPORT");
    unsetenv("DUO_VALIDATE");
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--planted") == 0) {
        test_init_or_skip();
        static results r;
        run_kernels(&r, test_on_gpu());
        duo_finalize();
        return 0;
    }
    unsetenv("DUO_VALIDATE");
    check_bad_settings();

    /* The plain run: the reference results. */
    test_init_or_skip();
    const int gpu = test_on_gpu();
    duo_device_info info;
    CHECK_OK(duo_device_info_get(&info));
    const int threads = gpu ? 0 : info.cpu_threads;
    static results plain, checked;
    run_kernels(&plain, gpu);
    CHECK_OK(duo_finalize());

    /* The validated run. */
    char report[] = "/tmp/duo-test-validate.XXXXXX";
    int fd = mkstemp(report);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    setenv("DUO_VALIDATE", "1", 1);
    setenv("DUO_VALIDATE_REPORT", report, 1);
    CHECK_OK(duo_init());
    run_kernels(&checked, gpu);
    CHECK_OK(duo_finalize());
    unsetenv("DUO_VALIDATE_REPORT");
    CHECK_MSG(memcmp(plain.y, checked.y, sizeof plain.y) == 0 &&
                  memcmp(plain.v, checked.v, sizeof plain.v) == 0 &&
                  memcmp(plain.p, checked.p, sizeof plain.p) == 0 &&
                  memcmp(plain.w, checked.w, sizeof plain.w) == 0,
              "a validated run left other results than a plain one");

    char *text = slurp(report);
    CHECK(text != NULL);
    if (text == NULL)
        text = (char *)calloc(1, 1);
    printf("--- report (%s) ---\n%s---\n", gpu ? "GPU" : "host", text);
    /* scale and stencil agree everywhere. */
    CHECK_MSG(strstr(text, "kernel scale") == NULL &&
                  strstr(text, "kernel stencil") == NULL,
              "a kernel that agrees was reported");
    if (gpu) {
        CHECK_CONTAINS(text, "launch #2, kernel shifted at test_validate.c:");
        CHECK_CONTAINS(text, "array: argument 3 `y` (f32");
        CHECK_CONTAINS(text, "first difference at [0]: GPU");
        CHECK_CONTAINS(text, "100003 of 100003 element(s) differ");
        CHECK_CONTAINS(text, "5 operation(s) checked, 1 differ, 1 skipped "
                             "(1: a struct argument points to device "
                             "pointers)");
    } else {
        CHECK_MSG(strstr(text, "kernel shifted") == NULL,
                  "shifted differs only on the GPU, but was reported on "
                  "the host");
        if (threads >= 2) {
            CHECK_CONTAINS(text, "launch #3, kernel by_thread at "
                                 "test_validate.c:");
            CHECK_CONTAINS(text, "array: argument 3 `p` (f64");
            CHECK_CONTAINS(text, "all threads");
            CHECK_CONTAINS(text, "7 operation(s) checked, 1 differ");
        } else {
            CHECK_CONTAINS(text, "7 operation(s) checked, 0 differ");
        }
    }
    free(text);
    remove(report);

    check_graph(gpu, threads);
    check_struct_pointers(gpu, threads);
    if (!gpu)
        check_large_reach();
    check_user_reductions(gpu);
    setenv("DUO_VALIDATE", "1", 1);

    /* DUO_VALIDATE=abort: the planted divergence stops the program with
     * status 3, where there is one to find. */
    if (gpu || threads >= 2) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "DUO_VALIDATE=abort '%s' --planted "
                 ">/dev/null 2>&1", argv[0]);
        int rc = system(cmd);
        CHECK_MSG(WIFEXITED(rc) && WEXITSTATUS(rc) == 3,
                  "DUO_VALIDATE=abort: exit status %d, expected 3",
                  WIFEXITED(rc) ? WEXITSTATUS(rc) : -1);
    }

    /* The data race, on the host with several threads. */
    if (!gpu && threads >= 2)
        check_race(threads);

    /* A pointer that is not duo's, and on the GPU a struct argument, are
     * skipped with their reasons. */
    if (!gpu) {
        char skip_report[] = "/tmp/duo-test-validate-skip.XXXXXX";
        fd = mkstemp(skip_report);
        CHECK(fd >= 0);
        if (fd >= 0)
            close(fd);
        setenv("DUO_VALIDATE_REPORT", skip_report, 1);
        CHECK_OK(duo_init());
        float own[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        CHECK_OK(DUO_LAUNCH(scale, 8, (size_t)8, 2.0f, own, own));
        CHECK(own[7] == 16.0f);
        CHECK_OK(duo_finalize());
        char *s = slurp(skip_report);
        CHECK_CONTAINS(s, "0 operation(s) checked, 0 differ, 1 skipped (1: "
                          "a pointer argument is not memory from "
                          "duo_malloc)");
        free(s);
        remove(skip_report);
        unsetenv("DUO_VALIDATE_REPORT");
    }
    unsetenv("DUO_VALIDATE");
    return test_summary("test_validate");
}
