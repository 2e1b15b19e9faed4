/*
 * catalog.c: the data catalogs of data/ (gpus.json, models.json,
 * clusters.json, codecs.json, efficiency.json; formats in data/SCHEMA.md).
 *
 * The catalogs are read once per run into plain arrays and checked as
 * strictly as problems are: unknown keys, duplicate ids, dangling references
 * (a cluster's GPU, a GPU's efficiency_from) and out-of-range figures are
 * errors naming the file and the JSON path.  Every entry must carry its
 * `source`, because every number parplan prints should be traceable.
 *
 * Efficiency parameters are layered: the built-in values of
 * pp_efficiency_init(), then efficiency.json if present, then whatever
 * calibration file the user applies with pp_catalog_apply_efficiency().  In a
 * file, a GPU takes its own entry, else that of its efficiency_from GPU, else
 * the file's "default"; an entry's missing keys come from the file's default,
 * whose missing keys come from what was in force before.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "catalog.h"
#include "frameworks_json.h"
#include "json_util.h"
#include "shapes_json.h"

#ifndef PARPLAN_SOURCE_DATA_DIR
#define PARPLAN_SOURCE_DATA_DIR "data"
#endif
#ifndef PARPLAN_INSTALL_DATA_DIR
#define PARPLAN_INSTALL_DATA_DIR "/usr/local/share/parplan"
#endif

#define MAX_CATALOG_ENTRIES 10000
#define MAX_NODES 10000000L

static const char *const gpus_file_keys[] = {"gpus", "description", "source", NULL};
static const char *const gpu_entry_keys[] = {"id",          "name",          "peak_tflops",
                                             "memory_gib",  "hbm_GBps",      "nvlink_GBps",
                                             "network_Gbps", "gpus_per_node", "system",
                                             "usd_per_gpu_hour_example", "efficiency_from", "efficiency_borrow", "source",
                                             "notes",       "sm_count",      "gpus_per_nic_switch", "calibration_family", "aliases",
                                             "gpus_per_host", "nvls_allreduce_fraction", "nccl_tree_channel_GBps",
                                             "nccl_nvls_tree_channel_GBps", "sfu_exp_tops", NULL};
static const char *const models_file_keys[] = {"models", "description", "source", NULL};
static const char *const model_entry_keys[] = {"id",       "name",       "layers",    "hidden",         "heads",
                                               "kv_heads", "head_dim",   "ffn_hidden", "gated_mlp", "tie_embeddings",
                                               "vocab",    "seq_len",    "params_b",  "source",         "notes",
                                               "loss_token_fraction", "aliases", "sliding_window",
                                               "window_attn_skip_freq", "active_params_b", PP_MODEL_MOE_KEYS,
                                               PP_MODEL_ARCH_KEYS, NULL};
static const char *const clusters_file_keys[] = {"clusters", "description", "source", NULL};
static const char *const cluster_entry_keys[] = {"id",    "name",           "gpu",
                                                 "gpus_per_node", "nodes", "intra_node_GBps",
                                                 "inter_node_Gbps", "source", "notes", NULL};
static const char *const codecs_file_keys[] = {"codecs", "compress_min_bytes", "chunk_bytes", "description", "source",
                                               NULL};
static const char *const codec_entry_keys[] = {"id",       "name",          "kind",            "bits_per_value",
                                               "ratio",    "ratio_16bit",   "compress_GBps",   "decompress_GBps",
                                               "rel_error", "source",       "notes",           NULL};
static const char *const bounds_file_keys[] = {"description", "source", "every_family", "families", NULL};
static const char *const family_entry_keys[] = {"id", "name", "description", "bounds", "union_of_families", "source",
                                                NULL};
static const char *const bound_keys[] = {"lo", "hi", "source", NULL};
static const char *const efficiency_file_keys[] = {"source",
                                                   "description",
                                                   "gpus",
                                                   "default",
                                                   "cross_validated_error",
                                                   "cross_validated_group_bias_rms",
                                                   NULL};

/* ---- efficiency parameters -------------------------------------------------- */

/* THE table of efficiency parameters (catalog.h): the reader below, the
 * built-in defaults, `parplan calibrate`'s fits and the efficiency.json it
 * writes, calibration-bounds.json and the accuracy report all walk it.  Its
 * order is the files' order. */
#define EFF(field, fraction, def, unit, meaning) {#field, unit, meaning, offsetof(pp_efficiency, field), fraction, def}
const pp_eff_param pp_eff_params[PP_EFF_PARAM_COUNT] = {
    [PP_EFF_GEMM] = EFF(gemm, true, 0.75, "fraction of the dense tensor-core peak", "large dense matrix multiplies"),
    [PP_EFF_ATTENTION] = EFF(attention, true, 0.5, "fraction of the dense tensor-core peak",
                             "the attention core (QK^T, softmax V)"),
    [PP_EFF_HBM] = EFF(hbm, true, 0.7, "fraction of the HBM bandwidth", "element-wise kernels"),
    [PP_EFF_NVLINK] = EFF(nvlink, true, 0.75, "fraction of NVLink per GPU, one direction",
                          "collective bus bandwidth inside a node"),
    [PP_EFF_NETWORK] = EFF(network, true, 0.8, "fraction of the NIC rate per GPU, one direction",
                           "collective bus bandwidth across nodes"),
    [PP_EFF_KERNEL_US] = EFF(kernel_us, false, 5, "microseconds", "fixed cost of a kernel launch (the small-shape floor)"),
    [PP_EFF_NVLINK_LATENCY_US] = EFF(nvlink_latency_us, false, 5, "microseconds",
                                     "latency of one NVLink hop of a collective"),
    [PP_EFF_NETWORK_LATENCY_US] = EFF(network_latency_us, false, 10, "microseconds",
                                      "latency of one network hop of a collective"),
    [PP_EFF_GEMM_K_OVERHEAD] = EFF(gemm_k_overhead, false, 64, "elements of K",
                                   "a GEMM's pipeline fill and epilogue: it runs at K / (K + this) of its rate"),
    [PP_EFF_CROSS_RAIL] = EFF(cross_rail, true, 1.0, "fraction of the network rate",
                              "rings that leave a node on another NIC rail than they enter it"),
    [PP_EFF_GEMM_MISALIGNED] = EFF(gemm_misaligned, true, 0.5, "fraction of the aligned rate",
                                   "a GEMM whose K or N is not a multiple of 8"),
    [PP_EFF_COMPUTE_SCALE] = EFF(compute_scale, false, 1.0, "times the fitted compute time",
                                 "a software stack's level the bounded physics leaves: every kernel's FLOP and HBM "
                                 "time"),
};
#undef EFF

const char *pp_efficiency_key(int i)
{
    return i >= 0 && i < PP_EFF_PARAM_COUNT ? pp_eff_params[i].key : "?";
}

double *pp_efficiency_field(pp_efficiency *e, int i)
{
    return (double *)(void *)((char *)e + pp_eff_params[i].offset);
}

double pp_efficiency_value(const pp_efficiency *e, int i)
{
    return i >= 0 && i < PP_EFF_PARAM_COUNT ? *(const double *)(const void *)((const char *)e + pp_eff_params[i].offset)
                                            : 0.0;
}

void pp_efficiency_init(pp_efficiency *e)
{
    memset(e, 0, sizeof *e);
    for (int i = 0; i < PP_EFF_PARAM_COUNT; i++)
        *pp_efficiency_field(e, i) = pp_eff_params[i].def;
    snprintf(e->source, sizeof e->source, "built-in defaults (pp_efficiency_init)");
}

/* The parameters' keys, NULL-terminated (a file's allowed keys). */
static void eff_keys(const char *keys[PP_EFF_PARAM_COUNT + 1])
{
    for (int i = 0; i < PP_EFF_PARAM_COUNT; i++)
        keys[i] = pp_eff_params[i].key;
    keys[PP_EFF_PARAM_COUNT] = NULL;
}

/* Parameter i of obj (optional) into *v, in the parameter's range. */
static int read_eff_value(const cJSON *obj, const pp_jpath *at, const char *key, int i, double *v, pp_error *err)
{
    if (i == PP_EFF_COMPUTE_SCALE) /* a multiplier: zero would make every kernel free */
        return pp_json_positive(obj, at, key, PP_OPTIONAL, 10.0, v, err);
    return pp_eff_params[i].fraction ? pp_json_positive(obj, at, key, PP_OPTIONAL, 1.0, v, err)
                                     : pp_json_double(obj, at, key, PP_OPTIONAL, 0, 1e6, v, err);
}

/* An object keyed by parameters (an efficiency entry, a set of bounds):
 * no other key. */
static int expect_param_object(const cJSON *obj, const pp_jpath *at, pp_error *err)
{
    const char *keys[PP_EFF_PARAM_COUNT + 1];
    eff_keys(keys);
    int rc = pp_json_expect_object(obj, at, err);
    return rc ? rc : pp_json_check_keys(obj, at, keys, err);
}

/* One entry of an efficiency file, over base; source names the entry. */
static int read_eff_entry(const cJSON *obj, const pp_jpath *at, const pp_efficiency *base, const char *source,
                          pp_efficiency *out, pp_error *err)
{
    int rc = expect_param_object(obj, at, err);
    *out = *base;
    for (int i = 0; i < PP_EFF_PARAM_COUNT && !rc; i++)
        rc = read_eff_value(obj, at, pp_eff_params[i].key, i, pp_efficiency_field(out, i), err);
    snprintf(out->source, sizeof out->source, "%s", source);
    return rc;
}

/* ---- lookups ------------------------------------------------------------------ */

int pp_catalog_count(const pp_catalog *cat, pp_catalog_kind kind)
{
    if (!cat)
        return 0;
    switch (kind) {
    case PP_CATALOG_GPUS: return cat->n_gpus;
    case PP_CATALOG_MODELS: return cat->n_models;
    case PP_CATALOG_CLUSTERS: return cat->n_clusters;
    case PP_CATALOG_CODECS: return cat->n_codecs;
    }
    return 0;
}

const char *pp_catalog_id(const pp_catalog *cat, pp_catalog_kind kind, int i)
{
    if (i < 0 || i >= pp_catalog_count(cat, kind))
        return NULL;
    switch (kind) {
    case PP_CATALOG_GPUS: return cat->gpus[i].id;
    case PP_CATALOG_MODELS: return cat->models[i].id;
    case PP_CATALOG_CLUSTERS: return cat->clusters[i].id;
    case PP_CATALOG_CODECS: return cat->codecs[i].id;
    }
    return NULL;
}

static int find_id(const pp_catalog *cat, pp_catalog_kind kind, const char *id)
{
    int n = pp_catalog_count(cat, kind);
    for (int i = 0; i < n; i++)
        if (strcmp(pp_catalog_id(cat, kind, i), id) == 0)
            return i;
    return -1;
}

const pp_gpu *pp_catalog_gpu(const pp_catalog *cat, const char *id)
{
    int i = find_id(cat, PP_CATALOG_GPUS, id);
    return i < 0 ? NULL : &cat->gpus[i];
}

/* The maker's and the product line's words, and the system a GPU is sold in
 * (a DGX or HGX H100 is an H100): none tells GPUs apart. */
static const char *const gpu_noise[] = {"nvidia", "tesla", "amd", "instinct", "dgx", "hgx", NULL};
static const char *const model_noise[] = {"meta", NULL};

/* The next word of a name from *p on (a run of letters and digits) that is
 * none of the noise words, or NULL at the end; *len its length. */
static const char *next_word(const char **p, const char *const *noise, size_t *len)
{
    for (;;) {
        while (**p && !isalnum((unsigned char)**p))
            (*p)++;
        if (!**p)
            return NULL;
        const char *w = *p;
        while (**p && isalnum((unsigned char)**p))
            (*p)++;
        *len = (size_t)(*p - w);
        bool skip = false;
        for (size_t k = 0; noise[k] && !skip; k++)
            skip = *len == strlen(noise[k]) && strncasecmp(w, noise[k], *len) == 0;
        if (!skip)
            return w;
    }
}

/* A name as people write it, reduced to what tells names apart: its
 * letters and digits in lower case, without the words of noise (a GPU's
 * vendor and product line, "NVIDIA", "Tesla", "AMD", "Instinct"; a
 * model's publisher, "Meta"), so "NVIDIA H100 SXM", "h100-sxm" and
 * "H100_SXM" are one name, as "Llama-3-8B" and "Meta Llama 3 8B" are.
 * Into out (cap bytes). */
static void name_key(const char *name, const char *const *noise, char *out, size_t cap)
{
    size_t n = 0, len;
    const char *p = name, *w;
    while (n + 1 < cap && (w = next_word(&p, noise, &len)))
        for (size_t k = 0; k < len && n + 1 < cap; k++)
            out[n++] = (char)tolower((unsigned char)w[k]);
    out[n] = '\0';
}

/* Whether two names are one (name_key's), neither empty. */
static bool same_name(const char *a, const char *b, const char *const *noise)
{
    char ka[PP_NAME_LEN + 1], kb[PP_NAME_LEN + 1];
    name_key(a, noise, ka, sizeof ka);
    name_key(b, noise, kb, sizeof kb);
    return ka[0] && strcmp(ka, kb) == 0;
}

static bool same_gpu_name(const char *a, const char *b)
{
    return same_name(a, b, gpu_noise);
}

/* Whether GPU i goes by name: its id, name or an alias, without case. */
static bool gpu_has_name(const pp_catalog *cat, int i, const char *name)
{
    if (same_gpu_name(cat->gpus[i].id, name) || same_gpu_name(cat->gpus[i].name, name))
        return true;
    for (int a = 0; cat->gpu_aliases && a < PP_MAX_ALIASES && cat->gpu_aliases[i][a][0]; a++)
        if (same_gpu_name(cat->gpu_aliases[i][a], name))
            return true;
    return false;
}

/* The words of a name (runs of letters and digits, in lower case, without
 * the GPU's noise words), at most PP_NAME_WORDS of PP_NAME_WORD_LEN; a
 * memory size written with a bare G ("A100-80G") is its GB. */
#define PP_NAME_WORDS 12
#define PP_NAME_WORD_LEN 24
static int gpu_name_words(const char *name, char words[][PP_NAME_WORD_LEN])
{
    int n = 0;
    size_t len;
    const char *p = name, *w;
    while (n < PP_NAME_WORDS && (w = next_word(&p, gpu_noise, &len))) {
        if (len + 1 >= PP_NAME_WORD_LEN)
            continue;
        bool size = len >= 2;
        for (size_t k = 0; k < len; k++) {
            words[n][k] = (char)tolower((unsigned char)w[k]);
            size = size && (k + 1 == len ? words[n][k] == 'g' : isdigit((unsigned char)w[k]) != 0);
        }
        if (size)
            words[n][len++] = 'b';
        words[n++][len] = '\0';
    }
    return n;
}

/* Whether every word of the query is a word of name and, with exact, the
 * name has no other word. */
static bool words_within(char q[][PP_NAME_WORD_LEN], int nq, const char *name, bool exact)
{
    char w[PP_NAME_WORDS][PP_NAME_WORD_LEN];
    int nw = gpu_name_words(name, w);
    if (exact && nw != nq)
        return false;
    for (int i = 0; i < nq; i++) {
        bool found = false;
        for (int j = 0; j < nw && !found; j++)
            found = strcmp(q[i], w[j]) == 0;
        if (!found)
            return false;
    }
    return nq > 0;
}

/* Whether one of GPU i's names (id, name, aliases) holds the query's words
 * (with exact, no other word). */
static bool gpu_name_holds(const pp_catalog *cat, int i, char q[][PP_NAME_WORD_LEN], int nq, bool exact)
{
    if (words_within(q, nq, cat->gpus[i].id, exact) || words_within(q, nq, cat->gpus[i].name, exact))
        return true;
    for (int a = 0; cat->gpu_aliases && a < PP_MAX_ALIASES && cat->gpu_aliases[i][a][0]; a++)
        if (words_within(q, nq, cat->gpu_aliases[i][a], exact))
            return true;
    return false;
}

/* exact: one of GPU i's names has exactly the query's words; else every
 * word of the query is a word of one of its names ("H100 80GB SXM": the
 * name's 80GB, the alias H100-SXM's SXM). */
static bool gpu_names_hold(const pp_catalog *cat, int i, char q[][PP_NAME_WORD_LEN], int nq, bool exact)
{
    if (exact)
        return gpu_name_holds(cat, i, q, nq, true);
    for (int k = 0; k < nq; k++)
        if (!gpu_name_holds(cat, i, &q[k], 1, false))
            return false;
    return nq > 0;
}

/* The one GPU with a name holding the query's words (exact: no other word
 * either), -1 for none or several. */
static int gpu_by_words(const pp_catalog *cat, char q[][PP_NAME_WORD_LEN], int nq, bool exact, int *matches)
{
    int found = -1;
    *matches = 0;
    for (int i = 0; i < cat->n_gpus; i++)
        if (gpu_names_hold(cat, i, q, nq, exact)) {
            found = i;
            (*matches)++;
        }
    return *matches == 1 ? found : -1;
}

/* A GPU by its id, else by a name it goes by (gpu_has_name), else by the
 * words of a name in any order: the GPU with a name of exactly those words
 * ("80GB A100" is "A100-80GB", not "A100 80GB PCIe"), else the one GPU with
 * them all in one of its names ("H100 80GB SXM5", "B200 180GB"); two that
 * do make no match. */
const pp_gpu *pp_catalog_gpu_named(const pp_catalog *cat, const char *name)
{
    const pp_gpu *g = pp_catalog_gpu(cat, name);
    for (int i = 0; !g && name[0] && i < cat->n_gpus; i++)
        if (gpu_has_name(cat, i, name))
            g = &cat->gpus[i];
    if (g || !name[0])
        return g;
    char q[PP_NAME_WORDS][PP_NAME_WORD_LEN];
    int nq = gpu_name_words(name, q), matches;
    int found = gpu_by_words(cat, q, nq, true, &matches);
    if (found < 0 && matches == 0)
        found = gpu_by_words(cat, q, nq, false, &matches);
    return found >= 0 ? &cat->gpus[found] : NULL;
}

const pp_catalog_model *pp_catalog_model_find(const pp_catalog *cat, const char *id)
{
    int i = find_id(cat, PP_CATALOG_MODELS, id);
    return i < 0 ? NULL : &cat->models[i];
}

static bool model_has_key(const pp_catalog_model *cm, const char *key)
{
    char k[PP_NAME_LEN + 1];
    name_key(cm->id, model_noise, k, sizeof k);
    if (strcmp(k, key) == 0)
        return true;
    name_key(cm->model.name, model_noise, k, sizeof k);
    if (strcmp(k, key) == 0)
        return true;
    for (int a = 0; a < PP_MAX_ALIASES && cm->aliases[a][0]; a++) {
        name_key(cm->aliases[a], model_noise, k, sizeof k);
        if (strcmp(k, key) == 0)
            return true;
    }
    return false;
}

/* Words a model's name may end with that do not change its shape: weights
 * in Hugging Face format ("-hf"), a fine-tuned release ("-Instruct",
 * "-chat", "-it"), the pretrained one ("-Base"), and a release version
 * ("-v0.1", read as the words "v0" and "1"). */
static bool shape_neutral_word(const char *w, size_t len, const char *prev, size_t prev_len)
{
    static const char *const words[] = {"hf", "instruct", "chat", "it", "base", NULL};
    for (int k = 0; words[k]; k++)
        if (len == strlen(words[k]) && strncasecmp(w, words[k], len) == 0)
            return true;
    bool digits = len > 0, version = len > 1 && tolower((unsigned char)w[0]) == 'v';
    for (size_t k = 0; k < len; k++)
        digits = digits && isdigit((unsigned char)w[k]);
    for (size_t k = 1; version && k < len; k++)
        version = isdigit((unsigned char)w[k]);
    bool prev_version = prev && prev_len > 1 && tolower((unsigned char)prev[0]) == 'v';
    for (size_t k = 1; prev_version && k < prev_len; k++)
        prev_version = isdigit((unsigned char)prev[k]);
    return version || (digits && prev_version);
}

/* A parameter count as a name's last word writes it ("671B", "1.5b",
 * "1T", "350M"), in billions; 0 for any other word. */
static double params_word_b(const char *w, size_t len)
{
    size_t k = 0;
    bool digit = false;
    for (; k < len && (isdigit((unsigned char)w[k]) || w[k] == '.'); k++)
        digit = digit || isdigit((unsigned char)w[k]);
    if (!digit || k + 1 != len)
        return 0.0;
    double unit = tolower((unsigned char)w[k]) == 'b' ? 1.0 : tolower((unsigned char)w[k]) == 't' ? 1e3
                  : tolower((unsigned char)w[k]) == 'm' ? 1e-3 : 0.0;
    return unit * strtod(w, NULL);
}

/* A model of the catalog by its id, its name or an alias, as people write
 * them (name_key), after a Hugging Face organisation ("meta-llama/") and
 * any shape-neutral words at its end; a last word that is the model's
 * parameter count within 10 % ("DeepSeek V3 671B") names it too. */
const pp_catalog_model *pp_catalog_model_named(const pp_catalog *cat, const char *name)
{
    const pp_catalog_model *m = pp_catalog_model_find(cat, name);
    if (m || !name[0])
        return m;
    const char *slash = strrchr(name, '/');
    char trimmed[PP_NAME_LEN + 1];
    snprintf(trimmed, sizeof trimmed, "%s", slash ? slash + 1 : name);
    for (;;) {
        char key[PP_NAME_LEN + 1];
        name_key(trimmed, model_noise, key, sizeof key);
        for (int i = 0; key[0] && i < cat->n_models; i++)
            if (model_has_key(&cat->models[i], key))
                return &cat->models[i];
        /* the last word, and the one before it */
        char *end = trimmed + strlen(trimmed);
        while (end > trimmed && !isalnum((unsigned char)end[-1]))
            end--;
        char *w = end;
        while (w > trimmed && isalnum((unsigned char)w[-1]))
            w--;
        char *pe = w;
        while (pe > trimmed && !isalnum((unsigned char)pe[-1]))
            pe--;
        char *pw = pe;
        while (pw > trimmed && isalnum((unsigned char)pw[-1]))
            pw--;
        if (w == trimmed)
            return NULL;
        double size_b = params_word_b(w, (size_t)(end - w));
        if (size_b > 0.0) { /* "DeepSeek V3 671B": the rest names a model of that size */
            char rest[PP_NAME_LEN + 1];
            snprintf(rest, sizeof rest, "%.*s", (int)(w - trimmed), trimmed);
            name_key(rest, model_noise, key, sizeof key);
            for (int i = 0; key[0] && i < cat->n_models; i++)
                if (model_has_key(&cat->models[i], key) && cat->models[i].params_b > 0.0 &&
                    fabs(cat->models[i].params_b / size_b - 1.0) <= 0.1)
                    return &cat->models[i];
        }
        if (!shape_neutral_word(w, (size_t)(end - w), pe > pw ? pw : NULL, (size_t)(pe - pw)))
            return NULL;
        *w = '\0';
    }
}

const pp_catalog_cluster *pp_catalog_cluster_find(const pp_catalog *cat, const char *id)
{
    int i = find_id(cat, PP_CATALOG_CLUSTERS, id);
    return i < 0 ? NULL : &cat->clusters[i];
}

void pp_cluster_from_gpu(const pp_gpu *gpu, pp_cluster *c)
{
    c->gpu = *gpu;
    c->gpus_per_node = gpu->gpus_per_node;
    c->gpus_per_host = gpu->gpus_per_host;
    c->intra_node_GBps = gpu->nvlink_GBps;
    c->inter_node_Gbps = gpu->network_Gbps;
    c->gpus_per_nic_switch = gpu->gpus_per_nic_switch;
}

int pp_catalog_codec_index(const pp_catalog *cat, const char *id)
{
    return find_id(cat, PP_CATALOG_CODECS, id);
}

/* ---- messages naming catalog ids ---------------------------------------------- */

typedef struct id_list {
    const pp_catalog *cat;
    pp_catalog_kind kind;
} id_list;

static const char *id_list_at(const void *ctx, int i)
{
    const id_list *l = ctx;
    return pp_catalog_id(l->cat, l->kind, i);
}

static const char *kind_noun(pp_catalog_kind kind)
{
    switch (kind) {
    case PP_CATALOG_GPUS: return "a GPU id of gpus.json";
    case PP_CATALOG_MODELS: return "a model id of models.json";
    case PP_CATALOG_CLUSTERS: return "a cluster id of clusters.json";
    case PP_CATALOG_CODECS: return "a codec id of codecs.json";
    }
    return "an id";
}

int pp_catalog_fail_unknown(const pp_catalog *cat, pp_catalog_kind kind, const char *id, const pp_jpath *at,
                            pp_error *err)
{
    id_list l = {cat, kind};
    int n = pp_catalog_count(cat, kind);
    char names[600], hint[96], quoted[64];
    pp_name_list(id_list_at, &l, n, names, sizeof names);
    pp_did_you_mean(id, id_list_at, &l, n, hint, sizeof hint);
    pp_json_quote(id, quoted, sizeof quoted);
    return pp_json_fail(err, at, "expected %s (%s), found %s%s", kind_noun(kind), names, quoted, hint);
}

/* ---- reading catalog files ----------------------------------------------------- */

/* Load data_dir/name into *doc; an absent optional file leaves *doc NULL. */
static int open_catalog_file(const pp_catalog *cat, const char *name, bool required, char *path, size_t cap,
                             cJSON **doc, pp_error *err)
{
    *doc = NULL;
    snprintf(path, cap, "%s/%s", cat->data_dir, name);
    struct stat st;
    if (!required && stat(path, &st) != 0 && errno == ENOENT)
        return PP_OK;
    return pp_json_load_object(path, doc, err);
}

/* doc[key]: a non-empty list of at most max objects. */
static int entry_list(const cJSON *doc, const pp_jpath *root, const char *key, int max, const cJSON **list,
                      pp_error *err)
{
    *list = pp_json_member(doc, key);
    pp_jpath at = pp_jpath_key(root, key);
    if (!*list)
        return pp_json_missing(root, key, err);
    int rc = pp_json_expect_array(*list, &at, err);
    if (rc)
        return rc;
    int n = cJSON_GetArraySize(*list);
    if (n < 1 || n > max)
        return pp_json_fail(err, &at, "expected a list of 1..%d entries, found %d", max, n);
    return PP_OK;
}


/* The id of entry i: non-empty, unique among the first i. */
static int read_entry_id(const cJSON *obj, const pp_jpath *at, const pp_catalog *cat, pp_catalog_kind kind, int i,
                         char *id, pp_error *err)
{
    pp_jpath here = pp_jpath_key(at, "id");
    int rc = pp_json_string(obj, at, "id", PP_REQUIRED, id, PP_ID_LEN, err);
    if (rc)
        return rc;
    if (!id[0])
        return pp_json_fail(err, &here, "expected a non-empty id, found ''");
    for (int j = 0; j < i; j++)
        if (strcmp(pp_catalog_id(cat, kind, j), id) == 0)
            return pp_json_fail(err, &here, "expected a unique id, found '%s' again (also entry %d)", id, j);
    return PP_OK;
}

/* Check an entry's shape: an object, with only allowed keys and a source. */
static int check_entry(const cJSON *obj, const pp_jpath *at, const char *const *keys, pp_error *err)
{
    int rc = pp_json_expect_object(obj, at, err);
    if (!rc)
        rc = pp_json_check_keys(obj, at, keys, err);
    return rc ? rc : pp_json_check_source(obj, at, err);
}

/* ---- gpus.json ----------------------------------------------------------------- */

/* "aliases": the other names people give the GPU or model (measurement
 * rows' free text), a list of at most PP_MAX_ALIASES non-empty strings. */
static int read_aliases(const cJSON *obj, const pp_jpath *at, pp_aliases aliases, pp_error *err)
{
    const cJSON *list = pp_json_member(obj, "aliases");
    pp_jpath here = pp_jpath_key(at, "aliases");
    if (!list)
        return PP_OK;
    int n = cJSON_GetArraySize(list), rc = pp_json_expect_array(list, &here, err);
    if (!rc && n > PP_MAX_ALIASES)
        rc = pp_json_fail(err, &here, "expected at most %d names, found %d", PP_MAX_ALIASES, n);
    for (int a = 0; a < n && !rc; a++) {
        pp_jpath el = pp_jpath_index(&here, a);
        rc = pp_json_as_string(cJSON_GetArrayItem(list, a), &el, aliases[a], PP_ID_LEN, err);
        if (!rc && !aliases[a][0])
            rc = pp_json_fail(err, &el, "expected a non-empty name, found ''");
    }
    return rc;
}

/* efficiency_borrow: {"gpu": donor id, "factor": (0, 1.5], "source": why,
 * optionally "nvlink_factor": (0, 1.5] with its "nvlink_source"}, or a list
 * of 1 to PP_MAX_BORROW of them, nearest first. */
static const char *const borrow_keys[] = {"gpu", "factor", "source", "nvlink_factor", "nvlink_source", NULL};

static int read_donor_source(const cJSON *item, const pp_jpath *here, const char *key, const char *what,
                             pp_error *err)
{
    const cJSON *source = pp_json_member(item, key);
    if (cJSON_IsString(source) && source->valuestring[0])
        return PP_OK;
    pp_jpath src = pp_jpath_key(here, key);
    return pp_json_fail(err, &src, "expected the source of the %s as a non-empty string (every figure of data/ cites "
                                   "one)", what);
}

static int read_gpu_donor(const cJSON *item, const pp_jpath *here, pp_eff_donor *d, pp_error *err)
{
    int rc = pp_json_expect_object(item, here, err);
    if (!rc)
        rc = pp_json_check_keys(item, here, borrow_keys, err);
    if (!rc)
        rc = pp_json_string(item, here, "gpu", PP_REQUIRED, d->gpu, sizeof d->gpu, err);
    if (!rc)
        rc = pp_json_double(item, here, "factor", PP_REQUIRED, 0.01, 1.5, &d->factor, err);
    if (!rc)
        rc = read_donor_source(item, here, "source", "factor", err);
    d->nvlink_factor = 1.0;
    if (!rc)
        rc = pp_json_double(item, here, "nvlink_factor", PP_OPTIONAL, 0.01, 1.5, &d->nvlink_factor, err);
    if (!rc && pp_json_member(item, "nvlink_factor"))
        rc = read_donor_source(item, here, "nvlink_source", "nvlink_factor", err);
    else if (!rc && pp_json_member(item, "nvlink_source")) {
        pp_jpath src = pp_jpath_key(here, "nvlink_source");
        rc = pp_json_fail(err, &src, "expected nvlink_source only beside an nvlink_factor, found no nvlink_factor");
    }
    return rc;
}

static int read_gpu_borrow(const cJSON *obj, const pp_jpath *at, pp_eff_borrow *b, pp_error *err)
{
    const cJSON *item = pp_json_member(obj, "efficiency_borrow");
    pp_jpath here = pp_jpath_key(at, "efficiency_borrow");
    b->n = 0;
    if (!item)
        return PP_OK;
    if (!cJSON_IsArray(item)) {
        b->n = 1;
        return read_gpu_donor(item, &here, &b->donor[0], err);
    }
    int n = cJSON_GetArraySize(item);
    if (n < 1 || n > PP_MAX_BORROW)
        return pp_json_fail(err, &here, "expected 1 to %d donors, found %d", PP_MAX_BORROW, n);
    int rc = PP_OK;
    for (int k = 0; k < n && !rc; k++) {
        pp_jpath el = pp_jpath_index(&here, k);
        rc = read_gpu_donor(cJSON_GetArrayItem(item, k), &el, &b->donor[k], err);
    }
    b->n = rc ? 0 : n;
    return rc;
}

/* nccl_tree_channel_GBps, nccl_nvls_tree_channel_GBps: [2 nodes, more
 * nodes], each in (0, 1000] GB/s. */
static int read_tree_channels(const cJSON *obj, const pp_jpath *at, const char *key, double *out, pp_error *err)
{
    const cJSON *item = pp_json_member(obj, key);
    if (!item)
        return PP_OK;
    pp_jpath here = pp_jpath_key(at, key);
    if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != 2)
        return pp_json_fail_expected(err, &here, "an array of two bandwidths in GB/s (two nodes, more nodes)", item);
    for (int k = 0; k < 2; k++) {
        pp_jpath el = pp_jpath_index(&here, k);
        int rc = pp_json_as_positive(cJSON_GetArrayItem(item, k), &el, 1000.0, &out[k], err);
        if (rc)
            return rc;
    }
    return PP_OK;
}

static int read_gpu_entry(pp_catalog *cat, const cJSON *obj, const pp_jpath *at, int i, pp_error *err)
{
    pp_gpu *g = &cat->gpus[i];
    char system[PP_NAME_LEN];
    memset(g, 0, sizeof *g);
    pp_efficiency_init(&g->eff);
    int rc = check_entry(obj, at, gpu_entry_keys, err);
    if (!rc)
        rc = read_entry_id(obj, at, cat, PP_CATALOG_GPUS, i, g->id, err);
    if (!rc)
        rc = pp_gpu_read(obj, at, PP_REQUIRED, PP_PREC_BF16, g, err);
    if (!rc)
        rc = pp_json_string(obj, at, "system", PP_OPTIONAL, system, sizeof system, err);
    if (!rc)
        rc = pp_json_double(obj, at, "usd_per_gpu_hour_example", PP_OPTIONAL, 0, 1e4, &g->usd_per_gpu_hour, err);
    if (!rc)
        rc = pp_json_double(obj, at, "nvls_allreduce_fraction", PP_OPTIONAL, 0, 1, &g->nvls_allreduce_fraction, err);
    if (!rc)
        rc = read_tree_channels(obj, at, "nccl_tree_channel_GBps", g->nccl_tree_channel_GBps, err);
    if (!rc)
        rc = read_tree_channels(obj, at, "nccl_nvls_tree_channel_GBps", g->nccl_nvls_tree_channel_GBps, err);
    if (!rc)
        rc = pp_json_string(obj, at, "efficiency_from", PP_OPTIONAL, cat->gpu_efficiency_from[i], PP_ID_LEN, err);
    if (!rc)
        rc = pp_json_string(obj, at, "calibration_family", PP_REQUIRED, cat->gpu_calibration_family[i], PP_ID_LEN, err);
    if (!rc)
        rc = read_gpu_borrow(obj, at, &cat->gpu_borrow[i], err);
    return rc ? rc : read_aliases(obj, at, cat->gpu_aliases[i], err);
}

/* No name may mean two GPUs: an alias is no other GPU's id, name or alias. */
static int check_gpu_aliases(const pp_catalog *cat, const pp_jpath *list_at, pp_error *err)
{
    for (int i = 0; i < cat->n_gpus; i++)
        for (int a = 0; a < PP_MAX_ALIASES && cat->gpu_aliases[i][a][0]; a++)
            for (int j = 0; j < cat->n_gpus; j++)
                if (j != i && gpu_has_name(cat, j, cat->gpu_aliases[i][a])) {
                    pp_jpath at = pp_jpath_index(list_at, i);
                    pp_jpath list = pp_jpath_key(&at, "aliases");
                    pp_jpath here = pp_jpath_index(&list, a);
                    return pp_json_fail(err, &here, "expected a name no other GPU goes by, found '%s' (also '%s')",
                                        cat->gpu_aliases[i][a], cat->gpus[j].id);
                }
    return PP_OK;
}

/* efficiency_from must name a GPU of the catalog; so must each donor of
 * efficiency_borrow, another GPU, and one of them at least borrows from
 * nobody (the one that lends when no nearer donor has a fit of its own: a
 * donor that borrows itself lends only its own fit, so no chain forms); a
 * GPU has efficiency_from or efficiency_borrow, not both. */
static int check_efficiency_from(const pp_catalog *cat, const pp_jpath *list_at, pp_error *err)
{
    for (int i = 0; i < cat->n_gpus; i++) {
        const char *from = cat->gpu_efficiency_from[i];
        const pp_eff_borrow *b = &cat->gpu_borrow[i];
        pp_jpath at = pp_jpath_index(list_at, i);
        if (from[0] && !pp_catalog_gpu(cat, from)) {
            pp_jpath here = pp_jpath_key(&at, "efficiency_from");
            return pp_catalog_fail_unknown(cat, PP_CATALOG_GPUS, from, &here, err);
        }
        if (!b->n)
            continue;
        pp_jpath borrow = pp_jpath_key(&at, "efficiency_borrow");
        if (from[0])
            return pp_json_fail(err, &borrow, "expected efficiency_from or efficiency_borrow, not both (found "
                                              "efficiency_from '%s')", from);
        bool root = false;
        for (int k = 0; k < b->n; k++) {
            pp_jpath el = b->n > 1 ? pp_jpath_index(&borrow, k) : borrow;
            pp_jpath here = pp_jpath_key(&el, "gpu");
            int d = find_id(cat, PP_CATALOG_GPUS, b->donor[k].gpu);
            if (d < 0)
                return pp_catalog_fail_unknown(cat, PP_CATALOG_GPUS, b->donor[k].gpu, &here, err);
            if (d == i)
                return pp_json_fail(err, &here, "expected another GPU, found '%s' (itself)", b->donor[k].gpu);
            root = root || cat->gpu_borrow[d].n == 0;
        }
        if (!root)
            return pp_json_fail(err, &borrow, "expected at least one donor that borrows from no other GPU (it "
                                              "lends when no nearer donor has a fit of its own), found none");
    }
    return PP_OK;
}

int pp_catalog_borrow_donor(const pp_catalog *cat, int i, const bool *own, const pp_eff_donor **how)
{
    const pp_eff_borrow *b = &cat->gpu_borrow[i];
    *how = NULL;
    for (int pass = 0; pass < 2; pass++)
        for (int k = 0; k < b->n; k++) {
            int d = find_id(cat, PP_CATALOG_GPUS, b->donor[k].gpu);
            if (d < 0)
                continue;
            bool lends = pass == 0 ? own && own[d] : cat->gpu_borrow[d].n == 0 && cat->gpus[d].eff.calibrated;
            if (lends) {
                *how = &b->donor[k];
                return d;
            }
        }
    return -1;
}

void pp_catalog_borrowed_eff(const pp_catalog *cat, int d, const pp_efficiency *donor_eff, const pp_eff_donor *how,
                             pp_efficiency *out)
{
    *out = *donor_eff;
    out->gemm *= how->factor;
    out->attention *= how->factor;
    out->nvlink *= how->nvlink_factor;
    out->calibrated = false;
    if (out->attention_balance <= 0.0) /* the donor's own fit: its balance */
        out->attention_balance = pp_gpu_attention_balance(&cat->gpus[d]);
    snprintf(out->borrowed_from, sizeof out->borrowed_from, "%s", cat->gpus[d].id);
    out->borrow_factor = how->factor;
    out->borrow_nvlink_factor = how->nvlink_factor;
    char source[sizeof out->source];
    snprintf(source, sizeof source,
             "borrowed from %.40s, gemm and attention x %.3g, NVLink x %.3g (gpus.json efficiency_borrow): %.80s",
             cat->gpus[d].id, how->factor, how->nvlink_factor, donor_eff->source);
    snprintf(out->source, sizeof out->source, "%s", source);
}

/* What a GPU entry fills beside pp_gpu, one slot per entry. */
static bool alloc_gpus(pp_catalog *cat, int n)
{
    cat->gpus = calloc((size_t)n, sizeof *cat->gpus);
    cat->gpu_efficiency_from = calloc((size_t)n, sizeof *cat->gpu_efficiency_from);
    cat->gpu_calibration_family = calloc((size_t)n, sizeof *cat->gpu_calibration_family);
    cat->gpu_aliases = calloc((size_t)n, sizeof *cat->gpu_aliases);
    cat->gpu_borrow = calloc((size_t)n, sizeof *cat->gpu_borrow);
    return cat->gpus && cat->gpu_efficiency_from && cat->gpu_calibration_family && cat->gpu_aliases &&
           cat->gpu_borrow;
}

static int check_gpus(pp_catalog *cat, const pp_jpath *list_at, pp_error *err)
{
    int rc = check_efficiency_from(cat, list_at, err);
    return rc ? rc : check_gpu_aliases(cat, list_at, err);
}

/* ---- models.json ---------------------------------------------------------------- */

static int read_model_entry(pp_catalog *cat, const cJSON *obj, const pp_jpath *at, int i, pp_error *err)
{
    pp_catalog_model *cm = &cat->models[i];
    memset(cm, 0, sizeof *cm);
    int rc = check_entry(obj, at, model_entry_keys, err);
    if (!rc)
        rc = read_entry_id(obj, at, cat, PP_CATALOG_MODELS, i, cm->id, err);
    if (!rc)
        rc = pp_model_read(obj, at, &cm->model, err);
    if (!rc)
        rc = pp_json_double(obj, at, "params_b", PP_OPTIONAL, 0, 1e6, &cm->params_b, err);
    if (!rc)
        rc = pp_json_double(obj, at, "active_params_b", PP_OPTIONAL, 0, 1e6, &cm->active_params_b, err);
    if (!rc && !pp_json_member(obj, "name"))
        snprintf(cm->model.name, sizeof cm->model.name, "%s", cm->id);
    return rc ? rc : read_aliases(obj, at, cm->aliases, err);
}

/* No name may mean two models: an alias is no other model's id, name or
 * alias, as pp_catalog_model_named compares them. */
static int check_model_aliases(pp_catalog *cat, const pp_jpath *list_at, pp_error *err)
{
    for (int i = 0; i < cat->n_models; i++)
        for (int a = 0; a < PP_MAX_ALIASES && cat->models[i].aliases[a][0]; a++) {
            char key[PP_NAME_LEN + 1];
            name_key(cat->models[i].aliases[a], model_noise, key, sizeof key);
            for (int j = 0; j < cat->n_models; j++)
                if (j != i && model_has_key(&cat->models[j], key)) {
                    pp_jpath at = pp_jpath_index(list_at, i);
                    pp_jpath list = pp_jpath_key(&at, "aliases");
                    pp_jpath here = pp_jpath_index(&list, a);
                    return pp_json_fail(err, &here, "expected a name no other model goes by, found '%s' (also '%s')",
                                        cat->models[i].aliases[a], cat->models[j].id);
                }
        }
    return PP_OK;
}

static bool alloc_models(pp_catalog *cat, int n)
{
    return (cat->models = calloc((size_t)n, sizeof *cat->models)) != NULL;
}

/* ---- clusters.json ---------------------------------------------------------------- */

/* A cluster's GPU must be in the catalog; its links default to the GPU's. */
static int read_cluster_gpu(pp_catalog *cat, const cJSON *obj, const pp_jpath *at, pp_cluster *c, pp_error *err)
{
    char id[PP_ID_LEN];
    pp_jpath here = pp_jpath_key(at, "gpu");
    int rc = pp_json_string(obj, at, "gpu", PP_REQUIRED, id, sizeof id, err);
    if (rc)
        return rc;
    const pp_gpu *g = pp_catalog_gpu(cat, id);
    if (!g)
        return pp_catalog_fail_unknown(cat, PP_CATALOG_GPUS, id, &here, err);
    pp_cluster_from_gpu(g, c);
    return PP_OK;
}

static int read_cluster_entry(pp_catalog *cat, const cJSON *obj, const pp_jpath *at, int i, pp_error *err)
{
    pp_catalog_cluster *cc = &cat->clusters[i];
    pp_cluster *c = &cc->cluster;
    char name[PP_NAME_LEN];
    memset(cc, 0, sizeof *cc);
    int rc = check_entry(obj, at, cluster_entry_keys, err);
    if (!rc)
        rc = read_entry_id(obj, at, cat, PP_CATALOG_CLUSTERS, i, cc->id, err);
    if (!rc)
        rc = pp_json_string(obj, at, "name", PP_OPTIONAL, name, sizeof name, err);
    if (!rc)
        rc = read_cluster_gpu(cat, obj, at, c, err);
    if (!rc)
        rc = pp_json_int(obj, at, "gpus_per_node", PP_OPTIONAL, 1, PP_MAX_GPUS_PER_NODE, &c->gpus_per_node, err);
    if (!rc)
        rc = pp_json_long(obj, at, "nodes", PP_REQUIRED, 1, MAX_NODES, &c->nodes, err);
    if (!rc)
        rc = pp_json_positive(obj, at, "intra_node_GBps", PP_OPTIONAL, 1e7, &c->intra_node_GBps, err);
    if (!rc)
        rc = pp_json_positive(obj, at, "inter_node_Gbps", PP_OPTIONAL, 1e7, &c->inter_node_Gbps, err);
    return rc;
}

static bool alloc_clusters(pp_catalog *cat, int n)
{
    return (cat->clusters = calloc((size_t)n, sizeof *cat->clusters)) != NULL;
}

/* ---- codecs.json ------------------------------------------------------------------ */

typedef enum { CODEC_NONE = 0, CODEC_LOSSY, CODEC_LOSSLESS, CODEC_CAST } codec_kind;
static const char *const codec_kind_names[] = {"none", "lossy", "lossless", "cast"};

/* Keys that only some kinds may carry. */
static int check_codec_kind_keys(const cJSON *obj, const pp_jpath *at, codec_kind kind, pp_error *err)
{
    static const char *const lossy_only[] = {"bits_per_value", NULL};
    static const char *const lossless_only[] = {"ratio", "ratio_16bit", NULL};
    static const char *const none_never[] = {"bits_per_value", "ratio", "ratio_16bit", "rel_error", NULL};
    const char *const *banned = kind == CODEC_LOSSY || kind == CODEC_CAST ? lossless_only
                                : kind == CODEC_LOSSLESS                ? lossy_only
                                                                        : none_never;
    for (; *banned; banned++)
        if (pp_json_member(obj, *banned)) {
            pp_jpath here = pp_jpath_key(at, *banned);
            return pp_json_fail(err, &here, "expected no '%s' in a codec of kind '%s', found one", *banned,
                                codec_kind_names[kind]);
        }
    return PP_OK;
}

/* The rate entry of `gpu` in c (added if new), or NULL when the table is full. */
static pp_codec_rate *codec_rate_slot(pp_codec *c, const char *gpu)
{
    for (int i = 0; i < c->n_rates; i++)
        if (strcmp(c->rates[i].gpu, gpu) == 0)
            return &c->rates[i];
    if (c->n_rates >= PP_MAX_CODEC_RATES)
        return NULL;
    pp_codec_rate *r = &c->rates[c->n_rates++];
    snprintf(r->gpu, sizeof r->gpu, "%s", gpu);
    r->compress_GBps = r->decompress_GBps = -1.0;
    return r;
}

/* A throughput: a number (every GPU), or an object of GPU-id prefixes with
 * an optional "default" ({"v100": 73, "a100": 166, "default": 166}). */
static int read_codec_rate(const cJSON *obj, const pp_jpath *at, const char *key, bool decompress, pp_codec *c,
                           pp_error *err)
{
    double *dflt = decompress ? &c->decompress_GBps : &c->compress_GBps;
    const cJSON *v = pp_json_member(obj, key);
    if (!v || !cJSON_IsObject(v))
        return pp_json_double(obj, at, key, PP_OPTIONAL, 0, 1e7, dflt, err);
    pp_jpath here = pp_jpath_key(at, key);
    const cJSON *item;
    cJSON_ArrayForEach(item, v)
    {
        double x = 0.0;
        int rc = pp_json_double(v, &here, item->string, PP_REQUIRED, 0, 1e7, &x, err);
        if (rc)
            return rc;
        if (strcmp(item->string, "default") == 0) {
            *dflt = x;
            continue;
        }
        pp_codec_rate *r = strlen(item->string) < sizeof r->gpu ? codec_rate_slot(c, item->string) : NULL;
        if (!r) {
            pp_jpath k = pp_jpath_key(&here, item->string);
            return pp_json_fail(err, &k, "expected at most %d GPU ids of under 32 characters, found more or longer",
                                PP_MAX_CODEC_RATES);
        }
        *(decompress ? &r->decompress_GBps : &r->compress_GBps) = x;
    }
    return PP_OK;
}

/* The figures of a codec of the given kind (none has none). */
static int read_codec_figures(const cJSON *obj, const pp_jpath *at, codec_kind kind, pp_codec *c, pp_error *err)
{
    int rc = check_codec_kind_keys(obj, at, kind, err);
    bool fixed_rate = kind == CODEC_LOSSY || kind == CODEC_CAST;
    c->lossy = fixed_rate;
    c->cast = kind == CODEC_CAST;
    c->lossless_ratio = 1;
    if (!rc && fixed_rate)
        rc = pp_json_positive(obj, at, "bits_per_value", PP_REQUIRED, 64, &c->bits_per_value, err);
    if (!rc && fixed_rate)
        rc = pp_json_double(obj, at, "rel_error", PP_REQUIRED, 0, 1, &c->rel_error, err);
    if (!rc && kind == CODEC_LOSSLESS)
        rc = pp_json_double(obj, at, "ratio", PP_REQUIRED, 1, 1000, &c->lossless_ratio, err);
    if (!rc && kind == CODEC_LOSSLESS) /* 16-bit messages widened to fp32: may expand */
        rc = pp_json_double(obj, at, "ratio_16bit", PP_OPTIONAL, 0.1, 1000, &c->lossless_ratio_16, err);
    if (!rc && kind == CODEC_LOSSLESS)
        rc = pp_json_double(obj, at, "rel_error", PP_OPTIONAL, 0, 0, &c->rel_error, err);
    if (!rc)
        rc = read_codec_rate(obj, at, "compress_GBps", false, c, err);
    if (!rc)
        rc = read_codec_rate(obj, at, "decompress_GBps", true, c, err);
    return rc;
}

/* Entry 0 must be the identity codec "none", and only it may be of kind none. */
static int check_codec_position(const pp_codec *c, codec_kind kind, const pp_jpath *at, int i, pp_error *err)
{
    pp_jpath here = pp_jpath_key(at, i == 0 ? "id" : "kind");
    if (i == 0 && (strcmp(c->id, "none") != 0 || kind != CODEC_NONE))
        return pp_json_fail(err, &here, "expected the codec 'none' of kind 'none' first, found '%s'", c->id);
    if (i > 0 && kind == CODEC_NONE)
        return pp_json_fail(err, &here, "expected 'lossy', 'lossless' or 'cast' (only the first codec is 'none'), "
                                        "found 'none'");
    return PP_OK;
}

static int read_codec_entry(pp_catalog *cat, const cJSON *obj, const pp_jpath *at, int i, pp_error *err)
{
    pp_codec *c = &cat->codecs[i];
    char name[PP_NAME_LEN];
    int kind = CODEC_NONE;
    memset(c, 0, sizeof *c);
    int rc = check_entry(obj, at, codec_entry_keys, err);
    if (!rc)
        rc = read_entry_id(obj, at, cat, PP_CATALOG_CODECS, i, c->id, err);
    if (!rc)
        rc = pp_json_string(obj, at, "name", PP_OPTIONAL, name, sizeof name, err);
    if (!rc)
        rc = pp_json_enum(obj, at, "kind", PP_REQUIRED, codec_kind_names, 4, &kind, err);
    if (!rc)
        rc = check_codec_position(c, (codec_kind)kind, at, i, err);
    return rc ? rc : read_codec_figures(obj, at, (codec_kind)kind, c, err);
}

/* codecs.json's settings beside its list. */
static int read_codecs_header(pp_catalog *cat, const cJSON *doc, const pp_jpath *root, pp_error *err)
{
    cat->compress_min_bytes = 1 << 20; /* MVAPICH's default threshold */
    int rc = pp_json_double(doc, root, "compress_min_bytes", PP_OPTIONAL, 0, 1e15, &cat->compress_min_bytes, err);
    cat->codec_chunk_bytes = 1 << 20;
    if (!rc)
        rc = pp_json_positive(doc, root, "chunk_bytes", PP_OPTIONAL, 1e15, &cat->codec_chunk_bytes, err);
    return rc;
}

/* ---- efficiency files ------------------------------------------------------------ */

/* The entries of one efficiency file, resolved per catalog GPU. */
typedef struct eff_file {
    bool has_default;
    pp_efficiency def;
    bool *has;          /* per catalog GPU: the file has its own entry */
    pp_efficiency *eff; /* per catalog GPU */
    double model_error; /* "cross_validated_error", 0 if absent */
    double level_spread; /* "cross_validated_group_bias_rms", 0 if absent */
} eff_file;

static void eff_file_free(eff_file *f)
{
    free(f->has);
    free(f->eff);
}

static void entry_source(const char *file_source, const char *entry, char *out, size_t cap)
{
    snprintf(out, cap, "%.200s [%.40s]", file_source, entry);
}

static int read_eff_gpus(const pp_catalog *cat, const cJSON *gpus, const pp_jpath *at, const char *file_source,
                         eff_file *f, pp_error *err)
{
    int rc = pp_json_expect_object(gpus, at, err);
    const cJSON *entry;
    for (entry = gpus ? gpus->child : NULL; entry && !rc; entry = entry->next) {
        const char *id = entry->string ? entry->string : "";
        pp_jpath here = pp_jpath_key(at, id);
        int g = find_id(cat, PP_CATALOG_GPUS, id);
        if (g < 0)
            return pp_catalog_fail_unknown(cat, PP_CATALOG_GPUS, id, &here, err);
        if (f->has[g])
            return pp_json_fail(err, &here, "expected each GPU once, found '%s' twice", id);
        char source[256];
        entry_source(file_source, id, source, sizeof source);
        rc = read_eff_entry(entry, &here, &f->def, source, &f->eff[g], err);
        f->has[g] = true;
    }
    return rc;
}

static int read_eff_file(const pp_catalog *cat, const cJSON *doc, const pp_jpath *root, eff_file *f,
                         pp_error *err)
{
    char file_source[1024] = "";
    int rc = pp_json_check_keys(doc, root, efficiency_file_keys, err);
    if (!rc)
        rc = pp_json_string(doc, root, "source", PP_OPTIONAL, file_source, sizeof file_source, err);
    if (rc)
        return rc;
    if (!rc)
        rc = pp_json_double(doc, root, "cross_validated_error", PP_OPTIONAL, 0.0, 1.0, &f->model_error, err);
    if (!rc)
        rc = pp_json_double(doc, root, "cross_validated_group_bias_rms", PP_OPTIONAL, 0.0, 1.0, &f->level_spread,
                            err);
    if (rc)
        return rc;
    if (!file_source[0])
        snprintf(file_source, sizeof file_source, "%.1000s", root->origin);
    const cJSON *def = pp_json_member(doc, "default");
    f->has_default = def != NULL;
    f->def = cat->efficiency_default;
    if (def) {
        pp_jpath at = pp_jpath_key(root, "default");
        char source[256];
        entry_source(file_source, "default", source, sizeof source);
        rc = read_eff_entry(def, &at, &cat->efficiency_default, source, &f->def, err);
    }
    const cJSON *gpus = pp_json_member(doc, "gpus");
    pp_jpath gpus_at = pp_jpath_key(root, "gpus");
    return (rc || !gpus) ? rc : read_eff_gpus(cat, gpus, &gpus_at, file_source, f, err);
}

/* Own entry, else efficiency_from's (the same die), else the file's default,
 * else unchanged.  Then a GPU without an entry of its own that borrows
 * (efficiency_borrow) takes its donor's parameters as they now stand, gemm
 * and attention times the factor: the nearest donor with an entry of its
 * own, else the listed one that borrows from nobody; it stays uncalibrated
 * (no row of it was fitted) and says whose they are. */
static void assign_efficiency(pp_catalog *cat, const eff_file *f)
{
    for (int i = 0; i < cat->n_gpus; i++) {
        int from = find_id(cat, PP_CATALOG_GPUS, cat->gpu_efficiency_from[i]);
        if (f->has[i]) {
            cat->gpus[i].eff = f->eff[i];
            cat->gpus[i].eff.calibrated = true;
        } else if (from >= 0 && f->has[from]) {
            cat->gpus[i].eff = f->eff[from];
            cat->gpus[i].eff.calibrated = true;
            snprintf(cat->gpus[i].eff.borrowed_from, sizeof cat->gpus[i].eff.borrowed_from, "%s",
                     cat->gpus[from].id);
            cat->gpus[i].eff.borrow_factor = 1.0;
            cat->gpus[i].eff.borrow_nvlink_factor = 1.0;
            cat->gpus[i].eff.attention_balance = pp_gpu_attention_balance(&cat->gpus[from]);
        } else if (f->has_default) {
            cat->gpus[i].eff = f->def;
            cat->gpus[i].eff.calibrated = false;
        }
    }
    /* borrowers last, from their donors as they now stand: a donor has an
     * entry of its own or borrows from nobody, so no donor changes here */
    for (int i = 0; i < cat->n_gpus; i++) {
        const pp_eff_donor *how = NULL;
        int d = f->has[i] ? -1 : pp_catalog_borrow_donor(cat, i, f->has, &how);
        if (d >= 0)
            pp_catalog_borrowed_eff(cat, d, &cat->gpus[d].eff, how, &cat->gpus[i].eff);
    }
    if (f->has_default)
        cat->efficiency_default = f->def;
}

static int apply_efficiency_doc(pp_catalog *cat, const cJSON *doc, const char *path, pp_error *err)
{
    pp_jpath root = pp_jpath_root(path);
    size_t n = cat->n_gpus > 0 ? (size_t)cat->n_gpus : 1;
    eff_file f = {false, cat->efficiency_default, calloc(n, sizeof(bool)), calloc(n, sizeof(pp_efficiency)), 0.0,
                  0.0};
    if (!f.has || !f.eff) {
        eff_file_free(&f);
        return pp_error_set(err, PP_EINTERNAL, path, "out of memory");
    }
    int rc = read_eff_file(cat, doc, &root, &f, err);
    if (!rc)
        assign_efficiency(cat, &f);
    if (!rc && f.model_error > 0.0)
        cat->model_error = f.model_error;
    if (!rc && f.level_spread > 0.0)
        cat->level_spread = f.level_spread;
    eff_file_free(&f);
    return rc;
}

int pp_catalog_apply_efficiency(pp_catalog *cat, const char *path, pp_error *err)
{
    cJSON *doc = NULL;
    int rc = pp_json_load_object(path, &doc, err);
    if (!rc)
        rc = apply_efficiency_doc(cat, doc, path, err);
    cJSON_Delete(doc);
    return rc;
}

/* efficiency.json is optional: without it the built-in values stand. */
static int load_efficiency(pp_catalog *cat, pp_error *err)
{
    char path[1200];
    cJSON *doc = NULL;
    int rc = open_catalog_file(cat, "efficiency.json", false, path, sizeof path, &doc, err);
    if (!rc && doc)
        rc = apply_efficiency_doc(cat, doc, path, err);
    cJSON_Delete(doc);
    return rc;
}

/* ---- calibration-bounds.json -------------------------------------------------- */

/* obj[key] of parameter i: {"lo", "hi", "source"}, lo <= hi, each in the
 * parameter's range. */
static int read_bound(const cJSON *obj, const pp_jpath *at, int i, pp_eff_bound *b, pp_error *err)
{
    const char *key = pp_eff_params[i].key;
    const cJSON *item = pp_json_member(obj, key);
    pp_jpath here = pp_jpath_key(at, key);
    int rc = pp_json_expect_object(item, &here, err);
    if (!rc)
        rc = pp_json_check_keys(item, &here, bound_keys, err);
    if (!rc && (!pp_json_member(item, "lo") || !pp_json_member(item, "hi")))
        rc = pp_json_missing(&here, pp_json_member(item, "lo") ? "hi" : "lo", err);
    if (!rc)
        rc = read_eff_value(item, &here, "lo", i, &b->lo, err);
    if (!rc)
        rc = read_eff_value(item, &here, "hi", i, &b->hi, err);
    if (!rc)
        rc = pp_json_string(item, &here, "source", PP_REQUIRED, b->source, sizeof b->source, err);
    if (!rc && b->lo > b->hi) {
        pp_jpath hi = pp_jpath_key(&here, "hi");
        rc = pp_json_fail(err, &hi, "expected at least lo = %g, found %g", b->lo, b->hi);
    }
    if (!rc && !b->source[0]) {
        pp_jpath src = pp_jpath_key(&here, "source");
        rc = pp_json_fail(err, &src, "expected a citation, found ''");
    }
    return rc;
}

/* A bounds object (every_family's, or a family's own): the parameters it
 * names into f, marking them in has. */
static int read_bounds(const cJSON *obj, const pp_jpath *at, pp_eff_family *f, bool has[PP_EFF_PARAM_COUNT],
                       pp_error *err)
{
    int rc = expect_param_object(obj, at, err);
    for (int i = 0; i < PP_EFF_PARAM_COUNT && !rc; i++)
        if (pp_json_member(obj, pp_eff_params[i].key)) {
            rc = read_bound(obj, at, i, &f->bound[i], err);
            has[i] = true;
        }
    return rc;
}

/* Family k: its own bounds over every_family's; a union family's are filled
 * later (union_bounds).  union_of is set for one. */
static int read_family(const pp_catalog *cat, const cJSON *obj, const pp_jpath *at, int k, const bool every[],
                       bool *union_of, pp_error *err)
{
    pp_eff_family *f = &cat->families[k];
    bool has[PP_EFF_PARAM_COUNT] = {false};
    char source[PP_BOUND_SOURCE_LEN] = "";
    int rc = pp_json_expect_object(obj, at, err);
    if (!rc)
        rc = pp_json_check_keys(obj, at, family_entry_keys, err);
    if (!rc)
        rc = pp_json_string(obj, at, "id", PP_REQUIRED, f->id, sizeof f->id, err);
    for (int j = 0; j < k && !rc; j++)
        if (strcmp(cat->families[j].id, f->id) == 0) {
            pp_jpath id = pp_jpath_key(at, "id");
            rc = pp_json_fail(err, &id, "expected a unique id, found '%s' again (also entry %d)", f->id, j);
        }
    if (!rc)
        rc = pp_json_string(obj, at, "name", PP_REQUIRED, f->name, sizeof f->name, err);
    if (!rc)
        rc = pp_json_bool(obj, at, "union_of_families", PP_OPTIONAL, union_of, err);
    if (!rc && *union_of) { /* spans the others: no bounds of its own, one source for all */
        if (pp_json_member(obj, "bounds")) {
            pp_jpath b = pp_jpath_key(at, "bounds");
            return pp_json_fail(err, &b, "expected no bounds in a family whose bounds are the union of the others");
        }
        rc = pp_json_string(obj, at, "source", PP_REQUIRED, source, sizeof source, err);
        for (int i = 0; i < PP_EFF_PARAM_COUNT; i++)
            snprintf(f->bound[i].source, sizeof f->bound[i].source, "%s", source);
        return rc;
    }
    const cJSON *bounds = pp_json_member(obj, "bounds");
    pp_jpath bounds_at = pp_jpath_key(at, "bounds");
    if (!rc && !bounds)
        rc = pp_json_missing(at, "bounds", err);
    if (!rc)
        rc = read_bounds(bounds, &bounds_at, f, has, err);
    for (int i = 0; i < PP_EFF_PARAM_COUNT && !rc; i++) {
        if (has[i])
            continue;
        if (!every[i])
            return pp_json_fail(err, &bounds_at, "expected a bound of '%s' (every_family has none), found none",
                                pp_eff_params[i].key);
        f->bound[i] = cat->every_family->bound[i];
    }
    return rc;
}

/* A union family spans, per parameter, every other family's bounds. */
static void union_bounds(pp_catalog *cat, const bool *union_of)
{
    for (int k = 0; k < cat->n_families; k++) {
        if (!union_of[k])
            continue;
        for (int i = 0; i < PP_EFF_PARAM_COUNT; i++) {
            double lo = 1e300, hi = -1e300;
            for (int j = 0; j < cat->n_families; j++)
                if (!union_of[j]) {
                    lo = fmin(lo, cat->families[j].bound[i].lo);
                    hi = fmax(hi, cat->families[j].bound[i].hi);
                }
            cat->families[k].bound[i].lo = lo <= hi ? lo : 0.0;
            cat->families[k].bound[i].hi = lo <= hi ? hi : 0.0;
        }
    }
}

static int read_families(pp_catalog *cat, const cJSON *list, const pp_jpath *list_at, const bool every[],
                         pp_error *err)
{
    int n = cJSON_GetArraySize(list);
    cat->families = calloc((size_t)n, sizeof *cat->families);
    bool *union_of = calloc((size_t)n, sizeof *union_of);
    int rc = cat->families && union_of ? PP_OK : pp_error_set(err, PP_EINTERNAL, list_at->origin, "out of memory");
    const cJSON *item;
    cJSON_ArrayForEach(item, list)
    {
        if (rc)
            break;
        pp_jpath at = pp_jpath_index(list_at, cat->n_families);
        rc = read_family(cat, item, &at, cat->n_families, every, &union_of[cat->n_families], err);
        cat->n_families++;
    }
    int n_union = 0;
    for (int k = 0; k < cat->n_families; k++)
        n_union += union_of[k];
    if (!rc && n_union == cat->n_families)
        rc = pp_json_fail(err, list_at, "expected a family with bounds of its own, found only unions");
    if (!rc)
        union_bounds(cat, union_of);
    free(union_of);
    return rc;
}

/* The family of GPU i of gpus.json: one of calibration-bounds.json's. */
static int check_gpu_families(const pp_catalog *cat, const char *bounds_path, pp_error *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/gpus.json", cat->data_dir);
    pp_jpath root = pp_jpath_root(path), list = pp_jpath_key(&root, "gpus");
    for (int g = 0; g < cat->n_gpus; g++) {
        if (pp_catalog_gpu_family(cat, cat->gpus[g].id))
            continue;
        char names[600] = "", quoted[64];
        for (int k = 0; k < cat->n_families; k++) {
            size_t used = strlen(names);
            snprintf(names + used, sizeof names - used, "%s'%s'", k ? ", " : "", cat->families[k].id);
        }
        pp_json_quote(cat->gpu_calibration_family[g], quoted, sizeof quoted);
        pp_jpath at = pp_jpath_index(&list, g), here = pp_jpath_key(&at, "calibration_family");
        return pp_json_fail(err, &here, "expected a GPU family of %.300s (%s), found %s", bounds_path, names, quoted);
    }
    return PP_OK;
}

/* calibration-bounds.json's document (at path): every_family, the families,
 * then each GPU's family checked against them. */
static int read_bounds_doc(pp_catalog *cat, const cJSON *doc, const char *path, pp_error *err)
{
    pp_jpath root = pp_jpath_root(path);
    bool every[PP_EFF_PARAM_COUNT] = {false};
    const cJSON *list = NULL, *common = pp_json_member(doc, "every_family");
    cat->every_family = calloc(1, sizeof *cat->every_family);
    if (!cat->every_family)
        return pp_error_set(err, PP_EINTERNAL, path, "out of memory");
    int rc = pp_json_check_keys(doc, &root, bounds_file_keys, err);
    if (!rc)
        rc = pp_json_check_source(doc, &root, err);
    if (!rc && common) {
        pp_jpath at = pp_jpath_key(&root, "every_family");
        rc = read_bounds(common, &at, cat->every_family, every, err);
    }
    /* the stack's level is no physical parameter (calibrate.h): a bounds
     * file of before it bounds it as the project's does */
    if (!rc && !every[PP_EFF_COMPUTE_SCALE]) {
        cat->every_family->bound[PP_EFF_COMPUTE_SCALE] =
            (pp_eff_bound){0.5, 2.0, "built-in (catalog.c): the stack's level, 0.5-2 as data/calibration-bounds.json"};
        every[PP_EFF_COMPUTE_SCALE] = true;
    }
    if (!rc)
        rc = entry_list(doc, &root, "families", MAX_CATALOG_ENTRIES, &list, err);
    if (!rc) {
        pp_jpath list_at = pp_jpath_key(&root, "families");
        rc = read_families(cat, list, &list_at, every, err);
    }
    return rc ? rc : check_gpu_families(cat, path, err);
}

/* Every GPU has a family of bounds: the file is required. */
static int load_bounds(pp_catalog *cat, pp_error *err)
{
    char path[1200];
    cJSON *doc = NULL;
    int rc = open_catalog_file(cat, "calibration-bounds.json", true, path, sizeof path, &doc, err);
    if (!rc)
        rc = read_bounds_doc(cat, doc, path, err);
    cJSON_Delete(doc);
    return rc;
}

const pp_eff_family *pp_catalog_gpu_family(const pp_catalog *cat, const char *gpu_id)
{
    int g = gpu_id ? find_id(cat, PP_CATALOG_GPUS, gpu_id) : -1;
    if (!cat || g < 0 || !cat->gpu_calibration_family)
        return NULL;
    for (int k = 0; k < cat->n_families; k++)
        if (strcmp(cat->families[k].id, cat->gpu_calibration_family[g]) == 0)
            return &cat->families[k];
    return NULL;
}

/* ---- frameworks.json ---------------------------------------------------------------- */

/* What each framework runs (frameworks_json.c), read after codecs.json,
 * whose ids it names.  Optional, as efficiency.json is: a data directory
 * without it (an older or a hand-made one) leaves every framework's
 * capabilities unknown, and the search ranges over every value. */
static int load_frameworks(pp_catalog *cat, pp_error *err)
{
    char path[1200];
    cJSON *doc = NULL;
    int rc = open_catalog_file(cat, "frameworks.json", false, path, sizeof path, &doc, err);
    if (!rc && doc) {
        pp_jpath root = pp_jpath_root(path);
        rc = pp_frameworks_read(doc, &root, cat->codecs, cat->n_codecs, cat->frameworks, err);
    }
    cJSON_Delete(doc);
    return rc;
}

/* ---- the entry-list files ---------------------------------------------------------- */

/* A catalog file that holds one list of entries: its name and top-level
 * keys, the settings read beside the list (NULL: none), the list's key and
 * most entries, the arrays an entry fills (NULL: fixed arrays), how one
 * entry is read into slot i, where the entry count lives, and the checks of
 * the whole list (NULL: none). */
typedef struct list_file {
    const char *name;
    const char *const *keys;
    int (*header)(pp_catalog *cat, const cJSON *doc, const pp_jpath *root, pp_error *err);
    const char *list_key;
    int max;
    bool (*alloc)(pp_catalog *cat, int n);
    int (*entry)(pp_catalog *cat, const cJSON *obj, const pp_jpath *at, int i, pp_error *err);
    size_t count_at;
    int (*check)(pp_catalog *cat, const pp_jpath *list_at, pp_error *err);
} list_file;

static const list_file LIST_FILES[] = {
    {"gpus.json", gpus_file_keys, NULL, "gpus", MAX_CATALOG_ENTRIES, alloc_gpus, read_gpu_entry,
     offsetof(pp_catalog, n_gpus), check_gpus},
    {"models.json", models_file_keys, NULL, "models", MAX_CATALOG_ENTRIES, alloc_models, read_model_entry,
     offsetof(pp_catalog, n_models), check_model_aliases},
    {"clusters.json", clusters_file_keys, NULL, "clusters", MAX_CATALOG_ENTRIES, alloc_clusters, read_cluster_entry,
     offsetof(pp_catalog, n_clusters), NULL},
    {"codecs.json", codecs_file_keys, read_codecs_header, "codecs", PP_MAX_CODECS, NULL, read_codec_entry,
     offsetof(pp_catalog, n_codecs), NULL},
};

static int read_list(pp_catalog *cat, const list_file *f, const cJSON *list, const pp_jpath *list_at, pp_error *err)
{
    if (f->alloc && !f->alloc(cat, cJSON_GetArraySize(list)))
        return pp_error_set(err, PP_EINTERNAL, list_at->origin, "out of memory");
    int *n = (int *)((char *)cat + f->count_at);
    const cJSON *item;
    cJSON_ArrayForEach(item, list)
    {
        pp_jpath at = pp_jpath_index(list_at, *n);
        int rc = f->entry(cat, item, &at, *n, err);
        if (rc)
            return rc;
        (*n)++;
    }
    return f->check ? f->check(cat, list_at, err) : PP_OK;
}

static int load_list_file(pp_catalog *cat, const list_file *f, pp_error *err)
{
    char path[1200];
    cJSON *doc = NULL;
    int rc = open_catalog_file(cat, f->name, true, path, sizeof path, &doc, err);
    if (rc)
        return rc;
    pp_jpath root = pp_jpath_root(path);
    const cJSON *list = NULL;
    rc = pp_json_check_keys(doc, &root, f->keys, err);
    if (!rc && f->header)
        rc = f->header(cat, doc, &root, err);
    if (!rc)
        rc = entry_list(doc, &root, f->list_key, f->max, &list, err);
    if (!rc) {
        pp_jpath list_at = pp_jpath_key(&root, f->list_key);
        rc = read_list(cat, f, list, &list_at, err);
    }
    cJSON_Delete(doc);
    return rc;
}

/* ---- the catalog as a whole ------------------------------------------------------- */

const char *pp_default_data_dir(void)
{
    const char *env = getenv("PARPLAN_DATA_DIR");
    if (env && env[0])
        return env;
    struct stat st;
    if (stat(PARPLAN_SOURCE_DATA_DIR, &st) == 0 && S_ISDIR(st.st_mode))
        return PARPLAN_SOURCE_DATA_DIR;
    return PARPLAN_INSTALL_DATA_DIR;
}

void pp_catalog_free(pp_catalog *cat)
{
    if (!cat)
        return;
    free(cat->gpus);
    free(cat->models);
    free(cat->clusters);
    free(cat->gpu_efficiency_from);
    free(cat->gpu_borrow);
    free(cat->gpu_calibration_family);
    free(cat->families);
    free(cat->every_family);
    free(cat->gpu_aliases);
    memset(cat, 0, sizeof *cat);
    pp_efficiency_init(&cat->efficiency_default);
}

static int load_all(pp_catalog *cat, pp_error *err)
{
    int rc = PP_OK;
    for (size_t i = 0; i < sizeof LIST_FILES / sizeof LIST_FILES[0] && !rc; i++)
        rc = load_list_file(cat, &LIST_FILES[i], err);
    if (!rc)
        rc = load_efficiency(cat, err);
    if (!rc)
        rc = load_bounds(cat, err);
    if (!rc)
        rc = load_frameworks(cat, err);
    return rc;
}

int pp_catalog_load(const char *data_dir, pp_catalog *cat, pp_error *err)
{
    memset(cat, 0, sizeof *cat);
    pp_efficiency_init(&cat->efficiency_default);
    if (!data_dir || !data_dir[0])
        data_dir = pp_default_data_dir();
    if (strlen(data_dir) >= sizeof cat->data_dir)
        return pp_error_set(err, PP_EINPUT, "", "expected a data directory path of at most %zu characters, "
                                                "found one of %zu", sizeof cat->data_dir - 1, strlen(data_dir));
    snprintf(cat->data_dir, sizeof cat->data_dir, "%s", data_dir);
    int rc = load_all(cat, err);
    if (rc)
        pp_catalog_free(cat);
    return rc;
}
