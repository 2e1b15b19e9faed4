/*
 * jsonb.h: building cJSON documents without checking every call.
 *
 * cJSON's constructors return NULL when memory runs out.  The builders below
 * take a pp_jb whose `ok` turns false at the first failure (and on a NULL
 * parent), so a renderer builds its whole document and checks once at the
 * end.  Non-finite numbers become null and -0 becomes 0, so the JSON stays
 * valid and never shows "-0".
 */
#ifndef PARPLAN_JSONB_H
#define PARPLAN_JSONB_H

#include <cjson/cJSON.h>
#include <stdbool.h>

typedef struct pp_jb {
    bool ok;
} pp_jb;

cJSON *pp_jb_check(pp_jb *b, cJSON *item);
cJSON *pp_jb_obj(pp_jb *b, cJSON *parent, const char *key);
cJSON *pp_jb_arr(pp_jb *b, cJSON *parent, const char *key);
void pp_jb_num(pp_jb *b, cJSON *o, const char *key, double v);
void pp_jb_str(pp_jb *b, cJSON *o, const char *key, const char *s);
void pp_jb_bool(pp_jb *b, cJSON *o, const char *key, bool v);
/* Attach item under key, or record the failure (freeing item). */
void pp_jb_item(pp_jb *b, cJSON *o, const char *key, cJSON *item);

#endif
