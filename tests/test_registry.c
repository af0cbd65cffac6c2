/*
 * test_registry.c - the allocation registry (src/registry.c) on every
 * backend.  duo_free and duo_free_host refuse what is not a live
 * allocation of theirs (a stack or heap pointer, a pointer inside an
 * allocation, one freed already, one of the other kind) with
 * DUO_ERROR_INVALID_ARGUMENT and a message that names the pointer and
 * what it is, and free nothing.  Copies and memsets (and the async copy)
 * whose range runs past the end of an allocation, or into one from
 * below, are refused the same way and write nothing; ranges wholly
 * inside an allocation, or wholly outside all (the caller's own
 * buffers), still work.  duo_memory_usage_get counts what is live, and
 * duo_finalize reports what was never freed (DUO_LEAKS=1: each with the
 * file:line that allocated it).  The registry itself (src/registry.h) is
 * also driven directly with thousands of stand-in allocations, against a
 * model.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv, dup, fileno */
#include <stdlib.h>
#include <unistd.h>

#include "registry.h"
#include "test_util.h"

static test_rng rng;

/* Sizes of the allocations under test: one byte, a prime, and one that
 * is not a multiple of any allocator's granularity. */
static const size_t sizes[] = {1, 61, 4099};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* duo_last_error() names p as printf's %p writes it. */
#define CHECK_NAMES_PTR(p)                                          \
    do {                                                            \
        char ptr_text_[64];                                         \
        snprintf(ptr_text_, sizeof ptr_text_, "%p", (const void *)(p)); \
        CHECK_CONTAINS(duo_last_error(), ptr_text_);                \
    } while (0)

static duo_memory_usage usage_now(void)
{
    duo_memory_usage u;
    memset(&u, 0xA5, sizeof u);
    CHECK_OK(duo_memory_usage_get(&u));
    return u;
}

#define CHECK_SAME_USAGE(a, b)                                            \
    do {                                                                  \
        CHECK_EQ_U64((a).device_allocations, (b).device_allocations);     \
        CHECK_EQ_U64((a).device_bytes, (b).device_bytes);                 \
        CHECK_EQ_U64((a).host_allocations, (b).host_allocations);         \
        CHECK_EQ_U64((a).host_bytes, (b).host_bytes);                     \
    } while (0)

/* The device bytes at d equal want[0, n). */
static void check_device(const unsigned char *d, const unsigned char *want,
                         size_t n, const char *what)
{
    unsigned char *h = (unsigned char *)test_xmalloc(n);
    test_poison_bytes(h, n);
    test_to_host(h, d, n);
    size_t at = 0;
    while (at < n && h[at] == want[at])
        ++at;
    CHECK_MSG(at == n, "%s: device byte %zu is 0x%02x, want 0x%02x", what,
              at, at < n ? h[at] : 0u, at < n ? want[at] : 0u);
    free(h);
}

/* ------------------------------------------------------------------ */
/* Frees of what is not a live allocation                              */

static void test_bad_frees(void)
{
    for (size_t si = 0; si < NSIZES; ++si) {
        const size_t n = sizes[si];
        test_set_context("bad frees, %zu-byte allocations", n);
        unsigned char *want_d = (unsigned char *)test_xmalloc(n);
        unsigned char *want_h = (unsigned char *)test_xmalloc(n);
        unsigned char *heap = (unsigned char *)test_xmalloc(n);
        unsigned char *want_heap = (unsigned char *)test_xmalloc(n);
        unsigned char stack[64], want_stack[64];
        test_rng_bytes(&rng, want_d, n);
        test_rng_bytes(&rng, want_h, n);
        test_rng_bytes(&rng, want_heap, n);
        test_rng_bytes(&rng, want_stack, sizeof want_stack);
        memcpy(heap, want_heap, n);
        memcpy(stack, want_stack, sizeof stack);
        unsigned char *d = (unsigned char *)test_device_alloc(n);
        unsigned char *h = NULL;
        if (!CHECK_OK(duo_malloc_host((void **)&h, n)) || h == NULL)
            return;
        test_to_device(d, want_d, n);
        memcpy(h, want_h, n);
        const duo_memory_usage before = usage_now();

        /* Never allocated by duo: the stack, the heap. */
        CHECK_STATUS(duo_free(stack), DUO_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS_WORD(duo_last_error(), "duo_free");
        CHECK_NAMES_PTR(stack);
        CHECK_CONTAINS(duo_last_error(), "never allocated");
        CHECK_STATUS(duo_free(heap), DUO_ERROR_INVALID_ARGUMENT);
        CHECK_NAMES_PTR(heap);
        CHECK_CONTAINS(duo_last_error(), "never allocated");
        CHECK_STATUS(duo_free_host(stack + 1), DUO_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS_WORD(duo_last_error(), "duo_free_host");
        CHECK_NAMES_PTR(stack + 1);
        CHECK_CONTAINS(duo_last_error(), "never allocated");
        CHECK_STATUS(duo_free_host(heap), DUO_ERROR_INVALID_ARGUMENT);
        CHECK_NAMES_PTR(heap);

        /* Inside a live allocation: names its size and start. */
        char text[128];
        for (size_t off = 1; off < n; off += n / 2 + 1) {
            CHECK_STATUS(duo_free(d + off), DUO_ERROR_INVALID_ARGUMENT);
            CHECK_NAMES_PTR(d + off);
            CHECK_CONTAINS(duo_last_error(), "inside");
            snprintf(text, sizeof text, "allocation of %zu bytes at %p", n,
                     (void *)d);
            CHECK_CONTAINS(duo_last_error(), text);
            CHECK_STATUS(duo_free_host(h + off), DUO_ERROR_INVALID_ARGUMENT);
            CHECK_NAMES_PTR(h + off);
            snprintf(text, sizeof text, "allocation of %zu bytes at %p", n,
                     (void *)h);
            CHECK_CONTAINS(duo_last_error(), text);
        }

        /* The other kind's free. */
        CHECK_STATUS(duo_free(h), DUO_ERROR_INVALID_ARGUMENT);
        CHECK_NAMES_PTR(h);
        CHECK_CONTAINS(duo_last_error(), "free it with duo_free_host");
        CHECK_STATUS(duo_free_host(d), DUO_ERROR_INVALID_ARGUMENT);
        CHECK_NAMES_PTR(d);
        CHECK_CONTAINS(duo_last_error(), "free it with duo_free");

        /* Nothing was freed or changed. */
        const duo_memory_usage after = usage_now();
        CHECK_SAME_USAGE(after, before);
        check_device(d, want_d, n, "after refused frees");
        CHECK(memcmp(h, want_h, n) == 0);
        CHECK(memcmp(heap, want_heap, n) == 0);
        CHECK(memcmp(stack, want_stack, sizeof stack) == 0);

        /* Freed already. */
        CHECK_OK(duo_free(d));
        CHECK_OK(duo_free_host(h));
        CHECK_STATUS(duo_free(d), DUO_ERROR_INVALID_ARGUMENT);
        CHECK_NAMES_PTR(d);
        CHECK_CONTAINS(duo_last_error(), "freed already");
        snprintf(text, sizeof text, "%zu bytes by duo_malloc", n);
        CHECK_CONTAINS(duo_last_error(), text);
        CHECK_STATUS(duo_free_host(h), DUO_ERROR_INVALID_ARGUMENT);
        CHECK_NAMES_PTR(h);
        CHECK_CONTAINS(duo_last_error(), "freed already");
        const duo_memory_usage freed = usage_now();
        CHECK_EQ_U64(freed.device_allocations, before.device_allocations - 1);
        CHECK_EQ_U64(freed.device_bytes, before.device_bytes - n);
        CHECK_EQ_U64(freed.host_allocations, before.host_allocations - 1);
        CHECK_EQ_U64(freed.host_bytes, before.host_bytes - n);

        free(heap);
        free(want_heap);
        free(want_d);
        free(want_h);
    }
    /* The library still allocates and frees after all that. */
    test_set_context("after bad frees");
    void *p = NULL;
    if (CHECK_OK(duo_malloc(&p, 100)))
        CHECK_OK(duo_free(p));
    test_set_context("%s", "");
}

/* ------------------------------------------------------------------ */
/* Copies and memsets that run past an allocation                      */

/* The allocation among live[0..count) of sizes len[] that holds p, or
 * -1. */
static int holder(const unsigned char *p, unsigned char *const *live,
                  const size_t *len, int count)
{
    for (int i = 0; i < count; ++i)
        if (p >= live[i] && p < live[i] + len[i])
            return i;
    return -1;
}

static void check_refused_past(const char *arg, const void *p, size_t past)
{
    CHECK_CONTAINS_WORD(duo_last_error(), arg);
    CHECK_NAMES_PTR(p);
    char text[64];
    snprintf(text, sizeof text, "runs %zu byte(s) past the end", past);
    CHECK_CONTAINS(duo_last_error(), text);
}

static void test_bad_ranges(void)
{
    for (size_t si = 1; si < NSIZES; ++si) {
        const size_t n = sizes[si];
        test_set_context("ranges, %zu-byte allocations", n);
        unsigned char *d = (unsigned char *)test_device_alloc(n);
        unsigned char *d2 = (unsigned char *)test_device_alloc(n);
        unsigned char *h = NULL;
        if (!CHECK_OK(duo_malloc_host((void **)&h, n)) || h == NULL)
            return;
        unsigned char *user = (unsigned char *)test_xmalloc(2 * n);
        unsigned char *want_d = (unsigned char *)test_xmalloc(n);
        unsigned char *want_d2 = (unsigned char *)test_xmalloc(n);
        unsigned char *want_h = (unsigned char *)test_xmalloc(n);
        unsigned char *want_user = (unsigned char *)test_xmalloc(2 * n);
        test_rng_bytes(&rng, want_d, n);
        test_rng_bytes(&rng, want_d2, n);
        test_rng_bytes(&rng, want_h, n);
        test_rng_bytes(&rng, want_user, 2 * n);
        test_to_device(d, want_d, n);
        test_to_device(d2, want_d2, n);
        memcpy(h, want_h, n);
        memcpy(user, want_user, 2 * n);
        duo_stream s = NULL;
        CHECK_OK(duo_stream_create(&s));

        /* Past the end, each argument and kind, sync and async. */
        CHECK_STATUS(duo_memcpy(d + 8, user, n - 7, DUO_HOST_TO_DEVICE),
                     DUO_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS_WORD(duo_last_error(), "duo_memcpy");
        check_refused_past("dst", d + 8, 1);
        CHECK_STATUS(duo_memcpy(user, d + 1, n, DUO_DEVICE_TO_HOST),
                     DUO_ERROR_INVALID_ARGUMENT);
        check_refused_past("src", d + 1, 1);
        CHECK_STATUS(duo_memcpy(d2, d, n + 3, DUO_DEVICE_TO_DEVICE),
                     DUO_ERROR_INVALID_ARGUMENT);
        check_refused_past("dst", d2, 3);
        CHECK_STATUS(duo_memcpy(d2, d + 2, n - 1, DUO_DEVICE_TO_DEVICE),
                     DUO_ERROR_INVALID_ARGUMENT);
        check_refused_past("src", d + 2, 1);
        CHECK_STATUS(duo_memcpy(h + 3, user, n, DUO_HOST_TO_HOST),
                     DUO_ERROR_INVALID_ARGUMENT);
        check_refused_past("dst", h + 3, 3);
        CHECK_STATUS(duo_memcpy_async(d + n - 1, h, 2, DUO_HOST_TO_DEVICE,
                                      s),
                     DUO_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS_WORD(duo_last_error(), "duo_memcpy_async");
        check_refused_past("dst", d + n - 1, 1);
        CHECK_STATUS(duo_memcpy_async(h, d2 + 5, n, DUO_DEVICE_TO_HOST,
                                      NULL),
                     DUO_ERROR_INVALID_ARGUMENT);
        check_refused_past("src", d2 + 5, 5);
        CHECK_STATUS(duo_memset(d + n - 4, 0, 8), DUO_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS_WORD(duo_last_error(), "duo_memset");
        check_refused_past("dst", d + n - 4, 4);
        CHECK_STATUS(duo_memset(d, 0, n + 1), DUO_ERROR_INVALID_ARGUMENT);
        check_refused_past("dst", d, 1);

        /* From below into an allocation: the 8 bytes before d, unless
         * they belong to another live allocation (then that one's end is
         * what the range runs past). */
        unsigned char *const live[] = {d, d2, h};
        const size_t len[] = {n, n, n};
        unsigned char *below = d - 8;
        const int other = holder(below, live, len, 3);
        CHECK_STATUS(duo_memcpy(below, user, 16, DUO_HOST_TO_DEVICE),
                     DUO_ERROR_INVALID_ARGUMENT);
        CHECK_NAMES_PTR(below);
        if (other < 0) {
            CHECK_CONTAINS(duo_last_error(), "starts 8 bytes before");
            char text[128];
            snprintf(text, sizeof text, "allocation of %zu bytes at %p", n,
                     (void *)d);
            CHECK_CONTAINS(duo_last_error(), text);
        }
        CHECK_STATUS(duo_memset(below, 0, 9), DUO_ERROR_INVALID_ARGUMENT);
        CHECK_NAMES_PTR(below);
        CHECK_OK(duo_synchronize());

        /* Nothing was written. */
        check_device(d, want_d, n, "d after refused copies");
        check_device(d2, want_d2, n, "d2 after refused copies");
        CHECK(memcmp(h, want_h, n) == 0);
        CHECK(memcmp(user, want_user, 2 * n) == 0);

        /* Ranges wholly inside an allocation, or wholly outside all. */
        test_set_context("ranges that fit, %zu-byte allocations", n);
        CHECK_OK(duo_memcpy(d + 8, user, n - 8, DUO_HOST_TO_DEVICE));
        memcpy(want_d + 8, user, n - 8);
        CHECK_OK(duo_memcpy_async(d2 + n - 1, h, 1, DUO_HOST_TO_DEVICE, s));
        CHECK_OK(duo_stream_synchronize(s));
        want_d2[n - 1] = want_h[0];
        CHECK_OK(duo_memset(d + n - 1, 0xAB, 1));
        want_d[n - 1] = 0xAB;
        check_device(d, want_d, n, "d after copies that fit");
        check_device(d2, want_d2, n, "d2 after copies that fit");
        CHECK_OK(duo_memcpy(user + n, d, n, DUO_DEVICE_TO_HOST));
        CHECK(memcmp(user + n, want_d, n) == 0);
        unsigned char a[32], b[32];
        test_rng_bytes(&rng, a, sizeof a);
        test_poison_bytes(b, sizeof b);
        CHECK_OK(duo_memcpy(b, a, sizeof a, DUO_HOST_TO_HOST));
        CHECK(memcmp(a, b, sizeof a) == 0);
        CHECK_OK(duo_memcpy(h, user, n, DUO_HOST_TO_HOST));
        CHECK(memcmp(h, user, n) == 0);

        CHECK_OK(duo_stream_destroy(s));
        CHECK_OK(duo_free(d));
        CHECK_OK(duo_free(d2));
        CHECK_OK(duo_free_host(h));
        free(user);
        free(want_d);
        free(want_d2);
        free(want_h);
        free(want_user);
    }
    test_set_context("%s", "");
}

/* ------------------------------------------------------------------ */
/* Many allocations: the registry's chunks fill, split and empty       */

static void test_many(void)
{
    enum { MANY = 1500 };
    test_set_context("%d allocations", MANY);
    unsigned char **p = (unsigned char **)test_xmalloc(MANY * sizeof *p);
    size_t *len = (size_t *)test_xmalloc(MANY * sizeof *len);
    int *order = (int *)test_xmalloc(MANY * sizeof *order);
    const duo_memory_usage before = usage_now();
    size_t total = 0;
    int made = 0;
    for (; made < MANY; ++made) {
        len[made] = (size_t)test_rng_range(&rng, 1, 300);
        p[made] = NULL;
        if (!CHECK_OK(duo_malloc((void **)&p[made], len[made])))
            break;
        total += len[made];
        order[made] = made;
    }
    duo_memory_usage u = usage_now();
    CHECK_EQ_U64(u.device_allocations, before.device_allocations + made);
    CHECK_EQ_U64(u.device_bytes, before.device_bytes + total);

    /* Each allocation is found: a pointer inside it names it, and a range
     * one byte longer than what is left of it is refused. */
    char text[128];
    for (int i = 0; i < made; i += 7) {
        const size_t off =
            (size_t)test_rng_range(&rng, 0, (int64_t)len[i] - 1);
        if (off > 0) {
            CHECK_STATUS(duo_free(p[i] + off), DUO_ERROR_INVALID_ARGUMENT);
            snprintf(text, sizeof text, "allocation of %zu bytes at %p",
                     len[i], (void *)p[i]);
            CHECK_CONTAINS(duo_last_error(), text);
        }
        CHECK_STATUS(duo_memset(p[i] + off, 0, len[i] - off + 1),
                     DUO_ERROR_INVALID_ARGUMENT);
        check_refused_past("dst", p[i] + off, 1);
        CHECK_OK(duo_memset(p[i] + off, 0, len[i] - off));
    }

    /* Freed in random order, each exactly once. */
    for (int i = made - 1; i > 0; --i) {
        const int j = (int)test_rng_range(&rng, 0, i);
        const int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int k = 0; k < made; ++k) {
        const int i = order[k];
        if (!CHECK_OK(duo_free(p[i])))
            break;
        total -= len[i];
        if (k % 100 == 0) {
            CHECK_STATUS(duo_free(p[i]), DUO_ERROR_INVALID_ARGUMENT);
            CHECK_CONTAINS(duo_last_error(), "freed already");
            u = usage_now();
            CHECK_EQ_U64(u.device_allocations,
                         before.device_allocations + (made - k - 1));
            CHECK_EQ_U64(u.device_bytes, before.device_bytes + total);
        }
    }
    u = usage_now();
    CHECK_SAME_USAGE(u, before);
    free(p);
    free(len);
    free(order);
    test_set_context("%s", "");
}

/* ------------------------------------------------------------------ */
/* The registry itself, against a model                                */

/* duo_registry_each's walk, checked against the model as it goes. */
typedef struct model_walk {
    const unsigned char *arena, *end;
    const size_t *len;
    const duo_alloc_kind *kind;
    const int *line;
    size_t met;     /* allocations met, stand-ins or not */
    size_t seen;    /* stand-ins met */
    uintptr_t last; /* the start of the last allocation met */
    int failed;
} model_walk;

static void walk_one(const duo_alloc_view *v, void *ctx)
{
    model_walk *w = (model_walk *)ctx;
    const uintptr_t base = (uintptr_t)v->base;
    if (w->met++ > 0 && base <= w->last && !w->failed) {
        CHECK_MSG(0, "duo_registry_each: %p after %p, not in address order",
                  v->base, (void *)w->last);
        w->failed = 1;
    }
    w->last = base;
    if (base < (uintptr_t)w->arena || base >= (uintptr_t)w->end)
        return; /* a real allocation of another test */
    const size_t s = (size_t)(base - (uintptr_t)w->arena) / 64;
    if (!w->failed && (base != (uintptr_t)(w->arena + s * 64) ||
                       v->bytes != w->len[s] || v->kind != w->kind[s] ||
                       v->line != w->line[s])) {
        CHECK_MSG(0, "duo_registry_each: %p of %zu bytes, kind %d, line "
                  "%d; the model has %zu bytes, kind %d, line %d", v->base,
                  v->bytes, (int)v->kind, v->line, w->len[s],
                  (int)w->kind[s], w->line[s]);
        w->failed = 1;
    }
    w->seen++;
}

/* The registry (src/registry.c) driven directly, with thousands of
 * stand-in allocations at random: 64-byte slots of a buffer of the
 * test's own, which no duo allocation can overlap.  Enough are added and
 * removed to fill, split and empty many of its leaves (and to empty it
 * and fill it again); some are registered again while live, as when
 * memory freed behind duo's back is handed out again.  After each call
 * the answer is the model's, and every so often so are its contents, in
 * address order, and its counts. */
static void test_structure(void)
{
    enum { SLOTS = 6000, STEPS = 300000 };
    test_set_context("%s", "the registry against a model");
    unsigned char *arena = (unsigned char *)test_xmalloc(SLOTS * 64);
    size_t *len = (size_t *)test_xmalloc(SLOTS * sizeof *len); /* 0: free */
    duo_alloc_kind *kind =
        (duo_alloc_kind *)test_xmalloc(SLOTS * sizeof *kind);
    int *line = (int *)test_xmalloc(SLOTS * sizeof *line);
    memset(len, 0, SLOTS * sizeof *len);
    size_t count0[2], bytes0[2], count[2], bytes[2];
    duo_registry_usage(count0, bytes0);
    size_t live[2] = {0, 0}, live_bytes[2] = {0, 0};
    int failed = 0;
    for (int step = 0; step < STEPS && !failed; ++step) {
        /* Mostly adds in the first and third quarters, mostly frees in
         * the second and fourth: the registry fills and empties twice. */
        const int filling = (step / (STEPS / 4)) % 2 == 0;
        const size_t s = (size_t)test_rng_range(&rng, 0, SLOTS - 1);
        unsigned char *p = arena + s * 64;
        const duo_alloc_kind k = (duo_alloc_kind)test_rng_range(&rng, 0, 1);
        const int op = (int)test_rng_range(&rng, 0, 9);
        if (op < (filling ? 4 : 2)) {
            if (len[s] != 0 && test_rng_range(&rng, 0, 3) != 0)
                continue; /* registered again only now and then */
            const size_t n = (size_t)test_rng_range(&rng, 1, 64);
            failed = !CHECK_OK(duo_registry_add("test", k, p, n, __FILE__,
                                                step));
            if (len[s] != 0) {
                live[kind[s]]--;
                live_bytes[kind[s]] -= len[s];
            }
            len[s] = n;
            kind[s] = k;
            line[s] = step;
            live[k]++;
            live_bytes[k] += n;
        } else if (op < 6) {
            const size_t off = len[s] != 0 && test_rng_range(&rng, 0, 3) == 0
                                   ? (size_t)test_rng_range(&rng, 1, 63)
                                   : 0;
            const int ok = len[s] != 0 && off == 0 && kind[s] == k;
            failed = !CHECK_STATUS(duo_registry_check_free("test", k,
                                                           p + off),
                                   ok ? DUO_SUCCESS
                                      : DUO_ERROR_INVALID_ARGUMENT);
            if (!failed && !ok && off != 0 && off < len[s])
                CHECK_CONTAINS(duo_last_error(), "inside the live");
            if (ok) {
                /* Now and then another lookup comes between the check
                 * and the removal. */
                duo_alloc_view other;
                if (test_rng_range(&rng, 0, 1) == 0)
                    (void)duo_registry_find(
                        arena + (size_t)test_rng_range(&rng, 0, SLOTS - 1) *
                                    64,
                        &other);
                duo_registry_remove(p);
                live[k]--;
                live_bytes[k] -= len[s];
                len[s] = 0;
            }
        } else if (op < 9) {
            /* [p + off, +n) runs past slot s's allocation, or into the
             * next one up (n < 128: slot s + 2 at most), or neither. */
            if (s + 2 >= SLOTS)
                continue; /* the range would leave the buffer */
            const size_t off = (size_t)test_rng_range(&rng, 0, 63);
            const size_t n = (size_t)test_rng_range(&rng, 1, 127);
            const size_t last = off + n - 1; /* from p */
            int ok, past = 0;
            if (len[s] != 0 && off < len[s]) {
                ok = last < len[s];
                past = !ok;
            } else {
                ok = 1;
                for (size_t t = s + 1; t <= s + 2; ++t)
                    if (len[t] != 0 && (t - s) * 64 <= last)
                        ok = 0;
            }
            failed = !CHECK_STATUS(
                duo_registry_check_range("test", "dst", p + off, n),
                ok ? DUO_SUCCESS : DUO_ERROR_INVALID_ARGUMENT);
            if (!failed && !ok)
                CHECK_CONTAINS(duo_last_error(),
                               past ? "past the end" : "runs into it");
        } else {
            const size_t off = (size_t)test_rng_range(&rng, 0, 63);
            duo_alloc_view v;
            const int inside = len[s] != 0 && off < len[s];
            const int found = duo_registry_find(p + off, &v);
            failed = found != inside;
            CHECK_MSG(!failed, "duo_registry_find(slot %zu + %zu): %d, "
                      "the model %d", s, off, found, inside);
            if (found && inside) {
                failed = v.base != p || v.bytes != len[s] ||
                         v.kind != kind[s] || v.line != line[s];
                CHECK_MSG(!failed, "duo_registry_find(slot %zu + %zu): %p "
                          "of %zu bytes, line %d; the model %p of %zu, line "
                          "%d", s, off, v.base, v.bytes, v.line, (void *)p,
                          len[s], line[s]);
            }
        }
        if (failed || step % 20000 != 0)
            continue;
        model_walk w = {arena, arena + SLOTS * 64, len, kind, line,
                        0, 0, 0, 0};
        duo_registry_each(walk_one, &w);
        failed = w.failed;
        CHECK_EQ_U64(w.seen, live[0] + live[1]);
        duo_registry_usage(count, bytes);
        for (int j = 0; j < 2; ++j) {
            CHECK_EQ_U64(count[j], count0[j] + live[j]);
            CHECK_EQ_U64(bytes[j], bytes0[j] + live_bytes[j]);
        }
    }
    for (size_t s = 0; s < SLOTS; ++s)
        if (len[s] != 0)
            duo_registry_remove(arena + s * 64);
    duo_registry_usage(count, bytes);
    for (int j = 0; j < 2; ++j) {
        CHECK_EQ_U64(count[j], count0[j]);
        CHECK_EQ_U64(bytes[j], bytes0[j]);
    }
    free(arena);
    free(len);
    free(kind);
    free(line);
    test_set_context("%s", "");
}

/* ------------------------------------------------------------------ */
/* Usage and the report at duo_finalize                                */

/* duo_finalize() with stderr captured into out (at most size - 1
 * characters). */
static duo_status finalize_capturing(char *out, size_t size)
{
    out[0] = '\0';
    fflush(stderr);
    FILE *tmp = tmpfile();
    const int saved = dup(2);
    const int redirected = tmp != NULL && saved >= 0 &&
                           dup2(fileno(tmp), 2) >= 0;
    CHECK_MSG(redirected, "stderr redirected to a temporary file");
    if (!redirected) {
        if (tmp != NULL)
            fclose(tmp);
        if (saved >= 0)
            close(saved);
        return duo_finalize();
    }
    const duo_status status = duo_finalize();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    const size_t got = fread(out, 1, size - 1, tmp);
    out[got] = '\0';
    fclose(tmp);
    return status;
}

static void test_usage_and_leaks(void)
{
    test_set_context("usage and leak report");
    CHECK_STATUS(duo_memory_usage_get(NULL), DUO_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS_WORD(duo_last_error(), "duo_memory_usage_get");
    CHECK_CONTAINS_WORD(duo_last_error(), "usage");
    const duo_memory_usage none = usage_now();
    CHECK_EQ_U64(none.device_allocations, 0);
    CHECK_EQ_U64(none.device_bytes, 0);
    CHECK_EQ_U64(none.host_allocations, 0);
    CHECK_EQ_U64(none.host_bytes, 0);

    void *a = NULL, *b = NULL, *c = NULL, *h = NULL;
    const int line_a = __LINE__; CHECK_OK(duo_malloc(&a, 100));
    const int line_b = __LINE__; CHECK_OK(duo_malloc(&b, 7));
    const int line_h = __LINE__; CHECK_OK(duo_malloc_host(&h, 33));
    CHECK_OK((duo_malloc)(&c, 5)); /* the function: no file:line */
    const duo_memory_usage u = usage_now();
    CHECK_EQ_U64(u.device_allocations, 3);
    CHECK_EQ_U64(u.device_bytes, 112);
    CHECK_EQ_U64(u.host_allocations, 1);
    CHECK_EQ_U64(u.host_bytes, 33);

    /* The summary line only. */
    char err[4096];
    CHECK_OK(finalize_capturing(err, sizeof err));
    CHECK_CONTAINS(err, "duo_finalize: 4 allocation(s) still live, 145 "
                        "bytes: 3 of duo_malloc (112 bytes), 1 of "
                        "duo_malloc_host (33 bytes)");
    CHECK_CONTAINS(err, "DUO_LEAKS=1");
    CHECK_MSG(strstr(err, "test_registry.c:") == NULL,
              "no list without DUO_LEAKS: got \"%s\"", err);
    /* The allocations outlive duo_finalize, and are still counted. */
    const duo_memory_usage kept = usage_now();
    CHECK_SAME_USAGE(kept, u);

    /* DUO_LEAKS=1: one line each, with the file:line of the call. */
    test_set_context("leak report with DUO_LEAKS=1");
    CHECK(setenv("DUO_LEAKS", "1", 1) == 0);
    test_init_or_skip();
    CHECK_OK(finalize_capturing(err, sizeof err));
    char text[256];
    snprintf(text, sizeof text, "duo_malloc of 100 bytes at %p, made at "
             "test_registry.c:%d", a, line_a);
    CHECK_CONTAINS(err, text);
    snprintf(text, sizeof text, "duo_malloc of 7 bytes at %p, made at "
             "test_registry.c:%d", b, line_b);
    CHECK_CONTAINS(err, text);
    snprintf(text, sizeof text, "duo_malloc_host of 33 bytes at %p, made "
             "at test_registry.c:%d", h, line_h);
    CHECK_CONTAINS(err, text);
    snprintf(text, sizeof text, "duo_malloc of 5 bytes at %p, made at an "
             "unknown place", c);
    CHECK_CONTAINS(err, text);

    /* Freed after a new duo_init: nothing to report. */
    test_set_context("no leaks");
    test_init_or_skip();
    CHECK_OK(duo_free(a));
    CHECK_OK(duo_free(b));
    CHECK_OK(duo_free(c));
    CHECK_OK(duo_free_host(h));
    CHECK_OK(finalize_capturing(err, sizeof err));
    CHECK_MSG(err[0] == '\0', "nothing on stderr: got \"%s\"", err);
    const duo_memory_usage end = usage_now();
    CHECK_SAME_USAGE(end, none);
    CHECK(unsetenv("DUO_LEAKS") == 0);
    test_set_context("%s", "");
}

int main(void)
{
    test_rng_seed(&rng, 0x7265676973747279ULL);
    test_init_or_skip();
    test_bad_frees();
    test_bad_ranges();
    test_many();
    test_structure();
    test_usage_and_leaks(); /* ends with duo_finalize */
    return test_summary("registry");
}
