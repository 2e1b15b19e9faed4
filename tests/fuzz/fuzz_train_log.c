/*
 * fuzz_train_log.c: libFuzzer harness of the training-log reader and the
 * measurement row it writes (`parplan calibrate --log`).
 *
 * The input is the text of a training log of any of the four frameworks
 * (Megatron-LM, NeMo, torchtitan, DeepSpeed), as a job leaves it: colours,
 * progress bars redrawn with carriage returns, cut mid-run.  It is parsed
 * for the default example's run (pp_train_log_parse); a refusal keeps the
 * error contract, and an accepted log must hold only step times inside
 * their range.  The measurement row it makes (pp_train_log_rows_json) must
 * then read back through the measurement reader, with the median it wrote.
 */
#include "fuzz_common.h"

#include "measurements.h"
#include "text_number.h"
#include "train_log.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pp_problem prob;
static pp_plan plan;
static char rows_path[128];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    char path[1024];
    pp_error err;
    pp_source_path(PP_EXAMPLE, path, sizeof path);
    if (pp_problem_load(path, pp_fuzz_catalog(), &prob, &err) != PP_OK)
        pp_fuzz_fail(err.path, err.msg);
    pp_source_path(PP_EXAMPLE_PLAN, path, sizeof path);
    if (pp_plan_load(path, &prob, &plan, &err) != PP_OK)
        pp_fuzz_fail(err.path, err.msg);
    pp_fuzz_scratch_path("rows.json", rows_path, sizeof rows_path);
    return 0;
}

/* The row written reads back, with the median as written (%.6g). */
static void check_row(const pp_train_log *tl)
{
    char *json = pp_train_log_rows_json(tl, "fuzz.log", &prob, &plan);
    if (!json)
        pp_fuzz_fail("pp_train_log_rows_json", "no row");
    pp_fuzz_write_scratch(rows_path, (const uint8_t *)json, strlen(json));
    free(json);
    pp_measurement_set set;
    pp_error err;
    pp_error_clear(&err);
    int rc = pp_measurements_load(rows_path, pp_fuzz_catalog(), &set, &err);
    unlink(rows_path);
    if (rc != PP_OK)
        pp_fuzz_fail("pp_train_log_rows_json", err.msg);
    if (set.n != 1 || !set.rows[0].has_time || !pp_rel_close(set.rows[0].iteration_s, tl->median_s, 1e-5))
        pp_fuzz_fail("pp_train_log_rows_json", "the row does not read back with the median it was written with");
    pp_measurements_free(&set);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = pp_fuzz_text(data, size);
    pp_train_log tl;
    pp_error err;
    pp_error_clear(&err);
    int rc = pp_train_log_parse(text, "fuzz.log", &prob, &tl, &err);
    pp_fuzz_check_outcome("pp_train_log_parse", rc, &err);
    if (rc == PP_OK) {
        if (tl.n < 1 || tl.warmup_skipped < 0 || tl.warmup_skipped >= tl.n)
            pp_fuzz_fail("pp_train_log_parse", "an accepted log with an impossible report count");
        for (int i = 0; i < tl.n; i++)
            if (!pp_text_in_range(PP_TEXT_STEP_S, tl.step_s[i]))
                pp_fuzz_fail("pp_train_log_parse", "an accepted step time out of range");
        check_row(&tl);
        pp_train_log_free(&tl);
    }
    free(text);
    return 0;
}
