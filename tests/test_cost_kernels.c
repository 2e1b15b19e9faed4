/*
 * test_cost_kernels.c: the stage term (formulate/cost/kernels.c): the
 * matrix-multiply roofline on small shapes and the context-parallel
 * exchange hidden behind attention.
 */
#include "cost_kernels.h"
#include "costmodel.h"
#include "problem.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>

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

/* The backward of a linear layer is two products of their own shapes, not
 * twice the forward.  Narayanan et al. 2021 (arXiv 2104.04473) Fig. 17's
 * 145B GPT (hidden 12288) on tp 8: the QKV forward, 2048 tokens x 12288 by
 * 12288 x 4608, has 16 x 36 = 576 output tiles, 5.33 waves on the A100's
 * 108 SMs (89 % full); its data gradient (2048 x 4608 by 4608 x 12288) has
 * 1536 tiles (95 %) and its weight gradient (12288 x 2048 by 2048 x 4608)
 * 3456 (100 %).  Their sum is below twice the forward; a square shape,
 * whose three outputs fill the same waves, is exactly twice; a frozen
 * weight (LoRA) runs the data gradient alone. */
static void test_backward_gemm_shapes(void)
{
    pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 1, 8);
    p.cluster.gpu.sm_count = 108; /* the catalog A100's */
    const pp_gpu *g = &p.cluster.gpu;
    pp_precision bf16 = p.training.precision;
    double fwd = pp_gemm_time_s(g, bf16, 2048, 4608, 12288, 1.0);
    double dgrad = pp_gemm_time_s(g, bf16, 2048, 12288, 4608, 1.0);
    double wgrad = pp_gemm_time_s(g, bf16, 12288, 4608, 2048, 1.0);
    PP_REL_EQ(linear_bwd_s(&p, 2048, 12288, 4608, false), dgrad + wgrad, 1e-12);
    PP_REL_EQ(linear_bwd_s(&p, 2048, 12288, 4608, true), dgrad, 1e-12);
    CU_ASSERT(dgrad + wgrad < 0.95 * 2.0 * fwd);
    double sq = pp_gemm_time_s(g, bf16, 4096, 4096, 4096, 1.0);
    PP_REL_EQ(linear_bwd_s(&p, 4096, 4096, 4096, false), 2.0 * sq, 1e-12);
}

/* Unfused attention's backward is four batched products by their shapes:
 * dP = dO V^T (as QK^T), dQ = dS K (as scores x V), and dV = P^T dO and
 * dK = dS^T Q, whose d-wide outputs reduce over the s queries.  Only the
 * attention differs between a step with fused and one with unfused
 * attention, and a fused kernel's backward is twice its forward but for
 * its head-dimension share, so the difference of (backward - 2 x forward)
 * between the two is, per layer, 2 x (s x d over s) - QK^T - scores x V
 * less the fused kernel's own.  Narayanan et al. 2021 Fig. 7's
 * shape: hidden 4096 in 128 heads of 32, on one A100.  At the A100's HBM
 * rate every one of these products is bound by the s x s scores' traffic,
 * the same for all four; with memory taken out of the way (a far faster
 * HBM), QK^T's K = 32 starves its tiles while the others reduce over 2048,
 * and the shapes tell. */
static void test_unfused_attention_backward_shapes(void)
{
    pp_model m = {.layers = 4, .hidden = 4096, .heads = 128, .kv_heads = 128, .ffn_hidden = 16384, .vocab = 51200,
                  .seq_len = 2048};
    pp_problem p = pp_test_problem(PP_TEST_A100, m, 1, 8);
    p.cluster.gpus_per_node = 1;
    p.cluster.gpu.sm_count = 108;
    p.cluster.gpu.hbm_GBps *= 1000.0;
    pp_plan pl = pp_test_plan(1, 1, 1, 1, 8);
    pl.micro_batch = 4;
    double excess[2];
    for (int flash = 0; flash < 2; flash++) {
        p.training.flash_attention = flash;
        pp_stage_term st;
        pp_term_stage(&p, &pl, &st);
        excess[flash] = st.bwd_s - 2.0 * st.fwd_s;
    }
    const pp_gpu *g = &p.cluster.gpu;
    double batch = 4.0 * 128, s = 2048.0, d = 32.0;
    double qk = pp_gemm_time_s(g, PP_PREC_BF16, s, s, d, batch), pv = pp_gemm_time_s(g, PP_PREC_BF16, s, d, s, batch);
    double kv = pp_gemm_time_s(g, PP_PREC_BF16, s, d, s, batch);
    CU_ASSERT(qk > 1.5 * kv);
    /* the fused kernel's backward is 2.5 forwards of FLOPs at 0.87 of the
     * forward's rate (FlashAttention's count), but for the head dimension's
     * share, which differs by direction */
    layer_kernels fused;
    layer_kernels_fwd(&p, &pl, &fused);
    double fused_excess = fused.attn_bwd_s - 2.0 * fused.attn_fwd_s;
    CU_ASSERT(fused_excess > 0.0);
    PP_REL_EQ(excess[0] - excess[1], 4.0 * (2.0 * kv - qk - pv - fused_excess), 1e-6);
}

/* Narayanan et al. 2021 (arXiv 2104.04473) Fig. 16: a 91B GPT (32 layers,
 * hidden 15360, 128 heads) on 64 A100 with tp 8, pp 8, batch 512 runs
 * faster at micro-batch 2 than at 1 (171 against 162 TFLOP/s per GPU) and
 * slower again at 8 (154): larger micro-batches fill the GPU better until
 * the pipeline bubble of fewer micro-batches wins.  The model must order
 * them the same way, with the catalog's A100 and its fitted efficiencies. */
static void test_micro_batch_sweep_direction(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_model m = {.layers = 32, .hidden = 15360, .heads = 128, .kv_heads = 128, .ffn_hidden = 4 * 15360,
                  .vocab = 51200, .seq_len = 2048, .tie_embeddings = true};
    snprintf(m.name, sizeof m.name, "GPT 91B");
    pp_problem p = pp_test_problem(PP_TEST_DGX_A100, m, 8, 512);
    p.cluster.gpu.eff = pp_catalog_gpu(&cat, "a100-sxm4-80gb")->eff;
    pp_framework_features(PP_FW_MEGATRON_2021, &p.training);
    double step[9] = {0};
    for (int mb = 1; mb <= 8; mb *= 2) {
        pp_plan pl = pp_test_plan(8, 8, 1, 1, mb);
        pl.recompute = PP_RECOMPUTE_FULL;
        step[mb] = pp_step_time_s(&p, &pl);
    }
    CU_ASSERT(step[2] < step[1]);
    CU_ASSERT(step[8] > step[2]);
    printf("\n    micro-batch 1/2/4/8: %.2f / %.2f / %.2f / %.2f s ", step[1], step[2], step[4], step[8]);
    pp_catalog_free(&cat);
}

/* Head dimensions that are not a multiple of 8 leave the tensor cores and
 * the fused attention kernels (NVIDIA's Matrix Multiplication Background
 * guide; FlashAttention-2 needs head dims in multiples of 8; Anthony et al.
 * 2024, arXiv 2401.14489, measure such shapes 15-30 % slower): the same
 * model with heads of 100 instead of 128 (64 instead of 50 heads, the same
 * attention width and FLOPs) must take longer. */
static void test_misaligned_head_dim_is_slower(void)
{
    pp_model m = {.layers = 24, .hidden = 6400, .heads = 50, .kv_heads = 50, .ffn_hidden = 4 * 6400,
                  .vocab = 51200, .seq_len = 2048, .tie_embeddings = true};
    snprintf(m.name, sizeof m.name, "aligned");
    pp_problem p = pp_test_problem(PP_TEST_H100, m, 1, 64);
    pp_plan pl = pp_test_plan(1, 1, 8, 1, 1);
    double aligned = pp_step_time_s(&p, &pl);
    p.model.heads = p.model.kv_heads = 64; /* head dim 100 */
    double misaligned = pp_step_time_s(&p, &pl);
    CU_ASSERT(misaligned > 1.1 * aligned);
    printf("\n    head dim 128: %.3f s, head dim 100: %.3f s (+%.0f %%) ", aligned, misaligned,
           100.0 * (misaligned / aligned - 1.0));
}

/* FlashAttention-2 and cuDNN's fused attention need an Ampere or newer GPU
 * (FlashAttention-2 README: Ampere, Ada, Hopper); a V100 (no bf16 peak in
 * the catalog) writes the s x s scores whatever the framework: more
 * memory without recomputation, more time. */
static void test_no_fused_attention_on_volta(void)
{
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_gpt3_175b(), 16, 512);
    pp_plan pl = pp_test_plan(8, 8, 2, 1, 1);
    pl.sequence_parallel = true;
    double fused_mem = pp_mem_activations_gib(&p, &pl, 0), fused_s = pp_step_time_s(&p, &pl);
    p.cluster.gpu.peak_tflops[PP_PREC_BF16] = 0.0; /* a Volta part: fp16 only */
    CU_ASSERT(pp_mem_activations_gib(&p, &pl, 0) > 2.0 * fused_mem);
    CU_ASSERT(pp_step_time_s(&p, &pl) > fused_s);
}

/* The attention kernel's generation (training.attention_kernel): on an H100
 * a FlashAttention-3 class kernel is 1.5-2.0x FlashAttention-2 (Shah et al.
 * 2024, arXiv 2407.08608, Fig. 1), at most 75 % of the peak.  Megatron-Core
 * runs one by default (cuDNN fused attention), PyTorch SDPA does not; on an
 * A100 there is no FlashAttention-3 and the choice changes nothing. */
static void test_attention_kernel_generation(void)
{
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(8192), 1, 64);
    p.cluster.gpu.peak_tflops[PP_PREC_FP8] = 1979; /* Hopper: fp8 tensor cores */
    pp_plan pl = pp_test_plan(1, 1, 8, 1, 1);
    double t[PP_ATTN_COUNT];
    for (int k = 0; k < PP_ATTN_COUNT; k++) {
        p.training.attention_kernel = (pp_attention_kernel)k;
        t[k] = pp_step_time_s(&p, &pl);
    }
    CU_ASSERT_DOUBLE_EQUAL(t[PP_ATTN_AUTO], t[PP_ATTN_FLASH3], 0.0); /* Megatron-Core on Hopper */
    CU_ASSERT(t[PP_ATTN_FLASH2] > t[PP_ATTN_FLASH3]);
    /* the whole difference is the attention core's: forward and backward
     * (2.5 forwards of FLOPs at 0.87 of the rate), 32 layers, 8 sequences of
     * 8192 per GPU, causal: 0.5 + 64/8192 of the square, its queries
     * attending 4096 keys on average (the tile's share of either rate) */
    double e = p.cluster.gpu.eff.attention, e3 = fmin(0.75, 1.75 * e);
    double fwd_flops = pp_attention_core_fwd_flops(&p.model, 8.0 * 8192, 8192) * (0.5 + 64.0 / 8192.0);
    double peak = p.cluster.gpu.peak_tflops[PP_PREC_BF16] * 1e12, passes = 1.0 + 2.5 / 0.87;
    CU_ASSERT(pp_rel_close(attention_causal_share(&p.model, 8192.0), 0.5 + 64.0 / 8192.0, 1e-12));
    /* each kernel at its own tile's share: Megatron-Core's FlashAttention-3
     * class kernel is cuDNN's (110 keys), FlashAttention-1 and -2 100 */
    double share[PP_ATTN_COUNT];
    for (int k = 0; k < PP_ATTN_COUNT; k++) {
        p.training.attention_kernel = (pp_attention_kernel)k;
        share[k] = attention_tile_share(&p, 4096.0);
    }
    CU_ASSERT_DOUBLE_EQUAL(share[PP_ATTN_FLASH3], 4096.0 / (4096.0 + 110.0), 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(share[PP_ATTN_FLASH2], 4096.0 / (4096.0 + 100.0), 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(share[PP_ATTN_FLASH1], share[PP_ATTN_FLASH2], 0.0);
    CU_ASSERT(pp_rel_close(t[PP_ATTN_FLASH2] - t[PP_ATTN_FLASH3],
                           passes * 32 * fwd_flops / peak *
                               (1.0 / (e * share[PP_ATTN_FLASH2]) - 1.0 / (e3 * share[PP_ATTN_FLASH3])),
                           1e-6));
    /* a 2022-23 kernel (FlashAttention-1, its Triton version): half the
     * FlashAttention-2 class rate, on any GPU */
    CU_ASSERT(pp_rel_close(t[PP_ATTN_FLASH1] - t[PP_ATTN_FLASH2],
                           passes * 32 * fwd_flops / peak * (2.0 / e - 1.0 / e) / share[PP_ATTN_FLASH2], 1e-6));
    /* what the report's assumptions say: the kernel that runs and its rate */
    double rate;
    p.training.attention_kernel = PP_ATTN_AUTO;
    CU_ASSERT_EQUAL(pp_attention_kernel_of(&p, &rate), PP_ATTN_FLASH3);
    CU_ASSERT_DOUBLE_EQUAL(rate, e3, 1e-12);
    p.training.attention_kernel = PP_ATTN_FLASH1;
    CU_ASSERT_EQUAL(pp_attention_kernel_of(&p, &rate), PP_ATTN_FLASH1);
    CU_ASSERT_DOUBLE_EQUAL(rate, e / 2.0, 1e-12);
    p.training.framework = PP_FW_FSDP; /* PyTorch SDPA: FlashAttention-2 unless told */
    pp_framework_features(PP_FW_FSDP, &p.training);
    p.training.attention_kernel = PP_ATTN_AUTO;
    double fsdp_auto = pp_step_time_s(&p, &pl);
    p.training.attention_kernel = PP_ATTN_FLASH2;
    CU_ASSERT_DOUBLE_EQUAL(pp_step_time_s(&p, &pl), fsdp_auto, 0.0);
    p.training.attention_kernel = PP_ATTN_FLASH3;
    CU_ASSERT(pp_step_time_s(&p, &pl) < fsdp_auto);

    pp_problem a = pp_test_problem(PP_TEST_A100, pp_test_llama3_8b(8192), 1, 64);
    double a_auto = pp_step_time_s(&a, &pl);
    a.training.attention_kernel = PP_ATTN_FLASH3;
    CU_ASSERT_DOUBLE_EQUAL(pp_step_time_s(&a, &pl), a_auto, 0.0);
}

/* FlashAttention's count: under a causal mask the fused kernel runs the key
 * blocks on or below the diagonal, 0.5 + 64/span of the square (query
 * blocks of 128), its queries attending half the span on average; a masked LM
 * (BERT, loss on a share of the tokens) attends both ways, the whole
 * square.  The backward is 2.5 forwards of FLOPs at 0.87 of the forward's
 * rate (head dimension 128: no head-dimension share). */
static void test_causal_attention(void)
{
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(8192), 1, 64);
    pp_plan pl = pp_test_plan(1, 1, 8, 1, 1);
    double launch = p.cluster.gpu.eff.kernel_us * 1e-6;
    layer_kernels causal, both;
    layer_kernels_fwd(&p, &pl, &causal);
    p.model.loss_token_fraction = 0.15;
    layer_kernels_fwd(&p, &pl, &both);
    double share = (0.5 + 64.0 / 8192.0) * attention_tile_share(&p, 8192.0) / attention_tile_share(&p, 4096.0);
    PP_REL_EQ(causal.attn_fwd_s - launch, share * (both.attn_fwd_s - launch), 1e-9);
    PP_REL_EQ(causal.attn_bwd_s - 2.0 * launch, 2.5 / 0.87 * (causal.attn_fwd_s - launch), 1e-9);
    CU_ASSERT(causal.attn_fwd_s < 0.6 * both.attn_fwd_s);
}

/* Sliding-window attention (GPT-OSS: every other layer attends to its 128
 * last tokens): a windowed layer's fused kernel runs the band, (W (1 - W/2S)
 * + 64) / S of the square on tiles that walk those keys, and a
 * stage's layer is the mean of the windowed and the full ones.  A window of
 * the whole span is no window, bit for bit; a shorter one never costs
 * more; the model FLOPs lose the band's complement on the windowed layers. */
static void test_sliding_window_attention(void)
{
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(8192), 1, 64);
    pp_plan pl = pp_test_plan(1, 1, 8, 1, 1);
    double launch = p.cluster.gpu.eff.kernel_us * 1e-6;
    layer_kernels full, same, half;
    layer_kernels_fwd(&p, &pl, &full);
    double flops_full = pp_training_flops_per_step(&p.model, &p.training, 64);
    p.model.sliding_window = 8192; /* the whole span: no window */
    layer_kernels_fwd(&p, &pl, &same);
    CU_ASSERT_EQUAL(pp_windowed_layers(&p.model, 8192), 0);
    CU_ASSERT_EQUAL(same.attn_fwd_s, full.attn_fwd_s);
    CU_ASSERT_EQUAL(same.attn_bwd_s, full.attn_bwd_s);
    /* every other layer windowed to 128 tokens, as GPT-OSS */
    p.model.sliding_window = 128;
    p.model.window_attn_skip_freq = 2;
    CU_ASSERT_EQUAL(pp_windowed_layers(&p.model, 8192), p.model.layers - p.model.layers / 2);
    layer_kernels_fwd(&p, &pl, &half);
    double keys = 128.0 * (1.0 - 128.0 / (2.0 * 8192.0));
    PP_REL_EQ(pp_window_keys(128, 8192), keys, 1e-12);
    double causal = (0.5 + 64.0 / 8192.0) / attention_tile_share(&p, 4096.0);
    double band = (keys + 64.0) / 8192.0 / attention_tile_share(&p, keys + 64.0);
    PP_REL_EQ(half.attn_fwd_s - launch, 0.5 * (1.0 + band / causal) * (full.attn_fwd_s - launch), 1e-9);
    CU_ASSERT(half.attn_fwd_s < 0.6 * full.attn_fwd_s && half.attn_bwd_s < 0.6 * full.attn_bwd_s);
    double square = pp_attention_core_fwd_flops(&p.model, 64.0 * 8192, 8192);
    PP_REL_EQ(flops_full - pp_training_flops_per_step(&p.model, &p.training, 64),
              3.0 * (p.model.layers / 2) * square * (1.0 - 2.0 * keys / 8192.0), 1e-9);
    /* a shorter window never costs more */
    double last = full.attn_fwd_s;
    for (int w = 8192; w >= 16; w /= 2) {
        layer_kernels k;
        p.model.sliding_window = w;
        layer_kernels_fwd(&p, &pl, &k);
        CU_ASSERT(k.attn_fwd_s <= last * (1.0 + 1e-12));
        last = k.attn_fwd_s;
    }
}

/* The logits and the loss run on loss_token_fraction of the tokens (BERT's
 * masked positions): their GEMM time, the loss's memory and the model
 * FLOPs shrink with it, the layers do not. */
static void test_loss_token_fraction(void)
{
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(4096), 1, 64);
    /* unfused attention runs the whole square either way (a masked LM's
     * fused kernel attends both ways: test_causal_attention) */
    p.training.flash_attention = false;
    pp_plan pl = pp_test_plan(1, 1, 8, 1, 1);
    pp_stage_term all, part;
    pp_term_stage(&p, &pl, &all);
    double flops_all = pp_model_flops_per_step(&p.model, 64), mem_all = pp_mem_activations_gib(&p, &pl, 0);
    p.model.loss_token_fraction = 0.15;
    pp_term_stage(&p, &pl, &part);
    double logits = pp_logits_fwd_flops(&p.model, 4096.0) / 0.15; /* FLOPs of all the tokens' logits */
    CU_ASSERT(part.fwd_s < all.fwd_s && part.bwd_s < all.bwd_s);
    PP_REL_EQ(flops_all - pp_model_flops_per_step(&p.model, 64), 3.0 * 0.85 * logits * 64, 1e-9);
    double loss_all = 6.0 * 4096 * 128256 / (1024.0 * 1024 * 1024); /* Megatron: 6 bytes a logit */
    PP_REL_EQ(mem_all - pp_mem_activations_gib(&p, &pl, 0), 0.85 * loss_all, 1e-9);
}

/* torchtitan's Llama 3.1 8B benchmark (benchmarks/llama3_h100_202412_
 * torchtitan.md, Table 1: FSDP on 8 H100, local batch 2, sequence 8192,
 * selective AC) runs at 5,762 tokens/s per GPU in eager PyTorch and 6,667
 * with torch.compile: eager steps are 15.7 % longer.  The catalog's
 * Grand Teton H100 with its fitted efficiencies must put the eager step
 * (every element-wise op its own kernel) 8-25 % above the fused one. */
static void test_eager_elementwise_is_slower(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(8192), 1, 16);
    p.cluster.gpu = *pp_catalog_gpu(&cat, "h100-hbm2e-96gb-500w");
    pp_framework_features(PP_FW_FSDP, &p.training);
    pp_plan pl = pp_test_plan(1, 1, 8, 1, 2);
    pl.zero = 3;
    pl.recompute = PP_RECOMPUTE_SELECTIVE;
    double fused = pp_step_time_s(&p, &pl);
    p.training.fused_elementwise = false;
    double eager = pp_step_time_s(&p, &pl);
    CU_ASSERT(eager > 1.08 * fused);
    CU_ASSERT(eager < 1.25 * fused);
    printf("\n    fused %.3f s, eager %.3f s (+%.1f %%; measured +15.7 %%) ", fused, eager,
           100.0 * (eager / fused - 1.0));
    pp_catalog_free(&cat);
}

/* A team's stack level (eff.compute_scale, formulate/cost/device.c)
 * multiplies every kernel's FLOP and HBM time and nothing else: a large
 * GEMM (compute-bound) and an element-wise pass (HBM-bound) take that much
 * longer but their fixed launch cost; the collectives of a step keep their
 * time where they run in line (hidden behind the GEMMs, as Megatron-Core's
 * tensor-parallel backward issues them, more of them hides), so the step
 * grows by less than the scale. */
static void test_stack_level_scales_kernels_only(void)
{
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(8192), 2, 16);
    pp_gpu g = p.cluster.gpu;
    double launch = g.eff.kernel_us * 1e-6;
    double big = pp_gemm_time_s(&g, PP_PREC_BF16, 8192, 8192, 8192, 1.0);
    double thin = pp_gemm_time_s(&g, PP_PREC_BF16, 8192, 8192, 16, 1.0); /* K 16: operand traffic bound */
    pp_plan pl = pp_test_plan(8, 1, 2, 1, 1);
    pp_eval e1;
    pp_evaluate(&p, &pl, &e1);
    g.eff.compute_scale = 1.5;
    CU_ASSERT_DOUBLE_EQUAL(pp_gemm_time_s(&g, PP_PREC_BF16, 8192, 8192, 8192, 1.0) - launch, 1.5 * (big - launch),
                           1e-9 * big);
    CU_ASSERT_DOUBLE_EQUAL(pp_gemm_time_s(&g, PP_PREC_BF16, 8192, 8192, 16, 1.0) - launch, 1.5 * (thin - launch),
                           1e-9 * thin);
    p.cluster.gpu = g;
    pp_eval e2;
    pp_evaluate(&p, &pl, &e2);
    /* the launches (a few percent of the compute here) keep their time */
    CU_ASSERT(e2.time.compute_s > 1.4 * e1.time.compute_s && e2.time.compute_s < 1.5 * e1.time.compute_s);
    printf("\n    compute x %.3f, step x %.3f at a level of 1.5 ", e2.time.compute_s / e1.time.compute_s,
           e2.time.step_s / e1.time.step_s);
    CU_ASSERT(e2.time.step_s > e1.time.step_s && e2.time.step_s < 1.5 * e1.time.step_s);
    /* Megatron-Core's backward issues its TP collectives behind the GEMMs,
     * so slower kernels hide as much of them or more */
    CU_ASSERT(e1.time.tp_comm_s > 0.0);
    CU_ASSERT(e2.time.tp_comm_s <= e1.time.tp_comm_s);
    /* collectives issued in line keep their time whatever the kernels take */
    pp_problem q = p;
    q.training.tp_bwd_overlap = false;
    q.cluster.gpu.eff.compute_scale = 1.0;
    pp_eval f1, f2;
    pp_evaluate(&q, &pl, &f1);
    q.cluster.gpu.eff.compute_scale = 1.5;
    pp_evaluate(&q, &pl, &f2);
    CU_ASSERT(f1.time.tp_comm_s > e1.time.tp_comm_s);
    CU_ASSERT_DOUBLE_EQUAL(f2.time.tp_comm_s, f1.time.tp_comm_s, 1e-12);
    /* an unset scale (a zero-initialized GPU) is 1 */
    g.eff.compute_scale = 0.0;
    CU_ASSERT_DOUBLE_EQUAL(pp_gemm_time_s(&g, PP_PREC_BF16, 8192, 8192, 8192, 1.0), big, 1e-12);
}

/* NVIDIA's BERT (DeepLearningExamples modeling.py) scales, masks,
 * soft-maxes and drops out the attention scores in four PyTorch kernels:
 * 17 bytes an element where the fused kernels move 9, and two more
 * launches.  Priced on the unfused path only, three times a layer (forward
 * and the backward's two passes), and nothing else in the step changes. */
static void test_eager_unfused_softmax(void)
{
    pp_model m = {.layers = 24, .hidden = 1024, .heads = 16, .kv_heads = 16, .ffn_hidden = 4096, .vocab = 30522,
                  .seq_len = 512};
    pp_problem p = pp_test_problem(PP_TEST_A100, m, 1, 8);
    p.cluster.gpus_per_node = 1;
    pp_plan pl = pp_test_plan(1, 1, 1, 1, 8);
    double delta[2];
    for (int flash = 0; flash < 2; flash++) {
        p.training.flash_attention = flash;
        p.training.fused_elementwise = true;
        double fused = pp_step_time_s(&p, &pl);
        p.training.fused_elementwise = false;
        delta[flash] = pp_step_time_s(&p, &pl) - fused;
    }
    double scores = 8.0 * 16 * 512.0 * 512.0;
    double hbm = p.cluster.gpu.hbm_GBps * 1e9 * p.cluster.gpu.eff.hbm;
    double per_pass = 8.0 * scores / hbm + 2.0 * p.cluster.gpu.eff.kernel_us * 1e-6;
    PP_REL_EQ(delta[0] - delta[1], 3.0 * 24 * per_pass, 1e-9);
}

/* A fused RMSNorm kernel in otherwise eager code (Hagemann et al. 2023's
 * "RMS kernel", FlashAttention's fused RMSNorm; training.fused_norm) saves
 * the eager norm's traffic, 36 bytes an element over the fused kernel's,
 * and five of its six launches, for both norms of a Llama layer, three
 * times a layer (forward and the backward's two passes); nothing else in
 * the step changes.  Measured: their Llama 13B on 64 A100s (t 2, p 1,
 * micro-batch 2) steps in 29.70 s with the kernel and 33.90 s without
 * (Aleph-Alpha/NeurIPS-WANT-submission-efficient-parallelization-layouts
 * @e13c2cb5, llama_13B_bfloat16_64_GPUs_all_runs.xlsx, trials 132184 and
 * 132317): the direction is asserted, the size is the formula's. */
static void test_fused_norm_in_eager_code(void)
{
    pp_model m = {.layers = 40, .hidden = 5120, .heads = 40, .kv_heads = 40, .ffn_hidden = 13824, .vocab = 128000,
                  .seq_len = 2048, .gated_mlp = true};
    pp_problem p = pp_test_problem(PP_TEST_A100, m, 1, 8);
    p.cluster.gpus_per_node = 1;
    pp_plan pl = pp_test_plan(1, 1, 1, 1, 8);
    p.training.fused_elementwise = false;
    p.training.fused_norm = false;
    double eager = pp_step_time_s(&p, &pl);
    p.training.fused_norm = true;
    double fused = pp_step_time_s(&p, &pl);
    CU_ASSERT(fused < eager);
    double elements = 8.0 * 2048.0 * 5120.0;
    double hbm = p.cluster.gpu.hbm_GBps * 1e9 * p.cluster.gpu.eff.hbm;
    double per_pass = 2.0 * (36.0 * elements / hbm + 5.0 * p.cluster.gpu.eff.kernel_us * 1e-6);
    PP_REL_EQ(eager - fused, 3.0 * 40 * per_pass, 1e-9);
    /* fused element-wise code fuses its norm whatever fused_norm says */
    p.training.fused_elementwise = true;
    double all = pp_step_time_s(&p, &pl);
    p.training.fused_norm = false;
    PP_REL_EQ(pp_step_time_s(&p, &pl), all, 1e-12);
}

/* The attention core's forward FLOPs per second of its kernel. */
static double attention_flops_per_s(const pp_problem *p, const pp_plan *pl)
{
    layer_kernels k;
    layer_kernels_fwd(p, pl, &k);
    double tokens = (double)pl->micro_batch * p->model.seq_len / pl->cp;
    double flops = pp_attention_core_fwd_flops(&p->model, tokens, p->model.seq_len) / pl->tp;
    return flops / (k.attn_fwd_s - p->cluster.gpu.eff.kernel_us * 1e-6);
}

/* Whether a fused attention kernel's measured forward rates on an H100 at
 * 512 to 16k keys (head dimension 128) are, within tol, one long-sequence
 * rate R (their geometric mean over the tile's shares) times the share of
 * the kernel the problem runs. */
static bool reproduces_sweep(const pp_problem *p, const double tflops[6], double tol)
{
    static const double keys[] = {512, 1024, 2048, 4096, 8192, 16384};
    double log_r = 0.0;
    for (int i = 0; i < 6; i++)
        log_r += log(tflops[i] / attention_tile_share(p, keys[i])) / 6.0;
    bool ok = true;
    for (int i = 0; i < 6; i++)
        ok = ok && fabs(exp(log_r) * attention_tile_share(p, keys[i]) / tflops[i] - 1.0) < tol;
    return ok;
}

/* Each kernel slows on short spans by its own tile's cost.  On an H100 at
 * head dimension 128: FlashAttention-3 (pytorch/benchmark commit ff65cb67,
 * D60117034, batch x sequence 16k tokens) 430, 517, 566, 590, 614, 621
 * TFLOP/s at 512 to 16k keys; cuDNN's fused attention and FlashAttention-2
 * (Shah et al. 2024, arXiv 2407.08608, Fig. 5) 497, 574, 617, 609, 600, 595
 * and 309, 350, 362, 368, 370, 370.  FlashAttention-3 runs under FSDP when
 * named, cuDNN's as Megatron-Core's own, FlashAttention-2 as PyTorch SDPA's;
 * at 512 keys cuDNN's keeps 0.82 of its rate where FlashAttention-3 keeps
 * 0.72. */
static void test_attention_tile_share_reproduces_fa3_sweep(void)
{
    static const double fa3[] = {430.32, 517.099, 565.544, 590.233, 614.234, 620.73};
    static const double cudnn[] = {497, 574, 617, 609, 600, 595}, fa2[] = {309, 350, 362, 368, 370, 370};
    pp_problem mcore = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(8192), 1, 8), fsdp, fsdp3;
    mcore.cluster.gpu.peak_tflops[PP_PREC_FP8] = 1979; /* Hopper: fp8 tensor cores */
    fsdp = mcore;
    fsdp.training.framework = PP_FW_FSDP;
    pp_framework_features(PP_FW_FSDP, &fsdp.training);
    fsdp3 = fsdp;
    fsdp3.training.attention_kernel = PP_ATTN_FLASH3;
    CU_ASSERT(reproduces_sweep(&fsdp3, fa3, 0.015));
    CU_ASSERT(reproduces_sweep(&mcore, cudnn, 0.05));
    CU_ASSERT(reproduces_sweep(&fsdp, fa2, 0.025));
    CU_ASSERT_FALSE(reproduces_sweep(&fsdp3, cudnn, 0.05)); /* FlashAttention-3's tile is not cuDNN's */
    CU_ASSERT(attention_tile_share(&fsdp3, 512) < 0.72 * attention_tile_share(&fsdp3, 16384));
    CU_ASSERT(attention_tile_share(&mcore, 512) > 0.82 * attention_tile_share(&mcore, 16384));
    /* the stage term: a 2k causal sequence's attention runs at a lower
     * rate than an 8k one's, per FLOP */
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(2048), 1, 8);
    pp_problem q = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(8192), 1, 8);
    pp_plan pl = pp_test_plan(1, 1, 8, 1, 1);
    CU_ASSERT(attention_flops_per_s(&p, &pl) < 0.93 * attention_flops_per_s(&q, &pl));
}

/* FlashAttention-3's and FlashAttention-2's bf16 bars on an H100 at 16k
 * tokens (Shah et al. 2024, arXiv 2407.08608, Figs. 5 and 6, without the
 * causal mask): forward 497 / 648 TFLOP/s (FA3) and 324 / 370 (FA2) at
 * head dimension 64 / 128, backward 474 / 561 and 291 / 322.  The head
 * dimension's share reproduces each ratio within 1 %; a head of 80 runs on
 * FlashAttention-2's kernel for 96 (flash_api.cpp rounds up to 32), so per
 * useful FLOP it is slower than a head of 96, and in the stage term an
 * H100 running Megatron-Core's FlashAttention-3 class kernel gets 64-wide
 * heads through at FA3's forward ratio. */
/* The per-score work runs on the exponential units, not the tensor cores
 * (kernels.c): a B200 (2,250 bf16 TFLOP/s against 5 TeraExponentials/s,
 * 1.77 times the H100's balance) borrowing the H100's fitted rate runs its
 * forward at head dimension 128 at (128 + 56) / (128 + 56 x 1.77) of it,
 * and a B300 (10.7, twice the exponentials) at 64 about 1.5 times the
 * B200's rate; a GPU fitted on its own rows keeps its rate at 128 whatever
 * its balance. */
static void test_attention_head_dim_follows_exponential_units(void)
{
    pp_gpu b200 = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(8192), 1, 8).cluster.gpu;
    b200.peak_tflops[PP_PREC_BF16] = 2250;
    b200.sfu_exp_tops = 5.0;
    b200.eff.attention_balance = PP_ATTN_BALANCE_REF; /* borrowed from the H100 */
    double r = (2250.0 / 5.0) / PP_ATTN_BALANCE_REF;
    CU_ASSERT(pp_rel_close(r, 1.774, 0.001));
    CU_ASSERT(pp_rel_close(attention_head_dim_share(&b200, PP_ATTN_FLASH3, 128, false),
                           (128.0 + 56.0) / (128.0 + 56.0 * r), 1e-9));
    CU_ASSERT(pp_rel_close(attention_head_dim_share(&b200, PP_ATTN_FLASH3, 128, true),
                           (128.0 + 29.0) / (128.0 + 29.0 * r), 1e-9));
    pp_gpu b300 = b200;
    b300.sfu_exp_tops = 10.7;
    double ratio = attention_head_dim_share(&b300, PP_ATTN_FLASH3, 64, false) /
                   attention_head_dim_share(&b200, PP_ATTN_FLASH3, 64, false);
    CU_ASSERT(ratio > 1.4 && ratio < 1.55);
    /* more exponential units than the donor's balance: faster than the donor at 128 */
    CU_ASSERT(attention_head_dim_share(&b300, PP_ATTN_FLASH3, 128, false) > 1.0);
    b200.eff.attention_balance = 0.0; /* its own fit */
    CU_ASSERT_EQUAL(attention_head_dim_share(&b200, PP_ATTN_FLASH3, 128, false), 1.0);
    CU_ASSERT(attention_head_dim_share(&b200, PP_ATTN_FLASH3, 64, false) <
              attention_head_dim_share(&b300, PP_ATTN_FLASH3, 64, false));
}

static void test_attention_head_dim_reproduces_fa3_bars(void)
{
    static const struct {
        pp_attention_kernel k;
        bool bwd;
        double at64, at128;
    } bars[] = {
        {PP_ATTN_FLASH3, false, 497, 648}, {PP_ATTN_FLASH3, true, 474, 561},
        {PP_ATTN_FLASH2, false, 324, 370}, {PP_ATTN_FLASH2, true, 291, 322},
    };
    pp_gpu h100 = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(8192), 1, 8).cluster.gpu;
    h100.sfu_exp_tops = 3.9; /* the balance the bars were measured at (989 / 3.9) */
    for (size_t i = 0; i < sizeof bars / sizeof bars[0]; i++) {
        double model = attention_head_dim_share(&h100, bars[i].k, 64, bars[i].bwd);
        CU_ASSERT(fabs(model / (bars[i].at64 / bars[i].at128) - 1.0) < 0.01);
        CU_ASSERT_EQUAL(attention_head_dim_share(&h100, bars[i].k, 128, bars[i].bwd), 1.0);
        CU_ASSERT_EQUAL(attention_head_dim_share(&h100, bars[i].k, 256, bars[i].bwd), 1.0);
    }

    pp_model m = pp_test_llama3_8b(8192); /* 32 heads of 128 */
    pp_problem p = pp_test_problem(PP_TEST_H100, m, 1, 8);
    p.cluster.gpu.peak_tflops[PP_PREC_FP8] = 1979; /* Hopper: Megatron-Core runs the FA3 class */
    pp_plan pl = pp_test_plan(1, 1, 8, 1, 1);
    double at128 = attention_flops_per_s(&p, &pl);
    p.model.heads = p.model.kv_heads = 64; /* the same width in heads of 64 */
    CU_ASSERT(pp_rel_close(attention_flops_per_s(&p, &pl) / at128, 497.0 / 648.0, 0.01));

    p.training.attention_kernel = PP_ATTN_FLASH2;
    p.model.hidden = 2560; /* 32 heads of 80, on the kernel for 96 */
    p.model.heads = p.model.kv_heads = 32;
    double at80 = attention_flops_per_s(&p, &pl);
    p.model.hidden = 3072; /* 32 heads of 96 */
    double at96 = attention_flops_per_s(&p, &pl);
    CU_ASSERT(pp_rel_close(at80 / at96, 80.0 / 96.0, 1e-9));
}

/* The GEMM's alignment test (kernels.c, misaligned) is exact only where a
 * precision's alignment is a power of two: every one is, and a shape one
 * element off it pays the misaligned share while a multiple does not. */
static void test_alignment_is_a_power_of_two(void)
{
    pp_gpu gpu = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 1, 8).cluster.gpu;
    for (int p = 0; p < PP_PREC_COUNT; p++) {
        double a = pp_precision_props((pp_precision)p)->align_elems;
        int e;
        CU_ASSERT_EQUAL(frexp(a, &e), 0.5);
    }
    CU_ASSERT_FATAL(gpu.eff.gemm_misaligned < 1.0); /* else the shares below tell nothing apart */
    pp_gemm_terms on, off;
    pp_gemm_terms_of(&gpu, PP_PREC_BF16, 4096, 4096, 4096, 1, &on);
    pp_gemm_terms_of(&gpu, PP_PREC_BF16, 4096, 4096, 4097, 1, &off);
    CU_ASSERT_EQUAL(on.align_share, 1.0);
    CU_ASSERT_EQUAL(off.align_share, gpu.eff.gemm_misaligned);
    pp_gemm_terms_of(&gpu, PP_PREC_BF16, 4096, 4100, 4096, 1, &off); /* n: a multiple of 4, not of 8 */
    CU_ASSERT_EQUAL(off.align_share, gpu.eff.gemm_misaligned);
}

/* A GEMM with more rows or columns is never faster: the time is the waves
 * times a tile's time (tile and wave quantization together, NVIDIA's
 * "Matrix Multiplication Background User's Guide"), so it steps up and
 * never down, one row at a time from 1 to 4,096 (columns eight at a time,
 * as alignment pays), alone and batched (a grouped GEMM of experts), at the
 * shapes of dense and MoE layers (Qwen3-30B-A3B's and Mixtral's experts),
 * on the catalog's A100 and H100 with their SM counts.  Wave quantization
 * alone made it fall after a full wave (20-30 times per shape, from 129
 * rows on). */
static void test_gemm_time_never_falls(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    const char *gpus[] = {"a100-sxm4-80gb", "h100-sxm5-80gb"};
    const double nk[][2] = {{1536, 2048}, {2048, 768}, {28672, 4096}, {4096, 14336}, {768, 256}, {4096, 4096}};
    int falls = 0, steps = 0;
    for (int gi = 0; gi < 2; gi++) {
        const pp_gpu *g = pp_catalog_gpu(&cat, gpus[gi]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        CU_ASSERT_FATAL(g->sm_count > 0);
        for (size_t si = 0; si < sizeof nk / sizeof nk[0]; si++)
            for (double b = 1; b <= 16; b *= 16) {
                double before_m = 0.0, before_n = 0.0;
                for (int x = 1; x <= 4096; x++) {
                    double tm = pp_gemm_time_s(g, PP_PREC_BF16, x, nk[si][0], nk[si][1], b);
                    if (x > 1) {
                        steps++;
                        falls += tm < before_m * (1.0 - 1e-12); /* rounding aside */
                    }
                    before_m = tm;
                    /* N in steps of 8: an aligned N is rightly faster than the misaligned one before it */
                    if (x % 8 == 0) {
                        double tn = pp_gemm_time_s(g, PP_PREC_BF16, nk[si][0], x, nk[si][1], b);
                        if (x > 8) {
                            steps++;
                            falls += tn < before_n * (1.0 - 1e-12);
                        }
                        before_n = tn;
                    }
                }
            }
    }
    printf("\n    %d of %d steps faster ", falls, steps);
    CU_ASSERT_EQUAL(falls, 0);
    pp_catalog_free(&cat);
}

int main(void)
{
    const pp_test tests[] = {
        {"GEMM efficiency and shape", test_gemm_efficiency_falls_with_small_shapes},
        {"a GEMM with more rows or columns is never faster (tile and wave quantization)", test_gemm_time_never_falls},
        {"every precision's alignment is a power of two, and a shape off it pays", test_alignment_is_a_power_of_two},
        {"unfused attention's backward: four products by their shapes (Fig. 7's heads of 32)",
         test_unfused_attention_backward_shapes},
        {"a linear layer's backward: data and weight gradients by their own shapes (Fig. 17's QKV)",
         test_backward_gemm_shapes},
        {"micro-batch sweep: faster from 1 to 2, slower again at 8 (Narayanan 2021 Fig. 16)",
         test_micro_batch_sweep_direction},
        {"head dim not a multiple of 8 is slower", test_misaligned_head_dim_is_slower},
        {"a stack level scales the kernels' FLOP and HBM time, not launches or collectives",
         test_stack_level_scales_kernels_only},
        {"eager element-wise ops are slower than fused (torchtitan Table 1)", test_eager_elementwise_is_slower},
        {"eager unfused attention: four kernels on the scores (NVIDIA BERT)", test_eager_unfused_softmax},
        {"a fused norm kernel in eager code (Hagemann et al. 2023's RMS kernel)", test_fused_norm_in_eager_code},
        {"no fused attention on a Volta GPU", test_no_fused_attention_on_volta},
        {"logits and loss on a share of the tokens", test_loss_token_fraction},
        {"causal attention: the blocks on or below the diagonal; the backward 2.5 forwards", test_causal_attention},
        {"sliding-window attention: the band of the square, the layers' mean", test_sliding_window_attention},
        {"attention kernel generation: FlashAttention-3 on Hopper only", test_attention_kernel_generation},
        {"attention's tile cost reproduces each kernel's sequence sweep: FlashAttention-3, cuDNN, FlashAttention-2",
         test_attention_tile_share_reproduces_fa3_sweep},
        {"attention's head dimension reproduces FlashAttention-3's and -2's bars (Shah et al. 2024)",
         test_attention_head_dim_reproduces_fa3_bars},
        {"attention's per-score work runs at each GPU's exponential units (FlashAttention-4, Blackwell Ultra)",
         test_attention_head_dim_follows_exponential_units},
        {NULL, NULL},
    };
    return pp_test_main("cost-kernels", tests);
}
