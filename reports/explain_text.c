/* explain_text.c: the explanation in words (explain_text.h). */
#include "explain_text.h"

#include "decisions.h"
#include "problem.h"
#include "text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const PART_NAMES[PP_PART_COUNT] = {
    "computation", "pipeline bubble", "exposed tensor-parallel communication",
    "exposed context-parallel exchange", "pipeline sends", "exposed data-parallel communication",
    "compression kernels", "optimizer step", "waiting for the busiest link",
    "exposed expert all-to-all",
};
static const char *const PART_KEYS[PP_PART_COUNT] = {"compute", "bubble", "tp_comm", "cp_comm",
                                                     "pp_comm", "dp_comm", "compression", "optimizer",
                                                     "link_wait", "ep_comm"};

const char *pp_part_name(pp_part part)
{
    return part >= 0 && part < PP_PART_COUNT ? PART_NAMES[part] : "?";
}

const char *pp_part_key(int part)
{
    return part >= 0 && part < PP_PART_COUNT ? PART_KEYS[part] : "none";
}

void pp_text_family_verdict(const pp_explanation *ex, const pp_family_report *f, char *buf, size_t cap)
{
    pp_cons_describe(&ex->view, f, buf, cap);
}

void pp_text_changes(const pp_problem *prob, const pp_plan *plan, const pp_plan *best, char *buf, size_t cap)
{
    pp_plan_changes(prob, plan, best, buf, cap);
}

void pp_text_why(const pp_problem *prob, const pp_plan *plan, const pp_plan *best, const pp_runner_up_report *r,
                 char *buf, size_t cap)
{
    char changes[1024];
    pp_plan_changes(prob, plan, best, changes, sizeof changes);
    buf[0] = '\0';
    if (r->worst < 0) {
        snprintf(buf, cap, "the same step time%s%s%s", changes[0] ? " (" : "", changes, changes[0] ? ")" : "");
        return;
    }
    pp_catf(buf, cap, "%s +%.3f s", pp_part_name((pp_part)r->worst), r->delta_s);
    if (changes[0])
        pp_catf(buf, cap, " (%s)", changes);
    if (r->saves >= 0 && -r->saves_s >= 0.1 * r->delta_s)
        pp_catf(buf, cap, ", partly offset by %s %.3f s", pp_part_name((pp_part)r->saves), r->saves_s);
}

void pp_text_tricks(const pp_problem *prob, const pp_plan *p, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (p->virtual_stages > 1)
        pp_catf(buf, cap, "interleaving (v=%d)", p->virtual_stages);
    for (int d = 0; d < PP_DIM_COUNT; d++)
        if (p->codec[d] > 0)
            pp_catf(buf, cap, "%s%s compression (%s)", buf[0] ? ", " : "", pp_dim_name((pp_dim)d),
                    pp_codec_id(prob, p->codec[d]));
    if (p->recompute != PP_RECOMPUTE_NONE)
        pp_catf(buf, cap, "%s%s recomputation", buf[0] ? ", " : "", pp_recompute_name(p->recompute));
    if (p->moe_capacity_factor > 0)
        pp_catf(buf, cap, "%stoken dropping (expert capacity %s)", buf[0] ? ", " : "",
                pp_decisions[PP_DEC_MOE_CAPACITY].names[p->moe_capacity_factor]);
    if (!buf[0])
        snprintf(buf, cap, "none");
}

void pp_text_ties(const pp_problem *prob, const pp_plan_result *res, const pp_explanation *ex, char *v, size_t vc)
{
    char e[32], best_tricks[160];
    v[0] = '\0';
    pp_pct(ex->model_error, e, sizeof e);
    if (ex->n_runner_ups == 0 && !ex->have_simplest)
        return;
    pp_text_tricks(prob, &res->best.plan, best_tricks, sizeof best_tricks);
    if (ex->n_ties == 0)
        pp_catf(v, vc, "No runner-up is within %s of the optimum, the cost model's measured error "
                       "(docs/calibration.md): the optimum is clearly ahead.", e);
    else {
        if (ex->n_ties == ex->n_runner_ups && ex->n_ties > 1)
            pp_catf(v, vc, "All %d runner-ups are", ex->n_ties);
        else
            pp_catf(v, vc, "%d of the %d runner-ups %s", ex->n_ties, ex->n_runner_ups, ex->n_ties == 1 ? "is" : "are");
        pp_catf(v, vc, " within %s of the optimum, the cost model's measured error (docs/calibration.md): the model "
                       "cannot rank %s, so treat %s as ties.",
                e, ex->n_ties == 1 ? "it" : "them", ex->n_ties == 1 ? "it" : "them");
        int room = ex->tie_most_room, plain = ex->tie_fewest_tricks;
        if (room)
            pp_catf(v, vc, " #%d leaves the most memory headroom: %.2f GiB free on its most loaded GPU, against %.2f GiB "
                           "for the optimum.", room, ex->runner_ups[room - 2].headroom_gib, ex->best.headroom_gib);
        if (plain) {
            char tricks[160];
            pp_text_tricks(prob, &res->runner_ups[plain - 2].plan, tricks, sizeof tricks);
            pp_catf(v, vc, " #%d needs the fewest tricks (%s; the optimum uses %s).", plain, tricks, best_tricks);
        }
        if (!room && !plain)
            pp_catf(v, vc, " Among them the optimum itself leaves the most memory headroom (%.2f GiB free) and needs the "
                           "fewest tricks (%s).", ex->best.headroom_gib, best_tricks);
        else if (!room)
            pp_catf(v, vc, " The optimum itself leaves the most memory headroom among them (%.2f GiB free).",
                    ex->best.headroom_gib);
        else if (!plain)
            pp_catf(v, vc, " The optimum itself needs the fewest tricks among them (%s).", best_tricks);
    }
    if (ex->have_simplest) {
        const pp_runner_up_report *s = &ex->simplest_report;
        char g[32], plan[320], why[512];
        pp_pct(s->gap, g, sizeof g);
        pp_plan_text(prob, &ex->simplest.best.plan, plan, sizeof plan);
        pp_text_why(prob, &ex->simplest.best.plan, &res->best.plan, s, why, sizeof why);
        pp_catf(v, vc, " The fastest plan without interleaving or compression%s is %s: %.3f s, %s slower%s (it loses on %s).",
                res->best.plan.moe_capacity_factor > 0 ? " or dropped tokens" : "", plan,
                ex->simplest.best.eval.time.step_s, g, s->tie ? ", a tie" : "", why);
    }
}

void pp_text_limits(const pp_plan_result *res, const pp_explanation *ex, char *v, size_t vc)
{
    v[0] = '\0';
    int binding = 0;
    char limits[256] = "";
    int n_limits = 0, total_limits = 0;
    for (int i = 0; i < ex->n_families; i++)
        total_limits += ex->families[i].family->limit;
    for (int i = 0; i < ex->n_families; i++) {
        const pp_family_report *f = &ex->families[i];
        if (!f->family->limit)
            continue;
        pp_catf(limits, sizeof limits, "%s%s", n_limits == 0 ? "" : n_limits == total_limits - 1 ? " and " : ", ",
                f->family->name);
        n_limits++;
        if (!f->binds)
            continue;
        double most = 0.0; /* the largest gain any of its relaxations buys */
        for (int k = 0; k < f->n_cf; k++)
            if (pp_cf_faster(&f->cf[k]))
                most = fmax(most, f->cf[k].gain);
        char p[32], e[32];
        pp_pct(most, p, sizeof p);
        pp_pct(ex->model_error, e, sizeof e);
        bool barely = most < ex->model_error;
        pp_catf(v, vc, "%c%s binds%s: lifting it entirely would make a step %s faster%s%s. ",
                pp_toupper_ascii(f->family->name[0]), f->family->name + 1, barely ? ", but barely" : "", p,
                barely ? ", within the cost model's error of " : "", barely ? e : "");
        binding++;
    }
    if (!binding)
        pp_catf(v, vc, "No constraint binds: %s all leave room. ", limits);
    const pp_time *t = &res->best.eval.time;
    int worst = -1;
    for (int k = PP_PART_BUBBLE; k < PP_PART_COUNT; k++)
        if (worst < 0 || pp_part_s(t, (pp_part)k) > pp_part_s(t, (pp_part)worst))
            worst = k;
    char share[32], comp[32];
    pp_pct(t->step_s > 0 ? t->compute_s / t->step_s : 0, comp, sizeof comp);
    pp_pct(t->step_s > 0 ? pp_part_s(t, (pp_part)worst) / t->step_s : 0, share, sizeof share);
    pp_catf(v, vc, "%s the plan's own work: computation is %s of the step, and the largest overhead is %s (%.3f s, %s).",
            binding ? "Beyond that, the step is" : "The step is", comp, pp_part_name((pp_part)worst),
            pp_part_s(t, (pp_part)worst), share);
    if (ex->n_speedups > 0) {
        char g[32];
        pp_pct(ex->speedups[0]->gain, g, sizeof g);
        pp_catf(v, vc, " The biggest lever found is %s (%s faster).", ex->speedups[0]->what, g);
    }
}

void pp_text_baseline_problem(const pp_baseline_report *b, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (!b->present)
        return;
    if (!b->valid) {
        snprintf(buf, cap, "%s", b->invalid);
        return;
    }
    size_t n = 0;
    if (b->tp_leaves_node)
        n = (size_t)snprintf(buf, cap,
                             "its tensor parallelism (tp=%d) leaves a node, which the problem does not allow "
                             "(constraints.allow_tp_across_nodes)",
                             b->plan.tp);
    if (b->not_runnable && n < cap)
        n += (size_t)snprintf(buf + n, cap - n, "%sit is %s", n ? "; " : "", b->not_runnable_why);
    if (b->breaks_row && n < cap)
        snprintf(buf + n, cap - n, "%sit breaks the row %s: %.4g > %.4g %s", n ? "; " : "", b->broken.name,
                 b->broken.lhs, b->broken.rhs, b->broken.unit ? b->broken.unit : "");
}

void pp_text_borrow_factors(const pp_efficiency *e, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "GEMM and attention x %.3g", e->borrow_factor);
    if (e->borrow_nvlink_factor > 0.0 && e->borrow_nvlink_factor != 1.0 && n < cap)
        snprintf(buf + n, cap - n, ", NVLink x %.3g", e->borrow_nvlink_factor);
}

void pp_text_calibration(const pp_efficiency *e, bool short_form, char *buf, size_t cap)
{
    char factors[96];
    pp_text_borrow_factors(e, factors, sizeof factors);
    if (e->calibrated && !e->borrowed_from[0])
        snprintf(buf, cap, "%s", "");
    else if (e->calibrated && short_form)
        snprintf(buf, cap, "fit of %s, same die", e->borrowed_from);
    else if (e->calibrated)
        snprintf(buf, cap, "fitted to measurements of %s, the same die (data/gpus.json efficiency_from)",
                 e->borrowed_from);
    else if (e->borrowed_from[0] && short_form)
        snprintf(buf, cap, "uncalibrated: borrowed from %s x %.3g", e->borrowed_from, e->borrow_factor);
    else if (e->borrowed_from[0])
        snprintf(buf, cap, "none of this GPU: its efficiencies are borrowed from %s, the nearest calibrated GPU, "
                           "%s (data/gpus.json efficiency_borrow cites the factors); measure a few steps and "
                           "calibrate (docs/calibration.md) before trusting small differences",
                 e->borrowed_from, factors);
    else if (short_form)
        snprintf(buf, cap, "%s", "uncalibrated");
    else
        snprintf(buf, cap, "%s", "none: this GPU's efficiencies are built-in defaults, not fitted to measurements "
                                 "(parplan calibrate, docs/calibration.md); treat the times as rough");
}
