/* decisions.c: a plan's decisions as text (decisions.h). */
#include "decisions.h"

#include "problem.h"
#include "text.h"

#include <stdio.h>

const char *pp_codec_id(const pp_problem *prob, int i)
{
    return i >= 0 && i < prob->n_codecs ? prob->codecs[i].id : "none";
}

static void put_word(pp_strbuf *sb, const char *s, void (*word)(pp_strbuf *, const char *))
{
    if (word)
        word(sb, s);
    else
        pp_sb_append(sb, s);
}

void pp_plan_describe(pp_strbuf *sb, const pp_problem *prob, const pp_plan *p,
                      void (*word)(pp_strbuf *sb, const char *s))
{
    pp_sb_appendf(sb, "tp=%d pp=%d dp=%d cp=%d micro_batch=%d virtual_stages=%d zero=%d recompute=%s sp=%s", p->tp,
                  p->pp, p->dp, p->cp, p->micro_batch, p->virtual_stages, p->zero, pp_recompute_name(p->recompute),
                  p->sequence_parallel ? "on" : "off");
    if (p->tp_mode != PP_TP_1D)
        pp_sb_appendf(sb, " tp_mode=%s", pp_tp_mode_name(p->tp_mode));
    if (p->tp_mode == PP_TP_2P5D)
        pp_sb_appendf(sb, " tp_depth=%d", p->tp_depth);
    pp_sb_append(sb, " compression dp/tp/pp=");
    for (int d = 0; d <= PP_DIM_PP; d++) {
        if (d > 0)
            pp_sb_append(sb, "/");
        put_word(sb, pp_codec_id(prob, p->codec[d]), word);
    }
    if (p->codec[PP_DIM_PARAMS] != 0) { /* ZeRO's parameter gathers */
        pp_sb_append(sb, " params=");
        put_word(sb, pp_codec_id(prob, p->codec[PP_DIM_PARAMS]), word);
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
            pp_catf(buf, cap, "%s%s=%d instead of %d", buf[0] ? ", " : "", ints[i].name, ints[i].x, ints[i].y);
    if (b->recompute != a->recompute)
        pp_catf(buf, cap, "%srecompute=%s instead of %s", buf[0] ? ", " : "", pp_recompute_name(b->recompute),
                pp_recompute_name(a->recompute));
    if (b->sequence_parallel != a->sequence_parallel)
        pp_catf(buf, cap, "%ssp=%s instead of %s", buf[0] ? ", " : "", b->sequence_parallel ? "on" : "off",
                a->sequence_parallel ? "on" : "off");
    if (b->tp_mode != a->tp_mode || b->tp_depth != a->tp_depth)
        pp_catf(buf, cap, "%stp_mode=%s instead of %s", buf[0] ? ", " : "", pp_tp_mode_name(b->tp_mode),
                pp_tp_mode_name(a->tp_mode));
    for (int d = 0; d < PP_DIM_COUNT; d++)
        if (b->codec[d] != a->codec[d])
            pp_catf(buf, cap, "%s%s compression %s instead of %s", buf[0] ? ", " : "", pp_dim_name((pp_dim)d),
                    pp_codec_id(prob, b->codec[d]), pp_codec_id(prob, a->codec[d]));
}
