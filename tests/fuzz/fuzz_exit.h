/*
 * fuzz_exit.h - force-included (-include) when app_common.c is compiled
 * for fuzz_args: the parser ends the program with exit(2) on a bad
 * argument and exit(0) for --help, which would end a fuzzing run; here
 * exit() returns to the harness instead (fuzz_args.c), with the status.
 */
#ifndef DUO_FUZZ_EXIT_H
#define DUO_FUZZ_EXIT_H
#include <stdlib.h>

#if defined(__GNUC__)
__attribute__((noreturn))
#endif
void fuzz_args_exit(int status);
#define exit(status) fuzz_args_exit(status)

#endif
