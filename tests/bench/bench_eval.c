/*
 * bench_eval.c: how long one cost-model evaluation takes.
 *
 * The planner's enumerator and the MIP builder call the cost model once per
 * candidate plan or joint choice, so its speed bounds theirs.  This prices
 * the default example's published plan (and a sweep of micro-batch sizes)
 * many times and prints nanoseconds per evaluation.  Not a test: it asserts
 * nothing; docs/benchmarks.md records its output and the machine.
 *
 * usage: bench_eval [PROBLEM.json PLAN.json] [iterations]
 */
#include "costmodel.h"
#include "problem.h"
#include "rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    const char *prob_path = argc > 2 ? argv[1] : PARPLAN_SOURCE_DIR "/data/examples/gpt3-175b-1024-a100.json";
    const char *plan_path = argc > 2 ? argv[2] : PARPLAN_SOURCE_DIR "/data/examples/gpt3-175b-1024-a100.plan.json";
    long iters = argc > 3 ? atol(argv[3]) : argc == 2 ? atol(argv[1]) : 1000000;
    pp_catalog cat;
    pp_error err;
    pp_problem prob;
    pp_plan plan;
    if (pp_catalog_load(pp_default_data_dir(), &cat, &err) || pp_problem_load(prob_path, &cat, &prob, &err) ||
        pp_plan_load(plan_path, &prob, &plan, &err) || pp_plan_check(&prob, &plan, &err)) {
        fprintf(stderr, "bench_eval: %s: %s\n", err.path, err.msg);
        pp_catalog_free(&cat);
        return 1;
    }
    pp_eval ev;
    double sink = 0, t0 = now_s();
    for (long i = 0; i < iters; i++) {
        pp_evaluate(&prob, &plan, &ev);
        sink += ev.time.step_s;
    }
    double full_ns = (now_s() - t0) / iters * 1e9;
    t0 = now_s();
    for (long i = 0; i < iters; i++)
        sink += pp_step_time_s(&prob, &plan);
    double step_ns = (now_s() - t0) / iters * 1e9;
    printf("| what | ns per call |\n|---|---|\n");
    printf("| pp_evaluate (time + memory + throughput) | %.0f |\n", full_ns);
    printf("| pp_step_time_s (time only) | %.0f |\n", step_ns);
    printf("\n(%ld iterations; checksum %.6g)\n", iters, sink / iters);
    pp_catalog_free(&cat);
    return 0;
}
