/*
 * costmodel.c: the training-step cost model (see costmodel.h for its shape and
 * docs/cost-model.md for the derivation and the citation of every term).
 *
 * Conventions: t = tp, p = pp, d = dp, c = cp, b = micro_batch, v =
 * virtual_stages, s = sequence length, h = hidden, a = heads, g = kv_heads,
 * f = ffn_hidden, V = vocab, L = layers.  Activations travel in 16-bit
 * (bf16/fp16) whatever the matrix-multiply precision, as in Megatron-LM and
 * Transformer Engine.  "Per GPU" always means one rank of the busiest stage.
 */
#include "costmodel.h"

#include <math.h>

#define GIB (1024.0 * 1024.0 * 1024.0)
#define ACT_BYTES 2.0        /* bf16/fp16 activations, gradients and weights */
#define ADAM_STATE_BYTES 12.0 /* fp32 master weights, momentum, variance: K = 12 (ZeRO, Rajbhandari 2020) */
#define ADAM_TRAFFIC_BYTES 32.0 /* bytes read + written per parameter by the Adam update */
/* Element-wise HBM traffic, bytes per element per forward pass (§2.3 of the doc):
 * two LayerNorms (read + write), two fused bias-dropout-add (read x, read
 * residual, write, 1-byte mask), bias/rotary: 13 passes over h-wide tensors. */
#define ELEMWISE_H_BYTES 26.0
#define ELEMWISE_F_BYTES 4.0        /* activation function: read + write an f-wide tensor */
#define ELEMWISE_SOFTMAX_BYTES 9.0  /* scale-mask-softmax + dropout on the s x s scores */
#define ELEMWISE_KERNELS_FWD 8.0    /* element-wise kernels launched per layer forward */
#define LOGITS_CE_BYTES 16.0        /* fp32 logits: softmax + cross-entropy, forward and backward */
#define RUNTIME_OTHER_GIB 2.0       /* CUDA context, cuBLAS/NCCL workspaces, allocator slack */

/* ------------------------------------------------------------------------ */
/* Frameworks                                                                */

static const char *const FRAMEWORK_NAMES[PP_FW_COUNT] = {"megatron-core", "megatron-lm-2021", "deepspeed",
                                                         "deepspeed-2021", "fsdp"};

const char *pp_framework_name(pp_framework fw)
{
    return fw >= 0 && fw < PP_FW_COUNT ? FRAMEWORK_NAMES[fw] : "?";
}

void pp_framework_features(pp_framework fw, pp_training *t)
{
    t->framework = fw;
    /* Megatron-LM 2021/2022 materialized the s x s scores (no fused
     * attention) and reduced gradients after the backward pass
     * (Narayanan et al. 2021 §4; Korthikanti et al. 2022 §5). */
    bool classic = fw == PP_FW_MEGATRON_2021 || fw == PP_FW_DEEPSPEED_2021;
    t->flash_attention = !classic;
    t->dp_overlap = !classic;
    /* DeepSpeed ZeRO-3 gathers the parameters of each leaf module on its
     * own (fetch_sub_module): for a GPT layer two LayerNorms and four
     * linear layers.  FSDP and Megatron-Core move one flat buffer per
     * wrapped transformer block. */
    t->param_collectives_per_layer = (fw == PP_FW_DEEPSPEED || fw == PP_FW_DEEPSPEED_2021) ? 6 : 1;
}

/* ------------------------------------------------------------------------ */
/* FLOP and parameter counts                                                 */

static double qkv_width(const pp_model *m)
{
    return m->hidden + 2.0 * m->hidden * m->kv_heads / m->heads;
}

static double mlp_in_width(const pp_model *m)
{
    return (m->gated_mlp ? 2.0 : 1.0) * m->ffn_hidden;
}

double pp_attention_core_fwd_flops(const pp_model *m, double tokens, double seq)
{
    /* QK^T and scores·V: 2 x 2 tokens·seq·h (Megatron counts the full square). */
    return 4.0 * tokens * seq * m->hidden;
}

double pp_layer_fwd_flops(const pp_model *m, double tokens, double seq)
{
    double h = m->hidden;
    double gemm = 2.0 * tokens * h * (qkv_width(m) + h)          /* QKV + output projection */
                  + 2.0 * tokens * h * (mlp_in_width(m) + m->ffn_hidden); /* MLP in + out */
    return gemm + pp_attention_core_fwd_flops(m, tokens, seq);
}

double pp_logits_fwd_flops(const pp_model *m, double tokens)
{
    return 2.0 * tokens * m->hidden * m->vocab;
}

double pp_model_flops_per_step(const pp_model *m, double global_batch)
{
    double tokens = global_batch * m->seq_len;
    return 3.0 * (m->layers * pp_layer_fwd_flops(m, tokens, m->seq_len) + pp_logits_fwd_flops(m, tokens));
}

double pp_hardware_flops_per_step(const pp_model *m, double global_batch, pp_recompute r)
{
    double tokens = global_batch * m->seq_len;
    double extra = 0.0;
    if (r == PP_RECOMPUTE_FULL)
        extra = m->layers * pp_layer_fwd_flops(m, tokens, m->seq_len);
    else if (r == PP_RECOMPUTE_SELECTIVE)
        extra = m->layers * pp_attention_core_fwd_flops(m, tokens, m->seq_len);
    return pp_model_flops_per_step(m, global_batch) + extra;
}

double pp_layer_params(const pp_model *m)
{
    double h = m->hidden;
    double attn = h * qkv_width(m) + qkv_width(m) + h * h + h;         /* weights + biases */
    double mlp = h * mlp_in_width(m) + mlp_in_width(m) + m->ffn_hidden * h + h;
    return attn + mlp + 4.0 * h; /* two LayerNorms: scale and shift */
}

double pp_embedding_params(const pp_model *m)
{
    return (double)m->vocab * m->hidden;
}

double pp_model_params(const pp_model *m)
{
    double emb = pp_embedding_params(m) * (m->tie_embeddings ? 1.0 : 2.0);
    return m->layers * pp_layer_params(m) + emb + 2.0 * m->hidden; /* + final LayerNorm */
}

/* ------------------------------------------------------------------------ */
/* Kernels: matrix multiplies, attention, element-wise work                  */

static double peak_flops(const pp_problem *prob, pp_precision prec)
{
    double tf = prob->cluster.gpu.peak_tflops[prec];
    if (tf <= 0.0)
        tf = prob->cluster.gpu.peak_tflops[PP_PREC_BF16] > 0 ? prob->cluster.gpu.peak_tflops[PP_PREC_BF16]
                                                             : prob->cluster.gpu.peak_tflops[PP_PREC_FP16];
    return tf * 1e12;
}

/* Precision of the attention core and of element-wise work: 16-bit. */
static pp_precision half_precision(const pp_problem *prob)
{
    return prob->cluster.gpu.peak_tflops[PP_PREC_BF16] > 0 ? PP_PREC_BF16 : PP_PREC_FP16;
}

static double hbm_Bps(const pp_problem *prob)
{
    return prob->cluster.gpu.hbm_GBps * 1e9 * prob->cluster.gpu.eff.hbm;
}

/* One matrix multiply (M x K) @ (K x N): the slower of its FLOPs at the
 * sustained tensor-core rate and its operand traffic through HBM (a
 * roofline), plus a fixed launch cost.  Small shapes (high TP degree, small
 * micro-batch) fall onto the memory side of the roofline. */
static double gemm_time_s(const pp_problem *prob, double M, double K, double N)
{
    const pp_efficiency *e = &prob->cluster.gpu.eff;
    double in_bytes = prob->training.precision == PP_PREC_FP8 ? 1.0 : ACT_BYTES;
    double flops_s = 2.0 * M * K * N / (peak_flops(prob, prob->training.precision) * e->gemm);
    double bytes_s = (in_bytes * (M * K + K * N) + ACT_BYTES * M * N) / hbm_Bps(prob);
    return fmax(flops_s, bytes_s) + e->kernel_us * 1e-6;
}

/* ------------------------------------------------------------------------ */
/* Tensor-parallel grids (docs/cost-model.md section 8)                       */

int pp_tp_grid_side(const pp_plan *plan)
{
    long t = plan->tp, d = plan->tp_mode == PP_TP_2P5D ? plan->tp_depth : 1;
    if (t < 1 || d < 1 || t % d)
        return 0;
    long cells = t / d; /* q^2 (2D, 2.5D), q^3 (3D), t (1D) */
    if (plan->tp_mode == PP_TP_1D)
        return plan->tp_depth == 1 ? (int)t : 0;
    int power = plan->tp_mode == PP_TP_3D ? 3 : 2;
    for (long q = 1; q <= cells; q++) {
        long v = power == 3 ? q * q * q : q * q;
        if (v == cells)
            return (int)q;
        if (v > cells)
            break;
    }
    return 0;
}

/* The grid of a checked plan: side q, depth d, and how it divides a layer's
 * token rows and weights on one GPU. */
typedef struct tp_grid {
    pp_tp_mode mode;
    double t, q, d;
    double rows;   /* token rows split: 1 (1D), q (2D), d q (2.5D), q^2 (3D) */
    double wshard; /* weights split: t (1D, 2D, 3D), q^2 (2.5D: replicated over the d layers) */
} tp_grid;

static tp_grid grid_of(const pp_plan *plan)
{
    tp_grid g = {.mode = plan->tp_mode, .t = plan->tp, .q = plan->tp, .d = 1, .rows = 1, .wshard = plan->tp};
    if (plan->tp_mode == PP_TP_1D)
        return g;
    int q = pp_tp_grid_side(plan);
    g.q = q > 0 ? q : 1;
    if (plan->tp_mode == PP_TP_2P5D)
        g.d = plan->tp_depth > 0 ? plan->tp_depth : 1;
    g.rows = plan->tp_mode == PP_TP_3D ? g.q * g.q : g.d * g.q;
    g.wshard = plan->tp_mode == PP_TP_2P5D ? g.q * g.q : g.t;
    return g;
}

/* One matrix multiply (M x K) @ (K x N) of a layer on a 2D/2.5D/3D grid, as
 * one GPU runs it: SUMMA (Optimus, Tesseract) takes q steps, each a product
 * of an (M/q or M/(dq)) x K/q block by a K/q x N/q block; 3D gathers its
 * operands and runs one (M/q) x (K/q) x (N/q) product (Bian et al. 2021;
 * Colossal-AI _Linear3D).  The FLOPs are 2MKN/t in every mode. */
static double grid_gemm_s(const pp_problem *prob, const tp_grid *g, double M, double K, double N)
{
    switch (g->mode) {
    case PP_TP_2D: return g->q * gemm_time_s(prob, M / g->q, K / g->q, N / g->q);
    case PP_TP_2P5D: return g->q * gemm_time_s(prob, M / (g->d * g->q), K / g->q, N / g->q);
    case PP_TP_3D: return gemm_time_s(prob, M / g->q, K / g->q, N / g->q);
    default: return gemm_time_s(prob, M, K, N / g->t);
    }
}

/* The four weight matrices of a layer: K x N for QKV, projection, MLP in, MLP out. */
static void layer_linears(const pp_model *m, double K[4], double N[4])
{
    K[0] = m->hidden, N[0] = qkv_width(m);
    K[1] = m->hidden, N[1] = m->hidden;
    K[2] = m->hidden, N[2] = mlp_in_width(m);
    K[3] = m->ffn_hidden, N[3] = m->hidden;
}

typedef struct layer_kernels {
    double gemm_fwd_s;    /* the four matrix multiplies of a layer's forward */
    double attn_fwd_s;    /* attention core forward (incl. its softmax traffic) */
    double elem_fwd_s;    /* the rest of the forward's element-wise work */
} layer_kernels;

/* Forward kernels of one layer on one GPU for plan's micro-batch.  In
 * 2D/2.5D/3D the matrix multiplies are the grid's and every activation is
 * partitioned over the t GPUs, as sequence parallelism does in 1D. */
static void layer_kernels_fwd(const pp_problem *prob, const pp_plan *plan, layer_kernels *k)
{
    const pp_model *m = &prob->model;
    const pp_efficiency *e = &prob->cluster.gpu.eff;
    double t = plan->tp, s = m->seq_len, h = m->hidden, f = m->ffn_hidden;
    double tokens = (double)plan->micro_batch * s / plan->cp; /* rows of every GEMM */

    tp_grid g = grid_of(plan);
    if (g.mode == PP_TP_1D) {
        k->gemm_fwd_s = gemm_time_s(prob, tokens, h, qkv_width(m) / t) + gemm_time_s(prob, tokens, h / t, h) +
                        gemm_time_s(prob, tokens, h, mlp_in_width(m) / t) + gemm_time_s(prob, tokens, f / t, h);
    } else {
        double K[4], N[4];
        layer_linears(m, K, N);
        k->gemm_fwd_s = 0.0;
        for (int i = 0; i < 4; i++)
            k->gemm_fwd_s += grid_gemm_s(prob, &g, tokens, K[i], N[i]);
    }

    double attn_flops = pp_attention_core_fwd_flops(m, (double)plan->micro_batch * s / plan->cp, s) / t;
    k->attn_fwd_s = attn_flops / (peak_flops(prob, half_precision(prob)) * e->attention) + e->kernel_us * 1e-6;
    if (!prob->training.flash_attention) {
        double scores = (double)plan->micro_batch * (m->heads / t) * (s / plan->cp) * s;
        k->attn_fwd_s += ELEMWISE_SOFTMAX_BYTES * scores / hbm_Bps(prob) + 2.0 * e->kernel_us * 1e-6;
    }

    /* LayerNorm/dropout replicated over 1D TP ranks without SP */
    double h_share = (plan->sequence_parallel || g.mode != PP_TP_1D) ? 1.0 / t : 1.0;
    double act_f = m->gated_mlp ? 1.5 : 1.0;
    double elem_bytes = ELEMWISE_H_BYTES * tokens * h * h_share + ELEMWISE_F_BYTES * act_f * tokens * f / t;
    k->elem_fwd_s = elem_bytes / hbm_Bps(prob) + ELEMWISE_KERNELS_FWD * e->kernel_us * 1e-6;
}

static int layers_per_stage(const pp_problem *prob, const pp_plan *plan)
{
    return prob->model.layers / plan->pp;
}

static bool group_inter_node(const pp_problem *prob, long stride, long size)
{
    return stride * size > prob->cluster.gpus_per_node;
}

/* Ranks of a group (of `size` ranks, `stride` apart) that share a node. */
static long ranks_per_node(const pp_problem *prob, long stride, long size)
{
    long gpn = prob->cluster.gpus_per_node;
    if (stride >= gpn)
        return 1;
    long k = gpn / stride;
    return k < size ? k : size;
}

/* Context-parallel ring exchange of one layer's K and V (Megatron-LM's
 * context parallelism, Llama 3 §3.3.2): c-1 ring steps forward, twice the
 * traffic backward (K,V again and their gradients), each hidden behind the
 * attention core it feeds when it can be.  Returns exposed seconds for
 * forward (*f) and backward (*b). */
static void cp_exchange_exposed(const pp_problem *prob, const pp_plan *plan, const layer_kernels *k,
                                double *f, double *b)
{
    *f = *b = 0.0;
    if (plan->cp <= 1)
        return;
    const pp_model *m = &prob->model;
    double kv_bytes = 2.0 * ACT_BYTES * plan->micro_batch * ((double)m->seq_len / plan->cp) *
                      ((double)m->hidden * m->kv_heads / m->heads) / plan->tp;
    bool inter = group_inter_node(prob, plan->tp, plan->cp);
    double ring_f = (plan->cp - 1) * pp_p2p_time_s(&prob->cluster, kv_bytes, inter);
    *f = fmax(0.0, ring_f - k->attn_fwd_s);
    *b = fmax(0.0, 2.0 * ring_f - 2.0 * k->attn_fwd_s);
}

void pp_term_stage(const pp_problem *prob, const pp_plan *plan, pp_stage_term *out)
{
    const pp_model *m = &prob->model;
    layer_kernels k;
    layer_kernels_fwd(prob, plan, &k);
    double cp_f, cp_b;
    cp_exchange_exposed(prob, plan, &k, &cp_f, &cp_b);

    double layer_fwd = k.gemm_fwd_s + k.attn_fwd_s + k.elem_fwd_s;
    /* Backward: data and weight gradients double every matrix multiply and
     * the attention core; element-wise backward reads and writes twice. */
    double layer_bwd = 2.0 * layer_fwd;
    double recompute = 0.0, cp_recompute = 0.0;
    if (plan->recompute == PP_RECOMPUTE_FULL) {
        recompute = layer_fwd;
        cp_recompute = cp_f;
    } else if (plan->recompute == PP_RECOMPUTE_SELECTIVE) {
        recompute = k.attn_fwd_s;
        cp_recompute = cp_f;
    }

    /* The busiest stage is the last: its layers plus the logits and loss. */
    double tokens = (double)plan->micro_batch * m->seq_len / plan->cp;
    tp_grid g = grid_of(plan);
    double logits_gemm = g.mode == PP_TP_1D ? gemm_time_s(prob, tokens, m->hidden, (double)m->vocab / plan->tp)
                                            : grid_gemm_s(prob, &g, tokens, m->hidden, m->vocab);
    double logits_fwd = logits_gemm + 0.5 * LOGITS_CE_BYTES * tokens * m->vocab / plan->tp / hbm_Bps(prob);
    double logits_bwd = 2.0 * logits_gemm + 0.5 * LOGITS_CE_BYTES * tokens * m->vocab / plan->tp / hbm_Bps(prob);

    int n = layers_per_stage(prob, plan);
    out->fwd_s = n * layer_fwd + logits_fwd;
    out->bwd_s = n * (layer_bwd + recompute) + logits_bwd;
    out->cp_exposed_s = n * (cp_f + cp_b + cp_recompute);
    out->total_s = out->fwd_s + out->bwd_s + out->cp_exposed_s;
}

/* ------------------------------------------------------------------------ */
/* Communication                                                             */

double pp_codec_ratio(const pp_codec *codec, double value_bits)
{
    if (!codec)
        return 1.0;
    if (codec->lossy) {
        /* Fixed rate: bits_per_value on the wire whatever the input type,
         * so rate 16 on 16-bit values saves nothing. */
        double r = codec->bits_per_value > 0.0 ? value_bits / codec->bits_per_value : 1.0;
        return r > 1.0 ? r : 1.0;
    }
    /* Lossless fp32 codecs: their measured ratio on fp32 messages; a 16-bit
     * message is widened to fp32 first, which the codec may not win back. */
    double r = value_bits <= 16.0 && codec->lossless_ratio_16 > 0.0 ? codec->lossless_ratio_16 : codec->lossless_ratio;
    return r > 0.0 ? r : 1.0;
}

static double ring_factor(pp_collective kind, long n)
{
    double f = (double)(n - 1) / (double)n;
    return kind == PP_COLL_ALLREDUCE ? 2.0 * f : f;
}

static double ring_steps(pp_collective kind, long n)
{
    return kind == PP_COLL_ALLREDUCE ? 2.0 * (n - 1) : (double)(n - 1);
}

static double nvlink_Bps(const pp_cluster *c)
{
    return c->intra_node_GBps * 1e9 * c->gpu.eff.nvlink;
}

static double network_Bps(const pp_cluster *c)
{
    return c->inter_node_Gbps / 8.0 * 1e9 * c->gpu.eff.network;
}

/* Ring collective on one link class (alpha-beta, Thakur et al. 2005). */
static double flat_ring_s(pp_collective kind, double bytes, long n, double Bps, double alpha_s)
{
    if (n <= 1 || bytes <= 0.0)
        return 0.0;
    return ring_factor(kind, n) * bytes / Bps + ring_steps(kind, n) * alpha_s;
}

double pp_collective_time_s(const pp_cluster *c, pp_collective kind, double bytes, long n, long k)
{
    if (n <= 1 || bytes <= 0.0)
        return 0.0;
    double a_nv = c->gpu.eff.nvlink_latency_us * 1e-6, a_net = c->gpu.eff.network_latency_us * 1e-6;
    if (k >= n)
        return flat_ring_s(kind, bytes, n, nvlink_Bps(c), a_nv);
    if (k < 1)
        k = 1;
    /* Hierarchical (NCCL tree/ring across nodes, Megatron/NCCL docs): the k
     * ranks of a node first reduce-scatter over NVLink, each then runs the
     * inter-node collective on its 1/k share through its own NIC, and the
     * node all-gathers.  With k = 1 this is a flat ring over the network. */
    long nodes = (n + k - 1) / k;
    if (kind != PP_COLL_ALLREDUCE) {
        /* NCCL runs all-gather and reduce-scatter only as rings: n - 1
         * steps, each as slow as its network hop (NCCL docs, "Algorithms"). */
        double bw = ring_factor(kind, n) * bytes / k / network_Bps(c);
        return bw + (double)(n - 1) * a_net;
    }
    double intra = 0.0;
    if (k > 1) {
        pp_collective in_kind = kind == PP_COLL_ALLREDUCE ? PP_COLL_REDUCESCATTER : kind;
        intra = flat_ring_s(in_kind, bytes, k, nvlink_Bps(c), a_nv);
        if (kind == PP_COLL_ALLREDUCE)
            intra *= 2.0; /* reduce-scatter before, all-gather after */
    }
    return intra + flat_ring_s(kind, bytes / (double)k, nodes, network_Bps(c), a_net);
}

void pp_collective_bytes(pp_collective kind, double bytes, long n, long k, double *nvlink, double *network)
{
    *nvlink = *network = 0.0;
    if (n <= 1 || bytes <= 0.0)
        return;
    if (k >= n) {
        *nvlink = ring_factor(kind, n) * bytes;
        return;
    }
    if (k < 1)
        k = 1;
    /* As pp_collective_time_s: the node's share crosses the network once per
     * GPU (1/k of the buffer); the rest of the ring stays on NVLink. */
    long nodes = (n + k - 1) / k;
    if (kind == PP_COLL_ALLREDUCE) {
        *network = ring_factor(kind, nodes) * bytes / (double)k;
        *nvlink = k > 1 ? 2.0 * ring_factor(PP_COLL_REDUCESCATTER, k) * bytes : 0.0;
    } else {
        *network = ring_factor(kind, n) * bytes / (double)k;
        *nvlink = k > 1 ? ring_factor(kind, k) * bytes : 0.0;
    }
}

double pp_p2p_time_s(const pp_cluster *c, double bytes, bool inter_node)
{
    if (bytes <= 0.0)
        return 0.0;
    if (inter_node)
        return c->gpu.eff.network_latency_us * 1e-6 + bytes / network_Bps(c);
    return c->gpu.eff.nvlink_latency_us * 1e-6 + bytes / nvlink_Bps(c);
}

/* The codec a dimension uses for a message of `bytes`: none below the
 * problem's threshold (MVAPICH compresses only messages >= 1 MiB). */
static const pp_codec *codec_for(const pp_problem *prob, const pp_plan *plan, pp_dim dim, double bytes)
{
    int i = plan->codec[dim];
    if (i <= 0 || i >= prob->n_codecs || bytes < prob->compress_min_bytes)
        return NULL;
    return &prob->codecs[i];
}

/* Compress raw_bytes of value_bits-bit values on the sender and decompress
 * them on the receiver.  The codecs (ZFP, MPC) work on fp32 values, so they
 * process 4 bytes a value whatever the message's type. */
static double codec_time_s(const pp_codec *codec, double raw_bytes, double value_bits)
{
    if (!codec)
        return 0.0;
    raw_bytes *= 32.0 / value_bits;
    double t = 0.0;
    if (codec->compress_GBps > 0.0)
        t += raw_bytes / (codec->compress_GBps * 1e9);
    if (codec->decompress_GBps > 0.0)
        t += raw_bytes / (codec->decompress_GBps * 1e9);
    return t;
}

/* `count` collectives, each issued as `pieces` equal collectives (ZeRO-3
 * gathers layer by layer or module by module): wire time on the compressed
 * message, codec time on every chunk the ring sends (compress) and
 * receives (decompress). */
static void compressed_collective(const pp_problem *prob, const pp_plan *plan, pp_dim dim,
                                  pp_collective kind, double bytes, double value_bits, long n, long k,
                                  pp_comm_term *acc, double count, double pieces)
{
    if (n <= 1 || bytes <= 0.0 || count <= 0.0)
        return;
    double piece = bytes / pieces;
    const pp_codec *codec = codec_for(prob, plan, dim, piece);
    double wire = piece / pp_codec_ratio(codec, value_bits);
    acc->wire_s += count * pieces * pp_collective_time_s(&prob->cluster, kind, wire, n, k);
    acc->codec_s += count * codec_time_s(codec, ring_factor(kind, n) * bytes, value_bits);
    double nvl, net;
    pp_collective_bytes(kind, wire, n, k, &nvl, &net);
    acc->bytes_nvlink += count * pieces * nvl;
    acc->bytes_network += count * pieces * net;
    acc->bytes_sent += count * pieces * (nvl + net);
}

/* One collective of a grid's tensor-parallel traffic over a group of n
 * ranks, `stride` apart: returns its wire time; adds `count` times its codec
 * time and bytes to acc (the TP codec, on values of value_bits bits). */
static double grid_collective(const pp_problem *prob, const pp_plan *plan, pp_collective kind, double bytes,
                              double value_bits, long stride, long n, double count, pp_comm_term *acc)
{
    if (n <= 1 || bytes <= 0.0)
        return 0.0;
    long k = ranks_per_node(prob, stride, n);
    const pp_codec *codec = codec_for(prob, plan, PP_DIM_TP, bytes);
    double wire = bytes / pp_codec_ratio(codec, value_bits);
    double nvl, net;
    pp_collective_bytes(kind, wire, n, k, &nvl, &net);
    acc->codec_s += count * codec_time_s(codec, ring_factor(kind, n) * bytes, value_bits);
    acc->bytes_nvlink += count * nvl;
    acc->bytes_network += count * net;
    acc->bytes_sent += count * (nvl + net);
    if (group_inter_node(prob, stride, n))
        acc->inter_node = true;
    return pp_collective_time_s(&prob->cluster, kind, wire, n, k);
}

/* What a SUMMA product of q steps leaves exposed of its C seconds of
 * traffic next to its G seconds of multiplies: Colossal-AI double-buffers
 * the broadcasts (and reductions) of step i+1 behind the multiply of step i,
 * so the first step's transfer is exposed and then whatever the traffic
 * takes beyond the multiply: C/q + (q-1)/q max(0, C - G). */
static double summa_exposed_s(double C, double G, double q)
{
    return C / q + (q - 1.0) / q * fmax(0.0, C - G);
}

/* Tensor-parallel traffic of one linear layer (M token rows, K x N weight)
 * on a 2D/2.5D/3D grid: forward `fwd` times, backward `bwd` times.  Element
 * counts are the full buffer each collective leaves on (all-gather) or
 * takes from (reduce-scatter) one GPU:
 *
 *   2D, 2.5D (SUMMA; Optimus arXiv 2104.05343, Tesseract arXiv 2105.14500,
 *   Colossal-AI Matmul_AB/ABT/ATB_2p5D): A = M K / (d q) of the activation
 *   panel over the row group (stride 1), B = K N / q of the weight panel over
 *   the column group (stride q).  The q broadcasts of a panel move the bytes
 *   of one ring all-gather of it, the q reductions those of a reduce-scatter
 *   (6 (q-1)/q panel volumes and 6 (q-1) steps per layer: the Colossal-AI
 *   table).  Forward C = AB: gather A and B; backward dA = dC B^T: gather B,
 *   reduce dA; dB = A^T dC: gather A, reduce dB.
 *
 *   3D (arXiv 2105.14450, Colossal-AI _Linear3D): all-gather X (M K / q^2)
 *   over the input group (stride q), W (K N / q^2) over the weight group
 *   (stride 1), reduce-scatter Y (M N / q^2) over the output group (stride
 *   q^2); backward all-gathers dY and reduce-scatters dX and dW.  Blocking:
 *   nothing is hidden. */
static void grid_linear(const pp_problem *prob, const pp_plan *plan, const tp_grid *g, double M, double K,
                        double N, double fwd, double bwd, pp_comm_term *out)
{
    const double bits = 8.0 * ACT_BYTES;
    long q = (long)g->q;
    if (g->mode == PP_TP_3D) {
        double X = ACT_BYTES * M * K / (g->q * g->q), W = ACT_BYTES * K * N / (g->q * g->q);
        double Y = ACT_BYTES * M * N / (g->q * g->q);
        double cf = grid_collective(prob, plan, PP_COLL_ALLGATHER, X, bits, q, q, fwd, out) +
                    grid_collective(prob, plan, PP_COLL_ALLGATHER, W, bits, 1, q, fwd, out) +
                    grid_collective(prob, plan, PP_COLL_REDUCESCATTER, Y, bits, q * q, q, fwd, out);
        double cb = grid_collective(prob, plan, PP_COLL_ALLGATHER, Y, bits, q * q, q, bwd, out) +
                    grid_collective(prob, plan, PP_COLL_REDUCESCATTER, X, bits, q, q, bwd, out) +
                    grid_collective(prob, plan, PP_COLL_REDUCESCATTER, W, bits, 1, q, bwd, out);
        out->wire_s += fwd * cf + bwd * cb;
        return;
    }
    double A = ACT_BYTES * M * K / (g->d * g->q), B = ACT_BYTES * K * N / g->q;
    double G = grid_gemm_s(prob, g, M, K, N);
    double cf = grid_collective(prob, plan, PP_COLL_ALLGATHER, A, bits, 1, q, fwd, out) +
                grid_collective(prob, plan, PP_COLL_ALLGATHER, B, bits, q, q, fwd, out);
    double c_da = grid_collective(prob, plan, PP_COLL_ALLGATHER, B, bits, q, q, bwd, out) +
                  grid_collective(prob, plan, PP_COLL_REDUCESCATTER, A, bits, 1, q, bwd, out);
    double c_db = grid_collective(prob, plan, PP_COLL_ALLGATHER, A, bits, 1, q, bwd, out) +
                  grid_collective(prob, plan, PP_COLL_REDUCESCATTER, B, bits, q, q, bwd, out);
    out->wire_s += fwd * summa_exposed_s(cf, G, g->q) +
                   bwd * (summa_exposed_s(c_da, G, g->q) + summa_exposed_s(c_db, G, g->q));
}

/* Tensor-parallel traffic of one micro-batch on the busiest stage in
 * 2D/2.5D/3D: the four linear layers of each layer, the LayerNorm
 * statistics (fp32 per token row: 2D/2.5D all-reduce the mean and the
 * variance forward and two sums backward over the row group, Colossal-AI
 * LayerNorm2p5D; 3D one stacked all-reduce each way over the output group,
 * Layernorm3D), and the logits layer of the last stage as a fifth linear.
 * Full recomputation repeats the forward traffic.  The depth all-reduce of
 * 2.5D's weight gradients is once per step and sits in the DP term. */
static void grid_tp_comm(const pp_problem *prob, const pp_plan *plan, pp_comm_term *out)
{
    const pp_model *m = &prob->model;
    tp_grid g = grid_of(plan);
    double M = (double)plan->micro_batch * m->seq_len / plan->cp;
    double n = layers_per_stage(prob, plan);
    double fwd = plan->recompute == PP_RECOMPUTE_FULL ? 2.0 : 1.0;
    double K[4], N[4];
    layer_linears(m, K, N);
    for (int i = 0; i < 4; i++)
        grid_linear(prob, plan, &g, M, K[i], N[i], n * fwd, n, out);
    grid_linear(prob, plan, &g, M, m->hidden, m->vocab, 1.0, 1.0, out);

    /* LayerNorm statistics: two LayerNorms a layer; fp32 sums per token row
     * of this GPU, latency-bound. */
    double rows = M / g.rows;
    bool three_d = g.mode == PP_TP_3D;
    double stats = (three_d ? 2.0 : 1.0) * 4.0 * rows;
    long stride = three_d ? (long)(g.q * g.q) : 1;
    double per_pass = three_d ? 2.0 : 4.0; /* all-reduces per layer and pass */
    double count = n * per_pass * (fwd + 1.0);
    out->wire_s += count * grid_collective(prob, plan, PP_COLL_ALLREDUCE, stats, 32.0, stride, (long)g.q, count, out);
    out->total_s = out->wire_s + out->codec_s;
}

void pp_term_tp_comm(const pp_problem *prob, const pp_plan *plan, pp_comm_term *out)
{
    *out = (pp_comm_term){0};
    if (plan->tp <= 1)
        return;
    if (plan->tp_mode != PP_TP_1D) {
        grid_tp_comm(prob, plan, out);
        return;
    }
    const pp_model *m = &prob->model;
    /* Megatron 1D (Shoeybi et al. 2019 §3): two all-reduces of the layer's
     * activations forward (after attention and after the MLP) and two
     * backward; under sequence parallelism each becomes an all-gather plus
     * a reduce-scatter, the same ring volume (Korthikanti et al. 2022 §4.2.2).
     * Full recomputation repeats the forward pair. */
    double bytes = ACT_BYTES * plan->micro_batch * ((double)m->seq_len / plan->cp) * m->hidden;
    double per_layer = 4.0 + (plan->recompute == PP_RECOMPUTE_FULL ? 2.0 : 0.0);
    long k = ranks_per_node(prob, 1, plan->tp);
    compressed_collective(prob, plan, PP_DIM_TP, PP_COLL_ALLREDUCE, bytes, 8.0 * ACT_BYTES, plan->tp, k, out,
                          per_layer * layers_per_stage(prob, plan), 1.0);
    out->inter_node = group_inter_node(prob, 1, plan->tp);
    out->total_s = out->wire_s + out->codec_s;
}

void pp_term_pp_comm(const pp_problem *prob, const pp_plan *plan, pp_comm_term *out)
{
    *out = (pp_comm_term){0};
    if (plan->pp <= 1)
        return;
    const pp_model *m = &prob->model;
    /* One activation forward and one gradient backward per micro-batch and
     * model chunk, split across the TP ranks (Megatron's scatter/gather
     * optimization, Narayanan et al. 2021 §4.1); the receiving stage waits
     * for it, so it sits on the critical path. */
    double bytes = ACT_BYTES * plan->micro_batch * ((double)m->seq_len / plan->cp) * m->hidden / plan->tp;
    long stride = (long)plan->tp * plan->cp * plan->dp;
    bool inter = group_inter_node(prob, stride, plan->pp);
    const pp_codec *codec = codec_for(prob, plan, PP_DIM_PP, bytes);
    double wire = bytes / pp_codec_ratio(codec, 8.0 * ACT_BYTES);
    double sends = 2.0 * plan->virtual_stages;
    out->wire_s = sends * pp_p2p_time_s(&prob->cluster, wire, inter);
    out->codec_s = sends * codec_time_s(codec, bytes, 8.0 * ACT_BYTES);
    out->bytes_sent = sends * wire;
    if (inter)
        out->bytes_network = out->bytes_sent;
    else
        out->bytes_nvlink = out->bytes_sent;
    out->inter_node = inter;
    out->total_s = out->wire_s + out->codec_s;
}

/* Parameters held by one GPU of the given stage (0 or pp-1) before ZeRO. */
static double stage_params(const pp_problem *prob, const pp_plan *plan, int stage)
{
    const pp_model *m = &prob->model;
    double emb = pp_embedding_params(m);
    double embeddings = emb; /* input table on stage 0, output (or its tied copy) on the last */
    if (plan->pp == 1 && !m->tie_embeddings)
        embeddings = 2.0 * emb;
    (void)stage;
    /* Split by t, except 2.5D, which replicates its q x q weight blocks over
     * the d layers of the grid (Tesseract). */
    tp_grid g = grid_of(plan);
    return (layers_per_stage(prob, plan) * pp_layer_params(m) + embeddings) / g.wshard;
}

void pp_term_dp_comm(const pp_problem *prob, const pp_plan *plan, pp_dp_term *out)
{
    *out = (pp_dp_term){0};
    tp_grid g = grid_of(plan);
    bool depth = g.mode == PP_TP_2P5D && g.d > 1;
    if (plan->dp <= 1 && !depth)
        return;
    int mb = pp_microbatches(prob, plan);
    double params = stage_params(prob, plan, 0);
    /* Gradients travel in training.grad_reduce_dtype, parameters in 16 bits. */
    double grad_bits = prob->training.grad_reduce_dtype == PP_PREC_FP32 ? 32.0 : 8.0 * ACT_BYTES;
    double grad_bytes = grad_bits / 8.0 * params, param_bytes = ACT_BYTES * params;
    long stride = (long)plan->tp * plan->cp;
    long n = plan->dp, k = ranks_per_node(prob, stride, n);
    pp_comm_term once = {0}, per_mb = {0};
    /* ZeRO (Rajbhandari et al. 2020 §7): stages 0-2 move 2 Psi per step (an
     * all-reduce, or reduce-scatter + all-gather of the same volume); stage 2
     * reduce-scatters every micro-batch; stage 3 also gathers the parameters
     * for every forward and backward (3 Psi, 1.5x).  From stage 1 on, the
     * all-gather half carries the updated parameters (DeepSpeed ZeRO-1/2,
     * Megatron's distributed optimizer): it takes the params codec, the
     * reduce-scatter half the DP (gradient) codec; each half is priced as
     * half of the all-reduce, which is the all-reduce when both are equal. */
    int per_layer = prob->training.param_collectives_per_layer > 0 ? prob->training.param_collectives_per_layer : 1;
    double pieces = (double)layers_per_stage(prob, plan) * per_layer;
    switch (n > 1 ? plan->zero : -1) {
    case -1: break; /* dp = 1: only the depth all-reduce below */
    case 0:
        compressed_collective(prob, plan, PP_DIM_DP, PP_COLL_ALLREDUCE, grad_bytes, grad_bits, n, k, &once, 1.0,
                              1.0);
        break;
    case 1:
    case 2:
        compressed_collective(prob, plan, PP_DIM_DP, PP_COLL_ALLREDUCE, grad_bytes, grad_bits, n, k, &once, 0.5,
                              1.0);
        compressed_collective(prob, plan, PP_DIM_PARAMS, PP_COLL_ALLREDUCE, param_bytes, 8.0 * ACT_BYTES, n, k,
                              &once, 0.5, 1.0);
        if (plan->zero == 2)
            compressed_collective(prob, plan, PP_DIM_DP, PP_COLL_REDUCESCATTER, grad_bytes, grad_bits, n, k,
                                  &per_mb, (mb - 1.0) / mb, pieces);
        break;
    default:
        compressed_collective(prob, plan, PP_DIM_DP, PP_COLL_REDUCESCATTER, grad_bytes, grad_bits, n, k, &once,
                              1.0, pieces);
        compressed_collective(prob, plan, PP_DIM_PARAMS, PP_COLL_ALLGATHER, param_bytes, 8.0 * ACT_BYTES, n, k,
                              &per_mb, 2.0, pieces);
        compressed_collective(prob, plan, PP_DIM_DP, PP_COLL_REDUCESCATTER, grad_bytes, grad_bits, n, k, &per_mb,
                              (mb - 1.0) / mb, pieces);
        break;
    }
    /* 2.5D: each of the d layers of the grid computes its rows' share of
     * the weight gradients of the q x q blocks it replicates; they are summed
     * by an all-reduce over the depth group (stride q^2) once per step, with
     * the data-parallel reduction (Tesseract; Colossal-AI reduces only over
     * the row and column groups inside a product). */
    bool depth_inter = false;
    if (depth) {
        long ds = (long)(g.q * g.q), dn = (long)g.d;
        compressed_collective(prob, plan, PP_DIM_DP, PP_COLL_ALLREDUCE, grad_bytes, grad_bits, dn,
                              ranks_per_node(prob, ds, dn), &once, 1.0, 1.0);
        depth_inter = group_inter_node(prob, ds, dn);
    }
    out->once_wire_s = once.wire_s;
    out->per_mb_wire_s = per_mb.wire_s;
    out->codec_s = once.codec_s + mb * per_mb.codec_s;
    out->bytes_sent = once.bytes_sent + mb * per_mb.bytes_sent;
    out->bytes_nvlink = once.bytes_nvlink + mb * per_mb.bytes_nvlink;
    out->bytes_network = once.bytes_network + mb * per_mb.bytes_network;
    out->inter_node = (n > 1 && k < n) || depth_inter;
}

double pp_dp_once_window_s(const pp_problem *prob, const pp_plan *plan, const pp_stage_term *st)
{
    /* Gradient buckets are reduced while the last micro-batch's backward runs
     * (PyTorch DDP, Li et al. 2020; Megatron-Core overlap_grad_reduce). */
    (void)plan;
    return prob->training.dp_overlap ? st->bwd_s : 0.0;
}

double pp_dp_per_mb_window_s(const pp_problem *prob, const pp_plan *plan, const pp_stage_term *st)
{
    /* FSDP / ZeRO-3 prefetch the next layer's parameters during this one's
     * compute (Zhao et al. 2023, PyTorch FSDP §3.4). */
    (void)plan;
    return prob->training.dp_overlap ? st->fwd_s + st->bwd_s : 0.0;
}

double pp_term_optimizer_s(const pp_problem *prob, const pp_plan *plan)
{
    double shard = stage_params(prob, plan, 0) / (plan->zero >= 1 ? plan->dp : 1);
    return ADAM_TRAFFIC_BYTES * shard / hbm_Bps(prob);
}

/* ------------------------------------------------------------------------ */
/* Pipeline                                                                   */

int pp_microbatches(const pp_problem *prob, const pp_plan *plan)
{
    long per_pipeline = (long)plan->dp * plan->micro_batch;
    if (per_pipeline <= 0 || prob->training.global_batch % per_pipeline != 0)
        return 0;
    long m = prob->training.global_batch / per_pipeline;
    return m > 0x7fffffffL ? 0 : (int)m;
}

double pp_pipeline_factor(const pp_problem *prob, const pp_plan *plan)
{
    /* 1F1B: m slots of work plus (p-1) of fill and drain; interleaving with
     * v chunks shrinks the bubble to (p-1)/v (Narayanan et al. 2021 §2.2). */
    return pp_microbatches(prob, plan) + (double)(plan->pp - 1) / plan->virtual_stages;
}

/* ------------------------------------------------------------------------ */
/* Memory                                                                     */

void pp_model_state_bytes(double psi, int zero, double d, double *weights, double *grads, double *optim)
{
    /* Mixed-precision Adam, ZeRO Table 1: 2 + 2 + 12 bytes per parameter,
     * partitioned over the d data-parallel ranks by stage. */
    *weights = ACT_BYTES * psi / (zero >= 3 ? d : 1.0);
    *grads = ACT_BYTES * psi / (zero >= 2 ? d : 1.0);
    *optim = ADAM_STATE_BYTES * psi / (zero >= 1 ? d : 1.0);
}

void pp_mem_states_gib(const pp_problem *prob, const pp_plan *plan, int stage, double *weights,
                       double *grads, double *optim)
{
    pp_model_state_bytes(stage_params(prob, plan, stage), plan->zero, plan->dp, weights, grads, optim);
    *weights /= GIB;
    *grads /= GIB;
    *optim /= GIB;
}

/* Activation bytes one layer keeps for backward, per micro-batch, on one GPU
 * (Korthikanti et al. 2022 §4, generalized to grouped-query attention and
 * gated MLPs).  sbh = micro_batch x local sequence x hidden. */
double pp_layer_activation_bytes(const pp_problem *prob, const pp_plan *plan, bool store_scores)
{
    const pp_model *m = &prob->model;
    double t = plan->tp, s = (double)m->seq_len / plan->cp, b = plan->micro_batch;
    double sbh = s * b * m->hidden, sbf = s * b * m->ffn_hidden, kv = (double)m->kv_heads / m->heads;
    /* Not split by TP unless sequence parallel: two LayerNorm inputs (4),
     * QKV and MLP inputs (2 + 2), two dropout masks (1 + 1): 10 sbh. */
    double replicated = 10.0 * sbh;
    /* Split by TP: Q (2) K, V (2 kv each), projection input (2), MLP. */
    double mlp = m->gated_mlp ? 6.0 * sbf : 4.0 * sbf;
    double split = (2.0 + 4.0 * kv + 2.0) * sbh + mlp;
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

double pp_mem_activations_gib(const pp_problem *prob, const pp_plan *plan, int stage)
{
    const pp_model *m = &prob->model;
    int mb = pp_microbatches(prob, plan);
    bool scores = plan->recompute == PP_RECOMPUTE_NONE && !prob->training.flash_attention;
    double full_layer = pp_layer_activation_bytes(prob, plan, scores);
    double per_layer = full_layer, working = 0.0;
    if (plan->recompute == PP_RECOMPUTE_FULL) {
        /* Only each layer's input is kept; one layer is rebuilt at a time. */
        double sbh = (double)m->seq_len / plan->cp * plan->micro_batch * m->hidden;
        bool split = plan->sequence_parallel || plan->tp_mode != PP_TP_1D;
        per_layer = ACT_BYTES * sbh / (split ? plan->tp : 1.0);
        working = pp_layer_activation_bytes(prob, plan, !prob->training.flash_attention);
    }
    /* 1F1B: stage i keeps p - i micro-batches in flight, so stage 0 holds p
     * (at most m); interleaving adds (p-1)/(p v) (Korthikanti et al. §4.2.3). */
    double in_flight = 1.0;
    if (stage == 0) {
        in_flight = plan->pp < mb ? plan->pp : mb;
        if (plan->virtual_stages > 1)
            in_flight *= 1.0 + (plan->pp - 1.0) / ((double)plan->pp * plan->virtual_stages);
    }
    double bytes = layers_per_stage(prob, plan) * per_layer * in_flight + working;
    if (stage == plan->pp - 1) /* fp32 logits of the micro-batch for the loss */
        bytes += 4.0 * plan->micro_batch * ((double)m->seq_len / plan->cp) * m->vocab / plan->tp;
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

void pp_memory_eval(const pp_problem *prob, const pp_plan *plan, pp_memory *out)
{
    pp_memory first, last;
    memory_of_stage(prob, plan, 0, &first);
    memory_of_stage(prob, plan, plan->pp - 1, &last);
    *out = last.total_gib > first.total_gib ? last : first;
    out->capacity_gib = prob->cluster.gpu.memory_gib;
    out->usable_gib = out->capacity_gib * (1.0 - prob->memory_headroom);
}

/* ------------------------------------------------------------------------ */
/* Composition                                                                */

typedef struct step_parts {
    pp_stage_term stage;
    pp_comm_term tp, pp;
    pp_dp_term dp;
    double optimizer_s;
    double factor;
    int m;
    double dp_once_exposed_s, dp_per_mb_exposed_s;
} step_parts;

static void step_parts_eval(const pp_problem *prob, const pp_plan *plan, step_parts *sp)
{
    pp_term_stage(prob, plan, &sp->stage);
    pp_term_tp_comm(prob, plan, &sp->tp);
    pp_term_pp_comm(prob, plan, &sp->pp);
    pp_term_dp_comm(prob, plan, &sp->dp);
    sp->optimizer_s = pp_term_optimizer_s(prob, plan);
    sp->factor = pp_pipeline_factor(prob, plan);
    sp->m = pp_microbatches(prob, plan);
    sp->dp_once_exposed_s = fmax(0.0, sp->dp.once_wire_s - pp_dp_once_window_s(prob, plan, &sp->stage));
    sp->dp_per_mb_exposed_s =
        fmax(0.0, sp->m * sp->dp.per_mb_wire_s - sp->m * pp_dp_per_mb_window_s(prob, plan, &sp->stage));
}

static double slot_s(const step_parts *sp)
{
    return sp->stage.total_s + sp->tp.total_s + sp->pp.total_s;
}

double pp_step_time_s(const pp_problem *prob, const pp_plan *plan)
{
    step_parts sp;
    step_parts_eval(prob, plan, &sp);
    return sp.factor * slot_s(&sp) + sp.dp_once_exposed_s + sp.dp_per_mb_exposed_s + sp.dp.codec_s +
           sp.optimizer_s;
}

void pp_evaluate(const pp_problem *prob, const pp_plan *plan, pp_eval *out)
{
    *out = (pp_eval){0};
    step_parts sp;
    step_parts_eval(prob, plan, &sp);
    double m = sp.m, bubble_slots = sp.factor - m;
    pp_time *t = &out->time;
    t->compute_s = m * (sp.stage.fwd_s + sp.stage.bwd_s);
    t->cp_comm_s = m * sp.stage.cp_exposed_s;
    t->tp_comm_s = m * sp.tp.wire_s;
    t->pp_comm_s = m * sp.pp.wire_s;
    t->bubble_s = bubble_slots * slot_s(&sp);
    t->dp_comm_s = sp.dp_once_exposed_s + sp.dp_per_mb_exposed_s;
    t->compression_s = m * (sp.tp.codec_s + sp.pp.codec_s) + sp.dp.codec_s;
    t->optimizer_s = sp.optimizer_s;
    t->exposed_comm_s = t->tp_comm_s + t->cp_comm_s + t->pp_comm_s + t->dp_comm_s;
    t->step_s = t->compute_s + t->bubble_s + t->exposed_comm_s + t->compression_s + t->optimizer_s;

    pp_memory_eval(prob, plan, &out->mem);

    const pp_model *mod = &prob->model;
    double B = (double)prob->training.global_batch;
    out->gpus_used = plan->tp * plan->pp * plan->dp * plan->cp;
    out->microbatches = sp.m;
    out->tokens_per_s = B * mod->seq_len / t->step_s;
    out->model_flops_per_step = pp_model_flops_per_step(mod, B);
    out->hardware_flops_per_step = pp_hardware_flops_per_step(mod, B, plan->recompute);
    out->model_tflops_per_gpu = out->model_flops_per_step / t->step_s / out->gpus_used / 1e12;
    out->hardware_tflops_per_gpu = out->hardware_flops_per_step / t->step_s / out->gpus_used / 1e12;
    out->peak_tflops = peak_flops(prob, prob->training.precision) / 1e12;
    out->mfu = out->model_tflops_per_gpu / out->peak_tflops;

    out->bytes_network_per_step = m * (sp.tp.bytes_network + sp.pp.bytes_network) + sp.dp.bytes_network;
    out->bytes_nvlink_per_step = m * (sp.tp.bytes_nvlink + sp.pp.bytes_nvlink) + sp.dp.bytes_nvlink;
}
