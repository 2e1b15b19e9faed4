/*
 * bench_capacity.c: wall and CPU time of a capacity sweep.
 *
 * Solves capacity problems of 3 GPU kinds (A100-80GB, H100, H200) x 1 to
 * 2048 nodes REPEAT times each and prints one Markdown table row per problem:
 * clusters considered, clusters with a plan (each one exact MIP solve), the
 * answer, and the median wall and CPU seconds.  The problems are
 * data/examples/llama3-70b-capacity.json (the worked example of
 * docs/capacity.md) and GPT-3 175B with a global batch of 1536, whose batch
 * and layer count have more divisors and so leave more clusters with a plan.
 * The target is under 2 s on the development machine (docs/capacity.md).
 * CPU time is printed too because wall time on a shared machine includes
 * other people's work.
 *
 * Usage: bench_capacity [REPEAT] [PROBLEM.json]...
 */
#include "capacity.h"
#include "error.h"
#include "problem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef PARPLAN_SOURCE_DIR
#define PARPLAN_SOURCE_DIR "."
#endif

#define MAX_REPEAT 101

static const char GPT3_PROBLEM[] =
    "{ \"model\": \"gpt3-175b\","
    "  \"training\": { \"global_batch\": 1536, \"precision\": \"bf16\", \"tokens\": 3e11 },"
    "  \"capacity\": {"
    "    \"gpus\": [ { \"gpu\": \"a100-sxm4-80gb\", \"usd_per_gpu_hour\": 1.8 },"
    "              { \"gpu\": \"h100-sxm5-80gb\", \"usd_per_gpu_hour\": 3.2 },"
    "              { \"gpu\": \"h200-sxm-141gb\", \"usd_per_gpu_hour\": 4.0 } ],"
    "    \"nodes\": { \"min\": 1, \"max\": 2048 }, \"deadline_days\": 30 },"
    "  \"objective\": \"min_cost\" }";

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void bench(const char *label, const pp_problem *prob, int repeat)
{
    double wall[MAX_REPEAT], cpu[MAX_REPEAT];
    char answer[200] = "";
    long clusters = 0;
    int with_plan = 0;
    for (int r = 0; r < repeat; r++) {
        pp_capacity_result res;
        pp_error err;
        double c0 = cpu_s();
        int rc = pp_capacity_solve(prob, NULL, &res, &err);
        cpu[r] = cpu_s() - c0;
        wall[r] = res.solve_time_s;
        clusters = res.clusters_considered;
        with_plan = res.n_points;
        if (rc == PP_OK) {
            const pp_capacity_point *p = &res.points[res.chosen];
            snprintf(answer, sizeof answer, "%ld nodes of %s, %.1f days, %.0f USD", p->nodes,
                     prob->capacity.gpus[p->kind].gpu.id, p->time_to_train_days, p->cost_usd);
        } else {
            snprintf(answer, sizeof answer, "%.150s", rc == PP_EINFEASIBLE ? "infeasible" : err.msg);
        }
        pp_capacity_result_free(&res);
    }
    qsort(wall, (size_t)repeat, sizeof wall[0], cmp_double);
    qsort(cpu, (size_t)repeat, sizeof cpu[0], cmp_double);
    printf("| %s | %ld | %d | %s | %.3f | %.3f | %.3f |\n", label, clusters, with_plan, answer, wall[repeat / 2],
           wall[0], cpu[repeat / 2]);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int repeat = 5;
    int first_file = 1;
    if (argc > 1 && atoi(argv[1]) > 0) {
        repeat = atoi(argv[1]) < MAX_REPEAT ? atoi(argv[1]) : MAX_REPEAT;
        first_file = 2;
    }
    pp_catalog cat;
    pp_error err;
    if (pp_catalog_load(PARPLAN_SOURCE_DIR "/data", &cat, &err) != PP_OK) {
        fprintf(stderr, "bench_capacity: %s: %s\n", err.path, err.msg);
        return 1;
    }
    pp_problem *prob = malloc(sizeof *prob);
    if (!prob) {
        pp_catalog_free(&cat);
        return 1;
    }
    printf("| problem | clusters | with a plan | answer | median wall s | best wall s | median CPU s |\n"
           "| --- | ---: | ---: | --- | ---: | ---: | ---: |\n");
    int status = 0;
    if (first_file >= argc) {
        const char *example = PARPLAN_SOURCE_DIR "/data/examples/llama3-70b-capacity.json";
        if (pp_problem_load(example, &cat, prob, &err) == PP_OK)
            bench("llama3-70b-capacity.json", prob, repeat);
        else
            status = 1;
        if (pp_problem_parse(GPT3_PROBLEM, "gpt3", NULL, &cat, prob, &err) == PP_OK)
            bench("GPT-3 175B, batch 1536", prob, repeat);
        else
            status = 1;
    }
    for (int i = first_file; i < argc && status == 0; i++) {
        if (pp_problem_load(argv[i], &cat, prob, &err) == PP_OK)
            bench(argv[i], prob, repeat);
        else
            status = 1;
    }
    if (status)
        fprintf(stderr, "bench_capacity: %s: %s\n", err.path, err.msg);
    free(prob);
    pp_catalog_free(&cat);
    return status;
}
