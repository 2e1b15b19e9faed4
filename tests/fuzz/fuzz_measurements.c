/*
 * fuzz_measurements.c: libFuzzer harness of the measurement-row reader and
 * the scoring it feeds (`parplan accuracy`, `parplan calibrate`).
 *
 * The input is the text of a measurement file (a JSON array of rows, or an
 * object holding "rows"; data/measurements/README.md).  It is written to a
 * scratch file and read (pp_measurements_load); a refusal keeps the error
 * contract, and every accepted row must carry finite, positive measured
 * numbers.  The set is then scored as `accuracy` scores it
 * (pp_score_measurements), and every score must be finite.
 */
#include "fuzz_common.h"

#include "calibrate.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

static char rows_path[128];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    pp_fuzz_catalog();
    pp_fuzz_scratch_path("measurements.json", rows_path, sizeof rows_path);
    return 0;
}

static void check_rows(const pp_measurement_set *set)
{
    for (int i = 0; i < set->n; i++) {
        const pp_measurement *r = &set->rows[i];
        if (r->has_time)
            pp_fuzz_check_positive("measured iteration_s", &r->iteration_s, 1);
        if (r->has_peak)
            pp_fuzz_check_positive("measured peak_gib", &r->peak_gib, 1);
        if (!memchr(r->id, '\0', sizeof r->id) || !memchr(r->group, '\0', sizeof r->group))
            pp_fuzz_fail("pp_measurements_load", "a string that is not NUL-terminated");
    }
}

static void check_score(const pp_score *s)
{
    for (int g = 0; g < s->n_groups; g++) {
        const pp_group_score *x = &s->groups[g];
        if ((x->n_time && !isfinite(x->mape_time)) || (x->n_memory && !isfinite(x->mape_memory)) ||
            (x->n_peak && !isfinite(x->mape_peak)))
            pp_fuzz_fail("pp_score_measurements", "a score that is not finite");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pp_fuzz_write_scratch(rows_path, data, size);
    pp_measurement_set set;
    pp_error err;
    pp_error_clear(&err);
    int rc = pp_measurements_load(rows_path, pp_fuzz_catalog(), &set, &err);
    unlink(rows_path);
    pp_fuzz_check_outcome("pp_measurements_load", rc, &err);
    if (rc == PP_OK) {
        check_rows(&set);
        pp_score score;
        pp_score_measurements(&set, &score);
        check_score(&score);
        pp_measurements_free(&set);
    }
    return 0;
}
