/*
 * space.h: the decision space of a problem, shared by the MIP builder and the
 * enumerator so that both search exactly the same plans.
 *
 * A plan is a shape plus small choices (options), each a row of the
 * decision table (decisions.h) whose role and order say which and where:
 *
 *   shape S = (tp, pp, cp, dp, micro_batch, virtual_stages, tp_mode, tp_depth, ep, etp)
 *   options = recompute, sequence_parallel, codec[tp], codec[pp], zero, codec[dp],
 *             codec[params], tp_comm_overlap
 *
 * in the order they nest (the last turns fastest), which is also the order
 * shapes are sorted in and so the planner's tie-break.
 *
 * The tensor-parallel mode is part of the shape because every term depends
 * on it (the split of the multiplies, the collectives, the memory).  tp = 1
 * has no tensor parallelism and is always "1d"; for tp > 1 each mode of
 * search.tp_mode (default all four) whose grid fits tp gives a shape, 2.5D
 * once per depth 2 <= d <= q with tp/d = q^2 (search.tp_depth lists others).
 *
 * The space keeps every shape that obeys the rules (rules.h) with the other
 * decisions at their defaults, and, per shape, the options of each choice.
 * Options depend on the shape in only three ways, so they are stored once per
 * space and narrowed on demand by pp_space_options():
 *   - sequence parallelism needs tp >= 2 and tp_mode 1d;
 *   - ZeRO is a no-op with dp = 1 (only stage 0 is offered);
 *   - compressing a dimension of degree 1 sends nothing (only 'none'); the DP
 *     codec also compresses 2.5D's depth all-reduce, so it stays free there.
 * One rule ties two choices: the params codec needs ZeRO >= 1 (with ZeRO-0
 * there are no parameter gathers), so ZeRO-0 takes only 'none' for it.
 * Candidate values come from problem->search when a list is given, else from
 * the tool's defaults (see space.c), and only those the problem's framework
 * runs (data/frameworks.json, rules.h pp_framework_runs) stay: the search,
 * the enumerator and the MIP range over what the framework launches; a
 * pipelined shape takes only the ZeRO stages it runs with a pipeline.  Constraints that cut plans of the space
 * (memory, accuracy, bandwidth) are the business of the constraint families
 * (cons.h), not of the space.
 */
#ifndef PARPLAN_SPACE_H
#define PARPLAN_SPACE_H

#include "types.h"

/* One shape: the six degrees, with every other decision at its default. */
typedef struct pp_shape {
    pp_plan base;
    int microbatches;        /* m = global_batch / (dp micro_batch) */
    double pipeline_factor;  /* m + (pp-1)/v, pp_pipeline_factor() */
} pp_shape;

/* The choices made inside a shape, in the order the enumerator nests them
 * (outermost first).  It is also the fixed plan order that breaks ties.
 * The order is the rows' (decisions.c, OPTION(k)); these names are for the
 * code that singles an option out (the MIP's families, the constraint
 * families), and an option no code names needs none: the space, the
 * odometer and the plan count walk every option row. */
typedef enum {
    PP_OPT_RECOMPUTE = 0,
    PP_OPT_SEQUENCE_PARALLEL,
    PP_OPT_CODEC_TP,
    PP_OPT_CODEC_PP,
    PP_OPT_ZERO,
    PP_OPT_CODEC_DP,
    PP_OPT_CODEC_PARAMS,
    PP_OPT_TP_OVERLAP,
    PP_OPT_RECOMPUTE_MODULES,
    PP_OPT_FP8_ACT_STORE,
    PP_OPT_MOE_DISPATCHER,
    PP_OPT_MOE_A2A_OVERLAP
} pp_option_kind;

/* At most one option per decision. */
#define PP_MAX_OPTIONS PP_DEC_COUNT

typedef struct pp_space {
    int n_shapes;
    pp_shape *shapes; /* owned; sorted by (tp, pp, cp, dp, micro_batch, virtual_stages) */

    /* The values each degree of the shape takes in at least one shape,
     * ascending, by decision (empty for the options). */
    pp_int_list values[PP_DEC_COUNT];

    /* Options of each choice for a shape where the choice is free, and the
     * narrower list used where it is degenerate (tp = 1, dp = 1, degree 1). */
    int n_options;     /* the option rows of the decision table */
    pp_int_list options[PP_MAX_OPTIONS];
    pp_int_list degenerate[PP_MAX_OPTIONS];
    const struct pp_decision *option_row[PP_MAX_OPTIONS]; /* the table's row of each option */
    pp_int_list sp_on; /* sequence parallelism of a MoE shape with tp > 1: only "on" */
    pp_int_list zero_pipeline; /* the ZeRO stages of a shape with pp > 1 (and dp x cp > 1): those the
                                  framework runs with a pipeline (data/frameworks.json) */
    pp_int_list zero_pipeline_one; /* pp > 1 and one replica: ZeRO shards nothing, but the plan
                                      still names a stage the framework runs with a pipeline
                                      (rules.c): 0 if it may, else the first it runs, else none */
    bool moe;          /* the model has experts: ep and etp are part of the shape */
    long heads, kv_heads; /* the model's query and key/value heads, as the a2a CP exchange splits them */
    pp_int_list cp_comm_no_a2a; /* the CP exchanges of a shape whose heads cp does not split (rules.h) */
    int node_gpus;     /* GPUs of one NVLink domain: TP overlap stays inside it */

    double decision_space; /* plans in the space: sum over shapes of the option products */
    char empty_reason[1024]; /* when n_shapes == 0: why no shape obeys the rules */
} pp_space;

/* prob without what the space never reads, and so the problem the space
 * is built from: the GPU's memory capacity, the memory headroom and the
 * links' rates (rows and prices, not rules), and each error tolerance as
 * the largest error it allows of the codecs the framework runs.  Problems with byte-equal space
 * problems have one space: the explanation's re-solves with more memory,
 * none, faster links, or a looser tolerance that allows no other codec
 * take the solve's (mip_cache.h). */
void pp_space_problem(const pp_problem *prob, pp_problem *out);

/* The expert-parallel degrees the space tries when the problem's search
 * lists none: every divisor of the routed experts (dense models: 1). */
void pp_space_default_ep(const pp_problem *prob, pp_int_list *out);

/* Build the space of a problem.  Fails only on allocation (PP_EINTERNAL);
 * an empty space is not an error (n_shapes == 0, empty_reason says why). */
int pp_space_build(const pp_problem *prob, pp_space *space, pp_error *err);
void pp_space_free(pp_space *space);

/* Options of one choice for a shape (points into the space). */
const pp_int_list *pp_space_options(const pp_space *space, const pp_shape *shape, pp_option_kind kind);

/* Number of plans of one shape: the product of its option counts, less the
 * ZeRO-0 plans with a params codec other than 'none'. */
double pp_space_shape_plans(const pp_space *space, const pp_shape *shape);

/* Whether a plan's params codec is allowed with its ZeRO stage, and whether
 * TP overlap is allowed with its sequence parallelism and TP codec (the
 * rules between two choices: rule_params_codec, and rules.h's
 * pp_tp_overlap_fits_options). */
bool pp_space_zero_params_ok(int zero, int params_codec);
bool pp_space_tp_overlap_ok(int sequence_parallel, int tp_codec, int tp_overlap);
/* Both, on a plan's options (the MIP's candidates: the options a candidate
 * does not carry keep the shape's defaults, which every rule allows). */
bool pp_space_options_fit(const pp_plan *plan);

/* Every plan of one shape, in the fixed order of pp_option_kind (the last
 * choice turns fastest): start, then read each plan and step to the next.
 *   pp_odometer o;
 *   if (pp_odometer_start(&o, space, shape))
 *       do { pp_odometer_plan(&o, shape, &plan); ... } while (pp_odometer_next(&o));
 * pp_odometer_start is false when a choice has no option. */
typedef struct pp_odometer {
    int n; /* options */
    const pp_int_list *lists[PP_MAX_OPTIONS];
    pp_decision_id ids[PP_MAX_OPTIONS];
    int idx[PP_MAX_OPTIONS];
} pp_odometer;

bool pp_odometer_start(pp_odometer *o, const pp_space *space, const pp_shape *shape);
bool pp_odometer_next(pp_odometer *o);
void pp_odometer_plan(const pp_odometer *o, const pp_shape *shape, pp_plan *plan);

/* A short human name of a shape, e.g. "tp=8 pp=16 dp=8 cp=1 mb=1 v=1"
 * (and " tp_mode=2.5d d=4" for a grid). */
void pp_shape_describe(const pp_shape *shape, char *buf, size_t len);

#endif
