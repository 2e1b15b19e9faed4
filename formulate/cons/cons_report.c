/*
 * cons_report.c: what every constraint family shares when it states its
 * rows at a plan and explains itself (cons.h): a row's slack and whether it
 * binds, a family's bit in a relax mask, and the counterfactuals' words.
 * It sits below the families and knows none of them (the list of families
 * is cons.c, above them).
 */
#include "cons.h"

#include "decisions.h"
#include "text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void pp_cons_row_set(pp_cons_row *r, const char *name, double lhs, double rhs, const char *unit, bool equality)
{
    snprintf(r->name, sizeof r->name, "%s", name);
    r->lhs = lhs;
    r->rhs = rhs;
    r->unit = unit;
    r->equality = equality;
    r->slack = rhs - lhs;
    r->violated = equality ? lhs != rhs : lhs > rhs;
    r->binding = !r->violated && fabs(r->slack) <= 1e-9 * fmax(1.0, fabs(rhs));
}

unsigned pp_cons_bit_of(const pp_cons_family *f)
{
    return 1u << f->id;
}

bool pp_cf_found(const pp_counterfactual *cf)
{
    return cf->status != PP_STATUS_INFEASIBLE;
}

bool pp_cf_faster(const pp_counterfactual *cf)
{
    return pp_cf_found(cf) && cf->gain > 0.0;
}

pp_counterfactual *pp_cf_add(pp_family_report *f, const char *key, const char *what)
{
    if (f->n_cf >= PP_EXPLAIN_MAX_CF)
        return NULL;
    pp_counterfactual *cf = &f->cf[f->n_cf++];
    memset(cf, 0, sizeof *cf);
    snprintf(cf->key, sizeof cf->key, "%s", key);
    snprintf(cf->what, sizeof cf->what, "%s", what);
    return cf;
}

void pp_cf_effect(const pp_cons_view *v, const pp_counterfactual *cf, char *buf, size_t cap)
{
    char p[32], changes[1024];
    pp_pct(cf->gain, p, sizeof p);
    if (!pp_cf_found(cf)) {
        pp_catf(buf, cap, "no plan would exist (%s)", cf->reason);
        return;
    }
    pp_plan_changes(v->prob, &cf->best.plan, &v->best->plan, changes, sizeof changes);
    if (cf->gain > 0)
        pp_catf(buf, cap, "a step would take %s less (%.3f s)", p, cf->best.eval.time.step_s);
    else if (cf->gain < 0)
        pp_catf(buf, cap, "a step would take %s more (%.3f s)", p, cf->best.eval.time.step_s);
    else
        pp_catf(buf, cap, "the step time would not change");
    if (changes[0])
        pp_catf(buf, cap, ", with %s", changes);
    else if (cf->gain != 0)
        pp_catf(buf, cap, ", with the same plan");
    if (cf->status == PP_STATUS_TIME_LIMIT)
        pp_catf(buf, cap, " (best found within the time limit, not proven optimal)");
}
