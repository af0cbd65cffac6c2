/*
 * device_host.c - device.h where duo's device memory is host memory (the
 * CPU builds, and the host path of a CUDA build) or where there is only
 * one process (no neighbours, so no halo ever travels): MPI reads and
 * writes the buffers directly.  A CUDA build with MPI compiles this file
 * with DUO_DIST_HOST_PATH, which names its functions dist_host_*:
 * backend_cuda/dist.cu calls them on the host path.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "device.h"

#if defined(DUO_DIST_HOST_PATH)
#define DIST_FN(name) dist_host_##name
#else
#define DIST_FN(name) dist_dev_##name
#endif

static const char *halo_path = "none";
static int ranks = 1;

duo_status DIST_FN(select)(int local_rank)
{
    (void)local_rank;
    return DUO_SUCCESS;
}

duo_status DIST_FN(setup)(int rank, int size)
{
    (void)rank;
    ranks = size;
    halo_path = size > 1 ? "host" : "none";
    /* duo_dist_init has checked the name; here only "host" exists. */
    const char *want = getenv("DUO_DIST_HALO");
    if (size > 1 && want != NULL && *want != '\0' &&
        strcmp(want, "host") != 0)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_dist_init",
                        "DUO_DIST_HALO=%s is not available here: duo's "
                        "memory is host memory (backend %s), so halo rows "
                        "go through MPI (path host)", want,
                        duo_backend_name());
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

/* Host memory: the slots move by MPI, in place, and the call returns
 * when they have arrived -- in the stream's order, since work on a
 * stream has run by the time its call returns. */
int DIST_FN(share_possible)(void) { return 1; }

duo_status DIST_FN(share)(const char *where, void *buf, const size_t *offset,
                          const size_t *bytes, duo_stream stream)
{
    (void)stream;
    size_t *words = (size_t *)malloc(2 * (size_t)ranks * sizeof(size_t));
    if (words == NULL)
        return duo_fail(DUO_ERROR_OUT_OF_MEMORY, where,
                        "no host memory for %d counts", ranks);
    for (int r = 0; r < ranks; ++r) {
        words[r] = bytes[r] / sizeof(uint64_t);
        words[ranks + r] = offset[r] / sizeof(uint64_t);
    }
    const duo_status st = dist_comm_allgatherv_u64(
        where, (uint64_t *)buf, words, words + ranks);
    free(words);
    return st;
}

duo_status DIST_FN(order_begin)(const char *where, duo_stream stream)
{
    (void)where;
    (void)stream;
    return DUO_SUCCESS;
}

duo_status DIST_FN(order_end)(const char *where, duo_stream stream)
{
    (void)where;
    (void)stream;
    return DUO_SUCCESS;
}
