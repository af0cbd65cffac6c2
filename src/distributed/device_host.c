/*
 * device_host.c - device.h where duo's device memory is host memory (the
 * CPU builds, and the host path of a CUDA build) or where there is only
 * one process (no neighbours, so no halo ever travels): MPI reads and
 * writes the buffers directly.  A CUDA build with MPI compiles this file
 * with DUO_DIST_HOST_PATH, which names its functions dist_host_*:
 * backend_cuda/dist.cu calls them on the host path.
 */
#include "comm.h"
#include "device.h"

#if defined(DUO_DIST_HOST_PATH)
#define DIST_FN(name) dist_host_##name
#else
#define DIST_FN(name) dist_dev_##name
#endif

static const char *halo_path = "none";

duo_status DIST_FN(select)(int local_rank)
{
    (void)local_rank;
    return DUO_SUCCESS;
}

duo_status DIST_FN(setup)(int rank, int size)
{
    (void)rank;
    halo_path = size > 1 ? "host" : "none";
    return DUO_SUCCESS;
}

void DIST_FN(teardown)(void) {}

const char *DIST_FN(halo_path)(void) { return halo_path; }

static dist_msg msg(void *buf, size_t bytes, int peer, int tag)
{
    dist_msg m;
    m.buf = buf;
    m.bytes = bytes;
    m.peer = peer;
    m.tag = tag;
    return m;
}

/* Host memory: work on a stream has run by the time the call returns,
 * so the exchange is complete whatever `stream` and `wait` say. */
duo_status DIST_FN(halo)(const void *send_up, void *recv_up, int up,
                         const void *send_down, void *recv_down, int down,
                         size_t bytes, duo_stream stream, int wait)
{
    (void)stream;
    (void)wait;
    dist_msg sends[2], recvs[2];
    int ns = 0, nr = 0;
    /* Tag 1: travelling up; tag 2: travelling down. */
    if (up >= 0) {
        sends[ns++] = msg((void *)send_up, bytes, up, 1);
        recvs[nr++] = msg(recv_up, bytes, up, 2);
    }
    if (down >= 0) {
        sends[ns++] = msg((void *)send_down, bytes, down, 2);
        recvs[nr++] = msg(recv_down, bytes, down, 1);
    }
    return dist_comm_exchange("duo_dist_halo_exchange", sends, ns, recvs, nr);
}
