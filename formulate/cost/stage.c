/*
 * stage.c: the compute of one micro-batch through one layer, and through
 * the logits and the loss, on one GPU (docs/cost-model.md §2), from the
 * kernels of kernels.c:
 *
 *   layer forward  = GEMMs + attention core + element-wise + LoRA + casts
 *   layer backward = data and weight gradients (linear_bwd_s) + the
 *                    attention core's backward + 2 x element-wise + casts of
 *                    the output gradients
 *   recomputation  = the forward again (full), selective's modules (the
 *                    attention core, the norms, MLA's up-projections), or
 *                    the even GEMMs and the element-wise work (torchtitan's
 *                    per-op checkpointing)
 *   logits         = the output layer's GEMM on a vocabulary padded to a
 *                    multiple of 128 t, plus the loss's fp32 traffic, and
 *                    for each multi-token-prediction module its projection,
 *                    norms and a second pass through both
 *
 * The backward's two products per linear layer are the data and weight
 * gradients of Narayanan et al. 2021 (arXiv 2104.04473, appendix), twice the
 * forward's FLOPs; selective recomputation repeats the attention core
 * (Korthikanti et al. 2022, selective activation recomputation), torchtitan's
 * per-op checkpointing every other matrix multiply
 * (torchtitan/parallelisms/parallelize_llama.py).
 *
 * The stage term (pp_term_stage, step.c) weighs them over the stages with
 * the context-parallel exchange (cp.c) and a MoE model's expert blocks
 * (moe.c).
 */
#include "cost_terms.h"

#include <math.h>
#include <string.h>

#define LOGITS_CE_BYTES 16.0        /* fp32 logits: softmax + cross-entropy, forward and backward */
#define VOCAB_PAD 128.0             /* Megatron-LM's make-vocab-size-divisible-by default */

/* The plan's decisions, field by field (decisions.def), its padding zero:
 * the price cache compares keys' bytes. */
#define KEY_FIELD_INT(field) key->field = plan->field;
#define KEY_FIELD_BOOL(field) key->field = plan->field;
#define KEY_FIELD_CODEC(field) key->codec[PP_DIM_##field] = plan->codec[PP_DIM_##field];

void stage_kernels_key(const pp_plan *plan, pp_plan *key)
{
    memset(key, 0, sizeof *key);
#define PP_DECISION(id, field, ctype, storage, ...) KEY_FIELD_##storage(field)
#include "decisions.def"
#undef PP_DECISION
    /* Less the decisions a stage's kernels (layer_kernels_fwd, the logits
     * below, a MoE block's compute) do not read, so the plans of a shape
     * that differ only in those share them.  A decision not named here
     * stays in the key: a new one the kernels read needs no line, one they
     * do not read only prices them more often than it must. */
    key->dp = key->pp = key->virtual_stages = key->zero = key->pipeline_layout = 0;
    key->recompute = PP_RECOMPUTE_NONE;
    key->recompute_modules = 0;
    key->tp_comm_overlap = key->moe_a2a_overlap = false;
    key->moe_dispatcher = key->cp_comm = 0;
    memset(key->codec, 0, sizeof key->codec);
}

void stage_kernels_of(const pp_problem *prob, const pp_plan *plan, pp_stage_kernels *out)
{
    const pp_model *m = &prob->model;
    layer_kernels_fwd(prob, plan, &out->k);
    bool frozen = prob->training.lora_rank > 0;
    /* The busiest stage is the last: its layers plus the logits and loss,
     * of the tokens that reach them (BERT's masked positions) */
    double tokens = (double)plan->micro_batch * m->seq_len / plan->cp * pp_model_logit_share(m);
    tp_grid g = grid_of(plan);
    /* Megatron-LM pads the vocabulary to a multiple of 128 x tp
     * (--make-vocab-size-divisible-by 128) so every rank's slice is aligned */
    double vocab = ceil((double)m->vocab / (VOCAB_PAD * plan->tp)) * VOCAB_PAD * plan->tp;
    double logits_gemm, logits_gemm_bwd;
    if (g.mode == PP_TP_1D) {
        logits_gemm = head_gemm_s(prob, tokens, m->hidden, vocab / plan->tp);
        logits_gemm_bwd = head_bwd_s(prob, tokens, m->hidden, vocab / plan->tp, frozen);
    } else {
        logits_gemm = grid_gemm_s(prob, &g, tokens, m->hidden, vocab);
        logits_gemm_bwd = (frozen ? 1.0 : 2.0) * logits_gemm;
    }
    /* the loss reads and writes the logits it holds: its slice, or all of them once gathered */
    double ce_s = 0.5 * LOGITS_CE_BYTES * tokens * m->vocab * pp_loss_vocab_share(&prob->training, plan) / hbm_Bps(prob);
    out->logits_fwd_s = logits_gemm + ce_s;
    out->logits_bwd_s = logits_gemm_bwd + ce_s;
    out->moe_fwd_s = 0.0; /* the MoE block's: step.c, which sees moe.c */
    /* Each multi-token-prediction module (layout.c pp_mtp_layers; its
     * transformer layer is one of the stage's layers) adds to the head its
     * 2h -> h projection (column-parallel, as Megatron-Core's eh_proj), its
     * three norms and the embedding of the shifted tokens (each a norm's
     * traffic: half the layer's two norms, norm_fwd_s, apiece), and a second
     * pass through the output head and the loss. */
    int mtp = pp_mtp_layers(prob);
    if (mtp > 0) {
        double T = (double)plan->micro_batch * m->seq_len / plan->cp, h = m->hidden;
        double proj = g.mode == PP_TP_1D ? gemm_time_s(prob, T, 2.0 * h, h / plan->tp)
                                         : grid_gemm_s(prob, &g, T, 2.0 * h, h);
        double proj_bwd = g.mode == PP_TP_1D ? linear_bwd_s(prob, T, 2.0 * h, h / plan->tp, frozen)
                                             : (frozen ? 1.0 : 2.0) * proj;
        double norms = 2.0 * out->k.norm_fwd_s;
        out->logits_fwd_s += mtp * (proj + norms + logits_gemm + ce_s);
        out->logits_bwd_s += mtp * (proj_bwd + 2.0 * norms + logits_gemm_bwd + ce_s);
    }
}

void stage_layer_eval(const pp_problem *prob, const pp_plan *plan, stage_layer *out)
{
    pp_stage_kernels kernels;
    stage_kernels_of(prob, plan, &kernels);
    stage_layer_of(prob, plan, &kernels, out);
}

void stage_layer_of(const pp_problem *prob, const pp_plan *plan, const pp_stage_kernels *kernels, stage_layer *out)
{
    out->k = kernels->k;
    const layer_kernels k = out->k;

    double other_fwd = k.elem_fwd_s + k.lora_fwd_s;
    double layer_fwd = k.gemm_fwd_s + k.attn_fwd_s + other_fwd + k.cast_fwd_s;
    /* Backward: the linear layers' data and weight gradients, each by its
     * own shape (linear_bwd_s); the attention core's (a fused kernel's
     * 2.5 forwards of FLOPs at 0.87 of its rate, kernels.c; the unfused
     * products by their shapes); element-wise
     * backward reads and writes twice; the output gradients are cast.
     * Frozen weights (LoRA) need no weight gradient: their matrix
     * multiplies run once more, for the data gradient the layers below
     * need (kernels.c prices them so). */
    double layer_bwd = k.gemm_bwd_s + k.attn_bwd_s + 2.0 * other_fwd + k.cast_bwd_s;
    double recompute = 0.0;
    bool attention_again = false; /* the recomputation repeats the attention core (and its cp exchange) */
    if (plan->recompute == PP_RECOMPUTE_FULL) {
        recompute = layer_fwd;
        attention_again = true;
    } else if (op_sac(prob, plan)) {
        /* torchtitan's per-op selective checkpointing (memory.c,
         * pp_op_sac_layer_bytes): the even matrix multiplies and the
         * element-wise work again; attention and the TP collectives are saved */
        recompute = k.gemm_even_fwd_s + k.elem_fwd_s + k.cast_fwd_s;
    } else if (plan->recompute == PP_RECOMPUTE_SELECTIVE) {
        /* Megatron-Core's modules (--recompute-modules): the attention core
         * (core_attn, the default), the two norms (layernorm), MLA's
         * up-projections (mla_up_proj), a dense layer's MLP (mlp; a MoE
         * layer takes it out again, step.c); moe_act, moe and shared_experts
         * are the MoE block's (moe.c, step.c) */
        int rcm = pp_recompute_modules(plan);
        if (rcm & PP_RCM_CORE_ATTN) {
            recompute += k.attn_fwd_s;
            attention_again = true;
        }
        if (rcm & PP_RCM_LAYERNORM)
            recompute += k.norm_fwd_s;
        if (rcm & PP_RCM_MLA_UP_PROJ)
            recompute += k.mla_up_fwd_s;
        if (rcm & PP_RCM_MLP)
            recompute += k.mlp_again_fwd_s;
    }

    out->layer_fwd_s = layer_fwd;
    out->layer_bwd_s = layer_bwd;
    out->recompute_s = recompute;
    out->recompute_attention = attention_again;
    out->logits_fwd_s = kernels->logits_fwd_s;
    out->logits_bwd_s = kernels->logits_bwd_s;
}
