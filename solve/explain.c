/*
 * explain.c: the numbers behind the report's "why" (see explain.h).
 *
 * What a constraint is worth is measured, not estimated: every counterfactual
 * is a full solve of a changed problem, by the MIP (whatever --method says:
 * enumerating every changed problem would take minutes, and the tests hold
 * the two methods to the same optimum) with the user's time limit, so "with
 * 96 GiB per GPU a step would take 6.1% less" is the optimum of that problem,
 * not a sensitivity of the LP.  A solve of the default example takes tens of
 * milliseconds, so the dozen re-solves of a report cost less than a second.
 *
 * Which changes to try is each constraint family's business (its relax
 * callback, cons.h); this file hands the families a way to solve (resolve)
 * and gathers what they found.  No sentence is written here: reports/
 * turns these numbers into words.
 */
#include "explain.h"

#include "costmodel.h"
#include "error.h"
#include "mip_cache.h"
#include "rules.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAME_STEP_REL 1e-9    /* two step times this close are the same optimum */
#define WORTH_MENTIONING 5e-4 /* a speed-up below 0.05 % is not listed among "what would speed it up" */
#define SAFE_MARGIN_GIB 1.0   /* a tie must leave this much more memory to count as the safer choice */

/* ---- re-solving ------------------------------------------------------------- */

typedef struct solver_ctx {
    const pp_plan_options *solve;
    double best_s; /* step time of the optimum */
} solver_ctx;

static bool same_step(double a, double b)
{
    return fabs(a - b) <= SAME_STEP_REL * fmax(fabs(a), fabs(b));
}

/* Solve a changed problem (with `relax` families dropped) into cf: the
 * resolve of pp_cons_view. */
static void resolve(void *solver, const pp_problem *changed, unsigned relax, pp_counterfactual *cf)
{
    const solver_ctx *c = solver;
    pp_plan_options o = *c->solve;
    o.method = PP_METHOD_MILP; /* the enumerator gives the same optimum, minutes later */
    o.top_k = 0;
    o.export_lp = o.export_mps = NULL;
    o.relax |= relax;
    o.count_screened = false; /* a counterfactual reports its plan, not its certificate */
    pp_plan_result r;
    pp_error err;
    pp_error_clear(&err);
    int rc = pp_plan_solve(changed, &o, &r, &err);
    cf->gpus = (double)pp_problem_gpus(changed);
    if (rc == PP_OK && r.best.plan.tp >= 1) {
        cf->status = r.status;
        cf->best = r.best;
        cf->gain = c->best_s > 0 ? (c->best_s - r.best.eval.time.step_s) / c->best_s : 0.0;
        if (same_step(c->best_s, r.best.eval.time.step_s))
            cf->gain = 0.0;
    } else {
        cf->status = PP_STATUS_INFEASIBLE;
        snprintf(cf->reason, sizeof cf->reason, "%s",
                 r.infeasible_reason[0] ? r.infeasible_reason : err.msg[0] ? err.msg : "no plan found");
    }
    pp_plan_result_free(&r);
}

/* ---- runner-ups and ties ------------------------------------------------------ */

/* A codec's share of the tricks: 1 when it adds no more error than
 * rounding to a 16-bit float, which mixed-precision training does to every
 * value anyway (lossless codecs, the bf16 cast: unit roundoff of an 8-bit
 * significand 2^-8), 2 for a quantizer whose error must be fed back or
 * tolerated (int8ef, zfp8): a lossy codec is not a cast. */
#define PP_ROUNDING_16BIT 0.00390625
static int codec_tricks(const pp_problem *prob, int codec)
{
    if (codec <= 0)
        return 0;
    if (codec >= prob->n_codecs)
        return 1;
    const pp_codec *c = &prob->codecs[codec];
    return c->lossy && c->rel_error > PP_ROUNDING_16BIT ? 2 : 1;
}

/* Interleaving 1, each compressed dimension 1 (2 for a lossy quantizer),
 * selective recomputation 1, full 2, an expert capacity 2 (its dropped
 * tokens, like a lossy quantizer's error, change what the model learns):
 * how many tricks a plan needs beyond the plain layout. */
static int tricks_of(const pp_problem *prob, const pp_plan *p)
{
    int n = p->virtual_stages > 1 ? 1 : 0;
    for (int d = 0; d < PP_DIM_COUNT; d++)
        n += codec_tricks(prob, p->codec[d]);
    if (p->recompute != PP_RECOMPUTE_NONE)
        n += p->recompute == PP_RECOMPUTE_FULL ? 2 : 1;
    if (p->moe_capacity_factor > 0)
        n += 2;
    return n;
}

void pp_compare_with_best(const pp_problem *prob, const pp_candidate *best, const pp_candidate *cand,
                          double model_error, pp_runner_up_report *r)
{
    double b = best->eval.time.step_s, t = cand->eval.time.step_s;
    memset(r, 0, sizeof *r);
    r->gap = b > 0 ? (t - b) / b : 0.0;
    r->same_step = same_step(t, b);
    if (r->same_step)
        r->gap = 0.0;
    r->tie = r->gap <= model_error;
    r->headroom_gib = cand->eval.mem.usable_gib - cand->eval.mem.total_gib;
    r->tricks = tricks_of(prob, &cand->plan);
    r->worst = r->saves = -1;
    for (int k = 0; k < PP_PART_COUNT; k++) {
        double d = pp_part_s(&cand->eval.time, (pp_part)k) - pp_part_s(&best->eval.time, (pp_part)k);
        if (d > r->delta_s) {
            r->delta_s = d;
            r->worst = k;
        }
        if (d < r->saves_s) {
            r->saves_s = d;
            r->saves = k;
        }
    }
    if (r->same_step) {
        r->worst = -1;
        r->delta_s = 0.0;
    }
}

static void analyze_runner_ups(const pp_problem *prob, const pp_plan_result *res, pp_explanation *ex)
{
    pp_compare_with_best(prob, &res->best, &res->best, ex->model_error, &ex->best);
    for (int i = 0; i < ex->n_runner_ups; i++) {
        pp_compare_with_best(prob, &res->best, &res->runner_ups[i], ex->model_error, &ex->runner_ups[i]);
        if (ex->runner_ups[i].tie)
            ex->n_ties++;
    }
    /* among the optimum and its ties: most headroom, fewest tricks; the
     * safe choice is the one with the most headroom (at least a GiB more,
     * else no margin worth a slower plan), then the fewest tricks */
    double room_gib = ex->best.headroom_gib, safe_gib = ex->best.headroom_gib;
    int fewest = ex->best.tricks, safe_tricks = ex->best.tricks;
    for (int i = 0; i < ex->n_runner_ups; i++) {
        const pp_runner_up_report *r = &ex->runner_ups[i];
        if (!r->tie)
            continue;
        if (r->headroom_gib > room_gib + 0.005) {
            room_gib = r->headroom_gib;
            ex->tie_most_room = i + 2;
        }
        if (r->tricks < fewest) {
            fewest = r->tricks;
            ex->tie_fewest_tricks = i + 2;
        }
        if (r->headroom_gib > safe_gib + SAFE_MARGIN_GIB ||
            (r->headroom_gib > safe_gib - SAFE_MARGIN_GIB && r->tricks < safe_tricks)) {
            safe_gib = r->headroom_gib;
            safe_tricks = r->tricks;
            ex->recommended = i + 2;
        }
    }
}

/* The fastest plan without interleaving, compression or dropped tokens. */
static void find_simplest(const pp_problem *prob, const solver_ctx *c, const pp_plan_result *res,
                          pp_explanation *ex)
{
    const pp_plan *best = &res->best.plan;
    bool fancy = best->virtual_stages > 1 || best->moe_capacity_factor > 0;
    for (int d = 0; d < PP_DIM_COUNT; d++)
        fancy = fancy || best->codec[d] > 0;
    if (!fancy)
        return;
    pp_problem *changed = malloc(sizeof *changed);
    if (!changed)
        return;
    *changed = *prob;
    changed->search[PP_DEC_VIRTUAL_STAGES].n = 1;
    changed->search[PP_DEC_VIRTUAL_STAGES].v[0] = 1;
    for (int d = 0; d < PP_DIM_COUNT; d++) {
        changed->search[PP_DEC_CODEC(d)].n = 1;
        changed->search[PP_DEC_CODEC(d)].v[0] = 0; /* codecs[0] is "none" */
    }
    changed->search[PP_DEC_MOE_CAPACITY].n = 1;
    changed->search[PP_DEC_MOE_CAPACITY].v[0] = 0; /* dropless */
    pp_counterfactual *cf = &ex->simplest;
    memset(cf, 0, sizeof *cf);
    bool drops = best->moe_capacity_factor > 0;
    snprintf(cf->key, sizeof cf->key, "virtual_stages=1,compression=none%s", drops ? ",moe_capacity_factor=none" : "");
    snprintf(cf->what, sizeof cf->what, "no interleaving%s no compression%s", drops ? "," : " and",
             drops ? " and no dropped tokens" : "");
    resolve((void *)c, changed, 0, cf);
    free(changed);
    ex->have_simplest = pp_cf_found(cf);
    if (ex->have_simplest)
        pp_compare_with_best(prob, &res->best, &cf->best, ex->model_error, &ex->simplest_report);
}

/* ---- baseline ------------------------------------------------------------------ */

static void analyze_baseline(const pp_problem *prob, const pp_plan_result *res, const pp_explain_options *opt,
                             pp_explanation *ex)
{
    pp_baseline_report *b = &ex->baseline;
    if (!opt->baseline)
        return;
    b->present = true;
    const char *label = opt->baseline_label ? opt->baseline_label : "baseline";
    const char *slash = strrchr(label, '/');
    snprintf(b->label, sizeof b->label, "%s", slash ? slash + 1 : label);
    b->plan = *opt->baseline;
    pp_error err;
    if (pp_fixed_plan_check(prob, &b->plan, &err) != PP_OK) {
        snprintf(b->invalid, sizeof b->invalid, "%s", err.msg);
        return;
    }
    b->valid = true;
    pp_evaluate(prob, &b->plan, &b->eval);
    b->tp_leaves_node = pp_plan_tp_leaves_node(prob, &b->plan);
    char why[512], fw[PP_NAME_LEN + PP_FW_VERSION_LEN + 8];
    b->not_runnable = !pp_plan_runnable(prob, &b->plan, why, sizeof why);
    if (b->not_runnable)
        snprintf(b->not_runnable_why, sizeof b->not_runnable_why, "not runnable by %s: %s",
                 pp_framework_label(prob, fw, sizeof fw), why);
    b->breaks_row = !pp_cons_plan_feasible(prob, &b->plan, &b->eval, 0, &b->broken);
    b->feasible = !b->breaks_row && !b->tp_leaves_node && !b->not_runnable;
    double best_s = res->best.eval.time.step_s;
    if (res->best.plan.tp >= 1 && best_s > 0) {
        b->speedup = b->eval.time.step_s / best_s;
        b->time_saved = (b->eval.time.step_s - best_s) / b->eval.time.step_s;
    }
}

/* ---- what would speed it up ---------------------------------------------------- */

/* Counterfactuals a user can act on: not "no limit at all". */
static bool actionable(const pp_counterfactual *cf)
{
    return strstr(cf->key, "unlimited") == NULL && strstr(cf->key, "dropped") == NULL;
}

static void collect_speedups(pp_explanation *ex)
{
    for (int i = 0; i < ex->n_families; i++)
        for (int k = 0; k < ex->families[i].n_cf; k++) {
            const pp_counterfactual *cf = &ex->families[i].cf[k];
            if (pp_cf_faster(cf) && cf->gain >= WORTH_MENTIONING && actionable(cf) &&
                ex->n_speedups < (int)(sizeof ex->speedups / sizeof ex->speedups[0]))
                ex->speedups[ex->n_speedups++] = cf;
        }
    for (int i = 1; i < ex->n_speedups; i++) /* largest gain first, stable */
        for (int j = i; j > 0 && ex->speedups[j]->gain > ex->speedups[j - 1]->gain; j--) {
            const pp_counterfactual *t = ex->speedups[j];
            ex->speedups[j] = ex->speedups[j - 1];
            ex->speedups[j - 1] = t;
        }
}

/* ---- entry point ------------------------------------------------------------------ */

void pp_explain_options_init(pp_explain_options *o)
{
    memset(o, 0, sizeof *o);
    o->counterfactuals = true;
    o->baseline = NULL;
    o->baseline_label = NULL;
}

int pp_explain_plan(const pp_problem *prob, const pp_catalog *catalog, const pp_plan_options *solve,
                    const pp_plan_result *res, const pp_explain_options *options, pp_explanation *ex, pp_error *err)
{
    memset(ex, 0, sizeof *ex);
    ex->model_error = catalog && catalog->model_error > 0.0 ? catalog->model_error : PP_COST_MODEL_ERROR;
    pp_explain_options defaults;
    pp_explain_options_init(&defaults);
    const pp_explain_options *opt = options ? options : &defaults;
    pp_plan_options solve_opt;
    if (solve)
        solve_opt = *solve;
    else
        pp_plan_options_init(&solve_opt);
    /* the re-solves that change no price read the terms priced once (the
     * caller's cache holds the optimum's own solve) */
    pp_price_cache *own = solve_opt.prices ? NULL : pp_price_cache_new();
    if (own)
        solve_opt.prices = own;
    solver_ctx c = {&solve_opt, res->best.eval.time.step_s};
    analyze_baseline(prob, res, opt, ex);
    if (res->status == PP_STATUS_INFEASIBLE || res->best.plan.tp < 1) {
        pp_price_cache_free(own);
        return PP_OK;
    }
    ex->done = true;
    ex->best_step_s = c.best_s;
    ex->gpus = pp_problem_gpus(prob);
    ex->view = (pp_cons_view){.prob = prob, .cat = catalog, .best = &res->best,
                              .counterfactuals = opt->counterfactuals, .resolve = resolve, .solver = &c};

    int max_families = (int)(sizeof ex->families / sizeof ex->families[0]);
    for (int i = 0; i < pp_cons_n_families && i < max_families; i++)
        pp_cons_analyze(&ex->view, pp_cons_families[i], &ex->families[ex->n_families++]);

    if (res->n_runner_ups > 0) {
        ex->runner_ups = calloc((size_t)res->n_runner_ups, sizeof *ex->runner_ups);
        if (!ex->runner_ups) {
            pp_price_cache_free(own);
            return pp_error_set(err, PP_EINTERNAL, "", "out of memory");
        }
        ex->n_runner_ups = res->n_runner_ups;
    }
    analyze_runner_ups(prob, res, ex);
    if (opt->counterfactuals)
        find_simplest(prob, &c, res, ex);
    collect_speedups(ex);
    ex->view.resolve = NULL; /* the solver context ends here */
    ex->view.solver = NULL;
    pp_price_cache_free(own);
    int rc = pp_schedule_build(prob, &res->best.plan, &ex->schedule, err);
    if (rc != PP_OK) {
        pp_explanation_free(ex);
        return rc;
    }
    return PP_OK;
}

void pp_explanation_free(pp_explanation *ex)
{
    free(ex->runner_ups);
    ex->runner_ups = NULL;
    ex->n_runner_ups = 0;
    pp_schedule_free(&ex->schedule);
}
