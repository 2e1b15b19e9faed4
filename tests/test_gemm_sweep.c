/*
 * test_gemm_sweep.c: `parplan calibrate --gemm-sweep`: the CSV reader
 * (formulate/input/gemm_sweep.c), the fit (solve/calibrate_gemm.c) and the command.
 *
 * The fit is checked on sweeps this test writes from a known truth with the
 * cost model's own GEMM formula (pp_gemm_time_s) on the catalog A100: a
 * ceiling of 0.78, a K overhead of 100 elements, misaligned shapes at 0.4
 * of the rate and 4 us a kernel, with +-1 % of noise from a fixed seed, over
 * large, short-K, partial-wave, misaligned, small and batched shapes.  The
 * fit must find the ceiling within 0.02 and the K overhead within 20 %.
 */
#include "calibrate.h"
#include "calibrate_gemm.h"
#include "catalog.h"
#include "costmodel.h"
#include "gemm_sweep.h"
#include "report_gemm.h"
#include "strbuf.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRUE_CEILING 0.78
#define TRUE_K_OVERHEAD 100.0
#define TRUE_MISALIGNED 0.4
#define TRUE_KERNEL_US 4.0

static pp_gpu catalog_gpu(const char *id)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    const pp_gpu *g = pp_catalog_gpu(&cat, id);
    pp_gpu out;
    memset(&out, 0, sizeof out);
    if (g)
        out = *g;
    pp_catalog_free(&cat);
    CU_ASSERT_FATAL(out.sm_count > 0);
    return out;
}

static pp_gpu truth_a100(void)
{
    pp_gpu g = catalog_gpu("a100-sxm4-80gb");
    g.eff.gemm = TRUE_CEILING;
    g.eff.gemm_k_overhead = TRUE_K_OVERHEAD;
    g.eff.gemm_misaligned = TRUE_MISALIGNED;
    g.eff.kernel_us = TRUE_KERNEL_US;
    return g;
}

/* ---- the formula ----------------------------------------------------------------- */

/* pp_gemm_time_s is the model's GEMM, by hand: 4096^3 in bf16 on 108 SMs is
 * 1024 tiles in 10 waves, K / (K + 64), plus the launch. */
static void test_formula_by_hand(void)
{
    pp_gpu g = catalog_gpu("a100-sxm4-80gb");
    pp_efficiency_init(&g.eff);
    g.eff.gemm = 0.8;
    double s = 4096.0, share = (s / (s + 64.0)) * (1024.0 / 1080.0);
    double want = 2.0 * s * s * s / (312e12 * 0.8 * share) + 5e-6;
    PP_REL_EQ(pp_gemm_time_s(&g, PP_PREC_BF16, s, s, s, 1.0), want, 1e-12);
    /* misaligned N: half the rate (the built-in penalty) */
    pp_gemm_terms t;
    pp_gemm_terms_of(&g, PP_PREC_BF16, s, 4100.0, s, 1.0, &t);
    CU_ASSERT_EQUAL(t.align_share, 0.5);
    /* fp8 wants multiples of 16 */
    pp_gemm_terms_of(&g, PP_PREC_FP8, s, 4104.0, s, 1.0, &t);
    CU_ASSERT_EQUAL(t.align_share, 0.5);
    pp_gemm_terms_of(&g, PP_PREC_BF16, s, 4104.0, s, 1.0, &t);
    CU_ASSERT_EQUAL(t.align_share, 1.0);
    /* a batch of 2 is twice the FLOPs and tiles of one */
    pp_gemm_terms one, two;
    pp_gemm_terms_of(&g, PP_PREC_BF16, 1024, 1024, 1024, 1.0, &one);
    pp_gemm_terms_of(&g, PP_PREC_BF16, 1024, 1024, 1024, 2.0, &two);
    CU_ASSERT(one.wave_share < 0.6);   /* 64 tiles on 108 SMs */
    CU_ASSERT(two.wave_share > 0.59);  /* 128 tiles in 2 waves of 108 */
    PP_REL_EQ(two.bytes_s, 2.0 * one.bytes_s, 1e-12);
    /* a larger K overhead slows a short-K GEMM */
    double short_k = pp_gemm_time_s(&g, PP_PREC_BF16, 2048, 4096, 128, 1.0);
    g.eff.gemm_k_overhead = 256;
    CU_ASSERT(pp_gemm_time_s(&g, PP_PREC_BF16, 2048, 4096, 128, 1.0) > short_k);
}

/* Split-K, by hand.  A weight gradient of BERT-Large's h x h projection
 * over 32 sequences of 512 tokens, (1024 x 16384) @ (16384 x 1024), has 64
 * output tiles: unsplit, 44 of the A100's 108 SMs idle.  Cut into 5 slices
 * of K it is 320 tiles in 3 waves (99 % full), each slice paying the K
 * overhead, the fp32 partial sums (4 bytes an output element a slice,
 * written and read) and a reduction kernel; that beats every other split
 * from 1 to 8.  A large square GEMM, whose waves are already full, stays
 * unsplit, and a GPU whose SM count is unknown is never split. */
static void test_split_k_by_hand(void)
{
    pp_gpu g = catalog_gpu("a100-sxm4-80gb");
    pp_efficiency_init(&g.eff);
    g.eff.gemm = 0.8;
    g.eff.gemm_k_overhead = 100.0;
    double m = 1024.0, n = 1024.0, k = 16384.0, hbm = g.hbm_GBps * 1e9 * g.eff.hbm, launch = g.eff.kernel_us * 1e-6;
    pp_gemm_terms t;
    pp_gemm_terms_of(&g, PP_PREC_BF16, m, n, k, 1.0, &t);
    CU_ASSERT_EQUAL(t.split_k, 5);
    double slice = k / 5.0, share = slice / (slice + 100.0) * (320.0 / 324.0);
    double flops_s = 2.0 * m * n * k / (312e12 * 0.8 * share);
    double reduce_s = m * n * (4.0 * 5.0 + 2.0) / hbm + launch;
    PP_REL_EQ(t.reduce_s, reduce_s, 1e-12);
    PP_REL_EQ(t.time_s, flops_s + launch + reduce_s, 1e-12);
    /* unsplit it would take longer: 64 of 108 SMs, the full K */
    double unsplit = 2.0 * m * n * k / (312e12 * 0.8 * (k / (k + 100.0)) * (64.0 / 108.0)) + launch;
    CU_ASSERT(t.time_s < 0.8 * unsplit);
    pp_gemm_terms_of(&g, PP_PREC_BF16, 8192.0, 8192.0, 8192.0, 1.0, &t);
    CU_ASSERT_EQUAL(t.split_k, 1);
    CU_ASSERT_EQUAL(t.reduce_s, 0.0);
    g.sm_count = 0;
    pp_gemm_terms_of(&g, PP_PREC_BF16, m, n, k, 1.0, &t);
    CU_ASSERT_EQUAL(t.split_k, 1);
}

/* The stage term prices its matrix multiplies with the same formula: the
 * shape terms of the efficiency move the step time. */
static void test_step_uses_shape_terms(void)
{
    pp_catalog cat;
    pp_problem prob;
    pp_load_catalog(&cat);
    pp_load_problem("data/examples/gpt3-175b-1024-a100.json", &cat, &prob);
    pp_plan plan = pp_test_plan(8, 8, 16, 1, 1);
    double base = pp_step_time_s(&prob, &plan);
    prob.cluster.gpu.eff.gemm_k_overhead *= 4.0;
    double slower = pp_step_time_s(&prob, &plan);
    CU_ASSERT(slower > base);
    prob.cluster.gpu.eff.gemm_k_overhead /= 4.0;
    CU_ASSERT_EQUAL(pp_step_time_s(&prob, &plan), base);
    pp_catalog_free(&cat);
}

/* ---- synthesized sweeps ----------------------------------------------------------- */

typedef struct shape {
    double m, n, k, batch;
    pp_precision prec;
} shape;

/* The shapes of the synthetic sweep: every shape class. */
static int sweep_shapes(shape *out, int cap)
{
    static const double M[] = {1024, 2048, 4096, 8192, 16384};
    static const double N[] = {1024, 4096, 8192, 12288};
    static const double K[] = {64, 128, 256, 512, 1024, 4096, 8192};
    int n = 0;
    for (size_t i = 0; i < 5; i++)
        for (size_t j = 0; j < 4; j++)
            for (size_t l = 0; l < 7 && n < cap; l++)
                out[n++] = (shape){M[i], N[j], K[l], 1, (l % 2) ? PP_PREC_BF16 : PP_PREC_FP16};
    static const double small_wave[][2] = {{1152, 1152}, {1280, 1408}, {640, 2304}, {1536, 1664}};
    for (size_t i = 0; i < 4; i++)
        for (double k = 512; k <= 8192 && n < cap; k *= 4)
            out[n++] = (shape){small_wave[i][0], small_wave[i][1], k, 1, PP_PREC_BF16};
    static const double misaligned[][3] = {{4096, 4100, 4096}, {8192, 8192, 4100}, {4096, 12290, 8192},
                                           {2048, 4096, 1000}, {16384, 8190, 4096}, {8192, 50257, 4096}};
    for (size_t i = 0; i < 6 && n < cap; i++)
        out[n++] = (shape){misaligned[i][0], misaligned[i][1], misaligned[i][2], 1, PP_PREC_BF16};
    static const double small[] = {128, 256, 384, 512};
    for (size_t i = 0; i < 4 && n < cap; i++)
        out[n++] = (shape){small[i], small[i], small[i], 1, PP_PREC_BF16};
    static const double batches[] = {4, 16, 64};
    for (size_t i = 0; i < 3 && n < cap; i++)
        out[n++] = (shape){2048, 128, 2048, batches[i], PP_PREC_BF16};
    return n;
}

/* A CSV of the shapes timed by truth with +-noise, in the layout this test
 * checks the reader on: comments, a blank line, CRLF, columns in another
 * order and an extra one. */
static void write_sweep(pp_strbuf *sb, const pp_gpu *truth, double noise, unsigned long long seed)
{
    shape s[256];
    int n = sweep_shapes(s, 256);
    pp_rng rng = {seed};
    pp_sb_append(sb, "# synthetic GEMM sweep (test_gemm_sweep.c)\r\n\r\n");
    pp_sb_append(sb, "dtype,batch,K,m,n,time_us,note\r\n");
    for (int i = 0; i < n; i++) {
        double t = pp_gemm_time_s(truth, s[i].prec, s[i].m, s[i].n, s[i].k, s[i].batch);
        t *= 1.0 + pp_rng_uniform(&rng, -noise, noise);
        pp_sb_appendf(sb, "%s,%g,%g,%g,%g,%.6f,row %d\r\n", s[i].prec == PP_PREC_FP16 ? "torch.float16" : "bf16",
                      s[i].batch, s[i].k, s[i].m, s[i].n, t * 1e6, i);
    }
}

static void fit_text(const char *text, pp_gemm_calibration *cal, pp_gemm_sweep *sw)
{
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(pp_gemm_sweep_parse(text, "sweep.csv", sw, &err), PP_OK);
    memset(cal, 0, sizeof *cal);
    pp_catalog cat;
    pp_load_catalog(&cat);
    cal->gpu = *pp_catalog_gpu(&cat, "a100-sxm4-80gb"); /* the catalog's parameters, not the truth */
    CU_ASSERT_EQUAL(pp_calibrate_gemm(&cat, sw, 1, cal), sw->n_rows);
    for (int p = 0; p < PP_GEMM_PARAM_COUNT; p++)
        cal->param[p].source = NULL; /* the catalog's, freed below */
    pp_catalog_free(&cat);
}

static void test_fit_recovers_truth(void)
{
    pp_gpu truth = truth_a100();
    pp_strbuf sb;
    pp_sb_init(&sb);
    write_sweep(&sb, &truth, 0.01, 0x5eed1234ULL);
    pp_gemm_sweep sw;
    pp_gemm_calibration cal;
    fit_text(pp_sb_str(&sb), &cal, &sw);
    const pp_efficiency *e = &cal.gpu.eff;
    printf("\n  %d rows; fitted: gemm %.4f (truth %.2f), k overhead %.1f (%.0f), misaligned %.3f (%.1f), "
           "kernel %.2f us (%.1f); rms log error %.4f -> %.4f\n",
           sw.n_rows, e->gemm, TRUE_CEILING, e->gemm_k_overhead, TRUE_K_OVERHEAD, e->gemm_misaligned, TRUE_MISALIGNED,
           e->kernel_us, TRUE_KERNEL_US, cal.rms_log_error_before, cal.rms_log_error_after);
    CU_ASSERT(fabs(e->gemm - TRUE_CEILING) <= 0.02);
    CU_ASSERT(fabs(e->gemm_k_overhead / TRUE_K_OVERHEAD - 1.0) <= 0.20);
    CU_ASSERT(fabs(e->gemm_misaligned - TRUE_MISALIGNED) <= 0.04);
    CU_ASSERT(fabs(e->kernel_us / TRUE_KERNEL_US - 1.0) <= 0.20);
    for (int p = 0; p < PP_GEMM_PARAM_COUNT; p++) {
        CU_ASSERT(cal.param[p].fitted);
        CU_ASSERT(cal.param[p].after >= cal.param[p].lo && cal.param[p].after <= cal.param[p].hi);
    }
    CU_ASSERT(cal.rms_log_error_after < 0.01);
    CU_ASSERT(cal.rms_log_error_after < cal.rms_log_error_before);
    /* every class of shape is there, and the per-class rates are close */
    for (int k = 0; k < PP_GEMM_CLASS_COUNT; k++) {
        CU_ASSERT(cal.cls[k].n_rows > 0);
        if (cal.cls[k].n_rows)
            CU_ASSERT(fabs(cal.cls[k].fitted_s / cal.cls[k].measured_s - 1.0) < 0.02);
    }
    CU_ASSERT(cal.worst_error_pct < 3.0);
    /* the rest of the efficiency is the catalog's */
    pp_gpu cat = catalog_gpu("a100-sxm4-80gb");
    CU_ASSERT_EQUAL(e->nvlink, cat.eff.nvlink);
    CU_ASSERT_EQUAL(e->attention, cat.eff.attention);
    /* deterministic */
    pp_gemm_calibration again;
    memset(&again, 0, sizeof again);
    again.gpu = cat;
    pp_catalog catalog;
    pp_load_catalog(&catalog);
    pp_calibrate_gemm(&catalog, &sw, 1, &again);
    pp_catalog_free(&catalog);
    CU_ASSERT_EQUAL(memcmp(&again.gpu.eff, &cal.gpu.eff, sizeof cal.gpu.eff), 0);
    pp_gemm_sweep_free(&sw);
    pp_sb_free(&sb);
}

/* The ceiling never leaves its bounds, and never exceeds the peak, even when
 * the rows ask for more. */
static void test_ceiling_bounded(void)
{
    pp_gpu truth = truth_a100();
    truth.eff.gemm = 1.3; /* faster than the datasheet peak: a wrong peak, or sparsity */
    pp_strbuf sb;
    pp_sb_init(&sb);
    write_sweep(&sb, &truth, 0.0, 1);
    pp_gemm_sweep sw;
    pp_gemm_calibration cal;
    fit_text(pp_sb_str(&sb), &cal, &sw);
    pp_catalog cat;
    pp_load_catalog(&cat);
    double hi = pp_catalog_gpu_family(&cat, "a100-sxm4-80gb")->bound[PP_EFF_GEMM].hi;
    pp_catalog_free(&cat);
    CU_ASSERT(cal.gpu.eff.gemm <= hi + 1e-12 && cal.gpu.eff.gemm <= 1.0);
    CU_ASSERT(cal.param[PP_GEMM_CEILING].at_bound);
    pp_gemm_sweep_free(&sw);
    pp_sb_free(&sb);
}

/* Large aligned shapes say nothing of misalignment or launch cost: those
 * keep the catalog's values. */
static void test_uninformed_kept(void)
{
    pp_gpu truth = truth_a100();
    pp_strbuf sb;
    pp_sb_init(&sb);
    pp_sb_append(&sb, "m,n,k,dtype,time_s\n");
    for (double m = 4096; m <= 16384; m *= 2)
        for (double k = 2048; k <= 16384; k *= 2)
            pp_sb_appendf(&sb, "%g,%g,%g,bf16,%.9g\n", m, 8192.0, k,
                          pp_gemm_time_s(&truth, PP_PREC_BF16, m, 8192, k, 1));
    pp_gemm_sweep sw;
    pp_gemm_calibration cal;
    fit_text(pp_sb_str(&sb), &cal, &sw);
    pp_gpu cat = catalog_gpu("a100-sxm4-80gb");
    CU_ASSERT(cal.param[PP_GEMM_CEILING].fitted);
    CU_ASSERT(!cal.param[PP_GEMM_MISALIGNED].fitted);
    CU_ASSERT(!cal.param[PP_GEMM_KERNEL_US].fitted);
    CU_ASSERT_EQUAL(cal.gpu.eff.gemm_misaligned, cat.eff.gemm_misaligned);
    CU_ASSERT_EQUAL(cal.gpu.eff.kernel_us, cat.eff.kernel_us);
    CU_ASSERT(fabs(cal.gpu.eff.gemm - TRUE_CEILING) <= 0.02);
    pp_gemm_sweep_free(&sw);
    pp_sb_free(&sb);
}

/* ---- the reader ------------------------------------------------------------------------ */

static void test_units_and_layout(void)
{
    const char *text = "\xEF\xBB\xBF"
                       "# units\n"
                       "  M , \"N\", k ,precision,b,time_ms, tflops\r\n"
                       "4096,8192,1024.0,\"bfloat16\",,2.0,999\r\n"
                       "   \n"
                       "4096,8192,1024,half,2,4.0\n"
                       "\t# a comment between rows\n"
                       "4096,8192,1024,torch.float8_e4m3fn,1,1.5\n";
    pp_gemm_sweep sw;
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(pp_gemm_sweep_parse(text, "units.csv", &sw, &err), PP_OK);
    CU_ASSERT_EQUAL_FATAL(sw.n_rows, 3);
    CU_ASSERT_STRING_EQUAL(sw.time_from, "time_ms"); /* a measured time over a rate */
    CU_ASSERT(!sw.cookbook);
    CU_ASSERT_EQUAL(sw.rows[0].m, 4096);
    CU_ASSERT_EQUAL(sw.rows[0].n, 8192);
    CU_ASSERT_EQUAL(sw.rows[0].k, 1024);
    CU_ASSERT_EQUAL(sw.rows[0].batch, 1);
    CU_ASSERT_EQUAL(sw.rows[0].prec, PP_PREC_BF16);
    PP_REL_EQ(sw.rows[0].time_s, 2e-3, 1e-12);
    CU_ASSERT_EQUAL(sw.rows[0].line, 3);
    CU_ASSERT_EQUAL(sw.rows[1].batch, 2);
    CU_ASSERT_EQUAL(sw.rows[1].prec, PP_PREC_FP16);
    CU_ASSERT_EQUAL(sw.rows[1].line, 5);
    CU_ASSERT_EQUAL(sw.rows[2].prec, PP_PREC_FP8);
    pp_gemm_sweep_free(&sw);

    /* tflops alone: time = 2 b m n k / rate */
    CU_ASSERT_EQUAL_FATAL(pp_gemm_sweep_parse("m,n,k,dtype,tflops,batch\n1000,2000,3000,fp16,240,4\n", "r.csv", &sw,
                                              &err), PP_OK);
    PP_REL_EQ(sw.rows[0].time_s, 2.0 * 4 * 1000 * 2000 * 3000 / 240e12, 1e-12);
    pp_gemm_sweep_free(&sw);
    CU_ASSERT_EQUAL_FATAL(pp_gemm_sweep_parse("time_s,dtype,k,n,m\n0.25,fp32,8,8,8\n", "s.csv", &sw, &err), PP_OK);
    CU_ASSERT_EQUAL(sw.rows[0].time_s, 0.25);
    CU_ASSERT_EQUAL(sw.rows[0].prec, PP_PREC_FP32);
    pp_gemm_sweep_free(&sw);
}

static void test_bad_rows_skipped(void)
{
    const char *text = "m,n,k,dtype,time_us\n"
                       "4096,4096,4096,bf16,1000\n"    /* 2: fine */
                       "abc,4096,4096,bf16,1000\n"     /* 3: m not a number */
                       "4096,4096,4096,int8,1000\n"    /* 4: a dtype parplan does not price */
                       "4096,4096,4096,bf16,-3\n"      /* 5: negative time */
                       "4096,4096\n"                   /* 6: cut short */
                       "4096,0,4096,bf16,1000\n"       /* 7: zero dimension */
                       "4096,4096,4096.5,bf16,1000\n"  /* 8: not whole */
                       "4096,4096,4096,bf16,nan\n"     /* 9: not finite */
                       "4096,4096,4096,bf16,\n"        /* 10: empty */
                       "4096,4096,99999999999,bf16,1\n" /* 11: beyond any GPU */
                       "8192,8192,8192,fp16,9000\n";   /* 12: fine */
    pp_gemm_sweep sw;
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(pp_gemm_sweep_parse(text, "bad-rows.csv", &sw, &err), PP_OK);
    CU_ASSERT_EQUAL(sw.n_rows, 2);
    CU_ASSERT_EQUAL(sw.n_skipped, 9);
    CU_ASSERT_EQUAL(sw.n_notes, PP_GEMM_SKIP_NOTES);
    PP_ASSERT_CONTAINS(sw.notes[0], "line 3");
    PP_ASSERT_CONTAINS(sw.notes[0], "abc");
    PP_ASSERT_CONTAINS(sw.notes[1], "dtype");
    PP_ASSERT_CONTAINS(sw.notes[3], "too few cells");
    CU_ASSERT_EQUAL(sw.rows[1].line, 12);
    pp_strbuf sb;
    pp_sb_init(&sb);
    pp_gemm_calibration cal;
    memset(&cal, 0, sizeof cal);
    pp_catalog cat;
    pp_load_catalog(&cat);
    cal.gpu = *pp_catalog_gpu(&cat, "a100-sxm4-80gb");
    pp_calibrate_gemm(&cat, &sw, 1, &cal);
    pp_report_gemm_text(&sw, 1, &cal, &sb);
    pp_catalog_free(&cat);
    PP_ASSERT_CONTAINS(pp_sb_str(&sb), "skipped 9");
    PP_ASSERT_CONTAINS(pp_sb_str(&sb), "line 4: expected a dtype");
    PP_ASSERT_CONTAINS(pp_sb_str(&sb), "and 1 more");
    pp_sb_free(&sb);
    pp_gemm_sweep_free(&sw);
}

/* A time that is a number but no GEMM can take (or a rate that implies one)
 * refuses the sweep, naming its line and column: skipping it would fit the
 * rest as if the file were sound. */
static void test_out_of_range(void)
{
    static const struct {
        const char *text, *where, *says;
    } CASES[] = {
        {"m,n,k,dtype,time_us\n8,8,8,bf16,1e300\n", "r.csv:2:12", "found '1e300'"},
        {"m,n,k,dtype,time_s\n8,8,8,bf16,2\n8,8,8,bf16,1e5\n", "r.csv:3:12", "from 1e-09 to 10000"},
        {"m,n,k,dtype,tflops\n4096,4096,4096,bf16,1e-300\n", "r.csv:2:21", "GEMM call time in seconds"},
        {"m,n,k,dtype,time_ms\n# c\n\n  8 , 8 , 8 , bf16 , 1e-12\n", "r.csv:4:22", "found '1e-12'"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        pp_gemm_sweep sw;
        pp_error err;
        memset(&err, 0, sizeof err);
        CU_ASSERT_EQUAL(pp_gemm_sweep_parse(CASES[i].text, "r.csv", &sw, &err), PP_EINPUT);
        CU_ASSERT_PTR_NULL(sw.rows);
        CU_ASSERT_STRING_EQUAL(err.path, CASES[i].where);
        PP_ASSERT_CONTAINS(err.msg, CASES[i].says);
        if (strcmp(err.path, CASES[i].where) != 0 || !strstr(err.msg, CASES[i].says))
            printf("\n  case %zu: %s: %s\n", i, err.path, err.msg);
    }
}

/* A malformed file is an error naming the file (and line) and what was
 * expected: never a crash, never a fit on nothing. */
static void test_malformed(void)
{
    static const struct {
        const char *text, *says;
    } CASES[] = {
        {"", "found no line"},
        {"# only comments\n\n  \r\n", "found no line"},
        {"m,n,k,dtype\n1,2,3,bf16\n", "no time column"},
        {"m,n,dtype,time_us\n1,2,bf16,3\n", "no 'k' column"},
        {"m,n,k,time_us\n1,2,3,4\n", "no 'dtype' column"},
        {"m,n,k,dtype,time\n8,8,8,bf16,1\n", "has no unit"},
        {"m,n,k,k,dtype,time_us\n8,8,8,8,bf16,1\n", "twice"},
        {"m,n,k,dtype,time_us\n", "no valid GEMM row (0 skipped)"},
        {"m,n,k,dtype,time_us\nx,y,z,bf16,1\n8,8,8,int4,1\n", "no valid GEMM row (2 skipped; first: line 2"},
        {"\x01\x02\x03garbage,\xff\xfe\n\x7f,,,,,,\n", "expected a header"},
        {",,,,\n,,,,\n", "expected a header"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        pp_gemm_sweep sw;
        pp_error err;
        memset(&err, 0, sizeof err);
        int rc = pp_gemm_sweep_parse(CASES[i].text, "bad.csv", &sw, &err);
        CU_ASSERT_EQUAL(rc, PP_EINPUT);
        CU_ASSERT_PTR_NULL(sw.rows);
        PP_ASSERT_CONTAINS(err.path, "bad.csv");
        PP_ASSERT_CONTAINS(err.msg, CASES[i].says);
        if (!strstr(err.msg, CASES[i].says))
            printf("\n  case %zu: %s: %s\n", i, err.path, err.msg);
    }
    /* the header's line is in the path */
    pp_gemm_sweep sw;
    pp_error err;
    CU_ASSERT_EQUAL(pp_gemm_sweep_parse("# c\n\nm,n,k,dtype\n", "h.csv", &sw, &err), PP_EINPUT);
    CU_ASSERT_STRING_EQUAL(err.path, "h.csv:3");
    /* a very long line and many cells */
    pp_strbuf sb;
    pp_sb_init(&sb);
    pp_sb_append(&sb, "m,n,k,dtype,time_us\n");
    for (int i = 0; i < 5000; i++)
        pp_sb_append(&sb, "1,");
    pp_sb_append(&sb, "\n");
    CU_ASSERT_EQUAL(pp_gemm_sweep_parse(pp_sb_str(&sb), "long.csv", &sw, &err), PP_EINPUT);
    pp_sb_free(&sb);
    /* random texts over the CSV's alphabet: a clean answer every time */
    static const char ALPHABET[] = "mnkdtype_usbatchflops0123456789.,,,\n\r\"# e-+bf16fp8";
    pp_rng rng = {0xC5F00DULL};
    char text[512];
    for (int round = 0; round < 3000; round++) {
        int len = pp_rng_int(&rng, 0, (int)sizeof text - 1);
        int start = round % 2 ? 0 : snprintf(text, sizeof text, "m,n,k,dtype,%s\n", round % 4 ? "time_us" : "tflops");
        for (int i = start; i < len; i++)
            text[i] = ALPHABET[pp_rng_int(&rng, 0, (int)sizeof ALPHABET - 2)];
        text[len > start ? len : start] = '\0';
        int rc = pp_gemm_sweep_parse(text, "random.csv", &sw, &err);
        CU_ASSERT(rc == PP_OK || rc == PP_EINPUT);
        if (rc == PP_OK) {
            CU_ASSERT(sw.n_rows > 0);
            for (int i = 0; i < sw.n_rows; i++)
                CU_ASSERT(sw.rows[i].time_s > 0.0 && isfinite(sw.rows[i].time_s) && sw.rows[i].m >= 1.0);
            pp_gemm_sweep_free(&sw);
        }
    }
}

/* The CSV of EleutherAI's cookbook (tests/data/gemm-sweep-cookbook.csv:
 * its own sample, through its convert_to_csv.py): n is the shared
 * dimension, the rate is TFLOP/s, the operands fp16. */
static void test_cookbook_sample(void)
{
    char path[512];
    pp_source_path("tests/data/gemm-sweep-cookbook.csv", path, sizeof path);
    pp_gemm_sweep sw;
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(pp_gemm_sweep_load(path, &sw, &err), PP_OK);
    CU_ASSERT(sw.cookbook);
    CU_ASSERT_STRING_EQUAL(sw.time_from, "throughput");
    CU_ASSERT_EQUAL_FATAL(sw.n_rows, 4);
    CU_ASSERT_EQUAL(sw.n_skipped, 0);
    const pp_gemm_row *r = &sw.rows[1]; /* 1024,1280,1024,68.985 */
    CU_ASSERT_EQUAL(r->m, 1024);
    CU_ASSERT_EQUAL(r->k, 1280); /* the cookbook's n */
    CU_ASSERT_EQUAL(r->n, 1024);
    CU_ASSERT_EQUAL(r->prec, PP_PREC_FP16);
    PP_REL_EQ(r->time_s, 2.0 * 1024 * 1280 * 1024 / 68.985e12, 1e-12);
    pp_gemm_sweep_free(&sw);
    /* a cookbook file with a dtype column is read in BLAS terms */
    CU_ASSERT_EQUAL_FATAL(pp_gemm_sweep_parse("m,n,k,dtype,throughput\n64,128,256,bf16,1\n", "x.csv", &sw, &err),
                          PP_OK);
    CU_ASSERT(!sw.cookbook);
    CU_ASSERT_EQUAL(sw.rows[0].k, 256);
    pp_gemm_sweep_free(&sw);
}

/* ---- the command ---------------------------------------------------------------------------- */

static void test_cli(void)
{
    pp_gpu truth = truth_a100();
    pp_strbuf sb;
    pp_sb_init(&sb);
    write_sweep(&sb, &truth, 0.01, 42);
    char csv[512], out[512], problem[512], plan[512];
    pp_write_temp("sweep.csv", pp_sb_str(&sb), csv, sizeof csv);
    pp_sb_free(&sb);
    pp_temp_path("gemm-eff.json", out, sizeof out);
    const char *args[] = {"calibrate", "--gemm-sweep", csv, "--gpu", "a100-sxm4-80gb", "-o", out, NULL};
    pp_run_result r;
    CU_ASSERT_EQUAL_FATAL(pp_run(args, NULL, &r), 0);
    CU_ASSERT_EQUAL(r.exit_code, 0);
    PP_ASSERT_CONTAINS(r.err, "shape class");
    PP_ASSERT_CONTAINS(r.err, "misaligned K or N");
    PP_ASSERT_CONTAINS(r.err, "worst error");
    PP_ASSERT_CONTAINS(r.err, "gemm_k_overhead");
    pp_run_free(&r);
    char *text = pp_slurp(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    PP_ASSERT_CONTAINS(text, "\"a100-sxm4-80gb\"");
    PP_ASSERT_CONTAINS(text, "\"gemm_k_overhead\"");
    PP_ASSERT_CONTAINS(text, "\"gemm_misaligned\"");
    /* the link parameters are the catalog's */
    pp_gpu cat = catalog_gpu("a100-sxm4-80gb");
    char nvlink[64];
    snprintf(nvlink, sizeof nvlink, "\"nvlink\":\t%.4g", cat.eff.nvlink);
    PP_ASSERT_CONTAINS(text, nvlink);
    free(text);
    /* the file reads back, and a plan can be priced with it */
    pp_catalog c;
    pp_load_catalog(&c);
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(pp_catalog_apply_efficiency(&c, out, &err), PP_OK);
    const pp_gpu *a100 = pp_catalog_gpu(&c, "a100-sxm4-80gb");
    CU_ASSERT(fabs(a100->eff.gemm_k_overhead / TRUE_K_OVERHEAD - 1.0) <= 0.2);
    /* an efficiency file is checked: the penalty is a fraction */
    char wrong[512];
    pp_write_temp("wrong-eff.json", "{\"gpus\": {\"a100-sxm4-80gb\": {\"gemm_misaligned\": 1.5}}}", wrong,
                  sizeof wrong);
    CU_ASSERT_EQUAL(pp_catalog_apply_efficiency(&c, wrong, &err), PP_EINPUT);
    PP_ASSERT_CONTAINS(err.path, "gemm_misaligned");
    pp_catalog_free(&c);
    pp_source_path("data/examples/gpt3-175b-1024-a100.json", problem, sizeof problem);
    pp_source_path("data/examples/gpt3-175b-1024-a100.plan.json", plan, sizeof plan);
    const char *eval[] = {"eval", problem, "--plan", plan, "--efficiency", out, NULL};
    CU_ASSERT_EQUAL_FATAL(pp_run(eval, NULL, &r), 0);
    CU_ASSERT_EQUAL(r.exit_code, 0);
    pp_run_free(&r);

    char bad[512];
    pp_write_temp("bad.csv", "# x\nm,n,k,dtype,time\n1,2,3,bf16,4\n", bad, sizeof bad);
    const char *bad_args[] = {"calibrate", "--gemm-sweep", bad, "--gpu", "a100-sxm4-80gb", NULL};
    pp_run_expect(bad_args, 2, "bad.csv:2");
    pp_run_expect(bad_args, 2, "time_us");
    const char *no_gpu[] = {"calibrate", "--gemm-sweep", csv, NULL};
    pp_run_expect(no_gpu, 2, "--gpu ID or --problem");
    const char *both[] = {"calibrate", "--gemm-sweep", "--nccl-tests", csv, "--gpu", "a100-sxm4-80gb", NULL};
    pp_run_expect(both, 2, NULL);
    /* fp8 rows on a GPU without fp8: nothing to fit */
    char fp8[512];
    pp_write_temp("fp8.csv", "m,n,k,dtype,time_us\n4096,4096,4096,fp8,100\n", fp8, sizeof fp8);
    const char *no_peak[] = {"calibrate", "--gemm-sweep", fp8, "--gpu", "a100-sxm4-80gb", NULL};
    pp_run_expect(no_peak, 2, "no peak");
    /* a time out of range: exit 2 at its line and column, nothing written */
    char huge[512];
    pp_write_temp("huge-time.csv", "m,n,k,dtype,time_us\n4096,4096,4096,bf16,600\n8,8,8,bf16,1e300\n", huge,
                  sizeof huge);
    const char *refused[] = {"calibrate", "--gemm-sweep", huge, "--gpu", "a100-sxm4-80gb", "-o", out, NULL};
    pp_run_refused(refused, "huge-time.csv:3:12: expected a GEMM call time in seconds", out);
}

int main(void)
{
    static const pp_test tests[] = {
        {"pp_gemm_time_s is the model's GEMM, by hand", test_formula_by_hand},
        {"split-K fills the waves of a weight gradient, by hand", test_split_k_by_hand},
        {"the step time's GEMMs follow the shape terms", test_step_uses_shape_terms},
        {"the fit recovers a known truth (ceiling 0.02, K overhead 20 %)", test_fit_recovers_truth},
        {"the ceiling stays within its bounds and under the peak", test_ceiling_bounded},
        {"shape terms no row informs keep their values", test_uninformed_kept},
        {"units, column order, quotes, CRLF, comments, batch", test_units_and_layout},
        {"invalid rows are skipped and reported", test_bad_rows_skipped},
        {"a time out of range refuses the sweep at its line and column", test_out_of_range},
        {"a malformed CSV is an error, never a crash", test_malformed},
        {"the EleutherAI cookbook's CSV parses", test_cookbook_sample},
        {"calibrate --gemm-sweep writes an efficiency file", test_cli},
        {NULL, NULL},
    };
    return pp_test_main("GEMM sweep calibration", tests);
}
