/*
 * error.h: the one way parplan reports a failure.
 *
 * A function that can fail takes a pp_error* as its last argument, fills it
 * with pp_error_set() and returns a PP_E* code (types.h).  The message names
 * the JSON path, what was expected and what was found; main() prints it as
 * "parplan: PATH: MESSAGE" and exits with the code.
 */
#ifndef PARPLAN_ERROR_H
#define PARPLAN_ERROR_H

#include "types.h"

#if defined(__GNUC__)
#define PP_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PP_PRINTF(a, b)
#endif

/* Fill err (if not NULL) and return code.  path may be NULL or "". */
int pp_error_set(pp_error *err, int code, const char *path, const char *fmt, ...) PP_PRINTF(4, 5);
void pp_error_clear(pp_error *err);

#endif
