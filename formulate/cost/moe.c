/*
 * moe.c: the expert-parallel term, one MoE block's compute and its token
 * all-to-alls on one GPU (docs/cost-model.md section 9).  Which layers are
 * MoE layers and what they hold are the model's (flops.c) and the layout's
 * (layout.c); the stage term (step.c) puts the block in place of the dense
 * MLP on every MoE layer of every stage.
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
 *                (HAPMoE: D = S B H beta k (1 - 1/EP)), and the GPU of the
 *                busiest experts receives (then returns) imbalance x that,
 *                which the collective waits for; backward repeats
 *                both, full recomputation the forward pair.  Megatron-Core's
 *                alltoall dispatcher does not overlap them with compute
 *                (its default; DeepSeek's DualPipe would), so they are
 *                exposed
 *   expert TP    with etp > 1 an all-gather of the routed tokens over the
 *                etp ranks before the experts and a reduce-scatter after
 *   experts      a grouped GEMM of E/ep experts, each at the shape of the
 *                busiest expert: imbalance x etp ep (T/t) k / E rows (few
 *                rows give small GEMMs that fall on the memory side of the
 *                roofline of kernels.c), one batched product whose tiles
 *                share the SMs' waves
 *   shared       a tensor-parallel MLP over the T tokens
 *   permutation  gathering the k copies of each token in expert order and
 *                back, and the weighted sum of the k outputs: HBM traffic
 *   casts        in a low-precision recipe each expert GEMM's input and
 *                output gradient, the routed copies' and the shared
 *                experts' (moe_block_of): the dense MLP's leave with it
 *
 * The load of the busiest expert over the mean is training.moe_load_imbalance
 * (default 1.2; layout.c moe_load_imbalance).
 */
#include "cost_terms.h"

#include <math.h>

#define MOE_ROUTER_BYTES 12.0  /* fp32 router logits: softmax read + write, top-k read */
#define MOE_PERMUTE_BYTES 12.0 /* per element of the k copies: permute r+w, unpermute r+w, weighted sum r+w */
#define MOE_ELEMWISE_F_BYTES 4.0 /* activation function: read + write an f-wide tensor (as kernels.c) */
#define MOE_FP8_STORE_CAST_BYTES 3.0 /* bf16 to fp8 or back (as kernels.c) */

/* Casting a recomputed 16-bit tensor of `elements` to the recipe's GEMM
 * input again (low-precision recipes; kernels.c's cast without the
 * transpose: read 2, write the input bytes). */
static double moe_cast_s(const pp_problem *prob, double elements)
{
    if (!pp_precision_props(prob->training.precision)->low_gemm)
        return 0.0;
    return elements * (ACT_BYTES + gemm_input_bytes(&prob->training)) / hbm_Bps(prob) +
           prob->cluster.gpu.eff.kernel_us * 1e-6;
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
    /* Node-limited routing (DeepSeek-V3, arXiv 2412.19437 §2.1.2: "each
     * token will be sent to at most M nodes"; its config's n_group 8,
     * topk_group 4): a token's experts come from router_group_topk of the
     * router_groups groups, so where each node holds whole groups the
     * network copies are those of g groups drawn from G,
     * (N - 1)(1 - C(G - G/N, g) / C(G, g)): 3.5 other nodes, not 4.6, for
     * DeepSeek-V3 on 8 nodes of its 64-way expert parallelism. */
    long G = m->router_groups, g = m->router_group_topk, nodes = n / (kn > 0 ? kn : 1);
    if (G > 0 && g > 0 && g < G && nodes > 1 && nodes <= G && G % nodes == 0)
        *net = fmin(*net, token * (N - 1.0) * (1.0 - none_of((double)G, (double)G / N, (double)g)));
    *nv = token * ((double)n - N) * (1.0 - none_of(E, E / (double)n, k));
}

/* The shared experts' forward on one GPU: a tensor-parallel MLP over the
 * block's T tokens (0 without shared experts). */
static double shared_experts_fwd_s(const pp_problem *prob, const pp_plan *plan)
{
    const pp_model *m = &prob->model;
    double fs = m->shared_ffn_hidden;
    if (fs <= 0)
        return 0.0;
    double t = plan->tp, T = (double)plan->micro_batch * m->seq_len / plan->cp, h = m->hidden;
    double act_f = m->gated_mlp ? 1.5 : 1.0, gate = m->gated_mlp ? 2.0 : 1.0;
    return gemm_time_s(prob, T, h, gate * fs / t) + gemm_time_s(prob, T, fs / t, h) +
           MOE_ELEMWISE_F_BYTES * act_f * T * fs / t / hbm_Bps(prob) + prob->cluster.gpu.eff.kernel_us * 1e-6;
}

/* One MoE block on one GPU: its forward's compute (router, permutation,
 * the busiest GPU's experts, the shared experts) and one pass's all-to-alls
 * and expert-TP collectives, with the bytes they put on each link. */
double moe_block_compute_s(const pp_problem *prob, const pp_plan *plan)
{
    const pp_model *m = &prob->model;
    double launch = prob->cluster.gpu.eff.kernel_us * 1e-6, hbm = hbm_Bps(prob);
    double h = m->hidden, E = m->experts, k = m->experts_per_token, fe = m->moe_ffn_hidden;
    double act_f = m->gated_mlp ? 1.5 : 1.0, gate = m->gated_mlp ? 2.0 : 1.0;
    double t = plan->tp, ep = plan->ep, etp = plan->etp;
    double T = (double)plan->micro_batch * m->seq_len / plan->cp, Tg = T / t;

    double router = gemm_time_s(prob, Tg, h, E) + MOE_ROUTER_BYTES * Tg * E / hbm + 2.0 * launch;
    double permute = MOE_PERMUTE_BYTES * Tg * k * h / hbm + 3.0 * launch;
    /* grouped GEMM (--moe-grouped-gemm): the E/ep experts' products in one
     * launch, whose tiles fill the SMs' waves together (CUTLASS's grouped
     * GEMM; Transformer Engine's GroupedLinear runs them on concurrent
     * streams), so the waves are counted over all of them: a batched
     * product of kernels.c.  Counted per expert, as before, a busier expert
     * could come out faster (its rows filling a wave the lighter load left
     * partial) */
    double local = E / ep, rows = moe_load_imbalance(prob, plan) * etp * ep * Tg * k / E;
    double fc1 = layer_gemm_s(prob, rows, gate * fe / etp, h, local);
    double fc2 = layer_gemm_s(prob, rows, h, fe / etp, local);
    double experts = fc1 + fc2 + MOE_ELEMWISE_F_BYTES * act_f * local * rows * fe / etp / hbm + launch;
    return router + permute + experts + shared_experts_fwd_s(prob, plan);
}

void moe_block_eval(const pp_problem *prob, const pp_plan *plan, moe_block *b)
{
    moe_block_of(prob, plan, moe_block_compute_s(prob, plan), b);
}

void moe_block_of(const pp_problem *prob, const pp_plan *plan, double compute_s, moe_block *b)
{
    const pp_model *m = &prob->model;
    const pp_cluster *c = &prob->cluster;
    double launch = c->gpu.eff.kernel_us * 1e-6, hbm = hbm_Bps(prob);
    double h = m->hidden, E = m->experts, k = m->experts_per_token, fe = m->moe_ffn_hidden;
    double act_f = m->gated_mlp ? 1.5 : 1.0, gate = m->gated_mlp ? 2.0 : 1.0;
    double t = plan->tp, ep = plan->ep, etp = plan->etp;
    double T = (double)plan->micro_batch * m->seq_len / plan->cp, Tg = T / t;
    double local = E / ep, rows = moe_load_imbalance(prob, plan) * etp * ep * Tg * k / E, fs = m->shared_ffn_hidden;
    b->fwd_s = compute_s;
    /* The routed experts' activation recomputed before their backward
     * (moe_act), with its output cast again for fc2's weight gradient in a
     * low-precision recipe; and the activation inputs kept in fp8
     * (fp8_act_stored: a cast each way, routed and shared, 3 bytes an
     * element as kernels.c). */
    double routed_f = local * rows * fe / etp;
    b->fwd_extra_s = b->bwd_extra_s = 0.0;
    int rcm = pp_recompute_modules(plan);
    if ((rcm & PP_RCM_MOE_ACT) && !(rcm & PP_RCM_MOE)) /* the moe module reruns it with the block */
        b->bwd_extra_s += MOE_ELEMWISE_F_BYTES * act_f * routed_f / hbm + launch + moe_cast_s(prob, routed_f);
    /* the shared experts checkpointed (shared_experts): their forward again */
    if ((rcm & PP_RCM_SHARED_EXPERTS) && !(rcm & PP_RCM_MOE))
        b->bwd_extra_s += shared_experts_fwd_s(prob, plan);
    if (fp8_act_stored(prob, plan)) {
        double store = MOE_FP8_STORE_CAST_BYTES * gate * (routed_f + T * fs / t) / hbm + launch;
        b->fwd_extra_s = store;
        b->bwd_extra_s += store;
    }
    /* A low-precision recipe casts the GEMMs' inputs (kernels.c, lowp_cast_s):
     * forward the routed tokens before fc1 (the k copies each GPU's experts
     * received, h wide) and the activation before fc2, backward the two
     * output gradients, each one cast over all local experts (Transformer
     * Engine's GroupedLinear quantizes the split input in one call); the
     * shared experts' as a dense MLP's on the sequence-parallel shard.  The
     * dense MLP's casts leave the layer with its MLP (kernels.c). */
    double routed_h = local * rows * h, shared_in = fs > 0 ? T * h / t : 0.0, shared_tensors = fs > 0 ? 2.0 : 0.0;
    b->fwd_extra_s += lowp_cast_s(prob, routed_h + routed_f + shared_in + T * fs / t, 2.0 + shared_tensors);
    b->bwd_extra_s += lowp_cast_s(prob, routed_h + gate * (routed_f + T * fs / t) + shared_in, 2.0 + shared_tensors);

    /* dispatch and combine over the ep group (stride etp) */
    double msg = ACT_BYTES * Tg * k * h, nv, net;
    long kn = ranks_per_node(prob, (long)plan->etp, plan->ep);
    if (pp_moe_deepep(prob, plan) && plan->ep > 1)
        dedup_bytes(m, Tg, plan->ep, kn, &nv, &net);
    else
        pp_alltoall_bytes(msg, plan->ep, kn, &nv, &net);
    /* every GPU sends its own tokens' copies, but the GPU whose experts are
     * the busiest receives imbalance x the mean in the dispatch and sends
     * as many back in the combine, and the all-to-all ends with it (the
     * bytes below stay the mean GPU's, what the links carry on average) */
    b->comm_s = 2.0 * moe_load_imbalance(prob, plan) * pp_alltoall_links_time_s(c, nv, net, plan->ep, kn);
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
