/*
 * cp.c: the context-parallel term, what ring attention costs beyond the one
 * attention kernel the stage term prices (docs/cost-model.md §2.6).
 *
 * Megatron-Core runs context parallelism through Transformer Engine's ring
 * attention (cp_comm_type "p2p", TE's AttnFuncWithCPAndKVP2P; Megatron-LM
 * docs "context_parallel"): the sequence is cut into 2c chunks and rank i
 * holds chunks i and 2c-1-i, so under a causal mask every ring step does
 * the same work, half of an (s/c) x (s/c) block (the diagonal step its own
 * two chunks under the mask; a step from an earlier rank all its queries
 * against that rank's first chunk; from a later rank its second chunk's
 * queries against both): each of the c steps is 1/c of the rank's
 * attention core.  Step j runs the attention of the K/V block it holds
 * while the next block (2 b (s/c) g d / t values) is sent on and received
 * (c-1 transfers forward); the backward sends K/V and the travelling dK/dV
 * together (K/V alone at the first step, dK/dV alone at the last):
 *
 *   forward  sum_{j<c-1} max(p2p(KV), step) + step               - attention forward
 *   backward max(p2p(KV), 2 step') + (c-2) max(p2p(2 KV), 2 step')
 *            + max(p2p(KV), 2 step')                             - attention backward
 *
 * each step overlapped only with its own transfer (a transfer longer than
 * its block is exposed at every step, not hidden behind the whole core),
 * where a step is its share of the core on a short block (a FlashAttention
 * tile walks s/(2c) keys instead of s/2 and amortizes its fixed cost,
 * attention_tile_share in kernels.c, over fewer), its own
 * kernel launch, and the merge of its partial output (forward: the output
 * and log-sum-exp corrections; backward: the dQ and dK/dV accumulations),
 * whose p2p carries the link's latency per step.  Recomputation that
 * repeats the attention core repeats the forward (stage.c says when;
 * step.c adds it to the stage term).  Llama 3 (§3.3.2) runs an all-gather
 * of K/V instead, a plan's cp_comm "all_gather" (cp_all_gather below);
 * Megatron-Core's default is the ring.
 */
#include "cost_terms.h"

#include <math.h>

#define CP_STEP_KERNELS 2.0  /* merge kernels per ring step: out + lse (forward), dQ + dKV (backward) */
#define CP_MERGE_BYTES 6.0   /* per element merged: read the step's partial, read and write the running sum */

/* How much slower a ring step's attention runs than the one kernel the
 * stage term prices: the tile's share of its rate (kernels.c,
 * attention_tile_share) at the whole kernel's mean span under the causal
 * mask (span / 2) over the step's (one chunk, s / (2c), within a packed
 * sample) */
static double short_block_slowdown(const pp_problem *prob, const pp_plan *plan)
{
    if (!flash_usable(prob))
        return 1.0; /* unfused attention: its GEMMs are priced by their own shapes */
    double span = pp_attention_span(&prob->model, &prob->training);
    double whole = 0.5 * span, step = fmin(0.5 * span, prob->model.seq_len / (2.0 * plan->cp));
    if (step <= 0.0)
        return 1.0;
    return attention_tile_share(prob, whole) / attention_tile_share(prob, step);
}

void cp_ring_eval(const pp_problem *prob, const pp_plan *plan, const layer_kernels *k, cp_ring *out)
{
    *out = (cp_ring){0};
    if (plan->cp <= 1)
        return;
    const pp_model *m = &prob->model;
    double c = plan->cp, t = plan->tp;
    double launch = prob->cluster.gpu.eff.kernel_us * 1e-6;
    double q_tokens = (double)plan->micro_batch * m->seq_len / c;
    double kv_elems = q_tokens * ((double)m->kv_heads * pp_model_head_dim(m)) / t; /* K or V of one chunk pair */
    double out_elems = q_tokens * attention_width(m) / t;
    double kv_bytes = 2.0 * ACT_BYTES * kv_elems;
    bool inter = group_inter_node(prob, plan->tp, plan->cp);
    out->kv_bytes = kv_bytes;
    out->p2p_s = pp_p2p_time_s(&prob->cluster, kv_bytes, inter);
    out->slowdown = short_block_slowdown(prob, plan);

    /* one step: its share of the core on a short block, its launch, its merge */
    double core_f = fmax(0.0, k->attn_fwd_s - launch), core_b = fmax(0.0, k->attn_bwd_s - launch);
    double merge_f = CP_MERGE_BYTES * out_elems / hbm_Bps(prob) + CP_STEP_KERNELS * launch;
    double merge_b = CP_MERGE_BYTES * (out_elems + 2.0 * kv_elems) / hbm_Bps(prob) + CP_STEP_KERNELS * launch;
    out->step_fwd_s = core_f * out->slowdown / c + launch + merge_f;
    out->step_bwd_s = core_b * out->slowdown / c + launch + merge_b;

    double p2p2 = pp_p2p_time_s(&prob->cluster, 2.0 * kv_bytes, inter);
    double ring_f = (c - 1.0) * fmax(out->p2p_s, out->step_fwd_s) + out->step_fwd_s;
    double ring_b = 2.0 * fmax(out->p2p_s, out->step_bwd_s) + (c - 2.0) * fmax(p2p2, out->step_bwd_s);
    out->fwd_s = fmax(0.0, ring_f - k->attn_fwd_s);
    out->bwd_s = fmax(0.0, ring_b - k->attn_bwd_s);
}

/* The all-gather exchange (the plan's cp_comm "all_gather"; Transformer
 * Engine's AttnFuncWithCPAndKVAllGather, Megatron-Core --cp-comm-type
 * all_gather, after Llama 3 §3.3.2): the forward all-gathers every rank's
 * K and V over the c ranks before any attention ("KV all-gather between CP
 * ranks is exposed"), copies the gathered chunks into sequence order, and
 * runs the rank's two chunks as two attention kernels over their causal
 * prefixes, long spans at the whole kernel's rate (no short-block
 * slowdown, no merges); the backward gathers K and V again (only the local
 * ones are saved), runs the two backward kernels and reduce-scatters dK and
 * dV.  Beyond the one kernel the stage term prices:
 *
 *   forward  AG(c KV) + reorder + launch
 *   backward AG(c KV) + reorder + RS(c dKV) + launch
 *
 * all exposed.  The gathered K/V live only while a layer's attention runs
 * (transient, not held across the pipeline like the saved activations). */
static void cp_all_gather(const pp_problem *prob, const pp_plan *plan, double *f, double *b)
{
    const pp_model *m = &prob->model;
    double c = plan->cp, t = plan->tp;
    double launch = prob->cluster.gpu.eff.kernel_us * 1e-6;
    double q_tokens = (double)plan->micro_batch * m->seq_len / c;
    double kv_bytes = 2.0 * ACT_BYTES * q_tokens * ((double)m->kv_heads * pp_model_head_dim(m)) / t;
    double gathered = c * kv_bytes; /* K and V of the whole sequence */
    long kn = ranks_per_node(prob, plan->tp, plan->cp);
    double ag = pp_collective_time_s(&prob->cluster, PP_COLL_ALLGATHER, gathered, plan->cp, kn);
    double rs = pp_collective_time_s(&prob->cluster, PP_COLL_REDUCESCATTER, gathered, plan->cp, kn);
    double reorder = 2.0 * gathered / hbm_Bps(prob); /* index_select: read and write the gathered chunks */
    *f = ag + reorder + launch;
    *b = ag + reorder + rs + launch;
}

/* The all-to-all exchange (the plan's cp_comm "a2a"; Transformer Engine's
 * AttnFuncWithCPAndQKVOA2A, "like Ulysses, applying A2A to QKVO", after
 * DeepSpeed-Ulysses, Jacobs et al. 2023, arXiv 2309.14509; Megatron-Core
 * --cp-comm-type a2a): before the attention each rank trades its sequence
 * shard of every head for the whole sequence of 1/c of the heads, one
 * all-to-all each for Q, K and V over the c ranks; the attention then runs
 * as the one kernel the stage term prices (the same FLOPs and span: s/c
 * queries of every head, or s of 1/c of them, attend the whole sequence);
 * after it one all-to-all returns the output to its sequence shard.  The
 * backward mirrors it: dO out, dQ, dK and dV back.  Each tensor is made
 * contiguous in its send order before its all-to-all and put back in
 * sequence order after it (flash_attn_a2a_communicate: a copy each way),
 * and the attention waits for the all-to-alls, so all of it is exposed:
 *
 *   forward  A2A(Q) + A2A(K) + A2A(V) + A2A(O) + 2 copies of each + launches
 *   backward A2A(dO) + A2A(dQ) + A2A(dK) + A2A(dV) + 2 copies of each + launches
 *
 * each rank sending (c-1)/c of each tensor (pp_alltoall_bytes: to the
 * ranks of its node over NVLink, the rest through its NIC).  No short
 * blocks and no merges; the received tensors live only while a layer's
 * attention runs.  Every TP rank's query and key/value heads must divide
 * by c (rules.c). */
#define CP_A2A_COPY_BYTES (4.0 * ACT_BYTES) /* two copies, each a read and a write of the element */
#define CP_A2A_KERNELS 3.0                  /* per tensor: the two copies and the all-to-all */

static void cp_a2a_tensor(const pp_problem *prob, const pp_plan *plan, double elems, long kn, double *s)
{
    double nv, net;
    pp_alltoall_bytes(ACT_BYTES * elems, plan->cp, kn, &nv, &net);
    *s += pp_alltoall_links_time_s(&prob->cluster, nv, net, plan->cp, kn) +
          CP_A2A_COPY_BYTES * elems / hbm_Bps(prob) + CP_A2A_KERNELS * prob->cluster.gpu.eff.kernel_us * 1e-6;
}

static void cp_a2a(const pp_problem *prob, const pp_plan *plan, double *f, double *b)
{
    const pp_model *m = &prob->model;
    /* the rank's tokens, and 1/t of each tensor's width on its TP rank */
    double tokens = (double)plan->micro_batch * m->seq_len / plan->cp, t = plan->tp;
    double qw, kw, vw, ow; /* the widths of Q, K, V and the output */
    if (pp_model_is_mla(m)) { /* latent attention: per-head queries and keys of nope + rope width, values of v */
        qw = kw = (double)m->heads * (m->qk_nope_head_dim + m->qk_rope_head_dim);
        vw = ow = (double)m->heads * m->v_head_dim;
    } else {
        qw = ow = attention_width(m);
        kw = vw = (double)m->kv_heads * pp_model_head_dim(m);
    }
    long kn = ranks_per_node(prob, plan->tp, plan->cp);
    const double widths[] = {qw, kw, vw, ow}; /* Q, K, V out, the output back */
    *f = *b = 0.0;
    for (int i = 0; i < 4; i++) {
        cp_a2a_tensor(prob, plan, tokens * widths[i] / t, kn, f);
        cp_a2a_tensor(prob, plan, tokens * widths[i] / t, kn, b); /* dO out; dQ, dK, dV back: the same shapes */
    }
}

void cp_exchange_exposed(const pp_problem *prob, const pp_plan *plan, const layer_kernels *k, double *f, double *b)
{
    if (plan->cp > 1 && plan->cp_comm == PP_CP_ALL_GATHER) {
        cp_all_gather(prob, plan, f, b);
        return;
    }
    if (plan->cp > 1 && plan->cp_comm == PP_CP_A2A) {
        cp_a2a(prob, plan, f, b);
        return;
    }
    cp_ring r;
    cp_ring_eval(prob, plan, k, &r);
    *f = r.fwd_s;
    *b = r.bwd_s;
}
