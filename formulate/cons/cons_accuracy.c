/*
 * cons_accuracy.c: lossy compression only where the dimension tolerates its
 * error.
 *
 * A codec whose relative error exceeds a dimension's tolerance stays in the
 * space, but a named row fixes its columns to zero:
 *   acc_dp_zfp8   sum of D columns that compress DP traffic with zfp8 <= 0
 * one row per dimension (dp, tp, pp, params: ZeRO's parameter gathers, whose
 * codec sits on the D columns too) and too lossy codec;
 * so relaxing accuracy is dropping the rows (the rule of rules.c says the
 * same for a single plan).
 *
 * Explaining: accuracy is priced by solving again with every tolerance
 * lifted; when nothing fits, the first dimension whose every allowed codec
 * is too lossy is named.
 */
#include "cons.h"
#include "decisions.h"
#include "mip.h"
#include "problem.h"
#include "rules.h"
#include "space.h"
#include "text.h"

#include <math.h>
#include <stdio.h>


static const struct {
    pp_dim dim;
    pp_option_kind option;
    pp_col_kind kind;
} DIMS[] = {
    {PP_DIM_DP, PP_OPT_CODEC_DP, PP_COL_DP},
    {PP_DIM_TP, PP_OPT_CODEC_TP, PP_COL_TP},
    {PP_DIM_PP, PP_OPT_CODEC_PP, PP_COL_PP},
    {PP_DIM_PARAMS, PP_OPT_CODEC_PARAMS, PP_COL_DP},
};

static void acc_prune(const pp_mip *m, pp_mip_cands *c)
{
    static const pp_family fams[] = {PP_FAM_DP, PP_FAM_TP, PP_FAM_PP, PP_FAM_DP};
    for (size_t k = 0; k < sizeof DIMS / sizeof DIMS[0]; k++)
        for (int i = 0; i < c->n[fams[k]]; i++) {
            pp_mip_col *x = &c->c[fams[k]][i];
            if (pp_codec_too_lossy(m->prob, x->plan.codec[DIMS[k].dim], DIMS[k].dim))
                x->banned = true;
        }
}

static int acc_add_rows(pp_mip *m, pp_error *err)
{
    (void)err;
    const pp_problem *prob = m->prob;
    for (size_t k = 0; k < sizeof DIMS / sizeof DIMS[0]; k++) {
        const pp_int_list *codecs = &m->space->options[DIMS[k].option];
        for (int i = 0; i < codecs->n; i++) {
            int c = codecs->v[i];
            if (!pp_codec_too_lossy(prob, c, DIMS[k].dim))
                continue;
            char id[PP_ID_LEN];
            snprintf(id, sizeof id, "%s", prob->codecs[c].id);
            for (char *p = id; *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
                    *p = '_';
            int row = pp_mip_add_row(m, PP_ROW_LE, 0.0, "acc_%s_%s", pp_dim_name(DIMS[k].dim), id);
            for (int j = 1; j <= m->n_cols; j++)
                if (m->cols[j].kind == DIMS[k].kind && m->cols[j].plan.codec[DIMS[k].dim] == c)
                    pp_mip_coef(m, row, j, 1.0);
        }
    }
    return PP_OK;
}

static int acc_rows_at(const pp_problem *prob, const pp_plan *plan, const pp_eval *ev, pp_cons_row *out, int max)
{
    (void)ev;
    int n = 0;
    for (size_t k = 0; k < sizeof DIMS / sizeof DIMS[0] && n < max; k++) {
        pp_dim d = DIMS[k].dim;
        int c = plan->codec[d];
        const pp_codec *codec = c >= 0 && c < prob->n_codecs ? &prob->codecs[c] : NULL;
        double err = codec && codec->lossy ? codec->rel_error : 0.0;
        char name[32];
        snprintf(name, sizeof name, "acc_%s", pp_dim_name(d));
        pp_cons_row_set(&out[n], name, err, prob->error_tolerance[d], "relative error", false);
        out[n].violated = pp_codec_too_lossy(prob, c, d); /* exactly the rule of rules.c */
        out[n].binding = out[n].binding && codec && codec->lossy;
        n++;
    }
    return n;
}

/* ---- explaining ------------------------------------------------------------ */

static bool any_lossy_codec(const pp_problem *prob)
{
    for (int i = 0; i < prob->n_codecs; i++)
        if (prob->codecs[i].lossy)
            return true;
    return false;
}

static bool lossy_codec(const pp_problem *prob, int c)
{
    return c >= 0 && c < prob->n_codecs && prob->codecs[c].lossy;
}

/* Accuracy binds only where an error budget stops the plan: a dimension
 * with a budget (a tolerance above zero) that the faster plan without
 * tolerances compresses with a codec too lossy for it.  A faster plan that
 * only compresses what tolerates no error (TP, PP and parameters unless the
 * problem says otherwise) is the problem's prohibition, not a tight budget. */
static bool budget_tight(const pp_problem *prob, const pp_plan *plan, const pp_plan *lifted)
{
    for (int d = 0; d < PP_DIM_COUNT; d++)
        if (prob->error_tolerance[d] > 0.0 && lifted->codec[d] != plan->codec[d] &&
            pp_codec_too_lossy(prob, lifted->codec[d], (pp_dim)d))
            return true;
    return false;
}

static void acc_relax(const pp_cons_view *v, pp_family_report *f)
{
    if (!any_lossy_codec(v->prob) || !v->counterfactuals)
        return;
    pp_counterfactual *cf = pp_cf_add(f, "error_tolerance=any", "every dimension tolerating any codec's error");
    v->resolve(v->solver, v->prob, pp_cons_bit_of(&pp_cons_accuracy), cf);
    f->binds = pp_cf_faster(cf) && budget_tight(v->prob, &v->best->plan, &cf->best.plan);
}

static void acc_describe(const pp_cons_view *v, const pp_family_report *f, char *buf, size_t cap)
{
    const pp_problem *prob = v->prob;
    const pp_plan *plan = &v->best->plan;
    for (int d = 0; d < PP_DIM_COUNT; d++) {
        const pp_codec *k = &prob->codecs[plan->codec[d] >= 0 && plan->codec[d] < prob->n_codecs ? plan->codec[d] : 0];
        if (k->lossy)
            pp_catf(buf, cap, "The plan compresses %s traffic with %s (relative error %.2g of the %.2g allowed). ",
                    pp_dim_name((pp_dim)d), k->id, k->rel_error, prob->error_tolerance[d]);
    }
    if (!any_lossy_codec(prob)) {
        pp_catf(buf, cap, "Accuracy does not bind: no lossy codec is in the search space.");
        return;
    }
    if (!v->counterfactuals || f->n_cf == 0) {
        pp_catf(buf, cap, "No re-solve was run.");
        return;
    }
    if (!f->binds && f->n_cf > 0 && pp_cf_faster(&f->cf[0])) {
        bool compresses = false;
        for (int d = 0; d < PP_DIM_COUNT; d++)
            compresses = compresses || lossy_codec(prob, plan->codec[d]);
        pp_catf(buf, cap,
                compresses ? "Accuracy does not bind: the plan compresses within its error budget, and no "
                             "budget stops a dimension from compressing harder. Compressing what tolerates no "
                             "error would change it: "
                           : "Accuracy does not bind: no error budget stops the plan from compressing. "
                             "Compressing what tolerates no error would change it: ");
        pp_cf_effect(v, &f->cf[0], buf, cap);
        pp_catf(buf, cap, ".");
        return;
    }
    if (!f->binds) {
        pp_catf(buf, cap,
                "Accuracy does not bind: with every error tolerance lifted the same plan would be the fastest "
                "(the lossy codecs cost more time than they save here).");
        return;
    }
    const pp_counterfactual *cf = &f->cf[0];
    pp_catf(buf, cap, "Accuracy binds. If every dimension tolerated any codec's error, ");
    pp_cf_effect(v, cf, buf, cap);
    pp_catf(buf, cap, ".");
    for (int d = 0; d < PP_DIM_COUNT; d++) {
        const pp_codec *k = &prob->codecs[cf->best.plan.codec[d]];
        if (pp_codec_too_lossy(prob, cf->best.plan.codec[d], (pp_dim)d))
            pp_catf(buf, cap,
                    " It adds relative error %.2g to %s traffic, above the tolerance %.2g "
                    "(constraints.error_tolerance.%s).",
                    k->rel_error, pp_dim_name((pp_dim)d), prob->error_tolerance[d], pp_dim_name((pp_dim)d));
    }
}

/* The first dimension of a shape where every codec option is too lossy, or
 * -1 if each dimension has an allowed codec. */
static int blocked_dim(const pp_problem *prob, const pp_space *s, const pp_shape *sh)
{
    for (size_t k = 0; k < sizeof DIMS / sizeof DIMS[0]; k++) {
        const pp_int_list *l = pp_space_options(s, sh, DIMS[k].option);
        bool any = false;
        for (int i = 0; i < l->n && !any; i++)
            any = l->v[i] >= 0 && l->v[i] < prob->n_codecs && !pp_codec_too_lossy(prob, l->v[i], DIMS[k].dim);
        if (!any)
            return (int)DIMS[k].dim;
    }
    return -1;
}

static bool acc_diagnose(const pp_problem *prob, const pp_space *s, unsigned relax, char *buf, size_t cap)
{
    (void)relax;
    int open_shapes = 0, dim = -1;
    for (int si = 0; si < s->n_shapes; si++) {
        int d = blocked_dim(prob, s, &s->shapes[si]);
        if (d < 0)
            open_shapes++;
        else if (dim < 0)
            dim = d;
    }
    if (open_shapes > 0 || dim < 0)
        return false;
    snprintf(buf, cap,
             "accuracy: every codec the search allows on %s traffic adds more relative error than its "
             "tolerance %g (constraints.error_tolerance.%s)",
             pp_dim_name((pp_dim)dim), prob->error_tolerance[dim], pp_dim_name((pp_dim)dim));
    return true;
}

static void acc_requirement(const pp_problem *prob, char *buf, size_t cap)
{
    (void)prob;
    snprintf(buf, cap, "keeps every codec within its error tolerance");
}

/* Dropping accuracy lifts every tolerance, which the plan rules read too. */
static void acc_loosen(pp_problem *prob)
{
    for (int d = 0; d < PP_DIM_COUNT; d++)
        prob->error_tolerance[d] = HUGE_VAL;
}

const pp_cons_family pp_cons_accuracy = {
    .id = PP_CONS_ACCURACY,
    .name = "accuracy",
    .explain = "a lossy codec adds no more relative error to a dimension's traffic than that dimension "
               "tolerates",
    .limit = true,
    .tried = "lifted error tolerances",
    .add_rows = acc_add_rows,
    .prune = acc_prune,
    .rows_at = acc_rows_at,
    .loosen = acc_loosen,
    .relax = acc_relax,
    .describe = acc_describe,
    .diagnose = acc_diagnose,
    .requirement = acc_requirement,
};
