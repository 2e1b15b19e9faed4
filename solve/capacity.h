/*
 * capacity.h: capacity planning: which GPU kind, how many nodes, and the
 * parallel plan on them, to train a token budget at least cost, in least
 * time, or on fewest GPUs, within a deadline, a budget or a GPU cap.
 *
 * The GPU kind k and the node count n are decisions beside the plan x.  They
 * are solved by decomposition: every cluster c = (k, n) of the problem's
 * capacity section is an ordinary planning problem, and the planner
 * (planner.h) finds its fastest plan x*_c with proof.  For a fixed cluster,
 * the time to train, the GPU-hours and the cost are all the step time times
 * a positive constant of the cluster:
 *
 *   steps      = tokens / (global_batch * seq_len)          (same for every cluster)
 *   days(c, x) = steps * step_time(c, x) / 86400
 *   cost(c, x) = gpus(c) * usd_per_gpu_hour(k) * steps * step_time(c, x) / 3600
 *
 * so x*_c minimizes every objective on c, and if any plan of c meets the
 * deadline or the budget, x*_c does.  The optimum over all (c, x) is thus the
 * best of the finitely many per-cluster optima that meet the limits: exact,
 * not a heuristic (docs/capacity.md has the proof; tests/test_capacity.c
 * checks it against brute force over every kind, node count and plan).
 * Every cluster of the range is solved, so the frontier (best time to train
 * against the number of GPUs, per GPU kind) is complete too.
 */
#ifndef PARPLAN_CAPACITY_H
#define PARPLAN_CAPACITY_H

#include "planner.h"
#include "types.h"

/* Called after each cluster of the sweep: clusters done, clusters in all,
 * seconds since the sweep began.  A threaded sweep calls it from its worker
 * threads, one call at a time, with done increasing. */
typedef void (*pp_capacity_progress_fn)(void *ctx, long done, long total, double elapsed_s);

typedef struct pp_capacity_options {
    pp_method method;                 /* per-cluster planner: milp (default) or enumerate */
    pp_capacity_progress_fn progress; /* NULL: silent */
    void *progress_ctx;
    bool skip_counterfactuals;        /* leave out the memory counterfactual (one extra solve) */
    int threads;                      /* worker threads of the sweep: 0 = one per online CPU (at most 8),
                                         1 = the calling thread only; the answer is the same either way */
    long block;                       /* clusters solved between two folds into the result (their
                                         outcomes live meanwhile): 0 = 16384; the answer is the same */
} pp_capacity_options;

void pp_capacity_options_init(pp_capacity_options *o);

/* A progress printer for the command line: silent while the sweep is under a
 * second old and whenever standard error is not a terminal; else one line,
 * rewritten in place, ended by a newline when the sweep is done. */
void pp_capacity_progress_stderr(void *ctx, long done, long total, double elapsed_s);

/* One cluster with a plan: its fastest plan and what training costs on it. */
typedef struct pp_capacity_point {
    int kind;            /* index into problem->capacity.gpus */
    long nodes, gpus;
    pp_status status;    /* of its plan: optimal (or time_limit: not proven) */
    pp_candidate best;   /* the fastest plan, priced */
    pp_certificate cert; /* how the planner proved it */
    double step_time_s;
    double time_to_train_days;
    double gpu_hours;
    double cost_usd;     /* NAN when the GPU kind has no price */
    bool pareto;         /* no cluster of the same kind has no more GPUs and no more time, one strictly */
    bool within_limits;  /* meets deadline_days, budget_usd and max_gpus */
} pp_capacity_point;

/* Clusters without any plan, grouped by the limit that rules them out (the
 * first word of the planner's reason: "memory", "divisibility", ...). */
#define PP_CAPACITY_MAX_REASONS 8
typedef struct pp_capacity_no_plan {
    char family[32];
    long clusters;
    int kind;          /* the largest such cluster (the closest to having a plan) */
    long nodes;
    char example[512]; /* the planner's reason for it */
} pp_capacity_no_plan;

/* One limit and whether it decides the answer.  A limit of the capacity
 * section binds when the best cluster without it is strictly better than the
 * answer; memory binds when the chosen cluster steps faster without it. */
typedef enum { PP_LIMIT_DEADLINE = 0, PP_LIMIT_BUDGET, PP_LIMIT_MAX_GPUS, PP_LIMIT_MEMORY, PP_LIMIT_COUNT } pp_limit_kind;

typedef struct pp_capacity_limit {
    bool given;       /* the problem sets it (memory: always) */
    double limit;     /* days, USD, GPUs, GiB per GPU */
    double at_answer; /* the answer's value of the same quantity */
    bool binding;
    int without;      /* deadline/budget/max_gpus: index into points of the best cluster without this
                         limit (-1 if none is better); memory: -1 */
    double without_step_time_s; /* memory: step time on the chosen cluster without the limit (NAN if not run) */
} pp_capacity_limit;

typedef struct pp_capacity_result {
    pp_status status;       /* optimal, time_limit (a cluster's plan not proven), infeasible */
    pp_objective objective; /* as solved: min_cost, min_time or min_gpus (min_step_time = min_time) */
    double steps;           /* optimizer steps to train the token budget */
    int n_points;
    pp_capacity_point *points; /* owned: every cluster with a plan, by GPU kind then nodes */
    int chosen;                /* index into points; -1 when infeasible */
    pp_problem *chosen_problem; /* owned: the problem with the chosen cluster filled in (NULL if none) */
    pp_plan_result plan;        /* the planner's result on the chosen cluster (no runner-ups) */
    long clusters_considered;   /* GPU kinds x node counts */
    long clusters_without_plan;
    double decision_space;      /* valid plans of the clusters with a plan, summed (space.h) */
    int n_no_plan;
    pp_capacity_no_plan no_plan[PP_CAPACITY_MAX_REASONS];
    pp_capacity_limit limits[PP_LIMIT_COUNT];
    char infeasible_reason[1024];
    double solve_time_s;        /* wall time of the sweep */
} pp_capacity_result;

/* Solve a problem with a capacity section.  Returns PP_OK (status optimal or
 * time_limit), PP_EINFEASIBLE (no cluster meets the limits;
 * infeasible_reason says which limit and by how much, and the points are
 * still filled), PP_EINPUT (no capacity section) or PP_EINTERNAL (a cluster's
 * solve failed; err names the cluster).  Free the result whatever the code. */
int pp_capacity_solve(const pp_problem *prob, const pp_capacity_options *opt, pp_capacity_result *res,
                      pp_error *err);
void pp_capacity_result_free(pp_capacity_result *res);

/* The node counts of the capacity section: how many there are, and the
 * i-th in ascending order (of the list, or of min..max). */
long pp_capacity_node_count(const pp_capacity *cap);
long pp_capacity_node_at(const pp_capacity *cap, long i);

/* The problem of one cluster: prob with the cluster set to n nodes of the
 * capacity section's GPU kind k. */
void pp_capacity_cluster_problem(const pp_problem *prob, int kind, long nodes, pp_problem *out);

/* Training figures of a step time on a cluster of `gpus` GPUs at a price
 * (0: unknown, cost NAN). */
double pp_capacity_steps(const pp_problem *prob);
void pp_capacity_training_figures(const pp_problem *prob, double step_time_s, long gpus, double usd_per_gpu_hour,
                                  double *days, double *gpu_hours, double *cost_usd);

/* The display name of GPU kind k ("H100-80GB", else its id). */
const char *pp_capacity_kind_name(const pp_problem *prob, int kind);

#endif
