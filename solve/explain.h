/*
 * explain.h: why the optimal plan is what it is, in numbers.
 *
 * pp_explain_plan() takes a solved problem and works out the facts the report
 * of `plan` rests on beyond the plan itself:
 *
 *   - for every constraint family (cons.h): its rows at the optimum with
 *     their slack, and what relaxing it is worth, found by SOLVING AGAIN with
 *     the limit changed (each family says which changes to try: its relax
 *     callback);
 *   - for every runner-up: its gap, whether it ties with the optimum within
 *     the cost model's measured error, the part of the step time it loses
 *     most on and the part it saves most on, its memory headroom and how many
 *     tricks it needs;
 *   - among the optimum and its ties, the one with the most headroom and the
 *     one with the fewest tricks;
 *   - the fastest plan without interleaving or compression, for a reader who
 *     prefers fewer tricks;
 *   - the relaxations that would speed the plan up, largest gain first;
 *   - the pipeline schedule (schedule.h);
 *   - an optional baseline plan (e.g. a published one), priced and compared.
 *
 * Everything here is numbers, plans and flags; reports/ turns them into
 * sentences and tables (reports/explain_text.h).  It is a pure function of
 * the inputs, so reports stay byte-identical between runs.
 */
#ifndef PARPLAN_EXPLAIN_H
#define PARPLAN_EXPLAIN_H

#include "cons.h"
#include "planner.h"
#include "problem.h"
#include "schedule.h"

/* The cost model's error when no calibration states one: plans closer than
 * this to the optimum are ties.  The catalog's efficiency.json carries the
 * cross-validated error of its fit ("cross_validated_error", written by
 * `parplan calibrate --cv`, docs/calibration.md), which replaces it: a
 * prediction cannot rank two plans closer than its own error. */
#define PP_COST_MODEL_ERROR 0.05

/* One plan against the optimum, part by part. */
typedef struct pp_runner_up_report {
    double gap;          /* (step - best) / best */
    bool tie;            /* gap within the cost model's error (pp_explanation.model_error) */
    bool same_step;      /* the same step time as the optimum */
    int worst;           /* the part it loses most on (pp_part), -1 if none */
    double delta_s;      /* how much longer that part is */
    int saves;           /* the part it saves most on (pp_part), -1 if none */
    double saves_s;      /* how much shorter that part is (negative) */
    double headroom_gib; /* usable memory left on the most loaded GPU */
    int tricks;          /* interleaving, compressed dimensions (a lossy quantizer 2), recomputation
                            (selective 1, full 2) */
} pp_runner_up_report;

/* The plan a user compares against (--baseline). */
typedef struct pp_baseline_report {
    bool present;
    char label[256]; /* where it came from, e.g. its file name */
    pp_plan plan;
    bool valid;          /* obeys the rules (rules.h), so it could be priced */
    char invalid[1024];  /* when not valid: the rule it breaks */
    pp_eval eval;
    bool feasible;       /* also satisfies every constraint family */
    pp_cons_row broken;  /* when not feasible: the first row it breaks */
    bool tp_leaves_node; /* its TP leaves a node the problem keeps TP inside (rules.h):
                            priced, but not feasible */
    bool not_runnable;   /* its framework lacks a value of it (rules.h pp_plan_runnable): priced, but not
                            feasible */
    char not_runnable_why[1024]; /* "not runnable by Megatron-Core (0.20.0 ...): it has no ..." */
    bool breaks_row;     /* a constraint family's row is broken (`broken`) */
    double speedup;      /* baseline step / optimal step */
    double time_saved;   /* (baseline - optimal) / baseline */
} pp_baseline_report;

typedef struct pp_explanation {
    bool done; /* pp_explain_plan ran on a plan (not an infeasible result) */
    double best_step_s; /* the optimum's step time */
    double model_error; /* the cost model's error: the catalog's cross-validated one, else PP_COST_MODEL_ERROR */
    long gpus;          /* the problem's GPU count */
    pp_cons_view view;  /* what the families' descriptions read (resolve is NULL after the analysis) */
    int n_families;
    pp_family_report families[8];
    int n_runner_ups;
    pp_runner_up_report *runner_ups;   /* owned, parallel to the result's runner_ups */
    pp_runner_up_report best;          /* headroom and tricks of the optimum (gap 0) */
    int n_ties;                        /* runner-ups within the model's error */
    int tie_most_room;                 /* among the optimum and its ties: rank (2..) of the one with the most
                                          headroom beyond the optimum's, 0 if the optimum */
    int tie_fewest_tricks;             /* ... and of the one with the fewest tricks, 0 if the optimum */
    int recommended;                   /* the safe choice among the optimum and its ties: the most memory
                                          headroom, then the fewest tricks; rank (2..) of a runner-up, or 0
                                          for the optimum itself */
    bool have_simplest;
    pp_counterfactual simplest;        /* the fastest plan without interleaving or compression */
    pp_runner_up_report simplest_report;
    pp_schedule schedule;
    pp_baseline_report baseline;
    int n_speedups;                    /* counterfactuals that make the step faster, best first */
    const pp_counterfactual *speedups[16];
} pp_explanation;

typedef struct pp_explain_options {
    bool counterfactuals;     /* re-solve to price relaxations (default true) */
    const pp_plan *baseline;  /* a plan to compare with, or NULL */
    const char *baseline_label;
} pp_explain_options;

void pp_explain_options_init(pp_explain_options *o);

/* Fill ex for a result of pp_plan_solve (solve: the options it ran with;
 * cat: the catalog, for GPU sizes; may be NULL).  An infeasible result gets
 * only the baseline.  Returns PP_OK or PP_EINTERNAL (out of memory); a
 * re-solve that fails is recorded in its counterfactual, not returned. */
int pp_explain_plan(const pp_problem *prob, const pp_catalog *cat, const pp_plan_options *solve,
                    const pp_plan_result *res, const pp_explain_options *opt, pp_explanation *ex, pp_error *err);
void pp_explanation_free(pp_explanation *ex);

/* Compare a priced plan with the optimum part by part (what a runner-up
 * report holds); its tricks count a lossy quantizer twice (explain.c). */
void pp_compare_with_best(const pp_problem *prob, const pp_candidate *best, const pp_candidate *cand,
                          double model_error, pp_runner_up_report *r);

#endif
