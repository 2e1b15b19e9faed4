/*
 * mip_matrix.c: the matrix of the MIP (mip.h's builder API): rows, columns,
 * coefficients and their names.  The constraint families (cons/) write their
 * rows through it, and the build (mip.c) its columns; it knows neither, so
 * the families sit between the two without a circle.
 *
 * The matrix is collected as triplets (pp_mip_coef) and loaded in one
 * glp_load_matrix call by the build.
 */
#include "mip.h"

#include <glpk.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool grow_triplets(pp_mip *m)
{
    int cap = m->nz_cap ? 2 * m->nz_cap : 65536;
    int *ia = realloc(m->ia, (size_t)(cap + 1) * sizeof *ia);
    if (ia)
        m->ia = ia;
    int *ja = realloc(m->ja, (size_t)(cap + 1) * sizeof *ja);
    if (ja)
        m->ja = ja;
    double *ar = realloc(m->ar, (size_t)(cap + 1) * sizeof *ar);
    if (ar)
        m->ar = ar;
    if (!ia || !ja || !ar)
        return false;
    m->nz_cap = cap;
    return true;
}

void pp_mip_coef(pp_mip *m, int row, int col, double value)
{
    if (value == 0.0 || m->failed)
        return;
    if (m->nz == m->nz_cap && !grow_triplets(m)) {
        m->failed = true;
        return;
    }
    m->nz++;
    m->ia[m->nz] = row;
    m->ja[m->nz] = col;
    m->ar[m->nz] = value;
}

static void vname(char *buf, size_t len, const char *fmt, va_list ap)
{
    vsnprintf(buf, len, fmt, ap);
}

int pp_mip_add_row(pp_mip *m, pp_row_sense sense, double rhs, const char *fmt, ...)
{
    char name[256];
    va_list ap;
    va_start(ap, fmt);
    vname(name, sizeof name, fmt, ap);
    va_end(ap);
    int i = glp_add_rows(m->lp, 1);
    glp_set_row_name(m->lp, i, name);
    glp_set_row_bnds(m->lp, i, sense == PP_ROW_LE ? GLP_UP : sense == PP_ROW_GE ? GLP_LO : GLP_FX, rhs, rhs);
    return i;
}

static bool grow_cols(pp_mip *m)
{
    int cap = m->cols_cap ? 2 * m->cols_cap : 4096;
    pp_mip_col *c = realloc(m->cols, (size_t)(cap + 1) * sizeof *c);
    if (!c)
        return false;
    m->cols = c;
    m->cols_cap = cap;
    return true;
}

int pp_mip_add_desc_col(pp_mip *m, const pp_mip_col *desc, bool binary, double lo, double hi, double obj_units,
                        const char *name)
{
    if (m->failed || (m->n_cols == m->cols_cap && !grow_cols(m))) {
        m->failed = true;
        return 0;
    }
    int j = glp_add_cols(m->lp, 1);
    glp_set_col_name(m->lp, j, name);
    if (binary)
        glp_set_col_kind(m->lp, j, GLP_BV);
    else
        glp_set_col_bnds(m->lp, j, hi < 0 ? GLP_LO : GLP_DB, lo, hi < 0 ? 0.0 : hi);
    glp_set_obj_coef(m->lp, j, obj_units);
    m->n_cols = j;
    m->cols[j] = *desc;
    return j;
}

int pp_mip_add_col(pp_mip *m, bool binary, double lo, double hi, double obj, const char *fmt, ...)
{
    char name[256];
    va_list ap;
    va_start(ap, fmt);
    vname(name, sizeof name, fmt, ap);
    va_end(ap);
    pp_mip_col desc;
    memset(&desc, 0, sizeof desc);
    desc.kind = PP_COL_AUX;
    desc.shape = -1;
    return pp_mip_add_desc_col(m, &desc, binary, lo, hi, obj, name);
}

double pp_mip_obj_coef(const pp_mip *m, int j)
{
    return glp_get_obj_coef(m->lp, j);
}

/* ---- names -------------------------------------------------------------- */

/* Names must be valid in CPLEX LP and free MPS: letters, digits, '_'. */
void pp_mip_safe_id(const char *in, char *out, size_t len)
{
    size_t i = 0;
    for (; in[i] && i + 1 < len; i++) {
        char ch = in[i];
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
        out[i] = ok ? ch : '_';
    }
    out[i] = '\0';
}

void pp_mip_shape_key(const pp_mip *m, int si, char *buf, size_t len)
{
    const pp_plan *b = &m->space->shapes[si].base;
    int n = snprintf(buf, len, "t%d_p%d_d%d_c%d_b%d_v%d", b->tp, b->pp, b->dp, b->cp, b->micro_batch,
                     b->virtual_stages);
    if ((b->ep > 1 || b->etp > 1) && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "_e%d_x%d", b->ep, b->etp);
    if (b->tp_mode == PP_TP_1D || n < 0 || (size_t)n >= len)
        return;
    if (b->tp_mode == PP_TP_2P5D)
        snprintf(buf + n, len - (size_t)n, "_m2p5d%d", b->tp_depth);
    else
        snprintf(buf + n, len - (size_t)n, "_m%s", b->tp_mode == PP_TP_2D ? "2d" : "3d");
}

bool pp_mip_reserve(pp_mip *m)
{
    return grow_cols(m) && grow_triplets(m);
}
