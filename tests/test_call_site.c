/*
 * test_call_site.c - error messages begin with the caller's file:line
 * (duo/call_site.h): for calls of duo.h, duo/primitives.h and
 * duo/check.h, for duo_malloc, and before duo_init; a call through a
 * pointer names duo's place only, and no call inherits the line of an
 * earlier one.
 */
#include <duo.h>
#include <duo/check.h>

#include <stdio.h>
#include <string.h>

#include "test_util.h"

/* duo_last_error() begins with "test_call_site.c:<line>: <what>: ". */
static void check_begins(int line, const char *what)
{
    char want[128];
    snprintf(want, sizeof want, "test_call_site.c:%d: %s: ", line, what);
    CHECK_MSG(strncmp(duo_last_error(), want, strlen(want)) == 0,
              "expected the message to begin with \"%s\", got \"%s\"", want,
              duo_last_error());
}

int main(void)
{
    test_init_or_skip();
    float *x = NULL;
    CHECK_OK(duo_malloc((void **)&x, 16 * sizeof(float)));
    CHECK_OK(duo_memset(x, 0, 16 * sizeof(float)));
    double sum = 0.0;

    /* A bad argument: the caller's line, then duo's place. */
    const int reduce_line = __LINE__ + 1;
    CHECK_STATUS(duo_reduce(DUO_SUM, DUO_F32, NULL, 16, &sum),
                 DUO_ERROR_INVALID_ARGUMENT);
    check_begins(reduce_line, "duo_reduce");
    CHECK_CONTAINS(duo_last_error(), "invalid argument (");

    /* duo_malloc is a macro of its own (the registry's file:line). */
    const int malloc_line = __LINE__ + 1;
    CHECK_STATUS(duo_malloc(NULL, 8), DUO_ERROR_INVALID_ARGUMENT);
    check_begins(malloc_line, "duo_malloc");

    /* duo_free of a pointer duo does not own. */
    int local = 0;
    const int free_line = __LINE__ + 1;
    CHECK_STATUS(duo_free(&local), DUO_ERROR_INVALID_ARGUMENT);
    check_begins(free_line, "duo_free");

    /* The check calls: an empty folder name. */
    const int check_line = __LINE__ + 1;
    CHECK_STATUS(duo_check_dir(""), DUO_ERROR_INVALID_ARGUMENT);
    check_begins(check_line, "duo_check_dir");

    /* A call through a pointer has no caller's line, and a successful
     * call leaves none behind for it to inherit. */
    CHECK_OK(duo_reduce(DUO_SUM, DUO_F32, x, 16, &sum));
    duo_status (*reduce)(duo_reduce_op, duo_dtype, const void *, size_t,
                         void *) = duo_reduce;
    CHECK_STATUS(reduce(DUO_SUM, DUO_F32, NULL, 16, &sum),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_MSG(strncmp(duo_last_error(), "duo_reduce: ", 12) == 0,
              "a call through a pointer: expected \"duo_reduce: ...\", got "
              "\"%s\"", duo_last_error());

    /* Nor does a failed one. */
    CHECK_STATUS(duo_reduce(DUO_SUM, DUO_F32, NULL, 16, &sum),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(reduce(DUO_SUM, DUO_F32, NULL, 16, &sum),
                 DUO_ERROR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(duo_last_error(), "test_call_site.c") == NULL,
              "a call through a pointer named an earlier call's line: %s",
              duo_last_error());

    /* A value of the wrong kind for the call: named with the line of
     * the call, whatever duo's own place is. */
    const int sort_line = __LINE__ + 1;
    CHECK_STATUS(duo_sort((duo_key_type)99, DUO_ASCENDING, 16, x, x, NULL,
                          NULL, 0),
                 DUO_ERROR_INVALID_ARGUMENT);
    check_begins(sort_line, "duo_sort");

    CHECK_OK(duo_free(x));
    CHECK_OK(duo_finalize());

    /* Not initialized: the caller's line too. */
    const int sync_line = __LINE__ + 1;
    CHECK_STATUS(duo_synchronize(), DUO_ERROR_NOT_INITIALIZED);
    check_begins(sync_line, "duo_synchronize");
    return test_summary("call_site");
}
