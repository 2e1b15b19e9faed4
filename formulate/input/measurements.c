/*
 * measurements.c: reading measurement rows into problem + plan pairs (see
 * measurements.h).
 *
 * A row is read in two steps.  First it is written out as the two documents
 * a user would hand parplan for the same run, a PROBLEM (model, cluster,
 * training, constraints) and a PLAN, as cJSON objects: this is where the
 * row's own spellings are translated (the short plan keys t, p, d, the GPU's
 * free-text name, NVLink summed over both directions, a precision or a
 * framework named in free text, null for "not stated").  Then problem.c's
 * readers read them, with every check and default they apply to a user's
 * files, so a row's model, cluster and plan obey exactly what a problem's
 * do.  Messages name the row's own path ("FILE: $[3].model.layers",
 * "$[3].config.global_batch").
 *
 * A row states what its source stated; where a source is silent
 * (micro-batch, interleaving, ZeRO stage) the defaults below are the
 * framework's own defaults of the time, never values tuned to fit.
 */
#include "measurements.h"

#include "costmodel.h"
#include "decisions.h"
#include "error.h"
#include "json_util.h"
#include "names.h"
#include "rules.h"
#include "shapes_json.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <strings.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_ROW_GPUS (1L << 40)
#define MAX_MEASURED 1e12 /* seconds, GiB: larger is a typo */

/* ---- reading a row's values --------------------------------------------------- */

/* A row's member, NULL when absent or null: in a row, null says that the
 * source did not state the value, and the default applies. */
static const cJSON *stated(const cJSON *obj, const char *key)
{
    const cJSON *v = pp_json_member(obj, key);
    return cJSON_IsNull(v) ? NULL : v;
}

static int row_int(const cJSON *obj, const pp_jpath *at, const char *key, int lo, int hi, int *out, pp_error *err)
{
    const cJSON *v = stated(obj, key);
    pp_jpath here = pp_jpath_key(at, key);
    return v ? pp_json_as_int(v, &here, lo, hi, out, err) : PP_OK;
}

static int row_double(const cJSON *obj, const pp_jpath *at, const char *key, double lo, double hi, double *out,
                      pp_error *err)
{
    const cJSON *v = stated(obj, key);
    pp_jpath here = pp_jpath_key(at, key);
    return v ? pp_json_as_double(v, &here, lo, hi, out, err) : PP_OK;
}

static int row_positive(const cJSON *obj, const pp_jpath *at, const char *key, double hi, double *out, pp_error *err)
{
    const cJSON *v = stated(obj, key);
    pp_jpath here = pp_jpath_key(at, key);
    return v ? pp_json_as_positive(v, &here, hi, out, err) : PP_OK;
}

/* A flag as sources write it in text ("yes", "on", "enabled", "true" and
 * their opposites): 1 or 0, -1 for any other text. */
static int flag_word(const char *text)
{
    static const char *const on[] = {"true", "yes", "on", "enabled"}, *const off[] = {"false", "no", "off", "disabled"};
    for (size_t i = 0; i < sizeof on / sizeof on[0]; i++) {
        if (strcasecmp(text, on[i]) == 0)
            return 1;
        if (strcasecmp(text, off[i]) == 0)
            return 0;
    }
    return -1;
}

/* A flag a config writes as a number, as shell variables do
 * (MCORE_CUDA_GRAPH=1, OVERLAP_GRAD_REDUCE=0): 1 or 0, else -1. */
static int flag_number(const cJSON *v)
{
    if (!cJSON_IsNumber(v))
        return -1;
    return v->valuedouble == 1.0 ? 1 : v->valuedouble == 0.0 ? 0 : -1;
}

/* A yes/no the row may state: -1 when it does not. */
static int row_flag(const cJSON *obj, const pp_jpath *at, const char *key, int *out, pp_error *err)
{
    const cJSON *v = stated(obj, key);
    pp_jpath here = pp_jpath_key(at, key);
    bool b = false;
    *out = v && cJSON_IsString(v) ? flag_word(v->valuestring) : v ? flag_number(v) : -1;
    if (*out >= 0)
        return PP_OK;
    int rc = v ? pp_json_as_bool(v, &here, &b, err) : PP_OK;
    if (v && !rc)
        *out = b;
    return rc;
}

/* A text the row may state ("" when it does not). */
static int row_text(const cJSON *obj, const pp_jpath *at, const char *key, char *out, size_t cap, pp_error *err)
{
    const cJSON *v = stated(obj, key);
    pp_jpath here = pp_jpath_key(at, key);
    out[0] = '\0';
    return v ? pp_json_as_string(v, &here, out, cap, err) : PP_OK;
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

/* Whether the text holds `word` (any case) between non-alphanumeric
 * characters: "TE graphs" holds "te", "complete" does not. */
static bool contains_word_ci(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = text; *p; p++) {
        if (p != text && isalnum((unsigned char)p[-1]))
            continue;
        if (strncasecmp(p, word, n) == 0 && !isalnum((unsigned char)p[n]))
            return true;
    }
    return false;
}

/* ---- free text: framework, precision, activation ------------------------------ */

/* The framework a row names, which fixes the behaviours of
 * pp_framework_features (fused attention, overlap, gather granularity): a
 * problem's own names ("deepspeed", "fsdp": rows of calibrate --log), else
 * the first entry whose word the text contains, both compared by
 * pp_name_key ("Megatron LM" as "Megatron-LM", "LLM Foundry" as
 * "llm-foundry").  torchtitan and LLM Foundry (Composer) shard with PyTorch
 * FSDP whether or not the text says so; GPT-NeoX trains on DeepSpeed (its
 * pipeline engine and ZeRO). */
static const struct {
    const char *word, *unless; /* pp_name_key keys: letters and digits in lower case */
    pp_framework fw;
} framework_words[] = {
    {"deepspeed", NULL, PP_FW_DEEPSPEED_2021}, /* unless the text dates it later (framework_of) */
    {"gptneox", NULL, PP_FW_DEEPSPEED_2021},
    {"fsdp", NULL, PP_FW_FSDP},
    {"fullysharded", NULL, PP_FW_FSDP},
    {"torchtitan", NULL, PP_FW_FSDP},
    {"llmfoundry", NULL, PP_FW_FSDP},
    {"composer", NULL, PP_FW_FSDP},
    {"megatronlm", "core", PP_FW_MEGATRON_2021},
};

/* The latest year from 2015 to 2039 the text names ("DeepSpeed 0.14
 * (2024)"), 0 if none. */
static int year_in(const char *text)
{
    int year = 0;
    for (const char *p = text; p[0]; p++)
        if (p[0] == '2' && p[1] == '0' && p[2] >= '1' && p[2] <= '3' && isdigit((unsigned char)p[3]) &&
            (p == text || !isdigit((unsigned char)p[-1])) && !isdigit((unsigned char)p[4])) {
            int y = 2000 + (p[2] - '0') * 10 + (p[3] - '0');
            if (y >= 2015 && y > year)
                year = y;
        }
    return year;
}

/* The minor release a text gives DeepSpeed ("DeepSpeed 0.14", "deepspeed
 * v0.9.2", "DeepSpeed==0.12.6"): the first 0.N after the word, -1 if
 * none.  DeepSpeed's releases are dated by their tags: v0.8.0 2023-01-17,
 * v0.9.0 2023-04-12 (github.com/deepspeedai/DeepSpeed). */
#define DEEPSPEED_FIRST_2023_MINOR 8
static int deepspeed_minor(const char *text)
{
    const char *p = text;
    for (; *p && strncasecmp(p, "deepspeed", 9) != 0; p++)
        ;
    for (; *p; p++)
        if (p[0] == '0' && p[1] == '.' && isdigit((unsigned char)p[2]) && (p == text || !isdigit((unsigned char)p[-1])))
            return atoi(p + 2);
    return -1;
}

/* The major release a text gives Megatron-LM right after its name
 * ("Megatron-LM v2.6", "Megatron-LM v0.12.0", "Megatron-LM core_r0.8.0",
 * "Megatron-LM 0.13"): 0 for Megatron-Core's 0.N numbering, 1-3 for the
 * releases before it, -1 if the name is not followed by one. */
static int megatron_release(const char *text)
{
    const char *p = text;
    for (; *p && strncasecmp(p, "megatron", 8) != 0; p++)
        ;
    if (!*p)
        return -1;
    p += 8;
    if (*p == '-' || *p == ' ' || *p == '_')
        p++;
    if (strncasecmp(p, "lm", 2) == 0)
        p += 2;
    while (*p == ' ' || *p == '-' || *p == '_' || *p == '(')
        p++;
    if (strncasecmp(p, "core_r", 6) == 0 || strncasecmp(p, "core_v", 6) == 0)
        p += 6;
    else if (tolower((unsigned char)*p) == 'v' || tolower((unsigned char)*p) == 'r')
        p++;
    return p[0] >= '0' && p[0] <= '3' && p[1] == '.' && isdigit((unsigned char)p[2]) ? p[0] - '0' : -1;
}

/* The framework a row's text names; *later is the same framework's later
 * entry when the text leaves the period open (an undated "Megatron-LM" or
 * "DeepSpeed": read_row reads the row under it where its settings are ones
 * only that entry runs), else the framework itself. */
static pp_framework framework_of(const char *fw, pp_framework *later)
{
    *later = PP_FW_MEGATRON_CORE;
    for (int f = 0; f < PP_FW_COUNT; f++)
        if (strcmp(fw, pp_framework_name((pp_framework)f)) == 0)
            return *later = (pp_framework)f;
    char key[256];
    pp_name_key(fw, key, sizeof key); /* "Megatron LM", "LLM Foundry", "FullyShardedDataParallel" */
    for (size_t i = 0; i < sizeof framework_words / sizeof framework_words[0]; i++)
        if (strstr(key, framework_words[i].word) &&
            !(framework_words[i].unless && strstr(key, framework_words[i].unless))) {
            pp_framework found = framework_words[i].fw;
            bool dated = year_in(fw) > 0 || (found == PP_FW_DEEPSPEED_2021 && deepspeed_minor(fw) >= 0);
            /* DeepSpeed dated 2023 or later (by a year, or by a release
             * from 0.8 on) gathers into one tensor, overlaps and runs fused
             * attention (the 2021 entry's behaviours are that year's:
             * pp_framework_features) */
            if (found == PP_FW_DEEPSPEED_2021 &&
                (year_in(fw) >= 2023 || deepspeed_minor(fw) >= DEEPSPEED_FIRST_2023_MINOR))
                found = PP_FW_DEEPSPEED;
            /* Megatron-LM builds Megatron-Core models by default since
             * 2024-05-24 (commit 9ad1a56f, "Change default to use mcore
             * models, not legacy", first in core_r0.8.0): a text dated 2025
             * or later is today's, and so is one giving Megatron-Core's
             * release numbers (0.N: "v0.12", "core_r0.8.0"), where v1 to v3
             * are the releases before it (problem.c reads a problem's
             * framework name so too) */
            int release = found == PP_FW_MEGATRON_2021 ? megatron_release(fw) : -1;
            if (release >= 0)
                dated = true;
            if (found == PP_FW_MEGATRON_2021 && (year_in(fw) >= 2025 || release == 0))
                found = PP_FW_MEGATRON_CORE;
            *later = found;
            if (!dated && found == PP_FW_MEGATRON_2021)
                *later = PP_FW_MEGATRON_CORE;
            else if (!dated && found == PP_FW_DEEPSPEED_2021)
                *later = PP_FW_DEEPSPEED;
            return found;
        }
    return PP_FW_MEGATRON_CORE; /* Megatron-Core, NeMo, Megatron-Bridge */
}

/* A precision named in a row's free text ("fp16 mixed (--fp16, loss scale
 * 8192)", "amp_bf16", "fp8 (torchao float8 rowwise)", "fp8_sc"): its exact
 * name, else the first word of this list the text contains.  fp8_cs,
 * fp8_mx and fp8_sc are Megatron-Bridge's names of the current-scaling,
 * MXFP8 and block-scaled ("subchannel") recipes (scripts/performance
 * argument_parser.py --compute_dtype).  torchao names its fp8 "float8"
 * (dynamic scaling: fp8_current_words), DeepSeek-V3 its block-scaled recipe
 * "tile-wise" (1 x 128 activation tiles, 128 x 128 weight blocks; arXiv
 * 2412.19437 §3.3.1); "fp4" alone is NVFP4, the only 4-bit recipe trained
 * end to end; "bfloat16" and "float16" spelled out (bfloat16 first: it
 * contains float16); PyTorch Lightning's "16-mixed" is fp16 AMP (its
 * "bf16-mixed" names bf16 first). */
static const struct {
    const char *word;
    pp_precision prec;
} precision_words[] = {
    {"nvfp4", PP_PREC_NVFP4},           {"mxfp8", PP_PREC_MXFP8},           {"fp8_mx", PP_PREC_MXFP8},
    {"fp8-mx", PP_PREC_MXFP8},          {"fp8_sc", PP_PREC_FP8_BLOCK},      {"fp8-sc", PP_PREC_FP8_BLOCK},
    {"subchannel", PP_PREC_FP8_BLOCK},  {"blockwise", PP_PREC_FP8_BLOCK},   {"block-wise", PP_PREC_FP8_BLOCK},
    {"blockscaling", PP_PREC_FP8_BLOCK}, {"tile-wise", PP_PREC_FP8_BLOCK},  {"tilewise", PP_PREC_FP8_BLOCK},
    {"fp8", PP_PREC_FP8},               {"float8", PP_PREC_FP8},            {"e4m3", PP_PREC_FP8},
    {"fp4", PP_PREC_NVFP4},             {"bf16", PP_PREC_BF16},             {"fp16", PP_PREC_FP16},
    {"bfloat16", PP_PREC_BF16},         {"float16", PP_PREC_FP16},          {"16-mixed", PP_PREC_FP16},
};
/* fp8 with the scale taken from the tensor itself (torchao's dynamic
 * tensorwise and rowwise scaling, Transformer Engine's current scaling)
 * rather than Transformer Engine's default delayed scaling */
static const char *const fp8_current_words[] = {"torchao", "tensorwise", "rowwise", "current", "fp8_cs", "fp8-cs",
                                                 "float8"};

static bool fp8_current(const char *text)
{
    for (size_t i = 0; i < sizeof fp8_current_words / sizeof fp8_current_words[0]; i++)
        if (contains_ci(text, fp8_current_words[i]))
            return true;
    return false;
}

/* A precision named by Megatron-Bridge's (and NeMo 2's) own recipe: the
 * performance scripts' fp8_cs, or the recipe function
 * bf16_with_fp8_current_scaling_mixed, which keeps the first and the last
 * transformer block in bf16 unless told (names.c bridge_bf16_first/_last,
 * from Megatron-Bridge v0.2.2 mixed_precision.py). */
static const char *const bridge_recipe_words[] = {"fp8_cs", "fp8-cs", "current_scaling_mixed"};

static bool bridge_recipe_named(const char *text)
{
    for (size_t i = 0; i < sizeof bridge_recipe_words / sizeof bridge_recipe_words[0]; i++)
        if (contains_ci(text, bridge_recipe_words[i]))
            return true;
    return false;
}

/* The row's precision: a text that names none ("mixed") means bf16, or
 * fp16 on a GPU without bf16 (the V100's mixed precision). */
static pp_precision precision_of(const char *text, const pp_gpu *gpu)
{
    for (int p = 0; p < PP_PREC_COUNT; p++)
        if (p != PP_PREC_FP32 && strcmp(text, pp_precision_name((pp_precision)p)) == 0)
            return (pp_precision)p;
    for (size_t i = 0; i < sizeof precision_words / sizeof precision_words[0]; i++)
        if (contains_ci(text, precision_words[i].word))
            return precision_words[i].prec == PP_PREC_FP8 && fp8_current(text) ? PP_PREC_FP8_CURRENT
                                                                                : precision_words[i].prec;
    return gpu->peak_tflops[PP_PREC_BF16] > 0 ? PP_PREC_BF16 : PP_PREC_FP16;
}

/* A gated MLP is what "activation" names SwiGLU, SiLU or GeGLU. */
static const char *const gated_activations[] = {"swiglu", "silu", "geglu"};

/* ---- building the documents ---------------------------------------------------- */

/* The PROBLEM and PLAN a row stands for, and whether every item could be
 * allocated. */
typedef struct row_docs {
    cJSON *problem, *model, *cluster, *training, *plan;
    bool ok;
} row_docs;

static void put_num(row_docs *d, cJSON *obj, const char *key, double v)
{
    d->ok = d->ok && cJSON_AddNumberToObject(obj, key, v) != NULL;
}

static void put_str(row_docs *d, cJSON *obj, const char *key, const char *v)
{
    d->ok = d->ok && cJSON_AddStringToObject(obj, key, v) != NULL;
}

static void put_bool(row_docs *d, cJSON *obj, const char *key, bool v)
{
    d->ok = d->ok && cJSON_AddBoolToObject(obj, key, v) != NULL;
}

/* The row's own value under key, when it states one, copied as it is: the
 * readers check it, and their messages name the row's path. */
static void copy_stated(row_docs *d, const cJSON *from, const char *key, cJSON *to)
{
    const cJSON *v = stated(from, key);
    cJSON *dup = v ? cJSON_Duplicate(v, true) : NULL;
    if (v && !(dup && cJSON_AddItemToObject(to, key, dup))) {
        cJSON_Delete(dup);
        d->ok = false;
    }
}

static bool docs_init(row_docs *d)
{
    memset(d, 0, sizeof *d);
    d->problem = cJSON_CreateObject();
    d->plan = cJSON_CreateObject();
    d->ok = d->problem && d->plan && (d->model = cJSON_AddObjectToObject(d->problem, "model")) &&
            (d->cluster = cJSON_AddObjectToObject(d->problem, "cluster")) &&
            (d->training = cJSON_AddObjectToObject(d->problem, "training"));
    return d->ok;
}

static void docs_free(row_docs *d)
{
    cJSON_Delete(d->problem);
    cJSON_Delete(d->plan);
}

/* The shape keys of a model object: a row that states none of them and
 * names a catalog model (data/models.json, by id or name as people write
 * it: "Llama 3 8B", "llama3-8b") takes that model's shape, with the row's
 * seq_len and name. */
static const char *const model_shape_keys[] = {"layers", "hidden", "heads", "ffn_hidden", "vocab", "hf_config"};

static bool catalog_model_of(row_docs *d, const cJSON *jm, const pp_catalog *cat)
{
    for (size_t i = 0; i < sizeof model_shape_keys / sizeof model_shape_keys[0]; i++)
        if (stated(jm, model_shape_keys[i]))
            return false;
    const cJSON *name = stated(jm, "name");
    const pp_catalog_model *cm =
        name && cJSON_IsString(name) ? pp_catalog_model_named(cat, name->valuestring) : NULL;
    if (!cm)
        return false;
    put_str(d, d->model, "id", cm->id);
    copy_stated(d, jm, "seq_len", d->model);
    copy_stated(d, jm, "name", d->model);
    return true;
}

/* A row that states part of a shape and names a catalog model whose shape
 * agrees with every key it states takes that model's other keys; a row
 * that names its activation keeps the gating it says.  A row whose keys
 * differ from its named model's is a shape of its own, and a part shape of
 * no catalog model stays an error (the problem reader names the missing
 * key). */
static bool agrees_with(const cJSON *jm, const cJSON *whole)
{
    for (const cJSON *k = whole->child; k; k = k->next) {
        const cJSON *v = stated(jm, k->string);
        if (!v || strcmp(k->string, "name") == 0 || strcmp(k->string, "seq_len") == 0)
            continue; /* the row's own name and sequence */
        if (cJSON_IsNumber(k) ? !cJSON_IsNumber(v) || v->valuedouble != k->valuedouble
                              : cJSON_IsBool(k) && (!cJSON_IsBool(v) || cJSON_IsTrue(v) != cJSON_IsTrue(k)))
            return false;
    }
    return true;
}

static const pp_catalog_model *complete_from_catalog(row_docs *d, const cJSON *jm, const pp_catalog *cat)
{
    const cJSON *name = stated(jm, "name");
    const pp_catalog_model *cm =
        name && cJSON_IsString(name) && !stated(jm, "hf_config") ? pp_catalog_model_named(cat, name->valuestring)
                                                                  : NULL;
    cJSON *whole = cm ? pp_model_write(&cm->model) : NULL;
    if (cm && !whole)
        d->ok = false;
    if (!whole || !agrees_with(jm, whole)) {
        cJSON_Delete(whole);
        return NULL;
    }
    for (const cJSON *k = whole->child; k; k = k->next)
        if (!stated(jm, k->string) && !(stated(jm, "activation") && strcmp(k->string, "gated_mlp") == 0))
            copy_stated(d, whole, k->string, d->model);
    cJSON_Delete(whole);
    return cm;
}

/* The model: every key a problem's model object has, as the row states it
 * (a row's other keys, params_b or position, are the row's notes); its
 * "activation" text says whether the MLP is gated; a nameless model is
 * "model". */
static int build_model(row_docs *d, const cJSON *jm, const pp_jpath *at, const pp_catalog *cat, pp_error *err)
{
    char act[64];
    if (catalog_model_of(d, jm, cat))
        return PP_OK;
    const pp_catalog_model *base = complete_from_catalog(d, jm, cat);
    for (int i = 0; pp_model_keys[i]; i++)
        copy_stated(d, jm, pp_model_keys[i], d->model);
    if (!stated(jm, "name"))
        put_str(d, d->model, "name", "model");
    int rc = row_text(jm, at, "activation", act, sizeof act, err);
    if (rc || stated(jm, "gated_mlp") || (base && !stated(jm, "activation")))
        return rc; /* the catalog model's gating, unless the row names its activation */
    bool gated = false;
    for (size_t i = 0; i < sizeof gated_activations / sizeof gated_activations[0]; i++)
        gated = gated || contains_ci(act, gated_activations[i]);
    put_bool(d, d->model, "gated_mlp", gated);
    return PP_OK;
}

/* A row whose cluster gives no GPU count runs the config's (a table's
 * "#-GPUs" column), else, where it states its data-parallel degree, t p d
 * cp GPUs (each degree unstated 1); 0 where it says neither. */
static long gpus_of_degrees(const cJSON *cfg)
{
    const cJSON *g = stated(cfg, "gpus");
    if (cJSON_IsNumber(g) && g->valuedouble >= 1.0 && g->valuedouble <= (double)MAX_ROW_GPUS)
        return (long)g->valuedouble;
    const cJSON *d = stated(cfg, "d");
    if (!cJSON_IsNumber(d) || d->valuedouble < 1.0)
        return 0;
    double n = d->valuedouble;
    static const char *const others[] = {"t", "p", "cp"};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        const cJSON *v = stated(cfg, others[i]);
        n *= cJSON_IsNumber(v) && v->valuedouble >= 1.0 ? v->valuedouble : 1.0;
    }
    return n <= (double)MAX_ROW_GPUS ? (long)n : 0;
}

/* The cluster: the GPU by any name the catalog knows it by; gpus (all of
 * the run's, else nodes x gpus_per_node, else the config's degrees) in
 * nodes of gpus_per_node (a run on fewer GPUs than a node has is one node
 * of that many); NVLink given summed over both directions,
 * as the rows give it; the network per GPU; absent, the GPU's flagship
 * system's.  The GPU whose efficiency parameters the row is priced and
 * fitted with: the row's cluster.efficiency_from, else the catalog's, else
 * its own. */
static int build_cluster(row_docs *d, const cJSON *jc, const pp_jpath *at, const pp_catalog *cat, const cJSON *cfg,
                         pp_measurement *row, const pp_gpu **gpu, pp_error *err)
{
    char name[PP_NAME_LEN], from[PP_ID_LEN];
    pp_jpath gpu_at = pp_jpath_key(at, "gpu"), from_at = pp_jpath_key(at, "efficiency_from");
    int rc = pp_json_string(jc, at, "gpu", PP_REQUIRED, name, sizeof name, err);
    if (!rc && !(*gpu = pp_catalog_gpu_named(cat, name)))
        rc = pp_catalog_fail_unknown(cat, PP_CATALOG_GPUS, name, &gpu_at, err);
    if (!rc)
        rc = row_text(jc, at, "efficiency_from", from, sizeof from, err);
    if (!rc && from[0] && !pp_catalog_gpu(cat, from))
        rc = pp_catalog_fail_unknown(cat, PP_CATALOG_GPUS, from, &from_at, err);
    if (rc)
        return rc;
    long at_gpu = *gpu - cat->gpus;
    const char *catalog_from = cat->gpu_efficiency_from ? cat->gpu_efficiency_from[at_gpu] : "";
    snprintf(row->gpu_id, sizeof row->gpu_id, "%s", (*gpu)->id);
    snprintf(row->eff_id, sizeof row->eff_id, "%s", from[0] ? from : catalog_from[0] ? catalog_from : (*gpu)->id);

    long gpus = 0;
    int per_node = (*gpu)->gpus_per_node, nic_switch = (*gpu)->gpus_per_nic_switch;
    double nvlink_both = 0, network = 0;
    int nodes = 0;
    rc = row_int(jc, at, "gpus_per_node", 1, PP_MAX_GPUS_PER_NODE, &per_node, err);
    if (!rc)
        rc = row_int(jc, at, "nodes", 0, (int)(MAX_ROW_GPUS / PP_MAX_GPUS_PER_NODE), &nodes, err);
    /* the GPUs, or the nodes that hold them (as many GPUs a node as the
     * row says, else the GPU's system) */
    long by_degrees = stated(jc, "gpus") || nodes > 0 ? 0 : gpus_of_degrees(cfg);
    if (!rc)
        rc = pp_json_long(jc, at, "gpus", stated(jc, "gpus") || (nodes <= 0 && by_degrees <= 0) ? PP_REQUIRED : PP_OPTIONAL,
                          1, MAX_ROW_GPUS, &gpus, err);
    if (!rc && gpus == 0 && nodes <= 0)
        gpus = by_degrees;
    if (!rc && gpus == 0)
        gpus = (long)nodes * per_node;
    if (!rc)
        rc = row_positive(jc, at, "intra_node_GBps", 2e7, &nvlink_both, err);
    if (!rc)
        rc = row_positive(jc, at, "inter_node_Gbps_per_gpu", 1e7, &network, err);
    double per_node_Gbps = 0;
    if (!rc && network <= 0) /* a node's NICs over its GPUs, where only they are stated */
        rc = row_positive(jc, at, "inter_node_Gbps_per_node", 1e9, &per_node_Gbps, err);
    if (!rc)
        rc = row_int(jc, at, "gpus_per_nic_switch", 0, PP_MAX_GPUS_PER_NODE, &nic_switch, err);
    if (rc)
        return rc;
    if (network <= 0 && per_node_Gbps > 0)
        network = per_node_Gbps / per_node;
    if (gpus < per_node)
        per_node = (int)gpus;
    if (gpus % per_node != 0) {
        pp_jpath here = pp_jpath_key(at, "gpus");
        return pp_json_fail(err, &here, "expected whole nodes of gpus_per_node %d GPUs, found %ld GPUs", per_node,
                            gpus);
    }
    put_str(d, d->cluster, "gpu", (*gpu)->id);
    put_num(d, d->cluster, "nodes", (double)(gpus / per_node));
    put_num(d, d->cluster, "gpus_per_node", per_node);
    if (nvlink_both > 0)
        put_num(d, d->cluster, "intra_node_GBps", nvlink_both / 2.0); /* parplan counts one direction */
    if (network > 0)
        put_num(d, d->cluster, "inter_node_Gbps", network);
    put_num(d, d->cluster, "gpus_per_nic_switch", nic_switch);
    return PP_OK;
}

/* The plan's decisions a row states under its own key (the row_key of
 * decisions.h): under a short key of its own (t, p, d; or the PLAN.json
 * spelling, tp, pp, dp) a degree the row always gives (the default when
 * silent), under its PLAN.json key (cp, micro_batch, virtual_stages, ep,
 * etp) copied as stated.  A row that gives no data-parallel degree runs
 * the rest of its GPUs (gpus / (t p cp), when that divides), as every
 * source that states the others means.  The others are derived below from
 * the row's own fields. */
static int put_row_decisions(row_docs *d, const cJSON *cfg, const pp_jpath *at, long gpus, pp_plan *stated_degrees,
                             pp_error *err)
{
    int rc = PP_OK, cp = 1;
    bool dp_stated = false;
    for (int i = 0; i < PP_DEC_COUNT; i++) {
        const pp_decision *dec = &pp_decisions[i];
        if (!dec->row_key)
            continue;
        if (strcmp(dec->row_key, dec->key) == 0) {
            copy_stated(d, cfg, dec->key, d->plan);
            continue;
        }
        const char *key = !stated(cfg, dec->row_key) && stated(cfg, dec->key) ? dec->key : dec->row_key;
        if (dec->id == PP_DEC_DP)
            dp_stated = stated(cfg, key) != NULL;
        int v = dec->def;
        if (!rc)
            rc = row_int(cfg, at, key, dec->min, dec->max, &v, err);
        if (!rc && dec->id != PP_DEC_DP)
            put_num(d, d->plan, dec->key, v);
        pp_decision_set(stated_degrees, dec->id, v);
    }
    if (!rc)
        rc = row_int(cfg, at, pp_decisions[PP_DEC_CP].key, 1, PP_MAX_DEGREE, &cp, err);
    long model_ranks = (long)stated_degrees->tp * stated_degrees->pp * cp;
    if (!rc && !dp_stated && model_ranks > 0 && gpus % model_ranks == 0 && gpus / model_ranks <= PP_MAX_DEGREE)
        pp_decision_set(stated_degrees, PP_DEC_DP, (int)(gpus / model_ranks));
    if (!rc)
        put_num(d, d->plan, pp_decisions[PP_DEC_DP].key, stated_degrees->dp);
    return rc;
}

/* recompute: a stated "unknown" (or null) is none, as the framework runs by default */
static const char *const row_recompute_names[] = {"none", "selective", "full", "unknown"};
#define N_ROW_RECOMPUTE ((int)(sizeof row_recompute_names / sizeof row_recompute_names[0]))

/* Selective recomputation's module names (decisions.def recompute_modules). */
static const char *const recompute_module_words[] = {"core_attn", "moe_act", "layernorm", "mla_up_proj", "moe"};

/* Whether text is nothing but module names, separated by commas or spaces
 * ("core_attn", "layernorm, moe"); if so, into out the names joined by
 * commas in lower case, as recompute_modules reads them. */
static bool module_list(const char *text, char *out, size_t cap)
{
    bool any = false;
    size_t n = 0;
    const char *p = text;
    out[0] = '\0';
    while (*p) {
        while (*p == ',' || isspace((unsigned char)*p))
            p++;
        const char *w = p;
        while (*p && *p != ',' && !isspace((unsigned char)*p))
            p++;
        size_t len = (size_t)(p - w);
        if (!len)
            continue;
        bool known = false;
        for (size_t k = 0; k < sizeof recompute_module_words / sizeof recompute_module_words[0] && !known; k++)
            known = len == strlen(recompute_module_words[k]) && strncasecmp(w, recompute_module_words[k], len) == 0;
        if (!known || n + len + 2 > cap)
            return false;
        if (any)
            out[n++] = ',';
        for (size_t k = 0; k < len; k++)
            out[n++] = (char)tolower((unsigned char)w[k]);
        out[n] = '\0';
        any = true;
    }
    return any;
}

/* The row's recompute as its source states it: one of the names in any
 * case; a flag (activation checkpointing on is full, the granularity
 * Megatron-LM, DeepSpeed and the Hugging Face trainers turn on; off is
 * none); a list of Megatron-Core's modules ("core_attn", "layernorm,moe"),
 * selective recomputation of them (*modules points into the text); or
 * free text that names one granularity ("full (uniform, 1 layer)",
 * "selective (core_attn)", "no activation checkpointing").  Anything else
 * is an error at its path.  modules (cap bytes) is "" unless the text is a
 * list of modules. */
static int row_recompute(const cJSON *v, const pp_jpath *at, int *out, char *modules, size_t cap, pp_error *err)
{
    modules[0] = '\0';
    if (cJSON_IsBool(v)) {
        *out = cJSON_IsTrue(v) ? PP_RECOMPUTE_FULL : PP_RECOMPUTE_NONE;
        return PP_OK;
    }
    const char *s = cJSON_IsString(v) ? v->valuestring : NULL;
    for (int i = 0; s && i < N_ROW_RECOMPUTE; i++)
        if (strcasecmp(s, row_recompute_names[i]) == 0) {
            *out = i;
            return PP_OK;
        }
    if (s && module_list(s, modules, cap)) {
        *out = PP_RECOMPUTE_SELECTIVE;
        return PP_OK;
    }
    modules[0] = '\0';
    bool sel = s && contains_ci(s, "selective"), full = s && contains_ci(s, "full");
    bool off = s && (strcasecmp(s, "no") == 0 || strcasecmp(s, "off") == 0 || strcasecmp(s, "false") == 0 ||
                     strcasecmp(s, "disabled") == 0 || contains_ci(s, "no activation") ||
                     contains_ci(s, "no recomput") || contains_ci(s, "without"));
    if (sel + full + off == 1) {
        *out = sel ? PP_RECOMPUTE_SELECTIVE : full ? PP_RECOMPUTE_FULL : PP_RECOMPUTE_NONE;
        return PP_OK;
    }
    if (s && (strcasecmp(s, "yes") == 0 || strcasecmp(s, "on") == 0 || strcasecmp(s, "true") == 0)) {
        *out = PP_RECOMPUTE_FULL;
        return PP_OK;
    }
    /* no granularity named: Megatron-LM's --recompute-method values (uniform,
     * block) go only with full recomputation, and "activation checkpointing"
     * or "gradient checkpointing" unqualified is the whole layer, as the
     * flag is; the attention alone is Megatron's selective recomputation */
    if (s && !off && (contains_ci(s, "uniform") || contains_ci(s, "block") || contains_ci(s, "checkpoint"))) {
        *out = PP_RECOMPUTE_FULL;
        return PP_OK;
    }
    if (s && !off && (contains_ci(s, "attention") || contains_ci(s, "attn"))) {
        *out = PP_RECOMPUTE_SELECTIVE;
        return PP_OK;
    }
    if (flag_number(v) >= 0) {
        *out = flag_number(v) ? PP_RECOMPUTE_FULL : PP_RECOMPUTE_NONE;
        return PP_OK;
    }
    return pp_json_as_enum(v, at, row_recompute_names, N_ROW_RECOMPUTE, out, err);
}

/* A ZeRO stage a source names in words: the stage its text numbers
 * ("ZeRO-1", "zero stage 2", "ZeRO3"), PyTorch FSDP's sharding strategies
 * (NO_SHARD 0, SHARD_GRAD_OP 2, FULL_SHARD and HYBRID_SHARD 3), "DDP" 0,
 * Megatron's "distributed optimizer" 1; any other sharding is priced as
 * the full shard (3). */
static int zero_stage_named(const char *s)
{
    for (const char *p = s; *p; p++)
        if (*p >= '0' && *p <= '3' && (p == s || !isdigit((unsigned char)p[-1])) && !isdigit((unsigned char)p[1]) &&
            (contains_ci(s, "zero") || contains_ci(s, "stage")))
            return *p - '0';
    if (contains_ci(s, "no_shard") || contains_ci(s, "no shard") || strcasecmp(s, "ddp") == 0 ||
        strcasecmp(s, "none") == 0)
        return 0;
    if (contains_ci(s, "distributed optimizer") || contains_ci(s, "distributed_optimizer"))
        return 1;
    /* Megatron-FSDP's --data-parallel-sharding-strategy: what each shards */
    if (strcasecmp(s, "optim") == 0)
        return 1;
    if (strcasecmp(s, "optim_grads") == 0)
        return 2;
    if (contains_ci(s, "shard_grad_op") || contains_ci(s, "grad_op"))
        return 2;
    return 3;
}

/* tp_comm_overlap as a flag, or as the text of what ran it: Transformer
 * Engine's userbuffers ("userbuffers", "ub", Megatron-Core's
 * --tp-comm-overlap, NeMo's ub_tp_comm_overlap) or PyTorch's AsyncTP
 * (symmetric memory); another text is an error. */
static int row_tp_overlap(const cJSON *cfg, const pp_jpath *at, int *out, pp_error *err)
{
    static const char *const ran[] = {"userbuffers", "ub", "asynctp", "async tp", "symmetric memory",
                                      "tp-comm-overlap", "tp_comm_overlap"};
    const cJSON *v = stated(cfg, "tp_comm_overlap");
    if (cJSON_IsString(v) && flag_word(v->valuestring) < 0)
        for (size_t i = 0; i < sizeof ran / sizeof ran[0]; i++)
            if (contains_word_ci(v->valuestring, ran[i])) {
                *out = 1;
                return PP_OK;
            }
    return row_flag(cfg, at, "tp_comm_overlap", out, err);
}

/* The plan: the degrees, the ZeRO stage (a number; a string names a
 * non-standard sharding, priced as the FSDP-like full shard; absent, the
 * distributed optimizer of Megatron-Core and NeMo when there is DP),
 * recomputation, sequence parallelism (absent: Megatron-Core's default, on
 * with TP where attention is fused), TP overlap (`tp_comm_overlap`, or
 * torchtitan's `async_tp`, or Megatron-Core's flag named in the
 * framework). */
static int build_plan(row_docs *d, const cJSON *cfg, const pp_jpath *at, const char *framework,
                      const pp_training *features, pp_error *err)
{
    int zero = -1, recompute = 0, sp = -1, overlap = -1, async_tp = -1;
    pp_plan degrees;
    pp_plan_init(&degrees);
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(d->cluster, "nodes"),
                *per_node = cJSON_GetObjectItemCaseSensitive(d->cluster, "gpus_per_node");
    long gpus = cJSON_IsNumber(nodes) && cJSON_IsNumber(per_node) ? (long)(nodes->valuedouble * per_node->valuedouble) : 0;
    int rc = put_row_decisions(d, cfg, at, gpus, &degrees, err);
    const cJSON *z = stated(cfg, "zero_stage"), *r = stated(cfg, "recompute");
    pp_jpath z_at = pp_jpath_key(at, "zero_stage"), r_at = pp_jpath_key(at, "recompute");
    if (!rc && z)
        rc = cJSON_IsString(z) ? (zero = zero_stage_named(z->valuestring), PP_OK) : pp_json_as_int(z, &z_at, 0, 3, &zero, err);
    char modules[64] = "";
    if (!rc && r)
        rc = row_recompute(r, &r_at, &recompute, modules, sizeof modules, err);
    else if (!rc && stated(cfg, pp_decisions[PP_DEC_RECOMPUTE_MODULES].row_key))
        recompute = PP_RECOMPUTE_SELECTIVE; /* the modules say the granularity (Megatron-Core reads them only so) */
    if (!rc && modules[0] && !stated(cfg, pp_decisions[PP_DEC_RECOMPUTE_MODULES].row_key))
        put_str(d, d->plan, pp_decisions[PP_DEC_RECOMPUTE_MODULES].key, modules);
    if (!rc)
        rc = row_flag(cfg, at, "seq_parallel", &sp, err);
    if (!rc)
        rc = row_tp_overlap(cfg, at, &overlap, err);
    if (!rc)
        rc = row_flag(cfg, at, "async_tp", &async_tp, err);
    if (rc)
        return rc;
    int tp = degrees.tp, dp = degrees.dp;
    put_num(d, d->plan, pp_decisions[PP_DEC_ZERO].key, zero >= 0 ? zero : dp > 1 ? 1 : 0);
    put_str(d, d->plan, pp_decisions[PP_DEC_RECOMPUTE].key,
            pp_recompute_name(recompute < PP_RECOMPUTE_COUNT ? (pp_recompute)recompute : PP_RECOMPUTE_NONE));
    put_bool(d, d->plan, pp_decisions[PP_DEC_SEQUENCE_PARALLEL].key,
             tp > 1 && (sp >= 0 ? sp == 1 : features->flash_attention));
    bool ov = overlap >= 0 ? overlap == 1 : async_tp >= 0 ? async_tp == 1 : contains_ci(framework, "tp-comm-overlap");
    put_bool(d, d->plan, pp_decisions[PP_DEC_TP_OVERLAP].key, tp > 1 && ov);
    return PP_OK;
}

/* What CUDA graphs a row's run captured, as its sources write it: true or
 * false (or 1/0, MCORE_CUDA_GRAPH's), "none" (or a text that starts so), a
 * graph of every layer or the iteration ("full iteration
 * (FULL_CUDA_GRAPH=1)", "per-layer ...", Megatron-Core's `local`
 * implementation, a scope of both the attention and the MLP), else part of
 * each layer: "partial ...", Megatron-Core's --cuda-graph-scope attn
 * moe_router moe_preprocess, or Transformer Engine's implementation named
 * without a scope that covers the layer ("transformer_engine", "TE
 * graphs"); -1 when the row does not say.  A text that names none of these
 * is refused. */
static int row_cuda_graphs(const cJSON *cfg, const pp_jpath *at, int *out, pp_error *err)
{
    const cJSON *v = stated(cfg, "cuda_graphs");
    pp_jpath here = pp_jpath_key(at, "cuda_graphs");
    *out = -1;
    if (!v)
        return PP_OK;
    if (cJSON_IsBool(v) || flag_number(v) >= 0) {
        *out = cJSON_IsTrue(v) || flag_number(v) == 1 ? PP_GRAPHS_FULL : PP_GRAPHS_NONE;
        return PP_OK;
    }
    char text[256];
    int rc = pp_json_as_string(v, &here, text, sizeof text, err);
    if (rc)
        return rc;
    int flag = flag_word(text);
    if (flag >= 0 || strncasecmp(text, "none", 4) == 0 || strncasecmp(text, "no ", 3) == 0)
        *out = flag == 1 ? PP_GRAPHS_FULL : PP_GRAPHS_NONE;
    else if (strncasecmp(text, "partial", 7) == 0)
        *out = PP_GRAPHS_PARTIAL;
    else if (contains_ci(text, "full") || contains_ci(text, "layer") || contains_ci(text, "iteration") ||
             contains_word_ci(text, "local") || (contains_ci(text, "attn") && contains_word_ci(text, "mlp")))
        *out = PP_GRAPHS_FULL;
    else if (contains_ci(text, "transformer_engine") || contains_ci(text, "transformer engine") ||
             contains_word_ci(text, "te") || contains_ci(text, "attn") || contains_ci(text, "router"))
        *out = PP_GRAPHS_PARTIAL;
    else
        return pp_json_fail(err, &here,
                            "expected true, false, or a text that starts with none or partial, names full, "
                            "per-layer or whole-iteration graphs, or names Megatron-Core's graph "
                            "implementation (local, transformer_engine) or scope (attn, mlp), found '%s'",
                            text);
    return PP_OK;
}

/* training keys a row spells as a problem does, copied as stated */
static const char *const row_training_keys[] = {"global_batch",      "dp_overlap",       "tp_bwd_overlap", "moe_a2a_overlap",
                                                "grad_reduce_dtype", "grad_accum_dtype", "optimizer_moments_dtype",
                                                "lora_rank",         "moe_load_imbalance", "flash_attention"};

/* Whether a row's model (as build_model wrote it) routes experts: its
 * experts stated, the catalog model it names, or its inline Hugging Face
 * config's expert count.  A model in a config file is read later, so it
 * counts as dense here. */
static bool row_model_is_moe(const cJSON *model, const pp_catalog *cat)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(model, "experts");
    if (cJSON_IsNumber(v))
        return v->valuedouble > 0;
    v = cJSON_GetObjectItemCaseSensitive(model, "id");
    const pp_catalog_model *cm = cJSON_IsString(v) ? pp_catalog_model_named(cat, v->valuestring) : NULL;
    if (cm)
        return pp_model_is_moe(&cm->model);
    static const char *const hf_experts[] = {"num_local_experts", "n_routed_experts", "num_experts"};
    const cJSON *hf = cJSON_GetObjectItemCaseSensitive(model, "hf_config");
    for (size_t i = 0; cJSON_IsObject(hf) && i < sizeof hf_experts / sizeof hf_experts[0]; i++)
        if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(hf, hf_experts[i])) && v->valuedouble > 0)
            return true;
    return false;
}

/* The training: the framework and precision as named; the framework's
 * kernels unless the row says otherwise (`fused_elementwise`, false for
 * torchtitan without torch.compile, "eager"; `fused_norm`; the loss compiled
 * with the model unless `compiled_loss` is false); the MoE dispatcher
 * (DeepEP, or DeepSeek's own kernels, deduplicate); pipeline sends split over
 * TP (`scatter_gather`) where stated; the attention kernel, loss
 * parallelism and LoRA targets at the framework's defaults when not stated;
 * fp8 weights and activations only under an fp8-class recipe; packed
 * samples' mean length where given; a MoE router's balance as stated
 * (`moe_load_imbalance`, or `moe_force_balance`: every expert its mean
 * share); the CUDA graphs stated, a MoE model's (`moe`) full graphs read
 * as partial. */
static int build_training(row_docs *d, const cJSON *cfg, const pp_jpath *at, const char *framework, pp_framework fw,
                          const pp_gpu *gpu, bool moe, pp_error *err)
{
    char prec_text[256], dispatcher[256];
    int fused_ew, fused_norm, compiled_loss, sg, fp8_params, fp8_act, balanced, bf16_ends;
    int bf16_first = 1, bf16_last = 1; /* Megatron-Core's defaults with --first-last-layers-bf16 */
    const struct {
        const char *key;
        int *out;
    } flags[] = {{"fused_elementwise", &fused_ew}, {"fused_norm", &fused_norm},
                 {"compiled_loss", &compiled_loss},  {"scatter_gather", &sg},
                 {"fp8_params", &fp8_params},        {"fp8_activation_input_store", &fp8_act},
                 {"moe_force_balance", &balanced},   {"first_last_layers_bf16", &bf16_ends}};
    double packed = 0;
    int rc = row_text(cfg, at, "precision", prec_text, sizeof prec_text, err);
    if (!rc)
        rc = row_text(cfg, at, "token_dispatcher", dispatcher, sizeof dispatcher, err);
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        *flags[i].out = -1;
    for (size_t i = 0; i < sizeof flags / sizeof flags[0] && !rc; i++)
        rc = row_flag(cfg, at, flags[i].key, flags[i].out, err);
    if (!rc)
        rc = row_double(cfg, at, "packed_sample_tokens", 0, PP_MAX_SEQ_LEN, &packed, err);
    if (!rc)
        rc = row_int(cfg, at, "num_layers_at_start_in_bf16", 0, PP_MAX_LAYERS, &bf16_first, err);
    if (!rc)
        rc = row_int(cfg, at, "num_layers_at_end_in_bf16", 0, PP_MAX_LAYERS, &bf16_last, err);
    int graphs = -1;
    if (!rc)
        rc = row_cuda_graphs(cfg, at, &graphs, err);
    if (rc)
        return rc;
    pp_precision prec = precision_of(prec_text, gpu);
    bool low = pp_precision_props(prec)->low_gemm;
    bool fused = fused_ew >= 0 ? fused_ew == 1 : !contains_ci(framework, "eager");
    put_str(d, d->training, "framework", pp_framework_name(fw));
    put_str(d, d->training, "precision", pp_precision_name(prec));
    for (size_t i = 0; i < sizeof row_training_keys / sizeof row_training_keys[0]; i++)
        copy_stated(d, cfg, row_training_keys[i], d->training);
    put_bool(d, d->training, "fused_elementwise", fused);
    put_bool(d, d->training, "fused_norm", fused_norm == 1);
    put_bool(d, d->training, "fused_loss", fused && compiled_loss != 0);
    /* Megatron-Core's flex token dispatcher runs DeepEP's deduplicating
     * kernels, or HybridEP, their multi-node-NVLink form, by its backend
     * (TransformerConfig.moe_flex_dispatcher_backend, "deepep" by default;
     * "hybridep" the one for MNNVL, GB200 NVL72) */
    bool dedup = contains_ci(dispatcher, "deepep") || contains_ci(dispatcher, "hybridep") ||
                 contains_ci(dispatcher, "hybrid-ep") || contains_ci(dispatcher, "flex");
    put_str(d, d->training, "moe_dispatcher", dedup ? "deepep" : "alltoall");
    if (sg >= 0)
        put_bool(d, d->training, "p2p_scatter_gather", sg == 1);
    copy_stated(d, cfg, "attention_kernel", d->training);
    if (!stated(cfg, "attention_kernel"))
        put_str(d, d->training, "attention_kernel", "auto");
    copy_stated(d, cfg, "loss_parallel", d->training);
    if (!stated(cfg, "loss_parallel"))
        put_bool(d, d->training, "loss_parallel", true);
    copy_stated(d, cfg, "lora_targets", d->training);
    put_bool(d, d->training, "fp8_params", fp8_params == 1 && low);
    /* The blocks a low-precision run kept in bf16: as the row says
     * (first_last_layers_bf16, Megatron-Core's --first-last-layers-bf16: one
     * block each end unless num_layers_at_start_in_bf16 and
     * num_layers_at_end_in_bf16 say more), else its framework's default:
     * none (Megatron-Core's flag is false by default, as Megatron-Bridge's
     * fp8 delayed, MXFP8 and NVFP4 recipes leave it) but where the row names
     * Bridge's current-scaling recipe, whose blocks are its own.  A plan's
     * default is the recipe NVIDIA's papers run (problem.c). */
    if (low) {
        const pp_precision_info *info = pp_precision_props(prec);
        bool recipe = bf16_ends < 0 && bridge_recipe_named(prec_text);
        int first = bf16_ends == 1 ? bf16_first : recipe ? info->bridge_bf16_first : 0;
        int last = bf16_ends == 1 ? bf16_last : recipe ? info->bridge_bf16_last : 0;
        put_num(d, d->training, "bf16_layers_first", first);
        put_num(d, d->training, "bf16_layers_last", last);
    }
    put_bool(d, d->training, "fp8_activation_input_store", fp8_act == 1 && low);
    if (packed > 0)
        put_num(d, d->training, "packed_sample_tokens", packed);
    /* A MoE run whose whole iteration is one CUDA graph (Megatron-Core's
     * full_iteration scope with HybridEP at a static expert-rank capacity,
     * --moe-expert-rank-capacity-factor, and paged stashing: MLPerf Training
     * v6.0's DeepSeek-V3) is priced as a run that captures its MoE layers
     * at all: the host issues none of their kernels (step.c prices the host
     * only for "none").  A problem cannot ask for it (problem.c: the planner
     * does not decide the capacity that launch needs), a row can state it. */
    if (graphs == PP_GRAPHS_FULL && moe)
        graphs = PP_GRAPHS_PARTIAL;
    if (graphs >= 0)
        put_str(d, d->training, "cuda_graphs", pp_cuda_graphs_names[graphs]);
    if (balanced == 1) /* Megatron-Core --moe-router-force-load-balancing: every expert its mean share */
        put_bool(d, d->training, "moe_force_balance", true);
    return PP_OK;
}

/* A measured run is priced as it ran: wherever its TP groups sat, and no
 * lossy codec.  Its memory is judged as the planner judges a plan's, with
 * the problem's default headroom (problem.c), so that the accuracy report's
 * "priced to fit" is the planner's decision. */
static void build_constraints(row_docs *d)
{
    cJSON *c = cJSON_AddObjectToObject(d->problem, "constraints");
    cJSON *tol = c ? cJSON_AddObjectToObject(c, "error_tolerance") : NULL;
    d->ok = d->ok && tol;
    if (!tol)
        return;
    put_bool(d, c, "allow_tp_across_nodes", true);
    for (int dim = 0; dim < PP_DIM_COUNT; dim++)
        put_num(d, tol, pp_dim_name((pp_dim)dim), 0.0);
}

/* ---- a row ----------------------------------------------------------------------- */

/* A message of the problem reader about the training it was given names
 * the row's config, where those keys come from ("$[3].training.lora_rank"
 * is the row's "$[3].config.lora_rank"). */
static void name_row_config(const pp_jpath *row_at, pp_error *err)
{
    pp_jpath training = pp_jpath_key(row_at, "training");
    char *at = strstr(err->path, training.path);
    size_t n = strlen(training.path);
    if (!at || (at[n] != '.' && at[n] != '\0'))
        return;
    char rest[sizeof err->path];
    snprintf(rest, sizeof rest, "%s", at + n);
    snprintf(at, sizeof err->path - (size_t)(at - err->path), "%s.config%s", row_at->path, rest);
}

/* What was measured: the step time (as stated, else derived by the source's
 * formula), the memory parts, the peak, or an out-of-memory stop. */
static int read_measured(const cJSON *meas, const pp_jpath *at, pp_measurement *row, pp_error *err)
{
    double it = 0, it_derived = 0, states = 0, act = 0, reserved = 0, peak = 0;
    const struct {
        const char *key;
        double *out;
    } values[] = {{"iteration_s", &it},
                  {"iteration_s_derived", &it_derived},
                  {"memory_GiB_params_plus_optimizer", &states},
                  {"memory_GiB_activations", &act},
                  {"memory_GiB_max_reserved", &reserved},
                  {"memory_GiB_peak", &peak},
                  {"memory_GB_model_states", &row->model_states_GB}};
    int oom = -1, rc = PP_OK;
    for (size_t i = 0; i < sizeof values / sizeof values[0] && !rc; i++)
        rc = row_double(meas, at, values[i].key, 0, MAX_MEASURED, values[i].out, err);
    if (!rc)
        rc = row_flag(meas, at, "oom", &oom, err);
    row->iteration_s = it > 0 ? it : it_derived;
    row->has_time = row->iteration_s > 0;
    row->has_memory = states > 0 && act > 0;
    row->mem_states_gib = states;
    row->mem_activations_gib = act;
    row->peak_gib = reserved > 0 ? reserved : peak;
    row->has_peak = row->peak_gib > 0;
    row->has_oom = !row->has_time && oom == 1;
    return rc;
}

/* A throughput a source states instead of its step time: tokens a second
 * per GPU or over the job, or sequences (samples) a second.  With the
 * row's global batch, sequence length and GPU count it is the step time,
 * exactly: global_batch x seq_len tokens (global_batch sequences) a step. */
typedef struct row_throughput {
    double tokens_per_gpu, tokens, sequences;
} row_throughput;

static int read_throughput(const cJSON *meas, const pp_jpath *at, row_throughput *t, pp_error *err)
{
    memset(t, 0, sizeof *t);
    int rc = row_double(meas, at, "tokens_per_s_per_gpu", 0, MAX_MEASURED, &t->tokens_per_gpu, err);
    if (!rc)
        rc = row_double(meas, at, "tokens_per_s", 0, MAX_MEASURED, &t->tokens, err);
    if (!rc)
        rc = row_double(meas, at, "samples_per_s", 0, MAX_MEASURED, &t->sequences, err);
    if (!rc && t->sequences <= 0)
        rc = row_double(meas, at, "sequences_per_s", 0, MAX_MEASURED, &t->sequences, err);
    return rc;
}

static bool has_throughput(const row_throughput *t)
{
    return t->tokens_per_gpu > 0 || t->tokens > 0 || t->sequences > 0;
}

/* The step time a stated throughput means, for the row as read. */
static double step_of_throughput(const row_throughput *t, const pp_measurement *row)
{
    double seqs = (double)row->prob.training.global_batch, tokens = seqs * row->prob.model.seq_len;
    double gpus = (double)row->prob.cluster.nodes * row->prob.cluster.gpus_per_node;
    if (t->tokens_per_gpu > 0 && gpus > 0)
        return tokens / (t->tokens_per_gpu * gpus);
    if (t->tokens > 0)
        return tokens / t->tokens;
    return t->sequences > 0 ? seqs / t->sequences : 0.0;
}

typedef struct row_parts {
    const cJSON *model, *cluster, *config, *measured;
    pp_jpath model_at, cluster_at, config_at, measured_at;
    cJSON *named_model; /* {"name": ...} for a model given by its name alone */
    cJSON *named_cluster; /* {"gpu": ...} for a cluster given by its GPU's or a catalog cluster's name */
    /* each section with its keys as the loader reads them (section_keys), in
     * the order model, cluster, config, measured, and per section the keys
     * the row spelled otherwise ("canonical", "as written"); freed by
     * free_own */
    cJSON *own[4];
    char renamed[4][8][2][64];
    int n_renamed[4];
} row_parts;

/* ---- config keys as sources write them -------------------------------------------- */

/* The config keys the loader reads, under the other names sources give
 * them: Megatron-LM's arguments (--tensor-model-parallel-size,
 * micro_batch_size, --recompute-granularity), NeMo's and Megatron-Bridge's
 * config fields, the tables' abbreviations (TP, PP, DP, CP, EP, MBS, GBS,
 * VPP, SP).  Compared by pp_name_key, so "TP", "tp_size" and
 * "--tensor-model-parallel-size" are all "t"; a row that states the key
 * itself keeps it. */
typedef struct source_key {
    const char *key, *others[10];
    double scale; /* the canonical value per unit of the others' (0: 1) */
} source_key;

static const source_key config_keys[] = {
    {"t", {"tp", "tpsize", "tensorparallel", "tensorparallelsize", "tensormodelparallelsize", "tensorparalleldegree",
           NULL}, 0},
    {"p", {"pp", "ppsize", "pipelineparallel", "pipelineparallelsize", "pipelinemodelparallelsize",
           "pipelineparalleldegree", NULL}, 0},
    {"d", {"dp", "dpsize", "dataparallel", "dataparallelsize", "dataparallelsharddegree", NULL}, 0},
    {"cp", {"cpsize", "contextparallel", "contextparallelsize", "contextparalleldegree", NULL}, 0},
    {"ep", {"epsize", "expertparallel", "expertparallelsize", "expertmodelparallelsize", "expertparalleldegree", NULL},
     0},
    {"etp", {"experttensorparallelsize", "experttensorparalleldegree", NULL}, 0},
    /* torchtitan's local_batch_size, DeepSpeed's train_micro_batch_size_per_gpu and train_batch_size */
    {"micro_batch", {"mbs", "microbatch", "microbatchsize", "localbatchsize", "trainmicrobatchsizepergpu", NULL}, 0},
    {"global_batch", {"gbs", "globalbatch", "globalbatchsize", "trainbatchsize", NULL}, 0},
    {"grad_accum", {"ga", "gradientaccumulationsteps", "gradaccumulation", "gradaccumsteps", "nummicrobatches",
                    "accumulategradbatches", NULL}, 0},
    /* a table's GPU count beside the degrees ("#-GPUs"): the cluster's
     * where the cluster gives none */
    {"gpus", {"numgpus", "gpucount", "ngpus", "totalgpus", "worldsize", NULL}, 0},
    /* a table's sequence length beside the batch: the model's where the
     * model gives none */
    {"seq_len", {"seqlength", "sequencelength", "seqlen", "maxseqlen", "contextlength", NULL}, 0},
    {"global_batch_tokens", {"gbstokens", "globalbatchsizetokens", "batchsizetokens", "tokensperstep",
                             "tokensperbatch", "tokensperiteration", NULL}, 0},
    {"seq_parallel", {"sp", "seqparallel", "sequenceparallel", "sequenceparallelism", NULL}, 0},
    {"tp_bwd_overlap", {"asynctensormodelparallelallreduce", NULL}, 0},
    /* Megatron-LM's and NeMo's names of the other switches rows carry:
     * the DP overlap (--overlap-grad-reduce, --overlap-param-gather), the CP
     * exchange (--cp-comm-type), the attention kernel (--attention-backend) */
    {"dp_overlap", {"overlapgradreduce", "overlapparamgather", NULL}, 0},
    {"cp_comm", {"cpcommtype", NULL}, 0},
    {"grad_accum_dtype", {"maingradsdtype", NULL}, 0},
    {"optimizer_moments_dtype", {"expavgdtype", "expavgsqdtype", NULL}, 0},
    {"attention_kernel", {"attentionbackend", NULL}, 0},
    {"virtual_stages",
     {"vp", "vpp", "virtualstages", "virtualpipelinemodelparallelsize", "virtualpipelineparallelsize", NULL}, 0},
    {"recompute",
     {"recomputegranularity", "activationcheckpointing", "activationrecompute", "gradientcheckpointing",
      "activationcheckpoint", "acmode", "activationcheckpointmode", NULL},
     0},
    {"async_tp", {"enableasynctensorparallel", NULL}, 0}, /* torchtitan's [parallelism] switch */
    {"zero_stage", {"zero", "zerostage", "zerooptimization", "dataparallelshardingstrategy", NULL}, 0},
    {"precision", {"dtype", "mixedprecision", NULL}, 0},
    /* frozen weights held in the recipe's format: a LoRA recipe's
     * pre-quantized base model (MLPerf v5.1's pre_quantized_model,
     * Megatron-Bridge's pre_quantize_base_weights) */
    {"fp8_params", {"prequantizedmodel", "prequantizebaseweights", "fp8paramgather", "fp8param", NULL}, 0},
    {"recompute_modules", {"recomputemodules", NULL}, 0}, /* --recompute-modules */
    /* MoE switches under Megatron-LM's arguments (and MLPerf's shell
     * variables of the same names), Megatron-Bridge's fields and
     * torchtitan's: the forced router, the dispatcher (the flex one's
     * backend says DeepEP or HybridEP), the all-to-all overlap */
    {"moe_force_balance", {"moerouterforceloadbalancing", "moeforceloadbalance", "forceloadbalance", NULL}, 0},
    {"token_dispatcher", {"moetokendispatchertype", "moeflexdispatcherbackend", "tokendispatchertype", NULL}, 0},
    {"moe_a2a_overlap", {"overlapmoeexpertparallelcomm", "moea2aoverlap", NULL}, 0},
    /* CUDA graphs under Megatron-LM's arguments and NeMo's field */
    {"cuda_graphs", {"cudagraphimpl", "cudagraphimplementation", "cudagraphscope", "enablecudagraph", NULL}, 0},
};

/* The cluster's keys as sources name them: the GPU count (a launcher's
 * world size), nodes and GPUs a node, the GPU's kind. */
static const source_key cluster_keys[] = {
    {"gpus", {"numgpus", "gpucount", "ngpus", "totalgpus", "worldsize", NULL}, 0},
    {"nodes", {"numnodes", "nodecount", "nnodes", NULL}, 0},
    {"gpus_per_node", {"gpupernode", "ngpuspernode", "numgpuspernode", "devicespernode", "nprocpernode", NULL}, 0},
    {"gpu", {"gputype", "gpumodel", "accelerator", NULL}, 0},
    /* the network per GPU under a problem's name and the catalog's */
    {"inter_node_Gbps_per_gpu", {"internodegbps", "networkgbps", "nicgbps", "networkgbpspergpu", NULL}, 0},
};

/* The model's shape under the names of a Hugging Face config.json and of
 * Megatron-LM's arguments (num_hidden_layers, hidden_size,
 * num_attention_heads, num_key_value_heads or num_query_groups,
 * intermediate_size or ffn_hidden_size, vocab_size, seq_length, hidden_act,
 * tie_word_embeddings; the MoE counts). */
static const source_key model_keys[] = {
    {"layers", {"numhiddenlayers", "numlayers", "nlayer", "nlayers", NULL}, 0},
    {"hidden", {"hiddensize", "dmodel", "nembd", "modeldim", NULL}, 0},
    {"heads", {"numattentionheads", "nhead", "nheads", "attentionheads", NULL}, 0},
    {"kv_heads", {"numkeyvalueheads", "numquerygroups", "nkvheads", "kvheads", NULL}, 0},
    {"ffn_hidden", {"intermediatesize", "ffnhiddensize", "ffnsize", "ffndim", NULL}, 0},
    {"vocab", {"vocabsize", "paddedvocabsize", "nvocab", NULL}, 0},
    {"seq_len", {"seqlength", "sequencelength", "seqlen", "maxseqlen", "contextlength", NULL}, 0},
    {"experts", {"numexperts", "numlocalexperts", "nroutedexperts", "nummoeexperts", NULL}, 0},
    {"experts_per_token", {"numexpertspertok", "moeroutertopk", "topk", NULL}, 0},
    {"moe_ffn_hidden", {"moeintermediatesize", "moeffnhiddensize", NULL}, 0},
    {"sliding_window", {"slidingwindow", NULL}, 0},
    {"window_attn_skip_freq", {"windowattnskipfreq", NULL}, 0},
    {"activation", {"hiddenact", "activationfunction", NULL}, 0},
    {"tie_embeddings", {"tiewordembeddings", NULL}, 0},
};

/* The measured values under the names sources and logs give them: a step
 * in seconds or milliseconds (Megatron-LM's log line "elapsed time per
 * iteration (ms)"), tokens a second per GPU ("TGS") or over the job,
 * samples a second. */
static const source_key measured_keys[] = {
    {"iteration_s", {"steptime", "steptimes", "iterationtime", "iterationtimes", "timeperstep", "timeperiteration",
                     "secondsperstep", "elapsedtimeperiterations", "secondsperiteration", "secperstep"}, 0},
    {"iteration_s", {"steptimems", "iterationms", "iterationtimems", "elapsedtimeperiterationms", "timeperiterationms",
                     "timeperstepms", "stepms", "msperstep", "msperiteration"}, 1e-3},
    {"tokens_per_s_per_gpu", {"tokenspersecondpergpu", "tokenspersecpergpu", "tgs", "throughputpergpu",
                              "tokenssecgpu", "tokenssgpu", "tokenspersgpu", "tokenspergpupersec", "tokenspergpupersecond"}, 0},
    {"tokens_per_s_per_gpu", {"throughputtokenssecgpu", "throughputtokenspersecpergpu", "throughputtokenssgpu", NULL}, 0},
    {"tokens_per_s", {"tokenspersecond", "tokenspersec", "throughputtokenspers", "throughputtokenspersec",
                      "throughputtokenspersecond", NULL}, 0},
    {"samples_per_s", {"samplespersecond", "samplespersec", "sequencespersecond", "seqpers"}, 0},
    /* averages and MLPerf's tracked_stats name */
    {"iteration_s", {"steptimesec", "timeperiterations", "avgsteptime", "averagesteptime", "meansteptime",
                     "meansteptimes", "trainsteptime", "avgiterationtime", "avgiterationtimes", NULL}, 0},
};

/* The entry of table whose key a source's key spells, or NULL: one of its
 * other names, or the key itself in other case or punctuation ("CP",
 * "#-GPUs", "Global Batch"), but for the times in seconds, whose letters
 * alone name something else ("Iterations" is a count). */
static const source_key *source_key_of(const source_key *table, size_t n, const char *key)
{
    char k[64], canon[64];
    pp_name_key(key, k, sizeof k);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(table[i].key);
        bool seconds = len > 2 && strcmp(table[i].key + len - 2, "_s") == 0;
        pp_name_key(table[i].key, canon, sizeof canon);
        if (strcmp(key, table[i].key) != 0 &&
            (strcasecmp(key, table[i].key) == 0 || (!seconds && strcmp(k, canon) == 0)))
            return &table[i]; /* "T", "CP", "#-GPUs" */
        for (int a = 0; a < 10 && table[i].others[a]; a++)
            if (strcmp(k, table[i].others[a]) == 0)
                return &table[i];
    }
    return NULL;
}

/* A value under its canonical key: DeepSpeed's zero_optimization object
 * gives its stage; Megatron-LM's switches --use-distributed-optimizer
 * (ZeRO-1) and --recompute-activations (selective recomputation) are read
 * in place of zero_stage and recompute. */
static cJSON *config_value(const char *key, const cJSON *v)
{
    if (strcmp(key, "zero_stage") == 0 && cJSON_IsObject(v) && pp_json_member(v, "stage"))
        return cJSON_Duplicate(pp_json_member(v, "stage"), true);
    return cJSON_Duplicate(v, true);
}

/* recompute_modules as Megatron-LM's command line and a config's list
 * give it ("layernorm moe", ["layernorm", "moe"]): the names joined by
 * commas, as a plan writes them, less the modules of layers parplan does
 * not model (Megatron-Core's gdn_norm_out, gdp_in_proj and gdp_qkv of
 * gated delta-net attention, mhc of hyper-connections: the model it prices
 * has no such part to recompute; nothing left is "none"); the attention
 * core named as sources name it ("attention", "attn") is core_attn.
 * Anything else stays as it is, for the plan's reader to accept or refuse
 * at its path. */
static const char *const unmodelled_modules[] = {"gdn_norm_out", "gdp_in_proj", "gdp_qkv", "mhc"};

static bool append_module(char *text, size_t cap, size_t *n, const char *word, size_t len, bool *dropped)
{
    /* the attention core as sources call it: Megatron-Core's core_attn */
    static const char *const attention[] = {"attention", "attn", "core_attention", "self_attention"};
    for (size_t i = 0; i < sizeof attention / sizeof attention[0]; i++)
        if (strlen(attention[i]) == len && strncasecmp(word, attention[i], len) == 0) {
            word = "core_attn";
            len = strlen(word);
            break;
        }
    for (size_t i = 0; i < sizeof unmodelled_modules / sizeof unmodelled_modules[0]; i++)
        if (strlen(unmodelled_modules[i]) == len && strncasecmp(word, unmodelled_modules[i], len) == 0) {
            *dropped = true;
            return true;
        }
    if (*n + len + 2 > cap)
        return false;
    *n += (size_t)snprintf(text + *n, cap - *n, "%s%.*s", *n ? "," : "", (int)len, word);
    return true;
}

static int modules_as_text(cJSON *out, pp_error *err)
{
    const cJSON *v = pp_json_member(out, "recompute_modules");
    char text[128] = "";
    size_t n = 0;
    bool dropped = false, ok = true;
    if (cJSON_IsArray(v)) {
        const cJSON *item;
        cJSON_ArrayForEach(item, v)
        {
            if (!cJSON_IsString(item))
                return PP_OK;
            ok = ok && append_module(text, sizeof text, &n, item->valuestring, strlen(item->valuestring), &dropped);
        }
    } else if (cJSON_IsString(v)) {
        for (const char *p = v->valuestring; *p && ok;) {
            while (*p == ',' || isspace((unsigned char)*p))
                p++;
            size_t len = strcspn(p, ", \t\n");
            if (len)
                ok = append_module(text, sizeof text, &n, p, len, &dropped);
            p += len;
        }
    } else {
        return PP_OK;
    }
    if (!ok)
        return PP_OK;
    cJSON *joined = cJSON_CreateString(n == 0 && dropped ? "none" : text);
    if (!joined || !cJSON_ReplaceItemInObjectCaseSensitive(out, "recompute_modules", joined)) {
        cJSON_Delete(joined);
        return pp_error_set(err, PP_EINTERNAL, "", "out of memory");
    }
    return PP_OK;
}

/* The words a row's training settings come in, read as a problem's values
 * (the problem reader checks them after): a text of a number for a number
 * ("1.1", "8"), a flag in words ("yes", "off"; row_flag's), PyTorch's type
 * names for the gradient types ("float32", "torch.bfloat16"), the attention
 * kernel by its project's name, and LoRA's targets as module lists. */
static const char *const numeric_config_keys[] = {"gpus", "seq_len", "t", "p", "d", "cp", "ep", "etp", "micro_batch", "global_batch",
                                                  "grad_accum", "virtual_stages", "lora_rank", "moe_load_imbalance",
                                                  "global_batch_tokens", "packed_sample_tokens"};
static const char *const flag_config_keys[] = {"dp_overlap", "tp_bwd_overlap", "moe_a2a_overlap", "loss_parallel"};

static const char *dtype_word(const char *key)
{
    static const struct {
        const char *word, *name;
    } words[] = {{"float32", "fp32"}, {"fp32", "fp32"}, {"f32", "fp32"}, {"float", "fp32"},
                 {"bfloat16", "bf16"}, {"bf16", "bf16"}, {"float16", "fp16"}, {"fp16", "fp16"},
                 {"half", "fp16"}, {"float8", "fp8"}, {"fp8", "fp8"}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcmp(key, words[i].word) == 0 || (strncmp(key, "torch", 5) == 0 && strcmp(key + 5, words[i].word) == 0))
            return words[i].name;
    return NULL;
}

/* The attention kernel a name says: "unfused" for the s x s scores written
 * out (training.flash_attention false; eager PyTorch's "math" path,
 * Megatron-LM's baddbmm), flash1 for the kernels of 2022-23 (FlashAttention-1,
 * its Triton version, xformers), flash3 for FlashAttention-3 and for cuDNN's
 * fused attention through Transformer Engine (a FlashAttention-3 class kernel
 * on Hopper; kernels.c runs flash2 where the GPU is not; "fused" alone is
 * the framework's own, auto), flash2 for
 * FlashAttention-2 and what names no generation (flash-attn, PyTorch's SDPA,
 * whose flash backend is FlashAttention-2); NULL when it names none. */
static const char *attention_word(const char *key)
{
    static const struct {
        const char *word, *kernel;
    } words[] = {/* a generation named wins over the rest of the text ("FlashAttention-2 (Triton)") */
                 {"flashattention1", "flash1"}, {"flashattnv1", "flash1"}, {"flash1", "flash1"}, {"fa1", "flash1"},
                 {"flashattention2", "flash2"}, {"flashattn2", "flash2"}, {"flash2", "flash2"}, {"fa2", "flash2"},
                 {"flashattention3", "flash3"}, {"flashattn3", "flash3"}, {"flash3", "flash3"}, {"fa3", "flash3"},
                 {"unfused", "unfused"}, {"noflash", "unfused"}, {"baddbmm", "unfused"}, {"eager", "unfused"},
                 {"math", "unfused"}, {"xformers", "flash1"}, {"triton", "flash1"}, {"cudnn", "flash3"},
                 {"transformerengine", "flash3"}, {"tefused", "flash3"}, {"sdpa", "flash2"},
                 {"flashattn", "flash2"}, {"flashattention", "flash2"}, {"fusedattn", "auto"},
                 {"fusedattention", "auto"}};
    /* Megatron-Core's --attention-backend: flash (FlashAttention through
     * Transformer Engine), fused (cuDNN), local (its own unfused), auto */
    static const char *const exact[][2] = {{"te", "flash3"}, {"fused", "auto"}, {"auto", "auto"}, {"flash", "flash2"},
                                           {"local", "unfused"}};
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (strcmp(key, exact[i][0]) == 0)
            return exact[i][1];
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strstr(key, words[i].word))
            return words[i].kernel;
    return NULL;
}

/* How context parallelism exchanged K and V, as sources name it
 * (pp_name_key keys): Megatron-Core's --cp-comm-type values, ring attention
 * as the p2p ring, DeepSpeed-Ulysses as the all-to-all.  Megatron-Core's
 * hierarchical a2a+p2p (all-to-all inside each low-level group, the ring
 * across them) is read as its ring, whose exchange crosses the wider
 * links; NULL for a text naming none. */
static const char *cp_comm_word(const char *key)
{
    static const struct {
        const char *word, *name;
    } words[] = {{"a2ap2p", "p2p"},      {"allgather", "all_gather"}, {"ulysses", "a2a"}, {"alltoall", "a2a"},
                 {"a2a", "a2a"},         {"ring", "p2p"},             {"p2p", "p2p"}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strstr(key, words[i].word))
            return words[i].name;
    return NULL;
}

/* LoRA's targets as a list of modules or a word: any MLP module (fc1, fc2,
 * mlp, gate, up, down) or "all" is all-linear; attention modules alone
 * (qkv, q, k, v, proj, o, attention) are attention. */
static const char *lora_word(const char *key)
{
    if (strcmp(key, "all") == 0 || strstr(key, "alllinear") || strstr(key, "fc1") || strstr(key, "fc2") ||
        strstr(key, "mlp") || strstr(key, "gate") || strstr(key, "upproj") || strstr(key, "downproj"))
        return "all-linear";
    if (strstr(key, "qkv") || strstr(key, "proj") || strstr(key, "attention") || strstr(key, "attn"))
        return "attention";
    return NULL;
}

static int replace_string(cJSON *out, const char *key, const char *text, pp_error *err)
{
    cJSON *v = cJSON_CreateString(text);
    if (!v || !cJSON_ReplaceItemInObjectCaseSensitive(out, key, v)) {
        cJSON_Delete(v);
        return pp_error_set(err, PP_EINTERNAL, "", "out of memory");
    }
    return PP_OK;
}

/* A table's cell for a dimension or a value it does not have: "n/a",
 * "NA", "-", an em or en dash, "none", "null" or nothing. */
static bool not_applicable(const char *text)
{
    static const char *const words[] = {"n/a", "na", "-", "--", "\u2013", "\u2014", "none", "null", ""};
    char t[16];
    size_t a = strspn(text, " \t"), len = strlen(text + a);
    while (len > 0 && isspace((unsigned char)text[a + len - 1]))
        len--;
    if (len >= sizeof t)
        return false;
    snprintf(t, sizeof t, "%.*s", (int)len, text + a);
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcasecmp(t, words[i]) == 0)
            return true;
    return false;
}

/* A number's unit as a text may give it, in the unit the key names (_s,
 * _GBps, _Gbps, _GB, _GiB within its name); 0 for a unit of another kind
 * or none known.  Bytes and bits differ by the case of the b. */
static double unit_factor(const char *key, const char *unit)
{
    enum { SECONDS, BYTES_PS, BITS_PS, GB, GIB, NONE } kind = NONE;
    size_t kl = strlen(key);
    if (strstr(key, "_GBps"))
        kind = BYTES_PS;
    else if (strstr(key, "_Gbps"))
        kind = BITS_PS;
    else if (strstr(key, "_GiB"))
        kind = GIB;
    else if (strstr(key, "_GB"))
        kind = GB;
    else if ((kl >= 2 && strcmp(key + kl - 2, "_s") == 0) || strstr(key, "_s_derived"))
        kind = SECONDS;
    static const struct {
        int kind;
        const char *unit;
        double factor;
    } units[] = {{SECONDS, "s", 1.0},        {SECONDS, "sec", 1.0},      {SECONDS, "seconds", 1.0},
                 {SECONDS, "ms", 1e-3},      {SECONDS, "msec", 1e-3},    {SECONDS, "us", 1e-6},
                 {BYTES_PS, "GB/s", 1.0},    {BYTES_PS, "GBps", 1.0},    {BYTES_PS, "TB/s", 1e3},
                 {BYTES_PS, "Gb/s", 0.125},  {BYTES_PS, "Gbps", 0.125},  {BITS_PS, "Gb/s", 1.0},
                 {BITS_PS, "Gbps", 1.0},     {BITS_PS, "Tb/s", 1e3},     {BITS_PS, "GB/s", 8.0},
                 {BITS_PS, "GBps", 8.0},     {GB, "GB", 1.0},            {GB, "GiB", 1.073741824},
                 {GIB, "GiB", 1.0},          {GIB, "GB", 1.0 / 1.073741824}};
    for (size_t i = 0; kind != NONE && i < sizeof units / sizeof units[0]; i++)
        if ((int)kind == units[i].kind && strcmp(unit, units[i].unit) == 0)
            return units[i].factor;
    return 0.0;
}

/* keys[i] of out stated as the text of a number ("8", " 1.1 "), or of one
 * with a unit of the key's kind ("850 ms" for iteration_s, "400 Gb/s"),
 * become that number in the key's unit, and a cell that says "n/a" null
 * (not stated); any other text stays, for its reader to refuse at its
 * path. */
static int numbers_of_text(cJSON *out, const char *const *keys, size_t n, pp_error *err)
{
    for (size_t i = 0; out && i < n; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(out, keys[i]);
        if (!cJSON_IsString(v))
            continue;
        if (not_applicable(v->valuestring)) { /* a table's "n/a" or "-": not stated */
            cJSON *null = cJSON_CreateNull();
            if (!null || !cJSON_ReplaceItemInObjectCaseSensitive(out, keys[i], null)) {
                cJSON_Delete(null);
                return pp_error_set(err, PP_EINTERNAL, "", "out of memory");
            }
            continue;
        }
        char *end = NULL;
        double x = strtod(v->valuestring, &end);
        while (end && isspace((unsigned char)*end))
            end++;
        if (!end || end == v->valuestring || !isfinite(x))
            continue;
        if (*end) { /* a unit: "850 ms", "400 Gb/s", "80 GB" */
            char unit[16];
            size_t len = strcspn(end, " \t");
            if (len >= sizeof unit || end[len + strspn(end + len, " \t")] != '\0')
                continue;
            snprintf(unit, sizeof unit, "%.*s", (int)len, end);
            double f = unit_factor(keys[i], unit);
            if (f <= 0.0)
                continue;
            x *= f;
        }
        cJSON *num = cJSON_CreateNumber(x);
        if (!num || !cJSON_ReplaceItemInObjectCaseSensitive(out, keys[i], num)) {
            cJSON_Delete(num);
            return pp_error_set(err, PP_EINTERNAL, "", "out of memory");
        }
    }
    return PP_OK;
}

/* keys[i] of out stated as a flag in words ("yes", "off": row_flag's)
 * become true or false; any other text stays, for its reader to refuse. */
static int flags_of_text(cJSON *out, const char *const *keys, size_t n, pp_error *err)
{
    for (size_t i = 0; out && i < n; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(out, keys[i]);
        int flag = cJSON_IsString(v) ? flag_word(v->valuestring) : v ? flag_number(v) : -1;
        if (flag < 0)
            continue;
        cJSON *b = cJSON_CreateBool(flag);
        if (!b || !cJSON_ReplaceItemInObjectCaseSensitive(out, keys[i], b)) {
            cJSON_Delete(b);
            return pp_error_set(err, PP_EINTERNAL, "", "out of memory");
        }
    }
    return PP_OK;
}

static int config_words(cJSON *out, pp_error *err)
{
    cJSON *v;
    int num_rc = numbers_of_text(out, numeric_config_keys, sizeof numeric_config_keys / sizeof numeric_config_keys[0], err);
    if (!num_rc)
        num_rc = flags_of_text(out, flag_config_keys, sizeof flag_config_keys / sizeof flag_config_keys[0], err);
    if (num_rc)
        return num_rc;
    static const char *const dtype_keys[] = {"grad_reduce_dtype", "grad_accum_dtype", "optimizer_moments_dtype"};
    for (size_t i = 0; i < sizeof dtype_keys / sizeof dtype_keys[0]; i++) {
        char key[64];
        const char *name;
        if (!(v = cJSON_GetObjectItemCaseSensitive(out, dtype_keys[i])) || !cJSON_IsString(v))
            continue;
        pp_name_key(v->valuestring, key, sizeof key);
        if ((name = dtype_word(key)) != NULL) {
            int rc = replace_string(out, dtype_keys[i], name, err);
            if (rc)
                return rc;
        }
    }
    char key[256];
    const char *word;
    if ((v = cJSON_GetObjectItemCaseSensitive(out, "attention_kernel")) && cJSON_IsString(v))
        pp_name_key(v->valuestring, key, sizeof key);
    if (v && cJSON_IsString(v) && (word = attention_word(key)) != NULL) {
        bool unfused = strcmp(word, "unfused") == 0;
        int rc = replace_string(out, "attention_kernel", unfused ? "auto" : word, err);
        if (!rc && unfused && !pp_json_member(out, "flash_attention") && !cJSON_AddFalseToObject(out, "flash_attention"))
            rc = pp_error_set(err, PP_EINTERNAL, "", "out of memory");
        if (rc)
            return rc;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(out, "cp_comm")) && cJSON_IsString(v)) {
        pp_name_key(v->valuestring, key, sizeof key);
        if ((word = cp_comm_word(key)) != NULL) {
            int rc = replace_string(out, "cp_comm", word, err);
            if (rc)
                return rc;
        }
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(out, "lora_targets")) && (cJSON_IsString(v) || cJSON_IsArray(v))) {
        char joined[256] = "";
        size_t n = 0;
        const cJSON *item;
        if (cJSON_IsString(v))
            n = (size_t)snprintf(joined, sizeof joined, "%s", v->valuestring);
        else
            cJSON_ArrayForEach(item, v) if (cJSON_IsString(item) && n + strlen(item->valuestring) + 2 < sizeof joined)
                n += (size_t)snprintf(joined + n, sizeof joined - n, " %s", item->valuestring);
        pp_name_key(joined, key, sizeof key);
        if ((word = lora_word(key)) != NULL)
            return replace_string(out, "lora_targets", word, err);
    }
    return PP_OK;
}

/* A config without `precision` whose flags say it as Megatron-LM's
 * arguments do (--bf16, --fp8-format hybrid, --fp8-recipe tensorwise,
 * --fp4-format e2m1, --fp4-recipe nvfp4): their words, read as a
 * precision text is (precision_of: "fp8 tensorwise" is fp8-current,
 * "fp8 mxfp8" MXFP8, "fp4 nvfp4" NVFP4). */
static int precision_of_flags(const cJSON *cfg, cJSON *out, pp_error *err)
{
    static const struct {
        const char *key, *word; /* pp_name_key of the flag; the word it adds */
    } flags[] = {{"fp4recipe", NULL}, {"fp4format", "fp4"}, {"fp4", "fp4"},   {"fp8recipe", NULL},
                 {"fp8format", "fp8"}, {"fp8", "fp8"},      {"bf16", "bf16"}, {"fp16", "fp16"}};
    if (pp_json_member(out, "precision"))
        return PP_OK;
    char text[160] = "";
    size_t n = 0;
    for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++) {
        const cJSON *item;
        cJSON_ArrayForEach(item, cfg)
        {
            char k[64];
            pp_name_key(item->string ? item->string : "", k, sizeof k);
            if (strcmp(k, flags[f].key) != 0 || cJSON_IsFalse(item) || cJSON_IsNull(item))
                continue;
            const char *word = cJSON_IsString(item) ? item->valuestring : flags[f].word;
            if (word && n + strlen(word) + 2 < sizeof text)
                n += (size_t)snprintf(text + n, sizeof text - n, "%s%s", n ? " " : "", word);
            if (flags[f].word && cJSON_IsString(item) && n + strlen(flags[f].word) + 2 < sizeof text)
                n += (size_t)snprintf(text + n, sizeof text - n, " %s", flags[f].word);
        }
    }
    if (n && !cJSON_AddStringToObject(out, "precision", text))
        return pp_error_set(err, PP_EINTERNAL, "", "out of memory");
    return PP_OK;
}

/* The tables of other names of each section, in row_parts' order. */
static const struct {
    const char *section;
    const source_key *table;
    size_t n;
} section_keys[4] = {
    {"model", model_keys, sizeof model_keys / sizeof model_keys[0]},
    {"cluster", cluster_keys, sizeof cluster_keys / sizeof cluster_keys[0]},
    {"config", config_keys, sizeof config_keys / sizeof config_keys[0]},
    {"measured", measured_keys, sizeof measured_keys / sizeof measured_keys[0]},
};

/* A configuration in sections, as a TOML or YAML file nests it (torchtitan's
 * [parallelism] tensor_parallel_degree, [activation_checkpoint] mode; NeMo's
 * trainer.strategy): the members of a nested object lifted into the config,
 * three levels down at most, a generic name ("mode", "type", "enabled")
 * under its section's ("activation_checkpoint_mode"); a key the config
 * states at its own level wins.  The objects a reader takes whole stay:
 * DeepSpeed's zero_optimization and its precision objects ("bf16":
 * {"enabled": true}). */
static int normalize_keys_flat(const cJSON *cfg, const source_key *table, size_t n_table, cJSON **out,
                               char renamed[][2][64], int cap, int *n_renamed, pp_error *err);
static const char *const whole_objects[] = {"zerooptimization", "bf16", "fp16", "fp8", "fp4"};
static const char *const generic_keys[] = {"mode", "type", "enabled", "enable", "size", "degree"};

static bool lift_members(cJSON *flat, const cJSON *obj, int depth)
{
    const cJSON *item;
    cJSON_ArrayForEach(item, obj)
    {
        char k[64];
        pp_name_key(item->string ? item->string : "", k, sizeof k);
        bool whole = false;
        for (size_t i = 0; i < sizeof whole_objects / sizeof whole_objects[0]; i++)
            whole = whole || strcmp(k, whole_objects[i]) == 0;
        if (cJSON_IsObject(item) && !whole && depth < 3) {
            if (!lift_members(flat, item, depth + 1))
                return false;
            continue;
        }
        char name[160];
        bool generic = false;
        for (size_t i = 0; i < sizeof generic_keys / sizeof generic_keys[0]; i++)
            generic = generic || strcmp(k, generic_keys[i]) == 0;
        snprintf(name, sizeof name, "%s%s%s", generic && obj->string ? obj->string : "",
                 generic && obj->string ? "_" : "", item->string ? item->string : "");
        if (depth > 0 && pp_json_member(flat, name))
            continue; /* stated at an outer level, or earlier */
        cJSON *copy = cJSON_Duplicate(item, true);
        if (!copy || !cJSON_AddItemToObject(flat, name, copy)) {
            cJSON_Delete(copy);
            return false;
        }
    }
    return true;
}

static cJSON *flat_config(const cJSON *cfg)
{
    cJSON *flat = cJSON_CreateObject();
    const cJSON *item;
    /* the config's own keys first, so they win over the sections' */
    cJSON_ArrayForEach(item, cfg)
    {
        if (cJSON_IsObject(item))
            continue;
        cJSON *copy = cJSON_Duplicate(item, true);
        if (!flat || !copy || !cJSON_AddItemToObject(flat, item->string ? item->string : "", copy)) {
            cJSON_Delete(copy);
            cJSON_Delete(flat);
            return NULL;
        }
    }
    cJSON *objects = cJSON_CreateObject();
    cJSON_ArrayForEach(item, cfg)
    {
        if (!cJSON_IsObject(item))
            continue;
        cJSON *copy = cJSON_Duplicate(item, true);
        if (!objects || !copy || !cJSON_AddItemToObject(objects, item->string ? item->string : "", copy)) {
            cJSON_Delete(copy);
            cJSON_Delete(objects);
            cJSON_Delete(flat);
            return NULL;
        }
    }
    bool ok = flat && objects && lift_members(flat, objects, 0);
    cJSON_Delete(objects);
    if (!ok) {
        cJSON_Delete(flat);
        return NULL;
    }
    return flat;
}

/* Into *out a copy of cfg with every key of table's other names also under
 * its canonical key (unless the row states that), and into renamed the
 * first such pairs (canonical, as written) for error paths; a config's
 * sections lifted first. */
static int normalize_keys(const cJSON *cfg, const source_key *table, size_t n_table, cJSON **out,
                          char renamed[][2][64], int cap, int *n_renamed, pp_error *err)
{
    cJSON *flat = NULL;
    if (table == config_keys) { /* the sections of a nested configuration, lifted */
        if (!(flat = flat_config(cfg)))
            return pp_error_set(err, PP_EINTERNAL, "", "out of memory");
        cfg = flat;
    }
    int rc = normalize_keys_flat(cfg, table, n_table, out, renamed, cap, n_renamed, err);
    cJSON_Delete(flat);
    return rc;
}

static int normalize_keys_flat(const cJSON *cfg, const source_key *table, size_t n_table, cJSON **out,
                               char renamed[][2][64], int cap, int *n_renamed, pp_error *err)
{
    *out = cJSON_Duplicate(cfg, true);
    int n = 0;
    *n_renamed = 0;
    if (!*out)
        return pp_error_set(err, PP_EINTERNAL, "", "out of memory");
    const cJSON *item;
    cJSON_ArrayForEach(item, cfg)
    {
        const source_key *sk = item->string ? source_key_of(table, n_table, item->string) : NULL;
        const char *canon = sk ? sk->key : NULL;
        cJSON *copy = NULL;
        if (sk && sk->scale > 0 && cJSON_IsNumber(item))
            copy = cJSON_CreateNumber(item->valuedouble * sk->scale);
        if (!canon && item->string && table == config_keys) { /* the switches that say a stage or a granularity */
            char k[64];
            pp_name_key(item->string, k, sizeof k);
            if (strcmp(k, "usedistributedoptimizer") == 0 && cJSON_IsBool(item)) {
                canon = "zero_stage";
                copy = cJSON_CreateNumber(cJSON_IsTrue(item) ? 1 : 0);
            } else if (strcmp(k, "recomputeactivations") == 0 && cJSON_IsTrue(item)) {
                canon = "recompute";
                copy = cJSON_CreateString("selective");
            } else if ((strcmp(k, "gradreduceinfp32") == 0 || strcmp(k, "gradreduceinbf16") == 0) &&
                       cJSON_IsTrue(item)) { /* Megatron's --grad-reduce-in-bf16, NeMo's grad_reduce_in_fp32 */
                canon = "grad_reduce_dtype";
                copy = cJSON_CreateString(strcmp(k, "gradreduceinfp32") == 0 ? "fp32" : "bf16");
            } else if (strcmp(k, "useflashattn") == 0 && cJSON_IsTrue(item)) { /* Megatron-LM's --use-flash-attn */
                canon = "attention_kernel";
                copy = cJSON_CreateString("flash2");
            } else if (strcmp(k, "moeenabledeepep") == 0 && cJSON_IsTrue(item)) { /* Megatron's --moe-enable-deepep */
                canon = "token_dispatcher";
                copy = cJSON_CreateString("DeepEP");
            } else if ((strcmp(k, "fsdp") == 0 || strcmp(k, "usemegatronfsdp") == 0 || strcmp(k, "usetorchfsdp2") == 0) &&
                       (cJSON_IsTrue(item) || flag_number(item) == 1 ||
                        (cJSON_IsString(item) && (flag_word(item->valuestring) == 1 || strcmp(item->valuestring, "1") == 0)))) {
                /* a table's FSDP column, Megatron's --use-megatron-fsdp (its
                 * default strategy optim_grads_params) and --use-torch-fsdp2:
                 * parameters, gradients and optimizer sharded */
                canon = "zero_stage";
                copy = cJSON_CreateNumber(3);
            }
        }
        /* "zero": true says sharding without its stage: not read as one */
        bool stageless = !copy && canon && strcmp(canon, "zero_stage") == 0 && cJSON_IsBool(item);
        if (!canon || pp_json_member(*out, canon) || stageless) {
            cJSON_Delete(copy); /* the row states the key itself, or the value names nothing */
            continue;
        }
        if (!copy)
            copy = config_value(canon, item);
        if (!copy || !cJSON_AddItemToObject(*out, canon, copy)) {
            cJSON_Delete(copy);
            return pp_error_set(err, PP_EINTERNAL, "", "out of memory");
        }
        if (n < cap) {
            snprintf(renamed[n][0], sizeof renamed[n][0], "%s", canon);
            snprintf(renamed[n][1], sizeof renamed[n][1], "%.63s", item->string);
            *n_renamed = ++n;
        }
    }
    if (table != config_keys)
        return PP_OK;
    int rc = modules_as_text(*out, err);
    if (!rc)
        rc = config_words(*out, err);
    return rc ? rc : precision_of_flags(cfg, *out, err);
}

/* An error at a canonical key the row spelled otherwise names the row's
 * own key: "$[3].config.t" becomes "$[3].config.TP". */
static void name_source_key(pp_error *err, const char *section, char (*renamed)[2][64], int n)
{
    for (int i = 0; i < n; i++) {
        char tail[96];
        snprintf(tail, sizeof tail, ".%s.%.63s", section, renamed[i][0]);
        char *at = strstr(err->path, tail);
        size_t tl = strlen(tail);
        if (!at || isalnum((unsigned char)at[tl]) || at[tl] == '_')
            continue;
        char fixed[sizeof err->path];
        snprintf(fixed, sizeof fixed, "%.*s.%s.%.63s%.100s", (int)(at - err->path), err->path, section, renamed[i][1],
                 at + tl);
        snprintf(err->path, sizeof err->path, "%s", fixed);
        return;
    }
}

/* The numbers of the model, the cluster and the measurement a row may give
 * as text (the config's are config_words'). */
static const char *const numeric_model_keys[] = {
    "layers",         "hidden",         "heads",           "kv_heads",           "ffn_hidden",       "vocab",
    "seq_len",        "params_b",       "head_dim",        "experts",            "experts_per_token", "moe_ffn_hidden",
    "shared_experts", "shared_ffn_hidden", "first_dense_layers", "moe_layer_freq", "q_lora_rank",      "kv_lora_rank",
    "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim",  "mtp_layers",         "active_params_b",  "sliding_window",
    "window_attn_skip_freq"};
static const char *const numeric_cluster_keys[] = {"gpus", "nodes", "gpus_per_node", "gpu_memory_GB", "peak_tflops",
                                                   "intra_node_GBps", "inter_node_Gbps", "inter_node_Gbps_per_gpu",
                                                   "inter_node_Gbps_per_node"};
static const char *const numeric_measured_keys[] = {"iteration_s", "iteration_s_derived", "tokens_per_s_per_gpu",
                                                    "tokens_per_s", "samples_per_s", "sequences_per_s",
                                                    "memory_GiB_max_reserved", "memory_GiB_peak"};

static const char *const flag_model_keys[] = {"tie_embeddings", "gated_mlp"};

/* A degree of a dimension a run does not use, stated as 0 (a table's "CP 0",
 * "VP 0": the dimension off), is as unstated: 1, non-interleaved.  The
 * degrees the run does use (t, p, d) are read as written, and 0 there is an
 * error (torchtitan's -1 data-parallel shards, below, are the rest). */
static const char *const unused_when_zero[] = {"cp", "ep", "etp", "virtual_stages"};

static int set_null(cJSON *config, const char *key, pp_error *err)
{
    cJSON *null = cJSON_CreateNull();
    if (!null || !cJSON_ReplaceItemInObjectCaseSensitive(config, key, null)) {
        cJSON_Delete(null);
        return pp_error_set(err, PP_EINTERNAL, NULL, "out of memory");
    }
    return PP_OK;
}

/* The data-parallel degree as torchtitan states it: data_parallel_shard_degree
 * -1 (its default) is the rest of the GPUs, as an unstated d; with
 * data_parallel_replicate_degree r (HSDP) the replicas times the shards. */
static int torchtitan_dp(cJSON *config, pp_error *err)
{
    cJSON *d = cJSON_GetObjectItemCaseSensitive(config, "d");
    if (cJSON_IsNumber(d) && d->valuedouble < 0.0)
        return set_null(config, "d", err);
    const cJSON *item, *replicas = NULL;
    cJSON_ArrayForEach(item, config)
    {
        char k[64];
        pp_name_key(item->string ? item->string : "", k, sizeof k);
        if (strcmp(k, "dataparallelreplicatedegree") == 0)
            replicas = item;
    }
    if (cJSON_IsNumber(d) && cJSON_IsNumber(replicas) && replicas->valuedouble > 1.0)
        cJSON_SetNumberValue(d, d->valuedouble * replicas->valuedouble);
    return PP_OK;
}

/* A sequence length the config states (a table's column beside the
 * batch) is the model's where the model states none; both, they agree. */
static int sequence_of_config(row_parts *s, pp_error *err)
{
    const cJSON *c = stated(s->own[2], "seq_len"), *m = stated(s->own[0], "seq_len");
    if (!cJSON_IsNumber(c))
        return PP_OK;
    if (m && (!cJSON_IsNumber(m) || m->valuedouble != c->valuedouble)) {
        pp_jpath at = pp_jpath_key(&s->config_at, "seq_len");
        return pp_json_fail(err, &at, "expected the model's sequence length, found %g", c->valuedouble);
    }
    cJSON *copy = m ? NULL : cJSON_CreateNumber(c->valuedouble);
    if (!m && (!copy || !cJSON_AddItemToObject(s->own[0], "seq_len", copy))) {
        cJSON_Delete(copy);
        return pp_error_set(err, PP_EINTERNAL, "", "out of memory");
    }
    return PP_OK;
}

/* DeepSpeed's zero_optimization object says its overlap too (overlap_comm):
 * the row's dp_overlap unless it states that itself. */
static int deepspeed_overlap_comm(cJSON *config, pp_error *err)
{
    const cJSON *item, *overlap = NULL;
    cJSON_ArrayForEach(item, config)
    {
        char k[64];
        pp_name_key(item->string ? item->string : "", k, sizeof k);
        if (strcmp(k, "zerooptimization") == 0 && cJSON_IsObject(item))
            overlap = cJSON_GetObjectItemCaseSensitive(item, "overlap_comm");
    }
    if (!cJSON_IsBool(overlap) || pp_json_member(config, "dp_overlap"))
        return PP_OK;
    return cJSON_AddBoolToObject(config, "dp_overlap", cJSON_IsTrue(overlap)) ? PP_OK
                                                                              : pp_error_set(err, PP_EINTERNAL, NULL,
                                                                                             "out of memory");
}

static int zero_degrees_unstated(cJSON *config, pp_error *err)
{
    int rc = config ? torchtitan_dp(config, err) : PP_OK;
    if (!rc && config)
        rc = deepspeed_overlap_comm(config, err);
    for (size_t i = 0; config && !rc && i < sizeof unused_when_zero / sizeof unused_when_zero[0]; i++) {
        cJSON *v = cJSON_GetObjectItemCaseSensitive(config, unused_when_zero[i]);
        if (cJSON_IsNumber(v) && v->valuedouble == 0.0)
            rc = set_null(config, unused_when_zero[i], err);
    }
    return rc;
}

/* A GPU count the config states (a table's "#-GPUs") is the cluster's
 * where the cluster states none (gpus_of_degrees); both, they agree. */
static int gpus_of_config(const row_parts *s, pp_error *err)
{
    const cJSON *c = stated(s->own[2], "gpus"), *g = stated(s->own[1], "gpus");
    if (!cJSON_IsNumber(c) || !cJSON_IsNumber(g) || c->valuedouble == g->valuedouble)
        return PP_OK;
    pp_jpath at = pp_jpath_key(&s->config_at, "gpus");
    return pp_json_fail(err, &at, "expected the cluster's GPU count (%g), found %g", g->valuedouble, c->valuedouble);
}

/* Each section of the row with its keys as the loader reads them, in
 * place of the row's own (the config's sequence length the model's, its
 * GPU count checked against the cluster's). */
static int normalize_sections(row_parts *s, pp_error *err)
{
    const cJSON **sections[4] = {&s->model, &s->cluster, &s->config, &s->measured};
    static const struct {
        const char *const *keys;
        size_t n;
    } numeric[4] = {{numeric_model_keys, sizeof numeric_model_keys / sizeof numeric_model_keys[0]},
                    {numeric_cluster_keys, sizeof numeric_cluster_keys / sizeof numeric_cluster_keys[0]},
                    {NULL, 0}, /* config_words */
                    {numeric_measured_keys, sizeof numeric_measured_keys / sizeof numeric_measured_keys[0]}};
    for (int i = 0; i < 4; i++) {
        int rc = normalize_keys(*sections[i], section_keys[i].table, section_keys[i].n, &s->own[i], s->renamed[i], 8,
                                &s->n_renamed[i], err);
        if (!rc)
            rc = numbers_of_text(s->own[i], numeric[i].keys, numeric[i].n, err);
        if (!rc && i == 0)
            rc = flags_of_text(s->own[i], flag_model_keys, sizeof flag_model_keys / sizeof flag_model_keys[0], err);
        if (!rc && i == 2)
            rc = zero_degrees_unstated(s->own[i], err);
        if (rc)
            return rc;
        *sections[i] = s->own[i];
    }
    int rc = sequence_of_config(s, err);
    return rc ? rc : gpus_of_config(s, err);
}

/* An error's path at a key the row spelled otherwise names it as written. */
static void name_source_keys(row_parts *s, pp_error *err)
{
    for (int i = 0; i < 4; i++)
        name_source_key(err, section_keys[i].section, s->renamed[i], s->n_renamed[i]);
}

/* The copies read_row made of the row's sections. */
static void free_own(row_parts *s)
{
    cJSON_Delete(s->named_model);
    cJSON_Delete(s->named_cluster);
    for (int i = 0; i < 4; i++)
        cJSON_Delete(s->own[i]);
}

/* The row's sections, each an object; the model may also be a catalog
 * model's name alone ("model": "Llama 2 7B"), read as {"name": that}, and
 * the cluster a GPU's name ("H100") or a catalog cluster's ("selene"), read
 * as {"gpu": its GPU} with that cluster's gpus_per_node. */
static int row_sections(const cJSON *jrow, const pp_jpath *at, const pp_catalog *cat, row_parts *s, pp_error *err)
{
    const char *keys[] = {"model", "cluster", "config", "measured"};
    const cJSON **items[] = {&s->model, &s->cluster, &s->config, &s->measured};
    pp_jpath *paths[] = {&s->model_at, &s->cluster_at, &s->config_at, &s->measured_at};
    int rc = pp_json_expect_object(jrow, at, err);
    for (int i = 0; i < 4 && !rc; i++) {
        *items[i] = pp_json_member(jrow, keys[i]);
        *paths[i] = pp_jpath_key(at, keys[i]);
        if (i == 0 && cJSON_IsString(s->model) && s->model->valuestring[0]) {
            s->named_model = cJSON_CreateObject();
            if (!s->named_model || !cJSON_AddStringToObject(s->named_model, "name", s->model->valuestring))
                return pp_error_set(err, PP_EINTERNAL, at->origin, "out of memory");
            s->model = s->named_model;
            continue;
        }
        if (i == 1 && cJSON_IsString(s->cluster) && s->cluster->valuestring[0]) {
            /* a GPU's name, or a catalog cluster's (its GPU, its nodes' size) */
            const pp_catalog_cluster *cc = pp_catalog_cluster_find(cat, s->cluster->valuestring);
            s->named_cluster = cJSON_CreateObject();
            if (!s->named_cluster ||
                !cJSON_AddStringToObject(s->named_cluster, "gpu", cc ? cc->cluster.gpu.id : s->cluster->valuestring) ||
                (cc && !cJSON_AddNumberToObject(s->named_cluster, "gpus_per_node", cc->cluster.gpus_per_node)))
                return pp_error_set(err, PP_EINTERNAL, at->origin, "out of memory");
            s->cluster = s->named_cluster;
            continue;
        }
        rc = *items[i] ? pp_json_expect_object(*items[i], paths[i], err) : pp_json_missing(at, keys[i], err);
    }
    return rc;
}

/* The row's labels: id, source group and whether its source reports its
 * speed as a framework bug. */
static int read_labels(const cJSON *jrow, const pp_jpath *at, pp_measurement *row, pp_error *err)
{
    char defect[8];
    int rc = row_text(jrow, at, "id", row->id, sizeof row->id, err);
    if (!rc)
        rc = row_text(jrow, at, "source_group", row->group, sizeof row->group, err);
    const cJSON *v = stated(jrow, "software_defect");
    pp_jpath here = pp_jpath_key(at, "software_defect");
    if (!rc && v && !cJSON_IsString(v))
        rc = pp_json_fail_expected(err, &here, "the source's report of the defect (a string)", v);
    snprintf(defect, sizeof defect, "%s", v && cJSON_IsString(v) ? v->valuestring : "");
    row->defect = defect[0] != '\0';
    if (!row->id[0])
        snprintf(row->id, sizeof row->id, "?");
    if (!row->group[0])
        snprintf(row->group, sizeof row->group, "?");
    return rc;
}

/* The row as a problem and a plan, read by problem.c. */
/* A row that does not state its global batch in sequences: its batch in
 * tokens (`global_batch_tokens`, "tokens per step") over the sequence
 * length, which must divide it; else, when it states the gradient
 * accumulation (`grad_accum`, DeepSpeed's gradient_accumulation_steps,
 * Megatron-LM's number of micro-batches), micro_batch x dp x grad_accum. */
static int global_batch_of_row(row_docs *d, const cJSON *cfg, const pp_jpath *at, const pp_catalog *cat,
                               pp_error *err)
{
    int accum = 0;
    double tokens = 0;
    if (stated(cfg, "global_batch"))
        return PP_OK;
    int rc = row_int(cfg, at, "grad_accum", 0, PP_MAX_DEGREE, &accum, err);
    if (!rc)
        rc = row_double(cfg, at, "global_batch_tokens", 0, 1e15, &tokens, err);
    if (rc)
        return rc;
    if (tokens > 0) {
        const cJSON *seq = cJSON_GetObjectItemCaseSensitive(d->model, "seq_len"),
                    *id = cJSON_GetObjectItemCaseSensitive(d->model, "id");
        const pp_catalog_model *cm = cJSON_IsString(id) ? pp_catalog_model_find(cat, id->valuestring) : NULL;
        double s = cJSON_IsNumber(seq) ? seq->valuedouble : cm ? (double)cm->model.seq_len : 0.0;
        if (s > 0 && tokens / s == floor(tokens / s)) {
            put_num(d, d->training, "global_batch", tokens / s);
            return PP_OK;
        }
        pp_jpath here = pp_jpath_key(at, "global_batch_tokens");
        return pp_json_fail(err, &here, "expected a whole number of sequences of %.0f tokens, found %.0f tokens", s,
                            tokens);
    }
    const cJSON *mb = cJSON_GetObjectItemCaseSensitive(d->plan, pp_decisions[PP_DEC_MICRO_BATCH].key),
                *dp = cJSON_GetObjectItemCaseSensitive(d->plan, pp_decisions[PP_DEC_DP].key);
    if (accum > 0 && cJSON_IsNumber(mb) && cJSON_IsNumber(dp))
        put_num(d, d->training, "global_batch", mb->valuedouble * dp->valuedouble * accum);
    return PP_OK;
}

/* DeepSpeed overlaps its gradient reduction with the backward only where
 * told, or at ZeRO-3 (zero/config.py overlap_comm_valid: "overlap_comm =
 * stage == 3" when unset): a row of today's DeepSpeed that does not say is
 * priced so.  (The launch settings of a DeepSpeed plan set overlap_comm
 * where the plan is priced with it.) */
static void deepspeed_overlap_default(row_docs *d, const cJSON *cfg, pp_framework fw)
{
    const cJSON *zero = cJSON_GetObjectItemCaseSensitive(d->plan, pp_decisions[PP_DEC_ZERO].key);
    if (fw != PP_FW_DEEPSPEED || stated(cfg, "dp_overlap") || !cJSON_IsNumber(zero))
        return;
    cJSON_DeleteItemFromObjectCaseSensitive(d->training, "dp_overlap");
    put_bool(d, d->training, "dp_overlap", zero->valuedouble == 3.0);
}

/* Interleaving as Megatron-LM's --num-layers-per-virtual-pipeline-stage
 * gives it, where the row states no virtual_stages: the model's layers over
 * pp stages of chunks that many layers deep, counting the embedding and the
 * loss as a layer each where only that divides (--account-for-embedding-
 * and -loss-in-pipeline-split), else the nearest whole number of chunks. */
static int chunks_of_layers_per_chunk(row_docs *d, const cJSON *cfg, const pp_jpath *at, const pp_problem *prob,
                                      pp_error *err)
{
    const cJSON *per_chunk = NULL, *item;
    cJSON_ArrayForEach(item, cfg)
    {
        char k[64];
        pp_name_key(item->string ? item->string : "", k, sizeof k);
        if (strcmp(k, "numlayerspervirtualpipelinestage") == 0)
            per_chunk = item;
    }
    const cJSON *pp = cJSON_GetObjectItemCaseSensitive(d->plan, pp_decisions[PP_DEC_PP].key);
    if (!per_chunk || stated(cfg, "virtual_stages") || !cJSON_IsNumber(pp) || pp->valuedouble < 2)
        return PP_OK;
    pp_jpath here = pp_jpath_key(at, per_chunk->string);
    int n = 0;
    int rc = pp_json_as_int(per_chunk, &here, 1, PP_MAX_LAYERS, &n, err);
    if (rc)
        return rc;
    double stage_layers = pp->valuedouble * n, L = prob->model.layers;
    double v = fmod(L, stage_layers) == 0.0         ? L / stage_layers
               : fmod(L + 2.0, stage_layers) == 0.0 ? (L + 2.0) / stage_layers
                                                    : fmax(1.0, floor(L / stage_layers + 0.5));
    cJSON_DeleteItemFromObjectCaseSensitive(d->plan, pp_decisions[PP_DEC_VIRTUAL_STAGES].key);
    put_num(d, d->plan, pp_decisions[PP_DEC_VIRTUAL_STAGES].key, v);
    return d->ok ? PP_OK : pp_error_set(err, PP_EINTERNAL, at->origin, "out of memory");
}

static int read_run(const row_parts *s, const pp_jpath *at, const pp_catalog *cat, pp_framework fw,
                    pp_measurement *row, pp_error *err)
{
    char framework[256];
    row_docs d;
    const pp_gpu *gpu = NULL;
    pp_training features;
    memset(&features, 0, sizeof features);
    if (!docs_init(&d)) {
        docs_free(&d);
        return pp_error_set(err, PP_EINTERNAL, at->origin, "out of memory");
    }
    int rc = row_text(s->config, &s->config_at, "framework", framework, sizeof framework, err);
    pp_framework_features(fw, &features);
    if (!rc)
        rc = build_model(&d, s->model, &s->model_at, cat, err);
    if (!rc)
        rc = row_double(s->model, &s->model_at, "params_b", 0, 1e9, &row->params_b, err);
    row->has_model_states = row->params_b > 0 && row->model_states_GB > 0; /* ZeRO Table 1's rows */
    if (!rc)
        rc = build_cluster(&d, s->cluster, &s->cluster_at, cat, s->config, row, &gpu, err);
    if (!rc)
        rc = build_training(&d, s->config, &s->config_at, framework, fw, gpu, row_model_is_moe(d.model, cat), err);
    if (!rc)
        rc = build_plan(&d, s->config, &s->config_at, framework, &features, err);
    if (!rc)
        deepspeed_overlap_default(&d, s->config, fw);
    if (!rc)
        rc = global_batch_of_row(&d, s->config, &s->config_at, cat, err);
    if (!rc) {
        build_constraints(&d);
        if (!d.ok)
            rc = pp_error_set(err, PP_EINTERNAL, at->origin, "out of memory");
    }
    if (!rc) {
        rc = pp_problem_from_json(d.problem, at, NULL, cat, &row->prob, err);
        if (rc)
            name_row_config(at, err);
    }
    if (!rc) {
        if (stated(s->cluster, "efficiency_from")) /* priced with them too, before any fit */
            row->prob.cluster.gpu.eff = pp_catalog_gpu(cat, row->eff_id)->eff;
        rc = chunks_of_layers_per_chunk(&d, s->config, &s->config_at, &row->prob, err);
    }
    if (!rc)
        rc = pp_plan_from_json(d.plan, &s->config_at, &row->prob, &row->plan, err);
    docs_free(&d);
    return rc;
}

/* Read row `index` into *row.  *priced is false for a row that carries
 * nothing the model can price (no time, memory parts, peak or
 * out-of-memory stop: the analytic rows of ZeRO's Table 1, per-layer
 * times) or whose configuration breaks a plan rule: such rows are counted,
 * never guessed.  A row that is malformed is an error naming its path. */
static int read_row(const cJSON *jrow, const pp_jpath *file_at, int index, const pp_catalog *cat,
                    pp_measurement *row, bool *priced, char *why, size_t why_cap, pp_error *err)
{
    pp_jpath at = pp_jpath_index(file_at, index);
    row_parts s;
    memset(&s, 0, sizeof s);
    memset(row, 0, sizeof *row);
    *priced = false;
    row_throughput tput;
    int rc = row_sections(jrow, &at, cat, &s, err);
    if (!rc)
        rc = normalize_sections(&s, err);
    if (!rc)
        rc = read_labels(jrow, &at, row, err);
    if (!rc)
        rc = read_measured(s.measured, &s.measured_at, row, err);
    if (!rc)
        rc = read_throughput(s.measured, &s.measured_at, &tput, err);
    if (rc || !(row->has_time || row->has_memory || row->has_peak || row->has_oom || has_throughput(&tput))) {
        snprintf(why, why_cap,
                 "%.200s: %.100s (id '%.60s'): no step time, throughput, memory or out-of-memory stop in 'measured'",
                 at.origin ? at.origin : "", at.path, row->id);
        if (rc)
            name_source_keys(&s, err);
        free_own(&s);
        return rc;
    }
    /* a run on a GPU the catalog does not hold, or of a model it neither
     * holds nor shapes, is left out, named (a set may hold runs parplan
     * cannot price; the rest are priced) */
    const cJSON *gpu = s.cluster ? pp_json_member(s.cluster, "gpu") : NULL;
    const cJSON *model_name = s.model ? pp_json_member(s.model, "name") : NULL;
    bool shaped = false;
    for (size_t i = 0; s.model && i < sizeof model_shape_keys / sizeof model_shape_keys[0]; i++)
        shaped = shaped || stated(s.model, model_shape_keys[i]);
    if (cJSON_IsString(gpu) && !pp_catalog_gpu_named(cat, gpu->valuestring)) {
        snprintf(why, why_cap, "%.150s: %.100s (id '%.60s'): its GPU '%.60s' is not in the catalog (data/gpus.json)",
                 at.origin ? at.origin : "", at.path, row->id, gpu->valuestring);
        free_own(&s);
        return PP_OK;
    }
    if (!shaped && cJSON_IsString(model_name) && !pp_catalog_model_named(cat, model_name->valuestring)) {
        snprintf(why, why_cap,
                 "%.150s: %.100s (id '%.60s'): its model '%.60s' is not in the catalog (data/models.json) and the row "
                 "gives no shape",
                 at.origin ? at.origin : "", at.path, row->id, model_name->valuestring);
        free_own(&s);
        return PP_OK;
    }
    /* so is a run in a number format its GPU has no tensor cores for (a
     * block-scaled format before Blackwell, bf16 on a V100): the row
     * contradicts the catalog's GPU, and the rest of the set is priced */
    const pp_gpu *g = cJSON_IsString(gpu) ? pp_catalog_gpu_named(cat, gpu->valuestring) : NULL;
    const cJSON *prec = s.config ? pp_json_member(s.config, "precision") : NULL;
    if (g && cJSON_IsString(prec) && !pp_gpu_runs_precision(g, precision_of(prec->valuestring, g))) {
        snprintf(why, why_cap, "%.150s: %.100s (id '%.60s'): its precision '%.40s' is not one its GPU %.40s trains in",
                 at.origin ? at.origin : "", at.path, row->id, prec->valuestring, g->id);
        free_own(&s);
        return PP_OK;
    }
    char framework[256];
    pp_framework later, fw = PP_FW_MEGATRON_CORE;
    rc = row_text(s.config, &s.config_at, "framework", framework, sizeof framework, err);
    if (!rc)
        fw = framework_of(framework, &later);
    /* an undated "Megatron-LM" or "DeepSpeed" is the 2021 entry, unless the
     * row's settings are ones only the later entry runs (context or expert
     * parallelism, fp8, CUDA graphs, a MoE model: Megatron-LM's Megatron-Core
     * models since core_r0.8.0), which the earlier one refuses, does not run
     * (data/frameworks.json) or breaks a rule under: then the row is the
     * later entry's, where that one runs it */
    pp_measurement *alt = NULL;
    if (!rc && later != fw && (alt = malloc(sizeof *alt)) != NULL)
        *alt = *row;
    pp_error rule;
    char no[8];
    if (!rc)
        rc = read_run(&s, &at, cat, fw, row, err);
    bool ran = !rc && pp_fixed_plan_check(&row->prob, &row->plan, &rule) == PP_OK;
    if (alt && !(ran && pp_plan_runnable(&row->prob, &row->plan, no, sizeof no))) {
        pp_error alt_err, alt_rule;
        if (read_run(&s, &at, cat, later, alt, &alt_err) == PP_OK &&
            pp_fixed_plan_check(&alt->prob, &alt->plan, &alt_rule) == PP_OK &&
            pp_plan_runnable(&alt->prob, &alt->plan, no, sizeof no)) {
            *row = *alt;
            rc = PP_OK;
            ran = true;
        }
    }
    free(alt);
    if (rc)
        name_source_keys(&s, err);
    free_own(&s);
    if (!rc && !row->has_time && has_throughput(&tput)) { /* the step time the throughput means */
        row->iteration_s = step_of_throughput(&tput, row);
        row->has_time = row->has_oom ? false : row->iteration_s > 0;
    }
    *priced = ran; /* priced as it ran */
    if (!rc && !*priced)
        snprintf(why, why_cap, "%.150s: %.100s (id '%.60s'): its plan breaks a rule: %.250s", at.origin ? at.origin : "",
                 at.path, row->id, rule.msg);
    return rc;
}

/* ---- files and directories -------------------------------------------------------- */

/* Append the rows of one JSON file to set (rows grown as needed). */
static bool ends_with(const char *s, const char *suffix);

/* JSON Lines (a .jsonl file): one row object a line, blank lines skipped;
 * row i is the i-th object.  An error names its line. */
static int parse_json_lines(char *text, const char *path, cJSON **out, pp_error *err)
{
    *out = cJSON_CreateArray();
    if (!*out)
        return pp_error_set(err, PP_EINTERNAL, path, "out of memory");
    int line_no = 0;
    for (char *line = text; line && *line;) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        line_no++;
        const char *p = line;
        while (*p && isspace((unsigned char)*p))
            p++;
        if (*p) {
            char origin[600];
            snprintf(origin, sizeof origin, "%.500s (line %d)", path, line_no);
            cJSON *row = NULL;
            int rc = pp_json_parse_object(line, origin, &row, err);
            if (rc) {
                cJSON_Delete(*out);
                *out = NULL;
                return rc;
            }
            cJSON_AddItemToArray(*out, row);
        }
        line = next;
    }
    return PP_OK;
}

/* The rows of a file: a JSON array of row objects; an object that holds
 * that array under "rows" or "measurements"; one row object alone; or JSON
 * Lines (.jsonl, or any name when the text is not one JSON value).
 * Every form goes through the limits and syntax checks of every reader. */
static int parse_rows(char *text, const char *path, cJSON **doc, pp_error *err)
{
    if (ends_with(path, ".jsonl"))
        return parse_json_lines(text, path, doc, err);
    int rc = pp_json_parse_array(text, path, doc, err);
    if (!rc)
        return rc;
    cJSON *obj = NULL;
    pp_error obj_err;
    if (pp_json_parse_object(text, path, &obj, &obj_err) != PP_OK) {
        /* rows one object a line under another name than .jsonl (the lines
         * are cut in a copy: the array's error quotes the text) */
        const char *p = text;
        while (isspace((unsigned char)*p))
            p++;
        char *lines = *p == '{' ? strdup(text) : NULL;
        pp_error lines_err;
        int lines_rc = lines ? parse_json_lines(lines, path, doc, &lines_err) : PP_EINPUT;
        free(lines);
        return lines_rc == PP_OK ? PP_OK : rc; /* else the array's error */
    }
    static const char *const holders[] = {"rows", "measurements"};
    for (size_t i = 0; i < sizeof holders / sizeof holders[0]; i++)
        if (cJSON_IsArray(pp_json_member(obj, holders[i]))) {
            *doc = cJSON_DetachItemFromObjectCaseSensitive(obj, holders[i]);
            cJSON_Delete(obj);
            return PP_OK;
        }
    /* one row alone: an object with a row's sections */
    if (pp_json_member(obj, "config") && pp_json_member(obj, "measured")) {
        *doc = cJSON_CreateArray();
        if (!*doc) {
            cJSON_Delete(obj);
            return pp_error_set(err, PP_EINTERNAL, path, "out of memory");
        }
        cJSON_AddItemToArray(*doc, obj);
        return PP_OK;
    }
    cJSON_Delete(obj);
    pp_jpath root = pp_jpath_root(path);
    return pp_json_fail(err, &root, "expected an array of rows, or an object holding one under 'rows' or "
                                    "'measurements', found an object without either");
}

static int load_file(const char *path, const pp_catalog *cat, pp_measurement_set *set, pp_error *err)
{
    char *text = NULL;
    cJSON *doc = NULL;
    int rc = pp_json_read_text(path, &text, err);
    if (!rc)
        rc = parse_rows(text, path, &doc, err);
    free(text);
    if (rc)
        return rc;
    int n = cJSON_GetArraySize(doc);
    pp_measurement *rows = realloc(set->rows, ((size_t)set->n + (size_t)n + 1) * sizeof *rows);
    if (!rows) {
        cJSON_Delete(doc);
        return pp_error_set(err, PP_EINTERNAL, path, "out of memory");
    }
    set->rows = rows;
    pp_jpath file_at = pp_jpath_root(path);
    const cJSON *jrow;
    int index = 0;
    cJSON_ArrayForEach(jrow, doc)
    {
        bool priced = false;
        char why[sizeof set->first_skipped] = "";
        rc = read_row(jrow, &file_at, index++, cat, &set->rows[set->n], &priced, why, sizeof why, err);
        if (rc)
            break;
        if (priced)
            set->n++;
        else {
            if (set->n_skipped++ == 0)
                snprintf(set->first_skipped, sizeof set->first_skipped, "%s", why);
            if (set->n_skipped_listed < PP_SKIPPED_LISTED)
                snprintf(set->skipped[set->n_skipped_listed++], sizeof set->skipped[0], "%s", why);
        }
    }
    cJSON_Delete(doc);
    if (rc == PP_OK)
        set->n_files++;
    return rc;
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
        if (e->d_name[0] == '.' || !(ends_with(e->d_name, ".json") || ends_with(e->d_name, ".jsonl")))
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
