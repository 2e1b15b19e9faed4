/*
 * measurements.c: reading measurement rows into problem + plan pairs (see
 * measurements.h).  A row states what its source stated; where a source is
 * silent (micro-batch, interleaving, ZeRO stage) the defaults below are the
 * framework's own defaults of the time, never values tuned to fit.
 */
#include "measurements.h"

#include "error.h"
#include "costmodel.h"
#include "json_util.h"
#include "names.h"
#include "rules.h"
#include "shapes_json.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static double num_or(const cJSON *obj, const char *key, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static const char *str_or(const cJSON *obj, const char *key, const char *dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) && v->valuestring ? v->valuestring : dflt;
}

/* The index of `name` among an enumeration's n names, -1 if it is none of them. */
static int name_index(const char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

static bool contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return true;
    }
    return false;
}

/* Map a row's free-text GPU name to a catalog id. */
static const char *gpu_id_of(const char *name, double memory_GB)
{
    if (contains_ci(name, "h100"))
        return "h100-sxm5-80gb";
    if (contains_ci(name, "h200"))
        return "h200-sxm-141gb";
    if (contains_ci(name, "a100"))
        return memory_GB > 0 && memory_GB <= 40 ? "a100-sxm4-40gb" : "a100-sxm4-80gb";
    if (contains_ci(name, "v100"))
        return memory_GB > 0 && memory_GB <= 16 ? "v100-sxm2-16gb" : "v100-sxm2-32gb";
    return NULL;
}

/* The framework a row names, which fixes the behaviours of
 * pp_framework_features (fused attention, overlap, gather granularity). */
static pp_framework framework_of(const char *fw)
{
    for (int f = 0; f < PP_FW_COUNT; f++) /* a problem's own names ("deepspeed", "fsdp"): rows of calibrate --log */
        if (strcmp(fw, pp_framework_name((pp_framework)f)) == 0)
            return (pp_framework)f;
    if (contains_ci(fw, "deepspeed"))
        return PP_FW_DEEPSPEED_2021; /* the only DeepSpeed rows are Narayanan et al.'s of 2021 */
    if (contains_ci(fw, "fsdp"))
        return PP_FW_FSDP;
    if (contains_ci(fw, "megatron-lm") && !contains_ci(fw, "core"))
        return PP_FW_MEGATRON_2021;
    return PP_FW_MEGATRON_CORE;
}

static pp_recompute recompute_of(const char *s)
{
    if (s && strcmp(s, "full") == 0)
        return PP_RECOMPUTE_FULL;
    if (s && strcmp(s, "selective") == 0)
        return PP_RECOMPUTE_SELECTIVE;
    return PP_RECOMPUTE_NONE;
}

static int zero_of(const cJSON *cfg, int dp)
{
    const cJSON *z = cJSON_GetObjectItemCaseSensitive(cfg, "zero_stage");
    if (cJSON_IsNumber(z))
        return z->valueint;
    if (cJSON_IsString(z))
        return 3; /* non-standard sharding: the FSDP-like full shard */
    return dp > 1 ? 1 : 0; /* Megatron-Core's distributed optimizer, NeMo's default */
}

/* A row's Mixture-of-Experts and latent-attention keys (experts,
 * experts_per_token, moe_ffn_hidden, shared_experts, shared_ffn_hidden,
 * first_dense_layers, moe_layer_freq, mtp_layers, q_lora_rank, kv_lora_rank,
 * qk_nope_head_dim, qk_rope_head_dim, v_head_dim: the spelling of
 * data/models.json), read by the model catalog's own table
 * (pp_model_read_moe) with its limits, defaults and checks.  A dense row
 * (none of the keys) is left exactly as read above. */
static bool fill_moe(const cJSON *jm, pp_model *m)
{
    static const char *const keys[] = {PP_MODEL_MOE_KEYS};
    bool any = false;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0] && !any; i++)
        any = cJSON_GetObjectItemCaseSensitive(jm, keys[i]) != NULL;
    if (!any)
        return true;
    pp_jpath at = pp_jpath_root("model");
    pp_error err;
    return pp_model_read_moe(jm, &at, m, &err) == PP_OK;
}

static bool fill_model(const cJSON *jm, pp_model *m)
{
    snprintf(m->name, sizeof m->name, "%s", str_or(jm, "name", "model"));
    m->layers = (int)num_or(jm, "layers", 0);
    m->hidden = (int)num_or(jm, "hidden", 0);
    m->heads = (int)num_or(jm, "heads", 0);
    m->kv_heads = (int)num_or(jm, "kv_heads", m->heads);
    m->head_dim = (int)num_or(jm, "head_dim", 0); /* 0: hidden / heads */
    m->ffn_hidden = (int)num_or(jm, "ffn_hidden", 4.0 * m->hidden);
    m->vocab = (int)num_or(jm, "vocab", 0);
    m->seq_len = (int)num_or(jm, "seq_len", 0);
    const char *act = str_or(jm, "activation", "gelu");
    m->gated_mlp = contains_ci(act, "swiglu") || contains_ci(act, "silu") || contains_ci(act, "geglu");
    const cJSON *tie = cJSON_GetObjectItemCaseSensitive(jm, "tie_embeddings");
    m->tie_embeddings = cJSON_IsBool(tie) ? cJSON_IsTrue(tie) : true;
    m->loss_token_fraction = num_or(jm, "loss_token_fraction", 1.0);
    if (!(m->loss_token_fraction > 0.0 && m->loss_token_fraction <= 1.0))
        return false;
    if (!(m->layers > 0 && m->hidden > 0 && m->heads > 0 && m->vocab > 0 && m->seq_len > 0 &&
          m->hidden % m->heads == 0 && m->kv_heads > 0 && m->heads % m->kv_heads == 0))
        return false;
    return fill_moe(jm, m);
}

static bool fill_cluster(const cJSON *jc, const pp_catalog *cat, pp_measurement *row)
{
    const char *id = str_or(jc, "gpu", ""); /* a catalog id, else a name such as "A100-SXM4-80GB" */
    if (!pp_catalog_gpu(cat, id))
        id = gpu_id_of(id, num_or(jc, "gpu_memory_GB", 0));
    const pp_gpu *gpu = id ? pp_catalog_gpu(cat, id) : NULL;
    if (!gpu)
        return false;
    snprintf(row->gpu_id, sizeof row->gpu_id, "%s", id);
    /* The GPU whose fitted parameters this one takes (H200 takes H100's):
     * the row's own cluster.efficiency_from (a catalog id; the DeepSeek-V3
     * H800 row takes the H100's, the same GH100 die) before the catalog's. */
    long at = gpu - cat->gpus;
    const char *from = cat->gpu_efficiency_from && at >= 0 && at < cat->n_gpus ? cat->gpu_efficiency_from[at] : "";
    const char *row_from = str_or(jc, "efficiency_from", "");
    if (row_from[0]) {
        if (!pp_catalog_gpu(cat, row_from))
            return false;
        from = row_from;
    }
    snprintf(row->eff_id, sizeof row->eff_id, "%s", from[0] ? from : id);
    pp_cluster *c = &row->prob.cluster;
    pp_cluster_from_gpu(gpu, c);
    if (row_from[0])
        c->gpu.eff = pp_catalog_gpu(cat, row_from)->eff; /* priced with them too, before any fit */
    c->gpus_per_node = (int)num_or(jc, "gpus_per_node", c->gpus_per_node);
    long gpus = (long)num_or(jc, "gpus", 0);
    if (c->gpus_per_node <= 0 || gpus <= 0)
        return false;
    if (gpus < c->gpus_per_node)
        c->gpus_per_node = (int)gpus;
    c->nodes = gpus / c->gpus_per_node;
    /* Rows give NVLink as both directions summed; parplan uses one direction. */
    double nvl = num_or(jc, "intra_node_GBps", 0);
    if (nvl > 0)
        c->intra_node_GBps = nvl / 2.0;
    double net = num_or(jc, "inter_node_Gbps_per_gpu", 0);
    if (net > 0)
        c->inter_node_Gbps = net;
    c->gpus_per_nic_switch = (int)num_or(jc, "gpus_per_nic_switch", c->gpus_per_nic_switch);
    return c->nodes * c->gpus_per_node == gpus && c->gpus_per_nic_switch >= 0;
}

static void problem_defaults(pp_problem *p)
{
    memset(p, 0, sizeof *p);
    p->memory_headroom = 0.10;
    p->n_codecs = 1;
    snprintf(p->codecs[0].id, sizeof p->codecs[0].id, "none");
    p->codecs[0].lossless_ratio = 1.0;
    p->compress_min_bytes = 1048576;
    p->has_cluster = true;
    p->allow_tp_across_nodes = true; /* a measured run is a plan that ran, wherever its TP groups sat */
}

/* A row's gradient data type under `key` ("fp32", "bf16", "fp16"), `dflt`
 * when absent or unknown. */
static pp_precision gradient_dtype_or(const cJSON *cfg, const char *key, pp_precision dflt)
{
    const char *v = str_or(cfg, key, "");
    return strcmp(v, "fp32") == 0 ? PP_PREC_FP32 : strcmp(v, "bf16") == 0 ? PP_PREC_BF16
           : strcmp(v, "fp16") == 0 ? PP_PREC_FP16 : dflt;
}

static bool fill_plan(const cJSON *cfg, pp_measurement *row)
{
    pp_plan *pl = &row->plan;
    memset(pl, 0, sizeof *pl);
    pl->tp = (int)num_or(cfg, "t", 1);
    pl->pp = (int)num_or(cfg, "p", 1);
    pl->dp = (int)num_or(cfg, "d", 1);
    pl->cp = (int)num_or(cfg, "cp", 1);
    pl->micro_batch = (int)num_or(cfg, "micro_batch", 1);
    pl->virtual_stages = (int)num_or(cfg, "virtual_stages", 1);
    pl->zero = zero_of(cfg, pl->dp);
    pl->recompute = recompute_of(str_or(cfg, "recompute", "none"));
    const cJSON *sp = cJSON_GetObjectItemCaseSensitive(cfg, "seq_parallel");
    /* Megatron-Core (NeMo) turns sequence parallelism on with TP by default. */
    pl->sequence_parallel = cJSON_IsBool(sp) ? cJSON_IsTrue(sp) : (pl->tp > 1 && row->prob.training.flash_attention);
    if (pl->tp < 2)
        pl->sequence_parallel = false;
    pl->tp_mode = PP_TP_1D;
    pl->tp_depth = 1;
    /* Expert parallelism (MoE rows): ep ranks come from dp x cp, etp is 1 or
     * t (rules.c); a dense row that names neither keeps 1 and 1. */
    pl->ep = (int)num_or(cfg, "ep", 1);
    pl->etp = (int)num_or(cfg, "etp", 1);
    /* TP overlap as the source ran it: `tp_comm_overlap` or torchtitan's
     * `async_tp`, or Megatron-Core's flag named in the framework */
    const cJSON *ov = cJSON_GetObjectItemCaseSensitive(cfg, "tp_comm_overlap");
    if (!cJSON_IsBool(ov))
        ov = cJSON_GetObjectItemCaseSensitive(cfg, "async_tp");
    bool named = contains_ci(str_or(cfg, "framework", ""), "tp-comm-overlap");
    pl->tp_comm_overlap = pl->tp > 1 && (cJSON_IsBool(ov) ? cJSON_IsTrue(ov) : named);
    /* torchtitan without torch.compile: every element-wise op its own kernel */
    row->prob.training.fused_elementwise = !contains_ci(str_or(cfg, "framework", ""), "eager");
    /* ... or as the row says (code that fuses some ops and not others is
     * priced by what it leaves unfused: NVIDIA's BERT) */
    const cJSON *fe = cJSON_GetObjectItemCaseSensitive(cfg, "fused_elementwise");
    if (cJSON_IsBool(fe))
        row->prob.training.fused_elementwise = cJSON_IsTrue(fe);
    /* ... with the norm in a fused kernel of its own where the row says so
     * (Hagemann et al. 2023's "RMS kernel") */
    const cJSON *fn = cJSON_GetObjectItemCaseSensitive(cfg, "fused_norm");
    row->prob.training.fused_norm = cJSON_IsTrue(fn);
    /* ... and torch.compile compiles the loss unless the row says the
     * source's version did not (`compiled_loss`: torchtitan from December
     * 2024 to April 2025) */
    const cJSON *cl = cJSON_GetObjectItemCaseSensitive(cfg, "compiled_loss");
    row->prob.training.fused_loss = row->prob.training.fused_elementwise && !cJSON_IsFalse(cl);
    /* MoE token dispatch as the source ran it: DeepEP (or DeepSeek's own
     * kernels, where it came from) deduplicates; else one copy per expert */
    const char *disp = str_or(cfg, "token_dispatcher", "");
    row->prob.training.moe_deepep = contains_ci(disp, "deepep");
    const cJSON *ao = cJSON_GetObjectItemCaseSensitive(cfg, "moe_a2a_overlap");
    row->prob.training.moe_a2a_overlap = cJSON_IsTrue(ao);
    /* pipeline sends split over the TP ranks as the source ran them
     * (Narayanan et al. 2021 Fig. 18 runs with and without scatter/gather) */
    const cJSON *sg = cJSON_GetObjectItemCaseSensitive(cfg, "scatter_gather");
    if (cJSON_IsBool(sg))
        row->prob.training.p2p_scatter_gather = cJSON_IsTrue(sg);
    /* the attention kernel's generation as the source ran it, where the
     * framework's own is not it; a name the model does not know leaves the
     * row out rather than guessing */
    int kernel = name_index(pp_attention_kernel_names, PP_ATTN_COUNT, str_or(cfg, "attention_kernel", "auto"));
    if (kernel < 0)
        return false;
    row->prob.training.attention_kernel = (pp_attention_kernel)kernel;
    /* DP reduction as the source ran it (Megatron-LM 2021's DDP=torch
     * overlaps the bucketed all-reduce with the backward pass; its default
     * local DDP reduces after it) */
    const cJSON *dpo = cJSON_GetObjectItemCaseSensitive(cfg, "dp_overlap");
    if (cJSON_IsBool(dpo))
        row->prob.training.dp_overlap = cJSON_IsTrue(dpo);
    row->prob.training.global_batch = (long)num_or(cfg, "global_batch", 0);
    const char *prec = str_or(cfg, "precision", "bf16");
    /* fp8 as Transformer Engine runs it by default (delayed scaling), or
     * with the scale taken from the tensor itself (torchao's dynamic
     * tensorwise and rowwise scaling, TE's current scaling) */
    bool current = contains_ci(prec, "torchao") || contains_ci(prec, "tensorwise") || contains_ci(prec, "rowwise") ||
                   contains_ci(prec, "current");
    /* the Blackwell block-scaled recipes by name: MXFP8, NVFP4 */
    row->prob.training.precision = contains_ci(prec, "nvfp4")   ? PP_PREC_NVFP4
                                   : contains_ci(prec, "mxfp8") ? PP_PREC_MXFP8
                                   : contains_ci(prec, "fp8")   ? (current ? PP_PREC_FP8_CURRENT : PP_PREC_FP8)
                                   : (contains_ci(prec, "fp16") && !contains_ci(prec, "bf16")) ? PP_PREC_FP16
                                                                                                : PP_PREC_BF16;
    if (row->prob.cluster.gpu.peak_tflops[row->prob.training.precision] <= 0)
        row->prob.training.precision = PP_PREC_FP16;
    /* gradients reduced and held as the framework does by default, or as the row says */
    pp_training *t = &row->prob.training;
    t->grad_reduce_dtype = gradient_dtype_or(cfg, "grad_reduce_dtype", pp_framework_grad_reduce(t->framework, t->precision));
    pp_precision accum = gradient_dtype_or(cfg, "grad_accum_dtype",
                                           pp_framework_grad_accum(t->framework, t->precision, t->grad_reduce_dtype));
    t->grad_accum_bytes = accum == PP_PREC_FP32 ? 4 : 2;
    const cJSON *lp = cJSON_GetObjectItemCaseSensitive(cfg, "loss_parallel");
    t->loss_gathered = cJSON_IsFalse(lp);
    /* LoRA fine-tuning: adapters of this rank on these layers, every other
     * weight frozen; targets the model does not know leave the row out */
    double rank = num_or(cfg, "lora_rank", 0);
    if (rank < 0 || rank >= row->prob.model.hidden)
        return false;
    t->lora_rank = (int)rank;
    int targets = name_index(pp_lora_targets_names, PP_LORA_TARGETS_COUNT, str_or(cfg, "lora_targets", "attention"));
    if (targets < 0)
        return false;
    t->lora_targets = (pp_lora_targets)targets;
    /* weights held in the recipe's fp8 format (NeMo fp8_params) */
    bool low = pp_precision_props(t->precision)->low_gemm;
    t->fp8_params = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cfg, "fp8_params")) && low;
    /* ... and the MLP activation's input stored in fp8 (Megatron-Core) */
    t->fp8_act_store = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cfg, "fp8_activation_input_store")) && low;
    /* packed samples' token-weighted mean length, where the source gives it */
    double packed = num_or(cfg, "packed_sample_tokens", 0);
    if (packed < 0 || packed > row->prob.model.seq_len)
        return false;
    t->packed_sample_tokens = packed;
    return row->prob.training.global_batch > 0;
}

static void fill_measured(const cJSON *meas, pp_measurement *row)
{
    double it = num_or(meas, "iteration_s", 0);
    if (it <= 0)
        it = num_or(meas, "iteration_s_derived", 0);
    row->has_time = it > 0;
    row->iteration_s = it;
    double states = num_or(meas, "memory_GiB_params_plus_optimizer", 0);
    double act = num_or(meas, "memory_GiB_activations", 0);
    row->has_memory = states > 0 && act > 0;
    row->mem_states_gib = states;
    row->mem_activations_gib = act;
    double peak = num_or(meas, "memory_GiB_max_reserved", 0);
    if (peak <= 0)
        peak = num_or(meas, "memory_GiB_peak", 0);
    row->has_peak = peak > 0;
    row->peak_gib = peak;
    row->has_oom = !row->has_time && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(meas, "oom"));
}

static bool fill_row(const cJSON *jrow, const pp_catalog *cat, pp_measurement *row)
{
    memset(row, 0, sizeof *row);
    problem_defaults(&row->prob);
    snprintf(row->id, sizeof row->id, "%s", str_or(jrow, "id", "?"));
    snprintf(row->group, sizeof row->group, "%s", str_or(jrow, "source_group", "?"));
    row->defect = str_or(jrow, "software_defect", "")[0] != '\0';
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(jrow, "config");
    const cJSON *meas = cJSON_GetObjectItemCaseSensitive(jrow, "measured");
    const cJSON *jm = cJSON_GetObjectItemCaseSensitive(jrow, "model");
    if (!cJSON_IsObject(cfg) || !cJSON_IsObject(meas) || !cJSON_IsObject(jm))
        return false;
    row->params_b = num_or(jm, "params_b", 0);
    row->model_states_GB = num_or(meas, "memory_GB_model_states", 0);
    row->has_model_states = row->params_b > 0 && row->model_states_GB > 0;
    if (!fill_model(jm, &row->prob.model))
        return false;
    pp_framework_features(framework_of(str_or(cfg, "framework", "")), &row->prob.training);
    if (!fill_cluster(cJSON_GetObjectItemCaseSensitive(jrow, "cluster"), cat, row))
        return false;
    row->prob.cluster.nccl_pxn = row->prob.training.nccl_pxn;
    if (!fill_plan(cfg, row))
        return false;
    fill_measured(meas, row);
    pp_error err;
    return pp_plan_check(&row->prob, &row->plan, &err) == PP_OK && (row->has_time || row->has_memory || row->has_peak || row->has_oom);
}

/* Append the rows of one JSON file to set (rows grown as needed). */
static int load_file(const char *path, const pp_catalog *cat, pp_measurement_set *set, pp_error *err)
{
    char *text = NULL;
    size_t len = 0;
    int rc = pp_read_file(path, &text, &len, err);
    if (rc)
        return rc;
    cJSON *doc = cJSON_ParseWithLength(text, len);
    free(text);
    if (!cJSON_IsArray(doc)) {
        cJSON_Delete(doc);
        return pp_error_set(err, PP_EINPUT, path, "expected a JSON array of measurement rows");
    }
    int n = cJSON_GetArraySize(doc);
    pp_measurement *rows = realloc(set->rows, ((size_t)set->n + (size_t)n + 1) * sizeof *rows);
    if (!rows) {
        cJSON_Delete(doc);
        return pp_error_set(err, PP_EINTERNAL, path, "out of memory");
    }
    set->rows = rows;
    const cJSON *jrow;
    cJSON_ArrayForEach(jrow, doc)
    {
        if (fill_row(jrow, cat, &set->rows[set->n]))
            set->n++;
        else
            set->n_skipped++;
    }
    cJSON_Delete(doc);
    set->n_files++;
    return PP_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Every *.json of a directory, in name order (so the set, and the fit, never
 * depend on the order readdir happens to return). */
static int load_dir(const char *dir, const pp_catalog *cat, pp_measurement_set *set, pp_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return pp_error_set(err, PP_EINPUT, dir, "cannot open directory: %s", strerror(errno));
    char **names = NULL;
    int n = 0, cap = 0, rc = PP_OK;
    struct dirent *e;
    while (rc == PP_OK && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || !ends_with(e->d_name, ".json"))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            char **grown = realloc(names, (size_t)cap * sizeof *names);
            if (!grown) {
                rc = pp_error_set(err, PP_EINTERNAL, dir, "out of memory");
                break;
            }
            names = grown;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        if (!(names[n] = malloc(len))) {
            rc = pp_error_set(err, PP_EINTERNAL, dir, "out of memory");
            break;
        }
        snprintf(names[n++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (rc == PP_OK && n == 0)
        rc = pp_error_set(err, PP_EINPUT, dir, "no *.json measurement file in the directory");
    if (rc == PP_OK)
        qsort(names, (size_t)n, sizeof *names, cmp_str);
    for (int i = 0; i < n; i++) {
        if (rc == PP_OK)
            rc = load_file(names[i], cat, set, err);
        free(names[i]);
    }
    free(names);
    return rc;
}

int pp_measurements_load_many(const char *const *paths, int n_paths, const pp_catalog *cat,
                              pp_measurement_set *set, pp_error *err)
{
    memset(set, 0, sizeof *set);
    int rc = PP_OK;
    for (int i = 0; i < n_paths && rc == PP_OK; i++) {
        struct stat st;
        if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode))
            rc = load_dir(paths[i], cat, set, err);
        else
            rc = load_file(paths[i], cat, set, err);
    }
    if (rc == PP_OK && !set->rows && !(set->rows = calloc(1, sizeof *set->rows)))
        rc = pp_error_set(err, PP_EINTERNAL, "", "out of memory");
    if (rc != PP_OK)
        pp_measurements_free(set);
    return rc;
}

int pp_measurements_load(const char *path, const pp_catalog *cat, pp_measurement_set *set, pp_error *err)
{
    return pp_measurements_load_many(&path, 1, cat, set, err);
}

void pp_measurements_free(pp_measurement_set *set)
{
    free(set->rows);
    memset(set, 0, sizeof *set);
}
