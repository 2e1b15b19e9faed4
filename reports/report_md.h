/*
 * report_md.h: the Markdown reports of `eval` and `plan`.
 *
 * A report is rendered whole into a pp_strbuf; the caller decides where it
 * goes.  It reads top-down like the questions a user asks: what was planned
 * (model, cluster, plan in one line each), how fast (step time, tokens/s,
 * TFLOP/s, MFU), where the time goes (parts that add up to the step time),
 * whether it fits in memory, and for `plan` why it is optimal (the
 * certificate).
 *
 * Every string that came from input (model and GPU names, codec ids, reasons)
 * is escaped so it cannot break the Markdown or a table.  The output is a pure
 * function of its arguments: no timestamps, no solve times, so reports can be
 * diffed and regenerated.
 */
#ifndef PARPLAN_REPORT_MD_H
#define PARPLAN_REPORT_MD_H

#include "costmodel.h"
#include "explain.h"
#include "planner.h"
#include "strbuf.h"
#include "types.h"

/* Append s with Markdown's special characters (\ | ` * _ [ ] < > # & ~ !)
 * backslash-escaped and line breaks and other control characters turned into
 * spaces, so it stays inline text and inside its table cell. */
void pp_md_escape(pp_strbuf *sb, const char *s);

/* Append the plan in one line: "tp=8 pp=16 dp=8 cp=1 micro_batch=1
 * virtual_stages=1 zero=0 recompute=full sp=off compression
 * dp/tp/pp=none/none/none" (codec ids escaped). */
void pp_md_plan_line(pp_strbuf *sb, const pp_problem *prob, const pp_plan *plan);

/* "98,765": a non-negative count rounded, with thousands separators; "n/a"
 * when not finite. */
const char *pp_md_fmt_count(double v, char *buf, size_t cap);
/* A number with fixed decimals; "n/a" when not finite; -0 prints as 0. */
const char *pp_md_fmt_fixed(double v, int decimals, char *buf, size_t cap);

/* The report of `eval`.  0, or -1 when memory ran out. */
int pp_report_eval_md(const pp_problem *prob, const pp_plan *plan, const pp_eval *ev, pp_strbuf *out);

/* The report of `plan` (also for an infeasible problem or a time limit):
 * summary, how to run it (Megatron-LM flags, DeepSpeed JSON, compression
 * settings), where the time and the memory go (tables and Mermaid pies), the
 * pipeline schedule (a Mermaid gantt), binding constraints with what relaxing
 * each is worth, runner-ups with why they lose and which tie, the baseline
 * comparison, the certificate with re-check commands, and the inputs with the
 * sources of the constants.  ex (from pp_explain_plan) may be NULL: the
 * sections that need it are then left out. */
int pp_report_plan_md_ex(const pp_problem *prob, const pp_plan_result *res, const pp_explanation *ex,
                         pp_strbuf *out);
int pp_report_plan_md(const pp_problem *prob, const pp_plan_result *res, pp_strbuf *out);

#endif
