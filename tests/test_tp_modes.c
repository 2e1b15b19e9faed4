/*
 * test_tp_modes.c: 2D / 2.5D / 3D tensor parallelism and the compression
 * model (formulate/cost/, rules.c, space.c), against hand counts of
 * the formulas of docs/cost-model.md section 8 and the codec physics of
 * section 3.
 */
#include "costmodel.h"
#include "rules.h"
#include "space.h"
#include "testutil.h"

#include <math.h>
#include <string.h>

/* A GPT with round numbers on 8-GPU nodes of one fast link class. */
static pp_problem gpt_problem(int hidden, int heads, int layers, int seq, long nodes, long batch)
{
    pp_model m = {.hidden = hidden, .heads = heads, .kv_heads = heads, .ffn_hidden = 4 * hidden, .layers = layers,
                  .vocab = 32768, .seq_len = seq};
    strcpy(m.name, "gpt");
    pp_problem p = pp_test_problem(PP_TEST_A100, m, nodes, batch);
    pp_framework_features(PP_FW_MEGATRON_CORE, &p.training);
    return p;
}

static pp_plan grid_plan(int tp, pp_tp_mode mode, int depth, int pp, int dp, int mb)
{
    pp_plan pl = pp_test_plan(tp, pp, dp, 1, mb);
    pl.tp_mode = mode;
    pl.tp_depth = depth;
    return pl;
}

/* ---- grids and their rules ---------------------------------------------- */

static void test_grid_side(void)
{
    pp_plan pl = grid_plan(16, PP_TP_2D, 1, 1, 1, 4);
    CU_ASSERT_EQUAL(pp_tp_grid_side(&pl), 4);
    pl = grid_plan(64, PP_TP_2P5D, 4, 1, 1, 16);
    CU_ASSERT_EQUAL(pp_tp_grid_side(&pl), 4);
    pl = grid_plan(64, PP_TP_2P5D, 16, 1, 1, 16);
    CU_ASSERT_EQUAL(pp_tp_grid_side(&pl), 2);
    pl = grid_plan(64, PP_TP_3D, 1, 1, 1, 16);
    CU_ASSERT_EQUAL(pp_tp_grid_side(&pl), 4);
    pl = grid_plan(8, PP_TP_2D, 1, 1, 1, 4);
    CU_ASSERT_EQUAL(pp_tp_grid_side(&pl), 0); /* 8 is no square */
    pl = grid_plan(32, PP_TP_2P5D, 3, 1, 1, 4);
    CU_ASSERT_EQUAL(pp_tp_grid_side(&pl), 0); /* 3 does not divide 32 */
    pl = grid_plan(8, PP_TP_1D, 1, 1, 1, 1);
    CU_ASSERT_EQUAL(pp_tp_grid_side(&pl), 8);
}

static void expect_rule(const pp_problem *p, const pp_plan *pl, const char *needle)
{
    pp_error err;
    memset(&err, 0, sizeof err);
    CU_ASSERT_EQUAL(pp_plan_check(p, pl, &err), PP_EINPUT);
    PP_ASSERT_CONTAINS(err.msg, needle);
}

static void test_grid_rules(void)
{
    pp_problem p = gpt_problem(1024, 16, 4, 512, 1, 64); /* 8 GPUs */
    pp_plan ok = grid_plan(4, PP_TP_2D, 1, 1, 2, 2);
    CU_ASSERT_EQUAL(pp_plan_check(&p, &ok, NULL), PP_OK);
    ok = grid_plan(8, PP_TP_2P5D, 2, 1, 1, 4);
    CU_ASSERT_EQUAL(pp_plan_check(&p, &ok, NULL), PP_OK);
    ok = grid_plan(8, PP_TP_3D, 1, 1, 1, 4);
    CU_ASSERT_EQUAL(pp_plan_check(&p, &ok, NULL), PP_OK);

    pp_plan bad = grid_plan(8, PP_TP_2D, 1, 1, 1, 4);
    expect_rule(&p, &bad, "q^2");
    bad = grid_plan(8, PP_TP_2P5D, 1, 1, 1, 4); /* depth 1 is 2D */
    expect_rule(&p, &bad, "tp_depth >= 2");
    bad = grid_plan(4, PP_TP_2D, 1, 1, 2, 1); /* micro-batch split over q = 2 rows */
    expect_rule(&p, &bad, "micro_batch=1");
    bad = grid_plan(8, PP_TP_2P5D, 2, 1, 1, 2); /* split over d q = 4 */
    expect_rule(&p, &bad, "4 ways");
    bad = grid_plan(8, PP_TP_3D, 1, 1, 1, 2); /* split over q^2 = 4 */
    expect_rule(&p, &bad, "4 ways");
    bad = grid_plan(4, PP_TP_2D, 1, 1, 2, 2);
    bad.sequence_parallel = true;
    expect_rule(&p, &bad, "sequence_parallel");
    bad = grid_plan(4, PP_TP_1D, 2, 1, 2, 2);
    expect_rule(&p, &bad, "tp_depth=2");

    pp_problem odd = gpt_problem(1032, 12, 4, 512, 1, 64); /* 3 x 4 heads */
    odd.allow_tp_across_nodes = true;
    odd.cluster.gpus_per_node = 16;
    odd.cluster.nodes = 4;
    odd.training.global_batch = 256;
    bad = grid_plan(64, PP_TP_3D, 1, 1, 1, 16); /* q = 4: 1032 % 16 */
    expect_rule(&odd, &bad, "q^2=16");
}

/* The space offers every grid that fits, 2.5D once per depth d <= q (or
 * per listed depth), and narrows them with search.tp_mode / tp_depth. */
static void test_space_offers_grids(void)
{
    pp_problem p = gpt_problem(4096, 64, 4, 512, 8, 256); /* 64 GPUs */
    p.allow_tp_across_nodes = true;
    p.search[PP_DEC_TP] = (pp_int_list){1, {64}};
    p.search[PP_DEC_PP] = (pp_int_list){1, {1}};
    p.search[PP_DEC_MICRO_BATCH] = (pp_int_list){1, {32}};
    p.search[PP_DEC_VIRTUAL_STAGES] = (pp_int_list){1, {1}};
    pp_space s;
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(pp_space_build(&p, &s, &err), PP_OK);
    int seen[PP_TP_MODE_COUNT] = {0}, depth4 = 0, depth16 = 0;
    for (int i = 0; i < s.n_shapes; i++) {
        const pp_plan *b = &s.shapes[i].base;
        seen[b->tp_mode]++;
        depth4 += b->tp_mode == PP_TP_2P5D && b->tp_depth == 4;
        depth16 += b->tp_mode == PP_TP_2P5D && b->tp_depth == 16;
        /* sequence parallelism only for 1D */
        bool sp_free = pp_space_options(&s, &s.shapes[i], PP_OPT_SEQUENCE_PARALLEL)->n > 1;
        CU_ASSERT(sp_free == (b->tp_mode == PP_TP_1D));
    }
    CU_ASSERT(seen[PP_TP_1D] == 1 && seen[PP_TP_2D] == 1 && seen[PP_TP_3D] == 1);
    CU_ASSERT(depth4 == 1 && depth16 == 0); /* [2,2,16] is deeper than wide */
    pp_space_free(&s);

    p.search[PP_DEC_TP_DEPTH] = (pp_int_list){2, {4, 16}};
    CU_ASSERT_EQUAL_FATAL(pp_space_build(&p, &s, &err), PP_OK);
    depth16 = 0;
    for (int i = 0; i < s.n_shapes; i++)
        depth16 += s.shapes[i].base.tp_mode == PP_TP_2P5D && s.shapes[i].base.tp_depth == 16;
    CU_ASSERT_EQUAL(depth16, 1);
    pp_space_free(&s);

    p.search[PP_DEC_TP_MODE] = (pp_int_list){1, {PP_TP_2P5D}};
    p.search[PP_DEC_TP_DEPTH] = (pp_int_list){1, {4}};
    CU_ASSERT_EQUAL_FATAL(pp_space_build(&p, &s, &err), PP_OK);
    CU_ASSERT_EQUAL(s.n_shapes, 1);
    if (s.n_shapes == 1)
        CU_ASSERT(s.shapes[0].base.tp_mode == PP_TP_2P5D && s.shapes[0].base.tp_depth == 4);
    pp_space_free(&s);
}

/* ---- the compute split ---------------------------------------------------- */

/* Every mode does the same FLOPs: on large, compute-bound shapes the stage
 * time is the same within the launch costs of SUMMA's q steps and the
 * shorter K of a grid's block products (K / (K + 64) of the tile pipeline,
 * under 2 % at these sizes). */
static void test_same_flops(void)
{
    pp_problem p = gpt_problem(8192, 64, 8, 2048, 1, 64);
    p.cluster.gpu.eff.kernel_us = 0;
    pp_stage_term one, grid;
    pp_plan pl = grid_plan(4, PP_TP_1D, 1, 1, 2, 4);
    pl.sequence_parallel = true; /* element-wise work split by t, as in the grids */
    pp_term_stage(&p, &pl, &one);
    pl = grid_plan(4, PP_TP_2D, 1, 1, 2, 4);
    pp_term_stage(&p, &pl, &grid);
    PP_REL_EQ(grid.total_s, one.total_s, 0.02);
    pl = grid_plan(8, PP_TP_3D, 1, 1, 1, 8);
    pp_term_stage(&p, &pl, &grid);
    PP_REL_EQ(grid.total_s, one.total_s, 0.02);
    /* 2.5D [q, q, d] at micro-batch d b is 2D [q, q] at micro-batch b per GPU */
    pp_stage_term two, twofive;
    pl = grid_plan(4, PP_TP_2D, 1, 1, 2, 2);
    pp_term_stage(&p, &pl, &two);
    pl = grid_plan(8, PP_TP_2P5D, 2, 1, 1, 4);
    pp_term_stage(&p, &pl, &twofive);
    PP_REL_EQ(twofive.total_s, two.total_s, 1e-12);
}

/* ---- communication volume --------------------------------------------------- */

/* Hand count of a 2D/2.5D layer's TP bytes per GPU (all inside a node):
 * per linear (K, N), forward all-gathers A = M K/(d q) and B = K N/q,
 * backward two all-gathers and two reduce-scatters of the same; ring factor
 * (q-1)/q; LayerNorm statistics 4 bytes per row, 8 all-reduces a layer. */
static double summa_bytes(const pp_model *m, double M, double q, double d, double layers, double fwd)
{
    double lin[5][2] = {{m->hidden, 3.0 * m->hidden}, {m->hidden, m->hidden}, {m->hidden, m->ffn_hidden},
                        {m->ffn_hidden, m->hidden},   {m->hidden, m->vocab}};
    double f = (q - 1.0) / q, total = 0.0;
    for (int i = 0; i < 5; i++) {
        double A = 2.0 * M * lin[i][0] / (d * q), B = 2.0 * lin[i][0] * lin[i][1] / q;
        total += (i < 4 ? layers * (2.0 + fwd) : 3.0) * f * (A + B);
    }
    double ln = 4.0 * M / (d * q);
    return total + layers * 4.0 * (1.0 + fwd) * 2.0 * f * ln;
}

static void test_summa_volume(void)
{
    pp_problem p = gpt_problem(2048, 16, 4, 1024, 1, 64);
    pp_comm_term c;
    pp_plan pl = grid_plan(4, PP_TP_2D, 1, 1, 2, 4);
    pp_term_tp_comm(&p, &pl, &c);
    double M = 4.0 * 1024;
    PP_REL_EQ(c.bytes_sent, summa_bytes(&p.model, M, 2, 1, 4, 1), 1e-12);
    CU_ASSERT(c.bytes_network == 0.0 && !c.inter_node);
    pl = grid_plan(8, PP_TP_2P5D, 2, 1, 1, 8);
    pp_term_tp_comm(&p, &pl, &c);
    PP_REL_EQ(c.bytes_sent, summa_bytes(&p.model, 8.0 * 1024, 2, 2, 4, 1), 1e-12);
    /* Full recomputation repeats the layers' forward traffic. */
    pl.recompute = PP_RECOMPUTE_FULL;
    pp_term_tp_comm(&p, &pl, &c);
    PP_REL_EQ(c.bytes_sent, summa_bytes(&p.model, 8.0 * 1024, 2, 2, 4, 2), 1e-12);
}

/* 3D: per linear forward X = M K/q^2, W = K N/q^2 gathered and Y = M N/q^2
 * reduce-scattered, backward the same three; ring factor (q-1)/q. */
static void test_3d_volume(void)
{
    pp_problem p = gpt_problem(2048, 16, 4, 1024, 1, 64);
    pp_plan pl = grid_plan(8, PP_TP_3D, 1, 1, 1, 8);
    pp_comm_term c;
    pp_term_tp_comm(&p, &pl, &c);
    const pp_model *m = &p.model;
    double M = 8.0 * 1024, q = 2, f = 0.5;
    double lin[5][2] = {{m->hidden, 3.0 * m->hidden}, {m->hidden, m->hidden}, {m->hidden, m->ffn_hidden},
                        {m->ffn_hidden, m->hidden},   {m->hidden, m->vocab}};
    double expect = 0.0;
    for (int i = 0; i < 5; i++) {
        double K = lin[i][0], N = lin[i][1];
        expect += (i < 4 ? 4.0 : 1.0) * 2.0 * f * 2.0 * (M * K + K * N + M * N) / (q * q);
    }
    expect += 4.0 * 4.0 * 2.0 * f * (8.0 * M / (q * q)); /* LayerNorm: 2 a layer each way, 2 stats */
    PP_REL_EQ(c.bytes_sent, expect, 1e-12);
}

/* The Colossal-AI table's trade: going from 2D [q,q] to 2.5D [q,q,d] at the
 * same micro-batch divides the activation panels by d and keeps the weight
 * panels; when activations dominate (large M) the traffic falls by ~d. */
static void test_depth_divides_activation_traffic(void)
{
    pp_problem p = gpt_problem(1024, 16, 4, 2048, 1, 256);
    p.model.vocab = 1024;
    pp_comm_term two, twofive;
    pp_plan pl = grid_plan(4, PP_TP_2D, 1, 1, 2, 32);
    pp_term_tp_comm(&p, &pl, &two);
    pl = grid_plan(8, PP_TP_2P5D, 2, 1, 1, 32);
    pp_term_tp_comm(&p, &pl, &twofive);
    double ratio = twofive.bytes_sent / two.bytes_sent;
    CU_ASSERT(ratio > 0.5 && ratio < 0.56);
}

/* SUMMA's double buffering hides traffic behind the multiplies: exposed =
 * C/q + (q-1)/q max(0, C - G) per product, never more than C. */
static void test_summa_overlap(void)
{
    pp_problem p = gpt_problem(2048, 16, 4, 1024, 1, 64);
    pp_plan pl = grid_plan(4, PP_TP_2D, 1, 1, 2, 4);
    pp_comm_term fast, slow;
    pp_term_tp_comm(&p, &pl, &fast);
    p.cluster.intra_node_GBps = 1; /* traffic far above the multiplies */
    pp_term_tp_comm(&p, &pl, &slow);
    CU_ASSERT(fast.wire_s > 0.0);
    CU_ASSERT(slow.wire_s > 100.0 * fast.wire_s);
}

/* ---- memory --------------------------------------------------------------- */

static void test_grid_memory(void)
{
    pp_problem p = gpt_problem(4096, 32, 8, 2048, 1, 64);
    double w1, g1, o1, w2, g2, o2;
    pp_plan one = grid_plan(4, PP_TP_1D, 1, 1, 2, 4);
    pp_plan twofive = grid_plan(8, PP_TP_2P5D, 2, 1, 1, 4);
    pp_mem_states_gib(&p, &one, 0, &w1, &g1, &o1);
    pp_mem_states_gib(&p, &twofive, 0, &w2, &g2, &o2);
    PP_REL_EQ(w2, w1, 1e-12); /* weights over q^2 = 4, replicated over the depth */
    /* 2D activations are those of 1D with sequence parallelism */
    pp_plan sp = grid_plan(4, PP_TP_1D, 1, 1, 2, 4);
    sp.sequence_parallel = true;
    pp_plan two = grid_plan(4, PP_TP_2D, 1, 1, 2, 4);
    PP_REL_EQ(pp_layer_activation_bytes(&p, &two, true), pp_layer_activation_bytes(&p, &sp, true), 1e-12);
    /* 3D also keeps its gathered inputs (q times) and weight blocks */
    pp_plan three = grid_plan(8, PP_TP_3D, 1, 1, 1, 4);
    double sbh = 4.0 * 2048 * 4096, sbf = 4.0 * sbh, K_N = 12.0 * 4096.0 * 4096.0;
    pp_plan sp8 = grid_plan(8, PP_TP_1D, 1, 1, 1, 4);
    sp8.sequence_parallel = true;
    PP_REL_EQ(pp_layer_activation_bytes(&p, &three, false),
           pp_layer_activation_bytes(&p, &sp8, false) + (6.0 * sbh + 2.0 * sbf) / 8.0 + 2.0 * K_N / 4.0, 1e-12);
}

/* 2.5D sums its depth layers' weight gradients once per step, even with
 * dp = 1: an all-reduce of the q^2-split gradients over d ranks. */
static void test_depth_allreduce(void)
{
    pp_problem p = gpt_problem(2048, 16, 4, 1024, 1, 64);
    pp_plan pl = grid_plan(8, PP_TP_2P5D, 2, 1, 1, 4);
    pp_dp_term d;
    pp_term_dp_comm(&p, &pl, &d);
    double w, g, o;
    pp_mem_states_gib(&p, &pl, 0, &w, &g, &o);
    double grad_bytes = w * 1024.0 * 1024.0 * 1024.0; /* 2 bytes a parameter, as the weights */
    PP_REL_EQ(d.bytes_sent, 2.0 * 0.5 * grad_bytes, 1e-12);
    CU_ASSERT(d.once_wire_s > 0.0 && d.per_mb_wire_s == 0.0);
    pl = grid_plan(4, PP_TP_2D, 1, 1, 2, 4);
    pl.dp = 2;
    pp_term_dp_comm(&p, &pl, &d);
    PP_REL_EQ(d.bytes_sent, 2.0 * 0.5 * grad_bytes, 1e-12); /* DP of 2D [2,2]: the same gradients */
}

/* ---- compression physics ----------------------------------------------------- */

static void test_codec_ratio_per_type(void)
{
    pp_codec zfp16 = {.lossy = true, .bits_per_value = 16};
    pp_codec zfp8 = {.lossy = true, .bits_per_value = 8};
    pp_codec mpc = {.lossless_ratio = 1.09, .lossless_ratio_16 = 0.85};
    pp_codec old = {.lossless_ratio = 1.09};
    CU_ASSERT_EQUAL(pp_codec_ratio(&zfp16, 16), 1.0); /* rate 16 on 16-bit data saves nothing */
    CU_ASSERT_EQUAL(pp_codec_ratio(&zfp16, 32), 2.0);
    CU_ASSERT_EQUAL(pp_codec_ratio(&zfp8, 16), 2.0);
    CU_ASSERT_EQUAL(pp_codec_ratio(&zfp8, 32), 4.0);
    CU_ASSERT_EQUAL(pp_codec_ratio(&mpc, 32), 1.09);
    CU_ASSERT_EQUAL(pp_codec_ratio(&mpc, 16), 0.85); /* widened to fp32: expands */
    CU_ASSERT_EQUAL(pp_codec_ratio(&old, 16), 1.09);
    CU_ASSERT_EQUAL(pp_codec_ratio(NULL, 16), 1.0);
}

/* fp32 gradients on the wire double the DP bytes; ZFP rate 16 then halves
 * them, and does nothing to 16-bit gradients but cost kernel time. */
static void test_grad_reduce_dtype(void)
{
    pp_problem p = gpt_problem(2048, 16, 4, 1024, 1, 64);
    int zfp16 = pp_test_add_codec(&p, "zfp16", true, 16, 0, 40, 2e-4);
    pp_plan pl = grid_plan(1, PP_TP_1D, 1, 1, 8, 1);
    pp_dp_term d16, d32, z16, z32;
    pp_term_dp_comm(&p, &pl, &d16);
    pl.codec[PP_DIM_DP] = zfp16;
    pp_term_dp_comm(&p, &pl, &z16);
    p.training.grad_reduce_dtype = PP_PREC_FP32;
    pp_term_dp_comm(&p, &pl, &z32);
    pl.codec[PP_DIM_DP] = 0;
    pp_term_dp_comm(&p, &pl, &d32);
    PP_REL_EQ(d32.bytes_sent, 2.0 * d16.bytes_sent, 1e-12);
    PP_REL_EQ(z16.bytes_sent, d16.bytes_sent, 1e-12);
    CU_ASSERT(z16.codec_s > 0.0);
    PP_REL_EQ(z32.bytes_sent, d16.bytes_sent, 1e-12);
    PP_REL_EQ(z32.codec_s, z16.codec_s, 1e-12); /* the codec sees fp32 values either way */
}

/* ZeRO-1/2: the reduce-scatter half carries gradients (DP codec), the
 * all-gather half parameters (params codec); without codecs the two halves
 * are exactly the all-reduce run as rings, which they are (NCCL runs
 * reduce-scatter and all-gather as rings only): the all-reduce itself may
 * take NCCL's tree where it is the faster, never the halves. */
static void test_zero_params_codec(void)
{
    pp_problem p = gpt_problem(2048, 16, 4, 1024, 2, 64);
    int zfp8 = pp_test_add_codec(&p, "zfp8", true, 8, 0, 0, 0.05);
    pp_plan pl = grid_plan(1, PP_TP_1D, 1, 1, 16, 1);
    pp_dp_term z0, z0_tree, z1, dp_only, both;
    pp_term_dp_comm(&p, &pl, &z0_tree);
    p.cluster.nccl_algos = PP_NCCL_ALGO_RING;
    pp_term_dp_comm(&p, &pl, &z0);
    p.cluster.nccl_algos = 0;
    CU_ASSERT(z0_tree.once_wire_s <= z0.once_wire_s);
    pl.zero = 1;
    pp_term_dp_comm(&p, &pl, &z1);
    PP_REL_EQ(z1.once_wire_s + z1.gather_once_wire_s, z0.once_wire_s, 1e-12);
    PP_REL_EQ(z1.once_wire_s, z1.gather_once_wire_s, 1e-12); /* 16-bit gradients and parameters */
    CU_ASSERT_EQUAL(z1.bytes_sent, z0.bytes_sent);
    pl.codec[PP_DIM_DP] = zfp8;
    pp_term_dp_comm(&p, &pl, &dp_only);
    PP_REL_EQ(dp_only.bytes_sent, 0.75 * z0.bytes_sent, 1e-12);
    pl.codec[PP_DIM_PARAMS] = zfp8;
    pp_term_dp_comm(&p, &pl, &both);
    PP_REL_EQ(both.bytes_sent, 0.5 * z0.bytes_sent, 1e-12);
    /* the params codec needs ZeRO >= 1, and is an accuracy dimension */
    p.error_tolerance[PP_DIM_PARAMS] = 0.1;
    pl.zero = 0;
    pl.codec[PP_DIM_DP] = 0;
    expect_rule(&p, &pl, "compression.params");
    pl.zero = 1;
    p.error_tolerance[PP_DIM_PARAMS] = 0.0;
    expect_rule(&p, &pl, "params");
    p.error_tolerance[PP_DIM_PARAMS] = 0.1;
    CU_ASSERT_EQUAL(pp_plan_check(&p, &pl, NULL), PP_OK);
}

/* Messages below compress_min_bytes stay raw. */
static void test_small_messages_raw(void)
{
    pp_problem p = gpt_problem(256, 8, 2, 128, 1, 64);
    int zfp8 = pp_test_add_codec(&p, "zfp8", true, 8, 0, 40, 0.05);
    pp_plan pl = grid_plan(4, PP_TP_1D, 1, 1, 2, 1);
    pp_comm_term raw, c;
    pp_term_tp_comm(&p, &pl, &raw);
    pl.codec[PP_DIM_TP] = zfp8;
    pp_term_tp_comm(&p, &pl, &c); /* 128 x 256 x 2 bytes = 64 KiB < 1 MiB */
    CU_ASSERT_EQUAL(c.bytes_sent, raw.bytes_sent);
    CU_ASSERT_EQUAL(c.codec_s, 0.0);
    p.compress_min_bytes = 0;
    pp_term_tp_comm(&p, &pl, &c);
    PP_REL_EQ(c.bytes_sent, 0.5 * raw.bytes_sent, 1e-12);
}

int main(void)
{
    const pp_test tests[] = {
        {"grid side q of 2D, 2.5D, 3D", test_grid_side},
        {"grid rules: shape, divisibility, micro-batch split, no SP", test_grid_rules},
        {"the space offers every grid, narrowed by tp_mode/tp_depth", test_space_offers_grids},
        {"every mode does the same FLOPs", test_same_flops},
        {"SUMMA volume per GPU (2D, 2.5D) by hand", test_summa_volume},
        {"3D volume per GPU by hand", test_3d_volume},
        {"2.5D divides the activation traffic by d", test_depth_divides_activation_traffic},
        {"SUMMA double buffering hides traffic", test_summa_overlap},
        {"grid memory: weights, activations, 3D's gathered blocks", test_grid_memory},
        {"2.5D depth all-reduce of the weight gradients", test_depth_allreduce},
        {"codec ratio per data type", test_codec_ratio_per_type},
        {"DP gradients in fp32 or 16 bits on the wire", test_grad_reduce_dtype},
        {"ZeRO parameter gathers take the params codec", test_zero_params_codec},
        {"small messages stay uncompressed", test_small_messages_raw},
        {NULL, NULL},
    };
    return pp_test_main("tp_modes", tests);
}
