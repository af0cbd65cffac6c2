/*
 * validate_ops.c - the checks of duo's own operations under DUO_VALIDATE
 * (validate.h): duo_reduce, duo_reduce_arg, duo_reduce_async,
 * duo_dot_async, duo_gemm_f32/f64 and users' reductions
 * (DUO_REDUCE_DEFINE, kernel_validate.h).  Each runs as usual, then once
 * more as the reference -- on the GPU the host path over host copies of
 * its inputs, on the host with one thread -- and the two results are
 * compared.  The inputs are the memory as it was before the operation
 * (gemm's C is copied first), so a difference is the operation's own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend.h"
#include "registry.h"
#include "validate.h"

#if defined(DUO_TWO_PATHS)
/* The host path of a CUDA build (src/dispatch/): the GPU's reference. */
duo_status duo_host_be_reduce(duo_reduce_op op, duo_dtype type,
                              const void *x, size_t n, void *result);
duo_status duo_host_be_reduce_arg(duo_reduce_op op, duo_dtype type,
                                  const void *x, size_t n, size_t *index,
                                  void *value);
duo_status duo_host_be_reduce_async(duo_reduce_op op, duo_dtype type,
                                    const void *x, size_t n, void *result,
                                    duo_stream stream);
duo_status duo_host_be_dot_async(duo_dtype type, size_t n, int count,
                                 const void *const *x, const void *const *y,
                                 double *result, duo_stream stream);
duo_status duo_host_be_gemm_f32(duo_transpose ta, duo_transpose tb,
                                size_t m, size_t n, size_t k, float alpha,
                                const float *a, size_t lda, const float *b,
                                size_t ldb, float beta, float *c,
                                size_t ldc);
duo_status duo_host_be_gemm_f64(duo_transpose ta, duo_transpose tb,
                                size_t m, size_t n, size_t k, double alpha,
                                const double *a, size_t lda, const double *b,
                                size_t ldb, double beta, double *c,
                                size_t ldc);
#endif

static uint64_t numbers[3]; /* calls so far: reductions, dots, gemms */

/* " at file:line" of the caller (duo/call_site.h), or "" where the call
 * came through a pointer. */
static const char *call_site(char *buf, size_t size)
{
    int line = 0;
    const char *file = duo_call_site(&line);
    if (file == NULL)
        return "";
    snprintf(buf, size, " at %s:%d", file, line);
    return buf;
}

static int kind_of(duo_dtype type)
{
    switch (type) {
    case DUO_F32: return DUO_VD_F32;
    case DUO_F64: return DUO_VD_F64;
    case DUO_I32: return DUO_VD_I32;
    case DUO_I64: return DUO_VD_I64;
    case DUO_U64: return DUO_VD_U64;
    }
    return DUO_VD_BYTES;
}

static const char *const op_names[3] = {"sum", "min", "max"};

/* ---- the reference run's surroundings ------------------------------ */

#ifdef _OPENMP
static int saved_threads;
#endif

static void reference_begin(void)
{
#ifdef _OPENMP
    if (!duo_vd_gpu()) {
        saved_threads = omp_get_max_threads();
        omp_set_num_threads(1);
    }
#endif
}

static void reference_end(void)
{
#ifdef _OPENMP
    if (!duo_vd_gpu())
        omp_set_num_threads(saved_threads);
#endif
}

/* The host copies of an operation's inputs and results, one slot each
 * (a dot's x and y of each product; gemm's a, b, c and its result), kept
 * from call to call like the launch checks' buffers: pinned on the GPU
 * where they can be, freed at duo_finalize.  Pageable memory allocated
 * per call copied at a few GB/s, and a validated duo-cg spent most of
 * its time there. */
enum { SLOTS = 2 * DUO_DOT_MAX };
_Static_assert(SLOTS >= 4, "gemm's check takes four slots");
static struct {
    unsigned char *buf;
    size_t cap;
    int pinned;
} slots[SLOTS];

void duo_vd_ops_free(void)
{
    for (int k = 0; k < SLOTS; ++k)
        duo_vd_buffer_free(&slots[k].buf, &slots[k].cap, &slots[k].pinned);
}

/* Slot k, holding at least `bytes` (NULL, with the reason counted as a
 * skip, where there is no memory for it). */
static void *slot(int k, size_t bytes)
{
    if (!duo_vd_buffer_reserve(&slots[k].buf, &slots[k].cap,
                               &slots[k].pinned, bytes)) {
        duo_vd_count_skipped("no host memory for the check");
        return NULL;
    }
    return slots[k].buf;
}

/* A host copy of `bytes` of device memory at p, in slot k (NULL, with
 * the reason counted as a skip, where p is not inside one duo
 * allocation or the copy fails). */
static void *host_copy(int k, const void *p, size_t bytes)
{
    duo_alloc_view v;
    if (!duo_registry_find(p, &v) ||
        (const char *)p + bytes > (const char *)v.base + v.bytes) {
        duo_vd_count_skipped("an input is not memory from duo_malloc");
        return NULL;
    }
    void *h = slot(k, bytes);
    if (h == NULL)
        return NULL;
    const double t0 = duo_vd_now();
    const int ok = bytes == 0 || duo_be_memcpy(h, p, bytes,
                                              DUO_DEVICE_TO_HOST) ==
                                     DUO_SUCCESS;
    duo_vd_add_copy_seconds(duo_vd_now() - t0);
    if (!ok) {
        duo_vd_count_skipped("copying its inputs failed");
        return NULL;
    }
    return h;
}

/* Compare n elements of the run checked (a) and the reference (b);
 * report a difference as `what`. */
static void compare(const char *what, const char *array, int kind,
                    const void *a, const void *b, size_t n)
{
    duo_vd_diff d;
    duo_vd_compare(kind, a, b, n, &d);
    duo_vd_count_checked(n * duo_vd_elem_size(kind));
    if (d.count == 0)
        return;
    char va[96], vb[96], details[1024];
    duo_vd_format(kind, a, (size_t)d.first, va, sizeof va);
    duo_vd_format(kind, b, (size_t)d.first, vb, sizeof vb);
    int at = snprintf(details, sizeof details,
                      "  array: %s (%s, %zu element(s))\n"
                      "  first difference at [%llu]: %s %s, %s %s",
                      array, duo_vd_kind_name(kind), n,
                      (unsigned long long)d.first,
                      duo_vd_gpu() ? "GPU" : "all threads", va,
                      duo_vd_gpu() ? "host" : "one thread", vb);
    if ((kind == DUO_VD_F32 || kind == DUO_VD_F64) &&
        d.first_ulps != UINT64_MAX)
        at += snprintf(details + at, sizeof details - (size_t)at,
                       ", %llu ulp(s) apart (largest %llu)",
                       (unsigned long long)d.first_ulps,
                       (unsigned long long)d.max_ulps);
    snprintf(details + at, sizeof details - (size_t)at,
             "\n  %llu of %zu element(s) differ\n",
             (unsigned long long)d.count, n);
    duo_vd_report(what, details);
}

/* ---- reductions ---------------------------------------------------- */

duo_status duo_vd_reduce(duo_reduce_op op, duo_dtype type, const void *x,
                         size_t n, void *result)
{
    const double t0 = duo_vd_now();
    duo_status status = duo_be_reduce(op, type, x, n, result);
    if (status != DUO_SUCCESS)
        return status;
    unsigned char ref[8];
    int ok = 1;
    reference_begin();
    if (duo_vd_gpu()) {
#if defined(DUO_TWO_PATHS)
        void *hx = host_copy(0, x, n * duo_dtype_size(type));
        ok = hx != NULL &&
             duo_host_be_reduce(op, type, hx, n, ref) == DUO_SUCCESS;
#endif
    } else {
        ok = duo_be_reduce(op, type, x, n, ref) == DUO_SUCCESS;
    }
    reference_end();
    char what[320], where[160];
    snprintf(what, sizeof what, "reduction #%llu, duo_reduce %s %s of %zu "
             "element(s)%s", (unsigned long long)++numbers[0], op_names[op],
             duo_vd_kind_name(kind_of(type)), n,
             call_site(where, sizeof where));
    if (ok)
        compare(what, "result", kind_of(type), result, ref, 1);
    duo_vd_add_seconds(duo_vd_now() - t0);
    return status;
}

duo_status duo_vd_reduce_arg(duo_reduce_op op, duo_dtype type,
                             const void *x, size_t n, size_t *index,
                             void *value)
{
    const double t0 = duo_vd_now();
    duo_status status = duo_be_reduce_arg(op, type, x, n, index, value);
    if (status != DUO_SUCCESS)
        return status;
    unsigned char ref[8];
    size_t ref_index = 0;
    int ok = 1;
    reference_begin();
    if (duo_vd_gpu()) {
#if defined(DUO_TWO_PATHS)
        void *hx = host_copy(0, x, n * duo_dtype_size(type));
        ok = hx != NULL && duo_host_be_reduce_arg(op, type, hx, n, &ref_index,
                                                  ref) == DUO_SUCCESS;
#endif
    } else {
        ok = duo_be_reduce_arg(op, type, x, n, &ref_index, ref) ==
             DUO_SUCCESS;
    }
    reference_end();
    char what[320], where[160];
    snprintf(what, sizeof what, "reduction #%llu, duo_reduce_arg %s %s of "
             "%zu element(s)%s", (unsigned long long)++numbers[0],
             op_names[op], duo_vd_kind_name(kind_of(type)), n,
             call_site(where, sizeof where));
    if (ok) {
        uint64_t a = *index, b = ref_index;
        compare(what, "index", DUO_VD_U64, &a, &b, 1);
        if (value != NULL)
            compare(what, "value", kind_of(type), value, ref, 1);
    }
    duo_vd_add_seconds(duo_vd_now() - t0);
    return status;
}

/* The real run wrote n_out bytes of device memory at `out`: fetch them
 * (GPU: after the queued work finishes; host: they are host memory). */
static int fetch_result(void *dst, const void *out, size_t bytes)
{
    if (!duo_vd_gpu()) {
        memcpy(dst, out, bytes);
        return 1;
    }
    if (duo_be_synchronize() != DUO_SUCCESS)
        return 0;
    const double t0 = duo_vd_now();
    const int ok = duo_be_memcpy(dst, out, bytes, DUO_DEVICE_TO_HOST) ==
                   DUO_SUCCESS;
    duo_vd_add_copy_seconds(duo_vd_now() - t0);
    return ok;
}

duo_status duo_vd_reduce_async(duo_reduce_op op, duo_dtype type,
                               const void *x, size_t n, void *result,
                               duo_stream stream)
{
    const double t0 = duo_vd_now();
    duo_status status = duo_be_reduce_async(op, type, x, n, result, stream);
    if (status != DUO_SUCCESS)
        return status;
    /* A sum of f32 is written as a double (duo.h). */
    const duo_dtype out_type = op == DUO_SUM && type == DUO_F32 ? DUO_F64
                                                                : type;
    const size_t size = duo_dtype_size(out_type);
    unsigned char got[8], ref[8];
    int ok = fetch_result(got, result, size);
    reference_begin();
    if (ok && duo_vd_gpu()) {
#if defined(DUO_TWO_PATHS)
        void *hx = host_copy(0, x, n * duo_dtype_size(type));
        ok = hx != NULL && duo_host_be_reduce_async(op, type, hx, n, ref,
                                                    NULL) == DUO_SUCCESS;
#endif
    } else if (ok) {
        ok = duo_be_reduce_async(op, type, x, n, result, stream) ==
             DUO_SUCCESS;
        memcpy(ref, result, size);
        memcpy(result, got, size);
    }
    reference_end();
    char what[320], where[160];
    snprintf(what, sizeof what, "reduction #%llu, duo_reduce_async %s %s "
             "of %zu element(s)%s", (unsigned long long)++numbers[0],
             op_names[op], duo_vd_kind_name(kind_of(type)), n,
             call_site(where, sizeof where));
    if (ok)
        compare(what, "result", kind_of(out_type), got, ref, 1);
    else
        duo_vd_count_skipped("copying its inputs or results failed");
    duo_vd_add_seconds(duo_vd_now() - t0);
    return status;
}

duo_status duo_vd_dot_async(duo_dtype type, size_t n, int count,
                            const void *const *x, const void *const *y,
                            double *result, duo_stream stream)
{
    const double t0 = duo_vd_now();
    duo_status status = duo_be_dot_async(type, n, count, x, y, result,
                                         stream);
    if (status != DUO_SUCCESS)
        return status;
    double got[DUO_DOT_MAX], ref[DUO_DOT_MAX];
    const size_t bytes = (size_t)count * sizeof(double);
    int ok = fetch_result(got, result, bytes);
    reference_begin();
    if (ok && duo_vd_gpu()) {
#if defined(DUO_TWO_PATHS)
        const void *hx[DUO_DOT_MAX] = {NULL}, *hy[DUO_DOT_MAX] = {NULL};
        const size_t in = n * duo_dtype_size(type);
        for (int k = 0; k < count && ok; ++k) {
            hx[k] = host_copy(2 * k, x[k], in);
            /* x.x (a norm) copies x once */
            hy[k] = hx[k] == NULL ? NULL
                    : y[k] == x[k] ? hx[k]
                                   : host_copy(2 * k + 1, y[k], in);
            ok = hy[k] != NULL;
        }
        ok = ok && duo_host_be_dot_async(type, n, count, hx, hy, ref,
                                         NULL) == DUO_SUCCESS;
#endif
    } else if (ok) {
        ok = duo_be_dot_async(type, n, count, x, y, result, stream) ==
             DUO_SUCCESS;
        memcpy(ref, result, bytes);
        memcpy(result, got, bytes);
    }
    reference_end();
    char what[320], where[160];
    snprintf(what, sizeof what, "dot #%llu, duo_dot_async %s, %d product(s) "
             "of %zu element(s)%s", (unsigned long long)++numbers[1],
             duo_vd_kind_name(kind_of(type)), count, n,
             call_site(where, sizeof where));
    if (ok)
        compare(what, "result", DUO_VD_F64, got, ref, (size_t)count);
    duo_vd_add_seconds(duo_vd_now() - t0);
    return status;
}

/* ---- user reductions (DUO_REDUCE_DEFINE) ---------------------------- */

static struct {
    double t0;
    const char *name, *file;
    int line;
} user;

static int skip_user(const char *reason)
{
    duo_vd_count_skipped(reason);
    return 0;
}

/* On the GPU: every 8-byte word of the arguments' bytes (args, n bytes)
 * that is an address in a duo device allocation is moved onto a host
 * copy of that allocation, in a slot of its own, so that the host path
 * reads what the GPU read (a reduction writes no memory, so the copies
 * taken after its run are its inputs).  What cannot be followed: a
 * device address duo did not allocate, more allocations than slots, or
 * an allocation that itself holds addresses in device memory (the host
 * path would follow them into the GPU's memory), counted as skipped.
 * 1 when the host path may run over the arguments. */
static int follow_pointers(unsigned char *args, size_t n)
{
    const void *bases[SLOTS];
    int used = 0;
    for (size_t at = 0; at + 8 <= n; at += 8) {
        const uint64_t w = duo_vd_word_at(args, at);
        duo_alloc_view v;
        const duo_vd_target t = duo_vd_word_target(w, &v);
        if (t == DUO_VD_TARGET_NONE)
            continue;
        if (t == DUO_VD_TARGET_FOREIGN_DEVICE)
            return skip_user("a user reduction's arguments hold a device "
                             "pointer duo did not allocate");
        if (v.kind != DUO_ALLOC_DEVICE)
            continue; /* pinned host memory: the host reads it as is */
        int k = 0;
        while (k < used && bases[k] != v.base)
            ++k;
        if (k == used) {
            if (used == SLOTS)
                return skip_user("a user reduction's arguments point into "
                                 "more allocations than the check holds");
            unsigned char *h = (unsigned char *)host_copy(k, v.base,
                                                          v.bytes);
            if (h == NULL)
                return 0; /* host_copy counted the skip */
            if (duo_vd_array_holds_device_pointer(h, v.bytes))
                return skip_user("a user reduction's arguments point to "
                                 "device pointers");
            bases[used++] = v.base;
        }
        const uint64_t moved = (uint64_t)(uintptr_t)(
            slots[k].buf + (w - (uint64_t)(uintptr_t)v.base));
        memcpy(args + at, &moved, sizeof moved);
    }
    return 1;
}

int duo_vd_user_reduce_begin(const char *name, const char *file, int line,
                             const void *args, void *host_args,
                             size_t args_bytes)
{
    user.t0 = duo_vd_now();
    user.name = name;
    user.file = file;
    user.line = line;
    memcpy(host_args, args, args_bytes);
    if (duo_vd_gpu() &&
        !follow_pointers((unsigned char *)host_args, args_bytes)) {
        duo_vd_add_seconds(duo_vd_now() - user.t0);
        return 0;
    }
    reference_begin();
    return 1;
}

void duo_vd_user_reduce_end(int kind, const void *got, const void *ref,
                            int ref_ok)
{
    reference_end();
    const char *slash = strrchr(user.file, '/');
    char what[320];
    snprintf(what, sizeof what, "reduction #%llu, user reduction %s at "
             "%s:%d", (unsigned long long)++numbers[0], user.name,
             slash ? slash + 1 : user.file, user.line);
    if (ref_ok)
        compare(what, "result", kind, got, ref, 1);
    else
        duo_vd_count_skipped("its reference run failed");
    duo_vd_add_seconds(duo_vd_now() - user.t0);
}

/* ---- gemm ---------------------------------------------------------- */

/* Bytes a rows x cols row-major operand with leading dimension ld spans
 * (transposed: cols x rows as stored). */
static size_t span(int transposed, size_t rows, size_t cols, size_t ld,
                   size_t size)
{
    size_t r = transposed ? cols : rows, c = transposed ? rows : cols;
    return r == 0 || c == 0 ? 0 : ((r - 1) * ld + c) * size;
}

typedef struct gemm_call {
    duo_dtype type;
    duo_transpose ta, tb;
    size_t m, n, k, lda, ldb, ldc;
    const void *alpha, *beta; /* float or double */
    const void *a, *b;
    void *c;
} gemm_call;

static duo_status run_gemm(const gemm_call *g, const void *a, const void *b,
                           void *c, int host)
{
#if defined(DUO_TWO_PATHS)
    if (host && g->type == DUO_F32)
        return duo_host_be_gemm_f32(g->ta, g->tb, g->m, g->n, g->k,
                                    *(const float *)g->alpha,
                                    (const float *)a, g->lda,
                                    (const float *)b, g->ldb,
                                    *(const float *)g->beta, (float *)c,
                                    g->ldc);
    if (host)
        return duo_host_be_gemm_f64(g->ta, g->tb, g->m, g->n, g->k,
                                    *(const double *)g->alpha,
                                    (const double *)a, g->lda,
                                    (const double *)b, g->ldb,
                                    *(const double *)g->beta, (double *)c,
                                    g->ldc);
#else
    (void)host;
#endif
    if (g->type == DUO_F32)
        return duo_be_gemm_f32(g->ta, g->tb, g->m, g->n, g->k,
                               *(const float *)g->alpha, (const float *)a,
                               g->lda, (const float *)b, g->ldb,
                               *(const float *)g->beta, (float *)c, g->ldc);
    return duo_be_gemm_f64(g->ta, g->tb, g->m, g->n, g->k,
                           *(const double *)g->alpha, (const double *)a,
                           g->lda, (const double *)b, g->ldb,
                           *(const double *)g->beta, (double *)c, g->ldc);
}

static duo_status gemm_checked(const gemm_call *g)
{
    const size_t size = duo_dtype_size(g->type);
    const size_t cbytes = span(0, g->m, g->n, g->ldc, size);
    const double t0 = duo_vd_now();
    /* C before the real run: the reference starts from it. */
    void *c0 = NULL, *ha = NULL, *hb = NULL;
    if (duo_vd_gpu()) {
        ha = host_copy(0, g->a, span(g->ta == DUO_TRANS, g->m, g->k, g->lda,
                                     size));
        hb = ha ? host_copy(1, g->b, span(g->tb == DUO_TRANS, g->k, g->n,
                                          g->ldb, size))
                : NULL;
        c0 = hb ? host_copy(2, g->c, cbytes) : NULL;
    } else {
        c0 = slot(2, cbytes);
        if (c0 != NULL)
            memcpy(c0, g->c, cbytes);
    }
    duo_status status = run_gemm(g, g->a, g->b, g->c, 0);
    if (status != DUO_SUCCESS || c0 == NULL)
        return status;
    void *got = slot(3, cbytes);
    if (got == NULL) {
        duo_vd_add_seconds(duo_vd_now() - t0);
        return status;
    }
    int ok = fetch_result(got, g->c, cbytes);
    reference_begin();
    if (ok && duo_vd_gpu()) {
        ok = run_gemm(g, ha, hb, c0, 1) == DUO_SUCCESS;
    } else if (ok) {
        memcpy(g->c, c0, cbytes);
        ok = run_gemm(g, g->a, g->b, g->c, 0) == DUO_SUCCESS;
        memcpy(c0, g->c, cbytes);
        memcpy(g->c, got, cbytes);
    }
    reference_end();
    char what[360], where[160];
    snprintf(what, sizeof what, "gemm #%llu, duo_gemm_%s %s%s %zu x %zu x "
             "%zu%s", (unsigned long long)++numbers[2],
             g->type == DUO_F32 ? "f32" : "f64",
             g->ta == DUO_TRANS ? "T" : "N", g->tb == DUO_TRANS ? "T" : "N",
             g->m, g->n, g->k, call_site(where, sizeof where));
    if (ok)
        compare(what, "c (row-major, ldc elements a row)", kind_of(g->type),
                got, c0, cbytes / size);
    else
        duo_vd_count_skipped("copying its inputs or results failed");
    duo_vd_add_seconds(duo_vd_now() - t0);
    return status;
}

duo_status duo_vd_gemm_f32(duo_transpose ta, duo_transpose tb, size_t m,
                           size_t n, size_t k, float alpha, const float *a,
                           size_t lda, const float *b, size_t ldb,
                           float beta, float *c, size_t ldc)
{
    gemm_call g = {DUO_F32, ta, tb, m, n, k, lda, ldb, ldc,
                   &alpha, &beta, a, b, c};
    return gemm_checked(&g);
}

duo_status duo_vd_gemm_f64(duo_transpose ta, duo_transpose tb, size_t m,
                           size_t n, size_t k, double alpha,
                           const double *a, size_t lda, const double *b,
                           size_t ldb, double beta, double *c, size_t ldc)
{
    gemm_call g = {DUO_F64, ta, tb, m, n, k, lda, ldb, ldc,
                   &alpha, &beta, a, b, c};
    return gemm_checked(&g);
}
