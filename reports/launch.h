/*
 * launch.h: how to run a plan with the frameworks people use.
 *
 * Every framework setting parplan writes is computed here, once, into one
 * table: per launch target (Megatron-LM's command line, Megatron-Bridge's
 * (NeMo's) recipe overrides, the DeepSpeed
 * configuration, the PyTorch FSDP2 / torchtitan TOML, MVAPICH-Plus's
 * compression environment) an ordered list of (key, value) settings as the
 * framework spells them.  pp_launch_build fills it; the Markdown report's
 * "How to run it" section (pp_md_how_to_run) and the result JSON's
 * how_to_run (result_json.c) both render that table and spell no key or
 * value of their own, so the two never disagree.
 */
#ifndef PARPLAN_LAUNCH_H
#define PARPLAN_LAUNCH_H

#include "planner.h"
#include "strbuf.h"
#include "types.h"

/* What a setting's value is; each renderer writes a kind its own way. */
typedef enum {
    PP_LV_SWITCH, /* a command-line flag with no value ("--sequence-parallel") */
    PP_LV_INT,    /* a whole number */
    PP_LV_BOOL,   /* true or false; Markdown never writes a switch that is off (TOML, DeepSpeed) */
    PP_LV_STR,    /* a string: quoted in TOML and JSON */
    PP_LV_TEXT,   /* a value written as it is (a flag's argument, an environment value) */
    PP_LV_COMMENT, /* no key: a comment line of its own (the environment's "# dp traffic: ...") */
    PP_LV_NULL     /* no value: the framework's "unset" (Hydra's and JSON's null) */
} pp_launch_kind;

/* Where a setting appears. */
enum { PP_LAUNCH_MD = 1, PP_LAUNCH_JSON = 2, PP_LAUNCH_BOTH = 3 };

#define PP_LAUNCH_TEXT 160
#define PP_LAUNCH_KEY 96

typedef struct pp_launch_setting {
    const char *section;  /* the TOML table or DeepSpeed object holding it; NULL at the top */
    char key[PP_LAUNCH_KEY]; /* as the framework spells it; "" for a comment */
    pp_launch_kind kind;
    long num;             /* PP_LV_INT */
    bool on;              /* PP_LV_BOOL */
    char text[PP_LAUNCH_TEXT]; /* PP_LV_STR, PP_LV_TEXT, PP_LV_COMMENT */
    bool joined;          /* a command line: on the same line as the setting before */
    int where;            /* PP_LAUNCH_MD, PP_LAUNCH_JSON or both */
    const char *json_key; /* its key in the result JSON when that differs from key (a flat object) */
    const char *comment;  /* Markdown: a comment after the value */
} pp_launch_setting;

/* How a target's settings are written. */
typedef enum {
    PP_LF_ARGS, /* command-line flags, a group of them a line (Megatron-LM) */
    PP_LF_JSON, /* a JSON configuration whose sections are objects (DeepSpeed) */
    PP_LF_TOML, /* a TOML configuration whose sections are tables (torchtitan) */
    PP_LF_ENV,  /* environment variables (MVAPICH-Plus) */
    PP_LF_OVERRIDES /* Hydra overrides KEY=VALUE of a recipe's configuration, one a line (Megatron-Bridge) */
} pp_launch_format;

#define PP_LAUNCH_MAX_SETTINGS 96
#define PP_LAUNCH_NOTES 2048

typedef struct pp_launch_target {
    const char *title;    /* the report's heading ("Megatron-LM") */
    pp_launch_format format;
    const char *json_key; /* under how_to_run in the result JSON; NULL: the JSON does not carry it */
    char command[PP_LAUNCH_TEXT]; /* PP_LF_ARGS: the launcher line before the flags */
    const char *trailer;  /* PP_LF_ARGS: the last line, what the user adds; PP_LF_ENV: the first export */
    bool has_exact;       /* the JSON says whether the target runs the plan as priced */
    bool exact;
    int n;
    pp_launch_setting settings[PP_LAUNCH_MAX_SETTINGS];
    char notes[PP_LAUNCH_NOTES]; /* Markdown paragraphs after the settings: what the target cannot run */
} pp_launch_target;

/* The launch targets, in the order the report and the JSON give them. */
typedef enum {
    PP_LT_MEGATRON,
    PP_LT_BRIDGE,
    PP_LT_DEEPSPEED,
    PP_LT_TORCHTITAN,
    PP_LT_MVAPICH,
    PP_LT_COUNT
} pp_launch_id;

typedef struct pp_launch {
    pp_launch_target targets[PP_LT_COUNT];
    bool mpi_codecs; /* some dimension uses an MPI codec: the MVAPICH target has settings */
} pp_launch;

/* Fill *out with every target's settings for plan (microbatches: per
 * pipeline and step, as the evaluation counts them). */
void pp_launch_build(const pp_problem *prob, const pp_plan *plan, int microbatches, pp_launch *out);

/* A command-line target's settings one line a group ("--num-layers 96
 * --hidden-size 12288 ..."), as Markdown and the JSON write them; returns
 * how many (at most max). */
int pp_launch_lines(const pp_launch_target *t, char lines[][PP_LAUNCH_TEXT], int max);

/* The plan as Megatron-LM command-line flags (pp_launch_lines of the
 * Megatron-LM target); returns how many lines. */
int pp_megatron_flags(const pp_problem *prob, const pp_plan *plan, char lines[][PP_LAUNCH_TEXT], int max);

/* Whether to capture the layers as CUDA graphs (launch.c: the step time
 * counts the GPU's work only, which an eager Megatron-Core run keeps up with
 * only when a layer gives the GPU enough of it). */
typedef struct pp_cuda_graph_advice {
    double layer_ms;   /* GPU time of one layer's forward and backward per micro-batch (busiest stage) */
    bool advised;      /* a Megatron-Core plan without CUDA graphs below PP_GRAPH_LAYER_MS, or whose MoE
                          layers wait for the host */
    const char *impl;  /* the value of --cuda-graph-impl (model.cuda_graph_impl) */
    const char *scope; /* the value of --cuda-graph-scope, NULL: the whole layer (the default) */
    double free_gib;   /* usable memory the plan leaves, which the graphs' buffers take from */
    double host_wait_s; /* MoE without CUDA graphs: seconds a step the GPU waits for the host to issue
                           the MoE layers, priced in the step (docs/cost-model.md section 9) */
    double host_ms;    /* the framework's host time a MoE layer and micro-batch (frameworks.json) */
} pp_cuda_graph_advice;

void pp_cuda_graph_advice_of(const pp_problem *prob, const pp_plan *plan, const pp_eval *ev, pp_cuda_graph_advice *out);

/* The advice as a Markdown section under heading ("###"), nothing where
 * graphs are not advised. */
void pp_md_cuda_graphs(pp_strbuf *sb, const char *heading, const pp_problem *prob, const pp_plan *plan,
                       const pp_eval *ev);

/* The report's "How to run it" section: every target, compression's
 * accuracy risks, then the CUDA-graph advice. */
void pp_md_how_to_run(pp_strbuf *sb, const pp_problem *prob, const pp_plan_result *res);

#endif
