/*
 * testutil.h: what every CUnit suite of parplan shares.
 *
 * pp_test_main() registers one suite and runs it with the basic interface,
 * returning non-zero if any assertion failed (so CTest sees the failure).
 * pp_run() runs the parplan executable like a user would and captures its
 * exit code, standard output and standard error.  pp_test_problem() and
 * pp_test_plan() build the small problems and plans the cost-model suites
 * (test_cost_*.c) compute by hand.
 */
#ifndef PARPLAN_TESTUTIL_H
#define PARPLAN_TESTUTIL_H

#include "types.h"

#include <CUnit/CUnit.h>
#include <math.h>
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

/* a equals b to a relative tolerance (exactly, when b is 0). */
#define PP_REL_EQ(a, b, tol) CU_ASSERT(fabs((a) - (b)) <= (tol) * fabs(b))

/* The clusters of the cost-model suites: 8 GPUs a node, round figures so
 * that hand calculations stay simple. */
typedef enum {
    PP_TEST_A100, /* DGX A100, every efficiency 0.8; no fused attention, no DP overlap */
    PP_TEST_H100, /* H100 nodes under Megatron-Core: fused attention, DP overlap */
} pp_test_cluster;

/* Model m trained on `nodes` nodes of that cluster, global batch `batch`,
 * bf16, 10% memory headroom, only the "none" codec, compression from 1 MiB. */
pp_problem pp_test_problem(pp_test_cluster cluster, pp_model m, long nodes, long batch);
/* GPT-3 175B (96 layers, h = 12288, s = 2048), and Llama 3 8B (GQA, SwiGLU)
 * at sequence length seq. */
pp_model pp_test_gpt3_175b(void);
pp_model pp_test_llama3_8b(int seq);
/* A plan of 1D tensor parallelism, nothing else switched on. */
pp_plan pp_test_plan(int tp, int pp, int dp, int cp, int mb);

#define PP_ASSERT_CONTAINS(haystack, needle)                                                  \
    CU_ASSERT_PTR_NOT_NULL_FATAL(haystack);                                                   \
    CU_ASSERT_PTR_NOT_NULL(strstr((haystack), (needle)))

#endif
