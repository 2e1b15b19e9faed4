/*
 * kernels.c: the kernels of one layer's micro-batch on one GPU: matrix
 * multiplies, the attention core, element-wise work, the casts of
 * low-precision recipes and LoRA's adapters (docs/cost-model.md §2).  The
 * stage term (stage.c) adds them up into a layer's forward, backward and
 * recomputation.
 *
 * Every matrix multiply is a roofline plus its launch:
 *
 *   max(2 M K N / (peak x eff.gemm), operand bytes / (HBM x eff.hbm)) + kernel_us
 *
 * split by t in 1D, and as SUMMA or 3D split them on a 2D/2.5D/3D grid
 * (Bian et al. 2021; docs §8).  The attention core runs at eff.attention of
 * the 16-bit peak (plus the s x s softmax traffic without fused attention),
 * element-wise work is HBM traffic.  A linear layer's backward is its data
 * and weight gradients, each a product of its own shape (linear_bwd_s).
 * Multi-head latent attention's query and key/value projections are a chain
 * of low-rank products (mla_qkv_gemm_s).
 */
#include "cost_kernels.h"

#include <math.h>

/* Element-wise HBM traffic, bytes per element per forward pass (§2.3 of the doc):
 * two LayerNorms (read + write), two fused bias-dropout-add (read x, read
 * residual, write, 1-byte mask), bias/rotary: 13 passes over h-wide tensors. */
#define ELEMWISE_H_BYTES 26.0
#define ELEMWISE_F_BYTES 4.0        /* activation function: read + write an f-wide tensor */
#define ELEMWISE_SOFTMAX_BYTES 9.0  /* scale-mask-softmax + dropout on the s x s scores */
#define ELEMWISE_KERNELS_FWD 8.0    /* element-wise kernels launched per layer forward */
#define RMSNORM_BYTES 4.0           /* a fused RMSNorm: read + write an h-wide row, 16 bits */
#define ROPE_BYTES 4.0              /* RoPE on a rotary part: read + write, 16 bits */
#define FP8_STORE_CAST_BYTES 3.0    /* bf16 to fp8 or back: read 2 + write 1, or read 1 + write 2 */
/* Eager PyTorch (no torch.compile, no fused kernels: torchtitan's eager
 * mode) runs every element-wise op of a block as its own kernel through
 * HBM.  Bytes per element over the fused kernels above, forward, counted
 * from the ops of the Llama block as torchtitan writes it
 * (torchtitan/models/llama/model.py, Dec 2024) and PyTorch's composite
 * rms_norm (computed in fp32):
 *   RMSNorm: upcast (read 2, write 4), square (4+4), mean (4), x * rsqrt
 *   (4+4), * weight (4+4), cast back (4+2) = 40 bytes, the fused kernel 4:
 *   +36 a norm, two a layer;
 *   rotary on q and k: upcast (2+4), complex multiply (4+4), cast back
 *   (4+2) = 20, fused 4: +16 an element;
 *   SwiGLU: silu (2+2), then the product (4+2) = 10 an f element, fused 6: +4.
 * Gated-MLP models are priced as this Llama block (RMSNorm, rotary); the
 * others as a GPT block, whose LayerNorm and GeLU are one native kernel
 * each in eager PyTorch and which loses only the fused bias-dropout-add:
 * bias (2+2), dropout (2+2, mask 1), add (4+2) = 15 against 7, +8 a
 * residual, two a layer.  Kernels launched: +16 a Llama layer forward
 * (six per norm for one, three per rotary tensor for one, two for one),
 * +4 a GPT layer. */
#define EAGER_RMSNORM_BYTES 36.0
#define EAGER_ROTARY_BYTES 16.0
#define EAGER_GLU_BYTES 4.0
#define EAGER_BDA_BYTES 8.0
#define EAGER_KERNELS_LLAMA 16.0
#define EAGER_RMSNORM_KERNELS 5.0 /* of them, each norm's: six kernels for one */
#define EAGER_KERNELS_GPT 4.0
/* Unfused attention in eager PyTorch (BERT as NVIDIA's DeepLearningExamples
 * writes it, modeling.py BertSelfAttention): the scores are scaled (2+2),
 * masked (2+2), soft-maxed (2+2) and dropped out (2+2, mask 1) by four
 * kernels, 17 bytes an element, where the fused scale-mask-softmax and
 * dropout move 9 in two: +8 bytes and +2 kernels. */
#define EAGER_SOFTMAX_BYTES 8.0
#define EAGER_SOFTMAX_KERNELS 2.0

/* How much of the GPU one matrix multiply's shape can keep busy (NVIDIA,
 * "Matrix Multiplication Background User's Guide": tile and wave
 * quantization, dimension alignment):
 *   - the output is cut into GEMM_TILE x GEMM_TILE tiles, one thread block
 *     each, and a tile costs the same whatever part of it the output fills:
 *     m x n of the padded ceil(m/T) T x ceil(n/T) T is useful (tile
 *     quantization; a dimension under one tile is padded to a step of 16,
 *     tile_padded);
 *   - the blocks run in waves of one per SM: a last partial wave idles the
 *     rest (tiles / (waves x SMs));
 *   - every tile walks K in steps; the pipeline's fill and the epilogue cost
 *     about eff.gemm_k_overhead more elements of K (K / (K + gemm_k_overhead),
 *     64 unless calibrated);
 *   - tensor cores need K and N multiples of 8 elements in 16 bits (16 in
 *     fp8); cuBLAS runs misaligned shapes on slower kernels, at
 *     eff.gemm_misaligned of the rate (0.5 unless calibrated).
 * Large aligned shapes come out near 1; the fitted eff.gemm is then the
 * best a kernel reaches.  With both quantizations the time is the waves
 * times a tile's time, so it never falls as m or n grows (a grouped GEMM
 * of a busier expert, moe.c, is never faster). */
#define GEMM_TILE 128.0

/* Split-K: a GEMM whose output has too few tiles to fill the SMs' waves
 * (a weight gradient's h x h output over a long reduction of tokens) cuts
 * the shared dimension K into `split` slices, one thread block per tile and
 * slice; every slice writes its partial sums in the accumulator's fp32 to
 * a workspace, and a second kernel adds them and writes the output
 * (cuBLASLt's CUBLASLT_ALGO_CONFIG_SPLITK_NUM with the
 * CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE workspace; CUTLASS's
 * GemmSplitKParallel and ReduceSplitK).  Each slice pays the tile's K
 * overhead again, the partial sums cost HBM traffic and the reduction a
 * launch, so the library takes the split only where the fuller waves pay
 * for them; the model does the same, choosing the fastest of 1 to
 * SPLIT_K_MAX slices of at least SPLIT_K_MIN_SLICE elements of K. */
#define SPLIT_K_MAX 8
#define SPLIT_K_MIN_SLICE 256.0
#define SPLIT_K_PARTIAL_BYTES 4.0 /* fp32 partial sums: written by the GEMM, read by the reduction */

/* A dimension of x elements as the output's tiles cover it: whole tiles of
 * GEMM_TILE from one tile up; below it the library takes a tile that fits
 * (cuBLAS and CUTLASS tile extents come in steps of GEMM_TILE_STEP), so a
 * narrow output (a LoRA adapter's rank, a head's width) is not charged a
 * full tile. */
#define GEMM_TILE_STEP 16.0

static double tile_padded(double x)
{
    double t = x < GEMM_TILE ? GEMM_TILE_STEP : GEMM_TILE;
    return ceil(x / t) * t;
}

/* What every configuration of one GEMM shares: its FLOPs at the ceiling
 * (work_s, before the shape's shares), its operand bytes, output elements,
 * the alignment share and the tile count of one slice of K. */
typedef struct gemm_shape {
    double work_s, in_bytes, out_elems, align_share, tile_share, tiles, k, k0, sms, hbm_Bps, launch_s;
} gemm_shape;

/* Whether x is no multiple of a, as fmod(x, a) != 0 says, without fmod's
 * long division: x / a, its floor and a times it are exact when a is a
 * power of two, as every precision's alignment is (names.c; tested). */
static bool misaligned(double x, double a)
{
    return x - a * floor(x / a) != 0.0;
}

static void gemm_shape_of(const pp_gpu *gpu, pp_precision prec, double m, double n, double k, double batch,
                          gemm_shape *g)
{
    const pp_efficiency *e = &gpu->eff;
    const pp_precision_info *info = pp_precision_props(prec);
    double flops = 2.0 * batch * m * k * n;
    g->work_s = flops / (gpu_peak_flops(gpu, prec) * e->gemm * pp_gemm_core_rate(gpu, prec));
    g->in_bytes = batch * precision_input_bytes(prec) * (m * k + k * n);
    g->out_elems = batch * m * n;
    g->align_share = misaligned(k, info->align_elems) || misaligned(n, info->align_elems) ? e->gemm_misaligned : 1.0;
    g->tiles = batch * ceil(m / GEMM_TILE) * ceil(n / GEMM_TILE);
    g->tile_share = m * n / (tile_padded(m) * tile_padded(n));
    g->k = k;
    g->k0 = e->gemm_k_overhead;
    g->sms = gpu->sm_count;
    g->hbm_Bps = gpu_hbm_Bps(gpu);
    g->launch_s = e->kernel_us * 1e-6;
}

/* The configuration of `split` slices of K per output tile. */
static void gemm_config(const gemm_shape *g, int split, pp_gemm_terms *t)
{
    double slice = g->k / split;
    t->split_k = split;
    t->k_share = slice / (slice + g->k0);
    t->wave_share = 1.0;
    if (g->sms > 0) {
        double tiles = split * g->tiles;
        t->wave_share = tiles / (ceil(tiles / g->sms) * g->sms);
    }
    t->align_share = g->align_share;
    t->tile_share = g->tile_share;
    t->flops_s = g->work_s / (t->k_share * t->tile_share * t->wave_share * t->align_share);
    double out_bytes = split > 1 ? SPLIT_K_PARTIAL_BYTES * split : ACT_BYTES;
    t->bytes_s = (g->in_bytes + out_bytes * g->out_elems) / g->hbm_Bps;
    t->launch_s = g->launch_s;
    t->reduce_s = 0.0;
    if (split > 1)
        t->reduce_s = g->out_elems * (SPLIT_K_PARTIAL_BYTES * split + ACT_BYTES) / g->hbm_Bps + g->launch_s;
    t->time_s = fmax(t->flops_s, t->bytes_s) + t->launch_s + t->reduce_s;
}

/* batch independent (m x k) @ (k x n) products in one kernel: the slower of
 * their FLOPs at the sustained tensor-core rate for the shape and their
 * operand traffic through HBM (a roofline), plus a fixed launch cost, in the
 * fastest split of K.  Small shapes (high TP degree, small micro-batch) lose
 * to wave quantization or fall onto the memory side of the roofline.  The
 * one GEMM formula: the stage term prices every matrix multiply with it, and
 * `parplan calibrate --gemm-sweep` fits eff.gemm and the shape terms to
 * measured GEMMs with it. */
void pp_gemm_terms_of(const pp_gpu *gpu, pp_precision prec, double m, double n, double k, double batch,
                      pp_gemm_terms *t)
{
    gemm_shape g;
    gemm_shape_of(gpu, prec, m, n, k, batch, &g);
    gemm_config(&g, 1, t);
    if (g.sms <= 0)
        return;
    for (int split = 2; split <= SPLIT_K_MAX && k / split >= SPLIT_K_MIN_SLICE; split++) {
        /* full waves are the best a split can reach, while its K overhead,
         * partial sums and reduction only grow with it: once that bound
         * cannot beat the best, no larger split can either */
        double slice = k / split, out_bytes = g.out_elems * SPLIT_K_PARTIAL_BYTES * split;
        double bound = fmax(g.work_s * (slice + g.k0) / (slice * g.tile_share * g.align_share),
                            (g.in_bytes + out_bytes) / g.hbm_Bps) +
                       2.0 * g.launch_s + (out_bytes + g.out_elems * ACT_BYTES) / g.hbm_Bps;
        if (bound >= t->time_s)
            break;
        pp_gemm_terms c;
        gemm_config(&g, split, &c);
        if (c.time_s < t->time_s)
            *t = c;
    }
}

double pp_gemm_time_s(const pp_gpu *gpu, pp_precision prec, double m, double n, double k, double batch)
{
    pp_gemm_terms t;
    pp_gemm_terms_of(gpu, prec, m, n, k, batch, &t);
    return t.time_s;
}

/* One matrix multiply (M x K) @ (K x N) at precision prec. */
static double gemm_at_s(const pp_problem *prob, pp_precision prec, double M, double K, double N)
{
    return pp_gemm_time_s(&prob->cluster.gpu, prec, M, N, K, 1.0);
}

/* A transformer block's GEMM time over the model's blocks: the recipe's
 * format in most, bf16 in the share the recipe keeps in bf16
 * (training.bf16_layers_first/_last: whole blocks, so each of their GEMMs
 * runs at the 16-bit rate on its own shape). */
static double blocks_blend_s(const pp_problem *prob, double lowp_s, double bf16_s)
{
    double hp = bf16_layer_share(&prob->training);
    return hp > 0.0 ? (1.0 - hp) * lowp_s + hp * bf16_s : lowp_s;
}

/* batch (m x k) @ (k x n) products of a transformer block in one kernel
 * (kernels.c pp_gemm_time_s), at the training precision over the blocks. */
double layer_gemm_s(const pp_problem *prob, double m, double n, double k, double batch)
{
    const pp_gpu *gpu = &prob->cluster.gpu;
    pp_precision prec = prob->training.precision;
    double lowp = pp_gemm_time_s(gpu, prec, m, n, k, batch);
    if (bf16_layer_share(&prob->training) <= 0.0)
        return lowp;
    return blocks_blend_s(prob, lowp, pp_gemm_time_s(gpu, half_precision(prob), m, n, k, batch));
}

/* One matrix multiply (M x K) @ (K x N) of the training precision. */
double gemm_time_s(const pp_problem *prob, double M, double K, double N)
{
    return layer_gemm_s(prob, M, N, K, 1.0);
}

/* The backward of a linear layer y = x W, x (M x K) and W (K x N), as two
 * matrix multiplies of their own shapes: the data gradient dy W^T, an
 * (M x N) @ (N x K) product, and, unless the weight is frozen, the weight
 * gradient x^T dy, a (K x M) @ (M x N) product that reduces over the M
 * token rows.  They equal the forward's FLOPs each, but not its time: their
 * output tiles (M x K and K x N against the forward's M x N) fill the SMs'
 * waves differently, and the weight gradient's long reduction over the
 * tokens amortizes its K overhead.  (Narayanan et al. 2021, arXiv
 * 2104.04473, appendix "Floating-Point Operations": the backward doubles
 * the forward's FLOPs, for the gradients of both the input and the weight;
 * these are those two products written out.) */
static double linear_bwd_at_s(const pp_problem *prob, pp_precision prec, double M, double K, double N, bool frozen)
{
    double dgrad = gemm_at_s(prob, prec, M, N, K);
    return frozen ? dgrad : dgrad + gemm_at_s(prob, prec, K, M, N);
}

double linear_bwd_s(const pp_problem *prob, double M, double K, double N, bool frozen)
{
    double lowp = linear_bwd_at_s(prob, prob->training.precision, M, K, N, frozen);
    if (bf16_layer_share(&prob->training) <= 0.0)
        return lowp;
    return blocks_blend_s(prob, lowp, linear_bwd_at_s(prob, half_precision(prob), M, K, N, frozen));
}

/* The output layer stays in 16 bits when the transformer layers run fp8 or
 * fp4: Megatron-Core builds it as its own tensor_parallel.ColumnParallelLinear,
 * outside Transformer Engine's fp8 autocast (megatron/core/models/gpt/
 * gpt_model.py; an MXFP8 LM head is opt-in, --fp8-output-proj, since
 * 2026-05, NVIDIA/Megatron-LM#4825), so NeMo's and Megatron-Bridge's
 * recipes run it in bf16; torchtitan's float8 configurations leave
 * "output" out of the conversion (filter_fqns, torchtitan/components/
 * quantization/float8.md). */
static pp_precision head_precision(const pp_problem *prob)
{
    pp_precision p = prob->training.precision;
    return p == PP_PREC_FP32 || p == PP_PREC_BF16 || p == PP_PREC_FP16 ? p : half_precision(prob);
}

double head_gemm_s(const pp_problem *prob, double M, double K, double N)
{
    return gemm_at_s(prob, head_precision(prob), M, K, N);
}

double head_bwd_s(const pp_problem *prob, double M, double K, double N, bool frozen)
{
    return linear_bwd_at_s(prob, head_precision(prob), M, K, N, frozen);
}

/* The attention kernel's generation: eff.attention is what FlashAttention-2
 * class kernels reach.  A FlashAttention-3 class kernel (Hopper only) uses
 * the asynchronous tensor cores: 1.5-2.0x FlashAttention-2 in bf16, up to
 * 740 TFLOP/s, 75 % of the H100 peak (Shah et al. 2024, arXiv 2407.08608,
 * Fig. 1 and section 4.1).  Unless the problem names the kernel
 * (training.attention_kernel), each framework runs its own: Megatron-Core
 * on Hopper (a GPU with fp8 tensor cores) Transformer Engine's cuDNN fused
 * attention, a FlashAttention-3 class kernel; PyTorch SDPA in
 * FSDP/torchtitan and DeepSpeed FlashAttention-2. */
#define FA3_SPEEDUP 1.75
#define FA3_PEAK_FRACTION 0.75

/* A FlashAttention kernel walks, for each tile of queries, the keys they
 * attend, then rescales and writes the tile's output and log-sum-exp: a
 * fixed cost per tile worth about x keys of its loop, so queries that
 * attend L keys on average run at L / (L + x) of the long-sequence rate
 * eff.attention stands for.  A causal mask's queries attend half the span
 * on average.  x is the implementation's, fitted (least squares in log
 * rate, the long-sequence rate free) to its forward at head dimension 128
 * on an H100, 512 to 16k keys:
 *
 *   FlashAttention-3 (the flash-attn package's Hopper kernel)   240
 *     pytorch/benchmark commit ff65cb67 ("Fix dimension order for
 *     FlashAttention-3", D60117034; batch x sequence 16k tokens): 430,
 *     517, 566, 590, 614, 621 TFLOP/s, each within 1.5 %; the paper's
 *     own bars fit 209 (Shah et al. 2024, arXiv 2407.08608, Fig. 5:
 *     467, 565, 625, 638, 646, 648)
 *   cuDNN's fused attention (Transformer Engine's FusedAttention,
 *   Megatron-Core's --attention-backend fused)                   110
 *     the same figure's cuDNN bars: 497, 574, 617, 609, 600, 595
 *     (within 5 %; it peaks at 2k), 0.82 of its rate at 512 keys
 *     where FlashAttention-3 reaches 0.72
 *   FlashAttention-2 (the flash-attn package; PyTorch SDPA's flash
 *   backend, DeepSpeed)                                           100
 *     the same figure's FlashAttention-2 bars: 309, 350, 362, 368,
 *     370, 370 (within 2.5 %)
 *
 * FlashAttention-1 class kernels take FlashAttention-2's: no sweep of
 * theirs is cited, and their rate is set by FA1_SLOWDOWN below. */
#define ATTN_TILE_KEYS_FA3 240.0
#define ATTN_TILE_KEYS_CUDNN 110.0
#define ATTN_TILE_KEYS_FA2 100.0

static pp_attention_kernel attention_kernel_run(const pp_problem *prob);

/* The tile's fixed cost, in keys, of the kernel a problem runs: Megatron-Core
 * runs its FlashAttention-3 class kernel as cuDNN's (launch.c: "fused"). */
double attention_tile_keys(const pp_problem *prob)
{
    pp_attention_kernel k = attention_kernel_run(prob);
    if (k == PP_ATTN_FLASH3)
        return prob->training.framework == PP_FW_MEGATRON_CORE ? ATTN_TILE_KEYS_CUDNN : ATTN_TILE_KEYS_FA3;
    return ATTN_TILE_KEYS_FA2;
}

double attention_tile_share(const pp_problem *prob, double keys)
{
    return keys > 0.0 ? keys / (keys + attention_tile_keys(prob)) : 1.0;
}

/* Under a causal mask a fused kernel computes only the key blocks on or
 * below the diagonal and skips the rest (Dao 2023, FlashAttention-2, arXiv
 * 2307.08691 §3.1.1: "we skip the computation of blocks where all entries
 * are masked", 1.7-1.8x over running them; FlashAttention-3 the same):
 * query block i of n = span / ATTN_CAUSAL_BLOCK runs the keys up to its
 * last row, (i + 1) ATTN_CAUSAL_BLOCK of them, so the kernel runs
 * (n + 1) / (2 n) = 0.5 + ATTN_CAUSAL_BLOCK / (2 span) of the full square
 * that pp_attention_core_fwd_flops counts (as Megatron-LM did before March
 * 2025).  128: the query block of FlashAttention-2's and -3's forward at
 * head dimension 128 on A100 and H100 (kBlockM; Dao-AILab/flash-attention
 * csrc/flash_attn/src/flash_fwd_launch_template.h run_mha_fwd_hdim128,
 * Flash_fwd_kernel_traits<128, 128, 64, 4>).
 * A causal LM is a model whose every position predicts a token
 * (loss_token_fraction 1); a masked LM (BERT) attends both ways and runs
 * the full square.  Unfused attention (baddbmm) computes the full square
 * and masks it afterwards. */
#define ATTN_CAUSAL_BLOCK 128.0

/* The fused kernel's backward recomputes the scores and runs four more
 * products (S = QK^T, dP = dO V^T, dV = P^T dO, dQ = dS K, dK = dS^T Q):
 * 2.5 times the forward's FLOPs, as FlashAttention's benchmarks count them
 * (benchmarks/benchmark_flash_attention.py, flops(): "2.5 * f" for mode
 * "bwd"), at the backward's own rate, 0.87 of the forward's at head
 * dimension 128 in both generations' bars (FlashAttention-3, arXiv
 * 2407.08608 Figs. 5-6: 561 against 648 TFLOP/s; FlashAttention-2 on the
 * same H100: 322 against 370).  eff.attention is the forward's rate in
 * those benchmarks' count (the causal half, 4 s^2 d a head), the unit of
 * its bounds. */
#define ATTN_BWD_FLOPS 2.5
#define ATTN_BWD_RATE 0.87

static bool causal_lm(const pp_model *m)
{
    return !(m->loss_token_fraction > 0.0 && m->loss_token_fraction < 1.0);
}

double attention_causal_share(const pp_model *m, double span)
{
    if (!causal_lm(m) || span <= ATTN_CAUSAL_BLOCK)
        return 1.0;
    return 0.5 + 0.5 * ATTN_CAUSAL_BLOCK / span;
}

/* The fused kernels of 2022-23 (FlashAttention-1, its Triton version,
 * xformers' kernels), which a problem names as attention_kernel "flash1":
 * FlashAttention-2 is "around 2x faster than FlashAttention" (Dao 2023,
 * arXiv 2307.08691, abstract; §4.1: 1.7-3.0x over FlashAttention,
 * 1.3-2.5x over FlashAttention in Triton), so they run at half the
 * FlashAttention-2 class rate eff.attention stands for. */
#define FA1_SLOWDOWN 2.0

/* The fused kernel that runs: FlashAttention-3 class only on Hopper. */
static pp_attention_kernel attention_kernel_run(const pp_problem *prob)
{
    bool hopper = prob->cluster.gpu.peak_tflops[PP_PREC_FP8] > 0.0;
    pp_attention_kernel k = prob->training.attention_kernel;
    if (k == PP_ATTN_AUTO)
        k = hopper && prob->training.framework == PP_FW_MEGATRON_CORE ? PP_ATTN_FLASH3 : PP_ATTN_FLASH2;
    if (k == PP_ATTN_FLASH1)
        return k;
    return k == PP_ATTN_FLASH3 && hopper ? PP_ATTN_FLASH3 : PP_ATTN_FLASH2;
}

static double attention_efficiency(const pp_problem *prob, pp_attention_kernel k)
{
    double e = prob->cluster.gpu.eff.attention;
    if (k == PP_ATTN_FLASH1)
        return e / FA1_SLOWDOWN;
    return k == PP_ATTN_FLASH3 ? fmin(FA3_PEAK_FRACTION, FA3_SPEEDUP * e) : e;
}

pp_attention_kernel pp_attention_kernel_of(const pp_problem *prob, double *rate)
{
    pp_attention_kernel k = attention_kernel_run(prob);
    *rate = attention_efficiency(prob, k);
    return k;
}

/* The head dimension.  A fused kernel is compiled for a few head
 * dimensions and runs a head on the smallest that holds it, computing on
 * the padding: FlashAttention-2 rounds up to a multiple of 32 (to 256 above
 * 192), FlashAttention-3 to 64, 96, 128, 192 or 256 (Dao-AILab/
 * flash-attention, csrc/flash_attn/flash_api.cpp head_size_rounded and
 * hopper/flash_api.cpp round_up_headdim).  And per score element a tile
 * pays work that does not grow with the head dimension (the softmax's
 * exponentials, the running max and rescaling), worth x elements of its
 * matrix products, so a head of d runs at d / (d + x) of the rate of
 * long heads: FlashAttention-3's 16k-token bf16 bars on an H100 (Shah et
 * al. 2024, arXiv 2407.08608, Figs. 5 and 6: forward 497 and 648 TFLOP/s
 * at head dimension 64 and 128, backward 474 and 561) give x = 56 forward
 * and 29 backward; FlashAttention-2's (324 and 370, 291 and 322) x = 21
 * and 15.  The rates are the fitted eff.attention's at 128, the head
 * dimension of nearly every calibration row, so shares are relative to
 * it; above 128 the figures part ways (FlashAttention-3 gains 4-17 %,
 * cuDNN loses up to 6 %, FlashAttention-2 12 %), so a longer head keeps
 * the rate of 128.
 *
 * That per-score work runs on the special-function units (the softmax's
 * exponential, MUFU.EX2) and the CUDA cores, not on the tensor cores, so x,
 * measured in elements of an H100's matrix products, grows with a GPU's
 * tensor FLOPs per exponential (pp_gpu_attention_balance; the H100's 989
 * TFLOP/s against 3.9 TFLOPS of special functions, Shah et al. 2024, arXiv
 * 2407.08608 §3): from Hopper to Blackwell the tensor cores doubled while
 * the exponential units stayed at 16 per SM and clock ("asymmetric
 * hardware scaling", Zadouri et al. 2026, "FlashAttention-4", Together AI's
 * blog post of the paper: on a B200 the forward is bound by the
 * exponentials, and cuDNN 9.13 runs up to 1.3x slower than
 * FlashAttention-4's 1,605 TFLOP/s); Blackwell Ultra doubled them (5 and
 * 10.7 TeraExponentials/s, gpus.json sfu_exp_tops).  A rate
 * fitted on one GPU is its rate at 128 under that GPU's x; another GPU
 * borrowing it (gpus.json efficiency_borrow) runs its own x from the
 * fitted one's matrix-product rate: share (128 + x_fit) / (d + x_gpu). */
#define ATTN_HDIM_REF 128.0
static const double ATTN_HDIM_X[2][2] = {{21.0, 15.0}, {56.0, 29.0}}; /* [FA3 class][backward] */

static double fused_head_dim(pp_attention_kernel k, double d)
{
    static const double fa3_dims[] = {64.0, 96.0, 128.0, 192.0, 256.0};
    if (k == PP_ATTN_FLASH3) {
        for (size_t i = 0; i < sizeof fa3_dims / sizeof fa3_dims[0]; i++)
            if (d <= fa3_dims[i])
                return fa3_dims[i];
        return 256.0;
    }
    return d <= 192.0 ? 32.0 * ceil(d / 32.0) : 256.0;
}

double attention_head_dim_share(const pp_gpu *gpu, pp_attention_kernel k, double padded, bool backward)
{
    double x = ATTN_HDIM_X[k == PP_ATTN_FLASH3][backward] / PP_ATTN_BALANCE_REF;
    double own = pp_gpu_attention_balance(gpu);
    double fitted = gpu->eff.attention_balance > 0.0 ? gpu->eff.attention_balance : own;
    if (padded >= ATTN_HDIM_REF && own == fitted)
        return 1.0; /* the fitted rate itself; a longer head keeps the rate of 128 */
    double d = fmin(padded, ATTN_HDIM_REF);
    return d / (d + x * own) * ((ATTN_HDIM_REF + x * fitted) / ATTN_HDIM_REF);
}

/* One matrix multiply (M x K) @ (K x N) of a layer on a 2D/2.5D/3D grid, as
 * one GPU runs it: SUMMA (Optimus, Tesseract) takes q steps, each a product
 * of an (M/q or M/(dq)) x K/q block by a K/q x N/q block; 3D gathers its
 * operands and runs one (M/q) x (K/q) x (N/q) product (Bian et al. 2021;
 * Colossal-AI _Linear3D).  The FLOPs are 2MKN/t in every mode. */
double grid_gemm_s(const pp_problem *prob, const tp_grid *g, double M, double K, double N)
{
    switch (g->mode) {
    case PP_TP_2D: return g->q * gemm_time_s(prob, M / g->q, K / g->q, N / g->q);
    case PP_TP_2P5D: return g->q * gemm_time_s(prob, M / (g->d * g->q), K / g->q, N / g->q);
    case PP_TP_3D: return gemm_time_s(prob, M / g->q, K / g->q, N / g->q);
    default: return gemm_time_s(prob, M, K, N / g->t);
    }
}

/* LoRA adapters of one layer, forward, on one GPU (Hu et al. 2021): per
 * adapted weight the down-projection (tokens x K by K x r) and the
 * up-projection (tokens x r by r x N), in 16 bits (the adapters are plain
 * linear layers beside the recipe's fp8 ones: NeMo's ParallelLinearAdapter),
 * each a memory-bound GEMM for small r, and the add of their output to the
 * frozen layer's (read 2 x 2, write 2 bytes an output element). */
#define LORA_ADD_BYTES 6.0

static double lora_fwd_s(const pp_problem *prob, const pp_plan *plan, double tokens)
{
    const pp_gpu *gpu = &prob->cluster.gpu;
    pp_precision hp = half_precision(prob);
    double r = prob->training.lora_rank, s = 0.0;
    for (int i = 0; i < lora_adapted_linears(&prob->training); i++) {
        double k_in, n_out;
        lora_adapter_shape(&prob->model, i, plan->tp, &k_in, &n_out);
        s += pp_gemm_time_s(gpu, hp, tokens, r, k_in, 1.0) + pp_gemm_time_s(gpu, hp, tokens, n_out, r, 1.0) +
             LORA_ADD_BYTES * tokens * n_out / hbm_Bps(prob) + gpu->eff.kernel_us * 1e-6;
    }
    return s;
}

/* Low-precision GEMMs read their operands in the recipe's format, so a
 * kernel casts each 16-bit input first (Transformer Engine's cast-transpose;
 * torchao's float8 casts): it reads the bf16 tensor (plus scale_passes more
 * reads to find a per-tensor scale of the tensor itself: current/dynamic
 * scaling, NVFP4's global scale; delayed scaling uses earlier steps' amax
 * and MXFP8 finds its block scales inside the cast), and writes the cast
 * twice, row- and column-wise, because the backward GEMMs read the
 * transpose (once where the weight is frozen, lowp_cast_s) (Hopper fp8 tensor cores take only K-major operands; MX and
 * NVFP4 block scales run along one direction).  Forward casts each GEMM's
 * input activation, backward each output gradient; weights are cast once
 * per step and left out.  Transformer Engine documentation ("Using FP8 with
 * Transformer Engine", cast_transpose; "FP8 current scaling");
 * Micikevicius et al. 2022, arXiv 2209.05433. */
static double mla_up_gemm_s(const pp_problem *prob, double tokens, double t);

double lowp_cast_s(const pp_problem *prob, double elements, double tensors)
{
    const pp_precision_info *info = pp_precision_props(prob->training.precision);
    if (!info->low_gemm || elements <= 0.0)
        return 0.0;
    /* With LoRA the base weights are frozen: no weight gradient reads the
     * transposed copies, so the input is cast row-wise only (Transformer
     * Engine's _Linear.forward: input_quantizer.set_usage(rowwise=True,
     * columnwise=backward_needs_input), backward_needs_input =
     * is_grad_enabled and weight.requires_grad), and so is the output
     * gradient, which only the data gradient reads */
    double copies = prob->training.lora_rank > 0 ? 1.0 : 2.0;
    double bytes = ACT_BYTES * (1.0 + info->scale_passes) + copies * precision_input_bytes(prob->training.precision);
    double launches = tensors * (1.0 + info->scale_passes);
    /* the blocks kept in bf16 cast nothing */
    double lowp = 1.0 - bf16_layer_share(&prob->training);
    return lowp * (elements * bytes / hbm_Bps(prob) + launches * prob->cluster.gpu.eff.kernel_us * 1e-6);
}

/* Forward kernels of one layer on one GPU for plan's micro-batch.  In
 * 2D/2.5D/3D the matrix multiplies are the grid's and every activation is
 * partitioned over the t GPUs, as sequence parallelism does in 1D. */
void layer_kernels_fwd(const pp_problem *prob, const pp_plan *plan, layer_kernels *k)
{
    const pp_model *m = &prob->model;
    const pp_efficiency *e = &prob->cluster.gpu.eff;
    double t = plan->tp, s = m->seq_len, h = m->hidden, f = m->ffn_hidden;
    double tokens = (double)plan->micro_batch * s / plan->cp; /* rows of every GEMM */

    tp_grid g = grid_of(plan);
    bool frozen = prob->training.lora_rank > 0;
    k->mlp_fwd_s = k->mlp_bwd_s = 0.0;
    if (g.mode == PP_TP_1D) {
        double qkv = pp_model_is_mla(m) ? mla_qkv_gemm_s(prob, tokens, t) : gemm_time_s(prob, tokens, h, qkv_width(m) / t);
        double mlp_in = gemm_time_s(prob, tokens, h, mlp_in_width(m) / t), mlp_out = gemm_time_s(prob, tokens, f / t, h);
        double proj = gemm_time_s(prob, tokens, attention_width(m) / t, h);
        k->gemm_fwd_s = qkv + proj + mlp_in + mlp_out;
        k->mlp_fwd_s = mlp_in + mlp_out;
        /* MLA's QKV is a chain of low-rank products: twice its forward */
        double qkv_bwd = pp_model_is_mla(m) ? (frozen ? 1.0 : 2.0) * qkv
                                            : linear_bwd_s(prob, tokens, h, qkv_width(m) / t, frozen);
        k->mlp_bwd_s = linear_bwd_s(prob, tokens, h, mlp_in_width(m) / t, frozen) +
                       linear_bwd_s(prob, tokens, f / t, h, frozen);
        k->gemm_bwd_s = qkv_bwd + linear_bwd_s(prob, tokens, attention_width(m) / t, h, frozen) + k->mlp_bwd_s;
        /* the even matrix multiplies, which torchtitan's per-op checkpointing
         * recomputes: of a Llama block's separate projections in the order
         * they run (wq wk wv wo w1 w3 w2) wk, wo and w3; of a block with fused
         * QKV and MLP-in (QKV, projection, MLP in, MLP out) the projection and
         * MLP out */
        if (m->gated_mlp)
            k->gemm_even_fwd_s = gemm_time_s(prob, tokens, h, (double)m->kv_heads * pp_model_head_dim(m) / t) + proj +
                                 0.5 * mlp_in;
        else
            k->gemm_even_fwd_s = proj + mlp_out;
    } else {
        double K[4], N[4];
        layer_linears(m, K, N);
        k->gemm_fwd_s = 0.0;
        for (int i = 0; i < 4; i++)
            k->gemm_fwd_s += grid_gemm_s(prob, &g, tokens, K[i], N[i]);
        k->gemm_even_fwd_s = grid_gemm_s(prob, &g, tokens, K[1], N[1]) + grid_gemm_s(prob, &g, tokens, K[3], N[3]);
        /* a grid's backward runs the same SUMMA steps on the transposed blocks */
        k->gemm_bwd_s = (frozen ? 1.0 : 2.0) * k->gemm_fwd_s;
    }

    if (flash_usable(prob)) {
        /* packed samples (variable-length fused attention, cu_seqlens):
         * each query attends within its own sample only */
        double span = pp_attention_span(m, &prob->training);
        pp_attention_kernel kernel = attention_kernel_run(prob);
        double d = pp_model_is_mla(m) ? (double)m->qk_nope_head_dim + m->qk_rope_head_dim : pp_model_head_dim(m);
        double padded = fused_head_dim(kernel, d);
        /* the full square of the span at the kernel's rate, of which a
         * layer runs its causal blocks */
        double square = pp_attention_core_fwd_flops(m, (double)plan->micro_batch * s / plan->cp, span) / t *
                        (padded / d) /
                        (peak_flops(prob, half_precision(prob)) * attention_efficiency(prob, kernel));
        double core = square * attention_causal_share(m, span) /
                      attention_tile_share(prob, (causal_lm(m) ? 0.5 : 1.0) * span);
        /* Sliding-window layers (FlashAttention-2's window_size, cuDNN's
         * sliding window in Transformer Engine): a query block of
         * ATTN_CAUSAL_BLOCK rows runs the key blocks that meet its band,
         * its mean keys and half a block as the causal mask's blocks add,
         * on tiles that walk those keys (a window shorter than a block
         * still runs whole blocks, so a shorter window never costs more);
         * a layer of the stage costs the mean of the windowed and the full
         * layers (the pattern alternates, so every stage holds about the
         * model's mix). */
        int windowed = pp_windowed_layers(m, span);
        if (windowed > 0) {
            double run = pp_window_keys(m->sliding_window, span) + 0.5 * ATTN_CAUSAL_BLOCK;
            double band = fmin(attention_causal_share(m, span), run / span);
            double win = square * band / attention_tile_share(prob, run);
            core = ((m->layers - windowed) * core + windowed * win) / m->layers;
        }
        const pp_gpu *gpu = &prob->cluster.gpu;
        k->attn_fwd_s = core / attention_head_dim_share(gpu, kernel, padded, false) + e->kernel_us * 1e-6;
        k->attn_bwd_s = ATTN_BWD_FLOPS * core / (ATTN_BWD_RATE * attention_head_dim_share(gpu, kernel, padded, true)) +
                        2.0 * e->kernel_us * 1e-6;
    } else {
        /* Unfused attention (Megatron-LM's baddbmm and bmm, 2019-2022; any
         * head dimension FlashAttention cannot take): per head a batched
         * cuBLAS GEMM QK^T ((s x d) by (d x s), writing the s x s scores)
         * and scores x V (reading them back), priced by the linear layers'
         * GEMM roofline: with a small head dimension they are bound by the
         * scores' HBM traffic and K = d starves the tiles, and a head
         * dimension off the tensor cores' multiple falls off them like any
         * GEMM.  Then the scale-mask-softmax and dropout traffic.  The
         * backward's four products by their shapes: dP = dO V^T as QK^T,
         * dQ = dS K as scores x V, and dV = P^T dO and dK = dS^T Q, whose
         * d-wide outputs reduce over the queries. */
        double d = pp_model_head_dim(m), sq = s / plan->cp, batch = plan->micro_batch * ((double)m->heads / t);
        pp_precision hp = half_precision(prob);
        double qk = pp_gemm_time_s(&prob->cluster.gpu, hp, sq, s, d, batch);
        double pv = pp_gemm_time_s(&prob->cluster.gpu, hp, sq, d, s, batch);
        k->attn_fwd_s = qk + pv;
        k->attn_bwd_s = qk + pv + 2.0 * pp_gemm_time_s(&prob->cluster.gpu, hp, s, d, sq, batch);
        double scores = batch * sq * s;
        double bytes = ELEMWISE_SOFTMAX_BYTES, launches = 2.0;
        if (!prob->training.fused_elementwise) {
            bytes += EAGER_SOFTMAX_BYTES;
            launches += EAGER_SOFTMAX_KERNELS;
        }
        double softmax = bytes * scores / hbm_Bps(prob) + launches * e->kernel_us * 1e-6;
        k->attn_fwd_s += softmax;
        k->attn_bwd_s += 2.0 * softmax;
    }

    /* LayerNorm/dropout replicated over 1D TP ranks without SP */
    double h_share = (plan->sequence_parallel || g.mode != PP_TP_1D) ? 1.0 / t : 1.0;
    /* With sequence parallelism the QKV and MLP-in inputs are cast on the
     * local shard, before the all-gather (Transformer Engine gathers fp8) */
    k->cast_fwd_s = lowp_cast_s(prob, tokens * (2.0 * h * h_share + attention_width(m) / t + f / t), 4.0);
    k->cast_bwd_s = lowp_cast_s(prob, tokens * (qkv_width(m) / t + mlp_in_width(m) / t + 2.0 * h * h_share), 4.0);
    double act_f = m->gated_mlp ? 1.5 : 1.0;
    double elem_bytes = ELEMWISE_H_BYTES * tokens * h * h_share + ELEMWISE_F_BYTES * act_f * tokens * f / t;
    double glu_bytes = ELEMWISE_F_BYTES * act_f * tokens * f / t, kernels = ELEMWISE_KERNELS_FWD;
    if (!prob->training.fused_elementwise) {
        double eager_h, eager_f = 0.0;
        if (m->gated_mlp) {
            double qk = attention_width(m) + (double)m->kv_heads * pp_model_head_dim(m);
            eager_h = EAGER_ROTARY_BYTES * tokens * qk / t;
            eager_f = EAGER_GLU_BYTES * tokens * f / t;
            kernels += EAGER_KERNELS_LLAMA;
            /* a fused norm kernel in otherwise eager code (apex's, or
             * FlashAttention's RMSNorm: Hagemann et al. 2023's "RMS kernel") */
            if (!prob->training.fused_norm)
                eager_h += 2.0 * EAGER_RMSNORM_BYTES * tokens * h * h_share;
            else
                kernels -= 2.0 * EAGER_RMSNORM_KERNELS;
        } else {
            eager_h = 2.0 * EAGER_BDA_BYTES * tokens * h * h_share;
            kernels += EAGER_KERNELS_GPT;
        }
        elem_bytes += eager_h + eager_f;
        glu_bytes += eager_f;
    }
    k->elem_fwd_s = elem_bytes / hbm_Bps(prob) + kernels * e->kernel_us * 1e-6;
    k->mlp_fwd_s += glu_bytes / hbm_Bps(prob);
    k->mlp_bwd_s += 2.0 * glu_bytes / hbm_Bps(prob);
    k->lora_fwd_s = lora_fwd_s(prob, plan, tokens);
    /* The activation's input kept in fp8 (fp8_act_stored): a cast to fp8
     * after the first GEMM (read 2, write 1 byte an element) and back before
     * the activation's backward (read 1, write 2), a kernel each
     * (Megatron-Core's fused_bias_swiglu: input.to(float8_e4m3fn)) */
    if (fp8_act_stored(prob, plan)) {
        double store = FP8_STORE_CAST_BYTES * tokens * mlp_in_width(m) / t / hbm_Bps(prob) + e->kernel_us * 1e-6;
        k->cast_fwd_s += store;
        k->cast_bwd_s += store;
        k->mlp_fwd_s += store;
        k->mlp_bwd_s += store;
    }
    /* What selective recomputation's modules repeat (stage.c): the two
     * RMSNorms, memory-bound (read and write an h-wide row, RMSNORM_BYTES),
     * with the casts of their outputs for the QKV and MLP GEMMs' weight
     * gradients in a low-precision recipe; MLA's up-projection GEMMs and
     * the RoPE on the query's and key's rotary parts (read + write). */
    k->norm_fwd_s = RMSNORM_BYTES * 2.0 * tokens * h * h_share / hbm_Bps(prob) + 2.0 * e->kernel_us * 1e-6 +
                    lowp_cast_s(prob, 2.0 * tokens * h * h_share, 2.0);
    /* The mlp module reruns a dense layer's MLP forward whole: its GEMMs and
     * activation (mlp_fwd_s), the norm fused into its first linear layer
     * with that layer's input cast (one of the two norms above), and the
     * cast of the second linear layer's input. */
    k->mlp_again_fwd_s = k->mlp_fwd_s + 0.5 * k->norm_fwd_s + lowp_cast_s(prob, tokens * f / t, 1.0);
    /* The dense MLP's share of the casts above (its two inputs forward, its
     * two output gradients backward) is part of what a MoE layer's expert
     * block replaces: the block casts its own (moe.c, moe_block_of). */
    if (g.mode == PP_TP_1D) {
        k->mlp_fwd_s += lowp_cast_s(prob, tokens * (h * h_share + f / t), 2.0);
        k->mlp_bwd_s += lowp_cast_s(prob, tokens * (mlp_in_width(m) / t + h * h_share), 2.0);
    }
    k->mla_up_fwd_s = 0.0;
    if (pp_model_is_mla(m) && g.mode == PP_TP_1D)
        k->mla_up_fwd_s = mla_up_gemm_s(prob, tokens, t) +
                          ROPE_BYTES * tokens * ((double)m->heads / t + 1.0) * m->qk_rope_head_dim / hbm_Bps(prob) +
                          e->kernel_us * 1e-6;
}

/* Multi-head latent attention (flops.c): the query and key/value
 * projections of one layer's forward on one GPU of a 1D tensor group of t.
 * Under 1D tensor parallelism the down-projections are replicated and the
 * up-projections split by heads (Megatron-Core MLASelfAttention). */
double mla_qkv_gemm_s(const pp_problem *prob, double tokens, double t)
{
    const pp_model *m = &prob->model;
    double h = m->hidden, a = m->heads, q;
    if (m->q_lora_rank > 0)
        q = gemm_time_s(prob, tokens, h, m->q_lora_rank) +
            gemm_time_s(prob, tokens, m->q_lora_rank, a * qk_head_dim(m) / t);
    else
        q = gemm_time_s(prob, tokens, h, a * qk_head_dim(m) / t);
    return q + gemm_time_s(prob, tokens, h, (double)m->kv_lora_rank + m->qk_rope_head_dim) +
           gemm_time_s(prob, tokens, m->kv_lora_rank, a * ((double)m->qk_nope_head_dim + m->v_head_dim) / t);
}

/* Of them, the up-projections from the latents (what mla_up_proj
 * recomputation repeats; with no query latent the query's projection is
 * from the hidden state, and is not an up-projection). */
static double mla_up_gemm_s(const pp_problem *prob, double tokens, double t)
{
    const pp_model *m = &prob->model;
    double a = m->heads;
    double q = m->q_lora_rank > 0 ? gemm_time_s(prob, tokens, m->q_lora_rank, a * qk_head_dim(m) / t) : 0.0;
    return q + gemm_time_s(prob, tokens, m->kv_lora_rank, a * ((double)m->qk_nope_head_dim + m->v_head_dim) / t);
}
