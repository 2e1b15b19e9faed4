/*
 * test_planner.c: the planner (solve/planner.c, solve/enumerate.c) and the
 * MIP behind it (formulate/space/space.c, mip.c, cons_*.c).
 *
 * The MIP is exact: on hundreds of random problems, with the tensor-parallel
 * mode (1D, 2D, 2.5D, 3D) and the compression of every dimension free, its
 * optimum is the enumerator's, plan for plan where there is no tie; fixing every decision
 * gives the cost model's step time of that plan; the top K are the
 * enumerator's top K; and the exported model, solved by other solvers, has
 * the same optimum.
 */
#include "cons.h"
#include "costmodel.h"
#include "error.h"
#include "mip_cache.h"
#include "planner.h"
#include "rules.h"
#include "space.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define REL_TOL 1e-9

/* ---- problems ------------------------------------------------------------ */

/* A DGX A100 cluster with the catalog's codecs: the default example of the
 * README when nodes = 128 and batch = 1536. */
static pp_problem a100_problem(pp_model m, int gpus_per_node, long nodes, long batch)
{
    pp_problem p = pp_test_problem(PP_TEST_DGX_A100, m, nodes, batch);
    p.cluster.gpus_per_node = gpus_per_node;
    p.error_tolerance[PP_DIM_DP] = 0.02;
    pp_test_add_codec(&p, "zfp16", true, 16, 0, 40, 0.00021);
    pp_test_add_codec(&p, "zfp8", true, 8, 0, 40, 0.054);
    pp_test_add_codec(&p, "zfp4", true, 4, 0, 40, 0.97);
    p.codecs[pp_test_add_codec(&p, "mpc", false, 0, 1.09, 50, 0)].lossless_ratio_16 = 0.85;
    return p;
}

static pp_problem random_problem(pp_rng *r)
{
    static const int heads[] = {4, 8, 12, 16, 32}, head_dim[] = {32, 64, 128};
    static const int layers[] = {2, 3, 4, 6, 8, 12, 16, 24, 32, 48}, seqs[] = {128, 512, 1024, 2048, 4096};
    static const int mems[] = {8, 16, 24, 40, 80, 141}, gpn[] = {4, 8};
    static const int nodes[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64}, mults[] = {1, 2, 3, 4, 6, 8, 16};
    pp_model m;
    memset(&m, 0, sizeof m);
    strcpy(m.name, "random");
    m.heads = pp_rng_pick(r, heads, 5);
    m.hidden = m.heads * pp_rng_pick(r, head_dim, 3);
    do
        m.kv_heads = pp_rng_int(r, 1, m.heads);
    while (m.heads % m.kv_heads);
    m.gated_mlp = pp_rng_int(r, 0, 1);
    m.ffn_hidden = m.hidden * pp_rng_int(r, 2, 4);
    m.layers = pp_rng_pick(r, layers, 10);
    m.vocab = pp_rng_int(r, 1000, 60000);
    m.seq_len = pp_rng_pick(r, seqs, 5);
    m.tie_embeddings = pp_rng_int(r, 0, 1);

    /* A node count with small factors and a batch that a data-parallel
     * degree divides, with now and then a prime node count (divisibility). */
    int per_node = pp_rng_pick(r, gpn, 2);
    long n_nodes = pp_rng_int(r, 0, 9) == 0 ? pp_rng_int(r, 1, 64) : pp_rng_pick(r, nodes, 12);
    long gpus = per_node * n_nodes, split = 1L << pp_rng_int(r, 0, 4);
    long dp = gpus % split == 0 ? gpus / split : gpus;
    pp_problem p = a100_problem(m, per_node, n_nodes, dp * pp_rng_pick(r, mults, 7));
    pp_gpu *g = &p.cluster.gpu;
    snprintf(g->id, sizeof g->id, "gpu%d", pp_rng_int(r, 0, 999));
    g->peak_tflops[PP_PREC_BF16] = g->peak_tflops[PP_PREC_FP16] = pp_rng_uniform(r, 50, 1000);
    g->memory_gib = pp_rng_pick(r, mems, 6);
    g->hbm_GBps = pp_rng_uniform(r, 500, 5000);
    g->eff = (pp_efficiency){.gemm = pp_rng_uniform(r, 0.4, 0.9), .attention = pp_rng_uniform(r, 0.3, 0.7),
                             .hbm = pp_rng_uniform(r, 0.5, 0.9), .nvlink = pp_rng_uniform(r, 0.5, 0.9),
                             .network = pp_rng_uniform(r, 0.5, 0.9), .kernel_us = pp_rng_uniform(r, 1, 10),
                             .nvlink_latency_us = pp_rng_uniform(r, 1, 10),
                             .network_latency_us = pp_rng_uniform(r, 2, 20), .gemm_k_overhead = 64,
                             .gemm_misaligned = 0.5, .cross_rail = pp_rng_uniform(r, 0.25, 1.0),
                             .compute_scale = pp_rng_uniform(r, 0.7, 1.4)};
    p.cluster.intra_node_GBps = pp_rng_uniform(r, 50, 900);
    p.cluster.inter_node_Gbps = pp_rng_uniform(r, 25, 800);
    p.training.framework = (pp_framework)pp_rng_int(r, 0, PP_FW_COUNT - 1);
    pp_framework_features(p.training.framework, &p.training);
    /* NIC switches of 1 or 2 GPUs (or no layout): the 2021 frameworks' rings
     * across rails (pp_group_crosses_rails) are priced by all three too */
    p.cluster.gpus_per_nic_switch = pp_rng_int(r, 0, 2);
    p.cluster.nccl_pxn = p.training.nccl_pxn;
    if (pp_rng_int(r, 0, 3) == 0) {
        p.training.flash_attention = pp_rng_int(r, 0, 1);
        p.training.dp_overlap = pp_rng_int(r, 0, 1);
        /* eager code's saved activations, 16-bit gradients, logits gathered over TP */
        p.training.fused_elementwise = pp_rng_int(r, 0, 1);
        p.training.grad_accum_bytes = pp_rng_int(r, 0, 1) ? 2 : 4;
        p.training.loss_gathered = pp_rng_int(r, 0, 1);
    }
    p.memory_headroom = pp_rng_uniform(r, 0, 0.2);
    p.compress_min_bytes = pp_rng_int(r, 0, 1) ? 0 : 1 << 20;
    p.training.grad_reduce_dtype = pp_rng_int(r, 0, 1) ? PP_PREC_FP32 : PP_PREC_BF16;
    /* Tensor parallelism across nodes now and then: larger grids. */
    p.allow_tp_across_nodes = pp_rng_int(r, 0, 3) == 0;
    /* none, two lossy codecs (each allowed on a dimension or not) and a
     * lossless one that may lose on 16-bit messages */
    p.n_codecs = 1;
    pp_test_add_codec(&p, "q8", true, 8, 0, pp_rng_uniform(r, 10, 400), pp_rng_int(r, 0, 1) ? 0.01 : 0.05);
    int lz = pp_test_add_codec(&p, "lz", false, 0, pp_rng_uniform(r, 1.02, 1.5), pp_rng_uniform(r, 10, 400), 0);
    p.codecs[lz].lossless_ratio_16 = pp_rng_uniform(r, 0.8, 1.3);
    pp_test_add_codec(&p, "q16", true, 16, 0, pp_rng_uniform(r, 10, 400), 0.0002);
    static const double tolerances[] = {0, 0.001, 0.02, 0.1};
    for (int d = 0; d < PP_DIM_COUNT; d++)
        p.error_tolerance[d] = tolerances[pp_rng_int(r, 0, 3)];
    /* LoRA fine-tuning now and then: frozen weights, adapters on the
     * attention or on every linear layer, packed samples or not */
    if (pp_rng_int(r, 0, 4) == 0) {
        p.training.lora_rank = pp_rng_int(r, 1, 64);
        p.training.lora_targets = pp_rng_int(r, 0, 1) ? PP_LORA_ALL_LINEAR : PP_LORA_ATTENTION;
        if (pp_rng_int(r, 0, 1)) /* on packed samples a quarter of the sequence long */
            p.training.packed_sample_tokens = p.model.seq_len / 4.0;
    }
    /* A framework that runs only some values now and then (as
     * data/frameworks.json says): ZeRO stages (fewer with a pipeline),
     * recomputation kinds, the codecs of each dimension; the
     * space, the enumerator and the MIP must range over the same ones.
     * Drawn from a copy of the generator, so the problems that follow are
     * the ones they were. */
    pp_rng own = {r->s ^ 0x9E3779B97F4A7C15ULL};
    r = &own;
    if (pp_rng_int(r, 0, 3) == 0) {
        pp_framework_caps *c = &p.fw;
        c->known = true;
        c->precisions = ~0u; /* every recipe: a precision it lacks would leave no plan at all */
        snprintf(c->name, sizeof c->name, "random");
        snprintf(c->version, sizeof c->version, "test");
        for (int i = 0; i < PP_DEC_COUNT; i++)
            c->all[i] = true;
        /* ZeRO without stage 1 or 2 (FSDP, a framework of ZeRO-1 only
         * never reaches stage 3), fewer stages with a pipeline (DeepSpeed:
         * 0 and 1), selective recomputation or not, some codecs */
        c->all[PP_DEC_ZERO] = c->all[PP_DEC_RECOMPUTE] = false;
        c->runs[PP_DEC_ZERO] = 0xFULL & ~(1ULL << pp_rng_int(r, 1, 2));
        c->zero_with_pp = (unsigned)(c->runs[PP_DEC_ZERO] & (pp_rng_int(r, 0, 1) ? 0x3u : 0xFu));
        c->runs[PP_DEC_RECOMPUTE] = pp_rng_int(r, 0, 1) ? 0x7ULL : 0x5ULL;
        for (int d = 0; d < PP_DIM_COUNT; d++) {
            c->all[PP_DEC_CODEC(d)] = false;
            c->runs[PP_DEC_CODEC(d)] = 1ULL | ((unsigned long long)pp_rng_int(r, 0, 15) << 1);
        }
    }
    /* Sliding-window attention now and then (a causal LM's): a window of
     * a half to an eighth of the sequence, on every layer or all but every
     * N-th; its layers cost less attention and its context parallelism
     * gathers K and V instead of the ring (rules.c cp_comm_fits), in all
     * three alike. From the copy too. */
    if (getenv("NOWIN") == NULL && pp_rng_int(r, 0, 3) == 0) {
        p.model.sliding_window = p.model.seq_len / pp_rng_int(r, 2, 8);
        p.model.window_attn_skip_freq = pp_rng_int(r, 0, 1) ? 0 : pp_rng_int(r, 2, 4);
    }
    /* Multi-token prediction now and then, where the framework trains it
     * (Megatron-Core): one or two modules on the last stage, each a layer
     * of the model's last kind and a second pass through the output head,
     * which all three price alike (the balanced layout counts them). From
     * the copy too. */
    if (pp_rng_int(r, 0, 3) == 0 && p.training.framework == PP_FW_MEGATRON_CORE)
        p.training.mtp_layers = pp_rng_int(r, 1, 2);
    return p;
}

/* A random problem whose model is a Mixture of Experts now and then: routed
 * experts, top-k, expert width, shared experts, leading dense layers, a
 * MoE-layer frequency, latent attention, the load imbalance, the dispatcher
 * and the all-to-all overlap, all drawn after the dense problem's draws. */
static pp_problem random_moe_problem(pp_rng *r)
{
    static const int experts[] = {2, 4, 8, 16};
    pp_problem p = random_problem(r);
    pp_model *m = &p.model;
    m->experts = pp_rng_pick(r, experts, 4);
    m->experts_per_token = pp_rng_int(r, 1, m->experts < 4 ? m->experts : 4);
    m->moe_ffn_hidden = m->hidden / 2 * pp_rng_int(r, 1, 3);
    if (pp_rng_int(r, 0, 1)) {
        m->shared_experts = 1;
        m->shared_ffn_hidden = m->moe_ffn_hidden;
    }
    m->first_dense_layers = pp_rng_int(r, 0, m->layers > 2 ? 2 : m->layers - 1);
    m->moe_layer_freq = pp_rng_int(r, 1, 2);
    if (pp_moe_layers(m) == 0)
        m->moe_layer_freq = 1;
    if (pp_rng_int(r, 0, 2) == 0) { /* multi-head latent attention */
        m->v_head_dim = pp_model_head_dim(m);
        m->head_dim = m->v_head_dim;
        m->kv_heads = m->heads;
        m->q_lora_rank = pp_rng_int(r, 0, 1) ? m->hidden / 4 : 0;
        m->kv_lora_rank = m->hidden / 8;
        m->qk_nope_head_dim = m->v_head_dim;
        m->qk_rope_head_dim = 32;
    }
    p.training.moe_load_imbalance = pp_rng_uniform(r, 1.0, 1.3);
    if (pp_rng_int(r, 0, 1)) { /* the training settings fix the dispatcher and the overlap */
        p.training.moe_deepep = pp_rng_int(r, 0, 1);      /* DeepEP's deduplicating dispatch */
        p.training.moe_a2a_overlap = pp_rng_int(r, 0, 1); /* all-to-alls behind another micro-batch */
        p.training.moe_dispatcher_given = p.training.moe_a2a_overlap_given = true;
    } else if (p.cluster.gpu.peak_tflops[PP_PREC_FP8] <= 0.0) { /* searched: DeepEP on Hopper or newer */
        p.cluster.gpu.peak_tflops[PP_PREC_FP8] = 2.0 * p.cluster.gpu.peak_tflops[PP_PREC_BF16];
    }
    if (pp_rng_int(r, 0, 2) == 0) { /* an fp8 recipe: the SwiGLU input in fp8 is a decision (Megatron-Core) */
        p.training.precision = PP_PREC_FP8_CURRENT;
        p.cluster.gpu.peak_tflops[PP_PREC_FP8] = p.cluster.gpu.peak_tflops[PP_PREC_FP8_CURRENT] =
            2.0 * p.cluster.gpu.peak_tflops[PP_PREC_BF16];
    }
    return p;
}

/* Narrow free decisions at random until the space is small enough for the
 * enumerator to be quick. */
static void shrink_space(pp_rng *r, pp_problem *p, double max_plans)
{
    for (int round = 0; round < 40; round++) {
        pp_space s;
        pp_error err;
        CU_ASSERT_EQUAL_FATAL(pp_space_build(p, &s, &err), PP_OK);
        double plans = s.decision_space;
        pp_int_list lists[6] = {s.values[PP_DEC_TP], s.values[PP_DEC_PP], s.values[PP_DEC_CP], s.values[PP_DEC_MICRO_BATCH],
                                s.values[PP_DEC_VIRTUAL_STAGES], s.values[PP_DEC_DP]};
        pp_space_free(&s);
        if (plans <= max_plans)
            return;
        pp_int_list *q = p->search;
        pp_int_list *targets[] = {&q[PP_DEC_TP], &q[PP_DEC_PP], &q[PP_DEC_CP], &q[PP_DEC_MICRO_BATCH], &q[PP_DEC_VIRTUAL_STAGES], &q[PP_DEC_DP]};
        int k = pp_rng_int(r, 0, 10);
        if (k == 10) { /* two tensor-parallel modes, or compression fixed */
            if (q[PP_DEC_TP_MODE].n == 0)
                q[PP_DEC_TP_MODE] = (pp_int_list){.n = 2, .v = {pp_rng_int(r, 0, 1), pp_rng_int(r, 2, 3)}};
            else
                q[PP_DEC_CODEC(pp_rng_int(r, 0, PP_DIM_COUNT - 1))] = (pp_int_list){.n = 1, .v = {0}};
            continue;
        }
        if (k < 6) {
            if (lists[k].n <= 1)
                continue;
            pp_int_list keep = {0};
            for (int i = 0; i < lists[k].n; i++)
                if (pp_rng_int(r, 0, 1))
                    keep.v[keep.n++] = lists[k].v[i];
            if (keep.n == 0)
                keep.v[keep.n++] = lists[k].v[pp_rng_int(r, 0, lists[k].n - 1)];
            *targets[k] = keep;
        } else if (k == 6 && q[PP_DEC_RECOMPUTE].n == 0) {
            q[PP_DEC_RECOMPUTE] = (pp_int_list){.n = 2, .v = {pp_rng_int(r, 0, 1), 2}};
        } else if (k == 7 && q[PP_DEC_ZERO].n == 0) {
            q[PP_DEC_ZERO] = (pp_int_list){.n = 2, .v = {pp_rng_int(r, 0, 1), pp_rng_int(r, 2, 3)}};
        } else if (k == 8) {
            int d = pp_rng_int(r, 0, PP_DIM_COUNT - 1);
            if (q[PP_DEC_CODEC(d)].n == 0)
                q[PP_DEC_CODEC(d)] = (pp_int_list){.n = 2, .v = {0, pp_rng_int(r, 1, 3)}};
        } else if (q[PP_DEC_SEQUENCE_PARALLEL].n == 0) {
            q[PP_DEC_SEQUENCE_PARALLEL] = (pp_int_list){.n = 1, .v = {pp_rng_int(r, 0, 1)}};
        }
    }
}

static bool plan_equal(const pp_plan *a, const pp_plan *b)
{
    for (int i = 0; i < PP_DEC_COUNT; i++) /* every decision of the table */
        if (pp_decision_get(a, (pp_decision_id)i) != pp_decision_get(b, (pp_decision_id)i))
            return false;
    return true;
}

static void plan_str(const pp_plan *p, char *buf, size_t len)
{
    snprintf(buf, len,
             "tp=%d mode=%d d=%d pp=%d dp=%d cp=%d mb=%d v=%d ep=%d etp=%d zero=%d rec=%d sp=%d codecs=%d/%d/%d/%d",
             p->tp, (int)p->tp_mode, p->tp_depth, p->pp, p->dp, p->cp, p->micro_batch, p->virtual_stages, p->ep,
             p->etp, p->zero, (int)p->recompute, p->sequence_parallel, p->codec[0], p->codec[1], p->codec[2],
             p->codec[3]);
}

static int solve(const pp_problem *p, pp_method method, int top_k, bool full, pp_plan_result *res)
{
    pp_plan_options o;
    pp_plan_options_init(&o);
    o.method = method;
    o.top_k = top_k;
    o.full_model = full;
    pp_error err;
    pp_error_clear(&err);
    int rc = pp_plan_solve(p, &o, res, &err);
    if (rc != PP_OK && rc != PP_EINFEASIBLE)
        fprintf(stderr, "\n  pp_plan_solve: %s\n", err.msg);
    return rc;
}

/* ---- (a) the MIP's optimum is the enumerator's ----------------------------- */

typedef struct agreement {
    int problems, feasible, compared_plans, screened;
    int grid_spaces, grid_optima, compressed_optima; /* the new decisions are exercised */
    int cross_rail_optima; /* optima whose data-parallel rings cross NIC rails */
    int moe_problems, moe_feasible, ep_optima, etp_optima;
} agreement;

/* Solve p with the enumerator and with the MIP (screened, and the whole
 * model when `full`), and check they agree. */
static void check_agreement(int index, const pp_problem *p, bool full, agreement *stats)
{
    pp_plan_result en, mip, whole;
    int rc_en = solve(p, PP_METHOD_ENUMERATE, 1, false, &en);
    int rc_mip = solve(p, PP_METHOD_MILP, 0, false, &mip);
    int rc_whole = full ? solve(p, PP_METHOD_MILP, 0, true, &whole) : rc_mip;
    stats->problems++;
    CU_ASSERT_EQUAL(rc_mip, rc_en);
    CU_ASSERT_EQUAL(rc_whole, rc_en);
    if (rc_mip != rc_en || rc_whole != rc_en)
        fprintf(stderr, "\n  problem %d: enumerator rc %d (%s), MIP rc %d (%s), whole MIP rc %d\n", index, rc_en,
                en.infeasible_reason, rc_mip, mip.infeasible_reason, rc_whole);
    pp_space sp;
    pp_error serr;
    if (pp_space_build(p, &sp, &serr) == PP_OK) {
        bool grid = false;
        for (int i = 0; i < sp.n_shapes && !grid; i++)
            grid = sp.shapes[i].base.tp_mode != PP_TP_1D;
        stats->grid_spaces += grid;
        pp_space_free(&sp);
    }
    if (rc_en == PP_OK && rc_mip == PP_OK && rc_whole == PP_OK) {
        stats->feasible++;
        stats->screened += mip.cert.shapes_screened > 0;
        stats->grid_optima += en.best.plan.tp_mode != PP_TP_1D;
        stats->moe_feasible += pp_model_is_moe(&p->model);
        stats->ep_optima += en.best.plan.ep > 1;
        stats->etp_optima += en.best.plan.etp > 1;
        bool compressed = false;
        for (int d = 0; d < PP_DIM_COUNT; d++)
            compressed = compressed || en.best.plan.codec[d] != 0;
        stats->compressed_optima += compressed;
        long n = pp_replica_ranks(&en.best.plan), stride = en.best.plan.tp, gpn = p->cluster.gpus_per_node;
        long k = stride >= gpn ? 1 : (gpn / stride < n ? gpn / stride : n);
        stats->cross_rail_optima += pp_group_crosses_rails(&p->cluster, n, k);
        double best = en.cert.objective_s;
        bool ok = pp_rel_close(mip.cert.objective_s, best, REL_TOL) &&
                  pp_rel_close(pp_step_time_s(p, &mip.best.plan), best, REL_TOL) &&
                  (!full || pp_rel_close(whole.cert.objective_s, best, REL_TOL));
        CU_ASSERT(ok);
        CU_ASSERT_EQUAL(mip.status, PP_STATUS_OPTIMAL);
        bool tie = en.n_runner_ups > 0 && pp_rel_close(pp_step_time_s(p, &en.runner_ups[0].plan), best, REL_TOL);
        if (!tie) {
            stats->compared_plans++;
            CU_ASSERT(plan_equal(&mip.best.plan, &en.best.plan));
            ok = ok && plan_equal(&mip.best.plan, &en.best.plan);
            if (full) {
                CU_ASSERT(plan_equal(&whole.best.plan, &en.best.plan));
                ok = ok && plan_equal(&whole.best.plan, &en.best.plan);
            }
        }
        if (!ok) {
            char a[160], b[160];
            plan_str(&en.best.plan, a, sizeof a);
            plan_str(&mip.best.plan, b, sizeof b);
            fprintf(stderr, "\n  problem %d: enumerator %.17g (%s)\n              MIP %.17g (%s)%s\n", index, best,
                    a, mip.cert.objective_s, b, tie ? " [tie]" : "");
        }
    }
    pp_plan_result_free(&en);
    pp_plan_result_free(&mip);
    if (full)
        pp_plan_result_free(&whole);
}

static void test_mip_matches_enumerator(void)
{
    pp_rng r = {0x9e3779b97f4a7c15ULL};
    agreement stats = {0};
    for (int i = 0; i < 240; i++) {
        pp_problem p = random_problem(&r);
        shrink_space(&r, &p, 1500);
        check_agreement(i, &p, i % 2 == 0, &stats);
    }
    /* Mixture-of-Experts problems: ep and etp in the shape */
    for (int i = 240; i < 320; i++) {
        pp_problem p = random_moe_problem(&r);
        shrink_space(&r, &p, 1500);
        stats.moe_problems++;
        check_agreement(i, &p, i % 2 == 0, &stats);
    }
    printf("\n    %d MoE problems, %d feasible, %d optima with ep > 1, %d with etp > 1 ", stats.moe_problems,
           stats.moe_feasible, stats.ep_optima, stats.etp_optima);
    CU_ASSERT(stats.moe_feasible >= 20);
    CU_ASSERT(stats.ep_optima >= 5);
    printf("\n    %d problems, %d feasible, %d compared plan for plan, %d with screened shapes; %d spaces with "
           "2D/2.5D/3D shapes, %d grid optima, %d compressed optima, %d optima with rings across rails ",
           stats.problems, stats.feasible, stats.compared_plans, stats.screened, stats.grid_spaces,
           stats.grid_optima, stats.compressed_optima, stats.cross_rail_optima);
    CU_ASSERT(stats.feasible >= 100);
    CU_ASSERT(stats.grid_spaces >= 30);
    CU_ASSERT(stats.grid_optima >= 3);
    CU_ASSERT(stats.compressed_optima >= 10);
    CU_ASSERT(stats.cross_rail_optima >= 3);
}

/* The space offers only plans the rules accept (the odometer's plans whose
 * options fit together, pp_space_options_fit, as the MIP's columns take
 * them), a codec past its dimension's error tolerance aside (the
 * enumerator skips those and the MIP's accuracy rows exclude them).  A plan the space offers and a rule
 * refuses is one the MIP can pick and the cost model rejects: the planner
 * then cuts it off plan by plan.  One did: with a pipeline and one replica
 * the space kept the degenerate ZeRO stage of a shape without a pipeline,
 * one the framework does not run with one, and a 615-plan problem took the
 * MIP 46,066 nodes and 30 s to call infeasible (the enumerator: none). */
static void test_space_offers_only_rule_abiding_plans(void)
{
    pp_rng r = {0x2545f4914f6cdd1dULL};
    long walked = 0, codec_refused = 0;
    pp_catalog cat;
    pp_load_catalog(&cat);
    for (int i = 0; i < 201; i++) {
        pp_problem p;
        if (i == 0) /* that case: ZeRO-3 alone, DeepSpeed (stages 0 and 1 with a pipeline), tp x pp on all 8 GPUs */
            pp_test_load("{'model': 'llama3-8b', 'cluster': {'gpu': 'a100-sxm4-80gb', 'gpus_per_node': 8, 'nodes': 1},"
                         " 'training': {'global_batch': 16, 'framework': 'deepspeed'},"
                         " 'search': {'zero': [3], 'tp': [4], 'pp': [2]}}",
                         &cat, &p);
        else
            p = i <= 150 ? random_problem(&r) : random_moe_problem(&r);
        if (i > 0)
            shrink_space(&r, &p, 1500);
        pp_space s;
        pp_error err;
        CU_ASSERT_EQUAL_FATAL(pp_space_build(&p, &s, &err), PP_OK);
        for (int si = 0; si < s.n_shapes; si++) {
            pp_odometer o;
            if (!pp_odometer_start(&o, &s, &s.shapes[si]))
                continue;
            do {
                pp_plan plan;
                pp_odometer_plan(&o, &s.shapes[si], &plan);
                if (!pp_space_options_fit(&plan)) /* a combination the space's columns leave out */
                    continue;
                walked++;
                pp_error why;
                pp_error_clear(&why);
                if (pp_plan_check(&p, &plan, &why) == PP_OK)
                    continue;
                bool codec = strcmp(why.path, "plan.compression") == 0;
                codec_refused += codec;
                CU_ASSERT(codec);
                if (!codec)
                    fprintf(stderr, "\n  problem %d offers a plan its rules refuse: %s: %s\n", i, why.path, why.msg);
            } while (pp_odometer_next(&o));
        }
        pp_space_free(&s);
    }
    printf("\n    %ld plans walked, %ld past a codec's tolerance ", walked, codec_refused);
    CU_ASSERT(walked > 10000);
    pp_catalog_free(&cat);
}

/* More of a resource never makes the optimum slower: with twice the NVLink,
 * twice the network or twice the GPU memory, the optimum of every random
 * problem is at most as slow (the cost model prices every plan no slower,
 * and no plan that fitted stops fitting).  A limit that only the MIP saw
 * (a hard bandwidth cut) broke this: more NVLink once made the proven
 * optimum of Llama 3 405B 21 % slower. */
static void test_more_resources_never_slower(void)
{
    pp_rng r = {0x5851f42d4c957f2dULL};
    int compared = 0;
    for (int i = 0; i < 160; i++) { /* the last 40 Mixture-of-Experts models */
        pp_problem p = i < 120 ? random_problem(&r) : random_moe_problem(&r);
        shrink_space(&r, &p, 3000);
        pp_plan_result base;
        if (solve(&p, PP_METHOD_MILP, 0, false, &base) != PP_OK) {
            pp_plan_result_free(&base);
            continue;
        }
        for (int k = 0; k < 3; k++) {
            pp_problem q = p;
            if (k == 0)
                q.cluster.intra_node_GBps *= 2.0;
            else if (k == 1)
                q.cluster.inter_node_Gbps *= 2.0;
            else
                q.cluster.gpu.memory_gib *= 2.0;
            pp_plan_result more;
            CU_ASSERT_EQUAL_FATAL(solve(&q, PP_METHOD_MILP, 0, false, &more), PP_OK);
            bool ok = more.best.eval.time.step_s <= base.best.eval.time.step_s * (1.0 + 1e-9);
            CU_ASSERT(ok);
            if (!ok)
                fprintf(stderr, "\n  problem %d, resource %d doubled: %.9g s > %.9g s\n", i, k,
                        more.best.eval.time.step_s, base.best.eval.time.step_s);
            compared++;
            pp_plan_result_free(&more);
        }
        pp_plan_result_free(&base);
    }
    printf("\n    %d doublings compared ", compared);
    CU_ASSERT(compared >= 150);
}

/* The explanation's re-solves read the terms priced once (mip_cache.h):
 * with a shared cache, a problem with another memory capacity, without the
 * memory limit or with any codec's error allowed is solved to the same plan
 * and the same objective, bit for bit, as without the cache, and reads
 * terms priced before; a problem with other prices (faster links) is
 * solved without it. */
static int solve_with(const pp_problem *p, unsigned relax, pp_price_cache *cache, pp_plan_result *res)
{
    pp_plan_options o;
    pp_plan_options_init(&o);
    o.top_k = 2;
    o.relax = relax;
    o.prices = cache;
    pp_error err;
    pp_error_clear(&err);
    return pp_plan_solve(p, &o, res, &err);
}

static void test_price_cache_same_answers(void)
{
    pp_rng r = {0x2545f4914f6cdd1dULL};
    int compared = 0, reused = 0;
    for (int i = 0; i < 60; i++) {
        pp_problem p = i < 45 ? random_problem(&r) : random_moe_problem(&r);
        shrink_space(&r, &p, 3000);
        pp_price_cache *cache = pp_price_cache_new();
        CU_ASSERT_PTR_NOT_NULL_FATAL(cache);
        pp_plan_result first;
        int rc0 = solve_with(&p, 0, cache, &first);
        pp_plan_result_free(&first);
        for (int k = 0; k < 4; k++) {
            pp_problem q = p;
            unsigned relax = 0;
            if (k == 0)
                q.cluster.gpu.memory_gib *= 1.5;
            else if (k == 1)
                relax = pp_cons_bit("memory");
            else if (k == 2)
                relax = pp_cons_bit("accuracy");
            else
                q.cluster.inter_node_Gbps *= 2.0;
            long hits0, misses0, hits1, misses1;
            pp_price_cache_stats(cache, &hits0, &misses0);
            pp_plan_result with, without;
            int rc1 = solve_with(&q, relax, cache, &with);
            int rc2 = solve_with(&q, relax, NULL, &without);
            pp_price_cache_stats(cache, &hits1, &misses1);
            CU_ASSERT_EQUAL(rc1, rc2);
            if (rc0 == PP_OK && k < 3) {
                CU_ASSERT(hits1 > hits0);
                reused += hits1 > hits0;
            }
            if (k == 3)
                CU_ASSERT(hits1 == hits0 && misses1 == misses0);
            if (rc1 == PP_OK && rc2 == PP_OK) {
                CU_ASSERT(plan_equal(&with.best.plan, &without.best.plan));
                CU_ASSERT(with.cert.objective_s == without.cert.objective_s);
                CU_ASSERT_EQUAL(with.n_runner_ups, without.n_runner_ups);
                for (int j = 0; j < with.n_runner_ups && j < without.n_runner_ups; j++)
                    CU_ASSERT(plan_equal(&with.runner_ups[j].plan, &without.runner_ups[j].plan));
                CU_ASSERT_EQUAL(with.cert.shapes_screened, without.cert.shapes_screened);
                compared++;
            }
            pp_plan_result_free(&with);
            pp_plan_result_free(&without);
        }
        pp_price_cache_free(cache);
    }
    printf("\n    %d re-solves compared, %d read cached terms ", compared, reused);
    CU_ASSERT(compared >= 100);
    CU_ASSERT(reused >= 60);
}

/* The README's default example, where memory decides: GPT-3 175B on 1024
 * A100-80GB, batch 1536, every decision free.  Also times the MIP. */
static void test_default_example(void)
{
    pp_problem p = a100_problem(pp_test_gpt3_175b(), 8, 128, 1536);
#if PARPLAN_TEST_SANITIZED
    /* under ASan the enumerator is ten times slower: the optimum's tensor
     * parallelism and the two smallest context splits (the random problems
     * above compare whole spaces) */
    p.search[PP_DEC_TP] = (pp_int_list){1, {8}};
    p.search[PP_DEC_CP] = (pp_int_list){2, {1, 2}};
#endif
    pp_plan_result en, mip;
    CU_ASSERT_EQUAL_FATAL(solve(&p, PP_METHOD_MILP, 0, false, &mip), PP_OK);
    CU_ASSERT_EQUAL_FATAL(solve(&p, PP_METHOD_ENUMERATE, 0, false, &en), PP_OK);
    CU_ASSERT(pp_rel_close(mip.cert.objective_s, en.cert.objective_s, REL_TOL));
    CU_ASSERT(plan_equal(&mip.best.plan, &en.best.plan));
    CU_ASSERT(mip.best.eval.mem.total_gib <= mip.best.eval.mem.usable_gib);
    CU_ASSERT_EQUAL(mip.cert.gap, 0.0);
    CU_ASSERT(mip.cert.lp_relaxation_s <= mip.cert.objective_s * (1 + REL_TOL));
    CU_ASSERT(mip.cert.decision_space == en.cert.decision_space &&
              mip.cert.decision_space > (PARPLAN_TEST_SANITIZED ? 1e5 : 1e6));
    printf("\n    MIP %.1f ms (%d rows, %d columns, %ld nodes, %ld shapes screened), enumerator %.1f ms ",
           1e3 * mip.cert.solve_time_s, mip.cert.rows, mip.cert.cols, mip.cert.nodes, mip.cert.shapes_screened,
           1e3 * en.cert.solve_time_s);
    pp_plan_result_free(&en);
    pp_plan_result_free(&mip);
}

/* ---- (b) a plan fixed by the search lists costs its step time -------------- */

static void fix_plan(pp_problem *p, const pp_plan *pl)
{
    /* every decision's search list holds the plan's value (the 2.5D depth
     * only on a 2.5D grid: other modes keep depth 1 without listing it) */
    pp_int_list *q = p->search;
    memset(q, 0, sizeof p->search);
    for (int i = 0; i < PP_DEC_COUNT; i++)
        if (i != PP_DEC_TP_DEPTH || pl->tp_mode == PP_TP_2P5D)
            q[i] = (pp_int_list){1, {pp_decision_get(pl, (pp_decision_id)i)}};
}

static void check_fixed(const pp_problem *base, const pp_plan *pl)
{
    pp_problem p = *base;
    fix_plan(&p, pl);
    pp_plan_result res;
    CU_ASSERT_EQUAL_FATAL(solve(&p, PP_METHOD_MILP, 0, false, &res), PP_OK);
    CU_ASSERT(plan_equal(&res.best.plan, pl));
    CU_ASSERT_EQUAL(res.cert.decision_space, 1.0);
    double step = pp_step_time_s(&p, pl);
    CU_ASSERT(pp_rel_close(res.cert.objective_s, step, 1e-12));
    CU_ASSERT(pp_rel_close(res.best.eval.time.step_s, step, 1e-12));
    pp_plan_result_free(&res);
}

static void test_fixed_plan_costs_its_step_time(void)
{
    /* Every plan of the default example's top 20 (compression, ZeRO-2/3,
     * interleaving and recomputation among them), then random problems. */
    pp_problem p = a100_problem(pp_test_gpt3_175b(), 8, 128, 1536);
    pp_plan_result res;
    CU_ASSERT_EQUAL_FATAL(solve(&p, PP_METHOD_MILP, 20, false, &res), PP_OK);
    check_fixed(&p, &res.best.plan);
    for (int i = 0; i < res.n_runner_ups; i++)
        check_fixed(&p, &res.runner_ups[i].plan);
    pp_plan_result_free(&res);

    pp_rng r = {12345};
    int checked = 0;
    for (int i = 0; i < 60; i++) {
        pp_problem q = random_problem(&r);
        shrink_space(&r, &q, 3000);
        if (solve(&q, PP_METHOD_ENUMERATE, 3, false, &res) == PP_OK) {
            check_fixed(&q, &res.best.plan);
            for (int k = 0; k < res.n_runner_ups; k++)
                check_fixed(&q, &res.runner_ups[k].plan);
            checked++;
        }
        pp_plan_result_free(&res);
    }
    CU_ASSERT(checked >= 20);
}

/* ---- (c) infeasible problems say why ----------------------------------------- */

static void check_infeasible(const pp_problem *p, const char *family)
{
    pp_method methods[] = {PP_METHOD_MILP, PP_METHOD_ENUMERATE};
    for (int i = 0; i < 2; i++) {
        pp_plan_result res;
        CU_ASSERT_EQUAL(solve(p, methods[i], 0, false, &res), PP_EINFEASIBLE);
        CU_ASSERT_EQUAL(res.status, PP_STATUS_INFEASIBLE);
        PP_ASSERT_CONTAINS(res.infeasible_reason, family);
        CU_ASSERT_EQUAL(strncmp(res.infeasible_reason, family, strlen(family)), 0);
        pp_plan_result_free(&res);
    }
}

static void test_huge_model_on_one_gpu(void)
{
    pp_problem p = a100_problem(pp_test_gpt3_175b(), 1, 1, 8);
    check_infeasible(&p, "memory");
    pp_plan_result res;
    pp_error err;
    CU_ASSERT_EQUAL(solve(&p, PP_METHOD_MILP, 0, false, &res), PP_EINFEASIBLE);
    PP_ASSERT_CONTAINS(res.infeasible_reason, "GiB");
    PP_ASSERT_CONTAINS(res.infeasible_reason, "A100-80GB");
    pp_plan_result_free(&res);

    /* Lifting the memory limit (a counterfactual) makes it feasible. */
    pp_plan_options o;
    pp_plan_options_init(&o);
    o.relax = pp_cons_bit("memory");
    CU_ASSERT_EQUAL(pp_plan_solve(&p, &o, &res, &err), PP_OK);
    CU_ASSERT(res.best.eval.mem.total_gib > res.best.eval.mem.usable_gib);
    pp_plan_result_free(&res);
}

static void test_divisibility_and_accuracy_infeasible(void)
{
    /* 3 GPUs, batch 4, 2 layers: no dp divides the batch, and 3 stages
     * cannot hold 2 layers even unevenly. */
    pp_model m = {.layers = 2, .hidden = 256, .heads = 8, .kv_heads = 8, .ffn_hidden = 1024, .vocab = 1000,
                  .seq_len = 128};
    pp_problem p = a100_problem(m, 3, 1, 4);
    check_infeasible(&p, "divisibility");
    m.layers = 4;

    /* Data parallelism forced, and only a codec too lossy for gradients. */
    p = a100_problem(m, 8, 1, 64);
    p.search[PP_DEC_DP] = (pp_int_list){1, {8}};
    p.search[PP_DEC_CODEC(PP_DIM_DP)] = (pp_int_list){1, {3}}; /* zfp4: error 0.97 */
    check_infeasible(&p, "accuracy");

    /* A shape that obeys the rules but leaves a choice no value is named
     * with that choice: ZeRO-3 alone under DeepSpeed, whose pipeline runs
     * stages 0 and 1 (the first rule broken, virtual_stages 2, is a
     * farther miss); sequence parallelism "on" alone with tp 1. */
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_test_load("{'model': 'llama3-8b', 'cluster': {'gpu': 'a100-sxm4-80gb', 'gpus_per_node': 8, 'nodes': 1},"
                 " 'training': {'global_batch': 16, 'framework': 'deepspeed'},"
                 " 'search': {'zero': [3], 'tp': [4], 'pp': [2]}}",
                 &cat, &p);
    check_infeasible(&p, "zero: no value left for tp=4 pp=2 dp=1 cp=1");
    pp_test_load("{'model': 'llama3-8b', 'cluster': {'gpu': 'a100-sxm4-80gb', 'gpus_per_node': 8, 'nodes': 1},"
                 " 'training': {'global_batch': 16}, 'search': {'sequence_parallel': [true], 'tp': [1]}}",
                 &cat, &p);
    check_infeasible(&p, "sequence_parallel: no value left for tp=1");
    pp_catalog_free(&cat);
}

/* With every error tolerance at zero no plan uses a lossy codec, whatever
 * the method, on problems where lossy codecs win when they are allowed. */
static bool uses_lossy(const pp_problem *p, const pp_plan *pl)
{
    for (int d = 0; d < PP_DIM_COUNT; d++)
        if (p->codecs[pl->codec[d]].lossy)
            return true;
    return false;
}

static void test_zero_tolerance_no_lossy(void)
{
    pp_rng r = {4242};
    int lossy_when_allowed = 0, checked = 0;
    for (int i = 0; i < 80; i++) {
        pp_problem p = random_problem(&r);
        for (int c = 1; c < p.n_codecs; c++) /* fast codecs: compression pays */
            p.codecs[c].compress_GBps = p.codecs[c].decompress_GBps = 1000;
        p.training.grad_reduce_dtype = PP_PREC_FP32;
        shrink_space(&r, &p, 1500);
        for (int d = 0; d < PP_DIM_COUNT; d++)
            p.error_tolerance[d] = 1.0;
        pp_plan_result res;
        if (solve(&p, PP_METHOD_MILP, 3, false, &res) == PP_OK && uses_lossy(&p, &res.best.plan))
            lossy_when_allowed++;
        pp_plan_result_free(&res);

        for (int d = 0; d < PP_DIM_COUNT; d++)
            p.error_tolerance[d] = 0.0;
        pp_method methods[] = {PP_METHOD_MILP, PP_METHOD_ENUMERATE};
        for (int k = 0; k < 2; k++) {
            if (solve(&p, methods[k], 3, false, &res) == PP_OK) {
                checked++;
                CU_ASSERT(!uses_lossy(&p, &res.best.plan));
                for (int j = 0; j < res.n_runner_ups; j++)
                    CU_ASSERT(!uses_lossy(&p, &res.runner_ups[j].plan));
            }
            pp_plan_result_free(&res);
        }
    }
    printf("\n    %d solves checked; %d problems pick a lossy codec when every tolerance is 1 ", checked,
           lossy_when_allowed);
    CU_ASSERT(checked >= 60);
    CU_ASSERT(lossy_when_allowed >= 10);
}

/* ---- (d) the top K ----------------------------------------------------------- */

static void test_top_k(void)
{
    pp_rng r = {777};
    int checked = 0;
    for (int i = 0; i < 30 && checked < 8; i++) {
        pp_problem p = random_problem(&r);
        shrink_space(&r, &p, 2000);
        const int K = 6;
        pp_plan_result mip, en;
        int rc = solve(&p, PP_METHOD_MILP, K, false, &mip);
        CU_ASSERT_EQUAL(rc, solve(&p, PP_METHOD_ENUMERATE, K, false, &en));
        if (rc == PP_OK) {
            checked++;
            CU_ASSERT_EQUAL(mip.n_runner_ups, en.n_runner_ups);
            double prev = pp_step_time_s(&p, &mip.best.plan);
            for (int k = 0; k < mip.n_runner_ups && k < en.n_runner_ups; k++) {
                const pp_plan *pl = &mip.runner_ups[k].plan;
                double t = pp_step_time_s(&p, pl);
                CU_ASSERT(t >= prev * (1 - REL_TOL));
                CU_ASSERT(pp_rel_close(t, pp_step_time_s(&p, &en.runner_ups[k].plan), REL_TOL));
                CU_ASSERT(!plan_equal(pl, &mip.best.plan));
                for (int j = 0; j < k; j++)
                    CU_ASSERT(!plan_equal(pl, &mip.runner_ups[j].plan));
                prev = t;
            }
        }
        pp_plan_result_free(&mip);
        pp_plan_result_free(&en);
    }
    CU_ASSERT(checked >= 5);

    /* The default example's top 10. */
    pp_problem p = a100_problem(pp_test_gpt3_175b(), 8, 128, 1536);
    pp_plan_result mip;
    CU_ASSERT_EQUAL_FATAL(solve(&p, PP_METHOD_MILP, 10, false, &mip), PP_OK);
    CU_ASSERT_EQUAL(mip.n_runner_ups, 10);
    double prev = mip.cert.objective_s;
    for (int k = 0; k < mip.n_runner_ups; k++) {
        double t = mip.runner_ups[k].eval.time.step_s;
        CU_ASSERT(t >= prev * (1 - REL_TOL));
        prev = t;
    }
    pp_plan_result_free(&mip);
}

/* ---- (e) other solvers agree on the exported model ------------------------------ */

/* The number after `key` (and after a '=' if one follows it) on the last
 * line of the output of `command` that holds key, or NAN. */
static double number_after(const char *command, const char *key)
{
    FILE *f = popen(command, "r");
    if (!f)
        return NAN;
    char line[1024];
    double v = NAN;
    while (fgets(line, sizeof line, f)) {
        char *at = strstr(line, key);
        if (!at)
            continue;
        at += strlen(key);
        char *eq = strchr(at, '=');
        at = eq ? eq + 1 : at;
        char *end;
        double x = strtod(at, &end);
        if (end != at)
            v = x;
    }
    pclose(f);
    return v;
}

static void test_exported_model_other_solvers(void)
{
    pp_model m = {.layers = 24, .hidden = 2048, .heads = 16, .kv_heads = 4, .ffn_hidden = 8192, .vocab = 32000,
                  .seq_len = 2048, .gated_mlp = true};
    pp_problem p = a100_problem(m, 8, 4, 256);
    p.cluster.gpu.memory_gib = 16; /* memory binds */
    char dir[] = "/tmp/parplan_test_planner_XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    char mps[256], lp[256], cmd[1024];
    snprintf(mps, sizeof mps, "%s/model.mps", dir);
    snprintf(lp, sizeof lp, "%s/model.lp", dir);

    pp_plan_options o;
    pp_plan_options_init(&o);
    o.export_mps = mps;
    o.export_lp = lp;
    pp_plan_result res;
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(pp_plan_solve(&p, &o, &res, &err), PP_OK);
    double obj = res.cert.objective_s, units = res.cert.time_units_per_s;
    CU_ASSERT(units >= 1.0);
    pp_plan_result_free(&res);

    /* The model counts time in 1/units s (mip.h). */
    snprintf(cmd, sizeof cmd, "glpsol --freemps %s -o /dev/stdout 2>&1", mps);
    double glpsol_mps = number_after(cmd, "Objective:") / units;
    snprintf(cmd, sizeof cmd, "glpsol --lp %s -o /dev/stdout 2>&1", lp);
    double glpsol_lp = number_after(cmd, "Objective:") / units;
    CU_ASSERT(pp_rel_close(glpsol_mps, obj, 1e-8));
    CU_ASSERT(pp_rel_close(glpsol_lp, obj, 1e-8));
    printf("\n    parplan %.10g, glpsol (MPS) %.10g, glpsol (LP) %.10g", obj, glpsol_mps, glpsol_lp);
    if (access("/usr/bin/cbc", X_OK) == 0) {
        snprintf(cmd, sizeof cmd, "cd %s && /usr/bin/cbc model.mps solve 2>&1", dir);
        double cbc = number_after(cmd, "Objective value:") / units;
        CU_ASSERT(pp_rel_close(cbc, obj, 1e-8));
        printf(", cbc %.10g", cbc);
    }
    printf(" ");
    unlink(mps);
    unlink(lp);
    rmdir(dir);

    /* An unwritable path is an error that names it. */
    o.export_lp = NULL;
    o.export_mps = "/nonexistent-dir/model.mps";
    CU_ASSERT_EQUAL(pp_plan_solve(&p, &o, &res, &err), PP_EINTERNAL);
    PP_ASSERT_CONTAINS(err.path, "/nonexistent-dir/model.mps");
    pp_plan_result_free(&res);
}

/* ---- the time limit -------------------------------------------------------- */

/* The whole default example (no screening) needs seconds of simplex before
 * GLPK has any plan: a 50 ms limit ends with an error that says so, never
 * with a plan called optimal. */
static void test_time_limit_without_plan(void)
{
    pp_problem p = a100_problem(pp_test_gpt3_175b(), 8, 128, 1536);
    pp_plan_options o;
    pp_plan_options_init(&o);
    o.full_model = true;
    o.time_limit_s = 0.05;
    pp_plan_result res;
    pp_error err;
    CU_ASSERT_EQUAL(pp_plan_solve(&p, &o, &res, &err), PP_EINTERNAL);
    PP_ASSERT_CONTAINS(err.msg, "time limit");
    pp_plan_result_free(&res);
}

/* ---- the constraint families at a plan ------------------------------------------ */

static void test_family_rows_at_plan(void)
{
    pp_problem p = a100_problem(pp_test_gpt3_175b(), 8, 128, 1536);
    pp_plan_result res;
    CU_ASSERT_EQUAL_FATAL(solve(&p, PP_METHOD_MILP, 0, false, &res), PP_OK);
    pp_cons_row rows[PP_CONS_MAX_ROWS];
    bool saw_memory = false;
    for (int i = 0; i < pp_cons_n_families; i++) {
        const pp_cons_family *f = pp_cons_families[i];
        CU_ASSERT_PTR_NOT_NULL(f->explain);
        CU_ASSERT_EQUAL(pp_cons_bit(f->name), 1u << i);
        int n = f->rows_at(&p, &res.best.plan, &res.best.eval, rows, PP_CONS_MAX_ROWS);
        for (int k = 0; k < n; k++) {
            CU_ASSERT(!rows[k].violated);
            if (strcmp(rows[k].name, "mem_stage0") == 0 || strcmp(rows[k].name, "mem_stage_last") == 0) {
                saw_memory = true;
                CU_ASSERT(rows[k].lhs <= res.best.eval.mem.total_gib * (1 + 1e-12));
            }
        }
    }
    CU_ASSERT(saw_memory);
    CU_ASSERT_EQUAL(pp_cons_bit("no-such-family"), 0u);
    pp_plan_result_free(&res);
}

/* The DP codec bf16 is the type the gradients are reduced in
 * (pp_plan_grad_reduce): where the training reduces in 16 bits already
 * (DeepSpeed's default, or training.grad_reduce_dtype bf16) it is the run
 * without it, so the space offers it as no plan of its own, and a search
 * that lists it alone gets that run ("none"), not an empty space; with an
 * fp32 reduction it is a plan of its own. */
static void test_dp_cast_offered_where_it_changes_the_reduction(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    const char *problems[] = {
        "{'model': 'llama3-8b', 'cluster': {'gpu': 'h100-sxm5-80gb', 'gpus_per_node': 8, 'nodes': 2},"
        " 'training': {'global_batch': 64, 'framework': 'deepspeed'}}",
        "{'model': 'llama3-8b', 'cluster': {'gpu': 'h100-sxm5-80gb', 'gpus_per_node': 8, 'nodes': 2},"
        " 'training': {'global_batch': 64, 'framework': 'deepspeed'}, 'search': {'compression': {'dp': ['bf16']}}}",
        "{'model': 'llama3-8b', 'cluster': {'gpu': 'h100-sxm5-80gb', 'gpus_per_node': 8, 'nodes': 2},"
        " 'training': {'global_batch': 64, 'grad_reduce_dtype': 'bf16'}}",
        "{'model': 'llama3-8b', 'cluster': {'gpu': 'h100-sxm5-80gb', 'gpus_per_node': 8, 'nodes': 2},"
        " 'training': {'global_batch': 64}}",
    };
    for (int k = 0; k < 4; k++) {
        pp_problem p;
        pp_test_load(problems[k], &cat, &p);
        int bf16 = -1;
        for (int i = 0; i < p.n_codecs; i++)
            if (strcmp(p.codecs[i].id, "bf16") == 0)
                bf16 = i;
        CU_ASSERT_FATAL(bf16 > 0);
        pp_space s;
        pp_error err;
        CU_ASSERT_EQUAL_FATAL(pp_space_build(&p, &s, &err), PP_OK);
        CU_ASSERT_FATAL(s.n_shapes > 0);
        const pp_int_list *dp = &s.options[PP_OPT_CODEC_DP];
        bool none = false, cast = false;
        for (int i = 0; i < dp->n; i++) {
            none |= dp->v[i] == 0;
            cast |= dp->v[i] == bf16;
        }
        CU_ASSERT(none);
        CU_ASSERT_EQUAL(cast, k == 3); /* Megatron-Core reducing bf16 gradients in fp32 by default */
        pp_space_free(&s);
    }
    pp_catalog_free(&cat);
}

int main(void)
{
    const pp_test tests[] = {
        {"MIP optimum == enumerator optimum on random problems", test_mip_matches_enumerator},
        {"the space offers only plans the rules accept", test_space_offers_only_rule_abiding_plans},
        {"twice the NVLink, network or memory never gives a slower optimum", test_more_resources_never_slower},
        {"a shared price cache gives the same answers", test_price_cache_same_answers},
        {"default example: GPT-3 175B on 1024 A100", test_default_example},
        {"a plan fixed by the search costs its step time", test_fixed_plan_costs_its_step_time},
        {"huge model on one GPU: infeasible by memory", test_huge_model_on_one_gpu},
        {"divisibility and accuracy infeasibility", test_divisibility_and_accuracy_infeasible},
        {"error tolerance zero: no plan uses a lossy codec", test_zero_tolerance_no_lossy},
        {"top K: distinct, non-decreasing, the enumerator's", test_top_k},
        {"exported model: glpsol and cbc agree", test_exported_model_other_solvers},
        {"time limit before any plan is an error", test_time_limit_without_plan},
        {"constraint families evaluated at a plan", test_family_rows_at_plan},
        {"the DP cast is a plan of its own only where it changes the reduction", test_dp_cast_offered_where_it_changes_the_reduction},
        {NULL, NULL},
    };
    return pp_test_main("planner", tests);
}
