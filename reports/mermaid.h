/*
 * mermaid.h: charts as Mermaid blocks, which GitHub and most Markdown
 * viewers render in place (and which stay readable as text elsewhere).
 *
 * Two kinds are used: `pie` for where the time and the memory go, and
 * `gantt` for the pipeline schedule.  Mermaid's parser has no escaping, so a
 * label that came from input is sanitized instead: quotes, colons,
 * semicolons, '#', '%', angle brackets, braces, backticks, backslashes and
 * control characters are dropped (each of them ends a label, starts a comment
 * or an entity, or could open HTML in some renderers).
 *
 * The gantt chart uses `dateFormat x` (Unix milliseconds): every bar is given
 * as integer start and end milliseconds since 0, so the axis reads seconds
 * and milliseconds of the step.  `displayMode: compact` (front matter) puts
 * the bars of one stage on one row.
 */
#ifndef PARPLAN_MERMAID_H
#define PARPLAN_MERMAID_H

#include "schedule.h"
#include "strbuf.h"

/* Append s with the characters above removed and runs of spaces collapsed. */
void pp_mermaid_label(pp_strbuf *sb, const char *s);

/* Mermaid's default maxTextSize: a diagram of more characters is refused
 * ("Maximum text size in diagram exceeded") and does not render. */
#define PP_MERMAID_MAX_TEXT 50000

typedef struct pp_pie_slice {
    const char *label; /* sanitized on output */
    double value;
} pp_pie_slice;

/* A fenced ```mermaid pie block; slices that round to 0 at `decimals` are
 * left out (Mermaid draws nothing for them but still lists them). */
void pp_mermaid_pie(pp_strbuf *sb, const char *title, const pp_pie_slice *slices, int n, int decimals);

/* A fenced ```mermaid gantt block of the tasks of a schedule (nothing when
 * it has none).  *scale_out (may be NULL) gets how many chart milliseconds
 * one real millisecond is (1, or 1000 when the bars are shorter than a
 * millisecond: the caption must then say so). */
void pp_mermaid_gantt(pp_strbuf *sb, const char *title, const pp_schedule *s, int *scale_out);

#endif
