/*
 * fuzz_nccl_log.c: libFuzzer harness of the nccl-tests log reader and the
 * link fit it feeds (`parplan calibrate --nccl-tests`).
 *
 * The input is the text of a log, as pasted from a terminal, a wiki or a
 * job scheduler (prefixes, colours, several runs, cut short).  It is parsed
 * (pp_nccl_log_parse) for an 8-GPU DGX A100 node; a log that is refused
 * keeps the error contract, and one that is accepted must hold only finite,
 * positive sizes and times and sane rank counts.  Its runs then go through
 * the fit (pp_calibrate_links), whose parameters must be finite, and the
 * fit's printout (pp_report_links_text), rendered twice to the same bytes.
 */
#include "fuzz_common.h"

#include "calibrate_links.h"
#include "catalog.h"
#include "report_links.h"
#include "strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static pp_cluster cluster;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const pp_gpu *g = pp_catalog_gpu(pp_fuzz_catalog(), "a100-sxm4-80gb");
    if (!g)
        pp_fuzz_fail("catalog", "no a100-sxm4-80gb");
    pp_cluster_from_gpu(g, &cluster); /* as `calibrate --nccl-tests --gpu` does */
    cluster.nodes = 1;
    cluster.gpus_per_nic_switch = 0;
    return 0;
}

static void check_log(const pp_nccl_log *log)
{
    for (int i = 0; i < log->n_runs; i++) {
        const pp_nccl_run *r = &log->runs[i];
        if (r->ranks < 0 || r->hosts < 0 || r->ranks_per_host < 0 || r->ranks > 1048576 ||
            (r->hosts > 0 && r->ranks_per_host > r->ranks))
            pp_fuzz_fail("pp_nccl_log_parse", "an accepted run with an impossible rank or host count");
        if (!memchr(r->unusable, '\0', sizeof r->unusable) || !memchr(r->device, '\0', sizeof r->device))
            pp_fuzz_fail("pp_nccl_log_parse", "a string that is not NUL-terminated");
        for (int k = 0; k < r->n_rows; k++) {
            const double v[] = {r->rows[k].bytes, r->rows[k].time_us};
            pp_fuzz_check_positive("pp_nccl_log_parse row", v, 2);
        }
    }
}

static void check_fit(const pp_link_calibration *cal)
{
    for (int l = 0; l < PP_LINK_COUNT; l++) {
        const pp_link_fit *f = &cal->link[l];
        if (!f->fitted)
            continue;
        if (!(f->efficiency > 0 && f->efficiency <= 1) || !(f->latency_us >= 0 && isfinite(f->latency_us)))
            pp_fuzz_fail("pp_calibrate_links", "a fitted link parameter out of range");
    }
}

typedef struct links_fit {
    const pp_nccl_log *log;
    const pp_link_calibration *cal;
} links_fit;

static void render_links(const void *ctx, pp_strbuf *out)
{
    const links_fit *f = ctx;
    pp_report_links_text(f->log, 1, f->cal, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = pp_fuzz_text(data, size);
    pp_nccl_log log;
    pp_error err;
    pp_error_clear(&err);
    int rc = pp_nccl_log_parse(text, "fuzz.log", cluster.gpus_per_node, &log, &err);
    pp_fuzz_check_outcome("pp_nccl_log_parse", rc, &err);
    if (rc == PP_OK) {
        check_log(&log);
        pp_link_calibration cal;
        memset(&cal, 0, sizeof cal);
        cal.cluster = cluster;
        pp_calibrate_links(&log, 1, &cal);
        check_fit(&cal);
        const links_fit fit = {&log, &cal};
        pp_fuzz_render_twice("pp_report_links_text", render_links, &fit);
        pp_nccl_log_free(&log);
    }
    free(text);
    return 0;
}
