/*
 * memory.c: the memory of the most loaded GPU (docs/cost-model.md §6).
 *
 * Model states, the weights, gradients and optimizer state of the stage's
 * parameters under ZeRO, are states.c's.  Activations a layer keeps per
 * micro-batch (Korthikanti et al. 2022 §4):
 *
 *   s b h (34 + 5 a s / h)   without parallelism, split by t as tensor and
 *                            sequence parallelism (or a 2D/2.5D/3D grid) allow
 *
 * times the micro-batches 1F1B keeps in flight on stage 0 (p, §4.2.3), plus
 * what a MoE layer's experts keep instead of the dense MLP, the fp32 logits
 * on the last stage and the runtime's own buffers.  The most loaded of the
 * first, the last (and a middle) stage counts.
 */
#include "cost_terms.h"

#include <math.h>

#define EAGER_NORM_SAVED_BYTES 4.0  /* eager RMSNorm over the fused kernel, per element (below) */
#define EAGER_SILU_SAVED_BYTES 2.0  /* eager SwiGLU's silu output, per f element */
/* The loss's peak, bytes per logit.  Megatron-LM's
 * _VocabParallelCrossEntropy upcasts the bf16 logits (2 + 4 while both
 * live), turns the fp32 copy into the softmax in place and saves it, and
 * backward makes the 16-bit gradient from it in place (4 + 2): 6.  PyTorch's
 * cross_entropy on upcast logits (torchtitan, FSDP trainers) saves the fp32
 * log_softmax (4), and its backward holds it with the fp32 gradient of its
 * output (4) while making the fp32 gradient of its input (4): 12 (the
 * forward's bf16 logits, fp32 copy and log_softmax are 10).  The same loss
 * under torch.compile (torchtitan's build_cross_entropy_loss compiles it
 * with the model since April 2025, pytorch/torchtitan#1033; it was off from
 * December 2024, e8977b0, "compiling loss function causes CUDA errors")
 * becomes one fused forward that saves the 16-bit logits and a log-sum-exp
 * per row, and one fused backward that writes the 16-bit gradient: 2 + 2. */
#define LOSS_BYTES_MEGATRON 6.0
#define LOSS_BYTES_PYTORCH 12.0
#define LOSS_BYTES_PYTORCH_FUSED 4.0
/* PyTorch's loss parallelism (torch.distributed.tensor.parallel.loss_parallel,
 * which torchtitan turns on with TP) keeps the vocabulary sharded and
 * replaces the fused kernels with DTensor handlers written in tensor ops:
 * its backward, _nll_loss_and_log_softmax_backward, computes
 * (zeros_like(x) with the targets scattered + exp(x)) * grad_output, four
 * fp32 tensors of the logits' size alive with the saved log-softmax: 16
 * (its forward holds the bf16 logits, their fp32 copy, the shifted copy and
 * its exponential: 14). */
#define LOSS_BYTES_PYTORCH_LOSS_PARALLEL 16.0
/* What the runtime holds besides tensors: the CUDA context (~0.5 GiB on
 * A100/H100 with the lazy module loading of CUDA 11.7+), cuBLAS/cuDNN
 * workspaces (~0.1 GiB), NCCL's communicator buffers (4 MiB NCCL_BUFFSIZE
 * per channel and peer, ~0.5-1 GiB for a few communicators); the
 * allocator's fragmentation is the problem's memory_headroom. */
#define RUNTIME_OTHER_GIB 1.5

/* Bytes per element each of a layer's four linear layers (QKV, projection,
 * MLP in, MLP out; layer_linears) keeps of its input for its weight
 * gradient: the GEMM's input format (gemm_input_bytes).  Under LoRA,
 * Transformer Engine's Linear and LayerNormLinear keep none for a frozen
 * weight (they save the input only when `backward_needs_input =
 * is_grad_enabled and weight.requires_grad`, transformer_engine/pytorch/
 * module/linear.py and layernorm_linear.py), while an adapted layer's
 * adapter, a plain 16-bit linear layer, keeps the 16-bit input for its
 * down-projection's gradient.  Other frameworks are priced as full
 * training. */
static void linear_saved_input_bytes(const pp_training *t, double bytes[4])
{
    double full = gemm_input_bytes(t);
    bool te_lora = t->lora_rank > 0 && t->framework == PP_FW_MEGATRON_CORE;
    for (int i = 0; i < 4; i++)
        bytes[i] = !te_lora ? full : i < lora_adapted_linears(t) ? ACT_BYTES : 0.0;
}

/* Activation bytes one layer keeps for backward, per micro-batch, on one GPU
 * (Korthikanti et al. 2022 §4, generalized to grouped-query attention and
 * gated MLPs).  sbh = micro_batch x local sequence x hidden. */
double pp_layer_activation_bytes(const pp_problem *prob, const pp_plan *plan, bool store_scores)
{
    const pp_model *m = &prob->model;
    double t = plan->tp, s = (double)m->seq_len / plan->cp, b = plan->micro_batch;
    double sbh = s * b * m->hidden, sbf = s * b * m->ffn_hidden, kv = (double)m->kv_heads / m->heads;
    /* In fp8, Transformer Engine keeps the inputs of the four matrix
     * multiplies for the backward pass in their fp8 cast (1 byte): the QKV,
     * projection, MLP-in and MLP-out inputs (Transformer Engine's Linear
     * saves its quantized input; Micikevicius et al. 2022, arXiv 2209.05433);
     * MXFP8 and NVFP4 keep theirs with the block scales (gemm_input_bytes). */
    double in[4];
    linear_saved_input_bytes(&prob->training, in);
    /* Not split by TP unless sequence parallel: two LayerNorm inputs (4),
     * QKV and MLP inputs (2 + 2), two dropout masks (1 + 1): 10 sbh.
     * Recomputing the norms (Megatron-Core's layernorm module, DeepSeek-V3
     * §3.3.2) keeps neither norm's output: the QKV and MLP Linears save
     * the original input (Transformer Engine's save_original_input) and
     * checkpointing without output discards it, so their inputs go. */
    int rcm = pp_recompute_modules(plan);
    /* Checkpointing the dense MLP (Megatron-Core's mlp module; the norm is
     * fused into its first linear layer) keeps only its input, the norm's,
     * which the count holds already: neither the MLP-in GEMM's input nor
     * the MLP's own tensors below (mlp_checkpoint_frees). */
    bool mlp_again = (rcm & PP_RCM_MLP) != 0;
    double norm_out = (rcm & PP_RCM_LAYERNORM) ? 0.0 : in[0] + (mlp_again ? 0.0 : in[2]);
    double replicated = (6.0 + norm_out) * sbh;
    /* Eager element-wise code (training.fused_elementwise false) saves more
     * than the fused kernels, op by op as kernels.c prices its time: each
     * RMSNorm of PyTorch's composite rms_norm keeps its fp32 upcast (pow and
     * mul save it) and its normalized 16-bit output (the weight's mul saves
     * it) where the fused kernel keeps the 16-bit input: +4 bytes a norm,
     * two a layer, unless the norm is a fused kernel (training.fused_norm);
     * SwiGLU's separate silu keeps its output for the product: +2 an f
     * element.  LayerNorm and GeLU are native kernels in eager PyTorch and
     * save what the fused ones do. */
    double eager_mlp = 0.0;
    if (!prob->training.fused_elementwise && m->gated_mlp) {
        if (!prob->training.fused_norm)
            replicated += 2.0 * EAGER_NORM_SAVED_BYTES * sbh;
        eager_mlp = EAGER_SILU_SAVED_BYTES * sbf;
    }
    /* Split by TP: Q (2) K, V (2 kv each), projection input (2), MLP: the
     * first GEMM's output (f, or 2f gated) for the activation's backward and
     * the activation's output, the second GEMM's input. */
    /* Megatron-Core's --activation-func-fp8-input-store keeps the
     * activation's input in fp8 and casts it back for the backward pass
     * (TransformerConfig.activation_func_fp8_input_store): 1 byte, not 2 */
    double act_in = (m->gated_mlp ? 2.0 : 1.0) * (fp8_act_stored(prob, plan) ? 1.0 : ACT_BYTES);
    double mlp = mlp_again ? 0.0 : act_in * sbf + in[3] * sbf + eager_mlp, split;
    /* Q, K, V and the projection input are heads x head_dim wide (kv_heads x
     * head_dim for K and V), which differs from hidden when head_dim is given. */
    double sba = s * b * attention_width(m);
    split = (2.0 + in[1]) * sba + 4.0 * kv * sba + mlp;
    if (pp_model_is_mla(m)) {
        /* Multi-head latent attention (Megatron-Core MLASelfAttention): Q and
         * K are heads x (nope + rope) wide and V heads x v_head_dim, 16 bits
         * each for the attention kernel, split by heads; MLA's up-projection
         * recomputation (mla_up_proj) discards them with the RoPE applied
         * and rebuilds them for the backward.  Kept either way: the latents,
         * the q and kv norms' inputs (16 bits) and the up-projections' saved
         * inputs (q_lora_rank + kv_lora_rank wide), and the key's shared
         * RoPE part (16 bits), replicated as the down-projections are. */
        double sbq = s * b * (double)m->heads * qk_head_dim(m), sbv = s * b * (double)m->heads * m->v_head_dim;
        double qkv = (rcm & PP_RCM_MLA_UP_PROJ) ? 0.0 : ACT_BYTES * (2.0 * sbq + sbv);
        double lat = s * b * ((double)m->q_lora_rank + m->kv_lora_rank);
        replicated += (ACT_BYTES + in[0]) * lat + ACT_BYTES * s * b * m->qk_rope_head_dim;
        split = in[1] * sbv + qkv + mlp;
    }
    /* Attention scores: softmax output (2), dropout mask (1), dropout output (2). */
    double scores = store_scores ? 5.0 * m->heads * s * (double)m->seq_len * b : 0.0;
    if (plan->tp_mode == PP_TP_1D)
        return replicated / (plan->sequence_parallel ? t : 1.0) + (split + scores) / t;
    /* 2D/2.5D/3D partition every activation over the t GPUs (Colossal-AI
     * table: O(1/q^2), O(1/(d q^2)), O(1/q^3)).  3D keeps what its linear
     * layers gathered for the backward pass (_Linear3D saves the gathered
     * input and weight): the four layer inputs q times their share, and the
     * layer's weight blocks, K N / q^2 each. */
    double bytes = (replicated + split + scores) / t;
    if (plan->tp_mode == PP_TP_3D) {
        tp_grid g = grid_of(plan);
        double K[4], N[4], weights = 0.0;
        layer_linears(m, K, N);
        for (int i = 0; i < 4; i++)
            weights += K[i] * N[i];
        double inputs = 6.0 * sbh + 2.0 * sbf; /* QKV, projection, MLP in (h-wide), MLP out (f-wide) */
        bytes += (g.q - 1.0) * inputs / t + ACT_BYTES * weights / (g.q * g.q);
    }
    return bytes;
}

/* Selective recomputation as torchtitan runs it (FSDP: per-op selective
 * activation checkpointing, selective_ac_option "op", the default of its
 * Llama configs; torchtitan/parallelisms/parallelize_llama.py
 * _apply_ac_to_transformer_block, Dec 2024): a layer saves its input, the
 * outputs of every other matrix multiply (the 1st, 3rd, 5th and 7th of the
 * layer: wq, wv, w1, w2 of a Llama block; QKV and MLP-in of a block with
 * fused projections), the attention kernel's output and the TP
 * reduce-scatters' outputs, and recomputes the rest (stage.c).  Bytes per
 * micro-batch on one GPU, 16-bit values. */
double pp_op_sac_layer_bytes(const pp_problem *prob, const pp_plan *plan)
{
    const pp_model *m = &prob->model;
    double t = plan->tp, s = (double)m->seq_len / plan->cp, b = plan->micro_batch;
    double sbh = s * b * m->hidden, sbf = s * b * m->ffn_hidden, sba = s * b * attention_width(m);
    double kv = (double)m->kv_heads / m->heads;
    bool split = plan->sequence_parallel || plan->tp_mode != PP_TP_1D;
    double input = ACT_BYTES * sbh / (split ? t : 1.0);
    double mm_out = m->gated_mlp ? ACT_BYTES * (sba + kv * sba + sbf) / t + ACT_BYTES * sbh /* wq, wv, w1; w2 */
                                 : ACT_BYTES * (sba + 2.0 * kv * sba + sbf) / t; /* QKV, MLP in */
    double attention_out = ACT_BYTES * sba / t;
    /* with sequence parallelism; without it TP all-reduces, which are recomputed */
    double reduce_scatter_out = t > 1 && split ? 2.0 * ACT_BYTES * sbh / t : 0.0;
    return input + mm_out + attention_out + reduce_scatter_out;
}

static double loss_bytes_per_logit(const pp_training *t, const pp_plan *plan)
{
    bool gathered = t->loss_gathered && plan->tp > 1; /* PyTorch's loss on the whole vocabulary */
    if (t->framework != PP_FW_FSDP && !gathered)
        return LOSS_BYTES_MEGATRON;
    if (t->fused_loss)
        return LOSS_BYTES_PYTORCH_FUSED;
    return plan->tp > 1 && !gathered ? LOSS_BYTES_PYTORCH_LOSS_PARALLEL : LOSS_BYTES_PYTORCH;
}

/* Activation bytes the nm MoE layers of a stage add to (or take from) the
 * dense count, with `in_flight` micro-batches (0 for a dense model): the
 * routed experts' rows of the busiest GPU, the router's probabilities, the
 * shared experts and the all-to-all buffers, less the dense MLP they
 * replace (docs/cost-model.md section 9). */
static double moe_stage_activation_bytes(const pp_problem *prob, const pp_plan *plan, int nm, double in_flight,
                                         double mlp_frees)
{
    const pp_model *m = &prob->model;
    if (!pp_model_is_moe(m) || nm == 0)
        return 0.0;
    double gemm_in = gemm_input_bytes(&prob->training);
    /* the activation's input (f or 2f wide; fp8 when stored so) */
    double glu = (m->gated_mlp ? 2.0 : 1.0) * (fp8_act_stored(prob, plan) ? 1.0 : ACT_BYTES);
    double t = plan->tp, T = (double)plan->micro_batch * m->seq_len / plan->cp, Tg = T / t;
    double k = m->experts_per_token, h = m->hidden, lam = moe_load_imbalance(prob, plan);
    /* the dense MLP that pp_layer_activation_bytes counted (Korthikanti: f or 2f wide GEMM
     * output, activation output, and the second GEMM's input), split by t; with the
     * mlp module, what it did not count of a dense layer (mlp_frees): the module leaves
     * a MoE layer alone, which keeps them */
    double dense_mlp = (glu + gemm_in) * T * m->ffn_hidden / t - mlp_frees;
    /* routed: the busiest GPU's lam etp (T/t) k rows, fe/etp wide, and their
     * h-wide expert input; router probabilities (fp32) and top-k map.
     * Recomputing the experts' activation (moe_act: checkpointing without
     * output, fc2 saving the original input) keeps no fc2 input. */
    int rcm = pp_recompute_modules(plan);
    double fc2_in = (rcm & PP_RCM_MOE_ACT) ? 0.0 : gemm_in;
    double routed = (glu + fc2_in) * lam * Tg * k * m->moe_ffn_hidden + gemm_in * lam * plan->etp * Tg * k * h;
    double router = 4.0 * Tg * m->experts + 12.0 * Tg * k;
    double shared = (glu + gemm_in) * T * m->shared_ffn_hidden / t;
    /* the all-to-all send and receive buffers of the layer being run */
    double buffers = 2.0 * ACT_BYTES * lam * Tg * k * h;
    /* the shared experts checkpointed (shared_experts, unless the moe module
     * checkpoints the whole block): they keep their input, the block's; one
     * layer's are rebuilt at a time */
    if ((rcm & PP_RCM_SHARED_EXPERTS) && !(rcm & PP_RCM_MOE) && plan->recompute != PP_RECOMPUTE_FULL) {
        buffers += shared;
        shared = 0.0;
    }
    double delta = routed + router + shared - dense_mlp;
    if (plan->recompute == PP_RECOMPUTE_FULL) /* only the layer rebuilt holds them */
        return fmax(0.0, delta) + buffers;
    if (rcm & PP_RCM_MOE) /* the block keeps its input (the dense count's); one is rebuilt */
        return -nm * dense_mlp * in_flight + routed + router + shared + buffers;
    return nm * delta * in_flight + buffers;
}

/* Micro-batches of a stage's layers whose activations stage `stage` holds
 * at its peak: the model-chunk forwards it runs before its first backward
 * (layout.c, pp_warmup_chunks) over v micro-batches of the stage's L / p
 * layers.  1F1B: p - i (at most m), so stage 0 holds p; interleaved, for
 * m > p stage 0 holds p (1 + (p-1)/(p v)) (Korthikanti et al. 2022,
 * §4.2.3); for m == p, m v chunks, what 1F1B holds on stage 0. */
static double microbatches_in_flight(const pp_plan *plan, int stage, int m)
{
    return (double)pp_warmup_chunks(plan, stage, m) / (plan->virtual_stages > 1 ? plan->virtual_stages : 1);
}

/* What Megatron-Core's mlp module frees a dense layer of, per micro-batch:
 * its count without the module less its count with it (the MLP-in GEMM's
 * input and the MLP's own tensors). */
static double mlp_checkpoint_frees(const pp_problem *prob, const pp_plan *plan, bool scores)
{
    if (!(pp_recompute_modules(plan) & PP_RCM_MLP))
        return 0.0;
    pp_plan kept = *plan;
    kept.recompute_modules &= ~PP_RCM_MLP;
    return pp_layer_activation_bytes(prob, &kept, scores) - pp_layer_activation_bytes(prob, plan, scores);
}

double pp_mem_activations_gib(const pp_problem *prob, const pp_plan *plan, int stage)
{
    const pp_model *m = &prob->model;
    int mb = pp_microbatches(prob, plan);
    /* the scores stay unless the attention core is recomputed (selective's core_attn, or full) */
    bool scores = plan->recompute != PP_RECOMPUTE_FULL && !(pp_recompute_modules(plan) & PP_RCM_CORE_ATTN) &&
                  !flash_usable(prob);
    double full_layer = pp_layer_activation_bytes(prob, plan, scores);
    double per_layer = full_layer, working = 0.0;
    if (op_sac(prob, plan))
        per_layer = fmin(full_layer, pp_op_sac_layer_bytes(prob, plan));
    if (plan->recompute == PP_RECOMPUTE_FULL) {
        /* Only each layer's input is kept; one layer is rebuilt at a time. */
        double sbh = (double)m->seq_len / plan->cp * plan->micro_batch * m->hidden;
        bool split = plan->sequence_parallel || plan->tp_mode != PP_TP_1D;
        per_layer = ACT_BYTES * sbh / (split ? plan->tp : 1.0);
        working = pp_layer_activation_bytes(prob, plan, !flash_usable(prob));
    }
    double mlp_frees = mlp_checkpoint_frees(prob, plan, scores);
    double in_flight = microbatches_in_flight(plan, stage, mb);
    int n, nm; /* the stage's layers and MoE layers, from one split */
    pp_stage_split split;
    bool ok = pp_stage_layers(prob, plan, &split);
    stage_counts_of_split(prob, plan, &split, ok, stage, &n, &nm);
    if (n > nm) /* the mlp module: one dense layer's MLP rebuilt at a time */
        working += mlp_frees;
    double bytes = n * per_layer * in_flight + working;
    if (pp_model_is_moe(m))
        bytes += moe_stage_activation_bytes(prob, plan, nm, in_flight, mlp_frees);
    /* The loss of the micro-batch on the last stage at its peak
     * (LOSS_BYTES_*): with a large vocabulary (128K for Llama 3) this is
     * gigabytes. */
    if (stage == plan->pp - 1) {
        /* each multi-token-prediction module runs the loss once more on the
         * same stage (its transformer layer is among the stage's n), and
         * keeps its projection's 2h-wide input and its norms' inputs, h each,
         * split over tp as the layer's activations are */
        int mtp = pp_mtp_layers(prob);
        bytes += (1.0 + mtp) * loss_bytes_per_logit(&prob->training, plan) * plan->micro_batch *
                 ((double)m->seq_len / plan->cp) * pp_model_logit_share(m) * m->vocab *
                 pp_loss_vocab_share(&prob->training, plan);
        if (mtp > 0) {
            bool sharded = plan->sequence_parallel || plan->tp_mode != PP_TP_1D;
            bytes += mtp * in_flight * ACT_BYTES * 4.0 * plan->micro_batch * ((double)m->seq_len / plan->cp) *
                     m->hidden / (sharded ? plan->tp : 1.0);
        }
    }
    return bytes / GIB;
}

double pp_mem_other_gib(const pp_problem *prob)
{
    (void)prob;
    return RUNTIME_OTHER_GIB;
}

static void memory_of_stage(const pp_problem *prob, const pp_plan *plan, int stage, pp_memory *out)
{
    pp_mem_states_gib(prob, plan, stage, &out->weights_gib, &out->gradients_gib, &out->optimizer_gib);
    out->activations_gib = pp_mem_activations_gib(prob, plan, stage);
    out->other_gib = pp_mem_other_gib(prob);
    out->total_gib = out->weights_gib + out->gradients_gib + out->optimizer_gib + out->activations_gib +
                     out->other_gib;
    out->stage = stage;
}

int pp_memory_stages(const pp_problem *prob, const pp_plan *plan, int stages[PP_MEM_STAGES])
{
    pp_stage_split split;
    pp_stage_layers(prob, plan, &split);
    int n = 0;
    stages[n++] = 0;
    stages[n++] = plan->pp - 1;
    /* the second stage holds more layers than the first when the split is
     * uneven, with one micro-batch fewer in flight */
    if ((split.uneven || pp_model_is_moe(&prob->model)) && plan->pp >= 3) /* MoE: dense layers first */
        stages[n++] = 1;
    return n;
}

void pp_memory_eval(const pp_problem *prob, const pp_plan *plan, pp_memory *out)
{
    int stages[PP_MEM_STAGES], n = pp_memory_stages(prob, plan, stages);
    memory_of_stage(prob, plan, stages[0], out);
    for (int i = 1; i < n; i++) {
        pp_memory other;
        memory_of_stage(prob, plan, stages[i], &other);
        if (other.total_gib > out->total_gib)
            *out = other;
    }
    out->capacity_gib = prob->cluster.gpu.memory_gib;
    out->usable_gib = out->capacity_gib * (1.0 - prob->memory_headroom);
}
