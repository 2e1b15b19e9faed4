/*
 * test_nccl_calibrate.c: `parplan calibrate --nccl-tests` on logs this test
 * writes itself, in the exact formats of nccl-tests (src/common.cu of
 * NVIDIA/nccl-tests: v2.10 and v2.13+), from a known alpha-beta truth:
 * H100 NVLink at 80 % of 450 GB/s with 2 us a step, the network at 70 % of
 * 400 Gb/s with 8 us a step, and +-2 % of noise on every timing.  One host
 * of 8 GPUs measures NVLink, 4 hosts of 8 the network.  The fit must find
 * each efficiency within 0.04 and each latency within 30 %, whatever the
 * format, the NCCL INFO noise, the MPI prefixes, missing rank lines, wrong
 * rows and a run that dies mid-table.
 */
#include "calibrate_links.h"
#include "catalog.h"
#include "costmodel.h"
#include "nccl_log.h"
#include "report_links.h"
#include "strbuf.h"
#include "testutil.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRUE_NVLINK 0.80
#define TRUE_NVLINK_US 2.0
#define TRUE_NETWORK 0.70
#define TRUE_NETWORK_US 8.0

static pp_cluster h100_cluster(double nvlink, double nvlink_us, double network, double network_us)
{
    pp_cluster c;
    memset(&c, 0, sizeof c);
    snprintf(c.gpu.id, sizeof c.gpu.id, "h100-sxm5-80gb");
    c.gpus_per_node = 8;
    c.nodes = 4;
    c.intra_node_GBps = 450;
    c.inter_node_Gbps = 400;
    pp_efficiency_init(&c.gpu.eff);
    c.gpu.eff.nvlink = nvlink;
    c.gpu.eff.nvlink_latency_us = nvlink_us;
    c.gpu.eff.network = network;
    c.gpu.eff.network_latency_us = network_us;
    return c;
}

/* How a generated log looks. */
typedef struct gen {
    pp_nccl_op op;
    long ranks, hosts;
    bool old_format; /* v2.10: "#   Rank  0 Pid", an "error" column, no root */
    bool rank_lines;
    bool noise;      /* NCCL INFO and wrapper lines between the lines */
    bool mpi_prefix; /* "[1,0]<stdout>:" before every line (mpirun --tag-output) */
    int wrong_row;   /* this size's in-place half reports wrong values; -1: none */
    int fail_after;  /* the run dies after this many sizes; -1: it completes */
    unsigned algos;  /* the all-reduce algorithms of the truth (PP_NCCL_ALGO_*); 0: NCCL's choice */
} gen;

static void line(pp_strbuf *sb, const gen *g, const char *fmt, ...) PP_PRINTF(3, 4);
static void line(pp_strbuf *sb, const gen *g, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    pp_sb_appendf(sb, "%s%s", g->mpi_prefix ? "[1,0]<stdout>:" : "", buf);
}

static const char *test_name(pp_nccl_op op)
{
    switch (op) {
    case PP_NCCL_ALLREDUCE: return "all_reduce_perf";
    case PP_NCCL_ALLGATHER: return "all_gather_perf";
    case PP_NCCL_REDUCESCATTER: return "reduce_scatter_perf";
    case PP_NCCL_SENDRECV: return "sendrecv_perf";
    default: return "alltoall_perf";
    }
}

static bool has_redop(const gen *g)
{
    return !g->old_format || g->op == PP_NCCL_ALLREDUCE || g->op == PP_NCCL_REDUCESCATTER || g->op == PP_NCCL_ALLTOALL;
}

static void header(pp_strbuf *sb, const gen *g)
{
    long k = g->ranks / g->hosts;
    if (!g->old_format) {
        line(sb, g, "# nccl-tests version 2.13.9 nccl-headers=21903 nccl-library=21903\n");
        line(sb, g, "# Collective test starting: %s\n", test_name(g->op));
        line(sb, g, "# nThread 1 nGpus %ld minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 "
                    "agg iters: 1 validation: 1 graph: 0\n", g->hosts > 1 ? 1L : g->ranks);
    } else
        line(sb, g, "# nThread 1 nGpus %ld minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 "
                    "validation: 1 \n", g->hosts > 1 ? 1L : g->ranks);
    line(sb, g, "#\n");
    line(sb, g, "# Using devices\n");
    for (long r = 0; r < g->ranks && g->rank_lines; r++) {
        char host[32];
        snprintf(host, sizeof host, "node-%ld", r / k + 1);
        if (g->old_format)
            line(sb, g, "#   Rank %2ld Pid %6ld on %10s device %2ld [0x%02lx] NVIDIA H100 80GB HBM3\n", r, 4000 + r, host,
                 r % k, 0x18 + r % k);
        else
            line(sb, g, "#  Rank %2ld Group %2d Pid %6ld on %10s device %2ld [0x%02lx] NVIDIA H100 80GB HBM3\n", r, 0,
                 4000 + r, host, r % k, 0x18 + r % k);
        if (g->noise && r == 3)
            pp_sb_appendf(sb, "node-1:4003:4003 [3] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n");
    }
    line(sb, g, "#\n");
    if (g->old_format && has_redop(g)) {
        line(sb, g, "# %10s  %12s  %8s  %6s            out-of-place                       in-place          \n", "", "", "",
             "");
        line(sb, g, "# %10s  %12s  %8s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s\n", "size", "count", "type", "redop",
             "time", "algbw", "busbw", "error", "time", "algbw", "busbw", "error");
        line(sb, g, "# %10s  %12s  %8s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s\n", "(B)", "(elements)", "", "",
             "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
    } else if (g->old_format) {
        line(sb, g, "# %10s  %12s  %8s            out-of-place                       in-place          \n", "", "", "");
        line(sb, g, "# %10s  %12s  %8s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s\n", "size", "count", "type", "time",
             "algbw", "busbw", "error", "time", "algbw", "busbw", "error");
        line(sb, g, "# %10s  %12s  %8s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s\n", "(B)", "(elements)", "", "(us)",
             "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
    } else {
        line(sb, g, "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n", "",
             "", "", "", "");
        line(sb, g, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s  %7s  %6s  %6s %6s\n", "size", "count", "type",
             "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
        line(sb, g, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s\n", "(B)", "(elements)", "", "",
             "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
    }
}

/* nccl-tests' time column: %7.0f from 10 ms, %7.1f from 100 us, else %7.2f. */
static void time_str(double us, char *buf, size_t cap)
{
    snprintf(buf, cap, us >= 10000.0 ? "%7.0f" : us >= 100.0 ? "%7.1f" : "%7.2f", us);
}

static double truth_us(const pp_cluster *c, const gen *g, double bytes)
{
    pp_nccl_run r;
    memset(&r, 0, sizeof r);
    r.op = g->op;
    r.ranks = g->ranks;
    r.hosts = g->hosts;
    r.ranks_per_host = g->ranks / g->hosts;
    r.algos = g->algos;
    return pp_nccl_model_time_us(c, &r, bytes);
}

static void half(pp_strbuf *sb, const gen *g, double bytes, double us, bool wrong)
{
    char t[32];
    time_str(us, t, sizeof t);
    double algbw = bytes / us / 1e3, busbw = algbw * pp_nccl_bus_factor(g->op, g->ranks);
    if (g->old_format)
        pp_sb_appendf(sb, "  %7s  %6.2f  %6.2f  %5.0le", t, algbw, busbw, wrong ? 0.25 : 2e-7);
    else
        pp_sb_appendf(sb, "  %7s  %6.2f  %6.2f  %5g", t, algbw, busbw, wrong ? 3.0 : 0.0);
}

static void row_start(pp_strbuf *sb, const gen *g, double bytes)
{
    const char *redop = g->op == PP_NCCL_ALLREDUCE || g->op == PP_NCCL_REDUCESCATTER ? "sum" : "none";
    line(sb, g, "%12li  %12li  %8s", (long)bytes, (long)bytes / 4, "float");
    if (has_redop(g))
        pp_sb_appendf(sb, "  %6s", redop);
    if (!g->old_format)
        pp_sb_appendf(sb, "  %6i", -1);
}

/* A log of one run: sizes 8 B to 8 GiB by factors of 2. */
static void generate(pp_strbuf *sb, const pp_cluster *truth, const gen *g)
{
    header(sb, g);
    double sum_busbw = 0.0;
    int i = 0;
    for (double bytes = 8; bytes <= 8589934592.0; bytes *= 2, i++) {
        if (i == g->fail_after) {
            row_start(sb, g, bytes);
            pp_sb_append(sb, "node-2: Test NCCL failure common.cu:1029 'remote process exited or there was a network "
                             "error'\n .. node-2 pid 4009: Test failure common.cu:902\n");
            return;
        }
        double t = truth_us(truth, g, bytes);
        double jitter = 1.0 + 0.02 * ((double)((i * 7919) % 13) / 6.0 - 1.0);
        double jitter2 = 1.0 + 0.02 * ((double)((i * 104729) % 11) / 5.0 - 1.0);
        row_start(sb, g, bytes);
        half(sb, g, bytes, t * jitter, false);
        half(sb, g, bytes, t * jitter2, i == g->wrong_row);
        pp_sb_append(sb, "\n");
        sum_busbw += bytes / t / 1e3 * pp_nccl_bus_factor(g->op, g->ranks);
        if (g->noise && i % 7 == 3)
            pp_sb_appendf(sb, "node-1:4000:4100 [0] NCCL INFO Channel 02/32 :    0   1   2   3   4   5   6   7\n");
    }
    line(sb, g, "# Out of bounds values : %d %s\n", g->wrong_row >= 0, g->wrong_row >= 0 ? "FAILED" : "OK");
    line(sb, g, "# Avg bus bandwidth    : %g \n", sum_busbw / i);
    line(sb, g, "#\n");
    if (!g->old_format)
        line(sb, g, "# Collective test concluded: %s\n", test_name(g->op));
}

static gen plain(pp_nccl_op op, long ranks, long hosts, bool old_format)
{
    return (gen){op, ranks, hosts, old_format, true, false, false, -1, -1, 0};
}

static void parse(const char *text, const char *name, pp_nccl_log *log)
{
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(pp_nccl_log_parse(text, name, 8, log, &err), PP_OK);
}

/* Fit the logs and check the truth is found; prints what it found. */
static void check_fit(const char *what, pp_nccl_log *logs, int n)
{
    pp_link_calibration cal;
    memset(&cal, 0, sizeof cal);
    cal.cluster = h100_cluster(0.95, 5.0, 0.95, 10.0); /* the catalog's values, to be replaced */
    CU_ASSERT_EQUAL(pp_calibrate_links(logs, n, &cal), 2);
    const pp_link_fit *nv = &cal.link[PP_LINK_NVLINK], *net = &cal.link[PP_LINK_NETWORK];
    printf("\n  %s: NVLink %.4f (truth %.2f), %.3f us (truth %.1f); network %.4f (truth %.2f), %.3f us (truth %.1f)",
           what, nv->efficiency, TRUE_NVLINK, nv->latency_us, TRUE_NVLINK_US, net->efficiency, TRUE_NETWORK,
           net->latency_us, TRUE_NETWORK_US);
    CU_ASSERT(fabs(nv->efficiency - TRUE_NVLINK) <= 0.04);
    CU_ASSERT(fabs(nv->latency_us / TRUE_NVLINK_US - 1.0) <= 0.30);
    CU_ASSERT(fabs(net->efficiency - TRUE_NETWORK) <= 0.04);
    CU_ASSERT(fabs(net->latency_us / TRUE_NETWORK_US - 1.0) <= 0.30);
    CU_ASSERT_DOUBLE_EQUAL(cal.cluster.gpu.eff.nvlink, nv->efficiency, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(cal.cluster.gpu.eff.network_latency_us, net->latency_us, 0.0);
}

/* One host (NVLink: all-reduce, all-gather) and 4 hosts (network:
 * all-reduce, reduce-scatter), in the format of nccl-tests v2.10 or v2.13+. */
static void fit_both(bool old_format, bool noise, bool mpi_prefix, const char *what)
{
    pp_cluster truth = h100_cluster(TRUE_NVLINK, TRUE_NVLINK_US, TRUE_NETWORK, TRUE_NETWORK_US);
    gen gens[] = {plain(PP_NCCL_ALLREDUCE, 8, 1, old_format), plain(PP_NCCL_ALLGATHER, 8, 1, old_format),
                  plain(PP_NCCL_ALLREDUCE, 32, 4, old_format), plain(PP_NCCL_REDUCESCATTER, 32, 4, old_format)};
    const char *names[] = {"all_reduce_1node.log", "all_gather_1node.log", "all_reduce_4nodes.log",
                           "reduce_scatter_4nodes.log"};
    pp_nccl_log logs[4];
    for (int i = 0; i < 4; i++) {
        gens[i].noise = noise;
        gens[i].mpi_prefix = mpi_prefix && gens[i].hosts > 1;
        pp_strbuf sb;
        pp_sb_init(&sb);
        generate(&sb, &truth, &gens[i]);
        parse(pp_sb_str(&sb), names[i], &logs[i]);
        pp_sb_free(&sb);
        CU_ASSERT_EQUAL(logs[i].n_runs, 1);
        const pp_nccl_run *r = &logs[i].runs[0];
        CU_ASSERT_EQUAL(r->op, gens[i].op);
        CU_ASSERT_EQUAL(r->ranks, gens[i].ranks);
        CU_ASSERT_EQUAL(r->hosts, gens[i].hosts);
        CU_ASSERT_EQUAL(r->ranks_per_host, 8);
        CU_ASSERT(r->ranks_from_lines);
        CU_ASSERT(r->complete);
        CU_ASSERT_EQUAL(r->n_rows, 2 * 31);
        CU_ASSERT_STRING_EQUAL(r->unusable, "");
        CU_ASSERT_STRING_EQUAL(r->device, "NVIDIA H100 80GB HBM3");
    }
    check_fit(what, logs, 4);
    for (int i = 0; i < 4; i++)
        pp_nccl_log_free(&logs[i]);
}

static void test_new_format(void)
{
    fit_both(false, false, false, "v2.13 format");
}

static void test_new_format_noise_mpi(void)
{
    fit_both(false, true, true, "v2.13 format, NCCL INFO noise, MPI prefixes");
}

static void test_old_format(void)
{
    fit_both(true, false, false, "v2.10 format");
}

static void test_old_format_noise_mpi(void)
{
    fit_both(true, true, true, "v2.10 format, NCCL INFO noise, MPI prefixes");
}

/* Without rank lines or a test name, busbw/algbw gives the collective and
 * the rank count, and gpus_per_node the hosts. */
static void test_no_rank_lines(void)
{
    pp_cluster truth = h100_cluster(TRUE_NVLINK, TRUE_NVLINK_US, TRUE_NETWORK, TRUE_NETWORK_US);
    gen g[] = {plain(PP_NCCL_ALLREDUCE, 8, 1, true), plain(PP_NCCL_ALLREDUCE, 32, 4, true),
               plain(PP_NCCL_ALLGATHER, 32, 4, true)};
    pp_nccl_log logs[3];
    for (int i = 0; i < 3; i++) {
        g[i].rank_lines = false;
        pp_strbuf sb;
        pp_sb_init(&sb);
        generate(&sb, &truth, &g[i]);
        parse(pp_sb_str(&sb), "node.log", &logs[i]);
        pp_sb_free(&sb);
        const pp_nccl_run *r = &logs[i].runs[0];
        CU_ASSERT_EQUAL(r->op, g[i].op);
        CU_ASSERT_EQUAL(r->ranks, g[i].ranks);
        CU_ASSERT_EQUAL(r->hosts, g[i].hosts);
        CU_ASSERT(!r->ranks_from_lines);
        PP_ASSERT_CONTAINS(r->op_from, "busbw/algbw");
    }
    check_fit("no rank lines, v2.10", logs, 3);
    for (int i = 0; i < 3; i++)
        pp_nccl_log_free(&logs[i]);
}

/* One file, three runs: one with a wrong in-place half, one that dies
 * mid-table (its complete rows are kept), one all-to-all (read, not fitted). */
static void test_skips_and_runs(void)
{
    pp_cluster truth = h100_cluster(TRUE_NVLINK, TRUE_NVLINK_US, TRUE_NETWORK, TRUE_NETWORK_US);
    gen a = plain(PP_NCCL_ALLREDUCE, 8, 1, false), b = plain(PP_NCCL_ALLGATHER, 32, 4, false),
        c = plain(PP_NCCL_ALLTOALL, 8, 1, false), d = plain(PP_NCCL_ALLREDUCE, 8, 1, true);
    a.wrong_row = 5;
    b.fail_after = 20;
    d.wrong_row = 7;
    pp_strbuf sb;
    pp_sb_init(&sb);
    pp_sb_append(&sb, "+ srun --mpi=pmix ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 8\n");
    generate(&sb, &truth, &a);
    generate(&sb, &truth, &b);
    generate(&sb, &truth, &c);
    generate(&sb, &truth, &d);
    pp_nccl_log log;
    parse(pp_sb_str(&sb), "sweep.log", &log);
    pp_sb_free(&sb);
    CU_ASSERT_EQUAL_FATAL(log.n_runs, 4);
    CU_ASSERT_EQUAL(log.runs[0].op, PP_NCCL_ALLREDUCE);
    CU_ASSERT_EQUAL(log.runs[0].skipped_wrong, 1);
    CU_ASSERT_EQUAL(log.runs[0].n_rows, 61);
    CU_ASSERT_EQUAL(log.runs[1].op, PP_NCCL_ALLGATHER);
    CU_ASSERT_EQUAL(log.runs[1].n_rows, 40);
    CU_ASSERT_EQUAL(log.runs[1].skipped_incomplete, 1);
    CU_ASSERT(!log.runs[1].complete);
    CU_ASSERT(pp_nccl_run_fitted(&log.runs[1]));
    CU_ASSERT_EQUAL(log.runs[2].op, PP_NCCL_ALLTOALL);
    CU_ASSERT(!pp_nccl_run_fitted(&log.runs[2]));
    CU_ASSERT_EQUAL(log.runs[3].op, PP_NCCL_ALLREDUCE); /* old format: by busbw/algbw */
    CU_ASSERT_EQUAL(log.runs[3].skipped_wrong, 1);      /* error 0.25 > 7 x 1e-5 */
    CU_ASSERT_EQUAL(log.runs[3].n_rows, 61);
    pp_nccl_log_free(&log);
}

/* Runs across nodes only, NVLink kept from a fit whose latency stands for
 * more than a step (the A100's training fit, ~15 us): 2 (n - N) intra-node
 * steps of it alone exceed what a 10-node all-reduce's small sizes take, so
 * the network's latency would be negative and its efficiency pushed toward
 * the line rate.  Both latencies are then fitted as one; the network's
 * efficiency comes back.  With a kept latency the runs allow, nothing is
 * tied. */
static void test_latency_from_network(void)
{
    pp_cluster truth = h100_cluster(TRUE_NVLINK, 3.0, TRUE_NETWORK, 3.0);
    gen g[] = {plain(PP_NCCL_ALLREDUCE, 80, 10, false), plain(PP_NCCL_REDUCESCATTER, 32, 4, false)};
    pp_nccl_log logs[2];
    for (int i = 0; i < 2; i++) {
        pp_strbuf sb;
        pp_sb_init(&sb);
        generate(&sb, &truth, &g[i]);
        parse(pp_sb_str(&sb), "across.log", &logs[i]);
        pp_sb_free(&sb);
    }
    for (int kept = 0; kept < 2; kept++) {
        double kept_us = kept ? 3.0 : 20.0;
        pp_link_calibration cal;
        memset(&cal, 0, sizeof cal);
        cal.cluster = h100_cluster(TRUE_NVLINK, kept_us, 0.95, 10.0);
        CU_ASSERT_EQUAL(pp_calibrate_links(logs, 2, &cal), 1);
        const pp_link_fit *nv = &cal.link[PP_LINK_NVLINK], *net = &cal.link[PP_LINK_NETWORK];
        printf("\n  NVLink kept at %.0f us: network %.4f (truth %.2f), %.3f us; NVLink latency %.3f us%s", kept_us,
               net->efficiency, TRUE_NETWORK, net->latency_us, cal.cluster.gpu.eff.nvlink_latency_us,
               nv->latency_from_network ? " (fitted with the network's)" : "");
        CU_ASSERT_FALSE(nv->fitted);
        CU_ASSERT(net->fitted);
        CU_ASSERT(fabs(net->efficiency - TRUE_NETWORK) <= 0.03);
        CU_ASSERT(fabs(net->latency_us / 3.0 - 1.0) <= 0.30);
        CU_ASSERT_EQUAL(nv->latency_from_network, !kept);
        CU_ASSERT_DOUBLE_EQUAL(cal.cluster.gpu.eff.nvlink_latency_us, kept ? kept_us : net->latency_us, 1e-12);
        if (!kept)
            CU_ASSERT_DOUBLE_EQUAL(nv->kept_latency_us, kept_us, 0.0);
    }
    pp_nccl_log_free(&logs[0]);
    pp_nccl_log_free(&logs[1]);
}

/* Parse one run's log text with a line of settings before it: one run. */
static void parse_after(const char *line, const pp_strbuf *run, const char *name, pp_nccl_log *log)
{
    pp_strbuf sb;
    pp_sb_init(&sb);
    pp_sb_appendf(&sb, "%s\n%s", line, pp_sb_str(run));
    parse(pp_sb_str(&sb), name, log);
    pp_sb_free(&sb);
    CU_ASSERT_EQUAL_FATAL(log->n_runs, 1);
}

/* NCCL_ALGO as a log sets it (a command line, mpirun's -x, NCCL's own INFO
 * line; "^" excludes): the runs after it, and the run it is in, are priced
 * with those algorithms only.  Two nodes of rings (NCCL_ALGO=Ring, what
 * nccl-tests' maintainers advise to measure the network on two nodes,
 * NVIDIA/nccl-tests#196) move 2 (n-1)/n of the buffer through the NICs
 * where the tree moves it once: read as NCCL's choice, the same log would
 * fit the network at about half its efficiency (n / (2 (n-1))). */
static void test_nccl_algo(void)
{
    pp_cluster truth = h100_cluster(TRUE_NVLINK, TRUE_NVLINK_US, TRUE_NETWORK, TRUE_NETWORK_US);
    truth.inter_node_Gbps = 200; /* so that the tree reading is the NICs' too, not the node's chain */
    gen g = plain(PP_NCCL_ALLREDUCE, 16, 2, false);
    g.algos = PP_NCCL_ALGO_RING;
    pp_strbuf run;
    pp_sb_init(&run);
    generate(&run, &truth, &g);
    const struct {
        const char *line;
        unsigned algos;
        const char *said;
    } forms[] = {
        {"mpirun -np 16 -N 8 -x NCCL_ALGO=Ring ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 1", PP_NCCL_ALGO_RING,
         "Ring"},
        {"node1:2345:2345 [0] NCCL INFO NCCL_ALGO set by environment to ^Tree", PP_NCCL_ALGO_RING, "^Tree"},
        {"export NCCL_ALGO='tree'", PP_NCCL_ALGO_TREE, "tree"},
        {"NCCL_ALGO=Ring,Tree srun -N 2 ./build/all_reduce_perf", PP_NCCL_ALGO_RING | PP_NCCL_ALGO_TREE, "Ring,Tree"},
        {"NCCL_ALGO=NVLSTree ./build/all_reduce_perf", 0, "NVLSTree"},
        {"NCCL_ALGO=allreduce:ring ./build/all_reduce_perf", 0, "allreduce:ring"},
        {"no setting here", 0, ""},
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        pp_nccl_log log;
        parse_after(forms[i].line, &run, "algo.log", &log);
        CU_ASSERT_EQUAL(log.runs[0].algos, forms[i].algos);
        CU_ASSERT_STRING_EQUAL(log.runs[0].algo_said, forms[i].said);
        if (i == 0 || i == sizeof forms / sizeof forms[0] - 1) {
            /* fitted: the truth with the setting read, half of it without */
            pp_link_calibration cal;
            memset(&cal, 0, sizeof cal);
            cal.cluster = h100_cluster(TRUE_NVLINK, TRUE_NVLINK_US, 0.95, 10.0);
            cal.cluster.inter_node_Gbps = truth.inter_node_Gbps;
            CU_ASSERT_EQUAL(pp_calibrate_links(&log, 1, &cal), 1);
            double eff = cal.link[PP_LINK_NETWORK].efficiency;
            printf("\n  two nodes of rings, %s: network %.3f (truth %.2f)", i == 0 ? "NCCL_ALGO=Ring read" : "no setting",
                   eff, TRUE_NETWORK);
            if (i == 0) {
                CU_ASSERT(fabs(eff - TRUE_NETWORK) <= 0.03);
            } else {
                CU_ASSERT(eff < 0.6 * TRUE_NETWORK);
            }
        }
        pp_nccl_log_free(&log);
    }
    /* NCCL_NVLS_ENABLE as a log sets it: 0 turns NVLS-Tree off for the runs after it */
    const struct {
        const char *line;
        bool off;
    } nvls[] = {
        {"mpirun -np 16 -x NCCL_NVLS_ENABLE=0 ./build/all_reduce_perf -b 8 -e 8G", true},
        {"node1:2345:2345 [0] NCCL INFO NCCL_NVLS_ENABLE set by environment to 0.", true}, /* misc/param.cc */
        {"node1:2345:2345 [0] NCCL INFO NCCL_NVLS_ENABLE set by environment to 1.", false},
        {"NCCL_NVLS_ENABLE=00 ./build/all_reduce_perf", true},
        {"export NCCL_NVLS_ENABLE=1", false},
        {"no setting here", false},
    };
    for (size_t i = 0; i < sizeof nvls / sizeof nvls[0]; i++) {
        pp_nccl_log log;
        parse_after(nvls[i].line, &run, "nvls.log", &log);
        CU_ASSERT_EQUAL(log.runs[0].nvls_off, nvls[i].off);
        pp_nccl_log_free(&log);
    }
    /* with 400 Gb/s NICs the model's two-node tree is bound by its channels'
     * rate (NCCL's perChMaxTreeBw) inside the H100's bounds: read as NCCL's
     * choice, the rings fit only as a tree whose NICs run far below them,
     * which the report flags, naming the setting that would tell */
    {
        pp_nccl_log fast;
        parse(pp_sb_str(&run), "fast.log", &fast);
        pp_link_calibration cal;
        memset(&cal, 0, sizeof cal);
        cal.cluster = h100_cluster(TRUE_NVLINK, TRUE_NVLINK_US, 0.95, 10.0);
        cal.lo[PP_LINK_NETWORK][0] = 0.75; /* the H100 family's network bounds, as the command sets them */
        cal.hi[PP_LINK_NETWORK][0] = 0.95;
        pp_calibrate_links(&fast, 1, &cal);
        CU_ASSERT(cal.link[PP_LINK_NETWORK].fitted);
        CU_ASSERT(cal.link[PP_LINK_NETWORK].efficiency < 0.3);
        pp_strbuf txt;
        pp_sb_init(&txt);
        pp_report_links_text(&fast, 1, &cal, &txt);
        PP_ASSERT_CONTAINS(pp_sb_str(&txt), "efficiency below the GPU family's bounds");
        PP_ASSERT_CONTAINS(pp_sb_str(&txt), "if the runs set NCCL_ALGO outside the log");
        /* and the line rate it took, the other reading of a fit this low */
        PP_ASSERT_CONTAINS(pp_sb_str(&txt), "is the line rate right? the fit takes 400 Gb/s a GPU");
        pp_sb_free(&txt);
        pp_nccl_log_free(&fast);
    }
    /* a setting after a run's table holds for the runs after it only */
    pp_strbuf sb;
    pp_sb_init(&sb);
    pp_sb_appendf(&sb, "%sNCCL INFO NCCL_ALGO set by environment to Tree\n%s", pp_sb_str(&run), pp_sb_str(&run));
    pp_nccl_log log;
    parse(pp_sb_str(&sb), "two.log", &log);
    CU_ASSERT_EQUAL_FATAL(log.n_runs, 2);
    CU_ASSERT_EQUAL(log.runs[0].algos, 0u);
    CU_ASSERT_EQUAL(log.runs[1].algos, PP_NCCL_ALGO_TREE);
    pp_nccl_log_free(&log);
    pp_sb_free(&sb);
    pp_sb_free(&run);
}

/* A sample in the format the nccl-tests README documents: the output of its
 * quick example "./build/all_reduce_perf -b 8 -e 128M -f 2 -g 8"
 * (github.com/NVIDIA/nccl-tests, README.md "Quick examples"; columns as
 * doc/PERFORMANCE.md explains them), made for this test. */
/* Load tests/data/<name>, a log of one complete all-reduce run on `ranks`
 * ranks over `hosts` hosts. */
static const pp_nccl_run *load_allreduce(const char *name, long ranks, long hosts, pp_nccl_log *log)
{
    char rel[256], path[1024];
    snprintf(rel, sizeof rel, "tests/data/%s", name);
    pp_source_path(rel, path, sizeof path);
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(pp_nccl_log_load(path, 8, log, &err), PP_OK);
    CU_ASSERT_EQUAL_FATAL(log->n_runs, 1);
    const pp_nccl_run *r = &log->runs[0];
    CU_ASSERT_EQUAL(r->op, PP_NCCL_ALLREDUCE);
    CU_ASSERT_EQUAL(r->ranks, ranks);
    CU_ASSERT_EQUAL(r->hosts, hosts);
    CU_ASSERT(r->complete);
    return r;
}

static void test_readme_sample(void)
{
    pp_nccl_log log;
    const pp_nccl_run *r = load_allreduce("nccl-tests-readme-sample.log", 8, 1, &log);
    CU_ASSERT_EQUAL(r->n_rows, 2 * 25);
    pp_nccl_log_free(&log);
}

/* Nothing parses: no runs; a table of only wrong rows: unusable, said why. */
static void test_nothing_valid(void)
{
    pp_nccl_log log;
    parse("hello\nNCCL INFO nothing here\n", "empty.log", &log);
    CU_ASSERT_EQUAL(log.n_runs, 0);
    pp_nccl_log_free(&log);
    pp_cluster truth = h100_cluster(TRUE_NVLINK, TRUE_NVLINK_US, TRUE_NETWORK, TRUE_NETWORK_US);
    gen g = plain(PP_NCCL_ALLREDUCE, 8, 1, false);
    g.fail_after = 0;
    pp_strbuf sb;
    pp_sb_init(&sb);
    generate(&sb, &truth, &g);
    parse(pp_sb_str(&sb), "dead.log", &log);
    pp_sb_free(&sb);
    CU_ASSERT_EQUAL_FATAL(log.n_runs, 1);
    CU_ASSERT_STRING_EQUAL(log.runs[0].unusable, "no valid row");
    pp_nccl_log_free(&log);
}

/* A number that is one but out of any machine's range refuses the log, with
 * its line and column (issue: a rank of 10^20 overflowed `max_rank + 1`). */
static void refused_at(const char *from, const char *to, const char *where, const char *expected)
{
    char path[1024];
    pp_source_path("tests/data/nccl-tests-readme-sample.log", path, sizeof path);
    char *text = pp_slurp(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    char *at = strstr(text, from);
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    pp_strbuf sb;
    pp_sb_init(&sb);
    pp_sb_appendf(&sb, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    pp_nccl_log log;
    pp_error err;
    pp_error_clear(&err);
    CU_ASSERT_EQUAL(pp_nccl_log_parse(pp_sb_str(&sb), "x.log", 8, &log, &err), PP_EINPUT);
    CU_ASSERT_STRING_EQUAL(err.path, where);
    PP_ASSERT_CONTAINS(err.msg, expected);
    CU_ASSERT_EQUAL(log.n_runs, 0);
    pp_sb_free(&sb);
    free(text);
}

static void test_out_of_range(void)
{
    /* line 11 of the sample: "#  Rank  3 Group ..."; the rank at column 9 */
    refused_at("#  Rank  3 Group  0 Pid  81234 on   dgx-a100",
               "#  Rank 99999999999999999999 Group 0 Pid 40000 on node-000", "x.log:11:9",
               "expected a rank from 0 to 1048575 (a whole number), found '99999999999999999999'");
    refused_at("#  Rank  3 Group", "#  Rank -3 Group", "x.log:11:9", "found '-3'");
    refused_at("#  Rank  3 Group", "#  Rank 2.5 Group", "x.log:11:9", "a whole number");
    /* a size of 2^60 bytes on the first row (line 20), column 1 */
    refused_at("           8             2     float", "1152921504606846976 2     float", "x.log:20:1",
               "expected a message size in bytes from 1 to 17592186044416");
    /* a time of 1e300 us: out of range, where "nan" is only a row cut short */
    refused_at("    22.40    0.00    0.00       0    22.65", "    1e300    0.00    0.00       0    22.65", "x.log:20:57",
               "expected a time in microseconds from 0.001 to 10000000000, found '1e300'");
    refused_at("    22.40    0.00    0.00       0    22.65", "    22.40    1e9    0.00       0    22.65", "x.log:20:66",
               "bandwidth in GB/s");
}

/* A rank line repeated (a log pasted twice into one run): the run is not
 * used, and says why, rather than claim more ranks on a host than exist. */
static void test_repeated_rank(void)
{
    char path[1024];
    pp_source_path("tests/data/nccl-tests-readme-sample.log", path, sizeof path);
    char *text = pp_slurp(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    char *at = strstr(text, "#  Rank  7");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    pp_strbuf sb;
    pp_sb_init(&sb);
    pp_sb_appendf(&sb, "%.*s#  Rank  6 Group  0 Pid  81234 on   dgx-a100 device  6 [0000:b7:00] NVIDIA A100\n%s",
                  (int)(at - text), text, at);
    pp_nccl_log log;
    parse(pp_sb_str(&sb), "twice.log", &log);
    CU_ASSERT_EQUAL_FATAL(log.n_runs, 1);
    PP_ASSERT_CONTAINS(log.runs[0].unusable, "9 rank lines for ranks 0 to 7: a rank is repeated");
    CU_ASSERT(log.runs[0].ranks_per_host <= log.runs[0].ranks);
    pp_nccl_log_free(&log);
    pp_sb_free(&sb);
    free(text);
}

/* The log of a 128-rank all-reduce on 16 hosts whose rank lines are cut to
 * those `keep` admits (a log shortened for a wiki or a ticket). */
static void elided_log(bool (*keep)(long rank), pp_nccl_log *log)
{
    pp_cluster truth = h100_cluster(TRUE_NVLINK, TRUE_NVLINK_US, TRUE_NETWORK, TRUE_NETWORK_US);
    gen g = plain(PP_NCCL_ALLREDUCE, 128, 16, false);
    pp_strbuf sb, cut;
    pp_sb_init(&sb);
    pp_sb_init(&cut);
    generate(&sb, &truth, &g);
    const char *text = pp_sb_str(&sb);
    for (const char *l = text; *l;) {
        size_t n = strcspn(l, "\n");
        long rank;
        if (sscanf(l, "#  Rank %ld", &rank) != 1 || keep(rank))
            pp_sb_appendn(&cut, l, n + (l[n] == '\n'));
        l += n + (l[n] == '\n');
    }
    parse(pp_sb_str(&cut), "elided.log", log);
    pp_sb_free(&sb);
    pp_sb_free(&cut);
}

static bool first_five(long rank)
{
    return rank < 5;
}

static bool first_five_and_last(long rank)
{
    return rank < 5 || rank == 127;
}

/* Elided rank lines: the ranks from busbw/algbw (or the highest rank
 * printed), the hosts from gpus_per_node, never "5 ranks on one host". */
static void test_elided_rank_lines(void)
{
    pp_nccl_log log;
    elided_log(first_five, &log);
    CU_ASSERT_EQUAL_FATAL(log.n_runs, 1);
    const pp_nccl_run *r = &log.runs[0];
    CU_ASSERT_EQUAL(r->op, PP_NCCL_ALLREDUCE);
    CU_ASSERT_STRING_EQUAL(r->op_from, "test name");
    if (r->ranks != 128)
        printf("\n  ranks %ld hosts %ld: %s\n", r->ranks, r->hosts, r->ranks_from);
    CU_ASSERT_EQUAL(r->ranks, 128);
    CU_ASSERT_EQUAL(r->hosts, 16);
    CU_ASSERT_EQUAL(r->ranks_per_host, 8);
    CU_ASSERT_FALSE(r->ranks_from_lines);
    PP_ASSERT_CONTAINS(r->ranks_from, "5 rank lines of 128 ranks: the ranks from busbw/algbw");
    CU_ASSERT_STRING_EQUAL(r->unusable, "");
    pp_nccl_log_free(&log);
    elided_log(first_five_and_last, &log);
    CU_ASSERT_EQUAL_FATAL(log.n_runs, 1);
    r = &log.runs[0];
    CU_ASSERT_EQUAL(r->ranks, 128);
    CU_ASSERT_EQUAL(r->hosts, 16);
    PP_ASSERT_CONTAINS(r->ranks_from, "6 rank lines of 128 ranks: the ranks from the highest rank printed");
    pp_nccl_log_free(&log);
}

/* text as a log posted in a ticket: a launcher line first, the rank lines
 * of ranks from `keep_from` on cut, and each process driving `gpus` GPUs
 * ("nGpus" in the header); parsed into log. */
static void parse_cut(const char *text, const char *launcher, long keep_from, int gpus, pp_nccl_log *log)
{
    pp_strbuf cut;
    pp_sb_init(&cut);
    pp_sb_appendf(&cut, "%s\n", launcher);
    for (const char *l = text; *l;) {
        size_t n = strcspn(l, "\n"), len = n + (l[n] == '\n');
        long rank;
        const char *one = strstr(l, "nGpus 1 ");
        if (one && one < l + n) {
            pp_sb_appendn(&cut, l, (size_t)(one - l));
            pp_sb_appendf(&cut, "nGpus %d ", gpus);
            pp_sb_appendn(&cut, one + 8, len - (size_t)(one + 8 - l));
        } else if (sscanf(l, "#  Rank %ld", &rank) != 1 || rank < keep_from)
            pp_sb_appendn(&cut, l, len);
        l += len;
    }
    parse(pp_sb_str(&cut), "cut.log", log);
    pp_sb_free(&cut);
}

/* The launcher's rank count (mpirun -np, srun --ntasks) where the log cuts
 * the rank lines short; nccl-tests' own -n (iterations) after the test's
 * name is not a rank count. */
static void test_launcher_ranks(void)
{
    static const struct {
        const char *line;
        long ranks;
    } lines[] = {
        {"mpirun --allow-run-as-root -np 128 -x NCCL_DEBUG=INFO ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 1", 128},
        {"mpiexec -n 128 --bind-to none ./all_reduce_perf -n 20", 128},
        {"srun --ntasks=128 --ntasks-per-node=8 ./all_reduce_perf", 128},
        {"mpirun -c 0 --np 128 all_reduce_perf", 128},
        {"./build/all_reduce_perf -b 8 -e 8G -n 5", 0},  /* no launcher: the rank lines stand */
        {"mpirun ./all_reduce_perf -n 128", 0},          /* the test's iterations */
    };
    pp_cluster truth = h100_cluster(TRUE_NVLINK, TRUE_NVLINK_US, TRUE_NETWORK, TRUE_NETWORK_US);
    gen g = plain(PP_NCCL_ALLREDUCE, 128, 16, false);
    pp_strbuf sb;
    pp_sb_init(&sb);
    generate(&sb, &truth, &g);
    const char *text = pp_sb_str(&sb);
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        /* the launcher line, then the log with its rank lines cut after rank 99 and the
         * last host's rank lines only partly shown */
        pp_nccl_log log;
        parse_cut(text, lines[i].line, 100, 1, &log);
        CU_ASSERT_EQUAL_FATAL(log.n_runs, 1);
        const pp_nccl_run *r = &log.runs[0];
        CU_ASSERT_EQUAL(r->op, PP_NCCL_ALLREDUCE);
        if (lines[i].ranks) {
            CU_ASSERT_EQUAL(r->ranks, 128);
            CU_ASSERT_EQUAL(r->hosts, 16);
            CU_ASSERT_EQUAL(r->ranks_per_host, 8);
            PP_ASSERT_CONTAINS(r->ranks_from, "100 rank lines of the 128 ranks its launcher starts (-np)");
        } else {
            /* 100 lines: busbw/algbw tells 128 from 100 (1.9844 against 1.98 with
             * two printed decimals) only as whole nodes of gpus_per_node */
            CU_ASSERT_EQUAL(r->ranks, 128);
            PP_ASSERT_CONTAINS(r->ranks_from, "the ranks from busbw/algbw");
        }
        pp_nccl_log_free(&log);
    }
    /* one process a node driving its 8 GPUs (-g 8, "nGpus 8" in the header): 16 processes, 128 ranks */
    {
        pp_nccl_log log; /* the first node's rank lines only */
        parse_cut(text, "mpirun -np 16 -N 1 ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 8", 8, 8, &log);
        CU_ASSERT_EQUAL_FATAL(log.n_runs, 1);
        CU_ASSERT_EQUAL(log.runs[0].ranks, 128);
        CU_ASSERT_EQUAL(log.runs[0].hosts, 16);
        pp_nccl_log_free(&log);
    }
    pp_sb_free(&sb);
}

/* A published 1,024-rank log (NVIDIA/nccl-tests#322, 2025-06: 128 nodes of
 * 8 H100, NCCL_ALGO=Ring, NCCL_PROTO=LL128, NVLS off; all_reduce_perf -b 1g
 * -e 32g, cut at 16 GiB by a failure), whose ticket keeps the first 100
 * rank lines (tests/data/nccl-tests-h100-128node-ring.log).  Read from its
 * rank lines it was 100 ranks on 13 hosts of 4, and its 367 GB/s of busbw
 * twice what rings over 4 NICs a node can carry; its mpirun -np 1024 and
 * the fullest host shown give 1,024 ranks on 128 hosts of 8. */
static void test_published_h100_128node(void)
{
    pp_nccl_log log;
    char path[1024];
    pp_source_path("tests/data/nccl-tests-h100-128node-ring.log", path, sizeof path);
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(pp_nccl_log_load(path, 8, &log, &err), PP_OK);
    CU_ASSERT_EQUAL_FATAL(log.n_runs, 1);
    const pp_nccl_run *r = &log.runs[0];
    CU_ASSERT_EQUAL(r->op, PP_NCCL_ALLREDUCE);
    CU_ASSERT_STRING_EQUAL(r->op_from, "test name"); /* all_reduce_perf at the end of a 1,000-character line */
    CU_ASSERT_EQUAL(r->ranks, 1024);
    CU_ASSERT_EQUAL(r->hosts, 128);
    CU_ASSERT_EQUAL(r->ranks_per_host, 8);
    CU_ASSERT_EQUAL(r->algos, PP_NCCL_ALGO_RING);
    CU_ASSERT_FALSE(r->complete);
    CU_ASSERT_EQUAL(r->n_rows, 10);
    pp_nccl_log_free(&log);
}

/* A published all-reduce sweep on a real fabric (not nccl-tests: Bekman's
 * all_reduce_bench.py, which reports the same busbw, 2 (n - 1) / n times
 * the payload over the time): AWS P6-B200 nodes, 8 B200 a node on NVLink 5
 * (900 GB/s) and 8 x 400 Gb/s EFA v4, torch 2.9.1, NCCL 2.27.7, one node and
 * four (stas00/ml-engineering @744d01e, network/README.md, "Inter-node
 * speed depends on intra-node speed": busbw in GBps, 10^9 B/s, at payloads
 * of 32 KiB to 16 GiB, 2^10 B).  Its small and middle sizes are far slower
 * than NCCL's latency model (4 nodes: 0.36-0.56 ms from 128 KiB to 2 MiB,
 * 6.3 ms at 32 KiB), so a fit that let every size pull on the bandwidth
 * would trade the largest sizes for them.  The bandwidth must come from the
 * largest sizes: within 10 % there, an efficiency inside the family's bounds
 * and short of the line rate. */
static const double B200_BUSBW_1N[] = {1.20,   2.17,   4.86,   9.54,   18.71,  36.06,  63.09,
                                       76.48,  126.49, 254.96, 325.97, 400.60, 568.38, 646.11,
                                       688.99, 723.34, 734.97, 740.64, 839.07, 845.67};
static const double B200_BUSBW_4N[] = {0.01,   0.04,   0.45,   1.33,   2.84,   5.37,   10.38,
                                       18.90,  35.12,  64.43,  91.19,  156.74, 197.94, 229.09,
                                       326.90, 361.99, 372.42, 377.34, 380.39, 381.80};
#define B200_SIZES ((int)(sizeof B200_BUSBW_1N / sizeof B200_BUSBW_1N[0]))

static void sweep_run(pp_nccl_log *log, const char *system, const double *busbw, long ranks, long hosts)
{
    memset(log, 0, sizeof *log);
    snprintf(log->name, sizeof log->name, "ml-engineering %s %ld node%s", system, hosts, hosts > 1 ? "s" : "");
    log->runs = calloc(1, sizeof *log->runs);
    CU_ASSERT_PTR_NOT_NULL_FATAL(log->runs);
    log->n_runs = log->cap_runs = 1;
    pp_nccl_run *r = &log->runs[0];
    r->index = 1;
    r->op = PP_NCCL_ALLREDUCE;
    r->ranks = ranks;
    r->hosts = hosts;
    r->ranks_per_host = ranks / hosts;
    r->complete = true;
    r->rows = calloc(B200_SIZES, sizeof *r->rows);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->rows);
    r->n_rows = r->cap_rows = B200_SIZES;
    for (int i = 0; i < B200_SIZES; i++) {
        r->rows[i].bytes = 32768.0 * (double)(1L << i);
        r->rows[i].time_us = pp_nccl_bus_factor(PP_NCCL_ALLREDUCE, ranks) * r->rows[i].bytes / (busbw[i] * 1e9) * 1e6;
    }
}

static void b200_run(pp_nccl_log *log, const double *busbw, long ranks, long hosts)
{
    sweep_run(log, "P6-B200", busbw, ranks, hosts);
}

/* On GB200 NVL72 a host is a 4-GPU compute tray and the NVLink domain is
 * the 72-GPU rack: a run over trays of one rack measures NVLink, one over
 * two racks the network between 72-rank domains; on an 8-GPU H100 node a
 * run with 4 ranks on each of two hosts stays a network run of 4 a host. */
static void test_nvl72_domains(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    const pp_gpu *gb200 = pp_catalog_gpu(&cat, "gb200-nvl72"), *h100 = pp_catalog_gpu(&cat, "h100-sxm5-80gb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(gb200);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h100);
    pp_cluster nvl, dgx;
    memset(&nvl, 0, sizeof nvl);
    memset(&dgx, 0, sizeof dgx);
    pp_cluster_from_gpu(gb200, &nvl);
    pp_cluster_from_gpu(h100, &dgx);
    CU_ASSERT_FATAL(nvl.gpus_per_node == 72 && nvl.gpus_per_host == 4);
    pp_nccl_log one_rack, two_racks;
    b200_run(&one_rack, B200_BUSBW_1N, 8, 2);   /* two trays */
    b200_run(&two_racks, B200_BUSBW_4N, 144, 36); /* 36 trays, two racks */
    long k;
    CU_ASSERT_EQUAL(pp_nccl_run_domains(&nvl, &one_rack.runs[0], &k), 1);
    CU_ASSERT_EQUAL(pp_nccl_run_link(&nvl, &one_rack.runs[0]), PP_LINK_NVLINK);
    CU_ASSERT_EQUAL(pp_nccl_run_domains(&nvl, &two_racks.runs[0], &k), 2);
    CU_ASSERT_EQUAL(k, 72);
    CU_ASSERT_EQUAL(pp_nccl_run_link(&nvl, &two_racks.runs[0]), PP_LINK_NETWORK);
    double t = pp_nccl_model_time_us(&nvl, &two_racks.runs[0], 1 << 30);
    nvl.nccl_nvls = true; /* across domains a log is read as NCCL's defaults run it, NVLS-Tree included */
    PP_REL_EQ(t, pp_collective_time_s(&nvl, PP_COLL_ALLREDUCE, 1 << 30, 144, 72) * 1e6, 1e-12);
    nvl.nccl_nvls = false;
    CU_ASSERT_EQUAL(pp_nccl_run_link(&dgx, &one_rack.runs[0]), PP_LINK_NETWORK); /* 8 ranks, 4 on each of 2 hosts */
    CU_ASSERT_EQUAL(pp_nccl_run_domains(&dgx, &one_rack.runs[0], &k), 2);
    CU_ASSERT_EQUAL(k, 4);
    pp_nccl_log_free(&one_rack);
    pp_nccl_log_free(&two_racks);
    pp_catalog_free(&cat);
}

/* Published GB200 NVL72 logs at NCCL's defaults (NCCL 2.26.2,
 * coreweave/nccl-tests @cb86553, README.md, "Expected Performance").  One
 * rack's (72 GPUs, "Single Rack"), read as rings as every one-node log is,
 * holds NVLink above its bounds, and the report says that NVLS ran and how
 * to measure a ring; priced as NVLS its 4 and 8 GiB are within 2 %.  The
 * two-rack log (144 GPUs, "Expected
 * Performance", GB200 "2 Racks"; tests/data/nccl-tests-coreweave-gb200-2rack.log):
 * 16 GiB at 408-413 GB/s of algorithm bandwidth.  Each rack's 72 GPUs send
 * 1/72 of the buffer through their NICs, so NVLS-Tree's reduction in the
 * rack's NVSwitch sets the time, at the rate one rack's log measures
 * (gpus.json nvls_allreduce_fraction 0.474): priced with the catalog's
 * parameters, no fit, 8 and 16 GiB within 3-6 % (4 GiB 12 %: the switch
 * ramps up more slowly than one latency explains, as in one rack's log),
 * and the report names the switch, not the network, as what binds.  Its
 * twenty-rack log (same README; tests/data/nccl-tests-coreweave-gb200-20rack.log)
 * is read as 20 domains of 72, and priced 2x fast: docs/cost-model.md,
 * Known limits. */
static void test_published_gb200_racks(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    const pp_gpu *gb200 = pp_catalog_gpu(&cat, "gb200-nvl72");
    CU_ASSERT_PTR_NOT_NULL_FATAL(gb200);
    char path[1024];
    /* one rack, NVLS at NCCL's defaults (tests/data/nccl-tests-coreweave-gb200-1rack.log,
     * the README's "Single Rack"): read as rings, as every one-node log, it
     * holds NVLink above its bounds, and the report says why and what to run */
    {
        pp_source_path("tests/data/nccl-tests-coreweave-gb200-1rack.log", path, sizeof path);
        pp_nccl_log one;
        pp_error e;
        CU_ASSERT_EQUAL_FATAL(pp_nccl_log_load(path, 72, &one, &e), PP_OK);
        CU_ASSERT_EQUAL_FATAL(one.n_runs, 1);
        CU_ASSERT_EQUAL(one.runs[0].ranks, 72);
        pp_link_calibration rack;
        memset(&rack, 0, sizeof rack);
        pp_cluster_from_gpu(gb200, &rack.cluster);
        pp_link_calibration_bounds(&cat, &rack);
        CU_ASSERT_EQUAL(pp_calibrate_links(&one, 1, &rack), 1);
        CU_ASSERT(rack.link[PP_LINK_NVLINK].efficiency > rack.hi[PP_LINK_NVLINK][0]);
        pp_strbuf t;
        pp_sb_init(&t);
        pp_report_links_text(&one, 1, &rack, &t);
        PP_ASSERT_CONTAINS(pp_sb_str(&t), "runs NVLink SHARP");
        PP_ASSERT_CONTAINS(pp_sb_str(&t), "NCCL_NVLS_ENABLE=0");
        pp_sb_free(&t);
        /* the same sizes priced as NVLS with the catalog's parameters (the
         * ring fitted above would run faster): its 4 and 8 GiB within 2 % */
        pp_cluster nvls;
        memset(&nvls, 0, sizeof nvls);
        pp_cluster_from_gpu(gb200, &nvls);
        nvls.nccl_nvls = true;
        for (int i = 0; i < one.runs[0].n_rows; i++)
            if (one.runs[0].rows[i].bytes >= 4294967296.0)
                CU_ASSERT(fabs(pp_collective_time_s(&nvls, PP_COLL_ALLREDUCE, one.runs[0].rows[i].bytes, 72, 72) * 1e6 /
                                   one.runs[0].rows[i].time_us -
                               1.0) < 0.02);
        pp_nccl_log_free(&one);
    }
    pp_source_path("tests/data/nccl-tests-coreweave-gb200-2rack.log", path, sizeof path);
    pp_nccl_log log;
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(pp_nccl_log_load(path, 72, &log, &err), PP_OK);
    CU_ASSERT_EQUAL_FATAL(log.n_runs, 1);
    const pp_nccl_run *r = &log.runs[0];
    CU_ASSERT_EQUAL(r->ranks, 144);
    pp_link_calibration cal;
    memset(&cal, 0, sizeof cal);
    pp_cluster_from_gpu(gb200, &cal.cluster);
    long k;
    CU_ASSERT_EQUAL(pp_nccl_run_domains(&cal.cluster, r, &k), 2);
    CU_ASSERT_EQUAL(k, 72);
    for (int i = 0; i < r->n_rows; i++) {
        if (r->rows[i].bytes < 8589934592.0)
            continue;
        double e = pp_nccl_model_time_us(&cal.cluster, r, r->rows[i].bytes) / r->rows[i].time_us - 1.0;
        printf("\n  GB200, 2 racks, %.0f B: %+.1f %%", r->rows[i].bytes, e * 100.0);
        CU_ASSERT(fabs(e) < 0.10);
    }
    double last = r->rows[r->n_rows - 1].bytes;
    CU_ASSERT(fabs(pp_nccl_model_time_us(&cal.cluster, r, last) / r->rows[r->n_rows - 1].time_us - 1.0) < 0.05);
    pp_strbuf txt;
    pp_sb_init(&txt);
    pp_report_links_text(&log, 1, &cal, &txt);
    PP_ASSERT_CONTAINS(pp_sb_str(&txt), "the model's time is NVLS-Tree's reduction in the NVSwitch");
    pp_sb_free(&txt);
    pp_nccl_log_free(&log);
    /* its twenty-rack log (same README, "20 Racks"), one rank line shown: 1,440
     * ranks in 20 NVLink domains of 72, the network between them, not one host */
    pp_source_path("tests/data/nccl-tests-coreweave-gb200-20rack.log", path, sizeof path);
    CU_ASSERT_EQUAL_FATAL(pp_nccl_log_load(path, 72, &log, &err), PP_OK);
    CU_ASSERT_EQUAL_FATAL(log.n_runs, 1);
    r = &log.runs[0];
    CU_ASSERT_EQUAL(r->op, PP_NCCL_ALLREDUCE);
    CU_ASSERT_EQUAL(r->ranks, 1440);
    CU_ASSERT_EQUAL(pp_nccl_run_domains(&cal.cluster, r, &k), 20);
    CU_ASSERT_EQUAL(k, 72);
    CU_ASSERT_EQUAL(pp_nccl_run_link(&cal.cluster, r), PP_LINK_NETWORK);
    pp_nccl_log_free(&log);
    pp_catalog_free(&cat);
}

/* The calibration of a published run's nodes: 8 GPUs of `gpu` a node, its
 * NVLink and NIC line rates, every NIC on its own switch, the family's
 * bounds. */
static void published_node(const pp_catalog *cat, const pp_gpu *gpu, double nvlink_GBps, double network_Gbps,
                           pp_link_calibration *cal)
{
    memset(cal, 0, sizeof *cal);
    pp_cluster_from_gpu(gpu, &cal->cluster);
    cal->cluster.intra_node_GBps = nvlink_GBps;
    cal->cluster.inter_node_Gbps = network_Gbps;
    cal->cluster.gpus_per_node = 8;
    cal->cluster.gpus_per_nic_switch = 0;
    pp_link_calibration_bounds(cat, cal);
}

/* A published log of one all-reduce run loaded, the catalog loaded, and the
 * calibration set up for its nodes (published_node), its links fitted; the
 * run's fit count into *fitted. */
static const pp_nccl_run *fit_published(const char *name, long ranks, long hosts, const char *gpu_id,
                                        double nvlink_GBps, double network_Gbps, pp_nccl_log *log, pp_catalog *cat,
                                        pp_link_calibration *cal, int *fitted)
{
    const pp_nccl_run *r = load_allreduce(name, ranks, hosts, log);
    pp_load_catalog(cat);
    const pp_gpu *gpu = pp_catalog_gpu(cat, gpu_id);
    CU_ASSERT_PTR_NOT_NULL_FATAL(gpu);
    published_node(cat, gpu, nvlink_GBps, network_Gbps, cal);
    *fitted = pp_calibrate_links(log, 1, cal);
    return r;
}

static void test_published_b200(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    const pp_gpu *b200 = pp_catalog_gpu(&cat, "b200-sxm-180gb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(b200);
    pp_nccl_log logs[2];
    b200_run(&logs[0], B200_BUSBW_1N, 8, 1);
    b200_run(&logs[1], B200_BUSBW_4N, 32, 4);
    pp_link_calibration cal;
    published_node(&cat, b200, 900, 400, &cal);
    CU_ASSERT_EQUAL(pp_calibrate_links(logs, 2, &cal), 2);
    for (int x = 0; x < PP_LINK_COUNT; x++) {
        const pp_link_fit *f = &cal.link[x];
        const pp_nccl_run *r = &logs[x].runs[0];
        double last = r->rows[r->n_rows - 1].time_us;
        double err = pp_nccl_model_time_us(&cal.cluster, r, r->rows[r->n_rows - 1].bytes) / last - 1.0;
        printf("\n  %s: efficiency %.3f (bounds %.2f-%.2f), latency %.3g us, from %d bandwidth-bound timings; "
               "16 GiB %+.1f %%",
               pp_link_class_name((pp_link_class)x), f->efficiency, cal.lo[x][0], cal.hi[x][0], f->latency_us,
               f->bw_rows, err * 100.0);
        CU_ASSERT(f->fitted);
        CU_ASSERT(f->bw_rows >= 3);
        CU_ASSERT(fabs(err) <= 0.10);
        CU_ASSERT(cal.hi[x][0] > 0.0 && f->efficiency >= cal.lo[x][0] && f->efficiency <= cal.hi[x][0]);
        CU_ASSERT_FALSE(f->at_line_rate);
    }
    pp_nccl_log_free(&logs[0]);
    pp_nccl_log_free(&logs[1]);
    pp_catalog_free(&cat);
}

/* The same section's nccl-tests sweep on one 8 x A100 node (ml-engineering
 * @744d01e, network/README.md, "Real network throughput": all_reduce_perf
 * -b 32k -e 16G -f 2 -g 8, busbw in GB/s at 32 KiB to 16 GiB), NVLink 3 at
 * 300 GB/s: 235 GB/s at 16 GiB, 0.78 of the line rate, which the A100's
 * bounds (0.75-0.85, no NVLink SHARP) hold.  Its middle sizes climb slowly
 * (106 GB/s at 16 MiB, 177 at 128 MiB), what the A100's large fitted step
 * latency stands for in the training rows (docs/calibration.md); the fit
 * takes its bandwidth from the largest sizes and holds 16 GiB within 10 %. */
static const double A100_BUSBW_1N[] = {1.31,   2.45,   4.43,   7.47,   11.41,  18.00,  36.18,
                                       72.33,  109.93, 106.16, 138.49, 171.54, 176.92, 194.07,
                                       222.72, 229.04, 231.41, 233.88, 234.61, 234.89};

static void test_published_a100(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    const pp_gpu *a100 = pp_catalog_gpu(&cat, "a100-sxm4-80gb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a100);
    CU_ASSERT_EQUAL_FATAL((int)(sizeof A100_BUSBW_1N / sizeof A100_BUSBW_1N[0]), B200_SIZES);
    pp_nccl_log log;
    sweep_run(&log, "DGX A100", A100_BUSBW_1N, 8, 1);
    pp_link_calibration cal;
    memset(&cal, 0, sizeof cal);
    pp_cluster_from_gpu(a100, &cal.cluster);
    cal.cluster.gpus_per_node = 8;
    pp_link_calibration_bounds(&cat, &cal);
    CU_ASSERT_EQUAL(pp_calibrate_links(&log, 1, &cal), 1);
    const pp_link_fit *f = &cal.link[PP_LINK_NVLINK];
    const pp_nccl_run *r = &log.runs[0];
    double last = r->rows[r->n_rows - 1].time_us;
    double err = pp_nccl_model_time_us(&cal.cluster, r, r->rows[r->n_rows - 1].bytes) / last - 1.0;
    printf("\n  A100 NVLink: efficiency %.3f (bounds %.2f-%.2f), latency %.3g us, 16 GiB %+.1f %%", f->efficiency,
           cal.lo[PP_LINK_NVLINK][0], cal.hi[PP_LINK_NVLINK][0], f->latency_us, err * 100.0);
    CU_ASSERT(f->fitted);
    CU_ASSERT(fabs(err) <= 0.10);
    CU_ASSERT(f->efficiency >= cal.lo[PP_LINK_NVLINK][0] && f->efficiency <= cal.hi[PP_LINK_NVLINK][0]);
    CU_ASSERT(fabs(f->efficiency - 234.89 / 300.0) <= 0.03); /* the plateau, not the middle sizes */
    CU_ASSERT_FALSE(f->at_line_rate);
    CU_ASSERT_FALSE(cal.link[PP_LINK_NETWORK].fitted); /* one node: nothing of the network */
    pp_nccl_log_free(&log);
    pp_catalog_free(&cat);
}

/* A published two-node log: all_reduce_perf -b 8 -e 8G -f 2 -g 1 over 16
 * H100 on two Google Cloud A3 Mega VMs (eight 200 Gb/s GPU NICs a node,
 * GPUDirect-TCPXO), committed as run (lessizzmore/create-a3mega-ztan-fork
 * @5f9e1ddc, ztan-NCCL-test-result; tests/data/nccl-tests-gcp-a3mega-2node.log
 * is its log part).  Its 8 GiB reaches 338.8 GB/s of bus bandwidth, 180.7 of
 * algorithm bandwidth: more than a ring over 200 GB/s of NICs a node can
 * report (busbw <= 200 at line rate), so NCCL ran the tree or, at its
 * defaults on NVSwitch 3, NVLS-Tree, each of which puts each byte through a
 * NIC once on two nodes.  Read as NCCL's defaults run it (NVLS-Tree, the
 * faster for the same NICs), the NICs run at 0.90-0.92 of their line rate,
 * inside the H100's bounds, and they set the 8 GiB; read with NVLS off
 * (NCCL_NVLS_ENABLE=0), the tree, its 8 GiB at its channels' cap.
 * Discounted by the 0.92 of NCCL's tuning model as well (as until the
 * thirty-fifth landing), the tree's fit had to sit at the line rate (0.998).
 * Its small sizes take 123 us (TCP, not InfiniBand): the latency is outside
 * the InfiniBand bounds, and the report says so. */
static void test_published_a3mega(void)
{
    pp_nccl_log log;
    pp_catalog cat;
    pp_link_calibration cal;
    int fitted;
    const pp_nccl_run *r =
        fit_published("nccl-tests-gcp-a3mega-2node.log", 16, 2, "h100-sxm5-80gb", 450, 200, &log, &cat, &cal, &fitted);
    CU_ASSERT_EQUAL(fitted, 1);
    const pp_link_fit *f = &cal.link[PP_LINK_NETWORK];
    double last = r->rows[r->n_rows - 1].time_us, bytes = r->rows[r->n_rows - 1].bytes;
    double err8 = pp_nccl_model_time_us(&cal.cluster, r, bytes) / last - 1.0;
    printf("\n  A3 Mega, 2 nodes: network %.3f (bounds %.2f-%.2f), latency %.3g us, 8 GiB %+.1f %%", f->efficiency,
           cal.lo[PP_LINK_NETWORK][0], cal.hi[PP_LINK_NETWORK][0], f->latency_us, err8 * 100.0);
    CU_ASSERT(f->fitted);
    CU_ASSERT(fabs(err8) <= 0.10);
    CU_ASSERT(f->efficiency >= cal.lo[PP_LINK_NETWORK][0] && f->efficiency <= cal.hi[PP_LINK_NETWORK][0]);
    CU_ASSERT(f->efficiency > 0.85); /* 180.7 GB/s of algbw over 200 GB/s of NICs */
    CU_ASSERT_FALSE(f->at_line_rate);
    CU_ASSERT(f->latency_us > cal.hi[PP_LINK_NETWORK][1]); /* TCPXO: ~123 us at 8 B */
    /* the priced all-reduce beats any ring at the NICs' line rate */
    double ring_floor_us = 2.0 * 15 / 16 * bytes / 8 / 25e9 * 1e6;
    CU_ASSERT(pp_nccl_model_time_us(&cal.cluster, r, bytes) < ring_floor_us);
    CU_ASSERT(last < ring_floor_us);
    /* its 8 GiB is NVLS-Tree's NICs: no note of another bound */
    pp_strbuf txt;
    pp_sb_init(&txt);
    pp_report_links_text(&log, 1, &cal, &txt);
    CU_ASSERT_PTR_NULL(strstr(pp_sb_str(&txt), "the model's time is"));
    pp_sb_free(&txt);
    /* with NVLS off, the tree at its channels' cap, which the report says */
    double t_on = pp_nccl_model_time_us(&cal.cluster, r, bytes);
    log.runs[0].nvls_off = true;
    pp_link_calibration off;
    published_node(&cat, pp_catalog_gpu(&cat, "h100-sxm5-80gb"), 450, 200, &off);
    CU_ASSERT_EQUAL(pp_calibrate_links(&log, 1, &off), 1);
    CU_ASSERT(fabs(off.link[PP_LINK_NETWORK].efficiency - f->efficiency) < 0.02);
    CU_ASSERT(pp_nccl_model_time_us(&off.cluster, r, bytes) > 1.05 * t_on);
    pp_sb_init(&txt);
    pp_report_links_text(&log, 1, &off, &txt);
    PP_ASSERT_CONTAINS(pp_sb_str(&txt), "at 8589934592 B the model's time is the tree's channels' (NCCL's tuning cap, "
                                        "41.4 GB/s a channel), not the network's rate");
    pp_sb_free(&txt);
    pp_nccl_log_free(&log);
    pp_catalog_free(&cat);
}

/* A published two-node A100 log: all_reduce_perf -b 1G -e 4G over 16
 * A100-SXM4-40GB on two OCI BM.GPU4.8 nodes (8 x 200 Gb/s RDMA a node),
 * NCCL 2.25.1 (oracle-quickstart/oci-hpc-oke @72d816ea, README.md;
 * tests/data/nccl-tests-oci-a100-2node.log): 186.8-190.1 GB/s of busbw.
 * NCCL's tree on two nodes is capped by its channels (8 x 23.6 = 189 GB/s,
 * gpus.json nccl_tree_channel_GBps), so the ring is the faster and its
 * NICs run at 0.96 of their line rate; without the cap the model read the
 * log as a tree over NICs at 0.51, below the A100's bounds. */
static void test_published_oci_a100(void)
{
    pp_nccl_log log;
    pp_catalog cat;
    pp_link_calibration cal;
    int fitted;
    const pp_nccl_run *r =
        fit_published("nccl-tests-oci-a100-2node.log", 16, 2, "a100-sxm4-40gb", 300, 200, &log, &cat, &cal, &fitted);
    CU_ASSERT_EQUAL(fitted, 1);
    CU_ASSERT_DOUBLE_EQUAL(pp_catalog_gpu(&cat, "a100-sxm4-40gb")->nccl_tree_channel_GBps[0], 23.6, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(pp_catalog_gpu(&cat, "h100-sxm5-80gb")->nccl_tree_channel_GBps[1], 36.0, 1e-12);
    const pp_link_fit *f = &cal.link[PP_LINK_NETWORK];
    double worst = 0.0;
    for (int i = 0; i < r->n_rows; i++)
        worst = fmax(worst, fabs(pp_nccl_model_time_us(&cal.cluster, r, r->rows[i].bytes) / r->rows[i].time_us - 1.0));
    printf("\n  OCI A100, 2 nodes: network %.3f (bounds %.2f-%.2f), worst %.1f %%", f->efficiency,
           cal.lo[PP_LINK_NETWORK][0], cal.hi[PP_LINK_NETWORK][0], worst * 100.0);
    CU_ASSERT(f->fitted);
    CU_ASSERT(f->efficiency >= cal.lo[PP_LINK_NETWORK][0] && f->efficiency <= cal.hi[PP_LINK_NETWORK][0]);
    CU_ASSERT(f->efficiency > 0.9);
    CU_ASSERT_FALSE(f->at_line_rate);
    CU_ASSERT(worst < 0.02);
    /* the tree at its channels' cap would take longer than measured: the ring ran */
    double cap_us = 2.0 * r->rows[r->n_rows - 1].bytes / (8 * 23.6e9) * 1e6;
    CU_ASSERT(r->rows[r->n_rows - 1].time_us < cap_us);
    pp_strbuf txt; /* the ring's network sets its largest size: no note */
    pp_sb_init(&txt);
    pp_report_links_text(&log, 1, &cal, &txt);
    CU_ASSERT_PTR_NULL(strstr(pp_sb_str(&txt), "the model's time is the tree's"));
    pp_sb_free(&txt);
    pp_nccl_log_free(&log);
    pp_catalog_free(&cat);
}

/* The command: logs in, an efficiency file out that --efficiency reads,
 * with the other parameters of data/efficiency.json kept; exit 2 when
 * nothing is valid. */
static void test_cli(void)
{
    pp_cluster truth = h100_cluster(TRUE_NVLINK, TRUE_NVLINK_US, TRUE_NETWORK, TRUE_NETWORK_US);
    gen g1 = plain(PP_NCCL_ALLREDUCE, 8, 1, false), g2 = plain(PP_NCCL_ALLREDUCE, 32, 4, false);
    g2.mpi_prefix = true;
    char p1[512], p2[512], out[512], dead[512];
    pp_strbuf sb;
    pp_sb_init(&sb);
    generate(&sb, &truth, &g1);
    pp_write_temp("ar1.log", pp_sb_str(&sb), p1, sizeof p1);
    pp_sb_free(&sb);
    pp_sb_init(&sb);
    generate(&sb, &truth, &g2);
    pp_write_temp("ar4.log", pp_sb_str(&sb), p2, sizeof p2);
    pp_sb_free(&sb);
    pp_write_temp("my-eff.json", "", out, sizeof out);
    remove(out);
    const char *args[] = {"calibrate", "--nccl-tests", p1, p2, "--gpu", "h100-sxm5-80gb", "-o", out, NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL_FATAL(pp_run(args, NULL, &r), 0);
    CU_ASSERT_EQUAL(r.exit_code, 0);
    PP_ASSERT_CONTAINS(r.err, "worst error");
    const char *nv = strstr(r.err, "NVLink: efficiency ");
    double nv_eff = 0.0;
    CU_ASSERT(nv && sscanf(nv, "NVLink: efficiency %lf", &nv_eff) == 1 && fabs(nv_eff - TRUE_NVLINK) <= 0.04);
    pp_run_free(&r);
    FILE *f = fopen(out, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char text[4096] = "";
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    PP_ASSERT_CONTAINS(text, "\"h100-sxm5-80gb\"");
    /* the catalog's (data/efficiency.json) GEMM efficiency is kept */
    pp_catalog cat;
    pp_load_catalog(&cat);
    const pp_gpu *h100 = pp_catalog_gpu(&cat, "h100-sxm5-80gb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(h100);
    char gemm[64];
    snprintf(gemm, sizeof gemm, "\"gemm\":\t%.4g", h100->eff.gemm);
    PP_ASSERT_CONTAINS(text, gemm);
    pp_catalog_free(&cat);
    char problem[512], plan[512];
    pp_source_path("data/examples/gpt3-175b-1024-a100.json", problem, sizeof problem);
    pp_source_path("data/examples/gpt3-175b-1024-a100.plan.json", plan, sizeof plan);
    const char *eval[] = {"eval", problem, "--plan", plan, "--efficiency", out, NULL};
    CU_ASSERT_EQUAL_FATAL(pp_run(eval, NULL, &r), 0);
    CU_ASSERT_EQUAL(r.exit_code, 0);
    pp_run_free(&r);

    pp_write_temp("dead.log", "# nThread 1 nGpus 8\nsegfault\n", dead, sizeof dead);
    const char *bad[] = {"calibrate", "--nccl-tests", dead, "--gpu", "h100-sxm5-80gb", NULL};
    pp_run_expect(bad, 2, "nothing valid to fit");
    pp_run_expect(bad, 2, "no table");
    const char *no_gpu[] = {"calibrate", "--nccl-tests", p1, NULL};
    pp_run_expect(no_gpu, 2, "--gpu ID or --problem");

    /* a rank out of range: exit 2, the line named, nothing written */
    char huge[512];
    pp_write_temp("huge-rank.log", "# nThread 1 nGpus 1\n#\n#  Rank 99999999999999999999 Group 0 Pid 40000 on node-000 "
                                   "device 0 [0x07] NVIDIA A100\n", huge, sizeof huge);
    const char *refused[] = {"calibrate", "--nccl-tests", huge, "--gpu", "h100-sxm5-80gb", "-o", out, NULL};
    pp_run_refused(refused, "huge-rank.log:3:9: expected a rank from 0 to 1048575", out);
}

int main(void)
{
    static const pp_test tests[] = {
        {"v2.13 format: NVLink and network recovered", test_new_format},
        {"v2.13 format with NCCL INFO noise and MPI prefixes", test_new_format_noise_mpi},
        {"v2.10 format (no Group, error column, no root)", test_old_format},
        {"v2.10 format with noise and MPI prefixes", test_old_format_noise_mpi},
        {"no rank lines: ranks from busbw/algbw", test_no_rank_lines},
        {"wrong rows, a run failing mid-table, several runs a file", test_skips_and_runs},
        {"runs across nodes only, NVLink's kept latency too large for them: both fitted as one",
         test_latency_from_network},
        {"NCCL_ALGO as the log sets it: those algorithms priced", test_nccl_algo},
        {"the nccl-tests README example parses", test_readme_sample},
        {"nothing valid", test_nothing_valid},
        {"a number out of range refuses the log at its line and column", test_out_of_range},
        {"a repeated rank line makes its run unusable", test_repeated_rank},
        {"elided rank lines: ranks from busbw/algbw, hosts from gpus_per_node", test_elided_rank_lines},
        {"the launcher's rank count where rank lines are cut (mpirun -np, srun --ntasks)", test_launcher_ranks},
        {"a published 1,024-rank log with 100 rank lines: 128 hosts of 8", test_published_h100_128node},
        {"a published B200 sweep (1 and 4 nodes): the largest sizes within 10 %, inside the bounds",
         test_published_b200},
        {"a published 8 x A100 nccl-tests sweep: NVLink at its plateau, inside the A100's bounds",
         test_published_a100},
        {"a published two-node H100 log (tree): the network inside its bounds, not at line rate",
         test_published_a3mega},
        {"a published two-node A100 log: the tree capped by its channels, the ring's NICs inside the bounds",
         test_published_oci_a100},
        {"GB200 NVL72: trays of one rack are NVLink, two racks the network between domains", test_nvl72_domains},
        {"published GB200 logs: one rack's NVLS said, two racks' NVLS-Tree switch sets the largest sizes",
         test_published_gb200_racks},
        {"calibrate --nccl-tests writes an efficiency file", test_cli},
        {NULL, NULL},
    };
    return pp_test_main("nccl-tests calibration", tests);
}
