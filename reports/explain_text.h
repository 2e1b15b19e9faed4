/*
 * explain_text.h: the explanation of a plan (solve/explain.h) in words.
 *
 * The solver measures; this file says what the measurements mean, in plain
 * sentences (no Markdown: the Markdown report escapes them like any other
 * string, and the JSON carries them as they are).  Each constraint family
 * phrases its own verdict (its describe callback, formulate/cons_*.c); the
 * sentences about the plan as a whole (what limits it, the ties, why a
 * runner-up loses) are written here.
 */
#ifndef PARPLAN_EXPLAIN_TEXT_H
#define PARPLAN_EXPLAIN_TEXT_H

#include <stddef.h>

#include "explain.h"

/* The name of a part of the step time ("pipeline bubble") and its key in
 * the result JSON's time_s ("bubble"); "none" for -1. */
const char *pp_part_name(pp_part part);
const char *pp_part_key(int part);

/* A family's verdict: what its rows and counterfactuals say. */
void pp_text_family_verdict(const pp_explanation *ex, const pp_family_report *f, char *buf, size_t cap);

/* The decisions in which a plan differs from the optimum. */
void pp_text_changes(const pp_problem *prob, const pp_plan *plan, const pp_plan *best, char *buf, size_t cap);

/* Why a plan loses to the optimum: "pipeline bubble +0.035 s
 * (virtual_stages=3 instead of 4), partly offset by ..." */
void pp_text_why(const pp_problem *prob, const pp_plan *plan, const pp_plan *best, const pp_runner_up_report *r,
                 char *buf, size_t cap);

/* The tricks a plan needs: "interleaving (v=4), full recomputation", or "none". */
void pp_text_tricks(const pp_problem *prob, const pp_plan *plan, char *buf, size_t cap);

/* The ties among the runner-ups, and which tie is the safe choice. */
void pp_text_ties(const pp_problem *prob, const pp_plan_result *res, const pp_explanation *ex, char *buf,
                  size_t cap);

/* What limits the plan, in one or two sentences. */
void pp_text_limits(const pp_plan_result *res, const pp_explanation *ex, char *buf, size_t cap);

/* Why the baseline could not be priced or does not fit ("" if it does). */
void pp_text_baseline_problem(const pp_baseline_report *b, char *buf, size_t cap);

/* Whose fitted efficiencies a GPU's are, in one sentence: "" for its own
 * fit; the same die's fit (efficiency_from); a donor's fit times a factor
 * (efficiency_borrow: no measurement of this GPU); or the built-in
 * defaults.  short_form: a few words for a table cell ("borrowed from
 * h100-sxm5-80gb x 0.966"). */
void pp_text_calibration(const pp_efficiency *e, bool short_form, char *buf, size_t cap);
/* A borrower's factors: "GEMM and attention x F" and, when not 1,
 * ", NVLink x N" (gpus.json efficiency_borrow). */
void pp_text_borrow_factors(const pp_efficiency *e, char *buf, size_t cap);

#endif
