/*
 * schedule.h: the pipeline schedule of one step, micro-batch by micro-batch.
 *
 * The cost model prices the pipeline as m slots of the busiest stage and
 * (p-1)/v fill and drain slots of the other stages' mean (costmodel.h); this
 * module lays the same slots out in time, so a reader can
 * see the fill and drain that make the bubble.  It replays Megatron-LM's
 * schedules: 1F1B (PipeDream-Flush; Narayanan et al. 2021 §2.2.1) when v = 1
 * and the interleaved 1F1B of forward_backward_pipelining_with_interleaving
 * (§2.2.2) when v > 1, with the warm-up counts and chunk order of that code.
 * Each rank runs its operations in that fixed order; an operation starts when
 * its rank is free and its input has arrived (the previous stage's forward,
 * the next stage's backward).
 *
 * The last stage takes the busiest stage's time per micro-batch and every
 * other stage the mean of the others (forward and backward of one chunk are
 * 1/v of it), as the cost model prices them, and the replay of m
 * micro-batches takes exactly the cost model's pipeline time: a pipeline
 * whose last stage is its slowest runs in m x that stage + (p-1)/v x the
 * others (checked against the replay in tests/test_report.c).
 * pp_schedule_build replays one repeating round of the schedule, not every
 * micro-batch: min(m, 2p) micro-batches, the fill, at least one steady round
 * (p micro-batches, each stage alternating a forward and a backward) and
 * the drain; the real step repeats the steady round until its m
 * micro-batches are done, m - microbatches_shown more slots of the last
 * stage.  It keeps the bars of the stages drawn: all of them when they are
 * at most PP_SCHEDULE_MAX_TASKS bars and pp <= PP_SCHEDULE_ALL_STAGES_UPTO,
 * else the first and the last.  When even those are too many bars (pp 16
 * with v >= 5), each stage drawn keeps its first and last operations and
 * ops_left_out says how many in between are not laid out.  A replay is
 * bounded by PP_SCHEDULE_MAX_REPLAY_OPS operations.
 */
#ifndef PARPLAN_SCHEDULE_H
#define PARPLAN_SCHEDULE_H

#include "types.h"

/* Bars in one chart at most.  Mermaid refuses a diagram over its default
 * maxTextSize of 50,000 characters, and then nothing renders where users
 * read the report; a bar's line is at most about 60 characters
 * ("    B1024.16 :active, s127b1024c16, 123456789, 123456790"), so 600 bars
 * stay under 40,000 with the headers (checked by tests/test_report.c). */
#define PP_SCHEDULE_MAX_TASKS 600
#define PP_SCHEDULE_MAX_REPLAY_OPS (1L << 20) /* operations of one replay at most (p 2 m v) */
#define PP_SCHEDULE_ALL_STAGES_UPTO 8 /* draw every stage up to this pp; else the first and the last */

typedef struct pp_sched_task {
    int stage;      /* pipeline rank, 0-based */
    int microbatch; /* 1-based, as a reader counts */
    int chunk;      /* model chunk on this rank, 1-based (1 when v = 1) */
    bool backward;
    double start_s, end_s;
} pp_sched_task;

typedef struct pp_schedule {
    int pp, virtual_stages;
    int microbatches;       /* m of the plan */
    int microbatches_shown; /* replayed and laid out below: min(m, 2p), one round of the schedule */
    double forward_s;       /* one chunk's forward on the busiest (last) stage */
    double backward_s;      /* one chunk's backward (with recomputation) */
    double slot_s;          /* one micro-batch on that stage: v (forward + backward) */
    double other_forward_s; /* one chunk's forward on the other stages (their mean) */
    double other_backward_s;
    double bubble_slot_s;   /* one micro-batch on the other stages: a fill or drain slot */
    double pipeline_s;      /* the cost model's m slot_s + (p-1)/v bubble_slot_s */
    double bubble_s;        /* (p-1)/v bubble_slot_s: the fill and drain of a step */
    double shown_makespan_s;/* end of the replay: pipeline_s - (m - shown) slot_s */
    int ops_left_out;       /* per stage drawn: operations in the middle not laid out (0: none) */
    int n_stages_shown;
    int stages_shown[PP_SCHEDULE_ALL_STAGES_UPTO];
    int n_tasks;
    pp_sched_task *tasks; /* owned; by stage shown, then start time */
} pp_schedule;

/* Lay out the schedule of a plan (one that passed pp_plan_check).  With
 * pp = 1 there is no pipeline: n_tasks is 0 and only the times are set.
 * Returns PP_OK, or PP_EINTERNAL (out of memory, or the replay stalled, which
 * would be a bug). */
int pp_schedule_build(const pp_problem *prob, const pp_plan *plan, pp_schedule *out, pp_error *err);
void pp_schedule_free(pp_schedule *s);

/* Replay m micro-batches with the given chunk times (the last stage's, and
 * every other stage's); returns the makespan, or a negative number on
 * failure.  Exposed for the tests, which check it against the cost model's
 * m slots plus (p-1)/v bubble slots. */
double pp_schedule_makespan_s(int pp, int v, int m, double forward_s, double backward_s, double last_forward_s,
                              double last_backward_s);

#endif
