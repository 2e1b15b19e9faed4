/*
 * report_accuracy.h: how well the cost model predicts measured steps, as a
 * Markdown table and as JSON (`parplan accuracy`).
 */
#ifndef PARPLAN_REPORT_ACCURACY_H
#define PARPLAN_REPORT_ACCURACY_H

#include "calibrate.h"
#include "strbuf.h"

#include <cjson/cJSON.h>

int pp_report_accuracy_md(const pp_score *score, int n_rows, int n_skipped, pp_strbuf *out);
cJSON *pp_json_accuracy(const pp_score *score);

/* `accuracy --cv`: the cross-validated table (per source group: CV and
 * in-sample step-time MAPE, same-job pairs ordered as measured), the memory
 * rows of score (not fitted, so the same either way; may be NULL), and the
 * fitted parameters beside their physical bounds and sources.  set gives the
 * row counts; command is the command line to print for reproduction. */
int pp_report_cv_md(const pp_cv_result *cv, const pp_score *score, const pp_measurement_set *set,
                    const char *command, pp_strbuf *out);
cJSON *pp_json_cv(const pp_cv_result *cv);

#endif
