/*
 * enumerate.h: the exhaustive planner (--method enumerate).
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

#endif
