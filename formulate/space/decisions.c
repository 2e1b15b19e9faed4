/* decisions.c: the table of a plan's decisions, and a plan as text (decisions.h). */
#include "decisions.h"

#include "names.h"
#include "text.h"

#include <stdio.h>
#include <string.h>

static const char *const ON_OFF[] = {"off", "on"};

/* get and set read an enum field as an int */
_Static_assert(sizeof(pp_recompute) == sizeof(int) && sizeof(pp_tp_mode) == sizeof(int),
               "an enum decision is stored as an int");

#define FIELD(f, type) .offset = offsetof(pp_plan, f), .field = PP_FIELD_##type
#define CODEC_FIELD(d) .offset = offsetof(pp_plan, codec) + (d) * sizeof(int), .field = PP_FIELD_INT
#define SHAPE(n) .role = PP_ROLE_SHAPE, .order = (n)
#define OPTION(k, f) .role = PP_ROLE_OPTION, .order = (k), .term = PP_FORM_##f
#define VALUES(a) .candidates = PP_CAND_VALUES, .values = (a), .n_values = (int)(sizeof(a) / sizeof((a)[0]))

static const int CP_VALUES[] = {1, 2, 4, 8};           /* with seq_len % (2 cp) == 0 */
static const int MICRO_BATCH_VALUES[] = {1, 2, 4, 8, 16}; /* dividing global_batch / dp */
static const int VIRTUAL_STAGE_VALUES[] = {1, 2, 3, 4, 6, 8};

/* The rows, in pp_decision_id's order.  SHAPE(n) nests the shape's degrees
 * (and sorts the shapes) tp, pp, cp, dp, micro_batch, virtual_stages,
 * tp_mode, tp_depth, ep, etp; OPTION(k) is the option's place in
 * pp_option_kind (space.h).  Both orders break the planner's ties. */
const pp_decision pp_decisions[PP_DEC_COUNT] = {
    {PP_DEC_TP, "tp", "t", "tp", "tp", PP_DK_INT, 1, PP_MAX_DEGREE, NULL, true, 1, PP_SHOW_ALWAYS, 0, FIELD(tp, INT),
     SHAPE(0), .candidates = PP_CAND_DIVISORS},
    {PP_DEC_PP, "pp", "p", "pp", "pp", PP_DK_INT, 1, PP_MAX_DEGREE, NULL, true, 1, PP_SHOW_ALWAYS, 0, FIELD(pp, INT),
     SHAPE(1), .candidates = PP_CAND_DIVISORS},
    {PP_DEC_DP, "dp", "d", "dp", "dp", PP_DK_INT, 1, PP_MAX_DEGREE, NULL, false, 1, PP_SHOW_ALWAYS, 0,
     FIELD(dp, INT), SHAPE(3), .candidates = PP_CAND_REST},
    {PP_DEC_CP, "cp", "cp", "cp", "cp", PP_DK_INT, 1, PP_MAX_DEGREE, NULL, false, 1, PP_SHOW_ALWAYS, 0,
     FIELD(cp, INT), SHAPE(2), VALUES(CP_VALUES)},
    {PP_DEC_MICRO_BATCH, "micro_batch", "micro_batch", "micro_batch", "mb", PP_DK_INT, 1, PP_MAX_DEGREE, NULL, false,
     1, PP_SHOW_ALWAYS, 0, FIELD(micro_batch, INT), SHAPE(4), VALUES(MICRO_BATCH_VALUES)},
    {PP_DEC_VIRTUAL_STAGES, "virtual_stages", "virtual_stages", "virtual_stages", "v", PP_DK_INT, 1,
     PP_MAX_VIRTUAL_STAGES, NULL, false, 1, PP_SHOW_ALWAYS, 0, FIELD(virtual_stages, INT), SHAPE(5),
     VALUES(VIRTUAL_STAGE_VALUES)},
    {PP_DEC_ZERO, "zero", NULL, "zero", "zero", PP_DK_INT, 0, 3, NULL, false, 0, PP_SHOW_ALWAYS, 0, FIELD(zero, INT),
     OPTION(4, DP), .candidates = PP_CAND_RANGE},
    {PP_DEC_RECOMPUTE, "recompute", NULL, "recompute", "recompute", PP_DK_ENUM, 0, PP_RECOMPUTE_COUNT - 1,
     pp_recompute_names, false, PP_RECOMPUTE_NONE, PP_SHOW_ALWAYS, 0, FIELD(recompute, INT), OPTION(0, STAGE),
     .candidates = PP_CAND_RANGE},
    {PP_DEC_SEQUENCE_PARALLEL, "sequence_parallel", NULL, "sp", "sp", PP_DK_BOOL, 0, 1, ON_OFF, false, 0,
     PP_SHOW_ALWAYS, 0, FIELD(sequence_parallel, BOOL), OPTION(1, STAGE), .candidates = PP_CAND_RANGE},
    {PP_DEC_TP_MODE, "tp_mode", NULL, "tp_mode", "tp_mode", PP_DK_ENUM, 0, PP_TP_MODE_COUNT - 1, pp_tp_mode_names,
     false, PP_TP_1D, PP_SHOW_UNLESS_DEFAULT, 0, FIELD(tp_mode, INT), SHAPE(6), .candidates = PP_CAND_GRID},
    {PP_DEC_TP_DEPTH, "tp_depth", NULL, "tp_depth", "d", PP_DK_INT, 1, PP_MAX_TP_DEPTH, NULL, false, 1,
     PP_SHOW_UNLESS_DEFAULT, 0, FIELD(tp_depth, INT), SHAPE(7), .candidates = PP_CAND_GRID},
    /* Mixture of experts: expert parallelism (ranks from dp x cp) and expert
     * tensor parallelism (1 or tp); 1 for dense models (rules.c). */
    {PP_DEC_EP, "ep", "ep", "ep", "ep", PP_DK_INT, 1, PP_MAX_DEGREE, NULL, false, 1, PP_SHOW_UNLESS_DEFAULT, 0,
     FIELD(ep, INT), SHAPE(8), .candidates = PP_CAND_DIVISORS},
    {PP_DEC_ETP, "etp", "etp", "etp", "etp", PP_DK_INT, 1, PP_MAX_DEGREE, NULL, false, 1, PP_SHOW_UNLESS_DEFAULT, 0,
     FIELD(etp, INT), SHAPE(9), .candidates = PP_CAND_PAIR},
    /* 1D tensor parallelism's collectives pipelined with their GEMMs
     * (Megatron-Core --tp-comm-overlap, torchtitan AsyncTP; tp.c) */
    {PP_DEC_TP_OVERLAP, "tp_comm_overlap", NULL, "tp_comm_overlap", "tpo", PP_DK_BOOL, 0, 1, ON_OFF, false, 0,
     PP_SHOW_UNLESS_DEFAULT, 0, FIELD(tp_comm_overlap, BOOL), OPTION(7, TP), .candidates = PP_CAND_RANGE},
    {PP_DEC_CODEC_DP, "dp", NULL, "dp", "dp", PP_DK_CODEC, 0, 0, NULL, false, 0, PP_SHOW_ALWAYS, PP_DIM_DP,
     CODEC_FIELD(PP_DIM_DP), OPTION(5, DP), .candidates = PP_CAND_CODECS},
    {PP_DEC_CODEC_TP, "tp", NULL, "tp", "tp", PP_DK_CODEC, 0, 0, NULL, false, 0, PP_SHOW_ALWAYS, PP_DIM_TP,
     CODEC_FIELD(PP_DIM_TP), OPTION(2, TP), .candidates = PP_CAND_CODECS},
    {PP_DEC_CODEC_PP, "pp", NULL, "pp", "pp", PP_DK_CODEC, 0, 0, NULL, false, 0, PP_SHOW_ALWAYS, PP_DIM_PP,
     CODEC_FIELD(PP_DIM_PP), OPTION(3, PP), .candidates = PP_CAND_CODECS},
    {PP_DEC_CODEC_PARAMS, "params", NULL, "params", "params", PP_DK_CODEC, 0, 0, NULL, false, 0,
     PP_SHOW_UNLESS_DEFAULT, PP_DIM_PARAMS, CODEC_FIELD(PP_DIM_PARAMS), OPTION(6, DP), .candidates = PP_CAND_CODECS},
};

int pp_decision_get(const pp_plan *p, pp_decision_id id)
{
    if (id < 0 || id >= PP_DEC_COUNT)
        return 0;
    const pp_decision *d = &pp_decisions[id];
    const char *at = (const char *)p + d->offset;
    if (d->field == PP_FIELD_BOOL)
        return *(const bool *)at ? 1 : 0;
    return *(const int *)at;
}

void pp_decision_set(pp_plan *p, pp_decision_id id, int v)
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

const pp_decision *pp_decision_at(pp_decision_role role, int order)
{
    for (int i = 0; i < PP_DEC_COUNT; i++)
        if (pp_decisions[i].role == role && pp_decisions[i].order == order)
            return &pp_decisions[i];
    return NULL;
}

void pp_plan_init(pp_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    for (int i = 0; i < PP_DEC_COUNT; i++)
        pp_decision_set(plan, (pp_decision_id)i, pp_decisions[i].def);
}

const char *pp_codec_id(const pp_problem *prob, int i)
{
    return i >= 0 && i < prob->n_codecs ? prob->codecs[i].id : "none";
}

const char *pp_decision_value_text(const pp_problem *prob, const pp_decision *d, int v, char *buf, size_t cap)
{
    switch (d->kind) {
    case PP_DK_CODEC: return pp_codec_id(prob, v);
    case PP_DK_ENUM:
    case PP_DK_BOOL: return v >= d->min && v <= d->max ? d->names[v] : "?";
    default: snprintf(buf, cap, "%d", v); return buf;
    }
}

static void put_word(pp_strbuf *sb, const char *s, void (*word)(pp_strbuf *, const char *))
{
    if (word)
        word(sb, s);
    else
        pp_sb_append(sb, s);
}

static bool shown(const pp_decision *d, int v)
{
    return d->show == PP_SHOW_ALWAYS || v != d->def;
}

/* "tp=8 pp=16 ... sp=off", then the always-shown codecs as one group
 * "compression dp/tp/pp=a/b/c", then those shown only when used
 * ("params=X"). */
void pp_plan_describe(pp_strbuf *sb, const pp_problem *prob, const pp_plan *p,
                      void (*word)(pp_strbuf *sb, const char *s))
{
    char num[32];
    bool first = true;
    for (int i = 0; i < PP_DEC_COUNT; i++) {
        const pp_decision *d = &pp_decisions[i];
        int v = pp_decision_get(p, d->id);
        if (d->kind == PP_DK_CODEC || !shown(d, v))
            continue;
        pp_sb_appendf(sb, "%s%s=%s", first ? "" : " ", d->label, pp_decision_value_text(prob, d, v, num, sizeof num));
        first = false;
    }
    int group = 0;
    for (int i = 0; i < PP_DEC_COUNT; i++) {
        const pp_decision *d = &pp_decisions[i];
        if (d->kind == PP_DK_CODEC && d->show == PP_SHOW_ALWAYS)
            pp_sb_appendf(sb, "%s%s", group++ ? "/" : " compression ", d->label);
    }
    for (int i = 0, k = 0; i < PP_DEC_COUNT; i++) {
        const pp_decision *d = &pp_decisions[i];
        if (d->kind != PP_DK_CODEC || d->show != PP_SHOW_ALWAYS)
            continue;
        pp_sb_append(sb, k++ ? "/" : "=");
        put_word(sb, pp_codec_id(prob, pp_decision_get(p, d->id)), word);
    }
    for (int i = 0; i < PP_DEC_COUNT; i++) {
        const pp_decision *d = &pp_decisions[i];
        int v = pp_decision_get(p, d->id);
        if (d->kind != PP_DK_CODEC || d->show == PP_SHOW_ALWAYS || v == d->def)
            continue;
        pp_sb_appendf(sb, " %s=", d->label);
        put_word(sb, pp_codec_id(prob, v), word);
    }
}

void pp_plan_describe_short(pp_strbuf *sb, const pp_problem *prob, const pp_plan *p,
                            void (*word)(pp_strbuf *sb, const char *s))
{
    char num[32];
    bool first = true;
    for (int i = 0; i < PP_DEC_COUNT; i++) {
        const pp_decision *d = &pp_decisions[i];
        int v = pp_decision_get(p, d->id);
        bool degree = d->id <= PP_DEC_MICRO_BATCH; /* tp pp dp cp mb: always */
        if (!degree && v == d->def)
            continue;
        pp_sb_append(sb, first ? "" : " ");
        first = false;
        if (d->kind == PP_DK_CODEC) {
            pp_sb_appendf(sb, "%s:", d->short_label);
            put_word(sb, pp_codec_id(prob, v), word);
        } else
            pp_sb_appendf(sb, "%s=%s", d->short_label, pp_decision_value_text(prob, d, v, num, sizeof num));
    }
}

void pp_plan_text(const pp_problem *prob, const pp_plan *plan, char *buf, size_t cap)
{
    pp_strbuf sb;
    pp_sb_init(&sb);
    pp_plan_describe(&sb, prob, plan, NULL);
    snprintf(buf, cap, "%s", sb.failed ? "" : pp_sb_str(&sb));
    pp_sb_free(&sb);
}

void pp_plan_changes(const pp_problem *prob, const pp_plan *b, const pp_plan *a, char *buf, size_t cap)
{
    buf[0] = '\0';
    for (int i = 0; i < PP_DEC_COUNT; i++) {
        const pp_decision *d = &pp_decisions[i];
        int x = pp_decision_get(b, d->id), y = pp_decision_get(a, d->id);
        if (x == y)
            continue;
        char nx[32], ny[32];
        const char *tx = pp_decision_value_text(prob, d, x, nx, sizeof nx);
        const char *ty = pp_decision_value_text(prob, d, y, ny, sizeof ny);
        if (d->kind == PP_DK_CODEC)
            pp_catf(buf, cap, "%s%s compression %s instead of %s", buf[0] ? ", " : "", pp_dim_name(d->dim), tx, ty);
        else
            pp_catf(buf, cap, "%s%s=%s instead of %s", buf[0] ? ", " : "", d->label, tx, ty);
    }
}
