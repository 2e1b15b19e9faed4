/*
 * problem.h: reading PROBLEM.json and PLAN.json into the plain structs of
 * types.h, with strict validation.  The top of the input layer: it includes
 * the catalogs (catalog.h), whose ids a problem names, and the names of the
 * enumerations (names.h), so a file including problem.h sees all three.
 *
 * Nothing downstream ever sees JSON: the loader checks every field's type and
 * range, rejects unknown keys (suggesting the nearest valid one), checks the
 * model's internal consistency, resolves catalog ids and fills every default,
 * so the cost model and the MIP builder can trust what they are given.  Every
 * error names the JSON path ("FILE: $.model.heads"), what was expected and
 * what was found, and returns PP_EINPUT.
 */
#ifndef PARPLAN_PROBLEM_H
#define PARPLAN_PROBLEM_H

#include "catalog.h"
#include "decisions.h" /* pp_plan_init */
#include "names.h"
#include "types.h"

/* Every default of a problem, set in one place: memory_headroom 0.05,
 * error_tolerance dp 0.02 / tp 0 / pp 0 / params 0 (lossy codecs only on DP
 * gradients; lossless ones have rel_error 0 and are always allowed), DP
 * gradients on the wire in the training's 16-bit type, compress_min_bytes
 * 1 MiB, flash_attention and dp_overlap on, precision bf16, objective
 * min_step_time, TP kept inside a node, codecs = just "none".  The parser
 * then takes codecs and compress_min_bytes from the catalog. */
void pp_problem_init(pp_problem *p);

/* Total GPUs of the problem's cluster (0 without a cluster). */
long pp_problem_gpus(const pp_problem *p);

/* Parse a problem.  origin names the source in messages (a file name).
 * Relative paths inside (hf_config) are resolved against base_dir (may be
 * NULL for the current directory). */
int pp_problem_parse(const char *json_text, const char *origin, const char *base_dir,
                     const pp_catalog *cat, pp_problem *out, pp_error *err);
int pp_problem_load(const char *path, const pp_catalog *cat, pp_problem *out, pp_error *err);

/* The same reader on a JSON object already parsed (a measurement row turned
 * into a problem, measurements.c); messages name paths below `at`, so a
 * problem read at "$[3]" of FILE reports "FILE: $[3].model.layers". */
struct cJSON;
int pp_problem_from_json(const struct cJSON *doc, const pp_jpath *at, const char *base_dir, const pp_catalog *cat,
                         pp_problem *out, pp_error *err);

/* Parse a plan for the given problem, filling the defaults of the contract
 * (cp 1, dp = GPUs/(tp pp cp), micro_batch 1, virtual_stages 1, zero 0,
 * recompute none, sequence_parallel false, tp_mode 1d, compression none).
 * Only types, ranges and names are checked here; whether the plan fits the
 * problem is pp_plan_check's job (rules.h). */
int pp_plan_parse(const char *json_text, const char *origin, const pp_problem *prob,
                  pp_plan *out, pp_error *err);
int pp_plan_load(const char *path, const pp_problem *prob, pp_plan *out, pp_error *err);
/* ... and on a JSON object already parsed, messages naming paths below `at`. */
int pp_plan_from_json(const struct cJSON *doc, const pp_jpath *at, const pp_problem *prob, pp_plan *out,
                      pp_error *err);

/* Whether GPU g trains in precision prec: a dense peak in it and, for a
 * low-precision GEMM recipe, a 16-bit peak for the attention and
 * element-wise work beside it (what a problem's training.precision needs). */
bool pp_gpu_runs_precision(const pp_gpu *g, pp_precision prec);

/* The transformer blocks the problem's recipe keeps in bf16, first and last
 * (training.bf16_layers_first/_last, by default the recipe's own share of
 * the model's blocks: names.c); 0 and 0 under a 16-bit recipe. */
void pp_bf16_layers(const pp_problem *prob, int *first, int *last);

#endif
