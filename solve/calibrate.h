/*
 * calibrate.h: fit the cost model's efficiency parameters to measured steps,
 * and score the model against measurements, in sample and cross-validated.
 *
 * The fit is a least-squares problem in the log of the step-time ratio
 * (predicted / measured), over the eight pp_efficiency parameters of each
 * GPU, solved by NLopt's bounded derivative-free BOBYQA (Powell 2009), then
 * polished by Sbplx.  Every parameter stays within physical bounds taken from
 * microbenchmarks of its GPU family (data/calibration-bounds.json, each GPU
 * of gpus.json naming its family; the catalog reads them into
 * pp_eff_family, and docs/calibration.md prints them), so a fitted value is
 * always one a real kernel or NCCL run has reached.  Everything else in the
 * model is datasheet figures and counts; the spread that is left is the
 * model's honest error, and the cross-validated error (pp_cross_validate)
 * is the accuracy of record.  Same rows in, same bytes out.
 */
#ifndef PARPLAN_CALIBRATE_H
#define PARPLAN_CALIBRATE_H

#include "catalog.h"
#include "measurements.h"

#define PP_MAX_GROUPS 64

/* Same-job pairs (two plans of one job: pp_cross_validate) are scored by
 * the gap between their measured step times, slower / faster - 1: 3-10 %,
 * 10-30 % and over 30 % (the bins of issue #34's held-out scoring).  A pair
 * whose measured steps differ by 3 % or less orders nothing and is not
 * counted. */
#define PP_GAP_BINS 3
#define PP_PAIR_MIN_GAP 0.03
/* The bin of a measured gap (slower / faster - 1), or -1 at 3 % or less. */
int pp_gap_bin(double gap);
/* "3-10 %", "10-30 %", "> 30 %" */
const char *pp_gap_bin_name(int bin);

/* Dense timed rows by how many nodes (NVLink domains: gpus.json's node of
 * the row's cluster) their run spans: one, 2-8, 9-64, more.  What a step
 * pays for crossing the network, and for waiting on more GPUs, shows in
 * the signed error of the spans beyond one node against the one-node rows
 * (docs/calibration.md, "The cost of scale"). */
#define PP_SPAN_BINS 4
/* The bin of a run over `nodes` nodes. */
int pp_span_bin(long nodes);
/* "1 node", "2-8 nodes", "9-64 nodes", "> 64 nodes" */
const char *pp_span_bin_name(int bin);

typedef struct pp_span_score {
    int n_rows[PP_SPAN_BINS];
    double mape_time[PP_SPAN_BINS]; /* mean absolute error of step time, % */
    double bias_time[PP_SPAN_BINS]; /* mean signed error, 100 (predicted / measured - 1) %: < 0 priced fast */
} pp_span_score;

/* The span table of the set's dense timed rows (not Mixture-of-Experts, not
 * software defects), row i priced at pred_s[i]. */
void pp_span_score_rows(const pp_measurement_set *set, const double *pred_s, pp_span_score *out);

typedef struct pp_group_score {
    char group[64];
    int n_time;
    double mape_time;   /* mean absolute percentage error of step time, % */
    double max_ape_time;
    int n_pairs;        /* same-job pairs whose measured step times differ by > 3 % (pp_cv_group's) */
    double ordered;     /* share of them the predictions order as measured, % */
    int bin_pairs[PP_GAP_BINS], bin_ordered[PP_GAP_BINS]; /* the same by measured gap (pp_gap_bin) */
    int n_memory;
    double mape_memory; /* of model-state and activation memory, % */
    int n_peak;
    double mape_peak, signed_peak; /* of the whole per-GPU memory against measured peaks, % */
    /* memory feasibility, the planner's test (total of the most loaded GPU
     * within the usable memory): */
    int n_ran, ran_fit; /* timed rows (the run finished steps), and how many are priced to fit */
    int n_oom, oom_over; /* rows that ran out of memory, and how many are priced over */
    /* weak-scaling pairs: the same plan per GPU (the degrees, the micro-batch,
     * the micro-batches per replica) on more GPUs, dp the only degree that
     * differs.  scale_gap is their mean of log(measured ratio) - log(priced
     * ratio) in %: above 0, the runs slowed with scale more than priced */
    int n_scale;
    double scale_gap, scale_doublings; /* and the mean log2 of the GPU-count ratio */
} pp_group_score;

/* Same plan on different GPUs: two timed dense rows of one group that run
 * one job (the same model shape, GPU count and global batch) with the same
 * plan and training settings on GPUs of two kinds (gpu_id), measured more
 * than 3 % apart.  No plan orders them: the hardware does, the choice
 * `parplan capacity` makes between GPU kinds.  Counted per kind of pair,
 * its two GPU ids in name order. */
#define PP_MAX_GPU_KINDS 32
typedef struct pp_gpu_kind_pair {
    char gpu[2][PP_ID_LEN]; /* in name order */
    int n, ordered;
    double measured_log, priced_log; /* mean log(step on gpu[0] / step on gpu[1]) */
} pp_gpu_kind_pair;

typedef struct pp_gpu_pairs {
    int n_pairs, ordered;
    int bin_pairs[PP_GAP_BINS], bin_ordered[PP_GAP_BINS]; /* by measured gap (pp_gap_bin) */
    int n_kinds;
    pp_gpu_kind_pair kinds[PP_MAX_GPU_KINDS]; /* kinds beyond the last slot count in the totals only */
} pp_gpu_pairs;

/* The set's same-plan pairs on different GPUs, row i priced at pred_s[i];
 * rows with a reported software defect and Mixture-of-Experts rows pair
 * with none (the dense rows are the order of record). */
void pp_score_gpu_pairs(const pp_measurement_set *set, const double *pred_s, pp_gpu_pairs *out);

/* Same-job pairs by what differs between their two plans: one slot per
 * decision (pp_decision_id) and a last one for the training settings
 * (precision, kernels, overlaps a row states); a pair counts under every
 * slot it changes, so the order the model gets wrong can be traced to a
 * decision (micro_batch, pp, ...). */
#define PP_PAIR_WHAT (PP_DEC_COUNT + 1)

typedef struct pp_score {
    int n_groups;
    pp_group_score groups[PP_MAX_GROUPS];
    int what_pairs[PP_PAIR_WHAT], what_ordered[PP_PAIR_WHAT]; /* over every group's pairs */
    int n_defect;       /* timed rows whose source reports a software defect: scored apart */
    double mape_defect; /* their step-time MAPE, % */
    pp_span_score span; /* the dense rows by the nodes their run spans */
    pp_gpu_pairs gpu_pairs; /* the same plan on GPUs of two kinds */
} pp_score;

/* Score the model (with each row's GPU efficiency as loaded) per group. */
void pp_score_measurements(const pp_measurement_set *set, pp_score *score);

/* One timed row (r->has_time): the predicted step time into *predicted_s,
 * and the signed error of the prediction, 100 (predicted / measured - 1) %. */
double pp_row_time_error_pct(const pp_measurement *r, double *predicted_s);

/* ---- the fit ------------------------------------------------------------- */

/* The fitted parameters are the first PP_EFF_COUNT of the catalog's table
 * of efficiency parameters (pp_eff_params, catalog.h). */

/* The order term of the fit.  Besides the level (the rows' mean squared
 * log error), the fit pays for each same-job pair of its rows (two plans
 * of one job measured more than 3 % apart, pp_gap_bin) whose predicted
 * log ratio has the wrong sign or is much smaller than the measured one:
 * with m = log(t_a / t_b) measured and p the same predicted, and z = p
 * sign(m), the squared hinge max(0, PP_ORDER_MARGIN |m| - z)^2, a pair
 * predicted at least half as far apart as measured, in the right order,
 * costs nothing.  It is in the level's units (squared log ratio), smooth
 * (its derivative is continuous), and the fit adds PP_ORDER_WEIGHT times
 * its mean over the pairs to the level (docs/calibration.md, "The order
 * term", says how the weight was chosen). */
#define PP_ORDER_MARGIN 0.5
#define PP_ORDER_WEIGHT 30.0
/* One pair's penalty, and its derivative in p into *d_pred (if not NULL). */
double pp_order_penalty(double pred_log_ratio, double measured_log_ratio, double *d_pred);

/* The bounded minimizer of every calibration fit: f over u in [0, 1]^n
 * (n <= PP_BOX_MAX_DIM), from u, by NLopt's BOBYQA, Sbplx, then BOBYQA
 * again, derivative-free and deterministic; the best point goes to u and
 * its value is returned. */
#define PP_BOX_MAX_DIM 16
typedef double (*pp_box_objective)(unsigned n, const double *u, double *grad, void *data);
double pp_minimize_unit_box(unsigned n, pp_box_objective f, void *data, double *u);

typedef struct pp_fit {
    char gpu_id[PP_ID_LEN]; /* the rows' eff_id: H200 rows fit H100's parameters */
    const pp_eff_family *family; /* its bounds (the catalog's: valid while the catalog is) */
    int n_rows;
    pp_efficiency eff;
    double rms_log_error_before, rms_log_error_after; /* before = the middle of the bounds (with a prior: at it) */
    int n_at_bound;         /* parameters that ended within 0.1 % of a bound */
    /* with a prior (pp_calibrate_map): */
    bool map;               /* fitted from the prior, not from the middle of the bounds */
    bool moved[PP_EFF_COUNT]; /* the parameters the rows identify, and so the fit moved; the others kept */
    double sensitivity[PP_EFF_COUNT]; /* RMS over the rows of d log(step time) / d u, u the parameter over
                                         its bound width: what a move across the whole bound does */
    double prior_weight;    /* the penalty per (u - u_prior)^2: sigma_log^2 / (rows x PP_PRIOR_SIGMA_U^2) */
    double rms_log_error_physics; /* after the physical parameters moved, before the stack level */
    double level_rows;      /* the stack level the rows alone ask (their mean log error zero), before the prior */
    double level_pull;      /* the share of the way from the prior's level to level_rows the posterior moves */
    double sigma_log;       /* the rows' noise the posterior took: the catalog's error, widened by their scatter */
    double rows_scatter;    /* the sample standard deviation of the rows' log errors at the prior (0: one row) */
    int n_moe_rows;         /* timed Mixture-of-Experts rows, which set the stack level only (n_rows: the
                               dense rows, which move the physical parameters too) */
} pp_fit;

/* Fit the efficiency parameters of every GPU that has timed rows, within
 * its calibration family's bounds in cat; updates the rows' problems in
 * place with the fitted values (rows of a GPU without timed rows, or
 * outside the catalog, keep theirs).  Returns the number of GPUs fitted (at
 * most max_fits). */
int pp_calibrate(const pp_catalog *cat, pp_measurement_set *set, pp_fit *fits, int max_fits);

/* ---- calibrating from a team's own rows: the shipped fit as a prior ---- */

/* Bounded maximum a posteriori (Kennedy and O'Hagan 2001, "Bayesian
 * calibration of computer models", J. R. Statist. Soc. B 63(3): a
 * simulator's parameters get a prior and the measurements update it; with
 * Gaussian errors the posterior mode is least squares plus a quadratic
 * penalty, Bishop 2006, Pattern Recognition and Machine Learning §1.2.5 and
 * §3.3): each parameter starts at the fit the catalog ships for the rows'
 * GPU (efficiency.json, or what the GPU borrows), and moving it costs
 * (u - u_prior)^2 x sigma_log^2 / (rows x PP_PRIOR_SIGMA_U^2), where u is
 * the parameter over its bound width, sigma_log the model's error (the
 * rows' noise: efficiency.json's cross_validated_error) and the prior's
 * standard deviation a quarter of the bound.  Only parameters the rows can
 * identify move: those whose move of one prior standard deviation changes
 * the rows' step times by at least PP_PRIOR_MIN_EFFECT on average (RMS),
 * at most as many as there are rows, chosen forward (each round the one
 * whose posterior fit, with those chosen before, is best); the others
 * keep the shipped value.  A well-predicted row moves nothing much; one row
 * moves one parameter.  Then the stack's level (eff.compute_scale, every
 * kernel's FLOP and HBM time times it: formulate/cost/device.c): the rows'
 * mean log error once those parameters have moved is the team's software
 * against the fitted physics, not a physical parameter to stretch.  It has
 * a prior too: log level ~ N(log prior level, sigma_level^2), sigma_level
 * how far a stack the fit has not seen sits from the fitted physics
 * (efficiency.json's cross_validated_group_bias_rms: the RMS over source
 * groups of their held-out mean log error).  With each row's log error
 * ~ N(., sigma_log^2) the posterior mode solves
 *   mean log error(level) + sigma_log^2 / (n sigma_level^2) x log(level / prior level) = 0,
 * so n rows move it n sigma_level^2 / (n sigma_level^2 + sigma_log^2) of
 * the way to the level they alone ask (partial pooling: Gelman et al. 2013,
 * Bayesian Data Analysis, 3rd ed., §5.4), within the family's bound
 * (0.5-2): one row noisy by sigma_log no longer sets a whole stack's level.
 * The fit from the middle of the bounds (pp_calibrate) keeps the level at
 * 1.
 * The rows' noise is the catalog's error only as far as the rows agree
 * with each other: rows whose log errors scatter widely about their mean
 * (at the prior) are noisier than the project's rows, and should move the
 * physics and the level less.  sigma_log^2 is the conjugate posterior of a
 * normal variance (scaled inverse chi-square; Gelman et al. 2013, §3.3):
 *   (nu0 sl^2 + sum (e_i - mean e)^2) / (nu0 + n - 1),
 * the catalog's sl counting as nu0 = PP_PRIOR_NOISE_DOF rows, kept when
 * the rows scatter less (a few close rows do not make the model more
 * exact than its cross-validated error); one row keeps sl.  Three shots
 * drawn at random from a group whose rows scatter (MLPerf v6.0's GPT-OSS,
 * v5.0's LoRA) no longer move its stack by their odd one out
 * (docs/calibration.md, "Calibrating from your own rows"). */
#define PP_PRIOR_SIGMA_U 0.25
#define PP_PRIOR_MIN_EFFECT 0.01
#define PP_PRIOR_NOISE_DOF 2.0
#define PP_PRIOR_DEFAULT_SIGMA_LOG 0.10 /* when the catalog has no cross-validated error */
#define PP_PRIOR_DEFAULT_SIGMA_LEVEL 0.10 /* when it has no cross-validated group bias */
/* The groups whose held-out mean log error measures sigma_level: dense ones
 * with at least this many timed rows (fewer: their mean is mostly row noise),
 * and at least this many of them (fewer: no spread is estimated, and the
 * catalog's, else the default, stays). */
#define PP_LEVEL_MIN_ROWS 3
#define PP_LEVEL_MIN_GROUPS 5

/* Like pp_calibrate, from the prior: each GPU's parameters as the catalog
 * has them (cat, after any --efficiency), clamped into its family's bounds;
 * sigma_log <= 0 takes cat->model_error (else the default); sigma_level is
 * cat->level_spread (else the default). */
int pp_calibrate_map(const pp_catalog *cat, pp_measurement_set *set, double sigma_log, pp_fit *fits, int max_fits);

/* The calibration override file (data/SCHEMA.md, efficiency.json). */
/* cv_error > 0: also the cross-validated step-time error (a fraction), which
 * the reports take as the cost model's error when they call plans ties;
 * group_bias > 0: the RMS of the groups' held-out mean log errors, the
 * spread of the stack level a calibration from a team's rows starts from. */
char *pp_fits_to_json(const pp_fit *fits, int n_fits, const char *source, double cv_error, double group_bias);

/* ---- cross-validation ---------------------------------------------------- */

typedef struct pp_cv_group {
    char group[64];
    int n_shot_rest;     /* few-shot: the rows scored (the group's timed rows less the shots), 0 if none */
    double mape_shot;    /* their MAPE after the shots, % */
    double mape_shot_cv; /* the same rows' held-out MAPE before the shots, % */
    int n_time;
    double mape_cv;      /* step-time MAPE with parameters fitted on every other group, % */
    double max_ape_cv;
    double bias_cv;      /* mean signed error (predicted / measured - 1), %: > 0 the model is too slow */
    double bias_log_cv;  /* mean log(predicted / measured) */
    double mape_in;      /* the same rows with parameters fitted on all groups, % */
    int n_pairs;         /* same-job pairs whose measured step times differ by > 3 % */
    double ordered_cv;   /* share of them the held-out predictions order as measured */
    double ordered_in;
    /* the same by measured gap (pp_gap_bin): pairs, and how many each prediction orders */
    int bin_pairs[PP_GAP_BINS], bin_ordered_cv[PP_GAP_BINS], bin_ordered_in[PP_GAP_BINS];
    bool moe;            /* its rows are Mixture-of-Experts steps: scored, not fitted, not in the totals */
} pp_cv_group;

typedef struct pp_cv_result {
    int n_groups;
    pp_cv_group groups[PP_MAX_GROUPS];
    int n_rows;          /* timed dense rows */
    double mape_cv;      /* over every timed dense row, each predicted by the fit without its group, % */
    double mape_in;
    double group_mape_cv; /* mean over dense groups of their CV MAPE (each group weighs the same), % */
    double group_bias_rms; /* RMS over dense groups of PP_LEVEL_MIN_ROWS or more timed rows of their
                              held-out mean log error (log predicted / measured): sigma_level; 0 with
                              fewer than PP_LEVEL_MIN_GROUPS such groups */
    int n_moe_rows;      /* timed Mixture-of-Experts rows, scored apart */
    double moe_mape_cv;
    int n_defect_rows;   /* timed rows whose source reports a software defect, scored apart */
    double defect_mape_cv; /* their error with the fit on every other group, % */
    int n_pairs;
    double ordered_cv, ordered_in;
    int bin_pairs[PP_GAP_BINS], bin_ordered_cv[PP_GAP_BINS], bin_ordered_in[PP_GAP_BINS]; /* dense groups */
    int n_fits;          /* the fit on all groups (what `calibrate` writes) */
    pp_fit fits[PP_MAX_GROUPS];
    /* few-shot (pp_cross_validate_shots, shots > 0): per group with more
     * than `shots` timed rows, the fit without it as the prior, then
     * pp_calibrate_map on `shots` of its rows; the rest scored (the dense
     * groups' mean here, the Mixture-of-Experts groups' below) */
    int shots;
    int n_shot_groups;
    double shot_group_mape; /* mean over those groups of the rest's MAPE, % */
    double shot_group_mape_cv; /* the same rows with the held-out fit alone (no shots), % */
    /* the same over Mixture-of-Experts groups, whose shots set their GPUs' stack level only */
    int n_shot_moe_groups;
    double shot_moe_group_mape, shot_moe_group_mape_cv;
    pp_span_score span_cv; /* the dense rows by the nodes their run spans, held out */
    pp_gpu_pairs gpu_pairs_cv; /* the same plan on GPUs of two kinds, held out */
} pp_cv_result;

/* Leave-one-source-group-out cross-validation: for every group with timed
 * rows, fit on all other groups and price that group's rows with the result;
 * a GPU none of the other groups has borrows from its nearest donor that one
 * has (gpus.json efficiency_borrow, the donor fitted on the other groups), as
 * the catalog lends a GPU without a fit of its own; with no such donor it is
 * priced at the middle of its bounds (what the fit gives with no rows).  Also the in-sample score (one fit on
 * everything) beside it.  A "same-job pair" is two timed rows of one group
 * with the same model shape, GPU count and global batch, i.e. two plans for
 * one job.  Leaves the rows with the all-groups fit, like pp_calibrate, and
 * each timed row's held-out prediction in its cv_predicted_s.
 * Deterministic.  Returns PP_OK, or PP_EINTERNAL when memory runs out. */
int pp_cross_validate(const pp_catalog *cat, pp_measurement_set *set, pp_cv_result *cv);

/* pp_cross_validate, and with shots > 0 the few-shot score too: for each
 * dense group with more than `shots` timed rows, `shots` of them (spread
 * evenly over the group's rows in file order: row i x n / shots) are fitted
 * with pp_calibrate_map, the held-out fit of that group as the prior, and
 * the group's other rows are scored. */
int pp_cross_validate_shots(const pp_catalog *cat, pp_measurement_set *set, int shots, pp_cv_result *cv);

/* The accuracy of record: the mean cross-validated step-time error, as a
 * fraction (0.12 = 12 %), over every timed row of the set.  This is the
 * figure a report's tie band should use ("plans within the model's error of
 * the optimum"); for the project set it is stated in docs/calibration.md.
 * 0 if cv has no rows. */
double pp_cv_step_time_error(const pp_cv_result *cv);

#endif
