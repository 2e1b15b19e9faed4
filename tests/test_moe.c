/*
 * test_moe.c: Mixture-of-Experts models and expert parallelism
 * (docs/cost-model.md section 9).
 *
 * The three published configs read with the cards' parameter counts; the
 * all-to-all's bytes split by where the ep group sits; DeepSeek-V3's
 * published layout prices; the planner picks expert parallelism for it;
 * the rules of ep and etp.
 */
#include "cost_layout.h"
#include "cost_terms.h"
#include "costmodel.h"
#include "decisions.h"
#include "launch.h"
#include "planner.h"
#include "problem.h"
#include "rules.h"
#include "space.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void near(double got, double want, double tol, const char *what)
{
    bool ok = fabs(got / want - 1.0) <= tol;
    CU_ASSERT(ok);
    printf("\n    %s: %.2f B (card %.1f B) ", what, got / 1e9, want / 1e9);
}

/* The cards: Mixtral 8x7B 46.7B / 12.9B (arXiv 2401.04088), Qwen3-30B-A3B
 * 30.5B / 3.3B (model card), DeepSeek-V3 671B / 37B (arXiv 2412.19437,
 * main model): total within 3 %, active within 5 %, from the Hugging Face
 * configs and from the catalog alike; Kimi K2's from the catalog. */
static void test_parameter_counts(void)
{
    static const struct {
        const char *config, *id;
        double total, active;
    } cards[] = {{"mixtral-8x7b", "mixtral-8x7b", 46.7e9, 12.9e9},
                 {"qwen3-30b-a3b", "qwen3-30b-a3b", 30.5e9, 3.3e9},
                 {"deepseek-v3", "deepseek-v3", 671e9, 37e9}};
    pp_catalog cat;
    pp_load_catalog(&cat);
    for (size_t i = 0; i < sizeof cards / sizeof cards[0]; i++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{'model': {'hf_config': '%s/tests/data/%s-config.json', 'seq_len': 4096},"
                 " 'cluster': 'selene', 'training': {'global_batch': 64}}",
                 PARPLAN_SOURCE_DIR, cards[i].config);
        pp_problem hf, catalog;
        pp_test_load(json, &cat, &hf);
        snprintf(json, sizeof json, "{'model': '%s', 'cluster': 'selene', 'training': {'global_batch': 64}}",
                 cards[i].id);
        pp_test_load(json, &cat, &catalog);
        CU_ASSERT(pp_model_is_moe(&hf.model));
        near(pp_model_params(&hf.model), cards[i].total, 0.03, cards[i].config);
        near(pp_model_active_params(&hf.model), cards[i].active, 0.05, "  active");
        CU_ASSERT_DOUBLE_EQUAL(pp_model_params(&catalog.model), pp_model_params(&hf.model), 1.0);
        CU_ASSERT_DOUBLE_EQUAL(pp_model_active_params(&catalog.model), pp_model_active_params(&hf.model), 1.0);
    }
    /* Kimi K2 (arXiv 2507.20534: 1.04 T total, 32 B active), its catalog
     * entry from the Megatron-MoE model zoo's arguments, found by its name */
    pp_problem k2;
    pp_test_load("{'model': 'Kimi K2', 'cluster': 'selene', 'training': {'global_batch': 64}}", &cat, &k2);
    near(pp_model_params(&k2.model), 1.04e12, 0.03, "kimi-k2");
    near(pp_model_active_params(&k2.model), 32e9, 0.05, "  active");
    CU_ASSERT(k2.model.experts == 384 && k2.model.first_dense_layers == 1 && k2.model.router_groups == 0);
    /* Models of the catalog by name, their cards' counts as each counts the
     * active ones (the embedding tables left out: 2 both, 1 the input's):
     * GLM-4.5 355B-A32B and Air 106B-A12B (arXiv 2508.06471), whose MTP
     * module trains by default under Megatron-Core; DeepSeek-V2-Lite (15.7 B
     * / 2.4 B, its model card) and Moonlight-16B-A3B (16 B / 3 B), latent
     * attention with the queries projected directly (q_lora_rank 0); all
     * from Megatron-Bridge's providers */
    static const struct {
        const char *name;
        double total, active, embeddings_out;
        int mtp_layers;
        bool direct_queries;
    } named[] = {{"GLM-4.5", 355e9, 32e9, 2.0, 1, false},
                 {"GLM 4.5 Air", 106e9, 12e9, 2.0, 1, false},
                 {"DeepSeek V2 Lite", 15.7e9, 2.4e9, 1.0, 0, true},
                 {"Moonlight 16B", 16e9, 3e9, 0.0, 0, true}};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        char json[256];
        snprintf(json, sizeof json, "{'model': '%s', 'cluster': 'selene', 'training': {'global_batch': 64}}",
                 named[i].name);
        pp_problem g;
        pp_test_load(json, &cat, &g);
        near(pp_model_params(&g.model), named[i].total, 0.03, named[i].name);
        near(pp_model_active_params(&g.model) - named[i].embeddings_out * pp_embedding_params(&g.model),
             named[i].active, 0.05, "  active as the card counts it");
        CU_ASSERT_EQUAL(g.training.mtp_layers, named[i].mtp_layers);
        CU_ASSERT_EQUAL(pp_model_is_mla(&g.model) && g.model.q_lora_rank == 0, named[i].direct_queries);
    }
    pp_catalog_free(&cat);
}

/* The all-to-all: (1 - 1/ep) of the buffer leaves each rank, (k-1)/ep of
 * it over NVLink and (ep-k)/ep through the NIC. */
static void test_alltoall_bytes(void)
{
    double nv, net;
    pp_alltoall_bytes(64.0, 8, 8, &nv, &net); /* one node */
    CU_ASSERT_DOUBLE_EQUAL(nv, 56.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(net, 0.0, 1e-12);
    pp_alltoall_bytes(64.0, 64, 8, &nv, &net); /* eight nodes */
    CU_ASSERT_DOUBLE_EQUAL(nv, 7.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(net, 56.0, 1e-12);
    pp_alltoall_bytes(64.0, 1, 8, &nv, &net);
    CU_ASSERT_DOUBLE_EQUAL(nv + net, 0.0, 0.0);
}

static void deepseek(const pp_catalog *cat, pp_problem *p)
{
    pp_test_load("{'model': 'deepseek-v3', 'cluster': {'gpu': 'h800-sxm5-80gb', 'gpus_per_node': 8, 'nodes': 256,"
         " 'intra_node_GBps': 200, 'inter_node_Gbps': 400},"
         " 'training': {'global_batch': 15360, 'precision': 'fp8', 'moe_load_imbalance': 1.1}}",
         cat, p);
}

/* DeepSeek-V3's published layout (arXiv 2412.19437 §3.2: pp 16, ep 64
 * over 8 nodes, ZeRO-1, no tensor parallelism; dp 128 on 2048 H800)
 * prices; its all-to-all crosses nodes; the experts' optimizer shards span
 * dp / ep = 2 ranks. */
static void test_deepseek_published_layout(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem p;
    deepseek(&cat, &p);
    pp_plan plan = pp_test_plan(1, 16, 128, 1, 1);
    plan.ep = 64;
    plan.zero = 1;
    plan.recompute = PP_RECOMPUTE_SELECTIVE;
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(pp_plan_check(&p, &plan, &err), PP_OK);
    CU_ASSERT_EQUAL(pp_expert_replica_ranks(&plan), 2);
    pp_eval ev;
    pp_evaluate(&p, &plan, &ev);
    const pp_time *t = &ev.time;
    CU_ASSERT(t->ep_comm_s > 0.0);
    CU_ASSERT(ev.bytes_network_per_step > 0.0);
    double sum = t->compute_s + t->bubble_s + t->exposed_comm_s + t->compression_s + t->optimizer_s + t->link_wait_s;
    CU_ASSERT_DOUBLE_EQUAL(sum, t->step_s, 1e-9 * t->step_s);
    CU_ASSERT_DOUBLE_EQUAL(pp_step_time_s(&p, &plan), t->step_s, 1e-9 * t->step_s);
    double gpu_hours_per_T = t->step_s * 2048 / 3600.0 * 1e12 / (15360.0 * 4096.0);
    printf("\n    step %.2f s (all-to-all %.2f s): %.0fK H800 GPU-hours per trillion tokens (published ~180K) ",
           t->step_s, t->ep_comm_s, gpu_hours_per_T / 1e3);
    CU_ASSERT(gpu_hours_per_T > 90e3 && gpu_hours_per_T < 400e3);
    /* ep inside a node: the all-to-all stays on NVLink */
    pp_plan in_node = plan;
    in_node.ep = 8;
    pp_evaluate(&p, &in_node, &ev);
    pp_stage_term st;
    pp_term_stage(&p, &in_node, &st);
    CU_ASSERT(st.bytes_nvlink > 0.0 && st.bytes_network == 0.0);
    /* the rules: ep divides the experts, ep x etp divides tp x dp x cp
     * (parallel folding), etp is 1 or tp */
    pp_plan bad = plan;
    bad.ep = 3;
    CU_ASSERT_NOT_EQUAL(pp_plan_check(&p, &bad, NULL), PP_OK);
    bad = plan;
    bad.ep = 256; /* divides the experts, not tp x dp = 128 */
    CU_ASSERT_NOT_EQUAL(pp_plan_check(&p, &bad, NULL), PP_OK);
    /* folded over the TP ranks: tp 2 dp 64 gives ep 128 its ranks when
     * etp is 1, not when the experts are tensor-parallel too */
    pp_plan folded = pp_test_plan(2, 16, 64, 1, 1);
    folded.sequence_parallel = true;
    folded.ep = 128;
    CU_ASSERT_EQUAL(pp_plan_check(&p, &folded, NULL), PP_OK);
    CU_ASSERT_EQUAL(pp_expert_replica_ranks(&folded), 1);
    folded.etp = 2;
    CU_ASSERT_NOT_EQUAL(pp_plan_check(&p, &folded, NULL), PP_OK);
    /* an ep group of 8 with etp 1 is 8 consecutive ranks: one node, all
     * NVLink, even with tp 2 (Megatron-Core's folded rank order) */
    folded.etp = 1;
    folded.ep = 8;
    pp_term_stage(&p, &folded, &st);
    CU_ASSERT(st.bytes_nvlink > 0.0 && st.bytes_network == 0.0);
    folded.etp = 2; /* stride 2: 16 ranks, two nodes */
    pp_term_stage(&p, &folded, &st);
    CU_ASSERT(st.bytes_network > 0.0);
    bad = pp_test_plan(2, 16, 64, 1, 1);
    bad.ep = 8;
    bad.etp = 2;
    CU_ASSERT_NOT_EQUAL(pp_plan_check(&p, &bad, NULL), PP_OK); /* tp 2 without sequence parallelism */
    bad.sequence_parallel = true;
    CU_ASSERT_EQUAL(pp_plan_check(&p, &bad, NULL), PP_OK);
    bad.etp = 4;
    CU_ASSERT_NOT_EQUAL(pp_plan_check(&p, &bad, NULL), PP_OK);
    pp_catalog_free(&cat);
}

/* Mixtral 8x7B on one H100 node, batch 64, its experts over 8 GPUs. */
static void mixtral_one_node(const pp_catalog *cat, pp_problem *p, pp_plan *pl)
{
    pp_test_load("{'model': 'mixtral-8x7b', 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 1},"
                 " 'training': {'global_batch': 64}}", cat, p);
    *pl = pp_test_plan(1, 1, 8, 1, 1);
    pl->ep = 8;
}

/* DeepEP's dispatch sends a token once to each node and each GPU that
 * holds one of its experts.  With one expert per GPU (Mixtral's 8 on 8)
 * that is exactly one copy per (token, expert); with Qwen3-30B-A3B's 128
 * experts, top 8, over 32 GPUs in 4 nodes, the NIC carries (N - 1)(1 - P)
 * = 3 x (1 - C(96,8)/C(128,8)) = 2.71 copies of a token instead of
 * 8 x 24/32 = 6. */
static void test_deepep_dedup(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem p;
    pp_plan pl;
    mixtral_one_node(&cat, &p, &pl);
    pp_stage_term a2a, deepep;
    pp_term_stage(&p, &pl, &a2a);
    p.training.moe_deepep = true;
    pp_term_stage(&p, &pl, &deepep);
    PP_REL_EQ(deepep.bytes_nvlink, a2a.bytes_nvlink, 1e-9);
    pp_test_load("{'model': 'qwen3-30b-a3b', 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 4},"
                 " 'training': {'global_batch': 64}}", &cat, &p);
    pl = pp_test_plan(1, 1, 32, 1, 1);
    pl.ep = 32;
    pp_term_stage(&p, &pl, &a2a);
    p.training.moe_deepep = true;
    pp_term_stage(&p, &pl, &deepep);
    double none = 1.0;
    for (int i = 0; i < 8; i++)
        none *= (96.0 - i) / (128.0 - i);
    PP_REL_EQ(deepep.bytes_network / a2a.bytes_network, 3.0 * (1.0 - none) / 6.0, 1e-9);
    CU_ASSERT(deepep.ep_comm_s < a2a.ep_comm_s);
    /* node-limited routing (DeepSeek-V3's 4 of 8 groups, here 2 of 4
     * groups of 32 experts, one group a node): the token reaches the nodes
     * of 2 groups drawn from 4, (N - 1)(1 - C(3,2)/C(4,2)) = 1.5 copies */
    pp_stage_term limited;
    p.model.router_groups = 4;
    p.model.router_group_topk = 2;
    pp_term_stage(&p, &pl, &limited);
    PP_REL_EQ(limited.bytes_network / a2a.bytes_network, 3.0 * (1.0 - 3.0 / 6.0) / 6.0, 1e-9);
    p.model.router_groups = p.model.router_group_topk = 0;
    /* hidden behind the other micro-batch's compute (1F1B all-to-all
     * overlap, DualPipe), the all-to-alls cost only the SMs their kernels
     * take while the stage's compute lasts, and in full what outlasts it;
     * but the schedule pairs a forward with a backward only after the
     * first forward and before the last backward (combined_1f1b.py without
     * a pipeline), so of m micro-batches one forward and one backward wait
     * in full: 1/m of the all-to-alls.  Global batch 64 over 32 replicas
     * is m = 2, half of them. */
    pp_stage_term hidden;
    p.training.moe_a2a_overlap = true;
    CU_ASSERT_EQUAL(pp_microbatches(&p, &pl), 2);
    pp_term_stage(&p, &pl, &hidden);
    double share = pp_comm_sm_share(&p), lasts = fmin(deepep.ep_comm_s, deepep.fwd_s + deepep.bwd_s);
    CU_ASSERT(lasts > 0.5 * deepep.ep_comm_s); /* mostly hidden: the case the overlap is for */
    double paired = deepep.ep_comm_s - (1.0 - share) * lasts;
    PP_REL_EQ(hidden.ep_comm_s, 0.5 * deepep.ep_comm_s + 0.5 * paired, 1e-9);
    CU_ASSERT(hidden.ep_comm_s < deepep.ep_comm_s);
    PP_REL_EQ(hidden.bytes_network, deepep.bytes_network, 1e-12);
    /* more micro-batches a step hide more: at m = 8, 1/8 waits in full,
     * and the exposure falls toward the paired steady state as 1/m */
    pp_problem many = p;
    many.training.global_batch = 256;
    CU_ASSERT_EQUAL(pp_microbatches(&many, &pl), 8);
    pp_stage_term eight;
    pp_term_stage(&many, &pl, &eight);
    PP_REL_EQ(eight.ep_comm_s, deepep.ep_comm_s / 8.0 + paired * 7.0 / 8.0, 1e-9);
    CU_ASSERT(eight.ep_comm_s < hidden.ep_comm_s);
    /* and the launch settings ask Megatron-Core for it */
    char lines[48][160];
    int n = pp_megatron_flags(&p, &pl, lines, 48);
    bool flex = false, overlap = false;
    for (int i = 0; i < n; i++) {
        flex |= strstr(lines[i], "--moe-token-dispatcher-type flex --moe-enable-deepep") != NULL;
        overlap |= strcmp(lines[i], "--overlap-moe-expert-parallel-comm") == 0;
    }
    CU_ASSERT(flex && overlap);
    pp_catalog_free(&cat);
}

/* The dispatcher and the overlap as plan decisions (decisions.def): the
 * plan's values price as the training settings did; the rule refuses them
 * where they cannot run (a dense model, a GPU before Hopper, ep 1, a
 * pipeline without interleaving); what each framework runs is
 * data/frameworks.json's; the planner chooses them for a MoE model, the MIP
 * and the enumeration alike, and a problem's training setting fixes them. */
static void test_dispatcher_overlap_decisions(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem p;
    pp_test_load("{'model': 'qwen3-30b-a3b', 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 4},"
                 " 'training': {'global_batch': 64}}", &cat, &p);
    pp_plan pl = pp_test_plan(1, 1, 32, 1, 1);
    pl.ep = 32;
    pp_stage_term plain, by_plan, by_setting;
    pp_term_stage(&p, &pl, &plain);
    pp_plan on = pl;
    on.moe_dispatcher = 1;
    on.moe_a2a_overlap = true;
    CU_ASSERT_EQUAL(pp_plan_check(&p, &on, NULL), PP_OK);
    pp_term_stage(&p, &on, &by_plan);
    pp_problem q = p;
    q.training.moe_deepep = q.training.moe_a2a_overlap = true;
    pp_term_stage(&q, &pl, &by_setting);
    PP_REL_EQ(by_plan.ep_comm_s, by_setting.ep_comm_s, 1e-12);
    PP_REL_EQ(by_plan.bytes_network, by_setting.bytes_network, 1e-12);
    CU_ASSERT(by_plan.ep_comm_s < plain.ep_comm_s);
    CU_ASSERT(by_plan.bytes_network < plain.bytes_network);

    /* the rule */
    pp_error err;
    pp_plan x = on;
    x.ep = 1;
    CU_ASSERT_NOT_EQUAL(pp_plan_check(&p, &x, &err), PP_OK);
    PP_ASSERT_CONTAINS(err.msg, "ep > 1");
    x = on;
    x.pp = 2;
    x.dp = 16;
    x.ep = 16;
    CU_ASSERT_NOT_EQUAL(pp_plan_check(&p, &x, &err), PP_OK);
    PP_ASSERT_CONTAINS(err.msg, "interleaved");
    x.moe_a2a_overlap = false;
    CU_ASSERT_EQUAL(pp_plan_check(&p, &x, &err), PP_OK);
    /* Megatron-Core: "disable full recomputation when enabling
     * overlap_moe_expert_parallel_comm", "disable moe in recompute_modules",
     * "MTP layernum only supports 1"; the space offers neither pair */
    x = on;
    x.recompute = PP_RECOMPUTE_FULL;
    CU_ASSERT_NOT_EQUAL(pp_plan_check(&p, &x, &err), PP_OK);
    PP_ASSERT_CONTAINS(err.msg, "full recomputation");
    CU_ASSERT_FALSE(pp_space_options_fit(&x));
    x.recompute = PP_RECOMPUTE_SELECTIVE;
    x.recompute_modules = PP_RCM_MOE;
    CU_ASSERT_NOT_EQUAL(pp_plan_check(&p, &x, &err), PP_OK);
    PP_ASSERT_CONTAINS(err.msg, "moe recompute module");
    CU_ASSERT_FALSE(pp_space_options_fit(&x));
    x.recompute_modules = PP_RCM_MOE_ACT;
    CU_ASSERT_EQUAL(pp_plan_check(&p, &x, &err), PP_OK);
    CU_ASSERT_TRUE(pp_space_options_fit(&x));
    x.moe_a2a_overlap = false;
    x.recompute = PP_RECOMPUTE_FULL;
    x.recompute_modules = PP_RCM_CORE_ATTN;
    CU_ASSERT_EQUAL(pp_plan_check(&p, &x, &err), PP_OK);
    pp_problem mtp2 = p;
    mtp2.training.mtp_layers = 2;
    CU_ASSERT_FALSE(pp_moe_comm_offered(&mtp2, PP_DEC_MOE_A2A_OVERLAP));
    CU_ASSERT_NOT_EQUAL(pp_plan_check(&mtp2, &on, &err), PP_OK);
    PP_ASSERT_CONTAINS(err.msg, "multi-token-prediction");
    pp_problem a100;
    pp_test_load("{'model': 'qwen3-30b-a3b', 'cluster': {'gpu': 'a100-sxm4-80gb', 'nodes': 4},"
                 " 'training': {'global_batch': 64}}", &cat, &a100);
    CU_ASSERT_NOT_EQUAL(pp_plan_check(&a100, &on, &err), PP_OK);
    PP_ASSERT_CONTAINS(err.msg, "Hopper");
    CU_ASSERT(!pp_moe_comm_offered(&a100, PP_DEC_MOE_DISPATCHER));
    CU_ASSERT(pp_moe_comm_offered(&a100, PP_DEC_MOE_A2A_OVERLAP));
    pp_problem dense;
    pp_load_problem("data/examples/gpt3-175b-1024-a100.json", &cat, &dense);
    CU_ASSERT(!pp_moe_comm_offered(&dense, PP_DEC_MOE_A2A_OVERLAP));

    /* the frameworks (data/frameworks.json) */
    q = p;
    q.fw = cat.frameworks[PP_FW_FSDP]; /* torchtitan: expert_parallel_comm_backend "deepep", no 1F1B overlap */
    CU_ASSERT(pp_framework_runs(&q, PP_DEC_MOE_DISPATCHER, 1));
    CU_ASSERT(!pp_framework_runs(&q, PP_DEC_MOE_A2A_OVERLAP, 1));
    q.fw = cat.frameworks[PP_FW_DEEPSPEED];
    CU_ASSERT(!pp_moe_comm_offered(&q, PP_DEC_MOE_DISPATCHER));
    CU_ASSERT(!pp_moe_comm_offered(&q, PP_DEC_MOE_A2A_OVERLAP));
    q.fw = cat.frameworks[PP_FW_MEGATRON_CORE]; /* a set of modules: every subset of those listed */
    CU_ASSERT(pp_framework_runs(&q, PP_DEC_RECOMPUTE_MODULES, 15));

    /* the planner chooses them (MIP = enumeration); a training setting fixes them */
    p.search[PP_DEC_PP] = (pp_int_list){1, {1}};
    p.search[PP_DEC_TP] = (pp_int_list){1, {1}};
    p.search[PP_DEC_CP] = (pp_int_list){1, {1}};
    p.search[PP_DEC_EP] = (pp_int_list){1, {32}};
    for (int fixed = 0; fixed < 2; fixed++) {
        if (fixed) {
            p.training.moe_dispatcher_given = p.training.moe_a2a_overlap_given = true;
            p.training.moe_deepep = p.training.moe_a2a_overlap = false;
        }
        pp_plan_result res[2];
        pp_test_solve_both(&p, res);
        for (int k = 0; k < 2; k++) {
            const pp_plan *b = &res[k].best.plan;
            CU_ASSERT_EQUAL(b->moe_dispatcher, fixed ? 0 : 1);
            CU_ASSERT_EQUAL(b->moe_a2a_overlap, !fixed);
            if (k == 0 && !fixed) {
                pp_launch l;
                pp_launch_build(&p, b, pp_microbatches(&p, b), &l);
                bool flex = false, overlap = false, titan = false;
                for (int t = 0; t < PP_LT_COUNT; t++)
                    for (int i = 0; i < l.targets[t].n; i++) {
                        flex |= strcmp(l.targets[t].settings[i].key, "--moe-enable-deepep") == 0;
                        overlap |= strcmp(l.targets[t].settings[i].key, "--overlap-moe-expert-parallel-comm") == 0;
                        titan |= strcmp(l.targets[t].settings[i].key, "expert_parallel_comm_backend") == 0;
                    }
                CU_ASSERT(flex && overlap && titan);
            }
            pp_plan_result_free(&res[k]);
        }
    }
    pp_catalog_free(&cat);
}

/* The expert block's backward is two passes of its forward (data and
 * weight gradients of every expert GEMM), one with LoRA's frozen experts,
 * plus one more forward under full recomputation: widening the experts
 * adds to the stage's backward exactly that many times what it adds to the
 * forward (bf16, so no casts; the dense layers and logits stay). */
static void test_expert_backward_passes(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem p;
    pp_plan pl;
    mixtral_one_node(&cat, &p, &pl);
    const struct {
        int lora;
        pp_recompute r;
        double passes;
    } cases[] = {{0, PP_RECOMPUTE_NONE, 2.0}, {0, PP_RECOMPUTE_FULL, 3.0}, {16, PP_RECOMPUTE_NONE, 1.0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        p.training.lora_rank = cases[c].lora;
        pl.recompute = cases[c].r;
        pp_stage_term narrow, wide;
        pp_term_stage(&p, &pl, &narrow);
        p.model.moe_ffn_hidden *= 2;
        pp_term_stage(&p, &pl, &wide);
        p.model.moe_ffn_hidden /= 2;
        double dfwd = wide.fwd_s - narrow.fwd_s, dbwd = wide.bwd_s - narrow.bwd_s;
        CU_ASSERT(dfwd > 0.0);
        PP_REL_EQ(dbwd, cases[c].passes * dfwd, 1e-9);
    }
    pp_catalog_free(&cat);
}

/* The planner gives DeepSeek-V3 on 256 nodes of 8 H800 expert
 * parallelism, and the MIP's optimum is the evaluator's step time. */
static void test_deepseek_plans_ep(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem p;
    deepseek(&cat, &p);
    pp_plan_options o;
    pp_plan_options_init(&o);
    pp_plan_result res;
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(pp_plan_solve(&p, &o, &res, &err), PP_OK);
    CU_ASSERT(res.best.plan.ep > 1);
    CU_ASSERT_DOUBLE_EQUAL(pp_step_time_s(&p, &res.best.plan), res.best.eval.time.step_s,
                           1e-9 * res.best.eval.time.step_s);
    char text[512];
    pp_plan_text(&p, &res.best.plan, text, sizeof text);
    printf("\n    optimum %s: %.2f s ", text, res.best.eval.time.step_s);
    pp_plan_result_free(&res);
    pp_catalog_free(&cat);
}

/* A dense model is priced as before: no expert term, no stage bytes, and
 * ep / etp other than 1 are refused. */
static void test_dense_untouched(void)
{
    pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 128, 1536);
    pp_plan plan = pp_test_plan(8, 8, 16, 1, 1);
    CU_ASSERT_EQUAL_FATAL(pp_plan_check(&p, &plan, NULL), PP_OK);
    pp_stage_term st;
    pp_term_stage(&p, &plan, &st);
    CU_ASSERT_EQUAL(st.ep_comm_s, 0.0);
    CU_ASSERT_EQUAL(st.bytes_nvlink + st.bytes_network, 0.0);
    CU_ASSERT_EQUAL(pp_model_active_params(&p.model), pp_model_params(&p.model));
    plan.ep = 2;
    CU_ASSERT_NOT_EQUAL(pp_plan_check(&p, &plan, NULL), PP_OK);
}

/* A range's MoE layers are counted without a loop (every stage of every
 * candidate asks): the count equals the layer-by-layer one for every
 * frequency, first dense layers, model depth and range, those past the
 * model and before it included. */
static void test_moe_layers_in_range(void)
{
    pp_model m;
    memset(&m, 0, sizeof m);
    int checked = 0;
    for (int experts = 0; experts <= 8; experts += 8)
        for (int layers = 1; layers <= 40; layers += 3)
            for (int freq = 0; freq <= 4; freq++)
                for (int dense = 0; dense <= 5; dense += 2) {
                    m.layers = layers;
                    m.experts = experts;
                    m.moe_ffn_hidden = experts ? 1024 : 0;
                    m.moe_layer_freq = freq;
                    m.first_dense_layers = dense;
                    for (long first = 0; first <= layers + 1; first++)
                        for (long n = 0; n <= layers + 2; n++) {
                            int loop = 0;
                            for (long i = first; i < first + n && i < m.layers; i++)
                                loop += pp_layer_is_moe(&m, (int)i);
                            CU_ASSERT_EQUAL(pp_moe_layers_in(&m, first, n), loop);
                            checked += loop > 0;
                        }
                    CU_ASSERT_EQUAL(pp_moe_layers_in(&m, 0, layers), pp_moe_layers(&m));
                }
    CU_ASSERT(checked > 1000);
}

/* A stage's MoE layers (its chunks' shortcut where every layer past the
 * dense prefix is a MoE layer) are those of its layers counted one by one:
 * every frequency, dense prefix, depth, pipeline, interleaving and layout
 * the split allows (interleaving with pp > 1, as the rules do), each stage's chunks walked from the split. */
static void test_moe_layers_on_stage(void)
{
    pp_problem p;
    memset(&p, 0, sizeof p);
    pp_model *m = &p.model;
    int checked = 0;
    for (int layers = 2; layers <= 64; layers += 7)
        for (int freq = 0; freq <= 3; freq++)
            for (int dense = 0; dense <= 7; dense += 3)
                for (int pp = 1; pp <= 8; pp++)
                    for (int v = 1; v <= 4; v++)
                        for (int layout = 0; layout <= 3; layout++) {
                            m->layers = layers;
                            m->experts = 8;
                            m->moe_ffn_hidden = 1024;
                            m->moe_layer_freq = freq;
                            m->first_dense_layers = dense;
                            pp_plan plan = pp_test_plan(1, pp, 1, 1, 1);
                            plan.virtual_stages = v;
                            plan.pipeline_layout = layout;
                            pp_stage_split sp;
                            if ((v > 1 && pp < 2) || !pp_stage_layers(&p, &plan, &sp))
                                continue; /* interleaving needs a pipeline (rules.c) */
                            int total = 0;
                            for (int s = 0; s < pp; s++) {
                                int loop = 0, held = 0;
                                for (int j = 0; j < v; j++) {
                                    long g = (long)j * pp + s, n_chunks = (long)pp * v;
                                    long start = v == 1 ? (s == 0 ? 0 : sp.first + (long)(s - 1) * sp.middle)
                                                        : g == 0 ? 0
                                                                 : sp.first_chunk + (g - 1) * sp.chunk;
                                    long len = v == 1 ? (s == 0 ? sp.first : s == pp - 1 ? sp.last : sp.middle)
                                                      : g == 0 ? sp.first_chunk
                                                      : g == n_chunks - 1 ? sp.last_chunk
                                                                          : sp.chunk;
                                    for (long i = start; i < start + len; i++)
                                        loop += pp_layer_is_moe(m, (int)i);
                                    held += (int)len;
                                }
                                CU_ASSERT_EQUAL(held, layers_on_stage(&p, &plan, s));
                                CU_ASSERT_EQUAL(moe_layers_on_stage(&p, &plan, s), loop);
                                total += loop;
                                checked++;
                            }
                            CU_ASSERT_EQUAL(total, pp_moe_layers(m));
                        }
    CU_ASSERT(checked > 5000);
}

/* The value of a launch setting of target t, or NULL. */
static const pp_launch_setting *setting_of(const pp_launch *l, int t, const char *key)
{
    for (int i = 0; i < l->targets[t].n; i++)
        if (strcmp(l->targets[t].settings[i].key, key) == 0)
            return &l->targets[t].settings[i];
    return NULL;
}

/* The experts' capacity (moe_capacity_factor): the busiest expert takes
 * the lesser of its load and the factor, every name of the row's the
 * factor it says; it speeds the stage only where it binds; the framework
 * rule is data (torchtitan is dropless); the space offers it only where the
 * problem's search lists it and ep > 1, and the planner then takes it
 * (MIP = enumeration); the launch settings drop as priced. */
static void test_moe_capacity_factor(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem p;
    pp_test_load("{'model': 'qwen3-30b-a3b', 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 4},"
                 " 'training': {'global_batch': 64, 'moe_load_imbalance': 1.2}}", &cat, &p);
    const pp_decision *d = &pp_decisions[PP_DEC_MOE_CAPACITY];
    pp_plan pl = pp_test_plan(1, 1, 32, 1, 1);
    pl.ep = 32;
    CU_ASSERT_EQUAL(pl.moe_capacity_factor, 0); /* dropless by default */
    CU_ASSERT_EQUAL(moe_load_imbalance(&p, &pl), 1.2);
    pp_problem loose = p;
    loose.training.moe_load_imbalance = 64.0;
    for (int c = 1; c <= d->max; c++) {
        pp_plan x = pl;
        x.moe_capacity_factor = c;
        CU_ASSERT_EQUAL(moe_load_imbalance(&loose, &x), strtod(d->names[c], NULL));
        CU_ASSERT_EQUAL(moe_load_imbalance(&p, &x), fmin(1.2, strtod(d->names[c], NULL)));
    }
    pp_plan drop = pl, wide = pl;
    drop.moe_capacity_factor = 1; /* 1.0 */
    wide.moe_capacity_factor = d->max; /* 2.0: above the load, binds nothing */
    CU_ASSERT_STRING_EQUAL(d->names[1], "1.0");
    CU_ASSERT_EQUAL(pp_plan_check(&p, &drop, NULL), PP_OK);
    pp_stage_term plain, dropped, widened;
    pp_term_stage(&p, &pl, &plain);
    pp_term_stage(&p, &drop, &dropped);
    pp_term_stage(&p, &wide, &widened);
    CU_ASSERT(dropped.fwd_s < plain.fwd_s && dropped.bwd_s < plain.bwd_s);
    CU_ASSERT_EQUAL(widened.total_s, plain.total_s);
    /* the all-to-alls wait for the GPU of the busiest experts, which
     * receives (and returns) 1.2 x the mean: 1.2 x the balanced time at
     * the same mean bytes, and the capacity factor 1.0 caps it */
    pp_problem even = p;
    even.training.moe_load_imbalance = 1.0;
    pp_stage_term balanced;
    pp_term_stage(&even, &pl, &balanced);
    CU_ASSERT(balanced.ep_comm_s > 0.0);
    PP_REL_EQ(plain.ep_comm_s, 1.2 * balanced.ep_comm_s, 1e-9);
    PP_REL_EQ(dropped.ep_comm_s, balanced.ep_comm_s, 1e-9);
    PP_REL_EQ(plain.bytes_network, balanced.bytes_network, 1e-12);
    CU_ASSERT(pp_step_time_s(&p, &drop) < pp_step_time_s(&p, &pl));
    /* without expert parallelism every GPU holds every expert and runs its
     * own tokens' k copies however they are routed: no GPU is busier than
     * the mean, so an ep 1 plan prices the same at any imbalance, and its
     * experts' rows are exactly T k (MLPerf v6.0's GPT-OSS-20B runs) */
    pp_plan one = pp_test_plan(1, 1, 32, 1, 1);
    CU_ASSERT_EQUAL(one.ep, 1);
    CU_ASSERT_EQUAL(moe_load_imbalance(&p, &one), 1.0);
    CU_ASSERT_EQUAL(moe_load_imbalance(&loose, &one), 1.0);
    PP_REL_EQ(pp_step_time_s(&p, &one), pp_step_time_s(&even, &one), 1e-12);
    CU_ASSERT(pp_step_time_s(&p, &pl) > pp_step_time_s(&even, &pl)); /* at ep 32 it binds */

    /* the rule: data/frameworks.json */
    pp_problem q = p;
    q.fw = cat.frameworks[PP_FW_FSDP];
    CU_ASSERT(pp_framework_runs(&q, PP_DEC_MOE_CAPACITY, 0));
    CU_ASSERT(!pp_framework_runs(&q, PP_DEC_MOE_CAPACITY, 1));
    pp_error err;
    CU_ASSERT_NOT_EQUAL(pp_plan_check(&q, &drop, &err), PP_OK);
    PP_ASSERT_CONTAINS(err.msg, "moe_capacity_factor");
    q.fw = cat.frameworks[PP_FW_DEEPSPEED];
    CU_ASSERT(pp_framework_runs(&q, PP_DEC_MOE_CAPACITY, 1));

    /* the space and the planner, with the layers in CUDA graphs: eager,
     * the host's time to issue a MoE layer binds these plans (step.c), and
     * dropping or not would tie */
    p.training.cuda_graphs = PP_GRAPHS_PARTIAL;
    p.search[PP_DEC_PP] = (pp_int_list){1, {1}};
    p.search[PP_DEC_TP] = (pp_int_list){1, {1}};
    p.search[PP_DEC_CP] = (pp_int_list){1, {1}};
    for (int listed = 0; listed < 2; listed++)
        for (int ep = 1; ep <= 32; ep += 31) {
            p.search[PP_DEC_EP] = (pp_int_list){1, {ep}};
            p.search[PP_DEC_MOE_CAPACITY] = listed ? (pp_int_list){2, {0, 1}} : (pp_int_list){0, {0}};
            pp_plan_result res[2];
            pp_test_solve_both(&p, res);
            for (int k = 0; k < 2; k++) {
                CU_ASSERT_EQUAL(res[k].best.plan.moe_capacity_factor, listed && ep > 1 ? 1 : 0);
                pp_plan_result_free(&res[k]);
            }
        }

    /* the launch settings: Megatron-Core drops by probability, unpadded */
    pp_launch l;
    pp_launch_build(&p, &drop, pp_microbatches(&p, &drop), &l);
    const pp_launch_setting *cf = setting_of(&l, PP_LT_MEGATRON, "--moe-expert-capacity-factor");
    const pp_launch_setting *policy = setting_of(&l, PP_LT_MEGATRON, "--moe-token-drop-policy");
    CU_ASSERT_FATAL(cf != NULL && policy != NULL);
    CU_ASSERT_STRING_EQUAL(cf->text, "1.0");
    CU_ASSERT_STRING_EQUAL(policy->text, "probs");
    CU_ASSERT_PTR_NOT_NULL(setting_of(&l, PP_LT_BRIDGE, "model.moe_expert_capacity_factor"));
    const pp_launch_setting *pad = setting_of(&l, PP_LT_BRIDGE, "model.moe_pad_expert_input_to_capacity");
    CU_ASSERT(pad != NULL && !pad->on);
    CU_ASSERT(!l.targets[PP_LT_TORCHTITAN].exact);
    pp_launch_build(&p, &pl, pp_microbatches(&p, &pl), &l);
    CU_ASSERT_PTR_NULL(setting_of(&l, PP_LT_MEGATRON, "--moe-expert-capacity-factor"));
    cf = setting_of(&l, PP_LT_BRIDGE, "model.moe_expert_capacity_factor"); /* a recipe's own is not the plan's */
    CU_ASSERT(cf != NULL && cf->kind == PP_LV_NULL);
    pp_catalog_free(&cat);
}

/* The routed experts run as one grouped GEMM whose tiles share the SMs'
 * waves (moe.c), so a busier expert never runs faster: the block's compute
 * grows with the load imbalance, step by step, over fine steps of it, for
 * Qwen3-30B-A3B's small experts (768 wide) and Mixtral's large ones, at
 * tensor-parallel degrees that leave few rows per expert.  Counted per
 * expert, the waves made the time fall at some steps. */
static void test_grouped_gemm_monotone_in_load(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    const char *models[] = {"qwen3-30b-a3b", "mixtral-8x7b"};
    int falls = 0, steps = 0;
    for (int mi = 0; mi < 2; mi++) {
        char json[256];
        snprintf(json, sizeof json,
                 "{'model': '%s', 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 4}, 'training': {'global_batch': 64}}",
                 models[mi]);
        pp_problem p;
        pp_test_load(json, &cat, &p);
        for (int t = 1; t <= 4; t *= 2) {
            pp_plan pl = pp_test_plan(t, 1, 32 / t, 1, 1);
            pl.ep = 8;
            double before = 0.0;
            for (int i = 0; i <= 200; i++) {
                p.training.moe_load_imbalance = 1.0 + 0.005 * i;
                double s = moe_block_compute_s(&p, &pl);
                if (i > 0) {
                    steps++;
                    falls += s < before;
                }
                before = s;
            }
        }
    }
    printf("\n    %d of %d steps of the load faster ", falls, steps);
    CU_ASSERT_EQUAL(falls, 0);
    pp_catalog_free(&cat);
}

/* A low-precision recipe casts the experts' GEMM inputs where they run:
 * the k routed copies of each token each GPU's experts receive, not the
 * tokens of a dense MLP.  In bf16 the block casts nothing; in fp8 twice the
 * experts per token cast twice the routed copies (the launches stay), and a
 * MoE layer keeps none of the dense MLP's casts (kernels.c gives them to
 * the MLP's share, which the block replaces). */
static void test_expert_casts(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem p;
    pp_test_load("{'model': 'qwen3-30b-a3b', 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 4}, "
                 "'training': {'global_batch': 64, 'precision': 'bf16'}}",
                 &cat, &p);
    pp_plan pl = pp_test_plan(2, 1, 16, 1, 1);
    pl.ep = 8;
    moe_block b;
    moe_block_eval(&p, &pl, &b);
    CU_ASSERT_EQUAL(b.fwd_extra_s, 0.0);
    CU_ASSERT_EQUAL(b.bwd_extra_s, 0.0);

    p.training.precision = PP_PREC_FP8;
    moe_block one, two;
    moe_block_eval(&p, &pl, &one);
    int k = p.model.experts_per_token;
    p.model.experts_per_token = 2 * k;
    moe_block_eval(&p, &pl, &two);
    p.model.experts_per_token = k;
    const pp_model *m = &p.model;
    double Tg = (double)pl.micro_batch * m->seq_len / pl.tp;
    double copies = moe_load_imbalance(&p, &pl) * Tg * k; /* the routed rows one GPU's experts receive */
    CU_ASSERT(one.fwd_extra_s > 0.0);
    PP_REL_EQ(two.fwd_extra_s - one.fwd_extra_s, lowp_cast_s(&p, copies * (m->hidden + m->moe_ffn_hidden), 0.0),
              1e-9);
    double gate = m->gated_mlp ? 2.0 : 1.0;
    PP_REL_EQ(two.bwd_extra_s - one.bwd_extra_s,
              lowp_cast_s(&p, copies * (m->hidden + gate * m->moe_ffn_hidden), 0.0), 1e-9);

    /* Every layer of Qwen3-30B-A3B is a MoE layer: the dense MLP's width
     * (and so its casts) is in none of them */
    CU_ASSERT_EQUAL(m->first_dense_layers, 0);
    pp_stage_term narrow, wide;
    pp_term_stage(&p, &pl, &narrow);
    p.model.ffn_hidden *= 2;
    pp_term_stage(&p, &pl, &wide);
    p.model.ffn_hidden /= 2;
    PP_REL_EQ(wide.total_s, narrow.total_s, 1e-12);
    pp_catalog_free(&cat);
}

/* A model whose router's imbalance was measured brings it (models.json
 * moe_load_imbalance: Qwen3's 1.6, Mixtral's 1.06); a training section that
 * states its own wins; a model object may carry it, a dense one may not. */
static void test_model_load_imbalance(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem p;
    /* a model, what training states beside the batch, the lambda priced;
     * a model without a measured value keeps the default */
    static const struct {
        const char *model, *training;
        double lambda;
    } cases[] = {
        {"qwen3-30b-a3b", "", 1.6},
        {"Qwen3-235B-A22B", "", 1.6},
        {"mixtral-8x7b", "", 1.06},
        {"qwen3-30b-a3b", ", 'moe_load_imbalance': 1.3", 1.3},
        {"deepseek-v3", "", 1.2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[256];
        snprintf(json, sizeof json,
                 "{'model': '%s', 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 4}, 'training': {'global_batch': 64%s}}",
                 cases[i].model, cases[i].training);
        pp_test_load(json, &cat, &p);
        CU_ASSERT_EQUAL(p.training.moe_load_imbalance, cases[i].lambda);
    }
    CU_ASSERT_EQUAL(p.model.moe_load_imbalance, 0.0); /* deepseek-v3 carries none */
    /* as a model object's key; a dense model's is an error naming it */
    pp_test_load("{'model': {'layers': 4, 'hidden': 1024, 'heads': 8, 'vocab': 32000, 'seq_len': 2048,"
                 " 'experts': 8, 'experts_per_token': 2, 'moe_ffn_hidden': 2048, 'moe_load_imbalance': 1.4},"
                 " 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 1}, 'training': {'global_batch': 64}}", &cat, &p);
    CU_ASSERT_EQUAL(p.training.moe_load_imbalance, 1.4);
    /* a model object (or a Hugging Face config) of a catalog model's router
     * (Qwen3-235B-A22B's experts, top-k and widths on its layers), whatever
     * its name, routes as that model measured; a router of no catalog model
     * keeps the default */
    pp_test_load("{'model': {'name': 'my MoE', 'layers': 94, 'hidden': 4096, 'heads': 64, 'kv_heads': 4, 'head_dim': 128,"
                 " 'ffn_hidden': 12288, 'vocab': 151936, 'seq_len': 4096, 'gated_mlp': true,"
                 " 'experts': 128, 'experts_per_token': 8, 'moe_ffn_hidden': 1536},"
                 " 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 4}, 'training': {'global_batch': 64}}", &cat, &p);
    CU_ASSERT_EQUAL(p.training.moe_load_imbalance, 1.6);
    char dir[1024];
    pp_source_path("tests/data", dir, sizeof dir);
    pp_error err;
    CU_ASSERT_EQUAL(pp_problem_parse("{\"model\": {\"hf_config\": \"qwen3-30b-a3b-config.json\", \"seq_len\": 4096}, \"cluster\":"
                                     " {\"gpu\": \"h100-sxm5-80gb\", \"nodes\": 4}, \"training\": {\"global_batch\": 64}}",
                                     "problem.json", dir, &cat, &p, &err),
                    PP_OK);
    CU_ASSERT_EQUAL(p.training.moe_load_imbalance, 1.6);
    pp_test_load("{'model': {'name': 'my MoE', 'layers': 94, 'hidden': 4096, 'heads': 64, 'vocab': 151936,"
                 " 'seq_len': 4096, 'experts': 128, 'experts_per_token': 4, 'moe_ffn_hidden': 1536},"
                 " 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 4}, 'training': {'global_batch': 64}}", &cat, &p);
    CU_ASSERT_EQUAL(p.training.moe_load_imbalance, 1.2);
    char *text = pp_json_of("{'model': {'layers': 4, 'hidden': 1024, 'heads': 8, 'vocab': 32000, 'seq_len': 2048,"
                            " 'moe_load_imbalance': 1.4}, 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 1},"
                            " 'training': {'global_batch': 64}}");
    CU_ASSERT_EQUAL(pp_problem_parse(text, "problem.json", NULL, &cat, &p, &err), PP_EINPUT);
    PP_ASSERT_CONTAINS(err.path, "moe_load_imbalance");
    PP_ASSERT_CONTAINS(err.msg, "dense");
    free(text);
    pp_catalog_free(&cat);
}

/* A benchmark's forced balance (training.moe_force_balance: Megatron-Core
 * --moe-router-force-load-balancing, torchtitan debug.moe_force_load_balance)
 * prices every expert at its mean share whatever the model's router
 * measures, exactly as moe_load_imbalance 1 does; the launch settings carry
 * it; it is refused beside another imbalance, for a dense model and under
 * a framework without it. */
static void test_force_balance(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem forced, one;
    pp_test_load("{'model': 'qwen3-30b-a3b', 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 2},"
                 " 'training': {'global_batch': 256, 'moe_force_balance': true}}", &cat, &forced);
    pp_test_load("{'model': 'qwen3-30b-a3b', 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 2},"
                 " 'training': {'global_batch': 256, 'moe_load_imbalance': 1}}", &cat, &one);
    CU_ASSERT(forced.training.moe_force_balance);
    CU_ASSERT_EQUAL(forced.training.moe_load_imbalance, 1.0);
    pp_plan pl = pp_test_plan(1, 1, 16, 1, 1);
    pl.ep = 8;
    CU_ASSERT_EQUAL(pp_step_time_s(&forced, &pl), pp_step_time_s(&one, &pl));
    char lines[PP_LAUNCH_MAX_SETTINGS][PP_LAUNCH_TEXT];
    int n = pp_megatron_flags(&forced, &pl, lines, PP_LAUNCH_MAX_SETTINGS);
    bool flag = false;
    for (int i = 0; i < n; i++)
        flag = flag || strstr(lines[i], "--moe-router-force-load-balancing") != NULL;
    CU_ASSERT(flag);
    n = pp_megatron_flags(&one, &pl, lines, PP_LAUNCH_MAX_SETTINGS);
    for (int i = 0; i < n; i++)
        CU_ASSERT_PTR_NULL(strstr(lines[i], "force"));
    static const struct {
        const char *model, *training, *path;
    } bad[] = {
        {"qwen3-30b-a3b", "'moe_force_balance': true, 'moe_load_imbalance': 1.3", "moe_load_imbalance"},
        {"llama3-8b", "'moe_force_balance': true", "moe_force_balance"},
        {"qwen3-30b-a3b", "'moe_force_balance': true, 'framework': 'deepspeed'", "moe_force_balance"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char json[320];
        snprintf(json, sizeof json,
                 "{'model': '%s', 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 2}, 'training': {'global_batch': 256, "
                 "%s}}",
                 bad[i].model, bad[i].training);
        char *text = pp_json_of(json);
        pp_problem p;
        pp_error err;
        CU_ASSERT_EQUAL(pp_problem_parse(text, "problem.json", NULL, &cat, &p, &err), PP_EINPUT);
        PP_ASSERT_CONTAINS(err.path, bad[i].path);
        free(text);
    }
    pp_catalog_free(&cat);
}

/* Whether a Megatron-LM flag line of the plan reads `want`. */
static bool has_flag(const pp_problem *p, const pp_plan *pl, const char *want)
{
    char lines[PP_LAUNCH_MAX_SETTINGS][PP_LAUNCH_TEXT];
    int n = pp_megatron_flags(p, pl, lines, PP_LAUNCH_MAX_SETTINGS);
    for (int i = 0; i < n; i++)
        if (strstr(lines[i], want))
            return true;
    return false;
}

/* DeepSeek-V3's multi-token-prediction module (training.mtp_layers,
 * arXiv 2412.19437 section 2.2): trained by default where Megatron-Core
 * trains it (--mtp-num-layers), left out (and said) under torchtitan,
 * refused there when asked for; on the last stage one more MoE layer, its
 * 2h x h projection and a second output head, in FLOPs, parameters, layers
 * and time; the balanced layout gives it a layer's place, as NVIDIA's
 * recipe does (E+1, 30 x 2, MTP and loss). */
static void test_mtp_module(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem on, off, tt;
    const char *base = "{'model': 'deepseek-v3', 'cluster': {'gpu': 'h800-sxm5-80gb', 'nodes': 256}, "
                       "'training': {'global_batch': 15360%s}}";
    char json[320];
    snprintf(json, sizeof json, base, "");
    pp_test_load(json, &cat, &on);
    snprintf(json, sizeof json, base, ", 'mtp_layers': 0");
    pp_test_load(json, &cat, &off);
    snprintf(json, sizeof json, base, ", 'framework': 'fsdp'");
    pp_test_load(json, &cat, &tt);
    CU_ASSERT_EQUAL(on.model.mtp_layers, 1);
    CU_ASSERT_EQUAL(on.training.mtp_layers, 1);
    CU_ASSERT_EQUAL(off.training.mtp_layers, 0);
    CU_ASSERT(tt.training.mtp_layers == 0 && tt.training.mtp_not_run == 1);
    /* FLOPs by hand: a MoE layer (its MLP the router, 8 of 256 routed and the
     * shared expert, SwiGLU), the projection, the output head again */
    const pp_model *m = &on.model;
    double B = 15360, T = B * m->seq_len, h = m->hidden;
    double moe_layer = pp_layer_fwd_flops(m, T, m->seq_len) - 2.0 * T * h * 3.0 * m->ffn_hidden + 2.0 * T * h * 256 +
                       2.0 * T * 8 * 3.0 * h * 2048 + 2.0 * T * 3.0 * h * 2048;
    double mtp = 3.0 * (moe_layer + 2.0 * T * 2.0 * h * h + 2.0 * T * h * m->vocab);
    CU_ASSERT(pp_rel_close(pp_training_flops_per_step(m, &on.training, B) -
                               pp_training_flops_per_step(m, &off.training, B), mtp, 1e-12));
    CU_ASSERT_EQUAL(pp_training_flops_per_step(m, &tt.training, B), pp_training_flops_per_step(m, &off.training, B));
    /* the published degrees: the last stage holds its 2 layers and the
     * module's, MoE; its GPU the module's parameters (the routed experts
     * split over ep), the projection and norms, and the input embedding */
    pp_plan pl = pp_test_plan(1, 16, 128, 1, 1);
    pl.ep = 64;
    pl.zero = 1;
    pl.recompute = PP_RECOMPUTE_SELECTIVE;
    CU_ASSERT_EQUAL_FATAL(pp_plan_check(&on, &pl, NULL), PP_OK);
    CU_ASSERT_EQUAL(layers_on_stage(&on, &pl, 15), layers_on_stage(&off, &pl, 15) + 1);
    CU_ASSERT_EQUAL(moe_layers_on_stage(&on, &pl, 15), moe_layers_on_stage(&off, &pl, 15) + 1);
    CU_ASSERT_EQUAL(layers_on_stage(&on, &pl, 7), layers_on_stage(&off, &pl, 7));
    double expert, layer = pp_layer_params_at(m, m->layers - 1, &expert);
    CU_ASSERT(pp_rel_close(stage_params(&on, &pl, 15) - stage_params(&off, &pl, 15),
                           layer - expert + expert / 64.0 + 2.0 * h * h + 3.0 * h + pp_embedding_params(m), 1e-12));
    CU_ASSERT_EQUAL(stage_params(&on, &pl, 7), stage_params(&off, &pl, 7));
    /* the module's time: the last stage's forward gains more than one MoE
     * layer and an output head, and paces the pipeline */
    pp_stage_term s_on, s_off;
    pp_term_stage(&on, &pl, &s_on);
    pp_term_stage(&off, &pl, &s_off);
    CU_ASSERT(s_on.total_s > s_off.total_s && pp_step_time_s(&on, &pl) > pp_step_time_s(&off, &pl));
    CU_ASSERT(pp_mem_activations_gib(&on, &pl, 15) > pp_mem_activations_gib(&off, &pl, 15));
    CU_ASSERT(has_flag(&on, &pl, "--mtp-num-layers 1") && !has_flag(&off, &pl, "--mtp-num-layers"));
    /* 61 layers on 16 x 2 chunks, balanced: E+1, 30 x 2, then the module
     * and the loss alone (with it) or the loss alone (without) */
    pl.virtual_stages = 2;
    pl.pipeline_layout = PP_LAYOUT_BALANCED;
    pp_stage_split sp;
    CU_ASSERT(pp_stage_layers(&on, &pl, &sp) && sp.first_chunk == 1 && sp.chunk == 2 && sp.last_chunk == 0);
    CU_ASSERT(has_flag(&on, &pl, "\"Et|(t*2|)*30,mL\""));
    CU_ASSERT(pp_stage_layers(&off, &pl, &sp) && sp.first_chunk == 1 && sp.chunk == 2 && sp.last_chunk == 0);
    CU_ASSERT(has_flag(&off, &pl, "\"Et|(t*2|)*30,L\""));
    /* torchtitan trains no MTP module: asked for, refused */
    snprintf(json, sizeof json, base, ", 'framework': 'fsdp', 'mtp_layers': 1");
    char *text = pp_json_of(json);
    pp_problem bad;
    pp_error err;
    CU_ASSERT_EQUAL(pp_problem_parse(text, "problem.json", NULL, &cat, &bad, &err), PP_EINPUT);
    PP_ASSERT_CONTAINS(err.path, "training.mtp_layers");
    free(text);
    pp_catalog_free(&cat);
}

/* The host (docs/cost-model.md section 9): without CUDA graphs a MoE
 * layer's forward and backward take at least the framework's host time
 * (frameworks.json eager_moe_layer_host_ms), which orders NVIDIA's model-zoo
 * runs of Qwen3-235B on 256 H100 (May 2025, no graphs) as measured: tp 4
 * (1,024 tokens a GPU and micro-batch) 29.0 s a step, tp 2 19.7 s.  Without
 * the host the model put tp 4 first, 15.9 against 19.0 s.  tp 2's layers
 * give the GPU more work than the host's time and do not wait; partial or
 * full graphs remove the wait; a dense model has none. */
static void test_eager_moe_host(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_measurement_set set;
    pp_load_rows("data/measurements/megatron-moe-modelzoo-202505.json", &cat, &set);
    const pp_measurement *tp4 = NULL, *tp2 = NULL;
    for (int i = 0; i < set.n; i++) {
        if (strstr(set.rows[i].id, "ep8-tp4-pp8"))
            tp4 = &set.rows[i];
        if (strcmp(set.rows[i].id, "megatron-moe-modelzoo-202505-qwen3-235b-cross-node-ep32") == 0)
            tp2 = &set.rows[i];
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(tp4);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tp2);
    CU_ASSERT_EQUAL(tp4->prob.training.cuda_graphs, PP_GRAPHS_NONE);
    double host = tp4->prob.fw.moe_layer_host_s;
    CU_ASSERT(host > 0.0);
    double s4 = pp_step_time_s(&tp4->prob, &tp4->plan), s2 = pp_step_time_s(&tp2->prob, &tp2->plan);
    printf("\n    tp 4: %.1f s (measured %.1f), tp 2: %.1f s (measured %.1f) ", s4, tp4->iteration_s, s2,
           tp2->iteration_s);
    CU_ASSERT(tp4->iteration_s > tp2->iteration_s);
    CU_ASSERT(s4 > s2);
    pp_stage_term st4, st2;
    pp_term_stage(&tp4->prob, &tp4->plan, &st4);
    pp_term_stage(&tp2->prob, &tp2->plan, &st2);
    CU_ASSERT(st4.host_wait_s > 0.0);
    CU_ASSERT_EQUAL(st2.host_wait_s, 0.0);
    /* host-bound, the busiest stage's micro-batch takes its MoE layers' host time exactly */
    int most = 0;
    for (int s = 0; s < tp4->plan.pp; s++)
        if (moe_layers_on_stage(&tp4->prob, &tp4->plan, s) > most)
            most = moe_layers_on_stage(&tp4->prob, &tp4->plan, s);
    CU_ASSERT_DOUBLE_EQUAL(st4.total_s, most * host, 1e-9 * most * host);
    /* graphs: no wait, the GPU's own time, faster */
    for (int g = PP_GRAPHS_PARTIAL; g <= PP_GRAPHS_FULL; g++) {
        pp_problem q = tp4->prob;
        q.training.cuda_graphs = (pp_cuda_graphs)g;
        pp_stage_term sq;
        pp_term_stage(&q, &tp4->plan, &sq);
        CU_ASSERT_EQUAL(sq.host_wait_s, 0.0);
        CU_ASSERT(sq.total_s < st4.total_s);
        CU_ASSERT(pp_step_time_s(&q, &tp4->plan) < s4);
    }
    pp_measurements_free(&set);
    /* a dense model: the same whatever the graphs */
    pp_problem d;
    pp_test_load("{'model': 'llama3-8b', 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 1},"
                 " 'training': {'global_batch': 64}}", &cat, &d);
    pp_plan dl = pp_test_plan(8, 1, 1, 1, 1);
    double eager = pp_step_time_s(&d, &dl);
    d.training.cuda_graphs = PP_GRAPHS_PARTIAL;
    CU_ASSERT_EQUAL(pp_step_time_s(&d, &dl), eager);
    pp_catalog_free(&cat);
}

/* MLPerf Training v6.0's DeepSeek-V3 runs captured whole iterations as CUDA
 * graphs, their MoE layers at HybridEP's static expert-rank capacity
 * (data/validation/mlperf-training-v6.0-deepseekv3-671b.json).  A problem
 * cannot ask for that (problem.c: the planner does not decide the
 * capacity), a measured row can say it: it loads, is priced as a run whose
 * MoE layers are captured (no host wait), dispatches through HybridEP's
 * deduplicating kernels, and trains its MTP module.  A dense row that
 * names full graphs keeps them. */
static void test_full_iteration_moe_rows(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_measurement_set set;
    pp_load_rows("data/validation/mlperf-training-v6.0-deepseekv3-671b.json", &cat, &set);
    CU_ASSERT_EQUAL(set.n, 10);
    for (int i = 0; i < set.n; i++) {
        const pp_measurement *r = &set.rows[i];
        CU_ASSERT_EQUAL(r->prob.training.cuda_graphs, PP_GRAPHS_PARTIAL);
        CU_ASSERT_TRUE(pp_moe_deepep(&r->prob, &r->plan));
        CU_ASSERT_EQUAL(pp_mtp_layers(&r->prob), 1);
        pp_stage_term st;
        pp_term_stage(&r->prob, &r->plan, &st);
        CU_ASSERT_EQUAL(st.host_wait_s, 0.0);
    }
    pp_measurements_free(&set);
    char path[1024];
    pp_temp_path("full-graph-rows.json", path, sizeof path);
    pp_write_json(path, "[{'id': 'dense-full', 'source_group': 'g', 'model': {'name': 'x', 'layers': 4, 'hidden': 1024,"
                        " 'heads': 8, 'ffn_hidden': 4096, 'vocab': 32000, 'seq_len': 2048},"
                        " 'cluster': {'gpu': 'H100-SXM5-80GB', 'gpus': 8, 'gpus_per_node': 8},"
                        " 'config': {'t': 1, 'p': 1, 'd': 8, 'micro_batch': 1, 'global_batch': 64, 'precision': 'bf16',"
                        " 'cuda_graphs': 'full iteration'}, 'measured': {'iteration_s': 0.5}}]");
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(pp_measurements_load(path, &cat, &set, &err), PP_OK);
    CU_ASSERT_EQUAL(set.rows[0].prob.training.cuda_graphs, PP_GRAPHS_FULL);
    pp_measurements_free(&set);
    pp_catalog_free(&cat);
}

int main(void)
{
    const pp_test tests[] = {
        {"Mixtral, Qwen3-MoE, DeepSeek-V3: the cards' parameter counts", test_parameter_counts},
        {"a benchmark's forced balance: priced at the mean share, launched as such", test_force_balance},
        {"eager MoE layers wait for the host: the model zoo's tp 4 run slower than its tp 2, as measured",
         test_eager_moe_host},
        {"a MoE row with full-iteration graphs (MLPerf v6.0 DeepSeek-V3): priced as captured, no host wait",
         test_full_iteration_moe_rows},
        {"all-to-all bytes per link", test_alltoall_bytes},
        {"DeepSeek-V3's published layout prices (tp 1 pp 16 dp 128 ep 64 ZeRO-1)", test_deepseek_published_layout},
        {"DeepSeek-V3 on 2048 H800 plans with ep > 1", test_deepseek_plans_ep},
        {"dense models have no expert term", test_dense_untouched},
        {"a range's MoE layers counted without a loop", test_moe_layers_in_range},
        {"a stage's MoE layers are its layers' counted one by one", test_moe_layers_on_stage},
        {"the experts' capacity: a decision that drops what it prices", test_moe_capacity_factor},
        {"DeepEP sends a token once to each node and GPU of its experts", test_deepep_dedup},
        {"the dispatcher and the all-to-all overlap as decisions, where the framework runs them",
         test_dispatcher_overlap_decisions},
        {"the expert block's backward: two passes, three with recomputation, one with LoRA", test_expert_backward_passes},
        {"a busier expert never runs faster: the grouped GEMM's waves are shared", test_grouped_gemm_monotone_in_load},
        {"fp8 casts the experts' routed inputs, not the dense MLP's", test_expert_casts},
        {"a model's measured router imbalance is its problems' default", test_model_load_imbalance},
        {"DeepSeek-V3's MTP module: trained where the framework trains it, priced on the last stage",
         test_mtp_module},
        {NULL, NULL},
    };
    return pp_test_main("mixture of experts", tests);
}
