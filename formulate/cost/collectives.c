/*
 * collectives.c: collectives and point-to-point transfers in the alpha-beta
 * model, the bytes they put on each link, and compression
 * (docs/cost-model.md §3).
 *
 * A ring of n ranks on one link class of bandwidth B and latency alpha
 * (Thakur et al. 2005):
 *
 *   all-reduce                    2 (n-1)/n M / B + 2 (n-1) alpha
 *   all-gather, reduce-scatter      (n-1)/n M / B +   (n-1) alpha
 *
 * Ranks follow Megatron-LM's order (tp fastest, then cp, dp, pp): a group of
 * n ranks `stride` apart has k of them in one node, N = n / k nodes.  Across
 * nodes NCCL runs one channel per NIC, each a ring (or tree) over all n
 * ranks, and pipelines every channel's chunks over NVLink and the network
 * at once (NCCL's tuning model, src/graph/tuning.cc: a channel's bandwidth
 * is its slowest link, busBw = nChannels x bw, and the algorithm is the
 * faster one for the size).  Per GPU, of its k channels one leaves the node
 * through its own NIC and k - 1 stay on NVLink, so
 *
 *   ring:  max(f M (k-1)/k / B_nvlink, f M / k / B_network)
 *          + (steps - inter steps) alpha_nvlink + inter steps alpha_network
 *
 * with f = 2 (n-1)/n for an all-reduce ((n-1)/n for all-gather and
 * reduce-scatter), 2 (N-1) inter-node steps of 2 (n-1) for an all-reduce.
 * NCCL's tree all-reduce (a chain in the node, a double binary tree across
 * nodes; Sanders et al. 2009, NCCL 2.4) moves 2 M along the chain and, per
 * NIC, M / k across two nodes (each node the root of one tree and the leaf
 * of the other) or 2 M / k across more, at the links' fitted rate like the
 * ring (NCCL's tuning model discounts the tree to 0.92 to choose between
 * algorithms), and no faster than its channels reduce: NCCL's tuning model
 * caps a tree's bus bandwidth at nChannels times a per-channel rate of the
 * GPU's architecture (perChMaxTreeBws, gpus.json nccl_tree_channel_GBps),
 * one channel a NIC, so 2 M / (k x rate); two-node logs sit on that cap
 * whatever their NICs' rate (A100: 188.6 GB/s of busbw, 8 x 23.6; H100:
 * 330-339, 8 x 41.4: docs/cost-model.md §3).  Its latency is
 * 2 ((k-1) alpha_nvlink + log2 N alpha_network); the all-reduce takes the
 * faster of the two.  This
 * is why a 2-node all-reduce reports more bus bandwidth than its NICs carry
 * (NVIDIA/nccl-tests#196: "on two nodes, NCCL uses the tree ... which can
 * go beyond the network bottleneck"); a run that sets NCCL_ALGO to one of
 * them (cluster.nccl_algos, read from an nccl-tests log) gets that one.
 * All-gather and reduce-scatter are
 * rings only (NCCL docs, "Algorithms"), and so is an "all-reduce" that
 * stands for the two (ZeRO-1/2's gradient reduce-scatter and parameter
 * all-gather, sequence parallelism's pair): until the thirty-sixth landing
 * those took the tree's time where it was the faster.  Inside a node an all-reduce may
 * run with NVLink SHARP instead (nvls_s below), and across nodes with
 * NVLS-Tree (nvls_tree_s).  With training.collectives
 * "mvapich2-gdr" the all-reduce across nodes is MPI's flat ring over all n
 * ranks instead (MVAPICH2-GDR's large-message GPU all-reduce; its
 * compressed form is osu_ring_compression), so every step crosses the
 * slowest link.
 *
 * A codec divides the bytes on the wire by its ratio and adds its kernels;
 * messages below the problem's threshold stay raw (MVAPICH compresses only
 * messages >= 1 MiB).  MVAPICH pipelines the kernels with the wire: it
 * compresses chunk i+1 while chunk i is on the wire and the receiver
 * decompresses chunk i while chunk i+1 arrives, so a transfer of wire time
 * W and codec time C in n chunks takes max(W, C) + min(W, C) / n; only the
 * part beyond W is codec time.  A framework cast (kind "cast": bf16, int8)
 * runs before and after the collective, unpipelined, once on the buffer.
 */
#include "cost_kernels.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

double ring_factor(pp_collective kind, long n)
{
    double f = (double)(n - 1) / (double)n;
    return kind == PP_COLL_ALLREDUCE ? 2.0 * f : f;
}

static double ring_steps(pp_collective kind, long n)
{
    return kind == PP_COLL_ALLREDUCE ? 2.0 * (n - 1) : (double)(n - 1);
}

double pp_nvlink_Bps(const pp_cluster *c)
{
    return c->intra_node_GBps * 1e9 * c->gpu.eff.nvlink;
}

double pp_network_Bps(const pp_cluster *c)
{
    return c->inter_node_Gbps / 8.0 * 1e9 * c->gpu.eff.network;
}

/* Whether a group of n ranks, k per node, spans more than one leaf switch
 * group: its ceil(n/k) nodes, taken as consecutive (Megatron-LM's rank
 * order makes tensor, context and data-parallel groups so), outnumber the
 * leaf's nodes, or do not tile it (some group then straddles two leaves). */
bool pp_group_crosses_spine(const pp_cluster *c, long n, long k)
{
    if (c->leaf_nodes <= 0 || k >= n)
        return false;
    long nodes = (n + (k < 1 ? 1 : k) - 1) / (k < 1 ? 1 : k);
    return nodes > c->leaf_nodes || c->leaf_nodes % nodes != 0;
}

double pp_network_group_Bps(const pp_cluster *c, long n, long k)
{
    double bps = pp_network_Bps(c);
    if (c->network_oversubscription > 1.0 && pp_group_crosses_spine(c, n, k))
        bps /= c->network_oversubscription;
    return bps;
}

/* Whether the rings of a group of n ranks, k per node, leave each node on
 * another NIC rail than they enter it.  NCCL closes a ring on the NIC it
 * entered by (NET n -> first GPU -> ... -> last GPU -> NET n) when the last
 * GPU shares that NIC's PCIe switch (NVIDIA/nccl issue #820 shows the DGX
 * A100 rings so: NET 0 -> GPU 0 -> ... -> GPU 1 -> NET 0).  A group's k
 * local ranks are gpus_per_node / k apart (Megatron-LM's rank order); from
 * gpus_per_nic_switch apart on, no two share a switch, and before PXN
 * (NCCL 2.12, which sends the last hop over NVLink to the GPU beside the
 * entry NIC) NCCL's search then settles for cross-NIC rings
 * (src/graph/search.cc of 2.8: "NET n -> GPU a -> .. -> GPU x -> NET n (or
 * m if crossNic)"), whose node-to-node hops join two rails through the
 * spine: NCCL's documentation of NCCL_CROSS_NIC warns of the "traffic flow
 * interference" on rail-optimized fabrics, and NCCL 2.20's alternating
 * rings removed the cross-rail hops.  One rank a node (k = 1) or a whole
 * node keeps its rail. */
bool pp_group_crosses_rails(const pp_cluster *c, long n, long k)
{
    if (c->nccl_pxn || c->mpi_collectives || c->gpus_per_nic_switch <= 0 || k <= 1 || k >= n ||
        k >= c->gpus_per_node)
        return false;
    return c->gpus_per_node / k >= c->gpus_per_nic_switch;
}

/* Ring collective on one link class (alpha-beta, Thakur et al. 2005). */
static double flat_ring_s(pp_collective kind, double bytes, long n, double Bps, double alpha_s)
{
    if (n <= 1 || bytes <= 0.0)
        return 0.0;
    return ring_factor(kind, n) * bytes / Bps + ring_steps(kind, n) * alpha_s;
}

/* NVLink SHARP (NCCL 2.17 on, NVSwitch 3 and later): a one-node all-reduce
 * reduces in the switch, each GPU sending its buffer once and receiving the
 * sum once, at the GPU's measured share of the NVLink line rate
 * (gpus.json nvls_allreduce_fraction: "a peak busBw of ~480GB/s (algbw
 * ~275GB/s)" on 8 H100 of 450, NVIDIA/nccl-tests#212), plus one step of
 * NCCL's NVLS latency (its tuning model's NVLink hwLat for NVLS, Simple
 * protocol: 25 us, src/graph/tuning.cc).  NCCL takes it where it is the
 * faster; across nodes, NVLS-Tree (nvls_tree_s). */
#define NVLS_LATENCY_S 25e-6

static bool nvls_offered(const pp_cluster *c, pp_collective kind, long n, long k)
{
    return kind == PP_COLL_ALLREDUCE && n >= 2 && k >= n && c->nccl_nvls && !c->mpi_collectives &&
           c->gpu.nvls_allreduce_fraction > 0.0 && c->intra_node_GBps > 0.0;
}

static double nvls_s(const pp_cluster *c, double bytes)
{
    return bytes / (c->gpu.nvls_allreduce_fraction * c->intra_node_GBps * 1e9) + NVLS_LATENCY_S;
}

/* Whether NCCL runs this one-node all-reduce with NVLink SHARP: offered and
 * faster than the ring.  one_collective false: the "all-reduce" stands for a
 * reduce-scatter and an all-gather of the buffer (sequence-parallel TP,
 * ZeRO-1/2's two halves), which NVLS does not speed up (NCCL's tuning model
 * prices its reduce-scatter and all-gather below a ring's) and which run as
 * rings. */
static bool nvls_runs(const pp_cluster *c, pp_collective kind, double bytes, long n, long k, bool one_collective)
{
    return one_collective && nvls_offered(c, kind, n, k) &&
           nvls_s(c, bytes) < flat_ring_s(kind, bytes, n, pp_nvlink_Bps(c), c->gpu.eff.nvlink_latency_us * 1e-6);
}

/* NVLS-Tree (NCCL 2.18 on, NVSwitch 3 and later, an all-reduce across
 * nodes): the switch reduces each node's buffers and multicasts the sum, as
 * the one-node NVLS all-reduce does (nvls_s), while each of the node's k
 * GPUs sends its 1/k share through its NIC on a double binary tree across
 * the nodes, as the tree's network part (M / k across two nodes, 2 M / k
 * across more), every stage pipelined with the others (NCCL's tuning model:
 * a channel's bandwidth is the least of its NVLS rate, its network rate,
 * doubled on two nodes, and a per-channel cap of the architecture,
 * perChMaxNVLSTreeBws, gpus.json nccl_nvls_tree_channel_GBps, one channel a
 * NIC as the tree's; its latency one NVLS step and 2 log2 N network steps,
 * src/graph/tuning.cc).  NCCL takes it where it is the fastest (nccl-tests
 * at NCCL's defaults: two 8 x H100 nodes 430-441 GB/s of bus bandwidth where
 * rings and trees reach 330, two 8 x B200 nodes 690). */
static bool nvls_tree_offered(const pp_cluster *c, long k)
{
    return k >= 2 && c->nccl_nvls && !c->mpi_collectives && c->gpu.nvls_allreduce_fraction > 0.0 &&
           c->intra_node_GBps > 0.0;
}

static double nvls_tree_s(const pp_cluster *c, double bytes, long n, long k, long nodes, double tree_net_s,
                          double a_net)
{
    double channel_GBps = c->gpu.nccl_nvls_tree_channel_GBps[nodes <= 2 ? 0 : 1];
    double channels_s = channel_GBps > 0.0
                            ? ring_factor(PP_COLL_ALLREDUCE, n) * bytes / ((double)k * channel_GBps * 1e9)
                            : 0.0;
    double switch_s = nvls_s(c, bytes) - NVLS_LATENCY_S;
    return fmax(fmax(switch_s, tree_net_s), channels_s) + NVLS_LATENCY_S + 2.0 * ceil(log2((double)nodes)) * a_net;
}

static double collective_time_s(const pp_cluster *c, pp_collective kind, double bytes, long n, long k,
                                bool one_collective);

double pp_collective_time_s(const pp_cluster *c, pp_collective kind, double bytes, long n, long k)
{
    return collective_time_s(c, kind, bytes, n, k, true);
}

static double across_nodes_s(const pp_cluster *c, pp_collective kind, double bytes, long n, long k,
                             bool one_collective, bool *nvls_tree);

static double collective_time_s(const pp_cluster *c, pp_collective kind, double bytes, long n, long k,
                                bool one_collective)
{
    if (n <= 1 || bytes <= 0.0)
        return 0.0;
    if (k >= n)
        return nvls_runs(c, kind, bytes, n, k, one_collective)
                   ? nvls_s(c, bytes)
                   : flat_ring_s(kind, bytes, n, pp_nvlink_Bps(c), c->gpu.eff.nvlink_latency_us * 1e-6);
    bool nvls_tree;
    return across_nodes_s(c, kind, bytes, n, k < 1 ? 1 : k, one_collective, &nvls_tree);
}

/* A collective whose group spans nodes (k < n ranks a node); nvls_tree says
 * whether NVLS-Tree is the algorithm that runs. */
static double across_nodes_s(const pp_cluster *c, pp_collective kind, double bytes, long n, long k,
                             bool one_collective, bool *nvls_tree)
{
    *nvls_tree = false;
    double a_nv = c->gpu.eff.nvlink_latency_us * 1e-6, a_net = c->gpu.eff.network_latency_us * 1e-6;
    /* a group across leaves shares the spine's oversubscribed uplinks, and
     * rings across rails keep cross_rail of the rate */
    double net_Bps = pp_network_group_Bps(c, n, k);
    if (pp_group_crosses_rails(c, n, k))
        net_Bps *= c->gpu.eff.cross_rail;
    /* MVAPICH2-GDR: ring all-reduce over all n ranks (reduce-scatter then
     * all-gather, Thakur et al. 2005 as MPICH/MVAPICH run it for large
     * messages); each of its 2(n-1) steps is as slow as the network hop. */
    if (c->mpi_collectives && kind == PP_COLL_ALLREDUCE)
        return flat_ring_s(kind, bytes, n, net_Bps, a_net);
    /* NCCL across nodes: k channels a GPU, pipelined over both links. */
    long nodes = (n + k - 1) / k;
    double nv_Bps = pp_nvlink_Bps(c), f = ring_factor(kind, n), in_node = (double)(k - 1) / (double)k;
    double ring = fmax(f * bytes * in_node / nv_Bps, f * bytes / (double)k / net_Bps) +
                  (ring_steps(kind, n) - ring_steps(kind, nodes)) * a_nv + ring_steps(kind, nodes) * a_net;
    unsigned algos = c->nccl_algos & (PP_NCCL_ALGO_RING | PP_NCCL_ALGO_TREE);
    if (kind != PP_COLL_ALLREDUCE || algos == PP_NCCL_ALGO_RING || !one_collective)
        return ring;
    double tree_net = (nodes <= 2 ? 1.0 : 2.0) * bytes / (double)k;
    double channel_GBps = c->gpu.nccl_tree_channel_GBps[nodes <= 2 ? 0 : 1];
    double channels_s = channel_GBps > 0.0 ? 2.0 * bytes / ((double)k * channel_GBps * 1e9) : 0.0;
    double tree = fmax(fmax(2.0 * bytes * in_node / nv_Bps, tree_net / net_Bps), channels_s) +
                  2.0 * ((double)(k - 1) * a_nv + ceil(log2((double)nodes)) * a_net);
    if (algos == PP_NCCL_ALGO_TREE)
        return tree;
    double best = fmin(ring, tree);
    if (algos == 0 && nvls_tree_offered(c, k)) {
        double nt = nvls_tree_s(c, bytes, n, k, nodes, tree_net / net_Bps, a_net);
        *nvls_tree = nt < best;
        best = fmin(best, nt);
    }
    return best;
}

static void collective_bytes(pp_collective kind, double bytes, long n, long k, bool mpi, double *nvlink,
                             double *network);

void pp_collective_bytes(pp_collective kind, double bytes, long n, long k, double *nvlink, double *network)
{
    collective_bytes(kind, bytes, n, k, false, nvlink, network);
}

void pp_collective_bytes_on(const pp_cluster *c, pp_collective kind, double bytes, long n, long k, bool one_collective,
                            double *nvlink, double *network)
{
    if (nvls_runs(c, kind, bytes, n, k, one_collective)) { /* each GPU's buffer to the switch once */
        *nvlink = bytes;
        *network = 0.0;
        return;
    }
    bool nvls_tree = false; /* priced only where NVLS-Tree may run: the other algorithms' bytes are the ring's */
    if (kind == PP_COLL_ALLREDUCE && one_collective && n > 1 && bytes > 0.0 && k >= 1 && k < n &&
        c->nccl_algos == 0 && nvls_tree_offered(c, k))
        across_nodes_s(c, kind, bytes, n, k, one_collective, &nvls_tree);
    if (nvls_tree) { /* the buffer to the switch once; each GPU's share through its NIC on the tree */
        *nvlink = bytes;
        *network = ((n + k - 1) / k <= 2 ? 1.0 : 2.0) * bytes / (double)k;
        return;
    }
    collective_bytes(kind, bytes, n, k, c->mpi_collectives, nvlink, network);
}

static void collective_bytes(pp_collective kind, double bytes, long n, long k, bool mpi, double *nvlink,
                             double *network)
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
    /* As pp_collective_time_s. */
    if (mpi && kind == PP_COLL_ALLREDUCE) {
        /* flat ring: the GPU at a node's edge sends its whole share out */
        *network = ring_factor(kind, n) * bytes;
        *nvlink = k > 1 ? *network : 0.0;
    } else {
        /* the ring's k channels: one through the GPU's NIC, k - 1 on NVLink
         * (the tree of a 2-node all-reduce puts fewer bytes on the network:
         * the ring's count is its upper bound) */
        *network = ring_factor(kind, n) * bytes / (double)k;
        *nvlink = ring_factor(kind, n) * bytes * (double)(k - 1) / (double)k;
    }
}

double pp_p2p_time_s(const pp_cluster *c, double bytes, bool inter_node)
{
    if (bytes <= 0.0)
        return 0.0;
    if (inter_node)
        return c->gpu.eff.network_latency_us * 1e-6 + bytes / pp_network_Bps(c);
    return c->gpu.eff.nvlink_latency_us * 1e-6 + bytes / pp_nvlink_Bps(c);
}

/* The codec a dimension uses for a message of `bytes`: none below the
 * problem's threshold (MVAPICH compresses only messages >= 1 MiB), and none
 * for gradients cast to 16 bits, which travel in that type. */
const pp_codec *codec_for(const pp_problem *prob, const pp_plan *plan, pp_dim dim, double bytes)
{
    int i = plan->codec[dim];
    if (i <= 0 || i >= prob->n_codecs || bytes < prob->compress_min_bytes)
        return NULL;
    /* a 16-bit cast of the gradients is the type they are reduced in
     * (pp_plan_grad_reduce, dp.c), not a kernel before the collective */
    if (dim == PP_DIM_DP && pp_plan_dp_cast16(prob, plan))
        return NULL;
    return &prob->codecs[i];
}

/* A codec's throughput on the problem's GPU: the per-GPU entry whose id
 * prefix matches the GPU's id best, else the codec's default. */
double pp_codec_GBps(const pp_codec *codec, const char *gpu_id, bool decompress)
{
    if (gpu_id && codec->rates_gpu[0] && strcmp(gpu_id, codec->rates_gpu) == 0)
        return decompress ? codec->gpu_decompress_GBps : codec->gpu_compress_GBps;
    double best = decompress ? codec->decompress_GBps : codec->compress_GBps;
    size_t best_len = 0;
    for (int i = 0; i < codec->n_rates; i++) {
        const pp_codec_rate *r = &codec->rates[i];
        size_t len = strlen(r->gpu);
        double v = decompress ? r->decompress_GBps : r->compress_GBps;
        if (v >= 0.0 && len > best_len && gpu_id && strncmp(gpu_id, r->gpu, len) == 0) {
            best = v;
            best_len = len;
        }
    }
    return best;
}

void pp_problem_resolve_codecs(pp_problem *prob)
{
    const char *gpu = prob->cluster.gpu.id;
    for (int i = 0; i < prob->n_codecs; i++) {
        pp_codec *c = &prob->codecs[i];
        c->rates_gpu[0] = '\0'; /* the full lookup below, not the old answer */
        c->gpu_compress_GBps = pp_codec_GBps(c, gpu, false);
        c->gpu_decompress_GBps = pp_codec_GBps(c, gpu, true);
        snprintf(c->rates_gpu, sizeof c->rates_gpu, "%s", gpu);
    }
}

/* Compress raw_bytes of value_bits-bit values on the sender and decompress
 * them on the receiver, on the problem's GPU.  The MPI codecs (ZFP, MPC)
 * work on fp32 values, so they process 4 bytes a value whatever the
 * message's type; a cast works on the values as they are. */
double codec_time_s(const pp_problem *prob, const pp_codec *codec, double raw_bytes, double value_bits)
{
    if (!codec)
        return 0.0;
    if (!codec->cast)
        raw_bytes *= 32.0 / value_bits;
    const char *gpu = prob->cluster.gpu.id;
    double c = pp_codec_GBps(codec, gpu, false), d = pp_codec_GBps(codec, gpu, true);
    double t = 0.0;
    if (c > 0.0)
        t += raw_bytes / (c * 1e9);
    if (d > 0.0)
        t += raw_bytes / (d * 1e9);
    return t;
}

/* Bytes of a collective's buffer the codec processes: every chunk the ring
 * sends and receives for an MPI codec; the buffer once for a cast. */
double codec_bytes(const pp_codec *codec, pp_collective kind, double bytes, long n)
{
    return codec && codec->cast ? bytes : ring_factor(kind, n) * bytes;
}

/* The codec time a compressed transfer adds to its wire time wire_s:
 * MVAPICH pipelines codec_s over chunks of codec_chunk_bytes of the
 * raw_bytes it codes, max(W, C) + min(W, C) / chunks - W; a cast is not
 * pipelined. */
double codec_exposed_s(const pp_problem *prob, const pp_codec *codec, double wire_s, double codec_s,
                       double raw_bytes)
{
    if (!codec || codec_s <= 0.0)
        return 0.0;
    if (codec->cast)
        return codec_s;
    double chunk = prob->codec_chunk_bytes > 0.0 ? prob->codec_chunk_bytes : raw_bytes;
    double chunks = fmax(1.0, ceil(raw_bytes / chunk));
    return fmax(0.0, codec_s - wire_s) + fmin(wire_s, codec_s) / chunks;
}

/* A collective on a list of n per-rank tensors (training.list_collectives):
 * n copy kernels between them and the flat buffer NCCL works on, which
 * together read and write the whole buffer once. */
static double list_copies_s(const pp_problem *prob, double bytes, long n)
{
    return (double)n * prob->cluster.gpu.eff.kernel_us * 1e-6 + 2.0 * bytes / hbm_Bps(prob);
}

/* `count` collectives, each issued as `pieces` equal collectives (ZeRO-3
 * gathers layer by layer or module by module): wire time on the compressed
 * message, and the codec time of every piece beyond its wire time; a list
 * collective adds its copies. */
void compressed_collective(const pp_problem *prob, const pp_plan *plan, pp_dim dim,
                           pp_collective kind, double bytes, double value_bits, long n, long k,
                           pp_comm_term *acc, double count, double pieces)
{
    compressed_collective_as(prob, plan, dim, kind, bytes, value_bits, n, k, acc, count, pieces, true);
}

void compressed_collective_as(const pp_problem *prob, const pp_plan *plan, pp_dim dim, pp_collective kind,
                              double bytes, double value_bits, long n, long k, pp_comm_term *acc, double count,
                              double pieces, bool one_collective)
{
    if (n <= 1 || bytes <= 0.0 || count <= 0.0)
        return;
    double piece = bytes / pieces;
    const pp_codec *codec = codec_for(prob, plan, dim, piece);
    double wire = piece / pp_codec_ratio(codec, value_bits);
    double w1 = collective_time_s(&prob->cluster, kind, wire, n, k, one_collective);
    double coded = codec_bytes(codec, kind, piece, n);
    double c1 = codec_time_s(prob, codec, coded, value_bits);
    bool list = prob->training.list_collectives && kind != PP_COLL_ALLREDUCE;
    double copies = list ? list_copies_s(prob, piece, n) : 0.0;
    acc->wire_s += count * pieces * (w1 + copies);
    acc->codec_s += count * pieces * codec_exposed_s(prob, codec, w1, c1, coded);
    double nvl, net;
    pp_collective_bytes_on(&prob->cluster, kind, wire, n, k, one_collective, &nvl, &net);
    acc->bytes_nvlink += count * pieces * nvl;
    acc->bytes_network += count * pieces * net;
    acc->bytes_sent += count * pieces * (nvl + net);
}

/* All-to-all of `bytes` per rank over n ranks, k per node (MoE dispatch and
 * combine; NCCL runs it as one grouped send/recv to every peer): each rank
 * sends bytes/n to each of the n - 1 others, k - 1 of them over NVLink and
 * n - k through its NIC.  Both links run at once, so the time is the slower
 * of the two plus one latency of each link class used. */
void pp_alltoall_bytes(double bytes, long n, long k, double *nvlink, double *network)
{
    *nvlink = *network = 0.0;
    if (n <= 1 || bytes <= 0.0)
        return;
    if (k > n)
        k = n;
    if (k < 1)
        k = 1;
    *nvlink = bytes * (double)(k - 1) / (double)n;
    *network = bytes * (double)(n - k) / (double)n;
}

double pp_alltoall_time_s(const pp_cluster *c, double bytes, long n, long k)
{
    double nv, net;
    pp_alltoall_bytes(bytes, n, k, &nv, &net);
    return pp_alltoall_links_time_s(c, nv, net, n, k);
}

double pp_alltoall_links_time_s(const pp_cluster *c, double nv, double net, long n, long k)
{
    if (nv <= 0.0 && net <= 0.0)
        return 0.0;
    double t_nv = nv > 0.0 ? nv / pp_nvlink_Bps(c) + c->gpu.eff.nvlink_latency_us * 1e-6 : 0.0;
    double t_net = net > 0.0 ? net / pp_network_group_Bps(c, n, k) + c->gpu.eff.network_latency_us * 1e-6 : 0.0;
    return t_nv > t_net ? t_nv : t_net;
}
