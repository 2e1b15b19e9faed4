/*
 * test_cost_step.c: the composition of the step (formulate/cost/step.c):
 * the parts add up to the step, the evaluator agrees with pp_step_time_s,
 * and the frameworks' published features.
 */
#include "costmodel.h"
#include "rules.h"
#include "testutil.h"

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

int main(void)
{
    const pp_test tests[] = {
        {"parts add up to the step", test_parts_add_up},
        {"framework features", test_framework_features},
        {NULL, NULL},
    };
    return pp_test_main("cost-step", tests);
}
