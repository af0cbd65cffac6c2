/*
 * test_graph.c - duo_graph_capture / duo_graph_launch / duo_graph_destroy.
 *
 *  - A step of the kind a solver repeats (a launch, an async reduction
 *    into device memory, a kernel that reads that device scalar, fused dot
 *    products, an async copy) replayed 1000 times gives the bits of the
 *    same step called 1000 times, on the default stream and on a stream
 *    of its own, replayed on another stream than it was captured on.
 *  - A capture runs nothing: outputs poisoned before it are still
 *    poisoned after it.
 *  - Every call that cannot be captured fails inside the body with
 *    DUO_ERROR_NOT_CAPTURABLE, and so does the capture, leaving *graph
 *    alone; so do work on another stream and a nested capture; a body
 *    that returns a failure fails the capture with it.  Afterwards the
 *    library works as before.
 */
#include <stdlib.h>

#include "test_util.h"

/* x = 0.5 x + y */
DUO_KERNEL(halve_add, size_t n, double *DUO_RESTRICT x,
           const double *DUO_RESTRICT y)
{
    DUO_FOR(i, n)
        x[i] = 0.5 * x[i] + y[i];
}

/* x -= s[0] / n, with s[0] a device scalar an async reduction wrote;
 * y = x * s[1] / s[2] with dot products from the same step. */
DUO_KERNEL(use_scalars, size_t n, double *DUO_RESTRICT x,
           double *DUO_RESTRICT y, const double *DUO_RESTRICT s)
{
    DUO_FOR(i, n) {
        const double xi = x[i] - s[0] / (double)n;
        x[i] = xi;
        y[i] = xi * (s[1] / (s[2] + 1.0));
    }
}

typedef struct step {
    size_t n;
    double *x, *y, *z; /* device */
    double *s;         /* device scalars: sum, two dots */
    duo_stream stream;
} step;

/* One step; also the body that is captured. */
static duo_status run_step(void *ctx)
{
    const step *t = (const step *)ctx;
    duo_status st = DUO_LAUNCH_ON(t->stream, halve_add, t->n, t->n, t->x,
                                  t->y);
    if (st == DUO_SUCCESS)
        st = duo_reduce_async(DUO_SUM, DUO_F64, t->x, t->n, t->s,
                              t->stream);
    const void *xs[2] = {t->x, t->y}, *ys[2] = {t->y, t->y};
    if (st == DUO_SUCCESS)
        st = duo_dot_async(DUO_F64, t->n, 2, xs, ys, t->s + 1, t->stream);
    if (st == DUO_SUCCESS)
        st = DUO_LAUNCH_ON(t->stream, use_scalars, t->n, t->n, t->x, t->y,
                           t->s);
    if (st == DUO_SUCCESS)
        st = duo_memcpy_async(t->z, t->x, t->n * sizeof(double),
                              DUO_DEVICE_TO_DEVICE, t->stream);
    return st;
}

static void step_alloc(step *t, size_t n, duo_stream stream,
                       const double *hx, const double *hy)
{
    t->n = n;
    t->stream = stream;
    t->x = (double *)test_device_alloc(n * sizeof(double));
    t->y = (double *)test_device_alloc(n * sizeof(double));
    t->z = (double *)test_device_alloc(n * sizeof(double));
    t->s = (double *)test_device_alloc(3 * sizeof(double));
    test_to_device(t->x, hx, n * sizeof(double));
    test_to_device(t->y, hy, n * sizeof(double));
    const size_t np = n > 3 ? n : 3; /* also covers the 3 scalars */
    double *poison = (double *)test_xmalloc(np * sizeof(double));
    test_poison_f64(poison, np);
    test_to_device(t->z, poison, n * sizeof(double));
    test_to_device(t->s, poison, 3 * sizeof(double));
    free(poison);
}

static void step_free(step *t)
{
    CHECK_OK(duo_free(t->x));
    CHECK_OK(duo_free(t->y));
    CHECK_OK(duo_free(t->z));
    CHECK_OK(duo_free(t->s));
}

/* Capture on `capture_on`, replay on `replay_on`, 1000 times. */
static void test_replay(size_t n, duo_stream capture_on, duo_stream replay_on)
{
    test_set_context("replay n=%zu", n);
    test_rng rng;
    test_rng_seed(&rng, 1000 + n);
    double *hx = (double *)test_xmalloc(n * sizeof(double));
    double *hy = (double *)test_xmalloc(n * sizeof(double));
    for (size_t i = 0; i < n; ++i) {
        hx[i] = test_rng_wide(&rng, -10, 10);
        hy[i] = test_rng_uniform(&rng);
    }
    step loop, graphed;
    step_alloc(&loop, n, capture_on, hx, hy);
    step_alloc(&graphed, n, capture_on, hx, hy);

    duo_graph g = (duo_graph)TEST_POISON_PTR;
    if (!CHECK_OK(duo_graph_capture(capture_on, run_step, &graphed, &g)))
        return;
    CHECK(g != (duo_graph)TEST_POISON_PTR && g != NULL);
    /* Nothing ran: z and the scalars are still poison. */
    CHECK_OK(duo_synchronize());
    double *out = (double *)test_xmalloc(n * sizeof(double));
    double s[3];
    test_to_host(out, graphed.z, n * sizeof(double));
    test_to_host(s, graphed.s, sizeof s);
    size_t written = 0;
    for (size_t i = 0; i < n; ++i)
        written += !test_is_poison_f64(out[i]);
    CHECK_MSG(written == 0 && test_is_poison_f64(s[0]),
              "the capture ran work: %zu outputs written", written);

    /* DUO_TEST_QUICK=1: 20 replays, for the sanitizers' slow runs. */
    const int replays = test_quick() ? 20 : 1000;
    for (int r = 0; r < replays; ++r) {
        CHECK_OK(run_step(&loop));
        CHECK_OK(duo_graph_launch(g, replay_on));
    }
    CHECK_OK(duo_synchronize());
    double *want = (double *)test_xmalloc(n * sizeof(double));
    double ws[3];
    test_to_host(want, loop.z, n * sizeof(double));
    test_to_host(out, graphed.z, n * sizeof(double));
    test_to_host(ws, loop.s, sizeof ws);
    test_to_host(s, graphed.s, sizeof s);
    size_t differ = 0;
    for (size_t i = 0; i < n; ++i)
        differ += test_bits_f64(out[i]) != test_bits_f64(want[i]);
    CHECK_MSG(differ == 0, "%zu of %zu values differ from the loop's",
              differ, n);
    for (int k = 0; k < 3; ++k)
        CHECK_BITS_F64(s[k], ws[k]);
    /* The data is not trivial: the step changes x. */
    CHECK_MSG(n == 0 || test_bits_f64(want[0]) != test_bits_f64(hx[0]),
              "the step left x[0] unchanged");
    CHECK_OK(duo_graph_destroy(g));
    step_free(&loop);
    step_free(&graphed);
    free(out);
    free(want);
    free(hx);
    free(hy);
}

/* ------------------------------------------------------------------ */
/* What a capture refuses                                              */

typedef struct refused {
    int which;          /* the call to make inside the body */
    duo_status inside;  /* its status */
    const char *name;
    void *dev;          /* 64 bytes of device memory */
    duo_stream other;
    int ignore;         /* return success whatever happened */
} refused;

typedef struct { uint64_t unused; } no_args;
DUO_DEVICE int64_t one(size_t i, no_args a)
{
    (void)i;
    (void)a;
    return 1;
}
DUO_REDUCE_DEFINE(count_all, int64_t, DUO_SUM, one, no_args)

DUO_KERNEL(touch, size_t n, double *x)
{
    DUO_FOR(i, n)
        x[i] = 1.0;
}

static duo_status noop_body(void *ctx)
{
    (void)ctx;
    return DUO_SUCCESS;
}

enum { NUM_REFUSED = 17 };

static duo_status refused_body(void *ctx)
{
    refused *r = (refused *)ctx;
    double host[8] = {0};
    void *p = NULL;
    duo_timer timer = NULL;
    duo_graph inner = NULL;
    float *f = (float *)r->dev;
    double v = 0.0;
    int64_t count = 0;
    no_args nothing = {0};
    duo_status st = DUO_SUCCESS;
    switch (r->which) {
    case 0: r->name = "duo_synchronize"; st = duo_synchronize(); break;
    case 1: r->name = "duo_memcpy";
        st = duo_memcpy(host, r->dev, 8, DUO_DEVICE_TO_HOST); break;
    case 2: r->name = "duo_memset"; st = duo_memset(r->dev, 0, 8); break;
    case 3: r->name = "duo_reduce";
        st = duo_reduce(DUO_SUM, DUO_F64, r->dev, 4, &v); break;
    case 4: r->name = "duo_malloc"; st = duo_malloc(&p, 64); break;
    case 5: r->name = "duo_stream_synchronize";
        st = duo_stream_synchronize(NULL); break;
    case 6: r->name = "duo_gemm_f32";
        st = duo_gemm_f32(DUO_NO_TRANS, DUO_NO_TRANS, 2, 2, 2, 1.0f, f, 2,
                          f, 2, 0.0f, f + 8, 2);
        break;
    case 7: r->name = "duo_timer_create"; st = duo_timer_create(&timer);
        break;
    case 8: r->name = "count_all"; st = count_all(10, nothing, &count);
        break;
    case 9: r->name = "touch";
        st = DUO_LAUNCH_ON(r->other, touch, 8, 8, (double *)r->dev); break;
    case 10: r->name = "duo_memcpy_async";
        st = duo_memcpy_async(host, r->dev, 8, DUO_DEVICE_TO_HOST, r->other);
        break;
    case 11: r->name = "duo_graph_capture";
        st = duo_graph_capture(NULL, noop_body, NULL, &inner); break;
    case 12: r->name = "duo_reduce_arg";
        {
            size_t index = 0;
            st = duo_reduce_arg(DUO_MAX, DUO_F64, r->dev, 4, &index, NULL);
        }
        break;
    case 13: r->name = "duo_reduce_async";
        st = duo_reduce_async(DUO_SUM, DUO_F64, r->dev, 4,
                              (double *)r->dev + 6, r->other);
        break;
    case 14: r->name = "duo_free"; st = duo_free(r->dev); break;
    case 15: r->name = "duo_stream_create";
        {
            duo_stream s = NULL;
            st = duo_stream_create(&s);
        }
        break;
    case 16: r->name = "duo_finalize"; st = duo_finalize(); break;
    }
    r->inside = st;
    return r->ignore ? DUO_SUCCESS : st;
}

static void test_refusals(void)
{
    refused r;
    memset(&r, 0, sizeof r);
    r.dev = test_device_alloc(64 * sizeof(double));
    double init[64];
    for (int i = 0; i < 64; ++i)
        init[i] = 1.0 + i;
    test_to_device(r.dev, init, sizeof init);
    CHECK_OK(duo_stream_create(&r.other));
    for (int ignore = 0; ignore <= 1; ++ignore)
        for (int which = 0; which < NUM_REFUSED; ++which) {
            r.which = which;
            r.ignore = ignore;
            r.inside = DUO_SUCCESS;
            duo_graph g = (duo_graph)TEST_POISON_PTR;
            const duo_status st = duo_graph_capture(NULL, refused_body, &r,
                                                    &g);
            test_set_context("refused %s%s", r.name,
                             ignore ? " (failure ignored by the body)" : "");
            CHECK_EQ_I64(r.inside, DUO_ERROR_NOT_CAPTURABLE);
            CHECK_EQ_I64(st, DUO_ERROR_NOT_CAPTURABLE);
            CHECK(g == (duo_graph)TEST_POISON_PTR);
            CHECK_CONTAINS(duo_last_error(), r.name);
            /* Still usable: the refused call works outside a capture. */
            double sum = 0.0;
            CHECK_OK(duo_reduce(DUO_SUM, DUO_F64, r.dev, 4, &sum));
            CHECK_BITS_F64(sum, 10.0);
        }
    CHECK_OK(duo_stream_destroy(r.other));
    CHECK_OK(duo_free(r.dev));
}

static duo_status failing_body(void *ctx)
{
    (void)ctx;
    return DUO_ERROR_LAUNCH;
}

/* A body whose work is refused by a bad argument, not by the capture. */
static duo_status bad_argument_body(void *ctx)
{
    (void)duo_reduce_async(DUO_SUM, DUO_F64, NULL, 4, ctx, NULL);
    return DUO_SUCCESS;
}

static void test_capture_errors(void)
{
    test_set_context("capture errors");
    duo_graph g = (duo_graph)TEST_POISON_PTR;
    CHECK_STATUS(duo_graph_capture(NULL, NULL, NULL, &g),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "body");
    CHECK_STATUS(duo_graph_capture(NULL, noop_body, NULL, NULL),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "graph");
    CHECK_STATUS(duo_graph_capture(NULL, failing_body, NULL, &g),
                 DUO_ERROR_LAUNCH);
    CHECK_CONTAINS(duo_last_error(), "body returned");
    double *d = (double *)test_device_alloc(sizeof(double));
    CHECK_STATUS(duo_graph_capture(NULL, bad_argument_body, d, &g),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "x");
    CHECK(g == (duo_graph)TEST_POISON_PTR);
    CHECK_STATUS(duo_graph_launch(NULL, NULL), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "graph");
    CHECK_OK(duo_graph_destroy(NULL));
    /* An empty body is a valid graph. */
    if (CHECK_OK(duo_graph_capture(NULL, noop_body, NULL, &g))) {
        CHECK_OK(duo_graph_launch(g, NULL));
        CHECK_OK(duo_synchronize());
        CHECK_OK(duo_graph_destroy(g));
    }
    CHECK_OK(duo_free(d));
}

int main(void)
{
    /* Before duo_init: refused with "not initialized". */
    duo_graph g = NULL;
    CHECK_STATUS(duo_graph_capture(NULL, noop_body, NULL, &g),
                 DUO_ERROR_NOT_INITIALIZED);
    test_init_or_skip();
    duo_stream s1 = NULL, s2 = NULL;
    CHECK_OK(duo_stream_create(&s1));
    CHECK_OK(duo_stream_create(&s2));
    test_replay(1, NULL, NULL);
    test_replay(4099, NULL, s1);
    test_replay(300007, s1, s2);
    test_refusals();
    test_capture_errors();
    test_replay(1021, s2, NULL); /* after all the failed captures */
    CHECK_OK(duo_stream_destroy(s1));
    CHECK_OK(duo_stream_destroy(s2));
    CHECK_OK(duo_finalize());
    return test_summary("graph");
}
