/*
 * calibrate.c: least-squares fit of the efficiency parameters and the
 * accuracy score (see calibrate.h).
 */
#include "calibrate.h"

#include "catalog.h"
#include "costmodel.h"
#include "decisions.h"

#include <nlopt.h>

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- scoring ----------------------------------------------------------- */

static pp_group_score *group_slot(pp_score *s, const char *name)
{
    for (int i = 0; i < s->n_groups; i++)
        if (strcmp(s->groups[i].group, name) == 0)
            return &s->groups[i];
    if (s->n_groups == PP_MAX_GROUPS)
        return NULL;
    pp_group_score *g = &s->groups[s->n_groups++];
    memset(g, 0, sizeof *g);
    snprintf(g->group, sizeof g->group, "%s", name);
    return g;
}

double pp_row_time_error_pct(const pp_measurement *r, double *predicted_s)
{
    *predicted_s = pp_step_time_s(&r->prob, &r->plan);
    return (*predicted_s / r->iteration_s - 1.0) * 100.0;
}

static int count_pairs(const pp_measurement_set *set, const double *pred, const char *g, int *ordered,
                       int *bin_n, int *bin_ordered, int *what_n, int *what_ordered);
static void score_scale_pairs(const pp_measurement_set *set, const double *pred, pp_group_score *g);

static double share(int k, int n)
{
    return n ? (double)k / n : 0.0;
}

void pp_score_measurements(const pp_measurement_set *set, pp_score *score)
{
    memset(score, 0, sizeof *score);
    double *pred = calloc(set->n > 0 ? (size_t)set->n : 1, sizeof *pred); /* NULL: no pairs scored */
    for (int i = 0; i < set->n; i++) {
        const pp_measurement *r = &set->rows[i];
        pp_group_score *g = group_slot(score, r->group);
        if (!g)
            continue;
        if (r->has_time) {
            double predicted;
            double ape = fabs(pp_row_time_error_pct(r, &predicted));
            if (pred)
                pred[i] = predicted;
            if (r->defect) { /* apart, outside its group's figures */
                score->mape_defect += ape;
                score->n_defect++;
            } else {
                g->mape_time += ape;
                g->max_ape_time = fmax(g->max_ape_time, ape);
                g->n_time++;
            }
        }
        if (r->has_memory) {
            pp_memory mem;
            pp_memory_eval(&r->prob, &r->plan, &mem);
            double states = mem.weights_gib + mem.gradients_gib + mem.optimizer_gib;
            g->mape_memory += fabs(states / r->mem_states_gib - 1.0) * 50.0 +
                              fabs(mem.activations_gib / r->mem_activations_gib - 1.0) * 50.0;
            g->n_memory++;
        }
        if (r->has_time || r->has_oom) {
            pp_memory mem;
            pp_memory_eval(&r->prob, &r->plan, &mem);
            bool fits = mem.total_gib <= mem.usable_gib;
            g->n_ran += r->has_time;
            g->ran_fit += r->has_time && fits;
            g->n_oom += r->has_oom;
            g->oom_over += r->has_oom && !fits;
        }
        if (r->has_peak) {
            pp_memory mem;
            pp_memory_eval(&r->prob, &r->plan, &mem);
            double e = (mem.total_gib / r->peak_gib - 1.0) * 100.0;
            g->mape_peak += fabs(e);
            g->signed_peak += e;
            g->n_peak++;
        }
    }
    if (score->n_defect)
        score->mape_defect /= score->n_defect;
    for (int i = 0; i < score->n_groups; i++) {
        pp_group_score *g = &score->groups[i];
        if (g->n_time)
            g->mape_time /= g->n_time;
        if (g->n_memory)
            g->mape_memory /= g->n_memory;
        if (g->n_peak) {
            g->mape_peak /= g->n_peak;
            g->signed_peak /= g->n_peak;
        }
        int ordered = 0;
        if (pred)
            g->n_pairs = count_pairs(set, pred, g->group, &ordered, g->bin_pairs, g->bin_ordered, score->what_pairs,
                                     score->what_ordered);
        g->ordered = 100.0 * share(ordered, g->n_pairs);
        if (pred)
            score_scale_pairs(set, pred, g);
    }
    if (pred) {
        pp_span_score_rows(set, pred, &score->span);
        pp_score_gpu_pairs(set, pred, &score->gpu_pairs);
    }
    free(pred);
}

/* ---- the fit ------------------------------------------------------------ */

/* Every parameter stays inside its GPU family's physical bounds
 * (data/calibration-bounds.json, read by the catalog into pp_eff_family):
 * fractions of the datasheet figure the cost model divides by, each bound
 * with the microbenchmark it comes from (docs/calibration.md prints them).
 * The fit can only move inside these boxes. */

/* The optimizer works on u in [0, 1]^8, u = (value - lo) / (hi - lo), so
 * every parameter has the same scale. */
typedef struct fit_ctx {
    pp_measurement_set *set;
    const char *eff_id;
    const char *skip_group; /* rows of this group are left out (CV), or NULL */
    double lo[PP_EFF_COUNT], hi[PP_EFF_COUNT];
    int n_rows;
    const bool *only;       /* per row: only these rows are fitted (few-shot), or NULL */
    /* with a prior: the free parameters (the optimizer's vector), the others at u0 */
    int n_free;
    int free_at[PP_EFF_COUNT];
    double u0[PP_EFF_COUNT];
    double weight;          /* the penalty per (u - u0)^2 */
    /* the order term: same-job pairs of the fitted rows (row indices), the
     * rows' log errors at the last evaluation (per row index), its weight */
    int n_pairs;
    int *pair_a, *pair_b;
    double *row_err;
    double order_weight;
    double scale;           /* every fitted row's compute_scale (the stack level): 1 for a fit of the physics,
                               the prior's while the physics moves from it, then fit_stack_level's */
    bool level_moe;         /* Mixture-of-Experts rows count too (a team's stack level, pp_calibrate_map) */
} fit_ctx;

static void to_eff(const fit_ctx *c, const double *u, pp_efficiency *e)
{
    for (int i = 0; i < PP_EFF_COUNT; i++)
        *pp_efficiency_field(e, i) = c->lo[i] + (c->hi[i] - c->lo[i]) * fmin(fmax(u[i], 0.0), 1.0);
}

/* A row a fit may take: timed, dense, no reported defect. */
static bool fittable(const pp_measurement *r)
{
    return r->has_time && !r->defect && !pp_model_is_moe(&r->prob.model);
}

/* A timed Mixture-of-Experts row without a reported defect: a team's
 * calibration (pp_calibrate_map) takes its stack level from it, never its
 * physical parameters. */
static bool level_only(const pp_measurement *r)
{
    return r->has_time && !r->defect && pp_model_is_moe(&r->prob.model);
}

/* Mixture-of-Experts rows are scored, never fitted: their gap is mostly what
 * the model does not price (all-to-all overlap, node-limited routing, MTP;
 * docs/calibration.md), and bending the dense GPU parameters to absorb it
 * would move every dense prediction.  Neither are rows whose source reports
 * their speed as a framework bug (software_defect): no physical parameter
 * should absorb a bug. */
static bool in_fit(const fit_ctx *c, const pp_measurement *r)
{
    return (fittable(r) || (c->level_moe && level_only(r))) && strcmp(r->eff_id, c->eff_id) == 0 &&
           !(c->skip_group && strcmp(r->group, c->skip_group) == 0) && (!c->only || c->only[r - c->set->rows]);
}

/* The rows in_fit admits now: what data_term and its buffers iterate. */
static int count_rows(const fit_ctx *c)
{
    int n = 0;
    for (int i = 0; i < c->set->n; i++)
        n += in_fit(c, &c->set->rows[i]);
    return n;
}

/* A very weak pull toward the middle of the bounds: it only decides a
 * parameter the rows say nothing about (no multi-node row, say), which then
 * sits in the middle of what microbenchmarks allow, and gives the fit one
 * answer.  Weight 1e-6 on (u - 1/2)^2 per parameter, against a mean squared
 * log error of ~1e-2.  Stronger pulls (1e-4 to 1e-2) made the cross-validated
 * error worse (10.9 to 11.6 % against 10.8 % on the project set), so the
 * prior is a tie-breaker only. */
#define PRIOR_WEIGHT 1e-6

/* The rows' mean squared log error at u (the rows keep the parameters);
 * logs (if not NULL) gets each fitted row's log step time, in row order. */
static double data_term(fit_ctx *c, const double *u, double *logs)
{
    pp_efficiency e;
    double sum = 0.0;
    int rows = 0;
    for (int i = 0; i < c->set->n; i++) {
        pp_measurement *r = &c->set->rows[i];
        if (!in_fit(c, r))
            continue;
        e = r->prob.cluster.gpu.eff; /* keeps its source string */
        to_eff(c, u, &e);
        e.attention_balance = 0.0; /* the rates are the fit's own, of its rows' GPU */
        e.compute_scale = c->scale > 0.0 ? c->scale : 1.0;
        r->prob.cluster.gpu.eff = e;
        double t = pp_step_time_s(&r->prob, &r->plan);
        double err = t > 0 && isfinite(t) ? log(t / r->iteration_s) : 10.0;
        if (logs)
            logs[rows] = err;
        if (c->row_err)
            c->row_err[i] = err;
        sum += err * err;
        rows++;
    }
    return rows ? sum / rows : 0.0;
}

double pp_order_penalty(double pred_log_ratio, double measured_log_ratio, double *d_pred)
{
    double sign = measured_log_ratio > 0 ? 1.0 : measured_log_ratio < 0 ? -1.0 : 0.0;
    double short_by = PP_ORDER_MARGIN * fabs(measured_log_ratio) - pred_log_ratio * sign;
    if (d_pred)
        *d_pred = short_by > 0 ? -2.0 * short_by * sign : 0.0;
    return short_by > 0 ? short_by * short_by : 0.0;
}

/* The mean order penalty over the pairs, from the row errors data_term left:
 * the predicted log ratio is the measured one plus the difference of the
 * two rows' log errors. */
static double order_term(const fit_ctx *c)
{
    if (!c->n_pairs || !c->row_err)
        return 0.0;
    double sum = 0.0;
    for (int k = 0; k < c->n_pairs; k++) {
        int a = c->pair_a[k], b = c->pair_b[k];
        double m = log(c->set->rows[a].iteration_s / c->set->rows[b].iteration_s);
        sum += pp_order_penalty(m + c->row_err[a] - c->row_err[b], m, NULL);
    }
    return sum / c->n_pairs;
}

/* The level with the tie-breaking pull to the middle: the fit's error. */
static double level_objective(fit_ctx *c, const double *u)
{
    double prior = 0.0;
    for (int j = 0; j < PP_EFF_COUNT; j++)
        prior += (u[j] - 0.5) * (u[j] - 0.5);
    return data_term(c, u, NULL) + PRIOR_WEIGHT * prior;
}

static double objective(unsigned n, const double *u, double *grad, void *data)
{
    (void)n;
    (void)grad; /* derivative-free */
    fit_ctx *c = data;
    double level = level_objective(c, u);
    return c->order_weight > 0 ? level + c->order_weight * order_term(c) : level;
}

/* With a prior: v is the free parameters' u; the others stay at u0. */
static void full_u(const fit_ctx *c, const double *v, double *u)
{
    memcpy(u, c->u0, sizeof c->u0);
    for (int k = 0; k < c->n_free; k++)
        u[c->free_at[k]] = v[k];
}

static double objective_map(unsigned n, const double *v, double *grad, void *data)
{
    (void)n;
    (void)grad;
    fit_ctx *c = data;
    double u[PP_EFF_COUNT], prior = 0.0;
    full_u(c, v, u);
    for (int k = 0; k < c->n_free; k++)
        prior += (v[k] - c->u0[c->free_at[k]]) * (v[k] - c->u0[c->free_at[k]]);
    return data_term(c, u, NULL) + c->weight * prior;
}

/* BOBYQA (Powell 2009: quadratic models in a trust region, bounds
 * respected at every evaluation), then Sbplx (Rowan's subplex, robust where
 * the step time has kinks: max() of roofline terms, overlap), then BOBYQA
 * again from there; the best point wins.  All deterministic. */
double pp_minimize_unit_box(unsigned n, pp_box_objective f, void *data, double *u)
{
    static const nlopt_algorithm ALGS[] = {NLOPT_LN_BOBYQA, NLOPT_LN_SBPLX, NLOPT_LN_BOBYQA};
    double lb[PP_BOX_MAX_DIM], ub[PP_BOX_MAX_DIM], best[PP_BOX_MAX_DIM], x[PP_BOX_MAX_DIM];
    if (n == 0 || n > PP_BOX_MAX_DIM)
        return f(n, u, NULL, data);
    for (unsigned i = 0; i < n; i++)
        lb[i] = 0.0, ub[i] = 1.0;
    memcpy(best, u, n * sizeof *u);
    double fbest = f(n, best, NULL, data);
    for (size_t a = 0; a < sizeof ALGS / sizeof ALGS[0]; a++) {
        nlopt_opt opt = nlopt_create(ALGS[a], n);
        if (!opt)
            break;
        nlopt_set_min_objective(opt, f, data);
        nlopt_set_lower_bounds(opt, lb);
        nlopt_set_upper_bounds(opt, ub);
        nlopt_set_initial_step1(opt, a == 0 ? 0.2 : 0.05);
        nlopt_set_xtol_abs1(opt, 1e-7);
        nlopt_set_ftol_abs(opt, 1e-12);
        nlopt_set_maxeval(opt, 3000);
        double fx = HUGE_VAL;
        memcpy(x, best, n * sizeof *x);
        nlopt_result res = nlopt_optimize(opt, x, &fx);
        nlopt_destroy(opt);
        if (res > 0 || res == NLOPT_MAXEVAL_REACHED || res == NLOPT_ROUNDOFF_LIMITED) {
            fx = f(n, x, NULL, data);
            if (fx < fbest) {
                fbest = fx;
                memcpy(best, x, n * sizeof *x);
            }
        }
    }
    memcpy(u, best, n * sizeof *u);
    return fbest;
}

static double minimize(fit_ctx *c, double *u)
{
    return pp_minimize_unit_box(PP_EFF_COUNT, objective, c, u);
}

static bool same_job(const pp_measurement *a, const pp_measurement *b);

/* The same-job pairs of the fitted rows, measured more than 3 % apart, for
 * the order term (none when its weight is 0, or memory runs out). */
static void fit_pairs(fit_ctx *c)
{
    c->order_weight = PP_ORDER_WEIGHT;
    if (!(c->order_weight > 0))
        return;
    for (int pass = 0; pass < 2; pass++) {
        c->n_pairs = 0;
        for (int i = 0; i < c->set->n; i++) {
            const pp_measurement *a = &c->set->rows[i];
            if (!in_fit(c, a))
                continue;
            for (int j = i + 1; j < c->set->n; j++) {
                const pp_measurement *b = &c->set->rows[j];
                if (!in_fit(c, b) || !same_job(a, b) ||
                    pp_gap_bin(fmax(a->iteration_s, b->iteration_s) / fmin(a->iteration_s, b->iteration_s) - 1.0) < 0)
                    continue;
                if (pass == 1) {
                    c->pair_a[c->n_pairs] = i;
                    c->pair_b[c->n_pairs] = j;
                }
                c->n_pairs++;
            }
        }
        if (pass == 1 || !c->n_pairs)
            break;
        c->pair_a = malloc((size_t)c->n_pairs * sizeof *c->pair_a);
        c->pair_b = malloc((size_t)c->n_pairs * sizeof *c->pair_b);
        c->row_err = calloc((size_t)c->set->n, sizeof *c->row_err);
        if (!c->pair_a || !c->pair_b || !c->row_err) {
            free(c->pair_a);
            free(c->pair_b);
            free(c->row_err);
            c->pair_a = c->pair_b = NULL;
            c->row_err = NULL;
            c->n_pairs = 0;
            return;
        }
    }
}

/* Fit one GPU's parameters (within its family's bounds) on the rows
 * in_fit() admits; the result is within the bounds by construction. */
static void fit_one(pp_measurement_set *set, const pp_eff_family *family, const char *eff_id, const char *skip_group,
                    pp_fit *fit)
{
    fit_ctx c = {.set = set, .eff_id = eff_id, .skip_group = skip_group, .scale = 1.0};
    for (int i = 0; i < PP_EFF_COUNT; i++) {
        c.lo[i] = family->bound[i].lo;
        c.hi[i] = family->bound[i].hi;
    }
    for (int i = 0; i < set->n; i++)
        if (in_fit(&c, &set->rows[i]))
            c.n_rows++;
    fit_pairs(&c);
    double u[PP_EFF_COUNT];
    for (int i = 0; i < PP_EFF_COUNT; i++)
        u[i] = 0.5;
    memset(fit, 0, sizeof *fit);
    snprintf(fit->gpu_id, sizeof fit->gpu_id, "%s", eff_id);
    fit->family = family;
    fit->n_rows = c.n_rows;
    fit->rms_log_error_before = sqrt(level_objective(&c, u));
    if (c.n_rows > 0) {
        minimize(&c, u);
        fit->rms_log_error_after = sqrt(level_objective(&c, u));
    }
    free(c.pair_a);
    free(c.pair_b);
    free(c.row_err);
    pp_efficiency_init(&fit->eff); /* every fitted parameter is set below: nothing of the catalog's is kept */
    for (int i = 0; i < set->n; i++)
        if (strcmp(set->rows[i].eff_id, eff_id) == 0) { /* but the misalignment penalty is not this fit's */
            fit->eff.gemm_misaligned = set->rows[i].prob.cluster.gpu.eff.gemm_misaligned;
            break;
        }
    to_eff(&c, u, &fit->eff);
    for (int i = 0; i < PP_EFF_COUNT; i++) {
        double v = pp_efficiency_value(&fit->eff, i), tol = 1e-3 * (c.hi[i] - c.lo[i]);
        if (v <= c.lo[i] + tol || v >= c.hi[i] - tol)
            fit->n_at_bound++;
    }
    snprintf(fit->eff.source, sizeof fit->eff.source, "parplan calibrate: %d rows, physics-bounded fit",
             c.n_rows);
}

/* d log(step time) / d u_j over the fitted rows (RMS), by central
 * differences of PRIOR_STEP around u0 (one-sided at a bound). */
#define PRIOR_STEP 0.05
static void sensitivities(fit_ctx *c, double *sens)
{
    double *lo = calloc((size_t)c->n_rows + 1, sizeof *lo), *hi = calloc((size_t)c->n_rows + 1, sizeof *hi);
    for (int j = 0; j < PP_EFF_COUNT; j++) {
        sens[j] = 0.0;
        if (!lo || !hi)
            continue;
        double u[PP_EFF_COUNT];
        memcpy(u, c->u0, sizeof u);
        double a = fmax(c->u0[j] - PRIOR_STEP, 0.0), b = fmin(c->u0[j] + PRIOR_STEP, 1.0);
        u[j] = a;
        data_term(c, u, lo);
        u[j] = b;
        data_term(c, u, hi);
        double sum = 0.0;
        for (int i = 0; i < c->n_rows; i++)
            sum += (hi[i] - lo[i]) * (hi[i] - lo[i]) / ((b - a) * (b - a));
        sens[j] = c->n_rows ? sqrt(sum / c->n_rows) : 0.0;
    }
    free(lo);
    free(hi);
}

/* The mean log error of the fitted rows at u with every row's stack level
 * at scale (logs: a buffer of c->n_rows). */
static double mean_log_error(fit_ctx *c, const double *u, double scale, double *logs)
{
    double kept = c->scale;
    c->scale = scale;
    data_term(c, u, logs);
    c->scale = kept;
    double sum = 0.0;
    for (int i = 0; i < c->n_rows; i++)
        sum += logs[i];
    return c->n_rows ? sum / c->n_rows : 0.0;
}

/* The posterior's condition on the stack level (calibrate.h,
 * pp_calibrate_map): the fitted rows' mean log error at that level, plus
 * the prior's pull toward its own level (pull 0: the rows alone). */
static double level_condition(fit_ctx *c, const double *u, double level, double log_prior, double pull,
                              double *logs)
{
    return mean_log_error(c, u, level, logs) + pull * (log(level) - log_prior);
}

/* The stack level (calibrate.h, pp_calibrate_map): the compute_scale at
 * which level_condition is zero once the physical parameters have moved,
 * within the family's bounds.  The condition grows with the level (every
 * kernel's compute time does, and the pull's log), so bisection on its log
 * finds it; a bound is kept when the rows ask for more. */
#define STACK_LEVEL_STEPS 48
static double fit_stack_level(fit_ctx *c, const double *u, const pp_eff_bound *b, double log_prior, double pull)
{
    double *logs = calloc((size_t)c->n_rows + 1, sizeof *logs);
    double lo = log(b->lo), hi = log(b->hi), level = 1.0;
    if (!logs || c->n_rows == 0 || !(b->lo > 0.0) || !(b->hi >= b->lo)) {
        free(logs);
        return level;
    }
    if (level_condition(c, u, b->lo, log_prior, pull, logs) >= 0.0)
        level = b->lo;
    else if (level_condition(c, u, b->hi, log_prior, pull, logs) <= 0.0)
        level = b->hi;
    else {
        for (int k = 0; k < STACK_LEVEL_STEPS; k++) {
            double mid = 0.5 * (lo + hi);
            if (level_condition(c, u, exp(mid), log_prior, pull, logs) < 0.0)
                lo = mid;
            else
                hi = mid;
        }
        level = exp(0.5 * (lo + hi));
    }
    free(logs);
    return level;
}

/* The rows' noise (calibrate.h, pp_calibrate_map): the catalog's error
 * sl as a prior worth PP_PRIOR_NOISE_DOF rows, pooled with the scatter of
 * the rows' own log errors about their mean at the prior (all n of them,
 * Mixture-of-Experts ones too), n - 1 degrees of freedom; widened only.
 * scatter gets the rows' sample standard deviation (0 below two rows). */
static double pooled_noise(fit_ctx *c, const double *u, int n_all, int n_dense, double sl, double *scatter)
{
    *scatter = 0.0;
    double *logs = n_all > 1 ? calloc((size_t)n_all, sizeof *logs) : NULL;
    if (!logs)
        return sl;
    c->level_moe = true;
    c->n_rows = n_all;
    data_term(c, u, logs);
    c->level_moe = false;
    c->n_rows = n_dense;
    double mean = 0.0, ss = 0.0;
    for (int i = 0; i < n_all; i++)
        mean += logs[i] / n_all;
    for (int i = 0; i < n_all; i++)
        ss += (logs[i] - mean) * (logs[i] - mean);
    free(logs);
    *scatter = sqrt(ss / (n_all - 1));
    double pooled = sqrt((PP_PRIOR_NOISE_DOF * sl * sl + ss) / (PP_PRIOR_NOISE_DOF + n_all - 1));
    return fmax(sl, pooled);
}

/* From the prior: the parameters the rows identify move (the one whose
 * posterior fit is best first, at most one per row), penalized for leaving
 * the prior; the others keep it; then the stack level takes the mean error
 * they leave, pooled with the prior's level (calibrate.h, pp_calibrate_map). */
static void fit_one_map(pp_measurement_set *set, const pp_eff_family *family, const char *eff_id,
                        const pp_efficiency *prior, const bool *only, double sigma_log, double sigma_level,
                        pp_fit *fit)
{
    /* the physical parameters from the dense rows; the stack level, and the
     * errors the fit reports, from every row, Mixture-of-Experts ones too */
    fit_ctx c = {.set = set, .eff_id = eff_id, .only = only, .scale = prior->compute_scale};
    for (int i = 0; i < PP_EFF_COUNT; i++) {
        c.lo[i] = family->bound[i].lo;
        c.hi[i] = family->bound[i].hi;
        double w = c.hi[i] - c.lo[i];
        c.u0[i] = w > 0 ? fmin(fmax((pp_efficiency_value(prior, i) - c.lo[i]) / w, 0.0), 1.0) : 0.5;
    }
    c.level_moe = true;
    int n_all = count_rows(&c);
    c.level_moe = false;
    int n_dense = count_rows(&c);
    memset(fit, 0, sizeof *fit);
    snprintf(fit->gpu_id, sizeof fit->gpu_id, "%s", eff_id);
    fit->family = family;
    fit->n_rows = n_dense;
    fit->n_moe_rows = n_all - n_dense;
    fit->map = true;
    fit->eff = *prior; /* what the fit does not move, the misalignment penalty among it, is the prior's */
    fit->eff.calibrated = true;
    fit->eff.borrowed_from[0] = '\0';
    fit->eff.borrow_factor = 0.0;
    fit->eff.borrow_nvlink_factor = 0.0;
    fit->eff.attention_balance = 0.0; /* fitted on its own rows */
    double u[PP_EFF_COUNT];
    memcpy(u, c.u0, sizeof u);
    c.level_moe = true;
    c.n_rows = n_all;
    fit->rms_log_error_before = sqrt(data_term(&c, u, NULL));
    fit->rms_log_error_after = fit->rms_log_error_before;
    c.level_moe = false;
    c.n_rows = n_dense;
    double sl = sigma_log > 0 ? sigma_log : PP_PRIOR_DEFAULT_SIGMA_LOG;
    double sv = sigma_level > 0 ? sigma_level : PP_PRIOR_DEFAULT_SIGMA_LEVEL;
    sl = pooled_noise(&c, u, n_all, n_dense, sl, &fit->rows_scatter);
    fit->sigma_log = sl;
    if (c.n_rows > 0) {
        sensitivities(&c, fit->sensitivity);
        /* the identifiable ones, at most one per row, chosen forward: each
         * round frees the one whose posterior fit, with those chosen before,
         * is best (the most sensitive one may have no room left in the
         * direction the rows ask) */
        bool taken[PP_EFF_COUNT] = {false};
        c.weight = sl * sl / (c.n_rows * PP_PRIOR_SIGMA_U * PP_PRIOR_SIGMA_U);
        while (c.n_free < c.n_rows && c.n_free < PP_EFF_COUNT) {
            int best = -1;
            double best_obj = 0.0;
            for (int j = 0; j < PP_EFF_COUNT; j++) {
                if (taken[j] || fit->sensitivity[j] * PP_PRIOR_SIGMA_U < PP_PRIOR_MIN_EFFECT)
                    continue;
                c.free_at[c.n_free] = j;
                c.n_free++;
                double v[PP_EFF_COUNT];
                for (int k = 0; k < c.n_free; k++)
                    v[k] = c.u0[c.free_at[k]];
                double obj = pp_minimize_unit_box((unsigned)c.n_free, objective_map, &c, v);
                c.n_free--;
                if (best < 0 || obj < best_obj - 1e-12) {
                    best = j;
                    best_obj = obj;
                }
            }
            if (best < 0)
                break;
            taken[best] = true;
            c.free_at[c.n_free++] = best;
        }
        for (int j = 0; j < PP_EFF_COUNT; j++)
            fit->moved[j] = taken[j];
        fit->prior_weight = c.weight;
        if (c.n_free > 0) {
            double v[PP_EFF_COUNT];
            for (int k = 0; k < c.n_free; k++)
                v[k] = c.u0[c.free_at[k]];
            pp_minimize_unit_box((unsigned)c.n_free, objective_map, &c, v);
            full_u(&c, v, u);
        }
    }
    for (int j = 0; j < PP_EFF_COUNT; j++)
        if (fit->moved[j])
            *pp_efficiency_field(&fit->eff, j) = c.lo[j] + (c.hi[j] - c.lo[j]) * u[j];
    c.level_moe = true;
    c.n_rows = n_all;
    fit->rms_log_error_physics = sqrt(data_term(&c, u, NULL));
    fit->rms_log_error_after = fit->rms_log_error_physics;
    if (c.n_rows > 0) {
        const pp_eff_bound *b = &family->bound[PP_EFF_COMPUTE_SCALE];
        double prior_level = c.scale > 0.0 ? c.scale : 1.0;
        fit->level_rows = fit_stack_level(&c, u, b, 0.0, 0.0);
        fit->eff.compute_scale = fit_stack_level(&c, u, b, log(prior_level), sl * sl / (c.n_rows * sv * sv));
        fit->level_pull = c.n_rows * sv * sv / (c.n_rows * sv * sv + sl * sl);
        c.scale = fit->eff.compute_scale;
        fit->rms_log_error_after = sqrt(data_term(&c, u, NULL));
    }
    for (int i = 0; i < PP_EFF_COUNT; i++) {
        double v = pp_efficiency_value(&fit->eff, i), tol = 1e-3 * (c.hi[i] - c.lo[i]);
        if (v <= c.lo[i] + tol || v >= c.hi[i] - tol)
            fit->n_at_bound++;
    }
    snprintf(fit->eff.source, sizeof fit->eff.source,
             "parplan calibrate: %d rows%s, from the shipped fit as a prior (bounded MAP)", n_all,
             n_all > n_dense ? " (Mixture-of-Experts ones: the stack level only)" : "");
}

static int find_fit(const pp_fit *fits, int n, const char *id)
{
    for (int i = 0; i < n; i++)
        if (strcmp(fits[i].gpu_id, id) == 0)
            return i;
    return -1;
}

/* The GPUs (eff_id) with rows a fit may take, in order of first
 * appearance, and their families; a GPU outside the catalog has none and is
 * not fitted, nor is one whose rows are all scored apart (software-defect
 * rows, and Mixture-of-Experts rows unless with_moe: a team's calibration
 * takes its stack level from them): it keeps the catalog's parameters, its
 * own or borrowed, and gets no entry of its own. */
static int gpu_ids(const pp_catalog *cat, const pp_measurement_set *set, bool with_moe, pp_fit *fits, int max_fits)
{
    int n = 0;
    for (int i = 0; i < set->n && n < max_fits; i++) {
        const pp_measurement *r = &set->rows[i];
        const pp_eff_family *family = pp_catalog_gpu_family(cat, r->eff_id);
        if (!(fittable(r) || (with_moe && level_only(r))) || !family || find_fit(fits, n, r->eff_id) >= 0)
            continue;
        memset(&fits[n], 0, sizeof fits[n]);
        snprintf(fits[n].gpu_id, sizeof fits[n].gpu_id, "%s", r->eff_id);
        fits[n].family = family;
        n++;
    }
    return n;
}

static void apply_fits(pp_measurement_set *set, const pp_fit *fits, int n)
{
    for (int i = 0; i < set->n; i++) {
        int k = find_fit(fits, n, set->rows[i].eff_id);
        if (k >= 0)
            set->rows[i].prob.cluster.gpu.eff = fits[k].eff;
    }
}

int pp_calibrate(const pp_catalog *cat, pp_measurement_set *set, pp_fit *fits, int max_fits)
{
    int n = gpu_ids(cat, set, false, fits, max_fits);
    for (int k = 0; k < n; k++) {
        char id[PP_ID_LEN];
        snprintf(id, sizeof id, "%s", fits[k].gpu_id);
        fit_one(set, fits[k].family, id, NULL, &fits[k]);
    }
    apply_fits(set, fits, n);
    return n;
}

int pp_calibrate_map(const pp_catalog *cat, pp_measurement_set *set, double sigma_log, pp_fit *fits, int max_fits)
{
    int n = gpu_ids(cat, set, true, fits, max_fits);
    if (sigma_log <= 0)
        sigma_log = cat->model_error;
    for (int k = 0; k < n; k++) {
        char id[PP_ID_LEN];
        snprintf(id, sizeof id, "%s", fits[k].gpu_id);
        const pp_gpu *g = pp_catalog_gpu(cat, id);
        pp_efficiency prior = g->eff; /* gpu_ids admits catalog GPUs only */
        fit_one_map(set, fits[k].family, id, &prior, NULL, sigma_log, cat->level_spread, &fits[k]);
    }
    apply_fits(set, fits, n);
    return n;
}

/* ---- cross-validation --------------------------------------------------- */

/* Two rows of one group that train the same model shape: what every kind
 * of pair below starts from. */
static bool same_model(const pp_measurement *a, const pp_measurement *b)
{
    const pp_model *x = &a->prob.model, *y = &b->prob.model;
    return strcmp(a->group, b->group) == 0 && x->layers == y->layers && x->hidden == y->hidden &&
           x->heads == y->heads && x->kv_heads == y->kv_heads && x->ffn_hidden == y->ffn_hidden &&
           x->vocab == y->vocab && x->seq_len == y->seq_len;
}

/* ... on GPUs of one kind. */
static bool same_model_and_gpu(const pp_measurement *a, const pp_measurement *b)
{
    return same_model(a, b) && strcmp(a->gpu_id, b->gpu_id) == 0;
}

static long gpu_count(const pp_measurement *r)
{
    return r->prob.cluster.nodes * r->prob.cluster.gpus_per_node;
}

/* Two rows of one group are a same-job pair when they train the same
 * model on as many GPUs of one kind at one global batch with different
 * plans: rows that ran the same plan and settings on different systems
 * (MLPerf submitters of one configuration) differ by the system, which no
 * plan can order.  Rows are zeroed before they are filled, so their plan
 * and training settings compare byte for byte. */
static bool same_job(const pp_measurement *a, const pp_measurement *b)
{
    if (memcmp(&a->plan, &b->plan, sizeof a->plan) == 0 &&
        memcmp(&a->prob.training, &b->prob.training, sizeof a->prob.training) == 0)
        return false;
    return same_model_and_gpu(a, b) && gpu_count(a) == gpu_count(b) &&
           a->prob.training.global_batch == b->prob.training.global_batch;
}

/* Two rows of one group that run one job with the same plan and settings
 * on GPUs of two kinds (pp_gpu_pairs). */
static bool gpu_pair(const pp_measurement *a, const pp_measurement *b)
{
    return same_model(a, b) && strcmp(a->gpu_id, b->gpu_id) != 0 && gpu_count(a) == gpu_count(b) &&
           memcmp(&a->plan, &b->plan, sizeof a->plan) == 0 &&
           memcmp(&a->prob.training, &b->prob.training, sizeof a->prob.training) == 0;
}

/* The slot of the kind of pair of GPUs x and y (in name order), or NULL
 * when the table is full. */
static pp_gpu_kind_pair *gpu_kind_slot(pp_gpu_pairs *out, const char *x, const char *y)
{
    for (int k = 0; k < out->n_kinds; k++)
        if (strcmp(out->kinds[k].gpu[0], x) == 0 && strcmp(out->kinds[k].gpu[1], y) == 0)
            return &out->kinds[k];
    if (out->n_kinds == PP_MAX_GPU_KINDS)
        return NULL;
    pp_gpu_kind_pair *k = &out->kinds[out->n_kinds++];
    memset(k, 0, sizeof *k);
    snprintf(k->gpu[0], sizeof k->gpu[0], "%s", x);
    snprintf(k->gpu[1], sizeof k->gpu[1], "%s", y);
    return k;
}

static bool pairable(const pp_measurement *r)
{
    return r->has_time && !r->defect && !pp_model_is_moe(&r->prob.model);
}

void pp_score_gpu_pairs(const pp_measurement_set *set, const double *pred_s, pp_gpu_pairs *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < set->n; i++) {
        if (!pairable(&set->rows[i]))
            continue;
        for (int j = i + 1; j < set->n; j++) {
            const pp_measurement *a = &set->rows[i], *b = &set->rows[j];
            if (!pairable(b) || !gpu_pair(a, b))
                continue;
            int bin = pp_gap_bin(fmax(a->iteration_s, b->iteration_s) / fmin(a->iteration_s, b->iteration_s) - 1.0);
            if (bin < 0)
                continue;
            /* a tie orders nothing, as for same-job pairs */
            bool right = pred_s[i] != pred_s[j] && (a->iteration_s < b->iteration_s) == (pred_s[i] < pred_s[j]);
            out->n_pairs++;
            out->ordered += right;
            out->bin_pairs[bin]++;
            out->bin_ordered[bin] += right;
            bool swap = strcmp(a->gpu_id, b->gpu_id) > 0;
            const pp_measurement *x = swap ? b : a, *y = swap ? a : b;
            pp_gpu_kind_pair *k = gpu_kind_slot(out, x->gpu_id, y->gpu_id);
            if (!k)
                continue;
            k->n++;
            k->ordered += right;
            k->measured_log += log(x->iteration_s / y->iteration_s);
            k->priced_log += swap ? log(pred_s[j] / pred_s[i]) : log(pred_s[i] / pred_s[j]);
        }
    }
    for (int k = 0; k < out->n_kinds; k++) {
        out->kinds[k].measured_log /= out->kinds[k].n;
        out->kinds[k].priced_log /= out->kinds[k].n;
    }
}

/* Two rows of one group are a weak-scaling pair when they train the same
 * model on GPUs of one kind with the same plan per GPU: every decision and
 * training setting alike but dp and the global batch, whose micro-batches
 * per replica (global batch / dp) are the same.  What the larger run adds
 * is what scale costs: the data-parallel traffic and every wait for the
 * slowest of more GPUs. */
static bool scale_pair(const pp_measurement *a, const pp_measurement *b)
{
    if (a->plan.dp == b->plan.dp || !same_model_and_gpu(a, b) || a->prob.model.experts != b->prob.model.experts)
        return false;
    if (a->prob.training.global_batch * b->plan.dp != b->prob.training.global_batch * a->plan.dp)
        return false;
    pp_plan p = a->plan;
    p.dp = b->plan.dp;
    pp_training t = a->prob.training;
    t.global_batch = b->prob.training.global_batch;
    t.tokens = b->prob.training.tokens;
    return memcmp(&p, &b->plan, sizeof p) == 0 && memcmp(&t, &b->prob.training, sizeof t) == 0;
}

/* Group g's weak-scaling pairs (timed rows, no software defect). */
static void score_scale_pairs(const pp_measurement_set *set, const double *pred, pp_group_score *g)
{
    g->n_scale = 0;
    g->scale_gap = g->scale_doublings = 0.0;
    for (int i = 0; i < set->n; i++) {
        const pp_measurement *a = &set->rows[i];
        if (!a->has_time || a->defect || strcmp(a->group, g->group) != 0)
            continue;
        for (int j = 0; j < set->n; j++) {
            const pp_measurement *b = &set->rows[j];
            if (!b->has_time || b->defect || b->plan.dp <= a->plan.dp || !scale_pair(a, b))
                continue;
            g->n_scale++;
            g->scale_gap += 100.0 * (log(b->iteration_s / a->iteration_s) - log(pred[j] / pred[i]));
            g->scale_doublings += log2((double)b->plan.dp / a->plan.dp);
        }
    }
    if (g->n_scale) {
        g->scale_gap /= g->n_scale;
        g->scale_doublings /= g->n_scale;
    }
}

int pp_span_bin(long nodes)
{
    return nodes <= 1 ? 0 : nodes <= 8 ? 1 : nodes <= 64 ? 2 : 3;
}

const char *pp_span_bin_name(int bin)
{
    static const char *const NAMES[PP_SPAN_BINS] = {"1 node", "2-8 nodes", "9-64 nodes", "> 64 nodes"};
    return bin >= 0 && bin < PP_SPAN_BINS ? NAMES[bin] : "";
}

void pp_span_score_rows(const pp_measurement_set *set, const double *pred_s, pp_span_score *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < set->n; i++) {
        const pp_measurement *r = &set->rows[i];
        if (!r->has_time || r->defect || pp_model_is_moe(&r->prob.model) || !(pred_s[i] > 0.0))
            continue;
        int b = pp_span_bin(r->prob.cluster.nodes);
        double e = (pred_s[i] / r->iteration_s - 1.0) * 100.0;
        out->n_rows[b]++;
        out->mape_time[b] += fabs(e);
        out->bias_time[b] += e;
    }
    for (int b = 0; b < PP_SPAN_BINS; b++)
        if (out->n_rows[b]) {
            out->mape_time[b] /= out->n_rows[b];
            out->bias_time[b] /= out->n_rows[b];
        }
}

int pp_gap_bin(double gap)
{
    return !(gap > PP_PAIR_MIN_GAP) ? -1 : gap <= 0.10 ? 0 : gap <= 0.30 ? 1 : 2;
}

const char *pp_gap_bin_name(int bin)
{
    static const char *const NAMES[PP_GAP_BINS] = {"3-10 %", "10-30 %", "> 30 %"};
    return bin >= 0 && bin < PP_GAP_BINS ? NAMES[bin] : "";
}

/* The measured gap of two timed rows: slower / faster - 1. */
static double measured_gap(const pp_measurement *a, const pp_measurement *b)
{
    return fmax(a->iteration_s, b->iteration_s) / fmin(a->iteration_s, b->iteration_s) - 1.0;
}

/* Add a pair to the slots of what differs between its plans (PP_PAIR_WHAT). */
static void count_what(const pp_measurement *a, const pp_measurement *b, bool right, int *what_n, int *what_ordered)
{
    for (int d = 0; d < PP_DEC_COUNT; d++)
        if (pp_decision_get(&a->plan, (pp_decision_id)d) != pp_decision_get(&b->plan, (pp_decision_id)d)) {
            what_n[d]++;
            what_ordered[d] += right;
        }
    if (memcmp(&a->prob.training, &b->prob.training, sizeof a->prob.training) != 0) {
        what_n[PP_DEC_COUNT]++;
        what_ordered[PP_DEC_COUNT] += right;
    }
}

/* Same-job pairs of group g (or of every dense group if g is NULL: the
 * Mixture-of-Experts rows are scored apart) and how many of them pred
 * orders as measured, also by measured gap into bin_n and bin_ordered
 * (PP_GAP_BINS each, or NULL) and added to the slots of what differs
 * between the two plans in what_n and what_ordered (PP_PAIR_WHAT each, or
 * NULL); rows with a reported software defect pair with none. */
static int count_pairs(const pp_measurement_set *set, const double *pred, const char *g, int *ordered,
                       int *bin_n, int *bin_ordered, int *what_n, int *what_ordered)
{
    int n = 0;
    *ordered = 0;
    for (int k = 0; bin_n && k < PP_GAP_BINS; k++)
        bin_n[k] = bin_ordered[k] = 0;
    for (int i = 0; i < set->n; i++) {
        const pp_measurement *a = &set->rows[i];
        if (!a->has_time || a->defect || (g ? strcmp(a->group, g) != 0 : pp_model_is_moe(&a->prob.model)))
            continue;
        for (int j = i + 1; j < set->n; j++) {
            const pp_measurement *b = &set->rows[j];
            if (!b->has_time || b->defect || !same_job(a, b))
                continue;
            int bin = pp_gap_bin(measured_gap(a, b));
            if (bin < 0)
                continue;
            /* a tie orders nothing: two runs priced alike are not told apart */
            bool right = pred[i] != pred[j] && (a->iteration_s < b->iteration_s) == (pred[i] < pred[j]);
            n++;
            *ordered += right;
            if (bin_n) {
                bin_n[bin]++;
                bin_ordered[bin] += right;
            }
            if (what_n)
                count_what(a, b, right, what_n, what_ordered);
        }
    }
    return n;
}

static pp_cv_group *cv_slot(pp_cv_result *cv, const char *name)
{
    for (int i = 0; i < cv->n_groups; i++)
        if (strcmp(cv->groups[i].group, name) == 0)
            return &cv->groups[i];
    if (cv->n_groups == PP_MAX_GROUPS)
        return NULL;
    pp_cv_group *g = &cv->groups[cv->n_groups++];
    memset(g, 0, sizeof *g);
    snprintf(g->group, sizeof g->group, "%s", name);
    return g;
}

/* A row a team's calibration takes (pp_calibrate_map): dense, or a
 * Mixture-of-Experts one for the stack level. */
static bool shot_row(const pp_measurement *r)
{
    return fittable(r) || level_only(r);
}

/* Few-shot: `shots` rows of group name, spread evenly over the rows a
 * team's calibration takes in file order, into shot[]; false (and no row
 * marked) when the group has no more such rows than shots. */
static bool pick_shots(const pp_measurement_set *set, const char *name, int shots, bool *shot)
{
    int n = 0;
    for (int i = 0; i < set->n; i++) {
        shot[i] = false;
        n += shot_row(&set->rows[i]) && strcmp(set->rows[i].group, name) == 0;
    }
    if (shots <= 0 || n <= shots)
        return false;
    int seen = 0, next = 0;
    for (int i = 0; i < set->n && next < shots; i++) {
        if (!shot_row(&set->rows[i]) || strcmp(set->rows[i].group, name) != 0)
            continue;
        if (seen == (int)((long)next * n / shots)) {
            shot[i] = true;
            next++;
        }
        seen++;
    }
    return true;
}

static int cross_validate(const pp_catalog *cat, pp_measurement_set *set, int shots, pp_cv_result *cv);

int pp_cross_validate(const pp_catalog *cat, pp_measurement_set *set, pp_cv_result *cv)
{
    return cross_validate(cat, set, 0, cv);
}

int pp_cross_validate_shots(const pp_catalog *cat, pp_measurement_set *set, int shots, pp_cv_result *cv)
{
    return cross_validate(cat, set, shots, cv);
}

static int gpu_index(const pp_catalog *cat, const char *id)
{
    const pp_gpu *g = pp_catalog_gpu(cat, id);
    return g ? (int)(g - cat->gpus) : -1;
}

/* Few-shot score of group `name`: its rows other than the shots, each
 * priced with its GPU's update from the shots (upd[k], n_rows -1 for a GPU
 * not of the group); a GPU without shots of its own whose nearest donor
 * (gpus.json efficiency_borrow) had some borrows that donor's update, as
 * `calibrate` on the shots and `--efficiency` on the rest would price it
 * (catalog.c assign_efficiency), unless the held-out fit had rows of its
 * own (held_own[k]): a GPU with its own fit keeps it, as the catalog keeps
 * a GPU's own entry. */
static void score_shots(const pp_catalog *cat, pp_measurement_set *set, const char *name, const bool *shot,
                        const pp_fit *ids, const pp_fit *upd, const bool *held_own, int n_ids, bool *own,
                        const double *pred_cv, double *pred_shot, pp_cv_group *x)
{
    int shot_gpu[PP_MAX_GROUPS] = {0};
    for (int c = 0; c < cat->n_gpus; c++)
        own[c] = false;
    for (int i = 0; i < set->n; i++) {
        const pp_measurement *r = &set->rows[i];
        int k = find_fit(ids, n_ids, r->eff_id), c = gpu_index(cat, r->eff_id);
        if (shot[i] && strcmp(r->group, name) == 0 && k >= 0 && upd[k].n_rows + upd[k].n_moe_rows > 0) {
            shot_gpu[k] = 1;
            if (c >= 0)
                own[c] = true;
        }
    }
    for (int i = 0; i < set->n; i++) {
        pp_measurement *r = &set->rows[i];
        int k = find_fit(ids, n_ids, r->eff_id);
        if (!shot_row(r) || shot[i] || strcmp(r->group, name) != 0 || k < 0 || upd[k].n_rows < 0)
            continue;
        x->moe = x->moe || level_only(r);
        r->prob.cluster.gpu.eff = upd[k].eff;
        const pp_eff_donor *how = NULL;
        int c = gpu_index(cat, r->gpu_id);
        int d = !shot_gpu[k] && !held_own[k] && c >= 0 ? pp_catalog_borrow_donor(cat, c, own, &how) : -1;
        if (d >= 0 && own[d]) {
            int kd = find_fit(ids, n_ids, cat->gpus[d].id);
            if (kd >= 0)
                pp_catalog_borrowed_eff(cat, d, &upd[kd].eff, how, &r->prob.cluster.gpu.eff);
        }
        pred_shot[i] = pp_step_time_s(&r->prob, &r->plan);
        x->n_shot_rest++;
        x->mape_shot += fabs(pred_shot[i] / r->iteration_s - 1.0) * 100.0;
        x->mape_shot_cv += fabs(pred_cv[i] / r->iteration_s - 1.0) * 100.0;
    }
}

/* A GPU none of whose rows lies outside the held-out group is priced as a
 * user of the shipped fit finds it, which has no rows of that GPU either:
 * borrowed from its nearest donor (gpus.json efficiency_borrow) that has
 * rows outside the group, fitted without the group (catalog.c
 * assign_efficiency); with no such donor it keeps the middle of its
 * bounds. has: scratch, one flag a catalog GPU. */
static void borrow_held_out(const pp_catalog *cat, pp_measurement_set *set, const char *name, const pp_fit *ids,
                            int n_ids, bool *has, pp_fit *fit)
{
    int c = gpu_index(cat, fit->gpu_id);
    if (c < 0)
        return;
    for (int j = 0; j < cat->n_gpus; j++)
        has[j] = false;
    for (int i = 0; i < set->n; i++) {
        const pp_measurement *r = &set->rows[i];
        int j = gpu_index(cat, r->eff_id);
        if (j >= 0 && fittable(r) && strcmp(r->group, name) != 0)
            has[j] = true;
    }
    const pp_eff_donor *how = NULL;
    int d = pp_catalog_borrow_donor(cat, c, has, &how);
    int kd = d >= 0 && has[d] ? find_fit(ids, n_ids, cat->gpus[d].id) : -1;
    if (kd < 0)
        return;
    pp_fit donor;
    fit_one(set, ids[kd].family, ids[kd].gpu_id, name, &donor);
    pp_catalog_borrowed_eff(cat, d, &donor.eff, how, &fit->eff);
}

static int cross_validate(const pp_catalog *cat, pp_measurement_set *set, int shots, pp_cv_result *cv)
{
    memset(cv, 0, sizeof *cv);
    cv->shots = shots;
    pp_fit ids[PP_MAX_GROUPS];
    int n_ids = gpu_ids(cat, set, false, ids, PP_MAX_GROUPS);
    double *pred_cv = calloc((size_t)set->n + 1, sizeof *pred_cv);
    double *pred_in = calloc((size_t)set->n + 1, sizeof *pred_in);
    double *pred_shot = calloc((size_t)set->n + 1, sizeof *pred_shot);
    bool *shot = calloc((size_t)set->n + 1, sizeof *shot);
    /* few-shot: each GPU's update from the shots, and which GPUs had shots */
    pp_fit *upd = shots > 0 ? calloc((size_t)n_ids + 1, sizeof *upd) : NULL;
    bool *own = shots > 0 ? calloc((size_t)cat->n_gpus + 1, sizeof *own) : NULL;
    bool *has = calloc((size_t)cat->n_gpus + 1, sizeof *has);
    bool held_own[PP_MAX_GROUPS] = {false}; /* the held-out fit of ids[k] had rows of its own */
    if (!pred_cv || !pred_in || !pred_shot || !shot || !has || (shots > 0 && (!upd || !own))) {
        free(pred_cv);
        free(pred_in);
        free(pred_shot);
        free(shot);
        free(upd);
        free(own);
        free(has);
        return PP_EINTERNAL;
    }
    for (int i = 0; i < set->n; i++)
        if (set->rows[i].has_time)
            cv_slot(cv, set->rows[i].group);
    /* A row of a GPU no fit takes (its rows all scored apart) keeps the
     * parameters it was loaded with, the catalog's own or borrowed. */
    for (int i = 0; i < set->n; i++)
        if (set->rows[i].has_time && find_fit(ids, n_ids, set->rows[i].eff_id) < 0)
            pred_cv[i] = pp_step_time_s(&set->rows[i].prob, &set->rows[i].plan);
    /* Held out: one group at a time, each GPU fitted on the other groups. */
    for (int g = 0; g < cv->n_groups; g++) {
        const char *name = cv->groups[g].group;
        bool with_shots = pick_shots(set, name, shots, shot);
        for (int k = 0; k < n_ids; k++) {
            bool used = false;
            for (int i = 0; i < set->n && !used; i++)
                used = set->rows[i].has_time && strcmp(set->rows[i].group, name) == 0 &&
                       strcmp(set->rows[i].eff_id, ids[k].gpu_id) == 0;
            if (upd)
                upd[k].n_rows = -1; /* not a GPU of the group */
            if (!used)
                continue;
            pp_fit fit;
            fit_one(set, ids[k].family, ids[k].gpu_id, name, &fit);
            held_own[k] = fit.n_rows > 0;
            if (fit.n_rows == 0)
                borrow_held_out(cat, set, name, ids, n_ids, has, &fit);
            for (int i = 0; i < set->n; i++) {
                pp_measurement *r = &set->rows[i];
                if (r->has_time && strcmp(r->group, name) == 0 && strcmp(r->eff_id, fit.gpu_id) == 0) {
                    r->prob.cluster.gpu.eff = fit.eff;
                    pred_cv[i] = pp_step_time_s(&r->prob, &r->plan);
                }
            }
            /* few-shot: the held-out fit is the prior, the group's shots update it */
            if (with_shots)
                fit_one_map(set, ids[k].family, ids[k].gpu_id, &fit.eff, shot, cat->model_error, cat->level_spread,
                            &upd[k]);
        }
        if (with_shots)
            score_shots(cat, set, name, shot, ids, upd, held_own, n_ids, own, pred_cv, pred_shot, &cv->groups[g]);
    }
    free(upd);
    free(own);
    free(has);
    for (int g = 0; g < cv->n_groups; g++) {
        pp_cv_group *x = &cv->groups[g];
        if (!x->n_shot_rest)
            continue;
        x->mape_shot /= x->n_shot_rest;
        x->mape_shot_cv /= x->n_shot_rest;
        if (x->moe) { /* apart, as the groups' held-out errors are */
            cv->shot_moe_group_mape += x->mape_shot;
            cv->shot_moe_group_mape_cv += x->mape_shot_cv;
            cv->n_shot_moe_groups++;
            continue;
        }
        cv->shot_group_mape += x->mape_shot;
        cv->shot_group_mape_cv += x->mape_shot_cv;
        cv->n_shot_groups++;
    }
    if (cv->n_shot_groups) {
        cv->shot_group_mape /= cv->n_shot_groups;
        cv->shot_group_mape_cv /= cv->n_shot_groups;
    }
    if (cv->n_shot_moe_groups) {
        cv->shot_moe_group_mape /= cv->n_shot_moe_groups;
        cv->shot_moe_group_mape_cv /= cv->n_shot_moe_groups;
    }
    /* In sample: one fit on everything (what `calibrate` writes). */
    cv->n_fits = pp_calibrate(cat, set, cv->fits, PP_MAX_GROUPS);
    for (int i = 0; i < set->n; i++)
        if (set->rows[i].has_time)
            pred_in[i] = pp_step_time_s(&set->rows[i].prob, &set->rows[i].plan);
    for (int i = 0; i < set->n; i++) {
        pp_measurement *r = &set->rows[i];
        if (!r->has_time)
            continue;
        r->cv_predicted_s = pred_cv[i];
        double ape_cv = fabs(pred_cv[i] / r->iteration_s - 1.0) * 100.0;
        double ape_in = fabs(pred_in[i] / r->iteration_s - 1.0) * 100.0;
        if (r->defect) { /* apart, and out of its group's figures */
            cv->n_defect_rows++;
            cv->defect_mape_cv += ape_cv;
            continue;
        }
        pp_cv_group *g = cv_slot(cv, r->group);
        g->n_time++;
        g->mape_cv += ape_cv;
        g->max_ape_cv = fmax(g->max_ape_cv, ape_cv);
        g->bias_cv += (pred_cv[i] / r->iteration_s - 1.0) * 100.0;
        g->bias_log_cv += log(pred_cv[i] / r->iteration_s);
        g->mape_in += ape_in;
        if (pp_model_is_moe(&r->prob.model)) {
            /* apart: the overall error (efficiency.json's cross_validated_error,
             * the reports' tie threshold) stays the dense model's, as the fit does */
            g->moe = true;
            cv->n_moe_rows++;
            cv->moe_mape_cv += ape_cv;
            continue;
        }
        cv->n_rows++;
        cv->mape_cv += ape_cv;
        cv->mape_in += ape_in;
    }
    int k_cv, k_in, groups_timed = 0, groups_level = 0;
    for (int g = 0; g < cv->n_groups; g++) {
        pp_cv_group *x = &cv->groups[g];
        if (x->n_time) {
            x->mape_cv /= x->n_time;
            x->bias_cv /= x->n_time;
            x->bias_log_cv /= x->n_time;
            x->mape_in /= x->n_time;
            if (!x->moe) {
                cv->group_mape_cv += x->mape_cv;
                groups_timed++;
            }
            if (!x->moe && x->n_time >= PP_LEVEL_MIN_ROWS) {
                cv->group_bias_rms += x->bias_log_cv * x->bias_log_cv;
                groups_level++;
            }
        }
        x->n_pairs = count_pairs(set, pred_cv, x->group, &k_cv, x->bin_pairs, x->bin_ordered_cv, NULL, NULL);
        count_pairs(set, pred_in, x->group, &k_in, x->bin_pairs, x->bin_ordered_in, NULL, NULL);
        x->ordered_cv = share(k_cv, x->n_pairs);
        x->ordered_in = share(k_in, x->n_pairs);
    }
    if (cv->n_rows) {
        cv->mape_cv /= cv->n_rows;
        cv->mape_in /= cv->n_rows;
    }
    if (groups_timed)
        cv->group_mape_cv /= groups_timed;
    /* a spread of a few groups' levels is no estimate of it: then none (0) */
    cv->group_bias_rms = groups_level >= PP_LEVEL_MIN_GROUPS ? sqrt(cv->group_bias_rms / groups_level) : 0.0;
    if (cv->n_moe_rows)
        cv->moe_mape_cv /= cv->n_moe_rows;
    if (cv->n_defect_rows)
        cv->defect_mape_cv /= cv->n_defect_rows;
    pp_span_score_rows(set, pred_cv, &cv->span_cv);
    pp_score_gpu_pairs(set, pred_cv, &cv->gpu_pairs_cv);
    cv->n_pairs = count_pairs(set, pred_cv, NULL, &k_cv, cv->bin_pairs, cv->bin_ordered_cv, NULL, NULL);
    count_pairs(set, pred_in, NULL, &k_in, cv->bin_pairs, cv->bin_ordered_in, NULL, NULL);
    cv->ordered_cv = share(k_cv, cv->n_pairs);
    cv->ordered_in = share(k_in, cv->n_pairs);
    free(pred_cv);
    free(pred_in);
    free(pred_shot);
    free(shot);
    return PP_OK;
}

double pp_cv_step_time_error(const pp_cv_result *cv)
{
    return cv && cv->n_rows ? cv->mape_cv / 100.0 : 0.0;
}

/* ---- the override file --------------------------------------------------- */

static void add_rounded(cJSON *o, const char *key, double v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.4g", v);
    cJSON_AddItemToObject(o, key, cJSON_CreateNumber(strtod(buf, NULL)));
}

/* The fitted parameters, and any other (the misalignment penalty a GEMM
 * sweep fitted) when it is not the built-in one: a file without it means
 * the default. */
static cJSON *eff_json(const pp_efficiency *e)
{
    cJSON *o = cJSON_CreateObject();
    for (int i = 0; i < PP_EFF_PARAM_COUNT; i++)
        if (i < PP_EFF_COUNT || pp_efficiency_value(e, i) != pp_eff_params[i].def)
            add_rounded(o, pp_efficiency_key(i), pp_efficiency_value(e, i));
    return o;
}

static void add_fraction(cJSON *root, const char *key, double v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.3g", v);
    cJSON_AddItemToObject(root, key, cJSON_CreateNumber(strtod(buf, NULL)));
}

char *pp_fits_to_json(const pp_fit *fits, int n_fits, const char *source, double cv_error, double group_bias)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "source", source);
    if (cv_error > 0.0)
        add_fraction(root, "cross_validated_error", cv_error);
    if (group_bias > 0.0)
        add_fraction(root, "cross_validated_group_bias_rms", group_bias);
    cJSON *gpus = cJSON_AddObjectToObject(root, "gpus");
    for (int i = 0; i < n_fits; i++)
        cJSON_AddItemToObject(gpus, fits[i].gpu_id, eff_json(&fits[i].eff));
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    return text;
}
