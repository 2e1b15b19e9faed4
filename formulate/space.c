/*
 * space.c: the decision space (see space.h).
 *
 * The tool's default candidates, used for any decision the problem's search
 * section leaves free:
 *   tp              divisors of the node's GPUs (of all GPUs when TP may cross
 *                   nodes) that also divide heads, kv_heads and ffn_hidden
 *   pp              divisors of layers that divide GPUs / tp
 *   cp              1, 2, 4, 8 with seq_len % (2 cp) == 0
 *   dp              GPUs / (tp pp cp), whatever it is
 *   micro_batch     1, 2, 4, 8, 16 dividing global_batch / dp
 *   virtual_stages  1, 2, 3, 4, 6, 8
 *   zero 0..3, recompute none/selective/full, sequence_parallel off/on,
 *   every codec of the problem on every dimension.
 * A listed value is taken as given: if it breaks a rule, the shapes using it
 * are dropped by pp_plan_check like any other, and the first such rule is
 * kept to explain an empty space.
 */
#include "space.h"

#include "costmodel.h"
#include "error.h"
#include "problem.h"
#include "rules.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void default_tp(const pp_problem *prob, long gpus, pp_int_list *out)
{
    const pp_model *m = &prob->model;
    long span = prob->allow_tp_across_nodes ? gpus : prob->cluster.gpus_per_node;
    out->n = 0;
    for (int t = 1; t <= m->heads && t <= span; t++)
        if (span % t == 0 && m->heads % t == 0 && m->kv_heads % t == 0 && m->ffn_hidden % t == 0)
            list_add(out, t);
}

static void default_pp(const pp_problem *prob, long gpus_per_tp, pp_int_list *out)
{
    out->n = 0;
    for (int p = 1; p <= prob->model.layers; p++)
        if (prob->model.layers % p == 0 && gpus_per_tp % p == 0)
            list_add(out, p);
}

static void default_cp(const pp_problem *prob, pp_int_list *out)
{
    static const int cps[] = {1, 2, 4, 8};
    out->n = 0;
    for (size_t i = 0; i < sizeof cps / sizeof cps[0]; i++)
        if (cps[i] == 1 || prob->model.seq_len % (2 * cps[i]) == 0)
            list_add(out, cps[i]);
}

static void default_micro_batch(const pp_problem *prob, int dp, pp_int_list *out)
{
    static const int mbs[] = {1, 2, 4, 8, 16};
    out->n = 0;
    long B = prob->training.global_batch;
    if (dp <= 0 || B % dp)
        return;
    for (size_t i = 0; i < sizeof mbs / sizeof mbs[0]; i++)
        if ((B / dp) % mbs[i] == 0)
            list_add(out, mbs[i]);
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

/* The options of each choice, and their degenerate narrowing: 'none' / 0 /
 * off when listed, else the first listed value (a no-op that keeps what the
 * user asked for).  Sequence parallelism has no such escape: it is invalid
 * with tp = 1, so a shape with tp = 1 and only "on" listed has no plan. */
static void set_options(const pp_problem *prob, pp_space *s)
{
    static const int recompute[] = {PP_RECOMPUTE_NONE, PP_RECOMPUTE_SELECTIVE, PP_RECOMPUTE_FULL};
    static const int onoff[] = {0, 1}, zero[] = {0, 1, 2, 3};
    const pp_search *q = &prob->search;
    pp_int_list d;

    fixed_list(&d, recompute, 3);
    s->options[PP_OPT_RECOMPUTE] = in_range(&q->recompute, &d, 0, PP_RECOMPUTE_COUNT - 1);
    fixed_list(&d, onoff, 2);
    s->options[PP_OPT_SEQUENCE_PARALLEL] = in_range(&q->sequence_parallel, &d, 0, 1);
    fixed_list(&d, zero, 4);
    s->options[PP_OPT_ZERO] = in_range(&q->zero, &d, 0, 3);
    d.n = 0;
    for (int c = 0; c < prob->n_codecs; c++)
        list_add(&d, c);
    s->options[PP_OPT_CODEC_DP] = in_range(&q->compression[PP_DIM_DP], &d, 0, prob->n_codecs - 1);
    s->options[PP_OPT_CODEC_TP] = in_range(&q->compression[PP_DIM_TP], &d, 0, prob->n_codecs - 1);
    s->options[PP_OPT_CODEC_PP] = in_range(&q->compression[PP_DIM_PP], &d, 0, prob->n_codecs - 1);

    for (int k = 0; k < PP_OPT_COUNT; k++) {
        const pp_int_list *o = &s->options[k];
        pp_int_list *g = &s->degenerate[k];
        g->n = 0;
        if (k == PP_OPT_RECOMPUTE) {
            *g = *o;
        } else if (k == PP_OPT_SEQUENCE_PARALLEL) {
            if (list_has(o, 0))
                list_add(g, 0);
        } else if (o->n > 0) {
            list_add(g, list_has(o, 0) ? 0 : o->v[0]);
        }
    }
}

const pp_int_list *pp_space_options(const pp_space *s, const pp_shape *shape, pp_option_kind kind)
{
    const pp_plan *b = &shape->base;
    bool degenerate = false;
    switch (kind) {
    case PP_OPT_SEQUENCE_PARALLEL:
    case PP_OPT_CODEC_TP: degenerate = b->tp == 1; break;
    case PP_OPT_ZERO:
    case PP_OPT_CODEC_DP: degenerate = b->dp == 1; break;
    case PP_OPT_CODEC_PP: degenerate = b->pp == 1; break;
    default: break;
    }
    return degenerate ? &s->degenerate[kind] : &s->options[kind];
}

double pp_space_shape_plans(const pp_space *s, const pp_shape *shape)
{
    double n = 1.0;
    for (int k = 0; k < PP_OPT_COUNT; k++)
        n *= pp_space_options(s, shape, (pp_option_kind)k)->n;
    return n;
}

void pp_plan_set_option(pp_plan *plan, pp_option_kind kind, int value)
{
    switch (kind) {
    case PP_OPT_RECOMPUTE: plan->recompute = (pp_recompute)value; break;
    case PP_OPT_SEQUENCE_PARALLEL: plan->sequence_parallel = value != 0; break;
    case PP_OPT_ZERO: plan->zero = value; break;
    case PP_OPT_CODEC_DP: plan->codec[PP_DIM_DP] = value; break;
    case PP_OPT_CODEC_TP: plan->codec[PP_DIM_TP] = value; break;
    case PP_OPT_CODEC_PP: plan->codec[PP_DIM_PP] = value; break;
    default: break;
    }
}

void pp_shape_describe(const pp_shape *shape, char *buf, size_t len)
{
    const pp_plan *b = &shape->base;
    snprintf(buf, len, "tp=%d pp=%d dp=%d cp=%d mb=%d v=%d", b->tp, b->pp, b->dp, b->cp, b->micro_batch,
             b->virtual_stages);
}

/* ---- building ---------------------------------------------------------- */

typedef struct builder {
    const pp_problem *prob;
    pp_space *s;
    int cap;
    long tried;          /* shapes whose degrees multiply to the GPU count */
    bool have_rejection; /* first pp_plan_check failure kept in `rejection` */
    pp_error rejection;
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

/* Try one shape: keep it iff it obeys the rules with defaults elsewhere and
 * its choices leave at least one plan. */
static int try_shape(builder *b, int tp, int pp, int dp, int cp, int mb, int v)
{
    pp_plan plan;
    pp_plan_init(&plan);
    plan.tp = tp;
    plan.pp = pp;
    plan.dp = dp;
    plan.cp = cp;
    plan.micro_batch = mb;
    plan.virtual_stages = v;
    b->tried++;
    pp_error e;
    pp_error_clear(&e);
    if (pp_plan_check(b->prob, &plan, &e)) {
        if (!b->have_rejection) {
            b->rejection = e;
            b->have_rejection = true;
        }
        return PP_OK;
    }
    pp_shape probe = {.base = plan};
    if (pp_space_shape_plans(b->s, &probe) <= 0.0)
        return PP_OK;
    return push_shape(b, &plan);
}

static int cmp_shape(const void *a, const void *b)
{
    const pp_plan *x = &((const pp_shape *)a)->base, *y = &((const pp_shape *)b)->base;
    const int kx[] = {x->tp, x->pp, x->cp, x->dp, x->micro_batch, x->virtual_stages};
    const int ky[] = {y->tp, y->pp, y->cp, y->dp, y->micro_batch, y->virtual_stages};
    for (int i = 0; i < 6; i++)
        if (kx[i] != ky[i])
            return kx[i] < ky[i] ? -1 : 1;
    return 0;
}

static void explain_empty(const builder *b)
{
    const pp_problem *prob = b->prob;
    pp_space *s = b->s;
    long gpus = pp_cluster_gpus(prob);
    bool tp_mode_ok = prob->search.tp_mode.n == 0 || list_has(&prob->search.tp_mode, PP_TP_1D);
    if (!tp_mode_ok)
        snprintf(s->empty_reason, sizeof s->empty_reason,
                 "tp_mode: the search allows only tensor-parallel modes this version does not model; "
                 "allow \"1d\"");
    else if (b->tried == 0)
        snprintf(s->empty_reason, sizeof s->empty_reason,
                 "divisibility: no tp/pp/dp/cp/micro_batch combination multiplies to %ld GPUs and divides "
                 "the batch of %ld sequences (and tp the heads, pp the %d layers)",
                 gpus, prob->training.global_batch, prob->model.layers);
    else if (b->have_rejection)
        snprintf(s->empty_reason, sizeof s->empty_reason, "%s", b->rejection.msg);
    else
        snprintf(s->empty_reason, sizeof s->empty_reason,
                 "search: the listed options leave no plan (sequence_parallel needs tp >= 2)");
}

int pp_space_build(const pp_problem *prob, pp_space *s, pp_error *err)
{
    memset(s, 0, sizeof *s);
    set_options(prob, s);
    builder b = {.prob = prob, .s = s};
    const pp_search *q = &prob->search;
    long gpus = pp_cluster_gpus(prob);
    bool tp_mode_ok = q->tp_mode.n == 0 || list_has(&q->tp_mode, PP_TP_1D);

    pp_int_list tp_def, pp_def, cp_def, mb_def;
    static const int vs[] = {1, 2, 3, 4, 6, 8};
    pp_int_list v_def;
    fixed_list(&v_def, vs, 6);
    default_tp(prob, gpus, &tp_def);
    default_cp(prob, &cp_def);
    const pp_int_list *tps = given_or(&q->tp, &tp_def), *cps = given_or(&q->cp, &cp_def);
    const pp_int_list *vlist = given_or(&q->virtual_stages, &v_def);

    for (int i = 0; tp_mode_ok && gpus > 0 && i < tps->n; i++) {
        int tp = tps->v[i];
        if (tp < 1 || gpus % tp)
            continue;
        default_pp(prob, gpus / tp, &pp_def);
        const pp_int_list *pps = given_or(&q->pp, &pp_def);
        for (int j = 0; j < pps->n; j++) {
            int pp = pps->v[j];
            if (pp < 1 || (gpus / tp) % pp)
                continue;
            for (int k = 0; k < cps->n; k++) {
                int cp = cps->v[k];
                if (cp < 1 || (gpus / tp / pp) % cp)
                    continue;
                long dpl = gpus / tp / pp / cp;
                if (dpl > INT_MAX || (q->dp.n > 0 && !list_has(&q->dp, (int)dpl)))
                    continue;
                int dp = (int)dpl;
                default_micro_batch(prob, dp, &mb_def);
                const pp_int_list *mbs = given_or(&q->micro_batch, &mb_def);
                for (int l = 0; l < mbs->n; l++)
                    for (int n = 0; n < vlist->n; n++)
                        if (try_shape(&b, tp, pp, dp, cp, mbs->v[l], vlist->v[n]))
                            return pp_error_set(err, PP_EINTERNAL, "", "out of memory building the decision space");
            }
        }
    }

    if (s->n_shapes == 0) {
        explain_empty(&b);
        return PP_OK;
    }
    qsort(s->shapes, (size_t)s->n_shapes, sizeof *s->shapes, cmp_shape);
    for (int i = 0; i < s->n_shapes; i++) {
        const pp_plan *p = &s->shapes[i].base;
        list_add(&s->tp, p->tp);
        list_add(&s->pp, p->pp);
        list_add(&s->dp, p->dp);
        list_add(&s->cp, p->cp);
        list_add(&s->micro_batch, p->micro_batch);
        list_add(&s->virtual_stages, p->virtual_stages);
        s->decision_space += pp_space_shape_plans(s, &s->shapes[i]);
    }
    pp_int_list *lists[] = {&s->tp, &s->pp, &s->dp, &s->cp, &s->micro_batch, &s->virtual_stages};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        list_sort(lists[i]);
    return PP_OK;
}

void pp_space_free(pp_space *s)
{
    free(s->shapes);
    s->shapes = NULL;
    s->n_shapes = 0;
}
