/*
 * shapes_json.h: reading the two things that both the catalogs and problems
 * describe, a model shape and a GPU, so a catalog entry (catalog.c) and a
 * problem's own object (problem.c) obey exactly the same rules.
 *
 * This layer sits on json_util.h and knows nothing of catalogs or problems:
 * it includes neither catalog.h nor problem.h.
 *
 * A model may also come from a Hugging Face config.json (hfconfig.c): its
 * num_hidden_layers, hidden_size, ... are mapped onto pp_model and then
 * validated like any other model.
 */
#ifndef PARPLAN_SHAPES_JSON_H
#define PARPLAN_SHAPES_JSON_H

#include "json_util.h"
#include "types.h"

/* Absurd sizes are rejected: they are typos, and they would overflow the
 * byte counts of the cost model. */
#define PP_MAX_LAYERS 100000
#define PP_MAX_HIDDEN (1 << 20)
#define PP_MAX_HEADS (1 << 16)
#define PP_MAX_HEAD_DIM (1 << 16)
#define PP_MAX_FFN_HIDDEN (1 << 22)
#define PP_MAX_VOCAB (1 << 24)
#define PP_MAX_SEQ_LEN (1 << 24)
/* GPUs of one NVLink domain ("node"): GB200/GB300 NVL72 racks are one
 * 72-GPU domain; the bound leaves room for larger NVLink Switch domains
 * and is a limit on input, not a figure. */
#define PP_MAX_GPUS_PER_NODE 576
#define PP_MAX_EXPERTS (1 << 16)

/* The optional Mixture-of-Experts and latent-attention keys of a model. */
/* The model's architecture keys that only the launch settings read. */
#define PP_MODEL_ARCH_KEYS                                                                                         \
    "qk_layernorm", "rope_theta", "router_score", "router_expert_bias", "router_groups", "router_group_topk",       \
        "router_scaling", "bridge_recipe", "attention_sinks", "glu_activation", "glu_linear_offset", "activation_clamp"

#define PP_MODEL_MOE_KEYS                                                                                          \
    "experts", "experts_per_token", "moe_ffn_hidden", "shared_experts", "shared_ffn_hidden", "first_dense_layers", \
        "moe_layer_freq", "mtp_layers", "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim",     \
        "v_head_dim", "moe_load_imbalance"

/* MoE layers of a model (the first_dense_layers are dense, then every
 * moe_layer_freq-th layer is MoE). */
int pp_moe_layer_count(const pp_model *m);
/* Defaults of the MoE and MLA keys: moe_ffn_hidden = ffn_hidden,
 * moe_layer_freq = 1; with latent attention head_dim = v_head_dim and
 * kv_heads = heads. */
void pp_model_moe_defaults(pp_model *m);

/* The keys of a model object of a problem (NULL-terminated). */
extern const char *const pp_model_keys[];

/* Read a model object's fields into *m: layers, hidden, heads, vocab and
 * seq_len are required; kv_heads defaults to heads, ffn_hidden to 4*hidden,
 * head_dim to 0 (= hidden / heads), gated_mlp to false, tie_embeddings to
 * true, name to "custom".  The caller
 * checks the keys.  The result is validated (pp_model_validate). */
int pp_model_read(const cJSON *obj, const pp_jpath *at, pp_model *m, pp_error *err);

/* The inverse of pp_model_read: the model as a model object's keys (every
 * integer field that is not 0, the flags, the router's and the measured
 * load's values where set; the bridge recipe left out), which
 * pp_model_read reads back to the same pricing.  A new cJSON object, or
 * NULL when out of memory. */
cJSON *pp_model_write(const pp_model *m);

/* All sizes positive and not absurd (head_dim may be 0), hidden % heads == 0
 * unless head_dim is given, heads x head_dim <= PP_MAX_HIDDEN, heads %
 * kv_heads == 0.  Errors point at at.FIELD. */
int pp_model_validate(const pp_model *m, const pp_jpath *at, pp_error *err);


/* A problem's {"hf_config": PATH, "seq_len": N, "name": NAME} object: read
 * the Hugging Face config at PATH (relative to base_dir unless absolute). */
int pp_model_from_hf(const cJSON *obj, const pp_jpath *at, const char *base_dir, pp_model *m, pp_error *err);

/* Read a GPU object's fields into *g, which holds the defaults.  peak_tflops
 * and memory_gib are always required; with need_all every datasheet field is
 * (catalog entries).  peak_tflops is an object {bf16, fp16, fp8, fp32} (null
 * or 0 = unsupported) or, outside catalogs, one number: the dense peak for
 * scalar_precision.  The caller checks the keys. */
int pp_gpu_read(const cJSON *obj, const pp_jpath *at, pp_presence need_all, pp_precision scalar_precision,
                pp_gpu *g, pp_error *err);

#endif
