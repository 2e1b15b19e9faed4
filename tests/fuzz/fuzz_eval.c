/*
 * fuzz_eval.c: libFuzzer harness of the whole `parplan eval` path.
 *
 * The input is a PROBLEM.json and a PLAN.json separated by a line "---"
 * (without it, the whole input is the problem and the plan is
 * {"tp": 1, "pp": 1}).  It runs what `eval` runs between reading the files
 * and writing the outputs: pp_problem_parse, pp_plan_parse, pp_plan_check,
 * pp_evaluate, the Markdown report and the result JSON.  What is priced must
 * be finite (no null in the JSON), the JSON must parse back, and rendering
 * twice must give the same bytes (determinism).
 */
#include "fuzz_common.h"

#include "costmodel.h"
#include "report_md.h"
#include "result_json.h"
#include "rules.h"
#include "strbuf.h"
#include "testutil.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEPARATOR "\n---\n"
#define DEFAULT_PLAN "{\"tp\": 1, \"pp\": 1}"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    pp_fuzz_catalog();
    return 0;
}

/* Render the report and the JSON; returns them in md and js. */
static void render(const pp_problem *prob, const pp_plan *plan, const pp_eval *ev, pp_strbuf *md, pp_strbuf *js)
{
    pp_sb_init(md);
    pp_sb_init(js);
    pp_report_eval_md(prob, plan, ev, md);
    cJSON *doc = pp_json_eval(prob, plan, ev);
    if (!doc || pp_json_render(doc, js) != 0 || md->failed || js->failed)
        pp_fuzz_fail("render", "out of memory or no document");
    cJSON_Delete(doc);
}

static void check_rendered(const pp_strbuf *md, const pp_strbuf *js)
{
    const char *report = pp_sb_str(md);
    if (md->len == 0 || report[md->len - 1] != '\n' || strlen(report) != md->len)
        pp_fuzz_fail("report", "empty, not newline-terminated or holding a NUL byte");
    cJSON *back = cJSON_Parse(pp_sb_str(js));
    if (!back)
        pp_fuzz_fail("result JSON", "does not parse back");
    if (pp_json_has_null(back)) {
        fprintf(stderr, "%s", pp_sb_str(js));
        pp_fuzz_fail("result JSON", "a null (a number that was not finite)");
    }
    cJSON_Delete(back);
}

static void eval_path(const pp_problem *prob, const char *plan_text)
{
    pp_plan plan;
    pp_error err;
    pp_error_clear(&err);
    int rc = pp_plan_parse(plan_text, "plan.json", prob, &plan, &err);
    pp_fuzz_check_outcome("pp_plan_parse", rc, &err);
    if (rc != PP_OK)
        return;
    pp_error_clear(&err);
    rc = pp_plan_check(prob, &plan, &err);
    pp_fuzz_check_outcome("pp_plan_check", rc, &err);
    if (rc != PP_OK)
        return;
    pp_eval ev;
    pp_evaluate(prob, &plan, &ev);
    if (!isfinite(ev.time.step_s) || !(ev.time.step_s > 0) || !isfinite(ev.mem.total_gib))
        pp_fuzz_fail("pp_evaluate", "a step time or memory that is not finite");
    pp_strbuf md1, js1, md2, js2;
    render(prob, &plan, &ev, &md1, &js1);
    render(prob, &plan, &ev, &md2, &js2);
    if (md1.len != md2.len || memcmp(pp_sb_str(&md1), pp_sb_str(&md2), md1.len) != 0 || js1.len != js2.len ||
        memcmp(pp_sb_str(&js1), pp_sb_str(&js2), js1.len) != 0)
        pp_fuzz_fail("render", "two renderings of the same result differ");
    check_rendered(&md1, &js1);
    pp_sb_free(&md1);
    pp_sb_free(&js1);
    pp_sb_free(&md2);
    pp_sb_free(&js2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = pp_fuzz_text(data, size);
    char *sep = strstr(text, SEPARATOR);
    const char *plan_text = DEFAULT_PLAN;
    if (sep) {
        *sep = '\0';
        plan_text = sep + strlen(SEPARATOR);
    }
    if (pp_fuzz_hf_paths_safe(text)) {
        pp_problem prob;
        pp_error err;
        pp_error_clear(&err);
        int rc = pp_problem_parse(text, "problem.json", pp_fuzz_hf_dir(), pp_fuzz_catalog(), &prob, &err);
        pp_fuzz_check_outcome("pp_problem_parse", rc, &err);
        if (rc == PP_OK)
            eval_path(&prob, plan_text);
    }
    free(text);
    return 0;
}
