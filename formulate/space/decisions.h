/*
 * decisions.h: the decisions of a plan, one table row each.
 *
 * A plan is one value for every decision (types.h, pp_plan): the degrees tp,
 * pp, dp, cp, the micro-batch, the interleaving depth, the ZeRO stage,
 * recomputation, sequence parallelism, the tensor-parallel mode and depth,
 * expert parallelism, TP overlap and a codec per compressed dimension.  Each
 * decision is one row of util/decisions.def (after PostgreSQL's
 * guc_tables.c), an X-macro list that makes its id (pp_decision_id), its
 * pp_plan field (types.h) and its row of pp_decisions[] (decisions.c):
 *
 *   key, row_key   its PLAN.json and search key; a measurement row's key
 *   kind, range    int in [min, max], enum of names, bool, or a codec
 *   def            its value when PLAN.json leaves it out
 *   offset, field  where it sits in pp_plan, and as an int or a bool
 *   role, order    part of the shape (nested and sorted in `order`) or an
 *                  option (its place in pp_option_kind): the space's order,
 *                  which breaks the planner's ties
 *   term, carried, nest   an option: the family of the step's form whose
 *                  candidates carry it (and the others that price with it),
 *                  and its loop's depth in the MIP's candidate products
 *   candidates     where the space takes its values when search lists none
 *   least          a stage option's value at which the stage term is least,
 *                  all else equal (pp_plan_least)
 *   thrifty        a stage option's value that holds the least activation
 *                  memory, all else equal (the MIP's screen tries it first)
 *   framework      whether data/frameworks.json says which values each
 *                  framework runs (its rule is that data)
 *   degree         an option meaningless where a degree is 1 (the TP
 *                  codec without TP): such shapes offer only its first value
 *   label, show    how the plan's text shows it
 *
 * Every consumer walks the table: pp_plan_init (the defaults), get and set,
 * the plan reader and the search reader (problem.c), the measurement rows
 * (measurements.c), the plan writer (reports/result_json.c) and text (below),
 * eval's range checks (rules.c), the space's shapes, their order and its
 * options (space.c, and so the enumerator and the MIP).  What a row cannot
 * hold: its rule beyond the range (rules.c sits above this file, and the
 * RULES list's order fixes which message a plan breaking two rules gets),
 * its meaning in the cost model, and its launch settings (reports/launch.c,
 * which sits in reports/: a framework's setting is often not one decision's
 * value, e.g. zero is up to five Megatron-LM flags, torchtitan's two shard
 * degrees and DeepSpeed's JSON stage, and virtual_stages becomes a layer
 * count; launch.c reads the plan's fields where the framework's other
 * settings are written).
 */
#ifndef PARPLAN_DECISIONS_H
#define PARPLAN_DECISIONS_H

#include <stddef.h>

#include "strbuf.h"
#include "types.h"

/* Larger values are typos, and would overflow the cost model's counts. */
#define PP_MAX_DEGREE (1 << 24) /* tp, pp, dp, cp, micro_batch */
#define PP_MAX_VIRTUAL_STAGES (1 << 16)
#define PP_MAX_TP_DEPTH (1 << 12)

typedef enum {
    PP_DK_INT,   /* an integer in [min, max] */
    PP_DK_ENUM,  /* one of names[0..max] */
    PP_DK_BOOL,  /* true or false ("on"/"off" in text) */
    PP_DK_CODEC  /* a codec of the problem, by id (index in the plan); key is the dimension */
} pp_decision_kind;

/* When the plan's one-line text shows a decision. */
typedef enum {
    PP_SHOW_ALWAYS,
    PP_SHOW_UNLESS_DEFAULT, /* only when it differs from def */
} pp_decision_show;

/* How a decision is stored in a pp_plan: an int (or an enum of an int's
 * size), or a bool.  With its offset, get and set need no switch. */
typedef enum {
    PP_FIELD_INT,
    PP_FIELD_BOOL
} pp_field_type;

/* Its role in the space (space.h): part of a shape, nested in `order`
 * (which is also the order shapes are sorted in), or an option chosen
 * inside a shape, at position `order` of pp_option_kind. */
typedef enum {
    PP_ROLE_SHAPE,
    PP_ROLE_OPTION
} pp_decision_role;

/* Where the space takes its candidates when the problem's search section
 * lists none (space.c; a listed search list always wins). */
typedef enum {
    PP_CAND_RANGE,    /* every value min..max (the names of an enum, off/on) */
    PP_CAND_VALUES,   /* the row's `values` that the problem allows */
    PP_CAND_DIVISORS, /* divisors: of the GPUs left (tp, pp), of the routed experts (ep) */
    PP_CAND_REST,     /* what the other degrees leave (dp: the GPUs) */
    PP_CAND_GRID,     /* the tensor-parallel grids that fit tp (tp_mode, tp_depth) */
    PP_CAND_PAIR,     /* 1 or tp (etp) */
    PP_CAND_CODECS    /* every codec of the problem */
} pp_candidates;

typedef struct pp_decision {
    pp_decision_id id;
    const char *key;   /* PLAN.json and search key ("micro_batch"); for codecs the key inside "compression" */
    const char *row_key; /* a measurement row's key (data/SCHEMA.md): "t" for tp; NULL when the row
                            reader derives it from the row's own fields (zero_stage, seq_parallel) */
    const char *label; /* in the plan's text: "micro_batch", "sp" */
    const char *short_label; /* in the compact text of a table cell: "mb", "v" */
    pp_decision_kind kind;
    int min, max;      /* PP_DK_INT: the valid range */
    const char *const *names; /* PP_DK_ENUM: value names */
    bool required;     /* PLAN.json must give it (tp, pp) */
    int def;           /* its value when PLAN.json leaves it out (dp is derived instead) */
    pp_decision_show show;
    pp_dim dim;        /* PP_DK_CODEC: the compressed dimension */
    size_t offset;     /* of its field in pp_plan */
    pp_field_type field;
    pp_decision_role role;
    int order;         /* its place among the shape's degrees or the options (pp_option_kind) */
    pp_form_family term; /* an option: the family of the step's form whose candidates carry it
                            (its cost meaning in the MIP: mip.c assembles a plan from them) */
    unsigned carried;  /* an option: bits (1 << family) of the other families whose candidates
                          price with it too (a TP candidate carries its stage's recompute and sp) */
    int nest;          /* an option: the depth of its loop in the cross product of its families'
                          candidates (0 outermost; the MIP's column order, which breaks its ties) */
    pp_candidates candidates;
    bool has_least;    /* an option of the stage family with a value at which the stage term is least, */
    int least;         /* all else equal (no recomputation): the screen's bound prices a candidate there */
    bool has_thrifty;  /* a stage option's value that holds the least activation memory, all else */
    int thrifty;       /* equal (full recomputation): the screen tries those candidates first */
    bool framework;    /* data/frameworks.json states the values each framework runs (frameworks_json.c) */
    bool has_degree;   /* an option that only its first value ('none', 0, off) means in a shape where */
    pp_decision_id degree; /* that degree is 1 (a TP codec without TP): the space's degenerate list */
    const int *values; /* PP_CAND_VALUES: the tool's default list, n_values long */
    int n_values;
} pp_decision;

extern const pp_decision pp_decisions[PP_DEC_COUNT];

/* Every decision at its default (the table's `def`; dp 1): the plan
 * defaults of the contract (see pp_plan_parse). */
void pp_plan_init(pp_plan *plan);

/* The plan with every decision that has a `least` value set to it: its
 * stage term is at most the plan's (the term only adds time for
 * recomputation and casts; tests/test_mip_screen.c checks it over the
 * examples' spaces), so the MIP's screen bounds a shape by the stage terms
 * of these plans, a few where the shape has dozens of stage candidates. */
void pp_plan_least(pp_plan *plan);

/* The row of a role's decision at place `order` (the shape's degrees in
 * the order they nest and sort, the options in pp_option_kind's order);
 * NULL past the last. */
const pp_decision *pp_decision_at(pp_decision_role role, int order);

/* A decision's value in a plan (enums and codecs as their index, bools 0/1),
 * and setting it (inline: the MIP's candidate lists call them for every
 * candidate of every shape). */
static inline int pp_decision_get(const pp_plan *p, pp_decision_id id)
{
    if (id < 0 || id >= PP_DEC_COUNT)
        return 0;
    const pp_decision *d = &pp_decisions[id];
    const char *at = (const char *)p + d->offset;
    if (d->field == PP_FIELD_BOOL)
        return *(const bool *)at ? 1 : 0;
    return *(const int *)at;
}

static inline void pp_decision_set(pp_plan *p, pp_decision_id id, int v)
{
    if (id < 0 || id >= PP_DEC_COUNT)
        return;
    const pp_decision *d = &pp_decisions[id];
    char *at = (char *)p + d->offset;
    if (d->field == PP_FIELD_BOOL)
        *(bool *)at = v != 0;
    else
        *(int *)at = v;
}

/* The id of codec index i of a problem ("none" when out of range). */
const char *pp_codec_id(const pp_problem *prob, int i);

/* Whether a decision's value is a set of bits, each a module the set
 * holds (recompute_modules): a framework runs every set of the modules it
 * lists, and its data keep the modules, not the sets. */
static inline bool pp_decision_is_set(const pp_decision *d)
{
    return d->id == PP_DEC_RECOMPUTE_MODULES;
}

/* A decision's value as text: "8", "full", "on", a codec id. */
const char *pp_decision_value_text(const pp_problem *prob, const pp_decision *d, int value, char *buf, size_t cap);

/* Append the plan in one line: "tp=8 pp=16 dp=8 cp=1 micro_batch=1
 * virtual_stages=1 zero=0 recompute=full sp=off compression
 * dp/tp/pp=none/none/none" (" tp_mode=2d", " tp_depth=2", " params=X"
 * only when used).  Codec ids go through word(sb, id) when word is not
 * NULL (the Markdown report escapes them), else verbatim. */
void pp_plan_describe(pp_strbuf *sb, const pp_problem *prob, const pp_plan *plan,
                      void (*word)(pp_strbuf *sb, const char *s));

/* The plan in a table cell: the degrees tp, pp, dp, cp and mb, then only
 * the decisions away from their defaults ("v=4 zero=1 recompute=full sp=on
 * dp:zfp8"). */
void pp_plan_describe_short(pp_strbuf *sb, const pp_problem *prob, const pp_plan *plan,
                            void (*word)(pp_strbuf *sb, const char *s));

/* The same line in a fixed buffer, plain text. */
void pp_plan_text(const pp_problem *prob, const pp_plan *plan, char *buf, size_t cap);

/* The decisions in which b differs from a, as "pp=16 instead of 8, ..."
 * ("" if none). */
void pp_plan_changes(const pp_problem *prob, const pp_plan *b, const pp_plan *a, char *buf, size_t cap);

#endif
