/*
 * registry.c - every live allocation of duo_malloc and duo_malloc_host:
 * where it starts, how long it is and which file:line made it.  So
 * duo_free refuses a pointer that is not an allocation (instead of
 * handing it to free() or cudaFree), copies and memsets refuse a range
 * that runs past one, and duo_finalize says what was never freed.
 *
 * The allocations are kept sorted by start address in leaves of up to
 * LEAF, and the leaves in a sorted array of their first addresses (a
 * B+-tree of two levels), and adding or removing one moves at most a
 * leaf's starts (a leaf that fills is split, one that empties is
 * dropped, moving the array of leaves).  Finding the allocation at or
 * below an address is a search without branches on the data in each
 * level, laid out for the time it waits: the array of first addresses
 * stays in cache, where each step's load waits for the one before, so
 * it is searched four ways at a time (half the steps); the leaves of a
 * large registry do not, so a leaf's starts are counted in one pass over
 * its four cache lines, which memory serves together with the line of
 * its count (which also holds a byte per entry), and for a range check
 * with the four lines of its sizes too: one wait for memory, not one a
 * step.  The byte says where the entry's size and file:line are: they stay
 * where they were written, so adding or removing an allocation moves
 * only the starts and bytes after it.  Where the last search ended (or
 * the last allocation went in) is kept: duo_free removes what its check
 * just found, without searching again.  A ring of the last frees lets a
 * second free of a pointer say that it was freed already.
 *
 * duo is called from one host thread at a time (README): no lock.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"

enum {
    LEAF = 32,       /* allocations per leaf: at most 32 (leaf.used) */
    FREED_RING = 256 /* frees remembered for "freed already" */
};

/* A read of the line at p soon (GCC and Clang; elsewhere nothing). */
#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
#endif

typedef struct record {
    uintptr_t base;
    size_t bytes;
    const char *file; /* NULL: made through the plain function */
    int line;
    duo_alloc_kind kind;
} record;

typedef struct made_at_t {
    const char *file;
    int line;
} made_at_t;

/* Entry i in address order starts at key[i]; with k = slot[i] & SLOT,
 * it is size[k] bytes long and was made at made[k]; its kind is
 * slot[i] >> 7.  key[i] is UINTPTR_MAX for i >= count.  The count and
 * slot[] share the first cache line, key[] and size[] four lines each. */
typedef struct leaf {
    uint32_t count;
    uint32_t used; /* bit k: size[k] and made[k] hold an entry */
    uint8_t slot[LEAF];
    _Alignas(64) uintptr_t key[LEAF];
    size_t size[LEAF];
    made_at_t made[LEAF];
} leaf;

#define SLOT 0x7fu
#define KIND_SHIFT 7

/* Every key of leaves[i] is below every key of leaves[i + 1];
 * first[i] == leaves[i]->key[0], and first[nleaves] is UINTPTR_MAX; no
 * leaf is empty. */
static leaf **leaves;
static uintptr_t *first;
static uint32_t nleaves, leaves_cap;
static size_t live_count[2], live_bytes[2];

/* Where the last search ended, or the last allocation went in: entry
 * finger_entry of leaves[finger_leaf], if that is still there. */
static uint32_t finger_leaf, finger_entry;

static record freed[FREED_RING];
static unsigned freed_next;

static const char *const alloc_fn[2] = {"duo_malloc", "duo_malloc_host"};
static const char *const free_fn[2] = {"duo_free", "duo_free_host"};

static duo_alloc_kind kind_of(const leaf *l, uint32_t i)
{
    return (duo_alloc_kind)(l->slot[i] >> KIND_SHIFT);
}

static record record_of(const leaf *l, uint32_t i)
{
    const uint32_t k = l->slot[i] & SLOT;
    record r;
    r.base = l->key[i];
    r.bytes = l->size[k];
    r.file = l->made[k].file;
    r.line = l->made[k].line;
    r.kind = kind_of(l, i);
    return r;
}

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

/* How many leaves start at or below p: count_le, but with many leaves
 * four ways a step, three loads that wait together, in half the steps. */
static uint32_t leaves_at_or_below(uintptr_t p)
{
    uint32_t n = nleaves;
    if (n <= 64)
        return count_le(first, n, p);
    const uintptr_t *b = first;
    while (n > 3) {
        const uint32_t q = n / 4;
        const uint32_t k = (uint32_t)(b[q] <= p) + (uint32_t)(b[2 * q] <= p) +
                           (uint32_t)(b[3 * q] <= p);
        b += k * q;
        n -= 3 * q; /* the last quarter, the longest; the others end in it */
    }
    return (uint32_t)(b - first) + count_le(b, n, p);
}

/* How many entries of leaf l start at or below p.  In a registry of a
 * leaf or two, which stays in cache, a binary search; else one pass over
 * all LEAF starts (a few vector compares), whose lines memory serves at
 * once, and the lines of the sizes with them when the caller will read
 * one (sizes). */
static uint32_t entries_at_or_below(const leaf *l, uintptr_t p, int sizes)
{
    if (nleaves <= 2)
        return count_le(l->key, l->count, p);
    if (sizes)
        for (uint32_t i = 0; i < LEAF; i += 64 / sizeof(uintptr_t))
            PREFETCH(&l->size[i]);
    uintptr_t n = 0; /* as wide as the keys: the sum needs no narrowing */
    for (uint32_t i = 0; i < LEAF; ++i)
        n += l->key[i] <= p;
    /* p == UINTPTR_MAX counts the unused keys too */
    return n < l->count ? (uint32_t)n : l->count;
}

/* Where p falls: 0 if every allocation starts above it; else 1, with
 * entry *si - 1 of leaves[*li] the allocation that starts nearest at or
 * below it.  sizes: the caller will read that entry's size. */
static inline int find(uintptr_t p, uint32_t *li, uint32_t *si, int sizes)
{
    const uint32_t c = leaves_at_or_below(p);
    if (c == 0)
        return 0;
    *li = c - 1;
    *si = entries_at_or_below(leaves[c - 1], p, sizes);
    finger_leaf = *li;
    finger_entry = *si - 1;
    return 1;
}

/* Whether an allocation starts after entry si - 1 of leaf li, as find()
 * placed p (found: whether one starts at or below it); if so, its start
 * in *base. */
static int next_start(int found, uint32_t li, uint32_t si, uintptr_t *base)
{
    if (!found) {
        *base = nleaves > 0 ? first[0] : 0;
        return nleaves > 0;
    }
    if (si < leaves[li]->count) {
        *base = leaves[li]->key[si];
        return 1;
    }
    *base = first[li + 1];
    return li + 1 < nleaves;
}

/* The allocations that start nearest at or below p and above it, where
 * there are (*has_below, *has_above). */
static void neighbours(uintptr_t p, record *below, int *has_below,
                       record *above, int *has_above)
{
    uint32_t li = 0, si = 0;
    const int found = find(p, &li, &si, 1);
    uintptr_t next;
    *has_below = found;
    *has_above = next_start(found, li, si, &next);
    if (found)
        *below = record_of(leaves[li], si - 1);
    if (*has_above)
        *above = found && si < leaves[li]->count
                     ? record_of(leaves[li], si)
                     : record_of(leaves[found ? li + 1 : 0], 0);
}

/* Room in the leaf array for one more. */
static duo_status reserve_leaf_slot(const char *where)
{
    if (nleaves < leaves_cap)
        return DUO_SUCCESS;
    const uint32_t cap = leaves_cap ? 2 * leaves_cap : 8;
    leaf **grown = (leaf **)realloc(leaves, cap * sizeof *grown);
    if (grown != NULL) {
        leaves = grown;
        uintptr_t *grown_first =
            (uintptr_t *)realloc(first, (cap + 1) * sizeof *first);
        if (grown_first != NULL) {
            first = grown_first;
            first[nleaves] = UINTPTR_MAX;
            leaves_cap = cap;
            return DUO_SUCCESS;
        }
    }
    return duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                    "could not grow the allocation registry past %zu "
                    "allocations; free some memory",
                    live_count[0] + live_count[1]);
}

static leaf *new_leaf(void)
{
    leaf *l = (leaf *)aligned_alloc(_Alignof(leaf), sizeof(leaf));
    if (l != NULL) {
        l->count = l->used = 0;
        for (uint32_t i = 0; i < LEAF; ++i)
            l->key[i] = UINTPTR_MAX;
    }
    return l;
}

/* Put leaf l, whose first allocation starts at `lowest`, at position at
 * of the leaf array (room reserved). */
static void place_leaf(uint32_t at, leaf *l, uintptr_t lowest)
{
    memmove(leaves + at + 1, leaves + at, (nleaves - at) * sizeof *leaves);
    memmove(first + at + 1, first + at, (nleaves + 1 - at) * sizeof *first);
    leaves[at] = l;
    first[at] = lowest;
    nleaves++;
}

static void drop_leaf(uint32_t at)
{
    free(leaves[at]);
    nleaves--;
    memmove(leaves + at, leaves + at + 1, (nleaves - at) * sizeof *leaves);
    memmove(first + at, first + at + 1, (nleaves + 1 - at) * sizeof *first);
}

/* Move the upper half of the full leaf at li into a new leaf after it.
 * Nothing changes when it fails. */
static duo_status split(const char *where, uint32_t li)
{
    duo_status status = reserve_leaf_slot(where);
    if (status != DUO_SUCCESS)
        return status;
    leaf *upper = new_leaf();
    if (upper == NULL)
        return duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                        "could not grow the allocation registry; free "
                        "some memory");
    leaf *lower = leaves[li];
    upper->count = LEAF - LEAF / 2;
    for (uint32_t i = 0; i < upper->count; ++i) {
        const uint32_t from = LEAF / 2 + i;
        const uint32_t k = lower->slot[from] & SLOT;
        upper->key[i] = lower->key[from];
        upper->slot[i] = (uint8_t)(i | (lower->slot[from] & ~SLOT));
        upper->size[i] = lower->size[k];
        upper->made[i] = lower->made[k];
        upper->used |= 1u << i;
        lower->used &= ~(1u << k);
        lower->key[from] = UINTPTR_MAX;
    }
    lower->count = LEAF / 2;
    place_leaf(li + 1, upper, upper->key[0]);
    return DUO_SUCCESS;
}

/* Add r at entry si of leaf li, as find() placed it (found: whether
 * some allocation starts below it).  Nothing changes when it fails. */
static duo_status insert(const char *where, const record *r, int found,
                         uint32_t li, uint32_t si)
{
    if (nleaves == 0) {
        duo_status status = reserve_leaf_slot(where);
        leaf *l = status == DUO_SUCCESS ? new_leaf() : NULL;
        if (l == NULL)
            return status != DUO_SUCCESS
                       ? status
                       : duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                                  "could not allocate the allocation "
                                  "registry; free some memory");
        place_leaf(0, l, r->base); /* r goes in below */
    }
    if (!found)
        li = si = 0; /* below every allocation: first of the first leaf */
    if (leaves[li]->count == LEAF) {
        duo_status status = split(where, li);
        if (status != DUO_SUCCESS)
            return status;
        if (si > LEAF / 2) {
            li++;
            si -= LEAF / 2;
        }
    }
    leaf *l = leaves[li];
    const uint32_t k = (uint32_t)__builtin_ctz(~l->used); /* count < LEAF */
    memmove(l->key + si + 1, l->key + si, (l->count - si) * sizeof *l->key);
    memmove(l->slot + si + 1, l->slot + si, l->count - si);
    l->key[si] = r->base;
    l->slot[si] = (uint8_t)(k | (uint32_t)r->kind << KIND_SHIFT);
    l->size[k] = r->bytes;
    l->made[k].file = r->file;
    l->made[k].line = r->line;
    l->used |= 1u << k;
    l->count++;
    if (si == 0)
        first[li] = r->base;
    finger_leaf = li;
    finger_entry = si;
    return DUO_SUCCESS;
}

static void count_in(duo_alloc_kind kind, size_t bytes)
{
    live_count[kind]++;
    live_bytes[kind] += bytes;
}

static void count_out(duo_alloc_kind kind, size_t bytes)
{
    live_count[kind]--;
    live_bytes[kind] -= bytes;
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
    uint32_t li = 0, si = 0;
    const int found = find(r.base, &li, &si, 0);
    if (found && leaves[li]->key[si - 1] == r.base) {
        /* Memory freed behind duo's back (free() or cudaFree on a duo
         * pointer) and handed out again: the new allocation replaces the
         * stale record. */
        leaf *l = leaves[li];
        const uint32_t at = si - 1, k = l->slot[at] & SLOT;
        count_out(kind_of(l, at), l->size[k]);
        l->slot[at] = (uint8_t)(k | (uint32_t)kind << KIND_SHIFT);
        l->size[k] = bytes;
        l->made[k].file = file;
        l->made[k].line = line;
    } else {
        duo_status status = insert(where, &r, found, li, si);
        if (status != DUO_SUCCESS)
            return status;
    }
    count_in(kind, bytes);
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

/* duo_registry_check_free's answer where ptr is not a live allocation
 * of kind. */
static duo_status refuse_free(const char *where, duo_alloc_kind kind,
                              const void *ptr)
{
    const uintptr_t p = (uintptr_t)ptr;
    record below = {0}, above = {0};
    int has_below, has_above;
    neighbours(p, &below, &has_below, &above, &has_above);
    const record *r = &below;
    char made[512];
    if (has_below) {
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

duo_status duo_registry_check_free(const char *where, duo_alloc_kind kind,
                                   const void *ptr)
{
    uint32_t li = 0, si = 0;
    if (find((uintptr_t)ptr, &li, &si, 0)) {
        const leaf *l = leaves[li];
        if (l->key[si - 1] == (uintptr_t)ptr && kind_of(l, si - 1) == kind)
            return DUO_SUCCESS;
    }
    return refuse_free(where, kind, ptr);
}

void duo_registry_remove(const void *ptr)
{
    const uintptr_t p = (uintptr_t)ptr;
    /* Where check_free (or the allocation) left the finger, if it still
     * points at ptr; else a search. */
    uint32_t li = finger_leaf, si = finger_entry + 1;
    if (!(li < nleaves && si <= leaves[li]->count &&
          leaves[li]->key[si - 1] == p))
        (void)find(p, &li, &si, 0);
    leaf *l = leaves[li];
    const uint32_t at = si - 1;
    const record gone = record_of(l, at);
    count_out(gone.kind, gone.bytes);
    freed[freed_next % FREED_RING] = gone;
    freed_next++;
    l->used &= ~(1u << (l->slot[at] & SLOT));
    l->count--;
    memmove(l->key + at, l->key + at + 1, (l->count - at) * sizeof *l->key);
    memmove(l->slot + at, l->slot + at + 1, l->count - at);
    l->key[l->count] = UINTPTR_MAX;
    if (l->count == 0)
        drop_leaf(li);
    else if (at == 0)
        first[li] = l->key[0];
}

/* duo_registry_check_range's answer where [ptr, +bytes) runs past the
 * end of the allocation it starts in (inside) or into the next one. */
static duo_status refuse_range(const char *where, const char *arg,
                               const void *ptr, size_t bytes, int inside)
{
    const uintptr_t p = (uintptr_t)ptr;
    record below = {0}, above = {0};
    int has_below, has_above;
    neighbours(p, &below, &has_below, &above, &has_above);
    char made[512];
    if (inside) {
        const record *r = &below;
        const size_t room = r->bytes - (size_t)(p - r->base);
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "%s range [%p, +%zu bytes) runs %zu byte(s) past "
                        "the end of the %s allocation of %zu bytes at %p "
                        "(made at %s); nothing was written", arg, ptr, bytes,
                        bytes - room, alloc_fn[r->kind], r->bytes,
                        (void *)r->base, made_at(r, made, sizeof made));
    }
    const record *r = &above;
    return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                    "%s range [%p, +%zu bytes) starts %zu bytes before the "
                    "%s allocation of %zu bytes at %p (made at %s) and runs "
                    "into it; nothing was written", arg, ptr, bytes,
                    (size_t)(r->base - p), alloc_fn[r->kind], r->bytes,
                    (void *)r->base, made_at(r, made, sizeof made));
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
    uint32_t li = 0, si = 0;
    const int found = find(p, &li, &si, 1);
    if (found) {
        const leaf *l = leaves[li];
        const uintptr_t base = l->key[si - 1];
        const size_t size = l->size[l->slot[si - 1] & SLOT];
        if (p - base < size) {
            if (bytes <= size - (size_t)(p - base))
                return DUO_SUCCESS;
            return refuse_range(where, arg, ptr, bytes, 1);
        }
    }
    uintptr_t next;
    if (!next_start(found, li, si, &next) || next > last)
        return DUO_SUCCESS;
    return refuse_range(where, arg, ptr, bytes, 0);
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
        /* No leaf is left: they are dropped as they empty. */
        free(leaves);
        free(first);
        leaves = NULL;
        first = NULL;
        leaves_cap = 0;
        return;
    }
    fprintf(f, "duo_finalize: %zu allocation(s) still live, %zu bytes: "
               "%zu of duo_malloc (%zu bytes), %zu of duo_malloc_host (%zu "
               "bytes); free them before duo_finalize%s\n", count,
            live_bytes[0] + live_bytes[1], live_count[0], live_bytes[0],
            live_count[1], live_bytes[1],
            list ? "" : " (DUO_LEAKS=1 lists where each was made)");
    for (uint32_t li = 0; list && li < nleaves; ++li)
        for (uint32_t si = 0; si < leaves[li]->count; ++si) {
            const record r = record_of(leaves[li], si);
            char made[512];
            fprintf(f, "  %s of %zu bytes at %p, made at %s\n",
                    alloc_fn[r.kind], r.bytes, (void *)r.base,
                    made_at(&r, made, sizeof made));
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
    uint32_t li = 0, si = 0;
    if (!find((uintptr_t)p, &li, &si, 1))
        return 0;
    const record r = record_of(leaves[li], si - 1);
    if ((uintptr_t)p - r.base >= r.bytes)
        return 0;
    view_of(&r, out);
    return 1;
}

void duo_registry_each(void (*fn)(const duo_alloc_view *, void *),
                       void *ctx)
{
    for (uint32_t li = 0; li < nleaves; ++li)
        for (uint32_t si = 0; si < leaves[li]->count; ++si) {
            const record r = record_of(leaves[li], si);
            duo_alloc_view v;
            view_of(&r, &v);
            fn(&v, ctx);
        }
}
