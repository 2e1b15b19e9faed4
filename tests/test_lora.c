/*
 * test_lora.c: fine-tuning in the cost model (docs/cost-model.md section
 * 11): LoRA (training.lora_rank) - frozen weights run forward and data
 * gradient only, hold no gradient or optimizer state, and send nothing
 * over data parallelism; the adapters cost their own small GEMMs - and the
 * settings fine-tuning recipes use with it: fp8 weights, fp8 activation
 * inputs, packed samples.
 */
#include "cost_ground.h"
#include "cost_kernels.h"
#include "costmodel.h"
#include "testutil.h"

#include <math.h>

#define GIB (1024.0 * 1024.0 * 1024.0)

/* GPT-3 175B on 128 DGX A100 nodes, batch 1536, no recomputation. */
static pp_problem gpt3(int rank, pp_lora_targets targets)
{
    pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 128, 1536);
    p.training.lora_rank = rank;
    p.training.lora_targets = targets;
    return p;
}

static pp_plan plan_88(void)
{
    return pp_test_plan(8, 8, 16, 1, 1);
}

/* Hu et al. 2021 (arXiv 2106.09685) section 4.2: on GPT-3 175B, LoRA (rank
 * 4 on the attention) trains about 25 % faster than full fine-tuning "as
 * we do not need to calculate the gradient for the vast majority of the
 * parameters".  The frozen matrix multiplies lose one of their three
 * passes, so the step must shrink by a sizable fraction, not by nothing
 * and not by more than the whole weight-gradient share. */
static void test_speedup_on_gpt3(void)
{
    pp_problem full = gpt3(0, PP_LORA_ATTENTION), lora = gpt3(4, PP_LORA_ATTENTION);
    pp_plan pl = plan_88();
    pp_eval ef, el;
    pp_evaluate(&full, &pl, &ef);
    pp_evaluate(&lora, &pl, &el);
    double ratio = el.time.step_s / ef.time.step_s;
    CU_ASSERT(ratio > 0.65 && ratio < 0.85);
    /* the compute loses a third of its matrix multiplies, not of its
     * attention core and element-wise work */
    double c = el.time.compute_s / ef.time.compute_s;
    CU_ASSERT(c > 0.67 && c < 0.85);
    /* nothing else moves but the gradient traffic and the optimizer */
    PP_REL_EQ(el.time.tp_comm_s, ef.time.tp_comm_s, 1e-12);
    PP_REL_EQ(el.time.pp_comm_s, ef.time.pp_comm_s, 1e-12);
    CU_ASSERT(el.time.dp_comm_s < 1e-2 * ef.time.dp_comm_s); /* latency-bound */
    CU_ASSERT(el.time.optimizer_s < 1e-3 * ef.time.optimizer_s);
    CU_ASSERT(el.time.optimizer_s > 0.0);
}

/* Model FLOPs of a LoRA step by hand, GPT-3 (MHA, GeLU MLP of 4h, untied
 * counting as Megatron-LM): a layer's matrix multiplies are 24 T h^2 a
 * forward, its attention core 4 T s h, the logits 2 T h V; frozen ones run
 * two passes, the attention core and the adapters (rank r on QKV, h -> 3h,
 * and the projection, h -> h: r (h + 3h) + r (h + h) weights) three. */
static void test_flops_by_hand(void)
{
    pp_model m = pp_test_gpt3_175b();
    pp_training t = {.lora_rank = 8, .lora_targets = PP_LORA_ATTENTION};
    double B = 64, s = m.seq_len, T = B * s, h = m.hidden, L = m.layers, V = m.vocab, r = 8;
    double expect = 2.0 * (L * 24.0 * T * h * h + 2.0 * T * h * V) + 3.0 * L * 4.0 * T * s * h +
                    3.0 * 2.0 * T * L * r * (4.0 * h + 2.0 * h);
    PP_REL_EQ(pp_training_flops_per_step(&m, &t, B), expect, 1e-12);
    t.lora_rank = 0;
    PP_REL_EQ(pp_training_flops_per_step(&m, &t, B), pp_model_flops_per_step(&m, B), 1e-15);
    /* all four linears: the MLP's h -> 4h and 4h -> h adapters too */
    t.lora_rank = 8;
    t.lora_targets = PP_LORA_ALL_LINEAR;
    PP_REL_EQ(pp_training_flops_per_step(&m, &t, B), expect + 3.0 * 2.0 * T * L * r * 10.0 * h, 1e-12);
}

/* The adapters of one GPU under TP 8, as NeMo splits them: beside QKV the
 * up-projection is split (r x 3h/8) and the down-projection whole (h x r);
 * beside the projection the down-projection is split (h/8 x r) and the
 * up-projection whole (r x h). */
static void test_adapter_params_per_gpu(void)
{
    pp_model m = pp_test_gpt3_175b();
    pp_training t = {.lora_rank = 16, .lora_targets = PP_LORA_ATTENTION};
    double h = m.hidden, r = 16;
    PP_REL_EQ(pp_lora_layer_params(&m, &t, 8), r * (h + 3.0 * h / 8) + r * (h / 8 + h), 1e-12);
    PP_REL_EQ(pp_lora_layer_params(&m, &t, 1), r * 6.0 * h, 1e-12);
    t.lora_rank = 0;
    CU_ASSERT_EQUAL(pp_lora_layer_params(&m, &t, 8), 0.0);
}

/* Memory: the frozen weights stay, in 16 bits; gradients and optimizer
 * states are the adapters' only (the bytes per parameter of full training,
 * on the adapters of the stage's layers).  Hu et al. 2021 section 4.2:
 * GPT-3 175B's training memory falls from 1.2 TB to 350 GB. */
static void test_states_are_the_adapters(void)
{
    pp_problem full = gpt3(0, PP_LORA_ATTENTION), lora = gpt3(16, PP_LORA_ATTENTION);
    pp_plan pl = plan_88();
    pp_memory mf, ml;
    pp_memory_eval(&full, &pl, &mf);
    pp_memory_eval(&lora, &pl, &ml);
    PP_REL_EQ(ml.weights_gib, mf.weights_gib, 1e-12);
    CU_ASSERT(ml.activations_gib < mf.activations_gib);
    double w, g, o;
    pp_state_bytes_per_param(&lora.training, &w, &g, &o);
    double adapters = 12.0 * pp_lora_layer_params(&lora.model, &lora.training, 8); /* 96 layers / 8 stages */
    PP_REL_EQ(ml.gradients_gib, g * adapters / GIB, 1e-9);
    PP_REL_EQ(ml.optimizer_gib, o * adapters / GIB, 1e-9);
    double states_f = mf.weights_gib + mf.gradients_gib + mf.optimizer_gib;
    CU_ASSERT(ml.weights_gib + ml.gradients_gib + ml.optimizer_gib < 0.15 * states_f);
    /* ZeRO-1 shards the adapters' optimizer states over the 16 replicas */
    pl.zero = 1;
    pp_memory_eval(&lora, &pl, &ml);
    PP_REL_EQ(ml.optimizer_gib, o * adapters / 16.0 / GIB, 1e-9);
}

/* Saved activations under Transformer Engine (megatron-core): a frozen
 * linear keeps no input for a weight gradient it does not compute (TE's
 * backward_needs_input = is_grad_enabled and weight.requires_grad), an
 * adapted one's adapter keeps the 16-bit input.  GPT-3 in bf16, tp 8
 * without sequence parallelism, micro-batch 1: attention adapters leave the
 * attention's inputs as they were and drop the MLP-in input (2 bytes an h
 * element, replicated over TP) and the MLP-out input (2 bytes an f element,
 * split); adapting every linear keeps them all; other frameworks are priced
 * as full training. */
static void test_saved_inputs_of_frozen_linears(void)
{
    pp_problem full = gpt3(0, PP_LORA_ATTENTION), att = gpt3(16, PP_LORA_ATTENTION), all = gpt3(16, PP_LORA_ALL_LINEAR);
    pp_plan pl = plan_88();
    double sbh = 2048.0 * 12288.0, sbf = 4.0 * sbh;
    double f = pp_layer_activation_bytes(&full, &pl, false);
    PP_REL_EQ(f - pp_layer_activation_bytes(&att, &pl, false), 2.0 * sbh + 2.0 * sbf / 8.0, 1e-12);
    PP_REL_EQ(pp_layer_activation_bytes(&all, &pl, false), f, 1e-12);
    /* in fp8 the adapters keep 16 bits where Transformer Engine kept 1 byte */
    full.training.precision = all.training.precision = PP_PREC_FP8;
    f = pp_layer_activation_bytes(&full, &pl, false);
    PP_REL_EQ(pp_layer_activation_bytes(&all, &pl, false) - f, 2.0 * sbh + sbh / 8.0 + sbf / 8.0, 1e-12);
    full.training.framework = att.training.framework = PP_FW_DEEPSPEED;
    full.training.precision = PP_PREC_BF16;
    PP_REL_EQ(pp_layer_activation_bytes(&att, &pl, false), pp_layer_activation_bytes(&full, &pl, false), 1e-12);
}

/* More adapters cost more, and rank 0 is full training whatever the targets. */
static void test_targets_and_rank_zero(void)
{
    pp_plan pl = plan_88();
    pp_problem att = gpt3(64, PP_LORA_ATTENTION), all = gpt3(64, PP_LORA_ALL_LINEAR);
    CU_ASSERT(pp_step_time_s(&all, &pl) > pp_step_time_s(&att, &pl));
    pp_memory ma, ml;
    pp_memory_eval(&att, &pl, &ma);
    pp_memory_eval(&all, &pl, &ml);
    CU_ASSERT(ml.optimizer_gib > ma.optimizer_gib);
    pp_problem full = gpt3(0, PP_LORA_ATTENTION), full_all = gpt3(0, PP_LORA_ALL_LINEAR);
    PP_REL_EQ(pp_step_time_s(&full_all, &pl), pp_step_time_s(&full, &pl), 1e-15);
    /* a larger rank costs more, a little */
    pp_problem small = gpt3(4, PP_LORA_ATTENTION);
    double ts = pp_step_time_s(&small, &pl), tb = pp_step_time_s(&att, &pl);
    CU_ASSERT(tb > ts && tb < 1.05 * ts);
}

/* ZeRO-3 shards the frozen weights too and gathers them for every forward
 * and backward (DeepSpeed, FSDP): under LoRA the gathers stay those of
 * full training, only the gradient reduce-scatter shrinks to the
 * adapters'. */
static void test_zero3_gathers_frozen_weights(void)
{
    pp_problem full = gpt3(0, PP_LORA_ATTENTION), lora = gpt3(16, PP_LORA_ATTENTION);
    full.training.dp_overlap = lora.training.dp_overlap = false;
    pp_plan pl = pp_test_plan(8, 1, 128, 1, 1);
    pl.zero = 3;
    pp_dp_term df, dl;
    pp_term_dp_comm(&full, &pl, &df);
    pp_term_dp_comm(&lora, &pl, &dl);
    CU_ASSERT(dl.per_mb_wire_s > 0.6 * df.per_mb_wire_s); /* the gathers, two of every three collectives */
    /* the reduce-scatters carry the adapters only: what is left is their latency */
    CU_ASSERT(dl.once_wire_s < 0.2 * df.once_wire_s);
}

/* fp8_params (NeMo's, Megatron-Core's --fp8-param-gather): the weights are
 * held in one byte, and ZeRO's gathers move one byte a weight. */
static void test_fp8_params(void)
{
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_gpt3_175b(), 128, 1536);
    p.training.precision = PP_PREC_FP8;
    pp_plan pl = plan_88();
    pp_memory m16, m8;
    pp_memory_eval(&p, &pl, &m16);
    p.training.fp8_params = true;
    pp_memory_eval(&p, &pl, &m8);
    PP_REL_EQ(m8.weights_gib, 0.5 * m16.weights_gib, 1e-12);
    PP_REL_EQ(m8.optimizer_gib, m16.optimizer_gib, 1e-12); /* the fp32 master copy stays */
    pp_plan z1 = plan_88();
    z1.zero = 1;
    pp_dp_term d8, d16;
    pp_term_dp_comm(&p, &z1, &d8);
    p.training.fp8_params = false;
    pp_term_dp_comm(&p, &z1, &d16);
    CU_ASSERT(d8.gather_once_wire_s < 0.6 * d16.gather_once_wire_s);
    /* in bf16 there is no fp8 format to hold them in */
    p.training.precision = PP_PREC_BF16;
    p.training.fp8_params = true;
    pp_memory_eval(&p, &pl, &m8);
    PP_REL_EQ(m8.weights_gib, m16.weights_gib, 1e-12);
}

/* A frozen weight pre-quantized to a block-scaled format (MLPerf v5.1's
 * NVFP4 LoRA, PRE_QUANTIZED_MODEL) holds its rowwise and its columnwise
 * cast, each 4 bits with one E4M3 scale per 16 values, where a trained
 * weight under the same recipe holds one; the layers the recipe keeps in
 * bf16 hold their 16-bit weight either way.  Per-tensor fp8 scales run both
 * ways: one byte a frozen weight. */
static void test_frozen_block_scaled_weights(void)
{
    pp_problem p = gpt3(16, PP_LORA_ATTENTION);
    pp_plan pl = plan_88();
    pp_memory m16, held;
    pp_memory_eval(&p, &pl, &m16);
    p.training.precision = PP_PREC_NVFP4;
    p.training.fp8_params = true;
    pp_memory_eval(&p, &pl, &held);
    const pp_precision_info *nv = pp_precision_props(PP_PREC_NVFP4);
    double hp = nv->high_precision_fraction, cast = 0.5 + 1.0 / 16.0;
    CU_ASSERT(hp > 0.0 && hp < 0.5);
    PP_REL_EQ(nv->gemm_input_bytes, cast, 1e-12);
    PP_REL_EQ(held.weights_gib, m16.weights_gib * ((1.0 - hp) * 2.0 * cast + hp * 2.0) / 2.0, 1e-12);
    pp_problem trained = p;
    trained.training.lora_rank = 0;
    pp_memory mt;
    pp_memory_eval(&trained, &pl, &mt);
    PP_REL_EQ(mt.weights_gib, m16.weights_gib * ((1.0 - hp) * cast + hp * 2.0) / 2.0, 1e-12);
    p.training.precision = PP_PREC_FP8;
    pp_memory_eval(&p, &pl, &held);
    PP_REL_EQ(held.weights_gib, 0.5 * m16.weights_gib, 1e-12);
}

/* Frozen weights need no transposed casts: Transformer Engine casts a
 * linear layer's input column-wise only when backward_needs_input
 * (is_grad_enabled and weight.requires_grad), and the output gradient
 * only for the data gradient, so a LoRA step writes one copy of each cast
 * where training writes two.  Per element, fp8: read 2, write 1 (not 2);
 * NVFP4: read 2 x 2 (its global scale's pass), write its recipe's bytes
 * once (0.5625 in its fp4 layers); the launch cost stays. */
static void test_frozen_casts_one_copy(void)
{
    static const pp_precision recipes[] = {PP_PREC_FP8, PP_PREC_NVFP4};
    for (int i = 0; i < 2; i++) {
        pp_problem lora = gpt3(16, PP_LORA_ATTENTION);
        lora.cluster.gpu = pp_test_problem(PP_TEST_H100, pp_test_gpt3_175b(), 128, 1536).cluster.gpu;
        if (recipes[i] == PP_PREC_NVFP4)
            lora.cluster.gpu.peak_tflops[PP_PREC_NVFP4] = 4.0 * lora.cluster.gpu.peak_tflops[PP_PREC_BF16];
        lora.training.precision = recipes[i];
        pp_problem full = lora;
        full.training.lora_rank = 0;
        const pp_precision_info *info = pp_precision_props(recipes[i]);
        /* the bytes of a cast element in the recipe's format; the blocks the
         * recipe keeps in bf16 cast nothing, launches included */
        double read = 2.0 * (1.0 + info->scale_passes), w = precision_input_bytes(recipes[i]), n = 1e9;
        double lowp = 1.0 - bf16_layer_share(&lora.training);
        double launch = lowp * lora.cluster.gpu.eff.kernel_us * 1e-6 * (1.0 + info->scale_passes);
        double one = lowp_cast_s(&lora, n, 1.0) - launch, two = lowp_cast_s(&full, n, 1.0) - launch;
        CU_ASSERT(one > 0.0);
        PP_REL_EQ(one / two, (read + w) / (read + 2.0 * w), 1e-9);
        pp_plan pl = plan_88();
        layer_kernels kf, kl;
        layer_kernels_fwd(&full, &pl, &kf);
        layer_kernels_fwd(&lora, &pl, &kl);
        CU_ASSERT(kl.cast_fwd_s < kf.cast_fwd_s && kl.cast_bwd_s < kf.cast_bwd_s);
    }
}

/* Megatron-Core's --activation-func-fp8-input-store: the SwiGLU input
 * (2f wide) is kept in one byte instead of two; only under an fp8 recipe. */
static void test_fp8_activation_input_store(void)
{
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(8192), 1, 64);
    p.training.precision = PP_PREC_FP8;
    pp_plan pl = pp_test_plan(1, 1, 8, 1, 1);
    double before = pp_layer_activation_bytes(&p, &pl, false);
    p.training.fp8_act_store = true;
    double sbf = 8192.0 * p.model.ffn_hidden;
    PP_REL_EQ(before - pp_layer_activation_bytes(&p, &pl, false), 2.0 * sbf, 1e-12);
    p.training.precision = PP_PREC_BF16;
    double bf16 = pp_layer_activation_bytes(&p, &pl, false);
    p.training.fp8_act_store = false;
    PP_REL_EQ(pp_layer_activation_bytes(&p, &pl, false), bf16, 1e-15);
}

/* Packed samples (training.packed_sample_tokens): variable-length fused
 * attention keeps each query within its sample, so the attention core
 * costs sum s_i^2 = seq x the token-weighted mean sample length (NeMo's
 * sequence-packing guide); the linear layers do not change. */
static void test_packed_samples(void)
{
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(8192), 1, 64);
    pp_plan pl = pp_test_plan(1, 1, 8, 1, 1);
    pp_stage_term whole, packed;
    pp_term_stage(&p, &pl, &whole);
    double fl = pp_training_flops_per_step(&p.model, &p.training, 64);
    p.training.packed_sample_tokens = 1024;
    pp_term_stage(&p, &pl, &packed);
    CU_ASSERT(packed.fwd_s < whole.fwd_s);
    /* the attention core's share falls by 1024/8192: what is saved is 7/8 of it */
    double T = 64.0 * 8192, core = p.model.layers * pp_attention_core_fwd_flops(&p.model, T, 8192);
    PP_REL_EQ(fl - pp_training_flops_per_step(&p.model, &p.training, 64), 3.0 * core * 7.0 / 8.0, 1e-12);
    PP_REL_EQ(pp_attention_span(&p.model, &p.training), 1024.0, 1e-15);
    p.training.packed_sample_tokens = 0;
    PP_REL_EQ(pp_attention_span(&p.model, &p.training), 8192.0, 1e-15);
}

int main(void)
{
    static const pp_test tests[] = {
        {"LoRA on GPT-3 175B: faster by the weight gradients (Hu et al. 2021)", test_speedup_on_gpt3},
        {"LoRA FLOPs by hand", test_flops_by_hand},
        {"adapter parameters per GPU under TP", test_adapter_params_per_gpu},
        {"memory: frozen weights, adapters' states", test_states_are_the_adapters},
        {"targets and rank 0", test_targets_and_rank_zero},
        {"saved activations: frozen linears keep no input (Transformer Engine)", test_saved_inputs_of_frozen_linears},
        {"ZeRO-3 still gathers the frozen weights", test_zero3_gathers_frozen_weights},
        {"fp8_params: one byte a weight", test_fp8_params},
        {"frozen NVFP4 weights hold both casts", test_frozen_block_scaled_weights},
        {"frozen weights: activations and gradients cast one way (Transformer Engine)", test_frozen_casts_one_copy},
        {"fp8_activation_input_store: one byte a SwiGLU input", test_fp8_activation_input_store},
        {"packed samples: the attention core within each sample", test_packed_samples},
        {NULL, NULL},
    };
    return pp_test_main("lora", tests);
}
