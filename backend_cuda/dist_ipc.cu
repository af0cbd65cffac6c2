/*
 * dist_ipc.cu (CUDA, built with -DDUO_MPI=ON) - the "ipc" halo path:
 * neighbouring ranks on one node, each with a GPU of its own, write their
 * rows straight into each other's device memory (CUDA IPC, over NVLink
 * or PCIe).  An exchange is one small kernel on the caller's stream: no
 * host round trip, no wait, no copy through the host.
 *
 * Each rank owns two device blocks that its neighbours open once
 * (cudaIpcOpenMemHandle): its flags, and its inbox of two parities x two
 * sides x `cap` bytes, opened again when a wider row makes it grow.
 * Exchange k (counted alike on every rank: halo exchanges are
 * collective) runs dist_ipc_halo_kernel; its block b, for each side with
 * a neighbour:
 *   1. waits until block b of exchange k - 1 has finished here (so
 *      exchanges keep their order whatever streams they are queued on);
 *   2. copies its part of the outgoing row into the neighbour's inbox of
 *      parity k & 1, fences (system scope) and stores k in the
 *      neighbour's arrived[side][b];
 *   3. waits until its own arrived[side][b] holds k, copies that part of
 *      its inbox into the halo row, and marks block b finished.
 * Why two parities are enough with no "ready" signal: a neighbour writes
 * exchange k + 1's rows only after its own exchange k has received this
 * rank's rows of exchange k, which this rank sends only after its
 * exchange k - 1 -- the last reader of parity (k + 1) & 1 -- finished.
 */
#include <stdint.h>
#include <string.h>

#include <cuda/atomic>
#include <mpi.h>

#include "cuda_check.h"
#include "dist_ipc.h"
#include "distributed/comm.h"

namespace {

enum { IPC_BLOCKS = 8, IPC_THREADS = 256, IPC_TAG = 3, IPC_GRAIN = 4096 };
enum { UP = 0, DOWN = 1 }; /* sides: the neighbour rank - 1, rank + 1 */

typedef unsigned long long counter;

/* One rank's flags, written by its neighbours (arrived) and by itself
 * (finished). */
struct ipc_flags {
    counter arrived[2][IPC_BLOCKS]; /* [side][block]: rows of exchange n */
    counter finished[IPC_BLOCKS];   /* block b's last finished exchange */
};

/* What one exchange's kernel needs; side s is absent where send[s] is
 * NULL. */
struct ipc_args {
    counter k;
    size_t bytes, part;        /* the row; each block's part, 16 | part */
    const char *send[2];       /* this rank's rows going to side s       */
    char *recv[2];             /* its halo rows coming from side s       */
    char *peer_inbox[2];       /* where send[s] lands, in s's inbox      */
    counter *peer_arrived[2];  /* s's arrived[] for rows from this rank  */
    const char *inbox[2];      /* this rank's inbox for rows from s      */
    counter *arrived[2];       /* this rank's arrived[s]                 */
    counter *finished;
};

__device__ counter load_acquire(counter *p)
{
    cuda::atomic_ref<counter, cuda::thread_scope_system> a(*p);
    return a.load(cuda::memory_order_acquire);
}

__device__ void store_release(counter *p, counter v)
{
    cuda::atomic_ref<counter, cuda::thread_scope_system> a(*p);
    a.store(v, cuda::memory_order_release);
}

__device__ void wait_for(counter *p, counter k)
{
    while (load_acquire(p) < k)
        __nanosleep(32);
}

template <typename U>
__device__ void copy_units(char *dst, const char *src, size_t n)
{
    U *d = reinterpret_cast<U *>(dst);
    const U *s = reinterpret_cast<const U *>(src);
    for (size_t i = threadIdx.x; i < n / sizeof(U); i += blockDim.x)
        d[i] = s[i];
}

/* The widest loads and stores that the addresses and length allow:
 * rows of f32 fields with an odd width are only 4-byte aligned. */
__device__ void copy_part(char *dst, const char *src, size_t n)
{
    const uintptr_t a = (uintptr_t)dst | (uintptr_t)src | (uintptr_t)n;
    if (a % 16 == 0)
        copy_units<uint4>(dst, src, n);
    else if (a % 8 == 0)
        copy_units<unsigned long long>(dst, src, n);
    else if (a % 4 == 0)
        copy_units<unsigned>(dst, src, n);
    else
        copy_units<unsigned char>(dst, src, n);
}

__global__ void __launch_bounds__(IPC_THREADS)
    dist_ipc_halo_kernel(ipc_args a)
{
    const unsigned b = blockIdx.x;
    const size_t lo = a.part * b < a.bytes ? a.part * b : a.bytes;
    const size_t n = a.bytes - lo < a.part ? a.bytes - lo : a.part;
    if (threadIdx.x == 0)
        wait_for(&a.finished[b], a.k - 1);
    __syncthreads();
    for (int s = 0; s < 2; ++s)
        if (a.send[s] != NULL)
            copy_part(a.peer_inbox[s] + lo, a.send[s] + lo, n);
    /* Every thread's stores reach the neighbour before its flag does. */
    __threadfence_system();
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int s = 0; s < 2; ++s)
            if (a.send[s] != NULL)
                store_release(&a.peer_arrived[s][b], a.k);
        for (int s = 0; s < 2; ++s)
            if (a.recv[s] != NULL)
                wait_for(&a.arrived[s][b], a.k);
    }
    __syncthreads();
    for (int s = 0; s < 2; ++s)
        if (a.recv[s] != NULL)
            copy_part(a.recv[s] + lo, a.inbox[s] + lo, n);
    __syncthreads();
    if (threadIdx.x == 0)
        store_release(&a.finished[b], a.k);
}

int nb[2] = {-1, -1};           /* neighbour ranks by side, -1: none      */
ipc_flags *flags;               /* this rank's                            */
ipc_flags *peer_flags[2];       /* the neighbours', opened here           */
char *inbox;                    /* this rank's: [parity][side][cap]       */
char *peer_inbox[2];            /* the neighbours', opened here           */
size_t cap;                     /* bytes per (parity, side)               */
counter exchanges;              /* finished launching, on every rank      */

/* Each neighbour's `bytes` bytes from `mine`: got[s] from side s. */
duo_status swap(const char *where, const void *mine, void *got0, void *got1,
                size_t bytes)
{
    void *got[2] = {got0, got1};
    dist_msg sends[2], recvs[2];
    int n = 0;
    for (int s = 0; s < 2; ++s)
        if (nb[s] >= 0) {
            sends[n].buf = const_cast<void *>(mine);
            recvs[n].buf = got[s];
            sends[n].bytes = recvs[n].bytes = bytes;
            sends[n].peer = recvs[n].peer = nb[s];
            sends[n].tag = recvs[n].tag = IPC_TAG;
            ++n;
        }
    return dist_comm_exchange(where, sends, n, recvs, n);
}

/* Give the neighbours this rank's block `mine`; open theirs. */
duo_status share(const char *where, void *mine, void **theirs)
{
    cudaIpcMemHandle_t h, got[2];
    DUO_CUDA_TRY(cudaIpcGetMemHandle(&h, mine), where);
    duo_status st = swap(where, &h, &got[UP], &got[DOWN], sizeof h);
    if (st != DUO_SUCCESS)
        return st;
    for (int s = 0; s < 2; ++s)
        if (nb[s] >= 0)
            DUO_CUDA_TRY(cudaIpcOpenMemHandle(&theirs[s], got[s],
                                              cudaIpcMemLazyEnablePeerAccess),
                         where);
    return DUO_SUCCESS;
}

void close_peers(void **theirs)
{
    for (int s = 0; s < 2; ++s) {
        if (theirs[s] != NULL)
            (void)cudaIpcCloseMemHandle(theirs[s]);
        theirs[s] = NULL;
    }
}

/* Collective between neighbours (they exchange rows of the same width,
 * so they grow at the same exchange): every copy into or out of the old
 * inboxes has finished, and each neighbour has closed this rank's old
 * inbox, before it is freed. */
duo_status grow(size_t bytes, const char *where)
{
    if (bytes > (SIZE_MAX - IPC_GRAIN) / 4)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "a halo row of %zu bytes is too wide", bytes);
    const size_t want = (bytes + IPC_GRAIN - 1) / IPC_GRAIN * IPC_GRAIN;
    DUO_CUDA_TRY(cudaDeviceSynchronize(), where);
    close_peers(reinterpret_cast<void **>(peer_inbox));
    char token = 0, got_up = 0, got_down = 0;
    duo_status st = swap(where, &token, &got_up, &got_down, 1);
    if (st != DUO_SUCCESS)
        return st;
    if (inbox != NULL)
        DUO_CUDA_TRY(cudaFree(inbox), where);
    inbox = NULL;
    cap = 0;
    DUO_CUDA_TRY(cudaMalloc(&inbox, 4 * want), where);
    cap = want;
    return share(where, inbox, reinterpret_cast<void **>(peer_inbox));
}

} // namespace

int dist_ipc_possible(int rank, int size)
{
    nb[UP] = rank > 0 ? rank - 1 : -1;
    nb[DOWN] = rank + 1 < size ? rank + 1 : -1;
    /* Which node: the world rank of the node's first rank. */
    struct where_am_i {
        int node;
        char bus[32]; /* the GPU's PCI bus id */
    } mine, got[2];
    memset(&mine, 0, sizeof mine);
    memset(got, 0, sizeof got);
    int ok = 1, dev = 0;
    MPI_Comm node;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                            MPI_INFO_NULL, &node) != MPI_SUCCESS)
        return 0; /* every rank fails alike: nothing below runs */
    mine.node = rank;
    if (MPI_Bcast(&mine.node, 1, MPI_INT, 0, node) != MPI_SUCCESS)
        ok = 0;
    (void)MPI_Comm_free(&node);
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetPCIBusId(mine.bus, (int)sizeof mine.bus, dev) !=
            cudaSuccess)
        ok = 0;
    if (swap("duo_dist_init", &mine, &got[UP], &got[DOWN], sizeof mine) !=
        DUO_SUCCESS)
        ok = 0;
    for (int s = 0; s < 2 && ok; ++s) {
        if (nb[s] < 0)
            continue;
        int peer = -1, reach = 0;
        got[s].bus[sizeof got[s].bus - 1] = '\0';
        ok = got[s].node == mine.node &&
             cudaDeviceGetByPCIBusId(&peer, got[s].bus) == cudaSuccess &&
             peer != dev &&
             cudaDeviceCanAccessPeer(&reach, dev, peer) == cudaSuccess &&
             reach;
    }
    (void)cudaGetLastError(); /* a GPU this process cannot see */
    int all = 0;
    if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) !=
        MPI_SUCCESS)
        return 0;
    return all;
}

duo_status dist_ipc_setup(int rank, int size)
{
    const char *const where = "duo_dist_init";
    nb[UP] = rank > 0 ? rank - 1 : -1;
    nb[DOWN] = rank + 1 < size ? rank + 1 : -1;
    exchanges = 0;
    DUO_CUDA_TRY(cudaMalloc(&flags, sizeof *flags), where);
    DUO_CUDA_TRY(cudaMemset(flags, 0, sizeof *flags), where);
    DUO_CUDA_TRY(cudaDeviceSynchronize(), where);
    return share(where, flags, reinterpret_cast<void **>(peer_flags));
}

void dist_ipc_teardown(void)
{
    if (flags == NULL)
        return;
    /* No kernel still writes to a neighbour, and no neighbour to this
     * rank, once every rank has waited and closed what it opened. */
    (void)cudaDeviceSynchronize();
    close_peers(reinterpret_cast<void **>(peer_inbox));
    close_peers(reinterpret_cast<void **>(peer_flags));
    (void)MPI_Barrier(MPI_COMM_WORLD);
    (void)cudaFree(inbox);
    (void)cudaFree(flags);
    inbox = NULL;
    flags = NULL;
    cap = 0;
    exchanges = 0;
}

duo_status dist_ipc_halo(const void *send_up, void *recv_up, int up,
                         const void *send_down, void *recv_down, int down,
                         size_t bytes, duo_stream stream, const char *where)
{
    if (up != nb[UP] || down != nb[DOWN])
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "neighbours %d and %d; this path was set up for "
                        "%d and %d", up, down, nb[UP], nb[DOWN]);
    if (bytes > cap) {
        duo_status st = grow(bytes, where);
        if (st != DUO_SUCCESS)
            return st;
    }
    const counter k = exchanges + 1;
    const size_t parity = (size_t)(k & 1) * 2 * cap;
    ipc_args a;
    memset(&a, 0, sizeof a);
    a.k = k;
    a.bytes = bytes;
    a.part = ((bytes + IPC_BLOCKS - 1) / IPC_BLOCKS + 15) / 16 * 16;
    a.finished = flags->finished; /* addresses only: no host access */
    const void *send[2] = {send_up, send_down};
    void *recv[2] = {recv_up, recv_down};
    for (int s = 0; s < 2; ++s) {
        if (nb[s] < 0)
            continue;
        const int other = 1 - s; /* this rank is on side `other` of s */
        a.send[s] = static_cast<const char *>(send[s]);
        a.recv[s] = static_cast<char *>(recv[s]);
        a.peer_inbox[s] = peer_inbox[s] + parity + (size_t)other * cap;
        a.peer_arrived[s] = peer_flags[s]->arrived[other];
        a.inbox[s] = inbox + parity + (size_t)s * cap;
        a.arrived[s] = flags->arrived[s];
    }
    const cudaStream_t s = duo_cuda_stream(stream);
    dist_ipc_halo_kernel<<<IPC_BLOCKS, IPC_THREADS, 0, s>>>(a);
    DUO_CUDA_TRY(cudaGetLastError(), where);
    duo_cuda_note_launch(stream, "duo_dist_halo_exchange", NULL, 0);
    exchanges = k;
    return DUO_SUCCESS;
}
