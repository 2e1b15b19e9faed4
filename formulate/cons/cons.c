/*
 * cons.c: the list of constraint families (cons.h) and what walks it: a
 * plan's feasibility, loosening, the analysis, verdict and diagnosis of each
 * family.  It sits above every family (cons_<name>.c), which in turn use
 * only what they share in cons_report.c: so no family calls back into the
 * list.  A new family is a new cons_<name>.c, its id in cons.h and one line
 * below.
 */
#include "cons.h"

#include "decisions.h"
#include "problem.h"
#include "space.h"
#include "text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const pp_cons_family *const pp_cons_families[PP_CONS_COUNT] = {
    [PP_CONS_GPUS] = &pp_cons_gpus,           [PP_CONS_DIVISIBILITY] = &pp_cons_divisibility,
    [PP_CONS_MEMORY] = &pp_cons_memory,       [PP_CONS_BANDWIDTH] = &pp_cons_bandwidth,
    [PP_CONS_ACCURACY] = &pp_cons_accuracy,
};
const int pp_cons_n_families = (int)(sizeof pp_cons_families / sizeof pp_cons_families[0]);

unsigned pp_cons_bit(const char *name)
{
    for (int i = 0; i < pp_cons_n_families; i++)
        if (strcmp(pp_cons_families[i]->name, name) == 0)
            return 1u << i;
    return 0;
}

bool pp_cons_plan_feasible(const pp_problem *prob, const pp_plan *plan, const pp_eval *ev, unsigned relax,
                           pp_cons_row *why)
{
    pp_cons_row rows[PP_CONS_MAX_ROWS];
    for (int i = 0; i < pp_cons_n_families; i++) {
        if (relax & (1u << i))
            continue;
        int n = pp_cons_families[i]->rows_at(prob, plan, ev, rows, PP_CONS_MAX_ROWS);
        for (int k = 0; k < n; k++)
            if (rows[k].violated) {
                if (why)
                    *why = rows[k];
                return false;
            }
    }
    return true;
}

void pp_cons_loosen(pp_problem *prob, unsigned relax_mask)
{
    for (int i = 0; i < pp_cons_n_families; i++)
        if ((relax_mask & (1u << i)) && pp_cons_families[i]->loosen)
            pp_cons_families[i]->loosen(prob);
}

/* ---- explaining ------------------------------------------------------------ */

/* The row a reader should look at: one the family itself marks binding,
 * else the inequality with the least slack relative to its limit (a row
 * whose limit is 0, like "no lossy codec on tp", is a rule, not a margin). */
static int tightest_row(const pp_family_report *f)
{
    int best = -1;
    double best_rel = HUGE_VAL;
    for (int pass = 0; pass < 2 && best < 0; pass++)
        for (int i = 0; i < f->n_rows; i++) {
            const pp_cons_row *r = &f->rows[i];
            if (r->equality || (pass == 0 && !r->binding) || (pass == 1 && r->rhs == 0.0))
                continue;
            double rel = r->slack / fmax(fabs(r->rhs), 1e-300);
            if (rel < best_rel) {
                best_rel = rel;
                best = i;
            }
        }
    for (int i = 0; best < 0 && i < f->n_rows; i++)
        if (!f->rows[i].equality)
            best = i;
    return best;
}

/* A family without its own relax: one re-solve with it dropped. */
static void relax_by_dropping(const pp_cons_view *v, pp_family_report *f)
{
    if (!v->counterfactuals)
        return;
    char key[48];
    snprintf(key, sizeof key, "%s=dropped", f->family->name);
    pp_counterfactual *cf = pp_cf_add(f, key, "the family dropped");
    v->resolve(v->solver, v->prob, pp_cons_bit_of(f->family), cf);
    f->binds = pp_cf_faster(cf);
}

void pp_cons_analyze(const pp_cons_view *v, const pp_cons_family *fam, pp_family_report *f)
{
    memset(f, 0, sizeof *f);
    f->family = fam;
    f->n_rows = fam->rows_at(v->prob, &v->best->plan, &v->best->eval, f->rows, PP_CONS_MAX_ROWS);
    f->tightest = tightest_row(f);
    for (int i = 0; i < f->n_rows; i++)
        if (f->rows[i].binding || f->rows[i].equality)
            f->tight = true;
    if (fam->relax)
        fam->relax(v, f);
    else
        relax_by_dropping(v, f);
}

/* "Memory" from "memory". */
static void family_title(const pp_cons_family *fam, char *buf, size_t cap)
{
    snprintf(buf, cap, "%c%s", pp_toupper_ascii(fam->name[0]), fam->name + 1);
}

void pp_cons_describe(const pp_cons_view *v, const pp_family_report *f, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (f->family->describe) {
        f->family->describe(v, f, buf, cap);
        return;
    }
    /* generic: its rows, and the re-solve without it */
    const pp_cons_row *t = f->tightest >= 0 ? &f->rows[f->tightest] : NULL;
    if (!v->counterfactuals || f->n_cf == 0) {
        pp_catf(buf, cap, "No re-solve was run.");
        return;
    }
    char title[64];
    family_title(f->family, title, sizeof title);
    if (f->binds) {
        pp_catf(buf, cap, "%s binds. Without it, ", title);
        pp_cf_effect(v, &f->cf[0], buf, cap);
        pp_catf(buf, cap, ".");
    } else
        pp_catf(buf, cap, "%s does not bind%s", title, t ? "" : ".");
    if (!f->binds && t)
        pp_catf(buf, cap, ": its tightest row %s has slack %.4g %s.", t->name, t->slack, t->unit ? t->unit : "");
}

void pp_cons_diagnose(const pp_problem *prob, const struct pp_space *space, unsigned relax, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (space->n_shapes == 0) { /* the rules themselves leave nothing (divisibility, GPU count) */
        snprintf(buf, cap, "%s", space->empty_reason);
        return;
    }
    for (int i = 0; i < pp_cons_n_families; i++) {
        const pp_cons_family *fam = pp_cons_families[i];
        if (!(relax & (1u << i)) && fam->diagnose && fam->diagnose(prob, space, relax, buf, cap))
            return;
    }
    /* No family blocks alone: the limits block together. */
    char names[256] = "", needs[1024] = "";
    int n = 0, total = 0;
    for (int i = 0; i < pp_cons_n_families; i++)
        total += !(relax & (1u << i)) && pp_cons_families[i]->requirement;
    for (int i = 0; i < pp_cons_n_families; i++) {
        const pp_cons_family *fam = pp_cons_families[i];
        if ((relax & (1u << i)) || !fam->requirement)
            continue;
        char need[512] = "";
        fam->requirement(prob, need, sizeof need);
        const char *sep = n == 0 ? "" : n == total - 1 ? " and " : ", ";
        pp_catf(names, sizeof names, "%s%s", sep, fam->name);
        pp_catf(needs, sizeof needs, "%s%s", n == 0 ? "" : " and ", need);
        n++;
    }
    if (n == 0)
        snprintf(buf, cap, "no plan satisfies every constraint");
    else
        snprintf(buf, cap, "%s: no plan %s%s", names, n == 2 ? "both " : "", needs);
}
