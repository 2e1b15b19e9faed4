/*
 * hfconfig.c: a model shape from a Hugging Face config.json.
 *
 * A problem may say {"hf_config": "path/config.json", "seq_len": 8192}
 * instead of spelling the shape out.  seq_len is required: a config says
 * only the longest context the model supports (max_position_embeddings,
 * 131072 for Llama 3.1), not the one it is trained with, so that is checked
 * as an upper bound and never used as a default.  Only the Llama-style keys
 * that every decoder on the Hub shares are read (num_hidden_layers,
 * hidden_size, num_attention_heads, num_key_value_heads, head_dim,
 * intermediate_size, vocab_size, hidden_act, max_position_embeddings,
 * tie_word_embeddings); other keys are ignored, since configs carry dozens
 * parplan has no use for.  A config in another dialect (GPT-2's n_layer,
 * n_embd, n_head) is refused with a message naming the missing key rather
 * than guessed at.  Mixture-of-Experts configs (Mixtral, DeepSeek, Qwen-MoE)
 * give their experts in each family's keys, and DeepSeek its multi-head
 * latent attention (read_hf_moe, read_hf_mla), and sliding-window models
 * their window and its layers (read_hf_window).
 */
#include <stdio.h>
#include <string.h>

#include "shapes_json.h"

static const char *const hf_problem_keys[] = {"hf_config", "seq_len", "name", NULL};

/* The keys read from the config; checked for duplicates. */
static const char *const hf_read_keys[] = {"num_hidden_layers", "hidden_size",  "num_attention_heads",
                                           "num_key_value_heads", "head_dim", "intermediate_size", "vocab_size",
                                           "hidden_act", "max_position_embeddings", "tie_word_embeddings",
                                           "model_type", "_name_or_path", "num_local_experts", "n_routed_experts",
                                           "num_experts", "num_experts_per_tok", "moe_intermediate_size",
                                           "n_shared_experts", "shared_expert_intermediate_size",
                                           "first_k_dense_replace", "moe_layer_freq", "num_nextn_predict_layers",
                                           "decoder_sparse_step", "mlp_only_layers", "q_lora_rank", "kv_lora_rank",
                                           "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "rope_theta",
                                           "scoring_func", "topk_method", "n_group", "topk_group",
                                           "routed_scaling_factor", "sliding_window", "use_sliding_window",
                                           "layer_types", "sliding_window_pattern", "swiglu_limit", NULL};

typedef struct hf_int_key {
    const char *key;
    size_t offset; /* of the int in pp_model */
    int max;
} hf_int_key;

static const hf_int_key hf_required_ints[] = {
    {"num_hidden_layers", offsetof(pp_model, layers), PP_MAX_LAYERS},
    {"hidden_size", offsetof(pp_model, hidden), PP_MAX_HIDDEN},
    {"num_attention_heads", offsetof(pp_model, heads), PP_MAX_HEADS},
    {"intermediate_size", offsetof(pp_model, ffn_hidden), PP_MAX_FFN_HIDDEN},
    {"vocab_size", offsetof(pp_model, vocab), PP_MAX_VOCAB},
};

/* Resolve a config path against the problem file's directory. */
static void resolve_path(const char *base_dir, const char *rel, char *out, size_t cap)
{
    if (rel[0] == '/' || !base_dir || !base_dir[0] || strcmp(base_dir, ".") == 0)
        snprintf(out, cap, "%s", rel);
    else
        snprintf(out, cap, "%s/%s", base_dir, rel);
}

static int fail_missing_hf_key(const cJSON *cfg, const pp_jpath *at, const char *key, pp_error *err)
{
    if (pp_json_member(cfg, "n_layer") || pp_json_member(cfg, "n_embd"))
        return pp_json_fail(err, at,
                            "missing required key '%s': this looks like a GPT-2-style config (n_layer, n_embd, "
                            "n_head), which parplan does not read; describe the model with layers, hidden, "
                            "heads, vocab and seq_len instead",
                            key);
    return pp_json_missing(at, key, err);
}

static int read_hf_ints(const cJSON *cfg, const pp_jpath *at, pp_model *m, pp_error *err)
{
    for (size_t i = 0; i < sizeof hf_required_ints / sizeof hf_required_ints[0]; i++) {
        const hf_int_key *k = &hf_required_ints[i];
        const cJSON *item = pp_json_member(cfg, k->key);
        if (!item || cJSON_IsNull(item))
            return fail_missing_hf_key(cfg, at, k->key, err);
        pp_jpath here = pp_jpath_key(at, k->key);
        int rc = pp_json_as_int(item, &here, 1, k->max, (int *)((char *)m + k->offset), err);
        if (rc)
            return rc;
    }
    m->kv_heads = m->heads;
    const cJSON *kv = pp_json_member(cfg, "num_key_value_heads");
    pp_jpath kv_at = pp_jpath_key(at, "num_key_value_heads");
    int rc = (kv && !cJSON_IsNull(kv)) ? pp_json_as_int(kv, &kv_at, 1, PP_MAX_HEADS, &m->kv_heads, err) : PP_OK;
    const cJSON *hd = pp_json_member(cfg, "head_dim"); /* absent or null: hidden_size / num_attention_heads */
    pp_jpath hd_at = pp_jpath_key(at, "head_dim");
    if (!rc && hd && !cJSON_IsNull(hd))
        rc = pp_json_as_int(hd, &hd_at, 1, PP_MAX_HEAD_DIM, &m->head_dim, err);
    return rc;
}

/* An optional integer key of the config (absent or null: *out unchanged). */
static int hf_opt_int(const cJSON *cfg, const pp_jpath *at, const char *key, int lo, int hi, int *out, pp_error *err)
{
    const cJSON *item = pp_json_member(cfg, key);
    if (!item || cJSON_IsNull(item))
        return PP_OK;
    pp_jpath here = pp_jpath_key(at, key);
    return pp_json_as_int(item, &here, lo, hi, out, err);
}

/* Mixture of experts, in each family's keys (docs/cost-model.md section 9):
 *   Mixtral     num_local_experts, num_experts_per_tok; every layer MoE, the
 *               experts intermediate_size wide
 *   DeepSeek    n_routed_experts, num_experts_per_tok, moe_intermediate_size,
 *               n_shared_experts (each moe_intermediate_size wide),
 *               first_k_dense_replace, moe_layer_freq, num_nextn_predict_layers
 *   Qwen-MoE    num_experts, num_experts_per_tok, moe_intermediate_size,
 *               decoder_sparse_step (1: every layer), mlp_only_layers (empty),
 *               shared_expert_intermediate_size (Qwen2-MoE's one shared expert)
 * A dense config may carry num_experts 0 or 1. */
static int read_hf_moe(const cJSON *cfg, const pp_jpath *at, pp_model *m, pp_error *err)
{
    int e = 0, rc = PP_OK;
    static const char *const expert_keys[] = {"num_local_experts", "n_routed_experts", "num_experts"};
    for (size_t i = 0; i < 3 && !rc && e == 0; i++) {
        int v = 0;
        rc = hf_opt_int(cfg, at, expert_keys[i], 0, PP_MAX_EXPERTS, &v, err);
        if (v > 1)
            e = v;
    }
    if (rc || e == 0)
        return rc;
    m->experts = e;
    m->moe_ffn_hidden = m->ffn_hidden; /* Mixtral: intermediate_size */
    m->moe_layer_freq = 1;
    rc = hf_opt_int(cfg, at, "num_experts_per_tok", 1, e, &m->experts_per_token, err);
    if (!rc && m->experts_per_token == 0)
        return pp_json_missing(at, "num_experts_per_tok", err);
    if (!rc)
        rc = hf_opt_int(cfg, at, "moe_intermediate_size", 1, PP_MAX_FFN_HIDDEN, &m->moe_ffn_hidden, err);
    if (!rc)
        rc = hf_opt_int(cfg, at, "n_shared_experts", 0, PP_MAX_EXPERTS, &m->shared_experts, err);
    if (!rc && m->shared_experts > 0) {
        /* their total width, within what a model object may say (n x width
         * can pass an int: both are range-checked, their product is not) */
        long width = (long)m->shared_experts * m->moe_ffn_hidden;
        if (width > PP_MAX_FFN_HIDDEN) {
            pp_jpath here = pp_jpath_key(at, "n_shared_experts");
            return pp_json_fail(err, &here,
                                "expected n_shared_experts x moe_intermediate_size <= %d (the shared experts' total "
                                "width), found %d x %d",
                                PP_MAX_FFN_HIDDEN, m->shared_experts, m->moe_ffn_hidden);
        }
        m->shared_ffn_hidden = (int)width;
    }
    int shared_width = 0;
    if (!rc)
        rc = hf_opt_int(cfg, at, "shared_expert_intermediate_size", 0, PP_MAX_FFN_HIDDEN, &shared_width, err);
    if (!rc && shared_width > 0) {
        m->shared_experts = 1;
        m->shared_ffn_hidden = shared_width;
    }
    if (!rc)
        rc = hf_opt_int(cfg, at, "first_k_dense_replace", 0, PP_MAX_LAYERS, &m->first_dense_layers, err);
    if (!rc)
        rc = hf_opt_int(cfg, at, "moe_layer_freq", 1, PP_MAX_LAYERS, &m->moe_layer_freq, err);
    if (!rc)
        rc = hf_opt_int(cfg, at, "num_nextn_predict_layers", 0, PP_MAX_LAYERS, &m->mtp_layers, err);
    int step = 1;
    if (!rc)
        rc = hf_opt_int(cfg, at, "decoder_sparse_step", 1, PP_MAX_LAYERS, &step, err);
    if (!rc && step != 1) {
        pp_jpath here = pp_jpath_key(at, "decoder_sparse_step");
        return pp_json_fail(err, &here,
                            "expected decoder_sparse_step 1 (every layer MoE), found %d: parplan places MoE layers "
                            "at i %% freq == 0 (Megatron's --moe-layer-freq), not at (i + 1) %% step == 0",
                            step);
    }
    const cJSON *only = pp_json_member(cfg, "mlp_only_layers");
    if (!rc && cJSON_IsArray(only) && cJSON_GetArraySize(only) > 0) {
        pp_jpath here = pp_jpath_key(at, "mlp_only_layers");
        return pp_json_fail(err, &here, "expected an empty list (every layer MoE), found %d dense layers listed",
                            cJSON_GetArraySize(only));
    }
    return rc;
}

/* Multi-head latent attention (DeepSeek-V2/V3): kv_lora_rank and the head
 * dimensions; q_lora_rank null means queries are projected directly. */
static int read_hf_mla(const cJSON *cfg, const pp_jpath *at, pp_model *m, pp_error *err)
{
    int rc = hf_opt_int(cfg, at, "kv_lora_rank", 0, PP_MAX_HIDDEN, &m->kv_lora_rank, err);
    if (rc || m->kv_lora_rank == 0)
        return rc;
    static const struct {
        const char *key;
        size_t off;
    } dims[] = {{"qk_nope_head_dim", offsetof(pp_model, qk_nope_head_dim)},
                {"qk_rope_head_dim", offsetof(pp_model, qk_rope_head_dim)},
                {"v_head_dim", offsetof(pp_model, v_head_dim)}};
    for (size_t i = 0; i < 3 && !rc; i++) {
        int *v = (int *)((char *)m + dims[i].off);
        rc = hf_opt_int(cfg, at, dims[i].key, 1, PP_MAX_HEAD_DIM, v, err);
        if (!rc && *v == 0)
            return pp_json_missing(at, dims[i].key, err);
    }
    if (!rc)
        rc = hf_opt_int(cfg, at, "q_lora_rank", 0, PP_MAX_HIDDEN, &m->q_lora_rank, err);
    m->head_dim = m->v_head_dim; /* the value width; keys are d_nope + d_rope */
    m->kv_heads = m->heads;
    return rc;
}

/* SwiGLU families (silu, swish) use three MLP matrices, GELU and ReLU ones
 * two.  Gemma is the exception: it gates a GELU. */
static int read_hf_activation(const cJSON *cfg, const pp_jpath *at, pp_model *m, pp_error *err)
{
    const cJSON *act = pp_json_member(cfg, "hidden_act");
    const cJSON *type = pp_json_member(cfg, "model_type");
    pp_jpath here = pp_jpath_key(at, "hidden_act");
    m->gated_mlp = false;
    if (!act || cJSON_IsNull(act))
        return PP_OK;
    if (!cJSON_IsString(act))
        return pp_json_fail_expected(err, &here, "a string", act);
    const char *a = act->valuestring;
    bool gemma = cJSON_IsString(type) && strncmp(type->valuestring, "gemma", 5) == 0;
    if (strcmp(a, "silu") == 0 || strcmp(a, "swiglu") == 0 || strcmp(a, "swish") == 0)
        m->gated_mlp = true;
    else if (strncmp(a, "gelu", 4) == 0 || strcmp(a, "quick_gelu") == 0 || strcmp(a, "relu") == 0)
        m->gated_mlp = gemma;
    else {
        char quoted[64];
        pp_json_quote(a, quoted, sizeof quoted);
        return pp_json_fail(err, &here, "expected 'silu', 'swiglu', 'swish', 'relu' or 'gelu...', found %s",
                            quoted);
    }
    return PP_OK;
}

static int read_hf_flags(const cJSON *cfg, const pp_jpath *at, pp_model *m, pp_error *err)
{
    m->tie_embeddings = true; /* transformers' PretrainedConfig default */
    const cJSON *tie = pp_json_member(cfg, "tie_word_embeddings");
    pp_jpath here = pp_jpath_key(at, "tie_word_embeddings");
    int rc = (tie && !cJSON_IsNull(tie)) ? pp_json_as_bool(tie, &here, &m->tie_embeddings, err) : PP_OK;
    return rc ? rc : read_hf_activation(cfg, at, m, err);
}

/* seq_len: the problem's, required; never more than max_position_embeddings. */
static int choose_seq_len(const cJSON *obj, const pp_jpath *at, const cJSON *cfg, const pp_jpath *cfg_at,
                          pp_model *m, pp_error *err)
{
    int max_pos = 0;
    const cJSON *mp = pp_json_member(cfg, "max_position_embeddings");
    pp_jpath mp_at = pp_jpath_key(cfg_at, "max_position_embeddings");
    int rc = (mp && !cJSON_IsNull(mp)) ? pp_json_as_int(mp, &mp_at, 1, PP_MAX_SEQ_LEN, &max_pos, err) : PP_OK;
    if (rc)
        return rc;
    if (!pp_json_member(obj, "seq_len")) {
        char most[64] = "";
        if (max_pos)
            snprintf(most, sizeof most, " (at most its max_position_embeddings, %d)", max_pos);
        return pp_json_fail(err, at,
                            "missing required key 'seq_len': the Hugging Face config %.600s does not say the "
                            "sequence length you train with; give it beside hf_config, e.g. \"seq_len\": 4096%s",
                            cfg_at->origin, most);
    }
    rc = pp_json_int(obj, at, "seq_len", PP_REQUIRED, 1, PP_MAX_SEQ_LEN, &m->seq_len, err);
    if (rc)
        return rc;
    if (max_pos && m->seq_len > max_pos) {
        pp_jpath here = pp_jpath_key(at, "seq_len");
        return pp_json_fail(err, &here, "expected seq_len <= max_position_embeddings (%d) of the config, found %d",
                            max_pos, m->seq_len);
    }
    return PP_OK;
}

/* name: the problem's, else the config's _name_or_path, else the file name. */
static int choose_name(const cJSON *obj, const pp_jpath *at, const cJSON *cfg, const char *path, pp_model *m,
                       pp_error *err)
{
    const cJSON *given = pp_json_member(cfg, "_name_or_path");
    const char *slash = strrchr(path, '/');
    snprintf(m->name, sizeof m->name, "%.120s", slash ? slash + 1 : path);
    if (cJSON_IsString(given) && given->valuestring[0])
        snprintf(m->name, sizeof m->name, "%.120s", given->valuestring);
    return pp_json_string(obj, at, "name", PP_OPTIONAL, m->name, sizeof m->name, err);
}

/* What only the launch settings read: the rotary base, norms on queries and
 * keys, and DeepSeek-V3's router (modeling_deepseek.py MoEGate: scoring_func
 * "sigmoid", topk_method "noaux_tc" with its e_score_correction_bias, n_group
 * and topk_group for group-limited routing, routed_scaling_factor).  Qwen3
 * normalizes each head's queries and keys (modeling_qwen3.py q_norm, k_norm);
 * latent attention normalizes its latents (q_a_layernorm, kv_a_layernorm),
 * which Megatron-LM's --qk-layernorm turns on for MLA. */
static int read_hf_arch(const cJSON *cfg, const pp_jpath *at, pp_model *m, pp_error *err)
{
    const cJSON *type = pp_json_member(cfg, "model_type");
    m->qk_layernorm = (cJSON_IsString(type) && strncmp(type->valuestring, "qwen3", 5) == 0) || m->kv_lora_rank > 0;
    const cJSON *theta = pp_json_member(cfg, "rope_theta");
    pp_jpath here = pp_jpath_key(at, "rope_theta");
    int rc = theta && !cJSON_IsNull(theta) ? pp_json_as_double(theta, &here, 1.0, 1e12, &m->rope_theta, err) : PP_OK;
    /* GPT-OSS (modeling_gpt_oss.py): a learned sink logit per head, and the
     * experts' GLU x_glu * sigmoid(1.702 x_glu) * (x_linear + 1), its
     * inputs clamped to swiglu_limit (7.0 by default) */
    if (!rc && cJSON_IsString(type) && strcmp(type->valuestring, "gpt_oss") == 0) {
        m->attention_sinks = true;
        m->quick_geglu = m->gated_mlp;
        m->glu_linear_offset = 1.0;
        m->activation_clamp = 7.0;
        const cJSON *limit = pp_json_member(cfg, "swiglu_limit");
        here = pp_jpath_key(at, "swiglu_limit");
        if (limit && !cJSON_IsNull(limit))
            rc = pp_json_as_double(limit, &here, 1e-3, 1e6, &m->activation_clamp, err);
    }
    if (rc || m->experts == 0)
        return rc;
    const cJSON *score = pp_json_member(cfg, "scoring_func");
    m->router_sigmoid = cJSON_IsString(score) && strcmp(score->valuestring, "sigmoid") == 0;
    const cJSON *method = pp_json_member(cfg, "topk_method");
    m->router_expert_bias = cJSON_IsString(method) && strcmp(method->valuestring, "noaux_tc") == 0;
    rc = hf_opt_int(cfg, at, "n_group", 0, m->experts, &m->router_groups, err);
    if (!rc)
        rc = hf_opt_int(cfg, at, "topk_group", 0, m->experts, &m->router_group_topk, err);
    if (!rc && m->router_groups <= 1) /* one group: no group limit */
        m->router_groups = m->router_group_topk = 0;
    const cJSON *scale = pp_json_member(cfg, "routed_scaling_factor");
    here = pp_jpath_key(at, "routed_scaling_factor");
    if (!rc && scale && !cJSON_IsNull(scale))
        rc = pp_json_as_double(scale, &here, 1e-3, 1e3, &m->router_scaling, err);
    return rc;
}

/* Layers that are not attention and an MLP: a state-space or linear-
 * attention mixer (Mamba-2 in Nemotron-H's hybrid_override_pattern and
 * Jamba's, Gated DeltaNet in Qwen3-Next's three of four layers), which no
 * term of the cost model prices (docs/cost-model.md, known limits).  Read
 * as a transformer the model would be priced as one: refused, the key or
 * the model type that says so named. */
static const struct {
    const char *key; /* a config key (NULL: model_type below) */
    const char *model_type;
    const char *what;
} hf_mixers[] = {
    {"hybrid_override_pattern", NULL, "Mamba-2 state-space mixers (Nemotron-H's layer pattern)"},
    {"layers_block_type", NULL, "state-space mixers (a hybrid's layer types)"},
    {"attn_layer_period", NULL, "Mamba mixers between its attention layers (Jamba)"},
    {"ssm_state_size", NULL, "state-space mixers"},
    {"mamba_num_heads", NULL, "Mamba-2 mixers"},
    {"full_attention_interval", NULL, "Gated DeltaNet linear attention (Qwen3-Next: full attention every few layers)"},
    {"linear_num_value_heads", NULL, "linear-attention mixers (Qwen3-Next's Gated DeltaNet)"},
    {NULL, "nemotron_h", "Mamba-2 state-space mixers (Nemotron-H)"},
    {NULL, "mamba", "Mamba state-space mixers"},
    {NULL, "mamba2", "Mamba-2 state-space mixers"},
    {NULL, "jamba", "Mamba mixers (Jamba)"},
    {NULL, "falcon_h1", "Mamba-2 mixers beside attention (Falcon-H1)"},
    {NULL, "zamba2", "Mamba-2 mixers (Zamba2)"},
    {NULL, "bamba", "Mamba-2 mixers (Bamba)"},
    {NULL, "granitemoehybrid", "Mamba-2 mixers (Granite 4.0 hybrids)"},
    {NULL, "qwen3_next", "Gated DeltaNet linear attention (Qwen3-Next)"},
    {NULL, "rwkv", "RWKV's recurrent time mixing"},
    {NULL, "recurrent_gemma", "RG-LRU recurrent blocks (RecurrentGemma)"},
};

static int refuse_hf_mixers(const cJSON *cfg, const pp_jpath *at, pp_error *err)
{
    const cJSON *type = pp_json_member(cfg, "model_type");
    for (size_t i = 0; i < sizeof hf_mixers / sizeof hf_mixers[0]; i++) {
        const char *key = hf_mixers[i].key ? hf_mixers[i].key : "model_type";
        const cJSON *v = pp_json_member(cfg, key);
        bool hit = hf_mixers[i].key ? v != NULL && !cJSON_IsNull(v)
                                    : cJSON_IsString(type) && strcmp(type->valuestring, hf_mixers[i].model_type) == 0;
        if (hit) {
            pp_jpath here = pp_jpath_key(at, key);
            return pp_json_fail(err, &here,
                                "expected a transformer whose every layer is attention and an MLP (or experts); "
                                "this config's layers include %s, which parplan does not price (docs/cost-model.md, "
                                "known limits)",
                                hf_mixers[i].what);
        }
    }
    /* layer_types naming a kind other than attention (Qwen3-Next's "linear_attention") */
    const cJSON *types = pp_json_member(cfg, "layer_types"), *t;
    int i = 0;
    if (cJSON_IsArray(types))
        cJSON_ArrayForEach(t, types)
        {
            if (cJSON_IsString(t) && strcmp(t->valuestring, "full_attention") != 0 &&
                strcmp(t->valuestring, "sliding_attention") != 0) {
                pp_jpath list = pp_jpath_key(at, "layer_types"), here = pp_jpath_index(&list, i);
                return pp_json_fail(err, &here,
                                    "expected 'full_attention' or 'sliding_attention' layers: a '%s' layer is not "
                                    "attention, which parplan does not price (docs/cost-model.md, known limits)",
                                    t->valuestring);
            }
            i++;
        }
    return PP_OK;
}

/* Sliding-window attention (docs/cost-model.md §2, attention core): sliding_window
 * tokens (null or absent: none; Qwen's use_sliding_window false: none), on
 * the layers layer_types lists as "sliding_attention" (GPT-OSS, Gemma 3),
 * else every sliding_window_pattern-th layer full (Gemma 3's older
 * configs), else every other layer (Gemma 2, whose modeling code
 * alternates), else every layer (Mistral 7B v0.1).  parplan prices the
 * pattern Megatron-LM runs, every N-th layer full (--window-attn-skip-freq),
 * so layer_types must be that pattern or all sliding. */
static int read_hf_window(const cJSON *cfg, const pp_jpath *at, pp_model *m, pp_error *err)
{
    const cJSON *use = pp_json_member(cfg, "use_sliding_window");
    if (cJSON_IsFalse(use))
        return PP_OK;
    int rc = hf_opt_int(cfg, at, "sliding_window", 0, PP_MAX_SEQ_LEN, &m->sliding_window, err);
    if (rc || m->sliding_window == 0)
        return rc;
    const cJSON *types = pp_json_member(cfg, "layer_types");
    const cJSON *type = pp_json_member(cfg, "model_type");
    if (types && !cJSON_IsNull(types)) {
        pp_jpath here = pp_jpath_key(at, "layer_types");
        int n = cJSON_IsArray(types) ? cJSON_GetArraySize(types) : -1, full = 0;
        if (n != m->layers)
            return pp_json_fail(err, &here, "expected a list of num_hidden_layers (%d) layer types, found %s", m->layers,
                                n < 0 ? "no list" : "another length");
        for (int i = 0; i < n; i++) {
            const cJSON *t = cJSON_GetArrayItem(types, i);
            bool is_full = cJSON_IsString(t) && strcmp(t->valuestring, "full_attention") == 0;
            bool sliding = cJSON_IsString(t) && strcmp(t->valuestring, "sliding_attention") == 0;
            if (!is_full && !sliding) {
                pp_jpath item = pp_jpath_index(&here, i);
                return pp_json_fail_expected(err, &item, "'sliding_attention' or 'full_attention'", t);
            }
            if (is_full && full == 0)
                full = i + 1; /* the first full layer's number: the period */
        }
        m->window_attn_skip_freq = full;
        for (int i = 0; i < n && full > 0; i++) {
            const cJSON *t = cJSON_GetArrayItem(types, i);
            if ((strcmp(t->valuestring, "full_attention") == 0) != ((i + 1) % full == 0)) {
                pp_jpath item = pp_jpath_index(&here, i);
                return pp_json_fail(err, &item,
                                    "expected the layers whose number is a multiple of %d full and the others "
                                    "sliding (the first layers' pattern: parplan prices periodic ones, "
                                    "Megatron-LM's --window-attn-skip-freq), found '%s'",
                                    full, t->valuestring);
            }
        }
        if (full == 1) /* every layer full: the window is never used */
            m->sliding_window = m->window_attn_skip_freq = 0;
        return PP_OK;
    }
    rc = hf_opt_int(cfg, at, "sliding_window_pattern", 2, PP_MAX_LAYERS, &m->window_attn_skip_freq, err);
    if (!rc && m->window_attn_skip_freq == 0 && cJSON_IsString(type) && strcmp(type->valuestring, "gemma2") == 0)
        m->window_attn_skip_freq = 2;
    return rc;
}

static int model_from_config(const cJSON *obj, const pp_jpath *at, const cJSON *cfg, const char *path,
                             pp_model *m, pp_error *err)
{
    pp_jpath cfg_at = pp_jpath_root(path);
    int rc = pp_json_check_unique(cfg, &cfg_at, hf_read_keys, err);
    if (!rc)
        rc = refuse_hf_mixers(cfg, &cfg_at, err);
    if (!rc)
        rc = read_hf_ints(cfg, &cfg_at, m, err);
    if (!rc)
        rc = read_hf_moe(cfg, &cfg_at, m, err);
    if (!rc)
        rc = read_hf_mla(cfg, &cfg_at, m, err);
    if (!rc)
        rc = read_hf_flags(cfg, &cfg_at, m, err);
    if (!rc)
        rc = read_hf_arch(cfg, &cfg_at, m, err);
    if (!rc)
        rc = read_hf_window(cfg, &cfg_at, m, err);
    if (!rc)
        rc = choose_seq_len(obj, at, cfg, &cfg_at, m, err);
    if (!rc)
        rc = choose_name(obj, at, cfg, path, m, err);
    return rc ? rc : pp_model_validate(m, at, err);
}

static int fail_unreadable(const pp_jpath *at, const char *path, pp_error *err)
{
    char why[sizeof err->msg];
    snprintf(why, sizeof why, "%s", err->msg);
    pp_jpath here = pp_jpath_key(at, "hf_config");
    return pp_json_fail(err, &here, "expected a readable Hugging Face config.json, found '%.900s': %.100s", path,
                        why);
}

int pp_model_from_hf(const cJSON *obj, const pp_jpath *at, const char *base_dir, pp_model *m, pp_error *err)
{
    memset(m, 0, sizeof *m);
    char rel[1024], path[2048];
    int rc = pp_json_check_keys(obj, at, hf_problem_keys, err);
    if (!rc)
        rc = pp_json_string(obj, at, "hf_config", PP_REQUIRED, rel, sizeof rel, err);
    if (rc)
        return rc;
    if (!rel[0]) {
        pp_jpath here = pp_jpath_key(at, "hf_config");
        return pp_json_fail(err, &here, "expected the path of a config.json, found an empty string");
    }
    resolve_path(base_dir, rel, path, sizeof path);
    cJSON *cfg = NULL;
    rc = pp_json_load_object(path, &cfg, err);
    if (rc && err && strcmp(err->path, path) == 0) /* not readable: say where it was asked for */
        rc = fail_unreadable(at, path, err);
    if (rc == PP_OK)
        rc = model_from_config(obj, at, cfg, path, m, err);
    cJSON_Delete(cfg);
    return rc;
}
