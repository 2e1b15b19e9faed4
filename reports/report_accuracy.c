/* report_accuracy.c: the accuracy table (see report_accuracy.h). */
#include "report_accuracy.h"

#include "report_md.h"

static void md_rows(const pp_measurement_set *set, pp_strbuf *out)
{
    pp_sb_append(out, "\n## Rows\n\nEach timed row: the step time the cost model predicts, the one measured (or "
                      "derived by the source's formula from a published throughput), and the error of the "
                      "prediction (positive: predicted too slow).\n\n"
                      "| row | source group | predicted (s) | measured (s) | error |\n"
                      "| --- | --- | ---: | ---: | ---: |\n");
    for (int i = 0; i < set->n; i++) {
        const pp_measurement *r = &set->rows[i];
        if (!r->has_time)
            continue;
        double predicted, error = pp_row_time_error_pct(r, &predicted);
        pp_sb_append(out, "| ");
        pp_md_escape(out, r->id);
        pp_sb_append(out, " | ");
        pp_md_escape(out, r->group);
        pp_sb_appendf(out, " | %.3f | %.3f | %+.1f %% |\n", predicted, r->iteration_s, error);
    }
}

int pp_report_accuracy_md(const pp_score *score, const pp_measurement_set *set, bool rows, pp_strbuf *out)
{
    pp_sb_appendf(out, "# parplan: cost-model accuracy\n\n%d rows priced, %d skipped (no model shape, or a "
                       "configuration that breaks a plan rule).\n\n",
                  set->n, set->n_skipped);
    pp_sb_append(out, "| source group | rows (time) | step-time MAPE | worst row | rows (memory) | memory MAPE |\n"
                      "| --- | ---: | ---: | ---: | ---: | ---: |\n");
    for (int i = 0; i < score->n_groups; i++) {
        const pp_group_score *g = &score->groups[i];
        pp_sb_append(out, "| ");
        pp_md_escape(out, g->group);
        if (g->n_time)
            pp_sb_appendf(out, " | %d | %.1f %% | %.1f %%", g->n_time, g->mape_time, g->max_ape_time);
        else
            pp_sb_append(out, " | 0 | - | -");
        if (g->n_memory)
            pp_sb_appendf(out, " | %d | %.1f %% |\n", g->n_memory, g->mape_memory);
        else
            pp_sb_append(out, " | 0 | - |\n");
    }
    if (rows)
        md_rows(set, out);
    return out->failed ? -1 : 0;
}

static void json_rows(cJSON *root, const pp_measurement_set *set)
{
    cJSON *rows = cJSON_AddArrayToObject(root, "rows");
    for (int i = 0; rows && i < set->n; i++) {
        const pp_measurement *r = &set->rows[i];
        if (!r->has_time)
            continue;
        double predicted, error = pp_row_time_error_pct(r, &predicted);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", r->id);
        cJSON_AddStringToObject(o, "group", r->group);
        cJSON_AddNumberToObject(o, "predicted_s", predicted);
        cJSON_AddNumberToObject(o, "measured_s", r->iteration_s);
        cJSON_AddNumberToObject(o, "error_pct", error);
        cJSON_AddItemToArray(rows, o);
    }
}

cJSON *pp_json_accuracy(const pp_score *score, const pp_measurement_set *set, bool rows)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *groups = cJSON_AddArrayToObject(root, "groups");
    for (int i = 0; i < score->n_groups; i++) {
        const pp_group_score *g = &score->groups[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "group", g->group);
        cJSON_AddNumberToObject(o, "rows_time", g->n_time);
        cJSON_AddNumberToObject(o, "mape_time_pct", g->mape_time);
        cJSON_AddNumberToObject(o, "max_ape_time_pct", g->max_ape_time);
        cJSON_AddNumberToObject(o, "rows_memory", g->n_memory);
        cJSON_AddNumberToObject(o, "mape_memory_pct", g->mape_memory);
        cJSON_AddItemToArray(groups, o);
    }
    if (rows)
        json_rows(root, set);
    return root;
}
