/*
 * dp.c: the data-parallel term under ZeRO, its two overlap windows, and the
 * optimizer step (docs/cost-model.md §3 and §4).
 *
 * ZeRO (Rajbhandari et al. 2020 §7): stages 0-2 move 2 Psi per step (an
 * all-reduce, or a reduce-scatter and an all-gather of the same volume);
 * stage 2 also reduce-scatters every micro-batch where the framework syncs
 * gradients every micro-batch (all but FSDP under a pipeline:
 * grad_sync_every_microbatch), else once after the last; stage 3 gathers
 * the parameters for every forward and backward, 3 Psi (1.5x).  The once-a-step
 * part hides behind the last backward (PyTorch DDP, Li et al. 2020), the
 * per-micro-batch part behind all compute (PyTorch FSDP, Zhao et al. 2023),
 * and ZeRO-1/2's gather of the updated parameters behind the next step's
 * first forward where the framework prefetches it:
 *
 *   + max(0, dp.once_wire - bwd) + max(0, m dp.per_mb_wire - m (fwd + bwd))
 *   + max(0, dp.gather_once_wire - fwd)
 *
 * The optimizer step is memory-bound: the bytes read and written per
 * parameter of the GPU's optimizer shard (optimizer_bytes).
 */
#include "cost_terms.h"

#include <math.h>

/* Bytes read and written per parameter of the shard by one optimizer step,
 * as Megatron-LM's MixedPrecisionOptimizer.step runs it (and DeepSpeed's
 * and PyTorch's the same passes): the gradient norm for clipping reads the
 * fp32 gradients (4); fused Adam reads the fp32 master weight, gradient,
 * momentum and variance and writes three of them back (28); the updated
 * master weights are cast to the 16-bit model weights (4 + 2).  Megatron and
 * DeepSpeed also zero their contiguous gradient buffer for the next step
 * (4; PyTorch FSDP frees its gradients instead), and fp16 training unscales
 * the gradients and checks them for inf/NaN (4 + 4). */
#define OPT_NORM_BYTES 4.0
#define OPT_ADAM_BYTES 28.0
#define OPT_CAST_BYTES 6.0
#define OPT_ZERO_GRAD_BYTES 4.0
#define OPT_UNSCALE_BYTES 8.0

static double optimizer_bytes(const pp_training *t)
{
    /* 16-bit moments (training.optimizer_moments_dtype) are read and
     * written in their type: 2 bytes less each of four accesses */
    double b = OPT_NORM_BYTES + OPT_ADAM_BYTES - 4.0 * (4.0 - adam_moment_bytes(t)) + OPT_CAST_BYTES;
    if (t->framework != PP_FW_FSDP)
        b += OPT_ZERO_GRAD_BYTES;
    if (t->precision == PP_PREC_FP16)
        b += OPT_UNSCALE_BYTES;
    return b;
}

static void add_comm(pp_comm_term *acc, const pp_comm_term *x)
{
    acc->wire_s += x->wire_s;
    acc->codec_s += x->codec_s;
    acc->bytes_sent += x->bytes_sent;
    acc->bytes_nvlink += x->bytes_nvlink;
    acc->bytes_network += x->bytes_network;
}


typedef double (*stage_count_fn)(const pp_problem *prob, const pp_plan *plan, int stage);

/* The largest count over the stages that can differ: the first, a middle
 * one (the split puts the remainder there) and the last. */
static double busiest_stage(const pp_problem *prob, const pp_plan *plan, stage_count_fn count)
{
    double most = count(prob, plan, 0);
    if (plan->pp >= 3)
        most = fmax(most, count(prob, plan, 1));
    return fmax(most, count(prob, plan, plan->pp - 1));
}

/* The most parameters any stage holds, trained or frozen: what ZeRO-3
 * gathers for every forward and backward (DeepSpeed and FSDP gather a
 * LoRA model's frozen weights like any other). */
static double busiest_stage_held(const pp_problem *prob, const pp_plan *plan)
{
    return busiest_stage(prob, plan, stage_params);
}

/* The most trained parameters any stage holds: its data-parallel traffic
 * and optimizer step are the slowest.  *expert: the routed-expert share of
 * them (MoE; every stage weighed; frozen under LoRA). */
static double busiest_stage_params(const pp_problem *prob, const pp_plan *plan, double *expert)
{
    *expert = 0.0;
    if (prob->training.lora_rank > 0)
        return busiest_stage(prob, plan, stage_trainable_params);
    if (pp_model_is_moe(&prob->model)) { /* every stage of one split */
        pp_stage_split split;
        bool ok = pp_stage_layers(prob, plan, &split);
        double most = -1.0;
        for (int s = 0; s < plan->pp; s++) {
            int n, nm;
            double e;
            stage_counts_of_split(prob, plan, &split, ok, s, &n, &nm);
            double p = moe_stage_params_of(prob, plan, s, n, nm, &e);
            if (p > most) {
                most = p;
                *expert = e;
            }
        }
        return most;
    }
    return busiest_stage_held(prob, plan);
}

/* Gradient accumulation: each micro-batch's weight gradients are added into
 * the gradient buffer the GPU holds.  Megatron-LM fuses the addition into
 * the weight-gradient GEMM (--gradient-accumulation-fusion: the GEMM's
 * epilogue reads and writes the fp32 main gradient while the tensor cores
 * work), so it costs nothing extra; DeepSpeed and PyTorch FSDP add the
 * micro-batch's gradients with a separate kernel, a read and a write of
 * every gradient byte held, memory-bound.  It depends on the ZeRO stage (the
 * buffer is sharded from ZeRO-2 on), so it belongs to this term. */
static double accumulation_s(const pp_problem *prob, const pp_plan *plan)
{
    pp_framework fw = prob->training.framework;
    if (fw == PP_FW_MEGATRON_CORE || fw == PP_FW_MEGATRON_2021)
        return 0.0;
    double w, g, o;
    pp_mem_states_gib(prob, plan, 0, &w, &g, &o);
    return (pp_microbatches(prob, plan) - 1.0) * 2.0 * g * GIB / hbm_Bps(prob);
}

/* How many collectives the once-a-step traffic of `params` parameters over
 * n replicas goes out in: the framework's buckets (frameworks.c
 * dp_bucket_params) in each of the stage's model chunks, which every
 * framework wraps apart (Megatron's DDP per chunk of the interleaved
 * schedule); PyTorch FSDP's sharded stages one per wrapped block, the
 * `pieces` ZeRO-3 gathers in.  Each pays the collective's latency. */
static double dp_collectives(const pp_problem *prob, const pp_plan *plan, double params, long n,
                             double grad_value_bytes, double pieces)
{
    if (prob->training.framework == PP_FW_FSDP && plan->zero >= 2)
        return pieces;
    double chunks = plan->virtual_stages > 1 ? (double)plan->virtual_stages : 1.0;
    double bucket = dp_bucket_params(prob, n, grad_value_bytes);
    return chunks * (bucket > 0.0 ? fmax(1.0, ceil(params / chunks / bucket)) : 1.0);
}

/* The share of the once-a-step parameter all-gather (ZeRO-1/2) that no
 * forward hides, of `buckets` over the stage.  The first bucket always waits:
 * the first layer needs it.  Megatron-Core's distributed optimizer dispatches
 * the rest one bucket ahead: a forward pre-hook waits for its module's bucket
 * and only then dispatches the next (param_and_grad_buffer.py
 * finish_param_sync, Megatron-LM d98e8a64).  Run eagerly, a hook fires per
 * module, so the next bucket gathers while this module computes; a layer
 * captured as a CUDA graph has one hook for the whole layer
 * (cuda_graphs.py TECudaGraphHelper.cuda_graph_set_manual_hooks), which
 * waits for each of the layer's kb buckets in turn before the graph runs, so
 * only the one dispatched during the previous layer hides: 1 - 1/kb of the
 * gather waits (the `local` implementation's CudaGraphManager likewise calls
 * the layer's and its modules' hooks in turn before a replay).  A measured
 * row's whole-iteration graph is read as full (measurements.c) and priced
 * so; docs/cost-model.md section 3 says what the code does not settle. */
static double gather_exposed_share(const pp_problem *prob, const pp_plan *plan, double buckets)
{
    double first = 1.0 / buckets;
    if (prob->training.cuda_graphs == PP_GRAPHS_NONE || prob->training.framework != PP_FW_MEGATRON_CORE)
        return first;
    double kb = fmax(1.0, buckets / (double)layers_per_stage(prob, plan));
    return fmin(1.0, first + 1.0 - 1.0 / kb);
}

/* The ZeRO traffic of `params` trained parameters of `held` over n
 * replicas, k per node (see pp_term_dp_comm), added to once, per_mb and
 * *fixed_s. */
static void zero_traffic(const pp_problem *prob, const pp_plan *plan, double params, double held, long n, long k,
                         int mb, double pieces, pp_comm_term *acc_once, pp_comm_term *acc_gather,
                         pp_comm_term *acc_per_mb, double *acc_fixed, pp_dp_term *tails)
{
    double grad_bits = pp_plan_grad_reduce(prob, plan) == PP_PREC_FP32 ? 32.0 : 8.0 * ACT_BYTES;
    double wb = weight_bytes(&prob->training), weight_bits = 8.0 * wb;
    double grad_bytes = grad_bits / 8.0 * params, param_bytes = wb * params, held_bytes = wb * held;
    pp_comm_term once = {0}, gather = {0}, per_mb = {0};
    double fixed_s = 0.0;
    double buckets = dp_collectives(prob, plan, params, n, grad_bits / 8.0, pieces);
    switch (n > 1 ? plan->zero : -1) {
    case -1: break; /* dp = 1: only the depth all-reduce below */
    case 0:
        compressed_collective(prob, plan, PP_DIM_DP, PP_COLL_ALLREDUCE, grad_bytes, grad_bits, n, k, &once, 1.0,
                              buckets);
        break;
    case 1:
    case 2:
        /* the reduce-scatter and the all-gather (no NVLink SHARP: collectives.c) */
        compressed_collective_as(prob, plan, PP_DIM_DP, PP_COLL_ALLREDUCE, grad_bytes, grad_bits, n, k, &once, 0.5,
                                 buckets, false);
        compressed_collective_as(prob, plan, PP_DIM_PARAMS, PP_COLL_ALLREDUCE, param_bytes, weight_bits, n, k,
                                 &gather, 0.5, buckets, false);
        if (plan->zero == 2 && grad_sync_every_microbatch(prob, plan))
            compressed_collective(prob, plan, PP_DIM_DP, PP_COLL_REDUCESCATTER, grad_bytes, grad_bits, n, k,
                                  &per_mb, (mb - 1.0) / mb, pieces);
        break;
    default: {
        pp_comm_term gathers = {0}, rs_once = {0};
        compressed_collective(prob, plan, PP_DIM_DP, PP_COLL_REDUCESCATTER, grad_bytes, grad_bits, n, k, &rs_once,
                              1.0, pieces);
        compressed_collective(prob, plan, PP_DIM_PARAMS, PP_COLL_ALLGATHER, held_bytes, weight_bits, n, k, &gathers,
                              2.0, pieces);
        if (grad_sync_every_microbatch(prob, plan))
            compressed_collective(prob, plan, PP_DIM_DP, PP_COLL_REDUCESCATTER, grad_bytes, grad_bits, n, k,
                                  &per_mb, (mb - 1.0) / mb, pieces);
        add_comm(&once, &rs_once);
        add_comm(&per_mb, &gathers);
        /* Prefetching hides the gather of the next layer behind this one's
         * compute, never the first layer's gather of a forward and of a
         * backward, nor the reduce-scatter of the backward's last layer
         * (PyTorch FSDP, Zhao et al. 2023 §3.4-3.5): per micro-batch one
         * piece of each is exposed whatever the overlap. */
        if (prob->training.dp_overlap)
            fixed_s = gathers.wire_s / pieces + rs_once.wire_s / pieces;
        break;
    }
    }
    /* The once-a-step traffic goes out bucket by bucket: a gradient bucket
     * when the backward has filled it, so the last one (the first layers')
     * only once the backward is over, and the updated parameters' gathers
     * before the forward that needs them, so the first layers' first
     * (PyTorch DDP, Li et al. 2020 §3.2.3; Megatron-Core's distributed
     * optimizer, "Distributed Optimizer" in its documentation).  One
     * bucket's share of each is never hidden behind compute (step.c takes
     * it out of the windowed pairs), and of the gather more where CUDA
     * graphs make a layer wait for all its buckets (gather_exposed_share);
     * unbucketed traffic is one bucket.
     * ZeRO-3's last piece is per_mb_fixed's, every micro-batch's. */
    if (plan->zero <= 2) {
        tails->once_tail_s += once.wire_s / buckets;
        tails->gather_tail_s += gather.wire_s * gather_exposed_share(prob, plan, buckets);
    }
    add_comm(acc_once, &once);
    add_comm(acc_gather, &gather);
    add_comm(acc_per_mb, &per_mb);
    *acc_fixed += fixed_s;
}

void pp_term_dp_comm(const pp_problem *prob, const pp_plan *plan, pp_dp_term *out)
{
    *out = (pp_dp_term){0};
    out->accum_s = accumulation_s(prob, plan);
    tp_grid g = grid_of(plan);
    bool depth = g.mode == PP_TP_2P5D && g.d > 1;
    long n = pp_replica_ranks(plan); /* the gradient reduction spans dp x cp */
    if (n <= 1 && !depth && !pp_model_is_moe(&prob->model))
        return;
    int mb = pp_microbatches(prob, plan);
    double expert;
    double params = busiest_stage_params(prob, plan, &expert);
    /* Gradients travel in the type the plan reduces them in
     * (training.grad_reduce_dtype, or 16 bits under the DP codec bf16:
     * pp_plan_grad_reduce), parameters in 16 bits. */
    double grad_bits = pp_plan_grad_reduce(prob, plan) == PP_PREC_FP32 ? 32.0 : 8.0 * ACT_BYTES;
    double grad_bytes = grad_bits / 8.0 * params;
    long stride = (long)plan->tp;
    long k = ranks_per_node(prob, stride, n);
    /* ZeRO (Rajbhandari et al. 2020 §7): stages 0-2 move 2 Psi per step (an
     * all-reduce, or reduce-scatter + all-gather of the same volume); stage 2
     * reduce-scatters every micro-batch; stage 3 also gathers the parameters
     * for every forward and backward (3 Psi, 1.5x).  From stage 1 on, the
     * all-gather half carries the updated parameters (DeepSpeed ZeRO-1/2,
     * Megatron's distributed optimizer): it takes the params codec, the
     * reduce-scatter half the DP (gradient) codec; each half is priced as
     * half of the all-reduce, which is the all-reduce when both are equal. */
    int per_layer = prob->training.param_collectives_per_layer > 0 ? prob->training.param_collectives_per_layer : 1;
    double pieces = (double)layers_per_stage(prob, plan) * per_layer;
    pp_comm_term once = {0}, gather = {0}, per_mb = {0};
    double fixed_s = 0.0;
    /* Mixture of experts: the routed experts' gradients reduce over the
     * expert-data-parallel group (tp dp cp / (etp ep) ranks), the rest over
     * dp x cp (Megatron-Core's expert data parallelism). */
    long ne = 1, ke = 1;
    if (pp_model_is_moe(&prob->model))
        moe_expert_dp_group(prob, plan, &ne, &ke);
    double held = prob->training.lora_rank > 0 ? busiest_stage_held(prob, plan) : params;
    zero_traffic(prob, plan, params - expert, held - expert, n, k, mb, pieces, &once, &gather, &per_mb, &fixed_s,
                 out);
    if (expert > 0.0 && ne > 1)
        zero_traffic(prob, plan, expert, expert, ne, ke, mb, pieces, &once, &gather, &per_mb, &fixed_s, out);
    /* 2.5D: each of the d layers of the grid computes its rows' share of
     * the weight gradients of the q x q blocks it replicates; they are summed
     * by an all-reduce over the depth group (stride q^2) once per step, with
     * the data-parallel reduction (Tesseract; Colossal-AI reduces only over
     * the row and column groups inside a product). */
    bool depth_inter = false;
    if (depth) {
        long ds = (long)(g.q * g.q), dn = (long)g.d;
        compressed_collective(prob, plan, PP_DIM_DP, PP_COLL_ALLREDUCE, grad_bytes, grad_bits, dn,
                              ranks_per_node(prob, ds, dn), &once, 1.0, 1.0);
        depth_inter = group_inter_node(prob, ds, dn);
    }
    out->once_wire_s = once.wire_s;
    out->gather_once_wire_s = gather.wire_s;
    out->per_mb_fixed_s = fixed_s;
    out->per_mb_wire_s = fmax(0.0, per_mb.wire_s - fixed_s);
    add_comm(&once, &gather);
    out->codec_s = once.codec_s + mb * per_mb.codec_s;
    out->bytes_sent = once.bytes_sent + mb * per_mb.bytes_sent;
    out->bytes_nvlink = once.bytes_nvlink + mb * per_mb.bytes_nvlink;
    out->bytes_network = once.bytes_network + mb * per_mb.bytes_network;
    out->inter_node = (n > 1 && k < n) || depth_inter;
}

double pp_dp_once_window_s(const pp_problem *prob, const pp_plan *plan, const pp_stage_term *st)
{
    /* Gradient buckets are reduced while the last micro-batch's backward runs
     * (PyTorch DDP, Li et al. 2020; Megatron-Core overlap_grad_reduce).
     * DeepSpeed's pipeline engine reduces after it: its TrainSchedule ends
     * with the instructions ReduceTiedGrads, ReduceGrads, OptimizerStep once
     * the last BackwardPass has run (deepspeed/runtime/pipe/schedule.py). */
    pp_framework fw = prob->training.framework;
    if (plan->pp > 1 && (fw == PP_FW_DEEPSPEED || fw == PP_FW_DEEPSPEED_2021))
        return 0.0;
    return prob->training.dp_overlap ? st->bwd_s : 0.0;
}

double pp_dp_per_mb_window_s(const pp_problem *prob, const pp_plan *plan, const pp_stage_term *st)
{
    /* FSDP / ZeRO-3 prefetch the next layer's parameters during this one's
     * compute (Zhao et al. 2023, PyTorch FSDP §3.4). */
    (void)plan;
    return prob->training.dp_overlap ? st->fwd_s + st->bwd_s : 0.0;
}

double pp_dp_gather_window_s(const pp_problem *prob, const pp_plan *plan, const pp_stage_term *st)
{
    /* ZeRO-1/2 gather the updated parameters once a step.  Megatron-Core's
     * distributed optimizer with --overlap-param-gather launches the
     * all-gathers bucket by bucket and waits for each in the forward
     * pre-hook of its layers, so they hide behind the next step's first
     * forward (Megatron-Core documentation, "Distributed Optimizer");
     * PyTorch FSDP's SHARD_GRAD_OP prefetches them in that forward the same
     * way (Zhao et al. 2023 §3.4).  DeepSpeed gathers them inside the
     * optimizer step, exposed. */
    (void)plan;
    pp_framework fw = prob->training.framework;
    return prob->training.dp_overlap && (fw == PP_FW_MEGATRON_CORE || fw == PP_FW_FSDP) ? st->fwd_s : 0.0;
}

double pp_term_optimizer_s(const pp_problem *prob, const pp_plan *plan)
{
    double expert;
    double shard = busiest_stage_params(prob, plan, &expert);
    if (expert > 0.0) /* the experts' optimizer shards span the expert-data-parallel group */
        shard = (shard - expert) / (plan->zero >= 1 ? (double)pp_replica_ranks(plan) : 1.0) +
                expert / (plan->zero >= 1 ? (double)pp_expert_replica_ranks(plan) : 1.0);
    else
        shard /= plan->zero >= 1 ? (double)pp_replica_ranks(plan) : 1.0;
    return optimizer_bytes(&prob->training) * shard / hbm_Bps(prob);
}
