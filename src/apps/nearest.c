/*
 * nearest.c - duo-nearest: for each of N random 3-D points (float), the
 * index of its nearest other point, by brute force on the device, in two
 * ways:
 *
 *   brute  a DUO_KERNEL with DUO_FOR: each index i scans all N points
 *          straight from device memory;
 *   tiled  a DUO_BLOCK_KERNEL of NEAREST_TILE threads: the block stages
 *          NEAREST_TILE points at a time in DUO_SHARED memory (one
 *          phase loads, DUO_BARRIER, one phase scans the tile, DUO_BARRIER
 *          before the next load overwrites it), so each point is read
 *          from device memory once per block instead of once per thread.
 *
 * Both scan j = 0, 1, ..., N-1 in order and keep a candidate only when
 * its squared distance is strictly smaller, so ties go to the lower index,
 * and a point's own index is skipped.  N = 1 has no other point: its
 * index is -1.  Reports the median time of R runs and Gpairs/s at N*N
 * distance evaluations.
 *
 *   build/<backend>/bin/duo-nearest [N] [--algo brute|tiled|both]
 *       [--lattice] [--reps R] [--seed S] [--check] [--dump FILE]
 *
 * --lattice puts the points on the integer lattice {0..7}^3 instead of
 * (-1, 1)^3: distances are then small integers, ties are everywhere (and
 * N > 512 repeats points), which exercises the lower-index rule.
 *
 * Exactness.  The indices must be identical on every backend and for
 * both algorithms, so every squared distance must have the same bits
 * everywhere.  Written as dx*dx + dy*dy + dz*dz it would not: nvcc
 * contracts a*b + c into a fused multiply-add by default (one rounding
 * instead of two), while gcc in ISO C mode does not, and -march=native
 * or another compiler may decide otherwise.  dist2() therefore spells
 * the contraction out:
 *     fmaf(dz, dz, fmaf(dy, dy, dx * dx))
 * fmaf is correctly rounded by IEEE 754 on the GPU (fma.rn.f32) and in
 * C's libm alike, dx * dx is one rounded product that nothing can fuse
 * (its only use is as an argument of fmaf), and the differences dx, dy,
 * dz are single correctly rounded subtractions.  So each distance is one
 * fixed sequence of correctly rounded operations, and the host reference
 * (which calls the same dist2) gets the same bits.
 *
 * --check compares the warm-up run of each algorithm with a host brute
 * force over the same points: every index must be equal, exactly; with
 * --algo both the two algorithms must also agree with each other.
 * --dump FILE writes the indices ("nearest", i32, N) of the tiled run
 * (brute with --algo brute) and the points ("points", f32, N x 3).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <duo.h>

#include "app_common.h"
#include "dump.h"

static const char *const PROG = "duo-nearest";
static const char *const USAGE =
    "usage: duo-nearest [N] [--algo brute|tiled|both] [--lattice] [--reps R]\n"
    "                   [--seed S] [--check] [--dump FILE] [--help]\n"
    "  For each of N random 3-D points, the index of its nearest other\n"
    "  point (ties: the lower index; N = 1: -1).  Default N = 8192.\n"
    "  N            points, 1 to 2147483647\n"
    "  --algo A     brute (DUO_FOR, every thread scans device memory),\n"
    "               tiled (block kernel, points staged in shared memory)\n"
    "               or both (default): each is timed and checked\n"
    "  --lattice    points on the integer lattice {0..7}^3 (many ties)\n"
    "  --reps R     timed runs after one warm-up run (default 5); the\n"
    "               median is reported\n"
    "  --seed S     seed of the random points (default 1)\n"
    "  --check      compare each warm-up run with a host brute force,\n"
    "               index by index; exit 1 on a mismatch\n"
    "  --dump FILE  write the indices (and the points) to FILE\n";

#define DEFAULT_N 8192
#define NEAREST_TILE 256

static const char *const ALGO_NAMES[] = {"brute", "tiled", "both", NULL};
enum { ALGO_BRUTE, ALGO_TILED, ALGO_BOTH };

/* Squared distance from (px, py, pz) to point q[0..2], rounded the same
 * way on every backend and on the host: see the comment at the top. */
DUO_DEVICE float dist2(float px, float py, float pz, const float *q)
{
    const float dx = q[0] - px;
    const float dy = q[1] - py;
    const float dz = q[2] - pz;
    return fmaf(dz, dz, fmaf(dy, dy, dx * dx));
}

/* p holds the points as x, y, z triples. */
DUO_KERNEL(nearest_brute, size_t n, const float *DUO_RESTRICT p,
           int32_t *DUO_RESTRICT out)
{
    DUO_FOR(i, n) {
        const float px = p[3 * i], py = p[3 * i + 1], pz = p[3 * i + 2];
        float best = INFINITY;
        int32_t best_j = -1;
        for (size_t j = 0; j < n; ++j) {
            const float d = dist2(px, py, pz, p + 3 * j);
            if (d < best && j != i) {
                best = d;
                best_j = (int32_t)j;
            }
        }
        out[i] = best_j;
    }
}

/* One block of NEAREST_TILE threads handles points base .. base+TILE-1
 * (thread t: point base + t) and walks the whole array in tiles. */
DUO_BLOCK_KERNEL(nearest_tiled, NEAREST_TILE, 1, size_t n,
                 const float *DUO_RESTRICT p, int32_t *DUO_RESTRICT out)
{
    DUO_SHARED(float, tile, 3 * NEAREST_TILE);
    DUO_PRIVATE(float, px);
    DUO_PRIVATE(float, py);
    DUO_PRIVATE(float, pz);
    DUO_PRIVATE(float, best);
    DUO_PRIVATE(int32_t, best_j);
    const size_t base = DUO_BX * NEAREST_TILE;

    DUO_THREADS {
        const size_t i = base + DUO_TX;
        const int live = i < n;
        DUO_MY(px) = live ? p[3 * i] : 0.0f;
        DUO_MY(py) = live ? p[3 * i + 1] : 0.0f;
        DUO_MY(pz) = live ? p[3 * i + 2] : 0.0f;
        DUO_MY(best) = INFINITY;
        DUO_MY(best_j) = -1;
    }
    for (size_t t0 = 0; t0 < n; t0 += NEAREST_TILE) {
        const size_t len = n - t0 < NEAREST_TILE ? n - t0 : NEAREST_TILE;
        /* Load: the tile's 3*len floats are contiguous; consecutive
         * threads read consecutive floats (coalesced on the GPU). */
        DUO_THREADS {
            for (size_t k = DUO_TX; k < 3 * len; k += NEAREST_TILE)
                tile[k] = p[3 * t0 + k];
        }
        DUO_BARRIER;
        /* Use: every thread scans the tile in index order (all threads
         * read the same word at once: a broadcast, no bank conflict). */
        DUO_THREADS {
            const size_t i = base + DUO_TX;
            const float x = DUO_MY(px), y = DUO_MY(py), z = DUO_MY(pz);
            float b = DUO_MY(best);
            int32_t bj = DUO_MY(best_j);
            for (size_t jj = 0; jj < len; ++jj) {
                const float d = dist2(x, y, z, tile + 3 * jj);
                if (d < b && t0 + jj != i) {
                    b = d;
                    bj = (int32_t)(t0 + jj);
                }
            }
            DUO_MY(best) = b;
            DUO_MY(best_j) = bj;
        }
        DUO_BARRIER; /* the next load overwrites the tile */
    }
    DUO_THREADS {
        const size_t i = base + DUO_TX;
        if (i < n)
            out[i] = DUO_MY(best_j);
    }
}
DUO_BLOCK_KERNEL_END

typedef struct nearest_run {
    int algo; /* ALGO_BRUTE or ALGO_TILED */
    size_t n;
    const float *p; /* device */
    int32_t *out;   /* device */
} nearest_run;

static void run_nearest(void *ctx)
{
    const nearest_run *r = (const nearest_run *)ctx;
    if (r->algo == ALGO_BRUTE)
        DUO_CHECK(DUO_LAUNCH(nearest_brute, r->n, r->n, r->p, r->out));
    else
        DUO_CHECK(DUO_LAUNCH_BLOCKS(nearest_tiled,
                                    duo_ceil_div(r->n, NEAREST_TILE), 1,
                                    r->n, r->p, r->out));
}

/* The host reference: the same scan, in plain C. */
static void nearest_host(size_t n, const float *p, int32_t *out)
{
    for (size_t i = 0; i < n; ++i) {
        const float px = p[3 * i], py = p[3 * i + 1], pz = p[3 * i + 2];
        float best = INFINITY;
        int32_t best_j = -1;
        for (size_t j = 0; j < n; ++j) {
            if (j == i)
                continue;
            const float d = dist2(px, py, pz, p + 3 * j);
            if (d < best) {
                best = d;
                best_j = (int32_t)j;
            }
        }
        out[i] = best_j;
    }
}

/* Mismatches of got against want; details of the first into detail. */
static size_t compare_indices(const char *what, size_t n, const float *p,
                              const int32_t *got, const int32_t *want,
                              char *detail, size_t size)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        if (got[i] == want[i])
            continue;
        if (bad++ == 0) {
            const float *pi = p + 3 * i;
            double dg = NAN, dw = NAN;
            if (got[i] >= 0 && (size_t)got[i] < n)
                dg = (double)dist2(pi[0], pi[1], pi[2],
                                   p + 3 * (size_t)got[i]);
            if (want[i] >= 0)
                dw = (double)dist2(pi[0], pi[1], pi[2],
                                   p + 3 * (size_t)want[i]);
            snprintf(detail, size,
                     "%s: nearest[%zu] = %d (distance^2 %.9g), expected %d "
                     "(distance^2 %.9g)", what, i, (int)got[i], dg,
                     (int)want[i], dw);
        }
    }
    return bad;
}

int main(int argc, char **argv)
{
    static const char *const size_names[] = {"N"};
    int algo = ALGO_BOTH, lattice = 0;
    app_option options[2];
    options[0].name = "--algo";
    options[0].kind = APP_OPT_CHOICE;
    options[0].value = &algo;
    options[0].choices = ALGO_NAMES;
    options[1].name = "--lattice";
    options[1].kind = APP_OPT_FLAG;
    options[1].value = &lattice;
    options[1].choices = NULL;
    app_args args;
    app_parse(argc, argv, PROG, USAGE, 1, size_names, options, 2, &args);
    const char *dump_path = args.dump_path;
    const size_t n = args.nsizes ? args.sizes[0] : DEFAULT_N;
    if (n > (size_t)INT32_MAX)
        app_usage_error(PROG, USAGE, "size N = %zu: at most 2147483647 "
                        "points (indices are int32)", n);
    const size_t p_bytes = app_bytes(PROG, "N", app_count(PROG, "N", n, 3),
                                     sizeof(float));
    const size_t out_bytes = app_bytes(PROG, "N", n, sizeof(int32_t));

    app_init(PROG);

    app_rng rng;
    app_rng_seed(&rng, args.seed);
    float *p = (float *)app_host_alloc(PROG, p_bytes);
    if (lattice)
        for (size_t i = 0; i < 3 * n; ++i)
            p[i] = (float)(app_rng_u64(&rng) >> 61);
    else
        app_fill_f32(p, 3 * n, &rng);

    float *dp = NULL;
    int32_t *dout = NULL;
    DUO_CHECK(duo_malloc((void **)&dp, p_bytes));
    DUO_CHECK(duo_malloc((void **)&dout, out_bytes));
    DUO_CHECK(duo_memcpy(dp, p, p_bytes, DUO_HOST_TO_DEVICE));

    const int first = algo == ALGO_TILED ? ALGO_TILED : ALGO_BRUTE;
    const int last = algo == ALGO_BRUTE ? ALGO_BRUTE : ALGO_TILED;
    int32_t *got[2] = {NULL, NULL};
    char size[32];
    snprintf(size, sizeof size, "%zu", n);
    for (int a = first; a <= last; ++a) {
        nearest_run run;
        run.algo = a;
        run.n = n;
        run.p = dp;
        run.out = dout;
        /* Warm-up, which is also the checked run: the output starts as
         * all bits set (-1 everywhere, the answer only for N = 1), and the
         * host copy as 0x55555555, so an unwritten index shows. */
        DUO_CHECK(duo_memset(dout, 0xff, out_bytes));
        run_nearest(&run);
        got[a] = (int32_t *)app_host_alloc(PROG, out_bytes);
        memset(got[a], 0x55, out_bytes);
        DUO_CHECK(duo_memcpy(got[a], dout, out_bytes, DUO_DEVICE_TO_HOST));

        const double ms = app_time_median_ms(run_nearest, &run, args.reps);
        char extra[48];
        snprintf(extra, sizeof extra, "algo=%s%s", ALGO_NAMES[a],
                 lattice ? " points=lattice" : "");
        app_print_result(PROG, size, extra, args.reps, ms, "Gpairs/s",
                         (double)n * (double)n);
    }

    int failed = 0;
    if (args.check) {
        int32_t *want = (int32_t *)app_host_alloc(PROG, out_bytes);
        nearest_host(n, p, want);
        size_t bad = 0, total = 0;
        char detail[320] = "";
        for (int a = first; a <= last; ++a) {
            bad += compare_indices(ALGO_NAMES[a], n, p, got[a], want,
                                   bad ? NULL : detail,
                                   bad ? 0 : sizeof detail);
            total += n;
        }
        if (algo == ALGO_BOTH) {
            /* Implied by the above when both pass; reported on its own so
             * that a failure says whether the two algorithms disagree. */
            size_t differ = 0;
            for (size_t i = 0; i < n; ++i)
                differ += got[ALGO_BRUTE][i] != got[ALGO_TILED][i];
            printf("brute vs tiled: %zu of %zu indices differ\n", differ, n);
        }
        failed = app_report_check(bad, total, "indices", detail);
        free(want);
    }

    if (dump_path != NULL) {
        dump_writer *d = dump_open(dump_path, PROG, argc, argv);
        const size_t dims_out[1] = {n};
        const size_t dims_p[2] = {n, 3};
        dump_array(d, "nearest", DUO_I32, 1, dims_out, got[last]);
        dump_array(d, "points", DUO_F32, 2, dims_p, p);
        if (dump_close(d) != 0)
            failed = 1;
    }

    DUO_CHECK(duo_free(dp));
    DUO_CHECK(duo_free(dout));
    free(got[0]);
    free(got[1]);
    free(p);
    DUO_CHECK(duo_finalize());
    return failed;
}
