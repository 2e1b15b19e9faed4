/*
 * problem.h: reading the data catalogs, PROBLEM.json and PLAN.json into the
 * plain structs of types.h, with strict validation.
 *
 * Nothing downstream ever sees JSON: the loader checks every field's type and
 * range, rejects unknown keys (suggesting the nearest valid one), checks the
 * model's internal consistency, resolves catalog ids and fills every default,
 * so the cost model and the MIP builder can trust what they are given.  Every
 * error names the JSON path ("FILE: $.model.heads"), what was expected and
 * what was found, and returns PP_EINPUT.
 */
#ifndef PARPLAN_PROBLEM_H
#define PARPLAN_PROBLEM_H

#include "types.h"

typedef struct pp_catalog_model {
    char id[PP_ID_LEN];
    pp_model model;
    double params_b; /* published parameter count, billions (for display) */
} pp_catalog_model;

/* A named cluster of the catalog (e.g. "selene"): a GPU id and its links. */
typedef struct pp_catalog_cluster {
    char id[PP_ID_LEN];
    char gpu_id[PP_ID_LEN];
    int gpus_per_node;
    long nodes;
    double intra_node_GBps;
    double inter_node_Gbps;
} pp_catalog_cluster;

/* The catalogs of data/, loaded once per run.  Owns its arrays. */
typedef struct pp_catalog {
    char data_dir[1024];
    int n_gpus;
    pp_gpu *gpus;
    int n_models;
    pp_catalog_model *models;
    int n_clusters;
    pp_catalog_cluster *clusters;
    int n_codecs;
    pp_codec codecs[PP_MAX_CODECS]; /* codecs[0] is "none" */
    /* Added by the input layer: */
    double compress_min_bytes;            /* codecs.json's threshold */
    pp_efficiency efficiency_default;     /* efficiency.json's "default" */
    char (*gpu_efficiency_from)[PP_ID_LEN]; /* parallel to gpus; "" if none */
} pp_catalog;

/* Where the catalogs live: $PARPLAN_DATA_DIR if set, else the source tree's
 * data/ (compile-time PARPLAN_SOURCE_DATA_DIR) if it exists, else the install
 * location (compile-time PARPLAN_INSTALL_DATA_DIR). */
const char *pp_default_data_dir(void);

/* Load gpus.json, models.json, clusters.json, codecs.json and efficiency.json
 * from data_dir.  On failure the catalog is left empty (safe to free). */
int pp_catalog_load(const char *data_dir, pp_catalog *cat, pp_error *err);
void pp_catalog_free(pp_catalog *cat);

/* The ids of one catalog, by index (for listings and suggestions). */
typedef enum { PP_CATALOG_GPUS, PP_CATALOG_MODELS, PP_CATALOG_CLUSTERS, PP_CATALOG_CODECS } pp_catalog_kind;
int pp_catalog_count(const pp_catalog *cat, pp_catalog_kind kind);
const char *pp_catalog_id(const pp_catalog *cat, pp_catalog_kind kind, int i);

const pp_gpu *pp_catalog_gpu(const pp_catalog *cat, const char *id);
const pp_catalog_cluster *pp_catalog_cluster_find(const pp_catalog *cat, const char *id);
const pp_catalog_model *pp_catalog_model_find(const pp_catalog *cat, const char *id);
int pp_catalog_codec_index(const pp_catalog *cat, const char *id); /* -1 if absent */

/* The built-in efficiency parameters, used when data/efficiency.json is
 * absent (and for keys an efficiency entry leaves out): gemm 0.75,
 * attention 0.5, hbm 0.7, nvlink 0.75, network 0.8, kernel_us 5,
 * nvlink_latency_us 5, network_latency_us 10. */
void pp_efficiency_init(pp_efficiency *e);

/* Apply a calibration override (the file `parplan calibrate` writes) to the
 * efficiency parameters of the catalog's GPUs. */
int pp_catalog_apply_efficiency(pp_catalog *cat, const char *path, pp_error *err);

/* Every default of a problem, set in one place: memory_headroom 0.10,
 * error_tolerance dp 0.02 / tp 0 / pp 0 / params 0 (lossy codecs only on DP
 * gradients; lossless ones have rel_error 0 and are always allowed), DP
 * gradients on the wire in the training's 16-bit type, compress_min_bytes
 * 1 MiB, flash_attention and dp_overlap on, precision bf16, objective
 * min_step_time, TP kept inside a node, codecs = just "none".  The parser
 * then takes codecs and compress_min_bytes from the catalog. */
void pp_problem_init(pp_problem *p);

/* The plan defaults of the contract (see pp_plan_parse); tp, pp and dp 1. */
void pp_plan_init(pp_plan *plan);

/* Total GPUs of the problem's cluster (0 without a cluster). */
long pp_problem_gpus(const pp_problem *p);

/* Parse a problem.  origin names the source in messages (a file name).
 * Relative paths inside (hf_config) are resolved against base_dir (may be
 * NULL for the current directory). */
int pp_problem_parse(const char *json_text, const char *origin, const char *base_dir,
                     const pp_catalog *cat, pp_problem *out, pp_error *err);
int pp_problem_load(const char *path, const pp_catalog *cat, pp_problem *out, pp_error *err);

/* Parse a plan for the given problem, filling the defaults of the contract
 * (cp 1, dp = GPUs/(tp pp cp), micro_batch 1, virtual_stages 1, zero 0,
 * recompute none, sequence_parallel false, tp_mode 1d, compression none).
 * Only types, ranges and names are checked here; whether the plan fits the
 * problem is pp_plan_check's job (rules.h). */
int pp_plan_parse(const char *json_text, const char *origin, const pp_problem *prob,
                  pp_plan *out, pp_error *err);
int pp_plan_load(const char *path, const pp_problem *prob, pp_plan *out, pp_error *err);

/* Read a whole file into a NUL-terminated heap buffer (caller frees).
 * Refuses files over 64 MiB.  "-" reads standard input. */
int pp_read_file(const char *path, char **out, size_t *len, pp_error *err);

/* Names of enumerations, for parsing and printing. */
const char *pp_precision_name(pp_precision p);
const char *pp_recompute_name(pp_recompute r);
const char *pp_tp_mode_name(pp_tp_mode m);
const char *pp_dim_name(pp_dim d);
const char *pp_objective_name(pp_objective o);

#endif
