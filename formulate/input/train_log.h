/*
 * train_log.h: a training run's log turned into one measurement row.
 *
 * The step time is read from the lines each framework prints:
 *   Megatron-LM  "iteration 10/ 500000 | ... | elapsed time per iteration (ms): 1234.5 | ..."
 *   NeMo         "train_step_timing in s: 1.23", or the Lightning progress bar's
 *                "train_step_timing in s=1.23" / "train_step_timing=1.23"
 *   torchtitan   "step: 10  loss:  7.1234  memory: 30.12GiB(38.01%)  tps: 6,123  ..."
 *                tps is tokens per second per GPU, so the step takes
 *                global_batch * seq_len / GPUs / tps seconds
 *   DeepSpeed    "iter time (s): 1.234", else "samples/sec: 12.34" (also
 *                "samples/sec=", "CurrSamplesPerSec="), samples of the whole
 *                step, so it takes global_batch / (samples/sec) seconds
 * The first line that matches fixes the format; each report is one value
 * (Megatron's is already the mean over its log interval).  The first
 * reports are warm-up (compilation, NCCL set-up, allocator growth): the
 * first 3 are skipped when there are at least 6, the first one when there
 * are 2 to 5.  The row's time is the median of the rest.
 */
#ifndef PARPLAN_TRAIN_LOG_H
#define PARPLAN_TRAIN_LOG_H

#include "types.h"

typedef enum {
    PP_TRAIN_LOG_UNKNOWN = 0,
    PP_TRAIN_LOG_MEGATRON,
    PP_TRAIN_LOG_NEMO,
    PP_TRAIN_LOG_TORCHTITAN,
    PP_TRAIN_LOG_DEEPSPEED,
    PP_TRAIN_LOG_FORMAT_COUNT
} pp_train_log_format;

const char *pp_train_log_format_name(pp_train_log_format f); /* "Megatron-LM", ... */

typedef struct pp_train_log {
    pp_train_log_format format;
    int n, cap;
    double *step_s;     /* every report, in order (owned) */
    int warmup_skipped; /* reports left out at the start */
    double median_s;    /* of the reports after the warm-up */
    char how[160];      /* how the step time was read */
} pp_train_log;

/* Read the step times of a log; prob and plan give the batch, sequence and
 * GPU count that throughput lines need.  PP_EINPUT (at `name`) if no line
 * gives a step time. */
int pp_train_log_parse(const char *text, const char *name, const pp_problem *prob, pp_train_log *log,
                       pp_error *err);
int pp_train_log_load(const char *path, const pp_problem *prob, pp_train_log *log, pp_error *err);
void pp_train_log_free(pp_train_log *log);

/* The measurement rows file (a JSON array holding one row, in the schema of
 * data/measurements/README.md) for the run; caller frees. */
char *pp_train_log_rows_json(const pp_train_log *log, const char *path, const pp_problem *prob,
                             const pp_plan *plan);

#endif
