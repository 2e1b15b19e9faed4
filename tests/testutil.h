/*
 * testutil.h: what every CUnit suite of parplan shares.
 *
 * pp_test_main() registers one suite and runs it with the basic interface,
 * returning non-zero if any assertion failed (so CTest sees the failure).
 * pp_run() runs the parplan executable like a user would and captures its
 * exit code, standard output and standard error.
 */
#ifndef PARPLAN_TESTUTIL_H
#define PARPLAN_TESTUTIL_H

#include <CUnit/CUnit.h>
#include <stddef.h>

typedef struct pp_test {
    const char *name;
    void (*fn)(void);
} pp_test;

/* Run the tests (terminated by {NULL, NULL}) as one suite. */
int pp_test_main(const char *suite, const pp_test *tests);

typedef struct pp_run_result {
    int exit_code; /* -1 if it did not exit normally (signal) */
    char *out;     /* NUL-terminated, caller frees with pp_run_free */
    char *err;
} pp_run_result;

/* Run PARPLAN_BINARY with argv (NULL-terminated, argv[0] not included);
 * stdin_text may be NULL.  Returns 0 if the process could be run. */
int pp_run(const char *const *args, const char *stdin_text, pp_run_result *r);
void pp_run_free(pp_run_result *r);

/* Write text to a fresh file in a per-test temp directory; returns its path
 * in a static-free caller buffer. */
void pp_write_temp(const char *name, const char *text, char *path, size_t path_len);

/* Path of a file in the source tree, e.g. "data/examples/x.json". */
void pp_source_path(const char *rel, char *path, size_t path_len);

#define PP_ASSERT_CONTAINS(haystack, needle)                                                  \
    CU_ASSERT_PTR_NOT_NULL_FATAL(haystack);                                                   \
    CU_ASSERT_PTR_NOT_NULL(strstr((haystack), (needle)))

#endif
