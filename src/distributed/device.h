/*
 * device.h - what the distributed layer asks of the backend's memory:
 * choosing this rank's GPU, and moving halo rows between device buffers.
 * device_host.c serves the CPU builds (device memory is host memory, so
 * MPI reads it directly), the host path of a CUDA build and the
 * single-process CUDA build;
 * backend_cuda/dist.cu serves the CUDA build with MPI (peer GPU memory,
 * NCCL, CUDA-aware MPI, or copies staged through pinned host buffers).
 */
#ifndef DUO_DIST_DEVICE_H
#define DUO_DIST_DEVICE_H

#include <stddef.h>

#include "backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Before duo_init: make GPU local_rank % count the one duo uses. */
duo_status dist_dev_select(int local_rank);
/* After duo_init: set up the halo path (and NCCL); rank 0 says which. */
duo_status dist_dev_setup(int rank, int size);
void dist_dev_teardown(void);
/* "host", "ipc", "nccl", "cuda-aware-mpi", "staged" or "none". */
const char *dist_dev_halo_path(void);

/* One halo step between device buffers of `bytes` bytes each: send_up
 * goes to rank `up` (whose recv_down receives it) and recv_up receives
 * from `up`; likewise down.  up/down < 0: no neighbour on that side.
 * The rows are read after the work queued on `stream`, and the received
 * rows are seen by work queued there after it.  With `wait` (stream
 * NULL) the rows are read after all work queued before, on every
 * stream, and the call returns when the received rows are written. */
duo_status dist_dev_halo(const void *send_up, void *recv_up, int up,
                         const void *send_down, void *recv_down, int down,
                         size_t bytes, duo_stream stream, int wait);

/*
 * The stream-ordered dot products (dist_dot.c).  dist_dev_share_possible:
 * 1 where dist_dev_share works (every rank alike), 0 where the caller
 * must go through the host.  dist_dev_share: in device array buf, rank
 * r's bytes[r] bytes at byte offset[r] (this rank's in place) reach
 * every rank, queued on `stream`.  dist_dev_order_begin / _end bracket
 * the work of one such call, so that calls on different streams run one
 * after the other.
 */
int dist_dev_share_possible(void);
duo_status dist_dev_share(const char *where, void *buf, const size_t *offset,
                          const size_t *bytes, duo_stream stream);
duo_status dist_dev_order_begin(const char *where, duo_stream stream);
duo_status dist_dev_order_end(const char *where, duo_stream stream);

/* The same for host memory (device_host.c), under these names in a CUDA
 * build with MPI, where dist.cu calls them on the host path. */
duo_status dist_host_setup(int rank, int size);
void dist_host_teardown(void);
const char *dist_host_halo_path(void);
duo_status dist_host_halo(const void *send_up, void *recv_up, int up,
                          const void *send_down, void *recv_down, int down,
                          size_t bytes, duo_stream stream, int wait);
int dist_host_share_possible(void);
duo_status dist_host_share(const char *where, void *buf,
                           const size_t *offset, const size_t *bytes,
                           duo_stream stream);
duo_status dist_host_order_begin(const char *where, duo_stream stream);
duo_status dist_host_order_end(const char *where, duo_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* DUO_DIST_DEVICE_H */
