/*
 * calibrate_links.h: fit the link parameters of the cost model (NVLink and
 * network bus-bandwidth efficiency, and the per-step latency alpha of each)
 * to nccl-tests measurements (nccl_log.h).
 *
 * The fit uses the cost model's own collective times (pp_collective_time_s
 * and pp_p2p_time_s of formulate/cost/collectives.c), so what it fits is
 * exactly what the planner prices: a run on one host measures NVLink (a ring
 * of n ranks), a run across hosts the network (NCCL's k channels a GPU,
 * pipelined over NVLink and the network, the faster of ring and tree for an
 * all-reduce; all-gather and reduce-scatter as rings; send/receive one
 * hop).  Every such time is
 * t = A / efficiency + B * alpha + C in the two parameters of its link class
 * (C holds the NVLink part of a network run), so the fit is a weighted
 * linear least squares in (1/efficiency, alpha) on relative errors: the
 * sizes whose time is mostly the bandwidth term fix the bandwidth, those
 * mostly latency the latency, the sizes between neither.  NVLink is fitted first,
 * so the network fit sees the fitted NVLink part; when no one-node run
 * measured NVLink and its kept latency alone exceeds what a multi-node run's
 * small sizes take, the two classes' latencies are fitted as one
 * (latency_from_network).  All-to-all runs are read and reported but not
 * fitted.
 */
#ifndef PARPLAN_CALIBRATE_LINKS_H
#define PARPLAN_CALIBRATE_LINKS_H

#include "nccl_log.h"

typedef enum { PP_LINK_NVLINK = 0, PP_LINK_NETWORK, PP_LINK_COUNT } pp_link_class;

typedef struct pp_link_fit {
    bool fitted;
    int n_runs, n_rows;  /* runs and timed halves (out-of-place, in-place) used */
    double line_GBps;    /* the line rate the efficiency is a fraction of */
    double efficiency;   /* fitted, else the catalog's */
    double latency_us;   /* fitted, else the catalog's */
    bool at_line_rate;   /* the rows asked for more than the line rate: held at 1 */
    bool latency_floor;  /* the rows asked for a negative latency: held at 0 */
    int bw_rows;         /* of n_rows, those the bandwidth term governs, which fixed the efficiency */
    int latency_rows;    /* and those the latency governs, which fixed the latency (0: all rows did) */
    /* NVLink not measured by a one-node run, but its kept latency more than
     * the multi-node runs' small sizes take (their network latency would be
     * negative): its latency fitted with the network's, one per-step latency
     * for both classes (NCCL's tuning model gives them the same order,
     * src/graph/tuning.cc hwLat); kept_latency_us the value it replaced */
    bool latency_from_network;
    double kept_latency_us;
    /* runs of the class were read, but at none of their sizes is its
     * bandwidth what the model's time depends on (two nodes whose tree is
     * bound by its chain over NVLink): nothing to fit it from */
    bool unidentified;
} pp_link_fit;

typedef struct pp_link_calibration {
    pp_cluster cluster; /* line rates and gpus_per_node in; gpu.eff holds the fit out */
    pp_link_fit link[PP_LINK_COUNT];
    /* The GPU family's calibration bounds of each class's efficiency and
     * latency (calibration-bounds.json), in: the report says whether the
     * fit landed inside them (the fit itself is not held to them: a link
     * measured directly is what it is).  hi 0 = no bounds given. */
    double lo[PP_LINK_COUNT][2], hi[PP_LINK_COUNT][2];
} pp_link_calibration;

/* Fill cal's bounds from the catalog family of cal->cluster.gpu (none if the
 * GPU names no family). */
struct pp_catalog;
void pp_link_calibration_bounds(const struct pp_catalog *cat, pp_link_calibration *cal);

const char *pp_link_class_name(pp_link_class c); /* "NVLink", "network" */

/* The NVLink domains a run spans (returned) and the ranks in each
 * (*ranks_per_domain): its hosts, except where the cluster's NVLink domain
 * holds several hosts (gpus_per_node above gpus_per_host: GB200 and GB300
 * NVL72, 4-GPU compute trays in a 72-GPU domain), whose hosts fill domains
 * in order, as a job placed within its racks runs. */
long pp_nccl_run_domains(const pp_cluster *c, const pp_nccl_run *r, long *ranks_per_domain);
/* The link class a run measured (network when it spans NVLink domains). */
pp_link_class pp_nccl_run_link(const pp_cluster *c, const pp_nccl_run *r);
/* Whether the fit uses the run: usable, and a collective the model prices. */
bool pp_nccl_run_fitted(const pp_nccl_run *r);
/* The cost model's time of one size of the run, in microseconds. */
double pp_nccl_model_time_us(const pp_cluster *c, const pp_nccl_run *r, double bytes);

/* Fit cal->cluster's link parameters to every usable run of the logs;
 * returns the number of link classes fitted (0: nothing valid). */
int pp_calibrate_links(const pp_nccl_log *logs, int n_logs, pp_link_calibration *cal);

#endif
