/*
 * report_links.c: the fit report of `parplan calibrate --nccl-tests`
 * (see report_links.h).
 */
#include "report_links.h"

#include <math.h>
#include <stdio.h>

/* The mean measured time of the rows of one size starting at row i (the
 * out-of-place and in-place halves); *next is the first row of the next size. */
static double size_mean_us(const pp_nccl_run *r, int i, int *next)
{
    double sum = 0.0;
    int j = i;
    while (j < r->n_rows && r->rows[j].bytes == r->rows[i].bytes)
        sum += r->rows[j++].time_us;
    *next = j;
    return sum / (j - i);
}

double pp_nccl_run_worst_error(const pp_cluster *c, const pp_nccl_run *r, double *at_bytes)
{
    double worst = 0.0;
    *at_bytes = 0.0;
    if (!pp_nccl_run_fitted(r))
        return 0.0;
    for (int i = 0, next; i < r->n_rows; i = next) {
        double measured = size_mean_us(r, i, &next);
        double e = pp_nccl_model_time_us(c, r, r->rows[i].bytes) / measured - 1.0;
        if (fabs(e) > fabs(worst)) {
            worst = e;
            *at_bytes = r->rows[i].bytes;
        }
    }
    return worst;
}

static void run_heading(const pp_cluster *c, const pp_nccl_log *log, const pp_nccl_run *r, pp_strbuf *out)
{
    pp_sb_appendf(out, "%s, run %d (line %d): %s (from the %s)", log->name, r->index, r->line,
                  pp_nccl_op_name(r->op), r->op_from[0] ? r->op_from : "nothing");
    if (r->ranks >= 2) {
        pp_sb_appendf(out, ", %ld ranks on %ld host%s (%ld a host; %s)", r->ranks, r->hosts,
                      r->hosts == 1 ? "" : "s", r->ranks_per_host, r->ranks_from);
        long k, domains = pp_nccl_run_domains(c, r, &k);
        if (k != r->ranks_per_host)
            pp_sb_appendf(out, ", in %ld NVLink domain%s of %ld ranks (gpus_per_node %d over gpus_per_host %d)",
                          domains, domains == 1 ? "" : "s", k, c->gpus_per_node, c->gpus_per_host);
        pp_sb_appendf(out, ", so %s", pp_link_class_name(pp_nccl_run_link(c, r)));
    }
    if (r->device[0])
        pp_sb_appendf(out, "; %s", r->device);
    if (r->algo_said[0] && r->op == PP_NCCL_ALLREDUCE)
        pp_sb_appendf(out, "; NCCL_ALGO=%s, so %s", r->algo_said,
                      r->algos == PP_NCCL_ALGO_RING   ? "priced as rings"
                      : r->algos == PP_NCCL_ALGO_TREE ? "priced as trees"
                                                      : "priced as the faster of ring and tree");
    pp_sb_append(out, "\n");
}

static void run_skips(const pp_nccl_run *r, pp_strbuf *out)
{
    if (r->skipped_wrong)
        pp_sb_appendf(out, "  skipped %d timings with wrong values (#wrong > 0, or an error beyond nccl-tests' "
                           "tolerance)\n", r->skipped_wrong);
    if (r->skipped_incomplete)
        pp_sb_appendf(out, "  skipped %d rows cut short or malformed (the run failing mid-table?)\n",
                      r->skipped_incomplete);
    if (!r->complete && !r->unusable[0])
        pp_sb_append(out, "  the run ended without its summary line: it may have failed; its complete rows are used\n");
    if (r->unusable[0])
        pp_sb_appendf(out, "  not used: %s\n", r->unusable);
    else if (!pp_nccl_run_fitted(r))
        pp_sb_append(out, "  not used: the cost model prices no all-to-all\n");
}

/* Whether the model's time of the run's size `bytes` moves when `scale`
 * speeds one term of the cluster up by 10 %. */
static bool moves(const pp_cluster *c, const pp_nccl_run *r, double bytes, void (*scale)(pp_cluster *))
{
    pp_cluster faster = *c;
    scale(&faster);
    double t0 = pp_nccl_model_time_us(c, r, bytes), t1 = pp_nccl_model_time_us(&faster, r, bytes);
    return fabs(t1 - t0) > 1e-9 * t0;
}

static void faster_network(pp_cluster *c)
{
    c->gpu.eff.network *= 1.1;
}

static void faster_tree_channels(pp_cluster *c)
{
    c->gpu.nccl_tree_channel_GBps[0] *= 1.1;
    c->gpu.nccl_tree_channel_GBps[1] *= 1.1;
}

static void faster_nvlink(pp_cluster *c)
{
    c->gpu.eff.nvlink *= 1.1;
}

static void faster_nvls_tree_channels(pp_cluster *c)
{
    c->gpu.nccl_nvls_tree_channel_GBps[0] *= 1.1;
    c->gpu.nccl_nvls_tree_channel_GBps[1] *= 1.1;
}

static void faster_nvls(pp_cluster *c)
{
    c->gpu.nvls_allreduce_fraction *= 1.1;
}

/* Across nodes, what sets the model's time at the run's largest size when
 * the network's rate does not: the tree's channels (NCCL's tuning cap),
 * NVLS-Tree's channels or its reduction in the NVSwitch, or the tree's chain
 * over NVLink.  Said so that a fitted network is not read as what the
 * largest sizes measured. */
static void largest_size_binds(const pp_cluster *c, const pp_nccl_run *r, pp_strbuf *out)
{
    if (r->n_rows == 0 || pp_nccl_run_link(c, r) != PP_LINK_NETWORK)
        return;
    double largest = 0.0;
    for (int i = 0; i < r->n_rows; i++)
        largest = fmax(largest, r->rows[i].bytes);
    if (moves(c, r, largest, faster_network))
        return;
    long k, domains = pp_nccl_run_domains(c, r, &k);
    if (moves(c, r, largest, faster_tree_channels))
        pp_sb_appendf(out, "  at %.0f B the model's time is the tree's channels' (NCCL's tuning cap, %.3g GB/s a "
                           "channel), not the network's rate\n",
                      largest, c->gpu.nccl_tree_channel_GBps[domains <= 2 ? 0 : 1]);
    else if (moves(c, r, largest, faster_nvls_tree_channels))
        pp_sb_appendf(out, "  at %.0f B the model's time is NVLS-Tree's channels' (NCCL's tuning cap, %.3g GB/s a "
                           "channel), not the network's rate\n",
                      largest, c->gpu.nccl_nvls_tree_channel_GBps[domains <= 2 ? 0 : 1]);
    else if (moves(c, r, largest, faster_nvls))
        pp_sb_appendf(out, "  at %.0f B the model's time is NVLS-Tree's reduction in the NVSwitch (%.3g of the NVLink "
                           "line rate), not the network's rate\n",
                      largest, c->gpu.nvls_allreduce_fraction);
    else if (moves(c, r, largest, faster_nvlink))
        pp_sb_appendf(out, "  at %.0f B the model's time is the tree's chain over NVLink, not the network's rate\n",
                      largest);
}

static void run_table(const pp_cluster *c, const pp_nccl_run *r, pp_strbuf *out)
{
    pp_sb_append(out, "        size (B)   measured (us)   fitted (us)    error\n");
    for (int i = 0, next; i < r->n_rows; i = next) {
        double measured = size_mean_us(r, i, &next);
        double fitted = pp_nccl_model_time_us(c, r, r->rows[i].bytes);
        pp_sb_appendf(out, "  %14.0f %15.2f %13.2f %+7.1f %%\n", r->rows[i].bytes, measured, fitted,
                      (fitted / measured - 1.0) * 100.0);
    }
    double at, worst = pp_nccl_run_worst_error(c, r, &at);
    pp_sb_appendf(out, "  worst error %+.1f %% at %.0f B\n", worst * 100.0, at);
    largest_size_binds(c, r, out);
}

/* Where a fitted value sits against its family's bounds: "" inside. */
static void bound_note(const char *what, double v, double lo, double hi, const char *unit, pp_strbuf *out)
{
    /* within 1 % of a bound is at it, as the printed digits show it */
    if (hi <= 0.0 || (v >= lo * 0.99 && v <= hi * 1.01))
        return;
    pp_sb_appendf(out, "; %s %s the GPU family's bounds (%.3g-%.3g%s)", what, v < lo ? "below" : "above", lo, hi, unit);
}

static void link_summary(const pp_link_calibration *cal, pp_link_class x, pp_strbuf *out)
{
    const pp_link_fit *f = &cal->link[x];
    const char *name = pp_link_class_name(x);
    if (!f->fitted && f->latency_from_network) {
        pp_sb_appendf(out, "%s: not measured on one node; kept efficiency %.3g; latency %.3g us a step, fitted as one "
                           "with the network's from the runs across nodes (the kept %.3g us a step is more than their "
                           "small sizes take)\n",
                      name, f->efficiency, f->latency_us, f->kept_latency_us);
        return;
    }
    if (!f->fitted && f->unidentified) {
        pp_sb_appendf(out, "%s: not fitted: at none of its runs' %d timings is its bandwidth what the model's time "
                           "depends on (%s); kept efficiency %.3g and latency %.3g us\n",
                      name, f->n_rows,
                      x == PP_LINK_NETWORK ? "on two nodes the tree or NVLS-Tree binds first, by the tree's chain "
                                             "over NVLink, NVLS-Tree's reduction in the NVSwitch or their channels' "
                                             "rate (NCCL's perChMaxTreeBw, perChMaxNVLSTreeBw): run on more nodes, "
                                             "or with NCCL_ALGO=Ring"
                                           : "another link binds first",
                      f->efficiency, f->latency_us);
        return;
    }
    if (!f->fitted) {
        pp_sb_appendf(out, "%s: not measured; kept efficiency %.3g and latency %.3g us\n", name, f->efficiency,
                      f->latency_us);
        return;
    }
    pp_sb_appendf(out, "%s: efficiency %.3f of %.4g GB/s (bus bandwidth %.1f GB/s), latency %.3g us a step; "
                       "from %d run%s, %d timings",
                  name, f->efficiency, f->line_GBps, f->efficiency * f->line_GBps, f->latency_us, f->n_runs,
                  f->n_runs == 1 ? "" : "s", f->n_rows);
    if (f->bw_rows)
        pp_sb_appendf(out, " (the bandwidth from the %d that are mostly bandwidth", f->bw_rows);
    else
        pp_sb_append(out, " (the bandwidth from all of them: fewer than two are mostly bandwidth");
    if (f->latency_rows)
        pp_sb_appendf(out, ", the latency from the %d that are mostly latency)", f->latency_rows);
    else
        pp_sb_append(out, ", the latency from all of them: none is mostly latency)");
    bound_note("efficiency", f->efficiency, cal->lo[x][0], cal->hi[x][0], "", out);
    if (x == PP_LINK_NETWORK && f->efficiency < 0.99 * cal->lo[x][0])
        pp_sb_appendf(out, " (is the line rate right? the fit takes %.4g Gb/s a GPU, --problem's "
                           "cluster.inter_node_Gbps, else the GPU's flagship system's: NICs of half that rate fit "
                           "about half; so do rings that NCCL was told to run, read as its choice of a two-node "
                           "tree: if the runs set NCCL_ALGO outside the log, add the setting to it)",
                      8.0 * f->line_GBps);
    if (x == PP_LINK_NVLINK && f->efficiency > 1.01 * cal->hi[x][0] && cal->cluster.gpu.nvls_allreduce_fraction > 0.0)
        pp_sb_append(out, " (on this GPU a one-node all-reduce at NCCL's defaults runs NVLink SHARP, which reduces "
                          "in the switch and reports more bus bandwidth than a ring reaches; one-node logs are read "
                          "as rings: measure them with NCCL_ALGO=Ring or NCCL_NVLS_ENABLE=0)");
    bound_note("latency", f->latency_us, cal->lo[x][1], cal->hi[x][1], " us", out);
    pp_sb_appendf(out, "%s%s\n",
                  f->at_line_rate ? "; held at the line rate (the runs were faster: is the line rate right?)" : "",
                  f->latency_floor ? "; latency held at 0" : "");
}

void pp_report_links_text(const pp_nccl_log *logs, int n_logs, const pp_link_calibration *cal, pp_strbuf *out)
{
    for (int l = 0; l < n_logs; l++) {
        if (logs[l].n_runs == 0)
            pp_sb_appendf(out, "%s: no nccl-tests run found\n", logs[l].name);
        for (int i = 0; i < logs[l].n_runs; i++) {
            const pp_nccl_run *r = &logs[l].runs[i];
            run_heading(&cal->cluster, &logs[l], r, out);
            run_skips(r, out);
            if (pp_nccl_run_fitted(r))
                run_table(&cal->cluster, r, out);
        }
    }
    for (int x = 0; x < PP_LINK_COUNT; x++)
        link_summary(cal, (pp_link_class)x, out);
}
