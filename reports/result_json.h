/*
 * result_json.h: the machine-readable result of `eval` and `plan` (--json).
 *
 * The keys are the contract of docs/interface.md ("Result JSON"): status,
 * plan, gpus, step_time_s, time_s, throughput, memory_gib, and for `plan` the
 * certificate and runner_ups; an echo of the problem closes the document.
 * Every number is finite (a non-finite value is written as null, never as a
 * bare NaN), and nothing depends on the run except
 * certificate.solve_time_s, so two runs give byte-identical JSON otherwise.
 */
#ifndef PARPLAN_RESULT_JSON_H
#define PARPLAN_RESULT_JSON_H

#include <cjson/cJSON.h>

#include "costmodel.h"
#include "explain.h"
#include "jsonb.h"
#include "planner.h"
#include "strbuf.h"
#include "types.h"

/* A plan as a PLAN.json object (the `plan` of every result); eval reads it
 * back unchanged.  NULL when memory runs out. */
cJSON *pp_json_plan(const pp_problem *prob, const pp_plan *plan);

/* The result of `eval`: status "evaluated" and the priced plan. */
cJSON *pp_json_eval(const pp_problem *prob, const pp_plan *plan, const pp_eval *ev);

/* The result of `plan`: status, the best plan priced (unless infeasible, when
 * "infeasible_reason" says why), the certificate and the runner-ups. */
cJSON *pp_json_plan_result(const pp_problem *prob, const pp_plan_result *res);

/* The same with the explanation of pp_explain_plan (ex may be NULL): adds
 * time_to_train_s / time_to_train_days / gpu_hours (when training.tokens is
 * given), limits (what limits the plan, what would speed it up), how_to_run
 * (Megatron-LM flags, DeepSpeed config), why each runner-up loses and
 * whether it ties, ties, binding (per constraint family: rows with slack,
 * counterfactual re-solves, verdict), schedule (the pipeline tasks the
 * report's chart draws), baseline, and assumptions (constants with their
 * sources). */
cJSON *pp_json_plan_result_ex(const pp_problem *prob, const pp_plan_result *res, const pp_explanation *ex);

/* When the GPU's efficiencies are another GPU's fit (efficiency_from, the
 * same die; efficiency_borrow, a donor's times a factor): "borrowed_from"
 * (the donor's id), "borrow_factor" (what the donor's gemm and attention
 * were multiplied by) and, when not 1, "borrow_nvlink_factor" (its nvlink's)
 * into o; nothing for a GPU's own fit or the defaults. */
void pp_json_put_borrow(pp_jb *b, cJSON *o, const pp_efficiency *e);
/* "compute_scale" when a calibration from a team's rows set its stack's
 * level (formulate/cost/device.c), nothing at 1. */
void pp_json_put_stack_level(pp_jb *b, cJSON *o, const pp_efficiency *e);

/* Append the document, pretty-printed and newline-terminated, to out.
 * 0, or -1 when memory runs out. */
int pp_json_render(const cJSON *doc, pp_strbuf *out);

#endif
