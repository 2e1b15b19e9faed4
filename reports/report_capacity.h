/*
 * report_capacity.h: the Markdown report and the result JSON of
 * `parplan capacity`.
 *
 * The report answers, top-down: which cluster and plan (GPU kind, nodes,
 * time to train, GPU-hours, cost), which limits decide the answer (deadline,
 * budget, GPU cap, memory), which clusters have no plan at all and why, the
 * Pareto frontier of each GPU kind (best time to train against GPUs, with
 * cost) as a table and a Mermaid chart, the cost/time trade-off across kinds,
 * why the answer is the optimum, and finally the plan report of the chosen
 * cluster (the same sections as `parplan plan`).  Like the plan report it is
 * a pure function of its inputs: no timings, so runs can be diffed.
 *
 * The JSON is the `plan` result of the chosen cluster (result_json.h) plus
 * the capacity keys of docs/interface.md: cluster, time_to_train_days,
 * gpu_hours, cost_usd and frontier (every cluster with a plan), and limits
 * and sweep.
 */
#ifndef PARPLAN_REPORT_CAPACITY_H
#define PARPLAN_REPORT_CAPACITY_H

#include <cjson/cJSON.h>

#include "capacity.h"
#include "strbuf.h"
#include "types.h"

/* Most points a chart draws; a longer frontier is thinned evenly (the table
 * keeps every point). */
#define PP_CAPACITY_CHART_POINTS 40

/* The report.  0, or -1 when memory ran out. */
int pp_report_capacity_md(const pp_problem *prob, const pp_capacity_result *res, pp_strbuf *out);

/* The result JSON; NULL when memory runs out. */
cJSON *pp_json_capacity_result(const pp_problem *prob, const pp_capacity_result *res);

#endif
