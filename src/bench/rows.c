/*
 * rows.c - what a group needs to make a row: the row itself (added to
 * the run, with its target), seeds for fresh inputs, the label of a
 * size, and device buffers.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

row *bench_new_row(bench *b, const char *what, const char *size)
{
    if (b->nrows == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 64;
        row *rows = (row *)realloc(b->rows, cap * sizeof *rows);
        if (rows == NULL)
            bench_fatal("out of host memory (%s)", "result rows");
        b->rows = rows;
        b->cap = cap;
    }
    row *r = &b->rows[b->nrows++];
    memset(r, 0, sizeof *r);
    r->group = b->group;
    snprintf(r->what, sizeof r->what, "%s", what);
    snprintf(r->size, sizeof r->size, "%s", size);
    r->region = "";
    r->ys_ms = -1.0;
    r->ys_min_ms = -1.0;
    r->check_ok = 1;
    r->unit = "";
    r->unit_scale = 1.0;
    for (size_t t = 0; t < bench_target_count; ++t)
        if (bench_targets[t].gpu == b->gpu &&
            bench_row_answers(r, &bench_targets[t]))
            r->target = &bench_targets[t];
    return r;
}

uint64_t bench_new_seed(bench *b)
{
    return b->next_seed++ * 0x2545F4914F6CDD1Dull + 0x1234567ull;
}

void bench_size_label(char *buf, size_t size, size_t n)
{
    if (n != 0 && (n & (n - 1)) == 0) {
        int k = 0;
        while (((size_t)1 << k) != n)
            ++k;
        snprintf(buf, size, "2^%d", k);
    } else {
        snprintf(buf, size, "%zu", n);
    }
}

void *bench_device_alloc(size_t bytes)
{
    void *p = NULL;
    DUO_CHECK(duo_malloc(&p, bytes));
    return p;
}
