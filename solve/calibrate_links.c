/*
 * calibrate_links.c: the alpha-beta fit of NVLink and network parameters to
 * nccl-tests runs (see calibrate_links.h).
 */
#include "calibrate_links.h"

#include "catalog.h"

#include "costmodel.h"

#include <math.h>
#include <string.h>

const char *pp_link_class_name(pp_link_class c)
{
    return c == PP_LINK_NVLINK ? "NVLink" : "network";
}

long pp_nccl_run_domains(const pp_cluster *c, const pp_nccl_run *r, long *ranks_per_domain)
{
    long per_host = r->ranks_per_host > 0 ? r->ranks_per_host : r->ranks;
    if (c && c->gpus_per_host > 0 && c->gpus_per_node > c->gpus_per_host && per_host > 0 &&
        per_host <= c->gpus_per_host) {
        /* whole hosts fill each domain, in order */
        long k = c->gpus_per_node / per_host * per_host;
        if (k > r->ranks)
            k = r->ranks;
        if (k < 1)
            k = 1;
        *ranks_per_domain = k;
        return (r->ranks + k - 1) / k;
    }
    *ranks_per_domain = per_host;
    return r->hosts > 0 ? r->hosts : 1;
}

pp_link_class pp_nccl_run_link(const pp_cluster *c, const pp_nccl_run *r)
{
    long k;
    return pp_nccl_run_domains(c, r, &k) > 1 ? PP_LINK_NETWORK : PP_LINK_NVLINK;
}

bool pp_nccl_run_fitted(const pp_nccl_run *r)
{
    return !r->unusable[0] && r->n_rows > 0 && r->ranks >= 2 &&
           (r->op == PP_NCCL_ALLREDUCE || r->op == PP_NCCL_ALLGATHER || r->op == PP_NCCL_REDUCESCATTER ||
            r->op == PP_NCCL_SENDRECV);
}

double pp_nccl_model_time_us(const pp_cluster *cluster, const pp_nccl_run *r, double bytes)
{
    /* a one-node log's all-reduces are read as rings, what the documented
     * runs measure (NCCL_ALGO=Ring, docs/calibration.md): NVLink SHARP's
     * one-node all-reduce moves no ring's bytes and would fit no link.
     * Across nodes NCCL's defaults may run NVLS-Tree, whose NICs carry each
     * node's shares as the tree's do: read as NCCL runs it, unless the log
     * turns NVLS off (NCCL_NVLS_ENABLE=0) or names its algorithms */
    pp_cluster ring = *cluster;
    ring.nccl_algos = r->algos; /* the log's NCCL_ALGO, if it set one */
    long k;
    bool across = pp_nccl_run_domains(&ring, r, &k) > 1;
    ring.nccl_nvls = across && !r->nvls_off;
    const pp_cluster *c = &ring;
    if (r->op == PP_NCCL_SENDRECV)
        return pp_p2p_time_s(c, bytes, across) * 1e6;
    pp_collective kind = r->op == PP_NCCL_ALLREDUCE   ? PP_COLL_ALLREDUCE
                         : r->op == PP_NCCL_ALLGATHER ? PP_COLL_ALLGATHER
                                                      : PP_COLL_REDUCESCATTER;
    return pp_collective_time_s(c, kind, bytes, r->ranks, across ? k : r->ranks) * 1e6;
}

/* Each link class's two parameters: its efficiency and its latency (rows
 * of the catalog's efficiency table). */
static const pp_eff_id LINK_EFF[PP_LINK_COUNT][2] = {
    [PP_LINK_NVLINK] = {PP_EFF_NVLINK, PP_EFF_NVLINK_LATENCY_US},
    [PP_LINK_NETWORK] = {PP_EFF_NETWORK, PP_EFF_NETWORK_LATENCY_US},
};

void pp_link_calibration_bounds(const pp_catalog *cat, pp_link_calibration *cal)
{
    memset(cal->lo, 0, sizeof cal->lo);
    memset(cal->hi, 0, sizeof cal->hi);
    const pp_eff_family *family = pp_catalog_gpu_family(cat, cal->cluster.gpu.id);
    if (!family)
        return;
    for (int x = 0; x < PP_LINK_COUNT; x++)
        for (int k = 0; k < 2; k++) {
            cal->lo[x][k] = family->bound[LINK_EFF[x][k]].lo;
            cal->hi[x][k] = family->bound[LINK_EFF[x][k]].hi;
        }
}

/* tie: the network's latency is NVLink's too (latency_from_network). */
static void set_link(pp_cluster *c, pp_link_class x, double eff, double alpha_us, bool tie)
{
    *pp_efficiency_field(&c->gpu.eff, LINK_EFF[x][0]) = eff;
    *pp_efficiency_field(&c->gpu.eff, LINK_EFF[x][1]) = alpha_us;
    if (tie && x == PP_LINK_NETWORK)
        *pp_efficiency_field(&c->gpu.eff, LINK_EFF[PP_LINK_NVLINK][1]) = alpha_us;
}

/* A near-infinite efficiency: the bandwidth term of the class vanishes. */
#define NO_BANDWIDTH_TERM 1e12

/* The model's time of one size of a run with the class at u = 1/efficiency
 * and latency alpha. */
static double time_at(const pp_cluster *base, pp_link_class x, const pp_nccl_run *r, double bytes, double u,
                      double alpha, bool tie)
{
    pp_cluster c = *base;
    set_link(&c, x, u > 1.0 / NO_BANDWIDTH_TERM ? 1.0 / u : NO_BANDWIDTH_TERM, alpha, tie);
    return pp_nccl_model_time_us(&c, r, bytes);
}

/* t ~ A u + B alpha + C near (u0, alpha0), read off the cost model itself:
 * a collective is linear in u and alpha on each link class until another
 * link or algorithm becomes the slower one (NCCL pipelines NVLink and the
 * network, and takes the faster of ring and tree), so the slopes are taken
 * over a step on the side of slower links, where the class is the one that
 * binds, and on the side of faster ones, where the algorithm it binds stays
 * the faster: the steeper. */
static void coefficients(const pp_cluster *base, pp_link_class x, const pp_nccl_run *r, double bytes, double u0,
                         double a0, bool tie, double *A, double *B, double *C)
{
    double t0 = time_at(base, x, r, bytes, u0, a0, tie);
    double du = 0.25 * u0, da = a0 > 1.0 ? 0.25 * a0 : 1.0;
    *A = (time_at(base, x, r, bytes, u0 + du, a0, tie) - t0) / du;
    *B = (time_at(base, x, r, bytes, u0, a0 + da, tie) - t0) / da;
    /* ... and on the side of faster ones: the faster of two algorithms
     * (ring, tree) may take over when the class slows, so its slope is the
     * steeper of the two sides */
    *A = fmax(*A, (t0 - time_at(base, x, r, bytes, u0 - du, a0, tie)) / du);
    if (a0 > 1.0)
        *B = fmax(*B, (t0 - time_at(base, x, r, bytes, u0, a0 - da, tie)) / da);
    *C = t0 - *A * u0 - *B * a0;
}

/* Sums of the weighted normal equations of min sum ((A u + B a + C - t) / t)^2,
 * over every row (all), the rows the class's bandwidth term dominates (bw)
 * and those its latency dominates (lat). */
typedef struct normal_eq {
    double aa, ab, bb, ay, by;
    int rows;
} normal_eq;

typedef struct link_eqs {
    normal_eq all, bw, lat;
    int runs;
} link_eqs;

/* A row identifies a parameter when that parameter's term is at least this
 * share of the model's time there: the largest sizes the bandwidth, the
 * smallest the latency.  The sizes between, where NCCL changes protocol
 * (LL, LL128, Simple) and channel count with the size and the model's two
 * terms share the time, inform neither: a misfit there would otherwise pull
 * the bandwidth away from the sizes it governs. */
#define LINK_ROW_SHARE 0.8

static void add_row(normal_eq *q, double w, double A, double B, double y)
{
    q->aa += w * A * A;
    q->ab += w * A * B;
    q->bb += w * B * B;
    q->ay += w * A * y;
    q->by += w * B * y;
    q->rows++;
}

static void accumulate(const pp_cluster *c, pp_link_class x, const pp_nccl_run *r, double u0, double a0, bool tie,
                       link_eqs *q)
{
    for (int i = 0; i < r->n_rows; i++) {
        double A, B, C, t = r->rows[i].time_us;
        coefficients(c, x, r, r->rows[i].bytes, u0, a0, tie, &A, &B, &C);
        double w = 1.0 / (t * t), y = t - C, model = A * u0 + B * a0 + C;
        add_row(&q->all, w, A, B, y);
        if (model > 0.0 && A * u0 >= LINK_ROW_SHARE * model)
            add_row(&q->bw, w, A, B, y);
        if (model > 0.0 && B * a0 >= LINK_ROW_SHARE * model)
            add_row(&q->lat, w, A, B, y);
    }
    q->runs++;
}

/* The joint solution for u = 1/efficiency >= 1 and alpha >= 0. */
static bool solve_joint(const normal_eq *q, double *u, double *a, bool *latency_floor)
{
    double det = q->aa * q->bb - q->ab * q->ab;
    if (q->aa <= 0.0)
        return false;
    if (q->bb > 0.0 && det > 1e-9 * q->aa * q->bb) {
        *u = (q->ay * q->bb - q->by * q->ab) / det;
        *a = (q->aa * q->by - q->ab * q->ay) / det;
    } else {
        *a = 0.0;
        *u = q->ay / q->aa;
    }
    if (*a < 0.0) {
        *a = 0.0;
        *u = q->ay / q->aa;
        *latency_floor = true;
    }
    return true;
}

/* Each parameter from the rows it governs: u from the bandwidth-bound rows
 * (their own joint solution: the latency they carry is theirs to fit, not
 * the small sizes'), alpha from the latency-bound rows at that u.  A log
 * with no row of one kind (sizes that stop at a few megabytes, or start
 * there) leaves that parameter to the joint solution of all rows.  Then
 * u >= 1 (faster than the line rate: held there) and alpha >= 0. */
static bool solve(const link_eqs *q, pp_link_fit *f)
{
    double u, a;
    if (!solve_joint(&q->all, &u, &a, &f->latency_floor))
        return false;
    double ub, ab;
    bool bw_floor = false; /* the bandwidth rows' own latency is not reported */
    if (q->bw.rows >= 2 && solve_joint(&q->bw, &ub, &ab, &bw_floor)) {
        u = ub;
        f->bw_rows = q->bw.rows;
    }
    if (q->lat.rows > 0 && q->lat.bb > 0.0) {
        a = (q->lat.by - q->lat.ab * u) / q->lat.bb;
        f->latency_rows = q->lat.rows;
        f->latency_floor = a < 0.0;
        a = fmax(a, 0.0);
    }
    if (u < 1.0) {
        u = 1.0;
        if (!q->lat.rows)
            a = q->all.bb > 0.0 ? fmax(0.0, (q->all.by - q->all.ab) / q->all.bb) : 0.0;
        f->at_line_rate = true;
    }
    if (!isfinite(u) || !isfinite(a))
        return false;
    f->efficiency = 1.0 / u;
    f->latency_us = a;
    return true;
}

/* Rounds of the Gauss-Newton fit (it stops when a round moves nothing). */
#define LINK_FIT_ROUNDS 30

/* Fit class x from the runs that measure it (Gauss-Newton from its current
 * values: each round fits the model linearized there; a model linear in
 * the class, one link and one algorithm, is done in the first round). */
static bool fit_class(const pp_nccl_log *logs, int n_logs, pp_link_calibration *cal, pp_link_class x, bool tie)
{
    pp_link_fit *f = &cal->link[x];
    link_eqs q;
    memset(&q, 0, sizeof q);
    bool ok = false;
    double last_du = 0.0, damping = 1.0;
    for (int round = 0; round < LINK_FIT_ROUNDS; round++) {
        double u0 = 1.0 / f->efficiency, a0 = f->latency_us;
        memset(&q, 0, sizeof q);
        for (int l = 0; l < n_logs; l++)
            for (int i = 0; i < logs[l].n_runs; i++) {
                const pp_nccl_run *r = &logs[l].runs[i];
                if (pp_nccl_run_fitted(r) && pp_nccl_run_link(&cal->cluster, r) == x)
                    accumulate(&cal->cluster, x, r, u0, a0, tie, &q);
            }
        pp_link_fit next = *f;
        next.at_line_rate = next.latency_floor = false;
        next.bw_rows = next.latency_rows = 0;
        if (q.all.rows == 0 || !solve(&q, &next))
            break;
        /* where the model bends (NCCL takes the faster of ring and tree) the
         * linearized step can overshoot one way and then the other: a step
         * that reverses the last one goes half as far */
        double du = 1.0 / next.efficiency - 1.0 / f->efficiency;
        if (ok && du * last_du < 0.0) {
            damping *= 0.5;
            next.efficiency = 1.0 / (1.0 / f->efficiency + damping * du);
            next.latency_us = f->latency_us + damping * (next.latency_us - f->latency_us);
            du *= damping;
        }
        last_du = du;
        ok = true;
        bool moved = fabs(next.efficiency - f->efficiency) > 1e-9 * f->efficiency ||
                     fabs(next.latency_us - f->latency_us) > 1e-9 * (1.0 + f->latency_us);
        *f = next;
        if (!moved)
            break;
    }
    f->n_rows = q.all.rows;
    f->n_runs = q.runs;
    if (!ok) {
        f->unidentified = q.all.rows > 0 && q.all.aa <= 0.0; /* rows, but no bandwidth term in them */
        return false;
    }
    f->fitted = true;
    set_link(&cal->cluster, x, f->efficiency, f->latency_us, tie);
    return true;
}

/* A size counts among a run's largest when it is at least this share of
 * the run's largest size (its top two octaves). */
#define LARGEST_SIZE_SHARE 0.25

/* The squared relative misfit of class x's runs at their largest sizes, at
 * the calibration's values: the sizes whose time is the links' bandwidth,
 * where a fit is judged (the smaller ones carry NCCL's protocol changes and
 * the fabric's latency, which the bandwidth must not be traded for). */
static double misfit(const pp_nccl_log *logs, int n_logs, const pp_link_calibration *cal, pp_link_class x, bool tie)
{
    const pp_link_fit *f = &cal->link[x];
    double sum = 0.0;
    for (int l = 0; l < n_logs; l++)
        for (int i = 0; i < logs[l].n_runs; i++) {
            const pp_nccl_run *r = &logs[l].runs[i];
            if (!pp_nccl_run_fitted(r) || pp_nccl_run_link(&cal->cluster, r) != x)
                continue;
            double largest = 0.0;
            for (int k = 0; k < r->n_rows; k++)
                largest = fmax(largest, r->rows[k].bytes);
            for (int k = 0; k < r->n_rows; k++) {
                if (r->rows[k].bytes < LARGEST_SIZE_SHARE * largest)
                    continue;
                double t = r->rows[k].time_us;
                double e = time_at(&cal->cluster, x, r, r->rows[k].bytes, 1.0 / f->efficiency, f->latency_us, tie) / t;
                sum += (e - 1.0) * (e - 1.0);
            }
        }
    return sum;
}

static bool in_bounds(const pp_link_calibration *cal, pp_link_class x, double efficiency)
{
    return !(cal->hi[x][0] > 0.0) || (efficiency >= cal->lo[x][0] && efficiency <= cal->hi[x][0]);
}

/* Fit class x from its start and from its family's bounds.  The model
 * bends where NCCL's faster algorithm changes (a ring against a tree its
 * channels cap, docs/cost-model.md §3): from one side of a bend the class
 * may not bind at all, and Gauss-Newton never crosses to where it does.  Of
 * the fits inside the family's bounds, the one closest at the runs' largest
 * sizes stands; with none inside them, the start's own fit stands if it
 * made one (reported out of bounds, as a fit it is), else its why: a fit
 * found only from the bounds, outside them, tells no more than that the
 * runs cannot show the class. */
static bool fit_from_starts(const pp_nccl_log *logs, int n_logs, pp_link_calibration *cal, pp_link_class x, bool tie)
{
    const double starts[] = {cal->link[x].efficiency, cal->hi[x][0], cal->lo[x][0]};
    pp_link_calibration first = *cal, best = *cal;
    bool first_ok = false, have = false;
    double least = 0.0;
    for (int k = 0; k < (int)(sizeof starts / sizeof starts[0]); k++) {
        if (k > 0 && (!(starts[k] > 0.0) || fabs(starts[k] - starts[0]) < 1e-9))
            continue;
        pp_link_calibration c = *cal;
        c.link[x].efficiency = starts[k];
        bool ok = fit_class(logs, n_logs, &c, x, tie);
        if (k == 0) {
            first = c;
            first_ok = ok;
        }
        if (!ok || !in_bounds(&c, x, c.link[x].efficiency))
            continue;
        double m = misfit(logs, n_logs, &c, x, tie);
        if (!have || m < least) {
            best = c;
            least = m;
            have = true;
        }
    }
    *cal = have ? best : first;
    return have || first_ok;
}

int pp_calibrate_links(const pp_nccl_log *logs, int n_logs, pp_link_calibration *cal)
{
    int fitted = 0;
    pp_efficiency *e = &cal->cluster.gpu.eff;
    for (int x = 0; x < PP_LINK_COUNT; x++) { /* NVLink first: network runs contain an NVLink part */
        pp_link_fit *f = &cal->link[x];
        memset(f, 0, sizeof *f);
        f->line_GBps = x == PP_LINK_NVLINK ? cal->cluster.intra_node_GBps : cal->cluster.inter_node_Gbps / 8.0;
        f->efficiency = pp_efficiency_value(e, LINK_EFF[x][0]);
        f->latency_us = pp_efficiency_value(e, LINK_EFF[x][1]);
        fitted += fit_from_starts(logs, n_logs, cal, (pp_link_class)x, false);
    }
    /* NVLink's kept latency (a training fit's, which can carry more than a
     * step: docs/calibration.md) leaves the network runs' small sizes less
     * than nothing: those runs measure NVLink's steps too, so both
     * latencies are fitted as one, from the network's start */
    pp_link_fit *nv = &cal->link[PP_LINK_NVLINK], *net = &cal->link[PP_LINK_NETWORK];
    if (!nv->fitted && net->fitted && net->latency_floor && nv->latency_us > 0.0) {
        pp_link_calibration tied = *cal;
        pp_link_fit *t = &tied.link[PP_LINK_NETWORK];
        t->efficiency = net->efficiency; /* from the untied fit, and from the bounds */
        t->latency_us = fmin(pp_efficiency_value(e, LINK_EFF[PP_LINK_NETWORK][1]), nv->latency_us);
        set_link(&tied.cluster, PP_LINK_NETWORK, cal->cluster.gpu.eff.network, t->latency_us, true);
        if (fit_from_starts(logs, n_logs, &tied, PP_LINK_NETWORK, true)) {
            tied.link[PP_LINK_NVLINK].latency_from_network = true;
            tied.link[PP_LINK_NVLINK].kept_latency_us = nv->latency_us;
            tied.link[PP_LINK_NVLINK].latency_us = t->latency_us;
            *cal = tied;
        }
    }
    return fitted;
}
