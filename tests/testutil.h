/*
 * testutil.h: what every CUnit suite of parplan shares.
 *
 * pp_test_main() registers one suite and runs it with the basic interface,
 * returning non-zero if any assertion failed (so CTest sees the failure).
 * pp_run() runs the parplan executable like a user would and captures its
 * exit code, standard output and standard error.  pp_test_problem() and
 * pp_test_plan() build the small problems and plans the cost-model suites
 * (test_cost_*.c) compute by hand.  The rest are the fixtures more than one
 * suite uses: the example problems, the catalogs and problems loaded from the
 * source tree, files written and read back, JSON documents looked into and a
 * seeded random generator.  The fuzz harnesses link this file too (the
 * helpers that assert need CUnit's registry; the others do not).
 */
#ifndef PARPLAN_TESTUTIL_H
#define PARPLAN_TESTUTIL_H

#include "catalog.h"
#include "costmodel.h"
#include "measurements.h"
#include "problem.h"
#include "types.h"

#include <CUnit/CUnit.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
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

/* Run parplan with args and assert it exits with exit_code and, unless
 * needle is NULL, that its stderr names needle. */
void pp_run_expect(const char *const *args, int exit_code, const char *needle);
/* Run parplan, which must refuse the input: exit 2, needle in its standard
 * error, and the output file out (removed first) not written. */
void pp_run_refused(const char *const *args, const char *needle, const char *out);

/* Write text to a fresh file in a per-test temp directory; returns its path
 * in a static-free caller buffer. */
void pp_write_temp(const char *name, const char *text, char *path, size_t path_len);

/* Path of a file in the source tree, e.g. "data/examples/x.json". */
void pp_source_path(const char *rel, char *path, size_t path_len);

/* The measured rows of a file of the source tree ("data/measurements/x.json"),
 * read with the catalog; a read that fails stops the test. */
void pp_load_rows(const char *rel, const pp_catalog *cat, pp_measurement_set *set);

/* ---- files ---------------------------------------------------------------- */

/* The examples of data/examples the suites run on (pp_source_path them):
 * GPT-3 175B on 1024 A100s with Megatron-LM's published plan, a small GPT
 * on one 8-GPU node, and GPT-NeoX 20B on Lassen. */
#define PP_EXAMPLE "data/examples/gpt3-175b-1024-a100.json"
#define PP_EXAMPLE_PLAN "data/examples/gpt3-175b-1024-a100.plan.json"
#define PP_SMALL_EXAMPLE "data/examples/small-gpt-8gpu.json"
#define PP_NEOX_EXAMPLE "data/examples/gpt-neox-20b-lassen.json"

/* Run parplan with args, asserting that it could be run; returns its exit
 * code (the result in r, pp_run_free it). */
int pp_run_code(const char *const *args, pp_run_result *r);

/* A fresh path in the per-test temp directory (the file does not exist). */
void pp_temp_path(const char *name, char *path, size_t path_len);

/* The per-test temp directory itself, or its subdirectory sub (made if
 * missing) when sub is not NULL. */
void pp_temp_dir(const char *sub, char *dir, size_t dir_len);

/* The whole file as a NUL-terminated heap string (free() it), NULL if it
 * cannot be read. */
char *pp_slurp(const char *path);

/* True if something exists at path. */
bool pp_exists(const char *path);

/* Write len bytes of text (NULs included) to path, asserting it worked. */
void pp_write_file(const char *path, const char *text, size_t len);

/* A heap copy (free() it) of a JSON text written with single quotes, the
 * quotes made double: tests write documents as 'C-friendly' strings. */
char *pp_json_of(const char *squoted);
/* Parse a single-quoted problem (pp_json_of) with a catalog; a parse error
 * is printed and fails the test. */
void pp_test_load(const char *squoted, const pp_catalog *cat, pp_problem *p);

/* pp_write_file of pp_json_of(squoted). */
void pp_write_json(const char *path, const char *squoted);

/* ---- catalogs and problems -------------------------------------------------- */

/* Load the catalogs of the source tree's data/; on failure say why on
 * stderr and return the error code (no assertion: the fuzzers use it). */
int pp_source_catalog_load(pp_catalog *cat, pp_error *err);

/* The same, asserting (fatally) that it loaded. */
void pp_load_catalog(pp_catalog *cat);

/* Load the problem file rel of the source tree with cat, asserting
 * (fatally) that it loaded. */
void pp_load_problem(const char *rel, const pp_catalog *cat, pp_problem *p);

/* The default example and Megatron-LM's plan for it, priced: what the
 * renderer suites (test_report_md.c, test_result_json.c) render. */
typedef struct pp_test_example {
    pp_catalog cat; /* pp_catalog_free it */
    pp_problem prob;
    pp_plan plan;
    pp_eval ev;
} pp_test_example;
void pp_test_example_load(pp_test_example *f);

/* ---- JSON ---------------------------------------------------------------- */

/* True if a null sits anywhere in item (a NaN or an infinity written out). */
bool pp_json_has_null(const cJSON *item);

/* ---- random problems --------------------------------------------------------- */

/* xorshift64*: a fixed seed makes every run test the same problems. */
typedef struct pp_rng {
    unsigned long long s;
} pp_rng;
unsigned long long pp_rng_next(pp_rng *r);
int pp_rng_int(pp_rng *r, int lo, int hi);                 /* inclusive */
double pp_rng_uniform(pp_rng *r, double lo, double hi);    /* [lo, hi) */
int pp_rng_pick(pp_rng *r, const int *v, int n);           /* one of v[0..n-1] */

/* a and b agree to tol relative to the larger of them. */
bool pp_rel_close(double a, double b, double tol);

/* a equals b to a relative tolerance (exactly, when b is 0). */
#define PP_REL_EQ(a, b, tol) CU_ASSERT(fabs((a) - (b)) <= (tol) * fabs(b))

/* The clusters of the cost-model suites: 8 GPUs a node, round figures so
 * that hand calculations stay simple. */
typedef enum {
    PP_TEST_A100, /* DGX A100, every efficiency 0.8; no fused attention, no DP overlap */
    PP_TEST_H100, /* H100 nodes under Megatron-Core: fused attention, DP overlap */
    PP_TEST_DGX_A100, /* the catalog's A100-80GB with the built-in efficiencies, Megatron-Core */
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

/* p solved by the MIP (res[0]) and by enumeration (res[1]), each asserted
 * (fatally) to succeed, its reason printed where it does not, and both to
 * reach the same step time: what every decision's test checks of the
 * planner (res holds two).  The caller frees both. */
struct pp_plan_result;
void pp_test_solve_both(const pp_problem *p, struct pp_plan_result *res);
/* Append a codec to p's list (ratio: lossless ratio on 32-bit values, 0 for
 * a lossy codec); returns its index in p->codecs (a plan's codec choice). */
int pp_test_add_codec(pp_problem *p, const char *id, bool lossy, double bits, double ratio, double GBps,
                            double rel_error);

#define PP_ASSERT_CONTAINS(haystack, needle)                                                  \
    do {                                                                                      \
        CU_ASSERT_PTR_NOT_NULL_FATAL(haystack);                                               \
        CU_ASSERT_PTR_NOT_NULL(strstr((haystack), (needle)));                                 \
    } while (0)

#endif
