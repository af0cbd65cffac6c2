/*
 * dump.h - the --dump FILE files of the duo apps: a run's result arrays,
 * written so that two runs (e.g. an openmp build and a cuda build) can be
 * compared value by value with duo-compare.
 *
 * ---------------------------------------------------------------------
 * Writing one (from an app, after duo_init and after the result is on the
 * host -- copy device memory with duo_memcpy(..., DUO_DEVICE_TO_HOST)
 * first):
 *
 *     dump_writer *d = dump_open(dump_path, "duo-gemm", argc, argv);
 *     size_t dims[2] = {m, n};
 *     dump_array(d, "C", DUO_F32, 2, dims, c_host);
 *     if (dump_close(d) != 0)
 *         exit(1);                  // the message is already on stderr
 *
 * dump_open creates (or truncates) the file.  Call dump_array once per
 * array (any number, each with its own name), then dump_close.  On
 * failure every function prints "dump: <path>: <what went wrong>" to
 * stderr and returns NULL / -1, and the writer remembers it: later
 * dump_array calls return -1 at once, and dump_close returns -1 and
 * removes the file -- so a file that exists was completely written, and
 * checking dump_close alone (as above) is enough.  dump_array and
 * dump_close accept the NULL of a failed dump_open and return -1 without
 * another message.  Always call dump_close: it also frees the writer.
 *
 * Names: 1 to 255 bytes of valid UTF-8 with no spaces, control
 * characters or NUL, unique in the file; at most 4096 arrays.  Arrays are
 * row-major (C order): dims[0] is the slowest-varying dimension,
 * dims[rank-1] the fastest; rank is 1, 2 or 3; a dimension may be 0 (an
 * empty array).
 *
 * The recorded args are argv[1..argc-1] joined by single spaces with
 * the options that cannot change a result left out ("--dump FILE",
 * "--png FILE", "--reps R", "--check", and their "=" forms), so that two runs that
 * differ only in those have equal args (duo-compare requires equal app
 * and args).  Control characters in args and the device name are
 * written as '?'.
 *
 * ---------------------------------------------------------------------
 * File format, version 1.  All integers are little-endian; there is no
 * padding anywhere.
 *
 *   offset 0   8 bytes  magic "DUODUMP\0"
 *          8   u32      version = 1
 *         12   u32      array count (0xFFFFFFFF while the writer is
 *                       still open: dump_close patches the real count)
 *         16   u32      metadata length L (bytes, at most 1 MiB)
 *         20   L bytes  metadata: UTF-8 text, one "key=value" per line,
 *                       each line ending in '\n', no NUL bytes:
 *                         app=<app name>
 *                         args=<argv[1..] joined by spaces, minus --dump,
 *                               --reps and --check>
 *                         backend=<duo_backend_name()>
 *                         device=<duo_device_info.name, or "unknown">
 *                       (readers ignore other keys)
 *   then, per array:
 *              u32      name length N (1..255)
 *              N bytes  name: UTF-8, no spaces, control characters
 *                       or NUL, no terminator; unique in the file
 *              u32      element type: a duo_dtype value
 *                       (0 DUO_F32, 1 DUO_F64, 2 DUO_I32, 3 DUO_I64,
 *                        4 DUO_U64)
 *              u32      rank R (1..3)
 *              u64 x R  dims, row-major (dims[0] slowest)
 *              u64      data byte count = product(dims) * element size
 *              bytes    the data, each element little-endian (IEEE 754
 *                       binary32/binary64 or two's-complement integers)
 *              u64      FNV-1a 64-bit hash of the data bytes as stored
 *                       (offset basis 0xcbf29ce484222325, prime
 *                       0x100000001b3)
 *   The file ends right after the last array's hash.
 *
 * ---------------------------------------------------------------------
 * Reading one (duo-compare): dump_read validates everything -- magic,
 * version, the metadata, every length against the bytes that remain,
 * types, ranks, dims versus byte count, the hash, duplicate names,
 * trailing bytes -- and on failure writes a message that says what is
 * wrong and at which byte offset into err.
 *
 * Plain C11 (dump.c is always compiled by the C compiler); this header is
 * also valid C++ so that app sources compiled by nvcc can include it.
 */
#ifndef DUO_APPS_DUMP_H
#define DUO_APPS_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include <duo.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DUMP_MAGIC "DUODUMP"   /* plus its terminating NUL: 8 bytes */
#define DUMP_VERSION 1u
#define DUMP_MAX_NAME 255      /* bytes of an array name             */
#define DUMP_MAX_RANK 3
#define DUMP_MAX_ARRAYS 4096   /* arrays in one file                 */
#define DUMP_MAX_META (1u << 20) /* bytes of metadata                */
#define DUMP_COUNT_OPEN 0xFFFFFFFFu /* array count of an unclosed file */

/* ------------------------------------------------------------------ */
/* Writer                                                              */

typedef struct dump_writer dump_writer;

/* Create `path` and write the header and metadata.  `app` is the app's
 * name (e.g. "duo-saxpy"); argc/argv as main() got them.  NULL on
 * failure (message on stderr naming the path and the errno text). */
dump_writer *dump_open(const char *path, const char *app, int argc,
                       char **argv);

/* Append one array of `type` with `rank` dims (1..3) from HOST memory
 * (product(dims) elements).  0 on success, -1 on failure. */
int dump_array(dump_writer *w, const char *name, duo_dtype type, int rank,
               const size_t *dims, const void *host_data);

/* Finish the file (patch the array count, flush, close) and free the
 * writer.  0 on success; -1 on failure, or if any earlier call on this
 * writer failed -- then the file is removed. */
int dump_close(dump_writer *w);

/* ------------------------------------------------------------------ */
/* Reader                                                              */

typedef struct dump_entry {
    char name[DUMP_MAX_NAME + 1]; /* NUL-terminated                      */
    duo_dtype type;
    int rank;                     /* 1..3                                */
    uint64_t dims[DUMP_MAX_RANK]; /* unused ones are 1                   */
    uint64_t count;               /* product(dims)                       */
    void *data;                   /* count elements, host byte order
                                     (NULL when count is 0)              */
} dump_entry;

typedef struct dump_file {
    char *meta;          /* the metadata block, NUL-terminated          */
    /* Values of the four required keys (point into meta's copy): */
    const char *app, *args, *backend, *device;
    uint32_t narrays;
    dump_entry *arrays;  /* in file order                               */
} dump_file;

/* Read and validate `path` into *out.  0 on success; -1 on failure, with
 * "<path>: <what is wrong> (at byte offset N)" (or the errno text when
 * the file cannot be opened or read) in err, and *out left empty. */
int dump_read(const char *path, dump_file *out, char *err, size_t errsize);

/* Free what dump_read allocated; *f is left empty. */
void dump_file_free(dump_file *f);

/* The array called `name`, or NULL. */
const dump_entry *dump_find(const dump_file *f, const char *name);

/* "f32", "f64", "i32", "i64", "u64"; "?" for anything else. */
const char *dump_type_name(duo_dtype type);

/* Element size of a type in a dump file (4 or 8); 0 if unknown. */
size_t dump_type_size(duo_dtype type);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DUO_APPS_DUMP_H */
