/*
 * duo/dist.h - duo on several processes: MPI between ranks, NCCL between
 * GPUs where it is found, and reductions whose floating-point results do
 * not depend on the number of ranks.
 *
 * Built with -DDUO_MPI=ON (make serial-mpi, openmp-mpi, cuda-mpi) these
 * functions use MPI_COMM_WORLD.  Without it the same API is there for a
 * single process (rank 0 of 1), so one application source runs in both
 * builds and gives the same bits.
 *
 * Setup.  duo_dist_init() replaces duo_init(): it starts MPI (unless the
 * program already did), picks this rank's GPU from its local rank
 * (OMPI_COMM_WORLD_LOCAL_RANK, else MPI_Comm_split_type SHARED; GPU
 * local_rank % device count) before duo_init, and on the GPU sets up NCCL
 * and the halo path.  Rank 0 prints one line to stderr naming the ranks,
 * the backend and the halo path.  duo_dist_finalize() undoes it all.
 *
 * Errors.  The collective functions (halo exchange, reductions, gather)
 * are called by every rank together.  A rank that found a bad argument
 * cannot return alone, or the others would wait for it forever, so by
 * default a failing collective call prints
 *     duo-dist: rank R of P: <duo_last_error()>
 * to stderr and ends every rank with MPI_Abort (exit status 1 in the
 * single-process build).  Arguments that must agree across ranks (n, op,
 * type) are compared after the call's first exchange; a disagreement is
 * seen by every rank and reported the same way.
 * duo_dist_set_abort_on_error(0) makes them return the status instead
 * (for programs that check every status on every rank, and for tests).
 * Local functions (decomposition helpers, rank queries) always return.
 *
 * This header is C11 and also compiles as CUDA C++.
 */
#ifndef DUO_DIST_H
#define DUO_DIST_H

#include <duo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The names of the functions are in parentheses: their calls are macros
 * that note the caller's file:line (duo/call_site.h). */

/* ------------------------------------------------------------------ */
/* Setup                                                               */

duo_status (duo_dist_init)(int *argc, char ***argv);
/* duo_finalize, then MPI_Finalize if duo_dist_init started MPI. */
duo_status (duo_dist_finalize)(void);

int duo_dist_rank(void);       /* 0 before init                      */
int duo_dist_size(void);       /* 1 before init                      */
int duo_dist_local_rank(void); /* rank among the ranks of this node  */
/* 1 when built with MPI (-DDUO_MPI=ON), else 0. */
int duo_dist_has_mpi(void);
/* How halo rows travel: "host" (CPU builds: MPI on host memory), "ipc"
 * (each GPU writes into its neighbours' memory), "nccl",
 * "cuda-aware-mpi" or "staged" (GPU memory copied through pinned host
 * buffers), "none" (one process). */
const char *duo_dist_halo_path(void);

duo_status (duo_dist_barrier)(void);

/* Print "duo-dist: rank R of P: <where>: <message>" to stderr and end
 * every rank (MPI_Abort; exit(1) without MPI). */
DUO_NORETURN void duo_dist_abort(const char *where, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Like DUO_CHECK, for programs with several ranks: on failure print the
 * rank and duo_last_error(), then end every rank. */
#define DUO_DIST_CHECK(call)                                               \
    do {                                                                   \
        duo_status duo_dist_check_status_ = (call);                       \
        if (duo_dist_check_status_ != DUO_SUCCESS)                         \
            duo_dist_abort(#call, "%s", duo_last_error());                 \
    } while (0)

/* 1 (default): a failing collective call ends every rank.  0: it
 * returns the status (every rank must then check it). */
void duo_dist_set_abort_on_error(int abort_on_error);

/* ------------------------------------------------------------------ */
/* Decomposition (local computations, no communication)                */

/* A contiguous piece [begin, begin + count) of a global 1-D array of n
 * elements. */
typedef struct duo_dist_range {
    size_t n, begin, count;
} duo_dist_range;

/* Block `part` of `parts` of n elements: the first n % parts blocks get
 * n / parts + 1 elements, the others n / parts (some empty if n <
 * parts).  parts >= 1, 0 <= part < parts. */
duo_status (duo_dist_block_1d)(size_t n, int parts, int part,
                               duo_dist_range *out);

/* A 2-D process grid for `parts` ranks over a rows x cols array: dims[0]
 * x dims[1] == parts, the factorization whose blocks are closest to
 * square, with dims[0] <= rows and dims[1] <= cols.  Fails (naming the
 * sizes) when no factorization fits. */
duo_status (duo_dist_grid_2d)(int parts, size_t rows, size_t cols,
                              int dims[2]);

/* Block of rank `part` in the dims[0] x dims[1] grid (row-major rank
 * order): rows[] and cols[] are its 1-D blocks.  Every block must be
 * non-empty: dims[0] <= rows and dims[1] <= cols. */
duo_status (duo_dist_block_2d)(size_t rows, size_t cols, const int dims[2],
                               int part, duo_dist_range *row_block,
                               duo_dist_range *col_block);

/* This rank's rows of a rows x cols field split by rows over all ranks
 * (duo_dist_block_1d over rows).  Every rank needs at least one row: with
 * more ranks than rows it fails on every rank (the same decision
 * everywhere, so nothing waits) with a message naming both numbers. */
typedef struct duo_dist_rows {
    size_t rows, cols;   /* global field                          */
    size_t begin, count; /* this rank's rows, count >= 1          */
} duo_dist_rows;

duo_status (duo_dist_rows_make)(size_t rows, size_t cols, duo_dist_rows *out);

/* The range of elements of the flattened field that this rank owns. */
duo_dist_range duo_dist_rows_range(const duo_dist_rows *rows);

/* A range from each rank's own count, in rank order (collective: an
 * exclusive prefix sum of the counts). */
duo_status (duo_dist_range_make)(size_t count, duo_dist_range *out);

/* ------------------------------------------------------------------ */
/* Halo exchange (collective)                                          */

/* `field` is duo device memory holding (rows->count + 2) x rows->cols
 * elements of `type`: storage row 0 is the halo above, rows 1..count are
 * this rank's rows, row count + 1 is the halo below.  Afterwards the
 * halo above holds global row begin - 1 (from the rank above) and the
 * halo below global row begin + count (from the rank below); the halos
 * beyond the global edges are not touched.  Waits for device work first;
 * returns when the halos are written. */
duo_status (duo_dist_halo_exchange)(duo_dtype type, void *field,
                                    const duo_dist_rows *rows);

/* The same exchange, ordered on `stream` (NULL: the default stream)
 * instead of waiting for the device: it reads the rows after the work
 * queued on `stream` before it, and work queued on `stream` after it sees
 * the new halos.  On the "nccl" path it returns at once, so a time-step
 * loop queues kernels and exchanges without a host round trip per step.
 * On the other paths MPI moves the rows from the host, so it waits for
 * `stream` and returns when the halos are written ("host": CPU builds,
 * where stream work has run already).  Not allowed inside a graph capture
 * (DUO_ERROR_NOT_CAPTURABLE). */
duo_status (duo_dist_halo_exchange_async)(duo_dtype type, void *field,
                                          const duo_dist_rows *rows,
                                          duo_stream stream);

/* ------------------------------------------------------------------ */
/* Reductions (collective)                                             */

/*
 * The contract: results are the same bits for any number of ranks, any
 * split of the array among them, and any backend.
 *
 * The global array (n elements, each rank holding the contiguous piece
 * `range` of it, pieces in rank order) is cut into global chunks of
 * DUO_DIST_CHUNK elements (the last one shorter), a size that does not
 * depend on the number of ranks.  Each chunk is reduced by duo_reduce
 * with its own fixed order (src/reduce_order.h), so a chunk's result is
 * the same on every backend.  A chunk split between ranks is first
 * assembled on the rank holding its first element (the other pieces are
 * sent to it).  The chunk results are then combined on every rank, the
 * same way everywhere:
 *   sums: pairwise, sum(c0..c1) = sum(c0..m) + sum(m..c1) with
 *         m = c0 + (c1 - c0 + 1) / 2, down to single chunks;
 *   min, max: in chunk order with duo's NaN-propagating combine.
 * Hence with n <= DUO_DIST_CHUNK the result is exactly duo_reduce's on
 * the whole array.  (duo_dist_reduce_arg needs no chunks: its pick, one
 * element in a total order, is the same whatever the grouping, so each
 * rank takes its whole piece with duo_reduce_arg.)  Result types are duo_reduce's (f32 sums in double,
 * integer sums wrap modulo 2^64); the sum of n = 0 elements is 0; min and
 * max need n > 0.  Every rank gets the result.
 *
 * Cost: a first exchange checks that every rank makes the same call:
 * on up to 64 ranks an all-gather of 10 bytes per rank, beyond (or with
 * DUO_DIST_AGREE=full in the environment) an all-reduce of a 72-byte
 * record.  For n > DUO_DIST_INLINE there follow an all-gather of every
 * rank's range (skipped when the ranges are those of the last such
 * call), the pieces of split chunks and one all-gather of the chunk
 * results (8 bytes per chunk; for duo_dist_reduce_arg, 16 bytes per
 * rank); on the device, all of a rank's chunks are reduced in one pass
 * whose results land in pinned host memory.  With n <= DUO_DIST_INLINE the elements travel in the first
 * exchange: that is all where no rank holds more than one of them, else
 * the 72-byte records are combined too.  `range` must describe the same
 * n and consecutive pieces on every rank (duo_dist_block_1d,
 * duo_dist_range_make or duo_dist_rows_range give such ranges).
 */
#define DUO_DIST_CHUNK ((size_t)65536)
#define DUO_DIST_INLINE 8

duo_status (duo_dist_reduce)(duo_reduce_op op, duo_dtype type, const void *x,
                             const duo_dist_range *range, void *result);

/* Global index of the smallest (DUO_MIN) or largest (DUO_MAX) element,
 * the first one on ties, the first NaN if there is one: exactly what
 * duo_reduce_arg returns on the whole array.  n > 0; value may be NULL
 * (element type). */
duo_status (duo_dist_reduce_arg)(duo_reduce_op op, duo_dtype type,
                                 const void *x, const duo_dist_range *range,
                                 size_t *index, void *value);

/*
 * Global dot product: *result = sum_i x[i] y[i] over the n elements of
 * `range` (DUO_F32 or DUO_F64; x and y are this rank's pieces, device
 * memory), with exactly the bits that duo_dot_async(type, n, 1, ...)
 * gives on the whole arrays in one process -- for any number of ranks
 * and any split.  So a solver distributed with it computes what the
 * single-process solver computes, bit for bit.
 *
 * How: duo's order for n elements (src/reduce_order.h) cuts the array
 * into chunks whose size depends on n alone; each chunk's partial is
 * computed, in that order, by the rank holding the chunk's first
 * element (the elements of a chunk that continues on the following
 * ranks are sent to it first); every rank receives every partial and
 * folds them as duo's final pass does.  Unlike duo_dist_reduce the chunk
 * size grows with n, so the partials exchanged number n / 512 to
 * n / 8192 (f64).  Every rank gets the result on the host.
 */
duo_status (duo_dist_dot)(duo_dtype type, const void *x, const void *y,
                          const duo_dist_range *range, double *result);

/*
 * Fused global dot products, as duo_dot_async fuses them: result[k] =
 * sum_i x[k][i] y[k][i] for k = 0 .. count-1 (1 <= count <= DUO_DOT_MAX;
 * x and y are host arrays of `count` device pointers to this rank's
 * pieces; result, count host doubles), each with exactly the bits of
 * duo_dist_dot on that pair, hence of duo_dot_async(type, n, count, ...)
 * on the whole arrays.  One exchange and one all-reduce for all of
 * them: a solver's pair of dots costs the latency of one.  Every rank
 * must pass the same count.
 */
duo_status (duo_dist_dots)(duo_dtype type, int count, const void *const *x,
                           const void *const *y, const duo_dist_range *range,
                           double *result);

/*
 * duo_dist_dot(s) with the result in device memory, queued on `stream`
 * like duo_dot_async: result[k] (count doubles of device memory on
 * every rank) = the value duo_dist_dots gives, bit for bit, written by
 * work that follows the stream's work before the call and precedes the
 * work queued on it after.  So a solver can keep its scalars on the
 * device and never wait for one.  x and y are read after the stream's
 * earlier work.  Calls on different streams run one after another.
 *
 * The call returns without waiting where every rank has a GPU of its
 * own, NCCL was found at build time, and every rank's non-empty piece
 * begins on a chunk boundary of duo's order for n elements (chunks of
 * duo_reduce_steps(n, DUO_REDUCE_LANES(size)) * DUO_REDUCE_LANES(size)
 * elements, <duo/reduce_order.h>; e.g. equal pieces of a power of two):
 * the chunk partials go into device memory, NCCL hands them to every
 * rank and the final pass runs on the device.  Elsewhere it waits for
 * the stream, computes as duo_dist_dots and copies the values into
 * result.  With one rank it is duo_dot_async on the piece.
 */
duo_status (duo_dist_dot_async)(duo_dtype type, const void *x, const void *y,
                                const duo_dist_range *range, double *result,
                                duo_stream stream);
duo_status (duo_dist_dots_async)(duo_dtype type, int count,
                                 const void *const *x, const void *const *y,
                                 const duo_dist_range *range, double *result,
                                 duo_stream stream);

/* Copy each rank's piece `range` of device array x into host array out
 * (n elements) on rank `root`; other ranks' out is not used (may be
 * NULL). */
duo_status (duo_dist_gather)(duo_dtype type, const void *x,
                             const duo_dist_range *range, void *out, int root);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DUO_DIST_H */
