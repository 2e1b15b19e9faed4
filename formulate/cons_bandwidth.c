/*
 * cons_bandwidth.c: no link carries more bytes in a step than its bandwidth
 * allows in that time.
 *
 * Per shape S (its plan's step time is the part of the objective on S's
 * columns):
 *   step_def_S    step_time_S = sum of S's objective terms
 *   bw_nvlink_S   bytes one GPU sends over NVLink per step / NVLink bandwidth - step_time_S <= 0
 *   bw_network_S  bytes it sends over the network per step / NIC bandwidth   - step_time_S <= 0
 * (times in the MIP's unit, mip.h).
 * A shape gets the rows only if its largest traffic could outlast its
 * shortest step; otherwise no plan of it can break them.
 *
 * The step time here includes the epigraph variables, which minimization
 * holds at max(0, .) only if no row rewards inflating them.  These rows never
 * do: the cost model charges every byte it counts at most at the link's
 * datasheet bandwidth (its efficiencies are <= 1), and every wire time it
 * charges is either on the critical path or inside an overlap window plus
 * its epigraph, so bytes / bandwidth <= step time holds for every plan
 * (tests/test_planner.c checks the rows' slack at the optimum).  Making the
 * epigraphs exact with big-M rows would be correct too, but their
 * coefficients spread over nine orders of magnitude and threw CBC's
 * preprocessing off on the exported model.
 * Bytes come from the terms' bytes_nvlink / bytes_network (per micro-batch
 * for TP and PP, so times m; per step for DP), as pp_evaluate counts them.  Bandwidths are the
 * problem's per-GPU one-direction link figures.
 */
#include "cons.h"
#include "mip.h"
#include "rules.h"
#include "space.h"
#include "text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double nvlink_Bps(const pp_problem *prob)
{
    return prob->cluster.intra_node_GBps * 1e9;
}

static double network_Bps(const pp_problem *prob)
{
    return prob->cluster.inter_node_Gbps / 8.0 * 1e9;
}

/* Bytes per step a column sends over one link (network if inter_link). */
static double col_bytes(const pp_mip *m, const pp_mip_col *x, bool inter_link)
{
    double mb = x->shape >= 0 ? m->space->shapes[x->shape].microbatches : 0;
    switch (x->kind) {
    case PP_COL_TP:
    case PP_COL_PP: return mb * (inter_link ? x->comm.bytes_network : x->comm.bytes_nvlink);
    case PP_COL_DP: return inter_link ? x->dp.bytes_network : x->dp.bytes_nvlink;
    default: return 0.0;
    }
}

/* Whether some plan of a shape might break a link's row: the most bytes any
 * plan can send against the least step time any plan can take (the sum of
 * each family's cheapest term; the epigraphs are >= 0). */
static bool might_bind(const pp_mip *m, int first, int end, double Bps, bool inter_link)
{
    double least_s[PP_FAM_COUNT], most_bytes[PP_FAM_COUNT];
    for (int f = 0; f < PP_FAM_COUNT; f++) {
        least_s[f] = HUGE_VAL;
        most_bytes[f] = 0.0;
    }
    for (int j = first; j < end; j++) {
        const pp_mip_col *x = &m->cols[j];
        if (x->kind > PP_COL_DP)
            continue;
        least_s[x->kind] = fmin(least_s[x->kind], x->obj);
        most_bytes[x->kind] = fmax(most_bytes[x->kind], col_bytes(m, x, inter_link));
    }
    double step_s = 0.0, bytes = 0.0;
    for (int f = 0; f < PP_FAM_COUNT; f++) {
        step_s += least_s[f];
        bytes += most_bytes[f];
    }
    return bytes / Bps >= step_s * (1.0 - 1e-9);
}

static int bw_add_rows(pp_mip *m, pp_error *err)
{
    (void)err;
    double Bps[2] = {nvlink_Bps(m->prob), network_Bps(m->prob)};
    static const char *names[2] = {"bw_nvlink", "bw_network"};
    for (int si = 0; si < m->space->n_shapes; si++) {
        int y = m->shape_col[si], end = m->shape_col_end[si];
        if (!y)
            continue;
        bool need[2];
        for (int link = 0; link < 2; link++)
            need[link] = Bps[link] > 0.0 && might_bind(m, y + 1, end, Bps[link], link == 1);
        if (!need[0] && !need[1])
            continue;
        char key[96];
        pp_mip_shape_key(m, si, key, sizeof key);
        int step = pp_mip_add_col(m, false, 0.0, -1.0, 0.0, "step_time_%s_%s", m->unit, key);
        int def = pp_mip_add_row(m, PP_ROW_EQ, 0.0, "step_def_%s", key);
        pp_mip_coef(m, def, step, 1.0);
        for (int j = y + 1; j < end; j++)
            pp_mip_coef(m, def, j, -pp_mip_obj_coef(m, j));
        for (int link = 0; link < 2; link++) {
            if (!need[link])
                continue;
            int row = pp_mip_add_row(m, PP_ROW_LE, 0.0, "%s_%s", names[link], key);
            pp_mip_coef(m, row, step, -1.0);
            for (int j = y + 1; j < end; j++) {
                double bytes = col_bytes(m, &m->cols[j], link == 1);
                if (bytes > 0.0)
                    pp_mip_coef(m, row, j, bytes / Bps[link] * m->units_per_s);
            }
        }
    }
    return PP_OK;
}

static int bw_rows_at(const pp_problem *prob, const pp_plan *plan, const pp_eval *ev, pp_cons_row *out, int max)
{
    (void)plan;
    int n = 0;
    if (max >= 1 && nvlink_Bps(prob) > 0.0)
        pp_cons_row_set(&out[n++], "bw_nvlink", ev->bytes_nvlink_per_step / nvlink_Bps(prob), ev->time.step_s,
                        "s", false);
    if (max >= 2 && network_Bps(prob) > 0.0)
        pp_cons_row_set(&out[n++], "bw_network", ev->bytes_network_per_step / network_Bps(prob),
                        ev->time.step_s, "s", false);
    return n;
}

/* ---- explaining ------------------------------------------------------------ */

#define LINK_FACTOR 2.0 /* the counterfactuals: links this much faster */

static void bw_relax(const pp_cons_view *v, pp_family_report *f)
{
    if (!v->counterfactuals)
        return;
    pp_counterfactual *drop = pp_cf_add(f, "bandwidth=unlimited", "no bandwidth rows");
    v->resolve(v->solver, v->prob, pp_cons_bit_of(&pp_cons_bandwidth), drop);
    f->binds = pp_cf_faster(drop);
    pp_problem *changed = malloc(sizeof *changed);
    if (!changed)
        return;
    const pp_cluster *cl = &v->prob->cluster;
    char what[256], key[48];
    if (cl->inter_node_Gbps > 0 && cl->nodes > 1) {
        *changed = *v->prob;
        changed->cluster.inter_node_Gbps *= LINK_FACTOR;
        snprintf(key, sizeof key, "inter_node_Gbps=%g", changed->cluster.inter_node_Gbps);
        snprintf(what, sizeof what, "%g Gb/s of network per GPU instead of %g", changed->cluster.inter_node_Gbps,
                 cl->inter_node_Gbps);
        pp_counterfactual *cf = pp_cf_add(f, key, what);
        if (cf)
            v->resolve(v->solver, changed, 0, cf);
    }
    if (cl->intra_node_GBps > 0 && cl->gpus_per_node > 1) {
        *changed = *v->prob;
        changed->cluster.intra_node_GBps *= LINK_FACTOR;
        snprintf(key, sizeof key, "intra_node_GBps=%g", changed->cluster.intra_node_GBps);
        snprintf(what, sizeof what, "%g GB/s of NVLink per GPU instead of %g", changed->cluster.intra_node_GBps,
                 cl->intra_node_GBps);
        pp_counterfactual *cf = pp_cf_add(f, key, what);
        if (cf)
            v->resolve(v->solver, changed, 0, cf);
    }
    free(changed);
}

static void bw_describe(const pp_cons_view *v, const pp_family_report *f, char *buf, size_t cap)
{
    double step = v->best->eval.time.step_s;
    const pp_cons_row *nv = NULL, *net = NULL;
    for (int i = 0; i < f->n_rows; i++) {
        if (strcmp(f->rows[i].name, "bw_nvlink") == 0)
            nv = &f->rows[i];
        if (strcmp(f->rows[i].name, "bw_network") == 0)
            net = &f->rows[i];
    }
    pp_catf(buf, cap, "Bandwidth %s: per step one GPU keeps", f->binds ? "binds" : "does not bind");
    if (net)
        pp_catf(buf, cap, " its network link busy for %.3f s", net->lhs);
    if (nv)
        pp_catf(buf, cap, "%s NVLink busy for %.3f s", net ? " and" : "", nv->lhs);
    pp_catf(buf, cap, " of the %.3f s step", step);
    if (net || nv) {
        pp_catf(buf, cap, " (slack");
        if (net)
            pp_catf(buf, cap, " %.3f s", net->slack);
        if (nv)
            pp_catf(buf, cap, "%s %.3f s", net ? " and" : "", nv->slack);
        pp_catf(buf, cap, ")");
    }
    pp_catf(buf, cap, ".");
    if (!v->counterfactuals || f->n_cf == 0)
        return;
    if (f->binds) {
        pp_catf(buf, cap, " Without the bandwidth rows ");
        pp_cf_effect(v, &f->cf[0], buf, cap);
        pp_catf(buf, cap, ".");
    }
    bool first = true;
    for (int k = 1; k < f->n_cf; k++) {
        const pp_counterfactual *cf = &f->cf[k];
        if (strncmp(cf->key, "inter_node", 10) == 0)
            pp_catf(buf, cap, " Faster links still pay through the cost model: with %s, ", cf->what);
        else
            pp_catf(buf, cap, first ? " With %s, " : "; with %s, ", cf->what);
        pp_cf_effect(v, cf, buf, cap);
        first = false;
    }
    if (!first)
        pp_catf(buf, cap, ".");
}

/* A plan that obeys the rules and every other family, ignoring bandwidth. */
static bool plan_without_bandwidth(const pp_problem *prob, const pp_space *s, unsigned relax, pp_plan *out,
                                   pp_eval *ev)
{
    unsigned ignore = relax | pp_cons_bit_of(&pp_cons_bandwidth);
    for (int si = 0; si < s->n_shapes; si++) {
        pp_odometer o;
        if (!pp_odometer_start(&o, s, &s->shapes[si]))
            continue;
        do {
            pp_odometer_plan(&o, &s->shapes[si], out);
            if (pp_plan_check(prob, out, NULL))
                continue;
            pp_evaluate(prob, out, ev);
            if (pp_cons_plan_feasible(prob, out, ev, ignore, NULL))
                return true;
        } while (pp_odometer_next(&o));
    }
    return false;
}

static bool bw_diagnose(const pp_problem *prob, const pp_space *s, unsigned relax, char *buf, size_t cap)
{
    pp_plan plan;
    pp_eval ev;
    if (!plan_without_bandwidth(prob, s, relax, &plan, &ev))
        return false;
    snprintf(buf, cap,
             "bandwidth: every plan that fits in memory sends more bytes per step than its links carry in "
             "the step time (e.g. tp=%d pp=%d dp=%d: %.3g GB over NVLink and %.3g GB over the network in a "
             "%.3g s step)",
             plan.tp, plan.pp, plan.dp, ev.bytes_nvlink_per_step / 1e9, ev.bytes_network_per_step / 1e9,
             ev.time.step_s);
    return true;
}

const pp_cons_family pp_cons_bandwidth = {
    .name = "bandwidth",
    .explain = "the bytes one GPU sends per step over NVLink and over the network fit in the link's "
               "bandwidth times the step time",
    .limit = true,
    .tried = "twice the link bandwidth",
    .add_rows = bw_add_rows,
    .prune = NULL,
    .rows_at = bw_rows_at,
    .relax = bw_relax,
    .describe = bw_describe,
    .diagnose = bw_diagnose,
};
