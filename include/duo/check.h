/*
 * duo/check.h - dump named arrays from your own program, so that two runs
 * (a serial or OpenMP build and a CUDA build, say) can be compared array
 * by array with duo-compare.
 *
 *     #include <duo/check.h>
 *
 *     for (int step = 0; step < steps; ++step) {
 *         DUO_LAUNCH(update, n)(n, u_dev, v_dev);
 *         size_t dims[2] = {ny, nx};
 *         DUO_CHECK(duo_check_device("u", DUO_F32, 2, dims, u_dev));
 *     }
 *
 *     DUO_CHECK_DIR=run-cpu ./app-serial
 *     DUO_CHECK_DIR=run-gpu ./app-cuda
 *     duo-compare run-gpu run-cpu --exact       # --png diff.png: a picture
 *
 * Where the files go: the folder named by duo_check_dir(), or else by the
 * environment variable DUO_CHECK_DIR.  With neither, every call here
 * returns DUO_SUCCESS at once and writes nothing, so the calls can stay
 * in a production code at the cost of one branch each.
 *
 * What a run writes: one NumPy .npy file per dump (format version 1.0,
 * C order, little-endian '<f4', '<f8', '<i4', '<i8' or '<u8'), readable
 * with numpy.load and without duo, and manifest.txt, a text file with one
 * line per dump in the order they were made:
 *
 *     duo-check 1
 *     backend=<duo_backend_name()>
 *     device=<the device's name>
 *     array <name> <file> <type> <dims, e.g. 512x512> <fnv1a-64 of the data, hex>
 *
 * The first dump of a process starts a new manifest (other files in the
 * folder are left alone but are not part of the run).  A name dumped
 * again -- the same array in every step of a loop -- is stored as
 * name@1, name@2, ..., so that two runs line up dump by dump.  Names are
 * 1 to 64 characters of letters, digits, '_', '-' and '.'.
 *
 * duo_check_device copies from device memory (duo_malloc) with
 * duo_memcpy, which waits for the work before it; duo_check_host writes
 * host memory as it is.  Both need duo_init on a CUDA build's GPU path;
 * on CPU builds device memory is host memory and either works.
 */
#ifndef DUO_CHECK_H
#define DUO_CHECK_H

#include <stddef.h>

#include <duo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The names of the functions are in parentheses: their calls are macros
 * that note the caller's file:line (duo/call_site.h). */

/* Dumps go to `dir` (created if missing, one level) from now on; NULL
 * goes back to DUO_CHECK_DIR.  Starts a new manifest at the next dump. */
duo_status (duo_check_dir)(const char *dir);

/* Dump `rank` (1..3) dims of `type`, row-major (dims[0] slowest), from
 * device memory.  A dimension may be 0. */
duo_status (duo_check_device)(const char *name, duo_dtype type, int rank,
                              const size_t *dims, const void *device_data);

/* The same from host memory. */
duo_status (duo_check_host)(const char *name, duo_dtype type, int rank,
                            const size_t *dims, const void *host_data);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DUO_CHECK_H */
