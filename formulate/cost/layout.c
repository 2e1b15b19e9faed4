/*
 * layout.c: where the layers and the ranks of a plan sit, and what one GPU
 * of a stage holds (docs/cost-model.md §3, §4, §8 and §9).
 *
 * Stages: L layers over p stages (and v chunks), evenly or with the middle
 * stages holding ceil(L/p) and the first and last the rest (Megatron-LM's
 * --decoder-first/last-pipeline-num-layers; Llama 3 §3.3.2); which of a
 * stage's layers are MoE layers.  The schedule (1F1B, interleaved; Narayanan
 * et al. 2021 §2.2):
 *
 *   m = global_batch / (dp micro_batch),   factor = m + (p-1)/v,
 *   fill/drain slot = (sum of the stages - the slowest) / (p-1)
 *
 * Ranks follow Megatron-LM's order (tp fastest, then cp, dp, pp): a group of
 * n ranks `stride` apart has min(n, gpus_per_node / stride) of them in one
 * node.  The replicas that share ZeRO's shards are dp x cp; an expert's are
 * tp dp cp / (etp ep), stride etp ep (Megatron-Core's MoE parallel folding,
 * Liu et al. 2025, arXiv 2504.14960).  Tensor parallelism lays a grid of
 * side q over its t ranks (t = q^2 in 2D, d q^2 in 2.5D, q^3 in 3D; Bian et
 * al. 2021).  A GPU of a stage holds
 *
 *   (layers of the stage x layer parameters + its embeddings) / weight shard
 *
 * with a MoE stage's routed experts split by ep x etp instead.  Layout reads
 * the model (flops.c) and nothing above it.
 */
#include "cost_layout.h"

#include <math.h>

#define MOE_DEFAULT_IMBALANCE 1.2

/* ---- the stages ------------------------------------------------------------- */

/* The stages of a split whose model chunks hold a (the model's first),
 * k (each middle one) and b (the model's last) decoder layers, over p
 * stages of v chunks each: stage s holds chunks s, s + p, ... */
static bool stages_of_chunks(long L, long p, long v, long a, long k, long b, bool embedding_loss, pp_stage_split *out)
{
    long C = p * v;
    if (a < 0 || k < 0 || b < 0 || (C >= 3 && a + (C - 2) * k + b != L) || (C == 2 && a + b != L) ||
        (C == 1 && a != L))
        return false;
    long first = C == 1 ? a : a + (v - 1) * k, last = C == 1 ? a : (v - 1) * k + b, middle = C >= 3 ? v * k : first;
    if (first < 1 || last < 1 || (p >= 3 && middle < 1))
        return false;
    out->first = (int)first;
    out->middle = (int)middle;
    out->last = (int)last;
    out->uneven = first != middle || last != middle;
    out->chunk = v > 1 ? (int)k : 0;
    out->first_chunk = (int)a;
    out->last_chunk = (int)(C == 1 ? a : b);
    out->embedding_loss = embedding_loss;
    return true;
}

/* The L decoder layers, the embedding, the loss and each multi-token-
 * prediction module, each counted as a layer, spread over the C = p v
 * chunks as evenly as possible: the middle chunks hold k = ceil(U / C) of
 * the U units, the model's first and last chunk share what is left (the
 * first no less: the last also runs the logits), the last at least its
 * loss and MTP modules.  Megatron-Core's --pipeline-model-parallel-layout;
 * NVIDIA's DeepSeek-V3 recipe runs 61 layers on 16 x 2 chunks as E+1,
 * 30 x 2, and the MTP module and the loss alone: this split. */
static bool split_balanced(long L, long p, long v, long mtp, pp_stage_split *out)
{
    long C = p * v, U = L + 2 + mtp, tail = 1 + mtp;
    if (C == 1)
        return stages_of_chunks(L, p, v, L, L, L, false, out);
    long k = (U + C - 1) / C, rest = U - (C - 2) * k;
    if (C == 2) {
        k = 0;
        rest = U;
    }
    long last = rest / 2 > tail ? rest / 2 : tail, first = rest - last;
    if (first < 1)
        return false;
    return stages_of_chunks(L, p, v, first - 1, C == 2 ? 0 : k, last - tail, true, out);
}

/* Every chunk alike: p v divides L. */
static bool split_even(long L, long p, long v, pp_stage_split *out)
{
    long c = L / (p * v);
    return L % (p * v) == 0 && stages_of_chunks(L, p, v, c, c, c, false, out);
}

/* The embedding and the loss counted as layers, every chunk alike: chunks
 * of c = (L + 2) / (p v) >= 2, the model's first and last one layer
 * lighter (Megatron-Core's --account-for-embedding-in-pipeline-split and
 * --account-for-loss-in-pipeline-split; NeMo's Llama 3.1 405B recipe puts
 * 126 layers on 8 x 8 chunks this way). */
static bool split_embedding_loss(long L, long p, long v, pp_stage_split *out)
{
    long c = (L + 2) / (p * v);
    return (L + 2) % (p * v) == 0 && c >= 2 && stages_of_chunks(L, p, v, c - 1, c, c - 1, true, out);
}

/* Without interleaving, the middle stages hold k = ceil(L/p) layers and
 * the first and the last share what is left, the last no more than the
 * first (it also runs the logits and the loss): Megatron-LM's
 * --decoder-first/last-pipeline-num-layers; Llama 3 405B trained 126
 * layers on 16 stages as 7 + 14 x 8 + 7 (Llama Team 2024 §3.3.2). */
static bool split_lighter_ends(long L, long p, pp_stage_split *out)
{
    long k = (L + p - 1) / p, rest = L - (p - 2) * k;
    if (p == 2) {
        k = (L + 1) / 2;
        rest = L;
    }
    long last = rest / 2, first = rest - last;
    if (last < 1 || first > k)
        return false;
    *out = (pp_stage_split){.first = (int)first, .middle = (int)k, .last = (int)last, .uneven = true,
                            .first_chunk = (int)first, .last_chunk = (int)last};
    return true;
}

bool pp_stage_layers(const pp_problem *prob, const pp_plan *plan, pp_stage_split *out)
{
    long L = prob->model.layers, p = plan->pp, v = plan->virtual_stages;
    *out = (pp_stage_split){0};
    if (p < 1 || v < 1 || L < 1)
        return false;
    switch (plan->pipeline_layout) {
    case PP_LAYOUT_EVEN: return split_even(L, p, v, out);
    case PP_LAYOUT_EMBEDDING_LOSS: return split_embedding_loss(L, p, v, out);
    case PP_LAYOUT_BALANCED: return split_balanced(L, p, v, pp_mtp_layers(prob), out);
    case PP_LAYOUT_AUTO:
        /* Megatron-Core's split from pp and v alone: even; else, with
         * interleaving, the embedding and the loss as layers, without it the
         * first and last stages lighter; else (61 layers on 8 x 4 chunks)
         * the balanced layout, which it runs from a layout string. */
        if (split_even(L, p, v, out))
            return true;
        if (v > 1 ? split_embedding_loss(L, p, v, out) : split_lighter_ends(L, p, out))
            return true;
        *out = (pp_stage_split){0};
        return split_balanced(L, p, v, pp_mtp_layers(prob), out);
    default: return false;
    }
}

/* Multi-token prediction (training.mtp_layers; Megatron-Core's
 * --mtp-num-layers, DeepSeek-V3 arXiv 2412.19437 section 2.2): each module
 * runs one layer of the model's last layer's kind (a MoE layer for
 * DeepSeek-V3) on the last pipeline stage, where Megatron-Core puts every
 * MTP layer unless a layout string places them (docs/user-guide/features/
 * multi_token_prediction.md at d98e8a64dd, "Pipeline Parallel Layout for
 * MTP": "By default, all MTP layers sit on the last pipeline stage"); the
 * module's projection, norms and second pass through the output head are
 * the stage's head (stage.c). */
int pp_mtp_layers(const pp_problem *prob)
{
    return prob->training.mtp_layers > 0 ? prob->training.mtp_layers : 0;
}

/* Whether the MTP modules' layers are MoE layers: the model's last layer's kind. */
static bool mtp_is_moe(const pp_model *m)
{
    return pp_layer_is_moe(m, m->layers - 1);
}

int layers_per_stage(const pp_problem *prob, const pp_plan *plan)
{
    pp_stage_split s;
    pp_stage_layers(prob, plan, &s);
    int most = s.middle > s.first ? s.middle : s.first, mtp = pp_mtp_layers(prob);
    if (mtp > 0 && s.last + mtp > most) /* the last stage with its MTP layers */
        most = s.last + mtp;
    return most;
}

int layers_on_stage(const pp_problem *prob, const pp_plan *plan, int stage)
{
    pp_stage_split s;
    pp_stage_layers(prob, plan, &s);
    int mtp = stage >= plan->pp - 1 ? pp_mtp_layers(prob) : 0;
    if (stage == 0)
        return s.first + mtp;
    return stage >= plan->pp - 1 ? s.last + mtp : s.middle;
}

static int moe_layers_of_split(const pp_problem *prob, const pp_plan *plan, const pp_stage_split *split, int stage,
                               int n);

void stage_counts_of_split(const pp_problem *prob, const pp_plan *plan, const pp_stage_split *sp, bool ok, int stage,
                           int *n, int *n_moe)
{
    *n = stage == 0 ? sp->first : stage >= plan->pp - 1 ? sp->last : sp->middle;
    *n_moe = ok && pp_model_is_moe(&prob->model) ? moe_layers_of_split(prob, plan, sp, stage, *n) : 0;
    int mtp = stage >= plan->pp - 1 ? pp_mtp_layers(prob) : 0; /* the MTP layers, on the last stage */
    *n += mtp;
    if (ok && mtp_is_moe(&prob->model))
        *n_moe += mtp;
}

/* The layers of `stage` (as layers_on_stage) and the MoE layers among
 * them (as moe_layers_on_stage), from one split. */
static void stage_layer_counts(const pp_problem *prob, const pp_plan *plan, int stage, int *n, int *n_moe)
{
    pp_stage_split sp;
    bool ok = pp_stage_layers(prob, plan, &sp);
    stage_counts_of_split(prob, plan, &sp, ok, stage, n, n_moe);
}

int moe_layers_on_stage(const pp_problem *prob, const pp_plan *plan, int stage)
{
    int n, n_moe;
    stage_layer_counts(prob, plan, stage, &n, &n_moe);
    return n_moe;
}

/* The MoE layers of a stage of n layers.  Its chunks (v > 1: chunk
 * g = j pp + stage, the model's first and last as the split says) run in
 * model order, so where every layer from first_dense_layers on is a MoE
 * layer (moe_layer_freq 1) they are its n layers less those of the dense
 * prefix, which only its first chunks can hold; else counted chunk by
 * chunk (pp_moe_layers_in). */
static int moe_layers_of_split(const pp_problem *prob, const pp_plan *plan, const pp_stage_split *split, int stage,
                               int n)
{
    const pp_model *m = &prob->model;
    bool every = m->moe_layer_freq <= 1;
    long dense_end = m->first_dense_layers > 0 ? m->first_dense_layers : 0;
    long v = plan->virtual_stages > 1 ? plan->virtual_stages : 1, n_chunks = (long)plan->pp * v, c = 0;
    for (long j = 0; j < v; j++) {
        long start, len;
        if (v > 1) {
            long g = j * plan->pp + stage;
            start = g == 0 ? 0 : split->first_chunk + (g - 1) * split->chunk;
            len = g == 0 ? split->first_chunk : g == n_chunks - 1 ? split->last_chunk : split->chunk;
        } else {
            start = stage == 0 ? 0 : split->first + (long)(stage - 1) * split->middle;
            len = n;
        }
        if (!every) {
            c += pp_moe_layers_in(m, start, len);
        } else if (start < dense_end) {
            c += len < dense_end - start ? len : dense_end - start; /* its dense layers */
        } else {
            break; /* the later chunks start later still */
        }
    }
    return every ? n - (int)c : (int)c;
}

/* ---- the schedule ----------------------------------------------------------- */

int pp_microbatches(const pp_problem *prob, const pp_plan *plan)
{
    long per_pipeline = (long)plan->dp * plan->micro_batch;
    if (per_pipeline <= 0 || prob->training.global_batch % per_pipeline != 0)
        return 0;
    long m = prob->training.global_batch / per_pipeline;
    return m > 0x7fffffffL ? 0 : (int)m;
}

/* A pipeline of p stages with per-micro-batch times t_i runs m micro-batches
 * in m max t + sum of the others (the makespan of a linear pipeline; 1F1B
 * with uniform stages gives Narayanan et al.'s (m + p - 1) t): a fill or
 * drain slot costs the mean of the stages other than the slowest.  The last
 * stage's logits and loss make it the slowest, and the bubble does not pay
 * them p - 1 times.  Interleaving divides the p - 1 slots by v as before. */
double pipeline_bubble_slot_s(const pp_plan *plan, double all_stages_s, double slowest_s)
{
    return plan->pp > 1 ? fmax(0.0, (all_stages_s - slowest_s) / (plan->pp - 1)) : slowest_s;
}

/* Megatron-Core runs the micro-batches of an interleaved schedule in groups
 * of N per model chunk, N from pp to m (schedules.py,
 * forward_backward_pipelining_with_interleaving at core_v0.15.0: "The
 * number of contiguous micro-batches in a virtual pipeline stage should
 * range in [PP, M]"), and refuses a last group shorter than pp ("Otherwise,
 * it introduces dependency bubbles").  With the default N = pp, m must be a
 * multiple of pp; a larger N runs any m >= pp, at the memory of more
 * warm-up forwards (memory.c). */
int pp_vp_microbatch_group(int pp, int virtual_stages, int m)
{
    if (virtual_stages <= 1)
        return pp;
    if (m < pp)
        return 0;
    /* a remainder of pp or more comes within a few pp in practice; past
     * 64 pp the whole of m is one group, which always runs */
    long last = (long)pp * 64 < m ? (long)pp * 64 : m;
    for (long n = pp; n <= last; n++)
        if (m % n == 0 || m % n >= pp)
            return (int)n;
    return m;
}

/* The model-chunk forwards pipeline rank `stage` runs before its first
 * backward, with m micro-batches per pipeline; it runs as many backwards
 * alone after its last forward.  1F1B: p - i (at most m).  Interleaved
 * (Megatron-Core's forward_backward_pipelining_with_interleaving,
 * schedules.py): 2 (p - i - 1) + (v - 1) N warm-up forwards, N the
 * micro-batch group (pp_vp_microbatch_group, p by default), all m v of them
 * when m == p (every forward runs first), then one more forward before the
 * first backward: min(m v, warm-up + 1).  Memory (memory.c) holds these
 * chunks' activations at the peak; the combined 1F1B schedule that hides
 * expert all-to-alls (step.c) pairs every other forward with a backward
 * and leaves these alone. */
long pp_warmup_chunks(const pp_plan *plan, int stage, int m)
{
    int p = plan->pp, v = plan->virtual_stages;
    if (v <= 1)
        return p - stage < m ? p - stage : m;
    long total = (long)m * v;
    long n = pp_vp_microbatch_group(p, v, m);
    long warm = m == p ? total : 2L * (p - stage - 1) + (long)(v - 1) * n;
    return warm + 1 < total ? warm + 1 : total;
}

double pp_pipeline_factor(const pp_problem *prob, const pp_plan *plan)
{
    /* 1F1B: m slots of work plus (p-1) of fill and drain; interleaving with
     * v chunks shrinks the bubble to (p-1)/v (Narayanan et al. 2021 §2.2). */
    return pp_microbatches(prob, plan) + (double)(plan->pp - 1) / plan->virtual_stages;
}

/* ---- the ranks -------------------------------------------------------------- */

/* Whether a group of `size` ranks, `stride` apart, spans more than one node
 * (consecutive ranks share a node, gpus_per_node of them). */
bool group_inter_node(const pp_problem *prob, long stride, long size)
{
    return stride * size > prob->cluster.gpus_per_node;
}

/* Ranks of a group (of `size` ranks, `stride` apart) that share a node. */
long ranks_per_node(const pp_problem *prob, long stride, long size)
{
    long gpn = prob->cluster.gpus_per_node;
    if (stride >= gpn)
        return 1;
    long k = gpn / stride;
    return k < size ? k : size;
}

long pp_replica_ranks(const pp_plan *plan)
{
    return (long)plan->dp * plan->cp;
}

long pp_expert_replica_ranks(const pp_plan *plan)
{
    long all = (long)plan->tp * plan->dp * plan->cp, split = (long)plan->etp * plan->ep;
    return split > 0 && all % split == 0 ? all / split : 1;
}

void moe_expert_dp_group(const pp_problem *prob, const pp_plan *plan, long *n, long *k)
{
    /* the expert-data-parallel ranks, stride etp ep (parallel folding) */
    *n = pp_expert_replica_ranks(plan);
    *k = ranks_per_node(prob, (long)plan->etp * plan->ep, *n);
    if (*k < 1)
        *k = 1;
}

int pp_tp_grid_side(const pp_plan *plan)
{
    long t = plan->tp, d = plan->tp_mode == PP_TP_2P5D ? plan->tp_depth : 1;
    if (t < 1 || d < 1 || t % d)
        return 0;
    long cells = t / d; /* q^2 (2D, 2.5D), q^3 (3D), t (1D) */
    if (plan->tp_mode == PP_TP_1D)
        return plan->tp_depth == 1 ? (int)t : 0;
    int power = plan->tp_mode == PP_TP_3D ? 3 : 2;
    for (long q = 1; q <= cells; q++) {
        long v = power == 3 ? q * q * q : q * q;
        if (v == cells)
            return (int)q;
        if (v > cells)
            break;
    }
    return 0;
}

tp_grid grid_of(const pp_plan *plan)
{
    tp_grid g = {.mode = plan->tp_mode, .t = plan->tp, .q = plan->tp, .d = 1, .rows = 1, .wshard = plan->tp};
    if (plan->tp_mode == PP_TP_1D)
        return g;
    int q = pp_tp_grid_side(plan);
    g.q = q > 0 ? q : 1;
    if (plan->tp_mode == PP_TP_2P5D)
        g.d = plan->tp_depth > 0 ? plan->tp_depth : 1;
    g.rows = plan->tp_mode == PP_TP_3D ? g.q * g.q : g.d * g.q;
    g.wshard = plan->tp_mode == PP_TP_2P5D ? g.q * g.q : g.t;
    return g;
}

/* The logits one GPU holds for the loss: its vocabulary slice, or the whole
 * vocabulary when the output layer gathers them (training.loss_parallel). */
double pp_loss_vocab_share(const pp_training *t, const pp_plan *plan)
{
    return !t->loss_gathered || plan->tp_mode != PP_TP_1D ? 1.0 / plan->tp : 1.0; /* grids shard every tensor */
}

/* ---- what a GPU of a stage holds -------------------------------------------- */

double stage_embedding_params(const pp_problem *prob, const pp_plan *plan, int stage)
{
    const pp_model *m = &prob->model;
    double emb = pp_embedding_params(m);
    /* input table on stage 0, output (or its tied copy) on the last, none
     * in between */
    double embeddings = stage == 0 || stage == plan->pp - 1 ? emb : 0.0;
    if (plan->pp == 1 && !m->tie_embeddings)
        embeddings = 2.0 * emb;
    /* MTP modules: the 2h x h projection and three norms each (the
     * transformer layer is counted with the stage's layers), and on a last
     * stage without it the input embedding they look the shifted tokens up
     * in (Megatron-Core builds it there, its gradients summed with the
     * first stage's as a tied embedding's) */
    int mtp = stage == plan->pp - 1 ? pp_mtp_layers(prob) : 0;
    if (mtp > 0)
        embeddings += mtp * pp_mtp_head_params(m) + (plan->pp > 1 && !m->tie_embeddings ? emb : 0.0);
    return embeddings;
}

/* Parameters held by one GPU of the given stage before ZeRO. */
double stage_params(const pp_problem *prob, const pp_plan *plan, int stage)
{
    const pp_model *m = &prob->model;
    double embeddings = stage_embedding_params(prob, plan, stage);
    /* Split by t, except 2.5D, which replicates its q x q weight blocks over
     * the d layers of the grid (Tesseract). */
    tp_grid g = grid_of(plan);
    if (pp_model_is_moe(m)) /* dense and MoE layers differ; experts split by ep and etp */
        return moe_stage_params(prob, plan, stage);
    return (layers_on_stage(prob, plan, stage) * pp_layer_params(m) + embeddings) / g.wshard;
}

/* LoRA freezes every weight of the model and trains the adapters of the
 * stage's layers: only they have gradients, optimizer states and
 * data-parallel traffic (Hu et al. 2021 section 4.2). */
double stage_trainable_params(const pp_problem *prob, const pp_plan *plan, int stage)
{
    if (prob->training.lora_rank <= 0)
        return stage_params(prob, plan, stage);
    return layers_on_stage(prob, plan, stage) * pp_lora_layer_params(&prob->model, &prob->training, plan->tp);
}

/* The routed experts' parameters of nm MoE layers on one GPU. */
static double expert_params_of(const pp_model *m, const pp_plan *plan, int nm)
{
    double per_layer = m->experts * mlp_params(m, m->moe_ffn_hidden);
    return nm * per_layer / ((double)plan->ep * plan->etp);
}

double stage_expert_params(const pp_problem *prob, const pp_plan *plan, int stage)
{
    const pp_model *m = &prob->model;
    if (!pp_model_is_moe(m))
        return 0.0;
    return expert_params_of(m, plan, moe_layers_on_stage(prob, plan, stage));
}

double moe_stage_params_of(const pp_problem *prob, const pp_plan *plan, int stage, int n, int nm, double *expert)
{
    const pp_model *m = &prob->model;
    double embeddings = stage_embedding_params(prob, plan, stage);
    /* a MoE layer without its routed experts */
    double moe_layer = attention_params(m) + 4.0 * m->hidden + router_params(m) + mlp_params(m, m->shared_ffn_hidden);
    double dense = (n - nm) * pp_layer_params(m) + nm * moe_layer + embeddings;
    *expert = pp_model_is_moe(m) ? expert_params_of(m, plan, nm) : 0.0;
    return dense / plan->tp + *expert;
}

double moe_stage_params(const pp_problem *prob, const pp_plan *plan, int stage)
{
    int n, nm;
    stage_layer_counts(prob, plan, stage, &n, &nm);
    double expert;
    return moe_stage_params_of(prob, plan, stage, n, nm, &expert);
}

/* The load of the busiest expert over the mean, training.moe_load_imbalance
 * (default 1.2): Switch Transformer trains with capacity factors 1.0-1.25
 * (Fedus et al. 2021 §2.2), which bound what an auxiliary loss leaves;
 * DeepSeek-V3's auxiliary-loss-free balancing (arXiv 2412.19437 §2.1.2)
 * keeps it lower (1.1 is a fair value there).  Under the plan's capacity
 * factor c (moe_capacity_factor: each rank's router keeps at most
 * ceil(c x its tokens x topk / experts) of its tokens for an expert, the
 * lowest-probability ones dropped, and without
 * --moe-pad-expert-input-to-capacity runs only those it keeps; Megatron-Core
 * megatron/core/transformer/moe/moe_utils.py, get_capacity and
 * apply_router_token_dropping, at d98e8a64) the busiest takes min(load, c).
 * The all-to-alls wait for the GPU of the busiest experts alike: it
 * receives this multiple of the mean (moe.c).  Without expert parallelism
 * (ep 1) every GPU holds every expert, or its etp slice of each, and runs
 * exactly its own tokens' k copies however the router spreads them: no GPU
 * is busier than the mean, and no all-to-all waits for one. */
static const double CAPACITY_FACTOR[] = {0.0 /* none: dropless */, 1.0, 1.1, 1.25, 1.5, 2.0};

double moe_load_imbalance(const pp_problem *prob, const pp_plan *plan)
{
    if (plan->ep <= 1)
        return 1.0;
    double l = prob->training.moe_load_imbalance;
    l = l >= 1.0 ? l : MOE_DEFAULT_IMBALANCE;
    int c = plan->moe_capacity_factor;
    if (c > 0 && c < (int)(sizeof CAPACITY_FACTOR / sizeof CAPACITY_FACTOR[0]) && CAPACITY_FACTOR[c] < l)
        l = CAPACITY_FACTOR[c];
    return l;
}
