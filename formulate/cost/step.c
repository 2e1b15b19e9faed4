/*
 * step.c: the composition: the stage term from a layer's compute, the
 * context-parallel exchange and a MoE model's expert blocks, and one
 * optimizer step from the terms (docs/cost-model.md §0 and §2).
 *
 *   stage = max over the stages of  layers x (layer fwd + bwd + recompute
 *           + cp exchange) (+ logits and loss on the last), a MoE layer's MLP
 *           replaced by its expert block and all-to-alls
 *
 *   T_mb = stage.total + tp_comm.total + pp_comm.total
 *   step = (m + (p-1)/v) T_mb                                (1F1B / interleaved)
 *        + max(0, dp.once_wire - stage.bwd_window)           (epigraph 1)
 *        + max(0, dp.per_mb_wire * m - stage.compute * m)    (epigraph 2)
 *        + dp.codec + optimizer
 *        + max(0, busiest link's bytes / its rate - the above)  (the link bound)
 *
 * pp_step_time_s is that sum, the one the MIP mirrors; pp_evaluate splits
 * the same terms into compute, bubble, exposed communication, compression
 * and optimizer.  The top floor of cost/: every other module is below it.
 */
#include "cost_terms.h"

#include <math.h>

/* ---- the stage term ---------------------------------------------------------- */

/* The stage term of a MoE model: every stage weighed with its dense and MoE
 * layers (a MoE layer is a dense one with its MLP, mlp_fwd_s forward and
 * mlp_bwd_s backward, replaced by the MoE block of moe.c), the busiest
 * kept.  dense_fwd, dense_bwd (with recomputation) and cp are per dense
 * layer. */
static void moe_stage_term(const pp_problem *prob, const pp_plan *plan, double dense_fwd, double dense_bwd,
                           double cp, double mlp_fwd_s, double mlp_bwd_s, double logits_fwd, double logits_bwd,
                           pp_stage_term *out)
{
    moe_block b;
    moe_block_eval(prob, plan, &b);
    /* backward: twice the forward's compute and the same all-to-alls (the
     * gradients travel back); full recomputation repeats the forward.  The
     * dense layer's backward (and its recomputed forward) holds its MLP; the
     * expert block replaces it, run once for every pass (once fewer with
     * LoRA, whose frozen experts run no weight gradient) */
    bool full = plan->recompute == PP_RECOMPUTE_FULL;
    double passes = full ? 3.0 : 2.0;
    double bwd_passes = prob->training.lora_rank > 0 ? passes - 1.0 : passes;
    double moe_fwd = dense_fwd - mlp_fwd_s + b.fwd_s;
    double moe_bwd = dense_bwd - mlp_bwd_s - (full ? mlp_fwd_s : 0.0) + bwd_passes * b.fwd_s;
    double comm = passes * b.comm_s;
    *out = (pp_stage_term){0};
    out->total_s = -1.0;
    int most_moe = 0;
    double all_stages = 0.0;
    for (int s = 0; s < plan->pp; s++) {
        int n = layers_on_stage(prob, plan, s), nm = moe_layers_on_stage(prob, plan, s);
        bool last = s == plan->pp - 1;
        double fwd = (n - nm) * dense_fwd + nm * moe_fwd + (last ? logits_fwd : 0.0);
        double bwd = (n - nm) * dense_bwd + nm * moe_bwd + (last ? logits_bwd : 0.0);
        double cpx = n * cp, epx = nm * comm;
        if (prob->training.moe_a2a_overlap) {
            /* hidden behind the other micro-batch's layers (Megatron-Core's
             * 1F1B all-to-all overlap, DualPipe), as far as that compute
             * lasts, while its kernels take their share of the SMs */
            double hidden = fmin(epx, fwd + bwd);
            epx += pp_comm_sm_share(prob) * hidden - hidden;
        }
        double total = fwd + bwd + cpx + epx;
        all_stages += total;
        if (nm > most_moe)
            most_moe = nm;
        if (total > out->total_s) {
            out->fwd_s = fwd;
            out->bwd_s = bwd;
            out->cp_exposed_s = cpx;
            out->ep_comm_s = epx;
            out->total_s = total;
        }
    }
    out->bubble_s = pipeline_bubble_slot_s(plan, all_stages, out->total_s);
    /* the link bound takes the GPU with the most MoE layers */
    out->bytes_nvlink = most_moe * passes * b.bytes_nvlink;
    out->bytes_network = most_moe * passes * b.bytes_network;
}

/* The slowest stage's compute of one micro-batch (docs/cost-model.md §2):
 * one layer's forward, backward and recomputation (stage.c) with the
 * context-parallel exchange (cp.c), times the stage's layers, plus the
 * logits and the loss on the last stage. */
void pp_term_stage(const pp_problem *prob, const pp_plan *plan, pp_stage_term *out)
{
    const pp_model *m = &prob->model;
    stage_layer sl;
    stage_layer_eval(prob, plan, &sl);
    double cp_f, cp_b;
    cp_exchange_exposed(prob, plan, &sl.k, &cp_f, &cp_b);
    double layer_fwd = sl.layer_fwd_s, layer_bwd = sl.layer_bwd_s, recompute = sl.recompute_s;
    double cp_recompute = sl.recompute_attention ? cp_f : 0.0; /* the recomputed attention's exchange */
    double logits_fwd = sl.logits_fwd_s, logits_bwd = sl.logits_bwd_s;


    /* The slowest stage sets the pipeline's pace: the last (its layers plus
     * the logits and the loss), or with an uneven split a middle stage of
     * more layers. */
    *out = (pp_stage_term){0};
    if (pp_model_is_moe(m)) { /* dense and MoE layers differ: moe_stage_term weighs every stage */
        moe_stage_term(prob, plan, layer_fwd, layer_bwd + recompute, cp_f + cp_b + cp_recompute, sl.k.mlp_fwd_s,
                       sl.k.mlp_bwd_s, logits_fwd, logits_bwd, out);
        return;
    }
    int n = layers_on_stage(prob, plan, plan->pp - 1);
    out->fwd_s = n * layer_fwd + logits_fwd;
    out->bwd_s = n * (layer_bwd + recompute) + logits_bwd;
    out->cp_exposed_s = n * (cp_f + cp_b + cp_recompute);
    out->total_s = out->fwd_s + out->bwd_s + out->cp_exposed_s;
    double all_stages = (double)m->layers * (layer_fwd + layer_bwd + recompute + cp_f + cp_b + cp_recompute) +
                        logits_fwd + logits_bwd;
    int most = layers_per_stage(prob, plan);
    if (plan->pp > 1 && most > n) {
        double fwd = most * layer_fwd, bwd = most * (layer_bwd + recompute), cp = most * (cp_f + cp_b + cp_recompute);
        if (fwd + bwd + cp > out->total_s) {
            out->fwd_s = fwd;
            out->bwd_s = bwd;
            out->cp_exposed_s = cp;
            out->total_s = fwd + bwd + cp;
        }
    }
    out->bubble_s = pipeline_bubble_slot_s(plan, all_stages, out->total_s);
}

/* ---- the step ---------------------------------------------------------------- */

typedef struct step_parts {
    pp_stage_term stage;
    pp_comm_term tp, pp;
    pp_dp_term dp;
    double optimizer_s;
    double factor;
    int m;
    double dp_once_exposed_s, dp_per_mb_exposed_s; /* the once-a-step exposure includes ZeRO-1/2's gather */
    double dp_contention_s; /* the compute the hidden DP traffic's kernels slow down */
} step_parts;

static void step_parts_eval(const pp_problem *prob, const pp_plan *plan, step_parts *sp)
{
    pp_term_stage(prob, plan, &sp->stage);
    pp_term_tp_comm(prob, plan, &sp->tp);
    pp_term_pp_comm(prob, plan, &sp->pp);
    pp_term_dp_comm(prob, plan, &sp->dp);
    sp->optimizer_s = pp_term_optimizer_s(prob, plan);
    sp->factor = pp_pipeline_factor(prob, plan);
    sp->m = pp_microbatches(prob, plan);
    double once_x = fmax(0.0, sp->dp.once_wire_s - pp_dp_once_window_s(prob, plan, &sp->stage));
    double gather_x = fmax(0.0, sp->dp.gather_once_wire_s - pp_dp_gather_window_s(prob, plan, &sp->stage));
    double per_mb_x = fmax(0.0, sp->m * sp->dp.per_mb_wire_s - sp->m * pp_dp_per_mb_window_s(prob, plan, &sp->stage));
    sp->dp_once_exposed_s = once_x + gather_x;
    sp->dp_per_mb_exposed_s = sp->m * sp->dp.per_mb_fixed_s + per_mb_x;
    double f = pp_comm_sm_share(prob);
    sp->dp_contention_s = f * (sp->dp.once_wire_s - once_x) + f * (sp->dp.gather_once_wire_s - gather_x) +
                          f * (sp->m * sp->dp.per_mb_wire_s - per_mb_x);
}

static double slot_s(const step_parts *sp)
{
    return sp->stage.total_s + sp->tp.total_s + sp->pp.total_s;
}

/* A fill or drain slot: the other stages' mean compute, the same TP and
 * pipeline traffic. */
static double bubble_slot_s(const step_parts *sp)
{
    return sp->stage.bubble_s + sp->tp.total_s + sp->pp.total_s;
}

/* Bytes one GPU puts on each link per step: TP and PP per micro-batch, DP
 * per step, as the terms count them. */
static double step_bytes(const step_parts *sp, bool network)
{
    /* the stage term's bytes are a MoE model's all-to-alls (0 otherwise) */
    return network ? sp->m * (sp->tp.bytes_network + sp->pp.bytes_network + sp->stage.bytes_network) + sp->dp.bytes_network
                   : sp->m * (sp->tp.bytes_nvlink + sp->pp.bytes_nvlink + sp->stage.bytes_nvlink) + sp->dp.bytes_nvlink;
}

double pp_link_wait_s(const pp_problem *prob, double bytes_nvlink, double bytes_network, double composed_s,
                      double *nvlink_busy_s, double *network_busy_s)
{
    double nv = bytes_nvlink > 0.0 ? bytes_nvlink / pp_nvlink_Bps(&prob->cluster) : 0.0;
    double net = bytes_network > 0.0 ? bytes_network / pp_network_Bps(&prob->cluster) : 0.0;
    if (nvlink_busy_s)
        *nvlink_busy_s = nv;
    if (network_busy_s)
        *network_busy_s = net;
    return fmax(0.0, fmax(nv, net) - composed_s);
}

static double terms_s(const step_parts *sp)
{
    return sp->m * slot_s(sp) + (sp->factor - sp->m) * bubble_slot_s(sp) + sp->dp_once_exposed_s +
           sp->dp_per_mb_exposed_s + sp->dp_contention_s +
           sp->dp.codec_s + sp->optimizer_s + sp->dp.accum_s;
}

double pp_step_time_s(const pp_problem *prob, const pp_plan *plan)
{
    step_parts sp;
    step_parts_eval(prob, plan, &sp);
    double c = terms_s(&sp);
    return c + pp_link_wait_s(prob, step_bytes(&sp, false), step_bytes(&sp, true), c, NULL, NULL);
}

void pp_evaluate(const pp_problem *prob, const pp_plan *plan, pp_eval *out)
{
    *out = (pp_eval){0};
    step_parts sp;
    step_parts_eval(prob, plan, &sp);
    double m = sp.m, bubble_slots = sp.factor - m;
    pp_time *t = &out->time;
    t->compute_s = m * (sp.stage.fwd_s + sp.stage.bwd_s) + sp.dp.accum_s;
    t->cp_comm_s = m * sp.stage.cp_exposed_s;
    t->ep_comm_s = m * sp.stage.ep_comm_s;
    t->tp_comm_s = m * sp.tp.wire_s;
    t->pp_comm_s = m * sp.pp.wire_s;
    t->bubble_s = bubble_slots * bubble_slot_s(&sp);
    t->dp_comm_s = sp.dp_once_exposed_s + sp.dp_per_mb_exposed_s + sp.dp_contention_s;
    t->compression_s = m * (sp.tp.codec_s + sp.pp.codec_s) + sp.dp.codec_s;
    t->optimizer_s = sp.optimizer_s;
    t->exposed_comm_s = t->tp_comm_s + t->cp_comm_s + t->pp_comm_s + t->dp_comm_s + t->ep_comm_s;
    out->bytes_network_per_step = step_bytes(&sp, true);
    out->bytes_nvlink_per_step = step_bytes(&sp, false);
    t->link_wait_s = pp_link_wait_s(prob, out->bytes_nvlink_per_step, out->bytes_network_per_step, terms_s(&sp),
                                    &out->nvlink_busy_s, &out->network_busy_s);
    t->step_s = t->compute_s + t->bubble_s + t->exposed_comm_s + t->compression_s + t->optimizer_s + t->link_wait_s;

    pp_memory_eval(prob, plan, &out->mem);

    const pp_model *mod = &prob->model;
    double B = (double)prob->training.global_batch;
    out->gpus_used = plan->tp * plan->pp * plan->dp * plan->cp;
    out->microbatches = sp.m;
    out->tokens_per_s = B * mod->seq_len / t->step_s;
    out->model_flops_per_step = pp_training_flops_per_step(mod, &prob->training, B);
    out->hardware_flops_per_step = out->model_flops_per_step + pp_recompute_flops_per_step(mod, B, plan->recompute);
    out->model_tflops_per_gpu = out->model_flops_per_step / t->step_s / out->gpus_used / 1e12;
    out->hardware_tflops_per_gpu = out->hardware_flops_per_step / t->step_s / out->gpus_used / 1e12;
    out->peak_tflops = peak_flops(prob, prob->training.precision) / 1e12;
    out->mfu = out->model_tflops_per_gpu / out->peak_tflops;

}
