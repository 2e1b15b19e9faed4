/*
 * gemm_sweep.c: reading a GEMM sweep CSV (see gemm_sweep.h).
 *
 * The header decides everything: which cell holds what, the time's unit,
 * and the cookbook layout.  A row is checked cell by cell and either kept
 * whole or skipped with its reason; nothing is guessed.
 */
#include "gemm_sweep.h"

#include "error.h"
#include "json_util.h"
#include "text_number.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_CELLS 256
#define MAX_DIM 1e7 /* no GPU GEMM has a dimension of ten million */

/* The columns parplan reads; the rest are ignored. */
enum { COL_M, COL_N, COL_K, COL_DTYPE, COL_BATCH, COL_TIME, COL_COUNT };

/* Time columns, best first: a measured time over a derived rate. */
static const struct {
    const char *name;
    double to_s;   /* seconds per unit; 0: TFLOP/s */
    bool cookbook; /* the EleutherAI cookbook's column */
} TIME_COLUMNS[] = {
    {"time_us", 1e-6, false}, {"time_ms", 1e-3, false}, {"time_s", 1.0, false},
    {"tflops", 0.0, false},   {"throughput", 0.0, true},
};
#define N_TIME_COLUMNS ((int)(sizeof TIME_COLUMNS / sizeof TIME_COLUMNS[0]))

static const struct {
    const char *name;
    pp_precision prec;
} DTYPES[] = {
    {"bf16", PP_PREC_BF16},    {"bfloat16", PP_PREC_BF16},      {"fp16", PP_PREC_FP16},
    {"half", PP_PREC_FP16},    {"float16", PP_PREC_FP16},       {"f16", PP_PREC_FP16},
    {"fp8", PP_PREC_FP8},      {"e4m3", PP_PREC_FP8},           {"e5m2", PP_PREC_FP8},
    {"float8_e4m3fn", PP_PREC_FP8}, {"float8_e5m2", PP_PREC_FP8}, {"fp32", PP_PREC_FP32},
    {"float32", PP_PREC_FP32}, {"float", PP_PREC_FP32},         {"tf32", PP_PREC_FP32},
};

bool pp_gemm_dtype(const char *cell, pp_precision *out)
{
    if (strncasecmp(cell, "torch.", 6) == 0)
        cell += 6;
    for (size_t i = 0; i < sizeof DTYPES / sizeof DTYPES[0]; i++)
        if (strcasecmp(cell, DTYPES[i].name) == 0) {
            *out = DTYPES[i].prec;
            return true;
        }
    return false;
}

/* ---- cells ------------------------------------------------------------------ */

/* Trim spaces and one pair of double quotes, in place. */
static char *trim_cell(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
        s[n - 1] = '\0';
        s++;
    }
    return s;
}

/* Split a line on sep into at most max trimmed cells. */
static int split_cells(char *line, char sep, char **cell, int max)
{
    int n = 0;
    for (char *p = line; n < max;) {
        char *end = strchr(p, sep);
        if (end)
            *end = '\0';
        cell[n++] = trim_cell(p);
        if (!end)
            break;
        p = end + 1;
    }
    return n;
}

/* A positive whole number at most MAX_DIM ("1024" or pandas' "1024.0"). */
static bool parse_dim(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !isfinite(v) || v < 1.0 || v > MAX_DIM || v != floor(v))
        return false;
    *out = v;
    return true;
}

static bool parse_positive(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !isfinite(v) || v <= 0.0)
        return false;
    *out = v;
    return true;
}

/* ---- the header ---------------------------------------------------------------- */

typedef struct layout {
    int col[COL_COUNT]; /* cell index of each column read, -1 if absent */
    int time_kind;      /* index into TIME_COLUMNS */
    char sep;
} layout;

static int column_of(const char *name, int *time_kind)
{
    static const char *const NAMES[] = {"m", "n", "k", "dtype", "batch"};
    for (int c = 0; c < COL_TIME; c++)
        if (strcasecmp(name, NAMES[c]) == 0)
            return c;
    if (strcasecmp(name, "b") == 0)
        return COL_BATCH;
    if (strcasecmp(name, "precision") == 0)
        return COL_DTYPE;
    for (int t = 0; t < N_TIME_COLUMNS; t++)
        if (strcasecmp(name, TIME_COLUMNS[t].name) == 0) {
            *time_kind = t;
            return COL_TIME;
        }
    return -1;
}

#define EXPECTED_COLUMNS                                                                                         \
    "m, n, k, dtype and a time (time_us, time_ms, time_s or tflops; or the EleutherAI cookbook's m, n, k, "      \
    "throughput)"

static int read_header(char *line, const char *where, layout *L, pp_gemm_sweep *s, pp_error *err)
{
    char *cell[MAX_CELLS];
    L->sep = strchr(line, ',') || !strchr(line, '\t') ? ',' : '\t';
    int n = split_cells(line, L->sep, cell, MAX_CELLS);
    for (int c = 0; c < COL_COUNT; c++)
        L->col[c] = -1;
    L->time_kind = N_TIME_COLUMNS;
    for (int i = 0; i < n; i++) {
        int kind = N_TIME_COLUMNS, c = column_of(cell[i], &kind);
        if (c < 0) {
            if (strcasecmp(cell[i], "time") == 0 || strcasecmp(cell[i], "latency") == 0)
                return pp_error_set(err, PP_EINPUT, where, "the column '%.40s' has no unit: name it time_us, "
                                                           "time_ms or time_s", cell[i]);
            continue;
        }
        if (c == COL_TIME) {
            if (kind < L->time_kind) {
                L->time_kind = kind;
                L->col[COL_TIME] = i;
            }
            continue;
        }
        if (L->col[c] >= 0)
            return pp_error_set(err, PP_EINPUT, where, "expected each column once, found '%.40s' twice", cell[i]);
        L->col[c] = i;
    }
    s->cookbook = L->time_kind < N_TIME_COLUMNS && TIME_COLUMNS[L->time_kind].cookbook && L->col[COL_DTYPE] < 0;
    static const char *const WHAT[] = {"m", "n", "k", "dtype"};
    for (int c = COL_M; c <= COL_DTYPE; c++)
        if (L->col[c] < 0 && !(c == COL_DTYPE && s->cookbook))
            return pp_error_set(err, PP_EINPUT, where, "expected a header naming the columns " EXPECTED_COLUMNS
                                                       "; there is no '%s' column", WHAT[c]);
    if (L->col[COL_TIME] < 0)
        return pp_error_set(err, PP_EINPUT, where, "expected a header naming the columns " EXPECTED_COLUMNS
                                                   "; there is no time column");
    snprintf(s->time_from, sizeof s->time_from, "%s", TIME_COLUMNS[L->time_kind].name);
    return PP_OK;
}

/* ---- rows ------------------------------------------------------------------------- */

static void skip_row(pp_gemm_sweep *s, int line, const char *why, const char *cell)
{
    if (s->n_notes < PP_GEMM_SKIP_NOTES) {
        char q[64];
        pp_json_quote(cell ? cell : "", q, sizeof q);
        snprintf(s->notes[s->n_notes++], sizeof s->notes[0], "line %d: %s%s%s", line, why, cell ? ", found " : "",
                 cell ? q : "");
    }
    s->n_skipped++;
}

static const char *cell_at(char **cell, int n, int col)
{
    return col >= 0 && col < n ? cell[col] : NULL;
}

/* Read one data line into r; false (and the reason noted) if it is not
 * valid.  A time that is a number but out of range refuses the sweep: *rc
 * and err say where. */
static bool read_row(char *line, int lineno, const layout *L, pp_gemm_sweep *s, pp_gemm_row *r, int *rc,
                     pp_error *err)
{
    char *cell[MAX_CELLS];
    int n = split_cells(line, L->sep, cell, MAX_CELLS);
    const char *m = cell_at(cell, n, L->col[COL_M]), *a = cell_at(cell, n, L->col[COL_N]),
               *b = cell_at(cell, n, L->col[COL_K]), *t = cell_at(cell, n, L->col[COL_TIME]);
    const char *dt = cell_at(cell, n, L->col[COL_DTYPE]), *bt = cell_at(cell, n, L->col[COL_BATCH]);
    double x, y;
    r->line = lineno;
    r->batch = 1.0;
    if (!m || !a || !b || !t || (!s->cookbook && !dt)) {
        skip_row(s, lineno, "too few cells for the header's columns", NULL);
        return false;
    }
    const char *dims[3] = {m, a, b};
    double *into[3] = {&r->m, &x, &y};
    for (int i = 0; i < 3; i++)
        if (!parse_dim(dims[i], into[i])) {
            skip_row(s, lineno, "expected m, n and k as whole numbers from 1 to 1e7", dims[i]);
            return false;
        }
    /* BLAS: (m x k) @ (k x n); the cookbook's n is the shared dimension */
    r->n = s->cookbook ? y : x;
    r->k = s->cookbook ? x : y;
    if (bt && *bt && !parse_dim(bt, &r->batch)) {
        skip_row(s, lineno, "expected the batch as a positive whole number", bt);
        return false;
    }
    r->prec = PP_PREC_FP16;
    if (dt && !pp_gemm_dtype(dt, &r->prec)) {
        skip_row(s, lineno, "expected a dtype of bf16, fp16, fp8 or fp32", dt);
        return false;
    }
    double v;
    if (!parse_positive(t, &v)) {
        skip_row(s, lineno, "expected a positive time or rate", t);
        return false;
    }
    double to_s = TIME_COLUMNS[L->time_kind].to_s;
    r->time_s = to_s > 0.0 ? v * to_s : 2.0 * r->batch * r->m * r->n * r->k / (v * 1e12);
    if (!pp_text_in_range(PP_TEXT_GEMM_S, r->time_s)) {
        *rc = pp_text_refuse(err, s->name, lineno, (int)(t - line) + 1, PP_TEXT_GEMM_S, t);
        return false;
    }
    return true;
}

static int keep_row(pp_gemm_sweep *s, const pp_gemm_row *r)
{
    if (s->n_rows == s->cap_rows) {
        int cap = s->cap_rows ? 2 * s->cap_rows : 64;
        pp_gemm_row *rows = realloc(s->rows, (size_t)cap * sizeof *rows);
        if (!rows)
            return PP_EINTERNAL;
        s->rows = rows;
        s->cap_rows = cap;
    }
    s->rows[s->n_rows++] = *r;
    return PP_OK;
}

/* A line with nothing but spaces, or a comment. */
static bool ignorable(const char *line)
{
    while (isspace((unsigned char)*line))
        line++;
    return *line == '\0' || *line == '#';
}

int pp_gemm_sweep_parse(const char *text, const char *name, pp_gemm_sweep *sweep, pp_error *err)
{
    memset(sweep, 0, sizeof *sweep);
    snprintf(sweep->name, sizeof sweep->name, "%s", name);
    char *buf = strdup(text);
    if (!buf)
        return pp_error_set(err, PP_EINTERNAL, name, "out of memory");
    if ((unsigned char)buf[0] == 0xEF && (unsigned char)buf[1] == 0xBB && (unsigned char)buf[2] == 0xBF)
        memset(buf, ' ', 3); /* a UTF-8 byte-order mark */
    layout L = {{0}, 0, 0};
    bool header = false;
    int rc = PP_OK, lineno = 0;
    for (char *line = buf, *next; line && !rc; line = next) {
        size_t len = strcspn(line, "\r\n");
        next = line[len] ? line + len + (line[len] == '\r' && line[len + 1] == '\n' ? 2 : 1) : NULL;
        line[len] = '\0';
        lineno++;
        if (ignorable(line))
            continue;
        char where[300];
        snprintf(where, sizeof where, "%.256s:%d", name, lineno);
        if (!header) {
            rc = read_header(line, where, &L, sweep, err);
            header = true;
            continue;
        }
        pp_gemm_row r;
        if (read_row(line, lineno, &L, sweep, &r, &rc, err) && keep_row(sweep, &r) != PP_OK)
            rc = pp_error_set(err, PP_EINTERNAL, name, "out of memory");
    }
    free(buf);
    if (!rc && !header)
        rc = pp_error_set(err, PP_EINPUT, name, "expected a CSV header naming the columns " EXPECTED_COLUMNS
                                                ", found no line that is not blank or a comment");
    if (!rc && sweep->n_rows == 0)
        rc = pp_error_set(err, PP_EINPUT, name, "no valid GEMM row (%d skipped%s%s)", sweep->n_skipped,
                          sweep->n_notes ? "; first: " : "", sweep->n_notes ? sweep->notes[0] : "");
    if (rc)
        pp_gemm_sweep_free(sweep);
    return rc;
}

int pp_gemm_sweep_load(const char *path, pp_gemm_sweep *sweep, pp_error *err)
{
    char *text = NULL;
    memset(sweep, 0, sizeof *sweep);
    int rc = pp_json_read_text(path, &text, err);
    if (!rc)
        rc = pp_gemm_sweep_parse(text, path, sweep, err);
    free(text);
    return rc;
}

void pp_gemm_sweep_free(pp_gemm_sweep *sweep)
{
    free(sweep->rows);
    sweep->rows = NULL;
    sweep->n_rows = sweep->cap_rows = 0;
}
