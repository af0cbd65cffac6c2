/*
 * test_dist_abort.c - the last rank passes a bad argument (x NULL with
 * elements to reduce) to a collective call while the other ranks make
 * the right call and wait for it.  The default error mode must end every
 * rank with the bad rank's message; if the call returns instead, this
 * prints FAIL and exits 0, which test_dist_abort.sh counts as a failure.
 */
#include <stdio.h>

#include <duo/dist.h>

int main(int argc, char **argv)
{
    DUO_DIST_CHECK(duo_dist_init(&argc, &argv));
    const int rank = duo_dist_rank(), size = duo_dist_size();
    duo_dist_range r;
    DUO_DIST_CHECK(duo_dist_block_1d(1000, size, rank, &r));
    double *x = NULL;
    DUO_DIST_CHECK(duo_malloc((void **)&x, r.count * sizeof(double) + 8));
    DUO_DIST_CHECK(duo_memset(x, 0, r.count * sizeof(double) + 8));
    double sum = 0.0;
    duo_status st = duo_dist_reduce(DUO_SUM, DUO_F64,
                                    rank == size - 1 ? NULL : x, &r, &sum);
    printf("FAIL: rank %d: duo_dist_reduce returned %d instead of ending "
           "every rank\n", rank, (int)st);
    duo_free(x);
    duo_dist_finalize();
    return 0;
}
