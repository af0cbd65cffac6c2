/*
 * test_soak.c - many cycles of allocate / copy / launch / reduce / free,
 * checking every result and that nothing accumulates: a leak of one
 * allocation, stream, timer or file per cycle would show.
 *
 *   test_soak [CYCLES]      default DUO_SOAK_CYCLES, else 100000
 *
 * One cycle: duo_malloc x and y, duo_malloc_host a staging buffer, a
 * stream and a timer; copy x in with duo_memcpy and y with
 * duo_memcpy_async from the pinned buffer; launch y = 3x + y on the
 * stream between the timer's start and stop; duo_reduce the sum of y;
 * copy y back; free everything.  Sizes cycle through 1, primes and
 * non-multiples of block sizes.  Values are small integers, so the sum
 * is exact and must equal the host's.
 *
 * Baselines are taken after a warm-up (which lets the runtimes make
 * their one-time allocations) and compared at the half-way point and at
 * the end:
 *  - host heap in use (glibc mallinfo2: uordblks + hblkhd) may grow by
 *    at most HEAP_SLACK = 64 KiB.  A leak of even the smallest chunk
 *    (32 bytes) per cycle over the 10^4 cycles CI runs is 320 KiB, so it
 *    cannot hide in the slack.  Under AddressSanitizer the heap belongs
 *    to ASan (mallinfo2 does not see it) and LeakSanitizer checks it at
 *    exit instead; without glibc the check is skipped, and says so.
 *  - open file descriptors (/proc/self/fd): exactly the baseline.
 *  - CUDA build: free device memory (duo_device_info_get) may be lower
 *    than the baseline by at most DEVICE_SLACK = 2 MiB (the driver's
 *    page granularity; one leaked 4 KiB buffer per cycle exceeds it after
 *    512 cycles).  Another process using the same GPU can disturb this.
 */
#include <stdlib.h>

#if defined(__linux__)
#include <dirent.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "test_util.h"

#if defined(__SANITIZE_ADDRESS__)
#define SOAK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SOAK_ASAN 1
#endif
#endif

#define HEAP_SLACK ((long long)64 << 10)
#define DEVICE_SLACK ((long long)2 << 20)
#define WARMUP_CYCLES 200

DUO_KERNEL(soak_axpy, size_t n, float a, const float *x, float *y)
{
    DUO_FOR(i, n)
        y[i] = a * x[i] + y[i];
}

static const size_t sizes[] = {1, 2, 3, 17, 255, 256, 257, 1009, 4099};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define MAX_N 4099
#define OFFSETS 101 /* cycles read the inputs from varying offsets */

static float in_x[MAX_N + OFFSETS], in_y[MAX_N + OFFSETS];
static float out_y[MAX_N];

/* Host heap in use, bytes; -1 where it cannot be measured. */
static long long heap_in_use(void)
{
#if defined(__GLIBC__) && !defined(SOAK_ASAN) &&                          \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 mi = mallinfo2();
    return (long long)mi.uordblks + (long long)mi.hblkhd;
#else
    return -1;
#endif
}

/* Open file descriptors; -1 where /proc/self/fd is not there. */
static long long open_fds(void)
{
#if defined(__linux__)
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL)
        return -1;
    long long count = 0;
    while (readdir(d) != NULL)
        ++count;
    closedir(d);
    return count - 3; /* ".", ".." and the one opendir holds */
#else
    return -1;
#endif
}

/* Free device memory on the GPU; -1 on CPU backends and a CUDA build's
 * host path, where device memory is the host heap measured above. */
static long long device_free(void)
{
    if (!test_on_gpu())
        return -1; /* the host path: device memory is the heap */
    duo_device_info info;
    if (!CHECK_OK(duo_device_info_get(&info)))
        return -1;
    return (long long)info.free_memory;
}

/* The work of one cycle on buffers and handles that cycle() made. */
static void cycle_work(size_t c, size_t n, const float *hx, const float *hy,
                       float *x, float *y, float *pinned, duo_stream stream,
                       duo_timer timer)
{
    const size_t bytes = n * sizeof(float);
    memcpy(pinned, hy, bytes);
    CHECK_OK(duo_memcpy(x, hx, bytes, DUO_HOST_TO_DEVICE));
    CHECK_OK(duo_memcpy_async(y, pinned, bytes, DUO_HOST_TO_DEVICE, stream));
    CHECK_OK(duo_timer_start(timer, stream));
    CHECK_OK(DUO_LAUNCH_ON(stream, soak_axpy, n, n, 3.0f, x, y));
    CHECK_OK(duo_timer_stop(timer, stream));
    CHECK_OK(duo_stream_synchronize(stream));
    double ms = -1.0;
    CHECK_OK(duo_timer_elapsed_ms(timer, &ms));
    CHECK_MSG(ms >= 0.0, "cycle %zu: elapsed %g ms", c, ms);

    double sum = -1.0, want = 0.0;
    CHECK_OK(duo_reduce(DUO_SUM, DUO_F32, y, n, &sum));
    test_poison_f32(out_y, n);
    CHECK_OK(duo_memcpy(out_y, y, bytes, DUO_DEVICE_TO_HOST));
    size_t wrong = 0;
    for (size_t i = 0; i < n; ++i) {
        float w = 3.0f * hx[i] + hy[i]; /* exact: small integers */
        want += w;
        wrong += test_bits_f32(out_y[i]) != test_bits_f32(w);
    }
    CHECK_MSG(wrong == 0, "cycle %zu (n = %zu): %zu elements of y wrong", c,
              n, wrong);
    CHECK_MSG(sum == want, "cycle %zu (n = %zu): sum %.17g, want %.17g", c,
              n, sum, want);
}

/* One cycle; returns 0 if every call and value was right. */
static int cycle(size_t c)
{
    const size_t n = sizes[c % NSIZES];
    const size_t bytes = n * sizeof(float);
    float *x = NULL, *y = NULL, *pinned = NULL;
    duo_stream stream = NULL;
    duo_timer timer = NULL;
    long before = test_failures;

    CHECK_OK(duo_malloc((void **)&x, bytes));
    CHECK_OK(duo_malloc((void **)&y, bytes));
    CHECK_OK(duo_malloc_host((void **)&pinned, bytes));
    CHECK_OK(duo_stream_create(&stream));
    CHECK_OK(duo_timer_create(&timer));
    if (test_failures == before)
        cycle_work(c, n, in_x + c % OFFSETS, in_y + c % OFFSETS, x, y,
                   pinned, stream, timer);

    CHECK_OK(duo_timer_destroy(timer));
    CHECK_OK(duo_stream_destroy(stream));
    CHECK_OK(duo_free_host(pinned));
    CHECK_OK(duo_free(y));
    CHECK_OK(duo_free(x));
    return test_failures == before ? 0 : -1;
}

typedef struct usage {
    long long heap, fds, device;
} usage;

static usage measure(void)
{
    usage u;
    u.heap = heap_in_use();
    u.fds = open_fds();
    u.device = device_free();
    return u;
}

/* DUO_SOAK_SKIP_USAGE=<why> turns off the baseline checks (the values
 * are still checked every cycle): for runs under a tool that keeps its
 * own growing records in the process, as compute-sanitizer's initcheck
 * does (tests/sanitize/gpu_sweep.py sets it there, and says why). */
static const char *skip_usage;

static void compare(const usage *base, const usage *now, size_t cycles)
{
    if (skip_usage != NULL)
        return;
    test_set_context("after %zu cycles", cycles);
    if (base->heap >= 0 && now->heap >= 0)
        CHECK_MSG(now->heap - base->heap <= HEAP_SLACK, "host heap in use "
                  "grew by %lld bytes (baseline %lld, slack %lld)",
                  now->heap - base->heap, base->heap, HEAP_SLACK);
    if (base->fds >= 0 && now->fds >= 0)
        CHECK_MSG(now->fds == base->fds, "open file descriptors: %lld, "
                  "baseline %lld", now->fds, base->fds);
    if (base->device >= 0 && now->device >= 0)
        CHECK_MSG(base->device - now->device <= DEVICE_SLACK, "free device "
                  "memory fell by %lld bytes (baseline %lld, slack %lld)",
                  base->device - now->device, base->device, DEVICE_SLACK);
    printf("soak: after %zu cycles: heap %+lld bytes, fds %+lld, device "
           "free %+lld bytes\n", cycles,
           base->heap >= 0 ? now->heap - base->heap : 0LL,
           base->fds >= 0 ? now->fds - base->fds : 0LL,
           base->device >= 0 ? now->device - base->device : 0LL);
    test_set_context("%s", "");
}

/* A count of cycles from text: digits only, 1 to 10^9. */
static int parse_cycles(const char *text, size_t *out)
{
    if (text == NULL || text[0] < '0' || text[0] > '9')
        return -1;
    char *end = NULL;
    unsigned long long v = strtoull(text, &end, 10);
    if (*end != '\0' || v < 1 || v > 1000000000ULL)
        return -1;
    *out = (size_t)v;
    return 0;
}

int main(int argc, char **argv)
{
    size_t cycles = 100000;
    const char *text = argc > 1 ? argv[1] : getenv("DUO_SOAK_CYCLES");
    if (text != NULL && parse_cycles(text, &cycles) != 0) {
        fprintf(stderr, "test_soak: cycle count '%s' (%s): expected an "
                "integer from 1 to 10^9\n", text,
                argc > 1 ? "argument" : "DUO_SOAK_CYCLES");
        return 2;
    }

    skip_usage = getenv("DUO_SOAK_SKIP_USAGE");
    if (skip_usage != NULL && skip_usage[0] == '\0')
        skip_usage = NULL;

    test_rng rng;
    test_rng_seed(&rng, 0x736F616BULL);
    for (size_t i = 0; i < MAX_N + OFFSETS; ++i) {
        in_x[i] = (float)test_rng_range(&rng, -1000, 1000);
        in_y[i] = (float)test_rng_range(&rng, 1, 1000); /* never zero */
    }

    test_init_or_skip();
    printf("soak: %zu cycles on %s (heap check: %s)\n", cycles,
           duo_backend_name(),
           heap_in_use() >= 0 ? "mallinfo2" : "not here; LeakSanitizer or "
                                              "memcheck covers it");
    for (size_t c = 0; c < WARMUP_CYCLES; ++c)
        if (cycle(c) != 0)
            return test_summary("soak");
    usage base = measure();
    for (size_t c = 0; c < cycles; ++c) {
        if (cycle(c) != 0)
            break;
        if (c + 1 == cycles / 2) {
            usage mid = measure();
            compare(&base, &mid, c + 1);
        }
    }
    usage end = measure();
    compare(&base, &end, cycles);
    if (skip_usage != NULL)
        printf("soak: usage checks skipped (DUO_SOAK_SKIP_USAGE): %s\n",
               skip_usage);
    CHECK_OK(duo_finalize());
    return test_summary("soak");
}
