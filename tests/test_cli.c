/*
 * test_cli.c: the command line as a user drives it (cli/main.c).
 *
 * Every test runs the real parplan binary with pp_run() and checks what the
 * contract of docs/interface.md promises: exit codes (0 ok, 2 bad usage or
 * input, 3 infeasible, 1 other), messages that name the file and the rule,
 * the result JSON's keys and arithmetic, outputs written whole or not at all,
 * inputs never touched, and byte-identical output from identical runs.
 */
#include "testutil.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------ */

/* Run `parplan eval PP_EXAMPLE --plan PLANFILE` plus extra args (NULL-ended). */
static int run_eval(const char *plan_path, const char *const *extra, pp_run_result *r)
{
    char problem[1024];
    pp_source_path(PP_EXAMPLE, problem, sizeof problem);
    const char *args[32] = {"eval", problem, "--plan", plan_path};
    int n = 4;
    for (int i = 0; extra && extra[i] && n < 31; i++)
        args[n++] = extra[i];
    args[n] = NULL;
    return pp_run_code(args, r);
}

static double num(const cJSON *obj, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    CU_ASSERT_TRUE(cJSON_IsNumber(item));
    return cJSON_IsNumber(item) ? item->valuedouble : NAN;
}

static bool close_rel(double a, double b, double rel)
{
    return fabs(a - b) <= rel * fmax(1.0, fmax(fabs(a), fabs(b)));
}

/* The arithmetic every priced result obeys. */
static void check_priced(const cJSON *doc, double gpus)
{
    CU_ASSERT_EQUAL(num(doc, "gpus"), gpus);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(doc, "time_s");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    double parts = num(t, "compute") + num(t, "bubble") + num(t, "exposed_comm") + num(t, "compression") +
                   num(t, "optimizer");
    double step = num(doc, "step_time_s");
    CU_ASSERT_TRUE(step > 0);
    CU_ASSERT_TRUE(close_rel(parts, step, 1e-9));
    const cJSON *by = cJSON_GetObjectItemCaseSensitive(t, "exposed_comm_by_dim");
    CU_ASSERT_PTR_NOT_NULL_FATAL(by);
    CU_ASSERT_TRUE(close_rel(num(by, "tp") + num(by, "cp") + num(by, "pp") + num(by, "dp"),
                             num(t, "exposed_comm"), 1e-9));
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(doc, "memory_gib");
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    double mem = num(m, "weights") + num(m, "gradients") + num(m, "optimizer") + num(m, "activations") +
                 num(m, "other");
    CU_ASSERT_TRUE(close_rel(mem, num(m, "total"), 1e-9));
    CU_ASSERT_TRUE(num(m, "usable") <= num(m, "capacity"));
    const cJSON *tp = cJSON_GetObjectItemCaseSensitive(doc, "throughput");
    CU_ASSERT_PTR_NOT_NULL_FATAL(tp);
    CU_ASSERT_TRUE(num(tp, "mfu") > 0 && num(tp, "mfu") < 1);
    CU_ASSERT_TRUE(num(tp, "tokens_per_s") > 0);
    CU_ASSERT_TRUE(num(tp, "model_tflops_per_gpu") <= num(tp, "hardware_tflops_per_gpu") + 1e-9);
}

/* ---- version and help ---------------------------------------------------- */

static void test_version(void)
{
    pp_run_result r;
    const char *args[] = {"--version", NULL};
    CU_ASSERT_EQUAL(pp_run_code(args, &r), 0);
    CU_ASSERT_STRING_EQUAL(r.out, "parplan 0.1.0\n");
    CU_ASSERT_STRING_EQUAL(r.err, "");
    pp_run_free(&r);
}

static void test_help(void)
{
    pp_run_result r;
    const char *top[] = {"--help", NULL};
    CU_ASSERT_EQUAL(pp_run_code(top, &r), 0);
    PP_ASSERT_CONTAINS(r.out, "Usage: parplan");
    PP_ASSERT_CONTAINS(r.out, "plan PROBLEM.json");
    PP_ASSERT_CONTAINS(r.out, "eval PROBLEM.json --plan PLAN.json");
    PP_ASSERT_CONTAINS(r.out, "--json FILE");
    PP_ASSERT_CONTAINS(r.out, "Exit status");
    CU_ASSERT_STRING_EQUAL(r.err, "");
    pp_run_free(&r);

    const char *plan[] = {"plan", "--help", NULL};
    CU_ASSERT_EQUAL(pp_run_code(plan, &r), 0);
    PP_ASSERT_CONTAINS(r.out, "--time-limit SECONDS");
    PP_ASSERT_CONTAINS(r.out, "--export-mps FILE");
    CU_ASSERT_PTR_NULL(strstr(r.out, "--plan FILE"));
    pp_run_free(&r);

    const char *eval[] = {"eval", "-h", NULL};
    CU_ASSERT_EQUAL(pp_run_code(eval, &r), 0);
    PP_ASSERT_CONTAINS(r.out, "--plan FILE");
    CU_ASSERT_PTR_NULL(strstr(r.out, "--time-limit"));
    pp_run_free(&r);

    /* calibrate's three forms and their options */
    const char *calibrate[] = {"calibrate", "--help", NULL};
    CU_ASSERT_EQUAL(pp_run_code(calibrate, &r), 0);
    PP_ASSERT_CONTAINS(r.out, "or: parplan calibrate --nccl-tests LOG...");
    PP_ASSERT_CONTAINS(r.out, "--log FILE");
    CU_ASSERT_PTR_NULL(strstr(r.out, "--rows"));
    pp_run_free(&r);
}

/* ---- bad usage ------------------------------------------------------------ */

static void expect_usage_error(const char *const *args, const char *needle)
{
    pp_run_result r;
    CU_ASSERT_EQUAL(pp_run_code(args, &r), 2);
    PP_ASSERT_CONTAINS(r.err, needle);
    PP_ASSERT_CONTAINS(r.err, "--help");
    CU_ASSERT_STRING_EQUAL(r.out, "");
    pp_run_free(&r);
}

static void test_bad_usage(void)
{
    char problem[1024], plan[1024];
    pp_source_path(PP_EXAMPLE, problem, sizeof problem);
    pp_source_path(PP_EXAMPLE_PLAN, plan, sizeof plan);
    const char *none[] = {NULL};
    expect_usage_error(none, "missing command");
    const char *unknown_opt[] = {"eval", problem, "--plan", plan, "--bogus", NULL};
    expect_usage_error(unknown_opt, "unknown option '--bogus'");
    const char *typo[] = {"eval", problem, "--plna", plan, NULL};
    expect_usage_error(typo, "did you mean '--plan'?");
    const char *swapped[] = {"plan", problem, "--tpo", "3", NULL}; /* a short name, two letters swapped */
    expect_usage_error(swapped, "unknown option '--tpo'; did you mean '--top'?");
    const char *unknown_cmd[] = {"pln", problem, NULL};
    expect_usage_error(unknown_cmd, "did you mean 'plan'?");
    const char *other_cmd[] = {"frobnicate", problem, NULL};
    expect_usage_error(other_cmd, "(commands: 'plan', 'eval', 'calibrate', 'accuracy', 'capacity')");
    expect_usage_error(none, "missing command ('plan', 'eval', 'calibrate', 'accuracy', 'capacity')");
    const char *no_arg[] = {"eval", problem, "--plan", NULL};
    expect_usage_error(no_arg, "needs an argument");
    const char *no_plan[] = {"eval", problem, NULL};
    expect_usage_error(no_plan, "--plan");
    const char *extra[] = {"eval", problem, "--plan", plan, "extra.json", NULL};
    expect_usage_error(extra, "unexpected argument 'extra.json'");
    const char *wrong_cmd[] = {"eval", problem, "--plan", plan, "--top", "3", NULL};
    expect_usage_error(wrong_cmd, "--top is not an option of 'eval'");
    const char *bad_method[] = {"plan", problem, "--method", "simplex", NULL};
    expect_usage_error(bad_method, "expected 'milp' or 'enumerate', found 'simplex'");
    const char *bad_limit[] = {"plan", problem, "--time-limit", "soon", NULL};
    expect_usage_error(bad_limit, "--time-limit");
    const char *bad_top[] = {"plan", problem, "--top", "-1", NULL};
    expect_usage_error(bad_top, "--top");
}

/* ---- eval ------------------------------------------------------------------ */

static void test_eval_example(void)
{
    char plan[1024], json[1024];
    pp_source_path(PP_EXAMPLE_PLAN, plan, sizeof plan);
    pp_temp_path("eval.json", json, sizeof json);
    const char *extra[] = {"--json", json, NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL(run_eval(plan, extra, &r), 0);
    PP_ASSERT_CONTAINS(r.out, "# parplan");
    PP_ASSERT_CONTAINS(r.out, "tp=8 pp=16 dp=8 cp=1 micro_batch=1");
    PP_ASSERT_CONTAINS(r.out, "| **step time** |");
    char *text = pp_slurp(json);
    cJSON *doc = cJSON_Parse(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(doc, "status")->valuestring, "evaluated");
    check_priced(doc, 1024);
    CU_ASSERT_FALSE(pp_json_has_null(doc));
    CU_ASSERT_TRUE(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(doc, "tp_across_nodes")));
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(doc, "plan");
    CU_ASSERT_EQUAL(num(p, "tp"), 8);
    CU_ASSERT_EQUAL(num(p, "pp"), 16);
    CU_ASSERT_EQUAL(num(p, "dp"), 8);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(p, "recompute")->valuestring, "full");
    const cJSON *comp = cJSON_GetObjectItemCaseSensitive(p, "compression");
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(comp, "dp")->valuestring, "none");
    CU_ASSERT_PTR_NULL(cJSON_GetObjectItemCaseSensitive(doc, "certificate"));
    cJSON_Delete(doc);
    free(text);
    pp_run_free(&r);
}

/* The DeepSeek-V3 example keeps Adam's moments in bf16 (its report,
 * §3.3.3): eval of its published plan echoes the setting in the result
 * JSON (test_launch checks the settings that run it); the default example
 * states nothing, and its result and launch settings say nothing of it. */
static void test_eval_moments_echoed(void)
{
    char problem[1024], plan[1024];
    pp_source_path("data/examples/deepseek-v3-h800.json", problem, sizeof problem);
    pp_source_path("data/examples/deepseek-v3-h800.plan.json", plan, sizeof plan);
    const char *args[] = {"eval", problem, "--plan", plan, "--json", "-", NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL(pp_run_code(args, &r), 0);
    cJSON *doc = cJSON_Parse(r.out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const cJSON *tr = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "problem"), "training");
    const cJSON *mo = cJSON_GetObjectItemCaseSensitive(tr, "optimizer_moments_dtype");
    CU_ASSERT_TRUE(cJSON_IsString(mo) && strcmp(mo->valuestring, "bf16") == 0);
    cJSON_Delete(doc);
    pp_run_free(&r);
    char small[1024], small_plan[1024];
    pp_source_path(PP_EXAMPLE, small, sizeof small);
    pp_source_path(PP_EXAMPLE_PLAN, small_plan, sizeof small_plan);
    const char *plain[] = {"eval", small, "--plan", small_plan, "--json", "-", NULL};
    CU_ASSERT_EQUAL(pp_run_code(plain, &r), 0);
    CU_ASSERT_PTR_NULL(strstr(r.out, "optimizer_moments_dtype"));
    CU_ASSERT_PTR_NULL(strstr(r.out, "--use-precision-aware-optimizer"));
    CU_ASSERT_PTR_NULL(strstr(r.out, "bf16_layers_first"));
    pp_run_free(&r);
}

/* The blocks an NVFP4 plan keeps in bf16 are echoed as priced (and
 * launched): stated, as stated; by default the recipe's, NVIDIA's 1 and 4
 * of Llama 3 8B's 32. */
static void test_plan_bf16_blocks_echoed(void)
{
    static const struct {
        const char *more;
        int first, last;
    } cases[] = {{"", 1, 4}, {", 'bf16_layers_first': 2, 'bf16_layers_last': 1", 2, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char squoted[512], path[1024];
        snprintf(squoted, sizeof squoted,
                 "{'model': 'llama3-8b', 'cluster': {'gpu': 'b200-sxm-180gb', 'nodes': 1},"
                 " 'training': {'global_batch': 64, 'precision': 'nvfp4'%s}}",
                 cases[i].more);
        pp_temp_path("nvfp4-blocks.json", path, sizeof path);
        pp_write_json(path, squoted);
        const char *args[] = {"plan", path, "--json", "-", NULL};
        pp_run_result r;
        CU_ASSERT_EQUAL(pp_run_code(args, &r), 0);
        cJSON *doc = cJSON_Parse(r.out);
        CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
        const cJSON *tr = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "problem"), "training");
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(tr, "bf16_layers_first"),
                    *l = cJSON_GetObjectItemCaseSensitive(tr, "bf16_layers_last");
        CU_ASSERT_TRUE(cJSON_IsNumber(f) && f->valueint == cases[i].first);
        CU_ASSERT_TRUE(cJSON_IsNumber(l) && l->valueint == cases[i].last);
        char flag[64];
        snprintf(flag, sizeof flag, "--num-layers-at-start-in-bf16 %d", cases[i].first);
        PP_ASSERT_CONTAINS(r.out, flag);
        cJSON_Delete(doc);
        pp_run_free(&r);
    }
}

static void test_json_to_stdout(void)
{
    char plan[1024];
    pp_source_path(PP_EXAMPLE_PLAN, plan, sizeof plan);
    const char *extra[] = {"--json", "-", NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL(run_eval(plan, extra, &r), 0);
    cJSON *doc = cJSON_Parse(r.out); /* the whole of stdout: no report mixed in */
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    check_priced(doc, 1024);
    CU_ASSERT_STRING_EQUAL(r.err, "");
    cJSON_Delete(doc);
    pp_run_free(&r);
}

/* The result's plan object is a valid PLAN.json that prices the same. */
static void test_plan_round_trip(void)
{
    char plan[1024], again[1024];
    pp_source_path(PP_EXAMPLE_PLAN, plan, sizeof plan);
    const char *extra[] = {"--json", "-", NULL};
    pp_run_result r1, r2;
    CU_ASSERT_EQUAL(run_eval(plan, extra, &r1), 0);
    cJSON *doc = cJSON_Parse(r1.out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    char *plan_text = cJSON_Print(cJSON_GetObjectItemCaseSensitive(doc, "plan"));
    pp_write_temp("round-trip.plan.json", plan_text, again, sizeof again);
    CU_ASSERT_EQUAL(run_eval(again, extra, &r2), 0);
    CU_ASSERT_STRING_EQUAL(r1.out, r2.out);
    cJSON_free(plan_text);
    cJSON_Delete(doc);
    pp_run_free(&r1);
    pp_run_free(&r2);
}

static void test_problem_from_stdin(void)
{
    char problem[1024], plan[1024];
    pp_source_path(PP_EXAMPLE, problem, sizeof problem);
    pp_source_path(PP_EXAMPLE_PLAN, plan, sizeof plan);
    char *text = pp_slurp(problem);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    const char *from_file[] = {"eval", problem, "--plan", plan, NULL};
    const char *from_stdin[] = {"eval", "-", "--plan", plan, NULL};
    pp_run_result r1, r2;
    CU_ASSERT_EQUAL(pp_run_code(from_file, &r1), 0);
    CU_ASSERT_EQUAL_FATAL(pp_run(from_stdin, text, &r2), 0);
    CU_ASSERT_EQUAL(r2.exit_code, 0);
    CU_ASSERT_STRING_EQUAL(r1.out, r2.out);
    free(text);
    pp_run_free(&r1);
    pp_run_free(&r2);
}

/* ---- outputs ----------------------------------------------------------------- */

static void test_output_file(void)
{
    char plan[1024], report[1024];
    pp_source_path(PP_EXAMPLE_PLAN, plan, sizeof plan);
    pp_temp_path("report.md", report, sizeof report);
    const char *extra[] = {"-o", report, NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL(run_eval(plan, extra, &r), 0);
    CU_ASSERT_STRING_EQUAL(r.out, "");
    PP_ASSERT_CONTAINS(r.err, "wrote report to");
    PP_ASSERT_CONTAINS(r.err, report);
    char *text = pp_slurp(report);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_EQUAL(strncmp(text, "# parplan", 9), 0);
    CU_ASSERT_EQUAL(text[strlen(text) - 1], '\n');
    free(text);
    pp_run_free(&r);
}

/* A failed run leaves an existing report as it was, and no temp file. */
static void test_output_never_partial(void)
{
    char bad_plan[1024], report[1024];
    pp_write_temp("bad.plan.json", "{\"tp\": 8, \"pp\": 16, \"dp\": 4}", bad_plan, sizeof bad_plan);
    pp_write_temp("kept.md", "previous report\n", report, sizeof report);
    const char *extra[] = {"-o", report, NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL(run_eval(bad_plan, extra, &r), 2);
    char *text = pp_slurp(report);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_STRING_EQUAL(text, "previous report\n");
    free(text);
    pp_run_free(&r);

    char dir[1024], cmd[1200];
    snprintf(dir, sizeof dir, "%s", report);
    *strrchr(dir, '/') = '\0';
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -q '\\.tmp\\.'", dir);
    CU_ASSERT_NOT_EQUAL(system(cmd), 0);
}

static void test_unwritable_output(void)
{
    char plan[1024], json[1024];
    pp_source_path(PP_EXAMPLE_PLAN, plan, sizeof plan);
    pp_temp_path("not-written.json", json, sizeof json);
    const char *bad_report[] = {"-o", "/nonexistent/dir/r.md", "--json", json, NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL(run_eval(plan, bad_report, &r), 2);
    PP_ASSERT_CONTAINS(r.err, "/nonexistent/dir/r.md");
    CU_ASSERT_FALSE(pp_exists("/nonexistent/dir/r.md"));
    CU_ASSERT_FALSE(pp_exists(json)); /* checked before any work: nothing written */
    pp_run_free(&r);

    const char *bad_json[] = {"--json", "/nonexistent/dir/r.json", NULL};
    CU_ASSERT_EQUAL(run_eval(plan, bad_json, &r), 2);
    PP_ASSERT_CONTAINS(r.err, "/nonexistent/dir/r.json");
    CU_ASSERT_STRING_EQUAL(r.out, "");
    pp_run_free(&r);

    char problem[1024];
    pp_source_path(PP_EXAMPLE, problem, sizeof problem);
    const char *bad_export[] = {"plan", problem, "--export-lp", "/nonexistent/dir/m.lp", NULL};
    CU_ASSERT_EQUAL(pp_run_code(bad_export, &r), 2);
    PP_ASSERT_CONTAINS(r.err, "/nonexistent/dir/m.lp");
    pp_run_free(&r);

    const char *both_stdout[] = {"-o", "-", "--json", "-", NULL};
    CU_ASSERT_EQUAL(run_eval(plan, both_stdout, &r), 2);
    PP_ASSERT_CONTAINS(r.err, "standard output");
    pp_run_free(&r);
}

/* Outputs never touch inputs, even when asked to. */
static void test_inputs_unchanged(void)
{
    char problem[1024], plan[1024], json[1024];
    pp_source_path(PP_EXAMPLE, problem, sizeof problem);
    pp_source_path(PP_EXAMPLE_PLAN, plan, sizeof plan);
    pp_temp_path("inputs.json", json, sizeof json);
    char *before_problem = pp_slurp(problem), *before_plan = pp_slurp(plan);
    CU_ASSERT_PTR_NOT_NULL_FATAL(before_problem);
    CU_ASSERT_PTR_NOT_NULL_FATAL(before_plan);
    pp_run_result r;
    const char *ok[] = {"--json", json, NULL};
    CU_ASSERT_EQUAL(run_eval(plan, ok, &r), 0);
    pp_run_free(&r);
    const char *onto_input[] = {"-o", plan, NULL};
    CU_ASSERT_EQUAL(run_eval(plan, onto_input, &r), 2);
    PP_ASSERT_CONTAINS(r.err, "input");
    pp_run_free(&r);
    char *after_problem = pp_slurp(problem), *after_plan = pp_slurp(plan);
    CU_ASSERT_STRING_EQUAL(before_problem, after_problem);
    CU_ASSERT_STRING_EQUAL(before_plan, after_plan);
    free(before_problem);
    free(before_plan);
    free(after_problem);
    free(after_plan);
}

static void test_deterministic(void)
{
    char plan[1024], j1[1024], j2[1024];
    pp_source_path(PP_EXAMPLE_PLAN, plan, sizeof plan);
    pp_temp_path("det1.json", j1, sizeof j1);
    pp_temp_path("det2.json", j2, sizeof j2);
    const char *e1[] = {"--json", j1, NULL}, *e2[] = {"--json", j2, NULL};
    pp_run_result r1, r2;
    CU_ASSERT_EQUAL(run_eval(plan, e1, &r1), 0);
    CU_ASSERT_EQUAL(run_eval(plan, e2, &r2), 0);
    CU_ASSERT_STRING_EQUAL(r1.out, r2.out);
    char *a = pp_slurp(j1), *b = pp_slurp(j2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_STRING_EQUAL(a, b);
    free(a);
    free(b);
    pp_run_free(&r1);
    pp_run_free(&r2);
}

/* ---- bad input ----------------------------------------------------------- */

static void test_missing_file(void)
{
    char plan[1024];
    pp_source_path(PP_EXAMPLE_PLAN, plan, sizeof plan);
    const char *args[] = {"eval", "no-such-problem.json", "--plan", plan, NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL(pp_run_code(args, &r), 2);
    PP_ASSERT_CONTAINS(r.err, "no-such-problem.json");
    CU_ASSERT_STRING_EQUAL(r.out, "");
    pp_run_free(&r);

    CU_ASSERT_EQUAL(run_eval("no-such-plan.json", NULL, &r), 2);
    PP_ASSERT_CONTAINS(r.err, "no-such-plan.json");
    pp_run_free(&r);
}

static void expect_invalid_plan(const char *problem, const char *plan_text, const char *needle)
{
    char plan[1024];
    pp_write_temp("invalid.plan.json", plan_text, plan, sizeof plan);
    const char *args[] = {"eval", problem, "--plan", plan, "--json", "-", NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL(pp_run_code(args, &r), 2);
    PP_ASSERT_CONTAINS(r.err, needle);
    PP_ASSERT_CONTAINS(r.err, plan); /* the message names the plan's file */
    CU_ASSERT_STRING_EQUAL(r.out, "");
    pp_run_free(&r);
}

static void test_invalid_plans(void)
{
    char example[1024], six[1024];
    pp_source_path(PP_EXAMPLE, example, sizeof example);
    pp_write_temp("six-gpus.json",
                  "{\"model\": {\"name\": \"tiny\", \"layers\": 4, \"hidden\": 1024, \"heads\": 16, "
                  "\"vocab\": 32000, \"seq_len\": 1024},"
                  " \"cluster\": {\"gpu\": \"a100-sxm4-80gb\", \"gpus_per_node\": 6, \"nodes\": 1},"
                  " \"training\": {\"global_batch\": 12, \"precision\": \"bf16\"}}",
                  six, sizeof six);
    expect_invalid_plan(six, "{\"tp\": 3, \"pp\": 1, \"dp\": 2}", "divisibility");
    expect_invalid_plan(example, "{\"tp\": 8, \"pp\": 64, \"dp\": 2}", "divisibility");
    expect_invalid_plan(example, "{\"tp\": 8, \"pp\": 16, \"dp\": 4}", "gpu count");
    expect_invalid_plan(example, "{\"tp\": 3, \"pp\": 16, \"dp\": 8}", "gpu count");
}

/* A fixed plan whose TP groups leave a node is priced, as a plan that does
 * not fit in memory is: the placement rule bounds what `plan` searches.  The
 * report and standard error say so; a plan that breaks another rule is still
 * refused. */
static void test_eval_tp_across_nodes(void)
{
    char plan[1024];
    pp_write_temp("tp16.json", "{\"tp\": 16, \"pp\": 8, \"dp\": 8}", plan, sizeof plan);
    pp_run_result r;
    CU_ASSERT_EQUAL(run_eval(plan, NULL, &r), 0);
    PP_ASSERT_CONTAINS(r.out, "**Tensor parallelism leaves the node:** tp=16 on nodes of 8 GPUs");
    PP_ASSERT_CONTAINS(r.err, "warning: tp=16 leaves a node of 8 GPUs");
    pp_run_free(&r);
    const char *json[] = {"--json", "-", NULL};
    CU_ASSERT_EQUAL(run_eval(plan, json, &r), 0);
    cJSON *doc = cJSON_Parse(r.out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    double t = num(doc, "step_time_s");
    CU_ASSERT(t > 0.0 && isfinite(t));
    CU_ASSERT_TRUE(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "tp_across_nodes")));
    cJSON_Delete(doc);
    pp_run_free(&r);
    char example[1024];
    pp_source_path(PP_EXAMPLE, example, sizeof example);
    expect_invalid_plan(example, "{\"tp\": 16, \"pp\": 64, \"dp\": 1}", "divisibility");
    /* as a baseline of `plan` it is priced too, and marked as breaking the placement */
    const char *base[] = {"plan", example, "--baseline", plan, "--json", "-", "-o", "/dev/null", NULL};
    CU_ASSERT_EQUAL(pp_run_code(base, &r), 0);
    doc = cJSON_Parse(r.out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(doc, "baseline");
    CU_ASSERT_TRUE(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(b, "valid")));
    CU_ASSERT_TRUE(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(b, "feasible")));
    CU_ASSERT_DOUBLE_EQUAL(num(b, "step_time_s"), t, 1e-9 * t);
    const cJSON *why = cJSON_GetObjectItemCaseSensitive(b, "problem");
    CU_ASSERT_TRUE(cJSON_IsString(why) && strstr(why->valuestring, "tp=16) leaves a node") != NULL);
    cJSON_Delete(doc);
    pp_run_free(&r);
}

/* A plan its framework cannot run (int8ef on DP gradients: Megatron-Core,
 * the example's framework, has no int8 gradient compression) is priced as
 * given and marked: report, JSON and standard error say not runnable and
 * why; as a baseline it is priced and not feasible.  The plan the search
 * returns is runnable. */
static void test_eval_not_runnable(void)
{
    char plan[1024];
    pp_write_temp("int8ef.json",
                  "{\"tp\": 8, \"pp\": 8, \"dp\": 16, \"micro_batch\": 4, \"virtual_stages\": 6, \"zero\": 1,"
                  " \"sequence_parallel\": true, \"compression\": {\"dp\": \"int8ef\"}}",
                  plan, sizeof plan);
    pp_run_result r;
    CU_ASSERT_EQUAL(run_eval(plan, NULL, &r), 0);
    PP_ASSERT_CONTAINS(r.out, "**Not runnable by Megatron-Core (0.20.0");
    PP_ASSERT_CONTAINS(r.out, "it has no codec 'int8ef' on dp traffic (it runs none, bf16)");
    PP_ASSERT_CONTAINS(r.err, "warning: not runnable by Megatron-Core");
    pp_run_free(&r);
    const char *json[] = {"--json", "-", NULL};
    CU_ASSERT_EQUAL(run_eval(plan, json, &r), 0);
    cJSON *doc = cJSON_Parse(r.out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    double t = num(doc, "step_time_s");
    CU_ASSERT(t > 0.0 && isfinite(t));
    CU_ASSERT_TRUE(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(doc, "runnable")));
    const cJSON *why = cJSON_GetObjectItemCaseSensitive(doc, "not_runnable_reason");
    CU_ASSERT_TRUE(cJSON_IsString(why) && strstr(why->valuestring, "int8ef") != NULL);
    cJSON_Delete(doc);
    pp_run_free(&r);
    char example[1024];
    pp_source_path(PP_EXAMPLE, example, sizeof example);
    const char *base[] = {"plan", example, "--baseline", plan, "--json", "-", "-o", "/dev/null", NULL};
    CU_ASSERT_EQUAL(pp_run_code(base, &r), 0);
    doc = cJSON_Parse(r.out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(doc, "baseline");
    CU_ASSERT_TRUE(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(b, "valid")));
    CU_ASSERT_TRUE(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(b, "feasible")));
    CU_ASSERT_DOUBLE_EQUAL(num(b, "step_time_s"), t, 1e-9 * t);
    why = cJSON_GetObjectItemCaseSensitive(b, "problem");
    CU_ASSERT_TRUE(cJSON_IsString(why) && strstr(why->valuestring, "not runnable by Megatron-Core") != NULL);
    CU_ASSERT_TRUE(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "runnable"))); /* the optimum */
    cJSON_Delete(doc);
    pp_run_free(&r);
}

/* ---- catalogs and option forms ------------------------------------------ */

static double step_time_of(const char *const *extra)
{
    char plan[1024];
    pp_source_path(PP_EXAMPLE_PLAN, plan, sizeof plan);
    pp_run_result r;
    CU_ASSERT_EQUAL(run_eval(plan, extra, &r), 0);
    cJSON *doc = cJSON_Parse(r.out);
    double t = doc ? num(doc, "step_time_s") : NAN;
    cJSON_Delete(doc);
    pp_run_free(&r);
    return t;
}

/* A calibration override slows the GEMMs, so the same plan takes longer. */
static void test_efficiency_override(void)
{
    char eff[1024];
    pp_write_temp("efficiency.json", "{\"default\": {\"gemm\": 0.3}}", eff, sizeof eff);
    const char *base[] = {"--json", "-", NULL};
    const char *slow[] = {"--json", "-", "--efficiency", eff, NULL};
    double t0 = step_time_of(base), t1 = step_time_of(slow);
    CU_ASSERT_TRUE(t1 > t0 * 1.2);

    char plan[1024];
    pp_source_path(PP_EXAMPLE_PLAN, plan, sizeof plan);
    const char *missing[] = {"--efficiency", "no-such-efficiency.json", NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL(run_eval(plan, missing, &r), 2);
    PP_ASSERT_CONTAINS(r.err, "no-such-efficiency.json");
    pp_run_free(&r);
}

static void test_data_dir(void)
{
    char plan[1024], data[1024];
    pp_source_path(PP_EXAMPLE_PLAN, plan, sizeof plan);
    pp_source_path("data", data, sizeof data);
    const char *same[] = {"--json", "-", "--data-dir", data, NULL};
    const char *base[] = {"--json", "-", NULL};
    CU_ASSERT_EQUAL(step_time_of(same), step_time_of(base));
    const char *missing[] = {"--data-dir", "/nonexistent/catalogs", NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL(run_eval(plan, missing, &r), 2);
    PP_ASSERT_CONTAINS(r.err, "/nonexistent/catalogs");
    pp_run_free(&r);
}

/* GNU forms: --opt=VALUE, unique prefixes, -oFILE, options before the command. */
static void test_option_forms(void)
{
    char problem[1024], plan[1024], plan_eq[1100], report[1024], short_attached[1100];
    pp_source_path(PP_EXAMPLE, problem, sizeof problem);
    pp_source_path(PP_EXAMPLE_PLAN, plan, sizeof plan);
    snprintf(plan_eq, sizeof plan_eq, "--plan=%s", plan);
    pp_temp_path("forms.md", report, sizeof report);
    snprintf(short_attached, sizeof short_attached, "-o%s", report);
    const char *args[] = {"--jso", "-", "eval", plan_eq, problem, short_attached, NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL(pp_run_code(args, &r), 0);
    cJSON *doc = cJSON_Parse(r.out);
    CU_ASSERT_PTR_NOT_NULL(doc);
    cJSON_Delete(doc);
    CU_ASSERT_TRUE(pp_exists(report));
    pp_run_free(&r);

    const char *ambiguous[] = {"plan", problem, "--e", "x", NULL};
    CU_ASSERT_EQUAL(pp_run_code(ambiguous, &r), 2);
    PP_ASSERT_CONTAINS(r.err, "ambiguous");
    pp_run_free(&r);

    const char *dev_null[] = {"eval", problem, "--plan", plan, "-o", "/dev/null", NULL};
    CU_ASSERT_EQUAL(pp_run_code(dev_null, &r), 0);
    pp_run_free(&r);
}

/* ---- plan ---------------------------------------------------------------- */

/* The planner lands separately; until it does `plan` must fail cleanly (exit
 * 1, a message).  Once it works, its result obeys the contract. */
/* accuracy --rows: each timed row's prediction, measurement and error. */
static void test_accuracy_rows(void)
{
    char meas[1024];
    pp_source_path("data/measurements/published-calibration.json", meas, sizeof meas);
    pp_run_result r;
    const char *plain[] = {"accuracy", meas, "--json", "-", NULL};
    CU_ASSERT_EQUAL(pp_run_code(plain, &r), 0);
    cJSON *doc = cJSON_Parse(r.out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(doc, "rows"));
    cJSON_Delete(doc);
    pp_run_free(&r);

    char md[1024];
    pp_temp_path("accuracy.md", md, sizeof md);
    const char *args[] = {"accuracy", meas, "--rows", "--json", "-", "-o", md, NULL};
    CU_ASSERT_EQUAL(pp_run_code(args, &r), 0);
    doc = cJSON_Parse(r.out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const cJSON *rows = cJSON_GetObjectItem(doc, "rows");
    CU_ASSERT_TRUE_FATAL(cJSON_IsArray(rows) && cJSON_GetArraySize(rows) > 10);
    char *text = pp_slurp(md);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    PP_ASSERT_CONTAINS(text, "| row | source group | predicted (s) | measured (s) | error |\n");
    const cJSON *row;
    cJSON_ArrayForEach(row, rows)
    {
        double p = cJSON_GetObjectItem(row, "predicted_s")->valuedouble;
        double m = cJSON_GetObjectItem(row, "measured_s")->valuedouble;
        double e = cJSON_GetObjectItem(row, "error_pct")->valuedouble;
        CU_ASSERT_TRUE(p > 0 && m > 0);
        CU_ASSERT_DOUBLE_EQUAL(e, (p / m - 1.0) * 100.0, 1e-9);
        char line[512];
        snprintf(line, sizeof line, " | %.3f | %.3f | %+.1f %% |\n", p, m, e);
        PP_ASSERT_CONTAINS(text, line);
    }
    free(text);
    cJSON_Delete(doc);
    pp_run_free(&r);

    char problem[1024];
    pp_source_path(PP_SMALL_EXAMPLE, problem, sizeof problem);
    const char *not_plan[] = {"plan", problem, "--rows", NULL};
    expect_usage_error(not_plan, "--rows is not an option of 'plan'");
}

static void test_plan_small(void)
{
    char problem[1024];
    pp_source_path(PP_SMALL_EXAMPLE, problem, sizeof problem);
    const char *args[] = {"plan", problem, "--json", "-", NULL};
    pp_run_result r;
    int code = pp_run_code(args, &r);
    if (code == 1) {
        PP_ASSERT_CONTAINS(r.err, "parplan: ");
        pp_run_free(&r);
        return;
    }
    CU_ASSERT_EQUAL(code, 0);
    cJSON *doc = cJSON_Parse(r.out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(doc, "status")->valuestring, "optimal");
    check_priced(doc, 8);
    const cJSON *cert = cJSON_GetObjectItemCaseSensitive(doc, "certificate");
    CU_ASSERT_PTR_NOT_NULL_FATAL(cert);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(cert, "method")->valuestring, "milp");
    CU_ASSERT_TRUE(close_rel(num(cert, "objective_s"), num(doc, "step_time_s"), 1e-6));
    CU_ASSERT_TRUE(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "runner_ups")));
    cJSON_Delete(doc);
    pp_run_free(&r);
}

/* The gpus family's counterfactual "gpus_per_node=64": on a 72-GPU NVLink
 * domain whose global batch (4096) splits 64 ways but not 72, the best plan
 * on all 72 GPUs loses to one on 64 of them.  The counterfactual is exactly
 * the optimum of the problem that states 64 GPUs a node; a node of a power
 * of two, or a problem whose count is an upper limit, is not offered it. */
#define SUBSET_PROBLEM(gpn, use_all)                                                                               \
    "{'model': 'gpt-1.7b', 'cluster': {'gpu': 'gb200-nvl72', 'gpus_per_node': " gpn ", 'nodes': 1},"              \
    " 'training': {'global_batch': 4096, 'precision': 'bf16'}, 'constraints': {'use_all_gpus': " use_all "}}"

static const cJSON *gpus_counterfactual(const cJSON *doc, const char *change)
{
    const cJSON *fam;
    cJSON_ArrayForEach(fam, cJSON_GetObjectItemCaseSensitive(doc, "binding"))
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(fam, "family");
        if (!cJSON_IsString(name) || strcmp(name->valuestring, "gpus") != 0)
            continue;
        const cJSON *cf;
        cJSON_ArrayForEach(cf, cJSON_GetObjectItemCaseSensitive(fam, "counterfactuals"))
        {
            const cJSON *c = cJSON_GetObjectItemCaseSensitive(cf, "change");
            if (cJSON_IsString(c) && strcmp(c->valuestring, change) == 0)
                return cf;
        }
    }
    return NULL;
}

static cJSON *plan_json(const char *name, const char *squoted, pp_run_result *r)
{
    char path[1024];
    pp_temp_path(name, path, sizeof path);
    pp_write_json(path, squoted);
    const char *args[] = {"plan", path, "--json", "-", NULL};
    CU_ASSERT_EQUAL(pp_run_code(args, r), 0);
    cJSON *doc = cJSON_Parse(r->out);
    CU_ASSERT_PTR_NOT_NULL(doc);
    return doc;
}

static void test_node_subset_counterfactual(void)
{
    pp_run_result r72, r64, rup;
    cJSON *d72 = plan_json("subset-72.json", SUBSET_PROBLEM("72", "true"), &r72);
    cJSON *d64 = plan_json("subset-64.json", SUBSET_PROBLEM("64", "true"), &r64);
    cJSON *dup = plan_json("subset-up.json", SUBSET_PROBLEM("72", "false"), &rup);
    CU_ASSERT_FATAL(d72 && d64 && dup);
    CU_ASSERT_EQUAL(num(d72, "gpus"), 72.0);
    CU_ASSERT(num(d64, "step_time_s") < num(d72, "step_time_s"));
    const cJSON *cf = gpus_counterfactual(d72, "gpus_per_node=64");
    CU_ASSERT_PTR_NOT_NULL_FATAL(cf);
    CU_ASSERT_TRUE(close_rel(num(cf, "step_time_s"), num(d64, "step_time_s"), 1e-9));
    CU_ASSERT(num(cf, "gain") > 0.0);
    PP_ASSERT_CONTAINS(r72.out, "using 64 of each node's 72 GPUs (64 of 72)");
    CU_ASSERT_PTR_NULL(gpus_counterfactual(d64, "gpus_per_node=32"));
    CU_ASSERT_PTR_NULL(gpus_counterfactual(dup, "gpus_per_node=64"));
    cJSON_Delete(d72);
    cJSON_Delete(d64);
    cJSON_Delete(dup);
    pp_run_free(&r72);
    pp_run_free(&r64);
    pp_run_free(&rup);
}

int main(void)
{
    static const pp_test tests[] = {
        {"--version prints the version", test_version},
        {"--help and COMMAND --help", test_help},
        {"bad usage exits 2 with a hint", test_bad_usage},
        {"eval of the default example", test_eval_example},
        {"Adam's 16-bit moments echoed (DeepSeek-V3 example)", test_eval_moments_echoed},
        {"plan echoes the bf16 blocks an NVFP4 plan keeps, and launches them", test_plan_bf16_blocks_echoed},
        {"--json - writes only JSON to stdout", test_json_to_stdout},
        {"a result's plan reads back as PLAN.json", test_plan_round_trip},
        {"PROBLEM.json from standard input", test_problem_from_stdin},
        {"-o writes the report file", test_output_file},
        {"a failed run leaves the old report whole", test_output_never_partial},
        {"unwritable outputs are refused before work", test_unwritable_output},
        {"inputs are never modified", test_inputs_unchanged},
        {"two runs are byte-identical", test_deterministic},
        {"missing files are named", test_missing_file},
        {"invalid plans name the broken rule", test_invalid_plans},
        {"eval prices a plan whose TP leaves a node, and says so", test_eval_tp_across_nodes},
        {"eval prices a plan its framework cannot run, and says so", test_eval_not_runnable},
        {"--efficiency applies a calibration", test_efficiency_override},
        {"--data-dir names the catalogs", test_data_dir},
        {"GNU option forms", test_option_forms},
        {"plan on a small problem", test_plan_small},
        {"part of each node's GPUs is a counterfactual of the GPU count", test_node_subset_counterfactual},
        {"accuracy --rows lists every timed row", test_accuracy_rows},
        {NULL, NULL},
    };
    return pp_test_main("cli", tests);
}
