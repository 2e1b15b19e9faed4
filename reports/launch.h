/*
 * launch.h: how to run a plan with the frameworks people use.
 *
 * Every framework flag parplan writes is written here: the Megatron-LM
 * command-line flags, the DeepSpeed configuration, the PyTorch FSDP2 /
 * torchtitan configuration and the MVAPICH-Plus compression settings.  The Markdown report prints them as its "How to run
 * it" section; the result JSON carries the same values under how_to_run.
 */
#ifndef PARPLAN_LAUNCH_H
#define PARPLAN_LAUNCH_H

#include "planner.h"
#include "strbuf.h"
#include "types.h"

/* The plan as Megatron-LM command-line flags, one group of related flags
 * per entry ("--tensor-model-parallel-size 4"); returns how many. */
#define PP_MAX_FLAG_LINES 32
int pp_megatron_flags(const pp_problem *prob, const pp_plan *plan, char lines[][160], int max);

/* The DeepSpeed configuration of a plan (its JSON keys). */
typedef struct pp_deepspeed {
    long train_batch_size;
    int micro_batch_per_gpu;
    int gradient_accumulation_steps;
    const char *precision_key; /* "bf16" or "fp16" */
    int zero_stage;
    bool overlap_comm;
} pp_deepspeed;

void pp_deepspeed_config(const pp_problem *prob, const pp_plan *plan, int microbatches, pp_deepspeed *out);

/* The PyTorch FSDP2 / torchtitan configuration of a plan (its TOML keys):
 * HSDP's replicate and shard degrees from dp and the ZeRO stage. */
typedef struct pp_torchtitan {
    long replicate, shard;
    const char *reshard_after_forward; /* "always" (FULL_SHARD) or "never" (SHARD_GRAD_OP) */
    int tp, cp, pp;
    const char *schedule; /* NULL without pipeline parallelism */
    long local_batch_size, global_batch_size;
    int microbatch_size, seq_len;
    const char *ac_mode; /* activation checkpointing: none, selective, full */
    bool async_tp;       /* enable_async_tensor_parallel (needs torch.compile) */
    bool compile;        /* [compile] enable: fused element-wise kernels (training.fused_elementwise) */
    bool exact;          /* torchtitan runs the plan as priced */
} pp_torchtitan;

void pp_torchtitan_config(const pp_problem *prob, const pp_plan *plan, pp_torchtitan *out);

/* The report's "How to run it" section: Megatron-LM, DeepSpeed, compression. */
void pp_md_how_to_run(pp_strbuf *sb, const pp_problem *prob, const pp_plan_result *res);

#endif
