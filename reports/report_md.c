/*
 * report_md.c: rendering the Markdown reports of report_md.h.
 *
 * Each section is one function appending to the buffer; the two reports are
 * short lists of sections.  Numbers are printed with fixed precision (seconds
 * to the millisecond, shares and MFU to a tenth of a percent, memory to the
 * hundredth of a GiB) so the same inputs always give the same bytes.
 */
#include "report_md.h"

#include "assumptions.h"
#include "decisions.h"
#include "explain_text.h"
#include "launch.h"
#include "mermaid.h"
#include "problem.h"
#include "rules.h"
#include "shapes_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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
const char *pp_md_fmt_count(double v, char *buf, size_t cap)
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
const char *pp_md_fmt_fixed(double v, int decimals, char *buf, size_t cap)
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

void pp_md_plan_line(pp_strbuf *sb, const pp_problem *prob, const pp_plan *p)
{
    pp_plan_describe(sb, prob, p, pp_md_escape);
}

/* What the training section says beyond the precision: LoRA fine-tuning,
 * weights held and activation inputs stored in fp8. */
static void md_training_extras(pp_strbuf *sb, const pp_training *t)
{
    if (t->lora_rank > 0)
        pp_sb_appendf(sb, ", LoRA fine-tuning (rank %d adapters on %s; every other weight frozen)", t->lora_rank,
                      t->lora_targets == PP_LORA_ALL_LINEAR ? "every linear layer" : "the attention projections");
    bool low = pp_precision_props(t->precision)->low_gemm;
    if (t->fp8_params && low)
        pp_sb_append(sb, ", weights held in fp8");
    if (t->fp8_act_store && low)
        pp_sb_append(sb, ", MLP activation inputs stored in fp8");
    if (t->packed_sample_tokens > 0.0)
        pp_sb_appendf(sb, ", packed samples of %g tokens (token-weighted mean)", t->packed_sample_tokens);
    if (t->mtp_layers > 0)
        pp_sb_appendf(sb, ", %d multi-token-prediction module%s trained on the last stage", t->mtp_layers,
                      t->mtp_layers == 1 ? "" : "s");
    else if (t->mtp_not_run > 0)
        pp_sb_appendf(sb, ", without the model's multi-token-prediction module%s (the framework trains none)",
                      t->mtp_not_run == 1 ? "" : "s");
}

static void md_problem_line(pp_strbuf *sb, const pp_problem *prob)
{
    const pp_model *m = &prob->model;
    const pp_cluster *c = &prob->cluster;
    char params[32];
    pp_sb_append(sb, "**Model** ");
    pp_md_escape(sb, m->name);
    pp_sb_appendf(sb, ": %s B parameters, %d layers, hidden %d, %d heads, sequence %d. **Cluster** %ld × ",
                  pp_md_fmt_fixed(pp_model_params(m) / 1e9, 1, params, sizeof params), m->layers, m->hidden, m->heads,
                  m->seq_len, pp_problem_gpus(prob));
    pp_md_escape(sb, c->gpu.name[0] ? c->gpu.name : c->gpu.id);
    pp_sb_appendf(sb, " (%ld node%s of %d; %g GB/s NVLink and %g Gb/s network per GPU). **Training** global batch "
                      "%ld sequences, %s",
                  c->nodes, c->nodes == 1 ? "" : "s", c->gpus_per_node, c->intra_node_GBps, c->inter_node_Gbps, prob->training.global_batch,
                  pp_precision_name(prob->training.precision));
    md_training_extras(sb, &prob->training);
    pp_sb_append(sb, ".\n\n");
}

static void md_plan_paragraph(pp_strbuf *sb, const pp_problem *prob, const pp_plan *plan)
{
    pp_sb_append(sb, "**Plan** ");
    pp_md_plan_line(sb, prob, plan);
    pp_sb_append(sb, "\n\n");
}

/* ---- tables shared by eval and plan ----------------------------------------- */

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
                  pp_md_fmt_fixed(ev->time.step_s, 3, a, sizeof a), pp_md_fmt_count(ev->tokens_per_s, b, sizeof b),
                  pp_md_fmt_fixed(ev->model_tflops_per_gpu, 1, c, sizeof c), pp_md_fmt_fixed(100.0 * ev->mfu, 1, d, sizeof d),
                  pp_md_fmt_fixed(ev->hardware_tflops_per_gpu, 1, e, sizeof e), ev->microbatches);
}

static void md_time_row(pp_strbuf *sb, const char *part, double v, double step)
{
    char a[48], b[48];
    pp_sb_appendf(sb, "| %s | %s | %s %% |\n", part, pp_md_fmt_fixed(v, 3, a, sizeof a),
                  pp_md_fmt_fixed(share_pct(v, step), 1, b, sizeof b));
}

/* The step's parts, communication split by dimension, then a pie of them. */
static void md_time(pp_strbuf *sb, const pp_problem *prob, const pp_eval *ev)
{
    const pp_time *t = &ev->time;
    char a[48], b[48], title[PP_NAME_LEN + 64];
    pp_sb_append(sb, "## Where the step time goes\n\n| part | seconds | share |\n| --- | ---: | ---: |\n");
    md_time_row(sb, "computation (forward, backward, recomputation)", t->compute_s, t->step_s);
    md_time_row(sb, "pipeline bubble", t->bubble_s, t->step_s);
    md_time_row(sb, "exposed communication: tensor-parallel", t->tp_comm_s, t->step_s);
    md_time_row(sb, "exposed communication: context-parallel", t->cp_comm_s, t->step_s);
    if (pp_model_is_moe(&prob->model))
        md_time_row(sb, "exposed communication: expert all-to-all", t->ep_comm_s, t->step_s);
    md_time_row(sb, "exposed communication: pipeline", t->pp_comm_s, t->step_s);
    md_time_row(sb, "exposed communication: data-parallel", t->dp_comm_s, t->step_s);
    md_time_row(sb, "compression kernels", t->compression_s, t->step_s);
    md_time_row(sb, "optimizer step", t->optimizer_s, t->step_s);
    md_time_row(sb, "waiting for the busiest link (NVLink or network)", t->link_wait_s, t->step_s);
    pp_sb_appendf(sb, "| **step time** | **%s** | **100.0 %%** |\n\n", pp_md_fmt_fixed(t->step_s, 3, a, sizeof a));
    pp_sb_appendf(sb, "Exposed communication in all: %s s (%s %% of the step).",
                  pp_md_fmt_fixed(t->exposed_comm_s, 3, a, sizeof a), pp_md_fmt_fixed(share_pct(t->exposed_comm_s, t->step_s), 1, b, sizeof b));
    pp_sb_appendf(sb, " One GPU's NIC is busy %s %% of the step and its NVLink %s %%",
                  pp_md_fmt_fixed(share_pct(ev->network_busy_s, t->step_s), 1, a, sizeof a),
                  pp_md_fmt_fixed(share_pct(ev->nvlink_busy_s, t->step_s), 1, b, sizeof b));
    pp_sb_append(sb, t->link_wait_s > 0 ? ": the step waits for the busiest link.\n\n"
                                         : " (no step is shorter than its busiest link needs).\n\n");
    snprintf(title, sizeof title, "Step time of %s, seconds", prob->model.name);
    pp_pie_slice slices[] = {
        {"computation", t->compute_s},       {"pipeline bubble", t->bubble_s},
        {"tensor-parallel comm", t->tp_comm_s}, {"context-parallel comm", t->cp_comm_s},
        {"pipeline comm", t->pp_comm_s},     {"data-parallel comm", t->dp_comm_s},
        {"compression", t->compression_s},   {"optimizer", t->optimizer_s},
        {"link wait", t->link_wait_s},       {"expert all-to-all", t->ep_comm_s},
    };
    pp_mermaid_pie(sb, title, slices, (int)(sizeof slices / sizeof slices[0]), 3);
}

static void md_mem_row(pp_strbuf *sb, const char *part, double gib)
{
    char a[48];
    pp_sb_appendf(sb, "| %s | %s |\n", part, pp_md_fmt_fixed(gib, 2, a, sizeof a));
}

static void md_fit_sentence(pp_strbuf *sb, const pp_problem *prob, const pp_memory *m)
{
    char a[48], b[48], c[48], h[48];
    pp_md_fmt_fixed(m->total_gib, 2, a, sizeof a);
    pp_md_fmt_fixed(m->usable_gib, 2, b, sizeof b);
    if (m->total_gib <= m->usable_gib) {
        pp_sb_appendf(sb, "The plan fits: it needs %s GiB of the %s GiB usable per GPU.\n\n", a, b);
        return;
    }
    pp_sb_appendf(sb,
                  "**The plan does not fit in memory:** it needs %s GiB per GPU, more than the %s GiB usable "
                  "(capacity %s GiB less %s %% headroom)%s.\n\n",
                  a, b, pp_md_fmt_fixed(m->capacity_gib, 2, c, sizeof c),
                  pp_md_fmt_fixed(100.0 * prob->memory_headroom, 0, h, sizeof h),
                  m->total_gib > m->capacity_gib ? ", and more than the GPU has at all" : "");
}

static void md_memory(pp_strbuf *sb, const pp_problem *prob, const pp_memory *m)
{
    char a[48], b[48], title[PP_NAME_LEN + 64];
    pp_sb_appendf(sb, "## Memory per GPU (most loaded: pipeline stage %d)\n\n| part | GiB |\n| --- | ---: |\n",
                  m->stage);
    md_mem_row(sb, "weights", m->weights_gib);
    md_mem_row(sb, "gradients", m->gradients_gib);
    md_mem_row(sb, "optimizer states", m->optimizer_gib);
    md_mem_row(sb, "activations", m->activations_gib);
    md_mem_row(sb, "other (buffers, workspace)", m->other_gib);
    pp_sb_appendf(sb, "| **total** | **%s** |\n", pp_md_fmt_fixed(m->total_gib, 2, a, sizeof a));
    md_mem_row(sb, "capacity", m->capacity_gib);
    pp_sb_appendf(sb, "| usable (after %s %% headroom) | %s |\n\n",
                  pp_md_fmt_fixed(100.0 * prob->memory_headroom, 0, a, sizeof a), pp_md_fmt_fixed(m->usable_gib, 2, b, sizeof b));
    md_fit_sentence(sb, prob, m);
    snprintf(title, sizeof title, "Memory of the most loaded GPU, GiB of %.0f", m->capacity_gib);
    pp_pie_slice slices[] = {
        {"weights", m->weights_gib},     {"gradients", m->gradients_gib}, {"optimizer states", m->optimizer_gib},
        {"activations", m->activations_gib}, {"other", m->other_gib},
        {"free", m->capacity_gib - m->total_gib},
    };
    pp_mermaid_pie(sb, title, slices, (int)(sizeof slices / sizeof slices[0]), 2);
}

static void md_priced_plan(pp_strbuf *sb, const pp_problem *prob, const pp_plan *plan, const pp_eval *ev)
{
    md_problem_line(sb, prob);
    md_plan_paragraph(sb, prob, plan);
    md_performance(sb, ev);
    md_time(sb, prob, ev);
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
                  pp_md_fmt_fixed(ev->time.step_s, 3, a, sizeof a));
    if (pp_plan_tp_leaves_node(prob, plan))
        pp_sb_appendf(out,
                      "**Tensor parallelism leaves the node:** tp=%d on nodes of %d GPUs, so its collectives "
                      "cross the network. The plan is priced as given; `parplan plan` searches such placements "
                      "only with `constraints.allow_tp_across_nodes`.\n\n",
                      plan->tp, prob->cluster.gpus_per_node);
    char why[512], label[PP_NAME_LEN + PP_FW_VERSION_LEN + 8];
    if (!pp_plan_runnable(prob, plan, why, sizeof why)) {
        pp_sb_append(out, "**Not runnable by ");
        pp_md_escape(out, pp_framework_label(prob, label, sizeof label));
        pp_sb_append(out, ":** ");
        pp_md_escape(out, why);
        pp_sb_append(out, ". The plan is priced as given; `parplan plan` searches only what the problem's framework "
                          "runs (data/frameworks.json).\n\n");
    }
    md_priced_plan(out, prob, plan, ev);
    pp_md_cuda_graphs(out, "##", prob, plan, ev);
    return finish(out);
}

/* ---- plan: the opening ------------------------------------------------------ */

static bool has_plan(const pp_plan_result *res)
{
    return res->status != PP_STATUS_INFEASIBLE && res->best.plan.tp >= 1;
}

static bool explained(const pp_explanation *ex)
{
    return ex && ex->done;
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

/* The safe choice among the optimum and its ties, when it is not the
 * optimum: a plan the model cannot tell from the optimum, with more memory
 * left or fewer tricks. */
static void md_recommended(pp_strbuf *sb, const pp_problem *prob, const pp_plan_result *res, const pp_explanation *ex)
{
    if (!ex || !ex->done || ex->recommended < 2 || ex->recommended - 2 >= ex->n_runner_ups)
        return;
    const pp_candidate *c = &res->runner_ups[ex->recommended - 2];
    const pp_runner_up_report *r = &ex->runner_ups[ex->recommended - 2];
    char a[48], b[48], h[48], hb[48], tricks[160], best_tricks[160];
    pp_text_tricks(prob, &c->plan, tricks, sizeof tricks);
    pp_text_tricks(prob, &res->best.plan, best_tricks, sizeof best_tricks);
    pp_sb_appendf(sb, "**Safe choice: #%d.** It is within the cost model's error of the optimum (%s %% slower, "
                      "%s s), leaves %s GiB of memory free (the optimum %s GiB) and needs these tricks: ",
                  ex->recommended, pp_md_fmt_fixed(100.0 * r->gap, 1, a, sizeof a),
                  pp_md_fmt_fixed(c->eval.time.step_s, 3, b, sizeof b), pp_md_fmt_fixed(r->headroom_gib, 2, h, sizeof h),
                  pp_md_fmt_fixed(ex->best.headroom_gib, 2, hb, sizeof hb));
    pp_md_escape(sb, tricks);
    pp_sb_append(sb, " (the optimum: ");
    pp_md_escape(sb, best_tricks);
    pp_sb_append(sb, "). Its plan: ");
    pp_md_plan_line(sb, prob, &c->plan);
    pp_sb_append(sb, ".\n\n");
}

static void md_summary_sentence(pp_strbuf *sb, const pp_plan_result *res)
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
    pp_md_fmt_fixed(ev->time.step_s, 3, s, sizeof s);
    pp_md_fmt_count(ev->tokens_per_s, a, sizeof a);
    pp_md_fmt_fixed(100.0 * ev->mfu, 1, b, sizeof b);
    pp_md_fmt_count(c->decision_space, d, sizeof d);
    if (res->status == PP_STATUS_TIME_LIMIT)
        pp_sb_appendf(sb,
                      "The search stopped at the time limit, so this plan is **not proven optimal**: its step time "
                      "%s s is within %s %% of the best bound %s s. It runs at %s tokens/s (MFU %s %%).\n\n",
                      s, pp_md_fmt_fixed(100.0 * c->gap, 2, g, sizeof g), pp_md_fmt_fixed(c->best_bound_s, 3, bound, sizeof bound), a,
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

/* "300 B", "15.6 T": a token count as people say it. */
static const char *fmt_tokens(double n, char *buf, size_t cap)
{
    if (n >= 1e12)
        snprintf(buf, cap, "%.4g T", n / 1e12);
    else if (n >= 1e9)
        snprintf(buf, cap, "%.4g B", n / 1e9);
    else
        pp_md_fmt_count(n, buf, cap);
    return buf;
}

/* "20.5 days" or "13.2 hours". */
static const char *fmt_duration(double seconds, char *buf, size_t cap)
{
    char a[32];
    if (seconds >= 2 * 86400.0)
        snprintf(buf, cap, "%s days", pp_md_fmt_fixed(seconds / 86400.0, 1, a, sizeof a));
    else
        snprintf(buf, cap, "%s hours", pp_md_fmt_fixed(seconds / 3600.0, 1, a, sizeof a));
    return buf;
}

static void md_summary_row(pp_strbuf *sb, const char *what, const char *value)
{
    pp_sb_appendf(sb, "| %s | %s |\n", what, value);
}

static void md_summary_table(pp_strbuf *sb, const pp_problem *prob, const pp_plan_result *res,
                             const pp_explanation *ex)
{
    const pp_eval *ev = &res->best.eval;
    const pp_model *m = &prob->model;
    const pp_cluster *c = &prob->cluster;
    char a[64], b[64], d[64], text[512];
    pp_sb_append(sb, "## Summary\n\n| | |\n| --- | --- |\n| model | ");
    pp_md_escape(sb, m->name);
    pp_sb_appendf(sb, ": %s B parameters, %d layers, hidden %d, %d heads, sequence %d |\n| cluster | %ld × ",
                  pp_md_fmt_fixed(pp_model_params(m) / 1e9, 1, a, sizeof a), m->layers, m->hidden, m->heads, m->seq_len,
                  pp_problem_gpus(prob));
    pp_md_escape(sb, c->gpu.name[0] ? c->gpu.name : c->gpu.id);
    pp_sb_appendf(sb, " (%ld node%s of %d; %g GB/s NVLink and %g Gb/s network per GPU) |\n", c->nodes,
                  c->nodes == 1 ? "" : "s", c->gpus_per_node, c->intra_node_GBps, c->inter_node_Gbps);
    pp_sb_appendf(sb, "| training | global batch %ld sequences, %s, framework %s", prob->training.global_batch,
                  pp_precision_name(prob->training.precision), pp_framework_name(prob->training.framework));
    md_training_extras(sb, &prob->training);
    pp_sb_append(sb, " |\n| plan | ");
    pp_md_plan_line(sb, prob, &res->best.plan);
    pp_sb_append(sb, " |\n");
    long gpus = pp_problem_gpus(prob);
    if (ev->gpus_used != gpus) {
        snprintf(text, sizeof text, "%d of %ld (%ld idle: constraints.use_all_gpus is false)", ev->gpus_used, gpus,
                 gpus - ev->gpus_used);
        md_summary_row(sb, "GPUs used", text);
    }
    snprintf(text, sizeof text, "%s s", pp_md_fmt_fixed(ev->time.step_s, 3, a, sizeof a));
    md_summary_row(sb, "predicted step time", text);
    md_summary_row(sb, "tokens/s", pp_md_fmt_count(ev->tokens_per_s, a, sizeof a));
    md_summary_row(sb, "model TFLOP/s per GPU", pp_md_fmt_fixed(ev->model_tflops_per_gpu, 1, a, sizeof a));
    snprintf(text, sizeof text, "%s %%", pp_md_fmt_fixed(100.0 * ev->mfu, 1, a, sizeof a));
    md_summary_row(sb, "MFU (model FLOPs utilization)", text);
    snprintf(text, sizeof text, "%s GiB of %s GiB (%s GiB usable after the %s %% headroom)",
             pp_md_fmt_fixed(ev->mem.total_gib, 2, a, sizeof a), pp_md_fmt_fixed(ev->mem.capacity_gib, 2, b, sizeof b),
             pp_md_fmt_fixed(ev->mem.usable_gib, 2, d, sizeof d), pp_md_fmt_fixed(100.0 * prob->memory_headroom, 0, text + 400, 64));
    md_summary_row(sb, "peak memory per GPU", text);
    char cal[512];
    pp_text_calibration(&c->gpu.eff, false, cal, sizeof cal);
    if (cal[0])
        md_summary_row(sb, "calibration", cal);
    double tokens = prob->training.tokens;
    if (tokens > 0 && ev->tokens_per_s > 0) {
        double secs = tokens / ev->tokens_per_s;
        char t[64];
        snprintf(text, sizeof text, "%s (%s tokens at %s tokens/s)", fmt_duration(secs, t, sizeof t),
                 fmt_tokens(tokens, a, sizeof a), pp_md_fmt_count(ev->tokens_per_s, b, sizeof b));
        md_summary_row(sb, "time to train", text);
        md_summary_row(sb, "GPU-hours", pp_md_fmt_count(secs / 3600.0 * ev->gpus_used, a, sizeof a));
    }
    if (ex && ex->baseline.present && ex->baseline.valid) {
        snprintf(text, sizeof text, "%s %% less time per step than the baseline (%s s), %sx its throughput",
                 pp_md_fmt_fixed(100.0 * ex->baseline.time_saved, 1, a, sizeof a),
                 pp_md_fmt_fixed(ex->baseline.eval.time.step_s, 3, b, sizeof b), pp_md_fmt_fixed(ex->baseline.speedup, 2, d, sizeof d));
        md_summary_row(sb, "against the baseline", text);
    }
    pp_sb_append(sb, "\n");
}

/* What limits the plan and what would speed it up: the answer to the
 * review's first question, from the counterfactual re-solves. */
/* "more memory, twice the link bandwidth, ... and the nearest cluster
 * sizes": what the families' counterfactuals try, limits first. */
static void md_tried(pp_strbuf *sb, const pp_explanation *ex)
{
    int total = 0, n = 0;
    for (int i = 0; i < ex->n_families; i++)
        total += ex->families[i].family->tried != NULL;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < ex->n_families; i++) {
            const pp_cons_family *f = ex->families[i].family;
            if (!f->tried || f->limit != (pass == 0))
                continue;
            pp_sb_appendf(sb, "%s%s", n == 0 ? "" : n == total - 1 ? " and " : ", ", f->tried);
            n++;
        }
}

static void md_limits(pp_strbuf *sb, const pp_plan_result *res, const pp_explanation *ex)
{
    char a[48], b[48], text[2048];
    pp_sb_append(sb, "**What limits it.** ");
    pp_text_limits(res, ex, text, sizeof text);
    pp_md_escape(sb, text);
    pp_sb_append(sb, "\n\n**What would speed it up** (each found by solving the changed problem again):\n\n");
    if (ex->n_speedups == 0) {
        pp_sb_append(sb, "- Nothing that was tried: ");
        md_tried(sb, ex);
        pp_sb_append(sb, " give no faster plan.\n");
    }
    for (int i = 0; i < ex->n_speedups && i < 4; i++) {
        const pp_counterfactual *cf = ex->speedups[i];
        pp_sb_append(sb, "- ");
        pp_md_escape(sb, cf->what);
        pp_sb_appendf(sb, ": %s %% less time per step (%s s)", pp_md_fmt_fixed(100.0 * cf->gain, 1, a, sizeof a),
                      pp_md_fmt_fixed(cf->best.eval.time.step_s, 3, b, sizeof b));
        double gpus_now = (double)ex->gpus;
        if (cf->gpus > 0 && gpus_now > 0 && fabs(cf->gpus - gpus_now) > 0.5) {
            double more = cf->gpus * cf->best.eval.time.step_s / (gpus_now * ex->best_step_s) - 1.0;
            pp_sb_appendf(sb, ", for %s %% %s GPU time per step", pp_md_fmt_fixed(100.0 * fabs(more), 1, a, sizeof a),
                          more >= 0 ? "more" : "less");
        }
        pp_sb_append(sb, ".\n");
    }
    if (ex->baseline.present && !ex->baseline.valid) {
        pp_sb_append(sb, "\nThe baseline plan could not be priced: ");
        pp_md_escape(sb, ex->baseline.invalid);
        pp_sb_append(sb, ".\n");
    }
    pp_sb_append(sb, "\n");
}

/* ---- plan: the pipeline schedule ---------------------------------------------- */

static void md_schedule(pp_strbuf *sb, const pp_problem *prob, const pp_plan *plan, const pp_explanation *ex)
{
    const pp_schedule *s = &ex->schedule;
    char a[48], b[48], c[48], d[48], e[48], title[PP_NAME_LEN + 96];
    pp_sb_append(sb, "## Pipeline schedule\n\n");
    if (s->pp < 2) {
        pp_sb_appendf(sb, "There is no pipeline (pp=1): every GPU runs its %d micro-batches back to back, so there is "
                          "no bubble.\n\n", s->microbatches);
        return;
    }
    pp_sb_appendf(sb,
                  "%s with %d stages%s and %d micro-batches per step. One micro-batch takes %s s on the last "
                  "stage, the busiest (forward %s s, backward %s s per model chunk), and %s s on the others; the "
                  "pipeline part of the step is %s s, of which the fill and drain (the bubble) take %s s.",
                  s->virtual_stages > 1 ? "Interleaved 1F1B" : "1F1B", s->pp,
                  s->virtual_stages > 1 ? "" : "", s->microbatches, pp_md_fmt_fixed(s->slot_s, 4, a, sizeof a),
                  pp_md_fmt_fixed(s->forward_s, 4, b, sizeof b), pp_md_fmt_fixed(s->backward_s, 4, c, sizeof c),
                  pp_md_fmt_fixed(s->bubble_slot_s, 4, e, sizeof e), pp_md_fmt_fixed(s->pipeline_s, 3, d, sizeof d),
                  pp_md_fmt_fixed(s->bubble_s, 3, title, sizeof title));
    pp_stage_split split;
    bool known = s->virtual_stages > 1 && pp_stage_layers(prob, plan, &split);
    bool ends_one_fewer = known && split.first_chunk == split.chunk - 1 && split.last_chunk == split.chunk - 1;
    if (known && (!split.uneven || ends_one_fewer))
        pp_sb_appendf(sb, " Each stage holds %d model chunks of %d layers%s.", s->virtual_stages, split.chunk,
                      split.uneven ? " (the model's first and last chunk one fewer: the embedding and the loss "
                                     "take a layer's place)"
                                   : "");
    else if (known)
        pp_sb_appendf(sb, " Each stage holds %d model chunks of %d layers, but the model's first chunk holds %d "
                      "and its last %d (pipeline layout balanced: the embedding and the loss%s take a layer's "
                      "place).", s->virtual_stages, split.chunk, split.first_chunk, split.last_chunk,
                      pp_mtp_layers(prob) > 0 ? " and each multi-token-prediction module" : "");
    int mtp = pp_mtp_layers(prob);
    if (mtp > 0)
        pp_sb_appendf(sb, " The last stage also runs the %d multi-token-prediction module%s: %s layer%s, "
                      "projection%s and a second pass through the output head and the loss.",
                      mtp, mtp == 1 ? "" : "s", mtp == 1 ? "its" : "their", mtp == 1 ? "" : "s", mtp == 1 ? "" : "s");
    pp_sb_append(sb, "\n\n");
    if (s->n_tasks == 0)
        return;
    pp_sb_append(sb, "The chart shows ");
    if (s->n_stages_shown < s->pp)
        pp_sb_appendf(sb, "the first and the last of the %d stages", s->pp);
    else
        pp_sb_appendf(sb, "all %d stages", s->pp);
    if (s->microbatches_shown < s->microbatches)
        pp_sb_appendf(sb, " running one repeating round of the schedule, not every micro-batch: %d of the %d "
                          "micro-batches, the fill, a steady round (each stage alternating a forward and a "
                          "backward) and the drain. The real step repeats the steady round until its %d "
                          "micro-batches are done and ends %s s later",
                      s->microbatches_shown, s->microbatches, s->microbatches,
                      pp_md_fmt_fixed(s->pipeline_s - s->shown_makespan_s, 3, a, sizeof a));
    else
        pp_sb_appendf(sb, " running all %d micro-batches, the schedule of the whole step: it ends at the pipeline "
                          "time above", s->microbatches);
    if (s->ops_left_out > 0)
        pp_sb_appendf(sb, ". To stay readable, each stage drawn shows its first and its last %d operations: the %d "
                          "in between (the steady phase, forwards and backwards alternating) are left out, so the "
                          "blank stretch in the middle of each row is not idle time",
                      (s->n_tasks / s->n_stages_shown) / 2, s->ops_left_out);
    pp_sb_appendf(sb, ". F%s is a forward, B%s a backward (with recomputation)%s; the axis is seconds.%s\n\n",
                  s->virtual_stages > 1 ? "m.c" : "m", s->virtual_stages > 1 ? "m.c" : "m",
                  s->virtual_stages > 1 ? " of micro-batch m, model chunk c" : " of micro-batch m",
                  " The last stage is drawn with the busiest stage's times and the others with their mean, as the "
                  "cost model prices them.");
    if (s->microbatches_shown < s->microbatches)
        snprintf(title, sizeof title, "Pipeline schedule of %s, one round: %d of %d micro-batches",
                 prob->model.name, s->microbatches_shown, s->microbatches);
    else
        snprintf(title, sizeof title, "Pipeline schedule of %s, %d micro-batches", prob->model.name,
                 s->microbatches);
    int scale = 1;
    pp_strbuf chart;
    pp_sb_init(&chart);
    pp_mermaid_gantt(&chart, title, s, &scale);
    if (scale != 1)
        pp_sb_appendf(sb, "The bars are shorter than a millisecond, so the chart is stretched %dx: read its seconds "
                          "as milliseconds.\n\n", scale);
    pp_sb_append(sb, pp_sb_str(&chart));
    if (chart.failed)
        sb->failed = true;
    pp_sb_free(&chart);
}

/* ---- plan: binding constraints ---------------------------------------------------- */

static void md_cell_escape(pp_strbuf *sb, const char *s)
{
    pp_md_escape(sb, s);
}

/* A row's activity or limit: up to three decimals, trailing zeros dropped,
 * or four significant digits for small values ("0.00021"). */
static const char *fmt_value(double v, char *buf, size_t cap)
{
    if (!isfinite(v))
        snprintf(buf, cap, "n/a");
    else if (v != 0.0 && fabs(v) < 0.01)
        snprintf(buf, cap, "%.2g", v);
    else {
        snprintf(buf, cap, "%.3f", fabs(v) < 0.0005 ? 0.0 : v);
        char *dot = strchr(buf, '.');
        if (dot) {
            char *end = buf + strlen(buf) - 1;
            while (end > dot && *end == '0')
                *end-- = '\0';
            if (end == dot)
                *end = '\0';
        }
    }
    return buf;
}

/* The best a family's counterfactuals buy, for the table. */
static void worth_cell(pp_strbuf *sb, const pp_family_report *f)
{
    const pp_counterfactual *best = NULL;
    for (int i = 0; i < f->n_cf; i++)
        if (f->cf[i].status != PP_STATUS_INFEASIBLE && f->cf[i].gain > 0 && (!best || f->cf[i].gain > best->gain))
            best = &f->cf[i];
    char a[48];
    if (!best) {
        pp_sb_append(sb, f->n_cf ? "nothing" : "not priced");
        return;
    }
    pp_sb_appendf(sb, "%s %% less time per step (", pp_md_fmt_fixed(100.0 * best->gain, 1, a, sizeof a));
    md_cell_escape(sb, best->what);
    pp_sb_append(sb, ")");
}

static void md_binding(pp_strbuf *sb, const pp_explanation *ex)
{
    char a[48], b[48], c[48];
    pp_sb_append(sb, "## Binding constraints\n\n"
                     "Each family of constraints at the optimum: its tightest row, the slack left, and what "
                     "relaxing the family is worth, found by solving the relaxed problem again.\n\n"
                     "| family | binds | tightest row at the optimum | slack | relaxing it is worth |\n"
                     "| --- | --- | --- | ---: | --- |\n");
    for (int i = 0; i < ex->n_families; i++) {
        const pp_family_report *f = &ex->families[i];
        const pp_cons_row *t = f->tightest >= 0 ? &f->rows[f->tightest] : f->n_rows ? &f->rows[0] : NULL;
        pp_sb_append(sb, "| ");
        md_cell_escape(sb, f->family->name);
        bool is_equality = f->n_rows > 0 && f->tightest < 0; /* every row an equality: GPU count, divisibility */
        pp_sb_appendf(sb, " | %s | ",
                      is_equality ? (f->n_cf ? "equality (always tight)" : "equality (shapes the space)")
                                  : f->binds ? "**yes**" : "no");
        if (t) {
            md_cell_escape(sb, t->name);
            pp_sb_appendf(sb, ": %s %s %s %s | %s %s | ", fmt_value(t->lhs, a, sizeof a), t->equality ? "=" : "≤",
                          fmt_value(t->rhs, b, sizeof b), t->unit ? t->unit : "",
                          fmt_value(t->equality ? 0.0 : t->slack, c, sizeof c), t->unit ? t->unit : "");
        } else
            pp_sb_append(sb, "(no rows) | | ");
        worth_cell(sb, f);
        pp_sb_append(sb, " |\n");
    }
    pp_sb_append(sb, "\n");
    for (int i = 0; i < ex->n_families; i++) {
        const pp_family_report *f = &ex->families[i];
        pp_sb_append(sb, "- **");
        md_cell_escape(sb, f->family->name);
        pp_sb_append(sb, "** (");
        md_cell_escape(sb, f->family->explain);
        pp_sb_append(sb, "). ");
        char verdict[2048];
        pp_text_family_verdict(ex, f, verdict, sizeof verdict);
        md_cell_escape(sb, verdict);
        pp_sb_append(sb, "\n");
    }
    pp_sb_append(sb, "\n");
}

/* ---- plan: runner-ups ------------------------------------------------------------- */

static void md_runner_ups(pp_strbuf *sb, const pp_problem *prob, const pp_plan_result *res, const pp_explanation *ex)
{
    if (res->n_runner_ups <= 0 || !has_plan(res))
        return;
    double best = res->best.eval.time.step_s;
    bool why = explained(ex) && ex->n_runner_ups == res->n_runner_ups;
    char a[48], b[48], text[2048];
    pp_sb_append(sb, "## Runner-ups\n\n");
    pp_sb_appendf(sb, "The next %d plans by step time.", res->n_runner_ups);
    if (why)
        pp_sb_appendf(sb, " A plan whose gap is within the cost model's measured error (%s %%, cross-validated) is "
                          "marked as a tie.", pp_md_fmt_fixed(100.0 * ex->model_error, 1, a, sizeof a));
    pp_sb_append(sb, "\n\n");
    if (why)
        pp_sb_append(sb, "| rank | plan | step time (s) | slower than best | tie | loses on | memory free (GiB) | tricks |\n"
                         "| ---: | --- | ---: | ---: | --- | --- | ---: | --- |\n");
    else
        pp_sb_append(sb, "| rank | plan | step time (s) | slower than best |\n| ---: | --- | ---: | ---: |\n");
    if (why) {
        pp_sb_append(sb, "| 1 | ");
        pp_md_plan_line(sb, prob, &res->best.plan);
        pp_sb_appendf(sb, " | %s | optimum | | | %s | ", pp_md_fmt_fixed(best, 3, a, sizeof a),
                      pp_md_fmt_fixed(ex->best.headroom_gib, 2, b, sizeof b));
        pp_text_tricks(prob, &res->best.plan, text, sizeof text);
        pp_md_escape(sb, text);
        pp_sb_append(sb, " |\n");
    }
    for (int i = 0; i < res->n_runner_ups; i++) {
        double t = res->runner_ups[i].eval.time.step_s;
        pp_sb_appendf(sb, "| %d | ", i + 2);
        pp_md_plan_line(sb, prob, &res->runner_ups[i].plan);
        pp_sb_appendf(sb, " | %s | +%s %% |", pp_md_fmt_fixed(t, 3, a, sizeof a),
                      pp_md_fmt_fixed(share_pct(t - best, best), 2, b, sizeof b));
        if (why) {
            const pp_runner_up_report *r = &ex->runner_ups[i];
            pp_sb_appendf(sb, " %s | ", r->tie ? "tie" : "no");
            pp_text_why(prob, &res->runner_ups[i].plan, &res->best.plan, r, text, sizeof text);
            pp_md_escape(sb, text);
            pp_sb_appendf(sb, " | %s | ", pp_md_fmt_fixed(r->headroom_gib, 2, a, sizeof a));
            pp_text_tricks(prob, &res->runner_ups[i].plan, text, sizeof text);
            pp_md_escape(sb, text);
            pp_sb_append(sb, " |");
        }
        pp_sb_append(sb, "\n");
    }
    pp_sb_append(sb, "\n");
    if (why)
        pp_text_ties(prob, res, ex, text, sizeof text);
    if (why && text[0]) {
        pp_md_escape(sb, text);
        pp_sb_append(sb, "\n\n");
    }
}

/* ---- plan: the baseline ------------------------------------------------------------ */

static void md_baseline(pp_strbuf *sb, const pp_problem *prob, const pp_plan_result *res, const pp_explanation *ex)
{
    const pp_baseline_report *b = &ex->baseline;
    if (!b->present)
        return;
    char x[48], y[48], z[48], x2[48], y2[48], z2[48];
    pp_sb_append(sb, "## Against the baseline\n\nThe baseline is ");
    pp_md_escape(sb, b->label);
    pp_sb_append(sb, ": ");
    pp_md_plan_line(sb, prob, &b->plan);
    pp_sb_append(sb, ".\n\n");
    char problem_text[1100];
    pp_text_baseline_problem(b, problem_text, sizeof problem_text);
    if (!b->valid) {
        pp_sb_append(sb, "It is not a valid plan for this problem, so it was not priced: ");
        pp_md_escape(sb, problem_text);
        pp_sb_append(sb, ".\n\n");
        return;
    }
    if (!b->feasible) {
        pp_sb_append(sb, "It does not satisfy every constraint of this problem: ");
        pp_md_escape(sb, problem_text);
        pp_sb_append(sb, ". It is priced all the same.\n\n");
    }
    if (!has_plan(res)) {
        pp_sb_appendf(sb, "The cost model predicts %s s per step for it.\n\n", pp_md_fmt_fixed(b->eval.time.step_s, 3, x, sizeof x));
        return;
    }
    pp_sb_appendf(sb,
                  "The cost model predicts %s s per step for the baseline and %s s for the optimal plan: the optimal "
                  "plan takes **%s %% less time per step**, %sx the baseline's throughput (%s against %s tokens/s).",
                  pp_md_fmt_fixed(b->eval.time.step_s, 3, x, sizeof x), pp_md_fmt_fixed(res->best.eval.time.step_s, 3, y, sizeof y),
                  pp_md_fmt_fixed(100.0 * b->time_saved, 1, z, sizeof z), pp_md_fmt_fixed(b->speedup, 2, x2, sizeof x2),
                  pp_md_fmt_count(res->best.eval.tokens_per_s, y2, sizeof y2), pp_md_fmt_count(b->eval.tokens_per_s, z2, sizeof z2));
    char changes[1024];
    pp_plan_changes(prob, &res->best.plan, &b->plan, changes, sizeof changes);
    if (changes[0]) {
        pp_sb_append(sb, " The optimal plan differs in: ");
        pp_md_escape(sb, changes);
        pp_sb_append(sb, ".");
    }
    pp_sb_append(sb, "\n\n| part | baseline (s) | optimal (s) | difference (s) |\n| --- | ---: | ---: | ---: |\n");
    for (int k = 0; k < PP_PART_COUNT; k++) {
        if (k == PP_PART_EP_COMM && !pp_model_is_moe(&prob->model))
            continue;
        double u = pp_part_s(&b->eval.time, (pp_part)k), w = pp_part_s(&res->best.eval.time, (pp_part)k);
        pp_sb_appendf(sb, "| %s | %s | %s | %s |\n", pp_part_name((pp_part)k), pp_md_fmt_fixed(u, 3, x, sizeof x),
                      pp_md_fmt_fixed(w, 3, y, sizeof y), pp_md_fmt_fixed(w - u, 3, z, sizeof z));
    }
    pp_sb_appendf(sb, "| **step time** | **%s** | **%s** | **%s** |\n", pp_md_fmt_fixed(b->eval.time.step_s, 3, x, sizeof x),
                  pp_md_fmt_fixed(res->best.eval.time.step_s, 3, y, sizeof y),
                  pp_md_fmt_fixed(res->best.eval.time.step_s - b->eval.time.step_s, 3, z, sizeof z));
    pp_sb_appendf(sb, "| memory per GPU (GiB) | %s | %s | %s |\n\n", pp_md_fmt_fixed(b->eval.mem.total_gib, 2, x, sizeof x),
                  pp_md_fmt_fixed(res->best.eval.mem.total_gib, 2, y, sizeof y),
                  pp_md_fmt_fixed(res->best.eval.mem.total_gib - b->eval.mem.total_gib, 2, z, sizeof z));
}

/* ---- plan: certificate ------------------------------------------------------------- */

static void md_cert_row(pp_strbuf *sb, const char *field, const char *value)
{
    pp_sb_appendf(sb, "| %s | ", field);
    pp_md_escape(sb, value);
    pp_sb_append(sb, " |\n");
}

static void md_cert_seconds(pp_strbuf *sb, const char *field, double v)
{
    char a[48], text[64];
    snprintf(text, sizeof text, "%s s", pp_md_fmt_fixed(v, 6, a, sizeof a));
    md_cert_row(sb, field, text);
}

/* "10 us": the MIP's time unit. */
static void unit_name(double units_per_s, char *buf, size_t cap)
{
    static const struct {
        double per_s;
        const char *name;
    } units[] = {{1, "1 s"}, {10, "100 ms"}, {100, "10 ms"}, {1e3, "1 ms"}, {1e4, "100 us"}, {1e5, "10 us"},
                 {1e6, "1 us"}, {1e7, "100 ns"}, {1e8, "10 ns"}, {1e9, "1 ns"}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (fabs(units_per_s - units[i].per_s) <= 1e-9 * units[i].per_s) {
            snprintf(buf, cap, "%s", units[i].name);
            return;
        }
    snprintf(buf, cap, "%g s", units_per_s > 0 ? 1.0 / units_per_s : 1.0);
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
        snprintf(v, sizeof v, "%s %%", pp_md_fmt_fixed(100.0 * c->gap, 4, a, sizeof a));
        md_cert_row(sb, "relative gap", v);
    }
    md_cert_row(sb, "valid plans in the decision space", pp_md_fmt_count(c->decision_space, a, sizeof a));
    if (milp) {
        if (has_plan(res))
            md_cert_seconds(sb, "LP relaxation at the root", c->lp_relaxation_s);
        md_cert_row(sb, "branch-and-bound nodes", pp_md_fmt_count((double)c->nodes, a, sizeof a));
        snprintf(v, sizeof v, "%d rows, %d columns (%d binary)", c->rows, c->cols, c->binaries);
        md_cert_row(sb, "MIP size", v);
        if (c->shapes_screened > 0)
            md_cert_row(sb, "shapes left out by their lower bound", pp_md_fmt_count((double)c->shapes_screened, a, sizeof a));
    } else {
        md_cert_row(sb, "plans evaluated", pp_md_fmt_count((double)c->plans_evaluated, a, sizeof a));
    }
    pp_sb_append(sb, "\nThe solve time is in the JSON result (certificate.solve\\_time\\_s); it is left out here so "
                     "that the report depends on the inputs alone.\n\n");
    if (!milp)
        return;
    unit_name(c->time_units_per_s, v, sizeof v);
    if (has_plan(res))
        pp_sb_appendf(sb,
                      "To check the optimum with another solver, export the MIP of the whole decision space (no "
                      "screening) and solve it; its objective counts time in units of %s, so the optimum above is "
                      "%.0f units:\n\n",
                      v, c->objective_s * c->time_units_per_s);
    else
        pp_sb_append(sb, "To check with another solver that no plan exists, export the MIP of the whole decision "
                         "space (no screening) and solve it; it should be infeasible too:\n\n");
    pp_sb_append(sb, "```sh\nparplan plan PROBLEM.json --export-mps model.mps --export-lp model.lp\n"
                     "glpsol --freemps model.mps     # GLPK; the file is free MPS\ncbc model.mps solve            # "
                     "COIN-OR CBC\n```\n\n");
}

/* ---- plan: inputs and assumptions ---------------------------------------------------- */

static void list_cell(pp_strbuf *sb, const pp_int_list *l, const char *const *names, const pp_problem *prob, bool codecs)
{
    for (int i = 0; i < l->n; i++) {
        if (i)
            pp_sb_append(sb, ", ");
        if (codecs)
            pp_md_escape(sb, pp_codec_id(prob, l->v[i]));
        else if (names)
            pp_sb_append(sb, names[l->v[i]]);
        else
            pp_sb_appendf(sb, "%d", l->v[i]);
    }
}

static void md_inputs(pp_strbuf *sb, const pp_problem *prob, const pp_plan_result *res, const pp_explanation *ex)
{
    const pp_model *m = &prob->model;
    const pp_cluster *c = &prob->cluster;
    char a[48];
    pp_sb_append(sb, "## Inputs and assumptions\n\n| input | value |\n| --- | --- |\n| model.name | ");
    pp_md_escape(sb, m->name);
    pp_sb_appendf(sb, " |\n| model shape | %d layers, hidden %d, %d heads of width %d, %d kv heads, ffn %d%s, vocab %d, "
                      "sequence %d, embeddings %s",
                  m->layers, m->hidden, m->heads, pp_model_head_dim(m), m->kv_heads, m->ffn_hidden,
                  m->gated_mlp ? " (gated)" : "", m->vocab, m->seq_len, m->tie_embeddings ? "tied" : "untied");
    if (m->sliding_window > 0) /* docs/cost-model.md section 2, attention core */
        pp_sb_appendf(sb, ", a sliding window of %d tokens on %d of the layers%s", m->sliding_window,
                      pp_windowed_layers(m, HUGE_VAL), /* the pattern's count, whatever the span */
                      pp_windowed_layers(m, pp_attention_span(m, &prob->training)) > 0
                          ? ""
                          : " (at least the attention span: priced as full attention)");
    pp_sb_append(sb, " |\n");
    pp_sb_append(sb, "| cluster.gpu | ");
    pp_md_escape(sb, c->gpu.id[0] ? c->gpu.id : "custom");
    pp_sb_append(sb, " (");
    pp_md_escape(sb, c->gpu.name);
    pp_sb_appendf(sb, ") |\n| cluster | %ld node%s of %d GPUs, %g GB/s NVLink, %g Gb/s network per GPU |\n", c->nodes,
                  c->nodes == 1 ? "" : "s", c->gpus_per_node, c->intra_node_GBps, c->inter_node_Gbps);
    pp_sb_appendf(sb, "| training | global batch %ld, %s, framework %s, flash attention %s", prob->training.global_batch,
                  pp_precision_name(prob->training.precision), pp_framework_name(prob->training.framework),
                  prob->training.flash_attention ? "on" : "off");
    if (prob->training.flash_attention && prob->training.attention_kernel != PP_ATTN_AUTO)
        pp_sb_appendf(sb, " (%s)", pp_attention_kernel_name(prob->training.attention_kernel));
    pp_sb_appendf(sb, ", DP overlap %s, TP backward behind the GEMMs %s", prob->training.dp_overlap ? "on" : "off",
                  prob->training.tp_bwd_overlap ? "on" : "off");
    if (prob->training.tokens > 0)
        pp_sb_appendf(sb, ", %s tokens", fmt_tokens(prob->training.tokens, a, sizeof a));
    md_training_extras(sb, &prob->training);
    pp_sb_append(sb, " |\n");
    pp_sb_appendf(sb, "| constraints | memory headroom %s %%, error tolerance", pp_md_fmt_fixed(100.0 * prob->memory_headroom, 0, a, sizeof a));
    for (int d = 0; d < PP_DIM_COUNT; d++)
        pp_sb_appendf(sb, "%s %s %g", d ? "," : "", pp_dim_name((pp_dim)d), prob->error_tolerance[d]);
    pp_sb_appendf(sb, ", TP across nodes %s, smallest compressed message %.0f bytes |\n",
                  prob->allow_tp_across_nodes ? "allowed" : "not allowed", prob->compress_min_bytes);
    pp_sb_appendf(sb, "| objective | %s |\n", pp_objective_name(prob->objective));
    /* The search lists the problem gives, in the table's order (tp_mode,
     * tp_depth, ep, etp and tp_comm_overlap are not echoed). */
    bool any = false;
    for (int i = 0; i < PP_DEC_COUNT; i++) {
        const pp_decision *d = &pp_decisions[i];
        const pp_int_list *l = &prob->search[d->id];
        bool codec = d->kind == PP_DK_CODEC;
        if (l->n == 0 || (!codec && d->id > PP_DEC_SEQUENCE_PARALLEL))
            continue;
        pp_sb_append(sb, codec ? "| search.compression." : "| search.");
        pp_md_escape(sb, d->key);
        pp_sb_append(sb, " | ");
        list_cell(sb, l, codec || d->kind == PP_DK_INT ? NULL : d->names, prob, codec);
        pp_sb_append(sb, " |\n");
        any = true;
    }
    if (!any)
        pp_sb_append(sb, "| search | no restriction: every value the tool supports |\n");
    pp_sb_append(sb, "| codecs | ");
    for (int i = 0; i < prob->n_codecs; i++) {
        if (i)
            pp_sb_append(sb, ", ");
        pp_md_escape(sb, prob->codecs[i].id);
    }
    pp_sb_append(sb, " |\n\n");
    if (!explained(ex))
        return;
    pp_assumptions *as = malloc(sizeof *as);
    if (!as) {
        sb->failed = true;
        return;
    }
    pp_assumptions_collect(prob, ex->view.cat, &res->best.plan, as);
    pp_sb_append(sb, "The prediction rests on these constants (the full derivation is docs/cost-model.md):\n\n"
                     "| constant | value | source |\n| --- | --- | --- |\n");
    for (int i = 0; i < as->n; i++) {
        const pp_constant *k = &as->items[i];
        pp_sb_append(sb, "| ");
        pp_md_escape(sb, k->name);
        pp_sb_append(sb, " | ");
        pp_md_escape(sb, k->value);
        pp_sb_append(sb, " | ");
        pp_md_escape(sb, k->source);
        pp_sb_append(sb, " |\n");
    }
    pp_sb_append(sb, "\n");
    free(as);
}

/* ---- plan: the whole report ----------------------------------------------------------- */

int pp_report_plan_md_ex(const pp_problem *prob, const pp_plan_result *res, const pp_explanation *ex, pp_strbuf *out)
{
    pp_sb_appendf(out, "# parplan: %s\n\n", plan_title(res));
    md_summary_sentence(out, res);
    if (has_plan(res))
        md_recommended(out, prob, res, ex);
    if (has_plan(res)) {
        md_summary_table(out, prob, res, ex);
        if (explained(ex))
            md_limits(out, res, ex);
        pp_md_how_to_run(out, prob, res);
        md_time(out, prob, &res->best.eval);
        md_memory(out, prob, &res->best.eval.mem);
        if (explained(ex)) {
            md_schedule(out, prob, &res->best.plan, ex);
            md_binding(out, ex);
        }
        md_runner_ups(out, prob, res, ex);
    } else
        md_problem_line(out, prob);
    if (ex)
        md_baseline(out, prob, res, ex);
    md_certificate(out, res);
    md_inputs(out, prob, res, ex);
    return finish(out);
}

int pp_report_plan_md(const pp_problem *prob, const pp_plan_result *res, pp_strbuf *out)
{
    return pp_report_plan_md_ex(prob, res, NULL, out);
}
