/*
 * main.c: the parplan command line.
 *
 *   parplan plan PROBLEM.json [OPTION]...
 *   parplan eval PROBLEM.json --plan PLAN.json [OPTION]...
 *   parplan --help | COMMAND --help | --version
 *
 * Two tables drive everything: COMMANDS (name, synopsis, the function that
 * runs it) and OPTIONS (spelling, argument, which commands take it, help
 * line).  The parser, the applicability checks and the help text all walk
 * them, so adding a command or an option is adding a line.  Options follow
 * GNU conventions: they may come before or after the operands, long ones may
 * be abbreviated to any unique prefix and take their value as "--opt VALUE"
 * or "--opt=VALUE", "--" ends the options, and "-" names standard input or
 * output.
 *
 * A run is: parse (exit 2 on bad usage) -> check every output path can be
 * written (exit 2, before any work) -> load catalog, problem, plan -> price
 * or solve -> render the Markdown report and the JSON in memory -> write each
 * output atomically.  Only this file prints errors and chooses exit codes;
 * everything it calls reports through pp_error (error.h).
 */
#include "calibrate.h"
#include "calibrate_gemm.h"
#include "calibrate_links.h"
#include "capacity.h"
#include "fileio.h"
#include "gemm_sweep.h"
#include "costmodel.h"
#include "error.h"
#include "explain.h"
#include "json_util.h"
#include "mip_cache.h"
#include "planner.h"
#include "problem.h"
#include "report_accuracy.h"
#include "report_capacity.h"
#include "report_gemm.h"
#include "report_links.h"
#include "report_md.h"
#include "result_json.h"
#include "rules.h"
#include "strbuf.h"
#include "train_log.h"
#include "version.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the tables --------------------------------------------------------- */

typedef enum {
    OPT_OUTPUT, OPT_JSON, OPT_DATA_DIR, OPT_EFFICIENCY, OPT_PLAN, OPT_METHOD, OPT_TIME_LIMIT, OPT_TOP,
    OPT_EXPORT_LP, OPT_EXPORT_MPS, OPT_HELP, OPT_VERSION, OPT_BASELINE, OPT_ROWS, OPT_NCCL_TESTS, OPT_GPU,
    OPT_LOG, OPT_PROBLEM, OPT_CV, OPT_GEMM_SWEEP, OPT_SHOTS, OPT_NO_PRIOR, OPT_COUNT
} opt_id;

enum {
    CMD_PLAN = 1u << 0,
    CMD_EVAL = 1u << 1,
    CMD_CALIBRATE = 1u << 2,
    CMD_ACCURACY = 1u << 3,
    CMD_CAPACITY = 1u << 4,
    CMD_ALL = CMD_PLAN | CMD_EVAL | CMD_CALIBRATE | CMD_ACCURACY | CMD_CAPACITY
};

typedef struct cli_option {
    opt_id id;
    const char *long_name;
    char short_name;   /* 0 if none */
    const char *arg;   /* name of its argument, NULL for a flag */
    unsigned commands; /* the commands that take it */
    const char *help;
} cli_option;

static const cli_option OPTIONS[] = {
    {OPT_OUTPUT, "output", 'o', "FILE", CMD_ALL,
     "write the Markdown report to FILE, whole or not at all (default: standard output)"},
    {OPT_JSON, "json", 0, "FILE", CMD_ALL,
     "also write the result JSON to FILE; '-' is standard output, and the report then goes only where -o says"},
    {OPT_DATA_DIR, "data-dir", 0, "DIR", CMD_ALL, "read the catalogs (gpus.json, models.json, ...) from DIR"},
    {OPT_EFFICIENCY, "efficiency", 0, "FILE", CMD_ALL,
     "apply the calibrated efficiency parameters in FILE (efficiency.json format, see data/SCHEMA.md)"},
    {OPT_PLAN, "plan", 0, "FILE", CMD_EVAL | CMD_CALIBRATE,
     "the plan to price (PLAN.json); required by eval, and by calibrate --log (the plan the log ran)"},
    {OPT_METHOD, "method", 0, "METHOD", CMD_PLAN | CMD_CAPACITY,
     "milp (default): the MIP solved by GLPK; enumerate: price every valid plan (the exactness reference)"},
    {OPT_TIME_LIMIT, "time-limit", 0, "SECONDS", CMD_PLAN,
     "stop the search after SECONDS; the result then says time_limit with the gap"},
    {OPT_TOP, "top", 0, "K", CMD_PLAN, "also list the K best runner-up plans"},
    {OPT_EXPORT_LP, "export-lp", 0, "FILE", CMD_PLAN, "write the MIP that was solved in CPLEX LP format"},
    {OPT_EXPORT_MPS, "export-mps", 0, "FILE", CMD_PLAN, "write the MIP that was solved in free MPS format"},
    {OPT_BASELINE, "baseline", 0, "PLAN.json", CMD_PLAN,
     "also price this plan (e.g. a published one) and state how much faster the optimal plan is"},
    {OPT_ROWS, "rows", 0, NULL, CMD_ACCURACY,
     "also list every timed row: predicted and measured step time and the error of the prediction; with --cv "
     "its held-out price too"},
    {OPT_NCCL_TESTS, "nccl-tests", 0, NULL, CMD_CALIBRATE,
     "the operands are nccl-tests logs (all_reduce_perf, all_gather_perf, ...): fit the NVLink and network "
     "efficiency and latency to them and write an efficiency file (needs --gpu or --problem)"},
    {OPT_GEMM_SWEEP, "gemm-sweep", 0, NULL, CMD_CALIBRATE,
     "the operands are GEMM sweep CSVs (columns m, n, k, dtype and time_us, time_ms, time_s or tflops; optional "
     "batch): fit the GPU's GEMM ceiling and shape terms to them and write an efficiency file (needs --gpu or "
     "--problem)"},
    {OPT_GPU, "gpu", 0, "ID", CMD_CALIBRATE,
     "with --nccl-tests or --gemm-sweep: the catalog GPU the files were measured on; its line rates and peaks are "
     "what the efficiencies are fractions of"},
    {OPT_LOG, "log", 0, "FILE", CMD_CALIBRATE,
     "the training log of a run (Megatron-LM, NeMo, torchtitan, DeepSpeed): write its median step time as a "
     "measurement row "
     "(needs --problem and --plan)"},
    {OPT_PROBLEM, "problem", 0, "FILE", CMD_CALIBRATE,
     "the PROBLEM.json of the run: the model and cluster of --log, the line rates of --nccl-tests, the GPU of "
     "--gemm-sweep"},
    {OPT_CV, "cv", 0, NULL, CMD_CALIBRATE | CMD_ACCURACY,
     "leave-one-source-group-out cross-validation: each group priced with parameters fitted on the others, "
     "in-sample error beside it (accuracy: the report; calibrate: a summary on standard error)"},
    {OPT_SHOTS, "shots", 0, "K", CMD_ACCURACY,
     "with --cv: also the few-shot score: K rows of each group update the fit without it (as calibrate does from "
     "the shipped fit), the group's other rows are scored"},
    {OPT_NO_PRIOR, "no-prior", 0, NULL, CMD_CALIBRATE,
     "fit from the middle of the bounds, every parameter free (how data/efficiency.json is made), instead of "
     "from the shipped fit as a prior moving only what the rows identify"},
    {OPT_HELP, "help", 'h', NULL, CMD_ALL, "show this help and exit"},
    {OPT_VERSION, "version", 'V', NULL, CMD_ALL, "show the version and exit"},
};
#define N_OPTIONS ((int)(sizeof OPTIONS / sizeof OPTIONS[0]))

typedef struct cli_args cli_args;

typedef struct cli_command {
    const char *name;
    unsigned bit;
    const char *synopsis;
    const char *summary;
    int (*run)(const cli_args *a, pp_error *err);
} cli_command;

static int run_plan(const cli_args *a, pp_error *err);
static int run_eval(const cli_args *a, pp_error *err);
static int run_calibrate(const cli_args *a, pp_error *err);
static int run_accuracy(const cli_args *a, pp_error *err);
static int run_capacity(const cli_args *a, pp_error *err);

static const cli_command COMMANDS[] = {
    {"plan", CMD_PLAN, "plan PROBLEM.json [OPTION]...",
     "find the optimal plan with the MIP and GLPK, and write its report", run_plan},
    {"eval", CMD_EVAL, "eval PROBLEM.json --plan PLAN.json [OPTION]...",
     "price one fixed plan with the cost model, without optimization", run_eval},
    {"calibrate", CMD_CALIBRATE,
     "calibrate MEASUREMENTS.json|DIR... [-o EFFICIENCY.json]\n"
     "   or: parplan calibrate --nccl-tests LOG... (--gpu ID | --problem PROBLEM.json) [-o EFFICIENCY.json]\n"
     "   or: parplan calibrate --gemm-sweep CSV... (--gpu ID | --problem PROBLEM.json) [-o EFFICIENCY.json]\n"
     "   or: parplan calibrate --log FILE --problem PROBLEM.json --plan PLAN.json [-o ROWS.json]",
     "fit each GPU's efficiency parameters, within physical bounds, to measured steps (several files, or a "
     "directory of them), or its link parameters to nccl-tests logs, or its GEMM parameters to a GEMM sweep, "
     "or turn a training log into a measurement "
     "row; an efficiency output is what --efficiency reads",
     run_calibrate},
    {"accuracy", CMD_ACCURACY, "accuracy MEASUREMENTS.json|DIR... [--cv] [OPTION]...",
     "score the cost model against measured steps: mean absolute % error per source group; --cv "
     "cross-validates",
     run_accuracy},
    {"capacity", CMD_CAPACITY, "capacity PROBLEM.json [OPTION]...",
     "choose GPU kind, node count and plan within a deadline, budget or GPU cap", run_capacity},
};
#define N_COMMANDS ((int)(sizeof COMMANDS / sizeof COMMANDS[0]))

#define CLI_MAX_OPERANDS 256 /* calibrate --nccl-tests LOG... */

/* Everything the command line said. */
struct cli_args {
    const cli_command *cmd;
    const char *problem;    /* PROBLEM.json, "-" = standard input */
    const char *plan;       /* eval's --plan */
    const char *output;     /* -o: the Markdown report */
    const char *json;       /* --json */
    const char *data_dir;   /* NULL: pp_default_data_dir() */
    const char *efficiency; /* --efficiency */
    const char *baseline;   /* plan's --baseline */
    bool nccl_tests;        /* calibrate --nccl-tests: the operands are logs */
    bool gemm_sweep;        /* calibrate --gemm-sweep: the operands are CSVs */
    const char *gpu;        /* calibrate --gpu */
    const char *log;        /* calibrate --log */
    const char *problem_file; /* calibrate --problem */
    int n_operands;         /* after the command; operands[0] is also `problem` */
    const char *operands[CLI_MAX_OPERANDS];
    bool cv;                /* --cv */
    int shots;              /* accuracy --cv --shots K (0: none) */
    bool no_prior;          /* calibrate --no-prior */
    pp_plan_options solve;
    unsigned given;         /* bit (1 << opt_id) per option seen */
    bool rows;              /* accuracy's --rows */
    bool help, version;     /* stop and print */
};

static void cli_args_init(cli_args *a)
{
    memset(a, 0, sizeof *a);
    pp_plan_options_init(&a->solve);
}

/* ---- parsing ------------------------------------------------------------ */

static const char *command_name_at(const void *ctx, int i)
{
    return ((const cli_command *)ctx)[i].name;
}

/* "plan, eval, ...": every command of the table. */
static void command_names(char *buf, size_t cap)
{
    pp_name_list(command_name_at, COMMANDS, N_COMMANDS, buf, cap);
}

static int find_command(const char *word, const cli_command **out, pp_error *err)
{
    for (int i = 0; i < N_COMMANDS; i++)
        if (strcmp(COMMANDS[i].name, word) == 0) {
            *out = &COMMANDS[i];
            return PP_OK;
        }
    char q[80], hint[96], names[160];
    pp_json_quote(word, q, sizeof q);
    pp_did_you_mean(word, command_name_at, COMMANDS, N_COMMANDS, hint, sizeof hint);
    command_names(names, sizeof names);
    return pp_error_set(err, PP_EINPUT, "", "unknown command %s%s (commands: %s)", q, hint, names);
}

static const char *option_name_at(const void *ctx, int i)
{
    return ((const cli_option *)ctx)[i].long_name;
}

/* The long option a mistyped word most likely meant, by the same rule as a
 * mistyped key (a swapped pair of letters is one edit), or NULL. */
static const char *nearest_option(const char *word)
{
    return pp_nearest_name(word, option_name_at, OPTIONS, N_OPTIONS);
}

/* "'--a', '--b'": the options whose long name starts with len bytes of name. */
static void list_prefixed(const char *name, size_t len, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < N_OPTIONS && used < cap; i++)
        if (strncmp(OPTIONS[i].long_name, name, len) == 0)
            used += (size_t)snprintf(buf + used, cap - used, "%s'--%s'", used ? ", " : "", OPTIONS[i].long_name);
}

/* The option spelled --NAME (len bytes of name): an exact match, else the
 * only option it is a prefix of. */
static const cli_option *find_long(const char *name, size_t len, pp_error *err)
{
    const cli_option *hit = NULL;
    int hits = 0;
    for (int i = 0; i < N_OPTIONS; i++) {
        if (strncmp(OPTIONS[i].long_name, name, len) != 0)
            continue;
        if (strlen(OPTIONS[i].long_name) == len)
            return &OPTIONS[i];
        hit = &OPTIONS[i];
        hits++;
    }
    if (hits == 1)
        return hit;
    char word[128], spelled[132], q[80], more[256];
    snprintf(word, sizeof word, "%.*s", (int)(len < 100 ? len : 100), name);
    snprintf(spelled, sizeof spelled, "--%s", word);
    pp_json_quote(spelled, q, sizeof q);
    if (hits > 1) {
        list_prefixed(name, len, more, sizeof more);
        pp_error_set(err, PP_EINPUT, "", "option %s is ambiguous; it could be %s", q, more);
    } else {
        const char *near = nearest_option(word);
        snprintf(more, sizeof more, near ? "; did you mean '--%s'?" : "%s", near ? near : "");
        pp_error_set(err, PP_EINPUT, "", "unknown option %s%s", q, more);
    }
    return NULL;
}

static const cli_option *find_short(char c, pp_error *err)
{
    for (int i = 0; i < N_OPTIONS; i++)
        if (OPTIONS[i].short_name && OPTIONS[i].short_name == c)
            return &OPTIONS[i];
    char word[3] = {'-', c, '\0'}, q[16];
    pp_json_quote(word, q, sizeof q);
    pp_error_set(err, PP_EINPUT, "", "unknown option %s", q);
    return NULL;
}

static int parse_method(const char *v, pp_method *out, pp_error *err)
{
    char q[80];
    if (strcmp(v, "milp") == 0)
        *out = PP_METHOD_MILP;
    else if (strcmp(v, "enumerate") == 0)
        *out = PP_METHOD_ENUMERATE;
    else {
        pp_json_quote(v, q, sizeof q);
        return pp_error_set(err, PP_EINPUT, "--method", "expected 'milp' or 'enumerate', found %s", q);
    }
    return PP_OK;
}

static int parse_seconds(const char *v, double *out, pp_error *err)
{
    char *end, q[80];
    double s = strtod(v, &end);
    if (end == v || *end || !isfinite(s) || s <= 0) {
        pp_json_quote(v, q, sizeof q);
        return pp_error_set(err, PP_EINPUT, "--time-limit", "expected a positive number of seconds, found %s", q);
    }
    *out = s;
    return PP_OK;
}

static int parse_top(const char *v, int *out, pp_error *err)
{
    char *end, q[80];
    long k = strtol(v, &end, 10);
    if (end == v || *end || k < 0 || k > 1000) {
        pp_json_quote(v, q, sizeof q);
        return pp_error_set(err, PP_EINPUT, "--top", "expected an integer from 0 to 1000, found %s", q);
    }
    *out = (int)k;
    return PP_OK;
}

/* Record one option and its value (NULL for flags). */
static int apply_option(cli_args *a, const cli_option *o, const char *v, pp_error *err)
{
    a->given |= 1u << o->id;
    switch (o->id) {
    case OPT_OUTPUT: a->output = v; break;
    case OPT_JSON: a->json = v; break;
    case OPT_DATA_DIR: a->data_dir = v; break;
    case OPT_EFFICIENCY: a->efficiency = v; break;
    case OPT_PLAN: a->plan = v; break;
    case OPT_METHOD: return parse_method(v, &a->solve.method, err);
    case OPT_TIME_LIMIT: return parse_seconds(v, &a->solve.time_limit_s, err);
    case OPT_TOP: return parse_top(v, &a->solve.top_k, err);
    case OPT_EXPORT_LP: a->solve.export_lp = v; break;
    case OPT_EXPORT_MPS: a->solve.export_mps = v; break;
    case OPT_HELP: a->help = true; break;
    case OPT_VERSION: a->version = true; break;
    case OPT_BASELINE: a->baseline = v; break;
    case OPT_ROWS: a->rows = true; break;
    case OPT_NCCL_TESTS: a->nccl_tests = true; break;
    case OPT_GEMM_SWEEP: a->gemm_sweep = true; break;
    case OPT_GPU: a->gpu = v; break;
    case OPT_LOG: a->log = v; break;
    case OPT_PROBLEM: a->problem_file = v; break;
    case OPT_CV: a->cv = true; break;
    case OPT_SHOTS: {
        char *end, q[80];
        long k = strtol(v, &end, 10);
        if (end == v || *end || k < 1 || k > 100) {
            pp_json_quote(v, q, sizeof q);
            return pp_error_set(err, PP_EINPUT, "--shots", "expected an integer from 1 to 100, found %s", q);
        }
        a->shots = (int)k;
        break;
    }
    case OPT_NO_PRIOR: a->no_prior = true; break;
    case OPT_COUNT: break;
    }
    return PP_OK;
}

/* Cursor over argv. */
typedef struct argv_cursor {
    int argc;
    char **argv;
    int i; /* next argument */
} argv_cursor;

/* The option's value: attached ("--json=F", "-oF"), else the next argument. */
static int option_value(const cli_option *o, const char *attached, const char *spelled, argv_cursor *c,
                        const char **value, pp_error *err)
{
    *value = NULL;
    if (!o->arg) {
        if (attached)
            return pp_error_set(err, PP_EINPUT, "", "option %s takes no argument", spelled);
        return PP_OK;
    }
    if (attached) {
        *value = attached;
        return PP_OK;
    }
    if (c->i >= c->argc)
        return pp_error_set(err, PP_EINPUT, "", "option %s needs an argument %s", spelled, o->arg);
    *value = c->argv[c->i++];
    return PP_OK;
}

/* One argument that starts with '-' (and is not "-" or "--"). */
static int parse_option(cli_args *a, const char *arg, argv_cursor *c, pp_error *err)
{
    const cli_option *o;
    const char *attached = NULL;
    char spelled[64];
    if (arg[1] == '-') {
        const char *name = arg + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        if (!(o = find_long(name, len, err)))
            return PP_EINPUT;
        attached = eq ? eq + 1 : NULL;
        snprintf(spelled, sizeof spelled, "--%s", o->long_name);
    } else {
        if (!(o = find_short(arg[1], err)))
            return PP_EINPUT;
        attached = arg[2] ? arg + 2 : NULL;
        snprintf(spelled, sizeof spelled, "-%c", o->short_name);
    }
    const char *value;
    int rc = option_value(o, attached, spelled, c, &value, err);
    return rc ? rc : apply_option(a, o, value, err);
}

static int parse_operand(cli_args *a, const char *arg, pp_error *err)
{
    if (!a->cmd)
        return find_command(arg, &a->cmd, err);
    /* calibrate and accuracy take several files (logs or measurement sets) */
    if (a->n_operands < ((a->cmd->bit & (CMD_CALIBRATE | CMD_ACCURACY)) ? CLI_MAX_OPERANDS : 1)) {
        a->operands[a->n_operands++] = arg;
        a->problem = a->operands[0];
        return PP_OK;
    }
    char q[80];
    pp_json_quote(arg, q, sizeof q);
    return pp_error_set(err, PP_EINPUT, "", "unexpected argument %s: '%s' takes one PROBLEM.json", q,
                        a->cmd->name);
}

/* Every option given must belong to the command. */
static int check_applicable(const cli_args *a, pp_error *err)
{
    for (int i = 0; i < N_OPTIONS; i++)
        if ((a->given & (1u << OPTIONS[i].id)) && !(OPTIONS[i].commands & a->cmd->bit))
            return pp_error_set(err, PP_EINPUT, "", "option --%s is not an option of '%s'",
                                OPTIONS[i].long_name, a->cmd->name);
    return PP_OK;
}

/* calibrate's four forms: MEASUREMENTS.json, --nccl-tests LOG..., --gemm-sweep CSV..., --log. */
static int check_calibrate(const cli_args *a, pp_error *err)
{
    if ((int)a->nccl_tests + (int)a->gemm_sweep + (a->log != NULL) > 1)
        return pp_error_set(err, PP_EINPUT, "", "give one of --nccl-tests LOG..., --gemm-sweep CSV... and --log FILE");
    if (a->gemm_sweep) {
        if (!a->n_operands)
            return pp_error_set(err, PP_EINPUT, "", "'calibrate --gemm-sweep' needs at least one GEMM sweep CSV");
        if (!a->gpu && !a->problem_file)
            return pp_error_set(err, PP_EINPUT, "", "'calibrate --gemm-sweep' needs --gpu ID or --problem "
                                                    "PROBLEM.json: the GPU whose peak the efficiencies are "
                                                    "fractions of");
        if (a->plan)
            return pp_error_set(err, PP_EINPUT, "", "--plan goes with 'calibrate --log', not --gemm-sweep");
    } else if (a->nccl_tests) {
        if (!a->n_operands)
            return pp_error_set(err, PP_EINPUT, "", "'calibrate --nccl-tests' needs at least one nccl-tests log");
        if (!a->gpu && !a->problem_file)
            return pp_error_set(err, PP_EINPUT, "", "'calibrate --nccl-tests' needs --gpu ID or --problem "
                                                    "PROBLEM.json: the line rates the efficiencies are fractions of");
    } else if (a->log) {
        if (a->n_operands)
            return pp_error_set(err, PP_EINPUT, "", "'calibrate --log' takes no operand (found '%.100s')",
                                a->operands[0]);
        if (!a->problem_file || !a->plan)
            return pp_error_set(err, PP_EINPUT, "", "'calibrate --log' needs --problem PROBLEM.json and --plan PLAN.json");
    } else {
        if (a->gpu || a->problem_file || a->plan)
            return pp_error_set(err, PP_EINPUT, "", "--gpu, --problem and --plan go with 'calibrate --nccl-tests', "
                                                    "'calibrate --gemm-sweep' or 'calibrate --log'");
        if (a->n_operands < 1)
            return pp_error_set(err, PP_EINPUT, "", "'calibrate' needs MEASUREMENTS.json (or several, or a directory)");
    }
    return PP_OK;
}

static int check_operands(const cli_args *a, pp_error *err)
{
    if (!a->cmd) {
        char names[160];
        command_names(names, sizeof names);
        return pp_error_set(err, PP_EINPUT, "", "missing command (%s)", names);
    }
    int rc = check_applicable(a, err);
    if (rc)
        return rc;
    if (a->cmd->bit == CMD_CALIBRATE)
        return check_calibrate(a, err);
    if (!a->problem)
        return pp_error_set(err, PP_EINPUT, "", "'%s' needs a PROBLEM.json", a->cmd->name);
    if (a->cmd->bit == CMD_EVAL && !a->plan)
        return pp_error_set(err, PP_EINPUT, "", "'eval' needs --plan PLAN.json");
    if (a->shots > 0 && !a->cv)
        return pp_error_set(err, PP_EINPUT, "--shots", "the few-shot score is part of the cross-validation: add --cv");
    if (a->plan && strcmp(a->problem, "-") == 0 && strcmp(a->plan, "-") == 0)
        return pp_error_set(err, PP_EINPUT, "", "PROBLEM.json and --plan cannot both be standard input");
    return PP_OK;
}

/* Parse argv into a.  Stops at --help or --version (a->help, a->version). */
static int parse_args(int argc, char **argv, cli_args *a, pp_error *err)
{
    cli_args_init(a);
    argv_cursor c = {argc, argv, 1};
    bool operands_only = false;
    while (c.i < c.argc) {
        const char *arg = c.argv[c.i++];
        int rc = PP_OK;
        if (!operands_only && strcmp(arg, "--") == 0)
            operands_only = true;
        else if (!operands_only && arg[0] == '-' && arg[1] != '\0')
            rc = parse_option(a, arg, &c, err);
        else
            rc = parse_operand(a, arg, err);
        if (rc)
            return rc;
        if (a->help || a->version)
            return PP_OK;
    }
    return check_operands(a, err);
}

/* ---- help ------------------------------------------------------------ */

/* Print text word-wrapped to 79 columns, continuation lines indented. */
static void print_wrapped(FILE *f, const char *text, int col, int indent)
{
    const char *p = text;
    while (*p) {
        size_t word = strcspn(p, " ");
        if (col > indent && col + 1 + (int)word > 79) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', f);
            col++;
        }
        fprintf(f, "%.*s", (int)word, p);
        col += (int)word;
        p += word;
        p += strspn(p, " ");
    }
    fputc('\n', f);
}

#define HELP_COLUMN 28

static void print_option(FILE *f, const cli_option *o)
{
    char lhs[64];
    if (o->short_name)
        snprintf(lhs, sizeof lhs, "  -%c, --%s%s%s", o->short_name, o->long_name, o->arg ? " " : "",
                 o->arg ? o->arg : "");
    else
        snprintf(lhs, sizeof lhs, "      --%s%s%s", o->long_name, o->arg ? " " : "", o->arg ? o->arg : "");
    if (strlen(lhs) + 2 > HELP_COLUMN)
        fprintf(f, "%s\n%*s", lhs, HELP_COLUMN, "");
    else
        fprintf(f, "%-*s", HELP_COLUMN, lhs);
    print_wrapped(f, o->help, HELP_COLUMN - 1, HELP_COLUMN);
}

static void print_options(FILE *f, unsigned mask, bool common)
{
    int n = 0;
    for (int i = 0; i < N_OPTIONS; i++)
        if ((OPTIONS[i].commands & mask) && ((OPTIONS[i].commands == CMD_ALL) == common)) {
            print_option(f, &OPTIONS[i]);
            n++;
        }
    if (n == 0)
        fprintf(f, "  (none)\n");
}

static const char EXIT_STATUS_HELP[] =
    "Exit status: 0 a plan was found or evaluated; 2 bad usage or bad input (the\n"
    "message names the JSON path, what was expected and what was found); 3 the\n"
    "problem is infeasible; 1 any other error.\n";

static void print_general_help(FILE *f)
{
    fprintf(f, "Usage: parplan COMMAND PROBLEM.json [OPTION]...\n"
               "Plan the parallel layout of LLM training on a GPU cluster (tensor, pipeline,\n"
               "data and context parallelism, micro-batch, ZeRO, recomputation, compression)\n"
               "and prove it optimal with a MIP solved by GLPK.\n\nCommands:\n");
    for (int i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %s\n      %s\n", COMMANDS[i].synopsis, COMMANDS[i].summary);
    fprintf(f, "\nOptions of every command:\n");
    print_options(f, CMD_ALL, true);
    fprintf(f, "\nRun 'parplan COMMAND --help' for the options of a command.\n");
    char where[1200];
    snprintf(where, sizeof where, "The catalogs are read from %s (--data-dir or $PARPLAN_DATA_DIR change it).",
             pp_default_data_dir());
    print_wrapped(f, where, 0, 0);
    fprintf(f, "\n%s", EXIT_STATUS_HELP);
}

static void print_command_help(FILE *f, const cli_command *cmd)
{
    fprintf(f, "Usage: parplan %s\n%c%s.\n\nOptions of '%s':\n", cmd->synopsis, toupper((unsigned char)cmd->summary[0]),
            cmd->summary + 1, cmd->name);
    print_options(f, cmd->bit, false);
    fprintf(f, "\nOptions of every command:\n");
    print_options(f, cmd->bit, true);
    fprintf(f, "\n%s", EXIT_STATUS_HELP);
}

/* ---- errors -------------------------------------------------------------- */

static void print_error(const pp_error *err, int code)
{
    if (!err->msg[0])
        fprintf(stderr, "parplan: error %d\n", code);
    else if (err->path[0])
        fprintf(stderr, "parplan: %s: %s\n", err->path, err->msg);
    else
        fprintf(stderr, "parplan: %s\n", err->msg);
}

static int usage_error(const cli_args *a, const pp_error *err)
{
    print_error(err, PP_EINPUT);
    if (a->cmd)
        fprintf(stderr, "Try 'parplan %s --help' for more information.\n", a->cmd->name);
    else
        fprintf(stderr, "Try 'parplan --help' for more information.\n");
    return PP_EINPUT;
}

/* ---- outputs ------------------------------------------------------------ */

static bool is_stdio(const char *path)
{
    return path && strcmp(path, "-") == 0;
}

/* Where the Markdown report goes: -o, else standard output unless the JSON
 * already took it; NULL for nowhere. */
static const char *report_target(const cli_args *a)
{
    if (a->output)
        return a->output;
    return is_stdio(a->json) ? NULL : "-";
}

static bool same_output(const char *x, const char *y)
{
    return strcmp(x, y) == 0 || pp_same_file(x, y);
}

static int check_not_input(const cli_args *a, const char *out, pp_error *err)
{
    const char *inputs[] = {a->problem, a->plan, a->efficiency, a->baseline, a->log, a->problem_file};
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++)
        if (inputs[i] && !is_stdio(out) && same_output(out, inputs[i]))
            return pp_error_set(err, PP_EINPUT, out, "refusing to overwrite an input file");
    for (int i = 1; i < a->n_operands; i++)
        if (!is_stdio(out) && same_output(out, a->operands[i]))
            return pp_error_set(err, PP_EINPUT, out, "refusing to overwrite an input file");
    return PP_OK;
}

/* Before any work: every output can be written, none overwrites an input,
 * and no two outputs collide. */
static int check_outputs(const cli_args *a, pp_error *err)
{
    const char *outs[] = {report_target(a), a->json, a->solve.export_lp, a->solve.export_mps};
    const int n = (int)(sizeof outs / sizeof outs[0]);
    for (int i = 0; i < n; i++) {
        if (!outs[i])
            continue;
        if (i >= 2 && is_stdio(outs[i]))
            return pp_error_set(err, PP_EINPUT, "", "--export-lp and --export-mps need a file name, not '-'");
        for (int j = 0; j < i; j++)
            if (outs[j] && same_output(outs[i], outs[j]))
                return is_stdio(outs[i])
                           ? pp_error_set(err, PP_EINPUT, "", "the report and the JSON cannot both go to "
                                                              "standard output; give -o FILE or --json FILE")
                           : pp_error_set(err, PP_EINPUT, outs[i], "two outputs would be written to this file");
        int rc = check_not_input(a, outs[i], err);
        if (!rc)
            rc = pp_output_check(outs[i], err);
        if (rc)
            return rc;
    }
    return PP_OK;
}

/* Render the JSON (when asked for) and write both outputs. */
static int emit(const cli_args *a, const pp_strbuf *md, const cJSON *doc, pp_error *err)
{
    const char *md_path = report_target(a);
    pp_strbuf js;
    pp_sb_init(&js);
    int rc = PP_OK;
    if (md->failed || (a->json && (!doc || pp_json_render(doc, &js))))
        rc = pp_error_set(err, PP_EINTERNAL, "", "out of memory while rendering the result");
    if (!rc && a->json)
        rc = pp_output_write(a->json, pp_sb_str(&js), js.len, err);
    if (!rc && md_path)
        rc = pp_output_write(md_path, pp_sb_str(md), md->len, err);
    if (!rc && a->output && !is_stdio(a->output))
        fprintf(stderr, "parplan: wrote report to %s\n", a->output);
    pp_sb_free(&js);
    return rc;
}

/* emit(), then free the rendered report and document (doc may be NULL). */
static int emit_owned(const cli_args *a, pp_strbuf *md, cJSON *doc, pp_error *err)
{
    int rc = emit(a, md, doc, err);
    cJSON_Delete(doc);
    pp_sb_free(md);
    return rc;
}

/* ---- inputs --------------------------------------------------------------- */

static int load_problem_file(const char *path, const pp_catalog *cat, pp_problem *prob, pp_error *err)
{
    if (!is_stdio(path))
        return pp_problem_load(path, cat, prob, err);
    char *text = NULL;
    int rc = pp_read_stdin(&text, err);
    if (!rc)
        rc = pp_problem_parse(text, "standard input", NULL, cat, prob, err);
    free(text);
    return rc;
}

static int load_plan_file(const char *path, const pp_problem *prob, pp_plan *plan, pp_error *err)
{
    int rc = PP_OK;
    if (!is_stdio(path)) {
        rc = pp_plan_load(path, prob, plan, err);
    } else {
        char *text = NULL;
        rc = pp_read_stdin(&text, err);
        if (!rc)
            rc = pp_plan_parse(text, "standard input", prob, plan, err);
        free(text);
    }
    if (!rc) /* the problem's MoE dispatcher and overlap fix the plan's (rules.h) */
        pp_plan_take_moe_settings(prob, plan);
    return rc;
}

/* The catalog with any --efficiency override; to be freed even on failure. */
static int load_catalog(const cli_args *a, pp_catalog *cat, pp_error *err)
{
    memset(cat, 0, sizeof *cat);
    int rc = pp_catalog_load(a->data_dir ? a->data_dir : pp_default_data_dir(), cat, err);
    if (!rc && a->efficiency)
        rc = pp_catalog_apply_efficiency(cat, a->efficiency, err);
    return rc;
}

/* Catalog (with any calibration override) and problem.  The catalog must be
 * freed even on failure. */
static int load_problem(const cli_args *a, pp_catalog *cat, pp_problem *prob, pp_error *err)
{
    int rc = load_catalog(a, cat, err);
    if (!rc)
        rc = load_problem_file(a->problem, cat, prob, err);
    return rc;
}

/* The rules say "plan" or "plan.FIELD"; name the plan's file instead, in the
 * loaders' "FILE: $.FIELD" form. */
static void locate_plan_error(pp_error *err, const char *plan_path)
{
    if (strncmp(err->path, "plan", 4) != 0 || (err->path[4] != '\0' && err->path[4] != '.'))
        return;
    char field[64];
    snprintf(field, sizeof field, "%s", err->path + 4);
    snprintf(err->path, sizeof err->path, "%.180s: $%.60s", is_stdio(plan_path) ? "standard input" : plan_path,
             field);
}

/* ---- eval ----------------------------------------------------------------- */

static void warn_if_no_fit(const pp_memory *m)
{
    if (m->total_gib > m->usable_gib)
        fprintf(stderr,
                "parplan: warning: the plan does not fit in memory: it needs %.2f GiB per GPU, "
                "%.2f GiB are usable\n",
                m->total_gib, m->usable_gib);
}

static int emit_eval(const cli_args *a, const pp_problem *prob, const pp_plan *plan, const pp_eval *ev,
                     pp_error *err)
{
    pp_strbuf md;
    pp_sb_init(&md);
    pp_report_eval_md(prob, plan, ev, &md);
    cJSON *doc = a->json ? pp_json_eval(prob, plan, ev) : NULL;
    return emit_owned(a, &md, doc, err);
}

static int run_eval(const cli_args *a, pp_error *err)
{
    pp_catalog cat;
    pp_problem prob;
    pp_plan plan;
    int rc = load_problem(a, &cat, &prob, err);
    if (!rc)
        rc = load_plan_file(a->plan, &prob, &plan, err);
    if (!rc && (rc = pp_fixed_plan_check(&prob, &plan, err)) != PP_OK)
        locate_plan_error(err, a->plan);
    if (!rc) {
        pp_eval ev;
        pp_evaluate(&prob, &plan, &ev);
        rc = emit_eval(a, &prob, &plan, &ev, err);
        if (!rc)
            warn_if_no_fit(&ev.mem);
        if (!rc && pp_plan_tp_leaves_node(&prob, &plan))
            fprintf(stderr,
                    "parplan: warning: tp=%d leaves a node of %d GPUs; priced as given, but `plan` searches such "
                    "placements only with constraints.allow_tp_across_nodes\n",
                    plan.tp, prob.cluster.gpus_per_node);
        char why[512], label[PP_NAME_LEN + PP_FW_VERSION_LEN + 8];
        if (!rc && !pp_plan_runnable(&prob, &plan, why, sizeof why))
            fprintf(stderr, "parplan: warning: not runnable by %s: %s; priced as given, but `plan` searches only "
                            "what the framework runs\n",
                    pp_framework_label(&prob, label, sizeof label), why);
    }
    pp_catalog_free(&cat);
    return rc;
}

/* ---- plan ----------------------------------------------------------------- */

static int emit_plan(const cli_args *a, const pp_problem *prob, const pp_plan_result *res,
                     const pp_explanation *ex, pp_error *err)
{
    pp_strbuf md;
    pp_sb_init(&md);
    pp_report_plan_md_ex(prob, res, ex, &md);
    cJSON *doc = a->json ? pp_json_plan_result_ex(prob, res, ex) : NULL;
    return emit_owned(a, &md, doc, err);
}

/* An infeasible problem still gets its report and JSON (saying why), then
 * exit code 3. */
static int finish_infeasible(const cli_args *a, const pp_problem *prob, pp_plan_result *res,
                             const pp_explanation *ex, pp_error *err)
{
    res->status = PP_STATUS_INFEASIBLE;
    if (!res->infeasible_reason[0])
        snprintf(res->infeasible_reason, sizeof res->infeasible_reason, "%s", err->msg);
    int rc = emit_plan(a, prob, res, ex, err);
    if (rc)
        return rc;
    return pp_error_set(err, PP_EINFEASIBLE, is_stdio(a->problem) ? "standard input" : a->problem,
                        "infeasible: %s", res->infeasible_reason);
}

#define DEFAULT_TOP_K 5 /* runner-ups the report lists unless --top says otherwise */

/* The report's explanation (explain.h): counterfactual re-solves, runner-up
 * analysis, schedule, baseline.  NULL when memory runs out or it fails; the
 * report is then written without those sections. */
static pp_explanation *explain(const cli_args *a, const pp_catalog *cat, const pp_problem *prob,
                               const pp_plan_options *solve, const pp_plan_result *res, const pp_plan *baseline)
{
    pp_explanation *ex = malloc(sizeof *ex);
    if (!ex)
        return NULL;
    pp_explain_options eo;
    pp_explain_options_init(&eo);
    eo.baseline = baseline;
    eo.baseline_label = a->baseline;
    pp_error err;
    if (pp_explain_plan(prob, cat, solve, res, &eo, ex, &err) != PP_OK) {
        fprintf(stderr, "parplan: warning: the report leaves out its explanation: %s\n", err.msg);
        free(ex);
        return NULL;
    }
    return ex;
}

static int run_plan(const cli_args *a, pp_error *err)
{
    pp_catalog cat;
    pp_problem prob;
    pp_plan_result res;
    pp_plan baseline;
    pp_explanation *ex = NULL;
    pp_plan_options solve = a->solve;
    if (!(a->given & (1u << OPT_TOP)))
        solve.top_k = DEFAULT_TOP_K;
    memset(&res, 0, sizeof res);
    int rc = load_problem(a, &cat, &prob, err);
    if (!rc && a->baseline)
        rc = load_plan_file(a->baseline, &prob, &baseline, err);
    /* the explanation's re-solves of the same prices reuse the solve's terms */
    solve.prices = rc ? NULL : pp_price_cache_new();
    if (!rc)
        rc = pp_plan_solve(&prob, &solve, &res, err);
    if (rc == PP_EINFEASIBLE || (!rc && res.status == PP_STATUS_INFEASIBLE)) {
        pp_error keep = *err;
        ex = explain(a, &cat, &prob, &solve, &res, a->baseline ? &baseline : NULL);
        *err = keep;
        rc = finish_infeasible(a, &prob, &res, ex, err);
    } else if (!rc) {
        ex = explain(a, &cat, &prob, &solve, &res, a->baseline ? &baseline : NULL);
        rc = emit_plan(a, &prob, &res, ex, err);
    }
    if (!rc && res.best.plan.tp < 1)
        rc = pp_error_set(err, PP_EINTERNAL, "", "the time limit was reached before any valid plan was found");
    if (!rc)
        warn_if_no_fit(&res.best.eval.mem);
    if (ex)
        pp_explanation_free(ex);
    free(ex);
    pp_plan_result_free(&res);
    pp_price_cache_free(solve.prices);
    pp_catalog_free(&cat);
    return rc;
}

/* ---- calibrate and accuracy ------------------------------------------------- */

/* The catalog (with any --efficiency override) and the measurement rows. */
static int load_measurements(const cli_args *a, pp_catalog *cat, pp_measurement_set *set, pp_error *err)
{
    memset(set, 0, sizeof *set);
    int rc = load_catalog(a, cat, err);
    if (!rc)
        rc = pp_measurements_load_many(a->operands, a->n_operands, cat, set, err);
    if (!rc && set->n == 0)
        rc = pp_error_set(err, PP_EINPUT, a->problem, "no row could be priced (%d skipped; the first: %.500s)",
                          set->n_skipped, set->first_skipped);
    return rc;
}

/* A JSON text calibrate made (NULL: out of memory) goes where -o says. */
static int emit_json_text(const cli_args *a, char *text, pp_error *err)
{
    pp_strbuf md;
    pp_sb_init(&md);
    pp_sb_append(&md, text ? text : "");
    pp_sb_append(&md, "\n");
    free(text);
    if (!text)
        md.failed = true;
    cJSON *doc = a->json ? cJSON_Parse(pp_sb_str(&md)) : NULL;
    return emit_owned(a, &md, doc, err);
}

/* The line rates the nccl-tests efficiencies are fractions of: --problem's
 * cluster, else the catalog GPU's usual system. */
static int links_cluster(const cli_args *a, const pp_catalog *cat, pp_cluster *c, pp_error *err)
{
    memset(c, 0, sizeof *c);
    if (a->problem_file) {
        pp_problem prob;
        int rc = load_problem_file(a->problem_file, cat, &prob, err);
        if (rc)
            return rc;
        if (!prob.has_cluster)
            return pp_error_set(err, PP_EINPUT, a->problem_file, "the problem has no cluster to take line rates from");
        if (a->gpu && strcmp(a->gpu, prob.cluster.gpu.id) != 0)
            return pp_error_set(err, PP_EINPUT, "--gpu", "'%.64s' is not the GPU of %.100s ('%.64s')", a->gpu,
                                a->problem_file, prob.cluster.gpu.id);
        *c = prob.cluster;
    } else {
        const pp_gpu *g = pp_catalog_gpu(cat, a->gpu);
        pp_jpath at = pp_jpath_root("--gpu");
        if (!g)
            return pp_catalog_fail_unknown(cat, PP_CATALOG_GPUS, a->gpu, &at, err);
        pp_cluster_from_gpu(g, c);
        c->nodes = 1;
        /* no cross-rail penalty: a log does not say how its GPUs share NICs
         * (a --problem cluster does) */
        c->gpus_per_nic_switch = 0;
    }
    if (!pp_catalog_gpu(cat, c->gpu.id))
        return pp_error_set(err, PP_EINPUT, a->problem_file, "the GPU '%.64s' is not in the catalog, and an "
                                                             "efficiency file names catalog GPUs", c->gpu.id);
    return PP_OK;
}

static int fit_links(const cli_args *a, pp_nccl_log *logs, pp_link_calibration *cal, pp_error *err)
{
    int fitted = pp_calibrate_links(logs, a->n_operands, cal);
    pp_strbuf txt;
    pp_sb_init(&txt);
    pp_report_links_text(logs, a->n_operands, cal, &txt);
    fputs(pp_sb_str(&txt), stderr);
    pp_sb_free(&txt);
    if (!fitted)
        return pp_error_set(err, PP_EINPUT, "", "nothing valid to fit in the nccl-tests log%s (above: why each run was "
                                                "not used, or why a link could not be fitted from it)",
                            a->n_operands == 1 ? "" : "s");
    char source[512];
    snprintf(source, sizeof source, "parplan calibrate --nccl-tests (%d log%s, first %.200s): NVLink %s, network %s; "
             "the other parameters as the catalog has them", a->n_operands, a->n_operands == 1 ? "" : "s",
             a->operands[0],
             cal->link[PP_LINK_NVLINK].fitted                 ? "fitted"
             : cal->link[PP_LINK_NVLINK].latency_from_network ? "latency fitted with the network's"
                                                              : "kept",
             cal->link[PP_LINK_NETWORK].fitted ? "fitted" : "kept");
    pp_fit fit;
    memset(&fit, 0, sizeof fit);
    snprintf(fit.gpu_id, sizeof fit.gpu_id, "%s", cal->cluster.gpu.id);
    fit.eff = cal->cluster.gpu.eff;
    return emit_json_text(a, pp_fits_to_json(&fit, 1, source, 0.0, 0.0), err);
}

static int run_calibrate_nccl(const cli_args *a, pp_error *err)
{
    pp_catalog cat;
    pp_link_calibration cal;
    pp_nccl_log *logs = calloc((size_t)a->n_operands, sizeof *logs);
    int n = 0, rc = load_catalog(a, &cat, err);
    if (!rc && !logs)
        rc = pp_error_set(err, PP_EINTERNAL, "", "out of memory");
    if (!rc)
        rc = links_cluster(a, &cat, &cal.cluster, err);
    if (!rc)
        pp_link_calibration_bounds(&cat, &cal);
    for (; !rc && n < a->n_operands; n++)
        rc = pp_nccl_log_load(a->operands[n], cal.cluster.gpus_per_node, &logs[n], err);
    if (!rc)
        rc = fit_links(a, logs, &cal, err);
    for (int i = 0; i < n; i++)
        pp_nccl_log_free(&logs[i]);
    free(logs);
    pp_catalog_free(&cat);
    return rc;
}

static int fit_gemm(const cli_args *a, const pp_catalog *cat, const pp_gemm_sweep *sweeps, pp_gemm_calibration *cal,
                    pp_error *err)
{
    int fitted = pp_calibrate_gemm(cat, sweeps, a->n_operands, cal);
    pp_strbuf txt;
    pp_sb_init(&txt);
    pp_report_gemm_text(sweeps, a->n_operands, cal, &txt);
    fputs(pp_sb_str(&txt), stderr);
    pp_sb_free(&txt);
    if (!fitted)
        return pp_error_set(err, PP_EINPUT, "", "nothing to fit: no row of the GEMM sweep%s has a dtype %.64s has a "
                                                "peak for", a->n_operands == 1 ? "" : "s", cal->gpu.id);
    char source[512];
    snprintf(source, sizeof source, "parplan calibrate --gemm-sweep (%d file%s, first %.200s): %d GEMMs, gemm and "
             "the shape terms the rows inform fitted; the other parameters as loaded (catalog, --efficiency)",
             a->n_operands, a->n_operands == 1 ? "" : "s", a->operands[0], cal->n_rows);
    pp_fit fit;
    memset(&fit, 0, sizeof fit);
    snprintf(fit.gpu_id, sizeof fit.gpu_id, "%s", cal->gpu.id);
    fit.eff = cal->gpu.eff;
    return emit_json_text(a, pp_fits_to_json(&fit, 1, source, 0.0, 0.0), err);
}

static int run_calibrate_gemm(const cli_args *a, pp_error *err)
{
    pp_catalog cat;
    pp_cluster cluster;
    pp_gemm_calibration cal;
    pp_gemm_sweep *sweeps = calloc((size_t)a->n_operands, sizeof *sweeps);
    int n = 0, rc = load_catalog(a, &cat, err);
    if (!rc && !sweeps)
        rc = pp_error_set(err, PP_EINTERNAL, "", "out of memory");
    if (!rc)
        rc = links_cluster(a, &cat, &cluster, err);
    for (; !rc && n < a->n_operands; n++)
        rc = pp_gemm_sweep_load(a->operands[n], &sweeps[n], err);
    if (!rc) {
        memset(&cal, 0, sizeof cal);
        cal.gpu = cluster.gpu;
        rc = fit_gemm(a, &cat, sweeps, &cal, err);
    }
    for (int i = 0; i < n; i++)
        pp_gemm_sweep_free(&sweeps[i]);
    free(sweeps);
    pp_catalog_free(&cat);
    return rc;
}

static int run_calibrate_log(const cli_args *a, pp_error *err)
{
    pp_catalog cat;
    pp_problem prob;
    pp_plan plan;
    pp_train_log tl;
    memset(&tl, 0, sizeof tl);
    int rc = load_catalog(a, &cat, err);
    if (!rc)
        rc = load_problem_file(a->problem_file, &cat, &prob, err);
    if (!rc)
        rc = load_plan_file(a->plan, &prob, &plan, err);
    if (!rc && (rc = pp_fixed_plan_check(&prob, &plan, err)) != PP_OK)
        locate_plan_error(err, a->plan);
    if (!rc)
        rc = pp_train_log_load(a->log, &prob, &tl, err);
    if (!rc) {
        fprintf(stderr, "parplan: %s: %s log, %d step-time reports; the first %d skipped as warm-up; median of the "
                        "other %d: %.4g s (from %s)\n",
                a->log, pp_train_log_format_name(tl.format), tl.n, tl.warmup_skipped, tl.n - tl.warmup_skipped,
                tl.median_s, tl.how);
        if (tl.n == 1)
            fprintf(stderr, "parplan: warning: one report only: it includes the warm-up; run more steps\n");
        rc = emit_json_text(a, pp_train_log_rows_json(&tl, a->log, &prob, &plan), err);
    }
    pp_train_log_free(&tl);
    pp_catalog_free(&cat);
    return rc;
}

/* Which parameters a fit from the prior moved (the rows identify them) and
 * which it kept, with what each row-set says about them. */
static void print_moved(const pp_fit *f, const pp_catalog *cat)
{
    const pp_gpu *g = pp_catalog_gpu(cat, f->gpu_id);
    if (f->n_moe_rows > 0)
        fprintf(stderr, "parplan: %s: %d Mixture-of-Experts rows set the stack's level only: what their steps "
                        "cost beyond the priced physics is the team's MoE stack, not the GPU's kernels (the physical "
                        "parameters move for dense rows only)\n",
                f->gpu_id, f->n_moe_rows);
    fprintf(stderr, "parplan: %s: moved (the rows identify them):", f->gpu_id);
    int moved = 0;
    for (int j = 0; j < PP_EFF_COUNT; j++)
        if (f->moved[j]) {
            fprintf(stderr, "%s %s %.4g -> %.4g (sensitivity %.3g)", moved++ ? "," : "", pp_efficiency_key(j),
                    g ? pp_efficiency_value(&g->eff, j) : 0.0, pp_efficiency_value(&f->eff, j), f->sensitivity[j]);
        }
    fprintf(stderr, "%s\nparplan: %s: kept at the shipped fit:", moved ? "" : " none", f->gpu_id);
    int kept = 0;
    for (int j = 0; j < PP_EFF_COUNT; j++)
        if (!f->moved[j])
            fprintf(stderr, "%s %s (sensitivity %.3g%s)", kept++ ? "," : "", pp_efficiency_key(j), f->sensitivity[j],
                    f->sensitivity[j] * PP_PRIOR_SIGMA_U >= PP_PRIOR_MIN_EFFECT ? ", more than the rows can identify"
                                                                              : "");
    fprintf(stderr, "%s\n", kept ? "" : " none");
    double before = g && g->eff.compute_scale > 0.0 ? g->eff.compute_scale : 1.0;
    fprintf(stderr, "parplan: %s: the stack's level (compute_scale, what the rows' mean error leaves once the physics "
                    "has moved, rms log error %.3f): %.4g -> %.4g (the rows alone ask %.4g; %d rows move it %.0f %% of "
                    "the way from the prior): its kernels run %.1f %% %s than the fitted physics\n",
            f->gpu_id, f->rms_log_error_physics, before, f->eff.compute_scale, f->level_rows, f->n_rows + f->n_moe_rows,
            100.0 * f->level_pull, 100.0 * fabs(f->eff.compute_scale - 1.0),
            f->eff.compute_scale >= 1.0 ? "longer" : "shorter");
    double cat_error = cat->model_error > 0.0 ? cat->model_error : PP_PRIOR_DEFAULT_SIGMA_LOG;
    if (f->rows_scatter > 0.0)
        fprintf(stderr,
                "parplan: %s: the rows' log errors scatter %.1f %% about their mean, so each counts as noisy by %.1f %% "
                "(%s the catalog's cross-validated %.1f %%, pooled as %g rows' worth)\n",
                f->gpu_id, 100.0 * f->rows_scatter, 100.0 * f->sigma_log,
                f->sigma_log > cat_error + 1e-12 ? "wider than" : "kept at", 100.0 * cat_error, PP_PRIOR_NOISE_DOF);
}

static int run_calibrate(const cli_args *a, pp_error *err)
{
    if (a->nccl_tests)
        return run_calibrate_nccl(a, err);
    if (a->gemm_sweep)
        return run_calibrate_gemm(a, err);
    if (a->log)
        return run_calibrate_log(a, err);
    pp_catalog cat;
    pp_measurement_set set;
    int rc = load_measurements(a, &cat, &set, err);
    pp_cv_result *cv = NULL;
    if (!rc && a->cv && !(cv = malloc(sizeof *cv)))
        rc = pp_error_set(err, PP_EINTERNAL, "", "out of memory");
    if (!rc && cv && (rc = pp_cross_validate(&cat, &set, cv)) != PP_OK)
        pp_error_set(err, rc, "", "out of memory");
    if (!rc) {
        pp_fit fits[PP_MAX_GROUPS];
        int n = a->no_prior ? pp_calibrate(&cat, &set, fits, PP_MAX_GROUPS)
                            : pp_calibrate_map(&cat, &set, 0.0, fits, PP_MAX_GROUPS);
        int n_moe = 0, n_defect = 0;
        for (int i = 0; i < set.n; i++) {
            bool defect = set.rows[i].defect; /* apart as a defect before as MoE, as the CV counts it */
            n_defect += defect;
            n_moe += !defect && pp_model_is_moe(&set.rows[i].prob.model);
        }
        /* Mixture-of-Experts rows: scored apart by the project's fit from
         * the middle of the bounds; a team's fit from the prior takes its
         * stack level from them */
        int apart_moe = a->no_prior ? n_moe : 0;
        /* short: the catalog keeps 256 characters of a GPU's source */
        char source[512], moe_note[80] = "", defect_note[64] = "";
        if (apart_moe)
            snprintf(moe_note, sizeof moe_note, " %d Mixture-of-Experts rows", apart_moe);
        else if (n_moe)
            snprintf(moe_note, sizeof moe_note, " (%d Mixture-of-Experts rows: the stack level only)", n_moe);
        if (n_defect)
            snprintf(defect_note, sizeof defect_note, "%s %d software-defect rows", apart_moe ? "," : "", n_defect);
        snprintf(source, sizeof source,
                 "parplan calibrate %.180s%s: least squares on log(predicted/measured step time) within physical "
                 "bounds (BOBYQA)%s, %d rows%s%s%s%s",
                 a->problem, a->n_operands > 1 ? " ..." : "",
                 a->no_prior ? "" : " from the shipped fit as a prior (bounded MAP)", set.n - apart_moe - n_defect,
                 apart_moe ? "" : moe_note, apart_moe || n_defect ? "; scored apart:" : "", apart_moe ? moe_note : "",
                 defect_note);
        char *text =
            pp_fits_to_json(fits, n, source, cv ? cv->mape_cv / 100.0 : 0.0, cv ? cv->group_bias_rms : 0.0);
        pp_strbuf md;
        pp_sb_init(&md);
        pp_sb_append(&md, text ? text : "");
        pp_sb_append(&md, "\n");
        free(text);
        for (int i = 0; i < n; i++) {
            fprintf(stderr, "parplan: %s: %d rows, rms log error %.3f (%s) -> %.3f, %d of %d "
                            "parameters at a bound\n",
                    fits[i].gpu_id, fits[i].n_rows + fits[i].n_moe_rows, fits[i].rms_log_error_before,
                    fits[i].map ? "the shipped fit" : "middle of the bounds", fits[i].rms_log_error_after,
                    fits[i].n_at_bound, PP_EFF_COUNT);
            if (fits[i].map)
                print_moved(&fits[i], &cat);
            else if (fits[i].n_rows < PP_EFF_COUNT)
                fprintf(stderr, "parplan: %s: warning: %d rows for %d parameters from the middle of their bounds: "
                                "the rows cannot identify them all, and the fit may price other plans far off; "
                                "without --no-prior only what the rows identify moves from the shipped fit\n",
                        fits[i].gpu_id, fits[i].n_rows, PP_EFF_COUNT);
        }
        for (int i = 0; cv && i < cv->n_groups; i++)
            fprintf(stderr, "parplan: cv: %-32s %4d rows  step-time MAPE %5.1f %% cross-validated, %5.1f %% in sample\n",
                    cv->groups[i].group, cv->groups[i].n_time, cv->groups[i].mape_cv, cv->groups[i].mape_in);
        if (cv)
            fprintf(stderr, "parplan: cv: all rows: %.1f %% cross-validated, %.1f %% in sample\n", cv->mape_cv,
                    cv->mape_in);
        cJSON *doc = a->json ? cJSON_Parse(pp_sb_str(&md)) : NULL;
        rc = emit_owned(a, &md, doc, err);
    }
    free(cv);
    pp_measurements_free(&set);
    pp_catalog_free(&cat);
    return rc;
}

/* "parplan accuracy A B --cv", for the report to say how it was made. */
static void command_line(const cli_args *a, char *buf, size_t cap)
{
    size_t used = (size_t)snprintf(buf, cap, "parplan %s %s", a->cmd->name, a->problem);
    for (int i = 1; i < a->n_operands && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, " %s", a->operands[i]);
    if (used < cap)
        used += (size_t)snprintf(buf + used, cap - used, " --cv");
    if (used < cap && a->shots > 0)
        snprintf(buf + used, cap - used, " --shots %d", a->shots);
}

static int run_accuracy_cv(const cli_args *a, const pp_catalog *cat, pp_measurement_set *set, pp_error *err)
{
    pp_cv_result *cv = malloc(sizeof *cv);
    if (!cv)
        return pp_error_set(err, PP_EINTERNAL, "", "out of memory");
    int rc = pp_cross_validate_shots(cat, set, a->shots, cv);
    if (rc) {
        free(cv);
        return pp_error_set(err, rc, "", "out of memory");
    }
    pp_score score; /* memory rows, with the all-groups fit the rows now carry */
    pp_score_measurements(set, &score);
    char cmd[1024];
    command_line(a, cmd, sizeof cmd);
    pp_strbuf md;
    pp_sb_init(&md);
    pp_report_cv_md(cv, &score, set, cmd, a->rows, &md);
    cJSON *doc = a->json ? pp_json_cv(cv, set, a->rows) : NULL;
    free(cv);
    return emit_owned(a, &md, doc, err);
}

static int run_accuracy(const cli_args *a, pp_error *err)
{
    pp_catalog cat;
    pp_measurement_set set;
    int rc = load_measurements(a, &cat, &set, err);
    if (!rc && a->cv) {
        rc = run_accuracy_cv(a, &cat, &set, err);
    } else if (!rc) {
        pp_score score;
        pp_score_measurements(&set, &score);
        pp_strbuf md;
        pp_sb_init(&md);
        pp_report_accuracy_md(&score, &set, a->rows, &md);
        cJSON *doc = a->json ? pp_json_accuracy(&score, &set, a->rows) : NULL;
        rc = emit_owned(a, &md, doc, err);
    }
    pp_measurements_free(&set);
    pp_catalog_free(&cat);
    return rc;
}

/* ---- capacity ------------------------------------------------------------- */

/* Like `plan`: the report and the JSON are written even when no cluster
 * meets the limits (they say why), then exit code 3. */
static int run_capacity(const cli_args *a, pp_error *err)
{
    pp_catalog cat;
    pp_problem prob;
    pp_capacity_result res;
    memset(&res, 0, sizeof res);
    pp_capacity_options opt;
    pp_capacity_options_init(&opt);
    opt.method = a->solve.method;
    opt.progress = pp_capacity_progress_stderr;
    int rc = load_problem(a, &cat, &prob, err);
    if (!rc)
        rc = pp_capacity_solve(&prob, &opt, &res, err);
    if (!rc || rc == PP_EINFEASIBLE) {
        pp_strbuf md;
        pp_sb_init(&md);
        pp_report_capacity_md(&prob, &res, &md);
        cJSON *doc = a->json ? pp_json_capacity_result(&prob, &res) : NULL;
        pp_error out_err;
        int out_rc = emit(a, &md, doc, &out_err);
        cJSON_Delete(doc);
        pp_sb_free(&md);
        if (out_rc)
            rc = out_rc, *err = out_err;
        else if (rc == PP_EINFEASIBLE)
            pp_error_set(err, rc, is_stdio(a->problem) ? "standard input" : a->problem, "infeasible: %s",
                         res.infeasible_reason);
    }
    pp_capacity_result_free(&res);
    pp_catalog_free(&cat);
    return rc;
}

/* ---- main ----------------------------------------------------------------- */

int main(int argc, char **argv)
{
    cli_args a;
    pp_error err;
    pp_error_clear(&err);
    if (parse_args(argc, argv, &a, &err) != PP_OK)
        return usage_error(&a, &err);
    if (a.version) {
        printf("parplan %s\n", pp_version());
        return 0;
    }
    if (a.help) {
        if (a.cmd)
            print_command_help(stdout, a.cmd);
        else
            print_general_help(stdout);
        return 0;
    }
    int rc = check_outputs(&a, &err);
    if (!rc)
        rc = a.cmd->run(&a, &err);
    if (rc)
        print_error(&err, rc);
    return rc;
}
