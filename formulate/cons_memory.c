/*
 * cons_memory.c: the most loaded GPU fits in memory.
 *
 * Two rows per shape, one per candidate for the most loaded GPU
 * (pp_memory_eval), written per shape so that the LP relaxation cannot pay
 * one shape's memory with another's:
 *   mem_stage0_S      sum D states_0 + sum A activations_0  <= (usable - other) y_S
 *   mem_stage_last_S  sum D states_L + sum A activations_L  <= (usable - other) y_S
 * with usable = capacity (1 - headroom): model states come with the ZeRO
 * choice (D), activations with recomputation and sequence parallelism (A).
 * A shape whose every remaining (A, D) pair fits needs no row.
 *
 * Pruning: a stage candidate A is dropped when no ZeRO candidate D of its
 * shape fits with it, and D when no A fits with it, summing in the order
 * pp_memory_eval does, so the pruning cuts exactly what the enumerator
 * rejects.  For large models this removes most of the MIP.
 */
#include "cons.h"
#include "mip.h"

static double usable_gib(const pp_problem *prob)
{
    return prob->cluster.gpu.memory_gib * (1.0 - prob->memory_headroom); /* as pp_memory_eval */
}

static bool pair_fits(const pp_problem *prob, const pp_mip_col *a, const pp_mip_col *d)
{
    double usable = usable_gib(prob), other = pp_mem_other_gib(prob);
    for (int s = 0; s < 2; s++)
        if (d->states_gib[s] + a->act_gib[s] + other > usable)
            return false;
    return true;
}

static bool mem_pair_fits(const pp_mip *m, const pp_mip_col *stage, const pp_mip_col *dp)
{
    return pair_fits(m->prob, stage, dp);
}

static void mem_prune(const pp_mip *m, pp_mip_cands *c)
{
    bool fits_a[PP_MIP_MAX_CANDS] = {false}, fits_d[PP_MIP_MAX_CANDS] = {false};
    for (int i = 0; i < c->n[PP_FAM_STAGE]; i++)
        for (int k = 0; k < c->n[PP_FAM_DP]; k++) {
            const pp_mip_col *a = &c->c[PP_FAM_STAGE][i], *d = &c->c[PP_FAM_DP][k];
            if (!a->dropped && !d->dropped && pair_fits(m->prob, a, d))
                fits_a[i] = fits_d[k] = true;
        }
    for (int i = 0; i < c->n[PP_FAM_STAGE]; i++)
        if (!fits_a[i])
            c->c[PP_FAM_STAGE][i].dropped = true;
    for (int k = 0; k < c->n[PP_FAM_DP]; k++)
        if (!fits_d[k])
            c->c[PP_FAM_DP][k].dropped = true;
}

/* Whether every stage candidate of a shape fits with every ZeRO candidate:
 * then no plan of the shape can break the memory rows. */
static bool all_pairs_fit(const pp_mip *m, int first, int end)
{
    for (int i = first; i < end; i++)
        for (int k = first; k < end && m->cols[i].kind == PP_COL_STAGE; k++)
            if (m->cols[k].kind == PP_COL_DP && !pair_fits(m->prob, &m->cols[i], &m->cols[k]))
                return false;
    return true;
}

static int mem_add_rows(pp_mip *m, pp_error *err)
{
    (void)err;
    double rhs = usable_gib(m->prob) - pp_mem_other_gib(m->prob);
    static const char *names[2] = {"mem_stage0", "mem_stage_last"};
    for (int si = 0; si < m->space->n_shapes; si++) {
        int y = m->shape_col[si], end = m->shape_col_end[si];
        if (!y || all_pairs_fit(m, y + 1, end))
            continue;
        char key[96];
        pp_mip_shape_key(m, si, key, sizeof key);
        for (int s = 0; s < 2; s++) {
            int row = pp_mip_add_row(m, PP_ROW_LE, 0.0, "%s_%s", names[s], key);
            pp_mip_coef(m, row, y, -rhs);
            for (int j = y + 1; j < end; j++) {
                const pp_mip_col *x = &m->cols[j];
                if (x->kind == PP_COL_STAGE)
                    pp_mip_coef(m, row, j, x->act_gib[s]);
                else if (x->kind == PP_COL_DP)
                    pp_mip_coef(m, row, j, x->states_gib[s]);
            }
        }
    }
    return PP_OK;
}

static double stage_total_gib(const pp_problem *prob, const pp_plan *plan, int stage)
{
    double w, g, o;
    pp_mem_states_gib(prob, plan, stage, &w, &g, &o);
    return w + g + o + pp_mem_activations_gib(prob, plan, stage) + pp_mem_other_gib(prob);
}

static int mem_rows_at(const pp_problem *prob, const pp_plan *plan, const pp_eval *ev, pp_cons_row *out, int max)
{
    (void)ev;
    if (max < 2)
        return 0;
    double usable = usable_gib(prob);
    pp_cons_row_set(&out[0], "mem_stage0", stage_total_gib(prob, plan, 0), usable, "GiB", false);
    pp_cons_row_set(&out[1], "mem_stage_last", stage_total_gib(prob, plan, plan->pp - 1), usable, "GiB", false);
    return 2;
}

const pp_cons_family pp_cons_memory = {
    .name = "memory",
    .explain = "the most loaded GPU (first or last pipeline stage) fits in its memory after the headroom",
    .add_rows = mem_add_rows,
    .prune = mem_prune,
    .pair_fits = mem_pair_fits,
    .rows_at = mem_rows_at,
};
