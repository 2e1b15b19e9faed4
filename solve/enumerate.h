/*
 * enumerate.h: the exhaustive planner (--method enumerate) and the
 * explanation of an infeasible problem, shared by both methods.
 *
 * The enumerator prices every plan of the same space (space.h) as the MIP,
 * rejects those that break a rule (rules.h) or a constraint family (cons.h),
 * and keeps the best and the top K runner-ups.  It is slow but obviously
 * right: the reference the MIP is tested against.
 */
#ifndef PARPLAN_ENUMERATE_H
#define PARPLAN_ENUMERATE_H

#include "planner.h"
#include "space.h"

/* Fill res (status, best, runner_ups, certificate fields of the method);
 * returns PP_EINFEASIBLE (with res->infeasible_reason) when no plan is
 * feasible. */
int pp_enumerate(const pp_problem *prob, const pp_space *space, const pp_plan_options *opt, pp_plan_result *res,
                 pp_error *err);

/* Why no plan of the space is feasible, as one sentence starting with the
 * family that blocks ("memory: even at ..."). */
void pp_explain_infeasible(const pp_problem *prob, const pp_space *space, unsigned relax, char *buf, size_t len);

#endif
