/*
 * fuzz_args.c - libFuzzer target for app_parse (src/apps/app_common.c),
 * the command-line parser of every duo app.  The input is split at NUL
 * bytes into argv[1..] (at most 64 arguments); the parser runs with an
 * option of every kind, as the apps declare them.  It must accept or
 * exit with 0 (--help) or 2 (a usage error), never anything else, and
 * what it accepts must obey app_args' contract.
 *
 * app_common.c is compiled with fuzz_exit.h force-included, so its
 * exit() calls land in fuzz_args_exit, which jumps back here.
 */
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"
#include "fuzz_exit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static jmp_buf back;
static volatile int exit_status;

void fuzz_args_exit(int status)
{
    exit_status = status;
    longjmp(back, 1);
}

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A private NUL-terminated copy, so argv strings end in bounds. */
    char *text = (char *)malloc(size + 1);
    if (text == NULL)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = (char *)"duo-fuzz";
    for (size_t at = 0; at <= size && argc <= MAX_ARGS;) {
        argv[argc++] = text + at;
        at += strlen(text + at) + 1;
    }
    argv[argc] = NULL;

    static const char *const types[] = {"f32", "f64", "i32", NULL};
    static const char *const sizes_names[] = {"n", "m", "k"};
    int flag = 0, choice = -1;
    double real = 0.0;
    const char *str = NULL;
    uint64_t count = 0;
    const app_option options[] = {
        {"--flag", APP_OPT_FLAG, &flag, NULL},
        {"--real", APP_OPT_REAL, &real, NULL},
        {"--type", APP_OPT_CHOICE, &choice, types},
        {"--png", APP_OPT_STRING, &str, NULL},
        {"--steps", APP_OPT_COUNT, &count, NULL},
    };
    app_args args;
    memset(&args, 0x5A, sizeof args);

    exit_status = -1;
    if (setjmp(back) == 0) {
        app_parse(argc, argv, "duo-fuzz", "usage: duo-fuzz [n [m [k]]]\n",
                  3, sizes_names, options, 5, &args);
        /* Accepted: the contract of app_args. */
        if (args.nsizes < 0 || args.nsizes > 3 || args.reps < 1 ||
            (choice != -1 && (choice < 0 || choice > 2)) ||
            (flag != 0 && flag != 1) || real != real)
            abort();
        for (int i = 0; i < args.nsizes; ++i)
            if (args.sizes[i] < 1)
                abort();
    } else if (exit_status != 0 && exit_status != 2) {
        fprintf(stderr, "fuzz_args: app_parse exited with %d\n",
                exit_status);
        abort();
    }
    free(text);
    return 0;
}
