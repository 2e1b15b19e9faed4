/*
 * test_cost_flops.c: FLOP and parameter counts (formulate/cost/flops.c)
 * against the published closed forms.  Each test names the formula it checks.
 */
#include "costmodel.h"
#include "testutil.h"

/* Megatron-LM: 72 B s L h^2 (1 + s/(6h) + V/(12 L h)) for a GPT with f = 4h. */
static void test_model_flops_gpt(void)
{
    pp_model m = pp_test_gpt3_175b();
    double B = 1536, s = m.seq_len, L = m.layers, h = m.hidden, V = m.vocab;
    double expect = 72.0 * B * s * L * h * h * (1 + s / (6 * h) + V / (12 * L * h));
    PP_REL_EQ(pp_model_flops_per_step(&m, B), expect, 1e-12);
}

/* Megatron-LM's num_floating_point_operations with GQA and SwiGLU:
 * 12 B s L h^2 (1 + (f/h)(3/2) + g/a + s/h + V/(2 L h)). */
static void test_model_flops_gqa_swiglu(void)
{
    pp_model m = {.layers = 80, .hidden = 8192, .heads = 64, .kv_heads = 8, .ffn_hidden = 28672,
                  .gated_mlp = true, .vocab = 32000, .seq_len = 4096};
    double B = 1024, s = m.seq_len, L = m.layers, h = m.hidden, V = m.vocab, f = m.ffn_hidden;
    double expect = 12.0 * B * s * L * h * h * (1 + f / h * 1.5 + 8.0 / 64 + s / h + V / (2 * L * h));
    PP_REL_EQ(pp_model_flops_per_step(&m, B), expect, 1e-12);
}

/* Full recomputation adds one forward of the layers (Narayanan et al.'s 96
 * B s L h^2 (1 + s/6h + V/16Lh) = 4 forwards of the layers, 3 of the logits);
 * selective adds only the attention core (4 B s^2 h per layer). */
static void test_hardware_flops(void)
{
    pp_model m = pp_test_gpt3_175b();
    double B = 1536, s = m.seq_len, L = m.layers, h = m.hidden, V = m.vocab;
    double narayanan = 96.0 * B * s * L * h * h * (1 + s / (6 * h) + V / (16 * L * h));
    PP_REL_EQ(pp_hardware_flops_per_step(&m, B, PP_RECOMPUTE_FULL), narayanan, 1e-12);
    double sel = pp_model_flops_per_step(&m, B) + L * 4.0 * B * s * s * h;
    PP_REL_EQ(pp_hardware_flops_per_step(&m, B, PP_RECOMPUTE_SELECTIVE), sel, 1e-12);
    PP_REL_EQ(pp_hardware_flops_per_step(&m, B, PP_RECOMPUTE_NONE), pp_model_flops_per_step(&m, B), 1e-15);
}

/* 12 h^2 + 13 h parameters per GPT layer (Narayanan et al. 2021 §5.1). */
static void test_layer_params(void)
{
    pp_model m = pp_test_gpt3_175b();
    double h = m.hidden;
    PP_REL_EQ(pp_layer_params(&m), 12 * h * h + 13 * h, 1e-15);
    double total = pp_model_params(&m);
    CU_ASSERT(total > 174e9 && total < 176e9);
}

int main(void)
{
    const pp_test tests[] = {
        {"model FLOPs, GPT (Megatron 72BsLh^2)", test_model_flops_gpt},
        {"model FLOPs, GQA + SwiGLU", test_model_flops_gqa_swiglu},
        {"hardware FLOPs with recomputation", test_hardware_flops},
        {"layer parameters 12h^2+13h", test_layer_params},
        {NULL, NULL},
    };
    return pp_test_main("cost-flops", tests);
}
