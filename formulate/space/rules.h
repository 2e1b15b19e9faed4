/*
 * rules.h: the hard rules a plan must obey before it can be priced.
 *
 * One table of rules, walked by `eval` (to reject an invalid plan with the
 * rule it breaks; a fixed plan's TP may leave a node, pp_fixed_plan_check),
 * by the enumerator and by the MIP builder's space generator
 * (to skip plans that break a rule), so the three agree on what a valid plan
 * is.  Each rule has a name that the report and row names use.
 */
#ifndef PARPLAN_RULES_H
#define PARPLAN_RULES_H

#include "types.h"

/* 0 if the plan obeys every rule; else PP_EINPUT with a message naming the
 * rule and the numbers that break it (path "plan: $.field"). */
int pp_plan_check(const pp_problem *prob, const pp_plan *plan, pp_error *err);

/* The rules the divisibility family's report tells apart (cons_divisibility.c
 * names the rule a cut plan breaks by this id); every other rule is
 * PP_RULE_OTHER, and its message names it. */
typedef enum pp_rule {
    PP_RULE_NONE = 0,                 /* the plan obeys every rule */
    PP_RULE_TP_SPLIT,                 /* tp divides heads, kv_heads and ffn_hidden */
    PP_RULE_TP_NODE,                  /* tp divides the GPUs of a node */
    PP_RULE_CHUNKS,                   /* pp x virtual_stages divides the layers (or layers + 2) */
    PP_RULE_STAGES,                   /* the pp stages hold the layers */
    PP_RULE_INTERLEAVE_PP,            /* interleaving needs pp >= 2 */
    PP_RULE_CP_SEQUENCE,              /* 2 cp divides the sequence */
    PP_RULE_BATCH,                    /* dp x micro_batch divides the global batch */
    PP_RULE_INTERLEAVE_MICROBATCHES,  /* interleaving: micro-batches in groups of pp to m (pp_vp_microbatch_group) */
    PP_RULE_FRAMEWORK,                /* the framework runs every value of the plan (pp_plan_runnable) */
    PP_RULE_OTHER
} pp_rule;

/* As pp_plan_check, returning the first rule the plan breaks (PP_RULE_NONE
 * if it breaks none), with its message in *err. */
pp_rule pp_plan_broken_rule(const pp_problem *prob, const pp_plan *plan, pp_error *err);

/* A fixed plan (`eval`, a training log, a measured row) is priced wherever
 * its tensor-parallel groups sit and whatever its framework runs: the
 * placement rule (tp inside a node unless constraints.allow_tp_across_nodes)
 * and the framework's rule (data/frameworks.json) bound what the planner
 * searches, not what a plan costs, as memory bounds what it chooses and
 * eval still prices a plan that does not fit.  Every other rule holds as in
 * pp_plan_check. */
int pp_fixed_plan_check(const pp_problem *prob, const pp_plan *plan, pp_error *err);

/* Whether the plan's tensor-parallel groups span nodes (tp above, or not
 * dividing, the GPUs of a node); _leaves_node: and the problem does not
 * allow it (constraints.allow_tp_across_nodes). */
bool pp_plan_tp_spans_nodes(const pp_problem *prob, const pp_plan *plan);
bool pp_plan_tp_leaves_node(const pp_problem *prob, const pp_plan *plan);

/* What the problem's framework runs (training.framework, its row of
 * data/frameworks.json copied into prob->fw): value v of decision id (a
 * codec by its index, and only through MVAPICH2-GDR where the data says so);
 * ZeRO stage zero with a pipeline of pp stages.  A problem built without
 * the catalog (fw.known false) runs every value but FSDP's missing ZeRO-1. */
bool pp_framework_runs(const pp_problem *prob, pp_decision_id id, int v);
bool pp_framework_runs_zero(const pp_problem *prob, int zero, int pp);

/* Whether the framework runs every decision value of the plan; if not, why
 * ("it has no codec 'int8ef' on dp traffic (it runs none, bf16)") in why. */
bool pp_plan_runnable(const pp_problem *prob, const pp_plan *plan, char *why, size_t cap);

/* "Megatron-Core (0.20.0 ...)": the framework and the version its data
 * describes (its id when the problem has no data). */
const char *pp_framework_label(const pp_problem *prob, char *buf, size_t cap);

/* Whether a codec adds more relative error to dimension d's traffic than
 * the problem tolerates (the accuracy rule; cons_accuracy.c's rows say the
 * same). */
bool pp_codec_too_lossy(const pp_problem *prob, int codec, pp_dim d);

/* Whether a params codec fits a ZeRO stage (rule_params_codec: with ZeRO-0
 * there are no parameter gathers to compress); the space pairs the two
 * options by it. */
bool pp_params_codec_fits(int zero, int params_codec);

/* TP overlap's rule (rule_tp_overlap) in the three parts the space
 * applies where each is known: whether the problem offers it at all (the
 * framework has it, the model is dense), whether a shape can take it (1d
 * TP, tp >= 2, inside a node of gpus_per_node GPUs), and whether the other
 * options of a plan allow it (sequence parallelism on, TP uncompressed). */
bool pp_tp_overlap_offered(const pp_problem *prob);
bool pp_tp_overlap_fits_shape(const pp_plan *plan, int gpus_per_node);
bool pp_tp_overlap_fits_options(int sequence_parallel, int tp_codec);

/* Recompute modules' and fp8 activation storage's rule
 * (rule_recompute_modules) in the parts the space applies: whether the
 * problem offers a set of modules (PP_RCM_* bits: Megatron-Core runs them;
 * mla_up_proj needs MLA, moe_act a MoE model; layernorm and moe_act refuse
 * fp8 delayed scaling), whether a recompute choice takes a set other than
 * the default (selective only), and whether the problem offers the fp8
 * store (a SwiGLU MLP in an fp8-class recipe under Megatron-Core). */
bool pp_recompute_modules_offered(const pp_problem *prob, int modules);
bool pp_recompute_modules_fit(int recompute, int modules);
/* The all-to-all overlap beside the recomputation (Megatron-Core runs
 * --overlap-moe-expert-parallel-comm without full recomputation and
 * without the moe module): whether overlap `a2a_overlap` fits them. */
bool pp_moe_overlap_fits_recompute(int a2a_overlap, int recompute, int modules);
bool pp_fp8_act_store_offered(const pp_problem *prob);
/* Whether the space offers value `value` of option `id` at all: the
 * framework runs it (pp_framework_runs) and no option rule of rules.c that
 * reads only the problem refuses it (the all-gather CP exchange takes no
 * packed sequences).  A new such rule is a line of OPTION_RULES. */
bool pp_option_offered(const pp_problem *prob, pp_decision_id id, int value);
/* Whether DP codec `codec` is a 16-bit cast of gradients the training
 * reduces in 16 bits already: the plan without it (pp_plan_grad_reduce),
 * which the space offers as "none" instead. */
bool pp_dp_cast_is_noop(const pp_problem *prob, int codec);
/* The MoE dispatcher's deepep and the all-to-all overlap (id
 * PP_DEC_MOE_DISPATCHER or PP_DEC_MOE_A2A_OVERLAP): offered for a MoE
 * model whose framework runs it (DeepEP: on NVIDIA Hopper or newer), and
 * valid in a shape with ep > 1 (the overlap, with a pipeline, interleaved). */
bool pp_moe_comm_offered(const pp_problem *prob, pp_decision_id id);
bool pp_moe_comm_fits_shape(const pp_plan *plan, pp_decision_id id);
/* Whether the all-to-all context-parallel exchange (cp_comm a2a) splits a
 * shape's heads: each of its tp ranks' query heads and key/value heads
 * (kv_heads: the model's, or its heads under latent attention) divide by
 * cp.  The plan rule refuses an a2a plan that breaks it, and the space
 * offers such a shape the other exchanges only. */
bool pp_cp_a2a_splits_heads(long heads, long kv_heads, long tp, long cp);
long pp_cp_a2a_kv_heads(const pp_model *m);
/* A plan read for eval takes the problem's training.moe_dispatcher "deepep"
 * and moe_a2a_overlap true where it can run them: they are priced on
 * anyway (pp_moe_deepep), and the plan then says so. */
void pp_plan_take_moe_settings(const pp_problem *prob, pp_plan *plan);

#endif
