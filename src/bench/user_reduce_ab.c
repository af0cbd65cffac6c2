/*
 * user_reduce_ab.c - duo-bench-user-reduce: user reductions
 * (DUO_REDUCE_DEFINE, in duo_reduce's fixed order) timed against the
 * previous DUO_REDUCE_DEFINE, reproduced below (PREV_REDUCE_DEFINE), on
 * the same element functions and device data in one process:
 *
 *   build/<backend>/bin/duo-bench-user-reduce [--quick]
 *
 * The previous version: on the CPU, at most 512 parts of at least 2048
 * indices handed out on demand, each reduced in index order, the parts
 * combined in order; on the GPU, one wave of blocks over a grid-stride
 * loop, a second one-block kernel over the partials, and a copy of the
 * value to the host; sums in T.  The current one has the bits of
 * duo_reduce on every backend (duo/kernel.h).
 *
 * Cases: memory-bound (a dot product of doubles, a float sum of squares,
 * a float max), compute-bound (an integer hash count, a polynomial per
 * index) and one of varying cost (the largest prime by trial division).
 * Each row: the median of runs that alternate the two versions (ABBA)
 * until each has 5 runs and one has used 0.2 s (--quick: 3 and 0.05 s),
 * the ratio previous / current of the medians (above 1: faster now) and
 * of the fastest runs ("best": steadier on a shared machine), and a
 * check of the two results against each other (exact for integers and
 * max, within the error bound of the sum otherwise).  Exit status 1 if a
 * check fails.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <duo.h>

/* ------------------------------------------------------------------ */
/* The previous DUO_REDUCE_DEFINE                                      */

/* CPU builds and a CUDA build's host path: parts of at least 2048
 * indices, at most 512 of them, on demand; in order within and across
 * parts. */
#define PREV_PARTS 512
#define PREV_MIN_PART 2048
#ifdef _OPENMP
#define PREV_PRAGMA_DYNAMIC _Pragma("omp parallel for schedule(dynamic)")
#else
#define PREV_PRAGMA_DYNAMIC
#endif

#define PREV_HOST_REDUCE(name, T, OP, IDENTITY, fn, Args)                    \
    static duo_status name##_prev_host(size_t n, Args args, T *result)       \
    {                                                                        \
        if (!duo_host_result_begin(#name, __FILE__, __LINE__))              \
            return duo_launch_refused();                                     \
        size_t part = (n + PREV_PARTS - 1) / PREV_PARTS;                     \
        part = part < PREV_MIN_PART ? PREV_MIN_PART : part;                  \
        const size_t nparts = (n + part - 1) / part;                         \
        T parts[PREV_PARTS];                                                 \
        PREV_PRAGMA_DYNAMIC                                                  \
        for (size_t p = 0; p < nparts; ++p) {                                \
            const size_t end = (p + 1) * part < n ? (p + 1) * part : n;      \
            T acc = IDENTITY;                                                \
            for (size_t i = p * part; i < end; ++i) {                        \
                const T v = (T)(fn(i, args));                                \
                acc = OP(acc, v);                                            \
            }                                                                \
            parts[p] = acc;                                                  \
        }                                                                    \
        T acc = IDENTITY;                                                    \
        for (size_t p = 0; p < nparts; ++p)                                  \
            acc = OP(acc, parts[p]);                                         \
        *result = acc;                                                       \
        return duo_launch_end(#name, NULL, __FILE__, __LINE__);              \
    }

#if defined(__CUDACC__)
/* GPU: grid-stride partials, one wave at most (1024 blocks), then a
 * one-block kernel over them, then a copy to pinned host memory. */
#define PREV_THREADS 256

template <class T> struct prev_sum {
    __device__ static T identity() { return (T)0; }
    __device__ static T apply(T a, T b) { return a + b; }
};
template <class T> struct prev_max {
    __device__ static T identity() { return duo_cuda_limits<T>::lowest(); }
    __device__ static T apply(T a, T b) { return DUO_COMBINE_DUO_MAX(a, b); }
};

template <class Op, class T> __device__ T prev_block_reduce(T v)
{
    __shared__ T warp_sums[PREV_THREADS / 32];
    for (int offset = 16; offset > 0; offset >>= 1)
        v = Op::apply(v, __shfl_down_sync(0xffffffffu, v, offset));
    if ((threadIdx.x & 31) == 0)
        warp_sums[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < PREV_THREADS / 32 ? warp_sums[threadIdx.x]
                                            : Op::identity();
        for (int offset = 16; offset > 0; offset >>= 1)
            v = Op::apply(v, __shfl_down_sync(0xffffffffu, v, offset));
    }
    return v;
}

template <class Op, class T>
__global__ void prev_finish(const T *partials, unsigned count, T *out)
{
    T acc = Op::identity();
    for (unsigned p = threadIdx.x; p < count; p += blockDim.x)
        acc = Op::apply(acc, partials[p]);
    acc = prev_block_reduce<Op>(acc);
    if (threadIdx.x == 0)
        *out = acc;
}

static void *prev_scratch; /* 1025 partials of up to 8 bytes */
static void *prev_pinned;  /* the value on the host */
static int prev_sms;

static void prev_setup(void)
{
    if (prev_scratch == NULL &&
        (cudaMalloc(&prev_scratch, 1025 * 8) != cudaSuccess ||
         cudaMallocHost(&prev_pinned, 8) != cudaSuccess ||
         cudaDeviceGetAttribute(&prev_sms, cudaDevAttrMultiProcessorCount,
                                0) != cudaSuccess)) {
        fprintf(stderr, "duo-bench-user-reduce: CUDA setup failed\n");
        exit(1);
    }
}

static unsigned prev_grid(size_t n)
{
    const size_t wave = (size_t)prev_sms * (2048 / PREV_THREADS);
    const size_t cap = wave < 1024 ? wave : 1024;
    const size_t blocks = (n + PREV_THREADS - 1) / PREV_THREADS;
    return blocks == 0 ? 1 : (unsigned)(blocks < cap ? blocks : cap);
}

template <class Op, class T, class A>
duo_status prev_gpu(void (*kernel)(size_t, A, T *), size_t n, A args,
                    T *result, const char *name)
{
    if (!duo_host_result_begin(name, __FILE__, __LINE__))
        return duo_launch_refused();
    prev_setup();
    const unsigned grid = prev_grid(n);
    T *partials = (T *)prev_scratch;
    kernel<<<grid, PREV_THREADS>>>(n, args, partials);
    prev_finish<Op><<<1, PREV_THREADS>>>(partials, grid, partials + grid);
    duo_status status = DUO_SUCCESS;
    if (cudaMemcpy(prev_pinned, partials + grid, sizeof(T),
                   cudaMemcpyDeviceToHost) != cudaSuccess)
        status = DUO_ERROR_BACKEND;
    memcpy(result, prev_pinned, sizeof(T));
    const duo_status end = duo_launch_end(name, NULL, __FILE__, __LINE__);
    return status != DUO_SUCCESS ? status : end;
}

#define PREV_REDUCE_DEFINE(name, T, opname, fn, Args, OPC, IDENTITY)        \
    __global__ void __launch_bounds__(PREV_THREADS)                         \
        name##_prev_partials(size_t n, Args args, T *partials)              \
    {                                                                       \
        T acc = prev_##opname<T>::identity();                               \
        for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;      \
             i < n; i += (size_t)gridDim.x * blockDim.x)                    \
            acc = prev_##opname<T>::apply(acc, (T)(fn(i, args)));           \
        acc = prev_block_reduce<prev_##opname<T> >(acc);                    \
        if (threadIdx.x == 0)                                               \
            partials[blockIdx.x] = acc;                                     \
    }                                                                       \
    PREV_HOST_REDUCE(name, T, OPC, IDENTITY, fn, Args)                      \
    static duo_status name(size_t n, Args args, T *result)                  \
    {                                                                       \
        if (duo_host_path())                                                \
            return name##_prev_host(n, args, result);                       \
        return prev_gpu<prev_##opname<T> >(name##_prev_partials, n, args,   \
                                           result, #name);                  \
    }
#else
#define PREV_REDUCE_DEFINE(name, T, opname, fn, Args, OPC, IDENTITY)        \
    PREV_HOST_REDUCE(name, T, OPC, IDENTITY, fn, Args)                      \
    static duo_status name(size_t n, Args args, T *result)                  \
    {                                                                       \
        return name##_prev_host(n, args, result);                           \
    }
#endif

#define PREV_SUM(a, b) ((a) + (b))
#if defined(__CUDACC__)
/* A function, as the previous host path had: DUO_COMBINE_DUO_MAX on an
 * integer variable draws g++'s self-comparison warning. */
template <class T> static inline T prev_host_max(T a, T b)
{
    return DUO_COMBINE_DUO_MAX(a, b);
}
#define PREV_MAX prev_host_max
#else
#define PREV_MAX(a, b) DUO_COMBINE_DUO_MAX(a, b)
#endif

/* ------------------------------------------------------------------ */
/* Element functions, and each defined both ways                       */

typedef struct vec2 {
    const double *x, *y;
} vec2;
typedef struct vecf {
    const float *x;
} vecf;
typedef struct seeded {
    uint64_t seed;
} seeded;

DUO_DEVICE double dot_elem(size_t i, vec2 a) { return a.x[i] * a.y[i]; }
DUO_DEVICE float square_elem(size_t i, vecf a) { return a.x[i] * a.x[i]; }
DUO_DEVICE float value_elem(size_t i, vecf a) { return a.x[i]; }

/* 1 where a 64-bit hash of i falls below a quarter of its range. */
DUO_DEVICE int64_t hash_hit(size_t i, seeded a)
{
    uint64_t z = a.seed + (uint64_t)i * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return z < 0x4000000000000000ull ? 1 : 0;
}

/* A degree-31 polynomial at t = i / 2^24, by explicit fma (one rounding
 * per step on every backend). */
DUO_DEVICE double poly_elem(size_t i, seeded a)
{
    const double t = (double)i * 0x1p-24;
    double p = (double)(a.seed & 7) + 1.0;
    for (int k = 0; k < 31; ++k)
        p = fma(p, t, 0.5 - 0.015625 * k);
    return p;
}

/* Trial division, as duo-primes. */
DUO_DEVICE int64_t prime_or_zero(size_t i, seeded a)
{
    (void)a;
    const uint32_t n = (uint32_t)i;
    if (n < 4)
        return n >= 2 ? (int64_t)n : 0;
    if (n % 2 == 0 || n % 3 == 0)
        return 0;
    for (uint32_t d = 5; (uint64_t)d * d <= n; d += 6)
        if (n % d == 0 || n % (d + 2) == 0)
            return 0;
    return (int64_t)n;
}

#if defined(__CUDACC__)
#define MAX_IDENT(T) duo_cuda_limits<T>::lowest()
#else
#define MAX_IDENT(T) DUO_IDENTITY_DUO_MAX(T)
#endif

DUO_REDUCE_DEFINE(now_dot, double, DUO_SUM, dot_elem, vec2)
DUO_REDUCE_DEFINE(now_square, float, DUO_SUM, square_elem, vecf)
DUO_REDUCE_DEFINE(now_max, float, DUO_MAX, value_elem, vecf)
DUO_REDUCE_DEFINE(now_hash, int64_t, DUO_SUM, hash_hit, seeded)
DUO_REDUCE_DEFINE(now_poly, double, DUO_SUM, poly_elem, seeded)
DUO_REDUCE_DEFINE(now_prime, int64_t, DUO_MAX, prime_or_zero, seeded)

PREV_REDUCE_DEFINE(prev_dot, double, sum, dot_elem, vec2, PREV_SUM, 0.0)
PREV_REDUCE_DEFINE(prev_square, float, sum, square_elem, vecf, PREV_SUM,
                   0.0f)
PREV_REDUCE_DEFINE(prev_max_f, float, max, value_elem, vecf, PREV_MAX,
                   MAX_IDENT(float))
PREV_REDUCE_DEFINE(prev_hash, int64_t, sum, hash_hit, seeded, PREV_SUM,
                   (int64_t)0)
PREV_REDUCE_DEFINE(prev_poly, double, sum, poly_elem, seeded, PREV_SUM, 0.0)
PREV_REDUCE_DEFINE(prev_prime, int64_t, max, prime_or_zero, seeded,
                   PREV_MAX, MAX_IDENT(int64_t))

/* ------------------------------------------------------------------ */
/* Timing                                                              */

enum { CASE_DOT, CASE_SQUARE, CASE_MAX, CASE_HASH, CASE_POLY, CASE_PRIME };

typedef struct run_ctx {
    int which;
    size_t n;
    vec2 v2;
    vecf vf;
    seeded sd;
    double value; /* the last result, as a double */
} run_ctx;

static void run(run_ctx *c, int prev)
{
    double d = 0.0;
    float f = 0.0f;
    int64_t k = 0;
    duo_status st = DUO_SUCCESS;
    switch (c->which) {
    case CASE_DOT:
        st = prev ? prev_dot(c->n, c->v2, &d) : now_dot(c->n, c->v2, &d);
        c->value = d;
        break;
    case CASE_SQUARE:
        st = prev ? prev_square(c->n, c->vf, &f) : now_square(c->n, c->vf, &f);
        c->value = f;
        break;
    case CASE_MAX:
        st = prev ? prev_max_f(c->n, c->vf, &f) : now_max(c->n, c->vf, &f);
        c->value = f;
        break;
    case CASE_HASH:
        st = prev ? prev_hash(c->n, c->sd, &k) : now_hash(c->n, c->sd, &k);
        c->value = (double)k;
        break;
    case CASE_POLY:
        st = prev ? prev_poly(c->n, c->sd, &d) : now_poly(c->n, c->sd, &d);
        c->value = d;
        break;
    default:
        st = prev ? prev_prime(c->n, c->sd, &k) : now_prime(c->n, c->sd, &k);
        c->value = (double)k;
        break;
    }
    DUO_CHECK(st);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static double time_run(run_ctx *c, int prev)
{
    const double t0 = now_ms();
    run(c, prev);
    return now_ms() - t0;
}

static int compare_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

DUO_KERNEL(fill_kernel, size_t n, uint64_t seed, double *x, double *y,
           float *f)
{
    DUO_FOR(i, n) {
        uint64_t z = seed + (uint64_t)i * 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9ull;
        z ^= z >> 29;
        const double u = (double)(z >> 11) * 0x1p-53 - 0.5; /* [-0.5, 0.5) */
        x[i] = u;
        y[i] = 1.0 - u;
        f[i] = (float)u;
    }
}

int main(int argc, char **argv)
{
    int quick = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else {
            fprintf(stderr, "usage: duo-bench-user-reduce [--quick]\n");
            return 2;
        }
    }
    DUO_CHECK(duo_init());
    duo_device_info info;
    DUO_CHECK(duo_device_info_get(&info));
    printf("duo-bench-user-reduce: %s (%s), %d CPU thread(s)\n",
           duo_backend_name(), info.name, info.cpu_threads);

    const size_t max_n = (size_t)1 << 24;
    double *x, *y;
    float *f;
    DUO_CHECK(duo_malloc((void **)&x, max_n * sizeof(double)));
    DUO_CHECK(duo_malloc((void **)&y, max_n * sizeof(double)));
    DUO_CHECK(duo_malloc((void **)&f, max_n * sizeof(float)));
    DUO_CHECK(DUO_LAUNCH(fill_kernel, max_n, max_n, 12345, x, y, f));

    static const char *const names[] = {"dot f64", "sum x*x f32", "max f32",
                                        "hash count i64", "poly31 f64",
                                        "largest prime i64"};
    static const size_t mem_sizes[] = {(size_t)1 << 10, (size_t)1 << 16,
                                       (size_t)1 << 20, (size_t)1 << 24};
    static const size_t poly_sizes[] = {(size_t)1 << 10, (size_t)1 << 16,
                                        (size_t)1 << 20, (size_t)1 << 22};
    static const size_t prime_sizes[] = {100000, 1000000};
    const size_t min_reps = quick ? 3 : 5, max_reps = quick ? 10 : 50;
    const double budget = quick ? 50.0 : 200.0;
    int failed = 0;

    printf("%-18s %10s %12s %12s %8s %12s %12s %8s  %s\n", "case", "n",
           "previous ms", "current ms", "prev/cur", "prev best", "cur best",
           "best", "check");
    for (int which = CASE_DOT; which <= CASE_PRIME; ++which) {
        const size_t *sizes = which == CASE_PRIME  ? prime_sizes
                              : which == CASE_POLY ? poly_sizes
                                                   : mem_sizes;
        const size_t count = which == CASE_PRIME ? 2 : 4;
        for (size_t s = 0; s < count; ++s) {
            run_ctx c;
            memset(&c, 0, sizeof c);
            c.which = which;
            c.n = sizes[s];
            c.v2.x = x;
            c.v2.y = y;
            c.vf.x = f;
            c.sd.seed = 0x5EED;
            run(&c, 1);
            const double prev_value = c.value;
            run(&c, 0);
            const double now_value = c.value;
            /* Sums: two orders agree within 2 n u sum|term|, which is at
             * most 2 n^2 u max|term| (terms below 1 here, below about 64
             * for the polynomial), u the unit roundoff of the previous
             * accumulator (float for the float sum of squares, which now
             * accumulates in double). */
            const double u = which == CASE_SQUARE ? 0x1p-24 : 0x1p-53;
            const double term = which == CASE_POLY ? 64.0 : 1.0;
            const int is_sum = which == CASE_DOT || which == CASE_SQUARE ||
                               which == CASE_POLY;
            const double tol =
                is_sum ? 2.0 * (double)c.n * (double)c.n * u * term : 0.0;
            const int ok = fabs(now_value - prev_value) <= tol;
            failed += !ok;
            double prev_ms[64], now_ms_[64], prev_total = 0, now_total = 0;
            size_t reps = 0;
            while (reps < max_reps) {
                if (reps % 2 == 0) {
                    prev_ms[reps] = time_run(&c, 1);
                    now_ms_[reps] = time_run(&c, 0);
                } else {
                    now_ms_[reps] = time_run(&c, 0);
                    prev_ms[reps] = time_run(&c, 1);
                }
                prev_total += prev_ms[reps];
                now_total += now_ms_[reps];
                ++reps;
                if (reps >= min_reps &&
                    (prev_total >= budget || now_total >= budget))
                    break;
            }
            const double p = median(prev_ms, reps), q = median(now_ms_, reps);
            /* median() sorted both: [0] is the fastest run. */
            printf("%-18s %10zu %12.4f %12.4f %8.3f %12.4f %12.4f %8.3f  %s "
                   "(%.17g vs %.17g)\n", names[which], c.n, p, q, p / q,
                   prev_ms[0], now_ms_[0], prev_ms[0] / now_ms_[0],
                   ok ? "ok" : "FAILED", now_value, prev_value);
            fflush(stdout);
        }
    }
    DUO_CHECK(duo_free(x));
    DUO_CHECK(duo_free(y));
    DUO_CHECK(duo_free(f));
    DUO_CHECK(duo_finalize());
    return failed ? 1 : 0;
}
