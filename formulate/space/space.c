/*
 * space.c: the decision space (see space.h).
 *
 * The shapes are built by nesting the shape's degrees in their rows' order
 * (decisions.c, SHAPE(n)), each over its candidates given the degrees before
 * it (shape_candidates), and sorted in the same order; the options are the
 * option rows (OPTION(k)).  The tool's default candidates, used for any
 * decision the problem's search section leaves free (the value lists are
 * the rows'):
 *   tp              divisors of the node's GPUs (of all GPUs when TP may cross
 *                   nodes) that also divide heads, kv_heads and ffn_hidden, or
 *                   that form a 2D/2.5D/3D grid the search allows
 *   tp_mode, depth  every mode of search.tp_mode (default all) whose grid fits
 *                   tp; 2.5D once per depth 2 <= d <= q with tp/d = q^2
 *   pp              divisors of layers that divide GPUs / tp
 *   cp              1, 2, 4, 8 with seq_len % (2 cp) == 0
 *   dp              GPUs / (tp pp cp), whatever it is
 *   micro_batch     1, 2, 4, 8, 16 dividing global_batch / dp
 *   virtual_stages  1, 2, 3, 4, 6, 8
 *   ep, etp         divisors of the routed experts (1 for a dense model);
 *                   1 or tp (1 only for a dense model)
 *   zero 0..3, recompute none/selective/full, sequence_parallel off/on,
 *   tp_comm_overlap off/on where the problem offers it (rules.h), every
 *   codec of the problem on every dimension (the params codec only with
 *   ZeRO >= 1): the rows' ranges.
 * A listed value is taken as given: if it breaks a rule, the shapes using it
 * are dropped by pp_plan_check like any other, and the first such rule is
 * kept to explain an empty space.
 */
#include "space.h"

#include "decisions.h"

#include "costmodel.h"
#include "error.h"
#include "problem.h"
#include "rules.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bounds that keep `plan` quick and small however absurd the problem: the
 * default candidates give at most a few thousand shapes, but search lists of
 * 64 values each on a cluster whose GPU count has many divisors can give
 * tens of millions (and a MIP GLPK never finishes). */
#define PP_SPACE_MAX_SHAPES 200000
#define PP_SPACE_MAX_TRIES 2000000L

static bool list_has(const pp_int_list *l, int v)
{
    for (int i = 0; i < l->n; i++)
        if (l->v[i] == v)
            return true;
    return false;
}

static void list_add(pp_int_list *l, int v)
{
    if (l->n < PP_MAX_VALUES && !list_has(l, v))
        l->v[l->n++] = v;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static void list_sort(pp_int_list *l)
{
    qsort(l->v, (size_t)l->n, sizeof l->v[0], cmp_int);
}

/* The problem's list if it gives one, else the defaults (already filtered). */
static const pp_int_list *given_or(const pp_int_list *given, const pp_int_list *defaults)
{
    return given->n > 0 ? given : defaults;
}

/* *out = *in, copying only the n values in use (the space walks millions of
 * nodes: a whole 64-value list a node was most of its time). */
static void copy_list(pp_int_list *out, const pp_int_list *in)
{
    out->n = in->n;
    memcpy(out->v, in->v, (size_t)in->n * sizeof in->v[0]);
}

/* Add (mode, d) to the choices if its grid fits tp. */
static int add_grid(int tp, int mode, int d, int *modes, int *depths, int n, int max)
{
    pp_plan probe = {0}; /* pp_tp_grid_side reads these three only; called millions of times */
    probe.tp = tp;
    probe.tp_mode = (pp_tp_mode)mode;
    probe.tp_depth = d;
    int side = pp_tp_grid_side(&probe);
    if (n >= max || side < (mode == PP_TP_1D ? 1 : 2))
        return n;
    modes[n] = mode;
    depths[n] = d;
    return n + 1;
}

/* The (tp_mode, tp_depth) pairs of a tensor-parallel degree that the search
 * allows and whose grid fits it (rules.c checks the rest); tp = 1 is "1d".
 * 2.5D gives one depth d = tp / q^2 >= 2 per side q >= 2, largest d first,
 * with d <= q unless search.tp_depth lists the depths: the range of the 2.5D
 * algorithm (Solomonik and Demmel 2011: replication c <= p^(1/3)); a deeper
 * grid is a 2D grid with data parallelism over its layers, which the dp
 * degree already offers. */
static int grid_choices(const pp_problem *prob, int tp, int *modes, int *depths, int max)
{
    const pp_int_list *q = prob->search;
    if (tp == 1)
        return add_grid(1, PP_TP_1D, 1, modes, depths, 0, max);
    int n = 0;
    for (int mode = 0; mode < PP_TP_MODE_COUNT; mode++) {
        if ((q[PP_DEC_TP_MODE].n > 0 && !list_has(&q[PP_DEC_TP_MODE], mode)) ||
            !pp_framework_runs(prob, PP_DEC_TP_MODE, mode))
            continue;
        if (mode != PP_TP_2P5D) {
            n = add_grid(tp, mode, 1, modes, depths, n, max);
            continue;
        }
        for (long side = 2; side * side * 2 <= tp; side++) {
            int d = (int)(tp / (side * side));
            bool listed = q[PP_DEC_TP_DEPTH].n == 0 ? d <= side : list_has(&q[PP_DEC_TP_DEPTH], d);
            if (tp % (side * side) == 0 && listed)
                n = add_grid(tp, mode, d, modes, depths, n, max);
        }
    }
    return n;
}

/* Whether a grid mode the search allows could take tp: its side q divides
 * the heads, kv_heads, hidden and ffn_hidden (the rest is for the rules). */
static bool grid_fits_model(const pp_problem *prob, int tp)
{
    int modes[PP_MAX_VALUES], depths[PP_MAX_VALUES];
    int n = grid_choices(prob, tp, modes, depths, PP_MAX_VALUES);
    const pp_model *m = &prob->model;
    for (int i = 0; i < n; i++) {
        if (modes[i] == PP_TP_1D)
            continue;
        pp_plan probe;
        pp_plan_init(&probe);
        probe.tp = tp;
        probe.tp_mode = (pp_tp_mode)modes[i];
        probe.tp_depth = depths[i];
        int q = pp_tp_grid_side(&probe);
        if (q > 0 && m->heads % q == 0 && m->kv_heads % q == 0 && m->hidden % q == 0 && m->ffn_hidden % q == 0)
            return true;
    }
    return false;
}

#define MAX_DIVISORS 4096 /* a number below 2^31 has at most 1600 divisors */

/* The divisors of n >= 1, ascending, in O(sqrt n) steps (a cluster of 6e8
 * GPUs must not cost 6e8 trial divisions per space). */
static int divisors(long n, long *out, int cap)
{
    long high[MAX_DIVISORS];
    int n_low = 0, n_high = 0;
    for (long i = 1; i <= n / i && n_low < cap / 2 && n_high < cap / 2; i++)
        if (n % i == 0) {
            out[n_low++] = i;
            if (i != n / i)
                high[n_high++] = n / i;
        }
    while (n_high > 0)
        out[n_low++] = high[--n_high];
    return n_low;
}

static void default_tp(const pp_problem *prob, long gpus, pp_int_list *out)
{
    const pp_model *m = &prob->model;
    long span = prob->allow_tp_across_nodes ? gpus : prob->cluster.gpus_per_node;
    bool one_d = prob->search[PP_DEC_TP_MODE].n == 0 || list_has(&prob->search[PP_DEC_TP_MODE], PP_TP_1D);
    /* A grid's side divides the heads, so without listed depths tp <= heads^3. */
    long heads = m->heads > 0 ? m->heads : 1, top = span;
    if (prob->search[PP_DEC_TP_DEPTH].n == 0 && heads <= 1000 && heads * heads * heads < top)
        top = heads * heads * heads;
    out->n = 0;
    long divs[MAX_DIVISORS];
    int n_divs = divisors(span, divs, MAX_DIVISORS);
    for (int i = 0; i < n_divs && divs[i] <= top && out->n < PP_MAX_VALUES; i++) {
        long t = divs[i];
        bool fits_1d = t == 1 || (one_d && t <= m->heads && m->heads % t == 0 && m->kv_heads % t == 0 &&
                                  m->ffn_hidden % t == 0);
        if (fits_1d || (t <= 1L << 20 && grid_fits_model(prob, (int)t)))
            list_add(out, (int)t);
    }
}

static void default_pp(const pp_problem *prob, long gpus_per_tp, pp_int_list *out)
{
    out->n = 0;
    /* every pipeline depth that can hold the layers, evenly or not (the
     * first and last stages lighter, pp_stage_layers) */
    pp_plan probe;
    pp_plan_init(&probe);
    for (int p = 1; p <= prob->model.layers && out->n < PP_MAX_VALUES; p++) {
        pp_stage_split split;
        probe.pp = p;
        if (pp_stage_layers(prob, &probe, &split) &&
            (!prob->idle_gpus_ok ? gpus_per_tp % p == 0 : p <= gpus_per_tp))
            list_add(out, p);
    }
}

/* The row's context-parallel degrees that split the sequence in 2 cp chunks. */
static void default_cp(const pp_problem *prob, pp_int_list *out)
{
    const pp_decision *d = &pp_decisions[PP_DEC_CP];
    out->n = 0;
    for (int i = 0; i < d->n_values; i++)
        if (d->values[i] == 1 || prob->model.seq_len % (2 * d->values[i]) == 0)
            list_add(out, d->values[i]);
}

/* The data-parallel degrees of a shape whose tp pp cp leave `most` times
 * their GPUs: exactly `most` when every GPU works, else every degree up to
 * it that divides the global batch (the GPU count is an upper limit); the
 * problem's search.dp narrows either. */
static void data_parallel_degrees(const pp_problem *prob, long most, pp_int_list *out)
{
    const pp_int_list *given = &prob->search[PP_DEC_DP];
    out->n = 0;
    if (!prob->idle_gpus_ok) {
        if (most <= INT_MAX && (given->n == 0 || list_has(given, (int)most)))
            list_add(out, (int)most);
        return;
    }
    long B = prob->training.global_batch;
    for (long d = most; d >= 1 && out->n < PP_MAX_VALUES; d--)
        if (d <= INT_MAX && B % d == 0 && (given->n == 0 || list_has(given, (int)d)))
            list_add(out, (int)d);
}

/* The row's micro-batches that divide a replica's share of the batch. */
static void default_micro_batch(const pp_problem *prob, int dp, pp_int_list *out)
{
    const pp_decision *d = &pp_decisions[PP_DEC_MICRO_BATCH];
    out->n = 0;
    long B = prob->training.global_batch;
    if (dp <= 0 || B % dp)
        return;
    for (int i = 0; i < d->n_values; i++)
        if ((B / dp) % d->values[i] == 0)
            list_add(out, d->values[i]);
}

static void fixed_list(pp_int_list *out, const int *v, int n)
{
    out->n = 0;
    for (int i = 0; i < n; i++)
        list_add(out, v[i]);
}

/* The values of `given` (or `defaults`) in [lo, hi], deduplicated. */
static pp_int_list in_range(const pp_int_list *given, const pp_int_list *defaults, int lo, int hi)
{
    const pp_int_list *l = given_or(given, defaults);
    pp_int_list out = {0};
    for (int i = 0; i < l->n; i++)
        if (l->v[i] >= lo && l->v[i] <= hi)
            list_add(&out, l->v[i]);
    return out;
}

/* The values the tool offers for an option the search leaves free: its
 * range (every codec of the problem for a codec), TP overlap only where the
 * problem offers it (rules.h). */
static void default_options(const pp_problem *prob, const pp_decision *d, pp_int_list *out)
{
    int hi = d->kind == PP_DK_CODEC ? prob->n_codecs - 1 : d->max;
    if ((d->id == PP_DEC_TP_OVERLAP && !pp_tp_overlap_offered(prob)) ||
        (d->id == PP_DEC_FP8_ACT_STORE && !pp_fp8_act_store_offered(prob)))
        hi = d->min;
    out->n = 0;
    if (d->candidates == PP_CAND_VALUES)
        fixed_list(out, d->values, d->n_values);
    else
        for (int v = d->kind == PP_DK_CODEC ? 0 : d->min; v <= hi && out->n < PP_MAX_VALUES; v++)
            list_add(out, v);
    if (d->id == PP_DEC_FP8_ACT_STORE && prob->training.fp8_act_store) { /* the problem fixes it on */
        out->n = 0;
        list_add(out, pp_fp8_act_store_offered(prob) ? 1 : 0); /* else priced on all the same (fp8_act_stored) */
    }
    bool moe_comm = d->id == PP_DEC_MOE_DISPATCHER || d->id == PP_DEC_MOE_A2A_OVERLAP;
    if (moe_comm) { /* MoE models whose framework runs it; the problem's training setting fixes it */
        bool offered = pp_moe_comm_offered(prob, d->id);
        bool given = d->id == PP_DEC_MOE_DISPATCHER ? prob->training.moe_dispatcher_given
                                                    : prob->training.moe_a2a_overlap_given;
        bool on = d->id == PP_DEC_MOE_DISPATCHER ? prob->training.moe_deepep : prob->training.moe_a2a_overlap;
        if (!offered || given) {
            out->n = 0;
            list_add(out, offered && on ? 1 : 0);
        }
    }
    if (d->id == PP_DEC_RECOMPUTE_MODULES) { /* the sets the problem's framework and model run */
        pp_int_list all = *out;
        out->n = 0;
        for (int i = 0; i < all.n; i++)
            if (pp_recompute_modules_offered(prob, all.v[i]))
                list_add(out, all.v[i]);
    }
}

/* The options of each choice, and their degenerate narrowing: 'none' / 0 /
 * off when listed, else the first listed value (a no-op that keeps what the
 * user asked for).  Sequence parallelism has no such escape: it is invalid
 * with tp = 1, so a shape with tp = 1 and only "on" listed has no plan. */
static void set_options(const pp_problem *prob, pp_space *s)
{
    for (int i = 0; i < PP_DEC_COUNT; i++) {
        const pp_decision *dec = &pp_decisions[i];
        if (dec->role != PP_ROLE_OPTION)
            continue;
        pp_int_list d;
        default_options(prob, dec, &d);
        bool codec = dec->kind == PP_DK_CODEC;
        s->n_options++;
        pp_int_list listed = in_range(&prob->search[dec->id], &d, codec ? 0 : dec->min,
                                      codec ? prob->n_codecs - 1 : dec->max);
        /* only what the framework runs (data/frameworks.json) and the option rules allow (rules.h) */
        pp_int_list *o = &s->options[dec->order];
        s->option_row[dec->order] = dec;
        o->n = 0;
        bool same_as_none = false;
        for (int j = 0; j < listed.n; j++) {
            if (pp_option_offered(prob, dec->id, listed.v[j])) /* its framework and rules.c's option rules */
                o->v[o->n++] = listed.v[j];
            else if (dec->id == PP_DEC_CODEC_DP && pp_dp_cast_is_noop(prob, listed.v[j]) &&
                     pp_framework_runs(prob, dec->id, listed.v[j]))
                same_as_none = true; /* the run without it */
        }
        if (same_as_none && !list_has(o, 0)) { /* first: the values stay in the table's order */
            memmove(o->v + 1, o->v, (size_t)o->n * sizeof o->v[0]);
            o->v[0] = 0;
            o->n++;
        }
    }
    /* the ZeRO stages the framework runs with a pipeline (DeepSpeed's
     * pipeline engine: 0 and 1) */
    s->zero_pipeline.n = s->zero_pipeline_one.n = 0;
    for (int i = 0; i < s->options[PP_OPT_ZERO].n; i++)
        if (pp_framework_runs_zero(prob, s->options[PP_OPT_ZERO].v[i], 2))
            list_add(&s->zero_pipeline, s->options[PP_OPT_ZERO].v[i]);
    if (s->zero_pipeline.n > 0)
        list_add(&s->zero_pipeline_one, list_has(&s->zero_pipeline, 0) ? 0 : s->zero_pipeline.v[0]);

    s->sp_on.n = 0;
    if (list_has(&s->options[PP_OPT_SEQUENCE_PARALLEL], 1))
        list_add(&s->sp_on, 1);
    for (int k = 0; k < s->n_options; k++) {
        const pp_int_list *o = &s->options[k];
        pp_int_list *g = &s->degenerate[k];
        g->n = 0;
        if (k == PP_OPT_RECOMPUTE) {
            *g = *o;
        } else if (k == PP_OPT_MOE_DISPATCHER || k == PP_OPT_MOE_A2A_OVERLAP) {
            list_add(g, 0); /* off where the shape cannot run it: a fixed "on" still prices on (pp_moe_deepep) */
        } else if (k == PP_OPT_SEQUENCE_PARALLEL) {
            if (list_has(o, 0))
                list_add(g, 0);
        } else if (o->n > 0) {
            list_add(g, list_has(o, 0) ? 0 : o->v[0]);
        } else if (s->option_row[k] && s->option_row[k]->id == PP_DEC_CP_COMM) {
            list_add(g, PP_CP_P2P); /* no exchange the framework runs fits (rules.c cp_comm_fits): cp 1 only */
        }
        if (s->option_row[k] && s->option_row[k]->id == PP_DEC_CP_COMM) {
            s->cp_comm_no_a2a.n = 0;
            for (int j = 0; j < o->n; j++)
                if (o->v[j] != PP_CP_A2A)
                    list_add(&s->cp_comm_no_a2a, o->v[j]);
        }
    }
}

const pp_int_list *pp_space_options(const pp_space *s, const pp_shape *shape, pp_option_kind kind)
{
    const pp_plan *b = &shape->base;
    bool degenerate = false;
    switch (kind) {
    case PP_OPT_SEQUENCE_PARALLEL:
        if (s->moe && b->tp > 1)
            return &s->sp_on; /* Megatron-Core: MoE with TP needs SP */
        degenerate = b->tp == 1 || b->tp_mode != PP_TP_1D;
        break;
    case PP_OPT_TP_OVERLAP:
        degenerate = !pp_tp_overlap_fits_shape(b, s->node_gpus);
        break;
    /* ZeRO shards over the replicas dp x cp (pp_replica_ranks) */
    case PP_OPT_ZERO:
        if (b->pp > 1) /* the stages the framework runs with a pipeline, the degenerate one among them */
            return pp_replica_ranks(b) > 1 ? &s->zero_pipeline : &s->zero_pipeline_one;
        degenerate = pp_replica_ranks(b) == 1;
        break;
    case PP_OPT_CODEC_PARAMS: degenerate = pp_replica_ranks(b) == 1; break;
    /* the DP codec also compresses 2.5D's depth all-reduce of the gradients */
    case PP_OPT_CODEC_DP:
        degenerate = pp_replica_ranks(b) == 1 && !(b->tp_mode == PP_TP_2P5D && b->tp_depth > 1);
        break;
    case PP_OPT_MOE_DISPATCHER: degenerate = !pp_moe_comm_fits_shape(b, PP_DEC_MOE_DISPATCHER); break;
    case PP_OPT_MOE_A2A_OVERLAP: degenerate = !pp_moe_comm_fits_shape(b, PP_DEC_MOE_A2A_OVERLAP); break;
    default: { /* the row's ONLY_WITH(degree) */
        const pp_decision *d = s->option_row[kind];
        degenerate = d && d->has_degree && pp_decision_get(b, d->degree) == 1;
        /* the all-to-all exchange only where cp splits each tp rank's heads */
        if (!degenerate && d && d->id == PP_DEC_CP_COMM && !pp_cp_a2a_splits_heads(s->heads, s->kv_heads, b->tp, b->cp))
            return &s->cp_comm_no_a2a;
        break;
    }
    }
    return degenerate ? &s->degenerate[kind] : &s->options[kind];
}

bool pp_space_zero_params_ok(int zero, int params_codec)
{
    return pp_params_codec_fits(zero, params_codec);
}

bool pp_space_tp_overlap_ok(int sequence_parallel, int tp_codec, int tp_overlap)
{
    return !tp_overlap || pp_tp_overlap_fits_options(sequence_parallel, tp_codec);
}

bool pp_space_options_fit(const pp_plan *plan)
{
    return pp_space_zero_params_ok(plan->zero, plan->codec[PP_DIM_PARAMS]) &&
           pp_recompute_modules_fit(plan->recompute, plan->recompute_modules) &&
           pp_moe_overlap_fits_recompute(plan->moe_a2a_overlap, plan->recompute, plan->recompute_modules) &&
           pp_space_tp_overlap_ok(plan->sequence_parallel, plan->codec[PP_DIM_TP], plan->tp_comm_overlap);
}

double pp_space_shape_plans(const pp_space *s, const pp_shape *shape)
{
    double n = 1.0;
    for (int k = 0; k < s->n_options; k++)
        if (k != PP_OPT_ZERO && k != PP_OPT_CODEC_PARAMS && k != PP_OPT_SEQUENCE_PARALLEL && k != PP_OPT_CODEC_TP &&
            k != PP_OPT_TP_OVERLAP && k != PP_OPT_RECOMPUTE && k != PP_OPT_RECOMPUTE_MODULES &&
            k != PP_OPT_MOE_A2A_OVERLAP)
            n *= pp_space_options(s, shape, (pp_option_kind)k)->n;
    const pp_int_list *R = pp_space_options(s, shape, PP_OPT_RECOMPUTE);
    const pp_int_list *M = pp_space_options(s, shape, PP_OPT_RECOMPUTE_MODULES);
    const pp_int_list *A = pp_space_options(s, shape, PP_OPT_MOE_A2A_OVERLAP);
    double recomputes = 0.0;
    for (int i = 0; i < R->n; i++)
        for (int j = 0; j < M->n; j++)
            for (int a = 0; a < A->n; a++)
                recomputes += pp_recompute_modules_fit(R->v[i], M->v[j]) &&
                              pp_moe_overlap_fits_recompute(A->v[a], R->v[i], M->v[j]);
    n *= recomputes;
    const pp_int_list *Z = pp_space_options(s, shape, PP_OPT_ZERO);
    const pp_int_list *C = pp_space_options(s, shape, PP_OPT_CODEC_PARAMS);
    double pairs = 0.0;
    for (int i = 0; i < Z->n; i++)
        for (int j = 0; j < C->n; j++)
            pairs += pp_space_zero_params_ok(Z->v[i], C->v[j]);
    const pp_int_list *S = pp_space_options(s, shape, PP_OPT_SEQUENCE_PARALLEL);
    const pp_int_list *T = pp_space_options(s, shape, PP_OPT_CODEC_TP);
    const pp_int_list *O = pp_space_options(s, shape, PP_OPT_TP_OVERLAP);
    double triples = 0.0;
    for (int i = 0; i < S->n; i++)
        for (int j = 0; j < T->n; j++)
            for (int k = 0; k < O->n; k++)
                triples += pp_space_tp_overlap_ok(S->v[i], T->v[j], O->v[k]);
    return n * pairs * triples;
}

void pp_shape_describe(const pp_shape *shape, char *buf, size_t len)
{
    const pp_plan *b = &shape->base;
    int n = snprintf(buf, len, "tp=%d pp=%d dp=%d cp=%d mb=%d v=%d", b->tp, b->pp, b->dp, b->cp, b->micro_batch,
                     b->virtual_stages);
    if ((b->ep > 1 || b->etp > 1) && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, " ep=%d etp=%d", b->ep, b->etp);
    if (b->tp_mode != PP_TP_1D && n >= 0 && (size_t)n < len) {
        if (b->tp_mode == PP_TP_2P5D)
            snprintf(buf + n, len - (size_t)n, " tp_mode=%s d=%d", pp_tp_mode_name(b->tp_mode), b->tp_depth);
        else
            snprintf(buf + n, len - (size_t)n, " tp_mode=%s", pp_tp_mode_name(b->tp_mode));
    }
}

/* ---- building ---------------------------------------------------------- */

typedef struct builder {
    const pp_problem *prob;
    pp_space *s;
    long gpus;
    bool all;            /* every GPU works (else the GPU count is an upper limit) */
    pp_int_list tp, cp, ep; /* the default candidates that depend on no other degree */
    int cap;
    long tried;          /* shapes whose degrees multiply to the GPU count */
    bool have_rejection; /* first pp_plan_check failure kept in `rejection` */
    pp_error rejection;
    char option_gap[512]; /* the first shape that obeys the rules and offers a choice no value: which */
    const pp_decision *level[PP_DEC_COUNT + 1]; /* the shape's degrees in nesting order, NULL after the last */
} builder;

static int push_shape(builder *b, const pp_plan *plan)
{
    pp_space *s = b->s;
    if (s->n_shapes == b->cap) {
        int cap = b->cap ? 2 * b->cap : 256;
        pp_shape *n = realloc(s->shapes, (size_t)cap * sizeof *n);
        if (!n)
            return PP_EINTERNAL;
        s->shapes = n;
        b->cap = cap;
    }
    pp_shape *sh = &s->shapes[s->n_shapes++];
    sh->base = *plan;
    sh->microbatches = pp_microbatches(b->prob, plan);
    sh->pipeline_factor = pp_pipeline_factor(b->prob, plan);
    return PP_OK;
}

/* A shape that obeys the rules but leaves one of its choices no value (the
 * values the search lists, the framework runs and the option rules allow):
 * the first such is what an empty space names, a nearer miss than a rule. */
static void note_option_gap(builder *b, const pp_shape *probe)
{
    if (b->option_gap[0])
        return;
    for (int k = 0; k < b->s->n_options; k++) {
        const pp_decision *d = b->s->option_row[k];
        if (!d || pp_space_options(b->s, probe, (pp_option_kind)k)->n > 0)
            continue;
        const pp_plan *pl = &probe->base;
        snprintf(b->option_gap, sizeof b->option_gap,
                 "%s: no value left for tp=%d pp=%d dp=%d cp=%d: none of the values searched is both run by %s "
                 "there (data/frameworks.json%s) and allowed by the plan rules%s",
                 d->key, pl->tp, pl->pp, pl->dp, pl->cp, b->prob->fw.known ? b->prob->fw.name : "the framework",
                 d->id == PP_DEC_ZERO && pl->pp > 1 ? ": its ZeRO stages with a pipeline" : "",
                 d->id == PP_DEC_CP_COMM ? " (Transformer Engine's ring takes no sliding window, its all-gather no "
                                           "packed samples, its all-to-all only heads that divide by cp)"
                                         : "");
        return;
    }
}

/* Try one shape: keep it iff it obeys the rules with defaults elsewhere and
 * its choices leave at least one plan. */
static int try_shape(builder *b, const pp_plan *degrees)
{
    pp_plan plan = *degrees;
    /* Megatron-Core runs a MoE model's tensor parallelism with sequence
     * parallelism (rules.c); the space offers only "on" there. */
    plan.sequence_parallel = b->s->moe && plan.tp > 1;
    /* context parallelism's exchange: the first the space offers, since an
     * option rule may refuse the default ring (rules.c cp_comm_fits: a
     * sliding window); none offered, the shape has no plan (below) */
    const pp_int_list *exchanges = &b->s->options[pp_decisions[PP_DEC_CP_COMM].order];
    if (plan.cp > 1 && exchanges->n > 0)
        plan.cp_comm = exchanges->v[0];
    if (b->tried >= PP_SPACE_MAX_TRIES || b->s->n_shapes >= PP_SPACE_MAX_SHAPES)
        return PP_EINPUT;
    b->tried++;
    if (plan.cp > 1 && exchanges->n == 0) { /* no exchange fits: the choice left without a value */
        pp_shape probe = {.base = plan};
        note_option_gap(b, &probe);
        return PP_OK;
    }
    pp_error e;
    pp_error_clear(&e);
    /* Only the first rejection is kept: format no message for the others
     * (millions of them, with long search lists). */
    if (pp_plan_check(b->prob, &plan, b->have_rejection ? NULL : &e)) {
        if (!b->have_rejection) {
            b->rejection = e;
            b->have_rejection = true;
        }
        return PP_OK;
    }
    pp_shape probe = {.base = plan};
    if (pp_space_shape_plans(b->s, &probe) <= 0.0) {
        note_option_gap(b, &probe);
        return PP_OK;
    }
    return push_shape(b, &plan);
}

/* Shapes sorted by their degrees in the order they nest (the rows' SHAPE(n)). */
static int cmp_shape(const void *a, const void *b)
{
    const pp_plan *x = &((const pp_shape *)a)->base, *y = &((const pp_shape *)b)->base;
    const pp_decision *d;
    for (int k = 0; (d = pp_decision_at(PP_ROLE_SHAPE, k)) != NULL; k++) {
        int vx = pp_decision_get(x, d->id), vy = pp_decision_get(y, d->id);
        if (vx != vy)
            return vx < vy ? -1 : 1;
    }
    return 0;
}

static void explain_empty(const builder *b)
{
    const pp_problem *prob = b->prob;
    pp_space *s = b->s;
    long gpus = pp_problem_gpus(prob);
    if (b->tried == 0 && (prob->search[PP_DEC_TP_MODE].n > 0 || prob->search[PP_DEC_TP_DEPTH].n > 0))
        snprintf(s->empty_reason, sizeof s->empty_reason,
                 "tp_mode: no tensor-parallel degree that divides the %ld GPUs forms a grid of the listed modes "
                 "(2d: tp = q^2, 2.5d: tp = q^2 d with d >= 2 of search.tp_depth, 3d: tp = q^3, q >= 2)",
                 gpus);
    else if (b->tried == 0)
        snprintf(s->empty_reason, sizeof s->empty_reason,
                 "divisibility: no tp/pp/dp/cp/micro_batch combination multiplies to %ld GPUs and divides "
                 "the batch of %ld sequences (and tp the heads, pp the %d layers)",
                 gpus, prob->training.global_batch, prob->model.layers);
    else if (b->option_gap[0])
        snprintf(s->empty_reason, sizeof s->empty_reason, "%s", b->option_gap);
    else if (b->have_rejection)
        snprintf(s->empty_reason, sizeof s->empty_reason, "%s", b->rejection.msg);
    else
        snprintf(s->empty_reason, sizeof s->empty_reason,
                 "search: the listed options leave no plan (sequence_parallel needs tp >= 2 and tp_mode 1d; "
                 "compression.params needs zero >= 1)");
}

static int space_failed(const builder *b, int rc, pp_error *err)
{
    if (rc != PP_EINPUT)
        return pp_error_set(err, PP_EINTERNAL, "", "out of memory building the decision space");
    return pp_error_set(err, PP_EINPUT, "",
                        "decision space too large: more than %d valid shapes or %ld combinations of tp, pp, cp, "
                        "micro_batch and virtual_stages to try (at %d shapes after %ld tries); list fewer values "
                        "in the problem's search section, or use fewer GPUs",
                        PP_SPACE_MAX_SHAPES, PP_SPACE_MAX_TRIES, b->s->n_shapes, b->tried);
}

/* The tensor-parallel modes (or, given the mode, the 2.5D depths) that a
 * degree tp allows, in grid_choices' order. */
static void grid_candidates(const pp_problem *prob, const pp_plan *partial, bool depths_of_mode, pp_int_list *out)
{
    int modes[PP_MAX_VALUES], depths[PP_MAX_VALUES];
    int n = grid_choices(prob, partial->tp, modes, depths, PP_MAX_VALUES);
    out->n = 0;
    for (int i = 0; i < n; i++)
        if (!depths_of_mode)
            list_add(out, modes[i]);
        else if (modes[i] == (int)partial->tp_mode)
            list_add(out, depths[i]);
}

/* The listed values of a degree if any, each dividing the GPUs the degrees
 * before it leave (or not above them when GPUs may idle), else defaults. */
static void divisors_of_rest(const builder *b, const pp_int_list *given, const pp_int_list *defaults, long rest,
                             pp_int_list *out)
{
    const pp_int_list *l = given_or(given, defaults);
    out->n = 0;
    for (int i = 0; rest > 0 && i < l->n; i++) {
        int v = l->v[i];
        if (v >= 1 && (b->all ? rest % v == 0 : v <= rest))
            out->v[out->n++] = v;
    }
}

/* The candidates of shape degree d given the degrees before it in the
 * shape's order (tp, pp, cp, dp, micro_batch, virtual_stages, tp_mode,
 * tp_depth, ep, etp): the search's list, else the tool's defaults (the
 * file's opening comment).  A decision without its own case takes its
 * listed values, else its row's values or range. */
static void shape_candidates(const builder *b, const pp_decision *d, const pp_plan *partial, pp_int_list *out)
{
    const pp_problem *prob = b->prob;
    const pp_int_list *given = &prob->search[d->id];
    pp_int_list def;
    def.n = 0;
    switch (d->id) {
    case PP_DEC_TP: divisors_of_rest(b, given, &b->tp, b->gpus, out); return;
    case PP_DEC_PP:
        default_pp(prob, b->gpus / partial->tp, &def);
        divisors_of_rest(b, given, &def, b->gpus / partial->tp, out);
        return;
    case PP_DEC_CP: divisors_of_rest(b, given, &b->cp, b->gpus / partial->tp / partial->pp, out); return;
    case PP_DEC_DP: data_parallel_degrees(prob, b->gpus / partial->tp / partial->pp / partial->cp, out); return;
    case PP_DEC_MICRO_BATCH:
        default_micro_batch(prob, partial->dp, &def);
        copy_list(out, given_or(given, &def));
        return;
    case PP_DEC_TP_MODE:
    case PP_DEC_TP_DEPTH: grid_candidates(prob, partial, d->id == PP_DEC_TP_DEPTH, out); return;
    case PP_DEC_EP: copy_list(out, given_or(given, &b->ep)); return;
    case PP_DEC_ETP: /* 1 or tp: both for a MoE model unless search.etp narrows it */
        out->n = 0;
        for (int y = 0; y < 2 && (y == 0 || partial->tp > 1); y++) {
            int etp = y == 0 ? 1 : partial->tp;
            if (given->n > 0 ? list_has(given, etp) : (y == 0 || b->s->moe))
                out->v[out->n++] = etp;
        }
        return;
    default:
        if (d->candidates == PP_CAND_VALUES)
            fixed_list(&def, d->values, d->n_values);
        else
            for (int v = d->min; v <= d->max && def.n < PP_MAX_VALUES; v++)
                list_add(&def, v);
        copy_list(out, given_or(given, &def));
        return;
    }
}

/* Only the values of a shape degree the framework runs (data/frameworks.json);
 * the first one dropped is kept to explain an empty space. */
static void framework_values(builder *b, const pp_decision *d, const pp_plan *partial, pp_int_list *values)
{
    int n = 0;
    for (int i = 0; i < values->n; i++) {
        if (pp_framework_runs(b->prob, d->id, values->v[i])) {
            values->v[n++] = values->v[i];
            continue;
        }
        if (b->have_rejection)
            continue;
        pp_plan probe = *partial;
        char why[512], label[PP_NAME_LEN + PP_FW_VERSION_LEN + 8];
        pp_decision_set(&probe, d->id, values->v[i]);
        pp_plan_runnable(b->prob, &probe, why, sizeof why);
        pp_error_set(&b->rejection, PP_EINPUT, "plan", "framework: not runnable by %s: %s",
                     pp_framework_label(b->prob, label, sizeof label), why);
        b->have_rejection = true;
    }
    values->n = n;
}

/* Every shape: the degrees nested in their order, each over its candidates
 * given those before it; the last turns fastest. */
static int walk_shapes(builder *b, int level, pp_plan *plan)
{
    const pp_decision *d = b->level[level];
    if (!d)
        return try_shape(b, plan);
    pp_int_list values;
    shape_candidates(b, d, plan, &values);
    framework_values(b, d, plan, &values);
    for (int i = 0; i < values.n; i++) {
        pp_decision_set(plan, d->id, values.v[i]);
        int rc = walk_shapes(b, level + 1, plan);
        if (rc != PP_OK)
            return rc;
    }
    return PP_OK;
}

/* Expert parallelism (MoE): every divisor of the routed experts; dense
 * models 1. */
void pp_space_default_ep(const pp_problem *prob, pp_int_list *out)
{
    out->n = 0;
    if (!pp_model_is_moe(&prob->model)) {
        list_add(out, 1);
        return;
    }
    long edivs[MAX_DIVISORS];
    int ne = divisors(prob->model.experts, edivs, MAX_DIVISORS);
    for (int i = 0; i < ne; i++)
        list_add(out, (int)edivs[i]);
}

void pp_space_problem(const pp_problem *prob, pp_problem *out)
{
    memcpy(out, prob, sizeof *out); /* padding too: the cache compares bytes */
    out->cluster.gpu.memory_gib = 0.0;
    out->memory_headroom = 0.0;
    out->cluster.intra_node_GBps = 0.0;
    out->cluster.inter_node_Gbps = 0.0;
    /* A tolerance is read only against the errors of the codecs a plan can
     * carry, those its framework runs (pp_codec_too_lossy, set_options):
     * the largest such error it allows is the same tolerance to each (a
     * looser tolerance that allows no other runnable codec shares the
     * space). */
    for (int d = 0; d < PP_DIM_COUNT; d++) {
        double allowed = 0.0;
        for (int i = 0; i < prob->n_codecs; i++)
            if (prob->codecs[i].lossy && prob->codecs[i].rel_error <= prob->error_tolerance[d] &&
                pp_framework_runs(prob, PP_DEC_CODEC(d), i))
                allowed = fmax(allowed, prob->codecs[i].rel_error);
        out->error_tolerance[d] = allowed;
    }
}

static int space_build(const pp_problem *prob, pp_space *s, pp_error *err);

int pp_space_build(const pp_problem *problem, pp_space *s, pp_error *err)
{
    memset(s, 0, sizeof *s);
    pp_problem *prob = malloc(sizeof *prob);
    if (!prob)
        return pp_error_set(err, PP_EINTERNAL, "", "out of memory building the decision space");
    pp_space_problem(problem, prob);
    int rc = space_build(prob, s, err);
    free(prob);
    return rc;
}

static int space_build(const pp_problem *prob, pp_space *s, pp_error *err)
{
    set_options(prob, s);
    s->moe = pp_model_is_moe(&prob->model);
    s->node_gpus = prob->cluster.gpus_per_node;
    s->heads = prob->model.heads;
    s->kv_heads = pp_cp_a2a_kv_heads(&prob->model);
    builder b = {.prob = prob, .s = s, .gpus = pp_problem_gpus(prob), .all = !prob->idle_gpus_ok};
    default_tp(prob, b.gpus, &b.tp);
    default_cp(prob, &b.cp);
    pp_space_default_ep(prob, &b.ep);

    for (int k = 0; k <= PP_DEC_COUNT; k++)
        b.level[k] = k < PP_DEC_COUNT ? pp_decision_at(PP_ROLE_SHAPE, k) : NULL;
    pp_plan plan;
    pp_plan_init(&plan);
    int rc = walk_shapes(&b, 0, &plan);
    if (rc != PP_OK)
        return space_failed(&b, rc, err);
    if (s->n_shapes == 0) {
        explain_empty(&b);
        return PP_OK;
    }
    qsort(s->shapes, (size_t)s->n_shapes, sizeof *s->shapes, cmp_shape);
    const pp_decision *d;
    for (int i = 0; i < s->n_shapes; i++) {
        for (int k = 0; (d = pp_decision_at(PP_ROLE_SHAPE, k)) != NULL; k++)
            list_add(&s->values[d->id], pp_decision_get(&s->shapes[i].base, d->id));
        s->decision_space += pp_space_shape_plans(s, &s->shapes[i]);
    }
    for (int k = 0; (d = pp_decision_at(PP_ROLE_SHAPE, k)) != NULL; k++)
        list_sort(&s->values[d->id]);
    return PP_OK;
}

void pp_space_free(pp_space *s)
{
    free(s->shapes);
    s->shapes = NULL;
    s->n_shapes = 0;
}

/* ---- visiting every plan of a shape --------------------------------------- */

bool pp_odometer_start(pp_odometer *o, const pp_space *s, const pp_shape *sh)
{
    o->n = s->n_options;
    for (int k = 0; k < o->n; k++) {
        o->lists[k] = pp_space_options(s, sh, (pp_option_kind)k);
        o->ids[k] = pp_decision_at(PP_ROLE_OPTION, k)->id;
        o->idx[k] = 0;
        if (o->lists[k]->n == 0)
            return false;
    }
    return true;
}

bool pp_odometer_next(pp_odometer *o)
{
    for (int k = o->n - 1; k >= 0; k--) {
        if (++o->idx[k] < o->lists[k]->n)
            return true;
        o->idx[k] = 0;
    }
    return false;
}

void pp_odometer_plan(const pp_odometer *o, const pp_shape *sh, pp_plan *plan)
{
    *plan = sh->base;
    for (int k = 0; k < o->n; k++)
        pp_decision_set(plan, o->ids[k], o->lists[k]->v[o->idx[k]]);
}
