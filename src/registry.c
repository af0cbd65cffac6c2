/*
 * registry.c - every live allocation of duo_malloc and duo_malloc_host:
 * where it starts, how long it is and which file:line made it.  So
 * duo_free refuses a pointer that is not an allocation (instead of
 * handing it to free() or cudaFree), copies and memsets refuse a range
 * that runs past one, and duo_finalize says what was never freed.
 *
 * The allocations are kept sorted by start address in chunks of up to
 * CHUNK, and the chunks in a sorted array of their first addresses (a
 * B+-tree of two levels): finding the allocation at or below an address
 * is a binary search in each, O(log n) in a few cache lines, and adding
 * or removing one moves at most a chunk's entries (a chunk that fills is
 * split, one that empties is dropped, moving the array of chunks).  A
 * ring of the last frees lets a second free of a pointer say that it was
 * freed already.
 *
 * duo is called from one host thread at a time (README): no lock.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"

enum {
    CHUNK = 32,       /* allocations per chunk */
    FREED_RING = 256  /* frees remembered for "freed already" */
};

typedef struct record {
    uintptr_t base;
    size_t bytes;
    const char *file; /* NULL: made through the plain function */
    int line;
    duo_alloc_kind kind;
} record;

/* Entry i in address order is rec[slot[i]]: adding or removing one moves
 * 9 bytes an entry after it (base and slot), not a whole record. */
typedef struct chunk {
    uint32_t count;
    uint32_t used;         /* bit k: rec[k] holds an entry */
    uintptr_t base[CHUNK]; /* base[i] == rec[slot[i]].base, kept apart
                              so that a search reads few cache lines */
    uint8_t slot[CHUNK];
    record rec[CHUNK];
} chunk;

static record *entry(chunk *c, uint32_t i) { return &c->rec[c->slot[i]]; }

/* Every base of chunks[i] is below every base of chunks[i + 1];
 * first[i] == chunks[i]->base[0]; no chunk is empty. */
static chunk **chunks;
static uintptr_t *first;
static uint32_t nchunks, chunks_cap;
static size_t live_count[2], live_bytes[2];

static record freed[FREED_RING];
static unsigned freed_next;

static const char *const alloc_fn[2] = {"duo_malloc", "duo_malloc_host"};
static const char *const free_fn[2] = {"duo_free", "duo_free_host"};

/* "file.c:123"; where the file is not known, why not. */
static const char *made_at(const record *r, char *buf, size_t size)
{
    if (r->file == NULL)
        return "an unknown place (the plain function was called, not the "
               "duo.h macro)";
    const char *slash = strrchr(r->file, '/');
    snprintf(buf, size, "%s:%d", slash ? slash + 1 : r->file, r->line);
    return buf;
}

/* How many of the sorted a[0..n) are <= p: a binary search without
 * branches on the data, so a lookup costs no mispredictions. */
static uint32_t count_le(const uintptr_t *a, uint32_t n, uintptr_t p)
{
    if (n == 0)
        return 0;
    const uintptr_t *b = a;
    while (n > 1) {
        const uint32_t half = n / 2;
        b = b[half] <= p ? b + half : b;
        n -= half;
    }
    return (uint32_t)(b - a) + (*b <= p);
}

/* Where p falls: 0 if every allocation starts above it; else 1, with
 * entry(chunks[*ci], *si - 1) the allocation that starts nearest at or
 * below it. */
static int find(uintptr_t p, uint32_t *ci, uint32_t *si)
{
    const uint32_t c = count_le(first, nchunks, p);
    if (c == 0)
        return 0;
    *ci = c - 1;
    *si = count_le(chunks[c - 1]->base, chunks[c - 1]->count, p);
    return 1;
}

/* The allocations that start nearest at or below p and above it (NULL
 * where there is none). */
static void neighbours(uintptr_t p, const record **below,
                       const record **above)
{
    uint32_t ci = 0, si = 0;
    *below = *above = NULL;
    if (!find(p, &ci, &si)) {
        if (nchunks > 0)
            *above = entry(chunks[0], 0);
        return;
    }
    chunk *c = chunks[ci];
    *below = entry(c, si - 1);
    if (si < c->count)
        *above = entry(c, si);
    else if (ci + 1 < nchunks)
        *above = entry(chunks[ci + 1], 0);
}

/* Room in the chunk array for one more. */
static duo_status reserve_chunk_slot(const char *where)
{
    if (nchunks < chunks_cap)
        return DUO_SUCCESS;
    const uint32_t cap = chunks_cap ? 2 * chunks_cap : 8;
    chunk **grown = (chunk **)realloc(chunks, cap * sizeof *grown);
    if (grown != NULL) {
        chunks = grown;
        uintptr_t *grown_first = (uintptr_t *)realloc(first,
                                                      cap * sizeof *first);
        if (grown_first != NULL) {
            first = grown_first;
            chunks_cap = cap;
            return DUO_SUCCESS;
        }
    }
    return duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                    "could not grow the allocation registry past %zu "
                    "allocations; free some memory",
                    live_count[0] + live_count[1]);
}

/* Put chunk c, whose first allocation starts at `lowest`, at position
 * at of the chunk array (room reserved). */
static void place_chunk(uint32_t at, chunk *c, uintptr_t lowest)
{
    memmove(chunks + at + 1, chunks + at, (nchunks - at) * sizeof *chunks);
    memmove(first + at + 1, first + at, (nchunks - at) * sizeof *first);
    chunks[at] = c;
    first[at] = lowest;
    nchunks++;
}

static void drop_chunk(uint32_t at)
{
    free(chunks[at]);
    nchunks--;
    memmove(chunks + at, chunks + at + 1, (nchunks - at) * sizeof *chunks);
    memmove(first + at, first + at + 1, (nchunks - at) * sizeof *first);
}

/* Move the upper half of the full chunk at ci into a new chunk after
 * it.  Nothing changes when it fails. */
static duo_status split(const char *where, uint32_t ci)
{
    duo_status status = reserve_chunk_slot(where);
    if (status != DUO_SUCCESS)
        return status;
    chunk *upper = (chunk *)malloc(sizeof *upper);
    if (upper == NULL)
        return duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                        "could not grow the allocation registry; free "
                        "some memory");
    chunk *lower = chunks[ci];
    upper->count = CHUNK - CHUNK / 2;
    upper->used = 0;
    for (uint32_t i = 0; i < upper->count; ++i) {
        const uint32_t from = CHUNK / 2 + i;
        upper->base[i] = lower->base[from];
        upper->slot[i] = (uint8_t)i;
        upper->rec[i] = *entry(lower, from);
        upper->used |= 1u << i;
        lower->used &= ~(1u << lower->slot[from]);
    }
    lower->count = CHUNK / 2;
    place_chunk(ci + 1, upper, upper->base[0]);
    return DUO_SUCCESS;
}

/* Add r at entry si of chunk ci, as find() placed it (found: whether
 * some allocation starts below it).  Nothing changes when it fails. */
static duo_status insert(const char *where, const record *r, int found,
                         uint32_t ci, uint32_t si)
{
    if (nchunks == 0) {
        duo_status status = reserve_chunk_slot(where);
        chunk *c = status == DUO_SUCCESS ? (chunk *)malloc(sizeof *c) : NULL;
        if (c == NULL)
            return status != DUO_SUCCESS
                       ? status
                       : duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                                  "could not allocate the allocation "
                                  "registry; free some memory");
        c->count = 0; /* r goes in below */
        c->used = 0;
        place_chunk(0, c, r->base);
    }
    if (!found)
        ci = si = 0; /* below every allocation: first of the first chunk */
    if (chunks[ci]->count == CHUNK) {
        duo_status status = split(where, ci);
        if (status != DUO_SUCCESS)
            return status;
        if (si > CHUNK / 2) {
            ci++;
            si -= CHUNK / 2;
        }
    }
    chunk *c = chunks[ci];
    const uint32_t k = (uint32_t)__builtin_ctz(~c->used); /* count < CHUNK */
    memmove(c->base + si + 1, c->base + si,
            (c->count - si) * sizeof(uintptr_t));
    memmove(c->slot + si + 1, c->slot + si, c->count - si);
    c->base[si] = r->base;
    c->slot[si] = (uint8_t)k;
    c->rec[k] = *r;
    c->used |= 1u << k;
    c->count++;
    if (si == 0)
        first[ci] = r->base;
    return DUO_SUCCESS;
}

static void count_in(const record *r)
{
    live_count[r->kind]++;
    live_bytes[r->kind] += r->bytes;
}

static void count_out(const record *r)
{
    live_count[r->kind]--;
    live_bytes[r->kind] -= r->bytes;
}

duo_status duo_registry_add(const char *where, duo_alloc_kind kind,
                            void *ptr, size_t bytes, const char *file,
                            int line)
{
    record r;
    r.base = (uintptr_t)ptr;
    r.bytes = bytes;
    r.file = file;
    r.line = line;
    r.kind = kind;
    uint32_t ci = 0, si = 0;
    const int found = find(r.base, &ci, &si);
    if (found && chunks[ci]->base[si - 1] == r.base) {
        /* Memory freed behind duo's back (free() or cudaFree on a duo
         * pointer) and handed out again: the new allocation replaces the
         * stale record. */
        count_out(entry(chunks[ci], si - 1));
        *entry(chunks[ci], si - 1) = r;
    } else {
        duo_status status = insert(where, &r, found, ci, si);
        if (status != DUO_SUCCESS)
            return status;
    }
    count_in(&r);
    return DUO_SUCCESS;
}

/* The most recent free of an allocation that started at p, or NULL. */
static const record *freed_at(uintptr_t p)
{
    for (unsigned k = 1; k <= FREED_RING; ++k) {
        const record *r = &freed[(freed_next - k) % FREED_RING];
        if (r->bytes != 0 && r->base == p)
            return r;
    }
    return NULL;
}

duo_status duo_registry_check_free(const char *where, duo_alloc_kind kind,
                                   const void *ptr)
{
    const uintptr_t p = (uintptr_t)ptr;
    const record *r, *above;
    neighbours(p, &r, &above);
    char made[512];
    if (r != NULL) {
        if (r->base == p && r->kind == kind)
            return DUO_SUCCESS;
        if (r->base == p)
            return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                            "ptr %p is an allocation of %s (%zu bytes, made "
                            "at %s); free it with %s; nothing was freed",
                            ptr, alloc_fn[r->kind], r->bytes,
                            made_at(r, made, sizeof made),
                            free_fn[r->kind]);
        if (p - r->base < r->bytes)
            return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                            "ptr %p is inside the live %s allocation of %zu "
                            "bytes at %p (made at %s), %zu bytes past its "
                            "start; pass the pointer %s gave; nothing was "
                            "freed", ptr, alloc_fn[r->kind], r->bytes,
                            (void *)r->base, made_at(r, made, sizeof made),
                            (size_t)(p - r->base), alloc_fn[r->kind]);
    }
    const record *gone = freed_at(p);
    if (gone != NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "ptr %p was freed already (an allocation of %zu "
                        "bytes by %s, made at %s); nothing was freed", ptr,
                        gone->bytes, alloc_fn[gone->kind],
                        made_at(gone, made, sizeof made));
    return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                    "ptr %p was never allocated by duo (%s frees only what "
                    "%s returned); nothing was freed", ptr, where,
                    alloc_fn[kind]);
}

void duo_registry_remove(const void *ptr)
{
    uint32_t ci = 0, si = 0;
    (void)find((uintptr_t)ptr, &ci, &si);
    chunk *c = chunks[ci];
    const uint32_t at = si - 1;
    count_out(entry(c, at));
    freed[freed_next % FREED_RING] = *entry(c, at);
    freed_next++;
    c->used &= ~(1u << c->slot[at]);
    c->count--;
    memmove(c->base + at, c->base + at + 1,
            (c->count - at) * sizeof(uintptr_t));
    memmove(c->slot + at, c->slot + at + 1, c->count - at);
    if (c->count == 0)
        drop_chunk(ci);
    else if (at == 0)
        first[ci] = c->base[0];
}

duo_status duo_registry_check_range(const char *where, const char *arg,
                                    const void *ptr, size_t bytes)
{
    const uintptr_t p = (uintptr_t)ptr;
    if (bytes - 1 > UINTPTR_MAX - p)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "%s range [%p, +%zu bytes) runs past the end of the "
                        "address space; nothing was written", arg, ptr,
                        bytes);
    const uintptr_t last = p + (bytes - 1);
    const record *below, *above;
    neighbours(p, &below, &above);
    char made[512];
    if (below != NULL && p - below->base < below->bytes) {
        const record *r = below;
        const size_t room = r->bytes - (size_t)(p - r->base);
        if (bytes <= room)
            return DUO_SUCCESS;
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "%s range [%p, +%zu bytes) runs %zu byte(s) past "
                        "the end of the %s allocation of %zu bytes at %p "
                        "(made at %s); nothing was written", arg, ptr, bytes,
                        bytes - room, alloc_fn[r->kind], r->bytes,
                        (void *)r->base, made_at(r, made, sizeof made));
    }
    if (above == NULL || above->base > last)
        return DUO_SUCCESS;
    const record *r = above;
    return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                    "%s range [%p, +%zu bytes) starts %zu bytes before the "
                    "%s allocation of %zu bytes at %p (made at %s) and runs "
                    "into it; nothing was written", arg, ptr, bytes,
                    (size_t)(r->base - p), alloc_fn[r->kind], r->bytes,
                    (void *)r->base, made_at(r, made, sizeof made));
}

void duo_registry_usage(size_t count[2], size_t bytes[2])
{
    for (int k = 0; k < 2; ++k) {
        count[k] = live_count[k];
        bytes[k] = live_bytes[k];
    }
}

void duo_registry_finalize(FILE *f, int list)
{
    const size_t count = live_count[0] + live_count[1];
    if (count == 0) {
        /* No chunk is left: they are dropped as they empty. */
        free(chunks);
        free(first);
        chunks = NULL;
        first = NULL;
        chunks_cap = 0;
        return;
    }
    fprintf(f, "duo_finalize: %zu allocation(s) still live, %zu bytes: "
               "%zu of duo_malloc (%zu bytes), %zu of duo_malloc_host (%zu "
               "bytes); free them before duo_finalize%s\n", count,
            live_bytes[0] + live_bytes[1], live_count[0], live_bytes[0],
            live_count[1], live_bytes[1],
            list ? "" : " (DUO_LEAKS=1 lists where each was made)");
    for (uint32_t ci = 0; list && ci < nchunks; ++ci)
        for (uint32_t si = 0; si < chunks[ci]->count; ++si) {
            const record *r = entry(chunks[ci], si);
            char made[512];
            fprintf(f, "  %s of %zu bytes at %p, made at %s\n",
                    alloc_fn[r->kind], r->bytes, (void *)r->base,
                    made_at(r, made, sizeof made));
        }
}

static void view_of(const record *r, duo_alloc_view *out)
{
    out->base = (const void *)r->base;
    out->bytes = r->bytes;
    out->kind = r->kind;
    out->file = r->file;
    out->line = r->line;
}

int duo_registry_find(const void *p, duo_alloc_view *out)
{
    const record *below, *above;
    neighbours((uintptr_t)p, &below, &above);
    if (below == NULL || (uintptr_t)p - below->base >= below->bytes)
        return 0;
    view_of(below, out);
    return 1;
}

void duo_registry_each(void (*fn)(const duo_alloc_view *, void *),
                       void *ctx)
{
    for (uint32_t c = 0; c < nchunks; ++c)
        for (uint32_t i = 0; i < chunks[c]->count; ++i) {
            duo_alloc_view v;
            view_of(entry(chunks[c], i), &v);
            fn(&v, ctx);
        }
}
