/*
 * bench_planner.c: how the MIP scales against exhaustive enumeration.
 *
 * For each model and cluster size (8 to 16384 GPUs, nodes of 8) it solves the
 * problem with every decision free, with the MIP and with the enumerator,
 * and prints one Markdown table row: the size of the decision space, of the
 * MIP that GLPK solved after screening, both wall times, and whether both
 * found the same step time.  Data come from the catalogs of data/.
 *
 * Usage: bench_planner [DATA_DIR] [--no-enumerate]
 */
#include "error.h"
#include "planner.h"
#include "problem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PARPLAN_SOURCE_DIR
#define PARPLAN_SOURCE_DIR "."
#endif

typedef struct bench_case {
    const char *model, *gpu;
    long global_batch;
} bench_case;

static int solve(const pp_problem *p, pp_method method, pp_plan_result *res, pp_error *err)
{
    pp_plan_options o;
    pp_plan_options_init(&o);
    o.method = method;
    return pp_plan_solve(p, &o, res, err);
}

static void bench_one(const pp_catalog *cat, const bench_case *c, long gpus, bool enumerate)
{
    char json[512];
    snprintf(json, sizeof json,
             "{\"model\": \"%s\", \"cluster\": {\"gpu\": \"%s\", \"gpus_per_node\": %ld, \"nodes\": %ld},"
             " \"training\": {\"global_batch\": %ld}}",
             c->model, c->gpu, gpus < 8 ? gpus : 8L, gpus < 8 ? 1L : gpus / 8, c->global_batch);
    pp_problem p;
    pp_error err;
    if (pp_problem_parse(json, "bench", NULL, cat, &p, &err) != PP_OK) {
        printf("| %s | %ld | input error: %s |\n", c->model, gpus, err.msg);
        return;
    }
    pp_plan_result mip, en;
    int rc_mip = solve(&p, PP_METHOD_MILP, &mip, &err);
    int rc_en = enumerate ? solve(&p, PP_METHOD_ENUMERATE, &en, &err) : rc_mip;
    char step[32], en_ms[32], same[16];
    if (rc_mip == PP_OK)
        snprintf(step, sizeof step, "%.3f", mip.cert.objective_s);
    else
        snprintf(step, sizeof step, "%s", rc_mip == PP_EINFEASIBLE ? "infeasible" : "error");
    snprintf(en_ms, sizeof en_ms, enumerate ? "%.0f" : "-", 1e3 * (enumerate ? en.cert.solve_time_s : 0));
    if (!enumerate)
        snprintf(same, sizeof same, "-");
    else if (rc_mip != rc_en)
        snprintf(same, sizeof same, "**no**");
    else
        snprintf(same, sizeof same, "%s",
                 rc_mip != PP_OK || fabs(mip.cert.objective_s - en.cert.objective_s) <=
                                        1e-9 * en.cert.objective_s
                     ? "yes"
                     : "**no**");
    printf("| %s | %s | %ld | %.3g | %ld | %d x %d | %ld | %.1f | %s | %s | %s |\n", c->model, c->gpu, gpus,
           mip.cert.decision_space, mip.cert.shapes_screened, mip.cert.rows, mip.cert.cols, mip.cert.nodes,
           1e3 * mip.cert.solve_time_s, en_ms, step, same);
    fflush(stdout);
    pp_plan_result_free(&mip);
    if (enumerate)
        pp_plan_result_free(&en);
}

int main(int argc, char **argv)
{
    const char *data = PARPLAN_SOURCE_DIR "/data";
    bool enumerate = true;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--no-enumerate") == 0)
            enumerate = false;
        else
            data = argv[i];
    }
    pp_catalog cat;
    pp_error err;
    if (pp_catalog_load(data, &cat, &err) != PP_OK) {
        fprintf(stderr, "bench_planner: %s: %s\n", err.path, err.msg);
        return 1;
    }
    const bench_case cases[] = {
        {"gpt3-175b", "a100-sxm4-80gb", 1536},
        {"llama3-70b", "h100-sxm5-80gb", 2048},
        {"llama2-7b", "a100-sxm4-80gb", 1024},
    };
    printf("| model | GPU | GPUs | plans in space | shapes screened | MIP rows x cols | B&B nodes | MIP ms |"
           " enumerate ms | step s | same optimum |\n");
    printf("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (long gpus = 8; gpus <= 16384; gpus *= 2)
            bench_one(&cat, &cases[i], gpus, enumerate);
    pp_catalog_free(&cat);
    return 0;
}
