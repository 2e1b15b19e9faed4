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

/* `accuracy --cv`: the cross-validated table (per source group: CV and
 * in-sample step-time MAPE, same-job pairs ordered as measured), the memory
 * rows of score (not fitted, so the same either way; may be NULL), and the
 * fitted parameters beside their physical bounds and sources.  set gives the
 * row counts; command is the command line to print for reproduction; rows
 * also lists each timed row's held-out and in-sample price (set's rows as
 * pp_cross_validate left them; the JSON's "rows" with predicted_cv_s). */
int pp_report_cv_md(const pp_cv_result *cv, const pp_score *score, const pp_measurement_set *set,
                    const char *command, bool rows, pp_strbuf *out);
cJSON *pp_json_cv(const pp_cv_result *cv, const pp_measurement_set *set, bool rows);

#endif
