/*
 * text.h: small helpers for sentences written into fixed buffers.
 *
 * The explanations (a family's verdict, a counterfactual's effect, a
 * runner-up's "why") are short plain-text sentences built piece by piece.
 * pp_catf appends to a fixed buffer and truncates safely, so a caller can
 * append freely; pp_pct prints a fraction the way every report does.
 */
#ifndef PARPLAN_TEXT_H
#define PARPLAN_TEXT_H

#include <stddef.h>

#include "error.h" /* PP_PRINTF */

/* Append printf-formatted text to the NUL-terminated buf of cap bytes. */
void pp_catf(char *buf, size_t cap, const char *fmt, ...) PP_PRINTF(3, 4);

/* "6.1%" with one decimal, or two below 1 % (of |fraction|). */
void pp_pct(double fraction, char *buf, size_t cap);

/* ch in upper case, for ASCII letters. */
char pp_toupper_ascii(char ch);

#endif
