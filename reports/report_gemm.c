/*
 * report_gemm.c: the fit report of `parplan calibrate --gemm-sweep` (see
 * report_gemm.h).
 */
#include "report_gemm.h"

#include <math.h>
#include <stdio.h>

static void sweep_heading(const pp_gemm_sweep *s, pp_strbuf *out)
{
    pp_sb_appendf(out, "%s: %d GEMM row%s, time from the %s column%s", s->name, s->n_rows, s->n_rows == 1 ? "" : "s",
                  s->time_from, s->cookbook ? " (the EleutherAI cookbook's CSV: n is its shared dimension, fp16)" : "");
    if (s->n_skipped)
        pp_sb_appendf(out, "; skipped %d", s->n_skipped);
    pp_sb_append(out, "\n");
    for (int i = 0; i < s->n_notes; i++)
        pp_sb_appendf(out, "  skipped %s\n", s->notes[i]);
    if (s->n_skipped > s->n_notes)
        pp_sb_appendf(out, "  ... and %d more\n", s->n_skipped - s->n_notes);
}

static double tflops(double flops, double s)
{
    return s > 0.0 ? flops / s / 1e12 : 0.0;
}

static void class_table(const pp_gemm_calibration *cal, pp_strbuf *out)
{
    pp_sb_append(out, "  shape class          rows  measured TFLOP/s  fitted TFLOP/s  worst error\n");
    double flops = 0.0, measured = 0.0, fitted = 0.0;
    for (int k = 0; k < PP_GEMM_CLASS_COUNT; k++) {
        const pp_gemm_class_fit *x = &cal->cls[k];
        if (!x->n_rows)
            continue;
        flops += x->flops, measured += x->measured_s, fitted += x->fitted_s;
        pp_sb_appendf(out, "  %-19s %5d  %16.1f  %14.1f  %6.1f %% (%s:%d)\n", pp_gemm_class_name((pp_gemm_class)k),
                      x->n_rows, tflops(x->flops, x->measured_s), tflops(x->flops, x->fitted_s), x->worst_error_pct,
                      x->worst_file ? x->worst_file : "?", x->worst_line);
    }
    pp_sb_appendf(out, "  %-19s %5d  %16.1f  %14.1f  %6.1f %% (%s:%d)\n", "all", cal->n_rows, tflops(flops, measured),
                  tflops(flops, fitted), cal->worst_error_pct, cal->worst_file ? cal->worst_file : "?",
                  cal->worst_line);
}

static void param_table(const pp_gemm_calibration *cal, pp_strbuf *out)
{
    pp_sb_append(out, "  parameter          before     after  bounds\n");
    for (int p = 0; p < PP_GEMM_PARAM_COUNT; p++) {
        const pp_gemm_param_fit *f = &cal->param[p];
        pp_sb_appendf(out, "  %-16s %8.4g  %8.4g  %.4g-%.4g  %s\n", f->key, f->before, f->after, f->lo, f->hi,
                      !f->fitted     ? "kept: no row tells it apart from the ceiling"
                      : f->at_bound ? "fitted, at a bound"
                                     : "fitted");
    }
}

void pp_report_gemm_text(const pp_gemm_sweep *sweeps, int n_sweeps, const pp_gemm_calibration *cal, pp_strbuf *out)
{
    for (int i = 0; i < n_sweeps; i++)
        sweep_heading(&sweeps[i], out);
    pp_sb_appendf(out, "%s (%d SMs): %d rows fitted", cal->gpu.id, cal->gpu.sm_count, cal->n_rows);
    if (cal->n_no_peak)
        pp_sb_appendf(out, "; %d rows of a dtype %s has no peak for, not used", cal->n_no_peak, cal->gpu.id);
    pp_sb_append(out, "\n");
    if (!cal->n_rows)
        return;
    class_table(cal, out);
    param_table(cal, out);
    pp_sb_appendf(out, "  rms log error of time: %.3f with the parameters in force, %.3f fitted\n",
                  cal->rms_log_error_before, cal->rms_log_error_after);
}
