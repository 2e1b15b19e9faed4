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
struct pp_space;
struct pp_catalog;

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

/* ---- explaining a solved problem ------------------------------------------
 *
 * What a limit is worth is measured by solving the problem again with the
 * limit changed (a counterfactual).  Each family decides which changes to
 * try (relax), and says in words what its rows and counterfactuals mean
 * (describe); the solver (solve/explain.c) only runs the re-solves and
 * collects the numbers, and the reports print them. */

/* One re-solve with one limit changed. */
typedef struct pp_counterfactual {
    char key[64];     /* what changed, for tools: "memory_gib=96" */
    char what[256];   /* in words: "96 GiB per GPU instead of 80" */
    pp_status status; /* optimal, time_limit or infeasible */
    pp_candidate best;  /* its optimum (status optimal or time_limit) */
    double gain;        /* (step now - step then) / step now: > 0 is faster */
    double gpus;        /* GPUs of the changed problem */
    char reason[1100];  /* why nothing was found (infeasible, or an error) */
} pp_counterfactual;

#define PP_EXPLAIN_MAX_CF 4
#define PP_EXPLAIN_MAX_CUTS 8

/* One rule that cuts the space, and how many degree combinations it cuts. */
typedef struct pp_rule_cut {
    char rule[96];
    long combinations;
} pp_rule_cut;

struct pp_cons_family;

/* One constraint family at the optimum. */
typedef struct pp_family_report {
    const struct pp_cons_family *family;
    int n_rows;
    pp_cons_row rows[PP_CONS_MAX_ROWS];
    int tightest; /* the inequality row with the least slack, -1 if none */
    bool tight;   /* a row holds with equality (always, for an equality row) */
    bool binds;   /* relaxing the family makes the optimum faster */
    int n_cf;
    pp_counterfactual cf[PP_EXPLAIN_MAX_CF];
    /* Families that shape the space rather than limit it count what their
     * rules cut (divisibility): has_cuts, then the counts. */
    bool has_cuts;
    long combinations, combinations_valid; /* degree combinations that use every GPU, and those valid */
    int n_cuts;
    pp_rule_cut cuts[PP_EXPLAIN_MAX_CUTS];
} pp_family_report;

/* What a family's explanation may read: the problem, its optimum, and a way
 * to solve a changed problem (the solver fills it in; formulate/ never
 * solves). */
typedef struct pp_cons_view {
    const pp_problem *prob;
    const struct pp_catalog *cat; /* for catalog sizes and names; may be NULL */
    const pp_candidate *best;     /* the optimum */
    bool counterfactuals;         /* false: describe the rows only, re-solve nothing */
    /* Solve `changed` (with the families of relax_mask dropped) into cf:
     * status, best, gain against the optimum, gpus, reason. */
    void (*resolve)(void *solver, const pp_problem *changed, unsigned relax_mask, pp_counterfactual *cf);
    void *solver;
} pp_cons_view;

/* The families, in the order the builder and the report walk them
 * (pp_cons_families[id]); a family's bit in a relax mask is 1 << id. */
typedef enum {
    PP_CONS_GPUS = 0,
    PP_CONS_DIVISIBILITY,
    PP_CONS_MEMORY,
    PP_CONS_BANDWIDTH,
    PP_CONS_ACCURACY,
    PP_CONS_COUNT
} pp_cons_id;

typedef struct pp_cons_family {
    pp_cons_id id;       /* its place in pp_cons_families */
    const char *name;    /* "memory": the report's and the relax mask's name */
    const char *explain; /* one line for the report */
    /* Does the family limit plans (memory, bandwidth, accuracy), or shape
     * the space itself (GPU count, divisibility)?  Only limits appear in
     * the summary of what binds. */
    bool limit;
    /* What its counterfactuals try, for "nothing that was tried (...) gives
     * a faster plan": "more memory".  NULL if it tries nothing. */
    const char *tried;

    /* ---- the MIP ---- */
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

    /* ---- a plan ---- */
    /* The family's rows at a plan that passed pp_plan_check; ev is
     * pp_evaluate's result for it.  Returns the number of rows written. */
    int (*rows_at)(const pp_problem *prob, const pp_plan *plan, const pp_eval *ev, pp_cons_row *out, int max);
    /* Optional: when the family is dropped, loosen the problem itself too
     * (accuracy lifts the error tolerances that the plan rules also read). */
    void (*loosen)(pp_problem *prob);

    /* ---- explaining ---- */
    /* Optional: the counterfactuals that price this family, through
     * v->resolve: fills f->cf, f->binds (and f's cuts).  Without it the
     * family is priced by one re-solve with it dropped. */
    void (*relax)(const pp_cons_view *v, pp_family_report *f);
    /* Optional: the family's verdict in plain sentences (no Markdown), from
     * its rows and counterfactuals.  Without it a generic one is written. */
    void (*describe)(const pp_cons_view *v, const pp_family_report *f, char *buf, size_t cap);
    /* Optional: why no plan of the space satisfies this family, as one
     * sentence starting with the family's name; false if the family alone
     * does not block every plan (relax: the families already dropped). */
    bool (*diagnose)(const pp_problem *prob, const struct pp_space *space, unsigned relax, char *buf, size_t cap);
    /* Optional: what a plan must do to satisfy the family, for the sentence
     * of several families blocking together: "fits in the A100's 72 GiB
     * after headroom". */
    void (*requirement)(const pp_problem *prob, char *buf, size_t cap);
} pp_cons_family;

extern const pp_cons_family pp_cons_gpus, pp_cons_divisibility, pp_cons_memory, pp_cons_bandwidth,
    pp_cons_accuracy;

/* Every family, in the order of pp_cons_id. */
extern const pp_cons_family *const pp_cons_families[PP_CONS_COUNT];
extern const int pp_cons_n_families;

/* Bit of a family in a relax mask (0 if no family has that name). */
unsigned pp_cons_bit(const char *name);

/* Whether a plan (that passed pp_plan_check) satisfies every family not in
 * `relax`.  If not and why is not NULL, why gets the first violated row. */
bool pp_cons_plan_feasible(const pp_problem *prob, const pp_plan *plan, const pp_eval *ev, unsigned relax,
                           pp_cons_row *why);

/* ---- what the families share (cons_report.c, below the list) ---- */

/* Fill a row result (helper for the families). */
void pp_cons_row_set(pp_cons_row *r, const char *name, double lhs, double rhs, const char *unit, bool equality);

/* The bit of a family in a relax mask: 1 << its id. */
unsigned pp_cons_bit_of(const pp_cons_family *f);

/* A problem with the families of relax_mask loosened (their loosen
 * callbacks), for the plan rules to see. */
void pp_cons_loosen(pp_problem *prob, unsigned relax_mask);

/* Whether a counterfactual found a plan, and whether it is faster. */
bool pp_cf_found(const pp_counterfactual *cf);
bool pp_cf_faster(const pp_counterfactual *cf);
/* Start a counterfactual of f (key, what); NULL when f has no room. */
pp_counterfactual *pp_cf_add(pp_family_report *f, const char *key, const char *what);
/* "a step would take 6.1% less (17.480 s), with pp=16 instead of 8": what a
 * counterfactual changes, appended to buf. */
void pp_cf_effect(const pp_cons_view *v, const pp_counterfactual *cf, char *buf, size_t cap);

/* ---- the list of families (cons.c), above every family ---- */

/* Analyse family i at the optimum: its rows, tightest row, and (through its
 * relax) its counterfactuals. */
void pp_cons_analyze(const pp_cons_view *v, const pp_cons_family *fam, pp_family_report *f);
/* The family's verdict sentences (its describe, or the generic one). */
void pp_cons_describe(const pp_cons_view *v, const pp_family_report *f, char *buf, size_t cap);
/* Why no plan of a space is feasible, as one sentence starting with the
 * family (or families) that block. */
void pp_cons_diagnose(const pp_problem *prob, const struct pp_space *space, unsigned relax, char *buf, size_t cap);

#endif
