/*
 * calibrate.c: least-squares fit of the efficiency parameters and the
 * accuracy score (see calibrate.h).
 */
#include "calibrate.h"

#include "costmodel.h"

#include <cjson/cJSON.h>
#include <math.h>
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

void pp_score_measurements(const pp_measurement_set *set, pp_score *score)
{
    memset(score, 0, sizeof *score);
    for (int i = 0; i < set->n; i++) {
        const pp_measurement *r = &set->rows[i];
        pp_group_score *g = group_slot(score, r->group);
        if (!g)
            continue;
        if (r->has_time) {
            double predicted;
            double ape = fabs(pp_row_time_error_pct(r, &predicted));
            g->mape_time += ape;
            g->max_ape_time = fmax(g->max_ape_time, ape);
            g->n_time++;
        }
        if (r->has_memory) {
            pp_memory mem;
            pp_memory_eval(&r->prob, &r->plan, &mem);
            double states = mem.weights_gib + mem.gradients_gib + mem.optimizer_gib;
            g->mape_memory += fabs(states / r->mem_states_gib - 1.0) * 50.0 +
                              fabs(mem.activations_gib / r->mem_activations_gib - 1.0) * 50.0;
            g->n_memory++;
        }
    }
    for (int i = 0; i < score->n_groups; i++) {
        pp_group_score *g = &score->groups[i];
        if (g->n_time)
            g->mape_time /= g->n_time;
        if (g->n_memory)
            g->mape_memory /= g->n_memory;
    }
}

/* ---- the fit ------------------------------------------------------------ */

/* The fitted parameters in an unbounded space: fractions through a logistic
 * onto (lo, hi), the launch cost through exp. */
enum { P_GEMM, P_ATTN, P_HBM, P_NVLINK, P_NET, P_KERNEL, P_COUNT };
/* Physically plausible ranges: cuBLAS reaches 40-95 % of the tensor-core peak
 * on large shapes, fused attention 20-90 %, streaming kernels 40-95 % of HBM,
 * NCCL 50-95 % of NVLink and 30-95 % of the NIC; a launch costs 2-20 us. */
static const double LO[P_COUNT] = {0.40, 0.20, 0.40, 0.50, 0.30, 2.0};
static const double HI[P_COUNT] = {0.95, 0.90, 0.95, 0.95, 0.95, 20.0};

static double squash(double x, int i)
{
    return LO[i] + (HI[i] - LO[i]) / (1.0 + exp(-x));
}

static double unsquash(double v, int i)
{
    double u = (v - LO[i]) / (HI[i] - LO[i]);
    u = fmin(fmax(u, 1e-4), 1.0 - 1e-4);
    return log(u / (1.0 - u));
}

static void apply(const double *x, pp_efficiency *e)
{
    e->gemm = squash(x[P_GEMM], P_GEMM);
    e->attention = squash(x[P_ATTN], P_ATTN);
    e->hbm = squash(x[P_HBM], P_HBM);
    e->nvlink = squash(x[P_NVLINK], P_NVLINK);
    e->network = squash(x[P_NET], P_NET);
    e->kernel_us = squash(x[P_KERNEL], P_KERNEL);
}

typedef struct fit_ctx {
    pp_measurement_set *set;
    const char *gpu_id;
    double prior[P_COUNT]; /* the built-in defaults, in the unbounded space */
} fit_ctx;

/* A weak pull toward the built-in defaults: where the rows say nothing about
 * a parameter (no multi-node row, say), it keeps its default instead of
 * drifting, and the fit has one answer whatever it starts from. */
#define PRIOR_WEIGHT 1e-4

static double sq_log_error(fit_ctx *c, const double *x)
{
    double sum = 0.0;
    int n = 0;
    for (int i = 0; i < c->set->n; i++) {
        pp_measurement *r = &c->set->rows[i];
        if (!r->has_time || strcmp(r->gpu_id, c->gpu_id) != 0)
            continue;
        apply(x, &r->prob.cluster.gpu.eff);
        double e = log(pp_step_time_s(&r->prob, &r->plan) / r->iteration_s);
        sum += e * e;
        n++;
    }
    double prior = 0.0;
    for (int j = 0; j < P_COUNT; j++)
        prior += (x[j] - c->prior[j]) * (x[j] - c->prior[j]);
    return (n ? sum / n : 0.0) + PRIOR_WEIGHT * prior;
}

/* Nelder-Mead (Nelder & Mead 1965) with the standard coefficients. */
static void nelder_mead(fit_ctx *c, double *x0, int iters)
{
    double s[P_COUNT + 1][P_COUNT], f[P_COUNT + 1];
    for (int i = 0; i <= P_COUNT; i++) {
        memcpy(s[i], x0, sizeof s[i]);
        if (i > 0)
            s[i][i - 1] += 1.0;
        f[i] = sq_log_error(c, s[i]);
    }
    for (int it = 0; it < iters; it++) {
        int hi = 0, lo = 0;
        for (int i = 1; i <= P_COUNT; i++) {
            if (f[i] > f[hi])
                hi = i;
            if (f[i] < f[lo])
                lo = i;
        }
        int nh = lo;
        for (int i = 0; i <= P_COUNT; i++)
            if (i != hi && f[i] > f[nh])
                nh = i;
        double cen[P_COUNT] = {0}, xr[P_COUNT], xe[P_COUNT];
        for (int i = 0; i <= P_COUNT; i++)
            if (i != hi)
                for (int j = 0; j < P_COUNT; j++)
                    cen[j] += s[i][j] / P_COUNT;
        for (int j = 0; j < P_COUNT; j++)
            xr[j] = cen[j] + (cen[j] - s[hi][j]);
        double fr = sq_log_error(c, xr);
        if (fr < f[lo]) {
            for (int j = 0; j < P_COUNT; j++)
                xe[j] = cen[j] + 2.0 * (cen[j] - s[hi][j]);
            double fe = sq_log_error(c, xe);
            memcpy(s[hi], fe < fr ? xe : xr, sizeof s[hi]);
            f[hi] = fe < fr ? fe : fr;
        } else if (fr < f[nh]) {
            memcpy(s[hi], xr, sizeof s[hi]);
            f[hi] = fr;
        } else {
            for (int j = 0; j < P_COUNT; j++)
                xe[j] = cen[j] + 0.5 * (s[hi][j] - cen[j]);
            double fc = sq_log_error(c, xe);
            if (fc < f[hi]) {
                memcpy(s[hi], xe, sizeof s[hi]);
                f[hi] = fc;
            } else {
                for (int i = 0; i <= P_COUNT; i++)
                    if (i != lo) {
                        for (int j = 0; j < P_COUNT; j++)
                            s[i][j] = s[lo][j] + 0.5 * (s[i][j] - s[lo][j]);
                        f[i] = sq_log_error(c, s[i]);
                    }
            }
        }
    }
    int best = 0;
    for (int i = 1; i <= P_COUNT; i++)
        if (f[i] < f[best])
            best = i;
    memcpy(x0, s[best], sizeof s[best]);
}

static int find_fit(pp_fit *fits, int n, const char *id)
{
    for (int i = 0; i < n; i++)
        if (strcmp(fits[i].gpu_id, id) == 0)
            return i;
    return -1;
}

int pp_calibrate(pp_measurement_set *set, pp_fit *fits, int max_fits)
{
    int n = 0;
    for (int i = 0; i < set->n && n < max_fits; i++) {
        pp_measurement *r = &set->rows[i];
        if (!r->has_time || find_fit(fits, n, r->gpu_id) >= 0)
            continue;
        pp_fit *fit = &fits[n++];
        memset(fit, 0, sizeof *fit);
        snprintf(fit->gpu_id, sizeof fit->gpu_id, "%s", r->gpu_id);
        fit->eff = r->prob.cluster.gpu.eff;
    }
    for (int i = 0; i < set->n; i++) /* the fit must not depend on the loaded catalog */
        if (set->rows[i].has_time)
            pp_efficiency_init(&set->rows[i].prob.cluster.gpu.eff);
    for (int k = 0; k < n; k++) {
        pp_fit *fit = &fits[k];
        fit_ctx ctx = {set, fit->gpu_id, {0}};
        double x[P_COUNT] = {
            unsquash(fit->eff.gemm, P_GEMM),     unsquash(fit->eff.attention, P_ATTN),
            unsquash(fit->eff.hbm, P_HBM),       unsquash(fit->eff.nvlink, P_NVLINK),
            unsquash(fit->eff.network, P_NET),   unsquash(fit->eff.kernel_us, P_KERNEL),
        };
        memcpy(ctx.prior, x, sizeof x);
        fit->rms_log_error_before = sqrt(sq_log_error(&ctx, x));
        for (int restart = 0; restart < 4; restart++)
            nelder_mead(&ctx, x, 600);
        fit->rms_log_error_after = sqrt(sq_log_error(&ctx, x));
        apply(x, &fit->eff);
        for (int i = 0; i < set->n; i++)
            if (strcmp(set->rows[i].gpu_id, fit->gpu_id) == 0) {
                set->rows[i].prob.cluster.gpu.eff = fit->eff;
                if (set->rows[i].has_time)
                    fit->n_rows++;
            }
    }
    return n;
}

static cJSON *eff_json(const pp_efficiency *e)
{
    cJSON *o = cJSON_CreateObject();
    const struct { const char *k; double v; } f[] = {
        {"gemm", e->gemm},       {"attention", e->attention}, {"hbm", e->hbm},
        {"nvlink", e->nvlink},   {"network", e->network},     {"kernel_us", e->kernel_us},
        {"nvlink_latency_us", e->nvlink_latency_us},          {"network_latency_us", e->network_latency_us},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "%.4g", f[i].v);
        cJSON_AddItemToObject(o, f[i].k, cJSON_CreateNumber(strtod(buf, NULL)));
    }
    return o;
}

char *pp_fits_to_json(const pp_fit *fits, int n_fits, const char *source)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "source", source);
    cJSON *gpus = cJSON_AddObjectToObject(root, "gpus");
    for (int i = 0; i < n_fits; i++)
        cJSON_AddItemToObject(gpus, fits[i].gpu_id, eff_json(&fits[i].eff));
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    return text;
}
