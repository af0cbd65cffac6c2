/*
 * cuda_check.h - how the CUDA backend turns a failed CUDA call into a
 * duo_status and a message, and the little state the backend shares.
 */
#ifndef DUO_CUDA_CHECK_H
#define DUO_CUDA_CHECK_H

#include <cuda_runtime.h>

#include "backend.h"
#include "reduce_order.h"

/* Map err to a duo_status (allocation failure -> out of memory, launch
 * and execution faults -> launch, the rest -> backend), record "what
 * failed: cudaErrorX: text" plus advice, and return the status.  Clears
 * CUDA's last error so it is not reported twice. */
duo_status duo_cuda_fail(cudaError_t err, const char *file, int line,
                         const char *where, const char *what);

#define DUO_CUDA_TRY(call, where)                                         \
    do {                                                                  \
        cudaError_t duo_err_ = (call);                                    \
        if (duo_err_ != cudaSuccess)                                      \
            return duo_cuda_fail(duo_err_, __FILE__, __LINE__, where,     \
                                 #call);                                  \
    } while (0)

/* Multiprocessors of the current GPU, set by duo_be_init(). */
extern int duo_cuda_sm_count;

/* While the profiler traces kernels (trace.cu), launches are plain: a
 * kernel launched early would be timed from when its blocks began to
 * wait for the one before it. */
void duo_cuda_pause_early_launch(int paused);

/* Reductions (reduce.cu, segmented.cu) keep their per-block partials,
 * the counter that finds the last block and the offsets check's words in
 * one fixed-size device scratch area.  Each stream has one (stream.cu),
 * the default stream one (launch.cu) and each graph one (graph.cu), so
 * work that may run at the same time never shares them.  New areas are
 * zeroed, and every kernel leaves its counters at 0. */
enum {
    DUO_CUDA_SCRATCH_COUNTER = 0,       /* unsigned: last-block counter    */
    DUO_CUDA_SCRATCH_CHECK_COUNTER = 4, /* unsigned: the offsets check's   */
    DUO_CUDA_SCRATCH_BAD = 8,     /* unsigned long long: the check's find  */
    DUO_CUDA_SCRATCH_VERDICT = 16, /* unsigned long long: its verdict      */
    /* unsigned[DUO_CUDA_SEGMENT_SPLIT_MAX]: a counter per segment whose
     * blocks share slots (segmented.cu). */
    DUO_CUDA_SCRATCH_SEGMENT_COUNTERS = 128,
    DUO_CUDA_SEGMENT_SPLIT_MAX = 32,
    DUO_CUDA_SCRATCH_SLOTS = 256, /* byte offset of the partial slots   */
    /* Slots, of up to 16 bytes: one per final-fold thread, per dot
     * product or per segment that shares slots. */
    DUO_CUDA_SCRATCH_SLOT_COUNT =
        (DUO_DOT_MAX > DUO_CUDA_SEGMENT_SPLIT_MAX
             ? DUO_DOT_MAX
             : DUO_CUDA_SEGMENT_SPLIT_MAX) * DUO_REDUCE_FINAL_THREADS,
    DUO_CUDA_REDUCE_SCRATCH_BYTES =
        DUO_CUDA_SCRATCH_SLOTS + DUO_CUDA_SCRATCH_SLOT_COUNT * 16
};
duo_status duo_cuda_reduce_scratch_new(void **scratch, const char *where);
void *duo_cuda_default_reduce_scratch(void);
/* duo_cuda_host_result_slot and duo_cuda_wait_host_result: see
 * duo/reduce_cuda.h. */
/* The scratch for a reduction queued on `stream` now. */
void *duo_cuda_reduce_scratch(duo_stream stream);

/* Bad segment offsets that a check on the GPU found (segmented.cu), in
 * mapped pinned memory: the kernel fills the fields, then sets pending;
 * the next wait (duo_cuda_offsets_checked) reports and clears it.  One
 * record for all streams: two bad calls at once on two streams may mix
 * their fields, never lose the error. */
typedef struct duo_cuda_offsets_report {
    unsigned pending;
    size_t index; /* offsets[index] = value > next (offsets[index + 1], */
    size_t value; /* or n when index == nseg)                           */
    size_t next;
    size_t nseg;
} duo_cuda_offsets_report;
/* The device's view of the record. */
duo_cuda_offsets_report *duo_cuda_offsets_report_slot(void);
/* After a host wait for GPU work (synchronize, stream synchronize,
 * memcpy, a host-bound result): DUO_SUCCESS, or the error a check found
 * in work that has finished, reported for `where`. */
duo_status duo_cuda_offsets_checked(const char *where);

/* The private stream a graph is captured from, and the open capture's
 * scratch (graph.cu); release the stream at duo_be_finalize. */
cudaStream_t duo_cuda_capture_stream(void);
void *duo_cuda_capture_scratch(void);
duo_status duo_cuda_graph_release(void);

/* Recent launches (launch.cu).  A kernel's fault is seen only by a later
 * call, on whatever stream, so each stream keeps what was launched on it
 * since its last successful wait -- the last DUO_CUDA_RECENT launches
 * and their count -- and the error after a fault lists them: a few
 * stores per launch, no allocation, no wait.  The default stream's is
 * launch.cu's; each duo_stream holds its own (stream.cu). */
enum { DUO_CUDA_RECENT = 4 };
typedef struct duo_cuda_recent {
    const char *kernel[DUO_CUDA_RECENT];
    const char *file[DUO_CUDA_RECENT]; /* NULL: duo's own work, no place */
    int line[DUO_CUDA_RECENT];
    unsigned long count;  /* launches since the last successful wait */
    unsigned long epoch;  /* count holds while this is the current epoch */
    duo_stream stream;    /* whose: NULL for the default stream */
    struct duo_cuda_recent *next, *prev;
} duo_cuda_recent;
/* A stream's record, listed from its creation to its destruction. */
void duo_cuda_recent_attach(duo_cuda_recent *recent, duo_stream stream);
void duo_cuda_recent_detach(duo_cuda_recent *recent);
duo_cuda_recent *duo_cuda_stream_recent(duo_stream stream); /* not NULL */
/* Note a launch on `stream` (not while a capture records it). */
void duo_cuda_note_launch(duo_stream stream, const char *kernel,
                          const char *file, int line);
/* A wait for `stream` (NULL: the default stream), or for the whole
 * device, succeeded: what was launched before it ran without fault. */
void duo_cuda_waited(duo_stream stream);
void duo_cuda_waited_all(void);
/* The launches since each stream's last successful wait, in words, for
 * the message after a fault. */
void duo_cuda_recent_describe(char *buf, size_t size);

/* Temporary device memory of the primitives (prim_memory.cu): taken on
 * `stream` from a pool that keeps it between calls; give it back with
 * cudaFreeAsync on the same stream.  duo_cuda_prim_release trims the
 * pool (duo_be_finalize). */
duo_status duo_cuda_prim_alloc(void **p, size_t bytes, cudaStream_t stream,
                               const char *where);
duo_status duo_cuda_prim_release(void);

/* The published sums that a stream's floating-point sum scans keep from
 * one call to the next (scan.cu): two areas used in turn.  The area a
 * scan uses is wholly empty; its kernel sets the other one's `dirty`
 * words, which the scan before left, back to empty, so no call
 * allocates or clears anything once the areas are large enough. */
typedef struct duo_cuda_scan_keep {
    unsigned long long *area[2];
    size_t words[2]; /* what each area holds */
    size_t dirty[2]; /* its words in use by the last scan that used it */
    int turn;        /* the area the next scan uses */
} duo_cuda_scan_keep;
/* The scan memory of `stream` (NULL: the default stream's). */
duo_cuda_scan_keep *duo_cuda_stream_scan_keep(duo_stream stream);
/* Give k's areas back on `stream`, after the work queued on it, and
 * leave k empty. */
duo_status duo_cuda_scan_keep_free(duo_cuda_scan_keep *k,
                                   cudaStream_t stream, const char *where);
/* Free the default stream's scan memory (duo_be_finalize, before
 * duo_cuda_prim_release trims the pool). */
duo_status duo_cuda_scan_release(void);

/* Release the launch module's scratch buffers (duo_be_finalize). */
duo_status duo_cuda_launch_release(void);
/* Read DUO_SYNC_LAUNCHES and allocate what launches need (duo_be_init). */
duo_status duo_cuda_launch_setup(void);

#endif /* DUO_CUDA_CHECK_H */
