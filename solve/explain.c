/*
 * explain.c: the numbers behind the report's "why" (see explain.h).
 *
 * What a constraint is worth is measured, not estimated: every counterfactual
 * is a full solve of a changed problem, by the MIP (whatever --method says:
 * enumerating every changed problem would take minutes, and the tests hold
 * the two methods to the same optimum) with the user's time limit, so "with 96 GiB per GPU a step would take 6.1% less" is the
 * optimum of that problem, not a sensitivity of the LP.  A solve of the
 * default example takes tens of milliseconds, so the dozen re-solves of a
 * report cost less than a second.
 *
 * Each family gets its own analysis function, found by name in FAMILY_TABLE;
 * a family this file does not know (a new cons_<name>.c) gets the generic
 * one: its rows, and a re-solve with the family dropped.
 */
#include "explain.h"

#include "catalog_source.h"
#include "costmodel.h"
#include "error.h"
#include "rules.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAME_STEP_REL 1e-9  /* two step times this close are the same optimum */
#define GPU_SEARCH_STEPS 64 /* node counts tried in each direction for the GPU-count counterfactual */
#define WORTH_MENTIONING 5e-4 /* a speed-up below 0.05 % is not listed among "what would speed it up" */

/* ---- small text helpers ---------------------------------------------------- */

/* Append to a fixed buffer (truncating safely). */
static void cat(char *buf, size_t cap, const char *fmt, ...) PP_PRINTF(3, 4);
static void cat(char *buf, size_t cap, const char *fmt, ...)
{
    size_t n = strlen(buf);
    if (n + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, cap - n, fmt, ap);
    va_end(ap);
}

static char toupper_ascii(char ch)
{
    return ch >= 'a' && ch <= 'z' ? (char)(ch - 'a' + 'A') : ch;
}

static const char *codec_id(const pp_problem *prob, int i)
{
    return i >= 0 && i < prob->n_codecs ? prob->codecs[i].id : "none";
}

/* "6.1%" with one decimal, or two below 1 %. */
static void pct(double fraction, char *buf, size_t cap)
{
    double p = 100.0 * fabs(fraction);
    snprintf(buf, cap, p < 1.0 ? "%.2f%%" : "%.1f%%", p);
}

void pp_plan_text(const pp_problem *prob, const pp_plan *p, char *buf, size_t cap)
{
    snprintf(buf, cap, "tp=%d pp=%d dp=%d cp=%d micro_batch=%d virtual_stages=%d zero=%d recompute=%s sp=%s", p->tp,
             p->pp, p->dp, p->cp, p->micro_batch, p->virtual_stages, p->zero, pp_recompute_name(p->recompute),
             p->sequence_parallel ? "on" : "off");
    if (p->tp_mode != PP_TP_1D)
        cat(buf, cap, " tp_mode=%s", pp_tp_mode_name(p->tp_mode));
    if (p->tp_mode == PP_TP_2P5D)
        cat(buf, cap, " tp_depth=%d", p->tp_depth);
    cat(buf, cap, " compression dp/tp/pp=%s/%s/%s", codec_id(prob, p->codec[PP_DIM_DP]),
        codec_id(prob, p->codec[PP_DIM_TP]), codec_id(prob, p->codec[PP_DIM_PP]));
    if (p->codec[PP_DIM_PARAMS] != 0) /* ZeRO's parameter gathers, as report_md's plan line */
        cat(buf, cap, " params=%s", codec_id(prob, p->codec[PP_DIM_PARAMS]));
}

void pp_plan_changes(const pp_problem *prob, const pp_plan *b, const pp_plan *a, char *buf, size_t cap)
{
    buf[0] = '\0';
    const struct {
        const char *name;
        int x, y;
    } ints[] = {
        {"tp", b->tp, a->tp}, {"pp", b->pp, a->pp}, {"dp", b->dp, a->dp}, {"cp", b->cp, a->cp},
        {"micro_batch", b->micro_batch, a->micro_batch}, {"virtual_stages", b->virtual_stages, a->virtual_stages},
        {"zero", b->zero, a->zero},
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (ints[i].x != ints[i].y)
            cat(buf, cap, "%s%s=%d instead of %d", buf[0] ? ", " : "", ints[i].name, ints[i].x, ints[i].y);
    if (b->recompute != a->recompute)
        cat(buf, cap, "%srecompute=%s instead of %s", buf[0] ? ", " : "", pp_recompute_name(b->recompute),
            pp_recompute_name(a->recompute));
    if (b->sequence_parallel != a->sequence_parallel)
        cat(buf, cap, "%ssp=%s instead of %s", buf[0] ? ", " : "", b->sequence_parallel ? "on" : "off",
            a->sequence_parallel ? "on" : "off");
    if (b->tp_mode != a->tp_mode || b->tp_depth != a->tp_depth)
        cat(buf, cap, "%stp_mode=%s instead of %s", buf[0] ? ", " : "", pp_tp_mode_name(b->tp_mode),
            pp_tp_mode_name(a->tp_mode));
    for (int d = 0; d < PP_DIM_COUNT; d++)
        if (b->codec[d] != a->codec[d])
            cat(buf, cap, "%s%s compression %s instead of %s", buf[0] ? ", " : "", pp_dim_name((pp_dim)d),
                codec_id(prob, b->codec[d]), codec_id(prob, a->codec[d]));
}

/* ---- how to run it ---------------------------------------------------------- */

typedef struct flag_lines {
    char (*lines)[160];
    int n, max;
} flag_lines;

static void flag(flag_lines *f, const char *fmt, ...) PP_PRINTF(2, 3);
static void flag(flag_lines *f, const char *fmt, ...)
{
    if (f->n >= f->max)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->lines[f->n++], 160, fmt, ap);
    va_end(ap);
}

int pp_megatron_flags(const pp_problem *prob, const pp_plan *p, char lines[][160], int max)
{
    const pp_model *m = &prob->model;
    const pp_training *t = &prob->training;
    flag_lines f = {lines, 0, max};
    flag(&f, "--tensor-model-parallel-size %d", p->tp);
    flag(&f, "--pipeline-model-parallel-size %d", p->pp);
    if (p->virtual_stages > 1)
        flag(&f, "--num-layers-per-virtual-pipeline-stage %d", m->layers / (p->pp * p->virtual_stages));
    flag(&f, "--context-parallel-size %d", p->cp);
    flag(&f, "--micro-batch-size %d", p->micro_batch);
    flag(&f, "--global-batch-size %ld", t->global_batch);
    if (p->sequence_parallel)
        flag(&f, "--sequence-parallel");
    if (p->zero == 1)
        flag(&f, "--use-distributed-optimizer");
    else if (p->zero >= 2) {
        flag(&f, "--use-distributed-optimizer --use-megatron-fsdp");
        flag(&f, "--data-parallel-sharding-strategy %s", p->zero == 2 ? "optim_grads" : "optim_grads_params");
        flag(&f, "--no-gradient-accumulation-fusion --ckpt-format fsdp_dtensor");
    }
    if (p->recompute == PP_RECOMPUTE_SELECTIVE)
        flag(&f, "--recompute-granularity selective");
    else if (p->recompute == PP_RECOMPUTE_FULL)
        flag(&f, "--recompute-granularity full --recompute-method uniform --recompute-num-layers 1");
    if (t->dp_overlap && p->dp > 1)
        flag(&f, "--overlap-grad-reduce%s", p->zero >= 1 ? " --overlap-param-gather" : "");
    if (t->flash_attention)
        flag(&f, "--use-flash-attn");
    flag(&f, "--num-layers %d --hidden-size %d --num-attention-heads %d", m->layers, m->hidden, m->heads);
    if (m->kv_heads != m->heads)
        flag(&f, "--group-query-attention --num-query-groups %d", m->kv_heads);
    if (m->ffn_hidden != 4 * m->hidden || m->gated_mlp)
        flag(&f, "--ffn-hidden-size %d%s", m->ffn_hidden, m->gated_mlp ? " --swiglu" : "");
    if (!m->tie_embeddings)
        flag(&f, "--untie-embeddings-and-output-weights");
    flag(&f, "--seq-length %d --max-position-embeddings %d", m->seq_len, m->seq_len);
    switch (t->precision) {
    case PP_PREC_FP16: flag(&f, "--fp16"); break;
    case PP_PREC_FP8: flag(&f, "--bf16 --transformer-impl transformer_engine --fp8-format hybrid"); break;
    default: flag(&f, "--bf16"); break;
    }
    return f.n;
}

/* ---- parts of the step time -------------------------------------------------- */

static const char *const PART_NAMES[PP_PART_COUNT] = {
    "computation", "pipeline bubble", "exposed tensor-parallel communication",
    "exposed context-parallel exchange", "pipeline sends", "exposed data-parallel communication",
    "compression kernels", "optimizer step",
};
static const char *const PART_KEYS[PP_PART_COUNT] = {"compute", "bubble", "tp_comm", "cp_comm",
                                                     "pp_comm", "dp_comm", "compression", "optimizer"};

double pp_part_s(const pp_time *t, pp_part part)
{
    switch (part) {
    case PP_PART_COMPUTE: return t->compute_s;
    case PP_PART_BUBBLE: return t->bubble_s;
    case PP_PART_TP_COMM: return t->tp_comm_s;
    case PP_PART_CP_COMM: return t->cp_comm_s;
    case PP_PART_PP_COMM: return t->pp_comm_s;
    case PP_PART_DP_COMM: return t->dp_comm_s;
    case PP_PART_COMPRESSION: return t->compression_s;
    case PP_PART_OPTIMIZER: return t->optimizer_s;
    case PP_PART_COUNT: break;
    }
    return 0.0;
}

const char *pp_part_name(pp_part part)
{
    return part >= 0 && part < PP_PART_COUNT ? PART_NAMES[part] : "?";
}

const char *pp_part_key(pp_part part)
{
    return part >= 0 && part < PP_PART_COUNT ? PART_KEYS[part] : "?";
}

/* ---- re-solving ------------------------------------------------------------- */

typedef struct ctx {
    const pp_problem *prob;
    const pp_catalog *cat;
    const pp_plan_options *solve;
    const pp_plan_result *res;
    double best_s; /* step time of the optimum */
} ctx;

static bool same_step(double a, double b)
{
    return fabs(a - b) <= SAME_STEP_REL * fmax(fabs(a), fabs(b));
}

/* Solve a changed problem (with `relax` families dropped) into cf. */
static void resolve(const ctx *c, const pp_problem *changed, unsigned relax, pp_counterfactual *cf)
{
    pp_plan_options o = *c->solve;
    o.method = PP_METHOD_MILP; /* the enumerator gives the same optimum, minutes later */
    o.top_k = 0;
    o.export_lp = o.export_mps = NULL;
    o.relax |= relax;
    pp_plan_result r;
    pp_error err;
    pp_error_clear(&err);
    int rc = pp_plan_solve(changed, &o, &r, &err);
    cf->gpus = (double)pp_cluster_gpus(changed);
    if (rc == PP_OK && r.best.plan.tp >= 1) {
        cf->status = r.status;
        cf->best = r.best;
        cf->gain = c->best_s > 0 ? (c->best_s - r.best.eval.time.step_s) / c->best_s : 0.0;
        if (same_step(c->best_s, r.best.eval.time.step_s))
            cf->gain = 0.0;
    } else {
        cf->status = PP_STATUS_INFEASIBLE;
        snprintf(cf->reason, sizeof cf->reason, "%s",
                 r.infeasible_reason[0] ? r.infeasible_reason : err.msg[0] ? err.msg : "no plan found");
    }
    pp_plan_result_free(&r);
}

static bool found(const pp_counterfactual *cf)
{
    return cf->status != PP_STATUS_INFEASIBLE;
}

static bool faster(const pp_counterfactual *cf)
{
    return found(cf) && cf->gain > 0.0;
}

/* "a step would take 6.1% less (17.480 s): the plan changes to X; " */
static void effect(const ctx *c, const pp_counterfactual *cf, char *buf, size_t cap)
{
    char p[32], changes[256];
    pct(cf->gain, p, sizeof p);
    if (!found(cf)) {
        cat(buf, cap, "no plan would exist (%s)", cf->reason);
        return;
    }
    pp_plan_changes(c->prob, &cf->best.plan, &c->res->best.plan, changes, sizeof changes);
    if (cf->gain > 0)
        cat(buf, cap, "a step would take %s less (%.3f s)", p, cf->best.eval.time.step_s);
    else if (cf->gain < 0)
        cat(buf, cap, "a step would take %s more (%.3f s)", p, cf->best.eval.time.step_s);
    else
        cat(buf, cap, "the step time would not change");
    if (changes[0])
        cat(buf, cap, ", with %s", changes);
    else if (cf->gain != 0)
        cat(buf, cap, ", with the same plan");
    if (cf->status == PP_STATUS_TIME_LIMIT)
        cat(buf, cap, " (best found within the time limit, not proven optimal)");
}

/* ---- the families ----------------------------------------------------------- */

/* The row a reader should look at: one the family itself marks binding,
 * else the inequality with the least slack relative to its limit (a row
 * whose limit is 0, like "no lossy codec on tp", is a rule, not a margin). */
static int tightest_row(const pp_family_report *f)
{
    int best = -1;
    double best_rel = HUGE_VAL;
    for (int pass = 0; pass < 2 && best < 0; pass++)
        for (int i = 0; i < f->n_rows; i++) {
            const pp_cons_row *r = &f->rows[i];
            if (r->equality || (pass == 0 && !r->binding) || (pass == 1 && r->rhs == 0.0))
                continue;
            double rel = r->slack / fmax(fabs(r->rhs), 1e-300);
            if (rel < best_rel) {
                best_rel = rel;
                best = i;
            }
        }
    for (int i = 0; best < 0 && i < f->n_rows; i++)
        if (!f->rows[i].equality)
            best = i;
    return best;
}

static void family_rows(const ctx *c, pp_family_report *f)
{
    const pp_candidate *b = &c->res->best;
    f->n_rows = f->family->rows_at(c->prob, &b->plan, &b->eval, f->rows, PP_CONS_MAX_ROWS);
    f->tightest = tightest_row(f);
    for (int i = 0; i < f->n_rows; i++)
        if (f->rows[i].binding || f->rows[i].equality)
            f->tight = true;
}

static pp_counterfactual *add_cf(pp_family_report *f, const char *key, const char *what)
{
    if (f->n_cf >= PP_EXPLAIN_MAX_CF)
        return NULL;
    pp_counterfactual *cf = &f->cf[f->n_cf++];
    memset(cf, 0, sizeof *cf);
    snprintf(cf->key, sizeof cf->key, "%s", key);
    snprintf(cf->what, sizeof cf->what, "%s", what);
    return cf;
}

/* Memory: drop the family; if that helps, price 16 GiB more and the next
 * GPU size of the catalog. */
static void analyze_memory(const ctx *c, pp_family_report *f, bool counterfactuals)
{
    const pp_memory *m = &c->res->best.eval.mem;
    double cap_gib = c->prob->cluster.gpu.memory_gib;
    char *v = f->verdict;
    size_t vc = sizeof f->verdict;
    const pp_cons_row *t = f->tightest >= 0 ? &f->rows[f->tightest] : NULL;
    if (!counterfactuals) {
        cat(v, vc, "The most loaded GPU needs %.2f GiB of the %.2f GiB usable (slack %.2f GiB); no re-solve was run.",
            m->total_gib, m->usable_gib, t ? t->slack : m->usable_gib - m->total_gib);
        return;
    }
    pp_counterfactual *drop = add_cf(f, "memory=unlimited", "no memory limit at all");
    resolve(c, c->prob, pp_cons_bit("memory"), drop);
    f->binds = faster(drop);
    if (!f->binds) {
        cat(v, vc,
            "Memory does not bind: the most loaded GPU (stage %d) needs %.2f GiB of the %.2f GiB usable "
            "(slack %.2f GiB), and even with unlimited memory the same plan would be the fastest.",
            m->stage, m->total_gib, m->usable_gib, m->usable_gib - m->total_gib);
        return;
    }
    char what[256], key[48];
    cat(v, vc, "Memory binds: faster plans need more than the %.2f GiB usable per GPU (this plan leaves %.2f GiB).",
        m->usable_gib, m->usable_gib - m->total_gib);
    pp_problem *changed = malloc(sizeof *changed);
    if (!changed)
        return;
    double sizes[2] = {cap_gib + PP_MEMORY_STEP_GIB, 0.0};
    const char *next_name = NULL;
    for (int i = 0; c->cat && i < c->cat->n_gpus; i++) {
        double g = c->cat->gpus[i].memory_gib;
        if (g > sizes[0] + 0.5 && (sizes[1] == 0.0 || g < sizes[1])) {
            sizes[1] = g;
            next_name = c->cat->gpus[i].name;
        }
    }
    bool helped = false;
    for (int k = 0; k < 2 && !helped; k++) {
        if (sizes[k] <= 0.0)
            continue;
        *changed = *c->prob;
        changed->cluster.gpu.memory_gib = sizes[k];
        snprintf(key, sizeof key, "memory_gib=%g", sizes[k]);
        snprintf(what, sizeof what, "%.0f GiB per GPU instead of %.0f%s%s", sizes[k], cap_gib,
                 k == 1 && next_name ? ", the size of the " : "", k == 1 && next_name ? next_name : "");
        pp_counterfactual *cf = add_cf(f, key, what);
        if (!cf)
            break;
        resolve(c, changed, 0, cf);
        if (faster(cf)) {
            helped = true;
            cat(v, vc, " With %s, ", what);
            effect(c, cf, v, vc);
            cat(v, vc, "; it would need %.2f GiB per GPU.", cf->best.eval.mem.total_gib);
        } else
            cat(v, vc, " %s would not change the plan.", what);
    }
    if (!helped) {
        cat(v, vc, " Only with far more memory: ");
        effect(c, drop, v, vc);
        cat(v, vc, "; it would need %.2f GiB per GPU.", drop->best.eval.mem.total_gib);
    }
    free(changed);
}

/* Accuracy: lift every tolerance. */
static void analyze_accuracy(const ctx *c, pp_family_report *f, bool counterfactuals)
{
    const pp_problem *prob = c->prob;
    const pp_plan *plan = &c->res->best.plan;
    char *v = f->verdict;
    size_t vc = sizeof f->verdict;
    bool any_lossy = false;
    for (int i = 0; i < prob->n_codecs; i++)
        any_lossy = any_lossy || prob->codecs[i].lossy;
    for (int d = 0; d < PP_DIM_COUNT; d++) {
        const pp_codec *k = &prob->codecs[plan->codec[d] >= 0 && plan->codec[d] < prob->n_codecs ? plan->codec[d] : 0];
        if (k->lossy)
            cat(v, vc, "The plan compresses %s traffic with %s (relative error %.2g of the %.2g allowed). ",
                pp_dim_name((pp_dim)d), k->id, k->rel_error, prob->error_tolerance[d]);
    }
    if (!any_lossy) {
        cat(v, vc, "Accuracy does not bind: no lossy codec is in the search space.");
        return;
    }
    if (!counterfactuals) {
        cat(v, vc, "No re-solve was run.");
        return;
    }
    pp_counterfactual *cf = add_cf(f, "error_tolerance=any", "every dimension tolerating any codec's error");
    resolve(c, prob, pp_cons_bit("accuracy"), cf);
    f->binds = faster(cf);
    if (!f->binds) {
        cat(v, vc,
            "Accuracy does not bind: with every error tolerance lifted the same plan would be the fastest "
            "(the lossy codecs cost more time than they save here).");
        return;
    }
    cat(v, vc, "Accuracy binds. If every dimension tolerated any codec's error, ");
    effect(c, cf, v, vc);
    cat(v, vc, ".");
    for (int d = 0; d < PP_DIM_COUNT; d++) {
        const pp_codec *k = &prob->codecs[cf->best.plan.codec[d]];
        if (k->lossy && k->rel_error > prob->error_tolerance[d])
            cat(v, vc, " It adds relative error %.2g to %s traffic, above the tolerance %.2g "
                       "(constraints.error_tolerance.%s).",
                k->rel_error, pp_dim_name((pp_dim)d), prob->error_tolerance[d], pp_dim_name((pp_dim)d));
    }
}

/* Bandwidth: drop the family, then price faster links. */
static void analyze_bandwidth(const ctx *c, pp_family_report *f, bool counterfactuals)
{
    char *v = f->verdict;
    size_t vc = sizeof f->verdict;
    double step = c->res->best.eval.time.step_s;
    const pp_cons_row *nv = NULL, *net = NULL;
    for (int i = 0; i < f->n_rows; i++) {
        if (strcmp(f->rows[i].name, "bw_nvlink") == 0)
            nv = &f->rows[i];
        if (strcmp(f->rows[i].name, "bw_network") == 0)
            net = &f->rows[i];
    }
    pp_counterfactual *drop = NULL;
    if (counterfactuals) {
        drop = add_cf(f, "bandwidth=unlimited", "no bandwidth rows");
        resolve(c, c->prob, pp_cons_bit("bandwidth"), drop);
        f->binds = faster(drop);
    }
    cat(v, vc, "Bandwidth %s: per step one GPU keeps", f->binds ? "binds" : "does not bind");
    if (net)
        cat(v, vc, " its network link busy for %.3f s", net->lhs);
    if (nv)
        cat(v, vc, "%s NVLink busy for %.3f s", net ? " and" : "", nv->lhs);
    cat(v, vc, " of the %.3f s step", step);
    if (net || nv) {
        cat(v, vc, " (slack");
        if (net)
            cat(v, vc, " %.3f s", net->slack);
        if (nv)
            cat(v, vc, "%s %.3f s", net ? " and" : "", nv->slack);
        cat(v, vc, ")");
    }
    cat(v, vc, ".");
    if (!counterfactuals)
        return;
    if (f->binds) {
        cat(v, vc, " Without the bandwidth rows ");
        effect(c, drop, v, vc);
        cat(v, vc, ".");
    }
    pp_problem *changed = malloc(sizeof *changed);
    if (!changed)
        return;
    const pp_cluster *cl = &c->prob->cluster;
    char what[256], key[48];
    bool first = true;
    if (cl->inter_node_Gbps > 0 && cl->nodes > 1) {
        *changed = *c->prob;
        changed->cluster.inter_node_Gbps *= PP_LINK_FACTOR;
        snprintf(key, sizeof key, "inter_node_Gbps=%g", changed->cluster.inter_node_Gbps);
        snprintf(what, sizeof what, "%g Gb/s of network per GPU instead of %g", changed->cluster.inter_node_Gbps,
                 cl->inter_node_Gbps);
        pp_counterfactual *cf = add_cf(f, key, what);
        if (cf) {
            resolve(c, changed, 0, cf);
            cat(v, vc, " Faster links still pay through the cost model: with %s, ", what);
            effect(c, cf, v, vc);
            first = false;
        }
    }
    if (cl->intra_node_GBps > 0 && cl->gpus_per_node > 1) {
        *changed = *c->prob;
        changed->cluster.intra_node_GBps *= PP_LINK_FACTOR;
        snprintf(key, sizeof key, "intra_node_GBps=%g", changed->cluster.intra_node_GBps);
        snprintf(what, sizeof what, "%g GB/s of NVLink per GPU instead of %g", changed->cluster.intra_node_GBps,
                 cl->intra_node_GBps);
        pp_counterfactual *cf = add_cf(f, key, what);
        if (cf) {
            resolve(c, changed, 0, cf);
            cat(v, vc, first ? " With %s, " : "; with %s, ", what);
            effect(c, cf, v, vc);
            first = false;
        }
    }
    if (!first)
        cat(v, vc, ".");
    free(changed);
}

/* GPU count: the nearest node counts, up and down, that admit a plan. */
static void gpu_direction(const ctx *c, pp_family_report *f, pp_problem *changed, int dir)
{
    const pp_problem *prob = c->prob;
    long nodes = prob->cluster.nodes;
    long limit = dir > 0 ? nodes + GPU_SEARCH_STEPS : nodes - GPU_SEARCH_STEPS;
    if (dir > 0 && prob->capacity.present && prob->capacity.nodes_max > 0 && prob->capacity.nodes_max < limit)
        limit = prob->capacity.nodes_max;
    if (dir < 0 && limit < 1)
        limit = 1;
    char first_reason[1100] = "";
    for (long n = nodes + dir; dir > 0 ? n <= limit : n >= limit; n += dir) {
        *changed = *prob;
        changed->cluster.nodes = n;
        pp_counterfactual probe;
        memset(&probe, 0, sizeof probe);
        resolve(c, changed, 0, &probe);
        if (!found(&probe)) {
            if (!first_reason[0])
                snprintf(first_reason, sizeof first_reason, "%s", probe.reason);
            continue;
        }
        char key[48], what[256];
        snprintf(key, sizeof key, "nodes=%ld", n);
        snprintf(what, sizeof what, "%ld nodes (%ld GPUs) instead of %ld", n, n * prob->cluster.gpus_per_node, nodes);
        pp_counterfactual *cf = add_cf(f, key, what);
        if (!cf)
            return;
        probe.gpus = (double)n * prob->cluster.gpus_per_node;
        snprintf(probe.key, sizeof probe.key, "%s", key);
        snprintf(probe.what, sizeof probe.what, "%s", what);
        snprintf(probe.reason, sizeof probe.reason, "%s", first_reason);
        *cf = probe;
        return;
    }
    char key[48], what[256];
    snprintf(key, sizeof key, "nodes%+ld", (long)dir);
    snprintf(what, sizeof what, "one node %s", dir > 0 ? "more" : "fewer");
    pp_counterfactual *cf = add_cf(f, key, what);
    if (cf) {
        cf->status = PP_STATUS_INFEASIBLE;
        cf->gpus = (double)(nodes + dir) * prob->cluster.gpus_per_node;
        snprintf(cf->reason, sizeof cf->reason, "%s",
                 first_reason[0] ? first_reason : "the cluster cannot grow (capacity.nodes.max)");
    }
}

static void describe_gpu_cf(const ctx *c, const pp_counterfactual *cf, int dir, char *v, size_t vc)
{
    const pp_problem *prob = c->prob;
    long nodes = prob->cluster.nodes;
    if (!found(cf)) {
        if (dir < 0 && nodes <= 1)
            return;
        cat(v, vc, " No cluster within %d nodes %s admits a plan (one node %s: %s).", GPU_SEARCH_STEPS,
            dir > 0 ? "more" : "fewer", dir > 0 ? "more" : "fewer", cf->reason);
        return;
    }
    long n = (long)(cf->gpus / prob->cluster.gpus_per_node + 0.5);
    double gpu_time_now = c->best_s * (double)pp_cluster_gpus(prob);
    double gpu_time = cf->best.eval.time.step_s * cf->gpus;
    char g[32];
    pct((gpu_time - gpu_time_now) / gpu_time_now, g, sizeof g);
    if (n == nodes + dir)
        cat(v, vc, " With one node %s (%.0f GPUs), ", dir > 0 ? "more" : "fewer", cf->gpus);
    else
        cat(v, vc, " The nearest %s cluster that admits a plan has %ld nodes (%.0f GPUs; one node %s admits none: %s): ",
            dir > 0 ? "larger" : "smaller", n, cf->gpus, dir > 0 ? "more" : "fewer", cf->reason);
    effect(c, cf, v, vc);
    cat(v, vc, ", and the GPU time per step (GPUs x step time) would be %s %s.", g,
        gpu_time >= gpu_time_now ? "higher" : "lower");
}

static void analyze_gpus(const ctx *c, pp_family_report *f, bool counterfactuals)
{
    char *v = f->verdict;
    size_t vc = sizeof f->verdict;
    cat(v, vc, "The GPU count is an equality: every plan uses all %ld GPUs (tp x pp x dp x cp = %ld).",
        pp_cluster_gpus(c->prob), pp_cluster_gpus(c->prob));
    if (!counterfactuals)
        return;
    pp_problem *changed = malloc(sizeof *changed);
    if (!changed)
        return;
    gpu_direction(c, f, changed, +1);
    if (c->prob->cluster.nodes > 1)
        gpu_direction(c, f, changed, -1);
    free(changed);
    for (int i = 0; i < f->n_cf; i++)
        describe_gpu_cf(c, &f->cf[i], i == 0 ? +1 : -1, v, vc);
    f->binds = f->n_cf > 0 && faster(&f->cf[0]);
}

/* ---- divisibility: which rules cut the space -------------------------------- */

/* A readable name for the rule a pp_plan_check message names (rules.c). */
static void rule_name(const pp_problem *prob, const char *msg, char *buf, size_t cap)
{
    if (strstr(msg, "must divide heads") || strstr(msg, "must divide ffn_hidden"))
        snprintf(buf, cap, "tp divides the %d heads, the %d kv heads and ffn_hidden %d", prob->model.heads,
                 prob->model.kv_heads, prob->model.ffn_hidden);
    else if (strncmp(msg, "placement:", 10) == 0)
        snprintf(buf, cap, "tp divides the %d GPUs of a node", prob->cluster.gpus_per_node);
    else if (strstr(msg, "pp*virtual_stages"))
        snprintf(buf, cap, "pp x virtual_stages divides the %d layers", prob->model.layers);
    else if (strstr(msg, "needs pp >= 2"))
        snprintf(buf, cap, "interleaving needs pp >= 2");
    else if (strstr(msg, "2*cp"))
        snprintf(buf, cap, "2 x cp divides the sequence of %d", prob->model.seq_len);
    else if (strstr(msg, "dp*micro_batch"))
        snprintf(buf, cap, "dp x micro_batch divides the batch of %ld", prob->training.global_batch);
    else if (strstr(msg, "must be a multiple of pp"))
        snprintf(buf, cap, "with interleaving, the micro-batches per pipeline are a multiple of pp");
    else {
        const char *colon = strchr(msg, ':');
        snprintf(buf, cap, "%.*s", colon ? (int)(colon - msg) : 60, msg);
    }
}

static void count_cut(pp_explanation *ex, const char *rule)
{
    for (int i = 0; i < ex->n_cuts; i++)
        if (strcmp(ex->cuts[i].rule, rule) == 0) {
            ex->cuts[i].combinations++;
            return;
        }
    if (ex->n_cuts < PP_EXPLAIN_MAX_CUTS) {
        snprintf(ex->cuts[ex->n_cuts].rule, sizeof ex->cuts[0].rule, "%s", rule);
        ex->cuts[ex->n_cuts++].combinations = 1;
    }
}

static const pp_int_list *given_or(const pp_int_list *given, const pp_int_list *fallback)
{
    return given->n > 0 ? given : fallback;
}

/* Walk the degree combinations the tool tries (space.c's candidates before
 * any divisibility filter) that multiply to the GPU count, and tally the
 * first rule each breaks. */
static void count_cuts(const pp_problem *prob, pp_explanation *ex)
{
    long gpus = pp_cluster_gpus(prob);
    long span = prob->allow_tp_across_nodes ? gpus : prob->cluster.gpus_per_node;
    pp_int_list tps = {0}, cps = {4, {1, 2, 4, 8}}, mbs = {5, {1, 2, 4, 8, 16}}, vs = {6, {1, 2, 3, 4, 6, 8}};
    for (long t = 1; t <= span && tps.n < PP_MAX_VALUES; t++)
        if (span % t == 0 && gpus % t == 0)
            tps.v[tps.n++] = (int)t;
    const pp_int_list *T = given_or(&prob->search.tp, &tps), *C = given_or(&prob->search.cp, &cps);
    const pp_int_list *MB = given_or(&prob->search.micro_batch, &mbs), *V = given_or(&prob->search.virtual_stages, &vs);
    pp_plan plan;
    pp_plan_init(&plan);
    for (int a = 0; a < T->n; a++)
        for (long p = 1; p <= prob->model.layers; p++) {
            if (prob->search.pp.n > 0) {
                bool listed = false;
                for (int i = 0; i < prob->search.pp.n; i++)
                    listed = listed || prob->search.pp.v[i] == p;
                if (!listed)
                    continue;
            }
            for (int k = 0; k < C->n; k++) {
                long per = (long)T->v[a] * p * C->v[k];
                if (per <= 0 || gpus % per)
                    continue;
                for (int b = 0; b < MB->n; b++)
                    for (int w = 0; w < V->n; w++) {
                        plan.tp = T->v[a];
                        plan.pp = (int)p;
                        plan.cp = C->v[k];
                        plan.dp = (int)(gpus / per);
                        plan.micro_batch = MB->v[b];
                        plan.virtual_stages = V->v[w];
                        ex->combinations++;
                        pp_error err;
                        if (pp_plan_check(prob, &plan, &err) == PP_OK) {
                            ex->combinations_valid++;
                            continue;
                        }
                        char rule[96];
                        rule_name(prob, err.msg, rule, sizeof rule);
                        count_cut(ex, rule);
                    }
            }
        }
    /* most cutting first; ties keep the rules' order */
    for (int i = 1; i < ex->n_cuts; i++)
        for (int j = i; j > 0 && ex->cuts[j].combinations > ex->cuts[j - 1].combinations; j--) {
            pp_rule_cut tmp = ex->cuts[j];
            ex->cuts[j] = ex->cuts[j - 1];
            ex->cuts[j - 1] = tmp;
        }
}

static void analyze_divisibility(const ctx *c, pp_family_report *f, pp_explanation *ex)
{
    char *v = f->verdict;
    size_t vc = sizeof f->verdict;
    count_cuts(c->prob, ex);
    cat(v, vc,
        "Divisibility cuts the space, not the optimum: every degree divides what it splits (an equality at "
        "every plan). Of the %ld ways to split the %ld GPUs into (tp, pp, dp, cp) with the micro-batch sizes and "
        "interleaving depths tried, %ld are valid",
        ex->combinations, pp_cluster_gpus(c->prob), ex->combinations_valid);
    for (int i = 0; i < ex->n_cuts; i++)
        cat(v, vc, "%s %ld break \"%s\"", i == 0 ? ";" : ",", ex->cuts[i].combinations, ex->cuts[i].rule);
    cat(v, vc, ". Uneven splits are not modelled, so there is no counterfactual to price.");
}

/* A family this file does not know: its rows and a re-solve without it. */
static void analyze_generic(const ctx *c, pp_family_report *f, bool counterfactuals)
{
    char *v = f->verdict;
    size_t vc = sizeof f->verdict;
    const pp_cons_row *t = f->tightest >= 0 ? &f->rows[f->tightest] : NULL;
    if (!counterfactuals) {
        cat(v, vc, "No re-solve was run.");
        return;
    }
    char key[48];
    snprintf(key, sizeof key, "%s=dropped", f->family->name);
    pp_counterfactual *cf = add_cf(f, key, "the family dropped");
    resolve(c, c->prob, pp_cons_bit(f->family->name), cf);
    f->binds = faster(cf);
    if (f->binds) {
        cat(v, vc, "%c%s binds. Without it, ", toupper_ascii(f->family->name[0]), f->family->name + 1);
        effect(c, cf, v, vc);
        cat(v, vc, ".");
    } else
        cat(v, vc, "%c%s does not bind%s", toupper_ascii(f->family->name[0]), f->family->name + 1,
            t ? "" : ".");
    if (!f->binds && t)
        cat(v, vc, ": its tightest row %s has slack %.4g %s.", t->name, t->slack, t->unit ? t->unit : "");
}

/* ---- runner-ups and ties ------------------------------------------------------ */

static void tricks_of(const pp_problem *prob, const pp_plan *p, pp_runner_up_report *r)
{
    r->tricks = 0;
    r->tricks_text[0] = '\0';
    size_t cap = sizeof r->tricks_text;
    if (p->virtual_stages > 1) {
        r->tricks++;
        cat(r->tricks_text, cap, "interleaving (v=%d)", p->virtual_stages);
    }
    for (int d = 0; d < PP_DIM_COUNT; d++)
        if (p->codec[d] > 0) {
            r->tricks++;
            cat(r->tricks_text, cap, "%s%s compression (%s)", r->tricks_text[0] ? ", " : "",
                pp_dim_name((pp_dim)d), codec_id(prob, p->codec[d]));
        }
    if (p->recompute != PP_RECOMPUTE_NONE) {
        r->tricks += p->recompute == PP_RECOMPUTE_FULL ? 2 : 1;
        cat(r->tricks_text, cap, "%s%s recomputation", r->tricks_text[0] ? ", " : "",
            pp_recompute_name(p->recompute));
    }
    if (!r->tricks_text[0])
        snprintf(r->tricks_text, cap, "none");
}

/* Compare a plan with the optimum part by part. */
static void compare_with_best(const ctx *c, const pp_candidate *cand, pp_runner_up_report *r)
{
    const pp_candidate *best = &c->res->best;
    double b = best->eval.time.step_s, t = cand->eval.time.step_s;
    r->gap = b > 0 ? (t - b) / b : 0.0;
    if (same_step(t, b))
        r->gap = 0.0;
    r->tie = r->gap <= PP_COST_MODEL_ERROR;
    r->headroom_gib = cand->eval.mem.usable_gib - cand->eval.mem.total_gib;
    tricks_of(c->prob, &cand->plan, r);
    pp_plan_changes(c->prob, &cand->plan, &best->plan, r->changes, sizeof r->changes);
    int worst = -1, saves = -1;
    double worst_d = 0.0, saves_d = 0.0;
    for (int k = 0; k < PP_PART_COUNT; k++) {
        double d = pp_part_s(&cand->eval.time, (pp_part)k) - pp_part_s(&best->eval.time, (pp_part)k);
        if (d > worst_d) {
            worst_d = d;
            worst = k;
        }
        if (d < saves_d) {
            saves_d = d;
            saves = k;
        }
    }
    r->why[0] = '\0';
    if (worst < 0 || same_step(t, b)) {
        r->part = "none";
        r->part_key = "none";
        r->delta_s = 0.0;
        snprintf(r->why, sizeof r->why, "the same step time%s%s%s", r->changes[0] ? " (" : "", r->changes,
                 r->changes[0] ? ")" : "");
        return;
    }
    r->part = pp_part_name((pp_part)worst);
    r->part_key = pp_part_key((pp_part)worst);
    r->delta_s = worst_d;
    cat(r->why, sizeof r->why, "%s +%.3f s", r->part, worst_d);
    if (r->changes[0])
        cat(r->why, sizeof r->why, " (%s)", r->changes);
    if (saves >= 0 && -saves_d >= 0.1 * worst_d)
        cat(r->why, sizeof r->why, ", partly offset by %s %.3f s", pp_part_name((pp_part)saves), saves_d);
}

static void analyze_runner_ups(const ctx *c, pp_explanation *ex)
{
    const pp_plan_result *res = c->res;
    compare_with_best(c, &res->best, &ex->best);
    for (int i = 0; i < ex->n_runner_ups; i++) {
        compare_with_best(c, &res->runner_ups[i], &ex->runner_ups[i]);
        if (ex->runner_ups[i].tie)
            ex->n_ties++;
    }
}

/* The fastest plan without interleaving or compression. */
static void find_simplest(const ctx *c, pp_explanation *ex)
{
    const pp_plan *best = &c->res->best.plan;
    bool fancy = best->virtual_stages > 1;
    for (int d = 0; d < PP_DIM_COUNT; d++)
        fancy = fancy || best->codec[d] > 0;
    if (!fancy)
        return;
    pp_problem *changed = malloc(sizeof *changed);
    if (!changed)
        return;
    *changed = *c->prob;
    changed->search.virtual_stages.n = 1;
    changed->search.virtual_stages.v[0] = 1;
    for (int d = 0; d < PP_DIM_COUNT; d++) {
        changed->search.compression[d].n = 1;
        changed->search.compression[d].v[0] = 0; /* codecs[0] is "none" */
    }
    pp_counterfactual *cf = &ex->simplest;
    memset(cf, 0, sizeof *cf);
    snprintf(cf->key, sizeof cf->key, "virtual_stages=1,compression=none");
    snprintf(cf->what, sizeof cf->what, "no interleaving and no compression");
    resolve(c, changed, 0, cf);
    free(changed);
    ex->have_simplest = found(cf);
    if (ex->have_simplest)
        compare_with_best(c, &cf->best, &ex->simplest_report);
}

/* "#3": the rank of runner-up i as the report numbers it (the optimum is #1). */
static void ties_text(const ctx *c, pp_explanation *ex)
{
    char *v = ex->ties_text;
    size_t vc = sizeof ex->ties_text;
    char e[32];
    pct(PP_COST_MODEL_ERROR, e, sizeof e);
    if (ex->n_runner_ups == 0 && !ex->have_simplest)
        return;
    if (ex->n_ties == 0)
        cat(v, vc, "No runner-up is within %s of the optimum, the cost model's measured error "
                   "(docs/calibration.md): the optimum is clearly ahead.", e);
    else {
        if (ex->n_ties == ex->n_runner_ups && ex->n_ties > 1)
            cat(v, vc, "All %d runner-ups are", ex->n_ties);
        else
            cat(v, vc, "%d of the %d runner-ups %s", ex->n_ties, ex->n_runner_ups, ex->n_ties == 1 ? "is" : "are");
        cat(v, vc, " within %s of the optimum, the cost model's measured error (docs/calibration.md): the model "
                   "cannot rank %s, so treat %s as ties.",
            e, ex->n_ties == 1 ? "it" : "them", ex->n_ties == 1 ? "it" : "them");
        /* among the optimum and its ties: most headroom, fewest tricks */
        int room = 0, plain = 0; /* 0 = the optimum, i+2 = runner-up i */
        double room_gib = ex->best.headroom_gib;
        int fewest = ex->best.tricks;
        for (int i = 0; i < ex->n_runner_ups; i++) {
            const pp_runner_up_report *r = &ex->runner_ups[i];
            if (!r->tie)
                continue;
            if (r->headroom_gib > room_gib + 0.005) {
                room_gib = r->headroom_gib;
                room = i + 2;
            }
            if (r->tricks < fewest) {
                fewest = r->tricks;
                plain = i + 2;
            }
        }
        if (room)
            cat(v, vc, " #%d leaves the most memory headroom: %.2f GiB free on its most loaded GPU, against %.2f GiB "
                       "for the optimum.", room, room_gib, ex->best.headroom_gib);
        if (plain)
            cat(v, vc, " #%d needs the fewest tricks (%s; the optimum uses %s).", plain,
                ex->runner_ups[plain - 2].tricks_text, ex->best.tricks_text);
        if (!room && !plain)
            cat(v, vc, " Among them the optimum itself leaves the most memory headroom (%.2f GiB free) and needs the "
                       "fewest tricks (%s).", ex->best.headroom_gib, ex->best.tricks_text);
        else if (!room)
            cat(v, vc, " The optimum itself leaves the most memory headroom among them (%.2f GiB free).",
                ex->best.headroom_gib);
        else if (!plain)
            cat(v, vc, " The optimum itself needs the fewest tricks among them (%s).", ex->best.tricks_text);
    }
    if (ex->have_simplest) {
        const pp_runner_up_report *s = &ex->simplest_report;
        char g[32], plan[320];
        pct(s->gap, g, sizeof g);
        pp_plan_text(c->prob, &ex->simplest.best.plan, plan, sizeof plan);
        cat(v, vc, " The fastest plan without interleaving or compression is %s: %.3f s, %s slower%s (it loses on %s).",
            plan, ex->simplest.best.eval.time.step_s, g, s->tie ? ", a tie" : "", s->why);
    }
}

/* ---- baseline ------------------------------------------------------------------ */

static void analyze_baseline(const ctx *c, const pp_explain_options *opt, pp_explanation *ex)
{
    pp_baseline_report *b = &ex->baseline;
    if (!opt->baseline)
        return;
    b->present = true;
    const char *label = opt->baseline_label ? opt->baseline_label : "baseline";
    const char *slash = strrchr(label, '/');
    snprintf(b->label, sizeof b->label, "%s", slash ? slash + 1 : label);
    b->plan = *opt->baseline;
    pp_error err;
    if (pp_plan_check(c->prob, &b->plan, &err) != PP_OK) {
        snprintf(b->problem_text, sizeof b->problem_text, "%s", err.msg);
        return;
    }
    b->valid = true;
    pp_evaluate(c->prob, &b->plan, &b->eval);
    pp_cons_row why;
    b->feasible = pp_cons_plan_feasible(c->prob, &b->plan, &b->eval, 0, &why);
    if (!b->feasible)
        snprintf(b->problem_text, sizeof b->problem_text, "it breaks the row %s: %.4g > %.4g %s", why.name, why.lhs,
                 why.rhs, why.unit ? why.unit : "");
    if (c->res->best.plan.tp >= 1 && c->best_s > 0) {
        b->speedup = b->eval.time.step_s / c->best_s;
        b->time_saved = (b->eval.time.step_s - c->best_s) / b->eval.time.step_s;
    }
}

/* ---- constants and their sources ---------------------------------------------- */

static void add_constant(pp_explanation *ex, const char *name, const char *value, const char *source)
{
    if (ex->n_constants >= PP_EXPLAIN_MAX_CONSTANTS)
        return;
    pp_constant *k = &ex->constants[ex->n_constants++];
    snprintf(k->name, sizeof k->name, "%s", name);
    snprintf(k->value, sizeof k->value, "%s", value);
    snprintf(k->source, sizeof k->source, "%s", source && source[0] ? source : "not given");
}

/* The catalog's source for a GPU field, or a fallback. */
static void gpu_source(const ctx *c, const char *field, char *buf, size_t cap)
{
    const pp_gpu *g = &c->prob->cluster.gpu;
    if (!g->id[0] || !pp_catalog_source(c->cat, PP_CATALOG_GPUS, g->id, field, buf, cap))
        snprintf(buf, cap, "the problem (cluster.gpu given as an object)");
}

/* A link figure: the catalog's when the problem uses the GPU's usual
 * system value, else the problem's own. */
static void link_source(const ctx *c, double used, double catalog, const char *field, const char *key, char *buf,
                        size_t cap)
{
    if (fabs(used - catalog) < 1e-9)
        gpu_source(c, field, buf, cap);
    else
        snprintf(buf, cap, "the problem (cluster.%s)", key);
}

static void collect_constants(const ctx *c, pp_explanation *ex)
{
    const pp_problem *prob = c->prob;
    const pp_gpu *g = &prob->cluster.gpu;
    const pp_cluster *cl = &prob->cluster;
    char value[64], src[2048], name[80];
    const char *mid = pp_catalog_model_id_of(c->cat, &prob->model);
    if (!mid || !pp_catalog_source(c->cat, PP_CATALOG_MODELS, mid, NULL, src, sizeof src))
        snprintf(src, sizeof src, "the problem (model given as an object or a Hugging Face config)");
    snprintf(value, sizeof value, "%d layers, hidden %d, %d heads", prob->model.layers, prob->model.hidden,
             prob->model.heads);
    add_constant(ex, "model shape", value, src);

    snprintf(name, sizeof name, "peak dense %s throughput per GPU", pp_precision_name(prob->training.precision));
    snprintf(value, sizeof value, "%g TFLOP/s", g->peak_tflops[prob->training.precision]);
    gpu_source(c, "peak_tflops", src, sizeof src);
    add_constant(ex, name, value, src);
    snprintf(value, sizeof value, "%.2f GiB", g->memory_gib);
    gpu_source(c, "memory_gib", src, sizeof src);
    add_constant(ex, "GPU memory", value, src);
    snprintf(value, sizeof value, "%g GB/s", g->hbm_GBps);
    gpu_source(c, "hbm_GBps", src, sizeof src);
    add_constant(ex, "HBM bandwidth", value, src);
    snprintf(value, sizeof value, "%g GB/s", cl->intra_node_GBps);
    link_source(c, cl->intra_node_GBps, g->nvlink_GBps, "nvlink_GBps", "intra_node_GBps", src, sizeof src);
    add_constant(ex, "NVLink per GPU, one direction", value, src);
    snprintf(value, sizeof value, "%g Gb/s", cl->inter_node_Gbps);
    link_source(c, cl->inter_node_Gbps, g->network_Gbps, "network_Gbps", "inter_node_Gbps", src, sizeof src);
    add_constant(ex, "network per GPU, one direction", value, src);
    snprintf(value, sizeof value, "%d", cl->gpus_per_node);
    link_source(c, cl->gpus_per_node, g->gpus_per_node, "gpus_per_node", "gpus_per_node", src, sizeof src);
    add_constant(ex, "GPUs per node", value, src);

    const pp_efficiency *e = &g->eff;
    snprintf(value, sizeof value, "%.4g / %.4g / %.4g / %.4g / %.4g", e->gemm, e->attention, e->hbm, e->nvlink,
             e->network);
    add_constant(ex, "fitted efficiency: GEMM / attention / element-wise / NVLink / network",
                 value, e->source);
    snprintf(value, sizeof value, "%.4g / %.4g / %.4g us", e->kernel_us, e->nvlink_latency_us, e->network_latency_us);
    add_constant(ex, "kernel launch / NVLink hop / network hop latency", value, e->source);

    snprintf(value, sizeof value, "%.0f %%", 100.0 * prob->memory_headroom);
    add_constant(ex, "memory headroom", value,
                 "the problem's constraints.memory_headroom (default 0.10, pp_problem_init in formulate/problem.c)");
    snprintf(value, sizeof value, "%.2f GiB", pp_mem_other_gib(prob));
    add_constant(ex, "other memory per GPU", value,
                 "docs/cost-model.md section 6: CUDA context, cuBLAS and NCCL workspaces, allocator slack");
    add_constant(ex, "framework", pp_framework_name(prob->training.framework),
                 "the problem's training.framework (default megatron-core); its behaviours are in "
                 "docs/cost-model.md section 5");
    snprintf(value, sizeof value, "%.0f %%", 100.0 * PP_COST_MODEL_ERROR);
    add_constant(ex, "cost model error (ties)", value,
                 "docs/calibration.md, Accuracy: step-time MAPE of the A100 calibration groups, 4.7 % to 7.5 %");

    /* the codecs the optimal plan uses */
    const pp_plan *plan = &c->res->best.plan;
    bool any = false;
    for (int d = 0; d < PP_DIM_COUNT; d++) {
        int i = plan->codec[d];
        if (i <= 0 || i >= prob->n_codecs)
            continue;
        bool seen = false;
        for (int d2 = 0; d2 < d; d2++)
            seen = seen || plan->codec[d2] == i;
        if (seen)
            continue;
        any = true;
        const pp_codec *k = &prob->codecs[i];
        if (k->lossy) {
            snprintf(name, sizeof name, "codec %s: bits per value", k->id);
            snprintf(value, sizeof value, "%g", k->bits_per_value);
            pp_catalog_source(c->cat, PP_CATALOG_CODECS, k->id, "bits_per_value", src, sizeof src);
            add_constant(ex, name, value, src);
            snprintf(name, sizeof name, "codec %s: relative error", k->id);
            snprintf(value, sizeof value, "%g", k->rel_error);
            pp_catalog_source(c->cat, PP_CATALOG_CODECS, k->id, "rel_error", src, sizeof src);
            add_constant(ex, name, value, src);
        } else {
            snprintf(name, sizeof name, "codec %s: compression ratio", k->id);
            snprintf(value, sizeof value, "%g", k->lossless_ratio);
            pp_catalog_source(c->cat, PP_CATALOG_CODECS, k->id, "ratio", src, sizeof src);
            add_constant(ex, name, value, src);
        }
        snprintf(name, sizeof name, "codec %s: GPU throughput", k->id);
        snprintf(value, sizeof value, "%g / %g GB/s", k->compress_GBps, k->decompress_GBps);
        pp_catalog_source(c->cat, PP_CATALOG_CODECS, k->id, "compress_GBps", src, sizeof src);
        add_constant(ex, name, value, src);
    }
    if (any) {
        snprintf(value, sizeof value, "%.0f bytes", prob->compress_min_bytes);
        pp_catalog_source(c->cat, PP_CATALOG_CODECS, NULL, "compress_min_bytes", src, sizeof src);
        add_constant(ex, "smallest compressed message", value, src);
    }
}

/* ---- what limits the plan, what would speed it up ------------------------------ */

/* Counterfactuals a user can act on: not "no limit at all". */
static bool actionable(const pp_counterfactual *cf)
{
    return strstr(cf->key, "unlimited") == NULL && strstr(cf->key, "dropped") == NULL;
}

static void summarize(const ctx *c, pp_explanation *ex)
{
    for (int i = 0; i < ex->n_families; i++)
        for (int k = 0; k < ex->families[i].n_cf; k++) {
            const pp_counterfactual *cf = &ex->families[i].cf[k];
            if (faster(cf) && cf->gain >= WORTH_MENTIONING && actionable(cf) &&
                ex->n_speedups < (int)(sizeof ex->speedups / sizeof ex->speedups[0]))
                ex->speedups[ex->n_speedups++] = cf;
        }
    for (int i = 1; i < ex->n_speedups; i++) /* largest gain first, stable */
        for (int j = i; j > 0 && ex->speedups[j]->gain > ex->speedups[j - 1]->gain; j--) {
            const pp_counterfactual *t = ex->speedups[j];
            ex->speedups[j] = ex->speedups[j - 1];
            ex->speedups[j - 1] = t;
        }
    char *v = ex->limits_text;
    size_t vc = sizeof ex->limits_text;
    int binding = 0;
    for (int i = 0; i < ex->n_families; i++) {
        const pp_family_report *f = &ex->families[i];
        if (!f->binds || strcmp(f->family->name, "gpus") == 0)
            continue;
        double most = 0.0; /* the largest gain any of its relaxations buys */
        for (int k = 0; k < f->n_cf; k++)
            if (faster(&f->cf[k]))
                most = fmax(most, f->cf[k].gain);
        char p[32], e[32];
        pct(most, p, sizeof p);
        pct(PP_COST_MODEL_ERROR, e, sizeof e);
        cat(v, vc, "%c%s binds%s: lifting it entirely would make a step %s faster%s%s. ",
            toupper_ascii(f->family->name[0]), f->family->name + 1, most < PP_COST_MODEL_ERROR ? ", but barely" : "",
            p, most < PP_COST_MODEL_ERROR ? ", within the cost model's error of " : "", most < PP_COST_MODEL_ERROR ? e : "");
        binding++;
    }
    if (!binding)
        cat(v, vc, "No constraint binds: memory, bandwidth and accuracy all leave room. ");
    const pp_time *t = &c->res->best.eval.time;
    int worst = -1;
    for (int k = PP_PART_BUBBLE; k < PP_PART_COUNT; k++)
        if (worst < 0 || pp_part_s(t, (pp_part)k) > pp_part_s(t, (pp_part)worst))
            worst = k;
    char share[32], comp[32];
    pct(t->step_s > 0 ? t->compute_s / t->step_s : 0, comp, sizeof comp);
    pct(t->step_s > 0 ? pp_part_s(t, (pp_part)worst) / t->step_s : 0, share, sizeof share);
    cat(v, vc, "%s the plan's own work: computation is %s of the step, and the largest overhead is %s (%.3f s, %s).",
        binding ? "Beyond that, the step is" : "The step is", comp, pp_part_name((pp_part)worst),
        pp_part_s(t, (pp_part)worst), share);
    if (ex->n_speedups > 0) {
        char g[32];
        pct(ex->speedups[0]->gain, g, sizeof g);
        cat(v, vc, " The biggest lever found is %s (%s faster).", ex->speedups[0]->what, g);
    }
}

/* ---- entry point ------------------------------------------------------------------ */

void pp_explain_options_init(pp_explain_options *o)
{
    memset(o, 0, sizeof *o);
    o->counterfactuals = true;
    o->baseline = NULL;
    o->baseline_label = NULL;
}

int pp_explain_plan(const pp_problem *prob, const pp_catalog *catalog, const pp_plan_options *solve,
                    const pp_plan_result *res, const pp_explain_options *options, pp_explanation *ex, pp_error *err)
{
    memset(ex, 0, sizeof *ex);
    pp_explain_options defaults;
    pp_explain_options_init(&defaults);
    const pp_explain_options *opt = options ? options : &defaults;
    pp_plan_options solve_defaults;
    pp_plan_options_init(&solve_defaults);
    ctx c = {prob, catalog, solve ? solve : &solve_defaults, res, res->best.eval.time.step_s};
    analyze_baseline(&c, opt, ex);
    if (res->status == PP_STATUS_INFEASIBLE || res->best.plan.tp < 1)
        return PP_OK;
    ex->done = true;
    ex->best_step_s = c.best_s;
    ex->gpus = pp_cluster_gpus(prob);

    for (int i = 0; i < pp_cons_n_families && i < (int)(sizeof ex->families / sizeof ex->families[0]); i++) {
        pp_family_report *f = &ex->families[ex->n_families++];
        f->family = pp_cons_families[i];
        family_rows(&c, f);
        const char *name = f->family->name;
        if (strcmp(name, "memory") == 0)
            analyze_memory(&c, f, opt->counterfactuals);
        else if (strcmp(name, "accuracy") == 0)
            analyze_accuracy(&c, f, opt->counterfactuals);
        else if (strcmp(name, "bandwidth") == 0)
            analyze_bandwidth(&c, f, opt->counterfactuals);
        else if (strcmp(name, "gpus") == 0)
            analyze_gpus(&c, f, opt->counterfactuals);
        else if (strcmp(name, "divisibility") == 0)
            analyze_divisibility(&c, f, ex);
        else
            analyze_generic(&c, f, opt->counterfactuals);
    }

    if (res->n_runner_ups > 0) {
        ex->runner_ups = calloc((size_t)res->n_runner_ups, sizeof *ex->runner_ups);
        if (!ex->runner_ups)
            return pp_error_set(err, PP_EINTERNAL, "", "out of memory");
        ex->n_runner_ups = res->n_runner_ups;
    }
    analyze_runner_ups(&c, ex);
    if (opt->counterfactuals)
        find_simplest(&c, ex);
    ties_text(&c, ex);
    collect_constants(&c, ex);
    summarize(&c, ex);
    int rc = pp_schedule_build(prob, &res->best.plan, &ex->schedule, err);
    if (rc != PP_OK) {
        pp_explanation_free(ex);
        return rc;
    }
    return PP_OK;
}

void pp_explanation_free(pp_explanation *ex)
{
    free(ex->runner_ups);
    ex->runner_ups = NULL;
    ex->n_runner_ups = 0;
    pp_schedule_free(&ex->schedule);
}
