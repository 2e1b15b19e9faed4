/*
 * report_accuracy.h: how well the cost model predicts measured steps, as a
 * Markdown table and as JSON (`parplan accuracy`): per source group, and
 * with `--rows` per measured row (predicted and measured step time, error).
 */
#ifndef PARPLAN_REPORT_ACCURACY_H
#define PARPLAN_REPORT_ACCURACY_H

#include "calibrate.h"
#include "strbuf.h"

#include <cjson/cJSON.h>

/* The group table of score; with rows, also one line per timed row of set. */
int pp_report_accuracy_md(const pp_score *score, const pp_measurement_set *set, bool rows, pp_strbuf *out);
/* {"groups": [...]}, and with rows a "rows" array of the timed rows of set. */
cJSON *pp_json_accuracy(const pp_score *score, const pp_measurement_set *set, bool rows);

#endif
