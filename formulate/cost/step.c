/*
 * step.c: the composition: the stage term from a layer's compute, the
 * context-parallel exchange and a MoE model's expert blocks, and one
 * optimizer step from the terms, written once as the form of a step
 * (docs/cost-model.md §0 and §2).
 *
 *   stage = max over the stages of  layers x (layer fwd + bwd + recompute
 *           + cp exchange) (+ logits and loss on the last), a MoE layer's MLP
 *           replaced by its expert block and all-to-alls; without CUDA
 *           graphs at least the stage's MoE layers x the host's time to
 *           issue one (section 9, "The host")
 *
 *   slot   = stage.total  + tp.total + pp.total    (one of the m micro-batches)
 *   bubble = stage.bubble + tp.total + pp.total    (a fill or drain slot)
 *   x_k    = max(0, wire_k - window_k)             (the three DP pairs k: the
 *            gradient reduction against the last backward, ZeRO-2/3's
 *            per-micro-batch traffic against all compute, ZeRO-1/2's
 *            parameter gather against the first forward)
 *   step   = m slot + ((m + (p-1)/v) - m) bubble   (1F1B / interleaved)
 *          + sum_k x_k + m dp.per_mb_fixed
 *          + f sum_k (wire_k - x_k)                (hidden traffic's kernels take
 *                                                   f of the SMs: pp_comm_sm_share)
 *          + dp.codec + optimizer + dp.accum
 *          + max(0, busiest link's bytes / its rate - the above)  (the link bound)
 *
 * The form (costmodel.h) splits that sum by the joint families of the
 * MIP, each term a function of its own family's decisions:
 *
 *   stage  obj = m stage.total + (factor - m) stage.bubble; - window_k;
 *          m x the all-to-all bytes (MoE); activations per stage
 *   tp, pp obj = factor total; m x bytes
 *   dp     obj = codec + optimizer + m per_mb_fixed + accum + f sum_k wire_k;
 *          + wire_k; bytes; weights + gradients + optimizer states per stage
 *   pairs  an exposed second costs 1 - f beyond the f the DP term paid
 *
 * pp_form_step_s evaluates it in the order above, which pp_step_time_s
 * returns; pp_form_eval splits the same sum into compute, bubble, exposed
 * communication, compression and optimizer for pp_evaluate; mip.c writes
 * it as coefficient x column, and pp_form_bound_s sums it that way (for
 * screening).  The two orders differ by rounding only
 * (tests/test_cost_step.c).  The top floor of cost/: every other module is
 * below it.
 */
#include "cost_terms.h"

#include <math.h>

/* ---- the stage term ---------------------------------------------------------- */

/* The host's time to issue one MoE layer's forward and backward of a
 * micro-batch: the framework's (frameworks.json eager_moe_layer_host_ms)
 * when no CUDA graph captures the layer; 0 with graphs, or where the
 * framework's is not known. */
static double moe_layer_host_s(const pp_problem *prob)
{
    return prob->training.cuda_graphs == PP_GRAPHS_NONE ? prob->fw.moe_layer_host_s : 0.0;
}

/* The stage term of a MoE model: every stage weighed with its dense and MoE
 * layers (a MoE layer is a dense one with its MLP, mlp_fwd_s forward and
 * mlp_bwd_s backward, replaced by the MoE block of moe.c), the busiest
 * kept.  dense_fwd, dense_bwd (with recomputation) and cp are per dense
 * layer. */
static void moe_stage_term(const pp_problem *prob, const pp_plan *plan, double moe_fwd_s, double dense_fwd,
                           double dense_bwd, double cp, double mlp_fwd_s, double mlp_bwd_s, double mlp_again_s,
                           double logits_fwd, double logits_bwd, pp_stage_term *out)
{
    moe_block b;
    moe_block_of(prob, plan, moe_fwd_s, &b);
    /* backward: twice the forward's compute and the same all-to-alls (the
     * gradients travel back).  The block runs its forward again before its
     * backward under full recomputation, or selective's moe module (the MoE
     * layer checkpointed alone, its dispatch and combine with it).  The
     * dense layer's backward (and its recomputed forward, mlp_again_s: the
     * MLP again under full recomputation or the mlp module, which leaves a
     * MoE layer alone) holds its MLP; the expert block replaces it, run once
     * for every pass (once fewer with LoRA, whose frozen experts run no
     * weight gradient) */
    bool full = plan->recompute == PP_RECOMPUTE_FULL;
    bool again = full || (pp_recompute_modules(plan) & PP_RCM_MOE);
    double passes = again ? 3.0 : 2.0;
    double bwd_passes = prob->training.lora_rank > 0 ? passes - 1.0 : passes;
    double moe_fwd = dense_fwd - mlp_fwd_s + b.fwd_s + b.fwd_extra_s;
    double moe_bwd = dense_bwd - mlp_bwd_s - mlp_again_s + bwd_passes * b.fwd_s + b.bwd_extra_s +
                     (again ? b.fwd_extra_s : 0.0);
    double comm = passes * b.comm_s;
    *out = (pp_stage_term){0};
    out->total_s = -1.0;
    int most_moe = 0;
    double all_stages = 0.0;
    pp_stage_split split;
    bool split_ok = pp_stage_layers(prob, plan, &split);
    bool overlapped = pp_moe_a2a_overlapped(prob, plan);
    int mb = overlapped ? pp_microbatches(prob, plan) : 0;
    double chunks = (double)mb * (plan->virtual_stages > 1 ? plan->virtual_stages : 1);
    for (int s = 0; s < plan->pp; s++) {
        int n, nm;
        stage_counts_of_split(prob, plan, &split, split_ok, s, &n, &nm);
        bool last = s == plan->pp - 1;
        double fwd = (n - nm) * dense_fwd + nm * moe_fwd + (last ? logits_fwd : 0.0);
        double bwd = (n - nm) * dense_bwd + nm * moe_bwd + (last ? logits_bwd : 0.0);
        double cpx = n * cp, epx = nm * comm;
        if (overlapped) {
            /* hidden behind the other micro-batch's layers (Megatron-Core's
             * 1F1B all-to-all overlap, DualPipe), as far as that compute
             * lasts, while its kernels take their share of the SMs; but
             * only where the schedule pairs a forward with a backward.
             * The stage's warm-up forwards and cool-down backwards run
             * alone (combined_1f1b.py: the first forward and the last
             * backward without a pipeline; schedules.py schedules one
             * warm-up forward more with the overlap, "to ensure the
             * forward and backward computations are independent in all
             * 1f1b steps", Megatron-LM 60e03962): their all-to-alls wait
             * in full, a share of the step that grows as the micro-batches
             * per step fall */
            double alone = mb > 0 ? (double)pp_warmup_chunks(plan, s, mb) / chunks : 0.0;
            double hidden = fmin(epx, fwd + bwd);
            double paired = epx + pp_comm_sm_share(prob) * hidden - hidden;
            epx = alone * epx + (1.0 - alone) * paired;
        }
        double total = fwd + bwd + cpx + epx;
        /* the host issues the layers no faster than its Python and launch
         * path allows: without CUDA graphs a MoE layer's forward and
         * backward take the framework's host time at least, and the GPU
         * idles between kernels for the rest (section 9, "The host") */
        double host = nm * moe_layer_host_s(prob), wait = 0.0;
        if (host > total && fwd + bwd > 0.0) {
            wait = host - total;
            double fwd_share = fwd / (fwd + bwd);
            fwd += wait * fwd_share;
            bwd += wait * (1.0 - fwd_share);
            total = host;
        }
        all_stages += total;
        if (nm > most_moe)
            most_moe = nm;
        if (total > out->total_s) {
            out->fwd_s = fwd;
            out->bwd_s = bwd;
            out->cp_exposed_s = cpx;
            out->ep_comm_s = epx;
            out->host_wait_s = wait;
            out->total_s = total;
        }
    }
    out->bubble_s = pipeline_bubble_slot_s(plan, all_stages, out->total_s);
    /* the link bound takes the GPU with the most MoE layers */
    out->bytes_nvlink = most_moe * passes * b.bytes_nvlink;
    out->bytes_network = most_moe * passes * b.bytes_network;
}

/* The stage term from the plan's kernels (stage_kernels_of): the slowest
 * stage's compute of one micro-batch (docs/cost-model.md §2), one layer's
 * forward, backward and recomputation (stage.c) with the context-parallel
 * exchange (cp.c), times the stage's layers, plus the logits and the loss
 * on the last stage. */
static void term_stage_of(const pp_problem *prob, const pp_plan *plan, const pp_stage_kernels *kernels,
                          pp_stage_term *out)
{
    const pp_model *m = &prob->model;
    stage_layer sl;
    stage_layer_of(prob, plan, kernels, &sl);
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
        double mlp_again = plan->recompute == PP_RECOMPUTE_FULL ? sl.k.mlp_fwd_s
                           : (pp_recompute_modules(plan) & PP_RCM_MLP) ? sl.k.mlp_again_fwd_s
                                                                         : 0.0;
        moe_stage_term(prob, plan, kernels->moe_fwd_s, layer_fwd, layer_bwd + recompute, cp_f + cp_b + cp_recompute,
                       sl.k.mlp_fwd_s, sl.k.mlp_bwd_s, mlp_again, logits_fwd, logits_bwd, out);
        return;
    }
    int n = layers_on_stage(prob, plan, plan->pp - 1);
    out->fwd_s = n * layer_fwd + logits_fwd;
    out->bwd_s = n * (layer_bwd + recompute) + logits_bwd;
    out->cp_exposed_s = n * (cp_f + cp_b + cp_recompute);
    out->total_s = out->fwd_s + out->bwd_s + out->cp_exposed_s;
    double all_stages = (double)(m->layers + pp_mtp_layers(prob)) *
                            (layer_fwd + layer_bwd + recompute + cp_f + cp_b + cp_recompute) +
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

/* A layer's, the logits' and a MoE block's compute kernels. */
static void kernels_of(const pp_problem *prob, const pp_plan *plan, pp_stage_kernels *out)
{
    stage_kernels_of(prob, plan, out);
    if (pp_model_is_moe(&prob->model))
        out->moe_fwd_s = moe_block_compute_s(prob, plan);
}

void pp_term_stage(const pp_problem *prob, const pp_plan *plan, pp_stage_term *out)
{
    pp_stage_kernels kernels;
    kernels_of(prob, plan, &kernels);
    term_stage_of(prob, plan, &kernels, out);
}

/* ---- the form of a step (costmodel.h) ------------------------------------------ */

/* The shape's part; its memory part only if `memory` (the evaluator's time
 * does not read it, and pp_evaluate's memory comes with its breakdown from
 * pp_memory_eval, which the form's equals: tests/test_cost_step.c). */
static void shape_of(const pp_problem *prob, const pp_plan *plan, bool memory, pp_form_shape *out)
{
    *out = (pp_form_shape){0};
    out->microbatches = pp_microbatches(prob, plan);
    out->factor = pp_pipeline_factor(prob, plan);
    out->sm_share = pp_comm_sm_share(prob);
    /* hidden DP traffic slows the compute by f (its kernels take SMs): an
     * exposed second costs 1, a hidden one f, so the DP term pays f of its
     * whole wire time and a pair's exposed seconds the rest, 1 - f */
    out->pair_weight = 1.0 - out->sm_share;
    out->link_Bps[PP_FORM_NVLINK] = pp_nvlink_Bps(&prob->cluster);
    out->link_Bps[PP_FORM_NETWORK] = pp_network_Bps(&prob->cluster);
    if (!memory)
        return;
    out->n_mem = pp_memory_stages(prob, plan, out->mem_stages);
    for (int k = 0; k < out->n_mem; k++)
        pp_stage_holding_of(prob, plan, out->mem_stages[k], &out->held[k]);
    out->mem_usable_gib = prob->cluster.gpu.memory_gib * (1.0 - prob->memory_headroom); /* as pp_memory_eval */
    out->mem_other_gib = pp_mem_other_gib(prob);
    out->mem_limit_gib = out->mem_usable_gib - out->mem_other_gib;
}

void pp_form_shape_of(const pp_problem *prob, const pp_plan *plan, pp_form_shape *out)
{
    shape_of(prob, plan, true, out);
}

void pp_form_shape_time_of(const pp_problem *prob, const pp_plan *plan, pp_form_shape *out)
{
    shape_of(prob, plan, false, out);
}

/* TP, PP and the stage's all-to-alls are paid per micro-batch, DP per step. */
static void term_links(const pp_form_shape *sh, double nvlink, double network, pp_form_term *t)
{
    t->bytes[PP_FORM_NVLINK] = nvlink;
    t->bytes[PP_FORM_NETWORK] = network;
    for (int l = 0; l < PP_FORM_LINKS; l++)
        t->link_s[l] = sh->link_Bps[l] > 0.0 ? t->bytes[l] / sh->link_Bps[l] : 0.0;
}

/* What family fam's term holds on the GPU of the shape's mem_stages: the
 * stage's activations, DP's model states (in the order pp_memory_eval adds
 * them); the other families hold nothing. */
static void term_mem(const pp_problem *prob, const pp_plan *plan, const pp_form_shape *sh, pp_form_family fam,
                     pp_form_term *out)
{
    for (int k = 0; k < sh->n_mem; k++) {
        if (fam == PP_FORM_STAGE) {
            out->mem_gib[k] = pp_mem_activations_gib(prob, plan, sh->mem_stages[k]);
        } else if (fam == PP_FORM_DP) {
            double w, g, o;
            pp_mem_states_held_gib(prob, plan, sh->mem_stages[k], &sh->held[k], &w, &g, &o);
            out->mem_gib[k] = w + g + o; /* the order pp_memory_eval adds them in */
        }
    }
}

void pp_form_term_mem_of(const pp_problem *prob, const pp_plan *plan, const pp_form_shape *sh, pp_form_family fam,
                         pp_form_term *out)
{
    *out = (pp_form_term){0};
    term_mem(prob, plan, sh, fam, out);
}

void pp_form_stage_kernels_of(const pp_problem *prob, const pp_plan *plan, pp_stage_kernels *out)
{
    kernels_of(prob, plan, out);
}

void pp_form_stage_kernels_key(const pp_plan *plan, pp_plan *key)
{
    stage_kernels_key(plan, key); /* a MoE block's compute's (ep, etp) too */
}

/* The stage family's term: m slots of the slowest stage, and the fill and
 * drain slots. */
void pp_form_stage_term_of(const pp_problem *prob, const pp_plan *plan, const pp_form_shape *sh,
                           const pp_stage_kernels *kernels, pp_form_term *out)
{
    *out = (pp_form_term){0};
    int m = sh->microbatches;
    term_stage_of(prob, plan, kernels, &out->stage);
    out->obj_s = m * out->stage.total_s + (sh->factor - m) * out->stage.bubble_s;
    out->exposed_s[PP_PAIR_ONCE] = -pp_dp_once_window_s(prob, plan, &out->stage);
    out->exposed_s[PP_PAIR_PER_MB] = -(m * pp_dp_per_mb_window_s(prob, plan, &out->stage));
    out->exposed_s[PP_PAIR_GATHER] = -pp_dp_gather_window_s(prob, plan, &out->stage);
    term_links(sh, m * out->stage.bytes_nvlink, m * out->stage.bytes_network, out); /* MoE all-to-all */
    term_mem(prob, plan, sh, PP_FORM_STAGE, out);
}

void pp_form_term_of(const pp_problem *prob, const pp_plan *plan, const pp_form_shape *sh, pp_form_family fam,
                     pp_form_term *out)
{
    *out = (pp_form_term){0};
    int m = sh->microbatches;
    switch (fam) {
    case PP_FORM_STAGE: {
        pp_stage_kernels kernels;
        kernels_of(prob, plan, &kernels);
        pp_form_stage_term_of(prob, plan, sh, &kernels, out);
        break;
    }
    case PP_FORM_TP:
    case PP_FORM_PP:
        /* every slot, the fill and drain ones included */
        if (fam == PP_FORM_TP)
            pp_term_tp_comm(prob, plan, &out->comm);
        else
            pp_term_pp_comm(prob, plan, &out->comm);
        out->obj_s = sh->factor * out->comm.total_s;
        term_links(sh, m * out->comm.bytes_nvlink, m * out->comm.bytes_network, out);
        break;
    case PP_FORM_DP: {
        pp_dp_term *d = &out->dp;
        pp_term_dp_comm(prob, plan, d);
        out->optimizer_s = pp_term_optimizer_s(prob, plan);
        /* the last gradient bucket and the first parameter bucket are
         * always exposed (dp.c); the rest waits on its window */
        double once = d->once_wire_s - d->once_tail_s, gather = d->gather_once_wire_s - d->gather_tail_s;
        out->obj_s = d->codec_s + out->optimizer_s + m * d->per_mb_fixed_s + d->accum_s + d->once_tail_s +
                     d->gather_tail_s + sh->sm_share * (once + gather + m * d->per_mb_wire_s);
        out->wire_s[PP_PAIR_ONCE] = out->exposed_s[PP_PAIR_ONCE] = once;
        out->wire_s[PP_PAIR_PER_MB] = out->exposed_s[PP_PAIR_PER_MB] = m * d->per_mb_wire_s;
        out->wire_s[PP_PAIR_GATHER] = out->exposed_s[PP_PAIR_GATHER] = gather;
        term_links(sh, d->bytes_nvlink, d->bytes_network, out);
        term_mem(prob, plan, sh, fam, out);
        break;
    }
    case PP_FORM_FAMILIES: break;
    }
}

static void step_form_of(const pp_problem *prob, const pp_plan *plan, bool memory, pp_step_form *out)
{
    shape_of(prob, plan, memory, &out->shape);
    for (int f = 0; f < PP_FORM_FAMILIES; f++)
        pp_form_term_of(prob, plan, &out->shape, (pp_form_family)f, &out->term[f]);
}

void pp_step_form_of(const pp_problem *prob, const pp_plan *plan, pp_step_form *out)
{
    step_form_of(prob, plan, true, out);
}

bool pp_form_term_finite(const pp_form_term *t)
{
    bool ok = isfinite(t->obj_s) && isfinite(t->comm.bytes_sent) && isfinite(t->dp.bytes_sent);
    for (int k = 0; k < PP_FORM_PAIRS; k++)
        ok = ok && isfinite(t->exposed_s[k]) && isfinite(t->wire_s[k]);
    for (int l = 0; l < PP_FORM_LINKS; l++)
        ok = ok && isfinite(t->bytes[l]);
    for (int k = 0; k < PP_MEM_STAGES; k++)
        ok = ok && isfinite(t->mem_gib[k]);
    return ok;
}

/* ---- evaluating the form ----------------------------------------------------- */

/* The exposed seconds of pair k: max(0, wire - window). */
static double pair_exposed_s(const pp_form_term *const pick[PP_FORM_FAMILIES], pp_form_pair k)
{
    double u = 0.0;
    for (int f = 0; f < PP_FORM_FAMILIES; f++)
        u += pick[f]->exposed_s[k];
    return fmax(0.0, u);
}

/* The wire seconds of pair k, hidden or not. */
static double pair_wire_s(const pp_form_term *const pick[PP_FORM_FAMILIES], pp_form_pair k)
{
    double w = 0.0;
    for (int f = 0; f < PP_FORM_FAMILIES; f++)
        w += pick[f]->wire_s[k];
    return w;
}

/* The terms of a step before the link bound, and what a report splits them
 * into (the evaluator's order of additions). */
typedef struct step_parts {
    const pp_stage_term *stage;
    const pp_comm_term *tp, *pp;
    const pp_dp_term *dp;
    double optimizer_s;
    double factor;
    int m;
    double dp_once_exposed_s, dp_per_mb_exposed_s; /* the once-a-step exposure includes ZeRO-1/2's gather */
    double dp_contention_s; /* the compute the hidden DP traffic's kernels slow down */
} step_parts;

static void step_parts_of(const pp_form_shape *sh, const pp_form_term *const pick[PP_FORM_FAMILIES], step_parts *sp)
{
    sp->stage = &pick[PP_FORM_STAGE]->stage;
    sp->tp = &pick[PP_FORM_TP]->comm;
    sp->pp = &pick[PP_FORM_PP]->comm;
    sp->dp = &pick[PP_FORM_DP]->dp;
    sp->optimizer_s = pick[PP_FORM_DP]->optimizer_s;
    sp->factor = sh->factor;
    sp->m = sh->microbatches;
    double once_x = pair_exposed_s(pick, PP_PAIR_ONCE), gather_x = pair_exposed_s(pick, PP_PAIR_GATHER);
    double per_mb_x = pair_exposed_s(pick, PP_PAIR_PER_MB);
    sp->dp_once_exposed_s = once_x + gather_x + sp->dp->once_tail_s + sp->dp->gather_tail_s;
    sp->dp_per_mb_exposed_s = sp->m * sp->dp->per_mb_fixed_s + per_mb_x;
    double f = sh->sm_share;
    sp->dp_contention_s = f * (pair_wire_s(pick, PP_PAIR_ONCE) - once_x) +
                          f * (pair_wire_s(pick, PP_PAIR_GATHER) - gather_x) +
                          f * (pair_wire_s(pick, PP_PAIR_PER_MB) - per_mb_x);
}

static double slot_s(const step_parts *sp)
{
    return sp->stage->total_s + sp->tp->total_s + sp->pp->total_s;
}

/* A fill or drain slot: the other stages' mean compute, the same TP and
 * pipeline traffic. */
static double bubble_slot_s(const step_parts *sp)
{
    return sp->stage->bubble_s + sp->tp->total_s + sp->pp->total_s;
}

/* Bytes one GPU puts on each link per step: TP and PP per micro-batch, DP
 * per step, as the terms count them. */
static double step_bytes(const step_parts *sp, bool network)
{
    /* the stage term's bytes are a MoE model's all-to-alls (0 otherwise) */
    return network ? sp->m * (sp->tp->bytes_network + sp->pp->bytes_network + sp->stage->bytes_network) +
                         sp->dp->bytes_network
                   : sp->m * (sp->tp->bytes_nvlink + sp->pp->bytes_nvlink + sp->stage->bytes_nvlink) +
                         sp->dp->bytes_nvlink;
}

static double link_wait_s(const double Bps[PP_FORM_LINKS], double bytes_nvlink, double bytes_network,
                          double composed_s, double *nvlink_busy_s, double *network_busy_s)
{
    double nv = bytes_nvlink > 0.0 ? bytes_nvlink / Bps[PP_FORM_NVLINK] : 0.0;
    double net = bytes_network > 0.0 ? bytes_network / Bps[PP_FORM_NETWORK] : 0.0;
    if (nvlink_busy_s)
        *nvlink_busy_s = nv;
    if (network_busy_s)
        *network_busy_s = net;
    return fmax(0.0, fmax(nv, net) - composed_s);
}

double pp_link_wait_s(const pp_problem *prob, double bytes_nvlink, double bytes_network, double composed_s,
                      double *nvlink_busy_s, double *network_busy_s)
{
    const double Bps[PP_FORM_LINKS] = {pp_nvlink_Bps(&prob->cluster), pp_network_Bps(&prob->cluster)};
    return link_wait_s(Bps, bytes_nvlink, bytes_network, composed_s, nvlink_busy_s, network_busy_s);
}

static double terms_s(const step_parts *sp)
{
    return sp->m * slot_s(sp) + (sp->factor - sp->m) * bubble_slot_s(sp) + sp->dp_once_exposed_s +
           sp->dp_per_mb_exposed_s + sp->dp_contention_s +
           sp->dp->codec_s + sp->optimizer_s + sp->dp->accum_s;
}

double pp_form_step_s(const pp_form_shape *sh, const pp_form_term *const pick[PP_FORM_FAMILIES])
{
    step_parts sp;
    step_parts_of(sh, pick, &sp);
    double c = terms_s(&sp);
    return c + link_wait_s(sh->link_Bps, step_bytes(&sp, false), step_bytes(&sp, true), c, NULL, NULL);
}

void pp_form_eval(const pp_form_shape *sh, const pp_form_term *const pick[PP_FORM_FAMILIES], pp_eval *out)
{
    step_parts sp;
    step_parts_of(sh, pick, &sp);
    double m = sp.m, bubble_slots = sp.factor - m;
    pp_time *t = &out->time;
    t->compute_s = m * (sp.stage->fwd_s + sp.stage->bwd_s) + sp.dp->accum_s;
    t->cp_comm_s = m * sp.stage->cp_exposed_s;
    t->ep_comm_s = m * sp.stage->ep_comm_s;
    t->tp_comm_s = m * sp.tp->wire_s;
    t->pp_comm_s = m * sp.pp->wire_s;
    t->bubble_s = bubble_slots * bubble_slot_s(&sp);
    t->dp_comm_s = sp.dp_once_exposed_s + sp.dp_per_mb_exposed_s + sp.dp_contention_s;
    t->compression_s = m * (sp.tp->codec_s + sp.pp->codec_s) + sp.dp->codec_s;
    t->optimizer_s = sp.optimizer_s;
    t->exposed_comm_s = t->tp_comm_s + t->cp_comm_s + t->pp_comm_s + t->dp_comm_s + t->ep_comm_s;
    out->bytes_network_per_step = step_bytes(&sp, true);
    out->bytes_nvlink_per_step = step_bytes(&sp, false);
    t->link_wait_s = link_wait_s(sh->link_Bps, out->bytes_nvlink_per_step, out->bytes_network_per_step,
                                 terms_s(&sp), &out->nvlink_busy_s, &out->network_busy_s);
    t->step_s = t->compute_s + t->bubble_s + t->exposed_comm_s + t->compression_s + t->optimizer_s + t->link_wait_s;
    out->microbatches = sp.m;
}

double pp_form_bound_s(const pp_form_shape *sh, const pp_form_term *const pick[PP_FORM_FAMILIES])
{
    double obj = 0.0;
    for (int f = 0; f < PP_FORM_FAMILIES; f++)
        obj += pick[f]->obj_s;
    return obj + sh->pair_weight * (pair_exposed_s(pick, PP_PAIR_ONCE) + pair_exposed_s(pick, PP_PAIR_GATHER) +
                                    pair_exposed_s(pick, PP_PAIR_PER_MB));
}

double pp_form_mem_gib(const pp_form_shape *sh, const pp_form_term *const pick[PP_FORM_FAMILIES], int k)
{
    double gib = 0.0;
    for (int f = 0; f < PP_FORM_FAMILIES; f++)
        if (pick[f])
            gib += pick[f]->mem_gib[k];
    return gib + sh->mem_other_gib;
}

/* ---- the step ---------------------------------------------------------------- */

static void form_picks(const pp_step_form *form, const pp_form_term *pick[PP_FORM_FAMILIES])
{
    for (int f = 0; f < PP_FORM_FAMILIES; f++)
        pick[f] = &form->term[f];
}

double pp_step_time_s(const pp_problem *prob, const pp_plan *plan)
{
    pp_step_form form;
    step_form_of(prob, plan, false, &form);
    const pp_form_term *pick[PP_FORM_FAMILIES];
    form_picks(&form, pick);
    return pp_form_step_s(&form.shape, pick);
}

void pp_evaluate(const pp_problem *prob, const pp_plan *plan, pp_eval *out)
{
    *out = (pp_eval){0};
    pp_step_form form;
    step_form_of(prob, plan, false, &form);
    const pp_form_term *pick[PP_FORM_FAMILIES];
    form_picks(&form, pick);
    pp_form_eval(&form.shape, pick, out);
    const pp_time *t = &out->time;

    pp_memory_eval(prob, plan, &out->mem);

    const pp_model *mod = &prob->model;
    double B = (double)prob->training.global_batch;
    out->gpus_used = plan->tp * plan->pp * plan->dp * plan->cp;
    out->tokens_per_s = B * mod->seq_len / t->step_s;
    out->model_flops_per_step = pp_training_flops_per_step(mod, &prob->training, B);
    out->hardware_flops_per_step = out->model_flops_per_step + pp_recompute_flops_per_step(mod, B, plan->recompute);
    out->model_tflops_per_gpu = out->model_flops_per_step / t->step_s / out->gpus_used / 1e12;
    out->hardware_tflops_per_gpu = out->hardware_flops_per_step / t->step_s / out->gpus_used / 1e12;
    out->peak_tflops = peak_flops(prob, prob->training.precision) / 1e12;
    out->mfu = out->model_tflops_per_gpu / out->peak_tflops;

}
