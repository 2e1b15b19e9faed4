/*
 * test_cost_tp.c: the tensor-parallel term (formulate/cost/tp.c): Megatron's
 * 1D all-reduces by hand, and where a 2D grid's traffic goes.  The grid
 * volumes and SUMMA overlap are checked by hand in test_tp_modes.c.
 */
#include "costmodel.h"
#include "rules.h"
#include "testutil.h"

#include <string.h>

/* Megatron 1D (Shoeybi et al. 2019 §3): per layer four all-reduces of the
 * b s h 16-bit activations, six under full recomputation; inside a node all
 * of it on NVLink.  No tensor parallelism, no traffic. */
static void test_1d_allreduces(void)
{
    pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 1, 8);
    pp_plan pl = pp_test_plan(8, 1, 1, 1, 1);
    double bytes = 2.0 * 1 * 2048 * 12288;
    pp_comm_term t;
    pp_term_tp_comm(&p, &pl, &t);
    PP_REL_EQ(t.wire_s, 4 * 96 * pp_collective_time_s(&p.cluster, PP_COLL_ALLREDUCE, bytes, 8, 8), 1e-12);
    PP_REL_EQ(t.bytes_nvlink, 4 * 96 * 2.0 * 7 / 8 * bytes, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(t.bytes_network, 0.0, 0.0);
    CU_ASSERT(!t.inter_node);
    PP_REL_EQ(t.total_s, t.wire_s + t.codec_s, 1e-15);
    double plain = t.wire_s;
    pl.recompute = PP_RECOMPUTE_FULL;
    pp_term_tp_comm(&p, &pl, &t);
    PP_REL_EQ(t.wire_s, 1.5 * plain, 1e-12);
    /* torchtitan's per-op selective checkpointing (framework fsdp) saves
     * the reduce-scatters' outputs and repeats the all-gathers: five
     * all-reduce volumes a layer under sequence parallelism, six without;
     * Megatron's selective recomputation repeats no collective. */
    pl.recompute = PP_RECOMPUTE_SELECTIVE;
    pp_term_tp_comm(&p, &pl, &t);
    PP_REL_EQ(t.wire_s, plain, 1e-12);
    pp_framework_features(PP_FW_FSDP, &p.training);
    pp_term_tp_comm(&p, &pl, &t);
    PP_REL_EQ(t.wire_s, 1.5 * plain, 1e-12);
    pl.sequence_parallel = true;
    pp_term_tp_comm(&p, &pl, &t);
    PP_REL_EQ(t.wire_s, 1.25 * plain, 1e-12);
    pp_framework_features(PP_FW_MEGATRON_CORE, &p.training);
    pl = pp_test_plan(1, 1, 8, 1, 1);
    pp_term_tp_comm(&p, &pl, &t);
    CU_ASSERT_DOUBLE_EQUAL(t.total_s, 0.0, 0.0);
}

/* A 2D grid of q x q ranks: its column group is q ranks q apart, so a
 * 4 x 4 grid spans two 8-GPU nodes and a 2 x 2 grid stays in one. */
static void test_2d_grid_placement(void)
{
    pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 2, 16);
    pp_plan pl = pp_test_plan(4, 1, 1, 1, 4);
    pl.tp_mode = PP_TP_2D;
    CU_ASSERT_EQUAL_FATAL(pp_tp_grid_side(&pl), 2);
    pp_comm_term t;
    pp_term_tp_comm(&p, &pl, &t);
    CU_ASSERT(t.wire_s > 0.0 && t.bytes_nvlink > 0.0);
    CU_ASSERT_DOUBLE_EQUAL(t.bytes_network, 0.0, 0.0);
    CU_ASSERT(!t.inter_node);
    pl.tp = 16;
    CU_ASSERT_EQUAL_FATAL(pp_tp_grid_side(&pl), 4);
    pp_term_tp_comm(&p, &pl, &t);
    CU_ASSERT(t.inter_node);
    CU_ASSERT(t.bytes_network > 0.0);
    PP_REL_EQ(t.bytes_sent, t.bytes_nvlink + t.bytes_network, 1e-12);
}

/* TP overlap (tp.c): each of a layer's four sequence-parallel collectives
 * is cut into t pieces behind its GEMM, C/t + (t-1)/t max(0, C - G).  The
 * bytes on the wire do not change; the exposed time falls to at most the
 * plain time plus the extra launches, and never below the first pieces. */
static void test_1d_overlap(void)
{
    pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 1, 8);
    pp_framework_features(PP_FW_MEGATRON_CORE, &p.training);
    pp_plan pl = pp_test_plan(8, 1, 1, 1, 1);
    pl.sequence_parallel = true;
    pp_comm_term plain, ov;
    pp_term_tp_comm(&p, &pl, &plain);
    pl.tp_comm_overlap = true;
    pp_error err;
    CU_ASSERT_EQUAL(pp_plan_check(&p, &pl, &err), PP_OK);
    pp_term_tp_comm(&p, &pl, &ov);
    PP_REL_EQ(ov.bytes_nvlink, plain.bytes_nvlink, 1e-12);
    PP_REL_EQ(ov.bytes_sent, plain.bytes_sent, 1e-12);
    double C = pp_collective_time_s(&p.cluster, PP_COLL_ALLGATHER, 2.0 * 2048 * 12288, 8, 8);
    double layers = 96, launches = 96 * 3 * 4 * 7 * p.cluster.gpu.eff.kernel_us * 1e-6;
    CU_ASSERT(ov.wire_s < plain.wire_s);
    CU_ASSERT(ov.wire_s >= layers * 8 * C / 8 + launches - 1e-12); /* 4 forward + 4 backward first pieces */
    CU_ASSERT(ov.wire_s <= plain.wire_s + launches);
    /* GPT-3's GEMMs (12288 wide) outlast their traffic on A100 NVLink:
     * only the first pieces and the launches stay */
    PP_REL_EQ(ov.wire_s, layers * 8 * C / 8 + launches, 1e-9);

    /* PyTorch's AsyncTP (framework fsdp) leaves the backward reduce-scatter
     * after QKV's and MLP-in's data gradient unfused (pytorch/pytorch#149946):
     * two whole collectives a layer instead of their first pieces */
    pp_problem a = p;
    pp_framework_features(PP_FW_FSDP, &a.training);
    pp_comm_term async;
    pp_term_tp_comm(&a, &pl, &async);
    double backward_launches = 96 * 2 * 2 * 7 * p.cluster.gpu.eff.kernel_us * 1e-6;
    PP_REL_EQ(async.wire_s, ov.wire_s + layers * 2 * (C - C / 8) - backward_launches, 1e-9);
    CU_ASSERT(async.wire_s < plain.wire_s);

    /* the rules: sequence parallelism, no TP codec, a framework that has it,
     * the TP group inside a node */
    pl.sequence_parallel = false;
    CU_ASSERT_NOT_EQUAL(pp_plan_check(&p, &pl, NULL), PP_OK);
    pl.sequence_parallel = true;
    pp_problem q = p;
    pp_framework_features(PP_FW_DEEPSPEED, &q.training);
    CU_ASSERT_NOT_EQUAL(pp_plan_check(&q, &pl, NULL), PP_OK);
    q = p;
    q.cluster.gpus_per_node = 4;
    q.cluster.nodes = 2;
    CU_ASSERT_NOT_EQUAL(pp_plan_check(&q, &pl, NULL), PP_OK);
}

/* Megatron's backward (tp.c async_backward_layer_s): a column-parallel
 * layer's input-gradient all-reduce runs behind its weight-gradient GEMM, so
 * of the four all-reduces a layer only the forward pair stays exposed, plus
 * the SMs the hidden pair takes; under sequence parallelism the output
 * gradients' all-gathers stay exposed too and each column-parallel input is
 * gathered again for its weight gradient (five all-reduce volumes a layer on
 * the wire).  Megatron-LM of 2021 (v2.6) ran them in line, and a frozen
 * LoRA weight has no weight gradient to hide behind. */
static void test_1d_async_backward(void)
{
    pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 1, 8);
    pp_framework_features(PP_FW_MEGATRON_2021, &p.training);
    pp_plan pl = pp_test_plan(8, 1, 1, 1, 1);
    double bytes = 2.0 * 1 * 2048 * 12288, layers = 96;
    double C = pp_collective_time_s(&p.cluster, PP_COLL_ALLREDUCE, bytes, 8, 8);
    double half = pp_collective_time_s(&p.cluster, PP_COLL_ALLGATHER, bytes, 8, 8), share = pp_comm_sm_share(&p);
    pp_comm_term inline_, async;
    pp_term_tp_comm(&p, &pl, &inline_);
    PP_REL_EQ(inline_.wire_s, 4 * layers * C, 1e-12);
    p.training.tp_bwd_overlap = true;
    pp_term_tp_comm(&p, &pl, &async);
    /* GPT-3's weight gradients (12288 wide) outlast an all-reduce on A100
     * NVLink: the forward pair and the hidden pair's SM share */
    PP_REL_EQ(async.wire_s, layers * (2 * C + 2 * share * C), 1e-9);
    PP_REL_EQ(async.bytes_nvlink, inline_.bytes_nvlink, 1e-12);
    /* sequence parallelism: the forward's four half-volumes, the output
     * gradients' two gathers, and the hidden gathers' and reduce-scatters' share */
    pl.sequence_parallel = true;
    pp_term_tp_comm(&p, &pl, &async);
    PP_REL_EQ(async.wire_s, layers * (4 * half + 2 * half + 4 * share * half), 1e-9);
    PP_REL_EQ(async.bytes_nvlink, 5.0 / 4.0 * inline_.bytes_nvlink, 1e-12);
    CU_ASSERT(async.wire_s < inline_.wire_s);
    /* full recomputation repeats the exposed forward pair */
    pl.sequence_parallel = false;
    pl.recompute = PP_RECOMPUTE_FULL;
    pp_term_tp_comm(&p, &pl, &async);
    PP_REL_EQ(async.wire_s, layers * (4 * C + 2 * share * C), 1e-9);
    /* LoRA: frozen weights, nothing to hide behind, all in line */
    pl.recompute = PP_RECOMPUTE_NONE;
    p.training.lora_rank = 16;
    pp_term_tp_comm(&p, &pl, &async);
    PP_REL_EQ(async.wire_s, inline_.wire_s, 1e-12);
    /* the frameworks' own: Megatron-Core and today's DeepSpeed issue them so */
    pp_training t;
    memset(&t, 0, sizeof t);
    pp_framework_features(PP_FW_MEGATRON_CORE, &t);
    CU_ASSERT_TRUE(t.tp_bwd_overlap);
    pp_framework_features(PP_FW_DEEPSPEED, &t);
    CU_ASSERT_TRUE(t.tp_bwd_overlap);
    pp_framework_features(PP_FW_MEGATRON_2021, &t);
    CU_ASSERT_FALSE(t.tp_bwd_overlap);
    pp_framework_features(PP_FW_FSDP, &t);
    CU_ASSERT_FALSE(t.tp_bwd_overlap);
}

int main(void)
{
    const pp_test tests[] = {
        {"1D: four all-reduces a layer, six with full recomputation", test_1d_allreduces},
        {"2D grid: the column group crosses nodes", test_2d_grid_placement},
        {"1D overlap: same bytes, only the first pieces exposed behind large GEMMs", test_1d_overlap},
        {"1D backward: the input gradients' collectives behind the weight gradients", test_1d_async_backward},
        {NULL, NULL},
    };
    return pp_test_main("cost-tp", tests);
}
