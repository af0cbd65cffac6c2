/*
 * dist.cu (CUDA, built with -DDUO_MPI=ON) - src/distributed/device.h for GPU
 * memory: one GPU per rank, and halo rows moved GPU to GPU.
 *
 * Halo path, chosen once in dist_dev_setup and printed by rank 0:
 *   ipc             each rank writes its rows into its neighbours' GPU
 *                   memory, one kernel per exchange (dist_ipc.cu): where
 *                   every pair of neighbouring ranks shares a node and
 *                   their GPUs reach each other's memory;
 *   nccl            ncclSend/ncclRecv between device buffers (built with
 *                   NCCL: no host copy, but about 20 us even for a short
 *                   row);
 *   cuda-aware-mpi  MPI on device pointers, where the MPI library says it
 *                   can (MPIX_Query_cuda_support, OpenMPI's extension);
 *   staged          device -> pinned host -> MPI -> pinned host -> device.
 * DUO_DIST_HALO=ipc|nccl|cuda-aware-mpi|staged forces one (to compare
 * them); one that is not available is an error naming what is.  ipc and
 * NCCL need a GPU of its own for every rank: where a node runs more ranks
 * than it has GPUs, the ranks share GPUs and the halo goes through MPI
 * instead.
 *
 * NCCL's NVLink multicast (NVLS) is not needed for point-to-point work;
 * the scripts that launch duo set NCCL_NVLS_ENABLE=0.
 *
 * On the host path (duo_host_path(): no GPU, or DUO_DEVICE=cpu) device
 * memory is host memory and every call goes to device_host.c's
 * dist_host_*.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI && defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif
#ifdef DUO_HAVE_NCCL
#include <nccl.h>
#endif

#include "cuda_check.h"
#include "dist_ipc.h"
#include "distributed/device.h"

static const char *halo_path = "none";
static void *stage;        /* pinned host: 4 rows (2 out, 2 in) */
static size_t stage_bytes;
static int my_rank, my_size;
/* The last stream-ordered dot product's end (dist_dev_order_*). */
static cudaEvent_t order_event;
static int order_pending;
#ifdef DUO_HAVE_NCCL
/* Set up with the halo path "nccl", or at the first dist_dev_share
 * where every rank has a GPU of its own (nccl_possible). */
static ncclComm_t nccl_comm;
static int nccl_ready, nccl_possible;

#define NCCL_TRY(call, where)                                              \
    do {                                                                   \
        ncclResult_t nccl_res_ = (call);                                   \
        if (nccl_res_ != ncclSuccess)                                      \
            return duo_fail(DUO_ERROR_BACKEND, where, "%s failed: %s",     \
                            #call, ncclGetErrorString(nccl_res_));         \
    } while (0)
#endif

extern "C" duo_status dist_dev_select(int local_rank)
{
    duo_device_want want;
    if (duo_device_wanted(&want) != DUO_SUCCESS || want == DUO_WANT_CPU)
        return DUO_SUCCESS; /* duo_init reports a bad DUO_DEVICE */
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        (void)cudaGetLastError();
        return DUO_SUCCESS; /* duo_init says there is no GPU */
    }
    DUO_CUDA_TRY(cudaSetDevice(local_rank % count), "duo_dist_init");
    return DUO_SUCCESS;
}

/* 1 on every rank when some node runs more ranks than it has GPUs. */
static int gpus_shared(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();
        count = 0;
    }
    int local = 1, shared = 0, any = 1;
    MPI_Comm node;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                            MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        (void)MPI_Comm_size(node, &local);
        (void)MPI_Comm_free(&node);
    }
    shared = local > count;
    if (MPI_Allreduce(&shared, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) !=
        MPI_SUCCESS)
        return 1; /* unknown: the paths that work either way */
    return any;
}

static int mpi_is_cuda_aware(void)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#else
    return 0;
#endif
}

#ifdef DUO_HAVE_NCCL
static duo_status nccl_setup(const char *where, int rank, int size)
{
    ncclUniqueId id;
    if (rank == 0)
        NCCL_TRY(ncclGetUniqueId(&id), where);
    if (MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD) !=
        MPI_SUCCESS)
        return duo_fail(DUO_ERROR_BACKEND, where,
                        "MPI_Bcast of the NCCL id failed");
    NCCL_TRY(ncclCommInitRank(&nccl_comm, size, id, rank), where);
    nccl_ready = 1;
    return DUO_SUCCESS;
}
#endif

extern "C" duo_status dist_dev_setup(int rank, int size)
{
    if (duo_host_path())
        return dist_host_setup(rank, size);
    my_rank = rank;
    my_size = size;
    if (size == 1) {
        halo_path = "none";
        return DUO_SUCCESS;
    }
    const char *want = getenv("DUO_DIST_HALO");
    if (want != NULL && *want == '\0')
        want = NULL;
#ifdef DUO_HAVE_NCCL
    const int built_nccl = 1;
#else
    const int built_nccl = 0;
#endif
    const int shared = gpus_shared();
    const int have_ipc = dist_ipc_possible(rank, size) && !shared;
    const int have_nccl = built_nccl && !shared;
#ifdef DUO_HAVE_NCCL
    nccl_possible = have_nccl;
#endif
    const int aware = mpi_is_cuda_aware();
    static const char *const paths[] = {"ipc", "nccl", "cuda-aware-mpi",
                                        "staged"};
    const int have[] = {have_ipc, have_nccl, aware, 1};
    halo_path = NULL;
    for (int p = 0; p < 4 && halo_path == NULL; ++p)
        if (have[p] && (want == NULL || strcmp(want, paths[p]) == 0))
            halo_path = paths[p];
    if (halo_path == NULL) {
        halo_path = "none";
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, "duo_dist_init",
                        "DUO_DIST_HALO=%s is not available here; ipc %s, "
                        "NCCL %s, CUDA-aware MPI %s, staged always", want,
                        have_ipc  ? "yes"
                        : shared  ? "no (ranks share GPUs)"
                                  : "no (neighbouring ranks on other nodes, "
                                    "or GPUs without peer access)",
                        have_nccl   ? "yes"
                        : built_nccl ? "no (ranks share GPUs: NCCL needs "
                                       "one GPU per rank)"
                                     : "no (not found at build time)",
                        aware ? "yes" : "no");
    }
    if (strcmp(halo_path, "ipc") == 0)
        return dist_ipc_setup(rank, size);
#ifdef DUO_HAVE_NCCL
    if (strcmp(halo_path, "nccl") == 0)
        return nccl_setup("duo_dist_init", rank, size);
#endif
    return DUO_SUCCESS;
}

extern "C" void dist_dev_teardown(void)
{
    dist_host_teardown();
    dist_ipc_teardown();
#ifdef DUO_HAVE_NCCL
    if (nccl_ready)
        (void)ncclCommDestroy(nccl_comm);
    nccl_ready = 0;
    nccl_possible = 0;
#endif
    if (order_event != NULL)
        (void)cudaEventDestroy(order_event);
    order_event = NULL;
    order_pending = 0;
    if (stage != NULL)
        (void)duo_free_host(stage);
    stage = NULL;
    stage_bytes = 0;
}

extern "C" const char *dist_dev_halo_path(void)
{
    return duo_host_path() ? dist_host_halo_path() : halo_path;
}

extern "C" duo_status dist_dev_halo(const void *send_up, void *recv_up,
                                    int up, const void *send_down,
                                    void *recv_down, int down, size_t bytes,
                                    duo_stream stream, int wait)
{
    const char *const where =
        wait ? "duo_dist_halo_exchange" : "duo_dist_halo_exchange_async";
    if (duo_host_path()) /* host memory, stream work done already */
        return dist_host_halo(send_up, recv_up, up, send_down, recv_down,
                              down, bytes, stream, 1);
    const cudaStream_t s = duo_cuda_stream(stream);
    /* Like NCCL, the ipc kernel is queued behind the stream's work. */
    if (strcmp(halo_path, "ipc") == 0) {
        duo_status st = dist_ipc_halo(send_up, recv_up, up, send_down,
                                      recv_down, down, bytes, stream, where);
        if (st == DUO_SUCCESS && wait)
            DUO_CUDA_TRY(cudaStreamSynchronize(s), where);
        return st;
    }
#ifdef DUO_HAVE_NCCL
    /* NCCL queues the transfer on the stream like a kernel: no wait is
     * needed before it -- with `wait` the stream is the default one,
     * whose work follows all work queued before on duo's streams (they
     * are created blocking, stream.cu) -- and none after it unless
     * asked. */
    if (nccl_ready) {
        NCCL_TRY(ncclGroupStart(), where);
        if (up >= 0) {
            NCCL_TRY(ncclSend(send_up, bytes, ncclChar, up, nccl_comm, s),
                     where);
            NCCL_TRY(ncclRecv(recv_up, bytes, ncclChar, up, nccl_comm, s),
                     where);
        }
        if (down >= 0) {
            NCCL_TRY(ncclSend(send_down, bytes, ncclChar, down, nccl_comm, s),
                     where);
            NCCL_TRY(ncclRecv(recv_down, bytes, ncclChar, down, nccl_comm, s),
                     where);
        }
        NCCL_TRY(ncclGroupEnd(), where);
        if (wait)
            DUO_CUDA_TRY(cudaStreamSynchronize(s), where);
        return DUO_SUCCESS;
    }
#endif
    /* MPI works from the host: the rows must be final before it starts,
     * and it returns when they have arrived. */
    if (strcmp(halo_path, "cuda-aware-mpi") == 0) {
        if (wait)
            DUO_CUDA_TRY(cudaDeviceSynchronize(), where);
        else
            DUO_CUDA_TRY(cudaStreamSynchronize(s), where);
        return dist_host_halo(send_up, recv_up, up, send_down, recv_down,
                              down, bytes, NULL, 1);
    }
    /* Staged: rows 0, 1 of the pinned buffer go out (up, down), rows 2, 3
     * come in.  The copies out queue behind the stream's work (with
     * `wait`, the default stream's, behind every stream's), then one
     * wait; the copies in, then one wait (the buffer is reused by the
     * next exchange, whatever its stream). */
    if (stage_bytes < 4 * bytes) {
        if (stage != NULL)
            (void)duo_free_host(stage);
        stage = NULL;
        stage_bytes = 0;
        duo_status st = duo_malloc_host(&stage, 4 * bytes);
        if (st != DUO_SUCCESS)
            return st;
        stage_bytes = 4 * bytes;
    }
    char *h = (char *)stage;
    if (up >= 0)
        DUO_CUDA_TRY(cudaMemcpyAsync(h, send_up, bytes,
                                     cudaMemcpyDeviceToHost, s), where);
    if (down >= 0)
        DUO_CUDA_TRY(cudaMemcpyAsync(h + bytes, send_down, bytes,
                                     cudaMemcpyDeviceToHost, s), where);
    DUO_CUDA_TRY(cudaStreamSynchronize(s), where);
    duo_status st = dist_host_halo(h, h + 2 * bytes, up, h + bytes,
                                   h + 3 * bytes, down, bytes, NULL, 1);
    if (st != DUO_SUCCESS)
        return st;
    if (up >= 0)
        DUO_CUDA_TRY(cudaMemcpyAsync(recv_up, h + 2 * bytes, bytes,
                                     cudaMemcpyHostToDevice, s), where);
    if (down >= 0)
        DUO_CUDA_TRY(cudaMemcpyAsync(recv_down, h + 3 * bytes, bytes,
                                     cudaMemcpyHostToDevice, s), where);
    DUO_CUDA_TRY(cudaStreamSynchronize(s), where);
    return DUO_SUCCESS;
}

/* The stream-ordered dot products' exchange: NCCL broadcasts from every
 * rank's slots, in place, grouped into one launch.  Without NCCL (or
 * with ranks sharing GPUs) dist_dot.c takes its host form; on the host
 * path MPI moves the slots (device_host.c). */
extern "C" int dist_dev_share_possible(void)
{
    if (duo_host_path())
        return dist_host_share_possible();
#ifdef DUO_HAVE_NCCL
    return nccl_possible;
#else
    return 0;
#endif
}

extern "C" duo_status dist_dev_share(const char *where, void *buf,
                                     const size_t *offset,
                                     const size_t *bytes, duo_stream stream)
{
    if (duo_host_path())
        return dist_host_share(where, buf, offset, bytes, stream);
#ifdef DUO_HAVE_NCCL
    if (!dist_dev_share_possible())
        return duo_fail(DUO_ERROR_BACKEND, where,
                        "no stream-ordered exchange here (ranks share GPUs "
                        "or run on the host)");
    if (!nccl_ready) { /* every rank reaches this call alike */
        const duo_status st = nccl_setup(where, my_rank, my_size);
        if (st != DUO_SUCCESS)
            return st;
    }
    const cudaStream_t s = duo_cuda_stream(stream);
    char *b = (char *)buf;
    NCCL_TRY(ncclGroupStart(), where);
    for (int r = 0; r < my_size; ++r)
        if (bytes[r] > 0)
            NCCL_TRY(ncclBroadcast(b + offset[r], b + offset[r], bytes[r],
                                   ncclChar, r, nccl_comm, s),
                     where);
    NCCL_TRY(ncclGroupEnd(), where);
    return DUO_SUCCESS;
#else
    (void)buf;
    (void)offset;
    (void)bytes;
    (void)stream;
    return duo_fail(DUO_ERROR_BACKEND, where,
                    "no stream-ordered exchange: built without NCCL");
#endif
}

extern "C" duo_status dist_dev_order_begin(const char *where,
                                           duo_stream stream)
{
    if (duo_host_path())
        return dist_host_order_begin(where, stream);
    if (order_pending)
        DUO_CUDA_TRY(cudaStreamWaitEvent(duo_cuda_stream(stream),
                                         order_event, 0),
                     where);
    return DUO_SUCCESS;
}

extern "C" duo_status dist_dev_order_end(const char *where, duo_stream stream)
{
    if (duo_host_path())
        return dist_host_order_end(where, stream);
    if (order_event == NULL)
        DUO_CUDA_TRY(cudaEventCreateWithFlags(&order_event,
                                              cudaEventDisableTiming),
                     where);
    DUO_CUDA_TRY(cudaEventRecord(order_event, duo_cuda_stream(stream)),
                 where);
    order_pending = 1;
    return DUO_SUCCESS;
}
