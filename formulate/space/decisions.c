/* decisions.c: the table of a plan's decisions, and a plan as text (decisions.h). */
#include "decisions.h"

#include "names.h"
#include "text.h"

#include <stdio.h>

static const char *const ON_OFF[] = {"off", "on"};

const pp_decision pp_decisions[PP_DEC_COUNT] = {
    {PP_DEC_TP, "tp", "tp", "tp", PP_DK_INT, 1, PP_MAX_DEGREE, NULL, true, 1, PP_SHOW_ALWAYS, 0},
    {PP_DEC_PP, "pp", "pp", "pp", PP_DK_INT, 1, PP_MAX_DEGREE, NULL, true, 1, PP_SHOW_ALWAYS, 0},
    {PP_DEC_DP, "dp", "dp", "dp", PP_DK_INT, 1, PP_MAX_DEGREE, NULL, false, 1, PP_SHOW_ALWAYS, 0},
    {PP_DEC_CP, "cp", "cp", "cp", PP_DK_INT, 1, PP_MAX_DEGREE, NULL, false, 1, PP_SHOW_ALWAYS, 0},
    {PP_DEC_MICRO_BATCH, "micro_batch", "micro_batch", "mb", PP_DK_INT, 1, PP_MAX_DEGREE, NULL, false, 1, PP_SHOW_ALWAYS, 0},
    {PP_DEC_VIRTUAL_STAGES, "virtual_stages", "virtual_stages", "v", PP_DK_INT, 1, PP_MAX_VIRTUAL_STAGES, NULL, false, 1,
     PP_SHOW_ALWAYS, 0},
    {PP_DEC_ZERO, "zero", "zero", "zero", PP_DK_INT, 0, 3, NULL, false, 0, PP_SHOW_ALWAYS, 0},
    {PP_DEC_RECOMPUTE, "recompute", "recompute", "recompute", PP_DK_ENUM, 0, PP_RECOMPUTE_COUNT - 1, pp_recompute_names, false,
     PP_RECOMPUTE_NONE, PP_SHOW_ALWAYS, 0},
    {PP_DEC_SEQUENCE_PARALLEL, "sequence_parallel", "sp", "sp", PP_DK_BOOL, 0, 1, ON_OFF, false, 0, PP_SHOW_ALWAYS, 0},
    {PP_DEC_TP_MODE, "tp_mode", "tp_mode", "tp_mode", PP_DK_ENUM, 0, PP_TP_MODE_COUNT - 1, pp_tp_mode_names, false, PP_TP_1D,
     PP_SHOW_UNLESS_DEFAULT, 0},
    {PP_DEC_TP_DEPTH, "tp_depth", "tp_depth", "d", PP_DK_INT, 1, PP_MAX_TP_DEPTH, NULL, false, 1, PP_SHOW_UNLESS_DEFAULT, 0},
    /* Mixture of experts: expert parallelism (ranks from dp x cp) and expert
     * tensor parallelism (1 or tp); 1 for dense models (rules.c). */
    {PP_DEC_EP, "ep", "ep", "ep", PP_DK_INT, 1, PP_MAX_DEGREE, NULL, false, 1, PP_SHOW_UNLESS_DEFAULT, 0},
    {PP_DEC_ETP, "etp", "etp", "etp", PP_DK_INT, 1, PP_MAX_DEGREE, NULL, false, 1, PP_SHOW_UNLESS_DEFAULT, 0},
    /* 1D tensor parallelism's collectives pipelined with their GEMMs
     * (Megatron-Core --tp-comm-overlap, torchtitan AsyncTP; tp.c) */
    {PP_DEC_TP_OVERLAP, "tp_comm_overlap", "tp_comm_overlap", "tpo", PP_DK_BOOL, 0, 1, ON_OFF, false, 0,
     PP_SHOW_UNLESS_DEFAULT, 0},
    {PP_DEC_CODEC_DP, "dp", "dp", "dp", PP_DK_CODEC, 0, 0, NULL, false, 0, PP_SHOW_ALWAYS, PP_DIM_DP},
    {PP_DEC_CODEC_TP, "tp", "tp", "tp", PP_DK_CODEC, 0, 0, NULL, false, 0, PP_SHOW_ALWAYS, PP_DIM_TP},
    {PP_DEC_CODEC_PP, "pp", "pp", "pp", PP_DK_CODEC, 0, 0, NULL, false, 0, PP_SHOW_ALWAYS, PP_DIM_PP},
    {PP_DEC_CODEC_PARAMS, "params", "params", "params", PP_DK_CODEC, 0, 0, NULL, false, 0, PP_SHOW_UNLESS_DEFAULT,
     PP_DIM_PARAMS},
};

int pp_decision_get(const pp_plan *p, pp_decision_id id)
{
    switch (id) {
    case PP_DEC_TP: return p->tp;
    case PP_DEC_PP: return p->pp;
    case PP_DEC_DP: return p->dp;
    case PP_DEC_CP: return p->cp;
    case PP_DEC_MICRO_BATCH: return p->micro_batch;
    case PP_DEC_VIRTUAL_STAGES: return p->virtual_stages;
    case PP_DEC_ZERO: return p->zero;
    case PP_DEC_RECOMPUTE: return (int)p->recompute;
    case PP_DEC_SEQUENCE_PARALLEL: return p->sequence_parallel ? 1 : 0;
    case PP_DEC_TP_MODE: return (int)p->tp_mode;
    case PP_DEC_TP_DEPTH: return p->tp_depth;
    case PP_DEC_EP: return p->ep;
    case PP_DEC_ETP: return p->etp;
    case PP_DEC_TP_OVERLAP: return p->tp_comm_overlap ? 1 : 0;
    case PP_DEC_CODEC_DP: return p->codec[PP_DIM_DP];
    case PP_DEC_CODEC_TP: return p->codec[PP_DIM_TP];
    case PP_DEC_CODEC_PP: return p->codec[PP_DIM_PP];
    case PP_DEC_CODEC_PARAMS: return p->codec[PP_DIM_PARAMS];
    case PP_DEC_COUNT: break;
    }
    return 0;
}

void pp_decision_set(pp_plan *p, pp_decision_id id, int v)
{
    switch (id) {
    case PP_DEC_TP: p->tp = v; break;
    case PP_DEC_PP: p->pp = v; break;
    case PP_DEC_DP: p->dp = v; break;
    case PP_DEC_CP: p->cp = v; break;
    case PP_DEC_MICRO_BATCH: p->micro_batch = v; break;
    case PP_DEC_VIRTUAL_STAGES: p->virtual_stages = v; break;
    case PP_DEC_ZERO: p->zero = v; break;
    case PP_DEC_RECOMPUTE: p->recompute = (pp_recompute)v; break;
    case PP_DEC_SEQUENCE_PARALLEL: p->sequence_parallel = v != 0; break;
    case PP_DEC_TP_MODE: p->tp_mode = (pp_tp_mode)v; break;
    case PP_DEC_TP_DEPTH: p->tp_depth = v; break;
    case PP_DEC_EP: p->ep = v; break;
    case PP_DEC_ETP: p->etp = v; break;
    case PP_DEC_TP_OVERLAP: p->tp_comm_overlap = v != 0; break;
    case PP_DEC_CODEC_DP: p->codec[PP_DIM_DP] = v; break;
    case PP_DEC_CODEC_TP: p->codec[PP_DIM_TP] = v; break;
    case PP_DEC_CODEC_PP: p->codec[PP_DIM_PP] = v; break;
    case PP_DEC_CODEC_PARAMS: p->codec[PP_DIM_PARAMS] = v; break;
    case PP_DEC_COUNT: break;
    }
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
