/* jsonb.c: failure-tracking cJSON builders (see jsonb.h). */
#include "jsonb.h"

#include <math.h>

cJSON *pp_jb_check(pp_jb *b, cJSON *item)
{
    if (!item)
        b->ok = false;
    return item;
}

cJSON *pp_jb_obj(pp_jb *b, cJSON *parent, const char *key)
{
    return pp_jb_check(b, parent ? cJSON_AddObjectToObject(parent, key) : NULL);
}

cJSON *pp_jb_arr(pp_jb *b, cJSON *parent, const char *key)
{
    return pp_jb_check(b, parent ? cJSON_AddArrayToObject(parent, key) : NULL);
}

void pp_jb_num(pp_jb *b, cJSON *o, const char *key, double v)
{
    if (!o) {
        b->ok = false;
        return;
    }
    pp_jb_check(b, isfinite(v) ? cJSON_AddNumberToObject(o, key, v + 0.0) : cJSON_AddNullToObject(o, key));
}

void pp_jb_str(pp_jb *b, cJSON *o, const char *key, const char *s)
{
    if (o)
        pp_jb_check(b, cJSON_AddStringToObject(o, key, s ? s : ""));
    else
        b->ok = false;
}

void pp_jb_bool(pp_jb *b, cJSON *o, const char *key, bool v)
{
    if (o)
        pp_jb_check(b, cJSON_AddBoolToObject(o, key, v));
    else
        b->ok = false;
}

void pp_jb_item(pp_jb *b, cJSON *o, const char *key, cJSON *item)
{
    if (o && item && cJSON_AddItemToObject(o, key, item))
        return;
    cJSON_Delete(item);
    b->ok = false;
}
