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
 */
#include "cons.h"
#include "mip.h"
#include "problem.h"

#include <stdio.h>

static bool too_lossy(const pp_problem *prob, int codec, pp_dim d)
{
    if (codec < 0 || codec >= prob->n_codecs)
        return false;
    const pp_codec *c = &prob->codecs[codec];
    return c->lossy && c->rel_error > prob->error_tolerance[d];
}

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
            if (too_lossy(m->prob, x->plan.codec[DIMS[k].dim], DIMS[k].dim))
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
            if (!too_lossy(prob, c, DIMS[k].dim))
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
        out[n].violated = too_lossy(prob, c, d); /* exactly the rule of rules.c */
        out[n].binding = out[n].binding && codec && codec->lossy;
        n++;
    }
    return n;
}

const pp_cons_family pp_cons_accuracy = {
    .name = "accuracy",
    .explain = "a lossy codec adds no more relative error to a dimension's traffic than that dimension "
               "tolerates",
    .add_rows = acc_add_rows,
    .prune = acc_prune,
    .rows_at = acc_rows_at,
};
