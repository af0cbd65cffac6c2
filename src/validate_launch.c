/*
 * validate_launch.c - the check of one kernel launch under DUO_VALIDATE
 * (include/duo/kernel_validate.h says the sequence).
 *
 * The memory a kernel can reach is what its pointer arguments point
 * into: each such pointer is looked up in the allocation registry, and
 * the whole allocation it falls in is copied before the launch.  So a
 * check costs the copies of the allocations the launch names, and every
 * check starts from the memory as it was before that launch: a
 * difference is the launch's own, not one it inherited.  On the host
 * only the allocations a launch may write are copied (the second run
 * reads the others as the first did); on the GPU every one is, since the
 * host run reads host copies.  On the host the one-thread run works on
 * those copies, its pointers moved onto them as the GPU check's host
 * run's are (duo_vd_shadow): one copy of each written allocation, and
 * every thread's results stay where the program left them.  An
 * allocation reached through an argument whose pointers the move cannot
 * follow (a struct, or a pointer to anything but numbers and bytes) is
 * put back in place between the two runs instead ("restore" mode: three
 * copies, the last to keep every thread's results); where such an
 * argument reaches an allocation that itself holds an address of duo
 * memory, every live allocation is (host_follow).  The copies' buffers
 * are kept from launch to launch, grown as needed, and freed at
 * duo_finalize; on the GPU they are pinned (duo_be_malloc_host), which
 * copies from the device fill several times faster than pageable
 * memory, with pageable memory where pinning fails.
 *
 * What cannot be checked is skipped, with its reason in the summary: a
 * pointer duo did not allocate (the kernel could write memory that
 * cannot be put back for the second run), and, on the GPU, an argument
 * that may hold device pointers (a struct, or a pointer to one), which
 * the host run could not follow.  On the host such arguments are fine:
 * what they reach is put back in place, as above.  On the GPU a pointer
 * to a struct in a duo allocation of at most PLAIN_MAX_BYTES is checked as
 * bytes when none of the allocation's 8-byte words, read before the
 * launch, is an address in a duo allocation or in device memory
 * (duo_be_is_device_address): plain data, such as a solver's scalars,
 * which the host run can read from its copy.  A struct holding a device
 * pointer is skipped.  A struct passed by value is followed instead: each
 * of its 8-byte words that is an address in a duo device allocation adds
 * that allocation to the check (as written: nothing says what the kernel
 * does with it), and the host run gets a copy of the struct with those
 * words moved onto the shadows (duo_vd_shadow_words).  It is skipped
 * where a word is a device address duo did not allocate or pinned host
 * memory, or where an allocation it reaches itself holds addresses of
 * duo device memory (an array of pointers: the host run would follow
 * them into the GPU's memory).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend.h"
#include "error.h"
#include "registry.h"
#include "validate.h"

typedef struct vd_array {
    duo_alloc_view alloc;
    int arg;                 /* the argument that names it; -1 none    */
    int kind;                /* DUO_VD_* of that argument                */
    const void *arg_ptr;     /* that argument's pointer                  */
    int written;             /* a non-const pointer reaches it           */
    int plain;               /* a struct's: must hold no device address  */
    int through;             /* reached through a struct passed by value:
                                must hold no address of duo device memory */
    int restore;             /* host: reached through an argument that may
                                hold pointers, so the second run works on
                                the program's memory, put back          */
    unsigned char *before;   /* its bytes before the launch; on the GPU
                                the host run then writes into them        */
    unsigned char *other;    /* host: every thread's results; GPU: the
                                GPU's                                    */
    size_t before_cap, other_cap; /* the buffers' sizes, kept by the slot */
    int before_pinned, other_pinned; /* from duo_be_malloc_host           */
} vd_array;

static struct {
    int active;
    const char *kernel, *file, *arg_names;
    int line, dims;
    size_t extent[3];
    uint64_t number;         /* launches checked or skipped so far      */
    vd_array *arrays;
    int narrays, capacity;
    int threads;             /* host: the thread count to restore       */
    int restore_all;         /* host: every allocation is restore-mode  */
    double t0;
} op;

/* The launch is over: its slots (and their buffers) wait for the next. */
static void release(void)
{
    op.narrays = 0;
    op.active = 0;
}

void duo_vd_buffer_free(unsigned char **buf, size_t *cap, int *pinned)
{
    if (*pinned)
        (void)duo_be_free_host(*buf);
    else
        free(*buf);
    *buf = NULL;
    *cap = 0;
    *pinned = 0;
}

void duo_vd_launch_free(void)
{
    for (int i = 0; i < op.capacity; ++i) {
        vd_array *a = &op.arrays[i];
        duo_vd_buffer_free(&a->before, &a->before_cap, &a->before_pinned);
        duo_vd_buffer_free(&a->other, &a->other_cap, &a->other_pinned);
    }
    free(op.arrays);
    memset(&op, 0, sizeof op);
}

int duo_vd_buffer_reserve(unsigned char **buf, size_t *cap, int *pinned,
                          size_t bytes)
{
    if (*cap >= bytes && *buf != NULL)
        return 1;
    duo_vd_buffer_free(buf, cap, pinned);
    const size_t size = bytes > 0 ? bytes : 1;
    void *p = NULL;
    duo_error_saved program_error;
    duo_error_save(&program_error);
    if (duo_vd_gpu() && duo_be_malloc_host(&p, size) == DUO_SUCCESS) {
        *pinned = 1;
    } else {
        /* Pinning failed, and pageable memory will do: the program's
         * last error is still the one it last saw. */
        duo_error_restore(&program_error);
        p = malloc(size);
        if (p == NULL)
            return 0;
    }
    *buf = (unsigned char *)p;
    *cap = bytes;
    return 1;
}

static vd_array *array_of(const duo_alloc_view *v)
{
    for (int i = 0; i < op.narrays; ++i)
        if (op.arrays[i].alloc.base == v->base)
            return &op.arrays[i];
    if (op.narrays == op.capacity) {
        int cap = op.capacity ? 2 * op.capacity : 8;
        vd_array *p = (vd_array *)realloc(op.arrays, (size_t)cap * sizeof *p);
        if (p == NULL)
            return NULL;
        memset(p + op.capacity, 0,
               (size_t)(cap - op.capacity) * sizeof *p);
        op.arrays = p;
        op.capacity = cap;
    }
    vd_array *a = &op.arrays[op.narrays++];
    const vd_array kept = *a; /* the slot's buffers */
    memset(a, 0, sizeof *a);
    a->before = kept.before;
    a->other = kept.other;
    a->before_cap = kept.before_cap;
    a->other_cap = kept.other_cap;
    a->before_pinned = kept.before_pinned;
    a->other_pinned = kept.other_pinned;
    a->alloc = *v;
    a->arg = -1;
    a->kind = DUO_VD_BYTES;
    return a;
}

static void add_every_allocation(const duo_alloc_view *v, void *ctx)
{
    int *failed = (int *)ctx;
    vd_array *a = array_of(v);
    if (a == NULL)
        *failed = 1;
    else
        a->written = 1;
}

/* Copy an allocation's bytes from where the work runs into host memory
 * (the GPU: a device-to-host copy; the host: memcpy). */
static int fetch(unsigned char *dst, const vd_array *a)
{
    const double t0 = duo_vd_now();
    const int ok = !duo_vd_gpu()
                       ? (duo_vd_copy(dst, a->alloc.base, a->alloc.bytes), 1)
                       : duo_be_memcpy(dst, a->alloc.base, a->alloc.bytes,
                                       DUO_DEVICE_TO_HOST) == DUO_SUCCESS;
    duo_vd_add_copy_seconds(duo_vd_now() - t0);
    return ok;
}

/* The largest struct allocation checked as plain data on the GPU. */
enum { PLAIN_MAX_BYTES = 1 << 16 };

static const char *const MAY_HOLD_POINTERS =
    "an argument may hold device pointers (a struct, or a pointer to one)";

duo_vd_target duo_vd_word_target(uint64_t w, duo_alloc_view *v)
{
    const void *p = (const void *)(uintptr_t)w;
    if (w == 0)
        return DUO_VD_TARGET_NONE;
    if (duo_registry_find(p, v))
        return DUO_VD_TARGET_DUO;
    return duo_be_is_device_address(p) ? DUO_VD_TARGET_FOREIGN_DEVICE
                                       : DUO_VD_TARGET_NONE;
}

int duo_vd_holds_device_address(const void *bytes, size_t n)
{
    for (size_t at = 0; at + 8 <= n; at += 8) {
        duo_alloc_view v;
        if (duo_vd_word_target(duo_vd_word_at(bytes, at), &v) !=
            DUO_VD_TARGET_NONE)
            return 1;
    }
    return 0;
}

/* The span of live duo allocations, [lo, hi): a word outside it is no
 * address of theirs, which spares most words a registry lookup.  When
 * device memory is asked about, only words outside it in
 * [DEVICE_ASK_LO, DEVICE_ASK_HI) -- x86-64's user-space addresses (47
 * bits) above the first 4 GiB -- are asked whether they are device
 * memory from elsewhere: most data (floats and doubles of ordinary size,
 * small integers) is not, and the question costs a driver call. */
#define DEVICE_ASK_LO ((uint64_t)1 << 32)
#define DEVICE_ASK_HI ((uint64_t)1 << 47)
typedef struct alloc_span {
    uintptr_t lo, hi;
} alloc_span;

/* Span ctx widened to allocation v (widen_to), or to v only if it is
 * device memory (widen_to_device). */
static void widen_to(const duo_alloc_view *v, void *ctx)
{
    alloc_span *s = (alloc_span *)ctx;
    const uintptr_t b = (uintptr_t)v->base;
    if (s->lo == s->hi || b < s->lo)
        s->lo = b;
    if (b + v->bytes > s->hi)
        s->hi = b + v->bytes;
}

static void widen_to_device(const duo_alloc_view *v, void *ctx)
{
    if (v->kind == DUO_ALLOC_DEVICE)
        widen_to(v, ctx);
}

/* Whether one of the 8-byte words of bytes[0..n) is an address in a live
 * duo allocation (device: a device allocation, or device memory from
 * elsewhere).  Only words within the span of those allocations are
 * looked up, so a scan costs about one read of the bytes. */
static int words_hold_address(const void *bytes, size_t n, int device)
{
    alloc_span span = {0, 0};
    duo_registry_each(device ? widen_to_device : widen_to, &span);
    for (size_t at = 0; at + 8 <= n; at += 8) {
        const uint64_t w = duo_vd_word_at(bytes, at);
        duo_alloc_view v;
        if (w >= span.lo && w < span.hi) {
            if (duo_registry_find((const void *)(uintptr_t)w, &v) &&
                (!device || v.kind == DUO_ALLOC_DEVICE))
                return 1;
        } else if (device && w >= DEVICE_ASK_LO && w < DEVICE_ASK_HI &&
                   duo_be_is_device_address((const void *)(uintptr_t)w)) {
            return 1;
        }
    }
    return 0;
}

int duo_vd_array_holds_device_pointer(const void *bytes, size_t n)
{
    return words_hold_address(bytes, n, 1);
}

static int skip(const char *reason)
{
    duo_vd_count_skipped(reason);
    duo_vd_add_seconds(duo_vd_now() - op.t0);
    release();
    return 0;
}

/* GPU: the allocations a struct passed by value (n bytes) points into,
 * added to the check; 0 (the reason counted) where it cannot be. */
static int follow_struct(const void *bytes, size_t n)
{
    for (size_t at = 0; at + 8 <= n; at += 8) {
        duo_alloc_view v;
        const duo_vd_target t =
            duo_vd_word_target(duo_vd_word_at(bytes, at), &v);
        if (t == DUO_VD_TARGET_NONE)
            continue;
        if (t == DUO_VD_TARGET_FOREIGN_DEVICE)
            return skip("a struct argument holds a device pointer duo "
                        "did not allocate");
        if (v.kind != DUO_ALLOC_DEVICE)
            return skip("a struct argument points to pinned host memory "
                        "(duo_malloc_host)");
        vd_array *a = array_of(&v);
        if (a == NULL)
            return skip("no host memory for the check");
        a->written = 1;
        a->through = 1;
    }
    return 1;
}

/* Host: whether allocation a is restore-mode (its second run works on
 * the program's memory, put back after the first; else on a copy). */
static int put_back(const vd_array *a)
{
    return !duo_vd_gpu() && (op.restore_all || a->restore);
}

/* Host: the allocation that 8-byte word w (argument k's pointer, or a
 * word of it passed by value) points into, made restore-mode: the
 * second run reaches it through a pointer the launch macros cannot
 * move.  1 when done or w is no address of duo memory; 0 when it itself
 * holds an address of duo memory, at any size (the second run could
 * follow it anywhere), which only restoring every allocation covers; -1
 * when there is no memory for the check. */
static int host_reach(uint64_t w, int k, int is_const)
{
    duo_alloc_view v;
    if (w == 0 || !duo_registry_find((const void *)(uintptr_t)w, &v))
        return 1;
    if (words_hold_address(v.base, v.bytes, 0))
        return 0;
    vd_array *a = array_of(&v);
    if (a == NULL)
        return -1;
    if (a->arg < 0) {
        a->arg = k;
        a->kind = DUO_VD_BYTES;
        a->arg_ptr = (const void *)(uintptr_t)w;
    }
    a->written |= !is_const;
    a->restore = 1;
    return 1;
}

/* Host: an argument that may hold pointers (a struct, or a pointer to
 * one): host_reach of its pointer, or of each word of its bytes (the C
 * macros see a pointer to a struct as such bytes); 0 where its bytes are
 * unseen. */
static int host_follow(const duo_vd_arg *arg, int k)
{
    if (arg->ptr != NULL)
        return host_reach((uint64_t)(uintptr_t)arg->ptr, k, arg->is_const);
    if (arg->value == NULL)
        return 0;
    for (size_t at = 0; at + 8 <= arg->value_bytes; at += 8) {
        const int r = host_reach(duo_vd_word_at(arg->value, at), k, 0);
        if (r != 1)
            return r;
    }
    return 1;
}

int duo_vd_begin(const char *kernel, const char *file, int line,
                 const char *arg_names, int dims, size_t ni, size_t nj,
                 size_t nk, const duo_vd_arg *args, int nargs, int gpu)
{
    release();
    op.t0 = duo_vd_now();
    op.kernel = kernel;
    op.file = file;
    op.line = line;
    op.arg_names = arg_names;
    op.dims = dims;
    op.extent[0] = ni;
    op.extent[1] = nj;
    op.extent[2] = nk;
    op.restore_all = 0;
    ++op.number;

    int every = 0;
    for (int k = 0; k < nargs; ++k) {
        if (!gpu && args[k].kind == DUO_VD_OPAQUE) {
            const int r = host_follow(&args[k], k);
            if (r < 0)
                return skip("no host memory for the check");
            every |= r == 0;
            continue;
        }
        const int plain = gpu && args[k].kind == DUO_VD_OPAQUE;
        if (plain && args[k].value != NULL) { /* a struct, by value */
            if (!follow_struct(args[k].value, args[k].value_bytes))
                return 0;
            continue;
        }
        if (plain && args[k].ptr == NULL) /* by value: bytes unseen */
            return skip(MAY_HOLD_POINTERS);
        if (args[k].kind == DUO_VD_SCALAR || args[k].ptr == NULL)
            continue;
        duo_alloc_view v;
        if (!duo_registry_find(args[k].ptr, &v))
            return skip("a pointer argument is not memory from duo_malloc");
        if (gpu && v.kind != DUO_ALLOC_DEVICE)
            return skip("a pointer argument is pinned host memory "
                        "(duo_malloc_host)");
        if (plain && v.bytes > PLAIN_MAX_BYTES)
            return skip(MAY_HOLD_POINTERS);
        vd_array *a = array_of(&v);
        if (a == NULL)
            return skip("no host memory for the check");
        /* Named after the first argument that may write it. */
        if (a->arg < 0 || (!a->written && !args[k].is_const)) {
            a->arg = k;
            a->kind = plain ? DUO_VD_BYTES : args[k].kind;
            a->arg_ptr = args[k].ptr;
        }
        a->written |= !args[k].is_const;
        a->plain |= plain;
    }
    if (every) {
        op.restore_all = 1;
        int failed = 0;
        duo_registry_each(add_every_allocation, &failed);
        if (failed)
            return skip("no host memory for the check");
    }
    if (gpu && duo_be_synchronize() != DUO_SUCCESS)
        return skip("the work before it failed");
    for (int i = 0; i < op.narrays; ++i) {
        vd_array *a = &op.arrays[i];
        if (!gpu && !a->written)
            continue;
        const size_t bytes = a->alloc.bytes;
        if (!duo_vd_buffer_reserve(&a->before, &a->before_cap,
                                   &a->before_pinned, bytes) ||
            (a->written && (gpu || put_back(a)) &&
             !duo_vd_buffer_reserve(&a->other, &a->other_cap,
                                    &a->other_pinned, bytes)))
            return skip("no host memory for the check");
        if (!fetch(a->before, a))
            return skip("copying its inputs failed");
        if (a->plain && duo_vd_holds_device_address(a->before, bytes))
            return skip("a struct that an argument points to holds a "
                        "device pointer");
        if (a->through &&
            duo_vd_array_holds_device_pointer(a->before, bytes))
            return skip("a struct argument points to device pointers");
    }
    op.active = 1;
    return 1;
}

/* Whether allocation a has a shadow the second run works on: on the GPU
 * every one; on the host the written ones, unless restore-mode. */
static int shadowed(const vd_array *a)
{
    return op.active && (duo_vd_gpu() || (a->written && !put_back(a)));
}

void *duo_vd_shadow(const void *p)
{
    if (p == NULL)
        return NULL;
    for (int i = 0; i < op.narrays; ++i) {
        const vd_array *a = &op.arrays[i];
        const char *base = (const char *)a->alloc.base;
        if ((const char *)p >= base &&
            (const char *)p < base + a->alloc.bytes)
            return shadowed(a) ? a->before + ((const char *)p - base)
                               : (void *)p;
    }
    return (void *)p; /* not reached: begin found every pointer */
}

void duo_vd_shadow_words(void *bytes, size_t n)
{
    unsigned char *b = (unsigned char *)bytes;
    for (size_t at = 0; at + 8 <= n; at += 8) {
        const uint64_t w = duo_vd_word_at(b, at);
        for (int i = 0; i < op.narrays; ++i) {
            const vd_array *a = &op.arrays[i];
            if (!shadowed(a))
                continue;
            const uintptr_t base = (uintptr_t)a->alloc.base;
            if (w >= base && w < base + a->alloc.bytes) {
                const uint64_t moved = (uint64_t)(uintptr_t)(a->before +
                                                             (w - base));
                memcpy(b + at, &moved, sizeof moved);
                break;
            }
        }
    }
}

void duo_vd_rerun(void)
{
    const double t0 = duo_vd_now();
    for (int i = 0; i < op.narrays; ++i) {
        vd_array *a = &op.arrays[i];
        if (!a->written || !put_back(a))
            continue;
        duo_vd_copy(a->other, a->alloc.base, a->alloc.bytes);
        duo_vd_copy((void *)a->alloc.base, a->before, a->alloc.bytes);
    }
    duo_vd_add_copy_seconds(duo_vd_now() - t0);
#ifdef _OPENMP
    op.threads = omp_get_max_threads();
    omp_set_num_threads(1);
#endif
}

/* "[3, 17] (element 1553 of u)" style position of element e of the
 * array (counted from the argument's pointer when it points inside). */
static void position(const vd_array *a, size_t first, char *buf,
                     size_t size)
{
    const size_t esize = duo_vd_elem_size(a->kind);
    const size_t from = a->arg_ptr != NULL
        ? (size_t)((const char *)a->arg_ptr - (const char *)a->alloc.base)
        : 0;
    const size_t byte = first * esize;
    if (byte < from) {
        snprintf(buf, size, "element %zu of the allocation (before the "
                 "argument's pointer)", first);
        return;
    }
    const size_t e = (byte - from) / esize;
    const size_t count = (a->alloc.bytes - from) / esize;
    if (op.dims == 2 && op.extent[0] * op.extent[1] == count)
        snprintf(buf, size, "[%zu, %zu] (element %zu)", e / op.extent[1],
                 e % op.extent[1], e);
    else if (op.dims == 3 &&
             op.extent[0] * op.extent[1] * op.extent[2] == count)
        snprintf(buf, size, "[%zu, %zu, %zu] (element %zu)",
                 e / (op.extent[1] * op.extent[2]),
                 (e / op.extent[2]) % op.extent[1], e % op.extent[2], e);
    else
        snprintf(buf, size, "[%zu]", e);
}

/* The name of argument k in "n, a, x, y" (nested parentheses kept). */
static void argument_name(int k, char *buf, size_t size)
{
    const char *p = op.arg_names;
    int depth = 0, at = 0;
    while (*p != '\0' && at < k) {
        if (*p == '(' || *p == '[' || *p == '{')
            ++depth;
        else if (*p == ')' || *p == ']' || *p == '}')
            --depth;
        else if (*p == ',' && depth == 0)
            ++at;
        ++p;
    }
    while (*p == ' ')
        ++p;
    size_t n = 0;
    depth = 0;
    while (p[n] != '\0' && !(p[n] == ',' && depth == 0)) {
        if (p[n] == '(' || p[n] == '[' || p[n] == '{')
            ++depth;
        else if (p[n] == ')' || p[n] == ']' || p[n] == '}')
            --depth;
        ++n;
    }
    while (n > 0 && p[n - 1] == ' ')
        --n;
    if (n >= size)
        n = size - 1;
    memcpy(buf, p, n);
    buf[n] = '\0';
}

static void report(const vd_array *a, const unsigned char *checked,
                   const unsigned char *reference, const duo_vd_diff *d)
{
    const char *slash = strrchr(op.file, '/');
    char what[512], where[160], va[96], vb[96], name[128], made[300];
    snprintf(what, sizeof what, "launch #%llu, kernel %s at %s:%d",
             (unsigned long long)op.number, op.kernel,
             slash ? slash + 1 : op.file, op.line);
    if (a->arg >= 0)
        argument_name(a->arg, name, sizeof name);
    const char *aslash = a->alloc.file ? strrchr(a->alloc.file, '/') : NULL;
    if (a->alloc.file != NULL)
        snprintf(made, sizeof made, ", allocated at %s:%d",
                 aslash ? aslash + 1 : a->alloc.file, a->alloc.line);
    else
        made[0] = '\0';
    position(a, (size_t)d->first, where, sizeof where);
    duo_vd_format(a->kind, checked, (size_t)d->first, va, sizeof va);
    duo_vd_format(a->kind, reference, (size_t)d->first, vb, sizeof vb);
    const size_t n = a->alloc.bytes / duo_vd_elem_size(a->kind);
    char details[1400];
    char which[200];
    if (a->arg >= 0)
        snprintf(which, sizeof which, "argument %d `%s`", a->arg + 1, name);
    else
        snprintf(which, sizeof which, "an allocation no pointer argument "
                 "names (reached through a struct argument)");
    int at = snprintf(details, sizeof details,
                      "  array: %s (%s, %zu bytes%s)\n"
                      "  first difference at %s: %s %s, %s %s",
                      which, duo_vd_kind_name(a->kind),
                      a->alloc.bytes, made, where,
                      duo_vd_gpu() ? "GPU" : "all threads", va,
                      duo_vd_gpu() ? "host" : "one thread", vb);
    if ((a->kind == DUO_VD_F32 || a->kind == DUO_VD_F64) &&
        d->first_ulps == UINT64_MAX)
        at += snprintf(details + at, sizeof details - (size_t)at,
                       ", a NaN against a number");
    else if (a->kind == DUO_VD_F32 || a->kind == DUO_VD_F64)
        at += snprintf(details + at, sizeof details - (size_t)at,
                       ", %llu ulp(s) apart (largest %llu)",
                       (unsigned long long)d->first_ulps,
                       (unsigned long long)d->max_ulps);
    snprintf(details + at, sizeof details - (size_t)at,
             "\n  %llu of %zu element(s) differ\n",
             (unsigned long long)d->count, n);
    duo_vd_report(what, details);
}

void duo_vd_end(void)
{
    if (!op.active)
        return;
#ifdef _OPENMP
    if (!duo_vd_gpu())
        omp_set_num_threads(op.threads);
#endif
    int failed = duo_vd_gpu() && duo_be_synchronize() != DUO_SUCCESS;
    uint64_t bytes = 0;
    for (int i = 0; i < op.narrays && !failed; ++i) {
        vd_array *a = &op.arrays[i];
        if (!a->written)
            continue;
        const unsigned char *checked, *reference;
        if (duo_vd_gpu()) {
            if (!fetch(a->other, a)) {
                failed = 1;
                break;
            }
            checked = a->other;
            reference = a->before;
        } else if (put_back(a)) {
            checked = a->other;
            reference = (const unsigned char *)a->alloc.base;
        } else {
            checked = (const unsigned char *)a->alloc.base;
            reference = a->before;
        }
        const size_t esize = duo_vd_elem_size(a->kind);
        duo_vd_diff d;
        duo_vd_compare(a->kind, checked, reference, a->alloc.bytes / esize,
                       &d);
        bytes += a->alloc.bytes;
        if (d.count > 0)
            report(a, checked, reference, &d);
        /* Restore mode: leave what every thread computed (where one
         * thread's bits differ anywhere: most launches agree to the last
         * byte). */
        if (put_back(a) &&
            !(d.identical && a->alloc.bytes % esize == 0)) {
            const double t0 = duo_vd_now();
            duo_vd_copy((void *)a->alloc.base, a->other, a->alloc.bytes);
            duo_vd_add_copy_seconds(duo_vd_now() - t0);
        }
    }
    /* The whole check: both runs, the copies and the comparison. */
    duo_vd_add_seconds(duo_vd_now() - op.t0);
    if (failed)
        duo_vd_count_skipped("the launch or the copy of its results failed");
    else
        duo_vd_count_checked(bytes);
    release();
}
