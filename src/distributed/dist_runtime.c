/*
 * dist_runtime.c - duo_dist_init / finalize, rank queries and the error
 * policy of collective calls (see duo/dist.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "device.h"
#include "dist_internal.h"

dist_state duo_dist_state = {0, 1, 0, 0, 1, 0};

int duo_dist_rank(void) { return duo_dist_state.rank; }
int duo_dist_size(void) { return duo_dist_state.size; }
int duo_dist_local_rank(void) { return duo_dist_state.local_rank; }
const char *duo_dist_halo_path(void) { return dist_dev_halo_path(); }

int duo_dist_has_mpi(void)
{
#ifdef DUO_HAVE_MPI
    return 1;
#else
    return 0;
#endif
}

void duo_dist_set_abort_on_error(int abort_on_error)
{
    duo_dist_state.abort_on_error = abort_on_error != 0;
}

DUO_NORETURN void duo_dist_abort(const char *where, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "duo-dist: rank %d of %d: %s: %s\n", duo_dist_state.rank,
            duo_dist_state.size, where, msg);
    fflush(stderr);
    dist_comm_abort(1);
}

duo_status dist_collective_failed(duo_status status)
{
    if (duo_dist_state.abort_on_error)
        duo_dist_abort(duo_status_string(status), "%s", duo_last_error());
    return status;
}

duo_status dist_buffer_reserve(dist_buffer *b, size_t bytes)
{
    if (bytes == 0)
        bytes = 8; /* a valid pointer all the same */
    if (bytes <= b->bytes && b->p != NULL)
        return DUO_SUCCESS;
    dist_buffer_release(b);
    void *p = NULL;
    const duo_status st =
        b->host ? duo_malloc_host(&p, bytes) : duo_malloc(&p, bytes);
    if (st != DUO_SUCCESS)
        return st;
    b->p = p;
    b->bytes = bytes;
    return DUO_SUCCESS;
}

void dist_buffer_release(dist_buffer *b)
{
    if (b->p != NULL)
        (void)(b->host ? duo_free_host(b->p) : duo_free(b->p));
    b->p = NULL;
    b->bytes = 0;
}

duo_status dist_require_init(const char *where)
{
    if (!duo_dist_state.initialized)
        return duo_fail(DUO_ERROR_NOT_INITIALIZED, where,
                        "call duo_dist_init(&argc, &argv) first");
    return DUO_SUCCESS;
}

duo_status duo_dist_init(int *argc, char ***argv)
{
    if (duo_dist_state.initialized)
        return DUO_SUCCESS;
    /* dist_agree all-gathers 10 bytes per rank up to 64 ranks, beyond
     * which the bytes gathered grow too large; DUO_DIST_AGREE=full takes
     * the other way on any number of ranks (the tests cover it so). */
    const char *agree = getenv("DUO_DIST_AGREE");
    const int agree_full = agree != NULL && strcmp(agree, "full") == 0;
    if (agree != NULL && *agree != '\0' && !agree_full &&
        strcmp(agree, "auto") != 0)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_dist_init",
                        "DUO_DIST_AGREE=%s; expected auto (the default) or "
                        "full", agree);
    /* The halo paths (dist.cu on GPUs; host on host memory): a name
     * outside them is refused on every build, available or not. */
    const char *halo = getenv("DUO_DIST_HALO");
    static const char *const halo_paths[] = {"ipc", "nccl", "cuda-aware-mpi",
                                             "staged", "host"};
    int halo_known = halo == NULL || *halo == '\0';
    for (size_t k = 0; k < sizeof halo_paths / sizeof halo_paths[0]; ++k)
        halo_known = halo_known || strcmp(halo, halo_paths[k]) == 0;
    if (!halo_known)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_dist_init",
                        "DUO_DIST_HALO=%s; expected ipc, nccl, cuda-aware-mpi "
                        "or staged (GPU memory), or host (host memory)",
                        halo);
    dist_state s = duo_dist_state;
    duo_status st = dist_comm_init(argc, argv, &s.rank, &s.size,
                                   &s.local_rank);
    if (st != DUO_SUCCESS)
        return st;
    /* The GPU must be chosen before duo_init creates its context. */
    st = dist_dev_select(s.local_rank);
    if (st == DUO_SUCCESS)
        st = duo_init();
    if (st == DUO_SUCCESS)
        st = dist_dev_setup(s.rank, s.size);
    if (st != DUO_SUCCESS)
        return st;
    s.agree_compact = s.size <= DIST_AGREE_COMPACT_RANKS && !agree_full;
    s.initialized = 1;
    duo_dist_state = s;
    if (s.rank == 0 && s.size > 1)
        fprintf(stderr, "duo-dist: %d ranks, backend %s, halo path %s\n",
                s.size, duo_backend_name(), dist_dev_halo_path());
    return DUO_SUCCESS;
}

duo_status duo_dist_finalize(void)
{
    if (!duo_dist_state.initialized)
        return DUO_SUCCESS;
    dist_reduce_release();
    dist_dot_release();
    dist_pieces_release();
    dist_dev_teardown();
    duo_status st = duo_finalize();
    duo_status st2 = dist_comm_finalize();
    duo_dist_state.initialized = 0;
    duo_dist_state.rank = 0;
    duo_dist_state.size = 1;
    duo_dist_state.local_rank = 0;
    return st != DUO_SUCCESS ? st : st2;
}

duo_status duo_dist_barrier(void)
{
    duo_status st = dist_require_init("duo_dist_barrier");
    if (st == DUO_SUCCESS)
        st = dist_comm_barrier("duo_dist_barrier");
    return st == DUO_SUCCESS ? st : dist_collective_failed(st);
}
