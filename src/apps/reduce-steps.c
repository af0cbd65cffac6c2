/*
 * reduce-steps.c - duo-reduce-steps: the classic progression of parallel
 * sum reductions (M. Harris, "Optimizing Parallel Reduction in CUDA"),
 * written once as duo block-level kernels of 256 threads, each version
 * timed and checked, ending with the library's duo_reduce:
 *
 *   1 interleaved addressing, divergent branching: in step s thread t
 *     adds element t + s into t when t % 2s == 0 -- active threads are
 *     scattered over every warp, and % is slow;
 *   2 interleaved addressing, strided index: thread t works on element
 *     2 s t, so the active threads are the first ones (no divergence
 *     inside a warp), but shared-memory accesses now conflict on banks;
 *   3 sequential addressing: in step s (s = 128, 64, ..., 1) thread t < s
 *     adds element t + s into t: contiguous, conflict-free;
 *   4 first add during the global load: each block covers 512 elements and
 *     each thread adds two of them while loading, so no thread idles in
 *     the first step and half the blocks are needed;
 *   5 unrolled last warp: as 4, but the steps s = 32 .. 1 are unrolled
 *     (no loop).  The CUDA original runs those steps warp-synchronously
 *     (volatile shared memory, no barrier), which is only correct under
 *     lock-step execution that Volta and later no longer guarantee; the
 *     correct CUDA form puts __syncwarp() between steps, a barrier among
 *     the 32 threads of the warp.  duo has no warp-level barrier and no
 *     warp-synchronous shortcut on the CPU (a block runs there as a
 *     sequence of phases, one per DUO_THREADS), so each unrolled step is
 *     its own phase guarded by t < s -- which makes every step free of
 *     races without lock-step (thread t < s writes t and reads t + s >= s)
 *     -- followed by DUO_BARRIER, i.e. __syncthreads() on the GPU: a
 *     superset of __syncwarp() (it also waits for the idle warps), correct
 *     and somewhat dearer;
 *   6 many elements per thread: a fixed grid of at most 1024 blocks; each
 *     thread accumulates a grid-stride share of the input in a register
 *     (two loads per stride, as in 4), then the tree of 5;
 *   7 duo_reduce, the library.
 *
 * Every kernel handles any n (elements past n count as 0).  Versions 1-6
 * leave one partial per block; the same kernel is launched again on the
 * partials until one value remains.
 *
 * Two element types: int32 input summed in int64 (shared memory and
 * partials are int64), so every version's result is exact -- no int32
 * input of fewer than 2^32 elements can overflow it -- and identical on
 * every backend; and float32 summed in float (version 7: in double, as
 * duo_reduce does).  The float versions add in a fixed tree that does not
 * depend on the backend either, but each version's tree is different.
 *
 *   build/<backend>/bin/duo-reduce-steps [N] [--type i32|f32|both]
 *       [--reps R] [--seed S] [--check] [--dump FILE]
 *
 * Prints one result line per type and version (median of R runs of the
 * whole reduction, from the device array to one value on the host, and
 * GB/s of input read), then a table per type: version, time, GB/s,
 * speedup over version 1, check.
 *
 * --check compares each version's warm-up run with a host sum: int32
 * exactly (in int64); float32, whose inputs are in (0.5, 1.5) as in
 * duo-reduce, within gamma_d(u) sum|x| (gamma_m(u) = m u / (1 - m u)),
 * where d is the depth of the version's summation tree -- the most
 * roundings any one element goes through, at most n - 1 -- and u = 2^-24
 * (2^-53 for duo_reduce, which adds in double).  Any summation order
 * obeys it (Higham, Accuracy and Stability of Numerical Algorithms, 2nd
 * ed., 4.2); with d = n - 1 it is the classic (n-1) u sum|x| bound, which
 * the table also prints, but the trees here are shallow (d = 24 for
 * version 3 at n = 2^22), so the check is far stricter than that.  The
 * host sum is a compensated one in double whose own error (about
 * 2^-52 |sum|) is added.
 * --dump FILE writes each version's result ("i32_sums": i64, 7;
 * "f32_sums": f64, 7, version 1 first) of the types run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <duo.h>

#include "app_common.h"
#include "dump.h"

static const char *const PROG = "duo-reduce-steps";
static const char *const USAGE =
    "usage: duo-reduce-steps [N] [--type i32|f32|both] [--reps R]\n"
    "                        [--seed S] [--check] [--dump FILE] [--help]\n"
    "  Sum N random elements (default N = 4194304 = 2^22) with six block\n"
    "  kernels of the classic reduction progression and with duo_reduce;\n"
    "  time and check each, and print a table.\n"
    "  N            elements, a positive integer\n"
    "  --type T     i32 (summed exactly in int64), f32 (summed in float),\n"
    "               or both (default)\n"
    "  --reps R     timed runs of each version after one warm-up run\n"
    "               (default 5); the median is reported\n"
    "  --seed S     seed of the random inputs (default 1)\n"
    "  --check      compare each warm-up run with a host sum; exit 1 on a\n"
    "               mismatch\n"
    "  --dump FILE  write each version's sum to FILE\n";

#define DEFAULT_N ((size_t)1 << 22)
#define RS_BLOCK 256        /* threads per block                      */
#define RS_LOG_BLOCK 8      /* log2(RS_BLOCK): levels of the block tree */
#define RS_MAX_GRID6 1024   /* blocks of version 6                    */
#define NVERSIONS 7
#define DETAIL_SIZE 200    /* bytes of a check failure's description */

static const char *const VERSION_NAMES[NVERSIONS] = {
    "interleaved-divergent", "interleaved-strided", "sequential",
    "first-add-on-load", "unrolled-last-warp", "many-per-thread",
    "duo_reduce"};

static const char *const TYPE_NAMES[] = {"i32", "f32", "both", NULL};
enum { T_I32, T_F32, T_BOTH };

/* Elements one block of `version` (1-6) covers in one pass. */
static size_t elements_per_block(int version)
{
    return version <= 3 ? RS_BLOCK : 2 * RS_BLOCK;
}

/* Blocks of one pass of `version` over `count` elements. */
static size_t pass_grid(int version, size_t count)
{
    size_t g = duo_ceil_div(count, elements_per_block(version));
    if (version == 6 && g > RS_MAX_GRID6)
        g = RS_MAX_GRID6;
    return g;
}

/*
 * The six kernels for one input type Tin and accumulator type Tacc,
 * named rs<version>_<S>, and rs_launch_<S>(), which launches one of them.
 * Instantiated below for int32 -> int64 (the first pass of the integer
 * sum), int64 -> int64 (its later passes, over the partials) and float ->
 * float.
 */
#define RS_DEFINE_KERNELS(S, Tin, Tacc)                                      \
                                                                             \
/* 1: interleaved addressing, divergent branching. */                       \
DUO_BLOCK_KERNEL(rs1_##S, RS_BLOCK, 1, size_t n,                             \
                 const Tin *DUO_RESTRICT x, Tacc *DUO_RESTRICT out)          \
{                                                                            \
    DUO_SHARED(Tacc, sdata, RS_BLOCK);                                       \
    DUO_THREADS {                                                            \
        const size_t i = DUO_BX * RS_BLOCK + DUO_TID;                        \
        sdata[DUO_TID] = i < n ? (Tacc)x[i] : (Tacc)0;                       \
    }                                                                        \
    DUO_BARRIER;                                                             \
    for (size_t s = 1; s < RS_BLOCK; s *= 2) {                               \
        DUO_THREADS {                                                        \
            if (DUO_TID % (2 * s) == 0)                                      \
                sdata[DUO_TID] += sdata[DUO_TID + s];                        \
        }                                                                    \
        DUO_BARRIER;                                                         \
    }                                                                        \
    DUO_THREADS {                                                            \
        if (DUO_TID == 0)                                                    \
            out[DUO_BX] = sdata[0];                                          \
    }                                                                        \
}                                                                            \
DUO_BLOCK_KERNEL_END                                                         \
                                                                             \
/* 2: interleaved addressing, strided index: no divergence. */              \
DUO_BLOCK_KERNEL(rs2_##S, RS_BLOCK, 1, size_t n,                             \
                 const Tin *DUO_RESTRICT x, Tacc *DUO_RESTRICT out)          \
{                                                                            \
    DUO_SHARED(Tacc, sdata, RS_BLOCK);                                       \
    DUO_THREADS {                                                            \
        const size_t i = DUO_BX * RS_BLOCK + DUO_TID;                        \
        sdata[DUO_TID] = i < n ? (Tacc)x[i] : (Tacc)0;                       \
    }                                                                        \
    DUO_BARRIER;                                                             \
    for (size_t s = 1; s < RS_BLOCK; s *= 2) {                               \
        DUO_THREADS {                                                        \
            const size_t index = 2 * s * DUO_TID;                            \
            if (index < RS_BLOCK)                                            \
                sdata[index] += sdata[index + s];                            \
        }                                                                    \
        DUO_BARRIER;                                                         \
    }                                                                        \
    DUO_THREADS {                                                            \
        if (DUO_TID == 0)                                                    \
            out[DUO_BX] = sdata[0];                                          \
    }                                                                        \
}                                                                            \
DUO_BLOCK_KERNEL_END                                                         \
                                                                             \
/* 3: sequential addressing. */                                              \
DUO_BLOCK_KERNEL(rs3_##S, RS_BLOCK, 1, size_t n,                             \
                 const Tin *DUO_RESTRICT x, Tacc *DUO_RESTRICT out)          \
{                                                                            \
    DUO_SHARED(Tacc, sdata, RS_BLOCK);                                       \
    DUO_THREADS {                                                            \
        const size_t i = DUO_BX * RS_BLOCK + DUO_TID;                        \
        sdata[DUO_TID] = i < n ? (Tacc)x[i] : (Tacc)0;                       \
    }                                                                        \
    DUO_BARRIER;                                                             \
    for (size_t s = RS_BLOCK / 2; s > 0; s >>= 1) {                          \
        DUO_THREADS {                                                        \
            if (DUO_TID < s)                                                 \
                sdata[DUO_TID] += sdata[DUO_TID + s];                        \
        }                                                                    \
        DUO_BARRIER;                                                         \
    }                                                                        \
    DUO_THREADS {                                                            \
        if (DUO_TID == 0)                                                    \
            out[DUO_BX] = sdata[0];                                          \
    }                                                                        \
}                                                                            \
DUO_BLOCK_KERNEL_END                                                         \
                                                                             \
/* 4: first add during the global load (512 elements per block). */         \
DUO_BLOCK_KERNEL(rs4_##S, RS_BLOCK, 1, size_t n,                             \
                 const Tin *DUO_RESTRICT x, Tacc *DUO_RESTRICT out)          \
{                                                                            \
    DUO_SHARED(Tacc, sdata, RS_BLOCK);                                       \
    DUO_THREADS {                                                            \
        const size_t i = DUO_BX * (2 * RS_BLOCK) + DUO_TID;                  \
        Tacc v = i < n ? (Tacc)x[i] : (Tacc)0;                               \
        if (i + RS_BLOCK < n)                                                \
            v += (Tacc)x[i + RS_BLOCK];                                      \
        sdata[DUO_TID] = v;                                                  \
    }                                                                        \
    DUO_BARRIER;                                                             \
    for (size_t s = RS_BLOCK / 2; s > 0; s >>= 1) {                          \
        DUO_THREADS {                                                        \
            if (DUO_TID < s)                                                 \
                sdata[DUO_TID] += sdata[DUO_TID + s];                        \
        }                                                                    \
        DUO_BARRIER;                                                         \
    }                                                                        \
    DUO_THREADS {                                                            \
        if (DUO_TID == 0)                                                    \
            out[DUO_BX] = sdata[0];                                          \
    }                                                                        \
}                                                                            \
DUO_BLOCK_KERNEL_END                                                         \
                                                                             \
/* 5: as 4, the last six steps unrolled (see the top of the file). */       \
DUO_BLOCK_KERNEL(rs5_##S, RS_BLOCK, 1, size_t n,                             \
                 const Tin *DUO_RESTRICT x, Tacc *DUO_RESTRICT out)          \
{                                                                            \
    DUO_SHARED(Tacc, sdata, RS_BLOCK);                                       \
    DUO_THREADS {                                                            \
        const size_t i = DUO_BX * (2 * RS_BLOCK) + DUO_TID;                  \
        Tacc v = i < n ? (Tacc)x[i] : (Tacc)0;                               \
        if (i + RS_BLOCK < n)                                                \
            v += (Tacc)x[i + RS_BLOCK];                                      \
        sdata[DUO_TID] = v;                                                  \
    }                                                                        \
    DUO_BARRIER;                                                             \
    for (size_t s = RS_BLOCK / 2; s > 32; s >>= 1) {                         \
        DUO_THREADS {                                                        \
            if (DUO_TID < s)                                                 \
                sdata[DUO_TID] += sdata[DUO_TID + s];                        \
        }                                                                    \
        DUO_BARRIER;                                                         \
    }                                                                        \
    RS_LAST_WARP_STEPS(sdata)                                                \
    DUO_THREADS {                                                            \
        if (DUO_TID == 0)                                                    \
            out[DUO_BX] = sdata[0];                                          \
    }                                                                        \
}                                                                            \
DUO_BLOCK_KERNEL_END                                                         \
                                                                             \
/* 6: many elements per thread (grid-stride), then the tree of 5. */        \
DUO_BLOCK_KERNEL(rs6_##S, RS_BLOCK, 1, size_t n,                             \
                 const Tin *DUO_RESTRICT x, Tacc *DUO_RESTRICT out)          \
{                                                                            \
    DUO_SHARED(Tacc, sdata, RS_BLOCK);                                       \
    const size_t stride = DUO_GRID_X * (2 * RS_BLOCK);                       \
    DUO_THREADS {                                                            \
        Tacc v = (Tacc)0;                                                    \
        for (size_t i = DUO_BX * (2 * RS_BLOCK) + DUO_TID; i < n;            \
             i += stride) {                                                  \
            v += (Tacc)x[i];                                                 \
            if (i + RS_BLOCK < n)                                            \
                v += (Tacc)x[i + RS_BLOCK];                                  \
        }                                                                    \
        sdata[DUO_TID] = v;                                                  \
    }                                                                        \
    DUO_BARRIER;                                                             \
    for (size_t s = RS_BLOCK / 2; s > 32; s >>= 1) {                         \
        DUO_THREADS {                                                        \
            if (DUO_TID < s)                                                 \
                sdata[DUO_TID] += sdata[DUO_TID + s];                        \
        }                                                                    \
        DUO_BARRIER;                                                         \
    }                                                                        \
    RS_LAST_WARP_STEPS(sdata)                                                \
    DUO_THREADS {                                                            \
        if (DUO_TID == 0)                                                    \
            out[DUO_BX] = sdata[0];                                          \
    }                                                                        \
}                                                                            \
DUO_BLOCK_KERNEL_END                                                         \
                                                                             \
/* One pass of `version` (1-6) over count elements of x into grid      */   \
/* partials in out.                                                     */   \
static duo_status rs_launch_##S(int version, size_t count, const void *x,   \
                                void *out)                                   \
{                                                                            \
    const Tin *in = (const Tin *)x;                                          \
    Tacc *o = (Tacc *)out;                                                   \
    const size_t g = pass_grid(version, count);                              \
    switch (version) {                                                       \
    case 1: return DUO_LAUNCH_BLOCKS(rs1_##S, g, 1, count, in, o);           \
    case 2: return DUO_LAUNCH_BLOCKS(rs2_##S, g, 1, count, in, o);           \
    case 3: return DUO_LAUNCH_BLOCKS(rs3_##S, g, 1, count, in, o);           \
    case 4: return DUO_LAUNCH_BLOCKS(rs4_##S, g, 1, count, in, o);           \
    case 5: return DUO_LAUNCH_BLOCKS(rs5_##S, g, 1, count, in, o);           \
    default: return DUO_LAUNCH_BLOCKS(rs6_##S, g, 1, count, in, o);          \
    }                                                                        \
}

/* One unrolled step of the last warp: a phase, then a barrier. */
#define RS_STEP(sdata, s)                                  \
    DUO_THREADS {                                          \
        if (DUO_TID < (s))                                 \
            sdata[DUO_TID] += sdata[DUO_TID + (s)];        \
    }                                                      \
    DUO_BARRIER;

/* s = 32, 16, 8, 4, 2, 1, unrolled; where CUDA code would use
 * __syncwarp() between the steps, DUO_BARRIER is __syncthreads(). */
#define RS_LAST_WARP_STEPS(sdata) \
    RS_STEP(sdata, 32)            \
    RS_STEP(sdata, 16)            \
    RS_STEP(sdata, 8)             \
    RS_STEP(sdata, 4)             \
    RS_STEP(sdata, 2)             \
    RS_STEP(sdata, 1)

RS_DEFINE_KERNELS(i32, int32_t, int64_t)
RS_DEFINE_KERNELS(i64, int64_t, int64_t)
RS_DEFINE_KERNELS(f32, float, float)

/* ------------------------------------------------------------------ */

typedef struct rs_run {
    int f32;            /* 0: int32 input, int64 sums; 1: float         */
    int version;        /* 1-7                                          */
    size_t n;
    const void *x;      /* device input                                 */
    void *buf[2];       /* device partials, ping-pong                   */
    int64_t *isum;      /* host result (int32 input)                    */
    double *fsum;       /* host result (float input)                    */
} rs_run;

static void run_rs(void *ctx)
{
    const rs_run *r = (const rs_run *)ctx;
    if (r->version == 7) {
        if (r->f32)
            DUO_CHECK(duo_reduce(DUO_SUM, DUO_F32, r->x, r->n, r->fsum));
        else
            DUO_CHECK(duo_reduce(DUO_SUM, DUO_I32, r->x, r->n, r->isum));
        return;
    }
    /* First pass from the input, then passes over the partials until one
     * value remains. */
    size_t count = r->n;
    int cur = 0;
    if (r->f32)
        DUO_CHECK(rs_launch_f32(r->version, count, r->x, r->buf[cur]));
    else
        DUO_CHECK(rs_launch_i32(r->version, count, r->x, r->buf[cur]));
    count = pass_grid(r->version, count);
    while (count > 1) {
        if (r->f32)
            DUO_CHECK(rs_launch_f32(r->version, count, r->buf[cur],
                                    r->buf[1 - cur]));
        else
            DUO_CHECK(rs_launch_i64(r->version, count, r->buf[cur],
                                    r->buf[1 - cur]));
        cur = 1 - cur;
        count = pass_grid(r->version, count);
    }
    if (r->f32) {
        float v;
        DUO_CHECK(duo_memcpy(&v, r->buf[cur], sizeof v, DUO_DEVICE_TO_HOST));
        *r->fsum = v;
    } else {
        DUO_CHECK(duo_memcpy(r->isum, r->buf[cur], sizeof *r->isum,
                             DUO_DEVICE_TO_HOST));
    }
}

/* (count) u / (1 - count u), the usual gamma. */
static double gamma_n(double count, double u)
{
    return count * u / (1.0 - count * u);
}

/* The most additions any one element of a version's sum goes through
 * (the depth of its summation tree): per pass, 8 levels of the block
 * tree of 256, plus the add during the load (4, 5), or the thread's
 * sequential grid-stride accumulation (6). */
static size_t tree_depth(int version, size_t n)
{
    size_t depth = 0, count = n;
    do {
        const size_t g = pass_grid(version, count);
        if (version <= 3)
            depth += RS_LOG_BLOCK;
        else if (version <= 5)
            depth += 1 + RS_LOG_BLOCK;
        else
            depth += 2 * duo_ceil_div(count, g * 2 * RS_BLOCK) + RS_LOG_BLOCK;
        count = g;
    } while (count > 1);
    return depth;
}

/* Bound on |computed - exact| of version's float sum of n elements whose
 * magnitudes add up to abs_sum: gamma_d(u) abs_sum, where every element
 * takes part in at most d <= n - 1 roundings (Higham, 2nd ed., (4.3)),
 * u = 2^-24 for the float kernels and 2^-53 for duo_reduce (which
 * accumulates in double); plus 3 * 2^-53 abs_sum for the compensated
 * reference.  Never larger than the classic gamma_{n-1}(u) abs_sum. */
static double float_bound(int version, size_t n, double abs_sum)
{
    double d = (double)(n - 1), u = 0x1p-53;
    if (version <= 6) {
        const double depth = (double)tree_depth(version, n);
        d = depth < d ? depth : d;
        u = 0x1p-24;
    }
    return (gamma_n(d, u) + 3 * 0x1p-53) * abs_sum;
}

/* Run, time and (with check) verify the seven versions for one type;
 * prints the result lines and the table; returns the number of failed
 * checks.  sums[v] gets each version's result (int64 or double bits). */
static int run_type(int f32, size_t n, const void *x_host, const void *dx,
                    void *buf0, void *buf1, const app_args *args,
                    int64_t *isums, double *fsums, char *first)
{
    const char *tname = f32 ? "f32" : "i32";
    double ms[NVERSIONS];
    int ok[NVERSIONS];
    char detail[NVERSIONS][DETAIL_SIZE];
    int failed = 0;

    /* The host reference. */
    int64_t iref = 0;
    double fref = 0.0, abs_sum = 0.0, bound[NVERSIONS];
    if (args->check) {
        if (f32) {
            /* Neumaier's compensated sum in double. */
            const float *x = (const float *)x_host;
            double sum = 0.0, comp = 0.0;
            for (size_t i = 0; i < n; ++i) {
                const double v = x[i];
                const double t = sum + v;
                comp += fabs(sum) >= fabs(v) ? (sum - t) + v : (v - t) + sum;
                sum = t;
                abs_sum += fabs(v);
            }
            fref = sum + comp;
            for (int v = 1; v <= NVERSIONS; ++v)
                bound[v - 1] = float_bound(v, n, abs_sum);
        } else {
            const int32_t *x = (const int32_t *)x_host;
            for (size_t i = 0; i < n; ++i)
                iref += x[i];
        }
    }

    char size[32];
    snprintf(size, sizeof size, "%zu", n);
    for (int v = 1; v <= NVERSIONS; ++v) {
        rs_run run;
        run.f32 = f32;
        run.version = v;
        run.n = n;
        run.x = dx;
        run.buf[0] = buf0;
        run.buf[1] = buf1;
        int64_t isum;
        double fsum;
        run.isum = &isum;
        run.fsum = &fsum;
        /* Warm-up, which is also the checked run; results start
         * poisoned. */
        memset(&isum, 0x5a, sizeof isum);
        fsum = NAN;
        run_rs(&run);
        isums[v - 1] = isum;
        fsums[v - 1] = fsum;
        detail[v - 1][0] = '\0';
        ok[v - 1] = 1;
        if (args->check) {
            if (f32) {
                const double diff = fabs(fsum - fref);
                ok[v - 1] = diff <= bound[v - 1]; /* NaN fails */
                if (!ok[v - 1])
                    snprintf(detail[v - 1], sizeof detail[v - 1],
                             "%s version %d: sum = %.9g, reference %.17g, "
                             "|difference| %.3g > bound %.3g", tname, v,
                             fsum, fref, diff, bound[v - 1]);
            } else {
                ok[v - 1] = isum == iref;
                if (!ok[v - 1])
                    snprintf(detail[v - 1], sizeof detail[v - 1],
                             "%s version %d: sum = %lld, expected %lld",
                             tname, v, (long long)isum, (long long)iref);
            }
        }

        ms[v - 1] = app_time_median_ms(run_rs, &run, args->reps);
        char extra[96];
        snprintf(extra, sizeof extra, "type=%s version=%d-%s", tname, v,
                 VERSION_NAMES[v - 1]);
        app_print_result(PROG, size, extra, args->reps, ms[v - 1], "GB/s",
                         (double)n * (f32 ? sizeof(float) : sizeof(int32_t)));
    }

    const double bytes = (double)n * (f32 ? sizeof(float) : sizeof(int32_t));
    printf("\n%s, n = %zu, median of %zu runs:\n", tname, n, args->reps);
    printf("  %-26s %12s %10s %9s  %s\n", "version", "ms", "GB/s",
           "speedup", "check");
    for (int v = 1; v <= NVERSIONS; ++v) {
        const double t = ms[v - 1];
        char name[40], speed[32], rate[32];
        snprintf(name, sizeof name, "%d %s", v, VERSION_NAMES[v - 1]);
        if (t > 0) {
            snprintf(rate, sizeof rate, "%.4g", bytes / (t * 1e6));
            snprintf(speed, sizeof speed, "%.2fx", ms[0] / t);
        } else {
            snprintf(rate, sizeof rate, "-");
            snprintf(speed, sizeof speed, "-");
        }
        printf("  %-26s %12.5g %10s %9s  %s\n", name, t, rate, speed,
               !args->check ? "-" : ok[v - 1] ? "PASS" : "FAIL");
    }
    if (args->check) {
        if (f32) {
            printf("  reference %.17g; |error| bounds gamma_d sum|x|, by "
                   "version:", fref);
            for (int v = 1; v <= NVERSIONS; ++v)
                printf(" %.3g", bound[v - 1]);
            printf("\n  ((n-1) u sum|x| = %.3g)\n",
                   (double)(n - 1) * 0x1p-24 * abs_sum);
        }
        else
            printf("  reference %lld\n", (long long)iref);
        for (int v = 1; v <= NVERSIONS; ++v)
            if (!ok[v - 1]) {
                printf("  %s\n", detail[v - 1]);
                if (failed++ == 0 && first[0] == '\0')
                    memcpy(first, detail[v - 1], DETAIL_SIZE);
            }
    }
    printf("\n");
    fflush(stdout);
    return failed;
}

int main(int argc, char **argv)
{
    static const char *const size_names[] = {"N"};
    int type = T_BOTH;
    app_option options[1];
    options[0].name = "--type";
    options[0].kind = APP_OPT_CHOICE;
    options[0].value = &type;
    options[0].choices = TYPE_NAMES;
    app_args args;
    app_parse(argc, argv, PROG, USAGE, 1, size_names, options, 1, &args);
    const char *dump_path = args.dump_path;
    const size_t n = args.nsizes ? args.sizes[0] : DEFAULT_N;
    if (n > ((size_t)1 << 32) - 1)
        app_usage_error(PROG, USAGE, "size N = %zu: at most 4294967295 "
                        "elements (the int64 sum of more int32 values could "
                        "overflow)", n);
    const size_t bytes = app_bytes(PROG, "N", n, sizeof(int32_t));
    const size_t parts = duo_ceil_div(n, RS_BLOCK);
    const size_t part_bytes = app_bytes(PROG, "N", parts, sizeof(int64_t));

    app_init(PROG);

    app_rng rng;
    app_rng_seed(&rng, args.seed);
    int32_t *xi = NULL;
    float *xf = NULL;
    if (type != T_F32) {
        xi = (int32_t *)app_host_alloc(PROG, bytes);
        for (size_t i = 0; i < n; ++i)
            xi[i] = (int32_t)(uint32_t)(app_rng_u64(&rng) >> 32);
    }
    if (type != T_I32) {
        /* In (0.5, 1.5): with mixed signs the bound (n-1) u sum|x| could
         * exceed the sum itself and miss a lost element. */
        xf = (float *)app_host_alloc(PROG, bytes);
        app_fill_f32(xf, n, &rng);
        for (size_t i = 0; i < n; ++i)
            xf[i] = 1.0f + 0.5f * xf[i];
    }

    void *dx = NULL, *buf0 = NULL, *buf1 = NULL;
    DUO_CHECK(duo_malloc(&dx, bytes));
    DUO_CHECK(duo_malloc(&buf0, part_bytes));
    DUO_CHECK(duo_malloc(&buf1, part_bytes));
    DUO_CHECK(duo_memset(buf0, 0xff, part_bytes));
    DUO_CHECK(duo_memset(buf1, 0xff, part_bytes));

    int failed = 0, dump_failed = 0;
    char first[DETAIL_SIZE] = "";
    int64_t isums[NVERSIONS];
    double fsums[NVERSIONS];
    dump_writer *d = NULL;
    if (dump_path != NULL)
        d = dump_open(dump_path, PROG, argc, argv);
    const size_t dims[1] = {NVERSIONS};
    if (type != T_F32) {
        DUO_CHECK(duo_memcpy(dx, xi, bytes, DUO_HOST_TO_DEVICE));
        failed += run_type(0, n, xi, dx, buf0, buf1, &args, isums, fsums,
                           first);
        if (dump_path != NULL)
            dump_array(d, "i32_sums", DUO_I64, 1, dims, isums);
    }
    if (type != T_I32) {
        DUO_CHECK(duo_memcpy(dx, xf, bytes, DUO_HOST_TO_DEVICE));
        failed += run_type(1, n, xf, dx, buf0, buf1, &args, isums, fsums,
                           first);
        if (dump_path != NULL)
            dump_array(d, "f32_sums", DUO_F64, 1, dims, fsums);
    }
    if (dump_path != NULL && dump_close(d) != 0)
        dump_failed = 1;

    if (args.check)
        app_report_check((size_t)failed,
                         (type == T_BOTH ? 2 : 1) * (size_t)NVERSIONS,
                         "versions", first);

    DUO_CHECK(duo_free(dx));
    DUO_CHECK(duo_free(buf0));
    DUO_CHECK(duo_free(buf1));
    free(xi);
    free(xf);
    DUO_CHECK(duo_finalize());
    return failed || dump_failed ? 1 : 0;
}
