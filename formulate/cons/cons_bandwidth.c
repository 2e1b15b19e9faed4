/*
 * cons_bandwidth.c: no step is shorter than its busiest link needs.
 *
 * Every byte the cost model charges travels over one GPU's NVLink or its
 * NIC; a step cannot end before each link has carried its bytes at its
 * sustained rate, however much of that traffic overlaps computation.  That
 * bound is part of the cost model itself (pp_link_wait_s: the step is the
 * larger of its summed terms and each link's busy time), so `eval`, the
 * MIP (its link rows, mip.c) and the enumerator price it the same way and
 * it never cuts a plan.  This family only explains it: its rows say how busy
 * each link is against the step (tight when a link sets the step time), and
 * its counterfactuals price twice the network and twice the NVLink
 * bandwidth.
 */
#include "cons.h"
#include "text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bw_rows_at(const pp_problem *prob, const pp_plan *plan, const pp_eval *ev, pp_cons_row *out, int max)
{
    (void)plan;
    int n = 0;
    if (max >= 1 && prob->cluster.intra_node_GBps > 0.0)
        pp_cons_row_set(&out[n++], "link_nvlink", ev->nvlink_busy_s, ev->time.step_s, "s", false);
    if (max >= 2 && prob->cluster.inter_node_Gbps > 0.0)
        pp_cons_row_set(&out[n++], "link_network", ev->network_busy_s, ev->time.step_s, "s", false);
    for (int i = 0; i < n; i++) { /* busy <= step by construction: binding is the link setting the step */
        out[i].binding = out[i].lhs >= out[i].rhs * (1.0 - 1e-9);
        out[i].violated = false;
        out[i].slack = fmax(0.0, out[i].slack);
    }
    return n;
}

/* ---- explaining ------------------------------------------------------------ */

#define LINK_FACTOR 2.0 /* the counterfactuals: links this much faster */

static void bw_relax(const pp_cons_view *v, pp_family_report *f)
{
    /* Binding: a link is busy for the whole step, so the link bound, not
     * the terms, sets the step time. */
    for (int i = 0; i < f->n_rows; i++)
        f->binds = f->binds || f->rows[i].binding;
    if (!v->counterfactuals)
        return;
    pp_problem *changed = malloc(sizeof *changed);
    if (!changed)
        return;
    /* the network first (the usual lever), then NVLink */
    const pp_cluster *cl = &v->prob->cluster;
    const struct {
        bool applies;
        const char *key, *unit, *what;
    } links[2] = {
        {cl->inter_node_Gbps > 0 && cl->nodes > 1, "inter_node_Gbps", "Gb/s", "network"},
        {cl->intra_node_GBps > 0 && cl->gpus_per_node > 1, "intra_node_GBps", "GB/s", "NVLink"},
    };
    for (int l = 0; l < 2; l++) {
        if (!links[l].applies)
            continue;
        *changed = *v->prob;
        double *rate = l == 0 ? &changed->cluster.inter_node_Gbps : &changed->cluster.intra_node_GBps;
        double before = *rate;
        *rate *= LINK_FACTOR;
        char what[256], key[48];
        snprintf(key, sizeof key, "%s=%g", links[l].key, *rate);
        snprintf(what, sizeof what, "%g %s of %s per GPU instead of %g", *rate, links[l].unit, links[l].what, before);
        pp_counterfactual *cf = pp_cf_add(f, key, what);
        if (cf)
            v->resolve(v->solver, changed, 0, cf);
    }
    free(changed);
}

static void bw_describe(const pp_cons_view *v, const pp_family_report *f, char *buf, size_t cap)
{
    const pp_eval *ev = &v->best->eval;
    double step = ev->time.step_s;
    const pp_cons_row *nv = NULL, *net = NULL;
    for (int i = 0; i < f->n_rows; i++) {
        if (strcmp(f->rows[i].name, "link_nvlink") == 0)
            nv = &f->rows[i];
        if (strcmp(f->rows[i].name, "link_network") == 0)
            net = &f->rows[i];
    }
    pp_catf(buf, cap, "Bandwidth %s: per step one GPU keeps", f->binds ? "binds" : "does not bind");
    if (net)
        pp_catf(buf, cap, " its network link busy for %.3f s (%.0f%%)", net->lhs, 100.0 * net->lhs / step);
    if (nv)
        pp_catf(buf, cap, "%s NVLink busy for %.3f s (%.0f%%)", net ? " and" : "", nv->lhs, 100.0 * nv->lhs / step);
    pp_catf(buf, cap, " of the %.3f s step", step);
    if (f->binds)
        pp_catf(buf, cap, ", so the link, not the overlapped work, sets the step time (%.3f s of waiting beyond "
                          "the other parts)", ev->time.link_wait_s);
    pp_catf(buf, cap, ".");
    if (!v->counterfactuals)
        return;
    for (int k = 0; k < f->n_cf; k++) {
        const pp_counterfactual *cf = &f->cf[k];
        pp_catf(buf, cap, k == 0 ? " Faster links: with %s, " : "; with %s, ", cf->what);
        pp_cf_effect(v, cf, buf, cap);
    }
    if (f->n_cf)
        pp_catf(buf, cap, ".");
}

const pp_cons_family pp_cons_bandwidth = {
    .id = PP_CONS_BANDWIDTH,
    .name = "bandwidth",
    .explain = "a step lasts at least as long as one GPU's NVLink and network link need for its bytes "
               "(part of the step time, not a cut)",
    .limit = true,
    .tried = "twice the link bandwidth",
    .add_rows = NULL,
    .prune = NULL,
    .rows_at = bw_rows_at,
    .relax = bw_relax,
    .describe = bw_describe,
};
