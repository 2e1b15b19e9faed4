/*
 * test_cost_kernels.c: the stage term (formulate/cost/kernels.c): the
 * matrix-multiply roofline on small shapes and the context-parallel
 * exchange hidden behind attention.
 */
#include "costmodel.h"
#include "testutil.h"

/* A smaller TP degree means larger GEMMs: per-GPU compute efficiency (model
 * FLOPs per second of compute) must not fall as tp shrinks. */
static void test_gemm_efficiency_falls_with_small_shapes(void)
{
    pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 1, 8);
    pp_plan big = pp_test_plan(1, 1, 8, 1, 8), small = pp_test_plan(8, 1, 1, 1, 1);
    pp_stage_term a, b;
    pp_term_stage(&p, &big, &a);
    pp_term_stage(&p, &small, &b);
    double flops_a = 8 * 2048.0, flops_b = 2048.0 / 8; /* tokens per GPU, proportional to FLOPs */
    CU_ASSERT(flops_a / (a.fwd_s + a.bwd_s) >= flops_b / (b.fwd_s + b.bwd_s));
}

/* Context parallel: the ring's K/V traffic hides behind attention when the
 * link is fast enough, and only the excess shows when it is not. */
static void test_context_parallel_overlap(void)
{
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(32768), 1, 8);
    pp_plan pl = pp_test_plan(1, 1, 4, 2, 1);
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

int main(void)
{
    const pp_test tests[] = {
        {"GEMM efficiency and shape", test_gemm_efficiency_falls_with_small_shapes},
        {"context-parallel ring hidden behind attention", test_context_parallel_overlap},
        {NULL, NULL},
    };
    return pp_test_main("cost-kernels", tests);
}
