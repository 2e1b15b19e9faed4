/*
 * mip.h: the mixed-integer program whose optimum is the best plan under the
 * cost model, built with an exact linearization of the step time.
 *
 * The step time is the form of a step (costmodel.h, step.c): per shape, a
 * sum over four joint families of terms, each a function of its family's
 * decisions, plus the exposed seconds of three DP overlap pairs and the
 * link bound.  For every shape S of the space and every joint choice of a
 * family's decisions there is one binary variable, whose coefficients are
 * that choice's pp_form_term:
 *
 *   y_S              the shape (degrees and TP mode)  (no cost)
 *   A_{S,R,SP}       recompute, sequence parallel     obj_s of the stage term
 *   T_{S,R,SP,Ctp,O} recompute, sp, TP codec, overlap obj_s of the TP term
 *   P_{S,Cpp(,SP)}   PP codec (sp where it matters)   obj_s of the PP term
 *   D_{S,Z,Cdp,Cpar} ZeRO stage, DP and params codecs obj_s of the DP term
 *   e_once_S, e_per_mb_S, e_gather_S >= 0, cost pair_weight (1 - f): the
 *                    exposed seconds of the three pairs
 *   w_S >= 0, cost 1: the link bound (what the busiest link adds)
 *
 * with the consistency rows, for each S: sum A = sum P = sum D = y_S, for
 * each (S,R,SP): sum A = sum T, and sum_S y_S = 1, and the epigraphs
 *
 *   e_k_S >= sum_j exposed_s_j,k x_j       (each pair k: + the DP wire,
 *                                           - the stage's window)
 *   w_S   >= sum_j link_s_j x_j - sum_j cost_j x_j     per link
 *
 * At any integer point exactly one variable of each family is 1, so the
 * objective is the cost model's step time of the decoded plan, term for term
 * (max(0, x) by minimization).  The constraint families (cons.h) then add
 * their rows; memory may drop a joint variable beforehand when every
 * completion of it exceeds the GPU's memory.
 *
 * Rows that couple families (epigraphs, memory, bandwidth) are written per
 * shape, over that shape's columns only: with one global row the LP
 * relaxation could pay one shape's memory or exposed traffic with another's,
 * and the rows would be dense.  Per shape the LP bound is tight and the rows
 * short; a shape's row is left out when no plan of it can violate it.
 *
 * This is the only formulate/ file that includes glpk.h; the families talk to
 * the model through the small builder API below.
 */
#ifndef PARPLAN_MIP_H
#define PARPLAN_MIP_H

#include "cons.h"
#include "costmodel.h"
#include "space.h"
#include "types.h"

struct glp_prob;

/* The time unit of the MIP: a power of ten of seconds chosen per problem so
 * that the best known plan takes about PP_MIP_STEP_UNITS units.  GLPK works
 * in absolute tolerances at both ends: its presolver ignores bound
 * improvements below 1e-3 (in seconds it would drop the exposed traffic of a
 * millisecond step), and its branch and bound goes wrong once coefficients
 * reach ~1e9 (big-M rows).  At ~1e6 units per step the first costs at most
 * 1e-9 of the step and the second stays out of reach.  Memory rows stay in
 * GiB: a solution that breaks them by a hair is cut off by the planner's
 * check. */
#define PP_MIP_STEP_UNITS 1e6

/* The four joint families, in the order a plan is assembled: the form's
 * (costmodel.h). */
typedef enum {
    PP_FAM_STAGE = PP_FORM_STAGE,
    PP_FAM_TP = PP_FORM_TP,
    PP_FAM_PP = PP_FORM_PP,
    PP_FAM_DP = PP_FORM_DP,
    PP_FAM_COUNT = PP_FORM_FAMILIES
} pp_family;

typedef enum { PP_COL_STAGE = 0, PP_COL_TP, PP_COL_PP, PP_COL_DP, PP_COL_SHAPE, PP_COL_AUX } pp_col_kind;

/* What a column stands for, and its term of the step's form (costmodel.h),
 * whose coefficients its objective, epigraph, link and memory rows read. */
typedef struct pp_mip_col {
    pp_col_kind kind;
    int shape;    /* index into space->shapes; -1 for AUX */
    pp_plan plan; /* the shape's degrees and this family's choices; defaults elsewhere */
    bool dropped; /* candidate proven infeasible: never became a column */
    bool banned;  /* a family's rows fix it to zero (accuracy) */
    /* STAGE, TP, PP, DP: its term (pp_form_term_of); zero for the others */
    pp_form_term form;
    /* AUX */
    int epigraph; /* an epigraph column: PP_EPI_ONCE, PP_EPI_PER_MB or PP_EPI_GATHER; 0 otherwise */
} pp_mip_col;

/* An epigraph column's pair: PP_EPI_x is the form's pair PP_PAIR_x, plus 1. */
enum { PP_EPI_ONCE = PP_PAIR_ONCE + 1, PP_EPI_PER_MB = PP_PAIR_PER_MB + 1, PP_EPI_GATHER = PP_PAIR_GATHER + 1 };

/* The most candidates of a family: DP's (ZeRO stage, DP codec, params
 * codec); TP's (recompute, sequence parallelism, TP codec, overlap: at most
 * 3 (2 codecs + 1)) and the stage family's (a few hundred: recompute and
 * its modules, sequence parallelism, the fp8 store, a MoE model's
 * dispatcher and overlap, the CP exchange) are fewer. */
#define PP_MIP_MAX_CANDS (4 * PP_MAX_CODECS * PP_MAX_CODECS)
#define PP_MIP_MAX_STAGE_CANDS PP_MIP_MAX_CANDS /* the stage family's too: new_cand caps every family there */

/* The joint candidates of one shape, before they become columns. */
typedef struct pp_mip_cands {
    int shape;
    int n[PP_FAM_COUNT];
    pp_mip_col c[PP_FAM_COUNT][PP_MIP_MAX_CANDS];
} pp_mip_cands;

typedef enum { PP_ROW_LE, PP_ROW_GE, PP_ROW_EQ } pp_row_sense;

/* How to build a MIP (pp_mip_options_init sets the defaults). */
typedef struct pp_mip_options {
    unsigned relax;     /* families left out (pp_cons_bit): 0 */
    int keep;           /* screen shapes, keeping the `keep` best plans' (see pp_mip_build); 0: whole space */
    double units_per_s; /* time unit; 0 (default): chosen from the best known plan */
    struct pp_price_cache *prices; /* terms priced by earlier builds (mip_cache.h), read and written when it
                                      holds this problem's prices; NULL (default): none */
    bool count_screened; /* tell a shape screened by its bound alone from one without a plan (default
                            true; planner.h's pp_plan_options.count_screened) */
} pp_mip_options;

void pp_mip_options_init(pp_mip_options *o);

typedef struct pp_mip {
    const pp_problem *prob;
    const pp_space *space;
    unsigned relax;       /* families left out (pp_cons_bit) */
    struct pp_price_cache *prices; /* the options' cache when it holds this problem's prices, else NULL */
    double units_per_s;   /* the MIP's time unit: 1 s is units_per_s units */
    char unit[16];        /* its name: "s", "ms", "10us", "us", ... */
    struct glp_prob *lp;  /* owned */
    int n_cols;           /* columns 1..n_cols */
    pp_mip_col *cols;     /* cols[j] describes column j; cols[0] unused */
    int *shape_col;       /* y column of each shape, 0 if every plan of it was pruned; */
    int *shape_col_end;   /* its other columns (joint, epigraphs) are shape_col+1 .. shape_col_end-1 */
    pp_form_shape *shape_form; /* what the families of each shape share (filled when it is priced) */
    int n_live_shapes;
    int n_nogood;
    /* screening */
    double *shape_lb;     /* least step time of any plan of each shape, s; +inf if none */
    double screen_ub;     /* step time of a known feasible plan (+inf if none) */
    int n_screened;       /* shapes left out: shape_lb > screen_ub */
    double screened_lb;   /* least shape_lb of those (+inf if none), but the lazy ones' (pp_mip_screened_lb) */
    unsigned price_fams;  /* families (bits 1 << pp_form_family) priced in full; while screening only the
                             stage's, the others' terms holding just their memory (pp_form_term_mem_of) */
    bool *lazy;           /* shapes screened by their stage bound alone: their shape_lb is that bound */
    bool count_screened;  /* pp_mip_options.count_screened */
    int n_lazy;
    struct pp_price_cache *own_prices; /* a cache of this build alone when the options bring none for it */
    struct pp_price_cache *free_prices; /* own_prices when the build made it (the options brought no cache) */
    struct pp_price_cache *scratch_from; /* the options' cache, which lends the build its buffers */
    /* matrix triplets, loaded into lp at the end of the build */
    int nz, nz_cap;
    int *ia, *ja;
    double *ar;
    int cols_cap;
    bool failed;    /* an allocation failed during the build */
    bool nonfinite; /* a term was NaN or infinite; nonfinite_col names its column */
    char nonfinite_col[160];
} pp_mip;

/* Build the MIP of a space.
 *
 * Every shape first gets a lower bound on its plans' step time (shape_lb:
 * the exact optimum of the shape with only the bandwidth rows relaxed) and,
 * from the plan attaining it when that plan is feasible, an upper bound.
 * With keep = k > 0, screen_ub is the k-th least of those upper bounds, so
 * at least k feasible plans cost no more, and shapes whose lower bound
 * exceeds it (they cannot hold any of the k best plans) are left out: the
 * optimum and the k best plans of the screened MIP are those of the whole
 * space.  keep = 0 builds the whole space.
 *
 * Returns PP_EINTERNAL on allocation failure or a non-finite cost.  GLPK
 * errors longjmp through the caller's glp_error_hook (solve/planner.c). */
int pp_mip_build(const pp_problem *prob, const pp_space *space, const pp_mip_options *opt, pp_mip *mip,
                 pp_error *err);
void pp_mip_free(pp_mip *mip);

/* The least lower bound of the screened shapes (+inf if none): screened_lb,
 * with the lazy shapes priced in full for it.  For the best bound of a
 * search stopped before its proof. */
double pp_mip_screened_lb(pp_mip *mip);

/* ---- builder API for the constraint families --------------------------- */

/* Add a row `name` (printf format) with the given sense and right-hand side;
 * returns its index (>= 1). */
int pp_mip_add_row(pp_mip *mip, pp_row_sense sense, double rhs, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Add an auxiliary column (binary, or continuous in [lo, hi]; hi < 0 means
 * no upper bound) with objective coefficient obj (in the MIP's units);
 * returns its index. */
int pp_mip_add_col(pp_mip *mip, bool binary, double lo, double hi, double obj, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
/* Add a coefficient to the matrix (a zero is skipped). */
void pp_mip_coef(pp_mip *mip, int row, int col, double value);

/* Objective coefficient of column j, in the MIP's units. */
double pp_mip_obj_coef(const pp_mip *mip, int j);

/* The name of shape si in row and column names, e.g. "t8_p16_d8_c1_b1_v1"
 * ("t16_p16_d4_c1_b4_v1_m2p5d4" for a 2.5D grid of depth 4, "_m2d", "_m3d"). */
void pp_mip_shape_key(const pp_mip *mip, int si, char *buf, size_t len);

/* ---- the matrix, for the build (mip.c) --------------------------------- */

/* Room for the first columns and triplets; false when out of memory. */
bool pp_mip_reserve(pp_mip *mip);
/* Add a column described by desc (copied: its kind, shape and form), with
 * objective coefficient obj_units; returns its index, 0 on failure. */
int pp_mip_add_desc_col(pp_mip *mip, const pp_mip_col *desc, bool binary, double lo, double hi, double obj_units,
                        const char *name);
/* A name valid in CPLEX LP and free MPS: letters, digits, '_'. */
void pp_mip_safe_id(const char *in, char *out, size_t len);

/* ---- reading a solution ------------------------------------------------ */

/* The columns chosen in the current MIP solution: the shape's y and one
 * column of each joint family.  Returns PP_EINTERNAL if the solution is not
 * a consistent selection. */
typedef struct pp_mip_choice {
    int shape_col;
    int col[PP_FAM_COUNT];
} pp_mip_choice;

int pp_mip_decode(const pp_mip *mip, pp_mip_choice *choice, pp_plan *plan, pp_error *err);

/* Exclude one plan from the MIP: sum of its four joint columns <= 3. */
void pp_mip_add_nogood(pp_mip *mip, const pp_mip_choice *choice);

#endif
