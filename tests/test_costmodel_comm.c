/*
 * test_costmodel_comm.c: the communication and optimizer terms of the cost
 * model (formulate/costmodel.c) against hand calculations: pipeline sends,
 * the context-parallel ring and its overlap, the DP overlap epigraphs, the
 * Adam step, and per-link byte accounting.
 */
#include "costmodel.h"
#include "testutil.h"

#include <math.h>
#include <string.h>

#define REL_EQ(a, b, tol) CU_ASSERT(fabs((a) - (b)) <= (tol) * fabs(b) + 1e-300)

static pp_problem problem(long nodes, long batch, int seq)
{
    pp_problem p;
    memset(&p, 0, sizeof p);
    p.model = (pp_model){.layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 8, .ffn_hidden = 14336,
                         .gated_mlp = true, .tie_embeddings = false, .vocab = 128256, .seq_len = seq};
    pp_gpu *g = &p.cluster.gpu;
    g->peak_tflops[PP_PREC_BF16] = 989;
    g->memory_gib = 80;
    g->hbm_GBps = 3350;
    g->eff = (pp_efficiency){.gemm = 0.7, .attention = 0.5, .hbm = 0.8, .nvlink = 0.9, .network = 0.8,
                             .kernel_us = 5, .nvlink_latency_us = 5, .network_latency_us = 10};
    p.cluster.gpus_per_node = 8;
    p.cluster.nodes = nodes;
    p.cluster.intra_node_GBps = 450;
    p.cluster.inter_node_Gbps = 400;
    p.training.global_batch = batch;
    p.training.precision = PP_PREC_BF16;
    pp_framework_features(PP_FW_MEGATRON_CORE, &p.training);
    p.memory_headroom = 0.1;
    p.n_codecs = 1;
    strcpy(p.codecs[0].id, "none");
    p.codecs[0].lossless_ratio = 1;
    p.compress_min_bytes = 1 << 20;
    p.has_cluster = true;
    return p;
}

static pp_plan plan(int tp, int pp, int dp, int cp, int mb)
{
    pp_plan pl;
    memset(&pl, 0, sizeof pl);
    pl.tp = tp;
    pl.pp = pp;
    pl.dp = dp;
    pl.cp = cp;
    pl.micro_batch = mb;
    pl.virtual_stages = 1;
    pl.tp_depth = 1;
    return pl;
}

/* Pipeline: 2 v sends per micro-batch of b (s/c) h 16-bit values split by
 * tp, each alpha + bytes / bandwidth on the link between stages. */
static void test_pipeline_sends(void)
{
    pp_problem p = problem(4, 64, 4096);
    pp_plan pl = plan(8, 4, 1, 1, 2); /* one stage per node: sends cross the network */
    pp_comm_term t;
    pp_term_pp_comm(&p, &pl, &t);
    double bytes = 2.0 * 2 * 4096 * 4096 / 8;
    double one = 10e-6 + bytes / (400e9 / 8 * 0.8);
    REL_EQ(t.wire_s, 2 * one, 1e-12);
    CU_ASSERT(t.inter_node);
    REL_EQ(t.bytes_network, 2 * bytes, 1e-12);
    pl.virtual_stages = 2;
    pp_term_pp_comm(&p, &pl, &t);
    REL_EQ(t.wire_s, 4 * one, 1e-12);
    /* the whole pipeline in one node: NVLink */
    pp_problem q = problem(1, 64, 4096);
    pp_plan in = plan(2, 4, 1, 1, 2);
    pp_term_pp_comm(&q, &in, &t);
    REL_EQ(t.wire_s, 2 * (5e-6 + 2.0 * 2 * 4096 * 4096 / 2 / (450e9 * 0.9)), 1e-12);
    CU_ASSERT(!t.inter_node);
}

/* Context parallel: the ring's K/V traffic hides behind attention when the
 * link is fast enough, and only the excess shows when it is not. */
static void test_context_parallel_overlap(void)
{
    pp_problem p = problem(1, 8, 32768);
    pp_plan pl = plan(1, 1, 4, 2, 1);
    pp_stage_term st;
    pp_term_stage(&p, &pl, &st);
    CU_ASSERT_DOUBLE_EQUAL(st.cp_exposed_s, 0.0, 0.0); /* NVLink: hidden */
    /* a very slow link: the exchange cannot hide */
    p.cluster.intra_node_GBps = 0.5;
    pp_term_stage(&p, &pl, &st);
    CU_ASSERT(st.cp_exposed_s > 0.0);
    /* exposed = 32 layers x (forward excess + backward excess) with
     * backward = 2 x forward on both sides */
    double kv = 2.0 * 2 * 1 * (32768 / 2) * (4096.0 * 8 / 32);
    double ring = 1 * (5e-6 + kv / (0.5e9 * 0.9));
    double per_layer = st.cp_exposed_s / 32;
    CU_ASSERT(per_layer < 3 * ring); /* at most the whole exchange shows */
    CU_ASSERT(per_layer > 3 * ring * 0.5);
}

/* The Adam step reads and writes 32 bytes per parameter of its shard. */
static void test_optimizer(void)
{
    pp_problem p = problem(1, 8, 4096);
    pp_plan pl = plan(1, 1, 8, 1, 1);
    double psi = 32 * pp_layer_params(&p.model) + 2 * pp_embedding_params(&p.model);
    REL_EQ(pp_term_optimizer_s(&p, &pl), 32.0 * psi / (3350e9 * 0.8), 1e-12);
    pl.zero = 1;
    REL_EQ(pp_term_optimizer_s(&p, &pl), 32.0 * psi / 8 / (3350e9 * 0.8), 1e-12);
}

/* DP overlap: the gradient reduction hides behind the last backward; with
 * overlap off all of it shows. */
static void test_dp_overlap_epigraph(void)
{
    pp_problem p = problem(4, 256, 4096);
    pp_plan pl = plan(8, 1, 4, 1, 1);
    pl.zero = 1;
    pp_stage_term st;
    pp_dp_term dp;
    pp_term_stage(&p, &pl, &st);
    pp_term_dp_comm(&p, &pl, &dp);
    REL_EQ(pp_dp_once_window_s(&p, &pl, &st), st.bwd_s, 1e-15);
    pp_eval ev;
    pp_evaluate(&p, &pl, &ev);
    REL_EQ(ev.time.dp_comm_s + 1e-300, fmax(0.0, dp.once_wire_s - st.bwd_s) + 1e-300, 1e-12);
    p.training.dp_overlap = false;
    pp_evaluate(&p, &pl, &ev);
    REL_EQ(ev.time.dp_comm_s, dp.once_wire_s, 1e-12);
}

/* Per-link bytes: a hierarchical all-reduce sends 1/k of the buffer's ring
 * share through each NIC and the node's reduce-scatter + all-gather on
 * NVLink. */
static void test_collective_bytes(void)
{
    double nvl, net, M = 1e9;
    pp_collective_bytes(PP_COLL_ALLREDUCE, M, 8, 8, &nvl, &net);
    REL_EQ(nvl, 2.0 * 7 / 8 * M, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(net, 0.0, 0.0);
    pp_collective_bytes(PP_COLL_ALLREDUCE, M, 32, 8, &nvl, &net);
    REL_EQ(net, 2.0 * 3 / 4 * M / 8, 1e-15);
    REL_EQ(nvl, 2.0 * 7 / 8 * M, 1e-15);
    pp_collective_bytes(PP_COLL_ALLGATHER, M, 32, 1, &nvl, &net);
    REL_EQ(net, 31.0 / 32 * M, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(nvl, 0.0, 0.0);
}

/* The published figures of a framework: Megatron-LM 2021 had neither fused
 * attention nor overlap; DeepSpeed gathers module by module. */
static void test_framework_features(void)
{
    pp_training t;
    memset(&t, 0, sizeof t);
    pp_framework_features(PP_FW_MEGATRON_2021, &t);
    CU_ASSERT(!t.flash_attention && !t.dp_overlap && t.param_collectives_per_layer == 1);
    pp_framework_features(PP_FW_DEEPSPEED, &t);
    CU_ASSERT(t.flash_attention && t.dp_overlap && t.param_collectives_per_layer == 6);
    pp_framework_features(PP_FW_FSDP, &t);
    CU_ASSERT(t.flash_attention && t.dp_overlap && t.param_collectives_per_layer == 1);
    CU_ASSERT_STRING_EQUAL(pp_framework_name(PP_FW_DEEPSPEED_2021), "deepspeed-2021");
}

int main(void)
{
    const pp_test tests[] = {
        {"pipeline sends per micro-batch and chunk", test_pipeline_sends},
        {"context-parallel ring hidden behind attention", test_context_parallel_overlap},
        {"Adam step is memory-bound on the shard", test_optimizer},
        {"DP reduction overlaps the last backward", test_dp_overlap_epigraph},
        {"bytes per link of hierarchical collectives", test_collective_bytes},
        {"framework features", test_framework_features},
        {NULL, NULL},
    };
    return pp_test_main("costmodel-comm", tests);
}
