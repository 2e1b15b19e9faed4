/*
 * catalog.h: the data catalogs of data/ (gpus.json, models.json,
 * clusters.json, codecs.json, efficiency.json) read into plain arrays, and
 * the lookups, listings and efficiency layers built on them.
 *
 * The catalogs sit above the readers of model and GPU objects (shapes_json.h)
 * and below the problem and plan loader (problem.h): a catalog entry is read
 * with the same rules as a problem's own object, and a problem resolves its
 * ids here.  Errors name the file and the JSON path, as every loader's do.
 */
#ifndef PARPLAN_CATALOG_H
#define PARPLAN_CATALOG_H

#include "types.h"

/* A location in a JSON document (defined in json_util.h); declared here so
 * that users of the catalog need not see cJSON. */
typedef struct pp_jpath pp_jpath;

typedef struct pp_catalog_model {
    char id[PP_ID_LEN];
    pp_model model;
    double params_b; /* published parameter count, billions (for display) */
    double active_params_b; /* MoE: published parameters per token, billions (0 if none) */
} pp_catalog_model;

/* A named cluster of the catalog (e.g. "selene"): its GPU, node count and
 * links, the defaults from the GPU's flagship system (pp_cluster_from_gpu).
 * A problem naming it takes the GPU as the catalog holds it then (an
 * efficiency file may have changed its parameters since). */
typedef struct pp_catalog_cluster {
    char id[PP_ID_LEN];
    pp_cluster cluster;
} pp_catalog_cluster;

/* The other names of one GPU (gpus.json "aliases": "A100-SXM4-80GB",
 * "B200"), "" after the last. */
#define PP_MAX_GPU_ALIASES 8
typedef char pp_gpu_aliases[PP_MAX_GPU_ALIASES][PP_ID_LEN];

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
    double codec_chunk_bytes;             /* codecs.json's pipeline chunk */
    pp_efficiency efficiency_default;     /* efficiency.json's "default" */
    double model_error; /* the cost model's cross-validated step-time error (efficiency.json's
                           "cross_validated_error"), 0 when no calibration gave one */
    char (*gpu_efficiency_from)[PP_ID_LEN]; /* parallel to gpus; "" if none */
    pp_gpu_aliases *gpu_aliases;            /* parallel to gpus */
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
/* The GPU a name given by people means (a measurement row's cluster.gpu):
 * the one whose id it is, else the one whose id, name or one of whose
 * aliases it is without regard to case ("A100-SXM4-80GB", "NVIDIA H800",
 * "b200"); NULL if none.  The catalog loader makes sure no name means two
 * GPUs. */
const pp_gpu *pp_catalog_gpu_named(const pp_catalog *cat, const char *name);

/* A cluster of gpu's flagship system: the GPU itself, gpus_per_node, the
 * NVLink and network rates (intra_node_GBps = nvlink_GBps, inter_node_Gbps =
 * network_Gbps) and the NIC layout (gpus_per_nic_switch).  Every default a
 * cluster takes from its GPU is filled here, for the catalog's clusters, a
 * problem's cluster, a capacity candidate and a measurement row alike; the
 * node count, the fabric and the collectives library are left as they are. */
void pp_cluster_from_gpu(const pp_gpu *gpu, pp_cluster *c);
const pp_catalog_cluster *pp_catalog_cluster_find(const pp_catalog *cat, const char *id);
const pp_catalog_model *pp_catalog_model_find(const pp_catalog *cat, const char *id);
int pp_catalog_codec_index(const pp_catalog *cat, const char *id); /* -1 if absent */

/* PP_EINPUT at `at`: "expected a GPU id of the catalog ('a', 'b', ...),
 * found 'x'; did you mean 'y'?". */
int pp_catalog_fail_unknown(const pp_catalog *cat, pp_catalog_kind kind, const char *id, const pp_jpath *at,
                            pp_error *err);

/* The built-in efficiency parameters, used when data/efficiency.json is
 * absent (and for keys an efficiency entry leaves out): gemm 0.75,
 * attention 0.5, hbm 0.7, nvlink 0.75, network 0.8, kernel_us 5,
 * nvlink_latency_us 5, network_latency_us 10. */
void pp_efficiency_init(pp_efficiency *e);

/* Apply a calibration override (the file `parplan calibrate` writes) to the
 * efficiency parameters of the catalog's GPUs. */
int pp_catalog_apply_efficiency(pp_catalog *cat, const char *path, pp_error *err);

#endif
