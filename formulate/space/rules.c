/*
 * rules.c: the hard rules of a valid plan (see rules.h).
 *
 * Each rule is one small function; the table at the bottom fixes the order in
 * which they are tried, so the first broken rule is the one reported.
 */
#include "rules.h"

#include "costmodel.h"
#include "decisions.h"
#include "error.h"
#include "problem.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

typedef int (*rule_fn)(const pp_problem *prob, const pp_plan *plan, pp_error *err);

bool pp_codec_too_lossy(const pp_problem *prob, int codec, pp_dim d)
{
    if (codec < 0 || codec >= prob->n_codecs)
        return false;
    const pp_codec *c = &prob->codecs[codec];
    return c->lossy && c->rel_error > prob->error_tolerance[d];
}

/* Every decision within its range (decisions.h); codecs are rule_codecs'. */
static int rule_ranges(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    (void)prob;
    for (int i = 0; i < PP_DEC_COUNT; i++) {
        const pp_decision *d = &pp_decisions[i];
        int v = pp_decision_get(pl, d->id);
        if (d->kind == PP_DK_CODEC)
            continue;
        if (v < d->min)
            return pp_error_set(err, PP_EINPUT, "plan", "%s must be at least %d, found %d", d->key, d->min, v);
        if (v > d->max)
            return pp_error_set(err, PP_EINPUT, "plan", "%s must be at most %d, found %d", d->key, d->max, v);
    }
    return PP_OK;
}

/* ---- what the framework runs (data/frameworks.json) ----------------------- */

bool pp_framework_runs(const pp_problem *prob, pp_decision_id id, int v)
{
    const pp_framework_caps *c = &prob->fw;
    if (!c->known) /* built without the catalog: the built-in rule of frameworks.c only */
        return id != PP_DEC_ZERO || pp_framework_has_zero(prob->training.framework, v);
    if (id < 0 || id >= PP_DEC_COUNT)
        return false;
    bool codec = pp_decisions[id].kind == PP_DK_CODEC;
    if (c->all[id] && !codec)
        return true;
    if (pp_decision_is_set(&pp_decisions[id])) /* runs[] holds the modules: every set of them runs */
        return v >= 0 && ((unsigned long long)v & ~c->runs[id]) == 0;
    if (v < 0 || v > 63 || !(c->runs[id] & (1ULL << v)))
        return false;
    /* a codec that runs only in an MPI library's collectives */
    return !codec || v >= 32 || !(c->codec_mpi[pp_decisions[id].dim] & (1u << v)) || prob->training.mvapich;
}

bool pp_framework_runs_zero(const pp_problem *prob, int zero, int pp)
{
    if (!pp_framework_runs(prob, PP_DEC_ZERO, zero))
        return false;
    return pp <= 1 || !prob->fw.known || (zero >= 0 && zero < 32 && (prob->fw.zero_with_pp & (1u << zero)));
}

/* "none, bf16": the values of decision d the framework runs. */
static void runs_list(const pp_problem *prob, const pp_decision *d, unsigned long long mask, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    bool set = pp_decision_is_set(d); /* the mask holds modules: name each */
    for (int v = 0; v < 64 && n < cap; v++)
        if (mask & (1ULL << v)) {
            char num[32];
            const char *t = pp_decision_value_text(prob, d, set ? 1 << v : v, num, sizeof num);
            int w = snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", t);
            n += w > 0 ? (size_t)w : 0;
        }
}

/* Megatron-Core captures per-layer CUDA graphs (training.cuda_graphs
 * partial or full) only without full recomputation: "full recompute is only
 * supported with full iteration CUDA graph" (TransformerConfig.__post_init__,
 * megatron/core/transformer/transformer_config.py at d98e8a64dd). */
static bool recompute_fits_graphs(const pp_problem *prob, int value)
{
    return value != PP_RECOMPUTE_FULL || prob->training.cuda_graphs == PP_GRAPHS_NONE;
}

bool pp_plan_runnable(const pp_problem *prob, const pp_plan *pl, char *why, size_t cap)
{
    char list[256], num[32];
    if (why && cap)
        why[0] = '\0';
    for (int i = 0; i < PP_DEC_COUNT; i++) {
        const pp_decision *d = &pp_decisions[i];
        int v = pp_decision_get(pl, d->id);
        bool codec = d->kind == PP_DK_CODEC;
        if (codec && v == 0)
            continue;
        if (pp_framework_runs(prob, d->id, v))
            continue;
        if (why && prob->fw.known && codec && v >= 0 && v < 32 && (prob->fw.runs[d->id] & (1ULL << v)))
            snprintf(why, cap, "codec '%s' on %s traffic runs only in MVAPICH2-GDR's collectives "
                     "(training.collectives \"mvapich2-gdr\")", pp_codec_id(prob, v), pp_dim_name(d->dim));
        else if (why && prob->fw.known && codec) {
            runs_list(prob, d, prob->fw.runs[d->id], list, sizeof list);
            snprintf(why, cap, "it has no codec '%s' on %s traffic (it runs %s)", pp_codec_id(prob, v),
                     pp_dim_name(d->dim), list);
        } else if (why && prob->fw.known) {
            runs_list(prob, d, prob->fw.runs[d->id], list, sizeof list);
            snprintf(why, cap, "it has no %s=%s (it runs %s)", d->key,
                     pp_decision_value_text(prob, d, v, num, sizeof num), list);
        } else if (why)
            snprintf(why, cap, "it has no ZeRO stage %d (FSDP's NO_SHARD is zero 0, SHARD_GRAD_OP zero 2, "
                     "FULL_SHARD zero 3)", pl->zero);
        return false;
    }
    /* A problem that states the dispatcher or the overlap (its training
     * block) is priced so whatever the plan carries: a shape its framework
     * cannot run them on is priced as a schedule it does not have
     * (DeepSeek's DualPipe hides the all-to-alls; Megatron-Core only with
     * interleaving). */
    if (prob->training.moe_a2a_overlap && pp_model_is_moe(&prob->model) &&
        !(pp_moe_comm_offered(prob, PP_DEC_MOE_A2A_OVERLAP) && pp_moe_comm_fits_shape(pl, PP_DEC_MOE_A2A_OVERLAP) &&
          pp_moe_overlap_fits_recompute(1, pl->recompute, pl->recompute_modules))) {
        if (why)
            snprintf(why, cap, "the problem's moe_a2a_overlap is priced, but it runs the expert all-to-alls behind "
                     "compute only with ep > 1, with a pipeline interleaving, without full recomputation or the "
                     "moe recompute module, and with at most one MTP module (ep=%d pp=%d virtual_stages=%d "
                     "recompute=%s; DeepSeek's DualPipe is not one of its schedules)",
                     pl->ep, pl->pp, pl->virtual_stages, pp_recompute_name(pl->recompute));
        return false;
    }
    if (prob->training.moe_deepep && pp_model_is_moe(&prob->model) &&
        !(pp_moe_comm_offered(prob, PP_DEC_MOE_DISPATCHER) && pp_moe_comm_fits_shape(pl, PP_DEC_MOE_DISPATCHER))) {
        if (why)
            snprintf(why, cap, "the problem's moe_dispatcher deepep is priced, but it does not run DeepEP here "
                     "(ep=%d)", pl->ep);
        return false;
    }
    if (!recompute_fits_graphs(prob, pl->recompute)) {
        if (why)
            snprintf(why, cap, "the problem's cuda_graphs \"%s\" captures each layer, which it runs only without "
                     "full recomputation (recompute=full; Megatron-Core: \"full recompute is only supported with "
                     "full iteration CUDA graph\")",
                     pp_cuda_graphs_names[prob->training.cuda_graphs]);
        return false;
    }
    /* The problem's training precision is priced as the recipe it names:
     * a framework without that recipe (data/frameworks.json "precisions")
     * would train in another. */
    if (prob->fw.known && !(prob->fw.precisions & (1u << prob->training.precision))) {
        if (why) {
            size_t used = 0;
            list[0] = '\0';
            for (int p = 0; p < PP_PREC_COUNT; p++)
                if (prob->fw.precisions & (1u << p) && used < sizeof list)
                    used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "",
                                             pp_precision_name((pp_precision)p));
            snprintf(why, cap, "the problem's precision %s is priced, but it has no recipe for it (it runs %s)",
                     pp_precision_name(prob->training.precision), list);
        }
        return false;
    }
    if (!pp_framework_runs_zero(prob, pl->zero, pl->pp)) {
        if (why) {
            runs_list(prob, &pp_decisions[PP_DEC_ZERO], prob->fw.zero_with_pp, list, sizeof list);
            snprintf(why, cap, "it has no ZeRO stage %d with a pipeline (pp=%d; with one it runs zero %s)", pl->zero,
                     pl->pp, list);
        }
        return false;
    }
    return true;
}

const char *pp_framework_label(const pp_problem *prob, char *buf, size_t cap)
{
    if (prob->fw.known)
        snprintf(buf, cap, "%s (%s)", prob->fw.name, prob->fw.version);
    else
        snprintf(buf, cap, "%s", pp_framework_name(prob->training.framework));
    return buf;
}

static int rule_framework(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    char why[512], label[PP_NAME_LEN + PP_FW_VERSION_LEN + 8];
    if (pp_plan_runnable(prob, pl, err ? why : NULL, sizeof why)) /* the space asks for no message */
        return PP_OK;
    if (!err)
        return PP_EINPUT;
    return pp_error_set(err, PP_EINPUT, "plan", "framework: not runnable by %s: %s",
                        pp_framework_label(prob, label, sizeof label), why);
}

static int rule_gpu_count(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    /* In double: four degrees of up to 2^24 overflow a long; any product
     * beyond 2^53 is far above every cluster, so rounding cannot match. */
    double used = (double)pl->tp * pl->pp * pl->dp * pl->cp;
    long have = pp_problem_gpus(prob);
    if (prob->idle_gpus_ok && used <= (double)have)
        return PP_OK;
    if (prob->idle_gpus_ok)
        return pp_error_set(err, PP_EINPUT, "plan",
                            "gpu count: tp*pp*dp*cp = %d*%d*%d*%d = %.0f, more than the cluster's %ld GPUs",
                            pl->tp, pl->pp, pl->dp, pl->cp, used, have);
    if (used != (double)have)
        return pp_error_set(err, PP_EINPUT, "plan",
                            "gpu count: tp*pp*dp*cp = %d*%d*%d*%d = %.0f, but the cluster has %ld GPUs",
                            pl->tp, pl->pp, pl->dp, pl->cp, used, have);
    return PP_OK;
}

static int rule_tp_divides_heads(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    const pp_model *m = &prob->model;
    if (pl->tp_mode != PP_TP_1D)
        return PP_OK; /* a grid splits heads by q, not t: rule_tp_grid */
    if (m->heads % pl->tp || m->kv_heads % pl->tp)
        return pp_error_set(err, PP_EINPUT, "plan",
                            "divisibility: tp=%d must divide heads=%d and kv_heads=%d", pl->tp, m->heads,
                            m->kv_heads);
    if (m->ffn_hidden % pl->tp)
        return pp_error_set(err, PP_EINPUT, "plan", "divisibility: tp=%d must divide ffn_hidden=%d", pl->tp,
                            m->ffn_hidden);
    return PP_OK;
}

bool pp_plan_tp_spans_nodes(const pp_problem *prob, const pp_plan *plan)
{
    int gpn = prob->cluster.gpus_per_node; /* 0: a capacity problem, no cluster of its own */
    return gpn >= 1 && plan->tp >= 1 && (plan->tp > gpn || gpn % plan->tp);
}

bool pp_plan_tp_leaves_node(const pp_problem *prob, const pp_plan *plan)
{
    return !prob->allow_tp_across_nodes && pp_plan_tp_spans_nodes(prob, plan);
}

static int rule_tp_in_node(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    int gpn = prob->cluster.gpus_per_node;
    if (pp_plan_tp_leaves_node(prob, pl))
        return pp_error_set(err, PP_EINPUT, "plan",
                            "placement: tp=%d must divide the %d GPUs of a node (tensor parallelism stays "
                            "inside a node unless constraints.allow_tp_across_nodes is true)",
                            pl->tp, gpn);
    return PP_OK;
}

/* The pipeline layout (cost/layout.c) holds the layers: each of the pp
 * stages at least one.  Named, each layout needs its own divisibility; auto
 * takes the first that holds, and balanced holds unless the chunks outnumber
 * the layers. */
static int rule_chunks_hold_layers(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    pp_stage_split split;
    if ((pl->virtual_stages > 1 || pl->pipeline_layout != PP_LAYOUT_AUTO) && !pp_stage_layers(prob, pl, &split)) {
        long L = prob->model.layers, chunks = (long)pl->pp * pl->virtual_stages;
        const char *needs = pl->pipeline_layout == PP_LAYOUT_EVEN ? "pp*virtual_stages must divide the layers"
                            : pl->pipeline_layout == PP_LAYOUT_EMBEDDING_LOSS
                                ? "pp*virtual_stages must divide layers+2 (the embedding and the loss counted as "
                                  "layers) with at least 2 a chunk"
                                : "every stage needs at least one layer, with the embedding and the loss counted as "
                                  "layers";
        return pp_error_set(err, PP_EINPUT, "plan",
                            "divisibility: pipeline_layout %s cannot put layers=%d on pp*virtual_stages = %d*%d = %ld "
                            "chunks: %s",
                            pp_decisions[PP_DEC_PIPELINE_LAYOUT].names[pl->pipeline_layout], (int)L, pl->pp,
                            pl->virtual_stages, chunks, needs);
    }
    return PP_OK;
}

static int rule_stages_hold_layers(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    pp_stage_split split;
    if (!pp_stage_layers(prob, pl, &split))
        return pp_error_set(err, PP_EINPUT, "plan",
                            "divisibility: pp=%d stages cannot hold layers=%d (each stage needs at least one layer, "
                            "the middle ones ceil(layers/pp))",
                            pl->pp, prob->model.layers);
    return PP_OK;
}

static int rule_interleave_needs_pp(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    (void)prob;
    if (pl->virtual_stages > 1 && pl->pp < 2)
        return pp_error_set(err, PP_EINPUT, "plan", "interleaving: virtual_stages=%d needs pp >= 2",
                            pl->virtual_stages);
    return PP_OK;
}

static int rule_cp_divides_sequence(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    if (pl->cp > 1 && prob->model.seq_len % (2 * pl->cp))
        return pp_error_set(err, PP_EINPUT, "plan",
                            "divisibility: 2*cp = %d must divide seq_len=%d (load-balanced causal ring)",
                            2 * pl->cp, prob->model.seq_len);
    return PP_OK;
}

static int rule_sp_needs_tp(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    (void)prob;
    if (pl->sequence_parallel && pl->tp < 2)
        return pp_error_set(err, PP_EINPUT, "plan", "sequence_parallel needs tp >= 2");
    return PP_OK;
}

/* Micro-batches per pipeline, global_batch / (dp x micro_batch); 0 when
 * dp x micro_batch is not positive. */
static long pipeline_microbatches(const pp_problem *prob, const pp_plan *pl)
{
    long per = (long)pl->dp * pl->micro_batch;
    return per > 0 ? prob->training.global_batch / per : 0;
}

static int rule_batch_split(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    long per = (long)pl->dp * pl->micro_batch;
    if (per <= 0 || prob->training.global_batch % per)
        return pp_error_set(err, PP_EINPUT, "plan",
                            "divisibility: dp*micro_batch = %d*%d = %ld must divide global_batch=%ld", pl->dp,
                            pl->micro_batch, per, prob->training.global_batch);
    return PP_OK;
}

static int rule_microbatch_count(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    long m = pipeline_microbatches(prob, pl);
    if (m > INT_MAX) /* the cost model counts micro-batches in an int */
        return pp_error_set(err, PP_EINPUT, "plan",
                            "micro-batches: global_batch/(dp*micro_batch) = %ld micro-batches per pipeline, at "
                            "most %d are supported; raise dp or micro_batch",
                            m, INT_MAX);
    return PP_OK;
}

static int rule_interleave_microbatches(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    long m = pipeline_microbatches(prob, pl);
    if (pl->virtual_stages > 1 && (m > INT_MAX || pp_vp_microbatch_group(pl->pp, pl->virtual_stages, (int)m) == 0))
        return pp_error_set(err, PP_EINPUT, "plan",
                            "interleaving: the %ld micro-batches per pipeline must be at least pp=%d (Megatron-Core "
                            "runs them in groups of pp to m, the last group whole or at least pp long)",
                            m, pl->pp);
    return PP_OK;
}

/* The grid of a 2D/2.5D/3D plan (docs/cost-model.md section 8): tp = q^2,
 * q^2 d (d >= 2; d = 1 is 2D) or q^3 with q >= 2; q divides the heads, the
 * K/V heads, hidden and ffn_hidden (3D: hidden and ffn_hidden by q^2, its
 * weight shards); the micro-batch splits over the grid's rows (Colossal-AI
 * splits the batch dimension): by q (2D), d q (2.5D) or q^2 (3D).
 * Sequence parallelism is a 1D technique: the grids already partition
 * every activation. */
static int rule_tp_grid(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    const char *mode = pp_tp_mode_name(pl->tp_mode);
    if (pl->tp_mode < 0 || pl->tp_mode >= PP_TP_MODE_COUNT)
        return pp_error_set(err, PP_EINPUT, "plan.tp_mode", "tp_mode %d is not a tensor-parallel mode",
                            (int)pl->tp_mode);
    if (pl->tp_depth < 1 || (pl->tp_mode != PP_TP_2P5D && pl->tp_depth != 1))
        return pp_error_set(err, PP_EINPUT, "plan.tp_depth",
                            "tp_depth=%d: a depth other than 1 needs tp_mode \"2.5d\" (found \"%s\")", pl->tp_depth,
                            mode);
    if (pl->tp_mode == PP_TP_1D)
        return PP_OK;
    int q = pp_tp_grid_side(pl);
    if (q < 2 || (pl->tp_mode == PP_TP_2P5D && pl->tp_depth < 2)) {
        const char *shape = pl->tp_mode == PP_TP_2D     ? "q^2"
                            : pl->tp_mode == PP_TP_2P5D ? "q^2*tp_depth with tp_depth >= 2"
                                                        : "q^3";
        return pp_error_set(err, PP_EINPUT, "plan.tp_mode",
                            "grid: tp_mode \"%s\" needs tp = %s with q >= 2, found tp=%d tp_depth=%d", mode, shape,
                            pl->tp, pl->tp_depth);
    }
    const pp_model *m = &prob->model;
    if (m->heads % q || m->kv_heads % q || m->hidden % q || m->ffn_hidden % q)
        return pp_error_set(err, PP_EINPUT, "plan",
                            "divisibility: the %s grid side q=%d must divide heads=%d, kv_heads=%d, hidden=%d and "
                            "ffn_hidden=%d",
                            mode, q, m->heads, m->kv_heads, m->hidden, m->ffn_hidden);
    if (pl->tp_mode == PP_TP_3D && (m->hidden % (q * q) || m->ffn_hidden % (q * q)))
        return pp_error_set(err, PP_EINPUT, "plan",
                            "divisibility: the 3d grid needs q^2=%d to divide hidden=%d and ffn_hidden=%d", q * q,
                            m->hidden, m->ffn_hidden);
    long rows = pl->tp_mode == PP_TP_2D ? q : pl->tp_mode == PP_TP_2P5D ? (long)q * pl->tp_depth : (long)q * q;
    if (pl->micro_batch % rows)
        return pp_error_set(err, PP_EINPUT, "plan",
                            "divisibility: the %s grid splits the micro-batch %ld ways, but micro_batch=%d", mode,
                            rows, pl->micro_batch);
    if (pl->sequence_parallel)
        return pp_error_set(err, PP_EINPUT, "plan",
                            "sequence_parallel is a 1d technique (tp_mode \"%s\" partitions every activation)", mode);
    return PP_OK;
}

/* Mixture of experts (docs/cost-model.md section 9): ep divides the routed
 * experts, and the expert layers fold their own grid over the tp x dp x cp
 * ranks of a stage (Megatron-Core's MoE parallel folding, Liu et al. 2025,
 * arXiv 2504.14960: etp x ep x expert-dp = tp x cp x dp); expert tensor
 * parallelism is 1 or tp.  Megatron-Core needs sequence parallelism with
 * tensor parallelism in a MoE model, and the 2D/2.5D/3D grids have no
 * MoE.  Dense models keep ep = etp = 1. */
static int rule_moe(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    const pp_model *m = &prob->model;
    if (pp_model_is_mla(m) && pl->tp_mode != PP_TP_1D)
        return pp_error_set(err, PP_EINPUT, "plan",
                            "mla: tp_mode \"%s\" has no multi-head latent attention (it is priced under 1d only)",
                            pp_tp_mode_name(pl->tp_mode));
    if (!pp_model_is_moe(m)) {
        if (pl->ep != 1 || pl->etp != 1)
            return pp_error_set(err, PP_EINPUT, "plan",
                                "moe: ep=%d etp=%d: expert parallelism needs a Mixture-of-Experts model (%s has no "
                                "experts); use ep 1 and etp 1",
                                pl->ep, pl->etp, m->name);
        return PP_OK;
    }
    if (pl->etp != 1 && pl->etp != pl->tp)
        return pp_error_set(err, PP_EINPUT, "plan", "moe: etp=%d must be 1 or tp=%d", pl->etp, pl->tp);
    long ranks = (long)pl->tp * pl->dp * pl->cp;
    if (m->experts % pl->ep || ranks % ((long)pl->ep * pl->etp))
        return pp_error_set(err, PP_EINPUT, "plan",
                            "divisibility: ep=%d must divide the experts (%d), and ep*etp = %ld must divide "
                            "tp*dp*cp = %ld (the expert layers fold their ranks over the stage's tensor-, data- and "
                            "context-parallel ranks)",
                            pl->ep, m->experts, (long)pl->ep * pl->etp, ranks);
    if (pl->etp > 1 && m->moe_ffn_hidden % pl->etp)
        return pp_error_set(err, PP_EINPUT, "plan", "divisibility: etp=%d must divide moe_ffn_hidden=%d", pl->etp,
                            m->moe_ffn_hidden);
    if (pl->tp_mode != PP_TP_1D)
        return pp_error_set(err, PP_EINPUT, "plan",
                            "moe: tp_mode \"%s\" has no Mixture-of-Experts layers (Megatron-Core's are 1d)",
                            pp_tp_mode_name(pl->tp_mode));
    if (pl->tp > 1 && !pl->sequence_parallel)
        return pp_error_set(err, PP_EINPUT, "plan",
                            "moe: with tp=%d a Mixture-of-Experts model needs sequence_parallel (Megatron-Core "
                            "requires it)",
                            pl->tp);
    return PP_OK;
}

/* ZeRO's parameter all-gathers exist only from stage 1 on. */
bool pp_params_codec_fits(int zero, int params_codec)
{
    return zero != 0 || params_codec == 0;
}

static int rule_params_codec(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    (void)prob;
    if (!pp_params_codec_fits(pl->zero, pl->codec[PP_DIM_PARAMS]))
        return pp_error_set(err, PP_EINPUT, "plan.compression",
                            "compression.params applies to ZeRO's parameter all-gathers; with zero=0 there are none "
                            "(use \"none\")");
    return PP_OK;
}

static int rule_codecs(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    for (int d = 0; d < PP_DIM_COUNT; d++) {
        int i = pl->codec[d];
        if (i < 0 || i >= prob->n_codecs)
            return pp_error_set(err, PP_EINPUT, "plan.compression", "codec index %d of %s is out of range", i,
                                pp_dim_name((pp_dim)d));
        const pp_codec *c = &prob->codecs[i];
        if (pp_codec_too_lossy(prob, i, (pp_dim)d))
            return pp_error_set(err, PP_EINPUT, "plan.compression",
                                "accuracy: codec '%s' adds relative error %g to %s traffic, above its "
                                "tolerance %g (constraints.error_tolerance.%s)",
                                c->id, c->rel_error, pp_dim_name((pp_dim)d), prob->error_tolerance[d],
                                pp_dim_name((pp_dim)d));
    }
    return PP_OK;
}

/* TP overlap (tp.c) pipelines the all-gathers and reduce-scatters of 1D
 * sequence-parallel TP with their GEMMs over NVLink: Transformer Engine's
 * userbuffers (Megatron-Core --tp-comm-overlap needs --sequence-parallel
 * and a TP group inside one node) and torchtitan's AsyncTP (symmetric
 * memory inside a node).  Uncompressed, dense models only.  Each clause is
 * written once, here; the space applies them where each is known
 * (rules.h). */
static bool tpo_in_framework(const pp_problem *prob) { return prob->training.tp_overlap; }
static bool tpo_dense(const pp_problem *prob) { return !pp_model_is_moe(&prob->model); }
static bool tpo_1d(const pp_plan *pl) { return pl->tp >= 2 && pl->tp_mode == PP_TP_1D; }
static bool tpo_in_node(const pp_plan *pl, int gpus_per_node) { return pl->tp <= gpus_per_node; }
static bool tpo_uncompressed(int tp_codec) { return tp_codec == 0; }

bool pp_tp_overlap_offered(const pp_problem *prob)
{
    bool runs = prob->fw.known ? pp_framework_runs(prob, PP_DEC_TP_OVERLAP, 1) : tpo_in_framework(prob);
    return runs && tpo_dense(prob);
}

bool pp_tp_overlap_fits_shape(const pp_plan *plan, int gpus_per_node)
{
    return tpo_1d(plan) && tpo_in_node(plan, gpus_per_node);
}

bool pp_tp_overlap_fits_options(int sequence_parallel, int tp_codec)
{
    return sequence_parallel && tpo_uncompressed(tp_codec);
}

static int rule_tp_overlap(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    if (!pl->tp_comm_overlap)
        return PP_OK;
    if (!prob->fw.known && !tpo_in_framework(prob)) /* else rule_framework's, from the data */
        return pp_error_set(err, PP_EINPUT, "plan",
                            "tp_comm_overlap: framework '%s' has no TP communication overlap (Megatron-Core and "
                            "torchtitan have)",
                            pp_framework_name(prob->training.framework));
    if (!tpo_1d(pl) || !pl->sequence_parallel)
        return pp_error_set(err, PP_EINPUT, "plan",
                            "tp_comm_overlap: needs 1d tensor parallelism with tp >= 2 and sequence_parallel");
    if (!tpo_in_node(pl, prob->cluster.gpus_per_node))
        return pp_error_set(err, PP_EINPUT, "plan",
                            "tp_comm_overlap: the TP group of %d must sit inside one node of %d GPUs", pl->tp,
                            prob->cluster.gpus_per_node);
    if (!tpo_uncompressed(pl->codec[PP_DIM_TP]))
        return pp_error_set(err, PP_EINPUT, "plan", "tp_comm_overlap: overlapped TP traffic is not compressed");
    if (!tpo_dense(prob))
        return pp_error_set(err, PP_EINPUT, "plan",
                            "tp_comm_overlap: priced for dense models only (a MoE layer's dispatch replaces the "
                            "MLP's collectives)");
    return PP_OK;
}

/* Selective recomputation's modules (Megatron-Core --recompute-modules,
 * TransformerConfig.__post_init__ at core_v0.15.0) and the SwiGLU input
 * kept in fp8 (activation_func_fp8_input_store).  Each clause once; the
 * space applies them (rules.h).  Which modules and whether the store a
 * framework runs is data (data/frameworks.json: Megatron-Core runs them,
 * the others the default set, their selective recomputation being their
 * own, e.g. torchtitan's per-op checkpointing, and no fp8 store), applied
 * by rule_framework and the space's candidates (pp_framework_runs). */
static bool rcm_default(int modules) { return modules == pp_decisions[PP_DEC_RECOMPUTE_MODULES].def; }
static const char *rcm_refused(const pp_problem *prob, int modules)
{
    if (rcm_default(modules))
        return NULL;
    if ((modules & PP_RCM_MLA_UP_PROJ) && !pp_model_is_mla(&prob->model))
        return "mla_up_proj recomputes multi-latent attention's up-projections: the model has none";
    if ((modules & PP_RCM_MOE_ACT) && !pp_model_is_moe(&prob->model))
        return "moe_act recomputes the routed experts' activation: the model has no experts";
    if ((modules & PP_RCM_MOE) && !pp_model_is_moe(&prob->model))
        return "moe recomputes a MoE layer's block: the model has no experts";
    const pp_model *m = &prob->model;
    bool all_moe = pp_model_is_moe(m) && m->first_dense_layers <= 0 && m->moe_layer_freq <= 1;
    if ((modules & PP_RCM_MLP) && all_moe)
        return "mlp recomputes a dense layer's MLP: every layer of the model is a MoE layer (moe recomputes those)";
    if ((modules & PP_RCM_SHARED_EXPERTS) && !(pp_model_is_moe(m) && m->shared_ffn_hidden > 0))
        return "shared_experts recomputes a MoE layer's shared experts: the model has none";
    if ((modules & (PP_RCM_LAYERNORM | PP_RCM_MOE_ACT)) && prob->training.precision == PP_PREC_FP8)
        return "Megatron-Core refuses layernorm and moe_act recomputation with fp8 delayed scaling "
               "(precision fp8); fp8-current, mxfp8, nvfp4 and fp8-block run them";
    return NULL;
}

/* The sets the space offers: those a plan may name, less the redundant
 * ones (moe recomputes the whole MoE block, its activation and shared
 * experts included: moe_act and shared_experts add nothing to it; a plan or
 * a measured run may still name them, as Megatron-Core takes them). */
bool pp_recompute_modules_offered(const pp_problem *prob, int modules)
{
    if ((modules & PP_RCM_MOE) && (modules & (PP_RCM_MOE_ACT | PP_RCM_SHARED_EXPERTS)))
        return false;
    return modules > 0 && rcm_refused(prob, modules) == NULL;
}

bool pp_recompute_modules_fit(int recompute, int modules)
{
    return recompute == PP_RECOMPUTE_SELECTIVE || rcm_default(modules);
}

/* Megatron-Core's TransformerConfig.__post_init__ with
 * overlap_moe_expert_parallel_comm (megatron/core/transformer/
 * transformer_config.py at d98e8a64dd, the release data/frameworks.json
 * names, lines 3002-3046): "disable full recomputation when enabling
 * overlap_moe_expert_parallel_comm", "disable moe in recompute_modules"
 * (the moe module reruns the dispatch, which the overlap schedules apart)
 * and at most one MTP module (pp_moe_comm_offered).  Upstream of 2026
 * (002526d8) recomputes a whole model chunk under the overlap, its
 * all-to-alls exposed; the pinned release does not. */
bool pp_moe_overlap_fits_recompute(int a2a_overlap, int recompute, int modules)
{
    if (!a2a_overlap)
        return true;
    return recompute != PP_RECOMPUTE_FULL && !(recompute == PP_RECOMPUTE_SELECTIVE && (modules & PP_RCM_MOE));
}

static bool fp8_store_fits(const pp_problem *prob)
{
    return prob->model.gated_mlp && pp_precision_props(prob->training.precision)->low_gemm;
}

bool pp_fp8_act_store_offered(const pp_problem *prob)
{
    return pp_framework_runs(prob, PP_DEC_FP8_ACT_STORE, 1) && fp8_store_fits(prob);
}

static int rule_recompute_modules(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    if (!pp_recompute_modules_fit(pl->recompute, pl->recompute_modules))
        return pp_error_set(err, PP_EINPUT, "plan.recompute_modules",
                            "recompute_modules '%s' needs recompute selective (it is %s)",
                            pp_decisions[PP_DEC_RECOMPUTE_MODULES].names[pl->recompute_modules],
                            pp_recompute_name(pl->recompute));
    const char *why = rcm_refused(prob, pl->recompute_modules);
    if (why)
        return pp_error_set(err, PP_EINPUT, "plan.recompute_modules", "recompute_modules '%s': %s",
                            pp_decisions[PP_DEC_RECOMPUTE_MODULES].names[pl->recompute_modules], why);
    if (pl->fp8_act_store && !fp8_store_fits(prob))
        return pp_error_set(err, PP_EINPUT, "plan.fp8_activation_input_store",
                            "fp8_activation_input_store: a SwiGLU MLP's activation input is kept in fp8 in an "
                            "fp8-class recipe only (precision %s)",
                            pp_precision_name(prob->training.precision));
    return PP_OK;
}

/* The MoE token dispatcher and the all-to-all overlap (decisions.def),
 * where the framework runs them (data/frameworks.json): Megatron-Core
 * --moe-token-dispatcher-type flex --moe-enable-deepep and
 * --overlap-moe-expert-parallel-comm (both in its parser at core_v0.15.0),
 * torchtitan's expert_parallel_comm_backend "deepep" (v0.2.2).  DeepEP's
 * kernels run on NVIDIA GPUs of Hopper or newer (SM90's TMA and fp8; its
 * README: "Hopper GPUs (may support more architectures or devices later)",
 * NVLink inside a node and RDMA between nodes, which every catalog cluster
 * has): an NVIDIA GPU with fp8 tensor cores.  Megatron-Core's checks
 * (megatron/training/arguments.py at core_v0.15.0) run the overlap only
 * with expert parallelism and, with a pipeline, only interleaved ('moe a2a
 * overlap is only supported with vpp or dualpipev').  Each clause once; the
 * space applies them (rules.h). */
static bool deepep_hardware(const pp_problem *prob)
{
    const pp_gpu *g = &prob->cluster.gpu;
    return g->peak_tflops[PP_PREC_FP8] > 0.0 && strncmp(g->name, "AMD", 3) != 0;
}

bool pp_moe_comm_offered(const pp_problem *prob, pp_decision_id id)
{
    if (!pp_model_is_moe(&prob->model) || !pp_framework_runs(prob, id, 1))
        return false;
    /* "MTP layernum only supports 1 when enabling overlap_moe_expert_parallel_comm" */
    if (id == PP_DEC_MOE_A2A_OVERLAP && prob->training.mtp_layers > 1)
        return false;
    return id != PP_DEC_MOE_DISPATCHER || deepep_hardware(prob);
}

bool pp_moe_comm_fits_shape(const pp_plan *pl, pp_decision_id id)
{
    return pl->ep > 1 && (id == PP_DEC_MOE_DISPATCHER || pl->pp == 1 || pl->virtual_stages > 1);
}

void pp_plan_take_moe_settings(const pp_problem *prob, pp_plan *plan)
{
    if (prob->training.moe_deepep && pp_moe_comm_offered(prob, PP_DEC_MOE_DISPATCHER) &&
        pp_moe_comm_fits_shape(plan, PP_DEC_MOE_DISPATCHER))
        plan->moe_dispatcher = 1;
    if (prob->training.moe_a2a_overlap && pp_moe_comm_offered(prob, PP_DEC_MOE_A2A_OVERLAP) &&
        pp_moe_comm_fits_shape(plan, PP_DEC_MOE_A2A_OVERLAP) &&
        pp_moe_overlap_fits_recompute(1, plan->recompute, plan->recompute_modules))
        plan->moe_a2a_overlap = true;
}

/* Transformer Engine's all-gather context parallelism takes no packed
 * sequences: "CP implementation with KV all-gather does not support THD
 * format yet" (AttnFuncWithCPAndKVAllGather asserts qkv_format != "thd").
 * Its ring takes no sliding window: attn_forward_func_with_cp asserts
 * "not sliding_window_attn or cp_comm_type in ['a2a', 'all_gather']"
 * (transformer_engine/pytorch/attention/dot_product_attention/
 * context_parallel.py), and no other framework's ring is cited to.  Its
 * all-to-alls take both: each rank attends the whole sequence of its heads
 * (AttnFuncWithCPAndQKVOA2A: sliding windows through the fused kernels,
 * packed samples in the THD format). */
static bool cp_packed(const pp_problem *prob)
{
    return prob->training.packed_sample_tokens > 0.0 && prob->training.packed_sample_tokens < prob->model.seq_len;
}

static bool cp_windowed(const pp_problem *prob)
{
    return pp_windowed_layers(&prob->model, pp_attention_span(&prob->model, &prob->training)) > 0;
}

static bool cp_comm_fits(const pp_problem *prob, int value)
{
    if (value == PP_CP_A2A) /* the whole sequence on each rank: windows and packed samples as without cp */
        return true;
    return value == PP_CP_ALL_GATHER ? !cp_packed(prob) : !cp_windowed(prob);
}

/* Transformer Engine's all-to-all context parallelism hands each rank 1/c
 * of its TP rank's heads: "cp_comm_type='a2a' requires num_heads % cp_size
 * == 0 for Q, K, V" (AttnFuncWithCPAndQKVOA2A.forward), the query heads
 * and the key/value heads (multi-head latent attention: every head its own
 * keys). */
long pp_cp_a2a_kv_heads(const pp_model *m)
{
    return pp_model_is_mla(m) ? m->heads : m->kv_heads;
}

bool pp_cp_a2a_splits_heads(long heads, long kv_heads, long tp, long cp)
{
    return tp > 0 && cp > 0 && heads % tp == 0 && kv_heads % tp == 0 && (heads / tp) % cp == 0 &&
           (kv_heads / tp) % cp == 0;
}

static bool cp_a2a_splits_heads(const pp_problem *prob, const pp_plan *pl)
{
    return pp_cp_a2a_splits_heads(prob->model.heads, pp_cp_a2a_kv_heads(&prob->model), pl->tp, pl->cp);
}

/* A 16-bit cast of the data-parallel gradients is the type they are
 * reduced in (pp_plan_grad_reduce, frameworks.c): where the training
 * reduces in 16 bits already it is the run without it, so the space does
 * not offer it as a plan of its own (eval prices it as that run). */
bool pp_dp_cast_is_noop(const pp_problem *prob, int codec)
{
    const pp_codec *c = codec > 0 && codec < prob->n_codecs ? &prob->codecs[codec] : NULL;
    return c && c->cast && c->bits_per_value == 16.0 && prob->training.grad_reduce_dtype != PP_PREC_FP32;
}

static bool dp_codec_changes_reduction(const pp_problem *prob, int value)
{
    return !pp_dp_cast_is_noop(prob, value);
}

/* The option rules that read only the problem and the option's value: the
 * space offers no value one of them refuses (pp_option_offered). */
static const struct {
    pp_decision_id id;
    bool (*fits)(const pp_problem *prob, int value);
} OPTION_RULES[] = {
    {PP_DEC_CP_COMM, cp_comm_fits},
    {PP_DEC_RECOMPUTE, recompute_fits_graphs},
    {PP_DEC_CODEC_DP, dp_codec_changes_reduction},
};

bool pp_option_offered(const pp_problem *prob, pp_decision_id id, int value)
{
    if (!pp_framework_runs(prob, id, value))
        return false;
    for (size_t i = 0; i < sizeof OPTION_RULES / sizeof OPTION_RULES[0]; i++)
        if (OPTION_RULES[i].id == id && !OPTION_RULES[i].fits(prob, value))
            return false;
    return true;
}

static int rule_cp_comm(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    if (pl->cp > 1 && pl->cp_comm == PP_CP_A2A && !cp_a2a_splits_heads(prob, pl))
        return pp_error_set(err, PP_EINPUT, "plan.cp_comm",
                            "cp_comm a2a: Transformer Engine's all-to-all context parallelism needs each tensor-parallel "
                            "rank's query and key/value heads (%s: %d and %d over tp %d) to divide by cp %d",
                            prob->model.name, prob->model.heads, (int)pp_cp_a2a_kv_heads(&prob->model), pl->tp, pl->cp);
    if (pl->cp > 1 && !cp_comm_fits(prob, pl->cp_comm)) /* without cp nothing is exchanged */
        return pl->cp_comm == PP_CP_ALL_GATHER
                   ? pp_error_set(err, PP_EINPUT, "plan.cp_comm",
                                  "cp_comm all_gather: Transformer Engine's all-gather context parallelism takes no "
                                  "packed sequences (training.packed_sample_tokens); use p2p")
                   : pp_error_set(err, PP_EINPUT, "plan.cp_comm",
                                  "cp_comm p2p: Transformer Engine's ring attention takes no sliding window (%s: "
                                  "%d tokens); use all_gather",
                                  prob->model.name, prob->model.sliding_window);
    return PP_OK;
}

static int rule_moe_comm(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    bool moe = pp_model_is_moe(&prob->model);
    if (pl->moe_dispatcher == 1) {
        if (!moe)
            return pp_error_set(err, PP_EINPUT, "plan.moe_dispatcher",
                                "moe_dispatcher deepep dispatches tokens to experts: %s has none", prob->model.name);
        if (!deepep_hardware(prob))
            return pp_error_set(err, PP_EINPUT, "plan.moe_dispatcher",
                                "moe_dispatcher deepep: DeepEP's kernels need an NVIDIA GPU of Hopper or newer "
                                "(fp8 tensor cores), not %s",
                                prob->cluster.gpu.name);
        if (!pp_moe_comm_fits_shape(pl, PP_DEC_MOE_DISPATCHER))
            return pp_error_set(err, PP_EINPUT, "plan.moe_dispatcher",
                                "moe_dispatcher deepep needs expert parallelism (ep > 1): with ep 1 nothing is "
                                "dispatched");
    }
    if (pl->moe_a2a_overlap) {
        if (!moe)
            return pp_error_set(err, PP_EINPUT, "plan.moe_a2a_overlap",
                                "moe_a2a_overlap hides the expert all-to-alls: %s has no experts", prob->model.name);
        if (!pp_moe_comm_fits_shape(pl, PP_DEC_MOE_A2A_OVERLAP))
            return pp_error_set(err, PP_EINPUT, "plan.moe_a2a_overlap",
                                "moe_a2a_overlap needs expert parallelism (ep > 1) and, with a pipeline, the "
                                "interleaved schedule (virtual_stages > 1): Megatron-Core runs it only so (ep=%d "
                                "pp=%d virtual_stages=%d)",
                                pl->ep, pl->pp, pl->virtual_stages);
        if (!pp_moe_overlap_fits_recompute(pl->moe_a2a_overlap, pl->recompute, pl->recompute_modules))
            return pp_error_set(err, PP_EINPUT, "plan.moe_a2a_overlap",
                                "moe_a2a_overlap: Megatron-Core runs the all-to-all overlap without full "
                                "recomputation and without the moe recompute module (recompute %s, modules %s)",
                                pp_recompute_name(pl->recompute),
                                pp_decisions[PP_DEC_RECOMPUTE_MODULES].names[pl->recompute_modules]);
        if (prob->training.mtp_layers > 1)
            return pp_error_set(err, PP_EINPUT, "plan.moe_a2a_overlap",
                                "moe_a2a_overlap: Megatron-Core runs the all-to-all overlap with at most one "
                                "multi-token-prediction module (training.mtp_layers is %d)",
                                prob->training.mtp_layers);
    }
    return PP_OK;
}

/* The rules in the order they are tried, each with the id
 * pp_plan_broken_rule reports (PP_RULE_OTHER: the message names it). */
static const struct {
    rule_fn check;
    pp_rule id;
} RULES[] = {
    {rule_ranges, PP_RULE_OTHER},
    {rule_framework, PP_RULE_FRAMEWORK},
    {rule_gpu_count, PP_RULE_OTHER},
    {rule_tp_divides_heads, PP_RULE_TP_SPLIT},
    {rule_tp_in_node, PP_RULE_TP_NODE},
    {rule_chunks_hold_layers, PP_RULE_CHUNKS},
    {rule_stages_hold_layers, PP_RULE_STAGES},
    {rule_interleave_needs_pp, PP_RULE_INTERLEAVE_PP},
    {rule_cp_divides_sequence, PP_RULE_CP_SEQUENCE},
    {rule_sp_needs_tp, PP_RULE_OTHER},
    {rule_batch_split, PP_RULE_BATCH},
    {rule_microbatch_count, PP_RULE_OTHER},
    {rule_interleave_microbatches, PP_RULE_INTERLEAVE_MICROBATCHES},
    {rule_tp_grid, PP_RULE_OTHER},
    {rule_codecs, PP_RULE_OTHER},
    {rule_params_codec, PP_RULE_OTHER},
    {rule_moe, PP_RULE_OTHER},
    {rule_tp_overlap, PP_RULE_OTHER},
    {rule_recompute_modules, PP_RULE_OTHER},
    {rule_moe_comm, PP_RULE_OTHER},
    {rule_cp_comm, PP_RULE_OTHER},
};

/* The first rule the plan breaks; a fixed plan skips the framework's rule
 * (eval prices it and marks it, pp_plan_runnable). */
static pp_rule broken_rule(const pp_problem *prob, const pp_plan *plan, bool fixed, pp_error *err)
{
    for (size_t i = 0; i < sizeof RULES / sizeof RULES[0]; i++)
        if (!(fixed && RULES[i].id == PP_RULE_FRAMEWORK) && RULES[i].check(prob, plan, err))
            return RULES[i].id;
    return PP_RULE_NONE;
}

pp_rule pp_plan_broken_rule(const pp_problem *prob, const pp_plan *plan, pp_error *err)
{
    return broken_rule(prob, plan, false, err);
}

int pp_plan_check(const pp_problem *prob, const pp_plan *plan, pp_error *err)
{
    return broken_rule(prob, plan, false, err) == PP_RULE_NONE ? PP_OK : PP_EINPUT;
}

int pp_fixed_plan_check(const pp_problem *prob, const pp_plan *plan, pp_error *err)
{
    pp_problem anywhere = *prob;
    anywhere.allow_tp_across_nodes = true;
    return broken_rule(&anywhere, plan, true, err) == PP_RULE_NONE ? PP_OK : PP_EINPUT;
}
