/*
 * test_capacity.c: capacity planning (solve/capacity.c) and its report
 * (reports/report_capacity.c), and `parplan capacity` on the command line.
 *
 * The central check is exactness of the decomposition: on random small
 * problems (tiny models, 2 GPU kinds, 1 to 8 nodes) the answer of
 * pp_capacity_solve, which keeps only the fastest plan of each cluster, is
 * the optimum of brute force over every GPU kind, every node count and every
 * plan of the space, priced one by one, for min_cost within a deadline,
 * min_time within a budget or a GPU cap, and min_gpus within a deadline,
 * including the cases where nothing meets the limits.
 */
#define _XOPEN_SOURCE 700 /* posix_openpt, for the progress line on a terminal */

#include "capacity.h"
#include "cons.h"
#include "costmodel.h"
#include "error.h"
#include "problem.h"
#include "report_capacity.h"
#include "rules.h"
#include "space.h"
#include "testutil.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <poll.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REL_TOL 1e-9

/* ---- problems ------------------------------------------------------------ */

static pp_gpu make_gpu(const char *id, double tflops, double mem_gib, double hbm_GBps, int gpus_per_node,
                       double nvlink_GBps, double net_Gbps)
{
    pp_gpu g;
    memset(&g, 0, sizeof g);
    snprintf(g.id, sizeof g.id, "%s", id);
    snprintf(g.name, sizeof g.name, "%s", id);
    g.peak_tflops[PP_PREC_BF16] = g.peak_tflops[PP_PREC_FP16] = tflops;
    g.memory_gib = mem_gib;
    g.hbm_GBps = hbm_GBps;
    g.nvlink_GBps = nvlink_GBps;
    g.network_Gbps = net_Gbps;
    g.gpus_per_node = gpus_per_node;
    g.eff = (pp_efficiency){.gemm = 0.75, .attention = 0.5, .hbm = 0.7, .nvlink = 0.75, .network = 0.8,
                            .kernel_us = 5, .nvlink_latency_us = 5, .network_latency_us = 10, .gemm_k_overhead = 64,
                            .gemm_misaligned = 0.5};
    return g;
}

static void add_kind(pp_problem *p, pp_gpu g, double usd_per_gpu_hour)
{
    pp_capacity_gpu *c = &p->capacity.gpus[p->capacity.n_gpus++];
    c->gpu = g;
    c->gpus_per_node = g.gpus_per_node;
    c->intra_node_GBps = g.nvlink_GBps;
    c->inter_node_Gbps = g.network_Gbps;
    c->usd_per_gpu_hour = usd_per_gpu_hour;
}

/* A tiny model on two GPU kinds (a slow cheap one with 4 GPUs per node, a
 * fast dear one with 8 or 2), 1 to 8 nodes; memory small enough that the
 * smallest clusters cannot hold the model. */
static pp_problem random_capacity_problem(pp_rng *r)
{
    static const int heads[] = {4, 8}, layers[] = {2, 4, 6, 8, 12}, seqs[] = {128, 256, 512};
    static const int batches[] = {8, 12, 16, 24, 32, 48}, hidden_per_head[] = {64, 128};
    pp_problem p;
    pp_problem_init(&p);
    pp_model *m = &p.model;
    snprintf(m->name, sizeof m->name, "tiny");
    m->heads = pp_rng_pick(r, heads, 2);
    m->kv_heads = pp_rng_int(r, 0, 1) ? m->heads : m->heads / 2;
    m->hidden = m->heads * pp_rng_pick(r, hidden_per_head, 2);
    m->ffn_hidden = 4 * m->hidden;
    m->gated_mlp = pp_rng_int(r, 0, 1);
    m->layers = pp_rng_pick(r, layers, 5);
    m->vocab = pp_rng_int(r, 1000, 8000);
    m->seq_len = pp_rng_pick(r, seqs, 3);
    p.training.global_batch = pp_rng_pick(r, batches, 6);
    p.training.tokens = 1e9 * pp_rng_int(r, 1, 50);
    p.capacity.present = true;
    double mem = 2.3 + 0.1 * pp_rng_int(r, 0, 10); /* 2 GiB go to "other": 0.1 to 1.1 GiB left */
    add_kind(&p, make_gpu("slow", 100, mem, 900, 4, 100, 100), 1.0 + 0.1 * pp_rng_int(r, 0, 5));
    add_kind(&p, make_gpu("fast", 300, mem * 2, 2000, pp_rng_int(r, 0, 1) ? 8 : 2, 300, 200),
             2.0 + 0.1 * pp_rng_int(r, 0, 20));
    p.capacity.nodes_min = 1;
    p.capacity.nodes_max = 8;
    return p;
}

/* ---- brute force ----------------------------------------------------------- */

/* One feasible (cluster, plan) with its figures. */
typedef struct bf_entry {
    int kind;
    long nodes, gpus;
    double days, cost;
} bf_entry;

typedef struct bf_set {
    int n, cap;
    bf_entry *e;
    long plans_priced;
} bf_set;

static void bf_push(bf_set *s, bf_entry e)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 4096;
        s->e = realloc(s->e, (size_t)s->cap * sizeof *s->e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s->e);
    }
    s->e[s->n++] = e;
}

/* Every valid, feasible plan of every cluster, priced with the cost model. */
static void brute_force(const pp_problem *prob, bf_set *out)
{
    memset(out, 0, sizeof *out);
    pp_problem *cl = malloc(sizeof *cl);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cl);
    for (int k = 0; k < prob->capacity.n_gpus; k++)
        for (long n = prob->capacity.nodes_min; n <= prob->capacity.nodes_max; n++) {
            pp_capacity_cluster_problem(prob, k, n, cl);
            pp_space sp;
            pp_error err;
            CU_ASSERT_EQUAL_FATAL(pp_space_build(cl, &sp, &err), PP_OK);
            for (int si = 0; si < sp.n_shapes; si++) {
                const pp_shape *sh = &sp.shapes[si];
                pp_odometer o;
                pp_plan plan;
                if (!pp_odometer_start(&o, &sp, sh))
                    continue;
                do {
                    pp_odometer_plan(&o, sh, &plan);
                    if (pp_plan_check(cl, &plan, NULL) == PP_OK) {
                        pp_eval ev;
                        pp_evaluate(cl, &plan, &ev);
                        out->plans_priced++;
                        if (pp_cons_plan_feasible(cl, &plan, &ev, 0, NULL)) {
                            bf_entry e = {.kind = k, .nodes = n, .gpus = pp_problem_gpus(cl)};
                            double gpu_hours;
                            pp_capacity_training_figures(prob, ev.time.step_s, e.gpus,
                                                         prob->capacity.gpus[k].usd_per_gpu_hour, &e.days,
                                                         &gpu_hours, &e.cost);
                            bf_push(out, e);
                        }
                    }
                } while (pp_odometer_next(&o));
            }
            pp_space_free(&sp);
        }
    free(cl);
}

static bool bf_meets(const pp_capacity *cap, const bf_entry *e)
{
    return (cap->deadline_days <= 0 || e->days <= cap->deadline_days) &&
           (cap->budget_usd <= 0 || e->cost <= cap->budget_usd) && (cap->max_gpus <= 0 || e->gpus <= cap->max_gpus);
}

/* The objective's primary value of an entry. */
static double bf_value(pp_objective obj, const bf_entry *e)
{
    return obj == PP_OBJ_MIN_COST ? e->cost : obj == PP_OBJ_MIN_GPUS ? (double)e->gpus : e->days;
}

/* Least primary value over every (cluster, plan) within the limits, or NAN
 * when none is. */
static double bf_optimum(const pp_problem *prob, const bf_set *s, pp_objective obj)
{
    double best = NAN;
    for (int i = 0; i < s->n; i++)
        if (bf_meets(&prob->capacity, &s->e[i]) && !(bf_value(obj, &s->e[i]) >= best))
            best = bf_value(obj, &s->e[i]);
    return best;
}

static double point_value(pp_objective obj, const pp_capacity_point *p)
{
    return obj == PP_OBJ_MIN_COST ? p->cost_usd : obj == PP_OBJ_MIN_GPUS ? (double)p->gpus : p->time_to_train_days;
}

/* Solve with capacity and compare with the brute-force optimum. */
static void check_against(const pp_problem *prob, const bf_set *s, pp_method method, int *n_feasible,
                          int *n_infeasible)
{
    pp_capacity_options opt;
    pp_capacity_options_init(&opt);
    opt.method = method;
    opt.skip_counterfactuals = true;
    pp_capacity_result res;
    pp_error err;
    int rc = pp_capacity_solve(prob, &opt, &res, &err);
    double want = bf_optimum(prob, s, prob->objective);
    if (isnan(want)) {
        CU_ASSERT_EQUAL(rc, PP_EINFEASIBLE);
        CU_ASSERT_EQUAL(res.chosen, -1);
        CU_ASSERT(res.infeasible_reason[0] != '\0');
        (*n_infeasible)++;
    } else {
        if (rc != PP_OK)
            fprintf(stderr, "capacity returned %d (%s) where brute force finds %.17g\n", rc,
                    rc == PP_EINFEASIBLE ? res.infeasible_reason : err.msg, want);
        CU_ASSERT_EQUAL_FATAL(rc, PP_OK);
        const pp_capacity_point *p = &res.points[res.chosen];
        CU_ASSERT(pp_rel_close(point_value(prob->objective, p), want, REL_TOL));
        if (!pp_rel_close(point_value(prob->objective, p), want, REL_TOL))
            fprintf(stderr, "objective %s: capacity %.17g, brute force %.17g\n", pp_objective_name(prob->objective),
                    point_value(prob->objective, p), want);
        CU_ASSERT(p->within_limits);
        (*n_feasible)++;
    }
    pp_capacity_result_free(&res);
}

/* A value between the least and the largest of the brute-force figures
 * (the q-th quantile, roughly), so the limit cuts some plans and not others. */
static double quantile(const bf_set *s, bool cost, double q)
{
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < s->n; i++) {
        double v = cost ? s->e[i].cost : s->e[i].days;
        lo = fmin(lo, v);
        hi = fmax(hi, v);
    }
    return lo * pow(hi / lo, q);
}

static void run_exactness(pp_method method, int problems)
{
    pp_rng r = {0x5eedcafef00dULL + (unsigned)method};
    int feasible = 0, infeasible = 0, with_plans = 0;
    for (int t = 0; t < problems; t++) {
        pp_problem prob = random_capacity_problem(&r);
        bf_set s;
        brute_force(&prob, &s);
        if (s.n > 0)
            with_plans++;
        static const double qs[] = {-0.5, 0.0, 0.1, 0.4, 0.8, 1.5};
        for (size_t qi = 0; qi < sizeof qs / sizeof qs[0]; qi++) {
            double q = qs[qi];
            /* min_cost within a deadline */
            prob.objective = PP_OBJ_MIN_COST;
            prob.capacity.budget_usd = 0;
            prob.capacity.max_gpus = 0;
            /* A limit set at one plan's exact figure: two plans of the same
             * step time may sum their terms in another order and differ in
             * the last bit, so the limit gets that bit of room. */
            prob.capacity.deadline_days = s.n ? quantile(&s, false, q) * (1.0 + 1e-12) : 1.0;
            check_against(&prob, &s, method, &feasible, &infeasible);
            /* min_gpus within the same deadline */
            prob.objective = PP_OBJ_MIN_GPUS;
            check_against(&prob, &s, method, &feasible, &infeasible);
            /* min_time within a budget */
            prob.objective = PP_OBJ_MIN_TIME;
            prob.capacity.deadline_days = 0;
            prob.capacity.budget_usd = s.n ? quantile(&s, true, q) * (1.0 + 1e-12) : 1.0;
            check_against(&prob, &s, method, &feasible, &infeasible);
            /* min_time within a GPU cap (and min_step_time, its synonym) */
            prob.capacity.budget_usd = 0;
            prob.capacity.max_gpus = 4L << (qi % 4);
            prob.objective = qi % 2 ? PP_OBJ_MIN_TIME : PP_OBJ_MIN_STEP_TIME;
            check_against(&prob, &s, method, &feasible, &infeasible);
            /* min_cost within a deadline and a GPU cap together */
            prob.objective = PP_OBJ_MIN_COST;
            prob.capacity.deadline_days = s.n ? quantile(&s, false, q) * (1.0 + 1e-12) : 1.0;
            check_against(&prob, &s, method, &feasible, &infeasible);
            prob.capacity.max_gpus = 0;
            prob.capacity.deadline_days = 0;
        }
        free(s.e);
    }
    /* The generator must exercise both outcomes, or the test proves little. */
    CU_ASSERT(feasible > problems);
    CU_ASSERT(infeasible > problems);
    CU_ASSERT(with_plans >= problems / 2);
}

/* ---- exactness ------------------------------------------------------------- */

/* Under the sanitizers every solve runs several times slower: half the
 * random problems there (the same generator, the same checks), so the
 * sanitized suite keeps inside CI's time while the plain build runs all. */
#if PARPLAN_TEST_SANITIZED
#define EXACTNESS_SHARE 2
#else
#define EXACTNESS_SHARE 1
#endif

static void test_matches_brute_force_milp(void)
{
    run_exactness(PP_METHOD_MILP, 12 / EXACTNESS_SHARE);
}

static void test_matches_brute_force_enumerate(void)
{
    run_exactness(PP_METHOD_ENUMERATE, 4 / EXACTNESS_SHARE);
}

/* The lemma behind the decomposition, checked directly: on every cluster the
 * fastest plan is also the cheapest, to the last bit of the cost formula. */
static void test_fastest_plan_is_cheapest(void)
{
    pp_rng r = {42};
    for (int t = 0; t < 6; t++) {
        pp_problem prob = random_capacity_problem(&r);
        bf_set s;
        brute_force(&prob, &s);
        pp_capacity_result res;
        pp_error err;
        pp_capacity_options opt;
        pp_capacity_options_init(&opt);
        opt.skip_counterfactuals = true;
        prob.objective = PP_OBJ_MIN_COST;
        int rc = pp_capacity_solve(&prob, &opt, &res, &err);
        CU_ASSERT(rc == PP_OK || rc == PP_EINFEASIBLE);
        for (int i = 0; i < res.n_points; i++) {
            const pp_capacity_point *p = &res.points[i];
            double least_cost = INFINITY, least_days = INFINITY;
            for (int j = 0; j < s.n; j++)
                if (s.e[j].kind == p->kind && s.e[j].nodes == p->nodes) {
                    least_cost = fmin(least_cost, s.e[j].cost);
                    least_days = fmin(least_days, s.e[j].days);
                }
            CU_ASSERT(pp_rel_close(p->cost_usd, least_cost, REL_TOL));
            CU_ASSERT(pp_rel_close(p->time_to_train_days, least_days, REL_TOL));
        }
        /* and every cluster with a feasible plan is a point */
        for (int j = 0; j < s.n; j++) {
            bool found = false;
            for (int i = 0; i < res.n_points && !found; i++)
                found = res.points[i].kind == s.e[j].kind && res.points[i].nodes == s.e[j].nodes;
            CU_ASSERT(found);
        }
        pp_capacity_result_free(&res);
        free(s.e);
    }
}

/* ---- figures, frontier, limits ---------------------------------------------------- */

static pp_problem fixed_problem(void)
{
    pp_rng r = {7};
    pp_problem p;
    do
        p = random_capacity_problem(&r);
    while (p.model.layers < 4);
    p.objective = PP_OBJ_MIN_COST;
    return p;
}

static void solve_ok(const pp_problem *prob, pp_capacity_result *res)
{
    pp_error err;
    int rc = pp_capacity_solve(prob, NULL, res, &err);
    if (rc != PP_OK)
        fprintf(stderr, "capacity: %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, PP_OK);
}

static void test_training_figures(void)
{
    pp_problem p = fixed_problem();
    p.training.global_batch = 16;
    p.model.seq_len = 512;
    p.training.tokens = 8192.0 * 1000; /* 1000 steps */
    CU_ASSERT(pp_rel_close(pp_capacity_steps(&p), 1000.0, REL_TOL));
    double days, gpu_hours, cost;
    pp_capacity_training_figures(&p, 86.4, 10, 2.5, &days, &gpu_hours, &cost);
    CU_ASSERT(pp_rel_close(days, 1.0, REL_TOL));     /* 1000 x 86.4 s = 1 day */
    CU_ASSERT(pp_rel_close(gpu_hours, 240.0, REL_TOL)); /* 10 GPUs x 24 h */
    CU_ASSERT(pp_rel_close(cost, 600.0, REL_TOL));
    pp_capacity_training_figures(&p, 86.4, 10, 0, &days, &gpu_hours, &cost);
    CU_ASSERT(isnan(cost));
}

static void test_points_frontier_and_order(void)
{
    pp_problem p = fixed_problem();
    pp_capacity_result res;
    solve_ok(&p, &res);
    CU_ASSERT_EQUAL(res.clusters_considered, 16);
    CU_ASSERT_EQUAL(res.n_points + res.clusters_without_plan, 16);
    long counted = 0;
    for (int i = 0; i < res.n_no_plan; i++)
        counted += res.no_plan[i].clusters;
    CU_ASSERT_EQUAL(counted, res.clusters_without_plan);
    for (int i = 0; i < res.n_points; i++) {
        const pp_capacity_point *q = &res.points[i];
        const pp_capacity_gpu *g = &p.capacity.gpus[q->kind];
        CU_ASSERT_EQUAL(q->gpus, q->nodes * g->gpus_per_node);
        CU_ASSERT(pp_rel_close(q->time_to_train_days * 86400.0, res.steps * q->step_time_s, REL_TOL));
        CU_ASSERT(pp_rel_close(q->gpu_hours, q->gpus * q->time_to_train_days * 24.0, REL_TOL));
        CU_ASSERT(pp_rel_close(q->cost_usd, q->gpu_hours * g->usd_per_gpu_hour, REL_TOL));
        CU_ASSERT_EQUAL(q->status, PP_STATUS_OPTIMAL);
        if (i > 0) /* by kind, then nodes ascending */
            CU_ASSERT(res.points[i - 1].kind < q->kind ||
                      (res.points[i - 1].kind == q->kind && res.points[i - 1].nodes < q->nodes));
        /* Pareto: no point of the kind with no more GPUs and no more time */
        bool dominated = false;
        for (int j = 0; j < res.n_points; j++) {
            const pp_capacity_point *o = &res.points[j];
            if (j != i && o->kind == q->kind && o->gpus <= q->gpus && o->time_to_train_days <= q->time_to_train_days)
                dominated = true;
        }
        CU_ASSERT_EQUAL(q->pareto, !dominated);
    }
    pp_capacity_result_free(&res);
}

static void same_answer(const pp_capacity_result *a, const pp_capacity_result *b)
{
    CU_ASSERT_EQUAL(a->n_points, b->n_points);
    CU_ASSERT_EQUAL(a->chosen, b->chosen);
    CU_ASSERT_EQUAL(a->clusters_without_plan, b->clusters_without_plan);
    CU_ASSERT_EQUAL(a->n_no_plan, b->n_no_plan);
    for (int i = 0; i < a->n_no_plan && i < b->n_no_plan; i++) {
        CU_ASSERT_STRING_EQUAL(a->no_plan[i].family, b->no_plan[i].family);
        CU_ASSERT_EQUAL(a->no_plan[i].clusters, b->no_plan[i].clusters);
        CU_ASSERT_STRING_EQUAL(a->no_plan[i].example, b->no_plan[i].example);
    }
    for (int i = 0; i < a->n_points && i < b->n_points; i++) {
        CU_ASSERT_EQUAL(a->points[i].kind, b->points[i].kind);
        CU_ASSERT_EQUAL(a->points[i].nodes, b->points[i].nodes);
        CU_ASSERT_EQUAL(a->points[i].step_time_s, b->points[i].step_time_s);
        CU_ASSERT_EQUAL(memcmp(&a->points[i].best.plan, &b->points[i].best.plan, sizeof a->points[i].best.plan), 0);
    }
    CU_ASSERT_EQUAL(a->decision_space, b->decision_space);
}

/* The sweep runs its clusters on worker threads, block by block, and folds
 * their outcomes in sweep order: one thread in one block and four threads
 * in blocks of 5 clusters give the same points, plans, reasons and answer,
 * number for number, on random problems. */
static void test_threads_same_answer(void)
{
    int with_points = 0;
    for (int trial = 0; trial < 6; trial++) {
        pp_rng r = {0x5eedULL + (unsigned long long)trial};
        pp_problem p = random_capacity_problem(&r);
        pp_capacity_options one, four;
        pp_capacity_options_init(&one);
        pp_capacity_options_init(&four);
        one.threads = 1;
        four.threads = 4;
        four.block = 5;
        pp_capacity_result a, b;
        pp_error ea, eb;
        int ra = pp_capacity_solve(&p, &one, &a, &ea), rb = pp_capacity_solve(&p, &four, &b, &eb);
        CU_ASSERT_EQUAL(ra, rb);
        same_answer(&a, &b);
        CU_ASSERT(a.clusters_considered > 2 * four.block); /* several blocks */
        with_points += a.n_points > 0;
        pp_capacity_result_free(&a);
        pp_capacity_result_free(&b);
    }
    CU_ASSERT(with_points >= 3); /* the comparison saw plans, not only empty sweeps */
}

static void test_node_list(void)
{
    pp_capacity cap;
    memset(&cap, 0, sizeof cap);
    cap.n_node_counts = 4;
    cap.node_counts[0] = 16;
    cap.node_counts[1] = 2;
    cap.node_counts[2] = 64;
    cap.node_counts[3] = 5;
    CU_ASSERT_EQUAL(pp_capacity_node_count(&cap), 4);
    CU_ASSERT_EQUAL(pp_capacity_node_at(&cap, 0), 2);
    CU_ASSERT_EQUAL(pp_capacity_node_at(&cap, 1), 5);
    CU_ASSERT_EQUAL(pp_capacity_node_at(&cap, 2), 16);
    CU_ASSERT_EQUAL(pp_capacity_node_at(&cap, 3), 64);
    cap.n_node_counts = 0;
    cap.nodes_min = 3;
    cap.nodes_max = 7;
    CU_ASSERT_EQUAL(pp_capacity_node_count(&cap), 5);
    CU_ASSERT_EQUAL(pp_capacity_node_at(&cap, 4), 7);
}

/* A deadline between the cheapest cluster's time and the fastest's binds,
 * and the report names the cheaper cluster it excludes. */
static void test_binding_deadline(void)
{
    pp_problem p = fixed_problem();
    pp_capacity_result free_res;
    solve_ok(&p, &free_res); /* no limit: the cheapest cluster */
    const pp_capacity_point cheapest = free_res.points[free_res.chosen];
    CU_ASSERT_FALSE(free_res.limits[PP_LIMIT_DEADLINE].given);
    double fastest = INFINITY;
    for (int i = 0; i < free_res.n_points; i++)
        fastest = fmin(fastest, free_res.points[i].time_to_train_days);
    pp_capacity_result_free(&free_res);
    if (!(fastest < cheapest.time_to_train_days)) {
        CU_FAIL("the fixed problem should have a faster cluster than its cheapest");
        return;
    }
    p.capacity.deadline_days = 0.5 * (fastest + cheapest.time_to_train_days);
    pp_capacity_result res;
    solve_ok(&p, &res);
    const pp_capacity_limit *l = &res.limits[PP_LIMIT_DEADLINE];
    CU_ASSERT(l->given);
    CU_ASSERT(l->binding);
    CU_ASSERT(l->without >= 0 && res.points[l->without].kind == cheapest.kind &&
              res.points[l->without].nodes == cheapest.nodes);
    CU_ASSERT(res.points[res.chosen].time_to_train_days <= p.capacity.deadline_days);
    CU_ASSERT_FALSE(res.limits[PP_LIMIT_BUDGET].given);
    CU_ASSERT(res.limits[PP_LIMIT_MEMORY].given);
    CU_ASSERT_FALSE(isnan(res.limits[PP_LIMIT_MEMORY].without_step_time_s));
    CU_ASSERT(res.limits[PP_LIMIT_MEMORY].without_step_time_s <= res.points[res.chosen].step_time_s);
    pp_strbuf md;
    pp_sb_init(&md);
    CU_ASSERT_EQUAL(pp_report_capacity_md(&p, &res, &md), 0);
    PP_ASSERT_CONTAINS(pp_sb_str(&md), "| deadline | ");
    PP_ASSERT_CONTAINS(pp_sb_str(&md), "yes: without it the answer would be");
    PP_ASSERT_CONTAINS(pp_sb_str(&md), "```mermaid\nxychart-beta\n");
    PP_ASSERT_CONTAINS(pp_sb_str(&md), "## The plan on the chosen cluster");
    PP_ASSERT_CONTAINS(pp_sb_str(&md), "\n### Certificate");
    pp_sb_free(&md);
    pp_capacity_result_free(&res);
}

static void expect_infeasible(const pp_problem *p, const char *needle)
{
    pp_capacity_result res;
    pp_error err;
    int rc = pp_capacity_solve(p, NULL, &res, &err);
    CU_ASSERT_EQUAL(rc, PP_EINFEASIBLE);
    CU_ASSERT_EQUAL(res.status, PP_STATUS_INFEASIBLE);
    PP_ASSERT_CONTAINS(res.infeasible_reason, needle);
    if (!strstr(res.infeasible_reason, needle))
        fprintf(stderr, "reason: %s\n", res.infeasible_reason);
    /* the report and the JSON still render, saying why */
    pp_strbuf md;
    pp_sb_init(&md);
    CU_ASSERT_EQUAL(pp_report_capacity_md(p, &res, &md), 0);
    PP_ASSERT_CONTAINS(pp_sb_str(&md), "No cluster meets the limits.");
    cJSON *doc = pp_json_capacity_result(p, &res);
    CU_ASSERT_PTR_NOT_NULL(doc);
    CU_ASSERT_STRING_EQUAL(cJSON_GetStringValue(cJSON_GetObjectItem(doc, "status")), "infeasible");
    CU_ASSERT_PTR_NOT_NULL(cJSON_GetObjectItem(doc, "infeasible_reason"));
    cJSON_Delete(doc);
    pp_sb_free(&md);
    pp_capacity_result_free(&res);
}

static void test_infeasible_reasons(void)
{
    pp_problem p = fixed_problem();
    p.capacity.deadline_days = 1e-9;
    expect_infeasible(&p, "deadline: the fastest plan, on ");
    expect_infeasible(&p, "; the deadline is 1e-09 days");
    p.capacity.deadline_days = 0;
    p.objective = PP_OBJ_MIN_TIME;
    p.capacity.budget_usd = 1e-6;
    expect_infeasible(&p, "budget: the cheapest plan, on ");
    p.capacity.budget_usd = 0;
    p.capacity.max_gpus = 1;
    expect_infeasible(&p, "max_gpus: the smallest cluster with a plan is ");
    p.capacity.max_gpus = 0;
    p.model.layers = 96; /* far too big for a few GiB per GPU */
    p.model.hidden = 8192;
    p.model.heads = 64;
    p.model.kv_heads = 64;
    p.model.ffn_hidden = 4 * 8192;
    expect_infeasible(&p, "none of the 16 clusters considered has a plan; at ");
    expect_infeasible(&p, ": memory: ");
}

static void test_needs_capacity_section(void)
{
    pp_problem p = fixed_problem();
    p.capacity.present = false;
    pp_capacity_result res;
    pp_error err;
    CU_ASSERT_EQUAL(pp_capacity_solve(&p, NULL, &res, &err), PP_EINPUT);
    PP_ASSERT_CONTAINS(err.msg, "capacity section");
    pp_capacity_result_free(&res);
}

static void test_result_json(void)
{
    pp_problem p = fixed_problem();
    pp_capacity_result res;
    solve_ok(&p, &res);
    cJSON *doc = pp_json_capacity_result(&p, &res);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const pp_capacity_point *c = &res.points[res.chosen];
    CU_ASSERT_STRING_EQUAL(cJSON_GetStringValue(cJSON_GetObjectItem(doc, "status")), "optimal");
    cJSON *cluster = cJSON_GetObjectItem(doc, "cluster");
    CU_ASSERT_STRING_EQUAL(cJSON_GetStringValue(cJSON_GetObjectItem(cluster, "gpu")), p.capacity.gpus[c->kind].gpu.id);
    CU_ASSERT_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItem(cluster, "nodes")), (double)c->nodes);
    CU_ASSERT_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItem(cluster, "gpus")), (double)c->gpus);
    CU_ASSERT(pp_rel_close(cJSON_GetNumberValue(cJSON_GetObjectItem(doc, "time_to_train_days")), c->time_to_train_days,
                           REL_TOL));
    CU_ASSERT(pp_rel_close(cJSON_GetNumberValue(cJSON_GetObjectItem(doc, "gpu_hours")), c->gpu_hours, REL_TOL));
    CU_ASSERT(pp_rel_close(cJSON_GetNumberValue(cJSON_GetObjectItem(doc, "cost_usd")), c->cost_usd, REL_TOL));
    CU_ASSERT(pp_rel_close(cJSON_GetNumberValue(cJSON_GetObjectItem(doc, "step_time_s")), c->step_time_s, REL_TOL));
    CU_ASSERT_PTR_NOT_NULL(cJSON_GetObjectItem(doc, "plan"));
    CU_ASSERT_PTR_NOT_NULL(cJSON_GetObjectItem(doc, "certificate"));
    cJSON *frontier = cJSON_GetObjectItem(doc, "frontier");
    CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(frontier), res.n_points);
    for (int i = 0; i < res.n_points; i++) {
        cJSON *f = cJSON_GetArrayItem(frontier, i);
        CU_ASSERT(cJSON_IsString(cJSON_GetObjectItem(f, "gpu")));
        CU_ASSERT_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItem(f, "gpus")), (double)res.points[i].gpus);
        CU_ASSERT(pp_rel_close(cJSON_GetNumberValue(cJSON_GetObjectItem(f, "time_to_train_days")),
                         res.points[i].time_to_train_days, REL_TOL));
        CU_ASSERT(pp_rel_close(cJSON_GetNumberValue(cJSON_GetObjectItem(f, "cost_usd")), res.points[i].cost_usd, REL_TOL));
        CU_ASSERT(cJSON_IsBool(cJSON_GetObjectItem(f, "pareto")));
    }
    cJSON_Delete(doc);
    pp_capacity_result_free(&res);
}

/* ---- progress ---------------------------------------------------------------- */

/* Call the printer with standard error on fd (restored afterwards). */
static void progress_into(int fd, long done, long total, double elapsed_s)
{
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    CU_ASSERT_FATAL(saved >= 0);
    dup2(fd, STDERR_FILENO);
    pp_capacity_progress_stderr(NULL, done, total, elapsed_s);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
}

static void test_progress_silent_off_terminal(void)
{
    char path[512];
    pp_write_temp("progress.txt", "", path, sizeof path);
    int fd = open(path, O_WRONLY | O_TRUNC);
    CU_ASSERT_FATAL(fd >= 0);
    progress_into(fd, 10, 100, 5.0); /* long enough, but not a terminal */
    close(fd);
    FILE *f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fgetc(f), EOF);
    fclose(f);
}

static void test_progress_on_terminal(void)
{
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) || unlockpt(master)) {
        fprintf(stderr, "(no pseudo-terminal here: skipped)\n");
        if (master >= 0)
            close(master);
        return;
    }
    int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
    CU_ASSERT_FATAL(slave >= 0);
    progress_into(slave, 10, 100, 0.5); /* under a second: silent */
    progress_into(slave, 50, 100, 1.5);
    progress_into(slave, 100, 100, 2.0); /* done: the line is ended */
    /* A terminal hands the output over in pieces: read until nothing more
     * arrives for a while (one read may return only part of it). */
    char buf[512] = "";
    ssize_t n = 0;
    struct pollfd pfd = {.fd = master, .events = POLLIN};
    while ((size_t)n < sizeof buf - 1 && poll(&pfd, 1, 200) > 0) {
        ssize_t got = read(master, buf + n, sizeof buf - 1 - (size_t)n);
        if (got <= 0)
            break;
        n += got;
    }
    buf[n] = '\0';
    CU_ASSERT_PTR_NULL(strstr(buf, "10 of 100"));
    PP_ASSERT_CONTAINS(buf, "capacity sweep: 50 of 100 clusters (50%)");
    PP_ASSERT_CONTAINS(buf, "100 of 100 clusters (100%)");
    CU_ASSERT(n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'));
    close(slave);
    close(master);
}

/* ---- the command line ---------------------------------------------------------- */

static const char CLI_PROBLEM[] =
    "{ \"model\": \"gpt-1.7b\",\n"
    "  \"training\": { \"global_batch\": 64, \"precision\": \"bf16\", \"tokens\": 2e10 },\n"
    "  \"capacity\": {\n"
    "    \"gpus\": [ { \"gpu\": \"a100-sxm4-80gb\", \"usd_per_gpu_hour\": 1.8 },\n"
    "              { \"gpu\": \"h100-sxm5-80gb\" } ],\n"
    "    \"nodes\": { \"min\": 1, \"max\": 8 },\n"
    "    \"deadline_days\": %s },\n"
    "  \"objective\": \"%s\" }\n";

static void cli_problem(const char *name, const char *deadline, const char *objective, char *path, size_t cap)
{
    char text[1024];
    snprintf(text, sizeof text, CLI_PROBLEM, deadline, objective);
    pp_write_temp(name, text, path, cap);
}

static double json_number(const cJSON *o, const char *key)
{
    return cJSON_GetNumberValue(cJSON_GetObjectItem(o, key));
}

static void test_cli_capacity(void)
{
    char problem[512], json_path[512];
    cli_problem("cap.json", "30", "min_cost", problem, sizeof problem);
    pp_write_temp("cap-result.json", "", json_path, sizeof json_path);
    const char *args[] = {"capacity", problem, "--json", json_path, NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL_FATAL(pp_run(args, NULL, &r), 0);
    CU_ASSERT_EQUAL(r.exit_code, 0);
    if (r.exit_code)
        fprintf(stderr, "%s", r.err);
    PP_ASSERT_CONTAINS(r.out, "# parplan: capacity plan");
    PP_ASSERT_CONTAINS(r.out, "## Pareto frontier per GPU kind");
    PP_ASSERT_CONTAINS(r.out, "xychart-beta");
    CU_ASSERT_STRING_EQUAL(r.err, ""); /* fast and not a terminal: no progress line */
    FILE *f = fopen(json_path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    cJSON *doc = cJSON_Parse(buf);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    CU_ASSERT_STRING_EQUAL(cJSON_GetStringValue(cJSON_GetObjectItem(doc, "status")), "optimal");
    cJSON *cluster = cJSON_GetObjectItem(doc, "cluster");
    CU_ASSERT(cJSON_IsString(cJSON_GetObjectItem(cluster, "gpu")));
    CU_ASSERT_EQUAL(json_number(cluster, "gpus"), 8 * json_number(cluster, "nodes"));
    double days = json_number(doc, "time_to_train_days"), hours = json_number(doc, "gpu_hours");
    CU_ASSERT(days > 0 && days <= 30);
    CU_ASSERT(pp_rel_close(hours, days * 24 * json_number(cluster, "gpus"), REL_TOL));
    CU_ASSERT(pp_rel_close(json_number(doc, "cost_usd"), hours * json_number(cluster, "usd_per_gpu_hour"), REL_TOL));
    cJSON *frontier = cJSON_GetObjectItem(doc, "frontier");
    CU_ASSERT(cJSON_GetArraySize(frontier) >= 2);
    cJSON *pt;
    cJSON_ArrayForEach(pt, frontier)
    {
        CU_ASSERT(cJSON_IsString(cJSON_GetObjectItem(pt, "gpu")));
        CU_ASSERT(json_number(pt, "gpus") > 0);
        CU_ASSERT(json_number(pt, "time_to_train_days") > 0);
        CU_ASSERT(json_number(pt, "cost_usd") > 0);
        /* the answer is the cheapest cluster within the deadline */
        if (json_number(pt, "time_to_train_days") <= 30)
            CU_ASSERT(json_number(pt, "cost_usd") >= json_number(doc, "cost_usd") * (1 - REL_TOL));
    }
    cJSON_Delete(doc);
    pp_run_free(&r);

    /* --method enumerate finds the same cluster and cost */
    const char *args_en[] = {"capacity", problem, "--method", "enumerate", "--json", "-", NULL};
    CU_ASSERT_EQUAL_FATAL(pp_run(args_en, NULL, &r), 0);
    CU_ASSERT_EQUAL(r.exit_code, 0);
    cJSON *en = cJSON_Parse(r.out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(en);
    f = fopen(json_path, "r");
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    doc = cJSON_Parse(buf);
    CU_ASSERT(pp_rel_close(json_number(en, "cost_usd"), json_number(doc, "cost_usd"), REL_TOL));
    CU_ASSERT_EQUAL(json_number(cJSON_GetObjectItem(en, "cluster"), "gpus"),
                    json_number(cJSON_GetObjectItem(doc, "cluster"), "gpus"));
    cJSON_Delete(en);
    cJSON_Delete(doc);
    pp_run_free(&r);
}

static void test_cli_infeasible_deadline(void)
{
    char problem[512], report[512];
    cli_problem("cap-late.json", "0.01", "min_cost", problem, sizeof problem);
    pp_write_temp("cap-late.md", "", report, sizeof report);
    const char *args[] = {"capacity", problem, "-o", report, NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL_FATAL(pp_run(args, NULL, &r), 0);
    CU_ASSERT_EQUAL(r.exit_code, 3);
    PP_ASSERT_CONTAINS(r.err, "infeasible: deadline: the fastest plan, on 8 nodes of ");
    PP_ASSERT_CONTAINS(r.err, "; the deadline is 0.01 days");
    pp_run_free(&r);
    FILE *f = fopen(report, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    PP_ASSERT_CONTAINS(buf, "# parplan: no cluster meets the limits");
}

static void test_cli_usage(void)
{
    char path[512];
    pp_source_path("data/examples/small-gpt-8gpu.json", path, sizeof path);
    const char *no_section[] = {"capacity", path, NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL_FATAL(pp_run(no_section, NULL, &r), 0);
    CU_ASSERT_EQUAL(r.exit_code, 2);
    PP_ASSERT_CONTAINS(r.err, "capacity section");
    pp_run_free(&r);

    char problem[512];
    cli_problem("cap-min-gpus.json", "30", "min_gpus", problem, sizeof problem);
    const char *bad_option[] = {"capacity", problem, "--top", "3", NULL};
    CU_ASSERT_EQUAL_FATAL(pp_run(bad_option, NULL, &r), 0);
    CU_ASSERT_EQUAL(r.exit_code, 2);
    PP_ASSERT_CONTAINS(r.err, "--top is not an option of 'capacity'");
    pp_run_free(&r);

    const char *help[] = {"capacity", "--help", NULL};
    CU_ASSERT_EQUAL_FATAL(pp_run(help, NULL, &r), 0);
    CU_ASSERT_EQUAL(r.exit_code, 0);
    PP_ASSERT_CONTAINS(r.out, "Usage: parplan capacity PROBLEM.json");
    PP_ASSERT_CONTAINS(r.out, "--method");
    pp_run_free(&r);

    /* plan refuses a problem without a cluster, and points here */
    const char *plan[] = {"plan", problem, NULL};
    CU_ASSERT_EQUAL_FATAL(pp_run(plan, NULL, &r), 0);
    CU_ASSERT_EQUAL(r.exit_code, 2);
    PP_ASSERT_CONTAINS(r.err, "parplan capacity");
    pp_run_free(&r);
}

int main(void)
{
    const pp_test tests[] = {
        {"capacity = brute force over kinds, nodes and plans (MIP per cluster)", test_matches_brute_force_milp},
        {"capacity = brute force (enumerator per cluster)", test_matches_brute_force_enumerate},
        {"on every cluster the fastest plan is the cheapest", test_fastest_plan_is_cheapest},
        {"time to train, GPU-hours and cost", test_training_figures},
        {"points, their figures and the Pareto frontier", test_points_frontier_and_order},
        {"node counts of a list, ascending", test_node_list},
        {"threads: one and several give the same answer, block by block", test_threads_same_answer},
        {"a deadline that excludes the cheapest cluster binds", test_binding_deadline},
        {"infeasible: deadline, budget, max_gpus, no plan at all", test_infeasible_reasons},
        {"a capacity section is required", test_needs_capacity_section},
        {"result JSON: cluster, figures, frontier", test_result_json},
        {"progress: silent off a terminal", test_progress_silent_off_terminal},
        {"progress: one line on a terminal after a second", test_progress_on_terminal},
        {"CLI: capacity report and JSON; enumerate agrees", test_cli_capacity},
        {"CLI: a deadline nothing meets exits 3 and says why", test_cli_infeasible_deadline},
        {"CLI: usage errors", test_cli_usage},
        {NULL, NULL},
    };
    return pp_test_main("capacity", tests);
}
