/*
 * report_gemm.h: the text `parplan calibrate --gemm-sweep` prints: for each
 * CSV, what was read and what skipped (file:line and why); per shape class
 * (what limits its rows at the fit), measured against fitted TFLOP/s and the
 * worst error; then each parameter before and after, with its bounds, and
 * whether the rows informed it.
 */
#ifndef PARPLAN_REPORT_GEMM_H
#define PARPLAN_REPORT_GEMM_H

#include "calibrate_gemm.h"
#include "strbuf.h"

void pp_report_gemm_text(const pp_gemm_sweep *sweeps, int n_sweeps, const pp_gemm_calibration *cal, pp_strbuf *out);

#endif
