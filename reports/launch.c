/*
 * launch.c: how to run a plan, per framework (launch.h).
 *
 * Megatron-LM flags, a DeepSpeed configuration and the MVAPICH compression
 * settings, written from the plan and the problem.  The Markdown report and
 * the result JSON read the same functions, so the two never disagree.
 */
#include "launch.h"

#include "costmodel.h"
#include "problem.h"
#include "names.h"
#include "report_md.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- Megatron-LM ---------------------------------------------------------- */

typedef struct flag_lines {
    char (*lines)[160];
    int n, max;
} flag_lines;

static void flag(flag_lines *f, const char *fmt, ...) PP_PRINTF(2, 3);
static void flag(flag_lines *f, const char *fmt, ...)
{
    if (f->n >= f->max)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->lines[f->n++], 160, fmt, ap);
    va_end(ap);
}

/* Mixture of experts (Megatron-Core MoE) and multi-head latent attention:
 * grouped GEMMs and the token dispatcher (alltoall, or the flex dispatcher
 * with DeepEP), as the cost model prices them (docs/cost-model.md section 9). */
static void moe_flags(flag_lines *f, const pp_model *m, const pp_training *t, const pp_plan *p)
{
    if (pp_model_is_moe(m)) {
        flag(f, "--num-experts %d --moe-router-topk %d", m->experts, m->experts_per_token);
        flag(f, "--expert-model-parallel-size %d --expert-tensor-parallel-size %d", p->ep, p->etp);
        if (t->moe_deepep)
            flag(f, "--moe-grouped-gemm --moe-token-dispatcher-type flex --moe-enable-deepep");
        else
            flag(f, "--moe-grouped-gemm --moe-token-dispatcher-type alltoall");
        if (t->moe_a2a_overlap) /* the all-to-alls behind the other micro-batch's compute */
            flag(f, "--overlap-moe-expert-parallel-comm");
        flag(f, "--moe-ffn-hidden-size %d", m->moe_ffn_hidden);
        if (m->shared_ffn_hidden > 0)
            flag(f, "--moe-shared-expert-intermediate-size %d", m->shared_ffn_hidden);
        int freq = m->moe_layer_freq > 0 ? m->moe_layer_freq : 1;
        if (m->first_dense_layers > 0 && freq == 1)
            flag(f, "--moe-layer-freq \"([0]*%d+[1]*%d)\"", m->first_dense_layers, m->layers - m->first_dense_layers);
        else if (m->first_dense_layers > 0)
            flag(f, "--moe-layer-freq \"([0]*%d+[1 if i %% %d == 0 else 0 for i in range(%d, %d)])\"",
                 m->first_dense_layers, freq, m->first_dense_layers, m->layers);
        else if (freq > 1)
            flag(f, "--moe-layer-freq %d", freq);
    }
    if (pp_model_is_mla(m)) {
        if (m->q_lora_rank > 0)
            flag(f, "--multi-latent-attention --q-lora-rank %d --kv-lora-rank %d", m->q_lora_rank, m->kv_lora_rank);
        else
            flag(f, "--multi-latent-attention --kv-lora-rank %d", m->kv_lora_rank);
        flag(f, "--qk-head-dim %d --qk-pos-emb-head-dim %d --v-head-dim %d", m->qk_nope_head_dim, m->qk_rope_head_dim,
             m->v_head_dim);
    }
}

int pp_megatron_flags(const pp_problem *prob, const pp_plan *p, char lines[][160], int max)
{
    const pp_model *m = &prob->model;
    const pp_training *t = &prob->training;
    flag_lines f = {lines, 0, max};
    flag(&f, "--tensor-model-parallel-size %d", p->tp);
    flag(&f, "--pipeline-model-parallel-size %d", p->pp);
    pp_stage_split split;
    bool known = pp_stage_layers(prob, p, &split);
    if (known && split.uneven && p->virtual_stages == 1)
        flag(&f, "--decoder-first-pipeline-num-layers %d --decoder-last-pipeline-num-layers %d", split.first,
             split.last);
    if (known && p->virtual_stages > 1) {
        flag(&f, "--num-layers-per-virtual-pipeline-stage %d", split.chunk);
        if (split.uneven) /* the embedding and the loss each take a layer's place */
            flag(&f, "--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split");
    }
    flag(&f, "--context-parallel-size %d", p->cp);
    flag(&f, "--micro-batch-size %d", p->micro_batch);
    flag(&f, "--global-batch-size %ld", t->global_batch);
    if (p->sequence_parallel)
        flag(&f, "--sequence-parallel");
    if (p->tp_comm_overlap) /* Transformer Engine userbuffers */
        flag(&f, "--tp-comm-overlap");
    if (p->zero == 1)
        flag(&f, "--use-distributed-optimizer");
    else if (p->zero >= 2) {
        flag(&f, "--use-distributed-optimizer --use-megatron-fsdp");
        flag(&f, "--data-parallel-sharding-strategy %s", p->zero == 2 ? "optim_grads" : "optim_grads_params");
        flag(&f, "--no-gradient-accumulation-fusion --ckpt-format fsdp_dtensor");
    }
    if (p->recompute == PP_RECOMPUTE_SELECTIVE)
        flag(&f, "--recompute-granularity selective");
    else if (p->recompute == PP_RECOMPUTE_FULL)
        flag(&f, "--recompute-granularity full --recompute-method uniform --recompute-num-layers 1");
    if (t->dp_overlap && p->dp > 1)
        flag(&f, "--overlap-grad-reduce%s", p->zero >= 1 ? " --overlap-param-gather" : "");
    /* Megatron-LM reduces bf16 gradients in fp32 unless told (the model's default) */
    if (t->precision != PP_PREC_FP16 && t->grad_reduce_dtype == PP_PREC_BF16)
        flag(&f, "--grad-reduce-in-bf16");
    if (t->flash_attention)
        flag(&f, "--use-flash-attn");
    /* a named kernel: Megatron-Core's AttnBackend (enums.py) flash is
     * FlashAttention-2's package, fused Transformer Engine's cuDNN attention */
    if (t->flash_attention && t->attention_kernel != PP_ATTN_AUTO)
        flag(&f, "--attention-backend %s", t->attention_kernel == PP_ATTN_FLASH3 ? "fused" : "flash");
    flag(&f, "--num-layers %d --hidden-size %d --num-attention-heads %d", m->layers, m->hidden, m->heads);
    if (m->kv_heads != m->heads)
        flag(&f, "--group-query-attention --num-query-groups %d", m->kv_heads);
    if (m->head_dim && m->head_dim * m->heads != m->hidden)
        flag(&f, "--kv-channels %d", m->head_dim);
    if (m->ffn_hidden != 4 * m->hidden || m->gated_mlp)
        flag(&f, "--ffn-hidden-size %d%s", m->ffn_hidden, m->gated_mlp ? " --swiglu" : "");
    /* The gated-MLP families parplan knows (Llama, Mistral, Qwen, Nemotron
     * 4) also use RMSNorm, rotary positions and no linear biases; the GPT
     * families Megatron-LM's defaults (LayerNorm, learned positions,
     * biases). */
    if (m->gated_mlp)
        flag(&f, "--normalization RMSNorm --position-embedding-type rope --disable-bias-linear");
    if (!m->tie_embeddings)
        flag(&f, "--untie-embeddings-and-output-weights");
    moe_flags(&f, m, t, p);
    flag(&f, "--seq-length %d --max-position-embeddings %d", m->seq_len, m->seq_len);
    /* the recipe's flags (names.c: Megatron-Core's low-precision training guide) */
    flag(&f, "%s", pp_precision_props(t->precision)->megatron_flags);
    bool low = pp_precision_props(t->precision)->low_gemm;
    if (t->fp8_params && low)
        flag(&f, "--fp8-param-gather");
    if (t->fp8_act_store && low)
        flag(&f, "--activation-func-fp8-input-store");
    return f.n;
}

/* ---- DeepSpeed ------------------------------------------------------------ */

void pp_deepspeed_config(const pp_problem *prob, const pp_plan *p, int microbatches, pp_deepspeed *ds)
{
    const pp_training *t = &prob->training;
    ds->train_batch_size = t->global_batch;
    ds->micro_batch_per_gpu = p->micro_batch;
    ds->gradient_accumulation_steps = microbatches;
    ds->precision_key = t->precision == PP_PREC_FP16 ? "fp16" : "bf16";
    ds->zero_stage = p->zero;
    ds->overlap_comm = p->zero >= 1 && t->dp_overlap;
}

/* ---- plan: how to run it ------------------------------------------------------ */

/* Codec ids come from the catalog or the problem: in a code block they are
 * not Markdown, but keep them to safe characters all the same. */
static void code_word(pp_strbuf *sb, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("-_.", *p))
            pp_sb_appendn(sb, (const char *)p, 1);
}

static void md_megatron(pp_strbuf *sb, const pp_problem *prob, const pp_plan *p)
{
    char lines[PP_MAX_FLAG_LINES][160];
    int n = pp_megatron_flags(prob, p, lines, PP_MAX_FLAG_LINES);
    pp_sb_appendf(sb, "### Megatron-LM\n\n```sh\ntorchrun --nnodes %ld --nproc-per-node %d pretrain_gpt.py \\\n",
                  prob->cluster.nodes, prob->cluster.gpus_per_node);
    for (int i = 0; i < n; i++)
        pp_sb_appendf(sb, "    %s \\\n", lines[i]);
    pp_sb_append(sb, "    ...   # data, tokenizer, optimizer and schedule flags as usual\n```\n\n");
    if (p->zero >= 2)
        pp_sb_append(sb, "ZeRO-2 and ZeRO-3 are Megatron-Core's FSDP (`--use-megatron-fsdp`; older releases call it "
                         "`--use-custom-fsdp`).\n\n");
    /* Megatron-LM sums and reduces gradients in one buffer of one type
     * (--grad-reduce-in-bf16 makes it bf16, else fp32): a problem that asks
     * for different types has no flags that run it. */
    const pp_training *t = &prob->training;
    if (t->precision != PP_PREC_FP16 && t->grad_accum_bytes &&
        t->grad_accum_bytes != (t->grad_reduce_dtype == PP_PREC_FP32 ? 4 : 2))
        pp_sb_appendf(sb, "Megatron-LM holds and reduces gradients in one type (bf16 with `--grad-reduce-in-bf16`, "
                          "else fp32); this problem asks for gradients held in %s and reduced in %s, which it "
                          "cannot run: the flags above reduce in %s and hold them in that type too.\n\n",
                      t->grad_accum_bytes == 4 ? "fp32" : "16 bits", pp_precision_name(t->grad_reduce_dtype),
                      pp_precision_name(t->grad_reduce_dtype));
    if (t->lora_rank > 0)
        pp_sb_appendf(sb, "pretrain\\_gpt.py trains every weight: for LoRA run the same degrees under NeMo's PEFT "
                          "(`model.peft.peft_scheme=lora`, `model.peft.lora_tuning.adapter_dim=%d`, "
                          "`model.peft.lora_tuning.target_modules=%s`).\n\n",
                      t->lora_rank,
                      t->lora_targets == PP_LORA_ALL_LINEAR ? "[attention_qkv,attention_dense,mlp_fc1,mlp_fc2]"
                                                            : "[attention_qkv,attention_dense]");
    if (p->tp_mode != PP_TP_1D)
        pp_sb_appendf(sb, "tp\\_mode=%s is not a Megatron-LM feature: it needs a framework with 2D/2.5D/3D tensor "
                          "parallelism (e.g. Colossal-AI); the other flags still apply.\n\n",
                      pp_tp_mode_name(p->tp_mode));
}

static void md_deepspeed(pp_strbuf *sb, const pp_problem *prob, const pp_plan *p, int m)
{
    pp_deepspeed ds;
    pp_deepspeed_config(prob, p, m, &ds);
    pp_sb_appendf(sb,
                  "### DeepSpeed\n\n```json\n{\n  \"train_batch_size\": %ld,\n  \"train_micro_batch_size_per_gpu\": %d,\n"
                  "  \"gradient_accumulation_steps\": %d,\n  \"%s\": { \"enabled\": true },\n"
                  "  \"zero_optimization\": { \"stage\": %d%s }\n}\n```\n\n",
                  ds.train_batch_size, ds.micro_batch_per_gpu, ds.gradient_accumulation_steps, ds.precision_key,
                  ds.zero_stage, ds.overlap_comm ? ", \"overlap_comm\": true" : "");
    pp_sb_appendf(sb, "DeepSpeed leaves tensor and pipeline parallelism to the model code: with Megatron-DeepSpeed "
                      "pass `--tensor-model-parallel-size %d --pipeline-model-parallel-size %d`%s.",
                  p->tp, p->pp, p->recompute == PP_RECOMPUTE_FULL ? " and `--checkpoint-activations`" : "");
    if (p->zero >= 2 && p->pp > 1)
        pp_sb_append(sb, " DeepSpeed's pipeline engine takes ZeRO stage 0 or 1 only, so this plan needs Megatron-LM.");
    if (p->virtual_stages > 1)
        pp_sb_append(sb, " DeepSpeed's pipeline engine has no interleaved schedule: use Megatron-LM for "
                         "virtual\\_stages > 1.");
    if (p->cp > 1)
        pp_sb_append(sb, " Context parallelism (a ring over the sequence) is Megatron-LM's; DeepSpeed-Ulysses "
                         "splits the sequence differently.");
    if (p->recompute == PP_RECOMPUTE_SELECTIVE)
        pp_sb_append(sb, " Selective recomputation is Megatron-LM's `--recompute-granularity selective`.");
    pp_sb_append(sb, "\n\n");
}

/* Compression runs in MVAPICH-Plus collectives (Xu et al. 2024); its
 * settings are environment variables (MVAPICH-Plus 4.0 GPU compression
 * documentation). */
static void md_compression(pp_strbuf *sb, const pp_problem *prob, const pp_plan *p)
{
    pp_sb_append(sb, "### Compression\n\n");
    int used = 0;
    for (int d = 0; d < PP_DIM_COUNT; d++)
        used += p->codec[d] > 0;
    if (!used) {
        pp_sb_append(sb, "No dimension is compressed: no MPI compression settings are needed.\n\n");
        return;
    }
    int mpi = 0;
    for (int d = 0; d < PP_DIM_COUNT; d++) {
        int i = p->codec[d];
        if (i <= 0 || i >= prob->n_codecs)
            continue;
        const pp_codec *k = &prob->codecs[i];
        if (!k->cast) {
            mpi++;
            continue;
        }
        pp_sb_appendf(sb, "%s traffic: ", pp_dim_name((pp_dim)d));
        code_word(sb, k->id);
        pp_sb_appendf(sb, ", a cast the training framework applies before the collective (%g bits per value: "
                          "DeepSpeed `communication_data_type` for bf16, ZeRO++ `zero_quantized_gradients` or "
                          "1-bit Adam's compressed communication for int8); the collective library needs no "
                          "setting.\n\n",
                      k->bits_per_value);
    }
    if (mpi > 0) {
        pp_sb_append(sb, "Dimensions with an MPI codec run their collectives through MVAPICH2-GDR / MVAPICH-Plus "
                         "with GPU compression (NCCL does not compress). Its settings are environment "
                         "variables:\n\n```sh\nexport MPIR_CVAR_ENABLE_COMPRESSION=1\n");
        for (int d = 0; d < PP_DIM_COUNT; d++) {
            int i = p->codec[d];
            if (i <= 0 || i >= prob->n_codecs || prob->codecs[i].cast)
                continue;
            const pp_codec *k = &prob->codecs[i];
            bool zfp = strncmp(k->id, "zfp", 3) == 0;
            pp_sb_appendf(sb, "# %s traffic: ", pp_dim_name((pp_dim)d));
            code_word(sb, k->id);
            pp_sb_appendf(sb, k->lossy ? " (lossy, %g bits per value)\n" : " (lossless)\n",
                          k->lossy ? k->bits_per_value : 0.0);
            if (zfp)
                pp_sb_appendf(sb, "export MPIR_CVAR_COMPRESSION_ALGORITHM=zfp\nexport MPIR_CVAR_ZFP_RATE=%g\n",
                              k->bits_per_value);
            else
                pp_sb_append(sb, "# MPIR_CVAR_COMPRESSION_ALGORITHM: MVAPICH-Plus 4.0 documents zfp only; this "
                                 "codec needs an MVAPICH build that has it\n");
            if (d == PP_DIM_PP)
                pp_sb_appendf(sb, "export MPIR_CVAR_ENABLE_PT2PT_GPU_COMPRESSION=1\n"
                                  "export MPIR_CVAR_PT2PT_GPU_COMPRESSION_THRESHOLD=%.0f\n",
                              prob->compress_min_bytes);
            else if (d == PP_DIM_DP && p->zero >= 1) /* gradients reduce-scattered */
                pp_sb_append(sb, "export MPIR_CVAR_REDUCE_SCATTER_INTRA_ALGORITHM=osu_ring_compression\n");
            else if (d == PP_DIM_TP && p->sequence_parallel)
                pp_sb_append(sb, "export MPIR_CVAR_REDUCE_SCATTER_INTRA_ALGORITHM=osu_ring_compression\n"
                                 "export MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM=osu_gpu_compression\n");
            else if (d == PP_DIM_DP || d == PP_DIM_TP)
                pp_sb_append(sb, "export MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=osu_ring_compression\n");
            else /* parameter all-gathers */
                pp_sb_append(sb, "export MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM=osu_gpu_compression\n");
        }
        pp_sb_append(sb, "```\n\nThese variables hold for the whole process, not one communicator: if two "
                         "dimensions use different codecs or rates, MVAPICH cannot apply both, and the cheaper "
                         "choice is to keep the one that saves more time (see the runner-ups).\n\n");
    }
    /* The accuracy risk of each lossy choice (docs/cost-model.md §3). */
    static const char *const risk[PP_DIM_COUNT] = {
        [PP_DIM_DP] = "gradients tolerate aggressive compression when the error is fed back into the next step "
                      "(1-bit Adam, ZeRO++ qgZ, Xu et al.'s hybrid at baseline loss); watch the loss curve against "
                      "an uncompressed run for the first thousand steps",
        [PP_DIM_TP] = "activations are consumed at once, so the error enters every layer's output without "
                      "feedback; Xu et al.'s compress-all run lost loss this way",
        [PP_DIM_PP] = "activations and their gradients cross each stage boundary without error feedback; the "
                      "error compounds over the pipeline",
        [PP_DIM_PARAMS] = "parameters gathered with error are the weights the forward pass uses, and ZeRO++ "
                          "keeps them at 8 bits at most (qwZ) for that reason",
    };
    for (int d = 0; d < PP_DIM_COUNT; d++) {
        int i = p->codec[d];
        if (i <= 0 || i >= prob->n_codecs || !prob->codecs[i].lossy)
            continue;
        const pp_codec *k = &prob->codecs[i];
        pp_sb_appendf(sb, "Accuracy risk, %s: ", pp_dim_name((pp_dim)d));
        code_word(sb, k->id);
        pp_sb_appendf(sb, " adds relative error %.2g per message (tolerance %.2g); %s.\n\n", k->rel_error,
                      prob->error_tolerance[d], risk[d]);
    }
}

/* ---- PyTorch FSDP2 / torchtitan ------------------------------------------- */

void pp_torchtitan_config(const pp_problem *prob, const pp_plan *p, pp_torchtitan *tt)
{
    memset(tt, 0, sizeof *tt);
    /* FSDP2 shards over data_parallel_shard_degree and replicates over
     * data_parallel_replicate_degree (HSDP); ZeRO-3 is FULL_SHARD (reshard
     * after forward), ZeRO-2 keeps the gathered parameters between forward
     * and backward (reshard_after_forward "never"), ZeRO-0 is plain
     * replication; FSDP has no ZeRO-1 (torchtitan docs/fsdp.md). */
    long dp = pp_replica_ranks(p) / p->cp;
    tt->shard = p->zero >= 2 ? dp : 1;
    tt->replicate = p->zero >= 2 ? 1 : dp;
    tt->reshard_after_forward = p->zero == 3 ? "always" : "never";
    tt->tp = p->tp;
    tt->pp = p->pp;
    tt->cp = p->cp;
    tt->schedule = p->pp <= 1 ? NULL : p->virtual_stages > 1 ? "Interleaved1F1B" : "1F1B";
    tt->local_batch_size = (long)p->micro_batch * pp_microbatches(prob, p);
    tt->microbatch_size = p->micro_batch;
    tt->global_batch_size = prob->training.global_batch;
    tt->seq_len = prob->model.seq_len;
    tt->async_tp = p->tp_comm_overlap;
    /* the model priced fused element-wise kernels: torchtitan gets them from torch.compile */
    tt->compile = prob->training.fused_elementwise || tt->async_tp;
    tt->ac_mode = p->recompute == PP_RECOMPUTE_FULL ? "full" : p->recompute == PP_RECOMPUTE_SELECTIVE ? "selective" : "none";
    tt->exact = pp_framework_has_zero(PP_FW_FSDP, p->zero) && p->tp_mode == PP_TP_1D && p->codec[PP_DIM_DP] == 0 &&
                p->codec[PP_DIM_TP] == 0 && p->codec[PP_DIM_PP] == 0 && p->codec[PP_DIM_PARAMS] == 0;
}

static void md_torchtitan(pp_strbuf *sb, const pp_problem *prob, const pp_plan *p)
{
    pp_torchtitan tt;
    pp_torchtitan_config(prob, p, &tt);
    pp_sb_appendf(sb, "### PyTorch FSDP2 (torchtitan)\n\n```toml\n[parallelism]\n"
                      "data_parallel_replicate_degree = %ld\ndata_parallel_shard_degree = %ld\n"
                      "fsdp_reshard_after_forward = \"%s\"\ntensor_parallel_degree = %d\n"
                      "context_parallel_degree = %d\npipeline_parallel_degree = %d\n",
                  tt.replicate, tt.shard, tt.reshard_after_forward, tt.tp, tt.cp, tt.pp);
    if (tt.async_tp)
        pp_sb_append(sb, "enable_async_tensor_parallel = true\n");
    if (tt.schedule)
        pp_sb_appendf(sb, "pipeline_parallel_schedule = \"%s\"\npipeline_parallel_microbatch_size = %d\n",
                      tt.schedule, tt.microbatch_size);
    pp_sb_appendf(sb, "\n[training]\nlocal_batch_size = %ld\nglobal_batch_size = %ld\nseq_len = %d\n\n"
                      "[activation_checkpoint]\nmode = \"%s\"\n%s%s```\n\n",
                  tt.local_batch_size, tt.global_batch_size, tt.seq_len, tt.ac_mode,
                  p->recompute == PP_RECOMPUTE_SELECTIVE
                      ? "selective_ac_option = \"op\"  # per-op SAC: what framework fsdp prices as selective\n"
                      : "",
                  tt.compile ? "\n[compile]\nenable = true  # fused element-wise kernels, as priced; AsyncTP needs it\n"
                             : "");
    if (p->zero == 1)
        pp_sb_append(sb, "FSDP has no ZeRO-1: the closest is HSDP or plain replication as above (zero 0), or "
                         "`training.framework: \"fsdp\"` in the problem, which plans with FSDP's own stages.\n\n");
    else if (!tt.exact)
        pp_sb_append(sb, "torchtitan has no 2D/2.5D/3D tensor parallelism and no message compression: this plan "
                         "needs Megatron-LM or Colossal-AI and MVAPICH for those parts.\n\n");
    if (p->pp > 1 && p->zero >= 2)
        pp_sb_append(sb, "With pipeline parallelism torchtitan keeps FSDP's gathered parameters across the micro-"
                         "batches of a step (reshard_after_forward applies per step).\n\n");
}

void pp_md_how_to_run(pp_strbuf *sb, const pp_problem *prob, const pp_plan_result *res)
{
    pp_sb_append(sb, "## How to run it\n\n");
    md_megatron(sb, prob, &res->best.plan);
    md_deepspeed(sb, prob, &res->best.plan, res->best.eval.microbatches);
    md_torchtitan(sb, prob, &res->best.plan);
    md_compression(sb, prob, &res->best.plan);
}

