/*
 * json_util.h: strict reading of JSON documents, for every loader of parplan.
 *
 * cJSON parses; these helpers decide whether what it parsed is acceptable and,
 * when it is not, say so in parplan's one error format: the location as
 * "FILE: $.model.heads" and a sentence "expected X, found Y".  They check the
 * type before reading a value (1.5 is not an integer, "8" is not a number, an
 * infinite number is not a number), keep values in range, reject keys an
 * object may not have (suggesting the nearest allowed one) and duplicate keys,
 * and refuse documents nested deeper than PP_JSON_MAX_DEPTH, or holding more
 * than PP_JSON_MAX_VALUES values, before cJSON sees them (cJSON spends about
 * 64 bytes per value: a 64 MiB file of "0," would take 2 GiB).
 *
 * A location is a pp_jpath, a small value built from its parent as the
 * loaders descend (pp_jpath_key, pp_jpath_index), so every error can name
 * exactly where it was found without any bookkeeping in the callers.
 */
#ifndef PARPLAN_JSON_UTIL_H
#define PARPLAN_JSON_UTIL_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "types.h"

#define PP_JSON_MAX_DEPTH 32 /* deeper documents are rejected before parsing */
#define PP_JSON_MAX_BYTES (64L << 20)
#define PP_JSON_MAX_VALUES 1000000L /* more values are rejected before parsing */

/* Where a value sits: the document it came from and a JSONPath into it. */
typedef struct pp_jpath {
    const char *origin; /* file name (or other label) shown before the path */
    char path[160];     /* "$", "$.model", "$.search.tp[2]" */
} pp_jpath;

typedef enum { PP_OPTIONAL = 0, PP_REQUIRED = 1 } pp_presence;

/* ---- locations and errors --------------------------------------------- */

pp_jpath pp_jpath_root(const char *origin);
pp_jpath pp_jpath_key(const pp_jpath *parent, const char *key);
pp_jpath pp_jpath_index(const pp_jpath *parent, int index);

/* Set err to PP_EINPUT at "ORIGIN: PATH" with a formatted message; returns
 * PP_EINPUT. */
int pp_json_fail(pp_error *err, const pp_jpath *at, const char *fmt, ...) PP_PRINTF(3, 4);

/* "expected WHAT, found <pp_json_describe(item)>"; returns PP_EINPUT. */
int pp_json_fail_expected(pp_error *err, const pp_jpath *at, const char *what, const cJSON *item);

/* "the number 1.5", "the string 'x'", "an array", "an object", "true",
 * "null": what a message says it found. */
void pp_json_describe(const cJSON *item, char *buf, size_t cap);

/* A word as it may be quoted in a message: at most ~48 printable characters,
 * anything else escaped. */
void pp_json_quote(const char *word, char *buf, size_t cap);

/* ---- documents ---------------------------------------------------------- */

/* Read a whole file into a NUL-terminated heap buffer (caller frees).
 * Refuses files over 64 MiB.  "-" reads standard input. */
int pp_read_file(const char *path, char **out, size_t *len, pp_error *err);

/* Read a file whole (pp_read_file) and make sure it is text: a NUL byte
 * inside is an error.  *text is freed with free(). */
int pp_json_read_text(const char *path, char **text, pp_error *err);

/* Read a file whole and parse it as a JSON object (pp_json_parse_object).
 * The file's path is the origin of every message. */
int pp_json_load_object(const char *path, cJSON **out, pp_error *err);

/* Parse a NUL-terminated text that must hold exactly one JSON object.
 * Rejects empty text, syntax errors (naming line, column and byte offset),
 * nesting deeper than PP_JSON_MAX_DEPTH, more than PP_JSON_MAX_VALUES values
 * and non-object top levels.  A leading
 * UTF-8 byte-order mark is skipped.  *out is freed with cJSON_Delete. */
int pp_json_parse_object(const char *text, const char *origin, cJSON **out, pp_error *err);
/* The same for a document whose top level is an array (measurement files). */
int pp_json_parse_array(const char *text, const char *origin, cJSON **out, pp_error *err);

/* ---- shapes ------------------------------------------------------------- */

/* The member named key (case-sensitive), or NULL. */
const cJSON *pp_json_member(const cJSON *obj, const char *key);

int pp_json_expect_object(const cJSON *item, const pp_jpath *at, pp_error *err);
int pp_json_expect_array(const cJSON *item, const pp_jpath *at, pp_error *err);

/* Every key of obj must be in allowed (NULL-terminated) and appear once.
 * An unknown key is reported with the nearest allowed one when it is close:
 * "unknown key 'hedas'; did you mean 'heads'?". */
int pp_json_check_keys(const cJSON *obj, const pp_jpath *at, const char *const *allowed, pp_error *err);
/* Every catalog entry cites where its numbers come from: obj has a
 * "source", a string or an object. */
int pp_json_check_source(const cJSON *obj, const pp_jpath *at, pp_error *err);

/* Each of keys (NULL-terminated) appears at most once in obj; other keys are
 * not looked at (for documents such as Hugging Face configs whose other keys
 * parplan ignores). */
int pp_json_check_unique(const cJSON *obj, const pp_jpath *at, const char *const *keys, pp_error *err);

/* ---- values: item is present ------------------------------------------- */

/* An integral number (1.0 and 1e3 count, 1.5 does not) in lo..hi. */
int pp_json_as_long(const cJSON *item, const pp_jpath *at, long lo, long hi, long *out, pp_error *err);
int pp_json_as_int(const cJSON *item, const pp_jpath *at, int lo, int hi, int *out, pp_error *err);
/* A finite number in lo..hi (inclusive). */
int pp_json_as_double(const cJSON *item, const pp_jpath *at, double lo, double hi, double *out, pp_error *err);
/* A finite number > 0 and <= hi. */
int pp_json_as_positive(const cJSON *item, const pp_jpath *at, double hi, double *out, pp_error *err);
int pp_json_as_bool(const cJSON *item, const pp_jpath *at, bool *out, pp_error *err);
/* A string of at most cap-1 bytes, copied into out. */
int pp_json_as_string(const cJSON *item, const pp_jpath *at, char *out, size_t cap, pp_error *err);
/* A string equal to one of names[0..n-1]; *out is its index. */
int pp_json_as_enum(const cJSON *item, const pp_jpath *at, const char *const *names, int n, int *out, pp_error *err);

/* ---- members: obj[key], absent allowed when PP_OPTIONAL ------------------
 * An absent optional member leaves *out untouched and returns PP_OK; JSON
 * null counts as a value (and is rejected by the type check). */

int pp_json_long(const cJSON *obj, const pp_jpath *at, const char *key, pp_presence need, long lo, long hi,
                 long *out, pp_error *err);
int pp_json_int(const cJSON *obj, const pp_jpath *at, const char *key, pp_presence need, int lo, int hi, int *out,
                pp_error *err);
int pp_json_double(const cJSON *obj, const pp_jpath *at, const char *key, pp_presence need, double lo, double hi,
                   double *out, pp_error *err);
int pp_json_positive(const cJSON *obj, const pp_jpath *at, const char *key, pp_presence need, double hi,
                     double *out, pp_error *err);
int pp_json_bool(const cJSON *obj, const pp_jpath *at, const char *key, pp_presence need, bool *out, pp_error *err);
int pp_json_string(const cJSON *obj, const pp_jpath *at, const char *key, pp_presence need, char *out, size_t cap,
                   pp_error *err);
int pp_json_enum(const cJSON *obj, const pp_jpath *at, const char *key, pp_presence need, const char *const *names,
                 int n, int *out, pp_error *err);

/* PP_EINPUT "missing required key 'KEY'" at obj's location. */
int pp_json_missing(const pp_jpath *at, const char *key, pp_error *err);

/* ---- suggestions ------------------------------------------------------- */

/* Levenshtein distance (insertions, deletions, substitutions). */
int pp_edit_distance(const char *a, const char *b);

/* A list of names seen through an accessor, so catalogs of structs and plain
 * string arrays can both be searched. */
typedef const char *(*pp_name_at_fn)(const void *ctx, int i);

/* The candidate nearest to word when it is close enough to be a likely typo,
 * else NULL. */
const char *pp_nearest_name(const char *word, pp_name_at_fn name_at, const void *ctx, int n);

/* "; did you mean 'x'?" when a near candidate exists, else "". */
void pp_did_you_mean(const char *word, pp_name_at_fn name_at, const void *ctx, int n, char *buf, size_t cap);

/* "'a', 'b', 'c'" (at most ~16 names, then ", ..."). */
void pp_name_list(pp_name_at_fn name_at, const void *ctx, int n, char *buf, size_t cap);

/* Accessor for a NULL-terminated or counted array of C strings. */
const char *pp_string_array_at(const void *ctx, int i);

#endif
