/*
 * fileio.c: early write checks, atomic writes and standard input (fileio.h).
 *
 * Atomicity comes from rename(2): it replaces the target in one step, but only
 * within one file system, which is why the temporary file sits beside the
 * target rather than in /tmp.
 */
#include "fileio.h"

#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TMP_SUFFIX ".tmp.XXXXXX"
#define STDIN_MAX_BYTES (64L << 20)

static bool is_stdio(const char *path)
{
    return strcmp(path, "-") == 0;
}

/* Create "PATH.tmp.XXXXXX" (template written to tmp); returns the open fd or
 * -1 with errno set. */
static int make_temp(const char *path, char *tmp, size_t cap)
{
    if (snprintf(tmp, cap, "%s%s", path, TMP_SUFFIX) >= (int)cap) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return mkstemp(tmp);
}

/* An existing path that is not a regular file (/dev/null, a FIFO) is written
 * in place; *exists tells whether it exists at all. */
static bool written_in_place(const char *path, struct stat *st, bool *exists)
{
    *exists = stat(path, st) == 0;
    return *exists && !S_ISREG(st->st_mode);
}

int pp_output_check(const char *path, pp_error *err)
{
    if (is_stdio(path))
        return PP_OK;
    if (!*path)
        return pp_error_set(err, PP_EINPUT, "", "expected an output file name, found an empty string");
    struct stat st;
    bool exists;
    if (written_in_place(path, &st, &exists)) {
        if (S_ISDIR(st.st_mode))
            return pp_error_set(err, PP_EINPUT, path, "cannot write the output: it is a directory");
        return access(path, W_OK) == 0 ? PP_OK
                                       : pp_error_set(err, PP_EINPUT, path, "cannot write the output: %s",
                                                      strerror(errno));
    }
    if (exists && access(path, W_OK) != 0)
        return pp_error_set(err, PP_EINPUT, path, "cannot write the output: %s", strerror(errno));
    char tmp[4096];
    int fd = make_temp(path, tmp, sizeof tmp);
    if (fd < 0)
        return pp_error_set(err, PP_EINPUT, path, "cannot write the output: %s", strerror(errno));
    close(fd);
    unlink(tmp);
    return PP_OK;
}

static int write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

static int write_stream(FILE *f, const char *path, const char *data, size_t len, pp_error *err)
{
    if (fwrite(data, 1, len, f) != len || fflush(f) != 0)
        return pp_error_set(err, PP_EINTERNAL, path, "cannot write the output: %s", strerror(errno));
    return PP_OK;
}

static int write_in_place(const char *path, const char *data, size_t len, pp_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return pp_error_set(err, PP_EINTERNAL, path, "cannot write the output: %s", strerror(errno));
    int rc = write_stream(f, path, data, len, err);
    if (fclose(f) != 0 && rc == PP_OK)
        rc = pp_error_set(err, PP_EINTERNAL, path, "cannot write the output: %s", strerror(errno));
    return rc;
}

/* The mode a new file gets from open(2) under the current umask, or the mode
 * of the file being replaced. */
static mode_t target_mode(bool exists, const struct stat *st)
{
    if (exists)
        return st->st_mode & 07777;
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

static int write_atomic(const char *path, const char *data, size_t len, mode_t mode, pp_error *err)
{
    char tmp[4096];
    int fd = make_temp(path, tmp, sizeof tmp);
    if (fd < 0)
        return pp_error_set(err, PP_EINTERNAL, path, "cannot write the output: %s", strerror(errno));
    bool ok = write_all(fd, data, len) == 0 && fchmod(fd, mode) == 0 && fsync(fd) == 0;
    int saved = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        unlink(tmp);
        return pp_error_set(err, PP_EINTERNAL, path, "cannot write the output: %s", strerror(saved));
    }
    return PP_OK;
}

int pp_output_write(const char *path, const char *data, size_t len, pp_error *err)
{
    if (is_stdio(path))
        return write_stream(stdout, "standard output", data, len, err);
    struct stat st;
    bool exists;
    if (written_in_place(path, &st, &exists))
        return write_in_place(path, data, len, err);
    return write_atomic(path, data, len, target_mode(exists, &st), err);
}

int pp_output_begin(const char *path, char *tmp, size_t cap, pp_error *err)
{
    struct stat st;
    bool exists;
    if (written_in_place(path, &st, &exists)) {
        if (snprintf(tmp, cap, "%s", path) >= (int)cap)
            return pp_error_set(err, PP_EINTERNAL, path, "cannot write the output: %s", strerror(ENAMETOOLONG));
        return PP_OK;
    }
    int fd = make_temp(path, tmp, cap);
    if (fd < 0)
        return pp_error_set(err, PP_EINTERNAL, path, "cannot write the output: %s", strerror(errno));
    bool ok = fchmod(fd, target_mode(exists, &st)) == 0;
    int saved = errno;
    close(fd);
    if (!ok) {
        unlink(tmp);
        return pp_error_set(err, PP_EINTERNAL, path, "cannot write the output: %s", strerror(saved));
    }
    return PP_OK;
}

int pp_output_commit(const char *path, const char *tmp, bool ok, pp_error *err)
{
    if (strcmp(path, tmp) == 0) /* written in place */
        return PP_OK;
    if (ok && rename(tmp, path) == 0)
        return PP_OK;
    int saved = errno;
    unlink(tmp);
    return ok ? pp_error_set(err, PP_EINTERNAL, path, "cannot write the output: %s", strerror(saved)) : PP_OK;
}

bool pp_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (is_stdio(a) || is_stdio(b) || stat(a, &sa) != 0 || stat(b, &sb) != 0)
        return false;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Double buf's capacity; frees it and returns NULL when memory runs out. */
static char *grow(char *buf, size_t *cap)
{
    char *grown = realloc(buf, *cap * 2);
    if (!grown)
        free(buf);
    else
        *cap *= 2;
    return grown;
}

int pp_read_stdin(char **out, pp_error *err)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (len + 1 == cap) {
            if (cap > (size_t)STDIN_MAX_BYTES) {
                free(buf);
                return pp_error_set(err, PP_EINPUT, "standard input", "expected at most 64 MiB of input");
            }
            if (!(buf = grow(buf, &cap)))
                break;
        }
        size_t n = fread(buf + len, 1, cap - 1 - len, stdin);
        len += n;
        if (n == 0)
            break;
    }
    if (!buf)
        return pp_error_set(err, PP_EINTERNAL, "standard input", "out of memory");
    if (ferror(stdin)) {
        free(buf);
        return pp_error_set(err, PP_EINPUT, "standard input", "cannot read: %s", strerror(errno));
    }
    buf[len] = '\0';
    *out = buf;
    return PP_OK;
}
