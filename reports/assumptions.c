/* assumptions.c: the constants a prediction rests on, with their sources (assumptions.h). */
#include "assumptions.h"

#include "catalog_source.h"
#include "explain.h"
#include "explain_text.h"
#include "text.h"
#include "names.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct ctx {
    const pp_problem *prob;
    const pp_catalog *cat;
} ctx;

static void add_constant(pp_assumptions *ex, const char *name, const char *value, const char *source)
{
    if (ex->n >= PP_MAX_ASSUMPTIONS)
        return;
    pp_constant *k = &ex->items[ex->n++];
    snprintf(k->name, sizeof k->name, "%.*s", (int)sizeof k->name - 1, name); /* cut to the field */
    snprintf(k->value, sizeof k->value, "%s", value);
    snprintf(k->source, sizeof k->source, "%s", source && source[0] ? source : "not given");
}

/* The catalog's source for a GPU field, or a fallback. */
static void gpu_source(const ctx *c, const char *field, char *buf, size_t cap)
{
    const pp_gpu *g = &c->prob->cluster.gpu;
    if (!g->id[0] || !pp_catalog_source(c->cat, PP_CATALOG_GPUS, g->id, field, buf, cap))
        snprintf(buf, cap, "the problem (cluster.gpu given as an object)");
}

/* A link figure: the catalog's when the problem uses the GPU's usual
 * system value, else the problem's own. */
static void link_source(const ctx *c, double used, double catalog, const char *field, const char *key, char *buf,
                        size_t cap)
{
    if (fabs(used - catalog) < 1e-9)
        gpu_source(c, field, buf, cap);
    else
        snprintf(buf, cap, "the problem (cluster.%s)", key);
}

void pp_assumptions_collect(const pp_problem *prob_, const pp_catalog *cat, const pp_plan *plan_, pp_assumptions *ex)
{
    memset(ex, 0, sizeof *ex);
    const ctx cc = {prob_, cat}, *c = &cc;
    const pp_problem *prob = c->prob;
    const pp_gpu *g = &prob->cluster.gpu;
    const pp_cluster *cl = &prob->cluster;
    char value[64], src[2048], name[80];
    const char *mid = pp_catalog_model_id_of(c->cat, &prob->model);
    if (!mid || !pp_catalog_source(c->cat, PP_CATALOG_MODELS, mid, NULL, src, sizeof src))
        snprintf(src, sizeof src, "the problem (model given as an object or a Hugging Face config)");
    snprintf(value, sizeof value, "%d layers, hidden %d, %d heads", prob->model.layers, prob->model.hidden,
             prob->model.heads);
    add_constant(ex, "model shape", value, src);
    if (pp_model_is_moe(&prob->model)) {
        /* the busiest expert's load over the mean (docs/cost-model.md section 9) */
        double l = prob->training.moe_load_imbalance;
        snprintf(value, sizeof value, "%.2f", l);
        if (prob->training.moe_force_balance)
            snprintf(src, sizeof src, "training.moe_force_balance: the router overridden to give every expert its mean "
                     "share (Megatron-Core --moe-router-force-load-balancing, torchtitan debug.moe_force_load_balance), "
                     "a benchmark setting: it trains no router, and a real run's experts are as loaded as its router "
                     "leaves them");
        else if (prob->model.moe_load_imbalance >= 1.0 && l == prob->model.moe_load_imbalance) {
            /* the catalog model it is, or whose router it has (a model object) */
            const pp_catalog_model *router = mid ? NULL : pp_catalog_model_router_of(c->cat, &prob->model);
            snprintf(src, sizeof src, "data/models.json moe_load_imbalance of %s, the model's router as measured (its "
                     "source in the model shape's row)%s; a plan's capacity factor caps it",
                     mid ? mid : router ? router->id : "the model",
                     !mid && router ? ", whose experts and router the problem's model has" : "");
        }
        else
            snprintf(src, sizeof src, "the problem's training.moe_load_imbalance (default 1.2: capacity factors of "
                     "1.0-1.25 bound what an auxiliary loss leaves, Fedus et al. 2021 section 2.2; docs/cost-model.md "
                     "section 9); a plan's capacity factor caps it");
        add_constant(ex, "MoE load imbalance (busiest expert over the mean, dropless)", value, src);
    }

    snprintf(name, sizeof name, "peak dense %s throughput per GPU", pp_precision_name(prob->training.precision));
    snprintf(value, sizeof value, "%g TFLOP/s", g->peak_tflops[prob->training.precision]);
    gpu_source(c, "peak_tflops", src, sizeof src);
    add_constant(ex, name, value, src);
    const pp_training *tr = &prob->training;
    const pp_precision_info *recipe = pp_precision_props(tr->precision);
    int first, last;
    pp_bf16_layers(prob, &first, &last);
    if (first + last > 0) { /* the blocks the recipe keeps in bf16 */
        snprintf(value, sizeof value, "first %d, last %d of %d blocks (%.1f %%)", first, last, prob->model.layers,
                 100.0 * (first + last) / prob->model.layers);
        bool recipe_own = first == (int)lround(recipe->bf16_first_share * prob->model.layers) &&
                          last == (int)lround(recipe->bf16_last_share * prob->model.layers);
        add_constant(ex, "transformer blocks the recipe keeps in bf16", value,
                     recipe_own ? "NVIDIA, 'Pretraining Large Language Models with NVFP4', arXiv 2509.25149: "
                                  "selective high-precision layers, the first two and last eight blocks of a "
                                  "62-block 12B model in bf16, as shares of this model's blocks (docs/cost-model.md "
                                  "section 10)"
                                : "the problem's training.bf16_layers_first and bf16_layers_last");
    }
    double core_rate = pp_gemm_core_rate(g, tr->precision);
    if (core_rate < 1.0 && g->peak_tflops[PP_PREC_MXFP8] > 0) { /* NVFP4 on Blackwell, measured */
        snprintf(value, sizeof value, "%.2f of the format's peak ratio over bf16", core_rate);
        add_constant(ex, "NVFP4 GEMM rate", value,
                     "vLLM's CUTLASS NVFP4 kernels on a B200 at Llama 3.1 8B's shapes (vllm-project/vllm pull "
                     "request #20646): 3904 TFLOP/s against 1360 in bf16, 2.87x of the 4x (docs/cost-model.md "
                     "section 10)");
    } else if (core_rate < 1.0) { /* fp8-block on Hopper: the block scales applied in the GEMM's main loop */
        snprintf(value, sizeof value, "%.2f of a per-tensor-scaled GEMM's", core_rate);
        add_constant(ex, "block-scaled GEMM rate on tensor cores without block scales", value,
                     "Transformer Engine's GEMM profiling guide (docs/examples/gemm_profiling at TransformerEngine "
                     "8f2e6357, H200): FP8Block against FP8Current kernels, the casts taken out; FBGEMM's CUTLASS "
                     "kernels 0.73-0.77 (docs/cost-model.md section 10)");
    }
    snprintf(value, sizeof value, "%.2f GiB", g->memory_gib);
    gpu_source(c, "memory_gib", src, sizeof src);
    add_constant(ex, "GPU memory", value, src);
    snprintf(value, sizeof value, "%g GB/s", g->hbm_GBps);
    gpu_source(c, "hbm_GBps", src, sizeof src);
    add_constant(ex, "HBM bandwidth", value, src);
    snprintf(value, sizeof value, "%g GB/s", cl->intra_node_GBps);
    link_source(c, cl->intra_node_GBps, g->nvlink_GBps, "nvlink_GBps", "intra_node_GBps", src, sizeof src);
    add_constant(ex, "NVLink per GPU, one direction", value, src);
    snprintf(value, sizeof value, "%g Gb/s", cl->inter_node_Gbps);
    link_source(c, cl->inter_node_Gbps, g->network_Gbps, "network_Gbps", "inter_node_Gbps", src, sizeof src);
    add_constant(ex, "network per GPU, one direction", value, src);
    snprintf(value, sizeof value, "%d", cl->gpus_per_node);
    link_source(c, cl->gpus_per_node, g->gpus_per_node, "gpus_per_node", "gpus_per_node", src, sizeof src);
    add_constant(ex, "GPUs per node", value, src);

    const pp_efficiency *e = &g->eff;
    snprintf(value, sizeof value, "%.4g / %.4g / %.4g / %.4g / %.4g", e->gemm, e->attention, e->hbm, e->nvlink,
             e->network);
    char label[320];
    if (e->calibrated && e->borrowed_from[0])
        snprintf(label, sizeof label, "fitted efficiency (%.64s's, the same die): GEMM / attention / element-wise / "
                 "NVLink / network", e->borrowed_from);
    else if (e->calibrated)
        snprintf(label, sizeof label, "%s", "fitted efficiency: GEMM / attention / element-wise / NVLink / network");
    else if (e->borrowed_from[0]) {
        char factors[96];
        pp_text_borrow_factors(e, factors, sizeof factors);
        snprintf(label, sizeof label, "BORROWED efficiency (no measurement of this GPU: %.64s's fit, %.64s): GEMM / "
                 "attention / element-wise / NVLink / network", e->borrowed_from, factors);
    } else {
        snprintf(label, sizeof label, "%s", "UNCALIBRATED efficiency (built-in defaults, no measurement of this "
                                            "GPU): GEMM / attention / element-wise / NVLink / network");
    }
    add_constant(ex, label, value, e->source);
    if (e->compute_scale > 0.0 && e->compute_scale != 1.0) {
        snprintf(value, sizeof value, "%.4g", e->compute_scale);
        add_constant(ex, "software stack's level (compute_scale): every kernel's FLOP and HBM time times this",
                     value,
                     "parplan calibrate from the shipped fit on a team's own steps: the mean error its rows leave "
                     "once the physical parameters they identify have moved (docs/calibration.md)");
    }
    if (prob->training.flash_attention) {
        double rate;
        pp_attention_kernel k = pp_attention_kernel_of(prob, &rate);
        snprintf(value, sizeof value, "%s class, %.3g of the 16-bit peak",
                 k == PP_ATTN_FLASH3 ? "FlashAttention-3" : k == PP_ATTN_FLASH1 ? "FlashAttention-1" : "FlashAttention-2",
                 rate);
        add_constant(ex, "fused attention kernel and its long-sequence forward rate", value,
                     "docs/cost-model.md section 2: the framework's kernel (Megatron-Core on Hopper: cuDNN's, "
                     "FlashAttention-3 class, 1.75 x the fitted FlashAttention-2 class rate; the others "
                     "FlashAttention-2) or training.attention_kernel's; FLOPs counted as FlashAttention's "
                     "benchmarks count them: the causal blocks on or below the diagonal, the backward 2.5 "
                     "forwards at 0.87 of the rate (Dao 2023, arXiv 2307.08691; Shah et al. 2024, arXiv 2407.08608)");
    }
    snprintf(value, sizeof value, "%.4g / %.4g / %.4g us", e->kernel_us, e->nvlink_latency_us, e->network_latency_us);
    add_constant(ex, "kernel launch / NVLink hop / network hop latency", value, e->source);
    if (cl->gpus_per_nic_switch > 0 && !cl->nccl_pxn) {
        snprintf(value, sizeof value, "%.3g of the network rate", e->cross_rail);
        add_constant(ex, "rings across NIC rails (NCCL without PXN)", value,
                     "docs/cost-model.md section 10: a group with 2 or more ranks a node, none sharing a NIC "
                     "switch, leaves each node on another rail; the fitted cross_rail of data/efficiency.json");
    }

    if (cl->gpu.nvls_allreduce_fraction > 0.0 && cl->nccl_nvls) {
        snprintf(value, sizeof value, "%.2f of the NVLink line rate", cl->gpu.nvls_allreduce_fraction);
        add_constant(ex, "one-node all-reduce with NVLink SHARP (algorithm bandwidth)", value,
                     "data/gpus.json nvls_allreduce_fraction: NVIDIA/nccl-tests#212 (NCCL maintainer), 8 H100: "
                     "algbw ~275 of 450 GB/s; priced where it beats the ring (docs/cost-model.md section 3)");
    }
    snprintf(value, sizeof value, "%.0f %%", 100.0 * prob->memory_headroom);
    add_constant(ex, "memory headroom", value,
                 "the problem's constraints.memory_headroom (default 0.05, pp_problem_init in formulate/input/problem.c)");
    snprintf(value, sizeof value, "%.2f GiB", pp_mem_other_gib(prob));
    add_constant(ex, "other memory per GPU", value,
                 "docs/cost-model.md section 6: CUDA context, cuBLAS and NCCL workspaces, allocator slack");
    add_constant(ex, "framework", pp_framework_name(prob->training.framework),
                 "the problem's training.framework (default megatron-core); its behaviours are in "
                 "docs/cost-model.md section 5");
    double model_error = c->cat && c->cat->model_error > 0.0 ? c->cat->model_error : PP_COST_MODEL_ERROR;
    snprintf(value, sizeof value, "%.1f %%", 100.0 * model_error);
    add_constant(ex, "cost model error (ties)", value,
                 c->cat && c->cat->model_error > 0.0
                     ? "data/efficiency.json's cross_validated_error: the leave-one-source-group-out step-time "
                       "error of the fit (docs/calibration.md, accuracy of record)"
                     : "no cross-validated error in the efficiency file: the built-in 5 % (solve/explain.h)");

    /* the codecs the optimal plan uses */
    const pp_plan *plan = plan_;
    bool any = false;
    for (int d = 0; d < PP_DIM_COUNT; d++) {
        int i = plan->codec[d];
        if (i <= 0 || i >= prob->n_codecs)
            continue;
        bool seen = false;
        for (int d2 = 0; d2 < d; d2++)
            seen = seen || plan->codec[d2] == i;
        if (seen)
            continue;
        any = true;
        const pp_codec *k = &prob->codecs[i];
        if (k->lossy) {
            snprintf(name, sizeof name, "codec %s: bits per value", k->id);
            snprintf(value, sizeof value, "%g", k->bits_per_value);
            pp_catalog_source(c->cat, PP_CATALOG_CODECS, k->id, "bits_per_value", src, sizeof src);
            add_constant(ex, name, value, src);
            snprintf(name, sizeof name, "codec %s: relative error", k->id);
            snprintf(value, sizeof value, "%g", k->rel_error);
            pp_catalog_source(c->cat, PP_CATALOG_CODECS, k->id, "rel_error", src, sizeof src);
            add_constant(ex, name, value, src);
        } else {
            snprintf(name, sizeof name, "codec %s: compression ratio", k->id);
            snprintf(value, sizeof value, "%g", k->lossless_ratio);
            pp_catalog_source(c->cat, PP_CATALOG_CODECS, k->id, "ratio", src, sizeof src);
            add_constant(ex, name, value, src);
        }
        snprintf(name, sizeof name, "codec %s: GPU throughput", k->id);
        snprintf(value, sizeof value, "%g / %g GB/s", k->compress_GBps, k->decompress_GBps);
        pp_catalog_source(c->cat, PP_CATALOG_CODECS, k->id, "compress_GBps", src, sizeof src);
        add_constant(ex, name, value, src);
    }
    if (any) {
        snprintf(value, sizeof value, "%.0f bytes", prob->compress_min_bytes);
        pp_catalog_source(c->cat, PP_CATALOG_CODECS, NULL, "compress_min_bytes", src, sizeof src);
        add_constant(ex, "smallest compressed message", value, src);
    }
}

