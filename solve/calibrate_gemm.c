/*
 * calibrate_gemm.c: the bounded fit of the GEMM ceiling and shape terms to a
 * GEMM sweep (see calibrate_gemm.h).
 */
#include "calibrate_gemm.h"

#include "calibrate.h"
#include "costmodel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Each parameter of the fit is a row of the catalog's efficiency table. */
static const pp_eff_id EFF_OF[PP_GEMM_PARAM_COUNT] = {
    [PP_GEMM_CEILING] = PP_EFF_GEMM,
    [PP_GEMM_K_OVERHEAD] = PP_EFF_GEMM_K_OVERHEAD,
    [PP_GEMM_MISALIGNED] = PP_EFF_GEMM_MISALIGNED,
    [PP_GEMM_KERNEL_US] = PP_EFF_KERNEL_US,
};

static const char *const CLASS_NAMES[PP_GEMM_CLASS_COUNT] = {
    "large, aligned", "short K", "partial wave", "misaligned K or N", "memory-bound", "launch-bound",
};

const char *pp_gemm_class_name(pp_gemm_class c)
{
    return c >= 0 && c < PP_GEMM_CLASS_COUNT ? CLASS_NAMES[c] : "?";
}

static double *param_field(pp_efficiency *e, int p)
{
    return pp_efficiency_field(e, EFF_OF[p]);
}

static double row_time_s(const pp_gpu *gpu, const pp_gemm_row *r)
{
    return pp_gemm_time_s(gpu, r->prec, r->m, r->n, r->k, r->batch);
}

pp_gemm_class pp_gemm_row_class(const pp_gpu *gpu, const pp_gemm_row *r)
{
    pp_gemm_terms t;
    pp_gemm_terms_of(gpu, r->prec, r->m, r->n, r->k, r->batch, &t);
    if (t.launch_s >= 0.25 * t.time_s)
        return PP_GEMM_CLASS_LAUNCH;
    if (t.bytes_s >= t.flops_s)
        return PP_GEMM_CLASS_MEMORY;
    if (t.align_share < 1.0)
        return PP_GEMM_CLASS_MISALIGNED;
    if (t.wave_share < 0.9)
        return PP_GEMM_CLASS_WAVE;
    if (t.k_share < 0.9)
        return PP_GEMM_CLASS_SHORT_K;
    return PP_GEMM_CLASS_LARGE;
}

/* ---- the rows fitted ---------------------------------------------------------- */

typedef struct fitted_row {
    const pp_gemm_row *row;
    const char *file;
} fitted_row;

typedef struct gemm_ctx {
    pp_gpu gpu;               /* parameters not fitted stay as they are */
    fitted_row *rows;
    int n_rows;
    int n_free;               /* parameters fitted */
    int free_param[PP_GEMM_PARAM_COUNT];
    double lo[PP_GEMM_PARAM_COUNT], hi[PP_GEMM_PARAM_COUNT];
} gemm_ctx;

static bool has_peak(const pp_gpu *g, pp_precision p)
{
    return g->peak_tflops[p] > 0.0;
}

/* u in [0, 1] per free parameter, into the GPU's efficiency. */
static void to_gpu(const gemm_ctx *c, const double *u, pp_gpu *g)
{
    for (int j = 0; j < c->n_free; j++) {
        int p = c->free_param[j];
        *param_field(&g->eff, p) = c->lo[p] + (c->hi[p] - c->lo[p]) * fmin(fmax(u[j], 0.0), 1.0);
    }
}

static double mean_sq_log_error(const gemm_ctx *c, const pp_gpu *g)
{
    double sum = 0.0;
    for (int i = 0; i < c->n_rows; i++) {
        double t = row_time_s(g, c->rows[i].row);
        double e = t > 0.0 && isfinite(t) ? log(t / c->rows[i].row->time_s) : 10.0;
        sum += e * e;
    }
    return c->n_rows ? sum / c->n_rows : 0.0;
}

/* The same tie-breaking pull toward the middle of the bounds as the
 * step-time fit's (calibrate.c, PRIOR_WEIGHT). */
#define PRIOR_WEIGHT 1e-6

static double objective(unsigned n, const double *u, double *grad, void *data)
{
    (void)grad;
    const gemm_ctx *c = data;
    pp_gpu g = c->gpu;
    to_gpu(c, u, &g);
    double prior = 0.0;
    for (unsigned j = 0; j < n; j++)
        prior += (u[j] - 0.5) * (u[j] - 0.5);
    return mean_sq_log_error(c, &g) + PRIOR_WEIGHT * prior;
}

/* Per row, how much log time moves when parameter p goes from its lower to
 * its upper bound (the others as they are). */
static void sensitivity(const gemm_ctx *c, int p, double *s)
{
    pp_gpu lo = c->gpu, hi = c->gpu;
    *param_field(&lo.eff, p) = c->lo[p];
    *param_field(&hi.eff, p) = c->hi[p];
    for (int i = 0; i < c->n_rows; i++)
        s[i] = log(row_time_s(&hi, c->rows[i].row) / row_time_s(&lo, c->rows[i].row));
}

/* Whether the rows inform shape parameter p: the part of its sensitivity
 * that the ceiling's cannot mimic moves some row by PP_GEMM_INFORMED. */
static bool informed(const gemm_ctx *c, int p, const double *s_ceiling, double *s)
{
    sensitivity(c, p, s);
    double sc = 0.0, cc = 0.0;
    for (int i = 0; i < c->n_rows; i++) {
        sc += s[i] * s_ceiling[i];
        cc += s_ceiling[i] * s_ceiling[i];
    }
    double beta = cc > 0.0 ? sc / cc : 0.0, worst = 0.0;
    for (int i = 0; i < c->n_rows; i++)
        worst = fmax(worst, fabs(s[i] - beta * s_ceiling[i]));
    return worst >= PP_GEMM_INFORMED;
}

/* The bounds of parameter p for this GPU, and the start inside them: the
 * ceiling and kernel_us its family's; the shape terms every family's, since
 * they describe cuBLAS and CUTLASS kernels, not a chip. */
static void set_bounds(gemm_ctx *c, const pp_eff_family *family, const pp_eff_family *every, pp_gemm_param_fit *f,
                       int p)
{
    const pp_eff_bound *b = p == PP_GEMM_CEILING || p == PP_GEMM_KERNEL_US ? &family->bound[EFF_OF[p]]
                                                                          : &every->bound[EFF_OF[p]];
    c->lo[p] = b->lo;
    c->hi[p] = p == PP_GEMM_CEILING ? fmin(b->hi, 1.0) : b->hi; /* never more than the peak */
    f->source = b->source;
    f->key = pp_efficiency_key(EFF_OF[p]);
    f->lo = c->lo[p];
    f->hi = c->hi[p];
    f->before = *param_field(&c->gpu.eff, p);
    /* the sensitivity tests and the fit start from the value in force, held inside the bounds */
    *param_field(&c->gpu.eff, p) = fmin(fmax(f->before, c->lo[p]), c->hi[p]);
}

static void choose_free(gemm_ctx *c, pp_gemm_calibration *cal)
{
    double *s_ceiling = calloc((size_t)c->n_rows, sizeof *s_ceiling);
    double *s = calloc((size_t)c->n_rows, sizeof *s);
    c->n_free = 0;
    c->free_param[c->n_free++] = PP_GEMM_CEILING;
    cal->param[PP_GEMM_CEILING].fitted = true;
    if (s_ceiling && s) {
        sensitivity(c, PP_GEMM_CEILING, s_ceiling);
        for (int p = PP_GEMM_CEILING + 1; p < PP_GEMM_PARAM_COUNT; p++)
            if ((cal->param[p].fitted = informed(c, p, s_ceiling, s)))
                c->free_param[c->n_free++] = p;
    }
    free(s_ceiling);
    free(s);
}

static void score_classes(const gemm_ctx *c, pp_gemm_calibration *cal)
{
    for (int i = 0; i < c->n_rows; i++) {
        const pp_gemm_row *r = c->rows[i].row;
        pp_gemm_class k = pp_gemm_row_class(&cal->gpu, r);
        pp_gemm_class_fit *x = &cal->cls[k];
        double fitted = row_time_s(&cal->gpu, r), err = fabs(fitted / r->time_s - 1.0) * 100.0;
        x->n_rows++;
        x->flops += 2.0 * r->batch * r->m * r->n * r->k;
        x->measured_s += r->time_s;
        x->fitted_s += fitted;
        if (err >= x->worst_error_pct) {
            x->worst_error_pct = err;
            x->worst_line = r->line;
            x->worst_file = c->rows[i].file;
        }
        if (err >= cal->worst_error_pct) {
            cal->worst_error_pct = err;
            cal->worst_line = r->line;
            cal->worst_file = c->rows[i].file;
        }
    }
}

static int gather_rows(const pp_gemm_sweep *sweeps, int n_sweeps, gemm_ctx *c, pp_gemm_calibration *cal)
{
    int total = 0;
    for (int s = 0; s < n_sweeps; s++)
        total += sweeps[s].n_rows;
    c->rows = calloc((size_t)total + 1, sizeof *c->rows);
    if (!c->rows)
        return -1;
    for (int s = 0; s < n_sweeps; s++)
        for (int i = 0; i < sweeps[s].n_rows; i++) {
            if (!has_peak(&c->gpu, sweeps[s].rows[i].prec)) {
                cal->n_no_peak++;
                continue;
            }
            c->rows[c->n_rows++] = (fitted_row){&sweeps[s].rows[i], sweeps[s].name};
        }
    return c->n_rows;
}

int pp_calibrate_gemm(const pp_catalog *cat, const pp_gemm_sweep *sweeps, int n_sweeps, pp_gemm_calibration *cal)
{
    const pp_eff_family *family = pp_catalog_gpu_family(cat, cal->gpu.id);
    if (!family || !cat->every_family)
        return 0;
    gemm_ctx c;
    memset(&c, 0, sizeof c);
    c.gpu = cal->gpu;
    memset(cal->param, 0, sizeof cal->param);
    memset(cal->cls, 0, sizeof cal->cls);
    cal->n_rows = cal->n_no_peak = 0;
    cal->worst_error_pct = 0.0;
    cal->worst_line = 0;
    cal->worst_file = NULL;
    cal->rms_log_error_before = cal->rms_log_error_after = 0.0;
    for (int p = 0; p < PP_GEMM_PARAM_COUNT; p++)
        set_bounds(&c, family, cat->every_family, &cal->param[p], p);
    if (gather_rows(sweeps, n_sweeps, &c, cal) <= 0) {
        for (int p = 0; p < PP_GEMM_PARAM_COUNT; p++)
            cal->param[p].after = cal->param[p].before;
        free(c.rows);
        return 0;
    }
    cal->n_rows = c.n_rows;
    cal->rms_log_error_before = sqrt(mean_sq_log_error(&c, &cal->gpu));
    choose_free(&c, cal);
    for (int p = 0; p < PP_GEMM_PARAM_COUNT; p++)
        if (!cal->param[p].fitted) /* kept exactly as in force, even outside the bounds */
            *param_field(&c.gpu.eff, p) = cal->param[p].before;
    double u[PP_GEMM_PARAM_COUNT];
    for (int j = 0; j < c.n_free; j++) {
        int p = c.free_param[j];
        u[j] = (*param_field(&c.gpu.eff, p) - c.lo[p]) / (c.hi[p] - c.lo[p]);
    }
    pp_minimize_unit_box((unsigned)c.n_free, objective, &c, u);
    to_gpu(&c, u, &c.gpu);
    for (int p = 0; p < PP_GEMM_PARAM_COUNT; p++) {
        pp_gemm_param_fit *f = &cal->param[p];
        if (f->fitted) {
            f->after = *param_field(&c.gpu.eff, p);
            double tol = 1e-3 * (c.hi[p] - c.lo[p]);
            f->at_bound = f->after <= c.lo[p] + tol || f->after >= c.hi[p] - tol;
        } else {
            f->after = f->before;
        }
        *param_field(&cal->gpu.eff, p) = f->after;
    }
    cal->rms_log_error_after = sqrt(mean_sq_log_error(&c, &cal->gpu));
    score_classes(&c, cal);
    free(c.rows);
    return cal->n_rows;
}
