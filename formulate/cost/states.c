/*
 * states.c: the model states one GPU of a stage holds, its weights,
 * gradients and optimizer state under ZeRO (docs/cost-model.md §6).
 *
 * ZeRO Table 1 (Rajbhandari et al. 2020): 2 bytes of weights, 2 of
 * gradients and 12 of mixed-precision Adam state per parameter, partitioned
 * over the d replicas from ZeRO-3, -2 and -1 on:
 *
 *   weights 2 Psi / (d if zero >= 3),  gradients 2 Psi / (d if zero >= 2),
 *   optimizer 12 Psi / (d if zero >= 1)
 *
 * Megatron-Core and FSDP keep fp32 main gradients (4 bytes) in bf16, and
 * the replicas that share the shards are dp x cp (pp_replica_ranks); a MoE
 * model's experts shard over expert data parallelism; LoRA trains only the
 * adapters; FSDP holds gathered parameters beside their shards.  Both the
 * memory term (memory.c) and the data-parallel term's gradient
 * accumulation (dp.c) read them.
 */
#include "cost_kernels.h"

#define ADAM_STATE_BYTES 12.0 /* fp32 master weights, momentum, variance: K = 12 (ZeRO, Rajbhandari 2020) */

void pp_model_state_bytes(double psi, int zero, double d, double *weights, double *grads, double *optim)
{
    /* Mixed-precision Adam, ZeRO Table 1: 2 + 2 + 12 bytes per parameter,
     * partitioned over the d data-parallel ranks by stage. */
    *weights = ACT_BYTES * psi / (zero >= 3 ? d : 1.0);
    *grads = ACT_BYTES * psi / (zero >= 2 ? d : 1.0);
    *optim = ADAM_STATE_BYTES * psi / (zero >= 1 ? d : 1.0);
}

/* Bytes per parameter with the gradients held in `held` bytes. */
static void state_bytes(const pp_training *t, int held, double *weights, double *grads, double *optim)
{
    *weights = weight_bytes(t);
    /* the fp32 master weight and Adam's two moments, each in its type
     * (training.optimizer_moments_dtype: 4 + 2 x 2 with 16-bit moments) */
    *optim = ADAM_STATE_BYTES - 2.0 * (4.0 - adam_moment_bytes(t));
    *grads = held;
    if (t->framework == PP_FW_DEEPSPEED || t->framework == PP_FW_DEEPSPEED_2021)
        return; /* ZeRO Table 1 */
    /* Megatron-Core's distributed optimizer documentation ("Distributed
     * Optimizer", bytes per parameter: bf16 params with fp32 grads 6 + 12/d,
     * fp16 params and grads 4 + 16/d); PyTorch FSDP with a bf16 compute
     * dtype keeps fp32 sharded parameters and gradients.  16-bit gradients
     * are copied to fp32 for the optimizer, shard by shard (Megatron's
     * fp16 optimizer; Aleph Alpha Scaling's float_parameter_partition_owned
     * grad under ZeRO): 4 bytes more of optimizer state. */
    if (held < 4)
        *optim += 4.0;
}

/* The bytes a gradient is held in between micro-batches: training.grad_accum_dtype,
 * or without one the framework's type for the type it reduces in (its
 * default, or the plan's where a 16-bit DP cast makes the reduction bf16,
 * pp_plan_grad_reduce: Megatron-Core's --grad-reduce-in-bf16 makes its one
 * gradient buffer bf16, FSDP2 accumulates in its reduce dtype, DeepSpeed
 * holds 16 bits either way), unless the problem states the held type. */
static int grad_held_bytes(const pp_training *t, pp_precision plan_reduce)
{
    bool cast = t->grad_reduce_dtype == PP_PREC_FP32 && plan_reduce != PP_PREC_FP32;
    if (t->grad_accum_bytes && (!cast || t->grad_accum_given))
        return t->grad_accum_bytes;
    pp_precision reduce = cast ? plan_reduce : pp_framework_grad_reduce(t->framework, t->precision);
    return pp_framework_grad_accum(t->framework, t->precision, reduce) == PP_PREC_FP32 ? 4 : 2;
}

void pp_state_bytes_per_param(const pp_training *t, double *weights, double *grads, double *optim)
{
    state_bytes(t, grad_held_bytes(t, t->grad_reduce_dtype), weights, grads, optim);
}

int pp_plan_grad_held_bytes(const pp_problem *prob, const pp_plan *plan)
{
    return grad_held_bytes(&prob->training, pp_plan_grad_reduce(prob, plan));
}

void pp_stage_holding_of(const pp_problem *prob, const pp_plan *plan, int stage, pp_stage_holding *out)
{
    out->params = stage_params(prob, plan, stage);
    out->expert_params = pp_model_is_moe(&prob->model) ? stage_expert_params(prob, plan, stage) : 0.0;
    out->trained = prob->training.lora_rank > 0 ? stage_trainable_params(prob, plan, stage) : out->params;
}

void pp_mem_states_gib(const pp_problem *prob, const pp_plan *plan, int stage, double *weights,
                       double *grads, double *optim)
{
    pp_stage_holding held;
    pp_stage_holding_of(prob, plan, stage, &held);
    pp_mem_states_held_gib(prob, plan, stage, &held, weights, grads, optim);
}

void pp_mem_states_held_gib(const pp_problem *prob, const pp_plan *plan, int stage, const pp_stage_holding *held,
                            double *weights, double *grads, double *optim)
{
    double psi = held->params, d = (double)pp_replica_ranks(plan);
    double w, g, o;
    state_bytes(&prob->training, pp_plan_grad_held_bytes(prob, plan), &w, &g, &o);
    int z = plan->zero;
    *weights = w * psi / (z >= 3 ? d : 1.0) / GIB;
    *grads = g * psi / (z >= 2 ? d : 1.0) / GIB;
    *optim = o * psi / (z >= 1 ? d : 1.0) / GIB;
    double pe = held->expert_params;
    if (pe > 0.0) { /* MoE: the experts shard over expert data parallelism */
        double de = (double)pp_expert_replica_ranks(plan);
        *weights = (w * (psi - pe) / (z >= 3 ? d : 1.0) + w * pe / (z >= 3 ? de : 1.0)) / GIB;
        *grads = (g * (psi - pe) / (z >= 2 ? d : 1.0) + g * pe / (z >= 2 ? de : 1.0)) / GIB;
        *optim = (o * (psi - pe) / (z >= 1 ? d : 1.0) + o * pe / (z >= 1 ? de : 1.0)) / GIB;
    }
    /* LoRA: the frozen weights are held (in 16 bits, or fp8) with no gradient, fp32
     * master copy or Adam moments; only the adapters have them (Hu et al.
     * 2021 section 4.2: GPT-3 175B's training memory 1.2 TB -> 350 GB). */
    double trained = held->trained;
    if (prob->training.lora_rank > 0) {
        *grads = g * trained / (z >= 2 ? d : 1.0) / GIB;
        *optim = o * trained / (z >= 1 ? d : 1.0) / GIB;
    }
    /* FSDP2 under a pipeline schedule (PyTorch's torch.distributed.pipelining,
     * as torchtitan runs it): the stage neither reshards its parameters after
     * backward nor reduce-scatters its gradients before the last micro-batch
     * (set_reshard_after_backward / set_requires_gradient_sync off until
     * then), so a step holds the stage's gathered 16-bit parameters and its
     * unsharded gradients next to the shards, accumulated in the reduce
     * type (FSDPParam.to_accumulated_grad_if_needed upcasts them to
     * MixedPrecisionPolicy.reduce_dtype: fp32 as torchtitan runs it). */
    /* FSDP without a pipeline: the root unit (embeddings, final norm,
     * output layer) stays gathered from its forward to its backward (FSDP1
     * and FSDP2 never reshard the root after forward: its backward follows
     * at once; fully_shard's reshard_after_forward defaults to False for the
     * root), and torchtitan keeps the last block gathered too
     * (reshard_after_forward false for the last layer, parallelize_llama.py
     * apply_fsdp): at the loss's peak both are held in 16 bits beside their
     * shards. */
    if (prob->training.framework == PP_FW_FSDP && plan->pp == 1 && z >= 3 && d > 1.0) {
        const pp_model *m = &prob->model;
        double last = pp_model_is_moe(m) ? 0.0 : pp_layer_params(m);
        double root = (stage_embedding_params(prob, plan, stage) + last) / grid_of(plan).wshard;
        *weights += ACT_BYTES * root * (1.0 - 1.0 / d) / GIB;
    }
    if (prob->training.framework == PP_FW_FSDP && plan->pp > 1 && z >= 3 && d > 1.0)
        *weights += ACT_BYTES * psi * (1.0 - 1.0 / d) / GIB;
    /* A framework that reduce-scatters once, after the last micro-batch
     * (grad_sync_every_microbatch: FSDP under a pipeline), accumulates the
     * unsharded gradients in the reduce type until then. */
    if (z >= 2 && d > 1.0 && !grad_sync_every_microbatch(prob, plan))
        *grads += (pp_plan_grad_reduce(prob, plan) == PP_PREC_FP32 ? 4.0 : ACT_BYTES) * trained / GIB;
}
