/*
 * check_dir.h - reads a run folder written through <duo/check.h>
 * (manifest.txt and one .npy file per dump) into the dump_file of
 * dump.h, so that duo-compare compares such runs as it compares --dump
 * files.  The folder's format is described in include/duo/check.h.
 */
#ifndef DUO_TOOLS_CHECK_DIR_H
#define DUO_TOOLS_CHECK_DIR_H

#include "dump.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when `path` is a folder (then it is read with check_dir_read). */
int check_dir_is_folder(const char *path);

/* Read and validate the run in folder `dir` into *out: the manifest's
 * header and lines, each .npy file's header against its manifest line
 * (type, shape), its length, and the hash of its data.  Arrays are in
 * manifest order (the order of the dumps); app and args are empty.
 * 0 on success; -1 with "<file>: <what is wrong>" in err, *out empty. */
int check_dir_read(const char *dir, dump_file *out, char *err,
                   size_t errsize);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DUO_TOOLS_CHECK_DIR_H */
