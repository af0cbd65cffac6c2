/*
 * arg_take.h - options with a value that app_parse() (app_common.h) does
 * not know: a file name (duo-julia --png FILE) or a non-negative integer
 * (duo-heat --steps S, where 0 is allowed but a positional size must be
 * at least 1).  Like dump_arg_take() (dump_arg.h), the option is taken out
 * of the argument list first and the rest is handed to app_parse:
 *
 *     const char *png = arg_take(&nrest, rest, "--png", "a file name",
 *                                PROG, USAGE);
 *     app_parse(nrest, rest, ...);
 *
 * "--name VALUE" and "--name=VALUE" are accepted; everything after a lone
 * "--name" is its value, even if it starts with '-'.  A missing or empty
 * value, or the option given twice, is a usage error (exit 2) naming the
 * option.
 *
 * Header-only (static inline functions) and in the common subset of C11 and
 * C++, since app sources are compiled by nvcc in a CUDA build.
 */
#ifndef DUO_APPS_ARG_TAKE_H
#define DUO_APPS_ARG_TAKE_H

#include <stdint.h>
#include <string.h>

#include "app_common.h"

/* Remove `name` and its value from args[1..*nargs-1] (in place; args stays
 * NULL-terminated) and return the value, or NULL when it is absent.
 * `expected` names the kind of value in messages ("a file name"). */
static inline const char *arg_take(int *nargs, char **args,
                                   const char *name, const char *expected,
                                   const char *prog, const char *usage)
{
    const size_t len = strlen(name);
    const char *found = NULL;
    int n = *nargs > 0 ? 1 : 0;
    for (int i = 1; i < *nargs; ++i) {
        const char *arg = args[i];
        const char *value = NULL;
        if (strcmp(arg, name) == 0) {
            if (i + 1 >= *nargs)
                app_usage_error(prog, usage, "%s expects %s, but no value "
                                "follows it", name, expected);
            value = args[++i];
        } else if (strncmp(arg, name, len) == 0 && arg[len] == '=') {
            value = arg + len + 1;
        } else {
            args[n++] = args[i];
            continue;
        }
        if (value[0] == '\0')
            app_usage_error(prog, usage, "%s: expected %s, got an empty "
                            "string", name, expected);
        if (found != NULL)
            app_usage_error(prog, usage, "%s given twice ('%s' and '%s'); "
                            "give it once", name, found, value);
        found = value;
    }
    args[n] = NULL;
    *nargs = n;
    return found;
}

/* `text` (the value of option `name`) as an integer in [0, max]: decimal
 * digits only.  Exits 2 naming the option otherwise. */
static inline uint64_t arg_parse_count(const char *text, const char *name,
                                       uint64_t max, const char *prog,
                                       const char *usage)
{
    uint64_t v = 0;
    int ok = text[0] != '\0';
    for (const char *p = text; ok && *p; ++p) {
        if (*p < '0' || *p > '9') {
            ok = 0;
        } else {
            const uint64_t d = (uint64_t)(*p - '0');
            if (d > max || v > (max - d) / 10)
                app_usage_error(prog, usage, "%s '%s': too large; at most "
                                "%llu", name, text, (unsigned long long)max);
            v = v * 10 + d;
        }
    }
    if (!ok)
        app_usage_error(prog, usage, "%s '%s': expected a non-negative "
                        "integer (decimal digits only)", name, text);
    return v;
}

#endif /* DUO_APPS_ARG_TAKE_H */
