/*
 * test_cost_dp.c: the data-parallel term under ZeRO, its overlap with the
 * backward pass, and the Adam step (formulate/cost/dp.c), by hand.
 */
#include "costmodel.h"
#include "testutil.h"

#include <math.h>
#include <string.h>

/* ZeRO-3 moves 1.5x the bytes of ZeRO-1 (Rajbhandari et al. 2020 §7.2.2),
 * with one micro-batch; its exposed pieces are its own, not the buckets'. */
static void test_zero3_volume(void)
{
    pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 16, 128);
    pp_plan pl = pp_test_plan(8, 1, 16, 1, 8);
    pp_dp_term z1, z3;
    pl.zero = 1;
    pp_term_dp_comm(&p, &pl, &z1);
    pl.zero = 3;
    pp_term_dp_comm(&p, &pl, &z3);
    PP_REL_EQ(z3.bytes_sent, 1.5 * z1.bytes_sent, 1e-12);
    /* ZeRO-3's last piece shows every micro-batch (per_mb_fixed_s), so the
     * once-a-step tails of ZeRO-0/1/2's buckets are not counted again */
    CU_ASSERT(z1.once_tail_s > 0.0 && z1.gather_tail_s > 0.0);
    CU_ASSERT_EQUAL(z3.once_tail_s, 0.0);
    CU_ASSERT_EQUAL(z3.gather_tail_s, 0.0);
}

/* The optimizer step reads and writes, per parameter of its shard, the
 * gradient norm's 4 bytes, fused Adam's 28 and the cast to 16-bit weights'
 * 6, plus 4 where Megatron or DeepSpeed zero their gradient buffer and 8
 * where fp16 unscales the gradients. */
static void test_optimizer(void)
{
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(4096), 1, 8);
    pp_plan pl = pp_test_plan(1, 1, 8, 1, 1);
    double psi = 32 * pp_layer_params(&p.model) + 2 * pp_embedding_params(&p.model), hbm = 3350e9 * 0.8;
    PP_REL_EQ(pp_term_optimizer_s(&p, &pl), 42.0 * psi / hbm, 1e-12); /* Megatron-Core, bf16 */
    pl.zero = 1;
    PP_REL_EQ(pp_term_optimizer_s(&p, &pl), 42.0 * psi / 8 / hbm, 1e-12);
    p.training.precision = PP_PREC_FP16;
    PP_REL_EQ(pp_term_optimizer_s(&p, &pl), 50.0 * psi / 8 / hbm, 1e-12);
    pp_framework_features(PP_FW_FSDP, &p.training);
    PP_REL_EQ(pp_term_optimizer_s(&p, &pl), 46.0 * psi / 8 / hbm, 1e-12);
    p.training.precision = PP_PREC_BF16;
    PP_REL_EQ(pp_term_optimizer_s(&p, &pl), 38.0 * psi / 8 / hbm, 1e-12);
}

/* DP overlap: the gradient reduction hides behind the last backward and,
 * under Megatron-Core (--overlap-param-gather), the gather of the updated
 * parameters behind the next first forward, all but the last gradient
 * bucket and the first parameter bucket; DeepSpeed's gather shows, and
 * under its pipeline engine the gradient reduction too; with overlap off
 * all of it shows. */
static void test_dp_overlap_epigraph(void)
{
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(4096), 4, 256);
    pp_plan pl = pp_test_plan(8, 1, 4, 1, 1);
    pl.zero = 1;
    pp_stage_term st;
    pp_dp_term dp;
    pp_term_stage(&p, &pl, &st);
    pp_term_dp_comm(&p, &pl, &dp);
    PP_REL_EQ(pp_dp_once_window_s(&p, &pl, &st), st.bwd_s, 1e-15);
    PP_REL_EQ(pp_dp_gather_window_s(&p, &pl, &st), st.fwd_s, 1e-15);
    CU_ASSERT(dp.gather_once_wire_s > 0.0);
    pp_eval ev;
    pp_evaluate(&p, &pl, &ev);
    double f = pp_comm_sm_share(&p);
    /* the last gradient bucket and the first parameter bucket show whatever
     * the window: one bucket's share of each (the same buckets carry both) */
    CU_ASSERT(dp.once_tail_s > 0.0 && dp.once_tail_s < 0.1 * dp.once_wire_s);
    PP_REL_EQ(dp.once_tail_s / dp.once_wire_s, dp.gather_tail_s / dp.gather_once_wire_s, 1e-12);
    double once = dp.once_wire_s - dp.once_tail_s, gather = dp.gather_once_wire_s - dp.gather_tail_s;
    double once_x = fmax(0.0, once - st.bwd_s), gather_x = fmax(0.0, gather - st.fwd_s);
    double expect = dp.once_tail_s + dp.gather_tail_s + once_x + gather_x + f * (once - once_x + gather - gather_x);
    PP_REL_EQ(ev.time.dp_comm_s, expect, 1e-12);
    pp_framework_features(PP_FW_DEEPSPEED, &p.training);
    CU_ASSERT_DOUBLE_EQUAL(pp_dp_gather_window_s(&p, &pl, &st), 0.0, 0.0);
    PP_REL_EQ(pp_dp_once_window_s(&p, &pl, &st), st.bwd_s, 1e-15);
    pp_plan piped = pp_test_plan(8, 2, 2, 1, 1); /* DeepSpeed's pipeline engine reduces after the last backward */
    CU_ASSERT_DOUBLE_EQUAL(pp_dp_once_window_s(&p, &piped, &st), 0.0, 0.0);
    pp_framework_features(PP_FW_MEGATRON_CORE, &p.training);
    p.training.dp_overlap = false; /* one bucket now: its own wire */
    pp_term_dp_comm(&p, &pl, &dp);
    pp_evaluate(&p, &pl, &ev);
    PP_REL_EQ(ev.time.dp_comm_s, dp.once_wire_s + dp.gather_once_wire_s, 1e-12);
    PP_REL_EQ(dp.once_tail_s, dp.once_wire_s, 1e-12);
}

/* The once-a-step traffic goes out in the framework's buckets, each a
 * collective with its own latency: Megatron-Core max(40M, 1M x dp_cp)
 * parameters with overlap_grad_reduce (one bucket without), DeepSpeed 5e8
 * elements; interleaved chunks bucket apart.  Llama 3 8B on 64 H100 (8
 * nodes), ZeRO-1: 8.03e9 parameters in 126 buckets of 64M, fp32 gradients,
 * the updated bf16 parameters gathered in the same buckets. */
static void test_dp_buckets(void)
{
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(4096), 8, 512);
    pp_plan pl = pp_test_plan(1, 1, 64, 1, 1);
    pl.zero = 1;
    double psi = 32 * pp_layer_params(&p.model) + 2 * pp_embedding_params(&p.model);
    CU_ASSERT_FATAL(psi > 8.0e9 && psi < 8.1e9);
    const pp_cluster *c = &p.cluster;
    struct {
        pp_framework fw;
        bool overlap;
        double buckets, grad_bytes;
    } cases[] = {
        {PP_FW_MEGATRON_CORE, true, ceil(psi / 64e6), 4.0},  /* 126: max(40M, 64 x 1M) */
        {PP_FW_MEGATRON_CORE, false, 1.0, 4.0},
        {PP_FW_DEEPSPEED, true, ceil(psi / 5e8), 2.0},       /* 17 */
    };
    CU_ASSERT_DOUBLE_EQUAL(cases[0].buckets, 126.0, 0.0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pp_framework_features(cases[i].fw, &p.training);
        p.training.dp_overlap = cases[i].overlap;
        p.training.grad_reduce_dtype = cases[i].grad_bytes == 4.0 ? PP_PREC_FP32 : PP_PREC_BF16;
        pp_dp_term dp;
        pp_term_dp_comm(&p, &pl, &dp);
        double B = cases[i].buckets;
        /* the halves are a ring reduce-scatter and a ring all-gather (NCCL runs them as rings only) */
        double rs = B * pp_collective_time_s(c, PP_COLL_REDUCESCATTER, cases[i].grad_bytes * psi / B, 64, 8);
        double ag = B * pp_collective_time_s(c, PP_COLL_ALLGATHER, 2.0 * psi / B, 64, 8);
        PP_REL_EQ(dp.once_wire_s, rs, 1e-12);
        PP_REL_EQ(dp.gather_once_wire_s, ag, 1e-12);
    }
    /* more buckets, more latency: the 126 of the overlap cost more wire time
     * than the one bucket of the same bytes */
    pp_dp_term one, many;
    pp_framework_features(PP_FW_MEGATRON_CORE, &p.training);
    p.training.grad_reduce_dtype = PP_PREC_FP32;
    pp_term_dp_comm(&p, &pl, &many);
    p.training.dp_overlap = false;
    pp_term_dp_comm(&p, &pl, &one);
    CU_ASSERT(many.once_wire_s > one.once_wire_s);
    PP_REL_EQ(many.bytes_sent, one.bytes_sent, 1e-12);
    /* four interleaved chunks: four buffers of a quarter, 32 buckets each */
    p.training.dp_overlap = true;
    pl.virtual_stages = 4;
    pl.pp = 1;
    pp_dp_term v4;
    pp_term_dp_comm(&p, &pl, &v4);
    double per_chunk = 4.0 * ceil(psi / 4.0 / 64e6);
    CU_ASSERT_DOUBLE_EQUAL(per_chunk, 128.0, 0.0);
    double chunk_s = pp_collective_time_s(c, PP_COLL_REDUCESCATTER, 4.0 * psi / per_chunk, 64, 8);
    PP_REL_EQ(v4.once_wire_s, per_chunk * chunk_s, 1e-12);
}

/* A layer captured as a CUDA graph waits for its parameters' buckets in
 * turn (one pre-hook for the layer; Megatron-Core dispatches each next
 * bucket's all-gather only when the previous one is waited on), so of its
 * kb buckets only the one gathered during the previous layer hides.  Llama 3
 * 8B on 64 H100, ZeRO-1: 126 buckets over 32 layers, kb = 3.94; eager, only
 * the step's first bucket waits.  The gradient reduce-scatter is unchanged. */
static void test_gather_under_cuda_graphs(void)
{
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(4096), 8, 512);
    pp_plan pl = pp_test_plan(1, 1, 64, 1, 1);
    pl.zero = 1;
    pp_dp_term eager, graphed;
    pp_term_dp_comm(&p, &pl, &eager);
    PP_REL_EQ(eager.gather_tail_s, eager.gather_once_wire_s / 126.0, 1e-12);
    p.training.cuda_graphs = PP_GRAPHS_PARTIAL;
    pp_term_dp_comm(&p, &pl, &graphed);
    double kb = 126.0 / 32.0;
    PP_REL_EQ(graphed.gather_tail_s, graphed.gather_once_wire_s * (1.0 / 126.0 + 1.0 - 1.0 / kb), 1e-12);
    PP_REL_EQ(graphed.once_tail_s, eager.once_tail_s, 1e-15);
    PP_REL_EQ(graphed.gather_once_wire_s, eager.gather_once_wire_s, 1e-15);
    /* priced in the step: the graphed plan waits longer, by no more than the hidden gather */
    pp_eval ev_g, ev_e;
    pp_evaluate(&p, &pl, &ev_g);
    p.training.cuda_graphs = PP_GRAPHS_NONE;
    pp_evaluate(&p, &pl, &ev_e);
    CU_ASSERT(ev_g.time.dp_comm_s > ev_e.time.dp_comm_s);
    CU_ASSERT(ev_g.time.dp_comm_s - ev_e.time.dp_comm_s <= graphed.gather_once_wire_s - graphed.gather_tail_s +
                                                              graphed.gather_tail_s - eager.gather_tail_s + 1e-12);
    /* one bucket a layer or fewer: nothing more waits */
    pp_framework_features(PP_FW_DEEPSPEED, &p.training);
    p.training.cuda_graphs = PP_GRAPHS_PARTIAL;
    pp_term_dp_comm(&p, &pl, &graphed);
    PP_REL_EQ(graphed.gather_tail_s, graphed.gather_once_wire_s / ceil(32 * pp_layer_params(&p.model) / 5e8 +
                                                                          2 * pp_embedding_params(&p.model) / 5e8),
              1e-12);
}

/* ZeRO-2 reduce-scatters every micro-batch where the framework syncs
 * gradients every micro-batch (DeepSpeed, Megatron FSDP, FSDP alone), and
 * once under FSDP's pipeline schedule, which holds the unsharded gradients
 * until then: the memory the once-a-step traffic costs. */
static void test_zero2_sync_per_framework(void)
{
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_gpt3_175b(), 16, 128);
    pp_plan pl = pp_test_plan(8, 4, 4, 1, 1);
    pl.zero = 2;
    CU_ASSERT_FATAL(pp_microbatches(&p, &pl) > 1);
    pp_dp_term mc, fs;
    double w, g_mc, g_fs, o;
    p.training.framework = PP_FW_MEGATRON_CORE;
    pp_term_dp_comm(&p, &pl, &mc);
    pp_mem_states_gib(&p, &pl, 0, &w, &g_mc, &o);
    p.training.framework = PP_FW_FSDP;
    pp_term_dp_comm(&p, &pl, &fs);
    pp_mem_states_gib(&p, &pl, 0, &w, &g_fs, &o);
    CU_ASSERT(mc.per_mb_wire_s > 0.0);
    CU_ASSERT_DOUBLE_EQUAL(fs.per_mb_wire_s, 0.0, 0.0);
    /* the unsharded gradients (2 or 4 bytes a parameter) beside a shard of
     * 4 / 4: at least three times the shard alone */
    CU_ASSERT(g_fs > 2.9 * g_mc);
    pl.pp = 1;
    pl.dp = 16;
    pp_term_dp_comm(&p, &pl, &fs);
    CU_ASSERT(fs.per_mb_wire_s > 0.0);
}

/* A plan whose DP codec casts the gradients to bf16 runs as Megatron-Core's
 * --grad-reduce-in-bf16, which the launch settings print for it: the same
 * run as a problem reducing in bf16 (training.grad_reduce_dtype), so both
 * are priced alike, time and memory: the gradients held in bf16 with the
 * optimizer's fp32 copy, half the DP bytes, and no cast kernel.  A problem
 * that states the type it holds gradients in keeps it; FSDP holds them in
 * its reduce type too, DeepSpeed in 16 bits either way. */
static void test_dp_cast_is_the_reduce_type(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    const char *fws[] = {"megatron-core", "fsdp", "deepspeed"};
    for (int f = 0; f < 3; f++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{'model': 'llama3-8b', 'cluster': {'gpu': 'h100-sxm5-80gb', 'gpus_per_node': 8, 'nodes': 4}, "
                 "'training': {'global_batch': 128, 'precision': 'bf16', 'framework': '%s', "
                 "'grad_reduce_dtype': 'fp32'}}",
                 fws[f]);
        pp_problem cast, reduce16;
        pp_test_load(json, &cat, &cast);
        reduce16 = cast;
        reduce16.training.grad_reduce_dtype = PP_PREC_BF16;
        reduce16.training.grad_accum_bytes = pp_framework_grad_accum(reduce16.training.framework, PP_PREC_BF16,
                                                                      PP_PREC_BF16) == PP_PREC_FP32 ? 4 : 2;
        int bf16 = -1;
        for (int i = 0; i < cast.n_codecs; i++)
            if (strcmp(cast.codecs[i].id, "bf16") == 0)
                bf16 = i;
        CU_ASSERT_FATAL(bf16 > 0);
        pp_plan pl = pp_test_plan(2, 1, 16, 1, 1);
        pl.zero = f == 1 ? 2 : 1;
        pp_plan plain = pl;
        pl.codec[PP_DIM_DP] = bf16;
        CU_ASSERT(pp_plan_dp_cast16(&cast, &pl));
        CU_ASSERT_EQUAL(pp_plan_grad_reduce(&cast, &pl), PP_PREC_BF16);
        CU_ASSERT_EQUAL(pp_plan_grad_reduce(&cast, &plain), PP_PREC_FP32);
        pp_eval a, b, fp32;
        pp_evaluate(&cast, &pl, &a);
        pp_evaluate(&reduce16, &plain, &b);
        pp_evaluate(&cast, &plain, &fp32);
        PP_REL_EQ(a.time.step_s, b.time.step_s, 1e-12);
        PP_REL_EQ(a.mem.gradients_gib, b.mem.gradients_gib, 1e-12);
        PP_REL_EQ(a.mem.optimizer_gib, b.mem.optimizer_gib, 1e-12);
        PP_REL_EQ(a.mem.total_gib, b.mem.total_gib, 1e-12);
        CU_ASSERT_EQUAL(a.time.compression_s, 0.0);
        /* against the fp32 reduction: half the gradient bytes on the wire */
        CU_ASSERT(a.bytes_network_per_step < 0.75 * fp32.bytes_network_per_step);
        /* DeepSpeed holds 16-bit gradients whatever it reduces in */
        PP_REL_EQ(a.mem.gradients_gib, (f == 2 ? 1.0 : 0.5) * fp32.mem.gradients_gib, 1e-12);
        /* a stated holding type stays (Megatron-LM cannot run it; the launch notes say so) */
        pp_problem held = cast;
        held.training.grad_accum_given = true;
        pp_eval h;
        pp_evaluate(&held, &pl, &h);
        PP_REL_EQ(h.mem.gradients_gib, fp32.mem.gradients_gib, 1e-12);
    }
    pp_catalog_free(&cat);
}

int main(void)
{
    const pp_test tests[] = {
        {"ZeRO-3 volume 1.5x", test_zero3_volume},
        {"the optimizer step is memory-bound on the shard", test_optimizer},
        {"DP reduction overlaps the last backward", test_dp_overlap_epigraph},
        {"ZeRO-2 reduce-scatters every micro-batch, but once under FSDP's pipeline", test_zero2_sync_per_framework},
        {"the once-a-step traffic goes out in the framework's buckets", test_dp_buckets},
        {"a CUDA-graphed layer waits for its parameter buckets in turn", test_gather_under_cuda_graphs},
        {"a bf16 DP cast is the reduction's type, priced as one", test_dp_cast_is_the_reduce_type},
        {NULL, NULL},
    };
    return pp_test_main("cost-dp", tests);
}
