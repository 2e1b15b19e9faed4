/*
 * report_capacity.c: the report and JSON of `parplan capacity` (see
 * report_capacity.h).
 *
 * Numbers are printed with fixed precision (days to a tenth, dollars and
 * GPU-hours to the unit, step times to the millisecond).  Money is written
 * "1,234 USD", never with a dollar sign: two of them on a line start a
 * formula in GitHub's Markdown.  Strings that came from input (GPU and model
 * names, codec ids) are escaped for Markdown, and for the Mermaid chart's
 * quoted title reduced to characters that cannot end the quote.
 */
#include "decisions.h"
#include "explain_text.h"
#include "jsonb.h"
#include "report_capacity.h"

#include "problem.h"
#include "report_md.h"
#include "result_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- formatting ----------------------------------------------------------------- */

/* "15 trillion", "300 billion": a token count in words. */
static const char *fmt_tokens(double v, char *buf, size_t cap)
{
    if (v >= 1e12)
        snprintf(buf, cap, "%.4g trillion", v / 1e12);
    else if (v >= 1e9)
        snprintf(buf, cap, "%.4g billion", v / 1e9);
    else if (v >= 1e6)
        snprintf(buf, cap, "%.4g million", v / 1e6);
    else
        snprintf(buf, cap, "%.0f", v);
    return buf;
}

static const char *fmt_usd(double v, char *buf, size_t cap)
{
    if (!isfinite(v))
        return snprintf(buf, cap, "n/a (no price)"), buf;
    char n[48];
    snprintf(buf, cap, "%s USD", pp_md_fmt_count(v, n, sizeof n));
    return buf;
}

static const char *kind_name(const pp_problem *prob, int kind)
{
    return pp_capacity_kind_name(prob, kind);
}

static void md_point_label(pp_strbuf *sb, const pp_problem *prob, const pp_capacity_point *p)
{
    char g[48];
    pp_sb_appendf(sb, "%ld node%s of ", p->nodes, p->nodes == 1 ? "" : "s");
    pp_md_escape(sb, kind_name(prob, p->kind));
    pp_sb_appendf(sb, " (%s GPUs)", pp_md_fmt_count((double)p->gpus, g, sizeof g));
    char cal[160];
    pp_text_calibration(&prob->capacity.gpus[p->kind].gpu.eff, true, cal, sizeof cal);
    if (cal[0]) {
        pp_sb_append(sb, " (");
        pp_md_escape(sb, cal);
        pp_sb_append(sb, ")");
    }
}

/* The plan in a table cell: degrees, then only the choices that are on. */
static void md_short_plan(pp_strbuf *sb, const pp_problem *prob, const pp_plan *p)
{
    pp_plan_describe_short(sb, prob, p, pp_md_escape);
}

static const char *objective_phrase(pp_objective o)
{
    switch (o) {
    case PP_OBJ_MIN_COST: return "the least cost";
    case PP_OBJ_MIN_GPUS: return "the fewest GPUs";
    default: return "the shortest time to train";
    }
}

/* " within the 90-day deadline, a budget of 1,000 USD and at most 512 GPUs" */
static void md_limits_phrase(pp_strbuf *sb, const pp_capacity *cap)
{
    char a[48];
    int n = (cap->deadline_days > 0) + (cap->budget_usd > 0) + (cap->max_gpus > 0), said = 0;
    if (n == 0)
        return;
    pp_sb_append(sb, " within ");
    if (cap->deadline_days > 0) {
        pp_sb_appendf(sb, "the %g-day deadline", cap->deadline_days);
        said++;
    }
    if (cap->budget_usd > 0) {
        pp_sb_appendf(sb, "%sa budget of %s", said ? (said + 1 == n ? " and " : ", ") : "",
                      fmt_usd(cap->budget_usd, a, sizeof a));
        said++;
    }
    if (cap->max_gpus > 0)
        pp_sb_appendf(sb, "%sat most %s GPUs", said ? " and " : "", pp_md_fmt_count((double)cap->max_gpus, a, sizeof a));
}

/* "3 GPU kinds x 2,048 node counts" */
static void md_sweep_size(pp_strbuf *sb, const pp_problem *prob)
{
    char a[48];
    long counts = pp_capacity_node_count(&prob->capacity);
    pp_sb_appendf(sb, "%d GPU kind%s × %s node count%s", prob->capacity.n_gpus, prob->capacity.n_gpus == 1 ? "" : "s",
                  pp_md_fmt_count((double)counts, a, sizeof a), counts == 1 ? "" : "s");
}

/* ---- summary and the answer ----------------------------------------------------------- */

static void md_summary(pp_strbuf *sb, const pp_problem *prob, const pp_capacity_result *res)
{
    char a[48], b[48], c[48], d[48], t[48];
    if (res->chosen < 0) {
        pp_sb_append(sb, "**No cluster meets the limits.** ");
        pp_md_escape(sb, res->infeasible_reason);
        pp_sb_append(sb, "\n\n");
        return;
    }
    const pp_capacity_point *p = &res->points[res->chosen];
    pp_sb_append(sb, "**Answer:** ");
    md_point_label(sb, prob, p);
    pp_sb_append(sb, " train ");
    pp_md_escape(sb, prob->model.name);
    pp_sb_appendf(sb, " on %s tokens in **%s days**", fmt_tokens(prob->training.tokens, t, sizeof t),
                  pp_md_fmt_fixed(p->time_to_train_days, 1, a, sizeof a));
    if (isfinite(p->cost_usd))
        pp_sb_appendf(sb, " for **%s**", fmt_usd(p->cost_usd, b, sizeof b));
    pp_sb_appendf(sb, " (%s GPU-hours): %s", pp_md_fmt_count(p->gpu_hours, c, sizeof c), objective_phrase(res->objective));
    md_limits_phrase(sb, &prob->capacity);
    pp_sb_appendf(sb, ", among %s clusters (", pp_md_fmt_count((double)res->clusters_considered, d, sizeof d));
    md_sweep_size(sb, prob);
    pp_sb_append(sb, ")");
    if (res->status == PP_STATUS_OPTIMAL)
        pp_sb_append(sb, ", each solved to proven optimality.\n\n");
    else
        pp_sb_append(sb, "; **not proven optimal**: the search of some cluster stopped at the time limit.\n\n");
}

static void md_answer(pp_strbuf *sb, const pp_problem *prob, const pp_capacity_result *res)
{
    const pp_capacity_point *p = &res->points[res->chosen];
    const pp_capacity_gpu *g = &prob->capacity.gpus[p->kind];
    char a[48], b[48], c[48], d[48];
    pp_sb_append(sb, "## The answer\n\n| | value |\n| --- | --- |\n| GPU | ");
    pp_md_escape(sb, kind_name(prob, p->kind));
    pp_sb_append(sb, " (");
    pp_md_escape(sb, g->gpu.id);
    pp_sb_append(sb, ") |\n");
    if (!g->gpu.eff.calibrated && !g->gpu.eff.borrowed_from[0])
        pp_sb_append(sb, "| calibration | **none**: this GPU kind's efficiencies are built-in defaults, not fitted to "
                         "measurements, so its times (and this choice) are rough: calibrate it before acting on it "
                         "(docs/calibration.md) |\n");
    else if (g->gpu.eff.borrowed_from[0]) {
        char cal[512];
        pp_text_calibration(&g->gpu.eff, false, cal, sizeof cal);
        pp_sb_append(sb, g->gpu.eff.calibrated ? "| calibration | " : "| calibration | **borrowed**: ");
        pp_md_escape(sb, cal);
        pp_sb_append(sb, " |\n");
    }
    pp_sb_appendf(sb, "| cluster | %ld node%s × %d GPUs = %s GPUs (%g GB/s NVLink, %g Gb/s network per GPU) |\n",
                  p->nodes, p->nodes == 1 ? "" : "s", g->gpus_per_node, pp_md_fmt_count((double)p->gpus, a, sizeof a),
                  g->intra_node_GBps, g->inter_node_Gbps);
    pp_sb_append(sb, "| plan | ");
    pp_md_plan_line(sb, res->chosen_problem, &p->best.plan);
    pp_sb_append(sb, " |\n");
    pp_sb_appendf(sb, "| step time | %s s |\n", pp_md_fmt_fixed(p->step_time_s, 3, a, sizeof a));
    pp_sb_appendf(sb, "| optimizer steps | %s (%s tokens / (%ld sequences × %d tokens)) |\n",
                  pp_md_fmt_count(res->steps, a, sizeof a), fmt_tokens(prob->training.tokens, b, sizeof b),
                  prob->training.global_batch, prob->model.seq_len);
    pp_sb_appendf(sb, "| **time to train** | **%s days** |\n", pp_md_fmt_fixed(p->time_to_train_days, 1, a, sizeof a));
    pp_sb_appendf(sb, "| GPU-hours | %s |\n", pp_md_fmt_count(p->gpu_hours, a, sizeof a));
    if (g->usd_per_gpu_hour > 0)
        pp_sb_appendf(sb, "| price | %s USD per GPU-hour%s |\n", pp_md_fmt_fixed(g->usd_per_gpu_hour, 2, b, sizeof b),
                      g->usd_per_gpu_hour == g->gpu.usd_per_gpu_hour
                          ? " (equal to the catalog's illustrative example price, not a quote)"
                          : "");
    pp_sb_appendf(sb, "| **cost** | **%s** |\n", fmt_usd(p->cost_usd, c, sizeof c));
    pp_sb_appendf(sb, "| MFU | %s %% |\n\n", pp_md_fmt_fixed(100.0 * p->best.eval.mfu, 1, d, sizeof d));
}

/* ---- binding constraints --------------------------------------------------------------- */

static void md_without(pp_strbuf *sb, const pp_problem *prob, const pp_capacity_result *res, int alt)
{
    const pp_capacity_point *q = &res->points[alt];
    char a[48], b[48];
    pp_sb_append(sb, "yes: without it the answer would be ");
    md_point_label(sb, prob, q);
    pp_sb_appendf(sb, ", %s days, %s", pp_md_fmt_fixed(q->time_to_train_days, 1, a, sizeof a),
                  fmt_usd(q->cost_usd, b, sizeof b));
}

static void md_limit_row(pp_strbuf *sb, const pp_problem *prob, const pp_capacity_result *res, const char *name,
                         pp_limit_kind kind, const char *limit_text, const char *answer_text)
{
    const pp_capacity_limit *l = &res->limits[kind];
    pp_sb_appendf(sb, "| %s | %s | %s | ", name, l->given ? limit_text : "none", answer_text);
    if (!l->given)
        pp_sb_append(sb, "n/a");
    else if (l->binding)
        md_without(sb, prob, res, l->without);
    else
        pp_sb_append(sb, "no: the answer is the same without it");
    pp_sb_append(sb, " |\n");
}

static const pp_capacity_no_plan *no_plan_family(const pp_capacity_result *res, const char *family)
{
    for (int i = 0; i < res->n_no_plan; i++)
        if (strcmp(res->no_plan[i].family, family) == 0)
            return &res->no_plan[i];
    return NULL;
}

static void md_memory_row(pp_strbuf *sb, const pp_capacity_result *res)
{
    const pp_capacity_limit *l = &res->limits[PP_LIMIT_MEMORY];
    const pp_capacity_point *p = &res->points[res->chosen];
    char a[48], b[48], c[48];
    pp_sb_appendf(sb, "| memory per GPU | %s GiB usable | %s GiB | ", pp_md_fmt_fixed(l->limit, 2, a, sizeof a),
                  pp_md_fmt_fixed(l->at_answer, 2, b, sizeof b));
    if (isnan(l->without_step_time_s))
        pp_sb_append(sb, "not checked");
    else if (l->binding)
        pp_sb_appendf(sb, "yes: without it this cluster would step in %s s instead of %s s (%s %% faster)",
                      pp_md_fmt_fixed(l->without_step_time_s, 3, a, sizeof a), pp_md_fmt_fixed(p->step_time_s, 3, c, sizeof c),
                      pp_md_fmt_fixed(100.0 * (1.0 - l->without_step_time_s / p->step_time_s), 2, b, sizeof b));
    else
        pp_sb_append(sb, "no: this cluster's fastest plan is as fast without it");
    const pp_capacity_no_plan *np = no_plan_family(res, pp_cons_memory.name);
    if (np)
        pp_sb_appendf(sb, "; it rules out %s cluster%s entirely (below)", pp_md_fmt_count((double)np->clusters, a, sizeof a),
                      np->clusters == 1 ? "" : "s");
    pp_sb_append(sb, " |\n");
}

static void md_binding(pp_strbuf *sb, const pp_problem *prob, const pp_capacity_result *res)
{
    const pp_capacity_point *p = &res->points[res->chosen];
    const pp_capacity_limit *lim = res->limits;
    char l1[64], v1[64], l2[64], v2[64], l3[64], v3[64], n[48];
    pp_sb_append(sb, "## Binding constraints\n\nA limit binds when the answer would be better without it.\n\n"
                     "| constraint | limit | at the answer | binding |\n| --- | ---: | ---: | --- |\n");
    snprintf(l1, sizeof l1, "%g days", lim[PP_LIMIT_DEADLINE].limit);
    snprintf(v1, sizeof v1, "%s days", pp_md_fmt_fixed(p->time_to_train_days, 1, n, sizeof n));
    md_limit_row(sb, prob, res, "deadline", PP_LIMIT_DEADLINE, l1, v1);
    fmt_usd(lim[PP_LIMIT_BUDGET].limit, l2, sizeof l2);
    fmt_usd(p->cost_usd, v2, sizeof v2);
    md_limit_row(sb, prob, res, "budget", PP_LIMIT_BUDGET, l2, v2);
    snprintf(l3, sizeof l3, "%s GPUs", pp_md_fmt_count(lim[PP_LIMIT_MAX_GPUS].limit, n, sizeof n));
    snprintf(v3, sizeof v3, "%s GPUs", pp_md_fmt_count((double)p->gpus, n, sizeof n));
    md_limit_row(sb, prob, res, "GPUs (max_gpus)", PP_LIMIT_MAX_GPUS, l3, v3);
    md_memory_row(sb, res);
    pp_sb_append(sb, "\n");
}

static void md_no_plan(pp_strbuf *sb, const pp_problem *prob, const pp_capacity_result *res)
{
    char a[48], b[48];
    if (res->n_no_plan == 0)
        return;
    pp_sb_appendf(sb,
                  "## Clusters without any plan\n\n%s of the %s clusters have no valid plan, grouped here by the "
                  "limit that rules them out. Divisibility rules out a node count when no tp × pp × dp × cp "
                  "equals its GPUs with dp dividing the global batch and pp the layers; memory, when not even "
                  "the leanest plan fits.\n\n"
                  "| ruled out by | clusters | largest such cluster | why |\n| --- | ---: | --- | --- |\n",
                  pp_md_fmt_count((double)res->clusters_without_plan, a, sizeof a),
                  pp_md_fmt_count((double)res->clusters_considered, b, sizeof b));
    for (int i = 0; i < res->n_no_plan; i++) {
        const pp_capacity_no_plan *np = &res->no_plan[i];
        pp_sb_append(sb, "| ");
        pp_md_escape(sb, np->family);
        pp_sb_appendf(sb, " | %s | %ld node%s of ", pp_md_fmt_count((double)np->clusters, a, sizeof a), np->nodes,
                      np->nodes == 1 ? "" : "s");
        pp_md_escape(sb, kind_name(prob, np->kind));
        pp_sb_append(sb, " | ");
        pp_md_escape(sb, np->example);
        pp_sb_append(sb, " |\n");
    }
    pp_sb_append(sb, "\n");
}

/* ---- frontiers ------------------------------------------------------------------------- */

static int count_pareto(const pp_capacity_result *res, int kind)
{
    int n = 0;
    for (int i = 0; i < res->n_points; i++)
        n += res->points[i].kind == kind && res->points[i].pareto;
    return n;
}

/* The chart's title: the GPU name without anything that could end the
 * quoted string or start markup. */
static void chart_title(pp_strbuf *sb, const char *name)
{
    pp_sb_append(sb, "    title \"");
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p >= 0x20 && *p < 0x7f && !strchr("\"\\`<>#;:{}[]", *p))
            pp_sb_appendn(sb, (const char *)p, 1);
    pp_sb_append(sb, ": days to train vs GPUs\"\n");
}

/* Whether a frontier point is drawn: with a deadline, the clusters that
 * take over CHART_DEADLINE_SPAN times as long would flatten everything else
 * (and the deadline line) against the axis, so they are left to the table
 * unless that leaves fewer than two points. */
#define CHART_DEADLINE_SPAN 10.0

static bool charted(const pp_problem *prob, const pp_capacity_result *res, int kind, const pp_capacity_point *p)
{
    if (p->kind != kind || !p->pareto)
        return false;
    double deadline = prob->capacity.deadline_days;
    if (deadline <= 0)
        return true;
    int near = 0;
    for (int i = 0; i < res->n_points; i++)
        near += res->points[i].kind == kind && res->points[i].pareto &&
                res->points[i].time_to_train_days <= CHART_DEADLINE_SPAN * deadline;
    return near < 2 || p->time_to_train_days <= CHART_DEADLINE_SPAN * deadline;
}

static int count_charted(const pp_problem *prob, const pp_capacity_result *res, int kind)
{
    int n = 0;
    for (int i = 0; i < res->n_points; i++)
        n += charted(prob, res, kind, &res->points[i]);
    return n;
}

/* The indices (into points) of the chart's points: every charted frontier
 * point of the kind, or PP_CAPACITY_CHART_POINTS of them evenly spread. */
static int chart_points(const pp_problem *prob, const pp_capacity_result *res, int kind, int *idx)
{
    int n = 0, total = count_charted(prob, res, kind), seen = 0;
    for (int i = 0; i < res->n_points; i++) {
        if (!charted(prob, res, kind, &res->points[i]))
            continue;
        if (total <= PP_CAPACITY_CHART_POINTS) {
            idx[n++] = i;
        } else {
            /* keep seen == round(j (total-1) / (CHART-1)) for the next j */
            double next = (double)n * (total - 1) / (PP_CAPACITY_CHART_POINTS - 1);
            if (n < PP_CAPACITY_CHART_POINTS && seen >= (int)floor(next + 0.5))
                idx[n++] = i;
        }
        seen++;
    }
    return n;
}

static void md_chart(pp_strbuf *sb, const pp_problem *prob, const pp_capacity_result *res, int kind)
{
    int idx[PP_CAPACITY_CHART_POINTS];
    int n = chart_points(prob, res, kind, idx);
    char a[48];
    if (n < 2) {
        pp_sb_append(sb, "(One point: no chart.)\n\n");
        return;
    }
    pp_sb_append(sb, "```mermaid\nxychart-beta\n");
    chart_title(sb, kind_name(prob, kind));
    pp_sb_append(sb, "    x-axis \"GPUs\" [");
    for (int j = 0; j < n; j++)
        pp_sb_appendf(sb, "%s%ld", j ? ", " : "", res->points[idx[j]].gpus);
    pp_sb_append(sb, "]\n    y-axis \"days to train\"\n    line [");
    for (int j = 0; j < n; j++)
        pp_sb_appendf(sb, "%s%s", j ? ", " : "", pp_md_fmt_fixed(res->points[idx[j]].time_to_train_days, 1, a, sizeof a));
    pp_sb_append(sb, "]\n");
    if (prob->capacity.deadline_days > 0) {
        pp_sb_append(sb, "    line [");
        for (int j = 0; j < n; j++)
            pp_sb_appendf(sb, "%s%g", j ? ", " : "", prob->capacity.deadline_days);
        pp_sb_append(sb, "]\n");
    }
    pp_sb_append(sb, "```\n\n");
    int total = count_pareto(res, kind), near = count_charted(prob, res, kind);
    if (near < total)
        pp_sb_appendf(sb, "The chart leaves out the %d smallest frontier cluster%s, which take over %g times the "
                          "deadline.%s\n\n",
                      total - near, total - near == 1 ? "" : "s", CHART_DEADLINE_SPAN,
                      near > n ? "" : " The table has every point.");
    if (near > n)
        pp_sb_appendf(sb, "The chart shows %d of those %d frontier points, evenly spread; the table has them all.\n\n",
                      n, near);
}

static void md_frontier_row(pp_strbuf *sb, const pp_problem *prob, const pp_capacity_result *res, int i)
{
    const pp_capacity_point *p = &res->points[i];
    char a[48], b[48], c[48], d[48], e[48], f[48];
    bool chosen = i == res->chosen;
    pp_sb_appendf(sb, "| %s%s%s | %ld | %s | %s | %s | %s | %s %% | ", chosen ? "**" : "",
                  pp_md_fmt_count((double)p->gpus, a, sizeof a), chosen ? "**" : "", p->nodes,
                  pp_md_fmt_fixed(p->time_to_train_days, 1, b, sizeof b),
                  isfinite(p->cost_usd) ? pp_md_fmt_count(p->cost_usd, c, sizeof c) : "n/a",
                  pp_md_fmt_count(p->gpu_hours, d, sizeof d), pp_md_fmt_fixed(p->step_time_s, 3, e, sizeof e),
                  pp_md_fmt_fixed(100.0 * p->best.eval.mfu, 1, f, sizeof f));
    md_short_plan(sb, prob, &p->best.plan);
    pp_sb_appendf(sb, " | %s |\n", chosen ? "**answer**" : p->within_limits ? "yes" : "no");
}

static void md_frontier_kind(pp_strbuf *sb, const pp_problem *prob, const pp_capacity_result *res, int kind)
{
    int with_plan = 0;
    for (int i = 0; i < res->n_points; i++)
        with_plan += res->points[i].kind == kind;
    pp_sb_append(sb, "### ");
    pp_md_escape(sb, kind_name(prob, kind));
    pp_sb_append(sb, "\n\n");
    char cal[512];
    pp_text_calibration(&prob->capacity.gpus[kind].gpu.eff, false, cal, sizeof cal);
    if (cal[0]) {
        pp_sb_append(sb, "Calibration: ");
        pp_md_escape(sb, cal);
        pp_sb_append(sb, ".\n\n");
    }
    if (with_plan == 0) {
        pp_sb_append(sb, "No cluster of this GPU has a plan.\n\n");
        return;
    }
    pp_sb_appendf(sb,
                  "%d of %d cluster%s with a plan are on the frontier (every cluster with fewer GPUs takes longer).\n\n"
                  "| GPUs | nodes | days | cost (USD) | GPU-hours | step (s) | MFU | plan | within limits |\n"
                  "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |\n",
                  count_pareto(res, kind), with_plan, with_plan == 1 ? "" : "s");
    for (int i = 0; i < res->n_points; i++)
        if (res->points[i].kind == kind && res->points[i].pareto)
            md_frontier_row(sb, prob, res, i);
    pp_sb_append(sb, "\n");
    md_chart(sb, prob, res, kind);
}

static void md_frontiers(pp_strbuf *sb, const pp_problem *prob, const pp_capacity_result *res)
{
    pp_sb_append(sb, "## Pareto frontier per GPU kind: time to train against GPUs\n\n"
                     "Each row is the fastest plan of one cluster, proven optimal. A cluster is left out when a "
                     "cluster of the same GPU with fewer GPUs trains at least as fast (it is then also cheaper). "
                     "The JSON result (`frontier`) lists every cluster with a plan.");
    if (prob->capacity.deadline_days > 0)
        pp_sb_append(sb, " In the charts, the flat line is the deadline.");
    pp_sb_append(sb, "\n\n");
    for (int k = 0; k < prob->capacity.n_gpus; k++)
        md_frontier_kind(sb, prob, res, k);
}

/* Points by time to train ascending, kept when cheaper than every faster
 * one: the cost of finishing by each date. */
static int cmp_days(const void *x, const void *y, const pp_capacity_point *pts)
{
    const pp_capacity_point *p = &pts[*(const int *)x], *q = &pts[*(const int *)y];
    if (p->time_to_train_days != q->time_to_train_days)
        return p->time_to_train_days < q->time_to_train_days ? -1 : 1;
    if (p->cost_usd != q->cost_usd)
        return p->cost_usd < q->cost_usd ? -1 : 1;
    return *(const int *)x - *(const int *)y;
}

static void sort_by_days(int *idx, int n, const pp_capacity_point *pts)
{
    for (int i = 1; i < n; i++) /* insertion sort: stable and small */
        for (int j = i; j > 0 && cmp_days(&idx[j - 1], &idx[j], pts) > 0; j--) {
            int t = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
        }
}

static void md_cost_time(pp_strbuf *sb, const pp_problem *prob, const pp_capacity_result *res)
{
    if (res->n_points == 0 || !isfinite(res->points[0].cost_usd))
        return;
    int *idx = malloc((size_t)res->n_points * sizeof *idx);
    if (!idx) {
        sb->failed = true;
        return;
    }
    for (int i = 0; i < res->n_points; i++)
        idx[i] = i;
    sort_by_days(idx, res->n_points, res->points);
    pp_sb_append(sb, "## Cost against time to train, every GPU kind\n\n"
                     "The cheapest cluster for each time to train: every faster cluster costs more.\n\n"
                     "| days | cost (USD) | cluster | within limits |\n| ---: | ---: | --- | --- |\n");
    double cheapest = INFINITY;
    char a[48], b[48];
    for (int j = 0; j < res->n_points; j++) {
        const pp_capacity_point *p = &res->points[idx[j]];
        if (!(p->cost_usd < cheapest))
            continue;
        cheapest = p->cost_usd;
        bool chosen = idx[j] == res->chosen;
        pp_sb_appendf(sb, "| %s | %s | ", pp_md_fmt_fixed(p->time_to_train_days, 1, a, sizeof a),
                      pp_md_fmt_count(p->cost_usd, b, sizeof b));
        md_point_label(sb, prob, p);
        pp_sb_appendf(sb, " | %s |\n", chosen ? "**answer**" : p->within_limits ? "yes" : "no");
    }
    pp_sb_append(sb, "\n");
    free(idx);
}

/* ---- certificate and the plan ---------------------------------------------------------- */

static void md_certificate(pp_strbuf *sb, const pp_problem *prob, const pp_capacity_result *res)
{
    char a[48], b[48], c[48], d[48];
    bool enumerate = res->n_points > 0 && strcmp(res->points[0].cert.method, "enumerate") == 0;
    pp_sb_appendf(sb, "## Why this is the optimum\n\nEach of the %s clusters (",
                  pp_md_fmt_count((double)res->clusters_considered, a, sizeof a));
    md_sweep_size(sb, prob);
    pp_sb_appendf(sb,
                  ") is a planning problem of its own. %s clusters have a plan (%s valid plans in all); for each, "
                  "the fastest plan was %s. "
                  "The other %s have no plan at all (above). On a fixed cluster, the time to train, the GPU-hours "
                  "and the cost are the step time times positive constants of the cluster, so its fastest plan is "
                  "also its cheapest, and if any of its plans meets the deadline or the budget, the fastest one "
                  "does. The best of the per-cluster optima that meet the limits is therefore the optimum over "
                  "every GPU kind, node count and plan (proof in docs/capacity.md). Ties are broken by ",
                  pp_md_fmt_count((double)res->n_points, b, sizeof b), pp_md_fmt_count(res->decision_space, d, sizeof d),
                  enumerate ? "found by exhaustive enumeration of every valid plan"
                            : "proven optimal by the MIP (GLPK)",
                  pp_md_fmt_count((double)res->clusters_without_plan, c, sizeof c));
    switch (res->objective) {
    case PP_OBJ_MIN_COST: pp_sb_append(sb, "time to train, then GPUs"); break;
    case PP_OBJ_MIN_GPUS: pp_sb_append(sb, "cost, then time to train"); break;
    default: pp_sb_append(sb, "cost, then GPUs"); break;
    }
    pp_sb_append(sb, ", then the order of the GPU kinds in the problem.\n\n");
    if (res->status == PP_STATUS_TIME_LIMIT)
        pp_sb_append(sb, "**Not proven:** the search of at least one cluster stopped at the time limit.\n\n");
}

/* The plan report of the chosen cluster, its title dropped and its headings
 * one level down (outside code fences), so it nests under ours. */
static void md_embedded_plan(pp_strbuf *sb, const pp_capacity_result *res)
{
    pp_strbuf plan;
    pp_sb_init(&plan);
    pp_report_plan_md(res->chosen_problem, &res->plan, &plan);
    if (plan.failed) {
        sb->failed = true;
        pp_sb_free(&plan);
        return;
    }
    pp_sb_append(sb, "## The plan on the chosen cluster\n\n");
    const char *s = pp_sb_str(&plan);
    bool in_fence = false, first = true;
    while (*s) {
        size_t n = strcspn(s, "\n");
        bool heading = !in_fence && s[0] == '#';
        if (strncmp(s, "```", 3) == 0)
            in_fence = !in_fence;
        if (first && heading) { /* the title */
            s += n + (s[n] == '\n');
            while (*s == '\n')
                s++;
            first = false;
            continue;
        }
        first = false;
        if (heading)
            pp_sb_append(sb, "#");
        pp_sb_appendn(sb, s, n);
        pp_sb_append(sb, "\n");
        s += n + (s[n] == '\n');
    }
    pp_sb_free(&plan);
}

int pp_report_capacity_md(const pp_problem *prob, const pp_capacity_result *res, pp_strbuf *out)
{
    pp_sb_appendf(out, "# parplan: %s\n\n", res->chosen >= 0 ? "capacity plan" : "no cluster meets the limits");
    md_summary(out, prob, res);
    if (res->chosen >= 0) {
        md_answer(out, prob, res);
        md_binding(out, prob, res);
    }
    md_no_plan(out, prob, res);
    md_frontiers(out, prob, res);
    md_cost_time(out, prob, res);
    md_certificate(out, prob, res);
    if (res->chosen >= 0)
        md_embedded_plan(out, res);
    return out->failed ? -1 : 0;
}

/* ---- JSON ------------------------------------------------------------------------------ */

static void push(pp_jb *b, cJSON *arr, cJSON *item)
{
    if (arr && item && cJSON_AddItemToArray(arr, item))
        return;
    cJSON_Delete(item);
    b->ok = false;
}

/* A key the plan result already set is replaced in place, not duplicated. */
static void replace_str(pp_jb *b, cJSON *o, const char *key, const char *s)
{
    if (!o || !cJSON_GetObjectItemCaseSensitive(o, key)) {
        pp_jb_str(b, o, key, s);
        return;
    }
    cJSON *item = pp_jb_check(b, cJSON_CreateString(s ? s : ""));
    if (item && !cJSON_ReplaceItemInObjectCaseSensitive(o, key, item)) {
        cJSON_Delete(item);
        b->ok = false;
    }
}

static void put_cluster(pp_jb *b, cJSON *root, const pp_problem *prob, const pp_capacity_point *p)
{
    const pp_capacity_gpu *g = &prob->capacity.gpus[p->kind];
    cJSON *c = pp_jb_obj(b, root, "cluster");
    pp_jb_str(b, c, "gpu", g->gpu.id[0] ? g->gpu.id : "custom");
    pp_jb_num(b, c, "nodes", (double)p->nodes);
    pp_jb_num(b, c, "gpus", (double)p->gpus);
    pp_jb_num(b, c, "gpus_per_node", g->gpus_per_node);
    pp_jb_num(b, c, "intra_node_GBps", g->intra_node_GBps);
    pp_jb_num(b, c, "inter_node_Gbps", g->inter_node_Gbps);
    pp_jb_num(b, c, "usd_per_gpu_hour", g->usd_per_gpu_hour > 0 ? g->usd_per_gpu_hour : NAN);
}

static cJSON *point_json(pp_jb *b, const pp_problem *prob, const pp_capacity_point *p)
{
    pp_problem *cluster = malloc(sizeof *cluster);
    cJSON *o = pp_jb_check(b, cJSON_CreateObject());
    if (!cluster) {
        b->ok = false;
        return o;
    }
    pp_capacity_cluster_problem(prob, p->kind, p->nodes, cluster);
    const pp_gpu *g = &prob->capacity.gpus[p->kind].gpu;
    pp_jb_str(b, o, "gpu", g->id[0] ? g->id : "custom");
    pp_jb_bool(b, o, "calibrated", g->eff.calibrated);
    pp_json_put_borrow(b, o, &g->eff);
    pp_json_put_stack_level(b, o, &g->eff);
    pp_jb_num(b, o, "nodes", (double)p->nodes);
    pp_jb_num(b, o, "gpus", (double)p->gpus);
    pp_jb_num(b, o, "time_to_train_days", p->time_to_train_days);
    pp_jb_num(b, o, "cost_usd", p->cost_usd);
    pp_jb_num(b, o, "gpu_hours", p->gpu_hours);
    pp_jb_num(b, o, "step_time_s", p->step_time_s);
    pp_jb_num(b, o, "mfu", p->best.eval.mfu);
    pp_jb_str(b, o, "status", pp_status_name(p->status));
    pp_jb_bool(b, o, "pareto", p->pareto);
    pp_jb_bool(b, o, "within_limits", p->within_limits);
    pp_jb_item(b, o, "plan", pp_json_plan(cluster, &p->best.plan));
    free(cluster);
    return o;
}

static void put_frontier(pp_jb *b, cJSON *root, const pp_problem *prob, const pp_capacity_result *res)
{
    cJSON *arr = pp_jb_arr(b, root, "frontier");
    for (int i = 0; arr && i < res->n_points; i++)
        push(b, arr, point_json(b, prob, &res->points[i]));
}

static void put_limits(pp_jb *b, cJSON *root, const pp_capacity_result *res)
{
    static const char *const names[PP_LIMIT_COUNT] = {"deadline_days", "budget_usd", "max_gpus",
                                                      "memory_gib_per_gpu"};
    cJSON *arr = pp_jb_arr(b, root, "limits");
    for (int k = 0; arr && k < PP_LIMIT_COUNT; k++) {
        const pp_capacity_limit *l = &res->limits[k];
        if (!l->given)
            continue;
        cJSON *o = pp_jb_check(b, cJSON_CreateObject());
        pp_jb_str(b, o, "name", names[k]);
        pp_jb_num(b, o, "limit", l->limit);
        pp_jb_num(b, o, "at_answer", l->at_answer);
        pp_jb_bool(b, o, "binding", l->binding);
        if (k == PP_LIMIT_MEMORY)
            pp_jb_num(b, o, "step_time_s_without", l->without_step_time_s);
        else if (l->without >= 0)
            pp_jb_num(b, o, "frontier_index_without", l->without);
        push(b, arr, o);
    }
}

static void put_sweep(pp_jb *b, cJSON *root, const pp_problem *prob, const pp_capacity_result *res)
{
    cJSON *s = pp_jb_obj(b, root, "sweep");
    pp_jb_str(b, s, "method", res->n_points > 0 ? res->points[0].cert.method : "milp");
    pp_jb_num(b, s, "gpu_kinds", prob->capacity.n_gpus);
    pp_jb_num(b, s, "node_counts", (double)pp_capacity_node_count(&prob->capacity));
    pp_jb_num(b, s, "clusters_considered", (double)res->clusters_considered);
    pp_jb_num(b, s, "clusters_with_plan", res->n_points);
    pp_jb_num(b, s, "clusters_without_plan", (double)res->clusters_without_plan);
    pp_jb_num(b, s, "decision_space", res->decision_space);
    cJSON *arr = pp_jb_arr(b, s, "without_plan");
    for (int i = 0; arr && i < res->n_no_plan; i++) {
        const pp_capacity_no_plan *np = &res->no_plan[i];
        cJSON *o = pp_jb_check(b, cJSON_CreateObject());
        pp_jb_str(b, o, "reason", np->family);
        pp_jb_num(b, o, "clusters", (double)np->clusters);
        pp_jb_str(b, o, "largest_gpu", prob->capacity.gpus[np->kind].gpu.id);
        pp_jb_num(b, o, "largest_nodes", (double)np->nodes);
        pp_jb_str(b, o, "example", np->example);
        push(b, arr, o);
    }
    pp_jb_num(b, s, "solve_time_s", res->solve_time_s);
}

cJSON *pp_json_capacity_result(const pp_problem *prob, const pp_capacity_result *res)
{
    pp_jb b = {true};
    cJSON *root;
    if (res->chosen >= 0) {
        root = pp_jb_check(&b, pp_json_plan_result(res->chosen_problem, &res->plan));
    } else {
        root = pp_jb_check(&b, cJSON_CreateObject());
        pp_jb_str(&b, root, "infeasible_reason", res->infeasible_reason);
    }
    replace_str(&b, root, "status", pp_status_name(res->status));
    pp_jb_str(&b, root, "objective", pp_objective_name(res->objective));
    if (res->chosen >= 0) {
        const pp_capacity_point *p = &res->points[res->chosen];
        put_cluster(&b, root, prob, p);
        pp_jb_num(&b, root, "time_to_train_days", p->time_to_train_days);
        pp_jb_num(&b, root, "gpu_hours", p->gpu_hours);
        pp_jb_num(&b, root, "cost_usd", p->cost_usd);
    }
    pp_jb_num(&b, root, "tokens", prob->training.tokens);
    pp_jb_num(&b, root, "steps", res->steps);
    put_limits(&b, root, res);
    put_frontier(&b, root, prob, res);
    put_sweep(&b, root, prob, res);
    if (b.ok && root)
        return root;
    cJSON_Delete(root);
    return NULL;
}
