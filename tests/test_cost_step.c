/*
 * test_cost_step.c: the composition of the step (formulate/cost/step.c):
 * the parts add up to the step, the evaluator agrees with pp_step_time_s,
 * and the frameworks' published features.
 */
#include "costmodel.h"
#include "rules.h"
#include "testutil.h"

#include <math.h>
#include <string.h>

/* The parts add up to the step, and the evaluator and pp_step_time_s (the
 * composition the MIP mirrors) agree exactly. */
static void test_parts_add_up(void)
{
    pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 128, 1536);
    p.training.dp_overlap = true;
    const int zeros[] = {0, 1, 2, 3};
    for (int z = 0; z < 4; z++) {
        pp_plan pl = pp_test_plan(8, 8, 16, 1, 2);
        pl.zero = zeros[z];
        pl.recompute = (pp_recompute)(z % 3);
        pl.sequence_parallel = z % 2;
        pp_error err;
        CU_ASSERT_EQUAL_FATAL(pp_plan_check(&p, &pl, &err), 0);
        pp_eval ev;
        pp_evaluate(&p, &pl, &ev);
        const pp_time *t = &ev.time;
        double sum = t->compute_s + t->bubble_s + t->exposed_comm_s + t->compression_s + t->optimizer_s;
        PP_REL_EQ(t->step_s, sum, 1e-12);
        PP_REL_EQ(t->exposed_comm_s, t->tp_comm_s + t->cp_comm_s + t->pp_comm_s + t->dp_comm_s, 1e-12);
        PP_REL_EQ(pp_step_time_s(&p, &pl), t->step_s, 1e-12);
        CU_ASSERT(ev.mfu > 0 && ev.mfu < 1);
    }
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

/* Hidden DP traffic slows the compute by the SMs its kernels take: a step
 * costs f = (20 SMs per 50 GB/s of NIC) / sm_count of the hidden seconds more than on a GPU whose
 * communication would be free (sm_count 0 turns the term off).  The
 * gradient reduction type is the framework's: Megatron-LM and FSDP reduce
 * bf16 gradients in fp32, DeepSpeed in bf16, fp16 stays fp16 (not FSDP). */
static void test_hidden_traffic_contention(void)
{
    pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 128, 1536);
    pp_framework_features(PP_FW_MEGATRON_CORE, &p.training);
    pp_plan pl = pp_test_plan(8, 8, 16, 1, 2);
    pl.zero = 1;
    pp_problem q = p;
    q.cluster.gpu.sm_count = 0;
    CU_ASSERT_DOUBLE_EQUAL(pp_comm_sm_share(&q), 0.0, 0.0);
    /* 20 SMs per 50 GB/s of NIC (DeepSeek-V3's H800): 200 Gb/s drive 10 */
    PP_REL_EQ(pp_comm_sm_share(&p), 0.4 * p.cluster.gpu.network_Gbps / 8.0 / p.cluster.gpu.sm_count, 1e-15);
    pp_stage_term st;
    pp_term_stage(&p, &pl, &st);
    pp_dp_term dp;
    pp_term_dp_comm(&p, &pl, &dp);
    int m = pp_microbatches(&p, &pl);
    double hidden = fmin(dp.once_wire_s, pp_dp_once_window_s(&p, &pl, &st)) +
                    fmin(m * dp.per_mb_wire_s, m * pp_dp_per_mb_window_s(&p, &pl, &st));
    CU_ASSERT(hidden > 0.0);
    double with = pp_step_time_s(&p, &pl), without = pp_step_time_s(&q, &pl);
    PP_REL_EQ(with - without, pp_comm_sm_share(&p) * hidden, 1e-9);

    CU_ASSERT_EQUAL(pp_framework_grad_reduce(PP_FW_MEGATRON_CORE, PP_PREC_BF16), PP_PREC_FP32);
    CU_ASSERT_EQUAL(pp_framework_grad_reduce(PP_FW_MEGATRON_CORE, PP_PREC_FP8), PP_PREC_FP32);
    CU_ASSERT_EQUAL(pp_framework_grad_reduce(PP_FW_MEGATRON_2021, PP_PREC_FP16), PP_PREC_FP16);
    CU_ASSERT_EQUAL(pp_framework_grad_reduce(PP_FW_FSDP, PP_PREC_BF16), PP_PREC_FP32);
    CU_ASSERT_EQUAL(pp_framework_grad_reduce(PP_FW_DEEPSPEED, PP_PREC_BF16), PP_PREC_BF16);
}

int main(void)
{
    const pp_test tests[] = {
        {"parts add up to the step", test_parts_add_up},
        {"framework features", test_framework_features},
        {"hidden DP traffic slows the compute by its SMs; the framework's gradient type", test_hidden_traffic_contention},
        {NULL, NULL},
    };
    return pp_test_main("cost-step", tests);
}
