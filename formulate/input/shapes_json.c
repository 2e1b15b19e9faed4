/*
 * shapes_json.c: reading model shapes and GPUs from JSON objects, for the
 * catalogs and for problems alike (see shapes_json.h).
 *
 * The integer fields of a model are described once, in model_int_fields, with
 * their limits; reading and validating both walk that table, so a limit
 * cannot differ between a catalog entry, a problem and a Hugging Face config.
 */
#include "shapes_json.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "names.h"

const char *const pp_model_keys[] = {"name",      "layers",     "hidden",    "heads",          "kv_heads",
                                     "head_dim",  "ffn_hidden", "gated_mlp", "tie_embeddings", "vocab",
                                     "seq_len",   "loss_token_fraction", "sliding_window", "window_attn_skip_freq",
                                     PP_MODEL_MOE_KEYS, PP_MODEL_ARCH_KEYS, NULL};

typedef struct model_int_field {
    const char *key;
    size_t offset; /* of the int in pp_model */
    int max;
    bool required; /* else a default is derived from the others */
    bool zero_ok;  /* 0 stays, meaning "derived from the others" (head_dim) */
} model_int_field;

static const model_int_field model_int_fields[] = {
    {"layers", offsetof(pp_model, layers), PP_MAX_LAYERS, true, false},
    {"hidden", offsetof(pp_model, hidden), PP_MAX_HIDDEN, true, false},
    {"heads", offsetof(pp_model, heads), PP_MAX_HEADS, true, false},
    {"kv_heads", offsetof(pp_model, kv_heads), PP_MAX_HEADS, false, false},
    {"head_dim", offsetof(pp_model, head_dim), PP_MAX_HEAD_DIM, false, true},
    {"ffn_hidden", offsetof(pp_model, ffn_hidden), PP_MAX_FFN_HIDDEN, false, false},
    {"vocab", offsetof(pp_model, vocab), PP_MAX_VOCAB, true, false},
    {"seq_len", offsetof(pp_model, seq_len), PP_MAX_SEQ_LEN, true, false},
    /* sliding-window attention: 0 = none; every layer windowed */
    {"sliding_window", offsetof(pp_model, sliding_window), PP_MAX_SEQ_LEN, false, true},
    {"window_attn_skip_freq", offsetof(pp_model, window_attn_skip_freq), PP_MAX_LAYERS, false, true},
    /* Mixture of experts and multi-head latent attention: 0 = none */
    {"experts", offsetof(pp_model, experts), PP_MAX_EXPERTS, false, true},
    {"experts_per_token", offsetof(pp_model, experts_per_token), PP_MAX_EXPERTS, false, true},
    {"moe_ffn_hidden", offsetof(pp_model, moe_ffn_hidden), PP_MAX_FFN_HIDDEN, false, true},
    {"shared_experts", offsetof(pp_model, shared_experts), PP_MAX_EXPERTS, false, true},
    {"shared_ffn_hidden", offsetof(pp_model, shared_ffn_hidden), PP_MAX_FFN_HIDDEN, false, true},
    {"first_dense_layers", offsetof(pp_model, first_dense_layers), PP_MAX_LAYERS, false, true},
    {"moe_layer_freq", offsetof(pp_model, moe_layer_freq), PP_MAX_LAYERS, false, true},
    {"mtp_layers", offsetof(pp_model, mtp_layers), PP_MAX_LAYERS, false, true},
    {"q_lora_rank", offsetof(pp_model, q_lora_rank), PP_MAX_HIDDEN, false, true},
    {"kv_lora_rank", offsetof(pp_model, kv_lora_rank), PP_MAX_HIDDEN, false, true},
    {"qk_nope_head_dim", offsetof(pp_model, qk_nope_head_dim), PP_MAX_HEAD_DIM, false, true},
    {"qk_rope_head_dim", offsetof(pp_model, qk_rope_head_dim), PP_MAX_HEAD_DIM, false, true},
    {"v_head_dim", offsetof(pp_model, v_head_dim), PP_MAX_HEAD_DIM, false, true},
    /* group-limited routing: 0 = none */
    {"router_groups", offsetof(pp_model, router_groups), PP_MAX_EXPERTS, false, true},
    {"router_group_topk", offsetof(pp_model, router_group_topk), PP_MAX_EXPERTS, false, true},
};
#define N_MODEL_INT_FIELDS ((int)(sizeof model_int_fields / sizeof model_int_fields[0]))

static int *model_int(pp_model *m, const model_int_field *f)
{
    return (int *)((char *)m + f->offset);
}

static int model_int_value(const pp_model *m, const model_int_field *f)
{
    return *(const int *)((const char *)m + f->offset);
}

/* ---- models --------------------------------------------------------------- */

int pp_moe_layer_count(const pp_model *m)
{
    int n = 0, f = m->moe_layer_freq > 0 ? m->moe_layer_freq : 1;
    for (int i = m->first_dense_layers; i < m->layers; i++)
        n += i % f == 0;
    return n;
}

void pp_model_moe_defaults(pp_model *m)
{
    if (m->experts > 0) {
        if (m->moe_ffn_hidden == 0)
            m->moe_ffn_hidden = m->ffn_hidden;
        if (m->moe_layer_freq == 0)
            m->moe_layer_freq = 1;
    }
    if (m->kv_lora_rank > 0) { /* latent attention: every head has its keys and values */
        if (m->head_dim == 0)
            m->head_dim = m->v_head_dim;
        m->kv_heads = m->heads;
    }
}

static int check_model_ranges(const pp_model *m, const pp_jpath *at, pp_error *err)
{
    for (int i = 0; i < N_MODEL_INT_FIELDS; i++) {
        const model_int_field *f = &model_int_fields[i];
        int v = model_int_value(m, f);
        if (v == 0 && f->zero_ok)
            continue;
        if (v < 1 || v > f->max) {
            pp_jpath here = pp_jpath_key(at, f->key);
            return pp_json_fail(err, &here, "expected an integer in 1..%d, found %d", f->max, v);
        }
    }
    return PP_OK;
}

/* A MoE model routes each token to 1..experts experts, has a MoE layer at
 * all, and shared experts only with a width; an MLA model gives every head
 * dimension, and head_dim is its value width. */
static int check_moe_mla(const pp_model *m, const pp_jpath *at, pp_error *err)
{
    const char *bad = NULL;
    char why[160] = "";
    if (m->experts > 0) {
        if (m->experts_per_token < 1 || m->experts_per_token > m->experts)
            bad = "experts_per_token", snprintf(why, sizeof why, "an integer in 1..experts (%d), found %d", m->experts,
                                                m->experts_per_token);
        else if (m->moe_ffn_hidden < 1)
            bad = "moe_ffn_hidden", snprintf(why, sizeof why, "the width of one routed expert, found %d",
                                             m->moe_ffn_hidden);
        else if ((m->shared_experts > 0) != (m->shared_ffn_hidden > 0))
            bad = "shared_ffn_hidden", snprintf(why, sizeof why,
                                                "a width exactly when shared_experts > 0, found shared_experts %d "
                                                "and shared_ffn_hidden %d",
                                                m->shared_experts, m->shared_ffn_hidden);
        else if (pp_moe_layer_count(m) == 0)
            bad = "first_dense_layers", snprintf(why, sizeof why,
                                                 "at least one MoE layer, found none of the %d layers (first %d "
                                                 "dense, every %d-th MoE)",
                                                 m->layers, m->first_dense_layers, m->moe_layer_freq);
    } else if (m->experts_per_token || m->moe_ffn_hidden || m->shared_experts || m->shared_ffn_hidden) {
        bad = "experts", snprintf(why, sizeof why, "a count of routed experts with the other MoE keys, found 0");
    }
    if (!bad && m->kv_lora_rank > 0) {
        if (m->qk_nope_head_dim < 1 || m->qk_rope_head_dim < 1 || m->v_head_dim < 1)
            bad = "v_head_dim", snprintf(why, sizeof why,
                                         "qk_nope_head_dim, qk_rope_head_dim and v_head_dim with kv_lora_rank, found "
                                         "%d, %d, %d",
                                         m->qk_nope_head_dim, m->qk_rope_head_dim, m->v_head_dim);
        else if (m->kv_heads != m->heads || pp_model_head_dim(m) != m->v_head_dim)
            bad = "head_dim", snprintf(why, sizeof why,
                                       "head_dim = v_head_dim (%d) and kv_heads = heads with latent attention, found "
                                       "%d and %d",
                                       m->v_head_dim, pp_model_head_dim(m), m->kv_heads);
    } else if (!bad && (m->q_lora_rank || m->qk_nope_head_dim || m->qk_rope_head_dim || m->v_head_dim)) {
        bad = "kv_lora_rank", snprintf(why, sizeof why, "a latent rank with the other latent-attention keys, found 0");
    }
    if (!bad && (m->router_groups || m->router_group_topk) &&
        (m->experts == 0 || m->router_groups < 1 || m->experts % m->router_groups ||
         m->router_group_topk < 1 || m->router_group_topk > m->router_groups))
        bad = "router_groups", snprintf(why, sizeof why,
                                        "groups dividing the experts (%d) and router_group_topk in 1..groups, found "
                                        "%d groups, top %d",
                                        m->experts, m->router_groups, m->router_group_topk);
    if (!bad)
        return PP_OK;
    pp_jpath here = pp_jpath_key(at, bad);
    return pp_json_fail(err, &here, "expected %s", why);
}

/* A window is a causal model's (a masked LM attends both ways), and the
 * full-attention layers' frequency comes with a window and leaves some
 * layers windowed (1 would make every layer full). */
static int check_window(const pp_model *m, const pp_jpath *at, pp_error *err)
{
    if (m->window_attn_skip_freq > 0 && (m->sliding_window == 0 || m->window_attn_skip_freq < 2)) {
        pp_jpath here = pp_jpath_key(at, "window_attn_skip_freq");
        return pp_json_fail(err, &here,
                            "expected an integer >= 2 (every N-th layer attends to the whole sequence) with "
                            "sliding_window, found %d with sliding_window %d",
                            m->window_attn_skip_freq, m->sliding_window);
    }
    if (m->sliding_window > 0 && m->loss_token_fraction > 0.0 && m->loss_token_fraction < 1.0) {
        pp_jpath here = pp_jpath_key(at, "sliding_window");
        return pp_json_fail(err, &here,
                            "expected no sliding_window for a masked LM (loss_token_fraction %g < 1): a window is "
                            "priced over the tokens before each query, a causal LM's",
                            m->loss_token_fraction);
    }
    return PP_OK;
}

int pp_model_validate(const pp_model *m, const pp_jpath *at, pp_error *err)
{
    int rc = check_model_ranges(m, at, err);
    if (!rc)
        rc = check_moe_mla(m, at, err);
    if (!rc)
        rc = check_window(m, at, err);
    if (rc)
        return rc;
    if (m->head_dim == 0 && m->hidden % m->heads != 0) {
        pp_jpath here = pp_jpath_key(at, "heads");
        return pp_json_fail(err, &here,
                            "expected heads to divide hidden (%d) or a head_dim, found heads %d (hidden %% heads = %d)",
                            m->hidden, m->heads, m->hidden % m->heads);
    }
    if ((long)m->heads * m->head_dim > PP_MAX_HIDDEN) {
        pp_jpath here = pp_jpath_key(at, "head_dim");
        return pp_json_fail(err, &here, "expected heads x head_dim <= %d, found %d x %d", PP_MAX_HIDDEN, m->heads,
                            m->head_dim);
    }
    if (m->heads % m->kv_heads != 0) {
        pp_jpath here = pp_jpath_key(at, "kv_heads");
        return pp_json_fail(err, &here,
                            "expected kv_heads to divide heads (%d), found kv_heads %d (heads %% kv_heads = %d)",
                            m->heads, m->kv_heads, m->heads % m->kv_heads);
    }
    return PP_OK;
}

static int read_model_ints(const cJSON *obj, const pp_jpath *at, pp_model *m, pp_error *err)
{
    for (int i = 0; i < N_MODEL_INT_FIELDS; i++) {
        const model_int_field *f = &model_int_fields[i];
        int rc = pp_json_int(obj, at, f->key, f->required ? PP_REQUIRED : PP_OPTIONAL, f->zero_ok ? 0 : 1, f->max,
                             model_int(m, f), err);
        if (rc)
            return rc;
    }
    return PP_OK;
}

/* Megatron-Bridge's recipe of the model: { "name": the recipe function's
 * Python path, "source": where it is defined }. */
static int read_bridge_recipe(const cJSON *obj, const pp_jpath *at, pp_model *m, pp_error *err)
{
    const cJSON *r = pp_json_member(obj, "bridge_recipe");
    if (!r)
        return PP_OK;
    static const char *const keys[] = {"name", "source", NULL};
    pp_jpath here = pp_jpath_key(at, "bridge_recipe");
    int rc = pp_json_expect_object(r, &here, err);
    if (!rc)
        rc = pp_json_check_keys(r, &here, keys, err);
    if (!rc)
        rc = pp_json_string(r, &here, "name", PP_REQUIRED, m->bridge_recipe, sizeof m->bridge_recipe, err);
    if (!rc)
        rc = pp_json_check_source(r, &here, err);
    for (const char *c = m->bridge_recipe; !rc && *c; c++)
        if (!(isalnum((unsigned char)*c) || *c == '_' || *c == '.')) {
            pp_jpath n = pp_jpath_key(&here, "name");
            return pp_json_fail(err, &n, "expected a Python path (letters, digits, '_' and '.'), found '%s'",
                                m->bridge_recipe);
        }
    return rc;
}

/* An optional key of two words, `first` when absent: *second says whether
 * it is the second. */
static int read_either(const cJSON *obj, const pp_jpath *at, const char *key, const char *first, const char *second,
                       bool *is_second, pp_error *err)
{
    char word[16];
    snprintf(word, sizeof word, "%s", first);
    int rc = pp_json_string(obj, at, key, PP_OPTIONAL, word, sizeof word, err);
    if (!rc && strcmp(word, first) != 0 && strcmp(word, second) != 0) {
        pp_jpath here = pp_jpath_key(at, key);
        return pp_json_fail(err, &here, "expected '%s' or '%s', found '%s'", first, second, word);
    }
    *is_second = strcmp(word, second) == 0;
    return rc;
}

/* The architecture keys only the launch settings read (PP_MODEL_ARCH_KEYS). */
static int read_model_arch(const cJSON *obj, const pp_jpath *at, pp_model *m, pp_error *err)
{
    int rc = pp_json_bool(obj, at, "qk_layernorm", PP_OPTIONAL, &m->qk_layernorm, err);
    if (!rc)
        rc = pp_json_double(obj, at, "rope_theta", PP_OPTIONAL, 1.0, 1e12, &m->rope_theta, err);
    if (!rc)
        rc = pp_json_bool(obj, at, "router_expert_bias", PP_OPTIONAL, &m->router_expert_bias, err);
    if (!rc)
        rc = pp_json_double(obj, at, "router_scaling", PP_OPTIONAL, 1e-3, 1e3, &m->router_scaling, err);
    if (!rc)
        rc = read_either(obj, at, "router_score", "softmax", "sigmoid", &m->router_sigmoid, err);
    if (!rc)
        rc = read_bridge_recipe(obj, at, m, err);
    if (!rc)
        rc = pp_json_bool(obj, at, "attention_sinks", PP_OPTIONAL, &m->attention_sinks, err);
    if (!rc)
        rc = read_either(obj, at, "glu_activation", "swiglu", "quick-geglu", &m->quick_geglu, err);
    if (!rc && m->quick_geglu && !m->gated_mlp) {
        pp_jpath here = pp_jpath_key(at, "glu_activation");
        return pp_json_fail(err, &here, "expected a gated MLP (gated_mlp true) for a GLU activation");
    }
    if (!rc)
        rc = pp_json_double(obj, at, "glu_linear_offset", PP_OPTIONAL, 0.0, 100.0, &m->glu_linear_offset, err);
    if (!rc)
        rc = pp_json_double(obj, at, "activation_clamp", PP_OPTIONAL, 1e-3, 1e6, &m->activation_clamp, err);
    return rc;
}

cJSON *pp_model_write(const pp_model *m)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "name", m->name);
    for (int i = 0; i < N_MODEL_INT_FIELDS; i++) {
        int v = model_int_value(m, &model_int_fields[i]);
        if (v != 0)
            cJSON_AddNumberToObject(o, model_int_fields[i].key, v);
    }
    cJSON_AddBoolToObject(o, "gated_mlp", m->gated_mlp);
    cJSON_AddBoolToObject(o, "tie_embeddings", m->tie_embeddings);
    if (m->loss_token_fraction > 0.0 && m->loss_token_fraction < 1.0)
        cJSON_AddNumberToObject(o, "loss_token_fraction", m->loss_token_fraction);
    if (m->qk_layernorm)
        cJSON_AddBoolToObject(o, "qk_layernorm", true);
    if (m->rope_theta > 0.0)
        cJSON_AddNumberToObject(o, "rope_theta", m->rope_theta);
    if (m->attention_sinks)
        cJSON_AddBoolToObject(o, "attention_sinks", true);
    if (m->quick_geglu)
        cJSON_AddStringToObject(o, "glu_activation", "quick-geglu");
    if (m->glu_linear_offset > 0.0)
        cJSON_AddNumberToObject(o, "glu_linear_offset", m->glu_linear_offset);
    if (m->activation_clamp > 0.0)
        cJSON_AddNumberToObject(o, "activation_clamp", m->activation_clamp);
    if (m->experts > 0) {
        cJSON_AddStringToObject(o, "router_score", m->router_sigmoid ? "sigmoid" : "softmax");
        if (m->router_expert_bias)
            cJSON_AddBoolToObject(o, "router_expert_bias", true);
        if (m->router_scaling > 0.0)
            cJSON_AddNumberToObject(o, "router_scaling", m->router_scaling);
        if (m->moe_load_imbalance >= 1.0)
            cJSON_AddNumberToObject(o, "moe_load_imbalance", m->moe_load_imbalance);
    }
    return o;
}

int pp_model_read(const cJSON *obj, const pp_jpath *at, pp_model *m, pp_error *err)
{
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "custom");
    m->tie_embeddings = true;
    int rc = pp_json_string(obj, at, "name", PP_OPTIONAL, m->name, sizeof m->name, err);
    if (!rc)
        rc = read_model_ints(obj, at, m, err);
    if (!rc)
        rc = pp_json_bool(obj, at, "gated_mlp", PP_OPTIONAL, &m->gated_mlp, err);
    if (!rc)
        rc = pp_json_bool(obj, at, "tie_embeddings", PP_OPTIONAL, &m->tie_embeddings, err);
    m->loss_token_fraction = 1.0;
    if (!rc)
        rc = pp_json_double(obj, at, "loss_token_fraction", PP_OPTIONAL, 1e-6, 1.0, &m->loss_token_fraction, err);
    if (!rc)
        rc = read_model_arch(obj, at, m, err);
    if (!rc)
        rc = pp_json_double(obj, at, "moe_load_imbalance", PP_OPTIONAL, 1.0, 64.0, &m->moe_load_imbalance, err);
    if (!rc && m->moe_load_imbalance > 0.0 && m->experts == 0) {
        pp_jpath here = pp_jpath_key(at, "moe_load_imbalance");
        return pp_json_fail(err, &here, "expected moe_load_imbalance only with experts: the model is dense");
    }
    if (rc)
        return rc;
    if (m->kv_heads == 0)
        m->kv_heads = m->heads;
    if (m->ffn_hidden == 0)
        m->ffn_hidden = 4 * m->hidden; /* hidden <= 2^20: no overflow */
    pp_model_moe_defaults(m);
    return pp_model_validate(m, at, err);
}

/* ---- GPUs ------------------------------------------------------------------ */

#define MAX_PEAK_TFLOPS 1e6
#define MAX_MEMORY_GIB 1e6
#define MAX_BANDWIDTH 1e7 /* GB/s or Gb/s */

static const char *precision_at(const void *ctx, int i)
{
    (void)ctx;
    return pp_precision_name((pp_precision)i);
}

/* {"bf16": 312, "fp16": 312, "fp8": null, "fp32": 19.5}: null or 0 means
 * the precision is not supported. */
static int read_peak_object(const cJSON *obj, const pp_jpath *at, pp_gpu *g, pp_error *err)
{
    const char *keys[PP_PREC_COUNT + 1];
    for (int p = 0; p < PP_PREC_COUNT; p++)
        keys[p] = precision_at(NULL, p);
    keys[PP_PREC_COUNT] = NULL;
    int rc = pp_json_check_keys(obj, at, keys, err);
    bool any = false;
    for (int p = 0; p < PP_PREC_COUNT && !rc; p++) {
        const cJSON *item = pp_json_member(obj, keys[p]);
        pp_jpath here = pp_jpath_key(at, keys[p]);
        g->peak_tflops[p] = 0;
        if (item && !cJSON_IsNull(item))
            rc = pp_json_as_double(item, &here, 0, MAX_PEAK_TFLOPS, &g->peak_tflops[p], err);
        any = any || g->peak_tflops[p] > 0;
    }
    if (!rc && !any)
        rc = pp_json_fail(err, at, "expected a positive peak for at least one precision, found none");
    /* A recipe without a peak of its own (fp8-current) runs at the peak of
     * its format (fp8): the same tensor cores, another way to pick scales. */
    for (int p = 0; p < PP_PREC_COUNT && !rc; p++)
        if (g->peak_tflops[p] <= 0)
            g->peak_tflops[p] = g->peak_tflops[pp_precision_props((pp_precision)p)->peak_of];
    return rc;
}

static int read_peaks(const cJSON *obj, const pp_jpath *at, pp_presence need_all, pp_precision scalar_precision,
                      pp_gpu *g, pp_error *err)
{
    const cJSON *item = pp_json_member(obj, "peak_tflops");
    pp_jpath here = pp_jpath_key(at, "peak_tflops");
    if (!item)
        return pp_json_missing(at, "peak_tflops", err);
    if (cJSON_IsObject(item))
        return read_peak_object(item, &here, g, err);
    if (need_all == PP_REQUIRED) /* catalogs give every precision */
        return pp_json_expect_object(item, &here, err);
    double peak = 0;
    int rc = pp_json_as_positive(item, &here, MAX_PEAK_TFLOPS, &peak, err);
    if (rc)
        return rc;
    memset(g->peak_tflops, 0, sizeof g->peak_tflops);
    g->peak_tflops[scalar_precision] = peak;
    return PP_OK;
}

/* GPUs a host drives: a divisor of gpus_per_node, by default all of them. */
static int read_gpus_per_host(const cJSON *obj, const pp_jpath *at, pp_gpu *g, pp_error *err)
{
    if (g->gpus_per_host <= 0 || (g->gpus_per_node > 0 && g->gpus_per_node % g->gpus_per_host))
        g->gpus_per_host = g->gpus_per_node;
    int rc = pp_json_int(obj, at, "gpus_per_host", PP_OPTIONAL, 1, PP_MAX_GPUS_PER_NODE, &g->gpus_per_host, err);
    if (!rc && g->gpus_per_node > 0 && g->gpus_per_node % g->gpus_per_host) {
        pp_jpath here = pp_jpath_key(at, "gpus_per_host");
        return pp_json_fail(err, &here, "expected a divisor of gpus_per_node %d (GPUs of one host of an NVLink "
                                         "domain), found %d", g->gpus_per_node, g->gpus_per_host);
    }
    return rc;
}

static int read_gpu_links(const cJSON *obj, const pp_jpath *at, pp_presence need_all, pp_gpu *g, pp_error *err)
{
    int rc = pp_json_positive(obj, at, "hbm_GBps", need_all, MAX_BANDWIDTH, &g->hbm_GBps, err);
    if (!rc)
        rc = pp_json_positive(obj, at, "nvlink_GBps", need_all, MAX_BANDWIDTH, &g->nvlink_GBps, err);
    if (!rc)
        rc = pp_json_positive(obj, at, "network_Gbps", need_all, MAX_BANDWIDTH, &g->network_Gbps, err);
    if (!rc)
        rc = pp_json_int(obj, at, "gpus_per_node", need_all, 1, PP_MAX_GPUS_PER_NODE, &g->gpus_per_node, err);
    if (!rc)
        rc = pp_json_int(obj, at, "sm_count", PP_OPTIONAL, 1, 100000, &g->sm_count, err);
    if (!rc)
        rc = pp_json_double(obj, at, "sfu_exp_tops", PP_OPTIONAL, 0, 1e4, &g->sfu_exp_tops, err);
    if (!rc)
        rc = pp_json_int(obj, at, "gpus_per_nic_switch", PP_OPTIONAL, 0, PP_MAX_GPUS_PER_NODE,
                         &g->gpus_per_nic_switch, err);
    if (!rc)
        rc = read_gpus_per_host(obj, at, g, err);
    return rc;
}

int pp_gpu_read(const cJSON *obj, const pp_jpath *at, pp_presence need_all, pp_precision scalar_precision,
                pp_gpu *g, pp_error *err)
{
    int rc = pp_json_string(obj, at, "id", need_all, g->id, sizeof g->id, err);
    if (!rc)
        rc = pp_json_string(obj, at, "name", need_all, g->name, sizeof g->name, err);
    if (!rc)
        rc = read_peaks(obj, at, need_all, scalar_precision, g, err);
    if (!rc)
        rc = pp_json_positive(obj, at, "memory_gib", PP_REQUIRED, MAX_MEMORY_GIB, &g->memory_gib, err);
    if (!rc)
        rc = read_gpu_links(obj, at, need_all, g, err);
    return rc;
}
