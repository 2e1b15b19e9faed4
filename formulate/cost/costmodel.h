/*
 * costmodel.h: the training-step cost model, parplan's single source of truth.
 *
 * Given a problem and a plan it predicts the wall time of one optimizer step,
 * split into computation, communication, overlap, pipeline bubble, compression
 * and optimizer, and the memory of the most loaded GPU.  Pure functions over
 * plain structs: no I/O, no allocation, no GLPK.
 *
 * The model is a sum of TERMS, each depending on a small subset of the
 * decisions (its "family").  step.c composes them once, as the form of a
 * step (pp_step_form, below): the evaluator evaluates it, and the MIP
 * builder takes the form of every joint choice of a family and writes it as
 * coefficient x column, so the MIP optimum is the best plan under this
 * model.  A term function reads only the plan fields its family lists.
 *
 *   shape S = (tp, pp, dp, cp, micro_batch, virtual_stages, tp_mode, tp_depth)
 *
 *   stage(S, recompute, sp)      per-micro-batch compute of the busiest stage
 *                                (+ exposed context-parallel exchange); the
 *                                matrix multiplies split as tp_mode does
 *   tp_comm(S, recompute, c_tp)  per-micro-batch tensor-parallel collectives
 *                                (1D all-reduces, or the 2D/2.5D/3D grid's)
 *   pp_comm(S, c_pp)             per-micro-batch pipeline sends
 *   dp_comm(S, zero, c_dp, c_params)
 *                                data-parallel traffic (and 2.5D's depth
 *                                all-reduce): the once-per-step part
 *                                (overlaps the last backward) and the
 *                                per-micro-batch part (ZeRO-2/3; overlaps all
 *                                compute)
 *   optimizer(S, zero)           the Adam step, memory-bound
 *   mem_states(S, zero)          weights, gradients, optimizer states
 *   mem_activations(S, recompute, sp)
 *
 *   T_mb   = stage.total + tp_comm.total + pp_comm.total
 *   step   = (m + (p-1)/v) T_mb                                (1F1B / interleaved)
 *          + max(0, dp.once_wire - stage.bwd_window)           (pair 1)
 *          + max(0, dp.per_mb_wire * m - stage.compute * m)    (pair 2)
 *          + max(0, dp.gather_wire - stage.fwd_window)         (pair 3)
 *          + f x the hidden DP wire time + dp.codec + optimizer
 *          + the busiest link's wait
 *   where m = global_batch / (dp micro_batch) micro-batches per pipeline
 *   (step.c gives the exact sum).
 *
 * The derivation and citation of every term is in docs/cost-model.md.
 *
 * The model lives in formulate/cost/, one module a concept, on floors: each
 * module uses only the floors below its own (tests/check_layers.sh), and
 * step.c composes them once:
 *
 *   4  step.c         the stage term (a layer's compute, cp and ep over the
 *                     stages) and the step: its form (pp_step_form), which
 *                     pp_step_time_s, pp_evaluate and the MIP read
 *   3  stage.c        a layer's and the logits' compute of one micro-batch
 *      cp.c           the context-parallel exchange
 *      moe.c          expert parallelism: a MoE block and its all-to-alls
 *      tp.c           the tensor-parallel term (1D and the 2D/2.5D/3D grids)
 *      pipeline.c     the pipeline sends term
 *      dp.c           the data-parallel term under ZeRO, its overlap windows,
 *                     the optimizer term
 *      memory.c       activations, the most loaded GPU
 *   2  kernels.c      matrix-multiply roofline, attention, element-wise work
 *      collectives.c  alpha-beta rings and trees, pipelined across nodes,
 *                     point-to-point, all-to-all, bytes per link, codecs
 *      states.c       weights, gradients and optimizer states under ZeRO
 *   1  layout.c       stage layers, micro-batches, ranks per node, replica
 *                     groups, the TP grid, the parameters a stage's GPU holds
 *   0  flops.c        the model: FLOP and parameter counts, MoE and MLA
 *      device.c       the GPU: peak, HBM rate, bytes per element, SM share
 *      frameworks.c   what each framework does
 *
 * cost_ground.h, cost_layout.h, cost_kernels.h and cost_terms.h declare what
 * the floors share, each including the one below; nothing else includes them.
 */
#ifndef PARPLAN_COSTMODEL_H
#define PARPLAN_COSTMODEL_H

#include "types.h"

/* --- the frameworks (frameworks.c) and the GPU (device.c) ------------------ */

/* Set flash_attention, dp_overlap and param_collectives_per_layer to what
 * the framework does (docs/cost-model.md §5). */
void pp_framework_features(pp_framework fw, pp_training *t);
const char *pp_framework_name(pp_framework fw);
/* Whether a framework offers a ZeRO stage: PyTorch FSDP has none like
 * ZeRO-1 (NO_SHARD is stage 0, SHARD_GRAD_OP 2, FULL_SHARD 3). */
bool pp_framework_has_zero(pp_framework fw, int zero);
/* The type a framework reduces data-parallel gradients in by default for a
 * training precision (training.grad_reduce_dtype's default). */
pp_precision pp_framework_grad_reduce(pp_framework fw, pp_precision training);
/* Whether a plan dispatches its tokens with DeepEP, and hides its expert
 * all-to-alls behind another micro-batch: the plan's moe_dispatcher and
 * moe_a2a_overlap, or the problem's training settings, which fix them on. */
bool pp_moe_deepep(const pp_problem *prob, const pp_plan *plan);
bool pp_moe_a2a_overlapped(const pp_problem *prob, const pp_plan *plan);

/* The type a framework holds and sums gradients in between micro-batches
 * by default (training.grad_accum_dtype's default), given the type it
 * reduces them in: that type for Megatron and FSDP (fp32 in bf16 or fp8
 * training by default), the 16-bit type for DeepSpeed. */
pp_precision pp_framework_grad_accum(pp_framework fw, pp_precision training, pp_precision reduce);
/* Whether a plan's data-parallel codec is a cast to 16 bits a value (bf16),
 * and the type the plan reduces its gradients in: the training's
 * (training.grad_reduce_dtype), or 16 bits under such a cast, which every
 * framework runs as its reduction type, not as a kernel before the
 * collective (frameworks.c).  The gradients are held in it between
 * micro-batches too unless the problem states training.grad_accum_dtype
 * (states.c). */
bool pp_plan_dp_cast16(const pp_problem *prob, const pp_plan *plan);
pp_precision pp_plan_grad_reduce(const pp_problem *prob, const pp_plan *plan);
/* The share of a GPU's SMs communication kernels take while they overlap
 * computation (device.c): hidden traffic slows the compute by this share. */
double pp_comm_sm_share(const pp_problem *prob);

/* --- one matrix multiply (kernels.c) -------------------------------------- */

/* The share of a per-tensor-scaled GEMM's throughput a precision's GEMMs
 * reach on the GPU: below 1 for a block-scaled recipe on tensor cores
 * without block scales (fp8-block on Hopper, names.h unscaled_core_rate),
 * else 1. */
double pp_gemm_core_rate(const pp_gpu *gpu, pp_precision prec);
/* The fused attention kernel the problem runs (its framework's, or the one
 * training.attention_kernel names; FlashAttention-3 class on Hopper only)
 * and its long-sequence forward rate as a fraction of the 16-bit peak, in
 * FlashAttention's FLOP count (kernels.c; docs/cost-model.md §2). */
pp_attention_kernel pp_attention_kernel_of(const pp_problem *prob, double *rate);

/* Seconds for `batch` independent (m x k) @ (k x n) products in one kernel
 * on gpu in precision prec: the roofline of their FLOPs at peak x eff.gemm x
 * the shape's efficiency (wave quantization on sm_count SMs, K / (K +
 * eff.gemm_k_overhead), eff.gemm_misaligned when K or N is not a multiple of
 * 8, 16 in fp8) against their operand bytes at HBM x eff.hbm, plus
 * eff.kernel_us, in the fastest split of K (split-K, kernels.c).  Every
 * matrix multiply the model prices is this formula; the GEMM-sweep
 * calibration fits it. */
double pp_gemm_time_s(const pp_gpu *gpu, pp_precision prec, double m, double n, double k, double batch);

/* The same GEMM's terms, for a calibration to show where a shape loses. */
typedef struct pp_gemm_terms {
    int split_k;        /* slices of K the fastest configuration cuts (1: no split-K) */
    double k_share;     /* K/split / (K/split + eff.gemm_k_overhead) */
    double tile_share;  /* m n / (padded m x padded n): the useful part of the output's tiles */
    double wave_share;  /* split x tiles / (waves x SMs), 1 if the SM count is unknown */
    double align_share; /* eff.gemm_misaligned if K or N is misaligned, else 1 */
    double flops_s;     /* 2 batch m n k / (peak x eff.gemm x the four shares) */
    double bytes_s;     /* operand traffic (fp32 partial sums with split-K) / (HBM x eff.hbm) */
    double launch_s;    /* eff.kernel_us */
    double reduce_s;    /* split-K's reduction kernel: partial sums read, output written, a launch */
    double time_s;      /* max(flops_s, bytes_s) + launch_s + reduce_s = pp_gemm_time_s */
} pp_gemm_terms;
void pp_gemm_terms_of(const pp_gpu *gpu, pp_precision prec, double m, double n, double k, double batch,
                      pp_gemm_terms *t);

/* --- FLOP counts (Megatron-LM's counting; see docs/cost-model.md §1) ------ */

/* Forward FLOPs of one transformer layer for `tokens` tokens of sequence
 * length seq (whole layer, not split by any parallelism). */
double pp_layer_fwd_flops(const pp_model *m, double tokens, double seq);
/* Forward FLOPs of the attention core alone (QK^T and scores·V). */
double pp_attention_core_fwd_flops(const pp_model *m, double tokens, double seq);
/* Forward FLOPs of the logits (output embedding) for `tokens` tokens. */
double pp_logits_fwd_flops(const pp_model *m, double tokens);
/* Model FLOPs of one step, forward and backward, no recomputation
 * (Megatron-LM's num_floating_point_operations). */
double pp_model_flops_per_step(const pp_model *m, double global_batch);
/* Hardware FLOPs of one step: model FLOPs plus what recomputation adds. */
double pp_hardware_flops_per_step(const pp_model *m, double global_batch, pp_recompute r);
/* What recomputation adds to a step: a forward of the layers (full) or of
 * the attention core (selective). */
double pp_recompute_flops_per_step(const pp_model *m, double global_batch, pp_recompute r);
/* FLOPs of one step as the training runs it: the model FLOPs, less the
 * frozen weights' gradients when only LoRA adapters train (training.lora_rank). */
double pp_training_flops_per_step(const pp_model *m, const pp_training *t, double global_batch);
/* Multi-token prediction (training.mtp_layers; docs/cost-model.md §9): one
 * module's own parameters beside its transformer layer (the 2h x h
 * projection and its three norms), and the forward FLOPs of `mtp` modules
 * for `tokens` tokens of sequence length seq: the layer of the model's last
 * kind, the projection and a second pass through the output head. */
double pp_mtp_head_params(const pp_model *m);
double pp_mtp_fwd_flops(const pp_model *m, int mtp, double tokens, double seq);
/* The MTP modules a problem trains (training.mtp_layers; 0 without), on
 * the last pipeline stage (layout.c). */
int pp_mtp_layers(const pp_problem *prob);
/* The keys each query of the attention core sees, full square counted:
 * the sequence, or with packed samples their token-weighted mean length
 * (training.packed_sample_tokens): sum s_i^2 = seq x that length. */
double pp_attention_span(const pp_model *m, const pp_training *t);
/* Sliding-window attention (docs/cost-model.md §2, attention core): how many of the
 * model's layers attend within the window (0 without one, or where the
 * window covers the span: they attend as the full layers do), and the
 * mean keys one query of a causal layer attends to over a span of tokens,
 * window tokens (itself and those before it) or the causal prefix when
 * the window is at least the span: window (1 - window / (2 span)), span / 2. */
int pp_windowed_layers(const pp_model *m, double span);
double pp_window_keys(double window, double span);
/* Parameters of one layer's LoRA adapters on one GPU of tp-way tensor
 * parallelism (0 without LoRA). */
double pp_lora_layer_params(const pp_model *m, const pp_training *t, double tp);
/* Parameters of one transformer layer, and of the embedding table. */
double pp_layer_params(const pp_model *m);
double pp_embedding_params(const pp_model *m);
double pp_model_params(const pp_model *m);

/* --- Mixture of experts and latent attention (flops.c, layout.c; §9) ------- */

/* Whether layer i (0-based) of the model is a MoE layer. */
bool pp_layer_is_moe(const pp_model *m, int i);
/* Its MoE layers among layers first .. first + n - 1 (those past the model
 * not counted), in constant time: what a stage's MoE layers are summed
 * from, for every candidate of every shape (layout.c). */
int pp_moe_layers_in(const pp_model *m, long first, long n);
/* MoE layers of the whole model. */
int pp_moe_layers(const pp_model *m);
/* Parameters of layer i: all of them, and (if expert is not NULL) those of
 * its routed experts. */
double pp_layer_params_at(const pp_model *m, int i, double *expert);
/* Parameters one token runs through (the embedding, every attention, the
 * dense MLPs, and of each MoE layer the router, the top-k routed and the
 * shared experts); pp_model_params for a dense model. */
double pp_model_active_params(const pp_model *m);
/* Forward FLOPs of all the transformer layers for `tokens` tokens (top-k
 * routed experts, not all of them). */
double pp_layers_fwd_flops(const pp_model *m, double tokens, double seq);
/* The expert-data-parallel ranks that share an expert's gradients and
 * optimizer shards: tp dp cp / (etp ep) (Megatron-Core). */
long pp_expert_replica_ranks(const pp_plan *plan);

/* --- collectives (alpha-beta, docs/cost-model.md §3) ----------------------- */

typedef enum { PP_COLL_ALLREDUCE, PP_COLL_ALLGATHER, PP_COLL_REDUCESCATTER } pp_collective;

/* Time of one collective of `bytes` (the full buffer per rank) over a group
 * of n ranks laid out k per node (k >= n: a ring on NVLink, or an all-reduce
 * in the NVSwitch with NVLink SHARP where the cluster runs it and it is the
 * faster); across nodes NCCL's k channels pipelined over NVLink and the
 * network, ring or tree. */
double pp_collective_time_s(const pp_cluster *c, pp_collective kind, double bytes, long n, long k);
/* Bytes one GPU sends over NVLink and through its NIC in that collective. */
void pp_collective_bytes(pp_collective kind, double bytes, long n, long k, double *nvlink, double *network);
/* The same as the cluster's library runs it (pp_collective_time_s): MPI's
 * flat-ring all-reduce (training.collectives), NVLink SHARP's one-node
 * all-reduce where it is the faster and one_collective; rings only for the
 * reduce-scatter and all-gather an all-reduce stands for otherwise
 * (compressed_collective_as). */
void pp_collective_bytes_on(const pp_cluster *c, pp_collective kind, double bytes, long n, long k, bool one_collective,
                            double *nvlink, double *network);
/* The bytes per second a link class sustains in collectives: the line rate
 * (intra_node_GBps, inter_node_Gbps per GPU, one direction) times its
 * efficiency (what NCCL's bus bandwidth reaches). */
double pp_nvlink_Bps(const pp_cluster *c);
double pp_network_Bps(const pp_cluster *c);
/* Whether a collective's group of n ranks, k per node, spans more than one
 * leaf switch group (cluster.leaf_nodes), and the network rate it gets:
 * pp_network_Bps divided by cluster.network_oversubscription if it does. */
bool pp_group_crosses_spine(const pp_cluster *c, long n, long k);
double pp_network_group_Bps(const pp_cluster *c, long n, long k);
/* Whether its rings cross NIC rails (a partial-node group whose GPUs share
 * no NIC switch, without NCCL's PXN): their network rate is then also
 * multiplied by the GPU's fitted cross_rail (docs/cost-model.md section 10). */
bool pp_group_crosses_rails(const pp_cluster *c, long n, long k);

/* All-to-all of `bytes` per rank over n ranks, k per node (MoE token
 * dispatch and combine): time, and the bytes one rank sends over each link
 * ((k-1)/n of the buffer on NVLink, (n-k)/n through the NIC). */
double pp_alltoall_time_s(const pp_cluster *c, double bytes, long n, long k);
void pp_alltoall_bytes(double bytes, long n, long k, double *nvlink, double *network);
/* The same exchange when the link bytes are given (a deduplicating
 * dispatcher): the slower of the two links, each with its latency. */
double pp_alltoall_links_time_s(const pp_cluster *c, double nvlink, double network, long n, long k);

/* Time of one point-to-point transfer, inside a node or across nodes. */
double pp_p2p_time_s(const pp_cluster *c, double bytes, bool inter_node);
/* Wire-size ratio of a codec on values of `value_bits` bits: fixed-rate
 * codecs value_bits / bits_per_value (at least 1); lossless fp32 codecs
 * their fp32 ratio, or on 16-bit values lossless_ratio_16 (may be < 1). */
double pp_codec_ratio(const pp_codec *codec, double value_bits);
/* A codec's compress (decompress) throughput in GB/s on the GPU of that id:
 * its per-GPU entry (codecs.json), else its default. */
double pp_codec_GBps(const pp_codec *codec, const char *gpu_id, bool decompress);
/* Look every codec's throughput up once for the problem's GPU (call after
 * setting prob->cluster.gpu; a GPU set later still gets the full lookup). */
void pp_problem_resolve_codecs(pp_problem *prob);

/* The side q of a plan's tensor-parallel grid: tp itself for 1D, q with
 * tp = q^2 (2D), q^2 tp_depth (2.5D) or q^3 (3D); 0 if tp, tp_mode and
 * tp_depth do not form such a grid (docs/cost-model.md section 8). */
int pp_tp_grid_side(const pp_plan *plan);

/* --- the terms ------------------------------------------------------------- */

typedef struct pp_stage_term {
    double fwd_s;        /* forward of one micro-batch on the busiest stage */
    double bwd_s;        /* backward, including recomputation */
    double cp_exposed_s; /* context-parallel K/V exchange not hidden by attention */
    double ep_comm_s;    /* MoE: token all-to-alls (and expert-TP gathers), never overlapped */
    double total_s;      /* fwd + bwd + cp_exposed + ep_comm */
    double host_wait_s;  /* MoE without CUDA graphs: of fwd + bwd, the GPU's wait for the host to issue the
                            layers (docs/cost-model.md section 9, "The host") */
    double bubble_s;     /* what a fill or drain slot costs: the mean total of the other stages (the
                            makespan of a pipeline is m x the slowest stage + the sum of the others) */
    double bytes_nvlink; /* MoE: bytes one GPU sends per micro-batch over NVLink in ep_comm */
    double bytes_network;/* ... and through its NIC */
} pp_stage_term;

typedef struct pp_comm_term {
    double wire_s;  /* time on the link */
    double codec_s; /* compression + decompression kernels */
    double total_s;
    double bytes_sent;    /* bytes one GPU puts on the wire (after compression) */
    double bytes_nvlink;  /* ... of which over NVLink */
    double bytes_network; /* ... of which through its NIC */
    bool inter_node;      /* traffic crosses the network */
} pp_comm_term;

typedef struct pp_dp_term {
    double once_wire_s;     /* per step: gradient all-reduce / reduce-scatter (ZeRO-0: all-reduce) */
    double gather_once_wire_s; /* per step, ZeRO-1/2: the all-gather of the updated parameters */
    double once_tail_s;     /* of once_wire_s, the last bucket's: it starts when the backward ends */
    double gather_tail_s;   /* of gather_once_wire_s, the first bucket's: the first layer waits for it */
    double per_mb_wire_s;   /* per micro-batch: ZeRO-2 reduce-scatter, ZeRO-3 gathers (the hideable part) */
    double per_mb_fixed_s;  /* per micro-batch, never hidden: ZeRO-3's first gather of the forward and of
                               the backward, and the last layer's reduce-scatter */
    double codec_s;         /* per step, all micro-batches included */
    double accum_s;         /* per step: every micro-batch's backward adds its weight gradients into the
                               gradient buffer the GPU holds (read and write it once per micro-batch) */
    double bytes_sent;      /* per step */
    double bytes_nvlink;    /* ... of which over NVLink */
    double bytes_network;   /* ... of which through the NIC */
    bool inter_node;
} pp_dp_term;

int pp_microbatches(const pp_problem *prob, const pp_plan *plan); /* m, 0 if not integral */
/* Interleaved 1F1B's micro-batch group (Megatron-Core's
 * --microbatch-group-size-per-virtual-pipeline-stage, default pp): the
 * smallest N in [pp, m] whose last group is whole or at least pp long;
 * 0 when m < pp (the schedule cannot run); pp without interleaving. */
int pp_vp_microbatch_group(int pp, int virtual_stages, int m);
/* The model-chunk forwards pipeline rank `stage` runs before its first backward (layout.c). */
long pp_warmup_chunks(const pp_plan *plan, int stage, int m);

/* The modules selective recomputation repeats (the plan's
 * recompute_modules, Megatron-Core's --recompute-modules), as bits: the
 * attention core (Korthikanti et al. 2022's selective recomputation, the
 * default), the routed experts' activation function, the two RMSNorms of a
 * layer, MLA's up-projections with their RoPE, and a MoE layer's whole
 * block (router, dispatch, experts, combine: Megatron-Core's "moe", normal
 * checkpointing of the MoE layer).  pp_recompute_modules reads a plan's
 * set: none unless recompute is selective. */
enum {
    PP_RCM_CORE_ATTN = 1,
    PP_RCM_MOE_ACT = 2,
    PP_RCM_LAYERNORM = 4,
    PP_RCM_MLA_UP_PROJ = 8,
    PP_RCM_MOE = 16,
    PP_RCM_MLP = 32,           /* the dense MLP (a MoE layer's block is moe's) */
    PP_RCM_SHARED_EXPERTS = 64 /* a MoE layer's shared experts */
};
int pp_recompute_modules(const pp_plan *plan);

/* The values of the plan's cp_comm, in its row's order (decisions.def):
 * context parallelism's ring, its one all-gather of K and V, or its
 * all-to-alls of Q, K, V and the output (cp.c). */
typedef enum { PP_CP_P2P = 0, PP_CP_ALL_GATHER = 1, PP_CP_A2A = 2 } pp_cp_comm;

/* How the layers split over the pipeline stages, by the plan's
 * pipeline_layout: auto (Megatron-Core's split from pp and v: even when pp v
 * divides the layers; else with interleaving the embedding and the loss as
 * layers, without it the middle stages holding ceil(layers/pp) and the first
 * and last the rest; else balanced), even, embedding_loss (the embedding and
 * the loss as layers, every chunk alike) or balanced (the layers, the
 * embedding and the loss spread over the pp v chunks as evenly as possible,
 * the model's first and last chunk lighter).  False when the layout cannot
 * hold the layers (a stage without a layer). */
typedef enum {
    PP_LAYOUT_AUTO = 0,
    PP_LAYOUT_EVEN,
    PP_LAYOUT_EMBEDDING_LOSS,
    PP_LAYOUT_BALANCED,
    PP_LAYOUT_COUNT
} pp_pipeline_layout;
typedef struct pp_stage_split {
    int first, middle, last; /* layers of stage 0, of each middle stage, of stage pp-1 */
    bool uneven;             /* the stages do not all hold as many */
    int chunk; /* interleaved: layers of a middle model chunk; else 0 */
    int first_chunk, last_chunk; /* layers of the model's first and last chunk (stage 0's, pp-1's
                                    without interleaving) */
    bool embedding_loss; /* the embedding and the loss counted as layers (the model's first chunk
                            holds the embedding, its last the loss) */
} pp_stage_split;
bool pp_stage_layers(const pp_problem *prob, const pp_plan *plan, pp_stage_split *out);

void pp_term_stage(const pp_problem *prob, const pp_plan *plan, pp_stage_term *out);
void pp_term_tp_comm(const pp_problem *prob, const pp_plan *plan, pp_comm_term *out);
void pp_term_pp_comm(const pp_problem *prob, const pp_plan *plan, pp_comm_term *out);
void pp_term_dp_comm(const pp_problem *prob, const pp_plan *plan, pp_dp_term *out);
double pp_term_optimizer_s(const pp_problem *prob, const pp_plan *plan);
/* Pipeline multiplier (m + (p-1)/v) that turns a per-micro-batch time into
 * its share of the step. */
double pp_pipeline_factor(const pp_problem *prob, const pp_plan *plan);
/* The overlap windows of the two DP epigraphs. */
double pp_dp_once_window_s(const pp_problem *prob, const pp_plan *plan, const pp_stage_term *st);
double pp_dp_per_mb_window_s(const pp_problem *prob, const pp_plan *plan, const pp_stage_term *st);
/* ... and of the third, ZeRO-1/2's parameter all-gather. */
double pp_dp_gather_window_s(const pp_problem *prob, const pp_plan *plan, const pp_stage_term *st);

/* --- memory (docs/cost-model.md §4), bytes of the most loaded GPU --------- */

typedef struct pp_memory {
    double weights_gib, gradients_gib, optimizer_gib, activations_gib, other_gib;
    double total_gib;
    double capacity_gib;   /* what the GPU offers */
    double usable_gib;     /* capacity minus headroom */
    int stage;             /* which stage is the most loaded (0 or pp-1) */
} pp_memory;

/* Model-state bytes of psi parameters under a ZeRO stage over d ranks
 * (ZeRO Table 1: mixed-precision Adam, 2 + 2 + 12 bytes per parameter). */
void pp_model_state_bytes(double psi, int zero, double d, double *weights, double *grads, double *optim);

/* Bytes per parameter a framework holds for weights, gradients and the
 * optimizer before sharding (docs/cost-model.md section 6): Megatron-Core,
 * Megatron-LM and FSDP keep fp32 main gradients when training in bf16 or
 * fp8 (2 + 4 + 12), and fp16 gradients plus an fp32 copy in fp16 (2 + 2 +
 * 16); DeepSpeed ZeRO holds 2 + 2 + 12. */
void pp_state_bytes_per_param(const pp_training *t, double *weights, double *grads, double *optim);
/* The bytes a plan's gradients are held in between micro-batches (2 or 4):
 * training.grad_accum_dtype, or where the problem states none and the plan
 * reduces in 16 bits (pp_plan_grad_reduce), the framework's type for that. */
int pp_plan_grad_held_bytes(const pp_problem *prob, const pp_plan *plan);

/* The ranks that hold the same parameters and so share ZeRO's shards and
 * the gradient reduction: dp x cp (Megatron-Core shards the distributed
 * optimizer over the data-parallel group with context parallelism). */
long pp_replica_ranks(const pp_plan *plan);
/* Activation bytes one layer keeps per micro-batch on one GPU
 * (Korthikanti et al. 2022 §4); store_scores keeps the s x s softmax. */
double pp_layer_activation_bytes(const pp_problem *prob, const pp_plan *plan, bool store_scores);
/* What a layer keeps under torchtitan's per-op selective checkpointing
 * (framework fsdp, recompute selective), bytes per micro-batch. */
double pp_op_sac_layer_bytes(const pp_problem *prob, const pp_plan *plan);

/* The stages that may be the most loaded: 0 and pp-1, and 1 when the split
 * is uneven; returns how many. */
#define PP_MEM_STAGES 3
int pp_memory_stages(const pp_problem *prob, const pp_plan *plan, int stages[PP_MEM_STAGES]);

/* The kernels of one layer's micro-batch on one GPU (kernels.c). */
typedef struct pp_layer_kernels {
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
    double norm_fwd_s;    /* the two norms again, with the casts of their outputs (layernorm recompute) */
    double mla_up_fwd_s;  /* MLA's up-projections and RoPE again (mla_up_proj recompute) */
    double mlp_again_fwd_s; /* the dense MLP again with its norm and casts (mlp recompute) */
} pp_layer_kernels;
/* A layer's kernels and the logits' and loss's, forward and backward, on
 * one GPU: the part of the stage term before recomputation, the pipeline,
 * context parallelism and the experts weigh it (stage.c).  They read only
 * the decisions pp_form_stage_kernels_key keeps (every decision but those
 * stage.c names as unread: the degrees but tp, cp and ep, recomputation,
 * the overlaps, the dispatcher, the CP exchange, the codecs), so plans
 * with one key share them: the MIP's price cache prices them once per key
 * (tests/test_mip_screen.c finds them bit for bit the same over the
 * examples' spaces). */
typedef struct pp_stage_kernels {
    pp_layer_kernels k;
    double logits_fwd_s, logits_bwd_s;
    double moe_fwd_s; /* a MoE block's forward compute (0 for a dense model) */
} pp_stage_kernels;

/* What one GPU of a stage holds before ZeRO: its parameters, the routed
 * experts' among them (MoE) and those it trains (LoRA's adapters, else
 * all).  A function of the shape's decisions alone (tp and its grid, pp,
 * virtual stages, layout, ep, etp), so the form of a step computes it once
 * for all of a shape's candidates. */
typedef struct pp_stage_holding {
    double params, expert_params, trained;
} pp_stage_holding;
void pp_stage_holding_of(const pp_problem *prob, const pp_plan *plan, int stage, pp_stage_holding *out);

/* Model states and activations of one pipeline stage; the states from its
 * holding (pp_mem_states_gib computes the holding first). */
void pp_mem_states_gib(const pp_problem *prob, const pp_plan *plan, int stage,
                       double *weights, double *grads, double *optim);
void pp_mem_states_held_gib(const pp_problem *prob, const pp_plan *plan, int stage, const pp_stage_holding *held,
                            double *weights, double *grads, double *optim);
double pp_mem_activations_gib(const pp_problem *prob, const pp_plan *plan, int stage);
double pp_mem_other_gib(const pp_problem *prob);
void pp_memory_eval(const pp_problem *prob, const pp_plan *plan, pp_memory *out);

/* --- the evaluator ------------------------------------------------------- */

typedef struct pp_time {
    double compute_s;      /* m x (forward + backward + recomputation) of the busiest stage */
    double bubble_s;       /* (p-1)/v x one micro-batch slot */
    double tp_comm_s;      /* exposed tensor-parallel collectives (m slots) */
    double cp_comm_s;      /* exposed context-parallel exchange */
    double ep_comm_s;      /* MoE token all-to-alls (expert parallelism), m slots */
    double pp_comm_s;      /* pipeline sends on the critical path */
    double dp_comm_s;      /* data-parallel traffic not hidden by compute */
    double compression_s;  /* codec kernels of every dimension */
    double optimizer_s;
    double exposed_comm_s; /* tp + cp + ep + pp + dp */
    double link_wait_s;    /* what the busiest link adds: a step is never shorter than the time one GPU's
                              NVLink or NIC needs for its bytes (link_busy_s), whatever overlaps */
    double step_s;         /* the sum of compute, bubble, exposed_comm, compression, optimizer, link_wait */
} pp_time;

typedef struct pp_eval {
    pp_time time;
    pp_memory mem;
    int gpus_used;
    int microbatches;
    double tokens_per_s;
    double model_flops_per_step;
    double hardware_flops_per_step;
    double model_tflops_per_gpu;
    double hardware_tflops_per_gpu;
    double mfu;
    double peak_tflops; /* of the plan's precision */
    double bytes_nvlink_per_step; /* bytes one GPU sends over NVLink per step */
    double bytes_network_per_step;
    double nvlink_busy_s;  /* those bytes at the link's sustained rate (pp_nvlink_Bps) */
    double network_busy_s;
} pp_eval;

/* Price a plan that passed pp_plan_check (rules.h). */
void pp_evaluate(const pp_problem *prob, const pp_plan *plan, pp_eval *out);

/* The step time alone, composed from the terms exactly as pp_evaluate does. */
double pp_step_time_s(const pp_problem *prob, const pp_plan *plan);

/* The link bound: one GPU's bytes per step over NVLink and through its NIC,
 * at the links' sustained rates, and the wait they add to a step whose
 * terms sum to composed_s: max(0, nvlink_busy - composed, network_busy -
 * composed).  Every byte the terms charge is on one of the two links, so a
 * step cannot end before its busiest link has carried them, however much of
 * the traffic overlaps computation (the MIP prices the same max, mip.h). */
double pp_link_wait_s(const pp_problem *prob, double bytes_nvlink, double bytes_network, double composed_s,
                      double *nvlink_busy_s, double *network_busy_s);

/* --- the form of a step (step.c) ------------------------------------------
 *
 * The step time written once, as the MIP reads it.  A plan is a shape (the
 * degrees) and one joint choice of each FAMILY of decisions: the stage
 * compute (recompute, sp), TP (recompute, sp, TP codec, overlap), PP (PP
 * codec, sp) and DP (ZeRO, DP and params codecs).  Each choice is one
 * pp_form_term: its seconds in the step (the MIP's objective coefficient),
 * its side of each DP overlap PAIR (wire against window), its bytes and
 * busy seconds on each link, its memory on each stage that may be the most
 * loaded; the shape's pp_form_shape holds what the families share (the
 * micro-batches, the weight of an exposed second, the link rates, the
 * memory limit).  Then
 *
 *   step = sum_f obj_f + pair_weight sum_k max(0, sum_f exposed_f,k)
 *        + max(0, busiest link's sum_f link_f - the above)
 *   mem_k = sum_f mem_f,k + other  <=  usable          (each stage k)
 *
 * which mip.c writes as coefficient x column (an epigraph per pair and per
 * link), and which pp_step_time_s and pp_evaluate evaluate from the same
 * terms in the evaluator's own order of additions (pp_form_step_s): the
 * two differ only by rounding (tests/test_cost_step.c). */

/* pp_form_family (the stage, TP, PP and DP terms) is in types.h: the
 * decision table names the family whose candidates carry each option. */
/* The DP overlap pairs: the once-a-step gradient reduction against the last
 * backward, the per-micro-batch ZeRO-2/3 traffic against every micro-batch's
 * compute, ZeRO-1/2's parameter all-gather against the first forward. */
typedef enum { PP_PAIR_ONCE = 0, PP_PAIR_PER_MB, PP_PAIR_GATHER, PP_FORM_PAIRS } pp_form_pair;
typedef enum { PP_FORM_NVLINK = 0, PP_FORM_NETWORK, PP_FORM_LINKS } pp_form_link;

/* What every family of one shape shares. */
typedef struct pp_form_shape {
    int microbatches;        /* m */
    double factor;           /* pp_pipeline_factor: m + (p-1)/v */
    double sm_share;         /* f = pp_comm_sm_share: what a hidden second of DP traffic costs */
    double pair_weight;      /* 1 - f: what an exposed second of a pair adds beyond the f its DP term pays */
    double link_Bps[PP_FORM_LINKS]; /* the links' sustained rates; a link of rate 0 has no bound */
    int n_mem;               /* the stages that may be the most loaded (pp_memory_stages) */
    int mem_stages[PP_MEM_STAGES];
    pp_stage_holding held[PP_MEM_STAGES]; /* what a GPU of each mem_stage holds before ZeRO */
    double mem_usable_gib;   /* capacity minus headroom */
    double mem_other_gib;    /* the runtime's own (pp_mem_other_gib) */
    double mem_limit_gib;    /* usable - other: what the families' memory may take */
} pp_form_shape;

/* One joint choice of one family. */
typedef struct pp_form_term {
    double obj_s;                       /* its seconds in the step: the objective coefficient */
    double exposed_s[PP_FORM_PAIRS];    /* its share of each pair's exposed seconds: + wire (DP), - window (stage) */
    double wire_s[PP_FORM_PAIRS];       /* the wire seconds it puts on each pair (DP), hidden or not */
    double bytes[PP_FORM_LINKS];        /* bytes per step one GPU puts on each link */
    double link_s[PP_FORM_LINKS];       /* ... and the seconds they keep the link busy (0 for a rate of 0) */
    double mem_gib[PP_MEM_STAGES];      /* its memory on each of the shape's mem_stages */
    /* the terms it is made of (the evaluator's breakdown reads them) */
    pp_stage_term stage;                /* STAGE */
    pp_comm_term comm;                  /* TP, PP */
    pp_dp_term dp;                      /* DP */
    double optimizer_s;                 /* DP */
} pp_form_term;

/* The form of one plan: its shape and its four choices. */
typedef struct pp_step_form {
    pp_form_shape shape;
    pp_form_term term[PP_FORM_FAMILIES];
} pp_step_form;

/* The shape's part, from any plan of the shape (its degrees); and its
 * time part alone (no memory stages: a term priced with it holds no
 * memory, its time and links those of the whole shape's, bit for bit):
 * what the screen's stage bounds read. */
void pp_form_shape_of(const pp_problem *prob, const pp_plan *plan, pp_form_shape *out);
void pp_form_shape_time_of(const pp_problem *prob, const pp_plan *plan, pp_form_shape *out);
/* Family fam's term at a plan (only that family's decisions are read). */
void pp_form_term_of(const pp_problem *prob, const pp_plan *plan, const pp_form_shape *shape, pp_form_family fam,
                     pp_form_term *out);
/* The stage family's kernels at a plan, and the key that plans sharing them
 * share (pp_stage_kernels); its term with its kernels given (those of the
 * plan, or of any plan of the same key): pp_form_term_of's stage term, bit
 * for bit. */
void pp_form_stage_kernels_of(const pp_problem *prob, const pp_plan *plan, pp_stage_kernels *out);
void pp_form_stage_kernels_key(const pp_plan *plan, pp_plan *key);
void pp_form_stage_term_of(const pp_problem *prob, const pp_plan *plan, const pp_form_shape *shape,
                           const pp_stage_kernels *kernels, pp_form_term *out);
/* Only the memory of family fam's term (its mem_gib, as pp_form_term_of
 * writes it; every other field 0): what memory's pruning reads, for a
 * candidate whose time is not needed yet (screening, mip.c). */
void pp_form_term_mem_of(const pp_problem *prob, const pp_plan *plan, const pp_form_shape *shape, pp_form_family fam,
                         pp_form_term *out);
/* The whole form of a plan. */
void pp_step_form_of(const pp_problem *prob, const pp_plan *plan, pp_step_form *out);
/* Whether every coefficient of a term is a finite number. */
bool pp_form_term_finite(const pp_form_term *t);

/* The step time of one choice per family (pick[f] of family f), in the
 * evaluator's order: what pp_step_time_s returns. */
double pp_form_step_s(const pp_form_shape *shape, const pp_form_term *const pick[PP_FORM_FAMILIES]);
/* The same choice's parts, as pp_evaluate reports them (time, bytes and
 * busy seconds per link, micro-batches). */
void pp_form_eval(const pp_form_shape *shape, const pp_form_term *const pick[PP_FORM_FAMILIES], pp_eval *out);
/* The step without the link bound as the MIP sums it: sum_f obj_f +
 * pair_weight sum_k max(0, sum_f exposed_f,k).  A lower bound on the step. */
double pp_form_bound_s(const pp_form_shape *shape, const pp_form_term *const pick[PP_FORM_FAMILIES]);
/* The memory of the GPU of the shape's k-th mem_stage, in pp_memory_eval's
 * order (a NULL pick holds nothing: the stage and DP families alone carry
 * memory). */
double pp_form_mem_gib(const pp_form_shape *shape, const pp_form_term *const pick[PP_FORM_FAMILIES], int k);

/* --- a priced plan, and the parts of its step time ------------------------ */

/* A plan with what the cost model says of it: what every planner returns. */
typedef struct pp_candidate {
    pp_plan plan;
    pp_eval eval;
} pp_candidate;

/* The eight parts of a step time, in the order reports list them. */
typedef enum {
    PP_PART_COMPUTE = 0, PP_PART_BUBBLE, PP_PART_TP_COMM, PP_PART_CP_COMM, PP_PART_PP_COMM, PP_PART_DP_COMM,
    PP_PART_COMPRESSION, PP_PART_OPTIMIZER, PP_PART_LINK_WAIT, PP_PART_EP_COMM, PP_PART_COUNT
} pp_part;

/* The seconds of one part. */
static inline double pp_part_s(const pp_time *t, pp_part part)
{
    switch (part) {
    case PP_PART_COMPUTE: return t->compute_s;
    case PP_PART_BUBBLE: return t->bubble_s;
    case PP_PART_TP_COMM: return t->tp_comm_s;
    case PP_PART_CP_COMM: return t->cp_comm_s;
    case PP_PART_PP_COMM: return t->pp_comm_s;
    case PP_PART_DP_COMM: return t->dp_comm_s;
    case PP_PART_COMPRESSION: return t->compression_s;
    case PP_PART_OPTIMIZER: return t->optimizer_s;
    case PP_PART_LINK_WAIT: return t->link_wait_s;
    case PP_PART_EP_COMM: return t->ep_comm_s;
    case PP_PART_COUNT: break;
    }
    return 0.0;
}

#endif
