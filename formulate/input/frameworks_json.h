/*
 * frameworks_json.h: data/frameworks.json, what each training framework
 * runs (data/SCHEMA.md), read strictly into one pp_framework_caps per
 * pp_framework.
 *
 * Every framework of pp_framework has one entry, with its name, the version
 * the entry describes and a source; per decision the values it runs (and
 * the flag or key that turns each on), per compressed dimension the codecs
 * of codecs.json it runs.  Errors name the file and the JSON path, as every
 * catalog reader's do.  Read by the catalog (catalog.c), copied into a
 * problem by problem.c, applied by rules.c and the space.
 */
#ifndef PARPLAN_FRAMEWORKS_JSON_H
#define PARPLAN_FRAMEWORKS_JSON_H

#include "json_util.h"
#include "types.h"

/* Read the document `doc` (at `root`) into caps[PP_FW_COUNT]; codecs are
 * the catalog's (codecs.json), by which ids resolve.  An entry's
 * "decisions" object lists every decision whose row says FRAMEWORK_DATA
 * (decisions.def); the others (the degrees tp, pp, dp, micro_batch and the
 * 2.5D depth) run in every framework at every value the rules allow. */
int pp_frameworks_read(const cJSON *doc, const pp_jpath *root, const pp_codec *codecs, int n_codecs,
                       pp_framework_caps caps[PP_FW_COUNT], pp_error *err);

#endif
