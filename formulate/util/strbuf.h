/*
 * strbuf.h: a growable string, the one buffer every report is rendered into.
 *
 * Reports are built whole in memory and only then written (atomically) by the
 * caller, so a failure half-way never leaves half a file.  Running out of
 * memory is sticky: after the first failed append every later append is a
 * no-op and `failed` stays set, so a renderer appends freely and checks once
 * at the end.
 */
#ifndef PARPLAN_STRBUF_H
#define PARPLAN_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

typedef struct pp_strbuf {
    char *data; /* NUL-terminated once anything was appended; NULL before */
    size_t len;
    size_t cap;
    bool failed; /* an allocation failed; the contents are incomplete */
} pp_strbuf;

void pp_sb_init(pp_strbuf *sb);
/* Each returns 0, or -1 (and sets failed) when memory ran out. */
int pp_sb_appendn(pp_strbuf *sb, const char *s, size_t n);
int pp_sb_append(pp_strbuf *sb, const char *s);
int pp_sb_appendf(pp_strbuf *sb, const char *fmt, ...) PP_PRINTF(2, 3);
/* The text so far ("" when empty); valid until the next append. */
const char *pp_sb_str(const pp_strbuf *sb);
void pp_sb_free(pp_strbuf *sb);

#endif
