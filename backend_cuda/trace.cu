/*
 * trace.cu (CUDA) - device times for the profiler from CUPTI.  The
 * activity API has the driver timestamp each kernel, copy and memset as
 * it runs; a callback on the few runtime calls that queue such work
 * notes which duo call was open when each was made, by the correlation
 * id CUPTI gives both the runtime call and its activity.
 *
 * Why this way: on an H200, in a loop of 200 launches of a 1.8 us
 * kernel (2.8 us a launch untraced), a pair of CUDA events per launch
 * cost 3.2 us a launch and reported 4.6 us, their span including the
 * host's time to queue the kernel; this trace costs about 0.6 us a
 * launch and reports 1.8 us.  CUPTI's own way to tie activities to a
 * caller's ids (external correlation) needs runtime API records, which
 * cost 1.0 us a launch once CUDA is running.
 *
 * CUPTI is loaded with dlopen when the profiler starts, so a CUDA build
 * runs where only the driver is installed and a run without profiling
 * never loads it.  CUPTI hands full buffers back on a thread of its own,
 * hence the lock around what the buffers are boiled down to.
 */
#include <stdio.h>

#include "cuda_check.h"

#ifdef DUO_NO_CUPTI /* the toolkit at build time had no CUPTI */

int duo_be_trace_start(void)
{
    fprintf(stderr, "duo profile: built without CUPTI; timing device work "
                    "with a pair of CUDA events per operation, which costs "
                    "about 3 us each\n");
    return 0;
}
void duo_be_trace_stop(void) {}
void duo_be_trace_push(uint64_t call) { (void)call; }
void duo_be_trace_pop(void) {}
duo_status duo_be_trace_drain(duo_trace_sink sink, unsigned long *lost)
{
    (void)sink;
    *lost = 0;
    return DUO_SUCCESS;
}

#else

#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#ifndef DUO_CUPTI_LIBRARY /* the build passes the toolkit's copy */
#define DUO_CUPTI_LIBRARY "libcupti.so"
#endif

enum { BUFFER_BYTES = 1 << 20 };
static const uint64_t NO_CALL = UINT64_MAX;

static const CUpti_ActivityKind traced_kinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMSET};
enum { KIND_COUNT = sizeof traced_kinds / sizeof traced_kinds[0] };

/* The runtime calls through which backend_cuda queues device work. */
static const CUpti_CallbackId queueing_calls[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    /* duo_cuda_launch_ (early launch, kernel_cuda.h) */
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020,
    /* A replay's kernels and copies carry its launch's correlation id. */
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000};
enum { CALL_COUNT = sizeof queueing_calls / sizeof queueing_calls[0] };

/* The CUPTI entry points duo uses, looked up by name. */
static struct {
    void *library;
    CUptiResult (*subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc,
                             void *);
    CUptiResult (*enable_callback)(uint32_t, CUpti_SubscriberHandle,
                                   CUpti_CallbackDomain, CUpti_CallbackId);
    CUptiResult (*register_buffers)(CUpti_BuffersCallbackRequestFunc,
                                    CUpti_BuffersCallbackCompleteFunc);
    CUptiResult (*enable)(CUpti_ActivityKind);
    CUptiResult (*disable)(CUpti_ActivityKind);
    CUptiResult (*flush_all)(uint32_t);
    CUptiResult (*next_record)(uint8_t *, size_t, CUpti_Activity **);
    CUptiResult (*dropped_records)(CUcontext, uint32_t, size_t *);
    CUptiResult (*result_string)(CUptiResult, const char **);
} cupti;

/* Which runtime call belongs to which duo call (written by the callback,
 * on duo's thread), and when the activity of each runtime call ran
 * (written from the buffers, on CUPTI's thread: under the lock). */
typedef struct {
    uint32_t correlation;
    uint64_t call;
} call_link;
typedef struct {
    uint32_t correlation;
    uint64_t start_ns, end_ns;
} activity_span;

static call_link *links;
static size_t link_count, link_capacity;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static activity_span *spans;
static size_t span_count, span_capacity;
static unsigned long dropped; /* records CUPTI or we could not keep */

static CUpti_SubscriberHandle subscriber;
static int buffers_registered, tracing;
/* Per thread, so that CUDA calls the program makes on threads of its
 * own are never taken for duo's. */
static thread_local uint64_t current_call = NO_CALL;

/* Room for one more element in a growing array. */
static int grow(void **array, size_t *capacity, size_t count, size_t size)
{
    if (count < *capacity)
        return 1;
    size_t want = *capacity ? 2 * *capacity : 4096;
    void *bigger = realloc(*array, want * size);
    if (bigger == NULL)
        return 0;
    *array = bigger;
    *capacity = want;
    return 1;
}

/* A queueing call is being made: note the duo call it belongs to. */
static void CUPTIAPI on_queueing_call(void *userdata,
                                      CUpti_CallbackDomain domain,
                                      CUpti_CallbackId id, const void *data)
{
    (void)userdata;
    (void)domain;
    (void)id;
    const CUpti_CallbackData *call = (const CUpti_CallbackData *)data;
    if (call->callbackSite != CUPTI_API_ENTER || current_call == NO_CALL)
        return;
    if (!grow((void **)&links, &link_capacity, link_count, sizeof *links)) {
        pthread_mutex_lock(&lock);
        dropped++;
        pthread_mutex_unlock(&lock);
        return;
    }
    links[link_count++] = call_link{call->correlationId, current_call};
}

/* Under the lock. */
static void keep_span(uint32_t correlation, uint64_t start, uint64_t end)
{
    if (!grow((void **)&spans, &span_capacity, span_count, sizeof *spans)) {
        dropped++;
        return;
    }
    spans[span_count++] = activity_span{correlation, start, end};
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size,
                                      size_t *max_records)
{
    /* CUPTI drops records (and counts them) when it gets no buffer. */
    *buffer = (uint8_t *)aligned_alloc(ACTIVITY_RECORD_ALIGNMENT,
                                       BUFFER_BYTES);
    *size = *buffer != NULL ? BUFFER_BYTES : 0;
    *max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream,
                                      uint8_t *buffer, size_t size,
                                      size_t valid)
{
    (void)size;
    pthread_mutex_lock(&lock);
    CUpti_Activity *record = NULL;
    while (valid > 0 &&
           cupti.next_record(buffer, valid, &record) == CUPTI_SUCCESS) {
        switch (record->kind) {
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
            const CUpti_ActivityKernel10 *r =
                (const CUpti_ActivityKernel10 *)record;
            keep_span(r->correlationId, r->start, r->end);
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
            const CUpti_ActivityMemcpy6 *r =
                (const CUpti_ActivityMemcpy6 *)record;
            /* Its correlationId is the driver call's. */
            keep_span(r->runtimeCorrelationId ? r->runtimeCorrelationId
                                              : r->correlationId,
                      r->start, r->end);
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            const CUpti_ActivityMemset4 *r =
                (const CUpti_ActivityMemset4 *)record;
            keep_span(r->correlationId, r->start, r->end);
            break;
        }
        default:
            break;
        }
    }
    size_t lost_here = 0;
    if (cupti.dropped_records(context, stream, &lost_here) == CUPTI_SUCCESS)
        dropped += lost_here;
    pthread_mutex_unlock(&lock);
    free(buffer);
}

static const char *cupti_text(CUptiResult result)
{
    const char *text = NULL;
    if (cupti.result_string == NULL ||
        cupti.result_string(result, &text) != CUPTI_SUCCESS || text == NULL)
        return "unknown CUPTI error";
    return text;
}

#define LOAD(field, symbol)                                               \
    do {                                                                  \
        cupti.field = reinterpret_cast<decltype(cupti.field)>(            \
            dlsym(library, #symbol));                                     \
        if (cupti.field == NULL)                                          \
            return #symbol " is missing from the CUPTI library";          \
    } while (0)

/* NULL once every entry point is found, else why not.  The library
 * counts as loaded only then, so a failed load is never half used. */
static const char *load_cupti(void)
{
    if (cupti.library != NULL)
        return NULL;
    void *library = dlopen(DUO_CUPTI_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL)
        library = dlopen("libcupti.so", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL)
        return "libcupti.so (part of the CUDA toolkit) could not be loaded";
    LOAD(result_string, cuptiGetResultString);
    LOAD(subscribe, cuptiSubscribe);
    LOAD(enable_callback, cuptiEnableCallback);
    LOAD(register_buffers, cuptiActivityRegisterCallbacks);
    LOAD(enable, cuptiActivityEnable);
    LOAD(disable, cuptiActivityDisable);
    LOAD(flush_all, cuptiActivityFlushAll);
    LOAD(next_record, cuptiActivityGetNextRecord);
    LOAD(dropped_records, cuptiActivityGetNumDroppedRecords);
    cupti.library = library;
    return NULL;
}

/* Turn off the first `kinds` traced kinds and the callbacks on the first
 * `calls` queueing calls; say so if CUPTI refuses. */
static void disable_tracing(int kinds, int calls)
{
    for (int k = 0; k < kinds; ++k) {
        CUptiResult result = cupti.disable(traced_kinds[k]);
        if (result != CUPTI_SUCCESS)
            fprintf(stderr, "duo profile: cuptiActivityDisable(%d): %s\n",
                    (int)traced_kinds[k], cupti_text(result));
    }
    for (int c = 0; c < calls; ++c) {
        CUptiResult result = cupti.enable_callback(
            0, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, queueing_calls[c]);
        if (result != CUPTI_SUCCESS)
            fprintf(stderr, "duo profile: cuptiEnableCallback(0, %u): %s\n",
                    (unsigned)queueing_calls[c], cupti_text(result));
    }
}

/* NULL once the trace is on, else why not (with nothing left on). */
static const char *start_tracing(void)
{
    const char *why = load_cupti();
    if (why != NULL)
        return why;
    CUptiResult result;
    if (subscriber == NULL) {
        /* Refused while another tool (Nsight, compute-sanitizer) holds
         * CUPTI. */
        result = cupti.subscribe(&subscriber,
                                 (CUpti_CallbackFunc)on_queueing_call, NULL);
        if (result != CUPTI_SUCCESS) {
            subscriber = NULL;
            return cupti_text(result);
        }
    }
    if (!buffers_registered) {
        result = cupti.register_buffers(buffer_requested, buffer_completed);
        if (result != CUPTI_SUCCESS)
            return cupti_text(result);
        buffers_registered = 1;
    }
    for (int k = 0; k < KIND_COUNT; ++k) {
        result = cupti.enable(traced_kinds[k]);
        if (result != CUPTI_SUCCESS) {
            disable_tracing(k, 0);
            return cupti_text(result);
        }
    }
    for (int c = 0; c < CALL_COUNT; ++c) {
        result = cupti.enable_callback(1, subscriber,
                                       CUPTI_CB_DOMAIN_RUNTIME_API,
                                       queueing_calls[c]);
        if (result != CUPTI_SUCCESS) {
            disable_tracing(KIND_COUNT, c);
            return cupti_text(result);
        }
    }
    return NULL;
}

int duo_be_trace_start(void)
{
    if (tracing)
        return 1;
    const char *why = start_tracing();
    if (why != NULL) {
        fprintf(stderr, "duo profile: no CUPTI trace (%s); timing device "
                        "work with a pair of CUDA events per operation "
                        "instead, which costs about 3 us each\n",
                why);
        return 0;
    }
    tracing = 1;
    duo_cuda_pause_early_launch(1);
    return 1;
}

void duo_be_trace_stop(void)
{
    if (!tracing)
        return;
    disable_tracing(KIND_COUNT, CALL_COUNT);
    current_call = NO_CALL;
    tracing = 0;
    duo_cuda_pause_early_launch(0);
}

void duo_be_trace_push(uint64_t call) { current_call = call; }
void duo_be_trace_pop(void) { current_call = NO_CALL; }

static int by_correlation(const void *a, const void *b)
{
    uint32_t x = ((const call_link *)a)->correlation;
    uint32_t y = ((const call_link *)b)->correlation;
    return (x > y) - (x < y);
}

duo_status duo_be_trace_drain(duo_trace_sink sink, unsigned long *lost)
{
    *lost = 0;
    if (!tracing)
        return DUO_SUCCESS;
    /* Everything queued has run, so a forced flush hands back every
     * record, complete. */
    DUO_CUDA_TRY(cudaDeviceSynchronize(), "duo profiler");
    CUptiResult result = cupti.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (result != CUPTI_SUCCESS)
        return duo_fail(DUO_ERROR_BACKEND, "duo profiler",
                        "cuptiActivityFlushAll: %s", cupti_text(result));
    qsort(links, link_count, sizeof *links, by_correlation);
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < span_count; ++i) {
        const call_link key = {spans[i].correlation, 0};
        const call_link *link = (const call_link *)bsearch(
            &key, links, link_count, sizeof *links, by_correlation);
        /* Activities outside any duo call (the program's own CUDA
         * calls) have no link and are not duo's to report. */
        if (link != NULL)
            sink(link->call, spans[i].start_ns, spans[i].end_ns);
    }
    link_count = span_count = 0;
    *lost = dropped;
    dropped = 0;
    pthread_mutex_unlock(&lock);
    return DUO_SUCCESS;
}

#endif /* DUO_NO_CUPTI */
