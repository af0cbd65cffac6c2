/*
 * duo/version.h - the version of the duo headers (DUO_VERSION_*) and of
 * the library a program runs with (duo_version()).  Included by duo.h.
 *
 * The numbers here are the project's version: CMake reads them from this
 * file (src/cmake/DuoVersion.cmake), so the installed package, its
 * pkg-config files and the library agree by construction.
 */
#ifndef DUO_VERSION_H
#define DUO_VERSION_H

#define DUO_VERSION_MAJOR 0
#define DUO_VERSION_MINOR 1
#define DUO_VERSION_PATCH 0

/* One number that compares in order: 10000 * major + 100 * minor + patch. */
#define DUO_VERSION                                                        \
    (10000 * DUO_VERSION_MAJOR + 100 * DUO_VERSION_MINOR + DUO_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/* "MAJOR.MINOR.PATCH" of the library linked in, e.g. "0.1.0"; compare it
 * with the DUO_VERSION_* macros of the headers compiled against.  Needs
 * no duo_init(). */
const char *duo_version(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DUO_VERSION_H */
