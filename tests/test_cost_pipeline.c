/*
 * test_cost_pipeline.c: pipeline parallelism (formulate/cost/pipeline.c):
 * micro-batches, the 1F1B bubble and the sends between stages, by hand.
 */
#include "costmodel.h"
#include "rules.h"
#include "testutil.h"

/* Pipeline: 2 v sends per micro-batch of b (s/c) h 16-bit values split by
 * tp, each alpha + bytes / bandwidth on the link between stages; under
 * Megatron-Core's interleaved schedule (overlap_p2p_comm) they move behind
 * the chunks' compute: the same bytes, none of the time exposed. */
static void test_pipeline_sends(void)
{
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(4096), 4, 64);
    pp_plan pl = pp_test_plan(8, 4, 1, 1, 2); /* one stage per node: sends cross the network */
    pl.sequence_parallel = true;              /* each TP rank holds and sends s/t tokens */
    pp_comm_term t;
    pp_term_pp_comm(&p, &pl, &t);
    double bytes = 2.0 * 2 * 4096 * 4096 / 8;
    double one = 10e-6 + bytes / (400e9 / 8 * 0.8);
    PP_REL_EQ(t.wire_s, 2 * one, 1e-12);
    CU_ASSERT(t.inter_node);
    PP_REL_EQ(t.bytes_network, 2 * bytes, 1e-12);
    pl.virtual_stages = 2;
    pp_framework_features(PP_FW_MEGATRON_2021, &p.training); /* the paper's interleaving: on the critical path */
    pp_term_pp_comm(&p, &pl, &t);
    PP_REL_EQ(t.wire_s, 4 * one, 1e-12);
    pp_framework_features(PP_FW_MEGATRON_CORE, &p.training);
    pp_term_pp_comm(&p, &pl, &t);
    CU_ASSERT_DOUBLE_EQUAL(t.wire_s, 0.0, 0.0);
    PP_REL_EQ(t.bytes_network, 4 * bytes, 1e-12);
    /* without sequence parallelism Megatron-Core's TP ranks each send the
     * whole activation; Megatron-LM 2021 scattered it (1/t a rank) and
     * all-gathered it over NVLink at the receiver (Narayanan et al. 2021 §4.1) */
    pl.virtual_stages = 1;
    pl.sequence_parallel = false;
    pp_term_pp_comm(&p, &pl, &t);
    double whole = 10e-6 + 8 * bytes / (400e9 / 8 * 0.8);
    PP_REL_EQ(t.wire_s, 2 * whole, 1e-12);
    PP_REL_EQ(t.bytes_network, 2 * 8 * bytes, 1e-12);
    pp_framework_features(PP_FW_MEGATRON_2021, &p.training);
    pp_term_pp_comm(&p, &pl, &t);
    double gather = 7 * bytes / (450e9 * 0.9) + 7 * 5e-6; /* a ring of 8 over NVLink */
    PP_REL_EQ(t.wire_s, 2 * (one + gather), 1e-12);
    PP_REL_EQ(t.bytes_network, 2 * bytes, 1e-12);
    PP_REL_EQ(t.bytes_nvlink, 2 * 7 * bytes, 1e-12);
    p.training.p2p_scatter_gather = false; /* --no-scatter-gather-tensors-in-pipeline */
    pp_term_pp_comm(&p, &pl, &t);
    PP_REL_EQ(t.wire_s, 2 * whole, 1e-12);
    pp_framework_features(PP_FW_DEEPSPEED, &p.training); /* DeepSpeed partitions its pipeline tensors */
    pp_term_pp_comm(&p, &pl, &t);
    PP_REL_EQ(t.wire_s, 2 * (one + gather), 1e-12);
    /* the whole pipeline in one node: NVLink */
    pp_problem q = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(4096), 1, 64);
    pp_plan in = pp_test_plan(2, 4, 1, 1, 2);
    in.sequence_parallel = true;
    pp_term_pp_comm(&q, &in, &t);
    PP_REL_EQ(t.wire_s, 2 * (5e-6 + 2.0 * 2 * 4096 * 4096 / 2 / (450e9 * 0.9)), 1e-12);
    CU_ASSERT(!t.inter_node);
}

/* Narayanan et al. 2021 Fig. 18: the scatter/gather optimization raises the
 * throughput of GPT-3 175B on 96 A100s (t 8, p 12, interleaved) by up to
 * 11 %, most at large batches, where the interleaved schedule sends most. */
static void test_scatter_gather_fig18(void)
{
    pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 12, 60);
    pp_framework_features(PP_FW_MEGATRON_2021, &p.training);
    pp_plan pl = pp_test_plan(8, 12, 1, 1, 1);
    pl.virtual_stages = 4;
    pl.recompute = PP_RECOMPUTE_FULL;
    pp_eval sg, nosg;
    pp_evaluate(&p, &pl, &sg);
    p.training.p2p_scatter_gather = false;
    pp_evaluate(&p, &pl, &nosg);
    double gain = nosg.time.step_s / sg.time.step_s - 1.0;
    CU_ASSERT(gain > 0.03 && gain < 0.15);
}

/* Pipeline: m slots of the slowest stage and (p-1)/v fill and drain slots
 * that cost the mean of the other stages (a pipeline's makespan is m x the
 * slowest stage + the sum of the others).  With an even split the others
 * are the last stage without its logits and loss. */
static void test_bubble(void)
{
    pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 128, 1536);
    pp_plan pl = pp_test_plan(8, 16, 8, 1, 1);
    CU_ASSERT_EQUAL(pp_microbatches(&p, &pl), 192);
    PP_REL_EQ(pp_pipeline_factor(&p, &pl), 192 + 15.0, 1e-15);
    pl.virtual_stages = 3;
    PP_REL_EQ(pp_pipeline_factor(&p, &pl), 192 + 5.0, 1e-15);
    pp_eval ev;
    pp_evaluate(&p, &pl, &ev);
    pp_dp_term dp; /* the gradient accumulation is in the computation, outside the pipeline's slots */
    pp_term_dp_comm(&p, &pl, &dp);
    double slot = (ev.time.compute_s - dp.accum_s + ev.time.tp_comm_s + ev.time.pp_comm_s + ev.time.cp_comm_s) / 192;
    pp_stage_term st, none;
    pp_term_stage(&p, &pl, &st);
    double logits = st.total_s - st.bubble_s;
    CU_ASSERT(logits > 0.0);
    PP_REL_EQ(ev.time.bubble_s, 5.0 * (slot - logits), 1e-9);
    /* the gap is the logits and the loss: with a vocabulary of 128 the last
     * stage is nearly a middle one */
    pp_problem q = p;
    q.model.vocab = 128;
    pp_term_stage(&q, &pl, &none);
    CU_ASSERT(none.total_s - none.bubble_s < 0.1 * logits);
}

/* Megatron-Core's interleaved schedule runs m micro-batches in groups of N
 * in [pp, m], the last group whole or at least pp long (schedules.py at
 * core_v0.15.0); the default N = pp needs m a multiple of pp.  A larger
 * group adds (v - 1)(N - pp) warm-up forwards to what stage 0 holds. */
static void test_microbatch_groups(void)
{
    CU_ASSERT_EQUAL(pp_vp_microbatch_group(16, 2, 128), 16);
    CU_ASSERT_EQUAL(pp_vp_microbatch_group(16, 2, 120), 20);
    CU_ASSERT_EQUAL(pp_vp_microbatch_group(4, 2, 10), 5);
    CU_ASSERT_EQUAL(pp_vp_microbatch_group(4, 2, 6), 6);
    CU_ASSERT_EQUAL(pp_vp_microbatch_group(4, 2, 7), 7);
    CU_ASSERT_EQUAL(pp_vp_microbatch_group(16, 2, 8), 0);
    CU_ASSERT_EQUAL(pp_vp_microbatch_group(16, 1, 8), 16); /* no interleaving: no groups */
    /* GPT-3 on 8 stages of 2 chunks: 48 micro-batches (groups of 8) against
     * 44 (groups of 11): stage 0 holds 3 more micro-batches' chunks */
    pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 128, 1536);
    pp_plan pl = pp_test_plan(8, 8, 16, 1, 2);
    pl.virtual_stages = 2;
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(pp_plan_check(&p, &pl, &err), PP_OK);
    double a = pp_mem_activations_gib(&p, &pl, 0);
    p.training.global_batch = 16 * 2 * 44;
    CU_ASSERT_EQUAL(pp_microbatches(&p, &pl), 44);
    CU_ASSERT_EQUAL(pp_plan_check(&p, &pl, &err), PP_OK);
    double b = pp_mem_activations_gib(&p, &pl, 0);
    /* held chunk-micro-batches: 2 (8-1) + (2-1) N + 1, over v = 2; the
     * layers' activations grow by at most that ratio (the stage's other
     * buffers do not) */
    CU_ASSERT(b > a);
    CU_ASSERT(b / a < (14.0 + 11.0 + 1.0) / (14.0 + 8.0 + 1.0) + 1e-9);
}

int main(void)
{
    const pp_test tests[] = {
        {"pipeline sends per micro-batch and chunk", test_pipeline_sends},
        {"pipeline bubble", test_bubble},
        {"interleaved micro-batch groups of pp to m (Megatron-Core)", test_microbatch_groups},
        {"scatter/gather of pipeline sends (Narayanan et al. 2021 Fig. 18)", test_scatter_gather_fig18},
        {NULL, NULL},
    };
    return pp_test_main("cost-pipeline", tests);
}
