/*
 * rules.h: the hard rules a plan must obey before it can be priced.
 *
 * One table of rules, walked by `eval` (to reject an invalid plan with the
 * rule it breaks), by the enumerator and by the MIP builder's space generator
 * (to skip plans that break a rule), so the three agree on what a valid plan
 * is.  Each rule has a name that the report and row names use.
 */
#ifndef PARPLAN_RULES_H
#define PARPLAN_RULES_H

#include "types.h"

/* 0 if the plan obeys every rule; else PP_EINPUT with a message naming the
 * rule and the numbers that break it (path "plan: $.field"). */
int pp_plan_check(const pp_problem *prob, const pp_plan *plan, pp_error *err);

/* Whether a codec adds more relative error to dimension d's traffic than
 * the problem tolerates (the accuracy rule; cons_accuracy.c's rows say the
 * same). */
bool pp_codec_too_lossy(const pp_problem *prob, int codec, pp_dim d);

#endif
