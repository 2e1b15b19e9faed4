/*
 * result_json.c: building the result JSON of result_json.h with cJSON.
 *
 * cJSON's add functions return NULL when memory runs out.  Rather than test
 * every call, the builders thread a small `jb` whose `ok` turns false at the
 * first failure (and which ignores any later call on a NULL parent); the
 * public functions check it once and return NULL for an incomplete document.
 */
#include "jsonb.h"
#include "result_json.h"

#include "assumptions.h"
#include "decisions.h"
#include "explain_text.h"
#include "launch.h"
#include "problem.h"
#include "rules.h"
#include "shapes_json.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static cJSON *finish(pp_jb *b, cJSON *root)
{
    if (b->ok && root)
        return root;
    cJSON_Delete(root);
    return NULL;
}

/* ---- plan ---------------------------------------------------------------- */

/* Every decision under its PLAN.json key (decisions.h), so the plan of a
 * result reads back as the same plan; a decision shown only when used
 * (tp_depth) is written only then. */
static void put_plan_fields(pp_jb *b, cJSON *o, const pp_problem *prob, const pp_plan *p)
{
    cJSON *comp = NULL;
    for (int i = 0; i < PP_DEC_COUNT; i++) {
        const pp_decision *d = &pp_decisions[i];
        int v = pp_decision_get(p, d->id);
        switch (d->kind) {
        case PP_DK_INT:
            if (d->show == PP_SHOW_ALWAYS || v != d->def)
                pp_jb_num(b, o, d->key, v);
            break;
        case PP_DK_ENUM: pp_jb_str(b, o, d->key, d->names[v]); break;
        case PP_DK_BOOL: pp_jb_bool(b, o, d->key, v != 0); break;
        case PP_DK_CODEC:
            if (!comp)
                comp = pp_jb_obj(b, o, "compression");
            pp_jb_str(b, comp, d->key, pp_codec_id(prob, v));
            break;
        }
    }
}

cJSON *pp_json_plan(const pp_problem *prob, const pp_plan *plan)
{
    pp_jb b = {true};
    cJSON *o = pp_jb_check(&b, cJSON_CreateObject());
    put_plan_fields(&b, o, prob, plan);
    return finish(&b, o);
}

/* ---- a priced plan ------------------------------------------------------- */

static void put_time(pp_jb *b, cJSON *o, const pp_time *t)
{
    cJSON *ts = pp_jb_obj(b, o, "time_s");
    pp_jb_num(b, ts, "compute", t->compute_s);
    pp_jb_num(b, ts, "bubble", t->bubble_s);
    pp_jb_num(b, ts, "exposed_comm", t->exposed_comm_s);
    pp_jb_num(b, ts, "compression", t->compression_s);
    pp_jb_num(b, ts, "optimizer", t->optimizer_s);
    pp_jb_num(b, ts, "link_wait", t->link_wait_s);
    cJSON *by = pp_jb_obj(b, ts, "exposed_comm_by_dim");
    pp_jb_num(b, by, "tp", t->tp_comm_s);
    pp_jb_num(b, by, "cp", t->cp_comm_s);
    pp_jb_num(b, by, "pp", t->pp_comm_s);
    pp_jb_num(b, by, "dp", t->dp_comm_s);
    pp_jb_num(b, by, "ep", t->ep_comm_s);
}

static void put_throughput(pp_jb *b, cJSON *o, const pp_eval *ev)
{
    cJSON *tp = pp_jb_obj(b, o, "throughput");
    pp_jb_num(b, tp, "tokens_per_s", ev->tokens_per_s);
    pp_jb_num(b, tp, "model_tflops_per_gpu", ev->model_tflops_per_gpu);
    pp_jb_num(b, tp, "mfu", ev->mfu);
    pp_jb_num(b, tp, "hardware_tflops_per_gpu", ev->hardware_tflops_per_gpu);
    pp_jb_num(b, tp, "peak_tflops_per_gpu", ev->peak_tflops);
}

static void put_memory(pp_jb *b, cJSON *o, const pp_memory *m)
{
    cJSON *mem = pp_jb_obj(b, o, "memory_gib");
    pp_jb_num(b, mem, "weights", m->weights_gib);
    pp_jb_num(b, mem, "gradients", m->gradients_gib);
    pp_jb_num(b, mem, "optimizer", m->optimizer_gib);
    pp_jb_num(b, mem, "activations", m->activations_gib);
    pp_jb_num(b, mem, "other", m->other_gib);
    pp_jb_num(b, mem, "total", m->total_gib);
    pp_jb_num(b, mem, "capacity", m->capacity_gib);
    pp_jb_num(b, mem, "usable", m->usable_gib);
    pp_jb_num(b, mem, "most_loaded_stage", m->stage);
}

static void put_priced(pp_jb *b, cJSON *o, const pp_problem *prob, const pp_plan *plan, const pp_eval *ev)
{
    pp_jb_item(b, o, "plan", pp_json_plan(prob, plan));
    pp_jb_num(b, o, "gpus", ev->gpus_used);
    pp_stage_split split;
    if (pp_stage_layers(prob, plan, &split)) {
        cJSON *sl = pp_jb_obj(b, o, "pipeline_stage_layers");
        pp_jb_num(b, sl, "first", split.first);
        pp_jb_num(b, sl, "middle", split.middle);
        pp_jb_num(b, sl, "last", split.last);
    }
    if (pp_problem_gpus(prob) >= ev->gpus_used) /* a capacity problem has no cluster of its own */
        pp_jb_num(b, o, "gpus_idle", (double)(pp_problem_gpus(prob) - ev->gpus_used));
    pp_jb_num(b, o, "step_time_s", ev->time.step_s);
    put_time(b, o, &ev->time);
    put_throughput(b, o, ev);
    put_memory(b, o, &ev->mem);
    pp_jb_bool(b, o, "fits_memory", ev->mem.total_gib <= ev->mem.usable_gib);
    pp_jb_bool(b, o, "tp_across_nodes", pp_plan_tp_spans_nodes(prob, plan));
    /* whether the problem's framework runs every value of the plan
     * (data/frameworks.json): `eval` prices a plan it cannot run */
    char why[512], label[PP_NAME_LEN + PP_FW_VERSION_LEN + 8], reason[PP_NAME_LEN + PP_FW_VERSION_LEN + 600];
    bool runnable = pp_plan_runnable(prob, plan, why, sizeof why);
    pp_jb_bool(b, o, "runnable", runnable);
    if (!runnable) {
        snprintf(reason, sizeof reason, "not runnable by %s: %s", pp_framework_label(prob, label, sizeof label), why);
        pp_jb_str(b, o, "not_runnable_reason", reason);
    }
    /* whether the GPU's efficiencies were fitted to measurements */
    const pp_gpu *g = &prob->cluster.gpu;
    cJSON *cal = pp_jb_obj(b, o, "calibrated");
    cJSON *gc = pp_jb_obj(b, cal, g->id[0] ? g->id : "custom");
    pp_jb_bool(b, gc, "calibrated", g->eff.calibrated);
    pp_json_put_borrow(b, gc, &g->eff);
    pp_json_put_stack_level(b, gc, &g->eff);
    pp_jb_str(b, gc, "source", g->eff.source);
    cJSON *busy = pp_jb_obj(b, o, "link_busy_s");
    pp_jb_num(b, busy, "nvlink", ev->nvlink_busy_s);
    pp_jb_num(b, busy, "network", ev->network_busy_s);
    pp_jb_num(b, o, "microbatches", ev->microbatches);
}

/* ---- the problem echo ---------------------------------------------------- */

static void put_problem(pp_jb *b, cJSON *o, const pp_problem *prob)
{
    cJSON *pr = pp_jb_obj(b, o, "problem");
    const pp_model *m = &prob->model;
    cJSON *mo = pp_jb_obj(b, pr, "model");
    pp_jb_str(b, mo, "name", m->name);
    pp_jb_num(b, mo, "layers", m->layers);
    pp_jb_num(b, mo, "hidden", m->hidden);
    pp_jb_num(b, mo, "heads", m->heads);
    pp_jb_num(b, mo, "kv_heads", m->kv_heads);
    pp_jb_num(b, mo, "head_dim", pp_model_head_dim(m));
    pp_jb_num(b, mo, "ffn_hidden", m->ffn_hidden);
    pp_jb_bool(b, mo, "gated_mlp", m->gated_mlp);
    pp_jb_bool(b, mo, "tie_embeddings", m->tie_embeddings);
    pp_jb_num(b, mo, "vocab", m->vocab);
    pp_jb_num(b, mo, "seq_len", m->seq_len);
    pp_jb_num(b, mo, "params", pp_model_params(m));
    pp_jb_num(b, mo, "active_params", pp_model_active_params(m));
    /* Mixture of experts and latent attention: their keys, when the model has them */
    const struct {
        const char *key;
        int value;
        bool show;
    } extra[] = {
        {"experts", m->experts, pp_model_is_moe(m)},
        {"experts_per_token", m->experts_per_token, pp_model_is_moe(m)},
        {"moe_ffn_hidden", m->moe_ffn_hidden, pp_model_is_moe(m)},
        {"shared_experts", m->shared_experts, pp_model_is_moe(m)},
        {"shared_ffn_hidden", m->shared_ffn_hidden, pp_model_is_moe(m)},
        {"first_dense_layers", m->first_dense_layers, pp_model_is_moe(m)},
        {"moe_layer_freq", m->moe_layer_freq, pp_model_is_moe(m)},
        {"moe_layers", pp_moe_layers(m), pp_model_is_moe(m)},
        {"mtp_layers", m->mtp_layers, m->mtp_layers > 0},
        {"q_lora_rank", m->q_lora_rank, pp_model_is_mla(m)},
        {"kv_lora_rank", m->kv_lora_rank, pp_model_is_mla(m)},
        {"qk_nope_head_dim", m->qk_nope_head_dim, pp_model_is_mla(m)},
        {"qk_rope_head_dim", m->qk_rope_head_dim, pp_model_is_mla(m)},
        {"v_head_dim", m->v_head_dim, pp_model_is_mla(m)},
        {"sliding_window", m->sliding_window, m->sliding_window > 0},
        {"window_attn_skip_freq", m->window_attn_skip_freq, m->window_attn_skip_freq > 0},
        {"windowed_layers", pp_windowed_layers(m, pp_attention_span(m, &prob->training)), m->sliding_window > 0},
    };
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
        if (extra[i].show)
            pp_jb_num(b, mo, extra[i].key, extra[i].value);
    const pp_cluster *c = &prob->cluster;
    cJSON *cl = pp_jb_obj(b, pr, "cluster");
    pp_jb_str(b, cl, "gpu", c->gpu.id[0] ? c->gpu.id : "custom");
    pp_jb_num(b, cl, "gpus_per_node", c->gpus_per_node);
    pp_jb_num(b, cl, "nodes", (double)c->nodes);
    pp_jb_num(b, cl, "intra_node_GBps", c->intra_node_GBps);
    pp_jb_num(b, cl, "inter_node_Gbps", c->inter_node_Gbps);
    if (c->leaf_nodes > 0 || c->network_oversubscription > 1.0) { /* echoed only when the problem gives them */
        pp_jb_num(b, cl, "network_oversubscription", c->network_oversubscription > 1.0 ? c->network_oversubscription : 1.0);
        pp_jb_num(b, cl, "leaf_nodes", (double)(c->leaf_nodes > 0 ? c->leaf_nodes : c->nodes));
    }
    bool rails = c->gpus_per_nic_switch > 0 && !c->nccl_pxn; /* echoed only when rings may cross rails */
    if (rails)
        pp_jb_num(b, cl, "gpus_per_nic_switch", c->gpus_per_nic_switch);
    cJSON *tr = pp_jb_obj(b, pr, "training");
    pp_jb_num(b, tr, "global_batch", (double)prob->training.global_batch);
    if (rails)
        pp_jb_bool(b, tr, "nccl_pxn", false);
    if (c->gpu.nvls_allreduce_fraction > 0.0 && !c->nccl_nvls) /* echoed only when it turns NVLS off */
        pp_jb_bool(b, tr, "nccl_nvls", false);
    pp_jb_str(b, tr, "precision", pp_precision_name(prob->training.precision));
    pp_jb_str(b, tr, "framework", pp_framework_name(prob->training.framework)); /* a usual name resolved */
    if (prob->training.lora_rank > 0) { /* echoed only for fine-tuning with LoRA */
        pp_jb_num(b, tr, "lora_rank", (double)prob->training.lora_rank);
        pp_jb_str(b, tr, "lora_targets", pp_lora_targets_names[prob->training.lora_targets]);
    }
    if (prob->training.fp8_params)
        pp_jb_bool(b, tr, "fp8_params", true);
    if (prob->training.fp8_act_store)
        pp_jb_bool(b, tr, "fp8_activation_input_store", true);
    if (prob->training.packed_sample_tokens > 0.0)
        pp_jb_num(b, tr, "packed_sample_tokens", prob->training.packed_sample_tokens);
    if (prob->training.moe_force_balance)
        pp_jb_bool(b, tr, "moe_force_balance", true);
    if (prob->training.mtp_layers > 0 || prob->model.mtp_layers > 0) /* the MTP modules trained */
        pp_jb_num(b, tr, "mtp_layers", (double)prob->training.mtp_layers);
    if (prob->training.cuda_graphs != PP_GRAPHS_NONE) /* echoed only when the layers are captured */
        pp_jb_str(b, tr, "cuda_graphs", pp_cuda_graphs_names[prob->training.cuda_graphs]);
    if (prob->training.moment_bytes == 2) /* echoed only when Adam's moments are 16-bit */
        pp_jb_str(b, tr, "optimizer_moments_dtype", prob->training.moments_fp16 ? "fp16" : "bf16");
    int first, last;
    pp_bf16_layers(prob, &first, &last);
    if (first + last > 0) { /* echoed only when a low-precision recipe keeps blocks in bf16 */
        pp_jb_num(b, tr, "bf16_layers_first", (double)first);
        pp_jb_num(b, tr, "bf16_layers_last", (double)last);
    }
    pp_jb_str(b, pr, "objective", pp_objective_name(prob->objective));
}

/* ---- eval ---------------------------------------------------------------- */

/* The CUDA-graph advice (launch.c), as the report's "CUDA graphs" says it. */
static void put_cuda_graphs(pp_jb *b, cJSON *parent, const pp_problem *prob, const pp_plan *plan, const pp_eval *ev)
{
    pp_cuda_graph_advice a;
    pp_cuda_graph_advice_of(prob, plan, ev, &a);
    cJSON *g = pp_jb_obj(b, parent, "cuda_graphs");
    if (!g)
        return;
    pp_jb_num(b, g, "gpu_ms_per_layer", a.layer_ms);
    pp_jb_bool(b, g, "advised", a.advised);
    if (a.advised) {
        pp_jb_str(b, g, "megatron_cuda_graph_impl", a.impl);
        if (a.scope)
            pp_jb_str(b, g, "megatron_cuda_graph_scope", a.scope);
        pp_jb_num(b, g, "free_gib", a.free_gib);
    }
    if (prob->model.experts > 0)
        pp_jb_num(b, g, "host_wait_s", a.host_wait_s);
}

cJSON *pp_json_eval(const pp_problem *prob, const pp_plan *plan, const pp_eval *ev)
{
    pp_jb b = {true};
    cJSON *root = pp_jb_check(&b, cJSON_CreateObject());
    pp_jb_str(&b, root, "status", pp_status_name(PP_STATUS_EVALUATED));
    put_priced(&b, root, prob, plan, ev);
    put_cuda_graphs(&b, root, prob, plan, ev);
    put_problem(&b, root, prob);
    return finish(&b, root);
}

/* ---- plan ---------------------------------------------------------------- */

static void put_certificate(pp_jb *b, cJSON *o, const pp_plan_result *res)
{
    const pp_certificate *c = &res->cert;
    cJSON *ce = pp_jb_obj(b, o, "certificate");
    pp_jb_str(b, ce, "method", c->method);
    pp_jb_str(b, ce, "solver", c->solver);
    pp_jb_str(b, ce, "status", pp_status_name(res->status));
    pp_jb_num(b, ce, "objective_s", c->objective_s);
    pp_jb_num(b, ce, "best_bound_s", c->best_bound_s);
    pp_jb_num(b, ce, "gap", c->gap);
    pp_jb_num(b, ce, "lp_relaxation_s", c->lp_relaxation_s);
    pp_jb_num(b, ce, "nodes", (double)c->nodes);
    pp_jb_num(b, ce, "plans_evaluated", (double)c->plans_evaluated);
    pp_jb_num(b, ce, "decision_space", c->decision_space);
    pp_jb_num(b, ce, "rows", c->rows);
    pp_jb_num(b, ce, "cols", c->cols);
    pp_jb_num(b, ce, "binaries", c->binaries);
    pp_jb_num(b, ce, "solve_time_s", c->solve_time_s);
}

static void put_runner_ups(pp_jb *b, cJSON *o, const pp_problem *prob, const pp_plan_result *res)
{
    cJSON *arr = pp_jb_arr(b, o, "runner_ups");
    double best = res->best.eval.time.step_s;
    for (int i = 0; arr && i < res->n_runner_ups; i++) {
        const pp_candidate *c = &res->runner_ups[i];
        cJSON *ru = pp_jb_check(b, cJSON_CreateObject());
        pp_jb_item(b, ru, "plan", pp_json_plan(prob, &c->plan));
        pp_jb_num(b, ru, "step_time_s", c->eval.time.step_s);
        pp_jb_num(b, ru, "gap_to_best", best > 0 ? (c->eval.time.step_s - best) / best : 0);
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

/* ---- the explanation (explain.h) ------------------------------------------ */

static void add_to_array(pp_jb *b, cJSON *arr, cJSON *item)
{
    if (arr && item && cJSON_AddItemToArray(arr, item))
        return;
    cJSON_Delete(item);
    b->ok = false;
}

static void put_summary(pp_jb *b, cJSON *o, const pp_problem *prob, const pp_plan_result *res, const pp_explanation *ex)
{
    const pp_eval *ev = &res->best.eval;
    double tokens = prob->training.tokens;
    if (tokens > 0 && ev->tokens_per_s > 0) {
        double secs = tokens / ev->tokens_per_s;
        pp_jb_num(b, o, "time_to_train_s", secs);
        pp_jb_num(b, o, "time_to_train_days", secs / 86400.0);
        pp_jb_num(b, o, "gpu_hours", secs / 3600.0 * ev->gpus_used);
    }
    if (!ex || !ex->done)
        return;
    cJSON *sum = pp_jb_obj(b, o, "limits");
    char text[2048];
    pp_text_limits(res, ex, text, sizeof text);
    pp_jb_str(b, sum, "text", text);
    cJSON *arr = pp_jb_arr(b, sum, "speedups");
    for (int i = 0; arr && i < ex->n_speedups; i++) {
        const pp_counterfactual *cf = ex->speedups[i];
        cJSON *it = pp_jb_check(b, cJSON_CreateObject());
        pp_jb_str(b, it, "change", cf->key);
        pp_jb_str(b, it, "what", cf->what);
        pp_jb_num(b, it, "gain", cf->gain);
        pp_jb_num(b, it, "step_time_s", cf->best.eval.time.step_s);
        add_to_array(b, arr, it);
    }
}

static void put_counterfactual(pp_jb *b, cJSON *arr, const pp_problem *prob, const pp_counterfactual *cf)
{
    cJSON *it = pp_jb_check(b, cJSON_CreateObject());
    pp_jb_str(b, it, "change", cf->key);
    pp_jb_str(b, it, "what", cf->what);
    pp_jb_str(b, it, "status", pp_status_name(cf->status));
    pp_jb_num(b, it, "gpus", cf->gpus);
    if (cf->status != PP_STATUS_INFEASIBLE) {
        pp_jb_item(b, it, "plan", pp_json_plan(prob, &cf->best.plan));
        pp_jb_num(b, it, "step_time_s", cf->best.eval.time.step_s);
        pp_jb_num(b, it, "gain", cf->gain);
        pp_jb_num(b, it, "memory_gib", cf->best.eval.mem.total_gib);
    }
    if (cf->reason[0])
        pp_jb_str(b, it, "reason", cf->reason);
    add_to_array(b, arr, it);
}

static void put_binding(pp_jb *b, cJSON *o, const pp_problem *prob, const pp_explanation *ex)
{
    cJSON *arr = pp_jb_arr(b, o, "binding");
    for (int i = 0; arr && i < ex->n_families; i++) {
        const pp_family_report *f = &ex->families[i];
        cJSON *it = pp_jb_check(b, cJSON_CreateObject());
        pp_jb_str(b, it, "family", f->family->name);
        pp_jb_str(b, it, "explain", f->family->explain);
        pp_jb_bool(b, it, "binds", f->binds);
        pp_jb_bool(b, it, "tight", f->tight);
        if (f->tightest >= 0)
            pp_jb_str(b, it, "tightest_row", f->rows[f->tightest].name);
        cJSON *rows = pp_jb_arr(b, it, "rows");
        for (int k = 0; rows && k < f->n_rows; k++) {
            const pp_cons_row *r = &f->rows[k];
            cJSON *ro = pp_jb_check(b, cJSON_CreateObject());
            pp_jb_str(b, ro, "name", r->name);
            pp_jb_num(b, ro, "lhs", r->lhs);
            pp_jb_num(b, ro, "rhs", r->rhs);
            pp_jb_str(b, ro, "unit", r->unit ? r->unit : "");
            pp_jb_bool(b, ro, "equality", r->equality);
            pp_jb_num(b, ro, "slack", r->equality ? 0.0 : r->slack);
            pp_jb_bool(b, ro, "binding", r->binding);
            add_to_array(b, rows, ro);
        }
        cJSON *cfs = pp_jb_arr(b, it, "counterfactuals");
        for (int k = 0; cfs && k < f->n_cf; k++)
            put_counterfactual(b, cfs, prob, &f->cf[k]);
        if (f->has_cuts) {
            pp_jb_num(b, it, "combinations", (double)f->combinations);
            pp_jb_num(b, it, "combinations_valid", (double)f->combinations_valid);
            cJSON *cuts = pp_jb_arr(b, it, "cuts");
            for (int k = 0; cuts && k < f->n_cuts; k++) {
                cJSON *c = pp_jb_check(b, cJSON_CreateObject());
                pp_jb_str(b, c, "rule", f->cuts[k].rule);
                pp_jb_num(b, c, "combinations", (double)f->cuts[k].combinations);
                add_to_array(b, cuts, c);
            }
        }
        char verdict[2048];
        pp_text_family_verdict(ex, f, verdict, sizeof verdict);
        pp_jb_str(b, it, "verdict", verdict);
        add_to_array(b, arr, it);
    }
}

static void put_runner_up_why(pp_jb *b, cJSON *ru, const pp_problem *prob, const pp_plan *plan, const pp_plan *best,
                              const pp_runner_up_report *r)
{
    char text[512];
    pp_jb_bool(b, ru, "tie", r->tie);
    cJSON *lo = pp_jb_obj(b, ru, "loses_on");
    pp_jb_str(b, lo, "part", pp_part_key(r->worst));
    pp_jb_num(b, lo, "delta_s", r->delta_s);
    pp_text_changes(prob, plan, best, text, sizeof text);
    pp_jb_str(b, ru, "changes", text);
    pp_text_why(prob, plan, best, r, text, sizeof text);
    pp_jb_str(b, ru, "why", text);
    pp_jb_num(b, ru, "memory_free_gib", r->headroom_gib);
    pp_jb_num(b, ru, "tricks", r->tricks);
    pp_text_tricks(prob, plan, text, sizeof text);
    pp_jb_str(b, ru, "tricks_text", text);
}

static void put_ties(pp_jb *b, cJSON *o, const pp_problem *prob, const pp_plan_result *res, const pp_explanation *ex)
{
    char text[2048];
    cJSON *t = pp_jb_obj(b, o, "ties");
    pp_jb_num(b, t, "cost_model_error", ex->model_error);
    pp_jb_num(b, t, "count", ex->n_ties);
    pp_jb_num(b, t, "best_memory_free_gib", ex->best.headroom_gib);
    pp_text_tricks(prob, &res->best.plan, text, sizeof text);
    pp_jb_str(b, t, "best_tricks_text", text);
    pp_text_ties(prob, res, ex, text, sizeof text);
    pp_jb_str(b, t, "text", text);
    if (ex->have_simplest) {
        cJSON *s = pp_jb_obj(b, t, "simplest");
        pp_jb_item(b, s, "plan", pp_json_plan(prob, &ex->simplest.best.plan));
        pp_jb_num(b, s, "step_time_s", ex->simplest.best.eval.time.step_s);
        pp_jb_num(b, s, "gap_to_best", ex->simplest_report.gap);
        put_runner_up_why(b, s, prob, &ex->simplest.best.plan, &res->best.plan, &ex->simplest_report);
    }
}

static void put_schedule(pp_jb *b, cJSON *o, const pp_schedule *s)
{
    cJSON *sc = pp_jb_obj(b, o, "schedule");
    pp_jb_str(b, sc, "kind", s->pp < 2 ? "none" : s->virtual_stages > 1 ? "interleaved-1f1b" : "1f1b");
    pp_jb_num(b, sc, "pp", s->pp);
    pp_jb_num(b, sc, "virtual_stages", s->virtual_stages);
    pp_jb_num(b, sc, "microbatches", s->microbatches);
    pp_jb_num(b, sc, "microbatches_shown", s->microbatches_shown);
    pp_jb_num(b, sc, "forward_s", s->forward_s);
    pp_jb_num(b, sc, "backward_s", s->backward_s);
    pp_jb_num(b, sc, "slot_s", s->slot_s);
    pp_jb_num(b, sc, "other_forward_s", s->other_forward_s);
    pp_jb_num(b, sc, "other_backward_s", s->other_backward_s);
    pp_jb_num(b, sc, "bubble_slot_s", s->bubble_slot_s);
    pp_jb_num(b, sc, "pipeline_s", s->pipeline_s);
    pp_jb_num(b, sc, "bubble_s", s->bubble_s);
    pp_jb_num(b, sc, "shown_makespan_s", s->shown_makespan_s);
    pp_jb_num(b, sc, "ops_left_out", s->ops_left_out);
    cJSON *st = pp_jb_arr(b, sc, "stages_shown");
    for (int i = 0; st && i < s->n_stages_shown; i++)
        add_to_array(b, st, pp_jb_check(b, cJSON_CreateNumber(s->stages_shown[i])));
    cJSON *tasks = pp_jb_arr(b, sc, "tasks");
    for (int i = 0; tasks && i < s->n_tasks; i++) {
        const pp_sched_task *t = &s->tasks[i];
        cJSON *it = pp_jb_check(b, cJSON_CreateObject());
        pp_jb_num(b, it, "stage", t->stage);
        pp_jb_str(b, it, "pass", t->backward ? "backward" : "forward");
        pp_jb_num(b, it, "microbatch", t->microbatch);
        pp_jb_num(b, it, "chunk", t->chunk);
        pp_jb_num(b, it, "start_s", t->start_s);
        pp_jb_num(b, it, "end_s", t->end_s);
        add_to_array(b, tasks, it);
    }
}

static void put_baseline(pp_jb *b, cJSON *o, const pp_problem *prob, const pp_baseline_report *bl)
{
    cJSON *bo = pp_jb_obj(b, o, "baseline");
    pp_jb_str(b, bo, "label", bl->label);
    pp_jb_item(b, bo, "plan", pp_json_plan(prob, &bl->plan));
    pp_jb_bool(b, bo, "valid", bl->valid);
    if (bl->valid) {
        pp_jb_num(b, bo, "step_time_s", bl->eval.time.step_s);
        put_time(b, bo, &bl->eval.time);
        pp_jb_num(b, bo, "tokens_per_s", bl->eval.tokens_per_s);
        pp_jb_num(b, bo, "memory_gib", bl->eval.mem.total_gib);
        pp_jb_bool(b, bo, "feasible", bl->feasible);
        pp_jb_num(b, bo, "speedup", bl->speedup);
        pp_jb_num(b, bo, "time_saved", bl->time_saved);
    }
    char problem_text[2400];
    pp_text_baseline_problem(bl, problem_text, sizeof problem_text);
    if (problem_text[0])
        pp_jb_str(b, bo, "problem", problem_text);
}

/* One launch target (launch.h) as JSON: a command line's groups as an
 * array of strings; a configuration as an object whose sections are objects
 * (DeepSpeed) or, for a TOML target, flattened under each setting's JSON
 * key; a target's top-level switches follow its values, and `exact` closes
 * it (docs/interface.md's order). */
static void put_launch_value(pp_jb *b, cJSON *o, const char *key, const pp_launch_setting *s)
{
    switch (s->kind) {
    case PP_LV_INT: pp_jb_num(b, o, key, (double)s->num); break;
    case PP_LV_BOOL: pp_jb_bool(b, o, key, s->on); break;
    case PP_LV_NULL: pp_jb_item(b, o, key, pp_jb_check(b, cJSON_CreateNull())); break;
    default: pp_jb_str(b, o, key, s->text); break;
    }
}

static void put_launch_target(pp_jb *b, cJSON *run, const pp_launch_target *t)
{
    if (t->format == PP_LF_ARGS) {
        char lines[PP_LAUNCH_MAX_SETTINGS][PP_LAUNCH_TEXT];
        int n = pp_launch_lines(t, lines, PP_LAUNCH_MAX_SETTINGS);
        cJSON *args = pp_jb_arr(b, run, t->json_key);
        for (int i = 0; args && i < n; i++)
            add_to_array(b, args, pp_jb_check(b, cJSON_CreateString(lines[i])));
        return;
    }
    cJSON *o = pp_jb_obj(b, run, t->json_key);
    bool nested = t->format == PP_LF_JSON;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; o && i < t->n; i++) {
            const pp_launch_setting *s = &t->settings[i];
            /* a configuration's top-level switches after its values; overrides keep their order */
            bool top_switch = s->kind == PP_LV_BOOL && !(nested && s->section) && t->format != PP_LF_OVERRIDES;
            if (!(s->where & PP_LAUNCH_JSON) || top_switch != (pass == 1))
                continue;
            cJSON *parent = o;
            if (nested && s->section) {
                parent = cJSON_GetObjectItemCaseSensitive(o, s->section);
                if (!parent)
                    parent = pp_jb_obj(b, o, s->section);
            }
            put_launch_value(b, parent, s->json_key ? s->json_key : s->key, s);
        }
    if (t->has_exact)
        pp_jb_bool(b, o, "exact", t->exact);
}

static void put_how_to_run(pp_jb *b, cJSON *o, const pp_problem *prob, const pp_plan_result *res)
{
    pp_launch *l = malloc(sizeof *l);
    if (!l) {
        b->ok = false;
        return;
    }
    pp_launch_build(prob, &res->best.plan, res->best.eval.microbatches, l);
    cJSON *run = pp_jb_obj(b, o, "how_to_run");
    for (int i = 0; run && i < PP_LT_COUNT; i++)
        if (l->targets[i].json_key)
            put_launch_target(b, run, &l->targets[i]);
    free(l);
    if (run)
        put_cuda_graphs(b, run, prob, &res->best.plan, &res->best.eval);
}

static void put_assumptions(pp_jb *b, cJSON *o, const pp_problem *prob, const pp_plan_result *res,
                            const pp_explanation *ex)
{
    pp_assumptions *as = malloc(sizeof *as);
    if (!as) {
        b->ok = false;
        return;
    }
    pp_assumptions_collect(prob, ex->view.cat, &res->best.plan, as);
    cJSON *arr = pp_jb_arr(b, o, "assumptions");
    for (int i = 0; arr && i < as->n; i++) {
        cJSON *it = pp_jb_check(b, cJSON_CreateObject());
        pp_jb_str(b, it, "name", as->items[i].name);
        pp_jb_str(b, it, "value", as->items[i].value);
        pp_jb_str(b, it, "source", as->items[i].source);
        add_to_array(b, arr, it);
    }
    free(as);
}

cJSON *pp_json_plan_result_ex(const pp_problem *prob, const pp_plan_result *res, const pp_explanation *ex)
{
    pp_jb b = {true};
    cJSON *root = pp_jb_check(&b, cJSON_CreateObject());
    pp_jb_str(&b, root, "status", pp_status_name(res->status));
    if (has_plan(res)) {
        put_priced(&b, root, prob, &res->best.plan, &res->best.eval);
        put_summary(&b, root, prob, res, ex);
        put_how_to_run(&b, root, prob, res);
    }
    if (res->status == PP_STATUS_INFEASIBLE)
        pp_jb_str(&b, root, "infeasible_reason", res->infeasible_reason);
    put_certificate(&b, root, res);
    put_runner_ups(&b, root, prob, res);
    bool why = ex && ex->done && ex->n_runner_ups == res->n_runner_ups;
    if (why) {
        cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "runner_ups");
        for (int i = 0; arr && i < res->n_runner_ups; i++)
            put_runner_up_why(&b, cJSON_GetArrayItem(arr, i), prob, &res->runner_ups[i].plan, &res->best.plan,
                              &ex->runner_ups[i]);
    }
    if (ex && ex->done) {
        put_ties(&b, root, prob, res, ex);
        const pp_candidate *safe = ex->recommended >= 2 && ex->recommended - 2 < res->n_runner_ups
                                       ? &res->runner_ups[ex->recommended - 2]
                                       : &res->best;
        cJSON *rec = pp_jb_obj(&b, root, "recommended");
        pp_jb_num(&b, rec, "rank", ex->recommended >= 2 ? ex->recommended : 1);
        pp_jb_item(&b, rec, "plan", pp_json_plan(prob, &safe->plan));
        pp_jb_num(&b, rec, "step_time_s", safe->eval.time.step_s);
        pp_jb_num(&b, rec, "memory_free_gib", safe->eval.mem.usable_gib - safe->eval.mem.total_gib);
        put_binding(&b, root, prob, ex);
        put_schedule(&b, root, &ex->schedule);
    }
    if (ex && ex->baseline.present)
        put_baseline(&b, root, prob, &ex->baseline);
    put_problem(&b, root, prob);
    if (ex && ex->done)
        put_assumptions(&b, root, prob, res, ex);
    return finish(&b, root);
}

cJSON *pp_json_plan_result(const pp_problem *prob, const pp_plan_result *res)
{
    return pp_json_plan_result_ex(prob, res, NULL);
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

void pp_json_put_borrow(pp_jb *b, cJSON *o, const pp_efficiency *e)
{
    if (!e->borrowed_from[0])
        return;
    pp_jb_str(b, o, "borrowed_from", e->borrowed_from);
    pp_jb_num(b, o, "borrow_factor", e->borrow_factor);
    if (e->borrow_nvlink_factor > 0.0 && e->borrow_nvlink_factor != 1.0)
        pp_jb_num(b, o, "borrow_nvlink_factor", e->borrow_nvlink_factor);
}

void pp_json_put_stack_level(pp_jb *b, cJSON *o, const pp_efficiency *e)
{
    if (e->compute_scale > 0.0 && e->compute_scale != 1.0)
        pp_jb_num(b, o, "compute_scale", e->compute_scale);
}
