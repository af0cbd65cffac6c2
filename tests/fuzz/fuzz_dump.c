/*
 * fuzz_dump.c - libFuzzer target for dump_read (tools/dump.c), the
 * reader behind duo-compare: any bytes as a --dump file.  dump_read must
 * return 0 with a consistent dump_file, or -1 with a message and *out
 * left empty; it must never read out of bounds, leak or overflow.
 *
 * dump_read takes a path and insists on a regular file, so the input is
 * written to a memory file (memfd) and read back through /proc/self/fd.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int memfd = -1;
static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (memfd < 0) {
        memfd = memfd_create("duo-fuzz-dump", 0);
        if (memfd < 0) {
            perror("fuzz_dump: memfd_create");
            abort();
        }
        snprintf(path, sizeof path, "/proc/self/fd/%d", memfd);
    }
    if (ftruncate(memfd, 0) != 0 ||
        (size > 0 && pwrite(memfd, data, size, 0) != (ssize_t)size)) {
        perror("fuzz_dump: writing the memory file");
        abort();
    }

    dump_file f;
    char err[512];
    memset(&f, 0x5A, sizeof f);
    if (dump_read(path, &f, err, sizeof err) == 0) {
        /* What duo-compare relies on after a successful read. */
        if (f.meta == NULL || f.app == NULL || f.args == NULL ||
            f.backend == NULL || f.device == NULL)
            abort();
        for (uint32_t i = 0; i < f.narrays; ++i) {
            const dump_entry *e = &f.arrays[i];
            size_t esize = dump_type_size(e->type);
            if (esize == 0 || e->rank < 1 || e->rank > DUMP_MAX_RANK ||
                memchr(e->name, '\0', sizeof e->name) == NULL ||
                dump_find(&f, e->name) != e ||
                (e->count > 0 && e->data == NULL))
                abort();
            uint64_t count = 1;
            for (int d = 0; d < DUMP_MAX_RANK; ++d)
                count *= e->dims[d];
            if (count != e->count)
                abort();
            /* Touch every byte, so ASan sees a short buffer. */
            volatile unsigned char sink = 0;
            for (uint64_t b = 0; b < e->count * esize; ++b)
                sink ^= ((const unsigned char *)e->data)[b];
            (void)sink;
        }
        dump_file_free(&f);
    } else {
        /* Failure: a message, and nothing left allocated. */
        if (err[0] == '\0' || memchr(err, '\0', sizeof err) == NULL ||
            f.meta != NULL || f.arrays != NULL || f.narrays != 0)
            abort();
    }
    return 0;
}
