/*
 * cost_ground.h: the ground floor of the cost model, what every other
 * module may use (docs/architecture.md, "floors inside cost/"):
 *
 *   flops.c       the model: FLOPs and parameters, MoE and MLA included
 *   device.c      the GPU: peak FLOP/s, HBM rate, bytes of a precision's
 *                 GEMM inputs and weights, the SM share of communication
 *   frameworks.c  what each training framework does
 *
 * The modules of a floor call only the floors below theirs, never each
 * other; tests/check_layers.sh checks it on the includes and on the
 * objects.  Only the cost model's own modules include these headers (the
 * public interface is costmodel.h).
 *
 * Conventions: t = tp, p = pp, d = dp, c = cp, b = micro_batch, v =
 * virtual_stages, s = sequence length, h = hidden, a = heads, g = kv_heads,
 * f = ffn_hidden, V = vocab, L = layers.  Activations travel in 16-bit
 * (bf16/fp16) whatever the matrix-multiply precision, as in Megatron-LM and
 * Transformer Engine.  "Per GPU" always means one rank of the busiest stage.
 *
 * Each helper is defined once, in the module named above its declaration,
 * with the comment that explains it.
 */
#ifndef PARPLAN_COST_GROUND_H
#define PARPLAN_COST_GROUND_H

#include "costmodel.h"
#include "names.h"

#define GIB (1024.0 * 1024.0 * 1024.0)
#define ACT_BYTES 2.0        /* bf16/fp16 activations, gradients and weights */

/* --- flops.c (the model) ------------------------------------------------------ */

/* Width of the fused QKV projection, h + 2 h g / a. */
double qkv_width(const pp_model *m);
/* heads x head_dim: the width of the attention core and the output projection's input. */
double attention_width(const pp_model *m);
/* Width of the MLP's input projection, f (2 f when gated). */
double mlp_in_width(const pp_model *m);
/* K x N of a layer's four weight matrices: QKV, projection, MLP in, MLP out. */
void layer_linears(const pp_model *m, double K[4], double N[4]);
/* How many of those carry LoRA adapters (0, 2: QKV and projection, or 4). */
int lora_adapted_linears(const pp_training *t);
/* One GPU's K of adapter i's down-projection and N of its up-projection. */
void lora_adapter_shape(const pp_model *m, int i, double t, double *k_in, double *n_out);
/* Parameters of a layer's attention (the QKV and output projections with
 * biases, or MLA's), MLA's alone, and the attention's forward GEMM FLOPs for
 * `tokens`. */
double attention_params(const pp_model *m);
double mla_attention_params(const pp_model *m);
double attention_gemm_fwd_flops(const pp_model *m, double tokens);
/* MLA's query and key width, d_nope + d_rope. */
double qk_head_dim(const pp_model *m);
/* Parameters of one MLP of width f on h (3 matrices when gated), without
 * biases, and of a MoE layer's router. */
double mlp_params(const pp_model *m, double f);
double router_params(const pp_model *m);

/* --- device.c (the GPU) ------------------------------------------------------- */

/* The GPU's dense peak at a precision, FLOP/s (the 16-bit peak if it has
 * none), and the problem's GPU's. */
double gpu_peak_flops(const pp_gpu *gpu, pp_precision prec);
double peak_flops(const pp_problem *prob, pp_precision prec);
/* The 16-bit precision the GPU has: bf16, else fp16. */
pp_precision half_precision(const pp_problem *prob);
/* Sustained HBM bandwidth, bytes per second, of a GPU and of the problem's. */
double gpu_hbm_Bps(const pp_gpu *gpu);
double hbm_Bps(const pp_problem *prob);
/* Bytes per element of a GEMM input in a precision, and of a linear layer's
 * GEMM input in the training's recipe (1 in fp8, 2 in bf16/fp16; names.h
 * pp_precision_info). */
double precision_input_bytes(pp_precision prec);
double bf16_layer_share(const pp_training *t);
double gemm_input_bytes(const pp_training *t);
/* Bytes a weight is held in: 16 bits, or the recipe's format with fp8_params. */
double weight_bytes(const pp_training *t);
/* Bytes of each of Adam's two moments: 4 (fp32), or 2 with 16-bit
 * training.optimizer_moments_dtype (a zeroed training reads as fp32). */
double adam_moment_bytes(const pp_training *t);

/* --- frameworks.c ------------------------------------------------------------- */

/* Whether fused attention runs (the framework has it and the head dimension allows it). */
bool flash_usable(const pp_problem *prob);
/* Selective recomputation as torchtitan's per-op checkpointing (framework
 * fsdp with fused attention; memory.c pp_op_sac_layer_bytes). */
bool op_sac(const pp_problem *prob, const pp_plan *plan);
/* Whether a ZeRO-2/3 plan reduce-scatters its gradients after every
 * micro-batch (frameworks.c), or once after the last one, holding them
 * unsharded until then. */
bool grad_sync_every_microbatch(const pp_problem *prob, const pp_plan *plan);
/* Parameters per bucket of a framework's once-a-step data-parallel
 * collectives over n replicas (gradients of grad_value_bytes each), 0 for
 * the whole gradient buffer of a model chunk at once (frameworks.c). */
double dp_bucket_params(const pp_problem *prob, long n, double grad_value_bytes);
/* The SwiGLU's input kept in fp8 (the plan's fp8_activation_input_store or
 * the problem's; fp8-class recipes only; memory.c, kernels.c, moe.c). */
bool fp8_act_stored(const pp_problem *prob, const pp_plan *plan);

#endif
