/*
 * fuzz_plan.c: libFuzzer harness of the plan loader.
 *
 * The input is the text of a PLAN.json.  It is read for three fixed problems
 * (the default example on 1024 GPUs, a small 8-GPU one, and a capacity
 * problem without a cluster, where dp cannot be derived) and each accepted
 * plan goes through the rules (pp_plan_check).  A plan the rules accept must
 * price to finite, positive numbers, and the PLAN.json of the result must
 * read back as the same plan.
 */
#include "fuzz_common.h"

#include "costmodel.h"
#include "result_json.h"
#include "rules.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const problem_files[] = {
    PP_EXAMPLE,
    PP_SMALL_EXAMPLE,
    "data/examples/llama3-70b-capacity.json",
};
#define N_PROBLEMS ((int)(sizeof problem_files / sizeof problem_files[0]))

static pp_problem problems[N_PROBLEMS];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    for (int i = 0; i < N_PROBLEMS; i++) {
        char path[1024];
        pp_error err;
        pp_source_path(problem_files[i], path, sizeof path);
        if (pp_problem_load(path, pp_fuzz_catalog(), &problems[i], &err) != PP_OK) {
            fprintf(stderr, "parplan fuzz: %s: %s\n", err.path, err.msg);
            exit(1);
        }
    }
    return 0;
}

static bool same_plan(const pp_plan *a, const pp_plan *b)
{
    return a->tp == b->tp && a->pp == b->pp && a->dp == b->dp && a->cp == b->cp && a->micro_batch == b->micro_batch &&
           a->virtual_stages == b->virtual_stages && a->zero == b->zero && a->recompute == b->recompute &&
           a->sequence_parallel == b->sequence_parallel && a->tp_mode == b->tp_mode && a->tp_depth == b->tp_depth &&
           memcmp(a->codec, b->codec, sizeof a->codec) == 0;
}

/* The result's plan object is a PLAN.json that reads back unchanged. */
static void check_round_trip(const pp_problem *prob, const pp_plan *plan)
{
    cJSON *doc = pp_json_plan(prob, plan);
    if (!doc)
        pp_fuzz_fail("pp_json_plan", "no document");
    char *text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    if (!text)
        pp_fuzz_fail("pp_json_plan", "cannot print");
    pp_plan again;
    pp_error err;
    pp_error_clear(&err);
    int rc = pp_plan_parse(text, "result.plan", prob, &again, &err);
    if (rc != PP_OK || !same_plan(plan, &again)) {
        fprintf(stderr, "%s\n%s: %s\n", text, err.path, err.msg);
        pp_fuzz_fail("plan round trip", "the result's plan does not read back as the same plan");
    }
    cJSON_free(text);
}

static void check_priced(const pp_problem *prob, const pp_plan *plan)
{
    pp_eval ev;
    pp_evaluate(prob, plan, &ev);
    if (!isfinite(ev.time.step_s) || !(ev.time.step_s > 0))
        pp_fuzz_fail("pp_evaluate", "a step time that is not finite and positive");
    if (!isfinite(ev.mem.total_gib) || ev.mem.total_gib < 0)
        pp_fuzz_fail("pp_evaluate", "a memory total that is not finite");
    if (ev.microbatches < 1)
        pp_fuzz_fail("pp_evaluate", "fewer than one micro-batch");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = pp_fuzz_text(data, size);
    for (int i = 0; i < N_PROBLEMS; i++) {
        pp_plan plan;
        pp_error err;
        pp_error_clear(&err);
        int rc = pp_plan_parse(text, "plan.json", &problems[i], &plan, &err);
        pp_fuzz_check_outcome("pp_plan_parse", rc, &err);
        if (rc != PP_OK)
            continue;
        pp_error_clear(&err);
        rc = pp_plan_check(&problems[i], &plan, &err);
        pp_fuzz_check_outcome("pp_plan_check", rc, &err);
        if (rc == PP_OK) {
            check_priced(&problems[i], &plan);
            check_round_trip(&problems[i], &plan);
        }
    }
    free(text);
    return 0;
}
