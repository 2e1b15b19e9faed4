/*
 * cost_internal.h: what the modules of the cost model share, and nothing
 * else includes (the public interface is costmodel.h).
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
#ifndef PARPLAN_COST_INTERNAL_H
#define PARPLAN_COST_INTERNAL_H

#include "costmodel.h"
#include "names.h"

#define GIB (1024.0 * 1024.0 * 1024.0)
#define ACT_BYTES 2.0        /* bf16/fp16 activations, gradients and weights */

/* ==== floor 0, the ground: the model, the GPU, the frameworks ================= */

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
double gemm_input_bytes(const pp_training *t);
/* Bytes a weight is held in: 16 bits, or the recipe's format with fp8_params. */
double weight_bytes(const pp_training *t);

/* --- frameworks.c ------------------------------------------------------------- */

/* Whether fused attention runs (the framework has it and the head dimension allows it). */
bool flash_usable(const pp_problem *prob);
/* Selective recomputation as torchtitan's per-op checkpointing (framework
 * fsdp with fused attention; memory.c pp_op_sac_layer_bytes). */
bool op_sac(const pp_problem *prob, const pp_plan *plan);

/* ==== floor 1: the layout ===================================================== */

/* The grid of a checked plan's tensor parallelism (built by grid_of):
 * side q, depth d, and how it divides a layer's token rows and weights on
 * one GPU. */
typedef struct tp_grid {
    pp_tp_mode mode;
    double t, q, d;
    double rows;   /* token rows split: 1 (1D), q (2D), d q (2.5D), q^2 (3D) */
    double wshard; /* weights split: t (1D, 2D, 3D), q^2 (2.5D: replicated over the d layers) */
} tp_grid;

/* Transformer layers on one pipeline stage, L / p. */
int layers_per_stage(const pp_problem *prob, const pp_plan *plan); /* the most layers on any stage */
int layers_on_stage(const pp_problem *prob, const pp_plan *plan, int stage); /* stage 0, a middle one, pp-1 */
/* MoE layers among the layers a pipeline stage holds. */
int moe_layers_on_stage(const pp_problem *prob, const pp_plan *plan, int stage);
/* The cost of a pipeline fill or drain slot from the total of every stage
 * and the slowest. */
double pipeline_bubble_slot_s(const pp_plan *plan, double all_stages_s, double slowest_s);
/* Whether a group of `size` ranks, `stride` apart, spans more than one node. */
bool group_inter_node(const pp_problem *prob, long stride, long size);
/* How many ranks of that group share a node (k of the collectives). */
long ranks_per_node(const pp_problem *prob, long stride, long size);
/* The expert-data-parallel group: n ranks, k of them per node. */
void moe_expert_dp_group(const pp_problem *prob, const pp_plan *plan, long *n, long *k);
/* The grid of a plan: 1D is q = t, d = 1, rows 1, weights split by t. */
tp_grid grid_of(const pp_plan *plan);
/* The share of the vocabulary whose logits one GPU turns into the loss: 1/t
 * (training.loss_parallel) or all of it. */
double pp_loss_vocab_share(const pp_training *t, const pp_plan *plan);
/* Embedding parameters of a stage (the input table on stage 0, the output
 * table or its tied copy on the last), before tensor parallelism. */
double stage_embedding_params(const pp_problem *prob, const pp_plan *plan, int stage);
/* Parameters one GPU of a stage holds before ZeRO partitions them. */
double stage_params(const pp_problem *prob, const pp_plan *plan, int stage);
/* Of them, those that train: all, or with LoRA only the adapters. */
double stage_trainable_params(const pp_problem *prob, const pp_plan *plan, int stage);
/* Routed-expert parameters one GPU of a stage holds (sharded by ep and
 * etp); 0 for a dense model. */
double stage_expert_params(const pp_problem *prob, const pp_plan *plan, int stage);
/* Parameters one GPU of a MoE model's stage holds, experts included. */
double moe_stage_params(const pp_problem *prob, const pp_plan *plan, int stage);
/* The busiest expert's load over the mean (training.moe_load_imbalance, 1.2 unless set). */
double moe_load_imbalance(const pp_problem *prob);

/* ==== floor 2: kernels, collectives, model states ============================== */

/* --- kernels.c ---------------------------------------------------------------- */

/* Roofline time of one (M x K) @ (K x N) matrix multiply. */
double gemm_time_s(const pp_problem *prob, double M, double K, double N);
/* The backward of a linear layer of input M x K and weight K x N: the data
 * gradient's (M x N) @ (N x K) product, plus the weight gradient's
 * (K x M) @ (M x N) unless the weight is frozen. */
double linear_bwd_s(const pp_problem *prob, double M, double K, double N, bool frozen);
/* That multiply as one GPU of grid g runs it (1D: N split by t). */
double grid_gemm_s(const pp_problem *prob, const tp_grid *g, double M, double K, double N);
/* Multi-head latent attention: the query and key/value projections of one
 * layer's forward on one GPU of a 1D tensor group of t (down-projections
 * replicated, up-projections split by t). */
double mla_qkv_gemm_s(const pp_problem *prob, double tokens, double t);

/* The forward kernels of one layer's micro-batch on one GPU (layer_kernels_fwd). */
typedef struct layer_kernels {
    double gemm_fwd_s;    /* the four matrix multiplies of a layer's forward */
    double gemm_bwd_s;    /* and their backward: data gradients, plus weight gradients unless frozen (LoRA) */
    double gemm_even_fwd_s; /* of which the 2nd, 4th, ... a Llama-style layer runs (torchtitan's op SAC) */
    double mlp_fwd_s;     /* of which (and of elem_fwd_s) the dense MLP's: what a MoE layer replaces (1D) */
    double mlp_bwd_s;     /* and the dense MLP's share of the backward */
    double attn_fwd_s;    /* attention core forward (incl. its softmax traffic) */
    double attn_bwd_s;    /* and its backward */
    double elem_fwd_s;    /* the rest of the forward's element-wise work */
    double cast_fwd_s;    /* low-precision recipes: casting the four GEMMs' inputs */
    double cast_bwd_s;    /* and their output gradients in backward */
    double lora_fwd_s;    /* LoRA adapters' matrix multiplies and the add of their output */
} layer_kernels;
void layer_kernels_fwd(const pp_problem *prob, const pp_plan *plan, layer_kernels *k);

/* --- collectives.c ------------------------------------------------------------ */

/* Fraction of the buffer one rank sends in a ring collective of n ranks. */
double ring_factor(pp_collective kind, long n);
/* The codec dimension `dim` of the plan uses on a message of `bytes`, or
 * NULL (no codec, or the message is under the threshold). */
const pp_codec *codec_for(const pp_problem *prob, const pp_plan *plan, pp_dim dim, double bytes);
/* Compression plus decompression seconds of raw_bytes on the problem's GPU
 * (0 without codec). */
double codec_time_s(const pp_problem *prob, const pp_codec *codec, double raw_bytes, double value_bits);
/* Bytes of a collective's buffer the codec processes (ring chunks, or the
 * buffer once for a cast). */
double codec_bytes(const pp_codec *codec, pp_collective kind, double bytes, long n);
/* Codec seconds a transfer of wire_s adds when MVAPICH pipelines codec_s
 * over chunks of raw_bytes (casts: all of codec_s). */
double codec_exposed_s(const pp_problem *prob, const pp_codec *codec, double wire_s, double codec_s,
                       double raw_bytes);
/* Add `count` collectives of `bytes`, each issued as `pieces` pieces, with
 * the plan's codec of `dim`, to acc: wire and codec time, bytes per link. */
void compressed_collective(const pp_problem *prob, const pp_plan *plan, pp_dim dim,
                           pp_collective kind, double bytes, double value_bits, long n, long k,
                           pp_comm_term *acc, double count, double pieces);

/* states.c: pp_model_state_bytes, pp_state_bytes_per_param, pp_mem_states_gib (costmodel.h). */

/* ==== floor 3: the terms ====================================================== */

/* --- stage.c ------------------------------------------------------------------ */

/* One layer's compute of one micro-batch on one GPU, and the logits'. */
typedef struct stage_layer {
    layer_kernels k;          /* its kernels (cp.c reads the attention's, a MoE layer the MLP's) */
    double layer_fwd_s;       /* a layer's forward */
    double layer_bwd_s;       /* its backward, without recomputation */
    double recompute_s;       /* what recomputation repeats of its forward */
    bool recompute_attention; /* the recomputation repeats the attention core (and its cp exchange) */
    double logits_fwd_s, logits_bwd_s; /* the output layer and the loss, on the last stage */
} stage_layer;
void stage_layer_eval(const pp_problem *prob, const pp_plan *plan, stage_layer *out);

/* --- cp.c --------------------------------------------------------------------- */

/* The context-parallel exchange of one layer's K and V that its attention
 * core does not hide: forward (*f) and backward (*b) seconds. */
void cp_exchange_exposed(const pp_problem *prob, const pp_plan *plan, const layer_kernels *k, double *f,
                         double *b);

/* --- moe.c (ep) --------------------------------------------------------------- */

/* One MoE block on one GPU: its forward's compute and one pass's all-to-alls. */
typedef struct moe_block {
    double fwd_s;       /* compute of the MoE block's forward */
    double comm_s;      /* all-to-alls and expert-TP collectives of one pass */
    double bytes_nvlink, bytes_network; /* of one pass */
} moe_block;
void moe_block_eval(const pp_problem *prob, const pp_plan *plan, moe_block *b);

/* tp.c, pipeline.c, dp.c, memory.c: their terms are public (costmodel.h). */

/* ==== floor 4: step.c composes ================================================== */

#endif
