/*
 * test_train_log.c: `parplan calibrate --log` on excerpts of real training
 * logs: Megatron-LM's training_log() line (megatron/training/training.py),
 * torchtitan's metrics line (with its ANSI colours and "[rank0]:" prefix),
 * NeMo's "train_step_timing in s" and DeepSpeed's "iter time (s)" /
 * "samples/sec".  The row written must load in `parplan accuracy`.
 */
#include "train_log.h"
#include "catalog.h"
#include "costmodel.h"
#include "measurements.h"
#include "problem.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Megatron-LM: 8 reports, the first 3 skipped; median of 28.1, 28.3, 28.0,
 * 28.2, 28.4 s = 28.2 s. */
static const char MEGATRON_LOG[] =
    "using world size: 1024, data-parallel size: 8, context-parallel size: 1, tensor-model-parallel size: 8, "
    "pipeline-model-parallel size: 16\n"
    "[after dataloaders are built] datetime: 2024-05-10 11:58:02\n"
    "done with setup ...\n"
    "training ...\n"
    "[before the start of training step] datetime: 2024-05-10 11:58:03\n"
    " [2024-05-10 12:03:21] iteration       10/  500000 | consumed samples:        15360 | elapsed time per iteration "
    "(ms): 31802.4 | learning rate: 9.375000E-07 | global batch size:  1536 | lm loss: 1.085134E+01 | loss scale: 1.0 "
    "| grad norm: 12.482 | number of skipped iterations:   0 | number of nan iterations:   0 |\n"
    "[Rank 0] (after 10 iterations) memory (MB) | allocated: 21344.5 | max allocated: 40021.3 | reserved: 44120.0 | "
    "max reserved: 44120.0\n"
    " [2024-05-10 12:08:04] iteration       20/  500000 | consumed samples:        30720 | elapsed time per iteration "
    "(ms): 29011.7 | learning rate: 1.875000E-06 | global batch size:  1536 | lm loss: 9.912346E+00 | loss scale: 1.0 "
    "| grad norm: 6.103 | number of skipped iterations:   0 | number of nan iterations:   0 |\n"
    " [2024-05-10 12:12:47] iteration       30/  500000 | consumed samples:        46080 | elapsed time per iteration "
    "(ms): 28504.9 | learning rate: 2.812500E-06 | global batch size:  1536 | lm loss: 9.231187E+00 | loss scale: 1.0 "
    "| grad norm: 3.551 | number of skipped iterations:   0 | number of nan iterations:   0 |\n"
    " [2024-05-10 12:17:28] iteration       40/  500000 | consumed samples:        61440 | elapsed time per iteration "
    "(ms): 28100.0 | learning rate: 3.750000E-06 | global batch size:  1536 | lm loss: 8.702235E+00 | loss scale: 1.0 "
    "| grad norm: 2.847 | number of skipped iterations:   0 | number of nan iterations:   0 |\n"
    " [2024-05-10 12:22:11] iteration       50/  500000 | consumed samples:        76800 | elapsed time per iteration "
    "(ms): 28300.0 | throughput per GPU (TFLOP/s/GPU): 137.9 | learning rate: 4.687500E-06 | global batch size:  1536 "
    "| lm loss: 8.201144E+00 | loss scale: 1.0 | grad norm: 2.114 | number of skipped iterations:   0 | number of nan "
    "iterations:   0 |\n"
    " [2024-05-10 12:26:51] iteration       60/  500000 | consumed samples:        92160 | elapsed time per iteration "
    "(ms): 28000.0 | learning rate: 5.625000E-06 | global batch size:  1536 | lm loss: 7.795213E+00 | loss scale: 1.0 "
    "| grad norm: 1.802 | number of skipped iterations:   0 | number of nan iterations:   0 |\n"
    " [2024-05-10 12:31:33] iteration       70/  500000 | consumed samples:       107520 | elapsed time per iteration "
    "(ms): 28200.0 | learning rate: 6.562500E-06 | global batch size:  1536 | lm loss: 7.512893E+00 | loss scale: 1.0 "
    "| grad norm: 1.623 | number of skipped iterations:   0 | number of nan iterations:   0 |\n"
    " [2024-05-10 12:36:17] iteration       80/  500000 | consumed samples:       122880 | elapsed time per iteration "
    "(ms): 28400.0 | learning rate: 7.500000E-06 | global batch size:  1536 | lm loss: 7.301764E+00 | loss scale: 1.0 "
    "| grad norm: 1.411 | number of skipped iterations:   0 | number of nan iterations:   0 |\n";

/* torchtitan (torchtitan/components/metrics.py): step 1 then every 10.
 * Llama 3 8B, 8 GPUs, global batch 64 x 8192: 65,536 tokens a GPU a step. */
static const char TITAN_LOG[] =
    "[rank0]:[titan] 2025-01-10 12:00:00,101 - root - INFO - Starting job: Llama 3 8B training\n"
    "[rank0]:[titan] 2025-01-10 12:00:09,552 - root - INFO - \x1b[34mModel llama3 8B \x1b[31msize: 8,030,261,248 "
    "total parameters\x1b[39m\n"
    "[rank0]:[titan] 2025-01-10 12:00:12,004 - root - INFO - Training starts at step 1.\n"
    "[rank0]:[titan] 2025-01-10 12:00:31,337 - root - INFO - \x1b[31mstep:  1  \x1b[32mloss: 12.2431  "
    "\x1b[33mmemory: 42.11GiB(53.21%)  \x1b[34mtps: 3,409  \x1b[36mtflops: 197.40  \x1b[35mmfu: 19.96%\x1b[39m\n"
    "[rank0]:[titan] 2025-01-10 12:02:01,912 - root - INFO - \x1b[31mstep: 10  \x1b[32mloss:  9.8732  "
    "\x1b[33mmemory: 58.02GiB(73.31%)  \x1b[34mtps: 6,406  \x1b[36mtflops: 371.00  \x1b[35mmfu: 37.51%\x1b[39m\n"
    "[rank0]:[titan] 2025-01-10 12:03:43,889 - root - INFO - \x1b[31mstep: 20  \x1b[32mloss:  8.1211  "
    "\x1b[33mmemory: 58.02GiB(73.31%)  \x1b[34mtps: 6,427  \x1b[36mtflops: 372.21  \x1b[35mmfu: 37.64%\x1b[39m\n"
    "[rank0]:[titan] 2025-01-10 12:05:25,774 - root - INFO - \x1b[31mstep: 30  \x1b[32mloss:  7.4420  "
    "\x1b[33mmemory: 58.02GiB(73.31%)  \x1b[34mtps: 6,553  \x1b[36mtflops: 379.52  \x1b[35mmfu: 38.37%\x1b[39m\n"
    "[rank0]:[titan] 2025-01-10 12:07:07,663 - root - INFO - \x1b[31mstep: 40  \x1b[32mloss:  6.9904  "
    "\x1b[33mmemory: 58.02GiB(73.31%)  \x1b[34mtps: 6,536  \x1b[36mtflops: 378.53  \x1b[35mmfu: 38.27%\x1b[39m\n"
    "[rank0]:[titan] 2025-01-10 12:08:49,610 - root - INFO - \x1b[31mstep: 50  \x1b[32mloss:  6.6115  "
    "\x1b[33mmemory: 58.02GiB(73.31%)  \x1b[34mtps: 6,553  \x1b[36mtflops: 379.52  \x1b[35mmfu: 38.37%\x1b[39m\n"
    "[rank0]:[titan] 2025-01-10 12:08:50,001 - root - INFO - Sleeping 2 seconds for other ranks to complete\n";

static const char TITAN_PROBLEM[] =
    "{ \"model\": \"llama3-8b\", \"cluster\": { \"gpu\": \"h100-sxm5-80gb\", \"gpus_per_node\": 8, \"nodes\": 1 },\n"
    "  \"training\": { \"global_batch\": 64, \"precision\": \"bf16\", \"framework\": \"fsdp\" } }\n";
static const char TITAN_PLAN[] = "{ \"tp\": 1, \"pp\": 1, \"dp\": 8, \"zero\": 3, \"recompute\": \"selective\" }\n";

static pp_problem titan_problem(void)
{
    pp_problem p;
    memset(&p, 0, sizeof p);
    p.model.seq_len = 8192;
    p.cluster.gpus_per_node = 8;
    p.cluster.nodes = 1;
    p.training.global_batch = 64;
    return p;
}

/* Parse a log of the torchtitan problem's run (batch 64 x 8192 on 8 GPUs). */
#define PARSE_OK(text, log)                                                                                       \
    do {                                                                                                          \
        pp_problem p_ = titan_problem();                                                                          \
        pp_error err_;                                                                                            \
        CU_ASSERT_EQUAL_FATAL(pp_train_log_parse((text), "test.log", &p_, (log), &err_), PP_OK);                  \
    } while (0)

static void test_megatron(void)
{
    pp_train_log log;
    PARSE_OK(MEGATRON_LOG, &log);
    CU_ASSERT_EQUAL(log.format, PP_TRAIN_LOG_MEGATRON);
    CU_ASSERT_EQUAL(log.n, 8);
    CU_ASSERT_EQUAL(log.warmup_skipped, 3);
    CU_ASSERT_DOUBLE_EQUAL(log.median_s, 28.2, 1e-9);
    pp_train_log_free(&log);
}

/* tps 6,406 ... 6,553 (step 1 and the next two skipped): the median of
 * 6,553, 6,536, 6,553 tps is 6,553, so 65,536 / 6,553 = 10.001 s. */
static void test_torchtitan(void)
{
    pp_train_log log;
    PARSE_OK(TITAN_LOG, &log);
    CU_ASSERT_EQUAL(log.format, PP_TRAIN_LOG_TORCHTITAN);
    CU_ASSERT_EQUAL(log.n, 6);
    CU_ASSERT_EQUAL(log.warmup_skipped, 3);
    CU_ASSERT_DOUBLE_EQUAL(log.median_s, 65536.0 / 6553.0, 1e-9);
    pp_train_log_free(&log);
}

/* NeMo's Lightning progress bar refreshes a step many times on one line
 * (carriage returns): one report per global_step. */
static void test_nemo_and_deepspeed(void)
{
    pp_problem p = titan_problem();
    pp_train_log log;
    pp_error err;
    const char nemo[] =
        "Epoch 0: :   1%|          | 1/100 [00:05<08:15, reduced_train_loss=11.10, global_step=0.000, "
        "consumed_samples=64.0, train_step_timing in s=5.210]\r"
        "Epoch 0: :   1%|          | 1/100 [00:05<08:15, reduced_train_loss=11.10, global_step=0.000, "
        "consumed_samples=64.0, train_step_timing in s=5.210]\r"
        "Epoch 0: :   2%|          | 2/100 [00:07<06:15, reduced_train_loss=10.90, global_step=1.000, "
        "consumed_samples=128.0, train_step_timing in s=2.010]\r"
        "Epoch 0: :   3%|          | 3/100 [00:09<05:15, reduced_train_loss=10.50, global_step=2.000, "
        "consumed_samples=192.0, train_step_timing in s=2.030]\n";
    PARSE_OK(nemo, &log);
    CU_ASSERT_EQUAL(log.format, PP_TRAIN_LOG_NEMO);
    CU_ASSERT_EQUAL(log.n, 3);
    CU_ASSERT_EQUAL(log.warmup_skipped, 1);
    CU_ASSERT_DOUBLE_EQUAL(log.median_s, 2.02, 1e-9);
    pp_train_log_free(&log);
    const char ds[] = "[2024-03-01 10:00:00,000] [INFO] [logging.py:96:log_dist] [Rank 0] step=10, skipped=0, "
                      "lr=[0.0001], mom=[(0.9, 0.95)]\n"
                      "steps: 10 loss: 7.1234 iter time (s): 1.500 samples/sec: 42.667\n"
                      "steps: 20 loss: 6.9000 iter time (s): 1.250 samples/sec: 51.200\n";
    PARSE_OK(ds, &log);
    CU_ASSERT_EQUAL(log.format, PP_TRAIN_LOG_DEEPSPEED);
    CU_ASSERT_DOUBLE_EQUAL(log.median_s, 1.25, 1e-9);
    pp_train_log_free(&log);
    const char ds_rate[] = "epoch=0/micro_step=40/global_step=10, RunningAvgSamplesPerSec=31.2, CurrSamplesPerSec=32.0, "
                           "MemAllocated=12.1GB, MaxMemAllocated=20.3GB\n";
    PARSE_OK(ds_rate, &log);
    CU_ASSERT_DOUBLE_EQUAL(log.median_s, 64.0 / 32.0, 1e-9);
    pp_train_log_free(&log);
    CU_ASSERT_EQUAL(pp_train_log_parse("nothing here\n", "x.log", &p, &log, &err), PP_EINPUT);
    PP_ASSERT_CONTAINS(err.msg, "no step time found");
}

/* A step time or rate that is a number but out of any run's range refuses
 * the log at its line and column; a negative or non-number is only a line
 * that is not a report. */
static void test_out_of_range(void)
{
    static const struct {
        const char *text, *where, *says;
    } CASES[] = {
        {"ok\n iteration 1 | elapsed time per iteration (ms): 1e300 | lm loss: 1\n", "x.log:2:49",
         "expected a step time in seconds from 1e-06 to 1000000, found '1e300'"},
        {"[rank0]:[titan] 2025-01-10 12:00:31,337 - root - INFO - step:  1  loss: 9.1  tps: 0.0000000001  mfu: 3%\n",
         "x.log:1:83", "expected a throughput per second"},
        {"steps: 10 loss: 7.1 iter time (s): 1.5\r\nsteps: 20 loss: 6.9 iter time (s): 9e9\r\n", "x.log:2:36",
         "found '9e9'"},
        {"global_step=1.000, train_step_timing in s=1e-9]\n", "x.log:1:43", "found '1e-9]'"},
    };
    pp_problem p = titan_problem();
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        pp_train_log log;
        pp_error err;
        memset(&err, 0, sizeof err);
        CU_ASSERT_EQUAL(pp_train_log_parse(CASES[i].text, "x.log", &p, &log, &err), PP_EINPUT);
        CU_ASSERT_PTR_NULL(log.step_s);
        CU_ASSERT_STRING_EQUAL(err.path, CASES[i].where);
        PP_ASSERT_CONTAINS(err.msg, CASES[i].says);
        if (strcmp(err.path, CASES[i].where) != 0 || !strstr(err.msg, CASES[i].says))
            printf("\n  case %zu: %s: %s\n", i, err.path, err.msg);
    }
    /* a negative time is no report: the log holds none */
    pp_train_log log;
    pp_error err;
    CU_ASSERT_EQUAL(pp_train_log_parse("elapsed time per iteration (ms): -5\n", "x.log", &p, &log, &err), PP_EINPUT);
    PP_ASSERT_CONTAINS(err.msg, "no step time found");
    /* the command: exit 2, the line and column named, no row written */
    char problem[512], plan[512], bad[512], rows[512];
    pp_source_path("data/examples/gpt3-175b-1024-a100.json", problem, sizeof problem);
    pp_source_path("data/examples/gpt3-175b-1024-a100.plan.json", plan, sizeof plan);
    pp_write_temp("huge-step.log", "iteration 1 | elapsed time per iteration (ms): 28000.0 |\n"
                                   "iteration 2 | elapsed time per iteration (ms): 1e300 |\n", bad, sizeof bad);
    pp_temp_path("huge-rows.json", rows, sizeof rows);
    const char *args[] = {"calibrate", "--log", bad, "--problem", problem, "--plan", plan, "-o", rows, NULL};
    pp_run_refused(args, "huge-step.log:2:48: expected a step time in seconds", rows);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    static char buf[16384];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* The command writes a rows file that `parplan accuracy` loads and scores. */
static void check_rows_cli(const char *log_text, const char *log_name, const char *problem, const char *plan,
                           const char *expect_in_row)
{
    char log[512], rows[512];
    pp_write_temp(log_name, log_text, log, sizeof log);
    pp_write_temp("rows.json", "", rows, sizeof rows);
    remove(rows);
    const char *args[] = {"calibrate", "--log", log, "--problem", problem, "--plan", plan, "-o", rows, NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL_FATAL(pp_run(args, NULL, &r), 0);
    CU_ASSERT_EQUAL(r.exit_code, 0);
    PP_ASSERT_CONTAINS(r.err, "skipped as warm-up");
    pp_run_free(&r);
    char *text = slurp(rows);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    PP_ASSERT_CONTAINS(text, "\"iteration_s\"");
    PP_ASSERT_CONTAINS(text, expect_in_row);
    const char *acc[] = {"accuracy", rows, NULL};
    CU_ASSERT_EQUAL_FATAL(pp_run(acc, NULL, &r), 0);
    CU_ASSERT_EQUAL(r.exit_code, 0);
    PP_ASSERT_CONTAINS(r.out, "training-log");
    pp_run_free(&r);
}

static void test_cli_megatron(void)
{
    char problem[512], plan[512];
    pp_source_path("data/examples/gpt3-175b-1024-a100.json", problem, sizeof problem);
    pp_source_path("data/examples/gpt3-175b-1024-a100.plan.json", plan, sizeof plan);
    check_rows_cli(MEGATRON_LOG, "megatron.log", problem, plan, "\"iteration_s\":\t28.2");
}

static void test_cli_torchtitan(void)
{
    char problem[512], plan[512];
    pp_write_temp("titan.json", TITAN_PROBLEM, problem, sizeof problem);
    pp_write_temp("titan.plan.json", TITAN_PLAN, plan, sizeof plan);
    check_rows_cli(TITAN_LOG, "titan.log", problem, plan, "\"framework\":\t\"fsdp\"");
}

/* `calibrate --log` of Megatron-LM's sample log for the problem and plan
 * files given, its row written to rows (named `name`-rows.json). */
static void log_row(const char *name, const char *problem, const char *plan, char *rows, size_t cap)
{
    char log[512], file[96];
    snprintf(file, sizeof file, "%s.log", name);
    pp_write_temp(file, MEGATRON_LOG, log, sizeof log);
    snprintf(file, sizeof file, "%s-rows.json", name);
    pp_write_temp(file, "", rows, cap);
    remove(rows);
    const char *args[] = {"calibrate", "--log", log, "--problem", problem, "--plan", plan, "-o", rows, NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL_FATAL(pp_run(args, NULL, &r), 0);
    CU_ASSERT_EQUAL(r.exit_code, 0);
    pp_run_free(&r);
}

/* --log records the whole plan the run ran: every decision a row has a
 * field for reads back as it was, TP overlap, interleaving and the modules
 * selective recomputation repeats among them,
 * and one a row has no field for is named in the notes. */
static void test_cli_whole_plan(void)
{
    char problem[512], plan[512], rows[512];
    pp_source_path("data/examples/gpt3-175b-1024-a100.json", problem, sizeof problem);
    pp_write_temp("overlap.plan.json",
                  "{\"tp\": 8, \"pp\": 16, \"dp\": 8, \"micro_batch\": 1, \"virtual_stages\": 2, \"zero\": 1,"
                  " \"recompute\": \"selective\", \"recompute_modules\": \"core_attn,layernorm\","
                  " \"sequence_parallel\": true, \"tp_comm_overlap\": true, \"compression\": {\"dp\": \"bf16\"}}",
                  plan, sizeof plan);
    log_row("overlap", problem, plan, rows, sizeof rows);
    char *text = slurp(rows);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    PP_ASSERT_CONTAINS(text, "\"tp_comm_overlap\":\ttrue");
    PP_ASSERT_CONTAINS(text, "the plan also ran (no row field for it): dp=bf16");
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_measurement_set set;
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(pp_measurements_load(rows, &cat, &set, &err), PP_OK);
    CU_ASSERT_EQUAL_FATAL(set.n, 1);
    const pp_plan *p = &set.rows[0].plan;
    CU_ASSERT_EQUAL(p->tp, 8);
    CU_ASSERT_EQUAL(p->pp, 16);
    CU_ASSERT_EQUAL(p->dp, 8);
    CU_ASSERT_EQUAL(p->virtual_stages, 2);
    CU_ASSERT_EQUAL(p->zero, 1);
    CU_ASSERT_EQUAL(p->recompute, PP_RECOMPUTE_SELECTIVE);
    CU_ASSERT_EQUAL(pp_recompute_modules(p), PP_RCM_CORE_ATTN | PP_RCM_LAYERNORM);
    CU_ASSERT_TRUE(p->sequence_parallel);
    CU_ASSERT_TRUE(p->tp_comm_overlap);
    /* the DP bf16 cast is the reduction's type (pp_plan_grad_reduce): the
     * row states it, so it is priced as eval prices the run, the gradients
     * held in bf16 */
    PP_ASSERT_CONTAINS(text, "\"grad_reduce_dtype\":\t\"bf16\"");
    pp_problem prob;
    pp_plan run;
    char *ptext = pp_slurp(problem), *ltext = pp_slurp(plan);
    CU_ASSERT_EQUAL_FATAL(pp_problem_parse(ptext, problem, NULL, &cat, &prob, &err), PP_OK);
    CU_ASSERT_EQUAL_FATAL(pp_plan_parse(ltext, plan, &prob, &run, &err), PP_OK);
    pp_eval want, got;
    pp_evaluate(&prob, &run, &want);
    pp_evaluate(&set.rows[0].prob, p, &got);
    CU_ASSERT(fabs(got.time.step_s / want.time.step_s - 1.0) < 1e-9);
    CU_ASSERT(fabs(got.mem.gradients_gib / want.mem.gradients_gib - 1.0) < 1e-9);
    free(ptext);
    free(ltext);
    pp_measurements_free(&set);
    pp_catalog_free(&cat);
}

/* --log records the whole problem too: a Mixture-of-Experts run's row
 * keeps its experts, router and load (forced balance here), DeepEP and the
 * all-to-all overlap, the MTP module it trained and its CUDA graphs, and is
 * priced as the run was (the step time eval gives, to rounding). */
static void test_cli_moe_row(void)
{
    static const char problem_text[] =
        "{\"model\": \"qwen3-30b-a3b\", \"cluster\": {\"gpu\": \"h100-sxm5-80gb\", \"nodes\": 4},"
        " \"training\": {\"global_batch\": 256, \"moe_force_balance\": true, \"mtp_layers\": 1,"
        " \"cuda_graphs\": \"partial\"}}";
    static const char plan_text[] = "{\"tp\": 1, \"pp\": 1, \"dp\": 32, \"ep\": 8, \"zero\": 1,"
                                    " \"recompute\": \"selective\", \"moe_dispatcher\": \"deepep\","
                                    " \"moe_a2a_overlap\": true}";
    char problem[512], plan[512], rows[512];
    pp_write_temp("moe.json", problem_text, problem, sizeof problem);
    pp_write_temp("moe.plan.json", plan_text, plan, sizeof plan);
    log_row("moe", problem, plan, rows, sizeof rows);
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem p;
    pp_plan pl;
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(pp_problem_parse(problem_text, "moe.json", NULL, &cat, &p, &err), PP_OK);
    CU_ASSERT_EQUAL_FATAL(pp_plan_parse(plan_text, "moe.plan.json", &p, &pl, &err), PP_OK);
    pp_measurement_set set;
    CU_ASSERT_EQUAL_FATAL(pp_measurements_load(rows, &cat, &set, &err), PP_OK);
    CU_ASSERT_EQUAL_FATAL(set.n, 1);
    const pp_measurement *row = &set.rows[0];
    CU_ASSERT_EQUAL(row->prob.model.experts, 128);
    CU_ASSERT_EQUAL(row->prob.model.experts_per_token, 8);
    CU_ASSERT_TRUE(row->prob.model.qk_layernorm);
    CU_ASSERT_TRUE(row->prob.training.moe_force_balance);
    CU_ASSERT_EQUAL(row->prob.training.mtp_layers, 1);
    CU_ASSERT_EQUAL(row->prob.training.cuda_graphs, PP_GRAPHS_PARTIAL);
    CU_ASSERT_TRUE(pp_moe_deepep(&row->prob, &row->plan) && pp_moe_a2a_overlapped(&row->prob, &row->plan));
    CU_ASSERT_EQUAL(row->plan.ep, 8);
    double want = pp_step_time_s(&p, &pl), got = pp_step_time_s(&row->prob, &row->plan);
    CU_ASSERT(want > 0.0 && fabs(got / want - 1.0) < 1e-9);
    pp_measurements_free(&set);
    pp_catalog_free(&cat);
}

int main(void)
{
    static const pp_test tests[] = {
        {"Megatron-LM iteration lines", test_megatron},
        {"calibrate --log records the whole plan (TP overlap included)", test_cli_whole_plan},
        {"calibrate --log records a MoE run whole (experts, router load, DeepEP, overlap, MTP)", test_cli_moe_row},
        {"torchtitan metrics lines (tps)", test_torchtitan},
        {"NeMo train_step_timing and DeepSpeed iter time / samples/sec", test_nemo_and_deepspeed},
        {"a step time out of range refuses the log at its line and column", test_out_of_range},
        {"calibrate --log on a Megatron-LM log, scored by accuracy", test_cli_megatron},
        {"calibrate --log on a torchtitan log, scored by accuracy", test_cli_torchtitan},
        {NULL, NULL},
    };
    return pp_test_main("training logs", tests);
}
