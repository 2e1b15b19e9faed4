/*
 * planner.c: find the best plan of a problem, with proof (see planner.h).
 *
 * The MIP path: build the space (space.h) and the MIP (mip.h), solve it with
 * GLPK's branch and bound (presolve on, time limit, a callback that records
 * nodes, the root LP and the best bound), decode the optimum, re-price it
 * with the cost model and refuse to answer if the two disagree.  --top K adds
 * a no-good cut for each plan found and solves again.
 *
 * GLPK is kept on a short leash: its terminal output goes to a buffer (never
 * to the user's terminal), and a GLPK error, which would abort the process,
 * jumps back here instead; the environment is then freed and the caller gets
 * PP_EINTERNAL.  Every search has a time limit (--time-limit, else
 * DEFAULT_TIME_CAP_S), a node limit (pp_plan_options.node_limit) and, for
 * the plain LP, an iteration limit; SIGINT (Ctrl-C) during a solve stops it
 * too.  A search stopped any of these ways with a plan in hand reports
 * status time_limit with the gap, never optimal.  Each solve frees GLPK's environment when it ends, so nothing
 * of GLPK outlives pp_plan_solve (the planner is its only user).
 *
 * GLPK accepts a solution that breaks a row by up to its feasibility
 * tolerance (1e-7).  Every solution is therefore checked against the rules
 * and the constraint families with the cost model's own numbers; one that
 * breaks a limit by a hair is cut off and the MIP solved again, so the MIP
 * and the enumerator answer the same question exactly.
 */
#include "planner.h"

#include "mip_cache.h"

#include "fileio.h"
#include "cons.h"
#include "enumerate.h"
#include "error.h"
#include "mip.h"
#include "problem.h"
#include "rules.h"
#include "space.h"

#include <glpk.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_TIME_CAP_S 600.0 /* GLPK's cap when the user sets no time limit */
#define OBJECTIVE_REL_TOL 1e-9   /* MIP objective vs the cost model */
#define MAX_HAIR_CUTS 1000       /* solutions cut for breaking a limit within GLPK's tolerance */
#define LP_ITERATION_LIMIT 1000000 /* simplex iterations of the plain LP relaxation */

void pp_plan_options_init(pp_plan_options *o)
{
    memset(o, 0, sizeof *o);
    o->method = PP_METHOD_MILP;
    o->time_limit_s = 0.0;
    o->top_k = 0;
    o->export_lp = NULL;
    o->export_mps = NULL;
    o->relax = 0;
    o->full_model = false;
    o->node_limit = PP_DEFAULT_NODE_LIMIT;
    o->catch_interrupt = true;
    o->prices = NULL;
    o->count_screened = true;
}

const char *pp_status_name(pp_status s)
{
    switch (s) {
    case PP_STATUS_OPTIMAL: return "optimal";
    case PP_STATUS_TIME_LIMIT: return "time_limit";
    case PP_STATUS_INFEASIBLE: return "infeasible";
    case PP_STATUS_EVALUATED: return "evaluated";
    }
    return "unknown";
}

void pp_plan_result_free(pp_plan_result *res)
{
    free(res->runner_ups);
    res->runner_ups = NULL;
    res->n_runner_ups = 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- one run of GLPK ------------------------------------------------------ */

typedef struct glpk_run {
    jmp_buf jump;
    char log[4096]; /* tail of GLPK's terminal output */
    size_t log_len;
    /* statistics from the callback: nodes of every glp_intopt so far and of
     * the current one, the best bound of the current one, the first root LP */
    long nodes, solve_nodes;
    bool have_bound, have_root;
    double bound_s, root_lp_s;
    /* the task */
    const pp_problem *prob;
    const pp_space *space;
    const pp_plan_options *opt;
    pp_plan_result *res;
    pp_error *err;
    pp_mip mip;
    pp_mip full; /* the unscreened model, while it is exported */
    double deadline;
    double export_s; /* time spent writing exports (not solving) */
    long node_limit;
    bool stopped_by_nodes; /* the node limit (not the clock) ended a solve */
} glpk_run;

/* Set by SIGINT while GLPK runs; the tree callback then stops the search. */
static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

static int on_term(void *info, const char *s)
{
    glpk_run *r = info;
    size_t n = strlen(s), cap = sizeof r->log - 1;
    if (n > cap) {
        s += n - cap;
        n = cap;
    }
    if (r->log_len + n > cap) { /* keep the tail */
        size_t drop = r->log_len + n - cap;
        memmove(r->log, r->log + drop, r->log_len - drop);
        r->log_len -= drop;
    }
    memcpy(r->log + r->log_len, s, n);
    r->log_len += n;
    r->log[r->log_len] = '\0';
    return 1; /* never printed */
}

static void on_error(void *info)
{
    glpk_run *r = info;
    longjmp(r->jump, 1);
}

/* The last two lines of GLPK's output, joined, for error messages (an error
 * is the message and then the source line that raised it). */
static const char *last_line(glpk_run *r)
{
    while (r->log_len > 0 && (r->log[r->log_len - 1] == '\n' || r->log[r->log_len - 1] == '\r'))
        r->log[--r->log_len] = '\0';
    if (r->log_len == 0)
        return "(no message)";
    char *start = r->log;
    for (int lines = 0, i = (int)r->log_len - 1; i >= 0; i--)
        if (r->log[i] == '\n' && ++lines == 2) {
            start = r->log + i + 1;
            break;
        }
    for (char *p = start; *p; p++)
        if (*p == '\n')
            *p = ' ';
    return start;
}

static void on_tree(glp_tree *tree, void *info)
{
    glpk_run *r = info;
    int active, alive, total;
    glp_ios_tree_size(tree, &active, &alive, &total);
    if (total > r->solve_nodes)
        r->solve_nodes = total;
    if (interrupted || total >= r->node_limit) {
        r->stopped_by_nodes = !interrupted;
        glp_ios_terminate(tree); /* glp_intopt returns GLP_ESTOP, keeping the incumbent */
    }
    int best = glp_ios_best_node(tree);
    if (best) {
        r->bound_s = glp_ios_node_bound(tree, best) / r->mip.units_per_s;
        r->have_bound = true;
    }
    int reason = glp_ios_reason(tree), cur = glp_ios_curr_node(tree);
    if (!r->have_root && cur && glp_ios_node_level(tree, cur) == 0 &&
        (reason == GLP_IROWGEN || reason == GLP_IHEUR || reason == GLP_ICUTGEN || reason == GLP_IBRANCH ||
         reason == GLP_IBINGO)) {
        glp_prob *lp = glp_ios_get_prob(tree);
        if (glp_get_status(lp) == GLP_OPT) {
            r->root_lp_s = glp_get_obj_val(lp) / r->mip.units_per_s;
            r->have_root = true;
        }
    }
}

typedef enum {
    SOLVED_OPTIMAL,
    SOLVED_TIME_LIMIT,      /* an incumbent, no proof */
    SOLVED_INFEASIBLE,
    SOLVED_NOTHING_IN_TIME, /* the time limit came before any incumbent */
    SOLVED_FAILED
} outcome;

static outcome solve_once(glpk_run *r)
{
    double left_s = r->deadline - now_s();
    if (left_s <= 0.0)
        return SOLVED_NOTHING_IN_TIME;
    glp_iocp parm;
    glp_init_iocp(&parm);
    parm.msg_lev = GLP_MSG_ERR;
    parm.presolve = GLP_ON;
    parm.tol_obj = 1e-12; /* prune a node only if it cannot improve by 1e-12 relative */
    parm.cb_func = on_tree;
    parm.cb_info = r;
    parm.tm_lim = left_s * 1000.0 >= INT_MAX ? INT_MAX : (int)ceil(left_s * 1000.0);
    r->solve_nodes = 0;
    r->have_bound = false;
    int rc = glp_intopt(r->mip.lp, &parm);
    r->nodes += r->solve_nodes;
    int status = glp_mip_status(r->mip.lp);
    if (rc == 0 && status == GLP_OPT)
        return SOLVED_OPTIMAL;
    if (rc == GLP_ENOPFS || (rc == 0 && status == GLP_NOFEAS))
        return SOLVED_INFEASIBLE;
    if (rc == GLP_ETMLIM || rc == GLP_ESTOP) /* out of time, nodes, or interrupted */
        return status == GLP_FEAS ? SOLVED_TIME_LIMIT : SOLVED_NOTHING_IN_TIME;
    return SOLVED_FAILED;
}

/* Solve until GLPK's answer is a plan the cost model accepts too. */
static outcome solve_checked(glpk_run *r, pp_mip_choice *ch, pp_candidate *cand, double *objective_s, int *rc)
{
    *rc = PP_OK;
    for (int cuts = 0;; cuts++) {
        outcome o = solve_once(r);
        if (o != SOLVED_OPTIMAL && o != SOLVED_TIME_LIMIT)
            return o;
        if ((*rc = pp_mip_decode(&r->mip, ch, &cand->plan, r->err)) != PP_OK)
            return SOLVED_FAILED;
        *objective_s = glp_mip_obj_val(r->mip.lp) / r->mip.units_per_s;
        pp_evaluate(r->prob, &cand->plan, &cand->eval);
        if (pp_plan_check(r->prob, &cand->plan, NULL) == PP_OK &&
            pp_cons_plan_feasible(r->prob, &cand->plan, &cand->eval, r->opt->relax, NULL))
            return o;
        if (cuts >= MAX_HAIR_CUTS) {
            *rc = pp_error_set(r->err, PP_EINTERNAL, "",
                               "internal error: GLPK keeps returning plans that break a limit of the cost model");
            return SOLVED_FAILED;
        }
        pp_mip_add_nogood(&r->mip, ch);
    }
}

/* The MIP's objective must be the cost model's step time of the decoded
 * plan.  A time-limited incumbent may carry slack in the epigraphs (a
 * rounding heuristic sets them), so there it may only be above. */
static int check_objective(glpk_run *r, const pp_plan *plan, double objective_s, outcome o)
{
    double model_s = pp_step_time_s(r->prob, plan);
    double diff = objective_s - model_s;
    if (fabs(diff) <= OBJECTIVE_REL_TOL * fabs(model_s) || (o == SOLVED_TIME_LIMIT && diff > 0))
        return PP_OK;
    return pp_error_set(r->err, PP_EINTERNAL, "",
                        "internal error: MIP objective %.17g s differs from the cost model's %.17g s", objective_s,
                        model_s);
}

/* rc if a check already failed with a message, else GLPK's own failure. */
static int glpk_failed(glpk_run *r, int rc)
{
    return rc ? rc : pp_error_set(r->err, PP_EINTERNAL, "", "internal error: GLPK failed: %s", last_line(r));
}

static int infeasible(glpk_run *r)
{
    pp_plan_result *res = r->res;
    res->status = PP_STATUS_INFEASIBLE;
    pp_cons_diagnose(r->prob, r->space, r->opt->relax, res->infeasible_reason, sizeof res->infeasible_reason);
    return pp_error_set(r->err, PP_EINFEASIBLE, "", "%s", res->infeasible_reason);
}

/* Write r->full in CPLEX LP or free MPS format to path, whole or not at all
 * (through a temporary file beside it, as every output of parplan). */
static int export_file(glpk_run *r, const char *path, bool mps)
{
    char tmp[4096];
    int rc = pp_output_begin(path, tmp, sizeof tmp, r->err);
    if (rc)
        return rc;
    bool ok = (mps ? glp_write_mps(r->full.lp, GLP_MPS_FILE, NULL, tmp) : glp_write_lp(r->full.lp, NULL, tmp)) == 0;
    if (!ok)
        rc = pp_error_set(r->err, PP_EINTERNAL, path, "cannot write the MIP in %s format: %s",
                          mps ? "free MPS" : "CPLEX LP", last_line(r));
    int committed = pp_output_commit(path, tmp, ok, r->err);
    return rc ? rc : committed;
}

/* Write the MIP of the whole space (no screening): another solver then
 * checks the optimum over every plan, screening included. */
static int export_model(glpk_run *r)
{
    const pp_plan_options *opt = r->opt;
    if (!opt->export_lp && !opt->export_mps)
        return PP_OK;
    double t0 = now_s();
    pp_mip *full = &r->full;
    pp_mip_options mo;
    pp_mip_options_init(&mo);
    mo.relax = opt->relax;
    mo.units_per_s = r->mip.units_per_s; /* the unit of the model solved */
    mo.prices = opt->prices;
    mo.count_screened = opt->count_screened;
    int rc = pp_mip_build(r->prob, r->space, &mo, full, r->err);
    if (rc == PP_OK && opt->export_lp)
        rc = export_file(r, opt->export_lp, false);
    if (rc == PP_OK && opt->export_mps)
        rc = export_file(r, opt->export_mps, true);
    pp_mip_free(full);
    r->export_s = now_s() - t0;
    r->deadline += r->export_s;
    return rc;
}

/* The root LP when the callback did not see it (presolve solved the MIP):
 * solve the relaxation of the model (with any cut added so far). */
static double lp_relaxation_s(glpk_run *r)
{
    double left_s = r->deadline - now_s();
    if (left_s <= 0.0)
        return NAN;
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_ERR;
    parm.presolve = GLP_ON;
    parm.it_lim = LP_ITERATION_LIMIT;
    parm.tm_lim = left_s * 1000.0 >= INT_MAX ? INT_MAX : (int)ceil(left_s * 1000.0);
    if (glp_simplex(r->mip.lp, &parm) == 0 && glp_get_status(r->mip.lp) == GLP_OPT)
        return glp_get_obj_val(r->mip.lp) / r->mip.units_per_s;
    return NAN;
}

static int add_runner_ups(glpk_run *r, pp_mip_choice last)
{
    pp_plan_result *res = r->res;
    if (r->opt->top_k <= 0)
        return PP_OK;
    res->runner_ups = calloc((size_t)r->opt->top_k, sizeof *res->runner_ups);
    if (!res->runner_ups)
        return pp_error_set(r->err, PP_EINTERNAL, "", "out of memory");
    for (int k = 0; k < r->opt->top_k; k++) {
        pp_mip_add_nogood(&r->mip, &last);
        pp_candidate cand;
        double objective_s;
        int rc;
        outcome o = solve_checked(r, &last, &cand, &objective_s, &rc);
        if (o == SOLVED_FAILED)
            return glpk_failed(r, rc);
        if (o != SOLVED_OPTIMAL) /* no more plans, or no proof in time: list only proven ones */
            break;
        if ((rc = check_objective(r, &cand.plan, objective_s, o)) != PP_OK)
            return rc;
        res->runner_ups[res->n_runner_ups++] = cand;
    }
    return PP_OK;
}

static int milp_body(glpk_run *r)
{
    pp_plan_result *res = r->res;
    pp_certificate *cert = &res->cert;
    pp_mip_options mo;
    pp_mip_options_init(&mo);
    mo.relax = r->opt->relax;
    mo.keep = r->opt->full_model ? 0 : 1 + (r->opt->top_k > 0 ? r->opt->top_k : 0);
    mo.prices = r->opt->prices;
    mo.count_screened = r->opt->count_screened;
    int rc = pp_mip_build(r->prob, r->space, &mo, &r->mip, r->err);
    if (rc)
        return rc;
    cert->shapes_screened = r->mip.n_screened;
    cert->time_units_per_s = r->mip.units_per_s;
    cert->rows = glp_get_num_rows(r->mip.lp);
    cert->cols = glp_get_num_cols(r->mip.lp);
    cert->binaries = glp_get_num_bin(r->mip.lp);
    if ((rc = export_model(r)) != PP_OK)
        return rc;
    if (r->mip.n_live_shapes == 0)
        return infeasible(r);

    pp_mip_choice choice;
    double objective_s = 0.0;
    outcome o = solve_checked(r, &choice, &res->best, &objective_s, &rc);
    cert->nodes = r->nodes;
    switch (o) {
    case SOLVED_INFEASIBLE: return infeasible(r);
    case SOLVED_NOTHING_IN_TIME:
        if (interrupted)
            return pp_error_set(r->err, PP_EINTERNAL, "", "interrupted before GLPK found any plan");
        if (r->stopped_by_nodes)
            return pp_error_set(r->err, PP_EINTERNAL, "",
                                "node limit: GLPK found no plan within %ld branch-and-bound nodes", r->node_limit);
        return pp_error_set(r->err, PP_EINTERNAL, "",
                            "time limit: GLPK found no plan within %g s; raise --time-limit",
                            r->opt->time_limit_s > 0 ? r->opt->time_limit_s : DEFAULT_TIME_CAP_S);
    case SOLVED_FAILED:
        return glpk_failed(r, rc);
    default: break;
    }
    if ((rc = check_objective(r, &res->best.plan, objective_s, o)) != PP_OK)
        return rc;

    res->status = o == SOLVED_OPTIMAL ? PP_STATUS_OPTIMAL : PP_STATUS_TIME_LIMIT;
    cert->objective_s = objective_s;
    if (o == SOLVED_OPTIMAL)
        cert->best_bound_s = objective_s;
    else
        cert->best_bound_s = fmin(r->have_bound ? fmin(r->bound_s, objective_s) : r->have_root ? r->root_lp_s : 0.0,
                                  pp_mip_screened_lb(&r->mip));
    cert->gap = objective_s > 0 ? (objective_s - cert->best_bound_s) / objective_s : 0.0;
    cert->lp_relaxation_s = r->have_root ? r->root_lp_s : lp_relaxation_s(r);
    if (o == SOLVED_OPTIMAL)
        return add_runner_ups(r, choice);
    return PP_OK;
}

static int solve_milp(const pp_problem *prob, const pp_space *space, const pp_plan_options *opt,
                      pp_plan_result *res, pp_error *err)
{
    snprintf(res->cert.method, sizeof res->cert.method, "milp");
    snprintf(res->cert.solver, sizeof res->cert.solver, "GLPK %s", glp_version());
    glpk_run *r = calloc(1, sizeof *r);
    if (!r)
        return pp_error_set(err, PP_EINTERNAL, "", "out of memory");
    r->prob = prob;
    r->space = space;
    r->opt = opt;
    r->res = res;
    r->err = err;
    double limit_s = opt->time_limit_s > 0 ? opt->time_limit_s : DEFAULT_TIME_CAP_S;
    r->deadline = now_s() + limit_s;
    r->node_limit = opt->node_limit > 0 ? opt->node_limit : PP_DEFAULT_NODE_LIMIT;

    /* Ctrl-C stops this search and every later one of the run (they end at
     * their first node with what they have); a second Ctrl-C ends the
     * process as usual. */
    struct sigaction on_int, saved_int;
    memset(&on_int, 0, sizeof on_int);
    on_int.sa_handler = on_sigint;
    on_int.sa_flags = SA_RESETHAND;
    sigemptyset(&on_int.sa_mask);
    bool catch_int = opt->catch_interrupt && !interrupted && sigaction(SIGINT, &on_int, &saved_int) == 0;
    glp_term_hook(on_term, r);
    glp_error_hook(on_error, r);
    int rc;
    if (setjmp(r->jump) == 0) {
        rc = milp_body(r);
    } else {
        /* GLPK failed; the model is freed with its environment below. */
        r->mip.lp = NULL;
        r->full.lp = NULL;
        rc = pp_error_set(err, PP_EINTERNAL, "", "internal error: GLPK failed: %s", last_line(r));
    }
    pp_mip_free(&r->mip);
    pp_mip_free(&r->full);
    glp_free_env();
    if (catch_int && !interrupted)
        sigaction(SIGINT, &saved_int, NULL);
    res->cert.solve_time_s = -r->export_s; /* pp_plan_solve adds the wall time */
    free(r);
    return rc;
}

/* ---- entry point ------------------------------------------------------------ */

int pp_plan_solve(const pp_problem *problem, const pp_plan_options *options, pp_plan_result *res, pp_error *err)
{
    double t0 = now_s();
    memset(res, 0, sizeof *res);
    pp_plan_options defaults;
    pp_plan_options_init(&defaults);
    const pp_plan_options *opt = options ? options : &defaults;

    /* A dropped family may loosen the problem too, for the plan rules to
     * see (accuracy: the codec tolerances that rules.c checks). */
    pp_problem *loosened = NULL;
    if (opt->relax) {
        if (!(loosened = malloc(sizeof *loosened)))
            return pp_error_set(err, PP_EINTERNAL, "", "out of memory");
        *loosened = *problem;
        pp_cons_loosen(loosened, opt->relax);
    }
    const pp_problem *prob = loosened ? loosened : problem;

    if (!prob->has_cluster || pp_problem_gpus(prob) <= 0) {
        free(loosened);
        return pp_error_set(err, PP_EINPUT, "$.cluster",
                            "planning needs a cluster (GPU kind, nodes); a problem with only a capacity section "
                            "is for `parplan capacity`");
    }
    /* the space of an earlier solve of the same space problem (the
     * explanation's re-solves), else built and kept for the next */
    pp_space built;
    const pp_space *space = pp_price_cache_space(opt->prices, prob);
    bool own = false;
    int rc = PP_OK;
    if (!space) {
        rc = pp_space_build(prob, &built, err);
        own = rc != PP_OK || !pp_price_cache_keep_space(opt->prices, prob, &built);
        space = own ? &built : pp_price_cache_space(opt->prices, prob);
    }
    if (rc == PP_OK) {
        res->cert.decision_space = space->decision_space;
        if (opt->method == PP_METHOD_ENUMERATE && space->decision_space > PP_MAX_ENUMERATED_PLANS)
            rc = pp_error_set(err, PP_EINPUT, "",
                              "--method enumerate: the decision space holds %.3g plans, more than the %.0e it "
                              "prices in reasonable time; use --method milp, or list fewer values in search",
                              space->decision_space, PP_MAX_ENUMERATED_PLANS);
        else if (opt->method == PP_METHOD_ENUMERATE)
            rc = pp_enumerate(prob, space, opt, res, err);
        else if (space->n_shapes == 0) {
            snprintf(res->cert.method, sizeof res->cert.method, "milp");
            res->status = PP_STATUS_INFEASIBLE;
            pp_cons_diagnose(prob, space, opt->relax, res->infeasible_reason, sizeof res->infeasible_reason);
            rc = pp_error_set(err, PP_EINFEASIBLE, "", "%s", res->infeasible_reason);
        } else
            rc = solve_milp(prob, space, opt, res, err);
    }
    if (own)
        pp_space_free(&built);
    free(loosened);
    if (rc != PP_OK && rc != PP_EINFEASIBLE)
        pp_plan_result_free(res);
    res->cert.solve_time_s += now_s() - t0;
    return rc;
}
