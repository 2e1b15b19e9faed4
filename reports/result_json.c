/*
 * result_json.c: building the result JSON of result_json.h with cJSON.
 *
 * cJSON's add functions return NULL when memory runs out.  Rather than test
 * every call, the builders thread a small `jb` whose `ok` turns false at the
 * first failure (and which ignores any later call on a NULL parent); the
 * public functions check it once and return NULL for an incomplete document.
 */
#include "result_json.h"

#include "problem.h"

#include <math.h>
#include <stdlib.h>

typedef struct jb {
    bool ok;
} jb;

static cJSON *jb_check(jb *b, cJSON *item)
{
    if (!item)
        b->ok = false;
    return item;
}

static cJSON *add_obj(jb *b, cJSON *parent, const char *key)
{
    return parent ? jb_check(b, cJSON_AddObjectToObject(parent, key)) : jb_check(b, NULL);
}

static cJSON *add_arr(jb *b, cJSON *parent, const char *key)
{
    return parent ? jb_check(b, cJSON_AddArrayToObject(parent, key)) : jb_check(b, NULL);
}

/* Non-finite numbers become null; -0 becomes 0 (so output never shows "-0"). */
static void add_num(jb *b, cJSON *o, const char *key, double v)
{
    if (!o) {
        b->ok = false;
        return;
    }
    jb_check(b, isfinite(v) ? cJSON_AddNumberToObject(o, key, v + 0.0) : cJSON_AddNullToObject(o, key));
}

static void add_str(jb *b, cJSON *o, const char *key, const char *s)
{
    if (o)
        jb_check(b, cJSON_AddStringToObject(o, key, s ? s : ""));
    else
        b->ok = false;
}

static void add_bool(jb *b, cJSON *o, const char *key, bool v)
{
    if (o)
        jb_check(b, cJSON_AddBoolToObject(o, key, v));
    else
        b->ok = false;
}

/* Attach item under key, or record the failure (freeing item). */
static void add_item(jb *b, cJSON *o, const char *key, cJSON *item)
{
    if (o && item && cJSON_AddItemToObject(o, key, item))
        return;
    cJSON_Delete(item);
    b->ok = false;
}

static cJSON *finish(jb *b, cJSON *root)
{
    if (b->ok && root)
        return root;
    cJSON_Delete(root);
    return NULL;
}

/* ---- plan ---------------------------------------------------------------- */

static const char *codec_id(const pp_problem *prob, int i)
{
    return i >= 0 && i < prob->n_codecs ? prob->codecs[i].id : "none";
}

static void put_plan_fields(jb *b, cJSON *o, const pp_problem *prob, const pp_plan *p)
{
    add_num(b, o, "tp", p->tp);
    add_num(b, o, "pp", p->pp);
    add_num(b, o, "dp", p->dp);
    add_num(b, o, "cp", p->cp);
    add_num(b, o, "micro_batch", p->micro_batch);
    add_num(b, o, "virtual_stages", p->virtual_stages);
    add_num(b, o, "zero", p->zero);
    add_str(b, o, "recompute", pp_recompute_name(p->recompute));
    add_bool(b, o, "sequence_parallel", p->sequence_parallel);
    add_str(b, o, "tp_mode", pp_tp_mode_name(p->tp_mode));
    if (p->tp_mode == PP_TP_2P5D)
        add_num(b, o, "tp_depth", p->tp_depth);
    cJSON *comp = add_obj(b, o, "compression");
    for (int d = 0; d < PP_DIM_COUNT; d++)
        add_str(b, comp, pp_dim_name((pp_dim)d), codec_id(prob, p->codec[d]));
}

cJSON *pp_json_plan(const pp_problem *prob, const pp_plan *plan)
{
    jb b = {true};
    cJSON *o = jb_check(&b, cJSON_CreateObject());
    put_plan_fields(&b, o, prob, plan);
    return finish(&b, o);
}

/* ---- a priced plan ------------------------------------------------------- */

static void put_time(jb *b, cJSON *o, const pp_time *t)
{
    cJSON *ts = add_obj(b, o, "time_s");
    add_num(b, ts, "compute", t->compute_s);
    add_num(b, ts, "bubble", t->bubble_s);
    add_num(b, ts, "exposed_comm", t->exposed_comm_s);
    add_num(b, ts, "compression", t->compression_s);
    add_num(b, ts, "optimizer", t->optimizer_s);
    cJSON *by = add_obj(b, ts, "exposed_comm_by_dim");
    add_num(b, by, "tp", t->tp_comm_s);
    add_num(b, by, "cp", t->cp_comm_s);
    add_num(b, by, "pp", t->pp_comm_s);
    add_num(b, by, "dp", t->dp_comm_s);
}

static void put_throughput(jb *b, cJSON *o, const pp_eval *ev)
{
    cJSON *tp = add_obj(b, o, "throughput");
    add_num(b, tp, "tokens_per_s", ev->tokens_per_s);
    add_num(b, tp, "model_tflops_per_gpu", ev->model_tflops_per_gpu);
    add_num(b, tp, "mfu", ev->mfu);
    add_num(b, tp, "hardware_tflops_per_gpu", ev->hardware_tflops_per_gpu);
    add_num(b, tp, "peak_tflops_per_gpu", ev->peak_tflops);
}

static void put_memory(jb *b, cJSON *o, const pp_memory *m)
{
    cJSON *mem = add_obj(b, o, "memory_gib");
    add_num(b, mem, "weights", m->weights_gib);
    add_num(b, mem, "gradients", m->gradients_gib);
    add_num(b, mem, "optimizer", m->optimizer_gib);
    add_num(b, mem, "activations", m->activations_gib);
    add_num(b, mem, "other", m->other_gib);
    add_num(b, mem, "total", m->total_gib);
    add_num(b, mem, "capacity", m->capacity_gib);
    add_num(b, mem, "usable", m->usable_gib);
    add_num(b, mem, "most_loaded_stage", m->stage);
}

static void put_priced(jb *b, cJSON *o, const pp_problem *prob, const pp_plan *plan, const pp_eval *ev)
{
    add_item(b, o, "plan", pp_json_plan(prob, plan));
    add_num(b, o, "gpus", ev->gpus_used);
    add_num(b, o, "step_time_s", ev->time.step_s);
    put_time(b, o, &ev->time);
    put_throughput(b, o, ev);
    put_memory(b, o, &ev->mem);
    add_bool(b, o, "fits_memory", ev->mem.total_gib <= ev->mem.usable_gib);
    add_num(b, o, "microbatches", ev->microbatches);
}

/* ---- the problem echo ---------------------------------------------------- */

static void put_problem(jb *b, cJSON *o, const pp_problem *prob)
{
    cJSON *pr = add_obj(b, o, "problem");
    const pp_model *m = &prob->model;
    cJSON *mo = add_obj(b, pr, "model");
    add_str(b, mo, "name", m->name);
    add_num(b, mo, "layers", m->layers);
    add_num(b, mo, "hidden", m->hidden);
    add_num(b, mo, "heads", m->heads);
    add_num(b, mo, "kv_heads", m->kv_heads);
    add_num(b, mo, "ffn_hidden", m->ffn_hidden);
    add_bool(b, mo, "gated_mlp", m->gated_mlp);
    add_bool(b, mo, "tie_embeddings", m->tie_embeddings);
    add_num(b, mo, "vocab", m->vocab);
    add_num(b, mo, "seq_len", m->seq_len);
    const pp_cluster *c = &prob->cluster;
    cJSON *cl = add_obj(b, pr, "cluster");
    add_str(b, cl, "gpu", c->gpu.id[0] ? c->gpu.id : "custom");
    add_num(b, cl, "gpus_per_node", c->gpus_per_node);
    add_num(b, cl, "nodes", (double)c->nodes);
    add_num(b, cl, "intra_node_GBps", c->intra_node_GBps);
    add_num(b, cl, "inter_node_Gbps", c->inter_node_Gbps);
    cJSON *tr = add_obj(b, pr, "training");
    add_num(b, tr, "global_batch", (double)prob->training.global_batch);
    add_str(b, tr, "precision", pp_precision_name(prob->training.precision));
    add_str(b, pr, "objective", pp_objective_name(prob->objective));
}

/* ---- eval ---------------------------------------------------------------- */

cJSON *pp_json_eval(const pp_problem *prob, const pp_plan *plan, const pp_eval *ev)
{
    jb b = {true};
    cJSON *root = jb_check(&b, cJSON_CreateObject());
    add_str(&b, root, "status", pp_status_name(PP_STATUS_EVALUATED));
    put_priced(&b, root, prob, plan, ev);
    put_problem(&b, root, prob);
    return finish(&b, root);
}

/* ---- plan ---------------------------------------------------------------- */

static void put_certificate(jb *b, cJSON *o, const pp_plan_result *res)
{
    const pp_certificate *c = &res->cert;
    cJSON *ce = add_obj(b, o, "certificate");
    add_str(b, ce, "method", c->method);
    add_str(b, ce, "solver", c->solver);
    add_str(b, ce, "status", pp_status_name(res->status));
    add_num(b, ce, "objective_s", c->objective_s);
    add_num(b, ce, "best_bound_s", c->best_bound_s);
    add_num(b, ce, "gap", c->gap);
    add_num(b, ce, "lp_relaxation_s", c->lp_relaxation_s);
    add_num(b, ce, "nodes", (double)c->nodes);
    add_num(b, ce, "plans_evaluated", (double)c->plans_evaluated);
    add_num(b, ce, "decision_space", c->decision_space);
    add_num(b, ce, "rows", c->rows);
    add_num(b, ce, "cols", c->cols);
    add_num(b, ce, "binaries", c->binaries);
    add_num(b, ce, "solve_time_s", c->solve_time_s);
}

static void put_runner_ups(jb *b, cJSON *o, const pp_problem *prob, const pp_plan_result *res)
{
    cJSON *arr = add_arr(b, o, "runner_ups");
    double best = res->best.eval.time.step_s;
    for (int i = 0; arr && i < res->n_runner_ups; i++) {
        const pp_candidate *c = &res->runner_ups[i];
        cJSON *ru = jb_check(b, cJSON_CreateObject());
        add_item(b, ru, "plan", pp_json_plan(prob, &c->plan));
        add_num(b, ru, "step_time_s", c->eval.time.step_s);
        add_num(b, ru, "gap_to_best", best > 0 ? (c->eval.time.step_s - best) / best : 0);
        if (ru && !cJSON_AddItemToArray(arr, ru)) {
            cJSON_Delete(ru);
            b->ok = false;
        }
    }
}

/* A result carries a priced plan unless the problem is infeasible (or the
 * solver stopped before finding any plan). */
static bool has_plan(const pp_plan_result *res)
{
    return res->status != PP_STATUS_INFEASIBLE && res->best.plan.tp >= 1;
}

cJSON *pp_json_plan_result(const pp_problem *prob, const pp_plan_result *res)
{
    jb b = {true};
    cJSON *root = jb_check(&b, cJSON_CreateObject());
    add_str(&b, root, "status", pp_status_name(res->status));
    if (has_plan(res))
        put_priced(&b, root, prob, &res->best.plan, &res->best.eval);
    if (res->status == PP_STATUS_INFEASIBLE)
        add_str(&b, root, "infeasible_reason", res->infeasible_reason);
    put_certificate(&b, root, res);
    put_runner_ups(&b, root, prob, res);
    put_problem(&b, root, prob);
    return finish(&b, root);
}

int pp_json_render(const cJSON *doc, pp_strbuf *out)
{
    char *text = cJSON_Print(doc);
    if (!text) {
        out->failed = true;
        return -1;
    }
    int rc = pp_sb_append(out, text);
    cJSON_free(text);
    return rc ? rc : pp_sb_append(out, "\n");
}
