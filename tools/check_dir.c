/*
 * check_dir.c - the reader of <duo/check.h> run folders (check_dir.h).
 * Everything read is validated before it is trusted: a truncated or
 * edited file, or a manifest line that disagrees with its file, is an
 * error that names the file and what is wrong.
 */
#define _POSIX_C_SOURCE 200809L

#include "check_dir.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MANIFEST_MAX (64u << 20) /* bytes */
#define NPY_HEADER_MAX 4096u

int check_dir_is_folder(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int fail(char *err, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, size, fmt, ap);
    va_end(ap);
    return -1;
}

static uint64_t fnv1a64(const unsigned char *p, uint64_t n)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (uint64_t i = 0; i < n; ++i)
        h = (h ^ p[i]) * 0x100000001b3u;
    return h;
}

/* The whole of `path` (at most `limit` bytes) in a new buffer with a NUL
 * after it; NULL with the reason in err. */
static char *read_file(const char *path, size_t limit, size_t *size,
                       char *err, size_t errsize)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fail(err, errsize, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    long end = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        end = ftell(f);
    if (end < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fail(err, errsize, "%s: cannot find its size: %s", path,
             strerror(errno));
        fclose(f);
        return NULL;
    }
    if ((unsigned long)end > limit) {
        fail(err, errsize, "%s: %ld bytes, more than the %zu expected", path,
             end, limit);
        fclose(f);
        return NULL;
    }
    char *buf = malloc((size_t)end + 1);
    if (buf == NULL) {
        fail(err, errsize, "%s: out of memory", path);
        fclose(f);
        return NULL;
    }
    size_t got = fread(buf, 1, (size_t)end, f);
    fclose(f);
    if (got != (size_t)end) {
        fail(err, errsize, "%s: read error", path);
        free(buf);
        return NULL;
    }
    buf[got] = '\0';
    *size = got;
    return buf;
}

static int parse_type(const char *s, duo_dtype *type)
{
    static const struct { const char *name; duo_dtype type; } types[] = {
        {"f32", DUO_F32}, {"f64", DUO_F64}, {"i32", DUO_I32},
        {"i64", DUO_I64}, {"u64", DUO_U64}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i)
        if (strcmp(s, types[i].name) == 0) {
            *type = types[i].type;
            return 0;
        }
    return -1;
}

static const char *npy_descr(duo_dtype type)
{
    switch (type) {
    case DUO_F32: return "<f4";
    case DUO_F64: return "<f8";
    case DUO_I32: return "<i4";
    case DUO_I64: return "<i8";
    case DUO_U64: return "<u8";
    }
    return "?";
}

/* A decimal u64 at *s (no sign, no leading zeros but "0"); advances *s. */
static int parse_u64(const char **s, uint64_t *v)
{
    const char *p = *s;
    if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9'))
        return -1;
    uint64_t x = 0;
    for (; *p >= '0' && *p <= '9'; ++p) {
        if (x > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
            return -1;
        x = x * 10 + (uint64_t)(*p - '0');
    }
    *v = x;
    *s = p;
    return 0;
}

/* "512x512" into dims; the rank in *rank. */
static int parse_dims(const char *s, uint64_t dims[DUMP_MAX_RANK], int *rank)
{
    int r = 0;
    for (;;) {
        if (r == DUMP_MAX_RANK || parse_u64(&s, &dims[r]) != 0)
            return -1;
        ++r;
        if (*s == '\0')
            break;
        if (*s++ != 'x')
            return -1;
    }
    *rank = r;
    for (int d = r; d < DUMP_MAX_RANK; ++d)
        dims[d] = 1;
    return 0;
}

/* Check an .npy header against the manifest's type and dims; the data's
 * offset in *offset. */
static int check_npy_header(const char *path, const unsigned char *buf,
                            size_t size, const dump_entry *e,
                            size_t *offset, char *err, size_t errsize)
{
    if (size < 10 || memcmp(buf, "\x93NUMPY\x01\x00", 8) != 0)
        return fail(err, errsize, "%s: not a version 1.0 .npy file", path);
    const size_t hlen = (size_t)buf[8] | ((size_t)buf[9] << 8);
    if (hlen > NPY_HEADER_MAX || 10 + hlen > size)
        return fail(err, errsize, "%s: truncated .npy header", path);
    char dict[NPY_HEADER_MAX + 1];
    memcpy(dict, buf + 10, hlen);
    dict[hlen] = '\0';

    char want[256], shape[128];
    size_t at = 0;
    for (int d = 0; d < e->rank; ++d)
        at += (size_t)snprintf(shape + at, sizeof shape - at, "%llu%s",
                               (unsigned long long)e->dims[d],
                               e->rank == 1 ? "," :
                               d + 1 < e->rank ? ", " : "");
    snprintf(want, sizeof want, "{'descr': '%s', 'fortran_order': False, "
             "'shape': (%s), }", npy_descr(e->type), shape);
    const size_t wlen = strlen(want);
    /* The dict, then spaces, then one newline. */
    int ok = hlen > wlen && memcmp(dict, want, wlen) == 0 &&
             dict[hlen - 1] == '\n';
    for (size_t i = wlen; ok && i + 1 < hlen; ++i)
        ok = dict[i] == ' ';
    if (!ok)
        return fail(err, errsize, "%s: its header does not say %s (the "
                    "manifest's type and shape)", path, want);
    *offset = 10 + hlen;
    return 0;
}

static int read_array(const char *dir, const char *file, dump_entry *e,
                      uint64_t hash, char *err, size_t errsize)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    const uint64_t bytes = e->count * dump_type_size(e->type);
    size_t size = 0;
    char *buf = read_file(path, (size_t)bytes + NPY_HEADER_MAX + 10, &size,
                          err, errsize);
    if (buf == NULL)
        return -1;
    size_t offset = 0;
    if (check_npy_header(path, (const unsigned char *)buf, size, e, &offset,
                         err, errsize) != 0) {
        free(buf);
        return -1;
    }
    if (size - offset != bytes) {
        fail(err, errsize, "%s: %zu data bytes where the shape needs %llu "
             "(%s)", path, size - offset, (unsigned long long)bytes,
             size - offset < bytes ? "truncated" : "extra bytes");
        free(buf);
        return -1;
    }
    if (fnv1a64((const unsigned char *)buf + offset, bytes) != hash) {
        fail(err, errsize, "%s: the data's hash differs from the manifest's "
             "(the file was changed or damaged)", path);
        free(buf);
        return -1;
    }
    e->data = NULL;
    if (bytes > 0) {
        e->data = malloc((size_t)bytes);
        if (e->data == NULL) {
            free(buf);
            return fail(err, errsize, "%s: out of memory", path);
        }
        memcpy(e->data, buf + offset, (size_t)bytes);
    }
    free(buf);
    return 0;
}

/* One "array <name> <file> <type> <dims> <hash>" line into e. */
static int read_line(const char *dir, const char *mpath, unsigned lineno,
                     char *line, dump_entry *e, char *err, size_t errsize)
{
    char *field[6];
    int n = 0;
    for (char *p = line; n < 6;) {
        field[n++] = p;
        p = strchr(p, ' ');
        if (p == NULL)
            break;
        *p++ = '\0';
    }
    uint64_t hash = 0;
    char *end = NULL;
    if (n != 6 || strcmp(field[0], "array") != 0 || strchr(field[5], ' '))
        return fail(err, errsize, "%s:%u: expected \"array <name> <file> "
                    "<type> <dims> <hash>\"", mpath, lineno);
    if (strlen(field[1]) == 0 || strlen(field[1]) > DUMP_MAX_NAME ||
        strchr(field[2], '/') != NULL || field[2][0] == '.')
        return fail(err, errsize, "%s:%u: bad name or file name", mpath,
                    lineno);
    if (parse_type(field[3], &e->type) != 0)
        return fail(err, errsize, "%s:%u: type '%s' is not f32, f64, i32, "
                    "i64 or u64", mpath, lineno, field[3]);
    if (parse_dims(field[4], e->dims, &e->rank) != 0)
        return fail(err, errsize, "%s:%u: dims '%s' are not 1 to 3 numbers "
                    "joined by 'x'", mpath, lineno, field[4]);
    errno = 0;
    hash = strtoull(field[5], &end, 16);
    if (strlen(field[5]) != 16 || *end != '\0' || errno != 0)
        return fail(err, errsize, "%s:%u: hash '%s' is not 16 hex digits",
                    mpath, lineno, field[5]);
    e->count = 1;
    const uint64_t esize = dump_type_size(e->type);
    for (int d = 0; d < e->rank; ++d) {
        if (e->dims[d] != 0 && e->count > UINT64_MAX / esize / e->dims[d])
            return fail(err, errsize, "%s:%u: dims '%s' are too large",
                        mpath, lineno, field[4]);
        e->count *= e->dims[d];
    }
    strcpy(e->name, field[1]);
    return read_array(dir, field[2], e, hash, err, errsize);
}

/* backend=... and device=... from the header into one block: meta holds
 * "" (app and args), then the backend, then the device. */
static int set_meta(dump_file *out, const char *backend, const char *device)
{
    size_t lb = strlen(backend), ld = strlen(device);
    out->meta = malloc(1 + lb + 1 + ld + 1);
    if (out->meta == NULL)
        return -1;
    out->meta[0] = '\0';
    memcpy(out->meta + 1, backend, lb + 1);
    memcpy(out->meta + 2 + lb, device, ld + 1);
    out->app = out->args = out->meta;
    out->backend = out->meta + 1;
    out->device = out->meta + 2 + lb;
    return 0;
}

int check_dir_read(const char *dir, dump_file *out, char *err,
                   size_t errsize)
{
    memset(out, 0, sizeof *out);
    char mpath[8192];
    snprintf(mpath, sizeof mpath, "%s/manifest.txt", dir);
    size_t size = 0;
    char *text = read_file(mpath, MANIFEST_MAX, &size, err, errsize);
    if (text == NULL)
        return -1;
    if (strlen(text) != size || size == 0 || text[size - 1] != '\n') {
        free(text);
        return fail(err, errsize, "%s: not a text file of complete lines",
                    mpath);
    }
    /* Lines: "duo-check 1", "backend=", "device=", then arrays. */
    char *lines[3];
    char *p = text;
    for (int i = 0; i < 3; ++i) {
        char *nl = strchr(p, '\n');
        if (nl == NULL) {
            free(text);
            return fail(err, errsize, "%s: the header (duo-check 1, "
                        "backend=, device=) is incomplete", mpath);
        }
        *nl = '\0';
        lines[i] = p;
        p = nl + 1;
    }
    if (strcmp(lines[0], "duo-check 1") != 0 ||
        strncmp(lines[1], "backend=", 8) != 0 ||
        strncmp(lines[2], "device=", 7) != 0) {
        free(text);
        return fail(err, errsize, "%s: not a duo-check 1 manifest (its first "
                    "lines must be \"duo-check 1\", \"backend=...\", "
                    "\"device=...\")", mpath);
    }
    uint32_t n = 0;
    for (const char *q = p; *q; ++q)
        n += *q == '\n';
    if (n > DUMP_MAX_ARRAYS * 64u) {
        free(text);
        return fail(err, errsize, "%s: more than %u arrays", mpath,
                    DUMP_MAX_ARRAYS * 64u);
    }
    if (set_meta(out, lines[1] + 8, lines[2] + 7) != 0 ||
        (n > 0 && (out->arrays = calloc(n, sizeof *out->arrays)) == NULL)) {
        free(text);
        dump_file_free(out);
        return fail(err, errsize, "%s: out of memory", mpath);
    }
    for (unsigned lineno = 4; *p; ++lineno) {
        char *nl = strchr(p, '\n');
        *nl = '\0';
        dump_entry *e = &out->arrays[out->narrays];
        if (read_line(dir, mpath, lineno, p, e, err, errsize) != 0 ||
            (dump_find(out, e->name) != NULL &&
             fail(err, errsize, "%s:%u: array '%s' is listed twice", mpath,
                  lineno, e->name))) {
            free(e->data);
            free(text);
            dump_file_free(out);
            return -1;
        }
        ++out->narrays;
        p = nl + 1;
    }
    free(text);
    return 0;
}
