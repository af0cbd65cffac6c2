/*
 * comm_mpi.c - comm.h on MPI_COMM_WORLD (built with -DDUO_MPI=ON).
 *
 * Byte counts are checked against MPI's int counts before each call, so
 * a message too large for one MPI call is an error that says so, never a
 * silently truncated transfer.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "comm.h"

static int started_mpi; /* 1 when dist_comm_init called MPI_Init */
/* dist_comm_agree's record as one MPI element, and its operation:
 * created by dist_comm_init, freed by dist_comm_finalize. */
static MPI_Datatype agree_type = MPI_DATATYPE_NULL;
static MPI_Op agree_op = MPI_OP_NULL;

static duo_status mpi_failed(const char *where, const char *call, int err)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(err, text, &len) != MPI_SUCCESS)
        strcpy(text, "unknown MPI error");
    return duo_fail(DUO_ERROR_BACKEND, where, "%s failed: %s", call, text);
}

#define MPI_TRY(call, where)                                \
    do {                                                    \
        int mpi_err_ = (call);                              \
        if (mpi_err_ != MPI_SUCCESS)                        \
            return mpi_failed(where, #call, mpi_err_);      \
    } while (0)

static duo_status check_count(const char *where, size_t bytes)
{
    if (bytes > (size_t)INT_MAX)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "%zu bytes in one message: MPI counts stop at %d "
                        "bytes; use more ranks or smaller pieces", bytes,
                        INT_MAX);
    return DUO_SUCCESS;
}

/* Rank among the ranks on this node: OpenMPI says it in the environment;
 * otherwise ask MPI which ranks share memory with this one. */
static duo_status local_rank_of(int *local_rank)
{
    const char *env = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    if (env != NULL && *env != '\0') {
        char *end = NULL;
        long v = strtol(env, &end, 10);
        if (*end == '\0' && v >= 0 && v < INT_MAX) {
            *local_rank = (int)v;
            return DUO_SUCCESS;
        }
    }
    MPI_Comm node;
    MPI_TRY(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                                MPI_INFO_NULL, &node), "duo_dist_init");
    int r = 0;
    int err = MPI_Comm_rank(node, &r);
    MPI_Comm_free(&node);
    if (err != MPI_SUCCESS)
        return mpi_failed("duo_dist_init", "MPI_Comm_rank", err);
    *local_rank = r;
    return DUO_SUCCESS;
}

/* MPI's form of dist_agree_combine: in holds the lower ranks' records. */
static void agree_apply(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int k = 0; k < *len; ++k)
        dist_agree_combine((const uint64_t *)in + k * DIST_AGREE_WORDS,
                           (uint64_t *)inout + k * DIST_AGREE_WORDS);
}

duo_status dist_comm_init(int *argc, char ***argv, int *rank, int *size,
                          int *local_rank)
{
    int initialized = 0;
    MPI_TRY(MPI_Initialized(&initialized), "duo_dist_init");
    if (!initialized) {
        MPI_TRY(MPI_Init(argc, argv), "duo_dist_init");
        started_mpi = 1;
    }
    /* Report failures as statuses (with MPI's message), not by MPI's
     * default of aborting without saying where. */
    MPI_TRY(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN),
            "duo_dist_init");
    MPI_TRY(MPI_Comm_rank(MPI_COMM_WORLD, rank), "duo_dist_init");
    MPI_TRY(MPI_Comm_size(MPI_COMM_WORLD, size), "duo_dist_init");
    if (agree_op == MPI_OP_NULL) {
        MPI_TRY(MPI_Type_contiguous(DIST_AGREE_WORDS, MPI_UINT64_T,
                                    &agree_type), "duo_dist_init");
        MPI_TRY(MPI_Type_commit(&agree_type), "duo_dist_init");
        /* Not commutative: the pieces' order is checked in rank order. */
        MPI_TRY(MPI_Op_create(agree_apply, 0, &agree_op), "duo_dist_init");
    }
    return local_rank_of(local_rank);
}

duo_status dist_comm_finalize(void)
{
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && agree_op != MPI_OP_NULL) {
        MPI_Op_free(&agree_op);
        MPI_Type_free(&agree_type);
        agree_op = MPI_OP_NULL;
        agree_type = MPI_DATATYPE_NULL;
    }
    if (started_mpi) {
        started_mpi = 0;
        MPI_TRY(MPI_Finalize(), "duo_dist_finalize");
    }
    return DUO_SUCCESS;
}

DUO_NORETURN void dist_comm_abort(int code)
{
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized)
        MPI_Abort(MPI_COMM_WORLD, code);
    exit(code);
}

duo_status dist_comm_barrier(const char *where)
{
    MPI_TRY(MPI_Barrier(MPI_COMM_WORLD), where);
    return DUO_SUCCESS;
}

duo_status dist_comm_allgather(const char *where, const void *send,
                               size_t bytes, void *recv)
{
    duo_status st = check_count(where, bytes);
    if (st != DUO_SUCCESS)
        return st;
    MPI_TRY(MPI_Allgather(send, (int)bytes, MPI_BYTE, recv, (int)bytes,
                          MPI_BYTE, MPI_COMM_WORLD), where);
    return DUO_SUCCESS;
}

duo_status dist_comm_agree(const char *where, uint64_t *record)
{
    MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, record, 1, agree_type, agree_op,
                          MPI_COMM_WORLD), where);
    return DUO_SUCCESS;
}

duo_status dist_comm_allgatherv_u64(const char *where, uint64_t *buf,
                                    const size_t *counts,
                                    const size_t *displs)
{
    int size = 1;
    MPI_TRY(MPI_Comm_size(MPI_COMM_WORLD, &size), where);
    int *c = (int *)malloc(2 * (size_t)size * sizeof(int));
    if (c == NULL)
        return duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                        "no host memory for %d counts", size);
    int *d = c + size;
    for (int r = 0; r < size; ++r) {
        if (counts[r] > (size_t)INT_MAX || displs[r] > (size_t)INT_MAX) {
            free(c);
            return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                            "%zu words at word %zu from rank %d: MPI counts "
                            "stop at %d; use more ranks or smaller arrays",
                            counts[r], displs[r], r, INT_MAX);
        }
        c[r] = (int)counts[r];
        d[r] = (int)displs[r];
    }
    const int err = MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, c,
                                   d, MPI_UINT64_T, MPI_COMM_WORLD);
    free(c);
    if (err != MPI_SUCCESS)
        return mpi_failed(where, "MPI_Allgatherv", err);
    return DUO_SUCCESS;
}

duo_status dist_comm_scan_u64(const char *where, uint64_t mine,
                              uint64_t *before, uint64_t *total)
{
    uint64_t incl = 0;
    MPI_TRY(MPI_Scan(&mine, &incl, 1, MPI_UINT64_T, MPI_SUM,
                     MPI_COMM_WORLD), where);
    MPI_TRY(MPI_Allreduce(&mine, total, 1, MPI_UINT64_T, MPI_SUM,
                          MPI_COMM_WORLD), where);
    *before = incl - mine;
    return DUO_SUCCESS;
}

duo_status dist_comm_exchange(const char *where, const dist_msg *sends,
                              int nsends, const dist_msg *recvs, int nrecvs)
{
    for (int i = 0; i < nsends; ++i)
        if (check_count(where, sends[i].bytes) != DUO_SUCCESS)
            return DUO_ERROR_INVALID_ARGUMENT;
    for (int i = 0; i < nrecvs; ++i)
        if (check_count(where, recvs[i].bytes) != DUO_SUCCESS)
            return DUO_ERROR_INVALID_ARGUMENT;
    if (nsends + nrecvs == 0)
        return DUO_SUCCESS;
    MPI_Request *req = (MPI_Request *)malloc(
        (size_t)(nsends + nrecvs) * sizeof(MPI_Request));
    if (req == NULL)
        return duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                        "no host memory for %d MPI requests",
                        nsends + nrecvs);
    int nreq = 0;
    int err = MPI_SUCCESS;
    for (int i = 0; i < nrecvs && err == MPI_SUCCESS; ++i)
        err = MPI_Irecv(recvs[i].buf, (int)recvs[i].bytes, MPI_BYTE,
                        recvs[i].peer, recvs[i].tag, MPI_COMM_WORLD,
                        &req[nreq++]);
    for (int i = 0; i < nsends && err == MPI_SUCCESS; ++i)
        err = MPI_Isend(sends[i].buf, (int)sends[i].bytes, MPI_BYTE,
                        sends[i].peer, sends[i].tag, MPI_COMM_WORLD,
                        &req[nreq++]);
    /* Requests already started must complete before their buffers go. */
    int wait_err = MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    free(req);
    if (err != MPI_SUCCESS)
        return mpi_failed(where, "MPI_Isend/MPI_Irecv", err);
    if (wait_err != MPI_SUCCESS)
        return mpi_failed(where, "MPI_Waitall", wait_err);
    return DUO_SUCCESS;
}

duo_status dist_comm_gatherv(const char *where, const void *send,
                             size_t send_bytes, void *recv,
                             const size_t *bytes, const size_t *displ,
                             int root)
{
    int rank = 0, size = 1;
    MPI_TRY(MPI_Comm_rank(MPI_COMM_WORLD, &rank), where);
    MPI_TRY(MPI_Comm_size(MPI_COMM_WORLD, &size), where);
    duo_status st = check_count(where, send_bytes);
    if (st != DUO_SUCCESS)
        return st;
    int *counts = NULL, *displs = NULL;
    if (rank == root) {
        counts = (int *)malloc((size_t)size * sizeof(int));
        displs = (int *)malloc((size_t)size * sizeof(int));
        if (counts == NULL || displs == NULL) {
            free(counts);
            free(displs);
            return duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                            "no host memory for %d counts", size);
        }
        for (int r = 0; r < size; ++r) {
            if (bytes[r] > (size_t)INT_MAX || displ[r] > (size_t)INT_MAX) {
                free(counts);
                free(displs);
                return check_count(where, bytes[r] > displ[r] ? bytes[r]
                                                              : displ[r]);
            }
            counts[r] = (int)bytes[r];
            displs[r] = (int)displ[r];
        }
    }
    int err = MPI_Gatherv(send, (int)send_bytes, MPI_BYTE, recv, counts,
                          displs, MPI_BYTE, root, MPI_COMM_WORLD);
    free(counts);
    free(displs);
    if (err != MPI_SUCCESS)
        return mpi_failed(where, "MPI_Gatherv", err);
    return DUO_SUCCESS;
}
