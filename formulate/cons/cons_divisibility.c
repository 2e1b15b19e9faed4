/*
 * cons_divisibility.c: the degrees divide what they split.
 *
 * One selector per value of a degree (sel_dp_8 = 1 iff dp = 8), tied to the
 * shape variables, and one row per pair of values that cannot go together:
 *   div_batch_d8_m3     sel_dp_8 + sel_mb_3 <= 1   (dp mb must divide the batch)
 *   div_layers_p16_v4   sel_pp_16 + sel_v_4 <= 1   (pp v must divide the layers)
 * The shape set already excludes these pairs, so the rows never cut a plan;
 * they state the family in the model for readers and other solvers, and give
 * the report its rows.  Rules of three decisions (micro-batches a multiple of
 * pp when interleaving) are enforced by the shape set alone.
 *
 * Explaining: divisibility cuts the space, not the optimum; the report
 * counts which rule cuts how many of the degree combinations tried.
 */
#include "cons.h"
#include "mip.h"
#include "problem.h"
#include "rules.h"
#include "text.h"

#include <stdio.h>
#include <string.h>

typedef struct degree {
    const char *name;
    pp_decision_id id;
    const pp_int_list *values;
    int first_col; /* selector of values[0]; the others follow */
} degree;

static int div_add_rows(pp_mip *m, pp_error *err)
{
    (void)err;
    const pp_space *s = m->space;
    degree deg[] = {{"tp", PP_DEC_TP, NULL, 0},
                    {"pp", PP_DEC_PP, NULL, 0},
                    {"dp", PP_DEC_DP, NULL, 0},
                    {"mb", PP_DEC_MICRO_BATCH, NULL, 0},
                    {"v", PP_DEC_VIRTUAL_STAGES, NULL, 0}};
    for (size_t k = 0; k < sizeof deg / sizeof deg[0]; k++)
        deg[k].values = &s->values[deg[k].id];
    enum { TP, PP, DP, MB, V, N };
    for (int k = 0; k < N; k++) {
        for (int i = 0; i < deg[k].values->n; i++) {
            int v = deg[k].values->v[i];
            int col = pp_mip_add_col(m, true, 0, 1, 0.0, "sel_%s_%d", deg[k].name, v);
            if (i == 0)
                deg[k].first_col = col;
            int row = pp_mip_add_row(m, PP_ROW_EQ, 0.0, "sel_%s_%d_def", deg[k].name, v);
            pp_mip_coef(m, row, col, -1.0);
            for (int si = 0; si < s->n_shapes; si++)
                if (m->shape_col[si] && pp_decision_get(&s->shapes[si].base, deg[k].id) == v)
                    pp_mip_coef(m, row, m->shape_col[si], 1.0);
        }
    }
    long B = m->prob->training.global_batch;
    for (int i = 0; i < s->values[PP_DEC_DP].n; i++)
        for (int j = 0; j < s->values[PP_DEC_MICRO_BATCH].n; j++) {
            long d = s->values[PP_DEC_DP].v[i], b = s->values[PP_DEC_MICRO_BATCH].v[j];
            if (B % (d * b) == 0)
                continue;
            int row = pp_mip_add_row(m, PP_ROW_LE, 1.0, "div_batch_d%ld_m%ld", d, b);
            pp_mip_coef(m, row, deg[DP].first_col + i, 1.0);
            pp_mip_coef(m, row, deg[MB].first_col + j, 1.0);
        }
    for (int i = 0; i < s->values[PP_DEC_PP].n; i++)
        for (int j = 0; j < s->values[PP_DEC_VIRTUAL_STAGES].n; j++) {
            int p = s->values[PP_DEC_PP].v[i], v = s->values[PP_DEC_VIRTUAL_STAGES].v[j];
            pp_plan probe;
            pp_plan_init(&probe);
            probe.pp = p;
            probe.virtual_stages = v;
            pp_stage_split split;
            if (pp_stage_layers(m->prob, &probe, &split) && (v == 1 || p >= 2))
                continue;
            int row = pp_mip_add_row(m, PP_ROW_LE, 1.0, "div_layers_p%d_v%d", p, v);
            pp_mip_coef(m, row, deg[PP].first_col + i, 1.0);
            pp_mip_coef(m, row, deg[V].first_col + j, 1.0);
        }
    return PP_OK;
}

static int div_rows_at(const pp_problem *prob, const pp_plan *plan, const pp_eval *ev, pp_cons_row *out, int max)
{
    (void)ev;
    if (max < 2)
        return 0;
    long per = (long)plan->dp * plan->micro_batch, B = prob->training.global_batch;
    long L = prob->model.layers;
    /* Whole multiples of the divisor: equal to the total iff it divides.
     * The layers: the stages' layers add up to all of them iff the split
     * exists (evenly, or with lighter first and last stages). */
    pp_stage_split split;
    bool ok = pp_stage_layers(prob, plan, &split);
    double held = ok ? split.first + (plan->pp - 2.0) * split.middle + (plan->pp > 1 ? split.last : 0) : 0.0;
    pp_cons_row_set(&out[0], "div_batch", (double)(per > 0 ? B / per * per : 0), (double)B, "sequences", true);
    pp_cons_row_set(&out[1], "div_layers", plan->pp == 1 ? (double)L : held, (double)L, "layers", true);
    return 2;
}

/* ---- explaining ------------------------------------------------------------ */

/* A readable name for the rule a plan breaks (rules.c); a rule this
 * family does not tell apart keeps the message's own name, the text before
 * its colon. */
static void rule_name(const pp_problem *prob, pp_rule rule, const char *msg, char *buf, size_t cap)
{
    switch (rule) {
    case PP_RULE_TP_SPLIT:
        snprintf(buf, cap, "tp divides the %d heads, the %d kv heads and ffn_hidden %d", prob->model.heads,
                 prob->model.kv_heads, prob->model.ffn_hidden);
        return;
    case PP_RULE_TP_NODE:
        snprintf(buf, cap, "tp divides the %d GPUs of a node", prob->cluster.gpus_per_node);
        return;
    case PP_RULE_STAGES:
        snprintf(buf, cap, "pp stages hold the %d layers, at least one each", prob->model.layers);
        return;
    case PP_RULE_CHUNKS:
        snprintf(buf, cap, "the pipeline layout puts the %d layers on the pp x virtual_stages chunks",
                 prob->model.layers);
        return;
    case PP_RULE_INTERLEAVE_PP:
        snprintf(buf, cap, "interleaving needs pp >= 2");
        return;
    case PP_RULE_CP_SEQUENCE:
        snprintf(buf, cap, "2 x cp divides the sequence of %d", prob->model.seq_len);
        return;
    case PP_RULE_BATCH:
        snprintf(buf, cap, "dp x micro_batch divides the batch of %ld", prob->training.global_batch);
        return;
    case PP_RULE_INTERLEAVE_MICROBATCHES:
        snprintf(buf, cap, "with interleaving, the micro-batches per pipeline run in groups of pp or more");
        return;
    case PP_RULE_FRAMEWORK:
        snprintf(buf, cap, "the framework runs every value (data/frameworks.json)");
        return;
    case PP_RULE_NONE:
    case PP_RULE_OTHER:
        break;
    }
    const char *colon = strchr(msg, ':');
    snprintf(buf, cap, "%.*s", colon ? (int)(colon - msg) : 60, msg);
}

static void count_cut(pp_family_report *ex, const char *rule)
{
    for (int i = 0; i < ex->n_cuts; i++)
        if (strcmp(ex->cuts[i].rule, rule) == 0) {
            ex->cuts[i].combinations++;
            return;
        }
    if (ex->n_cuts < PP_EXPLAIN_MAX_CUTS) {
        snprintf(ex->cuts[ex->n_cuts].rule, sizeof ex->cuts[0].rule, "%s", rule);
        ex->cuts[ex->n_cuts++].combinations = 1;
    }
}

static const pp_int_list *given_or(const pp_int_list *given, const pp_int_list *fallback)
{
    return given->n > 0 ? given : fallback;
}

/* A decision's default values (its row's). */
static void list_of_values(const pp_decision *d, pp_int_list *out)
{
    out->n = 0;
    for (int i = 0; i < d->n_values && out->n < PP_MAX_VALUES; i++)
        out->v[out->n++] = d->values[i];
}

/* Whether another expert-parallel degree could mend a split that breaks
 * `rule` at the first: the rules of the degrees, the batch and the layers
 * read no ep; the framework's and the others (the experts' own) may. */
static bool ep_may_help(pp_rule rule)
{
    return rule == PP_RULE_FRAMEWORK || rule == PP_RULE_OTHER;
}

/* Walk the degree combinations the tool tries (space.c's candidates before
 * any divisibility filter) that multiply to the GPU count, and tally the
 * first rule each breaks (a MoE model's: at its first expert-parallel
 * degree, unless one of them runs). */
static void count_cuts(const pp_problem *prob, pp_family_report *ex)
{
    long gpus = pp_problem_gpus(prob);
    long span = prob->allow_tp_across_nodes ? gpus : prob->cluster.gpus_per_node;
    pp_int_list tps = {0}, cps, mbs, vs;
    list_of_values(&pp_decisions[PP_DEC_CP], &cps);
    list_of_values(&pp_decisions[PP_DEC_MICRO_BATCH], &mbs);
    list_of_values(&pp_decisions[PP_DEC_VIRTUAL_STAGES], &vs);
    for (long t = 1; t <= span && tps.n < PP_MAX_VALUES; t++)
        if (span % t == 0 && gpus % t == 0)
            tps.v[tps.n++] = (int)t;
    const pp_int_list *T = given_or(&prob->search[PP_DEC_TP], &tps), *C = given_or(&prob->search[PP_DEC_CP], &cps);
    const pp_int_list *MB = given_or(&prob->search[PP_DEC_MICRO_BATCH], &mbs), *V = given_or(&prob->search[PP_DEC_VIRTUAL_STAGES], &vs);
    /* a MoE model's expert-parallel degrees (the space's, or those listed):
     * a split is valid when one of them is */
    bool moe = pp_model_is_moe(&prob->model);
    pp_int_list eps;
    pp_space_default_ep(prob, &eps);
    const pp_int_list *EP = given_or(&prob->search[PP_DEC_EP], &eps);
    pp_plan plan;
    pp_plan_init(&plan);
    for (int a = 0; a < T->n; a++)
        for (long p = 1; p <= prob->model.layers; p++) {
            if (prob->search[PP_DEC_PP].n > 0) {
                bool listed = false;
                for (int i = 0; i < prob->search[PP_DEC_PP].n; i++)
                    listed = listed || prob->search[PP_DEC_PP].v[i] == p;
                if (!listed)
                    continue;
            }
            for (int k = 0; k < C->n; k++) {
                long per = (long)T->v[a] * p * C->v[k];
                if (per <= 0 || gpus % per)
                    continue;
                for (int b = 0; b < MB->n; b++)
                    for (int w = 0; w < V->n; w++) {
                        plan.tp = T->v[a];
                        plan.pp = (int)p;
                        plan.cp = C->v[k];
                        plan.dp = (int)(gpus / per);
                        plan.micro_batch = MB->v[b];
                        plan.virtual_stages = V->v[w];
                        plan.sequence_parallel = moe && plan.tp > 1; /* as space.c offers a MoE model's TP */
                        ex->combinations++;
                        pp_error err, first;
                        pp_error_clear(&err);
                        pp_error_clear(&first);
                        pp_rule broken = PP_RULE_OTHER, first_broken = PP_RULE_OTHER;
                        long ranks = (long)plan.tp * plan.dp * plan.cp;
                        for (int e = 0; e < EP->n && broken != PP_RULE_NONE; e++) {
                            if (e > 0 && (ranks % EP->v[e] || !ep_may_help(first_broken)))
                                continue; /* the expert ranks fold over tp dp cp (rules.c): never valid */
                            plan.ep = EP->v[e];
                            broken = pp_plan_broken_rule(prob, &plan, e == 0 ? &err : NULL); /* the first's message */
                            if (e == 0) {
                                first_broken = broken;
                                first = err;
                            }
                        }
                        if (broken != PP_RULE_NONE) { /* the rule the first degree breaks */
                            broken = first_broken;
                            err = first;
                        }
                        if (broken == PP_RULE_NONE) {
                            ex->combinations_valid++;
                            continue;
                        }
                        char rule[96];
                        rule_name(prob, broken, err.msg, rule, sizeof rule);
                        count_cut(ex, rule);
                    }
            }
        }
    /* most cutting first; ties keep the rules' order */
    for (int i = 1; i < ex->n_cuts; i++)
        for (int j = i; j > 0 && ex->cuts[j].combinations > ex->cuts[j - 1].combinations; j--) {
            pp_rule_cut tmp = ex->cuts[j];
            ex->cuts[j] = ex->cuts[j - 1];
            ex->cuts[j - 1] = tmp;
        }
}

static void div_relax(const pp_cons_view *v, pp_family_report *f)
{
    f->has_cuts = true;
    count_cuts(v->prob, f);
}

static void div_describe(const pp_cons_view *v, const pp_family_report *f, char *buf, size_t cap)
{
    pp_catf(buf, cap,
            "Divisibility cuts the space, not the optimum: every degree divides what it splits (an equality at "
            "every plan). Of the %ld ways to split the %ld GPUs into (tp, pp, dp, cp) with the micro-batch sizes "
            "and interleaving depths tried, %ld are valid",
            f->combinations, pp_problem_gpus(v->prob), f->combinations_valid);
    for (int i = 0; i < f->n_cuts; i++)
        pp_catf(buf, cap, "%s %ld break \"%s\"", i == 0 ? ";" : ",", f->cuts[i].combinations, f->cuts[i].rule);
    pp_catf(buf, cap, ". A pipeline depth that does not divide the layers gets an uneven split (the first and last "
                      "stages lighter, as Megatron-LM's --decoder-first/last-pipeline-num-layers); interleaved, "
                      "pp x virtual_stages chunks hold the layers evenly, or with the embedding and the loss "
                      "counted as layers, else in the balanced pipeline layout (Megatron-Core's "
                      "--pipeline-model-parallel-layout), which needs a layer on every stage.");
}

const pp_cons_family pp_cons_divisibility = {
    .id = PP_CONS_DIVISIBILITY,
    .name = "divisibility",
    .explain = "the degrees divide what they split: dp x micro_batch the batch, the pipeline layout the layers "
               "over pp x virtual_stages chunks (evenly, or with the embedding and the loss counted as layers, "
               "else balanced; without interleaving, pp stages hold them unevenly)",
    .limit = false,
    .add_rows = div_add_rows,
    .prune = NULL,
    .rows_at = div_rows_at,
    .relax = div_relax,
    .describe = div_describe,
};
