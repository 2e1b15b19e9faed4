/*
 * catalog.h: the data catalogs of data/ (gpus.json, models.json,
 * clusters.json, codecs.json, efficiency.json, frameworks.json) read into
 * plain arrays, and
 * the lookups, listings and efficiency layers built on them.
 *
 * It also holds the one table of efficiency parameters (pp_eff_params: every
 * reader, fit and writer of them walks it) and their calibration bounds per
 * GPU family (calibration-bounds.json, each GPU naming its family).
 *
 * The catalogs sit above the readers of model and GPU objects (shapes_json.h)
 * and below the problem and plan loader (problem.h): a catalog entry is read
 * with the same rules as a problem's own object, and a problem resolves its
 * ids here.  Errors name the file and the JSON path, as every loader's do.
 */
#ifndef PARPLAN_CATALOG_H
#define PARPLAN_CATALOG_H

#include <stddef.h>

#include "types.h"

/* A location in a JSON document (defined in json_util.h); declared here so
 * that users of the catalog need not see cJSON. */
typedef struct pp_jpath pp_jpath;

/* The other names people give a GPU or a model, at most PP_MAX_ALIASES. */
#define PP_MAX_ALIASES 8
typedef char pp_aliases[PP_MAX_ALIASES][PP_ID_LEN];

typedef struct pp_catalog_model {
    char id[PP_ID_LEN];
    pp_aliases aliases; /* other names of the same shape ("Llama 3.1 8B") */
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

/* ---- the efficiency parameters: one table ------------------------------- */

/* Every parameter of pp_efficiency, in the order efficiency.json and the
 * reports list them.  The first PP_EFF_COUNT are the ones a fit to measured
 * steps moves (`parplan calibrate`); gemm_misaligned only a GEMM sweep does,
 * and compute_scale only a calibration from the shipped fit (a team's rows:
 * the level of its software stack, solve/calibrate.h). */
typedef enum {
    PP_EFF_GEMM, PP_EFF_ATTENTION, PP_EFF_HBM, PP_EFF_NVLINK, PP_EFF_NETWORK, PP_EFF_KERNEL_US,
    PP_EFF_NVLINK_LATENCY_US, PP_EFF_NETWORK_LATENCY_US, PP_EFF_GEMM_K_OVERHEAD, PP_EFF_CROSS_RAIL,
    PP_EFF_GEMM_MISALIGNED, PP_EFF_COMPUTE_SCALE, PP_EFF_PARAM_COUNT
} pp_eff_id;
#define PP_EFF_COUNT PP_EFF_GEMM_MISALIGNED /* the parameters fitted to step times */

typedef struct pp_eff_param {
    const char *key;     /* in efficiency.json and calibration-bounds.json */
    const char *unit;    /* what its number counts */
    const char *meaning; /* what it scales in the cost model */
    size_t offset;       /* of its double in pp_efficiency */
    bool fraction;       /* read as a fraction in (0, 1]; else a count in [0, 1e6] (compute_scale: in (0, 10]) */
    double def;          /* the built-in value (pp_efficiency_init) */
} pp_eff_param;

extern const pp_eff_param pp_eff_params[PP_EFF_PARAM_COUNT];

/* Parameter i's key ("gemm"; "?" out of range), and its value in e. */
const char *pp_efficiency_key(int i);
double pp_efficiency_value(const pp_efficiency *e, int i);
double *pp_efficiency_field(pp_efficiency *e, int i);

/* ---- calibration bounds (calibration-bounds.json) ------------------------ */

#define PP_BOUND_SOURCE_LEN 1024

/* Where a fit may move one parameter, and why. */
typedef struct pp_eff_bound {
    double lo, hi;
    char source[PP_BOUND_SOURCE_LEN];
} pp_eff_bound;

/* A GPU family's bounds, every parameter resolved (its own, else the file's
 * every_family; a union family's span every other family's). */
typedef struct pp_eff_family {
    char id[PP_ID_LEN];     /* what gpus.json's calibration_family names */
    char name[PP_NAME_LEN]; /* as the reports print it ("H100/H200") */
    pp_eff_bound bound[PP_EFF_PARAM_COUNT];
} pp_eff_family;
/* The other names of one GPU (gpus.json "aliases": "A100-SXM4-80GB",
 * "B200"), "" after the last. */

/* The catalogs of data/, loaded once per run.  Owns its arrays. */
/* A GPU without a fit of its own borrows the fitted parameters of the
 * nearest calibrated GPU (gpus.json efficiency_borrow): the donor's, with
 * gemm and attention times factor (the ratio of their measured matmul
 * efficiencies, each entry citing it) and NVLink times nvlink_factor (the
 * ratio of their measured ring all-reduce bus bandwidths, of the line rate;
 * 1 unless the entry cites one).  The donors come in order of
 * nearness: the first with a fit of its own (an entry in the efficiency
 * file in force: rows of that GPU were fitted) lends, else the first that
 * borrows from no other (pp_catalog_borrow_donor). */
#define PP_MAX_BORROW 4
typedef struct pp_eff_donor {
    char gpu[PP_ID_LEN]; /* the donor's id */
    double factor;       /* times the donor's gemm and attention */
    double nvlink_factor; /* times the donor's nvlink (1 unless gpus.json gives one) */
} pp_eff_donor;
typedef struct pp_eff_borrow {
    int n; /* donors listed; 0 if the GPU borrows nothing */
    pp_eff_donor donor[PP_MAX_BORROW];
} pp_eff_borrow;

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
    double level_spread; /* how far an unseen stack's level sits from the fitted physics: the RMS of the
                            source groups' held-out mean log errors (efficiency.json's
                            "cross_validated_group_bias_rms"), 0 when none gave one (calibrate.h) */
    char (*gpu_efficiency_from)[PP_ID_LEN]; /* parallel to gpus; "" if none */
    pp_eff_borrow *gpu_borrow;              /* parallel to gpus: efficiency_borrow (n 0 if none) */
    char (*gpu_calibration_family)[PP_ID_LEN]; /* parallel to gpus: the id of its family of bounds */
    int n_families;
    pp_eff_family *families;     /* calibration-bounds.json's families */
    pp_eff_family *every_family; /* its every_family: the bounds that hold for any GPU (unset ones 0..0) */
    pp_aliases *gpu_aliases;            /* parallel to gpus */
    pp_framework_caps frameworks[PP_FW_COUNT]; /* frameworks.json, by pp_framework (codec bits index codecs) */
} pp_catalog;

/* Where the catalogs live: $PARPLAN_DATA_DIR if set, else the source tree's
 * data/ (compile-time PARPLAN_SOURCE_DATA_DIR) if it exists, else the install
 * location (compile-time PARPLAN_INSTALL_DATA_DIR). */
const char *pp_default_data_dir(void);

/* Load gpus.json, models.json, clusters.json, codecs.json, efficiency.json,
 * calibration-bounds.json and frameworks.json from data_dir.  On failure the catalog is left empty (safe to free). */
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
/* The model a text names: its id, else the id or name compared as
 * pp_catalog_gpu_named compares GPUs' ("Llama-3-8B", "llama3 8b"); NULL if
 * none. */
const pp_catalog_model *pp_catalog_model_named(const pp_catalog *cat, const char *name);
int pp_catalog_codec_index(const pp_catalog *cat, const char *id); /* -1 if absent */

/* PP_EINPUT at `at`: "expected a GPU id of the catalog ('a', 'b', ...),
 * found 'x'; did you mean 'y'?". */
int pp_catalog_fail_unknown(const pp_catalog *cat, pp_catalog_kind kind, const char *id, const pp_jpath *at,
                            pp_error *err);

/* The calibration family of a catalog GPU (by id), or NULL if id is not one. */
const pp_eff_family *pp_catalog_gpu_family(const pp_catalog *cat, const char *gpu_id);

/* The built-in efficiency parameters, used when data/efficiency.json is
 * absent (and for keys an efficiency entry leaves out): gemm 0.75,
 * attention 0.5, hbm 0.7, nvlink 0.75, network 0.8, kernel_us 5,
 * nvlink_latency_us 5, network_latency_us 10. */
void pp_efficiency_init(pp_efficiency *e);

/* Apply a calibration override (the file `parplan calibrate` writes) to the
 * efficiency parameters of the catalog's GPUs. */
int pp_catalog_apply_efficiency(pp_catalog *cat, const char *path, pp_error *err);
/* The GPU that catalog GPU i borrows from, and its entry (the factors): the
 * first of its donors with a fit of its own (own[d], indexed as cat->gpus),
 * else the first that borrows from no other and is calibrated; -1 (and
 * *how NULL) if i borrows nothing or no donor qualifies. */
int pp_catalog_borrow_donor(const pp_catalog *cat, int i, const bool *own, const pp_eff_donor **how);
/* GPU i's parameters borrowed from the donor's (donor_eff, of catalog GPU
 * d) as its entry `how` says: gemm and attention times how->factor, nvlink
 * times how->nvlink_factor, uncalibrated, naming the donor. */
void pp_catalog_borrowed_eff(const pp_catalog *cat, int d, const pp_efficiency *donor_eff, const pp_eff_donor *how,
                             pp_efficiency *out);

#endif
