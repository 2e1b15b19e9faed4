/*
 * calibrate_gemm.h: fit one GPU's matrix-multiply parameters to a GEMM sweep
 * (gemm_sweep.h), with the cost model's own GEMM formula (pp_gemm_time_s).
 *
 * The parameters are the ceiling eff.gemm (the best a kernel reaches, within
 * its GPU family's physical bounds, data/calibration-bounds.json, and never
 * above 1) and the
 * shape terms: eff.gemm_k_overhead (K / (K + it)), eff.gemm_misaligned (the
 * rate of a shape with K or N off the tensor cores' multiple) and
 * eff.kernel_us (the fixed time of one kernel).  The fit minimizes the mean
 * squared log ratio of modelled to measured time per row, bounded, with the
 * minimizer of the step-time fit (pp_minimize_unit_box).
 *
 * A shape term is fitted only when the rows inform it: when moving it across
 * its bounds changes some row's modelled time by PP_GEMM_INFORMED or more in
 * a way a change of the ceiling cannot mimic (the part of its per-row
 * sensitivity orthogonal to the ceiling's).  A sweep of large aligned shapes
 * says nothing about misalignment or launch cost, and then those keep the
 * value in force (the catalog's, or --efficiency's).  The ceiling is always
 * fitted.
 */
#ifndef PARPLAN_CALIBRATE_GEMM_H
#define PARPLAN_CALIBRATE_GEMM_H

#include "catalog.h"
#include "gemm_sweep.h"

#define PP_GEMM_INFORMED 0.02

typedef enum {
    PP_GEMM_CEILING = 0, /* eff.gemm */
    PP_GEMM_K_OVERHEAD,  /* eff.gemm_k_overhead */
    PP_GEMM_MISALIGNED,  /* eff.gemm_misaligned */
    PP_GEMM_KERNEL_US,   /* eff.kernel_us */
    PP_GEMM_PARAM_COUNT
} pp_gemm_param;

typedef struct pp_gemm_param_fit {
    const char *key;     /* its efficiency.json key */
    double before, after; /* in force before; fitted (or kept) */
    double lo, hi;       /* the bounds of the fit */
    const char *source;  /* of the bounds */
    bool fitted;         /* informed by the rows */
    bool at_bound;       /* ended within 0.1 % of a bound */
} pp_gemm_param_fit;

/* Rows that look alike to the model: what limits them at the fit. */
typedef enum {
    PP_GEMM_CLASS_LARGE = 0, /* aligned, full waves, long K: the ceiling */
    PP_GEMM_CLASS_SHORT_K,   /* K / (K + overhead) below 0.9 */
    PP_GEMM_CLASS_WAVE,      /* a partial last wave costs more than 10 % */
    PP_GEMM_CLASS_MISALIGNED,
    PP_GEMM_CLASS_MEMORY,    /* the HBM side of the roofline */
    PP_GEMM_CLASS_LAUNCH,    /* the fixed time is a quarter or more */
    PP_GEMM_CLASS_COUNT
} pp_gemm_class;

const char *pp_gemm_class_name(pp_gemm_class c);

typedef struct pp_gemm_class_fit {
    int n_rows;
    double flops;                /* of its rows, summed */
    double measured_s, fitted_s; /* summed: the class's TFLOP/s is flops / time */
    double worst_error_pct;      /* largest |fitted / measured - 1| of a row, % */
    int worst_line;              /* that row's line */
    const char *worst_file;
} pp_gemm_class_fit;

typedef struct pp_gemm_calibration {
    pp_gpu gpu;          /* in: the catalog GPU, efficiency as loaded; out: its eff with the fit */
    int n_rows;          /* rows fitted */
    int n_no_peak;       /* rows of a dtype the GPU has no peak for: not used */
    pp_gemm_param_fit param[PP_GEMM_PARAM_COUNT];
    double rms_log_error_before, rms_log_error_after;
    pp_gemm_class_fit cls[PP_GEMM_CLASS_COUNT];
    double worst_error_pct;
    int worst_line;
    const char *worst_file;
} pp_gemm_calibration;

/* The shape class of one row at the GPU's parameters. */
pp_gemm_class pp_gemm_row_class(const pp_gpu *gpu, const pp_gemm_row *r);

/* Fit cal->gpu's GEMM parameters to every row of the sweeps whose dtype the
 * GPU has a peak for, within the bounds of its calibration family in cat
 * (the sources in cal->param point into cat); returns the rows fitted (0:
 * nothing to fit, or a GPU outside the catalog; cal->gpu unchanged).
 * Deterministic. */
int pp_calibrate_gemm(const pp_catalog *cat, const pp_gemm_sweep *sweeps, int n_sweeps, pp_gemm_calibration *cal);

#endif
