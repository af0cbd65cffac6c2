/*
 * dist_ipc.h (CUDA, built with -DDUO_MPI=ON) - the "ipc" halo path of
 * dist.cu: neighbouring ranks on one node, each with a GPU of its own,
 * write their rows straight into each other's device memory.  See
 * dist_ipc.cu.
 */
#ifndef DUO_DIST_IPC_H
#define DUO_DIST_IPC_H

#include <stddef.h>

#include "backend.h"

/* Collective: 1 on every rank when every pair of neighbouring ranks
 * (rank, rank + 1) shares a node and their GPUs reach each other's
 * memory; 0 where any pair does not, or the answer is unknown. */
int dist_ipc_possible(int rank, int size);
/* Collective: the flags every exchange uses, opened by the neighbours. */
duo_status dist_ipc_setup(int rank, int size);
/* Collective (duo_dist_finalize): waits for the device, frees all. */
void dist_ipc_teardown(void);
/* dist_dev_halo's work on this path (device.h), on CUDA stream `s`. */
duo_status dist_ipc_halo(const void *send_up, void *recv_up, int up,
                         const void *send_down, void *recv_down, int down,
                         size_t bytes, duo_stream stream, const char *where);

#endif /* DUO_DIST_IPC_H */
