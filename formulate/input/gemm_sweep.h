/*
 * gemm_sweep.h: a CSV of measured matrix multiplies (a GEMM sweep), read as
 * it is, for `parplan calibrate --gemm-sweep`.
 *
 * The header line names the columns, in any order, case-insensitive:
 *   m, n, k        the product (m x k) @ (k x n): k is the shared dimension
 *   dtype          bf16, fp16, fp8 or fp32 (also bfloat16, half, float16,
 *                  float8_e4m3fn, float32, tf32 and torch.* spellings)
 *   a time         time_us, time_ms or time_s per call, or tflops (achieved
 *                  TFLOP/s, 2 b m n k / time)
 *   batch (or b)   optional: independent products in one kernel (default 1)
 * Other columns are ignored; comments (#), blank lines, CRLF, quoted cells
 * and spaces around cells are fine.  A file whose time is the column
 * `throughput` (and has no dtype) is the CSV of EleutherAI's cookbook
 * (benchmarks/sizing: mm_flops.py output through plotting/convert_to_csv.py):
 * there A is m x n and B is n x k, so its n is the shared dimension, the
 * throughput is TFLOP/s and the operands are fp16 (.half()).
 *
 * Rows with a missing or wrong value are skipped and counted with the first
 * reasons (file:line); a file without one valid row, or whose header lacks a
 * column, is an error that says what was expected.
 */
#ifndef PARPLAN_GEMM_SWEEP_H
#define PARPLAN_GEMM_SWEEP_H

#include "types.h"

/* One measured GEMM, in BLAS terms: batch products of (m x k) @ (k x n). */
typedef struct pp_gemm_row {
    double m, n, k, batch;
    pp_precision prec;
    double time_s; /* one call: measured, or 2 batch m n k / (tflops 1e12) */
    int line;      /* in its file */
} pp_gemm_row;

#define PP_GEMM_SKIP_NOTES 8

typedef struct pp_gemm_sweep {
    char name[256];      /* the file */
    bool cookbook;       /* the EleutherAI cookbook's layout (n shared, fp16) */
    char time_from[32];  /* the column the time was read from */
    int n_rows, cap_rows;
    pp_gemm_row *rows;   /* owned */
    int n_skipped;
    int n_notes;         /* the first PP_GEMM_SKIP_NOTES skipped rows and why */
    char notes[PP_GEMM_SKIP_NOTES][160];
} pp_gemm_sweep;

/* Parse the text of one sweep (name names it in messages).  PP_EINPUT when
 * the header is missing or lacks a column, or no row is valid. */
int pp_gemm_sweep_parse(const char *text, const char *name, pp_gemm_sweep *sweep, pp_error *err);
int pp_gemm_sweep_load(const char *path, pp_gemm_sweep *sweep, pp_error *err);
void pp_gemm_sweep_free(pp_gemm_sweep *sweep);

/* The precision a dtype cell names; false if none. */
bool pp_gemm_dtype(const char *cell, pp_precision *out);

#endif
