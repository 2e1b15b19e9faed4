/* error.c: filling a pp_error (see error.h). */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

int pp_error_set(pp_error *err, int code, const char *path, const char *fmt, ...)
{
    if (err) {
        snprintf(err->path, sizeof err->path, "%s", path ? path : "");
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

void pp_error_clear(pp_error *err)
{
    if (err) {
        err->path[0] = '\0';
        err->msg[0] = '\0';
    }
}
