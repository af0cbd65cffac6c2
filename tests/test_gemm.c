/*
 * test_gemm.c - duo_gemm_f32 and duo_gemm_f64 against a long double
 * triple-loop reference, for every transpose pair, odd shapes, tight and
 * padded leading dimensions, and several (alpha, beta).
 *
 * Bound, element by element (Higham, inner products in any order, with or
 * without fused multiply-add):
 *   |C - Cref| <= gamma_{K+2} (|alpha| sum_p |A_ip||B_pj| + |beta||C0_ij|)
 * with gamma_j = j u / (1 - j u), u = 2^-24 (f32) or 2^-53 (f64), plus the
 * reference's own error (long double, u = 2^-64).
 *
 * Poison shows what was written: C's padding columns (ldc > N) and a
 * guard zone after C must stay 0xFF-poisoned; A's and B's padding holds
 * NaN, so reading it into the product shows up; with beta = 0, C starts
 * as NaN (must not be read); with alpha = 0, A and B are all NaN (must
 * not be read).
 *
 * Order: each element is an fma chain over k = 0..K-1 in order, then
 * alpha * sum and fma(beta, C0, alpha * sum), or that over the k blocks
 * of 384 (f32) / 2048 (f64) of the blocked order, added to C in turn, as
 * src/gemm_order.h decides from (M, N, K) (duo.h states the rule).
 * Results are compared bit for bit with that order, computed on the
 * host, for every backend built with FMA (CPU and CUDA, f32 and f64),
 * every element of small products and a sample of large ones (M N >
 * 2^19: one chain over k blocks of the CPU's cache blocking), and
 * products whose every term underflows to -0.  CUDA f64 on the FP64
 * tensor cores is held to the order on compute capability 9.x, and only
 * to the error bound on other GPUs (DUO_GEMM_F64=tensor there).  On CUDA every tile
 * shape (DUO_GEMM_TILE), f32 with B packed or not (DUO_GEMM_PACK), must
 * give the same bytes as the automatic choice, split products included;
 * on the CPU every variant of its kernel (DUO_CPU_GEMM) must.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */

#include <math.h>
#include <stdlib.h>

#include "gemm_order.h"
#include "test_util.h"

static test_rng rng;

#define GUARD 16

typedef struct shape {
    size_t m, n, k;
} shape;

/* (alpha, beta) pairs. */
static const double alphas[] = {1.0, 1.5, -2.0, 0.0};
static const double betas[] = {0.0, -0.5, 1.0, 0.75};
#define NPAIRS 4

/* ------------------------------------------------------------------ */
/* Element access for both precisions (es = 4 or 8).                    */

static long double get(const void *p, size_t es, size_t i)
{
    return es == 4 ? (long double)((const float *)p)[i]
                   : (long double)((const double *)p)[i];
}

static void set(void *p, size_t es, size_t i, double v)
{
    if (es == 4)
        ((float *)p)[i] = (float)v;
    else
        ((double *)p)[i] = v;
}

static int is_poison(const void *p, size_t es, size_t i)
{
    return es == 4 ? test_is_poison_f32(((const float *)p)[i])
                   : test_is_poison_f64(((const double *)p)[i]);
}

static int is_nan(const void *p, size_t es, size_t i)
{
    return es == 4 ? test_isnan_f32(((const float *)p)[i])
                   : test_isnan_f64(((const double *)p)[i]);
}

static double nan_value(size_t es)
{
    return es == 4 ? (double)test_nan_f32() : test_nan_f64();
}

static duo_status gemm(size_t es, duo_transpose ta, duo_transpose tb,
                       size_t m, size_t n, size_t k, double alpha,
                       const void *a, size_t lda, const void *b, size_t ldb,
                       double beta, void *c, size_t ldc)
{
    if (es == 4)
        return duo_gemm_f32(ta, tb, m, n, k, (float)alpha, (const float *)a,
                            lda, (const float *)b, ldb, (float)beta,
                            (float *)c, ldc);
    return duo_gemm_f64(ta, tb, m, n, k, alpha, (const double *)a, lda,
                        (const double *)b, ldb, beta, (double *)c, ldc);
}

static const char *fname(size_t es)
{
    return es == 4 ? "duo_gemm_f32" : "duo_gemm_f64";
}

static void *dev_copy(const void *h, size_t bytes)
{
    void *d = test_device_alloc(bytes);
    test_to_device(d, h, bytes);
    return d;
}

/* ------------------------------------------------------------------ */

/* Stored shape of op(X) = rows x cols under transpose t. */
static void stored(duo_transpose t, size_t rows, size_t cols, size_t *srows,
                   size_t *scols)
{
    *srows = t == DUO_NO_TRANS ? rows : cols;
    *scols = t == DUO_NO_TRANS ? cols : rows;
}

/* op(A)(i, p) and op(B)(p, j) as indices into the stored arrays. */
static size_t a_at(duo_transpose t, size_t lda, size_t i, size_t p)
{
    return t == DUO_NO_TRANS ? i * lda + p : p * lda + i;
}

static size_t b_at(duo_transpose t, size_t ldb, size_t p, size_t j)
{
    return t == DUO_NO_TRANS ? p * ldb + j : j * ldb + p;
}

/* A random rows x cols matrix with leading dimension ld, NaN in the
 * padding columns. */
static void *random_matrix(size_t es, size_t rows, size_t cols, size_t ld)
{
    const size_t count = rows * ld;
    void *h = test_xmalloc((count ? count : 1) * es);
    for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < ld; ++c)
            set(h, es, r * ld + c,
                c < cols ? test_rng_uniform(&rng) : nan_value(es));
    return h;
}

static long checked_cases;
static long double worst_ratio; /* largest error / bound seen */

/* One shape, transpose pair and padding, all (alpha, beta) pairs. */
static void run_case(size_t es, shape s, duo_transpose ta, duo_transpose tb,
                     size_t pad)
{
    const size_t m = s.m, n = s.n, k = s.k;
    size_t ar, ac, br, bc;
    stored(ta, m, k, &ar, &ac);
    stored(tb, k, n, &br, &bc);
    const size_t lda = ac + pad, ldb = bc + pad, ldc = n + pad;
    void *ha = random_matrix(es, ar, ac, lda);
    void *hb = random_matrix(es, br, bc, ldb);
    void *da = dev_copy(ha, ar * lda * es);
    void *db = dev_copy(hb, br * ldb * es);

    /* Reference product and sum of |products|, in long double. */
    long double *p = (long double *)test_xmalloc(m * n * sizeof(long double));
    long double *pabs = (long double *)test_xmalloc(m * n *
                                                    sizeof(long double));
    for (size_t i = 0; i < m; ++i)
        for (size_t j = 0; j < n; ++j) {
            long double sum = 0.0L, abs_sum = 0.0L;
            for (size_t q = 0; q < k; ++q) {
                const long double prod = get(ha, es, a_at(ta, lda, i, q)) *
                                         get(hb, es, b_at(tb, ldb, q, j));
                sum += prod;
                abs_sum += fabsl(prod);
            }
            p[i * n + j] = sum;
            pabs[i * n + j] = abs_sum;
        }

    const long double u = es == 4 ? ldexpl(1.0L, -24) : ldexpl(1.0L, -53);
    const long double ku = (long double)(k + 2) * u;
    const long double gamma = ku / (1.0L - ku);
    /* The reference: k products and sums, then alpha*P + beta*C0. */
    const long double ref_gamma = (long double)(k + 4) * ldexpl(1.0L, -63);

    const size_t ccount = m * ldc + GUARD;
    void *h0 = test_xmalloc(ccount * es);
    void *hc = test_xmalloc(ccount * es);
    void *dc = test_device_alloc(ccount * es);
    for (int pi = 0; pi < NPAIRS; ++pi) {
        const double alpha = alphas[pi], beta = betas[pi];
        test_set_context("%s %s%s m=%zu n=%zu k=%zu lda=%zu ldb=%zu ldc=%zu "
                         "alpha=%g beta=%g", fname(es),
                         ta == DUO_NO_TRANS ? "N" : "T",
                         tb == DUO_NO_TRANS ? "N" : "T", m, n, k, lda, ldb,
                         ldc, alpha, beta);
        /* C0: random inside, poison in the padding and the guard; with
         * beta = 0 poison (NaN) everywhere, as C must not be read. */
        memset(h0, 0xFF, ccount * es);
        if (beta != 0.0)
            for (size_t i = 0; i < m; ++i)
                for (size_t j = 0; j < n; ++j)
                    set(h0, es, i * ldc + j, test_rng_uniform(&rng));
        test_to_device(dc, h0, ccount * es);
        if (!CHECK_OK(gemm(es, ta, tb, m, n, k, alpha, da, lda, db, ldb, beta,
                           dc, ldc)))
            continue;
        memset(hc, 0, ccount * es);
        test_to_host(hc, dc, ccount * es);

        size_t bad = 0, unwritten = 0, padding = 0;
        for (size_t i = 0; i < m; ++i)
            for (size_t j = 0; j < ldc; ++j) {
                const size_t at = i * ldc + j;
                if (j >= n) {
                    if (!is_poison(hc, es, at) && padding++ < 3)
                        CHECK_MSG(0, "C padding (%zu,%zu) written: %.9Lg", i,
                                  j, get(hc, es, at));
                    continue;
                }
                const long double c0 = beta != 0.0 ? get(h0, es, at) : 0.0L;
                const long double want =
                    (long double)alpha * p[i * n + j] +
                    (long double)beta * c0;
                const long double scale =
                    fabsl((long double)alpha) * pabs[i * n + j] +
                    fabsl((long double)beta) * fabsl(c0);
                const long double tol = (gamma + ref_gamma) * scale;
                const long double got = get(hc, es, at);
                if (is_nan(hc, es, at)) {
                    if (is_poison(hc, es, at))
                        ++unwritten;
                    if (bad++ < 3)
                        CHECK_MSG(0, "C(%zu,%zu) is NaN%s, want %.17Lg", i, j,
                                  is_poison(hc, es, at) ? " (not written)"
                                                        : "",
                                  want);
                    continue;
                }
                const long double err = fabsl(got - want);
                if (err > tol) {
                    if (bad++ < 3)
                        CHECK_MSG(0, "C(%zu,%zu) = %.17Lg, want %.17Lg: error "
                                  "%.3Lg > bound %.3Lg", i, j, got, want, err,
                                  tol);
                } else if (tol > 0.0L && err / tol > worst_ratio) {
                    worst_ratio = err / tol;
                }
            }
        CHECK_MSG(bad == 0, "%zu of %zu elements wrong (%zu not written)",
                  bad, m * n, unwritten);
        CHECK_MSG(padding == 0, "%zu padding elements of C written", padding);
        for (size_t g = m * ldc; g < ccount; ++g)
            CHECK_MSG(is_poison(hc, es, g), "guard element %zu after C "
                      "written", g - m * ldc);
        ++checked_cases;
    }
    CHECK_OK(duo_free(da));
    CHECK_OK(duo_free(db));
    CHECK_OK(duo_free(dc));
    free(ha);
    free(hb);
    free(h0);
    free(hc);
    free(p);
    free(pabs);
}

static void test_shapes(size_t es)
{
    const shape shapes[] = {{1, 1, 1},       {2, 3, 4},       {7, 5, 3},
                            {31, 33, 17},    {33, 31, 64},    {65, 1, 129},
                            {1, 65, 129},    {100, 101, 1},   {129, 127, 255},
                            {513, 257, 129},
                            /* several k blocks, n blocks, and a C wide
                             * enough to be split by columns */
                            {64, 48, 1000},  {5, 700, 33},    {8, 2000, 200},
                            /* split over k on CUDA, f64 too: 2048 + 1,
                             * and 2048 + 2048 + 4 */
                            {1, 1, 2049},    {9, 7, 4100}};
    const duo_transpose tr[2] = {DUO_NO_TRANS, DUO_TRANS};
    /* Tight, padded to an odd leading dimension, and padded by 16 bytes
     * (which keeps whatever 16-byte alignment the rows had, so vectorized
     * paths are taken with padding too). */
    const size_t pads[3] = {0, 3, 16 / es};
    const double t0 = test_seconds();
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
        for (int x = 0; x < 2; ++x)
            for (int y = 0; y < 2; ++y)
                for (size_t pi = 0; pi < 3; ++pi)
                    run_case(es, shapes[s], tr[x], tr[y], pads[pi]);
    printf("%s shapes: %.2f s\n", fname(es), test_seconds() - t0);
    test_set_context("%s", "");
}

/* C = beta * C exactly, nothing else read or written: K = 0 (A and B
 * NULL), or alpha = 0 (A and B all NaN, or NULL). */
static void check_scaled(size_t es, size_t m, size_t n, size_t ldc,
                         double beta, const void *h0, const void *hc)
{
    size_t bad = 0;
    for (size_t i = 0; i < m; ++i)
        for (size_t j = 0; j < ldc; ++j) {
            const size_t at = i * ldc + j;
            if (j >= n) {
                if (!is_poison(hc, es, at) && bad++ < 3)
                    CHECK_MSG(0, "C padding (%zu,%zu) written", i, j);
                continue;
            }
            /* One rounding of beta * c0 in the working precision; with
             * beta = 0 the result is 0 whatever C held. */
            long double want;
            if (beta == 0.0)
                want = 0.0L;
            else if (es == 4)
                want = (long double)((float)beta * ((const float *)h0)[at]);
            else
                want = (long double)(beta * ((const double *)h0)[at]);
            if ((is_nan(hc, es, at) || get(hc, es, at) != want) && bad++ < 3)
                CHECK_MSG(0, "C(%zu,%zu) = %.17Lg, want beta*C0 = %.17Lg%s",
                          i, j, get(hc, es, at), want,
                          is_poison(hc, es, at) ? " (not written)" : "");
        }
    CHECK_MSG(bad == 0, "%zu elements wrong", bad);
}

static void test_special(size_t es)
{
    const size_t m = 37, n = 29, ldc = 32, k = 19;
    const size_t ccount = m * ldc;
    void *h0 = test_xmalloc(ccount * es);
    void *hc = test_xmalloc(ccount * es);
    void *dc = test_device_alloc(ccount * es);
    /* A and B entirely NaN: reading either shows. */
    const size_t abcount = 64 * 64;
    void *hnan = test_xmalloc(abcount * es);
    for (size_t i = 0; i < abcount; ++i)
        set(hnan, es, i, nan_value(es));
    void *dnan = dev_copy(hnan, abcount * es);
    const duo_transpose tr[2] = {DUO_NO_TRANS, DUO_TRANS};

    for (int pi = 0; pi < NPAIRS; ++pi) {
        const double alpha = alphas[pi], beta = betas[pi];
        for (int x = 0; x < 2; ++x)
            for (int y = 0; y < 2; ++y) {
                const duo_transpose ta = tr[x], tb = tr[y];
                for (int variant = 0; variant < 3; ++variant) {
                    /* 0: K = 0, A and B NULL; 1: alpha = 0, A and B NaN;
                     * 2: alpha = 0, A and B NULL. */
                    const size_t kk = variant == 0 ? 0 : k;
                    const double al = variant == 0 ? alpha : 0.0;
                    const void *a = variant == 1 ? dnan : NULL;
                    const void *b = variant == 1 ? dnan : NULL;
                    size_t ar, ac, br, bc;
                    stored(ta, m, kk, &ar, &ac);
                    stored(tb, kk, n, &br, &bc);
                    const size_t lda = ac > 0 ? ac : 1;
                    const size_t ldb = bc > 0 ? bc : 1;
                    test_set_context("%s %s%s K=%zu alpha=%g beta=%g (%s)",
                                     fname(es), x ? "T" : "N", y ? "T" : "N",
                                     kk, al, beta,
                                     variant == 0   ? "K = 0, A, B NULL"
                                     : variant == 1 ? "alpha = 0, A, B NaN"
                                                    : "alpha = 0, A, B NULL");
                    memset(h0, 0xFF, ccount * es);
                    if (beta != 0.0)
                        for (size_t i = 0; i < m; ++i)
                            for (size_t j = 0; j < n; ++j)
                                set(h0, es, i * ldc + j,
                                    test_rng_uniform(&rng));
                    test_to_device(dc, h0, ccount * es);
                    if (!CHECK_OK(gemm(es, ta, tb, m, n, kk, al, a, lda, b,
                                       ldb, beta, dc, ldc)))
                        continue;
                    memset(hc, 0, ccount * es);
                    test_to_host(hc, dc, ccount * es);
                    check_scaled(es, m, n, ldc, beta, h0, hc);
                }
            }
    }

    /* M = 0 or N = 0: success, nothing written (C may even be NULL). */
    const shape empty[] = {{0, 5, 3}, {5, 0, 3}, {0, 0, 0}, {0, 7, 0}};
    for (size_t e = 0; e < sizeof empty / sizeof empty[0]; ++e) {
        const size_t mm = empty[e].m, nn = empty[e].n, kk = empty[e].k;
        test_set_context("%s m=%zu n=%zu k=%zu", fname(es), mm, nn, kk);
        void *hab = test_xmalloc(64 * es);
        for (size_t i = 0; i < 64; ++i)
            set(hab, es, i, test_rng_uniform(&rng));
        void *dab = dev_copy(hab, 64 * es);
        memset(h0, 0xFF, ccount * es);
        test_to_device(dc, h0, ccount * es);
        const size_t lda = kk > 0 ? kk : 1, ldb = nn > 0 ? nn : 1,
                     ldcc = nn > 0 ? nn : 1;
        CHECK_OK(gemm(es, DUO_NO_TRANS, DUO_NO_TRANS, mm, nn, kk, 1.0, dab,
                      lda, dab, ldb, 0.5, dc, ldcc));
        CHECK_OK(gemm(es, DUO_NO_TRANS, DUO_NO_TRANS, mm, nn, kk, 1.0, dab,
                      lda, dab, ldb, 0.0, NULL, ldcc));
        test_to_host(hc, dc, ccount * es);
        size_t touched = 0;
        for (size_t i = 0; i < ccount; ++i)
            touched += !is_poison(hc, es, i);
        CHECK_MSG(touched == 0, "%zu elements of C written", touched);
        CHECK_OK(duo_free(dab));
        free(hab);
    }
    CHECK_OK(duo_free(dnan));
    CHECK_OK(duo_free(dc));
    free(hnan);
    free(h0);
    free(hc);
    test_set_context("%s", "");
}

/* Bad arguments: DUO_ERROR_INVALID_ARGUMENT, C untouched, and a message
 * naming the function and the argument. */
static void test_errors(size_t es)
{
    const size_t m = 4, n = 5, k = 6;
    const size_t big = 64;
    void *hbuf = test_xmalloc(big * es);
    for (size_t i = 0; i < big; ++i)
        set(hbuf, es, i, test_rng_uniform(&rng));
    void *a = dev_copy(hbuf, big * es);
    void *b = dev_copy(hbuf, big * es);
    void *hc = test_xmalloc(big * es);
    memset(hc, 0xFF, big * es);
    void *c = dev_copy(hc, big * es);
    const duo_transpose N = DUO_NO_TRANS, T = DUO_TRANS;
    const size_t huge = SIZE_MAX / es / 2;

#define EXPECT_REFUSED(ta, tb, mm, nn, kk, alpha, pa, lda, pb, ldb, pc, ldc,   \
                       word)                                                 \
    do {                                                                     \
        test_set_context("%s error: %s", fname(es), word);                   \
        CHECK_STATUS(gemm(es, ta, tb, mm, nn, kk, alpha, pa, lda, pb, ldb,   \
                          0.5, pc, ldc),                                     \
                     DUO_ERROR_INVALID_ARGUMENT);                            \
        CHECK_CONTAINS_WORD(duo_last_error(), fname(es));                    \
        CHECK_CONTAINS_WORD(duo_last_error(), word);                         \
        test_to_host(hc, c, big * es);                                       \
        size_t touched_ = 0;                                                 \
        for (size_t i_ = 0; i_ < big; ++i_)                                  \
            touched_ += !is_poison(hc, es, i_);                              \
        CHECK_MSG(touched_ == 0, "C written (%zu elements)", touched_);      \
    } while (0)

    /* Leading dimensions one too small, for each transpose. */
    EXPECT_REFUSED(N, N, m, n, k, 1.0, a, k - 1, b, n, c, n, "lda");
    EXPECT_REFUSED(T, N, m, n, k, 1.0, a, m - 1, b, n, c, n, "lda");
    EXPECT_REFUSED(N, N, m, n, k, 1.0, a, k, b, n - 1, c, n, "ldb");
    EXPECT_REFUSED(N, T, m, n, k, 1.0, a, k, b, k - 1, c, n, "ldb");
    EXPECT_REFUSED(N, N, m, n, k, 1.0, a, k, b, n, c, n - 1, "ldc");
    EXPECT_REFUSED(T, T, m, n, k, 1.0, a, m, b, k, c, n - 1, "ldc");
    /* An ld that fits the other transpose but not this one. */
    EXPECT_REFUSED(N, N, m, n, k, 1.0, a, m, b, n, c, n, "lda");
    EXPECT_REFUSED(N, T, m, n, k, 1.0, a, k, b, n, c, n, "ldb");
    /* NULL operands that are needed. */
    EXPECT_REFUSED(N, N, m, n, k, 1.0, NULL, k, b, n, c, n, "a");
    EXPECT_REFUSED(N, N, m, n, k, 1.0, a, k, NULL, n, c, n, "b");
    EXPECT_REFUSED(N, N, m, n, k, 1.0, a, k, b, n, NULL, n, "c");
    EXPECT_REFUSED(N, N, m, n, 0, 1.0, NULL, 1, NULL, n, NULL, n, "c");
    /* Transposes that do not exist. */
    EXPECT_REFUSED((duo_transpose)5, N, m, n, k, 1.0, a, k, b, n, c, n,
                   "trans_a");
    EXPECT_REFUSED(N, (duo_transpose)7, m, n, k, 1.0, a, k, b, n, c, n,
                   "trans_b");
    /* Sizes whose last element's offset overflows size_t. */
    EXPECT_REFUSED(N, N, huge, n, k, 1.0, a, k, b, n, c, n, "a");
    EXPECT_REFUSED(N, N, 1, n, huge, 1.0, a, huge, b, n, c, n, "b");
    EXPECT_REFUSED(N, N, huge, 1, 1, 0.0, NULL, 1, NULL, 1, c, 1024, "c");
#undef EXPECT_REFUSED

    CHECK_OK(duo_free(a));
    CHECK_OK(duo_free(b));
    CHECK_OK(duo_free(c));
    free(hbuf);
    free(hc);
    test_set_context("%s", "");
}

/* ------------------------------------------------------------------ */
/* Exact order                                                          */

/* The order duo.h promises for an m x n x k product: the k block of the
 * blocked order (SIZE_MAX: one plain chain), or 0 where it promises no
 * order to the bit.  Every backend follows gemm_order.h; CPU builds
 * without FMA instructions (no one-rounding fma to chain) and CUDA f64
 * forced onto the tensor cores of a GPU not probed promise none. */
static int is_cuda(void) { return strcmp(duo_backend_name(), "cuda") == 0; }

/* Whether f64 products on the FP64 tensor cores follow the order: yes
 * on compute capability 9.x, whose DMMA steps are fma chains over k
 * (profiles/dmma/); elsewhere DUO_GEMM_F64=tensor promises no bits.  The
 * FP64 units (DUO_GEMM_F64=fma) follow it on every GPU. */
static int tensor_cores_chain(void)
{
    const char *f64 = getenv("DUO_GEMM_F64");
    if (f64 == NULL || strcmp(f64, "tensor") != 0)
        return 1;
    duo_device_info info;
    return duo_device_info_get(&info) == DUO_SUCCESS &&
           info.compute_major == 9;
}

static size_t order_kblock(size_t es, size_t m, size_t n, size_t k)
{
    if (is_cuda()) {
        if (es == 8 && !tensor_cores_chain())
            return 0;
    } else {
#if !defined(__FMA__) && !defined(__aarch64__)
        (void)m, (void)n, (void)k;
        return 0;
#endif
    }
    const size_t kb = duo_gemm_order_kblock(es, m, n, k);
    return kb != 0 ? kb : SIZE_MAX;
}

/* Element (i, j) in the promised order with k blocks of kb (SIZE_MAX: one
 * chain): P_b = alpha * (fma chain over the block from 0), C = P_0 or
 * fma(beta, C0, P_0), then C = C + P_b in block order. */
static float order_f32(const float *a, size_t lda, duo_transpose ta,
                       const float *b, size_t ldb, duo_transpose tb,
                       size_t i, size_t j, size_t k, size_t kb, float alpha,
                       float beta, float c0)
{
    float r = 0.0f;
    for (size_t p0 = 0; p0 < k || p0 == 0; p0 += kb) {
        const size_t end = k - p0 < kb ? k : p0 + kb;
        float acc = 0.0f;
        for (size_t p = p0; p < end; ++p)
            acc = fmaf(a[a_at(ta, lda, i, p)], b[b_at(tb, ldb, p, j)], acc);
        const float part = alpha * acc;
        if (p0 == 0)
            r = beta != 0.0f ? fmaf(beta, c0, part) : part;
        else
            r = fmaf(1.0f, r, part);
        if (end == k)
            break;
    }
    return r;
}

static double order_f64(const double *a, size_t lda, duo_transpose ta,
                        const double *b, size_t ldb, duo_transpose tb,
                        size_t i, size_t j, size_t k, size_t kb, double alpha,
                        double beta, double c0)
{
    double r = 0.0;
    for (size_t p0 = 0; p0 < k || p0 == 0; p0 += kb) {
        const size_t end = k - p0 < kb ? k : p0 + kb;
        double acc = 0.0;
        for (size_t p = p0; p < end; ++p)
            acc = fma(a[a_at(ta, lda, i, p)], b[b_at(tb, ldb, p, j)], acc);
        const double part = alpha * acc;
        if (p0 == 0)
            r = beta != 0.0 ? fma(beta, c0, part) : part;
        else
            r = fma(1.0, r, part);
        if (end == k)
            break;
    }
    return r;
}

/* Element (i, j) of C (row stride ldc) against the promised order with
 * k blocks of kb, bit for bit; reports the first differences (*bad counts
 * them).  h0 is C before the product. */
static void check_order_at(size_t es, const void *hc, size_t ldc,
                           const void *ha, size_t lda, duo_transpose ta,
                           const void *hb, size_t ldb, duo_transpose tb,
                           size_t i, size_t j, size_t k, size_t kb,
                           double alpha, double beta, const void *h0,
                           size_t *bad)
{
    const size_t at = i * ldc + j;
    int same;
    double want;
    if (es == 4) {
        const float r = order_f32((const float *)ha, lda, ta,
                                  (const float *)hb, ldb, tb, i, j, k, kb,
                                  (float)alpha, (float)beta,
                                  ((const float *)h0)[at]);
        same = memcmp((const float *)hc + at, &r, sizeof r) == 0;
        want = r;
    } else {
        const double r = order_f64((const double *)ha, lda, ta,
                                   (const double *)hb, ldb, tb, i, j, k, kb,
                                   alpha, beta, ((const double *)h0)[at]);
        same = memcmp((const double *)hc + at, &r, sizeof r) == 0;
        want = r;
    }
    if (!same && (*bad)++ < 3) {
        char order[48];
        if (kb == SIZE_MAX)
            snprintf(order, sizeof order, "one chain");
        else
            snprintf(order, sizeof order, "k blocks of %zu", kb);
        CHECK_MSG(0, "C(%zu,%zu) = %.17Lg, the promised order (%s) gives "
                  "%.17g", i, j, get(hc, es, at), order, want);
    }
}

/* C before a product into it: random, or NaN everywhere when beta is 0
 * (C must not be read). */
static void *c_before(size_t es, size_t m, size_t n, double beta)
{
    void *h0 = random_matrix(es, m, n, n);
    if (beta == 0.0)
        for (size_t i = 0; i < m * n; ++i)
            set(h0, es, i, nan_value(es));
    return h0;
}

/* C must equal, bit for bit, acc = fma chain over p in order, then
 * r = alpha * acc, then fma(beta, C0, r) (beta != 0) or r; or that in
 * the blocked order. */
static void test_order(size_t es)
{
    /* Every element checked.  K up to 384 (f32) or 256 (f64): one CPU
     * cache block; 1000: one chain over 3 (f32) or 4 (f64) of them, the
     * last partial; f32 1152: 3 blocks of 384, one chain; 1153 (4 blocks,
     * the last of 1), 1536, 2049, 4099: blocked; f64 2048: one chain over
     * 8 cache blocks, 2049 (the last block of 1), 4097, 6000: blocked, its
     * chains over 8 cache blocks each. */
    const shape shapes[] = {{1, 1, 1},       {3, 70, 5},      {33, 65, 17},
                            {129, 127, 200}, {70, 131, 256},  {40, 50, 384},
                            {67, 45, 1000},  {31, 9, 1152},   {17, 13, 1153},
                            {31, 9, 1536},   {130, 20, 2049}, {13, 11, 4099},
                            {23, 19, 2048},  {9, 7, 4097},    {5, 11, 6000}};
    const duo_transpose tr[2] = {DUO_NO_TRANS, DUO_TRANS};
    long cases = 0, blocked = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        const size_t m = shapes[s].m, n = shapes[s].n, k = shapes[s].k;
        const size_t kb = order_kblock(es, m, n, k);
        if (kb == 0)
            continue;
        for (int x = 0; x < 2; ++x)
            for (int y = 0; y < 2; ++y)
                for (int pi = 0; pi < 3; ++pi) {
                    const duo_transpose ta = tr[x], tb = tr[y];
                    const double alpha = alphas[pi], beta = betas[pi];
                    size_t ar, ac, br, bc;
                    stored(ta, m, k, &ar, &ac);
                    stored(tb, k, n, &br, &bc);
                    const size_t lda = ac, ldb = bc, ldc = n;
                    void *ha = random_matrix(es, ar, ac, lda);
                    void *hb = random_matrix(es, br, bc, ldb);
                    void *h0 = c_before(es, m, n, beta);
                    void *hc = test_xmalloc(m * n * es);
                    void *da = dev_copy(ha, ar * lda * es);
                    void *db = dev_copy(hb, br * ldb * es);
                    void *dc = dev_copy(h0, m * ldc * es);
                    test_set_context("%s order %s%s m=%zu n=%zu k=%zu "
                                     "alpha=%g beta=%g", fname(es),
                                     x ? "T" : "N", y ? "T" : "N", m, n, k,
                                     alpha, beta);
                    if (CHECK_OK(gemm(es, ta, tb, m, n, k, alpha, da, lda, db,
                                      ldb, beta, dc, ldc))) {
                        test_to_host(hc, dc, m * n * es);
                        size_t bad = 0;
                        for (size_t i = 0; i < m; ++i)
                            for (size_t j = 0; j < n; ++j)
                                check_order_at(es, hc, ldc, ha, lda, ta, hb,
                                               ldb, tb, i, j, k, kb, alpha,
                                               beta, h0, &bad);
                        CHECK_MSG(bad == 0, "%zu of %zu elements differ "
                                  "from the promised order", bad, m * n);
                        ++cases;
                        blocked += kb < k;
                    }
                    CHECK_OK(duo_free(da));
                    CHECK_OK(duo_free(db));
                    CHECK_OK(duo_free(dc));
                    free(ha);
                    free(hb);
                    free(h0);
                    free(hc);
                }
    }
    printf("%s order: %ld cases bit-exact, %ld of them in k blocks\n",
           fname(es), cases, blocked);
    test_set_context("%s", "");
}

/* Products that all underflow to -0: A negative and B positive, both so
 * small that every product rounds to -0, so each chain stays -0 from
 * its first step.  The order's C is then -0 (C0 is -0 where beta is
 * read); a kernel that runs padded steps fma(+0, +0, acc) past the end
 * of k, or starts a chain that is not the order's, returns +0.  K of 1
 * to 47 covers k tails of every length below the kernels' k slabs and
 * mma steps (8 and 16). */
static void test_order_underflow(size_t es)
{
    const size_t ks[] = {1, 3, 5, 8, 9, 15, 16, 17, 24, 31, 33, 47};
    const size_t m = 19, n = 13;
    const double tiny = es == 4 ? 0x1p-80 : 0x1p-600;
    const duo_transpose tr[2] = {DUO_NO_TRANS, DUO_TRANS};
    long cases = 0;
    for (size_t q = 0; q < sizeof ks / sizeof ks[0]; ++q)
        for (int x = 0; x < 2; ++x)
            for (int y = 0; y < 2; ++y)
                for (int pb = 0; pb < 2; ++pb) {
                    const size_t k = ks[q];
                    const size_t kb = order_kblock(es, m, n, k);
                    if (kb == 0)
                        continue;
                    const duo_transpose ta = tr[x], tb = tr[y];
                    const double alpha = 1.5, beta = pb ? 0.5 : 0.0;
                    size_t ar, ac, br, bc;
                    stored(ta, m, k, &ar, &ac);
                    stored(tb, k, n, &br, &bc);
                    void *ha = test_xmalloc(ar * ac * es);
                    void *hb = test_xmalloc(br * bc * es);
                    /* magnitudes in [tiny, 2 tiny) */
                    for (size_t i = 0; i < ar * ac; ++i)
                        set(ha, es, i,
                            -tiny * (1.5 + test_rng_uniform(&rng) / 2));
                    for (size_t i = 0; i < br * bc; ++i)
                        set(hb, es, i,
                            tiny * (1.5 + test_rng_uniform(&rng) / 2));
                    void *h0 = c_before(es, m, n, beta);
                    if (beta != 0.0)
                        for (size_t i = 0; i < m * n; ++i)
                            set(h0, es, i, -0.0);
                    void *hc = test_xmalloc(m * n * es);
                    void *da = dev_copy(ha, ar * ac * es);
                    void *db = dev_copy(hb, br * bc * es);
                    void *dc = dev_copy(h0, m * n * es);
                    test_set_context("%s underflow to -0 %s%s m=%zu n=%zu "
                                     "k=%zu beta=%g", fname(es),
                                     x ? "T" : "N", y ? "T" : "N", m, n, k,
                                     beta);
                    if (CHECK_OK(gemm(es, ta, tb, m, n, k, alpha, da, ac, db,
                                      bc, beta, dc, n))) {
                        test_to_host(hc, dc, m * n * es);
                        size_t bad = 0, negative_zeros = 0;
                        for (size_t i = 0; i < m; ++i)
                            for (size_t j = 0; j < n; ++j) {
                                check_order_at(es, hc, n, ha, ac, ta, hb, bc,
                                               tb, i, j, k, kb, alpha, beta,
                                               h0, &bad);
                                negative_zeros +=
                                    get(hc, es, i * n + j) == 0 &&
                                    signbit(get(hc, es, i * n + j));
                            }
                        CHECK_MSG(bad == 0, "%zu of %zu elements differ "
                                  "from the promised order", bad, m * n);
                        /* Else the case tests nothing: the order gives -0. */
                        CHECK_MSG(negative_zeros == m * n || bad != 0,
                                  "%zu of %zu elements are -0",
                                  negative_zeros, m * n);
                        ++cases;
                    }
                    CHECK_OK(duo_free(da));
                    CHECK_OK(duo_free(db));
                    CHECK_OK(duo_free(dc));
                    free(ha);
                    free(hb);
                    free(h0);
                    free(hc);
                }
    printf("%s order, products underflowing to -0: %ld cases bit-exact\n",
           fname(es), cases);
    test_set_context("%s", "");
}

/* Elements of C (m x n, row stride n) against the promised order with k
 * blocks of kb, bit for bit: the first and last rows and columns and
 * 1024 random ones; reports the first differences.  Returns the number
 * checked. */
static size_t check_sampled_order(size_t es, const void *c, const void *ha,
                                  size_t lda, duo_transpose ta,
                                  const void *hb, size_t ldb,
                                  duo_transpose tb, size_t m, size_t n,
                                  size_t k, size_t kb, double alpha,
                                  double beta, const void *h0)
{
    size_t bad = 0, checked = 0;
    for (size_t j = 0; j < n; ++j)
        for (size_t i = 0; i < m; i += m > 1 ? m - 1 : 1, ++checked)
            check_order_at(es, c, n, ha, lda, ta, hb, ldb, tb, i, j, k, kb,
                           alpha, beta, h0, &bad);
    for (size_t i = 1; i + 1 < m; ++i)
        for (size_t j = 0; j < n; j += n > 1 ? n - 1 : 1, ++checked)
            check_order_at(es, c, n, ha, lda, ta, hb, ldb, tb, i, j, k, kb,
                           alpha, beta, h0, &bad);
    for (size_t s = 0; s < 1024; ++s, ++checked)
        check_order_at(es, c, n, ha, lda, ta, hb, ldb, tb,
                       (size_t)test_rng_u64(&rng) % m,
                       (size_t)test_rng_u64(&rng) % n, k, kb, alpha, beta,
                       h0, &bad);
    CHECK_MSG(bad == 0, "%zu of %zu sampled elements differ from the "
              "promised order", bad, checked);
    return checked;
}

/* Products with a C of more than 2^19 elements, so one fma chain over
 * all of k, across several of the CPU's cache blocks of k (384 f32, 256
 * f64; K one past or short of a multiple too), kept between them in C
 * itself (beta 0: C starts as NaN) or in a workspace (beta != 0), with C
 * cut into bands of rows or, when wide, of columns; checked on a sample
 * of elements.  The work is kept within reach of a sanitizer build on
 * two cores. */
static void test_order_large(size_t es)
{
    const duo_transpose N = DUO_NO_TRANS, T = DUO_TRANS;
    static const struct {
        size_t m, n, k;
        duo_transpose ta, tb;
        double alpha, beta;
    } f32_cases[] = {{727, 723, 1000, N, N, 1.0, 0.0},
                     {727, 723, 1152, T, N, 1.5, -0.5},
                     {37, 14173, 1153, N, T, -2.0, 1.0},
                     {14173, 37, 2049, T, T, 1.5, 0.0},
                     {727, 723, 4099, N, N, -2.0, 0.75}},
      f64_cases[] = {{727, 723, 1000, T, N, 1.5, 0.0},
                     {37, 14173, 2048, N, N, -2.0, 0.75},
                     {727, 723, 2049, N, T, 1.0, 0.0},
                     {14173, 37, 4097, T, T, 1.5, -0.5}};
    const size_t count = es == 4 ? sizeof f32_cases / sizeof f32_cases[0]
                                 : sizeof f64_cases / sizeof f64_cases[0];
    const double t0 = test_seconds();
    size_t checked = 0;
    for (size_t t = 0; t < count; ++t) {
        const size_t m = es == 4 ? f32_cases[t].m : f64_cases[t].m;
        const size_t n = es == 4 ? f32_cases[t].n : f64_cases[t].n;
        const size_t k = es == 4 ? f32_cases[t].k : f64_cases[t].k;
        const duo_transpose ta = es == 4 ? f32_cases[t].ta : f64_cases[t].ta;
        const duo_transpose tb = es == 4 ? f32_cases[t].tb : f64_cases[t].tb;
        const double alpha = es == 4 ? f32_cases[t].alpha
                                     : f64_cases[t].alpha;
        const double beta = es == 4 ? f32_cases[t].beta : f64_cases[t].beta;
        const size_t kb = order_kblock(es, m, n, k);
        if (kb == 0)
            continue;
        size_t ar, ac, br, bc;
        stored(ta, m, k, &ar, &ac);
        stored(tb, k, n, &br, &bc);
        void *ha = random_matrix(es, ar, ac, ac);
        void *hb = random_matrix(es, br, bc, bc);
        void *h0 = c_before(es, m, n, beta);
        void *hc = test_xmalloc(m * n * es);
        void *da = dev_copy(ha, ar * ac * es);
        void *db = dev_copy(hb, br * bc * es);
        void *dc = dev_copy(h0, m * n * es);
        test_set_context("%s order %s%s m=%zu n=%zu k=%zu alpha=%g beta=%g",
                         fname(es), ta == T ? "T" : "N", tb == T ? "T" : "N",
                         m, n, k, alpha, beta);
        if (CHECK_OK(gemm(es, ta, tb, m, n, k, alpha, da, ac, db, bc, beta,
                          dc, n))) {
            test_to_host(hc, dc, m * n * es);
            checked += check_sampled_order(es, hc, ha, ac, ta, hb, bc, tb, m,
                                           n, k, kb, alpha, beta, h0);
        }
        CHECK_OK(duo_free(da));
        CHECK_OK(duo_free(db));
        CHECK_OK(duo_free(dc));
        free(ha);
        free(hb);
        free(h0);
        free(hc);
    }
    printf("%s order, large C: %zu sampled elements bit-exact (%.2f s)\n",
           fname(es), checked, test_seconds() - t0);
    test_set_context("%s", "");
}

/* CUDA f32 split products checked on a sample of elements against the
 * blocked order:
 * - more k blocks than gemm's 64 MiB workspace holds (724^2 floats, 34
 *   blocks: 32, then 2 folded onto C);
 * - 1000 x 70 x 9000 NN (A stored with k contiguous in 16-byte-aligned
 *   rows, 24 k blocks, edge tiles in both directions);
 * - 64 x 1000 x 5000 NT (a C of few rows, both operands stored with k
 *   contiguous, the last k block partial). */
static void test_split_products(void)
{
    if (!is_cuda())
        return;
    static const struct {
        size_t m, n, k;
        duo_transpose ta, tb;
    } cases[] = {{724, 724, 33 * 384 + 100, DUO_TRANS, DUO_NO_TRANS},
                 {1000, 70, 9000, DUO_NO_TRANS, DUO_NO_TRANS},
                 {64, 1000, 5000, DUO_NO_TRANS, DUO_TRANS}};
    const float alpha = 1.5f, beta = -0.5f;
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; ++t) {
        const size_t m = cases[t].m, n = cases[t].n, k = cases[t].k;
        const duo_transpose ta = cases[t].ta, tb = cases[t].tb;
        size_t ar, ac, br, bc;
        stored(ta, m, k, &ar, &ac);
        stored(tb, k, n, &br, &bc);
        float *ha = (float *)random_matrix(4, ar, ac, ac);
        float *hb = (float *)random_matrix(4, br, bc, bc);
        float *h0 = (float *)random_matrix(4, m, n, n);
        float *hc = (float *)test_xmalloc(m * n * sizeof(float));
        void *da = dev_copy(ha, ar * ac * sizeof(float));
        void *db = dev_copy(hb, br * bc * sizeof(float));
        void *dc = dev_copy(h0, m * n * sizeof(float));
        test_set_context("f32 split %s%s m=%zu n=%zu k=%zu",
                         ta == DUO_TRANS ? "T" : "N",
                         tb == DUO_TRANS ? "T" : "N", m, n, k);
        if (CHECK_OK(duo_gemm_f32(ta, tb, m, n, k, alpha, (const float *)da,
                                  ac, (const float *)db, bc, beta,
                                  (float *)dc, n))) {
            test_to_host(hc, dc, m * n * sizeof(float));
            const size_t checked = check_sampled_order(
                4, hc, ha, ac, ta, hb, bc, tb, m, n, k, 384, alpha, beta,
                h0);
            printf("f32 split %zux%zux%zu: %zu sampled elements checked\n",
                   m, n, k, checked);
        }
        CHECK_OK(duo_free(da));
        CHECK_OK(duo_free(db));
        CHECK_OK(duo_free(dc));
        free(ha);
        free(hb);
        free(h0);
        free(hc);
    }
    test_set_context("%s", "");
}

/* CUDA f32 products large enough that B, stored transposed, is packed
 * (transposed into a workspace first; m and k >= 2048), checked on a
 * sample of elements against the plain order, bit for bit, and C compared
 * byte for byte with the same product unpacked (DUO_GEMM_PACK=0):
 * - 2048 x 300 x 2053 NT (n not a multiple of the 32-float rows of the
 *   copy, k prime);
 * - 2053 x 517 x 2048 TT with B's rows padded by 3 floats (no 16-byte
 *   copies of B as stored; the copy allows them). */
static void test_packed_products(void)
{
    if (!is_cuda())
        return;
    static const struct {
        size_t m, n, k;
        duo_transpose ta;
        size_t pad_a, pad_b;
    } cases[] = {{2048, 300, 2053, DUO_NO_TRANS, 0, 0},
                 {2053, 517, 2048, DUO_TRANS, 3, 3}};
    const float alpha = -1.5f, beta = 0.75f;
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; ++t) {
        const size_t m = cases[t].m, n = cases[t].n, k = cases[t].k;
        const duo_transpose ta = cases[t].ta, tb = DUO_TRANS;
        size_t ar, ac, br, bc;
        stored(ta, m, k, &ar, &ac);
        stored(tb, k, n, &br, &bc);
        const size_t lda = ac + cases[t].pad_a, ldb = bc + cases[t].pad_b;
        const size_t kb = order_kblock(4, m, n, k);
        float *ha = (float *)random_matrix(4, ar, ac, lda);
        float *hb = (float *)random_matrix(4, br, bc, ldb);
        float *h0 = (float *)random_matrix(4, m, n, n);
        float *packed = (float *)test_xmalloc(m * n * sizeof(float));
        float *plain = (float *)test_xmalloc(m * n * sizeof(float));
        void *da = dev_copy(ha, ar * lda * sizeof(float));
        void *db = dev_copy(hb, br * ldb * sizeof(float));
        void *dc = test_device_alloc(m * n * sizeof(float));
        float *const results[2] = {packed, plain};
        int ran = 1;
        for (int r = 0; r < 2 && ran; ++r) {
            setenv("DUO_GEMM_PACK", r == 0 ? "auto" : "0", 1);
            test_set_context("f32 packed %sT m=%zu n=%zu k=%zu pack %s",
                             ta == DUO_TRANS ? "T" : "N", m, n, k,
                             r == 0 ? "auto" : "0");
            test_to_device(dc, h0, m * n * sizeof(float));
            ran = CHECK_OK(duo_gemm_f32(ta, tb, m, n, k, alpha,
                                        (const float *)da, lda,
                                        (const float *)db, ldb, beta,
                                        (float *)dc, n));
            if (ran)
                test_to_host(results[r], dc, m * n * sizeof(float));
        }
        unsetenv("DUO_GEMM_PACK");
        if (ran) {
            const size_t checked = check_sampled_order(
                4, packed, ha, lda, ta, hb, ldb, tb, m, n, k, kb, alpha,
                beta, h0);
            CHECK_MSG(memcmp(packed, plain, m * n * sizeof(float)) == 0,
                      "C differs with and without packing B");
            printf("f32 packed %zux%zux%zu: %zu sampled elements checked, "
                   "and C unpacked\n", m, n, k, checked);
        }
        CHECK_OK(duo_free(da));
        CHECK_OK(duo_free(db));
        CHECK_OK(duo_free(dc));
        free(ha);
        free(hb);
        free(h0);
        free(packed);
        free(plain);
    }
    test_set_context("%s", "");
}

/* CUDA: a product that would pack B still runs, unpacked and with the
 * same bytes, when the device has no memory left for the copy: device
 * memory is taken by duo_malloc until it fails.  Run alone, with
 * --fill-device (ctest gemm_fill_device, RUN_SERIAL: a test beside it
 * would find no memory either), so gemm's workspace pool holds nothing
 * yet (the product before does not pack): without the fallback the
 * product would fail for want of the 96 MiB copy of B.
 * compute-sanitizer reports each failed allocation:
 * tests/gpu_sanitize.sh expects them by this function's name in their
 * backtrace, so it stays a function of its own (not static, never
 * inlined) with this name. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
void test_gemm_deliberate_oom(void);
void test_gemm_deliberate_oom(void)
{
    if (!is_cuda())
        return;
    const size_t m = 2048, n = 8192, k = 3072; /* NT: B is n x k */
    float *ha = (float *)random_matrix(4, m, k, k);
    float *hb = (float *)random_matrix(4, n, k, k);
    float *want = (float *)test_xmalloc(m * n * sizeof(float));
    float *got = (float *)test_xmalloc(m * n * sizeof(float));
    void *da = dev_copy(ha, m * k * sizeof(float));
    void *db = dev_copy(hb, n * k * sizeof(float));
    void *dc = test_device_alloc(m * n * sizeof(float));
    test_set_context("f32 NT %zux%zux%zu, no memory for packing", m, n, k);
    setenv("DUO_GEMM_PACK", "0", 1);
    int ok = CHECK_OK(duo_gemm_f32(DUO_NO_TRANS, DUO_TRANS, m, n, k, 1.0f,
                                   (const float *)da, k, (const float *)db,
                                   k, 0.0f, (float *)dc, n));
    unsetenv("DUO_GEMM_PACK");
    if (ok)
        test_to_host(want, dc, m * n * sizeof(float));
    /* Take what is left, largest pieces first. */
    void *hog[4096];
    size_t hogs = 0;
    for (size_t piece = (size_t)1 << 30; piece >= ((size_t)1 << 20);
         piece /= 2)
        while (hogs < sizeof hog / sizeof hog[0] &&
               duo_malloc(&hog[hogs], piece) == DUO_SUCCESS)
            ++hogs;
    CHECK_MSG(hogs < sizeof hog / sizeof hog[0], "device memory not "
              "exhausted after %zu allocations", hogs);
    ok = ok && CHECK_OK(duo_memset(dc, 0xFF, m * n * sizeof(float)));
    ok = ok && CHECK_OK(duo_gemm_f32(DUO_NO_TRANS, DUO_TRANS, m, n, k, 1.0f,
                                     (const float *)da, k,
                                     (const float *)db, k, 0.0f,
                                     (float *)dc, n));
    for (size_t i = 0; i < hogs; ++i)
        CHECK_OK(duo_free(hog[i]));
    if (ok) {
        test_to_host(got, dc, m * n * sizeof(float));
        CHECK_MSG(memcmp(got, want, m * n * sizeof(float)) == 0,
                  "C differs from the unpacked product's");
        printf("f32 NT %zux%zux%zu with no memory for packing B: C "
               "identical unpacked (%zu allocations held)\n", m, n, k,
               hogs);
    }
    CHECK_OK(duo_free(da));
    CHECK_OK(duo_free(db));
    CHECK_OK(duo_free(dc));
    free(ha);
    free(hb);
    free(want);
    free(got);
    test_set_context("%s", "");
}

/* CUDA: every tile shape, and in f32 each with B packed (DUO_GEMM_PACK=1)
 * and not (0), gives the same bytes in C (padding and a guard included)
 * as the automatic choice; an unknown shape or packing mode is refused, C
 * untouched. */
static void test_tile_shapes(size_t es)
{
    if (!is_cuda())
        return;
    static const char *const f32_shapes[] = {
        "128x256", "128x128", "128x64", "64x128", "64x64", "32x64", "32x32",
        NULL};
    static const char *const f64_shapes[] = {"128x128", "64x64", "64x32",
                                             "32x32", NULL};
    const char *const *names = es == 4 ? f32_shapes : f64_shapes;
    /* The last two are split over k on CUDA f32 (5 and 6 blocks, the
     * last partial), the last on CUDA f64 too (2048 + 52). */
    const shape shapes[] = {{1, 1, 1},      {31, 33, 17},    {130, 70, 33},
                            {257, 131, 70}, {300, 260, 129}, {70, 37, 1601},
                            {37, 23, 2100}};
    const duo_transpose tr[2] = {DUO_NO_TRANS, DUO_TRANS};
    const size_t pads[2] = {0, 3};
    long cases = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
        for (int x = 0; x < 2; ++x)
            for (int y = 0; y < 2; ++y)
                for (int pd = 0; pd < 2; ++pd) {
                    const size_t m = shapes[s].m, n = shapes[s].n,
                                 k = shapes[s].k, pad = pads[pd];
                    const duo_transpose ta = tr[x], tb = tr[y];
                    size_t ar, ac, br, bc;
                    stored(ta, m, k, &ar, &ac);
                    stored(tb, k, n, &br, &bc);
                    const size_t lda = ac + pad, ldb = bc + pad,
                                 ldc = n + pad;
                    const double alpha = 1.5, beta = pd ? -0.5 : 0.0;
                    const size_t ccount = m * ldc + GUARD;
                    void *ha = random_matrix(es, ar, ac, lda);
                    void *hb = random_matrix(es, br, bc, ldb);
                    void *h0 = random_matrix(es, m, n, ldc);
                    h0 = realloc(h0, ccount * es);
                    memset((char *)h0 + m * ldc * es, 0xFF, GUARD * es);
                    void *want = test_xmalloc(ccount * es);
                    void *got = test_xmalloc(ccount * es);
                    void *da = dev_copy(ha, ar * lda * es);
                    void *db = dev_copy(hb, br * ldb * es);
                    void *dc = test_device_alloc(ccount * es);
                    unsetenv("DUO_GEMM_TILE");
                    test_to_device(dc, h0, ccount * es);
                    test_set_context("%s tile auto %s%s m=%zu n=%zu k=%zu "
                                     "pad=%zu", fname(es), x ? "T" : "N",
                                     y ? "T" : "N", m, n, k, pad);
                    CHECK_OK(gemm(es, ta, tb, m, n, k, alpha, da, lda, db,
                                  ldb, beta, dc, ldc));
                    test_to_host(want, dc, ccount * es);
                    /* Every shape; f32 with B packed and not. */
                    const int packs = es == 4 ? 2 : 1;
                    for (int v = 0; names[v / packs]; ++v) {
                        const char *nm = names[v / packs];
                        const int pk = v % packs;
                        setenv("DUO_GEMM_TILE", nm, 1);
                        setenv("DUO_GEMM_PACK", pk ? "1" : "0", 1);
                        test_set_context("%s tile %s pack %d %s%s m=%zu "
                                         "n=%zu k=%zu pad=%zu", fname(es),
                                         nm, pk, x ? "T" : "N",
                                         y ? "T" : "N", m, n, k, pad);
                        test_to_device(dc, h0, ccount * es);
                        if (!CHECK_OK(gemm(es, ta, tb, m, n, k, alpha, da,
                                           lda, db, ldb, beta, dc, ldc)))
                            continue;
                        test_to_host(got, dc, ccount * es);
                        size_t diff = 0;
                        for (size_t i = 0; i < ccount * es; ++i)
                            diff += ((const unsigned char *)got)[i] !=
                                    ((const unsigned char *)want)[i];
                        CHECK_MSG(diff == 0, "%zu bytes of C differ from "
                                  "the automatic tile shape's", diff);
                        ++cases;
                    }
                    unsetenv("DUO_GEMM_TILE");
                    unsetenv("DUO_GEMM_PACK");
                    CHECK_OK(duo_free(da));
                    CHECK_OK(duo_free(db));
                    CHECK_OK(duo_free(dc));
                    free(ha);
                    free(hb);
                    free(h0);
                    free(want);
                    free(got);
                }

    /* A shape this precision does not have, or a packing mode that does
     * not exist (refused in both precisions). */
    const size_t cnt = 64;
    void *hbuf = random_matrix(es, 1, cnt, cnt);
    void *d = dev_copy(hbuf, cnt * es);
    void *hc = test_xmalloc(cnt * es);
    memset(hc, 0xFF, cnt * es);
    void *dc = dev_copy(hc, cnt * es);
    static const struct {
        const char *var, *value;
    } bad[] = {{"DUO_GEMM_TILE", "16x16"}, {"DUO_GEMM_TILE", "128x32"},
               {"DUO_GEMM_TILE", "64"},    {"DUO_GEMM_PACK", "2"},
               {"DUO_GEMM_PACK", "yes"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        setenv(bad[i].var, bad[i].value, 1);
        test_set_context("%s %s=%s", fname(es), bad[i].var, bad[i].value);
        CHECK_STATUS(gemm(es, DUO_NO_TRANS, DUO_TRANS, 4, 4, 4, 1.0, d, 4,
                          d, 4, 0.0, dc, 4),
                     DUO_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS_WORD(duo_last_error(), bad[i].var);
        if (strcmp(bad[i].var, "DUO_GEMM_TILE") == 0)
            CHECK_CONTAINS_WORD(duo_last_error(), fname(es));
        test_to_host(hc, dc, cnt * es);
        size_t touched = 0;
        for (size_t j = 0; j < cnt; ++j)
            touched += !is_poison(hc, es, j);
        CHECK_MSG(touched == 0, "C written (%zu elements)", touched);
        unsetenv(bad[i].var);
    }
    CHECK_OK(duo_free(d));
    CHECK_OK(duo_free(dc));
    free(hbuf);
    free(hc);
    printf("%s tile shapes%s: %ld cases bit-identical to the automatic "
           "choice\n", fname(es), es == 4 ? " x B packed or not" : "", cases);
    test_set_context("%s", "");
}

/* CPU backends: the variants of the CPU gemm that DUO_CPU_GEMM forces
 * (backend_cpu/gemm_variant.h).  A GCC or clang build for x86-64 with
 * AVX2 and FMA but not AVX-512 (the default x86-64-v3) has avx2, and
 * avx512 for CPUs that have it; other builds have one variant. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) &&   \
    defined(__AVX2__) && defined(__FMA__) && !defined(__AVX512F__)
#define CPU_GEMM_TWO_VARIANTS 1
#endif

/* 1 if /proc/cpuinfo lists every AVX-512 extension the avx512 variant
 * is compiled for, 0 if not, -1 where there is no /proc/cpuinfo: asked
 * independently of the library's own check. */
static int cpuinfo_has_avx512(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL)
        return -1;
    static char line[8192];
    int found = 0;
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, "flags", 5) == 0) {
            found = 1;
            break;
        }
    fclose(f);
    if (!found)
        return -1;
    static const char *const need[] = {"avx512f", "avx512cd", "avx512dq",
                                       "avx512bw", "avx512vl"};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; ++i)
        if (!test_contains_word(line, need[i]))
            return 0;
    return 1;
}

/* One product with DUO_CPU_GEMM = value (NULL: unset) into dc, which
 * starts as h0; its status, C back in got. */
static duo_status product_with(const char *value, size_t es, duo_transpose ta,
                               duo_transpose tb, size_t m, size_t n, size_t k,
                               double alpha, const void *da, size_t lda,
                               const void *db, size_t ldb, double beta,
                               void *dc, size_t ldc, const void *h0,
                               void *got, size_t bytes)
{
    if (value != NULL)
        setenv("DUO_CPU_GEMM", value, 1);
    else
        unsetenv("DUO_CPU_GEMM");
    test_to_device(dc, h0, bytes);
    duo_status st =
        gemm(es, ta, tb, m, n, k, alpha, da, lda, db, ldb, beta, dc, ldc);
    test_to_host(got, dc, bytes);
    return st;
}

/* CPU: each variant that DUO_CPU_GEMM names gives the same bytes in C
 * (padding and a guard included) as the automatic choice, edge tiles of
 * both tile shapes, chains kept across cache blocks (in C and in the
 * workspace) and split products included; where the build has two, avx2
 * is always taken and avx512 exactly where the CPU lists AVX-512.  A
 * variant refused, and a value that names none, are refused with
 * DUO_ERROR_INVALID_ARGUMENT naming the variable, C untouched. */
static void test_cpu_variants(size_t es)
{
    if (is_cuda())
        return;
    /* The variable as the run set it (ctest's gemm_avx2), for the tests
     * after this one. */
    const char *env = getenv("DUO_CPU_GEMM");
    char *outer = env != NULL ? strdup(env) : NULL;
    static const char *const names[] = {"avx2", "avx512"};
    static const char *const bad[] = {"avx3", "AVX2", "avx512 ", "auto"};
    const shape shapes[] = {{1, 1, 1},     {31, 33, 17},  {130, 70, 33},
                            {70, 37, 1000}, {37, 23, 2100}, {257, 131, 70}};
    const duo_transpose tr[2] = {DUO_NO_TRANS, DUO_TRANS};
    const size_t pads[2] = {0, 3};
    int taken[2] = {0, 0};
    long cases = 0, identical = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
        for (int x = 0; x < 2; ++x)
            for (int y = 0; y < 2; ++y)
                for (int pd = 0; pd < 2; ++pd) {
                    const size_t m = shapes[s].m, n = shapes[s].n,
                                 k = shapes[s].k, pad = pads[pd];
                    const duo_transpose ta = tr[x], tb = tr[y];
                    size_t ar, ac, br, bc;
                    stored(ta, m, k, &ar, &ac);
                    stored(tb, k, n, &br, &bc);
                    const size_t lda = ac + pad, ldb = bc + pad,
                                 ldc = n + pad;
                    const double alpha = 1.5, beta = pd ? -0.5 : 0.0;
                    const size_t ccount = m * ldc + GUARD;
                    const size_t bytes = ccount * es;
                    void *ha = random_matrix(es, ar, ac, lda);
                    void *hb = random_matrix(es, br, bc, ldb);
                    void *h0 = random_matrix(es, m, n, ldc);
                    h0 = realloc(h0, bytes);
                    memset((char *)h0 + m * ldc * es, 0xFF, GUARD * es);
                    void *want = test_xmalloc(bytes);
                    void *got = test_xmalloc(bytes);
                    void *da = dev_copy(ha, ar * lda * es);
                    void *db = dev_copy(hb, br * ldb * es);
                    void *dc = test_device_alloc(bytes);
                    test_set_context("%s DUO_CPU_GEMM unset %s%s m=%zu n=%zu "
                                     "k=%zu pad=%zu", fname(es),
                                     x ? "T" : "N", y ? "T" : "N", m, n, k,
                                     pad);
                    CHECK_OK(product_with(NULL, es, ta, tb, m, n, k, alpha,
                                          da, lda, db, ldb, beta, dc, ldc,
                                          h0, want, bytes));
                    for (int v = 0; v < 2; ++v) {
                        test_set_context("%s DUO_CPU_GEMM=%s %s%s m=%zu "
                                         "n=%zu k=%zu pad=%zu", fname(es),
                                         names[v], x ? "T" : "N",
                                         y ? "T" : "N", m, n, k, pad);
                        duo_status st = product_with(
                            names[v], es, ta, tb, m, n, k, alpha, da, lda,
                            db, ldb, beta, dc, ldc, h0, got, bytes);
                        if (st == DUO_SUCCESS) {
                            const int same = memcmp(got, want, bytes) == 0;
                            taken[v] = 1;
                            CHECK_MSG(same, "C differs from the automatic "
                                      "variant's");
                            ++cases;
                            identical += same;
                            continue;
                        }
                        CHECK_MSG(st == DUO_ERROR_INVALID_ARGUMENT,
                                  "refused with %s", duo_status_string(st));
                        CHECK_CONTAINS_WORD(duo_last_error(), "DUO_CPU_GEMM");
                        CHECK_MSG(memcmp(got, h0, bytes) == 0,
                                  "C written by a refused product");
                    }
                    CHECK_OK(duo_free(da));
                    CHECK_OK(duo_free(db));
                    CHECK_OK(duo_free(dc));
                    free(ha);
                    free(hb);
                    free(h0);
                    free(want);
                    free(got);
                }
    test_set_context("%s DUO_CPU_GEMM variants taken", fname(es));
    CHECK_MSG(taken[0] || taken[1], "neither avx2 nor avx512 was taken");
#ifdef CPU_GEMM_TWO_VARIANTS
    CHECK_MSG(taken[0], "avx2 refused in a build for AVX2");
    const int listed = cpuinfo_has_avx512();
    if (listed >= 0)
        CHECK_MSG(taken[1] == listed, "avx512 %s, but /proc/cpuinfo %s it",
                  taken[1] ? "taken" : "refused",
                  listed ? "lists" : "does not list");
#endif

    /* Values that name no variant, with a product and with k = 0 (which
     * only scales C): refused, C untouched. */
    const size_t cnt = 64;
    void *hbuf = random_matrix(es, 1, cnt, cnt);
    void *d = dev_copy(hbuf, cnt * es);
    void *hc = test_xmalloc(cnt * es);
    memset(hc, 0xFF, cnt * es);
    void *dc = dev_copy(hc, cnt * es);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i)
        for (size_t k = 0; k <= 4; k += 4) {
            setenv("DUO_CPU_GEMM", bad[i], 1);
            test_set_context("%s DUO_CPU_GEMM=\"%s\" k=%zu", fname(es),
                             bad[i], k);
            CHECK_STATUS(gemm(es, DUO_NO_TRANS, DUO_TRANS, 4, 4, k, 1.0, d,
                              4, d, 4, 0.5, dc, 4),
                         DUO_ERROR_INVALID_ARGUMENT);
            CHECK_CONTAINS_WORD(duo_last_error(), "DUO_CPU_GEMM");
            test_to_host(hc, dc, cnt * es);
            size_t touched = 0;
            for (size_t j = 0; j < cnt; ++j)
                touched += !is_poison(hc, es, j);
            CHECK_MSG(touched == 0, "C written (%zu elements)", touched);
        }
    if (outer != NULL)
        setenv("DUO_CPU_GEMM", outer, 1);
    else
        unsetenv("DUO_CPU_GEMM");
    free(outer);
    CHECK_OK(duo_free(d));
    CHECK_OK(duo_free(dc));
    free(hbuf);
    free(hc);
    printf("%s CPU variants:%s%s: %ld of %ld cases bit-identical to the "
           "automatic choice\n", fname(es), taken[0] ? " avx2" : "",
           taken[1] ? " avx512" : "", identical, cases);
    test_set_context("%s", "");
}

int main(int argc, char **argv)
{
    test_rng_seed(&rng, 0x67656D6DULL);
    test_init_or_skip();
    if (argc > 1 && strcmp(argv[1], "--fill-device") == 0) {
        test_gemm_deliberate_oom();
        CHECK_OK(duo_finalize());
        return test_summary("gemm --fill-device");
    }
    for (size_t es = 4; es <= 8; es += 4) {
        test_errors(es);
        test_special(es);
        test_shapes(es);
        test_order(es);
        test_order_underflow(es);
        test_order_large(es);
        test_tile_shapes(es);
        test_cpu_variants(es);
    }
    test_split_products();
    test_packed_products();
    printf("gemm: %ld cases checked elementwise; largest error / bound "
           "%.3Lg\n", checked_cases, worst_ratio);
    CHECK_OK(duo_finalize());
    return test_summary("gemm");
}
