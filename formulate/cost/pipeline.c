/*
 * pipeline.c: pipeline parallelism: the layers of a stage, the micro-batches
 * per pipeline, the pipeline factor and the sends between stages
 * (docs/cost-model.md §4).
 *
 * 1F1B runs m slots of work plus p-1 of fill and drain; interleaving v
 * chunks shrinks the bubble to (p-1)/v slots (Narayanan et al. 2021 §2.2):
 *
 *   step = (m + (p-1)/v) T_mb + ...,   m = global_batch / (dp micro_batch)
 *
 * Every micro-batch and chunk sends one activation forward and one gradient
 * backward, b (s/c) h 16-bit values split over the TP ranks (Narayanan et
 * al. 2021 §4.1), on the critical path.
 */
#include "cost_internal.h"

#include <math.h>

bool pp_stage_layers(const pp_problem *prob, const pp_plan *plan, pp_stage_split *out)
{
    long L = prob->model.layers, p = plan->pp, v = plan->virtual_stages;
    *out = (pp_stage_split){0};
    if (p < 1 || v < 1 || L < 1)
        return false;
    if (v > 1) {
        /* Interleaved: p v chunks of L / (p v) layers, or, when the
         * embedding and the loss are counted as layers (Megatron-Core's
         * --account-for-embedding-in-pipeline-split and
         * --account-for-loss-in-pipeline-split; NeMo's Llama 3.1 405B recipe
         * puts 126 layers on 8 x 8 chunks this way), chunks of (L + 2) / (p v)
         * with the model's first and last chunk one layer lighter. */
        long c = L % (p * v) == 0 ? L / (p * v) : (L + 2) % (p * v) == 0 ? (L + 2) / (p * v) : 0;
        if (c < 1 || (L % (p * v) && c < 2))
            return false;
        out->chunk = (int)c;
        out->uneven = L % (p * v) != 0;
        out->middle = (int)(v * c);
        out->first = out->last = out->middle - (out->uneven ? 1 : 0);
        return true;
    }
    if (L % p == 0) {
        out->first = out->middle = out->last = (int)(L / p);
        return true;
    }
    /* Uneven: the middle stages hold k = ceil(L/p) layers, and the first
     * and the last share what is left, the last no more than the first
     * (it also runs the logits and the loss): Megatron-LM's
     * --decoder-first/last-pipeline-num-layers; Llama 3 405B trained 126
     * layers on 16 stages as 7 + 14 x 8 + 7 (Llama Team 2024 §3.3.2). */
    long k = (L + p - 1) / p, rest = L - (p - 2) * k;
    if (p == 2) {
        k = (L + 1) / 2;
        rest = L;
    }
    long last = rest / 2, first = rest - last;
    if (last < 1 || first > k)
        return false;
    out->first = (int)first;
    out->middle = (int)k;
    out->last = (int)last;
    out->uneven = true;
    return true;
}

int layers_per_stage(const pp_problem *prob, const pp_plan *plan)
{
    pp_stage_split s;
    pp_stage_layers(prob, plan, &s);
    return s.middle > s.first ? s.middle : s.first;
}

int layers_on_stage(const pp_problem *prob, const pp_plan *plan, int stage)
{
    pp_stage_split s;
    pp_stage_layers(prob, plan, &s);
    if (stage == 0)
        return s.first;
    return stage >= plan->pp - 1 ? s.last : s.middle;
}

void pp_term_pp_comm(const pp_problem *prob, const pp_plan *plan, pp_comm_term *out)
{
    *out = (pp_comm_term){0};
    if (plan->pp <= 1)
        return;
    const pp_model *m = &prob->model;
    /* One activation forward and one gradient backward per micro-batch and
     * model chunk; the receiving stage waits for it, so it sits on the
     * critical path.  Each TP rank holds the whole b s h boundary tensor
     * unless sequence parallelism split it (s/t tokens a rank), and sends
     * what it holds over its own link; with p2p_scatter_gather (Megatron-LM
     * 2021, Narayanan et al. 2021 §4.1; DeepSpeed's partitioned pipeline
     * tensors) each sends 1/t of it instead and the receiver all-gathers it
     * over NVLink. */
    double full = ACT_BYTES * plan->micro_batch * ((double)m->seq_len / plan->cp) * m->hidden;
    bool split = plan->tp > 1 && (plan->sequence_parallel || prob->training.p2p_scatter_gather);
    double bytes = split ? full / plan->tp : full;
    double regather_s = 0.0;
    if (split && !plan->sequence_parallel)
        regather_s = pp_collective_time_s(&prob->cluster, PP_COLL_ALLGATHER, full, plan->tp,
                                          ranks_per_node(prob, 1, plan->tp));
    long stride = (long)plan->tp * plan->cp * plan->dp;
    bool inter = group_inter_node(prob, stride, plan->pp);
    const pp_codec *codec = codec_for(prob, plan, PP_DIM_PP, bytes);
    double wire = bytes / pp_codec_ratio(codec, 8.0 * ACT_BYTES);
    double sends = 2.0 * plan->virtual_stages;
    double w = pp_p2p_time_s(&prob->cluster, wire, inter);
    out->wire_s = sends * (w + regather_s);
    /* Megatron-Core's interleaved schedule overlaps them (overlap_p2p_comm,
     * on by default and only there: megatron/training/arguments.py turns it
     * off without interleaving): each send and receive is posted and waited
     * for one schedule step later, behind a chunk's forward or backward.  A
     * layer's compute outlasts its activation's transfer by far (24 b s h^2
     * FLOPs against 2 b s h bytes: 12 h x link rate / FLOP rate, above 4 for
     * h >= 4096 even over a 400 Gb/s NIC on H100), so none of it shows; the
     * bytes stay on the links. */
    if (prob->training.framework == PP_FW_MEGATRON_CORE && plan->virtual_stages > 1)
        out->wire_s = 0.0;
    /* MVAPICH's point-to-point compression pipelines its chunks too. */
    out->codec_s = sends * codec_exposed_s(prob, codec, w, codec_time_s(prob, codec, bytes, 8.0 * ACT_BYTES), bytes);
    out->bytes_sent = sends * wire;
    if (inter)
        out->bytes_network = out->bytes_sent;
    else
        out->bytes_nvlink = out->bytes_sent;
    if (regather_s > 0.0)
        out->bytes_nvlink += sends * ring_factor(PP_COLL_ALLGATHER, plan->tp) * full;
    out->inter_node = inter;
    out->total_s = out->wire_s + out->codec_s;
}

int pp_microbatches(const pp_problem *prob, const pp_plan *plan)
{
    long per_pipeline = (long)plan->dp * plan->micro_batch;
    if (per_pipeline <= 0 || prob->training.global_batch % per_pipeline != 0)
        return 0;
    long m = prob->training.global_batch / per_pipeline;
    return m > 0x7fffffffL ? 0 : (int)m;
}

/* A pipeline of p stages with per-micro-batch times t_i runs m micro-batches
 * in m max t + sum of the others (the makespan of a linear pipeline; 1F1B
 * with uniform stages gives Narayanan et al.'s (m + p - 1) t): a fill or
 * drain slot costs the mean of the stages other than the slowest.  The last
 * stage's logits and loss make it the slowest, and the bubble does not pay
 * them p - 1 times.  Interleaving divides the p - 1 slots by v as before. */
double pipeline_bubble_slot_s(const pp_plan *plan, double all_stages_s, double slowest_s)
{
    return plan->pp > 1 ? fmax(0.0, (all_stages_s - slowest_s) / (plan->pp - 1)) : slowest_s;
}

double pp_pipeline_factor(const pp_problem *prob, const pp_plan *plan)
{
    /* 1F1B: m slots of work plus (p-1) of fill and drain; interleaving with
     * v chunks shrinks the bubble to (p-1)/v (Narayanan et al. 2021 §2.2). */
    return pp_microbatches(prob, plan) + (double)(plan->pp - 1) / plan->virtual_stages;
}
