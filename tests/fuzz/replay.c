/*
 * replay.c - runs a fuzz target (LLVMFuzzerTestOneInput) once on each
 * file named on the command line, without libFuzzer: how the seed corpus
 * and every crash the fuzzers found (tests/fuzz/regressions/) run as
 * ordinary CTest tests with any compiler.  A target that misbehaves
 * aborts, which fails the test.  Arguments that are folders are read
 * file by file.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return -1;
    }
    size_t cap = 4096, size = 0;
    unsigned char *buf = (unsigned char *)malloc(cap);
    size_t got;
    while (buf != NULL && (got = fread(buf + size, 1, cap - size, f)) > 0) {
        size += got;
        if (size == cap) {
            unsigned char *more = (unsigned char *)realloc(buf, cap * 2);
            if (more == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = more;
            cap *= 2;
        }
    }
    int failed = buf == NULL || ferror(f);
    fclose(f);
    if (failed) {
        fprintf(stderr, "replay: %s: cannot read\n", path);
        free(buf);
        return -1;
    }
    LLVMFuzzerTestOneInput(buf, size);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0, bad = 0;
    for (int i = 1; i < argc; ++i) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            DIR *d = opendir(argv[i]);
            struct dirent *e;
            while (d != NULL && (e = readdir(d)) != NULL) {
                if (e->d_name[0] == '.')
                    continue;
                char path[4096];
                snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
                bad += run_file(path) != 0;
                ++files;
            }
            if (d != NULL)
                closedir(d);
        } else {
            bad += run_file(argv[i]) != 0;
            ++files;
        }
    }
    printf("replay: %d inputs, %d unreadable\n", files, bad);
    return files > 0 && bad == 0 ? 0 : 1;
}
