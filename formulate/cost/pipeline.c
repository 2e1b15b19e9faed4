/*
 * pipeline.c: the pipeline term, the sends between stages
 * (docs/cost-model.md §4).  The layers of a stage, the micro-batches per
 * pipeline, the pipeline factor and the fill and drain slots are the
 * layout's (layout.c).
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
#include "cost_terms.h"

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
