/*
 * cp.c: the context-parallel term, the ring exchange of a layer's keys and
 * values not hidden behind the attention core (docs/cost-model.md §2).
 *
 * Each of the c ranks holds s/c of the sequence; its c - 1 ring steps pass
 * on a block of K and V, 2 b (s/c) g d 16-bit values split by t, while the
 * attention core runs on the block it holds (Megatron-LM's context
 * parallelism; Llama 3 §3.3.2):
 *
 *   forward  max(0, (c-1) p2p(K,V) - attention forward)
 *   backward max(0, 2 (c-1) p2p(K,V) - 2 attention forward)
 *
 * and recomputation that repeats the attention core repeats the forward
 * exchange (stage.c says when; step.c adds it to the stage term).
 */
#include "cost_terms.h"

#include <math.h>

/* Context-parallel ring exchange of one layer's K and V (Megatron-LM's
 * context parallelism, Llama 3 §3.3.2): c-1 ring steps forward, twice the
 * traffic backward (K,V again and their gradients), each hidden behind the
 * attention core it feeds when it can be.  Returns exposed seconds for
 * forward (*f) and backward (*b). */
void cp_exchange_exposed(const pp_problem *prob, const pp_plan *plan, const layer_kernels *k,
                         double *f, double *b)
{
    *f = *b = 0.0;
    if (plan->cp <= 1)
        return;
    const pp_model *m = &prob->model;
    double kv_bytes = 2.0 * ACT_BYTES * plan->micro_batch * ((double)m->seq_len / plan->cp) *
                      ((double)m->kv_heads * pp_model_head_dim(m)) / plan->tp;
    bool inter = group_inter_node(prob, plan->tp, plan->cp);
    double ring_f = (plan->cp - 1) * pp_p2p_time_s(&prob->cluster, kv_bytes, inter);
    *f = fmax(0.0, ring_f - k->attn_fwd_s);
    *b = fmax(0.0, 2.0 * ring_f - 2.0 * k->attn_fwd_s);
}
