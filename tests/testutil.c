/* testutil.c: suite runner, process helpers and the fixtures the CUnit
 * suites (and the fuzz harnesses) share; see testutil.h. */
#include "testutil.h"

#include "decisions.h"
#include "error.h"
#include "planner.h"

#include <CUnit/Basic.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* This process's scratch directory: its pid and its start time (field 22
 * of /proc/self/stat), so a process given the pid of an earlier one never
 * reads a file that one left (a catalog fixture would load it). */
static void scratch_dir(char *dir, size_t cap)
{
    unsigned long long start = 0;
    FILE *f = fopen("/proc/self/stat", "r");
    if (f) {
        char buf[1024];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        fclose(f);
        const char *p = strrchr(buf, ')'); /* the command may hold spaces */
        for (int field = 3; p && field <= 22; field++)
            p = strchr(p + 1, ' ');
        if (p)
            start = strtoull(p + 1, NULL, 10);
    }
    snprintf(dir, cap, "/tmp/parplan_test_%ld_%llu", (long)getpid(), start);
}

/* Remove path and, if it is a directory, everything below it. */
static void remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char sub[1024];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            remove_tree(sub);
        }
        if (d)
            closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

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
    char dir[128];
    scratch_dir(dir, sizeof dir);
    remove_tree(dir); /* the files the tests wrote (pp_write_temp) */
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

void pp_run_expect(const char *const *args, int exit_code, const char *needle)
{
    pp_run_result r;
    CU_ASSERT_EQUAL_FATAL(pp_run(args, NULL, &r), 0);
    CU_ASSERT_EQUAL(r.exit_code, exit_code);
    if (needle) {
        bool found = r.err && strstr(r.err, needle) != NULL;
        CU_ASSERT_TRUE(found);
        if (!found)
            fprintf(stderr, "\nnot in stderr: [%s]\n%s\n", needle, r.err ? r.err : "");
    }
    pp_run_free(&r);
}

void pp_run_refused(const char *const *args, const char *needle, const char *out)
{
    remove(out);
    pp_run_expect(args, 2, needle);
    CU_ASSERT_FALSE(pp_exists(out));
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
    char dir[128];
    scratch_dir(dir, sizeof dir);
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

void pp_load_rows(const char *rel, const pp_catalog *cat, pp_measurement_set *set)
{
    char path[1024];
    pp_error err;
    pp_source_path(rel, path, sizeof path);
    CU_ASSERT_EQUAL_FATAL(pp_measurements_load(path, cat, set, &err), PP_OK);
}

int pp_run_code(const char *const *args, pp_run_result *r)
{
    CU_ASSERT_EQUAL_FATAL(pp_run(args, NULL, r), 0);
    return r->exit_code;
}

void pp_temp_path(const char *name, char *path, size_t path_len)
{
    pp_write_temp(name, "", path, path_len);
    unlink(path);
}

void pp_temp_dir(const char *sub, char *dir, size_t dir_len)
{
    char probe[512];
    pp_temp_path("probe", probe, sizeof probe);
    *strrchr(probe, '/') = '\0';
    if (sub) {
        snprintf(dir, dir_len, "%s/%s", probe, sub);
        mkdir(dir, 0700);
    } else {
        snprintf(dir, dir_len, "%s", probe);
    }
}

char *pp_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    for (size_t n; buf && (n = fread(buf + len, 1, cap - len, f)) > 0;) {
        len += n;
        if (len == cap) {
            char *grown = realloc(buf, (cap *= 2) + 1);
            if (!grown)
                free(buf);
            buf = grown;
        }
    }
    fclose(f);
    if (buf)
        buf[len] = '\0';
    return buf;
}

bool pp_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

void pp_write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fwrite(text, 1, len, f), len);
    fclose(f);
}

char *pp_json_of(const char *squoted)
{
    size_t n = strlen(squoted);
    char *out = malloc(n + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    for (size_t i = 0; i <= n; i++)
        out[i] = squoted[i] == '\'' ? '"' : squoted[i];
    return out;
}

void pp_write_json(const char *path, const char *squoted)
{
    char *text = pp_json_of(squoted);
    pp_write_file(path, text, strlen(text));
    free(text);
}

int pp_source_catalog_load(pp_catalog *cat, pp_error *err)
{
    pp_error_clear(err);
    int rc = pp_catalog_load(PARPLAN_SOURCE_DIR "/data", cat, err);
    if (rc != PP_OK)
        fprintf(stderr, "catalog: %s: %s\n", err->path, err->msg);
    return rc;
}

void pp_load_catalog(pp_catalog *cat)
{
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(pp_source_catalog_load(cat, &err), PP_OK);
}

void pp_load_problem(const char *rel, const pp_catalog *cat, pp_problem *p)
{
    char path[1024];
    pp_error err;
    pp_source_path(rel, path, sizeof path);
    int rc = pp_problem_load(path, cat, p, &err);
    if (rc != PP_OK)
        fprintf(stderr, "problem: %s: %s\n", err.path, err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, PP_OK);
}

void pp_test_example_load(pp_test_example *f)
{
    char plan[1024];
    pp_error err;
    memset(f, 0, sizeof *f);
    pp_load_catalog(&f->cat);
    pp_load_problem(PP_EXAMPLE, &f->cat, &f->prob);
    pp_source_path(PP_EXAMPLE_PLAN, plan, sizeof plan);
    CU_ASSERT_EQUAL_FATAL(pp_plan_load(plan, &f->prob, &f->plan, &err), 0);
    pp_evaluate(&f->prob, &f->plan, &f->ev);
}

bool pp_json_has_null(const cJSON *item)
{
    if (cJSON_IsNull(item))
        return true;
    for (const cJSON *c = item->child; c; c = c->next)
        if (pp_json_has_null(c))
            return true;
    return false;
}

unsigned long long pp_rng_next(pp_rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 2685821657736338717ULL;
}

int pp_rng_int(pp_rng *r, int lo, int hi)
{
    return lo + (int)(pp_rng_next(r) % (unsigned long long)(hi - lo + 1));
}

double pp_rng_uniform(pp_rng *r, double lo, double hi)
{
    return lo + (hi - lo) * (double)(pp_rng_next(r) >> 11) / 9007199254740992.0;
}

int pp_rng_pick(pp_rng *r, const int *v, int n)
{
    return v[pp_rng_int(r, 0, n - 1)];
}

bool pp_rel_close(double a, double b, double tol)
{
    return fabs(a - b) <= tol * fmax(fabs(a), fabs(b));
}

/* What differs between the clusters of pp_test_cluster. */
typedef struct test_cluster_spec {
    const char *gpu_id, *gpu_name;
    double bf16_tflops, fp16_tflops, hbm_GBps;
    double nvlink_GBps, network_Gbps; /* the catalog's figures; the cost model reads the cluster's */
    int gpu_gpus_per_node;
    pp_efficiency eff;
    double intra_node_GBps, inter_node_Gbps;
    bool megatron_core; /* Megatron-Core's features; otherwise none of them */
} test_cluster_spec;

static const test_cluster_spec TEST_CLUSTERS[] = {
    [PP_TEST_A100] = {"a100-sxm4-80gb", "", 312, 312, 2039, 300, 200, 8,
                      {.gemm = 0.8, .attention = 0.5, .hbm = 0.8, .nvlink = 0.8, .network = 0.8, .kernel_us = 5,
                       .nvlink_latency_us = 5, .network_latency_us = 10, .gemm_k_overhead = 64, .gemm_misaligned = 0.5},
                      300, 200, false},
    [PP_TEST_H100] = {"", "", 989, 0, 3350, 0, 0, 0,
                      {.gemm = 0.7, .attention = 0.5, .hbm = 0.8, .nvlink = 0.9, .network = 0.8, .kernel_us = 5,
                       .nvlink_latency_us = 5, .network_latency_us = 10, .gemm_k_overhead = 64, .gemm_misaligned = 0.5},
                      450, 400, true},
    [PP_TEST_DGX_A100] = {"a100-sxm4-80gb", "A100-80GB", 312, 312, 2039, 300, 200, 8,
                          {.gemm = 0.75, .attention = 0.5, .hbm = 0.7, .nvlink = 0.75, .network = 0.8,
                           .kernel_us = 5, .nvlink_latency_us = 5, .network_latency_us = 10, .gemm_k_overhead = 64,
                           .gemm_misaligned = 0.5},
                          300, 200, true},
};

pp_problem pp_test_problem(pp_test_cluster cluster, pp_model m, long nodes, long batch)
{
    const test_cluster_spec *c = &TEST_CLUSTERS[cluster];
    pp_problem p;
    memset(&p, 0, sizeof p);
    p.model = m;
    pp_gpu *g = &p.cluster.gpu;
    snprintf(g->id, sizeof g->id, "%s", c->gpu_id);
    snprintf(g->name, sizeof g->name, "%s", c->gpu_name);
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
    pp_plan plan;
    pp_plan_init(&plan); /* every other decision at its default */
    plan.tp = tp;
    plan.pp = pp;
    plan.dp = dp;
    plan.cp = cp;
    plan.micro_batch = mb;
    return plan;
}

int pp_test_add_codec(pp_problem *p, const char *id, bool lossy, double bits, double ratio, double GBps,
                      double rel_error)
{
    pp_codec *c = &p->codecs[p->n_codecs];
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "%s", id);
    c->lossy = lossy;
    c->bits_per_value = bits;
    c->lossless_ratio = ratio;
    c->compress_GBps = c->decompress_GBps = GBps;
    c->rel_error = rel_error;
    return p->n_codecs++;
}

void pp_test_load(const char *squoted, const pp_catalog *cat, pp_problem *p)
{
    char *json = pp_json_of(squoted);
    pp_error err;
    int rc = pp_problem_parse(json, "problem.json", NULL, cat, p, &err);
    if (rc)
        fprintf(stderr, "\n  %s: %s\n", err.path, err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, PP_OK);
    free(json);
}

void pp_test_solve_both(const pp_problem *p, pp_plan_result *res)
{
    for (int k = 0; k < 2; k++) {
        pp_plan_options o;
        pp_plan_options_init(&o);
        o.method = k == 0 ? PP_METHOD_MILP : PP_METHOD_ENUMERATE;
        pp_error err;
        pp_error_clear(&err);
        int rc = pp_plan_solve(p, &o, &res[k], &err);
        if (rc != PP_OK)
            printf("\n  %s: %s %s", k == 0 ? "milp" : "enumerate", err.msg, res[k].infeasible_reason);
        if (rc != PP_OK && k == 1)
            pp_plan_result_free(&res[0]);
        CU_ASSERT_EQUAL_FATAL(rc, PP_OK);
    }
    CU_ASSERT(pp_rel_close(res[0].cert.objective_s, res[1].cert.objective_s, 1e-9));
}
