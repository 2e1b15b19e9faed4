/*
 * fileio.h: how parplan reads its inputs and writes its outputs (the report,
 * the JSON, the exported MIP), for every layer that touches a file.
 *
 * Outputs follow two promises of the contract.  A path that cannot be written
 * is found before any work is done (pp_output_check), so a long solve never
 * ends in "cannot write"; and a file is written whole or not at all
 * (pp_output_write): the text goes to "FILE.tmp.XXXXXX" in the same directory
 * and is renamed over FILE only once it is complete, so a reader never sees a
 * partial report and a failure leaves any previous FILE untouched.
 *
 * "-" names standard input or output.  Paths that are not regular files
 * (/dev/null, a FIFO) are written in place: renaming over them would be wrong.
 */
#ifndef PARPLAN_FILEIO_H
#define PARPLAN_FILEIO_H

#include <stdbool.h>
#include <stddef.h>

#include "types.h"

/* 0 if path ("-" = standard output) can be written: its directory exists and
 * accepts a new file, and it is not a directory.  Else PP_EINPUT with the path
 * and the reason.  Nothing is left behind. */
int pp_output_check(const char *path, pp_error *err);

/* Write len bytes of data to path ("-" = standard output), atomically for
 * regular files.  PP_EINTERNAL with the path and the reason on failure. */
int pp_output_write(const char *path, const char *data, size_t len, pp_error *err);

/* For writers that take a file name rather than bytes (GLPK's glp_write_lp
 * and glp_write_mps): pp_output_begin() puts in tmp the name to write, a
 * fresh "PATH.tmp.XXXXXX" beside path (path itself when it is not a regular
 * file), and pp_output_commit() renames it over path when ok, else removes
 * it.  Both PP_EINTERNAL with the path and the reason on failure. */
int pp_output_begin(const char *path, char *tmp, size_t cap, pp_error *err);
int pp_output_commit(const char *path, const char *tmp, bool ok, pp_error *err);

/* True if both paths name the same existing file (same device and inode). */
bool pp_same_file(const char *a, const char *b);

/* Read all of standard input into a NUL-terminated heap buffer (caller
 * frees); refuses more than 64 MiB. */
int pp_read_stdin(char **out, pp_error *err);

#endif
