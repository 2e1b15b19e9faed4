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

#endif
