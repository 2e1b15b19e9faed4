/*
 * types.h: the plain data that flows through parplan.
 *
 * Everything parplan reasons about is one of these structs: a model shape, a
 * GPU and the cluster built from it, the training settings, the codec catalog,
 * the search space, and a plan (one value for every decision).  They hold no
 * pointers into JSON documents and own no heap memory, so a problem can be
 * copied with `=`, priced by the cost model millions of times and handed to the
 * MIP builder without any lifetime questions.
 *
 * Units are in the names: _s seconds, _gib GiB (2^30 bytes), _GBps 1e9 bytes/s,
 * _Gbps 1e9 bits/s, _tflops 1e12 FLOP/s, _us microseconds.
 */
#ifndef PARPLAN_TYPES_H
#define PARPLAN_TYPES_H

#include <stdbool.h>
#include <stddef.h>

#define PP_ID_LEN 64
#define PP_NAME_LEN 128
#define PP_MAX_VALUES 64 /* most values one search dimension may list */
#define PP_MAX_CODECS 16

/* ---- errors ----------------------------------------------------------- */

/* Every fallible function returns 0 on success or a PP_E* code, and fills a
 * pp_error: the JSON path it was looking at and one sentence saying what was
 * expected and what was found.  Only main() prints it. */
enum {
    PP_OK = 0,
    PP_EINPUT = 2,      /* bad usage or bad input: exit code 2 */
    PP_EINFEASIBLE = 3, /* no plan satisfies the constraints: exit code 3 */
    PP_EINTERNAL = 1    /* anything else: exit code 1 */
};

typedef struct pp_error {
    char path[256]; /* JSON path, e.g. "problem.json: $.model.heads" */
    char msg[1024];
} pp_error;

/* ---- enumerations ----------------------------------------------------- */

/* Number formats of the matrix multiplies (the training recipe) and of the
 * wire.  The first four keep their values (files and tests name them);
 * the recipes added later follow: fp8 is per-tensor delayed scaling,
 * fp8-current per-tensor current scaling, mxfp8 MX block scaling, nvfp4
 * NVIDIA's 4-bit recipe and fp8-block the 1x128 / 128x128 block scaling of
 * DeepSeek-V3 (pp_precision_info in names.h has their properties). */
typedef enum {
    PP_PREC_BF16 = 0,
    PP_PREC_FP16,
    PP_PREC_FP8,
    PP_PREC_FP32,
    PP_PREC_FP8_CURRENT,
    PP_PREC_MXFP8,
    PP_PREC_NVFP4,
    PP_PREC_FP8_BLOCK,
    PP_PREC_COUNT
} pp_precision;
typedef enum { PP_RECOMPUTE_NONE = 0, PP_RECOMPUTE_SELECTIVE, PP_RECOMPUTE_FULL, PP_RECOMPUTE_COUNT } pp_recompute;
typedef enum { PP_TP_1D = 0, PP_TP_2D, PP_TP_2P5D, PP_TP_3D, PP_TP_MODE_COUNT } pp_tp_mode;
/* The traffic that can be compressed, each with its own codec decision and
 * error tolerance: data-parallel gradients, tensor-parallel activations (and,
 * in 2D/2.5D/3D, the weight blocks the grid moves), pipeline activations,
 * and ZeRO's parameter all-gathers ("params": the all-gather after the
 * optimizer step with ZeRO-1/2, the per-layer gathers of ZeRO-3). */
typedef enum { PP_DIM_DP = 0, PP_DIM_TP, PP_DIM_PP, PP_DIM_PARAMS, PP_DIM_COUNT } pp_dim;
/* What a search or an evaluation came to (pp_status_name: "optimal", ...). */
typedef enum { PP_STATUS_OPTIMAL = 0, PP_STATUS_TIME_LIMIT, PP_STATUS_INFEASIBLE, PP_STATUS_EVALUATED } pp_status;
/* The fused attention kernel's generation (training.attention_kernel):
 * "auto" the framework's own (FlashAttention-2, or on Hopper Megatron-Core's
 * cuDNN/FlashAttention-3 class kernel), "flash2", "flash3" (Hopper only;
 * FlashAttention-2 elsewhere), "flash1" (FlashAttention-1, its Triton
 * version, xformers: half the FlashAttention-2 rate).  docs/cost-model.md section 2, item 2. */
typedef enum { PP_ATTN_AUTO = 0, PP_ATTN_FLASH2, PP_ATTN_FLASH3, PP_ATTN_FLASH1, PP_ATTN_COUNT } pp_attention_kernel;
/* What CUDA graphs capture (training.cuda_graphs): "none" every kernel
 * launched from Python as the step runs (Megatron-Core's default), "partial"
 * the attention block and the MoE router and preprocessing captured, the
 * experts' dispatch, GEMMs and combine left eager (Megatron-Core
 * --cuda-graph-impl transformer_engine --cuda-graph-scope attn moe_router
 * moe_preprocess), "full" every layer or the whole iteration (MLPerf's
 * FULL_CUDA_GRAPH, Megatron-Core --cuda-graph-scope full).
 * docs/cost-model.md section 9, "The host". */
typedef enum { PP_GRAPHS_NONE = 0, PP_GRAPHS_PARTIAL, PP_GRAPHS_FULL, PP_GRAPHS_COUNT } pp_cuda_graphs;
/* Which linear layers carry LoRA adapters (training.lora_targets): the
 * attention's QKV and output projections (Hu et al. 2021 adapt W_q and W_v;
 * the MLPerf Llama 2 70B LoRA reference and NeMo adapt all four attention
 * projections), or also both MLP linears.  docs/cost-model.md section 11. */
typedef enum { PP_LORA_ATTENTION = 0, PP_LORA_ALL_LINEAR, PP_LORA_TARGETS_COUNT } pp_lora_targets;
typedef enum { PP_OBJ_MIN_STEP_TIME = 0, PP_OBJ_MIN_COST, PP_OBJ_MIN_TIME, PP_OBJ_MIN_GPUS } pp_objective;

/* ---- model ------------------------------------------------------------ */

typedef struct pp_model {
    char name[PP_NAME_LEN];
    int layers;
    int hidden;
    int heads;
    int kv_heads;   /* grouped-query attention: heads sharing one K/V head */
    int head_dim;   /* width of one attention head; 0 = hidden / heads (pp_model_head_dim).
                       Attention is heads x head_dim wide, which may differ from hidden
                       (Mistral-NeMo: 32 x 128 = 4096 against hidden 5120) */
    int ffn_hidden; /* MLP inner width */
    bool gated_mlp; /* SwiGLU-style: three h x ffn matrices instead of two */
    bool tie_embeddings;
    int vocab;
    int seq_len;
    double loss_token_fraction; /* share of the tokens whose logits and loss are computed: 1 (0
                                   read as 1) for a causal LM; BERT pre-training with a dense
                                   sequence output computes them only at the masked positions */
    /* Sliding-window attention (GPT-OSS, Gemma, Mistral 7B v0.1): a query
     * attends to itself and the sliding_window - 1 tokens before it; every
     * window_attn_skip_freq-th layer attends to the whole sequence
     * (Megatron-LM --window-size W,0 --window-attn-skip-freq N), 0: every
     * layer windowed.  sliding_window 0: no window (pp_windowed_layers). */
    int sliding_window;
    int window_attn_skip_freq;
    /* Mixture of experts (docs/cost-model.md section 9); experts == 0: dense.
     * Layer i is a MoE layer when i >= first_dense_layers and
     * i % moe_layer_freq == 0 (Megatron's --moe-layer-freq, DeepSeek's
     * first_k_dense_replace and moe_layer_freq); the others are dense layers
     * of width ffn_hidden. */
    int experts;            /* routed experts per MoE layer */
    int experts_per_token;  /* top-k */
    int moe_ffn_hidden;     /* MLP width of one routed expert */
    int shared_experts;     /* shared experts every token runs */
    int shared_ffn_hidden;  /* their total MLP width (shared_experts x their width) */
    int first_dense_layers; /* the first k layers are dense */
    int moe_layer_freq;     /* every freq-th layer is MoE (1 = all); 0 read as 1 */
    int mtp_layers;         /* multi-token-prediction modules the model defines (DeepSeek-V3: 1); what a
                               run trains is training.mtp_layers */
    /* Multi-head latent attention (DeepSeek-V2/V3), kv_lora_rank > 0; then
     * head_dim is v_head_dim and kv_heads = heads. */
    int q_lora_rank;        /* 0: queries are projected directly */
    int kv_lora_rank;
    int qk_nope_head_dim;
    int qk_rope_head_dim;
    int v_head_dim;
    /* What the launch settings must say to train this model and the cost
     * model does not price (a norm of each head's queries and keys, the
     * rotary base, the router's scores and groups): read from models.json
     * and Hugging Face configs, written as Megatron-LM flags. */
    bool qk_layernorm;       /* RMSNorm of queries and keys (Qwen3; MLA's latent norms in DeepSeek-V2/V3) */
    double rope_theta;       /* rotary base; 0 = the framework's default */
    bool router_sigmoid;     /* expert scores by sigmoid (DeepSeek-V3), else softmax */
    bool router_expert_bias; /* auxiliary-loss-free balancing by a per-expert bias (DeepSeek-V3 noaux_tc) */
    int router_groups;       /* group-limited routing: experts in this many groups (0 = none) */
    int router_group_topk;   /* of which a token's experts come from at most this many */
    double moe_load_imbalance; /* the trained router's busiest expert over the mean on a dropless plan, measured
                                  (models.json); 0 = not known: training.moe_load_imbalance or its default */
    double router_scaling;   /* routed experts' output scale (0 = 1) */
    char bridge_recipe[PP_NAME_LEN]; /* Megatron-Bridge's recipe of this model ("" = none known) */
    /* GPT-OSS's attention and MLP as Megatron-LM spells them (examples/gptoss/02_train.sh) */
    bool attention_sinks;     /* a learned softmax logit per head (--softmax-type learnable) */
    bool quick_geglu;         /* the GLU's gate x sigmoid(1.702 x), not SiLU (--quick-geglu) */
    double glu_linear_offset; /* added to the GLU's linear half (--glu-linear-offset; 0 = none) */
    double activation_clamp;  /* the GLU's inputs clamped to this (--activation-func-clamp-value; 0 = none) */
} pp_model;

static inline bool pp_model_is_moe(const pp_model *m)
{
    return m->experts > 0;
}

/* The share of the tokens that reach the output layer and the loss. */
static inline double pp_model_logit_share(const pp_model *m)
{
    return m->loss_token_fraction > 0.0 ? m->loss_token_fraction : 1.0;
}

static inline bool pp_model_is_mla(const pp_model *m)
{
    return m->kv_lora_rank > 0;
}

/* The width of one attention head: head_dim, or hidden / heads when the
 * model does not give it. */
static inline int pp_model_head_dim(const pp_model *m)
{
    return m->head_dim ? m->head_dim : m->hidden / m->heads;
}

/* ---- GPU and cluster -------------------------------------------------- */

/* How close real kernels and collectives come to the datasheet.  These are the
 * few parameters that `parplan calibrate` fits per GPU; every other number of
 * the cost model is a datasheet figure or a count of FLOPs or bytes. */
typedef struct pp_efficiency {
    double gemm;              /* large dense matrix multiply, fraction of peak */
    double attention;         /* attention core (QK^T, softmax·V), fraction of peak */
    double hbm;               /* element-wise kernels, fraction of HBM bandwidth */
    double nvlink;            /* collective bus bandwidth, fraction of NVLink */
    double network;           /* collective bus bandwidth, fraction of the NIC */
    double kernel_us;         /* fixed cost per kernel launch (small-shape floor) */
    double nvlink_latency_us; /* alpha of one NVLink hop */
    double network_latency_us;/* alpha of one network hop */
    /* the shape terms of every matrix multiply (cost/kernels.c, pp_gemm_time_s),
     * fitted by `parplan calibrate --gemm-sweep` */
    double gemm_k_overhead;   /* elements of K the pipeline fill and epilogue cost: K / (K + this) */
    double gemm_misaligned;   /* fraction of the aligned rate a GEMM with K or N not a multiple of 8 reaches */
    /* rings that leave a node on another NIC rail than they enter it
     * (cost/collectives.c, pp_group_crosses_rails), fraction of the
     * network rate they keep */
    double cross_rail;
    /* the level of a team's software stack against the physics above: every
     * kernel's FLOP and HBM time times this (device.c); 1 in the shipped
     * fit, set only by a calibration from it (solve/calibrate.h) */
    double compute_scale;
    bool calibrated;          /* fitted to measurements of this GPU (or of the sibling it borrows from),
                                 not the built-in defaults or a file's "default" */
    /* whose fitted parameters these are when not this GPU's own: the same die
     * (gpus.json efficiency_from, factor 1) or the nearest calibrated family
     * (efficiency_borrow: its gemm and attention times borrow_factor) */
    char borrowed_from[PP_ID_LEN]; /* "" : its own (or no fit at all) */
    /* the tensor-to-exponential balance (pp_gpu_attention_balance) of the GPU
     * whose rows fitted .attention, where that is another GPU (a borrowed or
     * same-die fit); 0: this GPU's own.  kernels.c prices the attention's
     * per-score work at each GPU's own balance from that rate. */
    double attention_balance;
    double borrow_factor;          /* times the donor's gemm and attention; 1 for the same die */
    double borrow_nvlink_factor;   /* times the donor's nvlink; 1 for the same die */
    char source[256];
} pp_efficiency;

typedef struct pp_gpu {
    char id[PP_ID_LEN];
    char name[PP_NAME_LEN];
    double peak_tflops[PP_PREC_COUNT]; /* dense; 0 = precision not supported */
    double memory_gib;
    double hbm_GBps;
    double nvlink_GBps;  /* per GPU, one direction */
    double network_Gbps; /* per GPU, one direction, in its flagship system */
    int gpus_per_node;   /* of its flagship system: one NVLink domain */
    int gpus_per_host;   /* GPUs one host (one OS, one torchrun node) drives: gpus_per_node, except where an
                            NVLink domain spans hosts (GB200/GB300 NVL72: 18 compute trays of 4) */
    int sm_count;        /* streaming multiprocessors (AMD: compute units); 0 = unknown: no wave quantization */
    int gpus_per_nic_switch; /* of its flagship system: GPUs that share a PCIe switch with their NICs, on a
                                rail-optimized fabric (one leaf switch per NIC index); 0 = unknown or not
                                rail-optimized: no cross-rail term */
    double usd_per_gpu_hour; /* example price, 0 if none */
    double nvls_allreduce_fraction; /* NVLink SHARP (NVSwitch 3 on): a one-node all-reduce's algorithm bandwidth
                                       over the NVLink line rate; 0 = no NVLS (collectives.c) */
    double nccl_tree_channel_GBps[2]; /* NCCL's cap on a tree all-reduce's bus bandwidth per channel across 2 nodes
                                         and across more (its tuning model's perChMaxTreeBws); 0 = none */
    double nccl_nvls_tree_channel_GBps[2]; /* the same cap for NVLS-Tree, the all-reduce across nodes that reduces
                                              in the NVSwitch (perChMaxNVLSTreeBws); 0 = none */
    double sfu_exp_tops; /* exponentials a second, 10^12, of the special-function units (MUFU.EX2) that a fused
                            attention's softmax runs on; 0 = unknown: the H100's balance (kernels.c) */
    pp_efficiency eff;
} pp_gpu;

/* A GPU's 16-bit tensor FLOPs per exponential of its special-function units,
 * the balance a fused attention's per-score work (its softmax's exponentials,
 * the running max and rescaling) runs at against its matrix products
 * (kernels.c, attention_head_dim_share).  The reference is the H100's: 989
 * dense bf16 TFLOP/s against 3.9 TFLOPS of special functions (Shah et al.
 * 2024, FlashAttention-3, arXiv 2407.08608 §3), the GPU whose kernels the
 * head-dimension figures were fitted to; a GPU without a figure keeps it. */
#define PP_ATTN_BALANCE_REF (989.0 / 3.9)

static inline double pp_gpu_attention_balance(const pp_gpu *g)
{
    double p16 = g->peak_tflops[PP_PREC_BF16];
    return g->sfu_exp_tops > 0.0 && p16 > 0.0 ? p16 / g->sfu_exp_tops : PP_ATTN_BALANCE_REF;
}

/* NCCL_ALGO's all-reduce algorithms the cost model prices (collectives.c). */
#define PP_NCCL_ALGO_RING 1u
#define PP_NCCL_ALGO_TREE 2u

typedef struct pp_cluster {
    pp_gpu gpu;
    int gpus_per_node;      /* one NVLink domain */
    int gpus_per_host;      /* cluster.gpus_per_host: how a launcher counts nodes (default the GPU's) */
    long nodes;
    double intra_node_GBps; /* NVLink/NVSwitch per GPU, one direction */
    double inter_node_Gbps; /* network per GPU, one direction */
    bool mpi_collectives;   /* training.collectives "mvapich2-gdr": MPI algorithms (flat rings), not NCCL's */
    bool nccl_pxn;          /* training.nccl_pxn: NCCL >= 2.12 can route a ring's exit over NVLink to the
                               GPU beside its entry NIC (PXN), so no ring crosses rails */
    bool nccl_nvls;         /* training.nccl_nvls: NCCL may run a one-node all-reduce with NVLink SHARP
                               where the GPU's fabric has it (gpu.nvls_allreduce_fraction > 0) */
    int gpus_per_nic_switch; /* cluster.gpus_per_nic_switch (default the GPU's flagship system's) */
    unsigned nccl_algos;     /* the all-reduce algorithms NCCL may run (PP_NCCL_ALGO_*); 0 = NCCL's own
                                choice, the faster of ring and tree (an nccl-tests log's NCCL_ALGO) */
    /* The scale-out fabric (docs/cost-model.md section 3): nodes under one
     * leaf switch group, and the leaf-to-spine oversubscription a collective
     * whose group spans more than one leaf pays (its network bandwidth is
     * divided by it).  leaf_nodes 0 = every node under one leaf;
     * network_oversubscription <= 1 = none (both the defaults). */
    double network_oversubscription;
    long leaf_nodes;
} pp_cluster;

/* ---- training --------------------------------------------------------- */

/* The training framework fixes a few behaviours the model depends on
 * (pp_framework_features in costmodel.c). */
typedef enum {
    PP_FW_MEGATRON_CORE = 0, /* Megatron-Core / NeMo (2023+) */
    PP_FW_MEGATRON_2021,     /* Megatron-LM of Narayanan et al. 2021 / Korthikanti et al. 2022 */
    PP_FW_DEEPSPEED,         /* DeepSpeed ZeRO (current) */
    PP_FW_DEEPSPEED_2021,    /* DeepSpeed ZeRO-3 as measured by Narayanan et al. 2021 */
    PP_FW_FSDP,              /* PyTorch FSDP (e.g. MosaicML llm-foundry) */
    PP_FW_COUNT
} pp_framework;

/* Training settings beyond the defaults that a framework may or may not
 * run (data/frameworks.json "settings"; names.c pp_training_setting_names). */
typedef enum {
    PP_TS_MOE_FORCE_BALANCE = 0, /* training.moe_force_balance: a forced-balance router */
    PP_TS_MTP_LAYERS,            /* training.mtp_layers > 0: multi-token-prediction modules */
    PP_TS_CUDA_GRAPHS,           /* training.cuda_graphs "partial" or "full": layers captured as CUDA graphs */
    PP_TS_OPTIMIZER_MOMENTS,     /* training.optimizer_moments_dtype 16-bit: Adam's moments in bf16/fp16 */
    PP_TS_BF16_LAYERS,           /* training.bf16_layers_first/_last stated: blocks kept in bf16 under a
                                    low-precision recipe */
    PP_TS_COUNT
} pp_training_setting;

typedef struct pp_training {
    long global_batch; /* sequences per optimizer step */
    pp_precision precision;
    double tokens;        /* total tokens to train, 0 = not given */
    pp_framework framework;
    bool flash_attention; /* attention core fused: no s^2 score tensor in HBM */
    pp_attention_kernel attention_kernel; /* which fused kernel, when flash_attention */
    bool dp_overlap;      /* DP traffic overlaps compute (bucketed reduce, prefetched gathers) */
    bool tp_overlap;      /* can pipeline 1D TP collectives with their GEMMs (TE userbuffers, AsyncTP) */
    bool tp_bwd_overlap;  /* 1D TP's backward issues a column-parallel layer's input-gradient collective
                             (and under sequence parallelism the input's re-gather) asynchronously, behind
                             its weight- (data-) gradient GEMM (Megatron's async all-reduce; docs/cost-model.md §3) */
    bool fused_elementwise; /* element-wise ops in fused kernels (Megatron/TE's, torch.compile's);
                               false: eager PyTorch, one kernel per op (docs/cost-model.md §2.3) */
    bool fused_norm; /* with fused_elementwise false: the norm still one fused kernel (apex's or
                        FlashAttention's fused RMSNorm in otherwise eager code); default false
                        (docs/cost-model.md §2.3) */
    bool fused_loss; /* framework fsdp: the cross-entropy compiled into fused kernels that keep only
                        the 16-bit logits (torchtitan compiles its loss with torch.compile since
                        April 2025); default fused_elementwise (docs/cost-model.md §6) */
    int param_collectives_per_layer; /* ZeRO-2/3 collectives per layer and pass: 1 per
                                        wrapped block (FSDP, Megatron-Core), one per leaf
                                        module with parameters (DeepSpeed: 6 for a GPT layer) */
    bool list_collectives; /* ZeRO's all-gathers and reduce-scatters take a list of n per-rank
                              tensors, which PyTorch's NCCL process group copies one by one
                              (DeepSpeed of 2021; docs/cost-model.md §3) */
    bool moe_deepep; /* training.moe_dispatcher "deepep": each token crosses to a node and to a GPU
                        once, however many of its experts sit there (DeepEP); false "alltoall":
                        one copy per (token, expert), Megatron-Core's alltoall dispatcher */
    bool p2p_scatter_gather; /* pipeline sends split over the TP ranks and all-gathered by the
                                receiver over NVLink (Megatron-LM 2021's scatter/gather, Narayanan
                                et al. 2021 §4.1; DeepSpeed's partitioned pipeline tensors); false:
                                without sequence parallelism every TP rank sends the whole
                                activation (Megatron-Core) */
    bool moe_a2a_overlap; /* MoE all-to-alls hidden behind another micro-batch's compute
                             (Megatron-Core --overlap-moe-expert-parallel-comm, DeepSeek's
                             DualPipe); false: on the critical path */
    bool moe_dispatcher_given, moe_a2a_overlap_given; /* the problem states them: they fix the plan's
                                                         decisions moe_dispatcher and moe_a2a_overlap
                                                         (space.c), and price on (pp_moe_deepep) */
    double moe_load_imbalance; /* tokens of the busiest expert over the mean (MoE; default 1.2,
                                  docs/cost-model.md section 9) */
    bool moe_force_balance; /* training.moe_force_balance: the router overridden to give every expert
                               its mean share (Megatron-Core --moe-router-force-load-balancing,
                               torchtitan debug.moe_force_load_balance), a benchmark setting: the
                               load imbalance is 1 */
    pp_precision grad_reduce_dtype; /* data type of the DP gradient traffic on the wire: fp32
                                       (4 bytes a value) or a 16-bit type (bf16/fp16, 2 bytes,
                                       the default: DeepSpeed's communication_data_type) */
    bool mvapich; /* training.collectives: false "nccl" (default), true "mvapich2-gdr" */
    int moment_bytes; /* training.optimizer_moments_dtype: bytes of each of Adam's two moments, 4
                         (fp32, every framework's default) or 2 (bf16/fp16: Megatron-Core's
                         precision-aware optimizer, --exp-avg-dtype/--exp-avg-sq-dtype; DeepSeek-V3
                         §3.3.3 keeps them in bf16); 0 is read as 4 */
    bool moments_fp16; /* with moment_bytes 2: fp16, not bf16 (the launch settings' name) */
    bool bf16_layers_resolved; /* the three below were set when the problem was read (a low-precision
                                  recipe); false (a training built in code): the recipe's own */
    int bf16_first, bf16_last; /* training.bf16_layers_first/_last: the transformer blocks, first and
                                  last, a low-precision recipe keeps in bf16 (Megatron-Core
                                  --first-last-layers-bf16); by default the recipe's (names.c) */
    double bf16_share; /* their share of the blocks, (first + last) / layers */
    int grad_accum_bytes; /* training.grad_accum_dtype: bytes a gradient is held and summed in
                             between micro-batches, 4 (fp32: Megatron's main_grad, FSDP's reduce
                             dtype) or 2 (16-bit: DeepSpeed, PyTorch autograd's .grad); 0 = the
                             framework's default (pp_framework_grad_accum) */
    bool grad_accum_given; /* the problem states training.grad_accum_dtype: the gradients are held in
                              it whatever type the plan reduces them in (pp_plan_grad_reduce) */
    bool loss_gathered; /* training.loss_parallel false: the output layer all-gathers the logits
                           over TP and every rank runs the loss on the whole vocabulary (Hugging
                           Face-style heads, Aleph Alpha Scaling's ColumnParallelLinear); default
                           false: the loss runs on each TP rank's vocabulary slice (Megatron's
                           vocab-parallel cross-entropy, PyTorch's loss_parallel) */
    int lora_rank; /* training.lora_rank: > 0 fine-tunes low-rank adapters of this rank on
                      lora_targets and freezes every other weight (Hu et al. 2021, LoRA);
                      0 (default) trains every weight */
    pp_lora_targets lora_targets;
    bool fp8_params; /* training.fp8_params: the model's weights are held, and gathered by ZeRO,
                        in the recipe's low-precision format rather than 16 bits (Megatron-Core
                        --fp8-param-gather, NeMo fp8_params); default false */
    double packed_sample_tokens; /* training.packed_sample_tokens: sequences are packed from
                                    samples whose token-weighted mean length (sum s_i^2 /
                                    sum s_i) this is, and fused attention stays within each
                                    sample (cu_seqlens / THD); 0 (default): one sample a sequence */
    bool nccl_pxn; /* training.nccl_pxn: the NCCL of the run has PXN (2.12, March 2022, on): a ring
                      whose node's GPUs share no NIC switch still returns to its entry NIC; false:
                      NCCL 2.8-2.11 (2021 frameworks' default) builds cross-NIC rings instead
                      (docs/cost-model.md section 10) */
    bool nccl_nvls; /* training.nccl_nvls: NCCL_NVLS_ENABLE as the run sets it (NCCL >= 2.17 runs a
                       one-node all-reduce with NVLink SHARP by default where NVSwitch 3 or later has
                       it; false: NCCL_NVLS_ENABLE=0, or the 2021 frameworks' NCCL, which lacks it) */
    int mtp_layers; /* training.mtp_layers: multi-token-prediction modules trained on the last
                       pipeline stage (Megatron-Core --mtp-num-layers; DeepSeek-V3 section 2.2),
                       each an embedding of the shifted tokens, a 2h x h projection, one layer of
                       the model's last kind and the shared output head with its loss; default the
                       model's mtp_layers where the framework trains them, else 0
                       (docs/cost-model.md section 9) */
    int mtp_not_run; /* the model's MTP modules the framework does not train (the default then
                        is 0; the report says so) */
    pp_cuda_graphs cuda_graphs; /* training.cuda_graphs: what CUDA graphs capture; default none */
    bool fp8_act_store; /* training.fp8_activation_input_store: the MLP activation function's
                           input is kept for backward in fp8 (Megatron-Core
                           --activation-func-fp8-input-store); default false */
} pp_training;

/* ---- codecs ------------------------------------------------------------ */

#define PP_MAX_CODEC_RATES 8

/* A codec's throughput on one GPU family: the entry applies to every GPU
 * whose id starts with `gpu` ("v100" -> "v100-sxm2-16gb"); < 0 = the
 * codec's default. */
typedef struct pp_codec_rate {
    char gpu[32];
    double compress_GBps, decompress_GBps;
} pp_codec_rate;

typedef struct pp_codec {
    char id[PP_ID_LEN];
    bool lossy;
    bool cast; /* kind "cast": a cast or quantizer the training framework applies before the
                  collective, on the values' own type (no fp32 widening); needs no MPI library */
    double bits_per_value;  /* lossy fixed-rate codecs: bits per value on the wire */
    double lossless_ratio;  /* lossless codecs: measured ratio on fp32 messages (>= 1), 1 for none */
    double lossless_ratio_16; /* lossless codecs: wire ratio on 16-bit messages, which an fp32 codec
                                 sees widened to fp32 (may be < 1); 0 = same as lossless_ratio */
    double compress_GBps;   /* GPU throughput, input bytes per second; 0 = free */
    double decompress_GBps; /* GPU throughput, output bytes per second; 0 = free */
    double rel_error;       /* relative error it introduces (0 for lossless) */
    int n_rates;            /* per-GPU throughputs; compress_GBps/decompress_GBps are the default */
    pp_codec_rate rates[PP_MAX_CODEC_RATES];
    /* pp_codec_GBps's answer for the GPU rates_gpu names, looked up once by
     * pp_problem_resolve_codecs (the cost model prices codecs millions of
     * times a solve); any other GPU id takes the full lookup */
    char rates_gpu[PP_ID_LEN];
    double gpu_compress_GBps, gpu_decompress_GBps;
} pp_codec;

/* ---- search space ------------------------------------------------------ */

/* The decisions of a plan, one row each of util/decisions.def (an X-macro
 * list: its id and field here, the rest of its row in decisions.c's table). */
typedef enum {
#define PP_DECISION(id, field, ctype, storage, ...) PP_DEC_##id,
#include "decisions.def"
#undef PP_DECISION
    PP_DEC_COUNT
} pp_decision_id;

/* The codec decision of a compressed dimension (the codec rows follow pp_dim's order). */
#define PP_DEC_CODEC(d) ((pp_decision_id)(PP_DEC_CODEC_DP + (int)(d)))

/* Each list narrows one decision; n == 0 means "every value the tool supports". */
typedef struct pp_int_list {
    int n;
    int v[PP_MAX_VALUES];
} pp_int_list;

/* ---- what a framework runs (data/frameworks.json) ------------------------ */

#define PP_FW_VERSION_LEN 160

/* The values of each decision one training framework runs, at the version
 * data/frameworks.json names (read by formulate/input/frameworks_json.c;
 * the rule rules.c pp_plan_framework_gap, the space's candidates).  Bit v
 * of runs[id] is value v of decision id (an enum's or a bool's index, an
 * integer degree, a codec's index into the problem's codecs); all[id]: every
 * value of the decision's range.  known false (a problem built without the
 * catalog): every value runs, but for the built-in rules of rules.c. */
typedef struct pp_framework_caps {
    bool known;
    char name[PP_NAME_LEN];           /* "Megatron-Core" */
    char version[PP_FW_VERSION_LEN];  /* "0.20.0 (Megatron-LM d98e8a64dd, 2026-08-22)" */
    bool all[PP_DEC_COUNT];
    unsigned long long runs[PP_DEC_COUNT];
    unsigned zero_with_pp;            /* bit z: ZeRO stage z with pp > 1 */
    unsigned codec_mpi[PP_DIM_COUNT]; /* bit i: codec i runs on dimension d only through an MPI library
                                         (training.collectives "mvapich2-gdr") */
    unsigned precisions;              /* bit p: the training precision p has a recipe in it (its entry's
                                         "precisions"; every one when the entry lists none) */
    unsigned settings;                /* bit s: it runs training setting s (pp_training_setting; its
                                         entry's "settings"; none when the entry lists none) */
    double moe_layer_host_s;          /* the host's time to issue one MoE layer's forward and backward
                                         of a micro-batch without CUDA graphs (its entry's
                                         "eager_moe_layer_host_ms"); 0 = not known, not priced */
} pp_framework_caps;

/* ---- capacity planning (`parplan capacity`) ------------------------------ */

#define PP_MAX_CAPACITY_GPUS 16
#define PP_MAX_NODE_COUNTS 64

typedef struct pp_capacity_gpu {
    pp_gpu gpu;
    int gpus_per_node;
    double intra_node_GBps;
    double inter_node_Gbps;
    double usd_per_gpu_hour;
} pp_capacity_gpu;

typedef struct pp_capacity {
    bool present;
    int n_gpus;
    pp_capacity_gpu gpus[PP_MAX_CAPACITY_GPUS];
    long nodes_min, nodes_max; /* range form; used when n_node_counts == 0 */
    int n_node_counts;
    long node_counts[PP_MAX_NODE_COUNTS]; /* list form */
    double deadline_days; /* 0 = none */
    double budget_usd;    /* 0 = none */
    long max_gpus;        /* 0 = none */
} pp_capacity;

/* ---- the problem --------------------------------------------------------- */

typedef struct pp_problem {
    pp_model model;
    pp_cluster cluster;
    pp_training training;
    /* search.<key> (search.compression.<dim> for a codec), indexed by
     * decision: values of its field (enums by index, bools 0/1, codecs by
     * index into codecs) */
    pp_int_list search[PP_DEC_COUNT];
    pp_objective objective;
    double memory_headroom;             /* fraction of capacity kept free (default 0.05) */
    double error_tolerance[PP_DIM_COUNT]; /* largest codec rel_error allowed per dimension */
    double compress_min_bytes;          /* messages below this stay uncompressed */
    double codec_chunk_bytes;           /* pipeline unit of a compressed collective (codecs.json) */
    bool allow_tp_across_nodes;
    bool idle_gpus_ok; /* the GPU count is an upper limit (constraints.use_all_gpus false); default: every GPU works */
    int n_codecs;
    pp_codec codecs[PP_MAX_CODECS]; /* codecs[0] is always "none" */
    pp_framework_caps fw; /* what training.framework runs (codec bits index codecs) */
    pp_capacity capacity;
    bool has_cluster; /* false only for capacity problems without a cluster */
} pp_problem;

/* The families of terms of a step's form (cost/step.c, costmodel.h): the
 * MIP prices each family's joint candidates as one binary, and each option
 * decision is carried by one family's candidates (decisions.c). */
typedef enum { PP_FORM_STAGE = 0, PP_FORM_TP, PP_FORM_PP, PP_FORM_DP, PP_FORM_FAMILIES } pp_form_family;

/* ---- a plan: one value for every decision ------------------------------- */

/* A decision's field: `ctype field;` for a row stored as an int or a bool;
 * the codec rows share codec[], indexed by their pp_dim. */
#define PP_PLAN_FIELD_INT(ctype, field) ctype field;
#define PP_PLAN_FIELD_BOOL(ctype, field) ctype field;
#define PP_PLAN_FIELD_CODEC(ctype, field)

typedef struct pp_plan {
#define PP_DECISION(id, field, ctype, storage, ...) PP_PLAN_FIELD_##storage(ctype, field)
#include "decisions.def"
#undef PP_DECISION
    int codec[PP_DIM_COUNT]; /* the codec rows: an index into problem.codecs per compressed dimension */
} pp_plan;

#endif
