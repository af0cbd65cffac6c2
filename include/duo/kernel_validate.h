/*
 * duo/kernel_validate.h - what the launch macros call under DUO_VALIDATE
 * (src/validate*.c; docs/checking.md#validation-mode).  Included by
 * <duo/kernel.h>; do not include directly.
 *
 * A checked launch describes its arguments (duo_vd_arg: each pointer,
 * what it points to, whether it is const) and then:
 *   GPU (a CUDA build on the GPU):
 *     duo_vd_begin(..., gpu = 1)   host copies ("shadows") of every
 *                                  allocation the pointers reach
 *     the launch on the GPU
 *     the kernel on the host path, its pointers moved onto the shadows
 *                                  (duo_vd_shadow)
 *     duo_vd_end()                 the GPU's results against the shadows
 *   host (serial, OpenMP, a CUDA build's host path):
 *     duo_vd_begin(..., gpu = 0)   copies of the allocations it may write
 *     the kernel, with every thread
 *     duo_vd_rerun()               one thread from now on
 *     the kernel again, its pointers moved onto the copies
 *                                  (duo_vd_shadow)
 *     duo_vd_end()                 every thread against one thread; the
 *                                  memory is left as every thread left it
 *   (where an argument may hold pointers, a struct or a pointer to one,
 *   the host check copies every allocation, duo_vd_rerun puts them back
 *   for the second run, and duo_vd_shadow leaves pointers as they are)
 * duo_vd_begin returns 0 for a launch that is not checked (the reason
 * goes into the summary); the macros then launch it once, as usual.
 */
#ifndef DUO_KERNEL_VALIDATE_H
#define DUO_KERNEL_VALIDATE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What an argument is. */
enum {
    DUO_VD_SCALAR,  /* not a pointer: nothing to copy                    */
    DUO_VD_F32,     /* pointer to float, double, ...: compared as such   */
    DUO_VD_F64,
    DUO_VD_I32,
    DUO_VD_I64,
    DUO_VD_U32,
    DUO_VD_U64,
    DUO_VD_BYTES,   /* pointer to char or void: compared byte by byte    */
    DUO_VD_OPAQUE   /* a struct, or a pointer to anything else: it may
                       hold pointers duo cannot follow                   */
};

typedef struct duo_vd_arg {
    const void *ptr; /* the pointer (NULL for scalars and opaque values) */
    int kind;        /* DUO_VD_*                                         */
    int is_const;    /* points to const: read only                       */
    const void *value;  /* a struct passed by value (C: or a pointer to  */
    size_t value_bytes; /* one): its bytes, for the check (NULL, 0 where
                           not seen)                                     */
} duo_vd_arg;

/* 1 when DUO_VALIDATE is on (and no graph is being captured). */
int duo_validating(void);

/* Start checking a launch of `kernel` at file:line over an index space
 * of `dims` (1..3; 0 for a block launch) extents, whose arguments are
 * args[0..nargs) written as `arg_names` ("n, a, x, y"). */
int duo_vd_begin(const char *kernel, const char *file, int line,
                 const char *arg_names, int dims, size_t ni, size_t nj,
                 size_t nk, const duo_vd_arg *args, int nargs, int gpu);
/* The second run's address for p (an argument's pointer): its shadow,
 * the copy the check holds of its allocation, or p itself where the run
 * works on the program's memory. */
void *duo_vd_shadow(const void *p);
/* GPU check: in a copy of a struct passed by value (n bytes), every
 * 8-byte word that is an address in an allocation the check holds moved
 * onto its shadow. */
void duo_vd_shadow_words(void *bytes, size_t n);
/* Host check: between the two runs. */
void duo_vd_rerun(void);
/* Compare, report, and free what the check held. */
void duo_vd_end(void);

/* A user reduction (DUO_REDUCE_DEFINE) under DUO_VALIDATE, once its run
 * (the GPU, or every thread) gave its result: begin says whether a
 * reference run follows, over `host_args` (args_bytes bytes), which it
 * fills -- on the host, one thread over the arguments as they are; on
 * the GPU, the host path over a copy of them whose 8-byte words that are
 * addresses in duo device memory point into host copies of those
 * allocations (the check is skipped where that cannot be done) -- and
 * end compares the two results (`kind`: DUO_VD_* of T). */
int duo_vd_user_reduce_begin(const char *name, const char *file, int line,
                             const void *args, void *host_args,
                             size_t args_bytes);
void duo_vd_user_reduce_end(int kind, const void *got, const void *ref,
                            int ref_ok);

/* A user reduction's public function (DUO_REDUCE_DEFINE, every build):
 * `run` gives the result (the GPU's, or every thread's); under
 * DUO_VALIDATE `ref` runs again as the reference (the host path; one
 * thread on the host) and the two are compared.  `kind`: DUO_VD_* of T. */
#define DUO_VD_USER_REDUCE_(name, T, Args, run, ref, kind)                  \
    duo_status name(size_t n, Args args, T *result)                         \
    {                                                                       \
        if (result == NULL || !duo_validating())                            \
            return run(n, args, result);                                    \
        T got_, ref_;                                                       \
        Args host_args_;                                                    \
        const duo_status status_ = run(n, args, &got_);                     \
        if (status_ == DUO_SUCCESS &&                                       \
            duo_vd_user_reduce_begin(#name, __FILE__, __LINE__, &args,      \
                                     &host_args_, sizeof args)) {           \
            const duo_status ref_status_ = ref(n, host_args_, &ref_);       \
            duo_vd_user_reduce_end(kind, &got_, &ref_,                      \
                                   ref_status_ == DUO_SUCCESS);             \
        }                                                                   \
        if (status_ == DUO_SUCCESS)                                         \
            *result = got_;                                                 \
        return status_;                                                     \
    }

#ifdef __cplusplus
} /* extern "C" */
#endif

#if !defined(__cplusplus)
/* C: what an argument expression is, by _Generic on its type.  Every
 * branch is the argument itself or a constant, so any type compiles. */
#define DUO_VD_KIND_(a)                                                     \
    _Generic((a), float *: DUO_VD_F32, const float *: DUO_VD_F32,           \
             double *: DUO_VD_F64, const double *: DUO_VD_F64,              \
             int *: DUO_VD_I32, const int *: DUO_VD_I32,                    \
             long *: DUO_VD_I64, const long *: DUO_VD_I64,                  \
             long long *: DUO_VD_I64, const long long *: DUO_VD_I64,        \
             unsigned *: DUO_VD_U32, const unsigned *: DUO_VD_U32,          \
             unsigned long *: DUO_VD_U64, const unsigned long *: DUO_VD_U64, \
             unsigned long long *: DUO_VD_U64,                              \
             const unsigned long long *: DUO_VD_U64,                        \
             char *: DUO_VD_BYTES, const char *: DUO_VD_BYTES,              \
             signed char *: DUO_VD_BYTES, const signed char *: DUO_VD_BYTES, \
             unsigned char *: DUO_VD_BYTES,                                 \
             const unsigned char *: DUO_VD_BYTES, void *: DUO_VD_BYTES,     \
             const void *: DUO_VD_BYTES, _Bool: DUO_VD_SCALAR,              \
             char: DUO_VD_SCALAR, signed char: DUO_VD_SCALAR,               \
             unsigned char: DUO_VD_SCALAR, short: DUO_VD_SCALAR,            \
             unsigned short: DUO_VD_SCALAR, int: DUO_VD_SCALAR,             \
             unsigned: DUO_VD_SCALAR, long: DUO_VD_SCALAR,                  \
             unsigned long: DUO_VD_SCALAR, long long: DUO_VD_SCALAR,        \
             unsigned long long: DUO_VD_SCALAR, float: DUO_VD_SCALAR,       \
             double: DUO_VD_SCALAR, long double: DUO_VD_SCALAR,             \
             duo_grid: DUO_VD_SCALAR, default: DUO_VD_OPAQUE)
#define DUO_VD_CONST_(a)                                                    \
    _Generic((a), const float *: 1, const double *: 1, const int *: 1,      \
             const long *: 1, const long long *: 1, const unsigned *: 1,    \
             const unsigned long *: 1, const unsigned long long *: 1,       \
             const char *: 1, const signed char *: 1,                       \
             const unsigned char *: 1, const void *: 1, default: 0)
#define DUO_VD_PTR_(a)                                                      \
    _Generic((a), float *: (a), const float *: (a), double *: (a),          \
             const double *: (a), int *: (a), const int *: (a),             \
             long *: (a), const long *: (a), long long *: (a),              \
             const long long *: (a), unsigned *: (a), const unsigned *: (a), \
             unsigned long *: (a), const unsigned long *: (a),              \
             unsigned long long *: (a), const unsigned long long *: (a),    \
             char *: (a), const char *: (a), signed char *: (a),            \
             const signed char *: (a), unsigned char *: (a),                \
             const unsigned char *: (a), void *: (a), const void *: (a),    \
             default: (const void *)0)
/* A copy of the argument's value (an array of one, which any object
 * type can initialize; the comma turns an array into its pointer): for
 * a struct or a pointer to one, whose bytes the host check reads for
 * addresses of duo memory.  NULL, 0 for the others. */
#define DUO_VD_VALUE_TYPE_(a) __typeof__((void)0, (a))
#define DUO_VD_VALUE_(a)                                                    \
    (DUO_VD_KIND_(a) == DUO_VD_OPAQUE                                       \
         ? (const void *)(DUO_VD_VALUE_TYPE_(a)[1]){(a)}                    \
         : (const void *)0)
#define DUO_VD_VALUE_BYTES_(a)                                              \
    (DUO_VD_KIND_(a) == DUO_VD_OPAQUE ? sizeof(DUO_VD_VALUE_TYPE_(a)) : 0)
#define DUO_VD_ARG_(a)                                                      \
    {DUO_VD_PTR_(a), DUO_VD_KIND_(a), DUO_VD_CONST_(a), DUO_VD_VALUE_(a),   \
     DUO_VD_VALUE_BYTES_(a)}

/* DUO_VD_ARGS_(a, b, c) -> DUO_VD_ARG_(a), DUO_VD_ARG_(b), DUO_VD_ARG_(c),
 * for up to 24 arguments. */
#define DUO_VD_N_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13,   \
                  _14, _15, _16, _17, _18, _19, _20, _21, _22, _23, _24, N, \
                  ...)                                                      \
    N
#define DUO_VD_COUNT_(...)                                                  \
    DUO_VD_N_(__VA_ARGS__, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13,  \
              12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define DUO_VD_CAT_(a, b) DUO_VD_CAT2_(a, b)
#define DUO_VD_CAT2_(a, b) a##b
#define DUO_VD_E1_(a) DUO_VD_ARG_(a)
#define DUO_VD_E2_(a, ...) DUO_VD_ARG_(a), DUO_VD_E1_(__VA_ARGS__)
#define DUO_VD_E3_(a, ...) DUO_VD_ARG_(a), DUO_VD_E2_(__VA_ARGS__)
#define DUO_VD_E4_(a, ...) DUO_VD_ARG_(a), DUO_VD_E3_(__VA_ARGS__)
#define DUO_VD_E5_(a, ...) DUO_VD_ARG_(a), DUO_VD_E4_(__VA_ARGS__)
#define DUO_VD_E6_(a, ...) DUO_VD_ARG_(a), DUO_VD_E5_(__VA_ARGS__)
#define DUO_VD_E7_(a, ...) DUO_VD_ARG_(a), DUO_VD_E6_(__VA_ARGS__)
#define DUO_VD_E8_(a, ...) DUO_VD_ARG_(a), DUO_VD_E7_(__VA_ARGS__)
#define DUO_VD_E9_(a, ...) DUO_VD_ARG_(a), DUO_VD_E8_(__VA_ARGS__)
#define DUO_VD_E10_(a, ...) DUO_VD_ARG_(a), DUO_VD_E9_(__VA_ARGS__)
#define DUO_VD_E11_(a, ...) DUO_VD_ARG_(a), DUO_VD_E10_(__VA_ARGS__)
#define DUO_VD_E12_(a, ...) DUO_VD_ARG_(a), DUO_VD_E11_(__VA_ARGS__)
#define DUO_VD_E13_(a, ...) DUO_VD_ARG_(a), DUO_VD_E12_(__VA_ARGS__)
#define DUO_VD_E14_(a, ...) DUO_VD_ARG_(a), DUO_VD_E13_(__VA_ARGS__)
#define DUO_VD_E15_(a, ...) DUO_VD_ARG_(a), DUO_VD_E14_(__VA_ARGS__)
#define DUO_VD_E16_(a, ...) DUO_VD_ARG_(a), DUO_VD_E15_(__VA_ARGS__)
#define DUO_VD_E17_(a, ...) DUO_VD_ARG_(a), DUO_VD_E16_(__VA_ARGS__)
#define DUO_VD_E18_(a, ...) DUO_VD_ARG_(a), DUO_VD_E17_(__VA_ARGS__)
#define DUO_VD_E19_(a, ...) DUO_VD_ARG_(a), DUO_VD_E18_(__VA_ARGS__)
#define DUO_VD_E20_(a, ...) DUO_VD_ARG_(a), DUO_VD_E19_(__VA_ARGS__)
#define DUO_VD_E21_(a, ...) DUO_VD_ARG_(a), DUO_VD_E20_(__VA_ARGS__)
#define DUO_VD_E22_(a, ...) DUO_VD_ARG_(a), DUO_VD_E21_(__VA_ARGS__)
#define DUO_VD_E23_(a, ...) DUO_VD_ARG_(a), DUO_VD_E22_(__VA_ARGS__)
#define DUO_VD_E24_(a, ...) DUO_VD_ARG_(a), DUO_VD_E23_(__VA_ARGS__)
#define DUO_VD_ARGS_(...)                                                   \
    DUO_VD_CAT_(DUO_VD_E, DUO_VD_CAT_(DUO_VD_COUNT_(__VA_ARGS__), _))       \
    (__VA_ARGS__)

/* An argument for the second run: a pointer moved onto its shadow, as
 * its own type; anything else as it is.  (Each branch must compile for
 * any argument, hence the pointer through DUO_VD_PTR_.) */
#define DUO_VD_MOVED_(T, a) ((T)duo_vd_shadow(DUO_VD_PTR_(a)))
#define DUO_VD_ON_SHADOW_(a)                                                \
    _Generic((a), float *: DUO_VD_MOVED_(float *, a),                       \
             const float *: DUO_VD_MOVED_(const float *, a),                \
             double *: DUO_VD_MOVED_(double *, a),                          \
             const double *: DUO_VD_MOVED_(const double *, a),              \
             int *: DUO_VD_MOVED_(int *, a),                                \
             const int *: DUO_VD_MOVED_(const int *, a),                    \
             long *: DUO_VD_MOVED_(long *, a),                              \
             const long *: DUO_VD_MOVED_(const long *, a),                  \
             long long *: DUO_VD_MOVED_(long long *, a),                    \
             const long long *: DUO_VD_MOVED_(const long long *, a),        \
             unsigned *: DUO_VD_MOVED_(unsigned *, a),                      \
             const unsigned *: DUO_VD_MOVED_(const unsigned *, a),          \
             unsigned long *: DUO_VD_MOVED_(unsigned long *, a),            \
             const unsigned long *: DUO_VD_MOVED_(const unsigned long *, a), \
             unsigned long long *: DUO_VD_MOVED_(unsigned long long *, a),  \
             const unsigned long long *:                                    \
                 DUO_VD_MOVED_(const unsigned long long *, a),              \
             char *: DUO_VD_MOVED_(char *, a),                              \
             const char *: DUO_VD_MOVED_(const char *, a),                  \
             signed char *: DUO_VD_MOVED_(signed char *, a),                \
             const signed char *: DUO_VD_MOVED_(const signed char *, a),    \
             unsigned char *: DUO_VD_MOVED_(unsigned char *, a),            \
             const unsigned char *: DUO_VD_MOVED_(const unsigned char *, a), \
             void *: DUO_VD_MOVED_(void *, a),                              \
             const void *: DUO_VD_MOVED_(const void *, a), default: (a))

/* DUO_VD_SHADOWS_(a, b, c) -> DUO_VD_ON_SHADOW_(a), ..., up to 24. */
#define DUO_VD_S1_(a) DUO_VD_ON_SHADOW_(a)
#define DUO_VD_S2_(a, ...) DUO_VD_ON_SHADOW_(a), DUO_VD_S1_(__VA_ARGS__)
#define DUO_VD_S3_(a, ...) DUO_VD_ON_SHADOW_(a), DUO_VD_S2_(__VA_ARGS__)
#define DUO_VD_S4_(a, ...) DUO_VD_ON_SHADOW_(a), DUO_VD_S3_(__VA_ARGS__)
#define DUO_VD_S5_(a, ...) DUO_VD_ON_SHADOW_(a), DUO_VD_S4_(__VA_ARGS__)
#define DUO_VD_S6_(a, ...) DUO_VD_ON_SHADOW_(a), DUO_VD_S5_(__VA_ARGS__)
#define DUO_VD_S7_(a, ...) DUO_VD_ON_SHADOW_(a), DUO_VD_S6_(__VA_ARGS__)
#define DUO_VD_S8_(a, ...) DUO_VD_ON_SHADOW_(a), DUO_VD_S7_(__VA_ARGS__)
#define DUO_VD_S9_(a, ...) DUO_VD_ON_SHADOW_(a), DUO_VD_S8_(__VA_ARGS__)
#define DUO_VD_S10_(a, ...) DUO_VD_ON_SHADOW_(a), DUO_VD_S9_(__VA_ARGS__)
#define DUO_VD_S11_(a, ...) DUO_VD_ON_SHADOW_(a), DUO_VD_S10_(__VA_ARGS__)
#define DUO_VD_S12_(a, ...) DUO_VD_ON_SHADOW_(a), DUO_VD_S11_(__VA_ARGS__)
#define DUO_VD_S13_(a, ...) DUO_VD_ON_SHADOW_(a), DUO_VD_S12_(__VA_ARGS__)
#define DUO_VD_S14_(a, ...) DUO_VD_ON_SHADOW_(a), DUO_VD_S13_(__VA_ARGS__)
#define DUO_VD_S15_(a, ...) DUO_VD_ON_SHADOW_(a), DUO_VD_S14_(__VA_ARGS__)
#define DUO_VD_S16_(a, ...) DUO_VD_ON_SHADOW_(a), DUO_VD_S15_(__VA_ARGS__)
#define DUO_VD_S17_(a, ...) DUO_VD_ON_SHADOW_(a), DUO_VD_S16_(__VA_ARGS__)
#define DUO_VD_S18_(a, ...) DUO_VD_ON_SHADOW_(a), DUO_VD_S17_(__VA_ARGS__)
#define DUO_VD_S19_(a, ...) DUO_VD_ON_SHADOW_(a), DUO_VD_S18_(__VA_ARGS__)
#define DUO_VD_S20_(a, ...) DUO_VD_ON_SHADOW_(a), DUO_VD_S19_(__VA_ARGS__)
#define DUO_VD_S21_(a, ...) DUO_VD_ON_SHADOW_(a), DUO_VD_S20_(__VA_ARGS__)
#define DUO_VD_S22_(a, ...) DUO_VD_ON_SHADOW_(a), DUO_VD_S21_(__VA_ARGS__)
#define DUO_VD_S23_(a, ...) DUO_VD_ON_SHADOW_(a), DUO_VD_S22_(__VA_ARGS__)
#define DUO_VD_S24_(a, ...) DUO_VD_ON_SHADOW_(a), DUO_VD_S23_(__VA_ARGS__)
#define DUO_VD_SHADOWS_(...)                                                \
    DUO_VD_CAT_(DUO_VD_S, DUO_VD_CAT_(DUO_VD_COUNT_(__VA_ARGS__), _))       \
    (__VA_ARGS__)

/* The checked form of a host launch: run twice when duo_vd_begin says
 * so (an expression; `call` is the kernel call, `moved_call` the same
 * with DUO_VD_SHADOWS_ of the arguments). */
#define DUO_VD_HOST_LAUNCH_(kernel, dims, ni, nj, nk, call, moved_call,     \
                            ...)                                            \
    (duo_vd_begin(#kernel, __FILE__, __LINE__, #__VA_ARGS__, dims, ni, nj,  \
                  nk,                                                       \
                  (const duo_vd_arg[]){DUO_VD_ARGS_(__VA_ARGS__)},          \
                  DUO_VD_COUNT_(__VA_ARGS__), 0)                            \
         ? (call, duo_vd_rerun(), moved_call, duo_vd_end())                 \
         : (void)(call))
#endif /* !__cplusplus */

#endif /* DUO_KERNEL_VALIDATE_H */
