/*
 * decisions.h: the decisions of a plan, and how a plan is written as text.
 *
 * A plan is one value for every decision (types.h, pp_plan): the degrees tp,
 * pp, dp, cp, the micro-batch, the interleaving depth, the ZeRO stage,
 * recomputation, sequence parallelism, the tensor-parallel mode and a codec
 * per compressed dimension.  Every place that shows a plan to a person (the
 * report's plan line, a runner-up's changes, a sentence of an explanation)
 * writes it through these functions, so a plan reads the same everywhere.
 */
#ifndef PARPLAN_DECISIONS_H
#define PARPLAN_DECISIONS_H

#include <stddef.h>

#include "strbuf.h"
#include "types.h"

/* The id of codec index i of a problem ("none" when out of range). */
const char *pp_codec_id(const pp_problem *prob, int i);

/* Append the plan in one line: "tp=8 pp=16 dp=8 cp=1 micro_batch=1
 * virtual_stages=1 zero=0 recompute=full sp=off compression
 * dp/tp/pp=none/none/none" (" tp_mode=2d", " tp_depth=2", " params=X"
 * only when used).  Codec ids go through word(sb, id) when word is not
 * NULL (the Markdown report escapes them), else verbatim. */
void pp_plan_describe(pp_strbuf *sb, const pp_problem *prob, const pp_plan *plan,
                      void (*word)(pp_strbuf *sb, const char *s));

/* The same line in a fixed buffer, plain text. */
void pp_plan_text(const pp_problem *prob, const pp_plan *plan, char *buf, size_t cap);

/* The decisions in which b differs from a, as "pp=16 instead of 8, ..."
 * ("" if none). */
void pp_plan_changes(const pp_problem *prob, const pp_plan *b, const pp_plan *a, char *buf, size_t cap);

#endif
