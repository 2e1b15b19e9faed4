/*
 * frameworks_json.c: data/frameworks.json read strictly (see
 * frameworks_json.h and data/SCHEMA.md).
 *
 *   {"source": ..., "frameworks": [
 *     {"id": "megatron-core", "name": "Megatron-Core", "version": "...", "source": ...,
 *      "decisions": {"zero": {"values": [0, 1, 2, 3], "with_pipeline": [0, 1, 2, 3], "key": "...",
 *                             "source": ...},
 *                    "cp": {"values": "all", "key": "--context-parallel-size", "source": ...}, ...},
 *      "compression": {"dp": [{"codec": "none", "source": ...},
 *                             {"codec": "bf16", "key": "--grad-reduce-in-bf16", "source": ...}],
 *                      "tp": [...], "pp": [...], "params": [...]},
 *      "precisions": {"values": ["bf16", "fp16", "fp8", ...], "key": "...", "source": ...},
 *      "settings": {"values": ["moe_force_balance", "mtp_layers"], "key": "...", "source": ...}}]}
 *
 * A decision's values are the names of an enum, true/false, integers, or
 * "all" (every value its range and the rules allow); recompute_modules is
 * a set, so its list names modules and the framework runs every set of
 * them (a listed set, e.g. "core_attn,moe_act", counts as its modules);
 * each list holds the
 * decision's default (every framework runs a plan at the defaults), and a
 * dimension's codecs hold "none".  A codec entry may say it runs only
 * through an MPI library ("collectives": "mvapich2-gdr").
 */
#include "frameworks_json.h"

#include "decisions.h"
#include "names.h"

#include <stdio.h>
#include <string.h>


#define MAX_BIT 63 /* a runs[] mask holds values 0..63 (a set's: its modules, pp_decision_is_set) */

static const char *const file_keys[] = {"description", "source", "frameworks", NULL};
static const char *const entry_keys[] = {"id",        "name",        "version",    "description", "source",
                                         "decisions", "compression", "precisions", "settings",
                                         "eager_moe_layer_host_ms", NULL};
static const char *const host_keys[] = {"value", "description", "source", NULL};
static const char *const decision_keys[] = {"values", "with_pipeline", "key", "description", "source", NULL};
static const char *const codec_keys[] = {"codec", "key", "collectives", "description", "source", NULL};
static const char *const precisions_keys[] = {"values", "key", "description", "source", NULL};
static const char *const collectives_names[] = {"mvapich2-gdr"};


/* An object with only `keys`, a source, and (when given) a string "key". */
static int check_object(const cJSON *obj, const pp_jpath *at, const char *const *keys, pp_error *err)
{
    char key[256];
    int rc = pp_json_expect_object(obj, at, err);
    if (!rc)
        rc = pp_json_check_keys(obj, at, keys, err);
    if (!rc)
        rc = pp_json_check_source(obj, at, err);
    if (!rc && pp_json_member(obj, "key"))
        rc = pp_json_string(obj, at, "key", PP_OPTIONAL, key, sizeof key, err);
    return rc;
}

/* One value of decision d at `at` (an enum's name, a bool, an integer in
 * the decision's range and below 64). */
static int read_value(const pp_decision *d, const cJSON *item, const pp_jpath *at, int *v, pp_error *err)
{
    switch (d->kind) {
    case PP_DK_ENUM: return pp_json_as_enum(item, at, d->names, d->max + 1, v, err);
    case PP_DK_BOOL: {
        bool b = false;
        int rc = pp_json_as_bool(item, at, &b, err);
        *v = b;
        return rc;
    }
    default: return pp_json_as_int(item, at, d->min, d->max < MAX_BIT ? d->max : MAX_BIT, v, err);
    }
}

static const char *value_text(const pp_decision *d, int v, char *buf, size_t cap)
{
    if (d->kind == PP_DK_ENUM)
        snprintf(buf, cap, "\"%s\"", d->names[v]);
    else if (d->kind == PP_DK_BOOL)
        snprintf(buf, cap, "%s", v ? "true" : "false");
    else
        snprintf(buf, cap, "%d", v);
    return buf;
}

/* obj[key]: a list of values of d (or "all" when all_ok) into *mask /
 * *all; it must hold the decision's default. */
static int read_values(const pp_decision *d, const cJSON *obj, const pp_jpath *at, const char *key, bool all_ok,
                       unsigned long long *mask, bool *all, pp_error *err)
{
    const cJSON *list = pp_json_member(obj, key);
    pp_jpath here = pp_jpath_key(at, key);
    *mask = 0;
    *all = false;
    if (!list)
        return pp_json_missing(at, key, err);
    if (all_ok && cJSON_IsString(list) && strcmp(list->valuestring, "all") == 0) {
        *all = true;
        return PP_OK;
    }
    if (!cJSON_IsArray(list))
        return pp_json_fail_expected(err, &here, all_ok ? "a list of values or \"all\"" : "a list of values", list);
    int i = 0;
    const cJSON *item;
    bool set = pp_decision_is_set(d);
    cJSON_ArrayForEach(item, list)
    {
        pp_jpath item_at = pp_jpath_index(&here, i++);
        int v = 0;
        int rc = read_value(d, item, &item_at, &v, err);
        if (rc)
            return rc;
        if (set) { /* a set's modules: the framework runs every set of them */
            *mask |= (unsigned long long)v;
            continue;
        }
        if (*mask & (1ULL << v)) {
            char t[64];
            return pp_json_fail(err, &item_at, "expected each value once, found %s again", value_text(d, v, t, sizeof t));
        }
        *mask |= 1ULL << v;
    }
    if (set ? ((unsigned long long)d->def & ~*mask) != 0 : !(*mask & (1ULL << d->def))) {
        char t[64];
        return pp_json_fail(err, &here, "expected a list that holds %s's default %s (every framework runs it)",
                            d->key, value_text(d, d->def, t, sizeof t));
    }
    return PP_OK;
}

static int read_decision(const pp_decision *d, const cJSON *obj, const pp_jpath *at, pp_framework_caps *caps,
                         pp_error *err)
{
    int rc = check_object(obj, at, decision_keys, err);
    if (!rc)
        rc = read_values(d, obj, at, "values", true, &caps->runs[d->id], &caps->all[d->id], err);
    if (rc)
        return rc;
    bool zero = d->id == PP_DEC_ZERO;
    if (!zero && pp_json_member(obj, "with_pipeline")) {
        pp_jpath here = pp_jpath_key(at, "with_pipeline");
        return pp_json_fail(err, &here, "expected 'with_pipeline' only in the decision zero, found it in %s", d->key);
    }
    if (!zero)
        return PP_OK;
    unsigned long long with_pp = 0;
    bool all = false;
    rc = read_values(d, obj, at, "with_pipeline", false, &with_pp, &all, err);
    unsigned long long runs = caps->all[d->id] ? ~0ULL : caps->runs[d->id];
    if (!rc && (with_pp & ~runs)) {
        pp_jpath here = pp_jpath_key(at, "with_pipeline");
        return pp_json_fail(err, &here, "expected stages of 'values' only (a stage it runs with a pipeline it "
                                        "runs without one)");
    }
    caps->zero_with_pp = (unsigned)with_pp;
    return rc;
}

static int read_decisions(const cJSON *obj, const pp_jpath *at, pp_framework_caps *caps, pp_error *err)
{
    const char *keys[PP_DEC_COUNT + 1];
    int n = 0;
    for (int i = 0; i < PP_DEC_COUNT; i++)
        if (pp_decisions[i].framework)
            keys[n++] = pp_decisions[i].key;
    keys[n] = NULL;
    int rc = pp_json_expect_object(obj, at, err);
    if (!rc)
        rc = pp_json_check_keys(obj, at, keys, err);
    for (int i = 0; !rc && i < PP_DEC_COUNT; i++) {
        const pp_decision *d = &pp_decisions[i];
        if (!d->framework)
            continue;
        const cJSON *item = pp_json_member(obj, d->key);
        pp_jpath here = pp_jpath_key(at, d->key);
        rc = item ? read_decision(d, item, &here, caps, err) : pp_json_missing(at, d->key, err);
    }
    return rc;
}

static const char *codec_at(const void *ctx, int i)
{
    return ((const pp_codec *)ctx)[i].id;
}

/* One codec entry of dimension dim. */
static int read_codec(const cJSON *obj, const pp_jpath *at, const pp_codec *codecs, int n_codecs, pp_dim dim,
                      pp_framework_caps *caps, pp_error *err)
{
    char id[PP_ID_LEN];
    int rc = check_object(obj, at, codec_keys, err);
    if (!rc)
        rc = pp_json_string(obj, at, "codec", PP_REQUIRED, id, sizeof id, err);
    if (rc)
        return rc;
    pp_jpath here = pp_jpath_key(at, "codec");
    int i = 0;
    while (i < n_codecs && strcmp(codecs[i].id, id) != 0)
        i++;
    if (i == n_codecs) {
        char names[1024], hint[160], quoted[PP_ID_LEN + 8];
        pp_name_list(codec_at, codecs, n_codecs, names, sizeof names);
        pp_did_you_mean(id, codec_at, codecs, n_codecs, hint, sizeof hint);
        pp_json_quote(id, quoted, sizeof quoted);
        return pp_json_fail(err, &here, "expected a codec id of codecs.json (%s), found %s%s", names, quoted, hint);
    }
    unsigned long long *runs = &caps->runs[PP_DEC_CODEC(dim)];
    if (*runs & (1ULL << i))
        return pp_json_fail(err, &here, "expected each codec once, found '%s' again", id);
    *runs |= 1ULL << i;
    if (pp_json_member(obj, "collectives")) {
        int lib = 0;
        rc = pp_json_enum(obj, at, "collectives", PP_OPTIONAL, collectives_names, 1, &lib, err);
        if (!rc && i == 0) {
            pp_jpath c = pp_jpath_key(at, "collectives");
            return pp_json_fail(err, &c, "expected no collectives library for 'none' (it runs everywhere)");
        }
        caps->codec_mpi[dim] |= 1u << i;
    }
    return rc;
}

static int read_compression(const cJSON *obj, const pp_jpath *at, const pp_codec *codecs, int n_codecs,
                            pp_framework_caps *caps, pp_error *err)
{
    const char *keys[PP_DIM_COUNT + 1];
    for (int d = 0; d < PP_DIM_COUNT; d++)
        keys[d] = pp_dim_names[d];
    keys[PP_DIM_COUNT] = NULL;
    int rc = pp_json_expect_object(obj, at, err);
    if (!rc)
        rc = pp_json_check_keys(obj, at, keys, err);
    for (int d = 0; !rc && d < PP_DIM_COUNT; d++) {
        const cJSON *list = pp_json_member(obj, keys[d]);
        pp_jpath here = pp_jpath_key(at, keys[d]);
        if (!list)
            return pp_json_missing(at, keys[d], err);
        if (!cJSON_IsArray(list))
            return pp_json_fail_expected(err, &here, "a list of codec entries", list);
        int i = 0;
        const cJSON *item;
        cJSON_ArrayForEach(item, list)
        {
            pp_jpath item_at = pp_jpath_index(&here, i++);
            rc = read_codec(item, &item_at, codecs, n_codecs, (pp_dim)d, caps, err);
            if (rc)
                return rc;
        }
        if (!(caps->runs[PP_DEC_CODEC(d)] & 1ULL))
            return pp_json_fail(err, &here, "expected a list that holds the codec 'none' (every framework sends "
                                            "%s traffic uncompressed)", keys[d]);
    }
    return rc;
}

/* A list object {"values": [...], "key", "source"} whose values name
 * entries of names[0..n): their bits in *mask, `refused` (if >= 0) refused
 * as `why`.  *values_at: the list's path, for the caller's own checks. */
static int read_name_set(const cJSON *obj, const pp_jpath *at, const char *const *names, int n, int refused,
                         const char *why, unsigned *mask, pp_jpath *values_at, pp_error *err)
{
    *mask = 0;
    int rc = check_object(obj, at, precisions_keys, err);
    const cJSON *values = rc ? NULL : pp_json_member(obj, "values");
    *values_at = pp_jpath_key(at, "values");
    if (!rc && !values)
        rc = pp_json_missing(at, "values", err);
    if (!rc)
        rc = pp_json_expect_array(values, values_at, err);
    int k = 0;
    const cJSON *item;
    if (!rc)
        cJSON_ArrayForEach(item, values)
        {
            pp_jpath el = pp_jpath_index(values_at, k++);
            int v = 0;
            rc = pp_json_as_enum(item, &el, names, n, &v, err);
            if (!rc && v == refused)
                rc = pp_json_fail(err, &el, "%s", why);
            if (rc)
                break;
            *mask |= 1u << v;
        }
    return rc;
}

/* "precisions": the training precisions (training.precision's names: fp32
 * is none) the framework has a recipe for; absent, every one. */
static int read_precisions(const cJSON *obj, const pp_jpath *at, pp_framework_caps *c, pp_error *err)
{
    c->precisions = ~0u;
    if (!obj)
        return PP_OK;
    pp_jpath values_at;
    int rc = read_name_set(obj, at, pp_precision_names, PP_PREC_COUNT, PP_PREC_FP32,
                           "expected a training precision, found 'fp32' (no training recipe)", &c->precisions,
                           &values_at, err);
    if (!rc && !(c->precisions & (1u << PP_PREC_BF16) || c->precisions & (1u << PP_PREC_FP16)))
        rc = pp_json_fail(err, &values_at, "expected bf16 or fp16 among them (every framework trains in 16 bits)");
    return rc;
}

/* "settings": the training settings beyond the defaults the framework runs
 * (pp_training_setting_names); absent, none. */
static int read_settings(const cJSON *obj, const pp_jpath *at, pp_framework_caps *c, pp_error *err)
{
    c->settings = 0;
    if (!obj)
        return PP_OK;
    pp_jpath values_at;
    return read_name_set(obj, at, pp_training_setting_names, PP_TS_COUNT, -1, NULL, &c->settings, &values_at, err);
}

/* "eager_moe_layer_host_ms": {"value": ms, "source": ...}, optional: the
 * host's time to issue a MoE layer's forward and backward of one
 * micro-batch without CUDA graphs (docs/cost-model.md section 9). */
static int read_host(const cJSON *obj, const pp_jpath *at, pp_framework_caps *c, pp_error *err)
{
    c->moe_layer_host_s = 0.0;
    if (!obj)
        return PP_OK;
    double ms = 0.0;
    int rc = check_object(obj, at, host_keys, err);
    if (!rc)
        rc = pp_json_double(obj, at, "value", PP_REQUIRED, 0.01, 1000.0, &ms, err);
    c->moe_layer_host_s = rc ? 0.0 : ms * 1e-3;
    return rc;
}

static int read_entry(const cJSON *obj, const pp_jpath *at, const pp_codec *codecs, int n_codecs,
                      pp_framework_caps caps[PP_FW_COUNT], pp_error *err)
{
    char id[PP_ID_LEN];
    int rc = check_object(obj, at, entry_keys, err);
    if (!rc)
        rc = pp_json_string(obj, at, "id", PP_REQUIRED, id, sizeof id, err);
    if (rc)
        return rc;
    int fw = 0;
    pp_jpath id_at = pp_jpath_key(at, "id");
    rc = pp_json_as_enum(pp_json_member(obj, "id"), &id_at, pp_framework_names, PP_FW_COUNT, &fw, err);
    if (rc)
        return rc;
    pp_framework_caps *c = &caps[fw];
    if (c->known)
        return pp_json_fail(err, &id_at, "expected each framework once, found '%s' again", id);
    memset(c, 0, sizeof *c);
    for (int i = 0; i < PP_DEC_COUNT; i++) /* the degrees no entry lists run at every value */
        c->all[i] = !pp_decisions[i].framework && pp_decisions[i].kind != PP_DK_CODEC;
    rc = pp_json_string(obj, at, "name", PP_REQUIRED, c->name, sizeof c->name, err);
    if (!rc)
        rc = pp_json_string(obj, at, "version", PP_REQUIRED, c->version, sizeof c->version, err);
    const cJSON *dec = pp_json_member(obj, "decisions"), *comp = pp_json_member(obj, "compression");
    pp_jpath dec_at = pp_jpath_key(at, "decisions"), comp_at = pp_jpath_key(at, "compression");
    if (!rc)
        rc = dec ? read_decisions(dec, &dec_at, c, err) : pp_json_missing(at, "decisions", err);
    if (!rc)
        rc = comp ? read_compression(comp, &comp_at, codecs, n_codecs, c, err)
                  : pp_json_missing(at, "compression", err);
    pp_jpath prec_at = pp_jpath_key(at, "precisions");
    if (!rc)
        rc = read_precisions(pp_json_member(obj, "precisions"), &prec_at, c, err);
    pp_jpath set_at = pp_jpath_key(at, "settings");
    if (!rc)
        rc = read_settings(pp_json_member(obj, "settings"), &set_at, c, err);
    pp_jpath host_at = pp_jpath_key(at, "eager_moe_layer_host_ms");
    if (!rc)
        rc = read_host(pp_json_member(obj, "eager_moe_layer_host_ms"), &host_at, c, err);
    c->known = rc == PP_OK;
    return rc;
}

int pp_frameworks_read(const cJSON *doc, const pp_jpath *root, const pp_codec *codecs, int n_codecs,
                       pp_framework_caps caps[PP_FW_COUNT], pp_error *err)
{
    memset(caps, 0, PP_FW_COUNT * sizeof *caps);
    int rc = pp_json_check_keys(doc, root, file_keys, err);
    if (!rc)
        rc = pp_json_check_source(doc, root, err);
    const cJSON *list = pp_json_member(doc, "frameworks");
    pp_jpath list_at = pp_jpath_key(root, "frameworks");
    if (!rc && !list)
        return pp_json_missing(root, "frameworks", err);
    if (!rc)
        rc = pp_json_expect_array(list, &list_at, err);
    int i = 0;
    const cJSON *item;
    if (!rc)
        cJSON_ArrayForEach(item, list)
        {
            pp_jpath at = pp_jpath_index(&list_at, i++);
            rc = read_entry(item, &at, codecs, n_codecs, caps, err);
            if (rc)
                break;
        }
    for (int fw = 0; !rc && fw < PP_FW_COUNT; fw++)
        if (!caps[fw].known)
            rc = pp_json_fail(err, &list_at, "expected an entry for every framework, found none for '%s'",
                              pp_framework_names[fw]);
    if (rc)
        memset(caps, 0, PP_FW_COUNT * sizeof *caps);
    return rc;
}
