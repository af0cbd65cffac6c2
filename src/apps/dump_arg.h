/*
 * dump_arg.h - the --dump FILE option of the apps nearest, matmul,
 * reduce-steps, cg and staged.
 *
 * app_parse() (app_common.h) knows only flags, numbers and choices, so an
 * app takes "--dump FILE" / "--dump=FILE" out of its arguments first and
 * hands the rest to app_parse:
 *
 *     char **rest = ...;  int nrest;
 *     const char *dump_path = dump_arg_take(argc, argv, PROG, USAGE,
 *                                           rest, &nrest);
 *     app_parse(nrest, rest, ...);
 *
 * and later dump_open(dump_path, PROG, argc, argv) with the ORIGINAL
 * argc/argv (dump_open leaves --dump out of the recorded args itself).
 * A missing or empty value, or --dump given twice, is a usage error
 * (exit 2) naming --dump.  Everything after a lone "--dump" is its value,
 * even if it starts with '-'.
 *
 * Header-only (static inline functions) and in the common subset of C11 and
 * C++, since app sources are compiled by nvcc in a CUDA build.
 */
#ifndef DUO_APPS_DUMP_ARG_H
#define DUO_APPS_DUMP_ARG_H

#include <string.h>

#include "app_common.h"

/* rest must have room for argc + 1 pointers; it gets argv without the
 * --dump option (rest[0] = argv[0], NULL-terminated).  Returns the path,
 * or NULL when --dump was not given. */
static inline const char *dump_arg_take(int argc, char **argv,
                                        const char *prog, const char *usage,
                                        char **rest, int *nrest)
{
    const char *path = NULL;
    int n = 0;
    for (int i = 0; i < argc; ++i) {
        const char *arg = argv[i];
        const char *value = NULL;
        if (i > 0 && strcmp(arg, "--dump") == 0) {
            if (i + 1 >= argc)
                app_usage_error(prog, usage, "--dump expects a file name, "
                                "but no value follows it");
            value = argv[++i];
        } else if (i > 0 && strncmp(arg, "--dump=", 7) == 0) {
            value = arg + 7;
        } else {
            rest[n++] = argv[i];
            continue;
        }
        if (value[0] == '\0')
            app_usage_error(prog, usage, "--dump: expected a file name, got "
                            "an empty string");
        if (path != NULL)
            app_usage_error(prog, usage, "--dump given twice ('%s' and "
                            "'%s'); give one file", path, value);
        path = value;
    }
    rest[n] = NULL;
    *nrest = n;
    return path;
}

#endif /* DUO_APPS_DUMP_ARG_H */
