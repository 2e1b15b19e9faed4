/*
 * names.c: the names of parplan's enumerations (see names.h).
 */
#include "names.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const pp_precision_names[PP_PREC_COUNT] = {"bf16",  "fp16",  "fp8",      "fp32",
                                                      "fp8-current", "mxfp8", "nvfp4", "fp8-block"};
const char *const pp_recompute_names[PP_RECOMPUTE_COUNT] = {"none", "selective", "full"};
const char *const pp_tp_mode_names[PP_TP_MODE_COUNT] = {"1d", "2d", "2.5d", "3d"};
const char *const pp_dim_names[PP_DIM_COUNT] = {"dp", "tp", "pp", "params"};
const char *const pp_framework_names[PP_FW_COUNT] = {"megatron-core", "megatron-lm-2021", "deepspeed", "deepspeed-2021",
                                                   "fsdp"};
const char *const pp_training_setting_names[PP_TS_COUNT] = {"moe_force_balance", "mtp_layers", "cuda_graphs",
                                                             "optimizer_moments_dtype", "bf16_layers"};
const char *const pp_objective_names[PP_OBJECTIVE_COUNT] = {"min_step_time", "min_cost", "min_time", "min_gpus"};
const char *const pp_attention_kernel_names[PP_ATTN_COUNT] = {"auto", "flash2", "flash3", "flash1"};
const char *const pp_cuda_graphs_names[PP_GRAPHS_COUNT] = {"none", "partial", "full"};
const char *const pp_lora_targets_names[PP_LORA_TARGETS_COUNT] = {"attention", "all-linear"};

static const char *name_or(const char *const *names, int n, int i)
{
    return (i >= 0 && i < n) ? names[i] : "?";
}

const char *pp_precision_name(pp_precision p) { return name_or(pp_precision_names, PP_PREC_COUNT, (int)p); }
const char *pp_recompute_name(pp_recompute r) { return name_or(pp_recompute_names, PP_RECOMPUTE_COUNT, (int)r); }
const char *pp_tp_mode_name(pp_tp_mode m) { return name_or(pp_tp_mode_names, PP_TP_MODE_COUNT, (int)m); }
const char *pp_dim_name(pp_dim d) { return name_or(pp_dim_names, PP_DIM_COUNT, (int)d); }
const char *pp_objective_name(pp_objective o) { return name_or(pp_objective_names, PP_OBJECTIVE_COUNT, (int)o); }
const char *pp_attention_kernel_name(pp_attention_kernel k)
{
    return name_or(pp_attention_kernel_names, PP_ATTN_COUNT, (int)k);
}

void pp_name_key(const char *text, char *out, size_t cap)
{
    size_t n = 0;
    for (; text && *text && n + 1 < cap; text++)
        if (isalnum((unsigned char)*text))
            out[n++] = (char)tolower((unsigned char)*text);
    if (cap > 0)
        out[n] = '\0';
}

/* Other names of today's frameworks: NeMo 2.0 and Megatron-Bridge train
 * Megatron-Core models, and Megatron-LM has built them by default since
 * core_r0.8.0 (commit 9ad1a56f, 2024-05-24); torchtitan and LLM Foundry
 * (Composer) shard with PyTorch FSDP; GPT-NeoX and Megatron-DeepSpeed train
 * on DeepSpeed's engine. */
static const struct {
    const char *key;
    pp_framework fw;
} framework_aliases[] = {
    {"megatron", PP_FW_MEGATRON_CORE},       {"megatronlm", PP_FW_MEGATRON_CORE},
    {"mcore", PP_FW_MEGATRON_CORE},          {"nemo", PP_FW_MEGATRON_CORE},
    {"nemo2", PP_FW_MEGATRON_CORE},          {"nemomegatron", PP_FW_MEGATRON_CORE},
    {"megatronbridge", PP_FW_MEGATRON_CORE}, {"torchtitan", PP_FW_FSDP},
    {"pytorchfsdp", PP_FW_FSDP},             {"fsdp2", PP_FW_FSDP},
    {"fullyshardeddataparallel", PP_FW_FSDP}, {"llmfoundry", PP_FW_FSDP},
    {"composer", PP_FW_FSDP},                {"gptneox", PP_FW_DEEPSPEED},
    {"nemoframework", PP_FW_MEGATRON_CORE},
    {"megatrondeepspeed", PP_FW_DEEPSPEED},
};

static bool framework_named(const char *text, pp_framework *fw);

/* A version as users write one after a framework's name: "25.04", "0.12",
 * "v0.2.2", "core_r0.13.0", "r2.6", "2021". */
static bool version_token(const char *t, size_t n)
{
    size_t i = 0;
    if (n > 6 && strncmp(t, "core_", 5) == 0)
        i = 5;
    if (i < n && (t[i] == 'v' || t[i] == 'V' || t[i] == 'r'))
        i++;
    return i < n && isdigit((unsigned char)t[i]);
}

/* The leading number of a version token (v2.6: 2, core_r0.13.0: 0) and
 * the one after its first dot (v2.6: 6), -1 where there is none. */
static void version_numbers(const char *t, long *major, long *minor)
{
    while (*t && !isdigit((unsigned char)*t))
        t++;
    char *end;
    *major = *t ? strtol(t, &end, 10) : -1;
    *minor = (*t && *end == '.' && isdigit((unsigned char)end[1])) ? strtol(end + 1, NULL, 10) : -1;
}

/* Words before a framework's name that name its maker, not the framework. */
static const char *const framework_vendors[] = {"nvidia", "pytorch", "mosaicml", "microsoft", "meta"};

/* "NeMo 25.04", "PyTorch FSDP2", "torchtitan v0.2.2": the name without
 * its maker's word and its version, then as pp_framework_alias; a version
 * of the 2021 stacks' era names them (Megatron-LM v1-v3 or a year to 2022,
 * the releases before Megatron-Core; DeepSpeed 0.5 and earlier). */
static bool framework_versioned(const char *text, pp_framework *fw)
{
    char name[128] = "";
    const char *version = NULL;
    size_t used = 0, vlen = 0;
    bool first = true;
    for (const char *p = text; *p;) {
        while (*p && (isspace((unsigned char)*p) || *p == '(' || *p == ')' || *p == ','))
            p++;
        size_t n = 0;
        while (p[n] && !isspace((unsigned char)p[n]) && p[n] != '(' && p[n] != ')' && p[n] != ',')
            n++;
        if (n == 0)
            break;
        bool vendor = false;
        if (first && p[n]) { /* the first of several words only */
            char word[32], key[32];
            snprintf(word, sizeof word, "%.*s", (int)(n < 31 ? n : 31), p);
            pp_name_key(word, key, sizeof key);
            for (size_t i = 0; i < sizeof framework_vendors / sizeof framework_vendors[0]; i++)
                vendor = vendor || strcmp(key, framework_vendors[i]) == 0;
        }
        if (version_token(p, n)) {
            if (!version) {
                version = p;
                vlen = n;
            }
        } else if (!vendor && !version && used + n + 1 < sizeof name) {
            memcpy(name + used, p, n);
            used += n;
            name[used++] = ' ';
            name[used] = '\0';
        }
        first = false;
        p += n;
    }
    if (!version && used == 0)
        return false;
    if (!framework_named(name, fw))
        return false;
    if (version) {
        char v[32];
        snprintf(v, sizeof v, "%.*s", (int)(vlen < 31 ? vlen : 31), version);
        long major, minor;
        version_numbers(v, &major, &minor);
        char key[64];
        pp_name_key(name, key, sizeof key);
        bool megatron_lm = strcmp(key, "megatronlm") == 0 || strcmp(key, "megatron") == 0;
        bool old_megatron = megatron_lm && strncmp(v, "core", 4) != 0 &&
                            ((major >= 1 && major <= 3) || (major >= 2019 && major <= 2022));
        bool old_deepspeed = *fw == PP_FW_DEEPSPEED && strcmp(key, "deepspeed") == 0 && major == 0 && minor >= 0 &&
                             minor <= 5;
        if (*fw == PP_FW_MEGATRON_CORE && old_megatron)
            *fw = PP_FW_MEGATRON_2021;
        else if (old_deepspeed)
            *fw = PP_FW_DEEPSPEED_2021;
    }
    return true;
}

bool pp_framework_alias(const char *text, pp_framework *fw)
{
    return framework_named(text, fw) || framework_versioned(text, fw);
}

static bool framework_named(const char *text, pp_framework *fw)
{
    char key[64];
    pp_name_key(text, key, sizeof key);
    for (int f = 0; f < PP_FW_COUNT; f++) {
        char own[64];
        pp_name_key(pp_framework_names[f], own, sizeof own);
        if (strcmp(key, own) == 0) {
            *fw = (pp_framework)f;
            return true;
        }
    }
    for (size_t i = 0; i < sizeof framework_aliases / sizeof framework_aliases[0]; i++)
        if (strcmp(key, framework_aliases[i].key) == 0) {
            *fw = framework_aliases[i].fw;
            return true;
        }
    return false;
}

/* Other names of the training precisions, as the frameworks spell their
 * recipes: Megatron-LM's --fp8-recipe values (delayed, tensorwise, mxfp8,
 * blockwise; --fp4-recipe nvfp4), the mixed-precision recipes of NeMo 2 and
 * Megatron-Bridge (megatron/bridge/training/mixed_precision.py:
 * bf16_mixed, bf16_with_fp8_delayed_scaling_mixed,
 * bf16_with_fp8_current_scaling_mixed, bf16_with_mxfp8_mixed,
 * bf16_with_fp8_subchannel_scaling_mixed, bf16_with_nvfp4_mixed; NeMo 2's
 * bf16_with_fp8_mixed is delayed scaling), and the recipe letters of their
 * performance scripts as their tables print them (scripts/performance
 * get_precision_config: fp8 with ds, cs, mx or ss: "FP8-CS"); PyTorch
 * Lightning's "bf16-mixed" and "16-mixed". */
static const struct {
    const char *key;
    pp_precision prec;
} precision_aliases[] = {
    {"bf16mixed", PP_PREC_BF16},
    {"bfloat16", PP_PREC_BF16},
    {"fp16mixed", PP_PREC_FP16},
    {"16mixed", PP_PREC_FP16},
    {"float16", PP_PREC_FP16},
    {"fp8ds", PP_PREC_FP8},
    {"fp8delayed", PP_PREC_FP8},
    {"fp8delayedscaling", PP_PREC_FP8},
    {"delayed", PP_PREC_FP8},
    {"bf16withfp8mixed", PP_PREC_FP8},
    {"bf16withfp8delayedscalingmixed", PP_PREC_FP8},
    {"fp8cs", PP_PREC_FP8_CURRENT},
    {"fp8currentscaling", PP_PREC_FP8_CURRENT},
    {"fp8tensorwise", PP_PREC_FP8_CURRENT},
    {"tensorwise", PP_PREC_FP8_CURRENT},
    {"bf16withfp8currentscalingmixed", PP_PREC_FP8_CURRENT},
    {"fp8mx", PP_PREC_MXFP8},
    {"bf16withmxfp8mixed", PP_PREC_MXFP8},
    {"bf16withnvfp4mixed", PP_PREC_NVFP4},
    {"fp8ss", PP_PREC_FP8_BLOCK},
    {"fp8blockwise", PP_PREC_FP8_BLOCK},
    {"blockwise", PP_PREC_FP8_BLOCK},
    {"fp8subchannelscaling", PP_PREC_FP8_BLOCK},
    {"bf16withfp8subchannelscalingmixed", PP_PREC_FP8_BLOCK},
};

bool pp_precision_alias(const char *text, pp_precision *prec)
{
    char key[64];
    pp_name_key(text, key, sizeof key);
    for (int p = 0; p < PP_PREC_COUNT; p++) {
        char own[64];
        pp_name_key(pp_precision_names[p], own, sizeof own);
        if (p != PP_PREC_FP32 && strcmp(key, own) == 0) {
            *prec = (pp_precision)p;
            return true;
        }
    }
    for (size_t i = 0; i < sizeof precision_aliases / sizeof precision_aliases[0]; i++)
        if (strcmp(key, precision_aliases[i].key) == 0) {
            *prec = precision_aliases[i].prec;
            return true;
        }
    return false;
}

/* The recipes (docs/cost-model.md section 10):
 *  - fp8: Transformer Engine's DelayedScaling, one scale per tensor from the
 *    amax history; E4M3 forward, E5M2 gradients (Format.HYBRID).  1 byte per
 *    element, tensor cores want K and N multiples of 16 (cuBLAS: 16-byte
 *    aligned rows).  Megatron-LM: --fp8-format hybrid, --fp8-recipe delayed
 *    (the default, so not printed: the flags stay those of earlier reports).
 *  - fp8-current: Float8CurrentScaling, the scale from the tensor's own amax
 *    (--fp8-recipe tensorwise); the same bytes and peak as fp8.
 *  - mxfp8: MXFP8BlockScaling, E4M3 with one 8-bit power-of-two scale per
 *    32 elements (OCP Microscaling Formats spec v1.0): 1 + 1/32 bytes; K a
 *    multiple of the 32-element block.  Blackwell only (Transformer Engine
 *    support matrix).  --fp8-format e4m3 --fp8-recipe mxfp8.
 *  - nvfp4: NVFP4BlockScaling, E2M1 with one E4M3 scale per 16 elements and
 *    an fp32 tensor scale: 0.5 + 1/16 bytes; K multiples of 32 (16-byte
 *    rows).  NVIDIA's recipe keeps about 16 % of the linear layers in bf16
 *    (NVFP4_BF16_FIRST and _LAST below).  Megatron-Core's
 *    low-precision guide lists --fp4-recipe nvfp4 beside --fp8-recipe; the
 *    --fp4-format e2m1 spelling follows Transformer Engine's Format.E2M1 and
 *    is not checked against Megatron-LM's argument parser.
 *  - fp8-block: Float8BlockScaling, the fine-grained scaling of DeepSeek-V3
 *    (arXiv 2412.19437 §3.3.2): one fp32 scale per 1x128 tile of an
 *    activation or gradient and per 128x128 block of a weight, found inside
 *    the cast: 1 + 4/128 bytes.  Megatron-LM --fp8-recipe blockwise (commit
 *    be8715de, April 2025: "NV subchannel recipe"; Transformer Engine >=
 *    2.3), Megatron-Bridge bf16_with_fp8_subchannel_scaling_mixed.  Hopper's
 *    tensor cores take one scale per operand, so the kernel applies the
 *    block scales to its fp32 partial sums in the main loop
 *    (CUTLASS PR 1932, "Blockwise Scaling for FP8": "it must be applied
 *    during the mainloop, impacting performance"): unscaled_core_rate 0.81,
 *    derived from Transformer Engine's GEMM profiling guide
 *    (docs/examples/gemm_profiling/gemm_profiling.rst at TransformerEngine
 *    8f2e6357, H200 NVL, a 5B model's 12 GEMMs of a layer at M = 15872):
 *    FP8Block 22.882 ms with its casts, less the casts' 2.19 ms (FP8Delayed
 *    18.978 ms with casts against 16.785 ms for the per-tensor kernels alone,
 *    FP8Current pre-quantized), is 20.69 ms against 16.785: 0.81.  FBGEMM's
 *    CUTLASS kernels on an H100 at 500 W (pytorch/FBGEMM PR 2546) give
 *    block 870, 828, 828 TFLOP/s against row-wise 1125, 1083, 1141 (0.73-0.77).
 *    Blackwell runs the recipe on its MX block-scaled tensor cores
 *    (Transformer Engine PR 2157), at the full rate. 
 * Megatron-Bridge names each recipe as a function of
 * src/megatron/bridge/training/mixed_precision.py (v0.2.2): bf16_mixed,
 * bf16_with_fp8_delayed_scaling_mixed, ..._current_scaling_mixed,
 * bf16_with_mxfp8_mixed, bf16_with_nvfp4_mixed.  The recipes set more than
 * the format, and MixedPrecisionConfig.setup copies every field it has onto
 * the model's config (update_config_with_precision_overrides), so a model
 * override cannot undo them: the delayed, current-scaling and MXFP8 recipes
 * gather the weights in fp8 (fp8_param_gather True), the current-scaling
 * one also keeps the first and the last block in bf16
 * (first_last_layers_bf16, num_layers_at_start_in_bf16 1,
 * num_layers_at_end_in_bf16 1), the sub-channel (block) and NVFP4 ones do
 * neither.  The bridge_* fields say so; the launch settings tell where they
 * differ from the plan. */
/* NVIDIA's NVFP4 pretraining recipe keeps the first two and the last eight
 * of its 12B model's 62 blocks in bf16 (arXiv 2509.25149, "selective
 * high-precision layers"): about 16 % of the linear layers' FLOPs, priced
 * so and launched so (Megatron-Core's --first-last-layers-bf16 with
 * --num-layers-at-start-in-bf16 and --num-layers-at-end-in-bf16, read by
 * megatron/core/fp4_utils.py get_fp4_context).  Neither Megatron-LM
 * (first_last_layers_bf16 false by default) nor Megatron-Bridge's
 * bf16_with_nvfp4_mixed keeps any unless told. */
#define NVFP4_BF16_FIRST (2.0 / 62.0)
/* A Blackwell NVFP4 GEMM does not reach its format's peak ratio over bf16
 * (4x on a B200) at a transformer's shapes: vLLM's CUTLASS NVFP4 kernels on
 * a B200 at Llama 3.1 8B's shapes (vllm-project/vllm pull request #20646,
 * 2025: M 16384, N 6144, K 4096) run 3904 TFLOP/s without the activation's
 * quantization (the casts are priced apart, lowp_cast_s) against 1360 for
 * bf16: 2.87x, 0.72 of the 4x.  Checked, not fitted: MLPerf Training
 * v6.0's HPE GB300 Llama 2 70B LoRA run switches from NVFP4 to FP8 at step
 * 360 (its config_GB300_2x4x1xtp1pp1cp1_fp4.sh: 0.72 s a step before, 1.02
 * after, 0.70, one block each end in bf16 throughout), which this rate
 * prices at 0.69 (NVIDIA's recipe's 16 % of bf16 blocks at the format's
 * full rate, how every NVFP4 run was priced before the forty-fifth landing,
 * 0.77; no bf16 blocks at the full rate, 0.60). */
#define NVFP4_CORE_RATE 0.72
#define NVFP4_BF16_LAST (8.0 / 62.0)

static const pp_precision_info precision_info[PP_PREC_COUNT] = {
    [PP_PREC_BF16] = {true, false, false, PP_PREC_BF16, 2.0, 8.0, 0.0, 0.0, 1.0, "--bf16", "bf16_mixed",
                      0.0, 0.0, 0, 0, false, 1.0},
    [PP_PREC_FP16] = {true, false, false, PP_PREC_FP16, 2.0, 8.0, 0.0, 0.0, 1.0, "--fp16", "fp16_mixed",
                      0.0, 0.0, 0, 0, false, 1.0},
    [PP_PREC_FP8] = {true, true, false, PP_PREC_FP8, 1.0, 16.0, 0.0, 0.0, 1.0,
                     "--bf16 --transformer-impl transformer_engine --fp8-format hybrid",
                     "bf16_with_fp8_delayed_scaling_mixed", 0.0, 0.0, 0, 0, true, 1.0},
    [PP_PREC_FP32] = {false, false, false, PP_PREC_FP32, 4.0, 4.0, 0.0, 0.0, 1.0, "--bf16", "bf16_mixed",
                      0.0, 0.0, 0, 0, false, 1.0},
    [PP_PREC_FP8_CURRENT] = {true, true, false, PP_PREC_FP8, 1.0, 16.0, 0.0, 1.0, 1.0,
                             "--bf16 --transformer-impl transformer_engine --fp8-format hybrid --fp8-recipe tensorwise",
                             "bf16_with_fp8_current_scaling_mixed", 0.0, 0.0, 1, 1, true, 1.0},
    [PP_PREC_MXFP8] = {true, true, true, PP_PREC_MXFP8, 1.0 + 1.0 / 32.0, 32.0, 0.0, 0.0, 1.0,
                       "--bf16 --transformer-impl transformer_engine --fp8-format e4m3 --fp8-recipe mxfp8",
                       "bf16_with_mxfp8_mixed", 0.0, 0.0, 0, 0, true, 1.0},
    [PP_PREC_NVFP4] = {true, true, true, PP_PREC_NVFP4, 0.5 + 1.0 / 16.0, 32.0, NVFP4_BF16_FIRST + NVFP4_BF16_LAST,
                       1.0, 1.0, "--bf16 --transformer-impl transformer_engine --fp4-format e2m1 --fp4-recipe nvfp4",
                       "bf16_with_nvfp4_mixed", NVFP4_BF16_FIRST, NVFP4_BF16_LAST, 0, 0, false, NVFP4_CORE_RATE},
    [PP_PREC_FP8_BLOCK] = {true, true, false, PP_PREC_FP8, 1.0 + 4.0 / 128.0, 16.0, 0.0, 0.0, 0.81,
                           "--bf16 --transformer-impl transformer_engine --fp8-format hybrid --fp8-recipe blockwise",
                           "bf16_with_fp8_subchannel_scaling_mixed", 0.0, 0.0, 0, 0, false, 1.0},
};

const pp_precision_info *pp_precision_props(pp_precision p)
{
    return (int)p >= 0 && p < PP_PREC_COUNT ? &precision_info[p] : &precision_info[PP_PREC_BF16];
}
