/*
 * nccl_log.c: reading nccl-tests output (see nccl_log.h).
 *
 * The layout follows nccl-tests' own printf formats (src/common.cu of
 * NVIDIA/nccl-tests: v2.0-v2.11 print "#   Rank  0 Pid ..." and an "error"
 * column, v2.13 on "#  Rank  0 Group  0 Pid ..." and "#wrong", with a
 * "root" column for every test; v2.17 on add "# nccl-tests version" and
 * "# Collective test starting:" lines).  Nothing is assumed about column
 * positions: the header line names them.
 */
#include "nccl_log.h"

#include "error.h"
#include "json_util.h"
#include "text_number.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_TOKENS 64
#define PP_NCCL_MAX_LAUNCHED 1000000L /* more ranks than any launcher line means: not a count */

static const char *const OP_NAMES[PP_NCCL_OP_COUNT] = {"unknown",     "all_reduce", "all_gather", "reduce_scatter",
                                                       "alltoall",    "sendrecv",   "other"};

const char *pp_nccl_op_name(pp_nccl_op op)
{
    return op >= 0 && op < PP_NCCL_OP_COUNT ? OP_NAMES[op] : "?";
}

double pp_nccl_bus_factor(pp_nccl_op op, long n)
{
    if (n < 1)
        return 0.0;
    double f = (double)(n - 1) / (double)n;
    switch (op) {
    case PP_NCCL_ALLREDUCE: return 2.0 * f;
    case PP_NCCL_ALLGATHER:
    case PP_NCCL_REDUCESCATTER:
    case PP_NCCL_ALLTOALL: return f;
    case PP_NCCL_SENDRECV: return 1.0;
    default: return 0.0;
    }
}

/* Test names, most specific first ("reduce_perf" is inside "all_reduce_perf"). */
static const struct {
    const char *word;
    pp_nccl_op op;
} TEST_NAMES[] = {
    {"all_reduce", PP_NCCL_ALLREDUCE},         {"allreduce", PP_NCCL_ALLREDUCE},
    {"all_gather", PP_NCCL_ALLGATHER},         {"allgather", PP_NCCL_ALLGATHER},
    {"reduce_scatter", PP_NCCL_REDUCESCATTER}, {"reducescatter", PP_NCCL_REDUCESCATTER},
    {"alltoallv", PP_NCCL_OTHER},              {"alltoall", PP_NCCL_ALLTOALL},
    {"sendrecv", PP_NCCL_SENDRECV},            {"broadcast", PP_NCCL_OTHER},
    {"reduce", PP_NCCL_OTHER},                 {"gather", PP_NCCL_OTHER},
    {"scatter", PP_NCCL_OTHER},                {"hypercube", PP_NCCL_OTHER},
};

/* The collective a text names: "<test>_perf" (a command line, "Collective
 * test starting: all_reduce_perf"), or with loose, any spelling of the test
 * (a file name such as allreduce-2nodes.log). */
static pp_nccl_op op_in_text(const char *text, bool loose)
{
    for (size_t k = 0; k < sizeof TEST_NAMES / sizeof TEST_NAMES[0]; k++) {
        char word[40];
        snprintf(word, sizeof word, "%s%s", TEST_NAMES[k].word, loose ? "" : "_perf");
        size_t len = strlen(word);
        for (const char *at = text; *at; at++)
            if (strncasecmp(at, word, len) == 0)
                return TEST_NAMES[k].op;
    }
    return PP_NCCL_UNKNOWN;
}

/* ---- lines and tokens ------------------------------------------------------ */

/* Remove ANSI colour sequences (ESC [ ... letter) in place. */
static void strip_ansi(char *s)
{
    char *w = s;
    for (char *r = s; *r;) {
        if (r[0] == '\x1b' && r[1] == '[') {
            r += 2;
            while (*r && !isalpha((unsigned char)*r))
                r++;
            if (*r)
                r++;
            continue;
        }
        *w++ = *r++;
    }
    *w = '\0';
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

/* Past what launchers put before each line: MPI's "[1,0]<stdout>:", srun's
 * "0: " and pdsh's "host: " (when a table line or a comment follows). */
static char *skip_prefixes(char *p)
{
    for (int round = 0; round < 4; round++) {
        while (isspace((unsigned char)*p))
            p++;
        char *q;
        if (*p == '[' && (q = strchr(p, ']')) && (strncmp(q, "]<stdout>:", 10) == 0 || strncmp(q, "]<stderr>:", 10) == 0)) {
            p = q + 10;
            continue;
        }
        size_t word = strcspn(p, " \t");
        if (word > 1 && word < 64 && p[word - 1] == ':' && isspace((unsigned char)p[word])) {
            char *rest = p + word;
            while (isspace((unsigned char)*rest))
                rest++;
            if (*rest == '#' || isdigit((unsigned char)*rest)) {
                p = rest;
                continue;
            }
        }
        break;
    }
    return p;
}

static int tokenize(char *s, char **tok, int max)
{
    int n = 0;
    for (char *t = strtok(s, " \t"); t && n < max; t = strtok(NULL, " \t"))
        tok[n++] = t;
    return n;
}

static bool parse_number(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !isfinite(v))
        return false;
    *out = v;
    return true;
}

/* ---- the parser's state ------------------------------------------------------ */

typedef struct col_layout {
    bool known;
    int ncols;       /* tokens of a full row, without a timestamp */
    bool timestamp;  /* rows end with a timestamp (nccl-tests -T) */
    int type_col, redop_col;
    int time_col[2]; /* out-of-place, in-place; -1 if absent */
    bool error_column; /* "error" (max delta, before 2.13) instead of "#wrong" */
} col_layout;

typedef struct host_count {
    char name[PP_ID_LEN];
    long ranks;
} host_count;

typedef struct parser {
    pp_nccl_log *log;
    pp_nccl_run *run; /* current, NULL before the first */
    col_layout cols;
    pp_nccl_op named, pending; /* the current run's test name; one seen after its table */
    long launched, launched_pending; /* processes a launcher line starts (mpirun -np), the same way */
    long per_process;                /* ranks a process drives: nThread x nGpus of the run's header */
    host_count *hosts;
    int n_hosts, cap_hosts;
    long max_rank;
    long rank_lines; /* the current run's rank lines */
    bool reduces; /* a redop other than "none" */
    double best_algbw, ratio; /* busbw/algbw of the row with the largest algbw */
    double *err_over_tol;     /* per row: the old error column over nccl-tests' tolerance */
    int cap_err;
    int gpus_per_node, line;
    unsigned algos;       /* NCCL_ALGO as last set in the file (pp_nccl_run.algos) */
    char algo_said[48];
    bool nvls_off;        /* NCCL_NVLS_ENABLE=0 as last set in the file */
    const char *line_start; /* the current line, for the column of a refused number */
    bool oom;
    int rc;       /* PP_EINPUT once a number is out of range (err says where) */
    pp_error *err;
} parser;

/* Refuse the log: the number at tok, on the current line, is out of range. */
static void refuse(parser *P, const char *tok, pp_text_range_id id)
{
    if (!P->rc)
        P->rc = pp_text_refuse(P->err, P->log->name, P->line, (int)(tok - P->line_start) + 1, id, tok);
}

/* The number of tok if it is one and in range; else the log is refused. */
static bool in_range(parser *P, const char *tok, double v, pp_text_range_id id)
{
    if (pp_text_in_range(id, v))
        return true;
    refuse(P, tok, id);
    return false;
}

static void *grow(void *p, int *cap, int need, size_t size, bool *oom)
{
    if (need <= *cap)
        return p;
    int c = *cap ? *cap * 2 : 16;
    while (c < need)
        c *= 2;
    void *q = realloc(p, (size_t)c * size);
    if (!q) {
        *oom = true;
        return p;
    }
    *cap = c;
    return q;
}

static void reset_run_state(parser *P)
{
    memset(&P->cols, 0, sizeof P->cols);
    P->named = P->pending;
    P->pending = PP_NCCL_UNKNOWN;
    P->launched = P->launched_pending;
    P->launched_pending = 0;
    P->per_process = 1;
    P->n_hosts = 0;
    P->max_rank = -1;
    P->rank_lines = 0;
    P->reduces = false;
    P->best_algbw = P->ratio = 0.0;
}

static pp_nccl_run *new_run(parser *P)
{
    pp_nccl_log *L = P->log;
    pp_nccl_run *runs = grow(L->runs, &L->cap_runs, L->n_runs + 1, sizeof *runs, &P->oom);
    L->runs = runs;
    if (P->oom)
        return NULL;
    pp_nccl_run *r = &runs[L->n_runs++];
    memset(r, 0, sizeof *r);
    r->index = L->n_runs;
    r->line = P->line;
    r->algos = P->algos;
    r->nvls_off = P->nvls_off;
    snprintf(r->algo_said, sizeof r->algo_said, "%s", P->algo_said);
    reset_run_state(P);
    return P->run = r;
}

static pp_nccl_run *current(parser *P)
{
    return P->run ? P->run : new_run(P);
}

static bool has_table(const parser *P)
{
    return P->run && (P->cols.known || P->run->n_rows || P->run->skipped_incomplete || P->run->skipped_wrong);
}

/* ---- finishing a run ------------------------------------------------------------ */

/* nccl-tests' tolerance of the max error column (DeltaMaxValue of v2.0-v2.11,
 * times n - 1 ranks). */
static double type_tolerance(const char *type)
{
    if (strstr(type, "half") || strstr(type, "bfloat16") || strstr(type, "fp8"))
        return 1e-2;
    if (strcmp(type, "double") == 0 || strcmp(type, "float64") == 0)
        return 1e-12;
    if (strstr(type, "float"))
        return 1e-5;
    if (strstr(type, "int"))
        return 1e-200;
    return 1e-2;
}

/* Ranks and hosts from the rank lines.  More lines than ranks means a rank
 * is repeated (a log pasted twice into one run): the ranks per host cannot
 * be told, so the run is not used. */
static void place_ranks(parser *P, pp_nccl_run *r)
{
    if (P->n_hosts > 0) {
        r->ranks_from_lines = true;
        snprintf(r->ranks_from, sizeof r->ranks_from, "from the rank lines");
        r->ranks = P->max_rank + 1;
        r->hosts = P->n_hosts;
        r->ranks_per_host = P->hosts[0].ranks;
        long lines = 0;
        for (int i = 0; i < P->n_hosts; i++) {
            lines += P->hosts[i].ranks;
            P->rank_lines = lines;
            if (P->hosts[i].ranks < r->ranks_per_host)
                r->ranks_per_host = P->hosts[i].ranks;
        }
        if (lines > r->ranks) {
            snprintf(r->unusable, sizeof r->unusable,
                     "%ld rank lines for ranks 0 to %ld: a rank is repeated, so its ranks per host cannot be told",
                     lines, r->ranks - 1);
            if (r->ranks_per_host > r->ranks)
                r->ranks_per_host = r->ranks;
        }
    }
}

/* A launcher's rank count beyond what the rank lines show: the log cut
 * them (a ticket keeps the first hundred lines of a 1,024-rank run), so the
 * ranks are the launcher's processes times the ranks each drives (the
 * header's nThread x nGpus) and a host holds as many as the fullest host the
 * lines show (the last one shown may be cut short), else gpus_per_node. */
static void launched_ranks(parser *P, pp_nccl_run *r)
{
    long launched = P->launched * (P->per_process > 0 ? P->per_process : 1);
    if (launched < 2 || r->unusable[0] || (r->ranks_from_lines && launched <= r->ranks))
        return;
    long shown = r->ranks_from_lines ? P->rank_lines : 0, per_host = 0;
    for (int i = 0; i < P->n_hosts; i++)
        if (P->hosts[i].ranks > per_host)
            per_host = P->hosts[i].ranks;
    if (per_host < 2 && P->gpus_per_node > 0)
        per_host = P->gpus_per_node;
    r->ranks = launched;
    r->ranks_per_host = per_host > 0 && per_host < r->ranks ? per_host : r->ranks;
    r->hosts = (r->ranks + r->ranks_per_host - 1) / r->ranks_per_host;
    r->ranks_from_lines = false;
    snprintf(r->ranks_from, sizeof r->ranks_from,
             "%ld rank lines of the %ld ranks its launcher starts (-np): %ld a host as %s", shown, r->ranks,
             r->ranks_per_host, per_host > 0 && P->n_hosts > 0 ? "the fullest host shown" : "gpus_per_node");
}

static pp_nccl_op op_by_ratio(const parser *P, long n)
{
    double r = P->ratio;
    pp_nccl_op like = P->reduces ? PP_NCCL_REDUCESCATTER : PP_NCCL_ALLGATHER;
    if (n >= 2) {
        double d_ar = fabs(r - pp_nccl_bus_factor(PP_NCCL_ALLREDUCE, n));
        double d_ag = fabs(r - pp_nccl_bus_factor(like, n));
        double d_sr = fabs(r - 1.0);
        if (n == 2 && d_ar < 0.02)
            return P->reduces ? PP_NCCL_ALLREDUCE : PP_NCCL_SENDRECV;
        return d_ar <= d_ag && d_ar <= d_sr ? PP_NCCL_ALLREDUCE : d_ag <= d_sr ? like : PP_NCCL_SENDRECV;
    }
    if (r > 1.02)
        return PP_NCCL_ALLREDUCE;
    if (r < 0.98)
        return like;
    return P->reduces ? PP_NCCL_ALLREDUCE : PP_NCCL_SENDRECV;
}

/* The rank count that busbw/algbw = factor implies, 0 if none. */
static long ranks_by_ratio(pp_nccl_op op, double r)
{
    double n = 0.0;
    if (op == PP_NCCL_ALLREDUCE && r < 2.0)
        n = 2.0 / (2.0 - r);
    else if ((op == PP_NCCL_ALLGATHER || op == PP_NCCL_REDUCESCATTER || op == PP_NCCL_ALLTOALL) && r < 1.0)
        n = 1.0 / (1.0 - r);
    return n >= 1.5 && n < 4096.5 ? lround(n) : 0;
}

/* The rank count busbw/algbw implies for op.  Beyond a node, a run fills
 * its nodes, so the count is rounded to whole nodes: at 128 ranks the ratio
 * of an all-reduce is 1.98438 and at 129 ranks 1.98450, closer than two
 * printed decimals of busbw and algbw can tell apart. */
static long ranks_implied(const parser *P, pp_nccl_op op)
{
    long n = ranks_by_ratio(op, P->ratio);
    long g = P->gpus_per_node;
    if (g > 0 && n > g)
        n = (n + g / 2) / g * g;
    return n;
}

/* Hosts of n ranks from gpus_per_node (all on one when it is unknown). */
static void hosts_by_gpus_per_node(const parser *P, pp_nccl_run *r)
{
    long g = P->gpus_per_node > 0 ? P->gpus_per_node : r->ranks;
    r->ranks_per_host = r->ranks <= g ? r->ranks : g;
    r->hosts = (r->ranks + r->ranks_per_host - 1) / r->ranks_per_host;
}

/* How far busbw/algbw may sit from its rank count's factor by rounding
 * alone: nccl-tests computes busbw as algbw times the factor and prints
 * both with two decimals (%7.2f), so the ratio of the largest algbw's row
 * is exact to about 0.005/algbw + 0.005/busbw of itself (0.006 allowed).
 * An all-reduce's factor 2(n - 1)/n is 1.98 at 100 ranks and 1.998 at
 * 1,024, which a 183.83 GB/s algbw tells apart (a 3 % margin could not). */
static double ratio_rounding(const parser *P)
{
    double busbw = P->ratio * P->best_algbw;
    return busbw > 0.0 ? P->ratio * (0.006 / P->best_algbw + 0.006 / busbw) : 0.0;
}

/* Rank lines a log elides.  nccl-tests prints a line a rank, but a log cut
 * short for a wiki or a ticket often keeps the first few ("#  Rank 0" to
 * "#  Rank 4", then "..."), and a 128-rank run would read as 5 ranks on one
 * host.  When the named collective's busbw/algbw implies more ranks than the
 * lines show, the ranks come from that ratio; when the lines skip rank
 * numbers, from the highest rank printed.  Either way the hosts come from
 * gpus_per_node, since the lines no longer show them all. */
static void elided_rank_lines(parser *P, pp_nccl_run *r)
{
    if (!r->ranks_from_lines || r->unusable[0])
        return;
    long implied = P->best_algbw > 0.0 ? ranks_implied(P, r->op) : 0;
    double want = pp_nccl_bus_factor(r->op, r->ranks);
    bool more = implied > r->ranks && fabs(P->ratio - want) > ratio_rounding(P);
    if (!more && P->rank_lines >= r->ranks)
        return;
    if (more)
        r->ranks = implied;
    r->ranks_from_lines = false;
    hosts_by_gpus_per_node(P, r);
    snprintf(r->ranks_from, sizeof r->ranks_from, "%ld rank lines of %ld ranks: the ranks from %s, the hosts from "
             "gpus_per_node", P->rank_lines, r->ranks, more ? "busbw/algbw" : "the highest rank printed");
}

static void decide_op(parser *P, pp_nccl_run *r)
{
    if (P->named != PP_NCCL_UNKNOWN) {
        r->op = P->named;
        snprintf(r->op_from, sizeof r->op_from, "test name");
    } else if ((r->op = op_in_text(P->log->name, true)) != PP_NCCL_UNKNOWN) {
        snprintf(r->op_from, sizeof r->op_from, "file name");
    }
    if (r->op != PP_NCCL_UNKNOWN && r->op != PP_NCCL_OTHER)
        elided_rank_lines(P, r);
    if (P->best_algbw <= 0.0 || r->op == PP_NCCL_OTHER)
        return;
    if (r->op == PP_NCCL_UNKNOWN) {
        r->op = op_by_ratio(P, r->ranks);
        snprintf(r->op_from, sizeof r->op_from, "busbw/algbw%s", r->op == PP_NCCL_ALLGATHER ? ", or all-to-all" : "");
        return;
    }
    double want = pp_nccl_bus_factor(r->op, r->ranks);
    if (r->ranks >= 2 && fabs(P->ratio - want) > 0.03 * want) {
        pp_nccl_op by_ratio = op_by_ratio(P, r->ranks);
        snprintf(r->op_from, sizeof r->op_from, "busbw/algbw, not the %s name", pp_nccl_op_name(r->op));
        r->op = by_ratio;
    }
}

static void infer_ranks(parser *P, pp_nccl_run *r)
{
    if (r->ranks_from[0] || r->op == PP_NCCL_OTHER || r->op == PP_NCCL_UNKNOWN)
        return;
    if (r->op == PP_NCCL_SENDRECV) {
        snprintf(r->unusable, sizeof r->unusable,
                 "sendrecv without '# Using devices' rank lines: its ranks and hosts cannot be told");
        return;
    }
    r->ranks = ranks_implied(P, r->op);
    if (r->ranks < 2) {
        snprintf(r->unusable, sizeof r->unusable,
                 "no rank lines, and busbw/algbw = %.4f gives no rank count for %s", P->ratio, pp_nccl_op_name(r->op));
        return;
    }
    hosts_by_gpus_per_node(P, r);
    snprintf(r->ranks_from, sizeof r->ranks_from, "no rank lines: from busbw/algbw and gpus_per_node");
}

/* Drop the rows whose old error column is beyond nccl-tests' tolerance. */
static void drop_wrong(parser *P, pp_nccl_run *r)
{
    double limit = r->ranks > 2 ? (double)(r->ranks - 1) : 1.0;
    int w = 0;
    for (int i = 0; i < r->n_rows; i++) {
        if (P->err_over_tol[i] > limit) {
            r->skipped_wrong++;
            continue;
        }
        r->rows[w++] = r->rows[i];
    }
    r->n_rows = w;
}

static void finish_run(parser *P)
{
    pp_nccl_run *r = P->run;
    if (!r)
        return;
    place_ranks(P, r);
    launched_ranks(P, r);
    decide_op(P, r);
    infer_ranks(P, r);
    drop_wrong(P, r);
    if (r->unusable[0])
        return;
    if (!P->cols.known)
        snprintf(r->unusable, sizeof r->unusable, "no table (the run printed no column header)");
    else if (r->n_rows == 0)
        snprintf(r->unusable, sizeof r->unusable, "no valid row");
    else if (r->op == PP_NCCL_UNKNOWN)
        snprintf(r->unusable, sizeof r->unusable, "the collective cannot be told (no test name, no bandwidth)");
    else if (r->op == PP_NCCL_OTHER)
        snprintf(r->unusable, sizeof r->unusable, "a collective the cost model does not price");
    else if (r->ranks < 2)
        snprintf(r->unusable, sizeof r->unusable, "fewer than two ranks");
}

/* Close the current run if its table has begun: a new run starts here. */
static void boundary(parser *P)
{
    if (!has_table(P))
        return;
    finish_run(P);
    P->run = NULL;
}

/* ---- the line kinds ---------------------------------------------------------- */

static void rank_line(parser *P, char **tok, int n, const char *raw)
{
    boundary(P);
    pp_nccl_run *r = current(P);
    if (!r || n < 4)
        return;
    const char *host = NULL;
    for (int i = 3; i + 1 < n; i++)
        if (strcmp(tok[i], "on") == 0) {
            host = tok[i + 1];
            break;
        }
    if (!host)
        return;
    double v;
    if (!parse_number(tok[2], &v) || !in_range(P, tok[2], v, PP_TEXT_RANK)) {
        refuse(P, tok[2], PP_TEXT_RANK);
        return;
    }
    long rank = (long)v;
    if (rank > P->max_rank)
        P->max_rank = rank;
    int h = 0;
    while (h < P->n_hosts && strcmp(P->hosts[h].name, host) != 0)
        h++;
    if (h == P->n_hosts) {
        P->hosts = grow(P->hosts, &P->cap_hosts, P->n_hosts + 1, sizeof *P->hosts, &P->oom);
        if (P->oom)
            return;
        memset(&P->hosts[h], 0, sizeof P->hosts[h]);
        snprintf(P->hosts[h].name, sizeof P->hosts[h].name, "%s", host);
        P->n_hosts++;
    }
    P->hosts[h].ranks++;
    const char *bracket = strstr(raw, "device");
    bracket = bracket ? strchr(bracket, ']') : NULL;
    if (bracket && !r->device[0]) {
        bracket++;
        while (isspace((unsigned char)*bracket))
            bracket++;
        snprintf(r->device, sizeof r->device, "%s", bracket);
    }
}

static void header_line(parser *P, char **tok, int n)
{
    col_layout c;
    memset(&c, 0, sizeof c);
    c.type_col = c.redop_col = c.time_col[0] = c.time_col[1] = -1;
    int t = 0;
    for (int i = 1; i < n; i++) { /* tok[0] is "#" */
        int col = i - 1;
        if (strcmp(tok[i], "type") == 0)
            c.type_col = col;
        else if (strcmp(tok[i], "redop") == 0)
            c.redop_col = col;
        else if ((strcmp(tok[i], "time") == 0 || strcmp(tok[i], "cputime") == 0) && t < 2)
            c.time_col[t++] = col;
        else if (strcmp(tok[i], "timestamp") == 0 && i == n - 1) {
            c.timestamp = true;
            break;
        }
        c.ncols = col + 1;
    }
    if (c.time_col[0] < 0 || c.time_col[0] + 3 >= c.ncols)
        return;
    if (c.time_col[1] >= 0 && c.time_col[1] + 3 >= c.ncols)
        c.time_col[1] = -1; /* a second time without its algbw, busbw and #wrong: no in-place half */
    c.error_column = strcmp(tok[c.time_col[0] + 4], "error") == 0;
    c.known = true;
    if (P->run && (P->run->n_rows || P->run->skipped_incomplete))
        boundary(P);
    if (!current(P))
        return;
    P->cols = c;
    P->run->line = P->line;
}

/* One half (time, algbw, busbw, #wrong/error) of a row. */
typedef struct half {
    double time, algbw, busbw, wrong;
} half;

/* False if the half is incomplete (a row cut short); a number out of range
 * refuses the log. */
static bool read_half(parser *P, char **tok, int col, half *h)
{
    h->wrong = 0.0;
    if (!parse_number(tok[col], &h->time) || !parse_number(tok[col + 1], &h->algbw) ||
        !parse_number(tok[col + 2], &h->busbw) || h->time <= 0.0)
        return false;
    if (!in_range(P, tok[col], h->time, PP_TEXT_TIME_US) || !in_range(P, tok[col + 1], h->algbw, PP_TEXT_GBPS) ||
        !in_range(P, tok[col + 2], h->busbw, PP_TEXT_GBPS))
        return false;
    return strcmp(tok[col + 3], "N/A") == 0 || parse_number(tok[col + 3], &h->wrong);
}

static void keep_half(parser *P, const half *h, const char *type, double bytes, bool in_place)
{
    pp_nccl_run *r = P->run;
    if (!P->cols.error_column && h->wrong > 0.0) {
        r->skipped_wrong++;
        return;
    }
    r->rows = grow(r->rows, &r->cap_rows, r->n_rows + 1, sizeof *r->rows, &P->oom);
    P->err_over_tol = grow(P->err_over_tol, &P->cap_err, r->n_rows + 1, sizeof *P->err_over_tol, &P->oom);
    if (P->oom)
        return;
    P->err_over_tol[r->n_rows] = P->cols.error_column ? fabs(h->wrong) / type_tolerance(type) : 0.0;
    r->rows[r->n_rows++] = (pp_nccl_row){bytes, h->time, in_place};
    if (h->algbw > P->best_algbw && h->busbw > 0.0) {
        P->best_algbw = h->algbw;
        P->ratio = h->busbw / h->algbw;
    }
}

static void data_line(parser *P, char **tok, int n)
{
    const col_layout *c = &P->cols;
    bool complete = c->timestamp ? n >= c->ncols : n == c->ncols;
    double bytes = strtod(tok[0], NULL);
    if (bytes > 0.0 && !in_range(P, tok[0], bytes, PP_TEXT_BYTES))
        return;
    half h[2];
    for (int i = 0; i < 2 && complete; i++)
        complete = c->time_col[i] < 0 || read_half(P, tok, c->time_col[i], &h[i]);
    if (P->rc)
        return;
    if (!complete || bytes <= 0.0) {
        P->run->skipped_incomplete++;
        return;
    }
    const char *type = c->type_col >= 0 ? tok[c->type_col] : "float";
    if (c->redop_col >= 0 && strcmp(tok[c->redop_col], "none") != 0)
        P->reduces = true;
    for (int i = 0; i < 2; i++)
        if (c->time_col[i] >= 0)
            keep_half(P, &h[i], type, bytes, i == 1);
}

/* The ranks a launcher line starts: mpirun's or mpiexec's -np, -n, --np or
 * --n N, srun's -n N or --ntasks=N; read up to the test's own name, whose
 * options follow (nccl-tests' -n is its iteration count).  0 if the line
 * launches nothing or gives no count. */
static long launcher_ranks(const char *line)
{
    if (!strstr(line, "mpirun") && !strstr(line, "mpiexec") && !strstr(line, "srun"))
        return 0;
    char *buf = strdup(line);
    if (!buf)
        return 0;
    long ranks = 0;
    bool want = false;
    for (char *save = NULL, *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (strstr(t, "_perf"))
            break;
        const char *value = NULL;
        if (want)
            value = t;
        else if (strncmp(t, "--ntasks=", 9) == 0)
            value = t + 9;
        else if (strncmp(t, "--np=", 5) == 0)
            value = t + 5;
        want = !value && (strcmp(t, "-np") == 0 || strcmp(t, "--np") == 0 || strcmp(t, "-n") == 0 ||
                          strcmp(t, "--n") == 0 || strcmp(t, "--ntasks") == 0);
        if (value && all_digits(value))
            ranks = strtol(value, NULL, 10);
    }
    free(buf);
    return ranks > 0 && ranks <= PP_NCCL_MAX_LAUNCHED ? ranks : 0;
}

static void comment_line(parser *P, char *p, const char *raw)
{
    if (strstr(p, "nccl-tests version") || strstr(p, "Using devices")) {
        boundary(P);
        current(P);
        return;
    }
    const char *start = strstr(p, "Collective test starting:");
    if (start) {
        boundary(P);
        if (current(P))
            P->named = op_in_text(start, false);
        return;
    }
    if (strstr(p, "Avg bus bandwidth") || strstr(p, "Collective test concluded")) {
        if (P->run)
            P->run->complete = true;
        return;
    }
    char *tok[MAX_TOKENS];
    int n = tokenize(p, tok, MAX_TOKENS);
    if (n >= 2 && strcmp(tok[1], "nThread") == 0) {
        boundary(P);
        current(P);
        /* "# nThread T nGpus G ...": each launched process drives T x G ranks */
        long threads = n >= 3 && all_digits(tok[2]) ? strtol(tok[2], NULL, 10) : 1;
        long gpus = n >= 5 && strcmp(tok[3], "nGpus") == 0 && all_digits(tok[4]) ? strtol(tok[4], NULL, 10) : 1;
        /* both bounded before their product is formed (strtol saturates at
         * LONG_MAX on a digit string too long for it) */
        P->per_process = threads >= 1 && gpus >= 1 && threads <= 1024 && gpus <= 1024 / threads ? threads * gpus : 1;
    } else if (n >= 3 && strcmp(tok[1], "Rank") == 0)
        rank_line(P, tok, n, raw);
    else if (n >= 6 && strcmp(tok[1], "size") == 0)
        header_line(P, tok, n);
}

static void other_line(parser *P, char *p)
{
    pp_nccl_op op = op_in_text(p, false); /* before tokenize cuts the line */
    long launched = launcher_ranks(p);
    char *tok[MAX_TOKENS];
    int n = tokenize(p, tok, MAX_TOKENS);
    if (P->cols.known && P->run && n >= 2 && all_digits(tok[0]) && all_digits(tok[1])) {
        data_line(P, tok, n);
        return;
    }
    /* a command line before a run's "# nThread" line is that run's */
    bool next = !P->run || has_table(P);
    if (launched > 0)
        *(next ? &P->launched_pending : &P->launched) = launched;
    if (op != PP_NCCL_UNKNOWN)
        *(next ? &P->pending : &P->named) = op;
}

/* The ring and tree of an NCCL_ALGO value ("Ring", "ring,tree", "^Tree",
 * NCCL's list syntax): 0 if it names neither, or per collective
 * ("allreduce:ring;..."), which is not read. */
static unsigned algos_of(const char *value)
{
    if (strchr(value, ':') || strchr(value, ';'))
        return 0;
    bool exclude = *value == '^';
    unsigned named = 0;
    char buf[48];
    snprintf(buf, sizeof buf, "%s", value + exclude);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (strcasecmp(t, "ring") == 0)
            named |= PP_NCCL_ALGO_RING;
        else if (strcasecmp(t, "tree") == 0)
            named |= PP_NCCL_ALGO_TREE;
    }
    return exclude ? (PP_NCCL_ALGO_RING | PP_NCCL_ALGO_TREE) & ~named : named;
}

/* The value of an NCCL variable set anywhere in a line ("NCCL_ALGO=Ring",
 * "NCCL_ALGO set by environment to Ring") into out; false if the line sets
 * none. */
static bool env_setting(const char *p, const char *name, char *out, size_t cap)
{
    const char *at = strstr(p, name);
    if (!at)
        return false;
    at += strlen(name);
    const char *said = " set by environment to ";
    if (*at == '=')
        at++;
    else if (strncmp(at, said, strlen(said)) == 0)
        at += strlen(said);
    else
        return false;
    at += strspn(at, " \"'");
    size_t len = strcspn(at, " \t\"'");
    if (len == 0 || len >= cap)
        return false;
    snprintf(out, cap, "%.*s", (int)len, at);
    return true;
}

/* NCCL_ALGO and NCCL_NVLS_ENABLE settings: each holds from here on, and for
 * the run it is in when that run's table has not begun. */
static void nccl_settings(parser *P, const char *p)
{
    char value[48];
    bool early = P->run && !has_table(P);
    if (env_setting(p, "NCCL_ALGO", value, sizeof value)) {
        snprintf(P->algo_said, sizeof P->algo_said, "%s", value);
        P->algos = algos_of(P->algo_said);
        if (early) {
            P->run->algos = P->algos;
            snprintf(P->run->algo_said, sizeof P->run->algo_said, "%s", P->algo_said);
        }
    }
    if (env_setting(p, "NCCL_NVLS_ENABLE", value, sizeof value)) {
        /* an integer, or as NCCL's INFO line prints one: "... to 0." */
        char *end;
        long v = strtol(value, &end, 10);
        if (end != value && (*end == '\0' || strcmp(end, ".") == 0))
            P->nvls_off = v == 0;
        if (early)
            P->run->nvls_off = P->nvls_off;
    }
}

char *pp_log_line_text(char *line)
{
    strip_ansi(line);
    return skip_prefixes(line);
}

static void parse_line(parser *P, char *line)
{
    char raw[1024];
    P->line_start = line;
    char *p = pp_log_line_text(line);
    snprintf(raw, sizeof raw, "%s", p);
    nccl_settings(P, raw);
    if (*p == '#')
        comment_line(P, p, raw);
    else if (*p)
        other_line(P, p);
}

int pp_nccl_log_parse(const char *text, const char *name, int gpus_per_node, pp_nccl_log *log, pp_error *err)
{
    memset(log, 0, sizeof *log);
    snprintf(log->name, sizeof log->name, "%s", name);
    parser P;
    memset(&P, 0, sizeof P);
    P.log = log;
    P.gpus_per_node = gpus_per_node;
    P.max_rank = -1;
    P.err = err;
    char *buf = strdup(text);
    if (!buf)
        return pp_error_set(err, PP_EINTERNAL, name, "out of memory");
    for (char *line = buf, *next; line && !P.oom && !P.rc; line = next) {
        size_t len = strcspn(line, "\r\n");
        next = line[len] ? line + len + (line[len] == '\r' && line[len + 1] == '\n' ? 2 : 1) : NULL;
        line[len] = '\0';
        P.line++;
        parse_line(&P, line);
    }
    if (!P.rc)
        finish_run(&P);
    free(buf);
    free(P.hosts);
    free(P.err_over_tol);
    if (P.rc) {
        pp_nccl_log_free(log);
        return P.rc;
    }
    if (P.oom) {
        pp_nccl_log_free(log);
        return pp_error_set(err, PP_EINTERNAL, name, "out of memory");
    }
    return PP_OK;
}

int pp_nccl_log_load(const char *path, int gpus_per_node, pp_nccl_log *log, pp_error *err)
{
    char *text = NULL;
    size_t len = 0;
    memset(log, 0, sizeof *log);
    int rc = pp_read_file(path, &text, &len, err);
    if (!rc)
        rc = pp_nccl_log_parse(text, path, gpus_per_node, log, err);
    free(text);
    return rc;
}

void pp_nccl_log_free(pp_nccl_log *log)
{
    for (int i = 0; i < log->n_runs; i++)
        free(log->runs[i].rows);
    free(log->runs);
    memset(log, 0, sizeof *log);
}
