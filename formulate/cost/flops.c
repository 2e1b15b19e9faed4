/*
 * flops.c: FLOP and parameter counts of a transformer (docs/cost-model.md §1).
 *
 * Megatron-LM's counting (num_floating_point_operations; Narayanan et al.
 * 2021 §5.1), per layer and forward pass, for T tokens of sequence length s:
 *
 *   QKV 2 T h (h + 2 h g/a) + projection 2 T h^2 + MLP 2 T h f x 2 (x 3 gated)
 *   + attention core 4 T s h (the full square);   logits 2 T h V
 *
 * Model FLOPs of a step are three forwards (backward = 2 x forward) and no
 * recomputation; hardware FLOPs add what recomputation repeats (a forward of
 * the layers, or only the attention core).  LoRA fine-tuning skips the
 * frozen weights' gradients: their matrix multiplies run two passes, not
 * three, and packed samples shorten the attention core's span
 * (pp_training_flops_per_step).  A GPT layer holds 12 h^2 + 13 h
 * parameters (weights, biases, two LayerNorms).
 */
#include "cost_internal.h"

double qkv_width(const pp_model *m)
{
    return attention_width(m) + 2.0 * (double)m->kv_heads * pp_model_head_dim(m);
}

double attention_width(const pp_model *m)
{
    return (double)m->heads * pp_model_head_dim(m);
}

double mlp_in_width(const pp_model *m)
{
    return (m->gated_mlp ? 2.0 : 1.0) * m->ffn_hidden;
}

double pp_attention_core_fwd_flops(const pp_model *m, double tokens, double seq)
{
    /* QK^T and scores·V: 2 x 2 tokens·seq·h (Megatron counts the full square). */
    if (pp_model_is_mla(m)) /* keys of d_nope + d_rope, values of d_v */
        return 2.0 * tokens * seq * m->heads * ((double)m->qk_nope_head_dim + m->qk_rope_head_dim + m->v_head_dim);
    return 4.0 * tokens * seq * attention_width(m);
}

double pp_layer_fwd_flops(const pp_model *m, double tokens, double seq)
{
    double h = m->hidden;
    double gemm = (pp_model_is_mla(m) ? attention_gemm_fwd_flops(m, tokens)
                                      : 2.0 * tokens * (h * qkv_width(m) + attention_width(m) * h)) /* QKV + output projection */
                  + 2.0 * tokens * h * (mlp_in_width(m) + m->ffn_hidden); /* MLP in + out */
    return gemm + pp_attention_core_fwd_flops(m, tokens, seq);
}

double pp_logits_fwd_flops(const pp_model *m, double tokens)
{
    return 2.0 * tokens * pp_model_logit_share(m) * m->hidden * m->vocab;
}

double pp_model_flops_per_step(const pp_model *m, double global_batch)
{
    double tokens = global_batch * m->seq_len;
    return 3.0 * (pp_layers_fwd_flops(m, tokens, m->seq_len) + pp_logits_fwd_flops(m, tokens));
}

double pp_recompute_flops_per_step(const pp_model *m, double global_batch, pp_recompute r)
{
    double tokens = global_batch * m->seq_len;
    if (r == PP_RECOMPUTE_FULL)
        return pp_layers_fwd_flops(m, tokens, m->seq_len);
    if (r == PP_RECOMPUTE_SELECTIVE)
        return m->layers * pp_attention_core_fwd_flops(m, tokens, m->seq_len);
    return 0.0;
}

double pp_hardware_flops_per_step(const pp_model *m, double global_batch, pp_recompute r)
{
    return pp_model_flops_per_step(m, global_batch) + pp_recompute_flops_per_step(m, global_batch, r);
}

double attention_params(const pp_model *m)
{
    if (pp_model_is_mla(m))
        return mla_attention_params(m);
    double h = m->hidden;
    return h * qkv_width(m) + qkv_width(m) + attention_width(m) * h + h; /* weights + biases */
}

double pp_layer_params(const pp_model *m)
{
    double h = m->hidden;
    double attn = attention_params(m); /* weights + biases */
    double mlp = h * mlp_in_width(m) + mlp_in_width(m) + m->ffn_hidden * h + h;
    return attn + mlp + 4.0 * h; /* two LayerNorms: scale and shift */
}

double pp_embedding_params(const pp_model *m)
{
    return (double)m->vocab * m->hidden;
}

double pp_model_params(const pp_model *m)
{
    double emb = pp_embedding_params(m) * (m->tie_embeddings ? 1.0 : 2.0);
    if (pp_model_is_moe(m)) { /* dense and MoE layers differ */
        double sum = 0.0;
        for (int i = 0; i < m->layers; i++)
            sum += pp_layer_params_at(m, i, NULL);
        return sum + emb + 2.0 * m->hidden;
    }
    return m->layers * pp_layer_params(m) + emb + 2.0 * m->hidden; /* + final LayerNorm */
}

/* The four weight matrices of a layer: K x N for QKV, projection, MLP in, MLP out. */
void layer_linears(const pp_model *m, double K[4], double N[4])
{
    K[0] = m->hidden, N[0] = qkv_width(m);
    K[1] = attention_width(m), N[1] = m->hidden;
    K[2] = m->hidden, N[2] = mlp_in_width(m);
    K[3] = m->ffn_hidden, N[3] = m->hidden;
}

/* LoRA (Hu et al. 2021, arXiv 2106.09685, section 4.1): an adapted weight
 * W (K x N) gets a down-projection A (K x r) and an up-projection B
 * (r x N), and the layer computes x W + (x A) B.  Of the four weights
 * layer_linears lists, the first lora_adapted_linears() carry adapters:
 * QKV and the projection, or all four. */
int lora_adapted_linears(const pp_training *t)
{
    if (t->lora_rank <= 0)
        return 0;
    return t->lora_targets == PP_LORA_ALL_LINEAR ? 4 : 2;
}

/* One GPU's share of adapter i's K x r and r x N under t-way tensor
 * parallelism, as NeMo's ParallelLinearAdapter splits them: beside a
 * column-parallel weight (QKV, MLP in) B is split by columns and A is
 * whole; beside a row-parallel one (projection, MLP out) A is split by rows
 * and B is whole. */
void lora_adapter_shape(const pp_model *m, int i, double t, double *k_in, double *n_out)
{
    double K[4], N[4];
    layer_linears(m, K, N);
    bool column = i % 2 == 0;
    *k_in = column ? K[i] : K[i] / t;
    *n_out = column ? N[i] / t : N[i];
}

double pp_lora_layer_params(const pp_model *m, const pp_training *t, double tp)
{
    double sum = 0.0, k, n;
    for (int i = 0; i < lora_adapted_linears(t); i++) {
        lora_adapter_shape(m, i, tp, &k, &n);
        sum += t->lora_rank * (k + n);
    }
    return sum;
}

/* FLOPs of a step as the hardware runs it when only the adapters train:
 * every frozen matrix multiply runs forward and its data gradient (2 of
 * the 3 passes; no weight gradient), the attention core and the adapters
 * all three (Hu et al. 2021 section 4.2: "we do not need to calculate the
 * gradient for the vast majority of the parameters"). */
static double lora_flops_saved(const pp_model *m, const pp_training *t, double tokens)
{
    double frozen_fwd = pp_layers_fwd_flops(m, tokens, m->seq_len) -
                        m->layers * pp_attention_core_fwd_flops(m, tokens, m->seq_len) + pp_logits_fwd_flops(m, tokens);
    double adapters = 2.0 * tokens * m->layers * pp_lora_layer_params(m, t, 1.0);
    return frozen_fwd - 3.0 * adapters;
}

double pp_attention_span(const pp_model *m, const pp_training *t)
{
    double s = m->seq_len;
    return t->packed_sample_tokens > 0.0 && t->packed_sample_tokens < s ? t->packed_sample_tokens : s;
}

double pp_training_flops_per_step(const pp_model *m, const pp_training *t, double global_batch)
{
    double tokens = global_batch * m->seq_len;
    double flops = pp_model_flops_per_step(m, global_batch);
    if (t->lora_rank > 0)
        flops -= lora_flops_saved(m, t, tokens);
    /* packed samples: each token attends within its sample only */
    double span = pp_attention_span(m, t);
    if (span < m->seq_len)
        flops -= 3.0 * m->layers *
                 (pp_attention_core_fwd_flops(m, tokens, m->seq_len) - pp_attention_core_fwd_flops(m, tokens, span));
    return flops;
}
