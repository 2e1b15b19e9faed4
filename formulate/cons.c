/*
 * cons.c: the list of constraint families (cons.h) and what every family
 * shares.  A new family is a new cons_<name>.c and one line below.
 */
#include "cons.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const pp_cons_family *const pp_cons_families[] = {
    &pp_cons_gpus, &pp_cons_divisibility, &pp_cons_memory, &pp_cons_bandwidth, &pp_cons_accuracy,
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
