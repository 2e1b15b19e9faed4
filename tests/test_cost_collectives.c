/*
 * test_cost_collectives.c: the alpha-beta collectives, their bytes per link
 * and compression (formulate/cost/collectives.c) against hand calculations.
 */
#include "cost_kernels.h"
#include "costmodel.h"
#include "testutil.h"

#include <math.h>
#include <string.h>

/* Ring all-reduce inside a node: 2(n-1)/n M / B + 2(n-1) alpha. */
static void test_allreduce_intra(void)
{
    pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 1, 8);
    double M = 100e6, B = 300e9 * 0.8, alpha = 5e-6;
    double expect = 2.0 * 7 / 8 * M / B + 14 * alpha;
    PP_REL_EQ(pp_collective_time_s(&p.cluster, PP_COLL_ALLREDUCE, M, 8, 8), expect, 1e-12);
    /* across nodes, one rank per node: a flat ring on the NIC */
    double net = 200e9 / 8 * 0.8;
    PP_REL_EQ(pp_collective_time_s(&p.cluster, PP_COLL_ALLREDUCE, M, 16, 1), 2.0 * 15 / 16 * M / net + 30 * 10e-6,
              1e-12);
    /* 8 per node, 4 nodes: 8 channels pipelined over both links, the
     * ring (62 steps, 6 across nodes) or the tree (2 M along the node's
     * chain, 2 M / 8 through each NIC, at the links' rate), whichever is
     * faster */
    double f = 2.0 * 31 / 32;
    double ring = fmax(f * M * 7 / 8 / B, f * M / 8 / net) + 56 * alpha + 6 * 10e-6;
    double tree = fmax(2 * M * 7 / 8 / B, 2 * M / 8 / net) + 2 * (7 * alpha + 2 * 10e-6);
    PP_REL_EQ(pp_collective_time_s(&p.cluster, PP_COLL_ALLREDUCE, M, 32, 8), fmin(ring, tree), 1e-12);
    /* a large buffer goes by ring: its bandwidth term is (n-1)/n of the tree's */
    double G = 8e9;
    PP_REL_EQ(pp_collective_time_s(&p.cluster, PP_COLL_ALLREDUCE, G, 32, 8), f * G / 8 / net + 56 * alpha + 6 * 10e-6,
              1e-12);
}

/* Bus bandwidth as nccl-tests reports it (algbw x 2 (n-1)/n), GB/s. */
static double allreduce_busbw(const pp_cluster *c, double bytes, long n, long k)
{
    return bytes / pp_collective_time_s(c, PP_COLL_ALLREDUCE, bytes, n, k) * 2.0 * (n - 1) / n / 1e9;
}

/* What public nccl-tests runs show the serial (reduce-scatter, network
 * all-reduce, all-gather) model could not reach even at line rate:
 *  - 248 nodes of 8 H200, 8 x 400 Gb/s NICs a node: "typically around
 *    350" GB/s of bus bandwidth at 512 MB (NVIDIA/nccl-tests#283); NCCL's
 *    rings carry it on all 8 NICs at once, k x 50 GB/s = 400 at line rate.
 *  - two nodes: more bus bandwidth than the NICs carry, "as the Tree
 *    algorithm would be able to put more traffic on NVLink" (NVIDIA/nccl#837,
 *    nccl-tests#196). */
static void test_allreduce_across_nodes_pipelined(void)
{
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_gpt3_175b(), 248, 8);
    pp_cluster *c = &p.cluster;
    c->intra_node_GBps = 450;
    c->inter_node_Gbps = 400;
    /* the model's ceiling, at line rate and no latency, is above what was measured */
    c->gpu.eff.nvlink = c->gpu.eff.network = 1.0;
    c->gpu.eff.nvlink_latency_us = c->gpu.eff.network_latency_us = 0.0;
    double bw = allreduce_busbw(c, 512.0 * (1 << 20), 248 * 8, 8);
    CU_ASSERT(bw > 350.0);
    CU_ASSERT(bw <= 400.0 + 1e-9); /* never above its 8 NICs */
    /* the serial model's ceiling: 2 x 7/8 of the buffer on NVLink, then the network's */
    double serial = 2.0 / (2.0 * 7 / 8 / 450 + 2.0 / (8 * 50));
    CU_ASSERT(serial < 350.0);
    /* two nodes of slower NICs: the tree beats the NICs' line rate */
    c->inter_node_Gbps = 100; /* 8 x 12.5 GB/s */
    double two = allreduce_busbw(c, 8e9, 16, 8);
    CU_ASSERT(two > 8 * 12.5 * 1.5);
    CU_ASSERT(two < 450.0);
    /* the bytes one GPU puts on each link: the ring's */
    double nvl, net;
    pp_collective_bytes(PP_COLL_ALLREDUCE, 1e9, 16, 8, &nvl, &net);
    PP_REL_EQ(net, 2.0 * 15 / 16 * 1e9 / 8, 1e-15);
}

/* NCCL's tree across nodes reduces no faster than its channels: its tuning
 * model's per-channel cap (gpus.json nccl_tree_channel_GBps, perChMaxTreeBws:
 * H100 41.4 GB/s on two nodes, 36.0 on more), one channel a NIC.  Two 8 x
 * H100 nodes report 330-339 GB/s of busbw whether their NICs carry 200 or
 * 400 Gb/s (NVIDIA/nccl#1221; the A3 Mega log of tests/data): 8 x 41.4 =
 * 331.  The reduce-scatter and all-gather an all-reduce stands for (ZeRO's
 * halves) are rings whatever the tree would do. */
static void test_tree_channels(void)
{
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_gpt3_175b(), 2, 8);
    pp_cluster *c = &p.cluster;
    c->gpu.nccl_tree_channel_GBps[0] = 41.4; /* gpus.json's H100 (test_nccl_calibrate reads it there) */
    c->gpu.nccl_tree_channel_GBps[1] = 36.0;
    c->intra_node_GBps = 450;
    c->gpu.eff.nvlink = c->gpu.eff.network = 1.0;
    c->gpu.eff.nvlink_latency_us = c->gpu.eff.network_latency_us = 0.0;
    double M = 8.0 * (1 << 30);
    /* 200 Gb/s NICs: the capped tree beats the ring (8 x 25 GB/s of busbw);
     * busbw = algbw x 2 x 15/16, algbw at the cap = 8 x 41.4 / 2 */
    c->inter_node_Gbps = 200;
    PP_REL_EQ(allreduce_busbw(c, M, 16, 8), 8 * 41.4 / 2 * 2 * 15.0 / 16, 1e-9);
    /* without the cap the tree would be the NICs' */
    c->gpu.nccl_tree_channel_GBps[0] = 0.0;
    CU_ASSERT(allreduce_busbw(c, M, 16, 8) > 360.0);
    c->gpu.nccl_tree_channel_GBps[0] = 41.4;
    /* 400 Gb/s NICs: the ring at their rate (8 x 50) beats the capped tree, and the model
     * takes the faster; NVIDIA/nccl#1221's 330 GB/s says NCCL's own choice there can be the
     * tree (its tuning model's estimate), which a log with NCCL_ALGO set pins */
    c->inter_node_Gbps = 400;
    PP_REL_EQ(allreduce_busbw(c, M, 16, 8), 400.0, 1e-9);
    c->nccl_algos = PP_NCCL_ALGO_TREE;
    PP_REL_EQ(allreduce_busbw(c, M, 16, 8), 8 * 41.4 / 2 * 2 * 15.0 / 16, 1e-9);
    c->nccl_algos = 0;
    /* across more nodes its cap is lower, and the ring, at 8 NICs' rate, the faster */
    double many = allreduce_busbw(c, M, 64, 8);
    CU_ASSERT(many > 8 * 36.0 / 2 * 2 * 63.0 / 64 * 1.05);
    /* ZeRO's halves: a ring reduce-scatter and all-gather, never the tree */
    c->inter_node_Gbps = 200;
    double ring_rs = pp_collective_time_s(c, PP_COLL_REDUCESCATTER, M, 16, 8);
    pp_comm_term halves = {0};
    pp_plan pl = pp_test_plan(1, 1, 16, 1, 1);
    compressed_collective_as(&p, &pl, PP_DIM_DP, PP_COLL_ALLREDUCE, M, 16.0, 16, 8, &halves, 1.0, 1.0, false);
    PP_REL_EQ(halves.wire_s, 2.0 * ring_rs, 1e-12);
    CU_ASSERT(pp_collective_time_s(c, PP_COLL_ALLREDUCE, M, 16, 8) < halves.wire_s);
}

/* NVLS-Tree (collectives.c nvls_tree_s): across nodes of NVSwitch 3 and
 * later, NCCL's defaults reduce in the switch and send each GPU's share
 * through its NIC on a tree.  nccl-tests all_reduce_perf at 8 GiB on two
 * nodes of 8 GPUs and 8 x 400 Gb/s NICs: 16 H100 440.58 GB/s of bus
 * bandwidth and 16 B200 690.07 (coreweave/nccl-tests @cb86553, pull request
 * #92), 16 H100 on RoCE 430 where NVLS off gives 330 (NVIDIA/nccl#1221);
 * on 4 nodes NVLS no longer helps ("same busbw 320", nccl#1221).  One
 * GB200 NVL72 rack, 72 GPUs at NCCL's defaults: 8 GiB at algbw 423-429
 * GB/s (coreweave/nccl-tests README, "Single Rack"). */
static void test_nvls_tree(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    const char *ids[] = {"h100-sxm5-80gb", "b200-sxm-180gb"};
    const double measured_busbw[] = {440.58, 690.07};
    const double M = 8589934592.0; /* 8 GiB */
    for (int g = 0; g < 2; g++) {
        const pp_gpu *gpu = pp_catalog_gpu(&cat, ids[g]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(gpu);
        pp_cluster c;
        memset(&c, 0, sizeof c);
        pp_cluster_from_gpu(gpu, &c);
        c.nodes = 2;
        c.nccl_nvls = true;
        double nvls_tree = pp_collective_time_s(&c, PP_COLL_ALLREDUCE, M, 16, 8);
        double busbw = M / nvls_tree * 2.0 * 15 / 16 / 1e9;
        c.nccl_nvls = false;
        double off = pp_collective_time_s(&c, PP_COLL_ALLREDUCE, M, 16, 8);
        printf("\n    8 GiB on 2 x 8 %s: busbw %.0f GB/s with NVLS-Tree (measured %.0f), %.0f without", ids[g], busbw,
               measured_busbw[g], M / off * 2.0 * 15 / 16 / 1e9);
        CU_ASSERT(fabs(busbw / measured_busbw[g] - 1.0) < 0.10);
        CU_ASSERT(off > 1.15 * nvls_tree);
        /* the NICs carry each GPU's 1/8 once on two nodes, the ring's 2 (n-1)/n / 8 otherwise */
        double nv, net;
        c.nccl_nvls = true;
        pp_collective_bytes_on(&c, PP_COLL_ALLREDUCE, M, 16, 8, true, &nv, &net);
        PP_REL_EQ(net, M / 8, 1e-12);
        PP_REL_EQ(nv, M, 1e-12);
        /* ZeRO's two halves (reduce-scatter and all-gather) stay rings */
        pp_collective_bytes_on(&c, PP_COLL_ALLREDUCE, M, 16, 8, false, &nv, &net);
        PP_REL_EQ(net, 2.0 * 15 / 16 * M / 8, 1e-12);
        /* a run that names its algorithms (NCCL_ALGO=Ring,Tree) gets those */
        c.nccl_algos = PP_NCCL_ALGO_RING | PP_NCCL_ALGO_TREE;
        PP_REL_EQ(pp_collective_time_s(&c, PP_COLL_ALLREDUCE, M, 16, 8), off, 1e-15);
        c.nccl_algos = 0;
        /* four nodes: the NICs carry each share twice, and the ring is as fast */
        c.nodes = 4;
        double four = pp_collective_time_s(&c, PP_COLL_ALLREDUCE, M, 32, 8);
        c.nccl_nvls = false;
        PP_REL_EQ(four, pp_collective_time_s(&c, PP_COLL_ALLREDUCE, M, 32, 8), 1e-15);
    }
    const pp_gpu *gb200 = pp_catalog_gpu(&cat, "gb200-nvl72");
    CU_ASSERT_PTR_NOT_NULL_FATAL(gb200);
    pp_cluster r;
    memset(&r, 0, sizeof r);
    pp_cluster_from_gpu(gb200, &r);
    r.nccl_nvls = true;
    double rack = pp_collective_time_s(&r, PP_COLL_ALLREDUCE, M, 72, 72);
    CU_ASSERT(fabs(M / rack / 1e9 / 426.3 - 1.0) < 0.03);
    pp_catalog_free(&cat);
}

/* NVLink SHARP (collectives.c): on 8 H100 at NCCL's defaults a one-node
 * all-reduce of 8 GiB took 31.356 ms, 479.4 GB/s of bus bandwidth
 * (NVIDIA/nccl-tests#347), the "~480GB/s (algbw ~275GB/s)" NCCL's
 * maintainer gives (nccl-tests#212), above what a ring at the line rate
 * reaches (450 x 2 x 7/8 / (2 x 7/8) = 450).  Priced so where the GPU has it
 * and training.nccl_nvls, where it beats the ring; the ring otherwise, for
 * every other collective and for all-reduces that stand for a
 * reduce-scatter and an all-gather (across nodes NVLS-Tree, below). */
static void test_nvls_one_node(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    const pp_gpu *h100 = pp_catalog_gpu(&cat, "h100-sxm5-80gb"), *a100 = pp_catalog_gpu(&cat, "a100-sxm4-80gb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(h100);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a100);
    pp_cluster c;
    memset(&c, 0, sizeof c);
    pp_cluster_from_gpu(h100, &c);
    c.nodes = 2;
    const double M = 8589934592.0; /* 8 GiB */
    double ring = pp_collective_time_s(&c, PP_COLL_ALLREDUCE, M, 8, 8);
    c.nccl_nvls = true;
    double nvls = pp_collective_time_s(&c, PP_COLL_ALLREDUCE, M, 8, 8);
    printf("\n    8 GiB on 8 H100: ring %.2f ms, NVLS %.2f ms (measured 31.36 ms) ", ring * 1e3, nvls * 1e3);
    CU_ASSERT(fabs(nvls / 31.356e-3 - 1.0) < 0.02);
    double busbw = M / nvls * 2.0 * 7 / 8 / 1e9;
    CU_ASSERT(busbw > 470.0 && busbw < 490.0 && busbw > h100->nvlink_GBps);
    CU_ASSERT(ring > 1.05 * nvls);
    /* each GPU's buffer crosses NVLink once, not a ring's 2 (n-1)/n */
    double nv, net;
    pp_collective_bytes_on(&c, PP_COLL_ALLREDUCE, M, 8, 8, true, &nv, &net);
    PP_REL_EQ(nv, M, 1e-12);
    pp_collective_bytes_on(&c, PP_COLL_ALLREDUCE, M, 8, 8, false, &nv, &net);
    PP_REL_EQ(nv, 2.0 * 7 / 8 * M, 1e-12);
    /* not for an all-gather; across nodes it is NVLS-Tree (test_nvls_tree) */
    double ag = pp_collective_time_s(&c, PP_COLL_ALLGATHER, M, 8, 8), across;
    across = pp_collective_time_s(&c, PP_COLL_ALLREDUCE, M, 16, 8);
    c.nccl_nvls = false;
    PP_REL_EQ(ag, pp_collective_time_s(&c, PP_COLL_ALLGATHER, M, 8, 8), 1e-15);
    CU_ASSERT(across < pp_collective_time_s(&c, PP_COLL_ALLREDUCE, M, 16, 8));
    /* an A100's NVSwitch has none */
    pp_cluster_from_gpu(a100, &c);
    double a_ring = pp_collective_time_s(&c, PP_COLL_ALLREDUCE, M, 8, 8);
    c.nccl_nvls = true;
    PP_REL_EQ(pp_collective_time_s(&c, PP_COLL_ALLREDUCE, M, 8, 8), a_ring, 1e-15);
    pp_catalog_free(&cat);
}

/* In a plan: tensor parallelism without sequence parallelism all-reduces,
 * and runs faster with NVLink SHARP; with sequence parallelism its
 * all-gathers and reduce-scatters cost the same either way. */
static void test_nvls_tp(void)
{
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_gpt3_175b(), 1, 8);
    p.cluster.gpu.nvls_allreduce_fraction = 0.61;
    pp_plan pl = pp_test_plan(8, 1, 1, 1, 1);
    for (int sp = 0; sp <= 1; sp++) {
        pl.sequence_parallel = sp;
        pp_comm_term off, on;
        p.cluster.nccl_nvls = false;
        pp_term_tp_comm(&p, &pl, &off);
        p.cluster.nccl_nvls = true;
        pp_term_tp_comm(&p, &pl, &on);
        CU_ASSERT(off.total_s > 0.0);
        if (sp) {
            PP_REL_EQ(on.total_s, off.total_s, 1e-15);
        } else {
            CU_ASSERT(on.total_s < 0.9 * off.total_s && on.bytes_nvlink < off.bytes_nvlink);
        }
    }
}

/* Inside a node an all-gather and a reduce-scatter are each half an
 * all-reduce: (n-1)/n of the buffer and n-1 steps.  A point-to-point
 * transfer is one alpha plus bytes over the link. */
static void test_allgather_reducescatter_p2p(void)
{
    pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 2, 16);
    double M = 64e6, B = 300e9 * 0.8, net = 200e9 / 8 * 0.8;
    double ar = pp_collective_time_s(&p.cluster, PP_COLL_ALLREDUCE, M, 8, 8);
    PP_REL_EQ(pp_collective_time_s(&p.cluster, PP_COLL_ALLGATHER, M, 8, 8), ar / 2, 1e-12);
    PP_REL_EQ(pp_collective_time_s(&p.cluster, PP_COLL_REDUCESCATTER, M, 8, 8), 7.0 / 8 * M / B + 7 * 5e-6, 1e-12);
    PP_REL_EQ(pp_p2p_time_s(&p.cluster, M, false), 5e-6 + M / B, 1e-12);
    PP_REL_EQ(pp_p2p_time_s(&p.cluster, M, true), 10e-6 + M / net, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(pp_p2p_time_s(&p.cluster, 0.0, true), 0.0, 0.0);
}

/* Across nodes an all-gather is a ring of n - 1 steps: nodes - 1 cross the
 * network, the others stay on NVLink, each at its link's alpha (NCCL's
 * tuning model, src/graph/tuning.cc), and each GPU's NIC carries 1/k of the
 * buffer.  With one rank a node every step crosses the network. */
static void test_allgather_across_nodes(void)
{
    pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 1, 8);
    double M = 64e6, net = 200e9 / 8 * 0.8, a_nv = 5e-6, a_net = 10e-6;
    /* 2240 ranks, 8 a node: 280 nodes, 279 network steps and 1960 NVLink ones */
    double expect = 2239.0 / 2240 * M / 8 / net + 1960 * a_nv + 279 * a_net;
    PP_REL_EQ(pp_collective_time_s(&p.cluster, PP_COLL_ALLGATHER, M, 2240, 8), expect, 1e-12);
    PP_REL_EQ(pp_collective_time_s(&p.cluster, PP_COLL_REDUCESCATTER, M, 2240, 8), expect, 1e-12);
    PP_REL_EQ(pp_collective_time_s(&p.cluster, PP_COLL_ALLGATHER, M, 16, 1), 15.0 / 16 * M / net + 15 * a_net,
              1e-12);
}

/* Rings across NIC rails (pp_group_crosses_rails): on a DGX A100 (two GPUs
 * and two NICs a PCIe switch) without PXN, a group with 2 or 4 ranks a node
 * (Megatron-LM's data-parallel group at t = 4 or 2: ranks 4 or 2 apart)
 * has no two ranks on one switch, so NCCL's rings leave the node on
 * another rail; one rank a node, a whole node, a group inside a node, a
 * switch shared by 4 GPUs at stride 2, PXN and MVAPICH do not.  Only the
 * network share of the time is divided by cross_rail. */
static void test_cross_rail_rings(void)
{
    pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 1, 8);
    pp_cluster *c = &p.cluster;
    CU_ASSERT_FALSE(pp_group_crosses_rails(c, 32, 4)); /* the test GPU gives no NIC layout */
    c->gpus_per_nic_switch = 2;
    c->nccl_pxn = false;
    CU_ASSERT_TRUE(pp_group_crosses_rails(c, 32, 4));
    CU_ASSERT_TRUE(pp_group_crosses_rails(c, 16, 2));
    CU_ASSERT_FALSE(pp_group_crosses_rails(c, 8, 1));
    CU_ASSERT_FALSE(pp_group_crosses_rails(c, 32, 8));
    CU_ASSERT_FALSE(pp_group_crosses_rails(c, 4, 4));
    c->gpus_per_nic_switch = 4; /* stride 2 inside a switch of 4: same-NIC rings */
    CU_ASSERT_FALSE(pp_group_crosses_rails(c, 32, 4));
    CU_ASSERT_TRUE(pp_group_crosses_rails(c, 16, 2));
    c->gpus_per_nic_switch = 2;
    c->nccl_pxn = true;
    CU_ASSERT_FALSE(pp_group_crosses_rails(c, 32, 4));
    c->nccl_pxn = false;
    c->mpi_collectives = true;
    CU_ASSERT_FALSE(pp_group_crosses_rails(c, 32, 4));
    c->mpi_collectives = false;

    double M = 1e9, net = 200e9 / 8 * 0.8;
    c->gpu.eff.cross_rail = 1.0;
    double same = pp_collective_time_s(c, PP_COLL_ALLREDUCE, M, 32, 4);
    double flat = pp_collective_time_s(c, PP_COLL_ALLREDUCE, M, 8, 1);
    c->gpu.eff.cross_rail = 0.5;
    double cross = pp_collective_time_s(c, PP_COLL_ALLREDUCE, M, 32, 4);
    /* 8 nodes, each rank's channel a quarter of M across: 2 x 31/32 x M/4 at full rate */
    PP_REL_EQ(cross - same, 2.0 * 31 / 32 * (M / 4) / net, 1e-9);
    PP_REL_EQ(pp_collective_time_s(c, PP_COLL_ALLREDUCE, M, 8, 1), flat, 1e-12);
    /* an all-gather's ring crosses the same rails */
    double ag_cross = pp_collective_time_s(c, PP_COLL_ALLGATHER, M, 32, 4);
    c->gpu.eff.cross_rail = 1.0;
    PP_REL_EQ(ag_cross - pp_collective_time_s(c, PP_COLL_ALLGATHER, M, 32, 4), 31.0 / 32 * (M / 4) / net, 1e-9);
}

/* DeepSpeed of 2021 (framework deepspeed-2021) gathers ZeRO-3 parameters
 * into lists of n tensors, which PyTorch's NCCL process group copies one
 * kernel each: its DP term exceeds current DeepSpeed's (one flat gather) by
 * at least n launches a collective, and the difference grows with n. */
static void test_list_collectives(void)
{
    double extra[2];
    const int nodes[2] = {16, 64};
    for (int i = 0; i < 2; i++) {
        pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), nodes[i], 8 * nodes[i]);
        pp_plan pl = pp_test_plan(1, 1, 8 * nodes[i], 1, 1);
        pl.zero = 3;
        pp_dp_term flat, list;
        pp_framework_features(PP_FW_DEEPSPEED, &p.training);
        CU_ASSERT_FALSE(p.training.list_collectives);
        pp_term_dp_comm(&p, &pl, &flat);
        pp_framework_features(PP_FW_DEEPSPEED_2021, &p.training);
        CU_ASSERT_TRUE(p.training.list_collectives);
        pp_term_dp_comm(&p, &pl, &list);
        /* gathers of the forward and backward, the per-micro-batch and
         * once-a-step reduce-scatters: one collective per module and layer */
        double collectives = 96.0 * p.training.param_collectives_per_layer;
        extra[i] = (list.once_wire_s + list.per_mb_wire_s + list.per_mb_fixed_s) -
                   (flat.once_wire_s + flat.per_mb_wire_s + flat.per_mb_fixed_s);
        CU_ASSERT(extra[i] >= 2.0 * collectives * 8.0 * nodes[i] * p.cluster.gpu.eff.kernel_us * 1e-6);
    }
    /* the copies' traffic is the gathered buffer whatever n; their launches
     * grow with n: 3 collectives a module and layer (two gathers, one
     * reduce-scatter), 384 more ranks */
    pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 16, 128);
    pp_framework_features(PP_FW_DEEPSPEED_2021, &p.training);
    double launches = 3.0 * 96 * p.training.param_collectives_per_layer * 384;
    PP_REL_EQ(extra[1] - extra[0], launches * p.cluster.gpu.eff.kernel_us * 1e-6, 1e-9);
}

/* Every collective takes longer with more bytes, whatever the layout, and
 * costs nothing on one rank or on an empty buffer. */
static void test_time_grows_with_bytes(void)
{
    pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 4, 32);
    const pp_collective kinds[] = {PP_COLL_ALLREDUCE, PP_COLL_ALLGATHER, PP_COLL_REDUCESCATTER};
    const long layouts[][2] = {{8, 8}, {32, 8}, {16, 1}, {32, 4}}; /* n ranks, k per node */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) {
            long n = layouts[j][0], k = layouts[j][1];
            double small = pp_collective_time_s(&p.cluster, kinds[i], 1e6, n, k);
            double big = pp_collective_time_s(&p.cluster, kinds[i], 1e8, n, k);
            CU_ASSERT(small > 0.0);
            CU_ASSERT(big > small);
            CU_ASSERT_DOUBLE_EQUAL(pp_collective_time_s(&p.cluster, kinds[i], 0.0, n, k), 0.0, 0.0);
            CU_ASSERT_DOUBLE_EQUAL(pp_collective_time_s(&p.cluster, kinds[i], 1e8, 1, k), 0.0, 0.0);
        }
}

/* Per-link bytes: of a GPU's k ring channels one sends through its NIC and
 * k - 1 over NVLink, each its 1/k of the ring's 2 (n-1)/n M. */
static void test_collective_bytes(void)
{
    double nvl, net, M = 1e9;
    pp_collective_bytes(PP_COLL_ALLREDUCE, M, 8, 8, &nvl, &net);
    PP_REL_EQ(nvl, 2.0 * 7 / 8 * M, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(net, 0.0, 0.0);
    pp_collective_bytes(PP_COLL_ALLREDUCE, M, 32, 8, &nvl, &net);
    PP_REL_EQ(net, 2.0 * 31 / 32 * M / 8, 1e-15);
    PP_REL_EQ(nvl, 2.0 * 31 / 32 * M * 7 / 8, 1e-15);
    pp_collective_bytes(PP_COLL_ALLGATHER, M, 32, 1, &nvl, &net);
    PP_REL_EQ(net, 31.0 / 32 * M, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(nvl, 0.0, 0.0);
}

/* Compression: a lossy 8-bit codec halves 16-bit DP traffic on the wire and
 * costs codec time; messages under the threshold stay raw. */
static void test_compression(void)
{
    pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 16, 128);
    pp_codec *c = &p.codecs[1];
    strcpy(c->id, "zfp8");
    c->lossy = true;
    c->bits_per_value = 8;
    c->compress_GBps = 100;
    c->decompress_GBps = 100;
    p.n_codecs = 2;
    CU_ASSERT_DOUBLE_EQUAL(pp_codec_ratio(c, 16), 2.0, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(pp_codec_ratio(c, 4), 1.0, 1e-15);
    pp_plan pl = pp_test_plan(8, 1, 16, 1, 8);
    pp_dp_term raw, comp;
    pp_term_dp_comm(&p, &pl, &raw);
    pl.codec[PP_DIM_DP] = 1;
    pp_term_dp_comm(&p, &pl, &comp);
    PP_REL_EQ(comp.bytes_sent, raw.bytes_sent / 2, 1e-12);
    CU_ASSERT(comp.codec_s > 0 && raw.codec_s == 0);
    p.compress_min_bytes = 1e15;
    pp_term_dp_comm(&p, &pl, &comp);
    PP_REL_EQ(comp.bytes_sent, raw.bytes_sent, 1e-12);
}

/* Per-GPU codec throughput: the longest matching id prefix, else the
 * default; MVAPICH's pipeline hides the codec behind the wire when the
 * message spans many chunks, never below one chunk's worth. */
static void test_codec_rates_and_pipeline(void)
{
    pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 16, 128);
    pp_codec *c = &p.codecs[1];
    memset(c, 0, sizeof *c);
    strcpy(c->id, "zfp8");
    c->lossy = true;
    c->bits_per_value = 8;
    c->compress_GBps = c->decompress_GBps = 100;
    c->n_rates = 2;
    strcpy(c->rates[0].gpu, "v100");
    c->rates[0].compress_GBps = 50;
    c->rates[0].decompress_GBps = -1;
    strcpy(c->rates[1].gpu, "v100-sxm2-16");
    c->rates[1].compress_GBps = 40;
    c->rates[1].decompress_GBps = 60;
    p.n_codecs = 2;
    CU_ASSERT_DOUBLE_EQUAL(pp_codec_GBps(c, "v100-sxm2-16gb", false), 40, 0);
    CU_ASSERT_DOUBLE_EQUAL(pp_codec_GBps(c, "v100-sxm2-32gb", false), 50, 0);
    CU_ASSERT_DOUBLE_EQUAL(pp_codec_GBps(c, "v100-sxm2-32gb", true), 100, 0);
    CU_ASSERT_DOUBLE_EQUAL(pp_codec_GBps(c, "a100-sxm4-80gb", false), 100, 0);

    pp_plan pl = pp_test_plan(8, 1, 16, 1, 8);
    pl.codec[PP_DIM_DP] = 1;
    pp_dp_term one, many;
    p.codec_chunk_bytes = 1e15; /* one chunk: compress + send + decompress */
    pp_term_dp_comm(&p, &pl, &one);
    p.codec_chunk_bytes = 1 << 20;
    pp_term_dp_comm(&p, &pl, &many);
    CU_ASSERT(many.codec_s < one.codec_s);
    CU_ASSERT(many.codec_s > 0);
    PP_REL_EQ(many.once_wire_s, one.once_wire_s, 1e-12);
}

int main(void)
{
    const pp_test tests[] = {
        {"ring all-reduce in a node and across nodes", test_allreduce_intra},
        {"NCCL across nodes: channels pipelined, ring or tree (public nccl-tests runs)",
         test_allreduce_across_nodes_pipelined},
        {"NCCL's tree across nodes no faster than its channels; ZeRO's halves are rings", test_tree_channels},
        {"all-gather, reduce-scatter, point-to-point", test_allgather_reducescatter_p2p},
        {"all-gather across nodes: NVLink and network steps", test_allgather_across_nodes},
        {"rings across NIC rails without PXN", test_cross_rail_rings},
        {"NVLink SHARP: a one-node all-reduce on 8 H100 as nccl-tests measures it", test_nvls_one_node},
        {"NVLS-Tree: all-reduces across nodes of 8 H100 or B200 as nccl-tests measures them", test_nvls_tree},
        {"NVLink SHARP speeds TP without sequence parallelism only", test_nvls_tp},
        {"DeepSpeed 2021's list collectives copy n tensors", test_list_collectives},
        {"collective time grows with bytes", test_time_grows_with_bytes},
        {"bytes per link of hierarchical collectives", test_collective_bytes},
        {"compression ratio and threshold", test_compression},
        {"per-GPU codec throughput, pipelined codec", test_codec_rates_and_pipeline},
        {NULL, NULL},
    };
    return pp_test_main("cost-collectives", tests);
}
