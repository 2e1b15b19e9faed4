/*
 * text_number.h: the numbers of the text files users hand us (nccl-tests
 * logs, training logs, GEMM-sweep CSVs), range-checked before any
 * arithmetic.
 *
 * These readers skip what is not theirs: a line of another program, a row
 * cut short, a cell that is not a number.  A cell that IS a number but lies
 * outside what any machine can produce (a rank of 10^20, a 10^300 us time,
 * a negative size) is different: it means a corrupted file or a wrong unit,
 * and arithmetic on it is undefined (a long that overflows) or a silent wrong
 * answer (an infinite time).  Such a file is refused, naming the file, the
 * line and the column: "FILE:LINE:COLUMN" in the error's path, exit 2.
 *
 * Each range is one row of pp_text_ranges (text_number.c), with the reason
 * for its bounds; docs/robustness.md lists them.
 */
#ifndef PARPLAN_TEXT_NUMBER_H
#define PARPLAN_TEXT_NUMBER_H

#include "error.h"

#include <stdbool.h>

typedef enum {
    PP_TEXT_RANK,       /* an nccl-tests rank (# Rank N ... on HOST) */
    PP_TEXT_BYTES,      /* an nccl-tests message size, bytes */
    PP_TEXT_TIME_US,    /* an nccl-tests time, microseconds */
    PP_TEXT_GBPS,       /* an nccl-tests algbw or busbw, GB/s */
    PP_TEXT_STEP_S,     /* a training step, seconds (after its unit) */
    PP_TEXT_RATE,       /* a training throughput: tokens or samples per second */
    PP_TEXT_GEMM_S,     /* one GEMM call, seconds (after its unit) */
    PP_TEXT_RANGE_COUNT
} pp_text_range_id;

typedef struct pp_text_range {
    const char *what;  /* "a rank", in "expected a rank from 0 to 1048575" */
    double lo, hi;     /* inclusive */
    bool whole;        /* a whole number */
    const char *why;   /* where the bounds come from (docs/robustness.md) */
} pp_text_range;

extern const pp_text_range pp_text_ranges[PP_TEXT_RANGE_COUNT];

/* Whether v lies in range id (finite, within [lo, hi], whole if it must be). */
bool pp_text_in_range(pp_text_range_id id, double v);

/* Fill err with "NAME:LINE:COLUMN" as its path and "expected WHAT from LO to
 * HI, found 'CELL'" and return PP_EINPUT.  cell is the offending text (only
 * its first token is quoted); column counts from 1. */
int pp_text_refuse(pp_error *err, const char *name, int line, int column, pp_text_range_id id, const char *cell);

#endif
