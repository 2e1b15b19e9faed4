/* decisions.c: the table of a plan's decisions, and a plan as text (decisions.h). */
#include "decisions.h"

#include "names.h"
#include "text.h"

#include <stdio.h>
#include <string.h>

static const char *const ON_OFF_NAMES[] = {"off", "on"};

/* The columns of a row of decisions.def, as designated initializers. */
#define KEYS(k, row, lab, short_lab) .key = (k), .row_key = (row), .label = (lab), .short_label = (short_lab)
#define INT_RANGE(lo, hi) .kind = PP_DK_INT, .min = (lo), .max = (hi)
#define ENUM(value_names, count) .kind = PP_DK_ENUM, .min = 0, .max = (count) - 1, .names = (value_names)
#define ENUM_OF(...)                                                                                               \
    ENUM(((const char *const[]){__VA_ARGS__}), (int)(sizeof((const char *const[]){__VA_ARGS__}) / sizeof(char *)))
#define ON_OFF .kind = PP_DK_BOOL, .min = 0, .max = 1, .names = ON_OFF_NAMES
#define SHOW(s) .show = PP_SHOW_##s
#define SHAPE(n) .role = PP_ROLE_SHAPE, .order = (n)
#define FAMILY(f) (1u << PP_FORM_##f)
#define OPTION(k, f, depth) .role = PP_ROLE_OPTION, .order = (k), .term = PP_FORM_##f, .nest = (depth)
#define CANDIDATES(c) .candidates = PP_CAND_##c
#define LEAST(v) .has_least = true, .least = (v)
#define THRIFTY(v) .has_thrifty = true, .thrifty = (v)
#define FRAMEWORK_DATA .framework = true
#define ONLY_WITH(d) .has_degree = true, .degree = PP_DEC_##d
#define VALUES(...)                                                                                                \
    .candidates = PP_CAND_VALUES, .values = (const int[]){__VA_ARGS__},                                            \
    .n_values = (int)(sizeof((const int[]){__VA_ARGS__}) / sizeof(int))

/* Where a row's value sits in pp_plan (decisions.def's storage column). */
#define AT_INT(f) .offset = offsetof(pp_plan, f), .field = PP_FIELD_INT
#define AT_BOOL(f) .offset = offsetof(pp_plan, f), .field = PP_FIELD_BOOL
#define AT_CODEC(d)                                                                                                \
    .offset = offsetof(pp_plan, codec) + (size_t)PP_DIM_##d * sizeof(int), .field = PP_FIELD_INT,                  \
    .kind = PP_DK_CODEC, .dim = PP_DIM_##d

/* get and set read an int field (an enum of an int's size) as an int, a
 * bool as a bool; the codec rows follow pp_dim's order (PP_DEC_CODEC). */
#define CHECK_INT(id, f) _Static_assert(sizeof(((pp_plan *)0)->f) == sizeof(int), #f " is stored as an int");
#define CHECK_BOOL(id, f) _Static_assert(sizeof(((pp_plan *)0)->f) == sizeof(bool), #f " is stored as a bool");
#define CHECK_CODEC(id, d) _Static_assert(PP_DEC_##id == PP_DEC_CODEC(PP_DIM_##d), #id " follows pp_dim's order");
#define PP_DECISION(id, f, ctype, storage, ...) CHECK_##storage(id, f)
#include "decisions.def"
#undef PP_DECISION

const pp_decision pp_decisions[PP_DEC_COUNT] = {
#define PP_DECISION(ID, f, ctype, storage, ...) [PP_DEC_##ID] = {.id = PP_DEC_##ID, AT_##storage(f), __VA_ARGS__},
#include "decisions.def"
#undef PP_DECISION
};

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

void pp_plan_least(pp_plan *plan)
{
    for (int i = 0; i < PP_DEC_COUNT; i++)
        if (pp_decisions[i].has_least)
            pp_decision_set(plan, (pp_decision_id)i, pp_decisions[i].least);
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
    static const char more[] = ", and more";
    buf[0] = '\0';
    for (int i = 0; i < PP_DEC_COUNT; i++) {
        const pp_decision *d = &pp_decisions[i];
        int x = pp_decision_get(b, d->id), y = pp_decision_get(a, d->id);
        if (x == y)
            continue;
        char nx[32], ny[32], item[256];
        const char *tx = pp_decision_value_text(prob, d, x, nx, sizeof nx);
        const char *ty = pp_decision_value_text(prob, d, y, ny, sizeof ny);
        /* the modules recomputed mean nothing in a plan that does not
         * recompute selectively: the other plan's alone */
        bool modules_of_one = d->id == PP_DEC_RECOMPUTE_MODULES &&
                              (b->recompute != PP_RECOMPUTE_SELECTIVE || a->recompute != PP_RECOMPUTE_SELECTIVE);
        if (modules_of_one && b->recompute != PP_RECOMPUTE_SELECTIVE && a->recompute != PP_RECOMPUTE_SELECTIVE)
            continue;
        if (d->kind == PP_DK_CODEC)
            snprintf(item, sizeof item, "%s%s compression %s instead of %s", buf[0] ? ", " : "", pp_dim_name(d->dim),
                     tx, ty);
        else if (modules_of_one)
            snprintf(item, sizeof item, "%s%s=%s", buf[0] ? ", " : "", d->label,
                     b->recompute == PP_RECOMPUTE_SELECTIVE ? tx : ty);
        else
            snprintf(item, sizeof item, "%s%s=%s instead of %s", buf[0] ? ", " : "", d->label, tx, ty);
        /* whole changes only: one that does not fit ends the list */
        size_t used = strlen(buf);
        if (used + strlen(item) + sizeof more > cap) {
            if (used > 0 && used + sizeof more <= cap)
                pp_catf(buf, cap, "%s", more);
            return;
        }
        pp_catf(buf, cap, "%s", item);
    }
}
