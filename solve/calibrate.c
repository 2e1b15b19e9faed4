/*
 * calibrate.c: least-squares fit of the efficiency parameters and the
 * accuracy score (see calibrate.h).
 */
#include "calibrate.h"

#include "catalog.h"
#include "costmodel.h"

#include <nlopt.h>

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- scoring ----------------------------------------------------------- */

static pp_group_score *group_slot(pp_score *s, const char *name)
{
    for (int i = 0; i < s->n_groups; i++)
        if (strcmp(s->groups[i].group, name) == 0)
            return &s->groups[i];
    if (s->n_groups == PP_MAX_GROUPS)
        return NULL;
    pp_group_score *g = &s->groups[s->n_groups++];
    memset(g, 0, sizeof *g);
    snprintf(g->group, sizeof g->group, "%s", name);
    return g;
}

double pp_row_time_error_pct(const pp_measurement *r, double *predicted_s)
{
    *predicted_s = pp_step_time_s(&r->prob, &r->plan);
    return (*predicted_s / r->iteration_s - 1.0) * 100.0;
}

static int count_pairs(const pp_measurement_set *set, const double *pred, const char *g, int *ordered);

static double share(int k, int n)
{
    return n ? (double)k / n : 0.0;
}

void pp_score_measurements(const pp_measurement_set *set, pp_score *score)
{
    memset(score, 0, sizeof *score);
    double *pred = calloc(set->n > 0 ? (size_t)set->n : 1, sizeof *pred); /* NULL: no pairs scored */
    for (int i = 0; i < set->n; i++) {
        const pp_measurement *r = &set->rows[i];
        pp_group_score *g = group_slot(score, r->group);
        if (!g)
            continue;
        if (r->has_time) {
            double predicted;
            double ape = fabs(pp_row_time_error_pct(r, &predicted));
            if (pred)
                pred[i] = predicted;
            if (r->defect) { /* apart, outside its group's figures */
                score->mape_defect += ape;
                score->n_defect++;
            } else {
                g->mape_time += ape;
                g->max_ape_time = fmax(g->max_ape_time, ape);
                g->n_time++;
            }
        }
        if (r->has_memory) {
            pp_memory mem;
            pp_memory_eval(&r->prob, &r->plan, &mem);
            double states = mem.weights_gib + mem.gradients_gib + mem.optimizer_gib;
            g->mape_memory += fabs(states / r->mem_states_gib - 1.0) * 50.0 +
                              fabs(mem.activations_gib / r->mem_activations_gib - 1.0) * 50.0;
            g->n_memory++;
        }
        if (r->has_time || r->has_oom) {
            pp_memory mem;
            pp_memory_eval(&r->prob, &r->plan, &mem);
            bool fits = mem.total_gib <= mem.usable_gib;
            g->n_ran += r->has_time;
            g->ran_fit += r->has_time && fits;
            g->n_oom += r->has_oom;
            g->oom_over += r->has_oom && !fits;
        }
        if (r->has_peak) {
            pp_memory mem;
            pp_memory_eval(&r->prob, &r->plan, &mem);
            double e = (mem.total_gib / r->peak_gib - 1.0) * 100.0;
            g->mape_peak += fabs(e);
            g->signed_peak += e;
            g->n_peak++;
        }
    }
    if (score->n_defect)
        score->mape_defect /= score->n_defect;
    for (int i = 0; i < score->n_groups; i++) {
        pp_group_score *g = &score->groups[i];
        if (g->n_time)
            g->mape_time /= g->n_time;
        if (g->n_memory)
            g->mape_memory /= g->n_memory;
        if (g->n_peak) {
            g->mape_peak /= g->n_peak;
            g->signed_peak /= g->n_peak;
        }
        int ordered = 0;
        if (pred)
            g->n_pairs = count_pairs(set, pred, g->group, &ordered);
        g->ordered = 100.0 * share(ordered, g->n_pairs);
    }
    free(pred);
}

/* ---- physical bounds ----------------------------------------------------- */

/* THE table of bounds: one line per GPU family and parameter, each with where
 * it comes from (docs/calibration.md prints it).  Fractions are of the
 * datasheet figure the cost model divides by (dense tensor-core peak of the
 * training precision, HBM bandwidth, NVLink per GPU one direction, NIC per
 * GPU one direction).  The fit can only move inside these boxes. */
typedef struct eff_bound {
    const char *family; /* matched as a prefix of the catalog GPU id */
    int param;
    double lo, hi;
    const char *source;
} eff_bound;

#define SRC_A100_GEMM                                                                                            \
    "cuBLAS bf16/fp16 GEMM sweeps on A100: the largest well-shaped GEMMs plateau at ~250-265 of 312 TFLOP/s "    \
    "(0.80-0.85), transformer-sized ones with tile/wave quantization fall to ~0.6 (Anthony et al. 2024, The Case " \
    "for Co-Designing Model Architectures with Hardware, arXiv 2401.14489; NVIDIA Matrix Multiplication "       \
    "Background User's Guide, docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication)"
#define SRC_H100_GEMM                                                                                            \
    "cuBLAS bf16 GEMM on H100 SXM reaches ~0.7-0.8 of the 989 TFLOP/s dense peak on large shapes, ~0.55 on "      \
    "transformer-sized ones (Anthony et al. 2024, arXiv 2401.14489; NVIDIA Matrix Multiplication Background "    \
    "User's Guide); FP8 rows share the parameter, against the 1979 TFLOP/s FP8 peak"
#define SRC_A100_ATTN                                                                                            \
    "FlashAttention-2 forward+backward reaches 50-73 % of the A100 peak (Dao 2023, arXiv 2307.08691)"
#define SRC_H100_ATTN                                                                                            \
    "FlashAttention-2 reaches 35 % of the H100 peak, FlashAttention-3 bf16 up to 740 TFLOP/s = 75 % (Shah et al. " \
    "2024, arXiv 2407.08608)"
#define SRC_V100_GEMM                                                                                            \
    "V100 fp16 tensor-core GEMMs: DeepSpeed's BERT-Large step on one V100 sustains 64-66 TFLOP/s end to end, 52 % " \
    "of the 125 TFLOP/s peak (deepspeed.ai 2020-05-19 bert-record and 2020-05-28 fastest-bert-training posts), "  \
    "so its GEMMs run at >= ~0.5; cuBLAS HGEMM with tensor cores is benchmarked in Martineau, Atkinson and "      \
    "McIntosh-Smith 2018, Benchmarking the NVIDIA V100 GPU and Tensor Cores (Euro-Par workshops); upper bound "    \
    "0.85 as A100's large-GEMM plateau (no V100-specific plateau figure verified)"
#define SRC_V100_ATTN                                                                                            \
    "no FlashAttention on Volta (FlashAttention-1/2 need Turing/Ampere or newer, Dao-AILab/flash-attention "      \
    "README): attention runs as batched GEMMs plus a memory-bound masked softmax, below the GEMM fraction; "       \
    "0.25-0.60 is a judgment, not a microbenchmark"
#define SRC_HBM                                                                                                  \
    "stream-copy benchmarks (BabelStream/STREAM-style device copy and triad) sustain 80-93 % of the datasheet "   \
    "HBM bandwidth (e.g. ~3.0-3.1 of 3.35 TB/s on H100 SXM)"
#define SRC_NVLINK                                                                                               \
    "nccl-tests all_reduce busbw within one DGX/HGX node: ~230-250 GB/s of 300 on A100, ~360-450 GB/s of 450 on " \
    "H100 (NVIDIA/nccl-tests doc/PERFORMANCE.md defines busbw); 0.75-0.95 of line rate"
#define SRC_NET                                                                                                  \
    "nccl-tests inter-node busbw on HDR (A100) and NDR (H100) InfiniBand, one NIC per GPU: 0.75-0.95 of line "   \
    "rate with GPUDirect RDMA (NVIDIA/nccl-tests doc/PERFORMANCE.md; NCCL reaches ~0.8-0.9 of InfiniBand)"
#define SRC_V100_NET                                                                                             \
    "nccl-tests all_reduce on EDR InfiniBand (V100 era): 12.2 GB/s busbw over one 100 Gb/s card, 'as good as you " \
    "can get', and 48 GB/s on DGX-1 V100 nodes with 4 EDR adapters (NCCL maintainer, NVIDIA/nccl-tests#29, "      \
    "2019-12-06); ~12 GB/s per NIC with rings, 47 GB/s on DGX-1 (NVIDIA/nccl#307, 2020-03-20): 0.94-0.98 of the " \
    "12.5 GB/s line rate; lower bound 0.75 as the other families (tapered fat trees such as Sierra's 2:1)"
#define SRC_KERNEL                                                                                               \
    "CUDA kernel launch plus framework dispatch: a few microseconds per kernel (NVIDIA CUDA Graph Best Practice " \
    "for PyTorch, docs.nvidia.com/dl-cuda-graph; Modal GPU Glossary, CUDA Graph); 2-8 us"
#define SRC_NET_LAT                                                                                              \
    "NCCL's own tuning model prices a ring step across the network, Simple protocol (large messages), at 9.6 us " \
    "(NCCL 2.8, src/graph/tuning.cc hwLat NET/Ring/Simple) and at 14 us plus the topology's inter-node latency, " \
    "counted twice for Simple's flush (NCCL 2.18 on); up to ~20 us with software overhead and multi-hop fat trees"
#define SRC_LAT                                                                                                  \
    "NCCL small-message latency per ring/tree step: ~2 us over NVLink/NVSwitch and same-switch InfiniBand, up to " \
    "~20 us with software overhead and multi-hop fat trees (nccl-tests time column at 8 B)"
#define SRC_CROSS_RAIL                                                                                           \
    "rings that cross NIC rails (pp_group_crosses_rails): at most the same-rail rate (1, a non-blocking fat "    \
    "tree routing every cross-rail hop on its own spine path); at least a quarter: NCCL's ring search on a "     \
    "DGX-class node can settle for half the rings a group's NICs allow (NVIDIA/nccl#439, NCCL maintainer "      \
    "2020-12-14: 1 ring instead of 2, 24 instead of 48 GB/s), and two rings sharing one spine uplink halve "     \
    "that again (judgment); identified only by rows of pre-PXN NCCL (2021 frameworks) on rail-optimized DGX A100"

/* The K overhead where a maximum-achievable-matmul scan bounds it: Stas
 * Bekman's MAMF finder (ml-engineering, compute/accelerator/README.md,
 * "Maximum Achievable Matmul FLOPS comparison table"; the scan ranges in
 * compute/accelerator/benchmarks/README.md) times bf16 GEMMs over a grid
 * of M, N and K and reports the fastest: on A100 SXM 267.9 of 312 TFLOP/s
 * at 6912x16384x2048, on H100 SXM 792.1 of 989 at 6144x17920x2816.  Both
 * shapes lie beyond 16384 in some dimension, so the scans ran K at least
 * to 16384 (A100; the finder's exhaustive search) and to 20480 (H100, its
 * suggested range).  With a K overhead of K0 elements the largest K would
 * run (1 + K0/K*) / (1 + K0/K_max) times faster than the best K*; that
 * stays within 5 % (the scan's noise) only for K0 <= 118 (A100) and
 * K0 <= 165 (H100). */
#define SRC_A100_K_OVERHEAD                                                                                      \
    "MAMF scan (Bekman, ml-engineering, Maximum Achievable Matmul FLOPS table): A100 SXM's best bf16 GEMM is "   \
    "6912x16384x2048, K = 2048 with K scanned to at least 16384, so a larger K gains under 5 %: K0 <= 118 "      \
    "elements; lower bound 8 elements, as every family's"
#define SRC_H100_K_OVERHEAD                                                                                      \
    "MAMF scan (Bekman, ml-engineering, Maximum Achievable Matmul FLOPS table): H100 SXM's best bf16 GEMM is "   \
    "6144x17920x2816, K = 2816 with K scanned to 20480, so a larger K gains under 5 %: K0 <= 165 elements; "     \
    "lower bound 8 elements, as every family's"

static const eff_bound BOUNDS[] = {
    /* A100 SXM4 (40 and 80 GB): Ampere, FlashAttention-2, NVLink 3, HDR InfiniBand */
    {"a100", PP_EFF_GEMM, 0.60, 0.85, SRC_A100_GEMM},
    {"a100", PP_EFF_ATTENTION, 0.50, 0.73, SRC_A100_ATTN},
    {"a100", PP_EFF_HBM, 0.80, 0.93, SRC_HBM},
    {"a100", PP_EFF_NVLINK, 0.75, 0.95, SRC_NVLINK},
    {"a100", PP_EFF_NETWORK, 0.75, 0.95, SRC_NET},
    {"a100", PP_EFF_KERNEL_US, 2.0, 8.0, SRC_KERNEL},
    {"a100", PP_EFF_NVLINK_LATENCY_US, 2.0, 20.0, SRC_LAT},
    {"a100", PP_EFF_NETWORK_LATENCY_US, 9.6, 20.0, SRC_NET_LAT},
    {"a100", PP_EFF_GEMM_K_OVERHEAD, PP_GEMM_K_OVERHEAD_LO, 118.0, SRC_A100_K_OVERHEAD},
    {"a100", PP_EFF_CROSS_RAIL, 0.25, 1.0, SRC_CROSS_RAIL},
    /* V100 SXM2/SXM3 (16 and 32 GB): Volta, fp16 tensor cores, no FlashAttention, NVLink 2, EDR InfiniBand */
    {"v100", PP_EFF_GEMM, 0.50, 0.85, SRC_V100_GEMM},
    {"v100", PP_EFF_ATTENTION, 0.25, 0.60, SRC_V100_ATTN},
    {"v100", PP_EFF_HBM, 0.80, 0.93, SRC_HBM},
    {"v100", PP_EFF_NVLINK, 0.75, 0.95, SRC_NVLINK},
    {"v100", PP_EFF_NETWORK, 0.75, 0.98, SRC_V100_NET},
    {"v100", PP_EFF_KERNEL_US, 2.0, 8.0, SRC_KERNEL},
    {"v100", PP_EFF_NVLINK_LATENCY_US, 2.0, 20.0, SRC_LAT},
    {"v100", PP_EFF_NETWORK_LATENCY_US, 9.6, 20.0, SRC_NET_LAT},
    {"v100", PP_EFF_GEMM_K_OVERHEAD, PP_GEMM_K_OVERHEAD_LO, PP_GEMM_K_OVERHEAD_HI, PP_SRC_GEMM_K_OVERHEAD},
    {"v100", PP_EFF_CROSS_RAIL, 0.25, 1.0, SRC_CROSS_RAIL},
    /* H100 SXM5 and H200 (the same GH100 die): Hopper, FlashAttention-2/3, NVLink 4, NDR InfiniBand */
    {"h1", PP_EFF_GEMM, 0.55, 0.80, SRC_H100_GEMM},
    {"h1", PP_EFF_ATTENTION, 0.35, 0.75, SRC_H100_ATTN},
    {"h1", PP_EFF_HBM, 0.80, 0.93, SRC_HBM},
    {"h1", PP_EFF_NVLINK, 0.75, 0.95, SRC_NVLINK},
    {"h1", PP_EFF_NETWORK, 0.75, 0.95, SRC_NET},
    {"h1", PP_EFF_KERNEL_US, 2.0, 8.0, SRC_KERNEL},
    {"h1", PP_EFF_NVLINK_LATENCY_US, 2.0, 20.0, SRC_LAT},
    {"h1", PP_EFF_NETWORK_LATENCY_US, 9.6, 20.0, SRC_NET_LAT},
    {"h1", PP_EFF_GEMM_K_OVERHEAD, PP_GEMM_K_OVERHEAD_LO, 165.0, SRC_H100_K_OVERHEAD},
    {"h1", PP_EFF_CROSS_RAIL, 0.25, 1.0, SRC_CROSS_RAIL},
    {"h2", PP_EFF_GEMM, 0.55, 0.80, SRC_H100_GEMM},
    {"h2", PP_EFF_ATTENTION, 0.35, 0.75, SRC_H100_ATTN},
    {"h2", PP_EFF_HBM, 0.80, 0.93, SRC_HBM},
    {"h2", PP_EFF_NVLINK, 0.75, 0.95, SRC_NVLINK},
    {"h2", PP_EFF_NETWORK, 0.75, 0.95, SRC_NET},
    {"h2", PP_EFF_KERNEL_US, 2.0, 8.0, SRC_KERNEL},
    {"h2", PP_EFF_NVLINK_LATENCY_US, 2.0, 20.0, SRC_LAT},
    {"h2", PP_EFF_NETWORK_LATENCY_US, 9.6, 20.0, SRC_NET_LAT},
    {"h2", PP_EFF_GEMM_K_OVERHEAD, PP_GEMM_K_OVERHEAD_LO, 165.0, SRC_H100_K_OVERHEAD},
    {"h2", PP_EFF_CROSS_RAIL, 0.25, 1.0, SRC_CROSS_RAIL},
};
#define N_BOUNDS ((int)(sizeof BOUNDS / sizeof BOUNDS[0]))

static const char *const KEYS[PP_EFF_COUNT] = {
    "gemm", "attention", "hbm", "nvlink", "network", "kernel_us", "nvlink_latency_us", "network_latency_us",
    "gemm_k_overhead", "cross_rail",
};

const char *pp_efficiency_key(int i)
{
    return i >= 0 && i < PP_EFF_COUNT ? KEYS[i] : "?";
}

void pp_efficiency_bounds(const char *gpu_id, int i, double *lo, double *hi, const char **source,
                          const char **family)
{
    static const char *const NAMES[] = {"A100", "H100/H200", "V100"};
    double l = 1e300, h = -1e300;
    const char *src = "union of the GPU families' bounds (no family of its own)";
    const char *fam = "other";
    for (int k = 0; k < N_BOUNDS; k++) {
        if (BOUNDS[k].param != i)
            continue;
        if (gpu_id && strncmp(gpu_id, BOUNDS[k].family, strlen(BOUNDS[k].family)) == 0) {
            l = BOUNDS[k].lo, h = BOUNDS[k].hi, src = BOUNDS[k].source;
            fam = NAMES[BOUNDS[k].family[0] == 'a' ? 0 : BOUNDS[k].family[0] == 'v' ? 2 : 1];
            break;
        }
        l = fmin(l, BOUNDS[k].lo);
        h = fmax(h, BOUNDS[k].hi);
    }
    *lo = l, *hi = h;
    if (source)
        *source = src;
    if (family)
        *family = fam;
}

/* ---- the fit ------------------------------------------------------------ */

static double *eff_field(pp_efficiency *e, int i)
{
    double *f[PP_EFF_COUNT] = {&e->gemm,    &e->attention, &e->hbm,
                               &e->nvlink,  &e->network,   &e->kernel_us,
                               &e->nvlink_latency_us, &e->network_latency_us, &e->gemm_k_overhead,
                               &e->cross_rail};
    return f[i];
}

double pp_efficiency_value(const pp_efficiency *e, int i)
{
    pp_efficiency copy = *e;
    return i >= 0 && i < PP_EFF_COUNT ? *eff_field(&copy, i) : 0.0;
}

/* The optimizer works on u in [0, 1]^8, u = (value - lo) / (hi - lo), so
 * every parameter has the same scale. */
typedef struct fit_ctx {
    pp_measurement_set *set;
    const char *eff_id;
    const char *skip_group; /* rows of this group are left out (CV), or NULL */
    double lo[PP_EFF_COUNT], hi[PP_EFF_COUNT];
    int n_rows;
} fit_ctx;

static void to_eff(const fit_ctx *c, const double *u, pp_efficiency *e)
{
    for (int i = 0; i < PP_EFF_COUNT; i++)
        *eff_field(e, i) = c->lo[i] + (c->hi[i] - c->lo[i]) * fmin(fmax(u[i], 0.0), 1.0);
}

/* Mixture-of-Experts rows are scored, never fitted: their gap is mostly what
 * the model does not price (all-to-all overlap, node-limited routing, MTP;
 * docs/calibration.md), and bending the dense GPU parameters to absorb it
 * would move every dense prediction.  Neither are rows whose source reports
 * their speed as a framework bug (software_defect): no physical parameter
 * should absorb a bug. */
static bool in_fit(const fit_ctx *c, const pp_measurement *r)
{
    return r->has_time && !r->defect && !pp_model_is_moe(&r->prob.model) && strcmp(r->eff_id, c->eff_id) == 0 &&
           !(c->skip_group && strcmp(r->group, c->skip_group) == 0);
}

/* A very weak pull toward the middle of the bounds: it only decides a
 * parameter the rows say nothing about (no multi-node row, say), which then
 * sits in the middle of what microbenchmarks allow, and gives the fit one
 * answer.  Weight 1e-6 on (u - 1/2)^2 per parameter, against a mean squared
 * log error of ~1e-2.  Stronger pulls (1e-4 to 1e-2) made the cross-validated
 * error worse (10.9 to 11.6 % against 10.8 % on the project set), so the
 * prior is a tie-breaker only. */
#define PRIOR_WEIGHT 1e-6

static double objective(unsigned n, const double *u, double *grad, void *data)
{
    (void)n;
    (void)grad; /* derivative-free */
    fit_ctx *c = data;
    pp_efficiency e;
    double sum = 0.0;
    int rows = 0;
    for (int i = 0; i < c->set->n; i++) {
        pp_measurement *r = &c->set->rows[i];
        if (!in_fit(c, r))
            continue;
        e = r->prob.cluster.gpu.eff; /* keeps its source string */
        to_eff(c, u, &e);
        r->prob.cluster.gpu.eff = e;
        double t = pp_step_time_s(&r->prob, &r->plan);
        double err = t > 0 && isfinite(t) ? log(t / r->iteration_s) : 10.0;
        sum += err * err;
        rows++;
    }
    double prior = 0.0;
    for (int j = 0; j < PP_EFF_COUNT; j++)
        prior += (u[j] - 0.5) * (u[j] - 0.5);
    return (rows ? sum / rows : 0.0) + PRIOR_WEIGHT * prior;
}

/* BOBYQA (Powell 2009: quadratic models in a trust region, bounds
 * respected at every evaluation), then Sbplx (Rowan's subplex, robust where
 * the step time has kinks: max() of roofline terms, overlap), then BOBYQA
 * again from there; the best point wins.  All deterministic. */
double pp_minimize_unit_box(unsigned n, pp_box_objective f, void *data, double *u)
{
    static const nlopt_algorithm ALGS[] = {NLOPT_LN_BOBYQA, NLOPT_LN_SBPLX, NLOPT_LN_BOBYQA};
    double lb[PP_BOX_MAX_DIM], ub[PP_BOX_MAX_DIM], best[PP_BOX_MAX_DIM], x[PP_BOX_MAX_DIM];
    if (n == 0 || n > PP_BOX_MAX_DIM)
        return f(n, u, NULL, data);
    for (unsigned i = 0; i < n; i++)
        lb[i] = 0.0, ub[i] = 1.0;
    memcpy(best, u, n * sizeof *u);
    double fbest = f(n, best, NULL, data);
    for (size_t a = 0; a < sizeof ALGS / sizeof ALGS[0]; a++) {
        nlopt_opt opt = nlopt_create(ALGS[a], n);
        if (!opt)
            break;
        nlopt_set_min_objective(opt, f, data);
        nlopt_set_lower_bounds(opt, lb);
        nlopt_set_upper_bounds(opt, ub);
        nlopt_set_initial_step1(opt, a == 0 ? 0.2 : 0.05);
        nlopt_set_xtol_abs1(opt, 1e-7);
        nlopt_set_ftol_abs(opt, 1e-12);
        nlopt_set_maxeval(opt, 3000);
        double fx = HUGE_VAL;
        memcpy(x, best, n * sizeof *x);
        nlopt_result res = nlopt_optimize(opt, x, &fx);
        nlopt_destroy(opt);
        if (res > 0 || res == NLOPT_MAXEVAL_REACHED || res == NLOPT_ROUNDOFF_LIMITED) {
            fx = f(n, x, NULL, data);
            if (fx < fbest) {
                fbest = fx;
                memcpy(best, x, n * sizeof *x);
            }
        }
    }
    memcpy(u, best, n * sizeof *u);
    return fbest;
}

static double minimize(fit_ctx *c, double *u)
{
    return pp_minimize_unit_box(PP_EFF_COUNT, objective, c, u);
}

/* Fit one GPU's parameters on the rows in_fit() admits; the result is
 * within the bounds by construction. */
static void fit_one(pp_measurement_set *set, const char *eff_id, const char *skip_group, pp_fit *fit)
{
    fit_ctx c = {set, eff_id, skip_group, {0}, {0}, 0};
    for (int i = 0; i < PP_EFF_COUNT; i++)
        pp_efficiency_bounds(eff_id, i, &c.lo[i], &c.hi[i], NULL, NULL);
    for (int i = 0; i < set->n; i++)
        if (in_fit(&c, &set->rows[i]))
            c.n_rows++;
    double u[PP_EFF_COUNT];
    for (int i = 0; i < PP_EFF_COUNT; i++)
        u[i] = 0.5;
    memset(fit, 0, sizeof *fit);
    snprintf(fit->gpu_id, sizeof fit->gpu_id, "%s", eff_id);
    fit->n_rows = c.n_rows;
    fit->rms_log_error_before = sqrt(objective(PP_EFF_COUNT, u, NULL, &c));
    if (c.n_rows > 0)
        fit->rms_log_error_after = sqrt(minimize(&c, u));
    pp_efficiency_init(&fit->eff); /* every fitted parameter is set below: nothing of the catalog's is kept */
    for (int i = 0; i < set->n; i++)
        if (strcmp(set->rows[i].eff_id, eff_id) == 0) { /* but the misalignment penalty is not this fit's */
            fit->eff.gemm_misaligned = set->rows[i].prob.cluster.gpu.eff.gemm_misaligned;
            break;
        }
    to_eff(&c, u, &fit->eff);
    for (int i = 0; i < PP_EFF_COUNT; i++) {
        double v = *eff_field(&fit->eff, i), tol = 1e-3 * (c.hi[i] - c.lo[i]);
        if (v <= c.lo[i] + tol || v >= c.hi[i] - tol)
            fit->n_at_bound++;
    }
    snprintf(fit->eff.source, sizeof fit->eff.source, "parplan calibrate: %d rows, physics-bounded fit",
             c.n_rows);
}

static int find_fit(const pp_fit *fits, int n, const char *id)
{
    for (int i = 0; i < n; i++)
        if (strcmp(fits[i].gpu_id, id) == 0)
            return i;
    return -1;
}

/* The GPUs (eff_id) with timed rows, in order of first appearance. */
static int gpu_ids(const pp_measurement_set *set, pp_fit *fits, int max_fits)
{
    int n = 0;
    for (int i = 0; i < set->n && n < max_fits; i++) {
        const pp_measurement *r = &set->rows[i];
        if (!r->has_time || find_fit(fits, n, r->eff_id) >= 0)
            continue;
        memset(&fits[n], 0, sizeof fits[n]);
        snprintf(fits[n].gpu_id, sizeof fits[n].gpu_id, "%s", r->eff_id);
        n++;
    }
    return n;
}

static void apply_fits(pp_measurement_set *set, const pp_fit *fits, int n)
{
    for (int i = 0; i < set->n; i++) {
        int k = find_fit(fits, n, set->rows[i].eff_id);
        if (k >= 0)
            set->rows[i].prob.cluster.gpu.eff = fits[k].eff;
    }
}

int pp_calibrate(pp_measurement_set *set, pp_fit *fits, int max_fits)
{
    int n = gpu_ids(set, fits, max_fits);
    for (int k = 0; k < n; k++) {
        char id[PP_ID_LEN];
        snprintf(id, sizeof id, "%s", fits[k].gpu_id);
        fit_one(set, id, NULL, &fits[k]);
    }
    apply_fits(set, fits, n);
    return n;
}

/* ---- cross-validation --------------------------------------------------- */

/* Two rows of one group are a same-job pair when they train the same
 * model on as many GPUs of one kind at one global batch with different
 * plans: rows that ran the same plan and settings on different systems
 * (MLPerf submitters of one configuration) differ by the system, which no
 * plan can order.  Rows are zeroed before they are filled, so their plan
 * and training settings compare byte for byte. */
static bool same_job(const pp_measurement *a, const pp_measurement *b)
{
    const pp_model *x = &a->prob.model, *y = &b->prob.model;
    if (memcmp(&a->plan, &b->plan, sizeof a->plan) == 0 &&
        memcmp(&a->prob.training, &b->prob.training, sizeof a->prob.training) == 0)
        return false;
    return strcmp(a->group, b->group) == 0 && strcmp(a->gpu_id, b->gpu_id) == 0 && x->layers == y->layers &&
           x->hidden == y->hidden && x->heads == y->heads && x->kv_heads == y->kv_heads &&
           x->ffn_hidden == y->ffn_hidden && x->vocab == y->vocab && x->seq_len == y->seq_len &&
           a->prob.cluster.nodes * a->prob.cluster.gpus_per_node ==
               b->prob.cluster.nodes * b->prob.cluster.gpus_per_node &&
           a->prob.training.global_batch == b->prob.training.global_batch;
}

#define PAIR_MIN_DIFF 0.03 /* measured step times must differ by more than 3 % */

/* Same-job pairs of group g (or of every dense group if g is NULL: the
 * Mixture-of-Experts rows are scored apart) and how many of them pred
 * orders as measured; rows with a reported software defect pair with none. */
static int count_pairs(const pp_measurement_set *set, const double *pred, const char *g, int *ordered)
{
    int n = 0;
    *ordered = 0;
    for (int i = 0; i < set->n; i++) {
        const pp_measurement *a = &set->rows[i];
        if (!a->has_time || a->defect || (g ? strcmp(a->group, g) != 0 : pp_model_is_moe(&a->prob.model)))
            continue;
        for (int j = i + 1; j < set->n; j++) {
            const pp_measurement *b = &set->rows[j];
            if (!b->has_time || b->defect || !same_job(a, b))
                continue;
            if (fabs(a->iteration_s / b->iteration_s - 1.0) <= PAIR_MIN_DIFF)
                continue;
            n++;
            if ((a->iteration_s < b->iteration_s) == (pred[i] < pred[j]))
                (*ordered)++;
        }
    }
    return n;
}

static pp_cv_group *cv_slot(pp_cv_result *cv, const char *name)
{
    for (int i = 0; i < cv->n_groups; i++)
        if (strcmp(cv->groups[i].group, name) == 0)
            return &cv->groups[i];
    if (cv->n_groups == PP_MAX_GROUPS)
        return NULL;
    pp_cv_group *g = &cv->groups[cv->n_groups++];
    memset(g, 0, sizeof *g);
    snprintf(g->group, sizeof g->group, "%s", name);
    return g;
}

int pp_cross_validate(pp_measurement_set *set, pp_cv_result *cv)
{
    memset(cv, 0, sizeof *cv);
    double *pred_cv = calloc((size_t)set->n + 1, sizeof *pred_cv);
    double *pred_in = calloc((size_t)set->n + 1, sizeof *pred_in);
    if (!pred_cv || !pred_in) {
        free(pred_cv);
        free(pred_in);
        return PP_EINTERNAL;
    }
    for (int i = 0; i < set->n; i++)
        if (set->rows[i].has_time)
            cv_slot(cv, set->rows[i].group);
    pp_fit ids[PP_MAX_GROUPS];
    int n_ids = gpu_ids(set, ids, PP_MAX_GROUPS);
    /* Held out: one group at a time, each GPU fitted on the other groups. */
    for (int g = 0; g < cv->n_groups; g++) {
        const char *name = cv->groups[g].group;
        for (int k = 0; k < n_ids; k++) {
            bool used = false;
            for (int i = 0; i < set->n && !used; i++)
                used = set->rows[i].has_time && strcmp(set->rows[i].group, name) == 0 &&
                       strcmp(set->rows[i].eff_id, ids[k].gpu_id) == 0;
            if (!used)
                continue;
            pp_fit fit;
            fit_one(set, ids[k].gpu_id, name, &fit);
            for (int i = 0; i < set->n; i++) {
                pp_measurement *r = &set->rows[i];
                if (r->has_time && strcmp(r->group, name) == 0 && strcmp(r->eff_id, fit.gpu_id) == 0) {
                    r->prob.cluster.gpu.eff = fit.eff;
                    pred_cv[i] = pp_step_time_s(&r->prob, &r->plan);
                }
            }
        }
    }
    /* In sample: one fit on everything (what `calibrate` writes). */
    cv->n_fits = pp_calibrate(set, cv->fits, PP_MAX_GROUPS);
    for (int i = 0; i < set->n; i++)
        if (set->rows[i].has_time)
            pred_in[i] = pp_step_time_s(&set->rows[i].prob, &set->rows[i].plan);
    for (int i = 0; i < set->n; i++) {
        const pp_measurement *r = &set->rows[i];
        if (!r->has_time)
            continue;
        double ape_cv = fabs(pred_cv[i] / r->iteration_s - 1.0) * 100.0;
        double ape_in = fabs(pred_in[i] / r->iteration_s - 1.0) * 100.0;
        if (r->defect) { /* apart, and out of its group's figures */
            cv->n_defect_rows++;
            cv->defect_mape_cv += ape_cv;
            continue;
        }
        pp_cv_group *g = cv_slot(cv, r->group);
        g->n_time++;
        g->mape_cv += ape_cv;
        g->max_ape_cv = fmax(g->max_ape_cv, ape_cv);
        g->bias_cv += (pred_cv[i] / r->iteration_s - 1.0) * 100.0;
        g->mape_in += ape_in;
        if (pp_model_is_moe(&r->prob.model)) {
            /* apart: the overall error (efficiency.json's cross_validated_error,
             * the reports' tie threshold) stays the dense model's, as the fit does */
            g->moe = true;
            cv->n_moe_rows++;
            cv->moe_mape_cv += ape_cv;
            continue;
        }
        cv->n_rows++;
        cv->mape_cv += ape_cv;
        cv->mape_in += ape_in;
    }
    int k_cv, k_in, groups_timed = 0;
    for (int g = 0; g < cv->n_groups; g++) {
        pp_cv_group *x = &cv->groups[g];
        if (x->n_time) {
            x->mape_cv /= x->n_time;
            x->bias_cv /= x->n_time;
            x->mape_in /= x->n_time;
            if (!x->moe) {
                cv->group_mape_cv += x->mape_cv;
                groups_timed++;
            }
        }
        x->n_pairs = count_pairs(set, pred_cv, x->group, &k_cv);
        count_pairs(set, pred_in, x->group, &k_in);
        x->ordered_cv = share(k_cv, x->n_pairs);
        x->ordered_in = share(k_in, x->n_pairs);
    }
    if (cv->n_rows) {
        cv->mape_cv /= cv->n_rows;
        cv->mape_in /= cv->n_rows;
    }
    if (groups_timed)
        cv->group_mape_cv /= groups_timed;
    if (cv->n_moe_rows)
        cv->moe_mape_cv /= cv->n_moe_rows;
    if (cv->n_defect_rows)
        cv->defect_mape_cv /= cv->n_defect_rows;
    cv->n_pairs = count_pairs(set, pred_cv, NULL, &k_cv);
    count_pairs(set, pred_in, NULL, &k_in);
    cv->ordered_cv = share(k_cv, cv->n_pairs);
    cv->ordered_in = share(k_in, cv->n_pairs);
    free(pred_cv);
    free(pred_in);
    return PP_OK;
}

double pp_cv_step_time_error(const pp_cv_result *cv)
{
    return cv && cv->n_rows ? cv->mape_cv / 100.0 : 0.0;
}

/* ---- the override file --------------------------------------------------- */

static void add_rounded(cJSON *o, const char *key, double v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.4g", v);
    cJSON_AddItemToObject(o, key, cJSON_CreateNumber(strtod(buf, NULL)));
}

/* The nine fitted parameters, and the misalignment penalty when it is not
 * the built-in one (a GEMM sweep fitted it): a file without it means the
 * default. */
static cJSON *eff_json(const pp_efficiency *e)
{
    cJSON *o = cJSON_CreateObject();
    for (int i = 0; i < PP_EFF_COUNT; i++)
        add_rounded(o, KEYS[i], pp_efficiency_value(e, i));
    pp_efficiency def;
    pp_efficiency_init(&def);
    if (e->gemm_misaligned != def.gemm_misaligned)
        add_rounded(o, "gemm_misaligned", e->gemm_misaligned);
    return o;
}

char *pp_fits_to_json(const pp_fit *fits, int n_fits, const char *source, double cv_error)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "source", source);
    if (cv_error > 0.0) {
        char buf[32];
        snprintf(buf, sizeof buf, "%.3g", cv_error);
        cJSON_AddItemToObject(root, "cross_validated_error", cJSON_CreateNumber(strtod(buf, NULL)));
    }
    cJSON *gpus = cJSON_AddObjectToObject(root, "gpus");
    for (int i = 0; i < n_fits; i++)
        cJSON_AddItemToObject(gpus, fits[i].gpu_id, eff_json(&fits[i].eff));
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    return text;
}
