/*
 * dist_bench.c - duo-dist-bench: the distributed layer against the raw
 * library call a user would otherwise write, in the same run on the same
 * ranks (built with -DDUO_MPI=ON):
 *
 *   reduce   duo_dist_reduce of one f64 per rank (an 8-byte value)
 *            vs MPI_Allreduce of one double on host memory, and, in a
 *            CUDA build with NCCL, vs ncclAllReduce of one device double
 *            followed by its copy to the host (what a caller needs);
 *   large    duo_dist_reduce (sum) and duo_dist_reduce_arg (max) of
 *            2^20, 2^23 and 2^26 f64 per rank, duo_dist_dot and
 *            duo_dist_dots (2 pairs) of 2^20 and 2^23, and
 *            duo_dist_dot_async with a wait for its value: the chunked,
 *            reproducible results vs the local duo call plus one
 *            MPI_Allreduce (MAXLOC for the index), whose bits depend on
 *            the number of ranks;
 *   halo     duo_dist_halo_exchange of one row of W doubles each way vs
 *            MPI_Sendrecv of host rows (CPU) -- the halo path is printed.
 *
 * Each figure is the median over R repeats of the mean time of K calls,
 * after a warm-up, with a barrier before each timing; every repeat times
 * duo and the yardstick back to back (time_pair).  ratio = duo's time
 * over the yardstick's.  Rank 0 prints a Markdown table.
 *
 *   mpirun -np P build/<b>-mpi/bin/duo-dist-bench [--reps R] [--calls K]
 *          [--max-log2 L]
 *
 * --max-log2 L (default 26) leaves out the sizes above 2^L per rank
 * (2^26 f64 is 512 MiB per rank and array; the dots hold two or three).
 * Large sizes take fewer calls per repeat: K / 10 at 2^20, K / 80 at
 * 2^23, K / 200 at 2^26 (at least 1).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>
#ifdef DUO_HAVE_NCCL
#include <cuda_runtime.h>
#include <nccl.h>
#endif

#include <duo.h>
#include <duo/dist.h>

static int reps = 15, calls = 200, max_log2 = 26;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef void (*op_fn)(void *ctx);

/* Mean time of `calls` calls of fn in microseconds, the largest over the
 * ranks. */
static double timed_calls(op_fn fn, void *ctx)
{
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = now_s();
    for (int i = 0; i < calls; ++i)
        fn(ctx);
    double mine = (now_s() - t0) / calls * 1e6, worst = 0.0;
    MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

/* duo's op and the yardstick's, interleaved: every repeat times both,
 * one after the other (which goes first alternates), so that a change
 * in the machine's state between repeats (frequency, where the ranks
 * run, a neighbour's load) reaches both figures alike.  Each figure is
 * the median over the repeats, after a warm-up of both. */
static void time_pair(op_fn duo_fn, op_fn yard_fn, void *ctx,
                      double *duo_us, double *yard_us)
{
    double *t = (double *)malloc(2 * (size_t)reps * sizeof(double));
    if (t == NULL)
        duo_dist_abort("duo-dist-bench", "out of host memory");
    for (int i = 0; i < calls / 10 + 1; ++i) {
        duo_fn(ctx);
        yard_fn(ctx);
    }
    for (int r = 0; r < reps; ++r) {
        if (r % 2 == 0) {
            t[r] = timed_calls(duo_fn, ctx);
            t[reps + r] = timed_calls(yard_fn, ctx);
        } else {
            t[reps + r] = timed_calls(yard_fn, ctx);
            t[r] = timed_calls(duo_fn, ctx);
        }
    }
    qsort(t, (size_t)reps, sizeof(double), cmp_double);
    qsort(t + reps, (size_t)reps, sizeof(double), cmp_double);
    *duo_us = t[reps / 2];
    *yard_us = t[reps + reps / 2];
    free(t);
}

typedef struct bench {
    double *x;           /* device: this rank's elements */
    double *y, *z;       /* device: more arrays, for the dots */
    duo_dist_range range;
    double host_value, result;
    double *row_send, *row_recv; /* host rows for the halo yardstick */
    size_t cols;
    duo_dist_rows rows;
    double *field;       /* device: (count + 2) x cols */
    double *dev_dots;    /* device: 2 results of duo_dot_async */
#ifdef DUO_HAVE_NCCL
    ncclComm_t nccl;
    double *dev_in, *dev_out;
#endif
} bench;

static void dist_reduce_call(void *ctx)
{
    bench *b = (bench *)ctx;
    DUO_DIST_CHECK(duo_dist_reduce(DUO_SUM, DUO_F64, b->x, &b->range,
                                   &b->result));
}

static void mpi_reduce_op(void *ctx)
{
    bench *b = (bench *)ctx;
    MPI_Allreduce(&b->host_value, &b->result, 1, MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
}

/* The yardstick for a large array: each rank sums its piece with
 * duo_reduce, then one MPI_Allreduce (fast, but its bits depend on the
 * number of ranks). */
static void mpi_large_op(void *ctx)
{
    bench *b = (bench *)ctx;
    double local = 0.0;
    DUO_DIST_CHECK(duo_reduce(DUO_SUM, DUO_F64, b->x, b->range.count,
                              &local));
    MPI_Allreduce(&local, &b->result, 1, MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
}

static void dist_arg_call(void *ctx)
{
    bench *b = (bench *)ctx;
    size_t index = 0;
    DUO_DIST_CHECK(duo_dist_reduce_arg(DUO_MAX, DUO_F64, b->x, &b->range,
                                       &index, &b->result));
}

/* duo_reduce_arg on the piece, then MPI_MAXLOC over (value, index). */
static void mpi_arg_op(void *ctx)
{
    bench *b = (bench *)ctx;
    size_t index = 0;
    struct {
        double v;
        int i;
    } mine, all;
    DUO_DIST_CHECK(duo_reduce_arg(DUO_MAX, DUO_F64, b->x, b->range.count,
                                  &index, &mine.v));
    mine.i = (int)(b->range.begin + index);
    MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE_INT, MPI_MAXLOC,
                  MPI_COMM_WORLD);
    b->result = all.v;
}

static void dist_dot_call(void *ctx)
{
    bench *b = (bench *)ctx;
    DUO_DIST_CHECK(duo_dist_dot(DUO_F64, b->x, b->y, &b->range, &b->result));
}

/* duo_dot_async on the pieces, the copy to the host, one MPI_Allreduce
 * of `count` doubles. */
static void mpi_dots(bench *b, int count)
{
    const void *xs[2] = {b->x, b->y}, *ys[2] = {b->y, b->z};
    double local[2], global[2];
    DUO_DIST_CHECK(duo_dot_async(DUO_F64, b->range.count, count, xs, ys,
                                 b->dev_dots, NULL));
    DUO_DIST_CHECK(duo_memcpy(local, b->dev_dots,
                              (size_t)count * sizeof(double),
                              DUO_DEVICE_TO_HOST));
    MPI_Allreduce(local, global, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    b->result = global[0];
}

static void mpi_dot_op(void *ctx) { mpi_dots((bench *)ctx, 1); }
static void mpi_dots2_op(void *ctx) { mpi_dots((bench *)ctx, 2); }

/* The stream-ordered form into device memory, then the wait a caller
 * that needs the value on the host would make. */
static void dist_dot_async_call(void *ctx)
{
    bench *b = (bench *)ctx;
    DUO_DIST_CHECK(duo_dist_dot_async(DUO_F64, b->x, b->y, &b->range,
                                      b->dev_dots, NULL));
    DUO_DIST_CHECK(duo_stream_synchronize(NULL));
}

static void dist_dots2_call(void *ctx)
{
    bench *b = (bench *)ctx;
    const void *xs[2] = {b->x, b->y}, *ys[2] = {b->y, b->z};
    double out[2];
    DUO_DIST_CHECK(duo_dist_dots(DUO_F64, 2, xs, ys, &b->range, out));
    b->result = out[0];
}

#ifdef DUO_HAVE_NCCL
static void nccl_reduce_op(void *ctx)
{
    bench *b = (bench *)ctx;
    ncclAllReduce(b->dev_in, b->dev_out, 1, ncclDouble, ncclSum, b->nccl, 0);
    cudaMemcpy(&b->result, b->dev_out, sizeof(double),
               cudaMemcpyDeviceToHost);
}
#endif

static void duo_halo_op(void *ctx)
{
    bench *b = (bench *)ctx;
    DUO_DIST_CHECK(duo_dist_halo_exchange(DUO_F64, b->field, &b->rows));
}

static void mpi_halo_op(void *ctx)
{
    bench *b = (bench *)ctx;
    const int rank = duo_dist_rank(), size = duo_dist_size();
    const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    const int down = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    const int n = (int)b->cols;
    MPI_Sendrecv(b->row_send, n, MPI_DOUBLE, up, 1, b->row_recv + n, n,
                 MPI_DOUBLE, down, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(b->row_send + n, n, MPI_DOUBLE, down, 2, b->row_recv, n,
                 MPI_DOUBLE, up, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void row(const char *what, double duo_us, const char *yard,
                double yard_us)
{
    if (duo_dist_rank() != 0)
        return;
    if (yard_us > 0)
        printf("| %s | %.2f | %s | %.2f | %.3f |\n", what, duo_us, yard,
               yard_us, duo_us / yard_us);
    else
        printf("| %s | %.2f | %s | - | - |\n", what, duo_us, yard);
    fflush(stdout);
}

/* Device array of n doubles, distinct values on every rank. */
static double *device_array(size_t n, int rank, int which)
{
    double *h = (double *)malloc(n * sizeof(double)), *d = NULL;
    if (h == NULL)
        duo_dist_abort("duo-dist-bench", "out of host memory");
    for (size_t i = 0; i < n; ++i)
        h[i] = 1.0 / (double)(i + 1 + (size_t)rank) + which;
    DUO_DIST_CHECK(duo_malloc((void **)&d, n * sizeof(double)));
    DUO_DIST_CHECK(duo_memcpy(d, h, n * sizeof(double), DUO_HOST_TO_DEVICE));
    free(h);
    return d;
}

/* The rows of 2^lg doubles per rank. */
static void large(bench *b, int lg)
{
    const int rank = duo_dist_rank(), size = duo_dist_size();
    const size_t n_local = (size_t)1 << lg;
    const int dots = lg <= 23; /* three arrays of 2^26 would not fit */
    b->x = device_array(n_local, rank, 0);
    b->y = dots ? device_array(n_local, rank, 1) : NULL;
    b->z = dots ? device_array(n_local, rank, 2) : NULL;
    DUO_DIST_CHECK(duo_dist_block_1d(n_local * (size_t)size, size, rank,
                                     &b->range));
    const int saved = calls;
    const int div = lg == 20 ? 10 : lg == 23 ? 80 : 200;
    calls = calls / div > 0 ? calls / div : 1;
    char what[96];
    double t1, t2;
    time_pair(dist_reduce_call, mpi_large_op, b, &t1, &t2);
    snprintf(what, sizeof what, "duo_dist_reduce sum f64, 2^%d per rank", lg);
    row(what, t1, "duo_reduce + MPI_Allreduce (rank-count dependent bits)",
        t2);
    time_pair(dist_arg_call, mpi_arg_op, b, &t1, &t2);
    snprintf(what, sizeof what, "duo_dist_reduce_arg max f64, 2^%d per rank",
             lg);
    row(what, t1, "duo_reduce_arg + MPI_Allreduce MAXLOC", t2);
    if (dots) {
        time_pair(dist_dot_call, mpi_dot_op, b, &t1, &t2);
        snprintf(what, sizeof what, "duo_dist_dot f64, 2^%d per rank", lg);
        row(what, t1,
            "duo_dot_async + copy + MPI_Allreduce (rank-count dependent bits)",
            t2);
        time_pair(dist_dot_async_call, mpi_dot_op, b, &t1, &t2);
        snprintf(what, sizeof what,
                 "duo_dist_dot_async f64 + wait, 2^%d per rank", lg);
        row(what, t1,
            "duo_dot_async + copy + MPI_Allreduce (rank-count dependent bits)",
            t2);
        time_pair(dist_dots2_call, mpi_dots2_op, b, &t1, &t2);
        snprintf(what, sizeof what, "duo_dist_dots f64 x2, 2^%d per rank",
                 lg);
        row(what, t1,
            "duo_dot_async x2 + copy + MPI_Allreduce (rank-count dependent "
            "bits)", t2);
        DUO_DIST_CHECK(duo_free(b->y));
        DUO_DIST_CHECK(duo_free(b->z));
    }
    calls = saved;
    DUO_DIST_CHECK(duo_free(b->x));
    b->x = b->y = b->z = NULL;
}

int main(int argc, char **argv)
{
    DUO_DIST_CHECK(duo_dist_init(&argc, &argv));
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--calls") == 0 && i + 1 < argc)
            calls = atoi(argv[++i]);
        else if (strcmp(argv[i], "--max-log2") == 0 && i + 1 < argc)
            max_log2 = atoi(argv[++i]);
        else
            duo_dist_abort("duo-dist-bench", "unknown argument '%s'; use "
                           "--reps R --calls K --max-log2 L", argv[i]);
    }
    if (reps < 1 || calls < 1)
        duo_dist_abort("duo-dist-bench", "--reps and --calls must be >= 1");
    const int rank = duo_dist_rank(), size = duo_dist_size();
    bench b;
    memset(&b, 0, sizeof b);
    if (rank == 0) {
        duo_device_info info;
        DUO_DIST_CHECK(duo_device_info_get(&info));
        printf("duo-dist-bench: %d ranks, backend %s (%s), halo path %s, "
               "median of %d interleaved repeats of %d calls\n\n", size,
               duo_backend_name(), info.name, duo_dist_halo_path(), reps,
               calls);
        printf("| measurement | duo us | yardstick | yardstick us | "
               "ratio |\n|---|---|---|---|---|\n");
    }

    /* One 8-byte value per rank. */
    b.host_value = 1.0 + rank;
    DUO_DIST_CHECK(duo_malloc((void **)&b.x, sizeof(double)));
    DUO_DIST_CHECK(duo_memcpy(b.x, &b.host_value, sizeof(double),
                              DUO_HOST_TO_DEVICE));
    DUO_DIST_CHECK(duo_dist_block_1d((size_t)size, size, rank, &b.range));
    double t_duo, t_mpi;
    time_pair(dist_reduce_call, mpi_reduce_op, &b, &t_duo, &t_mpi);
    row("duo_dist_reduce sum f64, 1 value per rank", t_duo,
        "MPI_Allreduce (host double)", t_mpi);
#ifdef DUO_HAVE_NCCL
    {
        ncclUniqueId id;
        if (rank == 0)
            ncclGetUniqueId(&id);
        MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
        if (ncclCommInitRank(&b.nccl, size, id, rank) != ncclSuccess)
            duo_dist_abort("duo-dist-bench", "ncclCommInitRank failed");
        cudaMalloc((void **)&b.dev_in, sizeof(double));
        cudaMalloc((void **)&b.dev_out, sizeof(double));
        cudaMemcpy(b.dev_in, &b.host_value, sizeof(double),
                   cudaMemcpyHostToDevice);
        double t_dev, t_nccl;
        time_pair(dist_reduce_call, nccl_reduce_op, &b, &t_dev, &t_nccl);
        row("duo_dist_reduce sum f64, 1 value per rank", t_dev,
            "ncclAllReduce + copy to host", t_nccl);
        cudaFree(b.dev_in);
        cudaFree(b.dev_out);
        ncclCommDestroy(b.nccl);
    }
#endif
    DUO_DIST_CHECK(duo_free(b.x));

    /* Large arrays: 2^20, 2^23, 2^26 doubles per rank. */
    DUO_DIST_CHECK(duo_malloc((void **)&b.dev_dots, 2 * sizeof(double)));
    for (int lg = 20; lg <= 26 && lg <= max_log2; lg += 3)
        large(&b, lg);
    DUO_DIST_CHECK(duo_free(b.dev_dots));

    /* Halo rows. */
    static const size_t widths[] = {1024, 8192};
    for (int k = 0; k < 2; ++k) {
        b.cols = widths[k];
        DUO_DIST_CHECK(duo_dist_rows_make((size_t)size * 4, b.cols, &b.rows));
        const size_t len = (b.rows.count + 2) * b.cols;
        DUO_DIST_CHECK(duo_malloc((void **)&b.field, len * sizeof(double)));
        DUO_DIST_CHECK(duo_memset(b.field, 0, len * sizeof(double)));
        b.row_send = (double *)calloc(2 * b.cols, sizeof(double));
        b.row_recv = (double *)calloc(2 * b.cols, sizeof(double));
        double t1, t2;
        time_pair(duo_halo_op, mpi_halo_op, &b, &t1, &t2);
        char what[96];
        snprintf(what, sizeof what, "duo_dist_halo_exchange f64, %zu-wide "
                 "rows (%s)", b.cols, duo_dist_halo_path());
        row(what, t1, "MPI_Sendrecv x2 of host rows", t2);
        DUO_DIST_CHECK(duo_free(b.field));
        free(b.row_send);
        free(b.row_recv);
    }
    DUO_DIST_CHECK(duo_dist_finalize());
    return 0;
}
