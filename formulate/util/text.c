/* text.c: sentence helpers (text.h). */
#include "text.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void pp_catf(char *buf, size_t cap, const char *fmt, ...)
{
    size_t n = strlen(buf);
    if (n + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, cap - n, fmt, ap);
    va_end(ap);
}

void pp_pct(double fraction, char *buf, size_t cap)
{
    double p = 100.0 * fabs(fraction);
    snprintf(buf, cap, p < 1.0 ? "%.2f%%" : "%.1f%%", p);
}

char pp_toupper_ascii(char ch)
{
    return ch >= 'a' && ch <= 'z' ? (char)(ch - 'a' + 'A') : ch;
}
