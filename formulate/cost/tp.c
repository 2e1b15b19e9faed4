/*
 * tp.c: the tensor-parallel term, the traffic of one micro-batch on the
 * busiest stage, in 1D and on the grid of 2D/2.5D/3D tensor parallelism
 * (layout.c lays the grid out; docs/cost-model.md §3 and §8).
 *
 * 1D (Megatron, Shoeybi et al. 2019 §3): per layer two all-reduces of the
 * b s h activations forward and two backward (full recomputation repeats
 * the forward pair); sequence parallelism turns each into an all-gather and
 * a reduce-scatter of the same ring volume (Korthikanti et al. 2022 §4.2.2).
 *
 * 2D and 2.5D (SUMMA: Optimus, Tesseract, Colossal-AI) gather activation
 * and weight panels over the row and column groups of a q x q grid (d of
 * them in 2.5D, so t = d q^2) and hide step i+1's traffic behind step i's
 * multiply, leaving C/q + (q-1)/q max(0, C - G) of C seconds of traffic next
 * to G of multiplies exposed.  3D (t = q^3, Colossal-AI _Linear3D) gathers
 * and reduce-scatters its operands over three groups and hides nothing.
 */
#include "cost_terms.h"

#include <math.h>

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
    pp_collective_bytes_on(&prob->cluster, kind, wire, n, k, true, &nvl, &net);
    double w = pp_collective_time_s(&prob->cluster, kind, wire, n, k);
    double coded = codec_bytes(codec, kind, bytes, n);
    acc->codec_s += count * codec_exposed_s(prob, codec, w, codec_time_s(prob, codec, coded, value_bits), coded);
    acc->bytes_nvlink += count * nvl;
    acc->bytes_network += count * net;
    acc->bytes_sent += count * (nvl + net);
    if (group_inter_node(prob, stride, n))
        acc->inter_node = true;
    return w;
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

/* 1D tensor parallelism with its collectives pipelined into its GEMMs
 * (Wang et al. 2023, "Overlap Communication with Dependent Computation via
 * Decomposition", ASPLOS; Transformer Engine's userbuffers behind
 * Megatron-Core's --tp-comm-overlap; torchtitan's AsyncTP): under sequence
 * parallelism each linear layer's all-gather (before QKV and MLP-in) or
 * reduce-scatter (after the output projection and MLP-out) is cut into t
 * pieces, and piece i+1 moves while the GEMM runs on piece i.  Of C
 * seconds of traffic next to G seconds of that GEMM the first piece stays
 * exposed, then whatever the traffic takes beyond the GEMM:
 * C/t + (t-1)/t max(0, C - G), the SUMMA pipeline above with q = t.
 * Cutting a GEMM into t launches costs t-1 more launches.  Backward
 * overlaps the same traffic with the data- and weight-gradient GEMMs
 * (linear_bwd_s); full recomputation repeats the forward.  PyTorch's
 * AsyncTP (framework fsdp) fuses only a matmul feeding a reduce-scatter on
 * its own: in the backward graph the reduce-scatter after QKV's and
 * MLP-in's data gradient takes a sum of matmuls (q, k, v; gate and up), so
 * it runs unfused and exposed (pytorch/pytorch#149946, review of
 * 2025-03-28: "only valid scaled_mm-reduce-scatter patterns in the forward
 * graph, but not in the backward graph"); Transformer Engine overlaps it
 * with the weight-gradient GEMM (its "bulk" overlap).  Returns the exposed
 * seconds of one layer's TP traffic. */
static double overlapped_layer_s(const pp_problem *prob, const pp_plan *plan, double bytes, long k)
{
    const pp_model *m = &prob->model;
    double t = plan->tp, tokens = (double)plan->micro_batch * m->seq_len / plan->cp;
    double C = pp_collective_time_s(&prob->cluster, PP_COLL_ALLGATHER, bytes, plan->tp, k);
    double K[4], N[4];
    layer_linears(m, K, N);
    double launches = (t - 1.0) * prob->cluster.gpu.eff.kernel_us * 1e-6;
    bool frozen = prob->training.lora_rank > 0;
    double fwd = 0.0, bwd = 0.0;
    for (int i = 0; i < 4; i++) {
        bool column = i % 2 == 0; /* QKV and MLP-in split N; projection and MLP-out split K */
        double Ki = column ? K[i] : K[i] / t, Ni = column ? N[i] / t : N[i];
        double G = gemm_time_s(prob, tokens, Ki, Ni), G_bwd = linear_bwd_s(prob, tokens, Ki, Ni, frozen);
        double exposed = summa_exposed_s(C, G, t) + launches;
        fwd += exposed;
        bool unfused = column && prob->training.framework == PP_FW_FSDP; /* AsyncTP's backward reduce-scatter */
        bwd += unfused ? C : summa_exposed_s(C, G_bwd, t) + 2.0 * launches;
        if (column && op_sac(prob, plan)) /* its all-gathers are recomputed, the reduce-scatters saved */
            bwd += exposed;
    }
    return (plan->recompute == PP_RECOMPUTE_FULL ? 2.0 : 1.0) * fwd + bwd;
}

/* Of C seconds of a collective issued asynchronously next to a GEMM of G
 * seconds: what the GEMM does not cover, and the SMs the collective's
 * kernels take from the GEMM while it runs (device.c pp_comm_sm_share). */
static double behind_gemm_s(double C, double G, double sm_share)
{
    return fmax(0.0, C - G) + sm_share * fmin(C, G);
}

/* The exposed seconds of one layer's backward TP traffic where the framework
 * issues it asynchronously (training.tp_bwd_overlap; frameworks.c): a
 * column-parallel layer (QKV, MLP-in) computes its data gradient, launches
 * the input gradient's all-reduce (under sequence parallelism its
 * reduce-scatter) and computes its weight gradient meanwhile; under sequence
 * parallelism it first re-gathers its input, which the forward did not keep
 * whole, behind the data-gradient GEMM.  A row-parallel layer's backward
 * (projection, MLP-out) has no collective without sequence parallelism and,
 * with it, gathers its output gradient before anything can run: exposed.
 * Megatron-Core tensor_parallel/layers.py
 * LinearWithGradAccumulationAndAsyncCommunication.backward (d98e8a64). */
static double async_backward_layer_s(const pp_problem *prob, const pp_plan *plan, double bytes, long k)
{
    const pp_model *m = &prob->model;
    bool sp = plan->sequence_parallel;
    double t = plan->tp, tokens = (double)plan->micro_batch * m->seq_len / plan->cp, share = pp_comm_sm_share(prob);
    double C = pp_collective_time_s(&prob->cluster, sp ? PP_COLL_ALLGATHER : PP_COLL_ALLREDUCE, bytes, plan->tp, k);
    double K[4], N[4];
    layer_linears(m, K, N);
    double exposed = sp ? 2.0 * C : 0.0;
    for (int i = 0; i < 4; i += 2) {
        double Ki = K[i], Ni = N[i] / t;
        double dgrad = gemm_time_s(prob, tokens, Ni, Ki), wgrad = gemm_time_s(prob, Ki, tokens, Ni);
        if (sp)
            exposed += behind_gemm_s(C, dgrad, share);
        exposed += behind_gemm_s(C, wgrad, share);
    }
    return exposed;
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
     * Full recomputation repeats the forward pair; torchtitan's per-op
     * checkpointing saves the reduce-scatters' outputs and repeats the
     * all-gathers (half the pair) or, without sequence parallelism, the
     * all-reduces. */
    double bytes = ACT_BYTES * plan->micro_batch * ((double)m->seq_len / plan->cp) * m->hidden;
    double per_layer = 4.0 + (plan->recompute == PP_RECOMPUTE_FULL ? 2.0
                              : op_sac(prob, plan)             ? (plan->sequence_parallel ? 1.0 : 2.0)
                                                                : 0.0);
    long k = ranks_per_node(prob, 1, plan->tp);
    double n = layers_per_stage(prob, plan);
    /* the backward pair issued behind the GEMMs (not with userbuffers, which
     * price both passes, nor per-op checkpointing's or a TP codec's own
     * sequence; a frozen LoRA weight has no weight gradient to hide behind) */
    bool async_bwd = prob->training.tp_bwd_overlap && !plan->tp_comm_overlap && !op_sac(prob, plan) &&
                     prob->training.lora_rank <= 0 && !codec_for(prob, plan, PP_DIM_TP, bytes);
    /* Megatron's and Transformer Engine's sequence-parallel linear layers keep
     * only their input's shard and gather it again for the weight gradient:
     * a column-parallel layer's all-gather more, half an all-reduce's volume
     * each, where those layers run (the asynchronous backward or userbuffers) */
    double regather = plan->sequence_parallel && (async_bwd || plan->tp_comm_overlap) ? 1.0 : 0.0;
    /* sequence parallelism's all-gathers and reduce-scatters are rings: no NVLink SHARP */
    compressed_collective_as(prob, plan, PP_DIM_TP, PP_COLL_ALLREDUCE, bytes, 8.0 * ACT_BYTES, plan->tp, k, out,
                             (async_bwd ? per_layer - 2.0 : per_layer) * n, 1.0, !plan->sequence_parallel);
    if (async_bwd || regather > 0.0) { /* their bytes; the backward pair's exposed time */
        pp_comm_term more = {0};
        compressed_collective_as(prob, plan, PP_DIM_TP, PP_COLL_ALLREDUCE, bytes, 8.0 * ACT_BYTES, plan->tp, k, &more,
                                 ((async_bwd ? 2.0 : 0.0) + regather) * n, 1.0, !plan->sequence_parallel);
        out->bytes_nvlink += more.bytes_nvlink;
        out->bytes_network += more.bytes_network;
        out->bytes_sent += more.bytes_sent;
        if (async_bwd)
            out->wire_s += n * async_backward_layer_s(prob, plan, bytes, k);
    }
    out->inter_node = group_inter_node(prob, 1, plan->tp);
    if (plan->tp_comm_overlap) /* same bytes on the wire, less of their time exposed */
        out->wire_s = n * overlapped_layer_s(prob, plan, bytes, k);
    /* Without a vocabulary-parallel loss the output layer all-gathers its
     * 16-bit logits over the TP group before the loss (its backward only
     * keeps the rank's slice of the gradient: no traffic). */
    if (prob->training.loss_gathered) {
        double logits = ACT_BYTES * plan->micro_batch * ((double)m->seq_len / plan->cp) * pp_model_logit_share(m) *
                        m->vocab;
        out->wire_s += pp_collective_time_s(&prob->cluster, PP_COLL_ALLGATHER, logits, plan->tp, k);
    }
    out->total_s = out->wire_s + out->codec_s;
}
