/*
 * cons.h: constraint families, as plug-ins (after SCIP's constraint handlers).
 *
 * A family is one kind of limit a plan must respect: the GPU count, the
 * divisibility of the model and the batch, memory, link bandwidth, accuracy.
 * Each lives in its own file (formulate/cons_<name>.c) and fills one
 * pp_cons_family: its rows of the MIP, an optional pruning of joint variables
 * it proves infeasible, and the evaluation of its rows at a plan.  The MIP
 * builder walks pp_cons_families to add rows; the enumerator walks it to
 * reject plans; the report walks it to print slack.  Adding a family is adding
 * a file and a line in cons.c.
 *
 * Dropping a family (a bit of `relax` in pp_mip_build) removes its rows and
 * its pruning: the counterfactual "what if this limit were lifted".  The GPU
 * count and divisibility are also what the space is made of (space.h), so
 * dropping those two changes no answer.
 */
#ifndef PARPLAN_CONS_H
#define PARPLAN_CONS_H

#include "costmodel.h"
#include "types.h"

struct pp_mip;
struct pp_mip_cands;
struct pp_mip_col;

/* One row of a family evaluated at a plan, from the cost model (not from the
 * MIP's solution values). */
typedef struct pp_cons_row {
    char name[64];    /* the MIP row, e.g. "mem_stage0" */
    double lhs, rhs;  /* activity and limit at the plan */
    const char *unit; /* "GiB", "s", "GPUs", ... */
    bool equality;    /* lhs == rhs is required (else lhs <= rhs) */
    double slack;     /* rhs - lhs: >= 0 when satisfied (0 for equalities) */
    bool binding;     /* tight at this plan: slack ~ 0 */
    bool violated;
} pp_cons_row;

#define PP_CONS_MAX_ROWS 16

typedef struct pp_cons_family {
    const char *name;    /* "memory": the report's and the relax mask's name */
    const char *explain; /* one line for the report */
    /* Add the family's rows (and any auxiliary columns) to the MIP. */
    int (*add_rows)(struct pp_mip *mip, pp_error *err);
    /* Optional: look at the joint candidates of one shape before they become
     * columns.  Mark `dropped` those the family proves infeasible whatever
     * the other choices are (they never enter the MIP: exact pruning only),
     * and `banned` those its rows will fix to zero (they stay in the MIP). */
    void (*prune)(const struct pp_mip *mip, struct pp_mip_cands *cands);
    /* Optional: whether a stage candidate and a DP candidate of one shape
     * can be part of the same plan (memory: states + activations fit). */
    bool (*pair_fits)(const struct pp_mip *mip, const struct pp_mip_col *stage, const struct pp_mip_col *dp);
    /* The family's rows at a plan that passed pp_plan_check; ev is
     * pp_evaluate's result for it.  Returns the number of rows written. */
    int (*rows_at)(const pp_problem *prob, const pp_plan *plan, const pp_eval *ev, pp_cons_row *out, int max);
} pp_cons_family;

extern const pp_cons_family pp_cons_gpus, pp_cons_divisibility, pp_cons_memory, pp_cons_bandwidth,
    pp_cons_accuracy;

/* Every family, in the order the builder and the report walk them. */
extern const pp_cons_family *const pp_cons_families[];
extern const int pp_cons_n_families;

/* Bit of a family in a relax mask (0 if no family has that name). */
unsigned pp_cons_bit(const char *name);

/* Whether a plan (that passed pp_plan_check) satisfies every family not in
 * `relax`.  If not and why is not NULL, why gets the first violated row. */
bool pp_cons_plan_feasible(const pp_problem *prob, const pp_plan *plan, const pp_eval *ev, unsigned relax,
                           pp_cons_row *why);

/* Fill a row result (helper for the families). */
void pp_cons_row_set(pp_cons_row *r, const char *name, double lhs, double rhs, const char *unit, bool equality);

#endif
