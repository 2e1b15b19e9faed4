/*
 * step.c: the frameworks, and the composition of one optimizer step from the
 * terms (docs/cost-model.md §0 and §5).
 *
 *   T_mb = stage.total + tp_comm.total + pp_comm.total
 *   step = (m + (p-1)/v) T_mb                                (1F1B / interleaved)
 *        + max(0, dp.once_wire - stage.bwd_window)           (epigraph 1)
 *        + max(0, dp.per_mb_wire * m - stage.compute * m)    (epigraph 2)
 *        + dp.codec + optimizer
 *        + max(0, busiest link's bytes / its rate - the above)  (the link bound)
 *
 * pp_step_time_s is that sum, the one the MIP mirrors; pp_evaluate splits
 * the same terms into compute, bubble, exposed communication, compression
 * and optimizer.  A framework sets what it is known to do: Megatron-LM
 * 2021/2022 had no fused attention and no DP overlap (Narayanan et al. 2021
 * §4; Korthikanti et al. 2022 §5), DeepSpeed gathers module by module.
 */
#include "cost_internal.h"

#include <math.h>

static const char *const FRAMEWORK_NAMES[PP_FW_COUNT] = {"megatron-core", "megatron-lm-2021", "deepspeed",
                                                         "deepspeed-2021", "fsdp"};

const char *pp_framework_name(pp_framework fw)
{
    return fw >= 0 && fw < PP_FW_COUNT ? FRAMEWORK_NAMES[fw] : "?";
}

bool pp_framework_has_zero(pp_framework fw, int zero)
{
    return zero >= 0 && zero <= 3 && !(fw == PP_FW_FSDP && zero == 1);
}

/* Megatron-LM forces fp32 gradient accumulation and reduction for bf16
 * (and fp8, whose parameters are bf16) training unless --grad-reduce-in-bf16
 * (megatron/training/arguments.py: "bfloat16 requires gradient accumulation
 * and all-reduce to be done in fp32"); fp16 training reduces in fp16.  PyTorch
 * FSDP as torchtitan and Composer run it reduces in fp32
 * (MixedPrecisionPolicy reduce_dtype float32: torchtitan's
 * training.mixed_precision_reduce default, Composer's DEFAULT mixed
 * precision).  DeepSpeed communicates in the training's 16-bit type
 * (DeepSpeedEngine.communication_data_type). */
pp_precision pp_framework_grad_reduce(pp_framework fw, pp_precision training)
{
    bool deepspeed = fw == PP_FW_DEEPSPEED || fw == PP_FW_DEEPSPEED_2021;
    if (training == PP_PREC_FP16)
        return fw == PP_FW_FSDP ? PP_PREC_FP32 : PP_PREC_FP16;
    return deepspeed ? PP_PREC_BF16 : PP_PREC_FP32;
}

/* Megatron-Core sums gradients in the buffer it reduces them from, whose
 * type is the reduce type (param_and_grad_buffer.py group_params_for_buffers:
 * "torch.float if grad_reduce_in_fp32, else param.dtype"), and FSDP2 in its
 * reduce dtype (FSDPParam.to_accumulated_grad_if_needed).  DeepSpeed keeps
 * the 16-bit gradients of ZeRO Table 1 (Rajbhandari et al. 2020). */
pp_precision pp_framework_grad_accum(pp_framework fw, pp_precision training, pp_precision reduce)
{
    pp_precision half = training == PP_PREC_FP16 ? PP_PREC_FP16 : PP_PREC_BF16;
    if (fw == PP_FW_DEEPSPEED || fw == PP_FW_DEEPSPEED_2021)
        return half;
    return reduce == PP_PREC_FP32 ? PP_PREC_FP32 : half;
}

void pp_framework_features(pp_framework fw, pp_training *t)
{
    t->framework = fw;
    /* Megatron-LM 2021/2022 materialized the s x s scores (no fused
     * attention) and reduced gradients after the backward pass
     * (Narayanan et al. 2021 §4; Korthikanti et al. 2022 §5). */
    bool classic = fw == PP_FW_MEGATRON_2021 || fw == PP_FW_DEEPSPEED_2021;
    t->flash_attention = !classic;
    t->dp_overlap = !classic;
    /* Megatron-LM 2021 split each pipeline send over the TP ranks
     * (--no-scatter-gather-tensors-in-pipeline turned it off), and so does
     * DeepSpeed's pipeline engine with model parallelism (PartitionedTensor
     * sends, pipeline.pipe_partitioned, on by default); Megatron-Core
     * dropped it for sequence parallelism, which splits the sequence instead
     * (schedules.py get_tensor_shapes divides it by the TP size only with
     * sequence_parallel), as torchtitan's TP plan does. */
    t->p2p_scatter_gather = fw == PP_FW_MEGATRON_2021 || fw == PP_FW_DEEPSPEED || fw == PP_FW_DEEPSPEED_2021;
    /* Megatron-Core (Transformer Engine userbuffers, --tp-comm-overlap) and
     * torchtitan (AsyncTP) can pipeline 1D TP's collectives with their
     * GEMMs; Megatron-LM 2021 and DeepSpeed cannot. */
    t->tp_overlap = fw == PP_FW_MEGATRON_CORE || fw == PP_FW_FSDP;
    /* Megatron's and Transformer Engine's fused kernels; torchtitan and
     * Composer reach the same with torch.compile, which the launch settings
     * turn on.  Eager PyTorch is the problem's (or row's) own choice. */
    t->fused_elementwise = true;
    t->fused_norm = false;
    t->fused_loss = true;
    t->loss_gathered = false;
    t->grad_accum_bytes = 0; /* the framework's own */
    /* DeepSpeed ZeRO-3 gathers the parameters of each leaf module on its
     * own (fetch_sub_module): for a GPT layer two LayerNorms and four
     * linear layers.  FSDP and Megatron-Core move one flat buffer per
     * wrapped transformer block. */
    t->param_collectives_per_layer = (fw == PP_FW_DEEPSPEED || fw == PP_FW_DEEPSPEED_2021) ? 6 : 1;
    /* DeepSpeed's ZeRO-3 of 2021 gathered each parameter into a list of n
     * narrow views of one flat buffer (partition_parameters.py
     * _allgather_param: torch.distributed.all_gather(partitions, ...)), and
     * reduce-scattered from a list of n inputs; PyTorch's NCCL process group
     * runs a list collective on a flat staging buffer and copies it to (or
     * from) the n tensors one kernel each (ProcessGroupNCCL::allgather,
     * reduce_scatter: flatten_for_scatter_gather).  Later DeepSpeed gathers
     * into one tensor (_all_gather_base), as FSDP and Megatron-Core do. */
    t->list_collectives = fw == PP_FW_DEEPSPEED_2021;
    /* The 2021 frameworks ran NCCL 2.8-2.10 (PyTorch containers 20.12-21.08);
     * PXN came with NCCL 2.12 (March 2022), which later stacks have. */
    t->nccl_pxn = !classic;
}

typedef struct step_parts {
    pp_stage_term stage;
    pp_comm_term tp, pp;
    pp_dp_term dp;
    double optimizer_s;
    double factor;
    int m;
    double dp_once_exposed_s, dp_per_mb_exposed_s; /* the once-a-step exposure includes ZeRO-1/2's gather */
    double dp_contention_s; /* the compute the hidden DP traffic's kernels slow down */
} step_parts;

static void step_parts_eval(const pp_problem *prob, const pp_plan *plan, step_parts *sp)
{
    pp_term_stage(prob, plan, &sp->stage);
    pp_term_tp_comm(prob, plan, &sp->tp);
    pp_term_pp_comm(prob, plan, &sp->pp);
    pp_term_dp_comm(prob, plan, &sp->dp);
    sp->optimizer_s = pp_term_optimizer_s(prob, plan);
    sp->factor = pp_pipeline_factor(prob, plan);
    sp->m = pp_microbatches(prob, plan);
    double once_x = fmax(0.0, sp->dp.once_wire_s - pp_dp_once_window_s(prob, plan, &sp->stage));
    double gather_x = fmax(0.0, sp->dp.gather_once_wire_s - pp_dp_gather_window_s(prob, plan, &sp->stage));
    double per_mb_x = fmax(0.0, sp->m * sp->dp.per_mb_wire_s - sp->m * pp_dp_per_mb_window_s(prob, plan, &sp->stage));
    sp->dp_once_exposed_s = once_x + gather_x;
    sp->dp_per_mb_exposed_s = sp->m * sp->dp.per_mb_fixed_s + per_mb_x;
    double f = pp_comm_sm_share(prob);
    sp->dp_contention_s = f * (sp->dp.once_wire_s - once_x) + f * (sp->dp.gather_once_wire_s - gather_x) +
                          f * (sp->m * sp->dp.per_mb_wire_s - per_mb_x);
}

/* Communication that overlaps computation is not free: its kernels run on
 * SMs the computation then lacks.  DeepSeek-V3 (arXiv 2412.19437, §3.2.1)
 * needed 20 of the H800's 132 SMs to drive its 50 GB/s of InfiniBand per
 * GPU (and the NVLink behind it) at full bandwidth; NCCL's kernels take a
 * comparable share (NCCL_MAX_CTAS, 32 by default, NCCL environment
 * variables documentation).  The SMs a GPU needs scale with the bandwidth
 * its NIC drives: 20 per 50 GB/s, so 20 on H100 at 400 Gb/s, 10 on A100 at
 * 200 Gb/s, 2.5 on a V100 with a 50 Gb/s share of EDR.  While DP traffic
 * is hidden behind the backward pass the GPU computes on the rest: the
 * hidden seconds cost SMs / sm_count of themselves. */
#define COMM_SMS_PER_NIC_GBps (20.0 / 50.0)

double pp_comm_sm_share(const pp_problem *prob)
{
    int sms = prob->cluster.gpu.sm_count;
    /* the GPU's own NIC (gpus.json), not the problem's link figures: a what-if
     * with faster links moves the same bytes on the same kernels */
    double need = COMM_SMS_PER_NIC_GBps * prob->cluster.gpu.network_Gbps / 8.0;
    return sms > 0 && need > 0.0 ? fmin(0.5, need / sms) : 0.0;
}

static double slot_s(const step_parts *sp)
{
    return sp->stage.total_s + sp->tp.total_s + sp->pp.total_s;
}

/* A fill or drain slot: the other stages' mean compute, the same TP and
 * pipeline traffic. */
static double bubble_slot_s(const step_parts *sp)
{
    return sp->stage.bubble_s + sp->tp.total_s + sp->pp.total_s;
}

/* Bytes one GPU puts on each link per step: TP and PP per micro-batch, DP
 * per step, as the terms count them. */
static double step_bytes(const step_parts *sp, bool network)
{
    /* the stage term's bytes are a MoE model's all-to-alls (0 otherwise) */
    return network ? sp->m * (sp->tp.bytes_network + sp->pp.bytes_network + sp->stage.bytes_network) + sp->dp.bytes_network
                   : sp->m * (sp->tp.bytes_nvlink + sp->pp.bytes_nvlink + sp->stage.bytes_nvlink) + sp->dp.bytes_nvlink;
}

double pp_link_wait_s(const pp_problem *prob, double bytes_nvlink, double bytes_network, double composed_s,
                      double *nvlink_busy_s, double *network_busy_s)
{
    double nv = bytes_nvlink > 0.0 ? bytes_nvlink / pp_nvlink_Bps(&prob->cluster) : 0.0;
    double net = bytes_network > 0.0 ? bytes_network / pp_network_Bps(&prob->cluster) : 0.0;
    if (nvlink_busy_s)
        *nvlink_busy_s = nv;
    if (network_busy_s)
        *network_busy_s = net;
    return fmax(0.0, fmax(nv, net) - composed_s);
}

static double terms_s(const step_parts *sp)
{
    return sp->m * slot_s(sp) + (sp->factor - sp->m) * bubble_slot_s(sp) + sp->dp_once_exposed_s +
           sp->dp_per_mb_exposed_s + sp->dp_contention_s +
           sp->dp.codec_s + sp->optimizer_s + sp->dp.accum_s;
}

double pp_step_time_s(const pp_problem *prob, const pp_plan *plan)
{
    step_parts sp;
    step_parts_eval(prob, plan, &sp);
    double c = terms_s(&sp);
    return c + pp_link_wait_s(prob, step_bytes(&sp, false), step_bytes(&sp, true), c, NULL, NULL);
}

void pp_evaluate(const pp_problem *prob, const pp_plan *plan, pp_eval *out)
{
    *out = (pp_eval){0};
    step_parts sp;
    step_parts_eval(prob, plan, &sp);
    double m = sp.m, bubble_slots = sp.factor - m;
    pp_time *t = &out->time;
    t->compute_s = m * (sp.stage.fwd_s + sp.stage.bwd_s) + sp.dp.accum_s;
    t->cp_comm_s = m * sp.stage.cp_exposed_s;
    t->ep_comm_s = m * sp.stage.ep_comm_s;
    t->tp_comm_s = m * sp.tp.wire_s;
    t->pp_comm_s = m * sp.pp.wire_s;
    t->bubble_s = bubble_slots * bubble_slot_s(&sp);
    t->dp_comm_s = sp.dp_once_exposed_s + sp.dp_per_mb_exposed_s + sp.dp_contention_s;
    t->compression_s = m * (sp.tp.codec_s + sp.pp.codec_s) + sp.dp.codec_s;
    t->optimizer_s = sp.optimizer_s;
    t->exposed_comm_s = t->tp_comm_s + t->cp_comm_s + t->pp_comm_s + t->dp_comm_s + t->ep_comm_s;
    out->bytes_network_per_step = step_bytes(&sp, true);
    out->bytes_nvlink_per_step = step_bytes(&sp, false);
    t->link_wait_s = pp_link_wait_s(prob, out->bytes_nvlink_per_step, out->bytes_network_per_step, terms_s(&sp),
                                    &out->nvlink_busy_s, &out->network_busy_s);
    t->step_s = t->compute_s + t->bubble_s + t->exposed_comm_s + t->compression_s + t->optimizer_s + t->link_wait_s;

    pp_memory_eval(prob, plan, &out->mem);

    const pp_model *mod = &prob->model;
    double B = (double)prob->training.global_batch;
    out->gpus_used = plan->tp * plan->pp * plan->dp * plan->cp;
    out->microbatches = sp.m;
    out->tokens_per_s = B * mod->seq_len / t->step_s;
    out->model_flops_per_step = pp_training_flops_per_step(mod, &prob->training, B);
    out->hardware_flops_per_step = out->model_flops_per_step + pp_recompute_flops_per_step(mod, B, plan->recompute);
    out->model_tflops_per_gpu = out->model_flops_per_step / t->step_s / out->gpus_used / 1e12;
    out->hardware_tflops_per_gpu = out->hardware_flops_per_step / t->step_s / out->gpus_used / 1e12;
    out->peak_tflops = peak_flops(prob, prob->training.precision) / 1e12;
    out->mfu = out->model_tflops_per_gpu / out->peak_tflops;

}
