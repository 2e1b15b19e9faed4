/*
 * test_report_md.c: the Markdown reports (reports/report_md.c).
 *
 * The reports are checked for what a reader relies on: the plan line, the
 * tables whose parts add up, a clear word when a plan does not fit, the
 * certificate, and escaping that keeps hostile names from breaking tables.
 */
#include "costmodel.h"
#include "planner.h"
#include "problem.h"
#include "report_md.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

static char *escaped(const char *s)
{
    pp_strbuf sb;
    pp_sb_init(&sb);
    pp_md_escape(&sb, s);
    return sb.data ? sb.data : calloc(1, 1);
}

static void test_escape(void)
{
    char *e = escaped("a|b`c*d_e[f]g<h>i#j\\k&l~m!n");
    CU_ASSERT_STRING_EQUAL(e, "a\\|b\\`c\\*d\\_e\\[f\\]g\\<h\\>i\\#j\\\\k\\&l\\~m\\!n");
    free(e);
    e = escaped("line one\nline two\r\tend");
    CU_ASSERT_STRING_EQUAL(e, "line one line two  end");
    free(e);
    e = escaped("plain text, 1.5 (ok)");
    CU_ASSERT_STRING_EQUAL(e, "plain text, 1.5 (ok)");
    free(e);
}

static void test_plan_line(void)
{
    pp_test_example f;
    pp_test_example_load(&f);
    pp_strbuf sb;
    pp_sb_init(&sb);
    pp_md_plan_line(&sb, &f.prob, &f.plan);
    CU_ASSERT_STRING_EQUAL(pp_sb_str(&sb), "tp=8 pp=16 dp=8 cp=1 micro_batch=1 virtual_stages=1 zero=0 "
                                           "recompute=full sp=off compression dp/tp/pp=none/none/none");
    pp_sb_free(&sb);
    pp_catalog_free(&f.cat);
}

static void test_eval_report(void)
{
    pp_test_example f;
    pp_test_example_load(&f);
    pp_strbuf sb;
    pp_sb_init(&sb);
    CU_ASSERT_EQUAL(pp_report_eval_md(&f.prob, &f.plan, &f.ev, &sb), 0);
    const char *md = pp_sb_str(&sb);
    CU_ASSERT_EQUAL(strncmp(md, "# parplan", 9), 0);
    PP_ASSERT_CONTAINS(md, "**Plan** tp=8 pp=16 dp=8");
    PP_ASSERT_CONTAINS(md, "1024 × ");
    PP_ASSERT_CONTAINS(md, "| predicted step time |");
    PP_ASSERT_CONTAINS(md, "| MFU (model FLOPs utilization) |");
    PP_ASSERT_CONTAINS(md, "| pipeline bubble |");
    PP_ASSERT_CONTAINS(md, "| **step time** |");
    PP_ASSERT_CONTAINS(md, "| capacity | 80.00 |");
    PP_ASSERT_CONTAINS(md, "The plan fits");
    CU_ASSERT_PTR_NULL(strstr(md, "Certificate"));
    CU_ASSERT_PTR_NULL(strstr(md, "nan"));
    pp_sb_free(&sb);
    pp_catalog_free(&f.cat);
}

static void test_does_not_fit(void)
{
    pp_test_example f;
    pp_test_example_load(&f);
    f.ev.mem.total_gib = 90;
    pp_strbuf sb;
    pp_sb_init(&sb);
    pp_report_eval_md(&f.prob, &f.plan, &f.ev, &sb);
    PP_ASSERT_CONTAINS(pp_sb_str(&sb), "**The plan does not fit in memory:** it needs 90.00 GiB");
    PP_ASSERT_CONTAINS(pp_sb_str(&sb), "more than the GPU has at all");
    pp_sb_free(&sb);
    pp_catalog_free(&f.cat);
}

/* Names from input cannot open a heading, a table cell or HTML. */
static void test_hostile_names(void)
{
    pp_test_example f;
    pp_test_example_load(&f);
    snprintf(f.prob.model.name, sizeof f.prob.model.name, "evil | cell\n# heading <script>");
    snprintf(f.prob.cluster.gpu.name, sizeof f.prob.cluster.gpu.name, "gpu`code`*bold*");
    pp_strbuf sb;
    pp_sb_init(&sb);
    pp_report_eval_md(&f.prob, &f.plan, &f.ev, &sb);
    const char *md = pp_sb_str(&sb);
    PP_ASSERT_CONTAINS(md, "evil \\| cell \\# heading \\<script\\>");
    PP_ASSERT_CONTAINS(md, "gpu\\`code\\`\\*bold\\*");
    CU_ASSERT_PTR_NULL(strstr(md, "\n# heading"));
    CU_ASSERT_PTR_NULL(strstr(md, "<script>"));
    pp_sb_free(&sb);
    pp_catalog_free(&f.cat);
}

static pp_plan_result optimal_result(const pp_test_example *f, pp_candidate *runner_ups, int n)
{
    pp_plan_result res;
    memset(&res, 0, sizeof res);
    res.status = PP_STATUS_OPTIMAL;
    res.best.plan = f->plan;
    res.best.eval = f->ev;
    res.runner_ups = runner_ups;
    res.n_runner_ups = n;
    snprintf(res.cert.method, sizeof res.cert.method, "milp");
    snprintf(res.cert.solver, sizeof res.cert.solver, "GLPK 5.0");
    res.cert.objective_s = res.cert.best_bound_s = f->ev.time.step_s;
    res.cert.decision_space = 12345;
    res.cert.rows = 10;
    res.cert.cols = 20;
    res.cert.binaries = 15;
    res.cert.solve_time_s = 0.123456;
    return res;
}

static void test_plan_report(void)
{
    pp_test_example f;
    pp_test_example_load(&f);
    pp_candidate ru = {f.plan, f.ev};
    ru.plan.micro_batch = 2;
    ru.eval.time.step_s = f.ev.time.step_s * 1.01;
    pp_plan_result res = optimal_result(&f, &ru, 1);
    pp_strbuf sb;
    pp_sb_init(&sb);
    CU_ASSERT_EQUAL(pp_report_plan_md(&f.prob, &res, &sb), 0);
    const char *md = pp_sb_str(&sb);
    PP_ASSERT_CONTAINS(md, "# parplan: optimal parallel plan");
    PP_ASSERT_CONTAINS(md, "proved this plan optimal among the 12,345 valid plans");
    PP_ASSERT_CONTAINS(md, "## Certificate");
    PP_ASSERT_CONTAINS(md, "| solver | GLPK 5.0 |");
    PP_ASSERT_CONTAINS(md, "| MIP size | 10 rows, 20 columns (15 binary) |");
    PP_ASSERT_CONTAINS(md, "## Runner-ups");
    PP_ASSERT_CONTAINS(md, "| 2 | tp=8 pp=16 dp=8 cp=1 micro_batch=2");
    PP_ASSERT_CONTAINS(md, "+1.00 %");
    CU_ASSERT_PTR_NULL(strstr(md, "0.123")); /* no run-dependent solve time */
    pp_sb_free(&sb);
    pp_catalog_free(&f.cat);
}

/* Without an explanation (pp_explain_plan) the plan report still says how
 * to run the plan and charts where the time and memory go; the sections
 * that need re-solves are left out. */
static void test_plan_report_without_explanation(void)
{
    pp_test_example f;
    pp_test_example_load(&f);
    pp_plan_result res = optimal_result(&f, NULL, 0);
    pp_strbuf sb;
    pp_sb_init(&sb);
    CU_ASSERT_EQUAL(pp_report_plan_md_ex(&f.prob, &res, NULL, &sb), 0);
    const char *md = pp_sb_str(&sb);
    PP_ASSERT_CONTAINS(md, "## How to run it");
    PP_ASSERT_CONTAINS(md, "--tensor-model-parallel-size 8 \\\n");
    PP_ASSERT_CONTAINS(md, "--recompute-granularity full");
    PP_ASSERT_CONTAINS(md, "\"gradient_accumulation_steps\": 192");
    PP_ASSERT_CONTAINS(md, "```mermaid\npie title Step time of GPT-3 175B");
    PP_ASSERT_CONTAINS(md, "## Inputs and assumptions");
    PP_ASSERT_CONTAINS(md, "glpsol --freemps model.mps");
    CU_ASSERT_PTR_NULL(strstr(md, "## Binding constraints"));
    CU_ASSERT_PTR_NULL(strstr(md, "## Pipeline schedule"));
    pp_sb_free(&sb);
    pp_catalog_free(&f.cat);
}

static void test_time_limit_and_infeasible(void)
{
    pp_test_example f;
    pp_test_example_load(&f);
    pp_plan_result res = optimal_result(&f, NULL, 0);
    res.status = PP_STATUS_TIME_LIMIT;
    res.cert.best_bound_s = f.ev.time.step_s * 0.9;
    res.cert.gap = 0.1;
    pp_strbuf sb;
    pp_sb_init(&sb);
    pp_report_plan_md(&f.prob, &res, &sb);
    PP_ASSERT_CONTAINS(pp_sb_str(&sb), "**not proven optimal**");
    PP_ASSERT_CONTAINS(pp_sb_str(&sb), "within 10.00 %");
    pp_sb_free(&sb);

    memset(&res, 0, sizeof res);
    res.status = PP_STATUS_INFEASIBLE;
    snprintf(res.cert.method, sizeof res.cert.method, "milp");
    res.cert.time_units_per_s = 1e6;
    snprintf(res.infeasible_reason, sizeof res.infeasible_reason, "memory: every plan needs > 80 GiB | per GPU");
    f.prob.cluster.nodes = 1; /* one node, said in the singular everywhere */
    pp_report_plan_md(&f.prob, &res, &sb);
    PP_ASSERT_CONTAINS(pp_sb_str(&sb), "# parplan: no feasible plan");
    PP_ASSERT_CONTAINS(pp_sb_str(&sb), "memory: every plan needs \\> 80 GiB \\| per GPU");
    CU_ASSERT_PTR_NULL(strstr(pp_sb_str(&sb), "## Performance"));
    PP_ASSERT_CONTAINS(pp_sb_str(&sb), "| cluster | 1 node of 8 GPUs");
    CU_ASSERT_PTR_NULL(strstr(pp_sb_str(&sb), "1 nodes"));
    /* no plan, so no optimum to count in MIP units; the check is that the MIP is infeasible too */
    CU_ASSERT_PTR_NULL(strstr(pp_sb_str(&sb), "the optimum above"));
    PP_ASSERT_CONTAINS(pp_sb_str(&sb), "To check with another solver that no plan exists");
    PP_ASSERT_CONTAINS(pp_sb_str(&sb), "glpsol --freemps model.mps");
    pp_sb_free(&sb);
    pp_catalog_free(&f.cat);
}

int main(void)
{
    static const pp_test tests[] = {
        {"escaping of input strings", test_escape},
        {"the plan in one line", test_plan_line},
        {"eval report sections", test_eval_report},
        {"a plan that does not fit says so", test_does_not_fit},
        {"hostile names stay inline", test_hostile_names},
        {"plan report with certificate and runner-ups", test_plan_report},
        {"plan report without an explanation", test_plan_report_without_explanation},
        {"time limit and infeasible reports", test_time_limit_and_infeasible},
        {NULL, NULL},
    };
    return pp_test_main("report_md", tests);
}
