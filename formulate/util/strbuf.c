/* strbuf.c: the growable string of strbuf.h (capacity doubles as it grows). */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pp_sb_init(pp_strbuf *sb)
{
    memset(sb, 0, sizeof *sb);
}

/* Make room for `extra` more bytes plus the terminating NUL. */
static int reserve(pp_strbuf *sb, size_t extra)
{
    if (sb->failed)
        return -1;
    if (extra > (size_t)-1 / 2 - sb->len) {
        sb->failed = true;
        return -1;
    }
    size_t need = sb->len + extra + 1;
    if (need <= sb->cap)
        return 0;
    size_t cap = sb->cap ? sb->cap : 256;
    while (cap < need)
        cap *= 2;
    char *data = realloc(sb->data, cap);
    if (!data) {
        sb->failed = true;
        return -1;
    }
    sb->data = data;
    sb->cap = cap;
    return 0;
}

int pp_sb_appendn(pp_strbuf *sb, const char *s, size_t n)
{
    if (reserve(sb, n))
        return -1;
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
    return 0;
}

int pp_sb_append(pp_strbuf *sb, const char *s)
{
    return pp_sb_appendn(sb, s, strlen(s));
}

int pp_sb_appendf(pp_strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        sb->failed = true;
        return -1;
    }
    if (reserve(sb, (size_t)n))
        return -1;
    va_start(ap, fmt);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
    return 0;
}

const char *pp_sb_str(const pp_strbuf *sb)
{
    return sb->data ? sb->data : "";
}

void pp_sb_free(pp_strbuf *sb)
{
    free(sb->data);
    pp_sb_init(sb);
}
