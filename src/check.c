/*
 * check.c - duo/check.h: a program's named arrays as .npy files plus a
 * manifest, for duo-compare (tools/check_dir.c reads them back).
 *
 * The manifest is opened, appended to and closed once per dump, so a run
 * that stops early still leaves a complete manifest of what it dumped,
 * and nothing needs a hook in duo_finalize.
 */
#define _POSIX_C_SOURCE 200809L

#include <duo/check.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend.h"

#define CHECK_MAX_NAME 64
#define CHECK_MAX_DIR 4000

typedef struct name_count {
    char name[CHECK_MAX_NAME + 1];
    unsigned long dumps;
} name_count;

/* The run being written: its folder, whether its manifest was started,
 * and how often each name was dumped. */
static struct {
    char dir[CHECK_MAX_DIR + 1];
    int dir_from_call; /* duo_check_dir gave it; else DUO_CHECK_DIR */
    int started;
    name_count *names;
    size_t nnames, capacity;
} run;

static void forget_names(void)
{
    free(run.names);
    run.names = NULL;
    run.nnames = run.capacity = 0;
    run.started = 0;
}

duo_status duo_check_dir(const char *dir)
{
    if (dir != NULL && (dir[0] == '\0' || strlen(dir) > CHECK_MAX_DIR))
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_check_dir",
                        "dir must be a path of 1 to %d bytes, or NULL for "
                        "DUO_CHECK_DIR", CHECK_MAX_DIR);
    forget_names();
    run.dir_from_call = dir != NULL;
    if (dir != NULL)
        strcpy(run.dir, dir);
    return DUO_SUCCESS;
}

/* The folder dumps go to, or NULL when dumping is off. */
static const char *current_dir(void)
{
    if (run.dir_from_call)
        return run.dir;
    const char *env = getenv("DUO_CHECK_DIR");
    if (env == NULL || env[0] == '\0')
        return NULL;
    return env;
}

static int valid_name(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > CHECK_MAX_NAME)
        return 0;
    for (size_t i = 0; i < n; ++i) {
        char c = name[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
        if (!ok)
            return 0;
    }
    return 1;
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
    return NULL;
}

static const char *type_name(duo_dtype type)
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

static uint64_t fnv1a64(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < n; ++i)
        h = (h ^ p[i]) * 0x100000001b3u;
    return h;
}

static int little_endian(void)
{
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

/* Arguments of either dump function; the element count in *count. */
static duo_status check_args(const char *where, const char *name,
                             duo_dtype type, int rank, const size_t *dims,
                             const void *data, size_t *count)
{
    if (name == NULL || !valid_name(name))
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "name must be 1 to %d letters, digits, '_', '-' or "
                        "'.' (it names a file); got %s%s%s", CHECK_MAX_NAME,
                        name ? "\"" : "", name ? name : "NULL",
                        name ? "\"" : "");
    if (npy_descr(type) == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "type = %d is not a duo_dtype (DUO_F32, DUO_F64, "
                        "DUO_I32, DUO_I64 or DUO_U64)", (int)type);
    if (rank < 1 || rank > 3)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "rank = %d; expected 1, 2 or 3", rank);
    if (dims == NULL)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "dims is NULL; pass %d dimension(s)", rank);
    size_t n = 1;
    const size_t esize = duo_dtype_size(type);
    for (int d = 0; d < rank; ++d) {
        if (dims[d] != 0 && n > SIZE_MAX / esize / dims[d])
            return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                            "dims describe more than SIZE_MAX bytes");
        n *= dims[d];
    }
    if (data == NULL && n > 0)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "data is NULL for %zu element(s)", n);
    *count = n;
    return DUO_SUCCESS;
}

/* "name" for a first dump, "name@k" for the k-th repeat; remembers it. */
static duo_status stored_name(const char *where, const char *name,
                              char out[CHECK_MAX_NAME + 24])
{
    for (size_t i = 0; i < run.nnames; ++i) {
        if (strcmp(run.names[i].name, name) == 0) {
            unsigned long k = run.names[i].dumps++;
            snprintf(out, CHECK_MAX_NAME + 24, "%s@%lu", name, k);
            return DUO_SUCCESS;
        }
    }
    if (run.nnames == run.capacity) {
        size_t cap = run.capacity ? 2 * run.capacity : 16;
        name_count *p = realloc(run.names, cap * sizeof *p);
        if (p == NULL)
            return duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                            "no memory for the table of dumped names");
        run.names = p;
        run.capacity = cap;
    }
    strcpy(run.names[run.nnames].name, name);
    run.names[run.nnames].dumps = 1;
    ++run.nnames;
    strcpy(out, name);
    return DUO_SUCCESS;
}

static duo_status io_error(const char *where, const char *what,
                           const char *path)
{
    return duo_fail(DUO_ERROR_BACKEND, where, "cannot %s %s: %s",
                    what, path, strerror(errno));
}

/* Create the folder (one level) and a manifest with its header. */
static duo_status start_run(const char *where, const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (mkdir(dir, 0777) != 0)
            return io_error(where, "create the folder", dir);
    } else if (!S_ISDIR(st.st_mode)) {
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "%s (DUO_CHECK_DIR or duo_check_dir) is not a "
                        "folder", dir);
    }
    duo_device_info info;
    if (duo_device_info_get(&info) != DUO_SUCCESS) {
        duo_error_clear();
        strcpy(info.name, "unknown");
    }
    char path[CHECK_MAX_DIR + 32];
    snprintf(path, sizeof path, "%s/manifest.txt", dir);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return io_error(where, "create", path);
    for (char *c = info.name; *c; ++c)
        if ((unsigned char)*c < 0x20)
            *c = '?';
    int bad = fprintf(f, "duo-check 1\nbackend=%s\ndevice=%s\n",
                      duo_backend_name(), info.name) < 0;
    if (fclose(f) != 0 || bad)
        return io_error(where, "write", path);
    run.started = 1;
    return DUO_SUCCESS;
}

/* The .npy header: magic, version 1.0, length, then the dict padded with
 * spaces and a newline to a multiple of 64 bytes in all. */
static size_t npy_header(char *buf, size_t size, duo_dtype type, int rank,
                         const size_t *dims)
{
    char shape[96];
    size_t at = 0;
    for (int d = 0; d < rank; ++d)
        at += (size_t)snprintf(shape + at, sizeof shape - at, "%zu%s",
                               dims[d], rank == 1 ? "," : d + 1 < rank ? ", " : "");
    char dict[160];
    int len = snprintf(dict, sizeof dict,
                       "{'descr': '%s', 'fortran_order': False, "
                       "'shape': (%s), }", npy_descr(type), shape);
    size_t total = 10 + (size_t)len + 1;
    total = (total + 63) / 64 * 64;
    if (total > size)
        return 0;
    const uint16_t hlen = (uint16_t)(total - 10);
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (char)(hlen & 0xff);
    buf[9] = (char)(hlen >> 8);
    memcpy(buf + 10, dict, (size_t)len);
    memset(buf + 10 + len, ' ', total - 10 - (size_t)len - 1);
    buf[total - 1] = '\n';
    return total;
}

static duo_status write_dump(const char *where, const char *name,
                             duo_dtype type, int rank, const size_t *dims,
                             const void *host, size_t count)
{
    const char *dir = current_dir();
    if (!little_endian())
        return duo_fail(DUO_ERROR_BACKEND, where,
                        ".npy dumps are written little-endian only");
    duo_status status = DUO_SUCCESS;
    if (!run.started && (status = start_run(where, dir)) != DUO_SUCCESS)
        return status;
    char stored[CHECK_MAX_NAME + 24];
    if ((status = stored_name(where, name, stored)) != DUO_SUCCESS)
        return status;

    const size_t bytes = count * duo_dtype_size(type);
    char path[CHECK_MAX_DIR + CHECK_MAX_NAME + 64];
    snprintf(path, sizeof path, "%s/%s.npy", dir, stored);
    char header[256];
    size_t hbytes = npy_header(header, sizeof header, type, rank, dims);
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return io_error(where, "create", path);
    int bad = fwrite(header, 1, hbytes, f) != hbytes ||
              (bytes > 0 && fwrite(host, 1, bytes, f) != bytes);
    if (fclose(f) != 0 || bad) {
        status = io_error(where, "write", path);
        remove(path);
        return status;
    }

    char shape[96];
    size_t at = 0;
    for (int d = 0; d < rank; ++d)
        at += (size_t)snprintf(shape + at, sizeof shape - at, "%s%zu",
                               d ? "x" : "", dims[d]);
    snprintf(path, sizeof path, "%s/manifest.txt", dir);
    f = fopen(path, "a");
    if (f == NULL)
        return io_error(where, "append to", path);
    bad = fprintf(f, "array %s %s.npy %s %s %016llx\n", stored, stored,
                  type_name(type), shape,
                  (unsigned long long)fnv1a64(host, bytes)) < 0;
    if (fclose(f) != 0 || bad)
        return io_error(where, "write", path);
    return DUO_SUCCESS;
}

duo_status duo_check_host(const char *name, duo_dtype type, int rank,
                          const size_t *dims, const void *host_data)
{
    if (current_dir() == NULL)
        return DUO_SUCCESS;
    size_t count = 0;
    duo_status status = check_args("duo_check_host", name, type, rank, dims,
                                   host_data, &count);
    if (status != DUO_SUCCESS)
        return status;
    return write_dump("duo_check_host", name, type, rank, dims, host_data,
                      count);
}

duo_status duo_check_device(const char *name, duo_dtype type, int rank,
                            const size_t *dims, const void *device_data)
{
    if (current_dir() == NULL)
        return DUO_SUCCESS;
    size_t count = 0;
    duo_status status = check_args("duo_check_device", name, type, rank,
                                   dims, device_data, &count);
    if (status != DUO_SUCCESS)
        return status;
    const size_t bytes = count * duo_dtype_size(type);
    void *host = NULL;
    if (bytes > 0) {
        host = malloc(bytes);
        if (host == NULL)
            return duo_fail(DUO_ERROR_OUT_OF_MEMORY, "duo_check_device",
                            "no host memory for a copy of %s (%zu bytes)",
                            name, bytes);
        status = duo_memcpy(host, device_data, bytes, DUO_DEVICE_TO_HOST);
    }
    if (status == DUO_SUCCESS)
        status = write_dump("duo_check_device", name, type, rank, dims,
                            host, count);
    free(host);
    return status;
}
