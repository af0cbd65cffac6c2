/*
 * dispatch/scan.c (CUDA build) - scans: the GPU's or the host's, as
 * duo_init chose (dispatch.h).
 */
#include "dispatch.h"

DUO_BE_FN(duo_status, scan,
          (duo_scan_kind kind, duo_reduce_op op, duo_dtype type,
           const void *x, void *y, size_t n, duo_stream stream),
          (kind, op, type, x, y, n, stream))
