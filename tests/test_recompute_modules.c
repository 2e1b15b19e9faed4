/*
 * test_recompute_modules.c: selective recomputation's modules and the fp8
 * SwiGLU-input store as decisions (util/decisions.def's recompute_modules and
 * fp8_activation_input_store; their rule in space/rules.c, their memory in
 * cost/memory.c, their time in cost/kernels.c, stage.c and moe.c, their keys
 * in reports/launch.c).  DeepSeek-V3's published degrees on 2,048 H800 fit
 * with the recomputation DeepSeek describes (arXiv 2412.19437 §3.3.2-3.3.3)
 * and not without it; each module frees what a hand count says; the planner
 * chooses them, MIP = enumeration.
 */
#include "costmodel.h"
#include "decisions.h"
#include "launch.h"
#include "planner.h"
#include "problem.h"
#include "rules.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define EXAMPLE "data/examples/deepseek-v3-h800.json"
#define EXAMPLE_PLAN "data/examples/deepseek-v3-h800.plan.json"

static void example(pp_catalog *cat, pp_problem *p, pp_plan *pl)
{
    pp_load_catalog(cat);
    pp_load_problem(EXAMPLE, cat, p);
    /* recomputation is the question: not the example's stated all-to-all
     * overlap (DeepSeek's DualPipe), which Megatron-Core runs only with
     * interleaving, so the published v = 1 plan is not runnable with it */
    p->training.moe_a2a_overlap = p->training.moe_a2a_overlap_given = false;
    pp_error err;
    char path[1024];
    pp_source_path(EXAMPLE_PLAN, path, sizeof path);
    CU_ASSERT_EQUAL_FATAL(pp_plan_load(path, p, pl, &err), PP_OK);
}

/* The example's plan is DeepSeek's degrees with its recomputation: it fits
 * without full recomputation, and would not with selective's default. */
static void test_published_degrees_fit(void)
{
    pp_catalog cat;
    pp_problem p;
    pp_plan pl;
    example(&cat, &p, &pl);
    CU_ASSERT(pl.tp == 1 && pl.pp == 16 && pl.dp == 128 && pl.ep == 64 && pl.zero == 1 && pl.micro_batch == 1);
    CU_ASSERT_EQUAL(pl.recompute, PP_RECOMPUTE_SELECTIVE);
    CU_ASSERT_EQUAL(pl.recompute_modules, PP_RCM_LAYERNORM | PP_RCM_MLA_UP_PROJ | PP_RCM_MOE_ACT);
    CU_ASSERT(pl.fp8_act_store);
    pp_error err;
    CU_ASSERT_EQUAL(pp_plan_check(&p, &pl, &err), PP_OK);
    pp_eval ev;
    pp_evaluate(&p, &pl, &ev);
    CU_ASSERT(ev.mem.total_gib <= ev.mem.usable_gib);
    pp_plan plain = pl; /* selective's default (core_attn), no fp8 store */
    plain.recompute_modules = pp_decisions[PP_DEC_RECOMPUTE_MODULES].def;
    plain.fp8_act_store = false;
    pp_eval ev0;
    pp_evaluate(&p, &plain, &ev0);
    CU_ASSERT(ev0.mem.total_gib > ev0.mem.usable_gib);
    printf("\n    published: %.2f GiB of %.2f usable (core_attn only: %.2f), step %.3f s ", ev.mem.total_gib,
           ev.mem.usable_gib, ev0.mem.total_gib, ev.time.step_s);
    pp_catalog_free(&cat);
}

/* Each module's saving against a hand count (bytes per layer and
 * micro-batch, tp 1 without sequence parallelism, s b = 4096 tokens). */
/* The example without the fp8 store, selective recomputation's default
 * module: the base each hand count starts from.  Returns the bytes of a
 * GEMM input element in its recipe, fp8-block: a byte and 1/128 of an fp32
 * scale. */
static double hand_count_base(pp_catalog *cat, pp_problem *p, pp_plan *pl)
{
    example(cat, p, pl);
    CU_ASSERT_EQUAL_FATAL(p->training.precision, PP_PREC_FP8_BLOCK);
    pl->fp8_act_store = false;
    pl->recompute_modules = PP_RCM_CORE_ATTN;
    return 1.0 + 4.0 / 128.0;
}

static void test_each_saving_by_hand(void)
{
    pp_catalog cat;
    pp_problem p;
    pp_plan pl;
    double in = hand_count_base(&cat, &p, &pl);
    const pp_model *m = &p.model;
    double T = m->seq_len;
    double base = pp_layer_activation_bytes(&p, &pl, false);
    /* layernorm: the QKV and MLP GEMMs' saved inputs, h wide each, in the recipe's GEMM input */
    pl.recompute_modules = PP_RCM_LAYERNORM;
    CU_ASSERT(pp_rel_close(base - pp_layer_activation_bytes(&p, &pl, false), 2.0 * in * T * m->hidden, 1e-12));
    /* mla_up_proj: Q and K (heads x (128 + 64)) and V (heads x 128), 16 bits */
    pl.recompute_modules = PP_RCM_MLA_UP_PROJ;
    CU_ASSERT(pp_rel_close(base - pp_layer_activation_bytes(&p, &pl, false),
                           2.0 * T * 128.0 * (192.0 + 192.0 + 128.0), 1e-12));
    /* the fp8 store: a dense layer's SwiGLU input, 2 f wide, 2 bytes -> 1 */
    pl.recompute_modules = PP_RCM_CORE_ATTN;
    pl.fp8_act_store = true;
    CU_ASSERT(pp_rel_close(base - pp_layer_activation_bytes(&p, &pl, false), 2.0 * T * m->ffn_hidden, 1e-12));
    /* moe_act on stage 1 (4 MoE layers, 15 micro-batches in flight): the
     * routed experts' fc2 inputs, imbalance x T k rows of moe_ffn_hidden */
    pl.fp8_act_store = false;
    double a0 = pp_mem_activations_gib(&p, &pl, 1);
    pl.recompute_modules = PP_RCM_MOE_ACT;
    double a1 = pp_mem_activations_gib(&p, &pl, 1);
    double rows = p.training.moe_load_imbalance * T * m->experts_per_token;
    CU_ASSERT(pp_rel_close((a0 - a1) * 1073741824.0, 4.0 * 15.0 * in * rows * m->moe_ffn_hidden, 1e-9));
    /* and the fp8 store on the routed rows: 2 moe_ffn_hidden a row, 1 byte fewer */
    pl.recompute_modules = PP_RCM_CORE_ATTN;
    pl.fp8_act_store = true;
    double a2 = pp_mem_activations_gib(&p, &pl, 1);
    /* (the dense MLP the MoE block replaces cancels the dense part's) and the shared expert's */
    CU_ASSERT(pp_rel_close((a0 - a2) * 1073741824.0,
                           4.0 * 15.0 * (2.0 * rows * m->moe_ffn_hidden + 2.0 * T * m->shared_ffn_hidden), 1e-9));
    pp_catalog_free(&cat);
}

/* The moe module (Megatron-Core's "moe": the MoE layer checkpointed
 * alone): a stage keeps none of its MoE blocks' activations but the one it
 * rebuilds, and the block's forward, its dispatch and combine included,
 * runs again before its backward (the all-to-alls three times, not two). */
static void test_moe_module(void)
{
    pp_catalog cat;
    pp_problem p;
    pp_plan pl;
    double in = hand_count_base(&cat, &p, &pl);
    p.training.mtp_layers = 0; /* the busiest stage a middle one of 4 MoE layers, with the module and without */
    const pp_model *m = &p.model;
    double T = m->seq_len, k = m->experts_per_token;
    double a0 = pp_mem_activations_gib(&p, &pl, 1);
    pp_stage_term s0;
    pp_term_stage(&p, &pl, &s0);
    pl.recompute_modules = PP_RCM_CORE_ATTN | PP_RCM_MOE;
    pp_error err;
    CU_ASSERT_EQUAL(pp_plan_check(&p, &pl, &err), PP_OK);
    double a1 = pp_mem_activations_gib(&p, &pl, 1);
    /* a block's activations by hand (tp 1, etp 1): the routed rows' SwiGLU
     * input (2 moe_ffn 16-bit) and fc2 input, their h-wide expert input, the
     * router's fp32 probabilities and top-k map, the shared expert's */
    double rows = p.training.moe_load_imbalance * T * k;
    double block = (4.0 + in) * rows * m->moe_ffn_hidden + in * rows * m->hidden + 4.0 * T * m->experts +
                   12.0 * T * k + (4.0 + in) * T * m->shared_ffn_hidden;
    /* stage 1: 4 MoE layers, 15 micro-batches in flight, one block rebuilt */
    CU_ASSERT(pp_rel_close((a0 - a1) * 1073741824.0, (4.0 * 15.0 - 1.0) * block, 1e-9));
    pp_stage_term s1;
    pp_term_stage(&p, &pl, &s1);
    CU_ASSERT(pp_rel_close(s1.ep_comm_s, 1.5 * s0.ep_comm_s, 1e-12));
    CU_ASSERT(s1.bwd_s > s0.bwd_s && pp_rel_close(s1.fwd_s, s0.fwd_s, 1e-12));
    /* with moe_act (the block reruns its activation anyway): a plan may name
     * both, as Megatron-Core takes them, and is priced as moe alone in time;
     * the space does not offer the pair; not without experts */
    pl.recompute_modules = PP_RCM_MOE | PP_RCM_MOE_ACT;
    CU_ASSERT_EQUAL(pp_plan_check(&p, &pl, &err), PP_OK);
    pp_stage_term s2;
    pp_term_stage(&p, &pl, &s2);
    pl.recompute_modules = PP_RCM_MOE;
    pp_stage_term s3;
    pp_term_stage(&p, &pl, &s3);
    CU_ASSERT(pp_rel_close(s2.total_s, s3.total_s, 1e-12));
    CU_ASSERT(!pp_recompute_modules_offered(&p, PP_RCM_MOE | PP_RCM_MOE_ACT));
    CU_ASSERT(!pp_recompute_modules_offered(&p, PP_RCM_MOE | PP_RCM_SHARED_EXPERTS));
    pp_problem d;
    pp_load_problem("data/examples/gpt3-175b-1024-a100.json", &cat, &d);
    CU_ASSERT(!pp_recompute_modules_offered(&d, PP_RCM_MOE));
    CU_ASSERT(pp_recompute_modules_offered(&p, PP_RCM_MOE | PP_RCM_LAYERNORM));
    pp_catalog_free(&cat);
}

/* The mlp module (Megatron-Core's "mlp", since core_v0.13.0: a dense
 * layer's MLP checkpointed, its fused norm with it; transformer_layer.py
 * leaves a MoE layer's alone).  By hand on Llama 3 8B at tp 8 with
 * sequence parallelism, bf16, s b = 8192: the MLP-in GEMM's input (2 h
 * bytes a token, split by t) and the SwiGLU's input (2 x 2 f) and the
 * MLP-out GEMM's input (2 f), split by t, go; a stage keeps them for one
 * layer, the one it rebuilds; the backward reruns the MLP. */
static void test_mlp_module(void)
{
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(8192), 4, 64);
    pp_plan pl = pp_test_plan(8, 4, 1, 1, 1);
    pl.sequence_parallel = true;
    pl.recompute = PP_RECOMPUTE_SELECTIVE;
    pl.recompute_modules = PP_RCM_CORE_ATTN;
    const pp_model *m = &p.model;
    double T = 8192.0, t = 8.0;
    double base = pp_layer_activation_bytes(&p, &pl, false);
    double a0 = pp_mem_activations_gib(&p, &pl, 0);
    pp_stage_term s0;
    pp_term_stage(&p, &pl, &s0);
    pl.recompute_modules = PP_RCM_CORE_ATTN | PP_RCM_MLP;
    double frees = base - pp_layer_activation_bytes(&p, &pl, false);
    CU_ASSERT(pp_rel_close(frees, (2.0 * T * m->hidden + 6.0 * T * m->ffn_hidden) / t, 1e-12));
    /* stage 0: 8 layers, 4 micro-batches in flight, one MLP rebuilt */
    double a1 = pp_mem_activations_gib(&p, &pl, 0);
    CU_ASSERT(pp_rel_close((a0 - a1) * 1073741824.0, (8.0 * 4.0 - 1.0) * frees, 1e-9));
    pp_stage_term s1;
    pp_term_stage(&p, &pl, &s1);
    pp_stage_kernels sk;
    pp_form_stage_kernels_of(&p, &pl, &sk);
    CU_ASSERT(sk.k.mlp_again_fwd_s > sk.k.mlp_fwd_s);
    CU_ASSERT(pp_rel_close(s1.bwd_s - s0.bwd_s, 8.0 * sk.k.mlp_again_fwd_s, 1e-9));
    CU_ASSERT(pp_rel_close(s1.fwd_s, s0.fwd_s, 1e-12));
}

/* On DeepSeek-V3 (3 dense layers, then MoE) the module changes the dense
 * layers only: stage 1, all MoE, keeps and runs what it did; stage 0, with
 * the dense layers, frees their MLPs.  A model whose every layer is a MoE
 * layer has no MLP for it: the rule refuses it. */
static void test_mlp_module_moe(void)
{
    pp_catalog cat;
    pp_problem p;
    pp_plan pl;
    example(&cat, &p, &pl);
    pp_plan with = pl;
    with.recompute_modules |= PP_RCM_MLP;
    pp_error err;
    CU_ASSERT_EQUAL(pp_plan_check(&p, &with, &err), PP_OK);
    CU_ASSERT(pp_rel_close(pp_mem_activations_gib(&p, &with, 1), pp_mem_activations_gib(&p, &pl, 1), 1e-12));
    CU_ASSERT(pp_mem_activations_gib(&p, &with, 0) < pp_mem_activations_gib(&p, &pl, 0));
    pp_problem all_moe = p;
    all_moe.model.first_dense_layers = 0;
    CU_ASSERT_NOT_EQUAL(pp_plan_check(&all_moe, &with, &err), PP_OK);
    PP_ASSERT_CONTAINS(err.msg, "every layer of the model is a MoE layer");
    pp_catalog_free(&cat);
}

/* The shared_experts module (Megatron-Core since core_v0.15.0): a MoE
 * layer's shared experts checkpointed.  On DeepSeek-V3's stage 1 (4 MoE
 * layers, 15 micro-batches in flight) their SwiGLU input (2 x 2 bytes) and
 * fc2 input (the recipe's GEMM input) over T tokens go but for the layer
 * rebuilt; their forward runs again.  A model without shared experts:
 * refused. */
static void test_shared_experts_module(void)
{
    pp_catalog cat;
    pp_problem p;
    pp_plan pl;
    double in = hand_count_base(&cat, &p, &pl);
    const pp_model *m = &p.model;
    double a0 = pp_mem_activations_gib(&p, &pl, 1);
    pp_stage_term s0;
    pp_term_stage(&p, &pl, &s0);
    pl.recompute_modules = PP_RCM_CORE_ATTN | PP_RCM_SHARED_EXPERTS;
    pp_error err;
    CU_ASSERT_EQUAL(pp_plan_check(&p, &pl, &err), PP_OK);
    double a1 = pp_mem_activations_gib(&p, &pl, 1);
    double shared = (4.0 + in) * m->seq_len * m->shared_ffn_hidden;
    CU_ASSERT(pp_rel_close((a0 - a1) * 1073741824.0, (4.0 * 15.0 - 1.0) * shared, 1e-9));
    pp_stage_term s1;
    pp_term_stage(&p, &pl, &s1);
    CU_ASSERT(s1.bwd_s > s0.bwd_s && pp_rel_close(s1.fwd_s, s0.fwd_s, 1e-12));
    p.model.shared_ffn_hidden = 0;
    CU_ASSERT_NOT_EQUAL(pp_plan_check(&p, &pl, &err), PP_OK);
    PP_ASSERT_CONTAINS(err.msg, "shared experts");
    pp_catalog_free(&cat);
}

/* Recomputing costs time: each module adds to the step, none is free. */
static void test_each_costs_time(void)
{
    pp_catalog cat;
    pp_problem p;
    pp_plan pl;
    example(&cat, &p, &pl);
    pl.fp8_act_store = false;
    pl.recompute_modules = 0; /* selective with nothing: no recomputation */
    double none = pp_step_time_s(&p, &pl);
    static const int mods[] = {PP_RCM_CORE_ATTN, PP_RCM_LAYERNORM, PP_RCM_MLA_UP_PROJ, PP_RCM_MOE_ACT,
                               PP_RCM_MOE,       PP_RCM_MLP,       PP_RCM_SHARED_EXPERTS};
    for (size_t i = 0; i < sizeof mods / sizeof mods[0]; i++) {
        pl.recompute_modules = mods[i];
        CU_ASSERT(pp_step_time_s(&p, &pl) > none);
    }
    pl.recompute_modules = 0;
    pl.fp8_act_store = true;
    CU_ASSERT(pp_step_time_s(&p, &pl) > none);
    pp_catalog_free(&cat);
}

/* The rule: modules only with selective, each where it exists, layernorm
 * and moe_act not with fp8 delayed scaling; the store only in fp8. */
static void test_rule(void)
{
    pp_catalog cat;
    pp_problem p;
    pp_plan pl;
    example(&cat, &p, &pl);
    pp_error err;
    pp_plan x = pl;
    x.recompute = PP_RECOMPUTE_NONE;
    CU_ASSERT_NOT_EQUAL(pp_plan_check(&p, &x, &err), PP_OK);
    PP_ASSERT_CONTAINS(err.msg, "needs recompute selective");
    x = pl;
    p.training.precision = PP_PREC_FP8;
    CU_ASSERT_NOT_EQUAL(pp_plan_check(&p, &x, &err), PP_OK);
    PP_ASSERT_CONTAINS(err.msg, "delayed scaling");
    x.recompute_modules = PP_RCM_MLA_UP_PROJ;
    CU_ASSERT_EQUAL(pp_plan_check(&p, &x, &err), PP_OK);
    p.training.precision = PP_PREC_BF16;
    CU_ASSERT_NOT_EQUAL(pp_plan_check(&p, &x, &err), PP_OK);
    PP_ASSERT_CONTAINS(err.msg, "fp8_activation_input_store");
    x.fp8_act_store = false;
    CU_ASSERT_EQUAL(pp_plan_check(&p, &x, &err), PP_OK);
    p.training.framework = PP_FW_FSDP; /* what it runs is data/frameworks.json's */
    p.fw = cat.frameworks[PP_FW_FSDP];
    x.zero = 0; /* FSDP has no ZeRO-1 */
    CU_ASSERT_NOT_EQUAL(pp_plan_check(&p, &x, &err), PP_OK);
    PP_ASSERT_CONTAINS(err.msg, "it has no recompute_modules=mla_up_proj (it runs core_attn)");
    CU_ASSERT(!pp_framework_runs(&p, PP_DEC_RECOMPUTE_MODULES, PP_RCM_LAYERNORM));
    CU_ASSERT(pp_framework_runs(&p, PP_DEC_RECOMPUTE_MODULES, PP_RCM_CORE_ATTN));
    CU_ASSERT(!pp_fp8_act_store_offered(&p));
    x.recompute_modules = pp_decisions[PP_DEC_RECOMPUTE_MODULES].def;
    CU_ASSERT_EQUAL(pp_plan_check(&p, &x, &err), PP_OK);
    /* a dense model without MLA: neither moe_act nor mla_up_proj */
    pp_problem d;
    pp_load_problem("data/examples/gpt3-175b-1024-a100.json", &cat, &d);
    CU_ASSERT(!pp_recompute_modules_offered(&d, PP_RCM_MOE_ACT));
    CU_ASSERT(!pp_recompute_modules_offered(&d, PP_RCM_MLA_UP_PROJ));
    CU_ASSERT(pp_recompute_modules_offered(&d, PP_RCM_LAYERNORM));
    CU_ASSERT(!pp_fp8_act_store_offered(&d));
    pp_catalog_free(&cat);
}

/* A set of modules reads in any order, spaces allowed ("moe, layernorm"
 * is Megatron's "--recompute-modules layernorm moe"); a word twice is not
 * a set of two. */
static void test_set_any_order(void)
{
    pp_catalog cat;
    pp_problem p;
    pp_plan pl;
    example(&cat, &p, &pl);
    char path[1024];
    pp_temp_path("rcm-order.plan.json", path, sizeof path);
    pp_error err;
    pp_write_json(path, "{ 'tp': 1, 'pp': 16, 'dp': 128, 'ep': 64, 'micro_batch': 1, 'zero': 1,"
                        "  'recompute': 'selective', 'recompute_modules': 'moe, layernorm' }");
    CU_ASSERT_EQUAL_FATAL(pp_plan_load(path, &p, &pl, &err), PP_OK);
    CU_ASSERT_EQUAL(pl.recompute_modules, PP_RCM_LAYERNORM | PP_RCM_MOE);
    pp_write_json(path, "{ 'tp': 1, 'pp': 16, 'dp': 128, 'ep': 64, 'micro_batch': 1, 'zero': 1,"
                        "  'recompute': 'selective', 'recompute_modules': 'layernorm,layernorm' }");
    CU_ASSERT_NOT_EQUAL(pp_plan_load(path, &p, &pl, &err), PP_OK);
    PP_ASSERT_CONTAINS(err.msg, "found 'layernorm,layernorm'");
    pp_catalog_free(&cat);
}

/* On the published degrees the planner chooses modules that fit (not full
 * recomputation), MIP = enumeration, and the launch says them. */
static void test_planner_chooses(void)
{
    pp_catalog cat;
    pp_problem p;
    pp_plan pl;
    example(&cat, &p, &pl);
    p.search[PP_DEC_TP] = (pp_int_list){1, {1}};
    p.search[PP_DEC_PP] = (pp_int_list){1, {16}};
    p.search[PP_DEC_CP] = (pp_int_list){1, {1}};
    p.search[PP_DEC_EP] = (pp_int_list){1, {64}};
    p.search[PP_DEC_MICRO_BATCH] = (pp_int_list){1, {1}};
    p.search[PP_DEC_VIRTUAL_STAGES] = (pp_int_list){1, {1}};
    p.search[PP_DEC_ZERO] = (pp_int_list){1, {1}};
    pp_plan_result res[2];
    pp_test_solve_both(&p, res);
    for (int k = 0; k < 2; k++) {
        const pp_plan *b = &res[k].best.plan;
        CU_ASSERT_EQUAL(b->recompute, PP_RECOMPUTE_SELECTIVE);
        CU_ASSERT(b->recompute_modules & PP_RCM_MLA_UP_PROJ);
        CU_ASSERT(res[k].best.eval.mem.total_gib <= res[k].best.eval.mem.usable_gib);
        if (k == 0) {
            pp_launch l;
            pp_launch_build(&p, b, pp_microbatches(&p, b), &l);
            bool flag = false, key = false;
            for (int t = 0; t < PP_LT_COUNT; t++)
                for (int i = 0; i < l.targets[t].n; i++) {
                    flag |= strcmp(l.targets[t].settings[i].key, "--recompute-modules") == 0;
                    key |= strcmp(l.targets[t].settings[i].key, "model.recompute_modules") == 0;
                }
            CU_ASSERT(flag && key);
        }
        pp_plan_result_free(&res[k]);
    }
    pp_catalog_free(&cat);
}

int main(void)
{
    static const pp_test tests[] = {
        {"DeepSeek-V3's published degrees fit with its recomputation", test_published_degrees_fit},
        {"each module frees what a hand count says", test_each_saving_by_hand},
        {"each module costs time", test_each_costs_time},
        {"the moe module: no block kept but the one rebuilt, its forward and all-to-alls again", test_moe_module},
        {"the mlp module: a dense layer's MLP by hand, its forward again", test_mlp_module},
        {"the mlp module leaves MoE layers alone", test_mlp_module_moe},
        {"the shared_experts module by hand", test_shared_experts_module},
        {"the rule: selective only, where the module exists, Megatron-Core", test_rule},
        {"a set of modules in any order", test_set_any_order},
        {"the planner chooses them, MIP = enumeration, launched", test_planner_chooses},
        {NULL, NULL},
    };
    return pp_test_main("recompute modules", tests);
}
