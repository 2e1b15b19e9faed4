/*
 * json_util.c: strict reading of JSON documents (see json_util.h).
 *
 * The checks here are the only place where parplan looks at raw JSON types,
 * so every loader rejects the same things in the same words.  Reading a file
 * (pp_read_file) lives here too: it is the first step of every document.
 */
#include "json_util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- locations and errors --------------------------------------------- */

pp_jpath pp_jpath_root(const char *origin)
{
    pp_jpath at;
    at.origin = origin ? origin : "input";
    snprintf(at.path, sizeof at.path, "$");
    return at;
}

static bool is_identifier(const char *key)
{
    if (!key[0] || !(key[0] == '_' || (key[0] >= 'a' && key[0] <= 'z') || (key[0] >= 'A' && key[0] <= 'Z')))
        return false;
    for (const char *p = key; *p; p++)
        if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            return false;
    return strlen(key) <= 48;
}

/* Append text to a path buffer, keeping it NUL-terminated if it overflows. */
static void path_append(char *path, size_t cap, const char *text)
{
    size_t used = strlen(path);
    if (used + 1 < cap)
        snprintf(path + used, cap - used, "%s", text);
}

pp_jpath pp_jpath_key(const pp_jpath *parent, const char *key)
{
    pp_jpath at = *parent;
    char piece[80];
    if (is_identifier(key)) {
        snprintf(piece, sizeof piece, ".%s", key);
    } else {
        char quoted[64];
        pp_json_quote(key, quoted, sizeof quoted);
        snprintf(piece, sizeof piece, "[%s]", quoted);
    }
    path_append(at.path, sizeof at.path, piece);
    return at;
}

pp_jpath pp_jpath_index(const pp_jpath *parent, int index)
{
    pp_jpath at = *parent;
    char piece[24];
    snprintf(piece, sizeof piece, "[%d]", index);
    path_append(at.path, sizeof at.path, piece);
    return at;
}

/* "ORIGIN<sep>REST" into dst; a long origin loses its head, not its file
 * name: ".../config.json: $.x". */
static void put_location(char *dst, size_t cap, const char *origin, const char *sep, const char *rest)
{
    size_t fixed = strlen(sep) + strlen(rest) + 4, len = strlen(origin);
    bool whole = len + fixed <= cap || cap < fixed + 8;
    int n = snprintf(dst, cap, "%s%s%s%s", whole ? "" : "...", whole ? origin : origin + len - (cap - fixed), sep,
                     rest);
    if (n < 0 && cap > 0)
        dst[0] = '\0'; /* a cut location is still a location: snprintf ends it */
}

int pp_json_fail(pp_error *err, const pp_jpath *at, const char *fmt, ...)
{
    if (err) {
        put_location(err->path, sizeof err->path, at->origin, ": ", at->path);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return PP_EINPUT;
}

void pp_json_quote(const char *word, char *buf, size_t cap)
{
    size_t n = 0;
    if (!word)
        word = "";
    if (cap < 8) {
        if (cap)
            buf[0] = '\0';
        return;
    }
    buf[n++] = '\'';
    for (const unsigned char *p = (const unsigned char *)word; *p; p++) {
        if (n + 8 >= cap || p - (const unsigned char *)word >= 48) {
            while (n > 1 && (buf[n - 1] & 0xC0) == 0x80) /* do not split a UTF-8 character */
                n--;
            if (n > 1 && ((unsigned char)buf[n - 1] & 0xC0) == 0xC0)
                n--;
            memcpy(buf + n, "...", 3);
            n += 3;
            break;
        }
        if (*p < 0x20 || *p == 0x7f || *p == '\'' || *p == '\\')
            n += (size_t)snprintf(buf + n, cap - n, "\\x%02x", *p);
        else
            buf[n++] = (char)*p;
    }
    buf[n++] = '\'';
    buf[n] = '\0';
}

void pp_json_describe(const cJSON *item, char *buf, size_t cap)
{
    if (!item) {
        snprintf(buf, cap, "nothing");
    } else if (cJSON_IsNumber(item)) {
        if (isfinite(item->valuedouble))
            snprintf(buf, cap, "the number %.15g", item->valuedouble);
        else
            snprintf(buf, cap, "a number too large to represent");
    } else if (cJSON_IsString(item)) {
        char quoted[64];
        pp_json_quote(item->valuestring, quoted, sizeof quoted);
        snprintf(buf, cap, "the string %s", quoted);
    } else if (cJSON_IsTrue(item)) {
        snprintf(buf, cap, "true");
    } else if (cJSON_IsFalse(item)) {
        snprintf(buf, cap, "false");
    } else if (cJSON_IsNull(item)) {
        snprintf(buf, cap, "null");
    } else if (cJSON_IsArray(item)) {
        snprintf(buf, cap, "an array");
    } else if (cJSON_IsObject(item)) {
        snprintf(buf, cap, "an object");
    } else {
        snprintf(buf, cap, "an unknown value");
    }
}

/* Report that item is not what was expected: "expected WHAT, found Y". */
int pp_json_fail_expected(pp_error *err, const pp_jpath *at, const char *what, const cJSON *item)
{
    char found[96];
    pp_json_describe(item, found, sizeof found);
    return pp_json_fail(err, at, "expected %s, found %s", what, found);
}

/* ---- reading files ------------------------------------------------------ */

/* Read stream f to the end into a growing buffer, at most PP_JSON_MAX_BYTES. */
static int read_stream(FILE *f, const char *path, char **out, size_t *len, pp_error *err)
{
    size_t cap = 1 << 16, used = 0;
    char *buf = malloc(cap);
    if (!buf)
        return pp_error_set(err, PP_EINTERNAL, path, "out of memory reading the file");
    for (;;) {
        if (used + 1 >= cap) {
            char *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                return pp_error_set(err, PP_EINTERNAL, path, "out of memory reading the file");
            }
            buf = grown;
            cap *= 2;
        }
        errno = 0;
        size_t got = fread(buf + used, 1, cap - used - 1, f);
        used += got;
        if (used > (size_t)PP_JSON_MAX_BYTES)
            break;
        if (got == 0) {
            if (ferror(f)) {
                int e = errno;
                free(buf);
                return pp_error_set(err, PP_EINPUT, path, "cannot read the file: %s", strerror(e ? e : EIO));
            }
            break;
        }
    }
    if (used > (size_t)PP_JSON_MAX_BYTES) {
        free(buf);
        return pp_error_set(err, PP_EINPUT, path, "expected a file of at most 64 MiB, found a larger one");
    }
    buf[used] = '\0';
    *out = buf;
    if (len)
        *len = used;
    return PP_OK;
}

int pp_read_file(const char *path, char **out, size_t *len, pp_error *err)
{
    *out = NULL;
    if (len)
        *len = 0;
    if (!path || !path[0])
        return pp_error_set(err, PP_EINPUT, "", "expected a file name, found an empty one");
    bool from_stdin = strcmp(path, "-") == 0;
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    if (!f)
        return pp_error_set(err, PP_EINPUT, path, "cannot open the file: %s", strerror(errno));
    int rc = read_stream(f, path, out, len, err);
    if (!from_stdin)
        fclose(f);
    return rc;
}

/* ---- parsing documents -------------------------------------------------- */

/* Line and column (both from 1) of byte offset off in text. */
static void line_column(const char *text, size_t off, long *line, long *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off && text[i]; i++) {
        if (text[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

static int fail_at_offset(pp_error *err, const char *origin, const char *text, size_t off, const char *fmt,
                          const char *detail)
{
    long line, col;
    line_column(text, off, &line, &col);
    char where[256], line_col[48];
    snprintf(line_col, sizeof line_col, "%ld:%ld", line, col);
    put_location(where, sizeof where, origin, ":", line_col);
    char msg[512];
    snprintf(msg, sizeof msg, fmt, detail);
    return pp_error_set(err, PP_EINPUT, where, "%s (line %ld, column %ld, byte offset %zu)", msg, line, col, off);
}

/* Where a document is too big to hand to cJSON: the offset of the first
 * bracket that opens level PP_JSON_MAX_DEPTH + 1 (*too_deep) or of the
 * separator that starts value PP_JSON_MAX_VALUES + 1 (*too_many), each -1 if
 * none.  Brackets and commas inside strings do not count. */
static void scan_structure(const char *text, long *too_deep, long *too_many)
{
    int depth = 0;
    long values = 1;
    bool in_string = false;
    *too_deep = *too_many = -1;
    for (const char *p = text; *p; p++) {
        if (in_string) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == '"')
                in_string = false;
        } else if (*p == '"') {
            in_string = true;
        } else if (*p == '[' || *p == '{' || *p == ',') {
            if (*p != ',' && ++depth > PP_JSON_MAX_DEPTH) {
                *too_deep = (long)(p - text);
                return;
            }
            if (++values > PP_JSON_MAX_VALUES) {
                *too_many = (long)(p - text);
                return;
            }
        } else if (*p == ']' || *p == '}') {
            depth--;
        }
    }
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Length of the JSON number at s (-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?),
 * 0 if none starts there. */
static size_t json_number_length(const char *s)
{
    const char *p = s;
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (is_digit(*p))
            p++;
    else
        return 0;
    if (*p == '.') {
        if (!is_digit(*++p))
            return 0;
        while (is_digit(*p))
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!is_digit(*p))
            return 0;
        while (is_digit(*p))
            p++;
    }
    return (size_t)(p - s);
}

/* cJSON accepts a few things JSON does not: numbers such as 0096, 1. or 1e
 * (it reads them with strtod), control characters between tokens (it skips
 * every byte up to 0x20) or raw inside strings, and \u0000, which would cut
 * a string short.  The offset of the first one in a text cJSON parsed, or
 * -1; *what says what it is. */
static long lenient_offset(const char *text, const char **what)
{
    bool in_string = false;
    for (const char *p = text; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (in_string) {
            if (c < 0x20) {
                *what = "a raw control character inside a string (write it as an escape such as \\n)";
                return (long)(p - text);
            }
            if (c == '\\' && strncmp(p + 1, "u0000", 5) == 0) {
                *what = "\\u0000 (a NUL character) inside a string";
                return (long)(p - text);
            }
            if (c == '\\' && p[1])
                p++;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
            *what = "a control character between tokens";
            return (long)(p - text);
        } else if (c == '-' || is_digit((char)c)) {
            size_t span = strspn(p, "0123456789+-.eE");
            if (json_number_length(p) != span) {
                *what = "a number JSON does not allow (a leading zero, or a '.' or an exponent without digits)";
                return (long)(p - text);
            }
            p += span - 1;
        }
    }
    return -1;
}

static const char *skip_space(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* Up to max bytes of text on the line of `at`, before it (before) or from
 * it on (after), quoted. */
static void line_excerpt(const char *text, const char *at, bool before, size_t max, char *out, size_t cap)
{
    char piece[40];
    size_t n = 0;
    if (before) {
        const char *p = at;
        while (p > text && p[-1] != '\n' && (size_t)(at - p) < max)
            p--;
        n = (size_t)(at - p);
        memcpy(piece, p, n);
    } else {
        for (const char *p = at; *p && *p != '\n' && n < max; p++)
            piece[n++] = *p;
    }
    piece[n] = '\0';
    pp_json_quote(piece, out, cap);
}

static int fail_syntax(pp_error *err, const char *origin, const char *text, const char *at)
{
    size_t off = (size_t)(at - text);
    if (!*skip_space(at))
        return fail_at_offset(err, origin, text, off, "malformed JSON: expected more text, found the end%s",
                              " (is the document truncated?)");
    char after[64], before[64], detail[160];
    line_excerpt(text, at, false, 16, after, sizeof after);
    line_excerpt(text, at, true, 16, before, sizeof before);
    snprintf(detail, sizeof detail, "%s (after %s)", after, before);
    return fail_at_offset(err, origin, text, off, "malformed JSON: expected a valid JSON token, found %s", detail);
}

/* Parse text as one JSON document whose top level is an object (array
 * false) or an array (array true); see pp_json_parse_object. */
static int parse_document(const char *text, const char *origin, bool array, cJSON **out, pp_error *err)
{
    const char *kind = array ? "array" : "object";
    *out = NULL;
    origin = origin ? origin : "input";
    const char *start = text;
    if ((unsigned char)start[0] == 0xEF && (unsigned char)start[1] == 0xBB && (unsigned char)start[2] == 0xBF)
        start += 3;
    if (!*skip_space(start)) {
        pp_jpath root = pp_jpath_root(origin);
        return pp_json_fail(err, &root, "expected a JSON %s, found an empty document", kind);
    }
    long deep, many;
    scan_structure(start, &deep, &many);
    if (deep >= 0) {
        char limit[32];
        snprintf(limit, sizeof limit, "%d", PP_JSON_MAX_DEPTH);
        return fail_at_offset(err, origin, text, (size_t)(start - text) + (size_t)deep,
                              "expected JSON nested at most %s levels deep, found deeper nesting", limit);
    }
    if (many >= 0) {
        char limit[32];
        snprintf(limit, sizeof limit, "%ld", PP_JSON_MAX_VALUES);
        return fail_at_offset(err, origin, text, (size_t)(start - text) + (size_t)many,
                              "expected a document of at most %s JSON values, found more", limit);
    }
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithOpts(start, &end, 1);
    if (!doc)
        return fail_syntax(err, origin, text, end ? end : start);
    const char *what = NULL;
    long lenient = lenient_offset(start, &what);
    if (lenient >= 0) {
        cJSON_Delete(doc);
        char found[64], detail[320];
        line_excerpt(text, start + lenient, false, 16, found, sizeof found);
        snprintf(detail, sizeof detail, "%s: %s", what, found);
        return fail_at_offset(err, origin, text, (size_t)(start - text) + (size_t)lenient,
                              "malformed JSON: expected valid JSON, found %s", detail);
    }
    if (array ? !cJSON_IsArray(doc) : !cJSON_IsObject(doc)) {
        pp_jpath root = pp_jpath_root(origin);
        int rc = pp_json_fail_expected(err, &root, array ? "a JSON array at the top level" : "a JSON object at the top level",
                                       doc);
        cJSON_Delete(doc);
        return rc;
    }
    *out = doc;
    return PP_OK;
}

int pp_json_parse_object(const char *text, const char *origin, cJSON **out, pp_error *err)
{
    return parse_document(text, origin, false, out, err);
}

int pp_json_parse_array(const char *text, const char *origin, cJSON **out, pp_error *err)
{
    return parse_document(text, origin, true, out, err);
}

int pp_json_read_text(const char *path, char **text, pp_error *err)
{
    size_t len = 0;
    int rc = pp_read_file(path, text, &len, err);
    if (rc)
        return rc;
    size_t text_len = strlen(*text);
    if (text_len != len) {
        rc = fail_at_offset(err, path, *text, text_len, "expected JSON text, found %s", "a NUL byte (binary file?)");
        free(*text);
        *text = NULL;
    }
    return rc;
}

int pp_json_load_object(const char *path, cJSON **out, pp_error *err)
{
    *out = NULL;
    char *text = NULL;
    int rc = pp_json_read_text(path, &text, err);
    if (!rc)
        rc = pp_json_parse_object(text, path, out, err);
    free(text);
    return rc;
}

/* ---- shapes ------------------------------------------------------------- */

const cJSON *pp_json_member(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

int pp_json_expect_object(const cJSON *item, const pp_jpath *at, pp_error *err)
{
    return cJSON_IsObject(item) ? PP_OK : pp_json_fail_expected(err, at, "an object", item);
}

int pp_json_expect_array(const cJSON *item, const pp_jpath *at, pp_error *err)
{
    return cJSON_IsArray(item) ? PP_OK : pp_json_fail_expected(err, at, "a list", item);
}

static bool in_list(const char *key, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(key, *list) == 0)
            return true;
    return false;
}

static int list_length(const char *const *list)
{
    int n = 0;
    while (list[n])
        n++;
    return n;
}

static int fail_unknown_key(const char *key, const pp_jpath *at, const char *const *allowed, pp_error *err)
{
    pp_jpath here = pp_jpath_key(at, key);
    char quoted[64];
    pp_json_quote(key, quoted, sizeof quoted);
    int n = list_length(allowed);
    const char *near = pp_nearest_name(key, pp_string_array_at, allowed, n);
    if (near)
        return pp_json_fail(err, &here, "unknown key %s; did you mean '%s'?", quoted, near);
    char names[512];
    pp_name_list(pp_string_array_at, allowed, n, names, sizeof names);
    return pp_json_fail(err, &here, "unknown key %s: expected one of %s", quoted, names);
}

static int fail_duplicate_key(const char *key, const pp_jpath *at, pp_error *err)
{
    pp_jpath here = pp_jpath_key(at, key);
    char quoted[64];
    pp_json_quote(key, quoted, sizeof quoted);
    return pp_json_fail(err, &here, "expected each key once, found key %s twice", quoted);
}

/* Does a sibling before child carry the same key? */
static bool seen_before(const cJSON *obj, const cJSON *child)
{
    for (const cJSON *c = obj->child; c && c != child; c = c->next)
        if (c->string && child->string && strcmp(c->string, child->string) == 0)
            return true;
    return false;
}

int pp_json_check_source(const cJSON *obj, const pp_jpath *at, pp_error *err)
{
    const cJSON *src = pp_json_member(obj, "source");
    pp_jpath here = pp_jpath_key(at, "source");
    if (!src)
        return pp_json_missing(at, "source", err);
    if (!cJSON_IsString(src) && !cJSON_IsObject(src))
        return pp_json_fail_expected(err, &here, "a citation (a string or an object)", src);
    return PP_OK;
}

int pp_json_check_keys(const cJSON *obj, const pp_jpath *at, const char *const *allowed, pp_error *err)
{
    /* The duplicate scan is quadratic only in the keys accepted so far, which
     * are at most the allowed ones. */
    for (const cJSON *c = obj->child; c; c = c->next) {
        const char *key = c->string ? c->string : "";
        if (!in_list(key, allowed))
            return fail_unknown_key(key, at, allowed, err);
        if (seen_before(obj, c))
            return fail_duplicate_key(key, at, err);
    }
    return PP_OK;
}

int pp_json_check_unique(const cJSON *obj, const pp_jpath *at, const char *const *keys, pp_error *err)
{
    for (; *keys; keys++) {
        int count = 0;
        for (const cJSON *c = obj->child; c; c = c->next)
            if (c->string && strcmp(c->string, *keys) == 0 && ++count > 1)
                return fail_duplicate_key(*keys, at, err);
    }
    return PP_OK;
}

/* ---- values -------------------------------------------------------------- */

static void describe_int_range(long lo, long hi, char *buf, size_t cap)
{
    if (hi == LONG_MAX || hi == INT_MAX)
        snprintf(buf, cap, "an integer >= %ld", lo);
    else
        snprintf(buf, cap, "an integer in %ld..%ld", lo, hi);
}

int pp_json_as_long(const cJSON *item, const pp_jpath *at, long lo, long hi, long *out, pp_error *err)
{
    char what[96];
    describe_int_range(lo, hi, what, sizeof what);
    if (!cJSON_IsNumber(item))
        return pp_json_fail_expected(err, at, what, item);
    double v = item->valuedouble;
    /* 9.2e18 keeps the cast below defined whatever lo and hi are. */
    if (!isfinite(v) || v != floor(v) || fabs(v) >= 9.2e18 || v < (double)lo || v > (double)hi)
        return pp_json_fail_expected(err, at, what, item);
    *out = (long)v;
    return PP_OK;
}

int pp_json_as_int(const cJSON *item, const pp_jpath *at, int lo, int hi, int *out, pp_error *err)
{
    long v = 0;
    int rc = pp_json_as_long(item, at, lo, hi, &v, err);
    if (rc == PP_OK)
        *out = (int)v;
    return rc;
}

int pp_json_as_double(const cJSON *item, const pp_jpath *at, double lo, double hi, double *out, pp_error *err)
{
    char what[96];
    snprintf(what, sizeof what, "a number in %g..%g", lo, hi);
    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble) || item->valuedouble < lo || item->valuedouble > hi)
        return pp_json_fail_expected(err, at, what, item);
    *out = item->valuedouble;
    return PP_OK;
}

int pp_json_as_positive(const cJSON *item, const pp_jpath *at, double hi, double *out, pp_error *err)
{
    char what[96];
    snprintf(what, sizeof what, "a positive number at most %g", hi);
    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble) || item->valuedouble <= 0 || item->valuedouble > hi)
        return pp_json_fail_expected(err, at, what, item);
    *out = item->valuedouble;
    return PP_OK;
}

int pp_json_as_bool(const cJSON *item, const pp_jpath *at, bool *out, pp_error *err)
{
    if (!cJSON_IsBool(item))
        return pp_json_fail_expected(err, at, "true or false", item);
    *out = cJSON_IsTrue(item);
    return PP_OK;
}

int pp_json_as_string(const cJSON *item, const pp_jpath *at, char *out, size_t cap, pp_error *err)
{
    if (!cJSON_IsString(item) || !item->valuestring)
        return pp_json_fail_expected(err, at, "a string", item);
    size_t len = strlen(item->valuestring);
    if (len + 1 > cap)
        return pp_json_fail(err, at, "expected a string of at most %zu characters, found one of %zu", cap - 1, len);
    memcpy(out, item->valuestring, len + 1);
    return PP_OK;
}

/* The comma-separated words of s, spaces around each trimmed, into w (at
 * most cap of them, each shorter than 32 characters); -1 if there are more
 * or one is longer. */
static int set_words(const char *s, char w[][32], int cap)
{
    int n = 0;
    while (*s) {
        while (*s == ' ')
            s++;
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        while (len > 0 && s[len - 1] == ' ')
            len--;
        if (n == cap || len >= 32)
            return -1;
        memcpy(w[n], s, len);
        w[n++][len] = '\0';
        if (!end)
            break;
        s = end + 1;
    }
    return n;
}

/* Whether every word of a is one of b's. */
static bool words_within(char a[][32], int na, char b[][32], int nb)
{
    for (int i = 0; i < na; i++) {
        bool found = false;
        for (int j = 0; j < nb && !found; j++)
            found = strcasecmp(a[i], b[j]) == 0;
        if (!found)
            return false;
    }
    return true;
}

/* Whether a and b name the same set of words joined by commas, in any
 * order and case (a set-valued enum such as recompute_modules:
 * "moe,layernorm" is "layernorm,moe"). */
static bool same_word_set(const char *a, const char *b)
{
    char wa[8][32], wb[8][32];
    int na = set_words(a, wa, 8), nb = set_words(b, wb, 8);
    if (na < 0 || na != nb)
        return false;
    return words_within(wa, na, wb, nb) && words_within(wb, nb, wa, na);
}

int pp_json_as_enum(const cJSON *item, const pp_jpath *at, const char *const *names, int n, int *out, pp_error *err)
{
    char choices[512];
    pp_name_list(pp_string_array_at, names, n, choices, sizeof choices);
    char what[560];
    snprintf(what, sizeof what, "one of %s", choices);
    if (!cJSON_IsString(item) || !item->valuestring)
        return pp_json_fail_expected(err, at, what, item);
    for (int i = 0; i < n; i++)
        if (strcmp(item->valuestring, names[i]) == 0) {
            *out = i;
            return PP_OK;
        }
    /* the names are lower case; "BF16" and "Full" are what people write */
    for (int i = 0; i < n; i++)
        if (strcasecmp(item->valuestring, names[i]) == 0) {
            *out = i;
            return PP_OK;
        }
    if (strchr(item->valuestring, ','))
        for (int i = 0; i < n; i++)
            if (strchr(names[i], ',') && same_word_set(item->valuestring, names[i])) {
                *out = i;
                return PP_OK;
            }
    char quoted[64], hint[96];
    pp_json_quote(item->valuestring, quoted, sizeof quoted);
    pp_did_you_mean(item->valuestring, pp_string_array_at, names, n, hint, sizeof hint);
    return pp_json_fail(err, at, "expected %s, found %s%s", what, quoted, hint);
}

/* ---- members ---------------------------------------------------------------- */

int pp_json_missing(const pp_jpath *at, const char *key, pp_error *err)
{
    char quoted[64];
    pp_json_quote(key, quoted, sizeof quoted);
    return pp_json_fail(err, at, "missing required key %s", quoted);
}

/* Look key up; *item is NULL when it is absent and optional. */
static int find_member(const cJSON *obj, const pp_jpath *at, const char *key, pp_presence need,
                       const cJSON **item, pp_jpath *here, pp_error *err)
{
    *item = pp_json_member(obj, key);
    *here = pp_jpath_key(at, key);
    if (!*item && need == PP_REQUIRED)
        return pp_json_missing(at, key, err);
    return PP_OK;
}

int pp_json_long(const cJSON *obj, const pp_jpath *at, const char *key, pp_presence need, long lo, long hi,
                 long *out, pp_error *err)
{
    const cJSON *item;
    pp_jpath here;
    int rc = find_member(obj, at, key, need, &item, &here, err);
    return (rc || !item) ? rc : pp_json_as_long(item, &here, lo, hi, out, err);
}

int pp_json_int(const cJSON *obj, const pp_jpath *at, const char *key, pp_presence need, int lo, int hi, int *out,
                pp_error *err)
{
    const cJSON *item;
    pp_jpath here;
    int rc = find_member(obj, at, key, need, &item, &here, err);
    return (rc || !item) ? rc : pp_json_as_int(item, &here, lo, hi, out, err);
}

int pp_json_double(const cJSON *obj, const pp_jpath *at, const char *key, pp_presence need, double lo, double hi,
                   double *out, pp_error *err)
{
    const cJSON *item;
    pp_jpath here;
    int rc = find_member(obj, at, key, need, &item, &here, err);
    return (rc || !item) ? rc : pp_json_as_double(item, &here, lo, hi, out, err);
}

int pp_json_positive(const cJSON *obj, const pp_jpath *at, const char *key, pp_presence need, double hi,
                     double *out, pp_error *err)
{
    const cJSON *item;
    pp_jpath here;
    int rc = find_member(obj, at, key, need, &item, &here, err);
    return (rc || !item) ? rc : pp_json_as_positive(item, &here, hi, out, err);
}

int pp_json_bool(const cJSON *obj, const pp_jpath *at, const char *key, pp_presence need, bool *out, pp_error *err)
{
    const cJSON *item;
    pp_jpath here;
    int rc = find_member(obj, at, key, need, &item, &here, err);
    return (rc || !item) ? rc : pp_json_as_bool(item, &here, out, err);
}

int pp_json_string(const cJSON *obj, const pp_jpath *at, const char *key, pp_presence need, char *out, size_t cap,
                   pp_error *err)
{
    const cJSON *item;
    pp_jpath here;
    int rc = find_member(obj, at, key, need, &item, &here, err);
    return (rc || !item) ? rc : pp_json_as_string(item, &here, out, cap, err);
}

int pp_json_enum(const cJSON *obj, const pp_jpath *at, const char *key, pp_presence need, const char *const *names,
                 int n, int *out, pp_error *err)
{
    const cJSON *item;
    pp_jpath here;
    int rc = find_member(obj, at, key, need, &item, &here, err);
    return (rc || !item) ? rc : pp_json_as_enum(item, &here, names, n, out, err);
}

/* ---- suggestions ------------------------------------------------------------ */

#define EDIT_MAX_LEN 64

/* Optimal string alignment: insertions, deletions, substitutions and swaps
 * of two adjacent letters ("hedas" for "heads") each count one. */
int pp_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > EDIT_MAX_LEN || lb > EDIT_MAX_LEN)
        return EDIT_MAX_LEN * 2; /* too long to be a typo of a key */
    int before[EDIT_MAX_LEN + 1], prev[EDIT_MAX_LEN + 1], cur[EDIT_MAX_LEN + 1];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = before[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            int del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && before[j - 2] + 1 < cur[j])
                cur[j] = before[j - 2] + 1;
        }
        memcpy(before, prev, sizeof before);
        memcpy(prev, cur, sizeof prev);
    }
    return prev[lb];
}

/* How many edits still read as a typo of a word this long. */
static int typo_budget(size_t len)
{
    if (len <= 4)
        return 1;
    if (len <= 8)
        return 2;
    return len / 3 < 5 ? (int)(len / 3) : 5;
}

/* The only candidate that starts with word ("h100" for "h100-sxm5-80gb"),
 * else NULL. */
static const char *unique_prefix_match(const char *word, pp_name_at_fn name_at, const void *ctx, int n)
{
    size_t len = strlen(word);
    const char *match = NULL;
    if (len < 3)
        return NULL;
    for (int i = 0; i < n; i++) {
        const char *name = name_at(ctx, i);
        if (strncmp(name, word, len) == 0) {
            if (match)
                return NULL;
            match = name;
        }
    }
    return match;
}

const char *pp_nearest_name(const char *word, pp_name_at_fn name_at, const void *ctx, int n)
{
    const char *best = NULL;
    int best_d = typo_budget(strlen(word)) + 1;
    for (int i = 0; i < n; i++) {
        const char *name = name_at(ctx, i);
        int d = pp_edit_distance(word, name);
        if (d < best_d && (size_t)d < strlen(name)) {
            best = name;
            best_d = d;
        }
    }
    return best ? best : unique_prefix_match(word, name_at, ctx, n);
}

void pp_did_you_mean(const char *word, pp_name_at_fn name_at, const void *ctx, int n, char *buf, size_t cap)
{
    const char *near = pp_nearest_name(word, name_at, ctx, n);
    if (near)
        snprintf(buf, cap, "; did you mean '%.60s'?", near);
    else if (cap)
        buf[0] = '\0';
}

void pp_name_list(pp_name_at_fn name_at, const void *ctx, int n, char *buf, size_t cap)
{
    if (!cap)
        return;
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        char piece[80];
        if (i == 16) {
            path_append(buf, cap, ", ...");
            break;
        }
        snprintf(piece, sizeof piece, "%s'%.60s'", i ? ", " : "", name_at(ctx, i));
        path_append(buf, cap, piece);
    }
    if (n == 0)
        snprintf(buf, cap, "(none)");
}

const char *pp_string_array_at(const void *ctx, int i)
{
    return ((const char *const *)ctx)[i];
}
