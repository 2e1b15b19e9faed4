/*
 * explain.h: why the optimal plan is what it is, in numbers a report can
 * print.
 *
 * pp_explain_plan() takes a solved problem and works out what the report of
 * `plan` says beyond the plan itself:
 *
 *   - for every constraint family (cons.h): its rows at the optimum with
 *     their slack, and what relaxing it is worth, found by SOLVING AGAIN with
 *     the limit changed (memory: the family dropped, 16 GiB more per GPU, the
 *     next GPU size of the catalog; accuracy: every tolerance lifted;
 *     bandwidth: the family dropped, twice the network, twice NVLink; GPU
 *     count: the nearest node counts above and below that admit a plan;
 *     divisibility: which rules cut how much of the space);
 *   - for every runner-up: its gap, whether it ties with the optimum within
 *     the cost model's measured error, and the part of the step time that
 *     makes it lose, with the decisions that differ;
 *   - the fastest plan without interleaving or compression, for a reader who
 *     prefers fewer tricks;
 *   - the pipeline schedule (schedule.h);
 *   - an optional baseline plan (e.g. a published one), priced and compared;
 *   - the catalog constants the prediction rests on, each with its source.
 *
 * Sentences are plain text (no Markdown): the report escapes them like any
 * other string, and the JSON carries them as they are.  Everything here is a
 * pure function of the inputs, so reports stay byte-identical between runs.
 */
#ifndef PARPLAN_EXPLAIN_H
#define PARPLAN_EXPLAIN_H

#include "cons.h"
#include "planner.h"
#include "problem.h"
#include "schedule.h"

/* The cost model's measured error: plans closer than this to the optimum are
 * ties.  5 % is the step-time mean absolute percentage error of the A100
 * calibration groups in docs/calibration.md ("Accuracy": 4.7 % to 7.5 % per
 * source group, 5.7 % over the 108 MosaicML rows); a prediction cannot rank
 * two plans that close. */
#define PP_COST_MODEL_ERROR 0.05

#define PP_MEMORY_STEP_GIB 16.0 /* the memory counterfactual: this much more per GPU */
#define PP_LINK_FACTOR 2.0      /* the bandwidth counterfactuals: links this much faster */

/* One re-solve with one limit changed. */
typedef struct pp_counterfactual {
    char key[48];     /* what changed, for tools: "memory_gib=96" */
    char what[256];   /* in words: "96 GiB per GPU instead of 80" */
    pp_status status; /* optimal, time_limit or infeasible */
    pp_candidate best;  /* its optimum (status optimal or time_limit) */
    double gain;        /* (step now - step then) / step now: > 0 is faster */
    double gpus;        /* GPUs of the changed problem */
    char reason[1100];  /* why nothing was found (infeasible, or an error) */
} pp_counterfactual;

#define PP_EXPLAIN_MAX_CF 4
#define PP_EXPLAIN_MAX_CUTS 8

/* One rule of the divisibility family and how much of the space it cuts. */
typedef struct pp_rule_cut {
    char rule[96];
    long combinations;
} pp_rule_cut;

/* One constraint family at the optimum. */
typedef struct pp_family_report {
    const pp_cons_family *family;
    int n_rows;
    pp_cons_row rows[PP_CONS_MAX_ROWS];
    int tightest; /* the inequality row with the least slack, -1 if none */
    bool tight;   /* a row holds with equality (always, for an equality row) */
    bool binds;   /* relaxing the family makes the optimum faster */
    int n_cf;
    pp_counterfactual cf[PP_EXPLAIN_MAX_CF];
    char verdict[2048]; /* plain sentences: "Memory binds. With 96 GiB ..." */
} pp_family_report;

/* One runner-up against the optimum. */
typedef struct pp_runner_up_report {
    double gap;          /* (step - best) / best */
    bool tie;            /* gap within PP_COST_MODEL_ERROR */
    const char *part;    /* the part of the step time it loses most on: "pipeline bubble" */
    const char *part_key;/* its key in time_s: "bubble" */
    double delta_s;      /* how much longer that part is */
    char changes[256];   /* the decisions that differ: "virtual_stages=3 instead of 4" */
    char why[512];       /* the sentence: "pipeline bubble +0.035 s (virtual_stages=3 instead of 4)" */
    double headroom_gib; /* usable memory left on the most loaded GPU */
    int tricks;          /* interleaving, compressed dimensions, recomputation (selective 1, full 2) */
    char tricks_text[160];
} pp_runner_up_report;

/* The plan a user compares against (--baseline). */
typedef struct pp_baseline_report {
    bool present;
    char label[256]; /* where it came from, e.g. its file name */
    pp_plan plan;
    bool valid;          /* obeys the rules (rules.h), so it could be priced */
    pp_eval eval;
    bool feasible;       /* also satisfies every constraint family */
    char problem_text[1100]; /* why it is not valid or not feasible */
    double speedup;      /* baseline step / optimal step */
    double time_saved;   /* (baseline - optimal) / baseline */
} pp_baseline_report;

/* A constant of the catalog (or a default of the tool) the prediction uses. */
typedef struct pp_constant {
    char name[80];
    char value[64];
    char source[2048];
} pp_constant;

#define PP_EXPLAIN_MAX_CONSTANTS 40

typedef struct pp_explanation {
    bool done; /* pp_explain_plan ran on a plan (not an infeasible result) */
    double best_step_s; /* the optimum's step time */
    long gpus;          /* the problem's GPU count */
    int n_families;
    pp_family_report families[8];
    int n_cuts;                        /* divisibility: the rules that cut */
    pp_rule_cut cuts[PP_EXPLAIN_MAX_CUTS];
    long combinations, combinations_valid; /* degree combinations that use every GPU, and those valid */
    int n_runner_ups;
    pp_runner_up_report *runner_ups;   /* owned, parallel to the result's runner_ups */
    pp_runner_up_report best;          /* headroom and tricks of the optimum (gap 0) */
    int n_ties;                        /* runner-ups within the model's error */
    char ties_text[1024];              /* which tie leaves more memory or needs fewer tricks */
    bool have_simplest;
    pp_counterfactual simplest;        /* the fastest plan without interleaving or compression */
    pp_runner_up_report simplest_report;
    pp_schedule schedule;
    pp_baseline_report baseline;
    int n_constants;
    pp_constant constants[PP_EXPLAIN_MAX_CONSTANTS];
    char limits_text[1024];            /* what limits the plan, one or two sentences */
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
 * cat: the catalog, for sources and GPU sizes; may be NULL).  An infeasible
 * result gets only the baseline.  Returns PP_OK or PP_EINTERNAL (out of
 * memory); a re-solve that fails is recorded in its counterfactual, not
 * returned. */
int pp_explain_plan(const pp_problem *prob, const pp_catalog *cat, const pp_plan_options *solve,
                    const pp_plan_result *res, const pp_explain_options *opt, pp_explanation *ex, pp_error *err);
void pp_explanation_free(pp_explanation *ex);

/* The eight parts of a step time, in the order the report lists them. */
typedef enum {
    PP_PART_COMPUTE = 0, PP_PART_BUBBLE, PP_PART_TP_COMM, PP_PART_CP_COMM, PP_PART_PP_COMM, PP_PART_DP_COMM,
    PP_PART_COMPRESSION, PP_PART_OPTIMIZER, PP_PART_COUNT
} pp_part;

double pp_part_s(const pp_time *t, pp_part part);
const char *pp_part_name(pp_part part); /* "pipeline bubble" */
const char *pp_part_key(pp_part part);  /* "bubble", as in the result JSON */

/* The decisions in which b differs from a, as "pp=16 instead of 8, ..."
 * ("" if none). */
void pp_plan_changes(const pp_problem *prob, const pp_plan *b, const pp_plan *a, char *buf, size_t cap);

/* The plan as Megatron-LM command-line flags, one group of related flags
 * per entry ("--tensor-model-parallel-size 4"); returns how many. */
#define PP_MAX_FLAG_LINES 24
int pp_megatron_flags(const pp_problem *prob, const pp_plan *plan, char lines[][160], int max);

/* The plan in one line, plain text: "tp=4 pp=8 dp=32 ..." (as report_md's
 * plan line, unescaped). */
void pp_plan_text(const pp_problem *prob, const pp_plan *plan, char *buf, size_t cap);

#endif
