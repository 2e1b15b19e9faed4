/*
 * enumerate.c: exhaustive search of the decision space (see enumerate.h).
 *
 * Plans are visited in a fixed order: shapes as the space sorts them, then
 * the choices nested as pp_option_kind lists them.  A plan's position in that
 * order breaks ties, so the result never depends on anything but the problem.
 * Each plan that obeys the rules is priced with pp_step_time_s; only a plan
 * that would enter the top K is then fully evaluated and checked against the
 * constraint families (an infeasible plan that would not enter cannot change
 * the result, so skipping its check is exact).
 */
#include "enumerate.h"

#include "cons.h"
#include "costmodel.h"
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

/* The options of each choice for a shape, and an odometer over them. */
typedef struct odometer {
    const pp_int_list *lists[PP_OPT_COUNT];
    int idx[PP_OPT_COUNT];
} odometer;

static bool odometer_start(odometer *o, const pp_space *s, const pp_shape *sh)
{
    for (int k = 0; k < PP_OPT_COUNT; k++) {
        o->lists[k] = pp_space_options(s, sh, (pp_option_kind)k);
        o->idx[k] = 0;
        if (o->lists[k]->n == 0)
            return false;
    }
    return true;
}

static bool odometer_next(odometer *o)
{
    for (int k = PP_OPT_COUNT - 1; k >= 0; k--) {
        if (++o->idx[k] < o->lists[k]->n)
            return true;
        o->idx[k] = 0;
    }
    return false;
}

static void odometer_plan(const odometer *o, const pp_shape *sh, pp_plan *plan)
{
    *plan = sh->base;
    for (int k = 0; k < PP_OPT_COUNT; k++)
        pp_plan_set_option(plan, (pp_option_kind)k, o->lists[k]->v[o->idx[k]]);
}

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
        odometer o;
        if (!odometer_start(&o, space, sh))
            continue;
        do {
            pp_plan plan;
            odometer_plan(&o, sh, &plan);
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
        } while (odometer_next(&o));
    }

    snprintf(res->cert.method, sizeof res->cert.method, "enumerate");
    snprintf(res->cert.solver, sizeof res->cert.solver, "exhaustive");
    res->cert.plans_evaluated = priced;
    if (n == 0) {
        free(top);
        res->status = PP_STATUS_INFEASIBLE;
        pp_explain_infeasible(prob, space, opt->relax, res->infeasible_reason, sizeof res->infeasible_reason);
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

/* ---- why nothing is feasible --------------------------------------------- */

static const char *gpu_label(const pp_problem *prob)
{
    const pp_gpu *g = &prob->cluster.gpu;
    return g->name[0] ? g->name : g->id[0] ? g->id : "GPU";
}

static const char *recompute_phrase(pp_recompute r)
{
    switch (r) {
    case PP_RECOMPUTE_FULL: return "full recomputation";
    case PP_RECOMPUTE_SELECTIVE: return "selective recomputation";
    default: return "no recomputation";
    }
}

/* The plan of least peak memory in the space (codecs do not matter). */
static bool least_memory_plan(const pp_problem *prob, const pp_space *s, pp_plan *best, pp_memory *best_mem)
{
    bool found = false;
    for (int si = 0; si < s->n_shapes; si++) {
        const pp_shape *sh = &s->shapes[si];
        const pp_int_list *R = pp_space_options(s, sh, PP_OPT_RECOMPUTE);
        const pp_int_list *SP = pp_space_options(s, sh, PP_OPT_SEQUENCE_PARALLEL);
        const pp_int_list *Z = pp_space_options(s, sh, PP_OPT_ZERO);
        for (int i = 0; i < R->n; i++)
            for (int j = 0; j < SP->n; j++)
                for (int k = 0; k < Z->n; k++) {
                    pp_plan plan = sh->base;
                    pp_plan_set_option(&plan, PP_OPT_RECOMPUTE, R->v[i]);
                    pp_plan_set_option(&plan, PP_OPT_SEQUENCE_PARALLEL, SP->v[j]);
                    pp_plan_set_option(&plan, PP_OPT_ZERO, Z->v[k]);
                    pp_memory mem;
                    pp_memory_eval(prob, &plan, &mem);
                    if (!found || mem.total_gib < best_mem->total_gib) {
                        *best = plan;
                        *best_mem = mem;
                        found = true;
                    }
                }
    }
    return found;
}

static bool codec_allowed(const pp_problem *prob, int c, pp_dim d)
{
    if (c < 0 || c >= prob->n_codecs)
        return false;
    return !(prob->codecs[c].lossy && prob->codecs[c].rel_error > prob->error_tolerance[d]);
}

/* The first dimension of a shape where every codec option is too lossy, or
 * -1 if each dimension has an allowed codec. */
static int blocked_dim(const pp_problem *prob, const pp_space *s, const pp_shape *sh)
{
    static const struct { pp_dim dim; pp_option_kind opt; } dims[] = {
        {PP_DIM_DP, PP_OPT_CODEC_DP}, {PP_DIM_TP, PP_OPT_CODEC_TP}, {PP_DIM_PP, PP_OPT_CODEC_PP},
        {PP_DIM_PARAMS, PP_OPT_CODEC_PARAMS}};
    for (size_t k = 0; k < sizeof dims / sizeof dims[0]; k++) {
        const pp_int_list *l = pp_space_options(s, sh, dims[k].opt);
        bool any = false;
        for (int i = 0; i < l->n && !any; i++)
            any = codec_allowed(prob, l->v[i], dims[k].dim);
        if (!any)
            return (int)dims[k].dim;
    }
    return -1;
}

/* A plan that obeys the rules, memory and accuracy, ignoring bandwidth. */
static bool plan_without_bandwidth(const pp_problem *prob, const pp_space *s, unsigned relax, pp_plan *out,
                                   pp_eval *ev)
{
    unsigned ignore = relax | pp_cons_bit("bandwidth");
    for (int si = 0; si < s->n_shapes; si++) {
        odometer o;
        if (!odometer_start(&o, s, &s->shapes[si]))
            continue;
        do {
            odometer_plan(&o, &s->shapes[si], out);
            if (pp_plan_check(prob, out, NULL))
                continue;
            pp_evaluate(prob, out, ev);
            if (pp_cons_plan_feasible(prob, out, ev, ignore, NULL))
                return true;
        } while (odometer_next(&o));
    }
    return false;
}

void pp_explain_infeasible(const pp_problem *prob, const pp_space *s, unsigned relax, char *buf, size_t len)
{
    if (s->n_shapes == 0) {
        snprintf(buf, len, "%s", s->empty_reason);
        return;
    }
    pp_plan plan;
    pp_memory mem;
    if (!(relax & pp_cons_bit("memory")) && least_memory_plan(prob, s, &plan, &mem) &&
        mem.total_gib > mem.usable_gib) {
        snprintf(buf, len,
                 "memory: even at tp=%d pp=%d dp=%d cp=%d micro_batch=%d, ZeRO-%d, %s%s, the most loaded GPU "
                 "needs %.1f GiB; the %s offers %.1f GiB after the %.0f%% headroom",
                 plan.tp, plan.pp, plan.dp, plan.cp, plan.micro_batch, plan.zero, recompute_phrase(plan.recompute),
                 plan.sequence_parallel ? " and sequence parallelism" : "", mem.total_gib, gpu_label(prob),
                 mem.usable_gib, 100.0 * prob->memory_headroom);
        return;
    }
    int open_shapes = 0, dim = -1;
    for (int si = 0; si < s->n_shapes; si++) {
        int d = blocked_dim(prob, s, &s->shapes[si]);
        if (d < 0)
            open_shapes++;
        else if (dim < 0)
            dim = d;
    }
    if (open_shapes == 0 && dim >= 0) {
        snprintf(buf, len,
                 "accuracy: every codec the search allows on %s traffic adds more relative error than its "
                 "tolerance %g (constraints.error_tolerance.%s)",
                 pp_dim_name((pp_dim)dim), prob->error_tolerance[dim], pp_dim_name((pp_dim)dim));
        return;
    }
    pp_eval ev;
    if (!(relax & pp_cons_bit("bandwidth")) && plan_without_bandwidth(prob, s, relax, &plan, &ev)) {
        snprintf(buf, len,
                 "bandwidth: every plan that fits in memory sends more bytes per step than its links carry in "
                 "the step time (e.g. tp=%d pp=%d dp=%d: %.3g GB over NVLink and %.3g GB over the network in a "
                 "%.3g s step)",
                 plan.tp, plan.pp, plan.dp, ev.bytes_nvlink_per_step / 1e9, ev.bytes_network_per_step / 1e9,
                 ev.time.step_s);
        return;
    }
    snprintf(buf, len,
             "memory and accuracy: no plan both fits in the %s's %.1f GiB after headroom and keeps every codec "
             "within its error tolerance",
             gpu_label(prob), prob->cluster.gpu.memory_gib * (1.0 - prob->memory_headroom));
}
