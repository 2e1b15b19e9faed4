/*
 * test_robustness.c: the promises of docs/robustness.md that are not about
 * bad input (tests/test_bad_input.c has those).
 *
 *   - Files: every output (report, JSON, exports) replaces its target by a
 *     rename, so a reader of the old file never sees a partial one, and the
 *     target keeps its mode; inputs are never modified.
 *   - Determinism: the same problem gives byte-identical reports, JSON
 *     (except certificate.solve_time_s) and exported models.
 *   - Sizes: absurd but well-formed problems (a 100-trillion-parameter
 *     model, tens of millions of GPUs, a batch of 2^40, a vocabulary of
 *     2^24) end within seconds with an answer or a clear error.
 *   - GLPK: every solve has a node limit; a search stopped before its proof
 *     (by the node or the time limit) ends with a clear error when it has no
 *     plan, else reports time_limit with its gap, never optimal; GLPK's own
 *     output never reaches the user.
 */
#include "testutil.h"

#include "error.h"
#include "planner.h"
#include "problem.h"
#include "report_md.h"
#include "result_json.h"
#include "strbuf.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------ */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The text without the line holding "solve_time_s" (the one value of the
 * result that depends on the run). */
static char *without_solve_time(const char *text)
{
    char *out = strdup(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    char *line;
    while ((line = strstr(out, "\"solve_time_s\"")) != NULL) {
        char *start = line, *end = strchr(line, '\n');
        while (start > out && start[-1] != '\n')
            start--;
        memmove(start, end ? end + 1 : line + strlen(line), strlen(end ? end + 1 : "") + 1);
    }
    return out;
}

/* ---- files ------------------------------------------------------------------ */

/* The report replaces an existing file by a rename: a second name of the old
 * file (a hard link, or a reader holding it open) still sees the old text,
 * whole; the new file keeps the old one's mode. */
static void test_outputs_replace_by_rename(void)
{
    char problem[1024], plan[1024], report[1024], old_name[1024], json[1024], old_json[1024];
    pp_source_path(PP_EXAMPLE, problem, sizeof problem);
    pp_source_path(PP_EXAMPLE_PLAN, plan, sizeof plan);
    pp_write_temp("replaced.md", "old report\n", report, sizeof report);
    pp_write_temp("replaced.json", "{\"old\": true}\n", json, sizeof json);
    pp_temp_path("old-report.md", old_name, sizeof old_name);
    pp_temp_path("old-result.json", old_json, sizeof old_json);
    CU_ASSERT_EQUAL_FATAL(link(report, old_name), 0);
    CU_ASSERT_EQUAL_FATAL(link(json, old_json), 0);
    CU_ASSERT_EQUAL(chmod(report, 0640), 0);
    const char *args[] = {"eval", problem, "--plan", plan, "-o", report, "--json", json, NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL(pp_run_code(args, &r), 0);
    pp_run_free(&r);
    char *old_text = pp_slurp(old_name), *new_text = pp_slurp(report), *old_js = pp_slurp(old_json), *new_js = pp_slurp(json);
    CU_ASSERT_STRING_EQUAL(old_text, "old report\n");
    CU_ASSERT_STRING_EQUAL(old_js, "{\"old\": true}\n");
    CU_ASSERT_EQUAL(strncmp(new_text, "# parplan", 9), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(new_js, "\"evaluated\""));
    struct stat st;
    CU_ASSERT_EQUAL(stat(report, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 0777, 0640);
    free(old_text);
    free(new_text);
    free(old_js);
    free(new_js);
}

/* Exported models are written the same way. */
static void test_exports_replace_by_rename(void)
{
    char problem[1024], lp[1024], old_lp[1024], mps[1024], report[1024];
    pp_source_path(PP_SMALL_EXAMPLE, problem, sizeof problem);
    pp_write_temp("model.lp", "old model\n", lp, sizeof lp);
    pp_temp_path("old-model.lp", old_lp, sizeof old_lp);
    pp_temp_path("model.mps", mps, sizeof mps);
    pp_temp_path("export-report.md", report, sizeof report);
    CU_ASSERT_EQUAL_FATAL(link(lp, old_lp), 0);
    const char *args[] = {"plan", problem, "--export-lp", lp, "--export-mps", mps, "-o", report, NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL(pp_run_code(args, &r), 0);
    pp_run_free(&r);
    char *old_text = pp_slurp(old_lp), *new_text = pp_slurp(lp), *mps_text = pp_slurp(mps);
    CU_ASSERT_STRING_EQUAL(old_text, "old model\n");
    CU_ASSERT_PTR_NOT_NULL(strstr(new_text, "Minimize"));
    CU_ASSERT_PTR_NOT_NULL(strstr(mps_text, "ROWS"));
    free(old_text);
    free(new_text);
    free(mps_text);
    char dir[1024], cmd[1200];
    snprintf(dir, sizeof dir, "%s", lp);
    *strrchr(dir, '/') = '\0';
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -q '\\.tmp\\.'", dir);
    CU_ASSERT_NOT_EQUAL(system(cmd), 0); /* no temporary file left */
}

/* `plan` with every output reads its inputs and leaves them as they were,
 * contents and modification times. */
static void test_plan_leaves_inputs_alone(void)
{
    char example[1024], problem[1024], report[1024], json[1024], lp[1024];
    pp_source_path(PP_SMALL_EXAMPLE, example, sizeof example);
    char *text = pp_slurp(example);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    pp_write_temp("input.json", text, problem, sizeof problem);
    CU_ASSERT_EQUAL(chmod(problem, 0444), 0);
    struct stat before, after;
    CU_ASSERT_EQUAL(stat(problem, &before), 0);
    pp_temp_path("input-report.md", report, sizeof report);
    pp_temp_path("input-result.json", json, sizeof json);
    pp_temp_path("input-model.lp", lp, sizeof lp);
    sleep(1); /* a write would move the modification time */
    const char *args[] = {"plan", problem, "-o", report, "--json", json, "--export-lp", lp, "--top", "2", NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL(pp_run_code(args, &r), 0);
    pp_run_free(&r);
    CU_ASSERT_EQUAL(stat(problem, &after), 0);
    CU_ASSERT_EQUAL(before.st_mtime, after.st_mtime);
    CU_ASSERT_EQUAL(before.st_size, after.st_size);
    CU_ASSERT_EQUAL(before.st_mode, after.st_mode);
    char *again = pp_slurp(problem);
    CU_ASSERT_STRING_EQUAL(text, again);
    free(again);
    /* Asked to write onto an input, it refuses and writes nothing. */
    const char *onto[] = {"plan", problem, "-o", report, "--json", problem, NULL};
    CU_ASSERT_EQUAL(pp_run_code(onto, &r), 2);
    PP_ASSERT_CONTAINS(r.err, "refusing to overwrite an input file");
    pp_run_free(&r);
    again = pp_slurp(problem);
    CU_ASSERT_STRING_EQUAL(text, again);
    free(again);
    free(text);
}

/* ---- determinism ----------------------------------------------------------- */

static void plan_outputs(const char *tag, char **report, char **json, char **lp)
{
    char problem[1024], r_path[1024], j_path[1024], l_path[1024], name[64];
    pp_source_path(PP_EXAMPLE, problem, sizeof problem);
    snprintf(name, sizeof name, "det-%s.md", tag);
    pp_temp_path(name, r_path, sizeof r_path);
    snprintf(name, sizeof name, "det-%s.json", tag);
    pp_temp_path(name, j_path, sizeof j_path);
    snprintf(name, sizeof name, "det-%s.lp", tag);
    pp_temp_path(name, l_path, sizeof l_path);
    const char *args[] = {"plan", problem, "--top", "3", "-o", r_path, "--json", j_path, "--export-lp", l_path, NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL(pp_run_code(args, &r), 0);
    pp_run_free(&r);
    *report = pp_slurp(r_path);
    *json = pp_slurp(j_path);
    *lp = pp_slurp(l_path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(*report);
    CU_ASSERT_PTR_NOT_NULL_FATAL(*json);
    CU_ASSERT_PTR_NOT_NULL_FATAL(*lp);
}

static void test_plan_deterministic(void)
{
    char *r1, *j1, *l1, *r2, *j2, *l2;
    plan_outputs("a", &r1, &j1, &l1);
    plan_outputs("b", &r2, &j2, &l2);
    CU_ASSERT_STRING_EQUAL(r1, r2);
    CU_ASSERT_STRING_EQUAL(l1, l2);
    char *s1 = without_solve_time(j1), *s2 = without_solve_time(j2);
    CU_ASSERT_STRING_EQUAL(s1, s2);
    CU_ASSERT_TRUE(strlen(s1) + 20 < strlen(j1)); /* the line was there */
    free(s1);
    free(s2);
    free(r1);
    free(j1);
    free(l1);
    free(r2);
    free(j2);
    free(l2);
}

/* ---- sizes --------------------------------------------------------------------- */

/* About 1e14 parameters (12 L h^2 with L = 1024, h = 90112), a vocabulary
 * of 2^24, 80 million GPUs and a batch of 2^40 sequences. */
#define ABSURD_MODEL                                                                                               \
    "\"model\": {\"name\": \"100T\", \"layers\": 1024, \"hidden\": 90112, \"heads\": 88, \"vocab\": 16777216, "  \
    "\"seq_len\": 8192}"
#define ABSURD_CLUSTER "\"cluster\": {\"gpu\": \"h200-sxm-141gb\", \"gpus_per_node\": 8, \"nodes\": 10000000}"

static void expect_quick(const char *const *args, int code_a, int code_b, const char *needle, double limit_s)
{
    pp_run_result r;
    double t0 = now_s();
    int code = pp_run_code(args, &r);
    double took = now_s() - t0;
    char note[1600];
    snprintf(note, sizeof note, "%s: exit %d after %.1f s: %.1200s", args[1], code, took, r.err);
    CU_assertImplementation(code == code_a || code == code_b, __LINE__, note, __FILE__, "", CU_FALSE);
    CU_assertImplementation(took < limit_s, __LINE__, note, __FILE__, "", CU_FALSE);
    if (needle)
        CU_assertImplementation(strstr(r.err, needle) || strstr(r.out, needle), __LINE__, note, __FILE__, "",
                                CU_FALSE);
    pp_run_free(&r);
}

static void test_absurd_sizes(void)
{
    char problem[1024], batch[1024], plan[1024], fits[1024];
    pp_write_temp("absurd.json",
                  "{" ABSURD_MODEL ", " ABSURD_CLUSTER ", \"training\": {\"global_batch\": 1099511627776}}", problem,
                  sizeof problem);
    pp_write_temp("absurd-batch.json",
                  "{" ABSURD_MODEL ", \"cluster\": {\"gpu\": \"h200-sxm-141gb\", \"gpus_per_node\": 8, "
                  "\"nodes\": 8388608}, \"training\": {\"global_batch\": 1099511627776}}",
                  batch, sizeof batch);
    /* A plan that divides everything: 8 x 1024 x 8192, 1024 micro-batches. */
    pp_write_temp("absurd.plan.json", "{\"tp\": 8, \"pp\": 1024, \"dp\": 8192, \"micro_batch\": 131072}", plan,
                  sizeof plan);
    pp_write_temp("fits.json",
                  "{\"model\": \"gpt3-175b\", " ABSURD_CLUSTER ", \"training\": {\"global_batch\": 1099511627776, "
                  "\"tokens\": 1e18}}",
                  fits, sizeof fits);
    const double limit_s = 60; /* seconds, even under the sanitizers and a busy machine */
    const char *eval[] = {"eval", batch, "--plan", plan, "--json", "-", NULL};
    expect_quick(eval, 0, 0, "\"status\":\t\"evaluated\"", limit_s);
    const char *plan_absurd[] = {"plan", problem, "--json", "-", NULL};
    expect_quick(plan_absurd, 3, 3, "infeasible", limit_s);
    const char *plan_batch[] = {"plan", batch, "--json", "-", NULL};
    expect_quick(plan_batch, 0, 3, "\"status\"", limit_s);
    const char *plan_fits[] = {"plan", fits, "--json", "-", NULL};
    expect_quick(plan_fits, 0, 3, "\"status\"", limit_s);
    const char *enumerate[] = {"plan", batch, "--method", "enumerate", "--json", "-", NULL};
    expect_quick(enumerate, 0, 3, NULL, limit_s);
    /* Tensor parallelism may cross nodes: every divisor of 2^29 GPUs is a
     * candidate degree (found by trial division of each number up to 2^29,
     * 338 s, before the divisors were listed in O(sqrt n)). */
    char across[1024];
    pp_write_temp("across.json",
                  "{\"model\": {\"name\": \"many\", \"layers\": 1024, \"hidden\": 4096, \"heads\": 1024, "
                  "\"vocab\": 16777216, \"seq_len\": 8192}, \"cluster\": {\"gpu\": \"h100-sxm5-80gb\", "
                  "\"gpus_per_node\": 64, \"nodes\": 8388608}, \"training\": {\"global_batch\": 1099511627776}, "
                  "\"constraints\": {\"allow_tp_across_nodes\": true}}",
                  across, sizeof across);
    const char *plan_across[] = {"plan", across, "--json", "-", NULL};
    expect_quick(plan_across, 0, 3, "\"status\"", limit_s);
}

/* ---- GLPK ------------------------------------------------------------------------ */

/* Check one outcome of a limited search: an error that names the limit, or
 * a result that is optimal with no gap, or time_limit with a positive gap,
 * rendered as such.  Returns 1 for a stopped search. */
static int check_limited(const pp_problem *prob, int rc, const pp_error *err, const pp_plan_result *res,
                         const char *limit_word)
{
    if (rc != PP_OK) {
        CU_ASSERT_EQUAL(rc, PP_EINTERNAL);
        PP_ASSERT_CONTAINS(err->msg, limit_word);
        return 0;
    }
    if (res->status == PP_STATUS_OPTIMAL) {
        CU_ASSERT_EQUAL(res->cert.gap, 0);
        return 0;
    }
    CU_ASSERT_EQUAL_FATAL(res->status, PP_STATUS_TIME_LIMIT);
    CU_ASSERT_TRUE(res->cert.gap > 0 && res->cert.gap <= 1);
    CU_ASSERT_TRUE(res->cert.best_bound_s <= res->cert.objective_s);
    return 1;
}

/* A search stopped by its node limit (deterministic, where a clock is not):
 * whatever the limit, the answer is a clear error, a proven optimum, or
 * time_limit with its gap; never a crash or an unproven "optimal". */
static void test_node_limited_search(void)
{
    pp_catalog cat;
    pp_problem prob;
    pp_error err;
    pp_load_catalog(&cat);
    pp_load_problem(PP_EXAMPLE, &cat, &prob);
    for (long limit = 1; limit <= 16; limit *= 2) {
        pp_plan_options opt;
        pp_plan_options_init(&opt);
        opt.node_limit = limit;
        pp_plan_result res;
        pp_error_clear(&err);
        int rc = pp_plan_solve(&prob, &opt, &res, &err);
        check_limited(&prob, rc, &err, &res, "node limit");
        pp_plan_result_free(&res);
    }
    pp_catalog_free(&cat);
}

/* The same through the command line with a time limit of a millisecond. */
static void test_time_limited_search(void)
{
    char problem[1024];
    pp_source_path(PP_EXAMPLE, problem, sizeof problem);
    const char *args[] = {"plan", problem, "--time-limit", "0.001", "--json", "-", NULL};
    pp_run_result r;
    int code = pp_run_code(args, &r);
    CU_ASSERT_TRUE(code == 0 || code == 1);
    if (code == 1) {
        PP_ASSERT_CONTAINS(r.err, "time limit");
        CU_ASSERT_STRING_EQUAL(r.out, "");
    } else {
        cJSON *doc = cJSON_Parse(r.out);
        CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
        const char *status = cJSON_GetObjectItemCaseSensitive(doc, "status")->valuestring;
        const cJSON *cert = cJSON_GetObjectItemCaseSensitive(doc, "certificate");
        double gap = cJSON_GetObjectItemCaseSensitive(cert, "gap")->valuedouble;
        CU_ASSERT_TRUE((strcmp(status, "optimal") == 0 && gap == 0) || (strcmp(status, "time_limit") == 0 && gap > 0));
        cJSON_Delete(doc);
    }
    pp_run_free(&r);
}

/* A stopped search renders as time_limit with its gap and bound, never as
 * optimal, in the JSON and in the report. */
static void test_time_limit_rendering(void)
{
    pp_catalog cat;
    pp_problem prob;
    pp_error err;
    pp_load_catalog(&cat);
    pp_load_problem(PP_EXAMPLE, &cat, &prob);
    pp_plan_result res;
    CU_ASSERT_EQUAL_FATAL(pp_plan_solve(&prob, NULL, &res, &err), PP_OK);
    res.status = PP_STATUS_TIME_LIMIT; /* as if stopped with this incumbent */
    res.cert.best_bound_s = 0.8 * res.cert.objective_s;
    res.cert.gap = 0.2;
    CU_ASSERT_EQUAL(check_limited(&prob, PP_OK, &err, &res, ""), 1);
    cJSON *doc = pp_json_plan_result(&prob, &res);
    pp_strbuf js;
    pp_sb_init(&js);
    CU_ASSERT_EQUAL(pp_json_render(doc, &js), 0);
    PP_ASSERT_CONTAINS(pp_sb_str(&js), "\"status\":\t\"time_limit\"");
    PP_ASSERT_CONTAINS(pp_sb_str(&js), "\"gap\":\t0.2");
    CU_ASSERT_PTR_NULL(strstr(pp_sb_str(&js), "\"optimal\""));
    pp_sb_free(&js);
    cJSON_Delete(doc);
    pp_strbuf md;
    pp_sb_init(&md);
    pp_report_plan_md(&prob, &res, &md);
    PP_ASSERT_CONTAINS(pp_sb_str(&md), "not proven optimal");
    pp_sb_free(&md);
    pp_plan_result_free(&res);
    pp_catalog_free(&cat);
}

/* Every solve has limits even when the user sets none. */
static void test_limits_always_set(void)
{
    pp_plan_options opt;
    pp_plan_options_init(&opt);
    CU_ASSERT_EQUAL(opt.node_limit, PP_DEFAULT_NODE_LIMIT);
    CU_ASSERT_TRUE(opt.node_limit > 0);
}

/* GLPK's terminal output is captured: standard output holds the report
 * alone, standard error only parplan's own lines. */
static void test_glpk_output_captured(void)
{
    char problem[1024];
    pp_source_path(PP_EXAMPLE, problem, sizeof problem);
    const char *args[] = {"plan", problem, "--top", "2", NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL(pp_run_code(args, &r), 0);
    CU_ASSERT_EQUAL(strncmp(r.out, "# parplan", 9), 0);
    const char *glpk_words[] = {"GLPK Integer Optimizer", "glp_", "Long-step", "INTEGER OPTIMAL", "+ ", NULL};
    for (int i = 0; glpk_words[i]; i++)
        CU_ASSERT_PTR_NULL(strstr(r.err, glpk_words[i]));
    for (const char *line = r.err; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        CU_ASSERT_EQUAL(strncmp(line, "parplan: ", 9), 0);
    pp_run_free(&r);
}

int main(void)
{
    static const pp_test tests[] = {
        {"outputs replace their target by a rename", test_outputs_replace_by_rename},
        {"exports replace their target by a rename", test_exports_replace_by_rename},
        {"plan leaves its inputs alone", test_plan_leaves_inputs_alone},
        {"plan is byte-identical run to run", test_plan_deterministic},
        {"absurd sizes end quickly", test_absurd_sizes},
        {"a node-limited search: error, optimum or time_limit", test_node_limited_search},
        {"a time-limited search: error, optimum or time_limit", test_time_limited_search},
        {"a stopped search renders as time_limit", test_time_limit_rendering},
        {"solver limits are always set", test_limits_always_set},
        {"GLPK's output is captured", test_glpk_output_captured},
        {NULL, NULL},
    };
    return pp_test_main("robustness", tests);
}
