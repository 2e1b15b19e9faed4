/*
 * launch.c: how to run a plan, per framework (launch.h).
 *
 * pp_launch_build turns a plan and its problem into the launch table: the
 * Megatron-LM flags, the DeepSpeed configuration, the torchtitan TOML and
 * the MVAPICH-Plus compression environment, each an ordered list of (key,
 * value) settings.  This file is the only one that spells a framework's
 * key or value; the renderers below (Markdown) and in result_json.c (JSON)
 * walk the table by its format and add no setting of their own.
 */
#include "launch.h"

#include "costmodel.h"
#include "decisions.h"
#include "problem.h"
#include "names.h"
#include "report_md.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- building a target ---------------------------------------------------- */

/* The next setting of t (a scratch one when t is full, so a builder never
 * checks: PP_LAUNCH_MAX_SETTINGS is far above what any target holds). */
static pp_launch_setting *add(pp_launch_target *t, const char *section, const char *key, pp_launch_kind kind)
{
    static const pp_launch_setting none = {0};
    pp_launch_setting *s = &t->settings[t->n < PP_LAUNCH_MAX_SETTINGS ? t->n++ : PP_LAUNCH_MAX_SETTINGS - 1];
    *s = none;
    s->section = section;
    snprintf(s->key, sizeof s->key, "%s", key ? key : "");
    s->kind = kind;
    s->where = PP_LAUNCH_BOTH;
    return s;
}

static pp_launch_setting *set_int(pp_launch_target *t, const char *section, const char *key, long v)
{
    pp_launch_setting *s = add(t, section, key, PP_LV_INT);
    s->num = v;
    return s;
}

static pp_launch_setting *set_bool(pp_launch_target *t, const char *section, const char *key, bool v)
{
    pp_launch_setting *s = add(t, section, key, PP_LV_BOOL);
    s->on = v;
    return s;
}

static pp_launch_setting *set_text(pp_launch_target *t, const char *section, const char *key, pp_launch_kind kind,
                                   const char *fmt, ...) PP_PRINTF(5, 6);
static pp_launch_setting *set_text(pp_launch_target *t, const char *section, const char *key, pp_launch_kind kind,
                                   const char *fmt, ...)
{
    pp_launch_setting *s = add(t, section, key, kind);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->text, sizeof s->text, fmt, ap);
    va_end(ap);
    return s;
}

/* The SwiGLU input kept in fp8: the plan's decision or the problem's setting
 * (in an fp8-class recipe). */
static bool fp8_act_store_on(const pp_problem *prob, const pp_plan *p)
{
    return (p->fp8_act_store || prob->training.fp8_act_store) && pp_precision_props(prob->training.precision)->low_gemm;
}

/* Command-line flags: a new line, or joined to the line before. */
static void flag_sw(pp_launch_target *t, bool joined, const char *key)
{
    add(t, NULL, key, PP_LV_SWITCH)->joined = joined;
}

static void flag_int(pp_launch_target *t, bool joined, const char *key, long v)
{
    set_int(t, NULL, key, v)->joined = joined;
}

static void flag_word(pp_launch_target *t, bool joined, const char *key, const char *value)
{
    set_text(t, NULL, key, PP_LV_TEXT, "%s", value)->joined = joined;
}

static void note(pp_launch_target *t, const char *fmt, ...) PP_PRINTF(2, 3);
static void note(pp_launch_target *t, const char *fmt, ...)
{
    size_t used = strlen(t->notes);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->notes + used, sizeof t->notes - used, fmt, ap);
    va_end(ap);
}

/* Append str to the string in buf (size bytes), cutting it to fit. */
static void append(char *buf, size_t size, const char *str)
{
    size_t used = strlen(buf), n = strlen(str);
    if (used + n >= size)
        n = size - used - 1;
    memcpy(buf + used, str, n);
    buf[used + n] = '\0';
}

/* One setting as it reads on a command line ("--tensor-model-parallel-size 4"). */
static void flag_text(const pp_launch_setting *s, char *buf, size_t size)
{
    buf[0] = '\0';
    append(buf, size, s->key);
    char num[32];
    switch (s->kind) {
    case PP_LV_INT:
        snprintf(num, sizeof num, " %ld", s->num);
        append(buf, size, num);
        break;
    case PP_LV_TEXT:
    case PP_LV_STR:
        append(buf, size, " ");
        append(buf, size, s->text);
        break;
    default: break;
    }
}

/* ---- Megatron-LM ---------------------------------------------------------- */

/* Mixture of experts (Megatron-Core MoE) and multi-head latent attention:
 * grouped GEMMs and the token dispatcher (alltoall, or the flex dispatcher
 * with DeepEP), as the cost model prices them (docs/cost-model.md section 9). */
/* The router the model was trained with (models.json, the config's
 * scoring_func, topk_method, n_group, topk_group, routed_scaling_factor):
 * Megatron-Core's defaults are softmax scores, no bias, no groups, scale 1. */
static void router_flags(pp_launch_target *f, const pp_model *m)
{
    if (m->router_sigmoid)
        flag_word(f, false, "--moe-router-score-function", "sigmoid");
    if (m->router_expert_bias)
        flag_sw(f, !!m->router_sigmoid, "--moe-router-enable-expert-bias");
    if (m->router_groups > 0) {
        flag_int(f, false, "--moe-router-num-groups", m->router_groups);
        flag_int(f, true, "--moe-router-group-topk", m->router_group_topk);
    }
    if (m->router_scaling > 0 && m->router_scaling != 1.0)
        set_text(f, NULL, "--moe-router-topk-scaling-factor", PP_LV_TEXT, "%g", m->router_scaling)->joined =
            m->router_groups > 0;
}

static void moe_flags(pp_launch_target *f, const pp_problem *prob, const pp_plan *p)
{
    const pp_model *m = &prob->model;
    bool deepep = pp_moe_deepep(prob, p);
    if (pp_model_is_moe(m)) {
        flag_int(f, false, "--num-experts", m->experts);
        flag_int(f, true, "--moe-router-topk", m->experts_per_token);
        flag_int(f, false, "--expert-model-parallel-size", p->ep);
        flag_int(f, true, "--expert-tensor-parallel-size", p->etp);
        flag_sw(f, false, "--moe-grouped-gemm");
        flag_word(f, true, "--moe-token-dispatcher-type", deepep ? "flex" : "alltoall");
        if (deepep)
            flag_sw(f, true, "--moe-enable-deepep");
        if (pp_moe_a2a_overlapped(prob, p)) /* the all-to-alls behind the other micro-batch's compute */
            flag_sw(f, false, "--overlap-moe-expert-parallel-comm");
        if (p->moe_capacity_factor > 0) { /* the experts' capacity (cost/layout.c): the excess dropped, not padded */
            flag_word(f, false, "--moe-expert-capacity-factor",
                      pp_decisions[PP_DEC_MOE_CAPACITY].names[p->moe_capacity_factor]);
            flag_word(f, true, "--moe-token-drop-policy", "probs");
        }
        router_flags(f, m);
        if (prob->training.moe_force_balance) /* a benchmark's router: every expert its mean share */
            flag_sw(f, false, "--moe-router-force-load-balancing");
        flag_int(f, false, "--moe-ffn-hidden-size", m->moe_ffn_hidden);
        if (m->shared_ffn_hidden > 0)
            flag_int(f, false, "--moe-shared-expert-intermediate-size", m->shared_ffn_hidden);
        int freq = m->moe_layer_freq > 0 ? m->moe_layer_freq : 1;
        if (m->first_dense_layers > 0 && freq == 1)
            set_text(f, NULL, "--moe-layer-freq", PP_LV_TEXT, "\"([0]*%d+[1]*%d)\"", m->first_dense_layers,
                     m->layers - m->first_dense_layers);
        else if (m->first_dense_layers > 0)
            set_text(f, NULL, "--moe-layer-freq", PP_LV_TEXT, "\"([0]*%d+[1 if i %% %d == 0 else 0 for i in range(%d, %d)])\"",
                     m->first_dense_layers, freq, m->first_dense_layers, m->layers);
        else if (freq > 1)
            flag_int(f, false, "--moe-layer-freq", freq);
    }
    if (pp_model_is_mla(m)) {
        flag_sw(f, false, "--multi-latent-attention");
        if (m->q_lora_rank > 0)
            flag_int(f, true, "--q-lora-rank", m->q_lora_rank);
        flag_int(f, true, "--kv-lora-rank", m->kv_lora_rank);
        flag_int(f, false, "--qk-head-dim", m->qk_nope_head_dim);
        flag_int(f, true, "--qk-pos-emb-head-dim", m->qk_rope_head_dim);
        flag_int(f, true, "--v-head-dim", m->v_head_dim);
    }
}

/* Megatron-Core's --pipeline-model-parallel-layout (megatron/core/
 * transformer/pipeline_parallel_layer_layout.py): the model's chunks in
 * order, split by "|", "E" the embedding, "t" a decoder layer, "m" a
 * multi-token-prediction module, "L" the loss, "x*n" and "(...)*n" repeat,
 * commas are cosmetic; quoted for the shell.  61 layers on 16 x 2 chunks:
 * "Et|(t*2|)*30,L", with DeepSeek-V3's MTP module "Et|(t*2|)*30,mL" (the
 * MTP modules must be named, in the last chunk with the loss:
 * validate_layer_layout of pipeline_parallel_layer_layout.py at
 * core_v0.15.0). */
static void pipeline_layout_string(const pp_stage_split *s, long chunks, int mtp, char *buf, size_t cap)
{
    char part[64];
    buf[0] = '\0';
    append(buf, cap, "\"E");
    if (s->first_chunk > 0)
        append(buf, cap, s->first_chunk == 1 ? "t" : (snprintf(part, sizeof part, "t*%d", s->first_chunk), part));
    if (chunks > 2 && s->chunk > 0) {
        snprintf(part, sizeof part, chunks == 3 ? "|t*%d" : "|(t*%d|)*%ld,", s->chunk, chunks - 2);
        append(buf, cap, part);
        if (chunks == 3)
            append(buf, cap, "|");
    } else
        append(buf, cap, "|");
    if (s->last_chunk > 0)
        append(buf, cap, s->last_chunk == 1 ? "t" : (snprintf(part, sizeof part, "t*%d", s->last_chunk), part));
    if (mtp > 0)
        append(buf, cap, mtp == 1 ? "m" : (snprintf(part, sizeof part, "m*%d", mtp), part));
    append(buf, cap, "L\"");
}

/* The Megatron-LM flags of the plan's parallelism, memory savers and
 * communication overlap. */
static void megatron_plan_flags(pp_launch_target *f, const pp_problem *prob, const pp_plan *p)
{
    const pp_training *t = &prob->training;
    flag_int(f, false, "--tensor-model-parallel-size", p->tp);
    flag_int(f, false, "--pipeline-model-parallel-size", p->pp);
    pp_stage_split split;
    bool known = pp_stage_layers(prob, p, &split);
    if (known && split.uneven && p->virtual_stages == 1) {
        flag_int(f, false, "--decoder-first-pipeline-num-layers", split.first);
        flag_int(f, true, "--decoder-last-pipeline-num-layers", split.last);
    }
    /* every chunk alike (the embedding and the loss as layers or not): a
     * chunk's layers; else the layout string */
    bool alike = split.first_chunk == split.last_chunk &&
                 split.first_chunk == split.chunk - (split.embedding_loss ? 1 : 0);
    if (known && p->virtual_stages > 1 && alike) {
        flag_int(f, false, "--num-layers-per-virtual-pipeline-stage", split.chunk);
        if (split.uneven) { /* the embedding and the loss each take a layer's place */
            flag_sw(f, false, "--account-for-embedding-in-pipeline-split");
            flag_sw(f, true, "--account-for-loss-in-pipeline-split");
        }
    } else if (known && p->virtual_stages > 1) {
        char layout[PP_LAUNCH_TEXT];
        pipeline_layout_string(&split, (long)p->pp * p->virtual_stages, t->mtp_layers, layout, sizeof layout);
        flag_word(f, false, "--pipeline-model-parallel-layout", layout);
    }
    /* a micro-batch count that is not a multiple of pp runs in larger groups */
    int m = pp_microbatches(prob, p), group = pp_vp_microbatch_group(p->pp, p->virtual_stages, m);
    if (p->virtual_stages > 1 && group > 0 && group != p->pp)
        flag_int(f, false, "--microbatch-group-size-per-virtual-pipeline-stage", group);
    flag_int(f, false, "--context-parallel-size", p->cp);
    if (p->cp > 1) /* Transformer Engine's ring or all-gather exchange (cost/cp.c) */
        flag_word(f, true, "--cp-comm-type", pp_decisions[PP_DEC_CP_COMM].names[p->cp_comm]);
    flag_int(f, false, "--micro-batch-size", p->micro_batch);
    flag_int(f, false, "--global-batch-size", t->global_batch);
    if (p->sequence_parallel)
        flag_sw(f, false, "--sequence-parallel");
    if (p->tp_comm_overlap) /* Transformer Engine userbuffers */
        flag_sw(f, false, "--tp-comm-overlap");
    if (p->zero >= 1)
        flag_sw(f, false, "--use-distributed-optimizer");
    if (t->moment_bytes == 2) { /* Adam's moments in 16 bits (training.optimizer_moments_dtype) */
        const char *dtype = t->moments_fp16 ? "fp16" : "bf16";
        flag_sw(f, false, "--use-precision-aware-optimizer");
        flag_word(f, true, "--exp-avg-dtype", dtype);
        flag_word(f, true, "--exp-avg-sq-dtype", dtype);
    }
    if (p->zero >= 2) {
        flag_sw(f, true, "--use-megatron-fsdp");
        flag_word(f, false, "--data-parallel-sharding-strategy", p->zero == 2 ? "optim_grads" : "optim_grads_params");
        flag_sw(f, false, "--no-gradient-accumulation-fusion");
        flag_word(f, true, "--ckpt-format", "fsdp_dtensor");
    }
    if (p->recompute == PP_RECOMPUTE_SELECTIVE) {
        flag_word(f, false, "--recompute-granularity", "selective");
        /* the modules, when not Megatron's default core_attn (nargs='*': the names spaced) */
        if (p->recompute_modules != pp_decisions[PP_DEC_RECOMPUTE_MODULES].def) {
            char mods[PP_LAUNCH_TEXT];
            snprintf(mods, sizeof mods, "%s", pp_decisions[PP_DEC_RECOMPUTE_MODULES].names[p->recompute_modules]);
            for (char *c = mods; *c; c++)
                if (*c == ',')
                    *c = ' ';
            flag_word(f, true, "--recompute-modules", mods);
        }
    } else if (p->recompute == PP_RECOMPUTE_FULL) {
        flag_word(f, false, "--recompute-granularity", "full");
        flag_word(f, true, "--recompute-method", "uniform");
        flag_int(f, true, "--recompute-num-layers", 1);
    }
    if (t->dp_overlap && p->dp > 1) {
        flag_sw(f, false, "--overlap-grad-reduce");
        if (p->zero >= 1)
            flag_sw(f, true, "--overlap-param-gather");
    }
    /* Megatron-LM reduces bf16 gradients in fp32 unless told (the model's
     * default), or the plan casts them to bf16 (the DP codec bf16,
     * data/frameworks.json) */
    if (pp_plan_grad_reduce(prob, p) == PP_PREC_BF16)
        flag_sw(f, false, "--grad-reduce-in-bf16");
    if (t->flash_attention)
        flag_sw(f, false, "--use-flash-attn");
    /* a named kernel: Megatron-Core's AttnBackend (enums.py) flash is
     * FlashAttention-2's package, fused Transformer Engine's cuDNN attention */
    if (t->flash_attention && t->attention_kernel != PP_ATTN_AUTO)
        flag_word(f, false, "--attention-backend", t->attention_kernel == PP_ATTN_FLASH3 ? "fused" : "flash");
    if (t->flash_attention && t->attention_kernel == PP_ATTN_FLASH1)
        note(f, "Megatron-Core has no FlashAttention-1 class kernel: `flash` runs FlashAttention-2, about twice "
                "the attention rate this plan was priced at (training.attention_kernel flash1).\n\n");
}

/* The blocks the recipe keeps in bf16, first and last, as priced
 * (training.bf16_layers_first/_last, resolved when the problem is read: by
 * default the recipe's share of the model's blocks, names.c); false when it
 * keeps none. */
static bool bf16_layers(const pp_problem *prob, long *first, long *last)
{
    int f, l;
    pp_bf16_layers(prob, &f, &l);
    *first = f;
    *last = l;
    return f + l > 0;
}

/* What Megatron-Core's partial CUDA graphs capture of the plan's layers
 * (--cuda-graph-scope through Transformer Engine): attention, and in a MoE
 * layer the router and its preprocessing, but for the alltoall dispatcher
 * with an expert capacity, whose preprocessing copies counts to the host
 * ("moe_preprocess cuda graph is not supported when there are DtoH copies
 * and synchronizations in the preprocess step", TransformerConfig at
 * d98e8a64dd); the experts stay eager: Megatron-Core captures them only
 * padded to capacity, which parplan does not price. */
static const char *partial_graph_scope(const pp_problem *prob, const pp_plan *p)
{
    if (!pp_model_is_moe(&prob->model))
        return "attn";
    return p->moe_capacity_factor > 0 && !pp_moe_deepep(prob, p) ? "attn moe_router" : "attn moe_router moe_preprocess";
}

/* The model's shape, and the precision recipe. */
static void megatron_model_flags(pp_launch_target *f, const pp_problem *prob, const pp_plan *p)
{
    const pp_model *m = &prob->model;
    const pp_training *t = &prob->training;
    flag_int(f, false, "--num-layers", m->layers);
    flag_int(f, true, "--hidden-size", m->hidden);
    flag_int(f, true, "--num-attention-heads", m->heads);
    if (m->kv_heads != m->heads) {
        flag_sw(f, false, "--group-query-attention");
        flag_int(f, true, "--num-query-groups", m->kv_heads);
    }
    if (m->head_dim && m->head_dim * m->heads != m->hidden && !pp_model_is_mla(m)) /* MLA: --v-head-dim */
        flag_int(f, false, "--kv-channels", m->head_dim);
    if (m->qk_layernorm)
        flag_sw(f, false, "--qk-layernorm");
    /* the window as (left, right) tokens besides the query's own, as
     * Transformer Engine's attention counts them: a window of W tokens, the
     * query's included (the model's sliding_window), is (W - 1, 0), as
     * Megatron-LM's GPT-OSS example sets GPT-OSS's 128 (examples/gptoss/
     * 02_train.sh at d98e8a64: --window-size 127,0; Megatron-Bridge's
     * provider writes (128, 0), one token more) */
    if (m->sliding_window > 0) {
        set_text(f, NULL, "--window-size", PP_LV_TEXT, "%d,0", m->sliding_window - 1)->joined = false;
        if (m->window_attn_skip_freq >= 2)
            flag_int(f, true, "--window-attn-skip-freq", m->window_attn_skip_freq);
    }
    if (m->ffn_hidden != 4 * m->hidden || m->gated_mlp) {
        flag_int(f, false, "--ffn-hidden-size", m->ffn_hidden);
        if (m->gated_mlp)
            flag_sw(f, true, m->quick_geglu ? "--quick-geglu" : "--swiglu");
    }
    /* GPT-OSS's clamped GLU with its offset and its attention sinks
     * (models.json; examples/gptoss/02_train.sh at d98e8a64) */
    if (m->glu_linear_offset > 0.0)
        set_text(f, NULL, "--glu-linear-offset", PP_LV_TEXT, "%g", m->glu_linear_offset)->joined = true;
    if (m->activation_clamp > 0.0)
        set_text(f, NULL, "--activation-func-clamp-value", PP_LV_TEXT, "%g", m->activation_clamp)->joined = true;
    if (m->attention_sinks)
        flag_word(f, false, "--softmax-type", "learnable");
    /* The gated-MLP families parplan knows (Llama, Mistral, Qwen, Nemotron
     * 4) also use RMSNorm, rotary positions and no linear biases; the GPT
     * families Megatron-LM's defaults (LayerNorm, learned positions,
     * biases). */
    if (m->gated_mlp) {
        flag_word(f, false, "--normalization", "RMSNorm");
        flag_word(f, true, "--position-embedding-type", "rope");
        if (m->rope_theta > 0)
            flag_int(f, true, "--rotary-base", lround(m->rope_theta));
        flag_sw(f, true, "--disable-bias-linear");
    }
    if (!m->tie_embeddings)
        flag_sw(f, false, "--untie-embeddings-and-output-weights");
    moe_flags(f, prob, p);
    if (prob->training.mtp_layers > 0)
        flag_int(f, false, "--mtp-num-layers", prob->training.mtp_layers);
    /* the CUDA graphs the price assumes (training.cuda_graphs; TransformerConfig
     * cuda_graph_impl "none" by default): partial through Transformer Engine,
     * the attention block and, in a MoE layer, the router and its
     * preprocessing; full, every layer whole (docs/cost-model.md section 9) */
    if (t->cuda_graphs != PP_GRAPHS_NONE)
        flag_word(f, false, "--cuda-graph-impl", t->cuda_graphs == PP_GRAPHS_PARTIAL ? "transformer_engine" : "local");
    if (t->cuda_graphs == PP_GRAPHS_PARTIAL)
        flag_word(f, true, "--cuda-graph-scope", partial_graph_scope(prob, p));
    flag_int(f, false, "--seq-length", m->seq_len);
    flag_int(f, true, "--max-position-embeddings", m->seq_len);
    /* the recipe's flags (names.c: Megatron-Core's low-precision training guide) */
    flag_sw(f, false, pp_precision_props(t->precision)->megatron_flags);
    if (t->fp8_params && pp_precision_props(t->precision)->low_gemm)
        flag_sw(f, false, "--fp8-param-gather");
    long first, last;
    if (bf16_layers(prob, &first, &last)) {
        flag_sw(f, false, "--first-last-layers-bf16");
        flag_int(f, false, "--num-layers-at-start-in-bf16", first);
        flag_int(f, false, "--num-layers-at-end-in-bf16", last);
    }
}

/* What Megatron-LM's flags above cannot say. */
static void megatron_notes(pp_launch_target *f, const pp_problem *prob, const pp_plan *p)
{
    /* TransformerConfig.activation_func_fp8_input_store has no flag in
     * Megatron-LM's parser (arguments.py at core_v0.15.0) */
    if (fp8_act_store_on(prob, p))
        note(f, "The SwiGLU input kept in fp8 (TransformerConfig.activation_func_fp8_input_store) has no "
                "Megatron-LM flag: set it in the script's config, or launch through Megatron-Bridge "
                "(`model.activation_func_fp8_input_store=true`).\n\n");
    long first, last;
    if (bf16_layers(prob, &first, &last))
        note(f, "The recipe keeps the first %ld and the last %ld of the %d blocks in bf16 (%.1f %% of the "
                "linear layers' FLOPs, as priced)%s.\n\n",
             first, last, prob->model.layers, 100.0 * (double)(first + last) / prob->model.layers,
             p->pp > 1 ? "; they run on the first and the last pipeline stage, where the price spreads their cost over "
                         "every stage, so those two stages run somewhat slower than priced"
                       : "");
    if (p->zero >= 2)
        note(f, "ZeRO-2 and ZeRO-3 are Megatron-Core's FSDP (`--use-megatron-fsdp`; older releases call it "
                "`--use-custom-fsdp`).\n\n");
    /* Megatron-LM sums and reduces gradients in one buffer of one type
     * (--grad-reduce-in-bf16 makes it bf16, else fp32): a problem that asks
     * for different types has no flags that run it. */
    const pp_training *t = &prob->training;
    pp_precision reduce = pp_plan_grad_reduce(prob, p);
    int held = pp_plan_grad_held_bytes(prob, p);
    if (t->precision != PP_PREC_FP16 && t->grad_accum_bytes && held != (reduce == PP_PREC_FP32 ? 4 : 2))
        note(f, "Megatron-LM holds and reduces gradients in one type (bf16 with `--grad-reduce-in-bf16`, "
                "else fp32); this problem asks for gradients held in %s and the plan reduces them in %s, which it "
                "cannot run: the flags above reduce in %s and hold them in that type too.\n\n",
             held == 4 ? "fp32" : "16 bits", pp_precision_name(reduce), pp_precision_name(reduce));
    if (t->mtp_layers > 0)
        note(f, "`--mtp-num-layers %d` trains %s multi-token-prediction module%s on the last pipeline stage, where "
                "the step above prices %s (docs/cost-model.md section 9).\n\n",
             t->mtp_layers, t->mtp_layers == prob->model.mtp_layers ? "the model's" : "its",
             t->mtp_layers == 1 ? "" : "s", t->mtp_layers == 1 ? "it" : "them");
    if (t->lora_rank > 0)
        note(f, "pretrain\\_gpt.py trains every weight: for LoRA run the same degrees under NeMo's PEFT "
                "(`model.peft.peft_scheme=lora`, `model.peft.lora_tuning.adapter_dim=%d`, "
                "`model.peft.lora_tuning.target_modules=%s`).\n\n",
             t->lora_rank,
             t->lora_targets == PP_LORA_ALL_LINEAR ? "[attention_qkv,attention_dense,mlp_fc1,mlp_fc2]"
                                                   : "[attention_qkv,attention_dense]");
    if (p->tp_mode != PP_TP_1D)
        note(f, "tp\\_mode=%s is not a Megatron-LM feature: it needs a framework with 2D/2.5D/3D tensor "
                "parallelism (e.g. Colossal-AI); the other flags still apply.\n\n",
             pp_tp_mode_name(p->tp_mode));
}

static void build_megatron(pp_launch_target *f, const pp_problem *prob, const pp_plan *p)
{
    f->title = "Megatron-LM";
    f->format = PP_LF_ARGS;
    f->json_key = "megatron_args";
    /* torchrun counts hosts: an NVL72 rack is 18 hosts of 4 GPUs, not one node of 72 */
    const pp_cluster *cl = &prob->cluster;
    int per_host = cl->gpus_per_host > 0 && cl->gpus_per_node % cl->gpus_per_host == 0 ? cl->gpus_per_host
                                                                                       : cl->gpus_per_node;
    snprintf(f->command, sizeof f->command, "torchrun --nnodes %ld --nproc-per-node %d pretrain_gpt.py",
             cl->nodes * (cl->gpus_per_node / per_host), per_host);
    f->trailer = "...   # data, tokenizer, optimizer and schedule flags as usual";
    megatron_plan_flags(f, prob, p);
    megatron_model_flags(f, prob, p);
    megatron_notes(f, prob, p);
}

/* The Megatron-LM setting of key, or NULL. */
static const pp_launch_setting *find_setting(const pp_launch_target *t, const char *key)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->settings[i].key, key) == 0)
            return &t->settings[i];
    return NULL;
}

/* ---- Megatron-Bridge (NeMo) ------------------------------------------------ */

/* How a Megatron-LM flag reads as a Megatron-Bridge ConfigContainer field
 * (tests/data/megatron-bridge_v0.2.2-keys.txt lists them all).  Megatron-LM
 * copies each argument into the TransformerConfig field of the same name
 * (megatron/training/arguments.py core_transformer_config_from_args), so a
 * flag not listed here is model.<its name with underscores>; the listed ones
 * are renamed, live in another section, or are off by their absence, which
 * a recipe's own defaults do not imply: `off` is written when the flag is
 * not (a Bridge recipe turns on what Megatron-LM's command line leaves off:
 * Llama 3 70B's recipe overlaps tensor parallelism, for one). */
typedef enum {
    BR_COPY,  /* the flag's value */
    BR_TRUE,  /* a switch: true */
    BR_FALSE, /* a switch that turns a default off: false */
    BR_VP,    /* the plan's virtual_stages (Megatron-LM gives layers per chunk instead) */
    BR_WORD,  /* the flag's value without the double quotes the shell needed */
    BR_LIST,  /* the flag's spaced values as a list: [a,b] */
    BR_SKIP   /* said by another key, or the Bridge default */
} bridge_how;

typedef struct bridge_key {
    const char *flag;
    const char *key;
    bridge_how how;
    const char *off; /* written when the flag is absent; NULL: nothing */
    bool plan;       /* the plan's, written even when a recipe builds the model */
} bridge_key;

static const bridge_key BRIDGE_KEYS[] = {
    {"--tensor-model-parallel-size", "model.tensor_model_parallel_size", BR_COPY, NULL, true},
    {"--pipeline-model-parallel-size", "model.pipeline_model_parallel_size", BR_COPY, NULL, true},
    {"--num-layers-per-virtual-pipeline-stage", "model.virtual_pipeline_model_parallel_size", BR_VP, "null", true},
    {"--pipeline-model-parallel-layout", "model.pipeline_model_parallel_layout", BR_WORD, "null", true},
    {"--decoder-first-pipeline-num-layers", "model.num_layers_in_first_pipeline_stage", BR_COPY, "null", true},
    {"--decoder-last-pipeline-num-layers", "model.num_layers_in_last_pipeline_stage", BR_COPY, "null", true},
    {"--account-for-embedding-in-pipeline-split", "model.account_for_embedding_in_pipeline_split", BR_TRUE, "false",
     true},
    {"--account-for-loss-in-pipeline-split", "model.account_for_loss_in_pipeline_split", BR_TRUE, "false", true},
    {"--microbatch-group-size-per-virtual-pipeline-stage", "model.microbatch_group_size_per_vp_stage", BR_COPY, "null",
     true},
    {"--context-parallel-size", "model.context_parallel_size", BR_COPY, NULL, true},
    {"--cp-comm-type", "model.cp_comm_type", BR_WORD, NULL, true}, /* cp > 1 only: a recipe's own is not the plan's */
    {"--sequence-parallel", "model.sequence_parallel", BR_TRUE, "false", true},
    {"--expert-model-parallel-size", "model.expert_model_parallel_size", BR_COPY, NULL, true},
    {"--expert-tensor-parallel-size", "model.expert_tensor_parallel_size", BR_COPY, NULL, true},
    {"--moe-token-dispatcher-type", "model.moe_token_dispatcher_type", BR_COPY, NULL, true},
    {"--moe-enable-deepep", "model.moe_enable_deepep", BR_TRUE, NULL, true},
    {"--overlap-moe-expert-parallel-comm", "comm_overlap.overlap_moe_expert_parallel_comm", BR_TRUE, NULL, true},
    {"--moe-expert-capacity-factor", "model.moe_expert_capacity_factor", BR_COPY, NULL, true},
    {"--moe-token-drop-policy", "model.moe_token_drop_policy", BR_WORD, NULL, true},
    {"--moe-router-force-load-balancing", "model.moe_router_force_load_balancing", BR_TRUE, NULL, true},
    {"--cuda-graph-impl", "model.cuda_graph_impl", BR_WORD, "none", true}, /* a recipe's graphs are not the price's */
    {"--cuda-graph-scope", "model.cuda_graph_scope", BR_LIST, NULL, true},
    {"--micro-batch-size", "train.micro_batch_size", BR_COPY, NULL, true},
    {"--global-batch-size", "train.global_batch_size", BR_COPY, NULL, true},
    {"--seq-length", "model.seq_length", BR_COPY, NULL, true},
    {"--seq-length", "dataset.sequence_length", BR_COPY, NULL, true},
    {"--max-position-embeddings", NULL, BR_SKIP, NULL, true}, /* the provider's from seq_length */
    {"--tp-comm-overlap", "comm_overlap.tp_comm_overlap", BR_TRUE, "false", true},
    {"--use-distributed-optimizer", "ddp.use_distributed_optimizer", BR_TRUE, "false", true},
    {"--use-distributed-optimizer", "optimizer.use_distributed_optimizer", BR_TRUE, "false", true},
    /* a recipe's own 16-bit moments (DeepSeek-V3's) are not the price's unless the problem states them */
    {"--use-precision-aware-optimizer", "optimizer.use_precision_aware_optimizer", BR_TRUE, "false", true},
    {"--exp-avg-dtype", NULL, BR_SKIP, NULL, true},    /* a torch dtype: build_bridge */
    {"--exp-avg-sq-dtype", NULL, BR_SKIP, NULL, true}, /* a torch dtype: build_bridge */
    {"--use-megatron-fsdp", "ddp.use_megatron_fsdp", BR_TRUE, "false", true},
    {"--use-megatron-fsdp", "dist.use_megatron_fsdp", BR_TRUE, "false", true},
    {"--data-parallel-sharding-strategy", "ddp.data_parallel_sharding_strategy", BR_COPY, NULL, true},
    {"--no-gradient-accumulation-fusion", "model.gradient_accumulation_fusion", BR_FALSE, NULL, true},
    {"--ckpt-format", "checkpoint.ckpt_format", BR_COPY, NULL, true},
    {"--recompute-granularity", "model.recompute_granularity", BR_COPY, "null", true},
    {"--recompute-method", "model.recompute_method", BR_COPY, "null", true},
    {"--recompute-num-layers", "model.recompute_num_layers", BR_COPY, "null", true},
    {"--overlap-grad-reduce", "ddp.overlap_grad_reduce", BR_TRUE, "false", true},
    {"--overlap-param-gather", "ddp.overlap_param_gather", BR_TRUE, "false", true},
    {"--grad-reduce-in-bf16", NULL, BR_SKIP, NULL, true}, /* ddp.grad_reduce_in_fp32, below */
    {"--use-flash-attn", NULL, BR_SKIP, NULL, true},      /* Bridge's default backend is fused attention */
    {"--attention-backend", "model.attention_backend", BR_COPY, NULL, true},
    {"--fp8-param-gather", "model.fp8_param", BR_TRUE, NULL, true},
    {"--mtp-num-layers", NULL, BR_SKIP, NULL, true}, /* model.mtp_num_layers, build_bridge */
    /* the mixed-precision recipe's own fields, which it copies onto the
     * model over any model.* override (build_bridge says where they differ) */
    {"--first-last-layers-bf16", NULL, BR_SKIP, NULL, true},
    {"--num-layers-at-start-in-bf16", NULL, BR_SKIP, NULL, true},
    {"--num-layers-at-end-in-bf16", NULL, BR_SKIP, NULL, true},
    {"--recompute-modules", "model.recompute_modules", BR_LIST, NULL, true}, /* absent: Bridge's default core_attn */
    /* the model's shape, written only when no recipe builds the model */
    {"--group-query-attention", NULL, BR_SKIP, NULL, false}, /* num_query_groups says it */
    {"--swiglu", "model.gated_linear_unit", BR_TRUE, NULL, false},
    {"--untie-embeddings-and-output-weights", "model.share_embeddings_and_output_weights", BR_FALSE, NULL, false},
    {"--disable-bias-linear", "model.add_bias_linear", BR_FALSE, NULL, false},
    {"--num-experts", "model.num_moe_experts", BR_COPY, NULL, false},
    {"--window-size", "model.window_size", BR_LIST, NULL, false},
    {"--window-attn-skip-freq", "model.window_attn_skip_freq", BR_COPY, NULL, false},
};
#define N_BRIDGE_KEYS ((int)(sizeof BRIDGE_KEYS / sizeof BRIDGE_KEYS[0]))

static const bridge_key *bridge_key_of(const char *flag)
{
    for (int i = 0; i < N_BRIDGE_KEYS; i++)
        if (strcmp(BRIDGE_KEYS[i].flag, flag) == 0)
            return &BRIDGE_KEYS[i];
    return NULL;
}

/* One override: a Megatron-LM setting's value under key. */
static void bridge_set(pp_launch_target *br, const char *key, bridge_how how, const pp_launch_setting *s,
                       const pp_plan *p)
{
    switch (how) {
    case BR_COPY:
        if (s->kind == PP_LV_INT)
            set_int(br, NULL, key, s->num);
        else
            set_text(br, NULL, key, PP_LV_STR, "%s", s->text);
        break;
    case BR_TRUE: set_bool(br, NULL, key, true); break;
    case BR_FALSE: set_bool(br, NULL, key, false); break;
    case BR_VP: set_int(br, NULL, key, p->virtual_stages); break;
    case BR_WORD: {
        size_t n = strlen(s->text);
        bool quoted = n >= 2 && s->text[0] == '"' && s->text[n - 1] == '"';
        set_text(br, NULL, key, PP_LV_STR, "%.*s", (int)(quoted ? n - 2 : n), s->text + (quoted ? 1 : 0));
        break;
    }
    case BR_LIST: {
        char list[PP_LAUNCH_TEXT];
        snprintf(list, sizeof list, "%s", s->text);
        for (char *c = list; *c; c++)
            if (*c == ' ')
                *c = ',';
        set_text(br, NULL, key, PP_LV_TEXT, "[%s]", list);
        break;
    }
    case BR_SKIP: break;
    }
}

/* An "off" value as the JSON and Hydra spell it. */
static void bridge_off(pp_launch_target *br, const char *key, const char *off)
{
    if (strcmp(off, "null") == 0)
        add(br, NULL, key, PP_LV_NULL);
    else if (strcmp(off, "true") == 0 || strcmp(off, "false") == 0)
        set_bool(br, NULL, key, strcmp(off, "true") == 0);
    else /* a word: cuda_graph_impl "none" */
        set_text(br, NULL, key, PP_LV_STR, "%s", off);
}

/* The key of a flag no table row names: model.<name>, dashes to underscores. */
static bool bridge_generic_key(const char *flag, char *buf, size_t cap)
{
    if (strncmp(flag, "--", 2) != 0 || strchr(flag, ' '))
        return false;
    int n = snprintf(buf, cap, "model.%s", flag + 2);
    if (n < 0 || (size_t)n >= cap)
        return false;
    for (char *c = buf; *c; c++)
        if (*c == '-')
            *c = '_';
    return true;
}

/* Where the mixed-precision recipe sets other blocks in bf16, or another
 * weight format, than the plan was priced with (names.c: the recipes' own
 * fields, which their setup copies onto the model over any model.*
 * override): no override of the release's keys undoes them, so the note
 * says what to set in the recipe and the settings are not exact. */
static void bridge_recipe_fields(pp_launch_target *br, const pp_problem *prob)
{
    const pp_training *t = &prob->training;
    const pp_precision_info *info = pp_precision_props(t->precision);
    long first, last;
    bf16_layers(prob, &first, &last);
    bool layers = first != info->bridge_bf16_first || last != info->bridge_bf16_last;
    bool params = info->low_gemm && t->fp8_params != info->bridge_fp8_params;
    if (!layers && !params)
        return;
    note(br, "`mixed_precision=%s`", info->bridge_recipe);
    if (layers && info->bridge_bf16_first + info->bridge_bf16_last == 0)
        note(br, " keeps no block in bf16");
    else if (layers)
        note(br, " keeps the first %d and the last %d blocks in bf16", info->bridge_bf16_first, info->bridge_bf16_last);
    if (layers && first + last == 0)
        note(br, " where the plan was priced with none");
    else if (layers)
        note(br, " where the plan was priced with the first %ld and the last %ld", first, last);
    if (params)
        note(br, "%s gathers the weights %s where the plan's are %s", layers ? "," : "",
             info->bridge_fp8_params ? "in fp8" : "in 16 bits", t->fp8_params ? "in fp8" : "in 16 bits");
    note(br, ", and copies this onto the model over any `model.` override: in the recipe's MixedPrecisionConfig set");
    if (layers)
        note(br, " `first_last_layers_bf16=%s`, `num_layers_at_start_in_bf16=%ld`, `num_layers_at_end_in_bf16=%ld`",
             first + last > 0 ? "true" : "false", first, last);
    if (params)
        note(br, "%s `fp8_param_gather=%s`", layers ? "," : "", t->fp8_params ? "true" : "false");
    note(br, ".\n\n");
    br->exact = false;
}

static void build_bridge(pp_launch_target *br, const pp_launch_target *megatron, const pp_problem *prob,
                         const pp_plan *p)
{
    const pp_model *m = &prob->model;
    const pp_training *t = &prob->training;
    br->title = "Megatron-Bridge (NeMo)";
    br->format = PP_LF_OVERRIDES;
    br->json_key = "megatron_bridge";
    br->has_exact = true;
    br->exact = true;
    bool recipe = m->bridge_recipe[0] != '\0';
    snprintf(br->command, sizeof br->command, "%s", megatron->command);
    char *script = strstr(br->command, "pretrain_gpt.py");
    if (script)
        snprintf(script, sizeof br->command - (size_t)(script - br->command), "pretrain.py");
    if (recipe)
        set_text(br, NULL, "recipe", PP_LV_STR, "%s", m->bridge_recipe)->where = PP_LAUNCH_JSON;
    /* the table's rows in order, each from the flag it translates */
    for (int i = 0; i < N_BRIDGE_KEYS; i++) {
        const bridge_key *k = &BRIDGE_KEYS[i];
        if (!k->key || (!k->plan && recipe))
            continue;
        const pp_launch_setting *s = find_setting(megatron, k->flag);
        if (s)
            bridge_set(br, k->key, k->how, s, p);
        else if (k->off)
            bridge_off(br, k->key, k->off);
    }
    /* Megatron-LM reduces in fp32 for bf16 training unless --grad-reduce-in-bf16
     * (args.accumulate_allreduce_grads_in_fp32), in fp16 for fp16 training */
    set_bool(br, NULL, "ddp.grad_reduce_in_fp32",
             t->precision != PP_PREC_FP16 && !find_setting(megatron, "--grad-reduce-in-bf16"));
    set_text(br, NULL, "mixed_precision", PP_LV_STR, "%s", pp_precision_props(t->precision)->bridge_recipe);
    bridge_recipe_fields(br, prob);
    if (fp8_act_store_on(prob, p)) /* no Megatron-LM flag says it (megatron_notes) */
        set_bool(br, NULL, "model.activation_func_fp8_input_store", true);
    /* the MTP modules priced, also where a recipe trains its own (the
     * DeepSeek-V3 recipe's mtp_num_layers 1) and the problem asks for none */
    if (t->mtp_layers > 0 || m->mtp_layers > 0)
        set_int(br, NULL, "model.mtp_num_layers", t->mtp_layers);
    /* Adam's moments in the type priced: Bridge's OptimizerConfig takes a
     * torch dtype (optimizer.exp_avg_dtype=torch.bfloat16, as
     * Megatron-MoE-ModelZoo's launch scripts write it) */
    const char *moments = t->moment_bytes == 2 ? (t->moments_fp16 ? "torch.float16" : "torch.bfloat16") : "torch.float32";
    set_text(br, NULL, "optimizer.exp_avg_dtype", PP_LV_TEXT, "%s", moments);
    set_text(br, NULL, "optimizer.exp_avg_sq_dtype", PP_LV_TEXT, "%s", moments);
    /* Megatron-Bridge refuses the all-to-all overlap beside the shared
     * experts' own overlap ("disable moe_shared_expert_overlap when enabling
     * overlap_moe_expert_parallel_comm", training/comm_overlap.py at
     * v0.2.2), which the DeepSeek, GLM-4.5 and Llama 4 providers turn on */
    if (pp_moe_a2a_overlapped(prob, p))
        set_bool(br, NULL, "model.moe_shared_expert_overlap", false);
    if (pp_model_is_moe(m)) { /* a recipe's own capacity (Nemotron 3 Super's 1.1, padded) is not the plan's */
        if (!find_setting(megatron, "--moe-expert-capacity-factor"))
            bridge_off(br, "model.moe_expert_capacity_factor", "null");
        set_bool(br, NULL, "model.moe_pad_expert_input_to_capacity", false);
    }
    /* the rest of the flags: the model's shape and architecture, each its
     * TransformerConfig field; written when no recipe builds the model */
    const char *precision_flags = pp_precision_props(t->precision)->megatron_flags;
    int unsaid = 0;
    for (int i = 0; i < megatron->n && !recipe; i++) {
        const pp_launch_setting *s = &megatron->settings[i];
        if (!s->key[0] || bridge_key_of(s->key) || strcmp(s->key, precision_flags) == 0)
            continue;
        char key[PP_LAUNCH_KEY];
        /* a list value (--moe-layer-freq's Python expression) has no Hydra
         * spelling parplan writes, nor a Python callable (--quick-geglu sets
         * activation_func to quick_gelu) */
        bool callable = strcmp(s->key, "--quick-geglu") == 0;
        if ((s->kind == PP_LV_TEXT && s->text[0] == '"') || callable) {
            note(br, "%s`%s%s%s`", unsaid++ ? ", " : "Megatron-Bridge takes no override parplan writes for ", s->key,
                 callable ? "" : " ", callable ? "" : s->text);
            continue;
        }
        if (!bridge_generic_key(s->key, key, sizeof key))
            continue;
        bridge_set(br, key, s->kind == PP_LV_SWITCH ? BR_TRUE : BR_COPY, s, p);
    }
    if (unsaid) {
        note(br, ": set %s in the recipe that builds the model.\n\n", unsaid == 1 ? "it" : "them");
        br->exact = false;
    }
    note(br, "The `comm_overlap.` overrides need the recipe's `comm_overlap` section: a recipe that leaves it "
             "unset (None) takes it as `CommOverlapConfig(...)` in the script instead.\n\n");
}

/* ---- DeepSpeed ------------------------------------------------------------ */

/* DeepSpeed runs the data-parallel part; Megatron-DeepSpeed takes the
 * degrees Megatron-LM's first two flags give (megatron). */
static void build_deepspeed(pp_launch_target *ds, const pp_launch_target *megatron, const pp_problem *prob,
                            const pp_plan *p, int microbatches)
{
    const pp_training *t = &prob->training;
    ds->title = "DeepSpeed";
    ds->format = PP_LF_JSON;
    ds->json_key = "deepspeed";
    set_int(ds, NULL, "train_batch_size", t->global_batch);
    set_int(ds, NULL, "train_micro_batch_size_per_gpu", p->micro_batch);
    set_int(ds, NULL, "gradient_accumulation_steps", microbatches);
    set_bool(ds, t->precision == PP_PREC_FP16 ? "fp16" : "bf16", "enabled", true);
    set_int(ds, "zero_optimization", "stage", p->zero);
    if (p->zero >= 1 && t->dp_overlap)
        set_bool(ds, "zero_optimization", "overlap_comm", true);
    if (pp_plan_dp_cast16(prob, p) && t->precision != PP_PREC_FP16) /* the gradients cast to bf16 */
        set_text(ds, NULL, "communication_data_type", PP_LV_STR, "bf16");

    char tp[PP_LAUNCH_TEXT], pp[PP_LAUNCH_TEXT];
    flag_text(&megatron->settings[0], tp, sizeof tp);
    flag_text(&megatron->settings[1], pp, sizeof pp);
    note(ds, "DeepSpeed leaves tensor and pipeline parallelism to the model code: with Megatron-DeepSpeed "
             "pass `%s %s`%s.",
         tp, pp, p->recompute == PP_RECOMPUTE_FULL ? " and `--checkpoint-activations`" : "");
    if (pp_precision_props(t->precision)->low_gemm) /* data/frameworks.json: DeepSpeed runs bf16 and fp16 */
        note(ds, " DeepSpeed's configuration has no %s recipe: the priced GEMMs need Transformer Engine modules "
                 "in the model code (the Megatron-LM precision flags above).",
             pp_precision_name(t->precision));
    if (p->zero >= 2 && p->pp > 1)
        note(ds, " DeepSpeed's pipeline engine takes ZeRO stage 0 or 1 only, so this plan needs Megatron-LM.");
    if (p->virtual_stages > 1)
        note(ds, " DeepSpeed's pipeline engine has no interleaved schedule: use Megatron-LM for "
                 "virtual\\_stages > 1.");
    if (p->cp > 1)
        note(ds, " Context parallelism (a ring over the sequence) is Megatron-LM's; DeepSpeed-Ulysses "
                 "splits the sequence differently.");
    if (pp_model_is_moe(&prob->model) && p->ep > 1) { /* DeepSpeed-MoE drops at capacity 1.0 unless told */
        if (p->moe_capacity_factor > 0)
            note(ds, " Its experts: `deepspeed.moe.layer.MoE(..., capacity_factor=%s, drop_tokens=True)`.",
                 pp_decisions[PP_DEC_MOE_CAPACITY].names[p->moe_capacity_factor]);
        else
            note(ds, " Its experts drop no token: `deepspeed.moe.layer.MoE(..., drop_tokens=False)` (DeepSpeed "
                     "drops the tokens beyond capacity 1.0 by default).");
        if (prob->training.moe_force_balance)
            note(ds, " DeepSpeed-MoE has no forced-balance router: its experts run as its gate leaves them, "
                     "not at the mean share this plan was priced at (training.moe\\_force\\_balance).");
    }
    const pp_launch_setting *sel = find_setting(megatron, "--recompute-granularity");
    if (p->recompute == PP_RECOMPUTE_SELECTIVE && sel) {
        char text[PP_LAUNCH_TEXT];
        flag_text(sel, text, sizeof text);
        note(ds, " Selective recomputation is Megatron-LM's `%s`.", text);
        const pp_launch_setting *mods = find_setting(megatron, "--recompute-modules");
        if (mods) {
            flag_text(mods, text, sizeof text);
            note(ds, " Its modules are Megatron-Core's `%s`.", text);
        }
    }
    note(ds, "\n\n");
}

/* ---- PyTorch FSDP2 / torchtitan ------------------------------------------- */

static void build_torchtitan(pp_launch_target *tt, const pp_problem *prob, const pp_plan *p)
{
    tt->title = "PyTorch FSDP2 (torchtitan)";
    tt->format = PP_LF_TOML;
    tt->json_key = "torchtitan";
    /* FSDP2 shards over data_parallel_shard_degree and replicates over
     * data_parallel_replicate_degree (HSDP); ZeRO-3 is FULL_SHARD (reshard
     * after forward), ZeRO-2 keeps the gathered parameters between forward
     * and backward (reshard_after_forward "never"), ZeRO-0 is plain
     * replication; FSDP has no ZeRO-1 (torchtitan docs/fsdp.md). */
    long dp = pp_replica_ranks(p) / p->cp;
    const char *par = "parallelism";
    set_int(tt, par, "data_parallel_replicate_degree", p->zero >= 2 ? 1 : dp);
    set_int(tt, par, "data_parallel_shard_degree", p->zero >= 2 ? dp : 1);
    set_text(tt, par, "fsdp_reshard_after_forward", PP_LV_STR, "%s", p->zero == 3 ? "always" : "never");
    set_int(tt, par, "tensor_parallel_degree", p->tp);
    set_int(tt, par, "context_parallel_degree", p->cp);
    if (p->cp > 1 && p->cp_comm == PP_CP_P2P) /* the ring cost/cp.c prices (its default gathers the kv shards) */
        set_text(tt, par, "context_parallel_rotate_method", PP_LV_STR, "alltoall");
    set_int(tt, par, "pipeline_parallel_degree", p->pp);
    bool async_tp = p->tp_comm_overlap; /* needs torch.compile */
    if (async_tp)
        set_bool(tt, par, "enable_async_tensor_parallel", true);
    /* Experts over ep ranks borrowed from FSDP and TP (torchtitan
     * torchtitan/config/configs.py, Parallelism.expert_parallel_degree: "EP
     * borrows ranks from FSDP and TP"); it does not split an expert's
     * matrices over TP, so only etp = 1 runs as priced. */
    bool moe = pp_model_is_moe(&prob->model);
    if (moe)
        set_int(tt, par, "expert_parallel_degree", p->ep);
    if (moe && pp_moe_deepep(prob, p)) /* Parallelism.expert_parallel_comm_backend (v0.2.2) */
        set_text(tt, par, "expert_parallel_comm_backend", PP_LV_STR, "deepep");
    if (moe && prob->training.moe_force_balance) /* Debug.moe_force_load_balance (v0.2.2) */
        set_bool(tt, "debug", "moe_force_load_balance", true);
    bool a2a_overlap = moe && pp_moe_a2a_overlapped(prob, p);
    pp_stage_split split;
    bool even_chunks = false;
    if (p->pp > 1) {
        set_text(tt, par, "pipeline_parallel_schedule", PP_LV_STR, "%s",
                 p->virtual_stages > 1 ? "Interleaved1F1B" : "1F1B");
        set_int(tt, par, "pipeline_parallel_microbatch_size", p->micro_batch)->where = PP_LAUNCH_MD;
        /* the layers of one model chunk, when every chunk holds as many
         * (Parallelism.pipeline_parallel_layers_per_stage) */
        even_chunks = pp_stage_layers(prob, p, &split) && !split.uneven &&
                      prob->model.layers % (p->pp * p->virtual_stages) == 0;
        if (p->virtual_stages > 1 && even_chunks)
            set_int(tt, par, "pipeline_parallel_layers_per_stage",
                    prob->model.layers / (p->pp * p->virtual_stages));
    }
    /* a bf16 gradient reduction (the DP codec bf16, or training.grad_reduce_dtype):
     * torchtitan's training.mixed_precision_reduce is Literal["float32"]
     * (torchtitan/config/job_config.py at v0.2.2 and configs.py at its
     * 2026 head; argparse choices ["float32"] before), so it reduces in fp32:
     * Composer's PURE mixed precision runs what was priced */
    bool reduce16 = pp_plan_grad_reduce(prob, p) == PP_PREC_BF16 && p->dp > 1;
    if (reduce16)
        note(tt, "torchtitan reduces FSDP gradients in float32 only (`training.mixed_precision_reduce` takes "
                 "\"float32\" alone, v0.2.2 and after), twice the DP bytes of the bf16 reduction priced here; "
                 "llm-foundry runs the plan as priced (`fsdp_config.mixed_precision: PURE`).\n\n");
    set_int(tt, "training", "local_batch_size", (long)p->micro_batch * pp_microbatches(prob, p));
    set_int(tt, "training", "global_batch_size", prob->training.global_batch);
    set_int(tt, "training", "seq_len", prob->model.seq_len)->where = PP_LAUNCH_MD;
    const char *ac = p->recompute == PP_RECOMPUTE_FULL        ? "full"
                     : p->recompute == PP_RECOMPUTE_SELECTIVE ? "selective"
                                                              : "none";
    set_text(tt, "activation_checkpoint", "mode", PP_LV_STR, "%s", ac)->json_key = "activation_checkpoint_mode";
    if (p->recompute == PP_RECOMPUTE_SELECTIVE) {
        pp_launch_setting *s = set_text(tt, "activation_checkpoint", "selective_ac_option", PP_LV_STR, "op");
        s->where = PP_LAUNCH_MD;
        s->comment = "per-op SAC: what framework fsdp prices as selective";
    }
    /* The recipe as a converter of the linear layers (torchtitan v0.2.2
     * docs/float8.md and docs/mxfp8.md; job_config.py Float8Linear,
     * MXLinear): torchao's float8 with the scale from the tensor itself
     * (fp8-current), or MXFP8; torchtitan has no other fp8 or fp4 recipe
     * (data/frameworks.json "precisions"). */
    pp_precision prec = prob->training.precision;
    bool recipe_runs = prec == PP_PREC_BF16 || prec == PP_PREC_FP8_CURRENT || prec == PP_PREC_MXFP8;
    if (prec == PP_PREC_FP8_CURRENT || prec == PP_PREC_MXFP8) {
        bool mx = prec == PP_PREC_MXFP8;
        const char *converter = mx ? "quantize.linear.mx" : "quantize.linear.float8";
        set_text(tt, "model", "converters", PP_LV_TEXT, "[\"%s\"]", converter)->json_key = "model_converters";
        set_text(tt, converter, "recipe_name", PP_LV_STR, "%s", mx ? "mxfp8_cublas" : "tensorwise")->json_key =
            mx ? "mx_recipe_name" : "float8_recipe_name";
        if (!mx && prob->training.fp8_params) /* FSDP gathers the fp8 weights */
            set_bool(tt, converter, "enable_fsdp_float8_all_gather", true)->json_key = "enable_fsdp_float8_all_gather";
    }
    /* the model priced fused element-wise kernels: torchtitan gets them from torch.compile */
    pp_launch_setting *c = set_bool(tt, "compile", "enable", prob->training.fused_elementwise || async_tp);
    c->json_key = "compile";
    c->comment = "fused element-wise kernels, as priced; AsyncTP needs it";
    tt->has_exact = true;
    bool layout_runs = p->pp == 1 || p->virtual_stages == 1 || even_chunks;
    /* PyTorch's interleaved schedules split the micro-batches into rounds of
     * pp (torch.distributed.pipelining ScheduleInterleaved1F1B) */
    bool groups_run = p->virtual_stages == 1 || pp_microbatches(prob, p) % p->pp == 0;
    tt->exact = recipe_runs && pp_framework_has_zero(PP_FW_FSDP, p->zero) && p->tp_mode == PP_TP_1D &&
                p->codec[PP_DIM_DP] == 0 && !reduce16 &&
                p->codec[PP_DIM_TP] == 0 && p->codec[PP_DIM_PP] == 0 && p->codec[PP_DIM_PARAMS] == 0 &&
                (!moe || p->etp == 1) && layout_runs && groups_run && !fp8_act_store_on(prob, p) && !a2a_overlap &&
                p->moe_capacity_factor == 0 &&
                (p->recompute != PP_RECOMPUTE_SELECTIVE ||
                 p->recompute_modules == pp_decisions[PP_DEC_RECOMPUTE_MODULES].def);
    if (!recipe_runs)
        note(tt, "torchtitan v0.2.2 has no %s recipe (it trains in bf16, fp8-current as torchao's float8 "
                 "tensorwise, or mxfp8): run this plan with Megatron-Core.\n\n",
             pp_precision_name(prec));
    if (p->zero == 1)
        note(tt, "FSDP has no ZeRO-1: the closest is HSDP or plain replication as above (zero 0), or "
                 "`training.framework: \"fsdp\"` in the problem, which plans with FSDP's own stages.\n\n");
    if (moe && p->etp > 1)
        note(tt, "torchtitan does not split an expert's matrices over tensor parallelism (expert tensor "
                 "parallelism %d here): run this plan with Megatron-Core, or plan with etp 1.\n\n", p->etp);
    if (!groups_run)
        note(tt, "The %d micro-batches per pipeline are not a multiple of pp=%d, which Megatron-Core runs in "
                 "groups of %d and PyTorch's interleaved schedules do not run: run this plan with Megatron-Core.\n\n",
             pp_microbatches(prob, p), p->pp,
             pp_vp_microbatch_group(p->pp, p->virtual_stages, pp_microbatches(prob, p)));
    if (!layout_runs)
        note(tt, "The priced pipeline layout gives its %d model chunks unequal layers, which "
                 "`pipeline_parallel_layers_per_stage` cannot say: run this plan with Megatron-Core.\n\n",
             p->pp * p->virtual_stages);
    if (p->zero != 1 && (p->tp_mode != PP_TP_1D || (p->codec[PP_DIM_DP] && !reduce16) || p->codec[PP_DIM_TP] ||
                         p->codec[PP_DIM_PP] || p->codec[PP_DIM_PARAMS]))
        note(tt, "torchtitan has no 2D/2.5D/3D tensor parallelism and no message compression: this plan "
                 "needs Megatron-LM or Colossal-AI and MVAPICH for those parts.\n\n");
    if (p->recompute == PP_RECOMPUTE_SELECTIVE && p->recompute_modules != pp_decisions[PP_DEC_RECOMPUTE_MODULES].def)
        note(tt, "torchtitan's selective checkpointing is per op or per layer: it has no recompute modules "
                 "(%s here, Megatron-Core's `--recompute-modules`).\n\n",
             pp_decisions[PP_DEC_RECOMPUTE_MODULES].names[p->recompute_modules]);
    if (a2a_overlap)
        note(tt, "torchtitan v0.2.2 hides the expert all-to-alls behind another micro-batch only under its "
                 "DualPipeV schedule (`pipeline_parallel_expert_parallel_overlap`), not under the schedules "
                 "parplan prices: the priced overlap is Megatron-Core's `--overlap-moe-expert-parallel-comm`.\n\n");
    if (moe && p->moe_capacity_factor > 0)
        note(tt, "torchtitan's experts drop no token (it has no expert capacity): the priced capacity factor %s "
                 "is Megatron-Core's `--moe-expert-capacity-factor`.\n\n",
             pp_decisions[PP_DEC_MOE_CAPACITY].names[p->moe_capacity_factor]);
    if (fp8_act_store_on(prob, p))
        note(tt, "torchtitan does not keep the SwiGLU input in fp8 (Megatron-Core's "
                 "activation_func_fp8_input_store): it holds the priced activations only under Megatron-Core.\n\n");
    if (p->pp > 1 && p->zero >= 2)
        note(tt, "With pipeline parallelism torchtitan keeps FSDP's gathered parameters across the micro-"
                 "batches of a step (reshard_after_forward applies per step).\n\n");
}

/* ---- MVAPICH-Plus compression --------------------------------------------- */

/* Codec ids come from the catalog or the problem: in a code block they are
 * not Markdown, but keep them to safe characters all the same. */
static void code_word(char *dst, size_t size, const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p && n + 1 < size; p++)
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("-_.", *p))
            dst[n++] = (char)*p;
    if (size)
        dst[n] = '\0';
}

/* An MPI codec of the plan on dimension d (not a cast), or NULL. */
static const pp_codec *mpi_codec(const pp_problem *prob, const pp_plan *p, int d)
{
    int i = p->codec[d];
    return i > 0 && i < prob->n_codecs && !prob->codecs[i].cast ? &prob->codecs[i] : NULL;
}

/* Compression runs in MVAPICH-Plus collectives (Xu et al. 2024); its
 * settings are environment variables (MVAPICH-Plus 4.0 GPU compression
 * documentation), which each dimension's collectives (the point-to-point
 * sends of pp, the reduce-scatters, all-gathers and all-reduces of the
 * others) switch on. */
static void build_mvapich(pp_launch *l, const pp_problem *prob, const pp_plan *p)
{
    pp_launch_target *mv = &l->targets[PP_LT_MVAPICH];
    mv->title = "MVAPICH-Plus";
    mv->format = PP_LF_ENV;
    mv->json_key = NULL;
    for (int d = 0; d < PP_DIM_COUNT; d++)
        l->mpi_codecs |= mpi_codec(prob, p, d) != NULL;
    if (!l->mpi_codecs)
        return;
    set_text(mv, NULL, "MPIR_CVAR_ENABLE_COMPRESSION", PP_LV_TEXT, "1");
    for (int d = 0; d < PP_DIM_COUNT; d++) {
        const pp_codec *k = mpi_codec(prob, p, d);
        if (!k)
            continue;
        char id[PP_LAUNCH_TEXT];
        code_word(id, sizeof id, k->id);
        if (k->lossy)
            set_text(mv, NULL, NULL, PP_LV_COMMENT, "%s traffic: %s (lossy, %g bits per value)",
                     pp_dim_name((pp_dim)d), id, k->bits_per_value);
        else
            set_text(mv, NULL, NULL, PP_LV_COMMENT, "%s traffic: %s (lossless)", pp_dim_name((pp_dim)d), id);
        if (strncmp(k->id, "zfp", 3) == 0) {
            set_text(mv, NULL, "MPIR_CVAR_COMPRESSION_ALGORITHM", PP_LV_TEXT, "zfp");
            set_text(mv, NULL, "MPIR_CVAR_ZFP_RATE", PP_LV_TEXT, "%g", k->bits_per_value);
        } else
            set_text(mv, NULL, NULL, PP_LV_COMMENT, "MPIR_CVAR_COMPRESSION_ALGORITHM: MVAPICH-Plus 4.0 documents "
                                                    "zfp only; this codec needs an MVAPICH build that has it");
        /* the collectives that carry the dimension's traffic: gradients
         * reduce-scattered under ZeRO, sequence-parallel activations
         * reduce-scattered and all-gathered, parameters all-gathered */
        bool sp = d == PP_DIM_TP && p->sequence_parallel;
        bool reduce_scatter = (d == PP_DIM_DP && p->zero >= 1) || sp;
        bool all_gather = sp || d == PP_DIM_PARAMS;
        bool all_reduce = (d == PP_DIM_DP || d == PP_DIM_TP) && !reduce_scatter;
        if (d == PP_DIM_PP) {
            set_text(mv, NULL, "MPIR_CVAR_ENABLE_PT2PT_GPU_COMPRESSION", PP_LV_TEXT, "1");
            set_text(mv, NULL, "MPIR_CVAR_PT2PT_GPU_COMPRESSION_THRESHOLD", PP_LV_TEXT, "%.0f",
                     prob->compress_min_bytes);
        }
        if (reduce_scatter)
            set_text(mv, NULL, "MPIR_CVAR_REDUCE_SCATTER_INTRA_ALGORITHM", PP_LV_TEXT, "osu_ring_compression");
        if (all_gather)
            set_text(mv, NULL, "MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM", PP_LV_TEXT, "osu_gpu_compression");
        if (all_reduce)
            set_text(mv, NULL, "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", PP_LV_TEXT, "osu_ring_compression");
    }
}

void pp_launch_build(const pp_problem *prob, const pp_plan *plan, int microbatches, pp_launch *out)
{
    memset(out, 0, sizeof *out);
    build_megatron(&out->targets[PP_LT_MEGATRON], prob, plan);
    build_bridge(&out->targets[PP_LT_BRIDGE], &out->targets[PP_LT_MEGATRON], prob, plan);
    build_deepspeed(&out->targets[PP_LT_DEEPSPEED], &out->targets[PP_LT_MEGATRON], prob, plan, microbatches);
    build_torchtitan(&out->targets[PP_LT_TORCHTITAN], prob, plan);
    build_mvapich(out, prob, plan);
    /* priced without NVLink SHARP where the GPU's NVSwitch has it: the run
     * must turn it off too (NCCL 2.17 on runs it by default) */
    if (prob->cluster.gpu.nvls_allreduce_fraction > 0.0 && !prob->cluster.nccl_nvls)
        for (int i = 0; i < PP_LT_COUNT; i++)
            if (i != PP_LT_MVAPICH && out->targets[i].n > 0)
                note(&out->targets[i], "Run it with `NCCL_NVLS_ENABLE=0` in the environment (or an NCCL before "
                                       "2.17): the plan is priced without NVLink SHARP (`training.nccl_nvls` "
                                       "false), which NCCL otherwise runs for one-node all-reduces here.\n\n");
    /* Transformer Engine's userbuffers ask for CUDA multicast, which the
     * NVSwitch of NVLink SHARP brings (gpus.json nvls_allreduce_fraction):
     * without it initialize_ub raises unless UB_SKIPMC=1 puts them on CUDA
     * IPC (transformer_engine/pytorch/module/base.py at NVIDIA/
     * TransformerEngine d0067d0d, since 5ee98175 of 2024-07-23) */
    static const pp_launch_id userbuffers[] = {PP_LT_MEGATRON, PP_LT_BRIDGE};
    if (plan->tp_comm_overlap && plan->tp > 1 && prob->cluster.gpu.nvls_allreduce_fraction <= 0.0)
        for (size_t i = 0; i < sizeof userbuffers / sizeof userbuffers[0]; i++)
            if (out->targets[userbuffers[i]].n > 0)
                note(&out->targets[userbuffers[i]],
                     "Run it with `UB_SKIPMC=1` in the environment: Transformer Engine's userbuffers, which "
                     "`--tp-comm-overlap` runs, ask for CUDA multicast, which this GPU's NVLink lacks (no NVLink "
                     "SHARP, data/gpus.json), and otherwise stop at start-up; with it they move the pieces over "
                     "CUDA IPC, as priced.\n\n");
}

int pp_launch_lines(const pp_launch_target *t, char lines[][PP_LAUNCH_TEXT], int max)
{
    int n = 0;
    for (int i = 0; i < t->n; i++) {
        const pp_launch_setting *s = &t->settings[i];
        if (!(s->where & PP_LAUNCH_MD))
            continue;
        char text[PP_LAUNCH_TEXT];
        flag_text(s, text, sizeof text);
        if (s->joined && n > 0) {
            append(lines[n - 1], PP_LAUNCH_TEXT, " ");
            append(lines[n - 1], PP_LAUNCH_TEXT, text);
        } else if (n < max) {
            lines[n][0] = '\0';
            append(lines[n++], PP_LAUNCH_TEXT, text);
        } else
            break;
    }
    return n;
}

int pp_megatron_flags(const pp_problem *prob, const pp_plan *plan, char lines[][PP_LAUNCH_TEXT], int max)
{
    pp_launch *l = malloc(sizeof *l);
    if (!l)
        return 0;
    pp_launch_build(prob, plan, pp_microbatches(prob, plan), l);
    int n = pp_launch_lines(&l->targets[PP_LT_MEGATRON], lines, max);
    free(l);
    return n;
}

/* ---- Markdown ------------------------------------------------------------- */

static void md_args(pp_strbuf *sb, const pp_launch_target *t)
{
    char lines[PP_LAUNCH_MAX_SETTINGS][PP_LAUNCH_TEXT];
    int n = pp_launch_lines(t, lines, PP_LAUNCH_MAX_SETTINGS);
    pp_sb_appendf(sb, "```sh\n%s \\\n", t->command);
    for (int i = 0; i < n; i++)
        pp_sb_appendf(sb, "    %s \\\n", lines[i]);
    pp_sb_appendf(sb, "    %s\n```\n\n", t->trailer);
}

/* Whether Markdown writes s: a switch that is off goes unsaid. */
static bool md_shown(const pp_launch_setting *s)
{
    return (s->where & PP_LAUNCH_MD) && !(s->kind == PP_LV_BOOL && !s->on);
}

/* Whether two settings sit in one section (NULL is the top level). */
static bool same_section(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* A value as TOML and JSON spell it. */
static void md_value(pp_strbuf *sb, const pp_launch_setting *s)
{
    switch (s->kind) {
    case PP_LV_INT: pp_sb_appendf(sb, "%ld", s->num); break;
    case PP_LV_BOOL: pp_sb_append(sb, s->on ? "true" : "false"); break;
    case PP_LV_STR: pp_sb_appendf(sb, "\"%s\"", s->text); break;
    default: pp_sb_append(sb, s->text); break;
    }
}

/* A JSON configuration, a top-level key a line and each section on one
 * line of its own: { "train_batch_size": 1536, ..., "zero_optimization": { "stage": 1 } }. */
static void md_json(pp_strbuf *sb, const pp_launch_target *t)
{
    pp_sb_append(sb, "```json\n{");
    const char *open = NULL; /* the section whose line is being written */
    bool first = true;
    for (int i = 0; i < t->n; i++) {
        const pp_launch_setting *s = &t->settings[i];
        if (!md_shown(s))
            continue;
        bool same = open && same_section(open, s->section);
        if (open && !same)
            pp_sb_append(sb, " }");
        if (same)
            pp_sb_append(sb, ", ");
        else {
            pp_sb_append(sb, first ? "\n  " : ",\n  ");
            if (s->section)
                pp_sb_appendf(sb, "\"%s\": { ", s->section);
        }
        first = false;
        open = s->section;
        pp_sb_appendf(sb, "\"%s\": ", s->key);
        md_value(sb, s);
    }
    pp_sb_append(sb, open ? " }\n}\n```\n\n" : "\n}\n```\n\n");
}

/* A TOML configuration: each section a table, in the order of its first
 * setting (top-level settings, which TOML wants before any table, must be
 * the target's first). */
static void md_toml(pp_strbuf *sb, const pp_launch_target *t)
{
    pp_sb_append(sb, "```toml\n");
    bool any = false;
    for (int i = 0; i < t->n; i++) {
        const char *sec = t->settings[i].section;
        bool seen = false, shown = false;
        for (int k = 0; k < i && !seen; k++)
            seen = same_section(t->settings[k].section, sec);
        for (int k = i; k < t->n && !shown; k++)
            shown = same_section(t->settings[k].section, sec) && md_shown(&t->settings[k]);
        if (seen || !shown)
            continue;
        if (sec)
            pp_sb_appendf(sb, "%s[%s]\n", any ? "\n" : "", sec);
        any = true;
        for (int k = i; k < t->n; k++) {
            const pp_launch_setting *s = &t->settings[k];
            if (!same_section(s->section, sec) || !md_shown(s))
                continue;
            pp_sb_appendf(sb, "%s = ", s->key);
            md_value(sb, s);
            if (s->comment)
                pp_sb_appendf(sb, "  # %s", s->comment);
            pp_sb_append(sb, "\n");
        }
    }
    pp_sb_append(sb, "```\n\n");
}

static void md_env(pp_strbuf *sb, const pp_launch_target *t)
{
    pp_sb_append(sb, "```sh\n");
    for (int i = 0; i < t->n; i++) {
        const pp_launch_setting *s = &t->settings[i];
        if (s->kind == PP_LV_COMMENT)
            pp_sb_appendf(sb, "# %s\n", s->text);
        else
            pp_sb_appendf(sb, "export %s=%s\n", s->key, s->text);
    }
    pp_sb_append(sb, "```\n\n");
}

/* Hydra overrides, one a line after the launcher: key=value, null for
 * unset, a value with other than word characters in single quotes. */
static void md_overrides(pp_strbuf *sb, const pp_launch_target *t)
{
    const pp_launch_setting *recipe = find_setting(t, "recipe");
    pp_sb_appendf(sb, "```sh\n# pretrain.py: a script that builds %s%s%s and applies its command-line overrides, as "
                      "Megatron-Bridge v0.2.2's examples/recipes/llama/pretrain_llama3_8b.py does\n%s \\\n",
                  recipe ? "the recipe " : "a GPT recipe (megatron.bridge.recipes.gpt)", recipe ? recipe->text : "",
                  recipe ? "()" : "", t->command);
    int shown = 0;
    for (int i = 0; i < t->n; i++)
        shown += t->settings[i].where & PP_LAUNCH_MD ? 1 : 0;
    for (int i = 0, k = 0; i < t->n; i++) {
        const pp_launch_setting *s = &t->settings[i];
        if (!(s->where & PP_LAUNCH_MD))
            continue;
        pp_sb_appendf(sb, "    %s=", s->key);
        bool plain = true;
        for (const char *c = s->text; *c; c++)
            plain = plain && (isalnum((unsigned char)*c) || *c == '_' || *c == '.' || *c == '-');
        if (s->kind == PP_LV_NULL)
            pp_sb_append(sb, "null");
        else if (s->kind == PP_LV_STR && !plain)
            pp_sb_appendf(sb, "'%s'", s->text);
        else if (s->kind == PP_LV_STR)
            pp_sb_append(sb, s->text);
        else
            md_value(sb, s);
        pp_sb_append(sb, ++k < shown ? " \\\n" : "\n");
    }
    pp_sb_append(sb, "```\n\n");
}

/* One target: its heading, its settings in its format, its notes. */
static void md_target(pp_strbuf *sb, const pp_launch_target *t)
{
    switch (t->format) {
    case PP_LF_ARGS: md_args(sb, t); break;
    case PP_LF_JSON: md_json(sb, t); break;
    case PP_LF_TOML: md_toml(sb, t); break;
    case PP_LF_ENV: md_env(sb, t); break;
    case PP_LF_OVERRIDES: md_overrides(sb, t); break;
    }
    pp_sb_append(sb, t->notes);
}

/* The compression section: casts the framework applies, the MVAPICH-Plus
 * environment of MPI codecs, and the accuracy risk of each lossy choice. */
static void md_compression(pp_strbuf *sb, const pp_problem *prob, const pp_plan *p, const pp_launch *l)
{
    pp_sb_append(sb, "### Compression\n\n");
    int used = 0;
    for (int d = 0; d < PP_DIM_COUNT; d++)
        used += p->codec[d] > 0;
    if (!used) {
        pp_sb_append(sb, "No dimension is compressed: no MPI compression settings are needed.\n\n");
        return;
    }
    for (int d = 0; d < PP_DIM_COUNT; d++) {
        int i = p->codec[d];
        if (i <= 0 || i >= prob->n_codecs || !prob->codecs[i].cast)
            continue;
        const pp_codec *k = &prob->codecs[i];
        char id[PP_LAUNCH_TEXT];
        code_word(id, sizeof id, k->id);
        if (d == PP_DIM_DP && pp_plan_dp_cast16(prob, p))
            pp_sb_appendf(sb, "%s traffic: %s, the gradients reduced in a %g-bit type, which the training "
                              "framework sets: Megatron-LM `--grad-reduce-in-bf16`, DeepSpeed "
                              "`communication_data_type: \"bf16\"`, llm-foundry `fsdp_config.mixed_precision: PURE` (torchtitan "
                              "reduces in float32 only), as the settings above say; the collective library needs no "
                              "setting. No kernel casts them before the collective: Megatron-LM and FSDP also hold "
                              "them in that type between micro-batches, which the memory above counts, and so sum "
                              "the micro-batches' gradients in bf16, what Megatron-LM's default avoids (arguments.py: "
                              "\"bfloat16 requires gradient accumulation and all-reduce to be done in fp32\"); "
                              "watch the loss curve against a run reducing in fp32 for the first steps.\n\n",
                          pp_dim_name((pp_dim)d), id, k->bits_per_value);
        else
            pp_sb_appendf(sb, "%s traffic: %s, a quantizer applied before the collective (%g bits per value); "
                              "none of the frameworks above runs it (data/frameworks.json): it needs code of "
                              "your own around the collective.\n\n",
                          pp_dim_name((pp_dim)d), id, k->bits_per_value);
    }
    if (l->mpi_codecs) {
        pp_sb_append(sb, "Dimensions with an MPI codec run their collectives through MVAPICH2-GDR / MVAPICH-Plus "
                         "with GPU compression (NCCL does not compress). Its settings are environment "
                         "variables:\n\n");
        md_target(sb, &l->targets[PP_LT_MVAPICH]);
        pp_sb_append(sb, "These variables hold for the whole process, not one communicator: if two "
                         "dimensions use different codecs or rates, MVAPICH cannot apply both, and the cheaper "
                         "choice is to keep the one that saves more time (see the runner-ups).\n\n");
    }
    /* The accuracy risk of each lossy choice (docs/cost-model.md §3). */
    static const char *const risk[PP_DIM_COUNT] = {
        [PP_DIM_DP] = "gradients tolerate aggressive compression when the error is fed back into the next step "
                      "(1-bit Adam, ZeRO++ qgZ, Xu et al.'s hybrid at baseline loss); watch the loss curve against "
                      "an uncompressed run for the first thousand steps",
        [PP_DIM_TP] = "activations are consumed at once, so the error enters every layer's output without "
                      "feedback; Xu et al.'s compress-all run lost loss this way",
        [PP_DIM_PP] = "activations and their gradients cross each stage boundary without error feedback; the "
                      "error compounds over the pipeline",
        [PP_DIM_PARAMS] = "parameters gathered with error are the weights the forward pass uses, and ZeRO++ "
                          "keeps them at 8 bits at most (qwZ) for that reason",
    };
    for (int d = 0; d < PP_DIM_COUNT; d++) {
        int i = p->codec[d];
        if (i <= 0 || i >= prob->n_codecs || !prob->codecs[i].lossy)
            continue;
        const pp_codec *k = &prob->codecs[i];
        char id[PP_LAUNCH_TEXT];
        code_word(id, sizeof id, k->id);
        pp_sb_appendf(sb, "Accuracy risk, %s: %s adds relative error %.2g per message (tolerance %.2g); %s.\n\n",
                      pp_dim_name((pp_dim)d), id, k->rel_error, prob->error_tolerance[d], risk[d]);
    }
}

/* ---- CUDA graphs ------------------------------------------------------------- */

/* The step time counts the GPU's work only: it assumes the host launches
 * every kernel before the GPU needs it.  Where a layer's forward and
 * backward give each GPU little work per micro-batch, eager Megatron-Core
 * and NeMo runs have not kept up: MLPerf Training's Llama 2 70B LoRA on 64
 * H100 (tp 4, cp 2, about 6 ms a layer) ran 0.625-0.654 s a step in v4.0
 * without CUDA graphs and 0.541-0.555 s in v4.1 with them, the same plan
 * (data/validation); on 512 H200 in v5.0 (about 5 ms a layer) the eager run
 * took 0.793 s where the graphed ones of v4.1 on H100 at the same degrees
 * took 0.546-0.558 s.  Below PP_GRAPH_LAYER_MS the report advises
 * capturing the layers as graphs, the run the price describes.  A MoE
 * layer's host time is priced (docs/cost-model.md section 9, "The host"):
 * where its MoE layers wait for the host the report says how long, and
 * advises the graphs that remove the wait.  A dropless MoE layer's routed
 * experts change shape every step and cannot be captured: there the
 * attention block, the router and its preprocessing are (Megatron-Core's
 * partial graphs through Transformer Engine, --cuda-graph-scope attn
 * moe_router moe_preprocess: the DeepSeek-V3 GB200 guide's final run,
 * Megatron-LM docs/discussions, October 2025, and the model zoo's 2026
 * runs).  The graphs' static buffers and memory pool are not priced, so the
 * advice says what memory the plan leaves. */
#define PP_GRAPH_LAYER_MS 8.0

void pp_cuda_graph_advice_of(const pp_problem *prob, const pp_plan *plan, const pp_eval *ev, pp_cuda_graph_advice *out)
{
    double layers = (double)prob->model.layers / (plan->pp > 0 ? plan->pp : 1);
    *out = (pp_cuda_graph_advice){0};
    if (ev->microbatches > 0 && layers > 0.0)
        out->layer_ms = 1e3 * ev->time.compute_s / (ev->microbatches * layers);
    if (prob->model.experts > 0 && prob->training.cuda_graphs == PP_GRAPHS_NONE) {
        pp_stage_term st;
        pp_term_stage(prob, plan, &st);
        out->host_wait_s = ev->microbatches * st.host_wait_s;
        out->host_ms = 1e3 * prob->fw.moe_layer_host_s;
    }
    out->advised = prob->training.framework == PP_FW_MEGATRON_CORE &&
                   prob->training.cuda_graphs == PP_GRAPHS_NONE &&
                   ((out->layer_ms > 0.0 && out->layer_ms < PP_GRAPH_LAYER_MS) || out->host_wait_s > 0.0);
    bool moe = pp_model_is_moe(&prob->model); /* its experts stay eager: partial graphs */
    out->impl = moe ? "transformer_engine" : "local";
    out->scope = moe ? partial_graph_scope(prob, plan) : NULL;
    out->free_gib = fmax(0.0, ev->mem.usable_gib - ev->mem.total_gib);
}

void pp_md_cuda_graphs(pp_strbuf *sb, const char *heading, const pp_problem *prob, const pp_plan *plan,
                       const pp_eval *ev)
{
    pp_cuda_graph_advice a;
    pp_cuda_graph_advice_of(prob, plan, ev, &a);
    if (!a.advised)
        return;
    pp_sb_appendf(sb, "%s CUDA graphs\n\n", heading);
    if (a.host_wait_s > 0.0)
        pp_sb_appendf(sb,
                      "Without CUDA graphs the host issues this plan's MoE layers more slowly than the GPU runs "
                      "them: %.1f ms a MoE layer's forward and backward per micro-batch (the framework's host time, "
                      "frameworks.json), so the step time above includes %.2f s of the GPU waiting for the host. "
                      "Capture what a MoE layer lets CUDA graphs capture: `--cuda-graph-impl %s",
                      a.host_ms, a.host_wait_s, a.impl);
    else
        pp_sb_appendf(sb,
                      "Each GPU computes about %.1f ms of a layer's forward and backward per micro-batch. The step "
                      "time above counts the GPU's work only: it assumes the host launches every kernel before the "
                      "GPU needs it, and below %.0f ms a layer eager Megatron-Core and NeMo runs have fallen behind "
                      "it (MLPerf Training's Llama 2 70B LoRA on 64 H100 at about 6 ms a layer: 0.625-0.654 s a step "
                      "without CUDA graphs in v4.0, 0.541-0.555 s with them in v4.1, the same plan). Capture the "
                      "layers as CUDA graphs: `--cuda-graph-impl %s",
                      a.layer_ms, PP_GRAPH_LAYER_MS, a.impl);
    if (a.scope)
        pp_sb_appendf(sb, " --cuda-graph-scope %s", a.scope);
    pp_sb_appendf(sb, "` (in Megatron-Bridge, %s with the same value%s)",
                  a.scope ? "`model.cuda_graph_impl` and `model.cuda_graph_scope`" : "`model.cuda_graph_impl`",
                  a.scope ? "s" : "");
    if (a.scope)
        pp_sb_append(sb, "; a MoE layer's routed experts change shape every step (Megatron-Core captures them only "
                         "padded to capacity) and stay eager, so the attention block and the router are captured");
    if (a.host_wait_s > 0.0)
        pp_sb_append(sb, ", and state `training.cuda_graphs` `\"partial\"` to price the plan so launched");
    pp_sb_appendf(sb, ". The graphs keep static buffers and a memory pool of their own, which the memory model "
                      "does not count: the plan leaves %.2f GiB of the usable memory free.\n\n",
                  a.free_gib);
}

void pp_md_how_to_run(pp_strbuf *sb, const pp_problem *prob, const pp_plan_result *res)
{
    pp_launch *l = malloc(sizeof *l);
    if (!l) {
        sb->failed = true;
        return;
    }
    pp_launch_build(prob, &res->best.plan, res->best.eval.microbatches, l);
    pp_sb_append(sb, "## How to run it\n\n");
    for (int i = PP_LT_MEGATRON; i <= PP_LT_TORCHTITAN; i++) {
        pp_sb_appendf(sb, "### %s\n\n", l->targets[i].title);
        md_target(sb, &l->targets[i]);
    }
    md_compression(sb, prob, &res->best.plan, l);
    pp_md_cuda_graphs(sb, "###", prob, &res->best.plan, &res->best.eval);
    free(l);
}
