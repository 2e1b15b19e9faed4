/*
 * names.h: the names of parplan's enumerations (precisions, recompute
 * policies, tensor-parallel modes, compressible traffic, objectives), as
 * PROBLEM.json and PLAN.json spell them and as reports print them.
 *
 * One table per enumeration, indexed by its value, so a parser and a printer
 * cannot disagree.  It depends on types.h only, so every layer may use it.
 */
#ifndef PARPLAN_NAMES_H
#define PARPLAN_NAMES_H

#include "types.h"

/* The names by value: "bf16", "fp16", "fp8", "fp32", "fp8-current",
 * "mxfp8", "nvfp4", "fp8-block"; "none", "selective",
 * "full"; "1d", "2d", "2.5d", "3d"; "dp", "tp", "pp", "params";
 * "min_step_time", "min_cost", "min_time", "min_gpus"; "auto", "flash2",
 * "flash3". */
#define PP_OBJECTIVE_COUNT 4
extern const char *const pp_precision_names[PP_PREC_COUNT];
extern const char *const pp_recompute_names[PP_RECOMPUTE_COUNT];
extern const char *const pp_tp_mode_names[PP_TP_MODE_COUNT];
extern const char *const pp_dim_names[PP_DIM_COUNT];
extern const char *const pp_objective_names[PP_OBJECTIVE_COUNT];
extern const char *const pp_attention_kernel_names[PP_ATTN_COUNT];
extern const char *const pp_cuda_graphs_names[PP_GRAPHS_COUNT];
extern const char *const pp_lora_targets_names[PP_LORA_TARGETS_COUNT];
/* training.framework and data/frameworks.json's ids: "megatron-core", ... */
extern const char *const pp_framework_names[PP_FW_COUNT];
extern const char *const pp_training_setting_names[PP_TS_COUNT];

/* text's letters and digits in lower case, at most cap - 1 of them: the
 * key under which free-text names compare ("Megatron LM", "megatron-lm"
 * and "MegatronLM" alike). */
void pp_name_key(const char *text, char *out, size_t cap);

/* The framework a problem names by another of its usual names ("NeMo",
 * "Megatron-LM", "torchtitan", "GPT-NeoX"; names.c lists them), compared
 * by pp_name_key.  The names speak of today's releases: megatron-lm-2021
 * and deepspeed-2021 are reached only by their own names. */
bool pp_framework_alias(const char *text, pp_framework *fw);

/* The training precision a problem names by its own name in any spelling
 * or by a framework's name of the recipe ("FP8-CS", "tensorwise",
 * "bf16_with_mxfp8_mixed"; names.c lists them), compared by pp_name_key;
 * fp32 is no training precision. */
bool pp_precision_alias(const char *text, pp_precision *prec);

/* The name of one value, or "?" for a value out of range. */
const char *pp_precision_name(pp_precision p);
const char *pp_recompute_name(pp_recompute r);
const char *pp_tp_mode_name(pp_tp_mode m);
const char *pp_dim_name(pp_dim d);
const char *pp_objective_name(pp_objective o);
const char *pp_attention_kernel_name(pp_attention_kernel k);

/* What the cost model, the loaders and the launch settings need to know of
 * a precision, one row per value (docs/cost-model.md section 10 cites each
 * figure).  Attention cores, element-wise work, activations between layers,
 * weights, gradients and optimizer states stay in 16/32 bits whatever the
 * recipe; only the inputs of the linear layers' matrix multiplies are cast. */
typedef struct pp_precision_info {
    bool training;            /* a value of training.precision */
    bool low_gemm;            /* the linear layers' GEMMs run in 8 bits or fewer */
    bool blackwell_only;      /* a block-scaled format only Blackwell tensor cores run (MX, NVFP4) */
    pp_precision peak_of;     /* the peak_tflops entry its GEMMs run at when a GPU lists none of its own */
    double gemm_input_bytes;  /* bytes per GEMM input element, block scales included */
    double align_elems;       /* K and N multiple the tensor cores need at full speed */
    double high_precision_fraction; /* of the linear layers' GEMM FLOPs the recipe keeps in bf16 */
    double scale_passes;      /* reads of a 16-bit tensor to find its scale before the cast: 0 with
                                 delayed scaling (last steps' amax; the cast records this one's) or
                                 block scales found inside the cast (MXFP8), 1 with a per-tensor scale
                                 of the tensor itself (current/dynamic scaling, NVFP4's global scale) */
    double unscaled_core_rate; /* the GEMMs' throughput, as a fraction of a per-tensor-scaled GEMM's at the
                                  same peak, on tensor cores without block scales (Hopper applies a block
                                  recipe's scales in the kernel's main loop); 1 where nothing is lost */
    const char *megatron_flags; /* Megatron-LM's precision flags */
    const char *bridge_recipe;  /* Megatron-Bridge's mixed-precision recipe of the same flags */
    /* the transformer blocks the recipe keeps in bf16, as shares of the
     * model's layers, first and last (high_precision_fraction is their sum;
     * the launch settings ask for as many: --first-last-layers-bf16) */
    double bf16_first_share, bf16_last_share;
    /* what bridge_recipe itself sets at the Megatron-Bridge release
     * data/frameworks.json names: the blocks it keeps in bf16, first and
     * last, and whether it gathers the weights in fp8 (fp8_param_gather) */
    int bridge_bf16_first, bridge_bf16_last;
    bool bridge_fp8_params;
    double block_core_rate; /* on block-scaled tensor cores (Blackwell), the share of the format's peak
                               ratio over bf16 its GEMMs sustain where bf16's reach eff.gemm: NVFP4's
                               measured 0.72 (names.c); 1 where nothing is lost */
} pp_precision_info;

const pp_precision_info *pp_precision_props(pp_precision p);

#endif
