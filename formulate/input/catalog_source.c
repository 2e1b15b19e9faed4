/*
 * catalog_source.c: reading a catalog entry's `source` back (see
 * catalog_source.h).  The file was validated when the catalog was loaded, so
 * this reads it leniently: anything unexpected just yields no source.
 */
#include "catalog_source.h"

#include "json_util.h"
#include "shapes_json.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

static const char *file_of(pp_catalog_kind kind, const char **array)
{
    switch (kind) {
    case PP_CATALOG_GPUS: *array = "gpus"; return "gpus.json";
    case PP_CATALOG_MODELS: *array = "models"; return "models.json";
    case PP_CATALOG_CLUSTERS: *array = "clusters"; return "clusters.json";
    case PP_CATALOG_CODECS: *array = "codecs"; return "codecs.json";
    }
    *array = "";
    return "";
}

static const cJSON *entry_of(const cJSON *doc, const char *array, const char *id)
{
    const cJSON *list = pp_json_member(doc, array), *e;
    if (!cJSON_IsArray(list))
        return NULL;
    cJSON_ArrayForEach(e, list)
    {
        const cJSON *eid = pp_json_member(e, "id");
        if (cJSON_IsString(eid) && strcmp(eid->valuestring, id) == 0)
            return e;
    }
    return NULL;
}

bool pp_catalog_source(const pp_catalog *cat, pp_catalog_kind kind, const char *id, const char *field, char *buf,
                       size_t cap)
{
    if (cap)
        buf[0] = '\0';
    if (!cat || !cat->data_dir[0] || cap == 0)
        return false;
    const char *array, *file = file_of(kind, &array);
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", cat->data_dir, file);
    cJSON *doc = NULL;
    pp_error err;
    if (pp_json_load_object(path, &doc, &err) != PP_OK)
        return false;
    const cJSON *owner = id ? entry_of(doc, array, id) : doc;
    const cJSON *src = owner ? pp_json_member(owner, "source") : NULL;
    if (cJSON_IsObject(src) && field)
        src = pp_json_member(src, field);
    bool found = cJSON_IsString(src) && src->valuestring[0];
    if (found)
        snprintf(buf, cap, "%s", src->valuestring);
    cJSON_Delete(doc);
    return found;
}

const char *pp_catalog_model_id_of(const pp_catalog *cat, const pp_model *model)
{
    for (int i = 0; cat && i < cat->n_models; i++) {
        const pp_model *c = &cat->models[i].model;
        if (strcmp(c->name, model->name) == 0 && c->layers == model->layers && c->hidden == model->hidden &&
            c->heads == model->heads && c->kv_heads == model->kv_heads &&
            pp_model_head_dim(c) == pp_model_head_dim(model) && c->ffn_hidden == model->ffn_hidden &&
            c->vocab == model->vocab && c->gated_mlp == model->gated_mlp)
            return cat->models[i].id;
    }
    return NULL;
}

const pp_catalog_model *pp_catalog_model_router_of(const pp_catalog *cat, const pp_model *model)
{
    for (int i = 0; cat && model->experts > 0 && i < cat->n_models; i++) {
        const pp_model *c = &cat->models[i].model;
        if (c->experts == model->experts && c->experts_per_token == model->experts_per_token &&
            c->moe_ffn_hidden == model->moe_ffn_hidden && c->shared_experts == model->shared_experts &&
            c->shared_ffn_hidden == model->shared_ffn_hidden && c->first_dense_layers == model->first_dense_layers &&
            c->layers == model->layers && c->hidden == model->hidden)
            return &cat->models[i];
    }
    return NULL;
}
