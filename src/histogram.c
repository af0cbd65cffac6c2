/*
 * histogram.c - duo_histogram: argument checks shared by every backend.
 */
#include <math.h>

#include "prim_check.h"
#include "profile.h"

static duo_status histogram_run(const char *where, duo_dtype type, size_t n,
                                const void *x, double lo, double hi,
                                size_t bins, uint64_t *counts,
                                duo_stream stream)
{
    if (type != DUO_F32 && type != DUO_F64 && type != DUO_I32)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "type = %d: histograms take DUO_F32, DUO_F64 or "
                        "DUO_I32 (values exact in double)", (int)type);
    if (!(lo < hi) || !isfinite(lo) || !isfinite(hi) || !isfinite(hi - lo))
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "lo = %g, hi = %g: expected finite lo < hi with hi "
                        "- lo finite", lo, hi);
    if (bins == 0)
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "bins = 0: expected at least one bin");
    const size_t size = duo_dtype_size(type);
    duo_status status = duo_prim_check_count(where, n, size);
    if (status == DUO_SUCCESS)
        status = duo_prim_check_count(where, bins, sizeof(uint64_t));
    if (status == DUO_SUCCESS)
        status = duo_prim_check_ptr(where, "x", x, n);
    if (status == DUO_SUCCESS)
        status = duo_prim_check_ptr(where, "counts", counts, bins);
    if (status == DUO_SUCCESS &&
        duo_prim_overlap(x, n * size, counts, bins * sizeof(uint64_t)))
        status = duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                          "x = %p and counts = %p overlap; pass arrays that "
                          "do not overlap", x, (void *)counts);
    if (status == DUO_SUCCESS)
        status = duo_prim_ready(where);
    if (status == DUO_SUCCESS)
        status = duo_capture_check_stream(where, stream);
    if (status != DUO_SUCCESS)
        return status;
    const double scale = (double)bins / (hi - lo);
    int region = duo_profile_open(where, DUO_REGION_KERNEL, stream);
    status = duo_be_histogram(type, n, x, lo, hi, scale, bins, counts,
                              stream);
    duo_profile_close(region, stream, (double)(n * size), 0.0);
    return status;
}

duo_status duo_histogram_async(duo_dtype type, size_t n, const void *x,
                               double lo, double hi, size_t bins,
                               uint64_t *counts, duo_stream stream)
{
    return histogram_run("duo_histogram_async", type, n, x, lo, hi, bins,
                         counts, stream);
}

duo_status duo_histogram(duo_dtype type, size_t n, const void *x, double lo,
                         double hi, size_t bins, uint64_t *counts)
{
    duo_status status = histogram_run("duo_histogram", type, n, x, lo, hi,
                                      bins, counts, NULL);
    return status == DUO_SUCCESS ? duo_be_stream_synchronize(NULL) : status;
}
