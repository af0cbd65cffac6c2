/*
 * comm_single.c - comm.h for one process: the build without MPI.  Rank 0
 * of 1; an exchange with oneself is a copy.
 */
#include <stdlib.h>
#include <string.h>

#include "comm.h"

duo_status dist_comm_init(int *argc, char ***argv, int *rank, int *size,
                          int *local_rank)
{
    (void)argc;
    (void)argv;
    *rank = 0;
    *size = 1;
    *local_rank = 0;
    return DUO_SUCCESS;
}

duo_status dist_comm_finalize(void) { return DUO_SUCCESS; }

DUO_NORETURN void dist_comm_abort(int code) { exit(code); }

duo_status dist_comm_barrier(const char *where)
{
    (void)where;
    return DUO_SUCCESS;
}

duo_status dist_comm_allgather(const char *where, const void *send,
                               size_t bytes, void *recv)
{
    (void)where;
    if (bytes > 0)
        memmove(recv, send, bytes);
    return DUO_SUCCESS;
}

duo_status dist_comm_agree(const char *where, uint64_t *record)
{
    (void)where;
    (void)record; /* one rank: its record is the result */
    return DUO_SUCCESS;
}

duo_status dist_comm_allgatherv_u64(const char *where, uint64_t *buf,
                                    const size_t *counts,
                                    const size_t *displs)
{
    (void)where; /* one rank: its words are in place already */
    (void)buf;
    (void)counts;
    (void)displs;
    return DUO_SUCCESS;
}

duo_status dist_comm_scan_u64(const char *where, uint64_t mine,
                              uint64_t *before, uint64_t *total)
{
    (void)where;
    *before = 0;
    *total = mine;
    return DUO_SUCCESS;
}

duo_status dist_comm_exchange(const char *where, const dist_msg *sends,
                              int nsends, const dist_msg *recvs, int nrecvs)
{
    (void)sends;
    (void)recvs;
    if (nsends != 0 || nrecvs != 0)
        return duo_fail(DUO_ERROR_BACKEND, where,
                        "a message to another rank in a single-process "
                        "build (internal error)");
    return DUO_SUCCESS;
}

duo_status dist_comm_gatherv(const char *where, const void *send,
                             size_t send_bytes, void *recv,
                             const size_t *bytes, const size_t *displ,
                             int root)
{
    (void)where;
    (void)bytes;
    (void)root;
    if (send_bytes > 0)
        memmove((char *)recv + displ[0], send, send_bytes);
    return DUO_SUCCESS;
}
