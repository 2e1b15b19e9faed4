/*
 * cons_gpus.c: every GPU of the cluster works, tp pp dp cp = GPUs.
 *
 * The space only holds shapes whose degrees multiply to the GPU count, so the
 * row is redundant with sum_S y_S = 1; it is there to name the family in the
 * model and the report.
 *
 * Explaining: the GPU count is priced by the nearest node counts above and
 * below that admit a plan (each found by solving that cluster), with the GPU
 * time per step they would cost, and, while every GPU must work and a node
 * holds a GPU count that is not a power of two, by the same nodes each using
 * the largest power of two of its GPUs: a 72-GPU NVLink domain's factor 9
 * must go into a degree (dp, which the global batch may not divide by 9,
 * or pp or tp), so 64 of each 72 can step faster (MLPerf's NVL72 runs used
 * 64 a rack).  Solving the count as an upper limit instead
 * (constraints.use_all_gpus false) searches every smaller count, which on
 * thousands of GPUs outgrows the decision space.
 */
#include "cons.h"
#include "mip.h"
#include "problem.h"
#include "rules.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int gpus_add_rows(pp_mip *m, pp_error *err)
{
    (void)err;
    int row = pp_mip_add_row(m, m->prob->idle_gpus_ok ? PP_ROW_LE : PP_ROW_EQ, (double)pp_problem_gpus(m->prob),
                             "gpu_count");
    for (int i = 0; i < m->space->n_shapes; i++) {
        const pp_plan *b = &m->space->shapes[i].base;
        if (m->shape_col[i])
            pp_mip_coef(m, row, m->shape_col[i], (double)b->tp * b->pp * b->dp * b->cp);
    }
    return PP_OK;
}

static int gpus_rows_at(const pp_problem *prob, const pp_plan *plan, const pp_eval *ev, pp_cons_row *out, int max)
{
    (void)ev;
    if (max < 1)
        return 0;
    double used = (double)plan->tp * plan->pp * plan->dp * plan->cp;
    pp_cons_row_set(&out[0], "gpu_count", used, (double)pp_problem_gpus(prob), "GPUs", !prob->idle_gpus_ok);
    return 1;
}

/* ---- explaining ------------------------------------------------------------ */

#define GPU_SEARCH_STEPS 64 /* node counts tried in each direction */

/* Keeps a solved probe as the family's counterfactual `key`: `what` says
 * the change, `gpus` the GPUs its plan runs on. */
static void keep(pp_family_report *f, pp_counterfactual *probe, const char *key, const char *what, double gpus)
{
    pp_counterfactual *cf = pp_cf_add(f, key, what);
    if (!cf)
        return;
    probe->gpus = gpus;
    snprintf(probe->key, sizeof probe->key, "%s", key);
    snprintf(probe->what, sizeof probe->what, "%s", what);
    *cf = *probe;
}

/* The nearest node count in direction dir (+1 or -1) that admits a plan. */
static void gpu_direction(const pp_cons_view *v, pp_family_report *f, pp_problem *changed, int dir)
{
    const pp_problem *prob = v->prob;
    long nodes = prob->cluster.nodes;
    long limit = dir > 0 ? nodes + GPU_SEARCH_STEPS : nodes - GPU_SEARCH_STEPS;
    if (dir > 0 && prob->capacity.present && prob->capacity.nodes_max > 0 && prob->capacity.nodes_max < limit)
        limit = prob->capacity.nodes_max;
    if (dir < 0 && limit < 1)
        limit = 1;
    char first_reason[1100] = "";
    for (long n = nodes + dir; dir > 0 ? n <= limit : n >= limit; n += dir) {
        *changed = *prob;
        changed->cluster.nodes = n;
        pp_counterfactual probe;
        memset(&probe, 0, sizeof probe);
        v->resolve(v->solver, changed, 0, &probe);
        if (!pp_cf_found(&probe)) {
            if (!first_reason[0])
                snprintf(first_reason, sizeof first_reason, "%s", probe.reason);
            continue;
        }
        char key[48], what[256];
        snprintf(key, sizeof key, "nodes=%ld", n);
        snprintf(what, sizeof what, "%ld nodes (%ld GPUs) instead of %ld", n, n * prob->cluster.gpus_per_node, nodes);
        snprintf(probe.reason, sizeof probe.reason, "%s", first_reason);
        keep(f, &probe, key, what, (double)n * prob->cluster.gpus_per_node);
        return;
    }
    char key[48], what[256];
    snprintf(key, sizeof key, "nodes%+ld", (long)dir);
    snprintf(what, sizeof what, "one node %s", dir > 0 ? "more" : "fewer");
    pp_counterfactual *cf = pp_cf_add(f, key, what);
    if (cf) {
        cf->status = PP_STATUS_INFEASIBLE;
        cf->gpus = (double)(nodes + dir) * prob->cluster.gpus_per_node;
        snprintf(cf->reason, sizeof cf->reason, "%s",
                 first_reason[0] ? first_reason : "the cluster cannot grow (capacity.nodes.max)");
    }
}

/* The largest power of two of a node's GPUs that its hosts fill whole,
 * 0 when that is all of them (or nothing). */
static int pow2_subset(const pp_cluster *c)
{
    int g = 1;
    while (2 * g <= c->gpus_per_node)
        g *= 2;
    int host = c->gpus_per_host > 0 ? c->gpus_per_host : 1;
    return g < c->gpus_per_node && g >= host && g % host == 0 ? g : 0;
}

#define SUBSET_KEY "gpus_per_node="

/* The same nodes, each using pow2_subset of its GPUs. */
static void gpu_subset(const pp_cons_view *v, pp_family_report *f, pp_problem *changed)
{
    const pp_problem *prob = v->prob;
    int g = pow2_subset(&prob->cluster);
    if (!g)
        return;
    *changed = *prob;
    changed->cluster.gpus_per_node = g;
    pp_counterfactual probe;
    memset(&probe, 0, sizeof probe);
    v->resolve(v->solver, changed, 0, &probe);
    if (!pp_cf_found(&probe))
        return;
    char key[48], what[256];
    snprintf(key, sizeof key, SUBSET_KEY "%d", g);
    snprintf(what, sizeof what, "using %d of each node's %d GPUs (%ld of %ld)", g, prob->cluster.gpus_per_node,
             (long)g * prob->cluster.nodes, pp_problem_gpus(prob));
    keep(f, &probe, key, what, (double)g * prob->cluster.nodes);
}

static bool is_subset(const pp_counterfactual *cf)
{
    return strncmp(cf->key, SUBSET_KEY, strlen(SUBSET_KEY)) == 0;
}

static void gpus_relax(const pp_cons_view *v, pp_family_report *f)
{
    if (!v->counterfactuals)
        return;
    pp_problem *changed = malloc(sizeof *changed);
    if (!changed)
        return;
    gpu_direction(v, f, changed, +1);
    if (v->prob->cluster.nodes > 1)
        gpu_direction(v, f, changed, -1);
    if (!v->prob->idle_gpus_ok)
        gpu_subset(v, f, changed);
    free(changed);
    /* it binds when more GPUs, or a part of each node's, would be faster */
    f->binds = f->n_cf > 0 && pp_cf_faster(&f->cf[0]);
    for (int i = 1; i < f->n_cf; i++)
        f->binds |= is_subset(&f->cf[i]) && pp_cf_faster(&f->cf[i]);
}

static void describe_direction(const pp_cons_view *v, const pp_counterfactual *cf, int dir, char *buf, size_t cap)
{
    const pp_problem *prob = v->prob;
    long nodes = prob->cluster.nodes;
    if (!pp_cf_found(cf)) {
        if (dir < 0 && nodes <= 1)
            return;
        pp_catf(buf, cap, " No cluster within %d nodes %s admits a plan (one node %s: %s).", GPU_SEARCH_STEPS,
                dir > 0 ? "more" : "fewer", dir > 0 ? "more" : "fewer", cf->reason);
        return;
    }
    long n = (long)(cf->gpus / prob->cluster.gpus_per_node + 0.5);
    double best_s = v->best->eval.time.step_s;
    double gpu_time_now = best_s * (double)pp_problem_gpus(prob);
    double gpu_time = cf->best.eval.time.step_s * cf->gpus;
    char g[32];
    pp_pct((gpu_time - gpu_time_now) / gpu_time_now, g, sizeof g);
    if (n == nodes + dir)
        pp_catf(buf, cap, " With one node %s (%.0f GPUs), ", dir > 0 ? "more" : "fewer", cf->gpus);
    else
        pp_catf(buf, cap,
                " The nearest %s cluster that admits a plan has %ld nodes (%.0f GPUs; one node %s admits none: %s): ",
                dir > 0 ? "larger" : "smaller", n, cf->gpus, dir > 0 ? "more" : "fewer", cf->reason);
    pp_cf_effect(v, cf, buf, cap);
    pp_catf(buf, cap, ", and the GPU time per step (GPUs x step time) would be %s %s.", g,
            gpu_time >= gpu_time_now ? "higher" : "lower");
}

static void gpus_describe(const pp_cons_view *v, const pp_family_report *f, char *buf, size_t cap)
{
    long gpus = pp_problem_gpus(v->prob), used = v->best->eval.gpus_used;
    if (!v->prob->idle_gpus_ok)
        pp_catf(buf, cap, "The GPU count is an equality: every plan uses all %ld GPUs (tp x pp x dp x cp = %ld).",
                gpus, gpus);
    else
        pp_catf(buf, cap, "The GPU count is an upper limit (constraints.use_all_gpus is false): the plan uses %ld "
                          "of the %ld GPUs and leaves %ld idle.", used, gpus, gpus - used);
    for (int i = 0; i < f->n_cf; i++) {
        const pp_counterfactual *cf = &f->cf[i];
        if (!is_subset(cf)) {
            describe_direction(v, cf, i == 0 ? +1 : -1, buf, cap);
            continue;
        }
        double gpu_time_now = v->best->eval.time.step_s * (double)gpus;
        double gpu_time = cf->best.eval.time.step_s * cf->gpus;
        char g[32];
        pp_pct((gpu_time - gpu_time_now) / gpu_time_now, g, sizeof g);
        pp_catf(buf, cap, " Using %d of each node's %d GPUs (%.0f of %ld), ", pow2_subset(&v->prob->cluster),
                v->prob->cluster.gpus_per_node, cf->gpus, gpus);
        pp_cf_effect(v, cf, buf, cap);
        pp_catf(buf, cap, ", and the GPU time per step of the GPUs it uses would be %s %s.", g,
                gpu_time >= gpu_time_now ? "higher" : "lower");
    }
}

const pp_cons_family pp_cons_gpus = {
    .id = PP_CONS_GPUS,
    .name = "gpus",
    .explain = "tp x pp x dp x cp equals the GPU count (at most the GPU count when constraints.use_all_gpus "
               "is false)",
    .limit = false,
    .tried = "the nearest cluster sizes",
    .add_rows = gpus_add_rows,
    .prune = NULL,
    .rows_at = gpus_rows_at,
    .relax = gpus_relax,
    .describe = gpus_describe,
};
