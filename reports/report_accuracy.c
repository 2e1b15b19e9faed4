/* report_accuracy.c: the accuracy table (see report_accuracy.h). */
#include "report_accuracy.h"

#include "decisions.h"
#include "report_md.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A row's first two cells: its id and its source group (a defect said). */
static void md_row_id_group(const pp_measurement *r, pp_strbuf *out)
{
    pp_sb_append(out, "| ");
    pp_md_escape(out, r->id);
    pp_sb_append(out, " | ");
    pp_md_escape(out, r->group);
    if (r->defect)
        pp_sb_append(out, " (software defect: scored apart)");
}

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
        md_row_id_group(r, out);
        pp_sb_appendf(out, " | %.3f | %.3f | %+.1f %% |\n", predicted, r->iteration_s, error);
    }
    bool any = false;
    for (int i = 0; i < set->n && !any; i++)
        any = set->rows[i].has_peak;
    if (!any)
        return;
    pp_sb_append(out, "\nEach row with a logged peak: the model's memory of the most loaded GPU (its parts) "
                      "against the peak.\n\n"
                      "| row | predicted (GiB) | states | activations | other | measured peak (GiB) | error |\n"
                      "| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (int i = 0; i < set->n; i++) {
        const pp_measurement *r = &set->rows[i];
        if (!r->has_peak)
            continue;
        pp_memory m;
        pp_memory_eval(&r->prob, &r->plan, &m);
        pp_sb_append(out, "| ");
        pp_md_escape(out, r->id);
        pp_sb_appendf(out, " | %.2f | %.2f | %.2f | %.2f | %.2f | %+.1f %% |\n", m.total_gib,
                      m.weights_gib + m.gradients_gib + m.optimizer_gib, m.activations_gib, m.other_gib, r->peak_gib,
                      (m.total_gib / r->peak_gib - 1.0) * 100.0);
    }
}

/* Whole per-GPU memory against the peaks frameworks log (the caching
 * allocator's max reserved, max over ranks): not fitted either. */
static void peak_table(const pp_score *score, pp_strbuf *out)
{
    bool any = false;
    for (int i = 0; score && i < score->n_groups; i++)
        any |= score->groups[i].n_peak > 0;
    if (!any)
        return;
    pp_sb_append(out, "\nPeak memory per GPU (the framework's logged maximum reserved, against the model's total "
                      "of the most loaded GPU; a negative error means the model predicts less):\n\n"
                      "| source group | rows (peak memory) | peak-memory MAPE | mean signed error |\n"
                      "| --- | ---: | ---: | ---: |\n");
    for (int i = 0; i < score->n_groups; i++) {
        const pp_group_score *g = &score->groups[i];
        if (!g->n_peak)
            continue;
        pp_sb_append(out, "| ");
        pp_md_escape(out, g->group);
        pp_sb_appendf(out, " | %d | %.1f %% | %+.1f %% |\n", g->n_peak, g->mape_peak, g->signed_peak);
    }
}

/* Whether each plan fits, as the planner decides it (the most loaded GPU's
 * total within the usable memory), against what the runs did: rows that
 * finished steps fit, rows that ran out of memory did not.  Memory is not
 * fitted: cross-validation changes nothing here. */
static void feasibility_table(const pp_score *score, pp_strbuf *out)
{
    int ran = 0, fit = 0, oom = 0, over = 0;
    for (int i = 0; i < score->n_groups; i++) {
        ran += score->groups[i].n_ran;
        fit += score->groups[i].ran_fit;
        oom += score->groups[i].n_oom;
        over += score->groups[i].oom_over;
    }
    if (!ran && !oom)
        return;
    pp_sb_append(out, "\nMemory feasibility, as the planner decides it (the most loaded GPU within the usable "
                      "memory, capacity less the headroom): runs that finished steps should be priced to fit, "
                      "runs that stopped out of memory priced over.\n\n"
                      "| source group | runs | priced to fit | out-of-memory runs | priced over |\n"
                      "| --- | ---: | ---: | ---: | ---: |\n");
    for (int i = 0; i < score->n_groups; i++) {
        const pp_group_score *g = &score->groups[i];
        if (!g->n_ran && !g->n_oom)
            continue;
        pp_sb_append(out, "| ");
        pp_md_escape(out, g->group);
        pp_sb_appendf(out, " | %d | %d | %d | %d |\n", g->n_ran, g->ran_fit, g->n_oom, g->oom_over);
    }
    pp_sb_appendf(out, "| **all** | %d | %d (%.0f %%) | %d | %d (%.0f %%) |\n", ran, fit, ran ? 100.0 * fit / ran : 0.0,
                  oom, over, oom ? 100.0 * over / oom : 0.0);
}

/* A share cell: "k of n (p %)", or "-" without pairs. */
static void order_cell(pp_strbuf *out, int k, int n)
{
    if (n)
        pp_sb_appendf(out, " | %d of %d (%.0f %%)", k, n, 100.0 * k / n);
    else
        pp_sb_append(out, " | -");
}

/* Same-job pairs by the gap of their measured step times: the order a
 * planner needs is the one of plans far enough apart to matter. */
static void order_table(const pp_score *score, pp_strbuf *out)
{
    int n[PP_GAP_BINS] = {0}, k[PP_GAP_BINS] = {0};
    for (int i = 0; i < score->n_groups; i++)
        for (int b = 0; b < PP_GAP_BINS; b++) {
            n[b] += score->groups[i].bin_pairs[b];
            k[b] += score->groups[i].bin_ordered[b];
        }
    if (!n[0] && !n[1] && !n[2])
        return;
    pp_sb_append(out, "\nSame-job pairs ordered as measured, by the gap between their measured step times (slower / "
                      "faster - 1):\n\n| source group");
    for (int b = 0; b < PP_GAP_BINS; b++)
        pp_sb_appendf(out, " | %s apart", pp_gap_bin_name(b));
    pp_sb_append(out, " |\n| ---");
    for (int b = 0; b < PP_GAP_BINS; b++)
        pp_sb_append(out, " | ---:");
    pp_sb_append(out, " |\n");
    for (int i = 0; i < score->n_groups; i++) {
        const pp_group_score *g = &score->groups[i];
        if (!g->n_pairs)
            continue;
        pp_sb_append(out, "| ");
        pp_md_escape(out, g->group);
        for (int b = 0; b < PP_GAP_BINS; b++)
            order_cell(out, g->bin_ordered[b], g->bin_pairs[b]);
        pp_sb_append(out, " |\n");
    }
    pp_sb_append(out, "| **all**");
    for (int b = 0; b < PP_GAP_BINS; b++)
        order_cell(out, k[b], n[b]);
    pp_sb_append(out, " |\n");
}

/* Weak scaling: the same plan per GPU on more GPUs, measured against
 * priced (pp_group_score's scale pairs), per group that has any. */
static void scale_table(const pp_score *score, pp_strbuf *out)
{
    int n = 0;
    double gap = 0.0;
    for (int i = 0; i < score->n_groups; i++) {
        n += score->groups[i].n_scale;
        gap += score->groups[i].n_scale * score->groups[i].scale_gap;
    }
    if (!n)
        return;
    pp_sb_append(out, "\nWeak scaling: pairs of one group that run the same plan per GPU (every degree but dp, the "
                      "micro-batch and the micro-batches per replica alike) on more GPUs, the larger run's step time "
                      "over the smaller's, measured against priced (the gap: log of the measured ratio less log of the "
                      "priced one; above 0, the runs slowed with scale more than the model prices):\n\n"
                      "| source group | pairs | mean GPU-count doublings | gap, mean |\n"
                      "| --- | ---: | ---: | ---: |\n");
    for (int i = 0; i < score->n_groups; i++) {
        const pp_group_score *g = &score->groups[i];
        if (!g->n_scale)
            continue;
        pp_sb_append(out, "| ");
        pp_md_escape(out, g->group);
        pp_sb_appendf(out, " | %d | %.1f | %+.1f %% |\n", g->n_scale, g->scale_doublings, g->scale_gap);
    }
    pp_sb_appendf(out, "| **all** | %d | | %+.1f %% |\n", n, gap / n);
}

/* The same plan on GPUs of two kinds (pp_gpu_pairs): the order the choice
 * of GPU needs; `how` says whose prices they are. */
static void gpu_pairs_table(const pp_gpu_pairs *gp, const char *how, pp_strbuf *out)
{
    if (!gp->n_pairs)
        return;
    pp_sb_appendf(out, "\nSame plan on different GPUs: pairs of rows of one group that run one job (the same model, GPU "
                       "count and global batch) with the same plan and settings on GPUs of two kinds, measured more "
                       "than 3 %% apart, %s. No plan orders them; the hardware does, as when `parplan capacity` "
                       "chooses a GPU. The ratios are the first GPU's step time over the second's (geometric mean):\n\n"
                       "| GPUs | pairs | ordered as measured | measured step ratio | priced step ratio |\n"
                       "| --- | ---: | ---: | ---: | ---: |\n",
                  how);
    for (int k = 0; k < gp->n_kinds; k++) {
        const pp_gpu_kind_pair *x = &gp->kinds[k];
        pp_sb_append(out, "| ");
        pp_md_escape(out, x->gpu[0]);
        pp_sb_append(out, " / ");
        pp_md_escape(out, x->gpu[1]);
        pp_sb_appendf(out, " | %d", x->n);
        order_cell(out, x->ordered, x->n);
        pp_sb_appendf(out, " | %.3f | %.3f |\n", exp(x->measured_log), exp(x->priced_log));
    }
    pp_sb_appendf(out, "| **all** | %d", gp->n_pairs);
    order_cell(out, gp->ordered, gp->n_pairs);
    pp_sb_append(out, " | | |\n\nBy measured gap:");
    for (int b = 0; b < PP_GAP_BINS; b++) {
        pp_sb_appendf(out, "%s %s apart", b ? ";" : "", pp_gap_bin_name(b));
        if (gp->bin_pairs[b])
            pp_sb_appendf(out, " %d of %d", gp->bin_ordered[b], gp->bin_pairs[b]);
        else
            pp_sb_append(out, " none");
    }
    pp_sb_append(out, ".\n");
}

/* "order_by_gap": [ { "gap", "pairs", key: k[b] (, key2: k2[b]) } ], one a
 * measured-gap bin; k2 NULL for one count. */
static void json_gap_bins(cJSON *o, const int *n, const char *key, const int *k, const char *key2, const int *k2)
{
    cJSON *bins = cJSON_AddArrayToObject(o, "order_by_gap");
    for (int b = 0; bins && b < PP_GAP_BINS; b++) {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "gap", pp_gap_bin_name(b));
        cJSON_AddNumberToObject(x, "pairs", n[b]);
        cJSON_AddNumberToObject(x, key, k[b]);
        if (k2)
            cJSON_AddNumberToObject(x, key2, k2[b]);
        cJSON_AddItemToArray(bins, x);
    }
}

static void json_gpu_pairs(cJSON *root, const pp_gpu_pairs *gp)
{
    cJSON *o = cJSON_AddObjectToObject(root, "gpu_pairs");
    if (!o)
        return;
    cJSON_AddNumberToObject(o, "pairs", gp->n_pairs);
    cJSON_AddNumberToObject(o, "ordered", gp->ordered);
    json_gap_bins(o, gp->bin_pairs, "ordered", gp->bin_ordered, NULL, NULL);
    cJSON *kinds = cJSON_AddArrayToObject(o, "by_gpus");
    for (int k = 0; kinds && k < gp->n_kinds; k++) {
        const pp_gpu_kind_pair *x = &gp->kinds[k];
        cJSON *y = cJSON_CreateObject();
        cJSON *ids = cJSON_AddArrayToObject(y, "gpus");
        cJSON_AddItemToArray(ids, cJSON_CreateString(x->gpu[0]));
        cJSON_AddItemToArray(ids, cJSON_CreateString(x->gpu[1]));
        cJSON_AddNumberToObject(y, "pairs", x->n);
        cJSON_AddNumberToObject(y, "ordered", x->ordered);
        cJSON_AddNumberToObject(y, "measured_ratio", exp(x->measured_log));
        cJSON_AddNumberToObject(y, "priced_ratio", exp(x->priced_log));
        cJSON_AddItemToArray(kinds, y);
    }
}

/* The dense rows by the nodes their run spans (pp_span_score); `how` says
 * whose prices they are. */
static void span_table(const pp_span_score *sp, const char *how, pp_strbuf *out)
{
    int n = 0;
    for (int b = 0; b < PP_SPAN_BINS; b++)
        n += sp->n_rows[b];
    if (!n)
        return;
    pp_sb_appendf(out, "\nBy span: the dense rows (Mixture-of-Experts and software-defect rows apart) by how many "
                       "nodes their run spans (a node: the cluster's NVLink domain), %s. A span whose mean signed "
                       "error sits below the one-node rows' pays for scale (the network, the wait for more GPUs) "
                       "more than the model prices:\n\n"
                       "| span | rows | step-time MAPE | mean signed error |\n"
                       "| --- | ---: | ---: | ---: |\n",
                  how);
    for (int b = 0; b < PP_SPAN_BINS; b++)
        if (sp->n_rows[b])
            pp_sb_appendf(out, "| %s | %d | %.1f %% | %+.1f %% |\n", pp_span_bin_name(b), sp->n_rows[b],
                          sp->mape_time[b], sp->bias_time[b]);
}

static void json_span(cJSON *root, const pp_span_score *sp)
{
    cJSON *arr = cJSON_AddArrayToObject(root, "by_span");
    for (int b = 0; arr && b < PP_SPAN_BINS; b++) {
        if (!sp->n_rows[b])
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "span", pp_span_bin_name(b));
        cJSON_AddNumberToObject(o, "rows_time", sp->n_rows[b]);
        cJSON_AddNumberToObject(o, "mape_time_pct", sp->mape_time[b]);
        cJSON_AddNumberToObject(o, "bias_time_pct", sp->bias_time[b]);
        cJSON_AddItemToArray(arr, o);
    }
}

/* What a PP_PAIR_WHAT slot names: a decision's PLAN.json key (a codec's as
 * "compression.dp"), or the training settings. */
static const char *what_name(int slot, char *buf, size_t cap)
{
    if (slot >= PP_DEC_COUNT)
        return "training settings";
    const pp_decision *d = &pp_decisions[slot];
    if (d->kind != PP_DK_CODEC)
        return d->key;
    snprintf(buf, cap, "compression.%s", d->key);
    return buf;
}

/* Same-job pairs by what differs between their plans: where the order the
 * model gets wrong comes from. */
static void what_table(const pp_score *score, pp_strbuf *out)
{
    int any = 0;
    for (int w = 0; w < PP_PAIR_WHAT; w++)
        any += score->what_pairs[w];
    if (!any)
        return;
    pp_sb_append(out, "\nThe same pairs by what differs between their two plans (a pair counts under each decision it "
                      "changes; dp changes with tp, pp or cp at a fixed GPU count):\n\n"
                      "| differs | same-job pairs ordered as measured |\n| --- | ---: |\n");
    for (int w = 0; w < PP_PAIR_WHAT; w++)
        if (score->what_pairs[w]) {
            char name[64];
            pp_sb_append(out, "| ");
            pp_md_escape(out, what_name(w, name, sizeof name));
            order_cell(out, score->what_ordered[w], score->what_pairs[w]);
            pp_sb_append(out, " |\n");
        }
}

/* The first skipped row and why, when a row was skipped. */
/* Every row left out, and why (the first PP_SKIPPED_LISTED). */
static void md_skipped(const pp_measurement_set *set, pp_strbuf *out)
{
    if (!set->n_skipped)
        return;
    pp_sb_append(out, "\n## Skipped rows\n\nEach row the cost model could not price, and why.\n\n");
    for (int i = 0; i < set->n_skipped_listed; i++) {
        pp_sb_append(out, "- ");
        pp_md_escape(out, set->skipped[i]);
        pp_sb_append(out, "\n");
    }
    if (set->n_skipped > set->n_skipped_listed)
        pp_sb_appendf(out, "- ... and %d more\n", set->n_skipped - set->n_skipped_listed);
}

static void first_skipped_md(const pp_measurement_set *set, pp_strbuf *out)
{
    if (!set->n_skipped || !set->first_skipped[0])
        return;
    pp_sb_append(out, "The first skipped: ");
    pp_md_escape(out, set->first_skipped);
    pp_sb_append(out, ".\n\n");
}

int pp_report_accuracy_md(const pp_score *score, const pp_measurement_set *set, bool rows, pp_strbuf *out)
{
    pp_sb_appendf(out, "# parplan: cost-model accuracy\n\n%d rows priced, %d skipped (nothing measured to price, "
                       "a GPU or a model the catalog lacks, a precision its GPU does not train in, or a configuration that "
                       "breaks a plan rule).\n\n",
                  set->n, set->n_skipped);
    first_skipped_md(set, out);
    pp_sb_append(out, "| source group | rows (time) | step-time MAPE | worst row | same-job pairs | ordered as measured "
                      "| rows (memory) | memory MAPE |\n"
                      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (int i = 0; i < score->n_groups; i++) {
        const pp_group_score *g = &score->groups[i];
        pp_sb_append(out, "| ");
        pp_md_escape(out, g->group);
        if (g->n_time)
            pp_sb_appendf(out, " | %d | %.1f %% | %.1f %%", g->n_time, g->mape_time, g->max_ape_time);
        else
            pp_sb_append(out, " | 0 | - | -");
        if (g->n_pairs)
            pp_sb_appendf(out, " | %d | %.0f %%", g->n_pairs, g->ordered);
        else
            pp_sb_append(out, " | 0 | -");
        if (g->n_memory)
            pp_sb_appendf(out, " | %d | %.1f %% |\n", g->n_memory, g->mape_memory);
        else
            pp_sb_append(out, " | 0 | - |\n");
    }
    if (score->n_defect)
        pp_sb_appendf(out, "| rows whose source reports a software defect (scored apart) | %d | %.1f %% | | | | | |\n",
                      score->n_defect, score->mape_defect);
    order_table(score, out);
    what_table(score, out);
    scale_table(score, out);
    gpu_pairs_table(&score->gpu_pairs, "each priced with the efficiency it was loaded with", out);
    span_table(&score->span, "each priced with the efficiency it was loaded with", out);
    peak_table(score, out);
    feasibility_table(score, out);
    if (rows) {
        md_rows(set, out);
        md_skipped(set, out);
    }
    return out->failed ? -1 : 0;
}

/* held_out: also each row's price with the fit on every other group */
static void json_rows(cJSON *root, const pp_measurement_set *set, bool held_out)
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
        if (held_out) {
            cJSON_AddNumberToObject(o, "predicted_cv_s", r->cv_predicted_s);
            cJSON_AddNumberToObject(o, "error_cv_pct", (r->cv_predicted_s / r->iteration_s - 1.0) * 100.0);
        }
        if (r->defect)
            cJSON_AddBoolToObject(o, "software_defect", true);
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
        cJSON_AddNumberToObject(o, "same_job_pairs", g->n_pairs);
        if (g->n_pairs)
            cJSON_AddNumberToObject(o, "ordered_pct", g->ordered);
        json_gap_bins(o, g->bin_pairs, "ordered", g->bin_ordered, NULL, NULL);
        cJSON_AddNumberToObject(o, "rows_memory", g->n_memory);
        cJSON_AddNumberToObject(o, "mape_memory_pct", g->mape_memory);
        cJSON_AddNumberToObject(o, "rows_peak_memory", g->n_peak);
        cJSON_AddNumberToObject(o, "mape_peak_memory_pct", g->mape_peak);
        cJSON_AddNumberToObject(o, "signed_peak_memory_pct", g->signed_peak);
        cJSON_AddNumberToObject(o, "runs", g->n_ran);
        cJSON_AddNumberToObject(o, "runs_priced_fit", g->ran_fit);
        cJSON_AddNumberToObject(o, "oom_runs", g->n_oom);
        cJSON_AddNumberToObject(o, "oom_runs_priced_over", g->oom_over);
        cJSON_AddNumberToObject(o, "scale_pairs", g->n_scale);
        if (g->n_scale) {
            cJSON_AddNumberToObject(o, "scale_gap_pct", g->scale_gap);
            cJSON_AddNumberToObject(o, "scale_doublings", g->scale_doublings);
        }
        cJSON_AddItemToArray(groups, o);
    }
    cJSON *what = cJSON_AddArrayToObject(root, "order_by_decision");
    for (int w = 0; what && w < PP_PAIR_WHAT; w++)
        if (score->what_pairs[w]) {
            char name[64];
            cJSON *x = cJSON_CreateObject();
            cJSON_AddStringToObject(x, "differs", what_name(w, name, sizeof name));
            cJSON_AddNumberToObject(x, "pairs", score->what_pairs[w]);
            cJSON_AddNumberToObject(x, "ordered", score->what_ordered[w]);
            cJSON_AddItemToArray(what, x);
        }
    cJSON_AddNumberToObject(root, "rows_skipped", set->n_skipped);
    cJSON *skipped = cJSON_AddArrayToObject(root, "skipped");
    for (int i = 0; skipped && i < set->n_skipped_listed; i++)
        cJSON_AddItemToArray(skipped, cJSON_CreateString(set->skipped[i]));
    cJSON_AddNumberToObject(root, "rows_time_software_defect", score->n_defect);
    cJSON_AddNumberToObject(root, "mape_time_software_defect_pct", score->mape_defect);
    json_span(root, &score->span);
    json_gpu_pairs(root, &score->gpu_pairs);
    if (rows)
        json_rows(root, set, false);
    return root;
}

/* ---- cross-validation --------------------------------------------------- */

static void pairs_cell(pp_strbuf *out, int n, double cv, double in)
{
    if (n)
        pp_sb_appendf(out, " | %d | %.0f %% | %.0f %% |\n", n, 100.0 * cv, 100.0 * in);
    else
        pp_sb_append(out, " | 0 | - | - |\n");
}

static void cv_table(const pp_cv_result *cv, pp_strbuf *out)
{
    pp_sb_append(out, "| source group | rows | cross-validated step-time MAPE | worst row (CV) | mean signed error (CV) "
                      "| in-sample MAPE | same-job pairs | ordered as measured (CV) | ordered (in-sample) |\n"
                      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (int i = 0; i < cv->n_groups; i++) {
        const pp_cv_group *g = &cv->groups[i];
        if (!g->n_time) /* every timed row of it reports a software defect */
            continue;
        pp_sb_append(out, "| ");
        pp_md_escape(out, g->group);
        pp_sb_appendf(out, " | %d | %.1f %% | %.1f %% | %+.1f %% | %.1f %%", g->n_time, g->mape_cv, g->max_ape_cv,
                      g->bias_cv, g->mape_in);
        pairs_cell(out, g->n_pairs, g->ordered_cv, g->ordered_in);
    }
    pp_sb_appendf(out, "| **all dense rows** | %d | **%.1f %%** | | | %.1f %%", cv->n_rows, cv->mape_cv, cv->mape_in);
    pairs_cell(out, cv->n_pairs, cv->ordered_cv, cv->ordered_in);
    int dense_groups = 0;
    for (int i = 0; i < cv->n_groups; i++)
        dense_groups += cv->groups[i].n_time > 0 && !cv->groups[i].moe;
    pp_sb_appendf(out, "| mean of dense groups | %d | %.1f %% | | | |", dense_groups, cv->group_mape_cv);
    pp_sb_append(out, " | | |\n");
    if (cv->n_moe_rows)
        pp_sb_appendf(out, "| Mixture-of-Experts rows (scored, not fitted) | %d | %.1f %% | | | | | |\n",
                      cv->n_moe_rows, cv->moe_mape_cv);
    if (cv->n_defect_rows)
        pp_sb_appendf(out, "| rows whose source reports a software defect (scored, not fitted) | %d | %.1f %% | | | | | |\n",
                      cv->n_defect_rows, cv->defect_mape_cv);
}

/* Pairs by measured gap, cross-validated and in sample. */
static void cv_order_row(pp_strbuf *out, const int *n, const int *k_cv, const int *k_in)
{
    for (int b = 0; b < PP_GAP_BINS; b++) {
        pp_sb_appendf(out, " | %d", n[b]);
        if (n[b])
            pp_sb_appendf(out, " | %.0f %% | %.0f %%", 100.0 * k_cv[b] / n[b], 100.0 * k_in[b] / n[b]);
        else
            pp_sb_append(out, " | - | -");
    }
    pp_sb_append(out, " |\n");
}

static void cv_order_table(const pp_cv_result *cv, pp_strbuf *out)
{
    pp_sb_append(out, "\n## Same-job order by measured gap\n\n"
                      "The same pairs by the gap between their measured step times (slower / faster - 1): the "
                      "share each prediction orders as measured, held out (CV: the group priced with the fit "
                      "on the other groups) and in sample.\n\n| source group");
    for (int b = 0; b < PP_GAP_BINS; b++)
        pp_sb_appendf(out, " | pairs %s apart | ordered (CV) | (in-sample)", pp_gap_bin_name(b));
    pp_sb_append(out, " |\n| ---");
    for (int b = 0; b < 3 * PP_GAP_BINS; b++)
        pp_sb_append(out, " | ---:");
    pp_sb_append(out, " |\n");
    for (int i = 0; i < cv->n_groups; i++) {
        const pp_cv_group *g = &cv->groups[i];
        if (!g->n_time || !g->n_pairs)
            continue;
        pp_sb_append(out, "| ");
        pp_md_escape(out, g->group);
        if (g->moe)
            pp_sb_append(out, " (Mixture-of-Experts, not in the total)");
        cv_order_row(out, g->bin_pairs, g->bin_ordered_cv, g->bin_ordered_in);
    }
    pp_sb_append(out, "| **all dense groups**");
    cv_order_row(out, cv->bin_pairs, cv->bin_ordered_cv, cv->bin_ordered_in);
}

/* "3-10 % apart: 40 of 45 (89 %)" for each bin, cross-validated. */
static void order_of_record(const pp_cv_result *cv, pp_strbuf *out)
{
    pp_sb_append(out, " Same-job pairs of the dense groups ordered as measured, cross-validated (in sample):");
    for (int b = 0; b < PP_GAP_BINS; b++) {
        int n = cv->bin_pairs[b];
        pp_sb_appendf(out, "%s %s apart ", b ? ";" : "", pp_gap_bin_name(b));
        if (n)
            pp_sb_appendf(out, "**%d of %d (%.0f %%)** (%.0f %%)", cv->bin_ordered_cv[b], n,
                          100.0 * cv->bin_ordered_cv[b] / n, 100.0 * cv->bin_ordered_in[b] / n);
        else
            pp_sb_append(out, "none");
    }
    pp_sb_append(out, ".\n");
}

static void params_table(const pp_cv_result *cv, pp_strbuf *out)
{
    pp_sb_append(out, "| GPU | parameter | fitted | physical bounds | source of the bounds |\n"
                      "| --- | --- | ---: | ---: | --- |\n");
    for (int k = 0; k < cv->n_fits; k++) {
        const pp_fit *f = &cv->fits[k];
        for (int i = 0; f->family && i < PP_EFF_COUNT; i++) {
            const pp_eff_bound *b = &f->family->bound[i];
            double lo = b->lo, hi = b->hi;
            const char *src = b->source, *fam = f->family->name;
            double tol = 1e-3 * (hi - lo);
            double v = pp_efficiency_value(&f->eff, i);
            const char *edge = v <= lo + tol ? " (at lower bound)" : v >= hi - tol ? " (at upper bound)" : "";
            pp_sb_append(out, "| ");
            pp_md_escape(out, f->gpu_id);
            pp_sb_appendf(out, " (%d rows) | `%s` | %.3g%s | %.3g - %.3g | %s: ", f->n_rows, pp_efficiency_key(i), v, edge,
                          lo, hi, fam);
            pp_md_escape(out, src);
            pp_sb_append(out, " |\n");
        }
    }
}

/* Each timed row's held-out price beside its in-sample one: which rows the
 * fit without their group misses, and by how much. */
static void md_cv_rows(const pp_measurement_set *set, pp_strbuf *out)
{
    pp_sb_append(out, "\n## Rows, held out\n\nEach timed row: its step time priced with the fit on every other "
                      "group (held out) and with the fit on all groups (in sample), the one measured, and the "
                      "held-out error (positive: predicted too slow).\n\n"
                      "| row | source group | held out (s) | in sample (s) | measured (s) | error (held out) |\n"
                      "| --- | --- | ---: | ---: | ---: | ---: |\n");
    for (int i = 0; i < set->n; i++) {
        const pp_measurement *r = &set->rows[i];
        if (!r->has_time)
            continue;
        double in_sample;
        pp_row_time_error_pct(r, &in_sample);
        md_row_id_group(r, out);
        pp_sb_appendf(out, " | %.3f | %.3f | %.3f | %+.1f %% |\n", r->cv_predicted_s, in_sample, r->iteration_s,
                      (r->cv_predicted_s / r->iteration_s - 1.0) * 100.0);
    }
}

int pp_report_cv_md(const pp_cv_result *cv, const pp_score *score, const pp_measurement_set *set,
                    const char *command, bool rows, pp_strbuf *out)
{
    pp_sb_appendf(out, "# parplan: cost-model accuracy, cross-validated\n\n%d rows priced from %d file(s), %d skipped "
                       "(nothing measured to price, a GPU or a model the catalog lacks, a precision its GPU does not train "
                       "in, or a configuration that breaks a plan rule).\n\n",
                  set->n, set->n_files, set->n_skipped);
    first_skipped_md(set, out);
    if (command)
        pp_sb_appendf(out, "```sh\n%s\n```\n\n", command);
    pp_sb_append(out, "## Step time, leave-one-source-group-out\n\n"
                      "Each group's rows are priced with parameters fitted on every *other* group (a GPU no other "
                      "group has borrows them from its nearest donor that one has, as gpus.json's "
                      "efficiency_borrow lends them without a fit of its own; with none, the middle of its "
                      "bounds); the in-sample column prices them with "
                      "the fit on all groups, for comparison only. A positive signed error means the model "
                      "predicts a slower step than measured. Same-job pairs: two rows of one group with the same "
                      "model, GPU count and global batch, run with different plans, whose measured step times "
                      "differ by more than 3 %; a pair priced alike is not ordered.\n\n");
    cv_table(cv, out);
    pp_sb_appendf(out,
                  "\nAccuracy of record (mean cross-validated step-time error over all dense rows; "
                  "Mixture-of-Experts rows, and rows whose source reports their speed as a software defect, are "
                  "scored apart): **%.1f %%**.",
                  100.0 * pp_cv_step_time_error(cv));
    order_of_record(cv, out);
    cv_order_table(cv, out);
    gpu_pairs_table(&cv->gpu_pairs_cv, "each priced with the fit on every other group", out);
    span_table(&cv->span_cv, "each priced with the fit on every other group", out);
    bool any_memory = false;
    for (int i = 0; score && i < score->n_groups; i++)
        any_memory |= score->groups[i].n_memory > 0;
    if (any_memory) {
        pp_sb_append(out, "\nMemory is not fitted, so it is the same in and out of sample:\n\n"
                          "| source group | rows (memory) | memory MAPE |\n| --- | ---: | ---: |\n");
        for (int i = 0; i < score->n_groups; i++)
            if (score->groups[i].n_memory) {
                pp_sb_append(out, "| ");
                pp_md_escape(out, score->groups[i].group);
                pp_sb_appendf(out, " | %d | %.1f %% |\n", score->groups[i].n_memory, score->groups[i].mape_memory);
            }
    }
    peak_table(score, out);
    if (cv->shots > 0) {
        pp_sb_appendf(out, "\n## Few-shot: %d measured step%s of a group, the rest predicted\n\n"
                           "As a team calibrates (`parplan calibrate` on its own rows): for each group with more "
                           "than %d timed rows, the fit without the group is the prior, %d of its rows (spread evenly "
                           "over the file) update it by bounded maximum a posteriori (only the parameters those rows "
                           "identify move; docs/calibration.md; a Mixture-of-Experts group's shots set its GPUs' "
                           "stack level only), and the group's other rows are scored. The "
                           "held-out column prices the same rows without the shots.\n\n"
                           "| source group | rows scored | MAPE after %d shot%s | held-out MAPE (no shots) |\n"
                           "| --- | ---: | ---: | ---: |\n",
                      cv->shots, cv->shots == 1 ? "" : "s", cv->shots, cv->shots, cv->shots,
                      cv->shots == 1 ? "" : "s");
        for (int i = 0; i < cv->n_groups; i++) {
            const pp_cv_group *g = &cv->groups[i];
            if (!g->n_shot_rest)
                continue;
            pp_sb_append(out, "| ");
            pp_md_escape(out, g->group);
            pp_sb_appendf(out, "%s | %d | %.1f %% | %.1f %% |\n",
                          g->moe ? " (Mixture-of-Experts, not in the mean)" : "", g->n_shot_rest, g->mape_shot,
                          g->mape_shot_cv);
        }
        pp_sb_appendf(out, "| **mean of %d groups** | | **%.1f %%** | %.1f %% |\n", cv->n_shot_groups,
                      cv->shot_group_mape, cv->shot_group_mape_cv);
        if (cv->n_shot_moe_groups)
            pp_sb_appendf(out, "| mean of %d Mixture-of-Experts group%s | | %.1f %% | %.1f %% |\n",
                          cv->n_shot_moe_groups, cv->n_shot_moe_groups == 1 ? "" : "s", cv->shot_moe_group_mape,
                          cv->shot_moe_group_mape_cv);
    }
    if (rows)
        md_cv_rows(set, out);
    pp_sb_append(out, "\n## Fitted parameters (all groups) and their physical bounds\n\n");
    params_table(cv, out);
    return out->failed ? -1 : 0;
}

cJSON *pp_json_cv(const pp_cv_result *cv, const pp_measurement_set *set, bool rows)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "method", "leave-one-source-group-out");
    cJSON_AddNumberToObject(root, "rows_time", cv->n_rows);
    cJSON_AddNumberToObject(root, "mape_time_cv_pct", cv->mape_cv);
    cJSON_AddNumberToObject(root, "mape_time_in_sample_pct", cv->mape_in);
    cJSON_AddNumberToObject(root, "group_mean_mape_time_cv_pct", cv->group_mape_cv);
    cJSON_AddNumberToObject(root, "step_time_error", pp_cv_step_time_error(cv));
    cJSON_AddNumberToObject(root, "same_job_pairs", cv->n_pairs);
    cJSON_AddNumberToObject(root, "ordered_cv", cv->ordered_cv);
    cJSON_AddNumberToObject(root, "ordered_in_sample", cv->ordered_in);
    json_gap_bins(root, cv->bin_pairs, "ordered_cv", cv->bin_ordered_cv, "ordered_in_sample", cv->bin_ordered_in);
    cJSON_AddNumberToObject(root, "rows_time_moe", cv->n_moe_rows);
    cJSON_AddNumberToObject(root, "mape_time_moe_cv_pct", cv->moe_mape_cv);
    cJSON_AddNumberToObject(root, "rows_time_software_defect", cv->n_defect_rows);
    cJSON_AddNumberToObject(root, "mape_time_software_defect_cv_pct", cv->defect_mape_cv);
    if (cv->shots > 0) {
        cJSON *fs = cJSON_AddObjectToObject(root, "few_shot");
        cJSON_AddNumberToObject(fs, "shots", cv->shots);
        cJSON_AddNumberToObject(fs, "groups", cv->n_shot_groups);
        cJSON_AddNumberToObject(fs, "group_mean_mape_time_pct", cv->shot_group_mape);
        cJSON_AddNumberToObject(fs, "group_mean_mape_time_cv_same_rows_pct", cv->shot_group_mape_cv);
        cJSON_AddNumberToObject(fs, "moe_groups", cv->n_shot_moe_groups);
        cJSON_AddNumberToObject(fs, "moe_group_mean_mape_time_pct", cv->shot_moe_group_mape);
        cJSON_AddNumberToObject(fs, "moe_group_mean_mape_time_cv_same_rows_pct", cv->shot_moe_group_mape_cv);
    }
    cJSON *groups = cJSON_AddArrayToObject(root, "groups");
    for (int i = 0; i < cv->n_groups; i++) {
        const pp_cv_group *g = &cv->groups[i];
        if (!g->n_time)
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "group", g->group);
        cJSON_AddNumberToObject(o, "rows_time", g->n_time);
        cJSON_AddNumberToObject(o, "mape_time_cv_pct", g->mape_cv);
        cJSON_AddNumberToObject(o, "max_ape_time_cv_pct", g->max_ape_cv);
        cJSON_AddNumberToObject(o, "bias_time_cv_pct", g->bias_cv);
        cJSON_AddNumberToObject(o, "mape_time_in_sample_pct", g->mape_in);
        cJSON_AddNumberToObject(o, "same_job_pairs", g->n_pairs);
        cJSON_AddNumberToObject(o, "ordered_cv", g->ordered_cv);
        cJSON_AddNumberToObject(o, "ordered_in_sample", g->ordered_in);
        json_gap_bins(o, g->bin_pairs, "ordered_cv", g->bin_ordered_cv, "ordered_in_sample", g->bin_ordered_in);
        if (g->n_shot_rest) {
            cJSON_AddNumberToObject(o, "rows_time_after_shots", g->n_shot_rest);
            cJSON_AddNumberToObject(o, "mape_time_after_shots_pct", g->mape_shot);
            cJSON_AddNumberToObject(o, "mape_time_cv_same_rows_pct", g->mape_shot_cv);
        }
        cJSON_AddItemToArray(groups, o);
    }
    cJSON *fits = cJSON_AddArrayToObject(root, "fits");
    for (int k = 0; k < cv->n_fits; k++) {
        const pp_fit *f = &cv->fits[k];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "gpu", f->gpu_id);
        cJSON_AddNumberToObject(o, "rows", f->n_rows);
        cJSON *params = cJSON_AddObjectToObject(o, "parameters");
        for (int i = 0; f->family && i < PP_EFF_COUNT; i++) {
            double lo = f->family->bound[i].lo, hi = f->family->bound[i].hi;
            cJSON *p = cJSON_AddObjectToObject(params, pp_efficiency_key(i));
            cJSON_AddNumberToObject(p, "value", pp_efficiency_value(&f->eff, i));
            cJSON_AddNumberToObject(p, "lower_bound", lo);
            cJSON_AddNumberToObject(p, "upper_bound", hi);
        }
        cJSON_AddItemToArray(fits, o);
    }
    json_span(root, &cv->span_cv);
    json_gpu_pairs(root, &cv->gpu_pairs_cv);
    if (rows)
        json_rows(root, set, true);
    return root;
}
