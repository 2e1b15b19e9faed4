/* text_number.c: the ranges of the text readers' numbers (see text_number.h). */
#include "text_number.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Generous bounds: wide enough for any machine built or announced, narrow
 * enough that every sum, product and long conversion the readers do on them
 * stays exact and finite. */
const pp_text_range pp_text_ranges[PP_TEXT_RANGE_COUNT] = {
    [PP_TEXT_RANK] = {"a rank", 0, 1048575, true,
                      "2^20 ranks, several times the largest GPU cluster announced by 2026; rank + 1 stays exact"},
    [PP_TEXT_BYTES] = {"a message size in bytes", 1, 17592186044416.0, true,
                       "2^44 B (17.6 TB), sixty times the largest GPU memory (288 GB, B300)"},
    [PP_TEXT_TIME_US] = {"a time in microseconds", 1e-3, 1e10, false,
                         "1 ns to about 2.8 hours for one collective"},
    [PP_TEXT_GBPS] = {"a bandwidth in GB/s", 0, 1e5, false,
                      "100 TB/s, over fifty times NVLink 5's 1.8 TB/s per GPU"},
    [PP_TEXT_STEP_S] = {"a step time in seconds", 1e-6, 1e6, false, "1 us to about 11.6 days for one optimizer step"},
    [PP_TEXT_RATE] = {"a throughput per second", 1e-6, 1e12, false,
                      "tokens or samples per second; the step it implies is checked too"},
    [PP_TEXT_GEMM_S] = {"a GEMM call time in seconds (after the column's unit)", 1e-9, 1e4, false,
                       "1 ns to about 2.8 hours for one call"},
};

bool pp_text_in_range(pp_text_range_id id, double v)
{
    const pp_text_range *r = &pp_text_ranges[id];
    return isfinite(v) && v >= r->lo && v <= r->hi && (!r->whole || v == floor(v));
}

int pp_text_refuse(pp_error *err, const char *name, int line, int column, pp_text_range_id id, const char *cell)
{
    const pp_text_range *r = &pp_text_ranges[id];
    char where[300], found[48];
    snprintf(where, sizeof where, "%.240s:%d:%d", name, line, column);
    size_t n = strcspn(cell ? cell : "", " \t,;");
    snprintf(found, sizeof found, "%.*s%s", (int)(n < 40 ? n : 40), cell ? cell : "", n > 40 ? "..." : "");
    for (char *c = found; *c; c++)
        if (!isprint((unsigned char)*c))
            *c = '?';
    return pp_error_set(err, PP_EINPUT, where, "expected %s from %.15g to %.15g%s, found '%s'", r->what, r->lo, r->hi,
                        r->whole ? " (a whole number)" : "", found);
}
