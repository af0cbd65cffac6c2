/*
 * dump.c - writer and validating reader of duo dump files (format in
 * dump.h).  Plain C11 plus POSIX fstat, no kernels.
 */
#define _POSIX_C_SOURCE 200809L

#include "dump.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

/* Offset of the array count in the header. */
#define COUNT_OFFSET 12

/* ------------------------------------------------------------------ */
/* Shared helpers                                                      */

size_t dump_type_size(duo_dtype type)
{
    switch (type) {
    case DUO_F32:
    case DUO_I32:
        return 4;
    case DUO_F64:
    case DUO_I64:
    case DUO_U64:
        return 8;
    }
    return 0;
}

const char *dump_type_name(duo_dtype type)
{
    switch (type) {
    case DUO_F32: return "f32";
    case DUO_F64: return "f64";
    case DUO_I32: return "i32";
    case DUO_I64: return "i64";
    case DUO_U64: return "u64";
    }
    return "?";
}

static int host_is_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

/* Reverse the bytes of each `size`-byte element of buf in place. */
static void swap_elements(unsigned char *buf, size_t bytes, size_t size)
{
    for (size_t e = 0; e + size <= bytes; e += size)
        for (size_t i = 0; i < size / 2; ++i) {
            unsigned char t = buf[e + i];
            buf[e + i] = buf[e + size - 1 - i];
            buf[e + size - 1 - i] = t;
        }
}

static uint64_t fnv1a(uint64_t hash, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        hash ^= p[i];
        hash *= FNV_PRIME;
    }
    return hash;
}

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; ++i)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

/* Length of a valid UTF-8 sequence at p (at most n bytes), 0 if invalid. */
static size_t utf8_char(const unsigned char *p, size_t n)
{
    if (p[0] < 0x80)
        return 1;
    size_t len;
    uint32_t min, cp;
    if ((p[0] & 0xe0) == 0xc0) {
        len = 2; min = 0x80; cp = p[0] & 0x1f;
    } else if ((p[0] & 0xf0) == 0xe0) {
        len = 3; min = 0x800; cp = p[0] & 0x0f;
    } else if ((p[0] & 0xf8) == 0xf0) {
        len = 4; min = 0x10000; cp = p[0] & 0x07;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; ++i) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

/* A valid array name: 1..DUMP_MAX_NAME bytes of UTF-8, none a space,
 * control character or DEL. */
static int name_ok(const unsigned char *name, size_t len)
{
    if (len == 0 || len > DUMP_MAX_NAME)
        return 0;
    for (size_t i = 0; i < len;) {
        if (name[i] <= 0x20 || name[i] == 0x7f)
            return 0;
        size_t k = utf8_char(name + i, len - i);
        if (k == 0)
            return 0;
        i += k;
    }
    return 1;
}

/* ------------------------------------------------------------------ */
/* Writer                                                              */

struct dump_writer {
    FILE *f;
    char *path;
    uint32_t count;  /* arrays completely written                      */
    uint32_t nnames; /* names in `names` (count, or count + 1 when the
                        last dump_array failed after storing its name)  */
    int failed;
    char **names;    /* names of the arrays, for duplicate checks       */
};

static void writer_fail(dump_writer *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void writer_fail(dump_writer *w, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "dump: %s: ", w->path);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    w->failed = 1;
}

/* fwrite that marks the writer failed (with the errno text) on error. */
static int writer_put(dump_writer *w, const void *p, size_t n,
                      const char *what)
{
    if (n == 0)
        return 0;
    errno = 0;
    if (fwrite(p, 1, n, w->f) != n) {
        writer_fail(w, "writing %s failed: %s", what,
                    errno ? strerror(errno) : "write error");
        return -1;
    }
    return 0;
}

/* A growing text buffer for the metadata. */
typedef struct text {
    char *p;
    size_t len, cap;
    int oom;
} text;

static void text_add(text *t, const char *s, size_t n, int sanitize)
{
    if (t->oom)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *p = (char *)realloc(t->p, cap);
        if (p == NULL) {
            t->oom = 1;
            return;
        }
        t->p = p;
        t->cap = cap;
    }
    for (size_t i = 0; i < n; ++i) {
        unsigned char c = (unsigned char)s[i];
        t->p[t->len++] = (sanitize && (c < 0x20 || c == 0x7f)) ? '?'
                                                              : (char)c;
    }
    t->p[t->len] = '\0';
}

static void text_str(text *t, const char *s, int sanitize)
{
    text_add(t, s, strlen(s), sanitize);
}

/* argv[1..] joined by spaces, without the options that cannot change a
 * result: --dump FILE, --png FILE, --reps R and --check (so two runs that
 * differ only in where they write, how often they time, or whether they
 * check, compare as the same run). */
static void add_args(text *t, int argc, char **argv)
{
    static const char *const with_value[] = {"--dump", "--png", "--reps"};
    int first = 1;
    for (int i = 1; i < argc && argv != NULL; ++i) {
        const char *a = argv[i];
        if (a == NULL)
            break;
        int skip = strcmp(a, "--check") == 0;
        for (size_t o = 0; o < sizeof with_value / sizeof *with_value; ++o) {
            const size_t len = strlen(with_value[o]);
            if (strcmp(a, with_value[o]) == 0) {
                ++i; /* and its value */
                skip = 1;
            } else if (strncmp(a, with_value[o], len) == 0 && a[len] == '=') {
                skip = 1;
            }
        }
        if (skip)
            continue;
        if (!first)
            text_str(t, " ", 0);
        text_str(t, a, 1);
        first = 0;
    }
}

dump_writer *dump_open(const char *path, const char *app, int argc,
                       char **argv)
{
    if (path == NULL || path[0] == '\0') {
        fprintf(stderr, "dump: dump_open: the file name is empty\n");
        return NULL;
    }
    if (app == NULL || app[0] == '\0') {
        fprintf(stderr, "dump: %s: dump_open: the app name is empty\n",
                path);
        return NULL;
    }

    dump_writer *w = (dump_writer *)calloc(1, sizeof *w);
    char *path_copy = (char *)malloc(strlen(path) + 1);
    if (w == NULL || path_copy == NULL) {
        fprintf(stderr, "dump: %s: out of host memory\n", path);
        free(w);
        free(path_copy);
        return NULL;
    }
    strcpy(path_copy, path);
    w->path = path_copy;

    /* The metadata block. */
    duo_device_info info;
    const char *device = "unknown";
    if (duo_device_info_get(&info) == DUO_SUCCESS && info.name[0] != '\0') {
        info.name[sizeof info.name - 1] = '\0';
        device = info.name;
    }
    text meta = {NULL, 0, 0, 0};
    text_str(&meta, "app=", 0);
    text_str(&meta, app, 1);
    text_str(&meta, "\nargs=", 0);
    add_args(&meta, argc, argv);
    text_str(&meta, "\nbackend=", 0);
    text_str(&meta, duo_backend_name(), 1);
    text_str(&meta, "\ndevice=", 0);
    text_str(&meta, device, 1);
    text_str(&meta, "\n", 0);
    if (meta.oom || meta.len > DUMP_MAX_META) {
        fprintf(stderr, "dump: %s: %s\n", path,
                meta.oom ? "out of host memory"
                         : "the metadata (the command line) is over 1 MiB");
        free(meta.p);
        free(w->path);
        free(w);
        return NULL;
    }

    errno = 0;
    w->f = fopen(path, "wb");
    if (w->f == NULL) {
        fprintf(stderr, "dump: %s: cannot create the file: %s\n", path,
                errno ? strerror(errno) : "fopen failed");
        free(meta.p);
        free(w->path);
        free(w);
        return NULL;
    }

    unsigned char head[20];
    memcpy(head, DUMP_MAGIC, 8); /* includes the NUL */
    put_u32(head + 8, DUMP_VERSION);
    put_u32(head + COUNT_OFFSET, DUMP_COUNT_OPEN);
    put_u32(head + 16, (uint32_t)meta.len);
    if (writer_put(w, head, sizeof head, "the header") == 0)
        (void)writer_put(w, meta.p, meta.len, "the metadata");
    free(meta.p);
    if (w->failed) {
        (void)dump_close(w); /* removes the file */
        return NULL;
    }
    return w;
}

int dump_array(dump_writer *w, const char *name, duo_dtype type, int rank,
               const size_t *dims, const void *host_data)
{
    if (w == NULL)
        return -1;
    if (w->failed)
        return -1;
    if (name == NULL || !name_ok((const unsigned char *)name, strlen(name))) {
        writer_fail(w, "dump_array: array name '%s' is invalid: it must be "
                    "1 to %d bytes of UTF-8 without spaces or control "
                    "characters",
                    name ? name : "(null)", DUMP_MAX_NAME);
        return -1;
    }
    size_t size = dump_type_size(type);
    if (size == 0) {
        writer_fail(w, "dump_array '%s': unknown element type %d (expected "
                    "a duo_dtype: DUO_F32, DUO_F64, DUO_I32, DUO_I64 or "
                    "DUO_U64)", name, (int)type);
        return -1;
    }
    if (rank < 1 || rank > DUMP_MAX_RANK || dims == NULL) {
        writer_fail(w, "dump_array '%s': rank %d%s (expected 1 to %d dims)",
                    name, rank, dims == NULL ? " with dims NULL" : "",
                    DUMP_MAX_RANK);
        return -1;
    }
    if (w->count >= DUMP_MAX_ARRAYS) {
        writer_fail(w, "dump_array '%s': more than %d arrays in one file",
                    name, DUMP_MAX_ARRAYS);
        return -1;
    }
    for (uint32_t i = 0; i < w->nnames; ++i)
        if (strcmp(w->names[i], name) == 0) {
            writer_fail(w, "dump_array '%s': an array of that name was "
                        "already written to this file", name);
            return -1;
        }
    size_t count = 1;
    for (int d = 0; d < rank; ++d) {
        if (dims[d] != 0 && count > SIZE_MAX / dims[d]) {
            writer_fail(w, "dump_array '%s': the dims overflow size_t", name);
            return -1;
        }
        count *= dims[d];
    }
    if (count > SIZE_MAX / size) {
        writer_fail(w, "dump_array '%s': the byte count overflows size_t",
                    name);
        return -1;
    }
    size_t bytes = count * size;
    if (bytes > 0 && host_data == NULL) {
        writer_fail(w, "dump_array '%s': host_data is NULL", name);
        return -1;
    }

    /* Remember the name (for duplicate checks). */
    char **names = (char **)realloc(w->names,
                                    (w->count + 1) * sizeof *names);
    if (names == NULL) {
        writer_fail(w, "dump_array '%s': out of host memory", name);
        return -1;
    }
    w->names = names;
    names[w->count] = (char *)malloc(strlen(name) + 1);
    if (names[w->count] == NULL) {
        writer_fail(w, "dump_array '%s': out of host memory", name);
        return -1;
    }
    strcpy(names[w->count], name);
    w->nnames = w->count + 1;

    unsigned char head[4 + DUMP_MAX_NAME + 4 + 4 + 8 * DUMP_MAX_RANK + 8];
    size_t n = 0, len = strlen(name);
    put_u32(head + n, (uint32_t)len);
    n += 4;
    memcpy(head + n, name, len);
    n += len;
    put_u32(head + n, (uint32_t)type);
    n += 4;
    put_u32(head + n, (uint32_t)rank);
    n += 4;
    for (int d = 0; d < rank; ++d, n += 8)
        put_u64(head + n, (uint64_t)dims[d]);
    put_u64(head + n, (uint64_t)bytes);
    n += 8;
    if (writer_put(w, head, n, "an array header") != 0)
        return -1;

    /* The data, little-endian, and its hash. */
    uint64_t hash = FNV_OFFSET;
    const unsigned char *src = (const unsigned char *)host_data;
    if (host_is_little_endian()) {
        hash = fnv1a(hash, src, bytes);
        if (writer_put(w, src, bytes, "array data") != 0)
            return -1;
    } else {
        unsigned char chunk[1 << 14];
        for (size_t off = 0; off < bytes; off += sizeof chunk) {
            size_t k = bytes - off < sizeof chunk ? bytes - off
                                                  : sizeof chunk;
            memcpy(chunk, src + off, k);
            swap_elements(chunk, k, size);
            hash = fnv1a(hash, chunk, k);
            if (writer_put(w, chunk, k, "array data") != 0)
                return -1;
        }
    }
    unsigned char tail[8];
    put_u64(tail, hash);
    if (writer_put(w, tail, sizeof tail, "an array hash") != 0)
        return -1;
    w->count++;
    return 0;
}

int dump_close(dump_writer *w)
{
    if (w == NULL)
        return -1;
    if (!w->failed) {
        unsigned char c[4];
        put_u32(c, w->count);
        errno = 0;
        if (fflush(w->f) != 0 || fseek(w->f, COUNT_OFFSET, SEEK_SET) != 0)
            writer_fail(w, "finishing the file failed: %s",
                        errno ? strerror(errno) : "I/O error");
        else
            (void)writer_put(w, c, sizeof c, "the array count");
    }
    errno = 0;
    if (fclose(w->f) != 0 && !w->failed)
        writer_fail(w, "closing the file failed: %s",
                    errno ? strerror(errno) : "I/O error");
    int failed = w->failed;
    if (failed)
        (void)remove(w->path);
    for (uint32_t i = 0; i < w->nnames; ++i)
        free(w->names[i]);
    free(w->names);
    free(w->path);
    free(w);
    return failed ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* Reader                                                              */

typedef struct reader {
    FILE *f;
    const char *path;
    uint64_t off;   /* bytes consumed so far */
    uint64_t size;  /* file size */
    char *err;
    size_t errsize;
} reader;

static int reader_fail(reader *r, uint64_t at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* "<path>: <message> (at byte offset <at>)"; returns -1. */
static int reader_fail(reader *r, uint64_t at, const char *fmt, ...)
{
    if (r->err == NULL || r->errsize == 0)
        return -1;
    int n = snprintf(r->err, r->errsize, "%s: ", r->path);
    if (n < 0 || (size_t)n >= r->errsize)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(r->err + n, r->errsize - (size_t)n, fmt, ap);
    va_end(ap);
    if (m < 0 || (size_t)(n + m) >= r->errsize)
        return -1;
    snprintf(r->err + n + m, r->errsize - (size_t)(n + m),
             " (at byte offset %llu)", (unsigned long long)at);
    return -1;
}

/* Read n bytes of `what` at the current offset. */
static int reader_get(reader *r, void *p, uint64_t n, const char *what)
{
    if (n > r->size - r->off)
        return reader_fail(r, r->off, "truncated file: %s needs %llu bytes "
                           "but the file (%llu bytes) ends after %llu more",
                           what, (unsigned long long)n,
                           (unsigned long long)r->size,
                           (unsigned long long)(r->size - r->off));
    errno = 0;
    if (n > 0 && fread(p, 1, (size_t)n, r->f) != (size_t)n)
        return reader_fail(r, r->off, "reading %s failed: %s", what,
                           ferror(r->f) && errno ? strerror(errno)
                                                 : "the file shrank or "
                                                   "could not be read");
    r->off += n;
    return 0;
}

static int reader_u32(reader *r, uint32_t *v, const char *what)
{
    unsigned char b[4];
    if (reader_get(r, b, 4, what) != 0)
        return -1;
    *v = get_u32(b);
    return 0;
}

static int reader_u64(reader *r, uint64_t *v, const char *what)
{
    unsigned char b[8];
    if (reader_get(r, b, 8, what) != 0)
        return -1;
    *v = get_u64(b);
    return 0;
}

/* Check the metadata text (at file offset base) and split it into lines;
 * sets the four required keys. */
static int parse_meta(reader *r, uint64_t base, char *meta, size_t len,
                      dump_file *out)
{
    const unsigned char *u = (const unsigned char *)meta;
    for (size_t i = 0; i < len;) {
        if (u[i] == 0)
            return reader_fail(r, base + i, "the metadata contains a NUL "
                               "byte");
        size_t k = utf8_char(u + i, len - i);
        if (k == 0)
            return reader_fail(r, base + i, "the metadata is not valid "
                               "UTF-8");
        i += k;
    }
    if (len == 0 || meta[len - 1] != '\n')
        return reader_fail(r, base + len, "the metadata does not end with a "
                           "newline (each 'key=value' line must)");

    static const char *const keys[4] = {"app", "args", "backend", "device"};
    const char **slots[4] = {&out->app, &out->args, &out->backend,
                             &out->device};
    size_t start = 0;
    while (start < len) {
        char *line = meta + start;
        char *nl = (char *)memchr(line, '\n', len - start);
        size_t line_len = (size_t)(nl - line);
        *nl = '\0';
        char *eq = strchr(line, '=');
        if (eq == NULL)
            return reader_fail(r, base + start, "metadata line '%.60s' is "
                               "not of the form key=value", line);
        for (int k = 0; k < 4; ++k) {
            size_t kl = strlen(keys[k]);
            if ((size_t)(eq - line) == kl && strncmp(line, keys[k], kl) == 0) {
                if (*slots[k] != NULL)
                    return reader_fail(r, base + start, "the metadata has "
                                       "two '%s=' lines", keys[k]);
                *slots[k] = eq + 1;
            }
        }
        start += line_len + 1;
    }
    for (int k = 0; k < 4; ++k)
        if (*slots[k] == NULL)
            return reader_fail(r, base, "the metadata has no '%s=' line "
                               "(app, args, backend and device are "
                               "required)", keys[k]);
    if (out->app[0] == '\0')
        return reader_fail(r, base, "the metadata's app name is empty");
    return 0;
}

static void describe_dims(const dump_entry *e, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int d = 0; d < e->rank && used < size; ++d) {
        int w = snprintf(buf + used, size - used, "%s%llu", d ? " x " : "",
                         (unsigned long long)e->dims[d]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

static int read_array(reader *r, uint32_t index, dump_file *out)
{
    dump_entry *e = &out->arrays[index];
    const unsigned number = (unsigned)index + 1; /* 1-based, for messages */
    uint64_t start = r->off;
    char what[DUMP_MAX_NAME + 64];
    snprintf(what, sizeof what, "the name length of array #%u", number);

    uint32_t name_len;
    if (reader_u32(r, &name_len, what) != 0)
        return -1;
    if (name_len == 0 || name_len > DUMP_MAX_NAME)
        return reader_fail(r, start, "array #%u: name length %u (must be 1 "
                           "to %d): corrupt file", number, name_len,
                           DUMP_MAX_NAME);
    snprintf(what, sizeof what, "the name of array #%u", number);
    if (reader_get(r, e->name, name_len, what) != 0)
        return -1;
    e->name[name_len] = '\0';
    if (!name_ok((const unsigned char *)e->name, name_len))
        return reader_fail(r, start + 4, "array #%u: the name is not UTF-8 "
                           "or contains a space, control character or NUL: "
                           "corrupt file",
                           number);
    for (uint32_t i = 0; i < index; ++i)
        if (strcmp(out->arrays[i].name, e->name) == 0)
            return reader_fail(r, start, "two arrays are named '%s'",
                               e->name);

    uint64_t at = r->off;
    uint32_t type, rank;
    snprintf(what, sizeof what, "the type of array '%s'", e->name);
    if (reader_u32(r, &type, what) != 0)
        return -1;
    if (type > (uint32_t)DUO_U64)
        return reader_fail(r, at, "array '%s': unknown element type %u "
                           "(known: 0 f32, 1 f64, 2 i32, 3 i64, 4 u64)",
                           e->name, type);
    e->type = (duo_dtype)type;
    size_t size = dump_type_size(e->type);

    at = r->off;
    snprintf(what, sizeof what, "the rank of array '%s'", e->name);
    if (reader_u32(r, &rank, what) != 0)
        return -1;
    if (rank < 1 || rank > DUMP_MAX_RANK)
        return reader_fail(r, at, "array '%s': rank %u (must be 1 to %d)",
                           e->name, rank, DUMP_MAX_RANK);
    e->rank = (int)rank;

    at = r->off;
    uint64_t count = 1;
    int overflow = 0;
    for (int d = 0; d < DUMP_MAX_RANK; ++d)
        e->dims[d] = 1;
    snprintf(what, sizeof what, "the dims of array '%s'", e->name);
    for (int d = 0; d < e->rank; ++d) {
        if (reader_u64(r, &e->dims[d], what) != 0)
            return -1;
        if (e->dims[d] != 0 && count > UINT64_MAX / e->dims[d])
            overflow = 1;
        else
            count *= e->dims[d];
    }
    char dims_text[96];
    describe_dims(e, dims_text, sizeof dims_text);
    if (overflow || count > UINT64_MAX / size)
        return reader_fail(r, at, "array '%s': dims [%s] are absurd (the "
                           "byte count overflows 64 bits)", e->name,
                           dims_text);
    e->count = count;
    uint64_t expect = count * size;

    at = r->off;
    uint64_t bytes;
    snprintf(what, sizeof what, "the byte count of array '%s'", e->name);
    if (reader_u64(r, &bytes, what) != 0)
        return -1;
    if (bytes != expect)
        return reader_fail(r, at, "array '%s': sizes inconsistent: %s [%s] "
                           "needs %llu data bytes but the byte count says "
                           "%llu", e->name, dump_type_name(e->type),
                           dims_text, (unsigned long long)expect,
                           (unsigned long long)bytes);
    if (bytes > r->size - r->off)
        return reader_fail(r, r->off, "truncated file: array '%s' has %llu "
                           "data bytes but the file (%llu bytes) ends after "
                           "%llu more", e->name, (unsigned long long)bytes,
                           (unsigned long long)r->size,
                           (unsigned long long)(r->size - r->off));
    if (bytes > SIZE_MAX)
        return reader_fail(r, at, "array '%s' (%llu bytes) does not fit in "
                           "this machine's memory", e->name,
                           (unsigned long long)bytes);

    uint64_t data_at = r->off;
    if (bytes > 0) {
        e->data = malloc((size_t)bytes);
        if (e->data == NULL)
            return reader_fail(r, data_at, "out of host memory for array "
                               "'%s' (%llu bytes)", e->name,
                               (unsigned long long)bytes);
        snprintf(what, sizeof what, "the data of array '%s'", e->name);
        if (reader_get(r, e->data, bytes, what) != 0)
            return -1;
    }
    uint64_t hash = fnv1a(FNV_OFFSET, (const unsigned char *)e->data,
                          (size_t)bytes);
    uint64_t stored;
    at = r->off;
    snprintf(what, sizeof what, "the hash of array '%s'", e->name);
    if (reader_u64(r, &stored, what) != 0)
        return -1;
    if (stored != hash)
        return reader_fail(r, at, "array '%s': hash mismatch: the data "
                           "(%llu bytes from offset %llu) hashes to "
                           "0x%016llx but the file says 0x%016llx: the data "
                           "or the hash is corrupt", e->name,
                           (unsigned long long)bytes,
                           (unsigned long long)data_at,
                           (unsigned long long)hash,
                           (unsigned long long)stored);
    if (bytes > 0 && !host_is_little_endian())
        swap_elements((unsigned char *)e->data, (size_t)bytes, size);
    return 0;
}

void dump_file_free(dump_file *f)
{
    if (f == NULL)
        return;
    if (f->arrays != NULL)
        for (uint32_t i = 0; i < f->narrays; ++i)
            free(f->arrays[i].data);
    free(f->arrays);
    free(f->meta);
    memset(f, 0, sizeof *f);
}

static int read_all(reader *r, dump_file *out)
{
    unsigned char head[8];
    if (r->size == 0)
        return reader_fail(r, 0, "empty file: not a duo dump file");
    size_t magic_len = r->size < 8 ? (size_t)r->size : 8;
    if (reader_get(r, head, magic_len, "the magic") != 0)
        return -1;
    if (memcmp(head, DUMP_MAGIC, magic_len) != 0)
        return reader_fail(r, 0, "wrong magic: not a duo dump file (it must "
                           "start with \"DUODUMP\" and a NUL byte)");
    if (magic_len < 8)
        return reader_fail(r, r->size, "truncated file: it ends inside the "
                           "magic (file size %llu bytes)",
                           (unsigned long long)r->size);

    uint32_t version, count, meta_len;
    if (reader_u32(r, &version, "the format version") != 0)
        return -1;
    if (version != DUMP_VERSION)
        return reader_fail(r, 8, "unsupported format version %u (this "
                           "duo-compare reads version %u)", version,
                           DUMP_VERSION);
    if (reader_u32(r, &count, "the array count") != 0)
        return -1;
    if (count == DUMP_COUNT_OPEN)
        return reader_fail(r, COUNT_OFFSET, "incomplete file: the array "
                           "count is still 0xFFFFFFFF, so the writer never "
                           "reached dump_close (the run crashed or was "
                           "killed)");
    if (count > DUMP_MAX_ARRAYS)
        return reader_fail(r, COUNT_OFFSET, "absurd array count %u (at "
                           "most %d): corrupt file", count,
                           DUMP_MAX_ARRAYS);
    if (reader_u32(r, &meta_len, "the metadata length") != 0)
        return -1;
    if (meta_len > DUMP_MAX_META)
        return reader_fail(r, 16, "absurd metadata length %u (at most %u): "
                           "corrupt file", meta_len, DUMP_MAX_META);
    uint64_t meta_at = r->off;
    if (meta_len > r->size - r->off)
        return reader_fail(r, meta_at, "truncated file: the metadata is "
                           "%u bytes but the file ends after %llu more",
                           meta_len,
                           (unsigned long long)(r->size - r->off));
    out->meta = (char *)malloc((size_t)meta_len + 1);
    if (out->meta == NULL)
        return reader_fail(r, meta_at, "out of host memory");
    if (reader_get(r, out->meta, meta_len, "the metadata") != 0)
        return -1;
    out->meta[meta_len] = '\0';
    if (parse_meta(r, meta_at, out->meta, meta_len, out) != 0)
        return -1;

    /* Every array takes at least 4 + 1 + 4 + 4 + 8 + 8 + 8 bytes. */
    if ((uint64_t)count * 37 > r->size - r->off)
        return reader_fail(r, COUNT_OFFSET, "array count %u cannot fit in "
                           "the %llu bytes after the metadata: truncated "
                           "or corrupt file", count,
                           (unsigned long long)(r->size - r->off));
    if (count > 0) {
        out->arrays = (dump_entry *)calloc(count, sizeof *out->arrays);
        if (out->arrays == NULL)
            return reader_fail(r, r->off, "out of host memory");
    }
    out->narrays = count;
    for (uint32_t i = 0; i < count; ++i)
        if (read_array(r, i, out) != 0)
            return -1;
    if (r->off != r->size)
        return reader_fail(r, r->off, "%llu unexpected bytes after the last "
                           "of the %u arrays the header announces: corrupt "
                           "file", (unsigned long long)(r->size - r->off),
                           count);
    return 0;
}

int dump_read(const char *path, dump_file *out, char *err, size_t errsize)
{
    reader r = {NULL, path ? path : "(null)", 0, 0, err, errsize};
    if (err != NULL && errsize > 0)
        err[0] = '\0';
    if (out == NULL)
        return -1;
    memset(out, 0, sizeof *out);
    if (path == NULL) {
        if (err != NULL && errsize > 0)
            snprintf(err, errsize, "dump_read: the file name is NULL");
        return -1;
    }

    errno = 0;
    r.f = fopen(path, "rb");
    if (r.f == NULL) {
        if (err != NULL && errsize > 0)
            snprintf(err, errsize, "%s: cannot open: %s", path,
                     errno ? strerror(errno) : "fopen failed");
        return -1;
    }
    struct stat st;
    int status;
    if (fstat(fileno(r.f), &st) != 0) {
        if (err != NULL && errsize > 0)
            snprintf(err, errsize, "%s: cannot stat: %s", path,
                     strerror(errno));
        status = -1;
    } else if (!S_ISREG(st.st_mode)) {
        if (err != NULL && errsize > 0)
            snprintf(err, errsize, "%s: not a regular file", path);
        status = -1;
    } else {
        r.size = (uint64_t)st.st_size;
        status = read_all(&r, out);
    }
    fclose(r.f);
    if (status != 0)
        dump_file_free(out);
    return status;
}

const dump_entry *dump_find(const dump_file *f, const char *name)
{
    if (f == NULL || name == NULL)
        return NULL;
    for (uint32_t i = 0; i < f->narrays; ++i)
        if (strcmp(f->arrays[i].name, name) == 0)
            return &f->arrays[i];
    return NULL;
}
