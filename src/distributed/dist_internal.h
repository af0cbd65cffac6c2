/*
 * dist_internal.h - state and helpers shared by the files of
 * src/distributed.
 */
#ifndef DUO_DIST_INTERNAL_H
#define DUO_DIST_INTERNAL_H

#include <stdint.h>

#include <duo/dist.h>

#include "backend.h"

/* This process's place, set by duo_dist_init (rank 0 of 1 before). */
typedef struct dist_state {
    int rank, size, local_rank;
    int initialized;
    int abort_on_error;
    int agree_compact; /* dist_agree's first exchange: 10 bytes per rank */
} dist_state;

extern dist_state duo_dist_state;

/* A collective call failed on this rank with `status` (message already
 * recorded): end every rank, or return the status, as the error mode
 * says. */
duo_status dist_collective_failed(duo_status status);

/* Fails unless duo_dist_init has succeeded (names `where`). */
duo_status dist_require_init(const char *where);

/*
 * Reduce n <= DUO_DIST_INLINE host elements in exactly duo_reduce's
 * order (src/reduce_order.h, for one chunk of one step), so that a tiny
 * reduction needs no device round trip.  result as duo_reduce's.
 * test_dist checks it bit for bit against duo_reduce.
 */
void dist_small_reduce(duo_reduce_op op, duo_dtype type, const void *x,
                       size_t n, void *result);

/* Up to this many ranks dist_agree's first exchange is an all-gather of
 * 10 bytes per rank (dist_reduce.c). */
#define DIST_AGREE_COMPACT_RANKS 64

/* The first exchange of every reduction, gather and dot (dist_reduce.c):
 * checks that all ranks make the same call (kind, op, type, n); with
 * elems != NULL and n <= DUO_DIST_INLINE also gathers the whole array
 * into elems (host) and checks the pieces' order.  Every rank reaches
 * the same verdict. */
duo_status dist_agree(const char *where, int kind, int op, duo_dtype type,
                      const void *x, const duo_dist_range *range,
                      void *elems);

/* One rank's piece of an array of n elements, as all ranks see it. */
typedef struct dist_piece {
    uint64_t n, begin, count;
} dist_piece;

/* Every rank's piece, in rank order (duo_dist_state.size entries), after
 * dist_agree: checked to share n and to follow each other in rank order,
 * covering n; every rank reaches the same verdict.  Reuses the last
 * checked layout, with no message, where dist_agree's exchange says it
 * is this call's (dist_pieces.c). */
duo_status dist_pieces(const char *where, const duo_dist_range *range,
                       dist_piece *all);
/* What this rank sends in dist_agree's exchange about its piece, and
 * every rank's word received there (NULL where the exchange carried
 * none). */
uint64_t dist_pieces_word(const duo_dist_range *range);
void dist_pieces_agreed(const uint64_t *words);
/* Free the kept layout (duo_dist_finalize). */
void dist_pieces_release(void);

/* Memory kept between calls, grown as needed (dist_runtime.c): device
 * memory, or with `host` pinned host memory (duo_malloc_host), which the
 * device copies into without staging. */
typedef struct dist_buffer {
    void *p;
    size_t bytes;
    int host;
} dist_buffer;
/* At least `bytes` bytes at b->p (contents not kept). */
duo_status dist_buffer_reserve(dist_buffer *b, size_t bytes);
void dist_buffer_release(dist_buffer *b);

/* Free the buffers duo_dist_reduce and duo_dist_dot keep
 * (duo_dist_finalize). */
void dist_reduce_release(void);
void dist_dot_release(void);

#endif /* DUO_DIST_INTERNAL_H */
