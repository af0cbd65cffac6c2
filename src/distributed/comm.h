/*
 * comm.h - the few communication steps duo's distributed layer needs,
 * on host memory.  comm_mpi.c implements them with MPI_COMM_WORLD;
 * comm_single.c for one process (the build without MPI), where every
 * exchange is a copy to oneself.  Everything in src/distributed/ above this line
 * is the same in both builds.
 *
 * Each function returns DUO_SUCCESS or records the failure with duo_fail
 * (naming `where`) and returns its status.
 */
#ifndef DUO_DIST_COMM_H
#define DUO_DIST_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Start MPI unless the program already did; *local_rank is the rank's
 * index among the ranks of its node. */
duo_status dist_comm_init(int *argc, char ***argv, int *rank, int *size,
                          int *local_rank);
/* MPI_Finalize, if dist_comm_init started MPI. */
duo_status dist_comm_finalize(void);
/* End every rank with `code`. */
DUO_NORETURN void dist_comm_abort(int code);

duo_status dist_comm_barrier(const char *where);

/* recv[size * bytes] = every rank's `bytes` bytes, in rank order. */
duo_status dist_comm_allgather(const char *where, const void *send,
                               size_t bytes, void *recv);

/* The whole-record form of every reduction's first step (dist_reduce.c,
 * agree_exchange): each rank's record of DIST_AGREE_WORDS words, combined
 * over all ranks in rank order by dist_agree_combine (lower ranks' into
 * higher ranks'), in place: one all-reduce with a non-commutative
 * operation. */
#define DIST_AGREE_WORDS 9
duo_status dist_comm_agree(const char *where, uint64_t *record);
/* higher = lower (+) higher; defined in dist_reduce.c. */
void dist_agree_combine(const uint64_t *lower, uint64_t *higher);

/* Every rank's words to every rank, in place: rank r's counts[r] words
 * are at buf + displs[r] on rank r beforehand, and on every rank after.
 * (Each word travels once: an all-reduce of a vector of zeros but for
 * each rank's own slots would move every slot from every rank.) */
duo_status dist_comm_allgatherv_u64(const char *where, uint64_t *buf,
                                    const size_t *counts,
                                    const size_t *displs);

/* *before = sum of `mine` over the lower ranks; *total over all. */
duo_status dist_comm_scan_u64(const char *where, uint64_t mine,
                              uint64_t *before, uint64_t *total);

/* Point-to-point messages between host buffers: every receive is
 * posted, then every send, then all are waited for, so the order of the
 * lists does not matter and nothing deadlocks. */
typedef struct dist_msg {
    void *buf;
    size_t bytes;
    int peer;
    int tag;
} dist_msg;
duo_status dist_comm_exchange(const char *where, const dist_msg *sends,
                              int nsends, const dist_msg *recvs, int nrecvs);

/* Rank root receives rank r's bytes[r] bytes at recv + displ[r]. */
duo_status dist_comm_gatherv(const char *where, const void *send,
                             size_t send_bytes, void *recv,
                             const size_t *bytes, const size_t *displ,
                             int root);

#ifdef __cplusplus
}
#endif

#endif /* DUO_DIST_COMM_H */
