/*
 * flops.c: the model: FLOP and parameter counts of a transformer, MoE and
 * multi-head latent attention included (docs/cost-model.md §1 and §9).
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
 *
 * Mixture of experts (docs/cost-model.md §9): a MoE layer is a dense layer
 * whose MLP is replaced by a router, E routed experts of which each token
 * runs its top k, and optionally shared experts every token runs.  Layer i
 * is a MoE layer when i >= first_dense_layers and i % moe_layer_freq == 0
 * (Megatron-LM --moe-layer-freq; DeepSeek's first_k_dense_replace and
 * moe_layer_freq; Mixtral and Qwen3-MoE: all).  A step's FLOPs count the
 * top-k routed experts, its parameters all E.
 *
 * Multi-head latent attention (DeepSeek-V2 §2.1, V3 §2.1.1): queries through
 * a rank q_lora_rank bottleneck (or one h x heads (d_nope + d_rope)
 * projection), keys and values through a rank kv_lora_rank latent plus a
 * shared rotary key of d_rope, the attention core with keys of d_nope +
 * d_rope and values of d_v, and the output projection heads d_v x h.
 *
 * The ground floor of cost/ (the model): it calls no other module of the
 * cost model.
 */
#include "cost_ground.h"

static double moe_mlp_extra_fwd_flops(const pp_model *m, double tokens);

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
    /* QK^T and scores·V: 2 x 2 tokens·seq·h (Megatron counts the full square;
     * the fused kernel's time prices the causal blocks, kernels.c). */
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

/* Megatron-LM's --window-attn-skip-freq N: layer number l (1-based) attends
 * to the whole sequence when l % N == 0, the other layers within the
 * window (GPT-OSS: every other layer, the first windowed; Gemma 3: five
 * windowed to one full). */
int pp_windowed_layers(const pp_model *m, double span)
{
    if (m->sliding_window <= 0 || m->sliding_window >= span)
        return 0;
    return m->layers - (m->window_attn_skip_freq >= 2 ? m->layers / m->window_attn_skip_freq : 0);
}

/* Query i (0-based) of a span S attends to min(i + 1, W) keys: the mean is
 * W - W (W - 1) / (2 S) for W <= S, taken continuous, W (1 - W / (2 S)),
 * which is S / 2, the causal prefix's mean, at W = S. */
double pp_window_keys(double window, double span)
{
    if (window <= 0.0 || window >= span)
        return 0.5 * span;
    return window * (1.0 - window / (2.0 * span));
}

/* DeepSeek-V3's MTP module (arXiv 2412.19437 section 2.2; Megatron-Core
 * MultiTokenPredictionLayer): RMSNorms of the hidden state and of the
 * shifted tokens' embedding, their concatenation projected 2h -> h
 * (eh_proj, no bias), one transformer layer, a final norm, then the shared
 * output head.  Megatron-LM's num_floating_point_operations counts the
 * projection, the norms and the second logits but not the module's layer
 * (megatron/training/training.py, "MTP norms and proj"); parplan counts
 * the layer too, which runs. */
double pp_mtp_head_params(const pp_model *m)
{
    double h = m->hidden;
    return 2.0 * h * h + 3.0 * h;
}

double pp_mtp_fwd_flops(const pp_model *m, int mtp, double tokens, double seq)
{
    if (mtp <= 0)
        return 0.0;
    double h = m->hidden, layer = pp_layer_fwd_flops(m, tokens, seq);
    if (pp_layer_is_moe(m, m->layers - 1)) /* its layer is the model's last kind */
        layer += moe_mlp_extra_fwd_flops(m, tokens);
    return mtp * (layer + 2.0 * tokens * 2.0 * h * h + pp_logits_fwd_flops(m, tokens));
}

double pp_training_flops_per_step(const pp_model *m, const pp_training *t, double global_batch)
{
    double tokens = global_batch * m->seq_len;
    double flops = pp_model_flops_per_step(m, global_batch) +
                   3.0 * pp_mtp_fwd_flops(m, t->mtp_layers, tokens, m->seq_len); /* the MTP modules trained */
    if (t->lora_rank > 0)
        flops -= lora_flops_saved(m, t, tokens);
    /* packed samples: each token attends within its sample only */
    double span = pp_attention_span(m, t);
    if (span < m->seq_len) /* the MTP modules' layers attend within the samples too */
        flops -= 3.0 * (m->layers + t->mtp_layers) *
                 (pp_attention_core_fwd_flops(m, tokens, m->seq_len) - pp_attention_core_fwd_flops(m, tokens, span));
    /* windowed layers: the band of the square, counted as the full square
     * counts a causal layer (twice its mean keys a query) */
    int windowed = pp_windowed_layers(m, span);
    if (windowed > 0)
        flops -= 3.0 * windowed * pp_attention_core_fwd_flops(m, tokens, span) *
                 (1.0 - 2.0 * pp_window_keys(m->sliding_window, span) / span);
    return flops;
}

/* ---- MoE layers and multi-head latent attention ------------------------------- */

bool pp_layer_is_moe(const pp_model *m, int i)
{
    if (!pp_model_is_moe(m) || i < m->first_dense_layers)
        return false;
    int f = m->moe_layer_freq > 0 ? m->moe_layer_freq : 1;
    return i % f == 0;
}

/* Layers i of [first, first + n) with pp_layer_is_moe(m, i), counted
 * without a loop: the multiples of the frequency from the first MoE layer
 * on (the multiples of f below b number ceil(b / f)). */
int pp_moe_layers_in(const pp_model *m, long first, long n)
{
    if (!pp_model_is_moe(m) || n <= 0)
        return 0;
    long f = m->moe_layer_freq > 0 ? m->moe_layer_freq : 1;
    long a = first > m->first_dense_layers ? first : m->first_dense_layers;
    long b = first + n < m->layers ? first + n : m->layers;
    if (a < 0)
        a = 0;
    return b > a ? (int)((b + f - 1) / f - (a + f - 1) / f) : 0;
}

int pp_moe_layers(const pp_model *m)
{
    int n = 0;
    for (int i = 0; i < m->layers; i++)
        n += pp_layer_is_moe(m, i);
    return n;
}

double qk_head_dim(const pp_model *m)
{
    return (double)m->qk_nope_head_dim + m->qk_rope_head_dim;
}

double mla_attention_params(const pp_model *m)
{
    double h = m->hidden;
    double a = m->heads, q;
    if (m->q_lora_rank > 0) /* down, its RMSNorm, up */
        q = h * m->q_lora_rank + m->q_lora_rank + (double)m->q_lora_rank * a * qk_head_dim(m);
    else
        q = h * a * qk_head_dim(m);
    double kv = h * ((double)m->kv_lora_rank + m->qk_rope_head_dim) + m->kv_lora_rank +
                (double)m->kv_lora_rank * a * ((double)m->qk_nope_head_dim + m->v_head_dim);
    return q + kv + a * m->v_head_dim * h;
}

double attention_gemm_fwd_flops(const pp_model *m, double tokens)
{
    double h = m->hidden;
    if (!pp_model_is_mla(m))
        return 2.0 * tokens * (h * qkv_width(m) + attention_width(m) * h);
    double a = m->heads, q;
    if (m->q_lora_rank > 0)
        q = h * m->q_lora_rank + (double)m->q_lora_rank * a * qk_head_dim(m);
    else
        q = h * a * qk_head_dim(m);
    double kv = h * ((double)m->kv_lora_rank + m->qk_rope_head_dim) +
                (double)m->kv_lora_rank * a * ((double)m->qk_nope_head_dim + m->v_head_dim);
    return 2.0 * tokens * (q + kv + a * m->v_head_dim * h);
}

/* One MLP of width f on h (3 matrices when gated), without biases. */
double mlp_params(const pp_model *m, double f)
{
    return (m->gated_mlp ? 3.0 : 2.0) * m->hidden * f;
}

double router_params(const pp_model *m)
{
    return (double)m->experts * m->hidden;
}

double pp_layer_params_at(const pp_model *m, int i, double *expert)
{
    if (expert)
        *expert = 0.0;
    if (!pp_layer_is_moe(m, i))
        return pp_layer_params(m);
    double routed = m->experts * mlp_params(m, m->moe_ffn_hidden);
    if (expert)
        *expert = routed;
    return attention_params(m) + 4.0 * m->hidden + router_params(m) + routed + mlp_params(m, m->shared_ffn_hidden);
}

double pp_model_active_params(const pp_model *m)
{
    if (!pp_model_is_moe(m))
        return pp_model_params(m);
    double sum = 0.0;
    for (int i = 0; i < m->layers; i++) {
        double expert, all = pp_layer_params_at(m, i, &expert);
        sum += all - expert + (expert > 0.0 ? m->experts_per_token * mlp_params(m, m->moe_ffn_hidden) : 0.0);
    }
    return sum + pp_embedding_params(m) * (m->tie_embeddings ? 1.0 : 2.0) + 2.0 * m->hidden;
}

/* Forward FLOPs of one MoE layer's MLP part: router, top-k routed experts,
 * shared experts. */
static double moe_mlp_fwd_flops(const pp_model *m, double tokens)
{
    double h = m->hidden, in_e = (m->gated_mlp ? 2.0 : 1.0) * m->moe_ffn_hidden;
    double in_s = (m->gated_mlp ? 2.0 : 1.0) * m->shared_ffn_hidden;
    return 2.0 * tokens * h * m->experts +
           2.0 * tokens * m->experts_per_token * (h * in_e + (double)m->moe_ffn_hidden * h) +
           2.0 * tokens * (h * in_s + (double)m->shared_ffn_hidden * h);
}

/* What a MoE layer's MLP adds to a dense layer's forward FLOPs: its block
 * less the dense MLP it replaces. */
static double moe_mlp_extra_fwd_flops(const pp_model *m, double tokens)
{
    return moe_mlp_fwd_flops(m, tokens) - 2.0 * tokens * m->hidden * (mlp_in_width(m) + m->ffn_hidden);
}

double pp_layers_fwd_flops(const pp_model *m, double tokens, double seq)
{
    double dense = pp_layer_fwd_flops(m, tokens, seq);
    if (!pp_model_is_moe(m))
        return m->layers * dense;
    return m->layers * dense + pp_moe_layers(m) * moe_mlp_extra_fwd_flops(m, tokens);
}
