/*
 * test_blackwell.c: the current GPUs, number formats and fabrics
 * (docs/cost-model.md sections 3 and 10).
 *
 * B200 and GB200 NVL72 problems plan in every format they run, and say
 * their efficiencies are not calibrated; NVFP4 is faster than bf16 on a
 * compute-bound model but by less than the 4x of the peaks (its bf16
 * layers); the MX and NVFP4 formats are refused on a Hopper GPU with a
 * message naming training.precision; DeepSeek-style block-scaled fp8 runs
 * on Hopper slower than per-tensor fp8 by what Transformer Engine's GEMM
 * profiling guide measures, and on Blackwell as MXFP8; an oversubscribed spine slows a plan
 * whose data-parallel group crosses leaves and never speeds any plan up;
 * a 72-GPU NVLink domain holds a tp x ep group larger than an 8-GPU node.
 */
#include "assumptions.h"
#include "costmodel.h"
#include "planner.h"
#include "problem.h"
#include "rules.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Llama 3 70B on `nodes` nodes of `gpu`, global batch 1152, in `precision`,
 * with the cluster's extra keys `fabric` ("" or ", 'leaf_nodes': 8, ..."). */
static int load(const pp_catalog *cat, const char *model, const char *gpu, long nodes, const char *precision,
                const char *fabric, pp_problem *p, pp_error *err)
{
    char squoted[1024];
    snprintf(squoted, sizeof squoted,
             "{'model': '%s', 'cluster': {'gpu': '%s', 'nodes': %ld%s},"
             " 'training': {'global_batch': 1152, 'precision': '%s'}}",
             model, gpu, nodes, fabric, precision);
    char *json = pp_json_of(squoted);
    int rc = pp_problem_parse(json, "problem.json", NULL, cat, p, err);
    free(json);
    return rc;
}

static void load_ok(const pp_catalog *cat, const char *model, const char *gpu, long nodes, const char *precision,
                    const char *fabric, pp_problem *p)
{
    pp_error err;
    int rc = load(cat, model, gpu, nodes, precision, fabric, p, &err);
    if (rc)
        fprintf(stderr, "\n  %s: %s\n", err.path, err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, PP_OK);
}

/* Every format each Blackwell system runs gives an optimal plan whose MIP
 * objective is the evaluator's step time, on a GPU whose efficiencies are
 * the defaults (calibrated false). */
static void test_blackwell_plans_every_format(void)
{
    static const char *const gpus[] = {"b200-sxm-180gb", "gb200-nvl72"};
    static const long nodes[] = {18, 2}; /* 144 GPUs either way */
    static const char *const precisions[] = {"bf16", "fp8", "fp8-current", "mxfp8", "nvfp4", "fp8-block"};
    pp_catalog cat;
    pp_load_catalog(&cat);
    for (size_t g = 0; g < sizeof gpus / sizeof gpus[0]; g++)
        for (size_t i = 0; i < sizeof precisions / sizeof precisions[0]; i++) {
            pp_problem p;
            load_ok(&cat, "llama3-70b", gpus[g], nodes[g], precisions[i], "", &p);
            CU_ASSERT_FALSE(p.cluster.gpu.eff.calibrated);
            pp_plan_options o;
            pp_plan_options_init(&o);
            pp_plan_result res;
            pp_error err;
            CU_ASSERT_EQUAL_FATAL(pp_plan_solve(&p, &o, &res, &err), PP_OK);
            CU_ASSERT_EQUAL(res.status, PP_STATUS_OPTIMAL);
            double step = res.best.eval.time.step_s;
            CU_ASSERT(step > 0.0 && isfinite(step));
            CU_ASSERT_DOUBLE_EQUAL(pp_step_time_s(&p, &res.best.plan), step, 1e-9 * step);
            printf("\n    %s %s: %.3f s ", gpus[g], precisions[i], step);
            pp_plan_result_free(&res);
        }
    pp_catalog_free(&cat);
}

/* One fixed plan of Llama 3 70B on 16 B200 nodes: nvfp4 < mxfp8 < bf16 and
 * fp8 < bf16 in step time, the forward at most 4x faster than bf16 (NVFP4's
 * peak is 4x bf16's, about 16 % of its FLOPs stay in bf16, and every GEMM
 * input is cast first), and fp8-current and mxfp8 a little slower than
 * fp8 (their casts). */
static void test_nvfp4_faster_than_bf16(void)
{
    static const char *const precisions[] = {"bf16", "fp8", "fp8-current", "mxfp8", "nvfp4"};
    double step[5], fwd[5], act[5];
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_plan plan = pp_test_plan(8, 4, 4, 1, 1);
    for (int i = 0; i < 5; i++) {
        pp_problem p;
        load_ok(&cat, "llama3-70b", "b200-sxm-180gb", 16, precisions[i], "", &p);
        CU_ASSERT_EQUAL_FATAL(pp_plan_check(&p, &plan, NULL), PP_OK);
        pp_eval ev;
        pp_evaluate(&p, &plan, &ev);
        step[i] = ev.time.step_s;
        pp_stage_term st;
        pp_term_stage(&p, &plan, &st);
        fwd[i] = st.fwd_s;
        act[i] = pp_layer_activation_bytes(&p, &plan, false);
    }
    CU_ASSERT(step[4] < step[3]);
    CU_ASSERT(step[1] < step[0]);
    /* the casts: fp8-current reads each tensor once more for its scale, and
     * MXFP8 writes a scale byte per 32 elements, so both cost a little more
     * than delayed-scaling fp8, never less */
    CU_ASSERT(step[2] > step[1]);
    CU_ASSERT(step[3] > step[1] && step[3] < step[1] * 1.05);
    CU_ASSERT(fwd[0] / fwd[4] < 4.0);
    CU_ASSERT(fwd[0] / fwd[4] > 1.25);
    /* activations: the GEMM inputs kept for backward shrink with the format */
    CU_ASSERT(act[4] < act[1] && act[1] < act[0]);
    CU_ASSERT(act[3] > act[1]); /* mxfp8 adds one scale byte per 32 elements */
    printf("\n    step bf16 %.3f fp8 %.3f mxfp8 %.3f nvfp4 %.3f s, forward bf16/nvfp4 %.2f ", step[0], step[1], step[3],
           step[4], fwd[0] / fwd[4]);
    pp_catalog_free(&cat);
}

/* A Hopper GPU has no MX or NVFP4 tensor cores: the problem is refused at
 * $.training.precision, naming the GPU, what it supports and why. */
static void test_block_formats_refused_on_hopper(void)
{
    static const char *const refused[] = {"mxfp8", "nvfp4"};
    pp_catalog cat;
    pp_load_catalog(&cat);
    for (int i = 0; i < 2; i++) {
        pp_problem p;
        pp_error err;
        CU_ASSERT_EQUAL(load(&cat, "llama3-70b", "h100-sxm5-80gb", 8, refused[i], "", &p, &err), PP_EINPUT);
        PP_ASSERT_CONTAINS(err.path, "$.training.precision");
        PP_ASSERT_CONTAINS(err.msg, "h100-sxm5-80gb supports ('bf16', 'fp16', 'fp8', 'fp8-current', 'fp8-block')");
        char found[64];
        snprintf(found, sizeof found, "found '%s'", refused[i]);
        PP_ASSERT_CONTAINS(err.msg, found);
        PP_ASSERT_CONTAINS(err.msg, "Blackwell");
    }
    /* the per-tensor recipes run on Hopper */
    pp_problem p;
    load_ok(&cat, "llama3-70b", "h100-sxm5-80gb", 8, "fp8-current", "", &p);
    CU_ASSERT_DOUBLE_EQUAL(p.cluster.gpu.peak_tflops[PP_PREC_FP8_CURRENT], p.cluster.gpu.peak_tflops[PP_PREC_FP8],
                           0.0);
    pp_catalog_free(&cat);
}

/* One layer's GEMMs and casts (forward and backward, ms) of Transformer
 * Engine's GEMM-profiling model (hidden 4096, MLP 16384, 32 heads, 24
 * layers, micro-batch 31 of 512 tokens: M = 15872) on `gpu` in `precision`,
 * on one GPU. */
static double te_layer_ms(const pp_catalog *cat, const char *gpu, const char *precision, double *gemm_ms)
{
    char squoted[1024];
    snprintf(squoted, sizeof squoted,
             "{'model': {'layers': 24, 'hidden': 4096, 'heads': 32, 'ffn_hidden': 16384, 'vocab': 32000,"
             " 'seq_len': 512, 'gated_mlp': false},"
             " 'cluster': {'gpu': '%s', 'nodes': 1, 'gpus_per_node': 1},"
             " 'training': {'global_batch': 31, 'precision': '%s'}}",
             gpu, precision);
    char *json = pp_json_of(squoted);
    pp_problem p;
    pp_error err;
    int rc = pp_problem_parse(json, "problem.json", NULL, cat, &p, &err);
    free(json);
    if (rc)
        fprintf(stderr, "\n  %s: %s\n", err.path, err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, PP_OK);
    pp_plan plan = pp_test_plan(1, 1, 1, 1, 31);
    pp_stage_kernels sk;
    pp_form_stage_kernels_of(&p, &plan, &sk);
    *gemm_ms = 1e3 * (sk.k.gemm_fwd_s + sk.k.gemm_bwd_s);
    return *gemm_ms + 1e3 * (sk.k.cast_fwd_s + sk.k.cast_bwd_s);
}

/* Block-scaled fp8 (fp8-block: 1x128 and 128x128 scales, Megatron-LM
 * --fp8-recipe blockwise).  Transformer Engine's GEMM profiling guide
 * (docs/examples/gemm_profiling/gemm_profiling.rst at TransformerEngine
 * 8f2e6357, "Worked Example: 5B Model on H200", autocast: the GEMMs with
 * their casts) measures a layer of this model on an H200 NVL at 22.882 ms in
 * FP8Block against 18.978 ms in FP8Delayed: 1.206x.  The model's layer
 * (GEMMs and the casts training runs) is within 0.06 of that ratio on an
 * H200; on a B200 (MX block-scaled tensor cores) it costs what MXFP8 costs,
 * nothing more; on both it is faster than bf16. */
static void test_fp8_block_on_hopper(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    double g_bf16, g_delayed, g_block, g_mx;
    double bf16 = te_layer_ms(&cat, "h200-sxm-141gb", "bf16", &g_bf16);
    double delayed = te_layer_ms(&cat, "h200-sxm-141gb", "fp8", &g_delayed);
    double block = te_layer_ms(&cat, "h200-sxm-141gb", "fp8-block", &g_block);
    double ratio = block / delayed;
    printf("\n    H200 layer: bf16 %.2f, fp8 %.2f, fp8-block %.2f ms (block / delayed %.3f; TE 1.206) ", bf16, delayed,
           block, ratio);
    CU_ASSERT(fabs(ratio - 22.882 / 18.978) < 0.06);
    CU_ASSERT(block < bf16);
    CU_ASSERT(g_block > g_delayed);
    double mx = te_layer_ms(&cat, "b200-sxm-180gb", "mxfp8", &g_mx);
    double blackwell = te_layer_ms(&cat, "b200-sxm-180gb", "fp8-block", &g_block);
    CU_ASSERT_DOUBLE_EQUAL(blackwell, mx, 1e-9 * mx);
    /* the report's assumptions say the rate on Hopper, and only there */
    static const char *const gpus[] = {"h100-sxm5-80gb", "b200-sxm-180gb"};
    for (int i = 0; i < 2; i++) {
        pp_problem p;
        load_ok(&cat, "llama3-70b", gpus[i], 8, "fp8-block", "", &p);
        pp_plan plan = pp_test_plan(8, 1, 8, 1, 1);
        static pp_assumptions a;
        pp_assumptions_collect(&p, &cat, &plan, &a);
        const pp_constant *rate = NULL;
        for (int k = 0; k < a.n; k++)
            if (strstr(a.items[k].name, "block-scaled GEMM rate"))
                rate = &a.items[k];
        if (i == 0) {
            CU_ASSERT_PTR_NOT_NULL_FATAL(rate);
            PP_ASSERT_CONTAINS(rate->value, "0.81");
        } else
            CU_ASSERT_PTR_NULL(rate);
    }
    pp_catalog_free(&cat);
}

/* Oversubscription 2 with leaves of 8 nodes: a plan whose data-parallel
 * group spans 64 nodes is slower; no plan is faster; a plan whose groups
 * stay inside a leaf is priced as before; the planner's optimum is no
 * faster.  Bad values are refused with their JSON path. */
static void test_oversubscription(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem flat, over;
    load_ok(&cat, "llama3-70b", "h100-sxm5-80gb", 64, "bf16", "", &flat);
    load_ok(&cat, "llama3-70b", "h100-sxm5-80gb", 64, "bf16", ", 'network_oversubscription': 2, 'leaf_nodes': 8",
            &over);
    pp_plan cross = pp_test_plan(8, 1, 64, 1, 1);
    cross.zero = 1;
    CU_ASSERT_EQUAL_FATAL(pp_plan_check(&flat, &cross, NULL), PP_OK);
    CU_ASSERT(pp_group_crosses_spine(&over.cluster, 64, 1));
    CU_ASSERT(pp_step_time_s(&over, &cross) > pp_step_time_s(&flat, &cross));
    /* a DP group of 8 nodes = one leaf: unchanged */
    CU_ASSERT_FALSE(pp_group_crosses_spine(&over.cluster, 8, 1));
    CU_ASSERT(pp_group_crosses_spine(&over.cluster, 3, 1)); /* 3 nodes do not tile a leaf of 8 */
    pp_plan inside = pp_test_plan(8, 8, 8, 1, 1);
    CU_ASSERT_EQUAL_FATAL(pp_plan_check(&flat, &inside, NULL), PP_OK);
    CU_ASSERT_DOUBLE_EQUAL(pp_step_time_s(&over, &inside), pp_step_time_s(&flat, &inside), 0.0);
    /* never faster, over a spread of shapes */
    static const int shapes[][4] = {{8, 1, 64, 1}, {8, 2, 32, 1}, {4, 4, 32, 1}, {8, 4, 8, 2}, {2, 8, 16, 2},
                                    {8, 8, 4, 2},  {1, 8, 64, 1}, {4, 2, 32, 2}, {8, 16, 4, 1}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int zero = 0; zero <= 3; zero++) {
            pp_plan pl = pp_test_plan(shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3], 1);
            pl.zero = zero;
            if (pp_plan_check(&flat, &pl, NULL) != PP_OK)
                continue;
            CU_ASSERT(pp_step_time_s(&over, &pl) >= pp_step_time_s(&flat, &pl));
        }
    pp_plan_options o;
    pp_plan_options_init(&o);
    pp_plan_result a, b;
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(pp_plan_solve(&flat, &o, &a, &err), PP_OK);
    CU_ASSERT_EQUAL_FATAL(pp_plan_solve(&over, &o, &b, &err), PP_OK);
    CU_ASSERT(b.best.eval.time.step_s >= a.best.eval.time.step_s * (1.0 - 1e-9));
    printf("\n    optimum %.3f s flat, %.3f s at 2:1 over leaves of 8 nodes ", a.best.eval.time.step_s,
           b.best.eval.time.step_s);
    pp_plan_result_free(&a);
    pp_plan_result_free(&b);

    pp_problem p;
    CU_ASSERT_EQUAL(load(&cat, "llama3-70b", "h100-sxm5-80gb", 64, "bf16", ", 'network_oversubscription': 0.5", &p,
                         &err),
                    PP_EINPUT);
    PP_ASSERT_CONTAINS(err.path, "$.cluster.network_oversubscription");
    CU_ASSERT_EQUAL(load(&cat, "llama3-70b", "h100-sxm5-80gb", 64, "bf16", ", 'leaf_nodes': 0", &p, &err), PP_EINPUT);
    PP_ASSERT_CONTAINS(err.path, "$.cluster.leaf_nodes");
    pp_catalog_free(&cat);
}

/* A MoE model on two GB200 NVL72 racks: an expert-parallel group of 16
 * consecutive GPUs (ep 16 folded over tp 2 x dp 72), more than an 8-GPU
 * node, is an allowed plan whose all-to-all stays on NVLink;
 * the same plan on B200 nodes sends part of it through the NICs.  Dense
 * Llama 3 70B with tp 4 x cp 4 = 16 GPUs is a plan of the rack too. */
static void test_nvl72_domain(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem rack, hgx;
    load_ok(&cat, "qwen3-30b-a3b", "gb200-nvl72", 2, "bf16", "", &rack);
    load_ok(&cat, "qwen3-30b-a3b", "b200-sxm-180gb", 18, "bf16", "", &hgx);
    CU_ASSERT_EQUAL(rack.cluster.gpus_per_node, 72);
    pp_plan plan = pp_test_plan(2, 1, 72, 1, 1);
    plan.ep = 16;
    plan.etp = 1;
    plan.sequence_parallel = true; /* Megatron-Core's rule for MoE with tp > 1 */
    pp_error why;
    int rc = pp_plan_check(&rack, &plan, &why);
    if (rc)
        fprintf(stderr, "\n  %s\n", why.msg);
    CU_ASSERT_EQUAL_FATAL(rc, PP_OK);
    pp_eval ev;
    pp_evaluate(&rack, &plan, &ev);
    CU_ASSERT(ev.time.step_s > 0.0 && isfinite(ev.time.step_s));
    pp_stage_term in_rack, across;
    pp_term_stage(&rack, &plan, &in_rack);
    pp_term_stage(&hgx, &plan, &across);
    CU_ASSERT(in_rack.bytes_nvlink > 0.0);
    CU_ASSERT_EQUAL(in_rack.bytes_network, 0.0);
    CU_ASSERT(across.bytes_network > 0.0);

    pp_problem dense;
    load_ok(&cat, "llama3-70b", "gb200-nvl72", 2, "bf16", "", &dense);
    pp_plan tpcp = pp_test_plan(4, 1, 9, 4, 1);
    tpcp.sequence_parallel = true;
    CU_ASSERT_EQUAL_FATAL(pp_plan_check(&dense, &tpcp, NULL), PP_OK);
    pp_evaluate(&dense, &tpcp, &ev);
    CU_ASSERT(ev.time.step_s > 0.0 && isfinite(ev.time.step_s));

    /* the planner on the rack: an optimum exists and its groups are legal */
    pp_plan_options o;
    pp_plan_options_init(&o);
    pp_plan_result res;
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(pp_plan_solve(&rack, &o, &res, &err), PP_OK);
    CU_ASSERT_EQUAL(pp_plan_check(&rack, &res.best.plan, NULL), PP_OK);
    printf("\n    qwen3-30b-a3b on 2 x NVL72: tp=%d ep=%d cp=%d, %.3f s ", res.best.plan.tp, res.best.plan.ep,
           res.best.plan.cp, res.best.eval.time.step_s);
    pp_plan_result_free(&res);
    pp_catalog_free(&cat);
}

/* The example of data/examples plans from the command line. */
static void test_example_plans(void)
{
    char path[1024];
    pp_source_path("data/examples/llama3-70b-gb200-nvl72.json", path, sizeof path);
    const char *args[] = {"plan", path, NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL(pp_run_code(args, &r), 0);
    PP_ASSERT_CONTAINS(r.out, "--fp8-recipe mxfp8");
    /* 4 racks of 18 compute trays of 4 GPUs: torchrun counts trays */
    PP_ASSERT_CONTAINS(r.out, "torchrun --nnodes 72 --nproc-per-node 4 pretrain_gpt.py");
    pp_run_free(&r);
}

/* gpus_per_host must divide gpus_per_node: a cluster or a custom GPU that
 * says otherwise is refused at its path. */
static void test_gpus_per_host(void)
{
    const char *problem = "{ 'model': 'llama3-8b', 'cluster': { 'gpu': 'gb200-nvl72', 'nodes': 1, 'gpus_per_host': 5 },"
                          "  'training': { 'global_batch': 64, 'precision': 'bf16' } }";
    char path[1024];
    pp_temp_path("gpus-per-host.json", path, sizeof path);
    pp_write_json(path, problem);
    const char *args[] = {"plan", path, NULL};
    pp_run_expect(args, 2, "$.cluster.gpus_per_host: expected a divisor of gpus_per_node 72, found 5");
    /* a cluster of 8-GPU NVLink domains takes whole nodes as hosts */
    pp_write_json(path, "{ 'model': 'llama3-8b', 'cluster': { 'gpu': 'gb200-nvl72', 'nodes': 2, 'gpus_per_node': 8 },"
                        "  'training': { 'global_batch': 64, 'precision': 'bf16' } }");
    pp_run_result r;
    CU_ASSERT_EQUAL(pp_run_code(args, &r), 0);
    PP_ASSERT_CONTAINS(r.out, "torchrun --nnodes 4 --nproc-per-node 4");
    pp_run_free(&r);
}

/* The blocks a low-precision recipe keeps in bf16 are the plan's
 * (training.bf16_layers_first/_last, Megatron-Core --first-last-layers-bf16):
 * by default the recipe's own share rounded to the model's blocks (NVFP4:
 * NVIDIA's 2 and 8 of 62, so 1 and 4 of Llama 3 8B's 32), as stated
 * otherwise.  Those blocks' GEMMs run at the 16-bit rate on their own
 * shapes and cast nothing, so a layer's GEMM time is exactly the blend of
 * the all-NVFP4 and the all-bf16 layer over the share, and every block in
 * bf16 prices as bf16 training does.  A Blackwell NVFP4 GEMM runs at 0.72
 * of its format's peak ratio over bf16 (vLLM's measured CUTLASS kernels,
 * names.c), MXFP8 at the full rate.  A 16-bit recipe keeps none to state,
 * nor more blocks than the model has, nor under a framework that cannot. */
static pp_stage_kernels bf16_blocks_kernels(const pp_catalog *cat, const char *precision, const char *blocks,
                                            pp_problem *p)
{
    char squoted[512];
    snprintf(squoted, sizeof squoted,
             "{'model': 'llama3-8b', 'cluster': {'gpu': 'b200-sxm-180gb', 'nodes': 1},"
             " 'training': {'global_batch': 64, 'precision': '%s'%s}}",
             precision, blocks);
    pp_test_load(squoted, cat, p);
    pp_plan pl = pp_test_plan(1, 1, 8, 1, 1);
    pp_stage_kernels k;
    pp_form_stage_kernels_of(p, &pl, &k);
    return k;
}

static void test_bf16_blocks(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem p;
    pp_stage_kernels dflt = bf16_blocks_kernels(&cat, "nvfp4", "", &p);
    CU_ASSERT_TRUE(p.training.bf16_layers_resolved);
    CU_ASSERT_EQUAL(p.training.bf16_first, 1);
    CU_ASSERT_EQUAL(p.training.bf16_last, 4);
    PP_REL_EQ(p.training.bf16_share, 5.0 / 32.0, 1e-12);
    pp_stage_kernels none = bf16_blocks_kernels(&cat, "nvfp4", ", 'bf16_layers_first': 0, 'bf16_layers_last': 0", &p);
    CU_ASSERT_EQUAL(p.training.bf16_share, 0.0);
    pp_stage_kernels all = bf16_blocks_kernels(&cat, "nvfp4", ", 'bf16_layers_first': 16, 'bf16_layers_last': 16", &p);
    PP_REL_EQ(p.training.bf16_share, 1.0, 1e-12);
    pp_stage_kernels half16 = bf16_blocks_kernels(&cat, "bf16", "", &p);
    CU_ASSERT_FALSE(p.training.bf16_layers_resolved && p.training.bf16_share > 0.0);
    double s = 5.0 / 32.0;
    PP_REL_EQ(dflt.k.gemm_fwd_s, (1.0 - s) * none.k.gemm_fwd_s + s * all.k.gemm_fwd_s, 1e-12);
    PP_REL_EQ(dflt.k.gemm_bwd_s, (1.0 - s) * none.k.gemm_bwd_s + s * all.k.gemm_bwd_s, 1e-12);
    PP_REL_EQ(all.k.gemm_fwd_s, half16.k.gemm_fwd_s, 1e-12); /* every block in bf16 is bf16 training */
    PP_REL_EQ(all.k.gemm_bwd_s, half16.k.gemm_bwd_s, 1e-12);
    CU_ASSERT_EQUAL(all.k.cast_fwd_s, 0.0);
    PP_REL_EQ(dflt.k.cast_fwd_s, (1.0 - s) * none.k.cast_fwd_s, 1e-12);
    CU_ASSERT(none.k.gemm_fwd_s < dflt.k.gemm_fwd_s && dflt.k.gemm_fwd_s < all.k.gemm_fwd_s);
    /* NVFP4's measured rate on Blackwell; MXFP8 and Hopper's fp8 lose nothing */
    const pp_gpu *b200 = pp_catalog_gpu(&cat, "b200-sxm-180gb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(b200);
    PP_REL_EQ(pp_gemm_core_rate(b200, PP_PREC_NVFP4), 0.72, 1e-12);
    CU_ASSERT_EQUAL(pp_gemm_core_rate(b200, PP_PREC_MXFP8), 1.0);
    double big = 16384.0, nv = pp_gemm_time_s(b200, PP_PREC_NVFP4, big, big, big, 1.0),
           bf = pp_gemm_time_s(b200, PP_PREC_BF16, big, big, big, 1.0);
    double ratio = b200->peak_tflops[PP_PREC_NVFP4] / b200->peak_tflops[PP_PREC_BF16];
    CU_ASSERT(bf / nv > 0.6 * ratio && bf / nv < 0.75 * ratio);
    printf("\n    NVFP4 over bf16 at 16384^3 on a B200: %.2fx of the format's %.0fx ", bf / nv, ratio);
    /* what cannot be stated */
    static const struct {
        const char *more, *path;
    } bad[] = {{"'precision': 'bf16', 'bf16_layers_first': 1", "training.bf16_layers_first"},
               {"'precision': 'nvfp4', 'bf16_layers_first': 20, 'bf16_layers_last': 20", "training.bf16_layers_last"},
               {"'precision': 'mxfp8', 'framework': 'fsdp', 'bf16_layers_last': 2", "training.bf16_layers_last"},
               {"'precision': 'nvfp4', 'bf16_layers_first': -1", "training.bf16_layers_first"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char squoted[512];
        snprintf(squoted, sizeof squoted,
                 "{'model': 'llama3-8b', 'cluster': {'gpu': 'b200-sxm-180gb', 'nodes': 1},"
                 " 'training': {'global_batch': 64, %s}}",
                 bad[i].more);
        char *json = pp_json_of(squoted);
        pp_problem q;
        pp_error err;
        CU_ASSERT_EQUAL(pp_problem_parse(json, "problem.json", NULL, &cat, &q, &err), PP_EINPUT);
        PP_ASSERT_CONTAINS(err.path, bad[i].path);
        free(json);
    }
    pp_catalog_free(&cat);
}

int main(void)
{
    static const pp_test tests[] = {
        {"B200 and GB200 NVL72 plan in every format, uncalibrated", test_blackwell_plans_every_format},
        {"nvfp4 faster than bf16, by less than the peaks", test_nvfp4_faster_than_bf16},
        {"mxfp8 and nvfp4 refused on H100", test_block_formats_refused_on_hopper},
        {"fp8-block: slower than per-tensor fp8 on H200 as Transformer Engine measures, MXFP8's cost on B200",
         test_fp8_block_on_hopper},
        {"oversubscribed spine: slower across leaves, never faster", test_oversubscription},
        {"72-GPU NVLink domain holds tp x ep and tp x cp > 8", test_nvl72_domain},
        {"the GB200 example plans", test_example_plans},
        {"gpus_per_host: torchrun counts hosts, and it must divide gpus_per_node", test_gpus_per_host},
        {"bf16 blocks of a low-precision recipe: stated, priced as bf16 blocks, and NVFP4's measured rate",
         test_bf16_blocks},
        {NULL, NULL},
    };
    return pp_test_main("blackwell", tests);
}
