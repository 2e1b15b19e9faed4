/*
 * report_md.c: rendering the Markdown reports of report_md.h.
 *
 * Each section is one function appending to the buffer; the two reports are
 * short lists of sections.  Numbers are printed with fixed precision (seconds
 * to the millisecond, shares and MFU to a tenth of a percent, memory to the
 * hundredth of a GiB) so the same inputs always give the same bytes.
 */
#include "report_md.h"

#include "problem.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- escaping and number formatting -------------------------------------- */

void pp_md_escape(pp_strbuf *sb, const char *s)
{
    static const char special[] = "\\|`*_[]<>#&~!";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            pp_sb_append(sb, " ");
        else if (strchr(special, *p))
            pp_sb_appendf(sb, "\\%c", *p);
        else
            pp_sb_appendn(sb, (const char *)p, 1);
    }
}

/* "98,765": a non-negative count rounded to an integer, with thousands
 * separators; "n/a" when it is not finite. */
static const char *fmt_count(double v, char *buf, size_t cap)
{
    if (!isfinite(v) || v < 0 || v >= 1e18) {
        snprintf(buf, cap, isfinite(v) ? "%.3g" : "n/a", v);
        return buf;
    }
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%.0f", v);
    size_t o = 0;
    for (int i = 0; i < n && o + 2 < cap; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

/* A number with fixed decimals; "n/a" when it is not finite. -0 prints as 0. */
static const char *fmt_fixed(double v, int decimals, char *buf, size_t cap)
{
    if (!isfinite(v))
        snprintf(buf, cap, "n/a");
    else
        snprintf(buf, cap, "%.*f", decimals, fabs(v) < 0.5 * pow(10, -decimals) ? 0.0 : v);
    return buf;
}

static double share_pct(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : 0.0;
}

/* ---- one-line descriptions ---------------------------------------------- */

static const char *codec_id(const pp_problem *prob, int i)
{
    return i >= 0 && i < prob->n_codecs ? prob->codecs[i].id : "none";
}

void pp_md_plan_line(pp_strbuf *sb, const pp_problem *prob, const pp_plan *p)
{
    pp_sb_appendf(sb, "tp=%d pp=%d dp=%d cp=%d micro_batch=%d virtual_stages=%d zero=%d recompute=%s sp=%s",
                  p->tp, p->pp, p->dp, p->cp, p->micro_batch, p->virtual_stages, p->zero,
                  pp_recompute_name(p->recompute), p->sequence_parallel ? "on" : "off");
    if (p->tp_mode != PP_TP_1D)
        pp_sb_appendf(sb, " tp_mode=%s", pp_tp_mode_name(p->tp_mode));
    if (p->tp_mode == PP_TP_2P5D)
        pp_sb_appendf(sb, " tp_depth=%d", p->tp_depth);
    pp_sb_append(sb, " compression dp/tp/pp=");
    for (int d = 0; d < PP_DIM_COUNT; d++) {
        if (d > 0)
            pp_sb_append(sb, "/");
        pp_md_escape(sb, codec_id(prob, p->codec[d]));
    }
}

static void md_problem_line(pp_strbuf *sb, const pp_problem *prob)
{
    const pp_model *m = &prob->model;
    const pp_cluster *c = &prob->cluster;
    char params[32];
    pp_sb_append(sb, "**Model** ");
    pp_md_escape(sb, m->name);
    pp_sb_appendf(sb, ": %s B parameters, %d layers, hidden %d, %d heads, sequence %d. **Cluster** %ld × ",
                  fmt_fixed(pp_model_params(m) / 1e9, 1, params, sizeof params), m->layers, m->hidden, m->heads,
                  m->seq_len, pp_problem_gpus(prob));
    pp_md_escape(sb, c->gpu.name[0] ? c->gpu.name : c->gpu.id);
    pp_sb_appendf(sb, " (%ld node%s of %d; %g GB/s NVLink and %g Gb/s network per GPU). **Training** global batch "
                      "%ld sequences, %s.\n\n",
                  c->nodes, c->nodes == 1 ? "" : "s", c->gpus_per_node, c->intra_node_GBps, c->inter_node_Gbps, prob->training.global_batch,
                  pp_precision_name(prob->training.precision));
}

static void md_plan_paragraph(pp_strbuf *sb, const pp_problem *prob, const pp_plan *plan)
{
    pp_sb_append(sb, "**Plan** ");
    pp_md_plan_line(sb, prob, plan);
    pp_sb_append(sb, "\n\n");
}

/* ---- tables ----------------------------------------------------------- */

static void md_performance(pp_strbuf *sb, const pp_eval *ev)
{
    char a[48], b[48], c[48], d[48], e[48];
    pp_sb_appendf(sb,
                  "## Performance\n\n"
                  "| metric | value |\n| --- | ---: |\n"
                  "| predicted step time | %s s |\n"
                  "| tokens/s | %s |\n"
                  "| model TFLOP/s per GPU | %s |\n"
                  "| MFU (model FLOPs utilization) | %s %% |\n"
                  "| hardware TFLOP/s per GPU (with recomputation) | %s |\n"
                  "| micro-batches per pipeline | %d |\n\n",
                  fmt_fixed(ev->time.step_s, 3, a, sizeof a), fmt_count(ev->tokens_per_s, b, sizeof b),
                  fmt_fixed(ev->model_tflops_per_gpu, 1, c, sizeof c), fmt_fixed(100.0 * ev->mfu, 1, d, sizeof d),
                  fmt_fixed(ev->hardware_tflops_per_gpu, 1, e, sizeof e), ev->microbatches);
}

static void md_time_row(pp_strbuf *sb, const char *part, double v, double step)
{
    char a[48], b[48];
    pp_sb_appendf(sb, "| %s | %s | %s %% |\n", part, fmt_fixed(v, 3, a, sizeof a),
                  fmt_fixed(share_pct(v, step), 1, b, sizeof b));
}

static void md_time(pp_strbuf *sb, const pp_eval *ev)
{
    const pp_time *t = &ev->time;
    char a[48], b[48], c[48], d[48], e[48];
    pp_sb_append(sb, "## Where the step time goes\n\n| part | seconds | share |\n| --- | ---: | ---: |\n");
    md_time_row(sb, "computation (forward, backward, recomputation)", t->compute_s, t->step_s);
    md_time_row(sb, "pipeline bubble", t->bubble_s, t->step_s);
    md_time_row(sb, "exposed communication", t->exposed_comm_s, t->step_s);
    md_time_row(sb, "compression kernels", t->compression_s, t->step_s);
    md_time_row(sb, "optimizer step", t->optimizer_s, t->step_s);
    pp_sb_appendf(sb, "| **step time** | **%s** | **100.0 %%** |\n\n", fmt_fixed(t->step_s, 3, a, sizeof a));
    pp_sb_appendf(sb,
                  "Exposed communication by dimension: tensor-parallel %s s, context-parallel %s s, "
                  "pipeline %s s, data-parallel %s s.\n\n",
                  fmt_fixed(t->tp_comm_s, 3, b, sizeof b), fmt_fixed(t->cp_comm_s, 3, c, sizeof c),
                  fmt_fixed(t->pp_comm_s, 3, d, sizeof d), fmt_fixed(t->dp_comm_s, 3, e, sizeof e));
}

static void md_mem_row(pp_strbuf *sb, const char *part, double gib)
{
    char a[48];
    pp_sb_appendf(sb, "| %s | %s |\n", part, fmt_fixed(gib, 2, a, sizeof a));
}

static void md_fit_sentence(pp_strbuf *sb, const pp_problem *prob, const pp_memory *m)
{
    char a[48], b[48], c[48], h[48];
    fmt_fixed(m->total_gib, 2, a, sizeof a);
    fmt_fixed(m->usable_gib, 2, b, sizeof b);
    if (m->total_gib <= m->usable_gib) {
        pp_sb_appendf(sb, "The plan fits: it needs %s GiB of the %s GiB usable per GPU.\n\n", a, b);
        return;
    }
    pp_sb_appendf(sb,
                  "**The plan does not fit in memory:** it needs %s GiB per GPU, more than the %s GiB usable "
                  "(capacity %s GiB less %s %% headroom)%s.\n\n",
                  a, b, fmt_fixed(m->capacity_gib, 2, c, sizeof c),
                  fmt_fixed(100.0 * prob->memory_headroom, 0, h, sizeof h),
                  m->total_gib > m->capacity_gib ? ", and more than the GPU has at all" : "");
}

static void md_memory(pp_strbuf *sb, const pp_problem *prob, const pp_memory *m)
{
    char a[48], b[48];
    pp_sb_appendf(sb, "## Memory per GPU (most loaded: pipeline stage %d)\n\n| part | GiB |\n| --- | ---: |\n",
                  m->stage);
    md_mem_row(sb, "weights", m->weights_gib);
    md_mem_row(sb, "gradients", m->gradients_gib);
    md_mem_row(sb, "optimizer states", m->optimizer_gib);
    md_mem_row(sb, "activations", m->activations_gib);
    md_mem_row(sb, "other (buffers, workspace)", m->other_gib);
    pp_sb_appendf(sb, "| **total** | **%s** |\n", fmt_fixed(m->total_gib, 2, a, sizeof a));
    md_mem_row(sb, "capacity", m->capacity_gib);
    pp_sb_appendf(sb, "| usable (after %s %% headroom) | %s |\n\n",
                  fmt_fixed(100.0 * prob->memory_headroom, 0, a, sizeof a), fmt_fixed(m->usable_gib, 2, b, sizeof b));
    md_fit_sentence(sb, prob, m);
}

static void md_priced_plan(pp_strbuf *sb, const pp_problem *prob, const pp_plan *plan, const pp_eval *ev)
{
    md_problem_line(sb, prob);
    md_plan_paragraph(sb, prob, plan);
    md_performance(sb, ev);
    md_time(sb, ev);
    md_memory(sb, prob, &ev->mem);
}

static int finish(pp_strbuf *out)
{
    return out->failed ? -1 : 0;
}

/* ---- eval ---------------------------------------------------------------- */

int pp_report_eval_md(const pp_problem *prob, const pp_plan *plan, const pp_eval *ev, pp_strbuf *out)
{
    char a[48];
    pp_sb_append(out, "# parplan: evaluation of a fixed plan\n\n");
    pp_sb_appendf(out, "The cost model predicts one optimizer step in %s s. No optimization was run.\n\n",
                  fmt_fixed(ev->time.step_s, 3, a, sizeof a));
    md_priced_plan(out, prob, plan, ev);
    return finish(out);
}

/* ---- plan ---------------------------------------------------------------- */

static bool has_plan(const pp_plan_result *res)
{
    return res->status != PP_STATUS_INFEASIBLE && res->best.plan.tp >= 1;
}

static const char *plan_title(const pp_plan_result *res)
{
    switch (res->status) {
    case PP_STATUS_OPTIMAL: return "optimal parallel plan";
    case PP_STATUS_TIME_LIMIT: return has_plan(res) ? "best plan found within the time limit" : "time limit reached";
    case PP_STATUS_INFEASIBLE: return "no feasible plan";
    case PP_STATUS_EVALUATED: break;
    }
    return "parallel plan";
}

static void md_summary(pp_strbuf *sb, const pp_plan_result *res)
{
    const pp_certificate *c = &res->cert;
    const pp_eval *ev = &res->best.eval;
    char a[48], b[48], d[48], s[48], g[48], bound[48];
    if (res->status == PP_STATUS_INFEASIBLE) {
        pp_sb_append(sb, "No plan satisfies every constraint: ");
        pp_md_escape(sb, res->infeasible_reason[0] ? res->infeasible_reason : "no reason was given");
        pp_sb_append(sb, "\n\n");
        return;
    }
    if (!has_plan(res)) {
        pp_sb_append(sb, "The search stopped at the time limit before it found any valid plan.\n\n");
        return;
    }
    fmt_fixed(ev->time.step_s, 3, s, sizeof s);
    fmt_count(ev->tokens_per_s, a, sizeof a);
    fmt_fixed(100.0 * ev->mfu, 1, b, sizeof b);
    fmt_count(c->decision_space, d, sizeof d);
    if (res->status == PP_STATUS_TIME_LIMIT)
        pp_sb_appendf(sb,
                      "The search stopped at the time limit, so this plan is **not proven optimal**: its step time "
                      "%s s is within %s %% of the best bound %s s. It runs at %s tokens/s (MFU %s %%).\n\n",
                      s, fmt_fixed(100.0 * c->gap, 2, g, sizeof g), fmt_fixed(c->best_bound_s, 3, bound, sizeof bound), a,
                      b);
    else if (strcmp(c->method, "enumerate") == 0)
        pp_sb_appendf(sb,
                      "Exhaustive evaluation of all %s valid plans found this plan the fastest under the cost "
                      "model: %s s per step, %s tokens/s, MFU %s %%.\n\n",
                      d, s, a, b);
    else
        pp_sb_appendf(sb,
                      "The MIP solver proved this plan optimal among the %s valid plans under the cost model: "
                      "%s s per step, %s tokens/s, MFU %s %%.\n\n",
                      d, s, a, b);
}

static void md_cert_row(pp_strbuf *sb, const char *field, const char *value)
{
    pp_sb_appendf(sb, "| %s | ", field);
    pp_md_escape(sb, value);
    pp_sb_append(sb, " |\n");
}

static void md_cert_seconds(pp_strbuf *sb, const char *field, double v)
{
    char a[48], text[64];
    snprintf(text, sizeof text, "%s s", fmt_fixed(v, 6, a, sizeof a));
    md_cert_row(sb, field, text);
}

/* The bound rows only mean something once a plan was found; the search
 * effort rows depend on the method. */
static void md_certificate(pp_strbuf *sb, const pp_plan_result *res)
{
    const pp_certificate *c = &res->cert;
    bool milp = strcmp(c->method, "enumerate") != 0;
    char v[96], a[48];
    pp_sb_append(sb, "## Certificate\n\n| field | value |\n| --- | --- |\n");
    md_cert_row(sb, "method", c->method);
    md_cert_row(sb, "solver", c->solver);
    md_cert_row(sb, "status", pp_status_name(res->status));
    if (has_plan(res)) {
        md_cert_seconds(sb, "objective (step time)", c->objective_s);
        md_cert_seconds(sb, "best bound", c->best_bound_s);
        snprintf(v, sizeof v, "%s %%", fmt_fixed(100.0 * c->gap, 4, a, sizeof a));
        md_cert_row(sb, "relative gap", v);
    }
    md_cert_row(sb, "valid plans in the decision space", fmt_count(c->decision_space, a, sizeof a));
    if (milp) {
        if (has_plan(res))
            md_cert_seconds(sb, "LP relaxation at the root", c->lp_relaxation_s);
        md_cert_row(sb, "branch-and-bound nodes", fmt_count((double)c->nodes, a, sizeof a));
        snprintf(v, sizeof v, "%d rows, %d columns (%d binary)", c->rows, c->cols, c->binaries);
        md_cert_row(sb, "MIP size", v);
    } else {
        md_cert_row(sb, "plans evaluated", fmt_count((double)c->plans_evaluated, a, sizeof a));
    }
    pp_sb_append(sb, "\nThe solve time is in the JSON result (certificate.solve_time_s); it is left out here so "
                     "that the report depends on the inputs alone.\n\n");
}

static void md_runner_ups(pp_strbuf *sb, const pp_problem *prob, const pp_plan_result *res)
{
    if (res->n_runner_ups <= 0 || !has_plan(res))
        return;
    double best = res->best.eval.time.step_s;
    char a[48], b[48];
    pp_sb_append(sb, "## Runner-ups\n\n| rank | plan | step time (s) | slower than best |\n| ---: | --- | ---: | ---: |\n");
    for (int i = 0; i < res->n_runner_ups; i++) {
        double t = res->runner_ups[i].eval.time.step_s;
        pp_sb_appendf(sb, "| %d | ", i + 2);
        pp_md_plan_line(sb, prob, &res->runner_ups[i].plan);
        pp_sb_appendf(sb, " | %s | +%s %% |\n", fmt_fixed(t, 3, a, sizeof a),
                      fmt_fixed(share_pct(t - best, best), 2, b, sizeof b));
    }
    pp_sb_append(sb, "\n");
}

int pp_report_plan_md(const pp_problem *prob, const pp_plan_result *res, pp_strbuf *out)
{
    pp_sb_appendf(out, "# parplan: %s\n\n", plan_title(res));
    md_summary(out, res);
    if (has_plan(res))
        md_priced_plan(out, prob, &res->best.plan, &res->best.eval);
    else
        md_problem_line(out, prob);
    md_certificate(out, res);
    md_runner_ups(out, prob, res);
    return finish(out);
}
