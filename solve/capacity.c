/*
 * capacity.c: capacity planning by exact decomposition (see capacity.h).
 *
 * The sweep visits every cluster (GPU kind k, node count n) of the capacity
 * section, in the order kind by kind and nodes ascending, and asks the
 * planner for the fastest plan on it.  A cluster either has a plan (it
 * becomes a point: step time, days, GPU-hours, cost) or has none (the
 * planner says which limit rules it out; the reasons are counted by family).
 * Most node counts of a wide range have no plan at all, because tp pp dp cp
 * must multiply to the GPU count while dp divides the global batch and pp
 * the layers: the planner finds that out from the decision space alone, in
 * microseconds, before any MIP is built.
 *
 * The answer is then read off the points: filter by the limits, pick the
 * best by the objective.  This is exact because, on a fixed cluster, the
 * days and the cost of a plan are its step time times positive constants of
 * the cluster (docs/capacity.md): the fastest plan of a cluster is also its
 * cheapest and the first to meet any deadline or budget.  Ties are broken
 * by a fixed order of secondary keys, then by GPU kind and node count, so
 * the answer depends on nothing but the problem.
 */
#include "capacity.h"

#include "cons.h"
#include "error.h"
#include "mip_cache.h"
#include "problem.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SECONDS_PER_DAY 86400.0
#define SECONDS_PER_HOUR 3600.0
#define PROGRESS_AFTER_S 1.0
#define REL_TOL 1e-9

void pp_capacity_options_init(pp_capacity_options *o)
{
    memset(o, 0, sizeof *o);
    o->method = PP_METHOD_MILP;
    o->threads = 0;
    o->block = 0;
    o->progress = NULL;
    o->progress_ctx = NULL;
    o->skip_counterfactuals = false;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- progress ---------------------------------------------------------------- */

void pp_capacity_progress_stderr(void *ctx, long done, long total, double elapsed_s)
{
    (void)ctx;
    if (elapsed_s < PROGRESS_AFTER_S || !isatty(STDERR_FILENO))
        return;
    fprintf(stderr, "\rparplan: capacity sweep: %ld of %ld clusters (%.0f%%), %.1f s", done, total,
            total > 0 ? 100.0 * (double)done / (double)total : 100.0, elapsed_s);
    if (done >= total)
        fputc('\n', stderr);
    fflush(stderr);
}

/* ---- clusters ------------------------------------------------------------------ */

long pp_capacity_node_count(const pp_capacity *cap)
{
    if (cap->n_node_counts > 0)
        return cap->n_node_counts;
    return cap->nodes_max >= cap->nodes_min ? cap->nodes_max - cap->nodes_min + 1 : 0;
}

long pp_capacity_node_at(const pp_capacity *cap, long i)
{
    if (cap->n_node_counts == 0)
        return cap->nodes_min + i;
    /* The list holds distinct values (the loader checks): the i-th smallest
     * is the one with exactly i smaller values. */
    for (int j = 0; j < cap->n_node_counts; j++) {
        long smaller = 0;
        for (int k = 0; k < cap->n_node_counts; k++)
            smaller += cap->node_counts[k] < cap->node_counts[j];
        if (smaller == i)
            return cap->node_counts[j];
    }
    return 0;
}

void pp_capacity_cluster_problem(const pp_problem *prob, int kind, long nodes, pp_problem *out)
{
    const pp_capacity_gpu *g = &prob->capacity.gpus[kind];
    *out = *prob;
    pp_cluster_from_gpu(&g->gpu, &out->cluster); /* its flagship system's, the NIC layout included */
    out->cluster.gpus_per_node = g->gpus_per_node; /* then the offer's own node and links */
    out->cluster.intra_node_GBps = g->intra_node_GBps;
    out->cluster.inter_node_Gbps = g->inter_node_Gbps;
    out->cluster.nodes = nodes;
    out->has_cluster = true;
    pp_problem_resolve_codecs(out);
}

const char *pp_capacity_kind_name(const pp_problem *prob, int kind)
{
    const pp_gpu *g = &prob->capacity.gpus[kind].gpu;
    return g->name[0] ? g->name : g->id[0] ? g->id : "custom GPU";
}

double pp_capacity_steps(const pp_problem *prob)
{
    double tokens_per_step = (double)prob->training.global_batch * prob->model.seq_len;
    return tokens_per_step > 0 ? prob->training.tokens / tokens_per_step : 0.0;
}

void pp_capacity_training_figures(const pp_problem *prob, double step_time_s, long gpus, double usd_per_gpu_hour,
                                  double *days, double *gpu_hours, double *cost_usd)
{
    double seconds = pp_capacity_steps(prob) * step_time_s;
    *days = seconds / SECONDS_PER_DAY;
    *gpu_hours = (double)gpus * seconds / SECONDS_PER_HOUR;
    *cost_usd = usd_per_gpu_hour > 0 ? *gpu_hours * usd_per_gpu_hour : NAN;
}

/* ---- ranking ---------------------------------------------------------------------- */

/* The objective orders clusters by three keys, each to be minimized:
 *   min_cost  cost, time to train, GPUs
 *   min_time  time to train, cost, GPUs
 *   min_gpus  GPUs, cost, time to train
 * then by GPU kind (the problem's order) and nodes.  Costs and times that
 * differ by less than TIE_REL_TOL (relative) are a tie, settled by the next
 * key: they are the same number up to rounding (the MIP itself accepts
 * 1e-9), and with perfect scaling many clusters cost exactly as much, when
 * the next key, not rounding noise, should choose.  An unknown cost (a GPU
 * kind without a price) never decides. */
#define N_KEYS 3
#define TIE_REL_TOL 1e-9

static void point_keys(pp_objective obj, const pp_capacity_point *p, double key[N_KEYS])
{
    double gpus = (double)p->gpus, days = p->time_to_train_days, cost = p->cost_usd;
    switch (obj) {
    case PP_OBJ_MIN_COST: key[0] = cost, key[1] = days, key[2] = gpus; break;
    case PP_OBJ_MIN_GPUS: key[0] = gpus, key[1] = cost, key[2] = days; break;
    default: key[0] = days, key[1] = cost, key[2] = gpus; break; /* min_time, min_step_time */
    }
}

static bool tied(double a, double b)
{
    return isnan(a) || isnan(b) || fabs(a - b) <= TIE_REL_TOL * fmax(fabs(a), fabs(b));
}

/* Whether p ranks before q (strictly: a tie on every key is not). */
static bool ranks_before(pp_objective obj, const pp_capacity_point *p, const pp_capacity_point *q)
{
    double kp[N_KEYS], kq[N_KEYS];
    point_keys(obj, p, kp);
    point_keys(obj, q, kq);
    for (int i = 0; i < N_KEYS; i++)
        if (!tied(kp[i], kq[i]))
            return kp[i] < kq[i];
    return false;
}

typedef bool (*point_filter)(const pp_capacity *cap, const pp_capacity_point *p, int arg);

/* Whether point i passes the filter and ties the least values of the first
 * `level` keys. */
static bool survives(const pp_capacity_result *res, const pp_capacity *cap, pp_objective obj, point_filter keep,
                     int arg, const double least[N_KEYS], int level, int i)
{
    if (!keep(cap, &res->points[i], arg))
        return false;
    double key[N_KEYS];
    point_keys(obj, &res->points[i], key);
    for (int k = 0; k < level; k++)
        if (!tied(key[k], least[k]))
            return false;
    return true;
}

/* The best point that passes the filter, or -1.  Key by key: keep the
 * points tied with the least value of the key (within TIE_REL_TOL of that
 * value, so ties never chain), then go on to the next key; the first
 * survivor in storage order (kind, then nodes) wins. */
static int select_best(const pp_capacity_result *res, const pp_capacity *cap, pp_objective obj, point_filter keep,
                       int arg)
{
    double least[N_KEYS], key[N_KEYS];
    for (int level = 0; level < N_KEYS; level++) {
        least[level] = NAN; /* all unknown: ties everything */
        for (int i = 0; i < res->n_points; i++)
            if (survives(res, cap, obj, keep, arg, least, level, i)) {
                point_keys(obj, &res->points[i], key);
                if (!(key[level] >= least[level]))
                    least[level] = isnan(key[level]) ? least[level] : key[level];
            }
    }
    for (int i = 0; i < res->n_points; i++)
        if (survives(res, cap, obj, keep, arg, least, N_KEYS, i))
            return i;
    return -1;
}

#define SKIP(kind) (1 << (kind))

/* Whether p meets the limits of the capacity section, but those in the
 * mask `skip` (bits SKIP(PP_LIMIT_...)). */
static bool meets(const pp_capacity *cap, const pp_capacity_point *p, int skip)
{
    if (!(skip & SKIP(PP_LIMIT_DEADLINE)) && cap->deadline_days > 0 && !(p->time_to_train_days <= cap->deadline_days))
        return false;
    if (!(skip & SKIP(PP_LIMIT_BUDGET)) && cap->budget_usd > 0 && !(p->cost_usd <= cap->budget_usd))
        return false;
    if (!(skip & SKIP(PP_LIMIT_MAX_GPUS)) && cap->max_gpus > 0 && p->gpus > cap->max_gpus)
        return false;
    return true;
}

/* The best point that meets every limit but `skip` (PP_LIMIT_COUNT: skip
 * none), or -1. */
static int best_point(const pp_capacity_result *res, const pp_capacity *cap, pp_limit_kind skip)
{
    return select_best(res, cap, res->objective, meets, skip == PP_LIMIT_COUNT ? 0 : SKIP(skip));
}

/* A point is on its kind's frontier when every point of the kind with fewer
 * GPUs takes strictly longer.  Points are stored by kind, nodes ascending. */
static void mark_pareto(pp_capacity_result *res)
{
    double best_days = INFINITY;
    int kind = -1;
    for (int i = 0; i < res->n_points; i++) {
        pp_capacity_point *p = &res->points[i];
        if (p->kind != kind) {
            kind = p->kind;
            best_days = INFINITY;
        }
        p->pareto = p->time_to_train_days < best_days;
        if (p->pareto)
            best_days = p->time_to_train_days;
    }
}

/* ---- the sweep ---------------------------------------------------------------------- */

/* The clusters are independent exact solves, so the sweep runs them on
 * worker threads (GLPK keeps its environment per thread: glp_config("TLS"),
 * and the planner frees it after every solve).  Each cluster's outcome is
 * kept in its slot of the sweep order and folded into the result once its
 * block of clusters (SWEEP_BLOCK) has run, in that order, so a threaded sweep
 * answers byte for byte as a serial one (tests/test_capacity.c), and the
 * slots of a range of millions of node counts never all live at once. */
#define MAX_SWEEP_THREADS 8
#define SWEEP_BLOCK 16384L /* clusters of a block unless options->block says */
#define REASON_LEN 512 /* count_no_plan keeps 500 characters of a reason */

typedef struct outcome {
    pp_capacity_point *point; /* the cluster's plan, or NULL */
    char reason[REASON_LEN];  /* no plan: the planner's reason */
    double decision_space;
} outcome;

typedef struct sweep {
    const pp_problem *prob;
    const pp_capacity_options *opt;
    pp_capacity_result *res;
    long counts, total; /* node counts per GPU kind; clusters in all */
    long block_start, block_end; /* the clusters of the block under way */
    outcome *out;       /* one per cluster of the block, in sweep order */
    atomic_long next;   /* the next cluster a worker takes */
    atomic_bool failed; /* an error stops every worker */
    pthread_mutex_t lock; /* guards done, the progress callback and the error below */
    long done;
    double t0;
    long error_at; /* the earliest cluster that failed (-1: none), its code and message */
    int error_rc;
    pp_error error;
    int points_cap;
} sweep;

static int push_point(sweep *s, const pp_capacity_point *p, pp_error *err)
{
    pp_capacity_result *res = s->res;
    if (res->n_points == s->points_cap) {
        int cap = s->points_cap ? 2 * s->points_cap : 64;
        pp_capacity_point *n = realloc(res->points, (size_t)cap * sizeof *n);
        if (!n)
            return pp_error_set(err, PP_EINTERNAL, "", "out of memory");
        res->points = n;
        s->points_cap = cap;
    }
    res->points[res->n_points++] = *p;
    return PP_OK;
}

/* Count a cluster without a plan under the first word of its reason, and
 * keep the largest such cluster (the closest to having a plan) as the
 * example of its family. */
static void count_no_plan(sweep *s, int kind, long nodes, const char *reason)
{
    pp_capacity_result *res = s->res;
    const pp_capacity *cap = &s->prob->capacity;
    char family[32];
    size_t n = strcspn(reason, ":");
    if (reason[n] != ':' || n == 0 || n >= sizeof family)
        snprintf(family, sizeof family, "other");
    else
        snprintf(family, sizeof family, "%.*s", (int)n, reason);
    res->clusters_without_plan++;
    pp_capacity_no_plan *slot = NULL;
    for (int i = 0; i < res->n_no_plan && !slot; i++)
        if (strcmp(res->no_plan[i].family, family) == 0)
            slot = &res->no_plan[i];
    if (!slot && res->n_no_plan < PP_CAPACITY_MAX_REASONS) {
        slot = &res->no_plan[res->n_no_plan++];
        memset(slot, 0, sizeof *slot);
        snprintf(slot->family, sizeof slot->family, "%s", family);
    }
    if (!slot) { /* more families than slots: the last one collects the rest */
        slot = &res->no_plan[PP_CAPACITY_MAX_REASONS - 1];
        snprintf(slot->family, sizeof slot->family, "other");
    }
    slot->clusters++;
    long gpus = nodes * cap->gpus[kind].gpus_per_node;
    long slot_gpus = slot->nodes * cap->gpus[slot->kind].gpus_per_node;
    if (slot->clusters == 1 || gpus >= slot_gpus) {
        slot->kind = kind;
        slot->nodes = nodes;
        snprintf(slot->example, sizeof slot->example, "%.500s", reason);
    }
}

/* A sweep thread's prices: one cache per GPU kind, whose stage kernels the
 * kind's clusters share (they differ in node count only: mip_cache.h). */
typedef struct worker_prices {
    pp_price_cache *cache;
    int kind;
    int problem_kind; /* the GPU kind of the worker's cluster problem (-1: none yet) */
} worker_prices;

/* Solve cluster i of the sweep order into its outcome; cluster is scratch. */
static int solve_cluster(sweep *s, long i, pp_problem *cluster, worker_prices *wp, pp_error *err)
{
    int kind = (int)(i / s->counts);
    long nodes = pp_capacity_node_at(&s->prob->capacity, i % s->counts);
    const pp_capacity_gpu *g = &s->prob->capacity.gpus[kind];
    outcome *o = &s->out[i - s->block_start];
    if (wp->problem_kind != kind) {
        pp_capacity_cluster_problem(s->prob, kind, nodes, cluster);
        wp->problem_kind = kind;
    } else {
        cluster->cluster.nodes = nodes; /* the rest is the kind's (pp_capacity_cluster_problem) */
    }
    pp_plan_options po;
    pp_plan_options_init(&po);
    po.method = s->opt->method;
    po.catch_interrupt = false; /* Ctrl-C ends a sweep; one solve's handler would race the other threads' */
    po.count_screened = false;  /* a cluster's certificate is not reported: its plan is */
    if (!wp->cache || wp->kind != kind) {
        pp_price_cache_free(wp->cache);
        wp->cache = pp_price_cache_new();
        wp->kind = kind;
    }
    po.prices = wp->cache; /* NULL (out of memory): each solve prices alone */
    pp_plan_result pr;
    pp_error e;
    pp_error_clear(&e);
    int rc = pp_plan_solve(cluster, &po, &pr, &e);
    if (rc == PP_EINFEASIBLE) {
        snprintf(o->reason, sizeof o->reason, "%.*s", REASON_LEN - 1,
                 pr.infeasible_reason[0] ? pr.infeasible_reason : e.msg);
        pp_plan_result_free(&pr);
        return PP_OK;
    }
    if (rc != PP_OK) {
        pp_plan_result_free(&pr);
        return pp_error_set(err, rc, "", "%ld node%s of %s: %s", nodes, nodes == 1 ? "" : "s",
                            pp_capacity_kind_name(s->prob, kind), e.msg);
    }
    pp_capacity_point *p = calloc(1, sizeof *p);
    if (!p) {
        pp_plan_result_free(&pr);
        return pp_error_set(err, PP_EINTERNAL, "", "out of memory");
    }
    p->kind = kind;
    p->nodes = nodes;
    p->gpus = nodes * g->gpus_per_node;
    p->status = pr.status;
    p->best = pr.best;
    p->cert = pr.cert;
    p->step_time_s = pr.best.eval.time.step_s;
    pp_capacity_training_figures(s->prob, p->step_time_s, p->gpus, g->usd_per_gpu_hour, &p->time_to_train_days,
                                 &p->gpu_hours, &p->cost_usd);
    o->decision_space = pr.cert.decision_space;
    o->point = p;
    pp_plan_result_free(&pr);
    return PP_OK;
}

/* A worker: take the next cluster until none is left or one failed. */
static void *sweep_worker(void *arg)
{
    sweep *s = arg;
    pp_error err;
    pp_error_clear(&err);
    pp_problem *cluster = malloc(sizeof *cluster);
    int rc = cluster ? PP_OK : pp_error_set(&err, PP_EINTERNAL, "", "out of memory");
    worker_prices wp = {NULL, -1, -1};
    long i = -1;
    while (rc == PP_OK && !atomic_load(&s->failed)) {
        i = atomic_fetch_add(&s->next, 1);
        if (i >= s->block_end)
            break;
        rc = solve_cluster(s, i, cluster, &wp, &err);
        pthread_mutex_lock(&s->lock);
        s->done++;
        if (rc == PP_OK && s->opt->progress)
            s->opt->progress(s->opt->progress_ctx, s->done, s->total, now_s() - s->t0);
        pthread_mutex_unlock(&s->lock);
    }
    free(cluster);
    pp_price_cache_free(wp.cache);
    if (rc != PP_OK) {
        pthread_mutex_lock(&s->lock);
        if (s->error_at < 0 || (i >= 0 && i < s->error_at)) {
            s->error_at = i < 0 ? 0 : i;
            s->error_rc = rc;
            s->error = err;
        }
        pthread_mutex_unlock(&s->lock);
        atomic_store(&s->failed, true);
    }
    return NULL;
}

/* Worker threads: one per online CPU, at most MAX_SWEEP_THREADS and no more
 * than the clusters; options->threads overrides (1: in the calling thread). */
static int sweep_threads(const pp_capacity_options *opt, long total)
{
    long n = opt->threads > 0 ? opt->threads : sysconf(_SC_NPROCESSORS_ONLN);
    if (n > MAX_SWEEP_THREADS)
        n = MAX_SWEEP_THREADS;
    if (n > total)
        n = total;
    return n < 1 ? 1 : (int)n;
}

/* Run clusters [block_start, block_end) on n threads (the calling one too). */
static void run_block(sweep *s, int n)
{
    atomic_store(&s->next, s->block_start);
    int started = 0;
    pthread_t tid[MAX_SWEEP_THREADS];
    for (int t = 1; t < n; t++)
        if (pthread_create(&tid[started], NULL, sweep_worker, s) == 0)
            started++;
    sweep_worker(s);
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
}

static int run_sweep(sweep *s, pp_error *err)
{
    const pp_capacity *cap = &s->prob->capacity;
    s->counts = pp_capacity_node_count(cap);
    s->total = s->counts * cap->n_gpus;
    s->res->clusters_considered = s->total;
    if (s->total <= 0)
        return PP_OK;
    long block = s->opt->block > 0 ? s->opt->block : SWEEP_BLOCK;
    if (block > s->total)
        block = s->total;
    s->out = malloc((size_t)block * sizeof *s->out);
    if (!s->out)
        return pp_error_set(err, PP_EINTERNAL, "", "out of memory");
    int n = sweep_threads(s->opt, block), rc = PP_OK;
    for (long start = 0; start < s->total && rc == PP_OK; start += block) {
        s->block_start = start;
        s->block_end = start + block < s->total ? start + block : s->total;
        memset(s->out, 0, (size_t)block * sizeof *s->out);
        run_block(s, n);
        if (s->error_at >= 0) {
            if (err)
                *err = s->error;
            rc = s->error_rc;
        }
        /* fold the block's outcomes in sweep order */
        for (long i = s->block_start; i < s->block_end && rc == PP_OK; i++) {
            outcome *o = &s->out[i - s->block_start];
            if (o->point) {
                s->res->decision_space += o->decision_space;
                rc = push_point(s, o->point, err);
            } else {
                count_no_plan(s, (int)(i / s->counts), pp_capacity_node_at(cap, i % s->counts), o->reason);
            }
        }
        for (long i = 0; i < s->block_end - s->block_start; i++)
            free(s->out[i].point);
    }
    free(s->out);
    s->out = NULL;
    return rc;
}

/* ---- the answer ---------------------------------------------------------------------- */

static const char *point_label(const pp_problem *prob, const pp_capacity_point *p, char *buf, size_t len)
{
    snprintf(buf, len, "%ld node%s of %s (%ld GPUs)", p->nodes, p->nodes == 1 ? "" : "s",
             pp_capacity_kind_name(prob, p->kind), p->gpus);
    return buf;
}

/* Whole dollars, or four significant digits below 100 USD. */
static double round_usd(double v)
{
    if (v >= 100)
        return round(v);
    char buf[32];
    snprintf(buf, sizeof buf, "%.4g", v);
    return strtod(buf, NULL);
}

/* The no-plan family whose example is the most telling: memory if any
 * cluster is out for memory (the model does not fit), else the largest. */
static const pp_capacity_no_plan *telling_no_plan(const pp_capacity_result *res)
{
    const pp_capacity_no_plan *best = NULL;
    for (int i = 0; i < res->n_no_plan; i++)
        if (strcmp(res->no_plan[i].family, pp_cons_memory.name) == 0)
            return &res->no_plan[i];
    for (int i = 0; i < res->n_no_plan; i++)
        if (!best || res->no_plan[i].clusters > best->clusters)
            best = &res->no_plan[i];
    return best;
}

/* Why no cluster meets the limits: the first limit, in the order max_gpus,
 * budget, deadline, that leaves no cluster, with the closest miss. */
static void explain_infeasible(const pp_problem *prob, pp_capacity_result *res)
{
    const pp_capacity *cap = &prob->capacity;
    char *buf = res->infeasible_reason, what[160];
    size_t len = sizeof res->infeasible_reason;
    if (res->n_points == 0) {
        const pp_capacity_no_plan *np = telling_no_plan(res);
        if (np)
            snprintf(buf, len, "none of the %ld clusters considered has a plan; at %ld node%s of %s: %s",
                     res->clusters_considered, np->nodes, np->nodes == 1 ? "" : "s",
                     pp_capacity_kind_name(prob, np->kind), np->example);
        else
            snprintf(buf, len, "the capacity section leaves no cluster to consider");
        return;
    }
    /* smallest: any plan; cheapest: within max_gpus; fastest: within max_gpus and the budget */
    int no_limit = SKIP(PP_LIMIT_DEADLINE) | SKIP(PP_LIMIT_BUDGET) | SKIP(PP_LIMIT_MAX_GPUS);
    int smallest = select_best(res, cap, PP_OBJ_MIN_GPUS, meets, no_limit);
    int cheapest = select_best(res, cap, PP_OBJ_MIN_COST, meets, SKIP(PP_LIMIT_DEADLINE) | SKIP(PP_LIMIT_BUDGET));
    int fastest = select_best(res, cap, PP_OBJ_MIN_TIME, meets, SKIP(PP_LIMIT_DEADLINE));
    const char *within = cap->max_gpus > 0 && cap->budget_usd > 0 ? " within max_gpus and the budget"
                         : cap->budget_usd > 0                    ? " within the budget"
                         : cap->max_gpus > 0                      ? " within max_gpus"
                                                                  : "";
    if (cheapest < 0)
        snprintf(buf, len, "max_gpus: the smallest cluster with a plan is %s; max_gpus is %ld",
                 point_label(prob, &res->points[smallest], what, sizeof what), cap->max_gpus);
    else if (fastest < 0)
        snprintf(buf, len, "budget: the cheapest plan%s, on %s, costs %.10g USD; the budget is %.10g USD",
                 cap->max_gpus > 0 ? " within max_gpus" : "",
                 point_label(prob, &res->points[cheapest], what, sizeof what), round_usd(res->points[cheapest].cost_usd),
                 round_usd(cap->budget_usd));
    else
        snprintf(buf, len, "deadline: the fastest plan%s, on %s, trains in %.4g days; the deadline is %g days",
                 within, point_label(prob, &res->points[fastest], what, sizeof what),
                 res->points[fastest].time_to_train_days, cap->deadline_days);
}

static void set_limit(pp_capacity_result *res, const pp_capacity *cap, pp_limit_kind kind, bool given,
                      double limit, double at_answer)
{
    pp_capacity_limit *l = &res->limits[kind];
    l->given = given;
    l->limit = limit;
    l->at_answer = at_answer;
    l->without = -1;
    l->without_step_time_s = NAN;
    if (!given)
        return;
    int alt = best_point(res, cap, kind);
    if (alt >= 0 && ranks_before(res->objective, &res->points[alt], &res->points[res->chosen])) {
        l->binding = true;
        l->without = alt;
    }
}

/* Memory binds when the chosen cluster would step faster without it: one
 * more exact solve, with the memory family relaxed. */
static int memory_counterfactual(const pp_capacity_options *opt, pp_capacity_result *res, pp_error *err)
{
    const pp_capacity_point *p = &res->points[res->chosen];
    pp_capacity_limit *l = &res->limits[PP_LIMIT_MEMORY];
    l->given = true;
    l->limit = p->best.eval.mem.usable_gib;
    l->at_answer = p->best.eval.mem.total_gib;
    l->without = -1;
    l->without_step_time_s = NAN;
    if (opt->skip_counterfactuals)
        return PP_OK;
    pp_plan_options po;
    pp_plan_options_init(&po);
    po.method = opt->method;
    po.relax = pp_cons_bit_of(&pp_cons_memory);
    pp_plan_result pr;
    pp_error e;
    int rc = pp_plan_solve(res->chosen_problem, &po, &pr, &e);
    if (rc == PP_OK) {
        l->without_step_time_s = pr.best.eval.time.step_s;
        l->binding = l->without_step_time_s < p->step_time_s * (1.0 - REL_TOL);
    }
    pp_plan_result_free(&pr);
    if (rc != PP_OK && rc != PP_EINFEASIBLE)
        return pp_error_set(err, rc, "", "the memory counterfactual failed: %s", e.msg);
    return PP_OK;
}

/* The answer's certificate as `plan` writes it: the sweep's solves skip
 * telling screened shapes from shapes without a plan (count_screened), so
 * the chosen cluster is solved once more with the default options; its
 * certificate replaces the sweep's when that solve proves the same step. */
static void certify_chosen(const pp_problem *chosen, const pp_capacity_options *opt, pp_certificate *cert)
{
    pp_plan_options po;
    pp_plan_options_init(&po);
    po.method = opt->method;
    po.catch_interrupt = false;
    pp_plan_result pr;
    pp_error e;
    if (pp_plan_solve(chosen, &po, &pr, &e) == PP_OK && pr.cert.objective_s == cert->objective_s)
        *cert = pr.cert;
    pp_plan_result_free(&pr);
}

static int choose(const pp_problem *prob, const pp_capacity_options *opt, pp_capacity_result *res, pp_error *err)
{
    const pp_capacity *cap = &prob->capacity;
    mark_pareto(res);
    for (int i = 0; i < res->n_points; i++)
        res->points[i].within_limits = meets(cap, &res->points[i], 0);
    res->chosen = best_point(res, cap, PP_LIMIT_COUNT);
    if (res->chosen < 0) {
        res->status = PP_STATUS_INFEASIBLE;
        explain_infeasible(prob, res);
        return pp_error_set(err, PP_EINFEASIBLE, "", "%s", res->infeasible_reason);
    }
    const pp_capacity_point *p = &res->points[res->chosen];
    res->status = PP_STATUS_OPTIMAL;
    for (int i = 0; i < res->n_points; i++)
        if (res->points[i].status != PP_STATUS_OPTIMAL)
            res->status = PP_STATUS_TIME_LIMIT;
    res->chosen_problem = malloc(sizeof *res->chosen_problem);
    if (!res->chosen_problem)
        return pp_error_set(err, PP_EINTERNAL, "", "out of memory");
    pp_capacity_cluster_problem(prob, p->kind, p->nodes, res->chosen_problem);
    res->plan.status = p->status;
    res->plan.best = p->best;
    res->plan.cert = p->cert;
    certify_chosen(res->chosen_problem, opt, &res->plan.cert);
    set_limit(res, cap, PP_LIMIT_DEADLINE, cap->deadline_days > 0, cap->deadline_days, p->time_to_train_days);
    set_limit(res, cap, PP_LIMIT_BUDGET, cap->budget_usd > 0, cap->budget_usd, p->cost_usd);
    set_limit(res, cap, PP_LIMIT_MAX_GPUS, cap->max_gpus > 0, (double)cap->max_gpus, (double)p->gpus);
    return memory_counterfactual(opt, res, err);
}

/* ---- entry point ------------------------------------------------------------------------- */

static pp_objective effective_objective(pp_objective o)
{
    /* The token budget is fixed, so the fastest step is the fastest training. */
    return o == PP_OBJ_MIN_STEP_TIME ? PP_OBJ_MIN_TIME : o;
}

int pp_capacity_solve(const pp_problem *prob, const pp_capacity_options *options, pp_capacity_result *res,
                      pp_error *err)
{
    double t0 = now_s();
    memset(res, 0, sizeof *res);
    res->chosen = -1;
    pp_capacity_options defaults;
    pp_capacity_options_init(&defaults);
    const pp_capacity_options *opt = options ? options : &defaults;
    if (!prob->capacity.present || prob->capacity.n_gpus < 1)
        return pp_error_set(err, PP_EINPUT, "$.capacity",
                            "capacity planning needs a capacity section (GPU kinds, node counts); a problem with "
                            "a fixed cluster is for `parplan plan`");
    if (prob->training.tokens <= 0)
        return pp_error_set(err, PP_EINPUT, "$.training.tokens",
                            "capacity planning needs how many tokens to train (training.tokens)");
    res->objective = effective_objective(prob->objective);
    res->steps = pp_capacity_steps(prob);

    sweep s = {.prob = prob, .opt = opt, .res = res, .t0 = t0, .error_at = -1};
    atomic_init(&s.next, 0);
    atomic_init(&s.failed, false);
    if (pthread_mutex_init(&s.lock, NULL) != 0)
        return pp_error_set(err, PP_EINTERNAL, "", "cannot create a mutex for the sweep");
    int rc = run_sweep(&s, err);
    pthread_mutex_destroy(&s.lock);
    if (rc == PP_OK)
        rc = choose(prob, opt, res, err);
    res->solve_time_s = now_s() - t0;
    return rc;
}

void pp_capacity_result_free(pp_capacity_result *res)
{
    free(res->points);
    res->points = NULL;
    res->n_points = 0;
    free(res->chosen_problem);
    res->chosen_problem = NULL;
    pp_plan_result_free(&res->plan);
}
