/*
 * calibrate.h: fit the cost model's efficiency parameters to measured steps,
 * and score the model against measurements.
 *
 * The fit is a least-squares problem in the log of the step-time ratio
 * (predicted / measured), over the handful of pp_efficiency parameters of
 * each GPU, solved by Nelder-Mead in a bounded transform.  Everything else in
 * the model is datasheet figures and counts, so a good fit means the physics
 * holds, and the spread that is left is the model's honest error.
 */
#ifndef PARPLAN_CALIBRATE_H
#define PARPLAN_CALIBRATE_H

#include "measurements.h"

#define PP_MAX_GROUPS 32

typedef struct pp_group_score {
    char group[64];
    int n_time;
    double mape_time;   /* mean absolute percentage error of step time, % */
    double max_ape_time;
    int n_memory;
    double mape_memory; /* of model-state and activation memory, % */
} pp_group_score;

typedef struct pp_score {
    int n_groups;
    pp_group_score groups[PP_MAX_GROUPS];
} pp_score;

/* Score the model (with each row's GPU efficiency as loaded) per group. */
void pp_score_measurements(const pp_measurement_set *set, pp_score *score);

/* One timed row (r->has_time): the predicted step time into *predicted_s,
 * and the signed error of the prediction, 100 (predicted / measured - 1) %. */
double pp_row_time_error_pct(const pp_measurement *r, double *predicted_s);

typedef struct pp_fit {
    char gpu_id[PP_ID_LEN];
    int n_rows;
    pp_efficiency eff;
    double rms_log_error_before, rms_log_error_after;
} pp_fit;

/* Fit the efficiency parameters of every GPU that has timed rows; updates
 * the rows' problems in place with the fitted values.  Returns the number
 * of GPUs fitted (at most max_fits). */
int pp_calibrate(pp_measurement_set *set, pp_fit *fits, int max_fits);

/* The calibration override file (data/SCHEMA.md, efficiency.json). */
char *pp_fits_to_json(const pp_fit *fits, int n_fits, const char *source);

#endif
