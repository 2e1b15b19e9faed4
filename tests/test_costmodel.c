/*
 * test_costmodel.c: the cost model against hand calculations and published
 * formulas (formulate/costmodel.c).  Each test names the formula it checks.
 */
#include "costmodel.h"
#include "rules.h"
#include "testutil.h"

#include <math.h>
#include <string.h>

#define REL_EQ(a, b, tol) CU_ASSERT(fabs((a) - (b)) <= (tol) * fabs(b))

static pp_model gpt3_175b(void)
{
    pp_model m = {.layers = 96, .hidden = 12288, .heads = 96, .kv_heads = 96, .ffn_hidden = 49152,
                  .gated_mlp = false, .tie_embeddings = true, .vocab = 51200, .seq_len = 2048};
    strcpy(m.name, "gpt3-175b");
    return m;
}

/* A DGX A100 cluster with round efficiency figures, so that hand
 * calculations stay simple. */
static pp_problem a100_problem(pp_model m, long nodes, long batch)
{
    pp_problem p;
    memset(&p, 0, sizeof p);
    p.model = m;
    pp_gpu *g = &p.cluster.gpu;
    strcpy(g->id, "a100-sxm4-80gb");
    g->peak_tflops[PP_PREC_BF16] = 312;
    g->peak_tflops[PP_PREC_FP16] = 312;
    g->memory_gib = 80;
    g->hbm_GBps = 2039;
    g->nvlink_GBps = 300;
    g->network_Gbps = 200;
    g->gpus_per_node = 8;
    g->eff = (pp_efficiency){.gemm = 0.8, .attention = 0.5, .hbm = 0.8, .nvlink = 0.8, .network = 0.8,
                             .kernel_us = 5, .nvlink_latency_us = 5, .network_latency_us = 10};
    p.cluster.gpus_per_node = 8;
    p.cluster.nodes = nodes;
    p.cluster.intra_node_GBps = 300;
    p.cluster.inter_node_Gbps = 200;
    p.training.global_batch = batch;
    p.training.precision = PP_PREC_BF16;
    p.training.flash_attention = false;
    p.training.dp_overlap = false;
    p.memory_headroom = 0.1;
    p.n_codecs = 1;
    strcpy(p.codecs[0].id, "none");
    p.codecs[0].lossless_ratio = 1;
    p.compress_min_bytes = 1 << 20;
    p.has_cluster = true;
    return p;
}

static pp_plan plan_of(int tp, int pp, int dp, int mb)
{
    pp_plan pl;
    memset(&pl, 0, sizeof pl);
    pl.tp = tp;
    pl.pp = pp;
    pl.dp = dp;
    pl.cp = 1;
    pl.micro_batch = mb;
    pl.virtual_stages = 1;
    pl.tp_depth = 1;
    return pl;
}

/* Megatron-LM: 72 B s L h^2 (1 + s/(6h) + V/(12 L h)) for a GPT with f = 4h. */
static void test_model_flops_gpt(void)
{
    pp_model m = gpt3_175b();
    double B = 1536, s = m.seq_len, L = m.layers, h = m.hidden, V = m.vocab;
    double expect = 72.0 * B * s * L * h * h * (1 + s / (6 * h) + V / (12 * L * h));
    REL_EQ(pp_model_flops_per_step(&m, B), expect, 1e-12);
}

/* Megatron-LM's num_floating_point_operations with GQA and SwiGLU:
 * 12 B s L h^2 (1 + (f/h)(3/2) + g/a + s/h + V/(2 L h)). */
static void test_model_flops_gqa_swiglu(void)
{
    pp_model m = {.layers = 80, .hidden = 8192, .heads = 64, .kv_heads = 8, .ffn_hidden = 28672,
                  .gated_mlp = true, .vocab = 32000, .seq_len = 4096};
    double B = 1024, s = m.seq_len, L = m.layers, h = m.hidden, V = m.vocab, f = m.ffn_hidden;
    double expect = 12.0 * B * s * L * h * h * (1 + f / h * 1.5 + 8.0 / 64 + s / h + V / (2 * L * h));
    REL_EQ(pp_model_flops_per_step(&m, B), expect, 1e-12);
}

/* Full recomputation adds one forward of the layers (Narayanan et al.'s 96
 * B s L h^2 (1 + s/6h + V/16Lh) = 4 forwards of the layers, 3 of the logits);
 * selective adds only the attention core (4 B s^2 h per layer). */
static void test_hardware_flops(void)
{
    pp_model m = gpt3_175b();
    double B = 1536, s = m.seq_len, L = m.layers, h = m.hidden, V = m.vocab;
    double narayanan = 96.0 * B * s * L * h * h * (1 + s / (6 * h) + V / (16 * L * h));
    REL_EQ(pp_hardware_flops_per_step(&m, B, PP_RECOMPUTE_FULL), narayanan, 1e-12);
    double sel = pp_model_flops_per_step(&m, B) + L * 4.0 * B * s * s * h;
    REL_EQ(pp_hardware_flops_per_step(&m, B, PP_RECOMPUTE_SELECTIVE), sel, 1e-12);
    REL_EQ(pp_hardware_flops_per_step(&m, B, PP_RECOMPUTE_NONE), pp_model_flops_per_step(&m, B), 1e-15);
}

/* 12 h^2 + 13 h parameters per GPT layer (Narayanan et al. 2021 §5.1). */
static void test_layer_params(void)
{
    pp_model m = gpt3_175b();
    double h = m.hidden;
    REL_EQ(pp_layer_params(&m), 12 * h * h + 13 * h, 1e-15);
    double total = pp_model_params(&m);
    CU_ASSERT(total > 174e9 && total < 176e9);
}

/* ZeRO Table 1, Psi = 7.5B, N_d = 64: 120, 31.4, 16.6, 1.88 GB. */
static void test_zero_table1(void)
{
    const double expect_GB[4] = {120.0, 31.4, 16.6, 1.88};
    for (int z = 0; z < 4; z++) {
        double w, g, o;
        pp_model_state_bytes(7.5e9, z, 64, &w, &g, &o);
        double GB = (w + g + o) / 1e9;
        CU_ASSERT(fabs(GB / expect_GB[z] - 1.0) < 0.01);
    }
    /* and the 1T model on 1024 GPUs, ZeRO-3: 16 TB / 1024 = 15.6 GB */
    double w, g, o;
    pp_model_state_bytes(1e12, 3, 1024, &w, &g, &o);
    CU_ASSERT(fabs((w + g + o) / 1e9 / 15.6 - 1.0) < 0.01);
}

/* Korthikanti et al. 2022, eqs. 2-5: per-layer activations in bytes. */
static void test_korthikanti_activations(void)
{
    pp_model m = {.layers = 48, .hidden = 6144, .heads = 64, .kv_heads = 64, .ffn_hidden = 24576,
                  .vocab = 51200, .seq_len = 2048};
    pp_problem p = a100_problem(m, 1, 4);
    pp_plan pl = plan_of(8, 1, 1, 4);
    double s = 2048, b = 4, h = 6144, a = 64, t = 8;
    /* no parallelism: s b h (34 + 5 a s / h) */
    pp_plan one = plan_of(1, 1, 1, 4);
    REL_EQ(pp_layer_activation_bytes(&p, &one, true), s * b * h * (34 + 5 * a * s / h), 1e-12);
    /* tensor parallel: s b h (10 + 24/t + 5 a s/(h t)) */
    REL_EQ(pp_layer_activation_bytes(&p, &pl, true), s * b * h * (10 + 24 / t + 5 * a * s / (h * t)), 1e-12);
    /* tensor + sequence parallel: s b h (34/t + 5 a s/(h t)) */
    pl.sequence_parallel = true;
    REL_EQ(pp_layer_activation_bytes(&p, &pl, true), s * b * h * (34 / t + 5 * a * s / (h * t)), 1e-12);
    /* + selective recomputation: 34 s b h / t */
    REL_EQ(pp_layer_activation_bytes(&p, &pl, false), 34 * s * b * h / t, 1e-12);
}

/* 1F1B keeps p micro-batches in flight on stage 0: L x per-layer total, the
 * same for any p (Korthikanti et al. §4.2.3); full recomputation keeps 2sbh
 * per layer plus one layer's working set. */
static void test_activation_in_flight(void)
{
    pp_model m = gpt3_175b();
    pp_problem p = a100_problem(m, 128, 1536);
    pp_plan pl = plan_of(8, 16, 8, 1);
    pl.sequence_parallel = true;
    pl.recompute = PP_RECOMPUTE_SELECTIVE;
    double per_layer = pp_layer_activation_bytes(&p, &pl, false);
    REL_EQ(pp_mem_activations_gib(&p, &pl, 0) * 1073741824.0, 96 * per_layer, 1e-12);
    pl.recompute = PP_RECOMPUTE_FULL;
    double sbh = 2048.0 * 1 * 12288;
    double expect = 6 * 16 * 2 * sbh / 8 + pp_layer_activation_bytes(&p, &pl, true);
    REL_EQ(pp_mem_activations_gib(&p, &pl, 0) * 1073741824.0, expect, 1e-12);
}

/* Ring all-reduce inside a node: 2(n-1)/n M / B + 2(n-1) alpha. */
static void test_allreduce_intra(void)
{
    pp_problem p = a100_problem(gpt3_175b(), 1, 8);
    double M = 100e6, B = 300e9 * 0.8, alpha = 5e-6;
    double expect = 2.0 * 7 / 8 * M / B + 14 * alpha;
    REL_EQ(pp_collective_time_s(&p.cluster, PP_COLL_ALLREDUCE, M, 8, 8), expect, 1e-12);
    /* across nodes, one rank per node: a flat ring on the NIC */
    double net = 200e9 / 8 * 0.8;
    REL_EQ(pp_collective_time_s(&p.cluster, PP_COLL_ALLREDUCE, M, 16, 1), 2.0 * 15 / 16 * M / net + 30 * 10e-6,
           1e-12);
    /* hierarchical: 8 per node, 4 nodes: RS+AG in the node, 1/8 of M across */
    double intra = 2 * (7.0 / 8 * M / B + 7 * alpha);
    double inter = 2.0 * 3 / 4 * (M / 8) / net + 6 * 10e-6;
    REL_EQ(pp_collective_time_s(&p.cluster, PP_COLL_ALLREDUCE, M, 32, 8), intra + inter, 1e-12);
}

/* Pipeline: (m + (p-1)/v) slots; the bubble part is (p-1)/v slots. */
static void test_bubble(void)
{
    pp_problem p = a100_problem(gpt3_175b(), 128, 1536);
    pp_plan pl = plan_of(8, 16, 8, 1);
    CU_ASSERT_EQUAL(pp_microbatches(&p, &pl), 192);
    REL_EQ(pp_pipeline_factor(&p, &pl), 192 + 15.0, 1e-15);
    pl.virtual_stages = 3;
    REL_EQ(pp_pipeline_factor(&p, &pl), 192 + 5.0, 1e-15);
    pp_eval ev;
    pp_evaluate(&p, &pl, &ev);
    double slot = (ev.time.compute_s + ev.time.tp_comm_s + ev.time.pp_comm_s + ev.time.cp_comm_s) / 192;
    REL_EQ(ev.time.bubble_s, 5.0 * slot, 1e-9);
}

/* The parts add up to the step, and the evaluator and pp_step_time_s (the
 * composition the MIP mirrors) agree exactly. */
static void test_parts_add_up(void)
{
    pp_problem p = a100_problem(gpt3_175b(), 128, 1536);
    p.training.dp_overlap = true;
    const int zeros[] = {0, 1, 2, 3};
    for (int z = 0; z < 4; z++) {
        pp_plan pl = plan_of(8, 8, 16, 2);
        pl.zero = zeros[z];
        pl.recompute = (pp_recompute)(z % 3);
        pl.sequence_parallel = z % 2;
        pp_error err;
        CU_ASSERT_EQUAL_FATAL(pp_plan_check(&p, &pl, &err), 0);
        pp_eval ev;
        pp_evaluate(&p, &pl, &ev);
        const pp_time *t = &ev.time;
        double sum = t->compute_s + t->bubble_s + t->exposed_comm_s + t->compression_s + t->optimizer_s;
        REL_EQ(t->step_s, sum, 1e-12);
        REL_EQ(t->exposed_comm_s, t->tp_comm_s + t->cp_comm_s + t->pp_comm_s + t->dp_comm_s, 1e-12);
        REL_EQ(pp_step_time_s(&p, &pl), t->step_s, 1e-12);
        CU_ASSERT(ev.mfu > 0 && ev.mfu < 1);
    }
}

/* A smaller TP degree means larger GEMMs: per-GPU compute efficiency (model
 * FLOPs per second of compute) must not fall as tp shrinks. */
static void test_gemm_efficiency_falls_with_small_shapes(void)
{
    pp_model m = gpt3_175b();
    pp_problem p = a100_problem(m, 1, 8);
    pp_plan big = plan_of(1, 1, 8, 8), small = plan_of(8, 1, 1, 1);
    pp_stage_term a, b;
    pp_term_stage(&p, &big, &a);
    pp_term_stage(&p, &small, &b);
    double flops_a = 8 * 2048.0, flops_b = 2048.0 / 8; /* tokens per GPU, proportional to FLOPs */
    CU_ASSERT(flops_a / (a.fwd_s + a.bwd_s) >= flops_b / (b.fwd_s + b.bwd_s));
}

/* ZeRO-3 moves 1.5x the bytes of ZeRO-1 (Rajbhandari et al. 2020 §7.2.2),
 * with one micro-batch. */
static void test_zero3_volume(void)
{
    pp_problem p = a100_problem(gpt3_175b(), 16, 128);
    pp_plan pl = plan_of(8, 1, 16, 8);
    pp_dp_term z1, z3;
    pl.zero = 1;
    pp_term_dp_comm(&p, &pl, &z1);
    pl.zero = 3;
    pp_term_dp_comm(&p, &pl, &z3);
    REL_EQ(z3.bytes_sent, 1.5 * z1.bytes_sent, 1e-12);
}

/* Compression: a lossy 8-bit codec halves 16-bit DP traffic on the wire and
 * costs codec time; messages under the threshold stay raw. */
static void test_compression(void)
{
    pp_problem p = a100_problem(gpt3_175b(), 16, 128);
    pp_codec *c = &p.codecs[1];
    strcpy(c->id, "zfp8");
    c->lossy = true;
    c->bits_per_value = 8;
    c->compress_GBps = 100;
    c->decompress_GBps = 100;
    p.n_codecs = 2;
    CU_ASSERT_DOUBLE_EQUAL(pp_codec_ratio(c, 16), 2.0, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(pp_codec_ratio(c, 4), 1.0, 1e-15);
    pp_plan pl = plan_of(8, 1, 16, 8);
    pp_dp_term raw, comp;
    pp_term_dp_comm(&p, &pl, &raw);
    pl.codec[PP_DIM_DP] = 1;
    pp_term_dp_comm(&p, &pl, &comp);
    REL_EQ(comp.bytes_sent, raw.bytes_sent / 2, 1e-12);
    CU_ASSERT(comp.codec_s > 0 && raw.codec_s == 0);
    p.compress_min_bytes = 1e15;
    pp_term_dp_comm(&p, &pl, &comp);
    REL_EQ(comp.bytes_sent, raw.bytes_sent, 1e-12);
}

int main(void)
{
    const pp_test tests[] = {
        {"model FLOPs, GPT (Megatron 72BsLh^2)", test_model_flops_gpt},
        {"model FLOPs, GQA + SwiGLU", test_model_flops_gqa_swiglu},
        {"hardware FLOPs with recomputation", test_hardware_flops},
        {"layer parameters 12h^2+13h", test_layer_params},
        {"ZeRO Table 1 model states", test_zero_table1},
        {"Korthikanti activation formulas", test_korthikanti_activations},
        {"activations in flight (1F1B)", test_activation_in_flight},
        {"ring and hierarchical all-reduce", test_allreduce_intra},
        {"pipeline bubble", test_bubble},
        {"parts add up to the step", test_parts_add_up},
        {"GEMM efficiency and shape", test_gemm_efficiency_falls_with_small_shapes},
        {"ZeRO-3 volume 1.5x", test_zero3_volume},
        {"compression ratio and threshold", test_compression},
        {NULL, NULL},
    };
    return pp_test_main("costmodel", tests);
}
