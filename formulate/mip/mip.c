/*
 * mip.c: building the MIP of mip.h with GLPK.
 *
 * The build walks the shapes twice.  For each shape it takes the form of
 * the step (costmodel.h: pp_form_shape_of, and pp_form_term_of for every
 * joint candidate, pp_mip_cands), lets the constraint families prune
 * candidates they prove infeasible, and restores consistency (a recompute
 * choice needs both a stage and a TP candidate).  The first pass only
 * bounds each shape's step time from below and above (screening, and the
 * choice of the time unit); the second turns the candidates of the shapes
 * kept into columns and the shape's rows.
 *
 * Every number of the MIP is the form's: a column's objective coefficient
 * is its obj_s, an epigraph row's its exposed_s of the pair, an epigraph
 * column costs the shape's pair_weight, a link row's its link_s, a memory
 * row's (cons_memory.c) its mem_gib.  This file writes no cost formula,
 * weight or order of its own: it converts seconds to the MIP's unit, and
 * leaves out a row no plan of the shape can make binding.  Each term is
 * computed once per candidate, kept in pp_mip_col and in the price cache
 * (mip_cache.h), which the explanation's re-solves of the same prices share;
 * screening (screen) prices a shape's TP, PP and DP terms only while the
 * shape could still hold one of the best plans.
 *
 * The matrix is collected as triplets and loaded in one glp_load_matrix call.
 */
#include "mip.h"
#include "mip_cache.h"

#include "decisions.h"
#include "error.h"
#include "problem.h"
#include "rules.h"

#include <glpk.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *codec_name(const pp_problem *prob, int c, char *buf, size_t len)
{
    pp_mip_safe_id(c >= 0 && c < prob->n_codecs ? prob->codecs[c].id : "unknown", buf, len);
    return buf;
}

/* Whether a shape's PP candidates differ by sequence parallelism: with a
 * pipeline, TP and both sp choices open. */
static bool pp_sp_linked(const pp_space *s, const pp_shape *sh)
{
    return sh->base.pp > 1 && sh->base.tp > 1 && pp_space_options(s, sh, PP_OPT_SEQUENCE_PARALLEL)->n > 1;
}

/* A plan of the shape already in *plan from one candidate of each family:
 * every option decision comes from the family of the step's form that
 * carries it (its row's term, decisions.c). */
static void assemble(pp_plan *plan, const pp_plan *const of[PP_FORM_FAMILIES])
{
    for (int id = 0; id < PP_DEC_COUNT; id++) {
        const pp_decision *d = &pp_decisions[id];
        if (d->role == PP_ROLE_OPTION)
            pp_decision_set(plan, d->id, pp_decision_get(of[d->term], d->id));
    }
}

static int sp_link(const pp_plan *p)
{
    return p->sequence_parallel ? 1 : 0;
}

static void col_name(const pp_mip *m, const pp_mip_col *c, const char *key, char *buf, size_t len)
{
    char codec[PP_ID_LEN];
    const pp_problem *prob = m->prob;
    const pp_plan *p = &c->plan;
    switch (c->kind) {
    case PP_COL_STAGE:
    {
        int n = snprintf(buf, len, "A_%s_%s_sp%d", key, pp_recompute_name(p->recompute), p->sequence_parallel ? 1 : 0);
        /* the stage family's other options where not at their default: the
         * row's short label and the value's index (recompute modules as
         * their PP_RCM_* bits) */
        for (int i = 0; i < PP_DEC_COUNT && n >= 0 && (size_t)n < len; i++) {
            const pp_decision *d = &pp_decisions[i];
            if (d->role != PP_ROLE_OPTION || d->term != PP_FORM_STAGE || d->id == PP_DEC_RECOMPUTE ||
                d->id == PP_DEC_SEQUENCE_PARALLEL)
                continue;
            int v = pp_decision_get(p, d->id);
            if (v != d->def)
                n += snprintf(buf + n, len - (size_t)n, "_%s%d", d->short_label, v);
        }
        break;
    }
    case PP_COL_TP:
        snprintf(buf, len, "T_%s_%s_sp%d_%s%s", key, pp_recompute_name(p->recompute), p->sequence_parallel ? 1 : 0,
                 codec_name(prob, p->codec[PP_DIM_TP], codec, sizeof codec), p->tp_comm_overlap ? "_overlap" : "");
        break;
    case PP_COL_PP:
        if (c->shape >= 0 && pp_sp_linked(m->space, &m->space->shapes[c->shape]))
            snprintf(buf, len, "P_%s_sp%d_%s", key, sp_link(p), codec_name(prob, p->codec[PP_DIM_PP], codec, sizeof codec));
        else
            snprintf(buf, len, "P_%s_%s", key, codec_name(prob, p->codec[PP_DIM_PP], codec, sizeof codec));
        break;
    case PP_COL_DP: {
        int n = snprintf(buf, len, "D_%s_z%d_%s", key, p->zero,
                         codec_name(prob, p->codec[PP_DIM_DP], codec, sizeof codec));
        if (p->codec[PP_DIM_PARAMS] != 0 && n >= 0 && (size_t)n < len)
            snprintf(buf + n, len - (size_t)n, "_par_%s",
                     codec_name(prob, p->codec[PP_DIM_PARAMS], codec, sizeof codec));
        break;
    }
    default:
        snprintf(buf, len, "y_%s", key);
        break;
    }
}

/* ---- candidates of one shape -------------------------------------------- */

/* A new candidate of family f (the space's options are deduplicated and in
 * range, so a family never holds more than PP_MIP_MAX_CANDS). */
static pp_mip_col *new_cand(pp_mip_cands *c, pp_family f, const pp_plan *plan, int shape)
{
    if (c->n[f] >= PP_MIP_MAX_CANDS)
        return NULL;
    pp_mip_col *col = &c->c[f][c->n[f]++];
    /* not the term: cands_checked prices it (a candidate is listed for
     * every shape of every screen, so the bytes it does not write count) */
    col->kind = (pp_col_kind)f;
    col->shape = shape;
    col->plan = *plan;
    col->dropped = col->banned = false;
    col->epigraph = 0;
    return col;
}

/* A candidate's term: from the build's price cache when it has one; only
 * its memory, computed (not kept), for a family screening does not price
 * yet (price_fams). */
static void price_term(const pp_mip *m, const pp_plan *plan, const pp_form_shape *sf, pp_form_family fam,
                       pp_form_term *out)
{
    if (!(m->price_fams & (1u << fam)))
        pp_form_term_mem_of(m->prob, plan, sf, fam, out);
    else if (m->prices)
        pp_price_cache_term(m->prices, m->prob, plan, sf, fam, out);
    else
        pp_form_term_of(m->prob, plan, sf, fam, out);
}

/* Whether family f's candidates of shape sh take every option of decision
 * d that they carry, or only its first: a TP candidate prices each
 * (recompute, sp) of its stage, a PP candidate each sp only where a
 * pipeline send depends on it (pp_sp_linked; otherwise the first still
 * fixes what the stage holds).  The link rows of add_shape follow. */
static bool family_varies(const pp_space *s, const pp_shape *sh, pp_family f, const pp_decision *d)
{
    return d->term == (pp_form_family)f || f != PP_FAM_PP || pp_sp_linked(s, sh);
}

/* How list_cands lists: every candidate; only those at each decision's
 * thrifty value where it is an option; or the least plans (each decision
 * with a least value at it, option or not, and no rule between options
 * checked: a superset of the candidates' least plans, pp_plan_least). */
typedef enum { LIST_ALL, LIST_THRIFTY, LIST_LEAST } list_mode;

/* The candidates of the families fams (bits 1 << pp_family) of shape si,
 * unpriced, as `mode` says: the cross product
 * of the option rows the family carries (its own, decisions.def's
 * OPTION(k, f), and those .carried to it), nested by the rows' `nest` (the
 * first outermost: the columns' order, and so GLPK's), each combination the
 * rules between options allow (pp_space_options_fit). */
static void list_cands(const pp_mip *m, int si, unsigned fams, list_mode mode, pp_mip_cands *c)
{
    const pp_space *s = m->space;
    const pp_shape *sh = &s->shapes[si];
    const pp_decision *by_nest[PP_DEC_COUNT] = {NULL};
    for (int i = 0; i < PP_DEC_COUNT; i++)
        if (pp_decisions[i].role == PP_ROLE_OPTION && pp_decisions[i].nest >= 0 && pp_decisions[i].nest < PP_DEC_COUNT)
            by_nest[pp_decisions[i].nest] = &pp_decisions[i];

    for (int f = 0; f < PP_FAM_COUNT; f++)
        if (fams & (1u << f))
            c->n[f] = 0;
    c->shape = si;
    for (int f = 0; f < PP_FAM_COUNT; f++) {
        if (!(fams & (1u << f)))
            continue;
        pp_decision_id ids[PP_DEC_COUNT];
        const int *vals[PP_DEC_COUNT];
        int n_vals[PP_DEC_COUNT], at[PP_DEC_COUNT], n = 0;
        bool none = false;
        for (int k = 0; k < PP_DEC_COUNT; k++) {
            const pp_decision *d = by_nest[k];
            if (!d || !(d->term == (pp_form_family)f || (d->carried & (1u << f))))
                continue;
            const pp_int_list *l = pp_space_options(s, sh, (pp_option_kind)d->order);
            bool all = family_varies(s, sh, (pp_family)f, d);
            if (!all && l->n == 0)
                continue; /* nothing to fix: the candidate keeps the shape's value */
            none |= l->n == 0;
            ids[n] = d->id;
            vals[n] = l->v;
            n_vals[n] = all ? l->n : 1;
            for (int i = 0; mode == LIST_THRIFTY && d->has_thrifty && all && i < l->n; i++)
                if (l->v[i] == d->thrifty) { /* only the thrifty value, where it is an option */
                    vals[n] = &d->thrifty;
                    n_vals[n] = 1;
                }
            if (mode == LIST_LEAST && d->has_least) {
                vals[n] = &d->least;
                n_vals[n] = 1;
            }
            at[n++] = 0;
        }
        if (none)
            continue;
        /* the decisions of one value set once; the odometer turns the rest */
        pp_plan fixed = sh->base;
        int turning = 0;
        for (int k = 0; k < n; k++) {
            if (n_vals[k] == 1) {
                pp_decision_set(&fixed, ids[k], vals[k][0]);
                continue;
            }
            ids[turning] = ids[k];
            vals[turning] = vals[k];
            n_vals[turning] = n_vals[k];
            at[turning++] = 0;
        }
        n = turning;
        for (bool more = true; more;) {
            pp_plan plan = fixed;
            for (int k = 0; k < n; k++)
                pp_decision_set(&plan, ids[k], vals[k][at[k]]);
            if (mode == LIST_LEAST || pp_space_options_fit(&plan))
                new_cand(c, (pp_family)f, &plan, si);
            more = false;
            for (int k = n - 1; k >= 0 && !more; k--) { /* the last turns fastest */
                more = ++at[k] < n_vals[k];
                if (!more)
                    at[k] = 0;
            }
        }
    }
}

/* A NaN or infinite term would silently corrupt the MIP (and max(0, NaN)
 * is 0 in the evaluator): refuse it. */
static const pp_mip_col *nonfinite_cand(const pp_mip_cands *c)
{
    for (int f = 0; f < PP_FAM_COUNT; f++)
        for (int i = 0; i < c->n[f]; i++)
            if (!pp_form_term_finite(&c->c[f][i].form))
                return &c->c[f][i];
    return NULL;
}

/* The choices a stage and a TP candidate must agree on (recompute, and
 * sequence parallelism that TP overlap needs), as one index. */
#define PP_TP_LINKS (2 * PP_RECOMPUTE_COUNT)
static int tp_link(const pp_plan *p)
{
    return 2 * (int)p->recompute + (p->sequence_parallel ? 1 : 0);
}

/* Drops the candidates of family f with no live partner in family `other`
 * under `link`; returns whether it dropped any. */
static bool drop_unpartnered(pp_mip_cands *c, pp_family f, pp_family other, int (*link)(const pp_plan *))
{
    bool dropped = false;
    for (int i = 0; i < c->n[f]; i++) {
        pp_mip_col *x = &c->c[f][i];
        bool partner = false;
        for (int j = 0; j < c->n[other] && !partner && !x->dropped; j++)
            partner = !c->c[other][j].dropped && link(&c->c[other][j].plan) == link(&x->plan);
        if (!partner && !x->dropped)
            dropped = x->dropped = true;
    }
    return dropped;
}

/* A (recompute, sp) choice survives only with both a stage and a TP
 * candidate, and, where PP candidates carry sp (by_sp), an sp choice only
 * with both a stage and a PP candidate; a shape survives only with a
 * candidate in every family. */
static bool cands_consistent(pp_mip_cands *c, bool by_sp)
{
    bool changed = true;
    while (changed) {
        changed = drop_unpartnered(c, PP_FAM_STAGE, PP_FAM_TP, tp_link);
        changed |= drop_unpartnered(c, PP_FAM_TP, PP_FAM_STAGE, tp_link);
        if (by_sp) {
            changed |= drop_unpartnered(c, PP_FAM_STAGE, PP_FAM_PP, sp_link);
            changed |= drop_unpartnered(c, PP_FAM_PP, PP_FAM_STAGE, sp_link);
        }
    }
    for (int f = 0; f < PP_FAM_COUNT; f++) {
        bool any = false;
        for (int i = 0; i < c->n[f] && !any; i++)
            any = !c->c[f][i].dropped;
        if (!any)
            return false;
    }
    return true;
}

/* ---- the build ---------------------------------------------------------- */

/* The coefficient of column x in the exposed seconds u = wire - window of
 * an epigraph (PP_EPI_*), in the MIP's time units: the form's exposed_s of
 * a joint column (the DP wire, minus a stage's window), 0 for the others.
 * The epigraph column e of a shape satisfies e >= u, e >= 0. */
static double exposed_coef(const pp_mip *m, int epigraph, const pp_mip_col *x)
{
    return x->kind <= PP_COL_DP ? x->form.exposed_s[epigraph - 1] * m->units_per_s : 0.0;
}

/* The DP overlap epigraphs of one shape (mip.h), one per pair of the form:
 *   e_once   - sum D once_wire       + sum A once_window       >= 0
 *   e_per_mb - sum D m per_mb_wire   + sum A m per_mb_window   >= 0
 *   e_gather - sum D gather_once_wire + sum A gather_window    >= 0
 * An epigraph is left out when no DP choice can outlast the shortest
 * window: then its max(0, .) is 0 for every plan of the shape. */
static void add_epigraphs(pp_mip *m, int si, const char *key, int first_col)
{
    static const struct {
        int which;
        const char *name;
    } E[3] = {{PP_EPI_ONCE, "dp_once_exposed"},
              {PP_EPI_PER_MB, "dp_per_mb_exposed"},
              {PP_EPI_GATHER, "dp_gather_exposed"}};
    int end = m->n_cols + 1;
    for (int k = 0; k < 3; k++) {
        double most_wire = -HUGE_VAL, least_window = -HUGE_VAL; /* in u's sign: max over -window */
        for (int j = first_col; j < end; j++) {
            double u = exposed_coef(m, E[k].which, &m->cols[j]);
            if (m->cols[j].kind == PP_COL_DP)
                most_wire = fmax(most_wire, u);
            else if (m->cols[j].kind == PP_COL_STAGE)
                least_window = fmax(least_window, u);
        }
        if (!(most_wire + least_window > 0.0))
            continue;
        int row = pp_mip_add_row(m, PP_ROW_GE, 0.0, "%s_%s", E[k].name, key);
        pp_mip_col desc;
        memset(&desc, 0, sizeof desc);
        desc.kind = PP_COL_AUX;
        desc.shape = si;
        desc.epigraph = E[k].which;
        char name[160];
        snprintf(name, sizeof name, "%s_%s_%s", E[k].name, m->unit, key);
        int col = pp_mip_add_desc_col(m, &desc, false, 0.0, -1.0, m->shape_form[si].pair_weight, name);
        pp_mip_coef(m, row, col, 1.0);
        for (int j = first_col; j < end; j++)
            pp_mip_coef(m, row, j, -exposed_coef(m, E[k].which, &m->cols[j]));
    }
}

/* The link bound of one shape (pp_link_wait_s): one column w >= 0 of cost 1
 * and, per link, the row
 *   link_nvlink_S   w - sum_j bytes_j / rate + sum_j cost_j >= 0
 * over the shape's columns (cost_j its objective coefficient, the epigraph
 * columns included), so that at any integer point w is at least the
 * busiest link's time beyond the rest of the step.  A link's row is left
 * out when its most bytes cannot outlast the shape's least step. */
static void add_link_bound(pp_mip *m, int si, const char *key, int first_col)
{
    static const char *names[PP_FORM_LINKS] = {"link_nvlink", "link_network"};
    const pp_form_shape *sf = &m->shape_form[si];
    int end = m->n_cols + 1, col = 0;
    for (int link = 0; link < PP_FORM_LINKS; link++) {
        if (!(sf->link_Bps[link] > 0.0))
            continue;
        double least_s[PP_FAM_COUNT], most_busy_s[PP_FAM_COUNT];
        for (int f = 0; f < PP_FAM_COUNT; f++) {
            least_s[f] = HUGE_VAL;
            most_busy_s[f] = 0.0;
        }
        for (int j = first_col; j < end; j++) {
            const pp_mip_col *x = &m->cols[j];
            if (x->kind > PP_COL_DP)
                continue;
            least_s[x->kind] = fmin(least_s[x->kind], x->form.obj_s);
            most_busy_s[x->kind] = fmax(most_busy_s[x->kind], x->form.link_s[link]);
        }
        double step_s = 0.0, busy_s = 0.0;
        for (int f = 0; f < PP_FAM_COUNT; f++) {
            step_s += least_s[f];
            busy_s += most_busy_s[f];
        }
        if (!(busy_s > step_s * (1.0 - 1e-9)))
            continue;
        if (!col) {
            pp_mip_col desc;
            memset(&desc, 0, sizeof desc);
            desc.kind = PP_COL_AUX;
            desc.shape = si;
            char name[160];
            snprintf(name, sizeof name, "link_wait_%s_%s", m->unit, key);
            col = pp_mip_add_desc_col(m, &desc, false, 0.0, -1.0, 1.0, name);
        }
        int row = pp_mip_add_row(m, PP_ROW_GE, 0.0, "%s_%s", names[link], key);
        pp_mip_coef(m, row, col, 1.0);
        for (int j = first_col; j < end; j++) {
            double v = glp_get_obj_coef(m->lp, j) - m->cols[j].form.link_s[link] * m->units_per_s;
            pp_mip_coef(m, row, j, v);
        }
    }
}

static void add_shape(pp_mip *m, int si, pp_mip_cands *c, int one_shape)
{
    const pp_shape *sh = &m->space->shapes[si];
    char key[96], name[256];
    pp_mip_shape_key(m, si, key, sizeof key);

    pp_mip_col ydesc;
    memset(&ydesc, 0, sizeof ydesc);
    ydesc.kind = PP_COL_SHAPE;
    ydesc.shape = si;
    ydesc.plan = sh->base;
    col_name(m, &ydesc, key, name, sizeof name);
    int y = pp_mip_add_desc_col(m, &ydesc, true, 0, 1, 0.0, name);
    if (!y)
        return;
    m->shape_col[si] = y;
    m->n_live_shapes++;
    pp_mip_coef(m, one_shape, y, 1.0);

    int pick[PP_FAM_COUNT] = {0};
    pick[PP_FAM_STAGE] = pp_mip_add_row(m, PP_ROW_EQ, 0.0, "pick_stage_%s", key);
    pick[PP_FAM_PP] = pp_mip_add_row(m, PP_ROW_EQ, 0.0, "pick_pp_%s", key);
    pick[PP_FAM_DP] = pp_mip_add_row(m, PP_ROW_EQ, 0.0, "pick_dp_%s", key);
    int link[PP_TP_LINKS] = {0};
    const pp_int_list *R = pp_space_options(m->space, sh, PP_OPT_RECOMPUTE);
    const pp_int_list *SP = pp_space_options(m->space, sh, PP_OPT_SEQUENCE_PARALLEL);
    for (int i = 0; i < R->n; i++)
        for (int j = 0; j < SP->n; j++) {
            int r = R->v[i];
            if (r >= 0 && r < PP_RECOMPUTE_COUNT)
                link[2 * r + (SP->v[j] ? 1 : 0)] = pp_mip_add_row(m, PP_ROW_EQ, 0.0, "link_tp_%s_%s_sp%d", key,
                                                                 pp_recompute_name((pp_recompute)r), SP->v[j] ? 1 : 0);
        }
    int sp_row[2] = {0};
    bool by_sp = pp_sp_linked(m->space, sh);
    for (int j = 0; by_sp && j < SP->n; j++)
        sp_row[SP->v[j] ? 1 : 0] = pp_mip_add_row(m, PP_ROW_EQ, 0.0, "link_pp_%s_sp%d", key, SP->v[j] ? 1 : 0);
    for (int f = PP_FAM_STAGE; f < PP_FAM_COUNT; f++)
        if (pick[f])
            pp_mip_coef(m, pick[f], y, -1.0);

    for (int f = 0; f < PP_FAM_COUNT; f++)
        for (int i = 0; i < c->n[f]; i++) {
            pp_mip_col *x = &c->c[f][i];
            if (x->dropped)
                continue;
            col_name(m, x, key, name, sizeof name);
            int j = pp_mip_add_desc_col(m, x, true, 0, 1, x->form.obj_s * m->units_per_s, name);
            if (!j)
                return;
            int r = tp_link(&x->plan);
            if (f == PP_FAM_TP)
                pp_mip_coef(m, link[r], j, -1.0);
            else
                pp_mip_coef(m, pick[f], j, 1.0);
            if (f == PP_FAM_STAGE)
                pp_mip_coef(m, link[r], j, 1.0);
            if (by_sp && (f == PP_FAM_STAGE || f == PP_FAM_PP))
                pp_mip_coef(m, sp_row[sp_link(&x->plan)], j, f == PP_FAM_STAGE ? 1.0 : -1.0);
        }
    add_epigraphs(m, si, key, y + 1);
    add_link_bound(m, si, key, y + 1);
    m->shape_col_end[si] = m->n_cols + 1;
}

static bool family_on(const pp_mip *m, int i)
{
    return !(m->relax & (1u << i));
}

/* ---- screening ---------------------------------------------------------- */

static bool pair_allowed(const pp_mip *m, const pp_mip_col *a, const pp_mip_col *d)
{
    for (int i = 0; i < pp_cons_n_families; i++)
        if (family_on(m, i) && pp_cons_families[i]->pair_fits && !pp_cons_families[i]->pair_fits(m, a, d))
            return false;
    return true;
}

static bool usable(const pp_mip_col *x)
{
    return !x->dropped && !x->banned;
}

/* One (stage, DP) pair of a shape, completed with the cheapest TP choice of
 * the same recompute and the cheapest PP choice, and its step time with the
 * bandwidth rows relaxed (they couple every family). */
typedef struct pair_value {
    double step_s;
    const pp_mip_col *a, *t, *p, *d;
} pair_value;

static int cmp_pair(const void *x, const void *y)
{
    double a = ((const pair_value *)x)->step_s, b = ((const pair_value *)y)->step_s;
    return (a > b) - (a < b);
}

/* Every pair the families allow, sorted by step time if `sort`, else with
 * the least first; returns the count.  The first is the least step time of
 * any plan of the shape without the bandwidth rows: a lower bound on its
 * plans. */
static int shape_pairs(const pp_mip *m, const pp_mip_cands *c, pair_value *out, bool sort)
{
    const pp_mip_col *tbest[PP_TP_LINKS] = {NULL}, *pbest[2] = {NULL, NULL};
    bool by_sp = pp_sp_linked(m->space, &m->space->shapes[c->shape]);
    for (int i = 0; i < c->n[PP_FAM_TP]; i++) {
        const pp_mip_col *t = &c->c[PP_FAM_TP][i];
        int r = tp_link(&t->plan);
        if (usable(t) && (!tbest[r] || t->form.obj_s < tbest[r]->form.obj_s))
            tbest[r] = t;
    }
    for (int i = 0; i < c->n[PP_FAM_PP]; i++) {
        const pp_mip_col *p = &c->c[PP_FAM_PP][i];
        int r = by_sp ? sp_link(&p->plan) : 0;
        if (usable(p) && (!pbest[r] || p->form.obj_s < pbest[r]->form.obj_s))
            pbest[r] = p;
    }
    int n = 0;
    for (int i = 0; i < c->n[PP_FAM_STAGE]; i++) {
        const pp_mip_col *a = &c->c[PP_FAM_STAGE][i];
        const pp_mip_col *t = tbest[tp_link(&a->plan)], *pb = pbest[by_sp ? sp_link(&a->plan) : 0];
        if (!usable(a) || !t || !pb)
            continue;
        for (int k = 0; k < c->n[PP_FAM_DP]; k++) {
            const pp_mip_col *d = &c->c[PP_FAM_DP][k];
            if (!usable(d) || !pair_allowed(m, a, d))
                continue;
            const pp_form_term *pick[PP_FAM_COUNT] = {&a->form, &t->form, &pb->form, &d->form};
            double v = pp_form_bound_s(&m->shape_form[c->shape], pick);
            out[n++] = (pair_value){.step_s = v, .a = a, .t = t, .p = pb, .d = d};
        }
    }
    if (sort) {
        qsort(out, (size_t)n, sizeof *out, cmp_pair);
    } else {
        int best = 0;
        for (int i = 1; i < n; i++)
            if (out[i].step_s < out[best].step_s)
                best = i;
        if (best) {
            pair_value t = out[0];
            out[0] = out[best];
            out[best] = t;
        }
    }
    return n;
}

static void pair_plan(const pp_mip *m, const pair_value *v, pp_plan *plan)
{
    *plan = m->space->shapes[v->a->shape].base;
    const pp_plan *of[PP_FORM_FAMILIES] = {&v->a->plan, &v->t->plan, &v->p->plan, &v->d->plan};
    assemble(plan, of);
}

/* Price, prune and make consistent the candidates of shape si. */
/* Price the candidates listed in c (shape si), prune them by the
 * constraint families and drop the unpartnered: false if a family is left
 * without one. */
static bool cands_checked(pp_mip *m, int si, pp_mip_cands *c, unsigned priced)
{
    const pp_form_shape *sf = &m->shape_form[si];
    for (int f = 0; f < PP_FAM_COUNT; f++)
        for (int i = 0; i < c->n[f] && !(priced & (1u << f)); i++)
            price_term(m, &c->c[f][i].plan, sf, (pp_form_family)f, &c->c[f][i].form);
    const pp_mip_col *bad = nonfinite_cand(c);
    if (bad && !m->nonfinite) {
        m->nonfinite = true;
        char key[96];
        pp_mip_shape_key(m, si, key, sizeof key);
        col_name(m, bad, key, m->nonfinite_col, sizeof m->nonfinite_col);
    }
    for (int i = 0; i < pp_cons_n_families; i++)
        if (family_on(m, i) && pp_cons_families[i]->prune)
            pp_cons_families[i]->prune(m, c);
    return cands_consistent(c, pp_sp_linked(m->space, &m->space->shapes[si]));
}

static bool shape_cands(pp_mip *m, int si, pp_mip_cands *c)
{
    pp_form_shape_of(m->prob, &m->space->shapes[si].base, &m->shape_form[si]);
    list_cands(m, si, ~0u, LIST_ALL, c);
    return cands_checked(m, si, c, 0);
}

/* Whether the candidates listed in c make a pair. */
static bool cands_pair(pp_mip *m, int si, pp_mip_cands *c, pair_value *pairs)
{
    return cands_checked(m, si, c, 0) && shape_pairs(m, c, pairs, false) > 0;
}

/* Insert v into the `need` least values so far (least[0..*n), ascending). */
static void keep_least(double *least, int *n, int need, double v)
{
    int i;
    if (*n < need)
        i = (*n)++;
    else if (v < least[need - 1])
        i = need - 1;
    else
        return;
    for (; i > 0 && v < least[i - 1]; i--)
        least[i] = least[i - 1];
    least[i] = v;
}

/* A lower bound on every plan of shape si from its stage term alone, +inf
 * if the shape has no stage candidate: the least stage term of its stage
 * candidates' least plans (pp_plan_least: no recomputation, no fp8 store),
 * whose terms are at most the candidates'; a plan's other terms and exposed
 * seconds are never negative.  The least plans are listed as such
 * (LIST_LEAST: a few where a MoE shape has hundreds of stage candidates), a
 * superset of theirs, which can only lower the bound.  It reads no memory:
 * a shape whose every choice overflows it gets a bound too, which screen()
 * tells apart. */
static double stage_bound(pp_mip *m, int si, pp_mip_cands *c)
{
    pp_form_shape time;
    pp_form_shape_time_of(m->prob, &m->space->shapes[si].base, &time);
    list_cands(m, si, 1u << PP_FAM_STAGE, LIST_LEAST, c);
    double lb = HUGE_VAL;
    for (int i = 0; i < c->n[PP_FAM_STAGE]; i++) {
        pp_form_term t; /* its time alone, kept by no cache: most such shapes are screened */
        if (m->prices)
            pp_price_cache_term_once(m->prices, m->prob, &c->c[PP_FAM_STAGE][i].plan, &time, PP_FORM_STAGE, &t);
        else
            pp_form_term_of(m->prob, &c->c[PP_FAM_STAGE][i].plan, &time, PP_FORM_STAGE, &t);
        lb = fmin(lb, t.obj_s);
    }
    return lb;
}

/* Shape si's stage and DP candidates listed and priced into c (its form
 * in shape_form), and the least obj_s of a stage and a DP candidate that
 * the families let pair (pair_allowed: memory): a lower bound on its plans,
 * whose TP and PP terms and exposed seconds are never negative; +inf if no
 * pair, NaN if a term is not finite (shape_cands then says which). */
static double stage_dp_bound(pp_mip *m, int si, pp_mip_cands *c)
{
    const unsigned fams = 1u << PP_FAM_STAGE | 1u << PP_FAM_DP;
    pp_form_shape_of(m->prob, &m->space->shapes[si].base, &m->shape_form[si]);
    list_cands(m, si, fams, LIST_ALL, c);
    for (int f = 0; f < PP_FAM_COUNT; f++)
        for (int i = 0; (fams & (1u << f)) && i < c->n[f]; i++) {
            pp_mip_col *x = &c->c[f][i];
            price_term(m, &x->plan, &m->shape_form[si], (pp_form_family)f, &x->form);
            if (!pp_form_term_finite(&x->form))
                return NAN;
        }
    double lb = HUGE_VAL;
    for (int i = 0; i < c->n[PP_FAM_STAGE]; i++)
        for (int k = 0; k < c->n[PP_FAM_DP]; k++) {
            const pp_mip_col *a = &c->c[PP_FAM_STAGE][i], *d = &c->c[PP_FAM_DP][k];
            if (a->form.obj_s + d->form.obj_s < lb && pair_allowed(m, a, d))
                lb = a->form.obj_s + d->form.obj_s;
        }
    return lb;
}

/* Whether shape si has a plan that fits memory (and the other families'
 * pruning), as shape_cands and shape_pairs would find with every candidate
 * priced: its candidates priced for memory alone, first only those at the
 * `thrifty` values (full recomputation, the fp8 store) where they are
 * options.  A pair among fewer candidates is a pair among all (pruning drops
 * a candidate only for want of a partner), so the whole set is tried only
 * when the thrifty ones have none. */
static bool shape_has_pair(pp_mip *m, int si, pp_mip_cands *c, pair_value *pairs)
{
    unsigned fams = m->price_fams;
    m->price_fams = 0;
    pp_form_shape_of(m->prob, &m->space->shapes[si].base, &m->shape_form[si]); /* with what a GPU holds */
    list_cands(m, si, ~0u, LIST_THRIFTY, c);
    bool any = cands_pair(m, si, c, pairs);
    if (!any) {
        list_cands(m, si, ~0u, LIST_ALL, c);
        any = cands_pair(m, si, c, pairs);
    }
    m->price_fams = fams;
    return any;
}

typedef struct shape_order {
    double bound_s;
    int shape;
} shape_order;

static int cmp_shape_order(const void *x, const void *y)
{
    const shape_order *a = x, *b = y;
    if (a->bound_s != b->bound_s)
        return (a->bound_s > b->bound_s) - (a->bound_s < b->bound_s);
    return a->shape - b->shape;
}

/* A pair of a shape priced in full, completed as a plan (pair_plan), and
 * its lower bound; a heap of them, least bound first. */
typedef struct screen_plan {
    double bound_s;
    int shape, rank;
    pp_plan plan;
} screen_plan;

static bool plan_before(const screen_plan *a, const screen_plan *b)
{
    if (a->bound_s != b->bound_s)
        return a->bound_s < b->bound_s;
    return a->shape != b->shape ? a->shape < b->shape : a->rank < b->rank;
}

static void heap_push(screen_plan *h, int *n, const screen_plan *v)
{
    int i = (*n)++;
    for (; i > 0 && plan_before(v, &h[(i - 1) / 2]); i = (i - 1) / 2)
        h[i] = h[(i - 1) / 2];
    h[i] = *v;
}

static void heap_pop(screen_plan *h, int *n, screen_plan *out)
{
    *out = h[0];
    screen_plan last = h[--(*n)];
    int i = 0;
    for (;;) {
        int k = 2 * i + 1;
        if (k >= *n)
            break;
        if (k + 1 < *n && plan_before(&h[k + 1], &h[k]))
            k++;
        if (!plan_before(&h[k], &last))
            break;
        h[i] = h[k];
        i = k;
    }
    if (*n > 0)
        h[i] = last;
}

/* Price a screening plan; a feasible one's step time joins the least. */
static void price_plan(const pp_mip *m, const pp_plan *plan, double *least, int *n_ub, int need)
{
    if (pp_plan_check(m->prob, plan, NULL) != PP_OK)
        return;
    pp_eval ev;
    pp_evaluate(m->prob, plan, &ev);
    if (pp_cons_plan_feasible(m->prob, plan, &ev, m->relax, NULL))
        keep_least(least, n_ub, need, pp_step_time_s(m->prob, plan));
}

/* Whether no plan of bound bound_s can be among the `need` least found. */
static bool beyond(double bound_s, const double *least, int n_ub, int need)
{
    /* the margin covers a bound summed in another order than the step */
    return n_ub == need && bound_s * (1.0 - 1e-9) > least[need - 1];
}

/* A build's candidate and pair buffers: the scratch of the options' cache
 * (mip_cache.h), else its own (*owned), freed by give_back. */
#define SCRATCH_CANDS 0
#define SCRATCH_PAIRS 1
#define PAIRS_BYTES ((size_t)PP_MIP_MAX_STAGE_CANDS * PP_MIP_MAX_CANDS * sizeof(pair_value))

static void *borrow(const pp_mip *m, int slot, size_t bytes, bool *owned)
{
    void *p = m->scratch_from ? pp_price_cache_scratch(m->scratch_from, slot, bytes) : NULL;
    *owned = p == NULL;
    return p ? p : malloc(bytes);
}

static void give_back(void *p, bool owned)
{
    if (owned)
        free(p);
}

/* Fill shape_lb and screen_ub (see pp_mip_build): the upper bounds come
 * from the `keep` best pairs of each shape that turn out feasible plans.
 * ref_s gets a step time to choose the time unit from: the best plan's if
 * one is known.
 *
 * Only the `keep` least of those upper bounds matter (and the least, for
 * ref_s).  A shape's plans cost at least its least stage term, which needs
 * neither its TP, PP nor DP terms priced (only DP's memory, for pruning),
 * then at least its least stage and DP pair that fits memory (which a
 * stage bound of plans without recomputation misses), and a plan at least
 * its pair's bound.  So the shapes are taken in the order of their stage
 * bound, their best pairs priced as plans in the order of their bounds;
 * where a stage bound exceeds the keep-th least step time found, every
 * shape left is screened (lazy: its shape_lb is the stage bound), where its
 * stage and DP bound does, that shape is (lazy too), and where a pair's
 * bound does, every pair left is.  The bounds, the shapes kept and
 * screened are those of pricing every shape and pair in full; most shapes
 * are priced in a fraction of the time, and a few dozen plans instead of
 * thousands.  keep = 0 (the whole space) prices every shape. */
static bool screen(pp_mip *m, int keep, pp_mip_cands *c, double *ref_s)
{
    int ns = m->space->n_shapes, per_shape = keep > 1 ? keep : 1, need = keep > 0 ? keep : 1, n_ub = 0, n_heap = 0;
    shape_order *order = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *order);
    screen_plan *heap = malloc((size_t)(ns > 0 ? ns : 1) * (size_t)per_shape * sizeof *heap);
    double *least = malloc((size_t)need * sizeof *least);
    bool own_pairs;
    pair_value *pairs = borrow(m, SCRATCH_PAIRS, PAIRS_BYTES, &own_pairs);
    m->lazy = calloc((size_t)(ns > 0 ? ns : 1), sizeof *m->lazy);
    if (!order || !heap || !least || !pairs || !m->lazy) {
        free(order);
        free(heap);
        free(least);
        give_back(pairs, own_pairs);
        return false;
    }
    /* the bounds a build of the same prices over the same space found */
    bool shared = m->prices && m->prices != m->own_prices;
    const double *known = shared && keep > 0 ? pp_price_cache_stage_bounds(m->prices, m->space) : NULL;
    for (int si = 0; si < ns; si++)
        order[si] = (shape_order){.bound_s = keep <= 0 ? 0.0 : known ? known[si] : stage_bound(m, si, c), .shape = si};
    if (shared && keep > 0 && !known) {
        double *lb = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *lb);
        for (int i = 0; lb && i < ns; i++)
            lb[order[i].shape] = order[i].bound_s;
        if (lb)
            pp_price_cache_keep_stage_bounds(m->prices, m->space, lb);
        free(lb);
    }
    qsort(order, (size_t)ns, sizeof *order, cmp_shape_order);
    for (int i = 0; i < ns; i++) {
        int si = order[i].shape;
        double b = order[i].bound_s;
        if (isinf(b)) { /* no stage candidate */
            m->shape_lb[si] = HUGE_VAL;
            continue;
        }
        /* The stage bound, then (the shape's stage and DP candidates
         * priced) the least stage and DP pair that fits: once one is beyond
         * the plans found, those that could decide first priced before, the
         * shape is screened lazily, its shape_lb that bound. */
        bool lazy = false, staged = false;
        for (int step = 0; keep > 0 && step < 2 && !lazy; step++) {
            if (step == 1) {
                double floor_s = stage_dp_bound(m, si, c);
                if (isnan(floor_s))
                    break;
                b = fmax(b, floor_s);
                staged = true;
            }
            while (n_heap > 0 && !(heap[0].bound_s > b)) {
                screen_plan t;
                heap_pop(heap, &n_heap, &t);
                if (!beyond(t.bound_s, least, n_ub, need))
                    price_plan(m, &t.plan, least, &n_ub, need);
            }
            lazy = beyond(b, least, n_ub, need);
        }
        if (lazy) {
            if (m->count_screened && !shape_has_pair(m, si, c, pairs)) {
                m->shape_lb[si] = HUGE_VAL;
                continue;
            }
            m->shape_lb[si] = b;
            m->lazy[si] = true;
            m->n_lazy++;
            continue;
        }
        /* the rest of its candidates (its stage and DP ones priced with
         * the bound above) */
        bool ok;
        if (staged) {
            list_cands(m, si, 1u << PP_FAM_TP | 1u << PP_FAM_PP, LIST_ALL, c);
            ok = cands_checked(m, si, c, 1u << PP_FAM_STAGE | 1u << PP_FAM_DP);
        } else {
            ok = shape_cands(m, si, c);
        }
        int n = ok ? shape_pairs(m, c, pairs, per_shape > 1) : 0;
        m->shape_lb[si] = n > 0 ? pairs[0].step_s : HUGE_VAL;
        for (int k = 0; k < n && k < per_shape; k++) {
            screen_plan t = {.bound_s = pairs[k].step_s, .shape = si, .rank = k};
            pair_plan(m, &pairs[k], &t.plan);
            heap_push(heap, &n_heap, &t);
        }
    }
    while (n_heap > 0) {
        screen_plan t;
        heap_pop(heap, &n_heap, &t);
        if (beyond(t.bound_s, least, n_ub, need))
            break;
        price_plan(m, &t.plan, least, &n_ub, need);
    }
    m->screen_ub = keep > 0 && n_ub >= keep ? least[keep - 1] : HUGE_VAL;
    *ref_s = n_ub > 0 ? least[0] : HUGE_VAL;
    for (int si = 0; si < ns && isinf(*ref_s); si++)
        *ref_s = fmin(*ref_s, m->shape_lb[si]);
    free(order);
    free(heap);
    free(least);
    give_back(pairs, own_pairs);
    return true;
}

/* A power of ten of seconds putting ref_s near PP_MIP_STEP_UNITS, and its
 * name: 10^k units per second, k = 3q - r, unit = 10^r x {s, ms, us, ns, ps}[q]. */
static void choose_unit(pp_mip *m, double units_per_s, double ref_s)
{
    int k;
    if (units_per_s > 0)
        k = (int)lround(log10(units_per_s));
    else
        k = isfinite(ref_s) && ref_s > 0 ? (int)lround(log10(PP_MIP_STEP_UNITS / ref_s)) : 6;
    k = k < 0 ? 0 : k > 15 ? 15 : k;
    static const char *prefix[] = {"s", "ms", "us", "ns", "ps", "fs"};
    int q = (k + 2) / 3, r = 3 * q - k;
    m->units_per_s = pow(10.0, k);
    snprintf(m->unit, sizeof m->unit, "%s%s", r == 0 ? "" : r == 1 ? "10" : "100", prefix[q]);
}

/* Whether shape si enters the MIP.  The margin covers the rounding of sums
 * taken in a different order than the cost model's. */
static bool shape_kept(pp_mip *m, int si)
{
    double lb = m->shape_lb[si];
    if (isinf(lb))
        return false; /* no plan: memory or accuracy rule out every choice */
    if (lb <= m->screen_ub * (1.0 + 1e-9))
        return true;
    m->n_screened++;
    if (!m->lazy || !m->lazy[si])
        m->screened_lb = fmin(m->screened_lb, lb);
    return false;
}

void pp_mip_options_init(pp_mip_options *o)
{
    o->relax = 0;
    o->keep = 0;
    o->units_per_s = 0.0;
    o->prices = NULL;
    o->count_screened = true;
}

int pp_mip_build(const pp_problem *prob, const pp_space *space, const pp_mip_options *opt, pp_mip *m,
                 pp_error *err)
{
    memset(m, 0, sizeof *m);
    m->prob = prob;
    m->space = space;
    m->relax = opt->relax;
    m->count_screened = opt->count_screened;
    m->scratch_from = opt->prices;
    m->prices = pp_price_cache_bind(opt->prices, prob) ? opt->prices : NULL;
    if (!m->prices && opt->prices) /* another node count, faster links: the options' cache's spare */
        m->own_prices = pp_price_cache_spare(opt->prices, prob);
    else if (!m->prices && (m->free_prices = pp_price_cache_new_transient()) != NULL &&
             pp_price_cache_bind(m->free_prices, prob))
        m->own_prices = m->free_prices;
    if (m->own_prices)
        m->prices = m->own_prices; /* its stage kernels priced once, its terms not kept */
    m->price_fams = ~0u;
    m->screen_ub = m->screened_lb = HUGE_VAL;
    m->lp = glp_create_prob();
    glp_set_prob_name(m->lp, "parplan");
    glp_set_obj_dir(m->lp, GLP_MIN);
    int ns = space->n_shapes > 0 ? space->n_shapes : 1;
    m->shape_col = calloc((size_t)ns, sizeof *m->shape_col);
    m->shape_col_end = calloc((size_t)ns, sizeof *m->shape_col_end);
    m->shape_lb = malloc((size_t)ns * sizeof *m->shape_lb);
    m->shape_form = calloc((size_t)ns, sizeof *m->shape_form);
    bool own_c;
    pp_mip_cands *c = borrow(m, SCRATCH_CANDS, sizeof *c, &own_c);
    if (c)
        memset(c->n, 0, sizeof c->n); /* list_cands resets only the families it lists */
    double ref_s = HUGE_VAL;
    if (!m->shape_col || !m->shape_col_end || !m->shape_lb || !m->shape_form || !c || !pp_mip_reserve(m) ||
        !screen(m, opt->keep, c, &ref_s)) {
        give_back(c, own_c);
        return pp_error_set(err, PP_EINTERNAL, "", "out of memory building the MIP");
    }
    choose_unit(m, opt->units_per_s, ref_s);
    char obj_name[32];
    snprintf(obj_name, sizeof obj_name, "step_time_%s", m->unit);
    glp_set_obj_name(m->lp, obj_name);
    memset(&m->cols[0], 0, sizeof m->cols[0]);

    int one_shape = pp_mip_add_row(m, PP_ROW_EQ, 1.0, "one_shape");
    for (int si = 0; si < space->n_shapes && !m->failed; si++)
        if (shape_kept(m, si) && shape_cands(m, si, c))
            add_shape(m, si, c, one_shape);
    give_back(c, own_c);
    if (m->nonfinite)
        return pp_error_set(err, PP_EINTERNAL, "",
                            "internal error: the cost model gives a value that is not a finite number for %s",
                            m->nonfinite_col);

    for (int i = 0; i < pp_cons_n_families && !m->failed; i++)
        if (family_on(m, i) && pp_cons_families[i]->add_rows) {
            int rc = pp_cons_families[i]->add_rows(m, err);
            if (rc)
                return rc;
        }
    if (m->failed)
        return pp_error_set(err, PP_EINTERNAL, "", "out of memory building the MIP");
    glp_load_matrix(m->lp, m->nz, m->ia, m->ja, m->ar);
    free(m->ia);
    free(m->ja);
    free(m->ar);
    m->ia = m->ja = NULL;
    m->ar = NULL;
    m->nz_cap = 0;
    return PP_OK;
}

void pp_mip_free(pp_mip *m)
{
    if (m->lp)
        glp_delete_prob(m->lp);
    free(m->cols);
    free(m->shape_col);
    free(m->shape_col_end);
    free(m->shape_lb);
    free(m->shape_form);
    free(m->lazy);
    pp_price_cache_free(m->free_prices);
    free(m->ia);
    free(m->ja);
    free(m->ar);
    memset(m, 0, sizeof *m);
}

double pp_mip_screened_lb(pp_mip *m)
{
    double lb = m->screened_lb;
    if (m->n_lazy == 0)
        return lb;
    bool own_c, own_pairs;
    pp_mip_cands *c = borrow(m, SCRATCH_CANDS, sizeof *c, &own_c);
    pair_value *pairs = borrow(m, SCRATCH_PAIRS, PAIRS_BYTES, &own_pairs);
    for (int si = 0; si < m->space->n_shapes; si++) {
        if (!m->lazy[si])
            continue;
        int n = c && pairs && shape_cands(m, si, c) ? shape_pairs(m, c, pairs, false) : 0;
        lb = fmin(lb, n > 0 ? pairs[0].step_s : m->shape_lb[si]); /* out of memory: the stage bound, lower */
    }
    give_back(c, own_c);
    give_back(pairs, own_pairs);
    return lb;
}

/* ---- solutions ---------------------------------------------------------- */

int pp_mip_decode(const pp_mip *m, pp_mip_choice *ch, pp_plan *plan, pp_error *err)
{
    memset(ch, 0, sizeof *ch);
    int si = -1;
    for (int i = 0; i < m->space->n_shapes; i++)
        if (m->shape_col[i] && glp_mip_col_val(m->lp, m->shape_col[i]) > 0.5) {
            if (si >= 0)
                return pp_error_set(err, PP_EINTERNAL, "", "internal error: the MIP solution picks two shapes");
            si = i;
        }
    if (si < 0)
        return pp_error_set(err, PP_EINTERNAL, "", "internal error: the MIP solution picks no shape");
    ch->shape_col = m->shape_col[si];
    for (int j = m->shape_col[si] + 1; j < m->shape_col_end[si]; j++) {
        const pp_mip_col *x = &m->cols[j];
        if (x->kind > PP_COL_DP || glp_mip_col_val(m->lp, j) <= 0.5)
            continue;
        if (ch->col[x->kind])
            return pp_error_set(err, PP_EINTERNAL, "", "internal error: the MIP solution picks two %s columns",
                                glp_get_col_name(m->lp, j));
        ch->col[x->kind] = j;
    }
    for (int f = 0; f < PP_FAM_COUNT; f++)
        if (!ch->col[f])
            return pp_error_set(err, PP_EINTERNAL, "", "internal error: the MIP solution leaves a family empty");
    const pp_plan *a = &m->cols[ch->col[PP_FAM_STAGE]].plan, *t = &m->cols[ch->col[PP_FAM_TP]].plan;
    const pp_plan *p = &m->cols[ch->col[PP_FAM_PP]].plan, *d = &m->cols[ch->col[PP_FAM_DP]].plan;
    if (tp_link(a) != tp_link(t) || (pp_sp_linked(m->space, &m->space->shapes[si]) && sp_link(a) != sp_link(p)))
        return pp_error_set(err, PP_EINTERNAL, "", "internal error: the MIP solution mixes recompute or sp choices");
    *plan = m->space->shapes[si].base;
    const pp_plan *of[PP_FORM_FAMILIES] = {a, t, p, d};
    assemble(plan, of);
    return PP_OK;
}

void pp_mip_add_nogood(pp_mip *m, const pp_mip_choice *ch)
{
    int ind[PP_FAM_COUNT + 1];
    double val[PP_FAM_COUNT + 1];
    for (int f = 0; f < PP_FAM_COUNT; f++) {
        ind[f + 1] = ch->col[f];
        val[f + 1] = 1.0;
    }
    m->n_nogood++;
    int i = pp_mip_add_row(m, PP_ROW_LE, PP_FAM_COUNT - 1.0, "nogood_%d", m->n_nogood);
    glp_set_mat_row(m->lp, i, PP_FAM_COUNT, ind, val);
}
