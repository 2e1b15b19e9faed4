/*
 * moe.c: Mixture-of-Experts layers and multi-head latent attention
 * (docs/cost-model.md section 9).
 *
 * A MoE layer is a dense layer whose MLP is replaced by a router, E routed
 * experts of which each token runs its top k, and optionally shared experts
 * every token runs.  Layer i is a MoE layer when i >= first_dense_layers and
 * i % moe_layer_freq == 0 (Megatron-LM --moe-layer-freq; DeepSeek's
 * first_k_dense_replace and moe_layer_freq; Mixtral and Qwen3-MoE: all).
 *
 * Expert parallelism (Megatron-Core's MoE parallel folding, Liu et al.
 * 2025, arXiv 2504.14960): the expert layers lay their own grid over the
 * tp x cp x dp ranks of a stage, expert tensor parallelism etp (1 or tp)
 * innermost, then the ep ranks of an expert-parallel group (stride etp),
 * each holding E/ep experts, then expert data parallelism (stride etp ep).
 * Per MoE layer, micro-batch and GPU, with T = b s / c tokens and T/t of
 * them on each tensor-parallel rank (sequence parallelism):
 *
 *   router       GEMM (T/t) x h x E, and its fp32 softmax / top-k
 *   dispatch     all-to-all of (T/t) k h 16-bit values over the ep group,
 *   combine      the same back: each sends (1 - 1/ep) of it, (k_node-1)/ep
 *                over NVLink and (ep-k_node)/ep through its NIC
 *                (HAPMoE: D = S B H beta k (1 - 1/EP)); backward repeats
 *                both, full recomputation the forward pair.  Megatron-Core's
 *                alltoall dispatcher does not overlap them with compute
 *                (its default; DeepSeek's DualPipe would), so they are
 *                exposed
 *   expert TP    with etp > 1 an all-gather of the routed tokens over the
 *                etp ranks before the experts and a reduce-scatter after
 *   experts      a grouped GEMM of E/ep experts, each at the shape of the
 *                busiest expert: imbalance x etp ep (T/t) k / E rows (few
 *                rows give small GEMMs that fall on the memory side of the
 *                roofline of kernels.c)
 *   shared       a tensor-parallel MLP over the T tokens
 *   permutation  gathering the k copies of each token in expert order and
 *                back, and the weighted sum of the k outputs: HBM traffic
 *
 * The load of the busiest expert over the mean is training.moe_load_imbalance
 * (default 1.2): Switch Transformer trains with capacity factors 1.0-1.25
 * (Fedus et al. 2021 §2.2), which bound what an auxiliary loss leaves;
 * DeepSeek-V3's auxiliary-loss-free balancing (arXiv 2412.19437 §2.1.2)
 * keeps it lower (1.1 is a fair value there).
 *
 * Multi-head latent attention (DeepSeek-V2 §2.1, V3 §2.1.1): queries through
 * a rank q_lora_rank bottleneck (or one h x heads (d_nope + d_rope)
 * projection), keys and values through a rank kv_lora_rank latent plus a
 * shared rotary key of d_rope, the attention core with keys of d_nope +
 * d_rope and values of d_v, and the output projection heads d_v x h.
 * Under 1D tensor parallelism the down-projections are replicated and the
 * up-projections split by heads (Megatron-Core MLASelfAttention).
 */
#include "cost_internal.h"

#include <math.h>

#define MOE_ROUTER_BYTES 12.0  /* fp32 router logits: softmax read + write, top-k read */
#define MOE_PERMUTE_BYTES 12.0 /* per element of the k copies: permute r+w, unpermute r+w, weighted sum r+w */
#define MOE_ELEMWISE_F_BYTES 4.0 /* activation function: read + write an f-wide tensor (as kernels.c) */
#define MOE_DEFAULT_IMBALANCE 1.2

/* ---- layers and parameters -------------------------------------------------- */

bool pp_layer_is_moe(const pp_model *m, int i)
{
    if (!pp_model_is_moe(m) || i < m->first_dense_layers)
        return false;
    int f = m->moe_layer_freq > 0 ? m->moe_layer_freq : 1;
    return i % f == 0;
}

int pp_moe_layers(const pp_model *m)
{
    int n = 0;
    for (int i = 0; i < m->layers; i++)
        n += pp_layer_is_moe(m, i);
    return n;
}

static double qk_head_dim(const pp_model *m)
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

double mla_qkv_gemm_s(const pp_problem *prob, double tokens, double t)
{
    const pp_model *m = &prob->model;
    double h = m->hidden, a = m->heads, q;
    if (m->q_lora_rank > 0)
        q = gemm_time_s(prob, tokens, h, m->q_lora_rank) +
            gemm_time_s(prob, tokens, m->q_lora_rank, a * qk_head_dim(m) / t);
    else
        q = gemm_time_s(prob, tokens, h, a * qk_head_dim(m) / t);
    return q + gemm_time_s(prob, tokens, h, (double)m->kv_lora_rank + m->qk_rope_head_dim) +
           gemm_time_s(prob, tokens, m->kv_lora_rank, a * ((double)m->qk_nope_head_dim + m->v_head_dim) / t);
}

/* One MLP of width f on h (3 matrices when gated), without biases. */
static double mlp_params(const pp_model *m, double f)
{
    return (m->gated_mlp ? 3.0 : 2.0) * m->hidden * f;
}

static double router_params(const pp_model *m)
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

double pp_layers_fwd_flops(const pp_model *m, double tokens, double seq)
{
    double dense = pp_layer_fwd_flops(m, tokens, seq);
    if (!pp_model_is_moe(m))
        return m->layers * dense;
    double dense_mlp = 2.0 * tokens * m->hidden * (mlp_in_width(m) + m->ffn_hidden);
    int nm = pp_moe_layers(m);
    return m->layers * dense + nm * (moe_mlp_fwd_flops(m, tokens) - dense_mlp);
}

/* ---- where the layers sit --------------------------------------------------- */

/* MoE layers among layers [first, first + n). */
static int moe_in_range(const pp_model *m, long first, long n)
{
    int c = 0;
    for (long i = first; i < first + n && i < m->layers; i++)
        c += pp_layer_is_moe(m, (int)i);
    return c;
}

int moe_layers_on_stage(const pp_problem *prob, const pp_plan *plan, int stage)
{
    const pp_model *m = &prob->model;
    if (!pp_model_is_moe(m))
        return 0;
    pp_stage_split sp;
    if (!pp_stage_layers(prob, plan, &sp))
        return 0;
    if (plan->virtual_stages > 1) { /* chunk g = j pp + stage; the model's first and last one lighter
                                        when the split is uneven */
        long chunk = sp.chunk, n_chunks = (long)plan->pp * plan->virtual_stages, c = 0;
        long lighter = sp.uneven ? 1 : 0;
        for (long j = 0; j < plan->virtual_stages; j++) {
            long g = j * plan->pp + stage;
            long start = g == 0 ? 0 : g * chunk - lighter;
            long n = chunk - ((g == 0 || g == n_chunks - 1) ? lighter : 0);
            c += moe_in_range(m, start, n);
        }
        return (int)c;
    }
    long first = stage == 0 ? 0 : sp.first + (long)(stage - 1) * sp.middle;
    return moe_in_range(m, first, layers_on_stage(prob, plan, stage));
}

double stage_expert_params(const pp_problem *prob, const pp_plan *plan, int stage)
{
    const pp_model *m = &prob->model;
    if (!pp_model_is_moe(m))
        return 0.0;
    double per_layer = m->experts * mlp_params(m, m->moe_ffn_hidden);
    return moe_layers_on_stage(prob, plan, stage) * per_layer / ((double)plan->ep * plan->etp);
}

double moe_stage_params(const pp_problem *prob, const pp_plan *plan, int stage)
{
    const pp_model *m = &prob->model;
    double embeddings = stage_embedding_params(prob, plan, stage);
    int n = layers_on_stage(prob, plan, stage), nm = moe_layers_on_stage(prob, plan, stage);
    /* a MoE layer without its routed experts */
    double moe_layer = attention_params(m) + 4.0 * m->hidden + router_params(m) + mlp_params(m, m->shared_ffn_hidden);
    double dense = (n - nm) * pp_layer_params(m) + nm * moe_layer + embeddings;
    return dense / plan->tp + stage_expert_params(prob, plan, stage);
}

long pp_expert_replica_ranks(const pp_plan *plan)
{
    long all = (long)plan->tp * plan->dp * plan->cp, split = (long)plan->etp * plan->ep;
    return split > 0 && all % split == 0 ? all / split : 1;
}

void moe_expert_dp_group(const pp_problem *prob, const pp_plan *plan, long *n, long *k)
{
    /* the expert-data-parallel ranks, stride etp ep (parallel folding) */
    *n = pp_expert_replica_ranks(plan);
    *k = ranks_per_node(prob, (long)plan->etp * plan->ep, *n);
    if (*k < 1)
        *k = 1;
}

/* ---- time ---------------------------------------------------------------- */

typedef struct moe_block {
    double fwd_s;       /* compute of the MoE block's forward */
    double comm_s;      /* all-to-alls and expert-TP collectives of one pass */
    double bytes_nvlink, bytes_network; /* of one pass */
} moe_block;

static double imbalance(const pp_problem *prob)
{
    double l = prob->training.moe_load_imbalance;
    return l >= 1.0 ? l : MOE_DEFAULT_IMBALANCE;
}

/* The chance that none of a token's k distinct experts, drawn evenly from
 * E, is among the g experts of one GPU or node: C(E - g, k) / C(E, k). */
static double none_of(double E, double g, double k)
{
    double p = 1.0;
    for (int i = 0; i < (int)k; i++)
        p *= E - g - i > 0.0 ? (E - g - i) / (E - i) : 0.0;
    return p;
}

/* Bytes one GPU sends per direction of a deduplicating dispatch (DeepEP,
 * the all-to-all kernels DeepSeek-V3 describes in arXiv 2412.19437
 * §3.2.2): a token crosses the network once to each other node that holds
 * one of its experts and reaches each GPU holding one once, over NVLink in
 * its own node and forwarded over NVLink in the others.  Per token and
 * ep group of n GPUs, kn per node, N = n/kn nodes:
 *   network  (N - 1) (1 - P(none of the node's E/N experts))
 *   NVLink   (n - N) (1 - P(none of the GPU's E/n experts))
 * copies of its h 16-bit values, against k (n - kn)/n and k (kn - 1)/n for
 * one copy per (token, expert). */
static void dedup_bytes(const pp_model *m, double tokens, long n, long kn, double *nv, double *net)
{
    double E = m->experts, k = m->experts_per_token, N = (double)n / (double)kn;
    double token = ACT_BYTES * tokens * m->hidden;
    *net = token * (N - 1.0) * (1.0 - none_of(E, E / N, k));
    *nv = token * ((double)n - N) * (1.0 - none_of(E, E / (double)n, k));
}

static void moe_block_eval(const pp_problem *prob, const pp_plan *plan, moe_block *b)
{
    const pp_model *m = &prob->model;
    const pp_cluster *c = &prob->cluster;
    double launch = c->gpu.eff.kernel_us * 1e-6, hbm = hbm_Bps(prob);
    double h = m->hidden, E = m->experts, k = m->experts_per_token, fe = m->moe_ffn_hidden;
    double act_f = m->gated_mlp ? 1.5 : 1.0, gate = m->gated_mlp ? 2.0 : 1.0;
    double t = plan->tp, ep = plan->ep, etp = plan->etp;
    double T = (double)plan->micro_batch * m->seq_len / plan->cp, Tg = T / t;

    double router = gemm_time_s(prob, Tg, h, E) + MOE_ROUTER_BYTES * Tg * E / hbm + 2.0 * launch;
    double permute = MOE_PERMUTE_BYTES * Tg * k * h / hbm + 3.0 * launch;
    /* grouped GEMM (--moe-grouped-gemm): one launch for the E/ep experts */
    double local = E / ep, rows = imbalance(prob) * etp * ep * Tg * k / E;
    double fc1 = gemm_time_s(prob, rows, h, gate * fe / etp) - launch;
    double fc2 = gemm_time_s(prob, rows, fe / etp, h) - launch;
    double experts = local * (fc1 + fc2) + 2.0 * launch +
                     MOE_ELEMWISE_F_BYTES * act_f * local * rows * fe / etp / hbm + launch;
    double shared = 0.0, fs = m->shared_ffn_hidden;
    if (fs > 0)
        shared = gemm_time_s(prob, T, h, gate * fs / t) + gemm_time_s(prob, T, fs / t, h) +
                 MOE_ELEMWISE_F_BYTES * act_f * T * fs / t / hbm + launch;
    b->fwd_s = router + permute + experts + shared;

    /* dispatch and combine over the ep group (stride etp) */
    double msg = ACT_BYTES * Tg * k * h, nv, net;
    long kn = ranks_per_node(prob, (long)plan->etp, plan->ep);
    if (prob->training.moe_deepep && plan->ep > 1)
        dedup_bytes(m, Tg, plan->ep, kn, &nv, &net);
    else
        pp_alltoall_bytes(msg, plan->ep, kn, &nv, &net);
    b->comm_s = 2.0 * pp_alltoall_links_time_s(c, nv, net, plan->ep, kn);
    b->bytes_nvlink = 2.0 * nv;
    b->bytes_network = 2.0 * net;
    if (plan->etp > 1) { /* gather the routed tokens over the etp ranks, reduce-scatter the outputs */
        double gathered = ACT_BYTES * etp * Tg * k * h;
        long ke = ranks_per_node(prob, 1, plan->etp);
        b->comm_s += pp_collective_time_s(c, PP_COLL_ALLGATHER, gathered, plan->etp, ke) +
                     pp_collective_time_s(c, PP_COLL_REDUCESCATTER, gathered, plan->etp, ke);
        pp_collective_bytes(PP_COLL_ALLGATHER, gathered, plan->etp, ke, &nv, &net);
        b->bytes_nvlink += 2.0 * nv;
        b->bytes_network += 2.0 * net;
    }
}

void moe_stage_term(const pp_problem *prob, const pp_plan *plan, double dense_fwd, double dense_bwd, double cp,
                    double mlp_fwd_s, double mlp_bwd_s, double logits_fwd, double logits_bwd, pp_stage_term *out)
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

/* ---- memory ---------------------------------------------------------------- */

double moe_stage_activation_bytes(const pp_problem *prob, const pp_plan *plan, int stage, double in_flight)
{
    const pp_model *m = &prob->model;
    int nm = moe_layers_on_stage(prob, plan, stage);
    if (!pp_model_is_moe(m) || nm == 0)
        return 0.0;
    double gemm_in = gemm_input_bytes(&prob->training), glu = m->gated_mlp ? 4.0 : 2.0;
    double t = plan->tp, T = (double)plan->micro_batch * m->seq_len / plan->cp, Tg = T / t;
    double k = m->experts_per_token, h = m->hidden, lam = imbalance(prob);
    /* the dense MLP that memory.c counted (Korthikanti: f or 2f wide GEMM
     * output, activation output, and the second GEMM's input), split by t */
    double dense_mlp = (glu + gemm_in) * T * m->ffn_hidden / t;
    /* routed: the busiest GPU's lam etp (T/t) k rows, fe/etp wide, and their
     * h-wide expert input; router probabilities (fp32) and top-k map */
    double routed = (glu + gemm_in) * lam * Tg * k * m->moe_ffn_hidden + gemm_in * lam * plan->etp * Tg * k * h;
    double router = 4.0 * Tg * m->experts + 12.0 * Tg * k;
    double shared = (glu + gemm_in) * T * m->shared_ffn_hidden / t;
    double delta = routed + router + shared - dense_mlp;
    /* the all-to-all send and receive buffers of the layer being run */
    double buffers = 2.0 * ACT_BYTES * lam * Tg * k * h;
    if (plan->recompute == PP_RECOMPUTE_FULL) /* only the layer rebuilt holds them */
        return fmax(0.0, delta) + buffers;
    return nm * delta * in_flight + buffers;
}
