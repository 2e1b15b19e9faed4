/*
 * mermaid.c: rendering the Mermaid blocks of mermaid.h.
 */
#include "mermaid.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void pp_mermaid_label(pp_strbuf *sb, const char *s)
{
    static const char dropped[] = "\"':;#%<>{}`\\";
    bool started = false, pending_space = false;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (strchr(dropped, *p))
            continue;
        if (*p <= ' ' || *p == 0x7f) {
            pending_space = started;
            continue;
        }
        if (pending_space)
            pp_sb_append(sb, " ");
        pp_sb_appendn(sb, (const char *)p, 1);
        started = true;
        pending_space = false;
    }
}

void pp_mermaid_pie(pp_strbuf *sb, const char *title, const pp_pie_slice *slices, int n, int decimals)
{
    pp_sb_append(sb, "```mermaid\npie title ");
    pp_mermaid_label(sb, title);
    pp_sb_append(sb, "\n");
    double least = 0.5 * pow(10, -decimals);
    for (int i = 0; i < n; i++) {
        if (!isfinite(slices[i].value) || slices[i].value < least)
            continue;
        pp_sb_append(sb, "    \"");
        pp_mermaid_label(sb, slices[i].label);
        pp_sb_appendf(sb, "\" : %.*f\n", decimals, slices[i].value);
    }
    pp_sb_append(sb, "```\n\n");
}

static long chart_ms(double seconds, int scale)
{
    return lround(seconds * 1000.0 * scale);
}

void pp_mermaid_gantt(pp_strbuf *sb, const char *title, const pp_schedule *s, int *scale_out)
{
    if (scale_out)
        *scale_out = 1;
    if (s->n_tasks <= 0)
        return;
    /* Bars under a millisecond would round to nothing: draw microseconds
     * as milliseconds instead. */
    double shortest = fmin(fmin(s->forward_s, s->backward_s), fmin(s->other_forward_s, s->other_backward_s));
    int scale = shortest * 1000.0 < 2.0 ? 1000 : 1;
    if (scale_out)
        *scale_out = scale;
    long span = chart_ms(s->shown_makespan_s, scale);
    pp_sb_append(sb, "```mermaid\n---\ndisplayMode: compact\n---\ngantt\n    title ");
    pp_mermaid_label(sb, title);
    pp_sb_appendf(sb, "\n    dateFormat x\n    axisFormat %s\n    todayMarker off\n",
                  span < 60000 ? "%S.%L" : "%M:%S");
    int stage = -1;
    for (int i = 0; i < s->n_tasks; i++) {
        const pp_sched_task *t = &s->tasks[i];
        if (t->stage != stage) {
            stage = t->stage;
            pp_sb_appendf(sb, "    section stage %d\n", stage);
        }
        long start = chart_ms(t->start_s, scale), end = chart_ms(t->end_s, scale);
        if (end <= start)
            end = start + 1;
        char name[32];
        if (s->virtual_stages > 1)
            snprintf(name, sizeof name, "%c%d.%d", t->backward ? 'B' : 'F', t->microbatch, t->chunk);
        else
            snprintf(name, sizeof name, "%c%d", t->backward ? 'B' : 'F', t->microbatch);
        pp_sb_appendf(sb, "    %s :%ss%d%c%dc%d, %ld, %ld\n", name, t->backward ? "active, " : "", t->stage,
                      t->backward ? 'b' : 'f', t->microbatch, t->chunk, start, end);
    }
    pp_sb_append(sb, "```\n\n");
}
