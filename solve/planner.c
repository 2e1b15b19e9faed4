/* planner.c: placeholder until the MIP lands (issue 4). */
#include "planner.h"

#include "error.h"

#include <stdlib.h>
#include <string.h>

void pp_plan_options_init(pp_plan_options *o)
{
    memset(o, 0, sizeof *o);
    o->method = PP_METHOD_MILP;
    o->top_k = 0;
}

const char *pp_status_name(pp_status s)
{
    switch (s) {
    case PP_STATUS_OPTIMAL: return "optimal";
    case PP_STATUS_TIME_LIMIT: return "time_limit";
    case PP_STATUS_INFEASIBLE: return "infeasible";
    case PP_STATUS_EVALUATED: return "evaluated";
    }
    return "unknown";
}

int pp_plan_solve(const pp_problem *prob, const pp_plan_options *opt, pp_plan_result *res, pp_error *err)
{
    (void)prob;
    (void)opt;
    memset(res, 0, sizeof *res);
    return pp_error_set(err, PP_EINTERNAL, "", "plan: the planner is not implemented yet");
}

void pp_plan_result_free(pp_plan_result *res)
{
    free(res->runner_ups);
    res->runner_ups = NULL;
    res->n_runner_ups = 0;
}
