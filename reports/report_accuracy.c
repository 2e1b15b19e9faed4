/* report_accuracy.c: the accuracy table (see report_accuracy.h). */
#include "report_accuracy.h"

#include "report_md.h"

int pp_report_accuracy_md(const pp_score *score, int n_rows, int n_skipped, pp_strbuf *out)
{
    pp_sb_appendf(out, "# parplan: cost-model accuracy\n\n%d rows priced, %d skipped (no model shape, or a "
                       "configuration that breaks a plan rule).\n\n",
                  n_rows, n_skipped);
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
    return out->failed ? -1 : 0;
}

cJSON *pp_json_accuracy(const pp_score *score)
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
    return root;
}
