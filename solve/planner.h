/*
 * planner.h: find the best plan of a problem, with proof.
 *
 * pp_plan_solve() builds the MIP (formulate/mip/mip.h), solves it with GLPK,
 * decodes the optimum into a plan, re-prices it with the cost model (a
 * mismatch is an internal error) and fills a certificate.  Shapes that a
 * lower bound proves worse than a known plan are left out of the MIP
 * (screening, mip.h); the certificate counts them.  With method "enumerate"
 * it instead prices every plan of the same decision space (space.h): the
 * reference the MIP is tested against.
 *
 * Returns PP_OK (status optimal or time_limit), PP_EINFEASIBLE (status
 * infeasible, infeasible_reason says which limit blocks every plan and by
 * how much), PP_EINPUT (no cluster to plan for) or PP_EINTERNAL (GLPK
 * failed, found nothing within the time limit, or disagrees with the cost
 * model; err says which).  The result must be freed with
 * pp_plan_result_free whatever the return code.
 */
#ifndef PARPLAN_PLANNER_H
#define PARPLAN_PLANNER_H

#include "costmodel.h"
#include "types.h"

typedef enum { PP_METHOD_MILP = 0, PP_METHOD_ENUMERATE } pp_method;

typedef struct pp_plan_options {
    pp_method method;
    double time_limit_s;   /* 0 = none (GLPK still gets a generous cap) */
    int top_k;             /* runner-up plans to list */
    const char *export_lp;  /* write the MIP in CPLEX LP format, or NULL */
    const char *export_mps; /* write the MIP in free MPS format, or NULL; both hold the whole
                               space (no screening), so another solver checks every plan */
    unsigned relax;         /* constraint families to leave out (cons.h, pp_cons_bit): counterfactuals */
    bool full_model;        /* solve the whole space, no screening by bounds (slow; for checking) */
    long node_limit;        /* branch-and-bound nodes per GLPK solve, 0 = PP_DEFAULT_NODE_LIMIT; reaching
                               it stops the search like the time limit (status time_limit, with the gap) */
    bool catch_interrupt;   /* SIGINT stops the search with the best plan so far (default true); false
                               when solves run on several threads (capacity), where Ctrl-C ends the run */
    struct pp_price_cache *prices; /* terms priced by earlier solves of a problem with the same prices
                               (mip_cache.h: the explanation's re-solves), owned by the caller; NULL: none */
    bool count_screened;    /* the certificate's shapes_screened apart from shapes without a plan (default
                               true: a shape screened by its bound alone is checked for a plan that fits
                               memory); false skips that check, for solves whose certificate nobody reads
                               (capacity's sweep): the same plans, a screened count that may include shapes
                               without one, and after a stopped search a best bound that may be lower */
} pp_plan_options;

#define PP_DEFAULT_NODE_LIMIT 200000L /* every solve has one, as it has a time limit */
#define PP_MAX_ENUMERATED_PLANS 1e8  /* --method enumerate refuses larger decision spaces */

void pp_plan_options_init(pp_plan_options *o);

typedef struct pp_certificate {
    char method[16];   /* "milp" or "enumerate" */
    char solver[32];   /* "GLPK 5.0" */
    double objective_s;
    double best_bound_s;
    double gap;             /* relative */
    double lp_relaxation_s; /* root LP value */
    long nodes;             /* branch-and-bound nodes (milp) */
    long plans_evaluated;   /* enumerate */
    double decision_space;  /* plans in the space (space.h); memory, accuracy, bandwidth cut some */
    int rows, cols, binaries; /* of the MIP solved (after screening) */
    long shapes_screened;     /* shapes left out of the MIP: their lower bound is above a known plan */
    double time_units_per_s;  /* the MIP counts time in 1/time_units_per_s s (so do exports) */
    double solve_time_s;      /* wall time of pp_plan_solve, writing exports excluded */
} pp_certificate;

typedef struct pp_plan_result {
    pp_status status;
    pp_candidate best;
    int n_runner_ups;
    pp_candidate *runner_ups; /* owned */
    pp_certificate cert;
    char infeasible_reason[1024];
} pp_plan_result;

int pp_plan_solve(const pp_problem *prob, const pp_plan_options *opt, pp_plan_result *res, pp_error *err);
void pp_plan_result_free(pp_plan_result *res);

const char *pp_status_name(pp_status s);

#endif
