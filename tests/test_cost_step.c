/*
 * test_cost_step.c: the composition of the step (formulate/cost/step.c):
 * the parts add up to the step, the evaluator agrees with pp_step_time_s,
 * the form of a step (what the MIP reads) is the step the evaluator prices,
 * and the frameworks' published features.
 */
#include "costmodel.h"
#include "rules.h"
#include "testutil.h"

#include <math.h>
#include <string.h>

/* The parts add up to the step, and the evaluator and pp_step_time_s agree. */
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

/* ---- the form of a step ------------------------------------------------------ */

/* Checks the form of one plan against the evaluator: evaluated in the
 * evaluator's order it gives pp_step_time_s and pp_evaluate's parts exactly;
 * read as the MIP does (coefficient x column, an epigraph per pair and the
 * link bound) it gives the same step up to rounding; its memory is
 * pp_evaluate's, stage by stage and at the most loaded. */
static void check_form(const pp_problem *p, const pp_plan *pl, const char *what, pp_step_form *out)
{
    pp_error err;
    int rc = pp_plan_check(p, pl, &err);
    if (rc != PP_OK)
        printf("\n    %s: %s ", what, err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, PP_OK);
    pp_step_form f;
    pp_step_form_of(p, pl, &f);
    const pp_form_term *pick[PP_FORM_FAMILIES];
    for (int i = 0; i < PP_FORM_FAMILIES; i++) {
        pick[i] = &f.term[i];
        CU_ASSERT(pp_form_term_finite(pick[i]));
    }
    pp_eval ev, fe;
    pp_evaluate(p, pl, &ev);
    memset(&fe, 0, sizeof fe);
    pp_form_eval(&f.shape, pick, &fe);
    double step = pp_step_time_s(p, pl);
    CU_ASSERT_EQUAL(pp_form_step_s(&f.shape, pick), step);
    CU_ASSERT(memcmp(&fe.time, &ev.time, sizeof fe.time) == 0);
    CU_ASSERT_EQUAL(fe.bytes_nvlink_per_step, ev.bytes_nvlink_per_step);
    CU_ASSERT_EQUAL(fe.bytes_network_per_step, ev.bytes_network_per_step);
    CU_ASSERT_EQUAL(fe.microbatches, ev.microbatches);

    /* the MIP's reading: sum of coefficients, (1 - f) per exposed second of
     * each pair, and what the busiest link adds beyond that */
    double linear = pp_form_bound_s(&f.shape, pick), obj = 0.0, exposed = 0.0, busy = 0.0;
    for (int i = 0; i < PP_FORM_FAMILIES; i++)
        obj += pick[i]->obj_s;
    for (int k = 0; k < PP_FORM_PAIRS; k++) {
        double u = 0.0;
        for (int i = 0; i < PP_FORM_FAMILIES; i++)
            u += pick[i]->exposed_s[k];
        exposed += fmax(0.0, u);
    }
    PP_REL_EQ(linear, obj + f.shape.pair_weight * exposed, 1e-12);
    for (int l = 0; l < PP_FORM_LINKS; l++) {
        double link = 0.0;
        for (int i = 0; i < PP_FORM_FAMILIES; i++)
            link += pick[i]->link_s[l];
        busy = fmax(busy, link);
    }
    PP_REL_EQ(linear + fmax(0.0, busy - linear), step, 1e-12);
    PP_REL_EQ(f.term[PP_FORM_TP].bytes[PP_FORM_NETWORK] + f.term[PP_FORM_PP].bytes[PP_FORM_NETWORK] +
                  f.term[PP_FORM_STAGE].bytes[PP_FORM_NETWORK] + f.term[PP_FORM_DP].bytes[PP_FORM_NETWORK],
              ev.bytes_network_per_step, 1e-12);

    /* memory: every stage that may be the most loaded, the most loaded one */
    double most = -1.0;
    int most_stage = -1;
    for (int k = 0; k < f.shape.n_mem; k++) {
        double w, g, o, gib = pp_form_mem_gib(&f.shape, pick, k);
        pp_mem_states_gib(p, pl, f.shape.mem_stages[k], &w, &g, &o);
        CU_ASSERT_EQUAL(gib, w + g + o + pp_mem_activations_gib(p, pl, f.shape.mem_stages[k]) + pp_mem_other_gib(p));
        if (gib > most) {
            most = gib;
            most_stage = f.shape.mem_stages[k];
        }
    }
    CU_ASSERT_EQUAL(most, ev.mem.total_gib);
    CU_ASSERT_EQUAL(most_stage, ev.mem.stage);
    CU_ASSERT_EQUAL(f.shape.mem_usable_gib, ev.mem.usable_gib);
    if (pp_form_step_s(&f.shape, pick) != step || most != ev.mem.total_gib)
        printf("\n    %s: form %.17g s, %.17g GiB; evaluator %.17g s, %.17g GiB ", what,
               pp_form_step_s(&f.shape, pick), most, step, ev.mem.total_gib);
    if (out)
        *out = f;
}

/* The form on dense plans with DP overlap under every ZeRO stage and
 * recomputation, interleaved and uneven pipelines, a 2.5D TP grid, and MoE
 * models (DeepSeek-V3 with its all-to-all across nodes and overlapped,
 * Mixtral inside a node with ZeRO-3). */
static void test_form_is_the_step(void)
{
    pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 128, 1536);
    pp_framework_features(PP_FW_MEGATRON_CORE, &p.training);
    p.training.dp_overlap = true;
    for (int z = 0; z < 4; z++) {
        pp_plan pl = pp_test_plan(8, 8, 16, 1, 2);
        pl.zero = z;
        pl.recompute = (pp_recompute)(z % 3);
        pl.sequence_parallel = z % 2;
        pp_step_form f;
        check_form(&p, &pl, "gpt3 dense", &f);
        /* the gradient reduction overlaps the last backward; ZeRO-3 adds its
         * per-micro-batch gathers against every micro-batch's compute */
        CU_ASSERT(f.term[PP_FORM_STAGE].exposed_s[PP_PAIR_ONCE] < 0.0);
        CU_ASSERT(f.term[PP_FORM_DP].wire_s[PP_PAIR_ONCE] > 0.0);
        CU_ASSERT((f.term[PP_FORM_DP].wire_s[PP_PAIR_PER_MB] > 0.0) == (z >= 2));
    }
    pp_plan inter = pp_test_plan(8, 8, 16, 1, 1);
    inter.virtual_stages = 3;
    inter.zero = 1;
    check_form(&p, &inter, "gpt3 interleaved", NULL);
    pp_plan uneven = pp_test_plan(8, 7, 16, 1, 1); /* 96 layers on 7 stages */
    uneven.zero = 3;
    p.cluster.nodes = 112;
    check_form(&p, &uneven, "gpt3 uneven", NULL);
    p.cluster.nodes = 128;
    pp_plan grid = pp_test_plan(8, 8, 16, 1, 4);
    grid.tp_mode = PP_TP_2P5D;
    grid.tp_depth = 2;
    grid.zero = 3;
    check_form(&p, &grid, "gpt3 2.5D", NULL);
    p.training.framework = PP_FW_DEEPSPEED;
    pp_framework_features(PP_FW_DEEPSPEED, &p.training);
    pp_plan ds = pp_test_plan(8, 8, 16, 1, 2);
    ds.zero = 2;
    check_form(&p, &ds, "gpt3 deepspeed", NULL);

    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem q;
    pp_test_load("{'model': 'deepseek-v3', 'cluster': {'gpu': 'h800-sxm5-80gb', 'gpus_per_node': 8, 'nodes': 256,"
                 " 'intra_node_GBps': 200, 'inter_node_Gbps': 400},"
                 " 'training': {'global_batch': 15360, 'precision': 'fp8', 'moe_load_imbalance': 1.1}}",
                 &cat, &q);
    pp_plan moe = pp_test_plan(1, 16, 128, 1, 1);
    moe.ep = 64;
    moe.zero = 1;
    moe.recompute = PP_RECOMPUTE_SELECTIVE;
    pp_step_form f;
    check_form(&q, &moe, "deepseek-v3", &f);
    CU_ASSERT(f.term[PP_FORM_STAGE].bytes[PP_FORM_NETWORK] > 0.0); /* the all-to-all crosses nodes */
    CU_ASSERT_EQUAL(f.shape.n_mem, 3);
    q.training.moe_a2a_overlap = true;
    q.training.moe_deepep = true;
    moe.virtual_stages = 2; /* Megatron-Core overlaps the all-to-alls only with interleaving */
    check_form(&q, &moe, "deepseek-v3 overlapped", NULL);
    pp_test_load("{'model': 'mixtral-8x7b', 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 1},"
                 " 'training': {'global_batch': 64}}", &cat, &q);
    pp_plan mix = pp_test_plan(1, 1, 8, 1, 1);
    mix.ep = 8;
    mix.zero = 3;
    check_form(&q, &mix, "mixtral zero-3", NULL);
    pp_catalog_free(&cat);
}

int main(void)
{
    const pp_test tests[] = {
        {"parts add up to the step", test_parts_add_up},
        {"framework features", test_framework_features},
        {"hidden DP traffic slows the compute by its SMs; the framework's gradient type", test_hidden_traffic_contention},
        {"the form of a step is the step: time, parts and memory", test_form_is_the_step},
        {NULL, NULL},
    };
    return pp_test_main("cost-step", tests);
}
