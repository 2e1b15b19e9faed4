/*
 * cons_gpus.c: every GPU of the cluster works, tp pp dp cp = GPUs.
 *
 * The space only holds shapes whose degrees multiply to the GPU count, so the
 * row is redundant with sum_S y_S = 1; it is there to name the family in the
 * model and the report.
 */
#include "cons.h"
#include "mip.h"
#include "rules.h"

static int gpus_add_rows(pp_mip *m, pp_error *err)
{
    (void)err;
    int row = pp_mip_add_row(m, PP_ROW_EQ, (double)pp_cluster_gpus(m->prob), "gpu_count");
    for (int i = 0; i < m->space->n_shapes; i++) {
        const pp_plan *b = &m->space->shapes[i].base;
        if (m->shape_col[i])
            pp_mip_coef(m, row, m->shape_col[i], (double)b->tp * b->pp * b->dp * b->cp);
    }
    return PP_OK;
}

static int gpus_rows_at(const pp_problem *prob, const pp_plan *plan, const pp_eval *ev, pp_cons_row *out, int max)
{
    (void)ev;
    if (max < 1)
        return 0;
    double used = (double)plan->tp * plan->pp * plan->dp * plan->cp;
    pp_cons_row_set(&out[0], "gpu_count", used, (double)pp_cluster_gpus(prob), "GPUs", true);
    return 1;
}

const pp_cons_family pp_cons_gpus = {
    .name = "gpus",
    .explain = "every GPU of the cluster is used: tp x pp x dp x cp equals the GPU count",
    .add_rows = gpus_add_rows,
    .prune = NULL,
    .rows_at = gpus_rows_at,
};
