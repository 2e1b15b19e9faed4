/*
 * cons_divisibility.c: the degrees divide what they split.
 *
 * One selector per value of a degree (sel_dp_8 = 1 iff dp = 8), tied to the
 * shape variables, and one row per pair of values that cannot go together:
 *   div_batch_d8_m3     sel_dp_8 + sel_mb_3 <= 1   (dp mb must divide the batch)
 *   div_layers_p16_v4   sel_pp_16 + sel_v_4 <= 1   (pp v must divide the layers)
 * The shape set already excludes these pairs, so the rows never cut a plan;
 * they state the family in the model for readers and other solvers, and give
 * the report its rows.  Rules of three decisions (micro-batches a multiple of
 * pp when interleaving) are enforced by the shape set alone.
 */
#include "cons.h"
#include "mip.h"

#include <stdio.h>

typedef struct degree {
    const char *name;
    const pp_int_list *values;
    int first_col; /* selector of values[0]; the others follow */
} degree;

static int degree_of(const pp_plan *b, int k)
{
    const int v[] = {b->tp, b->pp, b->dp, b->micro_batch, b->virtual_stages};
    return v[k];
}

static int div_add_rows(pp_mip *m, pp_error *err)
{
    (void)err;
    const pp_space *s = m->space;
    degree deg[] = {{"tp", &s->tp, 0}, {"pp", &s->pp, 0}, {"dp", &s->dp, 0}, {"mb", &s->micro_batch, 0},
                    {"v", &s->virtual_stages, 0}};
    enum { TP, PP, DP, MB, V, N };
    for (int k = 0; k < N; k++) {
        for (int i = 0; i < deg[k].values->n; i++) {
            int v = deg[k].values->v[i];
            int col = pp_mip_add_col(m, true, 0, 1, 0.0, "sel_%s_%d", deg[k].name, v);
            if (i == 0)
                deg[k].first_col = col;
            int row = pp_mip_add_row(m, PP_ROW_EQ, 0.0, "sel_%s_%d_def", deg[k].name, v);
            pp_mip_coef(m, row, col, -1.0);
            for (int si = 0; si < s->n_shapes; si++)
                if (m->shape_col[si] && degree_of(&s->shapes[si].base, k) == v)
                    pp_mip_coef(m, row, m->shape_col[si], 1.0);
        }
    }
    long B = m->prob->training.global_batch;
    for (int i = 0; i < s->dp.n; i++)
        for (int j = 0; j < s->micro_batch.n; j++) {
            long d = s->dp.v[i], b = s->micro_batch.v[j];
            if (B % (d * b) == 0)
                continue;
            int row = pp_mip_add_row(m, PP_ROW_LE, 1.0, "div_batch_d%ld_m%ld", d, b);
            pp_mip_coef(m, row, deg[DP].first_col + i, 1.0);
            pp_mip_coef(m, row, deg[MB].first_col + j, 1.0);
        }
    int L = m->prob->model.layers;
    for (int i = 0; i < s->pp.n; i++)
        for (int j = 0; j < s->virtual_stages.n; j++) {
            int p = s->pp.v[i], v = s->virtual_stages.v[j];
            if (L % (p * v) == 0 && (v == 1 || p >= 2))
                continue;
            int row = pp_mip_add_row(m, PP_ROW_LE, 1.0, "div_layers_p%d_v%d", p, v);
            pp_mip_coef(m, row, deg[PP].first_col + i, 1.0);
            pp_mip_coef(m, row, deg[V].first_col + j, 1.0);
        }
    return PP_OK;
}

static int div_rows_at(const pp_problem *prob, const pp_plan *plan, const pp_eval *ev, pp_cons_row *out, int max)
{
    (void)ev;
    if (max < 2)
        return 0;
    long per = (long)plan->dp * plan->micro_batch, B = prob->training.global_batch;
    long chunks = (long)plan->pp * plan->virtual_stages, L = prob->model.layers;
    /* Whole multiples of the divisor: equal to the total iff it divides. */
    pp_cons_row_set(&out[0], "div_batch", (double)(per > 0 ? B / per * per : 0), (double)B, "sequences", true);
    pp_cons_row_set(&out[1], "div_layers", (double)(chunks > 0 ? L / chunks * chunks : 0), (double)L, "layers",
                    true);
    return 2;
}

const pp_cons_family pp_cons_divisibility = {
    .name = "divisibility",
    .explain = "the degrees divide what they split: dp x micro_batch the batch, pp x virtual_stages the layers",
    .add_rows = div_add_rows,
    .prune = NULL,
    .rows_at = div_rows_at,
};
