/*
 * test_bad_input.c: bad input through the command line, one kind per case.
 *
 * Each case runs the real parplan binary as a user would, with the report
 * and the JSON sent to files (-o, --json) in a fresh directory, and checks
 * the three promises of docs/robustness.md: the exit code of the contract
 * (2 for bad usage or input), a message that names what is wrong (the file,
 * the JSON path, what was expected and what was found), and nothing written:
 * neither output exists afterwards and no temporary file is left behind.
 *
 * Documents are written with single quotes for readability; they are turned
 * into double quotes before they are written.  A case's problem or plan of
 * NULL means a valid one: the small 8-GPU example and {"tp": 2, "pp": 2}.
 */
#include "testutil.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SMALL_PROBLEM                                                                                              \
    "{'model': 'gpt-1.7b', 'cluster': {'gpu': 'a100-sxm4-80gb', 'gpus_per_node': 8, 'nodes': 1},"                \
    " 'training': {'global_batch': 64, 'precision': 'bf16'}}"
#define SMALL_PLAN "{'tp': 2, 'pp': 2}"
#define MAX_ARGS 24
#define MAX_NEEDLES 4

/* Placeholders a case's extra arguments may use. */
#define OUT_MD "@md"       /* the case's report path */
#define OUT_JSON "@json"   /* the case's JSON path */
#define PROBLEM "@problem" /* the case's problem path */
#define PLAN "@plan"       /* the case's plan path */
#define IN_DIR "@dir"         /* the case's directory */

typedef struct bad_case {
    const char *name;
    const char *command;  /* "eval" or "plan" */
    const char *problem;  /* document (single quotes), NULL for SMALL_PROBLEM */
    const char *plan;     /* document for eval, NULL for SMALL_PLAN */
    const char *args[MAX_ARGS]; /* replaces the default arguments when args[0] is set */
    int exit_code;
    const char *needles[MAX_NEEDLES];
} bad_case;

/* ---- helpers ------------------------------------------------------------ */

/* Files in dir whose name contains ".tmp." (an interrupted atomic write). */
static int temp_files_in(const char *dir)
{
    int n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strstr(e->d_name, ".tmp."))
            n++;
    closedir(d);
    return n;
}

/* A fresh directory for one case. */
static void case_dir(int index, char *dir, size_t cap)
{
    char sub[16];
    snprintf(sub, sizeof sub, "bad-%02d", index);
    pp_temp_dir(sub, dir, cap);
}

static const char *expand(const char *arg, const char *dir, const char *md, const char *json, const char *problem,
                          const char *plan, char *buf, size_t cap)
{
    if (strcmp(arg, OUT_MD) == 0)
        return md;
    if (strcmp(arg, OUT_JSON) == 0)
        return json;
    if (strcmp(arg, PROBLEM) == 0)
        return problem;
    if (strcmp(arg, PLAN) == 0)
        return plan;
    if (strncmp(arg, IN_DIR, strlen(IN_DIR)) == 0) {
        snprintf(buf, cap, "%s%s", dir, arg + strlen(IN_DIR));
        return buf;
    }
    return arg;
}

static void run_case(int index, const bad_case *c)
{
    char dir[1024], problem[1100], plan[1100], md[1100], json[1100];
    case_dir(index, dir, sizeof dir);
    snprintf(problem, sizeof problem, "%s/problem.json", dir);
    snprintf(plan, sizeof plan, "%s/plan.json", dir);
    snprintf(md, sizeof md, "%s/report.md", dir);
    snprintf(json, sizeof json, "%s/result.json", dir);
    pp_write_json(problem, c->problem ? c->problem : SMALL_PROBLEM);
    pp_write_json(plan, c->plan ? c->plan : SMALL_PLAN);

    const char *argv[MAX_ARGS + 8];
    char expanded[MAX_ARGS][1200];
    int n = 0;
    if (c->args[0]) {
        for (int i = 0; i < MAX_ARGS && c->args[i]; i++)
            argv[n++] = expand(c->args[i], dir, md, json, problem, plan, expanded[i], sizeof expanded[i]);
    } else {
        argv[n++] = c->command;
        argv[n++] = problem;
        if (strcmp(c->command, "eval") == 0) {
            argv[n++] = "--plan";
            argv[n++] = plan;
        }
        argv[n++] = "-o";
        argv[n++] = md;
        argv[n++] = "--json";
        argv[n++] = json;
    }
    argv[n] = NULL;

    pp_run_result r;
    CU_ASSERT_EQUAL_FATAL(pp_run(argv, NULL, &r), 0);
    char note[2400];
    snprintf(note, sizeof note, "%s: exit %d, stderr: %s", c->name, r.exit_code, r.err ? r.err : "(none)");
    CU_assertImplementation(r.exit_code == c->exit_code, __LINE__, note, __FILE__, "", CU_FALSE);
    CU_assertImplementation(r.err && strncmp(r.err, "parplan: ", 9) == 0, __LINE__, note, __FILE__, "", CU_FALSE);
    for (int i = 0; i < MAX_NEEDLES && c->needles[i]; i++) {
        char what[2600];
        snprintf(what, sizeof what, "%s: message lacks '%s'", note, c->needles[i]);
        CU_assertImplementation(r.err && strstr(r.err, c->needles[i]) != NULL, __LINE__, what, __FILE__, "",
                                CU_FALSE);
    }
    /* Nothing written: no report, no JSON, no export, no temporary file. */
    CU_assertImplementation(!pp_exists(md), __LINE__, note, __FILE__, "", CU_FALSE);
    CU_assertImplementation(!pp_exists(json), __LINE__, note, __FILE__, "", CU_FALSE);
    char export_lp[1100];
    snprintf(export_lp, sizeof export_lp, "%s/model.lp", dir);
    CU_assertImplementation(!pp_exists(export_lp), __LINE__, note, __FILE__, "", CU_FALSE);
    CU_assertImplementation(temp_files_in(dir) == 0, __LINE__, note, __FILE__, "", CU_FALSE);
    CU_assertImplementation(strcmp(r.out, "") == 0, __LINE__, note, __FILE__, "", CU_FALSE);
    pp_run_free(&r);
}

/* ---- the cases ---------------------------------------------------------------- */

/* A custom model; fields is its inside, e.g. "'layers': 4, ...". */
#define MODEL(fields)                                                                                              \
    "{'model': {" fields "}, 'cluster': {'gpu': 'a100-sxm4-80gb', 'nodes': 1}, 'training': {'global_batch': 64}}"
#define CLUSTER(c) "{'model': 'gpt-1.7b', 'cluster': " c ", 'training': {'global_batch': 64}}"
#define TRAINING(t) "{'model': 'gpt-1.7b', 'cluster': {'gpu': 'a100-sxm4-80gb', 'nodes': 1}, 'training': " t "}"
#define WITH(extra)                                                                                                \
    "{'model': 'gpt-1.7b', 'cluster': {'gpu': 'a100-sxm4-80gb', 'nodes': 1}, 'training': {'global_batch': 64}, " \
    extra "}"

static const bad_case cases[] = {
    /* ---- malformed and truncated JSON ---- */
    {"malformed JSON", "eval", "{'model': 'gpt-1.7b',, 'cluster': 1}", NULL, {NULL}, 2,
     {"problem.json:1:", "malformed JSON", "line 1, column"}},
    {"truncated JSON", "eval", "{'model': {'layers': 4, 'hidden'", NULL, {NULL}, 2,
     {"problem.json:1:", "found the end", "truncated"}},
    {"empty problem file", "plan", "", NULL, {NULL}, 2, {"problem.json: $", "empty document"}},
    {"trailing garbage", "eval", "{'model': 'gpt-1.7b'} }", NULL, {NULL}, 2, {"malformed JSON", "found '}'"}},
    {"top-level array", "eval", "[1, 2, 3]", NULL, {NULL}, 2, {"problem.json: $", "expected a JSON object", "array"}},
    {"NaN literal", "eval", "{'model': NaN}", NULL, {NULL}, 2, {"malformed JSON", "NaN"}},
    {"truncated plan", "eval", NULL, "{'tp': 2, 'pp'", {NULL}, 2, {"plan.json:1:", "truncated"}},
    {"number with a leading zero", "eval", NULL, "{'tp': 02, 'pp': 2}", {NULL}, 2,
     {"plan.json:1:8", "a number JSON does not allow", "'02,"}},
    {"number ending in a dot", "eval", NULL, "{'tp': 2., 'pp': 2}", {NULL}, 2, {"a number JSON does not allow"}},
    {"control character between tokens", "eval", "{'model':\x01 'gpt-1.7b'}", NULL, {NULL}, 2,
     {"problem.json:1:10", "a control character between tokens"}},
    {"raw tab inside a string", "eval", "{'model': 'gpt\t1.7b'}", NULL, {NULL}, 2,
     {"a raw control character inside a string"}},
    {"NUL escape inside a string", "eval", "{'model': 'gpt-1.7b\\u0000'}", NULL, {NULL}, 2,
     {"\\u0000 (a NUL character) inside a string"}},
    /* ---- wrong types ---- */
    {"layers as a string", "eval", MODEL("'layers': '4', 'hidden': 1024, 'heads': 16, 'vocab': 32000, 'seq_len': 1024"),
     NULL, {NULL}, 2, {"$.model.layers"}},
    {"training as a string", "eval", TRAINING("'lots'"), NULL, {NULL}, 2,
     {"problem.json: $.training", "expected an object", "found the string 'lots'"}},
    {"flag as a string", "eval", TRAINING("{'global_batch': 64, 'flash_attention': 'yes'}"), NULL, {NULL}, 2,
     {"$.training.flash_attention", "expected true or false", "found the string 'yes'"}},
    {"fractional integer", "eval", CLUSTER("{'gpu': 'a100-sxm4-80gb', 'nodes': 1.5}"), NULL, {NULL}, 2,
     {"$.cluster.nodes", "expected an integer", "found the number 1.5"}},
    {"plan degree as a string", "eval", NULL, "{'tp': '2', 'pp': 2}", {NULL}, 2,
     {"plan.json: $.tp", "expected an integer", "found the string '2'"}},
    {"search value not a list", "plan", WITH("'search': {'tp': 8}"), NULL, {NULL}, 2,
     {"$.search.tp", "expected a list", "write [x]"}},
    /* ---- out-of-range and absurd values ---- */
    {"zero nodes", "plan", CLUSTER("{'gpu': 'a100-sxm4-80gb', 'nodes': 0}"), NULL, {NULL}, 2,
     {"$.cluster.nodes", "1..10000000", "found the number 0"}},
    {"a billion nodes", "plan", CLUSTER("{'gpu': 'a100-sxm4-80gb', 'nodes': 1e9}"), NULL, {NULL}, 2,
     {"$.cluster.nodes", "1..10000000", "1000000000"}},
    {"negative bandwidth", "eval", CLUSTER("{'gpu': 'a100-sxm4-80gb', 'nodes': 1, 'inter_node_Gbps': -5}"), NULL,
     {NULL}, 2, {"$.cluster.inter_node_Gbps", "positive number", "-5"}},
    {"negative NIC switch size", "eval", CLUSTER("{'gpu': 'a100-sxm4-80gb', 'nodes': 1, 'gpus_per_nic_switch': -1}"),
     NULL, {NULL}, 2, {"$.cluster.gpus_per_nic_switch", "0..576", "-1"}},
    {"PXN as a string", "eval", TRAINING("{'global_batch': 64, 'nccl_pxn': 'no'}"), NULL, {NULL}, 2,
     {"$.training.nccl_pxn", "expected true or false", "found the string 'no'"}},
    {"batch beyond 2^40", "plan", TRAINING("{'global_batch': 2199023255552}"), NULL, {NULL}, 2,
     {"$.training.global_batch", "1..1099511627776"}},
    {"number too large to represent", "eval",
     MODEL("'layers': 4, 'hidden': 1024, 'heads': 16, 'vocab': 1e400, 'seq_len': 1024"),
     NULL, {NULL}, 2,
     {"$.model.vocab", "too large"}},
    {"hidden beyond 2^20", "eval",
     MODEL("'layers': 4, 'hidden': 2097152, 'heads': 16, 'vocab': 32000, 'seq_len': 1024"),
     NULL, {NULL}, 2, {"$.model.hidden", "1..1048576"}},
    {"loss token fraction above 1", "eval",
     MODEL("'layers': 4, 'hidden': 1024, 'heads': 16, 'vocab': 32000, 'seq_len': 1024, 'loss_token_fraction': 1.5"),
     NULL, {NULL}, 2, {"$.model.loss_token_fraction", "1.5"}},
    {"Bridge recipe without its source", "eval",
     MODEL("'layers': 4, 'hidden': 1024, 'heads': 16, 'vocab': 32000, 'seq_len': 1024, "
           "'bridge_recipe': {'name': 'megatron.bridge.recipes.gpt.gpt3_175b.pretrain_config'}"),
     NULL, {NULL}, 2, {"$.model.bridge_recipe", "missing required key 'source'"}},
    {"Bridge recipe that is not a Python path", "eval",
     MODEL("'layers': 4, 'hidden': 1024, 'heads': 16, 'vocab': 32000, 'seq_len': 1024, "
           "'bridge_recipe': {'name': 'rm -rf /', 'source': 'x'}"),
     NULL, {NULL}, 2, {"$.model.bridge_recipe.name", "a Python path"}},
    {"headroom 95 %", "plan", WITH("'constraints': {'memory_headroom': 0.95}"), NULL, {NULL}, 2,
     {"$.constraints.memory_headroom", "0..0.9"}},
    {"ZeRO stage 4 in a plan", "eval", NULL, "{'tp': 2, 'pp': 2, 'zero': 4}", {NULL}, 2, {"plan.json: $.zero", "0..3"}},
    {"absurd plan degrees", "eval", NULL,
     "{'tp': 16777216, 'pp': 16777216, 'dp': 16777216, 'cp': 16777216, 'micro_batch': 16777216}", {NULL}, 2,
     {"gpu count", "16777216*16777216*16777216*16777216", "8 GPUs"}},
    {"more micro-batches than an int", "eval",
     "{'model': 'gpt-1.7b', 'cluster': {'gpu': 'a100-sxm4-80gb', 'gpus_per_node': 1, 'nodes': 1},"
     " 'training': {'global_batch': 1099511627776}}",
     "{'tp': 1, 'pp': 1}", {NULL}, 2, {"plan.json: $", "micro-batches", "1099511627776"}},
    {"a search too large to plan", "plan",
     "{'model': {'layers': 65536, 'hidden': 4096, 'heads': 4096, 'vocab': 32000, 'seq_len': 16777216},"
     " 'cluster': {'gpu': 'h100-sxm5-80gb', 'gpus_per_node': 64, 'nodes': 8388608},"
     " 'training': {'global_batch': 1099511627776}, 'constraints': {'allow_tp_across_nodes': true},"
     " 'search': {'tp': [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096],"
     " 'pp': [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536],"
     " 'cp': [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024],"
     " 'micro_batch': [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384],"
     " 'virtual_stages': [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]}}",
     NULL, {NULL}, 2, {"decision space too large", "search"}},
    /* ---- unknown keys ---- */
    {"unknown top-level key", "eval", "{'modle': 'gpt-1.7b'}", NULL, {NULL}, 2,
     {"problem.json: $.modle", "unknown key 'modle'", "did you mean 'model'?"}},
    {"unknown model key", "eval", MODEL("'layers': 4, 'hidden': 1024, 'hedas': 16, 'vocab': 32000, 'seq_len': 1024"),
     NULL, {NULL}, 2,
     {"$.model.hedas", "did you mean 'heads'?"}},
    {"unknown plan key", "eval", NULL, "{'tp': 2, 'pp': 2, 'zer0': 1}", {NULL}, 2,
     {"plan.json: $.zer0", "did you mean 'zero'?"}},
    {"duplicate key", "eval", "{'model': 'gpt-1.7b', 'model': 'gpt-3.6b'}", NULL, {NULL}, 2,
     {"$.model", "twice"}},
    /* ---- unknown catalog ids ---- */
    {"unknown model id", "plan", "{'model': 'gpt3-175', 'cluster': 'selene', 'training': {'global_batch': 8}}", NULL,
     {NULL}, 2, {"problem.json: $.model", "found 'gpt3-175'", "did you mean 'gpt3-175b'?"}},
    {"unknown GPU id", "plan", CLUSTER("{'gpu': 'l40s-48gb', 'nodes': 1}"), NULL, {NULL}, 2,
     {"$.cluster.gpu", "GPU id of gpus.json", "found 'l40s-48gb'"}},
    {"unknown cluster id", "plan", CLUSTER("'selen'"), NULL, {NULL}, 2, {"$.cluster", "did you mean 'selene'?"}},
    {"unknown codec id", "eval", NULL, "{'tp': 2, 'pp': 2, 'compression': {'dp': 'zip'}}", {NULL}, 2,
     {"plan.json: $.compression.dp", "codec id of codecs.json", "found 'zip'"}},
    {"unknown hf_config file", "eval", "{'model': {'hf_config': 'no-such-config.json', 'seq_len': 2048},"
                                       " 'cluster': 'selene', 'training': {'global_batch': 8}}",
     NULL, {NULL}, 2, {"$.model.hf_config", "no-such-config.json", "No such file"}},
    {"hf_config without seq_len", "eval",
     "{'model': {'hf_config': '" PARPLAN_SOURCE_DIR "/tests/data/llama-3-8b-config.json'},"
     " 'cluster': 'selene', 'training': {'global_batch': 8}}",
     NULL, {NULL}, 2, {"problem.json: $.model", "missing required key 'seq_len'", "llama-3-8b-config.json"}},
    {"a Mixture-of-Experts model routing to more experts than it has", "plan",
     MODEL("'layers': 4, 'hidden': 1024, 'heads': 8, 'vocab': 32000, 'seq_len': 1024, 'experts': 8, "
           "'experts_per_token': 9"),
     NULL, {NULL}, 2, {"$.model.experts_per_token", "expected an integer in 1..experts (8), found 9"}},
    /* ---- contradictory settings ---- */
    {"heads do not divide hidden", "eval",
     MODEL("'layers': 4, 'hidden': 1024, 'heads': 48, 'vocab': 32000, 'seq_len': 1024"),
     NULL, {NULL}, 2,
     {"$.model.heads", "expected heads to divide hidden (1024)", "found heads 48"}},
    {"fp8 on an A100", "plan", TRAINING("{'global_batch': 64, 'precision': 'fp8'}"), NULL, {NULL}, 2,
     {"$.training.precision", "supports", "found 'fp8'"}},
    {"fp8 on a GPU without a 16-bit peak", "eval",
     "{'model': 'gpt-1.7b', 'cluster': {'gpu': {'id': 'x1', 'peak_tflops': {'fp8': 800}, 'memory_gib': 96},"
     " 'nodes': 1}, 'training': {'global_batch': 64, 'precision': 'fp8'}}",
     NULL, {NULL}, 2, {"$.training.precision", "bf16 or fp16 peak for fp8 training", "x1"}},
    {"capacity max below min", "plan",
     "{'model': 'llama3-8b', 'training': {'global_batch': 8, 'tokens': 1e12},"
     " 'capacity': {'gpus': [{'gpu': 'h100-sxm5-80gb'}], 'nodes': {'min': 8, 'max': 4}}}",
     NULL, {NULL}, 2, {"$.capacity.nodes.max", "expected max >= min (8)"}},
    {"repeated search value", "plan", WITH("'search': {'tp': [1, 2, 2]}"), NULL, {NULL}, 2,
     {"$.search.tp[2]", "expected distinct values"}},
    {"tp_depth without 2.5d", "eval", NULL, "{'tp': 2, 'pp': 2, 'tp_depth': 4}", {NULL}, 2,
     {"plan.json: $.tp_depth", "2.5d"}},
    {"plan that misses the GPU count", "eval", NULL, "{'tp': 2, 'pp': 2, 'dp': 4}", {NULL}, 2,
     {"plan.json: $", "gpu count", "8 GPUs"}},
    {"sequence parallelism without tp", "eval", NULL, "{'tp': 1, 'pp': 2, 'sequence_parallel': true}", {NULL}, 2,
     {"plan.json", "sequence_parallel"}},
    {"both inputs on standard input", "eval", NULL, NULL,
     {"eval", "-", "--plan", "-", "-o", OUT_MD, "--json", OUT_JSON, NULL}, 2, {"cannot both be standard input"}},
    /* ---- unreadable inputs ---- */
    {"missing problem file", "plan", NULL, NULL, {"plan", IN_DIR "/none.json", "-o", OUT_MD, "--json", OUT_JSON, NULL},
     2, {"none.json", "No such file or directory"}},
    {"a directory as the problem", "plan", NULL, NULL, {"plan", IN_DIR, "-o", OUT_MD, "--json", OUT_JSON, NULL}, 2,
     {"Is a directory"}},
    {"an endless problem file", "plan", NULL, NULL,
     {"plan", "/dev/zero", "-o", OUT_MD, "--json", OUT_JSON, NULL}, 2, {"/dev/zero", "at most 64 MiB"}},
    {"missing plan file", "eval", NULL, NULL,
     {"eval", PROBLEM, "--plan", IN_DIR "/none.plan.json", "-o", OUT_MD, "--json", OUT_JSON, NULL}, 2,
     {"none.plan.json", "No such file"}},
    {"missing catalogs", "eval", NULL, NULL,
     {"eval", PROBLEM, "--plan", PLAN, "--data-dir", IN_DIR "/no-catalogs", "-o", OUT_MD, "--json", OUT_JSON, NULL}, 2,
     {"no-catalogs"}},
    {"malformed efficiency file", "eval", NULL, NULL,
     {"eval", PROBLEM, "--plan", PLAN, "--efficiency", PROBLEM, "-o", OUT_MD, "--json", OUT_JSON, NULL}, 2,
     {"problem.json"}},
    /* ---- unwritable outputs (found before any work) ---- */
    {"report in a missing directory", "eval", NULL, NULL,
     {"eval", PROBLEM, "--plan", PLAN, "-o", IN_DIR "/missing/report.md", "--json", OUT_JSON, NULL}, 2,
     {"missing/report.md", "cannot write the output"}},
    {"JSON where no file can be made", "plan", NULL, NULL,
     {"plan", PROBLEM, "-o", OUT_MD, "--json", "/proc/parplan-result.json", NULL}, 2,
     {"/proc/parplan-result.json", "cannot write the output"}},
    {"report onto a directory", "eval", NULL, NULL, {"eval", PROBLEM, "--plan", PLAN, "-o", IN_DIR, NULL}, 2,
     {"is a directory"}},
    {"report onto the problem", "eval", NULL, NULL,
     {"eval", PROBLEM, "--plan", PLAN, "-o", PROBLEM, "--json", OUT_JSON, NULL}, 2,
     {"refusing to overwrite an input file"}},
    {"report and JSON on one file", "eval", NULL, NULL,
     {"eval", PROBLEM, "--plan", PLAN, "-o", OUT_MD, "--json", OUT_MD, NULL}, 2, {"two outputs"}},
    {"export under a file", "plan", NULL, NULL,
     {"plan", PROBLEM, "-o", OUT_MD, "--json", OUT_JSON, "--export-lp", IN_DIR "/problem.json/model.lp", NULL}, 2,
     {"model.lp", "cannot write the output"}},
    /* ---- bad usage ---- */
    {"time limit of zero", "plan", NULL, NULL,
     {"plan", PROBLEM, "--time-limit", "0", "-o", OUT_MD, "--json", OUT_JSON, NULL}, 2,
     {"--time-limit", "positive number of seconds"}},
    {"time limit not a number", "plan", NULL, NULL,
     {"plan", PROBLEM, "--time-limit", "nan", "-o", OUT_MD, "--json", OUT_JSON, NULL}, 2, {"--time-limit"}},
    {"too many runner-ups", "plan", NULL, NULL,
     {"plan", PROBLEM, "--top", "100000", "-o", OUT_MD, "--json", OUT_JSON, NULL}, 2, {"--top", "0 to 1000"}},
    {"unknown option", "plan", NULL, NULL, {"plan", PROBLEM, "--tmie-limit", "5", "-o", OUT_MD, NULL}, 2,
     {"unknown option", "did you mean '--time-limit'?"}},
};
#define N_CASES ((int)(sizeof cases / sizeof cases[0]))

/* ---- tests ------------------------------------------------------------------- */

static void test_every_case(void)
{
    CU_ASSERT_TRUE(N_CASES >= 30);
    for (int i = 0; i < N_CASES; i++)
        run_case(i, &cases[i]);
}

/* A problem file holding a NUL byte is binary, not JSON. */
static void test_nul_byte(void)
{
    char dir[1024], problem[1100], md[1100];
    case_dir(N_CASES, dir, sizeof dir);
    snprintf(problem, sizeof problem, "%s/binary.json", dir);
    snprintf(md, sizeof md, "%s/report.md", dir);
    pp_write_file(problem, "{\"model\":\0 1}", 13);
    const char *args[] = {"plan", problem, "-o", md, NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL_FATAL(pp_run(args, NULL, &r), 0);
    CU_ASSERT_EQUAL(r.exit_code, 2);
    PP_ASSERT_CONTAINS(r.err, "NUL byte");
    PP_ASSERT_CONTAINS(r.err, "binary.json");
    CU_ASSERT_FALSE(pp_exists(md));
    pp_run_free(&r);
}

/* 10000 nested brackets: refused before cJSON recurses into them. */
static void test_deep_nesting(void)
{
    char dir[1024], problem[1100], md[1100];
    case_dir(N_CASES + 1, dir, sizeof dir);
    snprintf(problem, sizeof problem, "%s/deep.json", dir);
    snprintf(md, sizeof md, "%s/report.md", dir);
    size_t n = 10000;
    char *deep = malloc(n + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(deep);
    memset(deep, '[', n);
    pp_write_file(problem, deep, n);
    free(deep);
    const char *args[] = {"plan", problem, "-o", md, NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL_FATAL(pp_run(args, NULL, &r), 0);
    CU_ASSERT_EQUAL(r.exit_code, 2);
    PP_ASSERT_CONTAINS(r.err, "nested at most 32 levels");
    CU_ASSERT_FALSE(pp_exists(md));
    pp_run_free(&r);
}

/* Two million values in a 4 MiB file: refused before cJSON spends 64 bytes
 * on each (a 64 MiB file of them would take 2 GiB). */
static void test_too_many_values(void)
{
    char dir[1024], problem[1100], md[1100];
    case_dir(N_CASES + 2, dir, sizeof dir);
    snprintf(problem, sizeof problem, "%s/values.json", dir);
    snprintf(md, sizeof md, "%s/report.md", dir);
    size_t n = 2000000, len = 12 + 2 * n;
    char *text = malloc(len + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    memcpy(text, "{\"model\": [", 11);
    for (size_t i = 0; i < n; i++)
        memcpy(text + 11 + 2 * i, "0,", 2);
    memcpy(text + 11 + 2 * n - 1, "]}", 2);
    pp_write_file(problem, text, 11 + 2 * n + 1);
    free(text);
    const char *args[] = {"plan", problem, "-o", md, NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL_FATAL(pp_run(args, NULL, &r), 0);
    CU_ASSERT_EQUAL(r.exit_code, 2);
    PP_ASSERT_CONTAINS(r.err, "values.json:1:");
    PP_ASSERT_CONTAINS(r.err, "at most 1000000 JSON values");
    CU_ASSERT_FALSE(pp_exists(md));
    pp_run_free(&r);
}

/* Bad input on standard input is named as such. */
static void test_bad_stdin(void)
{
    const char *args[] = {"plan", "-", "--json", "-", NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL_FATAL(pp_run(args, "{\"model\": ", &r), 0);
    CU_ASSERT_EQUAL(r.exit_code, 2);
    PP_ASSERT_CONTAINS(r.err, "standard input");
    PP_ASSERT_CONTAINS(r.err, "truncated");
    CU_ASSERT_STRING_EQUAL(r.out, "");
    pp_run_free(&r);
}

int main(void)
{
    static const pp_test tests[] = {
        {"every kind of bad input: exit 2, a message, nothing written", test_every_case},
        {"a NUL byte in the problem", test_nul_byte},
        {"10000 nested brackets", test_deep_nesting},
        {"two million values", test_too_many_values},
        {"bad input on standard input", test_bad_stdin},
        {NULL, NULL},
    };
    return pp_test_main("bad input", tests);
}
