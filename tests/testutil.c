/* testutil.c: suite runner, process helpers and cost-model fixtures for the
 * CUnit tests. */
#include "testutil.h"

#include "costmodel.h"

#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int pp_test_main(const char *suite_name, const pp_test *tests)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite suite = CU_add_suite(suite_name, NULL, NULL);
    if (!suite) {
        CU_cleanup_registry();
        return 1;
    }
    for (const pp_test *t = tests; t->name; t++)
        if (!CU_add_test(suite, t->name, t->fn)) {
            CU_cleanup_registry();
            return 1;
        }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    unsigned ran = CU_get_number_of_tests_run();
    CU_cleanup_registry();
    if (ran == 0)
        return 1;
    return failed ? 1 : 0;
}

static char *slurp_fd(int fd)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    for (;;) {
        if (len + 1 >= cap) {
            cap *= 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                return NULL;
            }
            buf = nb;
        }
        ssize_t n = read(fd, buf + len, cap - len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    return buf;
}

int pp_run(const char *const *args, const char *stdin_text, pp_run_result *r)
{
    memset(r, 0, sizeof *r);
    r->exit_code = -1;
    char out_tmpl[] = "/tmp/pp_out_XXXXXX", err_tmpl[] = "/tmp/pp_err_XXXXXX", in_tmpl[] = "/tmp/pp_in_XXXXXX";
    int out_fd = mkstemp(out_tmpl), err_fd = mkstemp(err_tmpl), in_fd = mkstemp(in_tmpl);
    if (out_fd < 0 || err_fd < 0 || in_fd < 0)
        return -1;
    unlink(out_tmpl);
    unlink(err_tmpl);
    unlink(in_tmpl);
    if (stdin_text) {
        size_t n = strlen(stdin_text);
        if (write(in_fd, stdin_text, n) != (ssize_t)n)
            return -1;
        lseek(in_fd, 0, SEEK_SET);
    }
    size_t argc = 0;
    while (args[argc])
        argc++;
    const char **argv = calloc(argc + 2, sizeof *argv);
    if (!argv)
        return -1;
    argv[0] = PARPLAN_BINARY;
    for (size_t i = 0; i < argc; i++)
        argv[i + 1] = args[i];
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in_fd, 0);
        dup2(out_fd, 1);
        dup2(err_fd, 2);
        execv(PARPLAN_BINARY, (char *const *)argv);
        _exit(127);
    }
    free(argv);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        return -1;
    if (WIFEXITED(status))
        r->exit_code = WEXITSTATUS(status);
    lseek(out_fd, 0, SEEK_SET);
    lseek(err_fd, 0, SEEK_SET);
    r->out = slurp_fd(out_fd);
    r->err = slurp_fd(err_fd);
    close(out_fd);
    close(err_fd);
    close(in_fd);
    return 0;
}

void pp_run_free(pp_run_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

void pp_write_temp(const char *name, const char *text, char *path, size_t path_len)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/parplan_test_%ld", (long)getpid());
    mkdir(dir, 0700);
    snprintf(path, path_len, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

void pp_source_path(const char *rel, char *path, size_t path_len)
{
    snprintf(path, path_len, "%s/%s", PARPLAN_SOURCE_DIR, rel);
}

/* What differs between the clusters of pp_test_cluster. */
typedef struct test_cluster_spec {
    const char *gpu_id;
    double bf16_tflops, fp16_tflops, hbm_GBps;
    double nvlink_GBps, network_Gbps; /* the catalog's figures; the cost model reads the cluster's */
    int gpu_gpus_per_node;
    pp_efficiency eff;
    double intra_node_GBps, inter_node_Gbps;
    bool megatron_core; /* Megatron-Core's features; otherwise none of them */
} test_cluster_spec;

static const test_cluster_spec TEST_CLUSTERS[] = {
    [PP_TEST_A100] = {"a100-sxm4-80gb", 312, 312, 2039, 300, 200, 8,
                      {.gemm = 0.8, .attention = 0.5, .hbm = 0.8, .nvlink = 0.8, .network = 0.8, .kernel_us = 5,
                       .nvlink_latency_us = 5, .network_latency_us = 10},
                      300, 200, false},
    [PP_TEST_H100] = {"", 989, 0, 3350, 0, 0, 0,
                      {.gemm = 0.7, .attention = 0.5, .hbm = 0.8, .nvlink = 0.9, .network = 0.8, .kernel_us = 5,
                       .nvlink_latency_us = 5, .network_latency_us = 10},
                      450, 400, true},
};

pp_problem pp_test_problem(pp_test_cluster cluster, pp_model m, long nodes, long batch)
{
    const test_cluster_spec *c = &TEST_CLUSTERS[cluster];
    pp_problem p;
    memset(&p, 0, sizeof p);
    p.model = m;
    pp_gpu *g = &p.cluster.gpu;
    snprintf(g->id, sizeof g->id, "%s", c->gpu_id);
    g->peak_tflops[PP_PREC_BF16] = c->bf16_tflops;
    g->peak_tflops[PP_PREC_FP16] = c->fp16_tflops;
    g->memory_gib = 80;
    g->hbm_GBps = c->hbm_GBps;
    g->nvlink_GBps = c->nvlink_GBps;
    g->network_Gbps = c->network_Gbps;
    g->gpus_per_node = c->gpu_gpus_per_node;
    g->eff = c->eff;
    p.cluster.gpus_per_node = 8;
    p.cluster.nodes = nodes;
    p.cluster.intra_node_GBps = c->intra_node_GBps;
    p.cluster.inter_node_Gbps = c->inter_node_Gbps;
    p.training.global_batch = batch;
    p.training.precision = PP_PREC_BF16;
    if (c->megatron_core)
        pp_framework_features(PP_FW_MEGATRON_CORE, &p.training);
    p.memory_headroom = 0.1;
    p.n_codecs = 1;
    snprintf(p.codecs[0].id, sizeof p.codecs[0].id, "none");
    p.codecs[0].lossless_ratio = 1;
    p.compress_min_bytes = 1 << 20;
    p.has_cluster = true;
    return p;
}

pp_model pp_test_gpt3_175b(void)
{
    pp_model m = {.layers = 96, .hidden = 12288, .heads = 96, .kv_heads = 96, .ffn_hidden = 49152,
                  .gated_mlp = false, .tie_embeddings = true, .vocab = 51200, .seq_len = 2048};
    snprintf(m.name, sizeof m.name, "gpt3-175b");
    return m;
}

pp_model pp_test_llama3_8b(int seq)
{
    return (pp_model){.layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 8, .ffn_hidden = 14336,
                      .gated_mlp = true, .tie_embeddings = false, .vocab = 128256, .seq_len = seq};
}

pp_plan pp_test_plan(int tp, int pp, int dp, int cp, int mb)
{
    return (pp_plan){.tp = tp, .pp = pp, .dp = dp, .cp = cp, .micro_batch = mb, .virtual_stages = 1,
                     .tp_mode = PP_TP_1D, .tp_depth = 1};
}
