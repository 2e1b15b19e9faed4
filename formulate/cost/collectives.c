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
 * n ranks `stride` apart has k of them in one node.  An all-reduce across
 * nodes is hierarchical (NCCL): reduce-scatter on NVLink, the inter-node
 * all-reduce of a 1/k share through each GPU's NIC, all-gather on NVLink;
 * all-gather and reduce-scatter stay rings.  A codec divides the bytes on
 * the wire by its ratio and adds its compression kernels; messages below the
 * problem's threshold stay raw (MVAPICH compresses only messages >= 1 MiB).
 */
#include "cost_internal.h"

bool group_inter_node(const pp_problem *prob, long stride, long size)
{
    return stride * size > prob->cluster.gpus_per_node;
}

/* Ranks of a group (of `size` ranks, `stride` apart) that share a node. */
long ranks_per_node(const pp_problem *prob, long stride, long size)
{
    long gpn = prob->cluster.gpus_per_node;
    if (stride >= gpn)
        return 1;
    long k = gpn / stride;
    return k < size ? k : size;
}

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
        return flat_ring_s(kind, bytes, n, pp_nvlink_Bps(c), a_nv);
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
        double bw = ring_factor(kind, n) * bytes / k / pp_network_Bps(c);
        return bw + (double)(n - 1) * a_net;
    }
    double intra = 0.0;
    if (k > 1) {
        pp_collective in_kind = kind == PP_COLL_ALLREDUCE ? PP_COLL_REDUCESCATTER : kind;
        intra = flat_ring_s(in_kind, bytes, k, pp_nvlink_Bps(c), a_nv);
        if (kind == PP_COLL_ALLREDUCE)
            intra *= 2.0; /* reduce-scatter before, all-gather after */
    }
    return intra + flat_ring_s(kind, bytes / (double)k, nodes, pp_network_Bps(c), a_net);
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
        return c->gpu.eff.network_latency_us * 1e-6 + bytes / pp_network_Bps(c);
    return c->gpu.eff.nvlink_latency_us * 1e-6 + bytes / pp_nvlink_Bps(c);
}

/* The codec a dimension uses for a message of `bytes`: none below the
 * problem's threshold (MVAPICH compresses only messages >= 1 MiB). */
const pp_codec *codec_for(const pp_problem *prob, const pp_plan *plan, pp_dim dim, double bytes)
{
    int i = plan->codec[dim];
    if (i <= 0 || i >= prob->n_codecs || bytes < prob->compress_min_bytes)
        return NULL;
    return &prob->codecs[i];
}

/* Compress raw_bytes of value_bits-bit values on the sender and decompress
 * them on the receiver.  The codecs (ZFP, MPC) work on fp32 values, so they
 * process 4 bytes a value whatever the message's type. */
double codec_time_s(const pp_codec *codec, double raw_bytes, double value_bits)
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
void compressed_collective(const pp_problem *prob, const pp_plan *plan, pp_dim dim,
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
