/*
 * report_links.h: the text `parplan calibrate --nccl-tests` prints: for each
 * run of each log, what it measured (collective, ranks, hosts, link class),
 * what was skipped and why, measured against fitted time at every size and
 * the worst error; then the fitted parameters of each link class.
 */
#ifndef PARPLAN_REPORT_LINKS_H
#define PARPLAN_REPORT_LINKS_H

#include "calibrate_links.h"
#include "strbuf.h"

void pp_report_links_text(const pp_nccl_log *logs, int n_logs, const pp_link_calibration *cal, pp_strbuf *out);

/* Worst relative error (fraction) of the model over a run's sizes, with the
 * size it occurs at; 0 for a run the fit did not use. */
double pp_nccl_run_worst_error(const pp_cluster *c, const pp_nccl_run *r, double *at_bytes);

#endif
