/*
 * frameworks.c: what each training framework does, as far as the cost model
 * prices it (docs/cost-model.md §5): its name, the ZeRO stages it offers,
 * the types it reduces and accumulates gradients in, the features it runs
 * (fused attention, DP overlap, pipeline scatter-gather, TP overlap, fused
 * kernels, gathers per layer, list collectives, PXN), whether fused attention
 * runs at all, and torchtitan's per-op selective checkpointing.
 *
 * A framework sets what it is known to do: Megatron-LM 2021/2022 had no
 * fused attention and no DP overlap (Narayanan et al. 2021 §4; Korthikanti
 * et al. 2022 §5), DeepSpeed gathers module by module; Megatron-LM reduces
 * bf16 gradients in fp32 (megatron/training/arguments.py), DeepSpeed in the
 * 16-bit type (DeepSpeedEngine.communication_data_type), PyTorch FSDP in its
 * reduce dtype (torchtitan's MixedPrecisionPolicy).  The ground floor of
 * cost/: it calls no other module of the cost model.
 */
#include "cost_ground.h"

#include <math.h>

const char *pp_framework_name(pp_framework fw)
{
    return fw >= 0 && fw < PP_FW_COUNT ? pp_framework_names[fw] : "?";
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

bool pp_plan_dp_cast16(const pp_problem *prob, const pp_plan *plan)
{
    int i = plan->codec[PP_DIM_DP];
    return i > 0 && i < prob->n_codecs && prob->codecs[i].cast && prob->codecs[i].bits_per_value == 16.0;
}

/* A 16-bit cast of the gradients is the reduction's own type in every
 * framework that offers one (data/frameworks.json, compression.dp):
 * Megatron-Core's --grad-reduce-in-bf16 makes its gradient buffer bf16
 * (param_and_grad_buffer.py: "torch.float if grad_reduce_in_fp32, else
 * param.dtype"), so the backward writes the gradients in bf16 and NCCL
 * reduces that buffer; FSDP2 reduces in MixedPrecisionPolicy.reduce_dtype
 * (llm-foundry's PURE mixed precision: bf16); DeepSpeed in its
 * communication_data_type.  No kernel casts the buffer before the
 * collective, and under fp16 training the gradients are already 16-bit. */
pp_precision pp_plan_grad_reduce(const pp_problem *prob, const pp_plan *plan)
{
    pp_precision r = prob->training.grad_reduce_dtype;
    if (r != PP_PREC_FP32 || !pp_plan_dp_cast16(prob, plan))
        return r;
    return prob->training.precision == PP_PREC_FP16 ? PP_PREC_FP16 : PP_PREC_BF16;
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
    /* Without userbuffers, Megatron's column-parallel backward launches the
     * input gradient's all-reduce (under sequence parallelism its
     * reduce-scatter) asynchronously and computes the weight gradient
     * meanwhile, and re-gathers the sequence-parallel input behind the data
     * gradient: LinearWithGradAccumulationAndAsyncCommunication, on by
     * default since Megatron-LM 3f652469 of 2021-09-02
     * (--no-async-tensor-model-parallel-allreduce to turn it off; the SP
     * variant since cfd2e216 of 2022-04-28), in Megatron-Core
     * (tensor_parallel/layers.py, d98e8a64, and Transformer Engine's
     * Linear) and in Megatron-DeepSpeed (microsoft/Megatron-DeepSpeed
     * 1de4f542, megatron/core/tensor_parallel/layers.py).  Megatron-LM
     * v2.6 of 2021-08-27 (the 2021 entry, Narayanan et al.'s code) and the
     * DeepSpeed of 2021 ran them synchronously; torchtitan's DTensor plan
     * runs its backward collectives in line (AsyncTP is tp_overlap). */
    t->tp_bwd_overlap = fw == PP_FW_MEGATRON_CORE || fw == PP_FW_DEEPSPEED;
    /* Megatron's and Transformer Engine's fused kernels; torchtitan and
     * Composer reach the same with torch.compile, which the launch settings
     * turn on.  Eager PyTorch is the problem's (or row's) own choice. */
    t->fused_elementwise = true;
    t->fused_norm = false;
    t->fused_loss = true;
    t->loss_gathered = false;
    t->grad_accum_bytes = 0; /* the framework's own */
    t->grad_accum_given = false;
    t->moment_bytes = 4;     /* Adam's moments in fp32 (torch.optim.AdamW, FusedAdam, DeepSpeed's) */
    t->moments_fp16 = false;
    t->bf16_layers_resolved = false; /* the recipe's blocks in bf16 (names.c) */
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
     * PXN came with NCCL 2.12 (March 2022), and NVLink SHARP with 2.17
     * (2023, on by default where the NVSwitch has it), which later stacks
     * have. */
    t->nccl_pxn = !classic;
    t->nccl_nvls = !classic;
}

/* Fused attention (FlashAttention-2/3, cuDNN) needs a head dimension that
 * is a multiple of 8 and at most 256 (FlashAttention-2 README) and an
 * Ampere or newer GPU (FlashAttention-2 and cuDNN's fused attention: sm80+;
 * the catalog tells them by a bf16 peak, which Volta lacks); otherwise
 * frameworks fall back to the unfused path that writes the s x s scores. */
bool flash_usable(const pp_problem *prob)
{
    int d = pp_model_head_dim(&prob->model);
    bool ampere = prob->cluster.gpu.peak_tflops[PP_PREC_BF16] > 0.0;
    return prob->training.flash_attention && ampere && d % 8 == 0 && d <= 256;
}

/* Selective recomputation as torchtitan's per-op checkpointing: framework
 * fsdp with fused attention (memory.c pp_op_sac_layer_bytes keeps what it
 * saves; stage.c and tp.c price what it recomputes). */
bool op_sac(const pp_problem *prob, const pp_plan *plan)
{
    return plan->recompute == PP_RECOMPUTE_SELECTIVE && prob->training.framework == PP_FW_FSDP && flash_usable(prob);
}

/* The once-a-step DP traffic goes out as one collective per bucket of
 * gradients, and each collective pays its own latency (the ring's n - 1
 * steps, collectives.c), so many small buckets over many ranks cost more
 * than their bytes.  The frameworks' defaults:
 *  - Megatron-Core (and NeMo, Megatron-Bridge) with overlap_grad_reduce:
 *    max(40M, 1M x dp_cp) parameters a bucket, "larger DP sizes need larger
 *    buckets to ensure collectives do not become latency-bound"
 *    (megatron/core/distributed/distributed_data_parallel_config.py,
 *    bucket_size; megatron/training/training.py resolve_ddp_bucket_size, at
 *    Megatron-LM d98e8a64); the distributed optimizer gathers the updated
 *    parameters in the same buckets.  Without the overlap, one bucket.
 *  - DeepSpeed ZeRO-0/1/2: reduce_bucket_size and allgather_bucket_size of
 *    5e8 elements (deepspeed/runtime/zero/config.py).
 *  - PyTorch DDP (framework fsdp without sharding): bucket_cap_mb 25 MiB of
 *    gradients (torch.nn.parallel.DistributedDataParallel); FSDP's sharded
 *    stages reduce per wrapped block (dp.c).
 *  - Megatron-LM 2021: its local DDP all-reduces the contiguous buffer at
 *    once after the backward (no overlap); with --DDP-impl torch (a row's
 *    dp_overlap: Narayanan et al.'s Table 1 runs up to 18B,
 *    examples/sc21/run_table_1.sh) PyTorch DDP's 25 MiB buckets
 *    (megatron/training.py wraps each chunk in torchDDP with its defaults).
 * Every framework buckets each model chunk apart (dp.c). */
#define MEGATRON_CORE_MIN_BUCKET_PARAMS 40e6
#define MEGATRON_CORE_BUCKET_PARAMS_PER_RANK 1e6
#define DEEPSPEED_BUCKET_ELEMENTS 5e8
#define DDP_BUCKET_BYTES (25.0 * 1048576.0)

double dp_bucket_params(const pp_problem *prob, long n, double grad_value_bytes)
{
    switch (prob->training.framework) {
    case PP_FW_MEGATRON_CORE:
        return prob->training.dp_overlap
                   ? fmax(MEGATRON_CORE_MIN_BUCKET_PARAMS, MEGATRON_CORE_BUCKET_PARAMS_PER_RANK * (double)n)
                   : 0.0;
    case PP_FW_DEEPSPEED:
    case PP_FW_DEEPSPEED_2021:
        return DEEPSPEED_BUCKET_ELEMENTS;
    case PP_FW_MEGATRON_2021: /* torch DDP with the overlap, else its local DDP */
        return prob->training.dp_overlap && grad_value_bytes > 0.0 ? DDP_BUCKET_BYTES / grad_value_bytes : 0.0;
    case PP_FW_FSDP:
        return grad_value_bytes > 0.0 ? DDP_BUCKET_BYTES / grad_value_bytes : 0.0;
    default:
        return 0.0;
    }
}

/* When ZeRO-2/3 reduce-scatters gradients under gradient accumulation.
 * DeepSpeed reduces each micro-batch's gradients into the partitioned
 * buffer in its backward hooks (ZeRO Table 1 keeps 2 Psi / d of gradients).
 * Megatron-Core's sharded data parallelism does too: Megatron FSDP's
 * no_sync "for grads shard mode" still syncs (megatron_fsdp.py, Megatron-LM
 * d98e8a64: "there will actually always be gradient sync happening").
 * PyTorch FSDP reduce-scatters after every backward unless gradient sync is
 * off, which its pipeline schedule turns off until the last micro-batch
 * (torch.distributed.pipelining: set_requires_gradient_sync(False), as
 * torchtitan runs it; states.c holds the unsharded gradients meanwhile). */
bool grad_sync_every_microbatch(const pp_problem *prob, const pp_plan *plan)
{
    return prob->training.framework != PP_FW_FSDP || plan->pp == 1;
}

/* The modules selective recomputation repeats (PP_RCM_* bits): the plan's
 * recompute_modules under recompute selective, none otherwise (full
 * recomputation repeats the whole layer; stage.c, memory.c). */
int pp_recompute_modules(const pp_plan *plan)
{
    return plan->recompute == PP_RECOMPUTE_SELECTIVE ? plan->recompute_modules : 0;
}

/* DeepEP's deduplicating dispatch and the all-to-alls' overlap: the plan's
 * decisions, or the problem's training settings of those names, which fix
 * them on (a measured row states how it ran). */
bool pp_moe_deepep(const pp_problem *prob, const pp_plan *plan)
{
    return plan->moe_dispatcher == 1 || prob->training.moe_deepep;
}

bool pp_moe_a2a_overlapped(const pp_problem *prob, const pp_plan *plan)
{
    return plan->moe_a2a_overlap || prob->training.moe_a2a_overlap;
}

/* Whether the SwiGLU's input is kept in fp8 for its backward: the plan's
 * fp8_activation_input_store, or the problem's training setting of that
 * name, which fixes it on; only an fp8-class recipe stores it so. */
bool fp8_act_stored(const pp_problem *prob, const pp_plan *plan)
{
    return (plan->fp8_act_store || prob->training.fp8_act_store) &&
           pp_precision_props(prob->training.precision)->low_gemm;
}
