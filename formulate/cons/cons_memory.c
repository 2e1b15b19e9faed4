/*
 * cons_memory.c: the most loaded GPU fits in memory.
 *
 * One row per shape and candidate for the most loaded GPU (pp_memory_stages:
 * the first and the last stage, and the second when the layers split
 * unevenly), written per shape so that the LP relaxation cannot pay one
 * shape's memory with another's:
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
 *
 * Explaining: memory is priced by solving again with no memory limit; when
 * that is faster, with 16 GiB more per GPU and with the next larger GPU of
 * the catalog (the first that helps is the answer).  When nothing fits,
 * the plan of least memory in the space says by how much.
 */
#include "cons.h"
#include "decisions.h"
#include "mip.h"
#include "problem.h"
#include "space.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>

/* Whether stage candidate a and DP candidate d fit together on every stage
 * that may be the most loaded: the form's memory (pp_form_mem_gib sums in
 * the order pp_memory_eval does). */
static bool pair_fits(const pp_form_shape *sf, const pp_mip_col *a, const pp_mip_col *d)
{
    const pp_form_term *pick[PP_FORM_FAMILIES] = {NULL};
    pick[PP_FORM_STAGE] = &a->form;
    pick[PP_FORM_DP] = &d->form;
    for (int k = 0; k < sf->n_mem; k++)
        if (pp_form_mem_gib(sf, pick, k) > sf->mem_usable_gib)
            return false;
    return true;
}

static bool mem_pair_fits(const pp_mip *m, const pp_mip_col *stage, const pp_mip_col *dp)
{
    return pair_fits(&m->shape_form[stage->shape], stage, dp);
}

static void mem_prune(const pp_mip *m, pp_mip_cands *c)
{
    const pp_form_shape *sf = &m->shape_form[c->shape];
    bool fits_a[PP_MIP_MAX_CANDS] = {false}, fits_d[PP_MIP_MAX_CANDS] = {false};
    for (int i = 0; i < c->n[PP_FAM_STAGE]; i++)
        for (int k = 0; k < c->n[PP_FAM_DP]; k++) {
            const pp_mip_col *a = &c->c[PP_FAM_STAGE][i], *d = &c->c[PP_FAM_DP][k];
            if (!a->dropped && !d->dropped && pair_fits(sf, a, d))
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
static bool all_pairs_fit(const pp_mip *m, const pp_form_shape *sf, int first, int end)
{
    for (int i = first; i < end; i++)
        for (int k = first; k < end && m->cols[i].kind == PP_COL_STAGE; k++)
            if (m->cols[k].kind == PP_COL_DP && !pair_fits(sf, &m->cols[i], &m->cols[k]))
                return false;
    return true;
}

/* The rows read the form: each joint column's memory on the stage, against
 * what the shape leaves the families (the stage and DP terms carry memory,
 * the others 0, which pp_mip_coef skips). */
static int mem_add_rows(pp_mip *m, pp_error *err)
{
    (void)err;
    static const char *names[PP_MEM_STAGES] = {"mem_stage0", "mem_stage_last", "mem_stage1"};
    for (int si = 0; si < m->space->n_shapes; si++) {
        int y = m->shape_col[si], end = m->shape_col_end[si];
        const pp_form_shape *sf = &m->shape_form[si];
        if (!y || all_pairs_fit(m, sf, y + 1, end))
            continue;
        char key[96];
        pp_mip_shape_key(m, si, key, sizeof key);
        for (int s = 0; s < sf->n_mem; s++) {
            int row = pp_mip_add_row(m, PP_ROW_LE, 0.0, "%s_%s", names[s], key);
            pp_mip_coef(m, row, y, -sf->mem_limit_gib);
            for (int j = y + 1; j < end; j++)
                if (m->cols[j].kind <= PP_COL_DP)
                    pp_mip_coef(m, row, j, m->cols[j].form.mem_gib[s]);
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
    static const char *names[PP_MEM_STAGES] = {"mem_stage0", "mem_stage_last", "mem_stage1"};
    int stages[PP_MEM_STAGES], n = pp_memory_stages(prob, plan, stages);
    if (max < n)
        return 0;
    double usable = prob->cluster.gpu.memory_gib * (1.0 - prob->memory_headroom); /* as pp_memory_eval */
    for (int s = 0; s < n; s++)
        pp_cons_row_set(&out[s], names[s], stage_total_gib(prob, plan, stages[s]), usable, "GiB", false);
    return n;
}

/* ---- explaining ------------------------------------------------------------ */

#define MEMORY_STEP_GIB 16.0 /* the first counterfactual: this much more per GPU */

static void mem_relax(const pp_cons_view *v, pp_family_report *f)
{
    if (!v->counterfactuals)
        return;
    pp_counterfactual *drop = pp_cf_add(f, "memory=unlimited", "no memory limit at all");
    v->resolve(v->solver, v->prob, pp_cons_bit_of(&pp_cons_memory), drop);
    f->binds = pp_cf_faster(drop);
    if (!f->binds)
        return;
    pp_problem *changed = malloc(sizeof *changed);
    if (!changed)
        return;
    double cap_gib = v->prob->cluster.gpu.memory_gib;
    double sizes[2] = {cap_gib + MEMORY_STEP_GIB, 0.0};
    const char *next_name = NULL;
    const pp_catalog *cat = v->cat;
    for (int i = 0; cat && i < cat->n_gpus; i++) {
        double g = cat->gpus[i].memory_gib;
        if (g > sizes[0] + 0.5 && (sizes[1] == 0.0 || g < sizes[1])) {
            sizes[1] = g;
            next_name = cat->gpus[i].name;
        }
    }
    for (int k = 0; k < 2; k++) {
        if (sizes[k] <= 0.0)
            continue;
        char what[256], key[48];
        *changed = *v->prob;
        changed->cluster.gpu.memory_gib = sizes[k];
        snprintf(key, sizeof key, "memory_gib=%g", sizes[k]);
        snprintf(what, sizeof what, "%.0f GiB per GPU instead of %.0f%s%s", sizes[k], cap_gib,
                 k == 1 && next_name ? ", the size of the " : "", k == 1 && next_name ? next_name : "");
        pp_counterfactual *cf = pp_cf_add(f, key, what);
        if (!cf)
            break;
        v->resolve(v->solver, changed, 0, cf);
        if (pp_cf_faster(cf))
            break;
    }
    free(changed);
}

static void mem_describe(const pp_cons_view *v, const pp_family_report *f, char *buf, size_t cap)
{
    const pp_memory *m = &v->best->eval.mem;
    const pp_cons_row *t = f->tightest >= 0 ? &f->rows[f->tightest] : NULL;
    if (!v->counterfactuals) {
        pp_catf(buf, cap,
                "The most loaded GPU needs %.2f GiB of the %.2f GiB usable (slack %.2f GiB); no re-solve was run.",
                m->total_gib, m->usable_gib, t ? t->slack : m->usable_gib - m->total_gib);
        return;
    }
    if (!f->binds) {
        pp_catf(buf, cap,
                "Memory does not bind: the most loaded GPU (stage %d) needs %.2f GiB of the %.2f GiB usable "
                "(slack %.2f GiB), and even with unlimited memory the same plan would be the fastest.",
                m->stage, m->total_gib, m->usable_gib, m->usable_gib - m->total_gib);
        return;
    }
    pp_catf(buf, cap,
            "Memory binds: faster plans need more than the %.2f GiB usable per GPU (this plan leaves %.2f GiB).",
            m->usable_gib, m->usable_gib - m->total_gib);
    bool helped = false;
    for (int k = 1; k < f->n_cf && !helped; k++) {
        const pp_counterfactual *cf = &f->cf[k];
        if (pp_cf_faster(cf)) {
            helped = true;
            pp_catf(buf, cap, " With %s, ", cf->what);
            pp_cf_effect(v, cf, buf, cap);
            pp_catf(buf, cap, "; it would need %.2f GiB per GPU.", cf->best.eval.mem.total_gib);
        } else
            pp_catf(buf, cap, " %s would not change the plan.", cf->what);
    }
    if (!helped && f->n_cf > 0) {
        pp_catf(buf, cap, " Only with far more memory: ");
        pp_cf_effect(v, &f->cf[0], buf, cap);
        pp_catf(buf, cap, "; it would need %.2f GiB per GPU.", f->cf[0].best.eval.mem.total_gib);
    }
}

static const char *gpu_label(const pp_problem *prob)
{
    const pp_gpu *g = &prob->cluster.gpu;
    return g->name[0] ? g->name : g->id[0] ? g->id : "GPU";
}

static const char *recompute_phrase(pp_recompute r)
{
    switch (r) {
    case PP_RECOMPUTE_FULL: return "full recomputation";
    case PP_RECOMPUTE_SELECTIVE: return "selective recomputation";
    default: return "no recomputation";
    }
}

/* The plan of least peak memory in the space (codecs do not matter). */
static bool least_memory_plan(const pp_problem *prob, const pp_space *s, pp_plan *best, pp_memory *best_mem)
{
    bool found = false;
    for (int si = 0; si < s->n_shapes; si++) {
        const pp_shape *sh = &s->shapes[si];
        const pp_int_list *R = pp_space_options(s, sh, PP_OPT_RECOMPUTE);
        const pp_int_list *SP = pp_space_options(s, sh, PP_OPT_SEQUENCE_PARALLEL);
        const pp_int_list *Z = pp_space_options(s, sh, PP_OPT_ZERO);
        for (int i = 0; i < R->n; i++)
            for (int j = 0; j < SP->n; j++)
                for (int k = 0; k < Z->n; k++) {
                    pp_plan plan = sh->base;
                    pp_decision_set(&plan, PP_DEC_RECOMPUTE, R->v[i]);
                    pp_decision_set(&plan, PP_DEC_SEQUENCE_PARALLEL, SP->v[j]);
                    pp_decision_set(&plan, PP_DEC_ZERO, Z->v[k]);
                    pp_memory mem;
                    pp_memory_eval(prob, &plan, &mem);
                    if (!found || mem.total_gib < best_mem->total_gib) {
                        *best = plan;
                        *best_mem = mem;
                        found = true;
                    }
                }
    }
    return found;
}

static bool mem_diagnose(const pp_problem *prob, const pp_space *s, unsigned relax, char *buf, size_t cap)
{
    (void)relax;
    pp_plan plan;
    pp_memory mem;
    if (!least_memory_plan(prob, s, &plan, &mem) || mem.total_gib <= mem.usable_gib)
        return false;
    snprintf(buf, cap,
             "memory: even at tp=%d pp=%d dp=%d cp=%d micro_batch=%d, ZeRO-%d, %s%s, the most loaded GPU "
             "needs %.1f GiB; the %s offers %.1f GiB after the %.0f%% headroom",
             plan.tp, plan.pp, plan.dp, plan.cp, plan.micro_batch, plan.zero, recompute_phrase(plan.recompute),
             plan.sequence_parallel ? " and sequence parallelism" : "", mem.total_gib, gpu_label(prob),
             mem.usable_gib, 100.0 * prob->memory_headroom);
    return true;
}

static void mem_requirement(const pp_problem *prob, char *buf, size_t cap)
{
    snprintf(buf, cap, "fits in the %s's %.1f GiB after headroom", gpu_label(prob),
             prob->cluster.gpu.memory_gib * (1.0 - prob->memory_headroom));
}

const pp_cons_family pp_cons_memory = {
    .id = PP_CONS_MEMORY,
    .name = "memory",
    .explain = "the most loaded GPU (first or last pipeline stage) fits in its memory after the headroom",
    .limit = true,
    .tried = "more memory",
    .add_rows = mem_add_rows,
    .prune = mem_prune,
    .pair_fits = mem_pair_fits,
    .rows_at = mem_rows_at,
    .relax = mem_relax,
    .describe = mem_describe,
    .diagnose = mem_diagnose,
    .requirement = mem_requirement,
};
