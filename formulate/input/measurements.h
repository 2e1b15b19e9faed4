/*
 * measurements.h: published (or your own) training measurements, turned into
 * problems and plans the cost model can price.
 *
 * The rows follow the schema of data/measurements/README.md (the project's
 * own set is data/measurements/published-calibration.json; docs/calibration.md):
 * model shape, cluster, parallel configuration and what was measured.
 * `parplan calibrate` fits the efficiency parameters of each GPU to them;
 * `parplan accuracy` scores the model against them.
 */
#ifndef PARPLAN_MEASUREMENTS_H
#define PARPLAN_MEASUREMENTS_H

#include "problem.h"
#include "types.h"

typedef struct pp_measurement {
    char id[160];
    char group[64];
    char gpu_id[PP_ID_LEN];
    char eff_id[PP_ID_LEN]; /* whose efficiency parameters it uses: the GPU's
                               efficiency_from (gpus.json), else gpu_id */
    pp_problem prob;
    pp_plan plan;
    bool has_time;      /* iteration time usable for scoring */
    double iteration_s; /* measured, else derived by the source's formula */
    bool has_memory;    /* per-GPU memory parts given */
    double mem_states_gib, mem_activations_gib;
    bool has_peak;      /* the framework's peak memory per GPU (allocator reserved, max over ranks) */
    double peak_gib;
    bool has_oom;       /* the run stopped out of memory ("measured": {"oom": true}): no time, and
                           proof that the plan does not fit */
    bool has_model_states; /* ZeRO Table 1 style: model-state GB only */
    double params_b, model_states_GB;
    bool defect; /* the row's "software_defect": its source reports the speed as a
                    framework bug, so it is scored apart and never fitted */
    double cv_predicted_s; /* its step time priced with the fit on every other group
                              (pp_cross_validate); 0 until then */
} pp_measurement;

#define PP_SKIPPED_LISTED 32

typedef struct pp_measurement_set {
    int n;
    pp_measurement *rows; /* owned */
    int n_skipped;        /* rows that carry nothing the model can price, or break a plan rule */
    char first_skipped[640]; /* the first of them: its path and id, and why ("" if none) */
    int n_skipped_listed;    /* the first PP_SKIPPED_LISTED of them, each as first_skipped says it */
    char skipped[PP_SKIPPED_LISTED][320];
    int n_files;          /* JSON files read */
} pp_measurement_set;

/* Load rows.  Each row is turned into a PROBLEM and a PLAN and read by the
 * readers of problem.h (measurements.c), so its model, cluster and plan obey
 * what a problem's do; a row that breaks them is an error (PP_EINPUT) naming
 * its path ("FILE: $[3].model.layers") and the set is left empty.  A row that
 * carries nothing the model can price (no step time, memory parts, peak or
 * out-of-memory stop) or whose configuration breaks a plan rule (rules.h) is
 * skipped and counted, never guessed. */
int pp_measurements_load(const char *path, const pp_catalog *cat, pp_measurement_set *set, pp_error *err);

/* The rows of several paths, in the order given; a path that is a directory
 * contributes every *.json file in it, in name order (so the project's set is
 * `data/measurements/`).  Keys a row carries that the loader does not use
 * (e.g. a source's own config keys, notes) are ignored, never errors; null
 * says the source did not state a value.
 * On failure the set is empty. */
int pp_measurements_load_many(const char *const *paths, int n_paths, const pp_catalog *cat,
                              pp_measurement_set *set, pp_error *err);
void pp_measurements_free(pp_measurement_set *set);

#endif
