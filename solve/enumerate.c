/*
 * enumerate.c: exhaustive search of the decision space (see enumerate.h).
 *
 * Plans are visited in a fixed order: shapes as the space sorts them, then
 * the choices nested as pp_option_kind lists them.  A plan's position in that
 * order breaks ties, so the result never depends on anything but the problem.
 * Each plan that obeys the rules is priced with pp_step_time_s; only a plan
 * that would enter the top K is then fully evaluated and checked against the
 * constraint families (an infeasible plan that would not enter cannot change
 * the result, so skipping its check is exact).  A codec too lossy for its
 * dimension's tolerance breaks a rule whatever else the plan holds
 * (rules.c, rule_codecs), so the odometer skips it instead of visiting
 * every plan that carries it: the same plans are priced, in the same
 * order, without the ones the rule rejects.
 */
#include "enumerate.h"

#include "cons.h"
#include "costmodel.h"
#include "decisions.h"
#include "error.h"
#include "problem.h"
#include "rules.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ranked {
    double cost_s;
    double order; /* position in the visiting order */
    pp_plan plan;
} ranked;

static bool ranks_before(const ranked *a, double cost_s, double order)
{
    return a->cost_s < cost_s || (a->cost_s == cost_s && a->order < order);
}

/* Insert into the sorted array top[0..*n) of capacity cap. */
static void keep(ranked *top, int *n, int cap, double cost_s, double order, const pp_plan *plan)
{
    int i = *n < cap ? (*n)++ : cap - 1;
    while (i > 0 && !ranks_before(&top[i - 1], cost_s, order)) {
        top[i] = top[i - 1];
        i--;
    }
    top[i] = (ranked){.cost_s = cost_s, .order = order, .plan = *plan};
}

/* Narrow the odometer's codec choices to those within their dimension's
 * error tolerance (kept holds the lists); false when a choice has none
 * left, so the shape has no valid plan. */
static bool keep_tolerated_codecs(const pp_problem *prob, pp_odometer *o, pp_int_list kept[PP_MAX_OPTIONS])
{
    for (int k = 0; k < o->n; k++) {
        const pp_decision *d = &pp_decisions[o->ids[k]];
        if (d->kind != PP_DK_CODEC)
            continue;
        kept[k].n = 0;
        for (int i = 0; i < o->lists[k]->n; i++) {
            int v = o->lists[k]->v[i];
            if (!pp_codec_too_lossy(prob, v, d->dim))
                kept[k].v[kept[k].n++] = v;
        }
        if (kept[k].n == 0)
            return false;
        o->lists[k] = &kept[k];
    }
    return true;
}

int pp_enumerate(const pp_problem *prob, const pp_space *space, const pp_plan_options *opt, pp_plan_result *res,
                 pp_error *err)
{
    int cap = 1 + (opt->top_k > 0 ? opt->top_k : 0);
    ranked *top = malloc((size_t)cap * sizeof *top);
    if (!top)
        return pp_error_set(err, PP_EINTERNAL, "", "out of memory");
    int n = 0;
    double order = 0;
    long priced = 0;

    for (int si = 0; si < space->n_shapes; si++) {
        const pp_shape *sh = &space->shapes[si];
        pp_odometer o;
        pp_int_list kept[PP_MAX_OPTIONS];
        if (!pp_odometer_start(&o, space, sh) || !keep_tolerated_codecs(prob, &o, kept))
            continue;
        do {
            pp_plan plan;
            pp_odometer_plan(&o, sh, &plan);
            order += 1;
            if (pp_plan_check(prob, &plan, NULL))
                continue;
            double cost = pp_step_time_s(prob, &plan);
            priced++;
            if (n == cap && cost >= top[cap - 1].cost_s) /* later in the order: a tie loses */
                continue;
            pp_eval ev;
            pp_evaluate(prob, &plan, &ev);
            if (pp_cons_plan_feasible(prob, &plan, &ev, opt->relax, NULL))
                keep(top, &n, cap, cost, order, &plan);
        } while (pp_odometer_next(&o));
    }

    snprintf(res->cert.method, sizeof res->cert.method, "enumerate");
    snprintf(res->cert.solver, sizeof res->cert.solver, "exhaustive");
    res->cert.plans_evaluated = priced;
    if (n == 0) {
        free(top);
        res->status = PP_STATUS_INFEASIBLE;
        pp_cons_diagnose(prob, space, opt->relax, res->infeasible_reason, sizeof res->infeasible_reason);
        return pp_error_set(err, PP_EINFEASIBLE, "", "%s", res->infeasible_reason);
    }
    res->runner_ups = n > 1 ? calloc((size_t)(n - 1), sizeof *res->runner_ups) : NULL;
    if (n > 1 && !res->runner_ups) {
        free(top);
        return pp_error_set(err, PP_EINTERNAL, "", "out of memory");
    }
    res->status = PP_STATUS_OPTIMAL;
    res->best.plan = top[0].plan;
    pp_evaluate(prob, &top[0].plan, &res->best.eval);
    for (int i = 1; i < n; i++) {
        res->runner_ups[i - 1].plan = top[i].plan;
        pp_evaluate(prob, &top[i].plan, &res->runner_ups[i - 1].eval);
    }
    res->n_runner_ups = n - 1;
    res->cert.objective_s = top[0].cost_s;
    res->cert.best_bound_s = top[0].cost_s;
    res->cert.gap = 0.0;
    free(top);
    return PP_OK;
}
