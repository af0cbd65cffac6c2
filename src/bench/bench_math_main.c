/*
 * bench_math_main.c - duo-bench-math: the math group of duo-bench
 * (bench_math.h) on its own, until duo-bench's driver calls it.
 *
 *   duo-bench-math [--quick]
 */
#include <stdio.h>
#include <string.h>

#include <duo.h>

#include "bench_math.h"

int main(int argc, char **argv)
{
    int quick = argc == 2 && !strcmp(argv[1], "--quick");
    if (argc > 2 || (argc == 2 && !quick)) {
        fprintf(stderr, "usage: duo-bench-math [--quick]\n");
        return 2;
    }
    DUO_CHECK(duo_init());
    printf("duo-bench-math: %s\n\n", duo_backend_name());
    bench_math_run(stdout, quick);
    DUO_CHECK(duo_finalize());
    return 0;
}
