/*
 * fuzz_gemm_sweep.c: libFuzzer harness of the GEMM-sweep CSV reader and the
 * GEMM fit it feeds (`parplan calibrate --gemm-sweep`).
 *
 * The input is the text of a CSV from a benchmark script (any column order,
 * quotes, tabs, comments, a byte-order mark, the EleutherAI cookbook's
 * layout).  It is parsed (pp_gemm_sweep_parse); a refusal keeps the error
 * contract, and every accepted row must hold whole dimensions from 1 to 1e7
 * and a call time inside its range.  The rows then go through the fit on an
 * A100 (pp_calibrate_gemm), whose parameters must end inside their bounds,
 * and its printout (pp_report_gemm_text), rendered twice to the same bytes.
 */
#include "fuzz_common.h"

#include "calibrate_gemm.h"
#include "report_gemm.h"
#include "strbuf.h"
#include "text_number.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static pp_gpu gpu;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const pp_gpu *g = pp_catalog_gpu(pp_fuzz_catalog(), "a100-sxm4-80gb");
    if (!g)
        pp_fuzz_fail("catalog", "no a100-sxm4-80gb");
    gpu = *g;
    return 0;
}

static void check_sweep(const pp_gemm_sweep *s)
{
    for (int i = 0; i < s->n_rows; i++) {
        const pp_gemm_row *r = &s->rows[i];
        const double dims[] = {r->m, r->n, r->k, r->batch};
        for (int d = 0; d < 4; d++)
            if (!(dims[d] >= 1 && dims[d] <= 1e7 && dims[d] == floor(dims[d])))
                pp_fuzz_fail("pp_gemm_sweep_parse", "an accepted dimension that is not a whole number from 1 to 1e7");
        if (!pp_text_in_range(PP_TEXT_GEMM_S, r->time_s))
            pp_fuzz_fail("pp_gemm_sweep_parse", "an accepted time out of range");
        if (r->prec < 0 || r->prec >= PP_PREC_COUNT)
            pp_fuzz_fail("pp_gemm_sweep_parse", "an accepted row without a precision");
    }
    for (int i = 0; i < s->n_notes; i++)
        if (!memchr(s->notes[i], '\0', sizeof s->notes[i]))
            pp_fuzz_fail("pp_gemm_sweep_parse", "a note that is not NUL-terminated");
}

static void check_fit(const pp_gemm_calibration *cal)
{
    for (int p = 0; p < PP_GEMM_PARAM_COUNT; p++) {
        const pp_gemm_param_fit *f = &cal->param[p];
        if (!isfinite(f->after) || (f->fitted && (f->after < f->lo * (1 - 1e-9) || f->after > f->hi * (1 + 1e-9))))
            pp_fuzz_fail("pp_calibrate_gemm", "a fitted parameter outside its bounds");
    }
    if (cal->n_rows > 0 && !(isfinite(cal->rms_log_error_before) && isfinite(cal->rms_log_error_after)))
        pp_fuzz_fail("pp_calibrate_gemm", "an error that is not finite");
}

typedef struct gemm_fit {
    const pp_gemm_sweep *sweep;
    const pp_gemm_calibration *cal;
} gemm_fit;

static void render_gemm(const void *ctx, pp_strbuf *out)
{
    const gemm_fit *f = ctx;
    pp_report_gemm_text(f->sweep, 1, f->cal, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = pp_fuzz_text(data, size);
    pp_gemm_sweep sweep;
    pp_error err;
    pp_error_clear(&err);
    int rc = pp_gemm_sweep_parse(text, "fuzz.csv", &sweep, &err);
    pp_fuzz_check_outcome("pp_gemm_sweep_parse", rc, &err);
    if (rc == PP_OK) {
        check_sweep(&sweep);
        pp_gemm_calibration cal;
        memset(&cal, 0, sizeof cal);
        cal.gpu = gpu;
        if (pp_calibrate_gemm(pp_fuzz_catalog(), &sweep, 1, &cal))
            check_fit(&cal);
        const gemm_fit fit = {&sweep, &cal};
        pp_fuzz_render_twice("pp_report_gemm_text", render_gemm, &fit);
        pp_gemm_sweep_free(&sweep);
    }
    free(text);
    return 0;
}
