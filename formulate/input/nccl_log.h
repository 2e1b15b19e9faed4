/*
 * nccl_log.h: the text output of nccl-tests (all_reduce_perf, all_gather_perf,
 * reduce_scatter_perf, alltoall_perf, sendrecv_perf), read as it is.
 *
 * A log holds one or more runs.  A run is the "# Using devices" rank lines
 * (rank, host, device), the column header and the table rows: size in bytes,
 * count, type, [redop], [root], then out-of-place time (us), algbw, busbw and
 * #wrong (or, before nccl-tests 2.13, the max error), and the same for in
 * place.  The parser takes the columns from the header line, so the old and
 * the new layouts (and the per-iteration and timestamp columns of the
 * newest) all read; NCCL INFO lines, MPI "[1,0]<stdout>:" and srun "0: "
 * prefixes, ANSI colours and wrapper output anywhere are skipped, but an
 * NCCL_ALGO setting in any of them (a command line's "NCCL_ALGO=Ring", an
 * "-x NCCL_ALGO=Ring", NCCL's "NCCL_ALGO set by environment to Ring") holds
 * for the runs after it and the run it is in.  Rows with
 * wrong values, rows cut off by a failing run and runs it cannot place are
 * counted and explained, never guessed (docs/calibration.md, "Calibrate your
 * cluster").
 */
#ifndef PARPLAN_NCCL_LOG_H
#define PARPLAN_NCCL_LOG_H

#include "types.h"

typedef enum {
    PP_NCCL_UNKNOWN = 0,
    PP_NCCL_ALLREDUCE,
    PP_NCCL_ALLGATHER,
    PP_NCCL_REDUCESCATTER,
    PP_NCCL_ALLTOALL,
    PP_NCCL_SENDRECV,
    PP_NCCL_OTHER, /* broadcast, reduce, gather, ...: read, not used */
    PP_NCCL_OP_COUNT
} pp_nccl_op;

/* "all_reduce", "all_gather", ... */
const char *pp_nccl_op_name(pp_nccl_op op);

/* busbw / algbw of a collective on n ranks (the nccl-tests definition,
 * doc/PERFORMANCE.md): 2(n-1)/n for all-reduce, (n-1)/n for all-gather,
 * reduce-scatter and all-to-all, 1 for send/receive. */
double pp_nccl_bus_factor(pp_nccl_op op, long n);

/* One timed half (out-of-place or in-place) of one table row. */
typedef struct pp_nccl_row {
    double bytes;
    double time_us;
    bool in_place;
} pp_nccl_row;

typedef struct pp_nccl_run {
    int index;      /* 1-based, in its file */
    int line;       /* where its table starts */
    pp_nccl_op op;
    char op_from[48];      /* how the collective was told: "test name", "busbw/algbw", ... */
    char device[PP_NAME_LEN]; /* GPU name of the first rank line, "" if none */
    long ranks;            /* 0 = unknown */
    long hosts;            /* 0 = unknown */
    long ranks_per_host;   /* fewest ranks on one host */
    bool ranks_from_lines; /* else inferred from busbw/algbw and gpus_per_node */
    char ranks_from[160];  /* how ranks and hosts were told, as the printout says it */
    bool complete;         /* its summary ("# Avg bus bandwidth") was printed */
    unsigned algos;        /* NCCL_ALGO as the log sets it before or in the run (PP_NCCL_ALGO_RING,
                              _TREE; "^Tree" excludes): 0 = not set, or set to no ring or tree */
    char algo_said[48];    /* the value as the log wrote it, "" if not set */
    bool nvls_off;         /* NCCL_NVLS_ENABLE=0 set before or in the run: no NVLink SHARP */
    int n_rows, cap_rows;
    pp_nccl_row *rows; /* owned */
    int skipped_wrong;      /* halves with #wrong > 0, or an error beyond nccl-tests' tolerance */
    int skipped_incomplete; /* rows cut short (a run failing mid-table) */
    char unusable[192];     /* why the run cannot be used at all, "" if it can */
} pp_nccl_run;

typedef struct pp_nccl_log {
    char name[256]; /* the file */
    int n_runs, cap_runs;
    pp_nccl_run *runs; /* owned */
} pp_nccl_log;

/* The text of one log line (any training or benchmark log), cleaned in
 * place: ANSI colours removed, and past launcher prefixes (MPI's
 * "[1,0]<stdout>:", srun's "0: ", pdsh's "host: " before a table line). */
char *pp_log_line_text(char *line);

/* Parse the text of one log.  `name` names it (its file name also tells the
 * collective when nothing in the text does); gpus_per_node places the ranks
 * on hosts when the log has no rank lines.  Fails only when memory runs out. */
int pp_nccl_log_parse(const char *text, const char *name, int gpus_per_node, pp_nccl_log *log, pp_error *err);
int pp_nccl_log_load(const char *path, int gpus_per_node, pp_nccl_log *log, pp_error *err);
void pp_nccl_log_free(pp_nccl_log *log);

#endif
