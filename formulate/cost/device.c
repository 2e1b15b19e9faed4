/*
 * device.c: what one GPU offers the cost model, whatever runs on it
 * (docs/cost-model.md §2 and §5): its dense peak at a precision, its
 * sustained HBM rate, the bytes a precision's GEMM operands and weights take,
 * and the share of its SMs communication kernels take while they overlap
 * computation.
 *
 *   peak(prec) = peak_tflops[prec] x 1e12 / eff.compute_scale   (the 16-bit peak if it has none)
 *   GEMM rate  = 1, or a block-scaled recipe's share on tensor cores without block scales
 *   HBM        = hbm_GBps x 1e9 x eff.hbm / eff.compute_scale
 *   SM share   = min(0.5, 20 SMs per 50 GB/s of NIC / sm_count)   (DeepSeek-V3 §3.2.1)
 *
 * A GEMM input's bytes follow the training's recipe (names.h
 * pp_precision_info: fp8 casts, MXFP8 and NVFP4 block scales, the layers a
 * recipe keeps in bf16); weights are 16-bit unless Transformer Engine holds
 * them in fp8 (fp8_params).  The ground floor of cost/: it calls no other
 * module of the cost model.
 */
#include "cost_ground.h"

#include <math.h>

/* A software stack's level (eff.compute_scale): a team that calibrates from
 * the shipped fit on its own steps gets, beside the physical parameters its
 * rows move, the mean level they leave (solve/calibrate.c, fit_stack_level):
 * its kernels' FLOP and HBM time run that much longer (or shorter), its
 * collectives and fixed launch costs do not.  1 unless calibrated; an
 * unset (zero) scale is 1. */
static double stack_level(const pp_gpu *gpu)
{
    return gpu->eff.compute_scale > 0.0 ? gpu->eff.compute_scale : 1.0;
}

/* The GPU's dense peak at a precision, FLOP/s, as its stack reaches it; the
 * 16-bit peak if it has none. */
double gpu_peak_flops(const pp_gpu *gpu, pp_precision prec)
{
    double tf = gpu->peak_tflops[prec];
    if (tf <= 0.0)
        tf = gpu->peak_tflops[PP_PREC_BF16] > 0 ? gpu->peak_tflops[PP_PREC_BF16] : gpu->peak_tflops[PP_PREC_FP16];
    return tf * 1e12 / stack_level(gpu);
}

/* The share of a per-tensor-scaled GEMM's throughput the recipe's GEMMs
 * reach on this GPU: a block-scaled recipe loses some on tensor cores that
 * take one scale per operand (names.h unscaled_core_rate); a GPU with MX
 * block-scaled tensor cores (an mxfp8 peak: Blackwell) runs them at the
 * rate measured for the format (block_core_rate: NVFP4's 0.72, names.c;
 * MXFP8 and the 8-bit recipes lose nothing). */
double pp_gemm_core_rate(const pp_gpu *gpu, pp_precision prec)
{
    const pp_precision_info *info = pp_precision_props(prec);
    if (gpu->peak_tflops[PP_PREC_MXFP8] > 0)
        return info->block_core_rate;
    return info->unscaled_core_rate;
}

double peak_flops(const pp_problem *prob, pp_precision prec)
{
    return gpu_peak_flops(&prob->cluster.gpu, prec);
}

/* Precision of the attention core and of element-wise work: 16-bit. */
pp_precision half_precision(const pp_problem *prob)
{
    return prob->cluster.gpu.peak_tflops[PP_PREC_BF16] > 0 ? PP_PREC_BF16 : PP_PREC_FP16;
}

double gpu_hbm_Bps(const pp_gpu *gpu)
{
    return gpu->hbm_GBps * 1e9 * gpu->eff.hbm / stack_level(gpu);
}

double hbm_Bps(const pp_problem *prob)
{
    return gpu_hbm_Bps(&prob->cluster.gpu);
}

/* Bytes per element of a GEMM input in a precision: the recipe's cast (its
 * block scales included); 16-bit GEMMs read bf16/fp16 (ACT_BYTES). */
double precision_input_bytes(pp_precision prec)
{
    const pp_precision_info *info = pp_precision_props(prec);
    return info->low_gemm ? info->gemm_input_bytes : ACT_BYTES;
}

/* The share of the transformer blocks a low-precision recipe keeps in bf16
 * (training.bf16_layers_first/_last over the model's blocks, resolved when
 * the problem is read; a training built in code without them takes the
 * recipe's own, names.c); 0 under a 16-bit recipe. */
double bf16_layer_share(const pp_training *t)
{
    const pp_precision_info *info = pp_precision_props(t->precision);
    if (!info->low_gemm)
        return 0.0;
    return t->bf16_layers_resolved ? t->bf16_share : info->high_precision_fraction;
}

/* Bytes per element of a linear layer's GEMM input, as stored for the
 * backward pass and read by the kernel: the recipe's cast (its block scales
 * included), blended with bf16 for the blocks the recipe keeps in bf16;
 * 16-bit training keeps the bf16/fp16 input (ACT_BYTES). */
double gemm_input_bytes(const pp_training *t)
{
    double hp = bf16_layer_share(t), lowp = precision_input_bytes(t->precision);
    return hp > 0.0 ? (1.0 - hp) * lowp + hp * ACT_BYTES : lowp;
}

double adam_moment_bytes(const pp_training *t)
{
    return t->moment_bytes > 0 ? t->moment_bytes : 4.0;
}

double weight_bytes(const pp_training *t)
{
    /* fp8_params: Transformer Engine's Float8Tensor weights, cast once a
     * step by the optimizer's update (Megatron-Core --fp8-param-gather); the
     * fp32 master copy stays in the optimizer state */
    const pp_precision_info *info = pp_precision_props(t->precision);
    if (!t->fp8_params || !info->low_gemm)
        return ACT_BYTES;
    /* A frozen weight (LoRA) quantized once to a block-scaled format holds
     * both casts for good: the forward GEMM reads it scaled along its rows
     * and the input-gradient GEMM along its columns, and a block's scales run
     * one way only.  MLPerf Training v5.1's NVFP4 LoRA (NVIDIA's
     * llama2_70b_lora, custom_callbacks.py _get_quantized_params_cpu, with
     * PRE_QUANTIZED_MODEL=True) replaces each frozen weight on the GPU by its
     * NVFP4 tensor and asserts both its rowwise and its columnwise data. */
    if (t->lora_rank > 0 && info->blackwell_only) {
        double hp = bf16_layer_share(t);
        return (1.0 - hp) * 2.0 * info->gemm_input_bytes + hp * ACT_BYTES;
    }
    return gemm_input_bytes(t);
}

/* Communication that overlaps computation is not free: its kernels run on
 * SMs the computation then lacks.  DeepSeek-V3 (arXiv 2412.19437, §3.2.1)
 * needed 20 of the H800's 132 SMs to drive its 50 GB/s of InfiniBand per
 * GPU (and the NVLink behind it) at full bandwidth; NCCL's kernels take a
 * comparable share (NCCL_MAX_CTAS, 32 by default, NCCL environment
 * variables documentation).  The SMs a GPU needs scale with the bandwidth
 * its NIC drives: 20 per 50 GB/s, so 20 on H100 at 400 Gb/s, 10 on A100 at
 * 200 Gb/s, 2.5 on a V100 with a 50 Gb/s share of EDR.  While DP traffic
 * is hidden behind the backward pass the GPU computes on the rest: the
 * hidden seconds cost SMs / sm_count of themselves. */
#define COMM_SMS_PER_NIC_GBps (20.0 / 50.0)

double pp_comm_sm_share(const pp_problem *prob)
{
    int sms = prob->cluster.gpu.sm_count;
    /* the GPU's own NIC (gpus.json), not the problem's link figures: a what-if
     * with faster links moves the same bytes on the same kernels */
    double need = COMM_SMS_PER_NIC_GBps * prob->cluster.gpu.network_Gbps / 8.0;
    return sms > 0 && need > 0.0 ? fmin(0.5, need / sms) : 0.0;
}
