/*
 * test_result_json.c: the result JSON (reports/result_json.c) against the
 * contract's keys, for eval, an optimal plan, a time limit and infeasibility.
 */
#include "costmodel.h"
#include "planner.h"
#include "problem.h"
#include "result_json.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const cJSON *get(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

static void assert_keys(const cJSON *o, const char *const *keys)
{
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    for (int i = 0; keys[i]; i++)
        CU_ASSERT_PTR_NOT_NULL(get(o, keys[i]));
}

static void test_eval_keys(void)
{
    pp_test_example f;
    pp_test_example_load(&f);
    cJSON *doc = pp_json_eval(&f.prob, &f.plan, &f.ev);
    static const char *const top[] = {"status", "plan", "gpus", "step_time_s", "time_s", "throughput",
                                      "memory_gib", "problem", NULL};
    static const char *const plan[] = {"tp", "pp", "dp", "cp", "micro_batch", "virtual_stages", "zero",
                                       "recompute", "sequence_parallel", "tp_mode", "compression", NULL};
    static const char *const time[] = {"compute", "bubble", "exposed_comm", "compression", "optimizer",
                                       "exposed_comm_by_dim", NULL};
    static const char *const thr[] = {"tokens_per_s", "model_tflops_per_gpu", "mfu", "hardware_tflops_per_gpu",
                                      NULL};
    static const char *const mem[] = {"weights", "gradients", "optimizer", "activations", "other", "total",
                                      "capacity", "usable", NULL};
    assert_keys(doc, top);
    assert_keys(get(doc, "plan"), plan);
    assert_keys(get(doc, "time_s"), time);
    assert_keys(get(doc, "throughput"), thr);
    assert_keys(get(doc, "memory_gib"), mem);
    CU_ASSERT_STRING_EQUAL(get(doc, "status")->valuestring, "evaluated");
    CU_ASSERT_PTR_NULL(get(doc, "certificate"));
    const cJSON *pr = get(doc, "problem");
    CU_ASSERT_STRING_EQUAL(get(get(pr, "cluster"), "gpu")->valuestring, "a100-sxm4-80gb");
    CU_ASSERT_EQUAL(get(get(pr, "cluster"), "nodes")->valuedouble, 128);
    CU_ASSERT_EQUAL(get(get(pr, "training"), "global_batch")->valuedouble, 1536);
    CU_ASSERT_STRING_EQUAL(get(get(pr, "training"), "precision")->valuestring, "bf16");
    cJSON_Delete(doc);
    pp_catalog_free(&f.cat);
}

/* Codecs are written by id, so the plan object reads back as PLAN.json. */
static void test_plan_codecs_by_id(void)
{
    pp_test_example f;
    pp_test_example_load(&f);
    CU_ASSERT_FATAL(f.prob.n_codecs >= 2);
    f.plan.codec[PP_DIM_DP] = f.prob.n_codecs - 1;
    cJSON *plan = pp_json_plan(&f.prob, &f.plan);
    const cJSON *comp = get(plan, "compression");
    CU_ASSERT_STRING_EQUAL(get(comp, "dp")->valuestring, f.prob.codecs[f.prob.n_codecs - 1].id);
    CU_ASSERT_STRING_EQUAL(get(comp, "tp")->valuestring, "none");
    char *text = cJSON_Print(plan);
    pp_plan back;
    pp_error err;
    CU_ASSERT_EQUAL(pp_plan_parse(text, "round trip", &f.prob, &back, &err), 0);
    CU_ASSERT_EQUAL(memcmp(back.codec, f.plan.codec, sizeof back.codec), 0);
    CU_ASSERT_EQUAL(back.tp, f.plan.tp);
    CU_ASSERT_EQUAL(back.recompute, f.plan.recompute);
    cJSON_free(text);
    cJSON_Delete(plan);
    pp_catalog_free(&f.cat);
}

/* Whether a JSON text holds an infinite number as a bare token (inf,
 * -inf, Infinity: a value, not part of a string like "pretrain_config"). */
static bool bare_infinity(const char *text)
{
    for (const char *c = text; *c; c++) {
        if (strncasecmp(c, "inf", 3) != 0)
            continue;
        const char *b = c;
        while (b > text && (b[-1] == ' ' || b[-1] == '-' || b[-1] == '\n' || b[-1] == '\t'))
            b--;
        if (b > text && (b[-1] == ':' || b[-1] == '[' || b[-1] == ','))
            return true;
    }
    return false;
}

static void test_plan_result(void)
{
    pp_test_example f;
    pp_test_example_load(&f);
    pp_candidate ru[2] = {{f.plan, f.ev}, {f.plan, f.ev}};
    ru[0].eval.time.step_s *= 1.5;
    ru[1].eval.time.step_s *= 2;
    pp_plan_result res;
    memset(&res, 0, sizeof res);
    res.status = PP_STATUS_TIME_LIMIT;
    res.best.plan = f.plan;
    res.best.eval = f.ev;
    res.runner_ups = ru;
    res.n_runner_ups = 2;
    snprintf(res.cert.method, sizeof res.cert.method, "milp");
    res.cert.gap = INFINITY; /* must not become a bare Infinity */
    res.cert.solve_time_s = 1.5;
    cJSON *doc = pp_json_plan_result(&f.prob, &res);
    CU_ASSERT_STRING_EQUAL(get(doc, "status")->valuestring, "time_limit");
    const cJSON *cert = get(doc, "certificate");
    static const char *const keys[] = {"method", "solver", "status", "objective_s", "best_bound_s", "gap",
                                       "lp_relaxation_s", "nodes", "plans_evaluated", "decision_space",
                                       "rows", "cols", "binaries", "solve_time_s", NULL};
    assert_keys(cert, keys);
    CU_ASSERT_TRUE(cJSON_IsNull(get(cert, "gap")));
    const cJSON *rus = get(doc, "runner_ups");
    CU_ASSERT_EQUAL(cJSON_GetArraySize(rus), 2);
    CU_ASSERT_DOUBLE_EQUAL(get(cJSON_GetArrayItem(rus, 0), "gap_to_best")->valuedouble, 0.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(get(cJSON_GetArrayItem(rus, 1), "gap_to_best")->valuedouble, 1.0, 1e-12);
    CU_ASSERT_PTR_NOT_NULL(get(cJSON_GetArrayItem(rus, 1), "plan"));
    char *text = cJSON_Print(doc);
    CU_ASSERT_FALSE(bare_infinity(text)); /* inf, Infinity */
    CU_ASSERT_PTR_NULL(strstr(text, "NaN"));
    cJSON_free(text);
    cJSON_Delete(doc);
    pp_catalog_free(&f.cat);
}

static void test_infeasible(void)
{
    pp_test_example f;
    pp_test_example_load(&f);
    pp_plan_result res;
    memset(&res, 0, sizeof res);
    res.status = PP_STATUS_INFEASIBLE;
    snprintf(res.infeasible_reason, sizeof res.infeasible_reason, "memory: no plan fits");
    cJSON *doc = pp_json_plan_result(&f.prob, &res);
    CU_ASSERT_STRING_EQUAL(get(doc, "status")->valuestring, "infeasible");
    CU_ASSERT_STRING_EQUAL(get(doc, "infeasible_reason")->valuestring, "memory: no plan fits");
    CU_ASSERT_PTR_NULL(get(doc, "plan"));
    CU_ASSERT_PTR_NOT_NULL(get(doc, "certificate"));
    CU_ASSERT_EQUAL(cJSON_GetArraySize(get(doc, "runner_ups")), 0);
    cJSON_Delete(doc);
    pp_catalog_free(&f.cat);
}

static void test_render(void)
{
    pp_test_example f;
    pp_test_example_load(&f);
    cJSON *doc = pp_json_eval(&f.prob, &f.plan, &f.ev);
    pp_strbuf a, b;
    pp_sb_init(&a);
    pp_sb_init(&b);
    CU_ASSERT_EQUAL(pp_json_render(doc, &a), 0);
    CU_ASSERT_EQUAL(pp_json_render(doc, &b), 0);
    CU_ASSERT_STRING_EQUAL(a.data, b.data);
    CU_ASSERT_EQUAL(a.data[a.len - 1], '\n');
    cJSON *back = cJSON_Parse(a.data);
    CU_ASSERT_PTR_NOT_NULL(back);
    cJSON_Delete(back);
    pp_sb_free(&a);
    pp_sb_free(&b);
    cJSON_Delete(doc);
    pp_catalog_free(&f.cat);
}

int main(void)
{
    static const pp_test tests[] = {
        {"eval result has the contract's keys", test_eval_keys},
        {"plan compression is written by codec id", test_plan_codecs_by_id},
        {"plan result: certificate, runner-ups, no Infinity", test_plan_result},
        {"infeasible result says why", test_infeasible},
        {"rendering is deterministic", test_render},
        {NULL, NULL},
    };
    return pp_test_main("result_json", tests);
}
