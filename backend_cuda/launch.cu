/*
 * launch.cu (CUDA) - launch geometry for DUO_LAUNCH, the check after each
 * launch, which launches ask for early launch, the record of recent
 * launches that names the kernels after a fault, and the memory that
 * reductions share: the default stream's partials and the mapped slot
 * for host-bound results.
 *
 * Geometry: 256-thread blocks (32 x 8 in 2-D, 32 x 4 x 2 in 3-D, x always
 * 32 wide so a warp reads consecutive j or k).  The grid gives one thread
 * per index, as a hand-written launch would: capping it and letting the
 * grid-stride loop in DUO_FOR do the rest measured 4.7% slower for a
 * streaming kernel at 2^25 elements.  The loop still covers index spaces
 * beyond CUDA's grid limits.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"

enum { MAX_GRID_X = 0x7fffffff, MAX_GRID_YZ = 65535 };

static int sync_launches;   /* DUO_SYNC_LAUNCHES=1: wait after launches */
static int early_launch;    /* compute capability 9.0+, DUO_EARLY_LAUNCH */
static int early_paused;    /* the profiler's trace is on */
static int last_early;      /* the last launch asked for early launch */
/* Pinned host memory mapped into the device's address space: duo_reduce's
 * last block writes its result straight to the host, so a host-bound
 * result costs a wait rather than a wait and a copy. */
static void *result_slot;
static void *result_slot_device;
/* Bad segment offsets found on the GPU (cuda_check.h), also mapped. */
static duo_cuda_offsets_report *offsets_report;
static duo_cuda_offsets_report *offsets_report_device;
static void *default_reduce_scratch; /* reductions on the default stream */

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

static unsigned clamp_blocks(size_t blocks, size_t cap)
{
    if (blocks == 0)
        return 1; /* an empty index space still launches, and does nothing */
    return (unsigned)(blocks < cap ? blocks : cap);
}

dim3 duo_cuda_block_1d(void) { return dim3(256); }
dim3 duo_cuda_block_2d(void) { return dim3(32, 8); }
dim3 duo_cuda_block_3d(void) { return dim3(32, 4, 2); }

dim3 duo_cuda_grid_1d(size_t n)
{
    return dim3(clamp_blocks(ceil_div(n, 256), MAX_GRID_X));
}

dim3 duo_cuda_grid_2d(size_t ni, size_t nj)
{
    unsigned gx = clamp_blocks(ceil_div(nj, 32), MAX_GRID_X);
    unsigned gy = clamp_blocks(ceil_div(ni, 8), MAX_GRID_YZ);
    return dim3(gx, gy);
}

dim3 duo_cuda_grid_3d(size_t ni, size_t nj, size_t nk)
{
    unsigned gx = clamp_blocks(ceil_div(nk, 32), MAX_GRID_X);
    unsigned gy = clamp_blocks(ceil_div(nj, 4), MAX_GRID_YZ);
    unsigned gz = clamp_blocks(ceil_div(ni, 2), MAX_GRID_YZ);
    return dim3(gx, gy, gz);
}

dim3 duo_cuda_grid_blocks(size_t gx, size_t gy)
{
    /* Beyond CUDA's limits the launch fails and reports the size; a
     * truncated dim3 would silently run fewer blocks. */
    if (gx > 0x7fffffffu || gy > MAX_GRID_YZ)
        return dim3(0, 0);
    return dim3((unsigned)gx, (unsigned)gy);
}

/* ------------------------------------------------------------------ */
/* Recent launches (cuda_check.h) */

static duo_cuda_recent default_recent;  /* the default stream's */
static duo_cuda_recent *stream_recents; /* each duo_stream's, listed */
/* A wait for the whole device starts a new epoch, which empties every
 * stream's record at once (records start at epoch 0: empty). */
static unsigned long recent_epoch = 1;

static duo_cuda_recent *recent_of(duo_stream stream)
{
    return stream == NULL ? &default_recent : duo_cuda_stream_recent(stream);
}

void duo_cuda_recent_attach(duo_cuda_recent *recent, duo_stream stream)
{
    recent->stream = stream;
    recent->prev = NULL;
    recent->next = stream_recents;
    if (stream_recents != NULL)
        stream_recents->prev = recent;
    stream_recents = recent;
}

void duo_cuda_recent_detach(duo_cuda_recent *recent)
{
    if (recent->prev != NULL)
        recent->prev->next = recent->next;
    else
        stream_recents = recent->next;
    if (recent->next != NULL)
        recent->next->prev = recent->prev;
}

void duo_cuda_note_launch(duo_stream stream, const char *kernel,
                          const char *file, int line)
{
    /* A capture's launches run only when its graph does, and that
     * launch is noted (graph.cu). */
    if (duo_capture_active())
        return;
    duo_cuda_recent *r = recent_of(stream);
    if (r->epoch != recent_epoch) {
        r->epoch = recent_epoch;
        r->count = 0;
    }
    const unsigned i = (unsigned)(r->count % DUO_CUDA_RECENT);
    r->kernel[i] = kernel;
    r->file[i] = file;
    r->line[i] = line;
    r->count++;
}

void duo_cuda_waited(duo_stream stream)
{
    duo_cuda_recent *r = recent_of(stream);
    r->epoch = recent_epoch;
    r->count = 0;
}

void duo_cuda_waited_all(void) { recent_epoch++; }

/* printf at buf + *used, within size, always terminated. */
static void append(char *buf, size_t size, size_t *used, const char *fmt,
                   ...)
{
    if (*used + 1 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(buf + *used, size - *used, fmt, ap);
    va_end(ap);
    if (n > 0)
        *used += (size_t)n < size - *used ? (size_t)n : size - *used - 1;
}

/* "on stream 0x... 6 launches, the last 4: a (f.c:1), ...". */
static void describe_one(const duo_cuda_recent *r, char *buf, size_t size,
                         size_t *used)
{
    const unsigned long shown =
        r->count < DUO_CUDA_RECENT ? r->count : DUO_CUDA_RECENT;
    if (*used > 0)
        append(buf, size, used, "; ");
    if (r->stream == NULL)
        append(buf, size, used, "on the default stream");
    else
        append(buf, size, used, "on stream %p", (void *)r->stream);
    append(buf, size, used, " %lu launch%s", r->count,
           r->count == 1 ? "" : "es");
    if (r->count > shown)
        append(buf, size, used, ", the last %lu", shown);
    for (unsigned long k = r->count - shown; k < r->count; ++k) {
        const unsigned i = (unsigned)(k % DUO_CUDA_RECENT);
        append(buf, size, used, "%s %s", k == r->count - shown ? ":" : ",",
               r->kernel[i]);
        if (r->file[i] != NULL) {
            const char *slash = strrchr(r->file[i], '/');
            append(buf, size, used, " (%s:%d)",
                   slash != NULL ? slash + 1 : r->file[i], r->line[i]);
        }
    }
}

void duo_cuda_recent_describe(char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    if (default_recent.epoch == recent_epoch && default_recent.count > 0)
        describe_one(&default_recent, buf, size, &used);
    for (const duo_cuda_recent *r = stream_recents; r != NULL; r = r->next)
        if (r->epoch == recent_epoch && r->count > 0)
            describe_one(r, buf, size, &used);
    if (used == 0)
        append(buf, size, &used, "nothing on any stream");
}

/* ------------------------------------------------------------------ */
/* The check after a launch */

/* cudaGetLastError (launch errors, and a fault that has shown already),
 * and with DUO_SYNC_LAUNCHES a wait for the kernel. */
static duo_status check_launch(const char *kernel, const char *file,
                               int line)
{
    cudaError_t err = cudaGetLastError();
    /* A capture runs nothing, and may not wait. */
    if (err == cudaSuccess && sync_launches && !duo_capture_active()) {
        err = cudaDeviceSynchronize();
        if (err == cudaSuccess)
            duo_cuda_waited_all();
    }
    if (err == cudaSuccess)
        return DUO_SUCCESS;
    return duo_cuda_fail(err, file, line, kernel,
                         sync_launches ? "kernel launch or execution"
                                       : "kernel launch");
}

duo_status duo_cuda_launch_check(const char *kernel, const char *file,
                                 int line)
{
    duo_cuda_note_launch(NULL, kernel, file, line); /* user reductions */
    return check_launch(kernel, file, line);
}

duo_status duo_be_launch_check(const char *kernel, duo_stream stream,
                               const char *file, int line)
{
    duo_cuda_note_launch(stream, kernel, file, line);
    return check_launch(kernel, file, line);
}

void *duo_cuda_host_result_slot(void) { return result_slot_device; }

duo_status duo_cuda_wait_host_result(void *result, size_t bytes,
                                     const char *where, const char *file,
                                     int line)
{
    /* The kernel was queued on the default stream; its writes to mapped
     * memory are visible once it has finished. */
    cudaError_t err = cudaStreamSynchronize(0);
    if (err != cudaSuccess)
        return duo_cuda_fail(err, file, line, where,
                             "waiting for the reduced value");
    duo_cuda_waited(NULL);
    memcpy(result, result_slot, bytes);
    return duo_cuda_offsets_checked(where);
}

duo_cuda_offsets_report *duo_cuda_offsets_report_slot(void)
{
    return offsets_report_device;
}

duo_status duo_cuda_offsets_checked(const char *where)
{
    volatile duo_cuda_offsets_report *r = offsets_report;
    if (r == NULL || r->pending == 0)
        return DUO_SUCCESS;
    const size_t index = r->index, value = r->value, next = r->next;
    const size_t nseg = r->nseg;
    r->pending = 0;
    if (index < nseg)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "an earlier duo_segmented_reduce on the GPU found "
                        "offsets[%zu] = %zu > offsets[%zu] = %zu: segment "
                        "offsets must be non-decreasing; that call wrote no "
                        "result", index, value, index + 1, next);
    return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                    "an earlier duo_segmented_reduce on the GPU found "
                    "offsets[%zu] = %zu > n = %zu: the last segment runs "
                    "past the end of x; that call wrote no result", index,
                    value, next);
}

duo_status duo_cuda_reduce_scratch_new(void **scratch_out, const char *where)
{
    void *p = NULL;
    DUO_CUDA_TRY(cudaMalloc(&p, DUO_CUDA_REDUCE_SCRATCH_BYTES), where);
    /* The last-block counter must start at 0; wait, so that work on a
     * non-blocking stream cannot overtake the memset. */
    cudaError_t err = cudaMemset(p, 0, DUO_CUDA_REDUCE_SCRATCH_BYTES);
    if (err == cudaSuccess)
        err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        (void)cudaFree(p); /* already failing */
        return duo_cuda_fail(err, __FILE__, __LINE__, where,
                             "zeroing reduction scratch");
    }
    *scratch_out = p;
    return DUO_SUCCESS;
}

void *duo_cuda_default_reduce_scratch(void) { return default_reduce_scratch; }

void *duo_cuda_default_reduce_slots(unsigned **counter)
{
    char *base = (char *)default_reduce_scratch;
    *counter = (unsigned *)(base + DUO_CUDA_SCRATCH_COUNTER);
    return base + DUO_CUDA_SCRATCH_SLOTS;
}

/* ------------------------------------------------------------------ */
/* Early launch, only for kernels that wait (kernel_cuda.h).  Whether an
 * entry's code was compiled for compute capability 9.0 or later is read
 * once per entry (cudaFuncGetAttributes: the PTX it came from and the
 * machine code run) and kept in an open-addressing table keyed by the
 * entry's address, so a launch costs a lookup. */

typedef struct entry_wait {
    const void *entry; /* NULL: empty */
    int waits;
} entry_wait;

static entry_wait *entries;
static size_t entries_cap, entries_used; /* cap: 0 or a power of two */

static size_t entry_home(const void *entry, size_t cap)
{
    const uint64_t h = (uint64_t)(uintptr_t)entry * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 32) & (cap - 1);
}

static entry_wait *entry_find(const void *entry)
{
    if (entries_cap == 0)
        return NULL;
    for (size_t at = entry_home(entry, entries_cap);;
         at = (at + 1) & (entries_cap - 1))
        if (entries[at].entry == entry || entries[at].entry == NULL)
            return &entries[at];
}

/* Room for one more entry at half load; 0 when no memory is left (the
 * answer is then not kept, only found again next time). */
static int entries_reserve(void)
{
    if (2 * (entries_used + 1) <= entries_cap)
        return 1;
    const size_t cap = entries_cap ? 2 * entries_cap : 64;
    entry_wait *grown = (entry_wait *)calloc(cap, sizeof *grown);
    if (grown == NULL)
        return 0;
    entry_wait *old = entries;
    const size_t old_cap = entries_cap;
    entries = grown;
    entries_cap = cap;
    for (size_t i = 0; i < old_cap; ++i)
        if (old[i].entry != NULL)
            *entry_find(old[i].entry) = old[i];
    free(old);
    return 1;
}

static int entry_waits(const void *entry)
{
    entry_wait *e = entry_find(entry);
    if (e != NULL && e->entry == entry)
        return e->waits;
    cudaFuncAttributes attr;
    if (cudaFuncGetAttributes(&attr, entry) != cudaSuccess) {
        (void)cudaGetLastError(); /* the launch reports its own failure */
        return 0;
    }
    const int waits = attr.ptxVersion >= 90 && attr.binaryVersion >= 90;
    if (entries_reserve()) {
        e = entry_find(entry);
        e->entry = entry;
        e->waits = waits;
        ++entries_used;
    }
    return waits;
}

int duo_cuda_early_launch_for(const void *entry)
{
    last_early = early_launch && !early_paused && entry_waits(entry);
    return last_early;
}

int duo_cuda_last_launch_early(void) { return last_early; }

void duo_cuda_pause_early_launch(int paused) { early_paused = paused; }

static void entries_release(void)
{
    free(entries);
    entries = NULL;
    entries_cap = 0;
    entries_used = 0;
}

duo_status duo_cuda_launch_setup(void)
{
    const char *env = getenv("DUO_SYNC_LAUNCHES");
    sync_launches = env != NULL && strcmp(env, "0") != 0 && env[0] != '\0';
    /* Early launch needs compute capability 9.0; DUO_EARLY_LAUNCH=0
     * turns it off (to compare, or to rule it out). */
    int device = 0, major = 0;
    DUO_CUDA_TRY(cudaGetDevice(&device), "duo_init");
    DUO_CUDA_TRY(cudaDeviceGetAttribute(
                     &major, cudaDevAttrComputeCapabilityMajor, device),
                 "duo_init");
    env = getenv("DUO_EARLY_LAUNCH");
    early_launch = major >= 9 && !(env != NULL && strcmp(env, "0") == 0);
    if (result_slot == NULL) {
        DUO_CUDA_TRY(cudaHostAlloc(&result_slot, 64, cudaHostAllocMapped),
                     "duo_init");
        DUO_CUDA_TRY(cudaHostGetDevicePointer(&result_slot_device,
                                              result_slot, 0),
                     "duo_init");
    }
    if (offsets_report == NULL) {
        DUO_CUDA_TRY(cudaHostAlloc((void **)&offsets_report,
                                   sizeof *offsets_report,
                                   cudaHostAllocMapped),
                     "duo_init");
        memset(offsets_report, 0, sizeof *offsets_report);
        DUO_CUDA_TRY(cudaHostGetDevicePointer((void **)&offsets_report_device,
                                              offsets_report, 0),
                     "duo_init");
    }
    if (default_reduce_scratch == NULL)
        return duo_cuda_reduce_scratch_new(&default_reduce_scratch,
                                           "duo_init");
    return DUO_SUCCESS;
}

duo_status duo_cuda_launch_release(void)
{
    void *pinned = result_slot, *report = offsets_report;
    void *reduce = default_reduce_scratch;
    result_slot = NULL;
    result_slot_device = NULL;
    offsets_report = NULL;
    offsets_report_device = NULL;
    default_reduce_scratch = NULL;
    entries_release(); /* the next duo_init may pick another GPU */
    DUO_CUDA_TRY(cudaFree(reduce), "duo_finalize");
    DUO_CUDA_TRY(cudaFreeHost(pinned), "duo_finalize");
    DUO_CUDA_TRY(cudaFreeHost(report), "duo_finalize");
    return DUO_SUCCESS;
}
