/*
 * problem.c: PROBLEM.json and PLAN.json into pp_problem and pp_plan.
 *
 * Every default lives in pp_problem_init() / pp_plan_init() (decisions.c:
 * the table's defaults); the parser only overwrites what the document says.  Sections are parsed in dependency order,
 * not document order: training first (a custom GPU's single peak_tflops is
 * for the training precision), then model, cluster, capacity, search (codec
 * ids need the codec table), objective and constraints, and finally the
 * checks that span sections (the GPU supports the precision, a capacity
 * problem says how many tokens to train).
 *
 * A custom GPU object needs only peak_tflops and memory_gib; its other
 * datasheet figures default to the catalog's a100-sxm4-80gb entry (or, with
 * no such entry, to the DGX A100 figures below), and its efficiency
 * parameters to the catalog's default (or to those of efficiency_from).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem.h"

#include "decisions.h"

#include "catalog.h"
#include "catalog_source.h"
#include "costmodel.h"
#include "json_util.h"
#include "names.h"
#include "shapes_json.h"

#define MAX_NODES 10000000L
#define MAX_GLOBAL_BATCH (1L << 40)
#define MAX_LORA_RANK 65536L /* and below the hidden size (check_training_across) */
#define MAX_MTP_LAYERS 16  /* multi-token-prediction depths trained (DeepSeek-V3 trains 1) */
#define DEFAULT_GPU_ID "a100-sxm4-80gb"

/* ---- names ------------------------------------------------------------------ */

/* The enumerations' names are in names.c; the search and tolerance objects
 * take one key per compressible traffic. */
static const char *const dim_keys[] = {"dp", "tp", "pp", "params", NULL};
/* training.precision: every precision but fp32, in the order messages list them */
static const pp_precision training_precisions[] = {PP_PREC_BF16,  PP_PREC_FP16,  PP_PREC_FP8,      PP_PREC_FP8_CURRENT,
                                                   PP_PREC_MXFP8, PP_PREC_NVFP4, PP_PREC_FP8_BLOCK};
static const char *const training_precision_names[] = {"bf16",  "fp16",  "fp8",      "fp8-current",
                                                       "mxfp8", "nvfp4", "fp8-block"};
#define N_TRAINING_PRECISIONS (int)(sizeof training_precisions / sizeof training_precisions[0])
/* grad_reduce_dtype: the first four precisions (bf16, fp16, fp8, fp32); fp8 is refused with its own message */
#define N_WIRE_PRECISIONS (PP_PREC_FP32 + 1)

/* ---- defaults --------------------------------------------------------------- */

static void codec_none(pp_codec *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "none");
    c->lossless_ratio = 1;
}

void pp_problem_init(pp_problem *p)
{
    memset(p, 0, sizeof *p);
    p->memory_headroom = 0.05;
    /* Hybrid policy: lossy codecs only on DP gradients, which tolerate it. */
    p->error_tolerance[PP_DIM_DP] = 0.02;
    p->error_tolerance[PP_DIM_TP] = 0.0;
    p->error_tolerance[PP_DIM_PP] = 0.0;
    p->error_tolerance[PP_DIM_PARAMS] = 0.0; /* parameters: lossless or none, as TP/PP */
    p->compress_min_bytes = 1 << 20;
    p->codec_chunk_bytes = 1 << 20;
    p->training.precision = PP_PREC_BF16;
    pp_framework_features(PP_FW_MEGATRON_CORE, &p->training);
    p->training.moe_load_imbalance = 1.2; /* docs/cost-model.md section 9 */
    p->objective = PP_OBJ_MIN_STEP_TIME;
    p->allow_tp_across_nodes = false;
    p->idle_gpus_ok = false;
    p->n_codecs = 1;
    codec_none(&p->codecs[0]);
}

long pp_problem_gpus(const pp_problem *p)
{
    return p->has_cluster ? (long)p->cluster.gpus_per_node * p->cluster.nodes : 0;
}

/* ---- parsing context ----------------------------------------------------------- */

typedef struct parse_ctx {
    const pp_catalog *cat; /* may be NULL: then no id resolves */
    const char *base_dir;
    pp_problem *p;
    pp_error *err;
} parse_ctx;

static const char *codec_id_at(const void *ctx, int i)
{
    return ((const pp_problem *)ctx)->codecs[i].id;
}

/* Index of codec id in the problem's table, or an error naming the choices. */
static int resolve_codec(const pp_problem *p, const cJSON *item, const pp_jpath *at, int *out, pp_error *err)
{
    char id[PP_ID_LEN];
    int rc = pp_json_as_string(item, at, id, sizeof id, err);
    if (rc)
        return rc;
    for (int i = 0; i < p->n_codecs; i++)
        if (strcmp(p->codecs[i].id, id) == 0) {
            *out = i;
            return PP_OK;
        }
    char names[600], hint[96], quoted[64];
    pp_name_list(codec_id_at, p, p->n_codecs, names, sizeof names);
    pp_did_you_mean(id, codec_id_at, p, p->n_codecs, hint, sizeof hint);
    pp_json_quote(id, quoted, sizeof quoted);
    return pp_json_fail(err, at, "expected a codec id of codecs.json (%s), found %s%s", names, quoted, hint);
}

/* ---- model ------------------------------------------------------------------- */

/* The keys of {"id": "llama3-70b", "seq_len": 4096}: a catalog model with
 * its sequence length (and name) overridden. */
static const char *const catalog_model_keys[] = {"id", "seq_len", "name", NULL};

static int use_catalog_model(const parse_ctx *c, const char *id, const pp_jpath *at)
{
    /* an id, or a name the model goes by ("Llama 3 8B") */
    const pp_catalog_model *cm = pp_catalog_model_named(c->cat, id);
    if (!cm)
        return pp_catalog_fail_unknown(c->cat, PP_CATALOG_MODELS, id, at, c->err);
    c->p->model = cm->model;
    return PP_OK;
}

static int parse_catalog_model_object(const parse_ctx *c, const cJSON *item, const pp_jpath *at)
{
    char id[PP_ID_LEN];
    pp_jpath id_at = pp_jpath_key(at, "id");
    pp_model *m = &c->p->model;
    int rc = pp_json_check_keys(item, at, catalog_model_keys, c->err);
    if (!rc)
        rc = pp_json_string(item, at, "id", PP_REQUIRED, id, sizeof id, c->err);
    if (!rc)
        rc = use_catalog_model(c, id, &id_at);
    if (!rc)
        rc = pp_json_int(item, at, "seq_len", PP_OPTIONAL, 1, PP_MAX_SEQ_LEN, &m->seq_len, c->err);
    if (!rc)
        rc = pp_json_string(item, at, "name", PP_OPTIONAL, m->name, sizeof m->name, c->err);
    return rc;
}

/* A model object or Hugging Face config that states no router imbalance
 * takes the measured one of the catalog model it routes as (same experts,
 * top-k and widths on the same layers: pp_catalog_model_router_of): a
 * measurement row or a problem that spells Qwen3-235B-A22B out has its
 * router all the same. */
static void router_of_catalog(const parse_ctx *c)
{
    pp_model *m = &c->p->model;
    const pp_catalog_model *cm = m->moe_load_imbalance > 0.0 ? NULL : pp_catalog_model_router_of(c->cat, m);
    if (cm && cm->model.moe_load_imbalance >= 1.0)
        m->moe_load_imbalance = cm->model.moe_load_imbalance;
}

static int parse_model(const parse_ctx *c, const cJSON *item, const pp_jpath *at)
{
    if (cJSON_IsString(item))
        return use_catalog_model(c, item->valuestring, at);
    if (!cJSON_IsObject(item))
        return pp_json_fail_expected(c->err, at, "a model id of models.json or a model object", item);
    if (pp_json_member(item, "id"))
        return parse_catalog_model_object(c, item, at);
    int rc;
    if (pp_json_member(item, "hf_config")) {
        rc = pp_model_from_hf(item, at, c->base_dir, &c->p->model, c->err);
    } else {
        rc = pp_json_check_keys(item, at, pp_model_keys, c->err);
        if (!rc)
            rc = pp_model_read(item, at, &c->p->model, c->err);
    }
    if (!rc)
        router_of_catalog(c);
    return rc;
}

/* ---- GPUs ------------------------------------------------------------------------ */

static const char *const custom_gpu_keys[] = {"sm_count",    "id",          "name",          "peak_tflops",      "memory_gib",
                                              "hbm_GBps",    "nvlink_GBps",   "network_Gbps",     "gpus_per_node",
                                              "usd_per_gpu_hour", "efficiency_from", "gpus_per_nic_switch",
                                              "gpus_per_host", "sfu_exp_tops", NULL};

/* What a custom GPU is before its object is read: the catalog's A100-80GB
 * figures (else the DGX A100 datasheet's), the catalog's default efficiency. */
static void custom_gpu_defaults(const pp_catalog *cat, pp_gpu *g)
{
    const pp_gpu *a100 = cat ? pp_catalog_gpu(cat, DEFAULT_GPU_ID) : NULL;
    memset(g, 0, sizeof *g);
    if (a100) {
        *g = *a100;
    } else {
        g->hbm_GBps = 2039;
        g->nvlink_GBps = 300;
        g->network_Gbps = 200;
        g->gpus_per_node = 8;
    }
    snprintf(g->id, sizeof g->id, "custom");
    snprintf(g->name, sizeof g->name, "custom GPU");
    g->usd_per_gpu_hour = 0;
    if (cat)
        g->eff = cat->efficiency_default;
    else
        pp_efficiency_init(&g->eff);
}

static int parse_efficiency_from(const parse_ctx *c, const cJSON *obj, const pp_jpath *at, pp_gpu *g)
{
    char from[PP_ID_LEN];
    const cJSON *item = pp_json_member(obj, "efficiency_from");
    pp_jpath here = pp_jpath_key(at, "efficiency_from");
    if (!item)
        return PP_OK;
    int rc = pp_json_as_string(item, &here, from, sizeof from, c->err);
    if (rc)
        return rc;
    const pp_gpu *src = pp_catalog_gpu(c->cat, from);
    if (!src)
        return pp_catalog_fail_unknown(c->cat, PP_CATALOG_GPUS, from, &here, c->err);
    g->eff = src->eff;
    if (!g->eff.borrowed_from[0]) { /* the named GPU's own fit (one it borrows itself names its donor) */
        snprintf(g->eff.borrowed_from, sizeof g->eff.borrowed_from, "%s", src->id);
        g->eff.borrow_factor = 1.0;
        g->eff.borrow_nvlink_factor = 1.0;
        g->eff.attention_balance = pp_gpu_attention_balance(src);
    }
    return PP_OK;
}

static int parse_custom_gpu(const parse_ctx *c, const cJSON *obj, const pp_jpath *at, pp_gpu *g)
{
    custom_gpu_defaults(c->cat, g);
    int rc = pp_json_check_keys(obj, at, custom_gpu_keys, c->err);
    if (!rc)
        rc = pp_gpu_read(obj, at, PP_OPTIONAL, c->p->training.precision, g, c->err);
    if (!rc)
        rc = pp_json_double(obj, at, "usd_per_gpu_hour", PP_OPTIONAL, 0, 1e4, &g->usd_per_gpu_hour, c->err);
    return rc ? rc : parse_efficiency_from(c, obj, at, g);
}

static int parse_gpu(const parse_ctx *c, const cJSON *item, const pp_jpath *at, pp_gpu *g)
{
    if (cJSON_IsString(item)) { /* an id, or a name the GPU goes by ("H100 SXM") */
        const pp_gpu *found = pp_catalog_gpu_named(c->cat, item->valuestring);
        if (!found)
            return pp_catalog_fail_unknown(c->cat, PP_CATALOG_GPUS, item->valuestring, at, c->err);
        *g = *found;
        return PP_OK;
    }
    if (!cJSON_IsObject(item))
        return pp_json_fail_expected(c->err, at, "a GPU id of gpus.json or a GPU object", item);
    return parse_custom_gpu(c, item, at, g);
}

/* ---- cluster ------------------------------------------------------------------------ */

static const char *const cluster_keys[] = {"gpu",   "gpus_per_node",   "nodes",
                                           "intra_node_GBps", "inter_node_Gbps", "network_oversubscription",
                                           "leaf_nodes", "gpus_per_nic_switch", "gpus_per_host", NULL};

static int parse_cluster_id(const parse_ctx *c, const char *id, const pp_jpath *at)
{
    const pp_catalog_cluster *cc = pp_catalog_cluster_find(c->cat, id);
    if (!cc)
        return pp_catalog_fail_unknown(c->cat, PP_CATALOG_CLUSTERS, id, at, c->err);
    const pp_gpu *g = pp_catalog_gpu(c->cat, cc->cluster.gpu.id);
    if (!g) /* the catalog loader makes sure it is there */
        return pp_catalog_fail_unknown(c->cat, PP_CATALOG_GPUS, cc->cluster.gpu.id, at, c->err);
    c->p->cluster = cc->cluster;
    c->p->cluster.gpu = *g; /* as the catalog holds it now: an efficiency file may have changed it */
    return PP_OK;
}

/* The scale-out fabric: network_oversubscription >= 1 (leaf uplinks to the
 * spine over the leaf's downlinks; default 1, a non-blocking fat tree) and
 * leaf_nodes >= 1 (nodes under one leaf switch group; default every node,
 * so no collective crosses the spine). */
#define MAX_OVERSUBSCRIPTION 64.0
static int parse_cluster_fabric(const parse_ctx *c, const cJSON *obj, const pp_jpath *at, pp_cluster *cl)
{
    cl->network_oversubscription = 1.0;
    cl->leaf_nodes = 0;
    int rc = pp_json_double(obj, at, "network_oversubscription", PP_OPTIONAL, 1.0, MAX_OVERSUBSCRIPTION,
                            &cl->network_oversubscription, c->err);
    if (!rc)
        rc = pp_json_long(obj, at, "leaf_nodes", PP_OPTIONAL, 1, MAX_NODES, &cl->leaf_nodes, c->err);
    if (!rc)
        rc = pp_json_int(obj, at, "gpus_per_nic_switch", PP_OPTIONAL, 0, PP_MAX_GPUS_PER_NODE,
                         &cl->gpus_per_nic_switch, c->err);
    return rc;
}

/* The GPUs one host drives: the GPU's (its flagship system's hosts) when it
 * divides this cluster's gpus_per_node, else the whole node; it must divide
 * gpus_per_node. */
static int parse_gpus_per_host(const parse_ctx *c, const cJSON *obj, const pp_jpath *at, pp_cluster *cl)
{
    if (cl->gpus_per_host <= 0 || cl->gpus_per_node % cl->gpus_per_host)
        cl->gpus_per_host = cl->gpus_per_node;
    int rc = pp_json_int(obj, at, "gpus_per_host", PP_OPTIONAL, 1, PP_MAX_GPUS_PER_NODE, &cl->gpus_per_host, c->err);
    if (!rc && cl->gpus_per_node % cl->gpus_per_host) {
        pp_jpath here = pp_jpath_key(at, "gpus_per_host");
        return pp_json_fail(c->err, &here, "expected a divisor of gpus_per_node %d, found %d", cl->gpus_per_node,
                            cl->gpus_per_host);
    }
    return rc;
}

/* gpus_per_node, the two links and the NIC layout default to the GPU's
 * flagship system (pp_cluster_from_gpu, already applied). */
static int parse_cluster_links(const parse_ctx *c, const cJSON *obj, const pp_jpath *at, pp_cluster *cl)
{
    int rc = pp_json_int(obj, at, "gpus_per_node", PP_OPTIONAL, 1, PP_MAX_GPUS_PER_NODE, &cl->gpus_per_node, c->err);
    if (!rc)
        rc = parse_gpus_per_host(c, obj, at, cl);
    if (!rc)
        rc = pp_json_positive(obj, at, "intra_node_GBps", PP_OPTIONAL, 1e7, &cl->intra_node_GBps, c->err);
    if (!rc)
        rc = pp_json_positive(obj, at, "inter_node_Gbps", PP_OPTIONAL, 1e7, &cl->inter_node_Gbps, c->err);
    return rc ? rc : parse_cluster_fabric(c, obj, at, cl);
}

static int parse_cluster(const parse_ctx *c, const cJSON *item, const pp_jpath *at)
{
    c->p->has_cluster = true;
    if (cJSON_IsString(item))
        return parse_cluster_id(c, item->valuestring, at);
    if (!cJSON_IsObject(item))
        return pp_json_fail_expected(c->err, at, "a cluster id of clusters.json or a cluster object", item);
    pp_cluster *cl = &c->p->cluster;
    const cJSON *gpu = pp_json_member(item, "gpu");
    pp_jpath gpu_at = pp_jpath_key(at, "gpu");
    int rc = pp_json_check_keys(item, at, cluster_keys, c->err);
    if (rc)
        return rc;
    if (!gpu)
        return pp_json_missing(at, "gpu", c->err);
    pp_gpu g;
    rc = parse_gpu(c, gpu, &gpu_at, &g);
    if (rc)
        return rc;
    pp_cluster_from_gpu(&g, cl);
    rc = pp_json_long(item, at, "nodes", PP_REQUIRED, 1, MAX_NODES, &cl->nodes, c->err);
    return rc ? rc : parse_cluster_links(c, item, at, cl);
}

/* ---- training ------------------------------------------------------------------------- */

static const char *const training_keys[] = {"global_batch", "precision", "optimizer", "tokens", "framework",
                                            "flash_attention", "dp_overlap", "tp_bwd_overlap", "grad_reduce_dtype",
                                            "collectives",
                                            "moe_load_imbalance", "fused_elementwise", "fused_norm", "fused_loss",
                                            "moe_dispatcher", "moe_a2a_overlap", "p2p_scatter_gather",
                                            "attention_kernel", "grad_accum_dtype", "loss_parallel", "lora_rank",
                                            "lora_targets", "fp8_params", "fp8_activation_input_store",
                                            "packed_sample_tokens", "nccl_pxn", "nccl_nvls", "moe_force_balance",
                                            "mtp_layers", "cuda_graphs", "optimizer_moments_dtype",
                                            "bf16_layers_first", "bf16_layers_last", NULL};
static const char *const collectives_names[] = {"nccl", "mvapich2-gdr"};
static const char *const moe_dispatcher_names[] = {"alltoall", "deepep"};
static const char *const optimizer_names[] = {"adam"};

/* A 16- or 32-bit data type (grad_reduce_dtype, grad_accum_dtype,
 * optimizer_moments_dtype): bf16, fp16 or fp32, `dflt` when absent. */
static int parse_gradient_dtype(const parse_ctx *c, const cJSON *obj, const pp_jpath *at, const char *key,
                                pp_precision dflt, pp_precision *out)
{
    int v = (int)dflt;
    int rc = pp_json_enum(obj, at, key, PP_OPTIONAL, pp_precision_names, N_WIRE_PRECISIONS, &v, c->err);
    if (!rc && v == PP_PREC_FP8) {
        pp_jpath here = pp_jpath_key(at, key);
        rc = pp_json_fail(c->err, &here, "expected \"bf16\", \"fp16\" or \"fp32\", found \"fp8\"");
    }
    *out = (pp_precision)v;
    return rc;
}

static int parse_training(const parse_ctx *c, const cJSON *obj, const pp_jpath *at)
{
    pp_training *t = &c->p->training;
    int precision = 0, optimizer = 0;
    for (int i = 0; i < N_TRAINING_PRECISIONS; i++)
        if (training_precisions[i] == t->precision)
            precision = i;
    int rc = pp_json_expect_object(obj, at, c->err);
    if (!rc)
        rc = pp_json_check_keys(obj, at, training_keys, c->err);
    if (!rc)
        rc = pp_json_long(obj, at, "global_batch", PP_REQUIRED, 1, MAX_GLOBAL_BATCH, &t->global_batch, c->err);
    /* the precision by its name or a framework's name of its recipe
     * ("FP8-CS", "bf16_with_mxfp8_mixed": names.c pp_precision_alias) */
    const cJSON *prec_item = cJSON_GetObjectItemCaseSensitive(obj, "precision");
    pp_precision prec_alias;
    if (!rc && cJSON_IsString(prec_item) && pp_precision_alias(prec_item->valuestring, &prec_alias)) {
        for (int i = 0; i < N_TRAINING_PRECISIONS; i++)
            if (training_precisions[i] == prec_alias)
                precision = i;
    } else if (!rc)
        rc = pp_json_enum(obj, at, "precision", PP_OPTIONAL, training_precision_names, N_TRAINING_PRECISIONS,
                          &precision, c->err);
    if (!rc)
        rc = pp_json_enum(obj, at, "optimizer", PP_OPTIONAL, optimizer_names, 1, &optimizer, c->err);
    if (!rc)
        rc = pp_json_positive(obj, at, "tokens", PP_OPTIONAL, 1e18, &t->tokens, c->err);
    int framework = (int)t->framework;
    /* the framework by its id or by another of its usual names ("NeMo",
     * "torchtitan": names.c pp_framework_alias) */
    const cJSON *fw_item = cJSON_GetObjectItemCaseSensitive(obj, "framework");
    pp_framework alias;
    if (!rc && cJSON_IsString(fw_item) && pp_framework_alias(fw_item->valuestring, &alias))
        framework = (int)alias;
    else if (!rc)
        rc = pp_json_enum(obj, at, "framework", PP_OPTIONAL, pp_framework_names, PP_FW_COUNT, &framework, c->err);
    if (!rc && framework != (int)t->framework) /* explicit flags below may still override */
        pp_framework_features((pp_framework)framework, t);
    if (!rc)
        rc = pp_json_bool(obj, at, "flash_attention", PP_OPTIONAL, &t->flash_attention, c->err);
    int kernel = (int)t->attention_kernel;
    if (!rc)
        rc = pp_json_enum(obj, at, "attention_kernel", PP_OPTIONAL, pp_attention_kernel_names, PP_ATTN_COUNT, &kernel,
                          c->err);
    t->attention_kernel = (pp_attention_kernel)kernel;
    int graphs = (int)t->cuda_graphs;
    if (!rc)
        rc = pp_json_enum(obj, at, "cuda_graphs", PP_OPTIONAL, pp_cuda_graphs_names, PP_GRAPHS_COUNT, &graphs, c->err);
    t->cuda_graphs = (pp_cuda_graphs)graphs;
    if (!rc)
        rc = pp_json_bool(obj, at, "dp_overlap", PP_OPTIONAL, &t->dp_overlap, c->err);
    if (!rc)
        rc = pp_json_bool(obj, at, "tp_bwd_overlap", PP_OPTIONAL, &t->tp_bwd_overlap, c->err);
    if (!rc)
        rc = pp_json_bool(obj, at, "fused_elementwise", PP_OPTIONAL, &t->fused_elementwise, c->err);
    if (!rc)
        rc = pp_json_bool(obj, at, "fused_norm", PP_OPTIONAL, &t->fused_norm, c->err);
    t->fused_loss = t->fused_elementwise; /* torch.compile compiles the loss too, unless told otherwise */
    if (!rc)
        rc = pp_json_bool(obj, at, "fused_loss", PP_OPTIONAL, &t->fused_loss, c->err);
    if (!rc)
        rc = pp_json_double(obj, at, "moe_load_imbalance", PP_OPTIONAL, 1.0, 64.0, &t->moe_load_imbalance, c->err);
    if (!rc)
        rc = pp_json_bool(obj, at, "moe_force_balance", PP_OPTIONAL, &t->moe_force_balance, c->err);
    if (!rc && t->moe_force_balance) { /* every expert its mean share: no imbalance to state */
        if (pp_json_member(obj, "moe_load_imbalance") && t->moe_load_imbalance != 1.0) {
            pp_jpath here = pp_jpath_key(at, "moe_load_imbalance");
            return pp_json_fail(c->err, &here,
                                "expected 1 or nothing with moe_force_balance true (the router gives every expert "
                                "its mean share), found %g",
                                t->moe_load_imbalance);
        }
        t->moe_load_imbalance = 1.0;
    }
    int dispatcher = t->moe_deepep ? 1 : 0;
    if (!rc)
        rc = pp_json_enum(obj, at, "moe_dispatcher", PP_OPTIONAL, moe_dispatcher_names, 2, &dispatcher, c->err);
    t->moe_deepep = dispatcher == 1;
    t->moe_dispatcher_given = pp_json_member(obj, "moe_dispatcher") != NULL;
    if (!rc)
        rc = pp_json_bool(obj, at, "moe_a2a_overlap", PP_OPTIONAL, &t->moe_a2a_overlap, c->err);
    t->moe_a2a_overlap_given = pp_json_member(obj, "moe_a2a_overlap") != NULL;
    if (!rc)
        rc = pp_json_bool(obj, at, "p2p_scatter_gather", PP_OPTIONAL, &t->p2p_scatter_gather, c->err);
    t->precision = training_precisions[precision];
    /* DP gradients on the wire, and held between micro-batches (by default
     * in the type they are reduced in, pp_framework_grad_accum): what the
     * framework does unless the problem says otherwise */
    if (!rc)
        rc = parse_gradient_dtype(c, obj, at, "grad_reduce_dtype", pp_framework_grad_reduce(t->framework, t->precision),
                                  &t->grad_reduce_dtype);
    pp_precision accum = pp_framework_grad_accum(t->framework, t->precision, t->grad_reduce_dtype);
    if (!rc)
        rc = parse_gradient_dtype(c, obj, at, "grad_accum_dtype", accum, &accum);
    t->grad_accum_bytes = accum == PP_PREC_FP32 ? 4 : 2;
    t->grad_accum_given = pp_json_member(obj, "grad_accum_dtype") != NULL;
    /* Adam's two moments: fp32 unless the problem keeps them in 16 bits */
    pp_precision moments = t->moment_bytes != 2 ? PP_PREC_FP32 : t->moments_fp16 ? PP_PREC_FP16 : PP_PREC_BF16;
    if (!rc)
        rc = parse_gradient_dtype(c, obj, at, "optimizer_moments_dtype", moments, &moments);
    t->moment_bytes = moments == PP_PREC_FP32 ? 4 : 2;
    t->moments_fp16 = moments == PP_PREC_FP16;
    bool loss_parallel = !t->loss_gathered;
    if (!rc)
        rc = pp_json_bool(obj, at, "loss_parallel", PP_OPTIONAL, &loss_parallel, c->err);
    t->loss_gathered = !loss_parallel;
    int lib = t->mvapich ? 1 : 0;
    if (!rc)
        rc = pp_json_enum(obj, at, "collectives", PP_OPTIONAL, collectives_names, 2, &lib, c->err);
    t->mvapich = lib == 1;
    long rank = t->lora_rank;
    if (!rc)
        rc = pp_json_long(obj, at, "lora_rank", PP_OPTIONAL, 0, MAX_LORA_RANK, &rank, c->err);
    t->lora_rank = (int)rank;
    int targets = (int)t->lora_targets;
    if (!rc)
        rc = pp_json_enum(obj, at, "lora_targets", PP_OPTIONAL, pp_lora_targets_names, PP_LORA_TARGETS_COUNT,
                          &targets, c->err);
    t->lora_targets = (pp_lora_targets)targets;
    if (!rc)
        rc = pp_json_bool(obj, at, "fp8_params", PP_OPTIONAL, &t->fp8_params, c->err);
    if (!rc)
        rc = pp_json_bool(obj, at, "fp8_activation_input_store", PP_OPTIONAL, &t->fp8_act_store, c->err);
    if (!rc)
        rc = pp_json_positive(obj, at, "packed_sample_tokens", PP_OPTIONAL, 1e9, &t->packed_sample_tokens, c->err);
    if (!rc)
        rc = pp_json_bool(obj, at, "nccl_pxn", PP_OPTIONAL, &t->nccl_pxn, c->err);
    if (!rc)
        rc = pp_json_bool(obj, at, "nccl_nvls", PP_OPTIONAL, &t->nccl_nvls, c->err);
    if (!rc)
        rc = pp_json_int(obj, at, "mtp_layers", PP_OPTIONAL, 0, MAX_MTP_LAYERS, &t->mtp_layers, c->err);
    /* the blocks kept in bf16 (check_training_across resolves them against
     * the model's layers and the recipe; -1 not stated) */
    t->bf16_layers_resolved = false;
    t->bf16_first = t->bf16_last = -1;
    if (!rc && pp_json_member(obj, "bf16_layers_first"))
        rc = pp_json_int(obj, at, "bf16_layers_first", PP_REQUIRED, 0, PP_MAX_LAYERS, &t->bf16_first, c->err);
    if (!rc && pp_json_member(obj, "bf16_layers_last"))
        rc = pp_json_int(obj, at, "bf16_layers_last", PP_REQUIRED, 0, PP_MAX_LAYERS, &t->bf16_last, c->err);
    return rc;
}

/* The recipe's own blocks in bf16: its shares of the model's blocks, rounded. */
static void recipe_bf16_layers(const pp_precision_info *info, int layers, int *first, int *last)
{
    *first = (int)lround(info->bf16_first_share * layers);
    *last = (int)lround(info->bf16_last_share * layers);
}

/* The blocks the recipe keeps in bf16, first and last, as the problem was
 * read (resolve_bf16_layers), or the recipe's own share of the model's
 * blocks for a training built in code; none under a 16-bit recipe. */
void pp_bf16_layers(const pp_problem *prob, int *first, int *last)
{
    const pp_training *t = &prob->training;
    const pp_precision_info *info = pp_precision_props(t->precision);
    *first = *last = 0;
    if (!info->low_gemm)
        return;
    if (!t->bf16_layers_resolved) {
        recipe_bf16_layers(info, prob->model.layers, first, last);
        return;
    }
    *first = t->bf16_first;
    *last = t->bf16_last;
}

/* The transformer blocks the recipe keeps in bf16, first and last: as
 * stated (one stated, the other 0), else the recipe's own share of the
 * model's blocks, rounded (names.c: NVIDIA's NVFP4 recipe; none for the
 * others), and their share of the blocks, which the cost model prices in
 * bf16 and the launch settings ask for.  A 16-bit recipe keeps none. */
static int resolve_bf16_layers(const parse_ctx *c, const pp_jpath *tr)
{
    pp_training *t = &c->p->training;
    const pp_precision_info *info = pp_precision_props(t->precision);
    int layers = c->p->model.layers;
    bool stated = t->bf16_first >= 0 || t->bf16_last >= 0;
    if (stated && !info->low_gemm && (t->bf16_first > 0 || t->bf16_last > 0)) {
        pp_jpath here = pp_jpath_key(tr, t->bf16_first > 0 ? "bf16_layers_first" : "bf16_layers_last");
        return pp_json_fail(c->err, &here, "expected 0 with precision \"%s\": every block runs in 16 bits already",
                            pp_precision_name(t->precision));
    }
    if (!info->low_gemm) { /* nothing to keep in bf16 */
        t->bf16_first = t->bf16_last = 0;
        t->bf16_share = 0.0;
        return PP_OK;
    }
    if (stated) {
        t->bf16_first = t->bf16_first > 0 ? t->bf16_first : 0;
        t->bf16_last = t->bf16_last > 0 ? t->bf16_last : 0;
    } else {
        recipe_bf16_layers(info, layers, &t->bf16_first, &t->bf16_last);
    }
    if (t->bf16_first + t->bf16_last > layers) {
        pp_jpath here = pp_jpath_key(tr, "bf16_layers_last");
        return pp_json_fail(c->err, &here,
                            "expected at most the model's %d blocks in bf16, found %d first and %d last", layers,
                            t->bf16_first, t->bf16_last);
    }
    t->bf16_share = layers > 0 ? (double)(t->bf16_first + t->bf16_last) / layers : 0.0;
    t->bf16_layers_resolved = true;
    return PP_OK;
}

/* Whether the problem's framework runs training setting s
 * (data/frameworks.json "settings"); without the catalog, every one. */
static bool framework_runs_setting(const parse_ctx *c, pp_training_setting s)
{
    pp_framework fw = c->p->training.framework;
    if (!c->cat || fw < 0 || fw >= PP_FW_COUNT || !c->cat->frameworks[fw].known)
        return true;
    return (c->cat->frameworks[fw].settings & (1u << s)) != 0;
}

/* The frameworks of the catalog that run setting s, by name, in `buf`. */
static void frameworks_running(const parse_ctx *c, pp_training_setting s, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int f = 0; c->cat && f < PP_FW_COUNT && used < cap; f++)
        if (c->cat->frameworks[f].known && (c->cat->frameworks[f].settings & (1u << s)))
            used += (size_t)snprintf(buf + used, cap - used, "%s%s", used ? ", " : "", pp_framework_names[f]);
    if (!buf[0])
        snprintf(buf, cap, "none");
}

/* Training keys that depend on the model or the recipe: fp8 weights and
 * fp8-stored activations need an fp8-class recipe; packed samples are no
 * longer than the sequence; LoRA adapters are rank x width matrices beside a
 * weight, and a rank as wide as the model's hidden size is no longer
 * low-rank. */
static int check_training_across(const parse_ctx *c, const pp_jpath *root)
{
    const pp_training *t = &c->p->training;
    pp_jpath tr = pp_jpath_key(root, "training");
    bool low = pp_precision_props(t->precision)->low_gemm;
    if ((t->fp8_params || t->fp8_act_store) && !low) {
        const char *key = t->fp8_params ? "fp8_params" : "fp8_activation_input_store";
        pp_jpath here = pp_jpath_key(&tr, key);
        return pp_json_fail(c->err, &here, "expected false with precision \"%s\": %s in fp8 only under an "
                            "fp8-class recipe", pp_precision_name(t->precision),
                            t->fp8_params ? "weights are held" : "activations are stored");
    }
    if (t->packed_sample_tokens > c->p->model.seq_len) {
        pp_jpath here = pp_jpath_key(&tr, "packed_sample_tokens");
        return pp_json_fail(c->err, &here, "expected a sample length of at most the sequence length %d, found %g",
                            c->p->model.seq_len, t->packed_sample_tokens);
    }
    /* the training settings a framework may lack (data/frameworks.json
     * "settings"): forced balance, a router override of Megatron-Core and
     * torchtitan (--moe-router-force-load-balancing,
     * debug.moe_force_load_balance); multi-token prediction, Megatron-Core's
     * MTP modules (--mtp-num-layers) */
    char runs[160];
    if (t->moe_force_balance &&
        (!pp_model_is_moe(&c->p->model) || !framework_runs_setting(c, PP_TS_MOE_FORCE_BALANCE))) {
        pp_jpath here = pp_jpath_key(&tr, "moe_force_balance");
        frameworks_running(c, PP_TS_MOE_FORCE_BALANCE, runs, sizeof runs);
        return pp_json_fail(c->err, &here,
                            "expected moe_force_balance only for a MoE model under a framework with a "
                            "forced-balance router (data/frameworks.json: %s), found %s under %s",
                            runs, pp_model_is_moe(&c->p->model) ? "a MoE model" : "a dense model",
                            pp_framework_name(t->framework));
    }
    if (t->mtp_layers > 0 && !framework_runs_setting(c, PP_TS_MTP_LAYERS)) {
        pp_jpath here = pp_jpath_key(&tr, "mtp_layers");
        frameworks_running(c, PP_TS_MTP_LAYERS, runs, sizeof runs);
        return pp_json_fail(c->err, &here,
                            "expected 0 under %s, which trains no multi-token-prediction module "
                            "(data/frameworks.json: %s do), found %d",
                            pp_framework_name(t->framework), runs, t->mtp_layers);
    }
    if (t->cuda_graphs != PP_GRAPHS_NONE && !framework_runs_setting(c, PP_TS_CUDA_GRAPHS)) {
        pp_jpath here = pp_jpath_key(&tr, "cuda_graphs");
        frameworks_running(c, PP_TS_CUDA_GRAPHS, runs, sizeof runs);
        return pp_json_fail(c->err, &here,
                            "expected \"none\" under %s, whose launch settings capture no CUDA graphs "
                            "(data/frameworks.json: %s do), found \"%s\"",
                            pp_framework_name(t->framework), runs, pp_cuda_graphs_names[t->cuda_graphs]);
    }
    if (t->moment_bytes == 2 && !framework_runs_setting(c, PP_TS_OPTIMIZER_MOMENTS)) {
        pp_jpath here = pp_jpath_key(&tr, "optimizer_moments_dtype");
        frameworks_running(c, PP_TS_OPTIMIZER_MOMENTS, runs, sizeof runs);
        return pp_json_fail(c->err, &here,
                            "expected \"fp32\" under %s, whose optimizer keeps Adam's moments in fp32 "
                            "(data/frameworks.json: %s run them in 16 bits)",
                            pp_framework_name(t->framework), runs);
    }
    bool bf16_stated = t->bf16_first > 0 || t->bf16_last > 0;
    int rc = resolve_bf16_layers(c, &tr);
    if (rc)
        return rc;
    if (bf16_stated && !framework_runs_setting(c, PP_TS_BF16_LAYERS)) {
        pp_jpath here = pp_jpath_key(&tr, t->bf16_first > 0 ? "bf16_layers_first" : "bf16_layers_last");
        frameworks_running(c, PP_TS_BF16_LAYERS, runs, sizeof runs);
        return pp_json_fail(c->err, &here,
                            "expected 0 under %s, which runs every block in the recipe's format "
                            "(data/frameworks.json: %s keep blocks in bf16)",
                            pp_framework_name(t->framework), runs);
    }
    if (t->cuda_graphs == PP_GRAPHS_FULL && pp_model_is_moe(&c->p->model)) {
        pp_jpath here = pp_jpath_key(&tr, "cuda_graphs");
        return pp_json_fail(c->err, &here,
                            "expected \"none\" or \"partial\" for a MoE model, found \"full\": a dropless MoE "
                            "layer's routed experts change shape every step, and Megatron-Core captures them only "
                            "padded to capacity (\"moe cuda graph is only supported with drop-padding MoE\"), which "
                            "parplan does not price");
    }
    if (t->lora_rank <= 0 || t->lora_rank < c->p->model.hidden)
        return PP_OK;
    pp_jpath here = pp_jpath_key(&tr, "lora_rank");
    return pp_json_fail(c->err, &here, "expected a rank below the model's hidden size %d, found %d", c->p->model.hidden,
                        t->lora_rank);
}

/* ---- search ---------------------------------------------------------------------------- */

/* Every key of PLAN.json and of a problem's search section (the decisions'
 * keys and "compression") and of their "compression" object (the codec
 * decisions' keys), in the table's order, NULL-terminated. */
typedef struct decision_keys {
    const char *top[PP_DEC_COUNT + 2];
    const char *codecs[PP_DEC_COUNT + 1];
} decision_keys;

static void decision_key_lists(decision_keys *keys)
{
    const char **top = keys->top, **codec_keys = keys->codecs;
    int n = 0, k = 0;
    for (int i = 0; i < PP_DEC_COUNT; i++) {
        if (pp_decisions[i].kind == PP_DK_CODEC)
            codec_keys[k++] = pp_decisions[i].key;
        else
            top[n++] = pp_decisions[i].key;
    }
    top[n++] = "compression";
    top[n] = NULL;
    codec_keys[k] = NULL;
}

/* One element of a decision's search list, as its row reads it. */
static int read_element(const parse_ctx *c, const cJSON *item, const pp_jpath *at, const pp_decision *d, int *out)
{
    bool b = false;
    int rc;
    switch (d->kind) {
    case PP_DK_INT: return pp_json_as_int(item, at, d->min, d->max, out, c->err);
    case PP_DK_ENUM: return pp_json_as_enum(item, at, d->names, d->max + 1, out, c->err);
    case PP_DK_BOOL:
        rc = pp_json_as_bool(item, at, &b, c->err);
        *out = b;
        return rc;
    default: return resolve_codec(c->p, item, at, out, c->err);
    }
}

static int check_distinct(const parse_ctx *c, const pp_int_list *list, const cJSON *item, const pp_jpath *at)
{
    for (int j = 0; j < list->n - 1; j++)
        if (list->v[j] == list->v[list->n - 1]) {
            char found[96];
            pp_json_describe(item, found, sizeof found);
            return pp_json_fail(c->err, at, "expected distinct values, found %s again (also at [%d])", found, j);
        }
    return PP_OK;
}

/* search.<key> of decision d: a non-empty list of distinct values, at most
 * PP_MAX_VALUES of them. */
static int parse_list(const parse_ctx *c, const cJSON *item, const pp_jpath *at, const pp_decision *d)
{
    pp_int_list *list = &c->p->search[d->id];
    list->n = 0;
    if (!cJSON_IsArray(item))
        return pp_json_fail_expected(c->err, at, "a list (write [x] for a single value)", item);
    int size = cJSON_GetArraySize(item);
    if (size < 1 || size > PP_MAX_VALUES)
        return pp_json_fail(c->err, at, "expected a list of 1..%d values, found %d", PP_MAX_VALUES, size);
    const cJSON *el;
    cJSON_ArrayForEach(el, item)
    {
        pp_jpath el_at = pp_jpath_index(at, list->n);
        int rc = read_element(c, el, &el_at, d, &list->v[list->n]);
        list->n++;
        if (!rc)
            rc = check_distinct(c, list, el, &el_at);
        if (rc)
            return rc;
    }
    return PP_OK;
}

/* The decisions of one kind (codecs, or every other) listed in obj. */
static int parse_search_lists(const parse_ctx *c, const cJSON *obj, const pp_jpath *at, bool codecs)
{
    int rc = PP_OK;
    for (int i = 0; i < PP_DEC_COUNT && !rc; i++) {
        const pp_decision *d = &pp_decisions[i];
        const cJSON *item = pp_json_member(obj, d->key);
        pp_jpath here = pp_jpath_key(at, d->key);
        if ((d->kind == PP_DK_CODEC) == codecs && item)
            rc = parse_list(c, item, &here, d);
    }
    return rc;
}

static int parse_search(const parse_ctx *c, const cJSON *obj, const pp_jpath *at)
{
    decision_keys keys;
    decision_key_lists(&keys);
    int rc = pp_json_expect_object(obj, at, c->err);
    if (!rc)
        rc = pp_json_check_keys(obj, at, keys.top, c->err);
    if (!rc)
        rc = parse_search_lists(c, obj, at, false);
    const cJSON *comp = pp_json_member(obj, "compression");
    pp_jpath comp_at = pp_jpath_key(at, "compression");
    if (rc || !comp)
        return rc;
    rc = pp_json_expect_object(comp, &comp_at, c->err);
    if (!rc)
        rc = pp_json_check_keys(comp, &comp_at, keys.codecs, c->err);
    return rc ? rc : parse_search_lists(c, comp, &comp_at, true);
}

/* ---- constraints ------------------------------------------------------------------------- */

static const char *const constraint_keys[] = {"memory_headroom", "allow_tp_across_nodes", "error_tolerance",
                                              "compress_min_bytes", "use_all_gpus", NULL};

static int parse_error_tolerance(const parse_ctx *c, const cJSON *obj, const pp_jpath *at)
{
    int rc = pp_json_expect_object(obj, at, c->err);
    if (!rc)
        rc = pp_json_check_keys(obj, at, dim_keys, c->err);
    for (int d = 0; d < PP_DIM_COUNT && !rc; d++)
        rc = pp_json_double(obj, at, pp_dim_names[d], PP_OPTIONAL, 0, 1, &c->p->error_tolerance[d], c->err);
    return rc;
}

static int parse_constraints(const parse_ctx *c, const cJSON *obj, const pp_jpath *at)
{
    pp_problem *p = c->p;
    int rc = pp_json_expect_object(obj, at, c->err);
    if (!rc)
        rc = pp_json_check_keys(obj, at, constraint_keys, c->err);
    if (!rc)
        rc = pp_json_double(obj, at, "memory_headroom", PP_OPTIONAL, 0, 0.9, &p->memory_headroom, c->err);
    if (!rc)
        rc = pp_json_bool(obj, at, "allow_tp_across_nodes", PP_OPTIONAL, &p->allow_tp_across_nodes, c->err);
    bool use_all = !p->idle_gpus_ok;
    if (!rc)
        rc = pp_json_bool(obj, at, "use_all_gpus", PP_OPTIONAL, &use_all, c->err);
    p->idle_gpus_ok = !use_all;
    if (!rc)
        rc = pp_json_double(obj, at, "compress_min_bytes", PP_OPTIONAL, 0, 1e15, &p->compress_min_bytes, c->err);
    const cJSON *tol = pp_json_member(obj, "error_tolerance");
    pp_jpath tol_at = pp_jpath_key(at, "error_tolerance");
    return (rc || !tol) ? rc : parse_error_tolerance(c, tol, &tol_at);
}

/* ---- capacity ----------------------------------------------------------------------------- */

static const char *const capacity_keys[] = {"gpus", "nodes", "deadline_days", "budget_usd", "max_gpus", NULL};
static const char *const capacity_gpu_keys[] = {"gpu", "usd_per_gpu_hour", "gpus_per_node", "intra_node_GBps",
                                                "inter_node_Gbps", NULL};

/* An offer's links default to its GPU's flagship system (pp_cluster_from_gpu). */
static int parse_capacity_links(const parse_ctx *c, const cJSON *obj, const pp_jpath *at, pp_capacity_gpu *cg)
{
    pp_cluster flagship;
    pp_cluster_from_gpu(&cg->gpu, &flagship);
    cg->gpus_per_node = flagship.gpus_per_node;
    cg->intra_node_GBps = flagship.intra_node_GBps;
    cg->inter_node_Gbps = flagship.inter_node_Gbps;
    cg->usd_per_gpu_hour = cg->gpu.usd_per_gpu_hour;
    int rc = pp_json_positive(obj, at, "usd_per_gpu_hour", PP_OPTIONAL, 1e4, &cg->usd_per_gpu_hour, c->err);
    if (!rc)
        rc = pp_json_int(obj, at, "gpus_per_node", PP_OPTIONAL, 1, PP_MAX_GPUS_PER_NODE, &cg->gpus_per_node, c->err);
    if (!rc)
        rc = pp_json_positive(obj, at, "intra_node_GBps", PP_OPTIONAL, 1e7, &cg->intra_node_GBps, c->err);
    if (!rc)
        rc = pp_json_positive(obj, at, "inter_node_Gbps", PP_OPTIONAL, 1e7, &cg->inter_node_Gbps, c->err);
    return rc;
}

static int check_capacity_gpu_unique(const parse_ctx *c, int i, const pp_jpath *at)
{
    const pp_capacity *cap = &c->p->capacity;
    for (int j = 0; j < i; j++)
        if (strcmp(cap->gpus[j].gpu.id, cap->gpus[i].gpu.id) == 0) {
            pp_jpath here = pp_jpath_key(at, "gpu");
            return pp_json_fail(c->err, &here, "expected each GPU once, found '%s' again (also at [%d])",
                                cap->gpus[i].gpu.id, j);
        }
    return PP_OK;
}

static int parse_capacity_gpu(const parse_ctx *c, const cJSON *obj, const pp_jpath *at, int i)
{
    pp_capacity_gpu *cg = &c->p->capacity.gpus[i];
    const cJSON *gpu = pp_json_member(obj, "gpu");
    pp_jpath gpu_at = pp_jpath_key(at, "gpu");
    int rc = pp_json_expect_object(obj, at, c->err);
    if (!rc)
        rc = pp_json_check_keys(obj, at, capacity_gpu_keys, c->err);
    if (rc)
        return rc;
    if (!gpu)
        return pp_json_missing(at, "gpu", c->err);
    rc = parse_gpu(c, gpu, &gpu_at, &cg->gpu);
    if (!rc)
        rc = check_capacity_gpu_unique(c, i, at);
    return rc ? rc : parse_capacity_links(c, obj, at, cg);
}

static int parse_capacity_gpus(const parse_ctx *c, const cJSON *list, const pp_jpath *at)
{
    if (!cJSON_IsArray(list))
        return pp_json_fail_expected(c->err, at, "a list of GPU offers", list);
    int n = cJSON_GetArraySize(list);
    if (n < 1 || n > PP_MAX_CAPACITY_GPUS)
        return pp_json_fail(c->err, at, "expected a list of 1..%d GPU offers, found %d", PP_MAX_CAPACITY_GPUS, n);
    const cJSON *item;
    cJSON_ArrayForEach(item, list)
    {
        pp_jpath el_at = pp_jpath_index(at, c->p->capacity.n_gpus);
        int rc = parse_capacity_gpu(c, item, &el_at, c->p->capacity.n_gpus);
        if (rc)
            return rc;
        c->p->capacity.n_gpus++;
    }
    return PP_OK;
}

static int parse_node_range(const parse_ctx *c, const cJSON *obj, const pp_jpath *at)
{
    pp_capacity *cap = &c->p->capacity;
    cap->nodes_min = 1;
    int rc = pp_json_check_keys(obj, at, (const char *const[]){"min", "max", NULL}, c->err);
    if (!rc)
        rc = pp_json_long(obj, at, "min", PP_OPTIONAL, 1, MAX_NODES, &cap->nodes_min, c->err);
    if (!rc)
        rc = pp_json_long(obj, at, "max", PP_REQUIRED, 1, MAX_NODES, &cap->nodes_max, c->err);
    if (!rc && cap->nodes_max < cap->nodes_min) {
        pp_jpath here = pp_jpath_key(at, "max");
        rc = pp_json_fail(c->err, &here, "expected max >= min (%ld), found %ld", cap->nodes_min, cap->nodes_max);
    }
    return rc;
}

static int parse_node_list(const parse_ctx *c, const cJSON *list, const pp_jpath *at)
{
    pp_capacity *cap = &c->p->capacity;
    int n = cJSON_GetArraySize(list);
    if (n < 1 || n > PP_MAX_NODE_COUNTS)
        return pp_json_fail(c->err, at, "expected a list of 1..%d node counts, found %d", PP_MAX_NODE_COUNTS, n);
    const cJSON *item;
    cJSON_ArrayForEach(item, list)
    {
        pp_jpath el_at = pp_jpath_index(at, cap->n_node_counts);
        long *v = &cap->node_counts[cap->n_node_counts];
        int rc = pp_json_as_long(item, &el_at, 1, MAX_NODES, v, c->err);
        for (int j = 0; j < cap->n_node_counts && !rc; j++)
            if (cap->node_counts[j] == *v)
                rc = pp_json_fail(c->err, &el_at, "expected distinct values, found %ld again (also at [%d])", *v,
                                  j);
        if (rc)
            return rc;
        cap->n_node_counts++;
    }
    return PP_OK;
}

static int parse_capacity_nodes(const parse_ctx *c, const cJSON *item, const pp_jpath *at)
{
    if (cJSON_IsObject(item))
        return parse_node_range(c, item, at);
    if (cJSON_IsArray(item))
        return parse_node_list(c, item, at);
    return pp_json_fail_expected(c->err, at, "{\"min\": N, \"max\": M} or a list of node counts", item);
}

static int parse_capacity_limits(const parse_ctx *c, const cJSON *obj, const pp_jpath *at)
{
    pp_capacity *cap = &c->p->capacity;
    int rc = pp_json_positive(obj, at, "deadline_days", PP_OPTIONAL, 1e5, &cap->deadline_days, c->err);
    if (!rc)
        rc = pp_json_positive(obj, at, "budget_usd", PP_OPTIONAL, 1e15, &cap->budget_usd, c->err);
    if (!rc)
        rc = pp_json_long(obj, at, "max_gpus", PP_OPTIONAL, 1, MAX_NODES * PP_MAX_GPUS_PER_NODE, &cap->max_gpus,
                          c->err);
    return rc;
}

static int parse_capacity(const parse_ctx *c, const cJSON *obj, const pp_jpath *at)
{
    c->p->capacity.present = true;
    const cJSON *gpus = pp_json_member(obj, "gpus"), *nodes = pp_json_member(obj, "nodes");
    pp_jpath gpus_at = pp_jpath_key(at, "gpus"), nodes_at = pp_jpath_key(at, "nodes");
    int rc = pp_json_expect_object(obj, at, c->err);
    if (!rc)
        rc = pp_json_check_keys(obj, at, capacity_keys, c->err);
    if (!rc)
        rc = gpus ? parse_capacity_gpus(c, gpus, &gpus_at) : pp_json_missing(at, "gpus", c->err);
    if (!rc)
        rc = nodes ? parse_capacity_nodes(c, nodes, &nodes_at) : pp_json_missing(at, "nodes", c->err);
    return rc ? rc : parse_capacity_limits(c, obj, at);
}

/* ---- checks across sections ----------------------------------------------------------------- */

bool pp_gpu_runs_precision(const pp_gpu *g, pp_precision prec)
{
    bool has_16bit = g->peak_tflops[PP_PREC_BF16] > 0 || g->peak_tflops[PP_PREC_FP16] > 0;
    return g->peak_tflops[prec] > 0 && (!pp_precision_props(prec)->low_gemm || has_16bit);
}

static int check_precision_supported(const parse_ctx *c, const pp_gpu *g, const pp_jpath *root)
{
    pp_precision prec = c->p->training.precision;
    const pp_precision_info *info = pp_precision_props(prec);
    if (pp_gpu_runs_precision(g, prec))
        return PP_OK;
    pp_jpath training = pp_jpath_key(root, "training");
    pp_jpath here = pp_jpath_key(&training, "precision");
    if (g->peak_tflops[prec] > 0) /* fp8 without a 16-bit peak: the attention core and element-wise work of
                                     fp8 training run in bf16 or fp16, and would have no speed at all */
        return pp_json_fail(c->err, &here,
                            "expected a GPU with a bf16 or fp16 peak for %s training (its attention and "
                            "element-wise work run in 16-bit), found %s with an %s peak only; give peak_tflops "
                            "as an object with bf16 or fp16 too",
                            pp_precision_name(prec), g->id, pp_precision_name(prec));
    char supported[128] = "";
    for (int i = 0; i < N_TRAINING_PRECISIONS; i++)
        if (g->peak_tflops[training_precisions[i]] > 0) {
            size_t used = strlen(supported);
            snprintf(supported + used, sizeof supported - used, "%s'%s'", used ? ", " : "",
                     training_precision_names[i]);
        }
    return pp_json_fail(c->err, &here, "expected a precision that %s supports (%s), found '%s'%s", g->id,
                        supported[0] ? supported : "none", pp_precision_name(prec),
                        info->blackwell_only ? " (a block-scaled format that only GPUs with its tensor cores run, "
                                               "e.g. NVIDIA Blackwell: b200-sxm-180gb, gb200-nvl72, b300-sxm-288gb, "
                                               "gb300-nvl72)"
                                             : "");
}

/* Prices are needed when the objective or a budget is about money. */
static int check_capacity_prices(const parse_ctx *c, const pp_jpath *root)
{
    const pp_capacity *cap = &c->p->capacity;
    if (c->p->objective != PP_OBJ_MIN_COST && cap->budget_usd <= 0)
        return PP_OK;
    for (int i = 0; i < cap->n_gpus; i++)
        if (cap->gpus[i].usd_per_gpu_hour <= 0) {
            pp_jpath capacity = pp_jpath_key(root, "capacity");
            pp_jpath gpus = pp_jpath_key(&capacity, "gpus");
            pp_jpath here = pp_jpath_index(&gpus, i);
            return pp_json_fail(c->err, &here,
                                "missing required key 'usd_per_gpu_hour' (the catalog has no example price "
                                "for %s, and the objective or budget needs one)",
                                cap->gpus[i].gpu.id);
        }
    return PP_OK;
}

static int check_capacity(const parse_ctx *c, const pp_jpath *root)
{
    const pp_problem *p = c->p;
    for (int i = 0; i < p->capacity.n_gpus; i++) {
        int rc = check_precision_supported(c, &p->capacity.gpus[i].gpu, root);
        if (rc)
            return rc;
    }
    if (p->training.tokens <= 0) {
        pp_jpath training = pp_jpath_key(root, "training");
        return pp_json_fail(c->err, &training,
                            "missing required key 'tokens' (capacity planning needs how many tokens to train)");
    }
    return check_capacity_prices(c, root);
}

/* The collectives library: MVAPICH2-GDR prices MPI's algorithms and offers
 * every codec; NCCL does not compress, so a dimension whose codecs the
 * problem does not list searches only the framework's casts (kind "cast"). */
static void apply_collectives(pp_problem *p)
{
    p->cluster.mpi_collectives = p->training.mvapich;
    p->cluster.nccl_pxn = p->training.nccl_pxn;
    p->cluster.nccl_nvls = p->training.nccl_nvls;
    if (p->training.mvapich)
        return;
    for (int d = 0; d < PP_DIM_COUNT; d++) {
        pp_int_list *l = &p->search[PP_DEC_CODEC(d)];
        if (l->n > 0)
            continue;
        for (int i = 0; i < p->n_codecs && l->n < PP_MAX_VALUES; i++)
            if (i == 0 || p->codecs[i].cast)
                l->v[l->n++] = i;
    }
}

/* What training.framework runs, from the catalog's frameworks.json (a
 * problem read without the catalog keeps fw.known false). */
static void take_framework_caps(const parse_ctx *c)
{
    pp_framework fw = c->p->training.framework;
    if (c->cat && fw >= 0 && fw < PP_FW_COUNT && c->cat->frameworks[fw].known)
        c->p->fw = c->cat->frameworks[fw];
}

static int check_across_sections(const parse_ctx *c, const pp_jpath *root)
{
    int rc = PP_OK;
    take_framework_caps(c);
    apply_collectives(c->p);
    if (c->p->has_cluster)
        rc = check_precision_supported(c, &c->p->cluster.gpu, root);
    if (!rc && c->p->capacity.present)
        rc = check_capacity(c, root);
    if (!rc)
        rc = check_training_across(c, root);
    return rc;
}

/* ---- the problem document ---------------------------------------------------------------- */

static const char *const problem_keys[] = {"name",   "description", "model",       "cluster", "training",
                                           "search", "objective",   "constraints", "capacity", NULL};

typedef int (*section_parser)(const parse_ctx *c, const cJSON *item, const pp_jpath *at);

/* Parse doc[key] with fn if present; a required absent section is an error. */
static int parse_section(const parse_ctx *c, const cJSON *doc, const pp_jpath *root, const char *key,
                         pp_presence need, section_parser fn)
{
    const cJSON *item = pp_json_member(doc, key);
    pp_jpath at = pp_jpath_key(root, key);
    if (!item)
        return need == PP_REQUIRED ? pp_json_missing(root, key, c->err) : PP_OK;
    return fn(c, item, &at);
}

static int parse_objective(const parse_ctx *c, const cJSON *item, const pp_jpath *at)
{
    int objective = 0;
    int rc = pp_json_as_enum(item, at, pp_objective_names, PP_OBJECTIVE_COUNT, &objective, c->err);
    c->p->objective = (pp_objective)objective;
    return rc;
}

static int parse_header(const parse_ctx *c, const cJSON *doc, const pp_jpath *root)
{
    char text[4096];
    int rc = pp_json_check_keys(doc, root, problem_keys, c->err);
    if (!rc)
        rc = pp_json_string(doc, root, "name", PP_OPTIONAL, text, PP_NAME_LEN, c->err);
    if (!rc)
        rc = pp_json_string(doc, root, "description", PP_OPTIONAL, text, sizeof text, c->err);
    return rc;
}

static int parse_problem_doc(const parse_ctx *c, const cJSON *doc, const pp_jpath *root)
{
    bool capacity = pp_json_member(doc, "capacity") != NULL;
    int rc = parse_header(c, doc, root);
    if (!rc)
        rc = parse_section(c, doc, root, "training", PP_REQUIRED, parse_training);
    if (!rc)
        rc = parse_section(c, doc, root, "model", PP_REQUIRED, parse_model);
    /* a model whose router's imbalance was measured (models.json) brings it,
     * unless the training section states its own */
    if (!rc && c->p->model.moe_load_imbalance >= 1.0 && !c->p->training.moe_force_balance &&
        !pp_json_member(pp_json_member(doc, "training"), "moe_load_imbalance"))
        c->p->training.moe_load_imbalance = c->p->model.moe_load_imbalance;
    /* the model's multi-token-prediction modules train with it where the
     * framework trains them (Megatron-Core), unless the training section
     * says how many; elsewhere the report says they are left out */
    if (!rc && !pp_json_member(pp_json_member(doc, "training"), "mtp_layers")) {
        pp_training *t = &c->p->training;
        if (framework_runs_setting(c, PP_TS_MTP_LAYERS))
            t->mtp_layers = c->p->model.mtp_layers;
        else
            t->mtp_not_run = c->p->model.mtp_layers;
    }
    if (!rc)
        rc = parse_section(c, doc, root, "cluster", capacity ? PP_OPTIONAL : PP_REQUIRED, parse_cluster);
    if (!rc)
        rc = parse_section(c, doc, root, "capacity", PP_OPTIONAL, parse_capacity);
    if (!rc)
        rc = parse_section(c, doc, root, "search", PP_OPTIONAL, parse_search);
    if (!rc)
        rc = parse_section(c, doc, root, "objective", PP_OPTIONAL, parse_objective);
    if (!rc)
        rc = parse_section(c, doc, root, "constraints", PP_OPTIONAL, parse_constraints);
    return rc ? rc : check_across_sections(c, root);
}

static void take_catalog_codecs(const pp_catalog *cat, pp_problem *p)
{
    if (!cat || cat->n_codecs < 1)
        return;
    p->n_codecs = cat->n_codecs;
    memcpy(p->codecs, cat->codecs, sizeof p->codecs);
    p->compress_min_bytes = cat->compress_min_bytes;
    p->codec_chunk_bytes = cat->codec_chunk_bytes;
}

int pp_problem_from_json(const cJSON *doc, const pp_jpath *at, const char *base_dir, const pp_catalog *cat,
                         pp_problem *out, pp_error *err)
{
    pp_problem_init(out);
    take_catalog_codecs(cat, out);
    parse_ctx c = {cat, base_dir, out, err};
    int rc = pp_json_expect_object(doc, at, err);
    if (!rc)
        rc = parse_problem_doc(&c, doc, at);
    if (rc == PP_OK)
        pp_problem_resolve_codecs(out);
    return rc;
}

int pp_problem_parse(const char *json_text, const char *origin, const char *base_dir, const pp_catalog *cat,
                     pp_problem *out, pp_error *err)
{
    origin = origin ? origin : "problem";
    pp_problem_init(out);
    cJSON *doc = NULL;
    int rc = pp_json_parse_object(json_text ? json_text : "", origin, &doc, err);
    if (rc)
        return rc;
    pp_jpath root = pp_jpath_root(origin);
    rc = pp_problem_from_json(doc, &root, base_dir, cat, out, err);
    cJSON_Delete(doc);
    return rc;
}

/* The directory part of path ("." when there is none). */
static void directory_of(const char *path, char *dir, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, cap, ".");
    else if (slash == path)
        snprintf(dir, cap, "/");
    else
        snprintf(dir, cap, "%.*s", (int)(slash - path), path);
}

int pp_problem_load(const char *path, const pp_catalog *cat, pp_problem *out, pp_error *err)
{
    char *text = NULL, dir[2048];
    pp_problem_init(out);
    int rc = pp_json_read_text(path, &text, err);
    if (rc)
        return rc;
    directory_of(path, dir, sizeof dir);
    rc = pp_problem_parse(text, path, dir, cat, out, err);
    free(text);
    return rc;
}

/* ---- plans ------------------------------------------------------------------------------------ */

typedef struct plan_ctx {
    const pp_problem *prob;
    pp_error *err;
} plan_ctx;

/* One decision from its key (dp is read after the others: its default is
 * derived from them). */
static int parse_decision(const plan_ctx *c, const cJSON *obj, const pp_jpath *at, const pp_decision *d,
                          pp_plan *plan)
{
    pp_presence need = d->required ? PP_REQUIRED : PP_OPTIONAL;
    int v = pp_decision_get(plan, d->id), rc;
    bool b = v != 0;
    switch (d->kind) {
    case PP_DK_INT: rc = pp_json_int(obj, at, d->key, need, d->min, d->max, &v, c->err); break;
    case PP_DK_ENUM: rc = pp_json_enum(obj, at, d->key, need, d->names, d->max + 1, &v, c->err); break;
    case PP_DK_BOOL:
        rc = pp_json_bool(obj, at, d->key, need, &b, c->err);
        v = b ? 1 : 0;
        break;
    default: {
        const cJSON *item = pp_json_member(obj, d->key);
        pp_jpath here = pp_jpath_key(at, d->key);
        rc = item ? resolve_codec(c->prob, item, &here, &v, c->err) : PP_OK;
        break;
    }
    }
    if (!rc)
        pp_decision_set(plan, d->id, v);
    return rc;
}

static int parse_plan_decisions(const plan_ctx *c, const cJSON *obj, const pp_jpath *at,
                                const char *const *codec_keys, pp_plan *plan)
{
    const cJSON *comp = pp_json_member(obj, "compression");
    pp_jpath comp_at = pp_jpath_key(at, "compression");
    int rc = PP_OK;
    if (comp) {
        rc = pp_json_expect_object(comp, &comp_at, c->err);
        if (!rc)
            rc = pp_json_check_keys(comp, &comp_at, codec_keys, c->err);
    }
    for (int i = 0; i < PP_DEC_COUNT && !rc; i++) {
        const pp_decision *d = &pp_decisions[i];
        if (d->id == PP_DEC_DP)
            continue;
        if (d->kind == PP_DK_CODEC)
            rc = comp ? parse_decision(c, comp, &comp_at, d, plan) : PP_OK;
        else
            rc = parse_decision(c, obj, at, d, plan);
    }
    return rc;
}

/* dp absent: all the GPUs not used by tp, pp and cp, if they divide evenly. */
static int derive_dp(const plan_ctx *c, const pp_jpath *at, pp_plan *plan)
{
    long gpus = pp_problem_gpus(c->prob);
    if (gpus <= 0)
        return pp_json_fail(c->err, at, "missing required key 'dp' (the problem has no fixed cluster to derive "
                                        "it from)");
    double model_parallel = (double)plan->tp * plan->pp * plan->cp; /* exact: the product is checked small */
    long mp = model_parallel <= (double)gpus ? (long)model_parallel : 0;
    if (mp == 0 || gpus % mp != 0)
        return pp_json_fail(c->err, at,
                            "missing key 'dp', and it cannot be derived: expected tp*pp*cp (%d*%d*%d = %.0f) to "
                            "divide the cluster's %ld GPUs, found a remainder",
                            plan->tp, plan->pp, plan->cp, model_parallel, gpus);
    plan->dp = (int)(gpus / mp);
    return PP_OK;
}

/* A 2.5D depth belongs to tp_mode "2.5d" only; elsewhere it would be
 * dropped silently (and the result's plan would not read back the same). */
static int check_tp_depth(const plan_ctx *c, const pp_jpath *at, const pp_plan *plan)
{
    if (plan->tp_depth == 1 || plan->tp_mode == PP_TP_2P5D)
        return PP_OK;
    pp_jpath here = pp_jpath_key(at, "tp_depth");
    return pp_json_fail(c->err, &here, "expected tp_depth only with tp_mode '2.5d' (or 1), found %d with tp_mode "
                        "'%s'", plan->tp_depth, pp_tp_mode_name(plan->tp_mode));
}

static int parse_plan_doc(const plan_ctx *c, const cJSON *doc, const pp_jpath *root, pp_plan *plan)
{
    decision_keys keys;
    decision_key_lists(&keys);
    int rc = pp_json_check_keys(doc, root, keys.top, c->err);
    if (!rc)
        rc = parse_plan_decisions(c, doc, root, keys.codecs, plan);
    if (!rc)
        rc = check_tp_depth(c, root, plan);
    if (rc)
        return rc;
    if (pp_json_member(doc, "dp"))
        return parse_decision(c, doc, root, &pp_decisions[PP_DEC_DP], plan);
    return derive_dp(c, root, plan);
}

int pp_plan_from_json(const cJSON *doc, const pp_jpath *at, const pp_problem *prob, pp_plan *out, pp_error *err)
{
    pp_plan_init(out);
    if (!prob)
        return pp_error_set(err, PP_EINTERNAL, at->origin, "a plan is read for a problem, and none was given");
    plan_ctx c = {prob, err};
    int rc = pp_json_expect_object(doc, at, err);
    return rc ? rc : parse_plan_doc(&c, doc, at, out);
}

int pp_plan_parse(const char *json_text, const char *origin, const pp_problem *prob, pp_plan *out, pp_error *err)
{
    origin = origin ? origin : "plan";
    pp_plan_init(out);
    if (!prob)
        return pp_error_set(err, PP_EINTERNAL, origin, "a plan is read for a problem, and none was given");
    cJSON *doc = NULL;
    int rc = pp_json_parse_object(json_text ? json_text : "", origin, &doc, err);
    if (rc)
        return rc;
    pp_jpath root = pp_jpath_root(origin);
    rc = pp_plan_from_json(doc, &root, prob, out, err);
    cJSON_Delete(doc);
    return rc;
}

int pp_plan_load(const char *path, const pp_problem *prob, pp_plan *out, pp_error *err)
{
    char *text = NULL;
    pp_plan_init(out);
    int rc = pp_json_read_text(path, &text, err);
    if (rc)
        return rc;
    rc = pp_plan_parse(text, path, prob, out, err);
    free(text);
    return rc;
}
