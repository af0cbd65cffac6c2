/*
 * dist_pieces.c - every rank's piece of a distributed array, checked
 * (dist_pieces in dist_internal.h).
 *
 * A reduction, gather or dot product of a large array needs every rank's
 * (n, begin, count): one all-gather of 24 bytes per rank, after the first
 * exchange of the call (dist_agree).  Solvers make the same call on the
 * same pieces thousands of times, so that first exchange also carries,
 * in bytes it leaves unused for arrays of more than DUO_DIST_INLINE
 * elements, each rank's word on the layout it keeps from the last check:
 * the 64-bit fingerprint of that layout's piece of this rank where the
 * piece is this call's (compared exactly), 0 otherwise.  Where every
 * rank's word is the fingerprint of its piece in the layout kept here,
 * that layout is this call's (up to a 64-bit fingerprint of the other
 * ranks' pieces), and no message is needed.  Every rank decides from the
 * same gathered words and the same kept layout (a rank that kept none
 * sends 0), so all decide alike.
 */
#include <string.h>

#include "comm.h"
#include "dist_internal.h"

/* The last layout that passed the checks, with each piece's fingerprint
 * (kept_size ranks; 0: none), and the words of the current call's first
 * exchange.  Fixed arrays: the words travel only in the compact first
 * exchange, of at most DIST_AGREE_COMPACT_RANKS ranks, and no rank may
 * decide otherwise than the others for want of memory. */
static dist_piece kept[DIST_AGREE_COMPACT_RANKS];
static uint64_t kept_prints[DIST_AGREE_COMPACT_RANKS];
static uint64_t agreed_prints[DIST_AGREE_COMPACT_RANKS];
static int kept_size, agreed_valid;

/* splitmix64's finalizer: every input bit moves every output bit. */
static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t print_of(const dist_piece *p)
{
    const uint64_t z = mix(mix(mix(p->n + 0x9e3779b97f4a7c15ull) ^
                               p->begin) ^
                           p->count);
    return z != 0 ? z : 1; /* 0 says "no kept layout" */
}

uint64_t dist_pieces_word(const duo_dist_range *range)
{
    const int me = duo_dist_state.rank;
    if (kept_size != duo_dist_state.size || kept[me].n != range->n ||
        kept[me].begin != range->begin || kept[me].count != range->count)
        return 0;
    return kept_prints[me];
}

void dist_pieces_agreed(const uint64_t *prints)
{
    agreed_valid = prints != NULL &&
                   duo_dist_state.size <= DIST_AGREE_COMPACT_RANKS;
    if (agreed_valid)
        memcpy(agreed_prints, prints,
               (size_t)duo_dist_state.size * sizeof(uint64_t));
}

/* Every rank's word is its piece's fingerprint in the kept layout. */
static int kept_matches(void)
{
    if (!agreed_valid || kept_size != duo_dist_state.size)
        return 0;
    for (int r = 0; r < kept_size; ++r)
        if (agreed_prints[r] != kept_prints[r])
            return 0;
    return 1;
}

static duo_status check(const char *where, const dist_piece *all, int size)
{
    uint64_t next = 0;
    for (int r = 0; r < size; ++r) {
        const dist_piece *a = &all[r];
        if (a->n != all[0].n)
            return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                            "ranks disagree on the array's length: rank 0 "
                            "passed n = %llu, rank %d n = %llu",
                            (unsigned long long)all[0].n, r,
                            (unsigned long long)a->n);
        if (a->begin != next)
            return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                            "rank %d's piece begins at %llu but the pieces "
                            "before it end at %llu; pieces must follow each "
                            "other in rank order",
                            r, (unsigned long long)a->begin,
                            (unsigned long long)next);
        next = a->begin + a->count;
    }
    if (next != all[0].n)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "the pieces cover %llu of n = %llu elements",
                        (unsigned long long)next,
                        (unsigned long long)all[0].n);
    return DUO_SUCCESS;
}

/* Keep a checked layout for the next call (beyond the compact exchange's
 * ranks, none: no words would say it is the next call's). */
static void keep(const dist_piece *all, int size)
{
    kept_size = 0;
    if (size > DIST_AGREE_COMPACT_RANKS)
        return;
    memcpy(kept, all, (size_t)size * sizeof *kept);
    for (int r = 0; r < size; ++r)
        kept_prints[r] = print_of(&all[r]);
    kept_size = size;
}

duo_status dist_pieces(const char *where, const duo_dist_range *range,
                       dist_piece *all)
{
    const int size = duo_dist_state.size;
    if (kept_matches()) {
        agreed_valid = 0; /* one use per first exchange */
        memcpy(all, kept, (size_t)size * sizeof *all);
        return DUO_SUCCESS;
    }
    agreed_valid = 0;
    dist_piece mine;
    mine.n = range->n;
    mine.begin = range->begin;
    mine.count = range->count;
    duo_status st = dist_comm_allgather(where, &mine, sizeof mine, all);
    if (st == DUO_SUCCESS)
        st = check(where, all, size);
    if (st == DUO_SUCCESS)
        keep(all, size);
    return st;
}

void dist_pieces_release(void)
{
    kept_size = 0;
    agreed_valid = 0;
}
