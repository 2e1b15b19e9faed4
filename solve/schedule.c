/*
 * schedule.c: replaying Megatron-LM's pipeline schedules (see schedule.h).
 *
 * An operation is (rank, chunk, micro-batch, forward or backward).  Each rank
 * owns a list of operations in the order Megatron-LM issues them; the replay
 * repeatedly starts the next operation of any rank whose input is ready, at
 * max(rank free, input ready).  The order lists are built from the same
 * formulas as Megatron-LM's schedules.py:
 *
 *   v = 1 (1F1B):  warm-up = min(p - r - 1, m) forwards, then m - warm-up
 *                  (forward, backward) pairs, then warm-up backwards.
 *   v > 1:         M = m v virtual micro-batches in groups of N micro-batches
 *                  (pp_vp_microbatch_group, p unless m is not a multiple of
 *                  p; the last group takes what is left); warm-up = (p - r
 *                  - 1) 2 + (v - 1) N (all M when m = p), capped at M; the
 *                  forwards run each group chunk by chunk, its micro-batches
 *                  in order within a chunk (schedules.py get_schedule_table),
 *                  the backwards the same with the chunks in reverse.
 *
 * Dependencies: the forward of chunk c on rank r needs that of rank r-1 (or,
 * on rank 0, chunk c-1 on the last rank); the backward of chunk c on rank r
 * needs that of rank r+1 (or, on the last rank, chunk c+1 on rank 0, or for
 * the last chunk its own forward).
 */
#include "schedule.h"

#include "costmodel.h"
#include "error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct op {
    int chunk, mb; /* 0-based */
    bool backward;
} op;

typedef struct replay {
    int p, v, m;
    int group;     /* micro-batches of a group under interleaving (pp_vp_microbatch_group) */
    double f, b;   /* chunk times on every stage but the last */
    double fl, bl; /* on the last */
    op *ops;      /* p lists of 2 m v operations */
    double *fend; /* end time of each forward [r][c][i], < 0 until done */
    double *bend;
} replay;

static size_t idx(const replay *rp, int r, int c, int i)
{
    return ((size_t)r * rp->v + (size_t)c) * rp->m + (size_t)i;
}

/* Megatron-LM's chunk and micro-batch of the k-th forward / backward of a
 * rank under interleaving: group g of n micro-batches (the last group what
 * is left) runs chunk 0 of each, then chunk 1, ... */
static op virtual_op(const replay *rp, int k, bool backward)
{
    int n = rp->group, first = k / (n * rp->v) * n; /* every group before the last is whole */
    int size = rp->m - first < n ? rp->m - first : n;
    int in_group = k - first * rp->v;
    op o;
    o.chunk = in_group / size;
    if (backward)
        o.chunk = rp->v - 1 - o.chunk;
    o.mb = first + in_group % size;
    o.backward = backward;
    return o;
}

static void build_order(const replay *rp, int r, op *out)
{
    int n = 0;
    if (rp->v == 1) {
        int warm = rp->p - r - 1 < rp->m ? rp->p - r - 1 : rp->m;
        for (int i = 0; i < warm; i++)
            out[n++] = (op){0, i, false};
        for (int i = 0; i < rp->m - warm; i++) {
            out[n++] = (op){0, warm + i, false};
            out[n++] = (op){0, i, true};
        }
        for (int i = rp->m - warm; i < rp->m; i++)
            out[n++] = (op){0, i, true};
        return;
    }
    int total = rp->m * rp->v;
    int warm = rp->m == rp->p ? total : (rp->p - r - 1) * 2 + (rp->v - 1) * rp->group;
    if (warm > total)
        warm = total;
    for (int k = 0; k < warm; k++)
        out[n++] = virtual_op(rp, k, false);
    for (int k = 0; k < total - warm; k++) {
        out[n++] = virtual_op(rp, warm + k, false);
        out[n++] = virtual_op(rp, k, true);
    }
    for (int k = total - warm; k < total; k++)
        out[n++] = virtual_op(rp, k, true);
}

/* When the input of an operation is ready, or < 0 if not yet. */
static double ready_at(const replay *rp, int r, const op *o)
{
    if (!o->backward) {
        if (r > 0)
            return rp->fend[idx(rp, r - 1, o->chunk, o->mb)];
        return o->chunk > 0 ? rp->fend[idx(rp, rp->p - 1, o->chunk - 1, o->mb)] : 0.0;
    }
    double own = rp->fend[idx(rp, r, o->chunk, o->mb)];
    double next;
    if (r < rp->p - 1)
        next = rp->bend[idx(rp, r + 1, o->chunk, o->mb)];
    else if (o->chunk < rp->v - 1)
        next = rp->bend[idx(rp, 0, o->chunk + 1, o->mb)];
    else
        next = own;
    return own < 0 || next < 0 ? -1.0 : fmax(own, next);
}

/* Run the replay; tasks (may be NULL) get every operation of the ranks
 * marked in `keep` (may be NULL) in the order they are started per rank.
 * Returns the makespan, or -1 on failure. */
static double run(replay *rp, const bool *keep, pp_sched_task *tasks, int *n_tasks)
{
    int p = rp->p, per_rank = 2 * rp->m * rp->v;
    size_t cells = (size_t)p * rp->v * rp->m;
    rp->ops = malloc((size_t)p * per_rank * sizeof *rp->ops);
    rp->fend = malloc(cells * sizeof *rp->fend);
    rp->bend = malloc(cells * sizeof *rp->bend);
    int *next = calloc((size_t)p, sizeof *next);
    double *free_at = calloc((size_t)p, sizeof *free_at);
    double makespan = -1.0;
    if (!rp->ops || !rp->fend || !rp->bend || !next || !free_at)
        goto done;
    for (size_t i = 0; i < cells; i++)
        rp->fend[i] = rp->bend[i] = -1.0;
    for (int r = 0; r < p; r++)
        build_order(rp, r, rp->ops + (size_t)r * per_rank);
    int left = p * per_rank;
    makespan = 0.0;
    while (left > 0) {
        bool progress = false;
        for (int r = 0; r < p; r++)
            while (next[r] < per_rank) {
                const op *o = &rp->ops[(size_t)r * per_rank + next[r]];
                double ready = ready_at(rp, r, o);
                if (ready < 0)
                    break;
                double took = r == p - 1 ? (o->backward ? rp->bl : rp->fl) : (o->backward ? rp->b : rp->f);
                double start = fmax(free_at[r], ready), end = start + took;
                (o->backward ? rp->bend : rp->fend)[idx(rp, r, o->chunk, o->mb)] = end;
                free_at[r] = end;
                makespan = fmax(makespan, end);
                if (tasks && keep && keep[r])
                    tasks[(*n_tasks)++] = (pp_sched_task){r, o->mb + 1, o->chunk + 1, o->backward, start, end};
                next[r]++;
                left--;
                progress = true;
            }
        if (!progress) {
            makespan = -1.0; /* a cycle in the order: cannot happen for Megatron's schedules */
            break;
        }
    }
done:
    free(rp->ops);
    free(rp->fend);
    free(rp->bend);
    free(next);
    free(free_at);
    rp->ops = NULL;
    rp->fend = rp->bend = NULL;
    return makespan;
}

double pp_schedule_makespan_s(int pp, int v, int m, double forward_s, double backward_s, double last_forward_s,
                              double last_backward_s)
{
    int group = pp >= 1 && v >= 1 && m >= 1 ? pp_vp_microbatch_group(pp, v, m) : 0;
    if (group == 0)
        return -1.0;
    replay rp = {pp, v, m, group, forward_s, backward_s, last_forward_s, last_backward_s, NULL, NULL, NULL};
    return run(&rp, NULL, NULL, NULL);
}

static int cmp_task(const void *a, const void *b)
{
    const pp_sched_task *x = a, *y = b;
    if (x->stage != y->stage)
        return (x->stage > y->stage) - (x->stage < y->stage);
    return (x->start_s > y->start_s) - (x->start_s < y->start_s);
}

/* How many micro-batches the chart replays: one repeating round of the
 * schedule, not every micro-batch.  Beyond 2N micro-batches (N the group of
 * an interleaved schedule, p otherwise) the schedule only repeats its
 * steady round (each stage alternating one forward and one backward, N
 * micro-batches a round), so the chart replays 2N: the fill, at least one
 * steady round on every stage, and the drain (2N runs in groups of N as m
 * does; m == pp and fewer are replayed whole, since Megatron runs m == pp
 * differently).  PP_SCHEDULE_MAX_REPLAY_OPS still bounds the replay. */
static int replayed_microbatches(int p, int v, int m)
{
    int n = v > 1 ? pp_vp_microbatch_group(p, v, m) : p;
    int round = m > 2 * n ? 2 * n : m;
    long per_mb = 2L * p * v;
    if ((long)round * per_mb <= PP_SCHEDULE_MAX_REPLAY_OPS)
        return round;
    long fit = PP_SCHEDULE_MAX_REPLAY_OPS / per_mb;
    if (v > 1)
        fit -= fit % n;
    return fit < n ? n : (int)fit;
}

/* Keep the first and the last `keep` tasks of each stage of the sorted
 * tasks (each stage has per_stage of them). */
static void excerpt(pp_schedule *s, int per_stage, int keep)
{
    int n = 0;
    for (int i = 0; i < s->n_tasks; i++) {
        int k = i % per_stage; /* tasks are grouped by stage, per_stage each */
        if (k < keep || k >= per_stage - keep)
            s->tasks[n++] = s->tasks[i];
    }
    s->n_tasks = n;
    s->ops_left_out = per_stage - 2 * keep;
}

int pp_schedule_build(const pp_problem *prob, const pp_plan *plan, pp_schedule *out, pp_error *err)
{
    memset(out, 0, sizeof *out);
    int p = plan->pp, v = plan->virtual_stages, m = pp_microbatches(prob, plan);
    pp_stage_term st;
    pp_comm_term tp, pc;
    pp_term_stage(prob, plan, &st);
    pp_term_tp_comm(prob, plan, &tp);
    pp_term_pp_comm(prob, plan, &pc);
    double slot = st.total_s + tp.total_s + pc.total_s; /* one micro-batch on one stage, as the cost model */
    double compute = st.fwd_s + st.bwd_s;
    double fwd_share = compute > 0 ? st.fwd_s / compute : 1.0 / 3.0;
    out->pp = p;
    out->virtual_stages = v;
    out->microbatches = m;
    out->slot_s = slot;
    out->forward_s = slot * fwd_share / v;
    out->backward_s = slot * (1.0 - fwd_share) / v;
    double bubble_slot = st.bubble_s + tp.total_s + pc.total_s; /* the other stages' mean (kernels.c) */
    out->bubble_slot_s = bubble_slot;
    out->other_forward_s = bubble_slot * fwd_share / v;
    out->other_backward_s = bubble_slot * (1.0 - fwd_share) / v;
    out->bubble_s = (double)(p - 1) / v * bubble_slot;
    out->pipeline_s = m * slot + out->bubble_s;
    if (p < 2 || m < 1)
        return PP_OK;

    /* Which stages to draw: all of a short pipeline whose bars fit, else
     * the first and the last. */
    bool *keep = calloc((size_t)p, sizeof *keep);
    if (!keep)
        return pp_error_set(err, PP_EINTERNAL, "", "out of memory");
    int shown = replayed_microbatches(p, v, m), per_stage = 2 * shown * v;
    if (p <= PP_SCHEDULE_ALL_STAGES_UPTO && (long)p * per_stage <= PP_SCHEDULE_MAX_TASKS)
        for (int r = 0; r < p; r++)
            out->stages_shown[out->n_stages_shown++] = r;
    else {
        out->stages_shown[out->n_stages_shown++] = 0;
        out->stages_shown[out->n_stages_shown++] = p - 1;
    }
    for (int i = 0; i < out->n_stages_shown; i++)
        keep[out->stages_shown[i]] = true;

    out->microbatches_shown = shown;
    out->tasks = malloc((size_t)out->n_stages_shown * per_stage * sizeof *out->tasks);
    if (!out->tasks) {
        free(keep);
        return pp_error_set(err, PP_EINTERNAL, "", "out of memory");
    }
    replay rp = {p, v, shown, pp_vp_microbatch_group(p, v, shown), out->other_forward_s, out->other_backward_s,
                 out->forward_s, out->backward_s, NULL, NULL, NULL};
    out->shown_makespan_s = run(&rp, keep, out->tasks, &out->n_tasks);
    free(keep);
    if (out->shown_makespan_s < 0) {
        pp_schedule_free(out);
        return pp_error_set(err, PP_EINTERNAL, "", "internal error: the pipeline schedule replay stalled");
    }
    qsort(out->tasks, (size_t)out->n_tasks, sizeof *out->tasks, cmp_task);
    if (out->n_tasks > PP_SCHEDULE_MAX_TASKS)
        excerpt(out, per_stage, PP_SCHEDULE_MAX_TASKS / (2 * out->n_stages_shown));
    return PP_OK;
}

void pp_schedule_free(pp_schedule *s)
{
    free(s->tasks);
    s->tasks = NULL;
    s->n_tasks = 0;
}
